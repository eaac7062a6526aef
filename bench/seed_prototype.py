"""Baseline: the seed guide's pure-Python MinHash prototype, re-implemented (our code, same algorithm).

    python bench/seed_prototype.py FOLDER [--limit N] [--k 3] [--threshold 0.5]

The algorithm, step by step, as the project's source guide describes it:

1. normalize: Unicode NFKC, casefold, keep letters and digits only;
2. shingle: the set of character k-grams (k=3) of the normalized text; no shingles -> no signature;
3. sign: for each of 64 salts, hash every shingle with BLAKE2b (8-byte digest, the salt as a 4-byte
   big-endian key) and keep the minimum: a 64-value signature;
4. band: 16 bands of 4 rows; two documents with one identical band become a candidate pair;
5. verify: exact Jaccard of the two shingle sets, for candidates only.

This is the slow reference other benchmarks compare against (one BLAKE2b call per shingle and
salt, Python sets of strings). Do not optimise it: its cost is the point of comparison.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
import unicodedata
from collections import defaultdict
from pathlib import Path


def normalize(text: str) -> str:
    """NFKC, casefold, then letters and digits only (whitespace and punctuation dropped)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if ch.isalnum())


def shingle_set(normalized: str, k: int = 3) -> set[str]:
    """Distinct character k-grams of an already normalized text (empty if shorter than k)."""
    return {normalized[i : i + k] for i in range(len(normalized) - k + 1)}


def signature(shingles: set[str], num_perm: int = 64) -> tuple[int, ...] | None:
    """MinHash signature: per salt, the minimum salted BLAKE2b-64 hash over the shingles.

    Returns:
        ``num_perm`` unsigned 64-bit integers, or None when there are no shingles.
    """
    if not shingles:
        return None
    encoded = [s.encode("utf-8") for s in shingles]
    minima = []
    for salt in range(num_perm):
        key = salt.to_bytes(4, "big")
        minima.append(
            min(int.from_bytes(hashlib.blake2b(item, digest_size=8, key=key).digest(), "big") for item in encoded)
        )
    return tuple(minima)


def jaccard(a: set[str], b: set[str]) -> float:
    """Exact Jaccard |A ∩ B| / |A ∪ B| in [0, 1]; 0.0 when either set is empty."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def screen_texts(texts: dict[str, str], k: int = 3, num_perm: int = 64, rows: int = 4) -> set[tuple[str, str]]:
    """Candidate pairs proposed by banded MinHash (LSH), as the seed prototype finds them.

    Args:
        texts: doc_id -> raw text.
        k: Shingle length in characters.
        num_perm: Signature length (number of salts); must be a multiple of ``rows``.
        rows: Rows per band; ``num_perm // rows`` bands.

    Returns:
        Pairs ``(a, b)`` with ``a < b`` whose signatures agree on at least one whole band.
        Texts without shingles take part in nothing.

    Raises:
        ValueError: ``num_perm`` is not a positive multiple of ``rows``.
    """
    if rows <= 0 or num_perm <= 0 or num_perm % rows:
        raise ValueError(f"num_perm ({num_perm}) must be a positive multiple of rows ({rows})")
    buckets: dict[tuple[int, tuple[int, ...]], list[str]] = defaultdict(list)
    for doc_id, text in texts.items():
        sig = signature(shingle_set(normalize(text), k), num_perm)
        if sig is None:
            continue
        for start in range(0, num_perm, rows):
            buckets[(start, sig[start : start + rows])].append(doc_id)
    pairs: set[tuple[str, str]] = set()
    for members in buckets.values():
        for i, left in enumerate(members):
            for right in members[i + 1 :]:
                pairs.add((left, right) if left < right else (right, left))
    return pairs


def verify_pairs(texts: dict[str, str], pairs: set[tuple[str, str]], k: int = 3) -> dict[tuple[str, str], float]:
    """Exact Jaccard of each candidate pair's shingle sets (the prototype's verify step)."""
    cache: dict[str, set[str]] = {}

    def shingles_of(doc_id: str) -> set[str]:
        if doc_id not in cache:
            cache[doc_id] = shingle_set(normalize(texts[doc_id]), k)
        return cache[doc_id]

    return {pair: jaccard(shingles_of(pair[0]), shingles_of(pair[1])) for pair in sorted(pairs)}


def read_folder(folder: Path, limit: int | None = None) -> dict[str, str]:
    """``*.txt`` under ``folder`` (sorted), decoded as UTF-8 (BOM allowed), else GB18030."""
    texts: dict[str, str] = {}
    for path in sorted(folder.rglob("*.txt")):
        if limit is not None and len(texts) >= limit:
            break
        data = path.read_bytes()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("gb18030", errors="replace")
        texts[path.relative_to(folder).as_posix()] = text
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the seed prototype on a folder and time it.")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--limit", type=int, help="only the first N files (sorted by path)")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--num-perm", type=int, default=64)
    parser.add_argument("--rows", type=int, default=4)
    parser.add_argument("--threshold", type=float, default=0.5, help="Jaccard for the 'kept' count")
    args = parser.parse_args(argv)
    texts = read_folder(args.folder, args.limit)
    started = time.perf_counter()
    candidates = screen_texts(texts, k=args.k, num_perm=args.num_perm, rows=args.rows)
    screened = time.perf_counter()
    scores = verify_pairs(texts, candidates, k=args.k)
    done = time.perf_counter()
    kept = sum(score >= args.threshold for score in scores.values())
    print(
        f"{len(texts)} texts: {len(candidates)} candidates in {screened - started:.1f} s, "
        f"verified in {done - screened:.1f} s; {kept} with Jaccard >= {args.threshold}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
