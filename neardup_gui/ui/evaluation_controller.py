"""The Evaluation tab's work: choose labels, evaluate in the background, show the report.

"Load labels…" picks a CSV or XLSX file; "Use my decisions as labels" takes the review decisions of
the workspace. Either runs ``tasks.evaluate_outdir`` on the screen's output folder in a background
job, with the window's open review session (so the threshold table lands in the session without a
second writer), then fills the panel with the report, the labels' source and the warnings. The
panel's S-curve follows the parameters panel's bands × rows.
Not a widget; imports PySide6 and ``neardup_gui.tasks``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog

from neardup_gui import tasks
from neardup_gui.core.evaluate import AUDIT_LIMIT
from neardup_gui.ui.evaluation_panel import EvaluationPanel
from neardup_gui.ui.labels import literal_tooltip, stage_label

if TYPE_CHECKING:
    from neardup_gui.ui.main_window import MainWindow


class EvaluationController(QObject):
    """Runs evaluations for the window's Evaluation panel."""

    evaluation_finished = Signal(object)  # tasks.EvaluationRun
    evaluation_failed = Signal(str)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.panel = EvaluationPanel(self.load_labels, on_use_decisions=self.use_decisions)
        self.panel.cancel_requested.connect(self.cancel)
        window.jobs.job_cancelled.connect(self._cancelled)
        self.labels_file: Path | None = None
        self._what = ""  # what the running evaluation is against
        self._size: tuple[int, int] | None = None  # the shingle size being evaluated: (its number, of how many)

    def ask_labels_file(self) -> str:
        """A labels file chosen by the user ("" when cancelled); tests replace this."""
        start = str(self.labels_file.parent) if self.labels_file else str(self.window.workspace or "")
        chosen, _filter = QFileDialog.getOpenFileName(
            self.window, self.tr("Choose a labels file"), start,
            self.tr("Labelled pairs (*.csv *.xlsx);;All files (*)"),
        )  # fmt: skip
        return chosen

    def load_labels(self) -> None:
        chosen = self.ask_labels_file()
        if chosen:
            self.evaluate(labels_file=Path(chosen))

    def use_decisions(self) -> None:
        self.evaluate(from_decisions=True)

    def set_banding(self, bands: int, rows: int) -> None:
        self.panel.set_banding(bands, rows)

    def evaluate(self, *, labels_file: Path | None = None, from_decisions: bool = False) -> bool:
        """Evaluate the shown screen against labels in the background; False when refused."""
        w = self.window
        outcome = w.outcome
        if outcome is None or outcome.out_dir is None:
            w.show_error(self.tr("Nothing to evaluate"),
                         self.tr("Screen a folder with a workspace, or open a workspace, first."))  # fmt: skip
            return False
        if w.runner.running or w.jobs.busy("evaluate", "open"):
            w.statusBar().showMessage(self.tr("Wait for the running work to end first."), 5000)
            return False
        session: Any = w.review.session()
        out_dir = outcome.out_dir
        self.labels_file = labels_file
        what = labels_file.name if labels_file is not None else self.tr("your review decisions")
        self._what, self._size = what, None
        self.panel.set_busy(True, self.tr("Evaluating the screen against {0}…").format(what))

        # The miss audit scores every pair of documents, or past AUDIT_LIMIT of them every pair of a
        # random sample of that many (the report's notes then say so).
        audit = self.panel.audit_box.isChecked()
        sample = AUDIT_LIMIT if audit else None

        def work(progress: Any) -> tasks.EvaluationRun:
            return tasks.evaluate_outdir(out_dir, labels_file=labels_file, from_decisions=from_decisions,
                                         session=session, progress=progress, read_helper=True, audit=audit,
                                         audit_sample=sample)  # fmt: skip

        # Its survivors frozen: the report, the labels and 100,000 documents at most, and ~10 garbage
        # cycles (measured); else the first collection after walks them all (78 ms, a stall).
        w.jobs.start("evaluate", work, self._done, self._failed, self._progress, freeze=True)
        return True

    def cancel(self) -> None:
        """Stop the running evaluation (it writes nothing then)."""
        self.window.jobs.cancel("evaluate")

    def _cancelled(self, name: str) -> None:
        if name == "evaluate":
            self.panel.set_busy(False, self.tr("The evaluation was cancelled; nothing was written."))

    def _progress(self, stage: str, done: int, total: int) -> None:
        """Say what the evaluation is doing: a large folder takes half a minute and more."""
        if stage == "evaluate":  # the next shingle size begins
            self._size = (done + 1, total) if done < total else None
            return
        if stage == "audit":
            text = self.tr("Scoring every pair for what the candidate stage missed")
        else:
            text = stage_label(stage)
        if total > 1:
            text = f"{text} {done:,} / {total:,}"
        if self._size is not None:
            text = self.tr("shingle size {0} of {1}: {2}").format(*self._size, text)
        self.panel.set_progress(self.tr("Evaluating the screen against {0}… {1}").format(self._what, text))

    def _done(self, run: tasks.EvaluationRun) -> None:
        self.panel.set_busy(False)
        self.panel.set_report(run.report, run.labels.source, run.warnings)
        where = str(self.labels_file) if self.labels_file is not None else run.labels.source
        self.panel.source_label.setToolTip(literal_tooltip(self.tr("Labels: {0}\nResults written to: {1}").format(
            where, ", ".join(p.name for p in run.written))))  # fmt: skip
        self.window.statusBar().showMessage(self.tr("Evaluation finished: {0}").format(run.labels.source), 5000)
        self.evaluation_finished.emit(run)

    def _failed(self, message: str, details: str) -> None:
        self.panel.set_busy(False, self.tr("The evaluation failed: {0}").format(message))
        self.window.show_error(self.tr("The evaluation failed"), message, details)
        self.evaluation_failed.emit(message)
