"""The workbench end to end: screen the sample through the real worker, review, decide, cancel, fail."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from PySide6.QtCore import QMimeData, QPoint, Qt, QTimer, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox

from neardup_gui.core.normalize import normalize
from neardup_gui.core.records import REVIEW_KEEP_BOTH, REVIEW_VALID_REVISION, ScreenParams
from neardup_gui.io.session import ReviewSession
from neardup_gui.tasks import SESSION_FILE
from neardup_gui.ui.candidate_model import SORT_ROLE, Column
from neardup_gui.ui.files_view import FileColumn
from neardup_gui.ui.palette import HighlightKind
from ui_factories import SCREEN_TIMEOUT_MS


def raw_in_pane(text: str) -> str:
    # A QTextDocument turns CR LF into one paragraph separator, which toPlainText gives back as LF.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def show_active(window, qtbot) -> None:
    """Window shortcuts only fire in the active window."""
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def test_screening_the_sample_fills_a_sorted_table_and_the_files_view(screened, qtmodeltester) -> None:
    window = screened
    outcome = window.outcome
    assert outcome is not None and len(outcome.candidates) > 0
    proxy = window.candidate_view.proxy
    assert proxy.rowCount() == len(outcome.candidates)
    jaccards = [proxy.index(r, Column.JACCARD).data(SORT_ROLE) for r in range(proxy.rowCount())]
    assert jaccards == sorted(jaccards, reverse=True)
    assert window.files_model.rowCount() == len(outcome.documents)
    statuses = {window.files_model.index(r, FileColumn.STATUS).data() for r in range(window.files_model.rowCount())}
    assert len(statuses) >= 2  # what was skipped, and why, is visible
    assert "files" in window.files_view.summary.text()
    assert window.windowTitle().endswith(str(window.source))
    for model in (window.candidate_model, proxy, window.files_model, window.files_view.proxy):
        qtmodeltester.check(model)


def test_the_top_pair_is_selected_with_raw_texts_and_shared_highlights(screened) -> None:
    window = screened
    candidate = window.candidate_view.current_candidate()
    assert candidate == window.candidate_view.proxy.index(0, 0).data(Qt.ItemDataRole.UserRole + 2)
    texts = window.outcome.texts
    assert window.diff_view.left.toPlainText() == raw_in_pane(texts[candidate.left])
    assert window.diff_view.right.toPlainText() == raw_in_pane(texts[candidate.right])
    assert window.diff_view.is_drawn()
    options = window.outcome.params.normalize
    left_shared = window.diff_view.left.highlights(HighlightKind.SHARED)
    right_shared = window.diff_view.right.highlights(HighlightKind.SHARED)
    assert left_shared and len(left_shared) == len(right_shared)
    left_norm = "".join(normalize(window.diff_view.left.highlighted_text(h), options).text for h in left_shared)
    right_norm = "".join(normalize(window.diff_view.right.highlighted_text(h), options).text for h in right_shared)
    assert left_norm == right_norm
    # The top pair is near-identical: its shared passages cover most of the shorter text.
    shorter = min(len(normalize(texts[candidate.left], options)), len(normalize(texts[candidate.right], options)))
    assert len(left_norm) >= candidate.jaccard * shorter * 0.9


def test_down_key_moves_the_selection_and_loads_that_pair(screened, qtbot) -> None:
    window = screened
    table = window.candidate_view.table
    table.setFocus()
    second = window.candidate_view.proxy.index(1, 0).data(Qt.ItemDataRole.UserRole + 2)
    qtbot.keyClick(table, Qt.Key.Key_Down)
    assert window.candidate_view.current_candidate() == second
    assert window.diff_view.left.toPlainText() == raw_in_pane(window.outcome.texts[second.left])
    assert window.decision_form.candidate() == second


def test_a_decision_is_stored_at_once_and_shown_in_the_status_column(screened, qtbot, tmp_path: Path) -> None:
    window = screened
    form = window.decision_form
    candidate = form.candidate()
    form.reviewer_edit.setText("张编辑")
    form.reason_edit.setPlainText("数字不同，保留两版")
    form.retained_combo.setCurrentIndex(form.retained_combo.findData("both"))
    changed_rows: list[int] = []
    window.candidate_model.dataChanged.connect(lambda tl, br, _r: changed_rows.extend(range(tl.row(), br.row() + 1)))
    qtbot.mouseClick(form.status_buttons[REVIEW_VALID_REVISION], Qt.MouseButton.LeftButton)
    row = window.candidate_model.row_of(candidate.key)
    assert changed_rows == [row]
    assert window.candidate_model.index(row, Column.STATUS).data() == "Valid revision · 有效修订"
    # Committed now: a second, read-only connection sees it while the window keeps the session open.
    with ReviewSession.open(tmp_path / "workspace" / SESSION_FILE, read_only=True) as session:
        (stored,) = session.decisions(*candidate.key)
    assert (stored.status, stored.reviewer, stored.reason, stored.retained) == (
        REVIEW_VALID_REVISION,
        "张编辑",
        "数字不同，保留两版",
        "both",
    )
    assert stored.time  # set automatically
    assert window.settings.reviewer() == "张编辑"  # remembered


def test_save_and_next_keys_store_the_decision_and_move_on(screened, qtbot, tmp_path: Path) -> None:
    window = screened
    show_active(window, qtbot)
    first = window.candidate_view.current_candidate()
    second = window.candidate_view.proxy.index(1, 0).data(Qt.ItemDataRole.UserRole + 2)
    window.decision_form.reviewer_edit.setText("reviewer")
    # A button's shortcut "animates" a click: the click lands when the button is released.
    qtbot.keyClick(window.candidate_view.table, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.candidate_model.status_of(first.key) == REVIEW_KEEP_BOTH)
    qtbot.keyClick(window.candidate_view.table, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.candidate_view.current_candidate() == second)
    with ReviewSession.open(tmp_path / "workspace" / SESSION_FILE, read_only=True) as session:
        assert [d.status for d in session.decisions(*first.key)] == [REVIEW_KEEP_BOTH, REVIEW_KEEP_BOTH]


def test_n_and_p_keys_move_through_the_overlaps(screened, qtbot) -> None:
    window = screened
    show_active(window, qtbot)
    view = window.candidate_view
    for row in range(view.shown_count()):  # a pair with several shared passages (a revision)
        view.select_proxy_row(row)
        if window.diff_view.overlap_count() >= 2:
            break
    assert window.diff_view.overlap_count() >= 2
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_N)
    qtbot.keyClick(view.table, Qt.Key.Key_N)
    assert window.diff_view.current_overlap() == 1
    qtbot.keyClick(view.table, Qt.Key.Key_P)
    assert window.diff_view.current_overlap() == 0
    assert view.current_candidate() is not None  # the keys did not move the table


def test_cancelling_a_screen_keeps_the_previous_results(screened, qtbot) -> None:
    window = screened
    previous = window.outcome
    rows = window.candidate_model.rowCount()
    window.params_panel.set_params(ScreenParams(threshold=0.9))
    clicked = threading.Event()
    labels: list[str] = []

    def hold_until_cancel_clicked(*_args: object) -> None:  # runs in the worker thread
        clicked.wait(timeout=20)

    def click_cancel() -> None:  # runs in the GUI thread while the worker is mid-screen
        qtbot.mouseClick(window.progress.cancel_button, Qt.MouseButton.LeftButton)
        labels.append(window.progress.stage_label.text())
        clicked.set()

    window.runner.worker_created.connect(
        lambda worker: worker.progress_changed.connect(hold_until_cancel_clicked, Qt.ConnectionType.DirectConnection)
    )
    with qtbot.waitSignal(window.runner.screening_cancelled, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
        QTimer.singleShot(0, click_cancel)
    assert labels == ["Cancelling…"]
    assert window.outcome is previous
    assert window.candidate_model.rowCount() == rows
    assert "cancelled" in window.statusBar().currentMessage()
    assert window.source_bar.screen_button.isEnabled()
    # Deciding works again on the results still shown.
    window.decision_form.reviewer_edit.setText("reviewer")
    assert window.decision_form.choose_status(REVIEW_KEEP_BOTH)
    assert window.candidate_model.status_of(window.decision_form.candidate().key) == REVIEW_KEEP_BOTH


def test_the_event_loop_keeps_turning_during_a_screen(make_window, sample, qtbot) -> None:
    window = make_window(sample)
    gui_ticked = threading.Event()
    seen_by_worker: list[bool] = []

    def in_worker(*_args: object) -> None:
        if not seen_by_worker:  # hold the worker until the GUI thread proves it is not blocked
            seen_by_worker.append(gui_ticked.wait(timeout=20))

    window.runner.worker_created.connect(
        lambda worker: worker.progress_changed.connect(in_worker, Qt.ConnectionType.DirectConnection)
    )
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        window.start_screen()
        QTimer.singleShot(0, gui_ticked.set)
    assert seen_by_worker == [True]


def test_a_failing_screen_shows_the_error_with_details_and_the_window_stays_usable(make_window, tmp_path, qtbot) -> None:
    source = tmp_path / "vanishing"
    source.mkdir()
    (source / "a.txt").write_text("一些文字" * 10, encoding="utf-8")
    window = make_window(source)
    shutil.rmtree(source)
    with qtbot.waitSignal(window.runner.screening_failed, timeout=SCREEN_TIMEOUT_MS):
        window.start_screen()
    box = window.last_message
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert "vanishing" in box.text()
    assert "Traceback" in box.detailedText()
    assert window.source_bar.screen_button.isEnabled() and window.params_panel.isEnabled()
    source.mkdir()
    (source / "a.txt").write_text("一些文字" * 10, encoding="utf-8")
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_method_too_large_for_this_machine_is_refused_in_a_sentence_and_nothing_is_lost(
    make_window, sample, qtbot, monkeypatch, language: str
) -> None:
    from PySide6.QtWidgets import QApplication

    from neardup_gui.core import pipeline
    from neardup_gui.core.methods import bruteforce
    from neardup_gui.core.records import ScreenParams
    from neardup_gui.ui.i18n import install_language

    window = make_window(sample)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        window.start_screen()
    shown = window.outcome
    usable = sum(d.status == "ok" for d in shown.documents)
    distinct = len({d.sha256 for d in shown.documents if d.status == "ok"})  # exact Jaccard compares these
    monkeypatch.setattr(pipeline, "available_memory", lambda: 1024)  # no room for a TF-IDF model
    monkeypatch.setattr(bruteforce, "MAX_SECONDS", 0.0)  # nor time for exact Jaccard on every pair
    # In the window's language (the engine's own message is English: the command line's).
    assert install_language(QApplication.instance(), language) == language
    try:
        said = {}
        for method in ("tfidf", "jaccard"):
            window.params_panel.set_params(ScreenParams(method=method))
            with qtbot.waitSignal(window.runner.screening_refused, timeout=SCREEN_TIMEOUT_MS) as refused:
                window.start_screen()
            # Handed over without the worker's frames (freed on this thread, they would free it here).
            assert refused.args[0].__traceback__ is None and refused.args[0].__context__ is None
            box = window.last_message
            assert isinstance(box, QMessageBox) and box.isVisible()
            assert box.detailedText() == ""  # a refusal, not a crash: no traceback to wade through
            assert window.outcome is shown and window.source_bar.screen_button.isEnabled()
            said[method] = (box.windowTitle(), box.text())
            box.close()
    finally:
        install_language(QApplication.instance(), "en")
    if language == "en":
        assert said["tfidf"][0] == "Too large to screen this way"
        assert f"over {usable} documents" in said["tfidf"][1] and "of memory at its peak" in said["tfidf"][1]
        assert "this computer has 1.0 KB available" in said["tfidf"][1]
        assert f"every pair of these {distinct} documents by exact Jaccard" in said["jaccard"][1]
        assert all("Choose MinHash + LSH (the default)" in text for _title, text in said.values())
    else:
        assert said["tfidf"][0] == "规模过大，无法按此方式筛查"
        assert f"字符 TF-IDF 余弦方法处理 {usable} 个文档" in said["tfidf"][1] and "本机可用内存只有 1.0 KB" in said["tfidf"][1]
        assert f"用精确 Jaccard 两两比较这 {distinct} 个文档约需" in said["jaccard"][1] and "上限 0 秒" in said["jaccard"][1]
        assert all("MinHash + LSH（默认方法）" in text for _title, text in said.values())


def test_a_workspace_inside_the_source_is_refused_with_a_message(make_window, sample, tmp_path) -> None:
    window = make_window(sample)
    before = window.workspace
    assert not window.set_workspace(sample / "历史稿件")
    assert window.workspace == before
    assert "source" in window.last_message.text()


def test_dropping_a_folder_on_the_window_opens_it(make_window, sample, qtbot) -> None:
    window = make_window()
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(sample))])
    event = QDropEvent(QPoint(10, 10), Qt.DropAction.CopyAction, data, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        window.dropEvent(event)
    assert window.source == sample.resolve()
    assert window.source_bar.source_edit.text() == str(sample.resolve())
    assert window.source_bar.source_edit.isReadOnly()
    assert str(sample.resolve()) in window.settings.recent_folders()


def test_last_used_parameters_are_remembered(make_window, sample, qtbot) -> None:
    window = make_window(sample)
    window.params_panel.set_params(ScreenParams(k=3, threshold=0.7, exclude=("drafts/*",)))
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        window.start_screen()
    window.close()
    again = make_window()
    params = again.params_panel.params()
    assert (params.k, params.threshold, params.exclude) == (3, 0.7, ("drafts/*",))


def test_save_and_next_under_a_pending_filter_goes_to_the_following_pair(screened, qtbot) -> None:
    window = screened
    view = window.candidate_view
    view.status_filter.setCurrentIndex(view.status_filter.findData("pending"))
    shown = [view.proxy.index(r, 0).data(Qt.ItemDataRole.UserRole + 2).key for r in range(view.shown_count())]
    assert len(shown) >= 3
    view.select_proxy_row(0)
    window.decision_form.reviewer_edit.setText("reviewer")
    window.decision_form.save_and_next()  # "pending" is still pending: the row stays
    assert view.current_candidate().key == shown[1]
    assert window.decision_form.choose_status(REVIEW_KEEP_BOTH)  # the row leaves the pending view
    window.decision_form.next_requested.emit()
    assert view.current_candidate().key == shown[2]


def test_typing_n_in_the_reason_field_types_it_instead_of_moving(screened, qtbot) -> None:
    window = screened
    show_active(window, qtbot)
    window.decision_form.reason_edit.setFocus()
    qtbot.keyClicks(window.decision_form.reason_edit, "np")
    assert window.decision_form.reason_edit.toPlainText() == "np"
    assert window.diff_view.current_overlap() == -1
    assert window.decision_form.is_dirty()


def test_decisions_and_the_selected_pair_survive_a_new_screen_and_a_new_window(screened, make_window, sample, qtbot) -> None:
    window = screened
    view = window.candidate_view
    view.select_proxy_row(2)
    pair = view.current_candidate().key
    window.decision_form.reviewer_edit.setText("reviewer")
    assert window.decision_form.choose_status(REVIEW_KEEP_BOTH)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        window.start_screen()
    assert window.candidate_model.status_of(pair) == REVIEW_KEEP_BOTH
    assert view.current_candidate().key == pair
    window.close()
    again = make_window(sample)  # same settings, same workspace
    with qtbot.waitSignal(again.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        again.start_screen()
    assert again.candidate_view.current_candidate().key == pair
    row = again.candidate_model.row_of(pair)
    assert again.candidate_model.index(row, Column.STATUS).data() == "Keep both · 保留双方"
    again.recent_menu.aboutToShow.emit()
    assert [a.text() for a in again.recent_menu.actions()] == [str(sample.resolve())]


def test_highlights_land_on_the_right_text_with_cjk_extension_b_characters(make_window, tmp_path, qtbot) -> None:
    source = tmp_path / "extb"
    source.mkdir()
    passage = (
        "𠮷野家在柳塘街道开设的社区食堂今日正式营业，𠀀𠀁𠀂三种古字出现在店名的题字里，"
        "食堂每周公布下周菜谱，并设置意见簿，每月邀请居民代表试吃评议，菜品以少油少盐为原则。"
    )
    (source / "a.txt").write_text("𠀀𠀁前言𪚥：\r\n" + passage + "\r\n完。", encoding="utf-8")
    (source / "b.txt").write_text("转载𪚥𪚥𪚥说明\n" + passage + "\n（来源：网站𠀃）", encoding="utf-8")
    window = make_window(source)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        window.start_screen()
    assert window.candidate_view.current_candidate() is not None
    diff = window.diff_view
    (left,) = diff.left.highlights(HighlightKind.SHARED)
    (right,) = diff.right.highlights(HighlightKind.SHARED)
    left_text, right_text = diff.left.highlighted_text(left), diff.right.highlighted_text(right)
    assert left_text == right_text
    assert left_text.startswith("𠮷野家") and "𠀀𠀁𠀂三种古字" in left_text
    assert passage.rstrip("。").endswith(left_text[-10:])


def test_escape_says_cancelling_at_once_and_the_screen_stops(screened, qtbot) -> None:
    window = screened
    show_active(window, qtbot)
    window.tabs.setCurrentWidget(window.overview.boilerplate_view)  # its search starts, the screen interrupts it
    clicked = threading.Event()
    labels: list[str] = []

    def hold_until_escape(*_args: object) -> None:  # runs in the worker thread
        clicked.wait(timeout=20)

    def press_escape() -> None:  # the GUI thread, while the worker is held mid-screen
        qtbot.keyClick(window.candidate_view.table, Qt.Key.Key_Escape)
        labels.append(window.progress.stage_label.text())
        clicked.set()

    window.runner.worker_created.connect(
        lambda worker: worker.progress_changed.connect(hold_until_escape, Qt.ConnectionType.DirectConnection)
    )
    with qtbot.waitSignal(window.runner.screening_cancelled, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
        QTimer.singleShot(0, press_escape)
    assert labels == ["Cancelling…"]
    assert not window.menus.cancel_action.isEnabled() and window.menus.screen_action.isEnabled()
    # The search for recurring passages the screen interrupted finishes for the results still shown.
    qtbot.waitUntil(lambda: window.overview.boilerplate_view.model.rowCount() > 0, timeout=SCREEN_TIMEOUT_MS)


def test_with_normalized_texts_turned_off_a_screen_writes_only_a_note_in_their_place(
    qtbot, settings, make_window, sample: Path, tmp_path: Path
) -> None:
    from neardup_gui.ui.preferences_dialog import PreferencesDialog

    dialog = PreferencesDialog(settings)
    qtbot.addWidget(dialog)
    assert dialog.normalized_check.isChecked()  # on by default
    dialog.normalized_check.setChecked(False)
    assert "normalized" in dialog.save()
    window = make_window(sample, tmp_path / "ws")
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    folder = tmp_path / "ws" / "normalized"
    assert [p.name for p in folder.iterdir()] == ["NOT_WRITTEN.txt"]
    assert window.candidate_model.rowCount() > 0  # the review itself is unchanged


def screened_twice(qtbot, make_window, sample: Path, tmp_path: Path, monkeypatch):  # type: ignore[no-untyped-def]
    """A window that screened the sample into a workspace twice: the second screen a rescan that
    takes unchanged files over (the sample was copied just now, so the settle time is shortened
    to 50 ms and waited out)."""
    import time

    from neardup_gui.io import corpus

    monkeypatch.setattr(corpus, "SETTLE_NS", 50_000_000)
    time.sleep(0.15)
    window = make_window(sample, tmp_path / "ws")
    for _ in range(2):
        with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
            assert window.start_screen()
    return window


def test_a_second_screen_takes_unchanged_files_over_and_shows_their_texts_unless_every_file_is_to_be_read(
    qtbot, settings, make_window, sample: Path, tmp_path: Path, monkeypatch
) -> None:
    from neardup_gui.io.corpus import SourceTexts
    from neardup_gui.ui.preferences_dialog import PreferencesDialog

    window = screened_twice(qtbot, make_window, sample, tmp_path, monkeypatch)
    outcome = window.outcome
    read = outcome.run.counts["files_ok"] + outcome.run.counts.get("files_no_shingles", 0)
    assert outcome.run.counts["unchanged_files_not_read"] >= read > 2
    said = [line for line in window.run_notes.lines if "were not opened" in line]
    assert said == [f"{outcome.run.counts['unchanged_files_not_read']} files unchanged since the last screen (same size, "
                    "times and inode) were not opened; they keep the SHA-256 recorded then."]  # fmt: skip
    assert isinstance(outcome.texts, SourceTexts)
    candidate = window.candidate_view.current_candidate()
    left = window.candidate_model.document(candidate.left)
    expected = (sample / left.path).read_bytes().decode(left.encoding)
    assert window.diff_view.left.toPlainText() == raw_in_pane(expected)
    assert window.diff_view.left.highlights(HighlightKind.SHARED)

    dialog = PreferencesDialog(settings)
    qtbot.addWidget(dialog)
    assert not dialog.reread_check.isChecked()  # off by default
    dialog.reread_check.setChecked(True)
    assert "reread" in dialog.save()
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    assert window.outcome.run.counts["unchanged_files_not_read"] == 0


def test_a_pair_whose_file_changed_after_its_text_was_let_go_shows_a_notice_not_a_stale_text(
    qtbot, make_window, sample: Path, tmp_path: Path, monkeypatch
) -> None:
    window = screened_twice(qtbot, make_window, sample, tmp_path, monkeypatch)
    view = window.candidate_view
    view.select_proxy_row(1)
    candidate = view.current_candidate()
    left = window.candidate_model.document(candidate.left)
    assert candidate.left in window.outcome.texts
    (sample / left.path).write_text("改过的文字" * 20, encoding="utf-8")
    view.select_proxy_row(0)
    window.outcome.texts.forget()  # as a large screen does: the text is read again when shown
    view.select_proxy_row(1)
    assert not window.diff_view.notice_label.isHidden() and left.path in window.diff_view.notice_label.text()
    assert window.diff_view.left.toPlainText() == ""
    assert window.diff_view.right.toPlainText() != ""


def test_showing_a_result_repaints_the_window_in_a_later_pass_of_the_event_loop(screened, qtbot) -> None:
    # A large result's rows and first pair, then the repaint, in one pass left nothing else to run
    # for ~80 ms at 100,000 files (bench/bench_gui.py measures the gaps; here: the repaint is held
    # back during the showing, and the window is not left unpainted after it).
    from PySide6.QtCore import QEvent, QObject

    window = screened
    window.show()
    qtbot.waitExposed(window)
    painted: list[bool] = []

    class PaintSpy(QObject):
        def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint:
                painted.append(window.updatesEnabled())
            return False

    spy = PaintSpy()
    viewport = window.candidate_view.table.viewport()
    viewport.installEventFilter(spy)
    try:
        window.show_loaded_outcome(window.outcome)  # the rows are reset, the first pair shown again
        assert not window.updatesEnabled() and painted == []
        qtbot.waitUntil(lambda: bool(painted), timeout=5000)
    finally:
        viewport.removeEventFilter(spy)
    assert window.updatesEnabled() and all(painted)
    assert window.candidate_view.current_candidate() is not None
    image = window.candidate_view.grab().toImage()  # drawn: not one flat colour
    assert len({image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}) > 2


def _slow_disk(monkeypatch):  # type: ignore[no-untyped-def]
    """Hold every normalized file write until the returned event is set (also returned: the
    writing as it was)."""
    import threading

    from neardup_gui.io import outputs

    go = threading.Event()
    real = outputs._write_files

    def held(folder, folder_fd, files) -> None:  # type: ignore[no-untyped-def]
        go.wait(30)
        real(folder, folder_fd, files)

    monkeypatch.setattr(outputs, "_write_files", held)
    return go, real


def test_the_results_are_shown_while_the_normalized_texts_are_still_being_written(
    qtbot, make_window, sample: Path, tmp_path: Path, monkeypatch
) -> None:
    """A disk slower than the screen: the results come first, normalized/ holds a note meanwhile
    and the status bar says what is being written; then the files take its place."""
    go, _ = _slow_disk(monkeypatch)
    window = make_window(sample, tmp_path / "ws")
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    folder = tmp_path / "ws" / "normalized"
    assert window.candidate_model.rowCount() > 0
    assert [p.name for p in folder.iterdir()] == ["BEING_WRITTEN.txt"]
    assert not window.normalized_status.isHidden() and "normalized" in window.normalized_status.text()
    go.set()
    qtbot.waitUntil(window.normalized_status.isHidden, timeout=SCREEN_TIMEOUT_MS)
    usable = [d for d in window.outcome.documents if d.usable or d.status == "no_shingles"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{d.doc_id}.txt" for d in usable)


def test_a_new_screen_stops_the_last_ones_normalized_texts_and_writes_its_own(
    qtbot, make_window, sample: Path, tmp_path: Path, monkeypatch
) -> None:
    go, real = _slow_disk(monkeypatch)
    window = make_window(sample, tmp_path / "ws")
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    first = window.outcome.normalized_pending
    assert first is not None and not first.ended.is_set()
    from neardup_gui.io import outputs

    monkeypatch.setattr(outputs, "_write_files", real)  # a quick disk from now on
    import threading

    threading.Timer(0.5, go.set).start()  # the batch being written when it is stopped goes on then
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    assert first.ended.is_set() and not first.in_place  # stopped before the second screen began
    qtbot.waitUntil(window.normalized_status.isHidden, timeout=SCREEN_TIMEOUT_MS)
    folder = tmp_path / "ws" / "normalized"
    usable = [d for d in window.outcome.documents if d.usable or d.status == "no_shingles"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{d.doc_id}.txt" for d in usable)
    assert not [p for p in (tmp_path / "ws" / "cache").iterdir() if p.name.startswith(".normalized")]
