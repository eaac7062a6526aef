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


def _to_raw(seg: Segment, left: Normalized, right: Normalized) -> Segment:
    ls, le = left.raw_span(seg.left_start, seg.left_end)
    rs, re_ = right.raw_span(seg.right_start, seg.right_end)
    return Segment(ls, le, rs, re_)


def _outside(norm: Normalized, covered: list[Span]) -> tuple[Span, ...]:
    """Raw spans of normalized characters not covered by any normalized span in ``covered``."""
    n = len(norm)
    if n == 0:
        return ()
    mask = np.ones(n, dtype=bool)
    for s, e in covered:
        mask[s:e] = False
    if not mask.any():
        return ()
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.view(np.int8), [0]))))
    return tuple(norm.raw_span(int(s), int(e)) for s, e in zip(edges[::2], edges[1::2]))


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
    runs = shared_runs(ln, rn, min_len, timeout)
    segments = tuple(_to_raw(s, ln, rn) for s in runs)

    # Join runs separated by small gaps on both sides into regions (normalized offsets).
    norm_regions: list[Segment] = []
    for s in runs:
        if norm_regions:
            p = norm_regions[-1]
            if s.left_start - p.left_end <= gap and s.right_start - p.right_end <= gap:
                norm_regions[-1] = Segment(p.left_start, s.left_end, p.right_start, s.right_end)
                continue
        norm_regions.append(s)
    regions = tuple(_to_raw(r, ln, rn) for r in norm_regions)

    hunks: list[Segment] = []
    for reg in regions:
        a = left_raw[reg.left_start : reg.left_end]
        b = right_raw[reg.right_start : reg.right_end]
        pending: list[DiffOp] = []
        for op in diff_ops(a, b, timeout=timeout, semantic=False) + [DiffOp("equal", len(a), len(a), len(b), len(b))]:
            if op.kind != "equal":
                pending.append(op)
                continue
            if pending:
                hunks.append(
                    Segment(
                        reg.left_start + pending[0].left_start,
                        reg.left_start + pending[-1].left_end,
                        reg.right_start + pending[0].right_start,
                        reg.right_start + pending[-1].right_end,
                    )
                )
                pending = []

    left_unique = _outside(ln, [(r.left_start, r.left_end) for r in norm_regions])
    right_unique = _outside(rn, [(r.right_start, r.right_end) for r in norm_regions])
    return PairDiff(segments, regions, tuple(hunks), left_unique, right_unique)
