"""Fixtures for the window tests: isolated settings and app data, the sample corpus, screened windows.

Every window gets its own INI settings file and workspace under ``tmp_path``; the app-data folder
is pointed at ``tmp_path`` through its documented environment variable, so no test reads or
writes the developer's real settings or sessions.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from neardup_gui.io.paths import DATA_DIR_ENV, sample_corpus_dir
from neardup_gui.ui.main_window import MainWindow
from neardup_gui.ui.settings import AppSettings
from ui_factories import SCREEN_TIMEOUT_MS



@pytest.fixture(autouse=True)
def _private_app_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "appdata"))


@pytest.fixture
def settings(tmp_path: Path) -> AppSettings:
    return AppSettings.in_file(tmp_path / "settings.ini")


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A private copy of the bundled sample corpus (the window must never write into it anyway)."""
    target = tmp_path / "sample"
    shutil.copytree(sample_corpus_dir(), target)
    return target


@pytest.fixture
def make_window(qtbot, settings: AppSettings, tmp_path: Path) -> Iterator[Callable[..., MainWindow]]:
    """Build main windows on the given settings; each is closed at the end of the test."""
    windows: list[MainWindow] = []

    def make(source: Path | None = None, workspace: Path | None = None) -> MainWindow:
        window = MainWindow(settings)
        qtbot.addWidget(window)
        windows.append(window)
        window.resize(1400, 900)
        if source is not None:
            assert window.set_source(source, screen=False)
            assert window.set_workspace(workspace or tmp_path / "workspace")
        return window

    yield make
    for window in windows:
        window.close()


@pytest.fixture
def screened(qtbot, make_window: Callable[..., MainWindow], sample: Path) -> MainWindow:
    """A window that screened the sample corpus with default parameters through the real worker."""
    window = make_window(sample)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    return window
