"""Boilerplate shared across the corpus (headers, disclaimers, column notes) and the template flag.

A shingle found in many documents is boilerplate: ``TemplateIndex.build`` counts, for every shingle
hash, how many documents hold it (one numpy sort over the candidates' concatenated hash arrays; each
array is already duplicate-free, so a run length is a document count). A pair whose overlap is
mostly boilerplate shares a template, not an article: ``template_only``.

Two documents can also share a layout that nobody else uses (a column header and footer in a small
corpus). ``template_evidence`` recognises that case from the pair alone: every shared passage sits at
the very top or the very bottom of both documents, and both keep a body of their own in between.

Imports numpy and sibling engine modules only.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from neardup_gui.core.diffspans import PairDiff
from neardup_gui.core.memory import bounded_runs
from neardup_gui.core.normalize import normalize
from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.records import FLAG_TEMPLATE_ONLY, FlagEvidence, NormalizeOptions
from neardup_gui.core.shingles import window_hashes

__all__ = ["BoilerplatePassage", "TemplateIndex", "template_evidence", "in_sorted"]

Span = tuple[int, int]

# Bits of a hash used to pre-count documents per bucket before the exact count (keeps the sort to
# the few hashes that can be frequent enough). ``build`` uses the fewest bits in this range whose
# average bucket load stays well below the boilerplate document count: a small bucket table stays
# in the CPU cache, which makes both passes faster; the result is the same for any number of bits.
_BUCKET_BITS = 20
_MIN_BUCKET_BITS = 16
# Average documents per bucket allowed, as a share of the boilerplate document count.
_BUCKET_LOAD = 0.25
_BATCH = 1024
# Hashes at most in one range of values counted at once in the exact pass (``build``).
_PART_HASHES = 1 << 21
# Share (0..1) of a document's raw length that must lie outside the shared passages for the pair to
# be "template only" rather than copies.
BODY_SHARE = 0.1


def in_sorted(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Boolean mask: which ``values`` occur in ``sorted_set`` (sorted uint64)."""
    if sorted_set.size == 0 or values.size == 0:
        return np.zeros(values.size, dtype=bool)
    idx = np.searchsorted(sorted_set, values)
    idx[idx >= sorted_set.size] = 0
    return sorted_set[idx] == values


# From this many boilerplate hashes, whether a hash is one is looked up in buckets of their top
# bits (``_Buckets``) rather than by a binary search.
BUCKETED_FROM = 1 << 16
_MAX_TABLE_BITS = 24  # at most 2^24 + 1 offsets (64 MB)


class _Buckets:
    """Membership in a sorted, unique uint64 array by buckets of the values' top bits, about one
    value a bucket: a hash is ruled out or found by looking at the one or two values of its own
    bucket. The boilerplate tab's index of a 10,000-article folder holds 1.3 million hashes: a
    binary search of each window hash of a 1,500-character text took ~620 us, this ~90 us (the
    same answers)."""

    def __init__(self, values: np.ndarray) -> None:
        bits = max(8, min(_MAX_TABLE_BITS, int(values.size).bit_length()))
        self.values = values
        self.shift = np.uint64(64 - bits)
        self.starts = np.zeros((1 << bits) + 1, dtype=np.int32 if values.size < 2**31 else np.int64)
        np.cumsum(np.bincount((values >> self.shift).astype(np.intp), minlength=1 << bits), out=self.starts[1:])

    def mask(self, queries: np.ndarray) -> np.ndarray:
        """Boolean mask: which ``queries`` (uint64, any order) are among the values."""
        top = (queries >> self.shift).astype(np.intp)
        first = self.starts[top]
        count = self.starts[top + 1] - first
        out = np.zeros(queries.size, dtype=bool)
        live = np.flatnonzero(count)  # the queries whose bucket holds a value; then its j-th one
        j = 0
        while live.size:
            out[live] |= self.values[first[live] + j] == queries[live]
            j += 1
            live = live[count[live] > j]
        return out


def _intersect(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.size > b.size:
        a, b = b, a
    return a[in_sorted(a, b)]


@dataclass(frozen=True)
class BoilerplatePassage:
    """A run of boilerplate as an editor reads it.

    Attributes:
        text: Raw text of the passage in the representative document.
        doc_count: Number of documents containing this passage (same normalized text).
        doc_ids: Up to five of those documents, the representative first.
        doc_id: The representative document.
        start, end: Raw code-point span of the passage in the representative document.
    """

    text: str
    doc_count: int
    doc_ids: tuple[str, ...]
    doc_id: str
    start: int
    end: int


@dataclass(frozen=True, eq=False)
class TemplateIndex:
    """Shingle hashes present in many documents.

    Attributes:
        boilerplate: Sorted uint64 hashes found in at least ``min_count`` documents.
        doc_counts: Number of documents holding each boilerplate hash (aligned with ``boilerplate``).
        min_count: The document count that made a hash boilerplate.
        documents: Number of documents the index was built from.
        k: Shingle length the hashes were computed with (used to locate boilerplate in raw text).
        options: Normalization the hashes were computed with.
    """

    boilerplate: np.ndarray
    doc_counts: np.ndarray
    min_count: int
    documents: int
    k: int = 5
    options: NormalizeOptions = field(default_factory=NormalizeOptions)

    @classmethod
    def build(
        cls,
        hash_arrays: Sequence[np.ndarray],
        *,
        min_docs: int = 3,
        min_share: float = 0.05,
        k: int = 5,
        options: NormalizeOptions | None = None,
        progress: Progress = NULL_PROGRESS,
    ) -> TemplateIndex:
        """Count in how many documents each shingle occurs; keep the frequent ones.

        Args:
            hash_arrays: Sorted, duplicate-free uint64 shingle hashes, one array per document.
                Documents with identical arrays (exact copies) are counted once.
            min_docs: A hash is boilerplate only if at least this many documents hold it.
            min_share: ... and at least this share (0..1) of all (distinct) documents.
            k, options: Shingle length and normalization of the hashes (pass the screen's values;
                they are only used to show where boilerplate lies in a raw text).
            progress: Cancellation is checked between batches.

        Returns:
            The index; empty when no hash is frequent enough.
        """
        # Exact copies (same shingle set) count once: three copies of one article are not a template.
        hash_arrays = _distinct(hash_arrays)
        n = len(hash_arrays)
        min_count = max(int(min_docs), math.ceil(min_share * n), 2)
        opts = options or NormalizeOptions()
        empty = np.zeros(0, dtype=np.uint64)
        if n < min_count:
            return cls(empty, np.zeros(0, dtype=np.int64), min_count, n, k, opts)
        # Pass 1: documents per hash bucket (an upper bound of each hash's document count).
        total = sum(int(h.size) for h in hash_arrays)
        bits = _bucket_bits(total, min_count)
        shift = np.uint64(64 - bits)
        buckets = np.zeros(1 << bits, dtype=np.int64)
        for chunk in _chunks(hash_arrays):
            progress.check()
            buckets += np.bincount((np.concatenate(chunk) >> shift).view(np.int64), minlength=buckets.size)
        heavy = buckets >= min_count
        # Pass 2: exact counts for the hashes in heavy buckets only, one range of hash values at a
        # time: when most buckets are heavy (long documents, a low count) that is most hashes, and
        # sorting them at once took several times their size (2.1 GB for 550 texts of 75,000
        # characters). Each array is sorted, so its part in a range is a slice.
        part_bits = max(0, math.ceil(math.log2(max(1, total) / _PART_HASHES)))
        parts = 1 << part_bits
        cuts = np.array([i << (64 - part_bits) for i in range(parts)], dtype=np.uint64)  # each range's first value
        bounds = [np.append(np.searchsorted(h, cuts), h.size) for h in hash_arrays]
        kept_values, kept_counts = [], []
        for part in range(parts):
            picked = []
            for lo in range(0, n, _BATCH):
                progress.check()
                arrays = zip(hash_arrays[lo : lo + _BATCH], bounds[lo : lo + _BATCH])
                chunk = [c for c in (h[b[part] : b[part + 1]] for h, b in arrays) if c.size]
                if chunk:
                    cat = np.concatenate(chunk)
                    picked.append(cat[heavy[(cat >> shift).view(np.int64)]])
            if not picked:
                continue
            values = np.sort(np.concatenate(picked))
            del picked
            if values.size == 0:
                continue
            starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
            counts = np.diff(np.concatenate((starts, [values.size])))
            keep = counts >= min_count
            kept_values.append(values[starts[keep]])
            kept_counts.append(counts[keep].astype(np.int64))
        if not kept_values:
            return cls(empty, np.zeros(0, dtype=np.int64), min_count, n, k, opts)
        return cls(np.concatenate(kept_values), np.concatenate(kept_counts), min_count, n, k, opts)

    def is_empty(self) -> bool:
        """True when no shingle is frequent enough to be boilerplate."""
        return self.boilerplate.size == 0

    def holds(self, hashes: np.ndarray) -> np.ndarray:
        """Boolean mask: which ``hashes`` (uint64, any order) are boilerplate."""
        if self.boilerplate.size < BUCKETED_FROM or hashes.size == 0:
            return in_sorted(hashes, self.boilerplate)
        return self._buckets.mask(hashes)

    @functools.cached_property
    def _buckets(self) -> _Buckets:
        # Made once, when first needed (a frozen dataclass: cached_property sets the instance's
        # __dict__ directly); never pickled with the index (``__getstate__``).
        return _Buckets(self.boilerplate)

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_buckets"}

    def boilerplate_share(self, left_hashes: np.ndarray, right_hashes: np.ndarray) -> float:
        """Share (0..1) of the pair's shared shingles that are boilerplate; 0.0 when none are shared."""
        shared = _intersect(left_hashes, right_hashes)
        if shared.size == 0 or self.is_empty():
            return 0.0
        return float(np.count_nonzero(self.holds(shared))) / shared.size

    def jaccard_without(self, left_hashes: np.ndarray, right_hashes: np.ndarray) -> float:
        """Jaccard (0..1) of the pair after removing boilerplate shingles from both sides."""
        if not self.is_empty():
            left_hashes = left_hashes[~self.holds(left_hashes)]
            right_hashes = right_hashes[~self.holds(right_hashes)]
        shared = _intersect(left_hashes, right_hashes).size
        union = left_hashes.size + right_hashes.size - shared
        return shared / union if union else 0.0

    def covered_spans(self, raw: str) -> list[Span]:
        """Raw spans of ``raw`` covered by boilerplate shingles (needs the index's k and options)."""
        if self.is_empty():
            return []
        norm = normalize(raw, self.options)
        mask = self.holds(window_hashes(norm.cps, self.k))
        return [norm.raw_span(a, b + self.k - 1) for a, b in _runs(mask)]

    def passages(
        self,
        texts: Mapping[str, str],
        norm_options: NormalizeOptions | None = None,
        k: int | None = None,
        limit: int = 50,
        *,
        progress: Progress = NULL_PROGRESS,
    ) -> list[BoilerplatePassage]:
        """The boilerplate as readable passages, most widespread first (``search`` of every text)."""
        return self.search(texts, norm_options, k, limit, progress=progress)[0]

    def search(
        self,
        texts: Mapping[str, str],
        norm_options: NormalizeOptions | None = None,
        k: int | None = None,
        limit: int = 50,
        *,
        most_covered: float = 1.0,
        progress: Progress = NULL_PROGRESS,
    ) -> tuple[list[BoilerplatePassage], int]:
        """The boilerplate as readable passages, most widespread first, and how many texts were
        left out for being mostly boilerplate.

        Each document's maximal runs of boilerplate shingles are read back as raw text; runs with
        the same normalized text are one passage, counted once per document. A document whose
        runs cover more than ``most_covered`` of its raw length (``covered_spans``) is left out:
        copies and versions of one article would otherwise list the whole article. Each text is
        normalized and looked up once for both.

        Args:
            texts: doc_id -> raw text (the documents the index was built from, or any subset).
            norm_options, k: Normalization and shingle length of the index (default: the index's).
            limit: Maximum number of passages returned.
            most_covered: The largest share (0..1) of a text its boilerplate may cover.
            progress: Cancellation is checked every 64 documents.

        Returns:
            (passages sorted by document count (descending), then length (descending), then text;
            the number of texts left out).
        """
        if self.is_empty():
            return [], 0
        opts = norm_options or self.options
        k = k or self.k
        # Pass 1: each text's runs, each named by a 128-bit hash of its window hashes (``_RunKeys``),
        # in columns. Pass 2 below reads back as text only the runs of the passages that can be
        # among the first ``limit``: with a low document count a 10,000-article folder has ~800,000
        # runs, ~700,000 passages, and one dictionary entry per run took most of the search.
        keys = _RunKeys()
        kept: list[tuple[str, str, str]] = []  # (doc_id, raw, normalized text) of the texts searched
        run_parts: list[np.ndarray] = []  # per text kept: first window, end window, raw start, raw end
        left_out = 0
        for n, (doc_id, raw) in enumerate(texts.items()):
            if n % 64 == 0:
                progress.check()
            norm = normalize(raw, opts)
            windows = window_hashes(norm.cps, k)
            firsts, ends = _run_bounds(self.holds(windows))
            if firsts.size == 0:
                continue
            raw_starts, raw_ends = norm.starts[firsts], norm.ends[ends + (k - 2)]
            if most_covered < 1.0 and int((raw_ends - raw_starts).sum()) > most_covered * max(1, len(raw)):
                left_out += 1
                continue
            keys.add(len(kept), windows, firsts, ends)
            kept.append((doc_id, raw, norm.text))
            run_parts.append(np.stack([firsts, ends, raw_starts, raw_ends]))
        if not kept:
            return [], left_out
        runs = np.concatenate(run_parts, axis=1)
        del run_parts
        wanted, doc_of = keys.leading(limit)
        # Pass 2: those runs as text, counted as before (once per document, in the texts' order).
        found: dict[str, list] = {}
        for r in np.flatnonzero(wanted).tolist():
            d = int(doc_of[r])
            doc_id, raw, ntext = kept[d]
            a, b, s, e = runs[:, r].tolist()
            key = ntext[a : b + k - 1]
            entry = found.get(key)
            if entry is None:
                found[key] = [1, [doc_id], doc_id, s, e, raw[s:e], d]
            elif entry[6] != d:  # counted once per document
                entry[0] += 1
                entry[6] = d
                if len(entry[1]) < 5:
                    entry[1].append(doc_id)
        ordered = heapq.nsmallest(limit, found.items(), key=lambda kv: (-kv[1][0], -len(kv[0]), kv[0]))
        return [BoilerplatePassage(v[5], v[0], tuple(v[1]), v[2], v[3], v[4]) for _, v in ordered], left_out


class _RunKeys:
    """The runs of boilerplate windows of many texts, each named by two 64-bit polynomial hashes of
    its window hashes (and its length), so that equal passages are counted by numpy instead of one
    dictionary entry a run. Pass 2 of ``search`` counts the passages it reads back as text, so a
    name two different passages shared (a chance of about 2^-128 a pair of runs) could at worst
    change which passages fill the last places of the list."""

    _BASES = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))

    def __init__(self) -> None:
        self._docs: list[np.ndarray] = []
        self._names: list[np.ndarray] = []  # per text: (runs, 3) uint64: both hashes, length
        self._powers = [np.ones(1, dtype=np.uint64)] * 2
        self._inverse = [np.ones(1, dtype=np.uint64)] * 2

    def _grow(self, n: int) -> None:
        if self._powers[0].size > n:
            return
        size = max(n + 1, 2 * self._powers[0].size)
        for i, base in enumerate(self._BASES):
            inv = np.uint64(pow(int(base), -1, 1 << 64))  # odd, so invertible modulo 2^64
            for table, factor in ((self._powers, base), (self._inverse, inv)):
                row = np.full(size, factor, dtype=np.uint64)  # factor^0, factor^1, ... modulo 2^64
                row[0] = 1
                table[i] = np.cumprod(row, out=row)

    def add(self, doc: int, windows: np.ndarray, firsts: np.ndarray, ends: np.ndarray) -> None:
        """Name the runs ``firsts[i]`` to ``ends[i]`` (window indexes, end exclusive) of text ``doc``."""
        n = windows.size
        self._grow(n)
        names = np.empty((firsts.size, 3), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for i in range(2):
                sums = np.zeros(n + 1, dtype=np.uint64)
                np.cumsum(windows * self._powers[i][:n], out=sums[1:])
                names[:, i] = (sums[ends] - sums[firsts]) * self._inverse[i][firsts]
        names[:, 2] = ends - firsts
        self._names.append(names)
        self._docs.append(np.full(firsts.size, doc, dtype=np.int64))

    def leading(self, limit: int) -> tuple[np.ndarray, np.ndarray]:
        """Mask of the runs whose passage can be among the first ``limit`` (by documents holding
        it, then length): every run of each name ranked at or above the ``limit``-th name,
        ties included (their order is the text's, read in pass 2); and each run's text (its index)."""
        names = np.concatenate(self._names)
        docs = np.concatenate(self._docs)
        self._names, self._docs = [], []
        # Grouped by sorting (both hashes, length, then document): numpy's sorts let a window
        # thread run meanwhile, its hash-based ``unique`` held the interpreter ~0.25 s.
        order = np.lexsort((docs, names[:, 2], names[:, 1], names[:, 0]))
        ordered, ordered_docs = names[order], docs[order]
        new_name = np.ones(order.size, dtype=bool)
        new_name[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
        new_holder = new_name.copy()  # a name's first run in each document holding it
        new_holder[1:] |= ordered_docs[1:] != ordered_docs[:-1]
        name_at = np.cumsum(new_name) - 1
        holders = np.bincount(name_at[new_holder])
        length = ordered[new_name, 2].astype(np.int64)
        name_of = np.empty(order.size, dtype=np.int64)
        name_of[order] = name_at
        if holders.size > limit:
            last = np.lexsort((-length, -holders))[limit - 1]
            c, n = holders[last], length[last]
            leading = (holders > c) | ((holders == c) & (length >= n))
        else:
            leading = np.ones(holders.size, dtype=bool)
        return leading[name_of], docs


def _chunks(hash_arrays: Sequence[np.ndarray]) -> Iterator[Sequence[np.ndarray]]:
    """The non-empty arrays in runs of at most ``_BATCH`` arrays and ``_PART_HASHES`` hashes (one
    array at least): each run is concatenated at once."""
    return bounded_runs([h for h in hash_arrays if h.size], _BATCH, len, _PART_HASHES)


def _bucket_bits(total: int, min_count: int) -> int:
    """Bucket bits for ``total`` hashes: the fewest (>= 16, <= 20) keeping the average load low."""
    bits = _MIN_BUCKET_BITS
    while bits < _BUCKET_BITS and total > _BUCKET_LOAD * min_count * (1 << bits):
        bits += 1
    return bits


def _distinct(hash_arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The arrays with exact duplicates removed (first kept).

    Keyed by a digest of the whole array: near copies of one template share their smallest,
    largest and middle hashes and often their size, so a key made of those put thousands of
    arrays in one bucket, each compared with all before it (quadratic in a folder of one filled-in
    template). Equal digests are still compared before an array is dropped.
    """
    seen: dict[tuple[int, bytes], list[np.ndarray]] = {}
    out = []
    for h in hash_arrays:
        if h.size == 0:
            continue
        key = (h.size, hashlib.blake2b(memoryview(np.ascontiguousarray(h)), digest_size=16).digest())
        same = seen.setdefault(key, [])
        if any(np.array_equal(h, g) for g in same):
            continue
        same.append(h)
        out.append(h)
    return out


def _run_bounds(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of True in a boolean array starts and ends (end exclusive), as arrays."""
    if not mask.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.view(np.int8), [0]))))
    return edges[::2], edges[1::2]


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) of each run of True in a boolean array (end exclusive)."""
    starts, ends = _run_bounds(mask)
    return list(zip(starts.tolist(), ends.tolist()))


def _blank(text: str) -> bool:
    return not any(ch.isalnum() for ch in text)


def _own_body(raw: str, unique: tuple[Span, ...], min_chars: int) -> bool:
    """The side keeps text of its own: unmatched text of at least ``BODY_SHARE`` and ``min_chars``."""
    own = sum(e - s for s, e in unique)
    return own >= min_chars and own >= BODY_SHARE * len(raw.strip())


def _layout_only(left_raw: str, right_raw: str, diff: PairDiff) -> bool:
    """Every shared passage is a head or a foot of both texts."""
    for r in diff.regions:
        head = _blank(left_raw[: r.left_start]) and _blank(right_raw[: r.right_start])
        foot = _blank(left_raw[r.left_end :]) and _blank(right_raw[r.right_end :])
        if not (head or foot):
            return False
    return bool(diff.regions)


def template_evidence(
    left_raw: str,
    right_raw: str,
    diff: PairDiff,
    left_hashes: np.ndarray | None,
    right_hashes: np.ndarray | None,
    index: TemplateIndex | None,
    *,
    share: float = 0.8,
    min_chars: int = 20,
) -> FlagEvidence | None:
    """``template_only`` when the pair's overlap is mostly boilerplate and each keeps a body of its own.

    The overlap qualifies when at least ``share`` (0..1) of the shared shingles are corpus
    boilerplate (needs the hashes and a non-empty index), or when every shared passage is the head
    or the foot of both documents (a layout the two share, even if no third document uses it).
    Either way both documents must keep text of their own (at least ``BODY_SHARE`` of their length
    and ``min_chars`` raw characters outside the shared passages), and at least ``min_chars`` raw
    characters must be shared: copies of one article are not "template only", however often the
    article occurs in the corpus.

    Returns:
        Evidence whose spans are the shared segments lying in boilerplate (all shared segments for
        the layout case), or None.
    """
    segs = diff.segments
    if not segs or sum(s.left_end - s.left_start for s in segs) < min_chars:
        return None
    own_left = _own_body(left_raw, diff.left_unique, min_chars)
    if not (own_left and _own_body(right_raw, diff.right_unique, min_chars)):
        return None
    if index is not None and not index.is_empty() and left_hashes is not None and right_hashes is not None:
        bs = index.boilerplate_share(left_hashes, right_hashes)
        if bs >= share:
            jw = index.jaccard_without(left_hashes, right_hashes)
            covered = index.covered_spans(left_raw)
            picked = [s for s in segs if _covered_share(s.left_start, s.left_end, covered) >= 0.5]
            picked = picked or list(segs)
            return FlagEvidence(
                FLAG_TEMPLATE_ONLY,
                tuple((s.left_start, s.left_end) for s in picked),
                tuple((s.right_start, s.right_end) for s in picked),
                f"{bs:.0%} of the shared shingles are boilerplate (in >= {index.min_count} documents); "
                f"Jaccard without boilerplate {jw:.2f}",
            )
    if _layout_only(left_raw, right_raw, diff):
        return FlagEvidence(
            FLAG_TEMPLATE_ONLY,
            tuple((s.left_start, s.left_end) for s in segs),
            tuple((s.right_start, s.right_end) for s in segs),
            "shared text only at the top and bottom of both documents; the bodies differ",
        )
    return None


def _covered_share(s: int, e: int, covered: list[Span]) -> float:
    if e <= s:
        return 0.0
    inside = sum(max(0, min(e, b) - max(s, a)) for a, b in covered)
    return inside / (e - s)
