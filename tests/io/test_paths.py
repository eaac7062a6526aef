"""Output locations never inside the source folder; app-data and resources locations; atomic writes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from neardup_gui.io.paths import (
    DATA_DIR_ENV,
    OutputInsideSourceError,
    app_data_dir,
    atomic_write_bytes,
    atomic_write_text,
    default_workspace,
    ensure_outside_source,
    is_inside,
    resources_dir,
    sample_corpus_dir,
)

needs_symlinks = pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")


@pytest.fixture()
def source(tmp_path: Path) -> Path:
    src = tmp_path / "texts"
    (src / "sub").mkdir(parents=True)
    return src


def test_output_equal_to_the_source_is_refused(source: Path) -> None:
    with pytest.raises(OutputInsideSourceError, match="is the source folder"):
        ensure_outside_source(source, source)
    with pytest.raises(OutputInsideSourceError):
        ensure_outside_source(source / "sub" / "..", source)


def test_output_nested_in_the_source_is_refused_even_if_missing(source: Path) -> None:
    with pytest.raises(OutputInsideSourceError, match="inside the source folder"):
        ensure_outside_source(source / "sub" / "not-yet" / "deeper", source)


@needs_symlinks
def test_output_through_a_symlink_into_the_source_is_refused(source: Path, tmp_path: Path) -> None:
    link = tmp_path / "looks-outside"
    os.symlink(source / "sub", link)
    with pytest.raises(OutputInsideSourceError):
        ensure_outside_source(link / "exports", source)
    # And a source given through a link protects the real folder.
    src_link = tmp_path / "src-link"
    os.symlink(source, src_link)
    with pytest.raises(OutputInsideSourceError):
        ensure_outside_source(source / "sub", src_link)


def test_sibling_and_parent_outputs_are_accepted(source: Path, tmp_path: Path) -> None:
    sibling = tmp_path / "texts-review"  # shares a name prefix with the source
    assert ensure_outside_source(sibling, source) == sibling.resolve()
    assert ensure_outside_source(tmp_path, source) == tmp_path.resolve()


def test_is_inside_counts_equal_paths_as_inside(source: Path) -> None:
    assert is_inside(source, source)
    assert is_inside(source / "sub", source)
    assert not is_inside(source.parent, source)
    assert not is_inside(str(source) + "2", source)


def test_app_data_dir_follows_the_platform_and_the_override(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "portable"))
    assert app_data_dir() == tmp_path / "portable"
    monkeypatch.delenv(DATA_DIR_ENV)
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
        assert app_data_dir() == tmp_path / "xdg" / "neardup_gui"
        monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
        assert app_data_dir() == Path.home() / ".local" / "share" / "neardup_gui"
    assert app_data_dir().name == "neardup_gui"


def test_default_workspace_is_named_after_the_folder_and_tells_namesakes_apart(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "data"))
    one = tmp_path / "a" / "稿件 2024"
    two = tmp_path / "b" / "稿件 2024"
    ws_one, ws_two = default_workspace(one), default_workspace(two)
    assert ws_one.parent == tmp_path / "data" / "workspaces"
    assert ws_one.name.startswith("稿件 2024-") and ws_one != ws_two
    assert default_workspace(tmp_path / "a" / "x" / ".." / "稿件 2024") == ws_one
    assert not is_inside(ws_one, one)


def test_resources_come_from_the_checkout_or_the_frozen_bundle(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    repo = Path(__file__).resolve().parents[2]
    assert resources_dir() == repo / "resources"
    assert sample_corpus_dir() == repo / "resources" / "sample"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resources_dir() == tmp_path / "resources"


def test_atomic_write_replaces_the_whole_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "out" / "report.csv"
    atomic_write_text(target, "第一版\r\n")
    atomic_write_bytes(target, "第二版\n".encode())
    assert target.read_bytes() == "第二版\n".encode()
    assert [p.name for p in target.parent.iterdir()] == ["report.csv"]


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    atomic_write_text(target, "旧内容")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(target, "新内容", encoding="ascii")
    assert target.read_text(encoding="utf-8") == "旧内容"
    with pytest.raises(OSError):
        atomic_write_bytes(tmp_path / "notes.txt" / "below-a-file.txt", b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_atomic_write_keeps_the_mode_of_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "shared.txt"
    target.write_text("x")
    target.chmod(0o640)
    atomic_write_text(target, "y")
    assert target.stat().st_mode & 0o777 == 0o640
    fresh = tmp_path / "fresh.txt"
    atomic_write_text(fresh, "z")
    assert fresh.stat().st_mode & 0o777 == 0o644
