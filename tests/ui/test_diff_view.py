"""The dual-pane diff: literal text, highlights on the right characters, navigation, stale answers."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QTextCursor

from neardup_gui.core.diffspans import pair_diff
from neardup_gui.core.normalize import normalize
from neardup_gui.core.records import FLAG_NUMBER_CHANGED, FlagEvidence, NormalizeOptions
from neardup_gui.ui.diff_highlights import insertion_points
from neardup_gui.ui.diff_pane import DiffPane, Highlight
from neardup_gui.ui.diff_view import BACKGROUND_CHARS, DiffView, PairRequest
from neardup_gui.ui.offsets import OffsetMap
from neardup_gui.ui.palette import BACKGROUND, INSERTION_COLOR, HighlightKind
from ui_factories import make_candidate, make_document

OPTIONS = NormalizeOptions()
SHARED = "柳塘街道首家社区食堂在杏园社区党群服务中心一楼正式开业，食堂营业面积约260平方米。"
TAIL = "记者在现场看到，取餐区按荤菜、素菜、主食、汤品分列，每道菜旁都标有价格和主要食材。"


def request(left: str, right: str, *, evidence: tuple[FlagEvidence, ...] = ()) -> PairRequest:
    candidate = make_candidate("l", "r", 0.8, evidence=evidence, flags=tuple(e.flag for e in evidence))
    return PairRequest(
        candidate=candidate,
        left_doc=make_document("l", "a/left.txt"),
        right_doc=make_document("r", "b/right.txt"),
        left_text=left,
        right_text=right,
        options=OPTIONS,
        min_len=5,
    )


def shown(qtbot, view: DiffView, req: PairRequest) -> None:
    with qtbot.waitSignal(view.pair_drawn, timeout=10_000, check_params_cb=lambda rid: rid == view.request_id):
        view.show_pair(req)


def make_view(qtbot) -> DiffView:
    view = DiffView()
    qtbot.addWidget(view)
    view.resize(1000, 500)
    return view


def test_offset_map_counts_astral_characters_twice_and_crlf_once() -> None:
    text = "𠀀a\r\nb𠀁c"
    m = OffsetMap(text)
    assert [m.to_qt(i) for i in range(len(text) + 1)] == [0, 2, 3, 4, 4, 5, 7, 8]
    assert m.from_qt(2) == 1 and m.from_qt(4) == 4 and m.from_qt(7) == 6


def test_html_looking_text_is_shown_literally(qtbot) -> None:
    pane = DiffPane()
    qtbot.addWidget(pane)
    text = "<script>alert('x')</script>\n<b>粗体</b> &amp; 文本"
    pane.set_text(text)
    assert pane.toPlainText() == text
    assert "<b>" not in pane.document().toHtml()  # escaped, not interpreted
    assert pane.document().toHtml().count("&lt;b&gt;") == 1


def test_highlight_lands_on_the_right_text_after_cjk_extension_b_characters(qtbot) -> None:
    pane = DiffPane()
    qtbot.addWidget(pane)
    text = "𠀀𠀁𠀂\r\n前言𪚥" + SHARED + "\r\n𠀃结尾"
    start = text.index(SHARED)
    pane.set_text(text)
    pane.set_highlights([Highlight(HighlightKind.SHARED, start, start + len(SHARED))])
    (h,) = pane.highlights(HighlightKind.SHARED)
    assert pane.highlighted_text(h) == SHARED
    (painted,) = pane.painted_spans(HighlightKind.SHARED)  # what Qt paints, read back from its layouts
    assert text[painted[0] : painted[1]] == SHARED


def test_shared_passages_get_the_same_text_on_both_sides_and_changes_are_marked(qtbot) -> None:
    view = make_view(qtbot)
    left = "通知\n" + SHARED + "午餐套餐最低12元。" + TAIL
    right = "转载稿：\n" + SHARED + "午餐套餐最低15元。" + TAIL + "\n（来源：网站）"
    shown(qtbot, view, request(left, right))
    assert view.left.toPlainText() == left and view.right.toPlainText() == right
    left_shared = view.left.highlights(HighlightKind.SHARED)
    right_shared = view.right.highlights(HighlightKind.SHARED)
    assert len(left_shared) == len(right_shared) == view.overlap_count() >= 2
    for lh, rh in zip(left_shared, right_shared):
        assert normalize(view.left.highlighted_text(lh), OPTIONS).text == normalize(
            view.right.highlighted_text(rh), OPTIONS
        ).text
    covered = "".join(view.left.highlighted_text(h) for h in left_shared)
    assert SHARED[:20] in covered and TAIL[-20:-1] in covered
    changed = [view.right.highlighted_text(h) for h in view.right.highlights(HighlightKind.CHANGED)]
    assert "5" in "".join(changed)
    only_right = "".join(view.right.highlighted_text(h) for h in view.right.highlights(HighlightKind.UNIQUE))
    assert "来源" in only_right


def test_revision_flag_evidence_is_drawn_in_its_own_colour(qtbot) -> None:
    view = make_view(qtbot)
    left = SHARED + "票价为12元。" + TAIL
    right = SHARED + "票价为15元。" + TAIL
    number = (len(SHARED) + 3, len(SHARED) + 5)
    evidence = FlagEvidence(FLAG_NUMBER_CHANGED, left_spans=(number,), right_spans=(number,), note="12 → 15")
    shown(qtbot, view, request(left, right, evidence=(evidence,)))
    (lh,) = view.left.highlights(HighlightKind.REVISION)
    (rh,) = view.right.highlights(HighlightKind.REVISION)
    assert view.left.highlighted_text(lh) == "12" and view.right.highlighted_text(rh) == "15"
    assert "number changed" in lh.note


def test_next_and_previous_move_through_overlaps_on_both_sides(qtbot) -> None:
    view = make_view(qtbot)
    left = SHARED + "甲方案作废。" + TAIL + "乙" * 3 + SHARED[::-1]
    right = SHARED + "另有安排的说明文字。" + TAIL + "丙丁" * 20 + SHARED[::-1]
    shown(qtbot, view, request(left, right))
    count = view.overlap_count()
    assert count >= 2
    view.next_overlap()
    assert view.current_overlap() == 0
    view.next_overlap()
    assert view.current_overlap() == 1
    seg = view.diff.segments[1]
    assert view.left.current_span() == (seg.left_start, seg.left_end)
    assert view.right.current_span() == (seg.right_start, seg.right_end)
    view.previous_overlap()
    assert view.current_overlap() == 0
    assert view.position_label.text() == f"overlap 1 of {count}"


def _painted(pane: DiffPane, kind: HighlightKind) -> set[int]:
    return {i for start, end in pane.painted_spans(kind) for i in range(start, end)}


def test_the_current_passage_is_painted_under_its_changes_and_gives_its_colour_back_when_left(qtbot) -> None:
    # A reformatted copy: every digit full-width and a line break every 30 characters, so the
    # passages hold many small changes, all of which stay visible over the current passage.
    view = make_view(qtbot)
    body = (SHARED + "本期共计12家、3500人。" + TAIL) * 6
    left = body + "另起一段只在左边出现的说明文字，共有二十多个字。" + SHARED[::-1] * 3
    wide = (body + "右边在这里写的是完全不同的另一段话。" + SHARED[::-1] * 3).translate(
        str.maketrans({str(i): chr(0xFF10 + i) for i in range(10)})
    )
    right = "\n".join(wide[i : i + 30] for i in range(0, len(wide), 30))
    shown(qtbot, view, request(left, right))
    assert view.overlap_count() >= 2
    pane = view.right
    breaks = {i for i, ch in enumerate(right) if ch == "\n"}  # no colour of their own in Qt's layouts

    def painted(kind: HighlightKind) -> set[int]:
        return _painted(pane, kind) - breaks

    def passage(index: int) -> set[int]:
        seg = view.diff.segments[index]
        return set(range(seg.right_start, seg.right_end)) - breaks

    changed = painted(HighlightKind.CHANGED)
    assert len(view.diff.hunks) > 30 and changed
    view.go_to_overlap(0)
    assert painted(HighlightKind.CURRENT) == passage(0) - changed
    assert painted(HighlightKind.CHANGED) == changed  # every change inside it still shows
    view.go_to_overlap(1)
    assert painted(HighlightKind.CURRENT) == passage(1) - changed
    assert passage(0) - changed <= painted(HighlightKind.SHARED)  # its colour back
    assert painted(HighlightKind.CHANGED) == changed
    pane.set_current(None)
    assert not painted(HighlightKind.CURRENT)
    assert passage(1) - changed <= painted(HighlightKind.SHARED)
    # A pane with no other highlight: the mark comes and goes all the same.
    bare = DiffPane()
    qtbot.addWidget(bare)
    bare.set_text("第一行文字\n第二行文字")
    bare.set_current(2, 8)
    assert bare.painted_spans(HighlightKind.CURRENT) == [(2, 8)]
    bare.set_current(None)
    assert bare.painted_spans(HighlightKind.CURRENT) == []


def _colour_pixels(pane: DiffPane, kind: HighlightKind) -> int:
    """Pixels of the pane's viewport (every other one) painted in a highlight kind's colour."""
    image = pane.viewport().grab().toImage()
    colour = BACKGROUND[kind].rgb()
    return sum(image.pixel(x, y) == colour for y in range(0, image.height(), 2) for x in range(0, image.width(), 2))


def test_highlights_far_down_a_long_text_are_drawn_when_scrolled_to_and_replaced_ones_never_show(qtbot) -> None:
    pane = DiffPane()
    qtbot.addWidget(pane)
    pane.resize(600, 300)
    lines = [f"第{i:04d}行：社区食堂每周公布下周菜谱并设置意见簿。" for i in range(3000)]
    text = "\n".join(lines)
    pane.set_text(text)
    pane.show()
    qtbot.waitExposed(pane)
    far = text.index(lines[2500])
    pane.set_highlights([Highlight(HighlightKind.SHARED, far, far + len(lines[2500]))])
    assert _colour_pixels(pane, HighlightKind.SHARED) == 0  # that line is far below
    block = pane.document().findBlockByNumber(2500)
    assert block.layout().formats() == []  # and its formats are not set until it comes into view
    pane.scroll_offset_to_top(far)
    assert _colour_pixels(pane, HighlightKind.SHARED) > 100
    assert [f.start for f in block.layout().formats()] == [0]
    # New highlights: the line's old colour must not show, there or after scrolling away and back.
    pane.set_highlights([Highlight(HighlightKind.CHANGED, far + 3, far + 9)])
    assert _colour_pixels(pane, HighlightKind.SHARED) == 0 and _colour_pixels(pane, HighlightKind.CHANGED) > 20
    pane.scroll_offset_to_top(0)
    pane.set_highlights([])
    pane.scroll_offset_to_top(far)
    assert _colour_pixels(pane, HighlightKind.CHANGED) == 0
    pane.set_current(far, far + 5)
    assert _colour_pixels(pane, HighlightKind.CURRENT) > 20
    assert pane.painted_spans(HighlightKind.CURRENT) == [(far, far + 5)]


def test_clicking_a_shared_passage_moves_the_other_pane_to_its_twin(qtbot) -> None:
    view = make_view(qtbot)
    filler = "\n".join(f"第{i}行只在右边出现的说明文字。" for i in range(80))
    left = SHARED + TAIL
    right = filler + "\n" + SHARED + TAIL
    shown(qtbot, view, request(left, right))
    view.show()
    qtbot.waitExposed(view)
    assert view.right.verticalScrollBar().value() == 0
    cursor = QTextCursor(view.left.document())
    cursor.setPosition(3)
    point = view.left.cursorRect(cursor).center()
    qtbot.mouseClick(view.left.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(point.x(), point.y()))
    seg = view.diff.segments[view.current_overlap()]
    assert view.right.current_span() == (seg.right_start, seg.right_end)
    assert view.right.verticalScrollBar().value() > 0  # scrolled down to the twin


def test_long_pairs_are_compared_in_the_background_and_stale_answers_dropped(qtbot) -> None:
    view = make_view(qtbot)
    long_left = (SHARED + TAIL) * (BACKGROUND_CHARS // len(SHARED + TAIL) + 1)
    long_right = long_left.replace("12", "15")
    delivered: list[int] = []
    view._channel.diff_ready.connect(lambda rid, _diff: delivered.append(rid))
    first = view.show_pair(request(long_left, long_right))
    assert not view.is_drawn()  # texts are shown, highlights still being computed
    assert view.left.toPlainText() == long_left
    second_left, second_right = SHARED + "一", SHARED + "二"
    with qtbot.waitSignal(view.pair_drawn, timeout=10_000) as blocker:
        second = view.show_pair(request(second_left, second_right))
    assert blocker.args == [second] and second != first
    qtbot.waitUntil(lambda: first in delivered, timeout=10_000)  # the late answer arrived and was ignored
    assert view.left.toPlainText() == second_left
    assert view.overlap_count() == 1
    assert all(h.end <= len(second_left) for h in view.left.highlights())


def test_synchronized_scrolling_follows_the_twin_passage(qtbot) -> None:
    view = make_view(qtbot)
    lines = [f"第{i:03d}段：社区食堂每周公布下周菜谱并设置意见簿编号{i:03d}。" for i in range(120)]
    filler = [f"右侧独有的说明文字第{i:02d}行，内容与左边无关。" for i in range(40)]
    left, right = "\n".join(lines), "\n".join(filler + lines)
    shown(qtbot, view, request(left, right))
    view.show()
    qtbot.waitExposed(view)
    view.set_sync_scroll(True)
    target = left.index(lines[60])
    view.left.scroll_offset_to_top(target)  # as if the user scrolled the left pane there
    twin = view.twin_offset("left", view.left.top_offset())
    assert twin is not None and right[twin:].startswith(lines[60][:3])
    assert abs(view.right.top_offset() - twin) <= len(lines[60]) + 1
    view.set_sync_scroll(False)
    before = view.right.verticalScrollBar().value()
    view.left.scroll_offset_to_top(left.index(lines[90]))
    assert view.right.verticalScrollBar().value() == before


def test_an_inserted_word_gets_a_thin_marker_on_the_side_that_lacks_it(qtbot) -> None:
    view = make_view(qtbot)
    rule = "对已签发稿件仅作文字技术性修改的，需要重新履行签发手续。"
    left = SHARED + rule + TAIL
    right = SHARED + rule.replace("需要", "不需要") + TAIL + "\n（来源：青溪新闻网）"
    shown(qtbot, view, request(left, right))
    at_insertion = left.index("需要")
    assert at_insertion in view.left.insertions()  # 不 is only on the right
    assert len(left) - 1 <= max(view.left.insertions()) <= len(left)  # the source line, after the text
    assert view.right.insertions() == []  # the right lacks nothing
    view.show()
    qtbot.waitExposed(view)
    image = view.grab().toImage()
    rect = view.left.insertion_rect(at_insertion)
    centre = view.left.viewport().mapTo(view, rect.center())
    assert QColor(image.pixel(centre.x(), centre.y())).name() == INSERTION_COLOR.name()


def test_insertion_points_ignore_gaps_where_both_sides_differ() -> None:
    left = SHARED + "甲方案作废，另行通知各部门。" + TAIL
    right = SHARED + "乙方案照旧执行，不再另行安排。" + TAIL
    left_points, right_points = insertion_points(pair_diff(left, right, OPTIONS, min_len=5))
    assert left_points == [] and right_points == []


def test_extracted_documents_name_their_extractor_instead_of_an_encoding(qtbot) -> None:
    view = make_view(qtbot)
    req = request(SHARED, SHARED)
    docx = make_document("l", "a/通知.docx", encoding="", extractor="docx")
    view.show_pair(replace(req, left_doc=docx))
    assert "docx" in view.left_title.title() and "?" not in view.left_title.title()


def test_a_long_title_gives_way_in_its_folders_and_keeps_the_file_name_and_counts(qtbot) -> None:
    view = make_view(qtbot)
    view.show()
    req = request(SHARED, SHARED)
    deep = "/".join(["历史稿件", *(f"第{n}层归档目录" for n in range(12)), "old_estate_renovation_rev2.txt"])
    view.show_pair(replace(req, left_doc=make_document("l", deep, chars=1570)))
    title = view.left_title
    whole = title.title()
    assert deep in whole and whole.endswith("1,570 characters)")
    end = "/old_estate_renovation_rev2.txt   (历史稿件 v1, utf-8, 1,570 characters)"
    seen: list[str] = []
    for width in (1400, 800):  # each pane about half of it
        view.resize(width, 600)
        qtbot.waitUntil(lambda: title.text() not in seen and title.text() != whole)
        shown = title.text()
        seen.append(shown)
        assert "…" in shown and title.fontMetrics().horizontalAdvance(shown) <= title.contentsRect().width()
        assert shown.startswith("Left: 历史")
    assert seen[0].endswith(end) and "第11层归档目录" in seen[0]  # the folders' middle gave way, not the name
    # Then the counts: the name stays whole as long as it can.
    assert seen[1].endswith("/old_estate_renovation_rev2.txt")
    assert deep in title.toolTip()  # the whole title, as typed
    title.set_title("Left: " + "长" * 300)  # nothing named as the path: its end gives way
    assert title.text().startswith("Left: 长") and title.text().endswith("…")
    title.set_title("Left: a/short.txt", "a/short.txt")
    assert title.text() == "Left: a/short.txt"  # room enough: nothing left out


def test_a_side_without_text_is_not_compared(qtbot) -> None:
    view = make_view(qtbot)
    req = replace(request("", SHARED + TAIL), notice="Changed since the screen: a/left.txt")
    with qtbot.waitSignal(view.pair_drawn, timeout=10_000):
        view.show_pair(req)
    assert view.right.highlights() == [] and view.overlap_count() == 0
    assert not view.notice_label.isHidden() and "a/left.txt" in view.left.placeholderText()
