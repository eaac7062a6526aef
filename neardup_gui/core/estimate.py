"""How far a screen has come and how long it still needs, from what the engine knows of the work.

Fixed shares per stage (``progress.STAGES``) fit a folder of articles: in a folder of PDFs reading
is nine tenths of the time, in a folder of drafts that pair with each other verification is, and in
a rescan most files are only stat'ed. The engine therefore says what it found as soon as it knows
(``plan_stages``: after the listing, before preparing, from the first boilerplate sample's pairs,
once the pairs are known) as estimated seconds per stage (``stage_seconds``), and
``ScreenEstimate`` turns the reports into a share of the whole and a time left:

- the share is the estimated work done (finished stages, plus the current one's done / total)
  over the estimated work of the whole screen;
- the time left is the estimated work left at the pace of the run so far (the time elapsed over
  the estimated work done), so a machine or an hour slower than the one measured changes nothing;
- the bar never moves back: when an estimate grows (the pairs turned out many), it waits at its
  place until the work done catches up, while the time left says how long.

No Qt here: the window's progress panel and the command line's bar use it alike.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from neardup_gui.core.helper import helper_pays
from neardup_gui.core.progress import OPEN_ENDED_STAGES, STAGES, CallbackProgress

__all__ = ["PlannedProgress", "ScreenEstimate", "listens", "plan_stages", "stage_seconds"]

# Seconds per unit of work on the bench machine (2 cores, bench/bench_screen.py, bench_formats.py,
# bench_long.py; bench/bench_progress.py compares the estimates with the times). Only their ratios
# matter: the time left is scaled by the pace of the run itself.
LIST_PER_FILE = 4e-6  # the walk
STAT_PER_FILE = 15e-6  # ... a stat per file a rescan may take over, and the cache read meanwhile
READ_PER_UNIT = 45e-6  # reading, hashing, decoding a plain file (``io.corpus.read_weight``: a PDF is ~300)
TAKEN_OVER_PER_FILE = 8e-6  # a file a rescan takes over unread: its stamp compared, its row made
PREPARE_PER_CHAR = 60e-9  # normalizing, shingling, signing, writing normalized/ (as the window does)
PREPARE_PER_DOCUMENT = 30e-6
CACHED_PER_DOCUMENT = 4e-6  # a document whose entries the prepare cache holds
CANDIDATES_PER_DOCUMENT = 8e-6  # LSH and the containment index
VERIFY_PER_PAIR = 600e-6  # exact scores, aligned passages and flags of a pair of articles, one core
VERIFY_PER_PAIR_CHAR = 5e-9  # ... and per character of the pair's two texts (halved with a helper)
TAKEN_PAIR = 30e-6  # a pair a rescan takes over from the last run
FLAGS_SHARE = 0.02  # of the verification: what follows its last report (flags are checked inside it)
CHECK_PER_FILE = 5e-6  # every source stat'ed again after the run
WRITE_PER_FILE = 12e-6  # manifest, session, cache
WRITE_PER_PAIR = 120e-6  # candidates, their passages and flags, in the outputs and the session
# Before the pairs are known: pairs a document (a folder of articles gives ~0.09) and the mean
# length of a pair's two texts (twice the mean document's).
PAIRS_PER_DOCUMENT = 0.1
TYPICAL_CHARS = 1500  # a document's characters before it is read (an article)


def stage_seconds(
    *,
    files: int | None = None,
    read_units: float | None = None,
    taken_over: int = 0,
    documents: int | None = None,
    new_chars: int | None = None,
    cached: int = 0,
    pairs: int | None = None,
    pair_chars: int | None = None,
    pairs_taken: int = 0,
    helper: bool | None = None,
) -> dict[str, float]:
    """Estimated seconds of each stage the given facts say something of (the others are left out).

    Args:
        files: Entries the listing found (every one is checked again and written in the manifest).
        read_units: Plain files' worth of reading of the files to open (``io.corpus.read_weight``).
        taken_over: Files a rescan takes over unread.
        documents: Documents to compare.
        new_chars: Characters of the documents to prepare (not taken from the prepare cache; None:
            ``TYPICAL_CHARS`` each).
        cached: Documents taken from the prepare cache.
        pairs: Pairs to verify or take over (None: not known yet, estimated from ``documents``).
        pair_chars: Characters of those pairs' two texts, summed (None: twice the mean document's).
        pairs_taken: Of ``pairs``, those taken over from the last run.
        helper: Whether a helper process verifies half of the pairs (None: as ``core.helper``
            would decide for ``documents`` and their characters).
    """
    out: dict[str, float] = {}
    if files is not None:
        out["check"] = files * CHECK_PER_FILE
        if read_units is not None:  # the listing's facts
            out["list"] = files * LIST_PER_FILE + taken_over * STAT_PER_FILE
    if new_chars is None and documents is not None:
        new_chars = max(0, documents - cached) * TYPICAL_CHARS
    if read_units is not None:
        out["read"] = read_units * READ_PER_UNIT + taken_over * TAKEN_OVER_PER_FILE
    if documents is not None and new_chars is not None:
        fresh = max(0, documents - cached)
        out["normalize"] = new_chars * PREPARE_PER_CHAR + fresh * PREPARE_PER_DOCUMENT + cached * CACHED_PER_DOCUMENT
        out["shingle"] = 0.0  # done in the same pass as normalizing (reported at its end)
        out["candidates"] = documents * CANDIDATES_PER_DOCUMENT
    if documents is not None or pairs is not None:
        n = pairs if pairs is not None else round(PAIRS_PER_DOCUMENT * (documents or 0))
        if pair_chars is None:
            mean = new_chars / max(1, (documents or 0) - cached) if new_chars else TYPICAL_CHARS
            pair_chars = round(2 * mean * n)
        if helper is None:
            helper = helper_pays(documents or 0, (new_chars or 0) + cached * TYPICAL_CHARS)
        verified = max(0, n - pairs_taken)
        share = verified / n if n else 0.0
        work = (verified * VERIFY_PER_PAIR + share * pair_chars * VERIFY_PER_PAIR_CHAR) / (2 if helper else 1)
        work += pairs_taken * TAKEN_PAIR
        out["verify"] = work * (1 - FLAGS_SHARE)
        out["flags"] = work * FLAGS_SHARE
        if files is not None:
            out["write"] = files * WRITE_PER_FILE + n * WRITE_PER_PAIR
    return out


def listens(progress: Any) -> bool:
    """Whether ``progress`` takes estimates (has a ``plan`` method): else none need be made."""
    return getattr(progress, "plan", None) is not None


def plan_stages(progress: Any, seconds: Mapping[str, float]) -> None:
    """Tell ``progress`` the estimated seconds of stages (``ScreenEstimate.plan``), if it listens."""
    if listens(progress):
        progress.plan(dict(seconds))


class PlannedProgress(CallbackProgress):
    """A ``CallbackProgress`` that also passes the engine's estimates on (``plan_stages``), unthrottled,
    to ``on_plan`` (on the reporting thread): for a ``ScreenEstimate`` elsewhere."""

    def __init__(
        self,
        callback: Callable[[str, int, int], None] | None,
        on_plan: Callable[[dict[str, float]], None],
        cancel_event: threading.Event | None = None,
        min_interval: float = 0.1,
    ) -> None:
        super().__init__(callback, cancel_event, min_interval)
        self._on_plan = on_plan

    def plan(self, seconds: dict[str, float]) -> None:
        self._on_plan(seconds)


_NAMES = tuple(name for name, _weight in STAGES)
_ORDER = {name: n for n, name in enumerate(_NAMES)}
_NOMINAL = 10.0  # seconds of a screen before anything is known: the stages' fixed shares of it


class ScreenEstimate:
    """A screen's share done and its time left, from its reports and the engine's estimates.

    Not thread-safe: fed by one thread (the window's, or the command line's reporting thread).
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {name: weight * _NOMINAL for name, weight in STAGES}
        self._stage = -1  # index in STAGES of the stage reported last
        self._part = 0.0  # its share done
        self._shown = 0.0  # the bar's share: never lower than before

    def plan(self, seconds: Mapping[str, float]) -> None:
        """New estimates for some stages (seconds, any scale); the others keep theirs."""
        for name, value in seconds.items():
            if name in self.seconds:
                self.seconds[name] = max(0.0, float(value))

    def report(self, stage: str, done: int, total: int) -> None:
        """A progress report of the screen (stages out of order, or unknown, are ignored)."""
        n = _ORDER.get(stage)
        if n is None or n < self._stage:
            return
        if stage in OPEN_ENDED_STAGES:
            part = 1.0  # the total is not known: what is listed so far is listed
        else:
            part = min(1.0, max(0.0, done / total)) if total > 0 else 1.0
        if n > self._stage:
            self._stage, self._part = n, part
        else:
            self._part = max(self._part, part)

    def work_share(self) -> float:
        """Estimated work done over the whole's, in [0, 1] (may go down when an estimate grows)."""
        total = sum(self.seconds.values())
        if total <= 0 or self._stage < 0:
            return 0.0
        done = sum(self.seconds[name] for name in _NAMES[: self._stage])
        done += self.seconds[_NAMES[self._stage]] * self._part
        return min(1.0, done / total)

    def share(self) -> float:
        """The bar's share: ``work_share``, but never lower than shown before."""
        self._shown = max(self._shown, self.work_share())
        return self._shown

    def seconds_left(self, elapsed: float) -> float | None:
        """Time left at the pace so far, or None while too little is done to say (under 3 % of the
        estimated work, or half a second)."""
        share = self.work_share()
        if share < 0.03 or elapsed < 0.5:
            return None
        return elapsed * (1 - share) / share
