"""Compiled kernels (numba) for ``core.prepare``: one pass per batch of documents that normalizes,
hashes every k-character window, signs and samples, without the GIL.

The numpy path in ``core.prepare`` does the same in about twenty array operations per batch and a
Python loop per document; most of that holds the GIL, so two preparing threads gained little and
reading files (which holds the GIL too) could not overlap with them. Here one call per batch does
the work of those operations, and the GIL is held only to join the texts and to build the lists.

Same arithmetic as ``normalize.normalize_batch`` (the lookup table, documents needing the exact
path given already normalized), ``shingles.window_hashes`` (polynomial over the code points, then
the MurmurHash3 64-bit finalizer), ``minhash_lsh`` (the high 32 bits, the MurmurHash3 32-bit
finalizer, ``a * v + b`` modulo 2**32, minimum per permutation) and ``containment.sampled``;
``tests/core/test_prepare.py`` compares the two paths. Imported lazily, like the other kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# numba's cache does not notice a change in another module's function: fmix32 is fixed (datasketch's
# hash), but clear __pycache__ if it or sign_into is ever edited.
from neardup_gui.core.methods._sigkernel import fmix32, sign_into

_UNKNOWN = -3  # normalize._UNKNOWN
_COMPLEX = -2  # normalize._COMPLEX
_MULTI = -4  # normalize._MULTI


@njit(cache=True, nogil=True)
def scan_batch(cps, bounds, table, special):  # pragma: no cover - compiled
    """``special[d] = 1`` where document ``d`` holds a code point the table cannot map alone
    (combining marks, expansions). Returns how many code points are not in the table yet."""
    unknown = 0
    for d in range(bounds.size - 1):
        flag = 0
        for i in range(bounds[d], bounds[d + 1]):
            v = table[cps[i]]
            if v == _UNKNOWN:
                unknown += 1
            elif v == _COMPLEX or v == _MULTI:
                flag = 1
        special[d] = flag
    return unknown


@njit(cache=True, nogil=True)
def _fmix64(h):  # pragma: no cover - compiled
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


@njit(cache=True, nogil=True)
def _normalize_into(cps, lo, hi, table, given, norm, o):  # pragma: no cover - compiled
    """Append the normalized code points of ``cps[lo:hi]`` to ``norm`` from ``o`` (as they are
    when ``given``); returns the new end."""
    if given:
        for i in range(lo, hi):
            norm[o] = cps[i]
            o += 1
    else:
        for i in range(lo, hi):
            v = table[cps[i]]
            if v >= 0:
                norm[o] = v
                o += 1
    return o


@njit(cache=True, nogil=True)
def _window(norm, i, k, base):  # pragma: no cover - compiled
    """The hash of the window ``norm[i:i+k]`` alone (``shingles.window_hashes``)."""
    h = np.uint64(norm[i])
    for j in range(1, k):
        h = h * base + np.uint64(norm[i + j])
    return _fmix64(h)


@njit(cache=True, nogil=True)
def _windows_into(norm, lo, hi, k, base, windows, w):  # pragma: no cover - compiled
    """Append the hash of every window of ``norm[lo:hi]`` to ``windows`` from ``w``
    (``shingles.window_hashes``); returns the new end.

    The polynomial rolls: each window's is the last one's without its first code point, times the
    base, plus the next code point (2 multiplications a window instead of k - 1; modulo 2**64 the
    same value as computed afresh).
    """
    if hi - lo < k:
        return w
    lead = np.uint64(1)  # base ** (k - 1): the weight of a window's first code point
    for _ in range(k - 1):
        lead *= base
    h = np.uint64(0)
    for j in range(lo, lo + k - 1):
        h = h * base + np.uint64(norm[j])
    gone = np.uint64(0)  # the code point leaving the window (none before the first)
    for i in range(lo, hi - k + 1):
        h = (h - gone * lead) * base + np.uint64(norm[i + k - 1])
        gone = np.uint64(norm[i])
        windows[w] = _fmix64(h)
        w += 1
    return w


@njit(cache=True, nogil=True)
def _sort_unique(values, lo, hi):  # pragma: no cover - compiled
    """Sort ``values[lo:hi]`` in place, squeeze out repeats; returns the new end."""
    if hi - lo <= 1:
        return hi
    part = values[lo:hi]
    part.sort()
    end = lo + 1
    for i in range(lo + 1, hi):
        if values[i] != values[end - 1]:
            values[end] = values[i]
            end += 1
    return end


# Below this many values a sort is by comparisons; from it, by radix (``_sort_unique_positions``).
_RADIX_FROM = 512
_RADIX_BITS = 11


@njit(cache=True, nogil=True)
def _sort_unique_positions(values, lo, hi, tmp):  # pragma: no cover - compiled
    """``_sort_unique`` for non-negative int32 positions, by least significant digit radix passes of
    ``_RADIX_BITS`` (as many as the largest value needs); ``tmp``: scratch of at least ``hi - lo``.
    A long draft's hits on the boilerplate candidates (~19,000 positions below ~3 million) took
    ~70 ns a position to sort by comparisons, more than finding them."""
    n = hi - lo
    if n < _RADIX_FROM:
        return _sort_unique(values, lo, hi)
    top = 0
    for i in range(lo, hi):
        if values[i] > top:
            top = values[i]
    buckets = 1 << _RADIX_BITS
    mask = buckets - 1
    counts = np.empty(buckets, dtype=np.int64)
    src, dst = values[lo:hi], tmp[:n]
    shift = 0
    while shift == 0 or (top >> shift) > 0:
        counts[:] = 0
        for i in range(n):
            counts[(src[i] >> shift) & mask] += 1
        total = 0
        for b in range(buckets):
            c = counts[b]
            counts[b] = total
            total += c
        for i in range(n):
            v = src[i]
            b = (v >> shift) & mask
            dst[counts[b]] = v
            counts[b] += 1
        src, dst = dst, src
        shift += _RADIX_BITS
    end = 0
    for i in range(n):  # squeezed from wherever the last pass left them, into values[lo:]
        v = src[i]
        if i == 0 or v != values[lo + end - 1]:
            values[lo + end] = v
            end += 1
    return lo + end


@njit(cache=True, nogil=True)
def prepare_batch(
    cps, bounds, table, given, k, base, a, b, sample,
    norm, norm_bounds, windows, win_bounds, sigs, samples, sample_bounds,
):  # pragma: no cover - compiled  # fmt: skip
    """Normalize, hash windows, sign and sample every document of a batch.

    Args:
        cps, bounds: Raw code points of the batch; document ``d`` is ``cps[bounds[d]:bounds[d+1]]``.
        table: ``normalize.lookup_table(options).values`` (every code point of ``cps`` filled in).
        given: ``given[d] = 1``: the code points of ``d`` are normalized already (exact path).
        k, base: Window length and polynomial base (``shingles``).
        a, b: MinHash permutations (uint32).
        sample: The containment sampling class (``containment.sampled``).
        norm, norm_bounds: Out: normalized code points and each document's range in them.
        windows, win_bounds: Out: window hashes in text order (duplicates kept) and ranges.
        sigs: Out: one signature row per document (all 0xFFFFFFFF for a document without windows).
        samples, sample_bounds: Out: per document, its sampled hashes sorted and unique.
    """
    power_of_two = sample > 1 and (sample & (sample - 1)) == 0
    mask = np.uint64(sample - 1) if sample > 1 else np.uint64(0)
    modulus = np.uint64(sample) if sample > 1 else np.uint64(1)
    values = np.empty(windows.size, dtype=np.uint32)  # the hashed values each signature takes
    o = 0
    w = 0
    s = 0
    for d in range(bounds.size - 1):
        start = o
        norm_bounds[d] = start
        o = _normalize_into(cps, bounds[d], bounds[d + 1], table, given[d], norm, o)
        win_bounds[d] = w
        sample_bounds[d] = s
        w = _windows_into(norm, start, o, k, base, windows, w)
        # Separate passes over the new windows: the rolling hash's chain is not held up by these.
        for i in range(win_bounds[d], w):
            values[i] = fmix32(np.uint32(windows[i] >> np.uint64(32)))
        for i in range(win_bounds[d], w):
            h = windows[i]
            if sample <= 1 or (power_of_two and (h & mask) == 0) or (not power_of_two and h % modulus == 0):
                samples[s] = h
                s += 1
        s = _sort_unique(samples, sample_bounds[d], s)
        sign_into(values[win_bounds[d] : w], a, b, sigs[d])
    n = bounds.size - 1
    norm_bounds[n] = o
    win_bounds[n] = w
    sample_bounds[n] = s


@njit(cache=True, nogil=True)
def batch_hits(windows, win_bounds, boiler, prefilter, out, out_bounds):  # pragma: no cover - compiled
    """Per document, the sorted unique positions in ``boiler`` (sorted) of its window hashes;
    ``prefilter`` (``prepare._prefilter``: 2^bits + 1 offsets) gives the candidates that share a
    hash's top bits, the only ones it can equal (most often none)."""
    bits = 0
    while (1 << (bits + 1)) <= prefilter.size - 1:
        bits += 1
    shift = np.uint64(64 - bits)
    most = 0
    for d in range(win_bounds.size - 1):
        most = max(most, win_bounds[d + 1] - win_bounds[d])
    tmp = np.empty(most, dtype=out.dtype)
    o = 0
    for d in range(win_bounds.size - 1):
        out_bounds[d] = o
        for i in range(win_bounds[d], win_bounds[d + 1]):
            h = windows[i]
            t = np.int64(h >> shift)
            for pos in range(prefilter[t], prefilter[t + 1]):
                if boiler[pos] >= h:
                    if boiler[pos] == h:
                        out[o] = pos
                        o += 1
                    break
        o = _sort_unique_positions(out, out_bounds[d], o, tmp)
    out_bounds[win_bounds.size - 1] = o


@njit(cache=True, nogil=True)
def window_batch(cps, bounds, table, given, k, base, norm, windows, win_bounds):  # pragma: no cover - compiled
    """``prepare_batch``'s normalization and window hashes only (no signature, no sample): the
    shingle sets of the documents being verified. ``norm`` is scratch space here."""
    w = 0
    for d in range(bounds.size - 1):
        o = _normalize_into(cps, bounds[d], bounds[d + 1], table, given[d], norm, 0)
        win_bounds[d] = w
        w = _windows_into(norm, 0, o, k, base, windows, w)
    win_bounds[bounds.size - 1] = w


@njit(cache=True, nogil=True)
def _insertion_sort(values, lo, hi):  # pragma: no cover - compiled
    for i in range(lo + 1, hi):
        v = values[i]
        j = i - 1
        while j >= lo and values[j] > v:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v


@njit(cache=True, nogil=True)
def _sorted_set_into(values, lo, hi, out, o, counts, tmp):  # pragma: no cover - compiled
    """Append the sorted distinct values of ``values[lo:hi]`` to ``out`` from ``o``; returns the new
    end (``out`` may be ``values``: everything is read into ``tmp`` before ``out`` is written).

    Window hashes are uniform 64-bit values, so one counting pass over their top bits spreads n of
    them over about n buckets of one or two, which insertion sorts in place; a crowded bucket (a
    text repeating one window, say) is sorted whole. ~5x faster than ``np.sort`` on 1,500 hashes.
    """
    n = hi - lo
    if n == 0:
        return o
    bits = 1
    while (1 << bits) < n:
        bits += 1
    buckets = 1 << bits
    shift = np.uint64(64 - bits)
    for b in range(buckets + 1):
        counts[b] = 0
    for i in range(lo, hi):
        counts[np.int64(values[i] >> shift) + 1] += 1
    for b in range(buckets):
        counts[b + 1] += counts[b]  # now the start of each bucket
    for i in range(lo, hi):
        b = np.int64(values[i] >> shift)
        tmp[counts[b]] = values[i]
        counts[b] += 1  # ends as the end of the bucket
    start = 0
    for b in range(buckets):
        end = counts[b]
        if end - start > 16:
            tmp[start:end].sort()
        elif end - start > 1:
            _insertion_sort(tmp, start, end)
        start = end
    out[o] = tmp[0]
    o += 1
    for i in range(1, n):
        if tmp[i] != tmp[i - 1]:
            out[o] = tmp[i]
            o += 1
    return o


@njit(cache=True, nogil=True)
def sorted_sets(windows, win_bounds, out_bounds):  # pragma: no cover - compiled
    """Turn each document's window hashes (``windows[win_bounds[d]:win_bounds[d+1]]``) into its
    sorted set, in place: document ``d``'s set is then ``windows[out_bounds[d]:out_bounds[d+1]]``."""
    longest = 0
    for d in range(win_bounds.size - 1):
        longest = max(longest, win_bounds[d + 1] - win_bounds[d])
    counts = np.empty(2 * longest + 2, dtype=np.int64)
    tmp = np.empty(max(longest, 1), dtype=np.uint64)
    o = 0
    for d in range(win_bounds.size - 1):
        out_bounds[d] = o
        o = _sorted_set_into(windows, win_bounds[d], win_bounds[d + 1], windows, o, counts, tmp)
    out_bounds[win_bounds.size - 1] = o


@njit(cache=True, nogil=True)
def _digest_lane1(x):  # pragma: no cover - compiled
    """``exact._lane1``: MurmurHash3's fmix64 of x * K1."""
    y = x * np.uint64(0x9E3779B97F4A7C15)
    y ^= y >> np.uint64(33)
    y *= np.uint64(0xFF51AFD7ED558CCD)
    y ^= y >> np.uint64(33)
    y *= np.uint64(0xC4CEB9FE1A85EC53)
    return y ^ (y >> np.uint64(33))


@njit(cache=True, nogil=True)
def _digest_lane2(x):  # pragma: no cover - compiled
    """``exact._lane2``: SplitMix64's mix of x + K2."""
    z = x + np.uint64(0xD6E8FEB86659FD93)
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def batch_digests(norm, norm_bounds, out):  # pragma: no cover - compiled
    """``out[d]``: the two lanes of ``exact.normalized_digests`` for ``norm[norm_bounds[d]:
    norm_bounds[d + 1]]`` (the same arithmetic, one pass)."""
    for d in range(norm_bounds.size - 1):
        lo, hi = norm_bounds[d], norm_bounds[d + 1]
        a = np.uint64(0)
        b = np.uint64(0)
        for i in range(lo, hi):
            x = (np.uint64(i - lo) << np.uint64(32)) | np.uint64(norm[i])
            a += _digest_lane1(x)
            b += _digest_lane2(x)
        n = np.uint64(hi - lo)
        out[d, 0] = _digest_lane1(a ^ n)
        out[d, 1] = _digest_lane2(b + n)
