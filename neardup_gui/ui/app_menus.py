"""Settings and Help menus of the main window, and applying the Preferences to it.

``install_app_menus(window, settings)`` (one call at the end of ``MainWindow.__init__``) adds:

- Settings ▸ Preferences…, Settings ▸ Language (follow the system, English, 简体中文);
- Help ▸ User guide (F1), Open log folder, About neardup, About Qt;

and applies the stored preferences that the window does not read itself: the text panes' font
size, the highlight colours and, on a first start, the default parameters. After the
Preferences dialog saves, the changed values are applied to the open window; a new language is
used from the next start (the window says so).
Imports PySide6, ``neardup_gui.io.paths`` and sibling ``ui`` modules only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QUrl
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QFont, QGuiApplication, QIcon, QKeySequence
from PySide6.QtWidgets import QApplication, QMessageBox

from neardup_gui.io.paths import resources_dir
from neardup_gui.ui import i18n
from neardup_gui.ui.about_dialog import AboutDialog
from neardup_gui.ui.help_dialog import show_help
from neardup_gui.ui.logging_setup import log_dir
from neardup_gui.ui.preferences_dialog import BUILTIN_PANE_POINTS, highlight_colours, open_preferences
from neardup_gui.ui.settings import AppSettings

if TYPE_CHECKING:
    from neardup_gui.ui.main_window import MainWindow


ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
# Written in each language itself, never translated.
_NEXT_START_IN_OWN_LANGUAGE = {
    i18n.LANGUAGE_ENGLISH: "neardup will be shown in English from the next start.",
    i18n.LANGUAGE_CHINESE: "下次启动时，neardup 将以简体中文显示。",
}


def application_icon() -> QIcon:
    """The program's icon from ``resources/icons`` (PNG sizes, the SVG for any other size)."""
    icon = QIcon()
    folder = resources_dir() / "icons"
    for size in ICON_SIZES:
        png = folder / f"neardup_gui-{size}.png"
        if png.is_file():
            icon.addFile(str(png))
    svg = folder / "neardup_gui.svg"
    if svg.is_file():
        icon.addFile(str(svg))
    return icon


def apply_pane_font(window: MainWindow, points: float) -> None:
    """Set the point size of both text panes (0: the built-in size)."""
    if points <= 0:
        points = max(QApplication.font().pointSizeF(), BUILTIN_PANE_POINTS)
    for pane in (window.diff_view.left, window.diff_view.right):
        font = QFont(pane.font())
        font.setPointSizeF(points)
        pane.setFont(font)


def apply_preferences(window: MainWindow, settings: AppSettings, changed: set[str] | None = None) -> None:
    """Apply stored preferences to the open window: all of them when ``changed`` is None
    (start-up), else the ones named (``font``, ``colours``, ``reviewer``, ``params``)."""
    everything = changed is None
    changed = changed or set()
    if everything or "font" in changed:
        apply_pane_font(window, settings.pane_font_size())
    if everything or "colours" in changed:
        window.diff_view.set_highlight_colours(highlight_colours(settings))
    if "reviewer" in changed:
        window.decision_form.set_reviewer(settings.reviewer())
    if "params" in changed:
        window.params_panel.set_defaults(settings.default_params())  # what "Defaults" shows
    if "params" in changed and not window.runner.running:
        window.params_panel.set_params(settings.default_params())
    elif everything and settings.last_params() is None:
        window.params_panel.set_params(settings.default_params())


class AppMenus(QObject):
    """The Settings and Help menus of one main window (a child of it)."""

    def __init__(self, window: MainWindow, settings: AppSettings) -> None:
        super().__init__(window)
        self.setObjectName("app_menus")
        self.window = window
        self.settings = settings
        menu_bar = window.menuBar()

        self.settings_menu = menu_bar.addMenu(self.tr("&Settings"))
        self.preferences_action = self._action(self.tr("&Preferences…"), self.open_preferences)
        self.preferences_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Preferences))
        self.preferences_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self.language_menu = self.settings_menu.addMenu(self.tr("&Language"))
        self.language_group = QActionGroup(self)
        self.language_group.setExclusive(True)
        self.language_actions: dict[str, QAction] = {}
        system_name = i18n.LANGUAGE_NAMES[i18n.resolve_language(i18n.LANGUAGE_SYSTEM)]
        choices = [(i18n.LANGUAGE_SYSTEM, self.tr("Follow the system ({0})").format(system_name))]
        choices += [(code, i18n.LANGUAGE_NAMES[code]) for code in i18n.available_languages()]
        for code, text in choices:
            action = QAction(text, self.language_menu)
            action.setCheckable(True)
            action.setData(code)
            action.triggered.connect(lambda _checked=False, c=code: self.choose_language(c))
            self.language_group.addAction(action)
            self.language_menu.addAction(action)
            self.language_actions[code] = action
        self.settings_menu.addAction(self.preferences_action)
        self._check_language(settings.language())

        self.help_menu = menu_bar.addMenu(self.tr("&Help"))
        self.guide_action = self._action(self.tr("&User guide"), self.show_guide)
        self.guide_action.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
        self.log_action = self._action(self.tr("Open &log folder"), self.open_log_folder)
        self.about_action = self._action(self.tr("&About neardup"), self.show_about)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_qt_action = self._action(self.tr("About &Qt"), QApplication.aboutQt)
        self.about_qt_action.setMenuRole(QAction.MenuRole.AboutQtRole)
        for action in (self.guide_action, self.log_action):
            self.help_menu.addAction(action)
        self.help_menu.addSeparator()
        self.help_menu.addAction(self.about_action)
        self.help_menu.addAction(self.about_qt_action)

        self.preferences_dialog = None
        self.last_message: QMessageBox | None = None

    def _action(self, text: str, slot: object) -> QAction:
        action = QAction(text, self.window)
        action.triggered.connect(slot)
        self.window.addAction(action)  # the shortcut works wherever the focus is
        return action

    # -- language -------------------------------------------------------------------------------
    def _check_language(self, code: str) -> None:
        action = self.language_actions.get(code) or self.language_actions[i18n.LANGUAGE_SYSTEM]
        action.setChecked(True)

    def choose_language(self, code: str) -> None:
        """Remember ``code`` as the interface language and say when it takes effect."""
        if code == self.settings.language():
            return
        self.settings.set_language(code)
        self.settings.sync()
        self._check_language(code)
        self.language_changed(code)

    def language_changed(self, code: str) -> None:
        """Tell the user that the window switches to ``code``'s language on the next start."""
        shown = i18n.installed_language()
        wanted = i18n.resolve_language(code)
        if wanted == shown:
            return
        text = self.tr("neardup will be shown in {0} from the next start.").format(i18n.LANGUAGE_NAMES[wanted])
        # Also said in the new language: its reader may not read the one shown now.
        text += "\n" + _NEXT_START_IN_OWN_LANGUAGE[wanted]
        box = QMessageBox(QMessageBox.Icon.Information, self.tr("Language"), text, QMessageBox.StandardButton.Ok, self.window)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.open()
        self.last_message = box

    # -- dialogs --------------------------------------------------------------------------------
    def open_preferences(self) -> None:
        dialog = open_preferences(self.settings, self.window)
        dialog.preferences_saved.connect(self._on_preferences_saved)
        self.preferences_dialog = dialog

    def _on_preferences_saved(self, changed: set[str]) -> None:
        apply_preferences(self.window, self.settings, changed)
        if "language" in changed:
            self._check_language(self.settings.language())
            self.language_changed(self.settings.language())

    def show_guide(self) -> None:
        show_help(self.window)

    def show_about(self) -> AboutDialog:
        dialog = AboutDialog(self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def open_log_folder(self) -> None:
        folder = log_dir()
        folder.mkdir(parents=True, exist_ok=True)
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            QGuiApplication.clipboard().setText(str(folder))
            self.window.statusBar().showMessage(self.tr("Log folder: {0} (path copied)").format(folder), 8000)


def install_app_menus(window: MainWindow, settings: AppSettings) -> AppMenus:
    """Add the Settings and Help menus to ``window`` and apply the stored preferences to it."""
    menus = AppMenus(window, settings)
    apply_preferences(window, settings)
    return menus
