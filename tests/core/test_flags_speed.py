"""The faster flags stage flags the same pairs with the same evidence as before (core.flags).

Oracles are the implementations before the speed-up: ``oracle_changes`` (how hunks were grouped into
changes, counting every letter of a text's head and tail) with ``oracle_revision_evidence``, and
``oracle_template_build`` (pass 1 always over 2**20 buckets). Pairs come from
``test_diffspans.near_duplicate_pairs``: number, date, negation and condition edits, insertions,
deletions, reformatting, excerpts, appended text and shared templates.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from neardup_gui.core.diffspans import PairDiff, pair_diff
from neardup_gui.core.flags import TemplateIndex, annotate, revision_evidence
from neardup_gui.core.flags import lexicon as lx
from neardup_gui.core.flags import revision as rv
from neardup_gui.core.flags.template import _distinct
from neardup_gui.core.normalize import normalize
from neardup_gui.core.records import REVISION_FLAGS, Candidate, FlagEvidence, Segment
from neardup_gui.core.shingles import shingle_set
from test_diffspans import near_duplicate_pairs, oracle_pair_diff

K = 5


# ---------------------------------------------------------------------------
# Oracles: the implementations before the speed-up


def _oracle_edge_ok(a: str, b: str) -> bool:
    na, nb = sum(ch.isalnum() for ch in a), sum(ch.isalnum() for ch in b)
    return 0 < max(na, nb) and na <= rv.EDGE_CHARS and nb <= rv.EDGE_CHARS


def _oracle_located_hunks(left: str, right: str, diff: PairDiff) -> list[tuple[Segment, Segment]]:
    regions = diff.regions
    if not regions:
        return []
    out: list[tuple[Segment, Segment]] = []
    first, last = regions[0], regions[-1]
    head_l, head_r = left[: first.left_start], right[: first.right_start]
    if head_l != head_r and _oracle_edge_ok(head_l, head_r):
        region = Segment(0, first.left_end, 0, first.right_end)
        out.extend((h, region) for h in rv._raw_hunks(head_l, head_r, 0, 0))
    ri = 0
    for h in diff.hunks:
        while ri < len(regions) - 1 and h.left_start > regions[ri].left_end:
            ri += 1
        out.append((h, regions[ri]))
    tail_l, tail_r = left[last.left_end :], right[last.right_end :]
    if tail_l != tail_r and _oracle_edge_ok(tail_l, tail_r):
        region = Segment(last.left_start, len(left), last.right_start, len(right))
        out.extend((h, region) for h in rv._raw_hunks(tail_l, tail_r, last.left_end, last.right_end))
    return out


def oracle_changes(left: str, right: str, diff: PairDiff) -> list:
    out: list = []
    gap = lx.MARKER_CONTEXT
    for h, region in _oracle_located_hunks(left, right, diff):
        if out:
            p = out[-1]
            if p.region == region and h.left_start - p.le <= gap and h.right_start - p.re <= gap:
                out[-1] = rv._Change(p.ls, h.left_end, p.rs, h.right_end, region)
                continue
        out.append(rv._Change(h.left_start, h.left_end, h.right_start, h.right_end, region))
    return out


def oracle_revision_evidence(left_raw: str, right_raw: str, diff: PairDiff) -> list[FlagEvidence]:
    if not diff.regions or (left_raw == right_raw):
        return []
    found: list[FlagEvidence] = []
    changes = [
        c for c in oracle_changes(left_raw, right_raw, diff)
        if not rv._same_reading(left_raw[c.ls : c.le], right_raw[c.rs : c.re])
    ]
    lcache, rcache = rv._TokenCache(left_raw, len(changes)), rv._TokenCache(right_raw, len(changes))
    for c in changes:
        found.extend(rv._token_changes(lcache, rcache, c))
        found.extend(rv._word_changes(left_raw, right_raw, c))
    seen: set = set()
    out: list[FlagEvidence] = []
    for ev in sorted(found, key=lambda e: (e.left_spans[0], e.right_spans[0], rv._RANK[e.flag])):
        key = (ev.flag, ev.left_spans, ev.right_spans)
        if key not in seen:
            seen.add(key)
            out.append(ev)
    return out


def oracle_template_build(hash_arrays: list[np.ndarray], min_docs: int = 3, min_share: float = 0.05) -> tuple:
    """(boilerplate, doc_counts, min_count, documents) as ``TemplateIndex.build`` computed them."""
    arrays = _distinct(hash_arrays)
    n = len(arrays)
    min_count = max(int(min_docs), math.ceil(min_share * n), 2)
    empty = (np.zeros(0, np.uint64), np.zeros(0, np.int64), min_count, n)
    if n < min_count:
        return empty
    shift = np.uint64(64 - 20)
    buckets = np.zeros(1 << 20, dtype=np.int64)
    cat = np.concatenate(arrays)
    buckets += np.bincount((cat >> shift).view(np.int64), minlength=buckets.size)
    values = np.sort(cat[(buckets >= min_count)[(cat >> shift).view(np.int64)]])
    if values.size == 0:
        return empty
    starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    counts = np.diff(np.concatenate((starts, [values.size])))
    keep = counts >= min_count
    return values[starts[keep]], counts[keep].astype(np.int64), min_count, n


# ---------------------------------------------------------------------------
# Helpers


def hashes(text: str) -> np.ndarray:
    return shingle_set(normalize(text).cps, K)


def candidate(left: str, right: str) -> Candidate:
    a, b = hashes(left), hashes(right)
    shared = int(np.intersect1d(a, b, assume_unique=True).size)
    union = a.size + b.size - shared
    return Candidate(
        left="L", right="R", methods=("minhash",), jaccard=shared / union if union else 0.0,
        containment_left=shared / a.size if a.size else 0.0, containment_right=shared / b.size if b.size else 0.0,
        minhash_estimate=None, shared_shingles=shared, shingles_left=int(a.size), shingles_right=int(b.size),
        length_ratio=min(a.size, b.size) / max(a.size, b.size, 1), score=0.0,
    )


PAIRS = near_duplicate_pairs(320, seed=11)


# ---------------------------------------------------------------------------
# Revision flags


def test_revision_evidence_is_the_same_as_before_on_near_duplicate_pairs() -> None:
    flagged = 0
    for left, right in PAIRS:
        got = revision_evidence(left, right, pair_diff(left, right, min_len=K))
        assert got == oracle_revision_evidence(left, right, oracle_pair_diff(left, right, min_len=K))
        flagged += bool(got)
    assert flagged > 60  # the pairs do exercise number, date, negation and condition changes


def test_changes_near_the_ends_of_both_texts_are_grouped_as_before() -> None:
    long_head = "青溪日报讯，" * 40
    cases = [
        ("会议下午3时开始，各部门负责人参加，地点在市政府三楼会议室。", "会议上午3时开始，各部门负责人参加，地点在市政府三楼会议室。"),
        ("会议下午3时开始，各部门负责人参加，地点在市政府三楼会议室。", "各部门负责人参加，地点在市政府三楼会议室，费用300元。"),
        (long_head + "各部门负责人参加，地点在市政府三楼会议室。", "今年各部门负责人参加，地点在市政府三楼会议室。不"),
        ("  \n各部门负责人参加，地点在市政府三楼会议室。\n\n", "各部门负责人参加，地点在市政府三楼会议室。2024年"),
    ]
    for left, right in cases + PAIRS[:80]:
        diff = pair_diff(left, right, min_len=K)
        assert rv._changes(left, right, diff) == oracle_changes(left, right, diff)
        assert revision_evidence(left, right, diff) == oracle_revision_evidence(left, right, diff)


def test_annotated_flags_evidence_and_suggestion_are_the_same_as_before() -> None:
    index = TemplateIndex.build([hashes(t) for pair in PAIRS for t in pair], k=K)
    revisions = 0
    for left, right in PAIRS:
        cand = candidate(left, right)
        kw = dict(left_hashes=hashes(left), right_hashes=hashes(right), template=index)
        got = annotate(cand, left, right, pair_diff(left, right, min_len=K), **kw)
        want = annotate(cand, left, right, oracle_pair_diff(left, right, min_len=K), **kw)
        assert got == want
        revisions += bool(set(got.flags) & set(REVISION_FLAGS))
    assert revisions > 60


# ---------------------------------------------------------------------------
# Template index


def _random_arrays(rng: random.Random, docs: int, size: int, shared: list[int], share: float) -> list[np.ndarray]:
    gen = np.random.default_rng(rng.randrange(1 << 30))
    out = []
    for _ in range(docs):
        own = gen.integers(0, np.iinfo(np.uint64).max, size=rng.randint(0, size), dtype=np.uint64)
        common = [h for h in shared if rng.random() < share]
        out.append(np.unique(np.concatenate((own, np.array(common, dtype=np.uint64)))))
    out += out[: docs // 20]  # exact copies count once
    return out


@pytest.mark.parametrize(
    ("docs", "size", "min_docs", "min_share"),
    [(10, 50, 3, 0.05), (300, 400, 3, 0.05), (400, 2000, 3, 0.0), (1500, 600, 3, 0.05), (2000, 300, 5, 0.2),
     (1500, 600, 3, 0.01), (1200, 800, 3, 0.01)],
)
def test_boilerplate_index_is_the_same_as_before(docs: int, size: int, min_docs: int, min_share: float) -> None:
    rng = random.Random(docs)
    shared = [rng.getrandbits(64) for _ in range(40)] + [(7 << 44) + i for i in range(30)]  # one crowded bucket
    arrays = _random_arrays(rng, docs, size, shared, share=0.3)
    got = TemplateIndex.build(arrays, min_docs=min_docs, min_share=min_share, k=K)
    boilerplate, counts, min_count, documents = oracle_template_build(arrays, min_docs, min_share)
    assert got.boilerplate.size > 0
    assert np.array_equal(got.boilerplate, boilerplate) and got.boilerplate.dtype == np.uint64
    assert np.array_equal(got.doc_counts, counts) and got.doc_counts.dtype == np.int64
    assert (got.min_count, got.documents) == (min_count, documents)


def test_boilerplate_of_generated_articles_is_the_same_as_before() -> None:
    arrays = [hashes(t) for pair in PAIRS for t in pair]
    got = TemplateIndex.build(arrays, k=K)
    boilerplate, counts, min_count, documents = oracle_template_build(arrays)
    assert np.array_equal(got.boilerplate, boilerplate) and np.array_equal(got.doc_counts, counts)
    assert (got.min_count, got.documents) == (min_count, documents)
