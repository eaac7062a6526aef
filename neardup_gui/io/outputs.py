"""The files a screen writes into its output folder.

``manifest.csv``, ``candidates.csv`` (UTF-8 with BOM so spreadsheet programs open Chinese
correctly; cells that a spreadsheet would run as a formula are escaped), ``run.json`` and
``normalized/<doc_id>.txt``. Every file is written under a temporary name and moved into place, so an
interrupted write never leaves a half file under the final name.

No Qt here.
"""

from __future__ import annotations

import csv
import io as _stdio
import json
import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from neardup_gui.core.normalize import normalize_batch, to_text
from neardup_gui.core.records import Candidate, Document, NormalizeOptions, RunRecord
from neardup_gui.io.cellsafe import csv_cell

__all__ = [
    "MANIFEST_COLUMNS",
    "CANDIDATE_COLUMNS",
    "manifest_rows",
    "candidate_rows",
    "write_csv",
    "write_json",
    "write_normalized",
    "iso_time",
]

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


def manifest_rows(documents: Iterable[Document]) -> list[list[Any]]:
    return [
        [
            d.doc_id,
            d.source_id,
            d.version,
            d.path,
            d.size,
            iso_time(d.mtime) if d.mtime else "",
            d.sha256,
            d.encoding,
            d.chars,
            d.status,
            d.message,
            d.extractor,
        ]
        for d in documents
    ]


def candidate_rows(candidates: Iterable[Candidate], documents: Mapping[str, Document]) -> list[list[Any]]:
    rows = []
    for c in candidates:
        left, right = documents[c.left], documents[c.right]
        rows.append(
            [
                left.path,
                right.path,
                c.left,
                c.right,
                left.source_id,
                right.source_id,
                left.version,
                right.version,
                ";".join(c.methods),
                _fmt(c.score),
                _fmt(c.jaccard),
                _fmt(c.containment_left),
                _fmt(c.containment_right),
                _fmt(c.minhash_estimate),
                _fmt(c.tfidf_cosine),
                "" if c.simhash_distance is None else c.simhash_distance,
                _fmt(c.length_ratio),
                c.shared_shingles,
                c.shingles_left,
                c.shingles_right,
                ";".join(c.flags),
                c.suggestion,
                " ".join(f"{s.left_start}-{s.left_end}:{s.right_start}-{s.right_end}" for s in c.segments),
                " | ".join(c.shared_sample),
            ]
        )
    return rows


def _replace_into(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """UTF-8 with BOM, RFC 4180 quoting, formula-like cells escaped; written atomically."""
    buf = _stdio.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([csv_cell(v) for v in row])
    _replace_into(path, buf.getvalue().encode("utf-8-sig"))


def write_json(path: Path, data: Any) -> None:
    _replace_into(path, (json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def write_normalized(
    folder: Path, texts: Mapping[str, str], doc_ids: Iterable[str], options: NormalizeOptions
) -> None:
    """Write ``<doc_id>.txt`` with each document's normalized text (UTF-8), replacing the folder whole.

    The new folder is built beside the old one and swapped in, so the folder always holds the
    output of one complete run.
    """
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    ids = list(doc_ids)

    def write(batch: list[str]) -> None:
        for doc_id, cps in zip(batch, normalize_batch([texts[d] for d in batch], options)):
            (staging / f"{doc_id}.txt").write_bytes(to_text(cps).encode("utf-8"))

    try:
        # Creating thousands of small files is dominated by system calls, which run in parallel.
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(write, [ids[i : i + 256] for i in range(0, len(ids), 256)]))
        old = None
        if folder.exists():
            old = folder.with_name(f".{folder.name}.old")
            if old.exists():
                shutil.rmtree(old)
            os.replace(folder, old)
        os.replace(staging, folder)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def run_to_json(run: RunRecord) -> dict[str, Any]:
    return run.to_dict()
