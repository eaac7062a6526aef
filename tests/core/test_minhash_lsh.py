"""MinHash signatures equal datasketch's; banding finds what it should."""

from __future__ import annotations

import numpy as np
import pytest
from datasketch import MinHash, MinHashLSH

from neardup_gui.core import shingles as sh
from neardup_gui.core.methods.minhash_lsh import (
    collision_probability,
    lsh_pairs,
    optimal_bands_rows,
    pairs_from_keys,
    signatures,
)
from neardup_gui.core.normalize import normalize

TEXTS = [
    "资料整理说明：先备份原始稿件，再登记来源与版本。每周归档一次，保留修改记录。",
    "盆栽养护记录：观察叶片状态，按照土壤湿度调整浇水频率。",
    "报销单提交后需要直属主管审批，批准后才能付款。",
]


def test_signatures_equal_datasketch_minhash_fed_the_same_values() -> None:
    for num_perm, seed in ((128, 1), (64, 7)):
        values = [sh.minhash_values(sh.shingle_set(normalize(t).cps, 3)) for t in TEXTS]
        ours = signatures(values, num_perm, seed)
        for row, v in zip(ours, values):
            m = MinHash(num_perm=num_perm, seed=seed, hashfunc=lambda x: x)
            m.update_batch([int(x) for x in v])
            assert np.array_equal(row, m.hashvalues)


def test_bands_and_rows_for_a_threshold_are_datasketchs_choice() -> None:
    for t in (0.5, 0.7, 0.9):
        lsh = MinHashLSH(threshold=t, num_perm=128)
        assert optimal_bands_rows(t, 128) == (lsh.b, lsh.r)


def test_s_curve_is_low_below_and_high_above_threshold() -> None:
    b, r = optimal_bands_rows(0.5, 128)
    assert collision_probability(0.2, b, r) < 0.05
    assert collision_probability(0.8, b, r) > 0.999


def test_identical_signatures_share_a_bucket_and_different_ones_do_not() -> None:
    sigs = np.array([[1, 2, 3, 4], [1, 2, 3, 4], [9, 9, 9, 9], [5, 6, 7, 8]], dtype=np.uint32)
    pairs, capped = lsh_pairs(sigs, bands=2, rows=2, bucket_cap=10)
    assert pairs.tolist() == [[0, 1]]
    assert capped == 0


def test_one_shared_band_is_enough_to_become_a_candidate() -> None:
    sigs = np.array([[1, 2, 3, 4], [1, 2, 8, 8], [7, 7, 3, 4]], dtype=np.uint32)
    pairs, _ = lsh_pairs(sigs, bands=2, rows=2, bucket_cap=10)
    assert pairs.tolist() == [[0, 1], [0, 2]]


def test_oversized_bucket_is_paired_as_a_star_not_every_pair() -> None:
    keys = np.zeros(6, dtype=np.uint64)
    pairs, capped = pairs_from_keys(keys, np.arange(6, dtype=np.int64), bucket_cap=3)
    assert capped == 1
    assert sorted(map(tuple, pairs.tolist())) == [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]


def test_buckets_within_the_cap_give_every_pair() -> None:
    keys = np.array([5, 7, 5, 5, 7], dtype=np.uint64)
    pairs, capped = pairs_from_keys(keys, np.arange(5, dtype=np.int64), bucket_cap=3)
    assert capped == 0
    assert sorted(map(tuple, pairs.tolist())) == [(0, 2), (0, 3), (1, 4), (2, 3)]


def test_compiled_and_numpy_signatures_are_identical() -> None:
    pytest.importorskip("numba")
    rng = np.random.default_rng(4)
    values = [rng.integers(0, 2**32, size=int(n), dtype=np.uint32) for n in rng.integers(1, 3000, size=300)]
    assert np.array_equal(signatures(values, 128, 1, backend="numpy"), signatures(values, 128, 1, backend="compiled"))


def test_large_folders_band_and_bucket_compiled_with_the_same_keys_and_pairs(monkeypatch) -> None:
    pytest.importorskip("numba")
    from neardup_gui.core.methods import minhash_lsh, sorting
    from neardup_gui.core.methods.minhash_lsh import band_keys

    rng = np.random.default_rng(9)
    sigs = rng.integers(0, 2**32, size=(30_000, 128), dtype=np.uint32)
    sigs[1000:1300] = sigs[7]  # a bucket over the cap: a star around its first member
    sigs[2000:2040, :40] = sigs[8, :40]  # sharing some bands only
    subset = np.sort(rng.choice(30_000, size=25_000, replace=False)).astype(np.int64)

    warm = minhash_lsh._warm_band_kernel

    def run(compiled: bool):
        monkeypatch.setattr(minhash_lsh, "_COMPILED_MIN_DOCS", 0 if compiled else 10**9)
        # numpy's path: not even through a kernel an earlier test loaded
        monkeypatch.setattr(minhash_lsh, "_warm_band_kernel", warm if compiled else (lambda sigs: None))
        monkeypatch.setattr(sorting, "_RADIX_MIN", 0 if compiled else 10**9)
        return band_keys(sigs, 25, 5), band_keys(sigs, 25, 5, subset), lsh_pairs(sigs, 25, 5, 200), lsh_pairs(sigs, 25, 5, 200, subset=subset)

    numpy_path, compiled_path = run(False), run(True)
    for ours, theirs in zip(compiled_path[:2], numpy_path[:2]):
        assert ours.dtype == np.uint64 and np.array_equal(ours, theirs)
    for (ours, ours_capped), (theirs, theirs_capped) in zip(compiled_path[2:], numpy_path[2:]):
        assert np.array_equal(ours, theirs) and ours_capped == theirs_capped
    pairs, capped = compiled_path[2]
    assert capped == 25 and len(pairs) >= 299 + 39  # the star, and the partial sharers with document 8


def test_permutations_equal_datasketch_without_importing_it() -> None:
    from neardup_gui.core.methods.minhash_lsh import permutations

    for num_perm, seed in ((128, 1), (64, 42), (256, 7)):
        a, b = MinHash(num_perm=num_perm, seed=seed).permutations
        ours = permutations(num_perm, seed)
        assert np.array_equal(a, ours[0]) and np.array_equal(b, ours[1])


@pytest.mark.parametrize("num_perm", [32, 64, 128, 256])
def test_optimal_banding_matches_datasketch_across_thresholds(num_perm: int) -> None:
    for t in np.round(np.arange(0.1, 0.95, 0.05), 2):
        lsh = MinHashLSH(threshold=float(t), num_perm=num_perm)
        assert optimal_bands_rows(float(t), num_perm) == (lsh.b, lsh.r), t


def test_signatures_from_64_bit_hashes_equal_those_from_their_32_bit_values() -> None:
    hashes = [sh.shingle_set(normalize(t).cps, 3) for t in TEXTS]
    assert np.array_equal(signatures(hashes, 64, 1), signatures([sh.minhash_values(h) for h in hashes], 64, 1))
