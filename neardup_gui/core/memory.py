"""Give freed memory back to the system between the stages of a large screen.

The stages allocate and free millions of small numpy arrays (a few KB each). glibc keeps freed
small blocks in its heap, so the process's resident memory stays at the stage's high-water mark
and the next stage's peak adds to it. ``malloc_trim(0)`` returns free heap pages to the system
(measured at 10,000 documents after prepare: 163 MB resident -> 84 MB). Elsewhere (macOS,
Windows, musl) this does nothing.

Standard library only.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys

__all__ = ["release_free_memory"]


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
