"""The window's toolbar: the source folder (read-only), the workspace and the Screen button.

Shows paths only; the window decides what choosing a folder means.
Imports PySide6 only.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QLineEdit, QMenu, QPushButton, QToolButton, QWidget


class SourceBar(QWidget):
    """Source and workspace fields with their buttons, and the Screen button."""

    choose_source_requested = Signal()
    choose_workspace_requested = Signal()
    screen_requested = Signal()

    def __init__(self, recent_menu: QMenu, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source_edit = QLineEdit()
        self.source_edit.setReadOnly(True)
        self.source_edit.setPlaceholderText(self.tr("Choose a folder of texts, or drop one on the window"))
        self.source_edit.setToolTip(self.tr("The source folder is only read, never changed"))
        self.workspace_edit = QLineEdit()
        self.workspace_edit.setReadOnly(True)
        self.workspace_edit.setToolTip(self.tr("Outputs and the review session are written here, never in the source"))
        self.source_button = QPushButton(self.tr("Choose…"))
        self.recent_button = QToolButton()
        self.recent_button.setText(self.tr("Recent"))
        self.recent_button.setMenu(recent_menu)
        self.recent_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.workspace_button = QPushButton(self.tr("Change…"))
        self.screen_button = QPushButton(self.tr("Screen"))
        self.screen_button.setToolTip(self.tr("Find near-duplicate pairs in the source folder (F5)"))
        font = self.screen_button.font()
        font.setBold(True)
        self.screen_button.setFont(font)
        self.screen_button.setMinimumHeight(self.source_button.sizeHint().height() * 2 - 4)

        source_label = QLabel(self.tr("Source (read-only)"))
        workspace_label = QLabel(self.tr("Workspace"))
        grid = QGridLayout(self)
        grid.setContentsMargins(6, 2, 6, 2)
        grid.setVerticalSpacing(3)
        grid.addWidget(source_label, 0, 0)
        grid.addWidget(self.source_edit, 0, 1)
        grid.addWidget(self.source_button, 0, 2)
        grid.addWidget(self.recent_button, 0, 3)
        grid.addWidget(workspace_label, 1, 0)
        grid.addWidget(self.workspace_edit, 1, 1)
        grid.addWidget(self.workspace_button, 1, 2, 1, 2)
        grid.addWidget(self.screen_button, 0, 4, 2, 1, Qt.AlignmentFlag.AlignVCenter)
        grid.setColumnStretch(1, 1)

        self.source_button.clicked.connect(self.choose_source_requested)
        self.workspace_button.clicked.connect(self.choose_workspace_requested)
        self.screen_button.clicked.connect(self.screen_requested)

    def set_source(self, text: str) -> None:
        self.source_edit.setText(text)
        self.source_edit.setCursorPosition(0)

    def set_workspace(self, text: str) -> None:
        self.workspace_edit.setText(text)
        self.workspace_edit.setCursorPosition(0)

    def set_running(self, running: bool) -> None:
        for widget in (self.screen_button, self.source_button, self.recent_button, self.workspace_button):
            widget.setEnabled(not running)
