"""Beyond the score: the Groups view (chains, cut links) and the Boilerplate view, with rendered PNGs."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from ui_factories import SCREEN_TIMEOUT_MS, make_candidate, make_document

from neardup_gui.core.records import METHOD_JACCARD, REVIEW_KEEP_BOTH, ScreenParams
from neardup_gui.ui.groups import GROUP_CUTS_KEY, build_groups, cuts_from_text
from neardup_gui.ui.groups_view import INDIRECT, LINK, GroupsView, LinkColumn

PARAGRAPHS = [
    "柳塘街道首家社区食堂今日开业，午餐套餐最低十二元，七十岁以上老人另有优惠。",
    "纺织新村老旧小区改造工程启动，更换供水排水管道，整修屋面防水并加装电梯。",
    "米市巷雨污分流施工采用顶管工艺，项目部在夜间作业时设置隔音围挡减少扰民。",
    "垃圾分类定时定点投放试点扩大到九个小区，督导员每天早晚各值守两个小时。",
    "滨河夜市重新开市后划定摊位编号，油烟净化设备统一安装，收摊后集中清扫。",
    "报社组织防汛应急演练，检验地下机房排水泵和备用电源在暴雨中的切换速度。",
]


def chain_folder(root: Path) -> Path:
    """A–B and B–C share three of five paragraphs; A–C share two of six (not a candidate at 0.5)."""
    root.mkdir()
    for name, first in (("a.txt", 0), ("b.txt", 1), ("c.txt", 2)):
        (root / name).write_text("\n".join(PARAGRAPHS[first : first + 4]), encoding="utf-8")
    return root


def test_groups_join_a_chain_and_mark_the_ends_as_not_directly_similar(qtbot, qtmodeltester) -> None:
    docs = {d: make_document(d, f"src/{d}.txt") for d in "abcde"}
    candidates = [make_candidate("a", "b", 0.6), make_candidate("b", "c", 0.55), make_candidate("d", "e", 0.9)]
    (chain, pair) = build_groups(candidates, docs)
    assert chain.members == ("a", "b", "c") and pair.members == ("d", "e")
    assert [(i.left, i.right, i.via) for i in chain.indirect] == [("a", "c", "b")]
    view = GroupsView(lambda _pair: REVIEW_KEEP_BOTH)
    qtbot.addWidget(view)
    view.set_candidates(candidates, docs, set())
    qtmodeltester.check(view.groups_model)
    qtmodeltester.check(view.links_model)
    assert view.groups_model.rowCount() == 1  # groups of 3 or more by default
    rows = [view.links_model.row(r) for r in range(view.links_model.rowCount())]
    assert [(kind, left, right) for kind, left, right, _c, _via in rows] == [
        (LINK, "a", "b"), (LINK, "b", "c"), (INDIRECT, "a", "c"),
    ]  # fmt: skip
    relation = view.links_model.index(2, LinkColumn.RELATION).data()
    assert relation == "not directly similar (linked via b.txt)"
    view.larger_only.setChecked(False)
    assert view.groups_model.rowCount() == 2


def test_cutting_a_link_splits_the_group_and_restoring_it_joins_it_again(qtbot) -> None:
    docs = {d: make_document(d, f"src/{d}.txt") for d in "abc"}
    candidates = [make_candidate("a", "b", 0.6), make_candidate("b", "c", 0.55)]
    view = GroupsView(lambda _pair: "pending")
    qtbot.addWidget(view)
    view.set_candidates(candidates, docs, set())
    view.larger_only.setChecked(False)
    view.select_link_row(0)  # a–b
    with qtbot.waitSignal(view.cuts_changed) as cut:
        qtbot.mouseClick(view.cut_button, Qt.MouseButton.LeftButton)
    assert cut.args == [{("a", "b")}]
    assert [g.members for g in view.groups()] == [("b", "c")]
    rows = [view.links_model.row(r)[:3] for r in range(view.links_model.rowCount())]
    assert ("cut", "a", "b") in rows  # still listed, as a cut link
    view.select_link_row(rows.index(("cut", "a", "b")))
    view.restore_current_link()
    assert [g.members for g in view.groups()] == [("a", "b", "c")]


def test_the_window_groups_a_real_chain_and_keeps_cut_links_in_the_session(make_window, tmp_path, qtbot) -> None:
    source = chain_folder(tmp_path / "chain")
    window = make_window(source)
    window.params_panel.set_params(ScreenParams(method=METHOD_JACCARD))  # exact: no LSH luck involved
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        window.start_screen()
    names = {d.doc_id: d.path for d in window.outcome.documents}
    assert sorted((names[c.left], names[c.right]) for c in window.outcome.candidates) == [
        ("a.txt", "b.txt"), ("b.txt", "c.txt"),
    ]  # fmt: skip
    view = window.overview.groups_view
    window.tabs.setCurrentWidget(view)  # grouping runs when the tab is first shown
    qtbot.waitUntil(lambda: len(view.groups()) == 1, timeout=SCREEN_TIMEOUT_MS)
    (group,) = view.groups()
    assert [names[m] for m in group.members] == ["a.txt", "b.txt", "c.txt"]
    assert [(names[i.left], names[i.right]) for i in group.indirect] == [("a.txt", "c.txt")]
    view.select_link_row(1)  # b–c
    link = view.links_model.row(1)[3]
    qtbot.mouseClick(view.links_table.viewport(), Qt.MouseButton.LeftButton,
                     pos=view.links_table.visualRect(view.links_model.index(1, 0)).center())  # fmt: skip
    assert window.candidate_view.current_candidate().key == link.key  # the click shows the pair below
    view.cut_current_link()
    qtbot.waitUntil(lambda: view.groups() == [], timeout=SCREEN_TIMEOUT_MS)  # no group of three left
    assert cuts_from_text(window.review.store.ui_value(GROUP_CUTS_KEY)) == {link.key}
    window.close()
    again = make_window(source)
    again.params_panel.set_params(ScreenParams(method=METHOD_JACCARD))
    with qtbot.waitSignal(again.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        again.start_screen()
    again.tabs.setCurrentWidget(again.overview.groups_view)
    qtbot.waitUntil(lambda: not again.jobs.busy("groups"), timeout=SCREEN_TIMEOUT_MS)
    assert again.overview.groups_view.cuts() == {link.key}
    assert again.overview.groups_view.groups() == []


def test_the_boilerplate_view_lists_the_column_header_of_the_sample(screened, qtbot, tmp_path: Path) -> None:
    window = screened
    view = window.overview.boilerplate_view
    window.tabs.setCurrentWidget(view)  # the search starts when the tab is first shown
    qtbot.waitUntil(lambda: view.model.rowCount() > 0, timeout=SCREEN_TIMEOUT_MS)
    passages = view.model.passages()
    header = next(p for p in passages if "【基层来稿】" in p.text)
    assert header.doc_count == 2
    where = view.model.where(header)
    assert "jiceng_choir_award.txt" in where and "基层来稿_桥头村道路硬化.txt" in where
    # Copies and versions are not boilerplate: no passage is a whole revised notice.
    assert not any("夜班编辑工作规范" in p.text for p in passages)
    assert "left out" in view.summary.text()
    window.tabs.setCurrentWidget(view)
    view.table.selectRow(passages.index(header))
    assert "【基层来稿】" in view.detail.toPlainText()
    out = tmp_path / "boilerplate.png"
    assert window.grab().save(str(out)) and QImage(str(out)).width() == 1400


def test_raising_the_minimum_document_count_recomputes_the_list(screened, qtbot) -> None:
    view = screened.overview.boilerplate_view
    screened.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.model.rowCount() > 0, timeout=SCREEN_TIMEOUT_MS)
    view.min_docs_spin.setValue(3)
    qtbot.waitUntil(lambda: "at least 3" in view.summary.text(), timeout=SCREEN_TIMEOUT_MS)
    assert all(p.doc_count >= 3 for p in view.model.passages())
    assert not any("【基层来稿】" in p.text for p in view.model.passages())


def test_a_large_folder_is_searched_for_boilerplate_in_an_even_sample_and_says_so(screened, qtbot, monkeypatch) -> None:
    from neardup_gui.ui import boilerplate_view as bv

    ids = [f"d{i:03d}" for i in range(100)]
    assert bv.boilerplate_sample(ids, 100) == ids
    picked = bv.boilerplate_sample(ids, 10)
    assert picked == [f"d{i:03d}" for i in range(0, 100, 10)]  # spread over the whole list, in order
    usable = sum(d.usable for d in screened.outcome.documents)
    monkeypatch.setattr(bv, "SAMPLE_DOCUMENTS", 8)
    view = screened.overview.boilerplate_view
    screened.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: "sample" in view.summary.text(), timeout=SCREEN_TIMEOUT_MS)
    assert f"holds {usable} documents" in view.summary.text() and "of 8 documents" in view.summary.text()
