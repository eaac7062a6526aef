"""Fixtures of the product tests: private app data and settings, and English restored afterwards.

The app-data folder is pointed at ``tmp_path`` through its documented environment variable and
every test gets its own INI settings file, so nothing touches the developer's real files. Tests
that load the Chinese catalogue put English back, so later tests see the source strings.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from neardup_gui.io.paths import DATA_DIR_ENV
from neardup_gui.ui.settings import AppSettings


@pytest.fixture(autouse=True)
def _private_app_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "appdata"))


@pytest.fixture
def settings(tmp_path: Path) -> AppSettings:
    return AppSettings.in_file(tmp_path / "settings.ini")


@pytest.fixture
def english_afterwards(qapp) -> Iterator[None]:
    """Whatever language a test installs, English is back when it ends."""
    from neardup_gui.ui.i18n import LANGUAGE_ENGLISH, install_language

    yield
    install_language(qapp, LANGUAGE_ENGLISH)
