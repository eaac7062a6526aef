"""The Preferences dialog: language, reviewer, workspaces folder, text panes, default parameters.

The dialog edits a copy of the values and writes them to ``AppSettings`` only on OK; it then
emits ``preferences_saved`` with the names of what changed, and ``app_menus`` applies those to the
open window. A new language takes effect when the program next starts (the window is built in
one language; rebuilding it would lose the review on screen), and the dialog says so.
Imports PySide6, ``neardup_gui.io.paths`` and sibling ``ui`` modules only.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QColorDialog,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from neardup_gui.io.paths import app_data_dir
from neardup_gui.ui import i18n
from neardup_gui.ui.palette import BACKGROUND, HighlightKind, kind_label
from neardup_gui.ui.params_panel import ParamsPanel
from neardup_gui.ui.settings import AppSettings

# Built-in point size of the text panes (DiffPane uses at least this).
BUILTIN_PANE_POINTS = 10.5
COLOUR_KINDS = (HighlightKind.SHARED, HighlightKind.CURRENT, HighlightKind.CHANGED, HighlightKind.UNIQUE, HighlightKind.REVISION)


def kind_key(kind: HighlightKind) -> str:
    """The settings key of a highlight kind (``shared``, ``unique``, ...)."""
    return kind.name.lower()


def default_colours() -> dict[str, str]:
    """The colour-blind-safe defaults (Okabe-Ito tints), ``{kind key: "#rrggbb"}``."""
    return {kind_key(k): BACKGROUND[k].name() for k in COLOUR_KINDS}


def highlight_colours(settings: AppSettings) -> dict[HighlightKind, QColor]:
    """Every highlight kind's background: the user's choice where valid, else the default."""
    chosen = settings.highlight_colours()
    result = {}
    for kind in HighlightKind:
        colour = QColor(chosen.get(kind_key(kind), ""))
        result[kind] = colour if colour.isValid() else QColor(BACKGROUND[kind])
    return result


class ColourButton(QPushButton):
    """A button showing a colour as its face; clicking it asks for another."""

    colour_changed = Signal(str)

    def __init__(self, colour: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._title = title
        self.setMinimumWidth(110)
        self.clicked.connect(self._ask)
        self.set_colour(colour)

    def colour(self) -> str:
        return self._colour

    def set_colour(self, colour: str) -> None:
        self._colour = QColor(colour).name()
        self.setText(self._colour.upper())
        self.setStyleSheet(f"background-color: {self._colour}; color: black;")
        self.colour_changed.emit(self._colour)

    def _ask(self) -> None:
        chosen = QColorDialog.getColor(QColor(self._colour), self, self._title)
        if chosen.isValid():
            self.set_colour(chosen.name())


class PreferencesDialog(QDialog):
    """Edit the user's preferences; OK saves them, Cancel leaves everything as it was."""

    preferences_saved = Signal(object)  # set of changed names: language, reviewer, params, font, colours, workspaces

    def __init__(self, settings: AppSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle(self.tr("Preferences"))
        self.setObjectName("preferences_dialog")

        # General
        self.language_combo = QComboBox()
        system = i18n.LANGUAGE_NAMES[i18n.resolve_language(i18n.LANGUAGE_SYSTEM)]
        self.language_combo.addItem(self.tr("Follow the system ({0})").format(system), i18n.LANGUAGE_SYSTEM)
        for code in i18n.available_languages():
            self.language_combo.addItem(i18n.LANGUAGE_NAMES[code], code)
        self.language_note = QLabel(self.tr("A new language is used from the next start of neardup."))
        self.language_note.setWordWrap(True)
        self.reviewer_edit = QLineEdit()
        self.reviewer_edit.setPlaceholderText(self.tr("Name recorded with every decision"))
        self.workspaces_edit = QLineEdit()
        self.workspaces_edit.setPlaceholderText(str(app_data_dir() / "workspaces"))
        self.workspaces_edit.setToolTip(
            self.tr("New workspaces are made in this folder, one per source folder. Empty: the default shown.")
        )
        browse = QPushButton(self.tr("Browse…"))
        browse.clicked.connect(self._browse_workspaces)
        workspaces_row = QHBoxLayout()
        workspaces_row.setContentsMargins(0, 0, 0, 0)
        workspaces_row.addWidget(self.workspaces_edit, 1)
        workspaces_row.addWidget(browse)
        general = QWidget()
        form = QFormLayout(general)
        form.addRow(self.tr("Language"), self.language_combo)
        form.addRow("", self.language_note)
        form.addRow(self.tr("Reviewer name"), self.reviewer_edit)
        form.addRow(self.tr("Workspaces folder"), workspaces_row)
        workspaces_note = QLabel(
            self.tr("Outputs and review sessions go there, never into the source folder. "
                    "A folder that already has a workspace keeps it.")
        )  # fmt: skip
        workspaces_note.setWordWrap(True)
        form.addRow("", workspaces_note)
        self.normalized_check = QCheckBox(self.tr("Write the normalized text of every document (normalized/)"))
        self.normalized_check.setToolTip(
            self.tr("One file per document in the workspace. Creating many small files can take longer "
                    "than the screen itself; the results are the same without them.")
        )  # fmt: skip
        form.addRow("", self.normalized_check)
        self.reread_check = QCheckBox(self.tr("Read and hash every file on each screen"))
        self.reread_check.setToolTip(
            self.tr("Off: a file whose size, modification and change times are the same as at the last screen "
                    "into the workspace is not opened again, and keeps the SHA-256 recorded then. On: every "
                    "file is opened and its SHA-256 computed again (slower on large folders).")
        )  # fmt: skip
        form.addRow("", self.reread_check)

        # Text panes
        self.font_spin = QDoubleSpinBox()
        self.font_spin.setRange(0.0, 36.0)
        self.font_spin.setDecimals(1)
        self.font_spin.setSingleStep(0.5)
        self.font_spin.setSuffix(self.tr(" pt"))
        self.font_spin.setSpecialValueText(self.tr("Built-in ({0} pt)").format(BUILTIN_PANE_POINTS))
        self.colour_buttons: dict[str, ColourButton] = {}
        colours_box = QGroupBox(self.tr("Highlight colours"))
        grid = QGridLayout(colours_box)
        for row, kind in enumerate(COLOUR_KINDS):
            button = ColourButton(BACKGROUND[kind].name(), self.tr("Colour for “{0}”").format(kind_label(kind)))
            self.colour_buttons[kind_key(kind)] = button
            grid.addWidget(QLabel(kind_label(kind)), row, 0)
            grid.addWidget(button, row, 1)
        restore = QPushButton(self.tr("Colour-blind-safe defaults"))
        restore.setToolTip(self.tr("Light tints of the Okabe–Ito palette, distinguishable with common colour blindness"))
        restore.clicked.connect(self.restore_default_colours)
        grid.addWidget(restore, len(COLOUR_KINDS), 0, 1, 2)
        grid.setColumnStretch(2, 1)
        panes = QWidget()
        panes_layout = QVBoxLayout(panes)
        panes_form = QFormLayout()
        panes_form.addRow(self.tr("Font size"), self.font_spin)
        panes_layout.addLayout(panes_form)
        panes_layout.addWidget(colours_box)
        panes_layout.addStretch(1)

        # Screening defaults: the same panel as the window's Parameters tab.
        self.params_panel = ParamsPanel()
        params_page = QWidget()
        params_layout = QVBoxLayout(params_page)
        params_note = QLabel(
            self.tr("Parameters a fresh start uses; saving them also loads them into the Parameters tab.")
        )
        params_note.setWordWrap(True)
        params_layout.addWidget(params_note)
        scroll = QScrollArea()
        scroll.setWidget(self.params_panel)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        params_layout.addWidget(scroll, 1)

        self.tabs = QTabWidget()
        self.tabs.addTab(general, self.tr("General"))
        self.tabs.addTab(panes, self.tr("Text panes"))
        self.tabs.addTab(params_page, self.tr("Default parameters"))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.error_label = QLabel()
        self.error_label.setStyleSheet("color: #A0400A;")
        self.error_label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)
        self.load()

    # -- values -------------------------------------------------------------------------------
    def load(self) -> None:
        """Show the values stored in the settings."""
        index = self.language_combo.findData(self.settings.language())
        self.language_combo.setCurrentIndex(max(0, index))
        self.reviewer_edit.setText(self.settings.reviewer())
        self.workspaces_edit.setText(self.settings.workspaces_root())
        self.normalized_check.setChecked(self.settings.write_normalized())
        self.reread_check.setChecked(self.settings.reread_all())
        self.font_spin.setValue(self.settings.pane_font_size())
        current = highlight_colours(self.settings)
        for kind in COLOUR_KINDS:
            self.colour_buttons[kind_key(kind)].set_colour(current[kind].name())
        self.params_panel.set_params(self.settings.default_params())
        self.error_label.clear()

    def colours(self) -> dict[str, str]:
        """The colours shown, ``{kind key: "#rrggbb"}``."""
        return {key: button.colour() for key, button in self.colour_buttons.items()}

    def set_colour(self, kind: str, colour: str) -> None:
        """Show ``colour`` for the highlight kind named ``kind`` (as if picked)."""
        self.colour_buttons[kind].set_colour(colour)

    def restore_default_colours(self) -> None:
        for key, colour in default_colours().items():
            self.colour_buttons[key].set_colour(colour)

    def _browse_workspaces(self) -> None:
        start = self.workspaces_edit.text() or str(app_data_dir())
        folder = QFileDialog.getExistingDirectory(self, self.tr("Folder for new workspaces"), start)
        if folder:
            self.workspaces_edit.setText(folder)

    def save(self) -> set[str]:
        """Write the values shown to the settings; returns the names of what changed.

        Raises:
            ValueError: The default parameters do not validate (nothing is written then).
        """
        params = self.params_panel.params()  # validates first, so a bad value writes nothing
        s = self.settings
        changed: set[str] = set()
        language = str(self.language_combo.currentData())
        if language != s.language():
            s.set_language(language)
            changed.add("language")
        reviewer = self.reviewer_edit.text().strip()
        if reviewer != s.reviewer():
            s.set_reviewer(reviewer)
            changed.add("reviewer")
        root = self.workspaces_edit.text().strip()
        root = str(Path(root).expanduser()) if root else ""
        if root != s.workspaces_root():
            s.set_workspaces_root(root)
            changed.add("workspaces")
        if self.normalized_check.isChecked() != s.write_normalized():
            s.set_write_normalized(self.normalized_check.isChecked())
            changed.add("normalized")
        if self.reread_check.isChecked() != s.reread_all():
            s.set_reread_all(self.reread_check.isChecked())
            changed.add("reread")
        if abs(self.font_spin.value() - s.pane_font_size()) > 1e-9:
            s.set_pane_font_size(self.font_spin.value())
            changed.add("font")
        defaults = default_colours()
        chosen = {k: v for k, v in self.colours().items() if v.lower() != defaults[k].lower()}
        if chosen != s.highlight_colours():
            s.set_highlight_colours(chosen)
            changed.add("colours")
        if params != s.default_params():
            s.set_default_params(params)
            changed.add("params")
        s.sync()
        return changed

    def accept(self) -> None:
        try:
            changed = self.save()
        except ValueError as exc:
            self.error_label.setText(self.tr("Default parameters not valid: {0}").format(exc))
            self.tabs.setCurrentIndex(2)
            return
        super().accept()
        self.preferences_saved.emit(changed)


def open_preferences(settings: AppSettings, parent: QWidget | None = None) -> PreferencesDialog:
    """Show the Preferences dialog window-modal (not blocking); it deletes itself when closed."""
    dialog = PreferencesDialog(settings, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.open()
    return dialog
