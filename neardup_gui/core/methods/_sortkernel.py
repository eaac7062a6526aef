"""Compiled kernels (numba) of the containment index: a stable argsort of unsigned 64-bit keys (a
radix sort, also used for the LSH bands), the postings from the sorted keys, the probe rounds, the
exact count of the usable samples two documents share, and the lookup of a few keys among every
document's samples (a rescan bringing the index up to date).

The probe (``probe_docs``) does per document what ``containment_pairs``' numpy rounds do per
round, and skips what cannot pair: the samples a document holds alone come first among its rarest
and join it with nothing, so only its shared samples are sorted, and only when its probe reaches
them (100,000 documents: the rounds ~0.6 s in numpy, ~0.22 s here, the same pairs).

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
    top = hi - top_bits
    s = np.uint64(top)
    mask = np.uint64((1 << top_bits) - 1)
    n_buckets = 1 << top_bits
    starts = np.zeros(n_buckets + 1, dtype=np.int64)
    for i in range(n):
        starts[((keys[i] >> s) & mask) + 1] += 1
    for d in range(n_buckets):
        starts[d + 1] += starts[d]
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
def postings(keys, order, first_of_doc, group, post_docs):  # pragma: no cover - compiled
    """The containment index's postings from its sorted keys (``containment_pairs``' numpy steps
    after the sort, in passes that hold no GIL): ``keys`` ascending, ``order[i]`` the entry
    (document order) the ``i``-th key came from, document ``d``'s entries
    ``first_of_doc[d]:first_of_doc[d + 1]``. Fills ``group[entry]`` (the number of its key among
    the distinct keys) and ``post_docs[i]`` (the document of the ``i``-th key); returns where each
    distinct key's run starts."""
    n_groups = 0
    for i in range(keys.size):
        if i == 0 or keys[i] != keys[i - 1]:
            n_groups += 1
    group_start = np.empty(n_groups, dtype=group.dtype)
    doc_of = np.empty(keys.size, dtype=post_docs.dtype)
    for d in range(first_of_doc.size - 1):
        for e in range(first_of_doc[d], first_of_doc[d + 1]):
            doc_of[e] = d
    g = -1
    for i in range(keys.size):
        if i == 0 or keys[i] != keys[i - 1]:
            g += 1
            group_start[g] = i
        entry = order[i]
        group[entry] = g
        post_docs[i] = doc_of[entry]
    return group_start


@njit(cache=True, nogil=True)
def shared_usable(group, first_of_doc, group_size, bucket_cap, pairs, out):  # pragma: no cover - compiled
    """``out[n]``: how many usable samples the documents of ``pairs[n]`` share (the containment
    index's exact count). A document's samples are ``group[first_of_doc[d]:first_of_doc[d + 1]]``,
    each as the number of its key among the distinct keys, so ascending within a document; a key is
    usable when at most ``bucket_cap`` documents hold it."""
    for n in range(pairs.shape[0]):
        a = pairs[n, 0]
        b = pairs[n, 1]
        i, i_end = first_of_doc[a], first_of_doc[a + 1]
        j, j_end = first_of_doc[b], first_of_doc[b + 1]
        count = 0
        while i < i_end and j < j_end:
            gi = group[i]
            gj = group[j]
            if gi < gj:
                i += 1
            elif gj < gi:
                j += 1
            else:
                if group_size[gi] <= bucket_cap:
                    count += 1
                i += 1
                j += 1
        out[n] = count


@njit(cache=True, nogil=True)
def probe_docs(  # pragma: no cover - compiled
    d0, d1, group, first_of_doc, group_start, group_size, post_docs, threshold, bucket_cap, need, usable
):
    """The containment index's probe for documents ``d0 .. d1 - 1`` (``containment_pairs``' numpy
    rounds, one document at a time): each document's usable samples (keys in at most
    ``bucket_cap`` documents), its ``need[d]`` (shared samples required, the threshold less three
    binomial standard errors), and the pairs with every document in the postings of its
    ``n - need + 1`` rarest samples (fewest documents first, then key order). ``usable[d]``: how
    many of its samples are usable.

    Returns the pairs found, (low, high) rows, not deduplicated.
    """
    out = np.empty((1024, 2), dtype=np.int64)
    k = 0
    longest = 1
    for d in range(d0, d1):
        longest = max(longest, first_of_doc[d + 1] - first_of_doc[d])
    # A document's shared usable samples as (documents holding the key) * longest + position:
    # sorting these distinct numbers orders them rarest first, ties in key order (no stable sort).
    rarest = np.empty(longest, dtype=np.int64)
    spread = threshold * (1.0 - threshold)
    for d in range(d0, d1):
        first = first_of_doc[d]
        m = 0  # usable samples
        shared = 0  # of which in other documents too
        for e in range(first, first_of_doc[d + 1]):
            df = group_size[group[e]]
            if df <= bucket_cap:
                m += 1
                if df > 1:
                    rarest[shared] = np.int64(df) * longest + (e - first)
                    shared += 1
        n = np.float64(max(m, 1))
        lowered = max(0.0, threshold - 3.0 * np.sqrt(spread / n))
        need_d = max(1, np.int64(np.ceil(lowered * m - 1e-9)))
        need[d] = need_d
        usable[d] = m
        prefix = min(max(m - need_d + 1, 0), m)
        # The rarest come first: the samples in this document only, which pair it with nothing.
        probes = prefix - (m - shared)
        if probes <= 0:
            continue
        rarest[:shared].sort()
        for t in range(probes):
            g = group[first + rarest[t] % longest]
            for p in range(group_start[g], group_start[g] + group_size[g]):
                other = np.int64(post_docs[p])
                if other == d:
                    continue
                if k == out.shape[0]:
                    grown = np.empty((2 * k, 2), dtype=np.int64)
                    grown[:k] = out
                    out = grown
                out[k, 0] = min(d, other)
                out[k, 1] = max(d, other)
                k += 1
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
