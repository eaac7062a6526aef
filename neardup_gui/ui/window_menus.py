"""The main window's actions and its File, View and Review menus.

Every action is also added to the window itself, so its shortcut works wherever the focus is.
Escape cancels a running screen (the progress panel says "Cancelling…" at once). File → Recent
workspaces reopens a workspace shown before (one whose session is gone is listed but disabled). The
Settings and Help menus come from ``app_menus``.
Imports PySide6 and ``neardup_gui.tasks`` (the session file's name) only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

from neardup_gui.tasks import SESSION_FILE
from neardup_gui.ui.diff_view import DiffView

if TYPE_CHECKING:
    from neardup_gui.ui.main_window import MainWindow


class WindowMenus(QObject):
    """Builds the window's actions and menus and enables them as a screen starts and ends."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = w = window
        a = self._action
        self.open_action = a(self.tr("&Open folder…"), w.choose_source, QKeySequence.StandardKey.Open)
        self.open_workspace_action = a(self.tr("Open wor&kspace…"), w.workspaces.choose_and_open, "Ctrl+Shift+O")
        self.workspace_action = a(self.tr("Choose &workspace…"), w.choose_workspace)
        self.screen_action = a(self.tr("&Screen"), w.start_screen, "F5")
        self.cancel_action = a(self.tr("&Cancel screen"), w.progress.request_cancel, "Esc")
        self.cancel_action.setEnabled(False)
        self.export_action = a(self.tr("&Export review workbook…"), w.workspaces.export_workbook, "Ctrl+E")
        self.export_csv_action = a(self.tr("Export &CSV…"), w.workspaces.export_csv)
        self.quit_action = a(self.tr("&Quit"), w.close, QKeySequence.StandardKey.Quit)
        next_key, previous_key = DiffView.navigation_keys()
        self.next_action = a(self.tr("&Next overlap"), w.diff_view.next_overlap, next_key)
        self.previous_action = a(self.tr("&Previous overlap"), w.diff_view.previous_overlap, previous_key)
        self.arbitrate_action = a(self.tr("&Arbitrate…"), w.history_panel.open_arbitration)
        self.labels_action = a(self.tr("Evaluate against a &labels file…"), w.evaluation.load_labels)
        self.decisions_labels_action = a(self.tr("Evaluate against my &decisions"), w.evaluation.use_decisions)

        bar = w.menuBar()
        self.file_menu = bar.addMenu(self.tr("&File"))
        self.file_menu.addActions([self.open_action, self.open_workspace_action, self.workspace_action])
        self.file_menu.addMenu(w.recent_menu)
        self.recent_workspaces_menu = self.file_menu.addMenu(self.tr("Recen&t workspaces"))
        self.file_menu.addSeparator()
        self.file_menu.addActions([self.screen_action, self.cancel_action])
        self.file_menu.addSeparator()
        self.file_menu.addActions([self.export_action, self.export_csv_action])
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.view_menu = bar.addMenu(self.tr("&View"))
        self.view_menu.addActions([self.next_action, self.previous_action])
        self.view_menu.addSeparator()
        self.columns_menu = self.view_menu.addMenu(self.tr("Candidate &columns"))
        self.review_menu = bar.addMenu(self.tr("&Review"))
        self.review_menu.addActions([self.arbitrate_action, self.labels_action, self.decisions_labels_action])

        self.columns_menu.aboutToShow.connect(self._fill_columns_menu)
        self.review_menu.aboutToShow.connect(lambda: self.arbitrate_action.setEnabled(w.history_panel.can_arbitrate()))
        w.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self.recent_workspaces_menu.aboutToShow.connect(self.fill_recent_workspaces_menu)

    def _action(self, text: str, slot: object, shortcut: QKeySequence | str | None = None) -> QAction:
        action = QAction(text, self.window)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        self.window.addAction(action)  # shortcuts work wherever the focus is in the window
        return action

    def set_running(self, running: bool) -> None:
        """A screen started (True) or ended: what may be started now."""
        for action in (self.screen_action, self.open_action, self.workspace_action, self.open_workspace_action):
            action.setEnabled(not running)
        self.recent_workspaces_menu.setEnabled(not running)
        self.cancel_action.setEnabled(running)

    def _fill_columns_menu(self) -> None:
        self.window.candidate_view.fill_column_menu(self.columns_menu)

    def _fill_recent_menu(self) -> None:
        menu = self.window.recent_menu
        menu.clear()
        folders = self.window.settings.recent_folders()
        for folder in folders:
            action = menu.addAction(folder.replace("&", "&&"))  # no mnemonics in paths
            action.triggered.connect(lambda _checked=False, f=folder: self.window.set_source(Path(f)))
        if not folders:
            menu.addAction(self.tr("(none yet)")).setEnabled(False)

    def fill_recent_workspaces_menu(self) -> None:
        """List the recent workspaces; choosing one opens it like File → Open workspace…."""
        menu = self.recent_workspaces_menu
        menu.clear()
        folders = self.window.settings.recent_workspaces()
        for folder in folders:
            action = menu.addAction(folder.replace("&", "&&"))  # no mnemonics in paths
            if not (Path(folder) / SESSION_FILE).is_file():
                action.setEnabled(False)
                action.setToolTip(self.tr("This folder no longer holds a review session"))
            action.triggered.connect(lambda _checked=False, f=folder: self.window.workspaces.open_workspace(Path(f)))
        if not folders:
            menu.addAction(self.tr("(none yet)")).setEnabled(False)
