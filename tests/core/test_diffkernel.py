"""The compiled diff (core._diffkernel) gives the ops fast_diff_match_patch gives, op for op.

``diffspans`` uses it in place of the library when numba is loaded, so every alignment the window
draws and every hunk the flags read depends on this equality. The library is the oracle: small
random texts over tiny alphabets (the cases where several alignments tie and the algorithm's
choices show), edited copies of long Chinese texts (half matches, the middle snake, moved blocks),
and texts with nothing in common.
"""

from __future__ import annotations

import random

import fast_diff_match_patch as fdmp
import numpy as np
import pytest

from neardup_gui.core import _diffkernel as kernel
from neardup_gui.core.diffspans import STEPS_PER_SECOND
from neardup_gui.core.normalize import codepoints
from engine_kit import assert_ops_rebuild

SYMBOL = {kernel.EQUAL: "=", kernel.DELETE: "-", kernel.INSERT: "+"}


def compiled(a: str, b: str, budget: int = 5 * STEPS_PER_SECOND) -> list[tuple[str, int]]:
    # Writable arrays: the one type diffspans passes (numba compiles once per argument type).
    kinds, lens = kernel.diff(np.array(codepoints(a)), np.array(codepoints(b)), budget)
    return [(SYMBOL[k], n) for k, n in zip(kinds.tolist(), lens.tolist())]


def library(a: str, b: str) -> list[tuple[str, int]]:
    return fdmp.diff(a, b, timelimit=5, checklines=False, cleanup="No")


def _edited(rng: random.Random, text: str, edits: int, alphabet: int) -> str:
    out = list(text)
    for _ in range(edits):
        pos, length, kind = rng.randrange(len(out) + 1), rng.randrange(1, 12), rng.randrange(4)
        fresh = [chr(0x4E00 + rng.randrange(alphabet)) for _ in range(length)]
        if kind == 0:
            out[pos:pos] = fresh
        elif kind == 1:
            del out[pos : pos + length]
        elif kind == 2:
            out[pos : pos + length] = fresh
        else:  # a block moved elsewhere
            block = out[pos : pos + 4 * length]
            del out[pos : pos + 4 * length]
            at = rng.randrange(len(out) + 1)
            out[at:at] = block
    return "".join(out)


def test_small_texts_over_tiny_alphabets_give_the_same_ops() -> None:
    rng = random.Random(11)
    for _ in range(6000):
        alphabet = "abcd"[: rng.randrange(1, 5)]
        a = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 25)))
        if rng.random() < 0.5:
            b = _edited(rng, a, rng.randrange(0, 4), 3).translate({0x4E00 + i: c for i, c in enumerate("abc")})
        else:
            b = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 25)))
        assert compiled(a, b) == library(a, b), (a, b)


@pytest.mark.parametrize("alphabet", [3, 40, 2500])
def test_edited_long_texts_give_the_same_ops(alphabet: int) -> None:
    rng = random.Random(alphabet)
    for _ in range(40):
        base = "".join(chr(0x4E00 + rng.randrange(alphabet)) for _ in range(rng.choice([300, 1500, 4000])))
        other = _edited(rng, base, rng.choice([1, 5, 40]), alphabet)
        a, b = (base, other) if rng.random() < 0.5 else (other, base)
        assert compiled(a, b) == library(a, b)


def test_texts_with_nothing_in_common_and_edge_cases_give_the_same_ops() -> None:
    rng = random.Random(5)
    unrelated = ["".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(600)) for _ in range(2)]
    cases = [("", ""), ("", "甲"), ("甲", ""), ("甲", "甲"), ("甲乙", "乙甲"), ("ab", "ba"), tuple(unrelated),
             ("\U00020000中\U00020001", "中\U00020000"), ("x" * 50, "x" * 49 + "y"), ("ab" * 30, "ba" * 30)]  # fmt: skip
    for a, b in cases:
        assert compiled(a, b) == library(a, b), (a, b)


def test_ops_rebuild_both_texts_and_a_spent_budget_gives_a_coarser_but_valid_alignment() -> None:
    rng = random.Random(2)
    a = "".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(3000))
    b = "".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(3000))
    full, coarse = compiled(a, b), compiled(a, b, budget=1000)
    assert len(coarse) < len(full)  # the search stopped early, as the library's clock would stop it
    for ops in (full, coarse):
        assert_ops_rebuild(ops, a, b)


def test_a_kernel_that_fails_to_load_leaves_every_alignment_to_the_library(monkeypatch) -> None:
    from neardup_gui.core import diffspans

    def broken(*args):
        raise RuntimeError("LLVM cannot compile here")

    monkeypatch.setattr(diffspans, "_ready", False)
    monkeypatch.setattr(kernel, "diff", broken)
    assert not diffspans.load_kernel()
    assert not diffspans.compiled_diff_active()
    a, b = "会议于5月16日上午9时举行。", "会议于5月18日上午9时举行。"
    assert diffspans.pair_diff(a, b, min_len=3).hunks  # aligned by the library, not an error
