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

Files larger than ``max_bytes`` are stat'ed but neither read nor hashed (``sha256`` is ""): the
limit exists to bound work, and a multi-gigabyte file named ``.txt`` must not stall a scan.

Must not import Qt.
"""

from __future__ import annotations

import csv
import fnmatch
import hashlib
import os
import re
import stat
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.records import (
    STATUS_BINARY,
    STATUS_EMPTY,
    STATUS_EXCLUDED,
    STATUS_OK,
    STATUS_SKIPPED_LINK,
    STATUS_TOO_LARGE,
    STATUS_UNDECODABLE,
    STATUS_UNREADABLE,
    Document,
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
from neardup_gui.io.paths import is_inside

__all__ = [
    "DEFAULT_INCLUDE",
    "BinaryContentError",
    "CorpusError",
    "LoadedCorpus",
    "UndecodableError",
    "check_integrity",
    "decode_bytes",
    "detect_binary",
    "make_doc_id",
    "plausibility",
    "read_document_text",
    "scan_folder",
]

DEFAULT_INCLUDE: tuple[str, ...] = ("*.txt", "*.md")
DEFAULT_VERSION = "v1"
SIDECAR_COLUMNS = ("path", "doc_id", "source_id", "version")


class CorpusError(Exception):
    """The folder cannot be scanned as asked (missing folder, bad sidecar, duplicate doc_id)."""


@dataclass(frozen=True)
class LoadedCorpus:
    """What a scan found.

    Attributes:
        root: Absolute, resolved source folder.
        documents: Every entry found, sorted by path; never drops a file silently.
        texts: doc_id -> raw decoded text, only for documents with status ``ok``.
        extra: doc_id -> the sidecar's extra columns (all but path, doc_id, source_id, version),
            only for documents named in the sidecar.
    """

    root: Path
    documents: tuple[Document, ...]
    texts: dict[str, str]
    extra: dict[str, dict[str, str]] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """Number of documents per status."""
        return dict(Counter(d.status for d in self.documents))

    def usable(self) -> tuple[Document, ...]:
        """The documents whose text was read (status ``ok``), in path order."""
        return tuple(d for d in self.documents if d.status == STATUS_OK)


# ---------------------------------------------------------------------------
# Identifiers and patterns


def make_doc_id(relpath: str) -> str:
    """Stable doc_id from a relative path: ``"d"`` + 16 hex digits of SHA-1 of the NFC path.

    The letter prefix keeps spreadsheets from reading the id as a number or a formula.
    """
    norm = unicodedata.normalize("NFC", relpath.replace("\\", "/"))
    return "d" + hashlib.sha1(norm.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _matching_pattern(name: str, relpath: str, patterns: Sequence[str]) -> str | None:
    """First pattern matching the file name or the relative path (case-insensitive), or None."""
    lname, lrel = name.lower(), relpath.lower()
    for pat in patterns:
        lpat = pat.lower().replace("\\", "/")
        if fnmatch.fnmatchcase(lname, lpat) or fnmatch.fnmatchcase(lrel, lpat):
            return pat
    return None


def _display_path(rel: str) -> tuple[str, bool]:
    """A path that is valid Unicode: bytes of non-UTF-8 names shown as ``\\xNN``."""
    try:
        rel.encode("utf-8")
        return rel, False
    except UnicodeEncodeError:
        raw = rel.encode("utf-8", "surrogateescape")
        return raw.decode("utf-8", "backslashreplace"), True


def _fs_path(root: Path, rel: str) -> Path:
    """The file for a manifest path, undoing ``_display_path`` when the plain path is missing."""
    plain = root / rel
    if "\\x" not in rel or os.path.lexists(plain):
        return plain
    raw = re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), rel.encode("utf-8"))
    return root / os.fsdecode(raw)


# ---------------------------------------------------------------------------
# Walking


@dataclass
class _Entry:
    """One entry found by the walk: either a finished row or a file still to read."""

    rel: str
    source_id: str
    fs_path: str = ""
    is_dir: bool = False
    status: str = ""
    message: str = ""
    size: int = 0
    mtime: float = 0.0


def _stat_quiet(path: str, follow: bool = True) -> tuple[int, float]:
    try:
        st = os.stat(path, follow_symlinks=follow)
    except OSError:
        return 0, 0.0
    return st.st_size, st.st_mtime


def _walk(
    root: Path,
    include: Sequence[str],
    exclude: Sequence[str],
    progress: Progress,
) -> list[_Entry]:
    """List every entry under ``root`` (depth first, names sorted); decide what is not read."""
    root_str = str(root)
    root_source = root.name or root_str
    found: list[_Entry] = []
    # (directory to list, its relative path, real paths of it and its ancestors)
    stack: list[tuple[str, str, frozenset[str]]] = [(root_str, "", frozenset({root_str}))]
    while stack:
        progress.check()
        dir_path, dir_rel, chain = stack.pop()
        try:
            with os.scandir(dir_path) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            found.append(_Entry(dir_rel, dir_rel.split("/")[0], dir_path, True, STATUS_UNREADABLE,
                                f"folder could not be listed: {exc}"))
            continue
        subdirs: list[tuple[str, str, frozenset[str]]] = []
        for entry in entries:
            rel = f"{dir_rel}/{entry.name}" if dir_rel else entry.name
            source_id = rel.split("/", 1)[0] if "/" in rel else root_source
            row = _Entry(rel, source_id, entry.path)
            found.append(row)
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError as exc:
                row.status, row.message = STATUS_UNREADABLE, f"could not be examined: {exc}"
                continue
            target = entry.path
            if entry.name.startswith("."):
                row.is_dir = is_dir or (is_link and os.path.isdir(entry.path))
                size, row.mtime = _stat_quiet(entry.path, follow=False)
                row.size = 0 if row.is_dir or is_link else size
                row.status = STATUS_EXCLUDED
                row.message = "hidden folder, not searched" if row.is_dir else "hidden file"
                continue
            if is_link:
                target = os.path.realpath(entry.path)
                row.mtime = _stat_quiet(entry.path, follow=False)[1]  # size stays 0: not a file
                if not is_inside(target, root):
                    row.status = STATUS_SKIPPED_LINK
                    row.message = f"symbolic link to {target}, outside the source folder; not followed"
                    continue
                if not os.path.exists(target):
                    row.status, row.message = STATUS_SKIPPED_LINK, f"broken symbolic link (to {target})"
                    continue
                is_dir = os.path.isdir(target)
                row.fs_path = target
            if is_dir:
                row.is_dir = True
                real = os.path.realpath(target)
                if real in chain:
                    row.status, row.message = STATUS_SKIPPED_LINK, "symlink loop"
                    continue
                pat = _matching_pattern(entry.name, rel, exclude)
                if pat is not None:
                    row.status, row.message = STATUS_EXCLUDED, f"folder excluded by pattern {pat!r}"
                    row.mtime = _stat_quiet(target)[1]
                    continue
                found.pop()  # a folder that is searched needs no row of its own
                subdirs.append((target, rel, chain | {real}))
                continue
            try:
                st = os.stat(target)
            except OSError as exc:
                row.status, row.message = STATUS_UNREADABLE, f"could not be examined: {exc}"
                continue
            row.size, row.mtime = st.st_size, st.st_mtime
            if not stat.S_ISREG(st.st_mode):
                row.status, row.message = STATUS_EXCLUDED, "not a regular file (device, pipe or socket)"
                continue
            pat = _matching_pattern(entry.name, rel, exclude)
            if pat is not None:
                row.status, row.message = STATUS_EXCLUDED, f"excluded by pattern {pat!r}"
                continue
            if _matching_pattern(entry.name, rel, include) is None:
                row.status = STATUS_EXCLUDED
                row.message = "not matched by the include patterns " + ", ".join(include)
        stack.extend(reversed(subdirs))
    return found


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


@dataclass(frozen=True)
class _How:
    """What every reading thread needs besides the file: the size limit, extraction choices and
    the cancellation check (thread-safe: ``Progress.check`` only reads an event)."""

    max_bytes: int
    options: ExtractOptions = DEFAULT_OPTIONS
    check: Callable[[], None] = NULL_PROGRESS.check


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
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


def _human_size(n: int) -> str:
    size = float(n)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} bytes" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} bytes"


def _too_large(max_bytes: int) -> str:
    return f"larger than the limit of {_human_size(max_bytes)}; not read"


def _read_file(path: str, name: str, how: _How) -> _ReadResult:
    """Read, hash and decode (or extract) one file. Never raises for a problem with the file itself.

    ``name`` (the entry's name, not a link's target) chooses the extractor by its suffix.
    """
    max_bytes = how.max_bytes
    try:
        fd = _open_read_only(path)
    except OSError as exc:
        size, mtime = _stat_quiet(path)
        return _ReadResult(STATUS_UNREADABLE, f"could not be opened: {exc}", size, mtime)
    try:
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            size, mtime = st.st_size, st.st_mtime
            if size > max_bytes:
                message = f"{_human_size(size)}, {_too_large(max_bytes)}"
                return _ReadResult(STATUS_TOO_LARGE, message, size, mtime)
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        return _ReadResult(STATUS_UNREADABLE, f"could not be read: {exc}", *_stat_quiet(path))
    if len(data) > max_bytes:
        message = f"grew while being read; {_too_large(max_bytes)}"
        return _ReadResult(STATUS_TOO_LARGE, message, len(data), mtime)
    size = len(data)
    digest = hashlib.sha256(data).hexdigest()
    if not data:
        return _ReadResult(STATUS_EMPTY, "empty file (0 bytes)", size, mtime, digest)
    got = extract_document(data, name, how.options, how.check)
    if got is not None:
        return _ReadResult(got.status, got.message, size, mtime, digest, got.encoding, got.chars,
                           got.text, got.extractor)
    try:
        text, encoding = decode_bytes(data)
    except BinaryContentError as exc:
        return _ReadResult(STATUS_BINARY, f"binary data: {exc}", size, mtime, digest)
    except UndecodableError as exc:
        return _ReadResult(STATUS_UNDECODABLE, str(exc), size, mtime, digest)
    result = _ReadResult(STATUS_OK, "", size, mtime, digest, encoding, len(text))
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


# ---------------------------------------------------------------------------
# Sidecar


def _norm_rel(path: str) -> str:
    rel = path.strip().replace("\\", "/")
    while rel.startswith("./"):
        rel = rel[2:]
    return unicodedata.normalize("NFC", rel)


def _read_sidecar(sidecar: Path) -> tuple[list[dict[str, str]], list[str]]:
    """Rows and column names of a sidecar CSV (UTF-8, with or without BOM)."""
    try:
        with open(sidecar, encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh)
            columns = [c.strip() for c in (reader.fieldnames or [])]
            rows = [
                {(k or "").strip(): (v or "").strip() for k, v in row.items() if k is not None}
                for row in reader
            ]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise CorpusError(f"sidecar CSV {sidecar} could not be read: {exc}") from exc
    if "path" not in columns:
        raise CorpusError(f"sidecar CSV {sidecar} has no 'path' column (columns: {columns})")
    return rows, columns


def _apply_sidecar(
    documents: list[Document], sidecar: Path
) -> tuple[list[Document], dict[str, dict[str, str]]]:
    rows, columns = _read_sidecar(sidecar)
    extra_cols = [c for c in columns if c not in SIDECAR_COLUMNS and c]
    index = {_norm_rel(d.path): i for i, d in enumerate(documents)}
    unknown: list[str] = []
    seen: dict[int, str] = {}
    updated = list(documents)
    extra: dict[str, dict[str, str]] = {}
    for row in rows:
        key = _norm_rel(row.get("path", ""))
        if not key:
            continue
        i = index.get(key)
        if i is None:
            unknown.append(row.get("path", ""))
            continue
        if i in seen:
            raise CorpusError(f"sidecar CSV {sidecar} lists {key!r} twice")
        seen[i] = key
        doc = updated[i]
        changes = {c: row[c] for c in ("doc_id", "source_id", "version") if row.get(c)}
        if changes:
            updated[i] = doc = replace(doc, **changes)
        extra[doc.doc_id] = {c: row.get(c, "") for c in extra_cols}
    if unknown:
        shown = ", ".join(repr(p) for p in unknown[:20])
        more = f" and {len(unknown) - 20} more" if len(unknown) > 20 else ""
        raise CorpusError(
            f"sidecar CSV {sidecar} names {len(unknown)} path(s) not found in the source folder: "
            f"{shown}{more}"
        )
    return updated, extra


def _check_unique_ids(documents: Sequence[Document]) -> None:
    first: dict[str, str] = {}
    for doc in documents:
        other = first.setdefault(doc.doc_id, doc.path)
        if other != doc.path:
            raise CorpusError(
                f"duplicate doc_id {doc.doc_id!r}: used by {other!r} and {doc.path!r}; "
                "give them distinct doc_id values in the sidecar CSV"
            )


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
    workers: int = 2,
    extract_options: ExtractOptions = DEFAULT_OPTIONS,
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
        workers: Threads reading, hashing, decoding and extracting (1 = in the calling thread).
        extract_options: What extractors include (e.g. .docx headers and footers).

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
    entries = _walk(root_path, tuple(include), tuple(exclude), progress)
    to_read = [e for e in entries if not e.status]
    how = _How(max_bytes, extract_options, progress.check)
    files = [(e.fs_path, e.rel.rsplit("/", 1)[-1]) for e in to_read]
    results = _read_all(files, how, workers, progress)
    by_rel = {e.rel: r for e, r in zip(to_read, results)}

    documents: list[Document] = []
    texts_by_rel: dict[str, str] = {}
    for e in entries:
        path, renamed = _display_path(e.rel)
        note = "file name is not valid UTF-8 (bytes shown as \\xNN)" if renamed else ""
        r = by_rel.get(e.rel)
        if r is None:
            status, message, size, mtime = e.status, e.message, e.size, e.mtime
            sha, enc, chars, extractor = "", "", 0, PLAIN_TEXT
        else:
            status, message, size, mtime = r.status, r.message, r.size, r.mtime
            sha, enc, chars, extractor = r.sha256, r.encoding, r.chars, r.extractor
            if r.text is not None:
                texts_by_rel[path] = r.text
        message = "; ".join(m for m in (message, note) if m)
        source_id = _display_path(e.source_id)[0]
        documents.append(
            Document(make_doc_id(path), source_id, DEFAULT_VERSION, path, size, mtime,
                     sha, enc, chars, status, message, extractor)
        )
    documents.sort(key=lambda d: d.path)
    extra: dict[str, dict[str, str]] = {}
    if sidecar is not None:
        documents, extra = _apply_sidecar(documents, Path(sidecar))
    _check_unique_ids(documents)
    texts = {d.doc_id: texts_by_rel[d.path] for d in documents if d.path in texts_by_rel}
    return LoadedCorpus(root_path, tuple(documents), texts, extra)


def check_integrity(root: Path | str, documents: Sequence[Document]) -> list[tuple[str, str]]:
    """Re-stat and re-hash every file that was read; report what changed since the scan.

    Rows without a SHA-256 (excluded, too large, unreadable, links) are skipped.

    Args:
        root: The source folder that was scanned.
        documents: The manifest rows of that scan.

    Returns:
        ``[(relative path, what changed)]`` in the order of ``documents``, e.g.
        ``("a/b.txt", "size 120 -> 130")``, ``("x.txt", "missing")``,
        ``("y.txt", "content changed (SHA-256)")``. Empty when nothing changed.
    """
    root_path = Path(root).resolve()
    changes: list[tuple[str, str]] = []
    for doc in documents:
        if not doc.sha256:
            continue
        path = _fs_path(root_path, doc.path)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            changes.append((doc.path, "missing"))
            continue
        except OSError as exc:
            changes.append((doc.path, f"cannot be examined: {exc}"))
            continue
        what: list[str] = []
        if st.st_size != doc.size:
            what.append(f"size {doc.size} -> {st.st_size}")
        if st.st_mtime != doc.mtime:
            what.append("modification time changed")
        try:
            digest = _sha256_file(str(path))
        except OSError as exc:
            what.append(f"cannot be read: {exc}")
        else:
            if digest != doc.sha256:
                what.append("content changed (SHA-256)")
        if what:
            changes.append((doc.path, "; ".join(what)))
    return changes


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
    with os.fdopen(_open_read_only(str(_fs_path(Path(root), doc.path))), "rb") as fh:
        data = fh.read()
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


def _sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with os.fdopen(_open_read_only(path), "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
