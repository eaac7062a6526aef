"""Flags about the shape of the overlap: a shared quotation, or one document inside the other.

- ``quotation``: two different articles share one passage (a public statement, a regulation they
  both cite). Either the overlap is one contiguous passage that is a small part of both documents,
  or the shared passages lie inside quotation marks (“” 「」 『』 《》 ‘’ "" '') in at least one of them
  while at least one document is mostly something else.
- ``contained``: one document's shingles lie (almost) all in the other, and not the other way round
  (an excerpt, or an article with a section appended).

Passages shorter than ``min_chars`` raw characters (incidental common phrases such as 生活垃圾分类)
are ignored when deciding the shape of the overlap.

Imports only the standard library and sibling engine modules.
"""

from __future__ import annotations

import re

from neardup_gui.core.diffspans import PairDiff
from neardup_gui.core.records import FLAG_CONTAINED, FLAG_QUOTATION, Candidate, FlagEvidence, Segment

__all__ = ["quotation_evidence", "contained_evidence", "quote_spans", "NOTE_LEFT_INSIDE", "NOTE_RIGHT_INSIDE"]

Span = tuple[int, int]

_PAIRS = {"“": "”", "「": "」", "『": "』", "《": "》", "‘": "’"}
_CLOSERS = {v: k for k, v in _PAIRS.items()}
_SYMMETRIC = {'"', "'"}
_QUOTE_RE = re.compile("[“”「」『』《》‘’\"'\n]")
# Share of the shared characters that must lie inside quotation marks to call the overlap quoted.
QUOTED_SHARE = 0.8
# A quoted overlap is a quotation only while at least one document is mostly other text.
QUOTED_MAX_SHARE = 0.5
NOTE_LEFT_INSIDE = "left inside right"
NOTE_RIGHT_INSIDE = "right inside left"


def quote_spans(text: str) -> list[Span]:
    """Raw spans between matching quotation marks (outermost only, marks excluded).

    An opening “ 「 『 ‘ left open at the end of a paragraph closes there (Chinese convention for a
    quotation running over several paragraphs: each paragraph opens the mark, only the last
    closes it). ASCII ' counts only when it is not between two Latin letters (don't).
    """
    out: list[Span] = []
    stack: list[tuple[str, int]] = []
    for m in _QUOTE_RE.finditer(text):
        ch, pos = m.group(), m.start()
        if ch == "\n":
            if stack and stack[0][0] != "《":
                out.append((stack[0][1], pos))
            stack.clear()
            continue
        if ch in _SYMMETRIC:
            if ch == "'" and 0 < pos < len(text) - 1 and text[pos - 1].isascii() and text[pos - 1].isalpha() \
                    and text[pos + 1].isascii() and text[pos + 1].isalpha():
                continue
            if stack and stack[-1][0] == ch:
                _close(stack, out, pos)
            else:
                stack.append((ch, pos + 1))
        elif ch in _PAIRS:
            stack.append((ch, pos + 1))
        else:
            opener = _CLOSERS[ch]
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth][0] == opener:
                    del stack[depth + 1 :]
                    _close(stack, out, pos)
                    break
    if stack and stack[0][0] != "《":
        out.append((stack[0][1], len(text)))
    return out


def _close(stack: list[tuple[str, int]], out: list[Span], pos: int) -> None:
    _, start = stack.pop()
    if not stack:  # keep the outermost span only
        out.append((start, pos))


def _inside(s: int, e: int, spans: list[Span]) -> int:
    return sum(max(0, min(e, b) - max(s, a)) for a, b in spans)


def _has_quotes(*texts: str) -> bool:
    return any(mark in text for text in texts for mark in "“「『《‘\"'")


def _passages(diff: PairDiff, min_chars: int) -> list[Segment]:
    return [r for r in diff.regions if r.left_end - r.left_start >= min_chars]


def _segments_in(segments: tuple[Segment, ...], passages: list[Segment]) -> list[Segment]:
    """The segments lying inside one of the passages (on the left side). Found only for a pair
    that may be a quotation: two drafts share most of their text in passages, and testing each of
    their ~15 segments against each passage cost 80 us a pair for nothing."""
    return [s for s in segments if any(p.left_start <= s.left_start and s.left_end <= p.left_end for p in passages)]


def _length(text: str) -> int:
    """Characters of ``text`` without surrounding white space (at least 1), without copying a text
    that has none (a draft of 20,000 characters: 3 us a copy)."""
    if text and not text[0].isspace() and not text[-1].isspace():
        return len(text)
    return max(1, len(text.strip()))


def quotation_evidence(
    left_raw: str,
    right_raw: str,
    diff: PairDiff,
    *,
    max_share: float = 0.35,
    min_chars: int = 20,
) -> FlagEvidence | None:
    """``quotation`` when the pair shares a cited passage rather than an article.

    Args:
        left_raw, right_raw: Raw texts of the pair.
        diff: Their alignment.
        max_share: Largest share (0..1, raw characters) of each document a single unquoted shared
            passage may be.
        min_chars: Shortest shared passage considered, in raw characters.

    Returns:
        Evidence whose spans are the shared segments of the passage(s) on each side, or None.
    """
    passages = _passages(diff, min_chars)
    if not passages:
        return None
    shared_l = sum(p.left_end - p.left_start for p in passages)
    shared_r = sum(p.right_end - p.right_start for p in passages)
    share_l, share_r = shared_l / _length(left_raw), shared_r / _length(right_raw)
    note = ""
    if len(passages) == 1 and max(share_l, share_r) <= max_share:
        note = f"one shared passage, {share_l:.0%} of the left and {share_r:.0%} of the right document"
        segs = _segments_in(diff.segments, passages)
    elif min(share_l, share_r) <= QUOTED_MAX_SHARE and _has_quotes(left_raw, right_raw):
        segs = _segments_in(diff.segments, passages)
        lq, rq = quote_spans(left_raw), quote_spans(right_raw)
        seg_len = sum(s.left_end - s.left_start for s in segs) or 1
        in_l = sum(_inside(s.left_start, s.left_end, lq) for s in segs) / seg_len
        seg_len_r = sum(s.right_end - s.right_start for s in segs) or 1
        in_r = sum(_inside(s.right_start, s.right_end, rq) for s in segs) / seg_len_r
        if max(in_l, in_r) >= QUOTED_SHARE:
            note = f"shared text inside quotation marks ({in_l:.0%} left, {in_r:.0%} right)"
    if not note:
        return None
    return FlagEvidence(
        FLAG_QUOTATION,
        tuple((s.left_start, s.left_end) for s in segs),
        tuple((s.right_start, s.right_end) for s in segs),
        note,
    )


def contained_evidence(
    candidate: Candidate,
    *,
    threshold: float = 0.8,
    margin: float = 0.1,
    segments: tuple[Segment, ...] | None = None,
) -> FlagEvidence | None:
    """``contained`` when one document lies inside the other but not the other way round.

    Args:
        candidate: The pair with its containment scores.
        threshold: Containment (|A∩B|/|A|, 0..1) at which A counts as inside B.
        margin: How much lower (0..1) the other direction must be, and it must also be below
            ``threshold``; near-equal documents are copies, not containment.
        segments: Shared passages to use as spans (default: ``candidate.segments``).

    Returns:
        Evidence with note ``NOTE_LEFT_INSIDE`` ("left inside right") or ``NOTE_RIGHT_INSIDE``
        ("right inside left") and the shared segments as spans, or None.
    """
    cl, cr = candidate.containment_left, candidate.containment_right
    if threshold <= 0:
        return None
    if cl >= threshold and cr < threshold and cl - cr >= margin:
        note = NOTE_LEFT_INSIDE
    elif cr >= threshold and cl < threshold and cr - cl >= margin:
        note = NOTE_RIGHT_INSIDE
    else:
        return None
    segs = candidate.segments if segments is None else segments
    return FlagEvidence(
        FLAG_CONTAINED,
        tuple((s.left_start, s.left_end) for s in segs),
        tuple((s.right_start, s.right_end) for s in segs),
        note,
    )
