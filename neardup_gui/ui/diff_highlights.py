"""What the diff panes mark for one pair: highlights from the engine's spans, insertion points, and
the legend swatches.

An insertion point is where one side lacks text the other side has: an empty side of a character
hunk inside a matched region (an inserted 不), or the place between two matched regions (or before
the first, after the last) where only the other side has text of its own. The pane that lacks the
text draws a thin bar there; text present on both sides but different is already highlighted on
both, so it gets no bar.
Imports PySide6 and ``neardup_gui.core`` only.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel

from neardup_gui.core.diffspans import PairDiff
from neardup_gui.core.records import REVISION_FLAGS, Candidate
from neardup_gui.ui.diff_pane import Highlight
from neardup_gui.ui.labels import flag_label, tr
from neardup_gui.ui.palette import BACKGROUND, INSERTION_COLOR, HighlightKind

Span = tuple[int, int]


def highlights_for(diff: PairDiff, candidate: Candidate) -> tuple[list[Highlight], list[Highlight]]:
    """Left and right highlights of a pair: unique text, shared passages, changes, flag evidence."""
    left: list[Highlight] = [Highlight(HighlightKind.UNIQUE, s, e) for s, e in diff.left_unique]
    right: list[Highlight] = [Highlight(HighlightKind.UNIQUE, s, e) for s, e in diff.right_unique]
    for seg in diff.segments:
        left.append(Highlight(HighlightKind.SHARED, seg.left_start, seg.left_end))
        right.append(Highlight(HighlightKind.SHARED, seg.right_start, seg.right_end))
    for hunk in diff.hunks:
        if hunk.left_end > hunk.left_start:
            left.append(Highlight(HighlightKind.CHANGED, hunk.left_start, hunk.left_end))
        if hunk.right_end > hunk.right_start:
            right.append(Highlight(HighlightKind.CHANGED, hunk.right_start, hunk.right_end))
    for evidence in candidate.evidence:
        if evidence.flag not in REVISION_FLAGS:
            continue
        note = flag_label(evidence.flag) + (f" ({evidence.note})" if evidence.note else "")
        left.extend(Highlight(HighlightKind.REVISION, s, e, note) for s, e in evidence.left_spans if e > s)
        right.extend(Highlight(HighlightKind.REVISION, s, e, note) for s, e in evidence.right_spans if e > s)
    return left, right


def _has_text(spans: tuple[Span, ...], start: int, end: int | None) -> bool:
    return any(e > start and (end is None or s < end) for s, e in spans)


def insertion_points(diff: PairDiff) -> tuple[list[int], list[int]]:
    """Offsets (code points) where the left and the right text lack what the other side has.

    Returns:
        (left offsets, right offsets), each sorted and without repeats.
    """
    left: set[int] = set()
    right: set[int] = set()
    for h in diff.hunks:
        if h.left_end == h.left_start and h.right_end > h.right_start:
            left.add(h.left_start)
        elif h.right_end == h.right_start and h.left_end > h.left_start:
            right.add(h.right_start)
    regions = sorted(diff.regions, key=lambda r: (r.left_start, r.right_start))
    if regions:
        # Gaps: before the first region, between neighbours, after the last one.
        bounds: list[tuple[int, int | None, int, int | None, int, int]] = []
        previous = None
        for r in regions:
            ls, rs = (previous.left_end, previous.right_end) if previous else (0, 0)
            at_left, at_right = (previous.left_end, previous.right_end) if previous else (r.left_start, r.right_start)
            bounds.append((ls, r.left_start, rs, r.right_start, at_left, at_right))
            previous = r
        assert previous is not None
        bounds.append((previous.left_end, None, previous.right_end, None, previous.left_end, previous.right_end))
        for ls, le, rs, re_, at_left, at_right in bounds:
            left_has = _has_text(diff.left_unique, ls, le)
            right_has = _has_text(diff.right_unique, rs, re_)
            if right_has and not left_has:
                left.add(at_left)
            elif left_has and not right_has:
                right.add(at_right)
    return sorted(left), sorted(right)


def swatch(kind: HighlightKind, text: str, tip: str) -> QLabel:
    """A legend entry: the label on its highlight colour (revision evidence underlined)."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setToolTip(tip)
    label.setAutoFillBackground(True)
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.Window, BACKGROUND[kind])
    palette.setColor(QPalette.ColorRole.WindowText, QColor("black"))
    label.setPalette(palette)
    label.setContentsMargins(6, 1, 6, 1)
    if kind == HighlightKind.REVISION:
        font = label.font()
        font.setUnderline(True)
        label.setFont(font)
    return label


def insertion_swatch() -> QLabel:
    """The legend entry of the insertion bar: a bar in its colour, then the words."""
    # Rich text built from our own label only (escaped), never from document text.
    bar = f'<b style="color: {INSERTION_COLOR.name()}">▎</b>'
    label = QLabel(bar + html.escape(tr("missing here")))
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setToolTip(tr("Text the other side has at this point and this side lacks"))
    label.setContentsMargins(2, 1, 6, 1)
    return label
