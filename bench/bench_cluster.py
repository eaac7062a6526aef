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

    .venv/bin/python bench/bench_cluster.py --copies 3000
    .venv/bin/python bench/bench_cluster.py --copies 20000 --sparse-only   # every pair: ~2 M pairs, >10 GB
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
import json, resource, sys, time
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
print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "pairs": len(outcome.candidates), "groups_of_copies": len(roots),
                  "set_aside": outcome.run.counts.get("set_aside_in_large_clusters", 0)}))
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


def run(src: Path, out: Path, limit: int) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(src), str(out), str(limit)], cwd=ROOT,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--copies", type=int, default=3000)
    ap.add_argument("--sparse-only", action="store_true", help="skip the every-pair baseline")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="neardup-cluster-"))
    try:
        src = work / "src"
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
