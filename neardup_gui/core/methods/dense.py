"""Large clusters: fewer pairs to verify where many files are near copies of each other.

A folder holding one text filled in thousands of times (daily notices, form letters, a report
template) makes LSH and the containment index propose nearly every pair among those files: 20,000
copies of one notice, each with an amount filled in, gave 1,980,664 pairs to verify (18 minutes,
16 GB), and a review table no one reads pair by pair. What a reviewer needs from such a cluster is
the cluster as a group and each file's closest relatives.

``thin_dense`` finds the groups of files that proposed pairs of near copies (signatures agreeing
on at least ``NEAR_AGREEMENT`` of the permutations) connect. In a group of more than ``limit``
files it keeps each file's ``nearest`` closest partners (by MinHash agreement) and the pairs of a
maximum spanning forest of the group, so the group stays connected through kept pairs; a file
with at most ``nearest`` partners keeps them all, a group of ``limit`` files or fewer (a family of
revisions) keeps every pair, and so does every pair that is not of near copies. The rest are set
aside, counted and named in the run's notes. The caller works on one representative per set of identical texts (``files`` says how many
files each stands for; identical texts are paired by the exact grouping, never set aside) and
passes only the pairs that may be set aside (those inside the comparison scope). Deterministic: the
same signatures keep the same pairs, so a rescan's pair memo still applies.

Imports numpy; scipy for graphs of more than ``_SMALL_GRAPH`` pairs and for the spanning forest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["DENSE_NEAREST", "NEAR_AGREEMENT", "Thinned", "agreement", "thin_by_signatures", "thin_dense", "without"]

# Closest partners a file of a large cluster keeps (besides the cluster's spanning links).
DENSE_NEAREST = 5
# Share of permutations on which a pair's signatures must agree (an estimated Jaccard of 0.25) for
# the pair to count as near copies: only such pairs join files into a large cluster and may be set
# aside. The containment index also proposes pairs that are nothing of the kind (a short text
# inside a long one; in a folder of short texts, two that share one of their few samples): those
# are always verified. 50,000 headlines chained into one "cluster" of 12,691 files through such
# pairs, and 108,791 of them were reported set aside unverified (none held a pair that passed).
NEAR_AGREEMENT = 0.25
# Pairs whose signature rows are compared at once (a chunk's two gathers: ~50 MB at 128 permutations).
_AGREE_CHUNK = 50_000


@dataclass(frozen=True)
class Thinned:
    """What ``thin_dense`` kept.

    Attributes:
        keep: One bool per pair that could be set aside.
        clusters: Groups of more than ``limit`` files.
        documents: Files in those groups.
        set_aside: Pairs not kept.
    """

    keep: np.ndarray
    clusters: int = 0
    documents: int = 0
    set_aside: int = 0


def agreement(sigs: np.ndarray, rows: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Permutations on which the MinHash signatures of each pair agree (int32 per pair).

    ``rows`` maps a document index to its row of ``sigs``.
    """
    out = np.empty(left.size, dtype=np.int32)
    for s in range(0, left.size, _AGREE_CHUNK):
        e = min(s + _AGREE_CHUNK, left.size)
        a, b = sigs[rows[left[s:e]]], sigs[rows[right[s:e]]]
        out[s:e] = np.count_nonzero(a == b, axis=1)
    return out


# Up to this many pairs, groups are found by a union-find in Python (~10 ms for the 8,800 pairs of
# 100,000 articles), sparing a screen the import of scipy's graph routines (~0.15 s) when no group
# is large; beyond it, by ``scipy.sparse.csgraph``.
_SMALL_GRAPH = 50_000


def _components(pairs: np.ndarray, n: int) -> np.ndarray:
    """A label per index below ``n``: equal labels for indexes joined by ``pairs``."""
    if pairs.shape[0] > _SMALL_GRAPH:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        graph = coo_matrix((np.ones(pairs.shape[0], dtype=np.int8), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
        return connected_components(graph, directed=False)[1]
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while x != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    for a, b in pairs.tolist():
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    label = np.arange(n, dtype=np.int64)
    if parent:
        joined = np.fromiter(parent.keys(), dtype=np.int64, count=len(parent))
        label[joined] = [find(int(x)) for x in joined.tolist()]
    return label


def _nearest(left: np.ndarray, right: np.ndarray, agree: np.ndarray, nearest: int) -> np.ndarray:
    """Mask of the pairs among each file's ``nearest`` highest agreements (ties: lower partner)."""
    m = left.size
    src = np.concatenate([left, right])
    dst = np.concatenate([right, left])
    score = np.concatenate([agree, agree])
    pid = np.concatenate([np.arange(m), np.arange(m)])
    order = np.lexsort((dst, -score, src))  # by file, best agreement first, then partner
    src_sorted = src[order]
    starts = np.flatnonzero(np.r_[True, src_sorted[1:] != src_sorted[:-1]])
    rank = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
    keep = np.zeros(m, dtype=bool)
    keep[pid[order[rank < nearest]]] = True
    return keep


def _spanning(left: np.ndarray, right: np.ndarray, agree: np.ndarray, n: int, most: int) -> np.ndarray:
    """Mask of the pairs of a maximum spanning forest by agreement (each component stays connected)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree

    # Weights must be positive (a zero is no edge): the highest agreement gets the lowest weight.
    weight = (most + 1 - agree).astype(np.float64)
    graph = coo_matrix((weight, (left, right)), shape=(n, n)).tocsr()
    tree = minimum_spanning_tree(graph).tocoo()
    a = np.minimum(tree.row, tree.col).astype(np.int64)
    b = np.maximum(tree.row, tree.col).astype(np.int64)
    # Back to input positions: pairs are unique, so (a, b) names one of them.
    key = left.astype(np.int64) * n + right
    order = np.argsort(key, kind="stable")
    found = np.searchsorted(key[order], a * n + b)
    keep = np.zeros(left.size, dtype=bool)
    keep[order[found]] = True
    return keep


def thin_dense(
    pairs: np.ndarray,
    n: int,
    limit: int,
    agreement_of: Callable[[np.ndarray, np.ndarray], np.ndarray],
    permutations: int,
    nearest: int = DENSE_NEAREST,
    files: np.ndarray | None = None,
) -> Thinned:
    """Which of ``pairs`` (unique (i, j), i < j, document indices below ``n``) to verify.

    Args:
        limit: Groups of more than this many files are thinned; 0 keeps every pair.
        agreement_of: (left, right) -> the MinHash agreement of each of those pairs (``agreement``
            over the signatures at hand; the Dask engine fetches the rows it needs first). Asked
            only about pairs inside large groups.
        permutations: The signatures' length (the highest agreement).
        nearest: Closest partners each file of such a group keeps.
        files: Files each index stands for (a representative of identical texts stands for
            them all); 1 each when not given.
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    keep = np.ones(pairs.shape[0], dtype=bool)
    if limit <= 0 or not pairs.shape[0]:
        return Thinned(keep)
    # The groups every proposed pair joins first: only pairs inside those larger than the limit can
    # be set aside, so only theirs are asked for (the Dask engine fetches their rows).
    inside, _ = _large_groups(pairs, n, limit, files)
    if not inside.size:
        return Thinned(keep)
    agree = np.asarray(agreement_of(pairs[inside, 0], pairs[inside, 1]), dtype=np.int32)
    near = agree >= NEAR_AGREEMENT * permutations
    inside, agree = inside[near], agree[near]
    # Then the groups of near copies among them (a pair of no near copies joins nothing).
    within, groups = _large_groups(pairs[inside], n, limit, files)
    if not within.size:
        return Thinned(keep)
    inside, agree = inside[within], agree[within]
    left, right = pairs[inside, 0], pairs[inside, 1]
    chosen = _nearest(left, right, agree, nearest) | _spanning(left, right, agree, n, permutations)
    keep[inside[~chosen]] = False
    set_aside = int(inside.size - np.count_nonzero(chosen))
    return Thinned(keep, groups[0], groups[1], set_aside)


def _large_groups(
    pairs: np.ndarray, n: int, limit: int, files: np.ndarray | None
) -> tuple[np.ndarray, tuple[int, int]]:
    """Positions in ``pairs`` of the pairs inside groups (which ``pairs`` join) of more than
    ``limit`` files, and (how many such groups, their files)."""
    if not pairs.shape[0]:
        return np.zeros(0, dtype=np.int64), (0, 0)
    label = _components(pairs, n)
    size = np.bincount(label, weights=files).astype(np.int64) if files is not None else np.bincount(label)
    large = size > limit
    paired = np.zeros(size.size, dtype=bool)
    paired[label[pairs[:, 0]]] = True
    large &= paired  # not a lone file standing for many identical copies (those pair as a star)
    return np.flatnonzero(large[label[pairs[:, 0]]]), (int(np.count_nonzero(large)), int(size[large].sum()))


def thin_by_signatures(
    pairs: np.ndarray, n: int, sigs: np.ndarray, rows: np.ndarray, limit: int, files: np.ndarray | None = None
) -> Thinned:
    """``thin_dense`` with every signature at hand: ``rows[i]`` is index i's row of ``sigs``."""
    rows = np.asarray(rows, dtype=np.int64)
    return thin_dense(
        pairs, n, limit, lambda left, right: agreement(sigs, rows, left, right), int(sigs.shape[1]), files=files
    )


def without(given: np.ndarray, dropped: np.ndarray, n: int) -> np.ndarray:
    """The pairs of ``given`` (shape (m, 2), any order) that are not in ``dropped`` (unique pairs
    sorted as ``minhash_lsh.unique_pairs`` sorts them, indexes below ``n``), in their order."""
    given = np.asarray(given, dtype=np.int64).reshape(-1, 2)
    if not dropped.shape[0] or not given.shape[0]:
        return given
    code = dropped[:, 0] * n + dropped[:, 1]
    mine = given[:, 0] * n + given[:, 1]
    at = np.minimum(np.searchsorted(code, mine), code.size - 1)
    return given[code[at] != mine]
