"""The selected pair's review history: every reviewer's opinion and every arbitration, and the
"Arbitrate…" action when the reviewers disagree.

``HistoryModel`` is a list model over the pair's ``Decision`` and ``Arbitration`` records in time
order (one multi-line entry each, plain text). ``HistoryPanel`` shows it under the pair's effective
status; ``ArbitrationDialog`` asks for the arbitrator, the final status and the reason. The panel
never stores anything: it emits ``arbitration_made`` and the review controller saves it.
Imports PySide6 only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from neardup_gui.core.records import (
    REVIEW_PENDING,
    REVIEW_PENDING_ARBITRATION,
    REVIEW_STATUSES,
    Arbitration,
    Candidate,
    Decision,
    Document,
)
from neardup_gui.io.session import PairState, now_iso, utc_key
from neardup_gui.ui.labels import literal_tooltip, retained_label, review_label
from neardup_gui.ui.palette import OKABE_ITO, tint

RECORD_ROLE = Qt.ItemDataRole.UserRole + 1
CONCLUSIONS = tuple(s for s in REVIEW_STATUSES if s not in (REVIEW_PENDING, REVIEW_PENDING_ARBITRATION))
_ARBITRATION_TINT = tint(OKABE_ITO["orange"], 0.18)
_Index = QModelIndex | QPersistentModelIndex


def _when(iso: str) -> str:
    """An ISO time as people read it: ``2024-05-01 09:30:00 +08:00``."""
    if len(iso) > 19 and iso[10] == "T":
        return f"{iso[:10]} {iso[11:19]} {iso[19:]}".strip()
    return iso.replace("T", " ")


class HistoryModel(QAbstractListModel):
    """One row per decision or arbitration of a pair, oldest first."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Decision | Arbitration] = []
        self._shas: dict[str, str] = {}

    def set_history(self, state: PairState | None, shas: Mapping[str, str] | None = None) -> None:
        """Show a pair's history; ``shas`` (doc_id -> current SHA-256) marks opinions on old files."""
        self.beginResetModel()
        if state is None:
            self._rows = []
        else:
            # Merge by time; a decision and an arbitration at the same second: the decision first.
            items: list[tuple[str, int, Decision | Arbitration]] = [(utc_key(d.time)[1], 0, d) for d in state.decisions]
            items += [(utc_key(a.time)[1], 1, a) for a in state.arbitrations]
            self._rows = [record for _t, _k, record in sorted(items, key=lambda x: (x[0], x[1]))]
        self._shas = dict(shas or {})
        self.endResetModel()

    def records(self) -> list[Decision | Arbitration]:
        return list(self._rows)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        record = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._describe(record)
        if role == Qt.ItemDataRole.ToolTipRole:
            return literal_tooltip(self._describe(record))
        if role == RECORD_ROLE:
            return record
        if role == Qt.ItemDataRole.BackgroundRole and isinstance(record, Arbitration):
            return _ARBITRATION_TINT
        if role == Qt.ItemDataRole.ForegroundRole and isinstance(record, Decision) and self._stale(record):
            return QColor(OKABE_ITO["vermillion"])
        return None

    def _stale(self, d: Decision) -> bool:
        return any(sha and self._shas.get(doc) and sha != self._shas[doc]
                   for doc, sha in ((d.left, d.left_sha256), (d.right, d.right_sha256)))  # fmt: skip

    def _describe(self, record: Decision | Arbitration) -> str:
        if isinstance(record, Arbitration):
            lines = [
                self.tr("{0} · arbitration by {1}").format(_when(record.time), record.arbitrator),
                self.tr("Final: {0}").format(review_label(record.status)),
            ]
            if record.reason:
                lines.append(self.tr("Reason: {0}").format(record.reason))
            return "\n".join(lines)
        d = record
        lines = [f"{_when(d.time)} · {d.reviewer}", review_label(d.status)]
        for label, value in (
            (self.tr("Reason: {0}"), d.reason),
            (self.tr("Retained: {0}"), retained_label(d.retained) if d.retained else ""),
            (self.tr("Related source: {0}"), d.related_source),
            (self.tr("Original source: {0}"), d.original_source),
            (self.tr("Author: {0}"), d.author),
            (self.tr("Reprint permission: {0}"), d.reprint_permission),
        ):
            if value:
                lines.append(label.format(value))
        if self._stale(d):
            lines.append(self.tr("Made on an earlier version of a file (stale)"))
        return "\n".join(lines)


class ArbitrationDialog(QDialog):
    """Asks who arbitrates, the final status and why; OK only with a name."""

    def __init__(self, opinions: str, arbitrator: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Arbitrate the pair · 仲裁"))
        summary = QLabel(opinions)
        summary.setTextFormat(Qt.TextFormat.PlainText)
        summary.setWordWrap(True)
        self.arbitrator_edit = QLineEdit(arbitrator)
        self.status_combo = QComboBox()
        for status in CONCLUSIONS:
            self.status_combo.addItem(review_label(status), status)
        self.reason_edit = QPlainTextEdit()
        self.reason_edit.setPlaceholderText(self.tr("Why this is the final status"))
        self.reason_edit.setTabChangesFocus(True)
        self.reason_edit.setFixedHeight(self.fontMetrics().height() * 4 + 12)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Arbitrate"))
        form = QFormLayout()
        form.addRow(self.tr("Arbitrator"), self.arbitrator_edit)
        form.addRow(self.tr("Final status"), self.status_combo)
        form.addRow(self.tr("Reason"), self.reason_edit)
        layout = QVBoxLayout(self)
        layout.addWidget(summary)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.arbitrator_edit.textChanged.connect(self._update_ok)
        self._update_ok()
        self.resize(420, self.sizeHint().height())

    def _update_ok(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(self.arbitrator_edit.text().strip()))

    def values(self) -> tuple[str, str, str]:
        """(arbitrator, final status, reason) as entered."""
        return (self.arbitrator_edit.text().strip(), str(self.status_combo.currentData()),
                self.reason_edit.toPlainText().strip())  # fmt: skip


class HistoryPanel(QWidget):
    """The pair's effective status, its history, and Arbitrate… when the reviewers disagree."""

    arbitration_made = Signal(object)  # Arbitration, to be saved now

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._candidate: Candidate | None = None
        self._state: PairState | None = None
        self._available = True
        self.arbitrator_default = ""
        self.dialog: ArbitrationDialog | None = None
        self.status_label = QLabel()
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setWordWrap(True)
        self.model = HistoryModel(self)
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setWordWrap(True)
        self.list.setUniformItemSizes(False)
        self.list.setSpacing(2)
        self.list.setAlternatingRowColors(True)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.arbitrate_button = QPushButton(self.tr("Arbitrate… · 仲裁"))
        self.arbitrate_button.setToolTip(self.tr("Record the final status of a pair whose reviewers disagree"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 0, 0)
        layout.addWidget(self.status_label)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.arbitrate_button)
        self.arbitrate_button.clicked.connect(self.open_arbitration)
        self.set_pair(None, None)

    def set_pair(
        self, candidate: Candidate | None, state: PairState | None, documents: Sequence[Document | None] = ()
    ) -> None:
        """Show a pair's history (None: no pair selected)."""
        self._candidate, self._state = candidate, state
        shas = {d.doc_id: d.sha256 for d in documents if d is not None}
        self.model.set_history(state, shas)
        if candidate is None:
            self.status_label.setText(self.tr("No pair selected."))
        elif state is None or not (state.decisions or state.arbitrations):
            self.status_label.setText(self.tr("Nobody has reviewed this pair yet."))
        else:
            reviewers = {d.reviewer.strip().casefold() for d in state.decisions}
            text = self.tr("Status: {0} · {1} decision(s) by {2} reviewer(s), {3} arbitration(s)").format(
                review_label(state.status), len(state.decisions), len(reviewers), len(state.arbitrations)
            )
            if state.status == REVIEW_PENDING_ARBITRATION:
                text += "\n" + self.tr("The reviewers disagree: an arbitration settles the pair.")
            if state.stale:
                text += "\n" + self.tr("Stale: a file changed after it was reviewed; review the pair again.")
            self.status_label.setText(text)
        self._update_enabled()

    def set_available(self, available: bool) -> None:
        """Enable or disable arbitrating (e.g. while a screen holds the session)."""
        self._available = available
        self._update_enabled()

    def can_arbitrate(self) -> bool:
        return (self._available and self._candidate is not None and self._state is not None
                and self._state.status == REVIEW_PENDING_ARBITRATION)  # fmt: skip

    def _update_enabled(self) -> None:
        self.arbitrate_button.setEnabled(self.can_arbitrate())

    def open_arbitration(self) -> ArbitrationDialog | None:
        """Open the arbitration dialog (non-blocking); its OK emits ``arbitration_made``."""
        if not self.can_arbitrate() or self._state is None:
            return None
        latest = {d.reviewer.strip().casefold(): d for d in self._state.decisions if d.status != REVIEW_PENDING}
        opinions = "\n".join(f"{d.reviewer}: {review_label(d.status)}" for d in latest.values())
        dialog = ArbitrationDialog(self.tr("Latest opinions:\n{0}").format(opinions), self.arbitrator_default, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        candidate = self._candidate
        dialog.accepted.connect(lambda: self._arbitrated(candidate, dialog.values()))
        dialog.destroyed.connect(lambda *_: setattr(self, "dialog", None))
        self.dialog = dialog
        dialog.open()
        return dialog

    def _arbitrated(self, candidate: Candidate | None, values: tuple[str, str, str]) -> None:
        if candidate is None:
            return
        arbitrator, status, reason = values
        self.arbitration_made.emit(Arbitration(candidate.left, candidate.right, arbitrator, status, reason, now_iso()))
