"""Where a distributed screen's documents come from, cut into partitions the workers read.

Three kinds of source, each planned on the client (which only lists) and read on the workers:

- a folder visible to the workers: walked on the client exactly as ``io.corpus.scan_folder`` walks
  it (same manifest rows, same order, same doc_ids, sidecar applied), the files read on the workers;
- a list of files (one path a line, absolute or relative to the source folder): as a folder whose
  walk is the list; every listed file is read, whatever the include patterns say;
- a Parquet table of ``(doc_id, path, text)`` (optional ``source_id`` and ``version``): only the
  footers are read on the client; a partition is one or more row groups, read on a worker.

Every document carries ``pos``, its index in manifest order; the engine uses it instead of the
doc_id, so that stars around "the first member" and every other order-dependent choice come out
as in the in-process run.

No dask import here: these objects and functions are pickled to the workers.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.records import (
    STATUS_EMPTY,
    STATUS_OK,
    STATUS_SKIPPED_LINK,
    STATUS_UNREADABLE,
    Document,
    ScreenParams,
    document,
)
from neardup_gui.io import corpus
from neardup_gui.io.extract import PLAIN_TEXT, ExtractOptions
from neardup_gui.io.paths import is_inside
from neardup_gui.io.sidecar import apply_sidecar, check_unique_ids
from neardup_gui.io.walk import CorpusError, WalkEntry, display_path, make_doc_id, walk_folder

__all__ = [
    "FileItem",
    "FilePartition",
    "ParquetPartition",
    "SourcePlan",
    "SourceChangedError",
    "PARQUET_EXTRACTOR",
    "plan_folder",
    "plan_file_list",
    "plan_parquet",
    "read_partition",
    "read_file_texts",
    "parquet_texts",
]

PARQUET_EXTRACTOR = "parquet"
DEFAULT_PARTITION_DOCS = 1000
_UNNAMED_NOTE = "file name is not valid UTF-8 (bytes shown as \\xNN)"


class SourceChangedError(RuntimeError):
    """A file's bytes changed between the first read and the re-read for verification."""


@dataclass(frozen=True)
class FileItem:
    """One file a worker reads.

    Attributes:
        pos: Index of the document in manifest order.
        fs_path: Path to open (on the workers' file system).
        name: The entry's file name (chooses the extractor by its suffix).
        document: The manifest row without what reading tells (ids, path, source_id, version, and
            in ``message`` a note about the name, if any).
    """

    pos: int
    fs_path: str
    name: str
    document: Document


@dataclass(frozen=True)
class FilePartition:
    """Consecutive files (in manifest order) read by one task."""

    items: tuple[FileItem, ...]
    max_bytes: int
    extract: ExtractOptions

    def __len__(self) -> int:
        return len(self.items)


@dataclass(frozen=True)
class ParquetPartition:
    """Row groups of one Parquet file read by one task; rows ``first_pos .. first_pos + rows - 1``."""

    path: str
    row_groups: tuple[int, ...]
    first_pos: int
    rows: int
    columns: tuple[str, ...]
    default_source: str

    def __len__(self) -> int:
        return self.rows


@dataclass(frozen=True)
class SourcePlan:
    """What the client knows before any file is read.

    Attributes:
        kind: ``folder``, ``files`` or ``parquet``.
        root: Recorded as the run's source (review re-reads files from there).
        total: Number of manifest rows (positions ``0 .. total - 1``).
        fixed: Rows decided without reading (excluded, links, ...), as ``(pos, Document)``.
        partitions: What the workers read, in manifest order.
        description: One line for the run notes.
        fields: doc_id -> the sidecar CSV's extra columns (for a ``within`` comparison scope).
    """

    kind: str
    root: Path
    total: int
    fixed: tuple[tuple[int, Document], ...]
    partitions: tuple[FilePartition | ParquetPartition, ...]
    description: str
    fields: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @property
    def reads_files(self) -> bool:
        return self.kind != "parquet"


# ---------------------------------------------------------------------------
# Planning (client side)


def _extract_options(params: ScreenParams) -> ExtractOptions:
    return ExtractOptions(
        tables=getattr(params, "docx_tables", True),
        headers_footers=getattr(params, "docx_headers_footers", False),
    )


def _plan_entries(
    root: Path,
    entries: Sequence[WalkEntry],
    params: ScreenParams,
    sidecar: Path | None,
    partition_docs: int,
    kind: str,
    description: str,
) -> SourcePlan:
    """Manifest rows in ``scan_folder``'s order, with the files still to read cut into partitions."""
    rows: list[tuple[Document, WalkEntry]] = []
    for e in entries:
        path, renamed = display_path(e.rel)
        note = _UNNAMED_NOTE if renamed else ""
        source_id = display_path(e.source_id)[0]
        if e.status:
            message = "; ".join(m for m in (e.message, note) if m)
            doc = document(make_doc_id(path), source_id, corpus.DEFAULT_VERSION, path, e.size, e.mtime,
                           "", "", 0, e.status, message, PLAIN_TEXT)  # fmt: skip
        else:
            # Filled in by the worker that reads the file; the note waits in ``message``.
            doc = document(make_doc_id(path), source_id, corpus.DEFAULT_VERSION, path, 0, 0.0,
                           "", "", 0, STATUS_OK, note, PLAIN_TEXT)  # fmt: skip
        rows.append((doc, e))
    rows.sort(key=lambda r: r[0].path)
    documents = [d for d, _ in rows]
    extra: dict[str, dict[str, str]] = {}
    if sidecar is not None:
        documents, extra = apply_sidecar(documents, Path(sidecar))
    check_unique_ids(documents)
    fixed: list[tuple[int, Document]] = []
    items: list[FileItem] = []
    for pos, (doc, (_, e)) in enumerate(zip(documents, rows)):
        if e.status:
            fixed.append((pos, doc))
        else:
            items.append(FileItem(pos, e.fs_path, e.rel.rsplit("/", 1)[-1], doc))
    size = max(1, int(partition_docs))
    extract = _extract_options(params)
    partitions = tuple(
        FilePartition(tuple(items[i : i + size]), params.max_bytes, extract) for i in range(0, len(items), size)
    )
    return SourcePlan(kind, root, len(documents), tuple(fixed), partitions, description, extra)


def _resolve_root(root: Path | str) -> Path:
    given = Path(root).expanduser()
    if not given.exists():
        raise CorpusError(f"source folder not found: {given}")
    if not given.is_dir():
        raise CorpusError(f"source is not a folder: {given}")
    return given.resolve()


def plan_folder(
    root: Path | str,
    params: ScreenParams,
    *,
    sidecar: Path | None = None,
    partition_docs: int = DEFAULT_PARTITION_DOCS,
    progress: Progress = NULL_PROGRESS,
) -> SourcePlan:
    """Walk a folder (read-only, on the client) and plan reading its files on the workers.

    Args:
        root: The source folder; the workers must see it at the same path.
        params: Include and exclude patterns, size limit and extraction options are used.
        sidecar: Optional CSV giving doc_id / source_id / version per relative path.
        partition_docs: Files per partition.
        progress: ``check()`` is called once per folder listed; the walk reports stage ``list``.

    Raises:
        CorpusError: Missing folder, bad sidecar, duplicate doc_id.
    """
    root_path = _resolve_root(root)
    entries = walk_folder(root_path, tuple(params.include), tuple(params.exclude), progress)
    return _plan_entries(root_path, entries, params, sidecar, partition_docs, "folder", f"folder {root_path}")


def _read_list(list_file: Path) -> list[str]:
    try:
        with open(list_file, encoding="utf-8-sig") as fh:
            lines = [line.rstrip("\r\n") for line in fh]
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"file list {list_file} could not be read: {exc}") from exc
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def plan_file_list(
    root: Path | str,
    list_file: Path | str,
    params: ScreenParams,
    *,
    sidecar: Path | None = None,
    partition_docs: int = DEFAULT_PARTITION_DOCS,
) -> SourcePlan:
    """Plan reading the files named in ``list_file`` (UTF-8, one path a line, ``#`` comments).

    Paths are absolute or relative to ``root``; all must lie inside ``root`` (the manifest keeps
    paths relative to it, so the review can read the files again). Every listed file is read;
    include and exclude patterns do not apply. A listed file that does not exist gets status
    ``unreadable``; a symbolic link to outside ``root`` gets ``skipped_link``.

    Raises:
        CorpusError: Unreadable list, a path outside ``root`` or listed twice, a folder listed,
            bad sidecar, duplicate doc_id.
    """
    root_path = _resolve_root(root)
    root_source = root_path.name or str(root_path)
    entries: list[WalkEntry] = []
    seen: set[str] = set()
    for line in _read_list(Path(list_file)):
        given = Path(line.strip())
        full = given if given.is_absolute() else root_path / given
        # Keep links as links (their name is the entry), but resolve ".." and the root's own links.
        full = Path(os.path.normpath(full))
        if not is_inside(full.parent, root_path):
            raise CorpusError(f"listed file {line.strip()!r} is not inside the source folder {root_path}")
        rel = Path(os.path.relpath(full.parent.resolve(), root_path)) / full.name
        rel_str = rel.as_posix().removeprefix("./")
        if rel_str in seen:
            raise CorpusError(f"file list {list_file} names {rel_str!r} twice")
        seen.add(rel_str)
        source_id = rel_str.split("/", 1)[0] if "/" in rel_str else root_source
        entry = WalkEntry(rel_str, source_id, str(full))
        if full.is_symlink():
            target = os.path.realpath(full)
            if not is_inside(target, root_path):
                entry.status = STATUS_SKIPPED_LINK
                entry.message = f"symbolic link to {target}, outside the source folder; not followed"
            entry.fs_path = target
        if not entry.status:
            if not os.path.lexists(full):
                entry.status, entry.message = STATUS_UNREADABLE, "listed file not found"
            elif os.path.isdir(full):
                raise CorpusError(f"file list {list_file} names a folder, not a file: {line.strip()!r}")
            else:
                st = os.stat(full)
                entry.size, entry.mtime = st.st_size, st.st_mtime
        entries.append(entry)
    return _plan_entries(
        root_path, entries, params, sidecar, partition_docs, "files", f"{len(entries)} files listed in {list_file}"
    )


_PARQUET_ID_COLUMNS = ("doc_id", "path", "source_id", "version")


def plan_parquet(
    root: Path | str,
    table: Path | str,
    params: ScreenParams,
    *,
    partition_docs: int = DEFAULT_PARTITION_DOCS,
) -> SourcePlan:
    """Plan reading a Parquet file, or a folder of ``*.parquet`` files (in name order), by row groups.

    The table needs a ``text`` column and a ``doc_id`` or ``path`` column; ``source_id`` and
    ``version`` are used when present. Rows keep the table's order. Consecutive row groups of one
    file are merged into a partition until it holds ``partition_docs`` rows; a larger row group is
    one partition (write tables with row groups of a few thousand rows).

    ``root`` is recorded as the run's source: the folder the ``path`` column is relative to.

    Raises:
        CorpusError: Missing table, no Parquet file, missing columns.
    """
    import pyarrow.parquet as pq

    root_path = _resolve_root(root)
    table_path = Path(table).expanduser().resolve()
    if not table_path.exists():
        raise CorpusError(f"Parquet table not found: {table_path}")
    files = [table_path] if table_path.is_file() else sorted(table_path.rglob("*.parquet"))
    if not files:
        raise CorpusError(f"no *.parquet file in {table_path}")
    partitions: list[ParquetPartition] = []
    pos = 0
    default_source = table_path.stem
    for f in files:
        try:
            meta = pq.ParquetFile(f).metadata
        except Exception as exc:  # pyarrow raises several types for a file that is not Parquet
            raise CorpusError(f"{f} is not a readable Parquet file: {exc}") from exc
        names = set(meta.schema.names)
        if "text" not in names or not names & {"doc_id", "path"}:
            raise CorpusError(f"{f} needs a 'text' column and a 'doc_id' or 'path' column (has {sorted(names)})")
        columns = tuple(c for c in _PARQUET_ID_COLUMNS if c in names)
        group: list[int] = []
        rows = 0
        for rg in range(meta.num_row_groups):
            group.append(rg)
            rows += meta.row_group(rg).num_rows
            if rows >= partition_docs or rg == meta.num_row_groups - 1:
                if rows:
                    partitions.append(ParquetPartition(str(f), tuple(group), pos, rows, columns, default_source))
                pos += rows
                group, rows = [], 0
    return SourcePlan("parquet", root_path, pos, (), tuple(partitions), f"Parquet table {table_path}")


# ---------------------------------------------------------------------------
# Reading (worker side)


def _how(part: FilePartition) -> corpus._How:
    # io.corpus reads one file with _read_file(path, name, _How); the distributed reader must give
    # byte-for-byte the same rows, so it calls the same function.
    return corpus._How(part.max_bytes, part.extract)


def _read_item(item: FileItem, how: corpus._How) -> tuple[Document, str | None]:
    r = corpus._read_file(item.fs_path, item.name, how)
    doc = replace(
        item.document,
        size=r.size,
        mtime=r.mtime,
        sha256=r.sha256,
        encoding=r.encoding,
        chars=r.chars,
        status=r.status,
        message="; ".join(m for m in (r.message, item.document.message) if m),
        extractor=r.extractor,
    )
    return doc, r.text


def _parquet_rows(part: ParquetPartition, columns: Sequence[str]) -> dict[str, list]:
    import pyarrow.parquet as pq

    table = pq.ParquetFile(part.path).read_row_groups(list(part.row_groups), columns=list(columns))
    return {c: table.column(c).to_pylist() for c in columns}


def _parquet_document(row: dict[str, str | None], text: str | None, default_source: str) -> Document:
    path = row.get("path") or ""
    doc_id = row.get("doc_id") or (make_doc_id(path) if path else "")
    if not doc_id:
        raise CorpusError("a Parquet row has neither doc_id nor path")
    if any(c in doc_id for c in "/\\\x00") or doc_id in (".", ".."):
        raise CorpusError(f"doc_id {doc_id!r} cannot name a file (normalized/<doc_id>.txt)")
    path = path or doc_id
    source_id = row.get("source_id") or (path.split("/", 1)[0] if "/" in path else default_source)
    version = row.get("version") or corpus.DEFAULT_VERSION
    data = (text or "").encode("utf-8", "surrogatepass")
    sha = hashlib.sha256(data).hexdigest()
    if text is None:
        status, message = STATUS_EMPTY, "no text (null in the table)"
    elif not text.strip():
        status = STATUS_EMPTY
        message = "empty text" if not text else f"only whitespace ({len(text)} characters)"
    else:
        status, message = STATUS_OK, ""
    return document(doc_id, source_id, version, path, len(data), 0.0, sha, "utf-8", len(text or ""),
                    status, message, PARQUET_EXTRACTOR)  # fmt: skip


def read_partition(part: FilePartition | ParquetPartition) -> list[tuple[int, Document, str | None]]:
    """Read one partition: ``(pos, manifest row, raw text or None)`` per document, in manifest order."""
    if isinstance(part, FilePartition):
        how = _how(part)
        out = []
        for item in part.items:
            doc, text = _read_item(item, how)
            out.append((item.pos, doc, text if doc.status == STATUS_OK else None))
        return out
    cols = ("text", *part.columns)
    data = _parquet_rows(part, cols)
    out = []
    for n in range(part.rows):
        row = {c: data[c][n] for c in part.columns}
        text = data["text"][n]
        doc = _parquet_document(row, text, part.default_source)
        out.append((part.first_pos + n, doc, text if doc.status == STATUS_OK else None))
    return out


def read_file_texts(items: Sequence[FileItem], documents: dict[int, Document], max_bytes: int,
                    extract: ExtractOptions) -> dict[int, str]:  # fmt: skip
    """Read files again (for verification), checking each still has its manifest SHA-256.

    Raises:
        SourceChangedError: A file's bytes changed since the first read.
    """
    how = corpus._How(max_bytes, extract)
    out: dict[int, str] = {}
    for item in items:
        doc = documents[item.pos]
        r = corpus._read_file(item.fs_path, item.name, how)
        if r.sha256 != doc.sha256 or r.text is None:
            raise SourceChangedError(
                f"{doc.path} changed while the screen ran (its SHA-256 differs from the first read); "
                "screen again"
            )
        out[item.pos] = r.text
    return out


def parquet_texts(part: ParquetPartition, positions: np.ndarray):
    """Texts of the rows at ``positions`` (manifest positions inside ``part``), as a pandas frame
    with columns ``pos`` (int64) and ``text``."""
    import pandas as pd

    data = _parquet_rows(part, ("text",))["text"]
    pos = np.asarray(positions, dtype=np.int64)
    return pd.DataFrame({"pos": pos, "text": [data[int(p) - part.first_pos] for p in pos]})
