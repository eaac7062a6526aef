"""Shingle sets: the hashed set behaves exactly like the set of k-character strings."""

from __future__ import annotations

import numpy as np
import pytest

from neardup_gui.core import shingles as sh
from neardup_gui.core.normalize import codepoints


def string_shingles(text: str, k: int) -> set[str]:
    return {text[i : i + k] for i in range(len(text) - k + 1)}


@pytest.mark.parametrize("k", [1, 2, 3, 5, 7, 32])
def test_hash_set_has_one_value_per_distinct_shingle(k: int) -> None:
    text = "资料先备份资料先备份再登记来源与版本每周归档一次保留修改记录" * 3 + "\U00020000abc"
    hashes = sh.shingle_set(codepoints(text), k)
    assert hashes.size == len(string_shingles(text, k))
    assert np.all(np.diff(hashes.astype(np.float64)) > 0) or hashes.size <= 1


def test_text_shorter_than_k_has_no_shingles() -> None:
    assert sh.shingle_set(codepoints("资料"), 3).size == 0
    assert sh.shingle_set(codepoints("资料先"), 3).size == 1


def test_short_shingles_are_packed_without_collisions() -> None:
    # For k <= 3 the window value is an exact packing of the code points: all 3-grams of a text with
    # many distinct characters get distinct hashes.
    text = "".join(chr(0x4E00 + i) for i in range(3000))
    assert sh.shingle_set(codepoints(text), 3).size == 2998


def test_shared_shingle_strings_come_back_in_text_order() -> None:
    a, b = "先备份原始稿件", "原始稿件先备份"
    ha, hb = sh.shingle_set(codepoints(a), 3), sh.shingle_set(codepoints(b), 3)
    shared = np.intersect1d(ha, hb)
    got = sh.shingle_strings(a, sh.window_hashes(codepoints(a), 3), shared, 3, limit=10)
    assert got == ["先备份", "原始稿", "始稿件"]


@pytest.mark.parametrize("k", [1, 3, 5])
def test_batch_shingle_sets_equal_one_by_one(k: int) -> None:
    texts = ["资料先备份再登记", "", "短", "资料先备份再登记来源与版本", "abcdefg"]
    cps = [codepoints(t) for t in texts]
    batch = sh.shingle_sets(cps, k)
    assert [b.tolist() for b in batch] == [sh.shingle_set(c, k).tolist() for c in cps]


def test_first_shared_gives_the_same_sample_as_the_full_intersection() -> None:
    import random

    rng = random.Random(3)
    for _ in range(40):
        a = "".join(chr(0x4E00 + rng.randrange(60)) for _ in range(rng.randrange(5, 2500)))
        chars = list(a)
        for _ in range(rng.randrange(0, 200)):
            chars[rng.randrange(len(chars))] = chr(0x4E00 + rng.randrange(3000))
        b = "".join(chars[rng.randrange(0, 50) :])
        ca, cb = codepoints(a), codepoints(b)
        for k, limit in ((3, 20), (5, 20), (5, 3)):
            shared = np.intersect1d(sh.shingle_set(ca, k), sh.shingle_set(cb, k))
            expected = sh.shingle_strings(a, sh.window_hashes(ca, k), shared, k, limit)
            assert sh.first_shared(a, ca, sh.shingle_set(cb, k), k, limit) == expected
