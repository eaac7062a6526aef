"""Concurrency: cancelling in every stage, two processes on one workspace, exports during a screen.

Cancelling keeps the previous outputs byte for byte; a second writer is refused with a message
naming the holder and changes nothing; readers (exports) work while a screen runs.
"""

from __future__ import annotations

import dataclasses
import shutil
import threading
from pathlib import Path

import pytest
from reliability_kit import PYTHON, Child, check_workspace, run_cli, snapshot

from neardup_gui import tasks
from neardup_gui.core.progress import STAGES, CallbackProgress, Cancelled
from neardup_gui.core.records import ScreenParams
from neardup_gui.io.session import SESSION_FILENAME, ReviewSession, SessionInUseError
from neardup_gui.io.workbook import verify_workbook

HOLD_SESSION = r"""
import sys, time
from pathlib import Path
from neardup_gui.io.session import ReviewSession
session = ReviewSession.open(Path(sys.argv[1]))
print("holding", flush=True)
sys.stderr.write("holding\n"); sys.stderr.flush()
time.sleep(600)
"""


@pytest.fixture
def screened(many_pairs: tuple[Path, int], tmp_path: Path) -> tuple[Path, Path]:
    source, expected = many_pairs
    out = tmp_path / "out"
    outcome = tasks.screen_folder(source, ScreenParams(), out_dir=out)
    assert len(outcome.candidates) == expected > 64
    return source, out


@pytest.mark.parametrize("stage", [name for name, _ in STAGES])
def test_cancel_in_each_stage_raises_cancelled_and_keeps_the_previous_outputs(screened, stage: str) -> None:
    source, out = screened
    before = snapshot(out)
    event = threading.Event()
    stages_seen: list[str] = []

    def on_progress(name: str, done: int, total: int) -> None:
        stages_seen.append(name)
        if name == stage:
            event.set()  # as the Cancel button does, from the window's thread

    with pytest.raises(Cancelled):
        tasks.screen_folder(source, ScreenParams(), out_dir=out, progress=CallbackProgress(on_progress, event, 0))
    assert stage in stages_seen
    assert _workspace(out) == _workspace(before)  # every byte and mtime of the previous outputs


def test_a_cancel_after_the_last_progress_report_still_cancels(screened) -> None:
    source, out = screened
    before = snapshot(out)
    event = threading.Event()

    def on_progress(name: str, done: int, total: int) -> None:
        if name == "flags" and done == total:
            event.set()  # the user clicks Cancel while the sources are checked again

    with pytest.raises(Cancelled):
        tasks.screen_folder(source, ScreenParams(), out_dir=out, progress=CallbackProgress(on_progress, event, 0))
    assert _workspace(out) == _workspace(before)


def _workspace(out: Path | dict) -> dict:
    """``snapshot`` of a workspace but for the time of ``cache/`` itself: a screen writes normalized/
    into a folder there as it prepares the documents, removed again when it is cancelled (what cache/
    holds is compared as everything else)."""
    entries = dict(snapshot(out) if isinstance(out, Path) else out)
    if "cache" in entries:
        entries["cache"] = dataclasses.replace(entries["cache"], mtime_ns=0)
    return entries


def _hold(out: Path) -> Child:
    holder = Child([PYTHON, "-c", HOLD_SESSION, str(out / SESSION_FILENAME)])
    assert holder.wait_for("holding", timeout=60) is not None, "".join(holder.stderr)
    return holder


def _outputs(out: Path) -> dict:
    """The workspace's output files (the session's own files change when anyone opens it)."""
    return {k: v for k, v in _workspace(out).items() if not k.startswith(("session.sqlite", "."))}


def test_a_screen_into_a_workspace_open_in_another_process_is_refused_and_changes_nothing(screened) -> None:
    source, out = screened
    before = _outputs(out)
    latest = check_workspace(out)
    holder = _hold(out)
    try:
        with pytest.raises(SessionInUseError, match=r"already open by .*process \d+"):
            tasks.screen_folder(source, ScreenParams(threshold=0.4), out_dir=out)
        done = run_cli("screen", str(source), "--out", str(out), "-q")
        assert done.returncode != 0 and "already open" in done.stderr
        assert _outputs(out) == before
    finally:
        holder.kill()
    assert check_workspace(out) == latest


def test_the_cli_says_in_one_line_that_the_workspace_is_in_use(screened) -> None:
    source, out = screened
    holder = _hold(out)
    try:
        done = run_cli("screen", str(source), "--out", str(out), "-q")
    finally:
        holder.kill()
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stderr.startswith("neardup: error:")


def test_two_screens_at_once_on_one_workspace_leave_it_whole(screened) -> None:
    source, out = screened
    with ReviewSession.open(out / SESSION_FILENAME, read_only=True) as session:
        runs_before = len(session.runs())
    children = [Child([PYTHON, "-m", "neardup_gui.cli", "screen", str(source), "--out", str(out), "-q",
                       "--threshold", str(t)]) for t in (0.5, 0.6)]  # fmt: skip
    codes = [child.finish() for child in children]
    for code, child in zip(codes, children):
        assert code == 0 or "already open" in "".join(child.stderr), "".join(child.stderr)
    check_workspace(out)
    with ReviewSession.open(out / SESSION_FILENAME, read_only=True) as session:
        assert len(session.runs()) == runs_before + codes.count(0)


def test_exports_read_the_workspace_while_a_screen_runs_and_writes(screened, tmp_path: Path) -> None:
    source, out = screened
    screen = Child([PYTHON, "-m", "neardup_gui.cli", "screen", str(source), "--out", str(out)])
    assert screen.wait_for("Finding candidates") is not None, "".join(screen.stderr)
    first = run_cli("export", str(out), "--xlsx", str(tmp_path / "during.xlsx"), "--signed-by", "x", "--no-texts")
    assert screen.finish() == 0, "".join(screen.stderr)
    assert first.returncode == 0, first.stderr
    assert verify_workbook(tmp_path / "during.xlsx").ok
    check_workspace(out)


def test_a_decision_made_while_another_process_reviews_is_refused_not_lost(screened, tmp_path: Path) -> None:
    """Two reviewers on one workspace: the second is told who holds it; the first one's decisions stay."""
    _, out = screened
    with ReviewSession.open(out / SESSION_FILENAME, read_only=True) as session:
        left, right = session.candidates()[0].key
    holder = _hold(out)
    try:
        done = run_cli("decide", str(out), "--left", left, "--right", right, "--status", "keep_both",
                       "--reviewer", "第二人")  # fmt: skip
        assert done.returncode == 2 and "already open by" in done.stderr
    finally:
        holder.kill()
    done = run_cli("decide", str(out), "--left", left, "--right", right, "--status", "keep_both", "--reviewer", "第二人")
    assert done.returncode == 0, done.stderr
    with ReviewSession.open(out / SESSION_FILENAME, read_only=True) as session:
        assert [d.reviewer for d in session.decisions(left, right)] == ["第二人"]
    shutil.rmtree(tmp_path / "out")
