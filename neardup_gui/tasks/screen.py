"""Screening a folder: read (read-only), screen, check the sources again, write the outputs.

No Qt here.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import operator
import os
import platform
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from neardup_gui import __version__
from neardup_gui.core import helper as helper_mod
from neardup_gui.core.machine import usable_cores
from neardup_gui.core.memory import pauses_cycle_collector, release_free_memory
from neardup_gui.core.pipeline import PairMemo, ScreenResult, screen
from neardup_gui.core.prepare import PrepareCache, cache_key, cached_positions
from neardup_gui.core.progress import NULL_PROGRESS, Progress, dict_giving_way, empty_giving_way
from neardup_gui.core.records import FILE_STATUSES, Candidate, Document, RunRecord, ScreenParams
from neardup_gui.io import outputs
from neardup_gui.io.corpus import (
    CorpusError, LoadedCorpus, SourceTexts, check_integrity, check_share_pays, scan_folder,
)  # fmt: skip
from neardup_gui.io.carry import carry_arrays, carry_context, make_manifest
from neardup_gui.io.extract import ExtractOptions
from neardup_gui.io.fstat import link_batch_available
from neardup_gui.io.paths import ensure_outside_source
from neardup_gui.io.prepcache import (
    CACHE_FILE, HeldPairs, cache_arrays, discard_staged, known_row_arrays, load_cache, load_known, load_pairs,
    plan_parts, publish_cache, stage_arrays,
)  # fmt: skip
from neardup_gui.io.session import ManifestValues, ReviewSession

log = logging.getLogger(__name__)

__all__ = ["ScreenOutcome", "screen_folder", "write_screen_outputs", "library_versions", "manifest_digest"]

SESSION_FILE = "session.sqlite"
# Characters (all texts) from which a screen that writes no normalized/ drops the texts after
# preparing them: 50 million is ~33,000 articles, ~100 MB of strings.
RELEASE_TEXTS_CHARS = 50_000_000
# Characters of texts a screen that drops them (above) still holds once its pairs are verified (those
# read again for the pairs: 100,000 articles ~29 million, 58 MB) past which it lets them go before the
# check and the outputs, which need none (each is read again, and checked, if asked for); the window
# lets a result's go past the same bound (``ui.result_handoff``). 10,000 articles hold ~3 million.
HELD_TEXT_CHARS = 16_000_000
_LIBRARIES = (
    "numpy", "numba", "datasketch", "fast-diff-match-patch", "charset-normalizer", "readability-lxml",
    "lxml", "pypdf", "pandas", "openpyxl", "PySide6-Essentials",
)  # fmt: skip


@dataclass(frozen=True)
class ScreenOutcome:
    """Everything one screen produced.

    Attributes:
        source: Resolved source folder.
        params: Parameters used.
        documents: The manifest with final statuses.
        texts: doc_id -> raw text of the documents that were read.
        candidates: Verified pairs, Jaccard descending then paths.
        run: The run record.
        out_dir: Where outputs were written, or None.
        changed_files: (relative path, what changed) for files that changed during the run.
        normalized_pending: The run's ``normalized/`` when the screen left it to be finished after
            (``screen_folder``'s ``normalized_after``), else None.
    """

    source: Path
    params: ScreenParams
    documents: tuple[Document, ...]
    texts: Mapping[str, str]
    candidates: tuple[Candidate, ...]
    run: RunRecord
    out_dir: Path | None = None
    changed_files: tuple[tuple[str, str], ...] = ()
    _by_id: dict[str, Document] = field(default_factory=dict, compare=False, repr=False)
    # ``screen_folder(normalized_after=True)``: the run's normalized/, still to be finished
    normalized_pending: PendingNormalized | None = field(default=None, compare=False, repr=False)

    @property
    def documents_by_id(self) -> dict[str, Document]:
        if not self._by_id:
            self._by_id.update((d.doc_id, d) for d in self.documents)
        return self._by_id

    def document(self, doc_id: str) -> Document:
        return self.documents_by_id[doc_id]


def library_versions() -> dict[str, str]:
    """Program, Python and library versions recorded with every run."""
    out = {"neardup_gui": __version__, "python": platform.python_version(), "platform": platform.platform()}
    for name in _LIBRARIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def manifest_digest(documents: tuple[Document, ...]) -> str:
    """SHA-256 over (doc_id, path, size, sha256, status) of every manifest row, in order."""
    h = hashlib.sha256()
    for d in documents:
        h.update("\x1f".join((d.doc_id, d.path, str(d.size), d.sha256, d.status)).encode("utf-8"))
        h.update(b"\x1e")
    return h.hexdigest()


def _now() -> str:
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


@pauses_cycle_collector
def screen_folder(
    source: Path | str,
    params: ScreenParams | None = None,
    *,
    out_dir: Path | str | None = None,
    sidecar: Path | str | None = None,
    progress: Progress = NULL_PROGRESS,
    with_normalized: bool = True,
    use_cache: bool = True,
    reread: bool = False,
    verify_helper: bool = False,
    read_helper: bool = False,
    shown: ScreenOutcome | None = None,
    normalized_after: bool = False,
) -> ScreenOutcome:
    """Screen a folder: read it (read-only), find and verify candidates, check the sources again.

    Python's cyclic garbage collector is paused meanwhile (``core.memory``): its full collections
    over the screen's millions of objects cost 1.5-2 s at 100,000 files.

    Args:
        source: The folder to screen; never written to.
        params: Screening parameters (defaults when None).
        out_dir: If given, outputs are written there (refused when inside ``source``).
        sidecar: Optional CSV giving doc_id / source_id / version per relative path.
        progress: Stage, counts and cancellation.
        with_normalized: Write ``normalized/`` (one file per document; creating thousands of small
            files can cost more than the screen itself). When False the folder holds only a note.
        use_cache: Take unchanged files (same SHA-256, same parameters) from the workspace's
            prepare cache (``out_dir/cache/prepare.npz``) and refresh it after the run. Results
            are the same either way; only the time differs. Files whose size, modification and
            change times and inode are those the last screen into ``out_dir`` recorded are not
            even opened: their manifest row (SHA-256 included) is taken over and their text is
            read only if a stage needs it.
        reread: Open, hash and decode every file even when it looks unchanged (the prepare
            cache is still used for files with a known SHA-256), and hash every file again after
            the run (by default a file whose size, times and inode are unchanged since it was read
            is only stat'ed then).
        verify_helper: Verify about half of each round of pairs in a spawned helper process, from
            ``core.helper.HELPER_MIN_DOCUMENTS`` usable documents on a machine with
            ``HELPER_MIN_CORES`` cores or more, from ``HELPER_FEW_CORES_MIN_DOCUMENTS`` on two or
            three, or from as many characters as that many articles (``core.helper.helper_pays``).
            Off by default: a spawned process imports the
            caller's main module again, so only programs whose main module is guarded
            (``if __name__ == "__main__"``), as the CLI and the window are, may turn it on.
        read_helper: From ``io.corpus.READ_HELPER_MIN_FILES`` files to read, on two or more
            cores, a spawned process reads a share of the files (``scan_folder(read_helper=...)``;
            the same results). Off by default for the same reason as ``verify_helper``.
        shown: The outcome of the last screen into ``out_dir`` that the caller still holds (the
            window's result shown, screened or opened): the verified pairs taken over from it are
            its own candidates, not those stored in the workspace decoded again (at 100,000 files
            ~0.2 s of the interpreter, and ~40 MB held twice while the result is shown), only when
            it is that screen's (its run_id, the same pairs and doc_ids); and a file whose
            manifest row equals one of its rows gets that row (``scan_folder``'s ``held_rows``:
            ~35 MB). The results are the same either way.
        normalized_after: With ``with_normalized`` and ``out_dir``: do not wait for ``normalized/``
            to be written. The outputs are published with a note in ``normalized/`` saying its
            files are on their way, and ``outcome.normalized_pending.finish()`` (on any thread,
            e.g. a job of the window) waits for the files still being written, writes those
            missing and puts the folder in place. Creating one file per document is the disk's
            work, not the screen's: 100,000 files took this machine's disk 4-46 s, mostly more
            than the screen itself, which went at its pace. Nor does the screen wait for its
            writer: what it is behind on is written by ``finish``. Not finished, the note stays
            (the next screen into the workspace writes every file and clears the scratch folder).

    Returns:
        The outcome; outputs are written only after the screen completed.

    Raises:
        Cancelled: The user cancelled; nothing was written.
        CorpusError: The source is missing or not a folder, or the sidecar is wrong.
        OutputInsideSourceError: ``out_dir`` is the source folder or inside it.
    """
    params = params or ScreenParams()
    source_path = Path(source).expanduser()
    if not source_path.is_dir():
        raise CorpusError(f"source folder does not exist or is not a folder: {source_path}")
    source_path = source_path.resolve()
    out_path = ensure_outside_source(Path(out_dir), source_path) if out_dir is not None else None
    started = _now()
    caching = use_cache and out_path is not None
    versions = library_versions()
    extract_options = ExtractOptions(tables=params.docx_tables, headers_footers=params.docx_headers_footers)
    read_key = _read_key(params, extract_options)
    # The cache is read on a thread while the folder is walked and read: first how the last screen
    # found each file, which the scan needs once the walk is done, then the rest.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="neardup-cache-read") as pool:
        known = None
        if caching and not reread and out_path is not None and (out_path / CACHE_FILE).is_file():
            known = pool.submit(load_known, out_path, versions, read_key)
        cached = (
            pool.submit(_load_cache_and_pairs, out_path, versions, shown) if caching and out_path is not None else None
        )
        corpus = scan_folder(
            source_path,
            include=params.include,
            exclude=params.exclude,
            max_bytes=params.max_bytes,
            sidecar=Path(sidecar) if sidecar else None,
            extract_options=extract_options,
            progress=progress,
            known=known.result if known is not None else None,
            read_helper=read_helper,
            keep_text=_uncached_texts(cached, cache_key(params)) if reread and cached is not None else None,
            held_rows=_held_rows(shown, source_path),
        )
        if known is not None and known.result() is not None:  # ~100,000 rows the scan no longer needs
            known.result().release()
        del known
        cache, previous = cached.result() if cached is not None else (None, None)
        del cached  # (its result would hold the cache to the end)
    texts = corpus.texts
    # A large screen verifies about half of its pairs in a helper process, started now so that its
    # start-up overlaps the preparation of the documents (with cores to spare; else once they are
    # prepared, see core.helper).
    # A rescan whose earlier pairs apply (same parameters) verifies few pairs: no helper then.
    rescan = previous is not None and previous.applies_to(params)
    helper = checker = None
    usable = [d for d in corpus.documents if d.usable]
    if verify_helper and not rescan and helper_mod.helper_pays(len(usable), sum(d.chars for d in usable)):
        helper = helper_mod.VerifyHelper()
        if helper_mod.start_early():  # else ``screen`` starts it once the documents are prepared
            helper.start()
    elif verify_helper and rescan and (
        check_share_pays(len(corpus.trusted))
        or (with_normalized and out_path is not None and prelink_pays(len(corpus.trusted)))
    ):
        # A rescan of files mostly taken over leaves a core idle: a light process started now
        # (its start-up overlaps the run) stats half of the files in the check after the run
        # (unless they are stat'ed here in one call, io.fstat) and hard-links the unchanged
        # documents' files of normalized/ meanwhile (100,000 links: 1.4-1.7 s that the outputs
        # would otherwise take at the end).
        checker = helper_mod.VerifyHelper()
        checker.start(engine=False)
    prelink = (
        _Prelink.start(checker, out_path, params, versions, corpus.documents)
        if checker is not None and with_normalized and out_path is not None
        else None
    )
    # A smaller rescan (no such process) links them on a thread of its own meanwhile, in one call
    # that holds no GIL (10,000 links: ~0.12 s that the outputs would otherwise wait for at the end).
    linker = None
    if (
        prelink is None and rescan and with_normalized and out_path is not None and link_batch_available()
        and _prepared_from_cache(cache, usable, params)
    ):  # fmt: skip
        linker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="neardup-prelink")
        prelink = _Prelink.start(linker, out_path, params, versions, corpus.documents)
    # Otherwise (and beside that thread) normalized/ is written as the documents are prepared (into a
    # folder of cache/, moved into the outputs at the end): not normalized twice, and the texts need
    # not be kept for it.
    writer = made_dirs = None
    if (prelink is None or linker is not None) and with_normalized and out_path is not None:
        # (a screen that does not wait for normalized/ does not wait for its writer either: the batches
        # it is behind on are written after the screen, from the texts)
        writer, made_dirs = _normalized_writer(out_path, wait=not normalized_after)
    # Past RELEASE_TEXTS_CHARS the texts are dropped once queued for preparing and read again for the
    # pairs (~13 % of the files at 100,000), unless normalized/ will want every one of them at the end.
    release = (
        texts.forget
        if isinstance(texts, SourceTexts)
        and (writer is not None or not (with_normalized and out_path is not None))
        and sum(d.chars for d in corpus.documents) >= RELEASE_TEXTS_CHARS
        else None
    )
    try:
        ahead = None
        if out_path is not None:
            context = carry_context(source_path, Path(sidecar) if sidecar else None, cache_key(params))
            ahead = _OutputsAhead(corpus, read_key, caching, context)
        helper_of_check = helper or checker
        try:
            result = screen(
                corpus.documents, texts.lenient() if isinstance(texts, SourceTexts) else texts, params, progress,
                fields=corpus.extra, cache=cache, keep_cache=caching, previous=previous, release_texts=release,
                helper=helper, alongside=ahead, normalized=writer.add if writer is not None else None,
                spend_cache=True,  # (``cache`` is kept below for which entries its parts hold)
            )  # fmt: skip
            if release is not None and texts.held_chars > HELD_TEXT_CHARS:
                texts.forget()  # the pairs' texts, verified: not needed by the check or the outputs
            # which entries the cache's parts hold already (only the others are written as a new part)
            parts = plan_parts(result.cache, cache) if result.cache is not None else None
            del cache  # ``previous`` stays for the cache written below: pairs taken over are stored as read
            if result.cache is not None and parts is not None and parts.new_rows is not None:
                # Only the new entries are written: the screen's MinHash rows and the last screen's
                # samples go now, not after the check and the outputs (~120 MB at 100,000 files).
                result = dataclasses.replace(result, cache=result.cache.written_part(parts.new_rows))
                parts = dataclasses.replace(parts, new_rows=np.arange(parts.new_rows.size, dtype=np.int64))
            if ahead is not None and ahead.documents is not result.documents:  # no time for it in the run
                ahead(result.documents)  # (e.g. fewer than two documents to compare)
            # After the run every file is stat'ed (from CHECK_SHARE_MIN files, half of them by the
            # verification helper or the rescan's light one); one whose stamp moved since it was read,
            # or written just before the scan, is hashed again (reread: every file is).
            stamps = {} if reread else corpus.settled_stamps()
            share = helper_of_check.call if helper_of_check is not None else None
            if prelink is not None and not prelink.done():  # the share would wait behind its links
                share = None
            changed_list = check_integrity(source_path, result.documents, progress=progress, stamps=stamps, share=share)
        finally:
            if helper is not None:  # a rescan's light helper stays for the outputs (below)
                helper.close()
        if isinstance(texts, SourceTexts) and texts.failures:
            seen = {p for p, _ in changed_list}
            changed_list += [
                (p, f"could not be read again unchanged: {why}")
                for p, why in sorted(texts.failures.items())
                if p not in seen
            ]
        changed = tuple(changed_list)
        counts: dict[str, int] = {f"files_{s}": 0 for s in FILE_STATUSES}
        for d in result.documents:
            counts[f"files_{d.status}"] = counts.get(f"files_{d.status}", 0) + 1
        counts["files"] = len(result.documents)
        counts.update(result.counts)
        notes = list(result.notes)
        counts["unchanged_files_not_read"] = len(corpus.trusted)
        if ahead is not None:
            counts["manifest_rows_carried"] = ahead.carried
        if corpus.trusted:
            notes.append(
                f"{len(corpus.trusted)} file(s) unchanged since the last screen into this workspace (same size, "
                "modification and change times, inode) were not read again; their SHA-256 is the one recorded then, "
                "and their texts are read only where needed (screen --reread, or the preference to read and hash every "
                "file, reads every file)"
            )
        if changed:
            notes.append(f"{len(changed)} source file(s) changed during the run; their results may be out of date")
        finished = _now()
        run_id = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        run = RunRecord(
            run_id=run_id,
            source=str(source_path),
            params=params.to_dict(),
            bands=result.bands,
            rows=result.rows,
            versions=versions,
            manifest_digest=manifest_digest(result.documents),
            counts=counts,
            started=started,
            finished=finished,
            integrity="unchanged" if not changed else "changed: " + "; ".join(f"{p} ({w})" for p, w in changed),
            changed_files=tuple(p for p, _ in changed),
            normalization=params.normalize.describe(),
            notes=tuple(notes),
        )
        outcome = ScreenOutcome(
            source=source_path,
            params=params,
            documents=result.documents,
            texts=corpus.texts,
            candidates=result.candidates,
            run=run,
            out_dir=out_path,
            changed_files=changed,
        )
        if out_path is not None:
            progress.report("write", 0, 1)
            progress.check()  # a cancel that arrived during the last stage still stops before any write
            release_free_memory()  # what the stages freed, before the outputs' own peak
            # The prepare cache is written beside the outputs, on a thread of its own (much of both is
            # file writing and syncing, which releases the GIL), and put in place only once the outputs
            # are: a failed write leaves the previous run's cache with the previous run's outputs.
            # The cache's contents are made here, before the session is written: made on the thread,
            # they held the interpreter while the session's rows went in, and SQLite gives the
            # interpreter up at every row: each row then waited for the other thread's time slice
            # (record_run 0.6 -> 1.5 s at 100,000 files). Writing the file mostly waits for the disk.
            assert ahead is not None and ahead.documents is result.documents
            arrays = None
            if result.cache is not None:
                assert ahead.known is not None  # a cache is kept only when caching: made with the manifest
                memo = _pair_memo(outcome, result.cache.template, result.cache.template_min_count, result.rejected)
                arrays = cache_arrays(dataclasses.replace(result.cache, run_id=run_id), memo, versions,
                                      known_made=ahead.known, earlier_pairs=previous, parts=parts)  # fmt: skip
                del memo
            # The pairs taken over unchanged from the last screen: the session has their rows already.
            unchanged = _taken_over_unchanged(outcome.candidates, previous)
            # Held only by the box until the writing thread takes it, so the cache's arrays are freed as
            # soon as they are on disk, not when the session's rows are in too (a large cluster's
            # cache is hundreds of MB, its session rows as much again).
            box = [arrays] if arrays is not None else []
            del arrays
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="neardup-cache-write") as pool:
                staged: Future[Path] | None = None

                def stage() -> None:  # once the session is this screen's: a refused screen writes nothing
                    nonlocal staged
                    staged = pool.submit(lambda: stage_arrays(out_path, box.pop()))

                later = normalized_after and with_normalized
                note = _normalized_later if later else None if with_normalized else _normalized_skipped
                try:
                    write_screen_outputs(outcome, out_path, note,
                                         alongside=stage if box else None, made=ahead, unchanged_from=unchanged,
                                         normalized_ahead=None if later else _ahead(prelink, writer),
                                         remove_old=_removed_by(checker))  # fmt: skip
                except BaseException:
                    if staged is not None and staged.exception() is None:
                        discard_staged(out_path, staged.result())
                    raise
                if staged is not None:
                    try:
                        publish_cache(out_path, staged.result())
                    except OSError as exc:  # only a later screen's speed depends on it
                        log.warning("could not write the prepare cache in %s: %s", out_path, exc)
            if later:  # what was made ahead is the pending's now, not discarded below
                pending = PendingNormalized(outcome, _ahead(prelink, writer))
                prelink = writer = None
                outcome = dataclasses.replace(outcome, normalized_pending=pending)
            progress.report("write", 1, 1)
        _release(stamps, corpus, ahead, result)
        release_free_memory()  # the stages' garbage (~150 MB at 100,000 files), not the outcome's
        return outcome
    finally:
        if linker is not None:  # its links done first: a screen stopped meanwhile then removes them
            linker.shutdown(wait=True)
        for made_ahead in (prelink, writer):  # unless moved into the outputs
            if made_ahead is not None:
                made_ahead.discard()
        for folder in reversed(made_dirs or []):  # made for the writer, and empty (a cancelled screen)
            try:
                folder.rmdir()
            except OSError:
                pass
        if checker is not None:  # what it was given last still runs (the old normalized/ removed)
            checker.close(finish=True)


def _release(stamps: dict[str, Any], corpus: LoadedCorpus, ahead: _OutputsAhead | None, result: ScreenResult) -> None:
    """Empty what ``screen_folder`` kept per file beside the outcome, a slice at a time: freed at
    once as it returned, these rows held the interpreter 45-100 ms at 100,000 files (with them a
    window waiting for it)."""
    rows: list[list[Any] | dict[str, Any]] = [stamps, corpus.stamps]
    if ahead is not None and ahead.manifest is not None:
        rows += [part for part in (ahead.manifest.values, ahead.manifest.digests) if part is not None]
    if result.cache is not None:
        rows += [result.cache.samples, result.cache.hits, result.cache.shas, result.cache.digests]
        memo = result.cache.containment
        if memo is not None:
            rows += [part for part in (memo.samples, memo.digests) if isinstance(part, list)]
    for container in rows:
        empty_giving_way(container)


# The previous normalized/ while a helper process removes it, in the workspace's cache/ (where
# ``outputs.settle_pending``, run whenever the session is opened for writing, e.g. by the window
# right after the screen, does not remove it again on the spot).
_ASIDE_PREFIX = ".normalized-removing-"


def _removed_by(helper: helper_mod.VerifyHelper | None) -> Callable[[Path], None] | None:
    """A ``remove_old`` that moves the previous ``normalized/`` (100,000 files: ~0.7 s) into the
    workspace's ``cache/`` and gives it to ``helper``'s process, which removes it after the screen
    has returned (one left by a stopped process is removed by the next ``_Prelink`` job); here
    and now when that cannot be done."""
    if helper is None:
        return None

    def remove(folder: Path) -> None:
        aside = folder.parent / CACHE_FILE.parent / f"{_ASIDE_PREFIX}{folder.name}"
        try:
            os.replace(folder, aside)
        except OSError:
            outputs.remove_folder(folder)
            return
        future = helper.call(outputs.remove_folder_aside, aside)
        if future is None:
            outputs.remove_folder(aside)
        else:
            future.add_done_callback(functools.partial(_note_left, aside))

    return remove


def _note_left(folder: Path, future: Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("%s could not be removed (%s); a later large rescan into this workspace removes it",
                    folder, future.exception())  # fmt: skip


# A folder of cache/ that ``outputs.NormalizedWriter`` writes normalized/ into during a screen.
_WRITTEN_PREFIX = ".normalized-written-"


# Unchanged files from which a rescan writing normalized/ starts a light process to link them.
PRELINK_MIN = 20_000


def prelink_pays(unchanged: int) -> bool:
    """Whether a light process started to hard-link a rescan's ``normalized/`` files pays for this
    many unchanged files on this machine."""
    return unchanged >= PRELINK_MIN and usable_cores() >= 2


def _normalized_writer(out_dir: Path, wait: bool = True) -> tuple[outputs.NormalizedWriter | None, list[Path]]:
    """A writer for the screen's normalized files in a new folder of ``out_dir``'s ``cache/``
    (those left by a screen that was stopped are removed first), and the folders made for it
    (the workspace, its ``cache/``: removed again if a cancelled screen leaves them empty); no
    writer when the folder cannot be made (normalized/ is then written at the end, as before)."""
    cache_dir = out_dir / CACHE_FILE.parent
    made = [d for d in (out_dir, cache_dir) if not d.exists()]
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        for old in [p for p in cache_dir.iterdir() if p.name.startswith(_WRITTEN_PREFIX)]:
            outputs.remove_folder(old)
        return outputs.NormalizedWriter(cache_dir / f"{_WRITTEN_PREFIX}{time.time_ns()}-{os.getpid()}", wait), made
    except OSError as exc:
        log.warning("cannot write normalized files during the screen in %s (%s); writing them at the end",
                    cache_dir, exc)  # fmt: skip
        return None, made


class _Prelink:
    """The files of ``normalized/`` that a rescan can reuse, hard-linked into a folder of the
    workspace's ``cache/`` by its helper process while the screen runs
    (``outputs.prelink_normalized``); ``take`` moves the folder into the staged outputs."""

    PREFIX = ".normalized-prelinked-"
    links_reused = True  # the earlier run's reusable files are among those it linked

    def __init__(self, future: Future[str], path: Path) -> None:
        self._future, self.path = future, path
        self._taken = False

    @classmethod
    def start(
        cls,
        runner: helper_mod.VerifyHelper | ThreadPoolExecutor,
        out_dir: Path,
        params: ScreenParams,
        versions: Mapping[str, str],
        documents: Sequence[Document],
    ) -> _Prelink | None:
        """Give the job to ``runner`` (a helper process, or a thread of this one); None when it
        cannot take it."""
        name = f"{cls.PREFIX}{time.time_ns()}-{os.getpid()}"
        relative = Path(CACHE_FILE.parent, name)
        rows = [(d.doc_id, d.path, d.sha256) for d in documents if d.usable and d.sha256]
        if isinstance(runner, ThreadPoolExecutor):
            # (not the folders an ``outputs.NormalizedWriter`` writes into: this screen's has one)
            stale: tuple[str, ...] = (cls.PREFIX, _ASIDE_PREFIX)
        else:
            stale = (cls.PREFIX, _ASIDE_PREFIX, _WRITTEN_PREFIX)
        args = (str(out_dir), params.to_dict(), dict(versions), (outputs.joined_columns(rows), len(rows)),
                str(relative), stale)  # fmt: skip
        if isinstance(runner, ThreadPoolExecutor):
            future: Future[str] | None = runner.submit(outputs.prelink_normalized, *args, background=False)
        else:
            future = runner.call(outputs.prelink_normalized, *args)
        return cls(future, out_dir / relative) if future is not None else None

    def done(self) -> bool:
        """Has the helper process finished the job (its process then takes other calls at once)?"""
        return self._future.done()

    def take(self, folder: Path) -> list[str] | None:
        """Move the linked folder to ``folder`` (which must not exist); the doc_ids linked there, or
        None when the job failed or the folder is gone (a later screen into this workspace cleared
        it): the caller then makes ``folder`` itself."""
        try:
            joined = self._future.result()
            os.replace(self.path, folder)
        except Exception:  # the helper failed or stopped, or the folder could not be moved
            log.warning("normalized files linked ahead could not be used; linking them now", exc_info=True)
            self.discard()
            return None
        self._taken = True
        return joined.split("\0") if joined else []

    def discard(self) -> None:
        """Remove the folder unless taken; left (for the next screen's job to clear) while the job
        may still be linking into it."""
        if not self._taken and self._future.done():
            self._taken = True
            outputs.remove_folder(self.path)


def _prepared_from_cache(cache: PrepareCache | None, usable: Sequence[Document], params: ScreenParams) -> bool:
    """Whether ``prepare`` will take these documents from ``cache`` (few of them new:
    ``core.prepare.cached_positions``), so that few get new normalized files; else every one is
    normalized again and written as it is (links made ahead would all be replaced)."""
    if cache is None or cache.key != cache_key(params) or not usable:
        return False
    return bool(cached_positions(cache, [d.sha256 for d in usable]))


class _LinkedAndWritten:
    """The rescan's ``normalized/`` made ahead in two folders: the earlier run's reusable files
    linked on a thread (``_Prelink``) and the files of the documents prepared
    (``outputs.NormalizedWriter``); ``take`` gives the linked folder with the written files moved
    into it."""

    def __init__(self, linked: _Prelink, written: outputs.NormalizedWriter) -> None:
        self._linked, self._written = linked, written
        self.links_reused = True  # (False when the links could not be used: ``take`` says so)

    @property
    def written_part(self) -> outputs.NormalizedWriter:
        """The writer of the documents prepared."""
        return self._written

    def take(self, folder: Path) -> list[str] | None:
        linked = self._linked.take(folder)
        if linked is None:  # the writer's folder alone; the reusable files are linked at the end
            self.links_reused = False
            return self._written.take(folder)
        aside = folder.with_name(f"{folder.name}.written")
        written = self._written.take(aside)
        if written is None:  # the documents prepared are written at the end
            return linked
        for doc_id in written:  # (the documents prepared: few in a rescan)
            os.replace(aside / f"{doc_id}.txt", folder / f"{doc_id}.txt")
        aside.rmdir()
        return [*linked, *written]

    def discard(self) -> None:
        self._linked.discard()
        self._written.discard()


def _ahead(
    prelink: _Prelink | None, writer: outputs.NormalizedWriter | None
) -> _Prelink | outputs.NormalizedWriter | _LinkedAndWritten | None:
    """What a screen made of ``normalized/`` ahead, for ``write_screen_outputs``."""
    if prelink is not None and writer is not None:
        return _LinkedAndWritten(prelink, writer)
    return prelink or writer


class _OutputsAhead:
    """Parts of a workspace's outputs made from the manifest alone (``screen``'s ``alongside``),
    while the screen waits for its containment index on the other thread (~1 s at 100,000 files
    of interpreter time that would otherwise come after the run). A rescan carries the rows of
    files taken over unread from the last screen's (``io.carry``)."""

    def __init__(self, corpus: LoadedCorpus, read_key: str, with_cache: bool, context: str = "") -> None:
        self._corpus, self._read_key, self._with_cache, self._context = corpus, read_key, with_cache, context
        # Set together by the call: ``documents`` is None until then.
        self.documents: tuple[Document, ...] | None = None
        self.manifest_csv = b""
        self.manifest: ManifestValues | None = None
        self.carried = 0  # rows carried over
        self.known: dict[str, np.ndarray] | None = None  # only with the cache

    def __call__(self, documents: tuple[Document, ...]) -> None:
        corpus = self._corpus
        made = make_manifest(documents, corpus.carried, corpus.known_at, self._context)
        self.documents = documents
        self.manifest_csv, self.manifest, self.carried = made.csv, made.values, made.carried
        if self._with_cache:
            positions, rows = corpus.known_rows_at()
            self.known = {**known_row_arrays(rows, self._read_key), **carry_arrays(made, positions, self._context)}


def manifest_csv(documents: Sequence[Document]) -> bytes:
    """``manifest.csv``'s bytes."""
    return outputs.csv_bytes(outputs.MANIFEST_COLUMNS, outputs.manifest_rows(documents))


def _reusable_normalized(out_dir: Path, outcome: ScreenOutcome) -> dict[str, str]:
    """``outputs.reusable_normalized`` for a finished screen's documents."""
    return outputs.reusable_normalized(out_dir, outcome.params.to_dict(), outcome.run.versions,
                                       [(d.doc_id, d.path, d.sha256) for d in outcome.documents])  # fmt: skip


def _uncached_texts(cached: Future[tuple[PrepareCache | None, PairMemo | None]], key: str) -> Callable[[str], bool]:
    """``scan_folder``'s ``keep_text`` for a rescan that reads every file: the text of a file the
    prepare cache holds an entry for is not prepared again, only read again if one of its pairs is
    verified (at 100,000 files ~300 MB of texts were held through the reading beside the cache).
    Until the cache is read (on its thread, meanwhile) every text is kept."""

    def keep(sha: str) -> bool:
        if not cached.done() or cached.exception() is not None:
            return True
        cache = cached.result()[0]
        return cache is None or cache.key != key or cache.position(sha) is None

    return keep


def _load_cache_and_pairs(
    out_dir: Path, versions: Mapping[str, str], shown: ScreenOutcome | None = None
) -> tuple[PrepareCache | None, PairMemo | None]:
    """The workspace's prepare cache and, if there is one, the verified pairs saved with it (those
    of ``shown`` where they are the same, see ``screen_folder``)."""
    cache = load_cache(out_dir, versions)
    if cache is None:
        return None, None
    return cache, load_pairs(out_dir, versions, _held_pairs(shown, out_dir))


def _held_pairs(shown: ScreenOutcome | None, out_dir: Path) -> HeldPairs | None:
    """``shown``'s verified pairs as the next screen into ``out_dir`` would read them back, or None
    when it is not a screen into that workspace. (Runs on the cache thread: ``shown`` is the
    window's, so its lazily filled ``documents_by_id`` is not touched here.)"""
    if shown is None or shown.out_dir is None or not shown.run.run_id or not _same_place(shown.out_dir, out_dir):
        return None
    sha_of = {d.doc_id: d.sha256 for d in shown.documents}
    return HeldPairs(shown.run.run_id, _pairs_by_sha(shown.candidates, lambda doc_id: sha_of.get(doc_id, "")))


def _held_rows(shown: ScreenOutcome | None, source: Path) -> dict[str, Document] | None:
    """``shown``'s manifest rows by path when it is a screen of ``source`` (``scan_folder``'s
    ``held_rows``), else None."""
    if shown is None or not _same_place(shown.source, source):
        return None
    return dict_giving_way(zip(map(operator.attrgetter("path"), shown.documents), shown.documents))


def _same_place(a: Path, b: Path) -> bool:
    """Whether two paths name the same folder (resolved; False when either cannot be)."""
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _pairs_by_sha(candidates: Sequence[Candidate], sha_of: Callable[[str], str]) -> dict[tuple[str, str], Candidate]:
    """Candidates by the SHA-256 of both files (the first of those of the same two files), as the
    prepare cache stores them; those of a file without one left out."""
    pairs: dict[tuple[str, str], Candidate] = {}
    for c in candidates:
        left, right = sha_of(c.left), sha_of(c.right)
        if left and right:
            pairs.setdefault((left, right), c)
    return pairs


def _read_key(params: ScreenParams, extract_options: ExtractOptions) -> str:
    """What a file's manifest row depends on besides its bytes (``load_known`` compares it)."""
    return json.dumps({"max_bytes": params.max_bytes, "extract": dataclasses.asdict(extract_options)}, sort_keys=True)


def _pair_memo(
    outcome: ScreenOutcome, template: np.ndarray, min_count: int, rejected: Sequence[tuple[str, str]] = ()
) -> PairMemo:
    """This run's verified pairs, and those it rejected (doc_ids), by the SHA-256 of both files,
    for the next rescan."""
    by_id = outcome.documents_by_id
    pairs = _pairs_by_sha(outcome.candidates, lambda doc_id: by_id[doc_id].sha256)
    shas = ((by_id[a].sha256, by_id[b].sha256) for a, b in rejected)
    return PairMemo(outcome.params.to_dict(), template, pairs, min_count, frozenset(k for k in shas if all(k)))


def _taken_over_unchanged(
    candidates: Sequence[Candidate], previous: PairMemo | None
) -> tuple[str, list[bool]] | None:
    """``(run_id, flags)`` for ``record_run``'s ``unchanged_from``: per candidate, is it the very
    candidate of ``previous`` (the run ``run_id``'s, read back from the cache and taken over with
    every value as it was)?"""
    if previous is None or not previous.run_id or not previous.pairs:
        return None
    theirs = {id(c) for c in previous.pairs.values()}  # held by ``previous``: the ids stay theirs
    return previous.run_id, [id(c) in theirs for c in candidates]


# The note in a normalized/ folder naming what is not there (the whole run's texts, or the files
# changed before their text was written after the run)
_NOT_WRITTEN_NOTE = "NOT_WRITTEN.txt"


def _normalized_skipped(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / _NOT_WRITTEN_NOTE).write_text(
        "The normalized texts were not written for this run (screen --no-normalized).\n"
        "Screen again without that option to get one file per document here.\n",
        encoding="utf-8",
    )


_LATER_NOTE = "BEING_WRITTEN.txt"


def _normalized_later(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / _LATER_NOTE).write_text(
        "The normalized texts of this run are written after the screen, one file per document; this\n"
        "folder is replaced by them once they are all written. If this note stays, that was stopped (the\n"
        "window was closed or screened again meanwhile): screen again to get them.\n",
        encoding="utf-8",
    )


class PendingNormalized:
    """A published screen's ``normalized/``, finished after it (``screen_folder``'s
    ``normalized_after``): the files the screen's writer has still to write, those it was not
    given, and the folder put in place of the note the outputs hold meanwhile."""

    def __init__(
        self, outcome: ScreenOutcome, ahead: _Prelink | outputs.NormalizedWriter | _LinkedAndWritten | None
    ) -> None:
        assert outcome.out_dir is not None
        self._outcome, self._ahead = outcome, ahead
        self.out_dir = outcome.out_dir
        self.ended = threading.Event()  # set once ``finish`` returned or raised
        self.in_place = False  # the files are the workspace's normalized/

    def _writer(self) -> outputs.NormalizedWriter | None:
        ahead = self._ahead
        if isinstance(ahead, _LinkedAndWritten):
            return ahead.written_part
        return ahead if isinstance(ahead, outputs.NormalizedWriter) else None

    def finish(self, progress: Progress = NULL_PROGRESS) -> bool:
        """Write the files and put them in place (``Cancelled`` from ``progress`` stops it: the
        note stays, nothing else is left). Whether they are in place: False when another run's
        outputs replaced this one's meanwhile (the files are then thrown away)."""
        outcome, out_dir = self._outcome, self.out_dir
        folder = out_dir / CACHE_FILE.parent / f"{_WRITTEN_PREFIX}{outcome.run.run_id}"
        usable = [d.doc_id for d in outcome.documents if d.usable or d.status == "no_shingles"]
        ids = [i for i in usable if i in outcome.texts]
        writer = self._writer()
        try:
            while writer is not None and not writer.settled(0.1):  # the files the screen gave it
                progress.check()
                progress.report("normalized", writer.written, len(ids))
            progress.check()
            linked = self._ahead.take(folder) if self._ahead is not None else None
            self._ahead = None
            # (texts read again from their files are not kept: a large result's would all come back)
            texts = outcome.texts.passing() if isinstance(outcome.texts, SourceTexts) else outcome.texts
            failures = texts.failures if isinstance(texts, SourceTexts) else {}
            before = set(failures)
            counted = _AfterThose(progress, len(linked or ()), len(ids))  # one count from 0 to all of them
            outputs.write_normalized(folder, texts, ids, outcome.params.normalize, linked=linked, progress=counted)
            _not_written(folder, outcome, sorted(set(failures) - before))
            progress.report("normalized", len(ids), len(ids))
            if _published_run(out_dir) != outcome.run.run_id:  # screened again meanwhile
                outputs.remove_folder(folder)
                return False
            place = out_dir / outputs.NORMALIZED_DIR
            aside = out_dir / CACHE_FILE.parent / f"{_ASIDE_PREFIX}{outcome.run.run_id}"
            os.replace(place, aside)  # the note
            os.replace(folder, place)
            outputs.remove_folder(aside)
            self.in_place = True
            return True
        except BaseException:
            if writer is not None:
                writer.stop()
            if self._ahead is not None:
                self._ahead.discard()
            outputs.remove_folder(folder)
            raise
        finally:
            # what the texts read again and the writer's batches held, back to the system (else
            # kept by the C library: a window at rest after 100,000 files held ~100 MB more)
            release_free_memory()
            self.ended.set()


class _AfterThose:
    """Reports a count that starts after ``before`` of ``total`` (``write_normalized`` counts the
    files it writes, after those already linked or written), and passes the checks through."""

    def __init__(self, progress: Progress, before: int, total: int) -> None:
        self._progress, self._before, self._total = progress, before, total

    def report(self, stage: str, done: int, total: int) -> None:
        self._progress.report(stage, min(self._before + done, self._total), self._total)

    def check(self) -> None:
        self._progress.check()


def _not_written(folder: Path, outcome: ScreenOutcome, changed: list[str]) -> None:
    """Files read again after the screen that were no longer as screened (``SourceTexts`` gives
    their text as ""): their normalized files are removed, and a note in ``folder`` names them."""
    if not changed:
        return
    doc_ids = {d.path: d.doc_id for d in outcome.documents}
    for path in changed:
        if path in doc_ids:
            (folder / f"{doc_ids[path]}.txt").unlink(missing_ok=True)
    (folder / _NOT_WRITTEN_NOTE).write_text(
        "These files changed or could not be read after the screen, so their normalized texts are not here\n"
        "(screen again to compare them as they are now):\n" + "".join(f"{path}\n" for path in changed),
        encoding="utf-8",
        errors="backslashreplace",
    )


def _published_run(out_dir: Path) -> str | None:
    """The run_id of the outputs published in ``out_dir`` (its run.json), or None."""
    try:
        return json.loads((out_dir / "run.json").read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError, AttributeError):
        return None


def write_screen_outputs(
    outcome: ScreenOutcome,
    out_dir: Path,
    normalized: Callable[[Path], None] | None = None,
    *,
    alongside: Callable[[], None] | None = None,
    made: _OutputsAhead | None = None,
    unchanged_from: tuple[str, Sequence[bool]] | None = None,
    normalized_ahead: _Prelink | outputs.NormalizedWriter | _LinkedAndWritten | None = None,
    remove_old: Callable[[Path], None] | None = None,
) -> None:
    """Write manifest.csv, candidates.csv, run.json, normalized/ and the run in session.sqlite.

    All or nothing (see ``neardup_gui.io.outputs``): the files are staged, the run is committed
    to the session, then the files replace the previous run's, run.json last. A process killed
    at any moment leaves the previous run's outputs or this run's, never a mix once the session
    is next opened for writing.

    Args:
        outcome: The finished screen.
        out_dir: The output folder (refused inside the source).
        normalized: Makes the run's ``normalized/`` folder at the (not yet existing) staging path
            it is given, e.g. by renaming a folder the Dask workers wrote; default: written from
            ``outcome.texts``.
        alongside: Called once the session is open for this run (so the workspace is this
            screen's), before the files are written: it may start other writes into ``out_dir``
            that should happen only then (``screen_folder`` starts writing the prepare cache).
        made: What ``screen_folder`` made of the outputs beforehand (used when made from
            ``outcome.documents``).
        unchanged_from: Candidates taken over unchanged from an earlier run
            (``ReviewSession.record_run``).
        normalized_ahead: For the default ``normalized``: the folder made meanwhile by the
            rescan's helper process or a thread (``_Prelink``), as the documents were prepared
            (``outputs.NormalizedWriter``), or both (``_LinkedAndWritten``): its ``take`` moves
            it to the path it is given and returns the doc_ids it holds, or returns None (then
            the folder is made here as without it); its ``links_reused`` tells whether the
            earlier run's reusable files are among them (else they are linked here).
        remove_old: Removes the previous ``normalized/`` once the outputs are published
            (``outputs.publish_screen_outputs``; default: here and now).
    """
    out_dir = ensure_outside_source(out_dir, outcome.source)
    out_dir.mkdir(parents=True, exist_ok=True)
    by_id = outcome.documents_by_id
    run_id = outcome.run.run_id
    if made is not None and made.documents is not outcome.documents:
        made = None
    files = {
        "manifest.csv": made.manifest_csv if made is not None else manifest_csv(outcome.documents),
        # Made a slice at a time as it is written, not held whole (a large cluster's are big).
        "candidates.csv": outputs.candidate_csv_parts(outcome.candidates, by_id),
        "run.json": outputs.json_bytes(outcome.run.to_dict()),
    }
    # The session first: if another program holds it, nothing is written. Opening it for
    # writing also settles what an interrupted earlier screen left behind.
    texts = outcome.texts.lenient() if isinstance(outcome.texts, SourceTexts) else outcome.texts
    with ReviewSession.open(out_dir / SESSION_FILE) as session:
        if alongside is not None:
            alongside()
        def write_normalized(folder: Path) -> None:
            linked = normalized_ahead.take(folder) if normalized_ahead is not None else None
            reuse = None
            if linked is None or not normalized_ahead.links_reused:
                reuse = _reusable_normalized(out_dir, outcome)
            # (made here, not before: a screen without normalized/ has no use for them, 0.1 s at 100,000 files)
            usable = [d.doc_id for d in outcome.documents if d.usable or d.status == "no_shingles"]
            ids = [i for i in usable if i in outcome.texts]
            outputs.write_normalized(folder, texts, ids, outcome.params.normalize, reuse, linked=linked)

        outputs.stage_screen_outputs(out_dir, run_id, files, normalized or write_normalized)
        try:
            session.record_run(outcome.run, outcome.documents, outcome.candidates,
                               manifest=made.manifest if made is not None else None,
                               unchanged_from=unchanged_from)  # fmt: skip
        finally:
            # Committed or not decides: publish, or throw the staged files away.
            outputs.settle_pending(out_dir, session.latest_run_id(), remove_old)
