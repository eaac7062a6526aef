"""Exact pass: documents whose normalized text is identical form a group.

Groups are found by a 128-bit BLAKE2b digest of the normalized code points. Each group is reported as
pairs with Jaccard 1.0 and the flag ``exact_normalized``; only one member per group enters the
near-duplicate indexes, so a thousand identical copies cost one signature, not a thousand.

Standard library only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

__all__ = ["normalized_digest", "group_by_digest", "pairs_within", "pairs_between"]

# Beyond this many pairs a group (or a pair of groups) is reported as a star around its first
# member rather than every pair, so one boilerplate file copied 1,000 times gives 999 rows, not 499,500.
MAX_GROUP_PAIRS = 50


def normalized_digest(cps: np.ndarray) -> bytes:
    """Digest of normalized code points (uint32 array)."""
    # The array's own buffer (no bytes copy); the same bytes as ``tobytes()``, so the same digest.
    return hashlib.blake2b(memoryview(np.ascontiguousarray(cps, dtype=np.uint32)), digest_size=16).digest()


def group_by_digest(digests: Sequence[bytes]) -> list[list[int]]:
    """Indexes grouped by equal digest; groups in order of first member; members ascending."""
    groups: dict[bytes, list[int]] = {}
    for i, d in enumerate(digests):
        groups.setdefault(d, []).append(i)
    return list(groups.values())


def pairs_within(members: Sequence[int]) -> list[tuple[int, int]]:
    """Pairs inside one group (all of them, or a star when there would be too many)."""
    n = len(members)
    if n < 2:
        return []
    if n * (n - 1) // 2 <= MAX_GROUP_PAIRS:
        return [(members[i], members[j]) for i in range(n) for j in range(i + 1, n)]
    return [(members[0], m) for m in members[1:]]


def pairs_between(left: Sequence[int], right: Sequence[int]) -> list[tuple[int, int]]:
    """Pairs joining two groups whose representatives were found similar."""
    if len(left) * len(right) <= MAX_GROUP_PAIRS:
        return [(a, b) for a in left for b in right]
    out = [(a, right[0]) for a in left]
    out.extend((left[0], b) for b in right[1:])
    return out
