"""The parameters panel, the decision form and the remembered settings."""

from __future__ import annotations

import sys

import pytest

from neardup_gui.core.methods.minhash_lsh import collision_probability, optimal_bands_rows
from neardup_gui.core.records import (
    FILE_STATUSES,
    STATUS_NO_TEXT_LAYER,
    STATUS_UNDECODABLE,
    REVIEW_PENDING_ARBITRATION,
    REVIEW_PUBLIC_QUOTATION,
    REVIEW_STATUSES,
    Decision,
    NormalizeOptions,
    ScreenParams,
)
from neardup_gui.ui.background import warm_up_engine
from neardup_gui.ui.decision_form import DecisionForm
from neardup_gui.ui.labels import file_status_label
from neardup_gui.ui.params_panel import ParamsPanel, format_probability
from neardup_gui.ui.settings import AppSettings
from ui_factories import make_candidate, make_document


def test_params_panel_round_trips_parameters_and_explains_the_s_curve(qtbot) -> None:
    panel = ParamsPanel()
    qtbot.addWidget(panel)
    params = ScreenParams(
        k=3, num_perm=64, threshold=0.7, normalize=NormalizeOptions(True, "lower", "punct"),
        include=("*.txt",), exclude=("drafts/*", "*.bak"), containment_threshold=0.0,
    )  # fmt: skip
    panel.set_params(params)
    assert panel.params() == params
    bands, rows = optimal_bands_rows(0.7, 64)
    assert f"{bands} bands × {rows} rows" in panel.curve_label.text()
    assert format_probability(collision_probability(0.8, bands, rows)) in panel.curve_label.text()
    assert "Jaccard 0.8" in panel.curve_label.text()


def test_the_large_group_limit_is_shown_and_zero_says_every_pair_is_verified(qtbot) -> None:
    panel = ParamsPanel()
    qtbot.addWidget(panel)
    panel.set_params(ScreenParams(cluster_limit=120))
    assert panel.cluster_spin.value() == 120 and panel.params().cluster_limit == 120
    panel.cluster_spin.setValue(0)
    assert panel.cluster_spin.text() == "verify every pair"
    assert panel.params().cluster_limit == 0
    panel.set_params(ScreenParams(cluster_limit=0))
    panel.cluster_spin.setValue(35)
    assert panel.params().cluster_limit == 35


def test_manual_bands_and_rows_change_the_probability_and_stay_within_num_perm(qtbot) -> None:
    panel = ParamsPanel()
    qtbot.addWidget(panel)
    panel.manual_banding.setChecked(True)
    panel.rows_spin.setValue(8)
    panel.bands_spin.setValue(1000)  # clamped: bands × rows may not exceed num_perm
    assert panel.bands_spin.value() * 8 <= panel.num_perm_spin.value()
    panel.bands_spin.setValue(4)
    assert format_probability(collision_probability(0.8, 4, 8)) in panel.curve_label.text()
    assert (panel.params().bands, panel.params().rows) == (4, 8)


def test_status_buttons_make_a_timed_decision_with_the_form_fields(qtbot) -> None:
    form = DecisionForm()
    qtbot.addWidget(form)
    candidate = make_candidate("l", "r", 0.9)
    form.set_pair(candidate, make_document("l", "a/l.txt", sha256="1" * 64), make_document("r", "b/r.txt"), None)
    form.reviewer_edit.setText("李审校")
    form.related_edit.setText("新华社 2024-05-01")
    made: list[Decision] = []
    form.decision_made.connect(made.append)
    form.status_buttons[REVIEW_PUBLIC_QUOTATION].click()
    (decision,) = made
    assert (decision.left, decision.right, decision.status) == ("l", "r", REVIEW_PUBLIC_QUOTATION)
    assert decision.reviewer == "李审校" and decision.related_source == "新华社 2024-05-01"
    assert decision.left_sha256 == "1" * 64 and "T" in decision.time


def test_no_decision_without_a_reviewer_name(qtbot) -> None:
    form = DecisionForm()
    qtbot.addWidget(form)
    form.set_pair(make_candidate("l", "r", 0.9), None, None, None)
    form.reviewer_edit.setText("")
    made: list[Decision] = []
    form.decision_made.connect(made.append)
    assert not form.choose_status(REVIEW_PUBLIC_QUOTATION)
    assert made == [] and "reviewer" in form.note_label.text()


def test_the_form_shows_the_latest_decision_of_a_pair(qtbot) -> None:
    form = DecisionForm()
    qtbot.addWidget(form)
    latest = Decision("l", "r", REVIEW_PENDING_ARBITRATION, "王", "2024-05-01T09:30:00+08:00", reason="两人意见不同", retained="right")
    form.set_pair(make_candidate("l", "r", 0.9), None, None, latest)
    assert form.status_buttons[REVIEW_PENDING_ARBITRATION].isChecked()
    assert form.reason_edit.toPlainText() == "两人意见不同"
    assert form.retained_combo.currentData() == "right"
    assert "2024-05-01T09:30:00+08:00" in form.time_label.text()
    assert [b.shortcut().toString() for b in form.status_buttons.values()] == [
        f"Ctrl+{i}" for i in range(len(REVIEW_STATUSES))
    ]


def test_settings_keep_lists_params_and_reviewer(tmp_path) -> None:
    settings = AppSettings.in_file(tmp_path / "s.ini")
    for folder in ("/a", "/b", "/a"):
        settings.add_recent_folder(folder)
    settings.set_last_params(ScreenParams(k=7, exclude=("x/*",)))
    settings.set_reviewer(" 张三 ")
    settings.set_workspace_for("/a", "/tmp/ws-a")
    settings.sync()
    again = AppSettings.in_file(tmp_path / "s.ini")
    assert again.recent_folders() == ["/a", "/b"]
    assert again.last_params() == ScreenParams(k=7, exclude=("x/*",))
    assert again.reviewer() == "张三"
    assert again.workspace_for("/a") == "/tmp/ws-a" and again.workspace_for("/b") is None


def test_settings_are_written_to_disk_off_the_window_thread(qtbot, tmp_path, monkeypatch) -> None:
    # QSettings writes (and fdatasyncs) its file from the event loop after a change; on a busy disk
    # that froze the window. The window's thread must only hand the change on.
    import threading

    from neardup_gui.ui import settings as settings_mod

    gate = threading.Event()
    writers: list[bool] = []
    real = settings_mod._write_setting

    def slow_disk(*args) -> None:
        writers.append(threading.current_thread() is threading.main_thread())
        gate.wait(10)
        real(*args)

    monkeypatch.setattr(settings_mod, "_write_setting", slow_disk)
    path = tmp_path / "s.ini"
    settings = AppSettings.in_file(path)
    settings.set_last_workspace("/ws/稿件")
    qtbot.wait(100)  # the event loop runs: where QSettings would write the file itself
    assert settings.last_workspace() == "/ws/稿件"  # read back at once
    assert not path.exists() or "last_workspace" not in path.read_text(encoding="utf-8")
    gate.set()
    settings.sync()
    assert writers and not any(writers)
    again = AppSettings.in_file(path)
    assert again.last_workspace() == "/ws/稿件" and again.recent_workspaces() == ["/ws/稿件"]


def test_a_slow_disk_under_the_settings_writer_leaves_the_window_thread_running(tmp_path, monkeypatch) -> None:
    # QSettings.sync() holds the GIL through its fdatasync: on a throttled disk every Python call of
    # the window waited for it (200 ms as a result was shown). The file must reach the disk through
    # os.fsync, which lets go of the GIL, however long the disk takes.
    import os
    import threading
    import time

    from neardup_gui.ui import settings as settings_mod

    if settings_mod._staging_folder() is None:
        pytest.skip("no memory-backed folder to stage the settings in")
    real_fsync = os.fsync
    synced: list[bool] = []

    def slow_fsync(fd: int) -> None:
        synced.append(threading.current_thread() is threading.main_thread())
        time.sleep(0.4)  # a throttled disk
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    path = tmp_path / "s.ini"
    settings = AppSettings.in_file(path)
    settings.set_reviewer("editor-zhang")
    largest, last, end = 0.0, time.perf_counter(), time.perf_counter() + 0.6
    while time.perf_counter() < end:  # the window's thread, running Python meanwhile
        now = time.perf_counter()
        largest, last = max(largest, now - last), now
        sum(range(100))
    settings.sync()
    assert synced and not any(synced)  # synced by os.fsync, on the writer thread
    assert largest < 0.1
    assert "reviewer=editor-zhang" in path.read_text(encoding="utf-8")  # on disk, not only in memory
    assert not list(tmp_path.glob(".s.ini.*"))  # no temporary file left beside it


def test_settings_changed_while_the_disk_is_busy_are_written_in_one_go(tmp_path, monkeypatch) -> None:
    # Showing a result changes four settings; each write of the file is a sync to disk, so changes
    # made while one is under way wait for the next write together instead of one sync each.
    import threading

    from neardup_gui.ui import settings as settings_mod

    gate = threading.Event()
    writes: list[list[str]] = []
    real = settings_mod._write_setting

    def busy_disk(where, changes) -> None:
        writes.append([key for key, _ in changes])
        gate.wait(10)
        real(where, changes)

    monkeypatch.setattr(settings_mod, "_write_setting", busy_disk)
    settings = AppSettings.in_file(tmp_path / "s.ini")
    settings.set_reviewer("editor-wang")
    while not writes:  # the first write has taken its change and waits for the disk
        threading.Event().wait(0.005)
    settings.add_recent_folder("/src/稿件")
    settings.set_workspace_for("/src/稿件", "/ws/a")
    settings.set_last_workspace("/ws/a")
    gate.set()
    settings.sync()
    assert writes == [
        ["review/reviewer"],
        ["folders/recent", "folders/workspaces", "folders/last_workspace", "folders/recent_workspaces"],
    ]
    text = (tmp_path / "s.ini").read_text(encoding="utf-8")
    assert "reviewer=editor-wang" in text and "last_workspace=/ws/a" in text


def test_settings_are_still_written_when_they_cannot_be_staged(tmp_path, monkeypatch) -> None:
    from neardup_gui.ui import settings as settings_mod

    not_a_folder = tmp_path / "full"
    not_a_folder.write_text("", encoding="utf-8")
    monkeypatch.setattr(settings_mod, "_staging_folder", lambda: str(not_a_folder))
    settings = AppSettings.in_file(tmp_path / "s.ini")
    settings.set_reviewer("editor-li")
    settings.sync()
    # On disk (a second AppSettings in this process would share the first one's values in memory).
    assert "reviewer=editor-li" in (tmp_path / "s.ini").read_text(encoding="utf-8")


def test_unreadable_remembered_params_fall_back_to_defaults(tmp_path) -> None:
    (tmp_path / "s.ini").write_text('[screen]\nparams="{\\"k\\": 99}"\n', encoding="utf-8")
    assert AppSettings.in_file(tmp_path / "s.ini").last_params() is None


def test_probabilities_near_one_are_not_rounded_up_to_certainty() -> None:
    assert format_probability(0.99962) == "99.96%"
    assert format_probability(1.0) == "100.0%" and format_probability(0.548) == "54.8%"


def test_file_statuses_say_why_a_file_was_not_compared() -> None:
    assert file_status_label(STATUS_NO_TEXT_LAYER) == "no text layer (scanned PDF)"
    assert file_status_label(STATUS_UNDECODABLE) == "cannot be decoded or extracted"
    assert "_" not in "".join(file_status_label(s) for s in FILE_STATUSES)  # words, never codes


def test_the_engine_warm_up_loads_the_compiled_kernel_in_the_background() -> None:
    import gc

    alive = [[n] for n in range(5000)]  # objects the collector tracks, alive through the warm-up
    frozen = gc.get_freeze_count()
    thread = warm_up_engine()
    assert thread.daemon
    thread.join(timeout=120)
    assert "neardup_gui.core.methods._sigkernel" in sys.modules
    assert "neardup_gui.core._prepkernel" in sys.modules
    assert "neardup_gui.core._diffkernel" in sys.modules
    # What is alive then (the kernels included) is out of the cyclic collector's sight: a full
    # collection on the window's thread no longer goes through it (150-200 ms with them loaded).
    assert gc.get_freeze_count() >= frozen + len(alive)


def test_the_font_warm_up_draws_every_face_a_slice_per_event_loop_pass(qtbot) -> None:
    from PySide6.QtCore import QTimer

    from neardup_gui.ui.background import FontWarmUp, _common_chinese

    chinese = _common_chinese()
    assert len(chinese) == 3755 and "的" in chinese and "中" in chinese
    fonts = FontWarmUp()
    ticks: list[int] = []  # characters drawn when each 0 ms tick of the event loop ran
    tick = QTimer()
    tick.setInterval(0)
    tick.timeout.connect(lambda: ticks.append(fonts.drawn))
    tick.start()
    fonts.start()
    assert fonts.drawn == 0  # nothing on the caller's time
    qtbot.waitUntil(lambda: fonts.done, timeout=30_000)
    tick.stop()
    # Latin in the regular, bold and italic faces, the common characters in regular and bold.
    assert fonts.drawn == 3 * 95 + 2 * len(chinese)
    # Other events ran between the slices: never more than one slice (the Latin text, or SLICE
    # Chinese characters) between two ticks.
    steps = [b - a for a, b in zip(ticks, ticks[1:])]
    assert len(ticks) > 2 * len(chinese) // FontWarmUp.SLICE and max(steps) <= max(95, FontWarmUp.SLICE)
