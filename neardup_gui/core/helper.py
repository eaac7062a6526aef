"""A helper process that verifies part of each round of pairs while the screening thread does the rest.

Verification is the largest stage of a large screen. Within one process it uses two cores at
most: the compiled alignment runs on a thread without the GIL, but building and flagging the
candidates is Python. A second *process* can add more where there are more cores: a share of each
round of pairs (``HELPER_SHARE``) goes to the helper with the texts and per-document values it
needs (``build_job``), all rounds' shares at once so that it never waits; the rest is verified
here, and the helper's candidates come back for the same sort. Its first jobs go out earlier,
while the containment index is still being built (``pipeline._EarlyJobs``: the pairs LSH found);
it then gets a smaller share of the rounds. Results are the same as verifying every pair in one
process (tested).

The helper is started with ``spawn`` (never ``fork``: the window has threads). With
``HELPER_MIN_CORES`` cores or more it is started while the documents are prepared, so its start-up
(importing, loading the compiled diff) is over when verification begins, and from
``HELPER_MIN_DOCUMENTS`` usable documents. With two or three cores, both are busy preparing: it is
started once the documents are prepared (its start-up then overlaps the candidate search, which
is shorter and lighter than the preparation) and only from ``HELPER_FEW_CORES_MIN_DOCUMENTS``,
where verification is long enough for the share it takes to outweigh its start-up
(``helper_pays``, ``start_early``). If it cannot start or fails, verification goes on in this
process; nothing is lost. A frozen (PyInstaller) program must call
``multiprocessing.freeze_support()`` first thing, as ``packaging/launch.py`` does.

Imports numpy and sibling engine modules only; no Qt.
"""

from __future__ import annotations

import logging
import itertools
import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

import numpy as np

from neardup_gui.core.machine import usable_cores
from neardup_gui.core.memory import cycle_collector_paused
from neardup_gui.core.records import Candidate, Document, ScreenParams

log = logging.getLogger(__name__)

__all__ = [
    "HELPER_FEW_CORES_MIN_DOCUMENTS",
    "HELPER_MIN_CORES",
    "HELPER_MIN_DOCUMENTS",
    "HELPER_MIN_PAIRS",
    "HELPER_SHARE",
    "VerifyHelper",
    "build_job",
    "helper_pays",
    "run_job",
    "start_early",
]

# Usable documents from which a screen starts the helper (10,000 documents verify in ~0.4 s: the
# helper's start-up would eat the gain). NEARDUP_HELPER_MIN_DOCUMENTS overrides it (0: always).
HELPER_MIN_DOCUMENTS = int(os.environ.get("NEARDUP_HELPER_MIN_DOCUMENTS", "20000"))
# Cores from which it is started beside the preparation (two preparing threads then leave cores to
# spare). NEARDUP_HELPER_MIN_CORES overrides it.
HELPER_MIN_CORES = int(os.environ.get("NEARDUP_HELPER_MIN_CORES", "4"))
# On two or three cores: usable documents from which it is started, once the documents are prepared.
# Verification there uses ~1.2 cores (the screening thread builds and flags the candidates in Python
# while a thread aligns in compiled code), so the helper has most of a core. Measured on two cores,
# stages after reading, without -> with the helper: 20,000 files 1.8-2.4 -> 2.6-2.9 s (it is not
# ready when verification begins); 30,000 2.9-3.1 -> 2.8-3.6 s; 50,000 5.0-6.2 -> 3.9-5.4 s;
# 100,000 11.5-13.5 -> 8.6-11.0 s (verification 5.3-6.7 -> 2.9-4.3 s; started before preparing,
# it slowed the preparation by ~0.3 s). NEARDUP_HELPER_FEW_CORES_MIN_DOCUMENTS overrides it.
HELPER_FEW_CORES_MIN_DOCUMENTS = int(os.environ.get("NEARDUP_HELPER_FEW_CORES_MIN_DOCUMENTS", "40000"))
# Pairs in a round from which the helper gets a share, and that share: this process also builds
# the jobs (gathering and pickling the texts), so the helper can take a little more than half.
HELPER_MIN_PAIRS = 64
HELPER_SHARE = 0.55
# Pairs a job for the helper holds at most (a round's share is sent as several): the jobs it has
# not started when this process has done its own pairs are taken back (``pipeline``), and the
# last ones it runs while this process waits are short (a folder of drafts: ~0.5 s each).
HELPER_JOB_PAIRS = 1024


# Or as many characters as that many articles of ~1,500 (verification's work grows with the length
# of the paired texts, not their number): on two cores, 2,200 manuscripts of ~75,000 characters
# with 200 revised pairs verified in 58-67 s without it and 35 s with it; 1,200 of them in 600
# pairs, 12.3-13.5 s and 8.7-9.4 s.
ARTICLE_CHARS = 1500


def helper_pays(usable_documents: int, characters: int = 0) -> bool:
    """Whether a screen of this many usable documents, holding this many characters, on this
    machine, should start the helper."""
    cores = usable_cores()
    least = HELPER_MIN_DOCUMENTS if cores >= HELPER_MIN_CORES else HELPER_FEW_CORES_MIN_DOCUMENTS
    return cores >= 2 and (usable_documents >= least or characters >= least * ARTICLE_CHARS)


def start_early() -> bool:
    """Whether to start the helper before the documents are prepared (cores to spare), rather than
    once they are (``pipeline.screen`` starts one it is given that is not started yet)."""
    return usable_cores() >= HELPER_MIN_CORES


class VerifyHelper:
    """One spawned process that runs ``run_job``; ``submit`` returns None when it is not usable.
    ``call`` gives it other work (the check after the run takes a share of its stats); started
    with ``engine=False`` it serves only such calls (a rescan's light helper)."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self.failed = False
        self.sent = 0  # pairs handed to the process
        self.taken_back = 0  # of those, pairs taken back before it started them (``pipeline``)

    @property
    def started(self) -> bool:
        """``start`` was called (whether or not the process could start)."""
        return self._pool is not None or self.failed

    def start(self, engine: bool = True) -> None:
        """Spawn the process and have it import the engine now (returns at once). ``engine=False``:
        it imports nothing more until ``call`` gives it work (a helper for lighter work than
        verifying, such as ``io.corpus.check_integrity``'s share)."""
        try:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
            self._pool.submit(_warm if engine else _up)  # the pool spawns its process at a first task
        except Exception:  # no process can be started here: verify in this process
            log.warning("verification helper could not start; verifying in one process", exc_info=True)
            self._pool, self.failed = None, True

    def submit(self, job: dict[str, Any]) -> Future[tuple[list[Candidate], int]] | None:
        if self._pool is None or self.failed:
            return None
        try:
            future = self._pool.submit(run_job, job)
        except Exception:
            log.warning("verification helper refused a job; verifying in one process", exc_info=True)
            self.failed = True
            return None
        self.sent += len(job["pairs"])
        return future

    def call(self, fn: Callable[..., Any], *args: Any) -> Future[Any] | None:
        """Run ``fn(*args)`` in the process (a module-level function: it is sent by name), or
        None when it is not usable. For work besides verifying that it can take a share of."""
        if self._pool is None or self.failed:
            return None
        try:
            return self._pool.submit(fn, *args)
        except Exception:
            log.warning("helper process refused a call; running it here", exc_info=True)
            return None

    def close(self, finish: bool = False) -> None:
        """Stop the process (a job it is running finishes first; queued ones are dropped, or with
        ``finish`` run before it stops). Returns at once either way."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=not finish)
            self._pool = None
            log.info("verification helper process: %d pairs sent, %d taken back%s", self.sent, self.taken_back,
                     ", then failed" if self.failed else "")  # fmt: skip


def _up() -> None:
    """Nothing: the process is up (and has imported this module) once it has run this."""


def _warm() -> None:
    import neardup_gui.core.pipeline  # noqa: F401 - importing is the point
    from neardup_gui.core.diffspans import load_kernel
    from neardup_gui.core.methods.containment import load_intersection_kernel

    load_kernel()  # the compiled diff, as in the screening process (numba is loaded there)
    load_intersection_kernel()  # the verified pairs' exact scores


def pack_texts(texts: Sequence[str]) -> tuple[bytes, list[int]]:
    """Texts as one UTF-8 blob and where each ends, for a job: the process pool pickles a job in
    one call holding the GIL, and ~2,000 texts of ~1,500 characters encoded inside it took 30-90
    ms (a stall of the window's thread); encoded here one by one, the pickle copies one blob."""
    encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
    return b"".join(encoded), list(itertools.accumulate(map(len, encoded)))


def unpack_texts(packed: tuple[bytes, list[int]]) -> list[str]:
    """The texts ``pack_texts`` packed, in order."""
    blob, ends = packed
    return [blob[a:b].decode("utf-8", "surrogatepass") for a, b in zip([0, *ends], ends)]


def build_job(
    pairs: Sequence[tuple[int, int]],
    doc_ids: Sequence[str],
    texts: Mapping[str, str],
    documents: Mapping[str, Document],
    exact_group_of: Sequence[int],
    signatures: np.ndarray,
    rep_of_index: Sequence[int],
    methods_of: Callable[[tuple[int, int]], tuple[str, ...]],
    method_order: Sequence[str],
    params: ScreenParams,
    template: Any,
) -> dict[str, Any]:
    """What the helper needs to verify and flag ``pairs`` (index pairs into ``doc_ids``).

    ``signatures[rep_of_index[i]]`` is document ``i``'s MinHash row; ``methods_of((i, j))`` (i < j)
    the methods that proposed a pair, named in ``method_order``'s order.
    """
    used = sorted({i for pair in pairs for i in pair})
    local = {g: n for n, g in enumerate(used)}
    ids = [doc_ids[g] for g in used]
    return {
        "doc_ids": ids,
        "texts": pack_texts([texts[d] for d in ids]),
        "documents": [documents[d] for d in ids],
        "groups": [exact_group_of[g] for g in used],
        "signatures": signatures[np.asarray([rep_of_index[g] for g in used], dtype=np.int64)],
        "pairs": [(local[i], local[j]) for i, j in pairs],
        "methods": [methods_of((min(i, j), max(i, j))) for i, j in pairs],
        "method_order": list(method_order),
        "params": params,
        "template": template,
    }


def run_job(job: dict[str, Any]) -> tuple[list[Candidate], int]:
    """Verify and flag a job's pairs (in the helper process): (kept candidates, number rejected)."""
    from neardup_gui.core.pipeline import Proposals, verify_and_flag_pairs
    from neardup_gui.core.prepare import LazyHashes, Prepared

    ids: list[str] = job["doc_ids"]
    texts = dict(zip(ids, unpack_texts(job["texts"])))
    documents = {d.doc_id: d for d in job["documents"]}
    params: ScreenParams = job["params"]
    prepared = Prepared(ids, LazyHashes(ids, texts, params), [], [], [])
    by_method: dict[str, set[tuple[int, int]]] = {m: set() for m in job["method_order"]}
    for (i, j), methods in zip(job["pairs"], job["methods"]):
        for m in methods:
            by_method.setdefault(m, set()).add((min(i, j), max(i, j)))
    proposals = Proposals(by_method, job["groups"], job["signatures"], list(range(len(ids))))
    # Without the cyclic collector meanwhile, as in the screening process: a job of drafts makes
    # ~100,000 objects (segments, rows, candidates), and its collections walked them over and over.
    with cycle_collector_paused():
        return verify_and_flag_pairs(prepared, proposals, documents, texts, params, job["template"], pairs=job["pairs"])
