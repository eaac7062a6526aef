"""Filtering of the candidate table: name search, minimum score, review status and flag.

A proxy over ``CandidateModel`` that shows the source rows passing every filter, in the source's
order. ``QSortFilterProxyModel`` asks a Python ``filterAcceptsRow`` once per row (seconds at a
million rows); here each filter is a boolean numpy mask over the rows in load order, computed from
the model's column arrays (``candidate_columns``: a path search tests each document once, a flag
filter each distinct flag tuple once) and combined with ``&``. A filter change or a source sort is one
layout change: the selection and the current row follow their pair, or are dropped when the pair is
filtered out. A status change re-filters when the status filter is on (a decided pair leaves the
"pending" view). Sorting is forwarded to the source model.
Imports PySide6 and numpy only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractItemModel, QAbstractProxyModel, QModelIndex, QPersistentModelIndex, Qt

from neardup_gui.core.records import FLAG_EXACT_BYTES, FLAG_EXACT_NORMALIZED, REVISION_FLAGS
from neardup_gui.ui.candidate_model import CandidateModel, Column

ANY = ""  # no restriction
ANY_REVISION = "__revision__"  # any of the revision flags
ANY_EXACT = "__exact__"  # same text after normalization, or identical bytes
NO_FLAG = "__none__"  # pairs the flags stage found nothing to say about
_GROUPS = {ANY_REVISION: frozenset(REVISION_FLAGS), ANY_EXACT: frozenset({FLAG_EXACT_BYTES, FLAG_EXACT_NORMALIZED})}
_Index = QModelIndex | QPersistentModelIndex
_FLAGS = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren


def _flag_test(flag: str) -> Any:
    group = _GROUPS.get(flag)
    if group is not None:
        return lambda flags: not group.isdisjoint(flags)
    if flag == NO_FLAG:
        return lambda flags: not flags
    return lambda flags: flag in flags


class CandidateFilterModel(QAbstractProxyModel):
    """Shows the candidates that pass every filter; sorts by asking the source model."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._text = ""
        self._min_score = 0.0
        self._status = ANY
        self._flag = ANY
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder
        self._masks: dict[str, np.ndarray] = {}  # active filters, each over the rows in load order
        self._mask: np.ndarray | None = None  # all of them combined; None when no filter is on
        self._shown: np.ndarray | None = None  # proxy row -> source row (ascending); None: identity
        self._count = 0
        self._saved: list[tuple[QModelIndex, int]] = []

    def source(self) -> CandidateModel:
        model = self.sourceModel()
        assert isinstance(model, CandidateModel)
        return model

    def setSourceModel(self, model: QAbstractItemModel) -> None:  # noqa: N802 - Qt override
        if not isinstance(model, CandidateModel):
            raise TypeError("CandidateFilterModel shows a CandidateModel")
        if self.sourceModel() is not None:
            raise RuntimeError("CandidateFilterModel takes its source model once")
        self.beginResetModel()
        super().setSourceModel(model)
        model.modelAboutToBeReset.connect(self.beginResetModel)
        model.modelReset.connect(self._on_source_reset)
        model.layoutAboutToBeChanged.connect(self._save_persistent)
        model.layoutChanged.connect(self._restore_persistent)
        model.dataChanged.connect(self._on_source_data_changed)
        model.headerDataChanged.connect(self.headerDataChanged)
        # CandidateModel only resets; rows inserted or removed any other way are shown as a reset.
        for about, done in (
            (model.rowsAboutToBeInserted, model.rowsInserted),
            (model.rowsAboutToBeRemoved, model.rowsRemoved),
        ):
            about.connect(self.beginResetModel)
            done.connect(self._on_source_reset)
        self._recompute_masks()
        self._remap()
        self.endResetModel()

    # -- filters ------------------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        """Keep pairs where either file path contains ``text`` (case-insensitive)."""
        text = text.strip().casefold()
        if text != self._text:
            self._text = text
            self._set_mask("text", self._text_mask())

    def set_min_score(self, value: float) -> None:
        """Keep pairs whose Jaccard or larger containment reaches ``value`` (0..1)."""
        value = float(value)
        if value != self._min_score:
            self._min_score = value
            self._set_mask("score", self._score_mask())

    def set_status(self, status: str) -> None:
        """Keep pairs with this review status (``ANY`` for all)."""
        if status != self._status:
            self._status = status
            self._set_mask("status", self._status_mask())

    def set_flag(self, flag: str) -> None:
        """Keep pairs carrying this flag (``ANY`` for all; ``ANY_REVISION``, ``ANY_EXACT``, ``NO_FLAG``)."""
        if flag != self._flag:
            self._flag = flag
            self._set_mask("flag", self._flag_mask())

    def _text_mask(self) -> np.ndarray | None:
        return self.source().columns.path_mask(self._text) if self._text else None

    def _score_mask(self) -> np.ndarray | None:
        return self.source().columns.best_score() >= self._min_score if self._min_score > 0 else None

    def _status_mask(self) -> np.ndarray | None:
        return self.source().columns.status_mask(self._status) if self._status else None

    def _flag_mask(self) -> np.ndarray | None:
        return self.source().columns.flag_mask(_flag_test(self._flag)) if self._flag else None

    def _recompute_masks(self) -> None:
        self._masks.clear()
        if self.sourceModel() is None:
            self._mask = None
            return
        for name, mask in (
            ("text", self._text_mask()),
            ("score", self._score_mask()),
            ("status", self._status_mask()),
            ("flag", self._flag_mask()),
        ):
            if mask is not None:
                self._masks[name] = mask
        self._combine()

    def _combine(self) -> None:
        masks = list(self._masks.values())
        if not masks:
            self._mask = None
            return
        combined = masks[0].copy()
        for mask in masks[1:]:
            combined &= mask
        self._mask = combined

    def _set_mask(self, name: str, mask: np.ndarray | None) -> None:
        if mask is None:
            self._masks.pop(name, None)
        else:
            self._masks[name] = mask
        self._save_persistent()
        self._combine()
        self._restore_persistent()

    # -- mapping ------------------------------------------------------------------------------
    def _remap(self) -> None:
        model = self.sourceModel()
        if not isinstance(model, CandidateModel):
            self._shown, self._count = None, 0
        elif self._mask is None:
            self._shown, self._count = None, model.rowCount()
        else:
            self._shown = np.flatnonzero(self._mask[model.load_order()])
            self._count = len(self._shown)

    def source_row(self, row: int) -> int:
        """The source model's row shown at proxy ``row``."""
        return row if self._shown is None else int(self._shown[row])

    def proxy_row(self, source_row: int) -> int:
        """The proxy row showing a source row, -1 when it is filtered out."""
        if self._shown is None:
            return source_row if 0 <= source_row < self._count else -1
        i = int(np.searchsorted(self._shown, source_row))
        return i if i < self._count and int(self._shown[i]) == source_row else -1

    def mapToSource(self, proxy_index: _Index) -> QModelIndex:  # noqa: N802 - Qt override
        if not proxy_index.isValid() or not 0 <= proxy_index.row() < self._count:
            return QModelIndex()
        return self.source().index(self.source_row(proxy_index.row()), proxy_index.column())

    def mapFromSource(self, source_index: _Index) -> QModelIndex:  # noqa: N802 - Qt override
        if not source_index.isValid():
            return QModelIndex()
        row = self.proxy_row(source_index.row())
        return QModelIndex() if row < 0 else self.index(row, source_index.column())

    # -- Qt model interface -------------------------------------------------------------------
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if parent.isValid() or not (0 <= row < self._count and 0 <= column < len(Column)):
            return QModelIndex()
        return self.createIndex(row, column)

    def parent(self, child: _Index | None = None) -> Any:  # type: ignore[override]
        if child is None:  # QObject.parent()
            return super().parent()
        return QModelIndex()

    def sibling(self, row: int, column: int, index: _Index) -> QModelIndex:
        return self.index(row, column)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt signature
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt signature
        return 0 if parent.isValid() else len(Column)

    def hasChildren(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008, N802 - Qt signature
        return not parent.isValid() and self._count > 0

    def flags(self, index: _Index) -> Qt.ItemFlag:
        return _FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < self._count:
            return None
        return self.source().cell(self.source_row(index.row()), index.column(), role)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and self.sourceModel() is not None:
            return self.sourceModel().headerData(section, orientation, role)
        return None

    # -- source changes -----------------------------------------------------------------------
    def _on_source_reset(self, *_args: Any) -> None:
        self._recompute_masks()
        self._remap()
        self.endResetModel()

    def _save_persistent(self, *_args: Any) -> None:
        """Before rows move: remember which pair (load index) each persistent index shows."""
        self.layoutAboutToBeChanged.emit()
        model = self.source()
        self._saved = [
            (index, model.load_index_of_row(self.source_row(index.row())))
            for index in self.persistentIndexList()
            if 0 <= index.row() < self._count
        ]

    def _restore_persistent(self, *_args: Any) -> None:
        """After rows moved: point each persistent index at its pair's new row (or nowhere)."""
        self._remap()
        model = self.source()
        old, new = [], []
        for index, base in self._saved:
            row = self.proxy_row(model.row_of_load_index(base))
            old.append(index)
            new.append(self.index(row, index.column()) if row >= 0 else QModelIndex())
        self._saved = []
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    def _on_source_data_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: Any = ()) -> None:
        if self._status and top_left.column() <= Column.STATUS <= bottom_right.column():
            old = self._mask
            self._masks["status"] = self.source().columns.status_mask(self._status)
            self._combine()
            if old is None or self._mask is None or not np.array_equal(old, self._mask):
                self._save_persistent()  # reads the rows shown so far; the new mask applies below
                self._restore_persistent()
        if self._count == 0:
            return
        first, last = top_left.row(), bottom_right.row()
        if first == last:
            row = self.proxy_row(first)
            if row < 0:
                return
            start, end = row, row
        else:
            start, end = 0, self._count - 1
        self.dataChanged.emit(
            self.index(start, top_left.column()), self.index(end, bottom_right.column()), list(roles or [])
        )

    # -- sorting ------------------------------------------------------------------------------
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort through the source model (numpy key sort); the proxy keeps the source's order."""
        self._sort_column, self._sort_order = column, order
        self.source().sort(column, order)

    def current_sort(self) -> tuple[int, Qt.SortOrder]:
        return self._sort_column, self._sort_order
