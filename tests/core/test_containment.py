"""The containment index: the prefix-filtered join returns exactly the pairs a brute-force count would."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_gui.core import shingles as sh
from neardup_gui.core.methods.containment import containment_pairs, sampled
from neardup_gui.core.normalize import codepoints


def _corpus(seed: int) -> list[np.ndarray]:
    rng = random.Random(seed)
    phrases = ["".join(chr(0x4E00 + rng.randrange(400)) for _ in range(8)) for _ in range(60)]  # shared phrases
    docs = []
    for _ in range(60):
        parts = []
        for _ in range(rng.randrange(20, 120)):
            parts.append(rng.choice(phrases) if rng.random() < 0.3 else "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(8)))
        docs.append("".join(parts))
    for i in range(0, 20, 2):  # excerpts and near-excerpts
        start = rng.randrange(0, len(docs[i]) // 2)
        docs.append(docs[i][start : start + rng.randrange(60, 300)])
    return [sh.shingle_set(codepoints(d), 5) for d in docs]


def _brute_force(hashes: list[np.ndarray], threshold: float, sample: int, cap: int) -> set[tuple[int, int]]:
    samples = [sampled(h, sample) for h in hashes]
    df: dict[int, int] = {}
    for s in samples:
        for v in s.tolist():
            df[v] = df.get(v, 0) + 1
    usable = [{v for v in s.tolist() if df[v] <= cap} for s in samples]

    def need(n: int) -> int:
        lowered = max(0.0, threshold - 3.0 * np.sqrt(threshold * (1 - threshold) / max(n, 1)))
        return max(1, int(np.ceil(lowered * n - 1e-9)))

    out = set()
    for a, b in itertools.combinations(range(len(hashes)), 2):
        shared = len(usable[a] & usable[b])
        if shared and (shared >= need(len(usable[a])) or shared >= need(len(usable[b]))):
            out.add((a, b))
    return out


@pytest.mark.parametrize("path", ["compiled", "numpy"])
def test_prefix_join_equals_brute_force_counting(path, monkeypatch) -> None:
    from neardup_gui.core.methods import containment

    # The probe rounds and the exact counts: compiled, or in numpy.
    monkeypatch.setattr(containment, "_COMPILED_MIN_ENTRIES", 0 if path == "compiled" else 10**9)
    for seed in (1, 2, 3):
        hashes = _corpus(seed)
        for threshold, cap, sample in ((0.8, 200, 4), (0.5, 5, 4), (0.6, 8, 1)):
            pairs, _ = containment_pairs(hashes, threshold, sample, cap)
            assert set(map(tuple, pairs.tolist())) == _brute_force(hashes, threshold, sample, cap)


def test_excerpts_are_proposed() -> None:
    hashes = _corpus(7)
    pairs = set(map(tuple, containment_pairs(hashes, 0.8, 4, 200)[0].tolist()))
    assert all((i, 60 + i // 2) in pairs for i in range(0, 20, 2))


@pytest.mark.parametrize("path", ["compiled", "numpy"])
def test_documents_without_samples_anywhere_and_many_probe_rounds_change_nothing(path, monkeypatch) -> None:
    from neardup_gui.core.methods import containment

    monkeypatch.setattr(containment, "_COMPILED_MIN_ENTRIES", 0 if path == "compiled" else 10**9)
    hashes = _corpus(5)
    none_sampled = np.array([1, 2, 3], dtype=np.uint64) * np.uint64(4) + np.uint64(1)  # no hash % 4 == 0
    hashes = [none_sampled, *hashes[:30], none_sampled, *hashes[30:], none_sampled]
    expected = _brute_force(hashes, 0.8, 4, 200)
    assert set(map(tuple, containment_pairs(hashes, 0.8, 4, 200)[0].tolist())) == expected
    monkeypatch.setattr(containment, "_PROBE_DOCS", 7)  # a round every 7 documents
    assert set(map(tuple, containment_pairs(hashes, 0.8, 4, 200)[0].tolist())) == expected
    assert len(expected) >= 10


@pytest.mark.parametrize("index_type", [np.int32, np.int64])
@pytest.mark.parametrize("size", ["smallest", "bucketed"])
def test_the_compiled_stable_argsort_gives_numpys_stable_permutation(index_type, size) -> None:
    from neardup_gui.core.methods import _sortkernel
    from neardup_gui.core.methods.sorting import _RADIX_MIN, sort_in_place, sorted_runs, stable_argsort

    rng = np.random.default_rng(5)
    # The smallest sizes sort the whole array digit by digit; larger ones go through buckets first.
    n = _RADIX_MIN + 12_345 if size == "smallest" else _sortkernel.BUCKET_KEYS * 2**6 + 777
    sampled_hashes = rng.integers(0, 2**60, n, dtype=np.uint64) << np.uint64(4)  # low bits all zero
    sampled_hashes[::3] = sampled_hashes[7]  # many ties: equal keys keep their input order
    small_range = rng.integers(0, 8192 * 201, n).astype(np.int64)  # the per-round composite keys
    for keys in (sampled_hashes, small_range, np.full(n, 42, dtype=np.uint64), np.zeros(3, dtype=np.uint64)):
        before = keys.copy()
        got = stable_argsort(keys, index_type)
        assert got.dtype == index_type and np.array_equal(keys, before)  # left as given
        assert np.array_equal(got, np.argsort(keys, kind="stable"))
        sorted_here = keys.astype(np.uint64)
        assert np.array_equal(sort_in_place(sorted_here, index_type), got)
        assert np.array_equal(sorted_here, np.sort(keys.astype(np.uint64)))
        # The containment index's sort: the same order, the keys left as given, the runs marked.
        given = keys.astype(np.uint64)
        order, head = sorted_runs(given, index_type)
        assert order.dtype == index_type and np.array_equal(order, got)
        assert np.array_equal(given, keys.astype(np.uint64))
        runs = np.flatnonzero(head)
        assert np.array_equal(runs, np.flatnonzero(np.r_[True, sorted_here[1:] != sorted_here[:-1]][: keys.size]))


@pytest.mark.parametrize("path", ["compiled", "numpy"])
def test_boilerplate_shared_by_many_documents_does_not_make_a_pair_contained(path, monkeypatch) -> None:
    from neardup_gui.core.methods import containment

    monkeypatch.setattr(containment, "_COMPILED_MIN_ENTRIES", 0 if path == "compiled" else 10**9)
    boiler = list(range(10_000, 10_040))  # 40 samples in all ten documents: over the cap of 5
    own = [list(range(100 * d, 100 * d + 40)) for d in range(10)]  # 40 samples each, unique
    shared_by_three = list(range(5_000, 5_039))
    own[1] = [own[0][0], *shared_by_three]  # one sample in common with document 0, its rarest
    own[3] = [*shared_by_three, 300]  # documents 1, 3 and 4 share 39 samples
    own[4] = [*shared_by_three, 400]
    hashes = [np.array(sorted(set(boiler + o)), dtype=np.uint64) for o in own]
    pairs, ignored = containment_pairs(hashes, 0.8, 1, 5)
    assert ignored == 40
    # Documents 0 and 1 share 41 samples of their 80, 40 of them boilerplate: one usable shared
    # sample of 40, not a containment. Document 1's probe finds document 0, so the count decides.
    assert set(map(tuple, pairs.tolist())) == {(1, 3), (1, 4), (3, 4)} == _brute_force(hashes, 0.8, 1, 5)


@pytest.mark.parametrize("path", ["compiled", "numpy"])
def test_a_pair_reached_only_by_a_documents_last_probe_is_found(path, monkeypatch) -> None:
    from neardup_gui.core.methods import containment

    monkeypatch.setattr(containment, "_COMPILED_MIN_ENTRIES", 0 if path == "compiled" else 10**9)
    # Document 0: 40 usable samples, so it needs 25 shared (0.8 less three standard errors) and
    # probes with its 40 - 25 + 1 = 16 rarest: its 15 samples of its own, then one it shares.
    # Document 1 holds those 25 among 200 of its own, which are all its probes find.
    shared = list(range(1_000, 1_025))
    hashes = [
        np.array(sorted([*range(0, 15), *shared]), dtype=np.uint64),
        np.array(sorted([*shared, *range(5_000, 5_200)]), dtype=np.uint64),
        np.array(sorted(range(9_000, 9_050)), dtype=np.uint64),
    ]
    pairs, _ = containment_pairs(hashes, 0.8, 1, 200)
    assert set(map(tuple, pairs.tolist())) == {(0, 1)} == _brute_force(hashes, 0.8, 1, 200)


@pytest.mark.parametrize("extra", [0, 1, 2, 5])
def test_a_partner_met_on_just_enough_of_the_extra_probes_is_counted(extra, monkeypatch) -> None:
    from neardup_gui.core.methods import containment

    monkeypatch.setattr(containment, "_COMPILED_MIN_ENTRIES", 0)
    monkeypatch.setattr(containment, "_EXTRA_PROBES", extra)
    # Document 0: 40 usable samples, all held by another document too, so it needs 25 and probes
    # with its 16 + ``extra`` rarest: the 15 it shares with document 2 alone, then 1 + ``extra`` of
    # the 25 it shares with documents 1, 3 and 4, which hold no more of it. Each of those meets it
    # on exactly the least number of probed lists that a partner sharing 25 samples can.
    rare, common = list(range(0, 15)), list(range(1_000, 1_025))
    hashes = [
        np.array(sorted(rare + common), dtype=np.uint64),
        np.array(sorted([*common, *range(5_000, 5_200)]), dtype=np.uint64),
        np.array(sorted([*rare, *range(6_000, 6_050)]), dtype=np.uint64),
        np.array(sorted([*common, *range(7_000, 7_200)]), dtype=np.uint64),
        np.array(sorted([*common, *range(8_000, 8_200)]), dtype=np.uint64),
    ]
    expected = _brute_force(hashes, 0.8, 1, 200)
    assert {(0, 1), (0, 3), (0, 4)} <= expected
    assert set(map(tuple, containment_pairs(hashes, 0.8, 1, 200)[0].tolist())) == expected
    for seed in (1, 2):  # and the corpora of chance overlaps
        corpus = _corpus(seed)
        for threshold, cap, sample in ((0.8, 200, 4), (0.5, 5, 4), (0.6, 8, 1)):
            pairs, _ = containment_pairs(corpus, threshold, sample, cap)
            assert set(map(tuple, pairs.tolist())) == _brute_force(corpus, threshold, sample, cap)


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 9])
def test_samples_are_joined_a_slice_of_documents_per_call_giving_way_after_each(n: int, monkeypatch) -> None:
    from neardup_gui.core.methods import containment

    rng = np.random.default_rng(n)
    arrays = [rng.integers(0, 2**63, int(size), dtype=np.uint64) for size in rng.integers(0, 6, n)]
    calls: list[int] = []
    monkeypatch.setattr(containment, "give_way", lambda: calls.append(1))
    joined = containment._concat(arrays, size=4)
    expected = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.uint64)
    assert joined.dtype == np.uint64 and np.array_equal(joined, expected)
    assert len(calls) == -(-n // 4)  # after each slice of four documents


@settings(max_examples=200, deadline=None)
@given(
    docs=st.lists(st.lists(st.integers(0, 40), max_size=30), min_size=2, max_size=14),
    threshold=st.floats(0.3, 0.95),
    cap=st.integers(2, 12),
    extra=st.integers(0, 4),
)
def test_the_compiled_pairs_are_the_brute_force_pairs_for_any_samples(docs, threshold, cap, extra) -> None:
    # Few distinct keys (41) among up to 14 documents: keys shared by many, over the cap or at it,
    # documents with none, with one, or the same as another; every threshold's need, 1 included.
    from neardup_gui.core.methods import containment

    hashes = [np.array(sorted(set(d)), dtype=np.uint64) * np.uint64(7919) for d in docs]
    expected = _brute_force(hashes, threshold, 1, cap)
    saved = containment._COMPILED_MIN_ENTRIES, containment._EXTRA_PROBES
    containment._COMPILED_MIN_ENTRIES, containment._EXTRA_PROBES = 0, extra
    try:
        pairs, _ = containment_pairs(hashes, threshold, 1, cap)
    finally:
        containment._COMPILED_MIN_ENTRIES, containment._EXTRA_PROBES = saved
    assert set(map(tuple, pairs.tolist())) == expected


@settings(max_examples=150, deadline=None)
@given(
    st.sets(st.integers(0, 2**64 - 1), max_size=60),
    st.sets(st.integers(0, 2**64 - 1), max_size=1500),
    st.integers(0, 60),
)
def test_intersections_compiled_and_not_count_the_same(xs: set[int], ys: set[int], shared: int) -> None:
    from neardup_gui.core.methods import _sortkernel, containment

    xs = xs | set(list(ys)[:shared])  # some shared values; y often far longer (the binary-search path)
    x, y = (np.array(sorted(v), dtype=np.uint64) for v in (xs, ys))
    expected = len(xs & ys)
    assert _sortkernel.intersection_count(x, y) == _sortkernel.intersection_count(y, x) == expected
    assert _sortkernel.intersection_count(x, x) == x.size  # the merge path, every step on both sides
    assert containment.intersection_size(x, y) == expected  # compiled: the module is loaded here
    strided = np.repeat(y, 2)[::2]  # not contiguous: counted by numpy (the kernel is compiled for one type)
    assert (strided.size < 2 or not strided.flags.c_contiguous) and containment.intersection_size(x, strided) == expected


def test_intersections_find_the_first_and_last_values_of_the_longer_set() -> None:
    from neardup_gui.core.methods._sortkernel import intersection_count

    y = np.arange(10, 1010, 10, dtype=np.uint64)  # 100 values: x of 2 takes the binary-search path
    for x, expected in (([10, 1000], 2), ([5, 10], 1), ([1000, 2000], 1), ([5, 2000], 0), ([11, 999], 0)):
        assert intersection_count(np.array(x, dtype=np.uint64), y) == expected, x
    assert intersection_count(y[:50].copy(), y[25:].copy()) == 25  # the merge path
