"""The status-bar progress of a screen: stage name, counts, time left and a Cancel button.

The share of the whole screen and the time left come from ``core.estimate.ScreenEstimate``: the
stage reports, and the engine's estimate of each stage's work (``plan``) as soon as it knows it.
Imports PySide6 only.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from neardup_gui.core.estimate import ScreenEstimate
from neardup_gui.core.progress import OPEN_ENDED_STAGES
from neardup_gui.ui.labels import format_duration, stage_labels
from neardup_gui.ui.labels import stage_label as stage_name

_STEPS = 1000


class ProgressPanel(QWidget):
    """Progress bar with stage, counts, estimate and Cancel; hidden when idle."""

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stage_label = QLabel()
        # Wide enough for the longest stage with six-digit counts, so the bar does not jump about.
        metrics = self.fontMetrics()
        widest = max(metrics.horizontalAdvance(label) for label in stage_labels())
        self.stage_label.setMinimumWidth(widest + metrics.horizontalAdvance(" 100,000 / 100,000") + 8)
        self.bar = QProgressBar()
        self.bar.setRange(0, _STEPS)
        self.bar.setMinimumWidth(220)
        self.bar.setTextVisible(True)
        self.eta_label = QLabel()
        # Room for a long time left from the start: the bar keeps its place when one appears.
        self.eta_label.setMinimumWidth(metrics.horizontalAdvance(self.tr("{0} left").format(format_duration(3599))) + 8)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop the screen; the previous results stay"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stage_label)
        layout.addWidget(self.bar)
        layout.addWidget(self.eta_label)
        layout.addWidget(self.cancel_button)
        self.cancel_button.clicked.connect(self.request_cancel)
        self._started = 0.0
        self._running = False
        self._estimate = ScreenEstimate()
        self.hide()

    def start(self) -> None:
        self._started = time.monotonic()
        self._running = True
        self._estimate = ScreenEstimate()
        self.bar.setValue(0)
        self.bar.setFormat("%p%")
        self.stage_label.setText(self.tr("Starting…"))
        self.eta_label.setText("")
        self.cancel_button.setEnabled(True)
        self.show()

    def plan(self, seconds: dict[str, float]) -> None:
        """Take the engine's estimate of some stages' work (``core.estimate.plan_stages``)."""
        self._estimate.plan(seconds)

    def update_progress(self, done: int, total: int, stage: str) -> None:
        """Show one progress report of the worker."""
        self._estimate.report(stage, done, total)
        self.bar.setValue(round(self._estimate.share() * _STEPS))
        stage_text = stage_name(stage)
        if stage in OPEN_ENDED_STAGES:  # counted while the total is unknown ("list")
            text = self.tr("{0} ({1} found)").format(stage_text, f"{done:,}")
        elif total > 1:
            text = f"{stage_text} {done:,} / {total:,}"
        else:  # a one-step stage ("write") has no count
            text = stage_text
        if self.cancel_button.isEnabled():
            self.stage_label.setText(text)
        left = self._estimate.seconds_left(time.monotonic() - self._started)
        # (cleared while too little is done to say, as after an estimate grew many times over)
        self.eta_label.setText(self.tr("{0} left").format(format_duration(left)) if left is not None else "")

    def stop(self) -> None:
        self._running = False
        self.hide()

    def request_cancel(self) -> None:
        """Show "Cancelling…" until the worker confirms, and ask it to stop."""
        if not self._running or not self.cancel_button.isEnabled():
            return
        self.cancel_button.setEnabled(False)
        self.stage_label.setText(self.tr("Cancelling…"))
        self.cancel_requested.emit()
