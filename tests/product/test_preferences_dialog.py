"""The Preferences dialog saves what the user sets, restores it next time, and changes nothing on Cancel."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from neardup_gui.core.records import ScreenParams
from neardup_gui.ui.palette import BACKGROUND, HighlightKind
from neardup_gui.ui.preferences_dialog import PreferencesDialog, default_colours, highlight_colours
from neardup_gui.ui.settings import AppSettings


def _dialog(qtbot, settings: AppSettings) -> PreferencesDialog:
    dialog = PreferencesDialog(settings)
    qtbot.addWidget(dialog)
    return dialog


def _click(qtbot, dialog: PreferencesDialog, which: QDialogButtonBox.StandardButton) -> None:
    qtbot.mouseClick(dialog.buttons.button(which), Qt.MouseButton.LeftButton)


def test_first_open_shows_the_built_in_defaults(qtbot, settings: AppSettings) -> None:
    dialog = _dialog(qtbot, settings)
    assert dialog.language_combo.currentData() == "system"
    assert dialog.reviewer_edit.text() == ""
    assert dialog.font_spin.value() == 0.0  # the panes' built-in size
    assert dialog.colours() == default_colours()
    assert dialog.params_panel.params() == ScreenParams()


def test_ok_saves_every_preference_and_a_new_dialog_shows_them(qtbot, settings: AppSettings, tmp_path: Path) -> None:
    dialog = _dialog(qtbot, settings)
    dialog.language_combo.setCurrentIndex(dialog.language_combo.findData("zh_CN"))
    dialog.reviewer_edit.setText("  王编辑 ")
    dialog.workspaces_edit.setText(str(tmp_path / "工作区"))
    dialog.font_spin.setValue(14.5)
    dialog.set_colour("shared", "#a0c8ff")
    dialog.params_panel.k_spin.setValue(3)
    dialog.params_panel.threshold_spin.setValue(0.7)
    with qtbot.waitSignal(dialog.preferences_saved) as saved:
        _click(qtbot, dialog, QDialogButtonBox.StandardButton.Ok)
    assert saved.args[0] == {"language", "reviewer", "workspaces", "font", "colours", "params"}
    assert dialog.result() == PreferencesDialog.DialogCode.Accepted

    reread = AppSettings.in_file(tmp_path / "settings.ini")  # what the next start reads
    assert reread.language() == "zh_CN"
    assert reread.reviewer() == "王编辑"
    assert reread.workspaces_root() == str(tmp_path / "工作区")
    assert reread.pane_font_size() == 14.5
    assert reread.highlight_colours() == {"shared": "#a0c8ff"}  # only what differs from the default
    assert highlight_colours(reread)[HighlightKind.SHARED].name() == "#a0c8ff"
    assert highlight_colours(reread)[HighlightKind.CHANGED] == BACKGROUND[HighlightKind.CHANGED]
    assert (reread.default_params().k, reread.default_params().threshold) == (3, 0.7)

    again = _dialog(qtbot, reread)
    assert again.language_combo.currentData() == "zh_CN"
    assert again.reviewer_edit.text() == "王编辑"
    assert again.font_spin.value() == 14.5
    assert again.colours()["shared"] == "#a0c8ff"
    assert again.params_panel.k_spin.value() == 3


def test_cancel_changes_nothing(qtbot, settings: AppSettings) -> None:
    settings.set_reviewer("李审")
    dialog = _dialog(qtbot, settings)
    dialog.reviewer_edit.setText("someone else")
    dialog.font_spin.setValue(20)
    _click(qtbot, dialog, QDialogButtonBox.StandardButton.Cancel)
    assert settings.reviewer() == "李审"
    assert settings.pane_font_size() == 0.0


def test_ok_without_changes_reports_nothing_changed(qtbot, settings: AppSettings) -> None:
    dialog = _dialog(qtbot, settings)
    with qtbot.waitSignal(dialog.preferences_saved) as saved:
        _click(qtbot, dialog, QDialogButtonBox.StandardButton.Ok)
    assert saved.args[0] == set()


def test_colour_blind_safe_defaults_undo_custom_colours(qtbot, settings: AppSettings) -> None:
    settings.set_highlight_colours({"shared": "#ff0000", "revision": "#00ff00"})
    dialog = _dialog(qtbot, settings)
    assert dialog.colours()["revision"] == "#00ff00"
    dialog.restore_default_colours()
    assert dialog.colours() == default_colours()
    dialog.accept()
    assert settings.highlight_colours() == {}


def test_unreadable_stored_values_fall_back_to_defaults(settings: AppSettings) -> None:
    store = settings._s  # write what an older or damaged settings file may hold
    store.setValue("preferences/pane_font_size", "large")
    store.setValue("preferences/highlight_colours", "{not json")
    store.setValue("preferences/default_params", '{"k": 0}')
    assert settings.pane_font_size() == 0.0
    assert settings.highlight_colours() == {}
    assert settings.default_params() == ScreenParams()
