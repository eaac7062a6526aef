"""Filtering of the candidate table: name search, minimum score, review status and flag.

A ``QSortFilterProxyModel`` over ``CandidateModel``. Filtering reads the ``Candidate`` records
directly (one Python call per row); sorting is forwarded to the source model, whose key sort is
fast (see ``candidate_model``). Imports PySide6 only.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

from neardup_gui.core.records import FLAG_EXACT_BYTES, FLAG_EXACT_NORMALIZED, REVISION_FLAGS
from neardup_gui.ui.candidate_model import CandidateModel

ANY = ""  # no restriction
ANY_REVISION = "__revision__"  # any of the revision flags
ANY_EXACT = "__exact__"  # same text after normalization, or identical bytes
NO_FLAG = "__none__"  # pairs the flags stage found nothing to say about
_GROUPS = {ANY_REVISION: frozenset(REVISION_FLAGS), ANY_EXACT: frozenset({FLAG_EXACT_BYTES, FLAG_EXACT_NORMALIZED})}


class CandidateFilterModel(QSortFilterProxyModel):
    """Shows the candidates that pass every filter; sorts by asking the source model."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._text = ""
        self._min_score = 0.0
        self._status = ANY
        self._flag = ANY
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder

    def source(self) -> CandidateModel:
        model = self.sourceModel()
        assert isinstance(model, CandidateModel)
        return model

    # -- filters ------------------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        """Keep pairs where either file path contains ``text`` (case-insensitive)."""
        self._change(lambda: setattr(self, "_text", text.strip().casefold()))

    def set_min_score(self, value: float) -> None:
        """Keep pairs whose Jaccard or larger containment reaches ``value`` (0..1)."""
        self._change(lambda: setattr(self, "_min_score", float(value)))

    def set_status(self, status: str) -> None:
        """Keep pairs with this review status (``ANY`` for all)."""
        self._change(lambda: setattr(self, "_status", status))

    def set_flag(self, flag: str) -> None:
        """Keep pairs carrying this flag (``ANY`` for all; ``ANY_REVISION``, ``ANY_EXACT``, ``NO_FLAG``)."""
        self._change(lambda: setattr(self, "_flag", flag))

    def _change(self, apply: Any) -> None:
        self.beginFilterChange()
        apply()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        if not (self._text or self._min_score > 0 or self._status or self._flag):
            return True
        model = self.source()
        c = model.candidate(source_row)
        if self._min_score > 0 and max(c.jaccard, c.containment_left, c.containment_right) < self._min_score:
            return False
        if self._status and model.status_of(c.key) != self._status:
            return False
        group = _GROUPS.get(self._flag)
        if group is not None:
            if not group.intersection(c.flags):
                return False
        elif self._flag == NO_FLAG:
            if c.flags:
                return False
        elif self._flag and self._flag not in c.flags:
            return False
        if self._text:
            left = model.document(c.left)
            right = model.document(c.right)
            haystack = " ".join(
                (d.path if d is not None else doc_id)
                for d, doc_id in ((left, c.left), (right, c.right))
            ).casefold()
            if self._text not in haystack:
                return False
        return True

    # -- sorting ------------------------------------------------------------------------------
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort through the source model (fast key sort); the proxy keeps the source's order."""
        self._sort_column, self._sort_order = column, order
        self.source().sort(column, order)

    def current_sort(self) -> tuple[int, Qt.SortOrder]:
        return self._sort_column, self._sort_order
