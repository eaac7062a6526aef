"""The streaming prepare stage: compact per-document state, sets recomputed on demand,
and a boilerplate index counted exactly without holding every shingle set."""

from __future__ import annotations

import random

import numpy as np
import pytest

from neardup_gui.core import prepare as prep_mod
from neardup_gui.core import shingles as sh
from neardup_gui.core.flags import TemplateIndex
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


@pytest.mark.parametrize("sample", [None, 40])
def test_a_rescan_with_one_percent_changed_equals_a_fresh_screen(monkeypatch, sample) -> None:
    if sample:
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
