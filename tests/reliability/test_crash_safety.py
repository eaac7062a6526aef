"""Crash safety: SIGKILL a real screen or export at many points; the workspace always opens whole.

Each kill lands at a known point: the child announces every step that changes the workspace
(staging, the session commit, each rename, each folder removal) and stops at the one asked for,
or at a progress line, or after a seeded random delay. Whatever the point, afterwards the
workspace opens, its files are those of the session's latest run (the previous complete run, or
the new one when the kill came after its commit), and no final file name holds half a file.
Kills run a few at a time, each in its own copy of the workspace.
"""

from __future__ import annotations

import random
import shutil
import signal
from pathlib import Path

import pytest
from openpyxl import load_workbook
from reliability_kit import (
    PYTHON,
    Child,
    check_workspace,
    generate_corpus,
    kill_at_points,
    leftovers,
    run_cli,
    snapshot,
    start_marked_cli,
    steps_of,
)

from neardup_gui.core.progress import STAGE_LABELS
from neardup_gui.io.session import SESSION_FILENAME, ReviewSession
from neardup_gui.io.workbook import verify_workbook

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Big enough that a screen takes about a second: stage and timed kills land inside it."""
    folder = tmp_path_factory.mktemp("kill") / "source"
    generate_corpus(folder, 300)
    return folder


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """For kills at announced steps, where the size does not matter (each child is quicker)."""
    folder = tmp_path_factory.mktemp("kill") / "small"
    generate_corpus(folder, 40)
    return folder


@pytest.fixture(scope="module")
def workspace(small_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A workspace with two complete runs; the second listed the steps of writing outputs."""
    out = tmp_path_factory.mktemp("kill") / "out"
    done = run_cli("screen", str(small_corpus), "--out", str(out), "-q")
    assert done.returncode == 0, done.stderr
    child = start_marked_cli(0, "screen", str(small_corpus), "--out", str(out), "-q")
    assert child.finish() == 0, "".join(child.stderr)
    return out, steps_of(child)


def _runs(out: Path) -> list[str]:
    with ReviewSession.open(out / SESSION_FILENAME, read_only=True) as session:
        return [r.run_id for r in session.runs()]


def _copy(base: Path, target: Path) -> Path:
    shutil.copytree(base, target, symlinks=True)
    return target


def test_a_kill_at_any_step_of_writing_the_outputs_leaves_one_complete_run(small_corpus, workspace, tmp_path) -> None:
    corpus = small_corpus
    base, steps = workspace
    # Before the staged files, only the moves of normalized/ made ahead into the staging folder (a
    # rescan: the earlier run's files linked meanwhile, and beside them those written as the
    # documents were prepared, each a scratch folder of cache/); killed there, the run is lost.
    ahead = ["replace normalized", "replace normalized.written"]
    assert steps[:5] == [*ahead, "staged", "commit-begin", "committed"], steps
    assert steps.index("replace run.json") > max(steps.index("replace manifest.csv"), steps.index("replace candidates.csv"))
    previous = check_workspace(base)
    runs_before = _runs(base)
    committed_at = steps.index("committed") + 1
    source_before = snapshot(corpus)
    outs = [tmp_path / f"out{step}" for step in range(1, len(steps) + 1)]

    def start(step: int):
        out = _copy(base, outs[step - 1])
        return start_marked_cli(step, "screen", str(corpus), "--out", str(out), "-q"), f"@@step {step} "

    kill_at_points([lambda s=step: start(s) for step in range(1, len(steps) + 1)])
    for step, out in enumerate(outs, 1):
        latest = check_workspace(out)
        if step < committed_at:
            assert latest == previous, f"killed at {steps[step - 1]!r}, before the commit, yet the run changed"
            assert _runs(out) == runs_before
        else:
            assert latest != previous and _runs(out) == [*runs_before, latest], steps[step - 1]
    assert snapshot(corpus) == source_before


def test_kills_during_each_stage_and_at_random_moments_keep_the_workspace_whole(corpus, tmp_path) -> None:
    base = tmp_path / "base"
    done = run_cli("screen", str(corpus), "--out", str(base), "-q")
    assert done.returncode == 0, done.stderr
    previous = check_workspace(base)
    source_before = snapshot(corpus)
    stages = [STAGE_LABELS[s] for s in ("read", "normalize", "shingle", "candidates", "verify")]
    rng = random.Random(20240501)
    points: list[str | float] = [*stages, *(rng.uniform(0.3, 1.5) for _ in range(3))]
    outs = [tmp_path / f"out{i}" for i in range(len(points))]

    def start(i: int):
        out = _copy(base, outs[i])
        # --no-cache: with the base run's cache every stage of this rescan would be over before the
        # kill lands; the kills are meant to hit a screen doing the work of each stage.
        child = Child([PYTHON, "-m", "neardup_gui.cli", "screen", str(corpus), "--out", str(out), "--no-cache"])
        return child, points[i]

    kill_at_points([lambda i=i: start(i) for i in range(len(points))])
    for point, out in zip(points, outs):
        latest = check_workspace(out)  # wherever a timed kill landed, the workspace is whole
        if isinstance(point, str):
            assert latest == previous, f"a kill while {point!r} changed the workspace"
    assert snapshot(corpus) == source_before


def test_a_kill_during_export_never_leaves_a_half_file_under_a_final_name(workspace, tmp_path) -> None:
    base, _ = workspace
    env = {"MARKED_ATOMIC_WRITE": "1"}  # also stop while a temporary file is being synced

    def args(folder: Path) -> tuple[str, ...]:
        return ("export", str(base), "--xlsx", str(folder / "review.xlsx"), "--csv", str(folder / "csv"),
                "--signed-by", "审核人", "--no-texts")  # fmt: skip

    # The first export into a folder, killed just before its workbook would appear: nothing
    # under a final name (only a hidden temporary file).
    folder = tmp_path / "exports"
    (child,) = kill_at_points([lambda: (start_marked_cli("replace review.xlsx", *args(folder), env=env),
                                        " replace review.xlsx\n")])  # fmt: skip
    assert steps_of(child) == ["fsync", "replace review.xlsx"]
    assert not (folder / "review.xlsx").exists() and not (folder / "csv").exists()
    assert [n.startswith(".review.xlsx.") and n.endswith(".tmp") for n in leftovers(folder)] == [True]

    # The next export over the killed one works and reads back; it lists every step.
    child = start_marked_cli(0, *args(folder), env=env)
    assert child.finish() == 0, "".join(child.stderr)
    steps = steps_of(child)
    assert steps[:2] == ["fsync", "replace review.xlsx"] and "replace reviews.csv" in steps, steps
    assert verify_workbook(folder / "review.xlsx").ok
    assert load_workbook(folder / "review.xlsx", read_only=True).sheetnames[0] == "Manifest"
    first = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
             if p.is_file() and not p.name.startswith(".")}  # fmt: skip

    # With an export in place, a kill anywhere leaves every file whole (the same session gives
    # the same bytes, apart from the workbook's signing time).
    points = ["fsync", "replace review.xlsx", "replace reviews.csv"]
    targets = [tmp_path / f"again{i}" for i in range(len(points))]
    for target in targets:
        shutil.copytree(folder, target)
    kill_at_points([lambda i=i: (start_marked_cli(points[i], *args(targets[i]), env=env), f" {points[i]}\n")
                    for i in range(len(points))])  # fmt: skip
    for target in targets:
        now = {p.relative_to(target).as_posix(): p for p in target.rglob("*")
               if p.is_file() and not p.name.startswith(".")}  # fmt: skip
        assert set(now) == set(first)
        assert verify_workbook(now["review.xlsx"]).ok
        for name, path in now.items():
            if name != "review.xlsx":
                assert path.read_bytes() == first[name], name
