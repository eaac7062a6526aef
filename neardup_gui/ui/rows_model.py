"""A flat, read-only table model over a Python list: the rows, headers and header tips that the
small tables (groups, group links, boilerplate passages) share. Subclasses fill ``_rows``,
``_headers`` (and ``_tips``) and implement ``data``."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

_Index = QModelIndex | QPersistentModelIndex


class RowsTableModel(QAbstractTableModel):
    """Rows in ``self._rows``; one column per entry of ``self._headers``; ``self._tips`` (same
    length, optional) are the headers' tooltips."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []
        self._headers: tuple[str, ...] = ()
        self._tips: tuple[str, ...] = ()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(self._headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._headers):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section]
        if role == Qt.ItemDataRole.ToolTipRole and section < len(self._tips):
            return self._tips[section]
        return None
