"""Revision flags: a changed number, date, unit, negation or condition inside matched text.

Input is the pair's alignment (``core.diffspans.PairDiff``): only the character-level ``hunks``
inside matched regions are examined, never unmatched passages (a paragraph added to one side is not
a "changed number"). Hunks closer than ``MARKER_CONTEXT`` characters are examined together.

For each group of hunks:

- numbers and dates: the number/date tokens touching the change on each side are read in full
  (300 -> 350 yields 300 and 350, not 0 and 5) and compared by value, so ３００ vs 300 or
  2023年5月16日 vs 2023-05-16 is no change. A date token change is reported as ``date_changed`` only
  (never also as a number); a quantity reports ``number_changed`` when its number differs and
  ``unit_changed`` when its magnitude or unit differs (万元 -> 亿元), unless both sides denote the same
  amount (3万 vs 30000);
- negation: the negation words within a few characters of the change are counted on each side
  (look-alikes such as 不断, 无论, 非常, 未来 are not negations); a different count is
  ``negation_changed`` (需要 -> 不需要, 允许 -> 不得; 不得 -> 禁止 is no change);
- conditions: the classes of condition and modality words near the change (如果/若, 仅/只有/凡,
  除非, 必须/应当, 可以/允许, 不得/禁止) differ on the two sides: ``condition_changed``. When the
  negation changed too, modality differences are left to the negation flag (允许 -> 禁止 is one
  change, not two).

Span convention: every span is a raw code-point span, end exclusive. When a side has nothing where
the other has the token or word (an insertion), that side's span is the zero-length span
``(p, p)`` at the insertion point ``p`` in that side's raw text; when the side has other text there
(若干 where the other side says 300), the span covers that text.

Imports only the standard library and sibling modules.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from typing import NamedTuple

from neardup_gui.core.diffspans import DiffOp, PairDiff, diff_ops
from neardup_gui.core.flags import lexicon as lx
from neardup_gui.core.flags.tokens import DateToken, Quantity, RawToken, Token, read_token, scan_spans
from neardup_gui.core.records import (
    FLAG_CONDITION_CHANGED,
    FLAG_DATE_CHANGED,
    FLAG_NEGATION_CHANGED,
    FLAG_NUMBER_CHANGED,
    FLAG_UNIT_CHANGED,
    FlagEvidence,
    Segment,
)

__all__ = ["revision_evidence", "REVISION_ORDER"]

Span = tuple[int, int]

# Order of revision flags when several concern the same place (date before number).
REVISION_ORDER = (
    FLAG_DATE_CHANGED,
    FLAG_NUMBER_CHANGED,
    FLAG_UNIT_CHANGED,
    FLAG_NEGATION_CHANGED,
    FLAG_CONDITION_CHANGED,
)
_RANK = {f: i for i, f in enumerate(REVISION_ORDER)}
# Characters read on each side of a change to find the whole number or date it touches.
TOKEN_CONTEXT = 24
# Largest number of letters and digits before the first (after the last) matched region that is
# still aligned as a possible change rather than treated as unmatched text.
EDGE_CHARS = 16


class _Change(NamedTuple):
    """Neighbouring hunks examined together, with the matched region they lie in."""

    ls: int
    le: int
    rs: int
    re: int
    region: Segment


def _raw_hunks(a: str, b: str, off_l: int, off_r: int) -> list[Segment]:
    """Runs of non-equal diff ops between two short strings, as raw spans (with offsets added)."""
    out: list[Segment] = []
    pending: list[DiffOp] = []
    for op in diff_ops(a, b) + [DiffOp("equal", len(a), len(a), len(b), len(b))]:
        if op.kind != "equal":
            pending.append(op)
        elif pending:
            first, last = pending[0], pending[-1]
            out.append(Segment(off_l + first.left_start, off_l + last.left_end, off_r + first.right_start,
                               off_r + last.right_end))
            pending = []
    return out


def _alnum_count(text: str, cap: int) -> int:
    """Letters and digits in ``text``, counting stops once past ``cap`` (a long head is not an edge)."""
    n = 0
    for ch in text:
        if ch.isalnum():
            n += 1
            if n > cap:
                break
    return n


def _edge_ok(a: str, b: str) -> bool:
    na, nb = _alnum_count(a, EDGE_CHARS), _alnum_count(b, EDGE_CHARS)
    return 0 < max(na, nb) and na <= EDGE_CHARS and nb <= EDGE_CHARS


def _located_hunks(left: str, right: str, diff: PairDiff) -> list[tuple[Segment, Segment]]:
    """Every hunk with the region it lies in, including short differences at the two ends.

    The alignment only keeps shared runs of at least k characters, so a change in the first or
    last few characters of a text (会议下午3时开始 vs 上午3时) falls outside every region. When both
    texts have at most ``EDGE_CHARS`` letters or digits before the first region (or after the last),
    those ends are aligned here too; their "region" extends over the neighbouring matched region so
    the context around the change is the same text on both sides.
    """
    regions = diff.regions
    if not regions:
        return []
    out: list[tuple[Segment, Segment]] = []
    first, last = regions[0], regions[-1]
    head_l, head_r = left[: first.left_start], right[: first.right_start]
    if head_l != head_r and _edge_ok(head_l, head_r):
        region = Segment(0, first.left_end, 0, first.right_end)
        out.extend((h, region) for h in _raw_hunks(head_l, head_r, 0, 0))
    ri = 0
    for h in diff.hunks:
        while ri < len(regions) - 1 and h.left_start > regions[ri].left_end:
            ri += 1
        out.append((h, regions[ri]))
    tail_l, tail_r = left[last.left_end :], right[last.right_end :]
    if tail_l != tail_r and _edge_ok(tail_l, tail_r):
        region = Segment(last.left_start, len(left), last.right_start, len(right))
        out.extend((h, region) for h in _raw_hunks(tail_l, tail_r, last.left_end, last.right_end))
    return out


def _changes(left: str, right: str, diff: PairDiff) -> list[_Change]:
    """Hunks (as ``_located_hunks``) merged while closer than ``MARKER_CONTEXT`` in the same region."""
    out: list[_Change] = []
    gap = lx.MARKER_CONTEXT
    # The pending change as [ls, le, rs, re, region]; hunks arrive in reading order.
    cur: list | None = None
    for h, region in _located_hunks(left, right, diff):
        if cur is not None:
            p_region = cur[4]
            if (
                (p_region is region or p_region == region)
                and h.left_start - cur[1] <= gap
                and h.right_start - cur[3] <= gap
            ):
                cur[1], cur[3], cur[4] = h.left_end, h.right_end, region
                continue
            out.append(_Change(cur[0], cur[1], cur[2], cur[3], p_region))
        cur = [h.left_start, h.left_end, h.right_start, h.right_end, region]
    if cur is not None:
        out.append(_Change(cur[0], cur[1], cur[2], cur[3], cur[4]))
    return out


class _TokenCache:
    """Number and date tokens of one text, found once and read only where a change touches them.

    With many changes the whole text is scanned once; with few, only a window around each change
    (widened so it does not start or end inside a number or date).
    """

    def __init__(self, text: str, changes: int) -> None:
        self.text = text
        self.whole = changes * 2 * TOKEN_CONTEXT >= len(text)
        self.spans: list[RawToken] | None = None
        self.ends: list[int] = []
        self.read: dict[int, Token | None] = {}

    def _window(self, s: int, e: int) -> list[RawToken]:
        text, chars = self.text, lx.TOKEN_CHARS
        # A token touching [s, e) holds the character before s or starts at s or later; none runs
        # across a character of TOKEN_OUTSIDE, so the scan starts after the last one before s.
        lo, stop, outside = s, max(0, s - 2 * TOKEN_CONTEXT), lx.TOKEN_OUTSIDE
        while lo > stop and not outside[ord(text[lo - 1])]:
            lo -= 1
        if lo and not outside[ord(text[lo - 1])]:  # none that close: from a token boundary, likely
            lo = max(0, s - TOKEN_CONTEXT)
            stop = max(0, lo - TOKEN_CONTEXT)
            while lo > stop and (text[lo - 1] in chars or text[lo - 1] in ",.．"):
                lo -= 1
        hi = min(len(text), e + TOKEN_CONTEXT)
        stop = min(len(text), hi + TOKEN_CONTEXT)
        while hi < stop and text[hi] in chars:
            hi += 1
        return scan_spans(text, lo, hi, until=e)  # a token starting after e does not touch [s, e)

    def touching(self, s: int, e: int) -> list[Token]:
        """Tokens overlapping or adjacent to the raw span [s, e)."""
        if not self.whole:
            spans = [r for r in self._window(s, e) if r[0] <= e and r[1] >= s]
            return [t for t in (read_token(self.text, r) for r in spans) if t is not None]
        if self.spans is None:
            self.spans = scan_spans(self.text, 0, len(self.text))
            self.ends = [r[1] for r in self.spans]
        out = []
        i = bisect_left(self.ends, s)
        while i < len(self.spans) and self.spans[i][0] <= e:
            if i not in self.read:
                self.read[i] = read_token(self.text, self.spans[i])
            token = self.read[i]
            if token is not None:
                out.append(token)
            i += 1
        return out


def _near_token_chars(text: str, s: int, e: int) -> bool:
    # A token touching [s, e) has a numeral or date character in the change or just beside it; the
    # three characters before cover multi-character units (300平方米 -> 300平方公里).
    return not lx.TOKEN_CHARS.isdisjoint(text[max(0, s - 3) : e + 2])


def _span(t: Token) -> Span:
    return (t.start, t.end)


def _compare(a: Token, b: Token) -> list[FlagEvidence]:
    if isinstance(a, DateToken) or isinstance(b, DateToken):
        if isinstance(a, DateToken) and isinstance(b, DateToken) and a.parts == b.parts:
            return []
        return [FlagEvidence(FLAG_DATE_CHANGED, (_span(a),), (_span(b),), f"{a.text} → {b.text}")]
    assert isinstance(a, Quantity) and isinstance(b, Quantity)
    same_number = a.value == b.value and a.approx == b.approx
    same_unit = a.scale == b.scale and a.unit == b.unit
    if same_number and same_unit:
        return []
    if a.value * a.scale == b.value * b.scale and a.unit == b.unit and a.approx == b.approx:
        return []  # the same amount written differently: 3万 vs 30000
    out = []
    if not same_number:
        out.append(FlagEvidence(FLAG_NUMBER_CHANGED, (a.number,), (b.number,), f"{a.text} → {b.text}"))
    if not same_unit:
        out.append(FlagEvidence(FLAG_UNIT_CHANGED, (a.unit_span,), (b.unit_span,), f"{a.text} → {b.text}"))
    return out


def _only_one_side(t: Token, other: Span, left: bool, other_text: str) -> FlagEvidence:
    if isinstance(t, DateToken):
        flag, span = FLAG_DATE_CHANGED, _span(t)
    else:
        flag, span = FLAG_NUMBER_CHANGED, t.number
    gone = other_text[other[0] : other[1]] or "∅"
    if left:
        return FlagEvidence(flag, (span,), (other,), f"{t.text} → {gone}")
    return FlagEvidence(flag, (other,), (span,), f"{gone} → {t.text}")


def _token_changes(left: _TokenCache, right: _TokenCache, c: _Change) -> list[FlagEvidence]:
    if not (_near_token_chars(left.text, c.ls, c.le) or _near_token_chars(right.text, c.rs, c.re)):
        return []
    lt = left.touching(c.ls, c.le)
    rt = right.touching(c.rs, c.re)
    if not lt and not rt:
        return []
    # Tokens spelled identically on both sides are context, not the change.
    for t in list(lt):
        for u in rt:
            if u.text == t.text:
                lt.remove(t)
                rt.remove(u)
                break
    out: list[FlagEvidence] = []
    for a, b in zip(lt, rt):
        out.extend(_compare(a, b))
    n = min(len(lt), len(rt))
    out.extend(_only_one_side(t, (c.rs, c.re), True, right.text) for t in lt[n:])
    out.extend(_only_one_side(t, (c.ls, c.le), False, left.text) for t in rt[n:])
    return out


Marker = tuple[int, int, str]


def _markers(pattern: re.Pattern[str], exceptions: frozenset[str], text: str, lo: int, hi: int) -> list[Marker]:
    """Words of ``pattern`` in text[lo:hi] that are not look-alikes, as (start, end, word)."""
    return [(m.start(), m.end(), w) for m in pattern.finditer(text, lo, hi) if (w := m.group()) not in exceptions]


def _marker_span(markers: list[Marker], s: int, e: int) -> Span:
    if s == e:
        hits = [(a, b) for a, b, _ in markers if a < s < b]
    else:
        hits = [(a, b) for a, b, _ in markers if a < e and b > s]
    if not hits:
        return (s, e)
    return (min(s, min(a for a, _ in hits)), max(e, max(b for _, b in hits)))


def _word_changes(left: str, right: str, c: _Change) -> list[FlagEvidence]:
    m = lx.MARKER_CONTEXT
    llo, lhi = max(c.region.left_start, c.ls - m), min(c.region.left_end, c.le + m)
    rlo, rhi = max(c.region.right_start, c.rs - m), min(c.region.right_end, c.re + m)
    out: list[FlagEvidence] = []
    lwin, rwin = left[llo:lhi], right[rlo:rhi]
    negation = False
    if not (lx.NEGATION_CHARS.isdisjoint(lwin) and lx.NEGATION_CHARS.isdisjoint(rwin)):
        ln = _markers(lx.NEGATION_RE, lx.NEGATION_EXCEPTION_SET, left, llo, lhi)
        rn = _markers(lx.NEGATION_RE, lx.NEGATION_EXCEPTION_SET, right, rlo, rhi)
        negation = len(ln) != len(rn)
        if negation:
            ls, rs = _marker_span(ln, c.ls, c.le), _marker_span(rn, c.rs, c.re)
            out.append(FlagEvidence(FLAG_NEGATION_CHANGED, (ls,), (rs,), _note(left, ls, right, rs)))
    if lx.CONDITION_CHARS.isdisjoint(lwin) and lx.CONDITION_CHARS.isdisjoint(rwin):
        return out
    lc = _markers(lx.CONDITION_RE, lx.CONDITION_EXCEPTION_SET, left, llo, lhi)
    rc = _markers(lx.CONDITION_RE, lx.CONDITION_EXCEPTION_SET, right, rlo, rhi)
    if lc or rc:
        lcls = sorted(lx.CONDITION_CLASSES[w] for _, _, w in lc)
        rcls = sorted(lx.CONDITION_CLASSES[w] for _, _, w in rc)
        if negation:
            lcls = [k for k in lcls if k not in lx.MODAL_CLASSES]
            rcls = [k for k in rcls if k not in lx.MODAL_CLASSES]
        if lcls != rcls:
            ls, rs = _marker_span(lc, c.ls, c.le), _marker_span(rc, c.rs, c.re)
            out.append(FlagEvidence(FLAG_CONDITION_CHANGED, (ls,), (rs,), _note(left, ls, right, rs)))
    return out


def _note(left: str, ls: Span, right: str, rs: Span) -> str:
    return f"{left[ls[0]:ls[1]] or '∅'} → {right[rs[0]:rs[1]] or '∅'}"


def _same_reading(a: str, b: str) -> bool:
    """True when two changed pieces differ only in width, compatibility forms or whitespace.

    (，vs , / ３ vs 3 / a line break inserted by hard wrapping: 五十年 vs 五\\n十年.)
    """
    if a == b:
        return True
    a, b = unicodedata.normalize("NFKC", a), unicodedata.normalize("NFKC", b)
    return a == b or "".join(a.split()) == "".join(b.split())


def revision_evidence(left_raw: str, right_raw: str, diff: PairDiff) -> list[FlagEvidence]:
    """Changed numbers, dates, units, negations and conditions inside the pair's matched text.

    Args:
        left_raw, right_raw: The raw texts the diff was computed on.
        diff: ``pair_diff(left_raw, right_raw, ...)``.

    Returns:
        One ``FlagEvidence`` per changed token or word, in reading order (left offsets); for the
        same place, in ``REVISION_ORDER``. Spans are raw code-point spans (end exclusive); a side
        where something was inserted or removed has a zero-length span at that point. Empty when
        nothing changed (identical texts, or only formatting and punctuation changed).
    """
    if not diff.regions or (left_raw == right_raw):
        return []
    found: list[FlagEvidence] = []
    changes = []
    for c in _changes(left_raw, right_raw, diff):
        lpart, rpart = left_raw[c.ls : c.le], right_raw[c.rs : c.re]
        if _same_reading(lpart, rpart):
            continue
        changes.append(c)
    lcache, rcache = _TokenCache(left_raw, len(changes)), _TokenCache(right_raw, len(changes))
    for c in changes:
        found.extend(_token_changes(lcache, rcache, c))
        found.extend(_word_changes(left_raw, right_raw, c))
    seen: set[tuple[str, tuple[Span, ...], tuple[Span, ...]]] = set()
    out: list[FlagEvidence] = []
    for ev in sorted(found, key=lambda e: (e.left_spans[0], e.right_spans[0], _RANK[e.flag])):
        key = (ev.flag, ev.left_spans, ev.right_spans)
        if key not in seen:
            seen.add(key)
            out.append(ev)
    return out
