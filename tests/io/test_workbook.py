"""The signed audit workbook, written from a real session and read back with openpyxl."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from pathlib import Path

import pytest
from openpyxl import load_workbook

from neardup_gui.core.records import (
    Arbitration,
    Candidate,
    Decision,
    Document,
    NormalizeOptions,
    RunRecord,
    ScreenParams,
    Segment,
)
from neardup_gui.io.cellsafe import EXCEL_CELL_LIMIT, TRUNCATION_MARKER
from neardup_gui.io.paths import OutputInsideSourceError
from neardup_gui.io.session import SESSION_FILENAME, ReviewSession
from neardup_gui.io.workbook import DATA_SHEETS, export_workbook, verify_workbook

FORMULA = '=HYPERLINK("http://x","y")'
TEXTS = {
    "d-a": "资料整理说明：先备份原始稿件，再登记来源与版本。每周归档一次。",
    "d-b": "资料整理说明  先备份原始稿件，再登记来源与版本！每周归档一次。",
    "d-c": FORMULA + "\x07 资料整理说明：先备份原始稿件。",
}
PATHS = {"d-a": "news/a.txt", "d-b": "news/b.txt", "d-c": "web/=c.txt"}


def _doc(doc_id: str) -> Document:
    data = TEXTS[doc_id].encode("utf-8")
    return Document(doc_id, PATHS[doc_id].split("/")[0], "v2" if doc_id == "d-b" else "v1",
                    PATHS[doc_id], len(data), 1_714_525_200.0, hashlib.sha256(data).hexdigest(),
                    "utf-8", len(TEXTS[doc_id]), "ok")  # fmt: skip


def _candidate(left: str, right: str, jaccard: float, *segments: Segment) -> Candidate:
    return Candidate(left, right, ("minhash",), jaccard, 0.91, 0.875, 0.8046875, 30, 34, 36, 0.94,
                     jaccard, flags=("number_changed",), shared_sample=("资料整", "=1+"),
                     segments=segments)  # fmt: skip


@pytest.fixture
def session(tmp_path: Path):
    source = tmp_path / "source"
    source.mkdir()
    s = ReviewSession.open(tmp_path / "out" / SESSION_FILENAME)
    run = RunRecord("run-1", str(source), ScreenParams(k=3).to_dict(), 25, 5,
                    {"neardup_gui": "0.1.0"}, "00" * 32, {"files": 3},
                    "2024-05-01T09:00:00+08:00", "2024-05-01T09:00:02+08:00", "unchanged",
                    normalization=NormalizeOptions().describe())  # fmt: skip
    s.record_run(run, [_doc(d) for d in TEXTS],
                 [_candidate("d-a", "d-b", 0.123456789, Segment(0, 6, 0, 6), Segment(7, 13, 8, 14)),
                  _candidate("d-a", "d-c", 0.5, Segment(0, 6, 28, 34), Segment(7, 13, 0, 27))])  # fmt: skip
    yield s
    s.close()


def _export(session: ReviewSession, tmp_path: Path, **kwargs):
    target = tmp_path / "export" / "review.xlsx"
    summary = export_workbook(target, session, signed_by="王芳", texts=TEXTS, **kwargs)
    return target, summary


def _column(ws, name: str) -> list:
    header = [c.value for c in ws[1]]
    col = header.index(name) + 1
    return [ws.cell(row=r, column=col) for r in range(2, ws.max_row + 1)]


def test_workbook_has_every_sheet_with_frozen_filterable_header(session, tmp_path) -> None:
    target, _ = _export(session, tmp_path)
    wb = load_workbook(target)
    assert wb.sheetnames == [*DATA_SHEETS, "Signature"]
    for ws in wb:
        assert ws.freeze_panes == "A2", ws.title
        assert ws.auto_filter.ref and ws.auto_filter.ref.startswith("A1:"), ws.title
        assert ws["A1"].font.b, ws.title
        assert all(6 <= (ws.column_dimensions[c].width or 0) <= 80 for c in "AB"), ws.title
    manifest = wb["Manifest"]
    assert [c.value for c in manifest[1]][:4] == ["doc_id", "source_id", "version", "path"]
    assert manifest.max_row == 4
    assert wb["Candidates"]["A2"].alignment.wrap_text
    # two excerpts on two lines: the row is made tall enough to show them
    assert wb["Candidates"].row_dimensions[2].height >= 30


def test_every_sheet_states_its_size_for_readers_that_stream_it(session, tmp_path) -> None:
    # A streamed sheet has no <dimension> unless it is given one: openpyxl's read-only mode (which
    # pandas and verify use) then parses the whole sheet into a tree to find its size.
    import zipfile

    target, _ = _export(session, tmp_path, sheet_rows=3)  # the Manifest on two sheets
    full = load_workbook(target)
    with zipfile.ZipFile(target) as z:
        stated = [re.search(rb"<dimension ref=\"([A-Z]+[0-9]+:[A-Z]+[0-9]+)\"", z.read(name))
                  for name in z.namelist() if name.startswith("xl/worksheets/sheet")]  # fmt: skip
    assert len(stated) == len(full.sheetnames) and all(stated)
    streamed = load_workbook(target, read_only=True)
    for name in full.sheetnames:
        ws = full[name]
        assert streamed[name].calculate_dimension() == f"A1:{ws.cell(1, ws.max_column).column_letter}{ws.max_row}"
        assert [r for r in streamed[name].iter_rows(values_only=True)] == [
            r for r in ws.iter_rows(values_only=True)
        ], name
    streamed.close()
    assert full["Manifest (2)"].max_row == 2 and verify_workbook(target).ok


def test_text_that_looks_like_a_formula_is_a_string_cell(session, tmp_path) -> None:
    session.add_decision(Decision("d-a", "d-c", "keep_both", "alice", "", reason=FORMULA))
    target, summary = _export(session, tmp_path)
    wb = load_workbook(target)
    reason = _column(wb["Reviews"], "reason")[0]
    assert (reason.value, reason.data_type) == (FORMULA, "s")
    path = _column(wb["Manifest"], "path")[2]
    assert (path.value, path.data_type) == ("web/=c.txt", "s")
    excerpt = _column(wb["Candidates"], "raw_excerpts")[1]
    assert excerpt.data_type == "s" and f"(right) {FORMULA}" in excerpt.value
    assert not any(c.data_type == "f" for ws in wb for row in ws.iter_rows() for c in row)
    assert summary.counts["formula_like_text_cells"] >= 1


def test_control_characters_are_replaced_visibly_instead_of_failing(session, tmp_path) -> None:
    session.add_decision(Decision("d-a", "d-b", "keep_both", "bell\x07user", "", reason="a\x00b\x1bc\ufffe"))
    target, summary = _export(session, tmp_path)
    wb = load_workbook(target)
    reason = _column(wb["Reviews"], "reason")[0].value
    assert reason == "a\u2400b\u241bc\ufffd"
    assert _column(wb["Reviews"], "reviewer")[0].value == "bell\u2407user"
    assert "\u2407" in _column(wb["Candidates"], "raw_excerpts")[1].value  # BEL in the raw text
    assert summary.counts["control_characters_replaced"] >= 4
    assert session.decisions()[0].reason == "a\x00b\x1bc\ufffe"  # the session keeps the original


def test_overlong_cell_is_cut_with_a_marker_and_the_session_keeps_everything(session, tmp_path) -> None:
    long_reason = "理由" * 20_000  # 40,000 characters
    session.add_decision(Decision("d-a", "d-b", "keep_both", "alice", "", reason=long_reason))
    target, summary = _export(session, tmp_path)
    value = _column(load_workbook(target)["Reviews"], "reason")[0].value
    assert len(value) <= EXCEL_CELL_LIMIT and value.endswith(TRUNCATION_MARKER)
    assert value.startswith("理由理由")
    assert summary.counts["cells_cut_at_limit"] == 1
    assert session.decisions()[0].reason == long_reason
    assert verify_workbook(target).ok


def test_both_reviewers_and_the_arbitration_appear_in_the_reviews_sheet(session, tmp_path) -> None:
    session.add_decision(Decision("d-a", "d-c", "suggest_merge_entry", "alice",
                                  "2024-05-01T10:00:00+08:00", retained="left",
                                  related_source="人民日报 1998-01-02"))  # fmt: skip
    session.add_decision(Decision("d-a", "d-c", "valid_revision", "bob", "2024-05-01T11:00:00+08:00"))
    target, _ = _export(session, tmp_path)
    reviews = load_workbook(target)["Reviews"]
    rows = [[c.value for c in row] for row in reviews.iter_rows(min_row=2)]
    header = [c.value for c in reviews[1]]
    get = lambda row, name: row[header.index(name)]  # noqa: E731
    assert [(get(r, "reviewer"), get(r, "status"), get(r, "arbitration_state")) for r in rows] == [
        ("alice", "suggest_merge_entry", "pending_arbitration"),
        ("bob", "valid_revision", "pending_arbitration"),
    ]
    assert get(rows[0], "retained_doc_id") == "d-a" and get(rows[0], "retained_version") == "v1"
    assert get(rows[0], "related_source") == "人民日报 1998-01-02"

    session.add_arbitration(Arbitration("d-a", "d-c", "chief", "valid_revision", "数字变化", ""))
    target, _ = _export(session, tmp_path)
    wb = load_workbook(target)
    rows = [[c.value for c in row] for row in wb["Reviews"].iter_rows(min_row=2)]
    assert [get(r, "record") for r in rows] == ["decision", "decision", "arbitration"]
    assert [get(r, "arbitration_state") for r in rows] == ["arbitrated", "arbitrated", "final"]
    assert get(rows[2], "reviewer") == "chief"
    statuses = [c.value for c in _column(wb["Candidates"], "review_status")]
    assert statuses == ["pending", "valid_revision"]


def test_scores_are_numbers_shown_with_four_decimals(session, tmp_path) -> None:
    target, _ = _export(session, tmp_path)
    cell = _column(load_workbook(target)["Candidates"], "jaccard")[0]
    assert cell.data_type == "n" and cell.value == pytest.approx(0.123456789)
    assert cell.number_format == "0.0000"


def test_excerpts_come_from_the_raw_texts_or_give_offsets(session, tmp_path) -> None:
    target, _ = _export(session, tmp_path)
    excerpts = _column(load_workbook(target)["Candidates"], "raw_excerpts")[0].value
    assert excerpts.startswith("[1] 资料整理说明\n[2] 先备份原始稿")
    target = tmp_path / "no-texts.xlsx"
    export_workbook(target, session, signed_by="王芳")
    excerpts = _column(load_workbook(target)["Candidates"], "raw_excerpts")[0].value
    assert excerpts.startswith("[1] left 0-6, right 0-6")


def test_threshold_sheet_holds_a_note_without_labels_and_the_table_with_them(session, tmp_path) -> None:
    target, _ = _export(session, tmp_path)
    ws = load_workbook(target)["Thresholds"]
    assert "No labelled pairs" in ws["A2"].value
    session.set_thresholds([{"k": 3, "threshold": 0.5, "candidates": 2, "tp": 1, "fp": 1, "fn": 0,
                             "precision": 0.5, "recall": 1.0, "candidate_recall": 1.0}])  # fmt: skip
    target, _ = _export(session, tmp_path)
    ws = load_workbook(target)["Thresholds"]
    assert [c.value for c in ws[2]] == [3, 0.5, 2, 1, 1, 0, 0.5, 1, 1]


def test_run_and_signature_sheets_record_parameters_signer_and_zone(session, tmp_path) -> None:
    target, summary = _export(session, tmp_path)
    wb = load_workbook(target)
    run = {(r[0], r[1]): r[2] for r in wb["Run"].iter_rows(min_row=2, values_only=True)}
    assert run[("parameters", "k")] == 3 and run[("parameters", "normalize.keep")] == "alnum"
    assert run[("run", "source_integrity")] == "unchanged"
    assert run[("run", "lsh_bands")] == 25
    sig = {r[0]: r[1] for r in wb["Signature"].iter_rows(min_row=2, values_only=True)}
    assert sig["signed_by"] == "王芳" and sig["digest"] == summary.digest
    assert datetime.fromisoformat(sig["signed_at"]).utcoffset() is not None
    assert sig["count:candidates"] == 2
    assert re.fullmatch(r"[0-9a-f]{64}", sig["sheet_digest:Candidates"])
    notes = " ".join(r[1] for r in wb["Signature"].iter_rows(values_only=True) if r[0] == "note")
    assert "normalized text" in notes and "never changed" in notes


def test_verify_passes_on_a_fresh_workbook_and_after_a_plain_resave(session, tmp_path) -> None:
    target, _ = _export(session, tmp_path)
    result = verify_workbook(target)
    assert result.ok and result.signed_by == "王芳" and result.sheet_mismatches == []
    wb = load_workbook(target)
    wb.save(tmp_path / "resaved.xlsx")
    assert verify_workbook(tmp_path / "resaved.xlsx").ok


def test_verify_names_the_sheet_whose_cell_was_edited(session, tmp_path) -> None:
    target, _ = _export(session, tmp_path)
    wb = load_workbook(target)
    _column(wb["Candidates"], "jaccard")[0].value = 0.99
    wb.save(target)
    result = verify_workbook(target)
    assert not result.ok and result.sheet_mismatches == ["Candidates"]
    assert "Candidates" in result.message


def test_verify_notices_text_turned_into_a_live_formula(session, tmp_path) -> None:
    session.add_decision(Decision("d-a", "d-b", "keep_both", "alice", "", reason=FORMULA))
    target, _ = _export(session, tmp_path)
    wb = load_workbook(target)
    _column(wb["Reviews"], "reason")[0].value = FORMULA  # same text, now typed as a formula
    wb.save(target)
    assert verify_workbook(target).sheet_mismatches == ["Reviews"]


def test_verify_notices_an_edited_signer(session, tmp_path) -> None:
    target, _ = _export(session, tmp_path)
    wb = load_workbook(target)
    ws = wb["Signature"]
    for row in ws.iter_rows(min_row=2):
        if row[0].value == "signed_by":
            row[1].value = "someone else"
    wb.save(target)
    result = verify_workbook(target)
    assert result.sheet_mismatches == ["Signature"] and "signature itself was edited" in result.message


def test_verify_refuses_a_workbook_without_signature(tmp_path) -> None:
    from openpyxl import Workbook

    Workbook().save(tmp_path / "plain.xlsx")
    result = verify_workbook(tmp_path / "plain.xlsx")
    assert not result.ok and not result.readable and "Signature" in result.message
    (tmp_path / "junk.xlsx").write_bytes(b"not a zip")
    assert not verify_workbook(tmp_path / "junk.xlsx").readable


def test_chinese_headings_still_verify(session, tmp_path) -> None:
    target, _ = _export(session, tmp_path, language="zh")
    wb = load_workbook(target)
    assert wb["Candidates"]["A1"].value == "左侧路径"
    assert "没有评估" in wb["Thresholds"]["A2"].value
    assert verify_workbook(target).ok


def test_export_refuses_to_write_into_the_source_folder(session, tmp_path) -> None:
    with pytest.raises(OutputInsideSourceError):
        export_workbook(tmp_path / "source" / "review.xlsx", session, signed_by="王芳")
    assert list((tmp_path / "source").iterdir()) == []


def test_export_needs_a_signer(session, tmp_path) -> None:
    with pytest.raises(ValueError, match="signed"):
        export_workbook(tmp_path / "x.xlsx", session, signed_by=" ")
    assert not (tmp_path / "x.xlsx").exists()


def _run_with_extracted_page(session: ReviewSession, source: str) -> None:
    from dataclasses import replace

    page = replace(_doc("d-b"), path="web/page.html", extractor="html stdlib 3.11 +main")
    run = RunRecord("run-2", source, ScreenParams(k=3).to_dict(), 25, 5, {}, "11" * 32, {"files": 2},
                    "2024-05-02T09:00:00+08:00", "2024-05-02T09:00:02+08:00", "unchanged")  # fmt: skip
    session.record_run(run, [_doc("d-a"), page], [_candidate("d-a", "d-b", 0.7)])


def test_manifest_names_the_extractor_of_each_file(session, tmp_path) -> None:
    _run_with_extracted_page(session, str(tmp_path / "source"))
    target, _ = _export(session, tmp_path)
    manifest = load_workbook(target)["Manifest"]
    rows = {r["path"]: r for r in _records(manifest)}
    assert rows["web/page.html"]["extractor"] == "html stdlib 3.11 +main"
    assert rows["news/a.txt"]["extractor"] == "text"
    target, _ = _export(session, tmp_path, language="zh")
    assert "提取方式" in [c.value for c in load_workbook(target)["Manifest"][1]]
    assert verify_workbook(target).ok


def test_run_sheet_says_which_text_was_compared_in_either_language(session, tmp_path) -> None:
    for language, words in (("en", ("Compared text:", "extractor shown", "SHA-256 is of the original file")),
                            ("zh", ("比较的文本", "网页只取正文", "原始文件"))):  # fmt: skip
        target, _ = _export(session, tmp_path, language=language)
        run = {(r[0], r[1]): r[2] for r in load_workbook(target)["Run"].iter_rows(min_row=2, values_only=True)}
        note = run[("run", "compared_text")]
        assert all(w in note for w in words), note


def test_threshold_extra_columns_keep_the_evaluate_order_and_get_chinese_headings(session, tmp_path) -> None:
    row = {"k": 3, "threshold": 0.5, "candidates": 2, "tp": 1, "fp": 1, "fn": 0, "precision": 0.5,
           "recall": 1.0, "candidate_recall": 1.0, "label_source": "labels file l.csv", "split": "all",
           "tn": 4, "positives": 1, "negatives": 5, "lsh_misses": None, "bands": 25, "rows": 5}  # fmt: skip
    session.set_thresholds([row])
    target, _ = _export(session, tmp_path)
    head = [c.value for c in load_workbook(target)["Thresholds"][1]]
    assert head[9:] == ["split", "tn", "positives", "negatives", "lsh_misses", "bands", "rows", "label_source"]
    target, _ = _export(session, tmp_path, language="zh")
    head = [c.value for c in load_workbook(target)["Thresholds"][1]]
    assert head[9:] == ["数据划分", "TN", "正例数", "负例数", "LSH漏检数", "LSH分带数", "每带行数", "标注来源"]
    assert verify_workbook(target).ok


def _records(ws) -> list[dict]:
    rows = list(ws.iter_rows(values_only=True))
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def test_scores_with_seventeen_digits_still_verify(session, tmp_path) -> None:
    """openpyxl writes 16 digits and the digest keeps 15: a 17-digit float used to round two ways."""
    run = RunRecord("run-f", str(tmp_path / "source"), ScreenParams(k=3).to_dict(), 25, 5, {}, "22" * 32,
                    {}, "2024-05-03T09:00:00+08:00", "2024-05-03T09:00:02+08:00", "unchanged")  # fmt: skip
    awkward = 0.29625550660792954
    session.record_run(run, [_doc("d-a"), _doc("d-b")], [_candidate("d-a", "d-b", awkward)])
    target, _ = _export(session, tmp_path)
    assert verify_workbook(target).ok
    assert _column(load_workbook(target)["Candidates"], "jaccard")[0].value == pytest.approx(awkward, rel=1e-14)


def _rows(ws) -> list[tuple]:
    return [tuple(c.value for c in row) for row in ws.iter_rows()]


def test_excel_row_limit_is_the_sheet_size_by_default() -> None:
    from neardup_gui.io.workbook import SHEET_ROWS

    assert SHEET_ROWS == 1_048_576  # Excel's rows per worksheet, header included


def test_a_table_longer_than_a_sheet_goes_on_over_signed_sheets_with_nothing_lost(session, tmp_path) -> None:
    whole, _ = _export(session, tmp_path)
    full = load_workbook(whole)
    split = tmp_path / "split.xlsx"
    summary = export_workbook(split, session, signed_by="王芳", texts=TEXTS, sheet_rows=2)  # a header and one row
    wb = load_workbook(split)
    assert wb.sheetnames[:5] == ["Manifest", "Manifest (2)", "Manifest (3)", "Candidates", "Candidates (2)"]
    assert wb.sheetnames[-1] == "Signature"
    assert summary.continued["Manifest"] == ("Manifest (2)", "Manifest (3)")
    assert summary.continued["Candidates"] == ("Candidates (2)",)
    for name in ("Manifest", "Candidates"):
        sheets = [name, *summary.continued[name]]
        header = _rows(full[name])[0]
        assert all(_rows(wb[s])[0] == header and wb[s].freeze_panes == "A2" for s in sheets)
        assert all(wb[s].max_row <= 2 for s in sheets)
        # The sheets, read in order without their headers, hold the whole table as one sheet does.
        assert [r for s in sheets for r in _rows(wb[s])[1:]] == _rows(full[name])[1:]
    sig = {r[0]: r for r in wb["Signature"].iter_rows(values_only=True)}
    assert "sheet_digest:Candidates (2)" in sig and "rows 2-2 of 2" in sig["sheet_digest:Candidates (2)"][2]
    assert set(summary.sheet_digests) == {n for n in wb.sheetnames if n != "Signature"}
    assert verify_workbook(split).ok


def test_verify_names_an_edited_or_missing_continuation_sheet(session, tmp_path) -> None:
    split = tmp_path / "split.xlsx"
    export_workbook(split, session, signed_by="王芳", texts=TEXTS, sheet_rows=2)
    wb = load_workbook(split)
    _column(wb["Candidates (2)"], "jaccard")[0].value = 0.99
    wb.save(tmp_path / "edited.xlsx")
    assert verify_workbook(tmp_path / "edited.xlsx").sheet_mismatches == ["Candidates (2)"]
    wb = load_workbook(split)
    del wb["Manifest (3)"]
    wb.save(tmp_path / "cut.xlsx")
    result = verify_workbook(tmp_path / "cut.xlsx")
    assert result.sheet_mismatches == ["Manifest (3) (missing)"] and not result.ok


class _Recorder:
    """A progress that keeps every report and stops the export at a chosen one."""

    def __init__(self, stop_at: tuple[str, int] | None = None) -> None:
        self.reports: list[tuple[str, int, int]] = []
        self.stop_at = stop_at

    def report(self, stage: str, done: int, total: int) -> None:
        self.reports.append((stage, done, total))
        if self.stop_at is not None and (stage, done) == self.stop_at:
            from neardup_gui.core.progress import Cancelled

            raise Cancelled()

    def check(self) -> None:
        pass


@pytest.fixture
def big_session(tmp_path: Path):
    source = tmp_path / "source"
    source.mkdir()
    s = ReviewSession.open(tmp_path / "big" / SESSION_FILENAME)
    docs = [Document(f"d{i:05d}", "news", "v1", f"news/{i:05d}.txt", 120, 1_714_525_200.0, f"{i:064x}", "utf-8",
                     40, "ok") for i in range(2500)]  # fmt: skip
    run = RunRecord("run-1", str(source), ScreenParams(k=3).to_dict(), 25, 5, {"neardup_gui": "0.1.0"}, "00" * 32,
                    {"files": 2500}, "2024-05-01T09:00:00+08:00", "2024-05-01T09:00:02+08:00", "unchanged")  # fmt: skip
    s.record_run(run, docs, [])
    yield s
    s.close()


def test_export_reports_rows_written_then_rows_checked(big_session, tmp_path) -> None:
    progress = _Recorder()
    summary = export_workbook(tmp_path / "x.xlsx", big_session, signed_by="王芳", progress=progress)
    written = [r for r in progress.reports if r[0] == "workbook"]
    checked = [r for r in progress.reports if r[0] == "workbook_check"]
    total = written[0][2]
    assert total >= 2500 and summary.counts["documents"] == 2500
    assert [d for _, d, _ in written] == sorted(d for _, d, _ in written)  # counts only go up
    assert written[0][1] == 0 and written[-1][1] == total and any(0 < d < total for _, d, _ in written)
    assert checked[0][1] == 0 and any(d >= 2048 for _, d, _ in checked) and checked[-1][1] == total  # ends full
    assert all(d <= total for _, d, _ in checked) and all(t == total for _, _, t in checked)
    assert progress.reports.index(written[-1]) < progress.reports.index(checked[0])


def test_a_cancelled_export_leaves_the_previous_workbook_as_it_was(big_session, tmp_path, monkeypatch) -> None:
    import tempfile

    from neardup_gui.core.progress import Cancelled

    spool = tmp_path / "spool"  # where openpyxl streams each sheet before the file is put together
    spool.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool))

    target = tmp_path / "x.xlsx"
    export_workbook(target, big_session, signed_by="王芳")
    before = target.read_bytes()
    with pytest.raises(Cancelled):
        export_workbook(target, big_session, signed_by="李明", progress=_Recorder(stop_at=("workbook", 1024)))
    with pytest.raises(Cancelled):
        export_workbook(target, big_session, signed_by="李明", progress=_Recorder(stop_at=("workbook_check", 1024)))
    assert target.read_bytes() == before and verify_workbook(target).signed_by == "王芳"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("x")] == ["x.xlsx"]  # no temporary left
    assert list(spool.iterdir()) == []  # nor the half-written sheets


def _garbage_cycles_left_by_an_export(tmp_path: Path, rows: int) -> int:
    """Objects an export leaves in reference cycles (freed only by a cyclic collection)."""
    import gc

    s = ReviewSession.open(tmp_path / f"w{rows}" / SESSION_FILENAME)
    docs = [Document(f"d{i:05d}", "news", "v1", f"news/{i:05d}.txt", 120, 1_714_525_200.0, f"{i:064x}", "utf-8",
                     40, "ok", "这一行的说明很长，单元格放不下，要折行显示。" * 8) for i in range(rows)]  # fmt: skip
    run = RunRecord("run-1", str(tmp_path / "source"), ScreenParams(k=3).to_dict(), 25, 5, {"neardup_gui": "0.1.0"},
                    "00" * 32, {"files": rows}, "2024-05-01T09:00:00+08:00", "2024-05-01T09:00:02+08:00", "unchanged")  # fmt: skip
    s.record_run(run, docs, [])
    gc.collect()
    gc.disable()
    try:
        export_workbook(tmp_path / f"x{rows}.xlsx", s, signed_by="王芳")
        return gc.collect()
    finally:
        gc.enable()
        s.close()


def test_an_export_leaves_no_garbage_cycle_per_row(tmp_path) -> None:
    # Each wrapped row's height (and its style) stayed in a cycle with its sheet until a cyclic
    # collection: 100,000 rows made one of ~235 ms, a stall of the window after each export.
    few, many = (_garbage_cycles_left_by_an_export(tmp_path, n) for n in (300, 900))
    assert many - few < 100, (few, many)
