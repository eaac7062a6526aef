"""The streaming prepare stage: compact per-document state, sets recomputed on demand,
and a boilerplate index counted exactly without holding every shingle set."""

from __future__ import annotations

import random

import numpy as np
import pytest

from neardup_gui.core import prepare as prep_mod
from neardup_gui.core import shingles as sh
from neardup_gui.core.flags import TemplateIndex
from neardup_gui.core.memory import bounded_runs
from neardup_gui.core.methods.containment import sampled
from neardup_gui.core.methods.minhash_lsh import signatures
from neardup_gui.core.pipeline import LazyHashes, screen
from neardup_gui.core.prepare import prepare
from neardup_gui.core.records import Document, ScreenParams

HEADER = "本报讯 编辑部通知：以下内容仅供内部交流使用，转载请注明出处与作者姓名。\n"


def _text(rng: random.Random, n: int) -> str:
    return "".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(n))


def _corpus(n: int, seed: int = 5) -> dict[str, str]:
    """n documents: ~40 % under one shared header, some copies, light edits and excerpts."""
    rng = random.Random(seed)
    texts: dict[str, str] = {}
    for i in range(n):
        body = _text(rng, rng.randrange(150, 600))
        texts[f"d{i:04d}"] = (HEADER if i % 5 < 2 else "") + body
    ids = sorted(texts)
    for i in range(0, n - 3, 9):
        src = texts[ids[i]]
        texts[ids[i + 1]] = src  # exact copy
        chars = list(src)
        for _ in range(4):
            chars[rng.randrange(len(chars))] = chr(0x4E00 + rng.randrange(2500))
        texts[ids[i + 2]] = "".join(chars)  # light edit
        texts[ids[i + 3]] = src[len(src) // 3 : len(src) // 3 + 120]  # excerpt
    texts["tiny"] = "短"
    return texts


def _docs(texts: dict[str, str]) -> list[Document]:
    return [
        Document(k, "src", "v1", f"{k}.txt", len(v.encode()), 0.0, f"sha-{k}", "utf-8", len(v), "ok")
        for k, v in sorted(texts.items())
    ]


PARAMS = ScreenParams(k=5)


def test_compact_prepare_keeps_the_same_signatures_samples_and_digests_as_full_sets() -> None:
    texts = _corpus(120)
    ids = sorted(texts)
    full = prepare(ids, texts, PARAMS, keep_hashes=True)
    compact = prepare(ids, texts, PARAMS, keep_hashes=False)
    assert full.doc_ids == compact.doc_ids and "tiny" in compact.no_shingles
    assert full.digests == compact.digests
    assert np.array_equal(full.signatures, compact.signatures)
    assert np.array_equal(full.signatures, signatures(list(full.hashes), PARAMS.num_perm, PARAMS.seed))
    for a, b, h in zip(full.samples, compact.samples, full.hashes):
        assert np.array_equal(a, b)
        assert np.array_equal(a, sampled(h, PARAMS.containment_sample))
    assert isinstance(compact.hashes, LazyHashes) and compact.hashes.held == 0
    assert np.array_equal(compact.hashes[7], full.hashes[7])
    assert compact.size(7) == full.size(7) == full.hashes[7].size


def test_lazy_hashes_recompute_only_what_is_asked_and_can_forget_it() -> None:
    texts = _corpus(40)
    ids = sorted(texts)
    compact = prepare(ids, texts, PARAMS, keep_hashes=False)
    compact.load_hashes([1, 2, 2, 5])
    assert compact.hashes.held == 3
    assert np.array_equal(compact.hashes[5], sh.shingle_set(_norm(texts[compact.doc_ids[5]]), PARAMS.k))
    compact.hashes.drop()
    assert compact.hashes.held == 0


def _norm(text: str) -> np.ndarray:
    from neardup_gui.core.normalize import normalize

    return normalize(text, PARAMS.normalize).cps


def test_small_corpus_boilerplate_index_equals_the_one_built_from_every_set() -> None:
    texts = _corpus(150)
    ids = sorted(texts)
    compact = prepare(ids, texts, PARAMS, keep_hashes=False)
    reference = TemplateIndex.build(list(prepare(ids, texts, PARAMS).hashes), k=PARAMS.k, options=PARAMS.normalize)
    assert compact.template is not None and not compact.template.is_empty()
    assert np.array_equal(compact.template.boilerplate, reference.boilerplate)
    assert np.array_equal(compact.template.doc_counts, reference.doc_counts)
    assert compact.template.min_count == reference.min_count


@pytest.mark.parametrize("sample", [16, 40])
def test_sampled_boilerplate_counts_are_exact_for_a_corpus_larger_than_the_sample(monkeypatch, sample) -> None:
    texts = _corpus(300, seed=9)
    ids = sorted(texts)
    reference = TemplateIndex.build(list(prepare(ids, texts, PARAMS).hashes), k=PARAMS.k, options=PARAMS.normalize)
    monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE", sample)
    got = prepare(ids, texts, PARAMS, keep_hashes=False).template
    assert got is not None and reference.boilerplate.size > 20
    assert np.array_equal(got.boilerplate, reference.boilerplate)
    assert np.array_equal(got.doc_counts, reference.doc_counts)
    assert (got.min_count, got.documents) == (reference.min_count, reference.documents)


def test_screen_results_do_not_depend_on_how_the_boilerplate_was_counted(monkeypatch) -> None:
    texts = _corpus(200, seed=3)
    docs = _docs(texts)
    before = screen(docs, texts, PARAMS)
    monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE", 24)
    after = screen(docs, texts, PARAMS)
    assert len(before.candidates) > 30
    assert before.candidates == after.candidates


def test_batches_are_cut_by_characters_as_well_and_give_the_same_results(monkeypatch) -> None:
    """A folder of long manuscripts is prepared in batches of a bounded size (256 texts of 75,000
    characters held ~400 MB at once): cut smaller, every result is the same."""
    texts = _corpus(160, seed=8)
    ids = sorted(texts)
    whole = prepare(ids, texts, PARAMS, keep_hashes=False)
    monkeypatch.setattr(prep_mod, "BATCH_CHARS", 3000)
    items = [(i, texts[d]) for i, d in enumerate(ids)]
    batches = list(prep_mod._batches(items))
    assert [item for b in batches for item in b] == items and len(batches) > 20
    assert all(sum(len(t) for _, t in b) <= 3000 or len(b) == 1 for b in batches)
    assert any(len(b) > 1 for b in batches)
    cut = prepare(ids, texts, PARAMS, keep_hashes=False)
    assert cut.doc_ids == whole.doc_ids and cut.digests == whole.digests
    assert np.array_equal(cut.signatures, whole.signatures)
    assert all(np.array_equal(a, b) for a, b in zip(cut.samples, whole.samples))
    assert all(np.array_equal(a, b) for a, b in zip(cut.boiler_hits, whole.boiler_hits))
    assert np.array_equal(cut.template.boilerplate, whole.template.boilerplate)
    cut.load_hashes(range(len(cut)))  # recomputed in batches cut the same way
    assert all(np.array_equal(cut.hashes[i], whole.hashes[i]) for i in range(len(cut)))


def test_long_documents_are_sampled_fewer_and_their_boilerplate_is_still_counted_exactly(monkeypatch) -> None:
    """The boilerplate sample holds its documents' full sets at once: long documents are sampled
    fewer, as many as fit ``TEMPLATE_SAMPLE_CHARS`` on average, and the counts stay exact."""
    texts = _corpus(300, seed=9)
    ids = sorted(texts)
    reference = TemplateIndex.build(list(prepare(ids, texts, PARAMS).hashes), k=PARAMS.k, options=PARAMS.normalize)
    lengths = [len(texts[d]) for d in ids]
    monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE_CHARS", sum(lengths) // 6)
    sample = prep_mod._template_sample(lengths)
    assert len(sample) == 50 and sample == sorted(set(sample)) and sample[-1] >= 290  # spread over all
    chosen = []
    choose = prep_mod._Preparer._choose_boiler
    monkeypatch.setattr(prep_mod._Preparer, "_choose_boiler",
                        lambda self, futures, whole: chosen.append((sum(len(f.result().keys) for f in futures), whole))
                        or choose(self, futures, whole))  # fmt: skip
    got = prepare(ids, texts, PARAMS, keep_hashes=False).template
    assert chosen == [(50, False)]
    assert np.array_equal(got.boilerplate, reference.boilerplate) and reference.boilerplate.size > 20
    assert np.array_equal(got.doc_counts, reference.doc_counts)
    monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE_CHARS", sum(lengths))
    assert prep_mod._template_sample(lengths) == list(range(len(ids)))  # all fit: all sampled


def test_a_sample_of_some_documents_takes_as_candidates_the_hashes_in_the_lowered_count(monkeypatch) -> None:
    texts = _corpus(300, seed=9)
    ids = sorted(texts)
    for d in ids[::13]:  # in 1 of 13 documents: in a few of those sampled
        texts[d] += "\n本文图片由通讯员提供，部分数据来自区统计局公开资料。"
    lengths = [len(texts[d]) for d in ids]
    monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE_CHARS", sum(lengths) // 6)  # 50 of 301 sampled
    monkeypatch.setattr(prep_mod, "LOW_SHARE", 0.2)  # the share rule alone would ask for 10 of them
    got = prepare(ids, texts, PARAMS, keep_hashes=False)
    sets = [sh.shingle_set(_norm(texts[ids[p]]), PARAMS.k) for p in prep_mod._template_sample(lengths)]
    lowered = TemplateIndex.build(sets, min_docs=3, min_share=0.0).boilerplate
    assert prep_mod._candidate_count(len({h.tobytes() for h in sets if h.size})) == 3
    assert np.array_equal(got.boiler, lowered)
    assert lowered.size > TemplateIndex.build(sets, min_docs=10, min_share=0.0).boilerplate.size


def test_a_smaller_sample_lowers_the_count_that_makes_a_candidate_so_boilerplate_is_not_missed() -> None:
    """A hash in 3 % of all documents (5 % after a rescan that changed 2 %) must be among the
    candidates of all but one sample in a billion; the sample's own share rule gives that for
    4,096 documents, not for the few hundred long ones a character budget allows. The count is
    lowered for them, but not below 3 (which keeps the bound from 700 sampled documents)."""
    from math import comb

    def missed(n: int, count: int, share: float) -> float:  # P(fewer than ``count`` of n sampled hold it)
        return sum(comb(n, j) * share**j * (1 - share) ** (n - j) for j in range(count))

    for n in (50, 320, 700, 1000, 2000, 4096):
        count = prep_mod._candidate_count(n)
        assert 3 <= count <= max(3, int(prep_mod.LOW_SHARE * n))
        if count > 3:
            assert missed(n, count, 0.03) <= 1e-9
        if count < int(prep_mod.LOW_SHARE * n):  # lowered: one more would miss too often
            assert missed(n, count + 1, 0.03) > 1e-9
    assert prep_mod._candidate_count(4096) == 51 and prep_mod._candidate_count(1000) == 4
    assert prep_mod._candidate_count(320) == 3  # a text and its revision sampled are not enough
    assert prep_mod._candidate_count(1000, whole=True) == 12  # every document sampled: counts are exact


@pytest.mark.parametrize("candidates", [500, 300_000])
def test_boilerplate_hits_are_exact_whatever_the_size_of_the_prefilter(candidates) -> None:
    """Many candidates (long texts sampled, revisions among them) get more buckets so that most
    hashes still find theirs empty; the hits found through them, by numpy and by the kernel, are
    the positions a plain lookup gives (the extreme hash values and neighbours of candidates
    included)."""
    rng = np.random.default_rng(candidates)
    values = np.unique(np.concatenate([
        rng.integers(0, 2**64 - 1, candidates, dtype=np.uint64, endpoint=True),
        np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64),
    ]))  # fmt: skip
    table = prep_mod._prefilter(values)
    assert table.size == (1 << 16 if candidates == 500 else 1 << 20) + 1
    shift = prep_mod._prefilter_shift(table)
    for t in rng.choice(table.size - 1, 200).tolist() + [0, table.size - 2]:  # a bucket holds its top bits
        assert np.array_equal(values[table[t] : table[t + 1]], values[(values >> shift) == t])
    assert np.mean(table[1:] > table[:-1]) < 1 / 3  # most hashes are ruled out by their empty bucket
    neighbours = np.concatenate([values[:30] + np.uint64(1), values[-30:] - np.uint64(1)])
    docs = [np.concatenate([rng.choice(values, 40), rng.integers(0, 2**64 - 1, 3000, dtype=np.uint64)])
            for _ in range(5)]
    docs[2] = np.concatenate([docs[2], neighbours, values[:2], values[-2:]])
    docs[1] = np.concatenate([docs[1], docs[1][:20]])  # window hashes repeat
    expected = [np.unique(np.searchsorted(values, d[np.isin(d, values)])).astype(np.int32) for d in docs]
    assert all(e.size >= 35 for e in expected)
    assert all(np.array_equal(prep_mod._hits(d, values, True, table), e) for d, e in zip(docs, expected))
    windows = np.concatenate(docs)
    bounds = np.cumsum([0, *[d.size for d in docs]])
    got = prep_mod._batch_hits(windows, bounds[:-1], bounds[1:], values, table)
    assert all(np.array_equal(g, e) for g, e in zip(got, expected))
    kernel = prep_mod._prep_kernels()
    if kernel is not None:
        found, found_bounds = np.empty(windows.size, dtype=np.int32), np.empty(len(docs) + 1, dtype=np.int64)
        kernel.batch_hits(windows, bounds.astype(np.int64), values, table, found, found_bounds)
        got = [found[found_bounds[i] : found_bounds[i + 1]] for i in range(len(docs))]
        assert all(np.array_equal(g, e) for g, e in zip(got, expected))


@pytest.mark.parametrize("candidates", [1_500, 300_000])
def test_a_long_drafts_many_hits_come_sorted_and_once_each_from_the_kernel(candidates) -> None:
    """A folder of drafts makes most of a long text's windows boilerplate candidates: thousands of
    hits a document, sorted by radix passes in the kernel (one or two passes as the number of
    candidates needs). They must be the sorted distinct positions a plain lookup gives."""
    kernel = prep_mod._prep_kernels()
    if kernel is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(candidates + 1)
    values = np.unique(rng.integers(0, 2**64 - 1, candidates, dtype=np.uint64, endpoint=True))
    table = prep_mod._prefilter(values)
    docs = [
        rng.choice(values, 20_000),  # a long draft: nearly every window a candidate, many repeated
        np.concatenate([rng.choice(values, 600), rng.integers(0, 2**64 - 1, 600, dtype=np.uint64)]),
        np.concatenate([values[-700:], values[:700]])[::-1].copy(),  # the first and last positions
        rng.choice(values, 300),  # few: sorted by comparisons
        np.zeros(0, dtype=np.uint64),
    ]
    expected = [np.unique(np.searchsorted(values, d[np.isin(d, values)])).astype(np.int32) for d in docs]
    assert expected[0].size > 1_000 and expected[2].size == min(1_400, candidates)
    windows = np.concatenate(docs)
    bounds = np.cumsum([0, *[d.size for d in docs]]).astype(np.int64)
    found, found_bounds = np.empty(windows.size, dtype=np.int32), np.empty(len(docs) + 1, dtype=np.int64)
    kernel.batch_hits(windows, bounds, values, table, found, found_bounds)
    got = [found[found_bounds[i] : found_bounds[i + 1]] for i in range(len(docs))]
    assert all(np.array_equal(g, e) for g, e in zip(got, expected))


def test_positions_past_two_radix_digits_sort_in_a_third_pass() -> None:
    kernel = prep_mod._prep_kernels()
    if kernel is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(7)
    for top in (2**22 + 5, 2**31 - 1):  # more candidates than two passes of 11 bits can order
        part = rng.integers(0, top, 3_000).astype(np.int32)
        part[:50] = part[50:100]  # repeats
        values = np.concatenate([np.array([9, 9], dtype=np.int32), part, np.array([1], dtype=np.int32)])
        end = kernel._sort_unique_positions(values, 2, 2 + part.size, np.empty(part.size, dtype=np.int32))
        assert np.array_equal(values[2:end], np.unique(part)) and values[:2].tolist() == [9, 9]


# ---------------------------------------------------------------------------
# The cache of an earlier run (incremental rescans)


def _keys(texts: dict[str, str]) -> dict[str, str]:
    import hashlib

    return {d: hashlib.sha256(t.encode("utf-8")).hexdigest() for d, t in texts.items()}


def _same(a, b) -> None:
    assert a.doc_ids == b.doc_ids and a.no_shingles == b.no_shingles
    assert a.digests == b.digests and a.normalized_chars == b.normalized_chars
    assert np.array_equal(a.signatures, b.signatures)
    assert all(np.array_equal(x, y) for x, y in zip(a.samples, b.samples))
    assert np.array_equal(a.template.boilerplate, b.template.boilerplate)
    assert np.array_equal(a.template.doc_counts, b.template.doc_counts)
    assert (a.template.min_count, a.template.documents) == (b.template.min_count, b.template.documents)


def test_a_rescan_of_unchanged_texts_takes_every_document_from_the_cache() -> None:
    texts = _corpus(150)
    ids = sorted(texts)
    first = prepare(ids, texts, PARAMS, keep_hashes=False, keys=_keys(texts))
    assert first.cache is not None and len(first.cache) > 100 and first.reused == 0
    again = prepare(ids, texts, PARAMS, keep_hashes=False, keys=_keys(texts), cache=first.cache)
    assert again.reused == len(ids) - 1  # all but the one too short to compare
    _same(again, first)


@pytest.mark.parametrize("sample", [None, 40, "chars"])
def test_a_rescan_with_one_percent_changed_equals_a_fresh_screen(monkeypatch, sample) -> None:
    if sample == "chars":  # sampled by a character budget: 33 documents, candidates from 3 of them
        monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE_CHARS", 12_000)
    elif sample:
        monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE", sample)
    texts = _corpus(300, seed=11)
    ids = sorted(texts)
    first = prepare(ids, texts, PARAMS, keep_hashes=False, keys=_keys(texts))
    changed = dict(texts)
    rng = random.Random(2)
    for d in ids[10:13]:
        changed[d] = _text(rng, 300)  # 3 of 301 rewritten
    del changed[ids[20]]  # one removed
    changed["new-one"] = texts[ids[30]] + "补充一段新的文字。"  # one added
    new_ids = sorted(changed)
    again = prepare(new_ids, changed, PARAMS, keep_hashes=False, keys=_keys(changed), cache=first.cache)
    fresh = prepare(new_ids, changed, PARAMS, keep_hashes=False)
    assert again.reused == len(new_ids) - 5  # the tiny one is not compared
    _same(again, fresh)


def _families(families: int = 25, drafts: int = 16, seed: int = 6) -> dict[str, str]:
    """Every manuscript kept as ``drafts`` successive drafts (a few characters edited in each), and
    a shared header in two fifths of them: a family is 4 % of the folder, the header 40 %."""
    rng = random.Random(seed)
    texts: dict[str, str] = {}
    for m in range(families):
        draft = _text(rng, 500)
        for d in range(drafts):
            chars = list(draft)
            for _ in range(3):
                chars[rng.randrange(len(chars))] = chr(0x4E00 + rng.randrange(2500))
            draft = "".join(chars)
            texts[f"m{m:02d}-d{d:02d}"] = (HEADER if (m * drafts + d) % 5 < 2 else "") + draft
    return texts


@pytest.mark.parametrize("compiled", [False, True])
def test_a_second_sample_drops_the_candidates_of_families_of_drafts_and_counts_stay_exact(monkeypatch,
                                                                                          compiled) -> None:
    # The first sample (a quarter of the folder) holds 4 drafts of every family: each family's
    # shingles reach the count that makes a candidate. With the second sample the count asked is
    # larger (as ``_candidate_count`` gives for more documents; here set so that a folder of 400
    # shows it) and only the header's stay; the template, every document's hits and a rescan
    # are those of counting every candidate of the first sample.
    if compiled and prep_mod._prep_kernels() is None:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(prep_mod, "_kernels_warm", compiled)
    texts = _families()
    ids = sorted(texts)
    lengths = [len(texts[d]) for d in ids]
    monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE_CHARS", sum(lengths) // 4)
    assert len(prep_mod._template_sample(lengths)) == 100
    real_count = prep_mod._candidate_count
    monkeypatch.setattr(prep_mod, "_candidate_count", lambda n, whole=False: 3 if n <= 100 else 20)
    monkeypatch.setattr(prep_mod, "SECOND_SAMPLE_FROM", 10**9)
    every = prepare(ids, texts, PARAMS, keep_hashes=False, keys=_keys(texts))
    monkeypatch.setattr(prep_mod, "SECOND_SAMPLE_FROM", 1_000)
    kept = prepare(ids, texts, PARAMS, keep_hashes=False, keys=_keys(texts))

    assert every.boiler.size > 10_000 and 0 < kept.boiler.size < every.boiler.size // 20
    assert np.isin(kept.boiler, every.boiler).all()
    _same(kept, every)
    assert kept.template.boilerplate.size > 20  # the header
    for i in range(len(kept)):  # each document's hits: its hashes among the kept candidates
        mine = sh.shingle_set(_norm(texts[kept.doc_ids[i]]), PARAMS.k)
        assert np.array_equal(kept.boiler[kept.boiler_hits[i]], np.intersect1d(mine, kept.boiler))
    assert kept.cache is not None and np.array_equal(kept.cache.boiler, kept.boiler)

    changed = dict(texts)
    changed["m03-d05"] = _text(random.Random(3), 500)
    again = prepare(ids, changed, PARAMS, keep_hashes=False, keys=_keys(changed), cache=kept.cache)
    monkeypatch.setattr(prep_mod, "_candidate_count", real_count)
    fresh = prepare(ids, changed, PARAMS, keep_hashes=False)
    assert again.reused == len(ids) - 1
    _same(again, fresh)


def test_boilerplate_born_in_the_changed_documents_is_still_counted_exactly(monkeypatch) -> None:
    monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE", 64)
    rng = random.Random(4)
    footer = "\n责任编辑：王小明 本栏目稿件均经作者授权发布，未经许可不得转载使用。"
    ids = [f"n{i:03d}" for i in range(300)]
    texts = {d: _text(rng, 400) + (footer if i % 25 == 0 else "") for i, d in enumerate(ids)}  # 4 %
    first = prepare(ids, texts, PARAMS, keep_hashes=False, keys=_keys(texts))
    assert first.template.is_empty()
    changed = dict(texts)
    for i in (1, 2, 3, 4, 5, 6):  # 2 % gain the footer: now 6 % of the documents hold it
        changed[ids[i]] = texts[ids[i]] + footer
    again = prepare(ids, changed, PARAMS, keep_hashes=False, keys=_keys(changed), cache=first.cache)
    fresh = prepare(ids, changed, PARAMS, keep_hashes=False)
    assert again.reused == 294 and not fresh.template.is_empty()
    _same(again, fresh)


def test_the_cache_is_ignored_when_too_much_changed_or_the_parameters_differ() -> None:
    texts = _corpus(100)
    ids = sorted(texts)
    first = prepare(ids, texts, PARAMS, keep_hashes=False, keys=_keys(texts))
    other_k = prepare(ids, texts, PARAMS.with_(k=3), keep_hashes=False, keys=_keys(texts), cache=first.cache)
    assert other_k.reused == 0
    changed = {d: (t + "改" if i % 10 == 0 else t) for i, (d, t) in enumerate(texts.items())}  # 10 %
    again = prepare(ids, changed, PARAMS, keep_hashes=False, keys=_keys(changed), cache=first.cache)
    assert again.reused == 0
    _same(again, prepare(ids, changed, PARAMS, keep_hashes=False))


def test_pairs_taken_from_an_earlier_screen_are_those_the_boilerplate_change_cannot_affect() -> None:
    import hashlib

    from neardup_gui.core.pipeline import PairMemo

    rng = random.Random(12)
    footer = "\n责任编辑：王小明 本栏目稿件均经作者授权发布，未经许可不得转载使用，违者必究。"
    texts: dict[str, str] = {}
    for i in range(200):
        body = _text(rng, rng.randrange(300, 500))
        texts[f"s{i:03d}"] = body + (footer if i % 25 == 0 else "")  # 4 %: not boilerplate yet
        if i % 4 == 0:  # a light edit of every fourth, with the same ending
            chars = list(texts[f"s{i:03d}"])
            for _ in range(3):
                chars[rng.randrange(200)] = "改"
            texts[f"t{i:03d}"] = "".join(chars)
    params = PARAMS.with_(all_scores="never")

    def run(corpus, previous=None, cache=None):
        docs = [
            Document(d, "src", "v1", f"{d}.txt", 1, 0.0, hashlib.sha256(t.encode()).hexdigest(), "utf-8", len(t), "ok")
            for d, t in sorted(corpus.items())
        ]
        return docs, screen(docs, corpus, params, cache=cache, keep_cache=True, previous=previous)

    docs, first = run(texts)
    sha = {d.doc_id: d.sha256 for d in docs}
    memo = PairMemo(
        params.to_dict(), first.cache.template, {(sha[c.left], sha[c.right]): c for c in first.candidates},
        first.cache.template_min_count,
    )
    changed = dict(texts)
    for d in ("s001", "s002", "s003", "s005", "s006"):  # 2 % more carry the footer: now 6 %
        changed[d] = texts[d] + footer
    _, again = run(changed, previous=memo, cache=first.cache)
    _, fresh = run(changed)
    assert again.counts["prepared_from_cache"] > 0
    assert 0 < again.counts["pairs_from_previous_run"] < len(again.candidates)
    assert first.cache.template.size == 0 < fresh.cache.template.size  # the footer became boilerplate
    assert again.candidates == fresh.candidates


def test_a_taken_over_template_note_names_the_current_corpus_threshold() -> None:
    import hashlib

    from neardup_gui.core.pipeline import PairMemo

    rng = random.Random(21)
    header = "".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(160))  # a long shared masthead
    texts = {f"h{i:03d}": header + _text(rng, 60) for i in range(70)}  # in 70 of 200: boilerplate
    texts.update({f"o{i:03d}": _text(rng, 400) for i in range(128)})
    for i in range(2):  # a pair that quotes a little of the masthead: boilerplate, but far from most of their overlap
        texts[f"o{i:03d}"] = header[:24] + texts[f"o{i:03d}"]
        texts[f"p{i:03d}"] = texts[f"o{i:03d}"][:-20] + "另有改动"
    params = PARAMS.with_(all_scores="never")

    def run(corpus, previous=None, cache=None):
        docs = [
            Document(d, "src", "v1", f"{d}.txt", 1, 0.0, hashlib.sha256(t.encode()).hexdigest(), "utf-8", len(t), "ok")
            for d, t in sorted(corpus.items())
        ]
        return docs, screen(docs, corpus, params, cache=cache, keep_cache=True, previous=previous)

    docs, first = run(texts)
    sha = {d.doc_id: d.sha256 for d in docs}
    memo = PairMemo(
        params.to_dict(), first.cache.template, {(sha[c.left], sha[c.right]): c for c in first.candidates},
        first.cache.template_min_count,
    )
    grown = dict(texts)
    grown.update({f"n{i}": _text(rng, 400) for i in range(4)})  # 2 % more documents: the threshold moves
    _, again = run(grown, previous=memo, cache=first.cache)
    _, fresh = run(grown)
    assert fresh.cache.template_min_count != first.cache.template_min_count
    assert np.array_equal(fresh.cache.template, first.cache.template)  # the same boilerplate
    notes = [e.note for c in fresh.candidates for e in c.evidence if e.flag == "template_only"]
    assert notes and all(f">= {fresh.cache.template_min_count} documents" in n for n in notes)
    assert again.candidates == fresh.candidates
    # Pairs not flagged as template keep their evidence whatever the threshold (their boilerplate
    # shingles are the same before and after).
    assert again.counts["pairs_from_previous_run"] == 2


@pytest.mark.parametrize("compiled", [True, False])
def test_boilerplate_hits_are_held_once_by_the_screen_and_its_new_cache(monkeypatch, compiled) -> None:
    # A folder of one filled-in template has ~1,500 hits a document: int32, one array for both.
    if compiled:
        monkeypatch.setattr(prep_mod, "_COMPILED_MIN_CHARS", 0)  # the kernels, not numpy, for a small folder
    else:
        monkeypatch.setattr(prep_mod, "_prep_kernels", lambda: None)
    monkeypatch.setattr(prep_mod, "TEMPLATE_SAMPLE", 24)  # most batches find their hits after the sample
    texts = _corpus(120)
    ids = sorted(texts)
    out = prepare(ids, texts, PARAMS, keep_hashes=False, keys=_keys(texts))
    assert out.boiler_hits is not None and out.cache is not None
    header_docs = [i for i, d in enumerate(out.doc_ids) if texts[d].startswith(HEADER)]
    assert header_docs and all(out.boiler_hits[i].size for i in header_docs)
    assert {h.dtype for h in out.boiler_hits} == {np.dtype(np.int32)}
    held = {id(h) for h in out.boiler_hits}
    assert all(id(h) in held for h in out.cache.hits if h.size)


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy", "compiled"])
def test_texts_dropped_once_queued_are_freed_batch_by_batch_while_the_others_are_prepared(monkeypatch, compiled) -> None:
    # A large screen drops its texts when prepare has queued them (``queued``), so each is freed as
    # its batch is done, not all at the end: ~300 MB less at the preparing stage's peak at 100,000 files.
    import threading

    freed: list[int] = []

    class Tracked(str):
        def __del__(self) -> None:
            freed.append(1)

    monkeypatch.setattr(prep_mod, "BATCH", 16)
    monkeypatch.setattr(prep_mod, "_kernels_warm", compiled)
    texts = {d: Tracked(t) for d, t in _corpus(200).items()}
    ids = sorted(texts)
    queued = threading.Event()
    freed_by_then: list[int] = []

    def normalized(positions, cps) -> None:
        assert queued.wait(10), "a batch was prepared before every batch was queued"
        freed_by_then.append(len(freed))

    def drop() -> None:
        texts.clear()  # as SourceTexts.forget does
        queued.set()

    out = prepare(ids, texts, PARAMS, keep_hashes=False, normalized=normalized, queued=drop)
    assert len(out.doc_ids) + len(out.no_shingles) == len(ids) and len(freed_by_then) >= 12
    assert freed_by_then[-1] > 0  # texts of batches done were freed while the last was prepared
    assert len(freed) == len(ids)


@pytest.mark.parametrize("most_hits", [1 << 20, 40])
def test_boilerplate_counts_are_made_a_run_of_documents_at_a_time_and_count_each_text_once(monkeypatch,
                                                                                          most_hits) -> None:
    # Runs of at most GIVING_WAY_SLICE documents and _COUNT_HITS hits (long drafts hold thousands
    # each), giving way before each.
    rng = np.random.default_rng(4)
    values = np.arange(50, dtype=np.uint64)
    hits = [np.unique(rng.integers(0, 50, int(n))).astype(np.int32) for n in rng.integers(0, 30, 20)]
    digests = [bytes([i % 7]) * 16 for i in range(20)]  # 7 distinct texts: copies count once
    calls: list[int] = []
    monkeypatch.setattr(prep_mod, "give_way", lambda: calls.append(1))
    monkeypatch.setattr(prep_mod, "GIVING_WAY_SLICE", 3)
    monkeypatch.setattr(prep_mod, "_COUNT_HITS", most_hits)
    got = prep_mod._boiler_counts(values, digests, hits)
    expected = np.zeros(50, dtype=np.int64)
    for i in range(7):  # each text's first document
        expected[hits[i]] += 1
    assert got.documents == 7 and np.array_equal(got.counts, expected)
    counted = [hits[i].size for i in range(7) if hits[i].size]
    by_documents = -(-len(counted) // 3)  # runs of three documents
    if most_hits > sum(counted):
        assert len(calls) == by_documents
    else:  # fewer hits a run: more runs, each within the bound unless one document alone passes it
        assert len(calls) == len(list(bounded_runs(counted, 3, int, most_hits))) > by_documents
