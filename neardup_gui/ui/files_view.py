"""The manifest: every file found, its status, encoding and size, so the user sees what was skipped.

``FilesModel`` (one row per ``Document``, same roles as the candidate model) and ``FilesView`` (a
summary line, a "not compared only" switch and the table). The model itself leaves out the files that
were compared when asked: a filter proxy calling Python once per row took 40 ms for 100,000 files on
every reset, on the GUI thread, whether it filtered or not. Statuses and messages show in the
interface language; the records keep the engine's English. Imports PySide6 only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import IntEnum
from operator import attrgetter
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from neardup_gui.core.records import STATUS_OK, Document
from neardup_gui.ui.file_messages import file_message_text
from neardup_gui.ui.keysort import sort_model_rows, sorted_order
from neardup_gui.ui.labels import file_status_label, format_size, literal_tooltip

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
DOCUMENT_ROLE = Qt.ItemDataRole.UserRole + 2
_Index = QModelIndex | QPersistentModelIndex


class FileColumn(IntEnum):
    PATH = 0
    STATUS = 1
    MESSAGE = 2
    ENCODING = 3
    SIZE = 4
    CHARS = 5
    SOURCE = 6
    VERSION = 7


# The Document field each column shows (sorted as numbers, or as the text casefolded).
_NUMBER_FIELDS = {FileColumn.SIZE: "size", FileColumn.CHARS: "chars"}
_TEXT_FIELDS = {FileColumn.PATH: "path", FileColumn.ENCODING: "encoding", FileColumn.SOURCE: "source_id",
                FileColumn.VERSION: "version"}  # fmt: skip


class FilesModel(QAbstractTableModel):
    """The manifest rows of the last screen."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._all: list[Document] = []  # every file, in the order shown when all are shown
        self._rows: list[Document] = []  # the files shown
        self._problems_only = False
        self._status_counts: Counter[str] = Counter()
        self._source: Sequence[Document] = ()
        self._headers = (
            self.tr("Path"),
            self.tr("Status"),
            self.tr("Why"),
            self.tr("Encoding"),
            self.tr("Size"),
            self.tr("Characters"),
            self.tr("Source"),
            self.tr("Version"),
        )

    def set_documents(self, documents: Sequence[Document]) -> None:
        """Show these files (the same tuple again changes nothing: it is already shown)."""
        if isinstance(documents, tuple) and documents is self._source:
            return
        self._source = documents
        self.beginResetModel()
        self._all = list(documents)
        self._status_counts = Counter(map(attrgetter("status"), self._all))
        self._rows = self._shown(self._all)
        self.endResetModel()

    def _shown(self, rows: list[Document]) -> list[Document]:
        return [d for d in rows if d.status != STATUS_OK] if self._problems_only else rows

    def set_problems_only(self, on: bool) -> None:
        """Show only the files that were not compared (True) or every file."""
        if bool(on) == self._problems_only:
            return
        self.beginResetModel()
        self._problems_only = bool(on)
        self._rows = self._shown(self._all)
        self.endResetModel()

    def documents(self) -> list[Document]:
        """Every file of the last screen (shown or not)."""
        return list(self._all)

    def status_counts(self) -> Counter[str]:
        """How many files have each status."""
        return Counter(self._status_counts)

    def usable_count(self) -> int:
        """How many files were read and compared."""
        return self._status_counts[STATUS_OK]

    def document(self, row: int) -> Document:
        return self._rows[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(FileColumn)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            if 0 <= section < len(self._headers):
                return self._headers[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        d = self._rows[index.row()]
        col = FileColumn(index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(d, col)
        if role == SORT_ROLE:
            return self._sort_value(d, col)
        if role == DOCUMENT_ROLE:
            return d
        if role == Qt.ItemDataRole.ToolTipRole and col in (FileColumn.PATH, FileColumn.MESSAGE):
            return literal_tooltip(self._message_tip(d.message) if d.message else d.path)
        if role == Qt.ItemDataRole.ForegroundRole and col == FileColumn.STATUS and d.status != STATUS_OK:
            return QColor("#A0400A")
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (FileColumn.SIZE, FileColumn.CHARS):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _message_tip(self, message: str) -> str:
        """The message in the interface language and, when that changed it, as recorded (the
        manifest, workbook and CSV keep the engine's English)."""
        said = file_message_text(message)
        return said if said == message else self.tr("{0}\n\nAs recorded: {1}").format(said, message)

    @staticmethod
    def _display(d: Document, col: FileColumn) -> str:
        if col == FileColumn.PATH:
            return d.path
        if col == FileColumn.STATUS:
            return file_status_label(d.status)
        if col == FileColumn.MESSAGE:
            return file_message_text(d.message)
        if col == FileColumn.ENCODING:
            return d.encoding
        if col == FileColumn.SIZE:
            return format_size(d.size)
        if col == FileColumn.CHARS:
            return f"{d.chars:,}" if d.chars else ""
        if col == FileColumn.SOURCE:
            return d.source_id
        return d.version

    @staticmethod
    def _sort_value(d: Document, col: FileColumn) -> Any:
        return FilesModel._sort_keys((d,), col)[0]

    @staticmethod
    def _sort_keys(rows: Sequence[Document], col: FileColumn) -> list[Any]:
        """The sort value of each of ``rows`` for ``col`` (a number, or the text casefolded), made by
        calls mapped in C (``_sort_value`` is one row's)."""
        if col in _NUMBER_FIELDS:
            return list(map(attrgetter(_NUMBER_FIELDS[col]), rows))
        if col == FileColumn.STATUS:
            statuses = list(map(attrgetter("status"), rows))
            labels = {s: file_status_label(s).casefold() for s in set(statuses)}
            return list(map(labels.__getitem__, statuses))
        if col == FileColumn.MESSAGE:  # as shown: once per distinct message (most files have none)
            messages = list(map(attrgetter("message"), rows))
            said = {m: file_message_text(m).casefold() for m in set(messages)}
            return list(map(said.__getitem__, messages))
        return list(map(str.casefold, map(attrgetter(_TEXT_FIELDS[col]), rows)))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(FileColumn) or not self._all:
            return
        col = FileColumn(column)
        if self._problems_only:  # the hidden rows keep their place in the same order
            self._all = list(map(self._all.__getitem__, sorted_order(self._sort_keys(self._all, col), order)))
        sort_model_rows(self, self._rows, self._sort_keys(self._rows, col), order, self._store)

    def _store(self, rows: list[Document]) -> None:
        self._rows = rows
        if not self._problems_only:
            self._all = rows


class FilesFilterModel(QSortFilterProxyModel):
    """Passes the files through; "not compared only" and sorting go to the source model."""

    def set_problems_only(self, on: bool) -> None:
        model = self.sourceModel()
        assert isinstance(model, FilesModel)
        model.set_problems_only(on)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sourceModel().sort(column, order)


class FilesView(QWidget):
    """Summary of file statuses and the manifest table."""

    def __init__(self, model: FilesModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.proxy = FilesFilterModel(self)
        self.proxy.setSourceModel(model)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.problems_only = QCheckBox(self.tr("Only files not compared"))
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.horizontalHeader().setStretchLastSection(True)
        for col, width in ((FileColumn.PATH, 260), (FileColumn.STATUS, 130), (FileColumn.MESSAGE, 220)):
            self.table.setColumnWidth(col, width)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(FileColumn.PATH, Qt.SortOrder.AscendingOrder)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.summary, 1)
        bar.addWidget(self.problems_only)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.table)

        self.problems_only.toggled.connect(self.proxy.set_problems_only)
        model.modelReset.connect(self._update_summary)
        self._update_summary()

    def _update_summary(self) -> None:
        counts = self.model.status_counts()
        total = sum(counts.values())
        if not total:
            self.summary.setText(self.tr("No files yet: choose a source folder and screen it."))
            return
        each = self.tr("{0}: {1}", "a file status and how many files have it")
        parts = [each.format(file_status_label(s), f"{n:,}") for s, n in sorted(counts.items(), key=lambda kv: -kv[1])]
        joined = self.tr("; ", "between the file statuses of the summary").join(parts)
        self.summary.setText(self.tr("{0} files. {1}").format(f"{total:,}", joined))
