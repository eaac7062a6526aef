"""Where two texts overlap and where they differ, as code-point spans on the raw texts.

The alignment is computed on the normalized texts (so formatting differences do not break a match)
with fast-diff-match-patch (C++; ~0.1 s for a 100,000-character pair where difflib takes ~30 s), then
mapped back to raw offsets. Texts of ``anchors.ANCHOR_FROM`` code points together or more are
aligned between anchors (windows once in each text, in the same order on both sides) and diffed
piece by piece (``core.anchors``): one diff of a long revision cost its length times its
differences, and a quotation inside a long text could run out of the diff's budget unfound.

- ``segments``: passages shared by both texts (equal runs of at least ``min_len`` normalized
  characters), the same passage on both sides;
- ``regions``: runs of segments separated by small gaps (at most ``gap`` normalized characters on
  each side) - a matched region of the two texts;
- ``hunks``: inside each region, the raw character-level differences, aligned (left span, right
  span; one may be empty) - a changed number, an inserted 不, a different punctuation mark. They
  are found between anchors (``_anchor_gaps``): characters the normalized alignment pairs whose raw
  text is the same, so a region's raw text is never diffed at once (that cost its length times its
  differences: 14 s, and a hunk over half the text, for a 120,000-character reformatted copy);
- ``left_unique`` / ``right_unique``: normalized text outside every region, as raw spans.

Offsets are code points with the end excluded. Views that count UTF-16 units (Qt) convert them.

Once the compiled diff is loaded (``load_kernel``: the window's warm-up does it, and so does a
screen whose preparation loaded numba), the alignments come from ``core._diffkernel`` instead: the
same ops (tested against the library on real and random pairs), 2-3x faster on a screen's pairs,
and it releases the GIL. Otherwise, and for the semantic clean-up, the C++ library. ``pack_verify`` / ``align_verify`` / ``unpack_verify``
give the verification stage whole batches of pairs in one kernel call (normalization and the
shared-shingle sample included), so that a thread can run it while another builds candidates.
Imports numpy and fast_diff_match_patch (numba only when it is loaded already).
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass
from itertools import starmap
from types import ModuleType

import fast_diff_match_patch as fdmp
import numpy as np

from neardup_gui.core.anchors import ANCHOR_FROM, ANCHOR_K, anchor_runs, chain, seeds
from neardup_gui.core.compiled import kernel_module
from neardup_gui.core.normalize import Normalized, codepoints, exact_path_flags, lookup_table, normalize, to_text
from neardup_gui.core.records import NormalizeOptions, Segment, shared_strings
from neardup_gui.core.shingles import window_base

log = logging.getLogger(__name__)

# The kernel's time limit is a budget of search steps (deterministic); this many take about a
# second on the machines measured (a 10,000-character pair with nothing in common: ~1.9e8 steps).
STEPS_PER_SECOND = 300_000_000
EQUAL, DELETE, INSERT = 0, 1, 2  # op kinds in the arrays below (``core._diffkernel``'s)
_KIND = {"=": EQUAL, "-": DELETE, "+": INSERT}

__all__ = [
    "DiffOp",
    "PairDiff",
    "VerifiedPair",
    "VerifyBatch",
    "align_verify",
    "compiled_diff_active",
    "diff_ops",
    "load_kernel",
    "pack_verify",
    "pair_diff",
    "shared_runs",
    "unpack_verify",
]

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


def _load_kernel() -> ModuleType | None:
    return kernel_module("_diffkernel", "fast_diff_match_patch")


# Set once every kernel entry point has run here: numba loads a function's machine code from its
# cache at its first call (~30 ms), which must not happen on the GUI thread in the middle of a
# click. Until then alignments use the C++ library.
_ready = False


def load_kernel() -> bool:
    """Load the compiled diff now (the window's warm-up, the first large verification); False
    when it cannot be used here. Alignments use it from then on."""
    global _ready
    if _ready:
        return True
    kernel = _load_kernel()
    if kernel is None:
        return False
    try:
        one = _cps_arg(np.zeros(2, dtype=np.uint32))
        kernel.diff(one, one[:1], STEPS_PER_SECOND)  # loads their machine code from numba's cache
        kernel.aligned(one, one[:1], STEPS_PER_SECOND)
        at = _offsets_arg(np.zeros(2, dtype=np.int64))
        kernel.pair_alignment(one, one, one, one, at, at, at, at, 5, 12, STEPS_PER_SECOND)
        batch = pack_verify([("甲乙丙丁戊", "甲乙丙丁己", np.zeros(1, dtype=np.uint64))], NormalizeOptions(), k=5, limit=20)
        unpack_verify(batch, align_verify(batch))
    except Exception:  # numba cannot compile here: the library does every alignment, as without numba
        log.warning("compiled diff failed to load; using fast_diff_match_patch", exc_info=True)
        return False
    _ready = True
    return True


def _kernel() -> ModuleType | None:
    """``core._diffkernel`` once ``load_kernel`` has run, else None."""
    return _load_kernel() if _ready else None


def compiled_diff_active() -> bool:
    """Whether alignments are computed by the compiled diff (which releases the GIL). If numba is
    loaded already (a large screen's preparation loaded it) the kernel is loaded now: starting
    numba itself would cost a small screen more than its diffs."""
    if not _ready and "numba" in sys.modules:
        load_kernel()
    return _kernel() is not None


def _writable(values: np.ndarray, dtype: type) -> np.ndarray:
    """``values`` as the one array type the kernels are compiled for (writable, C-contiguous;
    copied only when it is not one already): every kernel entry point and the functions they share
    get one specialization, so numba compiles them once (~15 s saved on a cold cache)."""
    out = np.ascontiguousarray(values, dtype=dtype)
    return out if out.flags.writeable else out.copy()


def _cps_arg(cps: np.ndarray) -> np.ndarray:
    return _writable(cps, np.uint32)


def _offsets_arg(offsets: np.ndarray) -> np.ndarray:
    return _writable(offsets, np.int64)


def _budget(timeout: float) -> int:
    return max(1, int(timeout * STEPS_PER_SECOND))


def _library_ops(a: str, b: str, timeout: float, cleanup: str = "No") -> tuple[np.ndarray, np.ndarray]:
    """(kinds, lengths) aligning two strings with fast_diff_match_patch."""
    raw = fdmp.diff(a, b, timelimit=timeout, checklines=False, cleanup=cleanup)
    kinds = np.fromiter((_KIND[op] for op, _ in raw), dtype=np.int8, count=len(raw))
    lens = np.fromiter((n for _, n in raw), dtype=np.int64, count=len(raw))
    return kinds, lens


def _anchored_library_ops(a: str, b: str, timeout: float) -> tuple[np.ndarray, np.ndarray]:
    """``_library_ops`` (merge clean-up only), anchored when the texts are long: the ops
    ``core._diffkernel.aligned`` gives (``core.anchors``); the time limit is for all the diffs."""
    if len(a) + len(b) < ANCHOR_FROM:
        return _library_ops(a, b, timeout)
    sa, sb = seeds(codepoints(a), codepoints(b))
    if sa.size == 0:
        return _library_ops(a, b, timeout)
    runs = anchor_runs(sa, sb, chain(sa, sb), ANCHOR_K).tolist()
    deadline = time.perf_counter() + timeout
    kinds: list[int] = []
    lens: list[int] = []

    def add(kind: int, length: int) -> None:
        if kinds and kinds[-1] == kind:
            lens[-1] += length
        else:
            kinds.append(kind)
            lens.append(length)

    pa = pb = 0
    for x, y, length in runs + [[len(a), len(b), 0]]:
        if x > pa or y > pb:
            # At least a millisecond: a time limit of 0 would mean none to the library.
            left = max(deadline - time.perf_counter(), 0.001)
            for op, n in fdmp.diff(a[pa:x], b[pb:y], timelimit=left, checklines=False, cleanup="No"):
                add(_KIND[op], n)
        if length:
            add(EQUAL, length)
        pa, pb = x + length, y + length
    return np.array(kinds, dtype=np.int8), np.array(lens, dtype=np.int64)


def _text_ops(a: str, b: str, timeout: float) -> tuple[np.ndarray, np.ndarray]:
    """(kinds, lengths) aligning two strings (merge clean-up only; anchored when long), compiled
    when possible."""
    kernel = _kernel()
    if kernel is None:
        return _anchored_library_ops(a, b, timeout)
    return kernel.aligned(_cps_arg(codepoints(a)), _cps_arg(codepoints(b)), _budget(timeout))


def _starts(kinds: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where each op starts and how much it consumes, on the left and on the right."""
    use_l = np.where(kinds != INSERT, lens, 0)
    use_r = np.where(kinds != DELETE, lens, 0)
    return np.cumsum(use_l) - use_l, use_l, np.cumsum(use_r) - use_r, use_r


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
    if semantic:
        kinds, lens = _library_ops(left, right, timeout, "Semantic")
    else:
        kinds, lens = _text_ops(left, right, timeout)
    ls, lu, rs, ru = _starts(kinds, lens)
    names = ("equal", "delete", "insert")
    return [
        DiffOp(names[k], a, a + x, c, c + y)
        for k, a, x, c, y in zip(kinds.tolist(), ls.tolist(), lu.tolist(), rs.tolist(), ru.tolist())
    ]


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
    The texts are the few characters between two anchors (``_anchor_gaps``), so plain Python.
    """
    if a == b:
        return
    if not a or not b:  # only inserted or only deleted text: one hunk
        out.append(Segment(off_l, off_l + len(a), off_r, off_r + len(b)))
        return
    pa = pb = 0
    open_a = open_b = -1
    for op, n in fdmp.diff(a, b, timelimit=timeout, checklines=False, cleanup="No"):
        if op == "=":
            if open_a >= 0:
                out.append(Segment(off_l + open_a, off_l + pa, off_r + open_b, off_r + pb))
                open_a = -1
            pa += n
            pb += n
            continue
        if open_a < 0:
            open_a, open_b = pa, pb
        if op == "-":
            pa += n
        else:
            pb += n
    if open_a >= 0:
        out.append(Segment(off_l + open_a, off_l + pa, off_r + open_b, off_r + pb))


def _own(starts: np.ndarray, ends: np.ndarray, i: np.ndarray) -> np.ndarray:
    """Per normalized index in ``i``: its raw text is its own (no neighbour shares any of it)."""
    n = starts.size
    before = np.ones(i.size, dtype=bool)
    after = np.ones(i.size, dtype=bool)
    has_before, has_after = i > 0, i < n - 1
    before[has_before] = starts[i[has_before]] >= ends[i[has_before] - 1]
    after[has_after] = ends[i[has_after]] <= starts[i[has_after] + 1]
    return before & after


def _anchor_gaps(
    kinds: np.ndarray,
    lens: np.ndarray,
    ls: np.ndarray,
    rs: np.ndarray,
    norm_regions: list[Segment],
    regions: tuple[Segment, ...],
    ln: Normalized,
    rn: Normalized,
    left_raw: str,
    right_raw: str,
) -> list[tuple[int, int, int, int]]:
    """The raw spans to diff for the hunks: in each matched region, the text between anchors.

    An anchor is a normalized character the alignment pairs (an equal op) whose raw text is its
    own on both sides and the same: the raw texts cannot differ there, so only the text between
    two anchors (and between the region's ends and its first and last anchor) is compared. Gaps
    are given as (left start, left end, right start, right end), empty ones left out. Diffing a
    whole region instead cost its length times its differences (a 120,000-character copy
    reformatted throughout: 14 s, and the budget ran out). ``_diffkernel.pair_alignment`` does the
    same.
    """
    if not norm_regions:
        return []
    eq = np.flatnonzero(kinds == EQUAL)  # (ls, rs: where each op starts, as ``_starts`` gives them)
    n = lens[eq]
    total = int(n.sum())
    first = np.cumsum(n) - n
    step = np.arange(total, dtype=np.int64) - np.repeat(first, n)
    li = np.repeat(ls[eq], n) + step  # every paired normalized character, left and right
    ri = np.repeat(rs[eq], n) + step
    reg_l0 = np.array([r.left_start for r in norm_regions], dtype=np.int64)
    reg_l1 = np.array([r.left_end for r in norm_regions], dtype=np.int64)
    which = np.searchsorted(reg_l0, li, side="right") - 1
    inside = (which >= 0) & (li < reg_l1[np.maximum(which, 0)])
    li, ri, which = li[inside], ri[inside], which[inside]
    lst, lend, rst, rend = ln.starts, ln.ends, rn.starts, rn.ends
    a0, a1, b0, b1 = lst[li], lend[li], rst[ri], rend[ri]
    ok = ((a1 - a0) == (b1 - b0)) & _own(lst, lend, li) & _own(rst, rend, ri)
    lcps, rcps = codepoints(left_raw), codepoints(right_raw)
    one = ok & (a1 - a0 == 1)
    ok[one] = lcps[a0[one]] == rcps[b0[one]]
    for x in np.flatnonzero(ok & (a1 - a0 != 1)).tolist():  # raw text of several code points (or none)
        ok[x] = bool(np.array_equal(lcps[a0[x] : a1[x]], rcps[b0[x] : b1[x]]))
    a0, a1, b0, b1, which = a0[ok], a1[ok], b0[ok], b1[ok], which[ok]
    gaps: list[tuple[int, int, int, int]] = []
    bounds = np.searchsorted(which, np.arange(len(regions) + 1))
    for r, reg in enumerate(regions):
        # The common raw prefix and suffix are the same text: the anchors are looked for between.
        x, y = lcps[reg.left_start : reg.left_end], rcps[reg.right_start : reg.right_end]
        head = _common_length(x, y)
        if head == x.size == y.size:
            continue
        tail = _common_length(x[head:][::-1], y[head:][::-1])
        start_a, start_b = reg.left_start + head, reg.right_start + head
        end_a, end_b = reg.left_end - tail, reg.right_end - tail
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        keep = lo + np.flatnonzero(
            (a0[lo:hi] >= start_a) & (b0[lo:hi] >= start_b) & (a1[lo:hi] <= end_a) & (b1[lo:hi] <= end_b)
        )
        g0 = np.concatenate(([start_a], a1[keep]))
        g1 = np.concatenate((a0[keep], [end_a]))
        h0 = np.concatenate(([start_b], b1[keep]))
        h1 = np.concatenate((b0[keep], [end_b]))
        some = np.flatnonzero((g1 > g0) | (h1 > h0))
        gaps.extend(zip(g0[some].tolist(), g1[some].tolist(), h0[some].tolist(), h1[some].tolist()))
    return gaps


def _common_length(x: np.ndarray, y: np.ndarray) -> int:
    """How many leading code points ``x`` and ``y`` share."""
    n = min(x.size, y.size)
    differ = np.flatnonzero(x[:n] != y[:n])
    return int(differ[0]) if differ.size else n


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
    kernel = _kernel()
    if kernel is not None:  # the same result in one compiled call that releases the GIL
        segs, regs, hunks, lu, ru = kernel.pair_alignment(
            _cps_arg(ln.cps), _cps_arg(rn.cps), _cps_arg(codepoints(left_raw)), _cps_arg(codepoints(right_raw)),
            _offsets_arg(ln.starts), _offsets_arg(ln.ends), _offsets_arg(rn.starts), _offsets_arg(rn.ends),
            min_len, gap, _budget(timeout),
        )  # fmt: skip
        return _pair_diff_of(segs.tolist(), regs.tolist(), hunks.tolist(), lu.tolist(), ru.tolist())
    # Without the kernel (the same result, op for op). Shared runs and their grouping into regions, in normalized offsets (as ``shared_runs``).
    runs: list[Segment] = []
    norm_regions: list[Segment] = []
    kinds, lens = np.zeros(0, np.int8), np.zeros(0, np.int64)
    ls = rs = np.zeros(0, np.int64)
    if len(ln) and len(rn):
        kinds, lens = _anchored_library_ops(ln.text, rn.text, timeout)
        ls, _, rs, _ = _starts(kinds, lens)
        keep = np.flatnonzero((kinds == EQUAL) & (lens >= min_len))
        if keep.size:
            a, c, n = ls[keep], rs[keep], lens[keep]
            b, d = a + n, c + n
            runs = list(map(Segment, a.tolist(), b.tolist(), c.tolist(), d.tolist()))
            # Runs separated by small gaps on both sides join into one region.
            joins = np.zeros(keep.size, dtype=bool)
            joins[1:] = (a[1:] - b[:-1] <= gap) & (c[1:] - d[:-1] <= gap)
            heads = np.flatnonzero(~joins)
            tails = np.append(heads[1:] - 1, keep.size - 1)
            norm_regions = list(map(Segment, a[heads].tolist(), b[tails].tolist(), c[heads].tolist(), d[tails].tolist()))
    segments = _to_raw_all(_whole_clusters(runs, ln, rn, min_len), ln, rn)
    regions = _to_raw_all(norm_regions, ln, rn)

    hunks: list[Segment] = []
    for a0, a1, b0, b1 in _anchor_gaps(kinds, lens, ls, rs, norm_regions, regions, ln, rn, left_raw, right_raw):
        _hunks(left_raw[a0:a1], right_raw[b0:b1], a0, b0, timeout, hunks)

    left_unique = _outside(ln, [(r.left_start, r.left_end) for r in norm_regions])
    right_unique = _outside(rn, [(r.right_start, r.right_end) for r in norm_regions])
    return PairDiff(segments, regions, tuple(hunks), left_unique, right_unique)


def _pair_diff_of(segs: list, regs: list, hunks: list, left_unique: list, right_unique: list) -> PairDiff:
    """A ``PairDiff`` from the kernel's rows (lists of [start, end, ...] as ``tolist`` gives them)."""
    return PairDiff(
        tuple(starmap(Segment, segs)),
        tuple(starmap(Segment, regs)),
        tuple(starmap(Segment, hunks)),
        tuple(map(tuple, left_unique)),
        tuple(map(tuple, right_unique)),
    )


@dataclass(frozen=True)
class VerifyBatch:
    """Pairs packed for ``core._diffkernel.verify_batch`` (``pack_verify``); ``align_verify`` runs
    it holding no lock (on a helper thread), ``unpack_verify`` reads the result. ``lefts``: each
    pair's left text among the batch's texts."""

    args: tuple
    k: int
    lefts: np.ndarray


@dataclass(frozen=True)
class VerifiedPair:
    """What the compiled batch gives for one pair: its alignment, its shared-shingle sample and
    the lengths of both normalized texts."""

    diff: PairDiff
    sample: tuple[str, ...]
    left_chars: int
    right_chars: int


def pack_verify(
    items: list[tuple[str, str, np.ndarray]],
    options: NormalizeOptions,
    *,
    k: int,
    limit: int,
    gap: int = 12,
    timeout: float = 5.0,
) -> VerifyBatch:
    """Pack (left raw text, right raw text, right's sorted shingle hashes) pairs: texts whose
    normalization needs the exact path (combining marks, expansions) are normalized here, the
    others in the kernel through the lookup table.

    A text (or hash array) in several pairs of the batch - the same object - is packed, normalized
    and sampled for seeds once: each of 20 drafts of a manuscript pairs with the 19 others.
    """
    n = len(items)
    # The distinct objects, by id() (the items hold every one meanwhile), in the order first met.
    text_of = {id(t): t for a, b, _ in items for t in (a, b)}
    array_of = {id(h): h for _, _, h in items}
    text_at = {key: i for i, key in enumerate(text_of)}
    array_at = {key: i for i, key in enumerate(array_of)}
    pairs = np.array([(text_at[id(a)], text_at[id(b)], array_at[id(h)]) for a, b, h in items],
                     dtype=np.int64).reshape(n, 3)  # fmt: skip
    texts, arrays = list(text_of.values()), list(array_of.values())
    joined = codepoints("".join(texts))  # one encoding of them all (a str's length is in code points)
    toff = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in texts], out=toff[1:])
    table = lookup_table(options)
    given = np.zeros(len(texts), dtype=np.uint8)
    gstart = np.zeros(len(texts), dtype=np.int64)  # where a given text's arrays start and end in gc/gs/ge
    gend = np.zeros(len(texts), dtype=np.int64)
    gparts: list[Normalized] = []
    at = 0
    kernel = kernel_module("_prepkernel")  # its compiled scan, as ``prepare`` finds its batches'
    for t in np.flatnonzero(exact_path_flags(joined, toff, table, kernel and kernel.scan_batch)).tolist():
        norm = normalize(texts[t], options)
        given[t] = 1
        gstart[t], gend[t] = at, at + len(norm)
        gparts.append(norm)
        at += len(norm)
    gc = np.concatenate([g.cps for g in gparts]).astype(np.uint32) if gparts else np.zeros(0, np.uint32)
    gs = np.concatenate([g.starts for g in gparts]).astype(np.int64) if gparts else np.zeros(0, np.int64)
    ge = np.concatenate([g.ends for g in gparts]).astype(np.int64) if gparts else np.zeros(0, np.int64)
    hoff = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum([h.size for h in arrays], out=hoff[1:])
    rhash = np.concatenate(arrays).astype(np.uint64, copy=False) if arrays else np.zeros(0, np.uint64)
    args = (
        _cps_arg(joined), toff, table.values, given, gc, gs, ge, gstart, gend, pairs,
        rhash, hoff, k, np.uint64(window_base(k)), limit, k, gap, _budget(timeout),
    )  # fmt: skip
    return VerifyBatch(args, k, pairs[:, 0].copy())


def align_verify(batch: VerifyBatch) -> tuple[np.ndarray, ...]:
    """Run a packed batch through the compiled kernel (releases the GIL)."""
    kernel = _load_kernel()
    assert kernel is not None, "pack_verify is for the compiled diff (compiled_diff_active())"
    return kernel.verify_batch(*batch.args)


def unpack_verify(
    batch: VerifyBatch, result: tuple[np.ndarray, ...], strings: dict[str, str] | None = None
) -> list[VerifiedPair]:
    """Each packed pair's alignment, sample and lengths, in order; the samples' strings are those
    of ``strings`` where equal (``records.shared_strings``; a table of its own when None)."""
    strings = {} if strings is None else strings
    counts, *parts = result[:6]
    lengths, samples, sampled, norm_all, norm_off = result[6:]
    ends = np.cumsum(counts, axis=0)
    starts = ends - counts
    rows = [part.tolist() for part in parts]
    k = batch.k
    out = []
    left_texts: dict[int, str] = {}
    for p, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
        count = int(sampled[p])
        if count:
            t = int(batch.lefts[p])
            text = left_texts.get(t)
            if text is None:
                text = left_texts[t] = to_text(norm_all[norm_off[t] : norm_off[t + 1]])
            sample = shared_strings((text[q : q + k] for q in samples[p, :count].tolist()), strings)
        else:
            sample = ()
        out.append(
            VerifiedPair(
                _pair_diff_of(*(rows[c][s[c] : e[c]] for c in range(5))),
                sample,
                int(lengths[p, 0]),
                int(lengths[p, 1]),
            )
        )
    return out
