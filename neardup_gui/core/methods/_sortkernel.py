"""Compiled kernels (numba) of the containment index: a stable argsort of unsigned 64-bit keys (a
radix sort, also used for the LSH bands; the index's own leaves the keys as they are and marks
their runs instead, ``radix_runs``), the postings from the sorted order, the pairs found per
document, and the lookup of a few keys among every document's samples (a rescan bringing the index
up to date); and the size of the intersection of two sorted sets (every verified pair's exact
scores).

The pairs (``contained_pairs``) are found per document, as ``containment_pairs``' numpy rounds find
them per round, but each candidate is counted as soon as it is found, against the document's keys
marked in a table, rather than listed with every other and counted pair by pair from the two
documents' samples; and a candidate must be met on a few more of the document's rarest samples
than the pigeonhole alone asks, so the many documents that share a single sample with it by
chance are never counted. The samples a document holds alone come first among its rarest and join
it with nothing, so only its shared samples are sorted. The same pairs as the numpy rounds; at
100,000 documents, k = 3 (common samples): 4.6-5.1 s -> ~1.1 s for the whole index (probes, then
~3 million pairs counted by merging, before); k = 5 and 7 unchanged (~0.7 s).

``np.argsort`` of 9.5 million shingle hashes (the containment index at 100,000 documents) takes
~1.9 s here. A least-significant-digit radix sort over the whole array took ~0.49 s: each pass
scatters every key to one of thousands of places in memory. Here a first pass on the highest bits
that vary scatters the keys into buckets of a few thousand (most significant digit first), and
each bucket is then sorted on its remaining bits by LSD passes while it sits in the cache: ~0.30 s
(``bench/bench_index.py``). Only the bits that vary are sorted (hashes sampled by value have their
low bits all zero). Every pass is stable, so equal keys keep their input order
(``np.argsort(kind="stable")`` gives the same permutation). Imported lazily, like the signature
kernel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

DIGIT_BITS = 13  # bits per LSD pass (a bucket's passes run in the cache)
TOP_BITS = 11  # at most 2,048 buckets in the first pass
BUCKET_KEYS = 4096  # about this many keys per bucket


@njit(cache=True, nogil=True)
def _bit_range(keys):  # pragma: no cover - compiled
    """(lowest bit that differs between keys, highest bit set + 1)."""
    ones = np.uint64(0)
    zeros = np.uint64(0)
    for i in range(keys.size):
        ones |= keys[i]
        zeros |= ~keys[i]
    varying = ones & zeros
    if varying == 0:
        return 0, 0
    lo = 0
    while (varying >> np.uint64(lo)) & np.uint64(1) == 0:
        lo += 1
    hi = 64
    while (varying >> np.uint64(hi - 1)) & np.uint64(1) == 0:
        hi -= 1
    return lo, hi


@njit(cache=True, nogil=True)
def _lsd_passes(k_from, o_from, k_to, o_to, lo, hi, digit_bits, counts):  # pragma: no cover - compiled
    """Stable LSD passes over bits ``[lo, hi)`` in digits of ``digit_bits``, ping-ponging between
    the two pairs of arrays; returns True when the result ended in ``k_to``/``o_to``."""
    n = k_from.size
    mask = np.uint64((1 << digit_bits) - 1)
    flipped = False
    shift = lo
    while shift < hi:
        s = np.uint64(shift)
        counts[:] = 0
        for i in range(n):
            counts[((k_from[i] >> s) & mask) + 1] += 1
        for d in range(1 << digit_bits):
            counts[d + 1] += counts[d]
        for i in range(n):
            d = (k_from[i] >> s) & mask
            p = counts[d]
            counts[d] = p + 1
            k_to[p] = k_from[i]
            o_to[p] = o_from[i]
        k_from, k_to = k_to, k_from
        o_from, o_to = o_to, o_from
        flipped = not flipped
        shift += digit_bits
    return flipped


@njit(cache=True, nogil=True)
def _top_bits(n):  # pragma: no cover - compiled
    """Bits of the first (most significant) pass: buckets of about BUCKET_KEYS keys, at most TOP_BITS."""
    bits = 0
    while bits < TOP_BITS and (n >> (bits + 1)) >= BUCKET_KEYS:
        bits += 1
    return bits


@njit(cache=True, nogil=True)
def _first_pass(keys, hi, top_bits):  # pragma: no cover - compiled
    """The buckets of the first pass, on the keys' ``top_bits`` highest varying bits (below ``hi``):
    (the lowest of those bits, the shift and mask that give a key's bucket, where each bucket
    starts in bucket order and where the last ends)."""
    top = hi - top_bits
    s = np.uint64(top)
    mask = np.uint64((1 << top_bits) - 1)
    n_buckets = 1 << top_bits
    starts = np.zeros(n_buckets + 1, dtype=np.int64)
    for i in range(keys.size):
        starts[((keys[i] >> s) & mask) + 1] += 1
    for d in range(n_buckets):
        starts[d + 1] += starts[d]
    return top, s, mask, starts


@njit(cache=True, nogil=True)
def radix_argsort(keys, order):  # pragma: no cover - compiled
    """Sort ``keys`` in place (stably) and write into ``order`` (int32 or int64) the permutation
    that sorts the keys as given. Extra memory: one more array of each.

    One pass on the highest varying bits scatters the keys into buckets small enough for the
    cache; each bucket is then sorted on the remaining bits by LSD passes within the cache.
    """
    n = keys.size
    lo, hi = _bit_range(keys)
    if hi <= lo:
        for i in range(n):
            order[i] = i
        return
    top_bits = min(_top_bits(n), hi - lo)
    if top_bits < 4:  # too few keys for buckets to pay: LSD passes over the whole array
        for i in range(n):
            order[i] = i
        counts = np.empty((1 << DIGIT_BITS) + 1, dtype=np.int64)
        k_to = np.empty_like(keys)
        o_to = np.empty_like(order)
        if _lsd_passes(keys, order, k_to, o_to, lo, hi, DIGIT_BITS, counts):
            keys[:] = k_to
            order[:] = o_to
        return
    top, s, mask, starts = _first_pass(keys, hi, top_bits)
    n_buckets = starts.size - 1
    fill = starts[:-1].copy()
    k_to = np.empty_like(keys)
    for i in range(n):
        d = (keys[i] >> s) & mask
        p = fill[d]
        fill[d] = p + 1
        k_to[p] = keys[i]
        order[p] = i
    # Each bucket: from (k_to, order) with (keys, o_tmp) as scratch; the result copied back to
    # (keys, order) where it did not end there, while the bucket is still in the cache.
    o_tmp = np.empty_like(order)
    counts = np.empty((1 << DIGIT_BITS) + 1, dtype=np.int64)
    for b in range(n_buckets):
        a, e = starts[b], starts[b + 1]
        if e == a:
            continue
        if _lsd_passes(k_to[a:e], order[a:e], keys[a:e], o_tmp[a:e], lo, top, DIGIT_BITS, counts):
            order[a:e] = o_tmp[a:e]
        else:
            keys[a:e] = k_to[a:e]


@njit(cache=True, nogil=True)
def radix_runs(keys, order, head):  # pragma: no cover - compiled
    """``radix_argsort`` leaving ``keys`` as given: ``order`` (int32 or int64) the permutation
    that sorts them stably, ``head[i]`` True where the ``i``-th key in that order starts a run of
    equal keys (what the containment index's postings need of the sorted keys).

    The first pass moves only the order into the buckets; each bucket's keys are then gathered
    (in input order, as the pass was stable) into an array of the largest bucket's size, sorted
    there with the order and read for the runs. Extra memory: three arrays of the largest bucket
    (a few thousand keys) instead of a copy of the keys and of the order (at 100,000 files 8.5
    million keys: ~100 MB less at the candidate stage's peak); small inputs sort a copy.
    """
    n = keys.size
    for i in range(n):
        order[i] = i
    if n == 0:
        return
    lo, hi = _bit_range(keys)
    if hi <= lo:
        head[:] = False
        head[0] = True
        return
    counts = np.empty((1 << DIGIT_BITS) + 1, dtype=np.int64)
    top_bits = min(_top_bits(n), hi - lo)
    if top_bits < 4:  # too few keys for buckets to pay: LSD passes over a copy of them all
        k_from = keys.copy()
        k_to = np.empty_like(keys)
        o_to = np.empty_like(order)
        if _lsd_passes(k_from, order, k_to, o_to, lo, hi, DIGIT_BITS, counts):
            k_from = k_to
            order[:] = o_to
        _runs(k_from, head, 0)
        return
    top, s, mask, starts = _first_pass(keys, hi, top_bits)
    n_buckets = starts.size - 1
    fill = starts[:-1].copy()
    for i in range(n):
        d = (keys[i] >> s) & mask
        p = fill[d]
        fill[d] = p + 1
        order[p] = i
    largest = 0
    for b in range(n_buckets):
        largest = max(largest, starts[b + 1] - starts[b])
    k_from = np.empty(largest, dtype=keys.dtype)
    k_to = np.empty(largest, dtype=keys.dtype)
    o_to = np.empty(largest, dtype=order.dtype)
    for b in range(n_buckets):
        a, e = starts[b], starts[b + 1]
        m = e - a
        if m == 0:
            continue
        for t in range(m):
            k_from[t] = keys[order[a + t]]
        if _lsd_passes(k_from[:m], order[a:e], k_to[:m], o_to[:m], lo, top, DIGIT_BITS, counts):
            order[a:e] = o_to[:m]
            _runs(k_to[:m], head, a)
        else:
            _runs(k_from[:m], head, a)


@njit(cache=True, nogil=True)
def _runs(ordered, head, at):  # pragma: no cover - compiled
    """``head[at + i]``: does ``ordered[i]`` differ from the key before it (the first always does:
    buckets hold disjoint keys)."""
    head[at] = True
    for i in range(1, ordered.size):
        head[at + i] = ordered[i] != ordered[i - 1]


@njit(cache=True, nogil=True)
def postings(head, order, first_of_doc, group, post_docs):  # pragma: no cover - compiled
    """The containment index's postings from its keys' stable sort (``containment_pairs``' numpy
    steps after the sort, in passes that hold no GIL): ``order[i]`` the entry (document order) the
    ``i``-th key in sorted order came from, ``head[i]`` True where that key starts a run of equal
    keys (``radix_runs``), document ``d``'s entries ``first_of_doc[d]:first_of_doc[d + 1]``. Fills
    ``group[entry]`` (the number of its key among the distinct keys) and ``post_docs[i]`` (the
    document of the ``i``-th key); returns where each distinct key's run starts."""
    n_groups = 0
    for i in range(head.size):
        if head[i]:
            n_groups += 1
    group_start = np.empty(n_groups, dtype=group.dtype)
    doc_of = np.empty(head.size, dtype=post_docs.dtype)
    for d in range(first_of_doc.size - 1):
        for e in range(first_of_doc[d], first_of_doc[d + 1]):
            doc_of[e] = d
    g = -1
    for i in range(head.size):
        if head[i]:
            g += 1
            group_start[g] = i
        entry = order[i]
        group[entry] = g
        post_docs[i] = doc_of[entry]
    return group_start


@njit(cache=True, nogil=True)
def usable_counts(group, first_of_doc, group_size, bucket_cap, usable, shared):  # pragma: no cover - compiled
    """``usable[d]``: how many of document ``d``'s samples are on keys held by at most
    ``bucket_cap`` documents; ``shared[d]``: how many of those are held by another document too."""
    for d in range(first_of_doc.size - 1):
        m = 0
        s = 0
        for e in range(first_of_doc[d], first_of_doc[d + 1]):
            size = group_size[group[e]]
            if size <= bucket_cap:
                m += 1
                if size > 1:
                    s += 1
        usable[d] = m
        shared[d] = s


@njit(cache=True, nogil=True)
def contained_pairs(  # pragma: no cover - compiled
    d0, d1, group, first_of_doc, group_start, group_size, post_docs, bucket_cap, need, shared, extra, marks, hits,
    touched
):
    """The containment index's pairs in which a document of ``d0 .. d1 - 1`` is the contained side:
    it shares at least ``need[d]`` of its usable samples (keys held by at most ``bucket_cap``
    documents) with the other document.

    A document needing ``need`` of its ``shared[d]`` samples that other documents hold too meets
    every such partner on at least ``e + 1`` of its ``shared - need + 1 + e`` rarest of those
    (pigeonhole; ``e`` is ``extra``, or fewer when it has fewer samples left): the documents on
    that many of their posting lists are its candidates, each then counted exactly against the
    document's usable keys, marked in ``marks`` (one byte per key, all zero and left so), and given
    up once its samples left cannot make the count. With ``e`` past 0, the many documents that
    share one rare sample by chance are never counted (at k = 3 and 100,000 files the rarest samples
    alone proposed ~4 million candidates for 47,000 pairs kept). ``hits`` (per document, zero and
    left so) and ``touched`` (as many entries) are work space.

    Returns the pairs, (low, high) rows; a pair in which both documents are contained is listed
    from both."""
    out = np.empty((1024, 2), dtype=np.int64)
    k = 0
    longest = 1
    for d in range(d0, d1):
        longest = max(longest, first_of_doc[d + 1] - first_of_doc[d])
    # A shared usable sample as (documents holding the key) * longest + position: sorting these
    # distinct numbers orders them rarest first, ties in key order.
    rarest = np.empty(longest, dtype=np.int64)
    for d in range(d0, d1):
        need_d = need[d]
        if shared[d] < need_d:
            continue
        first = first_of_doc[d]
        r = 0
        for e in range(first, first_of_doc[d + 1]):
            size = group_size[group[e]]
            if 1 < size <= bucket_cap:
                rarest[r] = np.int64(size) * longest + (e - first)
                r += 1
                marks[group[e]] = 1
        rarest[:r].sort()
        more = min(extra, need_d - 1)
        t = 0
        for x in range(r - need_d + 1 + more):
            g = group[first + rarest[x] % longest]
            for p in range(group_start[g], group_start[g] + group_size[g]):
                other = post_docs[p]
                if other != d:
                    if hits[other] == 0:
                        touched[t] = other
                        t += 1
                    hits[other] += 1
        for x in range(t):
            other = touched[x]
            found = hits[other]
            hits[other] = 0
            if found <= more:
                continue
            e, e_end = first_of_doc[other], first_of_doc[other + 1]
            c = 0
            while e < e_end and c + (e_end - e) >= need_d:
                c += marks[group[e]]
                e += 1
            if c >= need_d:
                if k == out.shape[0]:
                    grown = np.empty((2 * k, 2), dtype=np.int64)
                    grown[:k] = out
                    out = grown
                out[k, 0] = min(d, other)
                out[k, 1] = max(d, other)
                k += 1
        for e in range(first, first_of_doc[d + 1]):
            marks[group[e]] = 0
    return out[:k]


@njit(cache=True, nogil=True)
def lookup_docs(keys, first_of_doc, key_set, bits, shift, starts, start_shift):  # pragma: no cover - compiled
    """Where the values of the sorted ``key_set`` occur among ``keys`` (document d's are
    ``keys[first_of_doc[d]:first_of_doc[d + 1]]``): (the document of each occurrence, its value's
    place in ``key_set``), in document order.

    Bit ``v >> shift`` of ``bits`` (uint64 words, small enough to stay in the cache) is clear for
    most values not in the set; the others are looked for in ``key_set[starts[t]:starts[t + 1]]``,
    ``t = v >> start_shift`` (a few values at most, where a binary search of the whole set cost ten
    times as much, each of its steps a cache miss)."""
    docs = np.empty(1024, dtype=np.int64)
    places = np.empty(1024, dtype=np.int64)
    k = 0
    for d in range(first_of_doc.size - 1):
        for e in range(first_of_doc[d], first_of_doc[d + 1]):
            v = keys[e]
            slot = v >> shift
            if not (bits[slot >> np.uint64(6)] >> (slot & np.uint64(63))) & np.uint64(1):
                continue
            t = v >> start_shift
            for p in range(starts[t], starts[t + 1]):
                if key_set[p] == v:
                    if k == docs.size:
                        grown_docs = np.empty(2 * k, dtype=np.int64)
                        grown_docs[:k] = docs
                        docs = grown_docs
                        grown_places = np.empty(2 * k, dtype=np.int64)
                        grown_places[:k] = places
                        places = grown_places
                    docs[k] = d
                    places[k] = p
                    k += 1
                    break
    return docs[:k], places[:k]


@njit(cache=True, nogil=True)
def intersection_count(x, y):  # pragma: no cover - compiled
    """|x ∩ y| of two sorted unique arrays: a merge without branches (each step moves one side or
    both), or, when ``y`` is over 16 times longer, a binary search of each of ``x`` in what is left
    of ``y``. ~5x ``containment.intersection_size``'s ``searchsorted`` (20,000 each: 60 µs against
    310; 1,300: 4 µs against 18)."""
    n, m = x.size, y.size
    count = 0
    if n * 16 < m:
        lo = 0
        for i in range(n):
            v = x[i]
            hi = m
            while lo < hi:
                mid = (lo + hi) >> 1
                if y[mid] < v:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < m and y[lo] == v:
                count += 1
        return count
    i = 0
    j = 0
    while i < n and j < m:
        a = x[i]
        b = y[j]
        count += a == b
        i += a <= b
        j += b <= a
    return count
