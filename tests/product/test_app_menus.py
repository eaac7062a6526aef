"""Settings and Help menus of the main window, and Preferences applied to the open window."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QMessageBox

from neardup_gui.core.records import ScreenParams
from neardup_gui.ui.about_dialog import AboutDialog
from neardup_gui.ui.help_dialog import HelpDialog
from neardup_gui.ui.main_window import MainWindow
from neardup_gui.ui.preferences_dialog import PreferencesDialog
from neardup_gui.ui.settings import AppSettings


@pytest.fixture
def window(qtbot, settings: AppSettings) -> MainWindow:
    win = MainWindow(settings)
    qtbot.addWidget(win)
    return win


def _menu_titles(win: MainWindow) -> list[str]:
    return [a.text() for a in win.menuBar().actions()]


def _top_level(kind: type) -> list:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()]


def test_window_has_settings_and_help_menus_after_its_own(window: MainWindow) -> None:
    titles = _menu_titles(window)
    assert titles[-2:] == ["&Settings", "&Help"]
    menus = window.app_menus
    assert [a.text() for a in menus.help_menu.actions() if a.text()] == [
        "&User guide", "Open &log folder", "&About neardup", "About &Qt",
    ]  # fmt: skip
    assert [a.data() for a in menus.language_menu.actions()] == ["system", "en", "zh_CN"]
    assert menus.language_actions["system"].isChecked()


def test_preferences_opens_from_the_menu_and_applies_to_the_window(qtbot, window: MainWindow, settings) -> None:
    window.show()
    window.app_menus.preferences_action.trigger()
    dialog = window.app_menus.preferences_dialog
    assert isinstance(dialog, PreferencesDialog) and dialog.isVisible()
    dialog.reviewer_edit.setText("王编辑")
    dialog.font_spin.setValue(17)
    dialog.params_panel.k_spin.setValue(7)
    dialog.set_colour("shared", "#a0c8ff")
    with qtbot.waitSignal(dialog.preferences_saved):
        dialog.accept()
    assert window.decision_form.reviewer() == "王编辑"
    assert window.diff_view.left.font().pointSizeF() == 17
    assert window.diff_view.right.font().pointSizeF() == 17
    assert window.params_panel.params().k == 7
    assert settings.default_params().k == 7
    shared_swatch = window.diff_view.legend_labels[0]  # the legend shows the colour the panes use
    assert shared_swatch.palette().color(QPalette.ColorRole.Window).name() == "#a0c8ff"


def test_a_fresh_start_uses_the_preferred_parameters_and_font(qtbot, settings: AppSettings) -> None:
    settings.set_default_params(ScreenParams(k=3, threshold=0.6))
    settings.set_pane_font_size(13)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    assert (win.params_panel.params().k, win.params_panel.params().threshold) == (3, 0.6)
    assert win.diff_view.left.font().pointSizeF() == 13


def test_remembered_parameters_win_over_the_preferred_ones(qtbot, settings: AppSettings) -> None:
    settings.set_default_params(ScreenParams(k=3))
    settings.set_last_params(ScreenParams(k=9))
    win = MainWindow(settings)
    qtbot.addWidget(win)
    assert win.params_panel.params().k == 9


def test_choosing_a_language_is_saved_and_announced_in_both_languages(qtbot, window: MainWindow, settings) -> None:
    window.show()
    window.app_menus.language_actions["zh_CN"].trigger()
    assert settings.language() == "zh_CN"
    assert window.app_menus.language_actions["zh_CN"].isChecked()
    box = window.app_menus.last_message
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert "简体中文" in box.text() and "next start" in box.text() and "下次启动" in box.text()
    assert AppSettings.in_file(Path(settings._s.fileName())).language() == "zh_CN"
    box.close()


def test_user_guide_opens_with_the_workflow_scores_and_guarantees(qtbot, window: MainWindow) -> None:
    window.app_menus.guide_action.trigger()
    guides = _top_level(HelpDialog)
    assert guides
    text = guides[-1].text()
    for heading in ("What neardup never does to your files", "The workflow", "Scores", "Flags", "Choosing k and a threshold"):
        assert heading in text
    guides[-1].close()


def test_user_guide_in_chinese(qtbot) -> None:
    dialog = HelpDialog(language="zh_CN")
    qtbot.addWidget(dialog)
    assert dialog.path is not None and dialog.path.name == "USER_GUIDE.zh_CN.md"
    assert "绝不会对原文件做的事" in dialog.text()
    assert "如何选择 k 和阈值" in dialog.text()


def test_about_lists_program_and_library_versions(qtbot, window: MainWindow) -> None:
    import numpy
    import pandas
    from PySide6 import __version__ as pyside_version
    from PySide6.QtCore import qVersion

    from neardup_gui import __version__

    dialog = window.app_menus.show_about()
    qtbot.addWidget(dialog)
    assert isinstance(dialog, AboutDialog)
    text = dialog.versions.toPlainText()
    lines = {line.split()[0]: line.split()[-1] for line in text.splitlines() if line.strip()}
    assert lines["neardup_gui"] == __version__
    assert lines["Qt"] == qVersion() and lines["PySide6"] == pyside_version
    assert lines["numpy"] == numpy.__version__ and lines["pandas"] == pandas.__version__
    assert "datasketch" in lines and "numba" in lines
    assert "neardup_gui.log" in text  # where to find the log for a bug report
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == text
