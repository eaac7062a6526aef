"""The candidate table: true-value sorting, filters with a shown/total count, one-row status updates."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QMenu

from neardup_gui.core import records
from neardup_gui.core.records import (
    FLAG_NEGATION_CHANGED,
    FLAG_NUMBER_CHANGED,
    FLAG_QUOTATION,
    REVIEW_KEEP_BOTH,
    REVIEW_VALID_REVISION,
)
from neardup_gui.ui.candidate_filter import ANY_EXACT, ANY_REVISION, NO_FLAG
from neardup_gui.ui.candidate_model import CANDIDATE_ROLE, SORT_ROLE, CandidateModel, Column
from neardup_gui.ui.candidate_view import CandidateView
from ui_factories import make_candidate, make_document

DOCS = {
    "a": make_document("a", "历史稿件/夜班编辑规范.txt"),
    "b": make_document("b", "内部通知/夜班编辑规范_修订.txt", version="v2"),
    "c": make_document("c", "网站转载/canteen.txt"),
    "d": make_document("d", "通讯员来稿/Canteen_Report.txt"),
    "e": make_document("e", "历史稿件/tea.txt"),
}
CANDIDATES = [
    make_candidate("a", "b", 0.91, minhash=0.9, flags=(FLAG_NUMBER_CHANGED,), suggestion=REVIEW_VALID_REVISION),
    make_candidate("c", "d", 0.5, containment=(0.95, 0.4), minhash=None),
    make_candidate("a", "e", 0.105, minhash=0.1, flags=(FLAG_QUOTATION,)),
    make_candidate("b", "d", 0.2, minhash=0.25, flags=(FLAG_NEGATION_CHANGED, FLAG_NUMBER_CHANGED)),
    make_candidate("c", "e", 0.95, minhash=0.97),
]


def filled_view(qtbot) -> CandidateView:
    model = CandidateModel()
    model.set_candidates(CANDIDATES, DOCS, {("c", "e"): REVIEW_KEEP_BOTH})
    view = CandidateView(model)
    qtbot.addWidget(view)
    return view


def column_values(view: CandidateView, column: Column, role: int = SORT_ROLE) -> list[object]:
    proxy = view.proxy
    return [proxy.index(r, column).data(role) for r in range(proxy.rowCount())]


def test_models_pass_the_qt_model_tester(qtbot, qtmodeltester) -> None:
    view = filled_view(qtbot)
    qtmodeltester.check(view.model)
    qtmodeltester.check(view.proxy)


def test_table_starts_sorted_by_jaccard_descending_on_true_values(qtbot) -> None:
    view = filled_view(qtbot)
    assert column_values(view, Column.JACCARD) == [0.95, 0.91, 0.5, 0.2, 0.105]
    assert column_values(view, Column.JACCARD, Qt.ItemDataRole.DisplayRole)[-1] == "0.105"


def test_clicking_a_header_sorts_by_that_columns_value(qtbot) -> None:
    view = filled_view(qtbot)
    view.table.sortByColumn(Column.MINHASH, Qt.SortOrder.DescendingOrder)
    shown = column_values(view, Column.MINHASH, Qt.ItemDataRole.DisplayRole)
    assert shown == ["0.970", "0.900", "0.250", "0.100", "—"]  # a missing estimate sorts last
    view.table.sortByColumn(Column.CONTAINMENT_LEFT, Qt.SortOrder.AscendingOrder)
    assert column_values(view, Column.CONTAINMENT_LEFT) == sorted(column_values(view, Column.CONTAINMENT_LEFT))
    view.table.sortByColumn(Column.LEFT, Qt.SortOrder.AscendingOrder)
    names = column_values(view, Column.LEFT, Qt.ItemDataRole.DisplayRole)
    assert names == sorted(names, key=str.casefold)


def test_sorting_keeps_the_selected_pair_selected(qtbot) -> None:
    view = filled_view(qtbot)
    assert view.select_pair(("b", "d"))
    view.table.sortByColumn(Column.RIGHT, Qt.SortOrder.AscendingOrder)
    assert view.current_candidate() is not None and view.current_candidate().key == ("b", "d")


def test_filters_narrow_rows_and_the_count_says_how_many(qtbot) -> None:
    view = filled_view(qtbot)
    assert view.count_label.text() == "5 of 5 pairs"
    view.search.setText("canteen")  # case-insensitive, either side's path
    assert {c.key for c in (view.proxy.index(r, 0).data(CANDIDATE_ROLE) for r in range(view.shown_count()))} == {
        ("b", "d"),
        ("c", "d"),
        ("c", "e"),
    }
    assert view.count_label.text() == "3 of 5 pairs"
    view.search.setText("夜班")
    assert view.shown_count() == 3
    view.search.clear()
    view.min_score.setValue(0.9)  # containment 0.95 counts as a score too
    assert {view.proxy.index(r, 0).data(CANDIDATE_ROLE).key for r in range(view.shown_count())} == {
        ("a", "b"),
        ("c", "d"),
        ("c", "e"),
    }
    view.min_score.setValue(0.0)
    view.flag_filter.setCurrentIndex(view.flag_filter.findData(ANY_REVISION))
    assert view.shown_count() == 2
    view.flag_filter.setCurrentIndex(view.flag_filter.findData(FLAG_QUOTATION))
    assert view.shown_count() == 1
    view.flag_filter.setCurrentIndex(0)
    view.status_filter.setCurrentIndex(view.status_filter.findData(REVIEW_KEEP_BOTH))
    assert view.shown_count() == 1
    assert view.count_label.text() == "1 of 5 pairs"


def test_flags_show_in_words_and_sources_with_versions(qtbot) -> None:
    view = filled_view(qtbot)
    model = view.model
    row = model.row_of(("b", "d"))
    assert model.index(row, Column.FLAGS).data() == "negation changed, number changed"
    row = model.row_of(("a", "b"))
    assert model.index(row, Column.SOURCES).data() == "历史稿件 v1 ↔ 内部通知 v2"
    assert "Valid revision" in model.index(row, Column.STATUS).data()  # the suggestion, until decided


def test_a_status_change_reports_only_that_rows_status_cell(qtbot) -> None:
    view = filled_view(qtbot)
    changes: list[tuple[int, int, int, int]] = []
    view.model.dataChanged.connect(lambda tl, br, _roles: changes.append((tl.row(), tl.column(), br.row(), br.column())))
    view.model.set_status(("a", "e"), REVIEW_KEEP_BOTH)
    row = view.model.row_of(("a", "e"))
    assert changes == [(row, Column.STATUS, row, Column.STATUS)]
    assert view.model.index(row, Column.STATUS).data() == "Keep both · 保留双方"


def test_ten_thousand_rows_sort_and_filter(qtbot) -> None:
    docs = {f"d{i}": make_document(f"d{i}", f"src/file_{i:05d}.txt") for i in range(2001)}
    candidates = [make_candidate(f"d{i}", f"d{i + 1}", ((i * 7919) % 1000) / 1000) for i in range(2000)] * 5
    model = CandidateModel()
    model.set_candidates(candidates, docs)
    view = CandidateView(model)
    qtbot.addWidget(view)
    assert view.shown_count() == 10_000
    values = column_values(view, Column.JACCARD)
    assert values == sorted(values, reverse=True)
    view.min_score.setValue(0.5)
    assert view.shown_count() == sum(1 for c in candidates if c.jaccard >= 0.5)


def test_method_columns_start_hidden_and_the_header_menu_shows_them(qtbot) -> None:
    view = filled_view(qtbot)
    for col in (Column.TFIDF, Column.SIMHASH, Column.METHODS):
        assert not view.is_column_visible(col)
    menu = view.fill_column_menu(QMenu())
    actions = {a.text(): a for a in menu.actions()}
    assert {"TF-IDF cos", "SimHash dist", "Found by"} <= set(actions)
    actions["TF-IDF cos"].setChecked(True)
    assert view.is_column_visible(Column.TFIDF)
    assert not actions["Found by"].isChecked()


def test_method_scores_sort_on_true_values_with_missing_ones_last(qtbot) -> None:
    docs = {d: make_document(d, f"src/{d}.txt") for d in "abcd"}
    scored = [
        replace(make_candidate("a", "b", 0.5), tfidf_cosine=0.8, simhash_distance=12, methods=("minhash", "containment")),
        replace(make_candidate("a", "c", 0.5), tfidf_cosine=None, simhash_distance=None),
        replace(make_candidate("a", "d", 0.5), tfidf_cosine=0.95, simhash_distance=3, methods=("tfidf",)),
    ]
    model = CandidateModel()
    model.set_candidates(scored, docs)
    view = CandidateView(model)
    qtbot.addWidget(view)
    view.table.sortByColumn(Column.TFIDF, Qt.SortOrder.DescendingOrder)
    assert column_values(view, Column.TFIDF, Qt.ItemDataRole.DisplayRole) == ["0.950", "0.800", "—"]
    view.table.sortByColumn(Column.SIMHASH, Qt.SortOrder.AscendingOrder)
    assert column_values(view, Column.SIMHASH, Qt.ItemDataRole.DisplayRole) == ["3", "12", "—"]
    assert column_values(view, Column.METHODS, Qt.ItemDataRole.DisplayRole) == ["TF-IDF", "MinHash, containment", "MinHash"]


def test_the_flag_filter_offers_every_flag_the_engine_sets(qtbot) -> None:
    view = filled_view(qtbot)
    offered = {view.flag_filter.itemData(i) for i in range(view.flag_filter.count())}
    every_flag = {getattr(records, name) for name in dir(records) if name.startswith("FLAG_")}
    assert every_flag <= offered
    view.flag_filter.setCurrentIndex(view.flag_filter.findData(ANY_EXACT))
    assert view.shown_count() == 0
    view.flag_filter.setCurrentIndex(view.flag_filter.findData(NO_FLAG))
    assert view.shown_count() == 2


def test_a_stale_decision_says_so_in_the_status_column(qtbot) -> None:
    model = CandidateModel()
    model.set_candidates(CANDIDATES, DOCS, {("a", "b"): REVIEW_KEEP_BOTH}, stale=[("a", "b")])
    row = model.row_of(("a", "b"))
    assert model.index(row, Column.STATUS).data() == "Keep both · 保留双方 (stale: file changed)"
    assert "changed since" in model.index(row, Column.STATUS).data(Qt.ItemDataRole.ToolTipRole)
    model.set_status(("a", "b"), REVIEW_KEEP_BOTH, stale=False)
    assert model.index(row, Column.STATUS).data() == "Keep both · 保留双方"


def test_tooltips_show_markup_looking_paths_as_typed(qtbot) -> None:
    docs = {"a": make_document("a", "<b>bold</b>/<i>x</i>.txt"), "b": make_document("b", "src/b.txt")}
    model = CandidateModel()
    model.set_candidates([make_candidate("a", "b", 0.9)], docs)
    tip = model.index(0, Column.LEFT).data(Qt.ItemDataRole.ToolTipRole)
    document = QTextDocument()
    document.setHtml(tip)  # what Qt shows for a tooltip that might be rich text
    assert document.toPlainText() == "<b>bold</b>/<i>x</i>.txt"
    assert model.index(0, Column.RIGHT).data(Qt.ItemDataRole.ToolTipRole) == "src/b.txt"  # plain stays plain
