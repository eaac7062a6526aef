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
