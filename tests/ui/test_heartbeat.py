"""The window beats while background work runs, so that the engine's threads stand aside when its
thread is kept waiting (core.progress.Heartbeat), and stops beating when the work ends."""

from __future__ import annotations

import threading
from pathlib import Path

from neardup_gui.core.progress import WINDOW_HEARTBEAT
from neardup_gui.core.records import ScreenParams
from neardup_gui.ui.background import JobRunner, Pulse
from neardup_gui.ui.worker import ScreenRunner
from ui_factories import SCREEN_TIMEOUT_MS


def test_a_job_holds_the_heartbeat_and_the_window_beats_until_it_ends(qtbot) -> None:
    runner = JobRunner()
    release = threading.Event()
    held = WINDOW_HEARTBEAT.holders
    assert not runner.pulse.running
    runner.start("slow", lambda progress: release.wait(30))
    assert WINDOW_HEARTBEAT.holders == held + 1 and runner.pulse.running
    first = WINDOW_HEARTBEAT._last
    qtbot.waitUntil(lambda: WINDOW_HEARTBEAT._last > first, timeout=5000)  # the timer beats
    with qtbot.waitSignal(runner.job_finished, timeout=5000):
        release.set()
    assert WINDOW_HEARTBEAT.holders == held and not runner.pulse.running
    last = WINDOW_HEARTBEAT._last
    qtbot.wait(50)
    assert held or WINDOW_HEARTBEAT._last == last  # idle: no timer wakes the process


def test_a_screen_holds_the_heartbeat_while_it_runs(qtbot, tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for i in range(30):
        (source / f"{i:02d}.txt").write_text(f"第{i}篇。" + "报销单提交后需要直属主管审批。" * 4, encoding="utf-8")
    runner = ScreenRunner()
    held = WINDOW_HEARTBEAT.holders
    seen: list[int] = []
    runner.progress_changed.connect(lambda *_args: seen.append(WINDOW_HEARTBEAT.holders))
    with qtbot.waitSignal(runner.screening_finished, timeout=SCREEN_TIMEOUT_MS):
        runner.start(source, ScreenParams(), tmp_path / "workspace")
    assert seen and set(seen) == {held + 1}
    assert WINDOW_HEARTBEAT.holders == held and not runner.pulse.running


def test_pulses_nest_and_share_the_heartbeat(qtbot) -> None:
    a, b = Pulse(), Pulse()
    held = WINDOW_HEARTBEAT.holders
    a.start()
    a.start()
    b.start()
    a.stop()
    assert WINDOW_HEARTBEAT.holders == held + 2 and a.running
    a.stop()
    a.stop()  # one stop too many changes nothing
    assert WINDOW_HEARTBEAT.holders == held + 1 and not a.running  # b still runs
    b.stop()
    assert WINDOW_HEARTBEAT.holders == held


def test_a_job_runs_without_automatic_cyclic_collections_and_they_resume_after(qtbot) -> None:
    # Each full collection during a long job (an export of a large workspace ran 21 of them,
    # 34-238 ms each) is a stall of the window: jobs pause the collector as a screen does.
    import gc

    runner = JobRunner()
    seen: list[bool] = []
    with qtbot.waitSignal(runner.job_finished, timeout=5000):
        runner.start("look", lambda progress: gc.isenabled(), seen.append)
    assert seen == [False]
    assert gc.isenabled()
    qtbot.wait(50)  # the job's channel is deleted later, by the runner's event loop


def test_a_job_asked_to_freeze_leaves_its_result_out_of_the_collectors_sight(qtbot) -> None:
    # A job that leaves many objects (an evaluation of 100,000 files) would otherwise have them all
    # walked by the first young collection after it: 78 ms, a stall of the window.
    import gc

    runner = JobRunner()
    results: list[object] = []
    for freeze in (False, True):
        before = gc.get_freeze_count()
        with qtbot.waitSignal(runner.job_finished, timeout=5000):
            runner.start("make", lambda progress: [[n] for n in range(20_000)], results.append, freeze=freeze)
        assert len(results[-1]) == 20_000
        if freeze:
            assert gc.get_freeze_count() >= before + 20_000
            assert not any(obj is results[-1] for obj in gc.get_objects())  # frozen: in no generation
        else:
            assert gc.get_freeze_count() < before + 20_000
    failed: list[str] = []

    def fails(progress):
        made = [[n] for n in range(20_000)]  # alive in the traceback's frame
        if made:
            raise ValueError("bad labels")

    before = gc.get_freeze_count()
    with qtbot.waitSignal(runner.job_failed, timeout=5000):
        runner.start("fail", fails, on_failed=lambda message, details: failed.append(message), freeze=True)
    assert failed == ["bad labels"] and gc.get_freeze_count() < before + 20_000  # its frames stay collectable
    qtbot.wait(50)
