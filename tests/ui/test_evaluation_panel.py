"""The Evaluation panel on its own: threshold table, charts, the Load labels button, a rendered PNG."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage

from neardup_gui.core.evaluate import LabelledPair, evaluate
from neardup_gui.core.records import ScreenParams
from neardup_gui.ui.charts import MARKER_COLOR
from neardup_gui.ui.evaluation_panel import ROW_ROLE, SORT_ROLE, Column, EvaluationPanel, SweepTableModel

TEXTS = {
    "A": "资料整理说明：先备份原始稿件，再登记来源与版本。每周归档一次，保留修改记录。",
    "B": "资料整理说明  先备份原始稿件，再登记来源与版本！每周归档一次；保留修改记录。",
    "C": "资料整理说明：先备份原始稿件，再登记来源与版本。每天归档一次，保留修改记录。",
    "D": "资料整理说明：本文供内部参考。摄影素材需要登记镜头焦距与拍摄位置。",
    "E": "盆栽养护记录：观察叶片状态，按照土壤湿度调整浇水频率。",
}
LABELS = [
    LabelledPair("A", "B", 1, "格式副本", "tune"),
    LabelledPair("A", "C", 0, "有效修订", "tune"),
    LabelledPair("A", "D", 0, "仅共享开头", "holdout"),
    LabelledPair("B", "E", 1, "假设的正例", "holdout"),
]


@pytest.fixture(scope="module")
def report():
    return evaluate(sorted(TEXTS), TEXTS, LABELS, ScreenParams(k=3, num_perm=64, bands=16, rows=4), ks=[3, 5])


def _cell(model: SweepTableModel, row: int, col: Column, role=Qt.ItemDataRole.DisplayRole):
    return model.data(model.index(row, col), role)


def test_sweep_model_passes_the_model_tester_and_shows_empty_precision_as_a_dash(qtmodeltester, report) -> None:
    model = SweepTableModel()
    model.set_rows(report.rows)
    qtmodeltester.check(model)
    assert model.rowCount() == 2 * 3 * 3  # k x thresholds x (all, tune, holdout)
    n = model.find(3, 0.9, "holdout")  # holdout at 0.9: A–D not predicted, B–E never a candidate
    assert _cell(model, n, Column.PRECISION) == "—"
    assert _cell(model, n, Column.PRECISION, SORT_ROLE) == -1.0
    assert "Not 0, not 1" in _cell(model, n, Column.PRECISION, Qt.ItemDataRole.ToolTipRole)
    assert _cell(model, n, Column.RECALL) == "0.000"
    assert _cell(model, n, Column.CANDIDATE_RECALL) == "0.000"
    assert _cell(model, model.find(3, 0.5, "all"), Column.CANDIDATE_RECALL) == "0.500"
    assert _cell(model, 0, Column.SPLIT, ROW_ROLE) is report.rows[0]


def test_load_labels_button_calls_the_window_callback(qtbot) -> None:
    calls = []
    panel = EvaluationPanel(lambda: calls.append("load"))
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.load_labels_requested):
        qtbot.mouseClick(panel.load_button, Qt.MouseButton.LeftButton)
    assert calls == ["load"]


def test_picking_a_row_shows_its_k_split_and_threshold_in_the_charts(qtbot, report) -> None:
    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.set_report(report, "labels file 标注.csv", ["1 labelled pair(s) name documents not in the source folder"])
    assert "labels file 标注.csv: 4 labelled pairs (2 positive, 2 negative)" == panel.source_label.text()
    assert not panel.notes_label.isHidden() and "not in the source folder" in panel.notes_label.text()
    with qtbot.waitSignal(panel.selection_changed) as signal:
        panel.table.selectRow(panel.model.find(5, 0.9, "tune"))
    assert signal.args == [5, 0.9, "tune"]
    assert (panel.current_k(), panel.current_split(), panel.current_threshold()) == (5, "tune", 0.9)
    assert panel.histogram.marker() == 0.9 and panel.s_curve.marker() == 0.9
    k5 = report.for_k(5)
    assert sum(panel.histogram.counts()) == len(k5.candidate_scores)
    assert "k = 5" in panel.histogram.title()


def test_changing_the_threshold_selects_the_matching_table_row(qtbot, report) -> None:
    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.set_report(report)
    panel.set_threshold(0.7)
    row = panel.model.row_at(panel.table.currentIndex().row())
    assert (row.k, row.threshold, row.split) == (3, 0.7, "all")
    panel.set_threshold(0.66)  # not swept: the charts follow, the table keeps its row
    assert panel.curves.marker() == 0.66
    assert panel.table.currentIndex().row() == panel.model.find(3, 0.7, "all")


def test_precision_recall_curves_follow_the_labelled_pairs(qtbot, report) -> None:
    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.set_report(report)
    precision, recall, candidate = panel.curves.series()
    at = {round(float(x), 2): i for i, x in enumerate(precision.xs)}
    assert precision.ys[at[0.7]] == pytest.approx(0.5)  # A–B right, A–C wrong
    assert precision.ys[at[0.9]] == pytest.approx(1.0)
    assert recall.ys[at[0.7]] == pytest.approx(0.5)  # B–E is never a candidate
    assert candidate.ys[at[0.7]] == pytest.approx(0.5) and candidate.dashed


def test_s_curve_shows_the_current_banding(qtbot) -> None:
    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.set_banding(25, 5)
    [curve] = panel.s_curve.series()
    assert "25 bands × 5 rows" in panel.s_curve.title()
    middle = list(curve.xs).index(0.5)
    assert curve.ys[middle] == pytest.approx(1 - (1 - 0.5**5) ** 25)


def test_clear_forgets_the_evaluation(qtbot, report) -> None:
    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.set_report(report)
    panel.clear()
    assert panel.model.rowCount() == 0 and panel.report() is None and panel.curves.series() == []
    assert sum(panel.histogram.counts()) == 0


def test_rendered_panel_draws_the_threshold_line_where_the_threshold_is(qtbot, report, tmp_path: Path) -> None:
    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.set_report(report, "人工标注 标注.csv")
    panel.set_threshold(0.7)
    panel.show()
    qtbot.waitExposed(panel)
    path = tmp_path / "evaluation.png"
    assert panel.grab().save(str(path))
    image = QImage(str(path))
    assert image.width() >= 1000
    chart = panel.histogram
    origin = chart.mapTo(panel, chart.rect().topLeft())
    rect = chart.plot_rect()
    x = origin.x() + round(chart.map_x(0.7))
    y = origin.y() + round(rect.center().y())
    colours = {QColor(image.pixel(x + dx, y)).name() for dx in (-1, 0, 1)}
    assert MARKER_COLOR.name() in colours
    assert QColor(image.pixel(origin.x() + round(chart.map_x(0.3)), y)).name() != MARKER_COLOR.name()
