"""Display safety: text from documents and file names shows literally in every view of the window.

A folder whose names and texts look like HTML (``<b>bold</b>``, ``<script>``, ``<img onerror>``,
entities) or like formulas is screened through the real window. Table cells (DisplayRole), text
panes, labels, tooltips and dialogs must show those strings as typed. Qt renders a label, a tooltip
or a message box as rich text when its format is automatic and the string "might be rich text",
so what a user sees is worked out the way Qt does: ``Qt.mightBeRichText`` decides, and a rich
string is what ``QTextDocument.setHtml`` makes of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import Qt as QtGuiNamespace
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)
from reliability_kit import BASE, EDITED

from neardup_gui.ui.main_window import MainWindow
from neardup_gui.ui.settings import AppSettings

SCREEN_TIMEOUT_MS = 60_000

# relative path -> text; folder names end in "<" so that with the file name the path reads as markup.
HOSTILE = {
    "<b>bold</b>.txt": "<b>bold</b> " + BASE,
    "<script>alert(1)</script>.txt": "<script>alert(1)</script>\n" + EDITED,
    '=HYPERLINK("http:evil","点我").txt': '=HYPERLINK("http:evil","点我") ' + BASE.replace("今天", "昨天"),
    "<img src=x onerror=alert(2)>.txt": "&lt;i&gt;entity&lt;/i&gt; <i>italic</i> " + EDITED.replace("今天", "前天"),
}
# Fragments any view that shows these documents must show literally.
FRAGMENTS = ("<b>bold</b>", "<script>alert(1)</script>", '=HYPERLINK("http:evil"', "<img src=x onerror=alert(2)>",
             "&lt;i&gt;", "<i>italic</i>")  # fmt: skip


def seen(text: str, text_format: Qt.TextFormat = Qt.TextFormat.AutoText) -> str:
    """What Qt shows for ``text`` in a label, tooltip or message box of the given format."""
    rich = text_format == Qt.TextFormat.RichText or (
        text_format == Qt.TextFormat.AutoText and QtGuiNamespace.mightBeRichText(text)
    )
    if not rich:
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def hostile_in(text: str) -> list[str]:
    """The document-derived fragments (or their last path part) a string holds."""
    parts = set(FRAGMENTS) | {p.rsplit("/", 1)[-1] for p in HOSTILE}
    return [f for f in parts if f in text]


# A word of a fragment -> the fragment: a view showing the word without its fragment shows the
# document's text interpreted (a bold "bold", an image instead of "<img ...>", "<i>" for "&lt;i&gt;").
WORDS = {"bold": "<b>bold</b>", "alert(1)": "<script>alert(1)</script>", "onerror": "<img src=x onerror=alert(2)>",
         "italic": "<i>italic</i>", "entity": "&lt;i&gt;entity&lt;/i&gt;"}  # fmt: skip


def mangled(shown: str) -> list[str]:
    """Fragments whose word is shown without the fragment itself."""
    return [fragment for word, fragment in WORDS.items() if word in shown and fragment not in shown]


def model_strings(view: QAbstractItemView) -> Iterator[tuple[str, int, str]]:
    """(where, role, value) for every DisplayRole and ToolTipRole string of a view's model."""
    model = view.model()
    if model is None:
        return

    def walk(parent: QModelIndex) -> Iterator[QModelIndex]:
        for row in range(model.rowCount(parent)):
            for col in range(model.columnCount(parent)):
                index = model.index(row, col, parent)
                yield index
                if col == 0 and model.rowCount(index) > 0:
                    yield from walk(index)

    for index in walk(QModelIndex()):
        for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = index.data(role)
            if isinstance(value, str):
                source = getattr(model, "sourceModel", lambda: model)() or model
                yield f"{type(source).__name__}[{index.row()},{index.column()}]", role, value


@pytest.fixture
def source(tmp_path: Path) -> Path:
    folder = tmp_path / "source"
    for rel, text in HOSTILE.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def window(qtbot, tmp_path: Path, source: Path) -> Iterator[MainWindow]:
    win = MainWindow(AppSettings.in_file(tmp_path / "settings.ini"))
    qtbot.addWidget(win)
    win.resize(1400, 900)
    assert win.set_source(source, screen=False)
    assert win.set_workspace(tmp_path / "workspace")
    with qtbot.waitSignal(win.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert win.start_screen()
    assert win.outcome is not None and len(win.outcome.candidates) >= 4
    qtbot.waitUntil(win.diff_view.is_drawn, timeout=SCREEN_TIMEOUT_MS)
    yield win
    win.close()


def test_table_cells_show_names_and_sources_exactly_as_they_are(window: MainWindow) -> None:
    names = {Path(p).name for p in HOSTILE} | {p.split("/")[0] for p in HOSTILE if "/" in p}
    shown = {v for view in window.findChildren(QAbstractItemView)
             for _, role, v in model_strings(view) if role == Qt.ItemDataRole.DisplayRole}  # fmt: skip
    # Item views paint DisplayRole as plain text: every name appears as typed in some cell.
    for name in names:
        assert any(name in value for value in shown), name
    files = {window.files_model.index(r, 0).data() for r in range(window.files_model.rowCount())}
    assert set(HOSTILE) <= files


def test_text_panes_hold_the_raw_text_and_never_html(window: MainWindow, qtbot) -> None:
    table = window.candidate_view
    texts = window.outcome.texts
    for row in range(table.proxy.rowCount()):
        table.table.selectRow(row)
        candidate = table.current_candidate()
        qtbot.waitUntil(window.diff_view.is_drawn, timeout=SCREEN_TIMEOUT_MS)
        for pane, doc_id in ((window.diff_view.left, candidate.left), (window.diff_view.right, candidate.right)):
            assert isinstance(pane, QPlainTextEdit)
            assert pane.toPlainText() == texts[doc_id].replace("\r\n", "\n")
    # Any other text box (history, notes, ...) shows document text as typed, if at all.
    boxes = [*window.findChildren(QTextEdit), *window.findChildren(QPlainTextEdit)]
    assert [(type(w).__name__, mangled(w.toPlainText())) for w in boxes if mangled(w.toPlainText())] == []


def test_labels_showing_document_names_are_plain_text(window: MainWindow) -> None:
    showing = [label for label in window.findChildren(QLabel) if hostile_in(label.text())]
    assert showing, "no label shows a document name (the pane titles and the decision form should)"
    for label in showing:
        assert label.textFormat() == Qt.TextFormat.PlainText, (label.objectName(), label.text())
    everywhere = [(type(lb.parent()).__name__, mangled(seen(lb.text(), lb.textFormat())))
                  for lb in window.findChildren(QLabel)]  # fmt: skip
    assert [item for item in everywhere if item[1]] == []


def test_error_dialogs_show_file_names_literally(window: MainWindow, tmp_path: Path) -> None:
    missing = tmp_path / "<b>gone</b>"
    assert not window.set_source(missing, screen=False)
    box = window.last_message
    assert isinstance(box, QMessageBox)
    assert "<b>gone</b>" in seen(box.text(), box.textFormat())


def test_table_tooltips_show_paths_literally(window: MainWindow) -> None:
    wrong = []
    for view in window.findChildren(QAbstractItemView):
        for where, role, value in model_strings(view):
            if role == Qt.ItemDataRole.ToolTipRole and mangled(seen(value)):
                wrong.append((where, value))
    assert wrong == []


def test_widget_tooltips_show_paths_literally(window: MainWindow) -> None:
    wrong = []
    for widget in window.findChildren(QWidget):
        if mangled(seen(widget.toolTip())):
            wrong.append((type(widget).__name__, widget.toolTip()))
    assert wrong == []
