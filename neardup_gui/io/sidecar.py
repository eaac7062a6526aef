"""The optional sidecar CSV that names documents: doc_id, source_id and version per relative path.

A sidecar is a UTF-8 CSV (with or without BOM) with a ``path`` column and any of ``doc_id``,
``source_id``, ``version``; every other column is kept as the document's extra data. Paths compare
after NFC normalisation, with ``\\`` read as ``/`` and a leading ``./`` dropped. A sidecar naming a
path the scan did not find, or the same path twice, is refused (``CorpusError``), as are two
documents ending up with one doc_id.

Must not import Qt.
"""

from __future__ import annotations

import csv
import operator
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from neardup_gui.core.progress import GIVING_WAY_SLICE, slices_giving_way
from neardup_gui.core.records import Document
from neardup_gui.io.walk import CorpusError

__all__ = ["SIDECAR_COLUMNS", "apply_sidecar", "check_unique_ids", "read_sidecar"]

SIDECAR_COLUMNS = ("path", "doc_id", "source_id", "version")


def _norm_rel(path: str) -> str:
    rel = path.strip().replace("\\", "/")
    while rel.startswith("./"):
        rel = rel[2:]
    return unicodedata.normalize("NFC", rel)


def read_sidecar(sidecar: Path) -> tuple[list[dict[str, str]], list[str]]:
    """Rows and column names of a sidecar CSV (UTF-8, with or without BOM), values stripped.

    Raises:
        CorpusError: The file cannot be read or decoded, or has no ``path`` column.
    """
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


def apply_sidecar(
    documents: list[Document], sidecar: Path
) -> tuple[list[Document], dict[str, dict[str, str]]]:
    """Give documents the ids the sidecar names.

    Args:
        documents: Manifest rows of the scan, sorted by path.
        sidecar: The sidecar CSV.

    Returns:
        ``(documents with doc_id/source_id/version replaced where the sidecar gives them,
        doc_id -> extra columns of the documents it names)``.

    Raises:
        CorpusError: Unreadable sidecar, no ``path`` column, a path listed twice or not found.
    """
    rows, columns = read_sidecar(sidecar)
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


_doc_id_of = operator.attrgetter("doc_id")


def check_unique_ids(documents: Sequence[Document]) -> None:
    """Refuse two documents (two paths) with one doc_id.

    Raises:
        CorpusError: Naming the doc_id and both paths.
    """
    ids: set[str] = set()
    for part in slices_giving_way(map(_doc_id_of, documents), GIVING_WAY_SLICE):  # in C, a slice per call
        ids.update(part)
    if len(ids) == len(documents):  # the usual case
        return
    first: dict[str, str] = {}
    for doc in documents:
        other = first.setdefault(doc.doc_id, doc.path)
        if other != doc.path:
            raise CorpusError(
                f"duplicate doc_id {doc.doc_id!r}: used by {other!r} and {doc.path!r}; "
                "give them distinct doc_id values in the sidecar CSV"
            )
