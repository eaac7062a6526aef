"""MinHash signatures and banded LSH, in numpy, compatible with datasketch.

Signatures use datasketch's ``affine32`` scheme (its default since 2.0): each 32-bit shingle value is
pre-mixed with the MurmurHash3 32-bit finalizer, then permutation ``p`` maps it to
``a[p] * v + b[p]`` modulo 2**32, and the signature keeps the minimum per permutation. The
permutation parameters are datasketch's own (``MinHash(num_perm, seed).permutations``), so a row here
equals ``datasketch.MinHash(num_perm, seed, hashfunc=identity)`` fed the same values.

Banding sorts band keys instead of filling hash tables (about 50x faster than ``MinHashLSH`` insert
and query, and 8 bytes a band per document). Buckets larger than ``bucket_cap`` are paired as a star
around their first member so boilerplate cannot create a quadratic number of pairs.

Imports numpy and datasketch only.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from neardup_gui.core.progress import NULL_PROGRESS, Progress

__all__ = [
    "permutations",
    "optimal_bands_rows",
    "signatures",
    "band_keys",
    "pairs_from_keys",
    "lsh_pairs",
    "collision_probability",
]

_C1 = np.uint32(0x85EBCA6B)
_C2 = np.uint32(0xC2B2AE35)
_S16 = np.uint32(16)
_S13 = np.uint32(13)

# Work on at most this many shingle values per (permutations x values) block: 128 x 65,536 x 4 bytes
# is a 32 MB temporary.
_BLOCK_VALUES = 1 << 16


def _fmix32(v: np.ndarray) -> np.ndarray:
    v = v ^ (v >> _S16)
    v = v * _C1
    v = v ^ (v >> _S13)
    v = v * _C2
    return v ^ (v >> _S16)


@lru_cache(maxsize=16)
def permutations(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """datasketch's affine32 permutation parameters ``(a, b)`` for ``num_perm`` and ``seed``."""
    from datasketch import MinHash

    a, b = MinHash(num_perm=num_perm, seed=seed).permutations
    a = np.ascontiguousarray(a, dtype=np.uint32)
    b = np.ascontiguousarray(b, dtype=np.uint32)
    a.setflags(write=False)
    b.setflags(write=False)
    return a, b


@lru_cache(maxsize=64)
def optimal_bands_rows(threshold: float, num_perm: int) -> tuple[int, int]:
    """datasketch's choice of (bands, rows) for a Jaccard threshold (equal weights on errors)."""
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    return int(lsh.b), int(lsh.r)


def collision_probability(jaccard: float, bands: int, rows: int) -> float:
    """Probability that a pair with this Jaccard shares at least one band (the LSH S-curve)."""
    return 1.0 - (1.0 - jaccard**rows) ** bands


def signatures(
    value_arrays: Sequence[np.ndarray],
    num_perm: int,
    seed: int,
    progress: Progress = NULL_PROGRESS,
) -> np.ndarray:
    """MinHash signatures of many documents.

    Args:
        value_arrays: Per document, its 32-bit shingle values (``shingles.minhash_values``); each
            must be non-empty.
        num_perm: Number of permutations.
        seed: datasketch seed.
        progress: Reports stage ``shingle``.

    Returns:
        uint32 array of shape (documents, num_perm).
    """
    a, b = permutations(num_perm, seed)
    a_col = a[:, None]
    b_col = b[:, None]
    n_docs = len(value_arrays)
    out = np.empty((n_docs, num_perm), dtype=np.uint32)
    i = 0
    while i < n_docs:
        # Gather a block of documents whose values fit in one temporary.
        j = i
        total = 0
        while j < n_docs and (j == i or total + value_arrays[j].size <= _BLOCK_VALUES):
            total += value_arrays[j].size
            j += 1
        block = value_arrays[i:j]
        lengths = np.fromiter((v.size for v in block), dtype=np.int64, count=len(block))
        if (lengths == 0).any():
            raise ValueError("every document needs at least one shingle to be signed")
        values = _fmix32(np.concatenate(block))
        starts = np.cumsum(lengths) - lengths
        with np.errstate(over="ignore"):
            permuted = a_col * values[None, :]
            permuted += b_col
        out[i:j] = np.minimum.reduceat(permuted, starts, axis=1).T
        i = j
        progress.check()
        progress.report("shingle", i, n_docs)
    return out


def band_keys(sigs: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """One 64-bit key per (document, band): shape (documents, bands)."""
    n = sigs.shape[0]
    keys = np.empty((n, bands), dtype=np.uint64)
    s = sigs.astype(np.uint64)
    mult = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        for band in range(bands):
            h = np.full(n, np.uint64(band + 1) * mult, dtype=np.uint64)
            for r in range(rows):
                h ^= s[:, band * rows + r]
                h *= np.uint64(0xFF51AFD7ED558CCD)
                h ^= h >> np.uint64(29)
            keys[:, band] = h
    return keys


def pairs_from_keys(keys: np.ndarray, members: np.ndarray, bucket_cap: int) -> tuple[np.ndarray, int]:
    """All pairs of members sharing a key.

    Args:
        keys: uint64 key per entry.
        members: int64 document index per entry (same length).
        bucket_cap: Buckets with more members than this contribute a star (first member with each
            other member) instead of every pair.

    Returns:
        (pairs as int64 array of shape (n, 2) with pairs[:, 0] < pairs[:, 1], not deduplicated;
        number of buckets that hit the cap).
    """
    if keys.size < 2:
        return np.zeros((0, 2), dtype=np.int64), 0
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    m = members[order]
    new_group = np.empty(k.size, dtype=bool)
    new_group[0] = True
    np.not_equal(k[1:], k[:-1], out=new_group[1:])
    group_id = np.cumsum(new_group) - 1
    starts = np.flatnonzero(new_group)
    sizes = np.diff(np.append(starts, k.size))
    size_of = sizes[group_id]
    out: list[np.ndarray] = []
    capped = 0
    big = sizes > bucket_cap
    if big.any():
        capped = int(big.sum())
        for g in np.flatnonzero(big).tolist():
            s, e = starts[g], starts[g] + sizes[g]
            first = np.full(e - s - 1, m[s], dtype=np.int64)
            out.append(np.stack([first, m[s + 1 : e]], axis=1))
        keep = ~big[group_id]
        pos = np.flatnonzero(keep & (size_of >= 2))
    else:
        pos = np.flatnonzero(size_of >= 2)
    d = 1
    while pos.size:
        nxt = pos + d
        valid = nxt < k.size
        pos, nxt = pos[valid], nxt[valid]
        same = group_id[nxt] == group_id[pos]
        if same.any():
            out.append(np.stack([m[pos[same]], m[nxt[same]]], axis=1))
        # Only entries whose group still has members further along continue.
        pos = pos[same]
        d += 1
    if not out:
        return np.zeros((0, 2), dtype=np.int64), capped
    pairs = np.concatenate(out)
    lo = np.minimum(pairs[:, 0], pairs[:, 1])
    hi = np.maximum(pairs[:, 0], pairs[:, 1])
    pairs = np.stack([lo, hi], axis=1)
    return pairs[lo != hi], capped


def unique_pairs(pairs: np.ndarray, n_docs: int) -> np.ndarray:
    """Sorted, duplicate-free pairs (lexicographic)."""
    if pairs.size == 0:
        return pairs.reshape(0, 2)
    code = pairs[:, 0].astype(np.int64) * np.int64(n_docs) + pairs[:, 1]
    code.sort()
    keep = np.empty(code.size, dtype=bool)
    keep[0] = True
    np.not_equal(code[1:], code[:-1], out=keep[1:])
    code = code[keep]
    return np.stack([code // n_docs, code % n_docs], axis=1)


def lsh_pairs(
    sigs: np.ndarray, bands: int, rows: int, bucket_cap: int, progress: Progress = NULL_PROGRESS
) -> tuple[np.ndarray, int]:
    """Candidate pairs of documents (row indices of ``sigs``) sharing at least one band.

    Returns:
        (sorted unique pairs, shape (n, 2), i < j; number of capped buckets).
    """
    n = sigs.shape[0]
    keys = band_keys(sigs, bands, rows)
    members = np.arange(n, dtype=np.int64)
    chunks: list[np.ndarray] = []
    capped = 0
    for band in range(bands):
        progress.check()
        pairs, c = pairs_from_keys(keys[:, band], members, bucket_cap)
        capped += c
        if pairs.size:
            chunks.append(pairs)
        progress.report("candidates", band + 1, bands)
    if not chunks:
        return np.zeros((0, 2), dtype=np.int64), capped
    return unique_pairs(np.concatenate(chunks), n), capped
