"""CSV export of candidates, reviews and the id mapping; the shared cell-sanitising rules."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

from neardup_gui.core.records import REVIEW_STATUSES, Arbitration, Candidate, Decision, Document, Segment
from neardup_gui.io import cellsafe
from neardup_gui.io.csv_export import (
    export_candidates_csv,
    export_id_mapping_csv,
    export_reviews_csv,
    review_decision,
)
from neardup_gui.io.session import PairState

DOCS = [
    Document("d-a", "news", "v1", "news/报销.txt", 40, 1.0, "a" * 64, "utf-8", 20, "ok"),
    Document("d-b", "news", "v2", "news/=SUM(A1).txt", 41, 1.0, "b" * 64, "gb18030", 21, "ok"),
]
CANDIDATE = Candidate("d-a", "d-b", ("tfidf",), 0.5, 0.6, 0.7, None, 10, 20, 20, 0.95, 0.7967,
                      flags=("negation_changed", "exact_normalized"), shared_sample=("-不需", "@主管"),
                      segments=(Segment(0, 4, 0, 4),), tfidf_cosine=0.7967)  # fmt: skip


def _read(path: Path) -> list[dict[str, str]]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 with BOM, for spreadsheet programs
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def test_candidates_csv_reads_back_with_chinese_scores_and_review_vocabulary(tmp_path: Path) -> None:
    state = PairState("d-a", "d-b", "pending_arbitration")
    target = tmp_path / "out" / "candidates.csv"
    assert export_candidates_csv(target, [CANDIDATE], DOCS, {CANDIDATE.key: state},
                                 texts={"d-a": "报销单提交", "d-b": "报销单提"}) == 1  # fmt: skip
    [row] = _read(target)
    assert row["left_path"] == "news/报销.txt"
    assert row["right_path"] == "news/=SUM(A1).txt"
    assert row["tfidf_cosine"] == "0.796700" and row["minhash_estimate"] == ""
    assert row["exact_normalized"] == "yes"
    assert (row["review_status"], row["review_decision"]) == ("pending_arbitration", "needs_context")
    assert row["raw_excerpts"] == "[1] 报销单提"
    assert row["shared_sample"] == "'-不需 | @主管"  # starts with "-": escaped


def test_formula_like_cells_get_a_leading_apostrophe(tmp_path: Path) -> None:
    decision = Decision("d-a", "d-b", "keep_both", "@alice", "2024-05-01T10:00:00+08:00",
                        reason='=HYPERLINK("http://x","y")', related_source="+86 报社",
                        author="\tTab", original_source="-1")  # fmt: skip
    export_reviews_csv(tmp_path / "reviews.csv", [decision], [], DOCS)
    [row] = _read(tmp_path / "reviews.csv")
    assert row["reason"] == "'=HYPERLINK(\"http://x\",\"y\")"
    assert row["reviewer"] == "'@alice"
    assert row["related_source"] == "'+86 报社"
    assert row["author"] == "'\tTab"
    assert row["original_source"] == "'-1"
    assert row["right_path"] == "news/=SUM(A1).txt"  # "=" not at the start: left alone


def test_review_decision_maps_every_status_to_the_tfidf_vocabulary() -> None:
    assert {s: review_decision(s) for s in REVIEW_STATUSES} == {
        "pending": "needs_context",
        "keep_both": "keep_both",
        "suggest_merge_entry": "merge",
        "public_quotation": "keep_both",
        "valid_revision": "keep_both",
        "pending_arbitration": "needs_context",
    }


def test_reviews_csv_lists_the_history_then_the_arbitration_with_states(tmp_path: Path) -> None:
    decisions = [
        Decision("d-a", "d-b", "suggest_merge_entry", "alice", "2024-05-01T10:00:00+08:00",
                 retained="right", left_sha256="a" * 64, right_sha256="0" * 64),
        Decision("d-a", "d-b", "keep_both", "bob", "2024-05-01T11:00:00+08:00"),
    ]  # fmt: skip
    arbitration = Arbitration("d-a", "d-b", "chief", "keep_both", "版本不同", "2024-05-02T09:00:00+08:00")
    assert export_reviews_csv(tmp_path / "r.csv", decisions, [arbitration], DOCS) == 3
    rows = _read(tmp_path / "r.csv")
    assert [(r["record"], r["reviewer"], r["review_decision"]) for r in rows] == [
        ("decision", "alice", "merge"),
        ("decision", "bob", "keep_both"),
        ("arbitration", "chief", "keep_both"),
    ]
    assert [r["arbitration_state"] for r in rows] == ["arbitrated", "arbitrated", "final"]
    assert (rows[0]["retained_doc_id"], rows[0]["retained_version"]) == ("d-b", "v2")
    assert [r["stale"] for r in rows[:2]] == ["yes", "no"]  # alice saw another right-hand file


def test_id_mapping_csv_names_old_and_kept_entries(tmp_path: Path) -> None:
    export_id_mapping_csv(tmp_path / "m.csv", [("d-a", "d-b", "alice", "2024-05-01T10:00:00+08:00")], DOCS)
    [row] = _read(tmp_path / "m.csv")
    assert (row["old_doc_id"], row["old_path"], row["new_doc_id"]) == ("d-a", "news/报销.txt", "d-b")


def test_csv_rewrite_is_atomic_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "c.csv"
    target.write_text("old", encoding="utf-8")
    export_candidates_csv(target, [CANDIDATE], DOCS, {})
    assert _read(target)[0]["review_status"] == "pending"
    assert [p.name for p in tmp_path.iterdir()] == ["c.csv"]


def test_cellsafe_control_set_matches_openpyxl() -> None:
    every = "".join(chr(i) for i in range(0x20))
    assert re.findall(cellsafe._ILLEGAL_XML_CONTROL_RE, every) == ILLEGAL_CHARACTERS_RE.findall(every)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("=1+1", "=1+1"),
        ("a\r\nb\rc", "a\nb\nc"),
        ("\x00\x1f\t\n", "\u2400\u241f\t\n"),
        ("lone \ud800 surrogate", "lone \ufffd surrogate"),
        ("", None),
    ],
)
def test_xlsx_text_keeps_text_readable_and_loadable(text: str, expected: str | None) -> None:
    assert cellsafe.xlsx_text(text) == expected


def test_xlsx_text_cut_counts_utf16_units_like_excel() -> None:
    astral = "\U00020000" * 20_000  # CJK Extension B: two UTF-16 units each
    cut = cellsafe.xlsx_text(astral)
    assert cut is not None and cut.endswith(cellsafe.TRUNCATION_MARKER)
    assert len(cut.encode("utf-16-le")) // 2 <= cellsafe.EXCEL_CELL_LIMIT
    short = "字" * cellsafe.EXCEL_CELL_LIMIT
    assert cellsafe.xlsx_text(short) == short
