"""Compiled kernel (numba) for ``io.fstat``: ``statx`` on many names of one folder, without the GIL.

``os.stat`` gives the GIL up for each system call and takes it back after it; beside another
thread that holds the interpreter (a rescan reads its cache while the folder is walked) taking it
back waits up to a switch interval, for every file. Here one call stats every name it is given:
the GIL is released once for the whole folder.

``statx`` (Linux 4.11, glibc 2.28) is called by its symbol name, so numba can cache the machine
code; its result is the same ``struct statx`` on every Linux architecture (``io.fstat`` reads it
with a numpy dtype). Imported lazily, like the other kernels, and only where the C library has
the symbol (``io.fstat`` checks first: numba's link of a missing one would abort the process).
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def _statx(typingctx, dirfd, path, flags, mask, buf):  # pragma: no cover - compiled
    """``int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *buf)``."""
    sig = types.int32(types.int32, types.voidptr, types.int32, types.uint32, types.voidptr)

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32), i8p, ir.IntType(32), ir.IntType(32), i8p])
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, "statx"), args)

    return sig, codegen


@njit(cache=True, nogil=True)
def statx_names(dirfd, names, starts, flags, mask, out, codes):  # pragma: no cover - compiled
    """``statx(dirfd, name_i, flags, mask, out[i])`` for each NUL-terminated name ``i`` of
    ``names`` (bytes from ``starts[i]``); ``codes[i]`` is its return value (0, or -1 on error)."""
    for i in range(starts.size - 1):
        codes[i] = _statx(dirfd, names[starts[i] :].ctypes.data, flags, mask, out[i].ctypes.data)
    return 0
