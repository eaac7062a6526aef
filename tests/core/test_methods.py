"""The extra candidate methods: character TF-IDF cosine, SimHash, exact all-pairs Jaccard."""

from __future__ import annotations

import random

import numpy as np
import pytest

from neardup_gui.core import shingles as sh
from neardup_gui.core.methods import exact, simhash
from neardup_gui.core.methods.bruteforce import (
    TooLarge,
    all_pairs_jaccard,
    estimated_seconds,
    format_duration,
)
from neardup_gui.core.methods.tfidf import TfidfModel, ngram_keys
from neardup_gui.core.normalize import codepoints, normalize_batch
from neardup_gui.core.pipeline import pair_scores, prepare, propose
from neardup_gui.core.progress import CallbackProgress, Cancelled
from neardup_gui.core.records import NormalizeOptions, ScreenParams

# The five texts of the character TF-IDF seed and its published scores (4 places).
SEED_TEXTS = [
    "报销单提交后需要直属主管审批，批准后才能付款。",
    "报销单提交后，需要直属主管审批，批准后才可以付款。",
    "报销单提交后不需要直属主管审批，批准后才能付款。",
    "视频配音先上传音频，再选择音色并试听效果。",
    "报销单提交后需要直属主管审批，批准后才能付款。",
]
SEED_SCORES = {
    ("a", "b"): 0.5907,
    ("a", "c"): 0.7967,
    ("a", "e"): 1.0,
    ("b", "c"): 0.5394,
    ("b", "e"): 0.5907,
    ("c", "e"): 0.7967,
}
NAMES = "abcde"


def seed_cps() -> list[np.ndarray]:
    return normalize_batch(SEED_TEXTS, NormalizeOptions.preset("whitespace"))


def random_corpus(n_docs: int, seed: int, alphabet: int = 400, copies: float = 0.3) -> list[str]:
    """Chinese-looking texts over a small alphabet (so short n-grams are common), some of them
    edited copies of others (so some pairs are similar)."""
    rng = random.Random(seed)
    chars = [chr(0x4E00 + i * 7) for i in range(alphabet)]
    weights = [1.0 / (i + 3) for i in range(alphabet)]
    texts: list[str] = []
    for _ in range(n_docs):
        if texts and rng.random() < copies:
            src = list(rng.choice(texts))
            for _ in range(rng.randint(0, max(1, len(src) // 15))):
                src[rng.randrange(len(src))] = rng.choices(chars, weights)[0]
            if rng.random() < 0.3:
                src = src[: rng.randint(len(src) // 2, len(src))]
            texts.append("".join(src))
        else:
            texts.append("".join(rng.choices(chars, weights, k=rng.randint(30, 300))))
    return texts


def raw_cps(texts: list[str]) -> list[np.ndarray]:
    return [codepoints(t).copy() for t in texts]


def all_pairs(n: int) -> np.ndarray:
    i, j = np.triu_indices(n, 1)
    return np.stack([i, j], axis=1).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# TF-IDF


def test_tfidf_reproduces_the_seed_table_to_four_places() -> None:
    model = TfidfModel.fit(seed_cps(), 2, 3)
    for (left, right), expected in SEED_SCORES.items():
        score = model.cosine(NAMES.index(left), NAMES.index(right))
        assert round(score, 4) == expected, (left, right, score)
    # The unrelated text d shares nothing with the others.
    assert all(model.cosine(3, j) == 0.0 for j in (0, 1, 2, 4))


def test_tfidf_candidates_at_the_seed_threshold_are_the_six_published_pairs_with_a_e_identical() -> None:
    cps = seed_cps()
    pairs, scores = TfidfModel.fit(cps).candidates(0.5)
    found = {(NAMES[i], NAMES[j]): round(float(s), 4) for (i, j), s in zip(pairs.tolist(), scores)}
    assert found == SEED_SCORES
    # a and e are the same text after normalization: the exact pass groups them.
    groups = exact.group_by_digest([exact.normalized_digest(c) for c in cps])
    assert [0, 4] in groups and all(len(g) == 1 for g in groups if g != [0, 4])


def test_the_digest_of_a_normalized_text_tells_apart_every_edit_and_reordering() -> None:
    from neardup_gui.core.methods.exact import digests_of, normalized_digest

    rng = np.random.default_rng(4)
    text = rng.integers(0x4E00, 0x9FFF, 600).astype(np.uint32)
    variants = [text, text[:-1], text[1:], np.concatenate([text, text[:1]]), text[::-1].copy(), np.zeros(0, np.uint32)]
    for i in range(0, text.size, 7):  # one character replaced, or two neighbours swapped
        edited = text.copy()
        edited[i] = 0x4E00 + (int(edited[i]) - 0x4E00 + 1) % 0x5200
        swapped = text.copy()
        swapped[[i, i - 1]] = swapped[[i - 1, i]]
        variants += [edited, swapped] if swapped[i] != text[i] else [edited]
    digests = digests_of(variants)
    assert all(len(d) == 16 for d in digests)
    assert len(set(digests)) == len(variants)
    assert digests == [normalized_digest(v) for v in variants]
    assert normalized_digest(text.copy()) == digests[0]  # the same text, the same digest
    # Many short random texts: no two share a digest.
    short = [rng.integers(0, 0x110000, rng.integers(1, 6)).astype(np.uint32) for _ in range(20_000)]
    distinct = {v.tobytes() for v in short}
    assert len(set(digests_of(short))) == len(distinct)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_digest_groups_are_the_groups_by_digest_as_columns(seed: int) -> None:
    rng = random.Random(seed)
    distinct = [rng.randbytes(16) for _ in range(300)]
    # Singletons, pairs, a group past MAX_GROUP_PAIRS, its members scattered through the list.
    digests = distinct + [rng.choice(distinct[:40]) for _ in range(120)] + [distinct[7]] * (exact.MAX_GROUP_PAIRS + 5)
    rng.shuffle(digests)
    lists = exact.group_by_digest(digests)
    groups = exact.digest_groups(digests)
    assert len(groups) == len(lists)
    assert [groups.members(g) for g in range(len(groups))] == lists
    assert list(groups.several()) == [m for m in lists if len(m) > 1]
    assert groups.reps.tolist() == [m[0] for m in lists]
    assert groups.sizes.tolist() == [len(m) for m in lists]
    assert all(groups.of[i] == g for g, members in enumerate(lists) for i in members)


def test_first_occurrences_are_each_items_first_index_in_order() -> None:
    items = ["b", "a", "b", "", "c", "a", ""]
    assert list(exact.first_occurrences(items).items()) == [("b", 0), ("a", 1), ("", 3), ("c", 4)]
    assert exact.first_occurrences(iter(())) == {}


def test_digest_groups_of_nothing_and_of_distinct_digests() -> None:
    empty = exact.digest_groups([])
    assert len(empty) == 0 and list(empty.several()) == []
    groups = exact.digest_groups([b"b", b"a", b"c"])
    assert groups.of.tolist() == [0, 1, 2] and list(groups.several()) == [] and groups.members(1) == [1]


def test_tfidf_equals_sklearn_char_ngrams_on_random_chinese_texts() -> None:
    sklearn_text = pytest.importorskip("sklearn.feature_extraction.text")
    pairwise = pytest.importorskip("sklearn.metrics.pairwise")
    texts = random_corpus(60, seed=3) + ["短", "太短了"]
    for lo, hi in ((2, 3), (1, 2), (3, 5)):
        ours = TfidfModel.fit(raw_cps(texts), lo, hi)
        matrix = sklearn_text.TfidfVectorizer(analyzer="char", ngram_range=(lo, hi)).fit_transform(texts)
        expected = pairwise.cosine_similarity(matrix)
        pairs = all_pairs(len(texts))
        np.testing.assert_allclose(ours.cosines(pairs), expected[pairs[:, 0], pairs[:, 1]], atol=1e-12)
        # The n-grams found in two or more documents and their document frequencies match.
        fitted = sklearn_text.TfidfVectorizer(analyzer="char", ngram_range=(lo, hi)).fit(texts)
        n = len(texts)
        expected_df = {}
        for term, column in fitted.vocabulary_.items():
            df = round((1 + n) / np.exp(fitted.idf_[column] - 1) - 1)
            if df >= 2:
                expected_df[int(ngram_keys(codepoints(term), len(term))[0])] = df
        assert dict(zip(ours.vocab.tolist(), ours.df.tolist())) == expected_df


def test_tfidf_blocked_candidates_equal_the_dense_all_pairs_result() -> None:
    texts = random_corpus(300, seed=11)
    model = TfidfModel.fit(raw_cps(texts))
    dense = (model.matrix @ model.matrix.T).toarray()
    pairs = all_pairs(len(texts))
    for threshold in (0.3, 0.5, 0.8):
        expected = pairs[dense[pairs[:, 0], pairs[:, 1]] >= threshold]
        assert expected.shape[0] > 10
        # Default tuning, tiny blocks, and a split where most n-grams count as "common".
        for kwargs in ({}, {"block": 7}, {"common_df": 2}, {"common_df": 5, "block": 50}):
            got, scores = model.candidates(threshold, **kwargs)
            np.testing.assert_array_equal(got, expected)
            np.testing.assert_allclose(scores, dense[got[:, 0], got[:, 1]], atol=1e-12)
            assert (scores >= threshold).all()


def test_tfidf_candidates_among_chosen_documents_are_the_full_result_restricted_to_them() -> None:
    texts = random_corpus(120, seed=12)
    model = TfidfModel.fit(raw_cps(texts))
    everything, all_scores = model.candidates(0.4)
    rows = np.arange(0, len(texts), 3)
    chosen = set(rows.tolist())
    keep = np.array([i in chosen and j in chosen for i, j in everything.tolist()])
    got, scores = model.candidates(0.4, rows=rows)
    np.testing.assert_array_equal(got, everything[keep])
    np.testing.assert_array_equal(scores, all_scores[keep])
    assert got.shape[0] > 3
    with pytest.raises(ValueError, match="ascending"):
        model.candidates(0.4, rows=rows[::-1])


def test_tfidf_cosine_of_a_text_with_itself_is_one_and_of_a_too_short_text_is_zero() -> None:
    model = TfidfModel.fit(raw_cps(["天气很好", "天气很好", "天"]))
    assert model.cosine(0, 0) == 1.0
    assert model.cosine(0, 1) == pytest.approx(1.0)
    assert model.cosine(0, 2) == 0.0 and model.cosine(2, 2) == 0.0
    assert model.norms[2] == 0.0


# ---------------------------------------------------------------------------------------------
# SimHash


def test_hamming_counts_differing_bits() -> None:
    a = np.array([0, 0b1011, 0xFFFFFFFFFFFFFFFF, 1 << 63], dtype=np.uint64)
    b = np.array([0, 0b0001, 0, 1 << 63], dtype=np.uint64)
    assert simhash.hamming(a, b).tolist() == [0, 2, 64, 0]


def test_simhash_distance_zero_for_identical_texts_small_for_one_edit_large_for_unrelated() -> None:
    rng = random.Random(5)
    base = "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(600))
    edited = base[:300] + "改" + base[301:]
    other = "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(600))
    for weights in ("tfidf", "tf"):
        fps = simhash.fingerprints(raw_cps([base, base, edited, other]), weights=weights)
        d = simhash.hamming(fps[0], fps[1:])
        assert d[0] == 0
        assert d[1] <= 3
        assert d[2] >= 16


def test_simhash_fingerprints_from_a_model_equal_counting_again() -> None:
    cps = raw_cps(random_corpus(80, seed=2))
    model = TfidfModel.fit(cps)
    np.testing.assert_array_equal(
        simhash.fingerprints(cps, weights="tf", model=model), simhash.fingerprints(cps, weights="tf")
    )
    np.testing.assert_array_equal(
        simhash.fingerprints(cps, weights="tfidf", model=model), simhash.fingerprints(cps, weights="tfidf")
    )
    with pytest.raises(ValueError, match="other documents"):
        simhash.fingerprints(cps[:-1], model=model)


def test_simhash_banded_candidates_equal_brute_force_hamming_filtering() -> None:
    rng = np.random.default_rng(8)
    base = rng.integers(0, 2**63, 300, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, 300, dtype=np.uint64)
    near = base.copy()
    for i in range(near.size):  # flip 0..8 random bits
        for bit in rng.choice(64, rng.integers(0, 9), replace=False):
            near[i] ^= np.uint64(1) << np.uint64(bit)
    fps = np.concatenate([base, near, base[:5]])
    pairs = all_pairs(fps.size)
    dist = simhash.hamming(fps[pairs[:, 0]], fps[pairs[:, 1]])
    for max_distance in (0, 1, 3, 6, 20):
        got, got_dist = simhash.candidates(fps, max_distance)
        keep = dist <= max_distance
        np.testing.assert_array_equal(got, pairs[keep])
        np.testing.assert_array_equal(got_dist, dist[keep])
    got, _ = simhash.candidates(fps[:40], 64)
    assert got.shape[0] == 40 * 39 // 2


def test_simhash_blocks_cover_64_bits_in_distance_plus_one_parts() -> None:
    for d in (0, 3, 7, 63):
        parts = simhash.blocks(d)
        assert len(parts) == d + 1
        assert parts[0][0] == 0 and sum(w for _, w in parts) == 64


# ---------------------------------------------------------------------------------------------
# Exact all-pairs Jaccard


def python_jaccards(texts: list[str], k: int) -> dict[tuple[int, int], tuple[float, float]]:
    """Reference with Python sets of k-character strings: (jaccard, max containment) per pair."""
    sets = [{t[p : p + k] for p in range(len(t) - k + 1)} for t in texts]
    out = {}
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            shared = len(sets[i] & sets[j])
            out[(i, j)] = (shared / len(sets[i] | sets[j]), shared / min(len(sets[i]), len(sets[j])))
    return out


def test_brute_force_jaccard_equals_python_sets_on_every_pair() -> None:
    texts = random_corpus(120, seed=4, alphabet=60)
    k = 3
    hashes = [sh.shingle_set(c, k) for c in raw_cps(texts)]
    reference = python_jaccards(texts, k)
    for threshold, contained in ((0.5, 0.0), (0.3, 0.0), (0.7, 0.8)):
        expected = {p: j for p, (j, c) in reference.items() if j >= threshold or (contained and c >= contained)}
        assert len(expected) > 5
        for common_df in (None, 2, 8):
            pairs, scores = all_pairs_jaccard(
                hashes, threshold, containment_threshold=contained, common_df=common_df
            )
            got = {tuple(p): s for p, s in zip(pairs.tolist(), scores.tolist())}
            assert got.keys() == expected.keys()
            assert all(got[p] == pytest.approx(expected[p], abs=1e-12) for p in got)


def test_brute_force_jaccard_agrees_with_the_engine_verification_on_every_candidate() -> None:
    texts = random_corpus(150, seed=9)
    ids = [f"d{i:03d}" for i in range(len(texts))]
    params = ScreenParams(k=3, num_perm=64, threshold=0.4)
    prepared = prepare(ids, dict(zip(ids, texts)), params)
    pairs, scores = all_pairs_jaccard(prepared.hashes, params.threshold)
    for (i, j), score in zip(pairs.tolist(), scores.tolist()):
        assert pair_scores(prepared.hashes[i], prepared.hashes[j]).jaccard == score
    # Every pair MinHash proposes and verification keeps at this threshold is in the reference.
    proposals = propose(prepared, params)
    reference = {tuple(p) for p in pairs.tolist()}
    for i, j in proposals.all_pairs():
        if pair_scores(prepared.hashes[i], prepared.hashes[j]).jaccard >= params.threshold:
            assert (i, j) in reference


def test_brute_force_refuses_a_large_folder_saying_how_long_it_would_take() -> None:
    hashes = [np.arange(10, dtype=np.uint64) + np.uint64(i) for i in range(50)]
    with pytest.raises(TooLarge) as info:
        all_pairs_jaccard(hashes, 0.5, max_seconds=estimated_seconds(50, 10) / 2)
    message = str(info.value)
    assert "about" in message and "50 documents" in message and "--method minhash" in message
    assert isinstance(info.value, ValueError)
    assert estimated_seconds(20_000, 1_400) > estimated_seconds(10_000, 1_400) * 2


def test_durations_read_like_a_person_would_say_them() -> None:
    assert format_duration(12.4) == "12 s"
    assert format_duration(240) == "4 min"
    assert format_duration(3 * 3600 + 20 * 60) == "3 h 20 min"
    assert format_duration(3 * 86400 + 5 * 3600) == "3 days 5 h"


# ---------------------------------------------------------------------------------------------
# Determinism and cancellation


def test_every_method_gives_identical_output_on_two_runs() -> None:
    texts = random_corpus(200, seed=21)

    def run() -> list[np.ndarray]:
        cps = raw_cps(texts)
        model = TfidfModel.fit(cps)
        t_pairs, t_scores = model.candidates(0.4)
        fps = simhash.fingerprints(cps, model=model)
        s_pairs, s_dist = simhash.candidates(fps, 6)
        j_pairs, j_scores = all_pairs_jaccard([sh.shingle_set(c, 3) for c in cps], 0.4)
        return [t_pairs, t_scores, fps, s_pairs, s_dist, j_pairs, j_scores]

    first, second = run(), run()
    for a, b in zip(first, second):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert first[0].shape[0] and first[3].shape[0] and first[5].shape[0]


def test_cancelling_stops_each_method_with_cancelled() -> None:
    cps = raw_cps(random_corpus(40, seed=1))
    model = TfidfModel.fit(cps)
    cancelled = CallbackProgress()
    cancelled.cancel()
    with pytest.raises(Cancelled):
        TfidfModel.fit(cps, progress=cancelled)
    with pytest.raises(Cancelled):
        model.candidates(0.5, progress=cancelled)
    with pytest.raises(Cancelled):
        simhash.fingerprints(cps, model=model, progress=cancelled)
    with pytest.raises(Cancelled):
        simhash.candidates(simhash.fingerprints(cps, model=model), 3, progress=cancelled)
    with pytest.raises(Cancelled):
        all_pairs_jaccard([sh.shingle_set(c, 3) for c in cps], 0.5, progress=cancelled)


def test_no_documents_or_texts_too_short_give_no_pairs_rather_than_errors() -> None:
    for texts in ([], ["天"], ["天", "地"]):
        cps = raw_cps(texts)
        model = TfidfModel.fit(cps)
        assert model.candidates(0.5)[0].shape == (0, 2)
        assert simhash.fingerprints(cps, model=model).tolist() == [0] * len(texts)
        assert all_pairs_jaccard([sh.shingle_set(c, 2) for c in cps], 0.5, containment_threshold=0.5)[0].shape == (0, 2)
    assert simhash.candidates(np.zeros(0, dtype=np.uint64))[0].shape == (0, 2)


# ---------------------------------------------------------------------------------------------
# Memory: a TF-IDF model this machine cannot hold is refused before it is fitted


@pytest.mark.parametrize("alphabet", [400, 3000])
def test_the_tfidf_memory_estimate_is_near_what_fitting_and_the_join_take(alphabet: int) -> None:
    import tracemalloc

    from neardup_gui.core.methods.tfidf import peak_bytes

    cps = raw_cps(random_corpus(1500, seed=3, alphabet=alphabet))
    lengths = [c.size for c in cps]
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        model = TfidfModel.fit(cps)
        fit = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.reset_peak()
        model.candidates(0.5)
        join = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    # Neither far under (a machine swapping for minutes) nor far over (a fitting screen refused).
    assert 0.7 * fit <= peak_bytes(lengths, 2, 3, join=False) <= 2 * fit
    assert 0.7 * join <= peak_bytes(lengths, 2, 3, join=True) <= 2 * join
    assert peak_bytes(lengths, 2, 4, join=False) > 1.4 * peak_bytes(lengths, 2, 3, join=False)  # a third length


@pytest.mark.parametrize(
    ("params", "says"),
    [
        (ScreenParams(method="tfidf"), "The TF-IDF cosine method"),
        (ScreenParams(method="simhash"), "The SimHash method"),
        (ScreenParams(all_scores="always"), "set all scores to auto"),
    ],
)
def test_a_model_this_machine_has_not_the_memory_for_is_refused_before_it_is_fitted(
    params: ScreenParams, says: str, tmp_path, monkeypatch
) -> None:
    from neardup_gui.core import pipeline
    from neardup_gui.core.methods import tfidf
    from neardup_gui.tasks import screen_folder

    src = tmp_path / "src"
    src.mkdir()
    for i, text in enumerate(random_corpus(30, seed=9)):
        (src / f"{i:02d}.txt").write_text(text, encoding="utf-8")
    fitted, prepared = [], []
    real_fit, real_prepare = tfidf.TfidfModel.fit, pipeline.prepare
    monkeypatch.setattr(tfidf.TfidfModel, "fit", staticmethod(lambda *a, **k: fitted.append(1) or real_fit(*a, **k)))
    monkeypatch.setattr(pipeline, "prepare", lambda *a, **k: prepared.append(1) or real_prepare(*a, **k))
    monkeypatch.setattr(pipeline, "available_memory", lambda: 64 * 1024)
    with pytest.raises(TooLarge) as info:
        screen_folder(src, params, out_dir=tmp_path / "out")
    message = str(info.value)
    assert says in message and "of memory at its peak" in message and "30 documents" in message
    # Refused before any document was prepared (at 100,000 files: seconds of work for a no).
    assert not fitted and not prepared and not (tmp_path / "out" / "manifest.csv").exists()
    refusal = info.value
    chars = sum(len(p.read_text(encoding="utf-8")) for p in src.iterdir())
    assert (refusal.what, refusal.documents, refusal.chars) == ("memory", 30, chars)
    assert refusal.method == ("" if params.all_scores == "always" else params.method)
    assert refusal.need > refusal.limit == 64 * 1024  # what a window needs to say it in its own words
    copy = refusal.detached()
    assert refusal.__traceback__ is not None and copy.__traceback__ is None and str(copy) == message
    assert (copy.what, copy.method, copy.documents, copy.chars, copy.need, copy.limit) == (
        refusal.what, refusal.method, refusal.documents, refusal.chars, refusal.need, refusal.limit)
    for room in (None, 64 * 2**30):  # the machine cannot tell, or has room: the screen runs
        monkeypatch.setattr(pipeline, "available_memory", lambda room=room: room)
        outcome = screen_folder(src, params, out_dir=tmp_path / f"out-{room}")
        assert fitted and (tmp_path / f"out-{room}" / "manifest.csv").is_file()
        assert len(outcome.documents) == 30


def test_exact_jaccard_too_long_for_the_folder_is_refused_before_anything_is_prepared(tmp_path, monkeypatch) -> None:
    from neardup_gui.core import pipeline
    from neardup_gui.core.methods import bruteforce
    from neardup_gui.tasks import screen_folder

    src = tmp_path / "src"
    src.mkdir()
    texts = random_corpus(40, seed=4)
    for i, text in enumerate(texts):
        (src / f"{i:02d}.txt").write_text(text, encoding="utf-8")
    for i in range(10):  # byte-identical copies: compared once, so not counted against the limit
        (src / f"copy{i}.txt").write_text(texts[i], encoding="utf-8")
    distinct = len(set(texts))
    mean = sum(map(len, set(texts))) / distinct
    prepared = []
    real_prepare = pipeline.prepare
    monkeypatch.setattr(pipeline, "prepare", lambda *a, **k: prepared.append(1) or real_prepare(*a, **k))
    params = ScreenParams(method="jaccard")
    # A limit just under the estimate for the distinct texts refuses the screen...
    monkeypatch.setattr(bruteforce, "MAX_SECONDS", estimated_seconds(distinct, mean) * 0.99)
    with pytest.raises(TooLarge) as info:
        screen_folder(src, params, out_dir=tmp_path / "out")
    refusal = info.value
    assert "exact Jaccard on all pairs would take about" in str(refusal) and f"{distinct} documents" in str(refusal)
    assert (refusal.what, refusal.method, refusal.documents) == ("time", "jaccard", distinct)
    assert refusal.need > refusal.limit
    assert not prepared and not (tmp_path / "out").exists()
    # ... and one just over it runs it (the copies did not count against it).
    monkeypatch.setattr(bruteforce, "MAX_SECONDS", estimated_seconds(distinct, mean) * 1.01)
    outcome = screen_folder(src, params, out_dir=tmp_path / "out")
    assert prepared and len(outcome.documents) == 50
    path_of = {d.doc_id: d.path for d in outcome.documents}
    found = {frozenset((path_of[c.left], path_of[c.right])) for c in outcome.candidates}
    assert {frozenset((f"{i:02d}.txt", f"copy{i}.txt")) for i in range(10)} <= found
