"""The status bar's share and time left follow the engine's estimates of the work."""

from __future__ import annotations

import re
import time

from PySide6.QtCore import Qt

from neardup_gui.core.progress import STAGES
from neardup_gui.ui.progress_panel import ProgressPanel
from ui_factories import SCREEN_TIMEOUT_MS

NAMES = [name for name, _weight in STAGES]


def test_a_folder_whose_reading_is_the_work_shows_the_reading_as_most_of_the_bar(qtbot) -> None:
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.start()
    panel._started = time.monotonic() - 4.5  # the reading has gone on for 4.5 s
    # As the engine says after listing a folder of PDFs: reading is nine tenths of the work.
    panel.plan({name: (9.0 if name == "read" else 0.1) for name in NAMES})
    panel.update_progress(0, 0, "list")
    panel.update_progress(500, 1000, "read")
    assert 450 <= panel.bar.value() <= 520  # about half (the fixed shares showed 11 %)
    assert panel.eta_label.text() == "about 5 s left"  # (the fixed shares said about 37 s)
    # The pairs turned out many: the bar stays, the time left grows.
    shown = panel.bar.value()
    panel.update_progress(1000, 1000, "read")
    after_read = panel.bar.value()
    panel.plan({"verify": 2000.0})
    panel.update_progress(0, 10, "verify")
    assert panel.eta_label.text() == ""  # too little of the new whole done to say
    panel.plan({"verify": 200.0})
    panel.update_progress(0, 10, "verify")
    assert panel.bar.value() == after_read > shown
    assert re.fullmatch(r"about 1 min 3[5-9] s left", panel.eta_label.text())  # 4.5 s x 200.4 s left / 9.4 s done
    panel.start()  # a new screen starts from nothing known
    assert panel.bar.value() == 0
    panel.update_progress(500, 1000, "read")
    assert panel.bar.value() < 200


def test_the_window_hears_the_engine_s_estimates_during_a_real_screen(make_window, sample, qtbot) -> None:
    window = make_window(sample)
    plans: list[dict[str, float]] = []
    window.runner.worker_created.connect(
        lambda worker: worker.progress_planned.connect(plans.append, Qt.ConnectionType.DirectConnection)
    )
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    assert len(plans) == 4  # after listing, before preparing, from the first sample, before verifying
    assert set(plans[0]) == set(NAMES)
    assert all(value >= 0 for plan in plans for value in plan.values())
    assert window.progress._estimate.seconds["verify"] == plans[-1]["verify"]


def test_the_bar_keeps_its_place_when_a_time_left_appears(qtbot) -> None:
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.start()
    before = panel.sizeHint().width()
    panel._started = time.monotonic() - 60
    panel.plan({name: (100.0 if name == "read" else 1.0) for name in NAMES})
    panel.update_progress(10, 100, "read")
    assert panel.eta_label.text() == "about 8 min 49 s left"  # 60 s x (97 s left / 11 s done)
    assert panel.sizeHint().width() == before  # room for it was there from the start
