"""Memory habits of a large screen: freed memory given back to the system between stages, the
cyclic garbage collector paused while a screen runs, and work cut into runs bounded in size.

The stages allocate and free millions of small numpy arrays (a few KB each). glibc keeps freed
small blocks in its heap, so the process's resident memory stays at the stage's high-water mark
and the next stage's peak adds to it. ``malloc_trim(0)`` returns free heap pages to the system
(measured at 10,000 documents after prepare: 163 MB resident -> 84 MB). Elsewhere (macOS,
Windows, musl) this does nothing.

Python's cyclic garbage collector runs a full collection every so many allocations, and each one
walks every live container object: a screen of 100,000 files holds millions (manifest rows, read
results, arrays, candidates), so those collections cost 1.5-2 s of a 13-17 s screen (measured
with the collector paused and not, alternating). The engine's data holds no reference cycles that
matter (rows, tuples, arrays; reference counting frees them), so ``pauses_cycle_collector`` turns
the automatic collections off for the duration of a screen and back on after, the objects that
survive it moved to the oldest generation (else the first collection after it walked them all).
The window's background jobs pause it too (exporting a 100,000-file workspace ran 21 full
collections of 34-238 ms, each a stall of the window); pauses from several threads at once are
counted, and the collector comes back when the last one ends.

The libraries that extract text from PDFs and web pages do leave each file's object graph in
reference cycles (pypdf ~170 objects a file, holding the file's bytes and what was parsed of it;
readability ~13), which reference counting never frees. ``CycleSweep``, called after each such
extraction, collects the young generations now and then while the collector is paused: 2,000
small PDFs held 470 MB more than their text without it.

Work held at once (a batch of texts being prepared, hash arrays joined to be counted) is cut by
``bounded_runs`` into runs bounded in items and in size: a count of items alone let a folder of
long manuscripts hold several hundred MB a run.

Standard library only.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

__all__ = [
    "CycleSweep",
    "bounded_runs",
    "cycle_collector_paused",
    "give_back_soon",
    "human_size",
    "pauses_cycle_collector",
    "release_free_memory",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")
_T = TypeVar("_T")


def bounded_runs(items: Sequence[_T], most: int, size: Callable[[_T], int], limit: int) -> Iterator[Sequence[_T]]:
    """``items`` in order, in runs (slices) of at most ``most`` items whose ``size`` adds up to at
    most ``limit``; an item larger than that makes a run of its own."""
    lo = 0
    while lo < len(items):
        hi, held = lo + 1, size(items[lo])
        while hi < len(items) and hi - lo < most and held + size(items[hi]) <= limit:
            held += size(items[hi])
            hi += 1
        yield items[lo:hi]
        lo = hi


@functools.cache
def _trim():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_free_memory() -> bool:
    """Return free heap memory to the system where the C library allows it; True if it could."""
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True


def give_back_soon() -> threading.Thread | None:
    """``release_free_memory`` on a short-lived daemon thread (``malloc_trim`` holds no GIL: 5-30 ms
    at 100,000 files that the caller, a window's thread or a job, need not wait for); the thread,
    or None where there is nothing to call."""
    if _trim() is None:
        return None
    thread = threading.Thread(target=release_free_memory, name="neardup-give-back", daemon=True)
    thread.start()
    return thread


_pause_lock = threading.Lock()
_pausers = 0  # pauses in progress, on any thread
_enabled_before = False  # whether the collector ran before the first of them


@contextmanager
def cycle_collector_paused(hand_over: bool = True) -> Iterator[None]:
    """No automatic cyclic garbage collection inside; the collector's previous state after the
    last of the pauses in progress (on any thread) ends (so a caller that paused it already, or a
    thread whose pause began first and is still running, keeps it paused).

    Args:
        hand_over: On exit, where nothing is frozen, put the objects made inside into the oldest
            generation (see below). False for a caller that freezes them itself (the window's
            worker): telling whether anything is frozen walks every frozen object, ~10 ns each
            with the GIL held (30 ms and more once a window has frozen a screen's survivors).
    """
    global _pausers, _enabled_before
    with _pause_lock:
        if _pausers == 0:
            _enabled_before = gc.isenabled()
        _pausers += 1
        gc.disable()
    try:
        yield
    finally:
        with _pause_lock:  # (held while resuming: a pause beginning meanwhile finds it done)
            _pausers -= 1
            if _pausers == 0 and _enabled_before:
                if hand_over and gc.get_freeze_count() == 0:
                    # The survivors straight into the oldest generation (frozen, then unfrozen: into
                    # the oldest), or the first young collection after would walk every object made
                    # inside (60-100 ms after a 100,000-file screen). Cycles among them wait for the
                    # next full collection. Not where objects were frozen (the window freezes a
                    # screen's survivors for good): unfreezing would undo that.
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()


class CycleSweep:
    """Frees the garbage in reference cycles that some work leaves (a library's object graphs) while
    the cyclic collector is paused (``cycle_collector_paused``, or any ``gc.disable``).

    Call it after each piece of such work. Every ``every`` calls, when the collector is paused, the
    youngest generation is collected, and every ``10 * every`` calls the middle one too, as
    CPython's own schedule does: a collection walks the objects made since the previous one (the
    first: those made since the pause began, once), never the oldest generation, where a screen's
    millions of objects end. Where the collector runs, it does this itself. Thread-safe.
    """

    def __init__(self, every: int = 32) -> None:
        if every < 1:
            raise ValueError("sweep after at least one call")
        self.every = every
        self.collections = 0  # how many times it collected
        self._calls = 0
        self._lock = threading.Lock()

    def __call__(self) -> None:
        with self._lock:
            self._calls += 1
            if self._calls % self.every:
                return
            middle = self._calls % (10 * self.every) == 0
        if gc.isenabled():
            return
        gc.collect(1 if middle else 0)
        with self._lock:
            self.collections += 1


def pauses_cycle_collector(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorator: ``func`` runs inside ``cycle_collector_paused``."""

    @functools.wraps(func)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with cycle_collector_paused():
            return func(*args, **kwargs)

    return paused


def human_size(n: int, byte_unit: str = "bytes") -> str:
    """``"512 bytes"``, ``"1.5 MB"``, ``"12.3 GB"`` (1 KB = 1024 bytes): a size or an amount of
    memory for a message (``byte_unit``: the word for sizes under 1 KB, e.g. the window's "B")."""
    size = float(n)
    for unit in (byte_unit, "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} {unit}" if unit == byte_unit else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} {byte_unit}"
