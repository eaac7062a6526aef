"""A folder that is one large cluster of near copies: the default screen against verifying every pair.

One ~1,500-character notice filled in ``--copies`` times (an amount written in and three characters
changed in each: daily notices, form letters), plus 20 unrelated texts. LSH and the containment
index propose nearly every pair among the copies. Each variant is screened with outputs in its own
process (``neardup screen``-like: ``tasks.screen_folder`` with the verification and reading helpers),
which reports its wall time and peak memory (``ru_maxrss``), so one variant's memory does not hide
the other's:

- ``sparse``: the defaults (``cluster_limit`` 50: each file's 5 closest partners and the links that
  keep the group connected are verified);
- ``every pair`` (the baseline): ``cluster_limit`` 0.

Prints both, the ratios, and whether the copies are still one group of kept pairs.

With ``--headlines N`` the folder is instead N short texts (the title and lead line of the
synthetic corpus's articles, cut to 120 characters): no cluster of near copies at all, but the
containment index proposes pairs of short texts that share one of their few samples. It prints
the large clusters each variant found, the pairs set aside, and whether the candidates are the
same (session 34: before, 50,000 headlines made one "cluster" of 12,691 files, 108,791 pairs set
aside).

    .venv/bin/python bench/bench_cluster.py --copies 3000
    .venv/bin/python bench/bench_cluster.py --copies 20000 --sparse-only   # every pair: ~2 M pairs, >10 GB
    .venv/bin/python bench/bench_cluster.py --headlines 50000
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHARS = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可也你能而子那得"

CHILD = r"""
import hashlib, json, resource, sys, time
from pathlib import Path
from neardup_gui.core.records import ScreenParams
from neardup_gui.tasks import screen_folder
src, out, limit = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
t = time.perf_counter()
outcome = screen_folder(src, ScreenParams(cluster_limit=limit), out_dir=out, with_normalized=False,
                        verify_helper=True, read_helper=True)
seconds = time.perf_counter() - t
parent = {}
def find(x):
    while parent.setdefault(x, x) != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x
for c in outcome.candidates:
    parent[find(c.left)] = find(c.right)
notices = {d.doc_id for d in outcome.documents if d.path.startswith("notice_")}
roots = {find(d) for d in notices}
kept = "\n".join(sorted(f"{c.left} {c.right}" for c in outcome.candidates)).encode()
print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "pairs": len(outcome.candidates), "groups_of_copies": len(roots),
                  "set_aside": outcome.run.counts.get("set_aside_in_large_clusters", 0),
                  "clusters": outcome.run.counts.get("large_clusters", 0),
                  "clustered": outcome.run.counts.get("clustered_documents", 0),
                  "digest": hashlib.sha256(kept).hexdigest()}))
"""


def write_cluster(folder: Path, copies: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    base = "".join(rng.choice(CHARS) for _ in range(1500))
    folder.mkdir(parents=True)
    for i in range(copies):
        chars = list(base)
        for _ in range(3):
            chars[rng.randrange(len(chars))] = rng.choice(CHARS)
        text = "".join(chars[:700]) + f"金额{rng.randrange(10**6):07d}元" + "".join(chars[700:])
        (folder / f"notice_{i:05d}.txt").write_text(text, encoding="utf-8")
    for i in range(20):
        (folder / f"other_{i:02d}.txt").write_text("".join(rng.choice(CHARS) for _ in range(1500)), encoding="utf-8")


def write_headlines(folder: Path, count: int) -> None:
    """The first ``count`` articles of the synthetic corpus, each cut to its title and lead line."""
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_screen import ensure_corpus

    source = ensure_corpus(10_000 if count <= 10_000 else 100_000, 7, ROOT / "bench" / "corpora")
    folder.mkdir(parents=True)
    for i, path in enumerate(sorted(source.rglob("*.txt"))[:count]):
        data = path.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("gb18030")
        lines = [line for line in text.splitlines() if line.strip()]
        (folder / f"{i:06d}.txt").write_text("\n".join(lines[:2])[:120], encoding="utf-8")


def run(src: Path, out: Path, limit: int) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(src), str(out), str(limit)], cwd=ROOT,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--copies", type=int, default=3000)
    ap.add_argument("--sparse-only", action="store_true", help="skip the every-pair baseline")
    ap.add_argument("--headlines", type=int, help="screen this many short texts instead of a cluster")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="neardup-cluster-"))
    try:
        src = work / "src"
        if args.headlines:
            write_headlines(src, args.headlines)
            print(f"{args.headlines:,} headlines (title and lead line, at most 120 characters)")
            results = {"sparse (cluster_limit 50)": run(src, work / "sparse", 50)}
            if not args.sparse_only:
                results["every pair (baseline)"] = run(src, work / "full", 0)
            for name, r in results.items():
                print(f"  {name:26} {r['seconds']:7.2f} s  peak {r['peak_mb']:7.0f} MB  {r['pairs']:,} pairs kept, "
                      f"{r['clusters']} large cluster(s) of {r['clustered']:,} files, {r['set_aside']:,} set aside")  # fmt: skip
            if len(results) == 2:
                same = len({r["digest"] for r in results.values()}) == 1
                print(f"  the same candidates: {'yes' if same else 'NO'}")
            return
        write_cluster(src, args.copies)
        sparse = run(src, work / "sparse", 50)
        print(f"{args.copies:,} filled-in copies + 20 other texts")
        print(f"  sparse (cluster_limit 50): {sparse['seconds']:7.2f} s  peak {sparse['peak_mb']:7.0f} MB  "
              f"{sparse['pairs']:,} pairs kept, {sparse['set_aside']:,} set aside, "
              f"copies in {sparse['groups_of_copies']} group(s)")  # fmt: skip
        if not args.sparse_only:
            full = run(src, work / "full", 0)
            print(f"  every pair (baseline):     {full['seconds']:7.2f} s  peak {full['peak_mb']:7.0f} MB  "
                  f"{full['pairs']:,} pairs kept, copies in {full['groups_of_copies']} group(s)")  # fmt: skip
            print(f"  sparse / every pair: time {sparse['seconds'] / full['seconds']:.2f}x, "
                  f"peak memory {sparse['peak_mb'] / full['peak_mb']:.2f}x, "
                  f"pairs {sparse['pairs'] / full['pairs']:.3f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
