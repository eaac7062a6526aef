"""The review workbench: source and workspace, parameters, candidates, files, diff and decisions.

The window wires the parts together and owns the state of one review: the source folder, the
workspace, the last screen's outcome and the decision store. Screens run on ``ScreenRunner``'s
thread; while one runs the review session belongs to the screen (it writes the new run), so
deciding pauses and resumes on the same results when the screen ends, fails or is cancelled.
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
from neardup_gui.core.records import Candidate, Decision, ScreenParams
from neardup_gui.io.paths import OutputInsideSourceError, default_workspace, ensure_outside_source
from neardup_gui.ui.candidate_model import CandidateModel
from neardup_gui.ui.candidate_view import CandidateView
from neardup_gui.ui.decision_form import DecisionForm
from neardup_gui.ui.decision_store import DecisionStore, MemoryDecisionStore, SessionDecisionStore
from neardup_gui.ui.diff_view import DiffView, PairRequest
from neardup_gui.ui.files_view import FilesModel, FilesView
from neardup_gui.ui.params_panel import ParamsPanel
from neardup_gui.ui.progress_panel import ProgressPanel
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
        self.outcome: tasks.ScreenOutcome | None = None
        self.store: DecisionStore | None = None
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
        self._build_layout()
        self._build_actions()
        self._connect()
        self._restore_state()
        self.setAcceptDrops(True)
        self._update_title()

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
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 6, 8, 4)
        layout.addWidget(self.source_bar)
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
        self.cancel_action = self._action(self.tr("&Cancel screen"), self.runner.cancel)
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
        self.candidate_view.candidate_selected.connect(self.show_candidate)
        self.decision_form.decision_made.connect(self.save_decision)
        self.decision_form.next_requested.connect(self._select_next)
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
            action = self.recent_menu.addAction(folder)
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
        self._close_store()  # the screen writes the new run into the session
        self.decision_form.set_available(False, self.tr("Deciding resumes when the screen ends."))
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

    def _on_screen_finished(self, outcome: tasks.ScreenOutcome) -> None:
        self.outcome = outcome
        self._open_store()
        self.files_model.set_documents(outcome.documents)
        pairs = [c.key for c in outcome.candidates]
        statuses = self.store.statuses(pairs) if self.store is not None else {}
        self.candidate_model.set_candidates(outcome.candidates, outcome.documents_by_id, statuses)
        column, order = self.candidate_view.proxy.current_sort()
        if column >= 0:
            self.candidate_model.sort(column, order)
        usable = sum(1 for d in outcome.documents if d.usable)
        self.statusBar().showMessage(
            self.tr("{0} pairs among {1} files ({2} compared) in {3:.1f} s.").format(
                len(outcome.candidates), len(outcome.documents), usable, time.monotonic() - self._screen_started
            )
        )
        remembered = self.store.remembered_selection() if self.store is not None else None
        if not (remembered and self.candidate_view.select_pair(remembered)):
            self.candidate_view.select_first()
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
        self._open_store()
        self.statusBar().showMessage(self.tr("Screen cancelled; the previous results are still shown."), 8000)

    def _on_screen_failed(self, message: str, details: str) -> None:
        self._open_store()
        self.show_error(self.tr("The screen failed"), message, details)

    # -- review ---------------------------------------------------------------------------------
    def _open_store(self) -> None:
        """Open the decision store of the results shown (after a screen released the session)."""
        self._close_store()
        if self.outcome is None:
            self.decision_form.set_available(True)
            return
        if self.outcome.out_dir is None:
            self.store = MemoryDecisionStore()
            self.decision_form.set_available(True, self.tr("No workspace: decisions are kept until the window closes."))
            return
        try:
            self.store = SessionDecisionStore.open(self.outcome.out_dir / tasks.SESSION_FILE, self.outcome.run.run_id)
        except Exception as exc:  # in use elsewhere, unwritable, newer schema: say so, keep reviewing
            log.exception("could not open the review session")
            self.store = MemoryDecisionStore()
            self.show_error(
                self.tr("Decisions cannot be saved"),
                self.tr("The review session could not be opened; decisions are kept only until the window closes."),
                str(exc),
            )
            self.decision_form.set_available(True, self.tr("Decisions are not being saved to disk."))
            return
        self.decision_form.set_available(True)

    def _close_store(self) -> None:
        if self.store is not None:
            current = self.candidate_view.current_candidate()
            try:
                if current is not None:
                    self.store.remember_selection(current.key)
            except Exception:
                log.exception("could not remember the selected pair")
            self.store.close()
            self.store = None

    def show_candidate(self, candidate: Candidate | None) -> None:
        """Load a pair into the diff view and the decision form (saving unsaved form edits first)."""
        if self.decision_form.is_dirty():
            self.decision_form.save()
        if candidate is None or self.outcome is None:
            self.diff_view.clear()
            self.decision_form.clear()
            return
        texts = self.outcome.texts
        left_doc = self.candidate_model.document(candidate.left)
        right_doc = self.candidate_model.document(candidate.right)
        self.diff_view.show_pair(
            PairRequest(
                candidate=candidate,
                left_doc=left_doc,
                right_doc=right_doc,
                left_text=texts.get(candidate.left, ""),
                right_text=texts.get(candidate.right, ""),
                options=self.outcome.params.normalize,
                min_len=self.outcome.params.k,
            )
        )
        latest = self.store.latest(candidate.key) if self.store is not None else None
        self.decision_form.set_pair(candidate, left_doc, right_doc, latest)

    def save_decision(self, decision: Decision) -> None:
        """Store a decision now (one committed transaction) and update that row's status."""
        if self.store is None:
            self.decision_form.show_note(self.tr("Deciding is paused while a screen runs."))
            return
        try:
            stored = self.store.save(decision)
            status = self.store.status_of(decision_pair(decision))
        except Exception as exc:
            log.exception("could not save a decision")
            self.show_error(self.tr("The decision was not saved"), str(exc))
            return
        self.candidate_model.set_status(decision_pair(decision), status)
        self.decision_form.mark_saved(stored)
        self.settings.set_reviewer(stored.reviewer)

    def _select_next(self) -> None:
        if not self.candidate_view.select_next():
            self.statusBar().showMessage(self.tr("That was the last pair shown."), 5000)

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
        if self.decision_form.is_dirty():
            self.decision_form.save()
        self.runner.shutdown()
        self.diff_view.shutdown()
        self._close_store()
        self.settings.set_window_geometry(self.saveGeometry())
        self.settings.set_splitter_state("main", self.main_splitter.saveState())
        self.settings.set_splitter_state("center", self.center_splitter.saveState())
        self.settings.set_header_state("candidates", self.candidate_view.header_state())
        self.settings.sync()
        super().closeEvent(event)


def decision_pair(decision: Decision) -> tuple[str, str]:
    return (decision.left, decision.right)
