"""The signed Excel audit workbook: export from a review session, and verification.

Sheets, in order: ``Manifest``, ``Candidates``, ``Reviews``, ``IdMapping``, ``Thresholds``, ``Run``
and ``Signature``. Every sheet has a frozen, filterable header row, readable column widths and
wrapped text. Frames are built with pandas; cells are written with openpyxl (write-only mode, so
10,000s of rows stream), each value passed through ``cellsafe`` first: text cells are typed as
strings (a text starting with ``=`` is never a formula), control characters become visible
control pictures, cells are cut at 32,767 characters with a marker. Scores stay numbers, shown
with 4 decimals.

Digest (``DIGEST_FORMAT``), recomputable from what openpyxl reads back:

1. Each cell becomes a canonical JSON value: empty cell or ``""`` -> ``null``; text -> the text
   with CR/CRLF as LF; a formula -> ``{"f": "=..."}`` (so turning text into a live formula is a
   change); bool -> ``true``/``false``; int or float -> ``{"n": format(x, ".15g")}`` (5 and 5.0
   are equal; 15 significant digits survive any spreadsheet's re-save); date/time ->
   ``{"d": isoformat}``.
2. Each row with a value becomes ``[row_number, [cells from column A, trailing nulls dropped]]``,
   serialised with ``json.dumps(ensure_ascii=False, separators=(",", ":"))`` plus ``\\n``, UTF-8.
3. A sheet's digest is the SHA-256 of its rows' lines in row order; formatting, widths and
   empty rows do not count, any cell value does.
4. The Signature sheet lists ``sheet_digest:<name>`` for every other sheet (a table longer than
   a sheet holds goes on in ``<name> (2)``, ``<name> (3)``..., each signed as a sheet of its
   own), who signed and when (ISO 8601 with offset), the app version and counts; its ``digest``
   row holds the SHA-256 of the Signature sheet itself computed the same way with the ``digest``
   value left empty. So an edit to any data sheet changes that sheet's digest, and an edit to the
   signature (signer, time, a stored digest) changes the overall digest.

The digest shows that cells changed since signing; it is not a cryptographic proof of who signed
(anyone can recompute it). Keep the digest value somewhere else too if that matters.

No Qt here.
"""

from __future__ import annotations

import hashlib
import io as _stdio
import json
import re
import unicodedata
from collections.abc import Iterator, Mapping
from copy import copy
from itertools import chain
from dataclasses import dataclass, field
from datetime import date, datetime, time, timezone
from pathlib import Path
from typing import IO, Any

import pandas as pd
from openpyxl import Workbook, load_workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.filters import AutoFilter
from openpyxl.xml.constants import MAX_ROW

from neardup_gui import __version__
from neardup_gui.core.progress import NULL_PROGRESS, STAGE_WORKBOOK, STAGE_WORKBOOK_CHECK, Progress, give_way
from neardup_gui.core.records import REVIEW_PENDING_ARBITRATION, STATUS_OK
from neardup_gui.core.review import PairState, now_iso
from neardup_gui.io.cellsafe import CellStats, xlsx_value
from neardup_gui.io.csv_export import (
    CANDIDATE_FIELDS,
    MAPPING_FIELDS,
    REVIEW_FIELDS,
    candidate_records,
    mapping_records,
    review_records,
)
from neardup_gui.io.paths import atomic_write_bytes, ensure_outside_source
from neardup_gui.io.session import ReviewSession

SIGNATURE_SHEET = "Signature"
DATA_SHEETS = ("Manifest", "Candidates", "Reviews", "IdMapping", "Thresholds", "Run")
DIGEST_FORMAT = "neardup-cell-digest-1"
DIGEST_FIELD = "digest"
SHEET_DIGEST_PREFIX = "sheet_digest:"
# Rows a worksheet can hold (Excel's limit, header included). openpyxl's write-only sheets do not
# check it: a larger sheet is written, and Excel then "repairs" the file by dropping rows. A table
# past it continues on sheets of its own, "Candidates (2)" and so on, each with the header row.
SHEET_ROWS = MAX_ROW
MANIFEST_FIELDS = (
    "doc_id", "source_id", "version", "path", "size", "mtime", "sha256", "encoding", "chars",
    "status", "message", "extractor",
)  # fmt: skip
THRESHOLD_FIELDS = (
    "k", "threshold", "candidates", "tp", "fp", "fn", "precision", "recall", "candidate_recall",
)  # fmt: skip
# Further columns of ``neardup evaluate``, shown in this order when the stored rows have them.
THRESHOLD_EXTRA_FIELDS = (
    "split", "tn", "positives", "negatives", "lsh_misses", "bands", "rows", "label_source",
)  # fmt: skip
RUN_FIELDS = ("section", "key", "value")
SIGNATURE_FIELDS = ("field", "value", "description")

_CR_RE = re.compile(r"\r\n?")
_HEADER_FONT = Font(bold=True)
_HEADER_FILL = PatternFill("solid", fgColor="DDE4EE")
_WRAP = Alignment(wrap_text=True, vertical="top")
_NUMBER_FORMAT = "0.0000"
_MAX_LINES = 6  # taller rows make the table hard to scan; the cell still holds all its text
_LINE_HEIGHT = 15.0  # points per line of 11-point text
_MAX_WIDTH = {"raw_excerpts": 80, "shared_sample": 50, "flag_evidence": 50, "value": 80}

# Chinese column headings (language="zh"); English headings are the field names themselves.
_ZH = {
    "doc_id": "文档ID", "source_id": "来源ID", "version": "版本", "path": "路径", "size": "字节数",
    "mtime": "修改时间(UTC)", "sha256": "SHA-256", "encoding": "编码", "chars": "字符数",
    "status": "状态", "message": "说明", "left_path": "左侧路径", "left_doc_id": "左侧ID",
    "left_source_id": "左侧来源", "left_version": "左侧版本", "right_path": "右侧路径",
    "right_doc_id": "右侧ID", "right_source_id": "右侧来源", "right_version": "右侧版本",
    "methods": "方法", "score": "得分", "jaccard": "Jaccard", "containment_left": "左侧包含度",
    "containment_right": "右侧包含度", "minhash_estimate": "MinHash估计",
    "tfidf_cosine": "TF-IDF余弦", "length_ratio": "长度比", "simhash_distance": "SimHash距离",
    "shared_shingles": "共享分片数", "shingles_left": "左侧分片数", "shingles_right": "右侧分片数",
    "exact_normalized": "标准化后完全相同", "flags": "标记", "flag_evidence": "标记依据",
    "suggestion": "程序建议", "review_status": "审核状态", "review_decision": "复核结论",
    "arbitration_state": "仲裁状态", "stale": "文件已变", "shared_sample": "共享分片样例",
    "raw_excerpts": "原文重合片段", "record": "记录类型", "reason": "理由", "retained": "保留",
    "retained_doc_id": "保留ID", "retained_version": "保留版本", "related_source": "关联来源",
    "original_source": "原始出处", "author": "作者", "reprint_permission": "转载授权",
    "reviewer": "审核人", "time": "时间", "left_sha256": "左侧SHA-256",
    "right_sha256": "右侧SHA-256", "old_doc_id": "旧ID", "old_path": "旧路径",
    "new_doc_id": "新ID(保留入口)", "new_path": "新路径", "decided_by": "决定人", "k": "k",
    "threshold": "阈值", "candidates": "候选数", "tp": "TP", "fp": "FP", "fn": "FN",
    "precision": "精确率", "recall": "召回率", "candidate_recall": "候选召回率",
    "split": "数据划分", "tn": "TN", "positives": "正例数", "negatives": "负例数",
    "lsh_misses": "LSH漏检数", "bands": "LSH分带数", "rows": "每带行数", "label_source": "标注来源",
    "extractor": "提取方式",
    "section": "类别", "key": "参数", "value": "值", "field": "字段", "description": "说明",
}  # fmt: skip

_TEXT = {
    "en": {
        "no_thresholds": "No labelled pairs were evaluated for this run, so there is no threshold table.",
        "compared": "Compared: the normalized text ({rules}) of the files listed in the Manifest "
        "sheet; scores come from normalized text, excerpts are raw text.",
        "untouched": "The source folder was only read: this tool never changed, moved or deleted "
        "any source file. Statuses are suggestions for the catalogue, not actions on files.",
        "digest": "digest: SHA-256 of the cell values of every sheet (rules: neardup_gui.io.workbook); "
        "`neardup verify FILE` recomputes it. It shows whether cells changed since signing; it "
        "does not prove who signed.",
        "cells": "Text starting with = + - @ is stored as text, never as a formula; control "
        "characters are shown as ␀-␟ pictures; cells over 32,767 characters end with a cut "
        "marker and the full text stays in session.sqlite.",
        "overall": "SHA-256 over this sheet with this value left empty",
        "rows": "{n} rows with values",
        "continued": "{n} rows with values; {name} rows {first:,}-{last:,} of {total:,} (a sheet holds at most "
        "{limit:,} rows)",
        "compared_text": "Compared text: plain files as decoded with the encoding shown; "
        ".docx/.html/.pdf files as extracted by the extractor shown (main text only for web "
        "pages); SHA-256 is of the original file.",
    },
    "zh": {
        "no_thresholds": "本次运行没有评估人工标注对，因此没有阈值对照表。",
        "compared": "比较对象：清单（Manifest）所列文件的标准化文本（{rules}）；分数基于标准化文本，摘录为原文。",
        "untouched": "源文件夹只被读取：本工具没有修改、移动或删除任何源文件。审核状态只是对资料库入口的建议，不是对文件的操作。",
        "digest": "digest：各工作表单元格值的SHA-256（规则见 neardup_gui.io.workbook）；"
        "`neardup verify 文件` 可重新计算。它只说明签署后单元格是否被改动，不能证明签署人身份。",
        "cells": "以 = + - @ 开头的文字按文本保存，不作为公式；控制字符显示为 ␀-␟ 图形；超过32,767字符的单元格"
        "以截断标记结尾，全文保存在 session.sqlite。",
        "overall": "本表（此值留空）的SHA-256",
        "rows": "{n} 行有值",
        "continued": "{n} 行有值；{name} 第 {first:,}-{last:,} 行，共 {total:,} 行（每个工作表最多 {limit:,} 行）",
        "compared_text": "比较的文本：纯文本文件按所示编码解码；.docx/.html/.pdf 文件按所示提取方式提取"
        "（网页只取正文）；SHA-256 针对原始文件计算。",
    },
}  # fmt: skip


@dataclass(frozen=True)
class WorkbookSummary:
    """What ``export_workbook`` wrote."""

    path: Path
    run_id: str
    signed_by: str
    signed_at: str
    digest: str
    sheet_digests: dict[str, str]
    counts: dict[str, int]
    # Tables longer than a sheet holds: table name -> the sheets it goes on to (``Candidates (2)``...).
    continued: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class VerifyResult:
    """Outcome of ``verify_workbook``.

    Attributes:
        ok: True when every sheet and the signature match.
        message: One sentence for the user.
        sheet_mismatches: Names of sheets that differ (or are missing / unsigned).
        readable: False when the file could not be read as a signed neardup workbook.
    """

    ok: bool
    message: str
    sheet_mismatches: list[str] = field(default_factory=list)
    signed_by: str = ""
    signed_at: str = ""
    digest: str = ""
    readable: bool = True


# -- canonical values and digests ---------------------------------------------------------------
def canonical_cell(value: Any, formula: bool = False) -> Any:
    """The JSON value a cell contributes to the digest (rules in the module docstring)."""
    if value is None or value == "":
        return None
    if formula:
        return {"f": str(value)}
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return {"n": format(value, ".15g")}
    if isinstance(value, (datetime, date, time)):
        return {"d": value.isoformat()}
    return _CR_RE.sub("\n", str(value))


class _SheetHasher:
    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self.rows = 0

    def add(self, row_number: int, values: list[Any]) -> None:
        while values and values[-1] is None:
            values.pop()
        if not values:
            return
        line = json.dumps([row_number, values], ensure_ascii=False, separators=(",", ":"))
        self._hash.update(line.encode("utf-8", "surrogatepass") + b"\n")
        self.rows += 1

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def _read_rows(ws: Any) -> Iterator[tuple[int, list[Any]]]:
    """(row number, canonical values) of each row with a value, as openpyxl reads them back."""
    for row in ws.iter_rows():
        cells = [c for c in row if getattr(c, "value", None) not in (None, "")]
        if not cells:
            continue
        values: list[Any] = [None] * max(c.column for c in cells)
        for c in cells:
            values[c.column - 1] = canonical_cell(c.value, c.data_type == "f")
        yield cells[0].row, values


def _signature_digest(rows: list[tuple[int, list[Any]]]) -> str:
    hasher = _SheetHasher()
    for number, values in rows:
        values = list(values)
        if values and values[0] == DIGEST_FIELD and len(values) > 1:
            values[1] = None
        hasher.add(number, values)
    return hasher.hexdigest()


# -- frames -----------------------------------------------------------------------------------
def _utc_iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="seconds")


def _run_rows(run: Any, language: str = "en") -> list[dict[str, Any]]:
    rows = [
        ("run", "run_id", run.run_id), ("run", "source_folder", run.source),
        ("run", "started", run.started), ("run", "finished", run.finished),
        ("run", "source_integrity", run.integrity),
        ("run", "changed_files", "\n".join(run.changed_files)),
        ("run", "manifest_digest", run.manifest_digest), ("run", "lsh_bands", run.bands),
        ("run", "lsh_rows", run.rows), ("run", "normalization", run.normalization),
        ("run", "compared_text", _TEXT[language]["compared_text"]),
        ("run", "notes", "\n".join(run.notes)),
    ]  # fmt: skip

    def flat(section: str, prefix: str, data: Mapping[str, Any]) -> None:
        for key, value in data.items():
            if isinstance(value, Mapping):
                flat(section, f"{prefix}{key}.", value)
                continue
            if isinstance(value, (list, tuple)):
                value = json.dumps(list(value), ensure_ascii=False)
            rows.append((section, f"{prefix}{key}", value))

    flat("parameters", "", run.params)
    flat("versions", "", run.versions)
    flat("counts", "", run.counts)
    return [dict(zip(RUN_FIELDS, row)) for row in rows]


def build_frames(
    session: ReviewSession,
    run_id: str,
    states: Mapping[tuple[str, str], PairState],
    texts: Mapping[str, str] | None,
    language: str,
) -> dict[str, pd.DataFrame]:
    """Every data sheet as a DataFrame (object columns, field names as column names)."""
    documents = session.documents(run_id)
    thresholds = session.thresholds(run_id)
    present = {key for row in thresholds for key in row}
    extras = [f for f in THRESHOLD_EXTRA_FIELDS if f in present]
    threshold_fields = [*THRESHOLD_FIELDS, *extras,
                        *sorted(present - set(THRESHOLD_FIELDS) - set(extras))]  # fmt: skip
    if not thresholds:
        thresholds = [{"k": _TEXT[language]["no_thresholds"]}]
    manifest = [
        {**{name: getattr(d, name) for name in MANIFEST_FIELDS}, "mtime": _utc_iso(d.mtime)}
        for d in documents
    ]

    def frame(records: list[dict[str, Any]], columns: Any) -> pd.DataFrame:
        return pd.DataFrame(records, columns=list(columns), dtype=object)

    return {
        "Manifest": frame(manifest, MANIFEST_FIELDS),
        "Candidates": frame(
            candidate_records(session.candidates(run_id), documents, states, texts),
            CANDIDATE_FIELDS,
        ),
        "Reviews": frame(
            review_records(session.decisions(), session.arbitrations(), documents), REVIEW_FIELDS
        ),
        "IdMapping": frame(mapping_records(session.id_mapping(), documents), MAPPING_FIELDS),
        "Thresholds": frame(thresholds, threshold_fields),
        "Run": frame(_run_rows(session.run(run_id), language), RUN_FIELDS),
    }


# -- writing ----------------------------------------------------------------------------------
def _display_width(text: str) -> int:
    widest = 0
    for line in text.split("\n"):
        if line.isascii():
            widest = max(widest, len(line))
        else:
            widest = max(widest, sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line))
    return widest


def _text_lines(text: str, width: float) -> int:
    """Lines a wrapped cell of ``width`` (Excel character units) needs, up to _MAX_LINES."""
    per_line = max(1, int(width) - 1)
    if 2 * len(text) <= per_line and "\n" not in text:
        return 1  # fits however wide its characters
    lines = 0
    for segment in text[: per_line * _MAX_LINES].split("\n"):
        lines += max(1, -(-_display_width(segment) // per_line))
        if lines >= _MAX_LINES:
            return _MAX_LINES
    return lines


def _column_width(name: str, header: str, values: Any) -> float:
    widths = [_display_width(header)]
    for value in values:
        if isinstance(value, float):
            widths.append(8)
        elif value is not None:
            widths.append(_display_width(str(value)[:400]))
    widths.sort()
    typical = widths[min(len(widths) - 1, int(len(widths) * 0.9))]
    return float(min(max(typical, _display_width(header), 6) + 2, _MAX_WIDTH.get(name, 45)))


def _style_array(ws: Any, number: bool) -> Any:
    """The style of a wrapped text cell (or a number shown with 4 decimals) as openpyxl stores it."""
    probe = WriteOnlyCell(ws, None)
    probe.alignment = _WRAP
    if number:
        probe.number_format = _NUMBER_FORMAT
    return probe._style


class _RowCounter:
    """Rows written so far, reported as stage ``workbook`` every ``REPORT_EVERY`` rows."""

    REPORT_EVERY = 1024

    def __init__(self, progress: Progress, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def step(self) -> None:
        self.done += 1
        give_way()  # openpyxl writes each sheet to a temporary file as it goes: see core.progress.Heartbeat
        if self.done % self.REPORT_EVERY == 0:
            self.progress.report(STAGE_WORKBOOK, self.done, self.total)  # raises Cancelled when asked


def _write_sheet(
    wb: Workbook, title: str, fields: list[str], headers: list[str], rows: Iterator[list[Any]],
    widths: list[float], stats: CellStats, counter: _RowCounter | None = None, count: int | None = None,
) -> _SheetHasher:  # fmt: skip
    """Stream one sheet; returns the hasher fed with exactly the values written.

    ``count``: how many ``rows`` there are. The sheet then states its size (``<dimension>``), which
    a streamed sheet otherwise lacks: a reader in read-only mode (openpyxl's, which pandas and
    ``verify_workbook`` use) then parses the whole sheet into a tree first to find it (a 100,000-row
    sheet: millions of elements, held in a reference cycle until a full collection frees them).
    """
    ws = wb.create_sheet(title)
    if count is not None:  # (written with the sheet's first row, so known before it)
        size = f"A1:{get_column_letter(max(1, len(fields)))}{count + 1}"
        ws.calculate_dimension = lambda: size
    ws.freeze_panes = "A2"
    for index, width in enumerate(widths, 1):
        ws.column_dimensions[get_column_letter(index)].width = width
    hasher = _SheetHasher()
    written = 0
    # Each kind of cell's style is set once through openpyxl's setters and copied to the cells of
    # that kind: a setter looks the style up by hashing it, a third of the writing time otherwise.
    text_style, number_style = _style_array(ws, False), _style_array(ws, True)
    for number, raw in enumerate(chain([headers], rows), 1):
        cells, canonical, lines = [], [], 1
        for value, width in zip(raw, widths, strict=True):
            clean = xlsx_value(value, stats)
            cell = WriteOnlyCell(ws, clean)
            if isinstance(clean, str):
                cell.data_type = "s"  # text is data: never a formula
                cell._style = copy(text_style)
                lines = max(lines, _text_lines(clean, width))
            elif isinstance(clean, float):
                cell._style = copy(number_style)
            if number == 1:
                cell.font, cell.fill = _HEADER_FONT, _HEADER_FILL
            cells.append(cell)
            canonical.append(canonical_cell(clean))
        if lines > 1:
            # Spreadsheet programs do not always grow rows for wrapped text on opening.
            ws.row_dimensions[number].height = _LINE_HEIGHT * lines
        ws.append(cells)  # (the row is written now, its height with it)
        if lines > 1:
            # Not kept after: 100,000 rows' dimensions and styles, in a reference cycle with the
            # sheet, were freed only by a cyclic collection (235 ms for a 100,000-file export).
            del ws.row_dimensions[number]
        hasher.add(number, canonical)
        written = number
        if counter is not None and number > 1:
            counter.step()
    if count is not None and written != count + 1:  # the stated size would cut the table when read
        raise RuntimeError(f"sheet {title!r}: {written - 1} rows written, {count} stated")
    ws.auto_filter = AutoFilter(ref=f"A1:{get_column_letter(max(1, len(fields)))}{written}")
    return hasher


def _discard(wb: Workbook) -> None:
    """Drop a write-only workbook left half written (a cancel or an error): openpyxl streams each
    sheet into a temporary file that it otherwise removes only when the program exits."""
    for ws in wb.worksheets:
        rows, writer = getattr(ws, "_rows", None), getattr(ws, "_writer", None)
        for close in (getattr(rows, "close", None), getattr(writer, "close", None)):
            try:
                if close is not None:
                    close()
            except Exception:  # noqa: S110 - half-written XML may refuse to close; the file goes anyway
                pass
        try:
            if writer is not None and isinstance(writer.out, str):
                writer.cleanup()
        except (OSError, ValueError):
            pass


def _frame_sheets(
    wb: Workbook, title: str, df: pd.DataFrame, language: str, stats: CellStats, sheet_rows: int,
    counter: _RowCounter | None = None,
) -> list[tuple[str, _SheetHasher, int, int]]:  # fmt: skip
    """Stream one table, on as many sheets as ``sheet_rows`` (header included) requires.

    Returns (sheet name, hasher, first row, last row of the table on it; 1-based, 0 and 0 for an
    empty table) for each sheet written, in order: ``title``, then ``title (2)``, ...
    """
    fields = list(df.columns)
    headers = [_ZH.get(f, f) if language == "zh" else f for f in fields]
    sample = df.head(500)
    widths = [_column_width(f, h, sample[f]) for f, h in zip(fields, headers)]
    per_sheet = max(1, sheet_rows - 1)
    out = []
    for part, lo in enumerate(range(0, max(1, len(df)), per_sheet), 1):
        name = title if part == 1 else f"{title} ({part})"
        piece = df.iloc[lo : lo + per_sheet]
        rows = (list(row) for row in piece.itertuples(index=False, name=None))
        hasher = _write_sheet(wb, name, fields, headers, rows, widths, stats, counter, count=len(piece))
        out.append((name, hasher, min(lo + 1, len(df)), lo + len(piece)))
    return out


def export_workbook(
    path: Path,
    session: ReviewSession,
    *,
    signed_by: str,
    run_id: str | None = None,
    language: str = "en",
    texts: Mapping[str, str] | None = None,
    sheet_rows: int = SHEET_ROWS,
    progress: Progress = NULL_PROGRESS,
) -> WorkbookSummary:
    """Write the signed audit workbook of one run, atomically, and check it verifies.

    Args:
        path: Target ``.xlsx`` (replaced atomically: temporary file in the same folder, then
            ``os.replace``). Must not lie inside the run's source folder.
        session: The open review session.
        signed_by: Name of the person signing the export (required).
        run_id: Which run (default: the latest).
        language: ``en`` or ``zh`` for headings and notes (sheet names and signature keys stay
            English so ``verify`` can read any workbook).
        texts: Optional doc_id -> raw text, for the excerpts column (offsets otherwise).
        sheet_rows: Rows a sheet may hold, header included (Excel's limit). A longer table
            continues on further sheets, ``Candidates (2)`` and so on, each signed like the others.
        progress: Reports stage ``workbook`` (table rows written, of all tables' rows), then
            ``workbook_check`` while the written file is read back and verified; ``check()``
            may raise ``Cancelled`` between rows, and nothing is written then.

    Returns:
        The summary: digest, per-sheet digests (continuation sheets included), counts.

    Raises:
        ValueError: No signer, unknown language, or no run in the session.
        OutputInsideSourceError: ``path`` is inside the source folder.
        RuntimeError: The written workbook failed its own verification (a bug; nothing replaced).
    """
    if not signed_by.strip():
        raise ValueError("the workbook must be signed: give the signer's name")
    if language not in _TEXT:
        raise ValueError(f"language must be one of {sorted(_TEXT)}")
    run_id = run_id or session.latest_run_id()
    if run_id is None:
        raise ValueError(f"{session.path} holds no screening run to export")
    run = session.run(run_id)
    path = Path(path)
    if run.source:
        ensure_outside_source(path.parent, run.source)
    pair_states = session.pair_states(run_id)
    frames = build_frames(session, run_id, pair_states, texts, language)
    stats = CellStats()
    wb = Workbook(write_only=True)
    counter = _RowCounter(progress, sum(len(frames[name]) for name in DATA_SHEETS))
    try:
        progress.report(STAGE_WORKBOOK, 0, counter.total)
        sheets = {
            name: _frame_sheets(wb, name, frames[name], language, stats, sheet_rows, counter) for name in DATA_SHEETS
        }
        progress.report(STAGE_WORKBOOK, counter.total, counter.total)
    except BaseException:
        _discard(wb)
        raise

    states = pair_states.values()
    reviews = frames["Reviews"]
    counts = {
        "documents": len(frames["Manifest"]),
        "usable_documents": int((frames["Manifest"]["status"] == STATUS_OK).sum()),
        "candidates": len(frames["Candidates"]),
        "decisions": int((reviews["record"] == "decision").sum()),
        "arbitrations": int((reviews["record"] == "arbitration").sum()),
        "pairs_reviewed": sum(1 for s in states if s.decisions),
        "pairs_pending_arbitration": sum(1 for s in states if s.status == REVIEW_PENDING_ARBITRATION),
        "pairs_stale": sum(1 for s in states if s.stale),
        "id_mappings": len(frames["IdMapping"]),
        "formula_like_text_cells": stats.formula_like,
        "control_characters_replaced": stats.replaced_characters,
        "cells_cut_at_limit": stats.truncated,
    }  # fmt: skip
    text = _TEXT[language]
    sheet_notes: list[list[Any]] = []
    for name in DATA_SHEETS:
        total = len(frames[name])
        for sheet, hasher, first, last in sheets[name]:
            note = text["rows"].format(n=hasher.rows)
            if len(sheets[name]) > 1:
                note = text["continued"].format(n=hasher.rows, name=name, first=first, last=last, total=total,
                                                limit=sheet_rows)  # fmt: skip
            sheet_notes.append([f"{SHEET_DIGEST_PREFIX}{sheet}", hasher.hexdigest(), note])
    # The tables are written: let them go one at a time (all at once on return, 100,000 rows' cells
    # held the GIL ~0.1 s, and a window waiting for it).
    del reviews, states
    for name in list(frames):
        give_way()
        del frames[name]
    signed_at = now_iso()
    signature: list[list[Any]] = [
        [DIGEST_FIELD, None, text["overall"]],
        ["format", DIGEST_FORMAT, None],
        ["signed_by", signed_by.strip(), None],
        ["signed_at", signed_at, None],
        ["app_version", f"neardup_gui {__version__}", None],
        ["run_id", run_id, None],
        ["source_folder", run.source, None],
        *([f"count:{k}", v, None] for k, v in counts.items()),
        *sheet_notes,
        ["note", text["compared"].format(rules=run.normalization or "-"), None],
        ["note", text["untouched"], None],
        ["note", text["digest"], None],
        ["note", text["cells"], None],
    ]
    header = [_ZH.get(f, f) if language == "zh" else f for f in SIGNATURE_FIELDS]
    probe = [(n, [canonical_cell(xlsx_value(v)) for v in row]) for n, row in
             enumerate([header, *signature], 1)]  # fmt: skip
    digest = _signature_digest(probe)
    signature[0][1] = digest
    _write_sheet(wb, SIGNATURE_SHEET, list(SIGNATURE_FIELDS), header, iter(signature),
                 [34.0, 70.0, 60.0], CellStats(), count=len(signature))  # fmt: skip

    buffer = _stdio.BytesIO()
    wb.save(buffer)
    data = buffer.getvalue()
    # The digest rules depend on how openpyxl writes and reads cells; check before replacing.
    progress.report(STAGE_WORKBOOK_CHECK, 0, counter.total)
    check = verify_workbook(_stdio.BytesIO(data), progress=progress, total=counter.total)
    if not check.ok:
        raise RuntimeError(f"the exported workbook does not verify ({check.message}); not written")
    progress.report(STAGE_WORKBOOK_CHECK, counter.total, counter.total)
    atomic_write_bytes(path, data)
    return WorkbookSummary(
        path=path, run_id=run_id, signed_by=signed_by.strip(), signed_at=signed_at, digest=digest,
        sheet_digests={note[0][len(SHEET_DIGEST_PREFIX) :]: note[1] for note in sheet_notes}, counts=counts,
        continued={name: tuple(sheet for sheet, *_ in sheets[name][1:])
                   for name in DATA_SHEETS if len(sheets[name]) > 1},
    )  # fmt: skip


# -- verifying --------------------------------------------------------------------------------
def verify_workbook(
    path: Path | IO[bytes], progress: Progress = NULL_PROGRESS, total: int = 0
) -> VerifyResult:
    """Recompute the digests of a signed workbook and compare them with its Signature sheet.

    Args:
        path: The ``.xlsx`` file (or an open binary stream).
        progress: Reports stage ``workbook_check`` (data rows read, of ``total``; 0 when not
            known) every ``_RowCounter.REPORT_EVERY`` rows; ``check()`` may raise ``Cancelled``.

    Returns:
        ``ok`` when nothing changed since signing; otherwise ``sheet_mismatches`` names the
        sheets that differ (``Signature`` when only the signature block was edited), and
        ``readable`` is False when the file is not a readable signed workbook.
    """
    try:
        wb = load_workbook(path, read_only=True, data_only=False)
    except Exception as exc:  # openpyxl raises many types for a bad file; all mean "unreadable"
        return VerifyResult(False, f"Cannot read {path} as an Excel workbook: {exc}", readable=False)
    try:
        if SIGNATURE_SHEET not in wb.sheetnames:
            return VerifyResult(
                False, "No Signature sheet: this is not a signed neardup workbook.", readable=False
            )
        signature_rows = list(_read_rows(wb[SIGNATURE_SHEET]))
        fields: dict[str, Any] = {}
        signed: dict[str, str] = {}
        for _number, values in signature_rows:
            key = values[0] if values and isinstance(values[0], str) else None
            value = values[1] if len(values) > 1 else None
            if key is None:
                continue
            if key.startswith(SHEET_DIGEST_PREFIX):
                signed[key[len(SHEET_DIGEST_PREFIX) :]] = value if isinstance(value, str) else ""
            else:
                fields.setdefault(key, value)
        stored = fields.get(DIGEST_FIELD)
        if fields.get("format") != DIGEST_FORMAT or not isinstance(stored, str) or not signed:
            return VerifyResult(
                False, "The Signature sheet has no digest this version can check.", readable=False
            )
        mismatches: list[str] = []
        read = 0
        for name in wb.sheetnames:
            if name == SIGNATURE_SHEET:
                continue
            hasher = _SheetHasher()
            for number, values in _read_rows(wb[name]):
                give_way()
                hasher.add(number, values)
                read += number > 1  # the table's rows, as the export counts them (not the headers)
                if number > 1 and read % _RowCounter.REPORT_EVERY == 0:
                    progress.report(STAGE_WORKBOOK_CHECK, read, total)
            if name not in signed:
                mismatches.append(f"{name} (not signed)")
            elif hasher.hexdigest() != signed[name]:
                mismatches.append(name)
        mismatches += [f"{name} (missing)" for name in signed if name not in wb.sheetnames]
        if _signature_digest(signature_rows) != stored:
            mismatches.append(SIGNATURE_SHEET)
    finally:
        wb.close()
    signed_by = str(fields.get("signed_by") or "")
    signed_at = str(fields.get("signed_at") or "")
    if mismatches:
        verb = "differs" if len(mismatches) == 1 else "differ"
        claim = f"signed by {signed_by or '?'} at {signed_at or '?'}"
        if SIGNATURE_SHEET in mismatches:
            claim = f"the signature itself was edited (it now says {claim})"
        return VerifyResult(
            False, f"Changed since signing: {', '.join(mismatches)} {verb}; {claim}.",
            mismatches, signed_by, signed_at, stored,
        )  # fmt: skip
    return VerifyResult(
        True,
        f"Unchanged since signing: {len(signed)} sheets and the signature match what "
        f"{signed_by} signed at {signed_at} (digest {stored[:16]}…).",
        [], signed_by, signed_at, stored,
    )  # fmt: skip
