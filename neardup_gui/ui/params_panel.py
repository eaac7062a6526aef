"""The screening parameters: method, k, num_perm, threshold or bands × rows, normalization, patterns
and the comparison scope (``ui.scope_box``).

Shows the LSH S-curve for the current banding in words ("pairs at Jaccard 0.8 are found with
probability …"). ``params()`` builds a validated ``ScreenParams``; fields the panel does not show
keep the values of the parameters last given to ``set_params``. "Defaults" shows the parameters given
to ``set_defaults`` (the window passes the ones chosen in Preferences).
Imports PySide6 and ``neardup_gui.core`` only.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from neardup_gui.core.methods.minhash_lsh import collision_probability, optimal_bands_rows
from neardup_gui.core.records import METHOD_MINHASH, METHODS, NormalizeOptions, ScreenParams
from neardup_gui.ui.labels import method_label
from neardup_gui.ui.scope_box import ScopeBox

PROBE_JACCARD = 0.8  # the Jaccard the S-curve sentence speaks about
_SPLIT_RE = re.compile(r"[;,\s]+")


def format_probability(p: float) -> str:
    """A probability as a percentage, with enough digits that 99.96 % does not read as 100 %."""
    return f"{p:.2%}" if 0.999 <= p < 1.0 else f"{p:.1%}"


def split_patterns(text: str) -> tuple[str, ...]:
    """Glob patterns from a field: separated by spaces, commas or semicolons."""
    return tuple(p for p in _SPLIT_RE.split(text.strip()) if p)


class ParamsPanel(QWidget):
    """Editable screening parameters with the resulting LSH detection probabilities."""

    params_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._base = ScreenParams()
        self._defaults = ScreenParams()
        self._loading = False

        self.method_combo = QComboBox()
        for method in METHODS:
            self.method_combo.addItem(method_label(method), method)
        self.k_spin = QSpinBox()
        self.k_spin.setRange(1, 32)
        self.k_spin.setSuffix(self.tr(" characters"))
        self.k_spin.setToolTip(self.tr("Shingle length: texts are compared as sets of k-character windows"))
        self.num_perm_spin = QSpinBox()
        self.num_perm_spin.setRange(16, 1024)
        self.num_perm_spin.setSingleStep(16)
        self.num_perm_spin.setToolTip(self.tr("Number of MinHash permutations (more: finer estimate, slower)"))
        self.threshold_spin = QDoubleSpinBox()
        self.threshold_spin.setRange(0.05, 1.0)
        self.threshold_spin.setSingleStep(0.05)
        self.threshold_spin.setDecimals(2)
        self.threshold_spin.setToolTip(self.tr("Jaccard (0 to 1) a pair must reach to be kept"))
        self.manual_banding = QCheckBox(self.tr("Set bands × rows by hand"))
        self.bands_spin = QSpinBox()
        self.bands_spin.setRange(1, 1024)
        self.rows_spin = QSpinBox()
        self.rows_spin.setRange(1, 64)
        banding = QHBoxLayout()
        banding.setContentsMargins(0, 0, 0, 0)
        banding.addWidget(self.bands_spin)
        banding.addWidget(QLabel("×"))
        banding.addWidget(self.rows_spin)
        self.curve_label = QLabel()
        self.curve_label.setWordWrap(True)
        self.curve_label.setTextFormat(Qt.TextFormat.PlainText)
        self.curve_label.setStyleSheet("color: #333333;")
        self.containment_spin = QDoubleSpinBox()
        self.containment_spin.setRange(0.0, 1.0)
        self.containment_spin.setSingleStep(0.05)
        self.containment_spin.setDecimals(2)
        self.containment_spin.setSpecialValueText(self.tr("off"))
        self.containment_spin.setToolTip(
            self.tr("Also keep pairs where this share of one text lies inside the other (0 = off)")
        )
        self.cluster_spin = QSpinBox()
        self.cluster_spin.setRange(0, 1_000_000)
        self.cluster_spin.setSingleStep(10)
        self.cluster_spin.setSpecialValueText(self.tr("verify every pair"))
        self.cluster_spin.setSuffix(self.tr(" files"))
        self.cluster_spin.setToolTip(
            self.tr(
                "In a group of more than this many files that are near copies of each other (one text filled in "
                "or copied many times), only each file's closest partners and the pairs that keep the group "
                "together are verified. 0 verifies every pair."
            )
        )

        self.nfkc_box = QCheckBox(self.tr("NFKC (full-width → half-width)"))
        self.case_combo = QComboBox()
        for value, text in (("casefold", self.tr("casefold")), ("lower", self.tr("lower case")), ("none", self.tr("keep case"))):
            self.case_combo.addItem(text, value)
        self.keep_combo = QComboBox()
        for value, text in (
            ("alnum", self.tr("letters and digits only")),
            ("punct", self.tr("drop whitespace, keep punctuation")),
            ("whitespace", self.tr("drop whitespace only")),
        ):
            self.keep_combo.addItem(text, value)
        self.include_edit = QLineEdit()
        self.include_edit.setToolTip(self.tr("Glob patterns on relative paths, separated by spaces"))
        self.exclude_edit = QLineEdit()
        self.exclude_edit.setPlaceholderText(self.tr("e.g. drafts/* *.bak"))
        self.exclude_edit.setToolTip(self.tr("Glob patterns on relative paths, separated by spaces"))
        self.scope_box = ScopeBox()
        self.reset_button = QPushButton(self.tr("Defaults"))
        self.reset_button.setToolTip(self.tr("Show the default parameters (chosen in Preferences)"))
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #A0400A;")

        method_box = QGroupBox(self.tr("Method"))
        f1 = QFormLayout(method_box)
        f1.addRow(self.method_combo)
        f1.addRow(self.tr("k"), self.k_spin)
        f1.addRow(self.tr("Threshold"), self.threshold_spin)
        f1.addRow(self.tr("Containment"), self.containment_spin)
        f1.addRow(self.tr("Large groups over"), self.cluster_spin)
        lsh_box = QGroupBox(self.tr("MinHash LSH"))
        f2 = QFormLayout(lsh_box)
        f2.addRow(self.tr("num_perm"), self.num_perm_spin)
        f2.addRow(self.manual_banding)
        f2.addRow(self.tr("Bands × rows"), banding)
        f2.addRow(self.curve_label)
        norm_box = QGroupBox(self.tr("Normalization"))
        f3 = QFormLayout(norm_box)
        f3.addRow(self.nfkc_box)
        f3.addRow(self.tr("Case"), self.case_combo)
        f3.addRow(self.tr("Keep"), self.keep_combo)
        files_box = QGroupBox(self.tr("Files"))
        f4 = QFormLayout(files_box)
        f4.addRow(self.tr("Include"), self.include_edit)
        f4.addRow(self.tr("Exclude"), self.exclude_edit)

        # Three columns, so the whole panel fits the table's height: method and files, LSH,
        # normalization and scope.
        layout = QGridLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(method_box, 0, 0)
        layout.addWidget(files_box, 1, 0)
        layout.addWidget(lsh_box, 0, 1, 2, 1)
        layout.addWidget(norm_box, 0, 2)
        layout.addWidget(self.scope_box, 1, 2)
        layout.addWidget(self.error_label, 2, 0, 1, 2)
        layout.addWidget(self.reset_button, 2, 2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        layout.setRowStretch(3, 1)
        layout.setColumnStretch(3, 1)
        for column in (0, 1, 2):
            layout.setColumnMinimumWidth(column, 280)

        for combo in (self.method_combo, self.case_combo, self.keep_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(10)
        for spin in (self.k_spin, self.num_perm_spin, self.bands_spin, self.rows_spin, self.cluster_spin):
            spin.valueChanged.connect(self._changed)
        for dspin in (self.threshold_spin, self.containment_spin):
            dspin.valueChanged.connect(self._changed)
        for combo in (self.method_combo, self.case_combo, self.keep_combo):
            combo.currentIndexChanged.connect(self._changed)
        for box in (self.manual_banding, self.nfkc_box):
            box.toggled.connect(self._changed)
        for edit in (self.include_edit, self.exclude_edit):
            edit.textChanged.connect(self._changed)
        self.scope_box.changed.connect(self._changed)
        self.reset_button.clicked.connect(self.reset_to_defaults)
        self.set_params(ScreenParams())

    def set_defaults(self, params: ScreenParams) -> None:
        """The parameters the "Defaults" button shows (the panel's values do not change now)."""
        self._defaults = params

    def reset_to_defaults(self) -> None:
        """Show the default parameters, as the "Defaults" button does."""
        self.set_params(self._defaults)
        self.params_changed.emit()

    # -- values -------------------------------------------------------------------------------
    def set_params(self, params: ScreenParams) -> None:
        """Show ``params`` (fields not shown here are kept for ``params()``)."""
        self._loading = True
        try:
            self._base = params
            self.method_combo.setCurrentIndex(max(0, self.method_combo.findData(params.method)))
            self.k_spin.setValue(params.k)
            self.num_perm_spin.setValue(params.num_perm)
            self.threshold_spin.setValue(params.threshold)
            self.containment_spin.setValue(params.containment_threshold)
            self.cluster_spin.setValue(params.cluster_limit)
            manual = params.bands is not None and params.rows is not None
            bands, rows = (params.bands, params.rows) if manual else optimal_bands_rows(params.threshold, params.num_perm)
            self.manual_banding.setChecked(manual)
            self.rows_spin.setMaximum(64)
            self.bands_spin.setMaximum(1024)
            self.rows_spin.setValue(int(rows or 1))
            self.bands_spin.setValue(int(bands or 1))
            self.nfkc_box.setChecked(params.normalize.nfkc)
            self.case_combo.setCurrentIndex(max(0, self.case_combo.findData(params.normalize.case)))
            self.keep_combo.setCurrentIndex(max(0, self.keep_combo.findData(params.normalize.keep)))
            self.include_edit.setText(" ".join(params.include))
            self.exclude_edit.setText(" ".join(params.exclude))
            self.scope_box.set_values(params.scope, params.scope_field, params.scope_patterns)
        finally:
            self._loading = False
        self._refresh()

    def params(self) -> ScreenParams:
        """The parameters as shown; raises ``ValueError`` (saying what to fix) when they do not validate."""
        problem = self.scope_box.problem()
        if problem:
            raise ValueError(problem)
        manual = self.manual_banding.isChecked()
        return self._base.with_(
            method=self.method_combo.currentData(),
            k=self.k_spin.value(),
            num_perm=self.num_perm_spin.value(),
            threshold=round(self.threshold_spin.value(), 4),
            bands=self.bands_spin.value() if manual else None,
            rows=self.rows_spin.value() if manual else None,
            containment_threshold=round(self.containment_spin.value(), 4),
            cluster_limit=self.cluster_spin.value(),
            normalize=NormalizeOptions(
                nfkc=self.nfkc_box.isChecked(),
                case=self.case_combo.currentData(),
                keep=self.keep_combo.currentData(),
            ),
            include=split_patterns(self.include_edit.text()),
            exclude=split_patterns(self.exclude_edit.text()),
            **self.scope_box.values(),
        )

    def banding(self) -> tuple[int, int]:
        """The (bands, rows) a screen with these parameters would use."""
        if self.manual_banding.isChecked():
            return self.bands_spin.value(), self.rows_spin.value()
        return optimal_bands_rows(round(self.threshold_spin.value(), 4), self.num_perm_spin.value())

    def curve_text(self) -> str:
        bands, rows = self.banding()
        threshold = self.threshold_spin.value()
        return self.tr(
            "{0} bands × {1} rows. Pairs at Jaccard {2:.1f} are found with probability {3}; "
            "at the threshold {4:.2f}, {5}; at Jaccard 0.3, {6}."
        ).format(
            bands,
            rows,
            PROBE_JACCARD,
            format_probability(collision_probability(PROBE_JACCARD, bands, rows)),
            threshold,
            format_probability(collision_probability(threshold, bands, rows)),
            format_probability(collision_probability(0.3, bands, rows)),
        )

    # -- reactions ----------------------------------------------------------------------------
    def _changed(self, *_args: object) -> None:
        if self._loading:
            return
        self._refresh()
        self.params_changed.emit()

    def _refresh(self) -> None:
        manual = self.manual_banding.isChecked()
        minhash = self.method_combo.currentData() == METHOD_MINHASH
        for widget in (self.num_perm_spin, self.manual_banding, self.curve_label):
            widget.setEnabled(minhash)
        self.bands_spin.setEnabled(minhash and manual)
        self.rows_spin.setEnabled(minhash and manual)
        # bands × rows may not exceed num_perm.
        self.rows_spin.setMaximum(max(1, min(64, self.num_perm_spin.value())))
        self.bands_spin.setMaximum(max(1, self.num_perm_spin.value() // self.rows_spin.value()))
        if not manual:
            was, self._loading = self._loading, True
            try:
                bands, rows = self.banding()
                self.rows_spin.setValue(rows)
                self.bands_spin.setValue(bands)
            finally:
                self._loading = was
        self.curve_label.setText(self.curve_text())
        try:
            self.params()
        except ValueError as exc:
            self.error_label.setText(str(exc))
        else:
            self.error_label.setText("")
