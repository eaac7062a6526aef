"""Candidates for containment: a document mostly inside a longer one.

An excerpt of a long article has a low Jaccard with it (the union is the long article), so a Jaccard
index misses it. Here every document contributes the shingles whose hash falls in a fixed residue
class (one in ``sample`` of them, chosen by hash value, hence the same shingles in every document).
Sampling by value keeps subsets as subsets: if A lies inside B, A's sampled shingles lie inside B's,
and the share of A's samples found in B estimates |A∩B|/|A|.

Finding the pairs is a similarity join with prefix filtering: if A must share at least ``m`` of its
``n`` samples with B, then B must contain one of A's ``n - m + 1`` rarest samples. Each document
probes the posting lists with that prefix only, so common phrases (long posting lists) are rarely
probed and the join stays near-linear; the pairs found are then counted exactly on their samples.
Sampled shingles found in more than ``bucket_cap`` documents are boilerplate and are ignored (the
count is reported).

Imports numpy only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from neardup_gui.core.methods.minhash_lsh import unique_pairs
from neardup_gui.core.progress import NULL_PROGRESS, Progress

__all__ = ["sampled", "containment_pairs", "sorted_intersections"]


def sampled(hashes: np.ndarray, sample: int) -> np.ndarray:
    """The shingle hashes in the sampling class (the low bits select, MinHash uses the high half)."""
    if sample <= 1:
        return hashes
    if sample & (sample - 1) == 0:  # power of two: a mask is ~4x cheaper than a modulo on uint64
        return hashes[(hashes & np.uint64(sample - 1)) == 0]
    return hashes[(hashes % np.uint64(sample)) == 0]


def _group_sizes(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(group index of each entry, size of each group) for a sorted key array."""
    new_group = np.empty(sorted_keys.size, dtype=bool)
    new_group[0] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=new_group[1:])
    gid = np.cumsum(new_group, dtype=np.int32 if sorted_keys.size < 2**31 else np.int64)
    gid -= 1
    return gid, np.bincount(gid)


def sorted_intersections(values: np.ndarray, offsets: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """|A∩B| for each pair, where document d's sorted unique values are ``values[offsets[d]:offsets[d+1]]``."""
    out = np.empty(len(pairs), dtype=np.int64)
    for n, (a, b) in enumerate(pairs.tolist()):
        x = values[offsets[a] : offsets[a + 1]]
        y = values[offsets[b] : offsets[b + 1]]
        if x.size > y.size:
            x, y = y, x
        if x.size == 0:
            out[n] = 0
            continue
        idx = np.searchsorted(y, x)
        idx[idx >= y.size] = y.size - 1
        out[n] = int(np.count_nonzero(y[idx] == x))
    return out


def containment_pairs(
    hash_arrays: Sequence[np.ndarray],
    threshold: float,
    sample: int,
    bucket_cap: int,
    progress: Progress = NULL_PROGRESS,
) -> tuple[np.ndarray, int]:
    """Pairs (i < j) whose sampled overlap suggests containment >= ``threshold`` one way.

    Args:
        hash_arrays: Sorted unique shingle hashes per document.
        threshold: Containment threshold in (0, 1].
        sample: Sampling rate (one shingle in ``sample``).
        bucket_cap: Sampled shingles shared by more documents than this are ignored.

    Returns:
        (pairs array of shape (n, 2), number of ignored boilerplate shingles).
    """
    n_docs = len(hash_arrays)
    empty = np.zeros((0, 2), dtype=np.int64)
    samples = []
    for i, h in enumerate(hash_arrays):
        if i % 4096 == 0:
            progress.check()
        samples.append(sampled(h, sample))
    counts = np.fromiter((s.size for s in samples), dtype=np.int64, count=n_docs)
    if counts.sum() == 0:
        return empty, 0
    # Entries in document order; within a document, in key order (each sample array is sorted).
    # Entry indices fit in 32 bits (2**31 samples is ~2 billion characters of text): half the memory
    # of the default int64 for the index arrays below, which dominate this stage's peak.
    idx_type = np.int32 if counts.sum() < 2**31 else np.int64
    keys = np.concatenate(samples)
    members = np.repeat(np.arange(n_docs, dtype=idx_type), counts)
    del samples
    progress.check()

    # Postings: the same entries sorted by key. Keys in more than bucket_cap documents are boilerplate.
    order = np.argsort(keys).astype(idx_type)
    progress.check()
    post_keys = keys[order]
    gid, sizes = _group_sizes(post_keys)
    del post_keys
    sizes = sizes.astype(idx_type)
    ignored = int((sizes > bucket_cap).sum())
    starts_of_group = np.zeros(sizes.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts_of_group[1:])
    position = np.empty(order.size, dtype=idx_type)  # entry -> its place in the postings
    position[order] = np.arange(order.size, dtype=idx_type)
    df = sizes[gid[position]]
    usable = df <= bucket_cap
    post_docs = members[order]
    del order
    progress.check()
    if not usable.any():
        return empty, ignored

    # Minimum shared samples for a document as the contained side: the threshold less three binomial
    # standard errors, so short documents with few samples are not lost. If A must share `need` of
    # its n usable samples with B, any n - need + 1 of them include a shared one (pigeonhole): each
    # document probes with that many of its rarest samples, whose posting lists are short.
    n_usable = np.bincount(members[usable], minlength=n_docs)
    n = np.maximum(n_usable, 1).astype(np.float64)
    lowered = np.maximum(0.0, threshold - 3.0 * np.sqrt(threshold * (1.0 - threshold) / n))
    need = np.maximum(1, np.ceil(lowered * n_usable - 1e-9)).astype(np.int64)
    prefix = np.clip(n_usable - need + 1, 0, n_usable)
    entries = np.flatnonzero(usable)
    rarest_first = entries[np.argsort(members[entries].astype(np.int64) * np.int64(bucket_cap + 1) + df[entries])]
    doc_of = members[rarest_first]
    first_of_doc = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(n_usable, out=first_of_doc[1:])
    rank = np.arange(doc_of.size, dtype=np.int64) - first_of_doc[doc_of]
    probe = rarest_first[rank < prefix[doc_of]]
    del rarest_first, doc_of, rank, entries
    progress.check()

    # Join the probes with the postings of their key (all usable: a probe's key is not boilerplate).
    g = gid[position[probe]]
    lo = starts_of_group[g]
    lengths = starts_of_group[g + 1] - lo
    total = int(lengths.sum())
    if total == 0:
        return empty, ignored
    at = np.repeat(lo - (np.cumsum(lengths) - lengths), lengths) + np.arange(total, dtype=np.int64)
    left = np.repeat(members[probe], lengths)
    right = post_docs[at]
    del at, lo, lengths, probe, g
    other = left != right
    pairs = np.stack([np.minimum(left[other], right[other]), np.maximum(left[other], right[other])], axis=1)
    pairs = unique_pairs(pairs, n_docs)
    progress.check()

    # Exact counts on the usable samples (in document order, each document's keys sorted).
    shared = sorted_intersections(keys[usable], first_of_doc, pairs)
    a, b = pairs[:, 0], pairs[:, 1]
    ok = (shared >= need[a]) | (shared >= need[b])
    return pairs[ok], ignored
