"""Labelled pairs for evaluation: read a CSV or XLSX labels file, or take review decisions as labels.

A labels file has a header row with ``left``, ``right`` and ``label`` columns, and optionally
``reason`` and ``split`` (``tune`` / ``holdout``); other columns are ignored. ``left`` and ``right``
name documents by doc_id or by path relative to the source folder (as in manifest.csv; ``\\`` and
a leading ``./`` are accepted, an absolute path inside the source folder too). ``label`` is 1 (the
pair belongs in duplicate-merge review) or 0 (it does not).

CSV files may be UTF-8 (with or without BOM), GB18030/GBK (what Excel on a Chinese Windows saves)
or UTF-16. XLSX: the sheet named ``labels`` if there is one, else the first sheet.

Names that match no document are kept as ``UnresolvedLabel`` rows and reported; they are never
dropped silently. The same pair labelled twice with different labels is refused.

No Qt here.
"""

from __future__ import annotations

import csv
import difflib
import io as _stdio
import os
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neardup_gui.core.evaluate import LabelledPair
from neardup_gui.core.records import (
    REVIEW_KEEP_BOTH,
    REVIEW_PUBLIC_QUOTATION,
    REVIEW_SUGGEST_MERGE,
    REVIEW_VALID_REVISION,
    Document,
)
from neardup_gui.io.corpus import UndecodableError, decode_bytes

__all__ = [
    "LABEL_COLUMNS",
    "REQUIRED_COLUMNS",
    "LabelRow",
    "LabelSet",
    "LabelsError",
    "UnresolvedLabel",
    "labels_from_decisions",
    "read_labels",
    "resolve_labels",
]

REQUIRED_COLUMNS = ("left", "right", "label")
LABEL_COLUMNS = ("left", "right", "label", "reason", "split")
DECISION_POSITIVE = (REVIEW_SUGGEST_MERGE,)
DECISION_NEGATIVE = (REVIEW_KEEP_BOTH, REVIEW_PUBLIC_QUOTATION, REVIEW_VALID_REVISION)
_MAX_FILE_BYTES = 50 * 1024 * 1024


class LabelsError(ValueError):
    """The labels cannot be used as given (unreadable file, missing columns, bad or conflicting rows)."""


@dataclass(frozen=True)
class LabelRow:
    """One row of a labels file, as written (not yet matched to documents).

    Attributes:
        line: Line (CSV) or row (XLSX) number, counting the header as 1.
        left, right: The names as written (doc_id or relative path).
        label: 1 or 0.
        reason: The labeller's reason ("" when absent).
        split: ``tune``, ``holdout`` or any name ("" when absent).
    """

    line: int
    left: str
    right: str
    label: int
    reason: str = ""
    split: str = ""


@dataclass(frozen=True)
class UnresolvedLabel:
    """A labelled row naming a document the source folder does not hold."""

    row: LabelRow
    unknown: tuple[str, ...]
    message: str


@dataclass(frozen=True)
class LabelSet:
    """Labels ready for evaluation.

    Attributes:
        pairs: Labelled pairs whose documents were found (doc_ids).
        unresolved: Rows naming unknown documents (reported, not counted).
        source: Where the labels came from, in words (goes into every output).
        warnings: Duplicated rows, pending decisions left out, ...
    """

    pairs: tuple[LabelledPair, ...]
    unresolved: tuple[UnresolvedLabel, ...]
    source: str
    warnings: tuple[str, ...] = ()

    @property
    def positives(self) -> int:
        return sum(1 for p in self.pairs if p.label == 1)

    @property
    def negatives(self) -> int:
        return sum(1 for p in self.pairs if p.label == 0)


# -- reading ---------------------------------------------------------------------------------------


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


def _parse_label(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value) if value in (0, 1) else None
    text = _cell(value)
    try:
        number = float(text)
    except ValueError:
        return None
    return int(number) if number in (0.0, 1.0) else None


def _rows_from_table(table: Iterable[tuple[int, Sequence[Any]]], name: str) -> list[LabelRow]:
    """LabelRows from (line number, cells) rows whose first non-empty row is the header."""
    header: dict[str, int] | None = None
    rows: list[LabelRow] = []
    problems: list[str] = []
    for line, cells in table:
        values = [_cell(c) for c in cells]
        if not any(values):
            continue
        if header is None:
            names = [v.lstrip("\ufeff").strip().casefold() for v in values]
            header = {n: i for i, n in reversed(list(enumerate(names))) if n}
            missing = [c for c in REQUIRED_COLUMNS if c not in header]
            if missing:
                raise LabelsError(
                    f"{name}: the header row (line {line}) lacks the column(s) {', '.join(missing)}; "
                    f"expected {', '.join(LABEL_COLUMNS)} (reason and split are optional), found "
                    f"{', '.join(v for v in values if v) or 'nothing'}"
                )
            continue

        def get(col: str) -> Any:
            i = header.get(col)  # type: ignore[union-attr]
            return cells[i] if i is not None and i < len(cells) else None

        left, right, raw_label = _cell(get("left")), _cell(get("right")), get("label")
        label = _parse_label(raw_label)
        if not left or not right:
            problems.append(f"line {line}: left and right must both name a document")
        elif label is None:
            problems.append(f"line {line}: label must be 1 or 0, got {_cell(raw_label)!r}")
        else:
            rows.append(LabelRow(line, left, right, label, _cell(get("reason")), _cell(get("split"))))
    if header is None:
        raise LabelsError(f"{name}: the file is empty (expected a header row {','.join(LABEL_COLUMNS)})")
    if problems:
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise LabelsError(f"{name}: " + "; ".join(problems[:10]) + more)
    return rows


def _read_csv(path: Path) -> list[LabelRow]:
    data = path.read_bytes()
    try:
        text, _encoding = decode_bytes(data)
    except UndecodableError as exc:
        raise LabelsError(f"{path.name}: not a text file in a known encoding ({exc})") from exc
    # The delimiter comes from the header line only: reasons are free text full of commas and
    # semicolons, which fool csv.Sniffer. Excel in some locales saves ";"-separated files.
    header = text.lstrip("\ufeff").split("\n", 1)[0]
    delimiter = ","
    if "," not in header:
        delimiter = "\t" if "\t" in header else ";" if ";" in header else ","
    reader = csv.reader(_stdio.StringIO(text, newline=""), delimiter=delimiter)
    try:
        return _rows_from_table(((reader.line_num, row) for row in reader), path.name)
    except csv.Error as exc:
        raise LabelsError(f"{path.name}: not a readable CSV file ({exc})") from exc


def _read_xlsx(path: Path) -> list[LabelRow]:
    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except (InvalidFileException, OSError, KeyError, ValueError) as exc:
        raise LabelsError(f"{path.name}: not a readable XLSX workbook ({exc})") from exc
    try:
        by_name = {name.casefold(): name for name in book.sheetnames}
        sheet = book[by_name.get("labels", book.sheetnames[0])]
        table = ((n, row) for n, row in enumerate(sheet.iter_rows(values_only=True), start=1))
        return _rows_from_table(table, f"{path.name} (sheet {sheet.title})")
    finally:
        book.close()


def read_labels(path: Path | str) -> list[LabelRow]:
    """Read a labels file (``.csv``, ``.txt``/``.tsv`` as CSV, or ``.xlsx``/``.xlsm``).

    Args:
        path: The labels file.

    Returns:
        The rows in file order.

    Raises:
        LabelsError: Missing or unreadable file, unknown format, missing columns, or rows with an
            empty side or a label other than 1 / 0 (all such rows are listed, up to ten).
    """
    p = Path(path)
    if not p.is_file():
        raise LabelsError(f"labels file not found: {p}")
    if p.stat().st_size > _MAX_FILE_BYTES:
        raise LabelsError(f"{p.name}: larger than {_MAX_FILE_BYTES // (1024 * 1024)} MB; not a labels file?")
    suffix = p.suffix.casefold()
    if suffix in (".xlsx", ".xlsm"):
        return _read_xlsx(p)
    if suffix in (".csv", ".txt", ".tsv"):
        return _read_csv(p)
    if suffix == ".xls":
        raise LabelsError(f"{p.name}: old .xls workbooks are not read; save it as .xlsx or .csv")
    raise LabelsError(f"{p.name}: unknown labels format {suffix or '(no extension)'}; use .csv or .xlsx")


# -- matching to documents --------------------------------------------------------------------------


def _path_key(text: str) -> str:
    text = unicodedata.normalize("NFC", text.strip().replace("\\", "/"))
    while text.startswith("./"):
        text = text[2:]
    return text


class _Resolver:
    def __init__(self, documents: Sequence[Document], root: Path | str | None):
        self.by_id = {d.doc_id: d for d in documents}
        self.by_path = {_path_key(d.path): d for d in documents}
        self.root = Path(root) if root is not None else None

    def find(self, name: str) -> Document | None:
        doc = self.by_id.get(name.strip())
        if doc is not None:
            return doc
        key = _path_key(name)
        if self.root is not None and os.path.isabs(name):
            try:
                key = _path_key(os.path.relpath(name, self.root))
            except ValueError:  # another drive on Windows
                pass
        return self.by_path.get(key)

    def hint(self, name: str) -> str:
        close = difflib.get_close_matches(_path_key(name), list(self.by_path), n=1, cutoff=0.75)
        return f" (did you mean {close[0]!r}?)" if close else ""


def resolve_labels(
    rows: Sequence[LabelRow],
    documents: Sequence[Document],
    *,
    root: Path | str | None = None,
    source: str = "labels file",
) -> LabelSet:
    """Match labelled rows to documents by doc_id or relative path.

    Args:
        rows: Rows from ``read_labels``.
        documents: The manifest of the source folder (every status).
        root: The source folder, so absolute paths inside it can be matched.
        source: How the labels are described in outputs (e.g. the file name).

    Returns:
        The labelled pairs, the unresolved rows and warnings about repeated rows.

    Raises:
        LabelsError: A row pairs a document with itself, or a pair is labelled both 1 and 0.
    """
    resolver = _Resolver(documents, root)
    pairs: list[LabelledPair] = []
    unresolved: list[UnresolvedLabel] = []
    first: dict[tuple[str, str], LabelRow] = {}
    warnings: list[str] = []
    problems: list[str] = []
    for row in rows:
        left, right = resolver.find(row.left), resolver.find(row.right)
        unknown = tuple(n for n, d in ((row.left, left), (row.right, right)) if d is None)
        if unknown:
            msg = "; ".join(f"{n!r} is neither a doc_id nor a path in the source folder{resolver.hint(n)}" for n in unknown)
            unresolved.append(UnresolvedLabel(row, unknown, f"line {row.line}: {msg}"))
            continue
        assert left is not None and right is not None
        if left.doc_id == right.doc_id:
            problems.append(f"line {row.line}: left and right are the same document ({left.path})")
            continue
        key = (min(left.doc_id, right.doc_id), max(left.doc_id, right.doc_id))
        seen = first.get(key)
        if seen is not None:
            if seen.label != row.label:
                problems.append(
                    f"lines {seen.line} and {row.line} label the same pair ({left.path} / {right.path}) "
                    f"{seen.label} and {row.label}"
                )
            else:
                warnings.append(f"line {row.line} repeats line {seen.line} (same pair, same label); counted once")
            continue
        first[key] = row
        pairs.append(LabelledPair(left.doc_id, right.doc_id, row.label, row.reason, row.split,
                                  left.path, right.path, row.line))  # fmt: skip
    if problems:
        raise LabelsError("; ".join(problems))
    return LabelSet(tuple(pairs), tuple(unresolved), source, tuple(warnings))


def load_labels(
    path: Path | str, documents: Sequence[Document], *, root: Path | str | None = None
) -> LabelSet:
    """``read_labels`` then ``resolve_labels``, describing the source by the file name."""
    p = Path(path)
    return resolve_labels(read_labels(p), documents, root=root, source=f"labels file {p.name}")


def labels_from_decisions(session: Any, run_id: str | None = None) -> LabelSet:
    """Review decisions as labels: ``suggest_merge_entry`` = 1; keep both, public quotation and
    valid revision = 0. Pairs still pending or awaiting arbitration are left out (and counted).

    Args:
        session: An open ``ReviewSession``.
        run_id: The run whose candidate pairs are used (default: the latest).

    Returns:
        The labels; ``source`` states that they are review decisions, ``warnings`` why candidate
        recall on them says little (only pairs the screen showed were ever reviewed).
    """
    documents = {d.doc_id: d for d in session.documents(run_id)}
    pairs: list[LabelledPair] = []
    left_out = 0
    for (left, right), state in sorted(session.pair_states(run_id).items()):
        if state.status in DECISION_POSITIVE:
            label = 1
        elif state.status in DECISION_NEGATIVE:
            label = 0
        else:
            left_out += int(bool(state.decisions))
            continue
        reasons = [d.reason for d in state.decisions if d.reason] + [a.reason for a in state.arbitrations if a.reason]
        reason = reasons[-1] if reasons else ""
        reason = f"{state.status}: {reason}" if reason else state.status
        lp, rp = documents.get(left), documents.get(right)
        pairs.append(LabelledPair(left, right, label, reason, "", lp.path if lp else left, rp.path if rp else right))
    source = (
        "review decisions in session.sqlite (suggest_merge_entry = 1; keep_both, public_quotation, "
        "valid_revision = 0)"
    )
    warnings = [
        "labels taken from review decisions exist only for pairs the screen already showed, so "
        "candidate recall at the screen's own k is 1.0 by construction and cannot reveal pairs LSH "
        "missed; use a labels file or the miss audit for that"
    ]
    if left_out:
        warnings.append(f"{left_out} reviewed pair(s) still pending or awaiting arbitration are left out")
    return LabelSet(tuple(pairs), (), source, tuple(warnings))
