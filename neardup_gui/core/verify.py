"""Verification: exact scores and shared passages for every proposed pair.

LSH and the other indexes only propose; this stage decides. For each pair it computes the exact
Jaccard and containment of the shingle sets, the method's own score (TF-IDF cosine, SimHash
distance when those models were fitted), the MinHash estimate, a sample of shared shingles, and the
passages both texts share as raw offsets. Pure Python + numpy; no Qt, no io.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from neardup_gui.core import shingles as sh
from neardup_gui.core.diffspans import (
    PairDiff,
    VerifiedPair,
    VerifyBatch,
    align_verify,
    compiled_diff_active,
    pack_verify,
    pair_diff,
    unpack_verify,
)
from neardup_gui.core.methods import simhash
from neardup_gui.core.methods.containment import intersection_size
from neardup_gui.core.normalize import Normalized, normalize
from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.records import (
    FLAG_EXACT_BYTES,
    FLAG_EXACT_NORMALIZED,
    METHOD_EXACT,
    METHOD_SIMHASH,
    METHOD_TFIDF,
    Candidate,
    Document,
    ScreenParams,
    shared_strings,
)

if TYPE_CHECKING:
    from neardup_gui.core.pipeline import Prepared, Proposals

__all__ = ["ALIGN_BATCH", "PairScores", "pair_scores", "verify_pairs", "sort_candidates", "SHARED_SAMPLE_SIZE"]

SHARED_SAMPLE_SIZE = 20


@dataclass(frozen=True)
class PairScores:
    """Exact set scores of one pair (shares in [0, 1])."""

    shared: int
    size_left: int
    size_right: int

    @property
    def jaccard(self) -> float:
        union = self.size_left + self.size_right - self.shared
        return self.shared / union if union else 0.0

    @property
    def containment_left(self) -> float:
        return self.shared / self.size_left if self.size_left else 0.0

    @property
    def containment_right(self) -> float:
        return self.shared / self.size_right if self.size_right else 0.0


def pair_scores(a: np.ndarray, b: np.ndarray) -> PairScores:
    """Exact Jaccard and containment of two sorted unique hash arrays."""
    return PairScores(intersection_size(a, b), int(a.size), int(b.size))


class _Passed(NamedTuple):
    """A proposed pair that passed, oriented (left is the earlier path), with its scores."""

    i: int  # index of the left document in ``prepared``
    j: int
    left: str
    right: str
    same_group: bool
    scores: PairScores
    cosine: float | None
    distance: int | None
    score: float


# With the compiled diff, kept pairs are normalized, aligned and sampled in batches of ALIGN_BATCH
# on a helper thread, up to AHEAD batches before the one being built and flagged. A batch is one
# call that holds no lock, so the thread needs the GIL only to take and return it (a thread
# waiting for the GIL can wait a whole switch interval, 5 ms: per pair, that thread starved);
# a few batches ahead keep it busy while holding little (each holds its texts' code points and
# the right texts' shingle hashes). 16, 32 and 64 measured the same at 10,000 files.
ALIGN_BATCH = 32
AHEAD = 2
# A batch packs each of its texts once (``pack_verify``): it takes pairs until it holds as many
# texts as ALIGN_BATCH pairs of distinct texts would (so no more memory), or ALIGN_BATCH_MOST
# pairs. 20 drafts of a manuscript pair each with the 19 others: 190 pairs share 20 texts, and
# each text's normalizing and seed sampling is shared by ~10 pairs instead of ~1.6.
ALIGN_BATCH_MOST = 8 * ALIGN_BATCH


def align_batch_end(pairs: Sequence[tuple[str, str]], start: int = 0) -> int:
    """Where the batch of ``pairs`` (left, right doc_ids) that starts at ``start`` ends."""
    held: set[str] = set()
    end = start
    while end < len(pairs) and end - start < ALIGN_BATCH_MOST:
        left, right = pairs[end]
        grown = (left not in held) + (right not in held and right != left)
        if len(held) + grown > 2 * ALIGN_BATCH:
            break
        held.update((left, right))
        end += 1
    return end


def verify_pairs(
    prepared: Prepared,
    proposals: Proposals,
    documents: Mapping[str, Document],
    texts: Mapping[str, str],
    params: ScreenParams,
    progress: Progress = NULL_PROGRESS,
    pairs: Sequence[tuple[int, int]] | None = None,
    annotate: Callable[[Candidate, PairDiff, int, int], Candidate] | None = None,
) -> tuple[list[Candidate], int, dict[tuple[str, str], PairDiff]]:
    """Score every proposed pair (or the given ``pairs`` of them) exactly and keep those that pass.

    A pair passes when its Jaccard reaches ``params.threshold``, when one document's containment in
    the other reaches ``params.containment_threshold`` (if > 0), or when the normalized texts are
    identical.

    When the compiled diff is in use (``diffspans.compiled_diff_active``), a helper thread
    normalizes, aligns and samples the next batches of kept pairs while this one builds (and
    ``annotate``s) the current ones: that work releases the GIL, so the two overlap. The results
    are the same either way (tested).

    Args:
        annotate: Called on each kept candidate with its alignment and the indexes of its left and
            right documents in ``prepared``, as it is built (the flags stage); its result is kept.

    Returns:
        (kept candidates with shared passages, number of proposed pairs rejected, the alignment of
        each kept pair keyed by (left, right) doc_ids for the flags stage; empty when ``annotate``
        was given, which has had them).
    """
    pairs = proposals.all_pairs() if pairs is None else pairs
    total = len(pairs)
    prepared.load_hashes(sorted({i for pair in pairs for i in pair}))
    kept: list[Candidate] = []
    rejected = 0
    diffs: dict[tuple[str, str], PairDiff] = {}
    strings: dict[str, str] = {}  # the samples' strings, each held once (records.shared_strings)

    # Pairs come sorted by their first document: a small cache serves its repeats without holding
    # the offset maps (20 bytes a character) of every paired document at once.
    @functools.lru_cache(maxsize=64)
    def norm(doc_id: str) -> Normalized:
        return normalize(texts[doc_id], params.normalize)

    def align(li: str, ri: str) -> tuple[Normalized, Normalized, PairDiff]:
        ln, rn = norm(li), norm(ri)
        diff = pair_diff(texts[li], texts[ri], params.normalize, min_len=params.k, left_norm=ln, right_norm=rn)
        return ln, rn, diff

    # First every pair is scored; the pairs that pass are then aligned and built in order.
    ct = params.containment_threshold
    passing: list[_Passed] = []
    for n, (i, j) in enumerate(pairs, 1):
        if n % 64 == 0:
            progress.check()
            progress.report("verify", n // 2, total)
        li, ri = prepared.doc_ids[i], prepared.doc_ids[j]
        if documents[li].path > documents[ri].path:
            i, j, li, ri = j, i, ri, li
        same_group = proposals.exact_group_of[i] == proposals.exact_group_of[j]
        if same_group:
            scores = PairScores(prepared.size(i), prepared.size(i), prepared.size(j))
        else:
            scores = pair_scores(prepared.hashes[i], prepared.hashes[j])
        jac = scores.jaccard
        cmax = max(scores.containment_left, scores.containment_right)
        a, b = min(i, j), max(i, j)
        cosine = proposals.tfidf.cosine(a, b) if proposals.tfidf is not None else None
        distance = None
        if proposals.fingerprints is not None:
            distance = int(simhash.hamming(proposals.fingerprints[a : a + 1], proposals.fingerprints[b : b + 1])[0])
        if params.method == METHOD_TFIDF:
            passed, score = cosine is not None and cosine >= params.threshold, cosine
        elif params.method == METHOD_SIMHASH:
            passed, score = distance is not None and distance <= params.simhash_distance, distance
        elif params.method == METHOD_EXACT:
            passed, score = False, jac
        else:
            passed, score = jac >= params.threshold or (ct > 0 and cmax >= ct), jac
        if not (same_group or passed):
            rejected += 1
            continue
        passing.append(_Passed(i, j, li, ri, same_group, scores, cosine, distance, float(score if score is not None else jac)))

    pool = None
    if compiled_diff_active() and len(passing) > ALIGN_BATCH:
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="neardup-align")
    batches: deque[tuple[VerifyBatch, Future[tuple[np.ndarray, ...]]]] = deque()
    sides = [(p.left, p.right) for p in passing]
    aligned: deque[VerifiedPair] = deque()
    next_batch = 0

    def send_batch() -> None:  # packed here, normalized, aligned and sampled on the helper thread
        nonlocal next_batch
        assert pool is not None
        end = align_batch_end(sides, next_batch)
        chunk = passing[next_batch:end]
        next_batch = end
        # One text object per document, read once: pack_verify packs each object once.
        held = {d: texts[d] for d in dict.fromkeys(d for p in chunk for d in (p.left, p.right))}
        items = [(held[p.left], held[p.right], prepared.hashes[p.j]) for p in chunk]
        packed = pack_verify(items, params.normalize, k=params.k, limit=SHARED_SAMPLE_SIZE)
        batches.append((packed, pool.submit(align_verify, packed)))

    try:
        for n, (i, j, li, ri, same_group, scores, cosine, distance, score) in enumerate(passing):
            if n % 64 == 0:
                progress.check()
                progress.report("verify", (total + n * total // len(passing)) // 2, total)
            if pool is not None:
                if not aligned:
                    while len(batches) <= AHEAD and next_batch < len(passing):
                        send_batch()
                    packed, future = batches.popleft()
                    aligned.extend(unpack_verify(packed, future.result(), strings))
                done = aligned.popleft()
                diff, sample, left_chars, right_chars = done.diff, done.sample, done.left_chars, done.right_chars
            else:
                ln, rn, diff = align(li, ri)
                sample = shared_strings(
                    sh.first_shared(ln.text, ln.cps, prepared.hashes[j], params.k, SHARED_SAMPLE_SIZE), strings
                )
                left_chars, right_chars = ln.cps.size, rn.cps.size
            gi, gj = proposals.rep_of_index[i], proposals.rep_of_index[j]
            sig_i, sig_j = proposals.signatures[gi], proposals.signatures[gj]
            # (np.mean: ~50 µs a pair, most of it overhead; int(): numpy 2 counts as a numpy integer,
            # and a numpy float stored in a candidate gave its session row another digest)
            est = int(np.count_nonzero(sig_i == sig_j)) / sig_i.size
            flags: list[str] = []
            if same_group:
                flags.append(FLAG_EXACT_NORMALIZED)
                if documents[li].sha256 and documents[li].sha256 == documents[ri].sha256:
                    flags.append(FLAG_EXACT_BYTES)
            methods = proposals.methods_of((min(i, j), max(i, j)))
            length_ratio = min(left_chars, right_chars) / max(left_chars, right_chars)
            cand = Candidate(
                left=li,
                right=ri,
                methods=methods,
                jaccard=scores.jaccard,
                containment_left=scores.containment_left,
                containment_right=scores.containment_right,
                minhash_estimate=est,
                shared_shingles=scores.shared,
                shingles_left=scores.size_left,
                shingles_right=scores.size_right,
                length_ratio=length_ratio,
                score=score,
                tfidf_cosine=cosine,
                simhash_distance=distance,
                flags=tuple(flags),
                shared_sample=sample,
                segments=diff.segments,
            )
            if annotate is not None:
                kept.append(annotate(cand, diff, i, j))
            else:
                kept.append(cand)
                diffs[(li, ri)] = diff
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    progress.report("verify", total, total)
    return kept, rejected, diffs


def sort_candidates(candidates: Sequence[Candidate], documents: Mapping[str, Document]) -> list[Candidate]:
    """Jaccard descending, then left path, then right path (deterministic output)."""
    return sorted(
        candidates,
        key=lambda c: (-round(c.jaccard, 12), documents[c.left].path, documents[c.right].path),
    )
