"""Column arrays of the candidate table: numpy sort keys and filter masks for up to millions of rows.

``CandidateColumns`` holds, for the rows in their load order, the arrays the table sorts and filters
on, each built on first use and kept until the rows are replaced: document indices of both sides,
score columns, a dense rank for every text column (so a text sort is an integer sort with the same
order as comparing the casefolded strings), the review status codes and the code of each row's flag
tuple. Filters are computed per distinct value (a document path, a flag tuple) and spread to the
rows by indexing, never by a Python call per row. Statuses change while the rows stay:
``set_status_code`` keeps that column current.
Imports numpy and ``neardup_gui.core`` only (no Qt).
"""

from __future__ import annotations

import threading

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from operator import attrgetter
from typing import Any

import numpy as np

from neardup_gui.core.records import REVIEW_PENDING, REVIEW_STATUSES, Candidate, Document

MISSING_LOW = -1.0  # sort key of a missing similarity (before every real one, ascending)
MISSING_HIGH = 1e9  # sort key of a missing distance (after every real one, ascending)

# Column names (the model maps its Column enum onto them).
LEFT_NAME = "left_name"
RIGHT_NAME = "right_name"
SOURCES = "sources"
JACCARD = "jaccard"
CONTAINMENT_LEFT = "containment_left"
CONTAINMENT_RIGHT = "containment_right"
MINHASH = "minhash"
FLAG_COUNT = "flag_count"
STATUS = "status"
TFIDF = "tfidf"
SIMHASH = "simhash"
METHODS = "methods"


def file_name(path: str) -> str:
    """The last part of a ``/``-separated path (the path itself if that part is empty)."""
    return path.rsplit("/", 1)[-1] or path


def dense_rank(values: Sequence[str]) -> np.ndarray:
    """Rank of each string among the distinct ones (Python string order); equal strings, equal rank."""
    distinct = sorted(set(values))
    rank_of = {v: i for i, v in enumerate(distinct)}
    return np.fromiter((rank_of[v] for v in values), dtype=np.int64, count=len(values))


def codes_of(values: Iterable[Hashable], count: int) -> tuple[np.ndarray, list[Any]]:
    """(code per value, distinct values in order of first appearance)."""
    index: dict[Hashable, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int32, count=count)
    return codes, list(index)


class CandidateColumns:
    """Sort keys and filter inputs of a list of candidates (in their load order)."""

    def __init__(
        self,
        rows: Sequence[Candidate],
        documents: Mapping[str, Document],
        statuses: Mapping[tuple[str, str], str],
        base_of: Callable[[tuple[str, str]], int | None],
        methods_text: Callable[[tuple[str, ...]], str],
    ) -> None:
        self._rows = rows
        self._docs = documents
        self._methods_text = methods_text
        self._cache: dict[str, np.ndarray] = {}
        self._doc_ids: list[str] | None = None
        self._doc_index: np.ndarray | None = None  # (2, n) left and right document indices
        self._doc_lock = threading.Lock()
        self._paths_folded: list[str] | None = None
        self._flag_codes: tuple[np.ndarray, list[tuple[str, ...]]] | None = None
        # Statuses: codes into self.status_names; the known statuses first, in their display order.
        self.status_names: list[str] = list(REVIEW_STATUSES)
        self._status_code = {s: i for i, s in enumerate(self.status_names)}
        pending = self._status_code[REVIEW_PENDING]
        self._status = np.full(len(rows), pending, dtype=np.int32)
        for pair, status in statuses.items():
            base = base_of(pair)
            if base is not None:
                self._status[base] = self.status_code(status)

    def __len__(self) -> int:
        return len(self._rows)

    # -- statuses -----------------------------------------------------------------------------
    def status_code(self, status: str) -> int:
        """Code of a status (statuses outside ``REVIEW_STATUSES`` get new codes after them)."""
        code = self._status_code.get(status)
        if code is None:
            code = self._status_code[status] = len(self.status_names)
            self.status_names.append(status)
        return code

    def set_status_code(self, base: int, status: str) -> None:
        self._status[base] = self.status_code(status)

    def reset_statuses(self, statuses: Mapping[tuple[str, str], str], base_of: Callable[[tuple[str, str]], int | None]) -> None:
        self._status[:] = self._status_code[REVIEW_PENDING]
        for pair, status in statuses.items():
            base = base_of(pair)
            if base is not None:
                self._status[base] = self.status_code(status)

    def status_mask(self, status: str) -> np.ndarray:
        code = self._status_code.get(status)
        if code is None:
            return np.zeros(len(self._rows), dtype=bool)
        return self._status == code

    # -- documents ----------------------------------------------------------------------------
    def prewarm(self) -> None:
        """Build the document index in a background thread (for a large list, ~1 s per million
        rows and side) so that the first sort or search by file does not wait for all of it."""
        threading.Thread(target=self._documents, name="neardup-columns", daemon=True).start()

    def _documents(self) -> tuple[list[str], np.ndarray]:
        with self._doc_lock:
            return self._build_documents()

    def _build_documents(self) -> tuple[list[str], np.ndarray]:
        if self._doc_ids is None or self._doc_index is None:
            index: dict[str, int] = {doc_id: i for i, doc_id in enumerate(self._docs)}
            n = len(self._rows)
            both = np.empty((2, n), dtype=np.int32)
            for side, name in enumerate(("left", "right")):
                ids = map(attrgetter(name), self._rows)
                try:  # map() over C functions: no Python call per row
                    both[side] = np.fromiter(map(index.__getitem__, ids), dtype=np.int32, count=n)
                except KeyError:  # a pair naming a document the manifest lacks: shown by its doc_id
                    ids = map(attrgetter(name), self._rows)
                    both[side] = np.fromiter((index.setdefault(i, len(index)) for i in ids), dtype=np.int32, count=n)
            self._doc_ids, self._doc_index = list(index), both
        return self._doc_ids, self._doc_index

    def _path(self, doc_id: str) -> str:
        doc = self._docs.get(doc_id)
        return doc.path if doc is not None else doc_id

    def path_mask(self, text: str) -> np.ndarray:
        """Rows where either side's path contains ``text`` (already casefolded)."""
        ids, both = self._documents()
        if self._paths_folded is None:
            self._paths_folded = [self._path(doc_id).casefold() for doc_id in ids]
        hit = np.fromiter((text in p for p in self._paths_folded), dtype=bool, count=len(ids))
        return hit[both[0]] | hit[both[1]]

    # -- flags --------------------------------------------------------------------------------
    def flag_mask(self, accept: Callable[[tuple[str, ...]], bool]) -> np.ndarray:
        """Rows whose flag tuple passes ``accept`` (called once per distinct tuple)."""
        if self._flag_codes is None:
            self._flag_codes = codes_of(map(attrgetter("flags"), self._rows), len(self._rows))
        codes, distinct = self._flag_codes
        ok = np.fromiter((accept(flags) for flags in distinct), dtype=bool, count=len(distinct))
        return ok[codes] if len(codes) else np.zeros(0, dtype=bool)

    # -- scores and sort keys -----------------------------------------------------------------
    def best_score(self) -> np.ndarray:
        """max(Jaccard, containment left, containment right) per row."""
        if "best" not in self._cache:
            self._cache["best"] = np.maximum(
                self.key(JACCARD), np.maximum(self.key(CONTAINMENT_LEFT), self.key(CONTAINMENT_RIGHT))
            )
        return self._cache["best"]

    def key(self, name: str) -> np.ndarray:
        """Sort key of a column per row (load order): floats, or integer ranks for text columns."""
        if name == STATUS:
            return np.minimum(self._status, len(REVIEW_STATUSES))  # unknown statuses sort last, together
        cached = self._cache.get(name)
        if cached is None:
            cached = self._cache[name] = self._build(name)
        return cached

    def _floats(self, name: str, missing: float) -> np.ndarray:
        values = map(attrgetter(name), self._rows)
        try:
            return np.fromiter(values, dtype=np.float64, count=len(self._rows))
        except TypeError:  # some are None (the method that computes them did not run)
            values = map(attrgetter(name), self._rows)
            return np.fromiter((missing if v is None else v for v in values), dtype=np.float64, count=len(self._rows))

    def _build(self, name: str) -> np.ndarray:
        rows = self._rows
        if name in (LEFT_NAME, RIGHT_NAME):
            ids, both = self._documents()
            names = dense_rank([self._name(doc_id).casefold() for doc_id in ids])
            return names[both[0 if name == LEFT_NAME else 1]]
        if name == SOURCES:
            ids, both = self._documents()
            side = [self._source(doc_id) for doc_id in ids]
            src_codes, src_distinct = codes_of(side, len(side))
            width = max(1, len(src_distinct))
            pair = src_codes[both[0]].astype(np.int64) * width + src_codes[both[1]]
            distinct_pairs, inverse = np.unique(pair, return_inverse=True)
            texts = [
                f"{src_distinct[int(p) // width]} ↔ {src_distinct[int(p) % width]}".casefold() for p in distinct_pairs
            ]
            return dense_rank(texts)[inverse.reshape(-1)] if len(texts) else np.zeros(0, dtype=np.int64)
        if name == JACCARD:
            return self._floats("jaccard", 0.0)
        if name == CONTAINMENT_LEFT:
            return self._floats("containment_left", 0.0)
        if name == CONTAINMENT_RIGHT:
            return self._floats("containment_right", 0.0)
        if name == MINHASH:
            return self._floats("minhash_estimate", MISSING_LOW)
        if name == TFIDF:
            return self._floats("tfidf_cosine", MISSING_LOW)
        if name == SIMHASH:
            return self._floats("simhash_distance", MISSING_HIGH)
        if name == FLAG_COUNT:
            return np.fromiter(map(len, map(attrgetter("flags"), rows)), dtype=np.int64, count=len(rows))
        if name == METHODS:
            codes, distinct = codes_of(map(attrgetter("methods"), rows), len(rows))
            ranks = dense_rank([self._methods_text(m).casefold() for m in distinct])
            return ranks[codes] if len(codes) else np.zeros(0, dtype=np.int64)
        raise KeyError(name)

    def _name(self, doc_id: str) -> str:
        doc = self._docs.get(doc_id)
        return file_name(doc.path) if doc is not None else doc_id

    def _source(self, doc_id: str) -> str:
        doc = self._docs.get(doc_id)
        return f"{doc.source_id} {doc.version}" if doc is not None else "?"


def stable_order(current: np.ndarray, keys: np.ndarray, descending: bool) -> np.ndarray:
    """``current`` (row indices) reordered by ``keys[current]``; equal keys keep their order.

    Same result as Python's ``sorted(..., reverse=descending)``, which is stable both ways.
    """
    values = keys[current]
    if descending:
        values = -values
    return current[np.argsort(values, kind="stable")]
