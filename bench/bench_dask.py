"""The Dask engine on this machine: throughput per worker, memory per worker, shuffle volume.

    python bench/bench_dask.py --docs 10000 --workers 1 2
    python bench/bench_dask.py --docs 100000 --workers 2 --partition-docs 2000

For the same generated corpus (``make_corpus.py``; generated once into ``bench/corpora/``):

- the in-process screen (``tasks.screen_folder``, two threads), cold and warm, as the reference
  time and result;
- ``neardup screen --engine dask`` on a fresh local cluster of N worker processes (one thread each),
  after one small warm-up screen (worker start-up, imports and loading the compiled MinHash kernel
  are paid once per worker, not per screen): wall time, documents per second, per worker, the time
  each stage took, and the peak resident memory of each worker process;
- the shuffle volume: the bytes that enter each shuffle (band keys, containment samples, partial
  pair counts), measured by running the engine's own stage functions on the corpus here, per
  document and per million documents; and the candidates are checked equal to the in-process ones.

Timings on a shared 2-core machine are noisy: compare ratios. Results also go to
``bench/out/bench_dask_<docs>.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

STAGE_ORDER = ("list", "read", "normalize", "shingle", "candidates", "verify", "flags")


def _peak_rss_mb(dask_worker) -> float:
    # The worker's system monitor samples its RSS every 0.5 s (ru_maxrss would not do: Linux
    # carries the parent's peak across fork and exec).
    return max(dask_worker.monitor.quantities["memory"]) / 2**20


def _rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def stage_timer():
    """A progress callback recording when each stage was first reported, and a way to read it."""
    t0 = time.perf_counter()
    first: dict[str, float] = {}

    def callback(stage: str, done: int, total: int) -> None:
        first.setdefault(stage, time.perf_counter() - t0)

    def durations(total: float) -> dict[str, float]:
        seen = [s for s in STAGE_ORDER if s in first]
        ends = [first[s] for s in seen[1:]] + [total]
        return {s: round(e - first[s], 2) for s, e in zip(seen, ends)}

    return callback, durations


def in_process(folder: Path, params, runs: int = 2) -> tuple[dict, object]:
    """The in-process screen, cold (first in this process) and warm (second, when ``runs`` is 2)."""
    from neardup_gui.tasks import screen_folder

    times = []
    for _ in range(runs):
        t = time.perf_counter()
        outcome = screen_folder(folder, params)
        times.append(round(time.perf_counter() - t, 2))
    docs = sum(1 for d in outcome.documents if d.sha256)
    return {
        "seconds_cold": times[0],
        "seconds_warm": times[-1] if runs > 1 else None,
        "docs_per_s": round(docs / times[-1]),
        "candidates": len(outcome.candidates),
    }, outcome


def on_dask(folder: Path, params, workers: int, partition_docs: int, warmup: Path, reference,
            memory_limit: str = "auto") -> dict:  # fmt: skip
    from neardup_gui.core.progress import CallbackProgress
    from neardup_gui.distributed.engine import dask_client, screen_distributed

    with dask_client(workers=workers, memory_limit=memory_limit) as client:
        screen_distributed(warmup, params, client=client, partition_docs=partition_docs)
        idle = sorted(client.run(_rss_mb).values())
        callback, durations = stage_timer()
        t = time.perf_counter()
        outcome = screen_distributed(
            folder, params, client=client, partition_docs=partition_docs,
            progress=CallbackProgress(callback, min_interval=0),
        )  # fmt: skip
        seconds = time.perf_counter() - t
        peaks = sorted(client.run(_peak_rss_mb).values())  # includes the warm-up (smaller)
    docs = sum(1 for d in outcome.documents if d.sha256)
    return {
        "workers": workers,
        "memory_limit": memory_limit,
        "seconds": round(seconds, 2),
        "docs_per_s": round(docs / seconds),
        "docs_per_s_per_worker": round(docs / seconds / workers),
        "stages_s": durations(seconds),
        "rss_mb_per_worker_after_warmup": [round(p) for p in idle],
        "peak_rss_mb_per_worker": [round(p) for p in peaks],
        "identical_to_in_process": outcome.candidates == reference.candidates
        and outcome.documents == reference.documents,
    }


def client_bytes_per_document(outcome) -> dict:
    """What the client keeps per document: its manifest row (a ``Document``) and two digests."""
    import pickle
    import tracemalloc

    docs = list(outcome.documents[:5000])
    blob = pickle.dumps(docs)
    tracemalloc.start()
    copy = pickle.loads(blob)
    used = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del copy
    return {"manifest_row": round(used / len(docs)), "digests_and_position": 16 + 16 + 8 + 8}


def shuffle_volume(folder: Path, params, partition_docs: int) -> dict:
    """Bytes entering each shuffle, from the engine's own stage functions run here."""
    import numpy as np
    import pandas as pd

    from neardup_gui.core.pipeline import banding
    from neardup_gui.distributed import sources, stages
    from neardup_gui.distributed.run import Shingled

    plan = sources.plan_folder(folder, params, partition_docs=partition_docs)
    preps = [stages.prepare_partition(p, params) for p in plan.partitions]
    sh = Shingled.from_summaries([stages.summarize(p) for p in preps])
    bands, rows = banding(params)
    reps = sh.split(sh.is_rep)
    band = [stages.band_frame(p, r, bands, rows) for p, r in zip(preps, reps)]
    if params.containment_threshold > 0:
        samples = pd.concat([stages.sample_frame(p, r, params.containment_sample) for p, r in zip(preps, reps)])
        shared, _ = stages.containment_partition(samples, params.bucket_cap)
    else:
        samples, shared = stages.SAMPLE_META, stages.SHARED_META

    def size(frames) -> int:
        return int(sum(f.memory_usage(index=False, deep=True).sum() for f in frames))

    n = max(1, sh.n)
    volumes = {"band_keys": size(band), "containment_samples": size([samples]), "pair_counts": size([shared])}
    out = {
        "documents": sh.n,
        "representatives": int(np.count_nonzero(sh.is_rep)),
        "bytes": volumes,
        "bytes_per_document": {k: round(v / n, 1) for k, v in volumes.items()},
        "gb_per_million_documents": {k: round(v / n * 1e6 / 1e9, 2) for k, v in volumes.items()},
    }
    out["gb_per_million_documents"]["total"] = round(sum(volumes.values()) / n * 1e6 / 1e9, 2)
    return out


def main(argv: list[str] | None = None) -> int:
    from bench_screen import ensure_corpus

    from neardup_gui.core.records import ScreenParams
    from neardup_gui.io.paths import sample_corpus_dir

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--partition-docs", type=int, default=1000)
    ap.add_argument("--corpora", type=Path, default=HERE / "corpora")
    ap.add_argument("--memory-limit", default="auto", help="per local worker, e.g. 1.5GB (default: Dask's auto)")
    ap.add_argument("--containment", type=float, default=None, help="containment threshold (0 turns it off)")
    ap.add_argument("--reference-runs", type=int, choices=(1, 2), default=2, help="in-process runs (2: cold and warm)")
    args = ap.parse_args(argv)

    folder = ensure_corpus(args.docs, args.seed, args.corpora)
    params = ScreenParams(all_scores="never")
    if args.containment is not None:
        params = params.with_(containment_threshold=args.containment)
    report: dict = {"docs": args.docs, "partition_docs": args.partition_docs, "containment": params.containment_threshold}
    report["in_process"], reference = in_process(folder, params, args.reference_runs)
    print(f"in-process: {report['in_process']}", flush=True)
    report["client_bytes_per_document"] = client_bytes_per_document(reference)
    print(f"client: {report['client_bytes_per_document']}", flush=True)
    report["dask"] = []
    for w in args.workers:
        got = on_dask(folder, params, w, args.partition_docs, sample_corpus_dir(), reference, args.memory_limit)
        report["dask"].append(got)
        print(f"dask: {got}", flush=True)
    report["shuffle"] = shuffle_volume(folder, params, args.partition_docs)
    print(f"shuffle: {report['shuffle']}", flush=True)
    suffix = "" if params.containment_threshold > 0 else "_nocontainment"
    out = HERE / "out" / f"bench_dask_{args.docs}{suffix}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
