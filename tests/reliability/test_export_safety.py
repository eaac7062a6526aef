"""Export safety: document text and file names never become formulas in any CSV or XLSX cell.

File names and texts start with = + - @, tab and CR, hold commas, quotes and control characters;
they go through a real screen, decisions and every export. Each CSV cell starting with a formula
character is escaped with a leading apostrophe (OWASP); each XLSX cell is a string cell, checked
both through openpyxl and in the sheet XML itself (no ``<f>`` element anywhere).
"""

from __future__ import annotations

import re
import sys
import zipfile
from pathlib import Path

import pytest
from openpyxl import load_workbook
from reliability_kit import BASE, EDITED, read_csv

from neardup_gui import cli
from neardup_gui.io.cellsafe import FORMULA_PREFIXES
from neardup_gui.io.workbook import verify_workbook

HOSTILE_NAMES = [
    '=HYPERLINK("http:evil","点我").txt',
    "@SUM(1+1)*cmd.txt",
    "+1+2.txt",
    "-2+3.txt",
    "\tleading tab.txt",
    "a,b;c.txt",
    'say "hi".txt',
    "it's.txt",
    "空 格 文件.txt",
    "😀 表情.txt",
]
HOSTILE_TEXTS = ["=1+1 ", "@cmd ", "+A1 ", "-B2 ", "\x07\x1b\x00 ", "\r"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if sys.platform == "win32":
        pytest.skip("names with quotes and tabs are not allowed on Windows")
    tmp_path = tmp_path_factory.mktemp("export")
    source, out = tmp_path / "source", tmp_path / "out"
    (source / "=folder").mkdir(parents=True)
    for i, name in enumerate(HOSTILE_NAMES):
        text = HOSTILE_TEXTS[i % len(HOSTILE_TEXTS)] + (BASE if i % 2 else EDITED)
        (source / "=folder" / name).write_text(text, encoding="utf-8")
    controlled = BASE[:40] + "\x07\x1b\x0b" + BASE[40:]
    (source / "ctrl_a.txt").write_text(controlled, encoding="utf-8")
    (source / "ctrl_b.txt").write_text(controlled + "附言", encoding="utf-8")
    assert cli.main(["screen", str(source), "--out", str(out), "-q"]) == 0
    names = [f"=folder/{n}" for n in HOSTILE_NAMES]
    assert cli.main(["decide", str(out), "--left", names[0], "--right", names[1], "--status", "keep_both",
                     "--reviewer", "@reviewer", "--reason=" + "=cmd|' /C calc'!A0\x07"]) == 0  # fmt: skip
    assert cli.main(["decide", str(out), "--left", names[2], "--right", names[3], "--status",
                     "suggest_merge_entry", "--retained", "left", "--reviewer=-x",
                     "--reason=+SUM(A1)"]) == 0  # fmt: skip
    exports = tmp_path / "exports"
    for language in ("en", "zh"):
        assert cli.main(["export", str(out), "--xlsx", str(exports / f"review_{language}.xlsx"),
                         "--csv", str(exports / "csv"), "--signed-by", "=王", "--language", language]) == 0  # fmt: skip
    return out, exports


def _csv_files(out: Path, exports: Path) -> list[Path]:
    return [out / "manifest.csv", out / "candidates.csv", *sorted((exports / "csv").glob("*.csv"))]


def test_no_csv_cell_starts_with_a_formula_character(exported) -> None:
    out, exports = exported
    seen_escaped = 0
    for path in _csv_files(out, exports):
        for row in read_csv(path):
            for column, value in row.items():
                assert not (value or "").startswith(FORMULA_PREFIXES), (path.name, column, value)
                seen_escaped += (value or "").startswith("'") and value[1:].startswith(FORMULA_PREFIXES)
    assert seen_escaped >= len(HOSTILE_NAMES)  # the names (and reasons) were there, escaped


def test_csv_cells_keep_names_whole_behind_the_apostrophe(exported) -> None:
    out, _ = exported
    paths = {row["path"] for row in read_csv(out / "manifest.csv")}
    expected = {f"=folder/{n}" for n in HOSTILE_NAMES}
    assert {p[1:] if p.startswith("'") else p for p in paths} - {"ctrl_a.txt", "ctrl_b.txt"} == expected


def test_every_xlsx_cell_is_data_never_a_formula(exported) -> None:
    _, exports = exported
    for book in sorted(exports.glob("*.xlsx")):
        with zipfile.ZipFile(book) as archive:
            for name in archive.namelist():
                if name.startswith("xl/worksheets/"):
                    xml = archive.read(name).decode("utf-8")
                    assert not re.search(r"<f[ >]", xml), (book.name, name)
        wb = load_workbook(book)
        texts = [c for ws in wb for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
        assert all(c.data_type == "s" for c in texts)
        manifest_paths = {c.value for c in texts if c.parent.title == "Manifest"}
        assert {f"=folder/{n}" for n in HOSTILE_NAMES} <= manifest_paths  # names kept exactly, as text
        reasons = [c.value for c in texts if c.parent.title == "Reviews"]
        assert "=cmd|' /C calc'!A0\u2407" in reasons  # BEL shown as its control picture
        assert "\x07" not in "".join(c.value for c in texts) and "\x00" not in "".join(c.value for c in texts)
        assert verify_workbook(book).ok


def test_control_characters_in_texts_reach_the_workbook_visibly(exported) -> None:
    _, exports = exported
    wb = load_workbook(exports / "review_en.xlsx")
    header = [c.value for c in wb["Candidates"][1]]
    excerpts = [row[header.index("raw_excerpts")] for row in wb["Candidates"].iter_rows(min_row=2, values_only=True)]
    joined = "".join(e or "" for e in excerpts)
    assert "\u2407\u241b\u240b" in joined  # BEL, ESC and VT inside a shared passage, as pictures
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", joined)
