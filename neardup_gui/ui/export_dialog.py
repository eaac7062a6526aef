"""The "Export review workbook" dialog: who signs, in which language, and where to save.

Non-blocking (``open``); the workspace controller starts the export when it is accepted. OK is
enabled only with a signer's name and an ``.xlsx`` path.
Imports PySide6 only.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

LANGUAGES = (("en", "English"), ("zh", "中文"))


class ExportDialog(QDialog):
    """Signer, language and target file of a review workbook."""

    def __init__(self, signer: str, path: Path, language: str = "en", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Export review workbook · 导出审核工作簿"))
        intro = QLabel(self.tr(
            "The workbook lists every file, every candidate pair with its review, every decision and "
            "arbitration, and a signature sheet whose digest shows later whether anything was edited."
        ))  # fmt: skip
        intro.setWordWrap(True)
        self.signer_edit = QLineEdit(signer)
        self.signer_edit.setPlaceholderText(self.tr("Name of the person signing the export"))
        self.language_combo = QComboBox()
        for code, name in LANGUAGES:
            self.language_combo.addItem(name, code)
        self.language_combo.setCurrentIndex(max(0, self.language_combo.findData(language)))
        self.path_edit = QLineEdit(str(path))
        self.browse_button = QPushButton(self.tr("Browse…"))
        where = QHBoxLayout()
        where.addWidget(self.path_edit, 1)
        where.addWidget(self.browse_button)
        form = QFormLayout()
        form.addRow(self.tr("Signed by"), self.signer_edit)
        form.addRow(self.tr("Language of the headings"), self.language_combo)
        form.addRow(self.tr("Save as"), where)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Export"))
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.browse_button.clicked.connect(self.browse)
        self.signer_edit.textChanged.connect(self._update_ok)
        self.path_edit.textChanged.connect(self._update_ok)
        self._update_ok()
        self.resize(560, self.sizeHint().height())

    def browse(self) -> None:
        chosen, _filter = QFileDialog.getSaveFileName(
            self, self.tr("Save the review workbook"), self.path_edit.text(), self.tr("Excel workbook (*.xlsx)")
        )
        if chosen:
            self.path_edit.setText(chosen if chosen.lower().endswith(".xlsx") else chosen + ".xlsx")

    def _update_ok(self) -> None:
        ok = bool(self.signer()) and self.path().name.lower().endswith(".xlsx")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def signer(self) -> str:
        return self.signer_edit.text().strip()

    def language(self) -> str:
        return str(self.language_combo.currentData())

    def path(self) -> Path:
        return Path(self.path_edit.text().strip()).expanduser()
