"""Loading the compiled kernel modules (numba), each lazily and once.

Each ``_*kernel`` module imports numba and compiles (or loads from numba's cache) its functions;
the engine asks for one only where its size pays for that. Where a kernel cannot load (numba not
installed, or a frozen program without the kernel's source file, which numba's cache needs), the
caller falls back to its numpy (or C++ library) path and the log says so once.

Standard library only (the kernel modules import numpy and numba themselves).
"""

from __future__ import annotations

import functools
import importlib
import logging
from types import ModuleType

log = logging.getLogger(__name__)

__all__ = ["kernel_module"]


@functools.lru_cache(maxsize=None)
def kernel_module(name: str, fallback: str = "numpy") -> ModuleType | None:
    """The module ``neardup_gui.core.<name>`` (e.g. ``"methods._sortkernel"``), or None when it
    cannot be loaded here; ``fallback`` names what is used instead, for the log."""
    try:
        return importlib.import_module(f"neardup_gui.core.{name}")
    except (ImportError, RuntimeError):  # RuntimeError: numba cannot cache (e.g. a frozen app without sources)
        log.warning("compiled kernels %s unavailable; using %s", name, fallback, exc_info=True)
        return None
