"""What the machine offers: the memory a large model is weighed against."""

from __future__ import annotations

import os
import sys

import pytest

from neardup_gui.core import machine


def _meminfo(field: str) -> int:
    with open("/proc/meminfo", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise LookupError(field)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/meminfo")
def test_available_memory_is_the_systems_own_estimate_between_nothing_and_all_there_is(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "psutil", None)  # as without the Dask extra
    got = machine.available_memory()
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert got is not None and 0 < got <= total
    assert abs(got - _meminfo("MemAvailable")) < total // 20  # the same figure, read a moment apart


def test_without_an_available_figure_the_physical_memory_bounds_it(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "psutil", None)
    monkeypatch.setattr(machine.sys, "platform", "darwin")  # no MemAvailable, no GlobalMemoryStatusEx
    monkeypatch.setattr(machine.os, "sysconf", lambda name: {"SC_PHYS_PAGES": 1000, "SC_PAGE_SIZE": 4096}[name])
    assert machine.available_memory() == 4_096_000

    def unknown(name: str) -> int:
        raise ValueError(name)

    monkeypatch.setattr(machine.os, "sysconf", unknown)
    assert machine.available_memory() is None  # nothing is refused for lack of it
