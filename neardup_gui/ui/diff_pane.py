"""One side of the dual-pane diff: a read-only plain-text editor with highlighted spans.

The text is set with ``setPlainText`` (``<script>`` or ``<b>`` in a document show literally).
Highlights are character formats of the blocks' text layouts (``QTextLayout.setFormats``, what
``QSyntaxHighlighter`` does), set for the whole text in one pass at positions converted from
code-point offsets (``offsets``); formats never change the document itself. One ``ExtraSelection``
per highlight instead made Qt compute a rectangle (laying out the text above it) for each: seconds
for a 100,000-character pair with thousands of spans. The current passage is such a format too,
under the changes and revisions inside it; moving it re-formats only the blocks it leaves and
enters. (As an ``ExtraSelection`` with every change inside it repainted above it as one more, a
reformatted 100,000-character copy's single passage took 0.46 s to become current.)
Insertion points (text only the other side has) are thin bars painted over the text. A click on a
highlight emits ``span_clicked`` with the code-point offset; hovering one shows what it means.
Imports PySide6 only.
"""

from __future__ import annotations

import html
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Highlight:
    """A span to highlight, in code points of the pane's text (end exclusive)."""

    kind: HighlightKind
    start: int
    end: int
    note: str = ""


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
        self._formatted: dict[int, QTextBlock] = {}  # block number -> block whose layout carries formats
        self._blocks: tuple[list[QTextBlock], list[int], list[int]] | None = None  # see _block_table
        self._current: Highlight | None = None
        self._insertions: list[int] = []
        self._colours = dict(BACKGROUND)

    # -- content ------------------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        """Show ``text`` literally and drop every highlight."""
        self.offsets = OffsetMap(text)
        self._highlights, self._starts, self._formatted, self._current = [], [], {}, None
        self._blocks = None
        self._insertions = []
        self.setPlainText(text)
        self.moveCursor(QTextCursor.MoveOperation.Start)

    def set_highlights(self, highlights: list[Highlight]) -> None:
        """Replace the highlights (painted in ``HighlightKind`` order, later over earlier)."""
        self._highlights = sorted(highlights, key=lambda h: (h.start, h.kind))
        self._starts = [h.start for h in self._highlights]
        self._current = None
        self._apply_formats()

    def _apply_formats(self, within: list[tuple[int, int]] | None = None) -> None:
        """Put every highlight and the current passage into the formats of the blocks they cover
        (in ``_PAINT_RANK`` order, later merging over earlier); with ``within`` (spans of Qt
        positions), only in the blocks those spans touch."""
        document = self.document()
        blocks, starts, ends = self._block_table()
        n_blocks = len(blocks)
        chosen: set[int] | None = None
        if within is not None:
            chosen = set()
            for qs, qe in within:
                b = max(0, bisect_right(starts, qs) - 1)
                chosen.add(b)
                while b + 1 < len(blocks) and starts[b + 1] < qe:
                    b += 1
                    chosen.add(b)
        formats = {kind: self._char_format(kind) for kind in HighlightKind}
        marks = self._highlights if self._current is None else [*self._highlights, self._current]
        ranges: dict[int, list[QTextLayout.FormatRange]] = {}
        span_to_qt, new_range = self.offsets.span_to_qt, QTextLayout.FormatRange
        for h in sorted(marks, key=lambda h: (_PAINT_RANK[h.kind], h.start)):
            qs, qe = span_to_qt(h.start, h.end)
            fmt = formats[h.kind]
            b = bisect_right(starts, qs) - 1
            while 0 <= b < n_blocks and starts[b] < qe:
                at = starts[b]
                begin = qs - at if qs > at else 0
                end = (qe if qe < ends[b] else ends[b]) - at  # not the paragraph separator
                if end > begin and (chosen is None or b in chosen):
                    r = new_range()
                    r.start, r.length, r.format = begin, end - begin, fmt
                    ranges.setdefault(b, []).append(r)
                b += 1
        for b in list(self._formatted) if chosen is None else [b for b in chosen if b in self._formatted]:
            old = self._formatted.pop(b)
            if old.isValid() and old.layout() is not None:
                old.layout().clearFormats()
        for b, block_ranges in ranges.items():
            blocks[b].layout().setFormats(block_ranges)
            self._formatted[b] = blocks[b]
        if chosen is None:
            document.markContentsDirty(0, document.characterCount())
        elif chosen:
            first, last = min(chosen), max(chosen)
            document.markContentsDirty(starts[first], ends[last] + 1 - starts[first])

    def _block_table(self) -> tuple[list[QTextBlock], list[int], list[int]]:
        """The document's blocks with where each starts and where its text ends (before the
        paragraph separator), in Qt positions: walked once per text (it never changes here), not
        each time the current passage moves."""
        if self._blocks is None:
            blocks: list[QTextBlock] = []
            starts: list[int] = []
            ends: list[int] = []
            block = self.document().begin()
            while block.isValid():
                blocks.append(block)
                start = block.position()
                starts.append(start)
                ends.append(start + block.length() - 1)
                block = block.next()
            self._blocks = (blocks, starts, ends)
        return self._blocks

    def painted_spans(self, kind: HighlightKind) -> list[tuple[int, int]]:
        """Spans (code points, end exclusive) drawn in a kind's colour, read back from Qt's layouts.

        Where a later kind is painted over an earlier one, the span counts for the later kind only.
        A span running on over a line break is returned whole.
        """
        colour = self._colours[kind]
        spans: list[tuple[int, int]] = []
        for _, block in sorted(self._formatted.items()):  # in text order
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
        """Mark one span as the current shared passage (None clears the mark)."""
        spans = [] if self._current is None else [self.offsets.span_to_qt(self._current.start, self._current.end)]
        self._current = None if start is None else Highlight(HighlightKind.CURRENT, start, end or start)
        if self._current is not None:
            spans.append(self.offsets.span_to_qt(self._current.start, self._current.end))
        if spans:  # the current passage is painted over the shared colour but under changes and revisions
            self._apply_formats(within=spans)

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
