"""The screening pipeline on texts in memory (no files, no Qt)."""

from __future__ import annotations

import random
import threading

import pytest

from neardup_gui.core.pipeline import screen
from neardup_gui.core.progress import CallbackProgress, Cancelled
from neardup_gui.core.records import FLAG_CONTAINED, FLAG_EXACT_NORMALIZED, Document, ScreenParams
from engine_kit import HoldContainment, StageRecorder

SEED_TEXTS = {
    "A": "资料整理说明：先备份原始稿件，再登记来源与版本。每周归档一次，保留修改记录。",
    "B": "资料整理说明  先备份原始稿件，再登记来源与版本！每周归档一次；保留修改记录。",
    "C": "资料整理说明：先备份原始稿件，再登记来源与版本。每天归档一次，保留修改记录。",
    "D": "资料整理说明：本文供内部参考。摄影素材需要登记镜头焦距与拍摄位置。",
    "E": "盆栽养护记录：观察叶片状态，按照土壤湿度调整浇水频率。",
}
SEED_PARAMS = ScreenParams(k=3, num_perm=64, bands=16, rows=4)


def docs_for(texts: dict[str, str]) -> list[Document]:
    return [
        Document(k, "demo", "v1", f"{k}.txt", len(v.encode()), 0.0, f"sha-{k}", "utf-8", len(v), "ok")
        for k, v in sorted(texts.items())
    ]


def pairs(result) -> dict[tuple[str, str], object]:
    return {(c.left, c.right): c for c in result.candidates}


def test_seed_example_finds_the_copy_and_the_revision_but_not_the_unrelated_text() -> None:
    result = screen(docs_for(SEED_TEXTS), SEED_TEXTS, SEED_PARAMS)
    found = pairs(result)
    assert found[("A", "B")].jaccard == 1.0
    assert FLAG_EXACT_NORMALIZED in found[("A", "B")].flags
    assert round(found[("A", "C")].jaccard, 4) == 0.8235
    assert not any("E" in key for key in found)
    assert (result.bands, result.rows) == (16, 4)


def test_shared_passages_point_at_the_same_raw_text_on_both_sides() -> None:
    result = screen(docs_for(SEED_TEXTS), SEED_TEXTS, SEED_PARAMS)
    cand = pairs(result)[("A", "C")]
    assert cand.segments
    for seg in cand.segments:
        left = SEED_TEXTS["A"][seg.left_start : seg.left_end]
        right = SEED_TEXTS["C"][seg.right_start : seg.right_end]
        assert left == right and len(left) >= 3
    assert "每周" not in "".join(SEED_TEXTS["A"][s.left_start : s.left_end] for s in cand.segments)


def _random_text(rng: random.Random, n: int) -> str:
    return "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(n))


@pytest.mark.parametrize("all_scores", ["auto", "always", "never"])
def test_the_stages_are_reported_in_the_bar_s_order_with_or_without_the_extra_scores(all_scores: str) -> None:
    from neardup_gui.core.progress import STAGES

    rng = random.Random(8)
    texts = {f"t{i}": _random_text(rng, 600) for i in range(12)}
    texts["copy"] = texts["t3"][:500] + "另有补充。"
    progress = StageRecorder()
    result = screen(docs_for(texts), texts, ScreenParams(k=5, all_scores=all_scores), progress)
    scored = all(c.tfidf_cosine is not None for c in result.candidates)
    assert result.candidates and scored == (all_scores != "never")
    order = [name for name, _weight in STAGES]
    at = [order.index(stage) for stage in progress.seen]
    assert at == sorted(at) and "candidates" in progress.seen  # never back to an earlier stage


def test_an_excerpt_of_a_long_article_is_found_by_containment_despite_low_jaccard() -> None:
    rng = random.Random(3)
    long_text = _random_text(rng, 4000)
    excerpt = long_text[1500:1900]
    texts = {"long": long_text, "excerpt": excerpt, "other": _random_text(rng, 800)}
    result = screen(docs_for(texts), texts, ScreenParams(k=5))
    cand = pairs(result)[("excerpt", "long")]
    assert cand.jaccard < 0.2
    assert cand.containment_left == pytest.approx(1.0)
    assert FLAG_CONTAINED in cand.flags
    assert "containment" in cand.methods
    assert len(result.candidates) == 1


@pytest.mark.parametrize("compiled", [True, False])
def test_an_edited_quotation_inside_a_book_shows_its_shared_passage(compiled: bool, monkeypatch) -> None:
    # A single diff of the quotation against 160,000 characters gave up on the kernel's budget:
    # the pair was kept (its scores come from shingle sets) but shown without any shared passage.
    from neardup_gui.core import diffspans

    monkeypatch.setattr(diffspans, "_ready", compiled and diffspans.load_kernel())
    rng = random.Random(8)
    book = _random_text(rng, 160_000)
    quoted = book[90_000:91_500]
    quotation = "转引如下：" + quoted[:700] + "（略）" + quoted[700:]
    texts = {"book": book, "quotation": quotation, "other": _random_text(rng, 1500)}
    result = screen(docs_for(texts), texts, ScreenParams(k=5))
    cand = pairs(result)[("book", "quotation")]
    assert FLAG_CONTAINED in cand.flags
    shown = sorted((s.left_start, s.left_end) for s in cand.segments)
    assert shown == [(90_000, 90_700), (90_700, 91_500)]
    for seg in cand.segments:
        assert book[seg.left_start : seg.left_end] == quotation[seg.right_start : seg.right_end]


def test_without_the_containment_index_the_excerpt_is_not_reported() -> None:
    rng = random.Random(3)
    long_text = _random_text(rng, 4000)
    texts = {"long": long_text, "excerpt": long_text[1500:1900]}
    result = screen(docs_for(texts), texts, ScreenParams(k=5, containment_threshold=0.0))
    assert result.candidates == ()


def test_identical_texts_form_exact_groups_with_every_pair_reported() -> None:
    rng = random.Random(5)
    body = _random_text(rng, 600)
    texts = {"a": body, "b": " " + body + "\n", "c": body.replace(body[10], body[10] + "，", 1), "x": _random_text(rng, 600)}
    result = screen(docs_for(texts), texts, ScreenParams())
    found = pairs(result)
    assert set(found) == {("a", "b"), ("a", "c"), ("b", "c")}
    assert all(FLAG_EXACT_NORMALIZED in c.flags and c.jaccard == 1.0 for c in found.values())


def test_near_duplicates_in_a_larger_set_are_all_found_and_nothing_else() -> None:
    rng = random.Random(11)
    texts = {f"doc{i:03d}": _random_text(rng, 800) for i in range(120)}
    planted = set()
    for i in range(0, 30, 3):
        src = texts[f"doc{i:03d}"]
        chars = list(src)
        for _ in range(20):  # ~2.5 % of characters changed
            chars[rng.randrange(len(chars))] = chr(0x4E00 + rng.randrange(3000))
        texts[f"doc{i:03d}x"] = "".join(chars)
        planted.add((f"doc{i:03d}", f"doc{i:03d}x"))
    result = screen(docs_for(texts), texts, ScreenParams())
    assert set(pairs(result)) == planted


def test_texts_shorter_than_k_are_listed_as_not_compared() -> None:
    texts = dict(SEED_TEXTS, F="短文")
    result = screen(docs_for(texts), texts, SEED_PARAMS)
    status = {d.doc_id: d.status for d in result.documents}
    assert status["F"] == "no_shingles"
    assert not any("F" in key for key in pairs(result))


def test_same_input_gives_identical_results() -> None:
    rng = random.Random(2)
    texts = {f"d{i}": _random_text(rng, 300) for i in range(40)}
    texts["d0x"] = texts["d0"][:250] + _random_text(rng, 30)
    a = screen(docs_for(texts), texts, ScreenParams())
    b = screen(docs_for(texts), texts, ScreenParams())
    assert a.candidates == b.candidates and a.candidates


def test_cancel_raises_and_returns_nothing() -> None:
    event = threading.Event()
    event.set()
    with pytest.raises(Cancelled):
        screen(docs_for(SEED_TEXTS), SEED_TEXTS, SEED_PARAMS, CallbackProgress(cancel_event=event))


class _Boom(Exception):
    pass


class _StopInCandidates(CallbackProgress):
    """In the candidates stage (LSH reports it, on the caller's thread), ``check`` on the
    containment index's own thread raises ``_Boom``; on the caller's thread it cancels."""

    def __init__(self, where: str) -> None:
        super().__init__(min_interval=0)
        self.where = where
        self.in_candidates = False

    def report(self, stage: str, done: int, total: int) -> None:
        self.in_candidates = stage == "candidates"
        super().report(stage, done, total)

    def check(self) -> None:
        name = threading.current_thread().name
        if self.where == "containment" and name.startswith("neardup-containment"):
            raise _Boom
        if self.where == "lsh" and self.in_candidates and name == "MainThread":
            self.cancel_event.set()
        super().check()


@pytest.mark.parametrize(("where", "raised"), [("containment", _Boom), ("lsh", Cancelled)])
def test_an_error_or_cancel_during_candidates_stops_both_threads(where: str, raised: type) -> None:
    rng = random.Random(5)
    texts = {f"t{i}": _random_text(rng, 600) for i in range(40)}
    texts["copy"] = texts["t1"][100:500]
    with pytest.raises(raised):
        screen(docs_for(texts), texts, ScreenParams(k=5), _StopInCandidates(where))
    assert not [t for t in threading.enumerate() if t.name.startswith("neardup-containment")]


def test_progress_reaches_every_stage_in_order() -> None:
    seen: list[str] = []
    progress = CallbackProgress(lambda stage, done, total: seen.append(stage), min_interval=0)
    screen(docs_for(SEED_TEXTS), SEED_TEXTS, SEED_PARAMS, progress)
    order = list(dict.fromkeys(seen))
    assert order[:4] == ["normalize", "shingle", "candidates", "verify"]


def test_while_the_containment_index_is_built_the_pairs_found_so_far_are_handed_on() -> None:
    from neardup_gui.core.pipeline import METHOD_CONTAINMENT, METHOD_EXACT, METHOD_MINHASH, prepare, propose

    rng = random.Random(11)
    texts = {f"t{i:02d}": _random_text(rng, 500) for i in range(30)}
    texts["copy"] = texts["t03"]
    texts["edit"] = texts["t07"][:300] + "改" + texts["t07"][301:]
    texts["excerpt"] = texts["t12"][100:400]  # found by containment only
    params = ScreenParams(k=5)
    prepared = prepare(sorted(texts), texts, params)
    progress = HoldContainment()
    calls: list[tuple[set, bool, set]] = []

    def meanwhile(found: set, done, so_far) -> None:
        calls.append((set(found), done(), set(so_far.by_method)))
        progress.released.set()

    proposals = propose(prepared, params, progress, meanwhile=meanwhile)
    by = proposals.by_method
    assert len(calls) == 1
    found, done_then, methods_then = calls[0]
    assert not done_then  # the index was still being built
    assert found == by[METHOD_EXACT] | by[METHOD_MINHASH]
    assert methods_then == {METHOD_EXACT, METHOD_MINHASH}  # the proposals so far: the index's pairs not in yet
    ids = prepared.doc_ids
    named = {(ids[i], ids[j]) for i, j in found}
    assert ("copy", "t03") in named and ("edit", "t07") in named
    excerpt = (ids.index("excerpt"), ids.index("t12"))
    assert tuple(sorted(excerpt)) in by[METHOD_CONTAINMENT] - found  # came later, from the index


def test_verification_rounds_hold_at_most_their_bound_in_characters_and_give_the_same_results(monkeypatch) -> None:
    """Each round of verification recomputes and holds the shingle sets of its documents: rounds
    of long texts stop at ``VERIFY_CHUNK_CHARS`` characters, and the candidates are the same."""
    from neardup_gui.core import pipeline as pipeline_mod
    from neardup_gui.core.prepare import LazyHashes

    rng = random.Random(5)
    texts = {f"doc{i:03d}": _random_text(rng, rng.randrange(300, 2500)) for i in range(60)}
    for i in range(0, 60, 4):  # a light revision beside every fourth text
        chars = list(texts[f"doc{i:03d}"])
        for _ in range(len(chars) // 80):
            chars[rng.randrange(len(chars))] = chr(0x4E00 + rng.randrange(3000))
        texts[f"doc{i:03d}r"] = "".join(chars)
    docs = docs_for(texts)
    whole = screen(docs, texts, ScreenParams())
    held: list[int] = []
    drop = LazyHashes.drop

    def noting(self) -> None:
        held.append(sum(h.size for h in self._cache.values()))
        drop(self)

    monkeypatch.setattr(LazyHashes, "drop", noting)
    monkeypatch.setattr(pipeline_mod, "VERIFY_CHUNK_CHARS", 6000)
    cut = screen(docs, texts, ScreenParams())
    assert len(whole.candidates) >= 15 and cut.candidates == whole.candidates
    assert len(held) >= 4 and max(held) <= 6000  # a set holds fewer shingles than its text has characters
    pairs_ = [(0, j) for j in range(1, 12)] + [(i, i + 1) for i in range(12, 40, 2)]  # doc 0 in many
    chars = [1000 + 500 * (i % 3) for i in range(40)]
    rounds = list(pipeline_mod._rounds(pairs_, chars))
    assert [p for r in rounds for p in r] == pairs_ and len(rounds) > 1

    def held_by(run) -> int:  # each document once, however many of the run's pairs it is in
        return sum(chars[d] for d in {d for p in run for d in p})

    assert all(held_by(r) <= 6000 for r in rounds)
    assert all(held_by([*r, nxt[0]]) > 6000 for r, nxt in zip(rounds, rounds[1:]))  # each as long as allowed
