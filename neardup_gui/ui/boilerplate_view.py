"""The Boilerplate view: passages that recur across the documents (column headers, disclaimers,
footers, quoted rules), with the number of documents holding each.

``find_boilerplate`` runs in a background thread after each screen: it shingles the texts shown
with the screen's k and normalization, builds ``core.flags.TemplateIndex`` with the chosen minimum
number of documents, leaves out documents that are mostly shared text (copies and versions of one
article would otherwise list the whole article as "boilerplate") and reads the recurring passages
back as raw text (``TemplateIndex.passages``). The view shows them, most widespread first; choosing
one shows its full text and where it occurs.

A large folder is searched in an evenly spread sample of ``SAMPLE_DOCUMENTS`` documents
(``boilerplate_sample``), and the view says so: the search's time and memory grow faster than the
number of documents (measured on two cores, at least 2 documents a passage: 2,500 articles 2.3 s
and +267 MB, 10,000 5.3-6.7 s and +532 MB, 20,000 15.9 s and +887 MB; before session 37's
``TemplateIndex.search`` 10,000 took 21.6 s and +718 MB, and 100,000 ran past ten minutes and
8 GB), while a passage worth listing recurs widely enough to be found in a sample.
Imports PySide6 and ``neardup_gui.core`` only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from neardup_gui.core.flags import BoilerplatePassage, TemplateIndex
from neardup_gui.core.pipeline import prepare
from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.records import Document, ScreenParams
from neardup_gui.ui.labels import literal_tooltip
from neardup_gui.ui.rows_model import RowsTableModel

PASSAGE_ROLE = Qt.ItemDataRole.UserRole + 2
SAMPLE_DOCUMENTS = 10_000  # the most documents searched at once (a larger folder: a sample of them)
MAX_COVERED_SHARE = 0.75  # documents more covered than this are copies or versions, not template + body
PASSAGE_LIMIT = 200
_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class BoilerplateResult:
    """Recurring passages of a set of texts.

    Attributes:
        passages: Most widespread first (each in at least ``min_docs`` of the documents kept).
        min_docs: The minimum number of documents asked for.
        documents: Documents examined.
        left_out: Documents left out because recurring text covers most of them.
        sampled_from: The number of documents ``documents`` were sampled from (0: not sampled).
    """

    passages: tuple[BoilerplatePassage, ...]
    min_docs: int
    documents: int
    left_out: int
    sampled_from: int = 0


def boilerplate_sample(doc_ids: Sequence[str], most: int | None = None) -> list[str]:
    """``doc_ids`` when there are at most ``most`` (default ``SAMPLE_DOCUMENTS``), else ``most`` of
    them spread evenly over the list (the manifest's path order: every folder is represented), in
    their order."""
    most = SAMPLE_DOCUMENTS if most is None else most
    n = len(doc_ids)
    if n <= most:
        return list(doc_ids)
    return [doc_ids[i * n // most] for i in range(most)]


def find_boilerplate(
    doc_ids: Sequence[str],
    texts: Mapping[str, str],
    params: ScreenParams,
    min_docs: int = 2,
    progress: Progress = NULL_PROGRESS,
    sampled_from: int = 0,
) -> BoilerplateResult:
    """Passages found in at least ``min_docs`` documents (see the module docstring).

    Args:
        doc_ids: Documents to examine (those with a text).
        texts: doc_id -> raw text.
        params: The screen's parameters (k and normalization are used).
        min_docs: Minimum number of documents a passage must occur in (at least 2).
        progress: Cancellation is checked throughout.
        sampled_from: When ``doc_ids`` is a sample (``boilerplate_sample``), of how many documents.
    """
    ids = [d for d in doc_ids if d in texts]
    prepared = prepare(ids, texts, params, progress)
    index = TemplateIndex.build(prepared.hashes, min_docs=max(2, min_docs), min_share=0.0, k=params.k,
                                options=params.normalize, progress=progress)  # fmt: skip
    found, left_out = index.search({d: texts[d] for d in prepared.doc_ids}, params.normalize, params.k,
                                   limit=PASSAGE_LIMIT, most_covered=MAX_COVERED_SHARE, progress=progress)  # fmt: skip
    passages = tuple(_with_brackets(p, texts[p.doc_id]) for p in found if p.doc_count >= max(2, min_docs))
    return BoilerplateResult(passages, max(2, min_docs), len(prepared.doc_ids), left_out, sampled_from)


_OPENING = "【（(「『《〈“‘[{"
_CLOSING = "】）)」』》〉”’]}。！？；.!?;"


def _with_brackets(p: BoilerplatePassage, raw: str) -> BoilerplatePassage:
    """The passage widened to the brackets and quotes right around it (【基层来稿】, not 基层来稿】):
    the normalization that found it may keep letters and digits only."""
    start, end = p.start, p.end
    while start > 0 and raw[start - 1] in _OPENING:
        start -= 1
    while end < len(raw) and raw[end] in _CLOSING:
        end += 1
    return replace(p, text=raw[start:end], start=start, end=end) if (start, end) != (p.start, p.end) else p


class PassageColumn(IntEnum):
    DOCUMENTS = 0
    CHARACTERS = 1
    PASSAGE = 2
    WHERE = 3


class BoilerplateModel(RowsTableModel):
    """One row per recurring passage."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[BoilerplatePassage] = []
        self._docs: dict[str, Document] = {}
        self._headers = (self.tr("Documents"), self.tr("Characters"), self.tr("Passage"), self.tr("Found in"))

    def set_passages(self, passages: Sequence[BoilerplatePassage], documents: Mapping[str, Document]) -> None:
        self.beginResetModel()
        self._rows, self._docs = list(passages), dict(documents)
        self.endResetModel()

    def passage(self, row: int) -> BoilerplatePassage:
        return self._rows[row]

    def passages(self) -> list[BoilerplatePassage]:
        return list(self._rows)

    def where(self, p: BoilerplatePassage) -> str:
        names = [self._docs[d].path if d in self._docs else d for d in p.doc_ids]
        more = p.doc_count - len(names)
        return "; ".join(names) + (self.tr(" and {0} more").format(more) if more > 0 else "")

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        p, col = self._rows[index.row()], PassageColumn(index.column())
        if role == PASSAGE_ROLE:
            return p
        if role == Qt.ItemDataRole.DisplayRole:
            if col == PassageColumn.DOCUMENTS:
                return str(p.doc_count)
            if col == PassageColumn.CHARACTERS:
                return str(len(p.text))
            if col == PassageColumn.PASSAGE:
                return " ⏎ ".join(line.strip() for line in p.text.strip().splitlines() if line.strip())
            return self.where(p)
        if role == Qt.ItemDataRole.ToolTipRole and col == PassageColumn.PASSAGE:
            return literal_tooltip(p.text)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (PassageColumn.DOCUMENTS, PassageColumn.CHARACTERS):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class BoilerplateView(QWidget):
    """Recurring passages with their document counts; a spin box sets the minimum count.

    Signals:
        min_docs_changed(int): the user asked for another minimum (the window recomputes).
    """

    min_docs_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = BoilerplateModel(self)
        self.summary = QLabel(self.tr("Screen a folder to see its recurring passages."))
        self.summary.setWordWrap(True)
        self.min_docs_spin = QSpinBox()
        self.min_docs_spin.setRange(2, 1000)
        self.min_docs_spin.setValue(2)
        self.min_docs_spin.setPrefix(self.tr("in at least "))
        self.min_docs_spin.setSuffix(self.tr(" documents"))
        self.min_docs_spin.setKeyboardTracking(False)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for col, width in ((PassageColumn.DOCUMENTS, 80), (PassageColumn.CHARACTERS, 80), (PassageColumn.PASSAGE, 360)):
            self.table.setColumnWidth(col, width)
        header.setStretchLastSection(True)
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setPlaceholderText(self.tr("Choose a passage to read it in full."))
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.summary, 1)
        bar.addWidget(self.min_docs_spin)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.table)
        splitter.addWidget(self.detail)
        splitter.setSizes([760, 300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)
        self.min_docs_spin.valueChanged.connect(self.min_docs_changed)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _prev: self._show(current))

    def min_docs(self) -> int:
        return self.min_docs_spin.value()

    def set_computing(self) -> None:
        self.summary.setText(self.tr("Looking for recurring passages…"))

    def set_failed(self, message: str) -> None:
        self.summary.setText(self.tr("Could not look for recurring passages: {0}").format(message))

    def clear(self) -> None:
        self.model.set_passages([], {})
        self.detail.clear()
        self.summary.setText(self.tr("Screen a folder to see its recurring passages."))

    def set_result(self, result: BoilerplateResult, documents: Mapping[str, Document]) -> None:
        """Show the passages of a finished search."""
        self.model.set_passages(result.passages, documents)
        self.detail.clear()
        text = self.tr("{0} passages found in at least {1} of {2} documents.").format(
            len(result.passages), result.min_docs, result.documents
        )
        if result.sampled_from:
            text += " " + self.tr("The folder holds {0} documents: these {1} are a sample spread evenly over "
                                  "it, and the counts are within the sample.").format(
                f"{result.sampled_from:,}", f"{result.documents:,}"
            )  # fmt: skip
        if result.left_out:
            text += " " + self.tr("{0} documents that are mostly shared text (copies, versions) are left out, "
                                  "so their articles are not listed as boilerplate.").format(result.left_out)  # fmt: skip
        self.summary.setText(text)
        if result.passages:
            self.table.selectRow(0)

    def _show(self, current: QModelIndex) -> None:
        if not current.isValid():
            self.detail.clear()
            return
        p = self.model.passage(current.row())
        where = self.model.where(p)
        self.detail.setPlainText(self.tr("In {0} documents: {1}").format(p.doc_count, where) + "\n\n" + p.text)
