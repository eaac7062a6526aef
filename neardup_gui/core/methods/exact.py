"""Exact pass: documents whose normalized text is identical form a group.

Groups are found by a 128-bit digest of the normalized code points (``normalized_digests``). Each
group is reported as pairs with Jaccard 1.0 and the flag ``exact_normalized``; only one member per
group enters the near-duplicate indexes, so a thousand identical copies cost one signature, not a
thousand.

Imports numpy; the compiled digest (``core._prepkernel``, numba) only when a batch is large or the
kernels are loaded already.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from neardup_gui.core.compiled import kernel_module
from neardup_gui.core.progress import consume_giving_way, list_giving_way

__all__ = [
    "DigestGroups",
    "digest_groups",
    "normalized_digest",
    "normalized_digests",
    "digest_bytes",
    "digests_of",
    "first_occurrences",
    "group_by_digest",
    "pairs_within",
    "pairs_between",
]

# Beyond this many pairs a group (or a pair of groups) is reported as a star around its first
# member rather than every pair, so one boilerplate file copied 1,000 times gives 999 rows, not 499,500.
MAX_GROUP_PAIRS = 50


# The digest of a normalized text: two 64-bit lanes, each the sum (modulo 2**64) over its code
# points of a 64-bit mix of (position << 32 | code point), finished by another mix with the length.
# Every (position, code point) pair counts, so reordering changes it; each lane is a different
# mix (MurmurHash3's finalizer after a multiply, SplitMix64's after an add), so two different texts
# share a digest by chance with a probability of about 2**-128. Not a defence against texts made to
# collide on purpose: exact groups are a screening aid, each pair shown to a reviewer with its
# texts. It replaced BLAKE2b (6.5-10.5 us for a 1,500-character text, 1.2 core-seconds at 100,000
# files): computed in the compiled prepare (``_prepkernel.batch_digests``, the same arithmetic) it
# costs ~2.2 us; in numpy, a batch at a time, ~20 ns a code point (small folders only).
_M1, _M2 = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53)
_S1, _S2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_K1, _K2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xD6E8FEB86659FD93)
_R33, _R30, _R27, _R31 = np.uint64(33), np.uint64(30), np.uint64(27), np.uint64(31)


def _lane1(x: np.ndarray) -> np.ndarray:  # in place; MurmurHash3's fmix64 of x * K1
    x *= _K1
    x ^= x >> _R33
    x *= _M1
    x ^= x >> _R33
    x *= _M2
    x ^= x >> _R33
    return x


def _lane2(x: np.ndarray) -> np.ndarray:  # in place; SplitMix64's mix of x + K2
    x += _K2
    x ^= x >> _R30
    x *= _S1
    x ^= x >> _R27
    x *= _S2
    x ^= x >> _R31
    return x


# From this many code points in a call the compiled digest is loaded if it is not yet (numba's
# start-up); below, numpy (~20 ns a code point against ~2).
_COMPILED_MIN_CHARS = 2_000_000


def _digest_kernel(total: int) -> Callable[[np.ndarray, np.ndarray, np.ndarray], None] | None:
    if total < _COMPILED_MIN_CHARS and "neardup_gui.core._prepkernel" not in sys.modules:
        return None
    module = kernel_module("_prepkernel")
    return None if module is None else module.batch_digests


def digest_bytes(lanes: np.ndarray) -> list[bytes]:
    """Each row of ``lanes`` (uint64, shape (n, 2)) as its 16-byte digest (little-endian lanes)."""
    raw = np.ascontiguousarray(lanes, dtype="<u8").tobytes()
    return [raw[o : o + 16] for o in range(0, len(raw), 16)]


def normalized_digests(cps: np.ndarray, bounds: np.ndarray) -> list[bytes]:
    """The 16-byte digest of each normalized text of a batch: document ``d`` is
    ``cps[bounds[d]:bounds[d + 1]]`` (uint32 code points); an empty text has one too."""
    bounds = np.asarray(bounds, dtype=np.int64)
    n = bounds.size - 1
    lengths = np.diff(bounds)
    total = int(bounds[-1] - bounds[0]) if n > 0 else 0
    kernel = _digest_kernel(total)
    sums = np.zeros((n, 2), dtype=np.uint64)
    if kernel is not None:
        kernel(np.ascontiguousarray(cps, dtype=np.uint32), bounds, sums)
        return digest_bytes(sums)
    if total:
        starts = np.repeat(bounds[:-1] - bounds[0], lengths)
        x = np.arange(total, dtype=np.uint64) - starts.astype(np.uint64)  # position within its text
        x <<= np.uint64(32)
        x |= np.asarray(cps[bounds[0] : bounds[-1]], dtype=np.uint64)
        filled = np.flatnonzero(lengths)  # ``reduceat`` over an empty run gives the next element
        with np.errstate(over="ignore"):
            sums[filled, 0] = np.add.reduceat(_lane1(x.copy()), bounds[filled] - bounds[0])
            sums[filled, 1] = np.add.reduceat(_lane2(x), bounds[filled] - bounds[0])
    with np.errstate(over="ignore"):
        n64 = lengths.astype(np.uint64)
        sums[:, 0] ^= n64
        sums[:, 1] += n64
        _lane1(sums[:, 0])
        _lane2(sums[:, 1])
    return digest_bytes(sums)


def normalized_digest(cps: np.ndarray) -> bytes:
    """Digest of one text's normalized code points (uint32 array): ``normalized_digests`` of it."""
    return normalized_digests(cps, np.array([0, len(cps)], dtype=np.int64))[0]


def digests_of(cps_list: Sequence[np.ndarray]) -> list[bytes]:
    """``normalized_digest`` of each text, computed as one batch."""
    bounds = np.zeros(len(cps_list) + 1, dtype=np.int64)
    np.cumsum([c.size for c in cps_list], out=bounds[1:])
    joined = np.concatenate(cps_list) if cps_list else np.zeros(0, dtype=np.uint32)
    return normalized_digests(joined, bounds)


def group_by_digest(digests: Sequence[bytes]) -> list[list[int]]:
    """Indexes grouped by equal digest; groups in order of first member; members ascending."""
    groups: dict[bytes, list[int]] = {}
    for i, d in enumerate(digests):
        groups.setdefault(d, []).append(i)
    return list(groups.values())


@dataclass(frozen=True)
class DigestGroups:
    """``group_by_digest`` as columns: groups numbered in order of their first member.

    Attributes:
        of: The group of each index (int64).
        reps: Each group's first member (int64, ascending).
        sizes: Each group's number of members (int64).
    """

    of: np.ndarray
    reps: np.ndarray
    sizes: np.ndarray
    _several: dict[int, list[int]]  # the members of each group of two or more, ascending

    def __len__(self) -> int:
        return int(self.reps.size)

    def members(self, group: int) -> list[int]:
        """The members of ``group``, ascending."""
        return self._several.get(group) or [int(self.reps[group])]

    def several(self) -> Iterator[list[int]]:
        """The members of each group of two or more, in group order."""
        return iter(self._several.values())


def first_occurrences(items: Iterable[Hashable]) -> dict[Any, int]:
    """Each distinct item and the index of its first occurrence, in that order (``dict.setdefault``
    mapped over them in C: a third of the time of a loop calling it)."""
    first: dict[Any, int] = {}
    consume_giving_way(map(first.setdefault, items, itertools.count()))  # a slice per call
    return first


def digest_groups(digests: Sequence[Hashable]) -> DigestGroups:
    """``group_by_digest(digests)`` without a Python list per group: the index of each digest's
    first occurrence is found by one ``dict.setdefault`` mapped over them (in C), the rest in
    numpy. 100,000 digests: 33-40 ms, against ~0.2 s for the lists and a loop over them."""
    n = len(digests)
    first = np.fromiter(list_giving_way(map({}.setdefault, digests, itertools.count())), dtype=np.int64, count=n)
    is_first = first == np.arange(n, dtype=np.int64)
    reps = np.flatnonzero(is_first).astype(np.int64, copy=False)
    number = np.cumsum(is_first, dtype=np.int64) - 1  # at a first occurrence: its group's number
    of = number[first]
    sizes = np.bincount(of, minlength=reps.size).astype(np.int64, copy=False)
    several: dict[int, list[int]] = {}
    shared = np.flatnonzero(sizes[of] > 1)
    if shared.size:
        shared = shared[np.argsort(of[shared], kind="stable")]  # by group, members ascending within
        cut = np.flatnonzero(np.diff(of[shared])) + 1
        for part in np.split(shared, cut):
            several[int(of[part[0]])] = part.tolist()
    return DigestGroups(of, reps, sizes, several)


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
