"""Where two texts overlap and where they differ, as code-point spans on the raw texts.

The alignment is computed on the normalized texts (so formatting differences do not break a match)
with fast-diff-match-patch (C++; ~0.1 s for a 100,000-character pair where difflib takes ~30 s), then
mapped back to raw offsets:

- ``segments``: passages shared by both texts (equal runs of at least ``min_len`` normalized
  characters), the same passage on both sides;
- ``regions``: runs of segments separated by small gaps (at most ``gap`` normalized characters on
  each side) - a matched region of the two texts;
- ``hunks``: inside each region, the raw character-level differences, aligned (left span, right
  span; one may be empty) - a changed number, an inserted 不, a different punctuation mark;
- ``left_unique`` / ``right_unique``: normalized text outside every region, as raw spans.

Offsets are code points with the end excluded. Views that count UTF-16 units (Qt) convert them.
Imports numpy and fast_diff_match_patch only.
"""

from __future__ import annotations

from dataclasses import dataclass

import fast_diff_match_patch as fdmp
import numpy as np

from neardup_gui.core.normalize import Normalized, normalize
from neardup_gui.core.records import NormalizeOptions, Segment

__all__ = ["DiffOp", "PairDiff", "diff_ops", "pair_diff", "shared_runs"]

Span = tuple[int, int]


@dataclass(frozen=True)
class DiffOp:
    """One step of an alignment: ``equal``, ``delete`` (left only) or ``insert`` (right only)."""

    kind: str
    left_start: int
    left_end: int
    right_start: int
    right_end: int


@dataclass(frozen=True)
class PairDiff:
    """Everything a two-pane view or a revision check needs about one pair (raw offsets)."""

    segments: tuple[Segment, ...]
    regions: tuple[Segment, ...]
    hunks: tuple[Segment, ...]
    left_unique: tuple[Span, ...]
    right_unique: tuple[Span, ...]

    @property
    def left_changes(self) -> tuple[Span, ...]:
        return tuple((h.left_start, h.left_end) for h in self.hunks if h.left_end > h.left_start)

    @property
    def right_changes(self) -> tuple[Span, ...]:
        return tuple((h.right_start, h.right_end) for h in self.hunks if h.right_end > h.right_start)


def diff_ops(left: str, right: str, *, timeout: float = 5.0, semantic: bool = False) -> list[DiffOp]:
    """Character alignment of two strings.

    Args:
        left, right: Texts to align.
        timeout: Seconds the diff may take before it settles for a coarser result.
        semantic: Apply semantic clean-up (fewer, longer hunks; good for display).

    Returns:
        Ops in order, covering both strings entirely.
    """
    if not left and not right:
        return []
    raw = fdmp.diff(left, right, timelimit=timeout, checklines=False, cleanup="Semantic" if semantic else "No")
    ops: list[DiffOp] = []
    li = ri = 0
    for op, length in raw:
        if op == "=":
            ops.append(DiffOp("equal", li, li + length, ri, ri + length))
            li += length
            ri += length
        elif op == "-":
            ops.append(DiffOp("delete", li, li + length, ri, ri))
            li += length
        else:
            ops.append(DiffOp("insert", li, li, ri, ri + length))
            ri += length
    return ops


def shared_runs(left: Normalized, right: Normalized, min_len: int, timeout: float = 5.0) -> list[Segment]:
    """Equal runs of at least ``min_len`` characters between two normalized texts (normalized offsets)."""
    if len(left) == 0 or len(right) == 0:
        return []
    out = []
    for op in diff_ops(left.text, right.text, timeout=timeout):
        if op.kind == "equal" and op.left_end - op.left_start >= min_len:
            out.append(Segment(op.left_start, op.left_end, op.right_start, op.right_end))
    return out


def _raw_spans(norm: Normalized, starts: list[int], ends: list[int]) -> list[Span]:
    """Raw spans of the normalized spans ``[starts[i], ends[i])`` (each non-empty), in one lookup."""
    if not starts:
        return []
    rs = norm.starts[np.asarray(starts, dtype=np.int64)].tolist()
    re_ = norm.ends[np.asarray(ends, dtype=np.int64) - 1].tolist()
    return list(zip(rs, re_))


def _whole_clusters(runs: list[Segment], left: Normalized, right: Normalized, min_len: int) -> list[Segment]:
    """The equal runs trimmed, the same on both sides, until each side starts and ends on a boundary
    between raw character clusters; runs left shorter than ``min_len`` are dropped.

    A base character and the combining marks after it map to one raw span together, so a run that
    ended after the base of ``0`` + U+093A would show the mark as shared when the other side has
    none. Trimming keeps every shared passage equal after normalization, raw text included.
    """
    if not runs:
        return runs
    ls, rs = left.starts, right.starts
    n_left, n_right = len(left), len(right)

    def mid(starts, i: int, n: int) -> bool:  # normalized index i falls inside a cluster
        return 0 < i < n and starts[i] == starts[i - 1]

    out = []
    for run in runs:
        a, b, c, d = run.left_start, run.left_end, run.right_start, run.right_end
        while b > a and (mid(ls, b, n_left) or mid(rs, d, n_right)):
            b, d = b - 1, d - 1
        while a < b and (mid(ls, a, n_left) or mid(rs, c, n_right)):
            a, c = a + 1, c + 1
        if b - a >= min_len:
            out.append(run if (a, b) == (run.left_start, run.left_end) else Segment(a, b, c, d))
    return out


def _to_raw_all(segs: list[Segment], left: Normalized, right: Normalized) -> tuple[Segment, ...]:
    """``segs`` (normalized offsets) as raw spans on both sides."""
    if not segs:
        return ()
    lsp = _raw_spans(left, [s.left_start for s in segs], [s.left_end for s in segs])
    rsp = _raw_spans(right, [s.right_start for s in segs], [s.right_end for s in segs])
    return tuple(Segment(a, b, c, d) for (a, b), (c, d) in zip(lsp, rsp))


def _outside(norm: Normalized, covered: list[Span]) -> tuple[Span, ...]:
    """Raw spans of normalized characters not covered by any normalized span in ``covered``.

    ``covered`` is sorted and non-overlapping (the regions of one alignment), so the uncovered runs
    are the non-empty gaps before, between and after them.
    """
    n = len(norm)
    if n == 0:
        return ()
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for s, e in covered:
        if s > pos:
            starts.append(pos)
            ends.append(s)
        pos = max(pos, e)
    if pos < n:
        starts.append(pos)
        ends.append(n)
    return tuple(_raw_spans(norm, starts, ends))


def _hunks(a: str, b: str, off_l: int, off_r: int, timeout: float, out: list[Segment]) -> None:
    """Append the runs of non-equal diff ops between ``a`` and ``b`` to ``out`` (raw, offsets added).

    Same result as grouping ``diff_ops(a, b)`` between its equal ops, without building the ops.
    """
    if a == b:
        return
    li = ri = 0
    pl = pr = -1  # where the pending run of changes began (-1: none pending)
    for op, length in fdmp.diff(a, b, timelimit=timeout, checklines=False, cleanup="No"):
        if op == "=":
            if pl >= 0:
                out.append(Segment(off_l + pl, off_l + li, off_r + pr, off_r + ri))
                pl = -1
            li += length
            ri += length
            continue
        if pl < 0:
            pl, pr = li, ri
        if op == "-":
            li += length
        else:
            ri += length
    if pl >= 0:
        out.append(Segment(off_l + pl, off_l + li, off_r + pr, off_r + ri))


def pair_diff(
    left_raw: str,
    right_raw: str,
    options: NormalizeOptions | None = None,
    *,
    min_len: int = 5,
    gap: int = 12,
    timeout: float = 5.0,
    left_norm: Normalized | None = None,
    right_norm: Normalized | None = None,
) -> PairDiff:
    """Shared passages, matched regions, character-level hunks and unique text of a pair.

    Args:
        left_raw, right_raw: Raw texts as shown to the user.
        options: Normalization used for the alignment (default: the engine default).
        min_len: Shortest shared run kept, in normalized characters (use the shingle length k).
        gap: Largest difference (normalized characters, each side) that still joins two shared
            runs into one matched region.
        timeout: Seconds allowed per diff.
        left_norm, right_norm: Pre-computed normalizations of the raw texts, if at hand.
    """
    ln = left_norm if left_norm is not None else normalize(left_raw, options)
    rn = right_norm if right_norm is not None else normalize(right_raw, options)
    # Shared runs and their grouping into regions, in normalized offsets (as ``shared_runs``).
    runs: list[Segment] = []
    norm_regions: list[Segment] = []
    if len(ln) and len(rn):
        li = ri = 0
        for op, length in fdmp.diff(ln.text, rn.text, timelimit=timeout, checklines=False, cleanup="No"):
            if op == "=":
                if length >= min_len:
                    s = Segment(li, li + length, ri, ri + length)
                    runs.append(s)
                    # Join runs separated by small gaps on both sides into regions.
                    if norm_regions:
                        p = norm_regions[-1]
                        if li - p.left_end <= gap and ri - p.right_end <= gap:
                            norm_regions[-1] = Segment(p.left_start, s.left_end, p.right_start, s.right_end)
                            li += length
                            ri += length
                            continue
                    norm_regions.append(s)
                li += length
                ri += length
            elif op == "-":
                li += length
            else:
                ri += length
    segments = _to_raw_all(_whole_clusters(runs, ln, rn, min_len), ln, rn)
    regions = _to_raw_all(norm_regions, ln, rn)

    hunks: list[Segment] = []
    for reg in regions:
        _hunks(
            left_raw[reg.left_start : reg.left_end],
            right_raw[reg.right_start : reg.right_end],
            reg.left_start,
            reg.right_start,
            timeout,
            hunks,
        )

    left_unique = _outside(ln, [(r.left_start, r.left_end) for r in norm_regions])
    right_unique = _outside(rn, [(r.right_start, r.right_end) for r in norm_regions])
    return PairDiff(segments, regions, tuple(hunks), left_unique, right_unique)
