"""Interface language: which translations ship, which one to use, and loading it into the app.

Translations are Qt ``.qm`` catalogues in ``resources/translations`` (``neardup_gui_<lang>.qm``,
compiled from the ``.ts`` sources by ``scripts/update_translations.sh``). English is the source
language and needs no catalogue. Qt's own catalogue (``qtbase_<lang>.qm``: standard buttons,
file dialogs) is loaded beside ours when Qt ships one.

The installed translators are children of the application object with a known object name, so a
second call replaces them instead of stacking; no module state is kept.
Imports PySide6.QtCore and ``neardup_gui.io.paths`` only.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from neardup_gui.io.paths import resources_dir

log = logging.getLogger(__name__)

LANGUAGE_SYSTEM = "system"
LANGUAGE_ENGLISH = "en"
LANGUAGE_CHINESE = "zh_CN"
# Each language named in itself (never translated: a reader must find their own language).
LANGUAGE_NAMES = {LANGUAGE_ENGLISH: "English", LANGUAGE_CHINESE: "简体中文"}
CATALOG = "neardup_gui"
_TRANSLATOR_NAME = "neardup_gui_translator"


def translations_dir() -> Path:
    """The folder holding ``neardup_gui_<lang>.qm`` (and the ``.ts`` sources in a checkout)."""
    return resources_dir() / "translations"


def catalog_path(language: str) -> Path:
    """Where the compiled catalogue of ``language`` (e.g. ``zh_CN``) lives."""
    return translations_dir() / f"{CATALOG}_{language}.qm"


def available_languages() -> list[str]:
    """Languages the interface can be shown in: English plus every shipped catalogue."""
    return [LANGUAGE_ENGLISH] + [lang for lang in LANGUAGE_NAMES if lang != LANGUAGE_ENGLISH and catalog_path(lang).is_file()]


def resolve_language(choice: str, locale: QLocale | None = None) -> str:
    """The language to show for a Preferences choice (``system``, ``en``, ``zh_CN``).

    ``system`` follows the locale's preferred UI languages: any Chinese variant (including
    Traditional, which readers of this tool's texts read more easily than English) gives
    Simplified Chinese, anything else English. An unknown choice counts as ``system``.
    """
    if choice in LANGUAGE_NAMES:
        return choice
    locale = locale if locale is not None else QLocale.system()
    for name in locale.uiLanguages() or [locale.name()]:
        tag = name.replace("-", "_").lower()
        if tag.startswith("zh"):
            return LANGUAGE_CHINESE
        if tag.startswith("en"):
            return LANGUAGE_ENGLISH
    return LANGUAGE_ENGLISH


def installed_language(app: QCoreApplication | None = None) -> str:
    """The language ``install_language`` last put in place (English when none was)."""
    app = app or QCoreApplication.instance()
    value = app.property("neardup_language") if app is not None else None
    return str(value) if value else LANGUAGE_ENGLISH


def install_language(app: QCoreApplication, choice: str) -> str:
    """Load the catalogues of ``choice`` into ``app``, replacing any loaded before.

    Widgets built afterwards show the new language; Qt sends a ``LanguageChange`` event to every
    widget, which only widgets that handle it use (the main window applies a change on restart).

    Args:
        app: The application.
        choice: ``system``, ``en`` or ``zh_CN``.

    Returns:
        The language now shown: ``en`` when the choice is English or its catalogue is missing.
    """
    for old in app.findChildren(QTranslator, _TRANSLATOR_NAME):
        app.removeTranslator(old)
        old.setParent(None)  # Python owns it again and frees it; no event loop needed
    language = resolve_language(choice)
    if language != LANGUAGE_ENGLISH:
        if _install(app, str(catalog_path(language))):
            qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
            _install(app, f"qtbase_{language}", qt_dir)  # Qt's own words; optional
        else:
            log.warning("no translation catalogue for %s at %s; showing English", language, catalog_path(language))
            language = LANGUAGE_ENGLISH
    app.setProperty("neardup_language", language)
    return language


def _install(app: QCoreApplication, name: str, directory: str = "") -> bool:
    translator = QTranslator()
    if not translator.load(name, directory):
        return False
    translator.setParent(app)
    translator.setObjectName(_TRANSLATOR_NAME)
    app.installTranslator(translator)
    return True


def workbook_language(language: str | None = None) -> str:
    """The ``language`` argument of the workbook export (``zh`` or ``en``) for an interface language."""
    language = language or installed_language()
    return "zh" if language.lower().startswith("zh") else "en"
