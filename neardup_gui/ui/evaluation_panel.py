"""The Evaluation panel: the threshold table of a label evaluation and three charts.

- the sweep table (``SweepTableModel``): k, threshold, split, candidates, TP, FP, FN, precision,
  recall, candidate recall, LSH misses; an empty precision shows as "—" (no predicted positive);
- a histogram of the candidate-stage scores of the chosen k, with the threshold line and ticks for
  the labelled pairs;
- precision, recall and candidate recall against the threshold (computed from the labelled pairs
  at every 0.01);
- the LSH S-curve of the bands x rows in use, with the threshold line.

Picking a table row selects its k, split and threshold. The "Load labels…" and "Use my decisions as
labels" buttons call the callbacks the window passes in (the window chooses the file and runs the
evaluation, then calls ``set_report``). Works standalone. Imports PySide6 and ``neardup_gui.core`` only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from neardup_gui.core.evaluate import (
    ALL_SPLITS, AUDIT_LIMIT, EvaluationReport, KEvaluation, SweepRow, metric_curve, s_curve,
)  # fmt: skip
from neardup_gui.ui.charts import HistogramChart, LineChart, Series
from neardup_gui.ui.palette import OKABE_ITO

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ROW_ROLE = Qt.ItemDataRole.UserRole + 2
_Index = QModelIndex | QPersistentModelIndex
_CURVE_STEPS = np.round(np.arange(1, 101) / 100, 2)


class Column(IntEnum):
    K = 0
    THRESHOLD = 1
    SPLIT = 2
    CANDIDATES = 3
    TP = 4
    FP = 5
    FN = 6
    PRECISION = 7
    RECALL = 8
    CANDIDATE_RECALL = 9
    LSH_MISSES = 10


_FIELD = {
    Column.K: "k", Column.THRESHOLD: "threshold", Column.SPLIT: "split", Column.CANDIDATES: "candidates",
    Column.TP: "tp", Column.FP: "fp", Column.FN: "fn", Column.PRECISION: "precision",
    Column.RECALL: "recall", Column.CANDIDATE_RECALL: "candidate_recall", Column.LSH_MISSES: "lsh_misses",
}  # fmt: skip
_SHARES = (Column.PRECISION, Column.RECALL, Column.CANDIDATE_RECALL)


class SweepTableModel(QAbstractTableModel):
    """One row per (k, threshold, split) of an evaluation; read-only."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[SweepRow] = []
        self._headers = (
            self.tr("k"), self.tr("Threshold · 阈值"), self.tr("Split"), self.tr("Candidates · 候选数"),
            self.tr("TP"), self.tr("FP"), self.tr("FN"), self.tr("Precision · 精确率"),
            self.tr("Recall · 召回率"), self.tr("Candidate recall · 候选召回率"), self.tr("LSH misses"),
        )  # fmt: skip
        self._tips = (
            self.tr("Shingle length in characters; each k has its own shingles, signatures and candidates"),
            self.tr("Jaccard threshold a pair must reach to count as predicted"),
            self.tr("Labels split (tune / holdout) or source family; 'all' counts every labelled pair"),
            self.tr("Candidate-stage pairs of the whole folder with Jaccard at or above the threshold"),
            self.tr("Labelled 1 and predicted"),
            self.tr("Labelled 0 but predicted"),
            self.tr("Labelled 1 but not predicted (below the threshold, or never returned by LSH)"),
            self.tr("TP / (TP + FP); empty when nothing is predicted"),
            self.tr("TP / (TP + FN); a positive LSH never returned counts as missed"),
            self.tr("Labelled positives the candidate stage returned at all, before any threshold"),
            self.tr("Pairs at or above the threshold that LSH did not return (miss audit)"),
        )

    def set_rows(self, rows: Sequence[SweepRow]) -> None:
        """Replace every row (resets the model)."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row_at(self, row: int) -> SweepRow:
        return self._rows[row]

    def find(self, k: int, threshold: float, split: str) -> int:
        """Row of (k, threshold, split), or -1."""
        for n, r in enumerate(self._rows):
            if r.k == k and r.split == split and math.isclose(r.threshold, threshold):
                return n
        return -1

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt override
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt override
        return 0 if parent.isValid() else len(Column)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(Column):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tips[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row, col = self._rows[index.row()], Column(index.column())
        value = getattr(row, _FIELD[col])
        if role == Qt.ItemDataRole.DisplayRole:
            if value is None:
                return "—" if col in _SHARES else ""
            if col in _SHARES:
                return f"{value:.3f}"
            if col == Column.THRESHOLD:
                return f"{value:g}"
            return str(value)
        if role == SORT_ROLE:
            return -1.0 if value is None and col != Column.SPLIT else value
        if role == ROW_ROLE:
            return row
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if col == Column.SPLIT:
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and value is None and col in _SHARES:
            return self.tr("Empty: the denominator is zero (nothing predicted, or no labelled positive). "
                           "Not 0, not 1.")  # fmt: skip
        if role == Qt.ItemDataRole.ForegroundRole and row.split != ALL_SPLITS:
            return QColor(90, 90, 90)
        return None


class EvaluationPanel(QWidget):
    """Table and charts of a label evaluation.

    Signals:
        load_labels_requested: The user pressed "Load labels…" (the callback is called too).
        selection_changed(int, float, str): k, threshold and split now shown in the charts.
    """

    load_labels_requested = Signal()
    use_decisions_requested = Signal()
    cancel_requested = Signal()
    selection_changed = Signal(int, float, str)

    def __init__(
        self,
        on_load_labels: Callable[[], None] | None = None,
        parent: QWidget | None = None,
        on_use_decisions: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self._on_load_labels = on_load_labels
        self._on_use_decisions = on_use_decisions
        self._report: EvaluationReport | None = None
        self._banding: tuple[int, int] | None = None
        # The screen's own candidate scores (``set_screen_scores``), charted until labels are evaluated.
        self._screen_scores: np.ndarray | None = None
        self._screen_k = 0
        self._updating = False

        self.load_button = QPushButton(self.tr("Load labels… · 导入标注"))
        self.load_button.setToolTip(self.tr("Choose a CSV or XLSX of labelled pairs (left, right, label 1/0, "
                                            "reason, split) and evaluate the current screen against it"))  # fmt: skip
        self.load_button.clicked.connect(self._load_clicked)
        self.decisions_button = QPushButton(self.tr("Use my decisions as labels"))
        self.decisions_button.setToolTip(self.tr("Evaluate the screen against the review decisions saved in "
                                                 "the workspace (merge = duplicate, others = not)"))  # fmt: skip
        self.decisions_button.clicked.connect(self._decisions_clicked)
        self.decisions_button.setVisible(on_use_decisions is not None)
        self.audit_box = QCheckBox(self.tr("Also check what LSH missed · 检查 LSH 漏检"))
        self.audit_box.setToolTip(self.tr(
            "Score every pair of documents exactly (in a larger folder, every pair of a random sample of {0:,} "
            "documents) and count, per threshold, the pairs at or above it that the candidate stage did not "
            "return: the LSH misses column and lsh_misses.csv. Slower."
        ).format(AUDIT_LIMIT))  # fmt: skip
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop the evaluation; nothing is written"))
        self.cancel_button.clicked.connect(self._cancel_clicked)
        self.cancel_button.hide()
        self.source_label = QLabel(self.tr("No labels evaluated yet."))
        self.source_label.setWordWrap(True)
        self.k_combo = QComboBox()
        self.split_combo = QComboBox()
        self.split_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.threshold_spin = QDoubleSpinBox()
        self.threshold_spin.setRange(0.01, 1.0)
        self.threshold_spin.setSingleStep(0.05)
        self.threshold_spin.setDecimals(2)
        self.threshold_spin.setValue(0.5)
        self.threshold_spin.setToolTip(self.tr("Jaccard threshold shown in the charts"))
        self.model = SweepTableModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setAlternatingRowColors(True)
        self.histogram = HistogramChart(self.tr("Candidate scores · 候选得分分布"), self.tr("Jaccard"), self.tr("pairs"))
        self.histogram.set_legend_names(self.tr("candidate pairs"), self.tr("labelled 1"), self.tr("labelled 0"))
        self.histogram.set_empty_text(self.tr("No candidate pairs"))
        self.curves = LineChart(self.tr("Precision / recall · 精确率 / 召回率"), self.tr("threshold · 阈值"), self.tr("share"))
        self.curves.set_empty_text(self.tr("Load labels to see precision and recall"))
        self.s_curve = LineChart(self.tr("LSH S-curve · S曲线"), self.tr("Jaccard"), self.tr("P(candidate)"))
        self.s_curve.set_empty_text(self.tr("No banding yet"))
        self.notes_label = QLabel()
        self.notes_label.setWordWrap(True)
        self.notes_label.setTextFormat(Qt.TextFormat.PlainText)
        self.notes_label.setStyleSheet(f"color: {OKABE_ITO['vermillion']};")
        self.notes_label.hide()
        self._build_layout()

        self.table.selectionModel().currentRowChanged.connect(self._row_chosen)
        self.k_combo.currentIndexChanged.connect(self._controls_changed)
        self.split_combo.currentIndexChanged.connect(self._controls_changed)
        self.threshold_spin.valueChanged.connect(self._controls_changed)

    def _build_layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.load_button)
        top.addWidget(self.decisions_button)
        top.addWidget(self.audit_box)
        top.addWidget(self.cancel_button)
        top.addWidget(self.source_label, 1)
        controls = QHBoxLayout()
        for text, widget in ((self.tr("k:"), self.k_combo), (self.tr("Split:"), self.split_combo),
                             (self.tr("Threshold:"), self.threshold_spin)):  # fmt: skip
            label = QLabel(text)
            label.setBuddy(widget)
            controls.addWidget(label)
            controls.addWidget(widget)
        controls.addStretch(1)
        charts = QWidget()
        chart_row = QHBoxLayout(charts)
        chart_row.setContentsMargins(0, 0, 0, 0)
        for chart in (self.histogram, self.curves, self.s_curve):
            chart_row.addWidget(chart)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(charts)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(controls)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.notes_label)

    # -- input --------------------------------------------------------------------------------------
    def set_report(self, report: EvaluationReport, source_text: str = "", warnings: Sequence[str] = ()) -> None:
        """Show an evaluation: its table, its k and split choices, and the charts of its first row."""
        self._report = report
        self._updating = True
        self.model.set_rows(report.rows)
        self.k_combo.clear()
        for ev in report.per_k:
            self.k_combo.addItem(f"k = {ev.k}", ev.k)
        self.split_combo.clear()
        self.split_combo.addItem(self.tr("all labelled pairs"), ALL_SPLITS)
        for split in report.splits:
            self.split_combo.addItem(split, split)
        self.threshold_spin.setValue(report.thresholds[0])
        self._updating = False
        labels = report.per_k[0].pair_scores if report.per_k else ()
        pos = sum(1 for s in labels if s.pair.label == 1)
        counts = self.tr("{0} labelled pairs ({1} positive, {2} negative)").format(len(labels), pos, len(labels) - pos)
        self.source_label.setText(f"{source_text}: {counts}" if source_text else counts)
        self.set_notes(warnings)
        if report.per_k:
            self._banding = (report.per_k[0].bands, report.per_k[0].rows)
        if report.rows:
            self.table.selectRow(0)
        self._refresh_charts()

    def set_banding(self, bands: int, rows: int) -> None:
        """The bands x rows of the current parameters, for the S-curve."""
        self._banding = (bands, rows)
        self._refresh_charts()

    def set_screen_scores(self, scores: np.ndarray | Sequence[float] | None, k: int = 0) -> None:
        """The Jaccard of the screen's candidate pairs (shingles of ``k`` characters): the score
        chart shows them until labels are evaluated (None: no screen shown)."""
        self._screen_scores = None if scores is None else np.asarray(scores, dtype=float)
        self._screen_k = k
        self._refresh_charts()

    def set_notes(self, notes: Sequence[str]) -> None:
        """Warnings under the charts (unknown documents, split leaks, ...); hidden when empty."""
        self.notes_label.setText("\n".join(f"• {n}" for n in notes))
        self.notes_label.setVisible(bool(notes))

    def set_threshold(self, threshold: float) -> None:
        self.threshold_spin.setValue(threshold)

    def clear(self) -> None:
        """Forget the evaluation (e.g. a new screen started)."""
        self._report = None
        self.model.set_rows([])
        self.k_combo.clear()
        self.split_combo.clear()
        self.source_label.setText(self.tr("No labels evaluated yet."))
        self.set_notes(())
        self._refresh_charts()

    # -- state --------------------------------------------------------------------------------------
    def report(self) -> EvaluationReport | None:
        return self._report

    def current_k(self) -> int | None:
        data = self.k_combo.currentData()
        return int(data) if data is not None else None

    def current_split(self) -> str:
        return self.split_combo.currentData() or ALL_SPLITS

    def current_threshold(self) -> float:
        return round(self.threshold_spin.value(), 2)

    # -- reactions ----------------------------------------------------------------------------------
    def _load_clicked(self) -> None:
        self.load_labels_requested.emit()
        if self._on_load_labels is not None:
            self._on_load_labels()

    def _decisions_clicked(self) -> None:
        self.use_decisions_requested.emit()
        if self._on_use_decisions is not None:
            self._on_use_decisions()

    def set_busy(self, busy: bool, text: str = "") -> None:
        """Disable the buttons while an evaluation runs (Cancel shown instead), and say so."""
        self.load_button.setEnabled(not busy)
        self.decisions_button.setEnabled(not busy)
        self.audit_box.setEnabled(not busy)
        self.cancel_button.setVisible(busy)
        self.cancel_button.setEnabled(busy)
        if text:
            self.source_label.setText(text)

    def set_progress(self, text: str) -> None:
        """What the running evaluation is doing (unless it is being cancelled)."""
        if not self.cancel_button.isHidden() and self.cancel_button.isEnabled():
            self.source_label.setText(text)

    def _cancel_clicked(self) -> None:
        self.cancel_button.setEnabled(False)
        self.source_label.setText(self.tr("Cancelling…"))
        self.cancel_requested.emit()

    def _row_chosen(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid() or self._updating:
            return
        row = self.model.row_at(current.row())
        self.table.scrollTo(current)
        self._updating = True
        self.k_combo.setCurrentIndex(max(0, self.k_combo.findData(row.k)))
        self.split_combo.setCurrentIndex(max(0, self.split_combo.findData(row.split)))
        self.threshold_spin.setValue(row.threshold)
        self._updating = False
        self._refresh_charts()

    def _controls_changed(self) -> None:
        if self._updating:
            return
        k, split, t = self.current_k(), self.current_split(), self.current_threshold()
        if k is not None:
            n = self.model.find(k, t, split)
            if n >= 0 and self.table.currentIndex().row() != n:
                self._updating = True
                self.table.selectRow(n)
                self.table.scrollTo(self.model.index(n, 0))
                self._updating = False
        self._refresh_charts()

    def _evaluation(self) -> KEvaluation | None:
        k = self.current_k()
        if self._report is None or k is None:
            return None
        return self._report.for_k(k)

    def _refresh_charts(self) -> None:
        t = self.current_threshold()
        marker = self.tr("threshold {0:g}").format(t)
        ev = self._evaluation()
        split = self.current_split()
        if ev is None:
            if self._screen_scores is not None:
                title = self.tr("Candidate scores of this screen, k = {0} · 本次筛查候选得分").format(self._screen_k)
            else:
                title = self.tr("Candidate scores · 候选得分分布")
            self.histogram.set_title(title)
            self.histogram.set_values(self._screen_scores if self._screen_scores is not None else [])
            self.histogram.set_labelled([], [])
            self.curves.set_series([])
        else:
            scores = [s for s in ev.pair_scores if split == ALL_SPLITS or s.pair.split == split]
            self.histogram.set_title(self.tr("Candidate scores, k = {0} · 候选得分分布").format(ev.k))
            self.histogram.set_values(ev.candidate_scores)
            hit = [s for s in scores if s.hit]
            self.histogram.set_labelled([s.jaccard for s in hit if s.pair.label == 1],
                                        [s.jaccard for s in hit if s.pair.label == 0])  # fmt: skip
            precision, recall, cand = metric_curve(scores, _CURVE_STEPS)
            self.curves.set_series([
                Series(self.tr("precision · 精确率"), _CURVE_STEPS, precision, QColor(OKABE_ITO["bluish_green"])),
                Series(self.tr("recall · 召回率"), _CURVE_STEPS, recall, QColor(OKABE_ITO["orange"])),
                Series(self.tr("candidate recall · 候选召回率"), _CURVE_STEPS, cand, QColor(OKABE_ITO["sky_blue"]), True),
            ])  # fmt: skip
        self.histogram.set_marker(t, marker)
        self.curves.set_marker(t, marker)
        if self._banding is None:
            self.s_curve.set_series([])
        else:
            b, r = self._banding
            xs, ys = s_curve(b, r)
            self.s_curve.set_title(self.tr("LSH S-curve, {0} bands × {1} rows · S曲线").format(b, r))
            self.s_curve.set_series([Series(self.tr("P(candidate)"), xs, ys, QColor(OKABE_ITO["blue"]))])
        self.s_curve.set_marker(t, marker)
        if ev is not None:
            self.selection_changed.emit(ev.k, t, split)
