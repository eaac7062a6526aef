"""Labels files (CSV in several encodings, XLSX) and review decisions as labels, on real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import Workbook

from neardup_gui.core.records import Candidate, Decision, Document, RunRecord, ScreenParams
from neardup_gui.io.labels import LabelsError, labels_from_decisions, load_labels, read_labels, resolve_labels
from neardup_gui.io.paths import resources_dir
from neardup_gui.io.session import SESSION_FILENAME, ReviewSession

DOCS = [
    Document("d-a", "历史稿件", "v1", "历史稿件/食堂开业.txt", 10, 1.0, "a" * 64, "utf-8", 5, "ok"),
    Document("d-b", "网站转载", "v1", "网站转载/canteen_repost.txt", 10, 1.0, "b" * 64, "utf-8", 5, "ok"),
    Document("d-c", "通讯员来稿", "v1", "通讯员来稿/未命名稿件.txt", 0, 1.0, "", "", 0, "empty"),
]
HEADER = "left,right,label,reason,split\n"


def _write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


def test_bundled_sample_labels_are_read_with_reasons_and_splits() -> None:
    rows = read_labels(resources_dir() / "sample_labels.csv")
    assert len(rows) == 17
    assert sum(r.label for r in rows) == 5
    assert {r.split for r in rows} == {"tune", "holdout"}
    assert rows[0].line == 2 and rows[0].left == "历史稿件/2023-06-12_柳塘街道社区食堂开业.txt"
    assert rows[3].reason.startswith("有效修订")


def test_csv_saved_by_excel_on_chinese_windows_in_gbk_is_read(tmp_path: Path) -> None:
    path = _write(tmp_path / "标注.csv", HEADER + "历史稿件/食堂开业.txt,网站转载/canteen_repost.txt,1,格式副本，正文一致,tune\n", "gb18030")
    [row] = read_labels(path)
    assert row.left == "历史稿件/食堂开业.txt" and row.reason == "格式副本，正文一致" and row.label == 1


def test_semicolon_separated_csv_with_commas_in_reasons_is_read(tmp_path: Path) -> None:
    path = _write(tmp_path / "labels.csv", "left;right;label;reason\nd-a;d-b;0;\"a, b; c\"\n", "utf-8-sig")
    [row] = read_labels(path)
    assert (row.left, row.right, row.label, row.reason) == ("d-a", "d-b", 0, "a, b; c")


def test_xlsx_labels_with_numeric_labels_are_read_from_the_labels_sheet(tmp_path: Path) -> None:
    book = Workbook()
    book.active.title = "说明"
    book.active.append(["这张表不是标注"])
    sheet = book.create_sheet("Labels")
    sheet.append(["Left", "Right", "Label", "Reason", "Split", "备注"])
    sheet.append(["历史稿件/食堂开业.txt", "网站转载/canteen_repost.txt", 1.0, "格式副本", "holdout", "x"])
    sheet.append([None, None, None, None, None])
    sheet.append(["d-a", "d-c", 0, None, None])
    book.save(tmp_path / "labels.xlsx")
    rows = read_labels(tmp_path / "labels.xlsx")
    assert [(r.line, r.label, r.split) for r in rows] == [(2, 1, "holdout"), (4, 0, "")]


def test_missing_label_column_is_refused_with_the_expected_columns(tmp_path: Path) -> None:
    path = _write(tmp_path / "labels.csv", "left,right,verdict\nd-a,d-b,1\n")
    with pytest.raises(LabelsError, match="lacks the column\\(s\\) label; expected left, right, label"):
        read_labels(path)


def test_labels_other_than_one_or_zero_are_refused_with_their_lines(tmp_path: Path) -> None:
    path = _write(tmp_path / "labels.csv", HEADER + "d-a,d-b,是,,\nd-a,,1,,\nd-a,d-b,1,,\n")
    with pytest.raises(LabelsError, match="line 2: label must be 1 or 0, got '是'; line 3: left and right"):
        read_labels(path)


def test_unknown_file_format_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LabelsError, match="old .xls"):
        read_labels(_write(tmp_path / "labels.xls", "x"))
    with pytest.raises(LabelsError, match="not found"):
        read_labels(tmp_path / "missing.csv")


def test_documents_are_matched_by_doc_id_relative_path_or_absolute_path(tmp_path: Path) -> None:
    root = tmp_path / "source"
    path = _write(
        tmp_path / "labels.csv",
        HEADER
        + "d-a,.\\网站转载\\canteen_repost.txt,1,,\n"
        + f"{root / '历史稿件/食堂开业.txt'},通讯员来稿/未命名稿件.txt,0,,\n",
    )
    labels = load_labels(path, DOCS, root=root)
    assert [(p.left, p.right, p.label) for p in labels.pairs] == [("d-a", "d-b", 1), ("d-a", "d-c", 0)]
    assert labels.pairs[0].right_name == "网站转载/canteen_repost.txt"
    assert labels.source == "labels file labels.csv" and not labels.unresolved


def test_unknown_documents_are_reported_with_a_suggestion_not_dropped(tmp_path: Path) -> None:
    path = _write(tmp_path / "labels.csv", HEADER + "历史稿件/食堂开业.txt,网站转载/canteen_reposts.txt,1,,\nd-a,d-b,1,,\n")
    labels = load_labels(path, DOCS)
    assert len(labels.pairs) == 1
    [missing] = labels.unresolved
    assert missing.unknown == ("网站转载/canteen_reposts.txt",)
    assert missing.message.startswith("line 2: '网站转载/canteen_reposts.txt' is neither a doc_id nor a path")
    assert "did you mean '网站转载/canteen_repost.txt'?" in missing.message


def test_one_pair_labelled_both_ways_is_refused_and_a_repeat_is_counted_once(tmp_path: Path) -> None:
    rows = read_labels(_write(tmp_path / "a.csv", HEADER + "d-a,d-b,1,,\nd-b,d-a,1,,\n"))
    labels = resolve_labels(rows, DOCS)
    assert len(labels.pairs) == 1 and labels.warnings == ("line 3 repeats line 2 (same pair, same label); counted once",)
    rows = read_labels(_write(tmp_path / "b.csv", HEADER + "d-a,d-b,1,,\n网站转载/canteen_repost.txt,d-a,0,,\n"))
    with pytest.raises(LabelsError, match="lines 2 and 3 label the same pair"):
        resolve_labels(rows, DOCS)


def test_review_decisions_become_labels_and_say_so(tmp_path: Path) -> None:
    docs = [Document(f"d-{n}", "s", "v1", f"{n}.txt", 1, 1.0, n * 64, "utf-8", 1, "ok") for n in "abcde"]
    cands = [Candidate(l, r, ("minhash",), 0.9, 0.9, 0.9, 0.9, 9, 10, 10, 1.0, 0.9)
             for l, r in (("d-a", "d-b"), ("d-a", "d-c"), ("d-a", "d-d"), ("d-d", "d-e"))]  # fmt: skip
    run = RunRecord("run-1", str(tmp_path), ScreenParams().to_dict(), 25, 5, {}, "0" * 64, {}, "", "")
    with ReviewSession.open(tmp_path / SESSION_FILENAME) as session:
        session.record_run(run, docs, cands)
        t = "2024-05-01T09:00:00+08:00"
        session.add_decision(Decision("d-a", "d-b", "suggest_merge_entry", "王芳", t, reason="同一稿件"))
        session.add_decision(Decision("d-a", "d-c", "valid_revision", "王芳", t, reason="数字改了"))
        session.add_decision(Decision("d-a", "d-d", "keep_both", "王芳", t))
        session.add_decision(Decision("d-a", "d-d", "suggest_merge_entry", "李雷", t))
        labels = labels_from_decisions(session)
    assert [(p.left, p.right, p.label) for p in labels.pairs] == [("d-a", "d-b", 1), ("d-a", "d-c", 0)]
    assert labels.pairs[0].reason == "suggest_merge_entry: 同一稿件"
    assert labels.source.startswith("review decisions in session.sqlite (suggest_merge_entry = 1")
    assert any("1 reviewed pair(s) still pending or awaiting arbitration" in w for w in labels.warnings)
    assert any("candidate recall" in w for w in labels.warnings)
