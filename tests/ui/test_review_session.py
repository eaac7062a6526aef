"""The review session in the window: export, reopen a workspace, history and arbitration, stale decisions."""

from __future__ import annotations

import csv
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from ui_factories import SCREEN_TIMEOUT_MS

from neardup_gui.core.records import (
    REVIEW_KEEP_BOTH,
    REVIEW_SUGGEST_MERGE,
    REVIEW_VALID_REVISION,
)
from neardup_gui.io.session import ReviewSession
from neardup_gui.io.workbook import verify_workbook
from neardup_gui.tasks import SESSION_FILE
from neardup_gui.ui.candidate_model import Column
from neardup_gui.ui.history_panel import RECORD_ROLE
from neardup_gui.ui.palette import OKABE_ITO


def decide(window, status: str, reviewer: str = "张编辑", reason: str = "") -> None:
    form = window.decision_form
    form.reviewer_edit.setText(reviewer)
    form.reason_edit.setPlainText(reason)
    assert form.choose_status(status)


def select_pair_with(window, flag: str):
    view = window.candidate_view
    for row in range(view.shown_count()):
        view.select_proxy_row(row)
        if flag in view.current_candidate().flags:
            return view.current_candidate()
    raise AssertionError(f"no pair with {flag}")


def status_text(window, pair) -> str:
    return window.candidate_model.index(window.candidate_model.row_of(pair), Column.STATUS).data()


def test_export_from_the_window_writes_a_workbook_that_verifies(screened, qtbot, tmp_path: Path) -> None:
    window = screened
    decide(window, REVIEW_SUGGEST_MERGE, reason="同一篇稿件")
    dialog = window.workspaces.export_workbook()
    assert dialog.signer() == "张编辑"  # the remembered reviewer
    target = tmp_path / "exports" / "审核.xlsx"
    dialog.signer_edit.setText("王主编")
    dialog.path_edit.setText(str(target))
    with qtbot.waitSignal(window.workspaces.export_finished, timeout=SCREEN_TIMEOUT_MS) as done:
        dialog.accept()
    summary = done.args[0].workbook
    result = verify_workbook(target)
    assert result.ok and result.signed_by == "王主编"
    assert summary.counts["decisions"] == 1
    shown = window.last_message.text()
    assert summary.digest in shown and str(target) in shown and "王主编" in shown


def test_export_tells_when_a_table_goes_on_over_more_sheets(screened, qtbot, tmp_path: Path) -> None:
    window = screened
    target = tmp_path / "split.xlsx"
    with qtbot.waitSignal(window.workspaces.export_finished, timeout=SCREEN_TIMEOUT_MS) as done:
        window.workspaces.start_export(xlsx=target, signed_by="王主编", language="zh", sheet_rows=4)
    summary = done.args[0].workbook
    more = summary.continued["Candidates"]
    assert more[0] == "Candidates (2)" and verify_workbook(target).ok
    shown = window.last_message.text()
    assert f"The Candidates table goes on over {len(more)} more sheet(s), Candidates (2)" in shown
    assert "1,048,576" in shown


def test_the_status_bar_follows_the_workbook_being_written_and_checked(screened, qtbot, tmp_path: Path) -> None:
    window = screened
    seen: list[str] = []
    window.statusBar().messageChanged.connect(seen.append)
    with qtbot.waitSignal(window.workspaces.export_finished, timeout=SCREEN_TIMEOUT_MS):
        window.workspaces.start_export(xlsx=tmp_path / "r.xlsx", signed_by="王主编", language="zh")
    total = next(m for m in seen if "writing the review workbook" in m).split(" of ")[1].split(" ")[0]
    assert int(total.replace(",", "")) >= len(window.outcome.documents) + len(window.outcome.candidates)
    assert f"writing the review workbook, {total} of {total} rows" in " | ".join(seen)
    assert any("checking the written workbook" in m for m in seen)
    written = next(i for i, m in enumerate(seen) if "writing the review workbook" in m)
    checked = next(i for i, m in enumerate(seen) if "checking the written workbook" in m)
    assert written < checked < seen.index("Export finished.")


def test_export_csv_writes_the_three_files_into_the_chosen_folder(screened, qtbot, tmp_path: Path) -> None:
    window = screened
    decide(window, REVIEW_KEEP_BOTH)
    folder = tmp_path / "csv"
    folder.mkdir()
    window.workspaces.ask_folder = lambda *_args: str(folder)
    with qtbot.waitSignal(window.workspaces.export_finished, timeout=SCREEN_TIMEOUT_MS):
        window.workspaces.export_csv()
    with (folder / "reviews.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["record"], r["status"]) for r in rows] == [("decision", REVIEW_KEEP_BOTH)]
    assert (folder / "candidates_reviewed.csv").is_file() and (folder / "id_mapping.csv").is_file()


def test_export_warns_when_a_source_file_changed_and_goes_on_when_asked(screened, qtbot, sample: Path, tmp_path) -> None:
    window = screened
    changed = sample / "历史稿件" / "old_estate_renovation.txt"
    changed.write_text(changed.read_text(encoding="utf-8") + "\n补记。", encoding="utf-8")
    window.workspaces.start_export(xlsx=tmp_path / "r.xlsx", signed_by="王主编", language="zh")
    qtbot.waitUntil(lambda: window.workspaces.integrity_box is not None, timeout=SCREEN_TIMEOUT_MS)
    box = window.workspaces.integrity_box
    assert "1 source file(s) changed" in box.text()
    assert "old_estate_renovation.txt" in box.detailedText()
    assert not (tmp_path / "r.xlsx").exists()  # nothing written before the answer
    with qtbot.waitSignal(window.workspaces.export_finished, timeout=SCREEN_TIMEOUT_MS):
        box.button(QMessageBox.StandardButton.Yes).click()
    assert verify_workbook(tmp_path / "r.xlsx").ok


def test_reopening_the_last_workspace_restores_the_review_and_the_selected_pair(screened, make_window, qtbot) -> None:
    window = screened
    window.candidate_view.select_proxy_row(3)
    pair = window.candidate_view.current_candidate().key
    decide(window, REVIEW_VALID_REVISION)
    texts = window.outcome.texts
    window.close()
    again = make_window()  # same settings: it knows the last workspace
    with qtbot.waitSignal(again.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert again.workspaces.restore_last()
    assert again.candidate_view.current_candidate().key == pair
    assert status_text(again, pair) == "Valid revision · 有效修订"
    assert again.decision_form.status() == REVIEW_VALID_REVISION
    assert again.diff_view.left.toPlainText() == texts[pair[0]].replace("\r\n", "\n")
    assert again.source == window.source and again.workspace == window.workspace
    assert again.runner.running is False  # nothing was screened again


def test_opening_a_workspace_with_a_changed_file_lists_it_and_still_shows_its_pairs(
    screened, make_window, sample: Path, qtbot
) -> None:
    window = screened
    candidate = select_pair_with(window, "number_changed")
    left = window.outcome.document(candidate.left)
    window.close()
    (sample / left.path).write_text("改过的文字" * 20, encoding="utf-8")
    again = make_window()
    with qtbot.waitSignal(again.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        again.workspaces.open_workspace(window.workspace)
    assert left.path in again.last_message.detailedText()
    assert "changed since the screen" in again.last_message.text()
    assert again.candidate_view.select_pair(candidate.key)  # still listed
    row = again.candidate_model.row_of(candidate.key)
    assert again.candidate_model.index(row, Column.LEFT).data(Qt.ItemDataRole.ForegroundRole).name().lower() == (
        OKABE_ITO["vermillion"].lower()
    )
    assert not again.diff_view.notice_label.isHidden() and left.path in again.diff_view.notice_label.text()
    assert again.diff_view.left.toPlainText() == ""


def test_opening_a_workspace_reads_the_pairs_texts_and_the_others_only_when_asked(
    screened, make_window, sample: Path, qtbot
) -> None:
    window = screened
    in_pairs = {d for c in window.outcome.candidates for d in (c.left, c.right)}
    alone = [d for d in window.outcome.documents if d.usable and d.doc_id not in in_pairs]
    assert len(alone) >= 2
    window.close()
    changed, kept = alone[0], alone[1]
    (sample / changed.path).write_text("改过的文字" * 20, encoding="utf-8")
    again = make_window()
    with qtbot.waitSignal(again.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        again.workspaces.open_workspace(window.workspace)
    texts = again.outcome.texts
    assert texts.unread == len(alone)  # the pairs' texts were read, no other
    assert again.outcome.changed_files == ()  # a file in no pair does not hold up the review
    assert texts[kept.doc_id] == (sample / kept.path).read_bytes().decode(kept.encoding)
    assert texts.get(changed.doc_id) is None and "SHA-256" in texts.failures[changed.path]


def test_history_shows_both_reviewers_and_an_arbitration_settles_the_pair(screened, qtbot, tmp_path: Path) -> None:
    window = screened
    candidate = select_pair_with(window, "negation_changed")
    decide(window, REVIEW_VALID_REVISION, "张编辑", "规定含义相反")
    decide(window, REVIEW_KEEP_BOTH, "李审校", "只是措辞")
    history = window.history_panel
    entries = [history.model.index(r, 0).data() for r in range(history.model.rowCount())]
    assert len(entries) == 2
    assert "张编辑" in entries[0] and "规定含义相反" in entries[0] and "李审校" in entries[1]
    assert status_text(window, candidate.key) == "Needs arbitration · 待仲裁"
    assert "disagree" in history.status_label.text() and "Arbitrate" in window.decision_form.note_label.text()
    assert history.arbitrate_button.isEnabled()
    qtbot.mouseClick(history.arbitrate_button, Qt.MouseButton.LeftButton)
    dialog = history.dialog
    assert "张编辑" in dialog.findChildren(type(history.status_label))[0].text()
    dialog.arbitrator_edit.setText("王主编")
    dialog.status_combo.setCurrentIndex(dialog.status_combo.findData(REVIEW_VALID_REVISION))
    dialog.reason_edit.setPlainText("以修订稿为准，两版都保留")
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    assert status_text(window, candidate.key) == "Valid revision · 有效修订"
    assert history.model.rowCount() == 3
    assert history.model.index(2, 0).data(RECORD_ROLE).arbitrator == "王主编"
    assert not history.arbitrate_button.isEnabled()
    with ReviewSession.open(tmp_path / "workspace" / SESSION_FILE, read_only=True) as session:
        (arbitration,) = session.arbitrations(*candidate.key)
        assert session.pair_state(*candidate.key).status == REVIEW_VALID_REVISION
    assert (arbitration.arbitrator, arbitration.reason) == ("王主编", "以修订稿为准，两版都保留")


def test_the_form_stores_original_source_author_and_reprint_permission(screened, tmp_path: Path) -> None:
    window = screened
    form = window.decision_form
    form.related_edit.setText("历史稿件/原稿.txt")
    form.original_source_edit.setText("青溪日报 2023-06-12 第2版")
    form.author_edit.setText("陈立言")
    form.reprint_edit.setText("已获书面授权")
    decide(window, REVIEW_SUGGEST_MERGE)
    pair = form.candidate().key
    with ReviewSession.open(tmp_path / "workspace" / SESSION_FILE, read_only=True) as session:
        (stored,) = session.decisions(*pair)
    assert (stored.related_source, stored.original_source, stored.author, stored.reprint_permission) == (
        "历史稿件/原稿.txt", "青溪日报 2023-06-12 第2版", "陈立言", "已获书面授权",
    )  # fmt: skip
    window.candidate_view.select_proxy_row(1)
    window.candidate_view.select_pair(pair)
    assert form.author_edit.text() == "陈立言"  # shown again with the pair's latest decision


def test_a_decision_on_a_file_that_changed_shows_as_stale_after_the_next_screen(screened, sample: Path, qtbot) -> None:
    window = screened
    candidate = select_pair_with(window, "number_changed")
    decide(window, REVIEW_VALID_REVISION)
    path = sample / window.outcome.document(candidate.right).path
    path.write_text(path.read_text(encoding="utf-8") + "\n（本文有补充）", encoding="utf-8")
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        window.start_screen()
    assert status_text(window, candidate.key) == "Valid revision · 有效修订 (stale: file changed)"
    assert window.candidate_model.is_stale(candidate.key)
    window.candidate_view.select_pair(candidate.key)
    assert "Stale" in window.history_panel.status_label.text()


def test_unsaved_form_edits_are_saved_before_a_screen_takes_the_session(screened, qtbot, tmp_path: Path) -> None:
    window = screened
    decide(window, REVIEW_KEEP_BOTH)
    pair = window.decision_form.candidate().key
    window.decision_form.reason_edit.setPlainText("补充理由：来源不同")  # typed, not saved yet
    assert window.decision_form.is_dirty()
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        window.start_screen()
    with ReviewSession.open(tmp_path / "workspace" / SESSION_FILE, read_only=True) as session:
        assert [d.reason for d in session.decisions(*pair)] == ["", "补充理由：来源不同"]
