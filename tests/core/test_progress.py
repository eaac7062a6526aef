"""The window's heartbeat: background threads stand aside while the window's thread is late."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from neardup_gui.core import progress as progress_mod
from neardup_gui.core.progress import (
    WINDOW_HEARTBEAT,
    CallbackProgress,
    Heartbeat,
    consume_giving_way,
    dict_giving_way,
    empty_giving_way,
    list_giving_way,
    slices_giving_way,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_nothing_waits_without_background_work_or_while_the_window_beats() -> None:
    clock = FakeClock()
    heart = Heartbeat(clock)
    clock.now += 10  # no beats for ages, but nothing holds it: the command line never waits
    assert heart.give_way() is False and heart.waits == 0
    heart.hold()
    clock.now += heart.LATE / 2  # beaten recently
    assert heart.give_way() is False and heart.waits == 0


def test_a_late_window_is_waited_for_until_its_next_beat() -> None:
    heart = Heartbeat()
    heart.WAIT = 30.0  # the beat below ends the wait, not this
    heart.hold()
    heart._last -= 0.5  # the window's thread has not run for half a second
    answers: list[bool] = []
    worker = threading.Thread(target=lambda: answers.append(heart.give_way()))
    worker.start()
    time.sleep(0.05)
    assert worker.is_alive() and answers == []  # standing aside
    heart.beat()
    worker.join(5)
    assert answers == [True] and heart.waits == 1
    assert heart.give_way() is False  # beaten just now: no wait


def test_the_window_thread_itself_never_waits_for_its_own_beat() -> None:
    heart = Heartbeat()
    heart.WAIT = 30.0
    heart.hold()
    heart.beat()  # this thread beats: it is the window's
    heart._last -= 0.5
    started = time.monotonic()
    assert heart.give_way() is False and heart.waits == 0
    assert time.monotonic() - started < 1.0


def test_a_window_that_stopped_beating_long_ago_is_not_waited_for() -> None:
    clock = FakeClock()
    heart = Heartbeat(clock)
    heart.hold()  # and never beaten again: a window gone without releasing
    clock.now += heart.STALE + 1
    started = time.monotonic()
    assert heart.give_way() is False and heart.waits == 0
    assert time.monotonic() - started < heart.WAIT


def test_a_wait_that_runs_out_is_not_repeated_at_once_and_release_wakes_waiters() -> None:
    heart = Heartbeat()
    heart.WAIT = 0.01
    heart.hold()
    heart._last -= 0.5
    assert heart.give_way() is False and heart.waits == 1  # no beat came: gave up
    assert heart.give_way() is False and heart.waits == 1  # within SPACING: runs on without waiting

    heart.WAIT = 30.0
    heart._gave_up -= 1.0
    answers: list[bool] = []
    worker = threading.Thread(target=lambda: answers.append(heart.give_way()))
    worker.start()
    time.sleep(0.05)
    heart.release()  # the work ended (or the window closes): nobody keeps waiting
    worker.join(5)
    assert answers == [True] and heart.holders == 0


def test_progress_checks_stand_aside_for_the_window(monkeypatch) -> None:
    monkeypatch.setattr(WINDOW_HEARTBEAT, "WAIT", 30.0)
    WINDOW_HEARTBEAT.hold()
    try:
        monkeypatch.setattr(WINDOW_HEARTBEAT, "_last", time.monotonic() - 0.5)
        waits = WINDOW_HEARTBEAT.waits
        worker = threading.Thread(target=CallbackProgress().check)
        worker.start()
        time.sleep(0.05)
        assert worker.is_alive()
        WINDOW_HEARTBEAT.beat()
        worker.join(5)
        assert not worker.is_alive() and WINDOW_HEARTBEAT.waits == waits + 1
    finally:
        WINDOW_HEARTBEAT.release()


def test_slices_keep_every_item_in_order_and_give_way_before_each(monkeypatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(progress_mod, "give_way", lambda: calls.append(1))
    parts = list(slices_giving_way(iter(range(10)), 4))
    assert parts == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert len(calls) == 4  # before each slice and before finding the end
    assert list(slices_giving_way([], 4)) == []


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 8, 9])
def test_lists_dicts_and_mapped_calls_are_made_a_slice_per_call_giving_way_between(monkeypatch, n: int) -> None:
    # A chain mapped in C over every row is one call holding the GIL (a window waiting for it
    # stalls): taken a slice per call, with give_way() after each full slice and never inside one.
    consumed: list[int] = []
    log: list[int] = []
    monkeypatch.setattr(progress_mod, "give_way", lambda: log.append(len(consumed)))

    def items():  # the rows as a lazy chain gives them, noting how far it was consumed
        for i in range(n):
            consumed.append(i)
            yield i

    between = [4 * k for k in range(1, n // 4 + 1)]
    assert list_giving_way(items(), 4) == list(range(n)) and log == between
    consumed.clear(), log.clear()
    assert dict_giving_way(((i % 3, i) for i in items()), 4) == {i % 3: i for i in range(n)} and log == between
    consumed.clear(), log.clear()
    seen: list[int] = []
    consume_giving_way(map(seen.append, items()), 4)
    assert seen == list(range(n)) and log == between


@pytest.mark.parametrize("kind", [list, dict])
def test_containers_are_emptied_a_slice_at_a_time_giving_way_before_each(monkeypatch, kind) -> None:
    freed: list[int] = []

    class Row:  # tells when the container's last reference to it goes
        def __init__(self, n: int) -> None:
            self.n = n

        def __del__(self) -> None:
            freed.append(self.n)

    seen: list[int] = []
    monkeypatch.setattr(progress_mod, "give_way", lambda: seen.append(len(freed)))
    rows = [Row(n) for n in range(10)]
    container = rows if kind is list else {n: row for n, row in enumerate(rows)}
    del rows
    kept = container[3]  # still referred to elsewhere: emptied out, not freed
    empty_giving_way(container, 4)
    assert len(container) == 0
    assert seen == [0, 4, 7]  # before each slice of four, from the end (row 3 of the second is kept)
    assert sorted(freed) == [n for n in range(10) if n != 3] and kept.n == 3
    empty_giving_way(container, 4)
    assert seen == [0, 4, 7]  # nothing to empty, no call


@pytest.mark.parametrize("workspace", [True, False])
def test_a_screen_stands_aside_in_its_loops_when_the_window_is_late(tmp_path: Path, workspace: bool) -> None:
    """With the heartbeat held and never beaten, the engine's own loops (the scan's rows, the
    outputs, the session's rows) wait, whatever progress object the caller gave: here none. (The
    walk lists a folder and makes its rows in a few calls that hold the GIL briefly, not a loop
    per file.)"""
    from neardup_gui.core.records import ScreenParams
    from neardup_gui.tasks import screen_folder

    source = tmp_path / "source"
    source.mkdir()
    for i in range(40):
        (source / f"{i:03d}.txt").write_text(f"第{i}篇。" + "报销单提交后需要直属主管审批，批准后才能付款。" * 3, encoding="utf-8")
    saved = (WINDOW_HEARTBEAT.WAIT, WINDOW_HEARTBEAT.SPACING, WINDOW_HEARTBEAT.STALE)
    WINDOW_HEARTBEAT.WAIT, WINDOW_HEARTBEAT.SPACING, WINDOW_HEARTBEAT.STALE = 0.0, 0.0, 3600.0
    WINDOW_HEARTBEAT.hold()
    try:
        WINDOW_HEARTBEAT._last = time.monotonic() - 1.0
        WINDOW_HEARTBEAT._gave_up = 0.0
        WINDOW_HEARTBEAT._beater = 0  # this thread beat it in other tests: here it is a worker
        before = WINDOW_HEARTBEAT.waits
        where: list[str] = []  # the module of each loop that stood aside
        give_way = WINDOW_HEARTBEAT.give_way

        def noted() -> bool:
            waited = give_way()
            if waited is not None:
                frame = sys._getframe(2)  # (the loop, past progress.give_way or a *_giving_way helper)
                while frame is not None and frame.f_code.co_filename == progress_mod.__file__:
                    frame = frame.f_back
                where.append(Path(frame.f_code.co_filename).stem if frame is not None else "?")
            return waited

        WINDOW_HEARTBEAT.give_way = noted  # type: ignore[method-assign]
        outcome = screen_folder(source, ScreenParams(), out_dir=tmp_path / "ws" if workspace else None)
        stood_aside = WINDOW_HEARTBEAT.waits - before
    finally:
        del WINDOW_HEARTBEAT.give_way
        WINDOW_HEARTBEAT.release()
        WINDOW_HEARTBEAT.WAIT, WINDOW_HEARTBEAT.SPACING, WINDOW_HEARTBEAT.STALE = saved
    assert len(outcome.documents) == 40
    assert stood_aside == len(where) and stood_aside >= 5
    assert {"corpus", "screen"} <= set(where)  # the scan's rows, and the screen's rows let go
    if workspace:
        assert {"outputs", "session"} <= set(where)  # the output files and the session's rows
