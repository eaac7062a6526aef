"""The dual-pane diff: both raw texts side by side with their shared passages and differences.

Shared passages get the same colour on both sides, text found on one side only its own colour,
character-level changes inside a matched region another, and the spans behind revision flags a
fourth (see ``palette``); a thin bar marks where a side lacks text the other has (``diff_highlights``). N / P move through the shared passages; clicking one scrolls the other
pane to its twin; scrolling can follow the twin passages on the other side.

Pairs up to ``BACKGROUND_CHARS`` are compared at once; longer ones in a pool thread, which makes
their highlights too (``_Marks``), and an answer for a pair that is no longer shown is dropped
(request ids). ``pair_drawn`` reports the request id
once the highlights of the shown pair are in place.
Imports PySide6 and ``neardup_gui.core`` only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from PySide6.QtCore import Qt, QThreadPool, Signal
from PySide6.QtGui import QColor, QFontMetrics, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from neardup_gui.core.diffspans import PairDiff, pair_diff
from neardup_gui.core.records import Candidate, Document, NormalizeOptions
from neardup_gui.ui.diff_highlights import (
    highlights_for,
    insertion_points,
    insertion_swatch,
    swatch,
)
from neardup_gui.ui.diff_pane import DiffPane, Highlight
from neardup_gui.ui.labels import literal_tooltip
from neardup_gui.ui.palette import OKABE_ITO, HighlightKind, legend_entries
from neardup_gui.ui.worker import DiffChannel, DiffJob

__all__ = ["BACKGROUND_CHARS", "DiffView", "PairRequest", "highlights_for"]

BACKGROUND_CHARS = 20_000  # longer pairs are compared off the GUI thread


@dataclass(frozen=True)
class _Marks:
    """What the panes draw for a pair: its diff, each side's highlights and insertion points."""

    diff: PairDiff
    left: list[Highlight]
    right: list[Highlight]
    left_points: list[int]
    right_points: list[int]


def _marks_of(diff: PairDiff, candidate: Candidate) -> _Marks:
    """``_Marks`` of a pair (in a pool thread for a long pair: no Qt object is made here)."""
    left, right = highlights_for(diff, candidate)
    return _Marks(diff, left, right, *insertion_points(diff))


@dataclass(frozen=True)
class PairRequest:
    """What the diff view needs to show one candidate pair."""

    candidate: Candidate
    left_doc: Document | None
    right_doc: Document | None
    left_text: str
    right_text: str
    options: NormalizeOptions
    min_len: int
    notice: str = ""  # a warning about the pair (e.g. a file changed since the screen)


class TitleLabel(QLabel):
    """A pane's title on one line. A long path must not widen the window, so when the pane is
    narrower than the title, the middle of the path's folders gives way to "…" first (the side,
    the first folders, the file's name and the counts stay), then the counts (``_shortened``);
    ``title()`` and the tooltip have it whole. Plain text only: paths are user data, never
    markup."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._title = ""
        self._path = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        font = self.font()
        font.setBold(True)
        self.setFont(font)

    def title(self) -> str:
        return self._title

    def set_title(self, title: str, path: str = "") -> None:
        """Show ``title``; ``path``, a part of it, is what is shortened first."""
        self._title, self._path = title, path if path and path in title else ""
        self.setToolTip(literal_tooltip(title))
        self._fit()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        room = max(0, self.contentsRect().width() - 2 * self.margin())
        metrics = self.fontMetrics()
        shown = self._title
        if metrics.horizontalAdvance(shown) > room:
            shown = self._shortened(metrics, room)
        if shown != self.text():
            self.setText(shown)

    def _shortened(self, metrics: QFontMetrics, room: int) -> str:
        """The title in ``room`` pixels: the folders' middle out, keeping the name and the counts;
        else the counts' end out; else the folders' middle without the counts; else the path's
        middle; else the title's end."""
        advance, middle = metrics.horizontalAdvance, Qt.TextElideMode.ElideMiddle
        whole = metrics.elidedText(self._title, Qt.TextElideMode.ElideRight, room)
        if not self._path:
            return whole
        head, _, tail = self._title.partition(self._path)
        folder, slash, name = self._path.rpartition("/")
        enough = advance("…" * 4)

        def folders_out(rest: str) -> str | None:  # the name and ``rest`` kept whole
            left = room - advance(head + slash + name + rest)
            if not folder or left <= enough:
                return None
            return head + metrics.elidedText(folder, middle, left) + slash + name + rest

        shown = folders_out(tail)
        if shown is None and advance(head + self._path + "…") <= room:
            shown = whole  # the path whole, the counts' end given way
        if shown is None:
            shown = folders_out("")
        if shown is None:
            left = room - advance(head)
            shown = head + metrics.elidedText(self._path, middle, left) if left > enough else whole
        return shown


class DiffView(QWidget):
    """Two ``DiffPane``s, navigation, synchronized scrolling and a legend."""

    pair_drawn = Signal(int)  # request id of the pair whose highlights are now shown
    sync_scroll_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.left = DiffPane()
        self.right = DiffPane()
        self.left_title = TitleLabel()
        self.right_title = TitleLabel()
        self.previous_button = QPushButton(self.tr("◀ Previous overlap"))
        self.previous_button.setToolTip(self.tr("Previous shared passage (P)"))
        self.next_button = QPushButton(self.tr("Next overlap ▶"))
        self.next_button.setToolTip(self.tr("Next shared passage (N)"))
        self.position_label = QLabel()
        self.sync_box = QCheckBox(self.tr("Synchronized scrolling"))
        self.sync_box.setChecked(True)
        self.state_label = QLabel()
        self.state_label.setStyleSheet("color: #555555;")
        self.notice_label = QLabel()
        self.notice_label.setTextFormat(Qt.TextFormat.PlainText)
        self.notice_label.setWordWrap(True)
        self.notice_label.setStyleSheet(f"color: {OKABE_ITO['vermillion']}; font-weight: bold;")
        self.notice_label.hide()

        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(self.previous_button)
        controls.addWidget(self.next_button)
        controls.addWidget(self.position_label)
        controls.addStretch(1)
        controls.addWidget(self.state_label)
        controls.addWidget(self.sync_box)

        legend = QHBoxLayout()
        legend.setContentsMargins(0, 0, 0, 0)
        legend.setSpacing(6)
        legend.addWidget(QLabel(self.tr("Legend:")))
        self.legend_labels: list[QLabel] = []
        for kind, text, tip in legend_entries():
            entry = swatch(kind, text, tip)
            self.legend_labels.append(entry)
            legend.addWidget(entry)
        self.legend_labels.append(insertion_swatch())
        legend.addWidget(self.legend_labels[-1])
        legend.addStretch(1)

        panes = QSplitter(Qt.Orientation.Horizontal)
        panes.setChildrenCollapsible(False)
        for title, pane in ((self.left_title, self.left), (self.right_title, self.right)):
            box = QWidget()
            column = QVBoxLayout(box)
            column.setContentsMargins(0, 0, 0, 0)
            column.setSpacing(2)
            column.addWidget(title)
            column.addWidget(pane)
            panes.addWidget(box)
        self.splitter = panes

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.notice_label)
        layout.addWidget(panes, 1)
        layout.addLayout(legend)

        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._channel = DiffChannel(self)
        self._channel.diff_ready.connect(self._on_diff_ready)
        self._channel.diff_failed.connect(self._on_diff_failed)
        self._request_id = 0
        self._drawn_id = -1
        self._request: PairRequest | None = None
        self._diff: PairDiff | None = None
        self._current = -1
        self._syncing = False

        self.previous_button.clicked.connect(self.previous_overlap)
        self.next_button.clicked.connect(self.next_overlap)
        self.sync_box.toggled.connect(self.sync_scroll_changed)
        self.left.span_clicked.connect(lambda offset: self._on_span_clicked("left", offset))
        self.right.span_clicked.connect(lambda offset: self._on_span_clicked("right", offset))
        self.left.verticalScrollBar().valueChanged.connect(lambda _v: self._follow("left"))
        self.right.verticalScrollBar().valueChanged.connect(lambda _v: self._follow("right"))
        self.clear()

    # -- showing pairs ------------------------------------------------------------------------
    @property
    def request_id(self) -> int:
        return self._request_id

    def is_drawn(self) -> bool:
        """True when the highlights of the pair shown (if any) are in place."""
        return self._drawn_id == self._request_id

    @property
    def diff(self) -> PairDiff | None:
        return self._diff

    def clear(self) -> None:
        """Show nothing (no pair selected)."""
        self._request_id += 1
        self._request, self._diff, self._current = None, None, -1
        self.left.set_text("")
        self.right.set_text("")
        self.left_title.set_title(self.tr("Left"))
        self.right_title.set_title(self.tr("Right"))
        self._set_notice("")
        self.state_label.setText(self.tr("Select a pair to compare it."))
        self._drawn_id = self._request_id
        self._update_navigation()

    def show_pair(self, request: PairRequest) -> int:
        """Show a pair's texts now and its highlights as soon as they are computed.

        Returns:
            The request id that ``pair_drawn`` will carry.
        """
        self._request_id += 1
        request_id = self._request_id
        self._request, self._diff, self._current = request, None, -1
        for label, doc, doc_id, side in (
            (self.left_title, request.left_doc, request.candidate.left, self.tr("Left")),
            (self.right_title, request.right_doc, request.candidate.right, self.tr("Right")),
        ):
            label.set_title(self._describe(doc, doc_id, side), doc.path if doc is not None else doc_id)
        self.left.set_text(request.left_text)
        self.right.set_text(request.right_text)
        self._set_notice(request.notice)
        self._update_navigation()
        if not (request.left_text and request.right_text):
            # A side without text (e.g. a file that changed since the screen): nothing to compare, and
            # highlighting the other side as "only here" would mislead.
            self.state_label.setText(self.tr("Not compared: one side has no text to show."))
            self._drawn_id = request_id
            self.pair_drawn.emit(request_id)
            return request_id
        if len(request.left_text) + len(request.right_text) <= BACKGROUND_CHARS:
            try:
                result = pair_diff(request.left_text, request.right_text, request.options, min_len=request.min_len)
                marks = _marks_of(result, request.candidate)
            except Exception as exc:  # shown in the view; the texts stay readable
                self._on_diff_failed(request_id, str(exc))
            else:
                self._on_diff_ready(request_id, marks)
        else:
            self.state_label.setText(self.tr("Comparing…"))
            self._pool.clear()  # pairs the user has already moved past need not be compared
            self._pool.start(DiffJob(
                request_id, request.left_text, request.right_text, request.options, request.min_len, self._channel,
                finish=partial(_marks_of, candidate=request.candidate),  # the highlights made there too
            ))  # fmt: skip
        return request_id

    def _describe(self, doc: Document | None, doc_id: str, side: str) -> str:
        if doc is None:
            return f"{side}: {doc_id}"
        # Extracted formats (docx, pdf, html) have no encoding of their own: name the extractor.
        how = doc.encoding or doc.extractor or "?"
        return self.tr("{0}: {1}   ({2} {3}, {4}, {5} characters)").format(
            side, doc.path, doc.source_id, doc.version, how, f"{doc.chars:,}"
        )

    def _set_notice(self, notice: str) -> None:
        self.notice_label.setText(notice)
        self.notice_label.setVisible(bool(notice))
        for pane in (self.left, self.right):
            pane.setPlaceholderText(notice)

    def _on_diff_ready(self, request_id: int, marks: object) -> None:
        if request_id != self._request_id or self._request is None or not isinstance(marks, _Marks):
            return  # an answer for a pair that is no longer shown
        self._diff = diff = marks.diff
        self.left.set_highlights(marks.left)
        self.right.set_highlights(marks.right)
        self.left.set_insertions(marks.left_points)
        self.right.set_insertions(marks.right_points)
        self.state_label.setText(
            self.tr("shared passages: {0} · changes inside them: {1}").format(len(diff.segments), len(diff.hunks))
        )
        self._update_navigation()
        self._drawn_id = request_id
        self.pair_drawn.emit(request_id)

    def _on_diff_failed(self, request_id: int, details: str) -> None:
        if request_id != self._request_id:
            return
        lines = details.strip().splitlines() or [""]
        self.state_label.setText(self.tr("Could not compare this pair: {0}").format(lines[-1]))
        self._drawn_id = request_id
        self.pair_drawn.emit(request_id)

    # -- navigation ---------------------------------------------------------------------------
    def overlap_count(self) -> int:
        return len(self._diff.segments) if self._diff is not None else 0

    def current_overlap(self) -> int:
        return self._current

    def next_overlap(self) -> None:
        """Move to the next shared passage (N)."""
        if self.overlap_count():
            self.go_to_overlap(min(self._current + 1, self.overlap_count() - 1))

    def previous_overlap(self) -> None:
        """Move to the previous shared passage (P)."""
        if self.overlap_count():
            self.go_to_overlap(max(self._current - 1, 0))

    def go_to_overlap(self, index: int, *, scroll: tuple[bool, bool] = (True, True)) -> None:
        """Make shared passage ``index`` current on both sides and scroll them to it."""
        if self._diff is None or not 0 <= index < len(self._diff.segments):
            return
        self._current = index
        seg = self._diff.segments[index]
        self.left.set_current(seg.left_start, seg.left_end)
        self.right.set_current(seg.right_start, seg.right_end)
        self._syncing = True
        try:
            if scroll[0]:
                self.left.show_span(seg.left_start)
            if scroll[1]:
                self.right.show_span(seg.right_start)
        finally:
            self._syncing = False
        self._update_navigation()

    def _update_navigation(self) -> None:
        count = self.overlap_count()
        self.previous_button.setEnabled(count > 0 and self._current > 0)
        self.next_button.setEnabled(count > 0 and self._current < count - 1)
        if count == 0:
            self.position_label.setText("")
        elif self._current < 0:
            self.position_label.setText(self.tr("overlaps: {0}").format(count))
        else:
            self.position_label.setText(self.tr("overlap {0} of {1}").format(self._current + 1, count))

    def _on_span_clicked(self, side: str, offset: int) -> None:
        """A click on a shared passage scrolls the other pane to its twin."""
        if self._diff is None:
            return
        for i, seg in enumerate(self._diff.segments):
            start, end = (seg.left_start, seg.left_end) if side == "left" else (seg.right_start, seg.right_end)
            if start <= offset < end:
                self.go_to_overlap(i, scroll=(side == "right", side == "left"))
                return

    # -- synchronized scrolling ---------------------------------------------------------------
    def set_sync_scroll(self, on: bool) -> None:
        self.sync_box.setChecked(on)

    def twin_offset(self, side: str, offset: int) -> int | None:
        """Offset on the other side matching ``offset``, anchored on the nearest shared passage."""
        if self._diff is None or not self._diff.segments:
            return None
        best = None
        for seg in self._diff.segments:
            own = (seg.left_start, seg.left_end) if side == "left" else (seg.right_start, seg.right_end)
            other = (seg.right_start, seg.right_end) if side == "left" else (seg.left_start, seg.left_end)
            if own[0] <= offset:
                best = (own, other)
            else:
                break
        if best is None:
            return 0
        (own_start, own_end), (other_start, other_end) = best
        if offset < own_end:
            return min(other_start + (offset - own_start), other_end)
        return other_end + (offset - own_end)

    def _follow(self, side: str) -> None:
        if self._syncing or not self.sync_box.isChecked() or self._request is None:
            return
        source, target = (self.left, self.right) if side == "left" else (self.right, self.left)
        self._syncing = True
        try:
            twin = self.twin_offset(side, source.top_offset())
            if twin is None:
                bar, other = source.verticalScrollBar(), target.verticalScrollBar()
                share = bar.value() / bar.maximum() if bar.maximum() else 0.0
                other.setValue(round(share * other.maximum()))
            else:
                target.scroll_offset_to_top(twin)
        finally:
            self._syncing = False

    def set_highlight_colours(self, colours: dict[HighlightKind, QColor]) -> None:
        """Use the user's highlight colours (Preferences) in both panes and the legend."""
        for pane in (self.left, self.right):
            pane.set_colours(colours)
        for (kind, _text, _tip), label in zip(legend_entries(), self.legend_labels):
            if kind in colours:
                palette = label.palette()
                palette.setColor(QPalette.ColorRole.Window, colours[kind])
                label.setPalette(palette)

    # -- keys and shutdown --------------------------------------------------------------------
    @staticmethod
    def navigation_keys() -> tuple[QKeySequence, QKeySequence]:
        """(next, previous) shortcuts; the main window binds them window-wide."""
        return QKeySequence(Qt.Key.Key_N), QKeySequence(Qt.Key.Key_P)

    def shutdown(self) -> None:
        """Forget queued comparisons and wait for a running one (window closing)."""
        self._request_id += 1
        self._pool.clear()
        self._pool.waitForDone(5000)
