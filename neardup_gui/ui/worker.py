"""Background work: the screen (a QObject worker on a QThread) and pair diffs (a thread pool).

``ScreenWorker`` calls ``tasks.screen_folder`` with a progress adapter whose ``report`` emits
``progress_changed`` (throttled by ``CallbackProgress``), whose ``plan`` emits the engine's estimates
of the work (``progress_planned``, for the status bar's time left: ``core.estimate``) and whose
``check`` raises ``Cancelled`` once ``cancel()`` set the event. The worker only emits; the GUI
thread owns every widget and model.
``ScreenRunner`` keeps the thread and the worker alive until the run ends and refuses a second run.
``DiffJob`` computes one pair's ``PairDiff`` in a pool thread; answers carry a request id so the view
can drop those for a pair that is no longer selected.

The GIL is the window's real competitor: while the worker holds it, no Python slot or paint runs.
Measured on 10,000 files, the longest stalls of the event loop (150-220 ms, growing with the corpus)
were Python's full cyclic garbage collections scanning the engine's millions of live objects. A run
therefore pauses the cyclic collector (reference counting still frees everything acyclic) and, at
the end, moves the surviving objects (the outcome) to the permanent generation (``gc.freeze``) so
later collections in the GUI thread do not scan them either (``paused_cycle_collector``). And
threads that let go of the GIL often for short system calls kept the window's thread from getting
it back for 100-175 ms at a time (the "convoy effect"): while a screen runs, ``ScreenRunner.pulse``
beats the window's heartbeat, and the engine's loops stand aside when the beats come late
(``core.progress.Heartbeat``).
Imports PySide6 and ``neardup_gui.tasks`` / ``neardup_gui.core`` only.
"""

from __future__ import annotations

import gc
import logging
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QThread, Signal, Slot

from neardup_gui import tasks
from neardup_gui.core.diffspans import PairDiff, pair_diff
from neardup_gui.core.memory import cycle_collector_paused
from neardup_gui.core.estimate import PlannedProgress
from neardup_gui.core.progress import Cancelled
from neardup_gui.core.records import NormalizeOptions, ScreenParams, TooLarge
from neardup_gui.ui.background import PROGRESS_INTERVAL, Pulse

log = logging.getLogger(__name__)


@contextmanager
def paused_cycle_collector() -> Iterator[None]:
    """``core.memory.cycle_collector_paused``, with the survivors frozen on exit.

    Cycles created inside are not collected later (frozen): a screen makes few (no object graph of
    the engine is cyclic), and a full collection of its objects would stall the window instead.
    """
    with cycle_collector_paused(hand_over=False):  # (frozen here instead)
        try:
            yield
        finally:
            gc.freeze()


@dataclass(frozen=True)
class ScreenOptions:
    """How the window screens, besides the folder, the parameters and the workspace.

    Attributes:
        with_normalized: Also write ``normalized/`` (one file per document) into the workspace.
        reread: Open and hash every file, also those unchanged since the last screen into it.
        shown: The result the window shows (``tasks.screen_folder``'s ``shown``).
        normalized_after: Publish the run without waiting for ``normalized/`` (``tasks.screen_folder``'s
            ``normalized_after``): the outcome's ``normalized_pending`` finishes it.
    """

    with_normalized: bool = True
    reread: bool = False
    shown: tasks.ScreenOutcome | None = None
    normalized_after: bool = False


class ScreenWorker(QObject):
    """Runs one screen when ``run`` is invoked (in the thread it was moved to)."""

    progress_changed = Signal(int, int, str)  # done, total, stage
    progress_planned = Signal(object)  # {stage: estimated seconds} (core.estimate)
    screening_finished = Signal(object)  # tasks.ScreenOutcome
    screening_failed = Signal(str, str)  # message, details (traceback)
    screening_refused = Signal(object)  # core.records.TooLarge: refused before the work, nothing written
    screening_cancelled = Signal()

    def __init__(
        self, source: Path, params: ScreenParams, out_dir: Path | None, options: ScreenOptions | None = None
    ) -> None:
        super().__init__()
        self.source = source
        self.params = params
        self.out_dir = out_dir
        self.options = options or ScreenOptions()
        self._cancel = threading.Event()

    def cancel(self) -> None:
        """Ask the run to stop at its next check (thread-safe; returns at once)."""
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def _report(self, stage: str, done: int, total: int) -> None:
        self.progress_changed.emit(done, total, stage)

    def _plan(self, seconds: dict[str, float]) -> None:
        self.progress_planned.emit(seconds)

    @Slot()
    def run(self) -> None:
        progress = PlannedProgress(self._report, self._plan, self._cancel, min_interval=PROGRESS_INTERVAL)
        options = self.options
        self.options = replace(options, shown=None)  # (the result shown held for the run only)
        try:
            with paused_cycle_collector():
                outcome = tasks.screen_folder(
                    self.source, self.params, out_dir=self.out_dir, progress=progress,
                    with_normalized=options.with_normalized, reread=options.reread, read_helper=True,
                    verify_helper=True, shown=options.shown, normalized_after=options.normalized_after,
                )  # fmt: skip
                # Helper processes for large folders, where they pay (core.helper, io.corpus): the
                # app's entry points are guarded and the bundle calls freeze_support. The crash once
                # blamed on the verification helper was the Qt binding (PySide6 6.12.0, excluded;
                # tests/ui/test_qt_binding.py).
        except Cancelled:
            log.info("screen of %s cancelled", self.source)
            self.screening_cancelled.emit()
        except TooLarge as exc:  # a refusal before the work: the window says what and why, no traceback
            log.info("screen of %s refused: %s", self.source, exc)
            # A copy without the traceback: its frames (this worker's among them) must not be freed
            # on the window's thread when the refusal is, after the worker has gone.
            self.screening_refused.emit(exc.detached())
        except Exception as exc:  # every failure must reach the user, never kill the thread silently
            log.exception("screen of %s failed", self.source)
            self.screening_failed.emit(str(exc) or type(exc).__name__, traceback.format_exc())
        else:
            self.screening_finished.emit(outcome)


class ScreenRunner(QObject):
    """Starts screens on a thread of their own, one at a time, and forwards their signals."""

    progress_changed = Signal(int, int, str)
    progress_planned = Signal(object)
    screening_finished = Signal(object)
    screening_failed = Signal(str, str)
    screening_refused = Signal(object)
    screening_cancelled = Signal()
    running_changed = Signal(bool)
    worker_created = Signal(object)  # the ScreenWorker, before its thread starts

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._worker: ScreenWorker | None = None
        self.pulse = Pulse(self)  # beats while a screen runs: the engine's loops give way to the window

    @property
    def running(self) -> bool:
        return self._worker is not None

    @property
    def worker(self) -> ScreenWorker | None:
        return self._worker

    def start(
        self, source: Path, params: ScreenParams, out_dir: Path | None, options: ScreenOptions | None = None
    ) -> ScreenWorker:
        """Start a screen of ``source`` into ``out_dir`` (see ``ScreenOptions``); raises
        ``RuntimeError`` while another one is running."""
        if self.running:
            raise RuntimeError("a screen is already running")
        thread = QThread(self)
        thread.setObjectName("screen")
        worker = ScreenWorker(source, params, out_dir, options)
        worker.moveToThread(thread)
        worker.progress_changed.connect(self.progress_changed)
        worker.progress_planned.connect(self.progress_planned)
        worker.screening_finished.connect(self._on_finished)
        worker.screening_failed.connect(self._on_failed)
        worker.screening_refused.connect(self._on_refused)
        worker.screening_cancelled.connect(self._on_cancelled)
        thread.started.connect(worker.run)
        thread.finished.connect(worker.deleteLater)
        self._thread, self._worker = thread, worker
        self.worker_created.emit(worker)
        self.pulse.start()
        thread.start()
        self.running_changed.emit(True)
        return worker

    def cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel()

    def shutdown(self) -> None:
        """Cancel a running screen and wait for its thread (window closing).

        The wait has no time limit: the engine checks for cancellation in all its loops, and a
        QThread destroyed while running aborts the whole process.
        """
        thread = self._thread
        self.cancel()
        self.pulse.stop()  # the window's thread waits here on purpose: nothing to give way to
        if thread is not None:
            thread.quit()
            thread.wait()

    def _end(self) -> None:
        thread = self._thread
        self._thread, self._worker = None, None
        self.pulse.stop()
        if thread is not None:
            thread.quit()
            thread.wait()
            thread.deleteLater()
        self.running_changed.emit(False)

    def _on_finished(self, outcome: object) -> None:
        self._end()
        self.screening_finished.emit(outcome)

    def _on_failed(self, message: str, details: str) -> None:
        self._end()
        self.screening_failed.emit(message, details)

    def _on_refused(self, refusal: object) -> None:
        self._end()
        self.screening_refused.emit(refusal)

    def _on_cancelled(self) -> None:
        self._end()
        self.screening_cancelled.emit()


class DiffChannel(QObject):
    """Carries a pool thread's answer to the GUI thread (queued, since it lives there)."""

    diff_ready = Signal(int, object)  # request id, PairDiff (or what the job's ``finish`` made of it)
    diff_failed = Signal(int, str)  # request id, details


class DiffJob(QRunnable):
    """Computes ``pair_diff`` for one pair in a pool thread; with ``finish``, what the view draws
    from it too (``finish(diff)``, e.g. the highlights: pure Python, ~0.15 s for the 78,000 spans
    of a 2,000,000-character reformatted copy), and answers that instead."""

    def __init__(
        self,
        request_id: int,
        left: str,
        right: str,
        options: NormalizeOptions,
        min_len: int,
        channel: DiffChannel,
        finish: Callable[[PairDiff], object] | None = None,
    ) -> None:
        super().__init__()
        self.request_id = request_id
        self._args = (left, right, options, min_len)
        self._channel = channel
        self._finish = finish

    def run(self) -> None:
        left, right, options, min_len = self._args
        try:
            result = pair_diff(left, right, options, min_len=min_len)
            answer = result if self._finish is None else self._finish(result)
        except Exception:
            log.exception("diff of request %s failed", self.request_id)
            self._emit("diff_failed", traceback.format_exc())
        else:
            self._emit("diff_ready", answer)

    def _emit(self, signal_name: str, value: object) -> None:
        try:
            getattr(self._channel, signal_name).emit(self.request_id, value)
        except RuntimeError:
            pass  # the view was closed while this pair was computed; nobody is waiting
