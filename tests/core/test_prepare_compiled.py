"""The compiled prepare kernels (``core._prepkernel``) give what the numpy path gives, for every
kind of text the normalization treats differently and for every parameter the kernels read."""

from __future__ import annotations

import random

import numpy as np
import pytest

from neardup_gui.core import prepare as prep_mod
from neardup_gui.core.prepare import prepare
from neardup_gui.core.records import NormalizeOptions, ScreenParams

pytest.importorskip("numba")

HEADER = "本报讯 编辑部通知：以下内容仅供内部交流使用，转载请注明出处与作者姓名。\n"


def _texts(seed: int = 3) -> dict[str, str]:
    """Chinese texts with a shared header, copies and the cases normalization treats apart:
    combining marks (exact per-cluster path), expansions (㎡ -> m2), full-width forms, Extension B,
    texts shorter than k, texts that normalize to nothing, and a lone surrogate."""
    rng = random.Random(seed)

    def body(n: int) -> str:
        return "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(n))

    texts = {f"d{i:03d}": (HEADER if i % 3 == 0 else "") + body(rng.randrange(40, 400)) for i in range(150)}
    texts["copy"] = texts["d004"]
    texts["marks"] = "Cafe\u0301 re\u0301sume\u0301 " + body(80)  # combining acute accents
    texts["expand"] = "面积120㎡，单价３５００元／㎡。" + body(60)  # expansions and full-width digits
    texts["ext_b"] = "𠀀𠀁𠀂" + body(50) + "𪚥"
    texts["short"] = "短文"
    texts["punct_only"] = "，。！？…… —— \n\t"
    texts["latin"] = "The Quick BROWN fox ＡＢＣ ß straße " * 3
    texts["surrogate"] = "前\ud800后" + body(30)
    texts["hangul_jamo"] = "\u1100\u1161\u11a8 " + body(40)
    return texts


def _compiled_batches(monkeypatch) -> list[int]:
    """The size of each batch prepared through the kernels from now on."""
    calls: list[int] = []
    real = prep_mod._Preparer._work_compiled

    def counted(self, *args):
        calls.append(len(args[0]))
        return real(self, *args)

    monkeypatch.setattr(prep_mod._Preparer, "_work_compiled", counted)
    return calls


def _both(monkeypatch, ids, texts, params, **kwargs):
    """``prepare`` through the numpy path, then through the kernels (checked to be used)."""
    calls = _compiled_batches(monkeypatch)
    monkeypatch.setattr(prep_mod, "_COMPILED_MIN_CHARS", 10**15)
    monkeypatch.setattr(prep_mod, "_kernels_warm", False)
    numpy_path = prepare(ids, texts, params, **kwargs)
    assert not calls
    monkeypatch.setattr(prep_mod, "_COMPILED_MIN_CHARS", 0)
    compiled = prepare(ids, texts, params, **kwargs)
    # Every document, or with a cache the changed one only (one batch of one).
    assert sum(calls) == (1 if "cache" in kwargs else len(ids))
    return numpy_path, compiled


def _assert_same(a, b) -> None:
    assert a.doc_ids == b.doc_ids
    assert a.no_shingles == b.no_shingles
    assert a.digests == b.digests
    assert a.normalized_chars == b.normalized_chars
    assert np.array_equal(a.signatures, b.signatures)
    assert len(a.samples) == len(b.samples)
    for x, y in zip(a.samples, b.samples):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    for x, y in zip(a.boiler_hits, b.boiler_hits):
        assert np.array_equal(x, y)
    assert np.array_equal(a.boiler, b.boiler)
    assert np.array_equal(a.template.boilerplate, b.template.boilerplate)
    assert np.array_equal(a.template.doc_counts, b.template.doc_counts)


def test_the_compiled_path_is_taken_and_kernels_load() -> None:
    assert prep_mod._prep_kernels() is not None


@pytest.mark.parametrize(
    "params",
    [
        ScreenParams(k=5),
        ScreenParams(k=3, containment_sample=1),  # exact packing base; every hash sampled
        ScreenParams(k=7, containment_sample=6, num_perm=64, seed=11),  # a sample not a power of two
        ScreenParams(k=4, normalize=NormalizeOptions(nfkc=False, case="lower", keep="punct")),
    ],
    ids=["default", "k3-all-sampled", "k7-modulo-sample", "other-normalization"],
)
def test_compiled_prepare_equals_the_numpy_path(monkeypatch, params) -> None:
    texts = _texts()
    ids = sorted(texts)
    a, b = _both(monkeypatch, ids, texts, params, keep_hashes=False)
    assert "short" in a.no_shingles and ("punct_only" in a.no_shingles) == (params.normalize.keep == "alnum")
    assert a.template is not None and not a.template.is_empty()
    _assert_same(a, b)


def test_compiled_prepare_with_a_sample_smaller_than_the_corpus_and_kept_sets(monkeypatch) -> None:
    # The sample batches (full sets) and the others (window hashes) both go through the kernels.
    monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE", 40)
    texts = _texts(seed=8)
    ids = sorted(texts)
    a, b = _both(monkeypatch, ids, texts, ScreenParams(k=5), keep_hashes=False)
    _assert_same(a, b)
    a, b = _both(monkeypatch, ids, texts, ScreenParams(k=5), keep_hashes=True, keep_cps=True)
    _assert_same(a, b)
    assert all(np.array_equal(x, y) for x, y in zip(a.hashes, b.hashes))
    assert all(np.array_equal(x, y) for x, y in zip(a.cps, b.cps))
    assert np.array_equal(a.sizes, b.sizes)


def test_compiled_prepare_from_a_cache_equals_the_numpy_path(monkeypatch) -> None:
    # A rescan prepares the changed documents only and finds their hits on the cached boilerplate.
    texts = _texts(seed=4)
    ids = sorted(texts)
    keys = {d: f"sha-{d}" for d in ids}
    first = prepare(ids, texts, ScreenParams(), keep_hashes=False, keys=keys)
    changed = dict(texts, d007=HEADER + texts["d010"][:200])
    keys2 = dict(keys, d007="sha-new")
    a, b = _both(monkeypatch, ids, changed, ScreenParams(), keep_hashes=False, keys=keys2, cache=first.cache)
    assert a.reused == b.reused == len(ids) - len(a.no_shingles) - 1
    _assert_same(a, b)


@pytest.mark.parametrize("with_cache", [False, True], ids=["first-screen", "rescan"])
def test_each_prepared_document_is_given_once_normalized_as_normalize_makes_it(monkeypatch, with_cache) -> None:
    # What a screen writes into normalized/ as it prepares (io.outputs.NormalizedWriter): every
    # document normalized here exactly once, the same code points on both paths; none from a cache.
    from neardup_gui.core.normalize import normalize_batch

    monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE", 40)  # sample batches and the others both give them
    texts = _texts(seed=9)
    ids = sorted(texts)
    params = ScreenParams(k=5)
    keys = {d: f"sha-{d}" for d in ids}
    kwargs: dict = {"keep_hashes": False, "keys": keys}
    expected_ids = ids
    if with_cache:
        first = prepare(ids, texts, params, keep_hashes=False, keys=keys)
        texts = dict(texts, d007=HEADER + texts["d010"][:200])
        kwargs = {"keep_hashes": False, "keys": dict(keys, d007="sha-new"), "cache": first.cache}
        expected_ids = ["d007"]
    given: list[list[tuple[str, np.ndarray]]] = []

    def collect(positions, cps):
        given.append([(ids[p], c.copy()) for p, c in zip(positions, cps)])

    _both(monkeypatch, ids, texts, params, normalized=collect, **kwargs)
    expected = dict(zip(expected_ids, normalize_batch([texts[d] for d in expected_ids], params.normalize)))
    half = len(given) // 2  # the numpy path's calls, then the compiled path's
    assert half and len(given) == 2 * half
    for calls in (given[:half], given[half:]):
        seen = [d for call in calls for d, _ in call]
        assert sorted(seen) == sorted(expected_ids)  # once each
        for d, cps in (pair for call in calls for pair in call):
            assert np.array_equal(cps, expected[d]), d


def test_once_the_kernels_ran_a_small_prepare_uses_them_too(monkeypatch) -> None:
    # A rescan's few changed files (below the size that pays for loading the kernels) go through
    # the kernels when this process has them loaded already: 3-4x faster than numpy then.
    calls = _compiled_batches(monkeypatch)
    monkeypatch.setattr(prep_mod, "_kernels_warm", False)
    texts = _texts(seed=5)
    ids = sorted(texts)
    small = prepare(ids, texts, ScreenParams(), keep_hashes=False)
    assert not calls  # a cold process: numpy for a small folder
    monkeypatch.setattr(prep_mod, "_COMPILED_MIN_CHARS", 0)
    prepare(ids[:3], texts, ScreenParams(), keep_hashes=False)  # a large prepare, as it were
    assert calls and prep_mod._kernels_warm
    monkeypatch.undo()  # the real threshold again, the kernels still loaded in this process
    calls = _compiled_batches(monkeypatch)
    monkeypatch.setattr(prep_mod, "_kernels_warm", True)
    again = prepare(ids, texts, ScreenParams(), keep_hashes=False)
    assert sum(calls) == len(ids)
    _assert_same(small, again)
    monkeypatch.setattr(prep_mod, "_kernels_warm", False)
    assert prep_mod.load_compiled() and prep_mod._kernels_warm  # the window's warm-up counts too


def test_sets_recomputed_for_verification_equal_the_numpy_ones_once_the_kernels_are_loaded(monkeypatch) -> None:
    import sys

    from neardup_gui.core import shingles as sh
    from neardup_gui.core.normalize import normalize_batch
    from neardup_gui.core.prepare import LazyHashes

    assert prep_mod._prep_kernels() is not None  # loaded: LazyHashes uses them
    texts = _texts(seed=2)
    ids = sorted(texts)
    real = prep_mod._compiled_sets
    whole = prep_mod.BATCH
    for params, batch in ((ScreenParams(k=5), whole), (ScreenParams(k=2), whole), (ScreenParams(k=5), 3)):
        calls = []
        monkeypatch.setattr(prep_mod, "_compiled_sets", lambda *a: calls.append(1) or real(*a))
        monkeypatch.setattr(prep_mod, "BATCH", batch)  # 3: many batches, made on two threads
        lazy = LazyHashes(ids, texts, params)
        lazy.load(range(len(ids)))
        assert len(calls) == -(-len(ids) // batch) and lazy.held == len(ids)
        expected = sh.shingle_sets(normalize_batch([texts[d] for d in ids], params.normalize), params.k)
        assert all(np.array_equal(x, y) for x, y in zip(lazy, expected))
    assert "neardup_gui.core._prepkernel" in sys.modules


def test_the_sorted_set_kernel_equals_numpy_unique_on_awkward_inputs() -> None:
    """``sorted_sets`` buckets hashes by their top bits: inputs that are not uniform (repeats, one
    crowded bucket, extreme values) and sizes at the edges must still come out sorted and distinct."""
    from neardup_gui.core import _prepkernel

    rng = np.random.default_rng(11)
    docs = [rng.integers(0, 2**64, int(n), dtype=np.uint64) for n in rng.integers(0, 2500, 200)]
    docs += [
        np.zeros(0, dtype=np.uint64),
        np.array([5], dtype=np.uint64),
        np.repeat(rng.integers(0, 2**64, 3, dtype=np.uint64), 500),  # one window repeated
        rng.integers(0, 2**20, 1800, dtype=np.uint64),  # all in the lowest bucket
        np.full(700, 2**64 - 1, dtype=np.uint64),
        np.arange(1024, dtype=np.uint64)[::-1] << np.uint64(40),  # descending, crowded buckets
        np.array([2**64 - 1, 0, 2**63, 2**63 - 1, 0], dtype=np.uint64),
    ]
    bounds = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([d.size for d in docs], out=bounds[1:])
    windows = np.concatenate(docs)
    out_bounds = np.empty_like(bounds)
    _prepkernel.sorted_sets(windows, bounds, out_bounds)
    for i, doc in enumerate(docs):
        assert np.array_equal(windows[out_bounds[i] : out_bounds[i + 1]], np.unique(doc)), i


@pytest.mark.parametrize("k", [1, 2, 3, 4, 7, 13, 32])
def test_rolling_window_hashes_equal_the_hashes_computed_afresh(k) -> None:
    """The kernels roll each window's polynomial on from the last one's (the leaving code point's
    weight taken off modulo 2**64); every window, whatever its code points, must hash as
    ``shingles.window_hashes`` hashes it alone, and texts shorter than k give none."""
    from neardup_gui.core import _prepkernel
    from neardup_gui.core import shingles as sh

    rng = np.random.default_rng(k)
    docs = [rng.integers(0, 0x110000, int(n), dtype=np.uint32) for n in rng.integers(0, 3 * k + 40, 60)]
    docs += [np.full(k + 5, 0x10FFFF, dtype=np.uint32), np.zeros(k, dtype=np.uint32), np.arange(k - 1, dtype=np.uint32)]
    base = sh.window_base(k)
    for doc in docs:
        out = np.empty(doc.size + 1, dtype=np.uint64)
        out[0] = 12345  # what was there before ``w`` stays
        end = _prepkernel._windows_into(doc, 0, doc.size, k, base, out, 1)
        assert out[0] == 12345
        assert np.array_equal(out[1:end], sh.window_hashes(doc, k))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_compiled_digest_of_normalized_texts_equals_the_numpy_one(monkeypatch, seed: int) -> None:
    from neardup_gui.core import _prepkernel
    from neardup_gui.core.methods import exact

    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 2500, 120)
    lengths[[0, 7, 119]] = 0  # empty texts first, inside and last
    bounds = np.full(lengths.size + 1, 5, dtype=np.int64)  # a batch that does not start at 0
    np.cumsum(lengths, out=bounds[1:])
    bounds[1:] += 5
    cps = rng.integers(0, 0x110000, int(bounds[-1]) + 3, dtype=np.uint32)  # every plane
    lanes = np.empty((lengths.size, 2), dtype=np.uint64)
    _prepkernel.batch_digests(cps, bounds, lanes)
    monkeypatch.setattr(exact, "_digest_kernel", lambda total: None)
    in_numpy = exact.normalized_digests(cps, bounds)
    assert exact.digest_bytes(lanes) == in_numpy
    assert len(set(in_numpy)) == lengths.size - 2  # the three empty texts share one
