"""The candidate pairs as a Qt table model: one row per ``Candidate``.

``DisplayRole`` gives formatted text, ``SORT_ROLE`` the native value (float, str, int) and
``CANDIDATE_ROLE`` the record itself. Sorting happens here, on numpy keys (``candidate_columns``):
the rows stay in their load order and the model keeps a permutation, so a header click on a million
rows is one stable ``argsort``; the proxy in ``candidate_filter`` forwards its ``sort`` calls. A missing score (``None``: the method
that computes it did not run) shows as "—" and sorts after every real value.
A review decision changes one row's status and emits ``dataChanged`` for that cell only. A status
is "stale" when a decision was made on a file that has changed since; files that changed since the
screen (a reopened workspace) are marked in the file columns.
Imports PySide6 only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import IntEnum
from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont

from neardup_gui.core.records import (
    REVIEW_PENDING,
    REVIEW_STATUSES,
    REVISION_FLAGS,
    Candidate,
    Document,
)
from neardup_gui.ui import candidate_columns as cols
from neardup_gui.ui.candidate_columns import CandidateColumns, file_name, stable_order
from neardup_gui.ui.labels import (
    flag_label,
    flags_text,
    literal_tooltip,
    methods_text,
    review_label,
)
from neardup_gui.ui.palette import OKABE_ITO

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
CANDIDATE_ROLE = Qt.ItemDataRole.UserRole + 2
STATUS_ROLE = Qt.ItemDataRole.UserRole + 3

Pair = tuple[str, str]
_Index = QModelIndex | QPersistentModelIndex


class Column(IntEnum):
    LEFT = 0
    RIGHT = 1
    SOURCES = 2
    JACCARD = 3
    CONTAINMENT_LEFT = 4
    CONTAINMENT_RIGHT = 5
    MINHASH = 6
    FLAGS = 7
    STATUS = 8
    TFIDF = 9
    SIMHASH = 10
    METHODS = 11


OPTIONAL_COLUMNS = (Column.SOURCES, Column.MINHASH, Column.TFIDF, Column.SIMHASH, Column.METHODS)
HIDDEN_BY_DEFAULT = (Column.TFIDF, Column.SIMHASH, Column.METHODS)


_STATUS_ORDER = {s: i for i, s in enumerate(REVIEW_STATUSES)}
_ROLES = frozenset(
    {
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.TextAlignmentRole,
        Qt.ItemDataRole.ForegroundRole,
        Qt.ItemDataRole.FontRole,
        SORT_ROLE,
        CANDIDATE_ROLE,
        STATUS_ROLE,
    }
)
_NUMERIC = (
    Column.JACCARD, Column.CONTAINMENT_LEFT, Column.CONTAINMENT_RIGHT, Column.MINHASH, Column.TFIDF, Column.SIMHASH,
)  # fmt: skip
_MISSING_HIGH = cols.MISSING_HIGH  # sort key of a missing distance (after every real one, ascending)
_WARNING = QColor(OKABE_ITO["vermillion"])
_KEYS = {
    Column.LEFT: cols.LEFT_NAME, Column.RIGHT: cols.RIGHT_NAME, Column.SOURCES: cols.SOURCES,
    Column.JACCARD: cols.JACCARD, Column.CONTAINMENT_LEFT: cols.CONTAINMENT_LEFT,
    Column.CONTAINMENT_RIGHT: cols.CONTAINMENT_RIGHT, Column.MINHASH: cols.MINHASH, Column.FLAGS: cols.FLAG_COUNT,
    Column.STATUS: cols.STATUS, Column.TFIDF: cols.TFIDF, Column.SIMHASH: cols.SIMHASH, Column.METHODS: cols.METHODS,
}  # fmt: skip
_COLUMNS = tuple(Column)


# From this many rows the document index of the file columns is built in the background at load.
PREWARM_ROWS = 50_000


class CandidateModel(QAbstractTableModel):
    """Table of candidate pairs with their documents and review statuses."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Candidate] = []  # load order; shown in the order of self._order
        self._docs: dict[str, Document] = {}
        self._names: dict[str, str] = {}
        self._sorted_by: tuple[int, Qt.SortOrder] | None = None
        self._status: dict[Pair, str] = {}
        self._stale: set[Pair] = set()
        self._changed_docs: set[str] = set()
        self._base_of: dict[Pair, int] | None = None  # pair -> load index, built on first use
        self._order = np.zeros(0, dtype=np.intp)  # shown row -> load index
        self._order_list: list[int] = []  # the same as Python ints (fast scalar look-ups in data())
        self._pos: np.ndarray | None = None  # load index -> shown row, built on first use
        self.columns = CandidateColumns([], {}, {}, self._load_index, methods_text)
        self._headers = (
            self.tr("Left file"),
            self.tr("Right file"),
            self.tr("Source / version"),
            self.tr("Jaccard"),
            self.tr("Cont. left"),
            self.tr("Cont. right"),
            self.tr("MinHash est."),
            self.tr("Flags"),
            self.tr("Review status"),
            self.tr("TF-IDF cos"),
            self.tr("SimHash dist"),
            self.tr("Found by"),
        )
        self._header_tips = (
            self.tr("File name of the left document (its path sorts first)"),
            self.tr("File name of the right document"),
            self.tr("Source id and version of each side"),
            self.tr("Exact Jaccard similarity of the shingle sets, 0 to 1"),
            self.tr("Share of the left document's shingles found in the right one"),
            self.tr("Share of the right document's shingles found in the left one"),
            self.tr("Share of equal MinHash values (estimate of the Jaccard)"),
            self.tr("What the score hides: revisions, templates, quotations, containment"),
            self.tr("Review status; a suggestion is shown in grey until someone decides"),
            self.tr("Cosine of the character n-gram TF-IDF vectors, 0 to 1 (— when not computed)"),
            self.tr("Hamming distance of the 64-bit SimHashes, 0 to 64 bits; smaller is closer"),
            self.tr("Which method(s) proposed the pair"),
        )

    # -- content ------------------------------------------------------------------------------
    def set_candidates(
        self,
        candidates: Sequence[Candidate],
        documents: Mapping[str, Document],
        statuses: Mapping[Pair, str] | None = None,
        stale: Iterable[Pair] = (),
        changed_docs: Iterable[str] = (),
        names: Mapping[str, str] | None = None,
    ) -> None:
        """Replace every row (resets the model).

        Args:
            candidates, documents: The pairs and the manifest they refer to.
            statuses: Decided statuses (pairs left out are pending).
            stale: Pairs whose decisions were made on files that have changed since.
            changed_docs: doc_ids whose file changed since the screen (texts not shown).
            names: doc_id -> file name shown, worked out beforehand (``result_handoff``); else
                from ``documents`` here.
        """
        self.beginResetModel()
        self._rows = list(candidates)
        self._docs = dict(documents)
        if names is None:
            self._names = {doc_id: file_name(doc.path) for doc_id, doc in self._docs.items()}
        else:
            self._names = dict(names)
        self._status = dict(statuses or {})
        self._stale = set(stale)
        self._changed_docs = set(changed_docs)
        self._sorted_by = None
        self._base_of = None
        self._set_order(np.arange(len(self._rows), dtype=np.intp))
        self.columns = CandidateColumns(self._rows, self._docs, self._status, self._load_index, methods_text)
        if len(self._rows) >= PREWARM_ROWS:
            self.columns.prewarm()
        self.endResetModel()

    def set_statuses(self, statuses: Mapping[Pair, str]) -> None:
        """Replace every review status (one ``dataChanged`` over the status column)."""
        self._status = dict(statuses)
        self.columns.reset_statuses(self._status, self._load_index)
        self._sorted_by = None
        if self._rows:
            top = self.index(0, Column.STATUS)
            bottom = self.index(len(self._rows) - 1, Column.STATUS)
            self.dataChanged.emit(top, bottom, [Qt.ItemDataRole.DisplayRole, SORT_ROLE, STATUS_ROLE])

    def set_status(self, pair: Pair, status: str, stale: bool = False) -> None:
        """Change one pair's review status; only that row's status cell is reported changed."""
        self._status[pair] = status
        if stale:
            self._stale.add(pair)
        else:
            self._stale.discard(pair)
        self._sorted_by = None
        base = self._load_index(pair)
        if base is not None:
            self.columns.set_status_code(base, status)
        row = self.row_of(pair)
        if row is not None:
            cell = self.index(row, Column.STATUS)
            roles = [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ForegroundRole, SORT_ROLE, STATUS_ROLE]
            self.dataChanged.emit(cell, cell, roles)

    def status_of(self, pair: Pair) -> str:
        """The decided status of a pair (``pending`` when nobody decided)."""
        return self._status.get(pair, REVIEW_PENDING)

    def is_stale(self, pair: Pair) -> bool:
        """True when the pair's decisions were made on a file that has changed since."""
        return pair in self._stale

    def changed_documents(self) -> set[str]:
        return set(self._changed_docs)

    def candidate(self, row: int) -> Candidate:
        return self._rows[self._order_list[row]]

    def candidates(self) -> list[Candidate]:
        """Every candidate in the order shown."""
        rows = self._rows
        return [rows[i] for i in self._order_list]

    def document(self, doc_id: str) -> Document | None:
        return self._docs.get(doc_id)

    def row_of(self, pair: Pair) -> int | None:
        """The shown row of a pair (None if it has none)."""
        base = self._load_index(pair)
        return None if base is None else int(self._positions()[base])

    # -- row order (for the filter proxy) -----------------------------------------------------
    def load_order(self) -> np.ndarray:
        """Load index of each shown row (the rows' order in ``set_candidates`` is the load order)."""
        return self._order

    def load_index_of_row(self, row: int) -> int:
        return self._order_list[row]

    def row_of_load_index(self, base: int) -> int:
        return int(self._positions()[base])

    def _load_index(self, pair: Pair) -> int | None:
        if self._base_of is None:
            self._base_of = {c.key: i for i, c in enumerate(self._rows)}
        return self._base_of.get(pair)

    def _positions(self) -> np.ndarray:
        if self._pos is None:
            pos = np.empty(len(self._order), dtype=np.intp)
            pos[self._order] = np.arange(len(self._order), dtype=np.intp)
            self._pos = pos
        return self._pos

    def _set_order(self, order: np.ndarray) -> None:
        self._order = order
        self._order_list = order.tolist()
        self._pos = None

    # -- Qt model interface -------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(Column)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(Column):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._header_tips[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Views ask for a dozen roles per cell while scrolling; answer the unused ones first.
        if role not in _ROLES or not index.isValid():
            return None
        return self.cell(index.row(), index.column(), role)

    def cell(self, row: int, column: int, role: int) -> Any:
        """``data()`` of a shown row and column (the proxy calls this with its mapped row)."""
        if role not in _ROLES or not 0 <= row < len(self._order_list) or not 0 <= column < len(_COLUMNS):
            return None
        c = self._rows[self._order_list[row]]
        col = _COLUMNS[column]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(c, col)
        if role == SORT_ROLE:
            return self._sort_value(c, col)
        if role == CANDIDATE_ROLE:
            return c
        if role == STATUS_ROLE:
            return self._status.get(c.key, REVIEW_PENDING)
        if role == Qt.ItemDataRole.ToolTipRole:
            return literal_tooltip(self._tooltip(c, col))
        if role == Qt.ItemDataRole.TextAlignmentRole and col in _NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole:
            if col == Column.STATUS and c.key in self._stale:
                return _WARNING
            if col in (Column.LEFT, Column.RIGHT) and (c.left if col == Column.LEFT else c.right) in self._changed_docs:
                return _WARNING
            if col == Column.STATUS and c.key not in self._status:
                return QColor("#666666")
            if col == Column.FLAGS and any(f in REVISION_FLAGS for f in c.flags):
                return QColor(OKABE_ITO["vermillion"])
        if role == Qt.ItemDataRole.FontRole and col == Column.STATUS and c.key not in self._status:
            font = QFont()
            font.setItalic(True)
            return font
        return None

    def _doc(self, doc_id: str) -> Document | None:
        return self._docs.get(doc_id)

    def _name_of(self, doc_id: str) -> str:
        return self._names.get(doc_id, doc_id)

    def _path(self, doc_id: str) -> str:
        doc = self._docs.get(doc_id)
        return doc.path if doc is not None else doc_id

    def _source_text(self, c: Candidate) -> str:
        parts = []
        for doc_id in (c.left, c.right):
            doc = self._docs.get(doc_id)
            parts.append(f"{doc.source_id} {doc.version}" if doc is not None else "?")
        return " ↔ ".join(parts)

    def _display(self, c: Candidate, col: Column) -> str:
        if col == Column.LEFT:
            return self._name_of(c.left)
        if col == Column.RIGHT:
            return self._name_of(c.right)
        if col == Column.SOURCES:
            return self._source_text(c)
        if col == Column.JACCARD:
            return f"{c.jaccard:.3f}"
        if col == Column.CONTAINMENT_LEFT:
            return f"{c.containment_left:.3f}"
        if col == Column.CONTAINMENT_RIGHT:
            return f"{c.containment_right:.3f}"
        if col == Column.MINHASH:
            return "—" if c.minhash_estimate is None else f"{c.minhash_estimate:.3f}"
        if col == Column.FLAGS:
            return flags_text(c.flags)
        if col == Column.TFIDF:
            return "—" if c.tfidf_cosine is None else f"{c.tfidf_cosine:.3f}"
        if col == Column.SIMHASH:
            return "—" if c.simhash_distance is None else str(c.simhash_distance)
        if col == Column.METHODS:
            return methods_text(c.methods)
        status = self._status.get(c.key)
        if status is not None:
            if c.key in self._stale:
                return self.tr("{0} (stale: file changed)").format(review_label(status))
            return review_label(status)
        if c.suggestion and c.suggestion != REVIEW_PENDING:
            return self.tr("suggested: {0}").format(review_label(c.suggestion))
        return review_label(REVIEW_PENDING)

    def _sort_value(self, c: Candidate, col: Column) -> Any:
        if col == Column.LEFT:
            return self._name_of(c.left).casefold()
        if col == Column.RIGHT:
            return self._name_of(c.right).casefold()
        if col == Column.SOURCES:
            return self._source_text(c).casefold()
        if col == Column.JACCARD:
            return c.jaccard
        if col == Column.CONTAINMENT_LEFT:
            return c.containment_left
        if col == Column.CONTAINMENT_RIGHT:
            return c.containment_right
        if col == Column.MINHASH:
            return -1.0 if c.minhash_estimate is None else c.minhash_estimate
        if col == Column.FLAGS:
            return len(c.flags)
        if col == Column.TFIDF:
            return -1.0 if c.tfidf_cosine is None else c.tfidf_cosine
        if col == Column.SIMHASH:
            return _MISSING_HIGH if c.simhash_distance is None else c.simhash_distance
        if col == Column.METHODS:
            return methods_text(c.methods).casefold()
        return _STATUS_ORDER.get(self._status.get(c.key, REVIEW_PENDING), len(_STATUS_ORDER))

    def _tooltip(self, c: Candidate, col: Column) -> str | None:
        if col in (Column.LEFT, Column.RIGHT):
            doc_id = c.left if col == Column.LEFT else c.right
            if doc_id in self._changed_docs:
                return self.tr("{0}\nChanged since the screen: its text is not shown; screen again.").format(
                    self._path(doc_id)
                )
            return self._path(doc_id)
        if col == Column.FLAGS and c.evidence:
            lines = [f"{flag_label(e.flag)}: {e.note}" if e.note else flag_label(e.flag) for e in c.evidence]
            return "\n".join(lines)
        if col == Column.STATUS and c.key in self._stale:
            return self.tr("A decision on this pair was made on a version of a file that has changed since; "
                           "review the pair again.")  # fmt: skip
        if col == Column.STATUS and c.suggestion != REVIEW_PENDING:
            return self.tr("Suggested by the screen: {0}").format(review_label(c.suggestion))
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Reorder rows by a column's ``SORT_ROLE`` value (stable; ties keep the previous order).

        Persistent indexes (selection, current row) follow their rows.
        """
        if not 0 <= column < len(Column) or not self._rows or self._sorted_by == (column, order):
            return  # the view asks twice per header click; the second sort would change nothing
        self._sorted_by = (column, order)
        keys = self.columns.key(_KEYS[Column(column)])
        new_order = stable_order(self._order, keys, order == Qt.SortOrder.DescendingOrder)
        self.layoutAboutToBeChanged.emit()
        old_indexes = self.persistentIndexList()
        bases = [self._order_list[ix.row()] for ix in old_indexes]
        self._set_order(new_order)
        positions = self._positions() if old_indexes else None
        new_indexes = [self.index(int(positions[b]), ix.column()) for b, ix in zip(bases, old_indexes)]  # type: ignore[index]
        self.changePersistentIndexList(old_indexes, new_indexes)
        self.layoutChanged.emit()
