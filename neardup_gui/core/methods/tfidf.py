"""Character n-gram TF-IDF with cosine similarity, fitted on the normalized texts of a screen.

Semantics are scikit-learn's ``TfidfVectorizer(analyzer="char", ngram_range=(min, max))`` applied to
the normalized texts (which hold no whitespace, so sklearn's whitespace folding has nothing to do):

- term frequency: raw count of each n-gram in the document;
- inverse document frequency, smoothed: ``idf = ln((1 + n_docs) / (1 + df)) + 1``;
- each row scaled to unit Euclidean length; cosine similarity is then a dot product.

An n-gram of up to three characters is packed exactly into a 64-bit key (``code point + 1`` in 21
bits per character, so keys of different lengths never meet); longer n-grams get a 64-bit hash
(collisions about 2**-64 per pair). There is no vocabulary of strings: ~25 million n-gram
occurrences of 10,000 news articles are counted with two sorts instead of 25 million dict look-ups
(sklearn needs ~90 s for them on a 2-core machine).

Memory: an n-gram occurring in one document only can never be shared, so the matrix keeps the rows
restricted to the n-grams found in two or more documents (with the norm of the full row), 12 bytes
per entry; the single-document n-grams are kept apart, compactly, for SimHash. For news-like
Chinese text that is ~33 KB per 1,400-character document (330 MB for 10,000); ``fit`` needs about
90 KB per document at its peak (the sort of all n-gram occurrences).

Candidate pairs above a cosine threshold are found exactly without the N x N matrix (see
``bruteforce.threshold_join``): the products are computed in row blocks on the rarer n-grams only,
and the very common n-grams, which every document shares, are bounded by Cauchy-Schwarz and scored
only for the pairs the bound lets through.

Imports numpy and scipy.sparse only.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from neardup_gui.core.methods.bruteforce import (
    docs_of_entries,
    row_sums,
    threshold_join,
    vocabulary,
)
from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.shingles import fmix64

__all__ = ["TfidfModel", "doc_ngrams", "ngram_keys", "peak_bytes", "smooth_idf"]

_PACK_BITS = 21  # every code point + 1 fits (max 0x110000 < 2**21)
_MAX_PACKED = 3  # 3 x 21 = 63 bits
_LONG_BASE = np.uint64(0x9E3779B97F4A7C15)
_TOP_BIT = np.uint64(1 << 63)
_BATCH = 256
_NO_KEYS = np.zeros(0, dtype=np.uint64)
_SQUARES_CHUNK = 1 << 22
_THREADS = 2
# Pairs are scored in chunks of this many, so the gathered rows stay a few tens of MB.
_PAIR_CHUNK = 1024
# Slack for rounding in bounds (a bound may only let more pairs through).
_EPS = 1e-9
# Peak memory per n-gram window of the texts (``peak_bytes``), measured with tracemalloc on the
# synthetic news corpus (5,000, 10,000 and 20,000 documents, n-grams of 2 and 3 characters):
# fitting 33-35 bytes (every window's key and count, then their sorts), the model kept 12; the
# cosine join of the tfidf method on top of the model 31-36 bytes a window, slowly growing with the
# number of documents (more pairs per block); on short texts of a small alphabet 30-37 and 35-45.
# Rounded up.
FIT_BYTES_PER_WINDOW = 40
JOIN_BYTES_PER_WINDOW = 50


def peak_bytes(lengths: Sequence[int] | np.ndarray, ngram_min: int, ngram_max: int, join: bool) -> int:
    """About how much memory fitting the model (and, with ``join``, finding the pairs above a
    cosine with it) takes at its peak, for texts of these lengths in characters."""
    sizes = np.asarray(lengths, dtype=np.int64)
    windows = sum(int(np.maximum(sizes - n + 1, 0).sum()) for n in range(ngram_min, ngram_max + 1))
    return windows * (JOIN_BYTES_PER_WINDOW if join else FIT_BYTES_PER_WINDOW)


def ngram_keys(cps: np.ndarray, n: int) -> np.ndarray:
    """Key of every n-character window of one text, in text order.

    Args:
        cps: Normalized code points (uint32).
        n: Window length in characters (>= 1).

    Returns:
        uint64 array of length ``max(0, len(cps) - n + 1)``. For ``n <= 3`` the key packs the
        characters exactly (distinct n-grams, of any length up to 3, have distinct keys); for longer
        windows it is a 64-bit hash with the top bit set.
    """
    count = int(cps.size) - n + 1
    if count <= 0:
        return np.zeros(0, dtype=np.uint64)
    c = cps.astype(np.uint64) + np.uint64(1)
    with np.errstate(over="ignore"):
        if n <= _MAX_PACKED:
            key = c[:count].copy()
            for j in range(1, n):
                key <<= np.uint64(_PACK_BITS)
                key |= c[j : j + count]
            return key
        key = np.full(count, np.uint64(n) * _LONG_BASE, dtype=np.uint64)
        for j in range(n):
            key *= _LONG_BASE
            key += c[j : j + count]
        return fmix64(key) | _TOP_BIT


def _unique_counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if keys.size == 0:
        return keys, np.zeros(0, dtype=np.int32)
    keys = np.sort(keys)
    first = np.empty(keys.size, dtype=bool)
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, keys.size)).astype(np.int32)
    return keys[starts], counts


def doc_ngrams(
    cps_list: Sequence[np.ndarray], ngram_min: int, ngram_max: int, progress: Progress = NULL_PROGRESS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct n-grams of every document and how often each occurs.

    Args:
        cps_list: Normalized code points per document.
        ngram_min, ngram_max: Range of n-gram lengths in characters (inclusive).
        progress: ``check()`` is honoured between batches (no report).

    Returns:
        ``(keys, counts, indptr)``: document ``d`` owns ``keys[indptr[d]:indptr[d+1]]`` (sorted,
        distinct uint64 keys) and ``counts`` (int32 occurrences) at the same positions.
    """
    if ngram_min < 1 or ngram_max < ngram_min:
        raise ValueError("n-gram range must satisfy 1 <= min <= max")
    n_docs = len(cps_list)
    batches = [range(i, min(i + _BATCH, n_docs)) for i in range(0, n_docs, _BATCH)]

    lengths_n = range(ngram_min, ngram_max + 1)

    def work(batch: range) -> list[tuple[np.ndarray, np.ndarray]]:
        progress.check()
        docs = [cps_list[d] for d in batch]
        bounds = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum([c.size for c in docs], out=bounds[1:])
        # Keys over the whole batch at once; windows crossing a document boundary are cut out below.
        joined = np.concatenate(docs) if docs else np.zeros(0, dtype=np.uint32)
        windows = [ngram_keys(joined, n) for n in lengths_n]
        out = []
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            parts = [w[lo : hi - n + 1] for n, w in zip(lengths_n, windows) if hi - n + 1 > lo]
            out.append(_unique_counts(np.concatenate(parts) if parts else _NO_KEYS))
        return out

    # Written straight into arrays sized for every window (distinct n-grams are fewer), so the
    # per-document pieces and their concatenation never coexist.
    lengths = np.fromiter((c.size for c in cps_list), dtype=np.int64, count=n_docs)
    capacity = int(sum(np.maximum(lengths - n + 1, 0).sum() for n in lengths_n))
    keys = np.empty(capacity, dtype=np.uint64)
    counts = np.empty(capacity, dtype=np.int32)
    indptr = np.zeros(n_docs + 1, dtype=np.int64)
    pos = 0
    d = 0

    def store(got: list[tuple[np.ndarray, np.ndarray]]) -> None:
        nonlocal pos, d
        for k, c in got:
            keys[pos : pos + k.size] = k
            counts[pos : pos + k.size] = c
            pos += k.size
            d += 1
            indptr[d] = pos

    if len(batches) <= 1:
        for b in batches:
            store(work(b))
    else:
        with ThreadPoolExecutor(_THREADS) as pool:
            for got in pool.map(work, batches):
                store(got)
    return keys[:pos], counts[:pos], indptr


def smooth_idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    """sklearn's smoothed inverse document frequency ``ln((1 + n) / (1 + df)) + 1`` (float64)."""
    return np.log((1.0 + n_docs) / (1.0 + np.asarray(df, dtype=np.float64))) + 1.0


@dataclass(frozen=True, eq=False)
class TfidfModel:
    """Character n-gram TF-IDF vectors of a fixed set of documents (indexes 0..n_docs-1).

    Attributes:
        n_docs: Number of documents fitted.
        ngram_min, ngram_max: n-gram lengths in characters.
        vocab: Sorted uint64 keys (``ngram_keys``) of the n-grams found in two or more documents.
        df: Document frequency of each ``vocab`` key (int32).
        norms: Euclidean norm of each document's full tf-idf vector (0 for a text shorter than
            ``ngram_min``).
        matrix: CSR (n_docs x len(vocab)), tf-idf weights divided by the row norm, restricted to
            ``vocab`` columns; a dot product of two rows is the cosine of two distinct documents.
        single_keys, single_counts, single_indptr: The n-grams found in one document only (keys,
            int32 counts), document ``d`` owning ``single_indptr[d]:single_indptr[d+1]``; with
            ``matrix`` they give every document's complete n-gram profile (SimHash uses it).
    """

    n_docs: int
    ngram_min: int
    ngram_max: int
    vocab: np.ndarray
    df: np.ndarray
    norms: np.ndarray
    matrix: sp.csr_matrix
    single_keys: np.ndarray
    single_counts: np.ndarray
    single_indptr: np.ndarray

    @classmethod
    def fit(
        cls,
        cps_list: Sequence[np.ndarray],
        ngram_min: int = 2,
        ngram_max: int = 3,
        progress: Progress = NULL_PROGRESS,
    ) -> TfidfModel:
        """Count n-grams of all documents and build their normalized tf-idf vectors.

        Args:
            cps_list: Normalized code points of every compared document (uint32 arrays).
            ngram_min, ngram_max: n-gram lengths in characters, inclusive (the seed uses 2-3).
            progress: Reports stage ``shingle`` (0, 1, 2 of 2 steps); ``check()`` between batches.

        Returns:
            The fitted model. Equal inputs give identical models.
        """
        n_docs = len(cps_list)
        progress.report("shingle", 0, 2)
        keys, counts, indptr = doc_ngrams(cps_list, ngram_min, ngram_max, progress)
        progress.report("shingle", 1, 2)
        progress.check()
        order, vocab_all, df_all = vocabulary(keys)
        del keys
        # Column-major from here on: n-gram by n-gram, documents ascending within each.
        rows_all = docs_of_entries(indptr)[order]
        counts = counts[order]
        del order
        weights = np.repeat(smooth_idf(df_all, n_docs), df_all)
        weights *= counts
        norms = np.zeros(n_docs, dtype=np.float64)
        for lo in range(0, weights.size, _SQUARES_CHUNK):  # no second full-size temporary
            w = weights[lo : lo + _SQUARES_CHUNK]
            norms += np.bincount(rows_all[lo : lo + _SQUARES_CHUNK], weights=w * w, minlength=n_docs)
        np.sqrt(norms, out=norms)
        progress.check()
        # n-grams of one document only: never shared, kept compactly for SimHash profiles.
        single = df_all == 1
        single_entry = np.repeat(single, df_all)
        single_rows = rows_all[single_entry]
        by_doc = np.argsort(single_rows, kind="stable")
        single_keys = vocab_all[single][by_doc]
        single_counts = counts[single_entry][by_doc].astype(np.int32)
        single_indptr = np.zeros(n_docs + 1, dtype=np.int64)
        np.cumsum(np.bincount(single_rows, minlength=n_docs), out=single_indptr[1:])
        keep = ~single_entry
        del counts, single_entry, single_rows, by_doc
        # The n-grams shared by two or more documents form the matrix.
        shared = ~single
        rows = rows_all[keep]
        del rows_all
        data = weights[keep]
        del weights, keep
        data /= np.where(norms > 0, norms, 1.0)[rows]
        col_indptr = np.zeros(int(shared.sum()) + 1, dtype=np.int64)
        np.cumsum(df_all[shared], out=col_indptr[1:])
        matrix = sp.csc_matrix((data, rows, col_indptr), shape=(n_docs, col_indptr.size - 1)).tocsr()
        vocab = vocab_all[shared]
        progress.report("shingle", 2, 2)
        return cls(
            n_docs, ngram_min, ngram_max, vocab, df_all[shared].astype(np.int32), norms, matrix,
            single_keys, single_counts, single_indptr,
        )

    # -- scores ------------------------------------------------------------------------------
    def profiles(self, start: int, stop: int, weights: str = "tfidf") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every n-gram of documents ``start..stop-1`` with its weight (for SimHash).

        Args:
            start, stop: Document range.
            weights: ``tfidf`` (count x idf) or ``tf`` (count).

        Returns:
            ``(rows, keys, values)``: document offset from ``start`` (int64), uint64 n-gram key and
            float64 weight of each n-gram occurring in those documents (in no particular order).
        """
        m = self.matrix
        lo, hi = int(m.indptr[start]), int(m.indptr[stop])
        rows = np.repeat(np.arange(stop - start, dtype=np.int64), np.diff(m.indptr[start : stop + 1]))
        cols = m.indices[lo:hi]
        values = m.data[lo:hi] * self.norms[start:stop][rows]
        idf_one = float(smooth_idf(np.array([1]), self.n_docs)[0])
        s_lo, s_hi = int(self.single_indptr[start]), int(self.single_indptr[stop])
        s_rows = np.repeat(
            np.arange(stop - start, dtype=np.int64), np.diff(self.single_indptr[start : stop + 1])
        )
        s_values = self.single_counts[s_lo:s_hi].astype(np.float64)
        if weights == "tf":
            values = np.rint(values / smooth_idf(self.df[cols], self.n_docs))
        elif weights == "tfidf":
            s_values *= idf_one
        else:
            raise ValueError(f"weights must be 'tf' or 'tfidf', got {weights!r}")
        return (
            np.concatenate([rows, s_rows]),
            np.concatenate([self.vocab[cols], self.single_keys[s_lo:s_hi]]),
            np.concatenate([values, s_values]),
        )

    def cosine(self, i: int, j: int) -> float:
        """Cosine similarity of documents ``i`` and ``j`` (in [0, 1]; 1.0 for i == j unless empty)."""
        return float(self.cosines(np.array([[i, j]], dtype=np.int64))[0])

    def cosines(self, pairs: np.ndarray) -> np.ndarray:
        """Cosine similarity of many pairs.

        Args:
            pairs: int array of shape (n, 2) of document indexes (any order; i == j allowed).

        Returns:
            float64 array of n cosines in [0, 1].
        """
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        out = np.empty(pairs.shape[0], dtype=np.float64)
        m = self.matrix
        for s in range(0, pairs.shape[0], _PAIR_CHUNK):
            chunk = pairs[s : s + _PAIR_CHUNK]
            prod = m[chunk[:, 0]].multiply(m[chunk[:, 1]])
            out[s : s + chunk.shape[0]] = np.asarray(prod.sum(axis=1)).ravel()
        same = pairs[:, 0] == pairs[:, 1]
        if same.any():
            out[same] = np.where(self.norms[pairs[same, 0]] > 0, 1.0, 0.0)
        np.clip(out, 0.0, 1.0, out=out)
        return out

    def candidates(
        self,
        threshold: float,
        progress: Progress = NULL_PROGRESS,
        block: int = 2048,
        *,
        rows: np.ndarray | None = None,
        common_df: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every pair of documents whose cosine reaches ``threshold``, exactly.

        Row blocks of the matrix restricted to the less common n-grams are multiplied by its
        transpose (pairs j > i only), never forming the N x N matrix. The common n-grams contribute at
        most ``c_i * c_j`` to a cosine (``c`` = a row's norm on them, Cauchy-Schwarz), so a pair is
        scored in full only when its partial product plus that bound reaches the threshold.

        Args:
            threshold: Cosine in (0, 1].
            progress: Reports stage ``candidates``; ``check()`` between blocks.
            block: Rows per block at most (smaller uses less memory).
            rows: Only pairs among these documents (ascending indexes), e.g. one representative
                per group of identical texts; default all.
            common_df: Tuning only (see ``bruteforce.threshold_join``); the result does not depend
                on it.

        Returns:
            ``(pairs, scores)``: int64 (n, 2) with i < j in lexicographic order, and their float64
            cosines (>= threshold).
        """
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"cosine threshold must be in (0, 1], got {threshold}")
        m = self.matrix
        if rows is not None:
            rows = np.asarray(rows, dtype=np.int64)
            if rows.size > 1 and not (rows[1:] > rows[:-1]).all():
                raise ValueError("rows must be strictly ascending document indexes")
            m = m[rows]
            df = np.bincount(m.indices, minlength=m.shape[1])
        else:
            df = self.df
        sq = m.data * m.data
        t = float(threshold)

        def common_norm(common: np.ndarray) -> np.ndarray:
            return np.sqrt(row_sums(np.where(common[m.indices], sq, 0.0), m.indptr))

        def may_pass(partial: np.ndarray, i: np.ndarray, j: np.ndarray, c: np.ndarray) -> np.ndarray:
            return partial + c[i] * c[j] >= t - _EPS

        def alone(c: np.ndarray) -> np.ndarray:
            top = float(c.max()) if c.size else 0.0
            return c * top >= t - _EPS

        pairs = threshold_join(m, df, common_norm, may_pass, alone, progress, block, common_df)
        if rows is not None:
            pairs = rows[pairs]
        scores = self.cosines(pairs)
        keep = scores >= threshold
        return pairs[keep], scores[keep]
