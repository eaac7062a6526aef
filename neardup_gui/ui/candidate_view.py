"""The candidate table with its filter bar and the count of shown / total pairs.

Selecting a row (mouse, or the up / down keys) emits ``candidate_selected`` with the ``Candidate``;
every proxy index is mapped back to the source model before use. Typing in the search box filters
once the typing pauses (``SEARCH_DELAY_MS``); text set by the program filters at once. The flag filter offers every flag
the engine sets (``core.flags.FLAG_ORDER``) and groups of them. A right click on the header shows or
hides the optional columns (the method scores are hidden at first).
Imports PySide6 only.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from neardup_gui.core.flags import FLAG_ORDER
from neardup_gui.core.records import REVIEW_STATUSES, Candidate
from neardup_gui.ui.candidate_filter import ANY, ANY_EXACT, ANY_REVISION, NO_FLAG, CandidateFilterModel
from neardup_gui.ui.candidate_model import CANDIDATE_ROLE, HIDDEN_BY_DEFAULT, OPTIONAL_COLUMNS, CandidateModel, Column
from neardup_gui.ui.labels import flag_label, review_label

SEARCH_DELAY_MS = 150  # a pause in typing this long filters the table (one pass, not one per key)

_WIDTHS = {
    Column.LEFT: 150,
    Column.RIGHT: 150,
    Column.SOURCES: 130,
    Column.JACCARD: 62,
    Column.CONTAINMENT_LEFT: 72,
    Column.CONTAINMENT_RIGHT: 78,
    Column.MINHASH: 86,
    Column.FLAGS: 140,
    Column.TFIDF: 80,
    Column.SIMHASH: 84,
    Column.METHODS: 130,
}


class CandidateView(QWidget):
    """Filter bar, sortable table and count label over one ``CandidateModel``."""

    candidate_selected = Signal(object)  # Candidate, or None when the selection is cleared

    def __init__(self, model: CandidateModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.proxy = CandidateFilterModel(self)
        self.proxy.setSourceModel(model)

        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search file names"))
        self.search.setClearButtonEnabled(True)
        self.min_score = QDoubleSpinBox()
        self.min_score.setRange(0.0, 1.0)
        self.min_score.setSingleStep(0.05)
        self.min_score.setDecimals(2)
        self.min_score.setPrefix(self.tr("score ≥ "))
        self.min_score.setToolTip(self.tr("Show pairs whose Jaccard or containment reaches this value"))
        self.status_filter = QComboBox()
        self.status_filter.addItem(self.tr("Any status"), ANY)
        for status in REVIEW_STATUSES:
            self.status_filter.addItem(review_label(status), status)
        self.flag_filter = QComboBox()
        self.flag_filter.addItem(self.tr("Any flags"), ANY)
        self.flag_filter.addItem(self.tr("Any revision flag"), ANY_REVISION)
        self.flag_filter.addItem(self.tr("Any exact copy"), ANY_EXACT)
        self.flag_filter.addItem(self.tr("No flag"), NO_FLAG)
        for flag in FLAG_ORDER:
            self.flag_filter.addItem(flag_label(flag), flag)
        for combo in (self.status_filter, self.flag_filter):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(10)
        self.count_label = QLabel()
        self.count_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.search, 3)
        bar.addWidget(self.min_score)
        bar.addWidget(self.status_filter, 1)
        bar.addWidget(self.flag_filter, 1)
        bar.addWidget(self.count_label)

        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTabKeyNavigation(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setHighlightSections(False)
        for col, width in _WIDTHS.items():
            self.table.setColumnWidth(col, width)
        # The method scores sit beside the other scores when shown.
        for offset, col in enumerate((Column.TFIDF, Column.SIMHASH, Column.METHODS)):
            header.moveSection(header.visualIndex(col), header.visualIndex(Column.MINHASH) + 1 + offset)
        for col in HIDDEN_BY_DEFAULT:
            header.setSectionHidden(col, True)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        # The indicator first: enabling sorting sorts by it, and any other column first would decide the
        # order of equal scores.
        header.setSortIndicator(Column.JACCARD, Qt.SortOrder.DescendingOrder)
        self.table.setSortingEnabled(True)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.table)

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self._apply_search)
        self._edited_text: str | None = None
        self.search.textEdited.connect(self._on_search_edited)
        self.search.textChanged.connect(self._on_search_changed)
        self.min_score.valueChanged.connect(self.proxy.set_min_score)
        self.status_filter.currentIndexChanged.connect(
            lambda _i: self.proxy.set_status(self.status_filter.currentData())
        )
        self.flag_filter.currentIndexChanged.connect(lambda _i: self.proxy.set_flag(self.flag_filter.currentData()))
        for signal in (
            self.proxy.rowsInserted,
            self.proxy.rowsRemoved,
            self.proxy.modelReset,
            self.proxy.layoutChanged,
        ):
            signal.connect(self._update_count)
        self.table.selectionModel().currentRowChanged.connect(self._on_current_row_changed)
        self._row_before_layout = -1
        self.proxy.layoutAboutToBeChanged.connect(self._remember_current_row)
        self.proxy.layoutChanged.connect(self._keep_a_current_row)
        self._update_count()

    # -- selection ----------------------------------------------------------------------------
    def current_candidate(self) -> Candidate | None:
        index = self.table.selectionModel().currentIndex()
        if not index.isValid() or not self.table.selectionModel().isRowSelected(index.row(), QModelIndex()):
            return None
        value = index.data(CANDIDATE_ROLE)
        return value if isinstance(value, Candidate) else None

    def select_proxy_row(self, row: int) -> bool:
        """Select a visible row (and load its pair); False if there is no such row."""
        if not 0 <= row < self.proxy.rowCount():
            return False
        index = self.proxy.index(row, Column.LEFT)
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.table.selectionModel().setCurrentIndex(index, flags)
        self.table.scrollTo(index)
        return True

    def select_first(self) -> bool:
        return self.select_proxy_row(0)

    def select_next(self) -> bool:
        """Move to the next visible row; False at the end of the table."""
        current = self.table.selectionModel().currentIndex()
        return self.select_proxy_row(current.row() + 1 if current.isValid() else 0)

    def select_pair(self, pair: tuple[str, str]) -> bool:
        """Select the row of a pair if it is visible."""
        source_row = self.model.row_of(pair)
        if source_row is None:
            return False
        proxy_index = self.proxy.mapFromSource(self.model.index(source_row, Column.LEFT))
        return proxy_index.isValid() and self.select_proxy_row(proxy_index.row())

    def clear_filters(self) -> None:
        """Show every pair again."""
        self.search.clear()
        self._apply_search()
        self.min_score.setValue(0.0)
        self.status_filter.setCurrentIndex(0)
        self.flag_filter.setCurrentIndex(0)

    def shown_count(self) -> int:
        return self.proxy.rowCount()

    def _on_search_edited(self, text: str) -> None:
        # Qt announces a user's edit (textEdited) just before the textChanged it causes.
        self._edited_text = text
        self._search_timer.start()

    def _on_search_changed(self, text: str) -> None:
        if text != self._edited_text:  # set by the program: filter now
            self._apply_search()

    def _apply_search(self) -> None:
        self._search_timer.stop()
        self._edited_text = None
        self.proxy.set_text(self.search.text())

    def _on_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        value = current.data(CANDIDATE_ROLE) if current.isValid() else None
        self.candidate_selected.emit(value if isinstance(value, Candidate) else None)

    def _remember_current_row(self, *_args: Any) -> None:
        current = self.table.selectionModel().currentIndex()
        self._row_before_layout = current.row() if current.isValid() else -1

    def _keep_a_current_row(self, *_args: Any) -> None:
        """A filter hid the current pair: move to the row now in its place, as when rows are removed."""
        if self._row_before_layout < 0 or self.table.selectionModel().currentIndex().isValid():
            return
        if self.proxy.rowCount() == 0:
            self.candidate_selected.emit(None)
        else:
            self.select_proxy_row(min(self._row_before_layout, self.proxy.rowCount() - 1))

    def _update_count(self, *_args: Any) -> None:
        self.count_label.setText(
            self.tr("{0} of {1} pairs").format(self.proxy.rowCount(), self.model.rowCount())
        )

    # -- columns --------------------------------------------------------------------------------
    def fill_column_menu(self, menu: QMenu) -> QMenu:
        """Put checkable actions that show or hide the optional columns in ``menu`` (cleared first)."""
        menu.clear()
        header = self.table.horizontalHeader()
        for col in OPTIONAL_COLUMNS:
            action = menu.addAction(str(self.model.headerData(col, Qt.Orientation.Horizontal)))
            action.setCheckable(True)
            action.setChecked(not header.isSectionHidden(col))
            action.toggled.connect(lambda on, c=col: self.set_column_visible(c, on))
        return menu

    def set_column_visible(self, column: Column, visible: bool) -> None:
        header = self.table.horizontalHeader()
        header.setSectionHidden(column, not visible)
        if visible and header.sectionSize(column) < 30:
            header.resizeSection(column, _WIDTHS.get(column, 90))

    def is_column_visible(self, column: Column) -> bool:
        return not self.table.horizontalHeader().isSectionHidden(column)

    def _header_menu(self, pos: QPoint) -> None:
        menu = self.fill_column_menu(QMenu(self.tr("Columns"), self))
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self.table.horizontalHeader().mapToGlobal(pos))

    def header_state(self) -> Any:
        return self.table.horizontalHeader().saveState()

    def restore_header_state(self, state: Any) -> None:
        if state is not None:
            self.table.horizontalHeader().restoreState(state)
