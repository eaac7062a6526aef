"""The review workbench: source and workspace, parameters, candidates, files, diff and decisions.

The window wires the parts together and owns the source folder, the workspace and the screens,
which run on ``ScreenRunner``'s thread; ``ReviewController`` owns the review of the results shown
(and pauses deciding while a screen holds the review session).
Imports PySide6, ``neardup_gui.tasks`` and ``neardup_gui.io`` (paths, session) only.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from neardup_gui import tasks
from neardup_gui.core.records import ScreenParams
from neardup_gui.io.paths import OutputInsideSourceError, default_workspace, ensure_outside_source
from neardup_gui.ui.app_menus import install_app_menus
from neardup_gui.ui.candidate_model import CandidateModel
from neardup_gui.ui.candidate_view import CandidateView
from neardup_gui.ui.decision_form import DecisionForm
from neardup_gui.ui.diff_view import DiffView
from neardup_gui.ui.files_view import FilesModel, FilesView
from neardup_gui.ui.params_panel import ParamsPanel
from neardup_gui.ui.progress_panel import ProgressPanel
from neardup_gui.ui.review_controller import ReviewController
from neardup_gui.ui.settings import AppSettings
from neardup_gui.ui.source_bar import SourceBar
from neardup_gui.ui.worker import ScreenRunner

log = logging.getLogger(__name__)


def _scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


class MainWindow(QMainWindow):
    """One window, one source folder, one review."""

    outcome_shown = Signal(object)  # tasks.ScreenOutcome now in the tables

    def __init__(self, settings: AppSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.source: Path | None = None
        self.workspace: Path | None = None
        self.last_message: QMessageBox | None = None
        self._screen_started = 0.0
        self.runner = ScreenRunner(self)

        self.candidate_model = CandidateModel(self)
        self.files_model = FilesModel(self)
        self.recent_menu = QMenu(self.tr("Open &recent"), self)
        self.source_bar = SourceBar(self.recent_menu)
        self.params_panel = ParamsPanel()
        self.candidate_view = CandidateView(self.candidate_model)
        self.files_view = FilesView(self.files_model)
        self.diff_view = DiffView()
        self.decision_form = DecisionForm()
        self.progress = ProgressPanel()
        self.review = ReviewController(self.candidate_model, self.candidate_view, self.diff_view, self.decision_form, self)
        self._build_layout()
        self._build_actions()
        self._connect()
        self._restore_state()
        self.setAcceptDrops(True)
        self._update_title()
        self.app_menus = install_app_menus(self, settings)  # Settings and Help menus, Preferences applied

    # -- construction ---------------------------------------------------------------------------
    def _build_layout(self) -> None:
        self.tabs = QTabWidget()
        self.tabs.addTab(self.candidate_view, self.tr("Candidate pairs"))
        self.tabs.addTab(self.files_view, self.tr("Files"))
        self.tabs.addTab(_scrolled(self.params_panel), self.tr("Parameters"))
        self.center_splitter = QSplitter(Qt.Orientation.Vertical)
        self.center_splitter.setChildrenCollapsible(False)
        self.center_splitter.addWidget(self.tabs)
        self.center_splitter.addWidget(self.diff_view)
        self.center_splitter.setStretchFactor(0, 2)
        self.center_splitter.setStretchFactor(1, 3)
        self.main_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.main_splitter.setChildrenCollapsible(False)
        form_area = _scrolled(self.decision_form)
        form_area.setMinimumWidth(290)
        self.main_splitter.addWidget(self.center_splitter)
        self.main_splitter.addWidget(form_area)
        self.main_splitter.setStretchFactor(0, 1)
        self.main_splitter.setSizes([1090, 300])
        self.center_splitter.setSizes([330, 470])
        toolbar = self.addToolBar(self.tr("Source"))
        toolbar.setObjectName("source_toolbar")
        toolbar.setMovable(False)
        toolbar.addWidget(self.source_bar)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 2, 8, 4)
        layout.addWidget(self.main_splitter, 1)
        self.setCentralWidget(central)
        self.statusBar().addPermanentWidget(self.progress)

    def _action(self, text: str, slot: object, shortcut: QKeySequence | str | None = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        self.addAction(action)  # shortcuts work wherever the focus is in the window
        return action

    def _build_actions(self) -> None:
        self.open_action = self._action(self.tr("&Open folder…"), self.choose_source, QKeySequence.StandardKey.Open)
        self.workspace_action = self._action(self.tr("Choose &workspace…"), self.choose_workspace)
        self.screen_action = self._action(self.tr("&Screen"), self.start_screen, "F5")
        self.cancel_action = self._action(self.tr("&Cancel screen"), self.progress.request_cancel)
        self.cancel_action.setEnabled(False)
        quit_action = self._action(self.tr("&Quit"), self.close, QKeySequence.StandardKey.Quit)
        next_key, previous_key = DiffView.navigation_keys()
        self.next_action = self._action(self.tr("&Next overlap"), self.diff_view.next_overlap, next_key)
        self.previous_action = self._action(self.tr("&Previous overlap"), self.diff_view.previous_overlap, previous_key)
        file_menu = self.menuBar().addMenu(self.tr("&File"))
        for action in (self.open_action, self.workspace_action):
            file_menu.addAction(action)
        file_menu.addMenu(self.recent_menu)
        file_menu.addSeparator()
        file_menu.addAction(self.screen_action)
        file_menu.addAction(self.cancel_action)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        view_menu = self.menuBar().addMenu(self.tr("&View"))
        view_menu.addAction(self.next_action)
        view_menu.addAction(self.previous_action)
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)

    def _connect(self) -> None:
        self.source_bar.choose_source_requested.connect(self.choose_source)
        self.source_bar.choose_workspace_requested.connect(self.choose_workspace)
        self.source_bar.screen_requested.connect(self.start_screen)
        self.progress.cancel_requested.connect(self.runner.cancel)
        self.runner.progress_changed.connect(self.progress.update_progress)
        self.runner.screening_finished.connect(self._on_screen_finished)
        self.runner.screening_failed.connect(self._on_screen_failed)
        self.runner.screening_cancelled.connect(self._on_screen_cancelled)
        self.runner.running_changed.connect(self._on_running_changed)
        self.review.error.connect(self.show_error)
        self.review.message.connect(lambda text: self.statusBar().showMessage(text, 5000))
        self.review.reviewer_used.connect(self.settings.set_reviewer)
        self.decision_form.reviewer_changed.connect(self.settings.set_reviewer)
        self.diff_view.sync_scroll_changed.connect(self.settings.set_sync_scroll)

    def _restore_state(self) -> None:
        self.params_panel.set_params(self.settings.last_params() or ScreenParams())
        self.decision_form.set_reviewer(self.settings.reviewer())
        self.diff_view.set_sync_scroll(self.settings.sync_scroll())
        geometry = self.settings.window_geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)
        for name, splitter in (("main", self.main_splitter), ("center", self.center_splitter)):
            state = self.settings.splitter_state(name)
            if state is not None:
                splitter.restoreState(state)
        self.candidate_view.restore_header_state(self.settings.header_state("candidates"))

    # -- source and workspace -------------------------------------------------------------------
    def choose_source(self) -> None:
        start = str(self.source) if self.source else (self.settings.recent_folders() or [""])[0]
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose the source folder"), start)
        if folder:
            self.set_source(Path(folder))

    def set_source(self, folder: Path, *, screen: bool = True) -> bool:
        """Make ``folder`` the source (read-only) and, by default, screen it."""
        if self.runner.running:
            self.statusBar().showMessage(self.tr("Wait for the running screen to end, or cancel it."), 5000)
            return False
        folder = Path(folder).expanduser()
        if not folder.is_dir():
            self.show_error(self.tr("Not a folder"), self.tr("{0} is not a folder.").format(folder))
            return False
        self.source = folder.resolve()
        self.source_bar.set_source(str(self.source))
        self.settings.add_recent_folder(self.source)
        remembered = self.settings.workspace_for(self.source)
        workspace = Path(remembered) if remembered else default_workspace(self.source)
        if not self._accept_workspace(workspace, quiet=True):
            self._accept_workspace(default_workspace(self.source), quiet=False)
        self._update_title()
        if screen:
            self.start_screen()
        return True

    def choose_workspace(self) -> None:
        start = str(self.workspace or "")
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose the workspace folder"), start)
        if folder:
            self.set_workspace(Path(folder))

    def set_workspace(self, folder: Path) -> bool:
        """Use ``folder`` for outputs; refused (with a message) inside the source folder."""
        if self._accept_workspace(Path(folder), quiet=False):
            if self.source is not None:
                self.settings.set_workspace_for(self.source, self.workspace or folder)
            return True
        return False

    def _accept_workspace(self, folder: Path, *, quiet: bool) -> bool:
        if self.source is not None:
            try:
                folder = ensure_outside_source(folder, self.source)
            except OutputInsideSourceError as exc:
                if not quiet:
                    self.show_error(self.tr("Workspace refused"), str(exc))
                return False
        self.workspace = folder
        self.source_bar.set_workspace(str(folder))
        return True

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        folders = self.settings.recent_folders()
        for folder in folders:
            action = self.recent_menu.addAction(folder.replace("&", "&&"))  # no mnemonics in paths
            action.triggered.connect(lambda _checked=False, f=folder: self.set_source(Path(f)))
        if not folders:
            self.recent_menu.addAction(self.tr("(none yet)")).setEnabled(False)

    def _update_title(self) -> None:
        where = str(self.source) if self.source else self.tr("no folder")
        self.setWindowTitle(self.tr("neardup — {0}").format(where))

    # -- drag and drop ------------------------------------------------------------------------
    @staticmethod
    def _dropped_folder(event: QDragEnterEvent | QDropEvent) -> Path | None:
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        folders = [Path(u.toLocalFile()) for u in urls if u.isLocalFile() and Path(u.toLocalFile()).is_dir()]
        return folders[0] if len(folders) == 1 else None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_folder(event) is not None and not self.runner.running:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        folder = self._dropped_folder(event)
        if folder is not None:
            event.acceptProposedAction()
            self.set_source(folder)

    # -- screening ------------------------------------------------------------------------------
    def start_screen(self) -> bool:
        """Screen the source with the panel's parameters in the background."""
        if self.runner.running:
            return False
        if self.source is None:
            self.show_error(self.tr("No source folder"), self.tr("Choose a source folder first."))
            return False
        try:
            params = self.params_panel.params()
        except ValueError as exc:
            self.show_error(self.tr("Parameters not valid"), str(exc))
            return False
        self.settings.set_last_params(params)
        self.review.pause(self.tr("Deciding resumes when the screen ends."))
        self._screen_started = time.monotonic()
        self.progress.start()
        self.runner.start(self.source, params, self.workspace)
        return True

    def _on_running_changed(self, running: bool) -> None:
        self.source_bar.set_running(running)
        self.params_panel.setEnabled(not running)
        for action in (self.screen_action, self.open_action, self.workspace_action):
            action.setEnabled(not running)
        self.cancel_action.setEnabled(running)
        if not running:
            self.progress.stop()

    @property
    def outcome(self) -> tasks.ScreenOutcome | None:
        """The results shown (the last screen that finished)."""
        return self.review.outcome

    def _on_screen_finished(self, outcome: tasks.ScreenOutcome) -> None:
        self.files_model.set_documents(outcome.documents)
        self.review.show_outcome(outcome)
        usable = sum(1 for d in outcome.documents if d.usable)
        self.statusBar().showMessage(
            self.tr("{0} pairs among {1} files ({2} compared) in {3:.1f} s.").format(
                len(outcome.candidates), len(outcome.documents), usable, time.monotonic() - self._screen_started
            )
        )
        if outcome.changed_files:
            changed = "\n".join(f"{path}: {what}" for path, what in outcome.changed_files)
            self.show_error(
                self.tr("Files changed during the screen"),
                self.tr("{0} file(s) changed while they were read; screen again for current results.").format(
                    len(outcome.changed_files)
                ),
                changed,
            )
        self.outcome_shown.emit(outcome)

    def _on_screen_cancelled(self) -> None:
        self.review.resume()
        if self.outcome is not None:
            self.statusBar().showMessage(self.tr("Screen cancelled; the previous results are still shown."), 8000)
        else:
            self.statusBar().showMessage(self.tr("Screen cancelled."), 8000)

    def _on_screen_failed(self, message: str, details: str) -> None:
        self.review.resume()
        self.show_error(self.tr("The screen failed"), message, details)

    # -- messages and closing -------------------------------------------------------------------
    def show_error(self, title: str, message: str, details: str = "") -> QMessageBox:
        """Tell the user what went wrong without blocking the window (details on request)."""
        box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        if details:
            box.setDetailedText(details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.open()
        self.last_message = box
        return box

    def closeEvent(self, event: QCloseEvent) -> None:
        self.runner.shutdown()
        self.diff_view.shutdown()
        self.review.close()
        self.settings.set_window_geometry(self.saveGeometry())
        self.settings.set_splitter_state("main", self.main_splitter.saveState())
        self.settings.set_splitter_state("center", self.center_splitter.saveState())
        self.settings.set_header_state("candidates", self.candidate_view.header_state())
        self.settings.sync()
        super().closeEvent(event)

