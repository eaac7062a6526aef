"""Opening a workspace and exporting its review, for the main window.

- Open workspace…: a folder holding ``session.sqlite``. A background job reads the latest run's
  manifest and candidates (``io.session.ReviewSession``, read-only) and re-reads the texts of the
  candidate pairs' documents from the source folder (``tasks.read_texts``; the others are read when
  first asked for, ``io.corpus.SourceTexts``); files that changed since the screen are listed and
  their pairs shown with a warning. The window then shows it like a finished screen, and the review
  controller restores the selected pair. At start-up the last workspace shown is reopened the same
  way.
- A finished screen, too, goes through a short background job before the window shows it
  (``prepare_screened``): the stored decisions and the pairs' documents are worked out off the GUI
  thread (``result_handoff.prepare_result``), then ``screened_ready`` carries the outcome to the
  window. The job is called "open", so no other screen or workspace starts meanwhile.
- Export review workbook… / Export CSV…: first a background check that the source files are still
  those of the screen (``io.corpus.check_integrity``); if some changed the user is asked whether to
  go on. Then ``tasks.export_review`` in the background (the session is read read-only, so the
  window keeps deciding), and a message with the counts and the digest.

Not a widget; imports PySide6, ``neardup_gui.tasks`` and ``neardup_gui.io``.
"""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox

from neardup_gui import tasks
from neardup_gui.core.memory import release_free_memory
from neardup_gui.core.progress import STAGE_WORKBOOK, STAGE_WORKBOOK_CHECK, Progress
from neardup_gui.core.records import ScreenParams
from neardup_gui.io.corpus import SourceTexts, check_integrity
from neardup_gui.io.session import ReviewSession
from neardup_gui.ui import i18n
from neardup_gui.ui.export_dialog import ExportDialog
from neardup_gui.ui.result_handoff import PreparedResult, prepare_result
from neardup_gui.ui.worker import paused_cycle_collector

if TYPE_CHECKING:
    from neardup_gui.ui.main_window import MainWindow

log = logging.getLogger(__name__)


def load_workspace(folder: Path, progress: Progress) -> tasks.ScreenOutcome:
    """The latest run of a workspace as a screen outcome, texts read again (runs in a job thread).

    Raises:
        ValueError: The folder holds no review session, or the session no run.
    """
    path = folder / tasks.SESSION_FILE
    if not path.is_file():
        raise ValueError(f"{folder} holds no review session ({tasks.SESSION_FILE}); choose a workspace a screen wrote")
    with ReviewSession.open(path, read_only=True) as session:
        run_id = session.latest_run_id()
        if run_id is None:
            raise ValueError(f"the review session in {folder} holds no screening run")
        run = session.run(run_id)
        documents = session.documents(run_id)
        candidates = session.candidates(run_id)
    progress.check()
    source = Path(run.source)
    # The texts the review shows first (those of the candidate pairs) are read now, so a file that
    # changed since the screen is known before its pair is shown; the others (wanted only by the
    # boilerplate search) when first asked for, each checked against its SHA-256 then.
    in_pairs = {doc_id for c in candidates for doc_id in (c.left, c.right)}
    usable = [d for d in documents if d.usable]
    read, failed = tasks.read_texts(source, [d for d in usable if d.doc_id in in_pairs])
    later = {d.doc_id: d for d in usable if d.doc_id not in in_pairs}
    release_free_memory()  # the session's rows read and dropped (glibc keeps freed memory otherwise)
    return tasks.ScreenOutcome(
        source=source,
        params=ScreenParams.from_dict(run.params),
        documents=tuple(documents),
        texts=SourceTexts(source.resolve() if source.is_dir() else source, read, later,
                          docs={d.doc_id: d for d in usable}),  # fmt: skip
        candidates=tuple(candidates),
        run=run,
        out_dir=folder,
        changed_files=tuple((p, "changed since the screen") for p in failed),
    )


def _load_prepared(folder: Path, progress: Progress) -> PreparedResult:
    """``load_workspace`` + ``prepare_result`` with the cyclic collector paused: loading 100,000
    rows otherwise sets off full collections that hold the GIL (and stall the window) for ~0.5 s."""
    with paused_cycle_collector():
        return prepare_result(load_workspace(folder, progress), progress)


class WorkspaceController(QObject):
    """Open workspace, restore the last one, export the workbook and the CSV files."""

    workspace_loaded = Signal(object)  # tasks.ScreenOutcome
    screened_ready = Signal(object)  # tasks.ScreenOutcome of a finished screen, prepared for showing
    export_finished = Signal(object)  # tasks.ExportSummary
    export_failed = Signal(str)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.export_dialog: ExportDialog | None = None
        self.integrity_box: QMessageBox | None = None

    # -- opening ------------------------------------------------------------------------------
    def ask_folder(self, title: str, start: str = "") -> str:
        """A folder chosen by the user ("" when cancelled); tests replace this."""
        return QFileDialog.getExistingDirectory(self.window, title, start)

    def choose_and_open(self) -> None:
        folder = self.ask_folder(self.tr("Open a workspace (a folder with session.sqlite)"), str(self.window.workspace or ""))
        if folder:
            self.open_workspace(Path(folder))

    def open_workspace(self, folder: Path) -> bool:
        """Load a workspace's latest run in the background; False when refused at once."""
        w = self.window
        if w.runner.running or w.jobs.busy("open", "evaluate"):
            w.statusBar().showMessage(self.tr("Wait for the running work to end first."), 5000)
            return False
        folder = Path(folder).expanduser().resolve()
        if not (folder / tasks.SESSION_FILE).is_file():
            w.show_error(self.tr("Not a workspace"), self.tr("{0} holds no review session (session.sqlite).").format(folder))
            return False
        w.statusBar().showMessage(self.tr("Opening the workspace {0}…").format(folder))
        saves = w.review.saves
        w.jobs.start("open", lambda progress: _load_prepared(folder, progress),
                     lambda prepared: self._loaded(prepared, saves), self._load_failed)  # fmt: skip
        return True

    def prepare_screened(self, outcome: tasks.ScreenOutcome) -> None:
        """Prepare a finished screen in the background, then emit ``screened_ready``."""

        def ready(prepared: PreparedResult) -> None:
            # The files table first, the rest on the next turn of the event loop: two short blocks.
            self.window.files_model.set_documents(prepared.outcome.documents)
            self.window.review.expect(prepared)
            QTimer.singleShot(0, lambda: self.screened_ready.emit(prepared.outcome))

        # Should preparing fail, the window shows the outcome and reads what it needs itself.
        self.window.jobs.start("open", lambda progress: prepare_result(outcome, progress), ready,
                               lambda _message, _details: self.screened_ready.emit(outcome))  # fmt: skip

    def restore_last(self) -> bool:
        """Reopen the workspace shown last, if it still holds a session."""
        last = self.window.settings.last_workspace()
        if not last or not (Path(last) / tasks.SESSION_FILE).is_file():
            return False
        return self.open_workspace(Path(last))

    def _loaded(self, prepared: PreparedResult, saves_at_start: int | None = None) -> None:
        w = self.window
        outcome = prepared.outcome
        w.files_model.set_documents(outcome.documents)
        w.review.expect(prepared, saves_at_start)
        QTimer.singleShot(0, lambda: self._show_loaded(prepared))

    def _show_loaded(self, prepared: PreparedResult) -> None:
        w = self.window
        outcome = prepared.outcome
        w.show_loaded_outcome(outcome)
        summary = self.tr("Opened the workspace {0}: {1} pairs among {2} files, screened {3}.").format(
            outcome.out_dir, len(outcome.candidates), len(outcome.documents), outcome.run.finished
        )
        w.statusBar().showMessage(w.run_notes.with_scope_summary(summary, outcome.run))
        if outcome.changed_files:
            w.show_error(
                self.tr("Files changed since the screen"),
                self.tr("{0} file(s) changed since the screen (or cannot be read). Their pairs are still listed, "
                        "marked in red, without their text; screen again to compare them.").format(
                    len(outcome.changed_files)
                ),
                "\n".join(path for path, _what in outcome.changed_files),
            )  # fmt: skip
        self.workspace_loaded.emit(outcome)

    def _load_failed(self, message: str, details: str) -> None:
        self.window.show_error(self.tr("The workspace could not be opened"), message, details)

    # -- exporting ----------------------------------------------------------------------------
    def _export_target(self) -> Path | None:
        w = self.window
        outcome = w.outcome
        if outcome is None or outcome.out_dir is None:
            w.show_error(self.tr("Nothing to export"), self.tr("Screen a folder with a workspace, or open a workspace, first."))
            return None
        return outcome.out_dir

    def export_workbook(self) -> ExportDialog | None:
        """Ask who signs and where to save (non-blocking), then export."""
        out_dir = self._export_target()
        if out_dir is None:
            return None
        stamp = datetime.now().strftime("%Y%m%d-%H%M")
        language = i18n.workbook_language()  # the interface's language
        dialog = ExportDialog(self.window.settings.reviewer(), out_dir / f"review_{stamp}.xlsx", language, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.start_export(xlsx=dialog.path(), signed_by=dialog.signer(),
                                                          language=dialog.language()))  # fmt: skip
        dialog.destroyed.connect(lambda *_: setattr(self, "export_dialog", None))
        self.export_dialog = dialog
        dialog.open()
        return dialog

    def export_csv(self) -> None:
        out_dir = self._export_target()
        if out_dir is None:
            return
        folder = self.ask_folder(self.tr("Choose a folder for the CSV files"), str(out_dir))
        if folder:
            self.start_export(csv_dir=Path(folder))

    def start_export(self, **target: Any) -> None:
        """Check the sources, ask if some changed, then export (``xlsx`` / ``csv_dir``, ``signed_by``, ``language``)."""
        w = self.window
        outcome = w.outcome
        if outcome is None or outcome.out_dir is None:
            return
        w.statusBar().showMessage(self.tr("Checking the source files before the export…"))
        source, documents = outcome.source, outcome.documents
        w.jobs.start(
            "export",
            lambda progress: check_integrity(source, documents, progress),
            lambda changes: self._checked(outcome.out_dir, changes, target),
            self._export_error,
        )

    def _checked(self, out_dir: Path, changes: list[tuple[str, str]], target: dict[str, Any]) -> None:
        if not changes:
            self._run_export(out_dir, target)
            return
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Source files changed"),
            self.tr("{0} source file(s) changed since the screen. The export describes the files as they were "
                    "screened; decisions on changed files are marked stale. Export anyway?").format(len(changes)),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self.window,
        )  # fmt: skip
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.button(QMessageBox.StandardButton.Yes).setText(self.tr("Export anyway"))
        box.setDetailedText("\n".join(f"{path}: {what}" for path, what in changes))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setWindowModality(Qt.WindowModality.WindowModal)

        def answered(button: Any) -> None:
            if box.standardButton(button) == QMessageBox.StandardButton.Yes:
                self._run_export(out_dir, target)
            else:
                self.window.statusBar().showMessage(self.tr("Export cancelled."), 5000)

        box.buttonClicked.connect(answered)
        box.destroyed.connect(lambda *_: setattr(self, "integrity_box", None))
        self.integrity_box = box
        box.open()

    def _run_export(self, out_dir: Path, target: dict[str, Any]) -> None:
        self.window.statusBar().showMessage(self.tr("Exporting…"))
        self.window.jobs.start(
            "export", lambda progress: tasks.export_review(out_dir, progress=progress, **target), self._exported,
            self._export_error, self._export_progress,
        )  # fmt: skip

    def _export_progress(self, stage: str, done: int, total: int) -> None:
        """The workbook's progress in the status bar (an archive's workbook takes a minute or more)."""
        if stage == STAGE_WORKBOOK:
            text = self.tr("Exporting: writing the review workbook, {0} of {1} rows…")
        elif stage == STAGE_WORKBOOK_CHECK:
            text = self.tr("Exporting: checking the written workbook, {0} of {1} rows…")
        else:
            return
        self.window.statusBar().showMessage(text.format(f"{done:,}", f"{total:,}"))

    def _exported(self, summary: tasks.ExportSummary) -> None:
        lines = []
        wb = summary.workbook
        if wb is not None:
            c = wb.counts
            lines.append(self.tr("Review workbook written: {0}").format(wb.path))
            lines.append(self.tr("Signed by {0} at {1}").format(wb.signed_by, wb.signed_at))
            lines.append(self.tr("Digest (SHA-256): {0}").format(wb.digest))
            lines.append(self.tr("{0} files, {1} candidate pairs, {2} reviewed; {3} decisions, {4} arbitrations; "
                                 "{5} awaiting arbitration, {6} stale").format(
                c.get("documents", 0), c.get("candidates", 0), c.get("pairs_reviewed", 0), c.get("decisions", 0),
                c.get("arbitrations", 0), c.get("pairs_pending_arbitration", 0), c.get("pairs_stale", 0)))  # fmt: skip
            from neardup_gui.io.workbook import SHEET_ROWS

            for name, more in wb.continued.items():
                lines.append(self.tr("The {0} table goes on over {1} more sheet(s), {2}: a sheet holds at most {3} "
                                     "rows.").format(name, len(more), ", ".join(more), f"{SHEET_ROWS:,}"))
        for name, rows in summary.csv_counts.items():
            lines.append(self.tr("{0}: {1} rows").format(name, rows))
        if summary.unreadable:
            lines.append(self.tr("{0} file(s) could not be read again; their excerpts are given as offsets.").format(
                len(summary.unreadable)))  # fmt: skip
        box = QMessageBox(QMessageBox.Icon.Information, self.tr("Export finished"), "\n".join(lines),
                          QMessageBox.StandardButton.Ok, self.window)  # fmt: skip
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if summary.unreadable:
            box.setDetailedText("\n".join(summary.unreadable))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.window.last_message = box
        self.window.statusBar().showMessage(self.tr("Export finished."), 5000)
        self.export_finished.emit(summary)

    def _export_error(self, message: str, details: str) -> None:
        self.window.show_error(self.tr("The export failed"), message, details)
        self.export_failed.emit(message)
