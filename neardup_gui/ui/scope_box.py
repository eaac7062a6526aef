"""The comparison scope controls of the Parameters panel: which pairs may be compared at all.

A combo names the scope in words (``core.scope.SCOPES``); a field box says which field groups the
documents for "only within the same …" (``source_id``, ``version`` or a column of the sidecar
CSV), and a patterns box names the reference archive (or the first set) for the two scopes that
split the folder in two. ``problem()`` says in words what is missing before a screen can start.
Imports PySide6 and ``neardup_gui.core`` only.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QLineEdit, QWidget

from neardup_gui.core.scope import SCOPES
from neardup_gui.ui.labels import scope_label

BUILTIN_FIELDS = ("source_id", "version")
_SPLIT_RE = re.compile(r"[;,\s]+")
_NEEDS_PATTERNS = ("new_vs_reference", "across")


class ScopeBox(QGroupBox):
    """Scope, field and patterns; ``changed`` is emitted on every edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Comparison scope"), parent)
        self.scope_combo = QComboBox()
        for scope in SCOPES:
            self.scope_combo.addItem(scope_label(scope), scope)
        for index, scope in enumerate(SCOPES):
            self.scope_combo.setItemData(index, self._hint(scope), Qt.ItemDataRole.ToolTipRole)
        self.scope_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.scope_combo.setMinimumContentsLength(10)
        self.field_combo = QComboBox()
        self.field_combo.setEditable(True)
        self.field_combo.addItems(list(BUILTIN_FIELDS))
        self.field_combo.setToolTip(
            self.tr(
                "Documents are compared only with documents that have the same value of this field: source_id "
                "(the top folder, or the sidecar's source), version, or a column of the sidecar CSV"
            )
        )
        self.patterns_edit = QLineEdit()
        self.patterns_edit.setPlaceholderText(self.tr("e.g. 历史稿件/*"))
        self.patterns_edit.setToolTip(
            self.tr("Glob patterns on relative paths naming the reference archive (or the first set), separated by spaces")
        )
        self.patterns_label = QLabel(self.tr("Reference"))
        form = QFormLayout(self)
        form.addRow(self.scope_combo)
        form.addRow(self.tr("Field"), self.field_combo)
        form.addRow(self.patterns_label, self.patterns_edit)
        self.scope_combo.currentIndexChanged.connect(self._edited)
        self.field_combo.currentTextChanged.connect(self._edited)
        self.patterns_edit.textChanged.connect(self._edited)
        self._refresh()

    # -- values -------------------------------------------------------------------------------
    def set_values(self, scope: str, field: str, patterns: tuple[str, ...] | list[str]) -> None:
        """Show a scope, its field and its patterns (without emitting ``changed``)."""
        blocked = [w.blockSignals(True) for w in (self.scope_combo, self.field_combo, self.patterns_edit)]
        try:
            self.scope_combo.setCurrentIndex(max(0, self.scope_combo.findData(scope)))
            self.field_combo.setCurrentText(field or BUILTIN_FIELDS[0])
            self.patterns_edit.setText(" ".join(patterns))
        finally:
            for widget, was in zip((self.scope_combo, self.field_combo, self.patterns_edit), blocked):
                widget.blockSignals(was)
        self._refresh()

    def scope(self) -> str:
        return str(self.scope_combo.currentData())

    def field(self) -> str:
        return self.field_combo.currentText().strip()

    def patterns(self) -> tuple[str, ...]:
        return tuple(p for p in _SPLIT_RE.split(self.patterns_edit.text().strip()) if p)

    def values(self) -> dict[str, object]:
        """``scope``, ``scope_field`` and ``scope_patterns`` for ``ScreenParams.with_``."""
        return {"scope": self.scope(), "scope_field": self.field() or BUILTIN_FIELDS[0], "scope_patterns": self.patterns()}

    def problem(self) -> str:
        """Why these values cannot be screened, in words; empty when they can."""
        if self.scope() in _NEEDS_PATTERNS and not self.patterns():
            return self.tr("Give the patterns naming the reference archive (or the first set), e.g. 历史稿件/*.")
        if self.scope() == "within" and not self.field():
            return self.tr("Give the field whose value groups the documents, e.g. source_id.")
        return ""

    # -- reactions ----------------------------------------------------------------------------
    def _edited(self, *_args: object) -> None:
        self._refresh()
        self.changed.emit()

    def _refresh(self) -> None:
        scope = self.scope()
        self.field_combo.setEnabled(scope == "within")
        self.patterns_edit.setEnabled(scope in _NEEDS_PATTERNS)
        self.patterns_label.setText(self.tr("First set") if scope == "across" else self.tr("Reference"))
        self.scope_combo.setToolTip(
            self._hint(scope) + "\n" + self.tr("Pairs the scope leaves out are counted after the screen.")
        )

    def _hint(self, scope: str) -> str:
        return {
            "all": self.tr("Every pair of documents may be compared."),
            "within": self.tr("Documents are compared only with documents of the same field value."),
            "new_vs_reference": self.tr(
                "New documents are compared with each other and with the archive; the archive is not "
                "compared with itself."
            ),
            "across": self.tr("Only pairs with one document in each set: the first set against the rest."),
        }.get(scope, "")
