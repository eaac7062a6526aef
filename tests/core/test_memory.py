"""Freed memory goes back to the system between stages (Linux, glibc)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from neardup_gui.core.memory import release_free_memory


def _resident_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's")
def test_memory_freed_in_many_small_arrays_is_returned_to_the_system() -> None:
    # Like a prepare stage: many small arrays, a few of them kept (which pins the heap's top).
    arrays = [np.ones(1500, dtype=np.uint64) for _ in range(60_000)]  # ~720 MB
    kept = arrays[::1000]
    del arrays
    before = _resident_mb()
    assert release_free_memory()
    after = _resident_mb()
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
