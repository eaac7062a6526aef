"""Loading the compiled kernels (numba) before they are needed, without stalling a window.

``load_kernels`` imports numba and runs each kernel once (MinHash signatures and band keys, the
containment index's sort and counts, the batch preparation, the diff, the walk's stats), which loads their machine
code from numba's cache: ~1 s when the cache is warm. When it is cold (the first start after an
installation or an upgrade) numba compiles them instead, ~30 s of mostly Python work holding the
GIL: a window warming up in a thread then stalls for up to a quarter of a second at a time. ``warm_up`` avoids that: on a cold cache it
compiles the kernels in a child process (which writes the cache on the other core), then loads
them here from the cache. If the child cannot run, they are compiled here as before.

Imports numpy and the engine's modules only; no Qt.
"""

from __future__ import annotations

import logging
import multiprocessing
import sys
from pathlib import Path

log = logging.getLogger(__name__)

__all__ = ["cache_is_warm", "load_kernels", "warm_up"]

# One entry point of each kernel module (the largest function), as numba names its cache index.
_INDEXES = (
    ("methods/_sigkernel.py", "_sigkernel.signature_rows-*.nbi"),
    ("methods/_sortkernel.py", "_sortkernel.radix_argsort-*.nbi"),
    ("_prepkernel.py", "_prepkernel.prepare_batch-*.nbi"),
    ("_diffkernel.py", "_diffkernel.verify_batch-*.nbi"),
    # the rescan walk's stats (io.fstat): compiled on Linux only
    *((("_statkernel.py", "_statkernel.statx_names-*.nbi"),) if sys.platform.startswith("linux") else ()),
)
_CHILD_TIMEOUT_S = 600.0


def load_kernels() -> bool:
    """Run every compiled kernel once in this process; False when numba cannot be used here."""
    try:
        import numpy as np

        from neardup_gui.core.methods import _sigkernel  # noqa: F401 - loading numba is the point
        from neardup_gui.core.methods.minhash_lsh import signatures
        from neardup_gui.core.shingles import minhash_values

        # One tiny call through the public path loads the cached machine code for the real dtypes.
        signatures([minhash_values(np.array([1, 2, 3], dtype=np.uint64))], 128, 1, backend="compiled")
        from neardup_gui.core.methods._sigkernel import band_keys_into

        band_keys_into(np.zeros((1, 4), dtype=np.uint32), 2, np.zeros(1, dtype=np.int64), np.empty((1, 2), dtype=np.uint64))
        from neardup_gui.core.methods._sortkernel import (
            contained_pairs,
            lookup_docs,
            radix_argsort,
            radix_runs,
            usable_counts,
        )
        from neardup_gui.core.methods.containment import load_intersection_kernel

        load_intersection_kernel()  # verified pairs' scores

        for index_type in (np.int32, np.int64):  # the containment index's sorts, probes and counts
            radix_argsort(np.array([3, 1, 2], dtype=np.uint64), np.empty(3, dtype=index_type))
            radix_runs(np.array([3, 1, 2], dtype=np.uint64), np.empty(3, dtype=index_type), np.empty(3, dtype=np.bool_))
            one, firsts = np.zeros(1, dtype=index_type), np.array([0, 1, 1])
            zeros = np.zeros(2, dtype=np.int64)
            usable_counts(one, firsts, one + 1, 5, zeros, zeros.copy())
            work = (np.zeros(1, dtype=np.uint8), np.zeros(2, dtype=np.int32), np.empty(2, dtype=np.int64))
            contained_pairs(0, 2, one, firsts, one, one + 1, one, 5, zeros, zeros.copy(), 2, *work)
        # a rescan's containment index brought up to date
        values, bits, starts = np.array([4], dtype=np.uint64), np.ones(1, dtype=np.uint64), np.array([0, 1, 1])
        lookup_docs(values, np.array([0, 1]), values, bits, np.uint64(58), starts, np.uint64(63))
        from neardup_gui.core.prepare import load_compiled

        load_compiled()
        from neardup_gui.io.fstat import load_kernel as load_stat_kernel

        load_stat_kernel()  # a rescan's walk (Linux only; elsewhere nothing to load)
        from neardup_gui.core.diffspans import load_kernel

        return load_kernel()  # the diff: pairs drawn in the window and aligned by a screen
    except Exception:  # numba missing or broken: screens use the numpy path, nothing to say
        log.debug("engine warm-up skipped", exc_info=True)
        return False


def cache_is_warm() -> bool:
    """Whether numba's cache seems to hold every kernel for the current sources (an index file no
    older than its source); a stale or missing one means numba would compile."""
    try:
        import numba
    except ImportError:
        return True  # nothing would compile
    core = Path(__file__).resolve().parent
    for source, pattern in _INDEXES:
        src = core / source
        root = Path(numba.config.CACHE_DIR) if numba.config.CACHE_DIR else src.parent / "__pycache__"
        try:
            stamp = src.stat().st_mtime
            found = [p for p in root.rglob(pattern) if p.stat().st_mtime >= stamp]
        except OSError:
            return False
        if not found:
            return False
    return True


def _compile_in_child() -> None:  # runs in the child process
    load_kernels()


def warm_up() -> bool:
    """``load_kernels``, compiling them in a child process first when the cache is cold."""
    if not cache_is_warm():
        try:
            child = multiprocessing.get_context("spawn").Process(
                target=_compile_in_child, name="neardup-compile", daemon=True
            )
            child.start()
            child.join(_CHILD_TIMEOUT_S)
            if child.is_alive():
                child.terminate()
            log.info("compiled kernels in a child process (exit code %s)", child.exitcode)
        except Exception:  # cannot spawn here: compile in this process
            log.warning("could not compile the kernels in a child process", exc_info=True)
    return load_kernels()


if __name__ == "__main__":  # pragma: no cover - a manual check: python -m neardup_gui.core.warmup
    print("cache warm:", cache_is_warm(), "loaded:", warm_up())
