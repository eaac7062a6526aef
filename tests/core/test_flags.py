"""Flags that tell an editor what a similarity score hides (core.flags), on short Chinese texts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_gui.core.diffspans import pair_diff
from neardup_gui.core.flags import (
    FLAG_ORDER,
    TemplateIndex,
    annotate,
    contained_evidence,
    quotation_evidence,
    quote_spans,
    revision_evidence,
    template_evidence,
)
from neardup_gui.core.flags import lexicon
from neardup_gui.core.flags.tokens import parse_chinese_number, read_token, scan_spans, scan_tokens
from neardup_gui.core.normalize import normalize
from neardup_gui.core.records import (
    FLAG_CONDITION_CHANGED,
    FLAG_CONTAINED,
    FLAG_DATE_CHANGED,
    FLAG_EXACT_NORMALIZED,
    FLAG_NEGATION_CHANGED,
    FLAG_NUMBER_CHANGED,
    FLAG_QUOTATION,
    FLAG_TEMPLATE_ONLY,
    FLAG_UNIT_CHANGED,
    REVIEW_KEEP_BOTH,
    REVIEW_PENDING,
    REVIEW_PUBLIC_QUOTATION,
    REVIEW_SUGGEST_MERGE,
    REVIEW_VALID_REVISION,
    REVISION_FLAGS,
    Candidate,
    FlagEvidence,
)
from neardup_gui.core.shingles import shingle_set

K = 5


def hashes(text: str) -> np.ndarray:
    return shingle_set(normalize(text).cps, K)


def revisions(left: str, right: str) -> list[FlagEvidence]:
    return revision_evidence(left, right, pair_diff(left, right, min_len=K))


def only(evidence: list[FlagEvidence], flag: str) -> FlagEvidence:
    found = [ev for ev in evidence if ev.flag == flag]
    assert len(found) == 1, evidence
    return found[0]


def texts_at(text: str, spans: tuple[tuple[int, int], ...]) -> list[str]:
    return [text[s:e] for s, e in spans]


def candidate(left: str, right: str, flags: tuple[str, ...] = (), **extra) -> Candidate:
    a, b = hashes(left), hashes(right)
    shared = int(np.intersect1d(a, b, assume_unique=True).size)
    return Candidate(
        left="L", right="R", methods=("minhash",), jaccard=shared / (a.size + b.size - shared),
        containment_left=shared / a.size, containment_right=shared / b.size, minhash_estimate=None,
        shared_shingles=shared, shingles_left=int(a.size), shingles_right=int(b.size),
        length_ratio=min(a.size, b.size) / max(a.size, b.size), score=0.0, flags=flags, **extra,
    )


def annotated(left: str, right: str, template: TemplateIndex | None = None, **kw) -> Candidate:
    return annotate(
        candidate(left, right, **kw), left, right, pair_diff(left, right, min_len=K),
        left_hashes=hashes(left), right_hashes=hashes(right), template=template,
    )


# ---------------------------------------------------------------------------
# Numbers, dates, units

BUDGET = "青溪市城建局近日发布通知，本项目总预算为300万元，由市财政拨付，工期为18个月，完工后交由街道管理。"


def test_changed_number_spans_cover_the_whole_numbers_on_both_sides() -> None:
    changed = BUDGET.replace("300万元", "350万元")
    ev = only(revisions(BUDGET, changed), FLAG_NUMBER_CHANGED)
    assert texts_at(BUDGET, ev.left_spans) == ["300"]
    assert texts_at(changed, ev.right_spans) == ["350"]
    assert "300万元" in ev.note and "350万元" in ev.note
    assert {e.flag for e in revisions(BUDGET, changed)} == {FLAG_NUMBER_CHANGED}


def test_changed_decimal_with_thousands_separator_is_read_as_one_number() -> None:
    left = BUDGET.replace("300万元", "1,200万元")
    right = BUDGET.replace("300万元", "1,250.5万元")
    ev = only(revisions(left, right), FLAG_NUMBER_CHANGED)
    assert texts_at(left, ev.left_spans) == ["1,200"]
    assert texts_at(right, ev.right_spans) == ["1,250.5"]


def test_changed_chinese_numeral_is_a_number_change() -> None:
    left = BUDGET.replace("300万元", "一百二十万元")
    right = BUDGET.replace("300万元", "一百五十万元")
    ev = only(revisions(left, right), FLAG_NUMBER_CHANGED)
    assert texts_at(left, ev.left_spans) == ["一百二十"]
    assert texts_at(right, ev.right_spans) == ["一百五十"]


@pytest.mark.parametrize(
    "left, right",
    [
        ("300万元", "３００万元"),  # full-width digits
        ("1,200万元", "1200万元"),  # thousands separator
        ("3万元", "30000元"),  # the same amount with and without magnitude
        ("300万元", "三百万元"),  # Chinese numerals
        ("5公里", "5km"),  # the same unit spelled differently
    ],
)
def test_same_value_written_differently_is_not_a_revision(left: str, right: str) -> None:
    a, b = BUDGET.replace("300万元", left), BUDGET.replace("300万元", right)
    assert revisions(a, b) == []


def test_full_width_digits_against_half_width_are_not_a_number_change() -> None:
    half = "本项目总预算为300万元，由市财政拨付，工期为18个月，完工后交由街道管理。"
    full = "本项目总预算为３００万元，由市财政拨付，工期为１８个月，完工后交由街道管理。"
    assert revisions(half, full) == []
    assert annotated(half, full).suggestion != REVIEW_VALID_REVISION


def test_changed_date_is_one_date_flag_covering_the_whole_date() -> None:
    left = "经研究决定，会议定于2023年5月16日在市政府三楼会议室召开，请各单位负责人准时参加。"
    right = left.replace("2023年5月16日", "2023年6月16日")
    found = revisions(left, right)
    assert [e.flag for e in found] == [FLAG_DATE_CHANGED]  # a date wins over a plain number change
    assert texts_at(left, found[0].left_spans) == ["2023年5月16日"]
    assert texts_at(right, found[0].right_spans) == ["2023年6月16日"]


@pytest.mark.parametrize(
    "before, after",
    [("2023年5月16日", "2023-05-16"), ("2023年5月16日", "2023年5月16号"), ("2023年5月16日9时", "2023年5月16日9点")],
)
def test_same_date_in_another_notation_is_not_a_change(before: str, after: str) -> None:
    left = "经研究决定，会议定于2023年5月16日在市政府三楼会议室召开，请各单位负责人准时参加。".replace(
        "2023年5月16日", before
    )
    right = left.replace(before, after)
    assert revisions(left, right) == []


@pytest.mark.parametrize(
    "before, after, left_text, right_text",
    [
        ("上午9时", "下午9时", "上午9时", "下午9时"),
        ("星期三上午", "星期四上午", "星期三上午", "星期四上午"),
        ("五月", "六月", "五月", "六月"),
        ("9:30", "10:30", "9:30", "10:30"),
    ],
)
def test_changed_weekday_time_or_month_is_a_date_change(before, after, left_text, right_text) -> None:
    left = f"根据工作安排，调度会定于{before}召开，各部门负责人须提前十分钟到场签到。"
    right = left.replace(before, after)
    ev = only(revisions(left, right), FLAG_DATE_CHANGED)
    assert texts_at(left, ev.left_spans) == [left_text]
    assert texts_at(right, ev.right_spans) == [right_text]


def test_seed_frequency_change_every_week_to_every_day_is_a_date_change() -> None:
    a = "资料整理说明：先备份原始稿件，再登记来源与版本。每周归档一次，保留修改记录。"
    c = "资料整理说明：先备份原始稿件，再登记来源与版本。每天归档一次，保留修改记录。"
    ev = only(revisions(a, c), FLAG_DATE_CHANGED)
    assert texts_at(a, ev.left_spans) == ["每周"]
    assert texts_at(c, ev.right_spans) == ["每天"]


def test_changed_unit_is_a_unit_change_not_a_number_change() -> None:
    changed = BUDGET.replace("300万元", "300亿元")
    found = revisions(BUDGET, changed)
    assert [e.flag for e in found] == [FLAG_UNIT_CHANGED]
    assert texts_at(BUDGET, found[0].left_spans) == ["万元"]
    assert texts_at(changed, found[0].right_spans) == ["亿元"]


@pytest.mark.parametrize(
    "before, after, left_unit, right_unit",
    [
        ("30吨", "30公斤", "吨", "公斤"),
        ("5%", "5‰", "%", "‰"),
        ("300平方米", "300平方公里", "平方米", "平方公里"),
        ("30元", "30美元", "元", "美元"),
    ],
)
def test_unit_next_to_a_number_differs(before, after, left_unit, right_unit) -> None:
    left = f"据统计，该项指标今年达到{before}，主管部门将在下一阶段继续跟踪评估。"
    right = left.replace(before, after)
    ev = only(revisions(left, right), FLAG_UNIT_CHANGED)
    assert texts_at(left, ev.left_spans) == [left_unit]
    assert texts_at(right, ev.right_spans) == [right_unit]
    assert not [e for e in revisions(left, right) if e.flag == FLAG_NUMBER_CHANGED]


def test_removed_number_has_a_zero_length_span_at_the_removal_point() -> None:
    left = "据统计，本次培训共有300人参加，学员普遍反映课程内容实用、安排合理。"
    right = left.replace("300人", "人")
    ev = only(revisions(left, right), FLAG_NUMBER_CHANGED)
    assert texts_at(left, ev.left_spans) == ["300"]
    (point,) = ev.right_spans
    assert point[0] == point[1] == right.index("人参加")


def test_change_in_the_last_characters_of_a_notice_is_still_read() -> None:
    # The date line at the end is shorter than a shingle; it lies outside every matched region.
    left = "各部门：\n定于下周开展防汛应急演练，请各部门按要求做好准备。\n\n青溪日报社办公室\n2024年7月8日"
    right = left.replace("7月8日", "7月9日")
    ev = only(revisions(left, right), FLAG_DATE_CHANGED)
    assert texts_at(left, ev.left_spans) == ["2024年7月8日"]
    assert texts_at(right, ev.right_spans) == ["2024年7月9日"]


def test_line_break_from_hard_wrapping_inside_a_number_is_no_change() -> None:
    left = "剪纸艺人李秀英从事剪纸创作已有五十年，作品多次在省市展览中获奖，深受学生喜爱。"
    right = left.replace("五十年", "五\n十年")
    assert revisions(left, right) == []


# ---------------------------------------------------------------------------
# Negation and conditions

SEED_A = "报销单提交后需要直属主管审批，批准后才能付款。"
SEED_C = "报销单提交后不需要直属主管审批，批准后才能付款。"


def test_inserted_bu_from_the_seed_counter_example_is_a_negation_change() -> None:
    found = revisions(SEED_A, SEED_C)
    ev = only(found, FLAG_NEGATION_CHANGED)
    # Insertion convention: zero-length span where the word is missing, the word on the other side.
    assert ev.left_spans == ((6, 6),)
    assert texts_at(SEED_C, ev.right_spans) == ["不"]
    assert [e.flag for e in found] == [FLAG_NEGATION_CHANGED]


def test_removed_negation_is_mirrored() -> None:
    ev = only(revisions(SEED_C, SEED_A), FLAG_NEGATION_CHANGED)
    assert texts_at(SEED_C, ev.left_spans) == ["不"]
    assert ev.right_spans == ((6, 6),)


def test_allowed_to_forbidden_is_a_negation_change_and_not_also_a_condition_change() -> None:
    left = "根据管理规定，园区内允许外来车辆通行，访客在门口登记后方可进入。"
    right = left.replace("允许", "禁止")
    found = revisions(left, right)
    assert [e.flag for e in found] == [FLAG_NEGATION_CHANGED]
    assert texts_at(left, found[0].left_spans) == ["允许"]
    assert texts_at(right, found[0].right_spans) == ["禁止"]


def test_one_prohibition_word_replaced_by_another_is_no_change() -> None:
    left = "根据管理规定，园区内不得停放外来车辆，访客在门口登记后方可进入。"
    right = left.replace("不得", "禁止")
    assert revisions(left, right) == []


@pytest.mark.parametrize(
    "left, right",
    [
        ("社区工作取得新进展，居民满意度持续提高。", "社区工作不断取得新进展，居民满意度持续提高。"),
        ("刮风下雨，巡查人员每天都要按时到岗签到。", "无论刮风下雨，巡查人员每天都要按时到岗签到。"),
        ("这项改革措施对老旧小区居民重要，需要持续推进。", "这项改革措施对老旧小区居民非常重要，需要持续推进。"),
        ("三年将改造老旧小区，计划已经上报市政府审批。", "未来三年将改造老旧小区，计划已经上报市政府审批。"),
        ("园区已经实现网络全覆盖，方便企业办公。", "园区已经实现无线网络全覆盖，方便企业办公。"),
        ("请窗口人员核实申报材料齐全后再受理。", "请窗口人员核实申报材料是否齐全后再受理。"),
    ],
)
def test_words_that_only_look_like_negations_do_not_trigger(left: str, right: str) -> None:
    assert [e for e in revisions(left, right) if e.flag == FLAG_NEGATION_CHANGED] == []


def test_modal_swap_must_to_may_is_a_condition_change() -> None:
    left = "根据实施细则，各单位应当在每季度末报送统计报表，逾期将予以通报。"
    right = left.replace("应当", "可以")
    ev = only(revisions(left, right), FLAG_CONDITION_CHANGED)
    assert texts_at(left, ev.left_spans) == ["应当"]
    assert texts_at(right, ev.right_spans) == ["可以"]


def test_inserted_condition_is_a_condition_change() -> None:
    left = "经街道审核后，申请人可以领取一次性补贴，具体标准见附件。"
    right = left.replace("申请人", "如果符合条件，申请人")
    ev = only(revisions(left, right), FLAG_CONDITION_CHANGED)
    assert texts_at(right, ev.right_spans) == ["如果符合条件，"]
    (point,) = ev.left_spans
    assert point[0] == point[1] == left.index("申请人")


def test_identical_texts_get_no_revision_flags() -> None:
    assert revisions(BUDGET, BUDGET) == []
    assert revisions(SEED_A, SEED_A) == []
    assert not set(annotated(BUDGET, BUDGET).flags) & set(REVISION_FLAGS)


# ---------------------------------------------------------------------------
# Tokens


def test_chinese_numerals_are_read_as_values() -> None:
    assert parse_chinese_number("三百二十") == 320
    assert parse_chinese_number("一万五千") == 15000
    assert parse_chinese_number("一亿二千万") == 120_000_000
    assert parse_chinese_number("二〇二三") == 2023
    assert parse_chinese_number("十五") == 15


def test_numeral_words_are_not_quantities() -> None:
    text = "统一部署，一些单位十分重视，万一出现问题，一起研究解决。"
    assert scan_tokens(text, 0, len(text)) == []


def test_fast_scanner_finds_what_the_plain_grammar_finds() -> None:
    text = (
        "2023年5月16日（星期二）上午9时30分，青溪市召开会议。全市投入3.5亿元，改造1100多户、"
        "三百万元、百分之三十、三分之一、第三条、4.6公里、5 km、一些、统一、两成、下月、每周、2024-03-05、9:30。"
    )
    reference = []
    for m in lexicon.TOKEN_RE.finditer(text):
        kind = "date" if m.lastgroup in lexicon.DATE_KINDS else m.lastgroup
        prev = reference[-1] if reference else None
        if kind == "date" and prev and prev[2] == "date" and all(
            c in lexicon.DATE_JOINERS for c in text[prev[1] : m.start()]
        ) and m.start() - prev[1] <= 2:
            reference[-1] = (prev[0], m.end(), "date", prev[3] + ((m.lastgroup, m.start(), m.end()),))
        else:
            reference.append((m.start(), m.end(), kind, ((m.lastgroup, m.start(), m.end()),)))
    expected = [t for t in (read_token(text, r) for r in reference) if t is not None]
    assert scan_tokens(text, 0, len(text)) == expected
    assert [t.text for t in expected][:2] == ["2023年5月16日（星期二）上午9时30分", "3.5亿元"]
    assert len(scan_spans(text, 0, len(text))) <= len(reference)


TOKEN_TEXT = st.text(st.sampled_from(list("0123456789一二三十百万亿年月日时分号第上午星期（） .元%会议的")), max_size=60)


@settings(max_examples=300, deadline=None)
@given(TOKEN_TEXT, st.integers(0, 60), st.integers(0, 60), st.integers(0, 60))
def test_a_scan_stopped_after_a_position_finds_every_token_starting_up_to_it_in_full(
    text: str, lo: int, hi: int, until: int
) -> None:
    # The revision check reads only the tokens touching a change: it stops scanning after the
    # change's end, but a date whose later parts lie beyond it must still be read whole.
    lo, hi = min(lo, len(text)), min(max(lo, hi), len(text))
    full = [r for r in scan_spans(text, lo, hi) if r[0] <= until]
    assert [r for r in scan_spans(text, lo, hi, until=until) if r[0] <= until] == full


def test_a_date_is_read_whole_when_the_scan_stops_inside_it() -> None:
    text = "会议于2023年5月16日（星期二）上午9时召开，投入3万元。"
    whole = scan_spans(text, 0, len(text))
    assert whole[0][:2] == (3, text.index("召"))  # one date, from the year to the hour
    for until in range(len(text)):
        assert [r for r in scan_spans(text, 0, len(text), until=until) if r[0] <= until] == [
            r for r in whole if r[0] <= until
        ]


TOUCH_TEXT = st.text(
    st.sampled_from(list("0123456789０３一二三十百万年月日时分号第上午星期（）( ) .,．%元米平方公里吨人个会议的，。、在")),
    max_size=80,
)


def _touching_both_ways(text: str, s: int, e: int) -> tuple[list, list]:
    from neardup_gui.core.flags.revision import _TokenCache

    window, whole = _TokenCache(text, 0), _TokenCache(text, len(text) + 1)
    window.whole = False  # short texts are scanned whole when changed at all; here, the window
    assert whole.whole
    return window.touching(s, e), whole.touching(s, e)


@settings(max_examples=400, deadline=None)
@given(TOUCH_TEXT, st.integers(0, 80), st.integers(0, 8))
def test_the_tokens_around_a_change_are_those_a_scan_of_the_whole_text_finds(text: str, s: int, width: int) -> None:
    # A change's tokens are read from a window that starts after the last character no token can
    # hold (TOKEN_OUTSIDE): a number, unit or date running into the change is read whole.
    s = min(s, len(text))
    e = min(s + width, len(text))
    near, whole = _touching_both_ways(text, s, e)
    assert near == whole


def test_a_unit_or_date_running_into_a_change_is_read_whole() -> None:
    text = "会议确认面积为3平方公里，日期为2023年5月16日（星期二）上午。"
    for piece in ("3平方公里", "2023年5月16日（星期二）上午"):
        end = text.index(piece) + len(piece)
        near, whole = _touching_both_ways(text, end, end)  # an insertion right after it
        assert [t.text for t in near] == [t.text for t in whole] == [piece]
    outside = {chr(cp) for cp, flag in enumerate(lexicon.TOKEN_OUTSIDE) if flag}
    assert not set("0１一万年月日时分第（）() ,.．%元米平方公里吨人个") & outside
    assert set("的，。、会议在") <= outside


def _grammar_can_match(pattern: str) -> tuple[set[str], list[tuple[int, int]]]:
    """Characters and code point ranges the parsed regex can consume or look at (a superset)."""
    import re._constants as c
    import re._parser as sre

    chars: set[str] = set()
    ranges: list[tuple[int, int]] = []

    def walk(items) -> None:
        for op, av in items:
            if op is c.LITERAL:
                chars.add(chr(av))
            elif op is c.IN:
                for iop, iav in av:
                    if iop is c.LITERAL:
                        chars.add(chr(iav))
                    elif iop is c.RANGE:
                        ranges.append(iav)
                    else:  # a class (only \s so far) or a negated set
                        assert iop is c.CATEGORY and iav is c.CATEGORY_SPACE, (iop, iav)
            elif op in (c.SUBPATTERN, c.MAX_REPEAT, c.MIN_REPEAT):
                walk(av[-1])
            elif op is c.BRANCH:
                for branch in av[1]:
                    walk(branch)
            elif op in (c.ASSERT, c.ASSERT_NOT):
                walk(av[1])
            else:  # anything else (., a back-reference...) would need this test extended
                assert op is c.AT, op

    walk(sre.parse(pattern))
    return chars, ranges


def test_no_character_a_token_can_hold_counts_as_outside_every_token() -> None:
    chars, ranges = _grammar_can_match(lexicon.TOKEN_RE.pattern)
    inside = chars | lexicon.DATE_JOINERS | set(",.．")
    inside |= {chr(cp) for lo, hi in ranges for cp in range(lo, hi + 1)}
    outside = {chr(cp) for cp, flag in enumerate(lexicon.TOKEN_OUTSIDE) if flag}
    assert not outside & inside
    assert not any(ch.isspace() or ch.lower() != ch or ch.upper() != ch for ch in outside)  # no \s, no case
    assert len(outside) > 20_000  # the common ideographs and punctuation are there


# ---------------------------------------------------------------------------
# Template, quotation, containment

HEADER = (
    "【基层来稿】栏目说明\n本栏目刊登各街道、乡镇和部门通讯员报送的基层动态，稿件经编辑部核实后择优采用。\n"
    "免责声明：来稿内容由报送单位负责，文中数据以报送单位公布的为准，不代表本报观点。\n\n"
)
BODIES = [
    "桥头村通组道路完成硬化，货车可以直接开进村民小组，毛竹运费降低了近一半，村民出行更加方便。",
    "银龄合唱团在全市社区文艺展演中获奖，团员平均年龄六十七岁，每周两次准时到活动室排练。",
    "柳塘街道开设长者食堂，老人在家门口就能吃上热乎饭菜，志愿者还为行动不便的老人送餐上门。",
    "桥南镇举办农村电商培训班，学员学习网店运营和直播带货，结业后不少人开起了自己的网店。",
    "杏花苑小区试行垃圾定时定点投放，督导员守在投放点旁提醒居民分类，厨余垃圾分出率明显提高。",
]
COLUMN_DOCS = [HEADER + body for body in BODIES]


def column_index() -> TemplateIndex:
    return TemplateIndex.build([hashes(t) for t in COLUMN_DOCS], k=K)


def test_template_index_finds_the_header_shared_by_the_column_and_nothing_else() -> None:
    index = column_index()
    header_hashes = hashes(HEADER)
    assert not index.is_empty()
    assert np.isin(index.boilerplate, header_hashes).all()
    assert index.boilerplate.dtype == np.uint64 and np.all(np.diff(index.boilerplate.astype(np.float64)) > 0)
    left, right = hashes(COLUMN_DOCS[0]), hashes(COLUMN_DOCS[1])
    assert index.boilerplate_share(left, right) == 1.0
    assert index.jaccard_without(left, right) == 0.0


def test_template_index_needs_enough_documents() -> None:
    docs = [hashes(t) for t in COLUMN_DOCS]
    assert TemplateIndex.build(docs[:2], min_docs=3).is_empty()
    assert TemplateIndex.build(docs, min_docs=3, min_share=0.9).boilerplate.size > 0  # in all 5 of 5
    assert TemplateIndex.build(docs, min_docs=6).is_empty()


@pytest.mark.parametrize("part_hashes", [1 << 21, 700, 5000])
def test_template_counts_are_exact_however_the_hash_range_is_cut(monkeypatch, part_hashes) -> None:
    """Long documents make most hash buckets look frequent; the exact count then runs one range of
    hash values at a time. Cut into 1, ~64 or ~8 ranges, every count is what a plain count gives,
    hashes at both ends of the range and exact copies (counted once) included."""
    from neardup_gui.core.flags import template as template_mod

    monkeypatch.setattr(template_mod, "_PART_HASHES", part_hashes)
    rng = np.random.default_rng(3)
    shared = rng.integers(0, 2**64 - 1, 4000, dtype=np.uint64, endpoint=True)
    shared[:2] = [0, 2**64 - 1]
    docs = []
    for i in range(60):
        own = rng.integers(0, 2**64 - 1, 600, dtype=np.uint64, endpoint=True)
        common = shared[rng.random(shared.size) < (0.9 if i < 5 else 0.15)]
        docs.append(np.unique(np.concatenate([own, common, shared[:2]])))
    docs += [docs[0], docs[1]]  # exact copies: not counted again
    index = TemplateIndex.build(docs, min_docs=4, min_share=0.0)
    values, counts = np.unique(np.concatenate(docs[:60]), return_counts=True)
    assert index.documents == 60
    assert np.array_equal(index.boilerplate, values[counts >= 4])
    assert np.array_equal(index.doc_counts, counts[counts >= 4])
    assert index.boilerplate[0] == 0 and index.boilerplate[-1] == 2**64 - 1 and index.doc_counts[0] == 60
    runs = list(template_mod._chunks(docs))  # what is concatenated at once, in both passes
    assert [id(h) for run in runs for h in run] == [id(h) for h in docs if h.size]
    assert all(len(run) == 1 or sum(h.size for h in run) <= part_hashes for run in runs)


def test_copies_of_one_article_are_not_boilerplate() -> None:
    docs = [hashes(BODIES[0])] * 3 + [hashes(t) for t in BODIES[1:]]
    index = TemplateIndex.build(docs, min_docs=3)
    assert index.documents == len(BODIES)  # the three copies count once
    assert index.is_empty()


def test_two_files_sharing_only_the_column_header_are_template_only() -> None:
    left, right = COLUMN_DOCS[0], COLUMN_DOCS[1]
    index = column_index()
    diff = pair_diff(left, right, min_len=K)
    ev = template_evidence(left, right, diff, hashes(left), hashes(right), index)
    assert ev is not None and ev.flag == FLAG_TEMPLATE_ONLY
    assert "boilerplate" in ev.note
    shown = "".join(texts_at(left, ev.left_spans))
    assert "免责声明" in shown and "择优采用" in shown
    assert all(e <= len(HEADER) for _, e in ev.left_spans)
    assert all(e <= len(HEADER) for _, e in ev.right_spans)
    result = annotated(left, right, template=index)
    assert result.flags == (FLAG_TEMPLATE_ONLY,)  # a shared header is not a quotation
    assert result.suggestion == REVIEW_KEEP_BOTH


def test_header_and_footer_shared_by_just_two_files_are_template_only_from_the_layout() -> None:
    footer = "\n——————————\n版权声明：本栏目稿件版权归青溪日报社所有，未经书面授权，任何单位和个人不得转载、摘编。"
    left, right = COLUMN_DOCS[0] + footer, COLUMN_DOCS[1] + footer
    ev = template_evidence(left, right, pair_diff(left, right, min_len=K), None, None, None)
    assert ev is not None and ev.flag == FLAG_TEMPLATE_ONLY
    assert any("版权声明" in t for t in texts_at(left, ev.left_spans))


def test_copies_with_a_frequent_text_are_not_template_only() -> None:
    index = TemplateIndex.build([hashes(COLUMN_DOCS[0])] + [hashes(t) for t in COLUMN_DOCS], min_docs=2, k=K)
    left = COLUMN_DOCS[0]
    right = "来源：青溪新闻网\n" + COLUMN_DOCS[0]
    result = annotated(left, right, template=index)
    assert FLAG_TEMPLATE_ONLY not in result.flags


def test_boilerplate_passages_read_back_as_raw_text_with_their_documents() -> None:
    index = column_index()
    texts = {f"doc{i}": t for i, t in enumerate(COLUMN_DOCS)}
    passages = index.passages(texts, None, K)
    assert passages, "the header should be listed"
    top = passages[0]
    assert top.doc_count == len(COLUMN_DOCS)
    assert top.doc_ids[0] == top.doc_id == "doc0" and len(top.doc_ids) == 5
    assert top.text == COLUMN_DOCS[0][top.start : top.end]
    assert top.text.startswith("基层来稿") and "不代表本报观点" in top.text


REGULATION = (
    "产生生活垃圾的单位和个人，应当按照本市公布的分类标准，将生活垃圾分别投放至相应的收集容器或者指定的投放点"
)
ARTICLE_A = (
    "杏花苑小区试行定时定点投放已经三个月。社区在每个投放点张贴了分类指南，还把管理办法的有关条款印在宣传栏上：“"
    + REGULATION
    + "。”督导员每天早晚轮流值守，提醒居民分类投放，对投放不准确的垃圾进行二次分拣，厨余垃圾分出率明显提高。"
)
ARTICLE_B = (
    "美食街推行垃圾分类半年来，执法人员逐户上门向商户发放告知书。告知书首页写明：“"
    + REGULATION
    + "。”商户被要求把废弃食用油脂单独收集，交由有资质的单位回收处理，周边居民关于异味的投诉明显减少。"
)


def test_shared_quoted_paragraph_between_two_different_articles_is_a_quotation() -> None:
    diff = pair_diff(ARTICLE_A, ARTICLE_B, min_len=K)
    ev = quotation_evidence(ARTICLE_A, ARTICLE_B, diff)
    assert ev is not None and ev.flag == FLAG_QUOTATION
    assert texts_at(ARTICLE_A, ev.left_spans) == [REGULATION]
    assert texts_at(ARTICLE_B, ev.right_spans) == [REGULATION]
    result = annotated(ARTICLE_A, ARTICLE_B)
    assert result.flags == (FLAG_QUOTATION,)
    assert result.suggestion == REVIEW_PUBLIC_QUOTATION


def test_a_long_shared_passage_inside_quotation_marks_is_still_a_quotation() -> None:
    speech = REGULATION + "。厨余垃圾应当沥干水分、去除包装物后投放；有害垃圾应当保持完整，防止破损或者泄漏。"
    left = "市长在会上说：“" + speech + "”会后各区开始部署。"
    right = (
        "记者注意到，新规第十八条写道「" + speech + "」这一条款被居民广泛讨论。不少小区据此修改了宣传材料和投放指南，"
        "物业公司也调整了垃圾桶的摆放位置，在每个投放点增设了洗手池和照明灯，方便居民晚上投放垃圾。"
    )
    diff = pair_diff(left, right, min_len=K)
    assert len(left) * 0.35 < len(speech)  # too large a share of the left text for an unquoted passage
    ev = quotation_evidence(left, right, diff)
    assert ev is not None and "quotation marks" in ev.note
    assert texts_at(right, ev.right_spans)[0].startswith(REGULATION)


NEWS_LEFT = (
    "城东街道今年在十二个小区推行垃圾分类，街道办事处组织志愿者入户宣传，并根据规定要求" + REGULATION
    + "，居民参与率稳步上升，相关做法将在全区推广。"
)  # fmt: skip
NEWS_RIGHT = (
    "美食街商户联合会近日召开会议，会上宣读了条例第十八条，其中明确" + REGULATION
    + "，与会商户纷纷表示将配合执法人员的检查，按时完成整改。"
)  # fmt: skip


def test_one_unquoted_shared_passage_that_is_a_small_part_of_both_is_a_quotation_with_its_spans() -> None:
    left = NEWS_LEFT + "下一步，街道还将在背街小巷增设回收点，方便老年居民就近投放，并定期公布各小区的分类成绩。"
    right = NEWS_RIGHT + "联合会还请来环保企业，介绍了废弃油脂的回收流程和费用标准，并为商户统一采购了带盖的分类桶。"
    assert "“" not in left + right and len(REGULATION) < 0.35 * min(len(left), len(right))
    ev = quotation_evidence(left, right, pair_diff(left, right, min_len=K))
    assert ev is not None and ev.note.startswith("one shared passage, 33% of the left and 34% of the right")
    assert texts_at(left, ev.left_spans) == [REGULATION]
    assert texts_at(right, ev.right_spans) == [REGULATION]


def test_white_space_around_a_text_does_not_make_its_shared_passage_a_smaller_share() -> None:
    # The passage is 45 % of each text: not a quotation, however many blank lines pad them.
    assert quotation_evidence(NEWS_LEFT, NEWS_RIGHT, pair_diff(NEWS_LEFT, NEWS_RIGHT, min_len=K)) is None
    left, right = "\n\n  " + NEWS_LEFT + " \n" * 60, "\u3000" * 40 + NEWS_RIGHT + "\r\n" * 30
    assert len(REGULATION) < 0.35 * min(len(left), len(right))
    assert quotation_evidence(left, right, pair_diff(left, right, min_len=K)) is None


def test_most_of_both_documents_shared_is_not_a_quotation() -> None:
    left = ARTICLE_A
    right = ARTICLE_A.replace("三个月", "半年")
    assert quotation_evidence(left, right, pair_diff(left, right, min_len=K)) is None


def test_quote_spans_cover_the_text_between_the_marks() -> None:
    text = "他说：“第一段\n“第二段”。书名《青溪志》和「引文」"
    spans = [text[s:e] for s, e in quote_spans(text)]
    assert spans == ["第一段", "第二段", "青溪志", "引文"]


LONG = (
    "雨污分流改造是老城区排水系统的一次大手术。过去雨水和污水共用一根管道，暴雨时污水漫溢，河道水质反复变差。\n"
    "施工队先用管道机器人摸清地下管网，再逐段开挖敷设新管，每完成一段就及时恢复路面，尽量减少对居民出行的影响。\n"
    "改造完成后，小区积水点全部消除，附近河道的水质也由劣五类提升到四类，居民们说家门口的河终于又清了。"
)
EXCERPT = "施工队先用管道机器人摸清地下管网，再逐段开挖敷设新管，每完成一段就及时恢复路面，尽量减少对居民出行的影响。"


def test_excerpt_is_contained_in_the_long_article_with_the_right_direction() -> None:
    result = annotated(LONG, EXCERPT)
    assert FLAG_CONTAINED in result.flags and FLAG_QUOTATION not in result.flags
    ev = only(list(result.evidence), FLAG_CONTAINED)
    assert ev.note == "right inside left"
    assert texts_at(EXCERPT, ev.right_spans) == [EXCERPT[:-1]]  # the final 。 is not shingled
    swapped = annotated(EXCERPT, LONG)
    assert only(list(swapped.evidence), FLAG_CONTAINED).note == "left inside right"


def test_near_equal_documents_are_not_contained() -> None:
    assert contained_evidence(candidate(BUDGET, BUDGET.replace("300", "350"))) is None


# ---------------------------------------------------------------------------
# annotate


def test_suggestions_follow_the_flags() -> None:
    assert annotated(BUDGET, BUDGET.replace("300万元", "350万元")).suggestion == REVIEW_VALID_REVISION
    assert annotated(SEED_A, SEED_C).suggestion == REVIEW_VALID_REVISION
    assert annotated(ARTICLE_A, ARTICLE_B).suggestion == REVIEW_PUBLIC_QUOTATION
    assert annotated(COLUMN_DOCS[0], COLUMN_DOCS[2], template=column_index()).suggestion == REVIEW_KEEP_BOTH
    copy = BUDGET.replace("，", ",")
    assert annotated(BUDGET, copy, flags=(FLAG_EXACT_NORMALIZED,)).suggestion == REVIEW_SUGGEST_MERGE
    assert annotated(BUDGET, BUDGET).suggestion == REVIEW_SUGGEST_MERGE  # Jaccard 1.0, no flags
    reworded = BUDGET.replace("近日发布通知", "日前印发文件")
    result = annotated(BUDGET, reworded)
    assert result.flags == () and result.jaccard < 0.9 and result.suggestion == REVIEW_PENDING
    assert annotated(LONG, EXCERPT).suggestion == REVIEW_PENDING


def test_exact_after_normalization_but_percent_became_per_mille_is_never_merged() -> None:
    left = "据统计，该项指标今年增长5%，主管部门将在下一阶段继续跟踪评估。"
    right = left.replace("5%", "5‰")
    assert normalize(left).text == normalize(right).text  # letters-and-digits normalization drops both
    result = annotated(left, right, flags=(FLAG_EXACT_NORMALIZED,))
    assert result.flags == (FLAG_EXACT_NORMALIZED, FLAG_UNIT_CHANGED)
    assert result.suggestion == REVIEW_VALID_REVISION


def test_annotate_keeps_foreign_flags_orders_flags_and_is_idempotent() -> None:
    left = "经研究决定，会议定于2023年5月16日召开，报名费为300元，请各单位负责人准时参加并提交材料。"
    right = left.replace("5月16日", "6月16日").replace("300元", "350元")
    first = annotated(left, right, flags=("reviewed_elsewhere", FLAG_CONTAINED))
    assert first.flags == (FLAG_DATE_CHANGED, FLAG_NUMBER_CHANGED, "reviewed_elsewhere")
    assert list(first.flags[:2]) == [f for f in FLAG_ORDER if f in first.flags]
    diff = pair_diff(left, right, min_len=K)
    again = annotate(first, left, right, diff, left_hashes=hashes(left), right_hashes=hashes(right))
    assert again == first
    assert [e.flag for e in first.evidence] == [FLAG_DATE_CHANGED, FLAG_NUMBER_CHANGED]  # reading order


EDIT_ALPHABET = "报销单提交后需要主管审批批准付款会议定于召开本项目预算由市财政拨付0123456789３万元亿吨%‰年月日时周每不未没无非如果仅应当可以，。“”\n "


@settings(max_examples=80, derandomize=True, deadline=None)
@given(
    base=st.text(alphabet=EDIT_ALPHABET, max_size=80),
    edits=st.lists(st.tuples(st.integers(0, 90), st.text(alphabet=EDIT_ALPHABET, max_size=4)), max_size=6),
)
def test_any_edit_gives_spans_inside_both_texts(base: str, edits: list[tuple[int, str]]) -> None:
    left = BUDGET + base + SEED_A
    right = left
    for at, piece in edits:
        at = min(at + len(BUDGET), len(right))
        right = right[:at] + piece + right[at + 1 :]
    result = annotated(left, right)
    for ev in result.evidence:
        assert all(0 <= s <= e <= len(left) for s, e in ev.left_spans)
        assert all(0 <= s <= e <= len(right) for s, e in ev.right_spans)
    assert list(result.flags) == sorted(result.flags, key=FLAG_ORDER.index)
    if left == right:
        assert not set(result.flags) & set(REVISION_FLAGS)
