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


def test_boilerplate_membership_by_buckets_answers_as_a_binary_search() -> None:
    # An index past BUCKETED_FROM is asked through buckets of top bits: the same answers as a
    # binary search, for hashes in it, next to it, at both ends of the range and repeated.
    from neardup_gui.core.flags.template import BUCKETED_FROM, in_sorted

    rng = np.random.default_rng(5)
    values = np.unique(rng.integers(0, 2**64 - 1, 3 * BUCKETED_FROM, dtype=np.uint64, endpoint=True))
    # a crowded stretch: many values sharing their top bits (one bucket holds dozens)
    crowded = np.arange(2**40, 2**40 + 64 * 97, 97, dtype=np.uint64)
    values = np.unique(np.concatenate([values, crowded, np.array([0, 2**64 - 1], dtype=np.uint64)]))
    index = TemplateIndex(values, np.full(values.size, 3), 3, 1000)
    picks = values[rng.integers(0, values.size, 5000)]
    queries = np.concatenate([picks, picks + np.uint64(1), picks - np.uint64(1), crowded + np.uint64(1), crowded,
                              np.array([0, 1, 2**64 - 1, 2**64 - 2], dtype=np.uint64)])  # fmt: skip
    rng.shuffle(queries)
    got = index.holds(queries)
    assert np.array_equal(got, in_sorted(queries, values))
    assert got.sum() >= 5000 + crowded.size  # found, not merely all False
    assert not index.holds(np.zeros(0, dtype=np.uint64)).size


def test_an_index_sent_to_another_process_leaves_its_lookup_table_behind() -> None:
    import pickle

    from neardup_gui.core.flags.template import BUCKETED_FROM

    values = np.arange(1, 2 * BUCKETED_FROM + 1, dtype=np.uint64) * np.uint64(2**40)
    index = TemplateIndex(values, np.full(values.size, 3), 3, 1000)
    bare = len(pickle.dumps(index))
    queries = values[::7] + np.uint64(1)
    assert not index.holds(queries).any() and index.holds(values[::7]).all()  # the table is made now
    data = pickle.dumps(index)
    assert len(data) < bare + 1000  # not its ~1 MB of bucket offsets
    again = pickle.loads(data)
    assert again.holds(values[::7]).all() and not again.holds(queries).any()


def _oracle_search(index: TemplateIndex, texts: dict[str, str], k: int, limit: int, most_covered: float):
    """Boilerplate passages as ``TemplateIndex.passages`` found them before the two-pass search:
    every run of every text read back and counted in one dictionary."""
    from neardup_gui.core.flags.template import BoilerplatePassage, _runs, in_sorted
    from neardup_gui.core.shingles import window_hashes

    found: dict[str, list] = {}
    left_out = 0
    for doc_id, raw in texts.items():
        norm = normalize(raw, index.options)
        runs = _runs(in_sorted(window_hashes(norm.cps, k), index.boilerplate))
        covered = sum(e - s for s, e in (norm.raw_span(a, b + k - 1) for a, b in runs))
        if most_covered < 1.0 and covered > most_covered * max(1, len(raw)):  # (find_boilerplate's check)
            left_out += 1
            continue
        seen: set[str] = set()
        for a, b in runs:
            key = norm.text[a : b + k - 1]
            if key in seen:
                continue
            seen.add(key)
            if key not in found:
                s, e = norm.raw_span(a, b + k - 1)
                found[key] = [1, [doc_id], doc_id, s, e, raw[s:e]]
            else:
                found[key][0] += 1
                if len(found[key][1]) < 5:
                    found[key][1].append(doc_id)
    ordered = sorted(found.items(), key=lambda kv: (-kv[1][0], -len(kv[0]), kv[0]))[:limit]
    return [BoilerplatePassage(v[5], v[0], tuple(v[1]), v[2], v[3], v[4]) for _, v in ordered], left_out


@pytest.mark.parametrize("min_docs", [2, 4])
def test_boilerplate_search_finds_the_same_passages_as_reading_every_run(min_docs: int) -> None:
    # Texts from a small vocabulary (many short shared runs, many ties in count and length), a
    # header and a footer on some, a passage repeated inside one text, copies (mostly boilerplate,
    # left out) and texts without any boilerplate.
    rng = random.Random(11)
    words = ["社区", "食堂", "居民", "服务", "中心", "开业", "记者", "菜谱", "价格", "老人", "一楼", "窗口"]
    header, footer = "【基层来稿】本报讯 通讯员 ", "（责任编辑：王芳）"
    texts: dict[str, str] = {}
    for i in range(160):
        body = "".join(rng.choice(words) + ("，" if rng.random() < 0.2 else "") for _ in range(rng.randint(20, 60)))
        if i % 3 == 0:
            body = header + body + footer
        if i % 17 == 0:
            body = body + "。" + body[:30]  # a passage twice in one text
        texts[f"d{i:03d}"] = body
    for i in range(0, 40, 8):
        texts[f"copy{i:03d}"] = texts[f"d{i:03d}"]
    texts["alone"] = "与众不同的一段文字没有任何重复"
    hashes = [shingle_set(normalize(t).cps, K) for t in texts.values()]
    index = TemplateIndex.build(hashes, min_docs=min_docs, min_share=0.0, k=K)
    assert index.boilerplate.size > 50
    for limit in (1, 7, 50, 10_000):
        for most in (1.0, 0.75):
            got = index.search(texts, k=K, limit=limit, most_covered=most)
            expected = _oracle_search(index, texts, K, limit, most)
            assert got == expected, (limit, most)
    assert index.passages(texts, k=K, limit=50) == _oracle_search(index, texts, K, 50, 1.0)[0]
    assert _oracle_search(index, texts, K, 50, 0.75)[1] > 0  # copies were left out
