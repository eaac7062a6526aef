"""One progress object carries stage, counts and cancellation through every long call.

Engine functions take ``progress: Progress = NULL_PROGRESS``, call ``progress.report(stage, done,
total)`` now and then and ``progress.check()`` inside their loops; ``check`` raises ``Cancelled``.
No Qt here: the window wraps a ``CallbackProgress`` around a signal.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

# Stages of a screen and their share of the whole bar (they add up to 1), close to the time each
# takes at 100,000 files (bench/bench_screen.py): normalizing, shingling and signing are one pass
# now, and the flags are checked inside the verification rounds. Listing the folder reports how many
# entries it found so far with a total of 0 (the total is not known until the listing ends).
STAGES: tuple[tuple[str, float], ...] = (
    ("list", 0.01),
    ("read", 0.19),
    ("normalize", 0.22),
    ("shingle", 0.01),
    ("candidates", 0.12),
    ("verify", 0.33),
    ("flags", 0.01),
    ("check", 0.05),
    ("write", 0.06),
)
# Stages that count what they found without knowing the total (reported as 0).
OPEN_ENDED_STAGES = frozenset({"list"})
STAGE_LABELS = {
    "list": "Listing files",
    "read": "Reading files",
    "normalize": "Normalizing",
    "shingle": "Shingling and signing",
    "candidates": "Finding candidates",
    "verify": "Verifying pairs",
    "flags": "Checking revisions and templates",
    "check": "Checking the source files again",
    "write": "Writing the results",
}


# Stages of an export of the review workbook (not part of a screen's bar): writing its rows, then
# reading the written file back to check its digests.
STAGE_WORKBOOK = "workbook"
STAGE_WORKBOOK_CHECK = "workbook_check"
EXPORT_STAGE_LABELS = {
    STAGE_WORKBOOK: "Writing the workbook",
    STAGE_WORKBOOK_CHECK: "Checking the workbook's digests",
}


class Heartbeat:
    """The window thread's pulse, so that background threads stand aside when it is kept waiting.

    CPython hands the GIL over badly when threads holding it let go of it often for short system
    calls (a file read in 8 KB pieces, a stat per file, a compiled kernel that drops the GIL, between
    stretches of Python): a waiting thread asks for the GIL only if it did not change hands for
    5 ms, so while it keeps changing hands among busy threads the waiter never asks, and when it is
    woken it comes too late to take it (CPython issue 7946, the "convoy effect"). Measured here: a
    loop that stat'ed a file after every 1,000 (10,000) iterations of Python kept a sleeping thread
    waiting up to 0.2 (1.1) s (``bench/bench_gil.py``); a rescan of 10,000 files in the window,
    reading its cache on one thread while the worker listed the folder or parsed the last
    ``manifest.csv``, stalled the window 100-175 ms.

    The window beats (``beat``, from a timer of its thread) while background work runs (``hold`` /
    ``release``). ``give_way()``, called in the engine's loops, finds the last beat older than
    ``LATE`` and then waits for the next beat, at most ``WAIT``: every thread that calls it stands
    aside, so the GIL is left to the window and the threads that do not call it (each of which the
    window can then claim it from). A wait that ran out (the window busy with work of its own) is
    not repeated for ``SPACING``; no beat for ``STALE`` (a window that stopped beating without
    releasing, or one busy for that long) is not waited for. Without a window (the command line) or
    while nothing is held it only reads a counter.
    """

    LATE = 0.02
    WAIT = 0.1
    SPACING = 0.02
    STALE = 1.0

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._held = 0
        self._last = 0.0
        self._gave_up = 0.0
        self._beater = 0  # the window's thread (never made to wait for itself)
        self._next = threading.Event()  # set by the next beat
        self._waiting = 0  # threads waiting for it (a beat with none allocates nothing)
        self._count_lock = threading.Lock()
        self.waits = 0  # how many times a thread stood aside (tests, benchmarks)

    @property
    def holders(self) -> int:
        """How many pieces of background work hold it now."""
        return self._held

    def hold(self) -> None:
        """Background work starts: beats are expected from now on."""
        self._held += 1
        self._last = self._clock()

    def release(self) -> None:
        self._held = max(0, self._held - 1)
        if self._waiting:
            self._wake()

    def beat(self) -> None:
        """The window's thread ran (called by its timer)."""
        self._last = self._clock()
        self._beater = threading.get_ident()
        if self._waiting:
            self._wake()

    def _wake(self) -> None:
        woken, self._next = self._next, threading.Event()
        woken.set()

    def give_way(self) -> bool:
        """Wait for the window's next beat if it is late; returns whether it came in time."""
        if not self._held:
            return False
        now = self._clock()
        late = now - self._last
        if late < self.LATE or late > self.STALE or now - self._gave_up < self.SPACING:
            return False
        if threading.get_ident() == self._beater:  # engine code run by the window itself
            return False
        with self._count_lock:
            self.waits += 1
            self._waiting += 1
        try:
            if self._next.wait(self.WAIT):
                return True
        finally:
            with self._count_lock:
                self._waiting -= 1
        self._gave_up = self._clock()
        return False


# The GIL is one per process, so is the window whose thread waits for it.
WINDOW_HEARTBEAT = Heartbeat()


def give_way() -> None:
    """Let a waiting window thread run if it is late (see ``Heartbeat``); call it in loops that
    mix Python with short system calls."""
    if WINDOW_HEARTBEAT._held:
        WINDOW_HEARTBEAT.give_way()


def slices_giving_way(items: Iterable[T], size: int = 512) -> Iterator[list[T]]:
    """``items`` in lists of ``size``, with ``give_way()`` before each: for loops of short C calls
    (a row built, hashed or written) that would otherwise never let a late window thread in."""
    it = iter(items)
    while True:
        give_way()
        part = list(islice(it, size))
        if not part:
            return
        yield part


# Items per C call in the ``*_giving_way`` helpers below: 8,192 rows take ~1-8 ms of a mapped call.
GIVING_WAY_SLICE = 8192


def list_giving_way(items: Iterable[T], size: int = GIVING_WAY_SLICE) -> list[T]:
    """``list(items)``, taken ``size`` items per call with ``give_way()`` between.

    ``items`` mapped in C over 100,000 rows (a ``map``, ``zip`` or ``compress`` chain) is consumed
    by one call that holds the GIL throughout: 20-150 ms on a busy machine, during which a window
    waiting for the GIL cannot draw (found by a watchdog dumping every thread's stack when the
    window's timer was 60 ms late). Between slices the interpreter can hand the GIL over.
    """
    it = iter(items)
    out: list[T] = []
    while True:
        part = list(islice(it, size))
        out += part
        if len(part) < size:
            return out
        give_way()


def dict_giving_way(items: Iterable[tuple[Any, Any]], size: int = GIVING_WAY_SLICE) -> dict[Any, Any]:
    """``dict(items)`` as ``list_giving_way`` makes a list (later keys win, as in ``dict``)."""
    it = iter(items)
    out: dict[Any, Any] = {}
    while True:
        part = list(islice(it, size))
        out.update(part)
        if len(part) < size:
            return out
        give_way()


def consume_giving_way(items: Iterable[Any], size: int = GIVING_WAY_SLICE) -> None:
    """Run ``items`` to its end (a ``map`` called for its effect), ``size`` items per call."""
    it = iter(items)
    while len(list(islice(it, size))) == size:
        give_way()


def empty_giving_way(container: list[Any] | dict[Any, Any], size: int = 4096) -> None:
    """Empty a list or dict ``size`` items at a time, with ``give_way()`` before each slice.

    Freeing a container of ~100,000 rows of small objects in one go (a ``del``, a function's return)
    holds the GIL for 20-80 ms, and a waiting window thread with it; emptied in slices, the
    interpreter can hand the GIL over between them. Only what nothing else refers to is freed.
    """
    if isinstance(container, dict):
        pop = container.popitem
        while container:
            give_way()
            for _ in range(min(size, len(container))):
                pop()
    else:
        while container:
            give_way()
            del container[-size:]


class Cancelled(Exception):
    """Raised by ``Progress.check()`` when the user asked to stop."""


class Progress(Protocol):
    def report(self, stage: str, done: int, total: int) -> None: ...

    def check(self) -> None: ...


class NullProgress:
    """Reports nowhere and never cancels."""

    def report(self, stage: str, done: int, total: int) -> None:
        pass

    def check(self) -> None:
        pass


NULL_PROGRESS = NullProgress()


class ChecksOnly:
    """Passes cancellation through to ``progress`` and drops the reports: for a part whose caller
    reports for the whole, or that runs on a pool thread."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress

    def report(self, stage: str, done: int, total: int) -> None:
        pass

    def check(self) -> None:
        self._progress.check()


class AsStage:
    """Passes cancellation through to ``progress`` and reports every count as ``stage``'s: for work
    inside a later stage that reports under a stage of its own (the TF-IDF and SimHash models of a
    screen's extra scores, fitted once the candidates are found, report as shingling: the bar's
    label went back to "Shingling and signing" after "Finding candidates")."""

    def __init__(self, progress: Progress, stage: str) -> None:
        self._progress, self._stage = progress, stage

    def report(self, stage: str, done: int, total: int) -> None:
        self._progress.report(self._stage, done, total)

    def check(self) -> None:
        self._progress.check()


def overall_fraction(stage: str, done: int, total: int) -> float:
    """Share of the whole screen done, in [0, 1], from a stage and its counts and the fixed shares
    alone (the window and the command line use ``core.estimate.ScreenEstimate``, which starts from
    these shares and takes the engine's estimates; ``bench/bench_progress.py`` compares both)."""
    start = 0.0
    for name, weight in STAGES:
        if name == stage:
            part = (done / total) if total > 0 else 1.0
            return min(1.0, start + weight * min(1.0, max(0.0, part)))
        start += weight
    return min(1.0, start)


class CallbackProgress:
    """Forwards reports to a callback at most every ``min_interval`` seconds (the first and the last
    report of each stage always pass; an open-ended stage has no last) and cancels when
    ``cancel_event`` is set.

    Thread-safe to call from a worker thread; the callback runs in that thread.
    """

    def __init__(
        self,
        callback: Callable[[str, int, int], None] | None = None,
        cancel_event: threading.Event | None = None,
        min_interval: float = 0.1,
    ) -> None:
        self._callback = callback
        self.cancel_event = cancel_event or threading.Event()
        self._min_interval = min_interval
        self._last = 0.0
        self._last_stage = ""

    def report(self, stage: str, done: int, total: int) -> None:
        self.check()
        if self._callback is None:
            return
        now = time.monotonic()
        finished = done >= total and stage not in OPEN_ENDED_STAGES
        if stage != self._last_stage or finished or now - self._last >= self._min_interval:
            self._last = now
            self._last_stage = stage
            self._callback(stage, done, total)

    def check(self) -> None:
        give_way()
        if self.cancel_event.is_set():
            raise Cancelled()

    def cancel(self) -> None:
        self.cancel_event.set()
