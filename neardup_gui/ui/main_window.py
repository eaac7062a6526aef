"""The review workbench: source and workspace, parameters, candidates, groups, boilerplate, files,
evaluation, diff, decisions and their history.

The window wires the parts together and owns the source folder, the workspace and the screens,
which run on ``ScreenRunner``'s thread. ``ReviewController`` owns the review of the results shown
(and pauses deciding while a screen holds the review session); ``WorkspaceController`` opens
workspaces and exports; ``EvaluationController`` and ``OverviewController`` feed the Evaluation,
Groups and Boilerplate tabs. Shorter background work runs on ``JobRunner``.
Imports PySide6, ``neardup_gui.tasks`` and ``neardup_gui.io`` (paths, session) only.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
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
from neardup_gui.core.records import ScreenParams, TooLarge
from neardup_gui.io.paths import OutputInsideSourceError, default_workspace, ensure_outside_source
from neardup_gui.ui.app_menus import install_app_menus
from neardup_gui.ui.background import JobRunner, SlicedRelease
from neardup_gui.ui.candidate_columns import JACCARD
from neardup_gui.ui.candidate_model import CandidateModel
from neardup_gui.ui.candidate_view import CandidateView
from neardup_gui.ui.decision_form import DecisionForm
from neardup_gui.ui.diff_view import DiffView
from neardup_gui.ui.evaluation_controller import EvaluationController
from neardup_gui.ui.file_messages import file_message_text
from neardup_gui.ui.files_view import FilesModel, FilesView
from neardup_gui.ui.history_panel import HistoryPanel
from neardup_gui.ui.labels import refusal_text
from neardup_gui.ui.overview_controller import OverviewController
from neardup_gui.ui.params_panel import ParamsPanel
from neardup_gui.ui.progress_panel import ProgressPanel
from neardup_gui.ui.review_controller import ReviewController
from neardup_gui.ui.run_notes import RunNotes, notes_above
from neardup_gui.ui.settings import AppSettings
from neardup_gui.ui.source_bar import SourceBar
from neardup_gui.ui.window_menus import WindowMenus
from neardup_gui.ui.worker import ScreenOptions, ScreenRunner
from neardup_gui.ui.workspace_controller import WorkspaceController

HEADER_KEY = "candidates_v2"  # the candidate table's header state (v2: method score columns)

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
        self._sizes_before_evaluation: list[int] | None = None
        self.runner = ScreenRunner(self)
        self.jobs = JobRunner(self)
        self.released = SlicedRelease(self)  # a replaced result's rows, freed a slice per pass

        self.candidate_model = CandidateModel(self)
        self.files_model = FilesModel(self)
        self.recent_menu = QMenu(self.tr("Open &recent"), self)
        self.source_bar = SourceBar(self.recent_menu)
        self.params_panel = ParamsPanel()
        self.candidate_view = CandidateView(self.candidate_model)
        self.files_view = FilesView(self.files_model)
        self.diff_view = DiffView()
        self.decision_form = DecisionForm()
        self.history_panel = HistoryPanel()
        self.progress = ProgressPanel()
        self.run_notes = RunNotes()
        self.review = ReviewController(
            self.candidate_model, self.candidate_view, self.diff_view, self.decision_form, self.history_panel, self
        )
        self.workspaces = WorkspaceController(self)
        self.evaluation = EvaluationController(self)
        self.overview = OverviewController(self)
        self._build_layout()
        self.menus = WindowMenus(self)
        self._connect()
        self._restore_state()
        self.setAcceptDrops(True)
        self._update_title()
        self.app_menus = install_app_menus(self, settings)  # Settings and Help menus, Preferences applied

    # -- construction ---------------------------------------------------------------------------
    def _build_layout(self) -> None:
        self.tabs = QTabWidget()
        self.tabs.addTab(notes_above(self.run_notes, self.candidate_view), self.tr("Candidate pairs"))
        self.tabs.addTab(self.overview.groups_view, self.tr("Groups"))
        self.tabs.addTab(self.overview.boilerplate_view, self.tr("Boilerplate"))
        self.tabs.addTab(self.files_view, self.tr("Files"))
        self.tabs.addTab(_scrolled(self.params_panel), self.tr("Parameters"))
        self.tabs.addTab(self.evaluation.panel, self.tr("Evaluation"))
        self.side_tabs = QTabWidget()
        self.side_tabs.addTab(_scrolled(self.decision_form), self.tr("Decision"))
        self.side_tabs.addTab(self.history_panel, self.tr("History"))
        self.side_tabs.setMinimumWidth(300)
        self.center_splitter = QSplitter(Qt.Orientation.Vertical)
        self.center_splitter.setChildrenCollapsible(False)
        self.center_splitter.addWidget(self.tabs)
        self.center_splitter.addWidget(self.diff_view)
        self.center_splitter.setStretchFactor(0, 2)
        self.center_splitter.setStretchFactor(1, 3)
        self.main_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.main_splitter.setChildrenCollapsible(False)
        self.main_splitter.addWidget(self.center_splitter)
        self.main_splitter.addWidget(self.side_tabs)
        self.main_splitter.setStretchFactor(0, 1)
        self.main_splitter.setSizes([1060, 330])
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
        # The last screen's normalized/ while it is written after the results are shown
        self.normalized_status = QLabel()
        self.normalized_status.hide()
        self.statusBar().addPermanentWidget(self.normalized_status)
        self._pending_normalized: tasks.PendingNormalized | None = None

    def _connect(self) -> None:
        self.source_bar.choose_source_requested.connect(self.choose_source)
        self.source_bar.choose_workspace_requested.connect(self.choose_workspace)
        self.source_bar.screen_requested.connect(self.start_screen)
        self.progress.cancel_requested.connect(self.runner.cancel)
        self.runner.progress_changed.connect(self.progress.update_progress)
        self.runner.progress_planned.connect(self.progress.plan)
        self.runner.screening_finished.connect(self.workspaces.prepare_screened)  # reads the session off-thread
        self.workspaces.screened_ready.connect(self._on_screen_finished)
        self.runner.screening_failed.connect(self._on_screen_failed)
        self.runner.screening_refused.connect(self._on_screen_refused)
        self.runner.screening_cancelled.connect(self._on_screen_cancelled)
        self.runner.running_changed.connect(self._on_running_changed)
        self.review.error.connect(self.show_error)
        self.review.message.connect(lambda text: self.statusBar().showMessage(text, 5000))
        self.review.reviewer_used.connect(self.settings.set_reviewer)
        self.review.reviewer_used.connect(self._set_arbitrator_default)
        self.decision_form.reviewer_changed.connect(self.settings.set_reviewer)
        self.decision_form.reviewer_changed.connect(self._set_arbitrator_default)
        self.diff_view.sync_scroll_changed.connect(self.settings.set_sync_scroll)
        self.params_panel.params_changed.connect(self._update_banding)
        self.tabs.currentChanged.connect(self._on_tab_changed)

    def _restore_state(self) -> None:
        self.params_panel.set_defaults(self.settings.default_params())
        self.params_panel.set_params(self.settings.last_params() or ScreenParams())
        self._update_banding()
        self.decision_form.set_reviewer(self.settings.reviewer())
        self._set_arbitrator_default(self.settings.reviewer())
        self.diff_view.set_sync_scroll(self.settings.sync_scroll())
        geometry = self.settings.window_geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)
        elif (screen := QGuiApplication.primaryScreen()) is not None:  # first start: most of the screen
            area = screen.availableGeometry()
            self.resize(min(1400, int(area.width() * 0.9)), min(900, int(area.height() * 0.9)))
        for name, splitter in (("main", self.main_splitter), ("center", self.center_splitter)):
            state = self.settings.splitter_state(name)
            if state is not None:
                splitter.restoreState(state)
        self.candidate_view.restore_header_state(self.settings.header_state(HEADER_KEY))

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
        default = default_workspace(self.source, self.settings.workspaces_root() or None)
        if not self._accept_workspace(Path(remembered) if remembered else default, quiet=True):
            self._accept_workspace(default, quiet=False)
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

    def _on_tab_changed(self, _index: int = -1) -> None:
        """The Evaluation tab's charts need height: it gets most of the column while it is shown."""
        on_evaluation = self.tabs.currentWidget() is self.evaluation.panel
        if on_evaluation and self._sizes_before_evaluation is None:
            self._sizes_before_evaluation = sizes = self.center_splitter.sizes()
            top = round(sum(sizes) * 0.7)
            self.center_splitter.setSizes([top, sum(sizes) - top])
        elif not on_evaluation and self._sizes_before_evaluation is not None:
            self.center_splitter.setSizes(self._sizes_before_evaluation)
            self._sizes_before_evaluation = None

    def _update_banding(self) -> None:
        self.evaluation.set_banding(*self.params_panel.banding())

    def _set_arbitrator_default(self, name: str) -> None:
        self.history_panel.arbitrator_default = name

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
        if self.jobs.busy("evaluate", "open"):
            self.statusBar().showMessage(self.tr("Wait for the evaluation or the opening workspace first."), 5000)
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
        self._stop_normalized()  # the new screen writes them (and may want the same workspace)
        self.jobs.cancel("boilerplate")  # the screen needs both cores; a new search follows it
        self.review.pause(self.tr("Deciding resumes when the screen ends."))
        self._screen_started = time.monotonic()
        self.progress.start()
        options = ScreenOptions(
            with_normalized=self.settings.write_normalized(), reread=self.settings.reread_all(),
            shown=self.outcome,  # its pairs and rows are taken over as they are held (tasks.screen_folder)
            normalized_after=True,  # the results are shown while the disk creates the files
        )
        self.runner.start(self.source, params, self.workspace, options)
        return True

    def _on_running_changed(self, running: bool) -> None:
        self.source_bar.set_running(running)
        self.params_panel.setEnabled(not running)
        self.menus.set_running(running)
        if not running:
            self.progress.stop()

    @property
    def outcome(self) -> tasks.ScreenOutcome | None:
        """The results shown (the last screen that finished)."""
        return self.review.outcome

    def _show_outcome(self, outcome: tasks.ScreenOutcome) -> None:
        # Showing a large result (its rows, its first pair) and repainting the window would run in
        # one pass of the event loop, nothing else in between (100,000 files: ~48 + ~34 ms). The
        # repaint waits for the next pass instead, so clicks, keys and timers are served between.
        if self.updatesEnabled():
            self.setUpdatesEnabled(False)
            QTimer.singleShot(1, self, self._repaint_after_show)
        self._show_outcome_now(outcome)

    def _repaint_after_show(self) -> None:
        self.setUpdatesEnabled(True)  # repaints what changed

    def _show_outcome_now(self, outcome: tasks.ScreenOutcome) -> None:
        old = self.outcome
        if old is not None and old is not outcome:
            # The models below drop the last references to the old rows: kept here, they are freed
            # in later passes of the event loop, not all in this one (60-100 ms at 100,000 files).
            self.released.hold(old.candidates, old.documents)
        del old
        self.files_model.set_documents(outcome.documents)
        self.review.show_outcome(outcome)
        self.overview.show_outcome(outcome)
        self.evaluation.panel.clear()
        # The screen's score distribution, charted until labels are evaluated (a key the table's
        # default sort has made already).
        self.evaluation.panel.set_screen_scores(self.review.model.columns.key(JACCARD), outcome.params.k)
        self.run_notes.show_run(outcome.run, outcome.params)
        if outcome.out_dir is not None:
            self.settings.set_last_workspace(outcome.out_dir)

    def show_loaded_outcome(self, outcome: tasks.ScreenOutcome) -> None:
        """Show a workspace's stored run as if it had just been screened (texts read again)."""
        if self.runner.running:
            return
        self.source, self.workspace = outcome.source, outcome.out_dir
        self.source_bar.set_source(str(outcome.source))
        self.source_bar.set_workspace(str(outcome.out_dir))
        if outcome.source.is_dir() and outcome.out_dir is not None:
            self.settings.add_recent_folder(outcome.source)
            self.settings.set_workspace_for(outcome.source, outcome.out_dir)
        self.params_panel.set_params(outcome.params)
        self._update_banding()
        self._update_title()
        self._show_outcome(outcome)
        self.outcome_shown.emit(outcome)

    def _on_screen_finished(self, outcome: tasks.ScreenOutcome) -> None:
        self._show_outcome(outcome)
        usable = self.files_model.usable_count()
        summary = self.tr("{0} pairs among {1} files ({2} compared) in {3:.1f} s.").format(
            len(outcome.candidates), len(outcome.documents), usable, time.monotonic() - self._screen_started
        )
        self.statusBar().showMessage(self.run_notes.with_scope_summary(summary, outcome.run))
        if outcome.changed_files:
            changed = "\n".join(f"{path}: {file_message_text(what)}" for path, what in outcome.changed_files)
            self.show_error(
                self.tr("Files changed during the screen"),
                self.tr("{0} file(s) changed while they were read; screen again for current results.").format(
                    len(outcome.changed_files)
                ),
                changed,
            )
        self.outcome_shown.emit(outcome)
        if outcome.normalized_pending is not None:
            self._finish_normalized(outcome.normalized_pending)

    # -- normalized/ written after the screen ----------------------------------------------------
    def _finish_normalized(self, pending: tasks.PendingNormalized) -> None:
        """Write the screen's normalized/ in the background while its results are reviewed (one
        file per document: on a slow disk that takes longer than the screen)."""
        self._pending_normalized = pending
        self.normalized_status.setText(self.tr("Writing the normalized texts…"))
        self.normalized_status.show()

        def progress(stage: str, done: int, total: int) -> None:
            if self._pending_normalized is pending:
                self.normalized_status.setText(self.tr("Writing the normalized texts: {0:,} of {1:,}").format(done, total))

        def done(in_place: object) -> None:
            self._normalized_ended(pending)
            if in_place:
                self.statusBar().showMessage(self.tr("Normalized texts written to {0}").format(
                    pending.out_dir / "normalized"), 5000)  # fmt: skip

        def failed(message: str, details: str) -> None:
            self._normalized_ended(pending)
            self.statusBar().showMessage(self.tr("The normalized texts could not be written: {0}").format(message), 10000)

        self.jobs.start("normalized", pending.finish, done, failed, progress)

    def _normalized_ended(self, pending: tasks.PendingNormalized) -> None:
        if self._pending_normalized is pending:
            self._pending_normalized = None
            self.normalized_status.hide()

    def _stop_normalized(self) -> None:
        """Stop writing the last screen's normalized/ (its folder keeps a note saying so; the next
        screen into that workspace writes them) and wait for it to let go of the workspace."""
        pending = self._pending_normalized
        if pending is None:
            return
        self.jobs.cancel("normalized")
        if not pending.ended.wait(10):  # it checks between batches of files: well under a second
            log.warning("writing the normalized texts in %s did not stop in time", pending.out_dir)
        self._normalized_ended(pending)

    def _on_screen_cancelled(self) -> None:
        self.review.resume()
        self.overview.resume()
        if self.outcome is not None:
            self.statusBar().showMessage(self.tr("Screen cancelled; the previous results are still shown."), 8000)
        else:
            self.statusBar().showMessage(self.tr("Screen cancelled."), 8000)

    def _on_screen_failed(self, message: str, details: str) -> None:
        self.review.resume()
        self.overview.resume()
        self.show_error(self.tr("The screen failed"), message, details)

    def _on_screen_refused(self, refusal: TooLarge) -> None:
        """A method too large for this folder on this machine: said in the window's language, the
        result shown before it left as it was."""
        self.review.resume()
        self.overview.resume()
        self.show_error(self.tr("Too large to screen this way"), refusal_text(refusal))

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
        if self._pending_normalized is not None:
            log.info("window closed while writing the normalized texts in %s; the next screen writes them",
                     self._pending_normalized.out_dir)  # fmt: skip
        self.runner.shutdown()
        self.jobs.shutdown()
        self.diff_view.shutdown()
        if self._sizes_before_evaluation is not None:
            self.center_splitter.setSizes(self._sizes_before_evaluation)
        self.review.close()
        self.settings.set_window_geometry(self.saveGeometry())
        self.settings.set_splitter_state("main", self.main_splitter.saveState())
        self.settings.set_splitter_state("center", self.center_splitter.saveState())
        self.settings.set_header_state(HEADER_KEY, self.candidate_view.header_state())
        self.settings.sync()
        super().closeEvent(event)

