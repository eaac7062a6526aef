"""Evaluation on labelled pairs: threshold sweep, candidate recall, LSH miss audit, shingle sizes.

Definitions (the seed's, applied to every labelled pair, per shingle size k and threshold t):

- *hit*: the candidate stage returned the pair at all: MinHash LSH, the exact-copy groups or the
  containment index (``pipeline.propose``), before any threshold is applied. A pair inside one
  exact-copy group, or between two groups the stage linked, counts as returned even when a large
  group is listed as a star.
- *score*: the exact Jaccard of the two shingle sets (a share in [0, 1]).
- *predicted*: hit and score >= t.  TP = predicted and label 1, FP = predicted and label 0,
  FN = not predicted and label 1 (a positive the candidate stage missed is a miss).
- precision = TP / (TP + FP), recall = TP / (TP + FN); both are None (empty) when the denominator
  is zero, never 0 or 1.  candidate recall = positives hit / positives (None without positives).
- ``candidates`` = number of candidate-stage pairs of the whole corpus whose exact Jaccard is >= t
  (the review load at that threshold; the same in every split row).
- LSH miss audit: every pair of documents (or of a seeded random sample of them) is scored exactly;
  pairs reaching a threshold that the candidate stage did not return are listed.

Each k is evaluated with its own ``prepare`` and ``propose``: shingles, signatures and candidates
are rebuilt, never shared between configurations.

Pure computation: no file I/O, no printing. Never imports Qt or ``neardup_gui.io``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from neardup_gui.core.methods.minhash_lsh import collision_probability
from neardup_gui.core.pipeline import Prepared, Proposals, banding, pair_scores, prepare, propose
from neardup_gui.core.prepare import PrepareCache
from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.records import ScreenParams

__all__ = [
    "ALL_SPLITS", "AUDIT_LIMIT", "DEFAULT_KS", "DEFAULT_THRESHOLDS", "AuditTooLargeError", "Confusion",
    "EvaluationReport", "KEvaluation", "LabelledPair", "MissAudit", "MissedPair", "PairScore", "SweepRow",
    "confusion", "error_reason", "evaluate", "metric_curve", "outcome", "s_curve", "split_by_source",
    "split_leaks",
]  # fmt: skip

DEFAULT_THRESHOLDS: tuple[float, ...] = (0.5, 0.7, 0.9)
DEFAULT_KS: tuple[int, ...] = (3, 5, 7)
AUDIT_LIMIT = 3000
ALL_SPLITS = "all"
OUTCOMES = ("TP", "FP", "FN", "TN")


class AuditTooLargeError(ValueError):
    """The all-pairs audit was asked for more documents than the limit, without sampling."""


@dataclass(frozen=True)
class LabelledPair:
    """A pair of documents with a human label.

    Attributes:
        left, right: doc_ids.
        label: 1 = belongs in duplicate-merge review, 0 = does not.
        reason: The labeller's reason (free text).
        split: ``tune``, ``holdout``, a source family, or "" when not split.
        left_name, right_name: How the labels named each side (path or doc_id), for messages.
        line: Row of the labels file (0 when the label came from a review decision).
    """

    left: str
    right: str
    label: int
    reason: str = ""
    split: str = ""
    left_name: str = ""
    right_name: str = ""
    line: int = 0

    @property
    def key(self) -> tuple[str, str]:
        return (self.left, self.right) if self.left <= self.right else (self.right, self.left)


@dataclass(frozen=True)
class PairScore:
    """What one configuration (one k) made of one labelled pair, independent of the threshold.

    Attributes:
        pair: The labelled pair.
        compared: Both documents were compared (read and long enough to shingle).
        hit: The candidate stage returned the pair.
        methods: Methods that returned it (``exact``, ``minhash``, ``containment``).
        jaccard: Exact Jaccard of the shingle sets (0.0 when not compared).
        containment_left, containment_right: |L∩R|/|L| and |L∩R|/|R|.
        note: Why the pair was not compared ("" when it was).
        set_aside: Proposed, but set aside unverified inside a large cluster of near copies
            (``ScreenParams.cluster_limit``); ``hit`` is then False.
    """

    pair: LabelledPair
    compared: bool
    hit: bool
    methods: tuple[str, ...]
    jaccard: float
    containment_left: float = 0.0
    containment_right: float = 0.0
    note: str = ""
    set_aside: bool = False


def outcome(score: PairScore, threshold: float) -> str:
    """``TP``, ``FP``, ``FN`` or ``TN`` of a labelled pair at a Jaccard threshold."""
    predicted = score.hit and score.jaccard >= threshold
    if score.pair.label == 1:
        return "TP" if predicted else "FN"
    return "FP" if predicted else "TN"


def _score_text(value: float, threshold: float) -> str:
    """Four decimals, or as many as it takes for the text to agree with ``value >= threshold``."""
    for digits in (4, 6, 9):
        text = f"{value:.{digits}f}"
        if (float(text) >= threshold) == (value >= threshold):
            return text
    return repr(value)


def error_reason(score: PairScore, threshold: float) -> str:
    """Why a labelled pair is counted wrong at ``threshold`` ("" when it is counted right)."""
    kind = outcome(score, threshold)
    t = threshold
    j = _score_text(score.jaccard, t)
    if kind == "FN":
        if not score.compared:
            return f"not compared: {score.note}"
        if not score.hit and score.set_aside:
            return f"set aside unverified in a large cluster of near copies (Jaccard {j}; see cluster_limit)"
        if not score.hit:
            if score.jaccard >= t:
                return f"missed by LSH (Jaccard {j} >= {t:g})"
            return f"missed by LSH and below threshold (Jaccard {j} < {t:g})"
        return f"below threshold (Jaccard {j} < {t:g})"
    if kind == "FP":
        why = f" ({score.pair.reason})" if score.pair.reason else ""
        return f"false positive: labelled 0{why}; Jaccard {j} >= {t:g}"
    return ""


@dataclass(frozen=True)
class Confusion:
    """Counts of one threshold over a set of labelled pairs."""

    tp: int
    fp: int
    fn: int
    tn: int
    positives_hit: int

    @property
    def positives(self) -> int:
        return self.tp + self.fn

    @property
    def negatives(self) -> int:
        return self.fp + self.tn

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def candidate_recall(self) -> float | None:
        return self.positives_hit / self.positives if self.positives else None


def confusion(scores: Iterable[PairScore], threshold: float) -> Confusion:
    """TP, FP, FN, TN and positives hit of labelled pairs at a Jaccard threshold in [0, 1]."""
    counts = dict.fromkeys(OUTCOMES, 0)
    hit_pos = 0
    for s in scores:
        counts[outcome(s, threshold)] += 1
        hit_pos += int(s.hit and s.pair.label == 1)
    return Confusion(counts["TP"], counts["FP"], counts["FN"], counts["TN"], hit_pos)


def metric_curve(
    scores: Sequence[PairScore], thresholds: Sequence[float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and candidate recall at each threshold (NaN where undefined): what
    ``confusion`` gives at each, counted from the sorted scores at once (the window draws it on
    its own thread: 100 thresholds over 15,000 labelled pairs one by one took 0.7 s)."""
    n = len(scores)
    ts = np.asarray(thresholds, dtype=float)
    jaccard = np.fromiter((s.jaccard for s in scores), dtype=float, count=n)
    hit = np.fromiter((s.hit for s in scores), dtype=bool, count=n)
    positive = np.fromiter((s.pair.label == 1 for s in scores), dtype=bool, count=n)

    def at_least(values: np.ndarray) -> np.ndarray:  # how many of values are >= each threshold
        return values.size - np.searchsorted(np.sort(values), ts, side="left")

    tp = at_least(jaccard[hit & positive])
    fp = at_least(jaccard[hit & ~positive])
    positives = int(positive.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), math.nan)
    if not positives:
        return precision, np.full(ts.size, math.nan), np.full(ts.size, math.nan)
    candidate = int((hit & positive).sum()) / positives
    return precision, tp / positives, np.full(ts.size, candidate)


def s_curve(bands: int, rows: int, points: int = 101) -> tuple[np.ndarray, np.ndarray]:
    """The LSH S-curve: probability that a pair of Jaccard s becomes a candidate, s in [0, 1].

    Returns:
        (s values, probabilities), ``points`` of each.
    """
    s = np.linspace(0.0, 1.0, points)
    return s, np.array([collision_probability(float(x), bands, rows) for x in s])


@dataclass(frozen=True)
class MissedPair:
    """A pair the candidate stage did not return although its exact Jaccard is high."""

    left: str
    right: str
    jaccard: float
    containment_left: float
    containment_right: float


@dataclass(frozen=True)
class MissAudit:
    """Result of scoring every pair of documents exactly for one k.

    Attributes:
        k: Shingle size.
        min_threshold: Pairs with Jaccard >= this (the lowest swept threshold) are listed.
        documents: Documents audited (all, or the sample).
        total_documents: Documents compared in the screen.
        sampled: True when only a random sample of documents was audited.
        pairs_compared: Pairs scored exactly.
        misses: Missed pairs, Jaccard descending.
    """

    k: int
    min_threshold: float
    documents: int
    total_documents: int
    sampled: bool
    pairs_compared: int
    misses: tuple[MissedPair, ...]

    def count(self, threshold: float) -> int:
        """Missed pairs whose Jaccard reaches ``threshold``."""
        return sum(1 for m in self.misses if m.jaccard >= threshold)


@dataclass(frozen=True)
class KEvaluation:
    """Everything evaluated with one shingle size.

    Attributes:
        k: Shingle size in characters.
        params: The parameters used (the recorded ones with this k).
        bands, rows: LSH banding used.
        documents_compared: Documents that had shingles.
        candidate_scores: Exact Jaccard of every candidate-stage pair (for the histogram).
        pair_scores: One entry per labelled pair.
        audit: The miss audit, when asked for.
    """

    k: int
    params: ScreenParams
    bands: int
    rows: int
    documents_compared: int
    candidate_scores: np.ndarray
    pair_scores: tuple[PairScore, ...]
    audit: MissAudit | None = None

    def candidates_at(self, threshold: float) -> int:
        """Candidate-stage pairs whose exact Jaccard reaches ``threshold``."""
        return int(np.count_nonzero(self.candidate_scores >= threshold))


@dataclass(frozen=True)
class SweepRow:
    """One line of the threshold table (``thresholds.csv`` and the workbook's Thresholds sheet)."""

    k: int
    threshold: float
    split: str
    candidates: int
    tp: int
    fp: int
    fn: int
    tn: int
    precision: float | None
    recall: float | None
    candidate_recall: float | None
    positives: int
    negatives: int
    lsh_misses: int | None = None
    bands: int = 0
    rows: int = 0

    def as_dict(self) -> dict[str, object]:
        return {
            "k": self.k, "threshold": self.threshold, "candidates": self.candidates, "tp": self.tp,
            "fp": self.fp, "fn": self.fn, "precision": self.precision, "recall": self.recall,
            "candidate_recall": self.candidate_recall, "split": self.split, "tn": self.tn,
            "positives": self.positives, "negatives": self.negatives,
            "lsh_misses": self.lsh_misses, "bands": self.bands, "rows": self.rows,
        }  # fmt: skip


@dataclass(frozen=True)
class EvaluationReport:
    """The whole evaluation: per-k results and the threshold table.

    Attributes:
        params: The base parameters (k is replaced per entry of ``per_k``).
        thresholds: Swept Jaccard thresholds, ascending.
        per_k: One ``KEvaluation`` per shingle size, in the order asked.
        rows: The table: for each k and threshold, the ``all`` row then one row per split.
        splits: Split names in order of first use in the labels, without ``all``.
        notes: Warnings worth showing (split leaks, sampled audit, nothing to compare, ...).
    """

    params: ScreenParams
    thresholds: tuple[float, ...]
    per_k: tuple[KEvaluation, ...]
    rows: tuple[SweepRow, ...]
    splits: tuple[str, ...]
    notes: tuple[str, ...] = ()
    _by_k: dict[int, KEvaluation] = field(default_factory=dict, compare=False, repr=False)

    def for_k(self, k: int) -> KEvaluation:
        if not self._by_k:
            self._by_k.update((e.k, e) for e in self.per_k)
        return self._by_k[k]

    def row(self, k: int, threshold: float, split: str = ALL_SPLITS) -> SweepRow:
        for r in self.rows:
            if r.k == k and r.split == split and math.isclose(r.threshold, threshold):
                return r
        raise KeyError((k, threshold, split))


def split_leaks(labels: Sequence[LabelledPair]) -> dict[str, tuple[str, ...]]:
    """Documents used in pairs of more than one split (doc_id -> the splits), which the seed forbids.

    A document shared by two splits is the only way a family of linked pairs can straddle them.
    """
    seen: dict[str, set[str]] = defaultdict(set)
    for p in labels:
        if p.split:
            seen[p.left].add(p.split)
            seen[p.right].add(p.split)
    return {d: tuple(sorted(s)) for d, s in sorted(seen.items()) if len(s) > 1}


def split_by_source(labels: Sequence[LabelledPair], source_of: Mapping[str, str]) -> list[LabelledPair]:
    """Group labelled pairs by source family: split = the pair's source_id(s), e.g. ``网站转载+历史稿件``.

    Args:
        labels: Labelled pairs.
        source_of: doc_id -> source_id.
    """
    out = []
    for p in labels:
        fam = sorted({source_of.get(p.left, "?"), source_of.get(p.right, "?")})
        out.append(LabelledPair(p.left, p.right, p.label, p.reason, "+".join(fam), p.left_name, p.right_name, p.line))
    return out


# -- computing ------------------------------------------------------------------------------------


def _group_pairs(prepared: Prepared, proposals: Proposals) -> tuple[list[int], set[tuple[int, int]]]:
    """Exact-group index per document and the set of group pairs the candidate stage linked."""
    group = list(proposals.exact_group_of)
    linked = set()
    for i, j in proposals.all_pairs():
        gi, gj = group[i], group[j]
        linked.add((min(gi, gj), max(gi, gj)))
    return group, linked


def _set_aside(proposals: Proposals) -> set[tuple[int, int]]:
    """The group pairs LSH or the containment index proposed that were set aside in large clusters."""
    group = proposals.exact_group_of
    return {(min(group[i], group[j]), max(group[i], group[j])) for i, j in proposals.set_aside.tolist()}


def _returned(i: int, j: int, group: Sequence[int], linked: set[tuple[int, int]]) -> bool:
    gi, gj = group[i], group[j]
    return gi == gj or (min(gi, gj), max(gi, gj)) in linked


def _all_pairs_misses(
    prepared: Prepared,
    indices: np.ndarray,
    min_threshold: float,
    group: Sequence[int],
    linked: set[tuple[int, int]],
    progress: Progress,
) -> tuple[list[MissedPair], int]:
    """Score every pair among ``indices`` exactly through an inverted index (numpy only).

    For each document, the posting lists of its shingles give its shared-shingle count with every
    other document at once; the cost is the total length of those lists, not n² set operations.
    """
    n = int(indices.size)
    if n < 2:
        return [], 0
    arrays = [prepared.hashes[i] for i in indices.tolist()]
    sizes = np.fromiter((a.size for a in arrays), dtype=np.int64, count=n)
    keys = np.concatenate(arrays)
    owner = np.repeat(np.arange(n, dtype=np.int64), sizes)
    order = np.argsort(keys, kind="stable")
    keys, owner = keys[order], owner[order]
    first = np.empty(keys.size, dtype=bool)
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    lengths = np.diff(np.append(starts, keys.size))
    uniq = keys[starts]
    misses: list[MissedPair] = []
    for a in range(n - 1):
        if a % 32 == 0:
            progress.check()
            progress.report("audit", a, n)
        g = np.searchsorted(uniq, arrays[a])
        lens, st = lengths[g], starts[g]
        total = int(lens.sum())
        idx = np.repeat(st - np.cumsum(lens) + lens, lens) + np.arange(total)
        others = owner[idx]
        others = others[others > a]
        if others.size == 0:
            continue
        shared = np.bincount(others, minlength=n)[a + 1 :]
        union = sizes[a] + sizes[a + 1 :] - shared
        jac = shared / union
        for off in np.flatnonzero(jac >= min_threshold).tolist():
            b = a + 1 + off
            i, j = int(indices[a]), int(indices[b])
            if _returned(i, j, group, linked):
                continue
            s = int(shared[off])
            misses.append(
                MissedPair(prepared.doc_ids[i], prepared.doc_ids[j], float(jac[off]), s / float(sizes[a]), s / float(sizes[b]))
            )
    progress.report("audit", n, n)
    misses.sort(key=lambda m: (-m.jaccard, m.left, m.right))
    return misses, n * (n - 1) // 2


def _evaluate_k(
    doc_ids: Sequence[str],
    texts: Mapping[str, str],
    labels: Sequence[LabelledPair],
    params: ScreenParams,
    min_threshold: float,
    audit: bool,
    audit_sample: int | None,
    not_compared: Mapping[str, str],
    progress: Progress,
    keys: Mapping[str, str] | None = None,
    cache: PrepareCache | None = None,
) -> KEvaluation:
    # Full shingle sets only for the documents scored below, recomputed (``LazyHashes``): kept for
    # every document they were ~12 KB each, 1.2 GB per k at 100,000 files (2.4 GB at the peak).
    # A screen's cache of the same parameters: its files' entries are not prepared again.
    prepared = prepare(doc_ids, texts, params, progress, keep_hashes=False, keys=keys, cache=cache, keep_cache=False)
    bands, rows = banding(params)
    if len(prepared) >= 2:
        proposals = propose(prepared, params, progress)
        group, linked = _group_pairs(prepared, proposals)
        aside = _set_aside(proposals)
        pairs = proposals.all_pairs()
    else:
        proposals, group, linked, aside, pairs = None, list(range(len(prepared))), set(), set(), []
    no_shingles = set(prepared.no_shingles)
    scored = [p for p in labels if all(d in texts and d not in no_shingles for d in (p.left, p.right))]
    prepared.load_hashes(sorted({i for pair in pairs for i in pair}
                                | {prepared.index(d) for p in scored for d in (p.left, p.right)}))  # fmt: skip
    cand = np.array([pair_scores(prepared.hashes[i], prepared.hashes[j]).jaccard for i, j in pairs], dtype=float)
    scores = []
    for p in labels:
        missing = [d for d in (p.left, p.right) if d not in texts or d in no_shingles]
        if missing:
            notes = []
            for d in missing:
                name = p.left_name if d == p.left else p.right_name
                why = not_compared.get(d) or (f"shorter than k={params.k} characters after normalization"
                                              if d in no_shingles else "not read")  # fmt: skip
                notes.append(f"{name or d}: {why}")
            scores.append(PairScore(p, False, False, (), 0.0, note="; ".join(notes)))
            continue
        i, j = prepared.index(p.left), prepared.index(p.right)
        ps = pair_scores(prepared.hashes[i], prepared.hashes[j])
        a, b = min(i, j), max(i, j)
        methods = proposals.methods_of((a, b)) if proposals is not None else ()
        hit = bool(methods) or _returned(i, j, group, linked)
        if hit and not methods and group[i] == group[j]:
            methods = ("exact",)
        cl, cr = ps.containment_left, ps.containment_right
        unverified = not hit and (min(group[i], group[j]), max(group[i], group[j])) in aside
        scores.append(PairScore(p, True, hit, methods, ps.jaccard, cl, cr, set_aside=unverified))
    miss_audit = None
    if audit:
        n = len(prepared)
        if audit_sample is not None and audit_sample < n:
            rng = np.random.default_rng(params.seed)
            indices = np.sort(rng.choice(n, size=audit_sample, replace=False))
        else:
            indices = np.arange(n)
        # A pair set aside in a large cluster was proposed: not an LSH miss (the run note counts them).
        prepared.hashes.drop()
        prepared.load_hashes(indices.tolist())
        misses, compared = _all_pairs_misses(prepared, indices, min_threshold, group, linked | aside, progress)
        miss_audit = MissAudit(params.k, min_threshold, int(indices.size), n, int(indices.size) < n, compared, tuple(misses))
    return KEvaluation(params.k, params, bands, rows, len(prepared), cand, tuple(scores), miss_audit)


def evaluate(
    doc_ids: Sequence[str],
    texts: Mapping[str, str],
    labels: Sequence[LabelledPair],
    params: ScreenParams,
    *,
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
    ks: Sequence[int] | None = None,
    audit: bool = False,
    audit_limit: int = AUDIT_LIMIT,
    audit_sample: int | None = None,
    not_compared: Mapping[str, str] | None = None,
    progress: Progress = NULL_PROGRESS,
    keys: Mapping[str, str] | None = None,
    earlier: Callable[[], PrepareCache | None] | None = None,
) -> EvaluationReport:
    """Sweep thresholds and shingle sizes over labelled pairs.

    Args:
        doc_ids: Documents to compare (those with text), in manifest order.
        texts: doc_id -> raw text.
        labels: Labelled pairs (doc_ids); documents missing from ``texts`` count as not compared.
        params: Base parameters (normalization, num_perm, seed, banding, containment); k is
            replaced by each entry of ``ks``.
        thresholds: Jaccard thresholds in (0, 1].
        ks: Shingle sizes; default ``(params.k,)``.
        audit: Also score all pairs exactly and list those the candidate stage missed.
        audit_limit: Most documents audited without sampling.
        audit_sample: Audit a random sample of this many documents (seeded by ``params.seed``).
        not_compared: doc_id -> why a labelled document has no text (its manifest status).
        progress: Receives the pipeline stages and ``audit``; ``check()`` may cancel.
        keys: doc_id -> file SHA-256, for ``earlier``.
        earlier: Loads the prepare cache of the screen evaluated (``io.prepcache.load_cache``),
            asked for at ``params.k`` only, whose parameters it was made with: the documents whose
            file it holds take their entries from it rather than being prepared again (the same
            results; ~2 s less at 100,000 files). Loaded then, not held through the other sizes.

    Returns:
        The report.

    Raises:
        AuditTooLargeError: ``audit`` over more than ``audit_limit`` documents without a sample.
        ValueError: A threshold outside (0, 1], a bad k, an empty list, or a bad sample size.
        Cancelled: Through ``progress``.
    """
    ts = tuple(sorted({float(t) for t in thresholds}))
    if not ts:
        raise ValueError("give at least one threshold")
    for t in ts:
        if not 0.0 < t <= 1.0:
            raise ValueError(f"a threshold is a Jaccard value in (0, 1], got {t:g}")
    k_list = tuple(dict.fromkeys(int(k) for k in (ks or (params.k,))))
    if audit_sample is not None and audit_sample < 2:
        raise ValueError("an audit sample needs at least 2 documents")
    if audit and audit_sample is None and len(doc_ids) > audit_limit:
        n = len(doc_ids)
        raise AuditTooLargeError(
            f"the LSH miss audit compares every pair of documents; {n} documents make "
            f"{n * (n - 1) // 2:,} pairs, above the limit of {audit_limit} documents. "
            f"Audit a random sample instead (e.g. {audit_limit} documents)."
        )
    per_k = []
    for n_k, k in enumerate(k_list):
        progress.report("evaluate", n_k, len(k_list))
        cache = earlier() if earlier is not None and keys and k == params.k else None
        per_k.append(
            _evaluate_k(doc_ids, texts, labels, params.with_(k=k), ts[0], audit, audit_sample,
                        not_compared or {}, progress, keys, cache)  # fmt: skip
        )
        del cache
    progress.report("evaluate", len(k_list), len(k_list))
    splits = tuple(dict.fromkeys(p.split for p in labels if p.split))  # in order of first use
    rows = []
    for ev in per_k:
        groups: list[tuple[str, list[PairScore]]] = [(ALL_SPLITS, list(ev.pair_scores))]
        groups += [(s, [p for p in ev.pair_scores if p.pair.split == s]) for s in splits]
        for t in ts:
            cand = ev.candidates_at(t)
            missed = ev.audit.count(t) if ev.audit is not None else None
            for name, scores in groups:
                c = confusion(scores, t)
                rows.append(SweepRow(ev.k, t, name, cand, c.tp, c.fp, c.fn, c.tn, c.precision, c.recall,
                                     c.candidate_recall, c.positives, c.negatives, missed, ev.bands, ev.rows))  # fmt: skip
    notes = []
    leaks = split_leaks(labels)
    if leaks:
        names = ", ".join(f"{d} ({'/'.join(s)})" for d, s in list(leaks.items())[:5])
        notes.append(
            f"{len(leaks)} document(s) appear in pairs of more than one split, so tuning and acceptance "
            f"are not independent: {names}{' …' if len(leaks) > 5 else ''}"
        )
    if labels and not any(p.label == 1 for p in labels):
        notes.append("no labelled positive: recall and candidate recall are empty")
    for ev in per_k:
        if ev.audit is not None and ev.audit.sampled:
            notes.append(
                f"k={ev.k}: the miss audit covered a random sample of {ev.audit.documents} of "
                f"{ev.audit.total_documents} documents; its counts refer to pairs inside the sample"
            )
    return EvaluationReport(params, ts, tuple(per_k), tuple(rows), splits, tuple(notes))
