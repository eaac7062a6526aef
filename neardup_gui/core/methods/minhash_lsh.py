"""MinHash signatures and banded LSH, in numpy, compatible with datasketch.

Signatures use datasketch's ``affine32`` scheme (its default since 2.0): each 32-bit shingle value is
pre-mixed with the MurmurHash3 32-bit finalizer, then permutation ``p`` maps it to
``a[p] * v + b[p]`` modulo 2**32, and the signature keeps the minimum per permutation. The
permutation parameters are datasketch's own (``MinHash(num_perm, seed).permutations``), so a row here
equals ``datasketch.MinHash(num_perm, seed, hashfunc=identity)`` fed the same values.

Banding sorts band keys instead of filling hash tables (about 50x faster than ``MinHashLSH`` insert
and query, and 8 bytes a band per document). Buckets larger than ``bucket_cap`` are paired as a star
around their first member so boilerplate cannot create a quadratic number of pairs.

Imports numpy only (datasketch is the reference in the tests, not a run-time import).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from neardup_gui.core.compiled import kernel_module
from neardup_gui.core.methods.sorting import sort_in_place
from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.records import ScreenParams

__all__ = [
    "permutations",
    "optimal_bands_rows",
    "banding",
    "signatures",
    "band_keys",
    "pairs_from_keys",
    "lsh_pairs",
    "collision_probability",
]

_C1 = np.uint32(0x85EBCA6B)
_C2 = np.uint32(0xC2B2AE35)
_S16 = np.uint32(16)
_S13 = np.uint32(13)

# Work on at most this many shingle values per (permutations x values) block: 128 x 65,536 x 4 bytes
# is a 32 MB temporary.
_BLOCK_VALUES = 1 << 16


def _fmix32(v: np.ndarray) -> np.ndarray:
    v = v ^ (v >> _S16)
    v = v * _C1
    v = v ^ (v >> _S13)
    v = v * _C2
    return v ^ (v >> _S16)


@lru_cache(maxsize=16)
def permutations(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """datasketch's affine32 permutation parameters ``(a, b)`` for ``num_perm`` and ``seed``.

    Generated exactly as ``datasketch.MinHash(num_perm, seed).permutations`` (2.x, scheme
    ``affine32``) without importing datasketch, whose import pulls in scipy (~0.7 s). A test checks
    both agree.
    """
    gen = np.random.RandomState(seed)
    a = gen.randint(0, 1 << 31, num_perm, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = gen.randint(0, 1 << 32, num_perm, dtype=np.uint32)
    a.setflags(write=False)
    b.setflags(write=False)
    return a, b


def banding(params: ScreenParams) -> tuple[int, int]:
    """The (bands, rows) a screen uses: explicit ones, or datasketch's optimum for the threshold."""
    if params.bands is not None and params.rows is not None:
        return params.bands, params.rows
    return optimal_bands_rows(params.threshold, params.num_perm)


@lru_cache(maxsize=64)
def optimal_bands_rows(threshold: float, num_perm: int) -> tuple[int, int]:
    """The (bands, rows) minimising false positives + false negatives around a Jaccard threshold.

    Same criterion as datasketch's ``MinHashLSH(threshold, num_perm)`` (equal weights): the areas
    under the S-curve below the threshold and above it. The S-curve is a polynomial of degree
    ``bands * rows <= num_perm``, so Gauss-Legendre quadrature with enough nodes integrates it exactly.
    """
    nodes, weights = np.polynomial.legendre.leggauss(num_perm // 2 + 2)

    def integrate(lo: float, hi: float, b: int, r: int, below: bool) -> float:
        s = (hi - lo) / 2 * nodes + (hi + lo) / 2
        p = 1.0 - (1.0 - s**r) ** b
        f = p if below else 1.0 - p
        return float((hi - lo) / 2 * np.dot(weights, f))

    best = (0, 0)
    best_error = float("inf")
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            error = integrate(0.0, threshold, b, r, True) + integrate(threshold, 1.0, b, r, False)
            if error < best_error:
                best_error = error
                best = (b, r)
    return best


def collision_probability(jaccard: float, bands: int, rows: int) -> float:
    """Probability that a pair with this Jaccard shares at least one band (the LSH S-curve)."""
    return 1.0 - (1.0 - jaccard**rows) ** bands


# Above this many shingle values in total the compiled kernel (if numba is installed) pays for its
# start-up; below it the numpy path is faster.
_COMPILED_MIN_VALUES = 2_000_000
_THREADS = 2


# From this many documents band keys are computed by the compiled kernel (numba is loaded for the
# signatures by then): 100,000 documents x 25 bands 0.14-0.3 s in numpy, ~0.02 s compiled.
_COMPILED_MIN_DOCS = 20_000


def _compiled_kernel():
    module = kernel_module("methods._sigkernel")
    return None if module is None else module.signature_rows


def _band_kernel():
    module = kernel_module("methods._sigkernel")
    return None if module is None else module.band_keys_into


# Below _COMPILED_MIN_DOCS the band keys are compiled too when that kernel's machine code is loaded
# already (the window's warm-up, an earlier large screen: a first call costs ~0.4 s): 10,000
# documents x 25 bands 22 ms in numpy, 2 ms compiled (a rescan's share of a second).
def _warm_band_kernel(sigs: np.ndarray):
    module = sys.modules.get("neardup_gui.core.methods._sigkernel")
    if module is None or not sigs.flags.c_contiguous:
        return None
    kernel = module.band_keys_into
    return kernel if kernel.signatures else None  # numba's dispatcher: the types it has loaded


def _as_values(block: np.ndarray) -> np.ndarray:
    """32-bit MinHash input values: as given, or the high half of 64-bit shingle hashes."""
    if block.dtype == np.uint64:
        return (block >> np.uint64(32)).astype(np.uint32)
    return block


def _signatures_numpy(value_arrays: Sequence[np.ndarray], a: np.ndarray, b: np.ndarray, out: np.ndarray, progress: Progress) -> None:
    a_col = a[:, None]
    b_col = b[:, None]
    n_docs = len(value_arrays)
    i = 0
    while i < n_docs:
        # Gather a block of documents whose values fit in one temporary.
        j = i
        total = 0
        while j < n_docs and (j == i or total + value_arrays[j].size <= _BLOCK_VALUES):
            total += value_arrays[j].size
            j += 1
        block = value_arrays[i:j]
        lengths = np.fromiter((v.size for v in block), dtype=np.int64, count=len(block))
        values = _fmix32(_as_values(np.concatenate(block)))
        starts = np.cumsum(lengths) - lengths
        with np.errstate(over="ignore"):
            permuted = a_col * values[None, :]
            permuted += b_col
        out[i:j] = np.minimum.reduceat(permuted, starts, axis=1).T
        i = j
        progress.check()


def _signatures_compiled(kernel, value_arrays: Sequence[np.ndarray], a: np.ndarray, b: np.ndarray, out: np.ndarray, progress: Progress) -> None:
    step = 512
    for i in range(0, len(value_arrays), step):
        block = value_arrays[i : i + step]
        lengths = np.fromiter((v.size for v in block), dtype=np.int64, count=len(block))
        starts = np.zeros(len(block) + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        kernel(_as_values(np.concatenate(block)), starts, a, b, out[i : i + len(block)])
        progress.check()


def signatures(
    value_arrays: Sequence[np.ndarray],
    num_perm: int,
    seed: int,
    progress: Progress = NULL_PROGRESS,
    backend: str = "auto",
    threads: int = _THREADS,
) -> np.ndarray:
    """MinHash signatures of many documents.

    Uses two threads; for large inputs a compiled kernel when numba is installed (same results).

    Args:
        value_arrays: Per document, its 32-bit shingle values (``shingles.minhash_values``), or its
            64-bit shingle hashes (converted block by block, so no full 32-bit copy is ever held);
            each must be non-empty.
        num_perm: Number of permutations.
        seed: datasketch seed.
        progress: Reports stage ``shingle``; ``check()`` is honoured between blocks.
        backend: ``auto`` (compiled for large inputs when numba is installed), ``numpy`` or
            ``compiled`` (raises ImportError without numba).
        threads: Threads to use (1: all in the calling thread, e.g. when it is a worker already).

    Returns:
        uint32 array of shape (documents, num_perm).
    """
    from concurrent.futures import ThreadPoolExecutor

    a, b = permutations(num_perm, seed)
    n_docs = len(value_arrays)
    if any(v.size == 0 for v in value_arrays):
        raise ValueError("every document needs at least one shingle to be signed")
    out = np.empty((n_docs, num_perm), dtype=np.uint32)
    if n_docs == 0:
        return out
    total_values = sum(v.size for v in value_arrays)
    if backend == "compiled":
        kernel = _compiled_kernel()
        if kernel is None:
            raise ImportError("the compiled MinHash kernel needs numba")
    elif backend == "numpy":
        kernel = None
    else:
        kernel = _compiled_kernel() if total_values >= _COMPILED_MIN_VALUES else None
    # Split the documents into chunks of about equal work, handed to two threads.
    n_chunks = max(1, min(64, total_values // 200_000))
    bounds = np.searchsorted(np.cumsum([v.size for v in value_arrays]), np.linspace(0, total_values, n_chunks + 1)[1:-1])
    edges = [0, *sorted(set(int(x) + 1 for x in bounds)), n_docs]
    edges = sorted(set(min(e, n_docs) for e in edges))
    chunks = list(zip(edges[:-1], edges[1:]))
    done = 0

    def run(chunk: tuple[int, int]) -> int:
        lo, hi = chunk
        if kernel is not None:
            _signatures_compiled(kernel, value_arrays[lo:hi], a, b, out[lo:hi], progress)
        else:
            _signatures_numpy(value_arrays[lo:hi], a, b, out[lo:hi], progress)
        return hi - lo

    if len(chunks) == 1 or threads <= 1:
        for chunk in chunks:
            run(chunk)
    else:
        with ThreadPoolExecutor(_THREADS) as pool:
            for finished in pool.map(run, chunks):
                done += finished
                progress.report("shingle", done, n_docs)
    progress.report("shingle", n_docs, n_docs)
    return out


def band_keys(sigs: np.ndarray, bands: int, rows: int, subset: np.ndarray | None = None) -> np.ndarray:
    """One 64-bit key per (document, band): shape (documents, bands).

    ``subset``: use only these rows of ``sigs`` (in this order), without copying all of them.
    """
    n = sigs.shape[0] if subset is None else int(subset.size)
    keys = np.empty((n, bands), dtype=np.uint64)
    kernel = None
    if bands * rows <= sigs.shape[1]:
        kernel = _band_kernel() if n >= _COMPILED_MIN_DOCS else _warm_band_kernel(sigs)
    if kernel is not None:
        rows_of = np.arange(n, dtype=np.int64) if subset is None else np.asarray(subset, dtype=np.int64)
        kernel(sigs, rows, rows_of, keys)
        return keys
    mult = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        for band in range(bands):
            # One band's columns widened at a time (not a uint64 copy of every signature).
            cols = sigs[:, band * rows : (band + 1) * rows]
            s = (cols if subset is None else cols[subset]).astype(np.uint64)
            h = np.full(n, np.uint64(band + 1) * mult, dtype=np.uint64)
            for r in range(rows):
                h ^= s[:, r]
                h *= np.uint64(0xFF51AFD7ED558CCD)
                h ^= h >> np.uint64(29)
            keys[:, band] = h
    return keys


def pairs_from_keys(keys: np.ndarray, members: np.ndarray, bucket_cap: int) -> tuple[np.ndarray, int]:
    """All pairs of members sharing a key.

    Args:
        keys: uint64 key per entry.
        members: int64 document index per entry (same length).
        bucket_cap: Buckets with more members than this contribute a star (first member with each
            other member) instead of every pair.

    Returns:
        (pairs as int64 array of shape (n, 2) with pairs[:, 0] < pairs[:, 1], not deduplicated;
        number of buckets that hit the cap).
    """
    if keys.size < 2:
        return np.zeros((0, 2), dtype=np.int64), 0
    if keys.dtype == np.uint64:
        k = keys.copy()
        order = sort_in_place(k)  # compiled for large inputs: the same stable order, ~3x faster
    else:
        order = np.argsort(keys, kind="stable")
        k = keys[order]
    m = members[order]
    new_group = np.empty(k.size, dtype=bool)
    new_group[0] = True
    np.not_equal(k[1:], k[:-1], out=new_group[1:])
    group_id = np.cumsum(new_group) - 1
    starts = np.flatnonzero(new_group)
    sizes = np.diff(np.append(starts, k.size))
    size_of = sizes[group_id]
    out: list[np.ndarray] = []
    capped = 0
    big = sizes > bucket_cap
    if big.any():
        capped = int(big.sum())
        for g in np.flatnonzero(big).tolist():
            s, e = starts[g], starts[g] + sizes[g]
            first = np.full(e - s - 1, m[s], dtype=np.int64)
            out.append(np.stack([first, m[s + 1 : e]], axis=1))
        keep = ~big[group_id]
        pos = np.flatnonzero(keep & (size_of >= 2))
    else:
        pos = np.flatnonzero(size_of >= 2)
    d = 1
    while pos.size:
        nxt = pos + d
        valid = nxt < k.size
        pos, nxt = pos[valid], nxt[valid]
        same = group_id[nxt] == group_id[pos]
        if same.any():
            out.append(np.stack([m[pos[same]], m[nxt[same]]], axis=1))
        # Only entries whose group still has members further along continue.
        pos = pos[same]
        d += 1
    if not out:
        return np.zeros((0, 2), dtype=np.int64), capped
    pairs = np.concatenate(out)
    lo = np.minimum(pairs[:, 0], pairs[:, 1])
    hi = np.maximum(pairs[:, 0], pairs[:, 1])
    pairs = np.stack([lo, hi], axis=1)
    return pairs[lo != hi], capped


def unique_pairs(pairs: np.ndarray, n_docs: int) -> np.ndarray:
    """Sorted, duplicate-free pairs (lexicographic)."""
    if pairs.size == 0:
        return pairs.reshape(0, 2)
    code = pairs[:, 0].astype(np.int64) * np.int64(n_docs) + pairs[:, 1]
    code.sort()
    keep = np.empty(code.size, dtype=bool)
    keep[0] = True
    np.not_equal(code[1:], code[:-1], out=keep[1:])
    code = code[keep]
    return np.stack([code // n_docs, code % n_docs], axis=1)


def lsh_pairs(
    sigs: np.ndarray,
    bands: int,
    rows: int,
    bucket_cap: int,
    progress: Progress = NULL_PROGRESS,
    subset: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """Candidate pairs of documents (row indices of ``sigs``) sharing at least one band.

    ``subset``: only these rows take part; the pairs then index ``subset`` (0..len-1).

    Returns:
        (sorted unique pairs, shape (n, 2), i < j; number of capped buckets).
    """
    n = sigs.shape[0] if subset is None else int(subset.size)
    keys = band_keys(sigs, bands, rows, subset)
    members = np.arange(n, dtype=np.int64)
    chunks: list[np.ndarray] = []
    capped = 0
    for band in range(bands):
        progress.check()
        pairs, c = pairs_from_keys(keys[:, band], members, bucket_cap)
        capped += c
        if pairs.size:
            chunks.append(pairs)
        progress.report("candidates", band + 1, bands)
    if not chunks:
        return np.zeros((0, 2), dtype=np.int64), capped
    return unique_pairs(np.concatenate(chunks), n), capped
