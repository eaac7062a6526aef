"""Short background jobs of the window (export, evaluation, opening a workspace, boilerplate) and
the engine warm-up.

``JobRunner.start(name, fn, ...)`` runs ``fn(progress)`` in a pool thread and answers on the GUI
thread through a signal-carrying ``QObject`` (git-cola's Task/Channel): ``succeeded`` with the
result or ``failed`` with a message and the traceback. Only the GUI thread touches widgets; ``fn``
must not. Each job gets a ``CallbackProgress`` whose cancel event ``cancel(name)`` sets, so a job
that checks it stops early; a cancelled job answers ``cancelled``. The runner keeps every job alive
(its channel and cancel event) until it answered.

``warm_up_engine`` loads the compiled kernels (numba) in a daemon thread at start-up, so the first
large screen and the first pair drawn do not pay for it (``core.warmup``: on a cold cache they are
compiled in a child process, which keeps the window responsive meanwhile), then freezes what is
alive for the cyclic garbage collector (see the function). ``FontWarmUp`` draws the
application font's regular, bold and italic faces with Latin text and the 3,755 commonest Chinese
characters (GB 2312 level 1) into an image, a slice per event-loop pass, once the window is open:
the first table of Chinese file names otherwise loaded and rasterized those glyphs, and read the
font files, on the window's thread just as a screen's result was shown (the italic face was first
opened there, seen in strace; on a slow disk such first reads wait for it).
``Pulse`` beats the window's heartbeat (``core.progress.Heartbeat``) while a job or a screen runs,
so that their threads stand aside when the window's thread is kept waiting for the GIL.
``SlicedRelease`` frees a replaced result's rows a slice per event-loop pass: freed at once, a
100,000-file result's candidates (each with its passages and evidence) and documents held the
window's thread for 60-100 ms wherever their last reference went; once the last is gone, the
memory they held is given back to the system on a short-lived thread (``release_free_memory``:
glibc otherwise keeps it, and the window stayed ~150 MB larger at 100,000 files).
Imports PySide6 and ``neardup_gui.core`` only.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal
from PySide6.QtGui import QFont, QGuiApplication, QImage, QPainter

from neardup_gui.core.memory import cycle_collector_paused, give_back_soon
from neardup_gui.core.progress import WINDOW_HEARTBEAT, CallbackProgress, Cancelled, Heartbeat

log = logging.getLogger(__name__)
# Seconds between progress reports reaching the window (a screen's and a job's): a few a second.
PROGRESS_INTERVAL = 0.15


class Pulse(QObject):
    """Beats the window's heartbeat (``core.progress.Heartbeat``) every ``INTERVAL`` ms while work
    it was started for runs; ``start`` and ``stop`` pair up (nested: the last ``stop`` ends it).

    A timer of the window's thread: its beats come late exactly when that thread is kept waiting,
    and the engine's loops then give way. Idle, it does not tick (no wake-ups without work).
    """

    INTERVAL = 10

    def __init__(self, parent: QObject | None = None, heartbeat: Heartbeat = WINDOW_HEARTBEAT) -> None:
        super().__init__(parent)
        self.heartbeat = heartbeat
        self._count = 0
        self._timer = QTimer(self)
        self._timer.setInterval(self.INTERVAL)
        self._timer.timeout.connect(heartbeat.beat)

    @property
    def running(self) -> bool:
        return self._count > 0

    def start(self) -> None:
        self._count += 1
        if self._count == 1:
            self.heartbeat.hold()
            self._timer.start()

    def stop(self) -> None:
        if self._count == 0:
            return
        self._count -= 1
        if self._count == 0:
            self._timer.stop()
            self.heartbeat.release()


class _Channel(QObject):
    """Lives in the GUI thread; pool threads emit through it (queued connections)."""

    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()
    progressed = Signal(str, int, int)  # stage, done, total


class _Job(QRunnable):
    def __init__(
        self, fn: Callable[[CallbackProgress], Any], progress: CallbackProgress, channel: _Channel, freeze: bool = False
    ) -> None:
        super().__init__()  # auto-deleted by the pool once run() returned (as DiffJob)
        self._fn, self._progress, self._channel, self._freeze = fn, progress, channel, freeze

    def run(self) -> None:
        try:
            # Without automatic cyclic collections, as a screen runs: a job making many objects (an
            # export of 100,000 files ran 21 full collections of 34-238 ms, each stalling the
            # window). Its survivors are not frozen unless asked (a load job freezes its own):
            # garbage cycles it made are freed by the first collection after, which walks every
            # object the job made and kept (78 ms after an evaluation of 100,000 files).
            with cycle_collector_paused(hand_over=False):
                result = self._fn(self._progress)
                if self._freeze:  # (not after a failure: a traceback's frames are cycles)
                    gc.freeze()
        except Cancelled:
            self._emit("cancelled")
        except Exception as exc:  # every failure reaches the user as a message
            log.exception("background job failed")
            self._emit("failed", str(exc) or type(exc).__name__, traceback.format_exc())
        else:
            self._emit("succeeded", result)

    def _emit(self, name: str, *args: object) -> None:
        try:
            getattr(self._channel, name).emit(*args)
        except RuntimeError:
            pass  # the window closed while the job ran; nobody is waiting


class JobRunner(QObject):
    """Runs named jobs on a pool of its own and forwards their answers.

    Signals:
        job_finished(str, object): name and result of a job that succeeded.
        job_failed(str, str, str): name, message and details of a job that raised.
        job_cancelled(str): name of a job that stopped because it was cancelled.
        busy_changed(bool): some job started or the last one ended.
    """

    job_finished = Signal(str, object)
    job_failed = Signal(str, str, str)
    job_cancelled = Signal(str)
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(3)
        self._running: dict[int, tuple[str, _Channel, threading.Event]] = {}
        self._next = 0
        self.pulse = Pulse(self)  # beats while a job runs: its loops give way to the window

    def start(
        self,
        name: str,
        fn: Callable[[CallbackProgress], Any],
        on_done: Callable[[Any], None] | None = None,
        on_failed: Callable[[str, str], None] | None = None,
        on_progress: Callable[[str, int, int], None] | None = None,
        *,
        freeze: bool = False,
    ) -> int:
        """Run ``fn(progress)`` in the background; returns the job's id.

        ``on_done(result)`` / ``on_failed(message, details)`` run on the GUI thread, before the
        runner's own signals; so does ``on_progress(stage, done, total)``, a few times a second at
        most, for the job's reports. ``freeze``: once ``fn`` returned, move every object alive out
        of the cyclic collector's sight (``gc.freeze``), as a screen's outcome is: for a job that
        leaves many objects and few garbage cycles (the cycles it leaves are then never freed).
        """
        self._next += 1
        job_id = self._next
        event = threading.Event()
        channel = _Channel(self)
        report = None
        if on_progress is not None:
            channel.progressed.connect(on_progress)
            report = channel.progressed.emit
        job = _Job(fn, CallbackProgress(report, event, min_interval=PROGRESS_INTERVAL), channel, freeze)
        was_busy = self.busy()
        self._running[job_id] = (name, channel, event)
        channel.succeeded.connect(lambda result: self._answer(job_id, "done", result, on_done, on_failed))
        channel.failed.connect(lambda msg, details: self._answer(job_id, "failed", (msg, details), on_done, on_failed))
        channel.cancelled.connect(lambda: self._answer(job_id, "cancelled", None, on_done, on_failed))
        self._pool.start(job)
        if not was_busy:
            self.pulse.start()
            self.busy_changed.emit(True)
        return job_id

    def _answer(self, job_id: int, kind: str, value: Any, on_done: Any, on_failed: Any) -> None:
        entry = self._running.pop(job_id, None)
        if entry is None:
            return
        name, channel, _event = entry
        channel.deleteLater()
        try:
            if kind == "done":
                if on_done is not None:
                    on_done(value)
                self.job_finished.emit(name, value)
            elif kind == "failed":
                if on_failed is not None:
                    on_failed(*value)
                self.job_failed.emit(name, *value)
            else:
                self.job_cancelled.emit(name)
        finally:
            if not self._running:
                self.pulse.stop()
                self.busy_changed.emit(False)

    def busy(self, *names: str) -> bool:
        """True while a job runs (one of ``names``, when given)."""
        return any(not names or name in names for name, _channel, _event in self._running.values())

    def running_names(self) -> list[str]:
        return [name for name, _channel, _event in self._running.values()]

    def cancel(self, name: str) -> None:
        """Ask every running job called ``name`` to stop at its next check."""
        for job_name, _channel, event in self._running.values():
            if job_name == name:
                event.set()

    def shutdown(self) -> None:
        """Cancel every job and wait for them (window closing)."""
        for _name, _channel, event in self._running.values():
            event.set()
        self.pulse.stop()  # the window's thread waits here on purpose: nothing to give way to
        self._pool.clear()
        self._pool.waitForDone()


def warm_up_engine() -> threading.Thread:
    """Load the compiled kernels (MinHash, sorts, prepare, diff) in a daemon thread; returns the
    thread (tests join it). On a cold cache ``core.warmup`` compiles them in a child process.

    Then every object alive is moved out of the cyclic collector's sight (``gc.freeze``), as a
    finished screen's outcome is (``worker.paused_cycle_collector``): numba and the kernels
    bring the tracked objects to ~135,000, and a full collection, due every so often as pairs are
    opened, then held the window's thread 150-200 ms (seen in bench_gui, opening a second
    100,000-character pair before any screen). They live as long as the process anyway.
    """
    from neardup_gui.core.warmup import warm_up

    def run() -> None:
        try:
            warm_up()
        finally:
            gc.freeze()

    thread = threading.Thread(target=run, name="engine-warm-up", daemon=True)
    thread.start()
    return thread


def _common_chinese() -> str:
    """The 3,755 characters of GB 2312 level 1 (rows 16-55), the commonest in Chinese text."""
    raw = bytes(b for row in range(0xB0, 0xD8) for col in range(0xA1, 0xFF) for b in (row, col))
    return raw.decode("gb2312", errors="ignore")


class FontWarmUp(QObject):
    """Draws the window's glyphs once, off the moments that matter (see the module notes).

    ``start()`` schedules ``SLICE`` characters per event-loop pass (a few ms each) on the GUI
    thread, in an image of the format windows are drawn in, so the glyph caches the widgets use
    are filled; ``done`` is set at the end.
    """

    SLICE = 64

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        base = QGuiApplication.font()
        bold, italic = QFont(base), QFont(base)
        bold.setBold(True)
        italic.setItalic(True)
        latin = "".join(map(chr, range(0x20, 0x7F)))
        chinese = _common_chinese()
        self._work: list[tuple[QFont, str]] = [(base, latin), (bold, latin), (italic, latin)]
        step = self.SLICE
        self._work += [(f, chinese[i : i + step]) for f in (base, bold) for i in range(0, len(chinese), step)]
        self._image = QImage(2048, 64, QImage.Format.Format_ARGB32_Premultiplied)
        self.done = False
        self.drawn = 0

    def start(self) -> None:
        QTimer.singleShot(0, self, self._step)

    def _step(self) -> None:
        if not self._work:
            self.done = True
            self._image = QImage()
            return
        font, text = self._work.pop(0)
        painter = QPainter(self._image)
        try:
            painter.setFont(font)
            painter.drawText(0, 40, text)
        finally:
            painter.end()
        self.drawn += len(text)
        QTimer.singleShot(0, self, self._step)


class SlicedRelease(QObject):
    """Lets go of many objects a few milliseconds per event-loop pass.

    ``hold(rows, ...)`` takes a reference to every object of each iterable, before the window's
    models and controllers drop theirs (when a new result replaces the old one): their last
    references are then these, and each later pass frees objects until ``BUDGET`` seconds went by,
    ``STEP`` at a time. Objects something else still holds are only dereferenced, as they would
    have been anyway.
    """

    STEP = 64
    BUDGET = 0.004

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._held: list[list[Any]] = []
        self._scheduled = False
        self.passes = 0

    @property
    def pending(self) -> int:
        """How many references are still held."""
        return sum(map(len, self._held))

    def hold(self, *groups: Iterable[Any]) -> None:
        """Keep the objects of each group, and let go of them in later passes of the event loop."""
        for group in groups:
            items = list(group)
            if items:
                self._held.append(items)
        self._schedule()

    def _schedule(self) -> None:
        if self._held and not self._scheduled:
            self._scheduled = True
            QTimer.singleShot(0, self, self._step)

    def _step(self) -> None:
        self._scheduled = False
        self.passes += 1
        end = time.perf_counter() + self.BUDGET
        while self._held:  # at least one step a pass
            items = self._held[-1]
            del items[-self.STEP :]
            if not items:
                self._held.pop()
            if time.perf_counter() >= end:
                break
        if not self._held:
            give_back_soon()
        self._schedule()
