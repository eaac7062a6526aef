"""The originals: never opened for writing, never changed, and no output ever lands inside them.

The whole workflow (screen, decide, evaluate, export) runs in a child process with a Python audit
hook that records every file opened for writing and every rename, removal, creation or change of
mode, owner or times; nothing of that may touch the source folder. The source files are owned by
another user and read-only where the test runs as root; every byte, mode, owner and mtime is
compared afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from reliability_kit import BASE, EDITED, PYTHON, REPO, generate_corpus, snapshot

from neardup_gui import cli, tasks
from neardup_gui.core.records import ScreenParams
from neardup_gui.io.paths import OutputInsideSourceError

NOBODY = 65534
WATCHED = r"""
import json, os, sys
source = os.path.realpath(sys.argv[1])
touched = []
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

def inside(path):
    try:
        path = os.fsdecode(path)
    except TypeError:
        return False
    real = os.path.realpath(path)
    return real == source or real.startswith(source + os.sep)

def hook(event, args):
    if event == "open":
        path, mode, flags = args
        writing = (mode is not None and any(c in str(mode) for c in "wax+")) or (
            mode is None and isinstance(flags, int) and flags & WRITE_FLAGS)
        if writing and inside(path):
            touched.append([event, os.fsdecode(path), str(mode), flags])
    elif event in ("os.rename", "os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.chown",
                   "os.utime", "os.truncate", "os.symlink", "os.link", "shutil.rmtree",
                   "shutil.move", "shutil.copyfile"):
        paths = [a for a in args if isinstance(a, (str, bytes, os.PathLike))]
        if any(inside(p) for p in paths):
            touched.append([event, *map(str, paths)])

sys.addaudithook(hook)
from neardup_gui.cli import main
codes = [main(argv) for argv in json.loads(sys.argv[2])]
print(json.dumps({"codes": codes, "touched": touched}))
"""


def _read_only_tree(root: Path) -> None:
    """Make the tree read-only and, as root, owned by another user (nobody)."""
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        for name in filenames:
            path = Path(dirpath) / name
            if os.geteuid() == 0:
                os.chown(path, NOBODY, NOBODY)
            path.chmod(0o444)
        for name in dirnames:
            if os.geteuid() == 0:
                os.chown(Path(dirpath) / name, NOBODY, NOBODY)
            (Path(dirpath) / name).chmod(0o555)
    if os.geteuid() == 0:
        os.chown(root, NOBODY, NOBODY)
    root.chmod(0o555)


def _writable_again(root: Path) -> None:
    for dirpath, _dirs, _files in os.walk(root):
        Path(dirpath).chmod(0o755)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX ownership and audit of os.open flags")
def test_the_whole_workflow_never_writes_or_changes_anything_in_the_source(tmp_path: Path) -> None:
    source, out = tmp_path / "source", tmp_path / "out"
    generate_corpus(source, 60)
    (source / "公告").mkdir(exist_ok=True)
    (source / "公告" / "=a.txt").write_text(BASE, encoding="utf-8")
    (source / "公告" / "@b.txt").write_text(EDITED, encoding="utf-8")
    os.symlink("公告/=a.txt", source / "link.txt")
    _read_only_tree(source)
    before = snapshot(source)
    if os.geteuid() == 0:
        assert before["公告/=a.txt"].uid == NOBODY
    labels = tmp_path / "labels.csv"
    labels.write_text("left,right,label\n公告/=a.txt,公告/@b.txt,1\n", encoding="utf-8")
    commands = [
        ["screen", str(source), "--out", str(out), "-q"],
        ["decide", str(out), "--left", "公告/=a.txt", "--right", "公告/@b.txt", "--status", "valid_revision",
         "--reviewer", "王编辑", "--reason", "=数字不同"],
        ["evaluate", str(out), "--labels", str(labels), "--k", "5", "-q"],
        ["export", str(out), "--xlsx", str(tmp_path / "review.xlsx"), "--csv", str(tmp_path / "csv"),
         "--signed-by", "王编辑"],
        ["screen", str(source), "--out", str(out), "-q"],  # a second run over the first
    ]  # fmt: skip
    try:
        done = subprocess.run([PYTHON, "-c", WATCHED, str(source), json.dumps(commands)],
                              capture_output=True, text=True, cwd=REPO, timeout=300)  # fmt: skip
        after = snapshot(source)
    finally:
        _writable_again(source)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["codes"] == [0, 0, 0, 0, 0], done.stderr
    assert report["touched"] == []
    assert after == before  # bytes, mode, owner and mtime (ns) of every entry, folders included


def test_outputs_and_exports_inside_the_source_are_refused_before_anything_is_written(tmp_path: Path, capsys) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "a.txt").write_text(BASE, encoding="utf-8")
    (source / "b.txt").write_text(EDITED, encoding="utf-8")
    link_to_source = tmp_path / "alias"
    link_to_source.symlink_to(source, target_is_directory=True)
    before = snapshot(source)
    for out in (source, source / "out", link_to_source / "out", source / ".." / source.name / "x"):
        assert cli.main(["screen", str(source), "--out", str(out), "-q"]) == 2, out
        err = capsys.readouterr().err
        assert "inside the source folder" in err or "is the source folder" in err, err
        with pytest.raises(OutputInsideSourceError):
            tasks.screen_folder(source, ScreenParams(), out_dir=out)
    # The source given through a link, the output inside its real folder: refused too.
    with pytest.raises(OutputInsideSourceError):
        tasks.screen_folder(link_to_source, ScreenParams(), out_dir=source / "out")
    out = tmp_path / "out"
    assert cli.main(["screen", str(source), "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    for target in (["--xlsx", str(source / "r.xlsx")], ["--csv", str(link_to_source / "csv")]):
        assert cli.main(["export", str(out), *target, "--signed-by", "x"]) == 2, target
        assert "source" in capsys.readouterr().err
    assert snapshot(source) == before
