"""Helpers shared by the engine tests of several packages (importable: tests/ holds conftest.py)."""

from __future__ import annotations

import threading

from neardup_gui.core.progress import CallbackProgress


class HoldContainment(CallbackProgress):
    """``check`` on the containment index's thread waits until ``released`` is set (or 10 s), so
    that index is still being built when LSH's pairs are known."""

    def __init__(self) -> None:
        super().__init__(min_interval=0)
        self.released = threading.Event()

    def check(self) -> None:
        if threading.current_thread().name.startswith("neardup-containment"):
            self.released.wait(10)
        super().check()


class StageRecorder:
    """Progress that notes each stage reported, in order (repeats of the last one dropped)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def report(self, stage: str, done: int, total: int) -> None:
        if not self.seen or self.seen[-1] != stage:
            self.seen.append(stage)

    def check(self) -> None:
        pass


def assert_ops_rebuild(ops: list[tuple[str, int]], a: str, b: str) -> None:
    """Diff ops (``("=" | "-" | "+", length)``) cover both texts exactly: every op is non-empty,
    an equal op pairs equal text, and the ops consume ``a`` and ``b`` whole."""
    left = right = ""
    i = j = 0
    for op, n in ops:
        assert n > 0
        if op != "+":
            left += a[i : i + n]
            i += n
        if op != "-":
            right += b[j : j + n]
            j += n
        if op == "=":
            assert a[i - n : i] == b[j - n : j]
    assert (left, right) == (a, b)


def resident_mb() -> float:
    """This process's resident memory in MB (Linux: ``/proc/self/status``)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")
