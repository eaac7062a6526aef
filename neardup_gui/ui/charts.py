"""Small charts drawn with QPainter: a score histogram with a threshold line, and line charts
(precision and recall against the threshold, the LSH S-curve).

Why QPainter and not QtCharts or pyqtgraph: QtCharts is not in PySide6-Essentials; it needs
PySide6-Addons (+156 MB download, and a bigger frozen app) for three static charts. pyqtgraph is
~10 MB and pulls an OpenGL-capable plotting stack meant for live data. Three charts with at most a
few hundred points need axes, ticks, bars, polylines and a marker line: about 250 lines here, no new
dependency, the same fonts (CJK included) and palette as the rest of the window, and they render
offscreen in tests and in ``widget.grab()``.

Imports PySide6 only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from neardup_gui.ui.palette import OKABE_ITO

MARKER_COLOR = QColor(OKABE_ITO["vermillion"])
BAR_COLOR = QColor(OKABE_ITO["blue"])
POSITIVE_COLOR = QColor(OKABE_ITO["bluish_green"])
NEGATIVE_COLOR = QColor(OKABE_ITO["reddish_purple"])
_GRID = QColor(225, 225, 225)
_AXIS = QColor(90, 90, 90)
_MARGIN_LEFT, _MARGIN_RIGHT, _MARGIN_TOP, _MARGIN_BOTTOM = 44, 12, 26, 44
_RUG = 10  # height of the labelled-pair ticks under the histogram's axis


@dataclass(frozen=True)
class Series:
    """One line of a ``LineChart``; NaN values in ``ys`` leave a gap."""

    name: str
    xs: Sequence[float]
    ys: Sequence[float]
    color: QColor
    dashed: bool = False


def _nice_ticks(top: float, count: int = 4) -> list[float]:
    """Round tick values from 0 to at least ``top``."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    n = math.ceil(top / step - 1e-9)
    return [i * step for i in range(n + 1)]


def _tick_text(value: float) -> str:
    return f"{value:g}" if abs(value - round(value)) > 1e-9 else str(int(round(value)))


class _Chart(QWidget):
    """Axes, grid, title, legend and a vertical marker; subclasses draw the data."""

    def __init__(self, title: str = "", x_label: str = "", y_label: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._title, self._x_label, self._y_label = title, x_label, y_label
        self._x_range = (0.0, 1.0)
        self._y_ticks = [0.0, 0.5, 1.0]
        self._marker: float | None = None
        self._marker_label = ""
        self._legend: list[tuple[str, QColor, bool]] = []
        self._painting: QRectF | None = None  # the plot area while a paint runs
        self._empty_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(220, 160)
        self.setAccessibleName(title)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(340, 230)

    # -- settings ----------------------------------------------------------------------------------
    def set_title(self, title: str) -> None:
        self._title = title
        self.setAccessibleName(title)
        self.update()

    def title(self) -> str:
        return self._title

    def set_marker(self, x: float | None, label: str = "") -> None:
        """Draw a vertical line at ``x`` (None removes it)."""
        self._marker, self._marker_label = x, label
        self.update()

    def marker(self) -> float | None:
        return self._marker

    def set_empty_text(self, text: str) -> None:
        """What to say in the plot area when there is nothing to draw."""
        self._empty_text = text
        self.update()

    # -- geometry ----------------------------------------------------------------------------------
    def _legend_rows(self, fm: QFontMetrics) -> list[list[tuple[str, QColor, bool, float]]]:
        """Legend entries flowed into rows that fit the widget's width (entry, its width)."""
        rows: list[list[tuple[str, QColor, bool, float]]] = [[]]
        used = 0.0
        room = max(60.0, self.width() - _MARGIN_LEFT - _MARGIN_RIGHT)
        for name, color, dashed in self._legend:
            w = fm.horizontalAdvance(name) + 30.0
            if rows[-1] and used + w > room:
                rows.append([])
                used = 0.0
            rows[-1].append((name, color, dashed, w))
            used += w
        return [r for r in rows if r]

    def _top_margin(self, fm: QFontMetrics) -> float:
        return _MARGIN_TOP + fm.height() * len(self._legend_rows(fm))

    def plot_rect(self) -> QRectF:
        """The data area in widget coordinates (below the title and the legend)."""
        if self._painting is not None:  # worked out once per paint: thousands of points ask for it
            return self._painting
        top = self._top_margin(QFontMetrics(self.font()))
        return QRectF(
            _MARGIN_LEFT, top,
            max(10.0, self.width() - _MARGIN_LEFT - _MARGIN_RIGHT),
            max(10.0, self.height() - top - _MARGIN_BOTTOM),
        )  # fmt: skip

    def map_x(self, x: float) -> float:
        lo, hi = self._x_range
        r = self.plot_rect()
        return r.left() + (x - lo) / (hi - lo) * r.width()

    def map_y(self, y: float) -> float:
        r = self.plot_rect()
        top = self._y_ticks[-1] or 1.0
        return r.bottom() - y / top * r.height()

    # -- painting ----------------------------------------------------------------------------------
    def _has_data(self) -> bool:
        return True

    def _paint_data(self, painter: QPainter) -> None:
        raise NotImplementedError

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), self.palette().base())
        fm = QFontMetrics(self.font())
        r = self.plot_rect()
        self._painting = r
        try:
            self._paint_chart(painter, fm, r)
        finally:
            self._painting = None

    def _paint_chart(self, painter: QPainter, fm: QFontMetrics, r: QRectF) -> None:
        text_color = self.palette().text().color()
        painter.setPen(text_color)
        painter.drawText(QRectF(0, 2, self.width(), _MARGIN_TOP - 4), Qt.AlignmentFlag.AlignCenter, self._title)
        for value in self._y_ticks:
            y = self.map_y(value)
            painter.setPen(QPen(_GRID, 1))
            painter.drawLine(QPointF(r.left(), y), QPointF(r.right(), y))
            painter.setPen(_AXIS)
            label = _tick_text(value)
            painter.drawText(QRectF(0, y - fm.height() / 2, _MARGIN_LEFT - 6, fm.height()),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, label)  # fmt: skip
        lo, hi = self._x_range
        for i in range(6):
            x_val = lo + (hi - lo) * i / 5
            x = self.map_x(x_val)
            painter.setPen(_AXIS)
            painter.drawLine(QPointF(x, r.bottom()), QPointF(x, r.bottom() + 3))
            painter.drawText(QRectF(x - 20, r.bottom() + _RUG + 2, 40, fm.height()), Qt.AlignmentFlag.AlignCenter,
                             _tick_text(round(x_val, 2)))  # fmt: skip
        painter.drawText(QRectF(r.left(), self.height() - fm.height() - 2, r.width(), fm.height()),
                         Qt.AlignmentFlag.AlignCenter, self._x_label)  # fmt: skip
        painter.save()
        painter.translate(2 + fm.height() / 2, r.center().y())
        painter.rotate(-90)
        painter.drawText(QRectF(-r.height() / 2, -fm.height() / 2, r.height(), fm.height()),
                         Qt.AlignmentFlag.AlignCenter, self._y_label)  # fmt: skip
        painter.restore()
        painter.setPen(QPen(_AXIS, 1))
        painter.drawLine(r.bottomLeft(), r.bottomRight())
        painter.drawLine(r.bottomLeft(), r.topLeft())
        if self._has_data():
            painter.save()
            painter.setClipRect(r.adjusted(-1, -1, 1, _RUG + 1))
            self._paint_data(painter)
            painter.restore()
        elif self._empty_text:
            painter.setPen(_AXIS)
            painter.drawText(r, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self._empty_text)
        if self._marker is not None and lo <= self._marker <= hi:
            x = self.map_x(self._marker)
            painter.setPen(QPen(MARKER_COLOR, 2))
            painter.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
            if self._marker_label:
                w = fm.horizontalAdvance(self._marker_label) + 6
                left = x + 3 if x + w < r.right() else x - w - 3
                painter.drawText(QRectF(left, r.top(), w, fm.height()), Qt.AlignmentFlag.AlignLeft, self._marker_label)
        self._paint_legend(painter, fm, r)
        painter.end()

    def _paint_legend(self, painter: QPainter, fm: QFontMetrics, r: QRectF) -> None:
        """The legend as rows between the title and the plot, so it never covers data."""
        y = _MARGIN_TOP - 2 + fm.height() / 2
        for row in self._legend_rows(fm):
            x = r.left()
            for name, color, dashed, width in row:
                painter.setPen(QPen(color, 2, Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine))
                painter.drawLine(QPointF(x, y), QPointF(x + 16, y))
                painter.setPen(self.palette().text().color())
                painter.drawText(QRectF(x + 20, y - fm.height() / 2, width - 20, fm.height()),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, name)  # fmt: skip
                x += width
            y += fm.height()


class HistogramChart(_Chart):
    """Counts of scores in [0, 1] per bin, with a threshold line and ticks for labelled pairs."""

    def __init__(self, title: str = "", x_label: str = "", y_label: str = "", parent: QWidget | None = None) -> None:
        super().__init__(title, x_label, y_label, parent)
        self._edges = np.linspace(0.0, 1.0, 21)
        self._counts = np.zeros(20, dtype=int)
        self._positives: list[float] = []
        self._negatives: list[float] = []
        self._names = ("", "", "")

    def set_values(self, values: Sequence[float], bins: int = 20) -> None:
        """Replace the scores (shares in [0, 1]) and count them in ``bins`` equal bins."""
        self._edges = np.linspace(0.0, 1.0, bins + 1)
        self._counts, _ = np.histogram(np.clip(np.asarray(values, dtype=float), 0.0, 1.0), bins=self._edges)
        self._y_ticks = _nice_ticks(float(self._counts.max()) if self._counts.size else 1.0)
        self.update()

    def set_labelled(self, positives: Sequence[float], negatives: Sequence[float]) -> None:
        """Scores of labelled pairs, drawn as ticks under the axis (positives up, negatives down)."""
        self._positives, self._negatives = list(positives), list(negatives)
        self.update()

    def set_legend_names(self, bars: str, positive: str, negative: str) -> None:
        self._names = (bars, positive, negative)
        self._legend = [(n, c, False) for n, c in zip(self._names, (BAR_COLOR, POSITIVE_COLOR, NEGATIVE_COLOR)) if n]
        self.update()

    def counts(self) -> list[int]:
        """Number of values per bin, lowest bin first."""
        return [int(c) for c in self._counts]

    def bin_edges(self) -> list[float]:
        return [float(e) for e in self._edges]

    def _has_data(self) -> bool:
        return bool(self._counts.sum()) or bool(self._positives or self._negatives)

    def _paint_data(self, painter: QPainter) -> None:
        r = self.plot_rect()
        fill = QColor(BAR_COLOR)
        fill.setAlpha(170)
        painter.setPen(QPen(BAR_COLOR, 1))
        painter.setBrush(fill)
        for count, lo, hi in zip(self._counts, self._edges[:-1], self._edges[1:]):
            if count:
                top = self.map_y(float(count))
                painter.drawRect(QRectF(self.map_x(lo) + 1, top, self.map_x(hi) - self.map_x(lo) - 2, r.bottom() - top))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for values, color, y0 in ((self._positives, POSITIVE_COLOR, 1), (self._negatives, NEGATIVE_COLOR, 1 + _RUG / 2)):
            painter.setPen(QPen(color, 3))
            # a tick per half pixel at most: thousands of labelled pairs draw the same few hundred lines
            xs = sorted({round(2 * self.map_x(min(1.0, max(0.0, v)))) / 2 for v in values})
            painter.drawLines([QLineF(x, r.bottom() + y0, x, r.bottom() + y0 + _RUG / 2) for x in xs])


class LineChart(_Chart):
    """Lines over x in [0, 1] with y in [0, 1] (shares: precision, recall, probabilities)."""

    def __init__(self, title: str = "", x_label: str = "", y_label: str = "", parent: QWidget | None = None) -> None:
        super().__init__(title, x_label, y_label, parent)
        self._series: list[Series] = []
        self._y_ticks = [0.0, 0.25, 0.5, 0.75, 1.0]

    def set_series(self, series: Sequence[Series]) -> None:
        """Replace every line; the legend lists them in this order."""
        self._series = list(series)
        self._legend = [(s.name, s.color, s.dashed) for s in self._series if s.name]
        self.update()

    def series(self) -> list[Series]:
        return list(self._series)

    def _has_data(self) -> bool:
        return any(len(s.xs) for s in self._series)

    def _paint_data(self, painter: QPainter) -> None:
        for s in self._series:
            pen = QPen(s.color, 2, Qt.PenStyle.DashLine if s.dashed else Qt.PenStyle.SolidLine)
            painter.setPen(pen)
            path = QPainterPath()
            drawing = False
            points = []
            for x, y in zip(s.xs, s.ys):
                if y is None or (isinstance(y, float) and math.isnan(y)):
                    drawing = False
                    continue
                p = QPointF(self.map_x(float(x)), self.map_y(float(y)))
                points.append(p)
                if drawing:
                    path.lineTo(p)
                else:
                    path.moveTo(p)
                    drawing = True
            painter.drawPath(path)
            if len(points) <= 12:  # few points: show them, a line alone would hide how few there are
                painter.setBrush(s.color)
                for p in points:
                    painter.drawEllipse(p, 2.5, 2.5)
                painter.setBrush(Qt.BrushStyle.NoBrush)
