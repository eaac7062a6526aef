"""Shared helpers of the reliability tests: corpora, folder snapshots, workspace checks, child processes.

Nothing here fakes the program: corpora are real files, child processes run the real CLI, and the
workspace check reads what a user would open (the CSV files, run.json, normalized/, the session).
"""

from __future__ import annotations

import csv
import io
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"
PYTHON = sys.executable

# A paragraph and light edits of it: pairs the screen must find whatever else the folder holds.
BASE = (
    "今天上午，市政府召开新闻发布会，介绍了今年第一季度全市经济运行情况。"
    "数据显示，全市地区生产总值同比增长百分之五点二，工业生产保持稳定，消费市场逐步回暖。"
    "发言人表示，下一步将继续优化营商环境，支持中小企业发展，确保全年目标顺利完成。"
)
EDITED = BASE.replace("百分之五点二", "百分之五点六").replace("逐步回暖", "明显回暖")


def generate_corpus(folder: Path, docs: int, seed: int = 11) -> list[tuple[str, str, str]]:
    """Write the bench generator's synthetic Chinese corpus (planted near-duplicates) into ``folder``."""
    sys.path.insert(0, str(BENCH))
    try:
        from make_corpus import generate
    finally:
        sys.path.remove(str(BENCH))
    return generate(folder, docs, seed)


@dataclass(frozen=True)
class Entry:
    kind: str  # "file", "dir", "link"
    data: bytes | str  # bytes of a file, target of a link, "" for a folder
    mode: int
    uid: int
    mtime_ns: int


def snapshot(root: Path) -> dict[str, Entry]:
    """Every entry under ``root`` (links not followed): bytes, mode, owner and mtime in ns."""
    out: dict[str, Entry] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = Entry("link", os.readlink(path), st.st_mode, st.st_uid, st.st_mtime_ns)
            elif path.is_dir():
                out[rel] = Entry("dir", "", st.st_mode, st.st_uid, st.st_mtime_ns)
            else:
                try:
                    data = path.read_bytes()
                except PermissionError:
                    data = b"<unreadable>"
                out[rel] = Entry("file", data, st.st_mode, st.st_uid, st.st_mtime_ns)
    st = root.lstat()
    out["."] = Entry("dir", "", st.st_mode, st.st_uid, st.st_mtime_ns)
    return out


def read_csv(path: Path) -> list[dict[str, str]]:
    """Rows of one of our CSV files (UTF-8 with BOM); raises on a truncated or malformed file."""
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf"), f"{path.name} lacks its BOM"
    text = data.decode("utf-8-sig")
    assert text == "" or text.endswith("\r\n"), f"{path.name} ends in the middle of a row"
    return list(csv.DictReader(io.StringIO(text, newline="")))


def leftovers(out: Path) -> list[str]:
    """Hidden staging or temporary entries in a workspace (none should survive a settle)."""
    return sorted(n for n in os.listdir(out) if n.startswith(".") and not n.startswith(".session"))


def check_workspace(out: Path) -> str:
    """Open the workspace as the program does and check that its files belong to its latest run.

    Returns:
        The latest run id.
    """
    from neardup_gui.io import outputs
    from neardup_gui.io.session import SESSION_FILENAME, ReviewSession

    # Opening for writing is what the window, `neardup review` and the next screen do; it
    # settles a half-published run.
    with ReviewSession.open(out / SESSION_FILENAME) as session:
        latest = session.latest_run_id()
        assert latest is not None, "the session lost its runs"
        documents = session.documents(latest)
        candidates = session.candidates(latest)
        run = session.run(latest)
    run_json = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run_json["run_id"] == latest, "run.json names another run than the session's latest"
    assert run_json == json.loads(outputs.json_bytes(run.to_dict()))
    by_id = {d.doc_id: d for d in documents}
    expected_manifest = outputs.csv_bytes(outputs.MANIFEST_COLUMNS, outputs.manifest_rows(documents))
    assert (out / "manifest.csv").read_bytes() == expected_manifest, "manifest.csv is not the latest run's"
    expected_candidates = outputs.csv_bytes(outputs.CANDIDATE_COLUMNS, outputs.candidate_rows(candidates, by_id))
    assert (out / "candidates.csv").read_bytes() == expected_candidates, "candidates.csv is not the latest run's"
    normalized = {p.stem for p in (out / "normalized").iterdir()}
    assert normalized == {d.doc_id for d in documents if d.status in ("ok", "no_shingles")}
    assert leftovers(out) == [], f"staging leftovers: {leftovers(out)}"
    return latest


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m neardup_gui.cli ARGS`` in a child process."""
    return subprocess.run(
        [PYTHON, "-m", "neardup_gui.cli", *args], capture_output=True, text=True, cwd=REPO,
        env={**os.environ, **(env or {})}, timeout=timeout,
    )  # fmt: skip


# A child that runs the CLI and announces each step that changes files in the workspace:
# renames, deletions of folders, the staging and the session commit (and, when asked, each
# fsync of a file being written). Given a step number, or a text the step's label contains, it
# stops at that step (sleeping) so the parent can kill it exactly there.
MARKED_CLI = r"""
import os, shutil, sys, time
stop_at = sys.argv[1]
count = 0

def mark(what):
    global count, stop_at
    count += 1
    sys.stderr.write(f"@@step {count} {what}\n")
    sys.stderr.flush()
    if stop_at == str(count) or (not stop_at.isdigit() and stop_at in what):
        stop_at = ""
        time.sleep(600)

def wrap(module, name, label):
    real = getattr(module, name)
    def wrapper(*args, **kwargs):
        mark(f"{label} {os.path.basename(str(args[-1] if label != 'rmtree' else args[0]))}")
        return real(*args, **kwargs)
    setattr(module, name, wrapper)

from neardup_gui.io import outputs, session as session_mod
wrap(os, "replace", "replace")
wrap(shutil, "rmtree", "rmtree")
real_stage = outputs.stage_screen_outputs
def stage(*args, **kwargs):
    result = real_stage(*args, **kwargs)
    mark("staged")
    return result
outputs.stage_screen_outputs = stage
real_record = session_mod.ReviewSession.record_run
def record(self, *args, **kwargs):
    mark("commit-begin")
    result = real_record(self, *args, **kwargs)
    mark("committed")
    return result
session_mod.ReviewSession.record_run = record
if os.environ.get("MARKED_ATOMIC_WRITE"):
    real_fsync = os.fsync
    def fsync(fd):
        mark("fsync")
        return real_fsync(fd)
    os.fsync = fsync
from neardup_gui.cli import main
sys.exit(main(sys.argv[2:]))
"""


class Child:
    """A child process whose stderr lines are collected by a thread (no pipe can fill up)."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
            env={**os.environ, **(env or {})},
        )  # fmt: skip
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def wait_for(self, needle: str, timeout: float = 60) -> str | None:
        """The first coming stderr line containing ``needle``; None when the child ended first."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no line with {needle!r} within {timeout} s")
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                return None
            if needle in line:
                return line

    def kill(self) -> int:
        """SIGKILL (if still running) and reap; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        code = self.proc.wait(timeout=30)
        self._reader.join(timeout=30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return code

    def finish(self, timeout: float = 120) -> int:
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout=30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return code


def start_marked_cli(stop_at: int | str, *args: str, env: dict[str, str] | None = None) -> Child:
    """Start the marked CLI child; it stops (sleeps) at step ``stop_at``: a number (0: never) or
    a text of the step's label (its first occurrence)."""
    return Child([PYTHON, "-c", MARKED_CLI, str(stop_at), *args], env)


def steps_of(child: Child) -> list[str]:
    """Labels of the steps a marked child announced, in order."""
    return [line.split(" ", 2)[2].strip() for line in child.stderr if line.startswith("@@step ")]


def kill_at_points(starts: list[Callable[[], tuple[Child, str | float]]], batch: int = 4) -> list[Child]:
    """Start children a few at a time; kill each once it reaches its point.

    Args:
        starts: Each starts one child and says where to kill it: a text of a stderr line, or a
            number of seconds after its start.
        batch: Children alive at once (they mostly wait at their points, so more than cores).

    Returns:
        The children, killed and reaped, in the order given.
    """
    done: list[Child] = []
    for i in range(0, len(starts), batch):
        group = [start() for start in starts[i : i + batch]]
        # Children waiting for a line first: they are killed the moment it appears, before the
        # timed kills' sleeps could let a fast screen run to its end.
        for child, point in sorted(group, key=lambda g: (not isinstance(g[1], str), 0 if isinstance(g[1], str) else g[1])):
            if isinstance(point, str):
                assert child.wait_for(point) is not None, "".join(child.stderr)
                child.kill()
            else:
                time.sleep(max(0.0, child.started + point - time.monotonic()))
                child.kill()
        done.extend(child for child, _ in group)
    return done
