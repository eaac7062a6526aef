"""The Evaluation tab in the window: labels file or review decisions, background run, banding."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from ui_factories import SCREEN_TIMEOUT_MS

from neardup_gui.core.records import (
    REVIEW_KEEP_BOTH,
    REVIEW_SUGGEST_MERGE,
    ScreenParams,
)
from neardup_gui.io.paths import resources_dir


def test_loading_the_sample_labels_fills_the_panel_and_names_the_file(screened, qtbot, tmp_path: Path) -> None:
    window = screened
    controller = window.evaluation
    panel = controller.panel
    labels = resources_dir() / "sample_labels.csv"
    controller.ask_labels_file = lambda: str(labels)
    window.tabs.setCurrentWidget(panel)
    with qtbot.waitSignal(controller.evaluation_finished, timeout=SCREEN_TIMEOUT_MS) as done:
        qtbot.mouseClick(panel.load_button, Qt.MouseButton.LeftButton)
    run = done.args[0]
    assert panel.report() is run.report and panel.model.rowCount() == len(run.report.rows) > 0
    assert panel.source_label.text().startswith("labels file sample_labels.csv: 17 labelled pairs")
    assert str(labels) in panel.source_label.toolTip()
    assert sum(panel.histogram.counts()) > 0 and panel.curves.series()
    assert window.review.session().thresholds()  # stored through the window's own session
    assert (tmp_path / "workspace" / "thresholds.csv").is_file()
    assert panel.load_button.isEnabled()


def test_before_labels_the_score_chart_shows_the_screen_s_own_candidates(screened, qtbot) -> None:
    window = screened
    panel = window.evaluation.panel
    chart = panel.histogram
    scores = sorted(c.jaccard for c in window.outcome.candidates)
    assert len(scores) == 10 and panel.report() is None
    # Each bin holds the candidates whose Jaccard falls in it (the last bin closed at 1.0).
    edges = chart.bin_edges()
    expected = [sum(1 for s in scores if lo <= s < hi or (hi == 1.0 and s == 1.0)) for lo, hi in zip(edges, edges[1:])]
    assert chart.counts() == expected and sum(expected) == 10
    assert chart.title().startswith("Candidate scores of this screen, k = 5")
    labels = resources_dir() / "sample_labels.csv"
    window.evaluation.ask_labels_file = lambda: str(labels)
    with qtbot.waitSignal(window.evaluation.evaluation_finished, timeout=SCREEN_TIMEOUT_MS) as done:
        qtbot.mouseClick(panel.load_button, Qt.MouseButton.LeftButton)
    ev = done.args[0].report.for_k(panel.current_k())
    assert chart.title().startswith(f"Candidate scores, k = {ev.k}")  # the evaluation's, once there is one
    panel.clear()
    assert chart.title().startswith("Candidate scores of this screen") and sum(chart.counts()) == 10


def test_the_miss_audit_can_be_asked_for_and_fills_its_column(screened, qtbot, tmp_path: Path) -> None:
    from neardup_gui.ui.evaluation_panel import Column

    window = screened
    controller, panel = window.evaluation, window.evaluation.panel
    controller.ask_labels_file = lambda: str(resources_dir() / "sample_labels.csv")
    misses = tmp_path / "workspace" / "lsh_misses.csv"
    for audit in (False, True):
        panel.audit_box.setChecked(audit)
        with qtbot.waitSignal(controller.evaluation_finished, timeout=SCREEN_TIMEOUT_MS) as done:
            qtbot.mouseClick(panel.load_button, Qt.MouseButton.LeftButton)
        report = done.args[0].report
        column = [panel.model.data(panel.model.index(r, Column.LSH_MISSES)) for r in range(panel.model.rowCount())]
        assert panel.model.rowCount() > 0 and misses.is_file() == audit
        if audit:  # every pair of the 23 documents scored: a count per row (the sample's LSH misses none)
            assert all(ev.audit is not None and not ev.audit.sampled for ev in report.per_k)
            assert all(str(v).isdigit() for v in column)
        else:
            assert all(ev.audit is None for ev in report.per_k) and not any(column)


def test_my_decisions_can_serve_as_labels(screened, qtbot) -> None:
    window = screened
    form = window.decision_form
    form.reviewer_edit.setText("张编辑")
    window.candidate_view.select_proxy_row(0)
    assert form.choose_status(REVIEW_SUGGEST_MERGE)
    window.candidate_view.select_proxy_row(1)
    assert form.choose_status(REVIEW_KEEP_BOTH)
    panel = window.evaluation.panel
    with qtbot.waitSignal(window.evaluation.evaluation_finished, timeout=SCREEN_TIMEOUT_MS):
        qtbot.mouseClick(panel.decisions_button, Qt.MouseButton.LeftButton)
    assert "review decisions" in panel.source_label.text()
    assert "2 labelled pairs (1 positive, 1 negative)" in panel.source_label.text()


def test_evaluating_without_a_screen_says_what_to_do(make_window) -> None:
    window = make_window()
    assert not window.evaluation.evaluate(from_decisions=True)
    assert "Screen a folder" in window.last_message.text()


def test_the_s_curve_follows_the_parameters(make_window) -> None:
    window = make_window()
    window.params_panel.set_params(ScreenParams(threshold=0.8))
    window.params_panel.threshold_spin.setValue(0.7)  # as the user would
    bands, rows = window.params_panel.banding()
    assert f"{bands} bands × {rows} rows" in window.evaluation.panel.s_curve.title()


def test_a_running_evaluation_says_what_it_does_and_can_be_cancelled(screened, qtbot, tmp_path: Path) -> None:
    window = screened
    controller = window.evaluation
    panel = controller.panel
    labels = resources_dir() / "sample_labels.csv"
    shown: list[str] = []
    real_set_progress = panel.set_progress
    panel.set_progress = lambda text: shown.append(text) or real_set_progress(text)
    window.tabs.setCurrentWidget(panel)
    assert panel.cancel_button.isHidden()
    with qtbot.waitSignal(controller.evaluation_finished, timeout=SCREEN_TIMEOUT_MS):
        assert controller.evaluate(labels_file=labels)
        assert not panel.cancel_button.isHidden() and not panel.load_button.isEnabled()
    assert any("shingle size 1 of 3" in text and "sample_labels.csv" in text for text in shown), shown
    assert panel.cancel_button.isHidden() and panel.load_button.isEnabled()
    written = tmp_path / "workspace" / "thresholds.csv"
    before = written.read_bytes()
    with qtbot.waitSignal(window.jobs.job_cancelled, timeout=SCREEN_TIMEOUT_MS):
        assert controller.evaluate(labels_file=labels)
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
        assert panel.source_label.text() == "Cancelling…"
    assert "cancelled; nothing was written" in panel.source_label.text()
    assert panel.cancel_button.isHidden() and panel.load_button.isEnabled()
    assert written.read_bytes() == before and panel.report() is not None  # the earlier results stay
