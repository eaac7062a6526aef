"""One progress object carries stage, counts and cancellation through every long call.

Engine functions take ``progress: Progress = NULL_PROGRESS``, call ``progress.report(stage, done,
total)`` now and then and ``progress.check()`` inside their loops; ``check`` raises ``Cancelled``.
No Qt here: the window wraps a ``CallbackProgress`` around a signal.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

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


def overall_fraction(stage: str, done: int, total: int) -> float:
    """Share of the whole screen done, in [0, 1], from a stage and its counts."""
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
        if self.cancel_event.is_set():
            raise Cancelled()

    def cancel(self) -> None:
        self.cancel_event.set()
