"""The decision form for the selected pair: status, reason, retained version, related source,
original source, author, reprint permission and reviewer.

A status button (or Ctrl+0 … Ctrl+5) is the decision: it emits ``decision_made`` at once with the
other fields as they stand. Edits to the other fields afterwards are saved with Save (Ctrl+S) or
Save and next (Ctrl+Enter). The review time is set when the decision is made. The form never
touches storage: the window saves what it emits (``decision_store``).
Imports PySide6 only.
"""

from __future__ import annotations

import getpass
from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from neardup_gui.core.records import REVIEW_PENDING, REVIEW_STATUSES, Candidate, Decision, Document
from neardup_gui.ui.labels import flags_text, retained_label, review_label

RETAINED_CHOICES = ("", "left", "right", "both")


def status_shortcut(status: str) -> QKeySequence:
    """Ctrl+0 for pending, Ctrl+1 … Ctrl+5 for the other statuses in their standard order."""
    return QKeySequence(f"Ctrl+{REVIEW_STATUSES.index(status)}")


def _default_reviewer() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return ""


class DecisionForm(QWidget):
    """Form for one pair's review decision."""

    decision_made = Signal(object)  # Decision, to be saved now
    next_requested = Signal()
    reviewer_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._candidate: Candidate | None = None
        self._docs: tuple[Document | None, Document | None] = (None, None)
        self._status = REVIEW_PENDING
        self._dirty = False
        self._loading = False

        self.pair_label = QLabel()
        self.pair_label.setTextFormat(Qt.TextFormat.PlainText)
        self.pair_label.setWordWrap(True)
        self.suggestion_label = QLabel()
        self.suggestion_label.setTextFormat(Qt.TextFormat.PlainText)
        self.suggestion_label.setWordWrap(True)
        self.suggestion_label.setStyleSheet("color: #555555;")

        status_box = QGroupBox(self.tr("Status (saved when chosen)"))
        grid = QGridLayout(status_box)
        grid.setContentsMargins(6, 6, 6, 6)
        grid.setSpacing(4)
        self.status_group = QButtonGroup(self)
        self.status_group.setExclusive(True)
        self.status_buttons: dict[str, QPushButton] = {}
        for i, status in enumerate(REVIEW_STATUSES):
            button = QPushButton(review_label(status))
            button.setCheckable(True)
            key = status_shortcut(status)
            button.setShortcut(key)
            button.setToolTip(key.toString(QKeySequence.SequenceFormat.NativeText))
            button.setStyleSheet("text-align: left; padding: 3px 8px;")
            self.status_group.addButton(button, i)
            self.status_buttons[status] = button
            grid.addWidget(button, i, 0)

        self.reason_edit = QPlainTextEdit()
        self.reason_edit.setPlaceholderText(self.tr("Why (free text)"))
        self.reason_edit.setTabChangesFocus(True)
        self.reason_edit.setFixedHeight(self.fontMetrics().height() * 4 + 12)
        self.retained_combo = QComboBox()
        for choice in RETAINED_CHOICES:
            self.retained_combo.addItem(retained_label(choice), choice)
        self.related_edit = QLineEdit()
        self.related_edit.setPlaceholderText(self.tr("Related document, e.g. the feature an excerpt comes from"))
        self.original_source_edit = QLineEdit()
        self.original_source_edit.setPlaceholderText(self.tr("Where the text first appeared"))
        self.author_edit = QLineEdit()
        self.author_edit.setPlaceholderText(self.tr("Author or correspondent"))
        self.reprint_edit = QLineEdit()
        self.reprint_edit.setPlaceholderText(self.tr("e.g. granted in writing 2024-05-01"))
        self._text_fields = (self.related_edit, self.original_source_edit, self.author_edit, self.reprint_edit)
        self.reviewer_edit = QLineEdit(_default_reviewer())
        self.time_label = QLabel()
        self.time_label.setTextFormat(Qt.TextFormat.PlainText)
        self.time_label.setWordWrap(True)

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(self.tr("Reason"), self.reason_edit)
        form.addRow(self.tr("Retained"), self.retained_combo)
        form.addRow(self.tr("Related source"), self.related_edit)
        form.addRow(self.tr("Original source"), self.original_source_edit)
        form.addRow(self.tr("Author"), self.author_edit)
        form.addRow(self.tr("Reprint permission"), self.reprint_edit)
        form.addRow(self.tr("Reviewer"), self.reviewer_edit)
        form.addRow(self.tr("Reviewed"), self.time_label)

        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setShortcut(QKeySequence("Ctrl+S"))
        self.save_button.setToolTip(self.tr("Save the decision (Ctrl+S)"))
        self.save_next_button = QPushButton(self.tr("Save and next"))
        self.save_next_button.setShortcut(QKeySequence("Ctrl+Return"))
        self.save_next_button.setToolTip(self.tr("Save the decision and go to the next pair (Ctrl+Enter)"))
        self.save_next_button.setDefault(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.save_next_button)

        self.note_label = QLabel()
        self.note_label.setTextFormat(Qt.TextFormat.PlainText)
        self.note_label.setWordWrap(True)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 0, 0)
        heading = QLabel(self.tr("Decision"))
        font = heading.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        heading.setFont(font)
        layout.addWidget(heading)
        layout.addWidget(self.pair_label)
        layout.addWidget(self.suggestion_label)
        layout.addWidget(status_box)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.note_label)
        layout.addStretch(1)

        self.status_group.idClicked.connect(self._on_status_clicked)
        self.reason_edit.textChanged.connect(self._mark_dirty)
        self.retained_combo.currentIndexChanged.connect(self._mark_dirty)
        for edit in self._text_fields:
            edit.textEdited.connect(self._mark_dirty)
        self.reviewer_edit.editingFinished.connect(lambda: self.reviewer_changed.emit(self.reviewer()))
        self.save_button.clicked.connect(self.save)
        self.save_next_button.clicked.connect(self.save_and_next)
        self.clear()

    # -- content ------------------------------------------------------------------------------
    def candidate(self) -> Candidate | None:
        return self._candidate

    def reviewer(self) -> str:
        return self.reviewer_edit.text().strip()

    def set_reviewer(self, name: str) -> None:
        if name:
            self.reviewer_edit.setText(name)

    def status(self) -> str:
        return self._status

    def is_dirty(self) -> bool:
        return self._dirty and self._candidate is not None

    def clear(self) -> None:
        """No pair selected: nothing to decide."""
        self.set_pair(None, None, None, None)

    def set_pair(
        self,
        candidate: Candidate | None,
        left_doc: Document | None,
        right_doc: Document | None,
        latest: Decision | None,
    ) -> None:
        """Show a pair and its latest decision (or an empty form)."""
        self._loading = True
        try:
            self._candidate, self._docs = candidate, (left_doc, right_doc)
            self._status = latest.status if latest is not None else REVIEW_PENDING
            self.status_buttons[self._status].setChecked(True)
            self.reason_edit.setPlainText(latest.reason if latest else "")
            retained = latest.retained if latest is not None and latest.retained in RETAINED_CHOICES else ""
            self.retained_combo.setCurrentIndex(RETAINED_CHOICES.index(retained))
            self.related_edit.setText(latest.related_source if latest else "")
            self.original_source_edit.setText(latest.original_source if latest else "")
            self.author_edit.setText(latest.author if latest else "")
            self.reprint_edit.setText(latest.reprint_permission if latest else "")
            if latest is not None:
                self.time_label.setText(self.tr("{0} by {1}").format(latest.time, latest.reviewer))
            else:
                self.time_label.setText(self.tr("not yet (set when you decide)"))
            if candidate is None:
                self.pair_label.setText(self.tr("No pair selected."))
                self.suggestion_label.setText("")
            else:
                names = [d.path if d is not None else i for d, i in ((left_doc, candidate.left), (right_doc, candidate.right))]
                self.pair_label.setText(f"{names[0]}\n↔ {names[1]}")
                if candidate.suggestion and candidate.suggestion != REVIEW_PENDING:
                    hint = self.tr("Suggested: {0}").format(review_label(candidate.suggestion))
                else:
                    hint = self.tr("No suggestion from the screen.")
                if candidate.flags:
                    hint += "\n" + self.tr("Flags: {0}").format(flags_text(candidate.flags))
                self.suggestion_label.setText(hint)
            self.note_label.setText("")
            self._dirty = False
        finally:
            self._loading = False
        self._update_enabled()

    def set_available(self, available: bool, why: str = "") -> None:
        """Enable or disable deciding (e.g. while a screen holds the session)."""
        self.setProperty("decisions_available", available)
        self.note_label.setText(why)
        self._update_enabled()

    def _update_enabled(self) -> None:
        available = self.property("decisions_available") is not False
        on = available and self._candidate is not None
        for widget in (*self.status_buttons.values(), self.reason_edit, self.retained_combo, *self._text_fields):
            widget.setEnabled(on)
        self.save_button.setEnabled(on)
        self.save_next_button.setEnabled(on)

    def show_note(self, text: str) -> None:
        self.note_label.setText(text)

    # -- deciding -----------------------------------------------------------------------------
    def current_decision(self, status: str | None = None) -> Decision | None:
        """The decision the form describes now, timed now; None without a pair or reviewer."""
        c = self._candidate
        if c is None or not self.reviewer():
            return None
        left_doc, right_doc = self._docs
        return Decision(
            left=c.left,
            right=c.right,
            status=status or self._status,
            reviewer=self.reviewer(),
            time=datetime.now().astimezone().isoformat(timespec="seconds"),
            reason=self.reason_edit.toPlainText().strip(),
            retained=str(self.retained_combo.currentData() or ""),
            related_source=self.related_edit.text().strip(),
            original_source=self.original_source_edit.text().strip(),
            author=self.author_edit.text().strip(),
            reprint_permission=self.reprint_edit.text().strip(),
            left_sha256=left_doc.sha256 if left_doc is not None else "",
            right_sha256=right_doc.sha256 if right_doc is not None else "",
        )

    def choose_status(self, status: str) -> bool:
        """Decide ``status`` for the pair (what a status button does); True if a decision was made."""
        if status not in REVIEW_STATUSES:
            raise ValueError(f"unknown review status {status!r}")
        return self._emit(status)

    def save(self) -> bool:
        """Emit the form's decision; True if one was made."""
        return self._emit(self._status)

    def save_and_next(self) -> None:
        if self._candidate is None or self.save():
            self.next_requested.emit()

    def mark_saved(self, decision: Decision) -> None:
        """The window stored ``decision``: show its time and clear the unsaved mark."""
        self._status = decision.status
        self.status_buttons[decision.status].setChecked(True)
        self.time_label.setText(self.tr("{0} by {1}").format(decision.time, decision.reviewer))
        self._dirty = False
        self.note_label.setText(self.tr("Saved: {0}").format(review_label(decision.status)))

    def _emit(self, status: str) -> bool:
        decision = self.current_decision(status)
        if decision is None:
            if self._candidate is not None and not self.reviewer():
                self.note_label.setText(self.tr("Enter your name as reviewer first."))
                self.reviewer_edit.setFocus()
                self.status_buttons[self._status].setChecked(True)
            return False
        self.decision_made.emit(decision)
        return True

    def _on_status_clicked(self, button_id: int) -> None:
        if not self._loading:
            self.choose_status(REVIEW_STATUSES[button_id])

    def _mark_dirty(self, *_args: object) -> None:
        if not self._loading and self._candidate is not None:
            self._dirty = True
            self.note_label.setText(self.tr("Unsaved changes (Ctrl+S saves)"))
