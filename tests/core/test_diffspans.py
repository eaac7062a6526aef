"""Shared passages, regions and hunks of a pair (core.diffspans) are the same as before the speed-up.

``oracle_pair_diff`` is the straightforward implementation ``pair_diff`` had before it was made
faster (one ``DiffOp`` object per alignment step, a boolean mask for the unmatched text, the C++
diff library); the tests compare every field of the two results on realistic near-duplicate Chinese
pairs and on random texts, once with the library and once with the compiled diff
(``core._diffkernel``, used when numba is loaded). The oracle's hunks follow the definition that
replaced one diff per region: the raw text between anchors is diffed (see ``diffspans``), which
places an inserted character next to an equal one differently at times (管理，负责 -> 管理，，负责).
``near_duplicate_pairs`` is also used by ``test_flags_speed``.
"""

from __future__ import annotations

import os
import random
import unicodedata

import fast_diff_match_patch as fdmp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup_gui.core import diffspans
from neardup_gui.core.diffspans import DiffOp, PairDiff, diff_ops, pair_diff, shared_runs
from neardup_gui.core.normalize import Normalized, normalize
from neardup_gui.core.records import NormalizeOptions, Segment

K = 5


@pytest.fixture(autouse=True, params=["library", "compiled"])
def engine(request, monkeypatch) -> str:
    """Every test here runs with fast_diff_match_patch and with the compiled diff."""
    if request.param == "library":
        monkeypatch.setattr(diffspans, "_kernel", lambda: None)
    else:
        kernel = diffspans._load_kernel()
        assert kernel is not None, "numba is a dependency: the compiled diff must load"
        monkeypatch.setattr(diffspans, "_kernel", lambda: kernel)
    return request.param


# ---------------------------------------------------------------------------
# The implementation before the speed-up (oracle)


def _oracle_ops(left: str, right: str, timeout: float = 5.0) -> list[DiffOp]:
    if not left and not right:
        return []
    ops: list[DiffOp] = []
    li = ri = 0
    for op, length in fdmp.diff(left, right, timelimit=timeout, checklines=False, cleanup="No"):
        if op == "=":
            ops.append(DiffOp("equal", li, li + length, ri, ri + length))
            li += length
            ri += length
        elif op == "-":
            ops.append(DiffOp("delete", li, li + length, ri, ri))
            li += length
        else:
            ops.append(DiffOp("insert", li, li, ri, ri + length))
            ri += length
    return ops


def _oracle_to_raw(seg: Segment, left: Normalized, right: Normalized) -> Segment:
    ls, le = left.raw_span(seg.left_start, seg.left_end)
    rs, re_ = right.raw_span(seg.right_start, seg.right_end)
    return Segment(ls, le, rs, re_)


def _oracle_outside(norm: Normalized, covered: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    n = len(norm)
    if n == 0:
        return ()
    mask = np.ones(n, dtype=bool)
    for s, e in covered:
        mask[s:e] = False
    if not mask.any():
        return ()
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.view(np.int8), [0]))))
    return tuple(norm.raw_span(int(s), int(e)) for s, e in zip(edges[::2], edges[1::2]))


def _oracle_own(norm: Normalized, i: int) -> bool:
    """No neighbour of normalized character ``i`` shares any of its raw text."""
    n = len(norm)
    return (i == 0 or norm.starts[i] >= norm.ends[i - 1]) and (i == n - 1 or norm.ends[i] <= norm.starts[i + 1])


def oracle_pair_diff(
    left_raw: str, right_raw: str, options: NormalizeOptions | None = None, *, min_len: int = 5, gap: int = 12
) -> PairDiff:
    """``pair_diff`` as it was before the speed-up, with the hunks found between anchors (as since)."""
    ln, rn = normalize(left_raw, options), normalize(right_raw, options)
    runs = []
    if len(ln) and len(rn):
        runs = [
            Segment(op.left_start, op.left_end, op.right_start, op.right_end)
            for op in _oracle_ops(ln.text, rn.text)
            if op.kind == "equal" and op.left_end - op.left_start >= min_len
        ]
    segments = tuple(_oracle_to_raw(s, ln, rn) for s in runs)
    norm_regions: list[Segment] = []
    for s in runs:
        if norm_regions:
            p = norm_regions[-1]
            if s.left_start - p.left_end <= gap and s.right_start - p.right_end <= gap:
                norm_regions[-1] = Segment(p.left_start, s.left_end, p.right_start, s.right_end)
                continue
        norm_regions.append(s)
    regions = tuple(_oracle_to_raw(r, ln, rn) for r in norm_regions)
    paired = []  # (left, right) normalized indexes the alignment pairs
    if len(ln) and len(rn):
        for op in _oracle_ops(ln.text, rn.text):
            if op.kind == "equal":
                paired.extend((op.left_start + t, op.right_start + t) for t in range(op.left_end - op.left_start))
    hunks: list[Segment] = []
    for nreg, reg in zip(norm_regions, regions):
        a = left_raw[reg.left_start : reg.left_end]
        b = right_raw[reg.right_start : reg.right_end]
        head = len(os.path.commonprefix([a, b]))
        if head == len(a) == len(b):
            continue
        tail = len(os.path.commonprefix([a[head:][::-1], b[head:][::-1]]))
        first = (reg.left_start + head,) * 2 + (reg.right_start + head,) * 2
        last = (reg.left_end - tail,) * 2 + (reg.right_end - tail,) * 2
        # Anchors: paired characters whose raw text is their own on both sides and the same.
        anchors = [first]
        for i, j in paired:
            if not nreg.left_start <= i < nreg.left_end:
                continue
            s0, s1, t0, t1 = int(ln.starts[i]), int(ln.ends[i]), int(rn.starts[j]), int(rn.ends[j])
            if (
                s0 >= first[0] and t0 >= first[2] and s1 <= last[0] and t1 <= last[2]
                and _oracle_own(ln, i) and _oracle_own(rn, j) and left_raw[s0:s1] == right_raw[t0:t1]
            ):  # fmt: skip
                anchors.append((s0, s1, t0, t1))
        anchors.append(last)
        for prev, nxt in zip(anchors, anchors[1:]):
            x, y = left_raw[prev[1] : nxt[0]], right_raw[prev[3] : nxt[2]]
            pending: list[DiffOp] = []
            for op in _oracle_ops(x, y) + [DiffOp("equal", len(x), len(x), len(y), len(y))]:
                if op.kind != "equal":
                    pending.append(op)
                    continue
                if pending:
                    hunks.append(
                        Segment(
                            prev[1] + pending[0].left_start,
                            prev[1] + pending[-1].left_end,
                            prev[3] + pending[0].right_start,
                            prev[3] + pending[-1].right_end,
                        )
                    )
                    pending = []
    left_unique = _oracle_outside(ln, [(r.left_start, r.left_end) for r in norm_regions])
    right_unique = _oracle_outside(rn, [(r.right_start, r.right_end) for r in norm_regions])
    return PairDiff(segments, regions, tuple(hunks), left_unique, right_unique)


# ---------------------------------------------------------------------------
# Realistic near-duplicate pairs

_WORDS = (
    "城建局 财政 拨付 项目 预算 工期 街道 管理 通知 会议 居民 社区 改造 工程 资金 审批 规划 道路 学校 医院 "
    "企业 补贴 申请 材料 提交 部门 负责 实施 方案 检查 验收 安全 环境 保护 垃圾 分类 志愿者 服务 活动 文化 "
    "旅游 交通 公交 线路 调整 停车 收费 标准 价格 市场 监管 食品 药品 质量 投诉 热线 办理 窗口 政务"
).split()
_UNITS = ("万元", "亿元", "元", "家", "人", "吨", "%", "公里", "平方米", "个月", "天")
_NEGATABLE = ("需要", "允许", "同意", "收费", "开放", "包括", "适用", "影响")
_CONDITIONS = ("如果", "必须", "可以", "仅", "除非", "应当", "不得", "禁止", "凡")
_HEADER = "青溪日报 · 城市版\n本报讯（记者 林晓）\n责任编辑：周敏\n"
_FOOTER = "\n（本文来源：青溪市政府网站，转载请注明出处）"


def _number(rng: random.Random) -> str:
    value = rng.choice([rng.randint(2, 99), rng.randint(100, 9999), round(rng.uniform(1, 99), 1)])
    return f"{value}{rng.choice(_UNITS)}"


def _date(rng: random.Random) -> str:
    return f"{rng.randint(1, 12)}月{rng.randint(1, 28)}日"


def _sentence(rng: random.Random) -> str:
    parts = [rng.choice(_WORDS) for _ in range(rng.randint(3, 7))]
    for _ in range(rng.randint(0, 2)):
        extra = rng.choice(
            [_number(rng), _date(rng), "不" + rng.choice(_NEGATABLE), rng.choice(_CONDITIONS) + rng.choice(_WORDS),
             rng.choice(_NEGATABLE), "“" + rng.choice(_WORDS) + rng.choice(_WORDS) + "”", "三百人", "2023年5月16日"]
        )
        parts.insert(rng.randint(0, len(parts)), extra)
    return "，".join("".join(parts[i : i + 2]) for i in range(0, len(parts), 2)) + rng.choice("。。。；！")


def _article(rng: random.Random, sentences: int) -> list[str]:
    return [_sentence(rng) for _ in range(sentences)]


def _join(sentences: list[str], rng: random.Random) -> str:
    out = []
    for i, s in enumerate(sentences):
        out.append(s)
        if i % 4 == 3:
            out.append("\n")
    return "".join(out)


_FULL_WIDTH = str.maketrans({**{str(i): chr(0xFF10 + i) for i in range(10)}, ",": "，", ".": "．", "%": "％"})


def _edit(sentences: list[str], rng: random.Random) -> list[str]:
    s = list(sentences)
    i = rng.randrange(len(s))
    kind = rng.choice(
        ["number", "date", "negation", "unnegate", "condition", "insert", "delete", "replace", "width", "wrap", "edge"]
    )
    if kind == "number":
        s[i] = f"本次共投入{_number(rng)}。" if rng.random() < 0.3 else s[i].replace("0", "5", 1).replace("万元", "亿元", 1)
        if s[i] == sentences[i]:
            s[i] = s[i][:-1] + _number(rng) + s[i][-1]
    elif kind == "date":
        s[i] = s[i][:2] + _date(rng) + s[i][2:]
    elif kind == "negation":
        w = rng.choice(_NEGATABLE)
        s[i] = s[i].replace(w, "不" + w, 1) if w in s[i] else s[i][:3] + "不" + w + s[i][3:]
    elif kind == "unnegate":
        s[i] = s[i].replace("不", "", 1) if "不" in s[i] else s[i].replace("允许", "禁止", 1)
    elif kind == "condition":
        a, b = rng.sample(_CONDITIONS, 2)
        s[i] = s[i].replace(a, b, 1) if a in s[i] else b + s[i]
    elif kind == "insert":
        s.insert(i, _sentence(rng))
    elif kind == "delete" and len(s) > 2:
        del s[i]
    elif kind == "replace":
        w = s[i]
        p = rng.randrange(max(1, len(w) - 2))
        s[i] = w[:p] + rng.choice(_WORDS) + w[p + 2 :]
    elif kind == "width":
        s[i] = s[i].translate(_FULL_WIDTH).replace("，", ",", 1)
    elif kind == "wrap":
        p = rng.randrange(1, max(2, len(s[i])))
        s[i] = s[i][:p] + rng.choice(["\n", " ", "\r\n", "  "]) + s[i][p:]
    else:  # a change in the first or last few characters
        if rng.random() < 0.5:
            s[0] = rng.choice(["上午", "下午", "3月", "不"]) + s[0][1:]
        else:
            s[-1] = s[-1][:-2] + rng.choice(["元。", "日。", "不。", "300。"])
    return s


def near_duplicate_pairs(count: int, seed: int = 1) -> list[tuple[str, str]]:
    """Deterministic pairs shaped like a screen's candidates: revisions, reformatting, excerpts,
    appended text, shared templates, identical copies."""
    rng = random.Random(seed)
    pairs = []
    for n in range(count):
        base = _article(rng, rng.randint(4, 30))
        shape = n % 8
        if shape == 0:  # format copy
            left, right = _join(base, rng), _join(base, rng).translate(_FULL_WIDTH).replace("\n", "\r\n ")
        elif shape == 1:  # excerpt
            a = rng.randrange(len(base))
            left, right = _join(base, rng), _join(base[a : a + rng.randint(1, 6)], rng)
        elif shape == 2:  # appended
            left, right = _join(base, rng), _join(base + _article(rng, rng.randint(1, 8)), rng)
        elif shape == 3:  # template: header and footer around different bodies
            left = _HEADER + _join(base, rng) + _FOOTER
            right = _HEADER + _join(_article(rng, rng.randint(3, 12)), rng) + _FOOTER
        elif shape == 4:  # identical
            left = right = _join(base, rng)
        else:  # revisions, one to six edits
            edited = base
            for _ in range(rng.randint(1, 6)):
                edited = _edit(edited, rng)
            left, right = _join(base, rng), _join(edited, rng)
        if rng.random() < 0.5:
            left, right = right, left
        pairs.append((left, right))
    return pairs


def assert_same_diff(got: PairDiff, want: PairDiff) -> None:
    assert got.segments == want.segments
    assert got.regions == want.regions
    assert got.hunks == want.hunks
    assert got.left_unique == want.left_unique
    assert got.right_unique == want.right_unique


# ---------------------------------------------------------------------------
# Tests


def test_generated_pairs_cover_revisions_copies_and_unmatched_text() -> None:
    diffs = [pair_diff(a, b, min_len=K) for a, b in near_duplicate_pairs(120)]
    assert sum(bool(d.hunks) for d in diffs) > 40
    assert sum(bool(d.left_unique or d.right_unique) for d in diffs) > 20
    assert sum(len(d.regions) > 1 for d in diffs) > 3


def test_passages_regions_and_hunks_are_the_same_as_before_on_near_duplicate_pairs() -> None:
    for left, right in near_duplicate_pairs(240):
        assert_same_diff(pair_diff(left, right, min_len=K), oracle_pair_diff(left, right, min_len=K))


def test_precomputed_normalizations_give_the_same_alignment() -> None:
    options = NormalizeOptions()
    for left, right in near_duplicate_pairs(60, seed=3):
        got = pair_diff(left, right, options, min_len=K, left_norm=normalize(left, options),
                        right_norm=normalize(right, options))
        assert_same_diff(got, oracle_pair_diff(left, right, options, min_len=K))


def test_other_run_lengths_and_gaps_give_the_same_alignment_as_before() -> None:
    for left, right in near_duplicate_pairs(60, seed=5):
        for min_len, gap in ((3, 0), (8, 30)):
            assert_same_diff(
                pair_diff(left, right, min_len=min_len, gap=gap),
                oracle_pair_diff(left, right, min_len=min_len, gap=gap),
            )


def test_shared_runs_and_diff_ops_still_describe_the_alignment() -> None:
    left, right = "会议于5月16日上午9时举行，各部门负责人参加。", "会议于5月18日上午9时举行，各部门负责人均参加。"
    ops = diff_ops(left, right)
    assert ops[0].kind == "equal" and ops[-1].kind == "equal"
    assert "".join(left[o.left_start : o.left_end] for o in ops if o.kind != "insert") == left
    assert "".join(right[o.right_start : o.right_end] for o in ops if o.kind != "delete") == right
    runs = shared_runs(normalize(left), normalize(right), K)
    assert [normalize(left).text[s.left_start : s.left_end] for s in runs][0].startswith("会议于5月1")


# Width forms, expansions (㎏ -> kg, ㍻ -> 平成) and a combining mark: raw text shared by several
# normalized characters, or several raw characters behind one.
CHARS = st.sampled_from(list("中文甲乙丙丁，。 \n３3不万元akg㎏㍻平成\u00e9e\u0301Ａ"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(CHARS, max_size=80), st.text(CHARS, max_size=80), st.text(CHARS, max_size=40), st.integers(1, 6))
def test_random_texts_align_the_same_as_before(a: str, b: str, shared: str, min_len: int) -> None:
    left, right = a + shared + b, shared + b + a
    assert_same_diff(pair_diff(left, right, min_len=min_len), oracle_pair_diff(left, right, min_len=min_len))


def test_a_shared_passage_never_ends_inside_a_character_and_its_combining_mark() -> None:
    # Found by the property test in tests/reliability: "0" + U+093A (a combining vowel sign) is one
    # raw cluster; a passage "000" shared with a text that has no mark must not show the mark.
    from neardup_gui.core.records import NormalizeOptions

    options = NormalizeOptions(nfkc=True, case="casefold", keep="punct")
    assert pair_diff("000\u093a", "\u093a000", options, min_len=3).segments == ()
    (seg,) = pair_diff("中文测试000\u093a", "中文测试000", options, min_len=3).segments
    assert ("中文测试000\u093a"[seg.left_start : seg.left_end], "中文测试000"[seg.right_start : seg.right_end]) == ("中文测试00",) * 2
    (seg,) = pair_diff("\u093a000中文测试", "000中文测试", options, min_len=3).segments  # a mark before: kept whole
    assert "\u093a000中文测试"[seg.left_start : seg.left_end] == "000中文测试"[seg.right_start : seg.right_end]


def test_the_compiled_path_is_taken_when_numba_is_loaded(engine, monkeypatch) -> None:
    from neardup_gui.core import _diffkernel

    calls = []
    real = _diffkernel.pair_alignment
    monkeypatch.setattr(_diffkernel, "pair_alignment", lambda *args: calls.append(1) or real(*args))
    left, right = near_duplicate_pairs(1, seed=9)[0]
    assert_same_diff(pair_diff(left, right, min_len=K), oracle_pair_diff(left, right, min_len=K))
    assert len(calls) == (1 if engine == "compiled" else 0)


def test_a_long_reformatted_copy_is_compared_change_by_change() -> None:
    # Every digit made full-width and a line break every 40 characters. Diffing a region's raw text
    # at once costs its length times its differences: out of budget, that gave one hunk over most
    # of the text (the whole copy highlighted as changed, and no flag able to see inside it).
    rng = random.Random(4)
    left = _join(_article(rng, 500), rng).replace("\n", "")
    wide = left.translate(_FULL_WIDTH)
    right = "\n".join(wide[i : i + 40] for i in range(0, len(wide), 40))
    assert len(left) > 8000 and sum(a != b for a, b in zip(left, wide)) > 500
    diff = pair_diff(left, right, min_len=K, timeout=0.002)
    assert len(diff.regions) == 1 and not diff.left_unique and not diff.right_unique
    for h in diff.hunks:
        a, b = left[h.left_start : h.left_end], right[h.right_start : h.right_end]
        assert len(a) <= 16 and len(b) <= 17, (a, b)  # a number at most
        assert "".join(unicodedata.normalize("NFKC", a).split()) == "".join(unicodedata.normalize("NFKC", b).split())
    # Every line break and every widened character is inside a hunk.
    covered = {i for h in diff.hunks for i in range(h.right_start, h.right_end)}
    changed = {i for i, ch in enumerate(right) if ch == "\n" or ch in "０１２３４５６７８９．％"}
    assert changed <= covered


def test_line_breaks_and_punctuation_added_or_removed_are_placed_as_the_oracle_places_them() -> None:
    # Where an inserted character could go on either side of an equal one (管理，负责 -> 管理，，负责),
    # the hunks follow the anchors: the same answer from both engines and the oracle.
    rng = random.Random(2)
    for _ in range(200):
        left = _join(_article(rng, rng.randint(3, 8)), rng)
        right = left
        for _ in range(rng.randint(1, 4)):
            p = rng.randrange(len(right))
            right = right[:p] + rng.choice(["\n", "\n\n", " ", "３", "，", "。\n"]) + right[p:]
        if rng.random() < 0.5:
            p = rng.randrange(len(right))
            right = right[:p] + right[p + 1 :]
        assert_same_diff(pair_diff(left, right, min_len=K), oracle_pair_diff(left, right, min_len=K))
