"""Freed memory goes back to the system between stages (Linux, glibc)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from engine_kit import resident_mb

from neardup_gui.core.memory import release_free_memory


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's")
def test_memory_freed_in_many_small_arrays_is_returned_to_the_system() -> None:
    # Like a prepare stage: many small arrays, a few of them kept (which pins the heap's top).
    arrays = [np.ones(1500, dtype=np.uint64) for _ in range(60_000)]  # ~720 MB
    kept = arrays[::1000]
    del arrays
    before = resident_mb()
    assert release_free_memory()
    after = resident_mb()
    assert before - after > 300, (before, after)
    assert all(a.sum() == 1500 for a in kept)


def test_the_cycle_collector_is_paused_inside_and_restored_after_even_on_error() -> None:
    import gc

    from neardup_gui.core.memory import cycle_collector_paused, pauses_cycle_collector

    seen: list[bool] = []

    @pauses_cycle_collector
    def work(fail: bool) -> int:
        seen.append(gc.isenabled())
        if fail:
            raise RuntimeError("boom")
        return 7

    assert gc.isenabled()
    assert work(False) == 7
    with pytest.raises(RuntimeError):
        work(True)
    assert seen == [False, False] and gc.isenabled()
    gc.disable()
    try:
        with cycle_collector_paused():
            pass
        assert not gc.isenabled(), "a caller that had paused it must find it paused"
    finally:
        gc.enable()


def test_pauses_from_several_threads_resume_the_collector_only_when_the_last_ends() -> None:
    # (the window's screen and its background jobs each pause it, and may end in either order)
    import gc
    import threading

    from neardup_gui.core.memory import cycle_collector_paused

    entered, release = threading.Event(), threading.Event()

    def job() -> None:
        with cycle_collector_paused(hand_over=False):
            entered.set()
            release.wait(10)

    assert gc.isenabled()
    with cycle_collector_paused(hand_over=False):
        worker = threading.Thread(target=job)
        worker.start()
        entered.wait(10)
    assert not gc.isenabled(), "the job's pause is still running"
    release.set()
    worker.join(10)
    assert gc.isenabled()


# Run in a fresh interpreter: the test process may hold objects frozen by the window's tests.
_SURVIVORS = """
import gc, weakref
from neardup_gui.core.memory import cycle_collector_paused

class Node:
    pass

{setup}
frozen = gc.get_freeze_count()
with cycle_collector_paused({hand_over}):
    kept = [[i] for i in range(50_000)]  # what a screen returns
    cycle = Node(); cycle.me = cycle  # garbage only a cyclic collection frees
    gone = weakref.ref(cycle)
    del cycle
oldest = gc.get_objects(generation=2)  # (one allocation: no collection comes first)
in_oldest = {{id(o) for o in oldest}}
del oldest  # (it holds the cycle too)
print(sum(id(x) in in_oldest for x in kept), frozen, gc.get_freeze_count(), end=" ")
gc.collect()
print(gone() is None)
"""


@pytest.mark.parametrize("frozen_before, hand_over", [(False, True), (True, True), (False, False)])
def test_after_a_pause_the_survivors_are_old_unless_something_was_frozen(frozen_before: bool, hand_over: bool) -> None:
    import gc
    import subprocess

    setup = "held = [[0] for _ in range(10)]; gc.freeze()" if frozen_before else ""
    script = _SURVIVORS.format(setup=setup, hand_over="" if hand_over else "hand_over=False")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    oldest, frozen, frozen_after, gone_after_collect = *map(int, out[:3]), out[3]
    if not hand_over:
        # A caller that freezes the survivors itself (the window's worker): left as they are.
        assert oldest < 50_000 and frozen_after == frozen == 0
    elif frozen_before:
        # Objects frozen before (the window freezes a screen's survivors): none of them unfrozen.
        assert frozen_after == frozen > 0
    else:
        # Nothing frozen: the survivors go straight to the oldest generation (the first young
        # collection after a 100,000-file screen walked them all, ~0.1 s), nothing stays frozen.
        assert oldest == 50_000 and frozen_after == 0
    # A cycle left inside is freed by the next full collection.
    assert gone_after_collect == "True"
    assert gc.isenabled()


class _Node:
    """A library's object graph in miniature: two objects that refer to each other."""

    def __init__(self) -> None:
        self.other = _Pair(self)


class _Pair:
    def __init__(self, node: _Node) -> None:
        self.node = node


def test_garbage_in_cycles_is_swept_now_and_then_while_the_collector_is_paused() -> None:
    import gc
    import weakref

    from neardup_gui.core.memory import CycleSweep, cycle_collector_paused

    sweep = CycleSweep(every=4)
    with cycle_collector_paused():
        alive = []
        for _ in range(7):  # the work: a graph left in a cycle each time, then the sweep
            alive.append(weakref.ref(_Node()))
            sweep()
        # The first four were freed at the fourth call; the last three wait for the eighth.
        assert [ref() is None for ref in alive] == [True] * 4 + [False] * 3
        assert sweep.collections == 1
        for _ in range(33):
            alive.append(weakref.ref(_Node()))
            sweep()
        assert sum(ref() is not None for ref in alive) == 0  # the 40th call: and the middle generation
        assert sweep.collections == 10
    gc.collect()
    running = CycleSweep(every=1)
    for _ in range(3):  # the collector runs: it does this itself
        running()
    assert running.collections == 0
    with pytest.raises(ValueError):
        CycleSweep(every=0)
