"""The entry point: headless capture of the window (and of a chosen row), --version, and the exception hook."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QMessageBox

from neardup_gui import __version__, tasks
from neardup_gui.app import install_excepthook, main
from neardup_gui.io.session import UI_SELECTED_PAIR, ReviewSession


def test_capture_screens_the_sample_and_saves_a_1400_by_900_png(
    qapp, sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # main() installs its own; put ours back after
    out = tmp_path / "shots" / "window.png"
    workspace = tmp_path / "ws"
    assert main(["--capture", str(out), str(sample), "--workspace", str(workspace)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)
    assert (workspace / "session.sqlite").exists() and (workspace / "candidates.csv").exists()
    assert not list(out.parent.glob("*.tmp"))
    assert not any(p.name == "session.sqlite" for p in sample.rglob("*"))  # nothing written in the source


def test_capture_of_a_missing_folder_fails_with_a_nonzero_exit(qapp, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    out = tmp_path / "x.png"
    assert main(["--capture", str(out), str(tmp_path / "missing")]) != 0
    assert not out.exists()


def test_a_capture_waits_for_its_settings_to_be_written_before_removing_their_folder(
    qapp, tmp_path: Path, monkeypatch
) -> None:
    """The capture keeps its settings in a scratch folder removed when it returns: a write still on
    its way raced that removal (a capture of a missing folder failed now and then)."""
    import time

    from neardup_gui.ui import settings as settings_mod

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    written: list[bool] = []
    slow = settings_mod._write_setting

    def write_late(where, changes) -> None:
        time.sleep(0.3)
        written.append(Path(where[0]).parent.is_dir())  # the scratch folder still there
        slow(where, changes)

    monkeypatch.setattr(settings_mod, "_write_setting", write_late)
    assert main(["--capture", str(tmp_path / "x.png"), str(tmp_path / "missing")]) != 0
    assert written and all(written)  # written before main returned, into a folder that existed


def test_version_prints_the_program_version(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_unexpected_errors_are_shown_with_details(qapp, qtbot, monkeypatch) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    install_excepthook(capture=False)
    try:
        raise ValueError("<b>broken</b> 数据")
    except ValueError as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    boxes = [
        w for w in QApplication.topLevelWidgets()
        if isinstance(w, QMessageBox) and w.isVisible() and w.windowTitle() == "Unexpected error"
        and "ValueError: <b>broken</b>" in w.detailedText()
    ]  # fmt: skip
    assert len(boxes) == 1, "no message box shown"
    box = boxes[0]
    assert "<b>broken</b> 数据" in box.text()  # plain text, shown literally
    assert "ValueError" in box.detailedText()
    box.close()


def test_capture_selects_the_requested_row_of_the_sorted_table(
    qapp, sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    workspace = tmp_path / "ws"
    assert main(["--capture", str(tmp_path / "row1.png"), str(sample), "--workspace", str(workspace), "--select", "1"]) == 0
    expected = tasks.screen_folder(sample).candidates[1]  # Jaccard descending: the table's order
    with ReviewSession.open(workspace / tasks.SESSION_FILE, read_only=True) as session:
        left, right = session.ui_state(UI_SELECTED_PAIR).split("\t")
        paths = {d.doc_id: d.path for d in session.documents()}
    screened = {d.doc_id: d.path for d in tasks.screen_folder(sample).documents}
    assert (paths[left], paths[right]) == (screened[expected.left], screened[expected.right])


def test_capture_of_a_row_beyond_the_table_fails_and_writes_no_png(qapp, sample: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    out = tmp_path / "none.png"
    assert main(["--capture", str(out), str(sample), "--select", "500"]) != 0
    assert not out.exists()


def test_capture_without_a_workspace_leaves_no_workspace_behind(qapp, sample: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    assert main(["--capture", str(tmp_path / "shot.png"), str(sample)]) == 0
    assert (tmp_path / "shot.png").is_file()
    assert not (tmp_path / "appdata" / "workspaces").exists()  # the app-data folder of this test
