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
