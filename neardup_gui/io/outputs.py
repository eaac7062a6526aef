"""The files a screen writes into its output folder.

``manifest.csv``, ``candidates.csv`` (UTF-8 with BOM so spreadsheet programs open Chinese
correctly; cells that a spreadsheet would run as a formula are escaped), ``run.json`` and
``normalized/<doc_id>.txt``.

A run's outputs change together, never file by file in a way a crash could leave mixed:

1. ``stage_screen_outputs`` writes every file into ``OUTDIR/.pending-<run_id>/`` and syncs it;
2. the run is committed to ``session.sqlite`` (one transaction): the commit point;
3. ``publish_screen_outputs`` renames the staged files over the old ones, ``run.json`` last.

A process killed before step 2 leaves only a staging folder, which the next writer deletes; one
killed during step 3 leaves the rest of its staging folder, which the next writer (anything that
opens the session for writing) publishes (``settle_pending``). So after any interruption the
outputs are those of the session's latest run, and no final name ever holds half a file.
Single files (``write_csv``, ``write_json``) are written atomically on their own.

No Qt here.
"""

from __future__ import annotations

import codecs
import csv
import io as _stdio
import json
import logging
import math
import operator
import os
import shutil
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

from neardup_gui.core.normalize import normalize_batch, to_text
from neardup_gui.core.progress import NULL_PROGRESS, Progress, give_way, slices_giving_way
from neardup_gui.core.records import Candidate, Document, NormalizeOptions
from neardup_gui.io.cellsafe import FORMULA_PREFIXES, csv_cell
from neardup_gui.io.fstat import link_same_names, list_folder
from neardup_gui.io.paths import atomic_write_bytes

log = logging.getLogger(__name__)

__all__ = [
    "CANDIDATE_COLUMNS",
    "MANIFEST_COLUMNS",
    "NORMALIZED_DIR",
    "PENDING_PREFIX",
    "SCREEN_FILES",
    "NormalizedWriter",
    "candidate_csv_parts",
    "candidate_rows",
    "csv_bytes",
    "csv_parts",
    "discard_pending",
    "iso_time",
    "json_bytes",
    "manifest_rows",
    "pending_dir",
    "publish_screen_outputs",
    "prelink_normalized",
    "remove_folder_aside",
    "reusable_normalized",
    "settle_pending",
    "stage_screen_outputs",
    "write_csv",
    "write_json",
    "write_normalized",
]

# The files of one run, in the order they are published: run.json last, so a run.json always
# names a run whose other files are already in place.
SCREEN_FILES = ("manifest.csv", "candidates.csv", "run.json")
NORMALIZED_DIR = "normalized"
OLD_NORMALIZED = ".normalized.old"
PENDING_PREFIX = ".pending-"

MANIFEST_COLUMNS = (
    "doc_id",
    "source_id",
    "version",
    "path",
    "size",
    "mtime",
    "sha256",
    "encoding",
    "chars",
    "status",
    "message",
    "extractor",
)

CANDIDATE_COLUMNS = (
    "left",
    "right",
    "left_doc_id",
    "right_doc_id",
    "left_source_id",
    "right_source_id",
    "left_version",
    "right_version",
    "methods",
    "score",
    "jaccard",
    "containment_left",
    "containment_right",
    "minhash_estimate",
    "tfidf_cosine",
    "simhash_distance",
    "length_ratio",
    "shared_shingles",
    "shingles_left",
    "shingles_right",
    "flags",
    "suggestion",
    "segments",
    "shared_sample",
)


def iso_time(epoch: float | None = None) -> str:
    """ISO 8601 with the local time zone offset (seconds precision)."""
    moment = datetime.now(timezone.utc) if epoch is None else datetime.fromtimestamp(epoch, timezone.utc)
    return moment.astimezone().isoformat(timespec="seconds")


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


class _LocalTimes:
    """``iso_time`` for many timestamps: the same strings at a fraction of the cost.

    ``iso_time`` rounds to microseconds, asks the C library (``localtime``) for the UTC offset of
    that moment's whole second, and prints the moment shifted by the offset, to the second. This
    does the same, asking ``localtime`` about the first and last second of each UTC day: when
    both have one offset, the whole day has it (no time zone changes its offset and back within a
    day); otherwise (a day with a change) it asks about every second. Dates and offsets are
    printed once each. A fraction so close to the next second that rounding to microseconds
    could carry into it, and anything unusual (not finite, years near 1 or 9999), goes through
    ``iso_time`` itself.
    """

    def __init__(self) -> None:
        self._spans: dict[int, int | None] = {}  # UTC day since the epoch -> its offset, or None
        self._days: dict[int, str] = {}
        self._zones: dict[int, str] = {}

    def __call__(self, epoch: float) -> str:
        try:
            second = math.floor(epoch)
            if epoch - second >= 0.999999 or not _FIRST_SECOND <= second <= _LAST_SECOND:
                return iso_time(epoch)
            offset = self._offset(second // 86400)
            if offset is None:
                offset = time.localtime(second).tm_gmtoff
            day, in_day = divmod(second + offset, 86400)
            hours, rest = divmod(in_day, 3600)
            return f"{self._day(day)}T{hours:02d}:{rest // 60:02d}:{rest % 60:02d}{self._zone(offset)}"
        except (ValueError, OverflowError, OSError):
            return iso_time(epoch)

    def many(self, epochs: Sequence[float | None]) -> list[str]:
        """``[self(e) if e else "" for e in epochs]``, the usual times worked out over arrays
        (0.18 -> 0.03 s for 100,000 file times): those with a fraction that may carry into the
        next second, outside the printable years, not finite, or on a UTC day when the offset
        changes go through ``__call__`` one by one."""
        n = len(epochs)
        try:
            values = np.array([e if e else 0.0 for e in epochs], dtype=np.float64)
        except (TypeError, ValueError, OverflowError):  # not a number, or an int past a float's range
            return [self(e) if e else "" for e in epochs]
        with np.errstate(invalid="ignore"):
            seconds = np.floor(values)
            usual = (values != 0.0) & (values - seconds < 0.999999)  # (False where not finite)
            usual &= (seconds >= _FIRST_SECOND) & (seconds <= _LAST_SECOND)
        picked = np.flatnonzero(usual)
        whole = seconds[picked].astype(np.int64)
        spans, span_of = np.unique(whole // 86400, return_inverse=True)
        span_offsets = [self._offset(int(span)) for span in spans.tolist()]
        known = np.array([o is not None for o in span_offsets], dtype=bool)[span_of]
        picked, whole, span_of = picked[known], whole[known], span_of[known]
        offsets = np.array([0 if o is None else o for o in span_offsets], dtype=np.int64)[span_of]
        days, in_day = np.divmod(whole + offsets, 86400)
        out = [""] * n
        rest_of = np.ones(n, dtype=bool)
        rest_of[picked] = False
        for i in np.flatnonzero(rest_of).tolist():
            if epochs[i]:
                out[i] = self(epochs[i])
        # Each distinct date, time of day and zone is printed once; the pieces are then joined.
        day_values, day_at = np.unique(days, return_inverse=True)
        clock_values, clock_at = np.unique(in_day, return_inverse=True)
        zone_values, zone_at = np.unique(offsets, return_inverse=True)
        day_texts = [self._day(day) for day in day_values.tolist()]
        clocks = [f"T{t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d}" for t in clock_values.tolist()]
        zones = [self._zone(offset) for offset in zone_values.tolist()]
        for i, d, c, z in zip(picked.tolist(), day_at.tolist(), clock_at.tolist(), zone_at.tolist()):
            out[i] = day_texts[d] + clocks[c] + zones[z]
        return out

    def _offset(self, span: int) -> int | None:
        """The UTC offset of the whole UTC day ``span`` (days since the epoch), or None when it
        changes within that day."""
        offset = self._spans.get(span, _UNSEEN)
        if offset is _UNSEEN:
            first = time.localtime(span * 86400).tm_gmtoff
            last = time.localtime(span * 86400 + 86399).tm_gmtoff
            offset = self._spans[span] = first if first == last else None
        return offset  # type: ignore[return-value]

    def _day(self, day: int) -> str:
        text = self._days.get(day)
        if text is None:
            text = self._days[day] = (_EPOCH_DATE + timedelta(days=day)).isoformat()
        return text

    def _zone(self, offset: int) -> str:
        text = self._zones.get(offset)
        if text is None:
            text = datetime(2000, 1, 1, tzinfo=timezone(timedelta(seconds=offset))).isoformat()[19:]
            self._zones[offset] = text
        return text


_UNSEEN = object()


_EPOCH_DATE = date(1970, 1, 1)
# Seconds since the epoch of 0002-01-01 and 9998-12-31 UTC: a day's margin keeps every local
# time printable; times beyond are left to ``iso_time`` (which refuses what datetime cannot hold).
_FIRST_SECOND = (date(2, 1, 1) - _EPOCH_DATE).days * 86400
_LAST_SECOND = (date(9998, 12, 31) - _EPOCH_DATE).days * 86400


def manifest_rows(documents: Iterable[Document]) -> list[tuple[Any, ...]]:
    """One row per manifest entry, in ``MANIFEST_COLUMNS`` order (mtime as local ISO 8601)."""
    documents = documents if isinstance(documents, (list, tuple)) else list(documents)
    times = _LocalTimes().many([d.mtime for d in documents])
    head = operator.attrgetter("doc_id", "source_id", "version", "path", "size")
    tail = operator.attrgetter("sha256", "encoding", "chars", "status", "message", "extractor")
    rows: list[tuple[Any, ...]] = []
    for lo in range(0, len(documents), 1024):
        give_way()
        rows += [(*head(d), t, *tail(d)) for d, t in zip(documents[lo : lo + 1024], times[lo : lo + 1024])]
    return rows


def candidate_rows(
    candidates: Iterable[Candidate], documents: Mapping[str, Document]
) -> list[tuple[Any, ...]]:
    """One row per candidate, in ``CANDIDATE_COLUMNS`` order; scores with six decimals.

    Made column by column, each mapped in C (8,800 rows: 0.14 -> 0.11 s with the file's writing,
    which every screen does)."""
    cands = candidates if isinstance(candidates, (list, tuple)) else list(candidates)
    lefts = list(map(documents.__getitem__, map(_left_of, cands)))
    rights = list(map(documents.__getitem__, map(_right_of, cands)))
    return list(
        zip(
            map(_path_of, lefts),
            map(_path_of, rights),
            map(_left_of, cands),
            map(_right_of, cands),
            map(_source_of, lefts),
            map(_source_of, rights),
            map(_version_of, lefts),
            map(_version_of, rights),
            map(";".join, map(_methods_of, cands)),
            map(_SIX.__mod__, map(_score_of, cands)),
            map(_SIX.__mod__, map(_jaccard_of, cands)),
            map(_SIX.__mod__, map(_cleft_of, cands)),
            map(_SIX.__mod__, map(_cright_of, cands)),
            map(_fmt, map(_estimate_of, cands)),
            map(_fmt, map(_cosine_of, cands)),
            map(_distance_cell, map(_distance_of, cands)),
            map(_SIX.__mod__, map(_ratio_of, cands)),
            map(_shared_of, cands),
            map(_size_left_of, cands),
            map(_size_right_of, cands),
            map(";".join, map(_flags_of, cands)),
            map(_suggestion_of, cands),
            map(_segments_cell, map(_segments_of, cands)),
            map(" | ".join, map(_sample_of, cands)),
        )
    )


_SIX = "%.6f"  # as ``_fmt``: the same text as f"{value:.6f}" for an int or a float
_SEGMENT = "%d-%d:%d-%d"
_segment_values = operator.attrgetter("left_start", "left_end", "right_start", "right_end")
(_left_of, _right_of, _methods_of, _score_of, _jaccard_of, _cleft_of, _cright_of, _estimate_of, _cosine_of,
 _distance_of, _ratio_of, _shared_of, _size_left_of, _size_right_of, _flags_of, _suggestion_of, _segments_of,
 _sample_of) = map(operator.attrgetter, (
    "left", "right", "methods", "score", "jaccard", "containment_left", "containment_right", "minhash_estimate",
    "tfidf_cosine", "simhash_distance", "length_ratio", "shared_shingles", "shingles_left", "shingles_right", "flags",
    "suggestion", "segments", "shared_sample"))  # fmt: skip
_path_of, _source_of, _version_of = map(operator.attrgetter, ("path", "source_id", "version"))


def _distance_cell(distance: int | None) -> int | str:
    return "" if distance is None else distance


def _segments_cell(segments: tuple[Any, ...]) -> str:
    """``left_start-left_end:right_start-right_end`` of each passage, space-separated."""
    return " ".join(map(_SEGMENT.__mod__, map(_segment_values, segments)))


# Cells of these types never need escaping (bool is an int, but ``type(v) is int`` is exact).
_PLAIN_TYPES = frozenset({int, float, bool, type(None)})


def _safe_column(column: tuple[Any, ...], kinds: set[type]) -> tuple[Any, ...] | list[Any]:
    """``[csv_cell(v) for v in column]`` (``kinds``: the column's value types), with the per-cell
    work done in C where possible."""
    if kinds <= _PLAIN_TYPES:
        return column
    if kinds == {str}:
        if _FORMULA_FIRST.isdisjoint({v[:1] for v in column}):
            return column  # (half the time of ``str.startswith`` mapped over the column)
        return ["'" + v if v.startswith(FORMULA_PREFIXES) else v for v in column]
    return list(map(csv_cell, column))


# Every formula prefix is one character: a cell is risky when its first character is one of them.
_FORMULA_FIRST = frozenset(FORMULA_PREFIXES)
assert all(len(p) == 1 for p in FORMULA_PREFIXES)


def _column_texts(column: Sequence[Any], kinds: set[type]) -> Sequence[str] | None:
    """The column's cells as ``csv.writer`` prints them unquoted (int as ``str``), or None when
    one is of another type or holds a character that makes the writer quote it (``"``, ``,``,
    CR, LF). ``kinds``: the column's value types (escaping keeps them)."""
    if kinds == {int}:
        return list(map(str, column))
    if kinds != {str}:
        return None
    joined = "".join(column)
    if '"' in joined or "," in joined or "\r" in joined or "\n" in joined:
        return None
    return column


def _joined_rows(columns: Sequence[Sequence[Any]], kinds: Sequence[set[type]]) -> str | None:
    """What ``csv_bytes``' writer (CRLF line ends) writes for the rows of ``columns``
    (each a column of one slice), made by joining the cells, when no cell needs quoting and every
    column is all ``str`` or all ``int``; otherwise None. A row of one cell is left to the writer
    (an empty one is written as ``""``). Joining costs a third of the writer's time: at 100,000
    manifest rows 0.1 s instead of 0.3 s."""
    if len(columns) < 2:
        return None
    texts = []
    for column, types in zip(columns, kinds):
        text = _column_texts(column, types)
        if text is None:
            return None
        texts.append(text)
    return "\r\n".join(map(",".join, zip(*texts))) + "\r\n"


# Rows per slice of work in ``csv_bytes``: each C call (column checks, writerows, encode) covers
# one slice, so a thread writing 100,000 rows never holds the GIL long enough to stall the window.
# Wide rows (a candidate's passages and shared sample: ~1,000 characters) get fewer rows a slice:
# about _CSV_SLICE_CHARS characters each (2,048 candidate rows held the GIL for ~60 ms).
_CSV_SLICE = 1024
_CSV_SLICE_CHARS = 200_000
_CANDIDATE_SLICE = 256  # candidate rows run to ~700 characters (passages and the shared sample)


def csv_bytes(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    """A CSV file's bytes: UTF-8 with BOM, CRLF, RFC 4180 quoting, formula-like cells escaped.

    Every cell goes through ``cellsafe.csv_cell`` (text starting with = + - @ tab or CR gets a
    leading apostrophe; numbers stay numbers). Rows of one length are checked column by column,
    mostly in C, which keeps a manifest of 100,000 files cheap; the bytes are the same.
    """
    rows = rows if isinstance(rows, list) else list(rows)
    step = max(64, min(_CSV_SLICE, _CSV_SLICE_CHARS // _row_width(rows[0]))) if rows else _CSV_SLICE
    return b"".join(csv_parts(columns, (rows[lo : lo + step] for lo in range(0, len(rows), step))))


def csv_parts(columns: Sequence[str], slices: Iterable[list[Sequence[Any]]]) -> Iterator[bytes]:
    """``csv_bytes`` in parts, one per slice of rows, each slice taken only when the part before it
    is written: a file of many long rows is never held whole, nor are its rows."""
    buf = _stdio.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(columns)
    yield codecs.BOM_UTF8
    for rows in slices:
        give_way()  # each slice is one C call (~7 ms for 1,024 manifest rows)
        _write_rows(writer, buf, rows)
        yield buf.getvalue().encode("utf-8")
        buf.seek(0)
        buf.truncate()
    if buf.tell():  # no rows: the header alone
        yield buf.getvalue().encode("utf-8")


def candidate_csv_parts(candidates: Sequence[Candidate], documents: Mapping[str, Document]) -> Iterator[bytes]:
    """``candidates.csv`` in parts, the rows of ``_CANDIDATE_SLICE`` candidates at a time (the same
    bytes as ``csv_bytes`` of every row: 90,000 pairs of a large cluster made 60 MB of it, held
    whole with its rows beside the session's values)."""
    step = _CANDIDATE_SLICE
    return csv_parts(
        CANDIDATE_COLUMNS,
        (candidate_rows(candidates[lo : lo + step], documents) for lo in range(0, len(candidates), step)),
    )


def _row_width(row: Sequence[Any]) -> int:
    """About how many characters a row takes in the file (at least 1)."""
    try:
        return 1 + sum(len(v) if isinstance(v, str) else 8 for v in row)
    except TypeError:  # a row that is not a sequence
        return 1


def _write_rows(writer: Any, out: _stdio.StringIO, rows: list[Sequence[Any]]) -> None:
    """Write one slice of rows, escaped, into ``out`` (through ``writer`` unless joined)."""
    try:
        widths = set(map(len, rows))
    except TypeError:  # a row without a length
        widths = set()
    if len(widths) == 1 and 0 not in widths:
        columns_in = list(zip(*rows))
        kinds = [set(map(type, column)) for column in columns_in]
        columns_out = list(map(_safe_column, columns_in, kinds))
        joined = _joined_rows(columns_out, kinds)
        if joined is not None:  # the common case: nothing to quote
            out.write(joined)
        elif all(map(operator.is_, columns_in, columns_out)):
            writer.writerows(rows)  # nothing to escape
        else:
            writer.writerows(zip(*columns_out))
    else:  # no rows, empty rows or rows of different lengths: cell by cell
        writer.writerows([list(map(csv_cell, row)) for row in rows])


def json_bytes(data: Any) -> bytes:
    """Indented, key-sorted UTF-8 JSON with a final newline."""
    return (json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """UTF-8 with BOM, RFC 4180 quoting, formula-like cells escaped; written atomically."""
    atomic_write_bytes(path, csv_bytes(columns, rows))


def write_json(path: Path, data: Any) -> None:
    """JSON (see ``json_bytes``), written atomically."""
    atomic_write_bytes(path, json_bytes(data))


def _write_synced(path: Path, data: bytes | Iterable[bytes]) -> None:
    with open(path, "xb") as fh:
        if isinstance(data, (bytes, bytearray, memoryview)):
            fh.write(data)
        else:
            for part in data:
                fh.write(part)
        fh.flush()
        os.fsync(fh.fileno())


def _fsync_dir(folder: Path) -> None:
    """Make renames in ``folder`` durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# As ``Path.write_bytes`` opens a file (binary, no inheritance), minus the buffered-file layer.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
_NORMALIZE_BATCH = 256  # texts normalized at once: large enough for numpy, small in memory
_WRITES_AHEAD = 4  # normalized batches waiting for the writer thread at most


def _write_files(folder: Path, folder_fd: int | None, files: list[tuple[str, bytes]]) -> None:
    for name, data in files:
        fd = os.open(name, _NEW_FILE, 0o666, dir_fd=folder_fd) if folder_fd is not None else (
            os.open(folder / name, _NEW_FILE, 0o666))  # fmt: skip
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)


def _link_files(
    folder: Path, folder_fd: int | None, links: list[tuple[str, str | Path]], compiled: bool = True
) -> list[str]:
    """Hard-link earlier normalized files into ``folder``; returns the names that could not be.

    Files of one folder linked under their own names (the usual case: the last run's
    ``normalized/``) are linked in one call that holds no GIL (``fstat.link_same_names``): a
    rescan links them on a thread while the screen runs, and ``os.link`` per file waited for the
    GIL at every file there. Not ``compiled``: one ``os.link`` each (a helper process that has
    no use for the compiled code loaded: ~125 MB and ~1 s to load it)."""
    batch = _same_names_in_one_folder(links) if compiled and folder_fd is not None and links else None
    if batch is not None:
        try:
            source_fd = os.open(batch, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError:
            source_fd = None
        if source_fd is not None:
            try:
                made = link_same_names(source_fd, folder_fd, [name for name, _ in links])
            finally:
                os.close(source_fd)
            if made is not None:
                links = [link for link, ok in zip(links, made.tolist()) if not ok]  # each looked at again below
    failed = []
    for name, source in links:
        try:
            if folder_fd is not None:
                os.link(source, name, dst_dir_fd=folder_fd)
            else:
                os.link(source, folder / name)
        except OSError:  # no hard links here (some network and FAT file systems), or it is gone
            failed.append(name)
    return failed


def _same_names_in_one_folder(links: list[tuple[str, str | Path]]) -> str | None:
    """The folder every source of ``links`` is in when each has the name it is linked as, else None."""
    folders = {os.path.dirname(source) for _, source in links}
    if len(folders) != 1 or any(os.path.basename(source) != name for name, source in links):
        return None
    return os.fspath(folders.pop())


def write_normalized(
    folder: Path,
    texts: Mapping[str, str],
    doc_ids: Iterable[str],
    options: NormalizeOptions,
    reuse: Mapping[str, str | Path] | None = None,
    *,
    linked: Iterable[str] | None = None,
    progress: Progress = NULL_PROGRESS,
) -> None:
    """Write ``<doc_id>.txt`` with each document's normalized text (UTF-8) into a new ``folder``.

    Creating thousands of small files costs more than normalizing them (it waits on the file
    system's journal), so one thread creates the files of a batch while this one normalizes the
    next; files are opened relative to the folder with plain system calls (open, write, close).

    ``reuse``: doc_id -> the same document's normalized file from an earlier run (same file
    SHA-256, same options): hard-linked instead of written, so the text is not read again; written
    as usual where a link cannot be made.

    ``linked``: ``folder`` exists already, made by ``prelink_normalized``, holding these doc_ids'
    files: the others of ``doc_ids`` are written into it, and a file of a document not in
    ``doc_ids`` is removed.

    ``progress``: told of the files written (stage ``"normalized"``) and checked between batches
    (``Cancelled`` leaves the folder as far as it got).

    Raises:
        FileExistsError: ``folder`` exists and ``linked`` is None (it is a fresh staging folder).
    """
    doc_ids = list(doc_ids)
    if linked is None:
        folder.mkdir(parents=True)
    else:
        wanted, there = set(doc_ids), set(linked)
        for doc_id in there - wanted:
            (folder / f"{doc_id}.txt").unlink(missing_ok=True)
        reuse = {d: p for d, p in (reuse or {}).items() if d not in there}
        doc_ids = [d for d in doc_ids if d not in there]
    reuse = reuse or {}
    ids = [d for d in doc_ids if d not in reuse]
    with _folder_handle(folder) as folder_fd, ThreadPoolExecutor(1) as writer:
        linking = writer.submit(_link_files, folder, folder_fd, [(f"{d}.txt", p) for d, p in reuse.items()])
        pending: deque[Future[None]] = deque()
        for lo in range(0, len(ids), _NORMALIZE_BATCH):
            progress.check()
            progress.report("normalized", lo, len(ids))
            batch = ids[lo : lo + _NORMALIZE_BATCH]
            files = [
                (f"{doc_id}.txt", to_text(cps).encode("utf-8"))
                for doc_id, cps in zip(batch, normalize_batch([texts[d] for d in batch], options))
            ]
            if len(pending) >= _WRITES_AHEAD:
                pending.popleft().result()
            pending.append(writer.submit(_write_files, folder, folder_fd, files))
        while pending:
            pending.popleft().result()
        failed = [name[: -len(".txt")] for name in linking.result()]
        for lo in range(0, len(failed), _NORMALIZE_BATCH):
            batch = failed[lo : lo + _NORMALIZE_BATCH]
            _write_files(folder, folder_fd, [
                (f"{doc_id}.txt", to_text(cps).encode("utf-8"))
                for doc_id, cps in zip(batch, normalize_batch([texts[d] for d in batch], options))
            ])  # fmt: skip


@contextmanager
def _folder_handle(folder: Path) -> Iterator[int | None]:
    """A handle on ``folder`` to create files relative to (one path lookup less per file), or None
    where the system has no such handles."""
    if not (os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")):
        yield None
        return
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield fd
    finally:
        os.close(fd)


# Batches of normalized texts waiting for a ``NormalizedWriter``'s thread at most (a batch is ~256
# texts, ~1.5 MB of code points): a preparing thread that gets further ahead waits for it.
_WRITER_BATCHES_AHEAD = 16


class NormalizedWriter:
    """Writes ``<doc_id>.txt`` normalized files into a new folder while a screen makes the texts
    (``core.pipeline.screen``'s ``normalized``), on a thread of its own.

    ``write_normalized`` at the end of a screen normalizes every text a second time and needs every
    raw text kept until then (100,000 files: 3-5 s of normalizing on one core, and the texts'
    ~300 MB at the screen's peak). Given the code points as the screen's preparation makes them,
    this writes each batch as it comes, and the raw texts can be dropped once prepared. ``add``
    may be called from several threads; it waits when the writing is ``_WRITER_BATCHES_AHEAD``
    batches behind. ``take`` moves the folder to the staged outputs (``write_normalized(linked=)``
    completes it); ``discard`` removes it.
    """

    links_reused = False  # only the files it was given: the earlier run's reusable ones are not in it

    def __init__(self, folder: Path, wait: bool = True) -> None:
        """Creates ``folder`` (FileExistsError if it exists; OSError if it cannot be made).
        ``wait``: ``add`` waits while the writing is behind; else it leaves that batch out
        (``skipped``: its files are for whoever completes the folder, ``write_normalized(linked=)``)."""
        folder.mkdir()
        self.path = folder
        self._handle = ExitStack()
        try:
            self._fd = self._handle.enter_context(_folder_handle(folder))
        except OSError:
            folder.rmdir()
            raise
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="neardup-normalized")
        self._room = threading.BoundedSemaphore(_WRITER_BATCHES_AHEAD)
        self._queued = 0  # batches given and not written yet
        self._queue_changed = threading.Condition()
        self._written: list[str] = []
        self._failed: BaseException | None = None
        self._closed = self._taken = self._dropped = False
        self._wait = wait
        self.skipped = 0  # documents left out (not ``wait``)

    def add(self, doc_ids: Sequence[str], cps: Sequence[np.ndarray]) -> None:
        """Queue the files of these documents (their normalized code points, not changed after)."""
        if self._closed or self._failed is not None:
            return
        if not self._room.acquire(blocking=self._wait):
            self.skipped += len(doc_ids)  # (on the preparing threads: counted roughly)
            return
        with self._queue_changed:
            self._queued += 1
        try:
            self._pool.submit(self._write, list(doc_ids), list(cps))
        except RuntimeError:  # closed meanwhile
            self._room.release()
            self._batch_done()

    @property
    def written(self) -> int:
        """Files written so far."""
        return len(self._written)

    def settled(self, timeout: float | None = None) -> bool:
        """Wait at most ``timeout`` seconds for the batches given to be written (or skipped);
        whether they are."""
        with self._queue_changed:
            return self._queue_changed.wait_for(lambda: self._queued == 0, timeout)

    def _batch_done(self) -> None:
        with self._queue_changed:
            self._queued -= 1
            self._queue_changed.notify_all()

    def _write(self, doc_ids: list[str], cps: list[np.ndarray]) -> None:
        try:
            if self._failed is None and not self._dropped:
                files = [(f"{d}.txt", to_text(c).encode("utf-8")) for d, c in zip(doc_ids, cps)]
                del cps
                _write_files(self.path, self._fd, files)
                self._written.extend(doc_ids)
        except Exception as exc:  # a full disk, a text that cannot be encoded: the screen writes them later
            self._failed = exc
        finally:
            self._room.release()
            self._batch_done()

    def _finish(self) -> None:
        if not self._closed:
            self._closed = True
            self._pool.shutdown(wait=True)
            self._handle.close()

    def take(self, folder: Path) -> list[str] | None:
        """Wait for the files queued, move the folder to ``folder`` (which must not exist) and
        return the doc_ids written there; None (the folder removed) when a write failed or the
        folder could not be moved: the caller then writes every file itself."""
        self._finish()
        if self._taken:
            return None
        try:
            if self._failed is not None:
                raise self._failed
            os.replace(self.path, folder)
        except Exception as exc:
            log.warning("normalized files written during the screen could not be used (%s); writing them now", exc)
            self.discard()
            return None
        self._taken = True
        return self._written

    def stop(self) -> None:
        """Write no more of the batches queued (returns at once; ``discard`` then removes the folder)."""
        self._dropped = True

    def discard(self) -> None:
        """Stop (the batches queued are not written) and remove the folder unless taken."""
        self._dropped = True
        self._finish()
        if not self._taken:
            self._taken = True
            remove_folder(self.path)


# ---------------------------------------------------------------------------------------------
# One run's outputs, switched as a whole


# Reading the previous manifest.csv: decoded into the parser's buffer this many bytes a call.
_DECODE_SLICE = 1 << 20
# What a normalized file's bytes depend on besides the document's text (``run.json``'s params).
_NORMALIZED_KEYS = ("normalize", "docx_tables", "docx_headers_footers")


def reusable_normalized(
    out_dir: Path,
    params: Mapping[str, Any],
    versions: Mapping[str, str],
    documents: Iterable[tuple[str, str, str]],
    compiled: bool = True,
) -> dict[str, str]:
    """doc_id -> its file in the workspace's current ``normalized/``, for the documents
    (``(doc_id, path, sha256)``) whose file has the same path and SHA-256 as in the run that
    wrote it, made with the same normalization and extraction options (``params``:
    ``ScreenParams.to_dict()``) and ``versions`` (so the same bytes); empty when that cannot be
    told. ``compiled``: the folder may be listed by the compiled listing (``fstat.list_folder``)."""
    folder = Path(out_dir) / NORMALIZED_DIR
    try:
        previous = json.loads((Path(out_dir) / "run.json").read_text(encoding="utf-8"))
        if [previous["params"].get(k) for k in _NORMALIZED_KEYS] != [params.get(k) for k in _NORMALIZED_KEYS]:
            return {}
        if previous["versions"] != dict(versions):
            return {}
        listed = list_folder(os.fspath(folder)) if compiled else None  # in one call (a rescan's thread)
        if listed is not None:
            present = {name for name in listed[0] if name.endswith(".txt")}
        else:
            with os.scandir(folder) as listing:  # 100,000 names: the listing's system calls give way too
                present = {e.name for part in slices_giving_way(listing, 1024) for e in part if e.name.endswith(".txt")}
        # Read whole, then parsed: parsing as it reads lets go of the GIL at every 8 KB read, and
        # such a loop keeps a waiting window thread out (core.progress.Heartbeat); decoded into the
        # parser's buffer 1 MB a call (20 MB at 100,000 files: one call held the GIL ~40 ms).
        data = (Path(out_dir) / "manifest.csv").read_bytes()
        decoder = codecs.getincrementaldecoder("utf-8-sig")()
        buffer = _stdio.StringIO(newline="")
        for i in range(0, len(data), _DECODE_SLICE):
            give_way()
            buffer.write(decoder.decode(data[i : i + _DECODE_SLICE], i + _DECODE_SLICE >= len(data)))
        buffer.seek(0)
        # The C reader and three columns: a DictReader's row dicts took 1.5x as long (0.41 against
        # 0.27 s at 100,000 rows), time in which the window waits its turn for the GIL at every slot.
        rows = csv.reader(buffer)
        header = next(rows)
        at = [header.index(name) for name in ("doc_id", "path", "sha256")]
        width = max(at) + 1
        i, p, h = at
        was = {r[i]: (r[p], r[h]) for part in slices_giving_way(rows, 1024) for r in part if len(r) >= width}
    except (OSError, ValueError, KeyError, TypeError, StopIteration, csv.Error):
        return {}
    # Paths joined as text: a ``Path`` per document cost ~0.4 s at 100,000 files.
    inside = os.path.join(folder, "")
    return {
        doc_id: f"{inside}{doc_id}.txt"
        for part in slices_giving_way(documents, 1024)
        for doc_id, path, sha in part
        if sha and was.get(doc_id) == (path, sha) and f"{doc_id}.txt" in present
    }


# Niceness of a helper process's file work (links, removals): a window on the same cores stays first.
_BACKGROUND_NICENESS = 10


def _yield_cpu() -> None:
    """Run this (helper) process at a lower CPU priority from now on (POSIX; elsewhere nothing):
    100,000 links or removals on the core a window's thread also needs kept it out 160-300 ms."""
    try:
        now = os.getpriority(os.PRIO_PROCESS, 0)
        if now < _BACKGROUND_NICENESS:
            os.setpriority(os.PRIO_PROCESS, 0, _BACKGROUND_NICENESS)
    except (AttributeError, OSError):
        pass


def remove_folder_aside(folder: str | Path) -> None:
    """``remove_folder`` in a helper process, at a lower CPU priority (``_yield_cpu``)."""
    _yield_cpu()
    remove_folder(Path(folder))


def joined_columns(rows: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    """Rows of strings without NUL characters as one NUL-joined string per column: what crosses to
    a helper process in a few large strings (pickling 100,000 row tuples held the interpreter, and
    with it a window's thread, ~190 ms in one call)."""
    width = len(rows[0]) if rows else 0
    return tuple("\0".join(row[i] for row in rows) for i in range(width))


def split_columns(columns: Sequence[str], count: int) -> list[tuple[str, ...]]:
    """The rows ``joined_columns`` joined (``count`` of them)."""
    if count == 0:
        return []
    return list(zip(*(column.split("\0") for column in columns)))


def prelink_normalized(
    out_dir: str,
    params: Mapping[str, Any],
    versions: Mapping[str, str],
    documents: tuple[tuple[str, ...], int],
    name: str,
    stale: tuple[str, ...] = (),
    background: bool = True,
) -> str:
    """Hard-link the reusable files of the workspace's ``normalized/`` (``reusable_normalized``)
    into a new folder ``out_dir/name``, ahead of a screen's outputs (a rescan's helper process
    does it while the screen runs: 100,000 links take 1.4-1.7 s). ``documents``: the
    ``joined_columns`` of ``(doc_id, path, sha256)`` rows and their number. Returns the doc_ids
    linked, NUL-joined; ``write_normalized(linked=...)`` completes the folder once it is moved
    into the staging folder.

    ``stale``: folders beside it whose names start so are removed first (left by a screen that
    stopped before it could use or remove its own, or by a helper process stopped while removing).
    ``background``: in a helper process: run at a lower CPU priority (``_yield_cpu``; a thread of
    the screen's own process would slow it down whole) and without loading the compiled listing
    and links (the thread uses them: they hold no GIL).
    """
    if background:
        _yield_cpu()
    folder = Path(out_dir) / name
    if stale:
        try:
            siblings = [p for p in folder.parent.iterdir() if p.name.startswith(stale) and p.name != folder.name]
        except OSError:
            siblings = []
        for old in siblings:
            remove_folder(old)
    reuse = reusable_normalized(Path(out_dir), params, versions, split_columns(*documents), compiled=not background)
    folder.mkdir(parents=True)
    with _folder_handle(folder) as folder_fd:
        links = [(f"{d}.txt", p) for d, p in reuse.items()]
        failed = set(_link_files(folder, folder_fd, links, compiled=not background))
    return "\0".join(d for d in reuse if f"{d}.txt" not in failed)


def pending_dir(out_dir: Path, run_id: str) -> Path:
    """The staging folder of a run's outputs: ``OUTDIR/.pending-<run_id>``."""
    return Path(out_dir) / f"{PENDING_PREFIX}{run_id}"


def stage_screen_outputs(
    out_dir: Path,
    run_id: str,
    files: Mapping[str, bytes | Iterable[bytes]],
    normalized: Callable[[Path], None] | None = None,
) -> Path:
    """Write a run's output files into its staging folder and flush them to disk.

    Nothing under a final name changes. Call ``publish_screen_outputs`` once the run is committed
    to the session, or ``discard_pending`` if it is not.

    Args:
        out_dir: The output folder.
        run_id: The run the files belong to.
        files: Final file name (one of ``SCREEN_FILES``) -> bytes, or its bytes in parts (an
            iterable read once, e.g. ``candidate_csv_parts``).
        normalized: Writes the ``normalized/`` folder into the path it is given (which does not
            exist yet), or None for no such folder.

    Returns:
        The staging folder.
    """
    unknown = set(files) - set(SCREEN_FILES)
    if unknown:
        raise ValueError(f"not screen output names: {sorted(unknown)}")
    staging = pending_dir(out_dir, run_id)
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    try:
        for name, data in files.items():
            _write_synced(staging / name, data)
        if normalized is not None:
            normalized(staging / NORMALIZED_DIR)
            _fsync_dir(staging / NORMALIZED_DIR)
        _fsync_dir(staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


def publish_screen_outputs(out_dir: Path, run_id: str, remove: Callable[[Path], None] | None = None) -> None:
    """Move a committed run's staged files to their final names; ``run.json`` goes last.

    Safe to repeat after an interruption: what was already moved is not touched again.
    The previous ``normalized/`` is moved aside (``.normalized.old-<run_id>``) and removed by
    ``remove`` (default ``remove_folder``; a screen may hand it to its helper process: 100,000
    files take ~0.7 s). A folder moved aside and not removed is a leftover ``settle_pending``
    removes.
    """
    out = Path(out_dir)
    staging = pending_dir(out, run_id)
    for name in SCREEN_FILES[:-1]:
        if (staging / name).exists():
            os.replace(staging / name, out / name)
    new_norm, target, old = staging / NORMALIZED_DIR, out / NORMALIZED_DIR, out / f"{OLD_NORMALIZED}-{run_id}"
    if new_norm.exists():
        if target.exists():
            if old.exists():
                shutil.rmtree(old, ignore_errors=True)
            os.replace(target, old)
        os.replace(new_norm, target)
    last = SCREEN_FILES[-1]
    if (staging / last).exists():
        os.replace(staging / last, out / last)
    _fsync_dir(out)
    shutil.rmtree(staging, ignore_errors=True)
    if old.exists():
        (remove or remove_folder)(old)


def remove_folder(folder: Path) -> None:
    """``shutil.rmtree(folder, ignore_errors=True)``, the files at its top level unlinked first
    relative to a handle on it, giving way between them: the previous ``normalized/`` (100,000
    files, no subfolders) in 0.67 s against 0.81 s for ``shutil.rmtree``, which joins and checks
    every path; whatever is left (subfolders, a system without such handles) goes to
    ``shutil.rmtree``."""
    if os.unlink in os.supports_dir_fd and os.listdir in os.supports_fd and hasattr(os, "O_DIRECTORY"):
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            fd = None
        if fd is not None:
            try:
                for name in os.listdir(fd):
                    give_way()  # an unlink per name: such loops keep a waiting window thread out otherwise
                    try:
                        os.unlink(name, dir_fd=fd)
                    except OSError:  # a folder, or gone: left to rmtree
                        pass
            finally:
                os.close(fd)
    shutil.rmtree(folder, ignore_errors=True)


def discard_pending(out_dir: Path, run_id: str) -> None:
    """Delete a run's staging folder (the run was not committed)."""
    shutil.rmtree(pending_dir(out_dir, run_id), ignore_errors=True)


def settle_pending(
    out_dir: Path, latest_run_id: str | None, remove: Callable[[Path], None] | None = None
) -> list[tuple[str, str]]:
    """Finish or undo what an interrupted screen left in ``out_dir``.

    Call it while holding the session's writer lock. A staging folder of the session's latest
    run is published (the run was committed, so its files must become the outputs); any other
    staging folder is deleted (its run never reached the session). Leftovers of the previous
    file-by-file writer (hidden temporary files and folders) are deleted too.

    Args:
        out_dir: The output folder (need not exist).
        latest_run_id: The latest run recorded in the folder's session, or None.
        remove: How a published run's previous ``normalized/`` is removed (``publish_screen_outputs``).

    Returns:
        ``(run_id or leftover name, "published" | "discarded")`` for what was done.
    """
    out = Path(out_dir)
    done: list[tuple[str, str]] = []
    try:
        names = sorted(os.listdir(out))
    except OSError:
        return done
    for name in names:
        if name.startswith(PENDING_PREFIX):
            run_id = name[len(PENDING_PREFIX) :]
            if run_id and run_id == latest_run_id:
                publish_screen_outputs(out, run_id, remove)
                done.append((run_id, "published"))
            else:
                shutil.rmtree(out / name, ignore_errors=True)
                done.append((run_id, "discarded"))
    for name in names:
        leftover = name.startswith(f".{NORMALIZED_DIR}.") or any(
            name.startswith(f".{f}.") and name.endswith(".tmp") for f in SCREEN_FILES
        )
        if leftover and (out / name).exists():
            if (out / name).is_dir():
                shutil.rmtree(out / name, ignore_errors=True)
            else:
                (out / name).unlink(missing_ok=True)
            done.append((name, "discarded"))
    return done
