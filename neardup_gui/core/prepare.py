"""Stage 1 of a screen: normalize, shingle and sign every document in one streaming pass.

For each usable document the pass keeps only what the later stages need from all documents:

- the digest of its normalized text (exact groups), its normalized length and shingle count;
- its MinHash signature (``num_perm`` 32-bit values);
- the shingle hashes in the containment sampling class (one in ``containment_sample``);
- its contribution to the corpus-wide boilerplate counts (``flags.TemplateIndex``).

The full shingle set (8 bytes a shingle, ~12 KB for a 1,500-character article) is dropped as soon as
those are taken, unless asked for. Verification later needs the full sets of the few documents in
proposed pairs only; ``LazyHashes`` recomputes them from the texts on first use, so a screen of
100,000 documents never holds 100,000 shingle sets at once.

Boilerplate counts without holding every set: a document-frequency count needs all shingles of all
documents. An evenly spaced sample of ``TEMPLATE_SAMPLE`` documents (all of them in a smaller
folder) is prepared first, with full sets; shingles found in at least ``LOW_SHARE`` (a quarter of
the share that makes boilerplate) of the sampled documents are the only ones that can be
boilerplate (a shingle in 5 % of 100,000 documents is in ~205 of the 4,096 sampled; the chance
that it shows up in fewer than 51 is far below 10^-12; after a rescan that changed 2 % of the
documents, one now in 5 % was in at least 3 % before: ~123 expected, below 51 with a chance
around 10^-11); the pass then counts exactly, over every
document, how many hold each of those. Exact copies count once. The same candidates and each
document's hits on them are kept in the cache, so a rescan that changes at most
``INCREMENTAL_MAX_SHARE`` of the documents recounts exactly without preparing the others again.
The sample's sets are held together, so it is bounded by characters too (``TEMPLATE_SAMPLE_CHARS``):
long documents are sampled fewer (320 manuscripts of 75,000 characters), and then the sampled count
that makes a candidate is lowered until a hash in 3 % of the documents is missed in at most one
sample in a billion (700 sampled or more), but not below 3 (``_candidate_count``: with 320 sampled,
a hash in 3 % is missed in 35 samples in 10,000, one in 5 % in 12 in a million; the counts of the
candidates stay exact).
When the first sample gives very many candidates (long texts each sampled beside near copies of
itself: every draft of a manuscript kept), a second sample as large, spread over the other
documents, is prepared next; the candidates both samples together hold in ``_candidate_count``
of their documents stay, and only those are looked for in the rest (``_Preparer._keep_likely``).
Batches are bounded by characters as well as documents (``BATCH_CHARS``).

Batches of documents run on two threads. From ``_COMPILED_MIN_CHARS`` characters, or at any size once
the kernels have run in this process, one compiled call per batch (``core._prepkernel``, numba)
normalizes, hashes, signs and samples without the GIL; the numpy path (small folders in a process
that has not loaded the kernels, or no numba) does the same in array operations that mostly hold it.
Imports numpy and sibling engine modules only (numba lazily).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import logging
import math
import operator
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field

import numpy as np

from neardup_gui.core import shingles as sh
from neardup_gui.core.compiled import kernel_module
from neardup_gui.core.estimate import listens, plan_stages, stage_seconds
from neardup_gui.core.flags.template import TemplateIndex
from neardup_gui.core.helper import helper_pays
from neardup_gui.core.methods import exact
from neardup_gui.core.methods.containment import ContainmentMemo, sampled
from neardup_gui.core.memory import bounded_runs, release_free_memory
from neardup_gui.core.methods.minhash_lsh import banding, lsh_pairs, permutations, signatures
from neardup_gui.core.normalize import codepoints, exact_path_flags, lookup_table, normalize, normalize_batch
from neardup_gui.core.progress import (
    GIVING_WAY_SLICE,
    NULL_PROGRESS,
    Cancelled,
    ChecksOnly,
    Progress,
    give_way,
    list_giving_way,
)
from neardup_gui.core.records import NormalizeOptions, ScreenParams

__all__ = ["LazyHashes", "Prepared", "PrepareCache", "cache_key", "prepare", "TEMPLATE_SAMPLE"]

log = logging.getLogger(__name__)

BATCH = 256
# ... and at most this many characters a batch (one document at least): a batch's arrays take ~20
# bytes a character while it is prepared, so 256 manuscripts of 75,000 characters held ~400 MB.
BATCH_CHARS = 2_000_000
THREADS = 2
# Documents prepared first and counted exactly for the boilerplate index (see the module docstring),
# and the characters they may hold in all: their full sets are held together (8 bytes a shingle).
TEMPLATE_SAMPLE = 4096
TEMPLATE_SAMPLE_CHARS = 24_000_000
# TemplateIndex.build's defaults: boilerplate is in at least 3 documents and 5 % of them.
TEMPLATE_MIN_DOCS = 3
TEMPLATE_MIN_SHARE = 0.05
# Candidate boilerplate: hashes in at least this share of the sampled documents (a quarter of the
# share that makes boilerplate), so that an incremental rescan changing at most
# INCREMENTAL_MAX_SHARE of the documents cannot create boilerplate outside the candidates.
LOW_SHARE = 0.25 * TEMPLATE_MIN_SHARE
INCREMENTAL_MAX_SHARE = 0.02
# From this many boilerplate candidates in the first sample, a second one decides which stay
# (``_Preparer._keep_likely``): 100,000 articles give ~530, long drafts beside each other millions.
SECOND_SAMPLE_FROM = 100_000
CACHE_VERSION = 2  # 2: the digest of a normalized text no longer BLAKE2b (exact.normalized_digests)
# Above this many characters in all, signatures use the compiled kernel (its start-up then pays).
# Once the kernels have run in this process (a warm-up, a large prepare), every prepare uses them:
# 1,000 texts of 1,500 characters (a rescan's changed files) 75-120 ms against 255-480 ms with numpy.
_COMPILED_MIN_CHARS = 2_000_000
# Seconds between reports of ``normalize`` while ``collect`` waits for a batch (``_Preparer._waiting``).
_REPORT_EVERY = 0.1
_is_done = operator.methodcaller("done")
_kernels_warm = False


class LazyHashes(Sequence[np.ndarray]):
    """Full shingle sets, recomputed from the texts on first use and kept once computed.

    Behaves as a read-only list of sorted unique uint64 arrays indexed like ``Prepared.doc_ids``.
    ``load`` computes many at once (one normalization batch), ``drop`` forgets them again.
    """

    def __init__(self, doc_ids: Sequence[str], texts: Mapping[str, str], params: ScreenParams) -> None:
        self._doc_ids = doc_ids
        self._texts = texts
        self._k = params.k
        self._options = params.normalize
        self._cache: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._doc_ids)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = int(i)
        if i < 0:
            i += len(self)
        got = self._cache.get(i)
        if got is None:
            self.load([i])
            got = self._cache[i]
        return got

    def __iter__(self) -> Iterator[np.ndarray]:
        for i in range(len(self)):
            yield self[i]

    def load(self, indices: Sequence[int]) -> None:
        """Compute (in batches) the sets of ``indices`` not computed yet."""
        todo = sorted({int(i) for i in indices if int(i) not in self._cache})
        # The compiled kernels when this process has them loaded already (a large prepare did).
        kernels = sys.modules.get("neardup_gui.core._prepkernel")

        def sets_of(batch: Sequence[tuple[int, str]]) -> list[np.ndarray]:
            texts = [t for _, t in batch]
            if kernels is not None:
                return _compiled_sets(kernels, texts, self._k, self._options)
            return sh.shingle_sets(normalize_batch(texts, self._options), self._k)

        batches = list(_batches([(i, self._texts[self._doc_ids[i]]) for i in todo]))
        if len(batches) <= 1:  # a few sets (one looked up alone): no threads
            self._keep(batches, map(sets_of, batches))
            return
        # On THREADS threads, as ``prepare`` does: the compiled calls hold no GIL (an evaluation of
        # 100,000 files recomputes ~42,000 sets at k = 3: 2.6 -> 1.2 s).
        with ThreadPoolExecutor(THREADS, thread_name_prefix="neardup-sets") as pool:
            self._keep(batches, pool.map(sets_of, batches))

    def _keep(self, batches: list[Sequence[tuple[int, str]]], made: Iterator[list[np.ndarray]]) -> None:
        for batch, sets in zip(batches, made):
            for (i, _), h in zip(batch, sets):
                self._cache[i] = h

    def drop(self) -> None:
        """Forget every computed set."""
        self._cache.clear()

    @property
    def held(self) -> int:
        """Number of sets currently held."""
        return len(self._cache)


@dataclass
class Prepared:
    """What the later stages need of the usable documents, indexed 0..n-1 in manifest order.

    Attributes:
        doc_ids: doc_id per index.
        hashes: Sorted unique uint64 shingle hashes per index (non-empty): a list when kept, else a
            ``LazyHashes`` that recomputes them on use.
        digests: Digest of the normalized text per index.
        no_shingles: doc_ids whose normalized text is shorter than k (not compared).
        normalized_chars: Length of each normalized text.
        cps: Normalized code points per index, kept only when asked (TF-IDF and SimHash need them).
        signatures: MinHash signatures, shape (n, num_perm), or None (then computed when proposing).
        samples: Containment samples per index (``containment.sampled``), or None.
        sizes: Shingle count per index, or None (then ``hashes[i].size``).
        template: The corpus-wide boilerplate index, or None (then built from ``hashes``).
        cache: This run's entries for the next run (when ``prepare`` was given file keys).
        reused: Number of documents taken from an earlier run's cache.
        boiler: The hashes that may be boilerplate (``template`` holds those that are).
        boiler_hits: Per index, the positions in ``boiler`` of the hashes the document holds.
    """

    doc_ids: list[str]
    hashes: Sequence[np.ndarray]
    digests: list[bytes]
    no_shingles: list[str]
    normalized_chars: list[int]
    cps: list[np.ndarray] | None = None
    signatures: np.ndarray | None = None
    samples: list[np.ndarray] | None = None
    sizes: np.ndarray | None = None
    template: TemplateIndex | None = None
    cache: PrepareCache | None = None
    reused: int = 0
    boiler: np.ndarray | None = None
    boiler_hits: list[np.ndarray] | None = None
    _index: dict[str, int] = field(default_factory=dict)

    def index(self, doc_id: str) -> int:
        if not self._index:
            self._index = {d: i for i, d in enumerate(self.doc_ids)}
        return self._index[doc_id]

    def size(self, i: int) -> int:
        """Number of shingles of document ``i``."""
        return int(self.sizes[i]) if self.sizes is not None else int(self.hashes[i].size)

    def load_hashes(self, indices: Sequence[int]) -> None:
        """Make the full sets of ``indices`` ready (one batch) when they are recomputed lazily."""
        if isinstance(self.hashes, LazyHashes):
            self.hashes.load(indices)

    def __len__(self) -> int:
        return len(self.doc_ids)


@dataclass
class _Batch:
    """One prepared batch, as the worker thread returns it."""

    keys: list[int]
    digests: list[bytes]
    chars: list[int]
    sizes: list[int]
    sigs: np.ndarray
    samples: list[np.ndarray]
    hashes: list[np.ndarray]
    cps: list[np.ndarray] | None
    boiler_hits: list[np.ndarray] | None = None
    sig_row: list[int] = field(default_factory=list)  # row of ``sigs`` per document
    # Finds ``boiler_hits`` given the boilerplate candidates and their prefilter, when the batch was
    # done before the candidates were chosen (``_Preparer.collect`` calls it; None otherwise).
    find_hits: Callable[[np.ndarray, np.ndarray], list[np.ndarray]] | None = None
    # The candidates (and prefilter) ``find_hits`` and ``boiler_hits`` are for.
    hits_from: Future[tuple[np.ndarray, np.ndarray]] | None = None


def cache_key(params: ScreenParams) -> str:
    """Fingerprint of everything a cached document entry depends on besides the file's bytes."""
    fields = {
        "version": CACHE_VERSION,
        "k": params.k,
        "normalize": dataclasses.asdict(params.normalize),
        "num_perm": params.num_perm,
        "seed": params.seed,
        "containment_sample": params.containment_sample,
        "docx": [params.docx_tables, params.docx_headers_footers],
        "template": [TEMPLATE_SAMPLE, TEMPLATE_MIN_DOCS, TEMPLATE_MIN_SHARE, LOW_SHARE, TEMPLATE_SAMPLE_CHARS],
    }
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode("utf-8")).hexdigest()


@dataclass
class PrepareCache:
    """Per-document results of an earlier prepare, keyed by file SHA-256, for one parameter set.

    Attributes:
        key: ``cache_key`` of the parameters the entries were computed with.
        shas: File SHA-256 per entry (unique).
        digests, chars, samples: As in ``Prepared``, per entry.
        signature_source: The MinHash rows: entry ``i``'s is row ``i``, or with ``signature_rows``
            row ``signature_rows[i]`` (a cache made by a screen shares the screen's rows instead of
            copying them: 51 MB at 100,000 files, held from preparing until the cache is written).
            ``signatures`` gives them per entry.
        boiler: Sorted hashes that may be boilerplate (found in at least ``LOW_SHARE`` of the
            sampled documents when the cache was made).
        hits: Per entry, the positions in ``boiler`` of the hashes the document holds (int32).
        no_shingles: SHA-256 of files whose text is shorter than k after normalization.
        template: The boilerplate hashes of the screen that made the cache (its final index).
        template_min_count: That index's ``min_count`` (the template flag's note names it).
        run_id: That screen's run id (set when the cache is saved with the run).
        containment: That screen's containment index over its distinct texts (``propose`` brings
            it up to date on the next screen), or None.
        parts: Where the entries were read from, in order: (name, entries) per stored part
            (``io.prepcache``); empty for a cache made by ``prepare``.
    """

    key: str
    shas: list[str]
    digests: list[bytes]
    chars: np.ndarray
    signature_source: np.ndarray  # or rows read when asked for (io.prepcache.StoredRows)
    samples: list[np.ndarray]
    boiler: np.ndarray
    hits: list[np.ndarray]
    no_shingles: frozenset[str] = frozenset()
    template: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    template_min_count: int = 0
    run_id: str = ""
    containment: ContainmentMemo | None = None
    parts: tuple[tuple[str, int], ...] = ()
    signature_rows: np.ndarray | None = None
    _positions: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def signatures(self) -> np.ndarray:
        """The MinHash rows per entry (a copy when they are shared with a screen's)."""
        return self.entry_signatures(None)

    def spend_signatures(self) -> None:
        """Let go of the MinHash rows (a screen took those it reuses): ``signatures`` is empty after."""
        self.signature_source = self.signature_source[:0].copy()
        self.signature_rows = None

    def entry_signatures(self, entries: np.ndarray | None) -> np.ndarray:
        """The MinHash rows of ``entries`` (indexes; None: every entry), in that order."""
        rows = self.signature_rows
        if rows is None:
            return self.signature_source if entries is None else self.signature_source[entries]
        return self.signature_source[rows if entries is None else rows[entries]]

    def signatures_into(self, out: np.ndarray, at: np.ndarray, entries: np.ndarray) -> None:
        """``out[at] = entry_signatures(entries)`` without a copy of them all: rows read from the
        cache's files when it reads them when asked for (``io.prepcache.StoredRows``, one pass),
        else gathered a slice at a time."""
        rows = entries if self.signature_rows is None else self.signature_rows[entries]
        take_into = getattr(self.signature_source, "take_into", None)
        if take_into is not None:
            take_into(out, at, rows)
            return
        for lo in range(0, len(at), GIVING_WAY_SLICE):
            out[at[lo : lo + GIVING_WAY_SLICE]] = self.signature_source[rows[lo : lo + GIVING_WAY_SLICE]]

    def written_part(self, rows: np.ndarray) -> PrepareCache:
        """What writing entries ``rows`` as a new part (after parts of the earlier cache kept as they
        are) needs of this cache: those entries, in that order, the rest as it is, and the
        containment memo without its documents' samples (the stored parts hold them). A rescan's
        cache shares the screen's MinHash rows and the last screen's samples (at 100,000 files
        51 MB and 68 MB): made so, they are let go before the check and the outputs."""
        at = rows.tolist()
        memo = self.containment
        return PrepareCache(
            self.key,
            [self.shas[i] for i in at],
            [self.digests[i] for i in at],
            self.chars[rows],
            self.entry_signatures(rows),
            [self.samples[i] for i in at],
            self.boiler,
            [self.hits[i] for i in at],
            self.no_shingles,
            self.template,
            self.template_min_count,
            self.run_id,
            None if memo is None else dataclasses.replace(memo, samples=()),
            self.parts,
        )

    def position(self, sha: str) -> int | None:
        """Entry index of a file SHA-256, or None."""
        if not self._positions and self.shas:
            self._positions = {s: i for i, s in enumerate(self.shas)}
        return self._positions.get(sha)

    def positions(self, shas: Sequence[str]) -> list[int | None]:
        """``position`` of each of ``shas``, in order (one pass in C: a 100,000-file rescan's
        preparing 0.47 -> 0.39 s against a call each)."""
        self.position("")  # its index, made once
        return list(map(self._positions.get, shas))

    def __len__(self) -> int:
        return len(self.shas)


def cached_positions(cache: PrepareCache, shas: Sequence[str]) -> dict[int, int]:
    """Position in ``shas`` -> the ``cache`` entry a rescan takes that document from (-1: known to
    have no shingles); empty when more than ``INCREMENTAL_MAX_SHARE`` of them are new (every
    document is then prepared again)."""
    entries = cache.positions(shas)
    reuse = {p: e for p, e in enumerate(entries) if e is not None}
    if len(reuse) < len(shas) and cache.no_shingles:
        reuse.update((p, -1) for p, e in enumerate(entries) if e is None and shas[p] in cache.no_shingles)
    if len(shas) - len(reuse) > INCREMENTAL_MAX_SHARE * len(shas):
        return {}
    return reuse


def prepare(
    doc_ids: Sequence[str],
    texts: Mapping[str, str],
    params: ScreenParams,
    progress: Progress = NULL_PROGRESS,
    *,
    keep_cps: bool = False,
    keep_hashes: bool = True,
    keys: Mapping[str, str] | None = None,
    cache: PrepareCache | None = None,
    keep_cache: bool = True,
    normalized: Callable[[list[int], list[np.ndarray]], None] | None = None,
    queued: Callable[[], None] | None = None,
    lengths: Sequence[int] | None = None,
) -> Prepared:
    """Normalize, shingle and sign the given documents (in batches, on two threads).

    Args:
        doc_ids: Documents to prepare, in manifest order.
        texts: doc_id -> raw text (kept by reference for ``LazyHashes``).
        params: k, normalization, num_perm, seed and the containment sample are used.
        progress: Reports stage ``normalize`` per batch, then ``shingle`` once.
        keep_cps: Keep the normalized code points (4 bytes a character) in ``Prepared.cps``.
        keep_hashes: Keep every full shingle set (a list). False keeps none: they are recomputed
            for the documents that need them (``LazyHashes``).
        keys: doc_id -> file SHA-256. Given, ``cache`` is looked up by them and, with
            ``keep_cache``, ``Prepared.cache`` holds this run's entries for the next run.
        cache: Entries of an earlier run. Used when its parameters match, neither ``keep_cps``
            nor ``keep_hashes`` is asked, and at most ``INCREMENTAL_MAX_SHARE`` of the
            documents are new or changed; otherwise everything is prepared afresh.
        normalized: Called with each batch's normalized code points as they are made, on the
            preparing thread: (positions in ``doc_ids``, one array each). Every document that is
            normalized here (not taken from ``cache``) is given once; the arrays are views of the
            batch's buffer and must not be changed. Lets a caller write the normalized texts
            without keeping the raw ones for it.
        queued: Called once every batch is queued, each holding its own texts until it is
            prepared: a caller that drops its references to the texts then (``texts`` reads them
            again if asked, as ``LazyHashes`` may) frees each text as its batch is done rather than
            all of them at the end (~300 MB at 100,000 files).
        lengths: Characters of each document as its manifest row says (0: not known), for the
            estimate a progress that listens is told (``core.estimate``): a text taken over unread
            is then not read for it.
    """
    total = len(doc_ids)
    reuse: dict[int, int] = {}  # position -> cache entry (-1: known to have no shingles)
    if cache is not None and keys is not None and not (keep_cps or keep_hashes) and cache.key == cache_key(params):
        reuse = cached_positions(cache, list_giving_way(map(keys.get, doc_ids, itertools.repeat(""))))
    todo = [p for p in range(total) if p not in reuse]
    if listens(progress):  # the stages ahead, now that the texts are read and the cache looked up
        known = lengths if lengths is not None else [0] * total
        new_chars = sum(known[p] or len(texts[doc_ids[p]]) for p in todo)
        plan_stages(progress, stage_seconds(documents=total, new_chars=new_chars, cached=len(reuse)))
    compiled = _kernels_warm or sum(len(texts[doc_ids[p]]) for p in todo) >= _COMPILED_MIN_CHARS
    work = _Preparer(params, progress, keep_cps, keep_hashes, compiled, normalized)
    located: dict[int, tuple[_Batch, int]] = {}
    try:
        if reuse:
            assert cache is not None
            work.known_boiler(cache.boiler)
            work.submit_all([(p, texts[doc_ids[p]]) for p in todo])
        else:
            # The sample first, with full sets: it chooses the hashes that may be boilerplate.
            sample = _template_sample([len(texts[d]) for d in doc_ids])
            work.submit_all([(p, texts[doc_ids[p]]) for p in sample])
            sample_set = set(sample)
            rest = [p for p in range(total) if p not in sample_set]
            if rest:  # a second sample next, in case the first gives many candidates
                second = _spread(rest, len(sample))
                work.start_second()
                work.submit_all([(p, texts[doc_ids[p]]) for p in second])
                work.end_second(whole=len(sample) + len(second) == total)
                second_set = set(second)
                rest = [p for p in rest if p not in second_set]
            else:
                work.end_sample(whole=True)
            work.submit_all([(p, texts[doc_ids[p]]) for p in rest])
        if queued is not None:
            queued()
        work.collect(located, len(reuse), total)
    finally:
        work.close()
    out = _assemble(doc_ids, located.get, work.boiler(), params, texts, keys if keep_cache else None, keep_cps,
                    keep_hashes, reuse, cache)  # fmt: skip
    progress.report("shingle", total, total)
    return out


class _Preparer:
    """The batches of one prepare on two threads, in three kinds of task (first in, first out):

    - sample batches, with full sorted sets (no boilerplate hits yet);
    - one task that waits for the sample, picks the hashes that may be boilerplate, and finds the
      sample documents' hits on them (then drops their sets unless they are kept);
    - the other batches, which normalize, shingle, sign and sample at once, and find their own hits
      when that task is done; a batch finished before it keeps its window hashes and ``collect``
      finds its hits (on the calling thread, which otherwise only waits): no thread idles while
      the candidates are chosen.

    No task waits for a task queued after it: the boilerplate task waits only for the sample.
    """

    def __init__(
        self,
        params: ScreenParams,
        progress: Progress,
        keep_cps: bool,
        keep_hashes: bool,
        compiled: bool,
        normalized: Callable[[list[int], list[np.ndarray]], None] | None = None,
    ) -> None:
        self.params = params
        self.normalized = normalized
        self.progress = progress
        self.keep_cps = keep_cps
        self.keep_hashes = keep_hashes
        self.backend = "compiled" if compiled and _kernel_ready() else "numpy"
        self.kernels = _prep_kernels() if self.backend == "compiled" else None
        self.pool = ThreadPoolExecutor(THREADS, thread_name_prefix="neardup-prepare")
        self.pending: list[Future[_Batch]] = []
        self._sizes: list[int] = []  # documents of each pending batch
        # Guess the pairs from the first sample once it is prepared (``_plan_pairs``), for a
        # progress that listens; a rescan's candidates come from the cache, with no sample.
        self._guess_pairs = listens(progress)
        self.sample: list[Future[_Batch]] | None = []  # None once the boilerplate task is queued
        self._boiler: Future[tuple[np.ndarray, np.ndarray]] | None = None
        # The second sample (``end_second``): its batches, then the task that keeps the candidates
        # both samples together hold often enough, and how their positions moved (None: all kept).
        self.second: list[Future[_Batch]] | None = None
        self._first: list[Future[_Batch]] = []
        self._final: Future[tuple[np.ndarray, np.ndarray]] | None = None
        self._moved: np.ndarray | None = None

    def submit(self, keys: list[int], texts: list[str]) -> None:
        """Queue one batch (``keys`` name its documents in ``collect``)."""
        if self.sample is not None:
            future = self.pool.submit(self._work, keys, texts, True, None)
            self.sample.append(future)
        else:
            future = self.pool.submit(self._work, keys, texts, self.keep_hashes, self._final or self._boiler)
            if self.second is not None:
                self.second.append(future)
        self.pending.append(future)
        self._sizes.append(len(keys))

    def submit_all(self, items: Sequence[tuple[int, str]]) -> None:
        for part in _batches(items):
            self.submit([k for k, _ in part], [t for _, t in part])

    def end_sample(self, whole: bool = True) -> None:
        """Every sample document is queued: queue the boilerplate task. ``whole``: the sample is
        every document."""
        if self.sample is not None:
            self._boiler = self.pool.submit(self._choose_boiler, self.sample, whole)
            self._first, self.sample = self.sample, None

    def start_second(self) -> None:
        """The batches queued next, until ``end_second``, are a second sample: with the first it
        decides which of many candidates stay (``_keep_likely``)."""
        self.end_sample(whole=False)
        self.second = []

    def end_second(self, whole: bool) -> None:
        """Every document of the second sample is queued (``whole``: the two samples are every
        document): queue the task that keeps the candidates, which later batches wait for."""
        if self.second is not None:
            self._final = self.pool.submit(self._keep_likely, self._first, self.second, whole)
            self.second = None

    def known_boiler(self, boiler: np.ndarray) -> None:
        """Take the candidate boilerplate hashes from an earlier run instead of a sample."""
        self._guess_pairs = False
        done: Future[tuple[np.ndarray, np.ndarray]] = Future()
        done.set_result((boiler, _prefilter(boiler)))
        self._boiler, self.sample = done, None

    def boiler(self) -> np.ndarray:
        self.end_sample()
        chosen = self._final or self._boiler
        assert chosen is not None
        return chosen.result()[0]

    def collect(self, located: dict[int, tuple[_Batch, int]], done: int, total: int) -> None:
        """Wait for every batch; ``located[key] = (batch, index in it)``. Reports ``normalize``."""
        self.end_sample()
        progress = self.progress
        progress.report("normalize", done, total)
        sampled = {id(f) for f in self._first}
        before, shown = done, done
        for n, future in enumerate(self.pending):
            shown = self._waiting(future, before, shown, total)
            batch = future.result()
            if self._final is not None and (id(future) in sampled or batch.hits_from is self._boiler):
                shown = self._waiting(self._final, before, shown, total)
                self._final.result()  # it finds the samples' hits on the first candidates itself
                if self._moved is not None:
                    batch.boiler_hits = [_moved_hits(h, self._moved) for h in batch.boiler_hits or ()]
            if batch.find_hits is not None:  # done before the boilerplate candidates were chosen
                assert batch.hits_from is not None
                batch.boiler_hits = batch.find_hits(*batch.hits_from.result())
                batch.find_hits = None
            for i, key in enumerate(batch.keys):
                located[key] = (batch, i)
            done += len(batch.keys)
            if n % 64 == 63:
                release_free_memory()  # the batches' temporaries (a long prepare's own peak)
            shown = max(shown, done)
            progress.report("normalize", shown, total)
        assert self._boiler is not None
        self._boiler.result()  # its errors too
        if self._final is not None:
            self._final.result()
        self.pending = []

    def _waiting(self, future: Future[object], before: int, shown: int, total: int) -> int:
        """Wait for ``future``, reporting ``normalize`` every ``_REPORT_EVERY`` seconds meanwhile
        with the documents of the batches finished so far (``before``: those not prepared here):
        the batches are taken in order, and the first wait for the candidates chosen by the
        samples lasts until both samples are prepared (for 10,000 articles, all of them), which
        left the bar at nothing for most of the stage. Returns the count last reported (``shown``
        then: never less)."""
        while True:
            self._guess_once_sampled(total)
            try:
                future.result(timeout=_REPORT_EVERY)
                self._guess_once_sampled(total)
                return shown
            except FutureTimeout:
                finished = before + sum(itertools.compress(self._sizes, map(_is_done, self.pending)))
                if finished > shown:
                    shown = finished
                    self.progress.report("normalize", shown, total)
                else:
                    self.progress.check()
            except Exception:  # its own error: raised where its result is taken
                return shown

    def _guess_once_sampled(self, total: int) -> None:
        """``_plan_pairs`` once the first sample is prepared (if asked, and not done yet)."""
        if self._guess_pairs and all(map(_is_done, self._first)):
            self._guess_pairs = False
            self._plan_pairs(total)

    def _plan_pairs(self, total: int) -> None:
        """Tell a progress that listens (``core.estimate``) how many pairs the screen will verify,
        guessed from the first sample: its documents' LSH pairs, as many more as the folder's pairs
        are more than the sample's (families of drafts, or copies spread at random, scale alike).
        Until the pairs are known, the verification is otherwise guessed from the document count,
        which said ~1 s for a folder of drafts that verifies for 20 s. On the calling thread, which
        only waits meanwhile; errors are only logged (the screen goes on)."""
        try:
            batches = [f.result() for f in self._first]
            # the rows and lengths of the sampled documents that have shingles
            rows = [b.sigs[np.asarray([r for r, n in zip(b.sig_row, b.sizes) if n], dtype=np.int64)] for b in batches]
            chars = np.asarray([c for b in batches for c, n in zip(b.chars, b.sizes) if n], dtype=np.int64)
            sampled = len(chars)
            if sampled < 2:
                return
            params = self.params
            bands, width = banding(params)
            pairs, _capped = lsh_pairs(np.concatenate(rows), bands, width, params.bucket_cap, ChecksOnly(self.progress))
            scale = total * (total - 1) / (sampled * (sampled - 1))
            pair_chars = int(chars[pairs].sum()) if pairs.size else 0
            helper = helper_pays(total, int(chars.sum()) * total // sampled)  # as the screen decides
            guess = stage_seconds(pairs=round(len(pairs) * scale), pair_chars=round(pair_chars * scale), helper=helper)
            plan_stages(self.progress, guess)
        except Cancelled:
            raise
        except Exception:  # an estimate only
            log.warning("could not guess the pairs from the sample", exc_info=True)

    def close(self) -> None:
        """Stop: queued batches are dropped, running ones finish."""
        self.pool.shutdown(wait=True, cancel_futures=True)

    def _choose_boiler(self, sample: list[Future[_Batch]], whole: bool) -> tuple[np.ndarray, np.ndarray]:
        first = [f.result() for f in sample]
        params = self.params
        sets = [h for b in first for h in b.hashes if h.size]
        distinct = len({d for b in first for d, n in zip(b.digests, b.sizes) if n})
        low = _candidate_count(distinct, whole)
        checks = ChecksOnly(self.progress)
        boiler = TemplateIndex.build(sets, min_docs=low, min_share=0.0, k=params.k,
                                     options=params.normalize, progress=checks).boilerplate  # fmt: skip
        del sets
        table = _prefilter(boiler)
        for b in first:
            b.boiler_hits = self._set_hits(b.hashes, boiler, table)
            if not self.keep_hashes:
                b.hashes = []
        return boiler, table

    def _keep_likely(
        self, first: list[Future[_Batch]], second: list[Future[_Batch]], whole: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """The candidates that stay after the second sample, and their prefilter.

        A first sample of long texts, each beside near copies of itself (every draft of a
        manuscript kept), makes most of their shingles candidates: 2.6 million for 4,000 drafts,
        ~14,000 hits a document to find, count and keep in the cache. With more than
        ``SECOND_SAMPLE_FROM`` of them, the candidates both samples hold in ``_candidate_count``
        of their documents stay (a hash in 3 % of all documents is missed by either sample with a
        chance of at most one in a billion) and the samples' hits are moved to their positions
        among those (``_moved``); fewer are all kept at once, without waiting for the second."""
        assert self._boiler is not None
        values, table = self._boiler.result()
        if values.size <= SECOND_SAMPLE_FROM:
            return values, table
        batches = [f.result() for f in first] + [f.result() for f in second]
        for b in batches:
            self.progress.check()
            if b.find_hits is not None:  # done before the first candidates were chosen
                b.boiler_hits = b.find_hits(values, table)
                b.find_hits = None
        digests = [d for b in batches for d in b.digests]
        hits = [h for b in batches for h in (b.boiler_hits or ())]
        counted = _boiler_counts(values, digests, hits)
        distinct = len({d for d in digests if d})
        keep = counted.counts >= _candidate_count(distinct, whole)
        if keep.all():
            return values, table
        self._moved = np.where(keep, np.cumsum(keep) - 1, -1).astype(np.int32)
        kept = values[keep]
        return kept, _prefilter(kept)

    def _set_hits(self, sets: list[np.ndarray], boiler: np.ndarray, table: np.ndarray) -> list[np.ndarray]:
        """``_hits`` of each sorted set, in one compiled call when the kernels are in use (the sample
        of a folder of long drafts: ~14,000 hits a document, 2.6 s in ``searchsorted``)."""
        kernel = self.kernels
        if kernel is None or not sets or boiler.size == 0:
            return [_hits(h, boiler, False, table) for h in sets]
        bounds = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum([h.size for h in sets], out=bounds[1:])
        found = np.empty(int(bounds[-1]), dtype=np.int32)
        found_bounds = np.empty(len(sets) + 1, dtype=np.int64)
        joined = np.concatenate(sets).astype(np.uint64, copy=False)
        kernel.batch_hits(joined, bounds, boiler, table, found, found_bounds)
        del joined
        fb = found_bounds.tolist()
        found = found[: fb[-1]].copy()
        return [found[fb[i] : fb[i + 1]] if fb[i + 1] > fb[i] else _NO_HITS for i in range(len(sets))]

    def _work(
        self, keys: list[int], texts: list[str], full: bool, boiler: Future[tuple[np.ndarray, np.ndarray]] | None
    ) -> _Batch:
        """One batch. ``full``: sorted unique sets (sizes exact, sets kept or counted); otherwise
        the window hashes in text order serve the signatures and the samples, and no set is sorted.
        ``boiler``: the candidate boilerplate hashes and their ``_prefilter`` table, to find hits
        (None for sample batches: the boilerplate task finds theirs)."""
        params = self.params
        self.progress.check()
        if self.kernels is not None:
            return self._work_compiled(keys, texts, full, boiler)
        cps_list = normalize_batch(texts, params.normalize)
        del texts
        if self.normalized is not None:
            self.normalized(keys, cps_list)
        if full:
            hash_list = sh.shingle_sets(cps_list, params.k)
        else:
            windows, lo, hi = sh.window_buffer(cps_list, params.k)
            hash_list = [windows[a:b] for a, b in zip(lo.tolist(), hi.tolist())]
        signable = [h for h in hash_list if h.size]
        sigs = (
            signatures(signable, params.num_perm, params.seed, backend=self.backend, threads=1)
            if signable
            else np.zeros((0, params.num_perm), dtype=np.uint32)
        )
        if full:
            samples = [sampled(h, params.containment_sample) for h in hash_list]
        else:
            # One pass over the whole batch, then a slice per document.
            samples = _batch_samples(windows, lo, hi, params.containment_sample)
        out = _Batch(
            keys,
            [d if h.size else b"" for d, h in zip(exact.digests_of(cps_list), hash_list)],
            [int(c.size) for c in cps_list],
            [int(h.size) for h in hash_list],
            sigs,
            samples,
            hash_list if full else [],
            cps_list if self.keep_cps else None,
        )
        out.sig_row = (np.cumsum([1 if h.size else 0 for h in hash_list]) - 1).tolist()
        if boiler is not None:
            if full:
                out.find_hits = lambda values, table: [_hits(h, values, False, table) for h in hash_list]
            else:
                out.find_hits = lambda values, table: _batch_hits(windows, lo, hi, values, table)
            _hits_now_or_later(out, boiler)
        return out

    def _work_compiled(
        self, keys: list[int], texts: list[str], full: bool, boiler: Future[tuple[np.ndarray, np.ndarray]] | None
    ) -> _Batch:
        """``_work`` with the compiled kernels (``core._prepkernel``): the same batch."""
        assert self.kernels is not None
        kernel = self.kernels
        params = self.params
        n = len(texts)
        cps, bounds, values, given = _compiled_input(kernel, texts, params.normalize)
        del texts
        size = int(cps.size)
        k = params.k
        a, b = permutations(params.num_perm, params.seed)
        norm = np.empty(size, dtype=np.uint32)
        windows = np.empty(size, dtype=np.uint64)
        samples = np.empty(size, dtype=np.uint64)
        norm_bounds = np.empty(n + 1, dtype=np.int64)
        win_bounds = np.empty(n + 1, dtype=np.int64)
        sample_bounds = np.empty(n + 1, dtype=np.int64)
        sigs = np.empty((n, params.num_perm), dtype=np.uint32)
        kernel.prepare_batch(cps, bounds, values, given, k, sh.window_base(k), a, b, params.containment_sample,
                             norm, norm_bounds, windows, win_bounds, sigs, samples, sample_bounds)  # fmt: skip
        del cps
        _loaded()
        lanes = np.empty((n, 2), dtype=np.uint64)
        kernel.batch_digests(norm, norm_bounds, lanes)
        nb, wb, sb = norm_bounds.tolist(), win_bounds.tolist(), sample_bounds.tolist()
        samples = samples[: sb[-1]].copy()  # the views below must not hold the whole buffer
        norm = norm[: nb[-1]]
        cps_list = [norm[nb[i] : nb[i + 1]] for i in range(n)]
        if self.normalized is not None:
            self.normalized(keys, cps_list)
        counts = [wb[i + 1] - wb[i] for i in range(n)]
        hash_list: list[np.ndarray] = []
        if full:  # sorted in place: on a copy when find_hits below still needs the window hashes
            hash_list = _sets_of(kernel, windows if boiler is None else windows[: wb[-1]].copy(), win_bounds)
        out = _Batch(
            keys,
            [d if m else b"" for d, m in zip(exact.digest_bytes(lanes), counts)],
            [nb[i + 1] - nb[i] for i in range(n)],
            [h.size for h in hash_list] if full else counts,
            sigs,
            [samples[sb[i] : sb[i + 1]] for i in range(n)],
            hash_list,
            [c.copy() for c in cps_list] if self.keep_cps else None,
        )
        out.sig_row = list(range(n))
        if boiler is not None:

            def find_hits(values: np.ndarray, prefilter: np.ndarray) -> list[np.ndarray]:
                if values.size == 0 or windows.size == 0:
                    return [_NO_HITS] * n
                found = np.empty(wb[-1], dtype=np.int32)  # as the cache keeps them (shared with it)
                found_bounds = np.empty(n + 1, dtype=np.int64)
                kernel.batch_hits(windows, win_bounds, values, prefilter, found, found_bounds)
                fb = found_bounds.tolist()
                found = found[: fb[-1]].copy()
                return [found[fb[i] : fb[i + 1]] if fb[i + 1] > fb[i] else _NO_HITS for i in range(n)]

            out.find_hits = find_hits
            _hits_now_or_later(out, boiler)
        return out


def _hits_now_or_later(batch: _Batch, boiler: Future[tuple[np.ndarray, np.ndarray]]) -> None:
    """Find the batch's boilerplate hits now if the candidates are chosen; otherwise leave
    ``find_hits`` to ``collect``, so that no thread sits waiting for the sample's end (the batch
    keeps its window hashes meanwhile)."""
    assert batch.find_hits is not None
    batch.hits_from = boiler
    if boiler.done():
        batch.boiler_hits = batch.find_hits(*boiler.result())
        batch.find_hits = None


def _compiled_input(
    kernel, texts: list[str], options: NormalizeOptions
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the kernels take for a batch of raw texts: ``(cps, bounds, table values, given)``, the
    documents that need the exact normalization path normalized here (``given``)."""
    table = lookup_table(options)
    cps = codepoints("".join(texts))
    bounds = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in texts], out=bounds[1:])
    given = exact_path_flags(cps, bounds, table, kernel.scan_batch)
    if given.any():
        # Combining marks or expansions: those documents take the exact path, normalized here.
        parts = [normalize(t, options).cps if g else codepoints(t) for t, g in zip(texts, given.tolist())]
        cps = np.concatenate(parts)
        np.cumsum([p.size for p in parts], out=bounds[1:])
    return cps, bounds, table.values, given


def _compiled_sets(kernels, texts: list[str], k: int, options: NormalizeOptions) -> list[np.ndarray]:
    """``shingles.shingle_sets(normalize_batch(texts, options), k)`` through the kernels."""
    cps, bounds, values, given = _compiled_input(kernels, texts, options)
    windows = np.empty(cps.size, dtype=np.uint64)
    win_bounds = np.empty(len(texts) + 1, dtype=np.int64)
    kernels.window_batch(cps, bounds, values, given, k, sh.window_base(k), np.empty(cps.size, dtype=np.uint32),
                         windows, win_bounds)  # fmt: skip
    return _sets_of(kernels, windows, win_bounds)


def _sets_of(kernels, windows: np.ndarray, win_bounds: np.ndarray) -> list[np.ndarray]:
    """Each document's sorted set from its window hashes (``windows`` is reused for them), as
    views of one compact copy."""
    set_bounds = np.empty_like(win_bounds)
    kernels.sorted_sets(windows, win_bounds, set_bounds)
    sb = set_bounds.tolist()
    sets = windows[: sb[-1]].copy()
    return [sets[sb[i] : sb[i + 1]] for i in range(len(sb) - 1)]


def _assemble(
    doc_ids: Sequence[str],
    locate: Callable[[int], tuple[_Batch, int] | None],
    boiler: np.ndarray,
    params: ScreenParams,
    texts: Mapping[str, str],
    keys: Mapping[str, str] | None,
    keep_cps: bool,
    keep_hashes: bool,
    reuse: Mapping[int, int] | None = None,
    cache: PrepareCache | None = None,
) -> Prepared:
    """The ``Prepared`` of ``doc_ids`` (manifest order) from their batches (``locate(position)``)
    or an earlier run's cache entries (``reuse``: position -> entry, -1 for no shingles)."""
    reuse = reuse or {}
    total = len(doc_ids)
    out = Prepared([], [], [], [], [], None, samples=[])
    # Each kept document's values are gathered from one list per field, by index: the cache's
    # entries first, then each batch's documents in turn. ``at``: per position, its index there
    # (-1: no shingles; -2: in a batch, looked up below). Gathered by index instead of in a loop
    # doing it all per document, a 100,000-file rescan's assembly (with the boilerplate counts and
    # the new cache's rows) takes 0.16-0.20 s instead of 0.21-0.27 s.
    from_cache = len(cache) if cache is not None and reuse else 0
    digests: list[bytes] = list(cache.digests) if from_cache else []
    chars: list[int] = cache.chars.tolist() if from_cache else []
    samples: list[np.ndarray] = list(cache.samples) if from_cache else []
    hits_all: list[np.ndarray] = list(cache.hits) if from_cache else []
    sizes_all: list[int] = []  # from the batches only (offset ``from_cache``), as hashes and cps
    hashes_all: list[np.ndarray] = []
    cps_all: list[np.ndarray] = []
    at_known = np.full(total, -2, dtype=np.int64)
    if reuse:
        at_known[np.fromiter(reuse.keys(), np.int64, len(reuse))] = np.fromiter(reuse.values(), np.int64, len(reuse))
    at = at_known.tolist()
    batches: dict[int, tuple[_Batch, int]] = {}  # id -> (batch, its first index)
    for p in [p for p in range(total) if at[p] == -2]:
        found = locate(p)
        assert found is not None, doc_ids[p]
        batch, n = found
        assert batch.boiler_hits is not None
        if batch.sizes[n] == 0:
            at[p] = -1
            continue
        seen = batches.get(id(batch))
        if seen is None:
            seen = batches[id(batch)] = (batch, len(digests))
            digests += batch.digests
            chars += batch.chars
            samples += batch.samples
            hits_all += batch.boiler_hits
            sizes_all += batch.sizes
            if keep_hashes:
                hashes_all += batch.hashes
            if keep_cps:
                assert batch.cps is not None
                cps_all += batch.cps
        at[p] = seen[1] + n
    at_all = np.asarray(at, dtype=np.int64)
    kept = np.flatnonzero(at_all >= 0).tolist()
    out.no_shingles = list(map(doc_ids.__getitem__, np.flatnonzero(at_all == -1).tolist()))
    rows = at_all[at_all >= 0].tolist()
    # (each gathered by a mapped __getitem__, in C, a slice per call)
    out.doc_ids = list_giving_way(map(doc_ids.__getitem__, kept))
    out.digests = list_giving_way(map(digests.__getitem__, rows))
    out.normalized_chars = list_giving_way(map(chars.__getitem__, rows))
    out.samples = list_giving_way(map(samples.__getitem__, rows))
    hits = list_giving_way(map(hits_all.__getitem__, rows))
    from_batches = [i - from_cache for i in rows if i >= from_cache]
    sizes = [sizes_all[i] for i in from_batches]
    kept_hashes = [hashes_all[i] for i in from_batches] if keep_hashes else []
    if keep_cps:
        out.cps = [cps_all[i] for i in from_batches]
    # The signature rows: from the cache by fancy index, from each batch by one.
    index = np.asarray(rows, dtype=np.int64)
    sigs = np.empty((len(rows), params.num_perm), dtype=np.uint32)
    cached = np.flatnonzero(index < from_cache)
    if cached.size:  # (taken whole, a second copy of them: 51 MB at 100,000 files)
        assert cache is not None
        cache.signatures_into(sigs, cached, index[cached])
    if batches:  # the batches' indexes are consecutive ranges: found in the sorted indexes
        order = np.argsort(index, kind="stable")
        ordered = index[order]
        for batch, first in batches.values():
            lo, hi = np.searchsorted(ordered, [first, first + len(batch.digests)])
            mine = order[lo:hi]
            sigs[mine] = batch.sigs[np.asarray(batch.sig_row, dtype=np.int64)[index[mine] - first]]
    out.hashes = kept_hashes if keep_hashes else LazyHashes(out.doc_ids, texts, params)
    out.sizes = np.asarray(sizes, dtype=np.int64) if keep_hashes else None
    out.signatures = sigs
    out.template = _boiler_counts(boiler, out.digests, hits).index(params)
    out.reused = len(reuse) - operator.countOf(reuse.values(), -1)
    out.boiler, out.boiler_hits = boiler, hits
    if keys is not None:
        out.cache = _new_cache(out, keys, boiler, hits, params)
    return out


def _new_cache(out: Prepared, keys: Mapping[str, str], boiler: np.ndarray, hits: list[np.ndarray], params: ScreenParams) -> PrepareCache:
    """This run's entries, one per distinct file SHA-256 (documents with shingles only)."""
    first = exact.first_occurrences(map(keys.get, out.doc_ids, itertools.repeat("")))
    first.pop("", None)
    rows = list(first.values())
    empty = frozenset(keys[d] for d in out.no_shingles if keys.get(d))
    assert out.signatures is not None and out.samples is not None
    return PrepareCache(
        cache_key(params),
        list(first),
        list(map(out.digests.__getitem__, rows)),
        np.asarray(list(map(out.normalized_chars.__getitem__, rows)), dtype=np.int64),
        out.signatures,  # shared, not copied: the entries' rows are ``signature_rows`` of it
        list(map(out.samples.__getitem__, rows)),
        boiler,
        [h if h.dtype == np.int32 else h.astype(np.int32) for h in map(hits.__getitem__, rows)],
        empty,
        out.template.boilerplate if out.template is not None else np.zeros(0, dtype=np.uint64),
        out.template.min_count if out.template is not None else 0,
        signature_rows=None if len(rows) == len(out.signatures) else np.asarray(rows, dtype=np.int64),
    )


def _batches(items: Sequence[tuple[int, str]]) -> Iterator[Sequence[tuple[int, str]]]:
    """``items`` (key, text) in runs of at most ``BATCH`` documents and ``BATCH_CHARS`` characters
    (a longer text alone)."""
    return bounded_runs(items, BATCH, lambda item: len(item[1]), BATCH_CHARS)


def _spread(positions: Sequence[int], size: int) -> list[int]:
    """An even spread of at most ``size`` of ``positions`` (in order)."""
    n = len(positions)
    if size >= n:
        return list(positions)
    return [positions[(i * n) // size] for i in range(size)]


def _template_sample(lengths: Sequence[int]) -> list[int]:
    """Positions prepared first (``lengths``: each document's characters): all of them up to
    ``TEMPLATE_SAMPLE`` documents and ``TEMPLATE_SAMPLE_CHARS`` characters, else an even spread of
    as many as fit both on average (fewer when the documents are long: see ``_candidate_count``)."""
    total, chars = len(lengths), sum(lengths)
    size = min(total, TEMPLATE_SAMPLE)
    if chars > TEMPLATE_SAMPLE_CHARS:
        size = min(size, max(1, TEMPLATE_SAMPLE_CHARS * total // chars))
    if size == total:
        return list(range(total))
    return sorted({(i * total) // size for i in range(size)})


# The sampled documents' candidates must hold every hash that is boilerplate in all documents: one
# in TEMPLATE_MIN_SHARE of them, or in 3 % before a rescan that changed INCREMENTAL_MAX_SHARE of them.
_MISS_CHANCE = 1e-9
_RESCAN_SHARE = TEMPLATE_MIN_SHARE - INCREMENTAL_MAX_SHARE


def _candidate_count(sampled: int, whole: bool = False) -> int:
    """Sampled documents a hash must be in to be a candidate: ``LOW_SHARE`` of them (at least 2).
    Unless the sample is every document (``whole``: its counts are the exact ones), no more than
    a hash in ``_RESCAN_SHARE`` of all documents reaches in all but ``_MISS_CHANCE`` of samples,
    but at least 3: two sampled documents that share a passage are most often a text and its
    revision, and every shingle of long ones would become a candidate (600 manuscripts, each
    beside a revision, 320 of the 1,200 sampled: 1.1 million candidates at 2, 355,000 at 3, and the
    normalize stage 8-9 s against 3.6 s). 4,096 sampled: 51 as LOW_SHARE gives (56 would do); 1,000:
    4 (not 12); 320: 3, which misses a hash in 3 % of the documents in 35 samples in 10,000, one in
    5 % in 12 in a million (only the template flag and the containment sample's boilerplate depend
    on it; a hash found among the candidates is counted exactly)."""
    if whole:
        return max(2, math.floor(LOW_SHARE * sampled))
    # The binomial distribution's lower tail, term by term: P(X = j) from P(X = j - 1).
    p = _RESCAN_SHARE
    term = (1 - p) ** sampled
    tail, count = term, 0
    while tail <= _MISS_CHANCE and count < sampled:
        term *= (sampled - count) / (count + 1) * p / (1 - p)
        count += 1
        tail += term
    # ``count``: the first j with P(X <= j) > _MISS_CHANCE; a hash in at least ``count`` sampled
    # documents is missed only when X < count, a chance of at most _MISS_CHANCE.
    return max(3, min(math.floor(LOW_SHARE * sampled), count))


# The prefilter's buckets, by a hash's top bits: at least 2^16, about two for each candidate (a
# sample of long texts with a few revisions among them gives ~350,000-1,000,000 candidates), at
# most 2^22 (16 MB of offsets; a few candidates to a bucket beyond ~8 million).
_PREFILTER_MIN_BITS, _PREFILTER_MAX_BITS, _PREFILTER_SPARSE = 16, 22, 2


def _prefilter(candidates: np.ndarray) -> np.ndarray:
    """Where each bucket of ``candidates`` (sorted, unique) starts: 2^bits + 1 offsets, bucket ``t``
    holding the candidates whose top bits are ``t`` (``_prefilter_shift``). A hash can only be the
    candidate in its own bucket: most buckets are empty, so most hashes are ruled out by one lookup,
    and the others are compared with the one or two candidates there (a binary search of every
    hash that passed a table of flags cost 6.5 s of a manuscript folder's 13 s; most of them were
    hits)."""
    bits = min(_PREFILTER_MAX_BITS, max(_PREFILTER_MIN_BITS, (candidates.size * _PREFILTER_SPARSE).bit_length()))
    top = (candidates >> np.uint64(64 - bits)).astype(np.intp)
    # int32: the candidates come from a sample of at most ~TEMPLATE_SAMPLE_CHARS windows (one type for
    # the kernel, compiled once).
    starts = np.zeros((1 << bits) + 1, dtype=np.int32)
    np.cumsum(np.bincount(top, minlength=1 << bits), out=starts[1:])
    return starts


def _prefilter_shift(table: np.ndarray) -> np.uint64:
    """The shift that leaves a hash's top bits for a bucket of ``table`` (``_prefilter``'s)."""
    return np.uint64(64 - ((table.size - 1).bit_length() - 1))


def _in_buckets(hashes: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Mask of the hashes whose bucket in ``table`` holds some candidate."""
    top = (hashes >> _prefilter_shift(table)).astype(np.intp)
    return table[top + 1] > table[top]


def _hits(hashes: np.ndarray, candidates: np.ndarray, unique: bool = False, table: np.ndarray | None = None) -> np.ndarray:
    """Positions in ``candidates`` (sorted) of the hashes of one document found there.

    ``unique``: the hashes may repeat (window hashes); each position is then given once.
    ``table``: ``_prefilter(candidates)``; most hashes are ruled out by one lookup in it (a
    binary search of every window hash cost more than the rest of a prepare).
    """
    if candidates.size == 0 or hashes.size == 0:
        return _NO_HITS
    if table is not None:
        hashes = hashes[_in_buckets(hashes, table)]
        if hashes.size == 0:
            return _NO_HITS
    idx = np.searchsorted(candidates, hashes)
    idx[idx >= candidates.size] = 0
    found = idx[candidates[idx] == hashes].astype(np.int32)
    return np.unique(found) if unique and found.size > 1 else found


def _moved_hits(hits: np.ndarray, moved: np.ndarray) -> np.ndarray:
    """Positions among the first candidates -> positions among those kept (``moved[i]``: -1 when
    candidate ``i`` was dropped); sorted as they were."""
    if hits.size == 0:
        return hits
    now = moved[hits]
    now = now[now >= 0]
    return now if now.size else _NO_HITS


def _in_sample(hashes: np.ndarray, sample: int) -> np.ndarray:
    """Mask of the hashes in the containment sampling class (as ``containment.sampled``)."""
    if sample <= 1:
        return np.ones(hashes.size, dtype=bool)
    if sample & (sample - 1) == 0:
        return (hashes & np.uint64(sample - 1)) == 0
    return (hashes % np.uint64(sample)) == 0


# Hits are positions in the boilerplate candidates, kept as int32 (as the prepare cache stores
# them, so a screen's hits and its new cache's share one array each): a folder of one filled-in
# template has every shingle a candidate, ~1,500 hits a document.
_NO_HITS = np.zeros(0, dtype=np.int32)


def _batch_samples(windows: np.ndarray, lo: np.ndarray, hi: np.ndarray, sample: int) -> list[np.ndarray]:
    """``sorted_unique(sampled(windows[lo[i]:hi[i]]))`` for every document of a batch, with one
    sort for the batch (views into one array) instead of one per document."""
    picked = np.flatnonzero(_in_sample(windows, sample))
    owner = np.searchsorted(lo, picked, side="right") - 1
    inside = picked < hi[owner]  # windows spanning two documents belong to none
    values, owner = windows[picked[inside]], owner[inside]
    order = np.lexsort((values, owner))
    values, owner = values[order], owner[order]
    if values.size > 1:
        first = np.empty(values.size, dtype=bool)
        first[0] = True
        np.not_equal(values[1:], values[:-1], out=first[1:])
        first[1:] |= owner[1:] != owner[:-1]
        values, owner = values[first], owner[first]
    cuts = np.searchsorted(owner, np.arange(lo.size + 1)).tolist()
    return [values[cuts[i] : cuts[i + 1]] for i in range(lo.size)]


def _batch_hits(
    windows: np.ndarray, lo: np.ndarray, hi: np.ndarray, candidates: np.ndarray, table: np.ndarray
) -> list[np.ndarray]:
    """``_hits(windows[lo[i]:hi[i]], candidates, unique=True)`` for every document of a batch."""
    if candidates.size == 0 or windows.size == 0:
        return [_NO_HITS] * lo.size
    at = np.flatnonzero(_in_buckets(windows, table))
    pos = np.searchsorted(candidates, windows[at])
    pos[pos >= candidates.size] = 0
    ok = candidates[pos] == windows[at]
    at, pos = at[ok], pos[ok].astype(np.int32)
    out = []
    for a, b in zip(np.searchsorted(at, lo).tolist(), np.searchsorted(at, hi).tolist()):
        out.append(np.unique(pos[a:b]) if b > a else _NO_HITS)
    return out


def _prep_kernels():
    """The ``core._prepkernel`` module, or None when numba cannot load it (the numpy path then)."""
    return kernel_module("_prepkernel")


def load_compiled() -> bool:
    """Load the compiled kernels a large prepare uses (numba's cached machine code for the real
    argument types) with one tiny batch each way; False when they cannot load. For a warm-up."""
    if not _kernel_ready() or _prep_kernels() is None:
        return False
    work = _Preparer(ScreenParams(), NULL_PROGRESS, False, False, compiled=True)
    try:
        work.known_boiler(np.array([0], dtype=np.uint64))
        texts = ["预热一下编译好的代码。", "Warm-up text, e\u0301 ㎡."]
        work._work_compiled([0, 1], texts, True, None)
        work._work_compiled([0, 1], texts, False, work._boiler)
        _compiled_sets(work.kernels, texts, work.params.k, work.params.normalize)  # verification's sets
    finally:
        work.close()
    return True


def _loaded() -> None:
    """The kernels ran here: later prepares use them whatever their size (``_COMPILED_MIN_CHARS``)."""
    global _kernels_warm
    _kernels_warm = True


def _kernel_ready() -> bool:
    from neardup_gui.core.methods.minhash_lsh import _compiled_kernel

    return _compiled_kernel() is not None


def _boiler_counts(values: np.ndarray, digests: Sequence[bytes], hits: Sequence[np.ndarray]) -> _BoilerCounts:
    """How many distinct documents (by normalized digest: exact copies count once) hold each of the
    candidate boilerplate hashes ``values``; ``hits[i]``: the positions in ``values`` of document
    ``i``'s hashes (each position once per document)."""
    first = exact.first_occurrences(digests)
    counted = [hits[i] for i in first.values() if hits[i].size]
    # Counted a run of documents at a time, giving way between: at k = 3 the documents hold ~200
    # candidates each (20 million hits at 100,000 files), which joined at once were 80 MB of fresh
    # memory written with the GIL held. Runs are bounded by hits too: 4,000 long drafts hold
    # ~14,000 each, and 8,192 documents' were 56 million hits joined (220 MB, ~0.1 s GIL held).
    counts = np.zeros(values.size, dtype=np.int64)
    for part in bounded_runs(counted, GIVING_WAY_SLICE, np.size, _COUNT_HITS):
        give_way()
        counts += np.bincount(np.concatenate(part), minlength=values.size)
    return _BoilerCounts(values, counts, len(first))


# Most hits joined for one count in ``_boiler_counts`` (4 MB of positions).
_COUNT_HITS = 1 << 20


@dataclass(frozen=True)
class _BoilerCounts:
    """Exact document counts of the shingles that may be boilerplate, over ``documents`` distinct texts."""

    values: np.ndarray
    counts: np.ndarray
    documents: int

    def index(self, params: ScreenParams) -> TemplateIndex:
        n = self.documents
        min_count = max(TEMPLATE_MIN_DOCS, math.ceil(TEMPLATE_MIN_SHARE * n), 2)
        keep = self.counts >= min_count
        return TemplateIndex(self.values[keep], self.counts[keep], min_count, n, params.k, params.normalize)
