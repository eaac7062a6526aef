"""Time and candidate recall of every candidate method on synthetic corpora, in one run.

    python bench/bench_methods.py [--docs 1000 10000] [--seed 7] [--markdown PATH]

For each corpus size, a corpus from ``make_corpus.generate`` (reused from ``bench/corpora/`` when it
is already there) is read once and prepared once (normalize + k-shingles, as a screen does); then
each method proposes pairs on all usable documents and is timed on its own:

``exact``       identical normalized texts (digest groups)
``minhash``     MinHash signatures + banded LSH (the default method's proposal step)
``minhash+containment``  what a default screen proposes: exact, LSH and the containment index
``jaccard``     exact all-pairs Jaccard (the reference; skipped when it would be too slow)
``tfidf``       character 2-3-gram TF-IDF fit + exact cosine join
``simhash``     SimHash over TF-IDF-weighted 2-3-grams (model fit included) + banded Hamming index
``simhash-tf``  SimHash over n-gram counts (no model) + banded Hamming index

Recall is candidate recall: the share of reference pairs a method proposes. References: the pairs
whose exact Jaccard reaches the threshold (``jaccard`` output), and the planted near-duplicates of the
corpus (per kind: exact copy, format change, light edit, number or date change, excerpt, appended,
template). Proposals are what the verification stage would then score; precision is not the point
here (verification decides).

Times are wall-clock seconds on the current machine (2 shared cores when this was written: compare
ratios, not absolutes). Memory: the TF-IDF model's size is printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR.parent))
sys.path.insert(0, str(BENCH_DIR))

from make_corpus import (
    DEFAULT_CORPORA,
    KINDS,
    default_truth_path,
    generate,
    write_truth,
)

from neardup_gui.core import shingles as sh
from neardup_gui.core.methods import exact, simhash
from neardup_gui.core.methods.bruteforce import (
    TooLarge,
    all_pairs_jaccard,
    estimated_seconds,
)
from neardup_gui.core.methods.minhash_lsh import lsh_pairs, signatures
from neardup_gui.core.methods.tfidf import TfidfModel
from neardup_gui.core.normalize import normalize_batch
from neardup_gui.core.pipeline import banding, prepare, propose
from neardup_gui.core.records import ScreenParams
from neardup_gui.io.corpus import scan_folder


def corpus(docs: int, seed: int, root: Path) -> tuple[Path, list[tuple[str, str, str]]]:
    """The corpus folder and its planted pairs, generated unless already complete."""
    import csv

    outdir = root / f"synth_{docs}_s{seed}"
    truth_path = default_truth_path(outdir)
    if not truth_path.exists():
        truth = generate(outdir, docs, seed)
        write_truth(truth_path, truth)
    with open(truth_path, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return outdir, [(r["left"], r["right"], r["kind"]) for r in rows]


def as_set(pairs: np.ndarray | list[tuple[int, int]]) -> set[tuple[int, int]]:
    arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return {(min(a, b), max(a, b)) for a, b in arr.tolist()}


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    out = fn()
    return time.perf_counter() - started, out


def run_size(docs: int, args: argparse.Namespace) -> list[dict[str, object]]:
    params = ScreenParams(threshold=args.threshold, simhash_distance=args.simhash_distance)
    folder, truth = corpus(docs, args.seed, args.corpora)
    read_s, loaded = timed(lambda: scan_folder(folder))
    usable = [d for d in loaded.documents if d.status == "ok"]
    ids = [d.doc_id for d in usable]
    prep_s, prepared = timed(lambda: prepare(ids, loaded.texts, params))
    index = {d.path: prepared.index(d.doc_id) for d in usable if d.doc_id in set(prepared.doc_ids)}
    planted = {}
    for left, right, kind in truth:
        if left in index and right in index:
            a, b = index[left], index[right]
            planted[(min(a, b), max(a, b))] = kind
    texts = [loaded.texts[d] for d in prepared.doc_ids]
    cps_s, cps = timed(lambda: normalize_batch(texts, params.normalize))
    n = len(prepared)
    mean_shingles = float(np.mean([h.size for h in prepared.hashes]))
    print(
        f"\n{docs} files: read {read_s:.1f} s, prepare (normalize + {params.k}-shingles) {prep_s:.1f} s, "
        f"normalized code points {cps_s:.1f} s; {n} documents, {mean_shingles:.0f} shingles each, "
        f"{len(planted)} planted pairs",
        flush=True,
    )

    results: dict[str, tuple[float, set[tuple[int, int]], str]] = {}

    def exact_pairs() -> set[tuple[int, int]]:
        out: set[tuple[int, int]] = set()
        for members in exact.group_by_digest(prepared.digests):
            out.update(exact.pairs_within(members))
        return out

    t, got = timed(exact_pairs)
    results["exact"] = (t, got, "identical normalized text")

    bands, rows = banding(params)

    def minhash_pairs() -> set[tuple[int, int]]:
        sigs = signatures([sh.minhash_values(h) for h in prepared.hashes], params.num_perm, params.seed)
        pairs, _ = lsh_pairs(sigs, bands, rows, params.bucket_cap)
        return as_set(pairs)

    t, got = timed(minhash_pairs)
    results["minhash"] = (t, got, f"{params.num_perm} perms, {bands} bands x {rows} rows")
    t, got = timed(lambda: set(propose(prepared, params).all_pairs()))
    results["minhash+containment"] = (t, got, f"default screen, containment >= {params.containment_threshold}")

    estimate = estimated_seconds(n, mean_shingles)
    reference: set[tuple[int, int]] | None = None
    try:
        t, (pairs, _) = timed(
            lambda: all_pairs_jaccard(prepared.hashes, params.threshold, max_seconds=args.max_jaccard_seconds)
        )
        reference = as_set(pairs)
        results["jaccard"] = (t, reference, f"exact, estimate was {estimate:.1f} s")
    except TooLarge as exc:
        print(f"jaccard skipped: {exc}", flush=True)

    t_fit, model = timed(lambda: TfidfModel.fit(cps, params.ngram_min, params.ngram_max))
    t_join, (tf_pairs, _) = timed(lambda: model.candidates(args.cosine))
    mb = (model.matrix.data.nbytes + model.matrix.indices.nbytes + model.single_keys.nbytes
          + model.single_counts.nbytes + model.vocab.nbytes + model.df.nbytes) / 1e6
    results["tfidf"] = (
        t_fit + t_join,
        as_set(tf_pairs),
        f"cosine >= {args.cosine}; fit {t_fit:.1f} s + join {t_join:.1f} s; model {mb:.0f} MB",
    )

    t_fp, fps = timed(lambda: simhash.fingerprints(cps, params.ngram_min, params.ngram_max, model=model))
    t_sc, (sim_pairs, _) = timed(lambda: simhash.candidates(fps, params.simhash_distance))
    results["simhash"] = (
        t_fit + t_fp + t_sc,
        as_set(sim_pairs),
        f"distance <= {params.simhash_distance}; fit {t_fit:.1f} + fingerprints {t_fp:.1f} + index {t_sc:.2f} s",
    )
    t_fp2, fps_tf = timed(lambda: simhash.fingerprints(cps, params.ngram_min, params.ngram_max, weights="tf"))
    t_sc2, (sim_tf_pairs, _) = timed(lambda: simhash.candidates(fps_tf, params.simhash_distance))
    results["simhash-tf"] = (
        t_fp2 + t_sc2,
        as_set(sim_tf_pairs),
        f"counts, distance <= {params.simhash_distance}; fingerprints {t_fp2:.1f} + index {t_sc2:.2f} s",
    )

    out: list[dict[str, object]] = []
    for name, (seconds, found, note) in results.items():
        row: dict[str, object] = {
            "docs": docs,
            "method": name,
            "seconds": seconds,
            "candidates": len(found),
            "recall_jaccard": (len(found & reference) / len(reference)) if reference else None,
            "recall_planted": sum(1 for p in planted if p in found) / max(1, len(planted)),
            "note": note,
        }
        for kind in KINDS:
            of_kind = [p for p, k in planted.items() if k == kind]
            row[kind] = sum(1 for p in of_kind if p in found) / len(of_kind) if of_kind else None
        out.append(row)
    if reference is not None:
        print(f"reference: {len(reference)} pairs with Jaccard >= {params.threshold} (k={params.k})")
    return out


def pct(value: object) -> str:
    return "-" if value is None else f"{100 * float(value):.1f} %"


def table(rows: list[dict[str, object]], threshold: float) -> str:
    head = ["docs", "method", "time (s)", "candidates", f"recall J>={threshold}", "recall planted", "setting"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append(
            f"| {r['docs']} | {r['method']} | {float(r['seconds']):.2f} | {r['candidates']} | "
            f"{pct(r['recall_jaccard'])} | {pct(r['recall_planted'])} | {r['note']} |"
        )
    lines.append("")
    head = ["docs", "method", *KINDS]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append(f"| {r['docs']} | {r['method']} | " + " | ".join(pct(r[k]) for k in KINDS) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, nargs="+", default=[1000, 10000], help="corpus sizes")
    parser.add_argument("--seed", type=int, default=7, help="corpus seed (default 7)")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA, help="where corpora are kept")
    parser.add_argument("--threshold", type=float, default=0.5, help="Jaccard threshold (default 0.5)")
    parser.add_argument("--cosine", type=float, default=0.5, help="TF-IDF cosine threshold (default 0.5)")
    parser.add_argument("--simhash-distance", type=int, default=3, help="SimHash Hamming distance (default 3)")
    parser.add_argument("--max-jaccard-seconds", type=float, default=120.0, help="skip brute force above this estimate")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows: list[dict[str, object]] = []
    for docs in args.docs:
        rows.extend(run_size(docs, args))
    text = table(rows, args.threshold)
    print()
    print(text)
    print(f"\nwhole run {time.perf_counter() - started:.0f} s")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.markdown.with_name(args.markdown.name + ".tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
