"""Anchors that split the alignment of two long texts into small diffs.

diff-match-patch's middle snake costs the texts' length times their differences (O(N*D)): two
75,000-character manuscripts with a tenth of their chapters replaced took ~0.25 s, four such
manuscripts joined (~290,000 characters) ~4 s, and an article quoted inside a 160,000-character
text ran out of the diff's budget (no shared passage found at all). Long texts are therefore
aligned the way patience diff does it: windows of ``ANCHOR_K`` characters that occur exactly once
in each text and are the same in both are seeds; the longest chain of seeds in the same order on
both sides (``chain``) is kept; seeds on one diagonal are joined (``anchor_runs``); the text
between two anchors is diffed on its own. The cost is then the sum of each gap's length times its
differences, and a quotation is found wherever its own windows are unique.

Texts shorter than ``ANCHOR_FROM`` code points together (every article) are aligned by one diff,
exactly as diff-match-patch aligns them. The seeds are a sample of the windows chosen by their
hash (``ANCHOR_SAMPLE``): a window is sampled in both texts or in neither, and a chain over a
sample costs a fraction of one over every window. Where two texts have no seed in common, they
are aligned by one diff as before.

Both alignment paths use these functions: ``core._diffkernel`` compiles ``chain`` and
``anchor_runs`` with numba and finds the seeds in compiled code; ``core.diffspans`` finds them
with numpy (``seeds``) and runs the two functions here as plain Python when the kernel is not
loaded. Both give the same anchors, and the library and the kernel the same diff between them
(``tests/core/test_anchors.py``). Imports numpy only; the functions below use only what numba
compiles (loops over arrays).
"""

from __future__ import annotations

import numpy as np

from neardup_gui.core.shingles import window_hashes

__all__ = ["ANCHOR_FROM", "ANCHOR_K", "ANCHOR_SAMPLE", "anchor_runs", "chain", "seeds"]

# Code points of both texts together from which an alignment is anchored (an article pair has
# ~3,000; ``bench/bench_long.py``'s manuscripts ~140,000).
ANCHOR_FROM = 20_000
# Length of a seed window: long enough to occur once in a text of prose, short enough that most
# runs of text two versions share hold several.
ANCHOR_K = 24
# One window in this many (by its hash) may be a seed.
ANCHOR_SAMPLE = 8


def seeds(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the sampled windows that occur once in ``a`` and once in ``b`` start (numpy).

    Args:
        a, b: Code points (uint32) of the two texts.

    Returns:
        (positions in ``a``, positions in ``b``), int64, ordered by the position in ``a``; only
        windows whose code points are equal on both sides (a hash collision is no seed).
    """
    pa, ha = _sampled_once(a)
    pb, hb = _sampled_once(b)
    _, ia, ib = np.intersect1d(ha, hb, assume_unique=True, return_indices=True)
    sa, sb = pa[ia], pb[ib]
    same = np.ones(sa.size, dtype=bool)
    for j in range(ANCHOR_K):
        same &= a[sa + j] == b[sb + j]
    sa, sb = sa[same], sb[same]
    order = np.argsort(sa, kind="stable")
    return sa[order], sb[order]


def _sampled_once(cps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(positions, hashes) of the sampled windows whose hash occurs once in ``cps``."""
    h = window_hashes(cps, ANCHOR_K)
    pos = np.flatnonzero(h % np.uint64(ANCHOR_SAMPLE) == 0)
    vals = h[pos]
    order = np.argsort(vals, kind="stable")
    vals, pos = vals[order], pos[order]
    once = np.ones(vals.size, dtype=bool)
    if vals.size > 1:
        repeat = vals[1:] == vals[:-1]
        once[1:] &= ~repeat
        once[:-1] &= ~repeat
    return pos[once].astype(np.int64), vals[once]


def chain(sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
    """Indexes of the longest chain of seeds in the same order on both sides.

    ``sa`` is increasing; the chain is the longest strictly increasing run of ``sb`` (patience
    sorting, O(n log n)); of several equally long chains, the one whose each seed ended the
    earliest pile when it was placed. Plain loops: compiled by ``core._diffkernel`` as it is.
    """
    n = sb.size
    tails = np.empty(n, dtype=np.int64)  # index of the seed ending the best chain of each length
    back = np.empty(n, dtype=np.int64)  # the seed before each one in its chain
    length = 0
    for i in range(n):
        v = sb[i]
        lo, hi = 0, length
        while lo < hi:  # the first chain whose last seed is not below v
            mid = (lo + hi) // 2
            if sb[tails[mid]] < v:
                lo = mid + 1
            else:
                hi = mid
        back[i] = tails[lo - 1] if lo > 0 else -1
        tails[lo] = i
        if lo == length:
            length += 1
    out = np.empty(length, dtype=np.int64)
    i = tails[length - 1] if length else -1
    for j in range(length - 1, -1, -1):
        out[j] = i
        i = back[i]
    return out


def anchor_runs(sa: np.ndarray, sb: np.ndarray, picked: np.ndarray, k: int) -> np.ndarray:
    """The chained seeds as anchors: rows (start in a, start in b, length), in order, apart.

    Seeds on one diagonal that overlap or touch become one anchor; a seed that overlaps the
    anchor before it on either side starts after it, on its own diagonal. An anchor ends where its
    last seed ends, and chained seeds increase on both sides, so the overlap is shorter than a
    seed: every seed keeps at least one character.
    """
    out = np.empty((picked.size, 3), dtype=np.int64)
    m = 0
    for j in range(picked.size):
        x, y = sa[picked[j]], sb[picked[j]]
        n = k
        if m:
            ex, ey = out[m - 1, 0] + out[m - 1, 2], out[m - 1, 1] + out[m - 1, 2]
            if x - y == out[m - 1, 0] - out[m - 1, 1] and x <= ex:  # the same diagonal: one run
                out[m - 1, 2] = max(ex, x + k) - out[m - 1, 0]
                continue
            shift = max(ex - x, ey - y, 0)
            x, y, n = x + shift, y + shift, n - shift
        out[m, 0], out[m, 1], out[m, 2] = x, y, n
        m += 1
    return out[:m].copy()
