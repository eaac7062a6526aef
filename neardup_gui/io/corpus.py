"""Read the source folder, read-only: one manifest row per entry, the decoded text of usable files.

The source folder is never written to. Files are opened for reading only (``O_RDONLY``, and
``O_NOATIME`` where the OS allows it, so even access times stay as they were); nothing is created,
renamed or touched inside the folder, and nothing from it is imported.

Every entry found gets a :class:`~neardup_gui.core.records.Document` row with a status
(``ok``, ``empty``, ``binary``, ``undecodable``, ``unreadable``, ``too_large``, ``skipped_link``,
``excluded``, ``no_text_layer``); none is dropped silently. ``no_shingles`` is assigned later by
the engine.

Plain files are decoded by :mod:`neardup_gui.io.decoding` (BOM, UTF-8, GB18030, Big5, UTF-16 with
a plausibility check); its public names are re-exported here for existing imports. Files whose
suffix has an extractor (.docx, .html/.htm, .pdf; see :mod:`neardup_gui.io.extract`) are read
through it when the include patterns select them, in the same reading threads; the row keeps the
original file's SHA-256 and names the extractor, and the extracted text is the document's text.

Listing the folder (hidden entries, links, include/exclude patterns) is :mod:`neardup_gui.io.walk`;
the optional sidecar CSV of ids is :mod:`neardup_gui.io.sidecar`. This module reads the files
the walk selected and assembles the manifest; ``CorpusError``, ``make_doc_id`` and
``SIDECAR_COLUMNS`` are re-exported from there.

Files larger than ``max_bytes`` are stat'ed but neither read nor hashed (``sha256`` is ""): the
limit exists to bound work, and a multi-gigabyte file named ``.txt`` must not stall a scan.

Must not import Qt.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import multiprocessing
import operator
import os
import queue
import stat
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from neardup_gui.core.estimate import listens, plan_stages, stage_seconds
from neardup_gui.core.machine import usable_cores
from neardup_gui.core.memory import give_back_soon, human_size
from neardup_gui.core.progress import (
    NULL_PROGRESS,
    Progress,
    consume_giving_way,
    dict_giving_way,
    empty_giving_way,
    give_way,
    list_giving_way,
    slices_giving_way,
)
from neardup_gui.core.records import (
    STATUS_BINARY,
    STATUS_EXCLUDED,
    STATUS_EMPTY,
    STATUS_NO_SHINGLES,
    STATUS_NO_TEXT_LAYER,
    STATUS_OK,
    STATUS_TOO_LARGE,
    STATUS_UNDECODABLE,
    STATUS_UNREADABLE,
    Document,
    document,
)
from neardup_gui.io.decoding import (
    BinaryContentError,
    UndecodableError,
    decode_bytes,
    detect_binary,
    plausibility,
)
from neardup_gui.io.extract import (
    DEFAULT_OPTIONS,
    PLAIN_TEXT,
    ExtractOptions,
    extract_document,
    extractor_for,
    reextract,
)
from neardup_gui.io.fstat import BATCH_MIN, batch_available, stamps_regular
from neardup_gui.io.sidecar import SIDECAR_COLUMNS, apply_sidecar, check_unique_ids
from neardup_gui.io.walk import (
    CorpusError,
    WalkEntry,
    display_path,
    file_stamp,
    fs_path,
    make_doc_id,
    stat_quiet,
    walk_folder,
)

if TYPE_CHECKING:  # io.carry imports io.session, which this module need not load
    from neardup_gui.io.carry import CarriedRows

__all__ = [
    "CHECK_SHARE_MIN",
    "DEFAULT_INCLUDE",
    "SIDECAR_COLUMNS",
    "BinaryContentError",
    "CorpusError",
    "KnownFile",
    "KnownFiles",
    "LoadedCorpus",
    "SourceTexts",
    "TextUnavailable",
    "UndecodableError",
    "check_integrity",
    "check_share_pays",
    "decode_bytes",
    "detect_binary",
    "make_doc_id",
    "plausibility",
    "read_document_text",
    "scan_folder",
]

DEFAULT_INCLUDE: tuple[str, ...] = ("*.txt", "*.md")
DEFAULT_VERSION = "v1"


# Statuses a rescan may take over from an earlier scan without reading the file again (each
# comes from the file's bytes alone; ``unreadable`` may be passing, ``too_large`` is not read).
TRUSTABLE_STATUSES = frozenset({STATUS_OK, STATUS_EMPTY, STATUS_BINARY, STATUS_UNDECODABLE, STATUS_NO_TEXT_LAYER})
# A file whose modification or change time is this close to the start of the scan that read it
# (or later) is read again next time: a write in the same clock tick as that read, leaving the
# size alone, would not move its times (file systems stamp times from a coarse clock; FAT's is
# two seconds).
SETTLE_NS = 2_000_000_000


class KnownFile(NamedTuple):
    """How an earlier scan found one file, and the ``file_stamp`` it had then.

    A rescan takes the row over without opening the file when the file's stamp is still the same
    (see ``scan_folder``'s ``known``). ``size`` is ``stamp[0]``: a file gets a stamp only when the
    bytes read were as many as the size it had when opened.
    """

    stamp: tuple[int, ...]
    status: str
    message: str
    size: int
    mtime: float
    sha256: str
    encoding: str
    chars: int
    extractor: str = PLAIN_TEXT


# Rows per call when ``KnownFiles`` converts between Python objects and arrays (see ``give_way``).
_COLUMN_SLICE = 8192


class KnownFiles(Mapping[str, KnownFile]):
    """path -> ``KnownFile`` of an earlier scan, held as columns (what the prepare cache stores).

    A rescan finds which files still have their stamp with one lookup per path and a comparison of
    arrays (``unchanged``), and takes their rows over as plain tuples (``row``): no ``KnownFile``
    is made per file (100,000 of them took ~0.4 s of the interpreter on the thread that loads the
    cache, while the folder was walked; the walk waited for it).

    Attributes:
        paths: The files, in the stored order.
        times: int64 ``(n, 3)``: size, modification and change times (ns) of each stamp.
        inodes: uint64 ``(n, 2)``: inode and device of each stamp.
    """

    def __init__(
        self,
        paths: list[str],
        times: np.ndarray,
        inodes: np.ndarray,
        status: list[str],
        messages: Mapping[int, str],
        mtimes: list[float],
        shas: list[str],
        encodings: list[str],
        chars: list[int],
        extractors: list[str],
    ) -> None:
        n = len(paths)
        columns = (status, mtimes, shas, encodings, chars, extractors)
        if times.shape != (n, 3) or inodes.shape != (n, 2) or any(len(c) != n for c in columns):
            raise ValueError("the known files' columns disagree in length")
        self.paths = paths
        self.times, self.inodes = times.astype(np.int64, copy=False), inodes.astype(np.uint64, copy=False)
        self._status, self._messages, self._mtimes = status, dict(messages), mtimes
        self._shas, self._encodings, self._chars, self._extractors = shas, encodings, chars, extractors
        # The last screen's manifest lines and session digests of these rows (``io.carry``), when stored.
        self.carried: CarriedRows | None = None
        self._index: dict[str, int] = {}
        for part in slices_giving_way(zip(paths, range(n)), _COLUMN_SLICE):  # one call: 10-20 ms of GIL
            self._index.update(part)
        self._sizes: list[int] = self.times[:, 0].tolist()
        # Rows that can be taken over at all: a SHA-256 and a status that comes from the bytes alone.
        self._takeable = np.fromiter((bool(h) and st in TRUSTABLE_STATUSES for h, st in zip(shas, status)),
                                     dtype=bool, count=n)  # fmt: skip

    @classmethod
    def of(cls, known: Mapping[str, KnownFile]) -> KnownFiles:
        """``known`` as columns (itself when it is already); rows whose stamp is not a ``file_stamp``
        (five values) are left out: no file could match them."""
        if isinstance(known, KnownFiles):
            return known
        kept = [(p, r) for p, r in known.items() if len(r.stamp) == 5]
        paths, rows = [p for p, _ in kept], [r for _, r in kept]
        stamps = [r.stamp for r in rows]
        return cls(
            paths,
            np.array([s[:3] for s in stamps], dtype=np.int64).reshape(-1, 3),
            np.array([s[3:] for s in stamps], dtype=np.uint64).reshape(-1, 2),
            [r.status for r in rows], {i: r.message for i, r in enumerate(rows) if r.message},
            [r.mtime for r in rows], [r.sha256 for r in rows], [r.encoding for r in rows],
            [r.chars for r in rows], [r.extractor for r in rows],
        )  # fmt: skip

    def __getitem__(self, path: str) -> KnownFile:
        i = self._index[path]
        return KnownFile((*self.times[i].tolist(), *self.inodes[i].tolist()), *self.row(i))

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)

    def unchanged(self, paths: Sequence[str], stamps: Sequence[tuple[int, ...] | None], max_bytes: int) -> list[int]:
        """Per path, the index of its row when that row may be taken over without reading the file
        (the stamp it had then is ``stamps``' one, it has a SHA-256 and a trustable status, and
        it is not over ``max_bytes``), else -1."""
        at = np.fromiter((self._index.get(p, -1) for p in paths), dtype=np.int64, count=len(paths))
        # Paths known, with a ``file_stamp`` now (a walk that did not stat a file gives None).
        have = np.asarray([j for j in np.flatnonzero(at >= 0).tolist() if stamps[j] is not None], dtype=np.int64)
        rows = at[have]
        at[:] = -1
        # The walk's stamps as arrays, a slice per call (one call over 100,000 tuples held the GIL
        # 20-40 ms, and a window waiting for it).
        times, inodes = np.empty((have.size, 3), dtype=np.int64), np.empty((have.size, 2), dtype=np.uint64)
        for lo in range(0, have.size, _COLUMN_SLICE):
            give_way()
            got = [stamps[j] for j in have[lo : lo + _COLUMN_SLICE].tolist()]
            try:  # one conversion (inode and device numbers below 2**63, as nearly always)
                both = np.array(got, dtype=np.int64).reshape(-1, 5)
                times[lo : lo + len(got)] = both[:, :3]
                inodes[lo : lo + len(got)] = both[:, 3:].view(np.uint64)
            except OverflowError:
                times[lo : lo + len(got)] = [s[:3] for s in got]
                inodes[lo : lo + len(got)] = [s[3:] for s in got]
        same = self._takeable[rows] & (self.times[rows, 0] <= max_bytes)
        same &= (times == self.times[rows]).all(axis=1) & (inodes == self.inodes[rows]).all(axis=1)
        at[have[same]] = rows[same]
        return at.tolist()

    def row(self, i: int) -> tuple[Any, ...]:
        """Row ``i``'s manifest values: ``(status, message, size, mtime, sha256, encoding, chars,
        extractor)``."""
        return (self._status[i], self._messages.get(i, ""), self._sizes[i], self._mtimes[i], self._shas[i],
                self._encodings[i], self._chars[i], self._extractors[i])  # fmt: skip

    def rows(self, indexes: Sequence[int]) -> list[tuple[Any, ...]]:
        """``[row(i) for i in indexes]``, made column by column in C."""
        if len(indexes) < 2:
            return [self.row(i) for i in indexes]
        pick = operator.itemgetter(*indexes)
        messages = map(self._messages.get, indexes, itertools.repeat(""))
        return list_giving_way(zip(pick(self._status), messages, pick(self._sizes), pick(self._mtimes),
                                   pick(self._shas), pick(self._encodings), pick(self._chars),
                                   pick(self._extractors)))  # fmt: skip

    def release(self) -> None:
        """Empty the per-file columns giving way (``empty_giving_way``): freed at once, 100,000 paths
        and hashes hold the interpreter (and a window waiting for it)."""
        for column in (self._index, self.paths, self._shas, self._sizes, self._status, self._mtimes, self._chars,
                       self._encodings, self._extractors):  # fmt: skip
            empty_giving_way(column)


class TextUnavailable(KeyError):
    """A text not held in memory (the scan took the file over unread, or let the text go) cannot
    be read now as it was: the file is gone, unreadable, or no longer has the recorded SHA-256."""


# Characters of extracted texts (Word, web pages, PDF) a screen that lets the texts go keeps
# (``SourceTexts.forget``): ~100 MB of strings; past it they are extracted again when paired.
KEEP_EXTRACTED_CHARS = 50_000_000
# Characters of texts ``SourceTexts.forget`` lets go of from which it gives their memory back to
# the system (~2-4 MB; less is not worth a thread).
GIVE_BACK_CHARS = 1_000_000


class SourceTexts(Mapping[str, str]):
    """doc_id -> raw text of every usable document of a scan.

    Holds the texts the scan read; the texts of files taken over unchanged from an earlier scan,
    and every text after ``forget``, are read on first use (``read_document_text``: read-only,
    checked against the recorded SHA-256) and kept. A file that cannot be read so raises ``TextUnavailable`` (a ``KeyError``,
    so ``get`` gives its default) and is listed in ``failures``; the ``lenient`` view gives ""
    for it instead, so an engine stage never stops on it (the run then reports the file as
    changed). Safe to use from several threads (a text may be read twice, never wrongly).
    """

    def __init__(
        self,
        root: Path,
        read: dict[str, str],
        later: Mapping[str, Document] | None = None,
        *,
        docs: Mapping[str, Document] | None = None,
        _lenient: bool = False,
        _shared: tuple[dict[str, Document], dict[str, str], dict[str, Document]] | None = None,
        _keep: bool = True,
    ) -> None:
        self.root = root
        self._read = read
        if _shared is None:
            _shared = (dict(later or {}), {}, dict(docs if docs is not None else later or {}))
        self._later, self.failures, self._docs = _shared
        self._lenient = _lenient
        self._keep = _keep

    def __getitem__(self, doc_id: str) -> str:
        text = self._read.get(doc_id)
        if text is not None:
            return text
        doc = self._later.get(doc_id)
        if doc is None:
            text = self._read.get(doc_id)  # read by another thread meanwhile
            if text is None:
                raise KeyError(doc_id)
            return text
        if doc.path not in self.failures:
            try:
                text = read_document_text(self.root, doc)
            except (OSError, CorpusError, ValueError) as exc:  # ValueError: no longer decodes as recorded
                self.failures[doc.path] = str(exc) or type(exc).__name__
            else:
                if self._keep:
                    self._read[doc_id] = text  # before it leaves ``_later``: always found in one
                    self._later.pop(doc_id, None)
                return text
        if self._lenient:
            return ""
        raise TextUnavailable(doc_id)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._read or doc_id in self._later

    def __iter__(self) -> Iterator[str]:
        yield from list(self._read)
        yield from [d for d in list(self._later) if d not in self._read]

    def __len__(self) -> int:
        return len(self._read) + sum(1 for d in list(self._later) if d not in self._read)

    @property
    def unread(self) -> int:
        """Texts not read yet."""
        return len(self._later)

    @property
    def held_chars(self) -> int:
        """Characters of the texts held (read, and not forgotten since)."""
        return sum(map(len, list(self._read.values())))

    def forget(self, keep_extracted: int = KEEP_EXTRACTED_CHARS) -> None:
        """Drop the texts read so far; each is read again (and checked) when next asked for.

        For a large screen once every document is queued for preparing (each batch holds its own
        texts until it is done): verification needs the texts of the paired documents only, and
        holding all of them made most of the peak memory. Texts extracted from Word files, web
        pages and PDFs are kept, in manifest order, up to ``keep_extracted`` characters in all:
        extracting one again costs 10-300 plain files' reading (``read_weight``: a PDF ~9 ms), and
        ~13 % of a large folder's files are read again for their pairs.

        The memory they held goes back to the system (``core.memory.give_back_soon``): glibc keeps
        freed blocks otherwise, and a window that let a 100,000-file result's texts go after its
        screen stayed ~110 MB larger at rest.
        """
        kept = dropped = 0
        for doc_id, doc in self._docs.items():
            text = self._read.get(doc_id)
            if text is None:
                continue
            if doc.extractor != PLAIN_TEXT and kept + len(text) <= keep_extracted:
                kept += len(text)
                continue
            self._later[doc_id] = doc  # before it leaves ``_read``: always found in one
            self._read.pop(doc_id, None)
            dropped += len(text)
        text = None  # (the last one, freed before the trim)
        if dropped >= GIVE_BACK_CHARS:
            give_back_soon()

    def lenient(self) -> SourceTexts:
        """A view of the same texts that gives "" for a text that cannot be read (see above)."""
        return SourceTexts(self.root, self._read, _lenient=True, _shared=(self._later, self.failures, self._docs))

    def passing(self) -> SourceTexts:
        """``lenient``, and a text read from its file is given without being kept (a pass over
        many texts, e.g. normalized/ written after a large screen, holds none of them after)."""
        return SourceTexts(self.root, self._read, _lenient=True, _shared=(self._later, self.failures, self._docs),
                           _keep=False)  # fmt: skip


@dataclass(frozen=True)
class LoadedCorpus:
    """What a scan found.

    Attributes:
        root: Absolute, resolved source folder.
        documents: Every entry found, sorted by path; never drops a file silently.
        texts: doc_id -> raw decoded text, only for documents with status ``ok`` (a
            ``SourceTexts``: those of files taken over from ``known`` are read on first use).
        extra: doc_id -> the sidecar's extra columns (all but path, doc_id, source_id, version),
            only for documents named in the sidecar.
        stamps: path -> ``file_stamp`` of every file read or taken over, as the scan found it.
        trusted: Paths of the files taken over from ``known`` without being read.
        started_ns: When the scan started (``time.time_ns()``).
        known_at: path -> its row in ``known`` (``KnownFiles`` order), for the files in ``trusted``.
        carried: ``known``'s ``KnownFiles.carried`` (``io.carry.CarriedRows``: the last screen's
            manifest lines and session digests of those rows), or None.
    """

    root: Path
    documents: tuple[Document, ...]
    texts: Mapping[str, str]
    extra: dict[str, dict[str, str]] = field(default_factory=dict)
    stamps: dict[str, tuple[int, ...]] = field(default_factory=dict)
    trusted: frozenset[str] = frozenset()
    started_ns: int = 0
    known_at: Mapping[str, int] = field(default_factory=dict)
    carried: CarriedRows | None = None

    def counts(self) -> dict[str, int]:
        """Number of documents per status."""
        return dict(Counter(d.status for d in self.documents))

    def usable(self) -> tuple[Document, ...]:
        """The documents whose text was read (status ``ok``), in path order."""
        return tuple(d for d in self.documents if d.status == STATUS_OK)

    def settled_stamps(self) -> dict[str, tuple[int, ...]]:
        """path -> stamp of the files a stamp can vouch for: those taken over unread, and those read
        whose times are older than ``SETTLE_NS`` before the scan (``check_integrity``'s ``stamps``)."""
        limit = self.started_ns - SETTLE_NS
        # Whether each was taken over, mapped in C (nearly all of a rescan's); the others one by one.
        items = list(self.stamps.items())
        keep = list_giving_way(map(self.trusted.__contains__, self.stamps))
        for n in itertools.compress(range(len(keep)), map(operator.not_, keep)):
            s = items[n][1]
            keep[n] = s[1] < limit and s[2] < limit
        return dict_giving_way(itertools.compress(items, keep))

    def known_files(self) -> dict[str, KnownFile]:
        """The rows a later rescan may take over (``scan_folder``'s ``known``): every file read or
        taken over with a trustable status, except those written too close to this scan
        (``SETTLE_NS``)."""
        return {row[0]: KnownFile(*row[1:]) for row in self.known_rows()}

    def known_rows(self) -> list[tuple[Any, ...]]:
        """``known_files`` as plain tuples, ``(path, *KnownFile fields)``: what the prepare cache
        stores made without 100,000 ``KnownFile`` objects (0.1 s of their own inside a screen)."""
        return self.known_rows_at()[1]

    def known_rows_at(self) -> tuple[list[int], list[tuple[Any, ...]]]:
        """``known_rows``, and where each row's document is in ``documents``."""
        limit = self.started_ns - SETTLE_NS
        get = self.stamps.get
        out: list[tuple[Any, ...]] = []
        at: list[int] = []
        for n, d in enumerate(self.documents):
            stamp = get(d.path)
            status = STATUS_OK if d.status == STATUS_NO_SHINGLES else d.status
            if stamp is None or not d.sha256 or status not in TRUSTABLE_STATUSES:
                continue
            if stamp[1] >= limit or stamp[2] >= limit:
                continue
            out.append((d.path, stamp, status, d.message if status == d.status else "", d.size, d.mtime,
                        d.sha256, d.encoding, d.chars, d.extractor))  # fmt: skip
            at.append(n)
        return at, out


# ---------------------------------------------------------------------------
# Reading


@dataclass
class _ReadResult:
    status: str
    message: str
    size: int
    mtime: float
    sha256: str = ""
    encoding: str = ""
    chars: int = 0
    text: str | None = None
    extractor: str = PLAIN_TEXT
    stamp: tuple[int, ...] | None = None


@dataclass(frozen=True)
class _How:
    """What every reading thread needs besides the file: the size limit, extraction choices and
    the cancellation check (thread-safe: ``Progress.check`` only reads an event)."""

    max_bytes: int
    options: ExtractOptions = DEFAULT_OPTIONS
    check: Callable[[], None] = NULL_PROGRESS.check


# O_NONBLOCK: a file replaced by a pipe since the walk must not block the open (no effect on files).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
_NOATIME = getattr(os, "O_NOATIME", 0)
_READ_BATCH = 16  # files per task given to a reading thread


def _open_read_only(path: str) -> int:
    """Open for reading only; without updating the access time where the OS lets us."""
    if _NOATIME:
        try:
            return os.open(path, _OPEN_FLAGS | _NOATIME)
        except PermissionError:
            pass  # O_NOATIME needs file ownership; fall back to a plain read-only open
    return os.open(path, _OPEN_FLAGS)


def _too_large(max_bytes: int) -> str:
    return f"larger than the limit of {human_size(max_bytes)}; not read"


def _read_fd(fd: int, expected: int, max_bytes: int) -> bytes:
    """All bytes of an open file, at most ``max_bytes + 1`` (so growth past the limit shows).

    Reads the size ``fstat`` gave plus one byte in one call (a buffered ``read(max_bytes + 1)``
    allocates the whole limit for every file: 3x slower on small files), then goes on only if the
    file grew meanwhile.
    """
    want = min(expected, max_bytes) + 1
    chunks = [os.read(fd, want)]
    got = len(chunks[0])
    if got < want:  # a short read of a regular file is its end
        return chunks[0]
    while chunks[-1] and got <= max_bytes:
        chunks.append(os.read(fd, min(1 << 20, max_bytes + 1 - got)))
        got += len(chunks[-1])
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _read_file(path: str, name: str, how: _How) -> _ReadResult:
    """Read, hash and decode (or extract) one file. Never raises for a problem with the file itself.

    ``name`` (the entry's name, not a link's target) chooses the extractor by its suffix.
    """
    max_bytes = how.max_bytes
    try:
        fd = _open_read_only(path)
    except OSError as exc:
        size, mtime = stat_quiet(path)
        return _ReadResult(STATUS_UNREADABLE, f"could not be opened: {exc}", size, mtime)
    try:
        try:
            st = os.fstat(fd)
            size, mtime = st.st_size, st.st_mtime
            if not stat.S_ISREG(st.st_mode):  # replaced since the walk (which saw a file)
                return _ReadResult(STATUS_EXCLUDED, "not a regular file (device, pipe or socket)", 0, mtime)
            if size > max_bytes:
                message = f"{human_size(size)}, {_too_large(max_bytes)}"
                return _ReadResult(STATUS_TOO_LARGE, message, size, mtime)
            data = _read_fd(fd, size, max_bytes)
        finally:
            os.close(fd)
    except OSError as exc:
        return _ReadResult(STATUS_UNREADABLE, f"could not be read: {exc}", *stat_quiet(path))
    if len(data) > max_bytes:
        message = f"grew while being read; {_too_large(max_bytes)}"
        return _ReadResult(STATUS_TOO_LARGE, message, len(data), mtime)
    # The stamp as the file was opened: one written meanwhile has a later change time, so the
    # next rescan reads it again.
    stamp = file_stamp(st) if len(data) == size else None
    size = len(data)
    digest = hashlib.sha256(data).hexdigest()
    if not data:
        return _ReadResult(STATUS_EMPTY, "empty file (0 bytes)", size, mtime, digest, stamp=stamp)
    got = extract_document(data, name, how.options, how.check)
    if got is not None:
        return _ReadResult(got.status, got.message, size, mtime, digest, got.encoding, got.chars,
                           got.text, got.extractor, stamp)  # fmt: skip
    try:
        text, encoding = decode_bytes(data)
    except BinaryContentError as exc:
        return _ReadResult(STATUS_BINARY, f"binary data: {exc}", size, mtime, digest, stamp=stamp)
    except UndecodableError as exc:
        return _ReadResult(STATUS_UNDECODABLE, str(exc), size, mtime, digest, stamp=stamp)
    result = _ReadResult(STATUS_OK, "", size, mtime, digest, encoding, len(text), stamp=stamp)
    if not text.strip():
        result.status = STATUS_EMPTY
        result.message = (
            "only a byte-order mark" if not text else f"only whitespace ({len(text)} characters)"
        )
    else:
        result.text = text
    return result


def _read_batch(files: Sequence[tuple[str, str]], how: _How) -> list[_ReadResult]:
    return [_read_file(path, name, how) for path, name in files]


def _chunks(files: Sequence[tuple[str, str]]) -> list[Sequence[tuple[str, str]]]:
    """Cut the files into batches of about ``_READ_BATCH`` plain files; a file read through an
    extractor (often 10-100x slower) counts as a whole batch, so progress keeps moving."""
    out: list[Sequence[tuple[str, str]]] = []
    start = weight = 0
    for i, (_, name) in enumerate(files):
        weight += _READ_BATCH if extractor_for(name) else 1
        if weight >= _READ_BATCH:
            out.append(files[start : i + 1])
            start, weight = i + 1, 0
    if start < len(files):
        out.append(files[start:])
    return out


def _read_all(
    files: list[tuple[str, str]], how: _How, workers: int, progress: Progress
) -> list[_ReadResult]:
    """Read ``(path, name)`` files in a small thread pool; results in the order of ``files``.

    Files go to the threads in batches: one future per small file cost more than the reading
    itself (10,000 files of 1-4 KB: 0.97 s with per-file futures on 2 threads, 0.75 s in one).
    """
    total = len(files)
    progress.report("read", 0, total)
    results: list[_ReadResult] = []
    if workers <= 1:
        for path, name in files:
            progress.check()
            results.append(_read_file(path, name, how))
            progress.report("read", len(results), total)
        return results
    chunks = _chunks(files)
    window = workers * 4  # bounded look-ahead keeps memory flat and cancelling quick
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="neardup-read")
    try:
        pending: list[Future[list[_ReadResult]]] = []
        next_chunk = 0
        while len(results) < total:
            progress.check()
            while next_chunk < len(chunks) and len(pending) < window:
                pending.append(pool.submit(_read_batch, chunks[next_chunk], how))
                next_chunk += 1
            results.extend(pending.pop(0).result())
            progress.report("read", len(results), total)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return results


# From this many files to read, on two or more cores, ``scan_folder(read_helper=True)`` has a
# spawned process read a share of them: reading holds the GIL (threads do not help: measured 2x
# slower), so one more process is the way to the second core. Its start-up (~0.3 s: an interpreter
# and the reading modules) and taking in what it read (~5 us a file here, against ~30 us to read
# one) must be paid for by the files it reads: at 20,000 files it did not (0.75-0.95 s either
# way), at 100,000 it saves ~1.1 s of ~4.5 (scan_folder, warm page cache).
READ_HELPER_MIN_FILES = 30_000
_HELPER_CHUNK = 256  # plain files per claim; both processes take chunks from one shared counter
# A file read through an extractor counts as this many plain ones (~30 us each), as measured per
# file by bench/bench_formats.py (2,000 articles): a .docx ~0.3-0.7 ms, a web page ~1.2 ms, a PDF
# ~9 ms. A few hundred PDFs then have the helper's second core (and smaller chunks, so that
# neither process is left reading the last large one alone).
_READ_WEIGHT = {"docx": 10, "html": 40, "pdf": 300}
_HELPER_MIN_CHUNK = 4

log = logging.getLogger(__name__)


def read_weight(name: str) -> int:
    """What reading the file ``name`` costs, in plain files' worth (see ``_READ_WEIGHT``)."""
    extractor = extractor_for(name)
    return 1 if extractor is None else _READ_WEIGHT.get(extractor.format, 1)


def read_helper_pays(work: int) -> bool:
    """Whether a reading helper process is worth starting for ``work`` plain files' worth of
    reading (``read_weight`` of each file) on this machine."""
    return work >= READ_HELPER_MIN_FILES and usable_cores() >= 2


def _claim(counter) -> int:
    with counter.get_lock():
        c = int(counter.value)
        counter.value = c + 1
    return c


def _read_chunk(files: Sequence[tuple[str, str]], c: int, size: int, how: _How) -> list[_ReadResult]:
    """Read chunk ``c`` (``size`` files) of ``files``."""
    return [_read_file(path, name, how) for path, name in files[c * size : (c + 1) * size]]


# A chunk's texts cross the pipe as one UTF-16 string: a 1,500-character Chinese text is encoded
# and decoded in ~4.5 us, against ~7.4 us as UTF-32 and ~8.2 us as UTF-8 (what pickle uses for a
# str), and it is 2 bytes a character (UTF-32: 4, UTF-8: 3). UTF-16 cannot tell a lone high
# surrogate followed by a lone low one from the character the pair encodes: a chunk whose texts
# hold any surrogate code point (a strict encode refuses it) goes as UTF-32 with surrogatepass
# instead, every code point exactly.
_WIRE, _WIRE_EXACT = "utf-16-le", "utf-32-le"


def _pack_chunk(results: list[_ReadResult]) -> tuple[list[tuple], bytes, str]:
    rows = [
        (r.status, r.message, r.size, r.mtime, r.sha256, r.encoding, r.chars, r.extractor, r.stamp,
         -1 if r.text is None else len(r.text))
        for r in results
    ]  # fmt: skip
    joined = "".join(r.text for r in results if r.text is not None)
    try:
        return rows, joined.encode(_WIRE), _WIRE
    except UnicodeEncodeError:
        return rows, joined.encode(_WIRE_EXACT, "surrogatepass"), _WIRE_EXACT


def _unpack_chunk(rows: list[tuple], wire: bytes, wire_encoding: str) -> list[_ReadResult]:
    joined = wire.decode(wire_encoding, "strict" if wire_encoding == _WIRE else "surrogatepass")
    out = []
    at = 0
    for status, message, size, mtime, sha, encoding, chars, extractor, stamp, length in rows:
        text = None
        if length >= 0:
            text = joined[at : at + length]
            at += length
        out.append(_ReadResult(status, message, size, mtime, sha, encoding, chars, text, extractor, stamp))
    return out


def _helper_reads(paths: str, names: str, size: int, max_bytes: int, options: ExtractOptions, counter, out) -> None:
    """The reading helper process: claims chunks of ``size`` files (``paths`` and ``names`` joined
    by NUL) until none is left, and puts each chunk's results on ``out`` as ``(chunk, rows, texts,
    how the texts are encoded)`` (``_pack_chunk``); then ``None``."""
    files = list(zip(paths.split("\0"), names.split("\0")))
    how = _How(max_bytes, options)
    chunks = -(-len(files) // size)
    while (c := _claim(counter)) < chunks:
        out.put((c, *_pack_chunk(_read_chunk(files, c, size, how))))
    out.put(None)


def _helper_main(jobs, target: Callable[..., None], counter, out) -> None:
    """The reading helper process: waits for its files (``target``'s first arguments), then runs
    ``target`` on them."""
    target(*jobs.get(), counter, out)


class _ReadHelper:
    """The reading helper process of ``_read_with_helper``, which can be started before the files
    to read are known: ``scan_folder`` starts it once the walk has found enough entries, so that
    its start-up (~0.2 s: an interpreter and the reading modules) overlaps the rest of the walk;
    the files go to it with ``send``. ``close`` ends it, whether it read or not. It runs
    ``_helper_reads`` (as this module names it when the helper is made: a test gives one that fails)."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")  # never fork: the caller may have threads (a window)
        self.counter = ctx.Value("q", 0)
        self.out = ctx.Queue()
        self._jobs = ctx.Queue()  # put() returns at once: a thread of the queue's writes the pipe
        self.process = ctx.Process(target=_helper_main, args=(self._jobs, _helper_reads, self.counter, self.out),
                                   name="neardup-read-helper", daemon=True)  # fmt: skip
        self.started: Future[None] = Future()
        self.finished = False  # it sent its last chunk
        self._closed = False

    def start(self) -> None:
        """Start the process on a thread (``start()`` waits for the new interpreter to take its
        arguments); ``started`` tells how that went."""

        def start() -> None:
            try:
                self.process.start()
                self.started.set_result(None)
            except BaseException as exc:  # e.g. no interpreter to spawn: this process reads it all
                self.started.set_exception(exc)

        threading.Thread(target=start, name="neardup-read-helper-start", daemon=True).start()

    def send(self, files: list[tuple[str, str]], size: int, how: _How) -> None:
        """Give it the files to read, ``size`` to a chunk."""
        paths, names = "\0".join(p for p, _ in files), "\0".join(n for _, n in files)
        self._jobs.put((paths, names, size, how.max_bytes, how.options))

    def close(self) -> None:
        """End the process: stopped unless it has sent its last chunk (it was given nothing to
        read, a cancel, a failure; it writes nothing anywhere). Again: nothing more."""
        if self._closed:
            return
        self._closed = True
        try:
            self.started.result()
        except BaseException:
            pass
        else:
            if not self.finished:
                self.process.terminate()
            self.process.join(timeout=10)
        for q in (self.out, self._jobs):
            q.close()
            q.cancel_join_thread()


def _read_with_helper(
    files: list[tuple[str, str]],
    how: _How,
    progress: Progress,
    arrived: Callable[[int, list[_ReadResult]], None] | None = None,
    helper: _ReadHelper | None = None,
) -> list[_ReadResult]:
    """``_read_all`` with a spawned helper process reading alongside: both claim chunks of files
    from one shared counter, so each reads as fast as it can. Results in the order of ``files``,
    the same as read here alone. A helper that cannot start, or dies, leaves its chunks to this
    process; a cancel stops it at once (it is terminated; it writes nothing anywhere). ``helper``
    is one already started (``scan_folder`` starts it during the walk), else one is started here;
    it is closed here either way.

    ``arrived(first, results)`` is called here with each chunk's results as they come in (from
    either process; ``first`` is the index in ``files`` of the chunk's first file): work done
    there leaves this process fewer chunks to claim, so the helper reads more of them instead of
    waiting for this process at the end."""
    total = len(files)
    work = sum(read_weight(name) for _path, name in files)
    size = min(_HELPER_CHUNK, max(_HELPER_MIN_CHUNK, _HELPER_CHUNK * total // max(work, 1)))
    chunks = -(-total // size)
    progress.report("read", 0, total)
    if helper is None:
        helper = _ReadHelper()
        helper.start()
    counter, out = helper.counter, helper.out
    results: list[list[_ReadResult] | None] = [None] * chunks
    done = 0

    def got(c: int, part: list[_ReadResult]) -> None:
        nonlocal done
        results[c] = part
        done += len(part)
        if arrived is not None:
            arrived(c * size, part)

    def take(item) -> None:
        if item is None:
            helper.finished = True
        else:
            got(item[0], _unpack_chunk(*item[1:]))

    try:
        helper.send(files, size, how)  # it reads them once it is up; this process starts now
        while (c := _claim(counter)) < chunks:
            progress.check()
            got(c, _read_chunk(files, c, size, how))
            while not helper.finished:  # what the helper has sent meanwhile (its pipe must not fill up)
                try:
                    take(out.get_nowait())
                except queue.Empty:
                    break
            progress.report("read", done, total)
        try:
            helper.started.result()
        except BaseException:
            log.warning("reading helper could not start; reading in one process", exc_info=True)
        else:
            while not helper.finished:  # the helper's last chunks
                progress.check()
                try:
                    take(out.get(timeout=0.05))
                except queue.Empty:
                    if not helper.process.is_alive() and out.empty():
                        log.warning("reading helper stopped early (exit code %s); reading its files here",
                                    helper.process.exitcode)  # fmt: skip
                        break
                progress.report("read", done, total)
        for c in range(chunks):  # chunks a helper that failed had claimed
            if results[c] is None:
                progress.check()
                got(c, _read_chunk(files, c, size, how))
                progress.report("read", done, total)
    finally:
        helper.close()
    return [r for part in results for r in part or ()]


class _EarlyHelper:
    """The walk's progress, passed through; starts a reading helper (``helper``) once the walk has
    found ``at`` entries: a folder that large likely has that many files to read, and the helper's
    start-up then overlaps the rest of the walk."""

    def __init__(self, progress: Progress, at: int) -> None:
        self._progress, self._at = progress, at
        self.helper: _ReadHelper | None = None

    def report(self, stage: str, done: int, total: int) -> None:
        if self.helper is None and done >= self._at:
            self.helper = _ReadHelper()
            self.helper.start()
        self._progress.report(stage, done, total)

    def check(self) -> None:
        self._progress.check()


class _ManifestRows:
    """The manifest row of each walk entry, made from its read result, its known row taken over
    unread, or its status alone (None); with what the scan keeps of them besides."""

    _fields = operator.attrgetter("status", "message", "size", "mtime", "sha256", "encoding", "chars", "extractor")

    # A row's fields but its path, compared with those of a row the caller holds (``held_rows``)
    _same = operator.attrgetter("doc_id", "source_id", "version", "size", "mtime", "sha256", "encoding", "chars",
                                "status", "message", "extractor")  # fmt: skip

    def __init__(
        self,
        entries: list[WalkEntry],
        shown: list[tuple[str, bool]],
        keep_text: Callable[[str], bool] | None = None,
        held: Mapping[str, Document] | None = None,
    ) -> None:
        self._entries, self._shown, self._keep_text = entries, shown, keep_text
        self._held = held
        self._made: list[Document | None] = [None] * len(entries)
        self._sources: dict[str, str] = {}  # a few folder names, each shown once
        self.stamps: dict[str, tuple[int, ...]] = {}  # path -> stamp when read or taken over
        self.texts: dict[str, str] = {}  # path -> text read
        self.trusted: set[str] = set()  # paths taken over unread

    def add(self, n: int, r: _ReadResult) -> None:
        """Make entry ``n``'s row now (as its read result comes in)."""
        self._made[n] = self._row(self._entries[n], *self._shown[n], r)

    def all(self, found: list[tuple[Any, ...] | _ReadResult | None]) -> list[Document]:
        """Every entry's row, in walk order: those not made yet from ``found`` (per entry)."""
        return [
            d if d is not None else self._row(e, path, renamed, r)
            for d, e, (path, renamed), r in zip(self._made, self._entries, self._shown, found)
        ]

    def _row(self, e: WalkEntry, path: str, renamed: bool, r: tuple[Any, ...] | _ReadResult | None) -> Document:
        note = "file name is not valid UTF-8 (bytes shown as \\xNN)" if renamed else ""
        if r is None:
            status, message, size, mtime = e.status, e.message, e.size, e.mtime
            sha, enc, chars, extractor = "", "", 0, PLAIN_TEXT
        elif type(r) is tuple:  # a known row taken over unread (``KnownFiles.row``): its stamp is the walk's
            status, message, size, mtime, sha, enc, chars, extractor = r
            assert e.stamp is not None
            self.stamps[path] = e.stamp
            self.trusted.add(path)
        else:
            status, message, size, mtime, sha, enc, chars, extractor = self._fields(r)
            if r.stamp is not None:
                self.stamps[path] = r.stamp
            if r.text is not None:
                if self._keep_text is None or extractor != PLAIN_TEXT or self._keep_text(sha):
                    self.texts[path] = r.text
                else:  # (the read result itself is held until the scan ends)
                    r.text = None
        if note and note not in message:
            message = "; ".join(m for m in (message, note) if m)
        source_id = self._sources.get(e.source_id)
        if source_id is None:
            source_id = self._sources[e.source_id] = display_path(e.source_id)[0]
        doc_id = make_doc_id(path)
        if self._held is not None:
            held = self._held.get(path)
            if held is not None and self._same(held) == (doc_id, source_id, DEFAULT_VERSION, size, mtime, sha, enc,
                                                         chars, status, message, extractor):  # fmt: skip
                return held  # the same row: not made again
        return document(doc_id, source_id, DEFAULT_VERSION, path, size, mtime, sha, enc, chars, status, message,
                        extractor)  # fmt: skip


# ---------------------------------------------------------------------------
# Public entry points


def scan_folder(
    root: Path | str,
    *,
    include: Sequence[str] = DEFAULT_INCLUDE,
    exclude: Sequence[str] = (),
    max_bytes: int = 20 * 1024 * 1024,
    sidecar: Path | None = None,
    progress: Progress = NULL_PROGRESS,
    workers: int = 1,
    extract_options: ExtractOptions = DEFAULT_OPTIONS,
    known: Mapping[str, KnownFile] | Callable[[], Mapping[str, KnownFile] | None] | None = None,
    read_helper: bool = False,
    keep_text: Callable[[str], bool] | None = None,
    held_rows: Mapping[str, Document] | None = None,
) -> LoadedCorpus:
    """Walk ``root`` read-only and return one manifest row per entry plus the usable texts.

    Args:
        root: The source folder.
        include: Glob patterns (case-insensitive) a file's name or ``/``-separated relative path
            must match to be read. ``*`` also crosses ``/`` in the path. A file read whose suffix
            has an extractor (``*.docx``, ``*.html``/``*.htm``, ``*.pdf``, see
            :mod:`neardup_gui.io.extract`) is read through it; every other file as plain text.
        exclude: Glob patterns that exclude matching files, and folders (not descended into).
        max_bytes: Files larger than this many bytes get status ``too_large`` and are not read.
        sidecar: Optional CSV with a ``path`` column and any of ``doc_id``, ``source_id``,
            ``version``, plus extra columns returned in ``LoadedCorpus.extra``.
        progress: Receives ``report("read", done, total)``; ``check()`` may raise ``Cancelled``.
        workers: Threads reading, hashing, decoding and extracting (1 = in the calling thread, the
            default: on 2 cores two threads measured 2x slower for 10,000 cached files, decoding
            holds the GIL; more threads can pay on a slow network share).
        extract_options: What extractors include (e.g. .docx headers and footers).
        known: path -> how an earlier scan with the same ``max_bytes`` and ``extract_options``
            found the file (``LoadedCorpus.known_files``, or the ``KnownFiles`` columns the
            prepare cache gives). A file whose ``file_stamp`` is still the same is not opened:
            its row is taken over (SHA-256 included) and its text is read only if asked for
            (``SourceTexts``). Paths listed in ``LoadedCorpus.trusted``. May be a function giving
            it (or None), called once the folder is walked: the caller can load it meanwhile.
        read_helper: With ``workers=1``, from ``READ_HELPER_MIN_FILES`` files to read on two or
            more cores, a spawned process reads a share of them (the same results). Off by
            default: a spawned process imports the caller's main module again, so only programs
            whose main module is guarded (``if __name__ == "__main__"``) may turn it on.
        keep_text: Given a file's SHA-256, whether to keep the plain text read (default: all):
            one not kept is read again, and checked, if asked for (``SourceTexts``), as the text
            of a file taken over unread is. A rescan that reads every file keeps only those the
            prepare cache does not hold (the others are wanted for their pairs only).
        held_rows: Manifest rows the caller holds, by path (the window's result shown): a file
            whose row would be equal to one of them gets that very row, not a new one (at 100,000
            files ~35 MB less while both results are held).

    Returns:
        A ``LoadedCorpus`` with documents sorted by path.

    Raises:
        CorpusError: ``root`` is missing or not a folder; the sidecar is unreadable, lacks a
            ``path`` column or names unknown paths; two documents share a doc_id.
        Cancelled: ``progress.check()`` asked to stop. No thread is left running.
    """
    given = Path(root)
    if not given.exists():
        raise CorpusError(f"source folder not found: {given}")
    if not given.is_dir():
        raise CorpusError(f"source is not a folder: {given}")
    root_path = given.resolve()
    started_ns = time.time_ns()
    # Without an earlier scan to compare stamps with, files are stat'ed once they are open.
    stat_files = callable(known) or bool(known)
    # A first screen of a large folder (nothing known to compare with) starts the reading helper
    # while the walk goes on, once it has found READ_HELPER_MIN_FILES entries; it is stopped if
    # the files to read turn out fewer.
    early = (
        _EarlyHelper(progress, READ_HELPER_MIN_FILES)
        if read_helper and workers <= 1 and not known and usable_cores() >= 2
        else None
    )
    try:
        entries = walk_folder(root_path, tuple(include), tuple(exclude), early or progress, stat_files=stat_files)
        if callable(known):
            known = known()
        shown = _shown_paths(entries)
        # Per entry: its known row (a tuple) when taken over unread, its read result, or None (a status row).
        found: list[tuple[Any, ...] | _ReadResult | None] = [None] * len(entries)
        files = [n for n, e in enumerate(entries) if not e.status]
        to_read: list[int]
        known_at: dict[str, int] = {}  # path taken over unread -> its row in ``known``
        carried = None
        if known:
            columns = KnownFiles.of(known)
            taken = columns.unchanged([shown[n][0] for n in files], [entries[n].stamp for n in files], max_bytes)
            # The rows taken over made by columns (a loop making each row cost ~0.15 s at 100,000
            # files), each a slice per call (one call over them all kept a waiting window out).
            kept = list_giving_way(map(operator.ge, taken, itertools.repeat(0)))
            to_read = list_giving_way(itertools.compress(files, map(operator.not_, kept)))
            at = list_giving_way(itertools.compress(files, kept))
            rows_of = list_giving_way(itertools.compress(taken, kept))
            consume_giving_way(map(found.__setitem__, at, columns.rows(rows_of)))  # found[n] = its row
            known_at = dict_giving_way(zip(map(operator.itemgetter(0), map(shown.__getitem__, at)), rows_of))
            carried = columns.carried if known_at else None
            del columns, taken, kept, at, rows_of
        else:
            to_read = files
        rows = _ManifestRows(entries, shown, keep_text, held_rows)

        def arrived(first: int, part: list[_ReadResult]) -> None:
            # Rows made while the reading helper still reads: this process then claims fewer files
            # and the helper more, instead of it waiting while this process makes every row at the end.
            for f, r in enumerate(part, first):
                rows.add(to_read[f], r)

        how = _How(max_bytes, extract_options, progress.check)
        files = [(entries[n].fs_path, entries[n].rel.rsplit("/", 1)[-1]) for n in to_read]
        helped = read_helper and workers <= 1
        units = sum(read_weight(name) for _path, name in files) if helped or listens(progress) else 0
        # What the screen has ahead, as far as the listing tells (a progress that listens: core.estimate).
        if listens(progress):
            taken = len(known_at)
            plan_stages(progress, stage_seconds(files=len(entries), read_units=units, taken_over=taken,
                                                documents=len(to_read) + taken, cached=taken))  # fmt: skip
        if helped and read_helper_pays(units):
            helper = early.helper if early is not None else None
            results = _read_with_helper(files, how, progress, arrived=arrived, helper=helper)
        else:
            results = _read_all(files, how, workers, progress)
    finally:
        if early is not None and early.helper is not None:
            early.helper.close()  # not needed after all, or a failure (closed already when it read)
    for n, r in zip(to_read, results):
        found[n] = r
    del results
    documents = rows.all(found)
    documents.sort(key=_path_of)
    extra: dict[str, dict[str, str]] = {}
    if sidecar is not None:
        documents, extra = apply_sidecar(documents, Path(sidecar))
    check_unique_ids(documents)
    # Mapped over the documents' columns in C (a comprehension each: 30-60 ms at 100,000 files),
    # a slice per call as above.
    ids, paths = list_giving_way(map(_doc_id_of, documents)), list_giving_way(map(_path_of, documents))
    read = {i: rows.texts[p] for i, p in itertools.compress(zip(ids, paths), map(rows.texts.__contains__, paths))}
    usable = dict_giving_way(itertools.compress(zip(ids, documents), map(STATUS_OK.__eq__, map(_status_of, documents))))
    # Read when first asked for: the texts of files taken over unread, and those not kept.
    later = dict_giving_way(
        itertools.compress(usable.items(), map(operator.not_, map(rows.texts.__contains__, map(_path_of, usable.values()))))
    )
    del ids, paths
    texts = SourceTexts(root_path, read, later, docs=usable)
    corpus = LoadedCorpus(root_path, tuple(documents), texts, extra, rows.stamps, frozenset(rows.trusted), started_ns,
                          known_at, carried)  # fmt: skip
    # A row or more per file, emptied giving way: freed at once as this returned, they held the
    # interpreter 40-190 ms at 100,000 files (and a window waiting for it).
    for part in (entries, shown, found):
        empty_giving_way(part)
    return corpus


def _shown_paths(entries: list[WalkEntry]) -> list[tuple[str, bool]]:
    """``display_path`` of each entry's path: at once when every path is valid UTF-8 (the usual
    case: one encode of them all, 0.01 s at 100,000 files against 0.07 s one by one)."""
    rels = list_giving_way(map(_rel_of, entries))
    try:
        "\0".join(rels).encode("utf-8")
    except UnicodeEncodeError:
        return list(map(display_path, rels))
    return list_giving_way(zip(rels, repeat(False)))


_rel_of = operator.attrgetter("rel")


def check_integrity(
    root: Path | str,
    documents: Sequence[Document],
    progress: Progress = NULL_PROGRESS,
    stamps: Mapping[str, tuple[int, ...]] | None = None,
    share: Callable[..., Future[list[int]] | None] | None = None,
) -> list[tuple[str, str]]:
    """Re-stat and re-hash every file that was read; report what changed since the scan.

    Rows without a SHA-256 (excluded, too large, unreadable, links) are skipped. Files listed in
    ``stamps`` (``LoadedCorpus.settled_stamps``: their stamp when read or taken over) are stat'ed
    only: the same ``file_stamp`` means unchanged, as for a rescan; another one sends them
    through the full check (re-hashed).

    Args:
        root: The source folder that was scanned.
        documents: The manifest rows of that scan.
        progress: Reports stage ``check``; ``check()`` is called before the one-call stats and
            before each file stat'ed or hashed on its own (re-hashing 100,000 files takes
            seconds, and a cancel must not wait for it).
        stamps: path -> the stamp a file had when the scan read it or took it over.
        share: Runs a function in another process and returns its future, or None when it
            cannot (``core.helper.VerifyHelper.call``). From ``CHECK_SHARE_MIN`` files with a
            stamp, the second half of them are stat'ed there meanwhile; those whose stamp moved
            come back and get the full check here. The same result either way.

    Returns:
        ``[(relative path, what changed)]`` in the order of ``documents``, e.g.
        ``("a/b.txt", "size 120 -> 130")``, ``("x.txt", "missing")``,
        ``("y.txt", "content changed (SHA-256)")``. Empty when nothing changed.

    Raises:
        Cancelled: ``progress.check()`` asked to stop.
    """
    root_path = Path(root).resolve()
    root_text = str(root_path)
    stamps = stamps or {}
    changes: list[tuple[int, str, str]] = []
    total = len(documents)
    # Per document, as columns made and compared in C (map, numpy), not in a Python loop per
    # file (0.1-0.2 s less at 100,000 files): path, SHA-256 (none: not read, nothing to check),
    # stamp when read or taken over (none: checked in full).
    paths = list_giving_way(map(_path_of, documents))  # (a slice per call: a window may be waiting)
    given = list_giving_way(map(stamps.get, paths))
    read = np.fromiter(list_giving_way(map(bool, map(_sha_of, documents))), dtype=bool, count=total)
    stamped = read & np.fromiter(list_giving_way(map(operator.is_not, given, repeat(None))), dtype=bool, count=total)
    # One thread: small files are opened, read and hashed in ~23 µs each; two threads measured
    # 1.6x slower (10,000 files: 0.23 s against 0.37-0.43 s), the GIL passing back and forth.
    # Another process can take a share of the stats, though (~3 µs each, most of it Python; this
    # process makes its share in one call without the GIL where it can, io.fstat).
    cut, elsewhere = total, None
    if share is not None and len(stamps) >= CHECK_SHARE_MIN:
        cut = total // 2
        shared = (np.flatnonzero(stamped[cut:]) + cut).tolist()
        their_paths, their_stamps = [paths[n] for n in shared], [given[n] for n in shared]
        elsewhere = share(_stamps_moved, root_text, their_paths, their_stamps)
        if elsewhere is None:
            cut = total
    stamp_of = _Stamper(root_path, root_text)
    # This process's files stat'ed in one call without the GIL where it can be (io.fstat).
    progress.report("check", 0, total)
    progress.check()
    now = _stamps_now(root_text, paths, stamped, cut)
    # Settled: the stamp now is the one recorded, or the other process has the file. Left: files
    # read without a stamp (checked in full), files the one call could not stat (stat'ed one by
    # one below) and files whose stamp moved.
    settled = stamped.copy()
    settled[:cut] &= np.fromiter(list_giving_way(map(operator.eq, now, given)), dtype=bool, count=cut)
    look = np.flatnonzero(read & ~settled).tolist()
    try:
        for i, n in enumerate(look):
            if i % 512 == 0:
                progress.report("check", n, total)
            progress.check()
            stamp = given[n]
            if stamp is not None and now[n] is None and stamp_of(paths[n]) == stamp:
                continue
            what = _changed(root_path, root_text, documents[n])
            if what:
                changes.append((n, paths[n], what))
    finally:
        stamp_of.close()
    if elsewhere is not None:
        try:
            moved = [shared[i] for i in elsewhere.result()]
        except Exception:  # the other process failed: its share is stat'ed here
            log.warning("the other process could not check its share of the files; checking them here", exc_info=True)
            moved = [shared[i] for i in _stamps_moved(root_text, their_paths, their_stamps)]
        for n in moved:
            progress.check()
            what = _changed(root_path, root_text, documents[n])
            if what:
                changes.append((n, paths[n], what))
        changes.sort()
    progress.report("check", total, total)
    return [(path, what) for _, path, what in changes]


_path_of = operator.attrgetter("path")
_sha_of = operator.attrgetter("sha256")
_doc_id_of = operator.attrgetter("doc_id")
_status_of = operator.attrgetter("status")

# Files with a stamp from which ``check_integrity`` gives half of them to another process (100,000
# files: 0.41 s of stats here alone).
CHECK_SHARE_MIN = 20_000


def check_share_pays(stamped: int) -> bool:
    """Whether a process started only to take ``check_integrity``'s share pays for this many files
    with a stamp on this machine (its start-up takes ~0.2 s of a core that a rescan leaves idle;
    not where this process makes the stats in one call: 100,000 in ~0.2 s without the GIL, and a
    rescan measured no faster with that process)."""
    return stamped >= CHECK_SHARE_MIN and usable_cores() >= 2 and not batch_available()


def _stamps_now(root_text: str, paths: list[str], wanted: np.ndarray, cut: int) -> list[tuple[int, ...] | None]:
    """Per document before ``cut``: its ``file_stamp`` now, stat'ed in one call
    (``fstat.stamps_regular``), or None where that call did not say (not ``wanted``: no stamp to
    compare; a path shown with ``\\xNN``, a file gone or no longer regular, too few files, or no
    such call here): ``_Stamper`` then stats it on its own."""
    shown = np.fromiter(list_giving_way(map(operator.contains, paths[:cut], repeat("\\x"))), dtype=bool, count=cut)
    picks = np.flatnonzero(wanted[:cut] & ~shown).tolist()
    got = stamps_regular(root_text, [paths[n] for n in picks]) if len(picks) >= BATCH_MIN else None
    now: list[tuple[int, ...] | None] = [None] * cut
    if got is not None:
        consume_giving_way(map(now.__setitem__, picks, got))  # now[n] = stamp, in C
    return now


def _stamps_moved(root_text: str, paths: list[str], stamps: list[tuple[int, ...]]) -> list[int]:
    """Indexes of ``paths`` (relative to ``root_text``) whose ``file_stamp`` is no longer the
    one given, or that cannot be stat'ed (run in another process by ``check_integrity``)."""
    root_path = Path(root_text)
    stamp_of = _Stamper(root_path, root_text)
    try:
        return [i for i, (path, stamp) in enumerate(zip(paths, stamps)) if stamp_of(path) != stamp]
    finally:
        stamp_of.close()


class _Stamper:
    """``file_stamp`` of a file under the root by its relative path (None when it cannot be
    stat'ed). Where the system allows, stat'ed relative to a handle on the root opened once: no
    path joined per file (100,000 files: 0.28 against 0.39 s)."""

    def __init__(self, root_path: Path, root_text: str) -> None:
        self._root_path, self._root_text = root_path, root_text
        self._fd: int | None = None
        if os.stat in os.supports_dir_fd:
            try:
                self._fd = os.open(root_text, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            except OSError:
                self._fd = None

    def __call__(self, rel: str) -> tuple[int, ...] | None:
        try:
            if self._fd is not None and "\\x" not in rel:
                return file_stamp(os.stat(rel, dir_fd=self._fd))
            return file_stamp(os.stat(_file_path(self._root_path, self._root_text, rel)))
        except OSError:
            return None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _file_path(root_path: Path, root_text: str, rel: str) -> str:
    return os.path.join(root_text, rel) if "\\x" not in rel else str(fs_path(root_path, rel))


def _changed(root_path: Path, root_text: str, doc: Document) -> str:
    """What changed in one file since the scan ("" when nothing did)."""
    path = _file_path(root_path, root_text, doc.path)
    try:
        fd = _open_read_only(path)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        try:
            os.stat(path)
        except OSError:
            return f"cannot be examined: {exc}"
        return f"cannot be read: {exc}"
    try:
        st = os.fstat(fd)
        what: list[str] = []
        if st.st_size != doc.size:
            what.append(f"size {doc.size} -> {st.st_size}")
        if st.st_mtime != doc.mtime:
            what.append("modification time changed")
        try:
            digest = _sha256_fd(fd)
        except OSError as exc:
            what.append(f"cannot be read: {exc}")
        else:
            if digest != doc.sha256:
                what.append("content changed (SHA-256)")
    finally:
        os.close(fd)
    return "; ".join(what)


def read_document_text(root: Path | str, doc: Document) -> str:
    """Read one document's text again (e.g. for a review session reopened later), read-only.

    Plain files are decoded with the encoding the scan recorded; other formats are extracted
    again by the extractor the row names (``Document.extractor``), with the recorded encoding
    and options. Either way the text (and every offset into it) is the same as at scan time.

    Args:
        root: The source folder that was scanned.
        doc: Its manifest row; must have a SHA-256 and, for plain files, an encoding.

    Returns:
        The raw decoded or extracted text.

    Raises:
        CorpusError: The row has no text; the file's bytes no longer match its SHA-256; or the
            extractor now gives a different text (another library version than at scan time).
        OSError: The file cannot be opened or read.
    """
    plain = doc.extractor in ("", PLAIN_TEXT)
    if not doc.sha256 or (plain and not doc.encoding) or (not plain and not doc.chars):
        raise CorpusError(f"{doc.path} has no text to read (status {doc.status})")
    # A plain join unless the path shows escaped bytes (verification reads thousands of these).
    path = os.path.join(root, doc.path) if "\\x" not in doc.path else str(fs_path(Path(root), doc.path))
    fd = _open_read_only(path)
    try:
        data = _read_fd(fd, os.fstat(fd).st_size, sys.maxsize - 1)
    finally:
        os.close(fd)
    if hashlib.sha256(data).hexdigest() != doc.sha256:
        raise CorpusError(f"{doc.path} changed since it was scanned (SHA-256 differs)")
    if plain:
        return data.decode(doc.encoding)
    try:
        text = reextract(data, doc.extractor, doc.encoding)
    except ValueError as exc:
        raise CorpusError(f"{doc.path}: text could not be extracted again: {exc}") from exc
    if len(text) != doc.chars:
        raise CorpusError(
            f"{doc.path}: the text extracted now ({len(text)} characters) differs from the scan "
            f"({doc.chars}); it was extracted by {doc.extractor}"
        )
    return text


def _sha256_fd(fd: int) -> str:
    digest = hashlib.sha256()
    while block := os.read(fd, 1 << 20):
        digest.update(block)
    return digest.hexdigest()
