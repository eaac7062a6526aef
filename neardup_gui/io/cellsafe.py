"""Make text safe to put into spreadsheet cells (CSV and XLSX), shared by both exporters.

Document text and file names are data. Spreadsheet programs run a cell that starts with ``=``,
``+``, ``-`` or ``@`` (and, in some, tab or carriage return) as a formula, so:

- CSV (``csv_cell``): the OWASP "CSV injection" rule: such a text gets a leading apostrophe
  (``'=1+1``); Excel and LibreOffice show the apostrophe-led text as plain text.
- XLSX (``xlsx_text`` + ``set_text_cell``): the text is kept as it is, but the cell is typed as a
  string (openpyxl's ``data_type = "s"``), which no spreadsheet evaluates. openpyxl would otherwise
  store ``=...`` as a formula.

XLSX cells also need:

- Characters XML 1.0 cannot carry replaced *visibly*: the C0 control characters openpyxl rejects
  (``ILLEGAL_CHARACTERS_RE``: U+0000-U+0008, U+000B, U+000C, U+000E-U+001F) become the matching
  Unicode "control picture" (U+2400 + code, e.g. BEL U+0007 -> ``␇``), one character for one, so
  offsets and lengths stay the same. U+FFFE, U+FFFF and lone surrogates, which openpyxl writes but
  cannot read back (the file becomes unreadable), become U+FFFD ``�``.
- Line ends normalised to ``\\n``: XML readers turn a stored CR into LF, so a CR would not survive a
  save and read-back (and the signature digest must be recomputable from what is read back).
- At most 32,767 characters (Excel's cell limit, counted in UTF-16 code units as Excel does): longer
  text is cut and ends with ``TRUNCATION_MARKER``; the full text stays in the review session.

Plain functions on values; imports neither Qt nor pandas. openpyxl is imported lazily.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
EXCEL_CELL_LIMIT = 32_767
TRUNCATION_MARKER = " …[cut at Excel's 32,767-character cell limit; full text in the review session]"

# The same set as openpyxl.cell.cell.ILLEGAL_CHARACTERS_RE (kept here so the CSV path does not
# import openpyxl); a test checks they agree.
_ILLEGAL_XML_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_UNREADABLE_RE = re.compile("[\ufffe\uffff\ud800-\udfff]")
_CR_RE = re.compile(r"\r\n?")


@dataclass
class CellStats:
    """Counts of what sanitising changed, for the export summary."""

    formula_like: int = 0
    replaced_characters: int = 0
    truncated: int = 0


def looks_like_formula(text: str) -> bool:
    """True when a spreadsheet could read ``text`` as a formula (starts with = + - @ tab CR)."""
    return text.startswith(FORMULA_PREFIXES)


def csv_cell(value: Any) -> Any:
    """Escape one CSV value against formula injection (OWASP).

    Args:
        value: Any cell value. Only ``str`` values are changed; numbers, booleans and None are
            returned unchanged so they stay numbers in the file.

    Returns:
        The value, with a leading ``'`` added when the text starts with = + - @ tab or CR.
    """
    if isinstance(value, str) and looks_like_formula(value):
        return "'" + value
    return value


def _control_picture(match: re.Match[str]) -> str:
    return chr(0x2400 + ord(match.group(0)))


def _utf16_len(text: str) -> int:
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _cut_utf16(text: str, limit: int) -> str:
    """Longest prefix of ``text`` whose UTF-16 length is at most ``limit``."""
    if _utf16_len(text) <= limit:
        return text
    units = 0
    for index, ch in enumerate(text):
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > limit:
            return text[:index]
    return text


def xlsx_text(text: str, stats: CellStats | None = None) -> str | None:
    """Turn text into the exact string an XLSX cell will hold (and read back).

    Args:
        text: Any text (document excerpts, file names, reasons).
        stats: Optional counters, updated in place.

    Returns:
        The sanitised text, or None for an empty string (an empty text cell is read back as an
        empty cell, so it is written as one).
    """
    if text == "":
        return None
    clean = _CR_RE.sub("\n", text)
    clean, n_controls = _ILLEGAL_XML_CONTROL_RE.subn(_control_picture, clean)
    clean, n_unreadable = _UNREADABLE_RE.subn("\ufffd", clean)
    if stats is not None:
        stats.replaced_characters += n_controls + n_unreadable
        if looks_like_formula(clean):
            stats.formula_like += 1
    if len(clean) > EXCEL_CELL_LIMIT // 2 and _utf16_len(clean) > EXCEL_CELL_LIMIT:
        clean = _cut_utf16(clean, EXCEL_CELL_LIMIT - _utf16_len(TRUNCATION_MARKER)) + TRUNCATION_MARKER
        if stats is not None:
            stats.truncated += 1
    return clean


def xlsx_value(value: Any, stats: CellStats | None = None) -> Any:
    """Sanitise any cell value for XLSX: text through ``xlsx_text``, numbers as Python numbers.

    numpy scalars become ``int``/``float``; floats are rounded to 15 significant digits (what
    Excel keeps); NaN becomes None (an empty cell), an infinity the text ``inf``; other objects
    are turned into text.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if value != value:
            return None
        if math.isinf(value):
            return xlsx_text(str(value), stats)  # no spreadsheet number can hold it
        # Excel keeps 15 significant digits; openpyxl writes 16 ("%.16g"). Rounding here makes the
        # value written, the value read back and the signature digest's 15-digit form agree (a
        # 17-digit float such as 0.29625550660792954 would otherwise round two ways).
        rounded = float(format(value, ".15g"))
        return rounded if not math.isinf(rounded) else float(format(value, ".14g"))
    if isinstance(value, str):
        return xlsx_text(value, stats)
    # numpy scalars and other number-likes
    item = getattr(value, "item", None)
    if callable(item):
        return xlsx_value(item(), stats)
    return xlsx_text(str(value), stats)


def set_text_cell(cell: Any, value: Any) -> Any:
    """Assign an already sanitised value to an openpyxl cell, forcing text cells to be strings.

    openpyxl types a str starting with ``=`` as a formula on assignment; setting ``data_type`` to
    ``"s"`` afterwards makes it a plain string cell that no spreadsheet evaluates.

    Returns:
        The cell, for chaining.
    """
    cell.value = value
    if isinstance(value, str):
        cell.data_type = "s"
    return cell
