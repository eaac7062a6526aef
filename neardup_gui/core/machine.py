"""What the machine offers this process: the cores it may run on, the memory it could have.

Standard library only (psutil is asked first when it is installed).
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = ["available_memory", "usable_cores"]


def usable_cores() -> int:
    """Cores this process may run on: its CPU affinity where the system reports one (Linux; a
    container or ``taskset`` limits it), else every core the machine has. At least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def available_memory() -> int | None:
    """Bytes of memory the system could give this process now without swapping (its own estimate:
    ``MemAvailable`` on Linux, the available physical memory on Windows, psutil's where installed;
    elsewhere, e.g. macOS without psutil, the machine's physical memory, which no amount beyond can
    fit in), or None where it cannot tell (then nothing is refused for lack of it)."""
    try:
        import psutil  # type: ignore[import-untyped]  # with the Dask extra; not required

        return int(psutil.virtual_memory().available)
    except Exception:  # not installed, or no answer here
        pass
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/meminfo", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("MemAvailable:"):
                        return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            return None
    if sys.platform == "win32":
        return _windows_available()
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def _windows_available() -> int | None:
    class _Status(ctypes.Structure):
        _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong), ("total", ctypes.c_ulonglong),
                    ("available", ctypes.c_ulonglong), ("page_total", ctypes.c_ulonglong),
                    ("page_available", ctypes.c_ulonglong), ("virtual_total", ctypes.c_ulonglong),
                    ("virtual_available", ctypes.c_ulonglong), ("extended", ctypes.c_ulonglong)]  # fmt: skip

    status = _Status()
    status.length = ctypes.sizeof(_Status)
    try:
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined]
            return int(status.available)
    except (AttributeError, OSError):
        pass
    return None
