"""The About dialog: program version, the versions of the libraries it runs on, and where its
files are (app data, log). The versions can be copied for a bug report.

Versions are read from the installed distributions' metadata (no heavy import); a library whose
metadata is missing (some frozen bundles) is asked for its ``__version__``.
Imports PySide6, ``neardup_gui.io.paths`` and sibling ``ui`` modules only.
"""

from __future__ import annotations

import importlib
import platform
import sys
from importlib import metadata

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from neardup_gui import __version__
from neardup_gui.io.paths import app_data_dir
from neardup_gui.ui.logging_setup import log_file

# (distribution name, import name) of the libraries that shape results or the window.
LIBRARIES = (
    ("numpy", "numpy"),
    ("scipy", "scipy"),
    ("pandas", "pandas"),
    ("datasketch", "datasketch"),
    ("numba", "numba"),
    ("openpyxl", "openpyxl"),
    ("charset-normalizer", "charset_normalizer"),
    ("fast-diff-match-patch", "fast_diff_match_patch"),
    ("pypdf", "pypdf"),
    ("lxml", "lxml"),
    ("readability-lxml", "readability"),
)


def _version(distribution: str, module: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        pass
    try:
        return str(getattr(importlib.import_module(module), "__version__", "?"))
    except Exception:  # noqa: BLE001 - a broken optional library must not break the About box
        return "—"


def library_versions() -> list[tuple[str, str]]:
    """``(name, version)`` of Python, Qt, PySide6 and every library in ``LIBRARIES``.

    A library that is not installed shows ``—``.
    """
    rows = [
        ("neardup_gui", __version__),
        ("Python", platform.python_version()),
        ("Qt", qVersion()),
        ("PySide6", pyside_version),
    ]
    rows += [(dist, _version(dist, module)) for dist, module in LIBRARIES]
    return rows


def versions_text() -> str:
    """Versions, platform and file locations as plain text (what Copy puts on the clipboard)."""
    width = max(len(name) for name, _ in library_versions())
    lines = [f"{name.ljust(width)}  {version}" for name, version in library_versions()]
    frozen = " (bundle)" if getattr(sys, "frozen", False) else ""
    lines += [
        "",
        f"platform  {platform.platform()}{frozen}",
        f"app data  {app_data_dir()}",
        f"log file  {log_file()}",
    ]
    return "\n".join(lines)


class AboutDialog(QDialog):
    """What this program is, its version and its libraries' versions."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("About neardup"))
        self.setObjectName("about_dialog")
        icon = QGuiApplication.windowIcon()
        header = QHBoxLayout()
        if not icon.isNull():
            picture = QLabel()
            picture.setPixmap(icon.pixmap(64, 64))
            header.addWidget(picture, 0, Qt.AlignmentFlag.AlignTop)
        title = QLabel(self.tr("neardup {0}").format(__version__))
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        title.setFont(font)
        summary = QLabel(
            self.tr(
                "Finds copies, revisions, templates and quotations in folders of texts, shows them "
                "side by side for review and exports a signed review workbook.\n"
                "It only proposes: it never deletes, moves, renames or changes a source file, and "
                "never writes inside the source folder."
            )
        )
        summary.setWordWrap(True)
        licence = QLabel(self.tr("Licence: MIT. Qt is used under the LGPL through PySide6."))
        licence.setWordWrap(True)
        text_column = QVBoxLayout()
        text_column.addWidget(title)
        text_column.addWidget(summary)
        text_column.addWidget(licence)
        header.addLayout(text_column, 1)

        self.versions = QPlainTextEdit(versions_text())
        self.versions.setReadOnly(True)
        self.versions.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = self.versions.font()
        mono.setFamily("monospace")
        mono.setStyleHint(mono.StyleHint.Monospace)
        self.versions.setFont(mono)
        self.versions.setMinimumSize(520, 260)

        self.copy_button = QPushButton(self.tr("Copy versions"))
        self.copy_button.clicked.connect(self.copy_versions)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(QLabel(self.tr("Versions and locations:")))
        layout.addWidget(self.versions, 1)
        layout.addWidget(buttons)

    def copy_versions(self) -> None:
        QGuiApplication.clipboard().setText(self.versions.toPlainText())
