"""Property-based tests (hypothesis) of the invariants everything shown or exported rests on.

- normalization equals the rules applied to the whole string, and its offset map leads back to
  the raw characters each normalized character came from;
- shingle sets are exact (one value per distinct window) and batch equals one by one;
- shared passages found on two texts are equal after normalization, on raw spans inside both;
- code-point offsets convert to the positions of a real Qt text document (UTF-16 units, CR LF);
- any text survives a CSV file and an XLSX cell (read back with csv and openpyxl) as the
  exporters promise, and never becomes a formula.
"""

from __future__ import annotations

import csv
import io
import unicodedata

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from neardup_gui.core.diffspans import pair_diff
from neardup_gui.core.normalize import codepoints, normalize, normalize_batch
from neardup_gui.core.records import NORMALIZE_PRESETS, NormalizeOptions
from neardup_gui.core.shingles import shingle_set, shingle_sets, window_hashes
from neardup_gui.io import outputs
from neardup_gui.io.cellsafe import FORMULA_PREFIXES, xlsx_text, xlsx_value

# Characters that stress the rules: CJK, full-width, compatibility forms, astral characters,
# combining marks, Hangul jamo, controls, line ends, invisible and bidi marks, case specials.
SPECIAL = list(
    "中文字甲乙丙丁，。！？、《》“”…—ＡＢｃ１２３㎡ﬁß İΣς\u0301\u0308\u3099\u1100\u1161\u11a8가"
    "𠀀𪚥😀👩\u200d👧\u200b\u200c\u202e\u2066\u2069\ufeff\r\n\t \u3000\u00a0\u2028\u2029\x00\x07\x1b"
)
CHARS = st.one_of(st.sampled_from(SPECIAL), st.characters(exclude_categories=("Cs",)))
TEXT = st.text(CHARS, max_size=80)
OPTIONS = st.sampled_from([NormalizeOptions.preset(p) for p in NORMALIZE_PRESETS]
                          + [NormalizeOptions(False, "none", "alnum")])  # fmt: skip
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def rules(text: str, options: NormalizeOptions) -> str:
    """The normalization rules applied to a whole string, straight from their description."""
    if options.nfkc:
        text = unicodedata.normalize("NFKC", text)
    text = {"casefold": str.casefold, "lower": str.lower}.get(options.case, str)(text)
    if options.keep == "alnum":
        return "".join(c for c in text if c.isalnum())
    if options.keep == "punct":
        return "".join(c for c in text if not c.isspace() and unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp", "Zs"))
    return "".join(c for c in text if not c.isspace())


@FAST
@given(TEXT, OPTIONS)
def test_normalized_text_is_the_rules_applied_to_the_whole_string(text: str, options: NormalizeOptions) -> None:
    assert normalize(text, options).text == rules(text, options)


@FAST
@given(TEXT, OPTIONS)
def test_the_offset_map_leads_each_normalized_character_back_to_its_raw_source(text: str, options: NormalizeOptions) -> None:
    norm = normalize(text, options)
    n = len(norm)
    assert norm.starts.shape == norm.ends.shape == (n,)
    assert np.all((0 <= norm.starts) & (norm.starts < norm.ends) & (norm.ends <= len(text)))
    assert np.all(np.diff(norm.starts) >= 0) and np.all(np.diff(norm.ends) >= 0)
    # Consecutive characters from one raw span are exactly the rules applied to that span.
    i, rebuilt = 0, []
    while i < n:
        j = i
        while j < n and (norm.starts[j], norm.ends[j]) == (norm.starts[i], norm.ends[i]):
            j += 1
        piece = rules(text[norm.starts[i] : norm.ends[i]], options)
        assert piece == norm.text[i:j], (text[norm.starts[i] : norm.ends[i]], piece, norm.text[i:j])
        rebuilt.append(piece)
        i = j
    assert "".join(rebuilt) == norm.text


@FAST
@given(TEXT, OPTIONS, st.data())
def test_a_raw_span_holds_the_normalized_passage_it_was_mapped_from(text: str, options: NormalizeOptions, data) -> None:
    norm = normalize(text, options)
    assume(len(norm) > 0)
    a = data.draw(st.integers(0, len(norm) - 1))
    b = data.draw(st.integers(a + 1, len(norm)))
    start, end = norm.raw_span(a, b)
    assert norm.text[a:b] in rules(text[start:end], options)


@FAST
@given(st.lists(TEXT, max_size=6), OPTIONS)
def test_batch_normalization_equals_one_text_at_a_time(texts: list[str], options: NormalizeOptions) -> None:
    batch = normalize_batch(texts, options)
    assert [b.tolist() for b in batch] == [normalize(t, options).cps.tolist() for t in texts]


@FAST
@given(st.text(st.sampled_from(list("中文甲乙丙丁戊己庚辛ab12")), max_size=60), st.integers(1, 8))
def test_shingle_sets_hold_one_value_per_distinct_window(text: str, k: int) -> None:
    cps = codepoints(text)
    got = shingle_set(cps, k)
    windows = {text[i : i + k] for i in range(len(text) - k + 1)}
    assert got.dtype == np.uint64 and len(got) == len(windows)
    assert np.all(got[1:] > got[:-1])  # sorted, no duplicates
    assert len(window_hashes(cps, k)) == max(0, len(text) - k + 1)


@FAST
@given(st.lists(st.text(CHARS, max_size=30), max_size=6), st.integers(1, 6))
def test_batch_shingling_equals_one_document_at_a_time(texts: list[str], k: int) -> None:
    cps = [codepoints(t).copy() for t in texts]
    assert [s.tolist() for s in shingle_sets(cps, k)] == [shingle_set(c, k).tolist() for c in cps]


@settings(max_examples=80, deadline=None)
@given(TEXT, TEXT, TEXT, OPTIONS)
def test_shared_passages_are_equal_after_normalization_on_raw_spans_inside_both(a: str, b: str, shared: str, options) -> None:
    left, right = a + shared + b, b + shared + a
    diff = pair_diff(left, right, options, min_len=3)
    for seg in diff.segments:
        assert 0 <= seg.left_start < seg.left_end <= len(left)
        assert 0 <= seg.right_start < seg.right_end <= len(right)
        assert rules(left[seg.left_start : seg.left_end], options) == rules(right[seg.right_start : seg.right_end], options)
    for start, end in (*diff.left_changes, *diff.left_unique):
        assert 0 <= start <= end <= len(left)
    for start, end in (*diff.right_changes, *diff.right_unique):
        assert 0 <= start <= end <= len(right)


# -- highlight offsets on a real Qt document -------------------------------------------------
QT_TEXT = st.text(st.one_of(st.sampled_from(list("中文a\r\n𠀀😀\u2028\u2029\u200b\u0301 ")), st.characters(exclude_categories=("Cs",))), max_size=40)


@pytest.fixture(scope="module")
def qt_document(qapp):
    from PySide6.QtGui import QTextDocument

    return QTextDocument()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=QT_TEXT)
def test_code_point_offsets_land_on_the_same_characters_in_a_qt_document(qt_document, text: str) -> None:
    from neardup_gui.ui.offsets import OffsetMap

    qt_document.setPlainText(text)
    offsets = OffsetMap(text)
    assert offsets.to_qt(len(text)) == qt_document.characterCount() - 1  # minus the final separator
    for i, ch in enumerate(text):
        pos = offsets.to_qt(i)
        shown = qt_document.characterAt(pos)
        if ch == "\n" and i > 0 and text[i - 1] == "\r":
            assert pos == offsets.to_qt(i - 1) + 1  # CR LF is one separator: LF has no position
            continue
        if ch in "\r\n":
            assert shown == "\u2029", (i, repr(ch))  # a line end is one block separator
        elif ord(ch) > 0xFFFF:
            assert 0xD800 <= ord(shown) < 0xDC00  # the high surrogate; the character takes two
            assert offsets.to_qt(i + 1) == pos + 2
        else:
            assert shown == ch, (i, repr(ch), repr(shown))
        assert offsets.from_qt(pos) == i


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=QT_TEXT, data=st.data())
def test_a_highlight_selects_exactly_its_raw_characters_in_qt(qt_document, text: str, data) -> None:
    from PySide6.QtGui import QTextCursor

    from neardup_gui.ui.offsets import OffsetMap

    assume(text)
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    assume(not (0 < start < len(text) and text[start - 1 : start + 1] == "\r\n"))  # not inside a CR LF
    assume(not (0 < end < len(text) and text[end - 1 : end + 1] == "\r\n"))
    qt_document.setPlainText(text)
    offsets = OffsetMap(text)
    cursor = QTextCursor(qt_document)
    cursor.setPosition(offsets.to_qt(start))
    cursor.setPosition(offsets.to_qt(end), QTextCursor.MoveMode.KeepAnchor)
    expected = text[start:end].replace("\r\n", "\u2029").replace("\r", "\u2029").replace("\n", "\u2029")
    assert cursor.selectedText() == expected


# -- CSV and XLSX round trips ------------------------------------------------------------------
CELL_TEXT = st.text(st.one_of(st.sampled_from(["=", "+", "-", "@", "\t", "\r", "\n", '"', ",", "'", "中", "𠀀", "\x00", "\x07", "\ufffe"]), st.characters(exclude_categories=("Cs",))), max_size=40)


@FAST
@given(st.lists(CELL_TEXT, min_size=1, max_size=5))
def test_any_text_survives_a_csv_file_with_only_formula_starts_escaped(values: list[str]) -> None:
    data = outputs.csv_bytes([f"c{i}" for i in range(len(values))], [values])
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    assert len(rows) == 2
    for original, read in zip(values, rows[1]):
        if original.startswith(FORMULA_PREFIXES):
            assert read == "'" + original  # OWASP: a leading apostrophe, the text kept whole
        else:
            assert read == original


@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(CELL_TEXT, st.floats(), st.integers(-(2**53), 2**53)), min_size=1, max_size=6))
def test_any_value_survives_an_xlsx_cell_as_sanitised_and_never_as_a_formula(values: list) -> None:
    from openpyxl import Workbook, load_workbook
    from openpyxl.cell import WriteOnlyCell

    from neardup_gui.io.workbook import canonical_cell

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("t")
    cells, expected = [], []
    for value in values:
        clean = xlsx_value(value)
        cell = WriteOnlyCell(ws, clean)
        if isinstance(clean, str):
            cell.data_type = "s"
        cells.append(cell)
        expected.append(canonical_cell(clean))
    ws.append(cells)
    buffer = io.BytesIO()
    wb.save(buffer)
    back = load_workbook(io.BytesIO(buffer.getvalue()))["t"]
    read = [back.cell(row=1, column=i + 1) for i in range(len(values))]
    assert [canonical_cell(c.value, c.data_type == "f") for c in read] == expected
    for value, cell in zip(values, read):
        assert cell.data_type != "f"
        if isinstance(value, str):
            assert cell.value == xlsx_text(value)
            if xlsx_text(value) is not None:
                assert len(cell.value) == len(value.replace("\r\n", "\n"))  # one character for one
