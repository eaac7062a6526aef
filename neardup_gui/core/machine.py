"""What the machine offers this process: the cores it may run on.

Standard library only.
"""

from __future__ import annotations

import os

__all__ = ["usable_cores"]


def usable_cores() -> int:
    """Cores this process may run on: its CPU affinity where the system reports one (Linux; a
    container or ``taskset`` limits it), else every core the machine has. At least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
