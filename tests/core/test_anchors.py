"""Long texts are aligned between anchors (core.anchors), the same way on both alignment paths.

A long revision aligned by one diff cost its length times its differences, and an article quoted
inside a long text ran out of the diff's budget with no shared passage found. These tests hold
the anchored alignment to what an editor sees: the quoted passage is found, the ops still rebuild
both texts, the compiled kernel and the C++ library agree op for op, and short texts are aligned
exactly as before.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from neardup_gui.core import _diffkernel as kernel
from neardup_gui.core import anchors, diffspans
from neardup_gui.core.diffspans import STEPS_PER_SECOND, pair_diff
from neardup_gui.core.normalize import codepoints
from engine_kit import assert_ops_rebuild

SYMBOL = {kernel.EQUAL: "=", kernel.DELETE: "-", kernel.INSERT: "+"}


def _text(rng: random.Random, n: int, alphabet: int = 2500) -> str:
    return "".join(chr(0x4E00 + rng.randrange(alphabet)) for _ in range(n))


def _revised(rng: random.Random, text: str, replaced: int, edits: int) -> str:
    """``text`` with ``replaced`` blocks of ~1,500 characters rewritten and ``edits`` small edits."""
    out = list(text)
    for _ in range(replaced):
        at = rng.randrange(len(out) - 1500)
        out[at : at + 1500] = _text(rng, rng.randrange(1000, 2000))
    for _ in range(edits):
        at = rng.randrange(len(out))
        out[at : at + rng.randrange(0, 4)] = _text(rng, rng.randrange(0, 4))
    return "".join(out)


def _symbols(kinds: np.ndarray, lens: np.ndarray) -> list[tuple[str, int]]:
    return [(SYMBOL[k], n) for k, n in zip(kinds.tolist(), lens.tolist())]


def compiled(a: str, b: str, budget: int = 5 * STEPS_PER_SECOND) -> list[tuple[str, int]]:
    return _symbols(*kernel.aligned(np.array(codepoints(a)), np.array(codepoints(b)), budget))


def library(a: str, b: str) -> list[tuple[str, int]]:
    return _symbols(*diffspans._anchored_library_ops(a, b, 5.0))


def plain(a: str, b: str, budget: int = 5 * STEPS_PER_SECOND) -> list[tuple[str, int]]:
    return _symbols(*kernel.diff(np.array(codepoints(a)), np.array(codepoints(b)), budget))


def test_the_chain_is_a_longest_increasing_run_of_seeds() -> None:
    rng = random.Random(4)
    for _ in range(300):
        n = rng.randrange(0, 40)
        sb = np.array(rng.sample(range(200), n), dtype=np.int64)
        sa = np.arange(n, dtype=np.int64) * 3
        picked = anchors.chain(sa, sb)
        best = [1] * n  # the longest increasing run ending at each seed, by brute force
        for i in range(n):
            for j in range(i):
                if sb[j] < sb[i]:
                    best[i] = max(best[i], best[j] + 1)
        assert len(picked) == max(best, default=0)
        assert all(sb[x] < sb[y] for x, y in zip(picked[:-1], picked[1:]))
        assert np.array_equal(kernel._chain(sa, sb), picked)


def test_anchors_are_equal_text_in_order_and_apart() -> None:
    rng = random.Random(8)
    a = _text(rng, 30_000, alphabet=300)
    b = _revised(rng, a, replaced=4, edits=300)
    ca, cb = codepoints(a), codepoints(b)
    sa, sb = anchors.seeds(ca, cb)
    assert sa.size > 500
    numba_sa, numba_sb = kernel._seeds(np.array(ca), np.array(cb))
    assert np.array_equal(sa, numba_sa) and np.array_equal(sb, numba_sb)
    runs = anchors.anchor_runs(sa, sb, anchors.chain(sa, sb), anchors.ANCHOR_K)
    assert np.array_equal(runs, kernel._anchor_runs(sa, sb, kernel._chain(sa, sb), anchors.ANCHOR_K))
    end_a = end_b = 0
    for x, y, n in runs.tolist():
        assert x >= end_a and y >= end_b and n > 0
        assert a[x : x + n] == b[y : y + n]
        end_a, end_b = x + n, y + n


def test_windows_repeated_in_either_text_are_no_seeds_on_either_path() -> None:
    # The compiled seeds come from hash tables, the library's from sorting: the same seeds when
    # passages repeat (a boilerplate paragraph twice in one draft, a line in both three times).
    rng = random.Random(21)
    para, line, note = (_text(rng, n, alphabet=300) for n in (800, 60, 500))
    body, more = _text(rng, 9000, alphabet=300), _text(rng, 4000, alphabet=300)
    a = body + para + more + para + line * 3 + note  # para and line repeated in a, once in b
    b = _revised(rng, body + more, replaced=1, edits=40) + para + line + note + note  # note repeated in b
    ca, cb = codepoints(a), codepoints(b)
    sa, sb = anchors.seeds(ca, cb)
    numba_sa, numba_sb = kernel._seeds(np.array(ca), np.array(cb))
    assert np.array_equal(sa, numba_sa) and np.array_equal(sb, numba_sb)
    assert sa.size > 100
    starts = set(sa.tolist())
    assert not starts & set(range(a.find(note), len(a)))
    for repeated in (para, line):  # no seed starts inside a repeated passage of a
        at = a.find(repeated)
        while at >= 0:
            assert not starts & set(range(at, at + len(repeated) - anchors.ANCHOR_K + 1))
            at = a.find(repeated, at + 1)
    assert compiled(a, b) == library(a, b)


def test_seeds_on_one_diagonal_join_and_one_overlapping_the_last_anchor_starts_after_it() -> None:
    k = 24
    sa = np.array([0, 10, 40, 100, 130, 200], dtype=np.int64)
    sb = np.array([0, 10, 70, 90, 150, 160], dtype=np.int64)
    picked = np.arange(6, dtype=np.int64)
    expected = [
        [0, 0, 34],  # 0 and 10 overlap on one diagonal: one anchor
        [40, 70, 24],
        [104, 94, 20],  # overlaps the last anchor in b by 4: moved 4 along its own diagonal
        [130, 150, 24],
        [214, 174, 10],  # overlaps the last anchor in b by 14
    ]
    for runs in (anchors.anchor_runs(sa, sb, picked, k), kernel._anchor_runs(sa, sb, picked, k)):
        assert runs.tolist() == expected


def test_a_window_repeated_in_either_text_is_no_seed() -> None:
    rng = random.Random(3)
    para = _text(rng, 400)
    a = _text(rng, 10_000) + para + _text(rng, 10_000) + para
    b = _text(rng, 5_000) + para + a
    sa, sb = anchors.seeds(codepoints(a), codepoints(b))
    in_para = [x for x in sa.tolist() if 10_000 <= x < 10_400 - anchors.ANCHOR_K]
    assert not in_para  # twice in a: aligned by the diffs between anchors, not pinned
    assert sa.size and all(a[x : x + anchors.ANCHOR_K] == b[y : y + anchors.ANCHOR_K] for x, y in zip(sa, sb))


@pytest.mark.parametrize("case", ["revision", "quotation", "repeats", "unrelated", "moved"])
def test_long_texts_get_the_same_ops_from_the_kernel_and_the_library(case: str) -> None:
    rng = random.Random(case)
    base = _text(rng, 40_000)
    if case == "revision":
        a, b = base, _revised(rng, base, replaced=5, edits=200)
    elif case == "quotation":
        a, b = _revised(rng, base[10_000:11_500], 0, 8), base
    elif case == "repeats":  # the same paragraphs again and again: few windows are unique
        paras = [_text(rng, 300, alphabet=50) for _ in range(4)]
        a = "".join(rng.choice(paras) for _ in range(80))
        b = _revised(rng, a, replaced=0, edits=60)
    elif case == "unrelated":
        a, b = base[:15_000], _text(rng, 15_000)
    else:  # a chapter moved to the end
        a, b = base, base[:5_000] + base[12_000:] + base[5_000:12_000]
    ops = compiled(a, b)
    assert ops == library(a, b)
    assert_ops_rebuild(ops, a, b)


def test_short_texts_are_aligned_by_one_diff_as_before() -> None:
    rng = random.Random(6)
    a = _text(rng, 4_000)
    b = _revised(rng, a, replaced=1, edits=40)
    assert len(a) + len(b) < anchors.ANCHOR_FROM
    assert compiled(a, b) == plain(a, b) == library(a, b)


def test_a_long_revision_costs_a_fraction_of_the_search_of_one_diff() -> None:
    # Steps, not seconds: the budget is the diff's deterministic time limit. With a tenth of it the
    # anchored alignment is whole, where one diff of the same texts stops early and gives up.
    rng = random.Random(12)
    a = _text(rng, 60_000)
    b = _revised(rng, a, replaced=6, edits=400)
    budget = STEPS_PER_SECOND // 10
    full = compiled(a, b)
    assert compiled(a, b, budget) == full
    coarse = plain(a, b, budget)
    assert sum(n for op, n in coarse if op == "=") < 0.9 * sum(n for op, n in full if op == "=")


def test_an_article_quoted_in_a_long_text_shows_as_one_shared_passage_on_both_paths(monkeypatch) -> None:
    rng = random.Random(9)
    book = _text(rng, 160_000)
    article = "据统计，2025年全市共受理投诉1,284件，" + book[80_000:81_200] + "以上数据截至12月31日。"
    for loaded in (True, False):
        monkeypatch.setattr(diffspans, "_ready", loaded)
        diff = pair_diff(article, book, min_len=5)
        shared = [s for s in diff.segments if s.right_end - s.right_start >= 1000]
        assert len(shared) == 1, loaded
        s = shared[0]
        assert article[s.left_start : s.left_end] == book[s.right_start : s.right_end]
        assert 79_990 <= s.right_start <= 80_010 and s.right_end - s.right_start >= 1190


def test_a_short_text_beside_a_long_one_spends_budget_only_on_the_diagonals_it_searches() -> None:
    # One diff (no anchors): the quotation is found by the bisection, as the library finds it.
    rng = random.Random(10)
    book = _text(rng, 60_000)
    quoted = _revised(rng, book[30_000:31_000], 0, 5)
    ops = plain(quoted, book)
    assert sum(n for op, n in ops if op == "=") >= 900
    assert ops == [tuple(op) for op in diffspans.fdmp.diff(quoted, book, timelimit=5, checklines=False, cleanup="No")]
