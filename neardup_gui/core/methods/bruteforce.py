"""Exact all-pairs joins: every pair of documents whose similarity reaches a threshold.

``all_pairs_jaccard`` is the reference the other methods are measured against: it returns every pair
(i < j) whose exact n-gram Jaccard reaches the threshold, and nothing else. It never samples.

It does not loop over the N**2/2 pairs either. Documents become rows of a sparse 0/1 matrix over the
shingles found in two or more documents (a shingle in one document can never be shared). A product
of that matrix with its transpose counts the shingles every pair shares; ``threshold_join`` computes
it in row blocks and only over the less common shingles, because a shingle present in thousands of
documents would make the product quadratic while deciding nothing on its own. What the common
shingles can add is bounded instead (a pair shares at most ``min(c_i, c_j)`` of them when document
``i`` has ``c_i``); a pair is counted in full when its partial count plus that bound could reach the
threshold, so the result is exact. ``TfidfModel.candidates`` uses the same join with a
Cauchy-Schwarz bound on cosines.

Imports numpy and scipy.sparse only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import scipy.sparse as sp

from neardup_gui.core.methods.minhash_lsh import unique_pairs
from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.records import METHOD_JACCARD, TOO_LONG, TooLarge

__all__ = [
    "MAX_SECONDS",
    "TooLarge",
    "all_pairs_jaccard",
    "docs_of_entries",
    "estimated_seconds",
    "format_duration",
    "refuse_if_too_long",
    "row_sums",
    "threshold_join",
    "vocabulary",
]

# Seconds per unit of work on a 2-core machine of the kind the app targets, fitted on the synthetic
# news corpus of bench/make_corpus.py (k=5, ~1,400 shingles a document: 0.14 s for 1,000 documents,
# 3.5 s for 10,000, 15 s for 30,000) with ~50 % margin: a part per shingle (sorting, building the
# matrix) and a part per document pair and shingle (the partial products and the bound grow with
# the number of documents).
_SECONDS_PER_SHINGLE = 3.0e-7
_SECONDS_PER_PAIR_SHINGLE = 1.0e-11
# The longest estimate run rather than refused (about 85,000 articles of ~1,400 characters).
MAX_SECONDS = 120.0
# Rows (documents) in the "common part alone" check times the documents they are compared with.
_ALONE_LIMIT = 20_000_000
# Target size of one block's product (entries), to bound memory.
_BLOCK_ENTRIES = 4_000_000
_EPS = 1e-9


def estimated_seconds(n_docs: int, mean_shingles: float) -> float:
    """Rough running time of ``all_pairs_jaccard`` on this kind of machine.

    Args:
        n_docs: Number of documents compared.
        mean_shingles: Mean number of distinct shingles per document.

    Returns:
        Seconds (an estimate: the real time also depends on how much text the documents share).
    """
    n = float(n_docs)
    total = n * mean_shingles
    return _SECONDS_PER_SHINGLE * total + _SECONDS_PER_PAIR_SHINGLE * n * total


def refuse_if_too_long(n_docs: int, mean_shingles: float, max_seconds: float | None = None, chars: int = 0) -> None:
    """Raise ``TooLarge`` when ``estimated_seconds(n_docs, mean_shingles)`` exceeds ``max_seconds``
    (default ``MAX_SECONDS``): the message says how long it would take and what to choose instead
    (``chars``: the folder's characters, when the caller counted them, for a caller that words its
    own message)."""
    max_seconds = MAX_SECONDS if max_seconds is None else max_seconds
    seconds = estimated_seconds(n_docs, mean_shingles)
    if seconds > max_seconds:
        raise TooLarge(
            f"exact Jaccard on all pairs would take about {format_duration(seconds)} for "
            f"{n_docs:,} documents (limit {format_duration(max_seconds)}); use --method minhash",
            what=TOO_LONG, method=METHOD_JACCARD, documents=n_docs, chars=chars, need=seconds, limit=max_seconds,
        )  # fmt: skip


def format_duration(seconds: float) -> str:
    """``"12 s"``, ``"4 min"``, ``"3 h 20 min"``, ``"2 days 5 h"``: a duration for a message."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    minutes = round(s / 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} days {hours} h" if hours else f"{days} days"


def vocabulary(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group equal keys: the column-major view of a document x key matrix.

    Args:
        keys: Concatenation of per-document sorted runs of distinct uint64 keys (a stable sort then
            merges the runs instead of sorting from scratch, and keeps documents in order within a
            key).

    Returns:
        ``(order, vocab, df)``: the stable sorting permutation of ``keys``; the sorted distinct keys;
        the int64 number of entries (documents) per distinct key, so that key ``vocab[v]`` owns
        ``order[sum(df[:v]) : sum(df[:v + 1])]``.
    """
    order = np.argsort(keys, kind="stable")
    first = np.empty(keys.size, dtype=bool)
    if keys.size:
        first[0] = True
        # In slices, so the sorted copy of the keys never exists whole (8 bytes an entry).
        step = 1 << 20
        for lo in range(0, keys.size - 1, step):
            hi = min(keys.size, lo + step + 1)
            run = keys[order[lo:hi]]
            np.not_equal(run[1:], run[:-1], out=first[lo + 1 : hi])
    starts = np.flatnonzero(first)
    del first
    vocab = keys[order[starts]]
    df = np.diff(np.append(starts, keys.size))
    return order, vocab, df


def docs_of_entries(indptr: np.ndarray) -> np.ndarray:
    """Document index of every entry of a CSR-like layout with offsets ``indptr`` (int32)."""
    sizes = np.diff(indptr)
    return np.repeat(np.arange(sizes.size, dtype=np.int32), sizes)


def row_sums(values: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over each CSR row segment ``indptr[r]:indptr[r+1]`` (empty rows give 0)."""
    n_rows = indptr.size - 1
    out = np.zeros(n_rows, dtype=np.float64)
    nonempty = indptr[1:] > indptr[:-1]
    if values.size and nonempty.any():
        out[nonempty] = np.add.reduceat(values, indptr[:-1][nonempty])
    return out


def _pick_common_df(df: np.ndarray, nnz: int) -> int:
    """First guess of the document frequency above which a column counts as common.

    The product over columns with df <= D costs about sum(df**2); spend about half the matrix's
    size on it. ``threshold_join`` raises D when the bound it leaves is too loose.
    """
    shared = np.sort(df[df >= 2]).astype(np.float64)
    if shared.size == 0:
        return 2
    cost = np.cumsum(shared * shared)
    budget = max(1e6, 0.5 * nnz)
    idx = int(np.searchsorted(cost, budget, side="right"))
    return int(shared[idx - 1]) if idx > 0 else 2


def threshold_join(
    matrix: sp.csr_matrix,
    df: np.ndarray,
    row_stat: Callable[[np.ndarray], np.ndarray],
    may_pass: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray],
    alone: Callable[[np.ndarray], np.ndarray],
    progress: Progress = NULL_PROGRESS,
    block: int = 2048,
    common_df: int | None = None,
) -> np.ndarray:
    """Pairs that may reach a threshold, found without an N x N product; the caller scores them.

    The columns are split by document frequency into rare (``df <= D``) and common. For each pair
    the exact dot product over the rare columns is computed in row blocks (``M[block] @ M[i:].T``,
    keeping j > i); the common columns enter only through a per-row statistic and a bound.

    Args:
        matrix: CSR (n x F) with non-negative entries.
        df: Number of non-zero rows per column (int).
        row_stat: Given a bool mask of common columns, a per-row statistic of the common part (a
            norm, a count) from which ``may_pass`` bounds what it can add.
        may_pass: ``(partial, i, j, stat) -> bool mask``: can pairs (i, j), whose exact product
            over the rare columns is ``partial``, reach the threshold? Must never answer False for a
            pair that does (answering True too often only costs time).
        alone: ``stat -> bool mask`` of rows that could reach the threshold with some row sharing
            no rare column with them.
        progress: Reports stage ``candidates``; ``check()`` between blocks.
        block: Maximum rows per block.
        common_df: Start with columns in more than this many rows as common (default: chosen from
            the matrix). Any value gives the same pairs; it only moves work between the product and
            the bound.

    Returns:
        Sorted unique int64 pairs (n, 2), i < j, containing every pair that reaches the threshold.
    """
    n = matrix.shape[0]
    if n < 2:
        return np.zeros((0, 2), dtype=np.int64)
    df = np.asarray(df)
    top = int(df.max()) if df.size else 0
    d_common = _pick_common_df(df, matrix.nnz) if common_df is None else max(1, int(common_df))
    while True:
        common = df > d_common
        stat = row_stat(common)
        members = np.flatnonzero(alone(stat))
        if members.size * n <= _ALONE_LIMIT or d_common >= top:
            break
        d_common *= 2
    progress.check()
    rare_mask = ~common[matrix.indices]
    kept_before = np.zeros(rare_mask.size + 1, dtype=np.int64)
    np.cumsum(rare_mask, out=kept_before[1:])
    rare_indptr = kept_before[matrix.indptr]
    rare = sp.csr_matrix(
        (matrix.data[rare_mask], matrix.indices[rare_mask], rare_indptr), shape=matrix.shape
    )
    found: list[np.ndarray] = []

    # Pairs that could pass on the common columns alone (short texts made of common n-grams).
    everyone = np.arange(n, dtype=np.int64)
    for a in members.tolist():
        partners = everyone[everyone != a]
        ai = np.full(partners.size, a, dtype=np.int64)
        ok = may_pass(np.zeros(partners.size), ai, partners, stat)
        if ok.any():
            found.append(np.stack([np.minimum(ai[ok], partners[ok]), np.maximum(ai[ok], partners[ok])], axis=1))

    # Pairs sharing at least one rare column, in row blocks.
    # The first block assumes every pair shares something; later ones use the density seen.
    start = 0
    rows = int(min(block, max(16, _BLOCK_ENTRIES // n)))
    while start < n - 1:
        progress.check()
        stop = min(n, start + rows)
        product = (rare[start:stop] @ rare[start:].T).tocoo()
        i = product.row.astype(np.int64) + start
        j = product.col.astype(np.int64) + start
        partial = product.data
        del product
        upper = j > i
        i, j, partial = i[upper], j[upper], partial[upper]
        if i.size:
            ok = may_pass(partial, i, j, stat)
            if ok.any():
                found.append(np.stack([i[ok], j[ok]], axis=1))
        # Size the next block so its product stays near the target number of entries.
        per_row = max(1.0, i.size / max(1, stop - start))
        rows = int(min(block, max(16, _BLOCK_ENTRIES / per_row)))
        start = stop
        progress.report("candidates", start, n)
    progress.report("candidates", n, n)
    if not found:
        return np.zeros((0, 2), dtype=np.int64)
    return unique_pairs(np.concatenate(found), n)


def _binary_matrix(hash_arrays: Sequence[np.ndarray]) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """0/1 CSR over the shingles shared by two or more documents; full sizes; df of the columns."""
    n = len(hash_arrays)
    sizes = np.fromiter((h.size for h in hash_arrays), dtype=np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    keys = np.concatenate(hash_arrays) if n else np.zeros(0, dtype=np.uint64)
    order, _, df = vocabulary(keys)
    del keys
    shared = df >= 2
    rows = docs_of_entries(indptr)[order[np.repeat(shared, df)]]
    del order
    col_indptr = np.zeros(int(shared.sum()) + 1, dtype=np.int64)
    np.cumsum(df[shared], out=col_indptr[1:])
    data = np.ones(rows.size, dtype=np.float64)
    matrix = sp.csc_matrix((data, rows, col_indptr), shape=(n, col_indptr.size - 1)).tocsr()
    return matrix, sizes, df[shared]


def intersections(matrix: sp.csr_matrix, pairs: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """Number of shared columns of each pair of rows of a 0/1 CSR matrix (int64)."""
    out = np.empty(pairs.shape[0], dtype=np.int64)
    for s in range(0, pairs.shape[0], chunk):
        c = pairs[s : s + chunk]
        prod = matrix[c[:, 0]].multiply(matrix[c[:, 1]])
        out[s : s + c.shape[0]] = np.rint(np.asarray(prod.sum(axis=1)).ravel()).astype(np.int64)
    return out


def all_pairs_jaccard(
    hash_arrays: Sequence[np.ndarray],
    threshold: float,
    *,
    containment_threshold: float = 0.0,
    max_seconds: float | None = None,
    progress: Progress = NULL_PROGRESS,
    common_df: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of documents whose exact Jaccard reaches ``threshold``.

    Args:
        hash_arrays: Per document, its sorted unique uint64 shingle hashes (``Prepared.hashes``).
        threshold: Jaccard |A∩B| / |A∪B| in (0, 1] (a share, not a percent).
        containment_threshold: If > 0, pairs where one document's containment |A∩B| / |A| in the
            other reaches this share are returned too (their score is still their Jaccard).
        max_seconds: Refuse when ``estimated_seconds`` exceeds this (default ``MAX_SECONDS``).
        progress: Reports stage ``candidates``; ``check()`` between blocks.
        common_df: Tuning only (see ``threshold_join``); the result does not depend on it.

    Returns:
        ``(pairs, jaccards)``: int64 (n, 2) with i < j in lexicographic order, and float64 exact
        Jaccard of each pair.

    Raises:
        TooLarge: The estimate exceeds ``max_seconds``; the message says how long it would take.
        ValueError: A threshold is out of range.
    """
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold is a Jaccard value in (0, 1], got {threshold}")
    if not 0.0 <= containment_threshold <= 1.0:
        raise ValueError("containment_threshold is a share in [0, 1]")
    n = len(hash_arrays)
    sizes_list = [int(h.size) for h in hash_arrays]
    refuse_if_too_long(n, float(np.mean(sizes_list)) if n else 0.0, max_seconds)
    empty = (np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.float64))
    if n < 2:
        return empty
    matrix, sizes, df = _binary_matrix(hash_arrays)
    t = float(threshold)
    ct = float(containment_threshold)
    data_ones = np.ones(matrix.nnz, dtype=np.float64)

    def row_stat(common: np.ndarray) -> np.ndarray:
        return row_sums(np.where(common[matrix.indices], data_ones, 0.0), matrix.indptr)

    def may_pass(partial: np.ndarray, i: np.ndarray, j: np.ndarray, stat: np.ndarray) -> np.ndarray:
        # The same ratios as the final test, on an upper bound of the intersection, with slack.
        si, sj = sizes[i], sizes[j]
        smaller = np.maximum(np.minimum(si, sj), 1)
        inter = np.minimum(partial + np.minimum(stat[i], stat[j]), smaller)
        ok = inter / np.maximum(si + sj - inter, 1) >= t - _EPS
        if ct > 0:
            ok |= inter / smaller >= ct - _EPS
        return ok

    def alone(stat: np.ndarray) -> np.ndarray:
        share = min(t, ct) if ct > 0 else t
        return (stat >= share * sizes - _EPS) & (sizes > 0)

    pairs = threshold_join(matrix, df, row_stat, may_pass, alone, progress, common_df=common_df)
    if pairs.size == 0:
        return empty
    inter = intersections(matrix, pairs)
    si, sj = sizes[pairs[:, 0]], sizes[pairs[:, 1]]
    union = si + sj - inter
    # The same float tests as the verification stage (shared / union, shared / smaller size).
    jaccard = inter / np.maximum(union, 1)
    keep = jaccard >= t
    if ct > 0:
        keep |= inter / np.maximum(np.minimum(si, sj), 1) >= ct
    return pairs[keep], jaccard[keep]
