"""One side of the dual-pane diff: a read-only plain-text editor with highlighted spans.

The text is set with ``setPlainText`` (``<script>`` or ``<b>`` in a document show literally).
Highlights are character formats of the blocks' text layouts (``QTextLayout.setFormats``, what
``QSyntaxHighlighter`` does) at positions converted from code-point offsets (``offsets``); formats
never change the document itself. They are set block by block, from each kind's spans kept
sorted (``_Layer``): those of the blocks on screen when the highlights change, the others as they
come into view, just before they are laid out and drawn (``paintEvent``). New highlights or
another current passage cost the blocks on screen, not the whole text (a 2,000,000-character
reformatted copy has ~60,000 blocks). One ``ExtraSelection``
per highlight instead made Qt compute a rectangle (laying out the text above it) for each: seconds
for a 100,000-character pair with thousands of spans. The current passage is such a format too,
under the changes and revisions inside it. (As an ``ExtraSelection`` with every change inside it
repainted above it as one more, a reformatted 100,000-character copy's single passage took 0.46 s
to become current.)
Insertion points (text only the other side has) are thin bars painted over the text. A click on a
highlight emits ``span_clicked`` with the code-point offset; hovering one shows what it means.
Imports PySide6, numpy and ``ui.offsets`` only.
"""

from __future__ import annotations

import html
import itertools
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from PySide6.QtCore import QEvent, QPoint, QRect, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QHelpEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import QPlainTextEdit, QToolTip, QWidget

from neardup_gui.ui.offsets import OffsetMap
from neardup_gui.ui.labels import tr
from neardup_gui.ui.palette import BACKGROUND, INSERTION_COLOR, UNDERLINE, HighlightKind, kind_label

INSERTION_WIDTH = 3  # pixels
# Painting order of the highlight formats (later over earlier): the current passage lies over
# the shared colour, under the changes and revisions inside it.
_PAINT_RANK = {
    HighlightKind.UNIQUE: 0,
    HighlightKind.SHARED: 1,
    HighlightKind.CURRENT: 2,
    HighlightKind.CHANGED: 3,
    HighlightKind.REVISION: 4,
}
_PAINT_ORDER = sorted(_PAINT_RANK, key=_PAINT_RANK.__getitem__)


@dataclass(frozen=True)
class Highlight:
    """A span to highlight, in code points of the pane's text (end exclusive)."""

    kind: HighlightKind
    start: int
    end: int
    note: str = ""


class _Layer:
    """One kind's spans in document positions (start, end), sorted by start; ``reach[i]``: the
    furthest end among the first ``i + 1``, so the spans that can reach a position are found by
    bisection however long some are (a reformatted copy's one shared passage spans the text)."""

    __slots__ = ("starts", "ends", "reach")

    def __init__(self, starts: list[int], ends: list[int]) -> None:
        self.starts, self.ends = starts, ends
        self.reach = list(itertools.accumulate(ends, max))

    @classmethod
    def of(cls, starts: np.ndarray, ends: np.ndarray) -> _Layer:
        keep = ends > starts  # an empty span paints nothing
        starts, ends = starts[keep], ends[keep]
        order = np.argsort(starts, kind="stable")
        return cls(starts[order].tolist(), ends[order].tolist())

    def overlapping(self, lo: int, hi: int) -> Iterator[tuple[int, int]]:
        """The spans that overlap positions ``lo`` to ``hi`` (end exclusive), by start."""
        ends = self.ends
        for i in range(bisect_right(self.reach, lo), bisect_left(self.starts, hi)):
            if ends[i] > lo:
                yield self.starts[i], ends[i]


class DiffPane(QPlainTextEdit):
    """Read-only text with highlights; long lines wrap."""

    span_clicked = Signal(int)  # code-point offset of a click that made no selection

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        font = QFont(self.font())
        font.setPointSizeF(max(font.pointSizeF(), 10.5))
        self.setFont(font)
        self.offsets = OffsetMap("")
        self._highlights: list[Highlight] = []
        self._starts: list[int] = []
        self._layers: dict[HighlightKind, _Layer] = {}
        self._generation = 0  # of the highlights: a block's formats are up to date for one (``_format_block``)
        self._formats: dict[HighlightKind, QTextCharFormat] = {}
        self._current: Highlight | None = None
        self._insertions: list[int] = []
        self._colours = dict(BACKGROUND)
        self._restyle(now=False)

    # -- content ------------------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        """Show ``text`` literally and drop every highlight."""
        self.offsets = OffsetMap(text)
        self._highlights, self._starts, self._current = [], [], None
        self._layers = {}
        self._insertions = []
        self._restyle(now=False)  # (the blocks on screen are the old text's until the next line)
        self.setPlainText(text)
        self.moveCursor(QTextCursor.MoveOperation.Start)

    def set_highlights(self, highlights: list[Highlight]) -> None:
        """Replace the highlights (painted in ``HighlightKind`` order, later over earlier)."""
        self._highlights = sorted(highlights, key=lambda h: (h.start, h.kind))
        self._starts = [h.start for h in self._highlights]
        self._current = None
        self._layers = self._layers_of(self._highlights)
        self._restyle()

    def _layers_of(self, highlights: list[Highlight]) -> dict[HighlightKind, _Layer]:
        """Each kind's spans in document positions (``_Layer``), converted all at once."""
        n = len(highlights)
        kinds = np.fromiter((h.kind for h in highlights), dtype=np.int8, count=n)
        starts = self.offsets.many_to_qt(np.fromiter((h.start for h in highlights), dtype=np.int64, count=n))
        ends = self.offsets.many_to_qt(np.fromiter((h.end for h in highlights), dtype=np.int64, count=n))
        layers = {}
        for kind in HighlightKind:
            mine = kinds == kind
            if mine.any():
                layers[kind] = _Layer.of(starts[mine], ends[mine])
        return layers

    def _restyle(self, now: bool = True) -> None:
        """The highlights changed: every block's formats are out of date. Those that can be on
        screen are set again ``now`` (``_format_ahead``), the others when they come into view
        (``paintEvent``)."""
        self._generation += 1
        self._formats = {kind: self._char_format(kind) for kind in HighlightKind}
        if now:
            self._format_ahead()
        self.viewport().update()

    def _format_ahead(self) -> None:
        """Set the formats of the blocks from the first one on screen, as many as there are lines on
        screen (each block takes a line at least), without laying them out: setting a block's
        formats drops its layout, and a text on one line of 1,000,000 characters, laid out by Qt
        before its first paint and again after, took 0.99 s to show instead of 0.56."""
        block = self.firstVisibleBlock()
        lines = self.viewport().height() // max(1, self.fontMetrics().lineSpacing()) + 2
        while block.isValid() and lines > 0:
            if self._stale(block):
                self._format_block(block)
            block = block.next()
            lines -= 1

    def _format_block(self, block: QTextBlock) -> None:
        """Set one block's formats from the highlights (in ``_PAINT_RANK`` order, later merging
        over earlier) and note it as up to date (its user state: the generation, twice, plus one
        when it holds formats)."""
        at = block.position()
        end = at + block.length() - 1  # not the paragraph separator
        ranges: list[QTextLayout.FormatRange] = []
        layers = self._layers
        if self._current is not None:
            qs, qe = self.offsets.span_to_qt(self._current.start, self._current.end)
            layers = {**layers, HighlightKind.CURRENT: _Layer([qs], [qe])}
        new_range = QTextLayout.FormatRange
        for kind in _PAINT_ORDER:
            layer = layers.get(kind)
            if layer is None:
                continue
            fmt = self._formats[kind]
            for qs, qe in layer.overlapping(at, end):
                begin = qs - at if qs > at else 0
                stop = (qe if qe < end else end) - at
                if stop > begin:
                    r = new_range()
                    r.start, r.length, r.format = begin, stop - begin, fmt
                    ranges.append(r)
        state = block.userState()
        if ranges or (state >= 0 and state & 1):  # a block never given formats needs no clearing
            block.layout().setFormats(ranges)
        block.setUserState(2 * self._generation + (1 if ranges else 0))

    def _stale(self, block: QTextBlock) -> bool:
        state = block.userState()
        return state < 0 or state >> 1 != self._generation

    def _format_visible(self) -> None:
        """Bring the formats of the blocks on screen up to date (before they are laid out and
        drawn: setting a block's formats drops its layout). Only these: a 2,000,000-character
        reformatted copy has ~60,000 blocks, and formatting them all took ~0.6 s for its
        highlights and again ~1 s each time the current passage moved."""
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        bottom = self.viewport().rect().bottom()
        while block.isValid():
            if self._stale(block):
                self._format_block(block)
            if block.isVisible() and self.blockBoundingGeometry(block).translated(offset).top() > bottom:
                break
            block = block.next()

    def _format_all(self) -> None:
        block = self.document().begin()
        while block.isValid():
            if self._stale(block):
                self._format_block(block)
            block = block.next()

    def painted_spans(self, kind: HighlightKind) -> list[tuple[int, int]]:
        """Spans (code points, end exclusive) drawn in a kind's colour, read back from Qt's layouts
        (every block's formats brought up to date first, as painting it would).

        Where a later kind is painted over an earlier one, the span counts for the later kind only.
        A span running on over a line break is returned whole.
        """
        self._format_all()  # as each block would be when painted
        colour = self._colours[kind]
        spans: list[tuple[int, int]] = []
        block = self.document().begin()
        while block.isValid():
            base = block.position()
            cover: list[bool] = [False] * max(0, block.length() - 1)
            for r in block.layout().formats():
                on = r.format.background().color() == colour
                for i in range(r.start, min(r.start + r.length, len(cover))):
                    cover[i] = on  # later ranges merge over earlier ones, as Qt draws them
            i = 0
            while i < len(cover):
                if not cover[i]:
                    i += 1
                    continue
                j = i
                while j < len(cover) and cover[j]:
                    j += 1
                start, end = self.offsets.from_qt(base + i), self.offsets.from_qt(base + j)
                if spans and spans[-1][1] + 1 >= start and i == 0:
                    spans[-1] = (spans[-1][0], end)  # continues over the line break
                else:
                    spans.append((start, end))
                i = j
            block = block.next()
        return spans

    def set_colours(self, colours: dict[HighlightKind, QColor]) -> None:
        """Use other background colours (kinds not given keep theirs) and repaint the highlights."""
        self._colours.update(colours)
        current = self._current
        self.set_highlights(self._highlights)
        if current is not None:
            self.set_current(current.start, current.end)

    def set_insertions(self, offsets: list[int]) -> None:
        """Mark the code-point offsets where this side lacks text the other side has."""
        self._insertions = sorted(set(offsets))
        self.viewport().update()

    def insertions(self) -> list[int]:
        return list(self._insertions)

    def insertion_rect(self, offset: int) -> QRect:
        """Where the bar of an insertion point is painted, in viewport coordinates."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.offsets.to_qt(offset))
        rect = self.cursorRect(cursor)
        return QRect(rect.left() - INSERTION_WIDTH // 2, rect.top(), INSERTION_WIDTH, rect.height())

    def set_current(self, start: int | None, end: int | None = None) -> None:
        """Mark one span as the current shared passage (None clears the mark); painted over the
        shared colour but under changes and revisions."""
        self._current = None if start is None else Highlight(HighlightKind.CURRENT, start, end or start)
        self._restyle()

    def highlights(self, kind: HighlightKind | None = None) -> list[Highlight]:
        return [h for h in self._highlights if kind is None or h.kind == kind]

    def highlighted_text(self, highlight: Highlight) -> str:
        """The text the document shows under a highlight (read back from Qt, not from Python)."""
        cursor = self._cursor(highlight.start, highlight.end)
        return cursor.selectedText().replace("\u2029", "\n")

    def current_span(self) -> tuple[int, int] | None:
        return None if self._current is None else (self._current.start, self._current.end)

    # -- scrolling ----------------------------------------------------------------------------
    def show_span(self, start: int) -> None:
        """Scroll so the span is centred, without selecting it."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.offsets.to_qt(start))
        self.setTextCursor(cursor)
        self.centerCursor()

    def top_offset(self) -> int:
        """Code-point offset of the first character visible at the top of the pane."""
        return self.offsets.from_qt(self.cursorForPosition(QPoint(2, 2)).position())

    def scroll_offset_to_top(self, offset: int) -> None:
        """Scroll so the line holding ``offset`` is the first visible line."""
        position = self.offsets.to_qt(offset)
        block = self.document().findBlock(position)
        if not block.isValid():
            return
        line = 0
        layout = block.layout()
        if layout is not None and layout.lineCount() > 0:
            text_line = layout.lineForTextPosition(position - block.position())
            line = max(0, text_line.lineNumber()) if text_line.isValid() else 0
        self.verticalScrollBar().setValue(block.firstLineNumber() + line)

    # -- helpers ------------------------------------------------------------------------------
    def _cursor(self, start: int, end: int) -> QTextCursor:
        qs, qe = self.offsets.span_to_qt(start, end)
        cursor = QTextCursor(self.document())
        cursor.setPosition(qs)
        cursor.setPosition(qe, QTextCursor.MoveMode.KeepAnchor)
        return cursor

    def _char_format(self, kind: HighlightKind) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setBackground(self._colours[kind])
        underline = UNDERLINE.get(kind)
        if underline is not None:
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
            fmt.setUnderlineColor(underline)
        return fmt

    def highlights_at(self, offset: int) -> list[Highlight]:
        """Highlights covering a code-point offset."""
        i = bisect_right(self._starts, offset)
        return [h for h in self._highlights[:i] if h.start <= offset < h.end]

    # -- events -------------------------------------------------------------------------------
    def _visible_insertions(self) -> list[int]:
        """Insertion points on the lines shown (a rectangle costs a layout; the others are skipped)."""
        if not self._insertions:
            return []
        first = self.firstVisibleBlock()
        if not first.isValid():
            return []
        bottom = QPoint(self.viewport().width() - 1, self.viewport().height() - 1)
        lo = self.offsets.from_qt(first.position())
        hi = self.offsets.from_qt(self.cursorForPosition(bottom).position()) + 1
        return self._insertions[bisect_left(self._insertions, lo) : bisect_right(self._insertions, hi)]

    def paintEvent(self, event: QPaintEvent) -> None:
        self._format_visible()
        super().paintEvent(event)
        shown = self._visible_insertions()
        if not shown:
            return
        painter = QPainter(self.viewport())
        visible = event.rect()
        for offset in shown:
            rect = self.insertion_rect(offset)
            if rect.intersects(visible):
                painter.fillRect(rect, INSERTION_COLOR)
        painter.end()

    def _insertion_near(self, point: QPoint) -> bool:
        return any(self.insertion_rect(o).adjusted(-3, 0, 3, 0).contains(point) for o in self._visible_insertions())

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and not self.textCursor().hasSelection():
            position = self.cursorForPosition(event.position().toPoint()).position()
            self.span_clicked.emit(self.offsets.from_qt(position))

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            offset = self.offsets.from_qt(self.cursorForPosition(event.pos()).position())
            found = self.highlights_at(offset)
            lines = [f"{kind_label(h.kind)}{': ' + h.note if h.note else ''}" for h in found]
            if self._insertion_near(event.pos()):
                lines.insert(0, tr("The other side has text here that this side lacks"))
            if lines:
                # Notes may quote the documents: escape them so Qt never renders them as HTML.
                tip = "<br>".join(html.escape(line) for line in dict.fromkeys(lines))
                QToolTip.showText(event.globalPos(), f"<p>{tip}</p>", self)
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)
