"""The Help window: the user guide (``docs/USER_GUIDE.md``, or its Chinese edition) as rich text.

The guide is our own Markdown, so rendering it is safe (document text is never rendered this way).
It is found in ``resources/docs`` inside a bundle or an installed wheel, and in ``docs/`` of a
checkout. Imports PySide6, ``neardup_gui.io.paths`` and ``ui.i18n`` only.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from neardup_gui.io.paths import resources_dir
from neardup_gui.ui import i18n

GUIDE_NAME = "USER_GUIDE"


def guide_path(language: str | None = None) -> Path | None:
    """The user guide for ``language`` (default: the one shown), falling back to English.

    Returns None when no guide is found (a broken installation).
    """
    language = language or i18n.installed_language()
    names = [f"{GUIDE_NAME}.{language}.md", f"{GUIDE_NAME}.md"] if language != i18n.LANGUAGE_ENGLISH else [f"{GUIDE_NAME}.md"]
    folders = (resources_dir() / "docs", resources_dir().parent / "docs")
    for name in names:
        for folder in folders:
            if (folder / name).is_file():
                return folder / name
    return None


class HelpDialog(QDialog):
    """The user guide in a resizable, non-modal window."""

    def __init__(self, parent: QWidget | None = None, language: str | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("neardup user guide"))
        self.setObjectName("help_dialog")
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        path = guide_path(language)
        if path is None:
            self.browser.setPlainText(self.tr("The user guide is missing from this installation."))
        else:
            self.browser.setSearchPaths([str(path.parent)])
            self.browser.setMarkdown(path.read_text(encoding="utf-8"))
        self.path = path
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        self.resize(760, 680)

    def text(self) -> str:
        """The guide as plain text (what the window shows)."""
        return self.browser.toPlainText()


def show_help(parent: QWidget | None = None) -> HelpDialog:
    """Open the guide beside the window (not modal); it deletes itself when closed."""
    dialog = HelpDialog(parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
