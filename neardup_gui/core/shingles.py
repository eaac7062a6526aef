"""Character k-gram shingles as sorted arrays of 64-bit hashes.

A document's shingle set is the set of all windows of ``k`` consecutive normalized characters.
It is kept as a sorted, duplicate-free uint64 array (8 bytes a shingle, where a Python set of
strings costs ~125), computed with a polynomial hash over the code points in numpy:

- for k <= 3 the base is 2**21 (code points fit in 21 bits), so the polynomial packs the window
  exactly: distinct shingles never share a value;
- for larger k the base is a fixed odd 64-bit constant (arithmetic modulo 2**64).

The packed value is then passed through the MurmurHash3 64-bit finalizer (a bijection) so the bits are
well mixed for MinHash and for hash sampling. With 64-bit values, two different shingles collide with
probability about 2**-64 per pair, so Jaccard computed on these arrays is exact for any practical
corpus.

Imports only numpy.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "window_base",
    "window_hashes",
    "shingle_set",
    "shingle_sets",
    "sorted_unique",
    "window_buffer",
    "window_lists",
    "fmix64",
    "minhash_values",
    "shingle_strings",
    "first_shared",
]

_BASE_SMALL = np.uint64(1 << 21)
_BASE_LARGE = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)
_S32 = np.uint64(32)


def fmix64(h: np.ndarray) -> np.ndarray:
    """MurmurHash3 64-bit finalizer, elementwise (a bijection on uint64)."""
    h = h ^ (h >> _S33)
    h = h * _M1
    h = h ^ (h >> _S33)
    h = h * _M2
    return h ^ (h >> _S33)


def window_base(k: int) -> np.uint64:
    """The polynomial's base for windows of ``k`` characters (exact packing up to k = 3)."""
    return _BASE_SMALL if k <= 3 else _BASE_LARGE


def window_hashes(cps: np.ndarray, k: int) -> np.ndarray:
    """Hash of every k-character window, in text order (position i covers ``cps[i:i+k]``).

    Args:
        cps: Normalized code points (uint32).
        k: Window length in characters, 1..32.

    Returns:
        uint64 array of length ``max(0, len(cps) - k + 1)``.
    """
    n = int(cps.size) - k + 1
    if n <= 0:
        return np.zeros(0, dtype=np.uint64)
    c = cps.astype(np.uint64)
    base = window_base(k)
    with np.errstate(over="ignore"):
        h = c[:n].copy()
        for j in range(1, k):
            h *= base
            h += c[j : j + n]
        return fmix64(h)


def sorted_unique(h: np.ndarray) -> np.ndarray:
    """A sorted, duplicate-free copy of ``h`` (sort + mask: much faster than ``np.unique``)."""
    h = np.sort(h)
    if h.size <= 1:
        return h
    keep = np.empty(h.size, dtype=bool)
    keep[0] = True
    np.not_equal(h[1:], h[:-1], out=keep[1:])
    return h[keep]


def shingle_set(cps: np.ndarray, k: int) -> np.ndarray:
    """Sorted, duplicate-free shingle hashes of one document (uint64)."""
    return sorted_unique(window_hashes(cps, k))


def minhash_values(hashes: np.ndarray) -> np.ndarray:
    """The 32-bit values MinHash is computed from (the high half of each 64-bit shingle hash).

    These are the values to feed ``datasketch.MinHash(hashfunc=lambda v: v)`` to obtain identical
    signatures.
    """
    return (hashes >> _S32).astype(np.uint32)


def shingle_strings(text: str, hashes_in_order: np.ndarray, wanted: np.ndarray, k: int, limit: int) -> list[str]:
    """Up to ``limit`` distinct shingles of ``text`` whose hash is in ``wanted``, in text order.

    Args:
        text: The normalized text the window hashes were computed on.
        hashes_in_order: ``window_hashes`` of that text.
        wanted: Sorted hashes to pick (e.g. the intersection with another document).
        k: Window length.
        limit: Maximum number of strings returned.
    """
    if wanted.size == 0 or hashes_in_order.size == 0:
        return []
    idx = np.searchsorted(wanted, hashes_in_order)
    idx[idx >= wanted.size] = 0
    hit = np.flatnonzero(wanted[idx] == hashes_in_order)
    out: list[str] = []
    seen: set[str] = set()
    for pos in hit.tolist():
        s = text[pos : pos + k]
        if s not in seen:
            seen.add(s)
            out.append(s)
            if len(out) >= limit:
                break
    return out


def window_buffer(cps_list: list[np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Window hashes of many documents in one buffer: ``(windows, lo, hi)``.

    Document ``i``'s windows (text order, duplicates kept) are ``windows[lo[i]:hi[i]]``; entries
    outside every range span two documents and belong to none.
    """
    lengths = np.fromiter((c.size for c in cps_list), dtype=np.int64, count=len(cps_list))
    bounds = np.zeros(len(cps_list) + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    windows = window_hashes(np.concatenate(cps_list), k) if cps_list else np.zeros(0, dtype=np.uint64)
    lo = bounds[:-1]
    hi = np.maximum(bounds[1:] - k + 1, lo)
    return windows, lo, hi


def window_lists(cps_list: list[np.ndarray], k: int) -> list[np.ndarray]:
    """``window_hashes`` of many documents (in text order, duplicates kept), hashed in one pass.

    What needs no set (MinHash minima, a sample to be sorted later) skips the sort this way; the
    arrays are views into one buffer.
    """
    if not cps_list:
        return []
    lengths = np.fromiter((c.size for c in cps_list), dtype=np.int64, count=len(cps_list))
    bounds = np.zeros(len(cps_list) + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    windows = window_hashes(np.concatenate(cps_list), k)
    empty = np.zeros(0, dtype=np.uint64)
    return [
        windows[lo : hi - k + 1] if hi - k + 1 > lo else empty
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist())
    ]


def first_shared(text: str, cps: np.ndarray, other: np.ndarray, k: int, limit: int) -> list[str]:
    """Up to ``limit`` distinct shingles of ``text`` that are also in ``other``, in text order.

    The same as ``shingle_strings(text, window_hashes(cps, k), intersection, k, limit)``, but the
    windows are hashed and looked up a growing block at a time from the start, so two near copies
    (the usual pair) stop after the first few hundred characters.

    Args:
        text: A normalized text; ``cps`` its code points.
        other: The sorted shingle hashes of the other document.
        k, limit: Window length; most strings returned.
    """
    out: list[str] = []
    if other.size == 0:
        return out
    seen: set[str] = set()
    n = int(cps.size) - k + 1
    start, block = 0, 256
    while start < n and len(out) < limit:
        stop = min(n, start + block)
        windows = window_hashes(cps[start : stop + k - 1], k)
        idx = np.searchsorted(other, windows)
        idx[idx >= other.size] = 0
        for pos in np.flatnonzero(other[idx] == windows).tolist():
            piece = text[start + pos : start + pos + k]
            if piece not in seen:
                seen.add(piece)
                out.append(piece)
                if len(out) >= limit:
                    break
        start, block = stop, block * 4
    return out


def shingle_sets(cps_list: list[np.ndarray], k: int) -> list[np.ndarray]:
    """``shingle_set`` of many documents, hashing their concatenation in one pass."""
    return [sorted_unique(w) if w.size else w for w in window_lists(cps_list, k)]
