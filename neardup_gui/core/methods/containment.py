"""Candidates for containment: a document mostly inside a longer one.

An excerpt of a long article has a low Jaccard with it (the union is the long article), so a Jaccard
index misses it. Here every document contributes the shingles whose hash falls in a fixed residue
class (one in ``sample`` of them, chosen by hash value, hence the same shingles in every document).
Sampling by value keeps subsets as subsets: if A lies inside B, A's sampled shingles lie inside B's,
and the share of A's samples found in B estimates |A∩B|/|A|.

Finding the pairs is a similarity join with prefix filtering: if A must share at least ``m`` of its
``n`` samples with B, then B must contain one of A's ``n - m + 1`` rarest samples. Each document
probes the posting lists with that prefix only, so common phrases (long posting lists) are rarely
probed and the join stays near-linear; the pairs found are then counted exactly on their samples.
The compiled path probes with ``_EXTRA_PROBES`` more rare samples and counts only a candidate met
on more than that many of the lists (B then holds at least that many more of A's probed samples),
as soon as it is found: with three-character shingles, whose samples are common, the prefix alone
proposed ~3 million pairs at 100,000 files for 47,000 kept. Sampled shingles found in more than
``bucket_cap`` documents are boilerplate and are ignored (the count is reported).

A rescan does not build the index again: ``containment_index`` keeps what it found as a memo (saved
with the prepare cache) and brings it up to date, looking only at the texts that came or went and at
the documents whose usable samples changed with them (exactly a full build's pairs, at 100,000
files and 1 % changed in about a quarter of its time: 0.22 s against 0.80 s).

Imports numpy only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from neardup_gui.core.compiled import kernel_module
from neardup_gui.core.methods.minhash_lsh import unique_pairs
from neardup_gui.core.methods.sorting import sorted_runs, stable_argsort
from neardup_gui.core.progress import GIVING_WAY_SLICE, NULL_PROGRESS, Progress, give_way

__all__ = [
    "ContainmentMemo", "containment_index", "containment_pairs", "intersection_size", "load_intersection_kernel",
    "memo_key", "sampled", "sorted_intersections",
]  # fmt: skip

# From this many samples in all, the probe rounds and the exact counts run compiled (numba, loaded
# for the MinHash signatures at that size anyway); the numpy rounds below give the same pairs.
_COMPILED_MIN_ENTRIES = 200_000


def _kernels():
    """The compiled (usable counts, pairs counted round, postings), or None without numba."""
    module = kernel_module("methods._sortkernel")
    return None if module is None else (module.usable_counts, module.contained_pairs, module.postings)


def sampled(hashes: np.ndarray, sample: int) -> np.ndarray:
    """The shingle hashes in the sampling class (the low bits select, MinHash uses the high half)."""
    if sample <= 1:
        return hashes
    if sample & (sample - 1) == 0:  # power of two: a mask is ~4x cheaper than a modulo on uint64
        return hashes[(hashes & np.uint64(sample - 1)) == 0]
    return hashes[(hashes % np.uint64(sample)) == 0]


def intersection_size(x: np.ndarray, y: np.ndarray) -> int:
    """|x ∩ y| of two sorted unique arrays. Compiled (``_sortkernel.intersection_count``) once that
    module is loaded (a large screen, the window's warm-up): it is not loaded for this alone."""
    if x.size > y.size:
        x, y = y, x
    if x.size == 0:
        return 0
    kernel = sys.modules.get(_SORT_KERNEL)
    if kernel is not None and _compiled_arg(x) and _compiled_arg(y):
        return int(kernel.intersection_count(x, y))
    idx = np.searchsorted(y, x)
    idx[idx >= y.size] = y.size - 1
    return int(np.count_nonzero(y[idx] == x))


_SORT_KERNEL = "neardup_gui.core.methods._sortkernel"


def load_intersection_kernel() -> bool:
    """Load the compiled ``intersection_size`` in this process (the verification helper's warm-up:
    4,000 drafts of ~20,000 characters spent ~5 s of its time in numpy's searchsorted); False
    without numba."""
    module = kernel_module("methods._sortkernel")
    if module is None:
        return False
    module.intersection_count(np.arange(3, dtype=np.uint64), np.arange(1, 4, dtype=np.uint64))
    return True


def _compiled_arg(a: np.ndarray) -> bool:
    """The one array type ``intersection_count`` is compiled for (any other would compile anew)."""
    return a.dtype == np.uint64 and a.ndim == 1 and a.flags.c_contiguous and a.flags.writeable


def sorted_intersections(values: np.ndarray, offsets: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """|A∩B| for each pair, where document d's sorted unique values are ``values[offsets[d]:offsets[d+1]]``."""
    out = np.empty(len(pairs), dtype=np.int64)
    for n, (a, b) in enumerate(pairs.tolist()):
        out[n] = intersection_size(values[offsets[a] : offsets[a + 1]], values[offsets[b] : offsets[b + 1]])
    return out


# Documents probed per round: the probe and join arrays stay small however large the folder.
_PROBE_DOCS = 8192
# Rare samples each document probes with beyond those the pigeonhole needs (compiled path): a
# partner must then be met on that many more of them, which a document sharing one sample by
# chance never is. At k = 3 and 100,000 files: 0 extra -> 4 million candidates counted, 2.8 s;
# 2 -> 0.6 s; 4 -> 0.7 s; 16 -> 1.0 s (longer posting lists walked).
_EXTRA_PROBES = 2


def containment_pairs(
    hash_arrays: Sequence[np.ndarray],
    threshold: float,
    sample: int,
    bucket_cap: int,
    progress: Progress = NULL_PROGRESS,
) -> tuple[np.ndarray, int]:
    """Pairs (i < j) whose sampled overlap suggests containment >= ``threshold`` one way.

    Args:
        hash_arrays: Sorted unique shingle hashes per document.
        threshold: Containment threshold in (0, 1].
        sample: Sampling rate (one shingle in ``sample``; 1 when the arrays are samples already).
        bucket_cap: Sampled shingles shared by more documents than this are ignored.

    Returns:
        (pairs array of shape (n, 2), number of ignored boilerplate shingles).
    """
    pairs, ignored, _ = _full_index(hash_arrays, threshold, sample, bucket_cap, progress)
    return pairs, ignored


def _full_index(
    hash_arrays: Sequence[np.ndarray],
    threshold: float,
    sample: int,
    bucket_cap: int,
    progress: Progress = NULL_PROGRESS,
) -> tuple[np.ndarray, int, np.ndarray]:
    """``containment_pairs``' (pairs, ignored), and how many usable samples (keys in at most
    ``bucket_cap`` documents) each document has, int64 per document."""
    n_docs = len(hash_arrays)
    empty = np.zeros((0, 2), dtype=np.int64)
    if sample <= 1:
        samples = list(hash_arrays)
    else:
        samples = []
        for i, h in enumerate(hash_arrays):
            if i % 4096 == 0:
                progress.check()
            samples.append(sampled(h, sample))
    counts = np.fromiter((s.size for s in samples), dtype=np.int64, count=n_docs)
    total_entries = int(counts.sum())
    n_usable_of = np.zeros(n_docs, dtype=np.int64)
    if total_entries == 0:
        return empty, 0, n_usable_of
    # Entry indices fit in 32 bits (2**31 samples is ~30 billion characters of text): half the
    # memory of int64 for the arrays below, which make this stage's peak.
    idx_type = np.int32 if total_entries < 2**31 else np.int64
    # Entries in document order; within a document, in key order (each sample array is sorted).
    keys = _concat(samples)
    first_of_doc = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(counts, out=first_of_doc[1:])
    progress.check()

    # Postings: the documents of each distinct key, keys ascending. Keys in more than bucket_cap
    # documents are boilerplate. ``group`` gives each entry (document order) its key's posting list.
    kernels = _kernels() if total_entries >= _COMPILED_MIN_ENTRIES else None
    order, head = sorted_runs(keys, idx_type)  # where each distinct key's run starts, keys ascending
    del keys  # the samples list holds the same values
    progress.check()
    group = np.empty(total_entries, dtype=idx_type)
    if kernels is not None:  # one compiled pass, without the GIL (the numpy steps below hold it)
        post_docs = np.empty(total_entries, dtype=idx_type)
        group_start = kernels[2](head, order, first_of_doc, group, post_docs)
        del head, order
    else:
        group_start = np.flatnonzero(head).astype(idx_type)
        group[order] = np.cumsum(head, dtype=idx_type) - 1
        del head
        post_docs = np.repeat(np.arange(n_docs, dtype=idx_type), counts)[order]
        del order
    group_size = np.diff(np.append(group_start, idx_type(total_entries))).astype(idx_type)
    ignored = int(np.count_nonzero(group_size > bucket_cap))
    progress.check()

    if kernels is not None:
        n_usable_of, n_shared = _usable_of(kernels, group, first_of_doc, group_size, bucket_cap)
        need = need_of(n_usable_of, threshold)
        pairs = _counted(kernels, group, first_of_doc, group_start, group_size, post_docs, need, n_shared,
                         bucket_cap, progress)  # fmt: skip
        return pairs, ignored, n_usable_of

    usable = np.empty(total_entries, dtype=bool)
    need = np.zeros(n_docs, dtype=np.int64)
    found: list[np.ndarray] = []
    for d0 in range(0, n_docs, _PROBE_DOCS):
        progress.check()
        d1 = min(n_docs, d0 + _PROBE_DOCS)
        lo, hi = int(first_of_doc[d0]), int(first_of_doc[d1])
        if hi == lo:
            continue
        chunk_group = group[lo:hi]
        df = group_size[chunk_group]
        ok = df <= bucket_cap
        usable[lo:hi] = ok
        member = np.repeat(np.arange(d0, d1, dtype=np.int64), counts[d0:d1])
        # Minimum shared samples for a document as the contained side: the threshold less three
        # binomial standard errors, so short documents with few samples are not lost. If A must
        # share `need` of its n usable samples with B, any n - need + 1 of them include a shared one
        # (pigeonhole): each document probes with that many of its rarest samples, whose posting
        # lists are short.
        n_usable = np.bincount(member[ok] - d0, minlength=d1 - d0)
        n_usable_of[d0:d1] = n_usable
        need[d0:d1] = need_of(n_usable, threshold)
        prefix = np.clip(n_usable - need[d0:d1] + 1, 0, n_usable)
        entries = np.flatnonzero(ok)
        rarest_first = entries[stable_argsort((member[entries] - d0) * np.int64(bucket_cap + 1) + df[entries])]
        doc_of = member[rarest_first] - d0
        start_of = np.zeros(d1 - d0 + 1, dtype=np.int64)
        np.cumsum(n_usable, out=start_of[1:])
        rank = np.arange(doc_of.size, dtype=np.int64) - start_of[doc_of]
        probe = rarest_first[rank < prefix[doc_of]]
        # Join the probes with the postings of their key (usable: a probe's key is not boilerplate).
        g = chunk_group[probe]
        starts = group_start[g].astype(np.int64)
        lengths = group_size[g].astype(np.int64)
        total = int(lengths.sum())
        if total == 0:
            continue
        at = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(total, dtype=np.int64)
        left = np.repeat(member[probe], lengths)
        right = post_docs[at].astype(np.int64)
        other = left != right
        pairs = np.stack([np.minimum(left[other], right[other]), np.maximum(left[other], right[other])], axis=1)
        found.append(unique_pairs(pairs, n_docs))
    del post_docs, group_start
    if not found:
        return empty, ignored, n_usable_of
    pairs = unique_pairs(np.concatenate(found), n_docs)
    progress.check()

    # Exact counts on the usable samples (each document's samples are sorted), per pair.
    shared = np.empty(len(pairs), dtype=np.int64)
    for n, (a, b) in enumerate(pairs.tolist()):
        x = samples[a][usable[first_of_doc[a] : first_of_doc[a + 1]]]
        y = samples[b][usable[first_of_doc[b] : first_of_doc[b + 1]]]
        shared[n] = intersection_size(x, y)
    del group, group_size
    a, b = pairs[:, 0], pairs[:, 1]
    ok = (shared >= need[a]) | (shared >= need[b])
    return pairs[ok], ignored, n_usable_of


def _usable_of(
    kernels: tuple, group: np.ndarray, first_of_doc: np.ndarray, group_size: np.ndarray, bucket_cap: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each document's usable samples (on keys in at most ``bucket_cap`` documents), and how many
    of those another document holds too; compiled."""
    usable = np.zeros(first_of_doc.size - 1, dtype=np.int64)
    shared = np.zeros(first_of_doc.size - 1, dtype=np.int64)
    kernels[0](group, first_of_doc, group_size, int(bucket_cap), usable, shared)
    return usable, shared


def _counted(
    kernels: tuple,
    group: np.ndarray,
    first_of_doc: np.ndarray,
    group_start: np.ndarray,
    group_size: np.ndarray,
    post_docs: np.ndarray,
    need: np.ndarray,
    shared: np.ndarray,
    bucket_cap: int,
    progress: Progress,
) -> np.ndarray:
    """The pairs of the compiled path (``_sortkernel.contained_pairs``), in rounds of documents:
    each document's candidates from its rarest samples, each counted at once against it. The same
    pairs as the numpy path's probes and exact counts."""
    n_docs = first_of_doc.size - 1
    marks = np.zeros(group_size.size, dtype=np.uint8)
    hits = np.zeros(n_docs, dtype=np.int32)
    touched = np.empty(n_docs, dtype=np.int64)
    found: list[np.ndarray] = []
    for d0 in range(0, n_docs, _PROBE_DOCS):
        progress.check()
        d1 = min(n_docs, d0 + _PROBE_DOCS)
        found.append(kernels[1](d0, d1, group, first_of_doc, group_start, group_size, post_docs, int(bucket_cap),
                                need, shared, _EXTRA_PROBES, marks, hits, touched))  # fmt: skip
    progress.check()
    return unique_pairs(np.concatenate(found), n_docs) if found else np.zeros((0, 2), dtype=np.int64)


def need_of(usable: np.ndarray, threshold: float) -> np.ndarray:
    """Shared usable samples a document needs as the contained side (both paths use it): the
    threshold less three binomial standard errors, times its usable samples, at least one."""
    m = np.asarray(usable, dtype=np.int64)
    n = np.maximum(m, 1).astype(np.float64)
    lowered = np.maximum(0.0, threshold - 3.0 * np.sqrt(threshold * (1.0 - threshold) / n))
    return np.maximum(1, np.ceil(lowered * m - 1e-9).astype(np.int64))


@dataclass
class ContainmentMemo:
    """The containment index's outcome over one screen's distinct texts, kept for the next screen.

    Attributes:
        key: ``memo_key`` of the threshold and bucket cap it was found with (the sampling is the
            prepare cache's, which holds the memo).
        digests: Normalized-text digest per indexed document (one document per distinct text).
        samples: Each document's containment samples (sorted unique uint64).
        usable: Each document's usable samples (keys held by at most the bucket cap), int64.
        pairs: The pairs found, (i, j) rows into ``digests`` with i < j, int64.
        ignored: Sampled keys held by more documents than the bucket cap.
        rebuilt: True when the whole index was built, False when it was brought up to date.
    """

    key: str
    digests: list[bytes]
    samples: Sequence[np.ndarray]
    usable: np.ndarray
    pairs: np.ndarray
    ignored: int
    rebuilt: bool = True


def memo_key(threshold: float, bucket_cap: int) -> str:
    """What a memo's pairs depend on besides the samples (which the prepare cache's key covers)."""
    return json.dumps([float(threshold), int(bucket_cap)])


# Past this share of the documents added or gone, the index is built afresh (bringing it up to date
# costs about as much from there).
_UPDATE_MAX_SHARE = 0.2
# Top bits of a sample that index the table ruling most samples out before they are looked for
# (4 million entries: bools for the numpy lookup, 512 KB of bits for the compiled one; the sampling
# class is chosen by the low bits, so the top ones are spread evenly).
_TABLE_BITS = 22
_TABLE_SHIFT = np.uint64(64 - _TABLE_BITS)
# The compiled lookup then finds a value among the set's values with the same top bits.
_RANGE_BITS = 20
_RANGE_SHIFT = np.uint64(64 - _RANGE_BITS)
# Documents whose samples are joined at a time to be looked in (``_lookup``).
_LOOKUP_DOCS = GIVING_WAY_SLICE


def containment_index(
    samples: Sequence[np.ndarray],
    digests: Sequence[bytes],
    threshold: float,
    bucket_cap: int,
    earlier: ContainmentMemo | None = None,
    progress: Progress = NULL_PROGRESS,
) -> ContainmentMemo:
    """``containment_pairs`` over sampled documents (``sample`` 1), kept as a memo for the next
    screen; given the memo of an earlier screen with the same parameters, brought up to date from
    it (the same pairs, ignored count and usable counts as a full build).

    Bringing it up to date: the documents whose text is new are indexed, and so are the documents
    holding a key whose document count crossed ``bucket_cap`` as texts came or went (their usable
    samples, hence what they need, changed); every pair of two other documents is taken over, as
    neither their shared usable samples nor what each needs can have changed.
    """
    digests = list(digests)
    key = memo_key(threshold, bucket_cap)
    if earlier is not None and earlier.key == key:
        memo = _brought_up_to_date(samples, digests, threshold, bucket_cap, earlier, progress)
        if memo is not None:
            return memo
    pairs, ignored, usable = _full_index(samples, threshold, 1, bucket_cap, progress)
    return ContainmentMemo(key, digests, samples, usable, pairs.astype(np.int64, copy=False), ignored)


def _concat(arrays: Sequence[np.ndarray], size: int = GIVING_WAY_SLICE) -> np.ndarray:
    """The arrays joined as uint64, ``size`` arrays per call with ``give_way()`` after each: the
    samples of 100,000 documents (68 MB, fresh pages touched as they are written) in one call
    held the GIL 80-130 ms, a window waiting for it."""
    total = sum(a.size for a in arrays)
    out = np.empty(total, dtype=np.uint64)
    at = 0
    for lo in range(0, len(arrays), size):
        part = arrays[lo : lo + size]
        n = sum(a.size for a in part)
        np.concatenate(part, out=out[at : at + n], casting="unsafe")
        at += n
        give_way()
    return out


def _lookup(samples: Sequence[np.ndarray], key_set: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the values of the sorted ``key_set`` occur among the documents' ``samples``: (the
    document of each occurrence, its value's place in ``key_set``), in document order. The
    samples are joined ``_LOOKUP_DOCS`` documents at a time (~6 MB at 100,000 files) and looked
    for there, not all at once (68 MB, the largest part of a rescan's peak). Compiled when numba
    is there (each part one pass without the GIL)."""
    size = _LOOKUP_DOCS
    total = sum(s.size for s in samples)
    if key_set.size == 0 or total == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    find = _finder(key_set, compiled=total >= _COMPILED_MIN_ENTRIES)
    docs: list[np.ndarray] = []
    places: list[np.ndarray] = []
    for lo in range(0, len(samples), size):
        part = samples[lo : lo + size]
        first = np.zeros(len(part) + 1, dtype=np.int64)
        np.cumsum(np.fromiter((s.size for s in part), dtype=np.int64, count=len(part)), out=first[1:])
        found_docs, found_places = find(_concat(part), first)
        docs.append(found_docs + lo)
        places.append(found_places)
    return np.concatenate(docs), np.concatenate(places)


def _finder(key_set: np.ndarray, compiled: bool) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """``find(keys, first)``: where the values of the sorted ``key_set`` occur among ``keys``
    (document d's are ``keys[first[d]:first[d + 1]]``), as ``_lookup`` gives them."""
    table = np.zeros(1 << _TABLE_BITS, dtype=bool)
    table[(key_set >> _TABLE_SHIFT).astype(np.intp)] = True
    module = kernel_module("methods._sortkernel") if compiled else None
    if module is not None:
        bits = np.packbits(table, bitorder="little").view(np.uint64)
        starts = np.zeros((1 << _RANGE_BITS) + 1, dtype=np.int64)
        np.cumsum(np.bincount((key_set >> _RANGE_SHIFT).astype(np.intp), minlength=1 << _RANGE_BITS), out=starts[1:])
        return lambda keys, first: module.lookup_docs(keys, first, key_set, bits, _TABLE_SHIFT, starts, _RANGE_SHIFT)

    def find(keys: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        maybe = np.flatnonzero(table[(keys >> _TABLE_SHIFT).astype(np.intp)])
        place = np.searchsorted(key_set, keys[maybe])
        place[place >= key_set.size] = 0
        found = key_set[place] == keys[maybe]
        return np.searchsorted(first, maybe[found], side="right") - 1, place[found]

    return find


def _brought_up_to_date(
    samples: Sequence[np.ndarray],
    digests: list[bytes],
    threshold: float,
    cap: int,
    earlier: ContainmentMemo,
    progress: Progress,
) -> ContainmentMemo | None:
    """``containment_index`` from ``earlier``, or None when too much changed for it to pay."""
    n, n_old = len(samples), len(earlier.digests)
    if len(digests) != n or len(earlier.samples) != n_old or earlier.usable.size != n_old:
        return None
    at_old = {d: i for i, d in enumerate(earlier.digests)}
    old_of = np.fromiter((at_old.get(d, -1) for d in digests), dtype=np.int64, count=n)
    del at_old
    was = old_of >= 0
    new_of_old = np.full(n_old, -1, dtype=np.int64)
    new_of_old[old_of[was]] = np.flatnonzero(was)
    added, removed = np.flatnonzero(~was), np.flatnonzero(new_of_old < 0)
    if added.size + removed.size > _UPDATE_MAX_SHARE * max(n, 1):
        return None
    progress.check()

    counts = np.fromiter((s.size for s in samples), dtype=np.int64, count=n)
    progress.check()

    # Keys whose document count changed: those of the texts that came or went. Their counts now
    # (one pass over every sample), and before (now, less the new texts', plus the gone ones').
    came = _concat([samples[i] for i in added])
    went = _concat([earlier.samples[i] for i in removed])
    changed = np.unique(np.concatenate([came, went]))
    hit_docs, hit_keys = _lookup(samples, changed)
    df_now = np.bincount(hit_keys, minlength=changed.size)
    df_before = (
        df_now
        - np.bincount(np.searchsorted(changed, came), minlength=changed.size)
        + np.bincount(np.searchsorted(changed, went), minlength=changed.size)
    )
    ignored = earlier.ignored - int(np.count_nonzero(df_before > cap)) + int(np.count_nonzero(df_now > cap))
    flipped = (df_before > cap) != (df_now > cap)
    dirty = ~was
    dirty[hit_docs[flipped[hit_keys]]] = True
    redo = np.flatnonzero(dirty)
    progress.check()

    usable = np.zeros(n, dtype=np.int64)
    usable[was] = earlier.usable[old_of[was]]
    found: list[np.ndarray] = []
    if redo.size:
        if redo.size > added.size:  # documents touched by a flipped key: their keys' counts too
            changed = np.unique(_concat([samples[i] for i in redo]))
            hit_docs, hit_keys = _lookup(samples, changed)
            df_now = np.bincount(hit_keys, minlength=changed.size)
        ok_key = df_now <= cap
        # The redone documents' postings: (key place, document), keys ascending.
        post_key = np.searchsorted(changed, _concat([samples[i] for i in redo]))
        post_doc = np.repeat(redo, counts[redo])
        usable[redo] = np.bincount(post_doc[ok_key[post_key]], minlength=n)[redo]
        order = np.argsort(post_key, kind="stable")
        post_doc = post_doc[order]
        starts = np.searchsorted(post_key[order], np.arange(changed.size))
        lengths = np.bincount(post_key, minlength=changed.size)
        del post_key, order
        # Every sample of every document on a usable key of theirs meets the redone documents
        # holding that key; a pair of two redone documents is counted from its lower side only.
        use = ok_key[hit_keys]
        entry_doc, entry_key = hit_docs[use], hit_keys[use]
        length = lengths[entry_key]
        total = int(length.sum())
        at = np.repeat(starts[entry_key] - (np.cumsum(length) - length), length) + np.arange(total, dtype=np.int64)
        left, right = np.repeat(entry_doc, length), post_doc[at]
        keep = (left != right) & (~dirty[left] | (left < right))
        left, right = left[keep], right[keep]
        progress.check()
        code, shared = np.unique(np.minimum(left, right) * np.int64(n) + np.maximum(left, right), return_counts=True)
        a, b = code // n, code % n
        need = need_of(usable, threshold)
        ok = (shared >= need[a]) | (shared >= need[b])
        found.append(np.stack([a[ok], b[ok]], axis=1))
    # Pairs of two documents neither new nor touched: as the earlier screen found them.
    pa, pb = new_of_old[earlier.pairs[:, 0]], new_of_old[earlier.pairs[:, 1]]
    stays = (pa >= 0) & (pb >= 0)
    pa, pb = pa[stays], pb[stays]
    stays = ~dirty[pa] & ~dirty[pb]
    found.append(np.stack([np.minimum(pa[stays], pb[stays]), np.maximum(pa[stays], pb[stays])], axis=1))
    pairs = unique_pairs(np.concatenate(found).astype(np.int64, copy=False), n)
    return ContainmentMemo(earlier.key, digests, samples, usable, pairs, ignored, rebuilt=False)
