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

from neardup_gui.core.compiled import kernel_module
from neardup_gui.core.methods.minhash_lsh import unique_pairs
from neardup_gui.core.methods.sorting import sort_in_place, stable_argsort
from neardup_gui.core.progress import NULL_PROGRESS, Progress

__all__ = ["sampled", "containment_pairs", "intersection_size", "sorted_intersections"]

# From this many samples in all, the probe rounds and the exact counts run compiled (numba, loaded
# for the MinHash signatures at that size anyway); the numpy rounds below give the same pairs.
_COMPILED_MIN_ENTRIES = 200_000


def _kernels():
    """The compiled (probe round, shared-sample count, postings), or None without numba."""
    module = kernel_module("methods._sortkernel")
    return None if module is None else (module.probe_docs, module.shared_usable, module.postings)


def sampled(hashes: np.ndarray, sample: int) -> np.ndarray:
    """The shingle hashes in the sampling class (the low bits select, MinHash uses the high half)."""
    if sample <= 1:
        return hashes
    if sample & (sample - 1) == 0:  # power of two: a mask is ~4x cheaper than a modulo on uint64
        return hashes[(hashes & np.uint64(sample - 1)) == 0]
    return hashes[(hashes % np.uint64(sample)) == 0]


def intersection_size(x: np.ndarray, y: np.ndarray) -> int:
    """|x ∩ y| of two sorted unique arrays."""
    if x.size > y.size:
        x, y = y, x
    if x.size == 0:
        return 0
    idx = np.searchsorted(y, x)
    idx[idx >= y.size] = y.size - 1
    return int(np.count_nonzero(y[idx] == x))


def sorted_intersections(values: np.ndarray, offsets: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """|A∩B| for each pair, where document d's sorted unique values are ``values[offsets[d]:offsets[d+1]]``."""
    out = np.empty(len(pairs), dtype=np.int64)
    for n, (a, b) in enumerate(pairs.tolist()):
        out[n] = intersection_size(values[offsets[a] : offsets[a + 1]], values[offsets[b] : offsets[b + 1]])
    return out


# Documents probed per round: the probe and join arrays stay small however large the folder.
_PROBE_DOCS = 8192


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
        sample: Sampling rate (one shingle in ``sample``; 1 when the arrays are samples already).
        bucket_cap: Sampled shingles shared by more documents than this are ignored.

    Returns:
        (pairs array of shape (n, 2), number of ignored boilerplate shingles).
    """
    n_docs = len(hash_arrays)
    empty = np.zeros((0, 2), dtype=np.int64)
    if sample <= 1:
        samples = list(hash_arrays)
    else:
        samples = []
        for i, h in enumerate(hash_arrays):
            if i % 4096 == 0:
                progress.check()
            samples.append(sampled(h, sample))
    counts = np.fromiter((s.size for s in samples), dtype=np.int64, count=n_docs)
    total_entries = int(counts.sum())
    if total_entries == 0:
        return empty, 0
    # Entry indices fit in 32 bits (2**31 samples is ~30 billion characters of text): half the
    # memory of int64 for the arrays below, which make this stage's peak.
    idx_type = np.int32 if total_entries < 2**31 else np.int64
    # Entries in document order; within a document, in key order (each sample array is sorted).
    keys = np.concatenate(samples).astype(np.uint64, copy=False)
    first_of_doc = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(counts, out=first_of_doc[1:])
    progress.check()

    # Postings: the documents of each distinct key, keys ascending. Keys in more than bucket_cap
    # documents are boilerplate. ``group`` gives each entry (document order) its key's posting list.
    kernels = _kernels() if total_entries >= _COMPILED_MIN_ENTRIES else None
    order = sort_in_place(keys, idx_type)
    post_keys = keys  # sorted now; the samples list holds the same values in document order
    del keys
    progress.check()
    group = np.empty(total_entries, dtype=idx_type)
    if kernels is not None:  # one compiled pass, without the GIL (the numpy steps below hold it)
        post_docs = np.empty(total_entries, dtype=idx_type)
        group_start = kernels[2](post_keys, order, first_of_doc, group, post_docs)
        del post_keys, order
    else:
        head = np.empty(total_entries, dtype=bool)
        head[0] = True
        np.not_equal(post_keys[1:], post_keys[:-1], out=head[1:])
        del post_keys
        group_start = np.flatnonzero(head).astype(idx_type)
        group[order] = np.cumsum(head, dtype=idx_type) - 1
        del head
        post_docs = np.repeat(np.arange(n_docs, dtype=idx_type), counts)[order]
        del order
    group_size = np.diff(np.append(group_start, idx_type(total_entries))).astype(idx_type)
    ignored = int(np.count_nonzero(group_size > bucket_cap))
    progress.check()

    usable = np.empty(total_entries if kernels is None else 0, dtype=bool)
    need = np.zeros(n_docs, dtype=np.int64)
    found: list[np.ndarray] = []
    for d0 in range(0, n_docs, _PROBE_DOCS):
        progress.check()
        d1 = min(n_docs, d0 + _PROBE_DOCS)
        if kernels is not None:  # the same round, one document at a time
            round_pairs = kernels[0](d0, d1, group, first_of_doc, group_start, group_size, post_docs,
                                     float(threshold), int(bucket_cap), need)  # fmt: skip
            found.append(unique_pairs(round_pairs, n_docs))
            continue
        lo, hi = int(first_of_doc[d0]), int(first_of_doc[d1])
        if hi == lo:
            continue
        chunk_group = group[lo:hi]
        df = group_size[chunk_group]
        ok = df <= bucket_cap
        usable[lo:hi] = ok
        member = np.repeat(np.arange(d0, d1, dtype=np.int64), counts[d0:d1])
        # Minimum shared samples for a document as the contained side: the threshold less three
        # binomial standard errors, so short documents with few samples are not lost. If A must
        # share `need` of its n usable samples with B, any n - need + 1 of them include a shared one
        # (pigeonhole): each document probes with that many of its rarest samples, whose posting
        # lists are short.
        n_usable = np.bincount(member[ok] - d0, minlength=d1 - d0)
        n = np.maximum(n_usable, 1).astype(np.float64)
        lowered = np.maximum(0.0, threshold - 3.0 * np.sqrt(threshold * (1.0 - threshold) / n))
        need[d0:d1] = np.maximum(1, np.ceil(lowered * n_usable - 1e-9)).astype(np.int64)
        prefix = np.clip(n_usable - need[d0:d1] + 1, 0, n_usable)
        entries = np.flatnonzero(ok)
        rarest_first = entries[stable_argsort((member[entries] - d0) * np.int64(bucket_cap + 1) + df[entries])]
        doc_of = member[rarest_first] - d0
        start_of = np.zeros(d1 - d0 + 1, dtype=np.int64)
        np.cumsum(n_usable, out=start_of[1:])
        rank = np.arange(doc_of.size, dtype=np.int64) - start_of[doc_of]
        probe = rarest_first[rank < prefix[doc_of]]
        # Join the probes with the postings of their key (usable: a probe's key is not boilerplate).
        g = chunk_group[probe]
        starts = group_start[g].astype(np.int64)
        lengths = group_size[g].astype(np.int64)
        total = int(lengths.sum())
        if total == 0:
            continue
        at = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(total, dtype=np.int64)
        left = np.repeat(member[probe], lengths)
        right = post_docs[at].astype(np.int64)
        other = left != right
        pairs = np.stack([np.minimum(left[other], right[other]), np.maximum(left[other], right[other])], axis=1)
        found.append(unique_pairs(pairs, n_docs))
    del post_docs, group_start
    if not found:
        return empty, ignored
    pairs = unique_pairs(np.concatenate(found), n_docs)
    progress.check()

    # Exact counts on the usable samples (each document's samples are sorted): compiled, on the
    # key numbers (``group``: ascending within a document as the keys are), or per pair in numpy.
    shared = np.empty(len(pairs), dtype=np.int64)
    if kernels is not None:
        kernels[1](group, first_of_doc, group_size, bucket_cap, pairs, shared)
    else:
        for n, (a, b) in enumerate(pairs.tolist()):
            x = samples[a][usable[first_of_doc[a] : first_of_doc[a + 1]]]
            y = samples[b][usable[first_of_doc[b] : first_of_doc[b + 1]]]
            shared[n] = intersection_size(x, y)
    del group, group_size
    a, b = pairs[:, 0], pairs[:, 1]
    ok = (shared >= need[a]) | (shared >= need[b])
    return pairs[ok], ignored
