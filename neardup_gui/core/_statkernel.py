"""Compiled kernels (numba) for ``io.fstat``: ``statx`` on many names of one folder, a folder's
listing, and hard links of many names, each without the GIL.

``os.stat`` gives the GIL up for each system call and takes it back after it; beside another
thread that holds the interpreter (a rescan reads its cache while the folder is walked) taking it
back waits up to a switch interval, for every file. Here one call stats every name it is given:
the GIL is released once for the whole folder.

``statx`` (Linux 4.11, glibc 2.28) is called by its symbol name, so numba can cache the machine
code; its result is the same ``struct statx`` on every Linux architecture (``io.fstat`` reads it
with a numpy dtype). A folder is listed the same way: ``os.scandir`` gives the GIL up and takes it
back for every entry it yields (beside a busy thread, 100,000 names took seconds); ``list_names``
reads every entry with ``getdents64`` (glibc 2.30) in one call, and ``link_names`` makes many hard
links (``linkat``) in one call. Imported lazily, like the other kernels, and each called only
where the C library has its symbol (``io.fstat`` checks first: numba's link of a missing one
would abort the process).
"""

from __future__ import annotations

import numpy as np
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


@intrinsic
def _getdents64(typingctx, fd, buf, size):  # pragma: no cover - compiled
    """``ssize_t getdents64(int fd, void *buf, size_t size)``."""
    sig = types.int64(types.int32, types.voidptr, types.uint64)

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(32), i8p, ir.IntType(64)])
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, "getdents64"), args)

    return sig, codegen


@njit(cache=True, nogil=True)
def list_names(fd, buf, little, names, starts, kinds):  # pragma: no cover - compiled
    """Every entry of the open folder ``fd`` but ``.`` and ``..``, read with ``getdents64`` into
    ``buf``: entry ``i``'s name (its bytes, NUL-terminated) at ``names[starts[i]:]`` and its
    ``d_type`` in ``kinds[i]``. ``little``: the machine's byte order (``d_reclen`` is native).

    Returns the number of entries, -1 when ``getdents64`` failed, -2 when ``names`` or
    ``starts``/``kinds`` are too small (the folder's position is then past some entries: the
    caller starts again from the beginning with larger arrays)."""
    count = 0
    filled = 0
    while True:
        got = _getdents64(fd, buf.ctypes.data, buf.size)
        if got < 0:
            return -1
        if got == 0:
            return count
        at = 0
        while at < got:
            # struct linux_dirent64: u64 d_ino, s64 d_off, u16 d_reclen, u8 d_type, char d_name[]
            if little:
                reclen = np.int64(buf[at + 16]) | (np.int64(buf[at + 17]) << 8)
            else:
                reclen = (np.int64(buf[at + 16]) << 8) | np.int64(buf[at + 17])
            if reclen < 20 or at + reclen > got:  # not a record getdents64 writes
                return -1
            first = at + 19
            end = first
            while end < at + reclen and buf[end] != 0:
                end += 1
            length = end - first
            dots = (length == 1 and buf[first] == 46) or (length == 2 and buf[first] == 46 and buf[first + 1] == 46)
            if not dots:
                if count >= kinds.size or filled + length + 1 > names.size:
                    return -2
                starts[count] = filled
                kinds[count] = buf[at + 18]
                names[filled : filled + length] = buf[first:end]
                names[filled + length] = 0
                filled += length + 1
                count += 1
            at += reclen


@intrinsic
def _linkat(typingctx, olddirfd, oldpath, newdirfd, newpath, flags):  # pragma: no cover - compiled
    """``int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)``."""
    sig = types.int32(types.int32, types.voidptr, types.int32, types.voidptr, types.int32)

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(i32, [i32, i8p, i32, i8p, i32])
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, "linkat"), args)

    return sig, codegen


@njit(cache=True, nogil=True)
def link_names(src_fd, dst_fd, names, starts, codes):  # pragma: no cover - compiled
    """``linkat(src_fd, name_i, dst_fd, name_i, 0)`` for each NUL-terminated name ``i`` of
    ``names`` (bytes from ``starts[i]``): a hard link of the same name in another folder;
    ``codes[i]`` is its return value (0, or -1 on error)."""
    for i in range(starts.size - 1):
        at = names[starts[i] :].ctypes.data
        codes[i] = _linkat(src_fd, at, dst_fd, at, 0)
    return 0
