"""64-bit SimHash fingerprints over character n-grams, and a banded index on Hamming distance.

A fingerprint sums, for each of its 64 bits, ``+w`` for every n-gram whose hash has that bit set and
``-w`` otherwise (``w`` its tf-idf weight or its count) and keeps the sign. Texts sharing most of
their weighted n-grams get fingerprints a few bits apart; the Hamming distance is the score (0 =
same fingerprint, not necessarily the same text).

Finding pairs within ``d`` bits does not compare all pairs: split the 64 bits into ``d + 1`` blocks;
two fingerprints differing in at most ``d`` bits agree exactly on at least one block (pigeonhole), so
pairs that share a block value are the only ones to check, and each is then checked exactly.

Imports numpy and scipy.sparse only.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Literal

import numpy as np

from neardup_gui.core.methods.minhash_lsh import pairs_from_keys, unique_pairs
from neardup_gui.core.methods.tfidf import TfidfModel, doc_ngrams
from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.shingles import fmix64

__all__ = ["blocks", "candidates", "fingerprints", "hamming"]

# Salt so the bits of a feature's SimHash hash do not repeat the bits of its n-gram key.
_SALT = np.uint64(0x5BD1E9955BD1E995)
# n-gram occurrences per chunk when summing bit votes (chunk x 64 bytes of bits at a time).
_CHUNK = 1 << 18
_BYTE_SIGNS = (np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little") * 2.0 - 1.0)


def _feature_hashes(keys: np.ndarray) -> np.ndarray:
    return fmix64(keys ^ _SALT)


def fingerprints(
    cps_list: Sequence[np.ndarray],
    ngram_min: int = 2,
    ngram_max: int = 3,
    weights: Literal["tf", "tfidf"] = "tfidf",
    model: TfidfModel | None = None,
    progress: Progress = NULL_PROGRESS,
) -> np.ndarray:
    """SimHash fingerprint of every document.

    Args:
        cps_list: Normalized code points per document (uint32).
        ngram_min, ngram_max: Character n-gram lengths, inclusive.
        weights: ``tfidf`` (count x smoothed idf, the usual choice) or ``tf`` (count only).
        model: A ``TfidfModel`` fitted on these documents with this n-gram range: its n-gram
            profiles are used instead of counting again. When None, n-grams are counted here (and
            for ``tfidf`` a model is fitted).
        progress: ``check()`` is honoured between chunks; reports stage ``shingle``.

    Returns:
        uint64 array, one fingerprint per document (0 for a text shorter than ``ngram_min``).
    """
    if weights not in ("tf", "tfidf"):
        raise ValueError(f"weights must be 'tf' or 'tfidf', got {weights!r}")
    n_docs = len(cps_list)
    if model is None and weights == "tfidf":
        model = TfidfModel.fit(cps_list, ngram_min, ngram_max, progress)
    if model is not None:
        if (model.n_docs, model.ngram_min, model.ngram_max) != (n_docs, ngram_min, ngram_max):
            raise ValueError("the TF-IDF model was fitted on other documents or another n-gram range")
        sizes = np.diff(model.matrix.indptr) + np.diff(model.single_indptr)

        def profiles(start: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            return model.profiles(start, stop, weights)

    else:
        keys, counts, indptr = doc_ngrams(cps_list, ngram_min, ngram_max, progress)
        sizes = np.diff(indptr)

        def profiles(start: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            lo, hi = int(indptr[start]), int(indptr[stop])
            rows = np.repeat(np.arange(stop - start, dtype=np.int64), sizes[start:stop])
            return rows, keys[lo:hi], counts[lo:hi].astype(np.float64)

    fps = np.zeros(n_docs, dtype=np.uint64)
    ends = np.cumsum(sizes)
    start = 0
    while start < n_docs:
        progress.check()
        # Documents whose n-grams fit in one chunk (at least one document).
        base = ends[start - 1] if start else 0
        stop = int(np.searchsorted(ends, base + _CHUNK, side="right"))
        stop = min(n_docs, max(stop, start + 1))
        rows, keys_chunk, values = profiles(start, stop)
        fps[start:stop] = _fingerprint_rows(rows, keys_chunk, values, stop - start)
        start = stop
        progress.report("shingle", start, n_docs)
    return fps


def _fingerprint_rows(rows: np.ndarray, keys: np.ndarray, values: np.ndarray, n_rows: int) -> np.ndarray:
    """Fingerprints of ``n_rows`` documents from their (row, n-gram key, weight) triples.

    Votes are summed per (document, byte position, byte value) and then turned into votes per bit
    with a 256 x 8 sign table: 8 passes over the n-grams instead of 64.
    """
    byte_values = _feature_hashes(keys).view(np.uint8).reshape(-1, 8)
    votes = np.zeros((n_rows, 64), dtype=np.float64)
    for b in range(8):
        per_value = np.bincount(rows * 256 + byte_values[:, b], weights=values, minlength=n_rows * 256)
        votes[:, 8 * b : 8 * b + 8] = per_value.reshape(n_rows, 256) @ _BYTE_SIGNS
    bits = (votes > 0).astype(np.uint8)
    return np.packbits(bits, axis=1, bitorder="little").view(np.uint64).ravel()


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise Hamming distance (number of differing bits) of uint64 arrays, as int64."""
    x = np.bitwise_xor(np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64))
    return np.bitwise_count(x).astype(np.int64)


def blocks(max_distance: int) -> list[tuple[int, int]]:
    """The (shift, width) of the ``max_distance + 1`` bit blocks (at most 64) the index splits into."""
    parts = min(64, max_distance + 1)
    bounds = np.linspace(0, 64, parts + 1).round().astype(int)
    return [(int(lo), int(hi - lo)) for lo, hi in pairwise(bounds.tolist())]


def candidates(
    fps: np.ndarray, max_distance: int = 3, progress: Progress = NULL_PROGRESS
) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of fingerprints at Hamming distance ``<= max_distance``.

    Args:
        fps: uint64 fingerprints, one per document.
        max_distance: Bits, 0..64.
        progress: Reports stage ``candidates`` per block; ``check()`` between blocks.

    Returns:
        ``(pairs, distances)``: int64 (n, 2) with i < j in lexicographic order, and their int64
        Hamming distances.
    """
    if not 0 <= max_distance <= 64:
        raise ValueError(f"max_distance must be between 0 and 64 bits, got {max_distance}")
    fps = np.asarray(fps, dtype=np.uint64)
    n = fps.size
    if n < 2:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64)
    if max_distance >= 64:  # every pair is within 64 bits; no block can prove it
        i, j = np.triu_indices(n, 1)
        pairs = np.stack([i, j], axis=1).astype(np.int64)
        return pairs, hamming(fps[pairs[:, 0]], fps[pairs[:, 1]])
    members = np.arange(n, dtype=np.int64)
    found: list[np.ndarray] = []
    parts = blocks(max_distance)
    for done, (shift, width) in enumerate(parts, 1):
        progress.check()
        mask = np.uint64((1 << width) - 1) if width < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
        keys = (fps >> np.uint64(shift)) & mask
        # No cap: every pair sharing a block is checked, so nothing within the distance is lost.
        pairs, _ = pairs_from_keys(keys, members, bucket_cap=n)
        if pairs.size:
            d = hamming(fps[pairs[:, 0]], fps[pairs[:, 1]])
            found.append(pairs[d <= max_distance])
        progress.report("candidates", done, len(parts))
    if not found:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64)
    pairs = unique_pairs(np.concatenate(found), n)
    return pairs, hamming(fps[pairs[:, 0]], fps[pairs[:, 1]])
