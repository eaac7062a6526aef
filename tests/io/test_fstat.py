"""Stat'ing a folder's files, and listing a folder, in one compiled call (``io.fstat``): the same
values ``os.stat`` and ``os.scandir`` give, and the walk's listing the same with them as without."""

from __future__ import annotations

import os
import stat
import sys
import threading
from pathlib import Path

import pytest

from neardup_gui.core.progress import CallbackProgress
from neardup_gui.io import fstat
from neardup_gui.io import walk as walk_mod
from neardup_gui.io.walk import file_stamp, walk_folder

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="statx is Linux's")


@pytest.fixture(autouse=True)
def _batch_turned_on_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fstat, "_disabled", False)  # restored after each test, whatever it turned off
    monkeypatch.setattr(fstat, "_listing_disabled", False)
    monkeypatch.setattr(fstat, "_listing_checked", False)  # each test's first listing is checked again


def _odd_folder(root: Path) -> list[str]:
    """A folder of regular files with awkward names and times, and entries that are not regular
    files; returns every name in it plus one that does not exist."""
    root.mkdir()
    names = [f"稿件{i:02d} 第{i}版.txt" for i in range(fstat.BATCH_MIN + 4)]
    for i, name in enumerate(names):
        (root / name).write_text("正文" * i, encoding="utf-8")
    os.utime(root / names[1], ns=(0, 315_532_800_123_456_789))  # 1980, nanoseconds kept
    os.utime(root / names[2], ns=(0, -315_532_800_987_654_321))  # 1960: before 1970
    os.utime(root / names[3], ns=(0, 4_102_444_800_000_000_001))  # 2100
    raw = os.fsdecode(b"\xff\xfe-gbk-\xd6\xd0.txt")  # a name that is not UTF-8
    (root / raw).write_bytes(b"x")
    (root / "sub").mkdir()
    os.symlink(root / names[0], root / "link.txt")
    os.symlink(root / "gone.txt", root / "dangling.txt")
    extra = [raw, "sub", "link.txt", "dangling.txt", "missing.txt"]
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "pipe.txt")
        extra.append("pipe.txt")
    return names + extra


def _expected(folder: Path, name: str):
    try:
        st = os.stat(folder / name)
    except OSError:
        return None
    if not (st.st_mode & 0o170000) == 0o100000:
        return None
    return (st.st_size, st.st_mtime, file_stamp(st))


@linux_only
def test_the_compiled_stat_runs_here() -> None:
    # Where it can (Linux with numba, as in this test run) the batch path must not fall back quietly.
    assert fstat.batch_available()


@linux_only
@pytest.mark.parametrize("threads", [1, 2])
def test_a_folder_stated_in_one_call_gives_what_os_stat_gives(
    tmp_path: Path, threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "src"
    names = _odd_folder(folder)
    seen: list[tuple[str, int]] = []  # (thread, names) of each kernel call
    real = fstat._kernel()

    class Counted:
        @staticmethod
        def statx_names(dirfd, joined, starts, flags, mask, out, codes) -> int:
            seen.append((threading.current_thread().name, codes.size))
            return real.statx_names(dirfd, joined, starts, flags, mask, out, codes)

    monkeypatch.setattr(fstat, "_kernel", lambda: Counted())
    if threads == 2:  # the call split between two threads, as for a large folder
        monkeypatch.setattr(fstat, "SPLIT_MIN", 2)
        monkeypatch.setattr(fstat, "usable_cores", lambda: 2)
    rows = fstat.stat_regular(str(folder), names)
    assert len({thread for thread, _ in seen}) == threads and sum(n for _, n in seen) == len(names)
    assert rows is not None
    assert rows == [_expected(folder, name) for name in names]
    assert fstat.stamps_regular(str(folder), names) == [row[2] if row else None for row in rows]
    by_name = dict(zip(names, rows))
    assert by_name["sub"] is None and by_name["missing.txt"] is None and by_name["dangling.txt"] is None
    assert by_name["link.txt"] == by_name[names[0]]  # links followed, as os.stat does
    assert by_name[names[2]][2][1] == -315_532_800_987_654_321  # times before 1970 exact


@linux_only
@pytest.mark.parametrize("stat_files", [True, False])
@pytest.mark.parametrize("patterns", [(("*.txt",), ()), (("稿件*", "*.TXT", "sub2/*"), ("*第3版*", "*/b05.txt"))])
def test_the_walk_lists_the_same_with_and_without_the_batch(tmp_path: Path, stat_files: bool, patterns,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    include, exclude = patterns
    folder = tmp_path / "src"
    _odd_folder(folder)
    (folder / ".hidden.txt").write_text("隐藏", encoding="utf-8")
    (folder / "notes.md").write_text("不读", encoding="utf-8")
    (folder / "大写.TXT").write_text("后缀大写", encoding="utf-8")  # patterns match either case
    (folder / "sub2").mkdir()  # a folder below the root: paths with a prefix, another source
    for i in range(fstat.BATCH_MIN + 2):
        (folder / "sub2" / f"b{i:02d}.txt").write_text("副本" * i, encoding="utf-8")
    calls: list[int] = []
    real = walk_mod.stat_columns

    def counted(where: str, names: list[str]):
        calls.append(len(names))
        return real(where, names)

    monkeypatch.setattr(walk_mod, "stat_columns", counted)
    batched = walk_folder(folder.resolve(), include, exclude, CallbackProgress(), stat_files=stat_files)
    assert bool(calls) == stat_files  # a rescan's walk (stats) uses it; a first screen's has no stats to make
    monkeypatch.setattr(fstat, "_disabled", True)
    single = walk_folder(folder.resolve(), include, exclude, CallbackProgress(), stat_files=stat_files)
    assert batched == single
    monkeypatch.setattr(fstat, "_listing_disabled", True)  # each folder listed by os.scandir as well
    assert walk_folder(folder.resolve(), include, exclude, CallbackProgress(), stat_files=stat_files) == batched
    rows = {e.rel: e for e in batched}
    assert rows["pipe.txt"].status == "excluded" and rows[".hidden.txt"].status == "excluded"
    assert rows["dangling.txt"].status == "skipped_link" and rows["notes.md"].status == "excluded"
    assert not rows["sub2/b03.txt"].status and rows["sub2/b03.txt"].source_id == "sub2"
    assert (rows["sub2/b05.txt"].status == "excluded") == bool(exclude)
    assert (rows["稿件03 第3版.txt"].status == "excluded") == bool(exclude)
    assert not rows["大写.TXT"].status
    if stat_files:
        assert all(e.stamp is not None for e in batched if not e.status)


@linux_only
def test_a_file_the_one_call_could_not_stat_is_stated_on_its_own_by_the_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "src"
    names = _odd_folder(folder)
    real = walk_mod.stat_columns

    def first_failed(where: str, asked: list[str]):
        sizes, mtimes, stamps, bad = real(where, asked)
        sizes[0], stamps[0] = -1, None  # what a failed statx leaves: nothing to use
        return sizes, mtimes, stamps, [0, *bad]

    monkeypatch.setattr(walk_mod, "stat_columns", first_failed)
    rows = {e.rel: e for e in walk_folder(folder.resolve(), ("*.txt",), (), CallbackProgress())}
    st = os.stat(folder / names[0])
    assert (rows[names[0]].size, rows[names[0]].stamp) == (st.st_size, file_stamp(st))
    assert rows[names[1]].stamp == file_stamp(os.stat(folder / names[1]))


@linux_only
def test_a_disagreement_with_os_stat_turns_the_batch_off(tmp_path: Path) -> None:
    folder = tmp_path / "src"
    names = _odd_folder(folder)
    size, mtime, stamp = _expected(folder, names[5])
    wrong = (size, mtime, (size, stamp[1], stamp[2], stamp[3], stamp[4] + 1))  # another device number
    assert not fstat._agrees(str(folder), [names[5]], 0, wrong)
    assert not fstat.batch_available()
    assert fstat.stat_regular(str(folder), names) is None  # each file is stat'ed on its own from now on
    rows = {e.rel: e for e in walk_folder(folder.resolve(), ("*.txt",), (), CallbackProgress())}
    assert rows[names[5]].stamp == stamp


@linux_only
def test_the_check_after_the_run_reports_the_same_with_and_without_the_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neardup_gui.io import corpus as corpus_mod
    from neardup_gui.io.corpus import check_integrity, scan_folder

    folder = tmp_path / "src"
    names = _odd_folder(folder)
    corpus = scan_folder(folder)
    stamps = dict(corpus.stamps)
    assert len(stamps) >= fstat.BATCH_MIN
    with open(folder / names[4], "ab") as fh:
        fh.write("补".encode("utf-8"))
    (folder / names[5]).unlink()
    (folder / names[6]).unlink()
    (folder / names[6]).mkdir()  # a folder where a file was
    calls: list[int] = []
    real = corpus_mod.stamps_regular
    monkeypatch.setattr(corpus_mod, "stamps_regular", lambda root, paths: calls.append(len(paths)) or real(root, paths))
    batched = check_integrity(folder, corpus.documents, stamps=stamps)
    assert calls and calls[0] >= fstat.BATCH_MIN
    monkeypatch.setattr(fstat, "_disabled", True)
    single = check_integrity(folder, corpus.documents, stamps=stamps)
    assert batched == single
    report = dict(batched)
    assert "size" in report[names[4]] and report[names[5]] == "missing" and names[6] in report
    assert len(report) == 3


class _NoStatx:
    """A kernel whose statx fails for every name (ENOSYS: a Linux before 4.11 under an old glibc)."""

    @staticmethod
    def statx_names(dirfd, names, starts, flags, mask, out, codes) -> int:
        codes[:] = -1
        return 0


@linux_only
def test_a_statx_that_fails_everywhere_turns_the_batch_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "src"
    names = _odd_folder(folder)
    monkeypatch.setattr(fstat, "_kernel", lambda: _NoStatx())
    assert fstat.stat_regular(str(folder), names) is None
    assert not fstat.batch_available()
    rows = {e.rel: e for e in walk_folder(folder.resolve(), ("*.txt",), (), CallbackProgress())}
    assert rows[names[0]].stamp == file_stamp(os.stat(folder / names[0]))  # stat'ed one by one instead


def _kind_of(path: Path) -> int:
    """The d_type a listing should give for ``path`` (as lstat sees it)."""
    mode = stat.S_IFMT(os.lstat(path).st_mode)
    return {stat.S_IFREG: fstat.DT_REG, stat.S_IFDIR: fstat.DT_DIR, stat.S_IFLNK: fstat.DT_LNK}.get(mode, mode >> 12)


@linux_only
@pytest.mark.parametrize("small", [False, True])
def test_a_folder_listed_in_one_call_gives_what_os_scandir_gives(
    tmp_path: Path, small: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "src"
    _odd_folder(folder)
    (folder / ".hidden.txt").write_text("隐藏", encoding="utf-8")
    (folder / "..dots").write_text("两点开头", encoding="utf-8")  # not '..' itself
    for i in range(300):
        (folder / f"长文件名{i:04d}{'甲' * 40}.txt").write_bytes(b"x")
    if small:  # every array too small at first, the buffer a few entries long: read again, grown
        monkeypatch.setattr(fstat, "_LIST_BUFFER", 1024)
        monkeypatch.setattr(fstat, "_LIST_ROOM", 16)
        monkeypatch.setattr(fstat, "_LIST_COUNT", 2)
    got = fstat.list_folder(str(folder))
    assert got is not None and not fstat._listing_disabled
    names, kinds = got
    with os.scandir(folder) as it:
        expected = sorted(e.name for e in it)
    assert names == expected  # the non-UTF-8 name decoded as os.scandir decodes it
    assert kinds.tolist() == [_kind_of(folder / name) for name in names]
    assert fstat.list_folder(str(tmp_path / "missing")) is None  # the caller's os.scandir says why
    (tmp_path / "empty").mkdir()
    empty = fstat.list_folder(str(tmp_path / "empty"))
    assert empty is not None and empty[0] == [] and empty[1].size == 0


@linux_only
def test_the_walk_lists_each_folder_in_one_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "src"
    names = _odd_folder(folder)
    scandirs: list[str] = []
    real = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path=".": scandirs.append(path) or real(path))
    rows = walk_folder(folder.resolve(), ("*.txt",), (), CallbackProgress())
    assert not scandirs  # where it can (Linux with numba, as here), not by os.scandir entry by entry
    assert {e.rel for e in rows} == set(names) - {"missing.txt", "sub"}  # a searched folder has no row


@linux_only
def test_a_listing_that_disagrees_with_os_listdir_turns_it_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "src"
    names = _odd_folder(folder)
    real = fstat._list_fd

    def one_short(kernel, fd):
        got, kinds = real(kernel, fd)
        return got[1:], kinds[1:]

    monkeypatch.setattr(fstat, "_list_fd", one_short)
    assert fstat.list_folder(str(folder)) is None
    assert fstat._listing_disabled
    rows = {e.rel for e in walk_folder(folder.resolve(), ("*.txt",), (), CallbackProgress())}
    assert rows == set(names) - {"missing.txt", "sub"}  # listed by os.scandir instead: nothing missed


@linux_only
def test_an_entry_the_listing_could_not_say_of_is_looked_at_as_os_scandir_does(tmp_path: Path) -> None:
    folder = tmp_path / "src"
    _odd_folder(folder)
    os.symlink(folder / "sub", folder / "dirlink")
    with os.scandir(folder) as it:
        entries = {e.name: e for e in it}
    for name, real in entries.items():  # d_type unknown (some file systems): lstat, as os.DirEntry
        listed = walk_mod._ListedEntry(name, real.path, fstat.DT_UNKNOWN)
        said = walk_mod._ListedEntry(name, real.path, _kind_of(folder / name))
        for entry in (listed, said):
            assert entry.is_symlink() == real.is_symlink(), name
            for follow in (False, True):
                assert entry.is_dir(follow_symlinks=follow) == real.is_dir(follow_symlinks=follow), name
                assert entry.is_file(follow_symlinks=follow) == real.is_file(follow_symlinks=follow), name
    gone = walk_mod._ListedEntry("gone.txt", str(folder / "gone.txt"), fstat.DT_UNKNOWN)
    assert not gone.is_file(follow_symlinks=False) and not gone.is_dir() and not gone.is_symlink()


@linux_only
def test_hard_links_made_in_one_call_are_those_os_link_makes(tmp_path: Path) -> None:
    source, target = tmp_path / "old", tmp_path / "new"
    source.mkdir()
    target.mkdir()
    names = [f"d{i:04d}.txt" for i in range(50)] + [os.fsdecode(b"\xffbad.txt"), "链接.txt"]
    for name in names:
        (source / name).write_text(name, encoding="utf-8", errors="surrogateescape")
    (target / names[3]).write_text("already here", encoding="utf-8")  # a link cannot replace a file
    asked = [*names, "gone.txt"]
    src_fd, dst_fd = os.open(source, os.O_RDONLY), os.open(target, os.O_RDONLY)
    try:
        made = fstat.link_same_names(src_fd, dst_fd, asked)
    finally:
        os.close(src_fd)
        os.close(dst_fd)
    assert fstat.link_batch_available() and made is not None
    assert made.tolist() == [name != names[3] for name in names] + [False]
    for name in names:
        if name != names[3]:
            assert os.stat(target / name).st_ino == os.stat(source / name).st_ino  # the same file
    assert (target / names[3]).read_text(encoding="utf-8") == "already here"


@linux_only
@pytest.mark.parametrize("batch", [True, False])
def test_normalized_files_are_linked_the_same_in_one_call_or_one_by_one(
    tmp_path: Path, batch: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neardup_gui.io import outputs

    old = tmp_path / "normalized"
    old.mkdir()
    for i in range(20):
        (old / f"d{i:02d}.txt").write_text(f"第{i}篇", encoding="utf-8")
    calls: list[int] = []
    real = outputs.link_same_names
    monkeypatch.setattr(outputs, "link_same_names", lambda s, d, names: calls.append(len(names)) or real(s, d, names))
    if not batch:
        monkeypatch.setattr(fstat, "_links_disabled", True)
    links = [(f"d{i:02d}.txt", os.path.join(old, f"d{i:02d}.txt")) for i in range(20)]
    links.append(("gone.txt", str(old / "gone.txt")))
    folder = tmp_path / "new"
    folder.mkdir()
    with outputs._folder_handle(folder) as fd:
        failed = outputs._link_files(folder, fd, links)
    assert calls == [21]
    assert failed == ["gone.txt"]  # (looked at again one by one: still not there)
    assert sorted(p.name for p in folder.iterdir()) == [f"d{i:02d}.txt" for i in range(20)]
    assert all(os.stat(folder / f"d{i:02d}.txt").st_ino == os.stat(old / f"d{i:02d}.txt").st_ino for i in range(20))
    calls.clear()
    other = tmp_path / "other"
    other.mkdir()
    with outputs._folder_handle(other) as fd:  # renamed: linked one by one
        assert outputs._link_files(other, fd, [("renamed.txt", str(old / "d01.txt"))]) == []
    assert calls == [] and (other / "renamed.txt").read_text(encoding="utf-8") == "第1篇"
