"""The Groups view: documents joined by candidate pairs, for finding one's way through families.

Left, the groups (``GroupsModel``: size, links, member pairs not directly similar, best score);
right, the selected group's members and its pairs (``LinksModel``): the candidate links with their
scores and review status, the member pairs that are NOT directly similar (linked only through
another member), and links cut for grouping. "Show pair" (or a double click) selects a link in the
candidate table, so the diff and the decision form follow; "Cut this link (for grouping only)"
splits a group without touching the pair's review. The view emits ``cuts_changed``; the window
keeps the cuts in the session. Grouping is computed here by default; a window with many pairs sets
``run_in_background`` so it runs in a job thread (``set_computing`` shows that it is under way, and
``set_candidates`` also takes groups computed elsewhere).
Imports PySide6 only.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from neardup_gui.core.records import Candidate, Document
from neardup_gui.ui.groups import Group, Pair, build_groups
from neardup_gui.ui.labels import literal_tooltip, review_label
from neardup_gui.ui.palette import OKABE_ITO
from neardup_gui.ui.rows_model import RowsTableModel

ROW_ROLE = Qt.ItemDataRole.UserRole + 2
_Index = QModelIndex | QPersistentModelIndex
LINK, INDIRECT, CUT = "link", "indirect", "cut"


def _name(documents: dict[str, Document], doc_id: str) -> str:
    doc = documents.get(doc_id)
    return doc.path.rsplit("/", 1)[-1] if doc is not None else doc_id


class GroupColumn(IntEnum):
    NUMBER = 0
    DOCUMENTS = 1
    LINKS = 2
    NOT_DIRECT = 3
    BEST = 4
    MEMBERS = 5


class GroupsModel(RowsTableModel):
    """One row per group."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._docs: dict[str, Document] = {}
        self._headers = (self.tr("#"), self.tr("Docs"), self.tr("Links"), self.tr("Not direct"),
                         self.tr("Best J."), self.tr("Members"))  # fmt: skip
        self._tips = (
            self.tr("Group number, largest groups first"),
            self.tr("Documents in the group"),
            self.tr("Candidate pairs joining its documents"),
            self.tr("Member pairs that are NOT candidates: linked only through another member"),
            self.tr("Highest Jaccard of its links"),
            self.tr("Its documents"),
        )

    def set_groups(self, groups: list[Group], documents: dict[str, Document]) -> None:
        self.beginResetModel()
        self._rows, self._docs = list(groups), documents
        self.endResetModel()

    def group(self, row: int) -> Group:
        return self._rows[row]

    def groups(self) -> list[Group]:
        return list(self._rows)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        g, col = self._rows[index.row()], GroupColumn(index.column())
        if role == ROW_ROLE:
            return g
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                GroupColumn.NUMBER: str(index.row() + 1),
                GroupColumn.DOCUMENTS: str(len(g.members)),
                GroupColumn.LINKS: str(len(g.links)),
                GroupColumn.NOT_DIRECT: f"{g.indirect_total:,}" + ("+" if g.indirect_more else ""),
                GroupColumn.BEST: f"{g.best:.3f}",
                GroupColumn.MEMBERS: ", ".join(_name(self._docs, d) for d in g.members[:6])
                + (" …" if len(g.members) > 6 else ""),
            }[col]
        if role == Qt.ItemDataRole.ForegroundRole and col == GroupColumn.NOT_DIRECT and g.indirect_total:
            return QColor(OKABE_ITO["vermillion"])
        if role == Qt.ItemDataRole.TextAlignmentRole and col != GroupColumn.MEMBERS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class LinkColumn(IntEnum):
    LEFT = 0
    RIGHT = 1
    JACCARD = 2
    STATUS = 3
    RELATION = 4


class LinksModel(RowsTableModel):
    """The pairs of one group: links, member pairs not directly similar, cut links."""

    def __init__(self, status_of: Callable[[Pair], str], parent: Any = None) -> None:
        super().__init__(parent)
        self._status_of = status_of
        self._rows: list[tuple[str, str, str, Candidate | None, str]] = []  # kind, left, right, candidate, via
        self._docs: dict[str, Document] = {}
        self._headers = (self.tr("Left file"), self.tr("Right file"), self.tr("Jaccard"),
                         self.tr("Review status"), self.tr("Relation"))  # fmt: skip

    def set_group(self, group: Group | None, documents: dict[str, Document]) -> None:
        self.beginResetModel()
        self._docs = documents
        self._rows = []
        if group is not None:
            links = sorted(group.links, key=lambda c: -c.jaccard)
            self._rows += [(LINK, c.left, c.right, c, "") for c in links]
            self._rows += [(INDIRECT, i.left, i.right, None, i.via) for i in group.indirect]
            self._rows += [(CUT, c.left, c.right, c, "") for c in group.cut]
        self.endResetModel()

    def row(self, row: int) -> tuple[str, str, str, Candidate | None, str]:
        return self._rows[row]

    def refresh_statuses(self) -> None:
        if self._rows:
            self.dataChanged.emit(self.index(0, LinkColumn.STATUS), self.index(len(self._rows) - 1, LinkColumn.STATUS))

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        kind, left, right, c, via = self._rows[index.row()]
        col = LinkColumn(index.column())
        if role == ROW_ROLE:
            return self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            if col in (LinkColumn.LEFT, LinkColumn.RIGHT):
                return _name(self._docs, left if col == LinkColumn.LEFT else right)
            if col == LinkColumn.JACCARD:
                return "—" if c is None else f"{c.jaccard:.3f}"
            if col == LinkColumn.RELATION:
                if kind == INDIRECT:
                    return self.tr("not directly similar (linked via {0})").format(_name(self._docs, via))
                return self.tr("link cut for grouping") if kind == CUT else self.tr("candidate pair")
            return "" if c is None else review_label(self._status_of(c.key))
        if role == Qt.ItemDataRole.ToolTipRole:
            if col in (LinkColumn.LEFT, LinkColumn.RIGHT):
                doc = self._docs.get(left if col == LinkColumn.LEFT else right)
                return literal_tooltip(doc.path if doc is not None else None)
            return literal_tooltip(self.data(index, Qt.ItemDataRole.DisplayRole))
        if role == Qt.ItemDataRole.ForegroundRole and kind != LINK:
            return QColor(OKABE_ITO["vermillion"]) if kind == INDIRECT else QColor("#777777")
        return None


class GroupsView(QWidget):
    """Groups list, the selected group's pairs, and the show / cut / restore actions."""

    pair_requested = Signal(object)  # (left, right) to select in the candidate table
    cuts_changed = Signal(object)  # set of cut pairs

    def __init__(self, status_of: Callable[[Pair], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # (work, done): run ``work()`` somewhere and call ``done(groups)`` on the GUI thread; None: here.
        self.run_in_background: Callable[[Callable[[], list[Group]], Callable[[list[Group]], None]], None] | None = None
        self._grouping = 0  # the latest grouping asked for (older answers are dropped)
        self._candidates: list[Candidate] = []
        self._docs: dict[str, Document] = {}
        self._cuts: set[Pair] = set()
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.larger_only = QCheckBox(self.tr("Only groups of 3 or more"))
        self.larger_only.setChecked(True)
        self.groups_model = GroupsModel(self)
        self.links_model = LinksModel(status_of, self)
        self.groups_table = self._table(self.groups_model, {GroupColumn.NUMBER: 34, GroupColumn.DOCUMENTS: 46,
                                                            GroupColumn.LINKS: 46, GroupColumn.NOT_DIRECT: 76,
                                                            GroupColumn.BEST: 60})  # fmt: skip
        self.links_table = self._table(self.links_model, {LinkColumn.LEFT: 150, LinkColumn.RIGHT: 150,
                                                          LinkColumn.JACCARD: 56, LinkColumn.STATUS: 110})  # fmt: skip
        self.members_label = QLabel()
        self.members_label.setTextFormat(Qt.TextFormat.PlainText)
        self.members_label.setWordWrap(True)
        self.show_button = QPushButton(self.tr("Show pair"))
        self.cut_button = QPushButton(self.tr("Cut this link (for grouping only)"))
        self.cut_button.setToolTip(self.tr("The pair stays a candidate with its own decision; it just stops "
                                           "joining the two sides into one group"))  # fmt: skip
        self.restore_button = QPushButton(self.tr("Restore link"))

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.summary, 1)
        bar.addWidget(self.larger_only)
        buttons = QHBoxLayout()
        for button in (self.show_button, self.cut_button, self.restore_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        detail = QWidget()
        right = QVBoxLayout(detail)
        right.setContentsMargins(0, 0, 0, 0)
        right.addWidget(self.members_label)
        right.addWidget(self.links_table, 1)
        right.addLayout(buttons)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.groups_table)
        splitter.addWidget(detail)
        splitter.setSizes([400, 640])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)

        self._all_groups: list[Group] = []
        self._pending = False  # a grouping runs in the background; its answer applies the switch
        self.larger_only.toggled.connect(lambda _on: self._pending or self._show_groups(self._all_groups, None))
        self.groups_table.selectionModel().currentRowChanged.connect(lambda *_: self._group_chosen())
        self.links_table.selectionModel().currentRowChanged.connect(lambda *_: self._update_buttons())
        # A click (or Enter) on a pair shows it below; selecting a group by code never moves the review.
        self.links_table.clicked.connect(lambda _index: self.show_current_pair())
        self.links_table.activated.connect(lambda _index: self.show_current_pair())
        self.show_button.clicked.connect(self.show_current_pair)
        self.cut_button.clicked.connect(self.cut_current_link)
        self.restore_button.clicked.connect(self.restore_current_link)
        self._regroup()

    def _table(self, model: QAbstractTableModel, widths: dict[int, int]) -> QTableView:
        table = QTableView()
        table.setModel(model)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setAlternatingRowColors(True)
        table.setWordWrap(False)
        table.verticalHeader().hide()
        table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for col, width in widths.items():
            table.setColumnWidth(col, width)
        return table

    # -- content ------------------------------------------------------------------------------
    def set_candidates(
        self,
        candidates: list[Candidate],
        documents: dict[str, Document],
        cuts: set[Pair],
        groups: list[Group] | None = None,
    ) -> None:
        """Group a screen's pairs (cut links do not join groups); ``groups``: already grouped so."""
        self._candidates, self._docs, self._cuts = list(candidates), dict(documents), set(cuts)
        self._regroup(groups=groups)

    def set_computing(self) -> None:
        """Empty the tables and say that grouping is under way."""
        self._grouping += 1
        self._pending = True
        self._candidates, self._docs, self._all_groups = [], {}, []
        self.groups_model.set_groups([], {})
        self.links_model.set_group(None, {})
        self.members_label.setText("")
        self.summary.setText(self.tr("Grouping the pairs…"))
        self._update_buttons()

    def cuts(self) -> set[Pair]:
        return set(self._cuts)

    def groups(self) -> list[Group]:
        return self.groups_model.groups()

    def current_group(self) -> Group | None:
        index = self.groups_table.selectionModel().currentIndex()
        return self.groups_model.group(index.row()) if index.isValid() else None

    def select_group_of(self, doc_id: str) -> bool:
        """Select the group holding a document; False when it is in none shown."""
        for row, group in enumerate(self.groups_model.groups()):
            if doc_id in group.members:
                self.groups_table.selectRow(row)
                return True
        return False

    def select_link_row(self, row: int) -> None:
        self.links_table.selectRow(row)

    def _regroup(self, keep: str | None = None, groups: list[Group] | None = None) -> None:
        self._grouping += 1
        if groups is not None or self.run_in_background is None:
            self._show_groups(build_groups(self._candidates, self._docs, self._cuts) if groups is None else groups, keep)
            return
        token = self._grouping
        candidates, docs, cuts = self._candidates, self._docs, set(self._cuts)

        def done(found: list[Group]) -> None:
            if token == self._grouping:
                self._show_groups(found, keep)

        self._pending = True
        self.summary.setText(self.tr("Grouping the pairs…"))
        self.run_in_background(lambda: build_groups(candidates, docs, cuts), done)

    def _show_groups(self, groups: list[Group], keep: str | None) -> None:
        shown = [g for g in groups if len(g.members) >= 3] if self.larger_only.isChecked() else groups
        self._all_groups, self._pending = groups, False
        self.groups_model.set_groups(shown, self._docs)
        chained = sum(1 for g in groups if g.indirect_total)
        self.summary.setText(self.tr(
            "Groups of documents joined by candidate pairs: {0} ({1} shown), {2} with member pairs that are not "
            "directly similar. Groups help you find your way; every decision is about one pair."
        ).format(len(groups), len(shown), chained))  # fmt: skip
        if not (keep and self.select_group_of(keep)) and shown:
            self.groups_table.selectRow(0)
        self._group_chosen()

    def _group_chosen(self) -> None:
        group = self.current_group()
        self.links_model.set_group(group, self._docs)
        if group is None:
            self.members_label.setText(self.tr("No group selected."))
        else:
            names = ", ".join(_name(self._docs, d) for d in group.members)
            self.members_label.setText(self.tr("{0} documents: {1}").format(len(group.members), names))
            self.links_table.selectRow(0)
        self._update_buttons()

    # -- actions ------------------------------------------------------------------------------
    def _current_row(self) -> tuple[str, str, str, Candidate | None, str] | None:
        index = self.links_table.selectionModel().currentIndex()
        return self.links_model.row(index.row()) if index.isValid() else None

    def _update_buttons(self) -> None:
        row = self._current_row()
        self.show_button.setEnabled(row is not None and row[3] is not None)
        self.cut_button.setEnabled(row is not None and row[0] == LINK)
        self.restore_button.setEnabled(row is not None and row[0] == CUT)

    def show_current_pair(self) -> None:
        row = self._current_row()
        if row is not None and row[3] is not None:
            self.pair_requested.emit(row[3].key)

    def cut_current_link(self) -> None:
        row = self._current_row()
        if row is None or row[0] != LINK or row[3] is None:
            return
        self._cuts.add(row[3].key)
        self._regroup(keep=row[3].left)
        self.cuts_changed.emit(set(self._cuts))

    def restore_current_link(self) -> None:
        row = self._current_row()
        if row is None or row[0] != CUT or row[3] is None:
            return
        self._cuts.discard(row[3].key)
        self._cuts.discard((row[3].right, row[3].left))
        self._regroup(keep=row[3].left)
        self.cuts_changed.emit(set(self._cuts))
