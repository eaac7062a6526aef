"""Worker-side stages of the distributed screen: pure functions over one batch of documents.

Each function takes plain data (a partition, a pandas frame from a shuffle, numpy arrays) and
returns plain data; the engine (``distributed.engine``) wires them into a Dask graph. They call the
in-process engine's own functions (``core.normalize``, ``core.shingles``, ``core.methods``,
``core.pipeline.verify_pairs``, ``core.flags``), so both engines compute the same values.

Corpus-wide choices are made the same way as in-process, from data the engine gathers or shuffles:

- exact groups and "distinct shingle sets" come from per-document digests the client groups;
- LSH buckets are rows ``(band, key, pos)`` shuffled on ``key``; each bucket is paired by
  ``minhash_lsh.pairs_from_keys`` with its members in manifest order, so a capped bucket is a star
  around the same first member;
- containment samples are rows ``(hash, pos, samples of pos)`` shuffled on ``hash``; a hash held by
  more than ``bucket_cap`` documents is dropped, the others give one row per pair, and the rows are
  shuffled again on the pair to add up the shared samples;
- the template index counts, for each shingle, the distinct shingle sets holding it, in two passes
  (a bucket histogram, then exact counts of the hashes in heavy buckets), summed over partitions.

No dask import here.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from neardup_gui.core import flags as flagmod
from neardup_gui.core import shingles as sh
from neardup_gui.core.methods import exact
from neardup_gui.core.methods.containment import sampled
from neardup_gui.core.methods.minhash_lsh import band_keys, pairs_from_keys, signatures
from neardup_gui.core.normalize import normalize_batch, to_text
from neardup_gui.core.pipeline import Prepared, Proposals, verify_and_flag_pairs
from neardup_gui.core.records import (
    METHOD_CONTAINMENT,
    METHOD_EXACT,
    METHOD_MINHASH,
    STATUS_OK,
    Candidate,
    Document,
    NormalizeOptions,
    ScreenParams,
)
from neardup_gui.distributed import sources
from neardup_gui.io.extract import ExtractOptions

__all__ = [
    "PartPrep",
    "PartSummary",
    "VerifyChunk",
    "BAND_META",
    "SAMPLE_META",
    "SHARED_META",
    "prepare_partition",
    "summarize",
    "bucket_counts",
    "add_arrays",
    "heavy_buckets",
    "template_counts",
    "merge_counts",
    "template_index",
    "band_frame",
    "sample_frame",
    "lsh_partition_pairs",
    "containment_partition",
    "containment_accept",
    "verify_chunk",
    "integrity_changes",
]

DIGEST_SIZE = 16
# Memory of a manifest row (a Document with its strings) and of a numpy array header, in bytes.
_DOCUMENT_BYTES = 700
_ARRAY_OVERHEAD = 112
# Bits of a shingle hash that pick its bucket in the first template pass (as core.flags.template).
BUCKET_BITS = 20
_BATCH = 256

# Shuffled rows are kept narrow (positions and counts as int32: up to 2**31 documents); the
# bench measures their volume.
BAND_META = pd.DataFrame(
    {"key": np.zeros(0, np.uint64), "band": np.zeros(0, np.int16), "pos": np.zeros(0, np.int32)}
)
SAMPLE_META = pd.DataFrame(
    {"h": np.zeros(0, np.uint64), "pos": np.zeros(0, np.int32), "cnt": np.zeros(0, np.int32)}
)
SHARED_META = pd.DataFrame(
    {
        "lo": np.zeros(0, np.int32),
        "hi": np.zeros(0, np.int32),
        "shared": np.zeros(0, np.int32),
        "cnt_lo": np.zeros(0, np.int32),
        "cnt_hi": np.zeros(0, np.int32),
    }
)
METHOD_ORDER = (METHOD_EXACT, METHOD_MINHASH, METHOD_CONTAINMENT)


@dataclass
class PartPrep:
    """One partition after reading, normalizing, shingling and signing (kept on its worker).

    Attributes:
        documents: Manifest rows of the partition, in manifest order (statuses as read).
        doc_pos: Position of each of those rows.
        pos: Positions of the documents that have shingles (ascending).
        hashes: Sorted unique uint64 shingle hashes of those documents.
        ndigest: Digest of each one's normalized text (``S16``): equal digests = exact group.
        adigest: Digest of each one's shingle array (``S16``): equal = same shingle set.
        sigs: MinHash signatures, shape (len(pos), num_perm), uint32.
        no_shingles: Positions of readable documents whose normalized text is shorter than k.
        normalized_written: Number of ``normalized/<doc_id>.txt`` files written.
    """

    documents: list[Document]
    doc_pos: np.ndarray
    pos: np.ndarray
    hashes: list[np.ndarray]
    ndigest: np.ndarray
    adigest: np.ndarray
    sigs: np.ndarray
    no_shingles: np.ndarray
    normalized_written: int = 0

    def __sizeof__(self) -> int:
        # Dask measures results with sys.getsizeof to decide what to spill to disk; without this
        # it would see a few dozen bytes and never spill the shingle arrays.
        arrays = (self.doc_pos, self.pos, self.ndigest, self.adigest, self.sigs, self.no_shingles)
        return (
            sum(a.nbytes for a in arrays)
            + sum(h.nbytes + _ARRAY_OVERHEAD for h in self.hashes)
            + _DOCUMENT_BYTES * len(self.documents)
        )


@dataclass(frozen=True)
class PartSummary:
    """What the client gathers from a partition: no texts, no shingles."""

    documents: list[Document]
    doc_pos: np.ndarray
    pos: np.ndarray
    ndigest: np.ndarray
    adigest: np.ndarray
    no_shingles: np.ndarray
    normalized_written: int
    shingles: int

    def __sizeof__(self) -> int:
        arrays = (self.doc_pos, self.pos, self.ndigest, self.adigest, self.no_shingles)
        return sum(a.nbytes for a in arrays) + _DOCUMENT_BYTES * len(self.documents)


def _backend() -> str:
    """The compiled signature kernel when numba is there: a worker process lives long enough to
    repay loading it (~0.4 s once), while its partitions are too small for ``auto`` to choose it.
    Both give the same signatures."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return "numpy"
    return "compiled"


def _write_normalized(folder: Path, doc_id: str, cps: np.ndarray) -> None:
    # Same bytes as io.outputs.write_normalized. Temp name + replace: a task run again after a
    # worker died rewrites the file whole.
    target = folder / f"{doc_id}.txt"
    tmp = folder / f".{doc_id}.{os.getpid()}.tmp"
    tmp.write_bytes(to_text(cps).encode("utf-8"))
    os.replace(tmp, target)


def prepare_partition(
    part: sources.FilePartition | sources.ParquetPartition,
    params: ScreenParams,
    normalized_dir: str | None = None,
) -> PartPrep:
    """Read, decode, normalize, shingle and sign one partition (and write its normalized texts).

    Args:
        part: The partition to read.
        params: k, normalization, num_perm and seed are used.
        normalized_dir: Staging folder for ``<doc_id>.txt`` normalized texts, or None.

    Returns:
        The partition's ``PartPrep``.
    """
    rows = sources.read_partition(part)
    documents = [doc for _, doc, _ in rows]
    doc_pos = np.fromiter((p for p, _, _ in rows), dtype=np.int64, count=len(rows))
    readable = [(p, doc, text) for p, doc, text in rows if doc.status == STATUS_OK and text is not None]
    folder = Path(normalized_dir) if normalized_dir else None
    pos: list[int] = []
    hashes: list[np.ndarray] = []
    ndig: list[bytes] = []
    adig: list[bytes] = []
    no_sh: list[int] = []
    written = 0
    for lo in range(0, len(readable), _BATCH):
        batch = readable[lo : lo + _BATCH]
        cps_list = normalize_batch([t for _, _, t in batch], params.normalize)
        digests = exact.digests_of(cps_list)
        for (p, doc, _), cps, h, digest in zip(batch, cps_list, sh.shingle_sets(cps_list, params.k), digests):
            if folder is not None:
                _write_normalized(folder, doc.doc_id, cps)
                written += 1
            if h.size == 0:
                no_sh.append(p)
                continue
            pos.append(p)
            hashes.append(h)
            ndig.append(digest)
            adig.append(hashlib.blake2b(h.tobytes(), digest_size=DIGEST_SIZE).digest())
    sigs = signatures([sh.minhash_values(h) for h in hashes], params.num_perm, params.seed, backend=_backend())
    return PartPrep(
        documents,
        doc_pos,
        np.asarray(pos, dtype=np.int64),
        hashes,
        np.asarray(ndig, dtype=f"S{DIGEST_SIZE}"),
        np.asarray(adig, dtype=f"S{DIGEST_SIZE}"),
        sigs,
        np.asarray(no_sh, dtype=np.int64),
        written,
    )


def summarize(prep: PartPrep) -> PartSummary:
    """The small part of a ``PartPrep`` the client needs."""
    return PartSummary(
        prep.documents,
        prep.doc_pos,
        prep.pos,
        prep.ndigest,
        prep.adigest,
        prep.no_shingles,
        prep.normalized_written,
        int(sum(h.size for h in prep.hashes)),
    )


# ---------------------------------------------------------------------------
# Template index (corpus boilerplate), counted over partitions


def _shift() -> np.uint64:
    return np.uint64(64 - BUCKET_BITS)


def bucket_counts(prep: PartPrep, first: np.ndarray) -> np.ndarray:
    """Pass 1: per bucket, how many (distinct) shingle sets hold a hash in it (an upper bound)."""
    chosen = [h for h, keep in zip(prep.hashes, first) if keep]
    out = np.zeros(1 << BUCKET_BITS, dtype=np.int64)
    if chosen:
        out += np.bincount((np.concatenate(chosen) >> _shift()).view(np.int64), minlength=out.size)
    return out


def add_arrays(*arrays: np.ndarray) -> np.ndarray:
    """Element-wise sum (the reduction of pass 1)."""
    out = arrays[0].copy()
    for a in arrays[1:]:
        out += a
    return out


def heavy_buckets(counts: np.ndarray, min_count: int) -> np.ndarray:
    """Buckets whose upper bound reaches ``min_count`` (only their hashes are counted exactly)."""
    return counts >= min_count


def _run_lengths(values: np.ndarray, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    if values.size == 0:
        return values.astype(np.uint64), np.zeros(0, dtype=np.int64)
    order = np.argsort(values, kind="stable")
    v = values[order]
    starts = np.flatnonzero(np.concatenate(([True], v[1:] != v[:-1])))
    if weights is None:
        counts = np.diff(np.concatenate((starts, [v.size])))
    else:
        counts = np.add.reduceat(weights[order], starts)
    return v[starts], counts.astype(np.int64)


def template_counts(prep: PartPrep, first: np.ndarray, heavy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pass 2: exact document counts of the hashes in heavy buckets, for this partition."""
    chosen = [h for h, keep in zip(prep.hashes, first) if keep]
    if not chosen:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    cat = np.concatenate(chosen)
    picked = cat[heavy[(cat >> _shift()).view(np.int64)]]
    return _run_lengths(picked)


def merge_counts(*parts: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Sum ``(values, counts)`` pairs from several partitions."""
    values = np.concatenate([p[0] for p in parts])
    counts = np.concatenate([p[1] for p in parts])
    return _run_lengths(values, counts)


def template_index(
    merged: tuple[np.ndarray, np.ndarray], min_count: int, documents: int, k: int, options: NormalizeOptions
) -> flagmod.TemplateIndex:
    """The corpus ``TemplateIndex``: hashes held by at least ``min_count`` distinct shingle sets."""
    values, counts = merged
    keep = counts >= min_count
    return flagmod.TemplateIndex(values[keep], counts[keep].astype(np.int64), min_count, documents, k, options)


def empty_template_index(min_count: int, documents: int, k: int, options: NormalizeOptions) -> flagmod.TemplateIndex:
    """The index ``TemplateIndex.build`` returns when there are fewer documents than ``min_count``."""
    return flagmod.TemplateIndex(np.zeros(0, np.uint64), np.zeros(0, np.int64), min_count, documents, k, options)


def template_min_count(documents: int) -> int:
    """``TemplateIndex.build``'s document count for boilerplate, with its default arguments."""
    import inspect

    sig = inspect.signature(flagmod.TemplateIndex.build)
    min_docs = sig.parameters["min_docs"].default
    min_share = sig.parameters["min_share"].default
    return max(int(min_docs), math.ceil(min_share * documents), 2)


# ---------------------------------------------------------------------------
# Candidates: rows to shuffle, and what each shuffled partition gives


def band_frame(prep: PartPrep, rep: np.ndarray, bands: int, rows: int) -> pd.DataFrame:
    """One row ``(key, band, pos)`` per band of every representative document of the partition."""
    idx = np.flatnonzero(rep)
    if idx.size == 0:
        return BAND_META.copy()
    keys = band_keys(prep.sigs[idx], bands, rows)  # (docs, bands)
    return pd.DataFrame(
        {
            "key": keys.reshape(-1),
            "band": np.tile(np.arange(bands, dtype=np.int16), idx.size),
            "pos": np.repeat(prep.pos[idx], bands).astype(np.int32),
        }
    )


def rep_signatures(prep: PartPrep, rep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions (ascending) and MinHash signatures of the partition's representatives: kept on
    the worker once the shingles are freed, for the thinning of large clusters."""
    idx = np.flatnonzero(rep)
    return prep.pos[idx].astype(np.int64), prep.sigs[idx].copy()


def signature_rows(part: tuple[np.ndarray, np.ndarray], wanted: np.ndarray) -> np.ndarray:
    """The rows of ``rep_signatures``' output for the positions ``wanted`` (all held there)."""
    pos, sigs = part
    return sigs[np.searchsorted(pos, wanted)]


def sample_frame(prep: PartPrep, rep: np.ndarray, sample: int) -> pd.DataFrame:
    """One row ``(hash, pos, samples of pos)`` per sampled shingle of every representative."""
    idx = np.flatnonzero(rep)
    samples = [sampled(prep.hashes[i], sample) for i in idx.tolist()]
    counts = np.fromiter((s.size for s in samples), dtype=np.int64, count=len(samples))
    if counts.sum() == 0:
        return SAMPLE_META.copy()
    return pd.DataFrame(
        {
            "h": np.concatenate(samples),
            "pos": np.repeat(prep.pos[idx], counts).astype(np.int32),
            "cnt": np.repeat(counts, counts).astype(np.int32),
        }
    )


def lsh_partition_pairs(frame: pd.DataFrame, bucket_cap: int) -> tuple[np.ndarray, int]:
    """Pairs sharing a band key, for the buckets this shuffled partition holds.

    Returns:
        (pairs of positions, shape (n, 2), lo < hi, not deduplicated; buckets that hit the cap).
    """
    if frame.empty:
        return np.zeros((0, 2), dtype=np.int64), 0
    band = frame["band"].to_numpy()
    pos = frame["pos"].to_numpy(dtype=np.int64)
    key = frame["key"].to_numpy(dtype=np.uint64)
    order = np.lexsort((pos, band))  # by band, then manifest order (the in-process member order)
    band, pos, key = band[order], pos[order], key[order]
    starts = np.flatnonzero(np.concatenate(([True], band[1:] != band[:-1])))
    ends = np.append(starts[1:], band.size)
    out: list[np.ndarray] = []
    capped = 0
    for s, e in zip(starts.tolist(), ends.tolist()):
        pairs, c = pairs_from_keys(key[s:e], pos[s:e], bucket_cap)
        capped += c
        if pairs.size:
            out.append(pairs)
    if not out:
        return np.zeros((0, 2), dtype=np.int64), capped
    return np.concatenate(out), capped


def containment_partition(frame: pd.DataFrame, bucket_cap: int) -> tuple[pd.DataFrame, int]:
    """Shared sampled shingles per pair, for the hashes this shuffled partition holds.

    A hash held by more than ``bucket_cap`` documents is boilerplate: counted, not paired.

    Returns:
        (frame ``lo, hi, shared, cnt_lo, cnt_hi`` with partial ``shared`` counts; ignored hashes).
    """
    if frame.empty:
        return SHARED_META.copy(), 0
    h = frame["h"].to_numpy(dtype=np.uint64)
    pos = frame["pos"].to_numpy(dtype=np.int64)
    cnt = frame["cnt"].to_numpy(dtype=np.int64)
    order = np.lexsort((pos, h))
    h, pos, cnt = h[order], pos[order], cnt[order]
    new = np.concatenate(([True], h[1:] != h[:-1]))
    gid = np.cumsum(new) - 1
    sizes = np.bincount(gid)
    common = sizes[gid] > bucket_cap
    ignored = int((sizes > bucket_cap).sum())
    pairs, _ = pairs_from_keys(h[~common], pos[~common], bucket_cap)
    if pairs.size == 0:
        return SHARED_META.copy(), ignored
    known, first = np.unique(pos, return_index=True)
    samples_of = cnt[first]
    span = np.int64(known[-1] + 1)
    codes, shared = _run_lengths(pairs[:, 0] * span + pairs[:, 1])
    lo, hi = codes // span, codes % span
    return (
        pd.DataFrame(
            {
                "lo": lo.astype(np.int32),
                "hi": hi.astype(np.int32),
                "shared": shared.astype(np.int32),
                "cnt_lo": samples_of[np.searchsorted(known, lo)].astype(np.int32),
                "cnt_hi": samples_of[np.searchsorted(known, hi)].astype(np.int32),
            }
        ),
        ignored,
    )


def containment_accept(frame: pd.DataFrame, threshold: float) -> np.ndarray:
    """Pairs whose sampled containment is plausibly at least ``threshold`` (the in-process rule:
    within three binomial standard errors), after adding up the partial counts of each pair."""
    if frame.empty:
        return np.zeros((0, 2), dtype=np.int64)
    lo = frame["lo"].to_numpy(dtype=np.int64)
    hi = frame["hi"].to_numpy(dtype=np.int64)
    order = np.lexsort((hi, lo))
    lo, hi = lo[order], hi[order]
    shared_in = frame["shared"].to_numpy(dtype=np.int64)[order]
    cnt_lo = frame["cnt_lo"].to_numpy(dtype=np.int64)[order]
    cnt_hi = frame["cnt_hi"].to_numpy(dtype=np.int64)[order]
    starts = np.flatnonzero(np.concatenate(([True], (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1]))))
    shared = np.add.reduceat(shared_in, starts)
    smaller = np.minimum(cnt_lo[starts], cnt_hi[starts]).astype(np.float64)
    # Same arithmetic as core.methods.containment.containment_pairs, so the same pairs pass.
    est = shared / smaller
    slack = 3.0 * np.sqrt(threshold * (1.0 - threshold) / smaller)
    ok = est >= (threshold - slack)
    return np.stack([lo[starts][ok], hi[starts][ok]], axis=1)


# ---------------------------------------------------------------------------
# Verification and flags, per chunk of candidate pairs


@dataclass(frozen=True)
class VerifyChunk:
    """A chunk of proposed pairs and what verifying them needs (no texts).

    Attributes:
        pairs: Positions, shape (n, 2), lo < hi, sorted.
        methods: Per pair, the methods that proposed it (in ``METHOD_ORDER``).
        documents: pos -> manifest row, for every document of the chunk.
        group: pos -> position of its exact group's representative.
        files: File items to re-read (folder and file-list sources); empty for Parquet.
        max_bytes, extract: How the files were read.
    """

    pairs: np.ndarray
    methods: tuple[tuple[str, ...], ...]
    documents: Mapping[int, Document]
    group: Mapping[int, int]
    files: tuple[sources.FileItem, ...] = ()
    max_bytes: int = 0
    extract: ExtractOptions | None = None


def verify_chunk(
    chunk: VerifyChunk,
    texts_frame: pd.DataFrame | None,
    params: ScreenParams,
    template: flagmod.TemplateIndex,
) -> tuple[list[Candidate], int]:
    """Verify and flag one chunk of pairs, reading only the chunk's documents.

    The chunk's documents are re-read (files) or taken from ``texts_frame`` (Parquet), shingled
    and signed again, and handed to ``core.pipeline.verify_pairs`` as a small ``Prepared`` whose
    order is manifest order; flags use the corpus-wide ``template`` index.

    Returns:
        (kept candidates in pair order, number of pairs rejected by the exact scores).
    """
    positions = sorted(chunk.documents)
    if chunk.files:
        texts_by_pos = sources.read_file_texts(chunk.files, dict(chunk.documents), chunk.max_bytes, chunk.extract)
    else:
        assert texts_frame is not None
        texts_by_pos = dict(zip(texts_frame["pos"].astype(np.int64).tolist(), texts_frame["text"].tolist()))
    local = {p: n for n, p in enumerate(positions)}
    doc_ids = [chunk.documents[p].doc_id for p in positions]
    texts = {chunk.documents[p].doc_id: texts_by_pos[p] for p in positions}
    cps_list = normalize_batch([texts[d] for d in doc_ids], params.normalize)
    hashes = sh.shingle_sets(cps_list, params.k)
    if any(h.size == 0 for h in hashes):
        raise RuntimeError("a document of a proposed pair has no shingles on re-reading")
    prepared = Prepared(
        list(doc_ids),
        hashes,
        exact.digests_of(cps_list),
        [],
        [int(c.size) for c in cps_list],
    )
    sigs = signatures([sh.minhash_values(h) for h in hashes], params.num_perm, params.seed, backend=_backend())
    by_method: dict[str, set[tuple[int, int]]] = {METHOD_EXACT: set(), METHOD_MINHASH: set()}
    if params.containment_threshold > 0:
        by_method[METHOD_CONTAINMENT] = set()
    for (a, b), methods in zip(chunk.pairs.tolist(), chunk.methods):
        pair = (local[a], local[b])
        for m in methods:
            by_method[m].add(pair)
    proposals = Proposals(
        by_method,
        [chunk.group[p] for p in positions],
        sigs,
        list(range(len(positions))),
    )
    by_id = {chunk.documents[p].doc_id: chunk.documents[p] for p in positions}
    out, rejected = verify_and_flag_pairs(prepared, proposals, by_id, texts, params, template)
    return out, rejected


def integrity_changes(root: str, summary: PartSummary) -> list[tuple[str, str]]:
    """``io.corpus.check_integrity`` for one partition's rows (run on a worker, near the files)."""
    from neardup_gui.io.corpus import check_integrity

    return check_integrity(root, summary.documents)
