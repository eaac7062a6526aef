"""Stat'ing many files under one folder in one compiled call, the GIL released once for all.

A rescan walks the source folder while another thread reads the prepare cache (pure Python most
of the time). ``os.stat`` gives the GIL up for each file and waits to take it back, up to a
switch interval when that thread holds it: the walk's 100,000 stats took 1.3-1.6 s there against
~0.3 s of system time. ``stat_regular`` stats names (or relative paths) under a folder with
``statx`` in one call of the compiled kernel (``core._statkernel``), which holds no GIL, and gives the same values
``os.stat`` gives (``walk.file_stamp``: size, times in nanoseconds, inode, device; the float
modification time computed as CPython computes it).

Linux only (``statx``, glibc 2.28). Elsewhere, without numba, or when the kernel cannot run, it
returns None and the caller stats each file with ``os.stat``. Each call also checks one of its
results against ``os.stat``: a disagreement (a file system that fills ``statx`` otherwise) turns
the batch path off for the process, and the log says so.

Must not import Qt.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import sys
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from neardup_gui.core.machine import usable_cores
from neardup_gui.core.progress import list_giving_way

log = logging.getLogger(__name__)

__all__ = [
    "BATCH_MIN", "DT_DIR", "DT_LNK", "DT_REG", "DT_UNKNOWN", "batch_available", "link_batch_available",
    "link_same_names", "list_folder", "stamps_regular", "stat_columns", "stat_regular",
]  # fmt: skip

# Fewer names than this are stat'ed one by one (the batch's arrays cost ~20 µs to set up).
BATCH_MIN = 16

# struct statx (linux/stat.h): the same layout on every architecture Linux runs on.
_STATX = np.dtype([
    ("mask", "u4"), ("blksize", "u4"), ("attributes", "u8"), ("nlink", "u4"), ("uid", "u4"), ("gid", "u4"),
    ("mode", "u2"), ("spare0", "u2"), ("ino", "u8"), ("size", "u8"), ("blocks", "u8"), ("attributes_mask", "u8"),
    ("atime_s", "i8"), ("atime_ns", "u4"), ("atime_pad", "i4"), ("btime_s", "i8"), ("btime_ns", "u4"),
    ("btime_pad", "i4"), ("ctime_s", "i8"), ("ctime_ns", "u4"), ("ctime_pad", "i4"), ("mtime_s", "i8"),
    ("mtime_ns", "u4"), ("mtime_pad", "i4"), ("rdev_major", "u4"), ("rdev_minor", "u4"), ("dev_major", "u4"),
    ("dev_minor", "u4"), ("spare", "u8", (14,)),
])  # fmt: skip
assert _STATX.itemsize == 256
# STATX_TYPE | STATX_MODE | STATX_MTIME | STATX_CTIME | STATX_INO | STATX_SIZE: what a stamp needs
_NEEDED = 0x1 | 0x2 | 0x40 | 0x80 | 0x100 | 0x200
_BASIC_STATS = 0x7FF
_S_IFMT, _S_IFREG = 0o170000, 0o100000
# Times past this many seconds from 1970 (year 2255) do not fit int64 nanoseconds: os.stat's then.
_MAX_SECONDS = 9_000_000_000

_disabled = False
_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()


@functools.lru_cache(maxsize=1)
def _kernel() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:  # a C library without statx (glibc before 2.28): numba's link would abort the process
        ctypes.CDLL(None).statx  # noqa: B018 - the lookup is the check
    except (AttributeError, OSError):
        log.info("no statx in this C library; each file is stat'ed on its own")
        return None
    from neardup_gui.core.compiled import kernel_module

    return kernel_module("_statkernel", "os.stat per file")


@functools.lru_cache(maxsize=None)
def _kernel_with(symbol: str) -> Any:
    """The kernel module when the C library also has ``symbol`` (``getdents64``: glibc 2.30;
    ``linkat``), else None: numba's link of a missing symbol would abort the process."""
    kernel = _kernel()
    if kernel is None:
        return None
    try:
        getattr(ctypes.CDLL(None), symbol)
    except (AttributeError, OSError):
        log.info("no %s in this C library; the call is made per file or entry instead", symbol)
        return None
    return kernel


def _lister() -> Any:
    return _kernel_with("getdents64")


def _linker() -> Any:
    return _kernel_with("linkat")


_links_disabled = False


def link_batch_available() -> bool:
    """Whether ``link_same_names`` can link in one call here (else it returns None)."""
    return not _links_disabled and _linker() is not None


def link_same_names(source_fd: int, target_fd: int, names: Sequence[str]) -> np.ndarray | None:
    """Hard-link each of ``names`` in the folder open as ``source_fd`` to the same name in the
    folder open as ``target_fd``, in one call that holds no GIL (``os.link`` gives it up and
    takes it back for every file: beside a busy thread, each waited its turn).

    Returns per name whether its link was made (False: it failed, e.g. the source is gone or the
    file system has no hard links; the caller links or writes that one itself), or None when it
    cannot be done here (the caller links each file with ``os.link``).
    """
    kernel = _linker() if not _links_disabled else None
    if kernel is None or not names:
        return None if kernel is None else np.zeros(0, dtype=bool)
    encoded = _encoded(names)
    if encoded is None:
        return None
    joined, starts = encoded
    codes = np.full(len(names), -1, dtype=np.int32)
    try:
        kernel.link_names(np.int32(source_fd), np.int32(target_fd), joined, starts, codes)
    except Exception as exc:  # the compiled call could not be made
        _turn_off_links(f"the compiled call failed: {exc}")
        return None
    return codes == 0


def _turn_off_links(why: str) -> None:
    global _links_disabled
    if not _links_disabled:
        log.warning("hard links in one call turned off (%s); each file is linked on its own", why)
    _links_disabled = True


def batch_available() -> bool:
    """Whether ``stat_regular`` can stat in one call here (else it returns None)."""
    return not _disabled and _kernel() is not None


# d_type values of a listed entry (dirent.h): what the file system says the entry is, without a stat
DT_UNKNOWN, DT_DIR, DT_REG, DT_LNK = 0, 4, 8, 10
_listing_checked = False
_listing_disabled = False
_LIST_BUFFER = 1 << 16  # bytes a getdents64 call fills (glibc's readdir asks for 32 KB)
# Entries of the folder whose listing is checked against ``os.listdir`` (once a process; not a
# large one: os.listdir gives the GIL up for every entry, as os.scandir does)
_CHECK_MAX = 4096
# The first arrays for a folder's names (bytes) and entries, made four times larger while too small
_LIST_ROOM, _LIST_COUNT = 1 << 16, 4096


def list_folder(folder: str) -> tuple[list[str], np.ndarray] | None:
    """Every entry of ``folder`` but ``.`` and ``..``, listed in one call that holds no GIL: the
    names (as ``os.scandir`` gives them: decoded with the file system's encoding and error
    handler) sorted, and per name its ``d_type`` (``DT_REG``, ``DT_DIR``, ``DT_LNK``, another
    kind, or ``DT_UNKNOWN`` where the file system does not say: the caller stats such an entry).

    None when it cannot be done here (not Linux, no numba or no ``getdents64``, or a listing
    that disagreed with ``os.listdir``, which the first folder of at most ``_CHECK_MAX`` entries
    listed in a process is checked against: the rest of the process then lists by ``os.scandir``)
    or when the folder cannot be opened or read: the caller lists it with ``os.scandir``, which
    says why it cannot.
    """
    global _listing_checked
    kernel = _lister() if not _listing_disabled else None
    if kernel is None:
        return None
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        got = _list_fd(kernel, fd)
    except Exception as exc:  # the compiled call could not be made
        _turn_off_listing(f"the compiled listing failed: {exc}")
        return None
    finally:
        os.close(fd)
    if got is None:
        return None
    names, kinds = got
    order = sorted(range(len(names)), key=names.__getitem__)
    names = list(map(names.__getitem__, order))
    kinds = kinds[np.array(order, dtype=np.int64)]
    if not _listing_checked and len(names) <= _CHECK_MAX:  # once a process: the names os.listdir says
        _listing_checked = True
        try:
            listed = sorted(os.listdir(folder))
        except OSError:
            listed = names
        if listed != names:
            _turn_off_listing(f"the compiled listing of {folder!r} disagrees with os.listdir")
            return None
    return names, kinds


def _list_fd(kernel: Any, fd: int) -> tuple[list[str], np.ndarray] | None:
    """The kernel's listing of the open folder ``fd``: its names (unsorted) and kinds, or None
    when ``getdents64`` failed; read again from the start with larger arrays while they are too
    small."""
    buf = np.empty(_LIST_BUFFER, dtype=np.uint8)
    room, count = _LIST_ROOM, _LIST_COUNT
    little = sys.byteorder == "little"
    while True:
        names = np.empty(room, dtype=np.uint8)
        starts = np.empty(count, dtype=np.int64)
        kinds = np.empty(count, dtype=np.uint8)
        n = kernel.list_names(np.int32(fd), buf, little, names, starts, kinds)
        if n == -1:
            return None
        if n >= 0:
            break
        room, count = room * 4, count * 4
        os.lseek(fd, 0, os.SEEK_SET)  # a folder's listing starts again from its first entry
    if n == 0:
        return [], np.zeros(0, dtype=np.uint8)
    end = int(starts[n - 1]) + int(np.flatnonzero(names[starts[n - 1] :] == 0)[0])
    # one decode for every name: NUL ends each name and is never part of one (nor of a UTF-8
    # sequence), so each name decodes as os.fsdecode decodes it alone
    text = names[:end].tobytes().decode(_FS_ENCODING, _FS_ERRORS)
    return text.split("\0"), kinds[:n].copy()


def _turn_off_listing(why: str) -> None:
    global _listing_disabled
    if not _listing_disabled:
        log.warning("listing folders in one call turned off (%s); they are listed by os.scandir", why)
    _listing_disabled = True


def _encoded(names: Sequence[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """``os.fsencode`` of each name, joined, each NUL-terminated, and where each starts (then the
    end); None when a name cannot be encoded or holds a NUL (not a name a listing gives)."""
    try:
        joined = np.frombuffer(("\0".join(names) + "\0").encode(_FS_ENCODING, _FS_ERRORS), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    starts = np.zeros(len(names) + 1, dtype=np.int64)
    starts[1:] = np.flatnonzero(joined == 0) + 1
    if starts.size != len(names) + 1 or starts[-1] != joined.size:
        return None
    return joined, starts


def _turn_off(why: str) -> None:
    global _disabled
    if not _disabled:
        log.warning("stat'ing many files in one call turned off (%s); each file is stat'ed on its own", why)
    _disabled = True


def _makedev(major: np.ndarray, minor: np.ndarray) -> np.ndarray:
    """glibc's ``makedev`` (what ``st_dev`` holds) of ``statx``'s device major and minor."""
    ma, mi = major.astype(np.uint64), minor.astype(np.uint64)
    return (
        ((ma & np.uint64(0xFFFFF000)) << np.uint64(32))
        | ((ma & np.uint64(0x00000FFF)) << np.uint64(8))
        | ((mi & np.uint64(0xFFFFFF00)) << np.uint64(12))
        | (mi & np.uint64(0x000000FF))
    )


Row = tuple[int, float, tuple[int, int, int, int, int]]
Stamp = tuple[int, int, int, int, int]

# From this many names, a call is split between two threads where two cores are usable: each
# ``statx`` of a relative path takes ~2 µs of system time (100,000 files: 0.2 s on one core).
SPLIT_MIN = 8192


def stat_regular(folder: str, names: Sequence[str]) -> list[Row | None] | None:
    """Stat each of ``names`` (names or relative paths) under ``folder`` (links followed, as
    ``os.stat``) in one call.

    Returns None when that cannot be done here (the caller stats each file itself), else per name
    ``(size, mtime, file_stamp)`` as ``os.stat`` would give them for a regular file, or None when
    the name is not a regular file or its stat failed or was incomplete (the caller stats that
    one itself, to say what it is or why it failed).
    """
    got = stat_columns(folder, names)
    if got is None:
        return None
    sizes, mtimes, stamps, bad = got
    rows: list[Row | None] = list_giving_way(zip(sizes, mtimes, stamps))
    for n in bad:
        rows[n] = None
    return rows


def stamps_regular(folder: str, names: Sequence[str]) -> list[Stamp | None] | None:
    """``stat_regular``'s ``file_stamp`` alone: per name, its stamp or None (the same cases)."""
    got = stat_columns(folder, names, with_mtimes=False)
    if got is None:
        return None
    _, _, stamps, bad = got
    out: list[Stamp | None] = list(stamps)
    for n in bad:
        out[n] = None
    return out


def stat_columns(
    folder: str, names: Sequence[str], with_mtimes: bool = True
) -> tuple[list[int], list[float], list[Stamp], list[int]] | None:
    """``stat_regular``'s values as columns: per name its size, float mtime (none unless
    ``with_mtimes``) and stamp, and the indexes of the names that are not regular files or whose
    stat failed or was incomplete (their values are not to be used); None as ``stat_regular``."""
    kernel = _kernel() if not _disabled else None
    if kernel is None or not names:
        return None
    encoded = _encoded(names)
    if encoded is None:
        return None
    joined, starts = encoded
    raw = np.empty((len(names), _STATX.itemsize), dtype=np.uint8)
    codes = np.full(len(names), -1, dtype=np.int32)
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        _run(kernel, fd, joined, starts, raw, codes)
    except Exception as exc:  # e.g. no statx symbol in this C library: numba cannot link the call
        _turn_off(f"the compiled statx call failed: {exc}")
        return None
    finally:
        os.close(fd)
    st = raw.view(_STATX)[:, 0]
    good = (
        (codes == 0)
        & ((st["mask"] & _NEEDED) == _NEEDED)
        & ((st["mode"] & _S_IFMT) == _S_IFREG)
        & (np.abs(st["mtime_s"]) < _MAX_SECONDS)
        & (np.abs(st["ctime_s"]) < _MAX_SECONDS)
    )
    billion = np.int64(1_000_000_000)
    mtime_ns = st["mtime_s"] * billion + st["mtime_ns"].astype(np.int64)
    ctime_ns = st["ctime_s"] * billion + st["ctime_ns"].astype(np.int64)
    sizes = st["size"].tolist()
    # Tuples made by zip (in C): a comprehension building them took ~0.23 s at 100,000 files.
    devices = _makedev(st["dev_major"], st["dev_minor"]).tolist()
    stamps = list_giving_way(zip(sizes, mtime_ns.tolist(), ctime_ns.tolist(), st["ino"].tolist(), devices))
    # CPython: st_mtime = sec + nsec * 1e-9, in doubles
    mtimes = st["mtime_s"].astype(np.float64) + st["mtime_ns"].astype(np.float64) * 1e-9
    ok = np.flatnonzero(good)
    first = int(ok[0]) if ok.size else None
    row = (sizes[first], float(mtimes[first]), stamps[first]) if first is not None else None
    if not _agrees(folder, names, first, row):
        return None
    return sizes, mtimes.tolist() if with_mtimes else [], stamps, np.flatnonzero(~good).tolist()


def _run(kernel: Any, fd: int, joined: np.ndarray, starts: np.ndarray, raw: np.ndarray, codes: np.ndarray) -> None:
    """The kernel over every name: on two threads from ``SPLIT_MIN`` names where two cores are
    usable (it holds no GIL), else on this one."""
    n = codes.size
    if n < SPLIT_MIN or usable_cores() < 2:
        kernel.statx_names(np.int32(fd), joined, starts, np.int32(0), np.uint32(_BASIC_STATS), raw, codes)
        return
    half = n // 2
    failed: list[BaseException] = []

    def second() -> None:
        try:
            kernel.statx_names(np.int32(fd), joined, starts[half:], np.int32(0), np.uint32(_BASIC_STATS),
                               raw[half:], codes[half:])  # fmt: skip
        except BaseException as exc:  # re-raised on this thread
            failed.append(exc)

    other = threading.Thread(target=second, name="neardup-statx", daemon=True)
    other.start()
    try:
        kernel.statx_names(np.int32(fd), joined, starts[: half + 1], np.int32(0), np.uint32(_BASIC_STATS),
                           raw[:half], codes[:half])  # fmt: skip
    finally:
        other.join()
    if failed:
        raise failed[0]


def _agrees(folder: str, names: Sequence[str], first: int | None, row: Row | None) -> bool:
    """Whether ``os.stat`` says the same of the first regular file (``first``, with its ``row``)
    as the call did, or, when no name is one, also finds the first name no regular file; turns
    the batch off if not."""
    from neardup_gui.io.walk import file_stamp  # walk imports this module

    st = _stat_or_none(os.path.join(folder, names[0 if first is None else first]))
    if st is None:
        return True  # gone meanwhile: nothing to compare; the check after the run sees it
    if first is None or row is None:
        if (st.st_mode & _S_IFMT) != _S_IFREG:
            return True
        _turn_off("statx failed where os.stat did not")  # e.g. a kernel before 4.11 under an old glibc
        return False
    if (st.st_size, st.st_mtime, file_stamp(st)) == row or (st.st_ctime_ns, st.st_ino) != (row[2][2], row[2][3]):
        return True  # the same, or written or replaced between the two stats (no verdict then)
    _turn_off(f"statx and os.stat disagree on {os.path.join(folder, names[first])!r}")
    return False


def _stat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def load_kernel() -> bool:
    """Load (or compile) the compiled stat, listing and links once, through the paths their
    callers take; whether the stat can be used here (``core.warmup``: a rescan's walk and its
    links then find them loaded)."""
    if _kernel() is None:
        return False
    here = os.path.abspath(__file__)
    stat_regular(os.path.dirname(here), [os.path.basename(here)])
    list_folder(os.path.dirname(here))
    try:  # a link of a name that is not there: nothing made, the machine code loaded
        fd = os.open(os.path.dirname(here), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return batch_available()
    try:
        link_same_names(fd, fd, [".neardup-no-such-file"])
    finally:
        os.close(fd)
    return batch_available()
