"""The screening pipeline: normalize -> shingle -> candidates -> verify -> flags.

Documents and raw texts in, verified ``Candidate`` records out. No file I/O, no printing.

Stages:
1. ``prepare``: normalize every usable text, build its shingle set (sorted uint64 hashes) and the
   digest of its normalized text. Texts with no shingle get status ``no_shingles``.
2. exact groups: identical normalized texts; one representative per group goes further.
3. candidates: MinHash signatures + banded LSH (Jaccard), and the sampled containment index.
4. verify: exact Jaccard and containment on the shingle sets for every proposed pair; pairs reaching
   the Jaccard threshold or the containment threshold (or identical) are kept; shared passages are
   aligned on the normalized texts and mapped back to raw offsets.
5. flags: revision, template, quotation and containment checks (``core.flags``).

LSH only proposes; exact scores decide.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import numpy as np

from neardup_gui.core import flags as flagmod
from neardup_gui.core.diffspans import PairDiff
from neardup_gui.core.estimate import listens, plan_stages, stage_seconds
from neardup_gui.core.helper import HELPER_JOB_PAIRS, HELPER_MIN_PAIRS, HELPER_SHARE, VerifyHelper, build_job
from neardup_gui.core.methods import bruteforce, exact, simhash
from neardup_gui.core.methods.containment import ContainmentMemo, containment_index, containment_pairs
from neardup_gui.core.methods.dense import DENSE_NEAREST, thin_by_signatures, without
from neardup_gui.core.methods.minhash_lsh import banding, lsh_pairs, signatures, unique_pairs
from neardup_gui.core.methods.tfidf import TfidfModel
from neardup_gui.core.methods.tfidf import peak_bytes as tfidf_peak_bytes
from neardup_gui.core.machine import available_memory
from neardup_gui.core.memory import human_size, release_free_memory
from neardup_gui.core.normalize import normalize_batch
from neardup_gui.core.prepare import LazyHashes, Prepared, PrepareCache, cache_key, prepare
from neardup_gui.core.progress import NULL_PROGRESS, AsStage, ChecksOnly, Progress, dict_giving_way, list_giving_way
from neardup_gui.core.scope import allowed as scope_allowed
from neardup_gui.core.scope import describe as describe_scope
from neardup_gui.core.scope import scope_labels
from neardup_gui.core.verify import PairScores, pair_scores, sort_candidates, verify_pairs
from neardup_gui.core.records import (
    FLAG_TEMPLATE_ONLY,
    METHOD_CONTAINMENT,
    METHOD_EXACT,
    METHOD_JACCARD,
    METHOD_MINHASH,
    METHOD_SIMHASH,
    METHOD_TFIDF,
    STATUS_NO_SHINGLES,
    STATUS_OK,
    TOO_MUCH_MEMORY,
    Candidate,
    Document,
    ScreenParams,
    TooLarge,
    candidate_with,
)

log = logging.getLogger(__name__)

__all__ = [
    "LazyHashes",
    "PairMemo",
    "PairScores",
    "Prepared",
    "annotate_candidates",
    "verify_and_flag_pairs",
    "Proposals",
    "ScreenResult",
    "banding",
    "pair_scores",
    "prepare",
    "propose",
    "screen",
    "sort_candidates",
    "verify_pairs",
]

# Below this many characters in total, every pair also gets its TF-IDF cosine and SimHash distance
# (fitting TF-IDF costs more than the whole MinHash screen on large folders: ~9 s at 15 M characters).
ALL_SCORES_AUTO_CHARS = 3_000_000


@dataclass(frozen=True)
class ScreenResult:
    """What ``screen`` found.

    Attributes:
        documents: The manifest with final statuses (``no_shingles`` applied).
        candidates: Verified pairs, sorted by Jaccard descending then paths.
        bands, rows: LSH banding used.
        counts: Pairs proposed per method, verified, kept, capped buckets, ...
        notes: Warnings worth showing to the user.
        cache: Per-file entries for the next screen's ``cache`` (when asked with ``keep_cache``).
        rejected: (left, right) doc_ids, by path, of the proposed pairs verification rejected (or
            took as rejected from ``previous``): with ``cache``, for the next screen's ``PairMemo``.
    """

    documents: tuple[Document, ...]
    candidates: tuple[Candidate, ...]
    bands: int
    rows: int
    counts: dict[str, int]
    notes: tuple[str, ...]
    cache: PrepareCache | None = None
    rejected: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class PairMemo:
    """The verified pairs of an earlier screen, to take over for pairs of unchanged files.

    A pair's scores, passages and flags depend only on its two texts, the parameters and the
    boilerplate index; with all three unchanged it is not verified again. Whether a pair is
    rejected depends on its two texts and the parameters only, so a pair rejected then is not
    verified again either. (Pairs scored with TF-IDF cosine are always verified again: that score
    depends on every document.)

    Attributes:
        params: ``ScreenParams.to_dict()`` of that screen.
        template: Its boilerplate hashes (``TemplateIndex.boilerplate``).
        pairs: (left file SHA-256, right file SHA-256) -> its candidate, left and right by path.
        min_count: Its boilerplate index's ``min_count`` (the template flag's note names it).
        rejected: (left file SHA-256, right file SHA-256), by path, of the pairs it rejected.
        lines: The stored form of each pair as read back (``io.prepcache``), by the same keys: a
            pair taken over unchanged is stored again as it was, not encoded again.
        run_id: The screen whose candidates these are ("" when not known).
    """

    params: Mapping[str, object]
    template: np.ndarray
    pairs: Mapping[tuple[str, str], Candidate]
    min_count: int = 0
    rejected: frozenset[tuple[str, str]] = frozenset()
    lines: Mapping[tuple[str, str], bytes] = field(default_factory=dict, compare=False, repr=False)
    run_id: str = field(default="", compare=False)

    def applies_to(self, params: ScreenParams) -> bool:
        """Were these pairs verified with ``params`` (compared as canonical JSON)?

        ``cluster_limit`` is left out: it chooses which pairs are verified, not how.
        """
        mine = {k: v for k, v in self.params.items() if k not in _CHOOSING_ONLY}
        theirs = {k: v for k, v in params.to_dict().items() if k not in _CHOOSING_ONLY}
        return _as_json(mine) == _as_json(theirs)


# Parameters that only choose which proposed pairs are verified (a verified pair does not depend on them).
_CHOOSING_ONLY = frozenset({"cluster_limit"})


def _as_json(value: object) -> str:
    """Canonical JSON (tuples and lists alike), to compare parameters read back from a session."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


@dataclass
class Proposals:
    """Pairs proposed by each method, as (i, j) index pairs into ``Prepared`` with i < j."""

    by_method: dict[str, set[tuple[int, int]]]
    exact_group_of: list[int]
    signatures: np.ndarray
    rep_of_index: list[int]
    capped_buckets: int = 0
    boilerplate_samples: int = 0
    tfidf: TfidfModel | None = None
    fingerprints: np.ndarray | None = None
    containment: ContainmentMemo | None = None
    large_clusters: int = 0
    clustered: int = 0
    set_aside: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))

    def all_pairs(self) -> list[tuple[int, int]]:
        pairs: set[tuple[int, int]] = set()
        for s in self.by_method.values():
            pairs |= s
        return sorted(pairs)

    def methods_of(self, pair: tuple[int, int]) -> tuple[str, ...]:
        return tuple(m for m, s in self.by_method.items() if pair in s)


def _fit_models(
    prepared: Prepared, params: ScreenParams, progress: Progress, texts: Mapping[str, str] | None = None
) -> tuple[TfidfModel, np.ndarray]:
    """TF-IDF model and SimHash fingerprints of every prepared document.

    Uses ``prepared.cps`` when kept, else normalizes ``texts`` again (cheap at the sizes where the
    extra scores are automatic, and it lets those screens use the prepare cache).
    """
    if prepared.cps is None:
        if texts is None:
            raise ValueError("TF-IDF and SimHash need prepare(..., keep_cps=True) or the texts")
        # (``screen`` checked the memory before preparing, on these texts' lengths)
        prepared.cps = normalize_batch([texts[d] for d in prepared.doc_ids], params.normalize)
    else:
        _check_model_memory([c.size for c in prepared.cps], params)
    model = TfidfModel.fit(prepared.cps, params.ngram_min, params.ngram_max, progress)
    progress.check()
    fps = simhash.fingerprints(prepared.cps, params.ngram_min, params.ngram_max, model=model, progress=progress)
    return model, fps


def _check_model_memory(lengths: Sequence[int], params: ScreenParams) -> None:
    """Refuse (``TooLarge``) a TF-IDF model this machine has not the memory for: at 100,000 news
    articles fitting one takes ~10 GB and the tfidf method's join more; run anyway, a laptop swaps
    for minutes or the system stops the program."""
    join = params.method == METHOD_TFIDF
    need = tfidf_peak_bytes(lengths, params.ngram_min, params.ngram_max, join)
    have = available_memory()
    if have is None or need <= have:
        return
    if params.method in (METHOD_TFIDF, METHOD_SIMHASH):
        what = "The TF-IDF cosine method" if join else "The SimHash method"
        advice = "choose the minhash method (the default) for a folder this large, or screen part of it"
    else:
        what = "TF-IDF cosine and SimHash scores for every pair"
        advice = "set all scores to auto (they are then left out of screens this large) or screen part of the folder"
    raise TooLarge(
        f"{what} over {len(lengths):,} documents ({sum(lengths):,} characters) needs about {human_size(need)} of "
        f"memory at its peak, and this machine has {human_size(have)} available: {advice}",
        what=TOO_MUCH_MEMORY, method=params.method if params.method in (METHOD_TFIDF, METHOD_SIMHASH) else "",
        documents=len(lengths), chars=sum(lengths), need=need, limit=have,
    )  # fmt: skip


def _refuse_early(lengths: Sequence[int], params: ScreenParams, models: bool, distinct: Sequence[int]) -> None:
    """Refuse (``TooLarge``) before anything is prepared what the method would refuse later:
    a TF-IDF model (``models``) this machine has not the memory for, exact Jaccard on every pair
    longer than ``bruteforce.MAX_SECONDS``. A 100,000-file folder was otherwise normalized,
    shingled and signed first (~3-5 s, and exact Jaccard's full shingle sets ~1.2 GB).

    ``lengths``: the raw characters of each usable document. Normalizing drops punctuation and
    spaces (~10-15 % of Chinese prose), so this counts a little more than the model would fit and
    than the shingles compared: within the estimates' own margins. ``distinct``: the lengths of
    the documents with distinct bytes (exact Jaccard compares one of each group of identical texts).
    """
    if params.method == METHOD_JACCARD and len(distinct) >= 2:  # the method's own limit first
        total = sum(distinct)
        bruteforce.refuse_if_too_long(len(distinct), total / len(distinct), chars=total)
    if models:
        _check_model_memory(lengths, params)


def propose(
    prepared: Prepared,
    params: ScreenParams,
    progress: Progress = NULL_PROGRESS,
    meanwhile: Callable[[set[tuple[int, int]], Callable[[], bool], Proposals], None] | None = None,
    earlier: ContainmentMemo | None = None,
    in_scope: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Proposals:
    """Pairs proposed by the exact pass and by the chosen method, over prepared documents.

    Every method starts from the exact groups (identical normalized texts; one representative
    each goes further). ``minhash`` adds banded LSH and the containment index; ``jaccard``
    compares every pair exactly; ``tfidf`` and ``simhash`` use their own indexes (and need
    ``Prepared.cps``); ``exact`` stops after the groups. MinHash signatures are always computed
    (cheap), so every pair gets its MinHash estimate.

    Args:
        meanwhile: With ``minhash``, called on this thread with the pairs found so far (the exact
            groups' and LSH's) while the containment index, which takes longer, is still being
            built on the other, a function that tells when the index is done, and the proposals so
            far (their ``by_method`` without the index's pairs): work for the verification to come
            can use the idle time, and stop when it ends.
        earlier: The containment index of an earlier screen of the same parameters (its documents'
            samples from the prepare cache): brought up to date rather than built again (the same
            pairs). The index made is in ``Proposals.containment``.
        in_scope: With a comparison scope, (document pairs, shape (n, 2)) -> which are inside it
            (``scope_mask``): a large cluster keeps its closest partners among those (the caller
            then drops the others, as without a large cluster).
    """
    n = len(prepared)
    groups = exact.digest_groups(prepared.digests)
    group_of: list[int] = groups.of.tolist()
    reps: list[int] = groups.reps.tolist()
    by_method: dict[str, set[tuple[int, int]]] = {METHOD_EXACT: set()}
    for members in groups.several():
        by_method[METHOD_EXACT].update(exact.pairs_within(members))

    subset: np.ndarray | None = None
    if prepared.signatures is not None:
        # Every document's own row (identical texts have identical rows); LSH reads the
        # representatives' rows through ``subset`` without copying them.
        sigs, rep_rows = prepared.signatures, list(range(n))
        subset = np.asarray(reps, dtype=np.int64) if len(reps) < n else None
    else:
        sigs = signatures([prepared.hashes[r] for r in reps], params.num_perm, params.seed, progress)
        rep_rows = list(group_of)
    proposals = Proposals(by_method, group_of, sigs, rep_rows)

    def expand(gi: int, gj: int) -> list[tuple[int, int]]:
        return [(min(a, b), max(a, b)) for a, b in exact.pairs_between(groups.members(gi), groups.members(gj))]

    sizes, reps_arr = groups.sizes, groups.reps

    def to_docs(pairs: np.ndarray) -> set[tuple[int, int]]:
        docs = _doc_pairs(pairs, sizes, reps_arr, expand)
        return set(zip(docs[:, 0].tolist(), docs[:, 1].tolist()))

    method = params.method
    if method == METHOD_MINHASH:
        bands, rows = banding(params)
        # The containment index runs on a second thread meanwhile (numpy and a compiled sort: most of
        # both stages holds no GIL). A cancel or error on either side stops both before returning.
        pool = ThreadPoolExecutor(1, thread_name_prefix="neardup-containment")
        try:
            contained = None
            if params.containment_threshold > 0 and prepared.samples is not None:
                contained = pool.submit(
                    containment_index, [prepared.samples[r] for r in reps], [prepared.digests[r] for r in reps],
                    params.containment_threshold, params.bucket_cap, earlier, progress,
                )  # fmt: skip
            elif params.containment_threshold > 0:
                contained = pool.submit(
                    containment_pairs, [prepared.hashes[r] for r in reps], params.containment_threshold,
                    params.containment_sample, params.bucket_cap, progress,
                )  # fmt: skip
            rep_pairs, proposals.capped_buckets = lsh_pairs(sigs, bands, rows, params.bucket_cap, progress, subset)
            # Expanded now for the reading ahead, unless so many that a large cluster is likely: then
            # only the pairs kept by ``_thin_large_clusters`` are ever held as Python objects.
            early = params.cluster_limit <= 0 or rep_pairs.shape[0] <= len(reps)
            found = by_method[METHOD_MINHASH] = to_docs(rep_pairs) if early else set()
            cpairs = None
            if contained is not None:
                if meanwhile is not None and not contained.done():
                    meanwhile(by_method[METHOD_EXACT] | found, contained.done, proposals)
                outcome = contained.result()
                if isinstance(outcome, ContainmentMemo):
                    proposals.containment = outcome
                    cpairs, proposals.boilerplate_samples = outcome.pairs, outcome.ignored
                else:
                    cpairs, proposals.boilerplate_samples = outcome
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        if params.cluster_limit > 0:
            kept_lsh, cpairs, dropped = _thin_large_clusters(
                proposals, rep_pairs, cpairs, sizes, reps_arr, params.cluster_limit, in_scope, expand
            )
            if dropped.size:
                proposals.set_aside = unique_pairs(_doc_pairs(dropped, sizes, reps_arr, expand), n)
            if dropped.size or not early:
                by_method[METHOD_MINHASH] = to_docs(kept_lsh)
        if cpairs is not None:
            by_method[METHOD_CONTAINMENT] = to_docs(cpairs)
    elif method == METHOD_JACCARD:
        rep_pairs, _ = bruteforce.all_pairs_jaccard(
            [prepared.hashes[r] for r in reps], params.threshold, containment_threshold=params.containment_threshold, progress=progress
        )
        found = by_method[METHOD_JACCARD] = set()
        for gi, gj in rep_pairs.tolist():
            found.update(expand(gi, gj))
    elif method in (METHOD_TFIDF, METHOD_SIMHASH):
        # Fitted on every document (the IDF counts copies, as scikit-learn does); searched over one
        # representative per group of identical texts, so a thousand copies add no quadratic pairs.
        proposals.tfidf, proposals.fingerprints = _fit_models(prepared, params, progress)
        rep_index = np.asarray(reps, dtype=np.int64)
        if method == METHOD_TFIDF:
            pairs, _ = proposals.tfidf.candidates(params.threshold, progress, rows=rep_index)
            pairs = [(group_of[i], group_of[j]) for i, j in pairs.tolist()]
        else:
            pairs, _ = simhash.candidates(proposals.fingerprints[rep_index], params.simhash_distance, progress)
            pairs = pairs.tolist()
        found = by_method[method] = set()
        for gi, gj in pairs:
            found.update(expand(gi, gj))
    progress.check()
    return proposals


def _thin_large_clusters(
    proposals: Proposals,
    lsh: np.ndarray,
    contained: np.ndarray | None,
    sizes: np.ndarray,
    reps: np.ndarray,
    limit: int,
    in_scope: Callable[[np.ndarray], np.ndarray] | None,
    expand: Callable[[int, int], list[tuple[int, int]]],
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The pairs of LSH and of the containment index kept, and those set aside, in large clusters.

    See ``core.methods.dense``. Works on pairs of exact groups (``sizes``: files per group,
    ``reps``: its first document) before they are expanded to documents, so a cluster of 20,000
    near copies never holds its millions of proposed pairs as Python objects. Sets the counts in
    ``proposals``. With ``in_scope``, only the pairs inside the comparison scope take part (a group
    pair when any of its document pairs, ``expand``, is); the others are left for the scope to drop.

    Returns:
        (LSH's pairs kept, the containment index's pairs kept (None when it did not run), the
        group pairs set aside, sorted); the kept ones in their given order.
    """
    m = sizes.size
    both = lsh if contained is None or not contained.size else np.concatenate([lsh, contained])
    pairs = unique_pairs(both.astype(np.int64, copy=False).reshape(-1, 2), m)
    if in_scope is not None and pairs.shape[0]:
        several = (sizes[pairs[:, 0]] > 1) | (sizes[pairs[:, 1]] > 1)
        pairs = pairs[group_pairs_in_scope(pairs, several, reps[pairs[~several]], in_scope, expand)]
    if not pairs.shape[0]:
        return lsh, contained, pairs
    rows = np.asarray(proposals.rep_of_index, dtype=np.int64)[reps]
    thinned = thin_by_signatures(pairs, m, proposals.signatures, rows, limit, files=sizes)
    proposals.large_clusters, proposals.clustered = thinned.clusters, thinned.documents
    dropped = pairs[~thinned.keep]  # sorted, as ``pairs``
    return without(lsh, dropped, m), None if contained is None else without(contained, dropped, m), dropped


def group_pairs_in_scope(
    pairs: np.ndarray,
    several: np.ndarray,
    plain_docs: np.ndarray,
    in_scope: Callable[[np.ndarray], np.ndarray],
    expand: Callable[[int, int], list[tuple[int, int]]],
) -> np.ndarray:
    """Mask of the group pairs with at least one document pair inside the scope.

    ``several``: per pair, whether a side stands for several identical files; ``plain_docs``: the
    document pairs of the others, in order; ``expand``: a group pair's document pairs (i < j).
    """
    mask = np.zeros(pairs.shape[0], dtype=bool)
    mask[~several] = in_scope(plain_docs)
    for i in np.flatnonzero(several).tolist():
        mask[i] = bool(in_scope(np.array(expand(*pairs[i].tolist()), dtype=np.int64).reshape(-1, 2)).any())
    return mask


def scope_mask(doc_ids: Sequence[str], labels: Mapping[str, str], scope: str) -> Callable[[np.ndarray], np.ndarray]:
    """(pairs of indexes into ``doc_ids``, shape (n, 2)) -> which are inside ``scope`` (by the
    documents' ``scope_labels``), as ``core.scope.allowed`` says, over arrays."""
    names = sorted({labels.get(d, "") for d in doc_ids})
    index = {name: i for i, name in enumerate(names)}
    codes = np.fromiter((index[labels.get(d, "")] for d in doc_ids), dtype=np.int64, count=len(doc_ids))
    if len(names) <= 1024:
        table = np.array([[scope_allowed(scope, a, b) for b in names] for a in names], dtype=bool)
        return lambda pairs: table[codes[pairs[:, 0]], codes[pairs[:, 1]]]
    return lambda pairs: np.fromiter(
        (scope_allowed(scope, names[codes[i]], names[codes[j]]) for i, j in pairs.tolist()),
        dtype=bool,
        count=len(pairs),
    )


_doc_id_of, _status_of = operator.attrgetter("doc_id"), operator.attrgetter("status")
_chars_of, _sha256_of = operator.attrgetter("chars"), operator.attrgetter("sha256")


def _doc_pairs(
    pairs: np.ndarray, sizes: np.ndarray, reps: np.ndarray, expand: Callable[[int, int], list[tuple[int, int]]]
) -> np.ndarray:
    """Pairs of exact groups as pairs of documents, shape (n, 2), i < j.

    A pair of two single files (nearly all of them) maps to its representatives without a Python
    call each (groups are numbered in order of their first member, so the order holds); a group of
    several files is expanded by ``expand`` (``exact.pairs_between``).
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    several = (sizes[pairs[:, 0]] > 1) | (sizes[pairs[:, 1]] > 1)
    docs = reps[pairs[~several]]
    if several.any():
        extra = [p for gi, gj in pairs[several].tolist() for p in expand(gi, gj)]
        docs = np.concatenate([docs, np.array(extra, dtype=np.int64).reshape(-1, 2)])
    return docs


def screen(
    documents: Sequence[Document],
    texts: Mapping[str, str],
    params: ScreenParams,
    progress: Progress = NULL_PROGRESS,
    fields: Mapping[str, Mapping[str, str]] | None = None,
    *,
    cache: PrepareCache | None = None,
    keep_cache: bool = False,
    previous: PairMemo | None = None,
    release_texts: Callable[[], None] | None = None,
    helper: VerifyHelper | None = None,
    alongside: Callable[[tuple[Document, ...]], None] | None = None,
    normalized: Callable[[list[str], list[np.ndarray]], None] | None = None,
    spend_cache: bool = False,
) -> ScreenResult:
    """Run the whole pipeline on documents already read.

    Args:
        documents: The manifest (any statuses; only ``ok`` documents are compared).
        texts: doc_id -> raw text for the ``ok`` documents.
        params: Screening parameters.
        progress: Carries stage, counts and cancellation.
        fields: doc_id -> extra field values (sidecar CSV columns), for a ``within`` scope.
        cache: An earlier screen's per-file entries (keyed by ``Document.sha256``): unchanged
            files are not normalized, shingled and signed again (see ``core.prepare``).
        spend_cache: Once the documents are prepared, let go of ``cache``'s MinHash rows
            (``PrepareCache.spend_signatures``): this screen holds its own copy of those it reuses,
            and the caller keeps the cache for its other fields only (51 MB at 100,000 files).
        keep_cache: Return this screen's entries in ``ScreenResult.cache``.
        previous: Pairs verified by an earlier screen of these files (see ``PairMemo``); those
            whose two files are unchanged are taken over instead of verified again.
        release_texts: Called once every document is queued for preparing (``prepare``'s
            ``queued``: each text is then held by its batch until prepared), when no later stage
            needs every text (no TF-IDF or SimHash model to fit): ``texts`` may then drop what it
            holds and read a text again when asked (``io.corpus.SourceTexts.forget``).
            Verification asks for the texts of paired documents only.
        helper: A ``core.helper.VerifyHelper`` that verifies a share of each round of pairs in
            another process (started once the documents are prepared, if the caller did not start
            it; the caller closes it).
        alongside: Called at most once, on this thread, with the manifest as the result will
            hold it (``ScreenResult.documents``), while the containment index is still being
            built on the other thread (after any reading ahead): work on this run's outputs can
            use that wait. Not called when nothing waits (then the caller does that work later).
        normalized: Given the normalized code points of the documents prepared here (not taken
            from ``cache``) batch by batch, on the preparing threads: (doc_ids, an array each;
            ``prepare``'s ``normalized``), e.g. to write them while the screen goes on.

    Returns:
        A ``ScreenResult``; raises ``Cancelled`` (and returns nothing) when cancelled.
    """
    # The manifest's columns, each mapped in C (100,000 rows: a comprehension each took 30-40 ms),
    # a slice per call (``list_giving_way``: one call over them all kept a waiting window out).
    ids = list_giving_way(map(_doc_id_of, documents))
    ok = list_giving_way(map(STATUS_OK.__eq__, map(_status_of, documents)))
    usable = list_giving_way(itertools.compress(ids, ok))
    own_models = params.method in (METHOD_TFIDF, METHOD_SIMHASH)
    # From the manifest: the texts of files a rescan took over unread are not read for this.
    chars = list_giving_way(itertools.compress(map(_chars_of, documents), ok))
    raw_chars = sum(chars) + sum(len(texts[i]) for i, n in zip(usable, chars) if not n)
    extra_scores = params.all_scores == "always" or (params.all_scores == "auto" and raw_chars <= ALL_SCORES_AUTO_CHARS)
    if own_models or extra_scores or params.method == METHOD_JACCARD:
        lengths = [n or len(texts[i]) for i, n in zip(usable, chars)]
        # One length per distinct file (a document given without its hash counts as its own).
        shas_ok = itertools.compress(map(_sha256_of, documents), ok)
        distinct = list({sha or i: n for i, (sha, n) in enumerate(zip(shas_ok, lengths))}.values())
        _refuse_early(lengths, params, own_models or extra_scores, distinct)
    keys = None
    if keep_cache or cache is not None:
        shas = list_giving_way(map(_sha256_of, documents))
        keys = dict_giving_way(itertools.compress(zip(ids, shas), shas))
    def given(positions: list[int], cps: list[np.ndarray]) -> None:
        assert normalized is not None
        normalized([usable[p] for p in positions], cps)

    # Unless a model needs every text, the texts may be dropped as soon as prepare has queued them.
    releasing = release_texts is not None and not (own_models or extra_scores)
    prepared = prepare(
        usable, texts, params, progress, keep_cps=own_models, keep_hashes=params.method == METHOD_JACCARD,
        keys=keys, cache=cache, normalized=given if normalized is not None else None,
        queued=release_texts if releasing else None, lengths=chars,
    )  # fmt: skip
    new_cache = prepared.cache if keep_cache else None
    if spend_cache and cache is not None:
        cache.spend_signatures()
    if helper is not None and not helper.started:  # see core.helper.start_early
        helper.start()
    # The earlier screen's pairs apply when the parameters are the same and no TF-IDF model
    # scores the pairs (a cosine depends on every document).
    applies = previous is not None and not (own_models or extra_scores) and previous.applies_to(params)
    read_ahead = None
    if releasing:
        if params.scope == "all":  # else some of LSH's pairs are left out, and their texts not needed
            read_ahead = functools.partial(_read_ahead, texts, prepared.doc_ids, progress)
    release_free_memory()  # the batches' temporaries, before the next stage's peak
    no_sh = set(prepared.no_shingles)
    final_docs = tuple(
        replace(
            d,
            status=STATUS_NO_SHINGLES,
            message=f"normalized text shorter than k={params.k} characters; not compared",
        )
        if d.doc_id in no_sh
        else d
        for d in documents
    ) if no_sh else tuple(documents)  # fmt: skip
    by_id = dict_giving_way(zip(ids, final_docs))
    if read_ahead is not None and applies:
        # The pairs the earlier screen verified are taken over (bar a few whose template evidence
        # moved, read when verified): their texts are not needed.
        assert previous is not None
        read_ahead = functools.partial(read_ahead, skip=_memo_lookup(previous, by_id, prepared.doc_ids))
    bands, rows = banding(params)
    notes: list[str] = []
    counts: dict[str, int] = {"documents_compared": len(prepared), "prepared_from_cache": prepared.reused}
    if len(prepared) < 2:
        notes.append("fewer than two usable documents: nothing to compare")
        return ScreenResult(final_docs, (), bands, rows, counts, tuple(notes), new_cache)
    # A helper process idles until verification: the pairs LSH found go to it now, while the
    # containment index is built (its pairs, and the methods it adds to these, are settled after).
    early = None
    if (
        helper is not None and not applies and not (own_models or extra_scores) and params.method == METHOD_MINHASH
        and params.scope == "all" and prepared.template is not None
    ):  # fmt: skip
        early = _EarlyJobs(helper, prepared, by_id, texts, params, prepared.template, progress)
    meanwhile = None
    if early is not None or read_ahead is not None or alongside is not None:
        then = functools.partial(alongside, final_docs) if alongside is not None else None
        meanwhile = functools.partial(_meanwhile, early, read_ahead, then)
    # The earlier screen's containment index holds its texts' samples: of the same sampling only.
    earlier = cache.containment if cache is not None and cache.key == cache_key(params) else None
    labels = scope_labels(final_docs, params, fields) if params.scope != "all" else {}
    in_scope = scope_mask(prepared.doc_ids, labels, params.scope) if params.scope != "all" else None
    proposals = propose(prepared, params, progress, meanwhile=meanwhile, earlier=earlier, in_scope=in_scope)
    if new_cache is not None:
        new_cache.containment = proposals.containment
    if proposals.containment is not None:
        counts["containment_index_updated"] = int(not proposals.containment.rebuilt)
    release_free_memory()
    if proposals.tfidf is None and extra_scores:
        # (their own reports say "shingle": here, after the candidates, they count as that stage)
        proposals.tfidf, proposals.fingerprints = _fit_models(prepared, params, AsStage(progress, "candidates"), texts)
    elif proposals.tfidf is None:
        notes.append(
            f"TF-IDF cosine and SimHash distance were not computed for every pair ({raw_chars:,} characters is "
            f"above the automatic limit of {ALL_SCORES_AUTO_CHARS:,}); choose the tfidf or simhash method, or "
            "all scores 'always', to get them"
        )
    prepared.cps = None  # no longer needed; free the memory before verification
    if params.scope != "all":
        left_out = _apply_scope(proposals, prepared, labels, params.scope)
        counts["left_out_by_scope"] = left_out
        notes.append(f"comparison scope: {describe_scope(params)}; {left_out} proposed pairs left out by it")
    for method, pairs in proposals.by_method.items():
        counts[f"proposed_{method}"] = len(pairs)
    counts["capped_buckets"] = proposals.capped_buckets
    counts["boilerplate_samples_ignored"] = proposals.boilerplate_samples
    if proposals.capped_buckets:
        notes.append(
            f"{proposals.capped_buckets} LSH buckets held more than {params.bucket_cap} documents and were "
            "paired around their first member only (likely boilerplate)"
        )
    if proposals.set_aside.size:
        counts["large_clusters"] = proposals.large_clusters
        counts["clustered_documents"] = proposals.clustered
        counts["set_aside_in_large_clusters"] = int(proposals.set_aside.shape[0])
        notes.append(
            cluster_note(proposals.large_clusters, proposals.clustered, int(proposals.set_aside.shape[0]),
                         params.cluster_limit)
        )  # fmt: skip
    template = prepared.template or flagmod.TemplateIndex.build(prepared.hashes, k=params.k, options=params.normalize)
    all_pairs = proposals.all_pairs()
    memo, touched, note_moved = None, None, False
    if applies and proposals.tfidf is None:
        assert previous is not None
        memo = previous
        touched = _touched_by_template_change(prepared, previous.template, template.boilerplate)
        note_moved = previous.min_count != template.min_count
    two = helper is not None and proposals.tfidf is None and proposals.fingerprints is None  # as verifying decides
    _plan_verifying(progress, len(documents), prepared, all_pairs, by_id, memo, two)
    kept, rejected, taken, taken_rejected = _verify_and_flag(
        prepared, proposals, all_pairs, by_id, texts, params, template, progress, memo, touched, note_moved, helper,
        early.jobs if early is not None else (),  # (their template is ``prepared.template``, as this one)
    )  # fmt: skip
    counts["pairs_from_previous_run"] = taken
    counts["rejections_from_previous_run"] = taken_rejected
    counts["proposed_pairs"] = len(all_pairs)
    counts["rejected_by_verification"] = rejected
    counts["candidates"] = len(kept)
    rejected_ids = _rejected_pairs(all_pairs, kept, prepared.doc_ids, by_id) if keep_cache else ()
    return ScreenResult(final_docs, tuple(sort_candidates(kept, by_id)), bands, rows, counts, tuple(notes), new_cache,
                        rejected_ids)  # fmt: skip


# Pairs looked at to estimate the verification's work (``_plan_verifying``): an even sample.
_PLAN_SAMPLE = 2000


def _plan_verifying(
    progress: Progress,
    files: int,
    prepared: Prepared,
    pairs: Sequence[tuple[int, int]],
    by_id: Mapping[str, Document],
    memo: PairMemo | None,
    helper: bool,
) -> None:
    """Tell a progress that listens the verification's work, now that the pairs are known: their
    number, their texts' length and how many an earlier run verified (from an even sample)."""
    if not listens(progress):
        return
    step = max(1, len(pairs) // _PLAN_SAMPLE)
    sample = pairs[::step]
    lengths = prepared.normalized_chars
    scale = len(pairs) / max(1, len(sample))
    pair_chars = round(sum(lengths[i] + lengths[j] for i, j in sample) * scale)
    taken = 0
    if memo is not None:
        held = _memo_lookup(memo, by_id, prepared.doc_ids)
        taken = min(len(pairs), round(sum(held(i, j) for i, j in sample) * scale))
    plan_stages(progress, stage_seconds(files=files, pairs=len(pairs), pair_chars=pair_chars, pairs_taken=taken,
                                        helper=helper))  # fmt: skip


def cluster_note(clusters: int, files: int, set_aside: int, limit: int) -> str:
    """The run note of pairs set aside in large clusters (the window says it in its own words)."""
    return (
        f"{clusters:,} group(s) of more than {limit} files linked as near copies ({files:,} files); {set_aside:,} of "
        f"the pairs among them were not verified: each file kept its {DENSE_NEAREST} closest partners and the "
        "links that keep its group connected (set cluster_limit to 0 to verify every pair)"
    )


def _by_path(by_id: Mapping[str, Document], doc_ids: Sequence[str], i: int, j: int) -> tuple[Document, Document]:
    """The documents of the pair (i, j), left and right by path (as candidates have them)."""
    left, right = by_id[doc_ids[i]], by_id[doc_ids[j]]
    return (right, left) if left.path > right.path else (left, right)


def _memo_key(left: Document, right: Document) -> tuple[str, str] | None:
    """A pair's key in ``PairMemo`` (both files' SHA-256, left and right by path), if both have one."""
    return (left.sha256, right.sha256) if left.sha256 and right.sha256 else None


def _memo_lookup(
    memo: PairMemo, by_id: Mapping[str, Document], doc_ids: Sequence[str]
) -> Callable[[int, int], bool]:
    """(i, j) -> does ``memo`` hold the pair of those two documents, kept or rejected?"""

    def held(i: int, j: int) -> bool:
        key = _memo_key(*_by_path(by_id, doc_ids, i, j))
        return key is not None and (key in memo.pairs or key in memo.rejected)

    return held


def _rejected_pairs(
    pairs: Sequence[tuple[int, int]], kept: Sequence[Candidate], doc_ids: Sequence[str], by_id: Mapping[str, Document]
) -> tuple[tuple[str, str], ...]:
    """(left, right) doc_ids, by path, of the ``pairs`` not among ``kept``."""
    kept_ids = {(c.left, c.right) for c in kept}
    ordered = ((left.doc_id, right.doc_id) for left, right in (_by_path(by_id, doc_ids, i, j) for i, j in pairs))
    return tuple(p for p in ordered if p not in kept_ids)


def _read_ahead(
    texts: Mapping[str, str],
    doc_ids: Sequence[str],
    progress: Progress,
    pairs: set[tuple[int, int]],
    stop: Callable[[], bool],
    *,
    skip: Callable[[int, int], bool] | None = None,
) -> None:
    """Read again, in document order, the released texts of the documents in ``pairs`` (but those
    only in pairs ``skip`` names: an earlier screen's pairs taken over), until ``stop()``.

    ``propose`` calls it while the containment index is built on the other thread: the pairs LSH
    found are verified next, and a text once read is kept, so reading, checking and decoding it
    here takes that work off verification (at 100,000 files the index outlasts LSH by ~1 s, in
    which ~0.7 s of reading fits; verification was 0.4-0.6 s shorter).
    """
    if skip is not None:
        pairs = {p for p in pairs if not skip(*p)}
    for n, i in enumerate(sorted({i for pair in pairs for i in pair})):
        if n % 64 == 0:
            progress.check()
            if stop():
                return
        texts[doc_ids[i]]


def _meanwhile(
    early: _EarlyJobs | None,
    read_ahead: Callable[[set[tuple[int, int]], Callable[[], bool]], None] | None,
    then: Callable[[], None] | None,
    pairs: set[tuple[int, int]],
    done: Callable[[], bool],
    proposals: Proposals,
) -> None:
    """``propose``'s ``meanwhile``: the helper's first jobs, the reading ahead, then ``then()``,
    each if there is one and the containment index is still not ``done()``."""
    if early is not None:
        early.send(pairs, done, proposals)
    if read_ahead is not None and not done():
        read_ahead(pairs, done)
    if then is not None and not done():
        then()


# Pairs in each of the helper's first jobs (``_EarlyJobs``): small, so that the share of the rounds
# given to it after can make up for how far it got.
EARLY_JOB_PAIRS = 512


@dataclass
class _EarlyJob:
    """Pairs sent to the helper before the containment index was done, and its future result."""

    future: Future[tuple[list[Candidate], int]]
    pairs: list[tuple[int, int]]


class _EarlyJobs:
    """The helper's share of the pairs LSH found, sent while the containment index is still being
    built (``propose``'s ``meanwhile``): the helper would otherwise idle until verification, and
    at 100,000 articles the index outlasts LSH by ~1 s.

    Sent as the first ``HELPER_SHARE`` of the pairs in verification's order, in jobs of
    ``EARLY_JOB_PAIRS``, while the index is not done. ``_verify_and_flag`` then takes their
    results for the pairs still proposed (a large cluster may set some aside) with the methods
    that proposed them in the end (the index may name a pair too), and gives the helper a smaller
    share of the rounds for as many pairs as it still has to do.
    """

    def __init__(
        self,
        helper: VerifyHelper,
        prepared: Prepared,
        by_id: Mapping[str, Document],
        texts: Mapping[str, str],
        params: ScreenParams,
        template: flagmod.TemplateIndex,
        progress: Progress,
    ) -> None:
        self.helper, self.prepared, self.by_id, self.texts = helper, prepared, by_id, texts
        self.params, self.template, self.progress = params, template, progress
        self.jobs: list[_EarlyJob] = []

    def send(self, pairs: set[tuple[int, int]], done: Callable[[], bool], proposals: Proposals) -> None:
        if proposals.tfidf is not None or proposals.fingerprints is not None:
            return
        ordered = sorted(pairs)
        share = int(len(ordered) * HELPER_SHARE)
        if share < HELPER_MIN_PAIRS:
            return
        for lo in range(0, share, EARLY_JOB_PAIRS):
            self.progress.check()
            if done():
                return
            part = ordered[lo : min(share, lo + EARLY_JOB_PAIRS)]
            future = self.helper.submit(build_job(
                part, self.prepared.doc_ids, self.texts, self.by_id, proposals.exact_group_of, proposals.signatures,
                proposals.rep_of_index, proposals.methods_of, list(proposals.by_method), self.params, self.template,
            ))  # fmt: skip
            if future is None:
                return
            self.jobs.append(_EarlyJob(future, part))


# Pairs verified and flagged per round: the shingle sets of a round's documents are recomputed,
# used and forgotten, so memory stays flat however many pairs there are. A round also stops at
# this many normalized characters in its documents (8 bytes a shingle while it runs): 2,048 pairs
# of manuscripts of 75,000 characters would hold ~2.4 GB of sets.
VERIFY_CHUNK = 2048
VERIFY_CHUNK_CHARS = 16_000_000


def _rounds(pairs: Sequence[tuple[int, int]], chars: Sequence[int]) -> Iterator[Sequence[tuple[int, int]]]:
    """``pairs`` in order, in runs of at most ``VERIFY_CHUNK`` pairs whose documents hold at most
    ``VERIFY_CHUNK_CHARS`` characters (``chars``: per document index; one pair at least a run)."""
    if not pairs:
        return
    most = int(np.asarray(chars, dtype=np.int64)[np.asarray(pairs, dtype=np.int64)].max())
    if 2 * VERIFY_CHUNK * most <= VERIFY_CHUNK_CHARS:  # articles: no run can reach the bound
        for lo in range(0, len(pairs), VERIFY_CHUNK):
            yield pairs[lo : lo + VERIFY_CHUNK]
        return
    lo = 0
    while lo < len(pairs):
        seen: set[int] = set()
        held, hi = 0, lo
        while hi < len(pairs) and hi - lo < VERIFY_CHUNK:
            new = [d for d in pairs[hi] if d not in seen]
            more = sum(chars[d] for d in new)
            if hi > lo and held + more > VERIFY_CHUNK_CHARS:
                break
            seen.update(new)
            held += more
            hi += 1
        yield pairs[lo:hi]
        lo = hi


def _verify_and_flag(
    prepared: Prepared,
    proposals: Proposals,
    pairs: Sequence[tuple[int, int]],
    by_id: Mapping[str, Document],
    texts: Mapping[str, str],
    params: ScreenParams,
    template: flagmod.TemplateIndex,
    progress: Progress,
    memo: PairMemo | None = None,
    touched: np.ndarray | None = None,
    note_moved: bool = False,
    helper: VerifyHelper | None = None,
    early: Sequence[_EarlyJob] = (),
) -> tuple[list[Candidate], int, int, int]:
    """Verify, then flag, the pairs in rounds (``_rounds``; reports stage ``verify``).

    Pairs ``memo`` rejected (by the SHA-256 of both files) are rejected again without a look.
    Pairs found in its ``pairs`` are taken from it instead of verified, unless both
    documents are ``touched`` (both hold a shingle whose boilerplate status changed since), or the
    pair was flagged template_only from the boilerplate index and ``note_moved`` (the index's
    ``min_count``, which that flag's note names, is another now). A pair whose documents hold no
    shingle that changed status has the same template evidence as before whatever ``min_count``
    is: the index enters it only through the boilerplate among the pair's own shingles.

    With a ``helper`` (``core.helper``), ``HELPER_SHARE`` of each round is sent to that process
    before this one verifies the rest; if it fails, this process verifies its share too. The
    pairs of its ``early`` jobs (``_EarlyJobs``) are not sent again: their candidates are taken for
    the pairs still among ``pairs``, with the methods ``proposals`` names now, and the helper's share
    of the rounds is what keeps its part of the work left at ``HELPER_SHARE``.

    Returns:
        (kept candidates, number rejected, number of candidates taken from ``memo``, number of those
        rejected that ``memo`` had rejected).
    """
    quiet = ChecksOnly(progress)
    kept: list[Candidate] = []
    rejected = taken = taken_rejected = 0
    total = len(pairs)
    ids = prepared.doc_ids
    use_helper = helper is not None and proposals.tfidf is None and proposals.fingerprints is None
    progress.report("verify", 0, total)
    # The helper's jobs: (future, the pairs to verify here should it fail or the job be taken back,
    # and for an early job the pairs it was given).
    away: list[tuple[Future[tuple[list[Candidate], int]], Sequence[tuple[int, int]], list[tuple[int, int]] | None]] = []
    round_share = HELPER_SHARE  # of each round, for the helper
    if early and use_helper:
        wanted = set(pairs)
        away = [(job.future, [p for p in job.pairs if p in wanted], job.pairs) for job in early]
        given = {p for job in early for p in job.pairs}
        pairs = [p for p in pairs if p not in given]
        ahead = sum(len(still) for future, still, _ in away if not future.done())
        if pairs:
            round_share = min(HELPER_SHARE, max(0.0, (HELPER_SHARE * (len(pairs) + ahead) - ahead) / len(pairs)))
    # Rounds: the pairs still to verify (those of ``memo`` taken over), and each round's share for
    # the helper sent at once, so that it works through its queue while this process verifies.
    local_rounds: list[Sequence[tuple[int, int]]] = []
    for chunk in _rounds(pairs, prepared.normalized_chars):
        progress.check()
        if memo:
            todo = []
            for i, j in chunk:
                left, right = _by_path(by_id, ids, i, j)
                key = _memo_key(left, right)
                old = memo.pairs.get(key) if key is not None else None
                if old is None and key is not None and key in memo.rejected:
                    rejected += 1  # rejected by an earlier screen: a matter of the two texts alone
                    taken_rejected += 1
                    continue
                if (
                    old is None
                    or (touched is not None and touched[i] and touched[j])
                    or (note_moved and FLAG_TEMPLATE_ONLY in old.flags)
                ):
                    todo.append((i, j))
                else:
                    methods = proposals.methods_of((min(i, j), max(i, j)))
                    if (old.left, old.right, old.methods) != (left.doc_id, right.doc_id, methods):
                        old = candidate_with(old, left=left.doc_id, right=right.doc_id, methods=methods)
                    kept.append(old)  # as it was, mostly (a replace of each cost 60 ms at 8,800 pairs)
                    taken += 1
            chunk = todo
        if use_helper and len(chunk) >= HELPER_MIN_PAIRS and round_share > 0:
            assert helper is not None
            cut = int(len(chunk) * round_share)
            share, chunk = list(chunk[:cut]), chunk[cut:]
            back: list[tuple[int, int]] = []
            # In jobs of at most HELPER_JOB_PAIRS, as even as can be: those it has not started at
            # the end are taken back below, and the last ones it runs are short.
            jobs = -(-len(share) // HELPER_JOB_PAIRS)
            for part in range(jobs):
                sent = share[part * len(share) // jobs : (part + 1) * len(share) // jobs]
                future = helper.submit(build_job(
                    sent, ids, texts, by_id, proposals.exact_group_of, proposals.signatures, proposals.rep_of_index,
                    proposals.methods_of, list(proposals.by_method), params, template,
                ))  # fmt: skip
                if future is None:  # the helper is gone: this process does the rest of the round
                    back.extend(sent)
                else:
                    away.append((future, sent, None))
            if back:
                chunk = back + list(chunk)
        local_rounds.append(chunk)
    done = taken + taken_rejected

    def here(chunk: Sequence[tuple[int, int]]) -> None:  # pairs verified in this process
        nonlocal rejected
        got, dropped = verify_and_flag_pairs(prepared, proposals, by_id, texts, params, template, quiet, pairs=chunk)
        kept.extend(got)
        rejected += dropped
        if isinstance(prepared.hashes, LazyHashes):
            prepared.hashes.drop()
        release_free_memory()  # the round's texts, hashes and aligned arrays, before the next round's

    for chunk in local_rounds:
        here(chunk)
        done += len(chunk)
        progress.report("verify", done + sum(len(s) for f, s, _ in away if f.done()), total)
    # The helper's jobs it has not started when this process has done its own pairs are taken
    # back, the last first: a helper that lags (its share shipped there and its candidates back)
    # kept this process waiting, a core idle, for the last 3-6 s of a folder of drafts.
    while away and away[-1][0].cancel():
        progress.check()
        _future, sent, _given = away.pop()
        here(sent)
        done += len(sent)
        assert helper is not None
        helper.taken_back += len(sent)
        progress.report("verify", done + sum(len(s) for f, s, _ in away if f.done()), total)
    for future, sent, given in away:
        progress.check()
        try:
            from_helper, dropped = future.result()
        except Exception:  # the helper died or failed: verify its share here
            if helper is not None and not helper.failed:
                log.warning("verification helper failed; verifying in this process", exc_info=True)
                helper.failed = True
            here(sent)
        else:
            if given is not None:
                from_helper, dropped = _settled(from_helper, sent, proposals, ids)
            kept.extend(from_helper)
            rejected += dropped
        # The helper's jobs come in after this process's pairs: the bar goes on as each does.
        progress.report("verify", done + sum(len(s) for f, s, _ in away if f.done() or f is future), total)
    progress.report("verify", total, total)
    progress.report("flags", len(kept), len(kept))
    release_free_memory()  # the helper's jobs and results
    return kept, rejected, taken, taken_rejected


def _settled(
    got: list[Candidate], still: Sequence[tuple[int, int]], proposals: Proposals, ids: Sequence[str]
) -> tuple[list[Candidate], int]:
    """An early job's candidates for the pairs ``still`` proposed (a large cluster may have set
    some of those it was given aside), each with the methods that proposed it in the end, and how
    many of those pairs it rejected."""
    index = {ids[d]: d for pair in still for d in pair}
    out = []
    for c in got:
        i, j = index.get(c.left), index.get(c.right)
        if i is None or j is None:
            continue
        pair = (min(i, j), max(i, j))
        methods = proposals.methods_of(pair)
        if not methods:  # set aside after it was sent
            continue
        out.append(c if c.methods == methods else candidate_with(c, methods=methods))
    return out, len(still) - len(out)


def _touched_by_template_change(prepared: Prepared, before: np.ndarray, now: np.ndarray) -> np.ndarray:
    """Per document: does it hold a shingle that is boilerplate now and was not before, or the
    reverse? A pair's template flag can only change when both of its documents do.

    Every such shingle is among ``prepared.boiler`` (both indexes count only those), so each
    document's ``boiler_hits`` answer it; without them, every document counts as touched.
    """
    n = len(prepared)
    changed = np.setxor1d(before, now)
    if changed.size == 0:
        return np.zeros(n, dtype=bool)
    boiler, hits = prepared.boiler, prepared.boiler_hits
    if boiler is None or hits is None or not np.isin(changed, boiler).all():
        return np.ones(n, dtype=bool)
    changed_pos = np.searchsorted(boiler, changed)
    sizes = np.fromiter((h.size for h in hits), dtype=np.int64, count=n)
    touched = np.zeros(n, dtype=bool)
    if sizes.sum():
        owner = np.repeat(np.arange(n), sizes)
        touched[owner[np.isin(np.concatenate(hits), changed_pos)]] = True
    return touched


def _apply_scope(proposals: Proposals, prepared: Prepared, labels: Mapping[str, str], scope: str) -> int:
    """Drop proposed pairs outside the scope; returns how many distinct pairs were dropped."""
    dropped: set[tuple[int, int]] = set()
    ids = prepared.doc_ids
    for method, pairs in proposals.by_method.items():
        outside = {p for p in pairs if not scope_allowed(scope, labels.get(ids[p[0]], ""), labels.get(ids[p[1]], ""))}
        proposals.by_method[method] = pairs - outside
        dropped |= outside
    return len(dropped)


def verify_and_flag_pairs(
    prepared: Prepared,
    proposals: Proposals,
    documents: Mapping[str, Document],
    texts: Mapping[str, str],
    params: ScreenParams,
    template: flagmod.TemplateIndex,
    progress: Progress = NULL_PROGRESS,
    pairs: Sequence[tuple[int, int]] | None = None,
) -> tuple[list[Candidate], int]:
    """``verify_pairs`` with each kept candidate flagged as it is built (as ``annotate_candidates``
    would flag them afterwards; the same results, but the flags of one pair are checked while the
    next pairs are aligned). Returns (flagged candidates, number rejected)."""

    flag = _flagger(prepared, texts, params, template)
    kept, rejected, _ = verify_pairs(prepared, proposals, documents, texts, params, progress, pairs=pairs, annotate=flag)
    return kept, rejected


def _flagger(
    prepared: Prepared, texts: Mapping[str, str], params: ScreenParams, template: flagmod.TemplateIndex
) -> Callable[[Candidate, PairDiff, int, int], Candidate]:
    """``flags.annotate`` for one candidate, its alignment and its documents' indexes in ``prepared``."""

    def flag(candidate: Candidate, diff: PairDiff, i: int, j: int) -> Candidate:
        return flagmod.annotate(
            candidate,
            texts[candidate.left],
            texts[candidate.right],
            diff,
            left_hashes=prepared.hashes[i],
            right_hashes=prepared.hashes[j],
            template=template,
            containment_threshold=params.containment_threshold,
        )

    return flag


def annotate_candidates(
    kept: Sequence[Candidate],
    diffs: Mapping[tuple[str, str], PairDiff],
    prepared: Prepared,
    texts: Mapping[str, str],
    params: ScreenParams,
    template: flagmod.TemplateIndex,
    progress: Progress = NULL_PROGRESS,
) -> list[Candidate]:
    """Flags stage: revision, template, quotation and containment checks (``core.flags``).

    Args:
        kept: Verified candidates; ``diffs`` holds their alignments keyed by (left, right).
        prepared: Holds the shingle hashes of every document named in ``kept``.
        texts: Raw texts of those documents.
        params: k, normalization and the containment threshold are used.
        template: The corpus-wide boilerplate index (``TemplateIndex.build`` over all documents).
        progress: Reports stage ``flags``.
    """
    flag = _flagger(prepared, texts, params, template)
    out = []
    total = len(kept)
    for n, cand in enumerate(kept, 1):
        out.append(flag(cand, diffs[(cand.left, cand.right)], prepared.index(cand.left), prepared.index(cand.right)))
        if n % 64 == 0 or n == total:
            progress.check()
            progress.report("flags", n, total)
    return out
