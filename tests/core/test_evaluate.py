"""Evaluation on labelled pairs: the seed's definitions, LSH misses, shingle sizes, splits (no Qt)."""

from __future__ import annotations

import itertools
import math
import random
import subprocess
import sys

import numpy as np
import pytest

from neardup_gui.core.evaluate import (
    AuditTooLargeError,
    LabelledPair,
    error_reason,
    evaluate,
    metric_curve,
    outcome,
    s_curve,
    split_by_source,
    split_leaks,
)
from neardup_gui.core.pipeline import pair_scores, prepare
from neardup_gui.core.records import ScreenParams

# The seed's A–E example: B is A with other punctuation, C changes 每周 -> 每天 (a valid revision),
# D shares only the opening words, E is another topic.
SEED_TEXTS = {
    "A": "资料整理说明：先备份原始稿件，再登记来源与版本。每周归档一次，保留修改记录。",
    "B": "资料整理说明  先备份原始稿件，再登记来源与版本！每周归档一次；保留修改记录。",
    "C": "资料整理说明：先备份原始稿件，再登记来源与版本。每天归档一次，保留修改记录。",
    "D": "资料整理说明：本文供内部参考。摄影素材需要登记镜头焦距与拍摄位置。",
    "E": "盆栽养护记录：观察叶片状态，按照土壤湿度调整浇水频率。",
}
SEED_PARAMS = ScreenParams(k=3, num_perm=64, bands=16, rows=4)
SEED_LABELS = [
    LabelledPair("A", "B", 1, "格式副本"),
    LabelledPair("A", "C", 0, "有效修订"),
    LabelledPair("A", "D", 0, "仅共享开头"),
    LabelledPair("A", "E", 0, "无关"),
]
IDS = sorted(SEED_TEXTS)
# One band of all 64 rows: a pair needs all 64 MinHash values equal, so only identical texts collide.
BLIND_LSH = SEED_PARAMS.with_(bands=1, rows=64, containment_threshold=0.0)


def _seed_report(**kwargs):
    return evaluate(IDS, SEED_TEXTS, SEED_LABELS, SEED_PARAMS, **kwargs)


@pytest.mark.parametrize("threshold", [0.5, 0.7])
def test_seed_labels_at_05_and_07_give_one_tp_and_the_revision_as_false_positive(threshold: float) -> None:
    report = _seed_report()
    row = report.row(3, threshold)
    assert (row.tp, row.fp, row.fn) == (1, 1, 0)
    assert row.precision == 0.5 and row.recall == 1.0 and row.candidate_recall == 1.0
    ac = next(s for s in report.per_k[0].pair_scores if s.pair.right == "C")
    assert round(ac.jaccard, 4) == 0.8235
    assert outcome(ac, threshold) == "FP"
    assert error_reason(ac, threshold) == f"false positive: labelled 0 (有效修订); Jaccard 0.8235 >= {threshold:g}"


def test_seed_labels_at_09_give_no_false_positive_and_full_candidate_recall() -> None:
    row = _seed_report().row(3, 0.9)
    assert (row.tp, row.fp, row.fn) == (1, 0, 0)
    assert row.precision == 1.0 and row.recall == 1.0 and row.candidate_recall == 1.0


def test_candidates_column_counts_candidate_stage_pairs_reaching_the_threshold() -> None:
    report = _seed_report()
    # A–B, A–C and B–C are proposed (Jaccard 1.0, 0.82, 0.82); D and E are not.
    assert [report.row(3, t).candidates for t in (0.5, 0.7, 0.9)] == [3, 3, 1]


def test_precision_is_empty_not_zero_when_nothing_is_predicted() -> None:
    labels = [LabelledPair("A", "E", 1), LabelledPair("A", "D", 0)]
    row = evaluate(IDS, SEED_TEXTS, labels, SEED_PARAMS).row(3, 0.5)
    assert (row.tp, row.fp, row.fn) == (0, 0, 1)
    assert row.precision is None
    assert row.recall == 0.0
    assert row.candidate_recall == 0.0


def test_recall_and_candidate_recall_are_empty_without_labelled_positives() -> None:
    report = evaluate(IDS, SEED_TEXTS, [LabelledPair("A", "C", 0)], SEED_PARAMS)
    row = report.row(3, 0.7)
    assert row.recall is None and row.candidate_recall is None and row.precision == 0.0
    assert any("no labelled positive" in n for n in report.notes)


def test_positive_missed_by_lsh_is_a_false_negative_and_lowers_candidate_recall() -> None:
    labels = [LabelledPair("A", "B", 1), LabelledPair("A", "C", 1, "同一稿件")]
    report = evaluate(IDS, SEED_TEXTS, labels, BLIND_LSH)
    row = report.row(3, 0.7)
    assert (row.tp, row.fp, row.fn) == (1, 0, 1)
    assert row.candidate_recall == 0.5
    assert row.recall == 0.5
    ac = report.per_k[0].pair_scores[1]
    assert not ac.hit
    assert error_reason(ac, 0.7) == "missed by LSH (Jaccard 0.8235 >= 0.7)"
    assert error_reason(ac, 0.9) == "missed by LSH and below threshold (Jaccard 0.8235 < 0.9)"


def test_miss_audit_finds_the_pairs_lsh_did_not_return() -> None:
    report = evaluate(IDS, SEED_TEXTS, SEED_LABELS, BLIND_LSH, audit=True)
    audit = report.per_k[0].audit
    assert audit is not None and not audit.sampled and audit.pairs_compared == 10
    assert [(m.left, m.right) for m in audit.misses] == [("A", "C"), ("B", "C")]
    assert round(audit.misses[0].jaccard, 4) == 0.8235
    assert [report.row(3, t).lsh_misses for t in (0.5, 0.7, 0.9)] == [2, 2, 0]


def test_miss_audit_with_working_lsh_finds_nothing_and_counts_exact_copies_as_returned() -> None:
    texts = dict(SEED_TEXTS, F=SEED_TEXTS["A"])  # A, B and F are one exact-copy group
    report = evaluate(sorted(texts), texts, SEED_LABELS, SEED_PARAMS, audit=True)
    assert report.per_k[0].audit.misses == ()


def _random_text(rng: random.Random, n: int) -> str:
    return "".join(chr(0x4E00 + rng.randrange(400)) for _ in range(n))


def _edit(rng: random.Random, text: str, share: float) -> str:
    chars = list(text)
    for _ in range(int(len(chars) * share)):
        chars[rng.randrange(len(chars))] = chr(0x4E00 + rng.randrange(400))
    return "".join(chars)


def test_miss_audit_agrees_with_scoring_every_pair_one_by_one() -> None:
    rng = random.Random(7)
    texts = {}
    for n in range(12):
        base = _random_text(rng, 300)
        texts[f"d{n:02d}"] = base
        texts[f"d{n:02d}e"] = _edit(rng, base, rng.choice([0.01, 0.03, 0.06, 0.1]))
    params = ScreenParams(k=3, num_perm=32, bands=2, rows=16, containment_threshold=0.0)
    ids = sorted(texts)
    report = evaluate(ids, texts, [], params, thresholds=[0.3], audit=True)
    found = {(m.left, m.right): m.jaccard for m in report.per_k[0].audit.misses}
    prepared = prepare(ids, texts, params)
    high = {}
    for i, j in itertools.combinations(range(len(ids)), 2):
        jac = pair_scores(prepared.hashes[i], prepared.hashes[j]).jaccard
        if jac >= 0.3:
            high[(ids[i], ids[j])] = jac
    assert found, "a 2 x 16 banding must miss some edited copies"
    assert set(found) <= set(high)
    for pair, jac in found.items():
        assert jac == pytest.approx(high[pair])
    # every high pair is either a miss or was returned by the candidate stage
    returned = set(high) - set(found)
    labels = [LabelledPair(a, b, 1) for a, b in sorted(high)]
    scores = evaluate(ids, texts, labels, params, thresholds=[0.3]).per_k[0].pair_scores
    assert {s.pair.key for s in scores if s.hit} == returned


def test_each_shingle_size_gets_its_own_shingles_and_candidates() -> None:
    report = evaluate(IDS, SEED_TEXTS, SEED_LABELS, SEED_PARAMS, ks=[3, 5, 7])
    assert [ev.k for ev in report.per_k] == [3, 5, 7]
    for ev in report.per_k:
        prepared = prepare(IDS, SEED_TEXTS, SEED_PARAMS.with_(k=ev.k))
        ac = pair_scores(prepared.hashes[0], prepared.hashes[2]).jaccard
        assert ev.pair_scores[1].jaccard == pytest.approx(ac)
        assert ev.params.k == ev.k
    jaccards = [ev.pair_scores[1].jaccard for ev in report.per_k]
    assert jaccards[0] > jaccards[1] > jaccards[2]  # longer shingles: one changed character costs more
    assert len(report.rows) == 3 * 3


def test_split_rows_keep_tune_and_holdout_apart() -> None:
    labels = [
        LabelledPair("A", "B", 1, split="tune"),
        LabelledPair("A", "C", 0, split="tune"),
        LabelledPair("D", "E", 0, split="holdout"),
    ]
    report = evaluate(IDS, SEED_TEXTS, labels, SEED_PARAMS)
    assert report.splits == ("tune", "holdout")
    tune, holdout, whole = (report.row(3, 0.7, s) for s in ("tune", "holdout", "all"))
    assert (tune.tp, tune.fp, tune.positives, tune.negatives) == (1, 1, 1, 1)
    assert (holdout.tp, holdout.fp, holdout.positives, holdout.precision) == (0, 0, 0, None)
    assert whole.tp == tune.tp + holdout.tp and whole.fp == tune.fp + holdout.fp
    assert not report.notes


def test_a_document_in_both_splits_is_reported_as_a_leak() -> None:
    labels = [LabelledPair("A", "B", 1, split="tune"), LabelledPair("A", "D", 0, split="holdout")]
    assert split_leaks(labels) == {"A": ("holdout", "tune")}
    report = evaluate(IDS, SEED_TEXTS, labels, SEED_PARAMS)
    assert any("more than one split" in n and "A (holdout/tune)" in n for n in report.notes)


def test_grouping_by_source_family_names_both_sources() -> None:
    grouped = split_by_source([LabelledPair("A", "B", 1), LabelledPair("A", "C", 0)], {"A": "档案", "B": "网站", "C": "档案"})
    assert [p.split for p in grouped] == ["档案+网站", "档案"]


def test_labelled_document_that_was_not_compared_counts_as_a_missed_positive() -> None:
    labels = [LabelledPair("A", "X", 1, left_name="a.txt", right_name="空白.txt")]
    report = evaluate(IDS, SEED_TEXTS, labels, SEED_PARAMS, not_compared={"X": "status empty"})
    score = report.per_k[0].pair_scores[0]
    assert not score.compared and not score.hit
    assert report.row(3, 0.5).fn == 1
    assert error_reason(score, 0.5) == "not compared: 空白.txt: status empty"


def test_error_reason_never_shows_a_rounded_score_on_the_wrong_side_of_the_threshold() -> None:
    from neardup_gui.core.evaluate import PairScore

    score = PairScore(LabelledPair("A", "B", 1), True, True, ("minhash",), 0.89999)
    assert error_reason(score, 0.9) == "below threshold (Jaccard 0.899990 < 0.9)"
    assert error_reason(score, 0.8) == ""


def test_audit_refuses_thousands_of_documents_unless_sampled() -> None:
    with pytest.raises(AuditTooLargeError, match="5 documents make 10 pairs.*limit of 4"):
        _seed_report(audit=True, audit_limit=4)
    report = evaluate(IDS, SEED_TEXTS, SEED_LABELS, BLIND_LSH, audit=True, audit_limit=4, audit_sample=3)
    audit = report.per_k[0].audit
    assert audit.sampled and audit.documents == 3 and audit.total_documents == 5 and audit.pairs_compared == 3
    assert any("random sample of 3 of 5" in n for n in report.notes)


def test_thresholds_must_be_jaccard_values() -> None:
    with pytest.raises(ValueError, match="in \\(0, 1\\]"):
        _seed_report(thresholds=[0.5, 70])


def test_metric_curve_leaves_precision_undefined_where_nothing_is_predicted() -> None:
    scores = _seed_report().per_k[0].pair_scores
    precision, recall, cand = metric_curve(scores, [0.5, 0.9, 1.0])
    assert precision[0] == 0.5 and precision[1] == 1.0 and recall[2] == 1.0
    no_positive_hit = metric_curve([s for s in scores if s.pair.label == 0], [0.95])
    assert math.isnan(no_positive_hit[0][0]) and math.isnan(no_positive_hit[1][0])


def test_s_curve_rises_from_zero_to_one_through_the_banding_threshold() -> None:
    s, p = s_curve(16, 4)
    assert p[0] == 0.0 and p[-1] == 1.0 and np.all(np.diff(p) >= 0)
    middle = (1 / 16) ** (1 / 4)  # where the S-curve is steepest, about 0.5
    assert 0.3 < float(np.interp(middle, s, p)) < 0.7


def test_evaluation_runs_in_batch_jobs_without_loading_qt() -> None:
    code = (
        "import sys, neardup_gui.core.evaluate, neardup_gui.io.labels, neardup_gui.cli_evaluate; "
        "bad = [m for m in sys.modules if m.startswith('PySide6')]; print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_full_shingle_sets_are_made_only_for_the_documents_scored(monkeypatch) -> None:
    # Held for every document they were ~12 KB each (1.2 GB per shingle size at 100,000 files);
    # only the candidate and labelled pairs' documents need them.
    from neardup_gui.core.prepare import LazyHashes

    rng = random.Random(11)
    texts = {f"u{n:02d}": _random_text(rng, 400) for n in range(30)}  # unrelated: in no pair
    base = _random_text(rng, 400)
    texts["copy-a"], texts["copy-b"] = base, _edit(rng, base, 0.02)
    texts["far-a"], texts["far-b"] = _random_text(rng, 400), _random_text(rng, 400)
    ids = sorted(texts)
    labels = [LabelledPair("copy-a", "copy-b", 1), LabelledPair("far-a", "far-b", 0)]
    made: list[str] = []
    real_load = LazyHashes.load

    def load(self, indices):
        made.extend(self._doc_ids[i] for i in indices)
        return real_load(self, indices)

    monkeypatch.setattr(LazyHashes, "load", load)
    params = ScreenParams(k=3)
    scores = evaluate(ids, texts, labels, params, thresholds=[0.5], ks=[3]).per_k[0].pair_scores
    assert set(made) == {"copy-a", "copy-b", "far-a", "far-b"}
    kept = prepare(ids, texts, params)  # every set kept: the scores are the same
    for s in scores:
        i, j = ids.index(s.pair.left), ids.index(s.pair.right)
        assert s.jaccard == pair_scores(kept.hashes[i], kept.hashes[j]).jaccard
    assert [s.hit for s in scores] == [True, False]


def test_metric_curve_agrees_with_the_confusion_at_every_threshold() -> None:
    from neardup_gui.core.evaluate import PairScore, confusion

    rng = random.Random(3)
    steps = [round(t / 100, 2) for t in range(0, 101)]
    scores = []
    for n in range(400):  # scores on the thresholds themselves too: >= counts them as predicted
        jaccard = rng.choice(steps) if n % 3 == 0 else rng.random()
        pair = LabelledPair(f"a{n}", f"b{n}", rng.choice([0, 1]))
        scores.append(PairScore(pair, True, rng.random() < 0.8, ("minhash",), jaccard))
    for subset in (scores, [s for s in scores if s.pair.label == 0], [s for s in scores if not s.hit], []):
        precision, recall, cand = metric_curve(subset, steps)
        for n, t in enumerate(steps):
            c = confusion(subset, t)
            for got, want in ((precision[n], c.precision), (recall[n], c.recall), (cand[n], c.candidate_recall)):
                assert (math.isnan(got) and want is None) or got == want, (t, got, want)
