"""Candidates for containment: a document mostly inside a longer one.

An excerpt of a long article has a low Jaccard with it (the union is the long article), so a Jaccard
index misses it. Here every document contributes the shingles whose hash falls in a fixed residue
class (one in ``sample`` of them, chosen by hash value, hence the same shingles in every document).
Sampling by value keeps subsets as subsets: if A lies inside B, A's sampled shingles lie inside B's.
Counting, for each pair, how many sampled shingles they share estimates |A∩B|/|A| from the sampled
counts; pairs whose estimate is plausibly above the containment threshold go to exact verification.

Sampled shingles found in more than ``bucket_cap`` documents are boilerplate and are not used to
propose pairs (the count is reported).

Imports numpy only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from neardup_gui.core.methods.minhash_lsh import pairs_from_keys
from neardup_gui.core.progress import NULL_PROGRESS, Progress

__all__ = ["sampled", "containment_pairs"]


def sampled(hashes: np.ndarray, sample: int) -> np.ndarray:
    """The shingle hashes in the sampling class (the low bits select, MinHash uses the high half)."""
    if sample <= 1:
        return hashes
    if sample & (sample - 1) == 0:  # power of two: a mask is ~4x cheaper than a modulo on uint64
        return hashes[(hashes & np.uint64(sample - 1)) == 0]
    return hashes[(hashes % np.uint64(sample)) == 0]


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
    samples = [sampled(h, sample) for h in hash_arrays]
    counts = np.fromiter((s.size for s in samples), dtype=np.int64, count=n_docs)
    if counts.sum() == 0:
        return np.zeros((0, 2), dtype=np.int64), 0
    keys = np.concatenate(samples)
    members = np.repeat(np.arange(n_docs, dtype=np.int64), counts)
    progress.check()
    # Boilerplate shingles: drop them from the postings before pairing.
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    new_group = np.empty(sk.size, dtype=bool)
    new_group[0] = True
    np.not_equal(sk[1:], sk[:-1], out=new_group[1:])
    gid = np.cumsum(new_group) - 1
    sizes = np.bincount(gid)
    common = sizes[gid] > bucket_cap
    ignored = int((sizes > bucket_cap).sum())
    keep = order[~common]
    pairs, _ = pairs_from_keys(keys[keep], members[keep], bucket_cap)
    progress.check()
    if pairs.size == 0:
        return pairs, ignored
    code = pairs[:, 0] * np.int64(n_docs) + pairs[:, 1]
    code.sort()
    boundary = np.empty(code.size, dtype=bool)
    boundary[0] = True
    np.not_equal(code[1:], code[:-1], out=boundary[1:])
    starts = np.flatnonzero(boundary)
    shared = np.diff(np.append(starts, code.size))
    uniq = code[starts]
    left = uniq // n_docs
    right = uniq % n_docs
    smaller = np.minimum(counts[left], counts[right]).astype(np.float64)
    # Sampled containment of the smaller document; accept anything within three standard errors of
    # the threshold (binomial), so short documents with few samples are not lost.
    est = shared / smaller
    slack = 3.0 * np.sqrt(threshold * (1.0 - threshold) / smaller)
    ok = est >= (threshold - slack)
    return np.stack([left[ok], right[ok]], axis=1), ignored
