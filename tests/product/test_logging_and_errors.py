"""Logs go to a rotating file in the app-data folder; an unexpected error shows its details, a way
to copy them and the log file, and the window and its review stay as they were."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

from neardup_gui.app import install_excepthook
from neardup_gui.io.paths import DATA_DIR_ENV
from neardup_gui.ui.logging_setup import BACKUP_COUNT, MAX_BYTES, log_file, setup_logging
from neardup_gui.ui.main_window import MainWindow


@pytest.fixture
def logging_restored():
    """Put the root logger back as pytest had it."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def test_log_file_is_written_in_the_app_data_folder(tmp_path: Path, logging_restored) -> None:
    path = setup_logging()
    assert path == tmp_path / "appdata" / "logs" / "neardup_gui.log" == log_file()
    logging.getLogger("neardup_gui.tasks").info("screened 24 files: 稿件")
    text = path.read_text(encoding="utf-8")
    assert "neardup_gui started" in text
    assert "INFO neardup_gui.tasks [MainThread]: screened 24 files: 稿件" in text


def test_setting_up_twice_does_not_double_the_lines(logging_restored) -> None:
    setup_logging()
    path = setup_logging()
    logging.getLogger("neardup_gui").warning("only once")
    assert path is not None and path.read_text(encoding="utf-8").count("only once") == 1


def test_the_log_rotates_and_keeps_a_few_files(logging_restored) -> None:
    path = setup_logging()
    line = "x" * 1000
    for _ in range(MAX_BYTES // 1000 * 2 + 10):
        logging.getLogger("neardup_gui").info(line)
    assert path is not None and path.stat().st_size <= MAX_BYTES
    backups = sorted(p.name for p in path.parent.glob("neardup_gui.log.*"))
    assert backups and len(backups) <= BACKUP_COUNT


def test_an_unwritable_log_folder_still_starts(monkeypatch, tmp_path: Path, logging_restored, capsys) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("")
    monkeypatch.setenv(DATA_DIR_ENV, str(blocker))  # logs/ cannot be made inside a file
    assert setup_logging() is None
    assert "cannot write the log file" in capsys.readouterr().err


def _error_boxes() -> list[QMessageBox]:
    return [
        w for w in QApplication.topLevelWidgets()
        if isinstance(w, QMessageBox) and w.isVisible() and w.windowTitle() == "Unexpected error"
    ]  # fmt: skip


def test_unexpected_error_shows_details_log_path_and_copies_them(qtbot, settings, monkeypatch, logging_restored) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    setup_logging()
    window = MainWindow(settings)
    qtbot.addWidget(window)
    window.show()
    window.decision_form.set_reviewer("王编辑")
    install_excepthook(capture=False)
    try:
        raise KeyError("稿件 missing")
    except KeyError as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)

    box = _error_boxes()[-1]
    assert "KeyError" in box.detailedText() and "Traceback" in box.detailedText()
    assert str(log_file()) in box.text()
    copy = next(b for b in box.findChildren(QPushButton) if b.text() == "Copy details")
    qtbot.mouseClick(copy, Qt.MouseButton.LeftButton)
    assert "KeyError" in QApplication.clipboard().text()
    assert box.isVisible()  # copying does not close the message
    assert "KeyError" in log_file().read_text(encoding="utf-8")  # and the log has it too

    box.close()  # the title bar's close button (or Esc) closes it
    assert not box.isVisible()
    assert window.isVisible()  # the session goes on
    assert window.decision_form.reviewer() == "王编辑"
