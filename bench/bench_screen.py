"""End-to-end screening speed against baselines measured in the same run.

    python bench/bench_screen.py --docs 10000            # generate (once) and screen a 10k corpus
    python bench/bench_screen.py --docs 100000 --baseline-docs 500

Prints, for the same documents:
- the lower bound: read + decode every file, plus one pass over every shingle hash;
- ``neardup screen`` end to end from files, outputs included (cold = first run in a fresh process,
  warm = second run in the same process), docs/s and peak memory of that process; and warm again
  without the per-document ``normalized/`` files (creating thousands of small files is slow);
- the seed's pure-Python prototype (64 salted BLAKE2b hashes per shingle) and datasketch's
  ``MinHash.update()`` per shingle, on the first ``--baseline-docs`` documents (they are too slow for
  the whole corpus), as docs/s; the ratios compare docs/s.

Each approach runs in its own subprocess so peak memory is its own. Timings on a shared machine are
noisy: compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))


def ensure_corpus(docs: int, seed: int, corpora: Path) -> Path:
    from make_corpus import generate

    folder = corpora / f"zh_{docs}_{seed}"
    marker = folder / ".complete"
    if not marker.exists():
        print(f"generating {docs} documents into {folder} ...", file=sys.stderr)
        t = time.perf_counter()
        generate(folder, docs, seed)
        marker.write_text("ok")
        print(f"  generated in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return folder


def _child(mode: str, folder: str, limit: int) -> dict:
    """Runs inside a subprocess; returns timings and peak RSS."""
    import resource

    out: dict = {}
    if mode == "screen":
        from neardup_gui.core.records import ScreenParams
        from neardup_gui.tasks import screen_folder

        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            for label, with_normalized in (("cold", True), ("warm", True), ("warm_no_normalized", False)):
                t = time.perf_counter()
                outcome = screen_folder(
                    folder, ScreenParams(), out_dir=Path(tmp) / label, with_normalized=with_normalized
                )
                out[label] = time.perf_counter() - t
            out["docs"] = outcome.run.counts.get("files_ok", 0)
            out["candidates"] = len(outcome.candidates)
    elif mode == "lower_bound":
        import numpy as np

        from neardup_gui.core import shingles as sh
        from neardup_gui.core.normalize import normalize_batch
        from neardup_gui.core.records import ScreenParams

        paths = sorted(p for p in Path(folder).rglob("*") if p.is_file() and not p.name.startswith("."))
        t = time.perf_counter()
        texts = []
        for p in paths:
            data = p.read_bytes()
            try:
                texts.append(data.decode("utf-8"))
            except UnicodeDecodeError:
                texts.append(data.decode("gb18030", "replace"))
        read_s = time.perf_counter() - t
        k = ScreenParams().k
        hashes = sh.shingle_sets(normalize_batch(texts), k)
        t = time.perf_counter()
        acc = np.uint64(0)
        for h in hashes:
            acc ^= np.bitwise_xor.reduce(h) if h.size else np.uint64(0)
        pass_s = time.perf_counter() - t
        out.update(read=read_s, hash_pass=pass_s, total=read_s + pass_s, docs=len(texts))
    else:
        from neardup_gui.core.normalize import normalize

        paths = sorted(p for p in Path(folder).rglob("*") if p.is_file() and not p.name.startswith("."))[:limit]
        texts = {}
        for p in paths:
            data = p.read_bytes()
            try:
                texts[str(p)] = data.decode("utf-8")
            except UnicodeDecodeError:
                texts[str(p)] = data.decode("gb18030", "replace")
        t = time.perf_counter()
        if mode == "seed":
            from seed_prototype import screen_texts

            screen_texts(texts, k=3, num_perm=64, rows=4)
        elif mode == "datasketch":
            from datasketch import MinHash, MinHashLSH

            lsh = MinHashLSH(threshold=0.5, num_perm=128)
            for key, text in texts.items():
                norm = normalize(text).text
                m = MinHash(num_perm=128)
                for i in range(len(norm) - 4):
                    m.update(norm[i : i + 5].encode("utf-8"))
                lsh.insert(key, m)
                lsh.query(m)
        out["seconds"] = time.perf_counter() - t
        out["docs"] = len(texts)
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def run_child(mode: str, folder: Path, limit: int = 0) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(ROOT), env.get("PYTHONPATH", "")])
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(folder), str(limit)],
        capture_output=True,
        text=True,
        env=env,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{proc.stderr}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_seconds"] = time.perf_counter() - t
    return result


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(_child(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--baseline-docs", type=int, default=1000, help="documents for the slow baselines")
    parser.add_argument("--corpora", type=Path, default=HERE / "corpora")
    parser.add_argument("--skip-baselines", action="store_true")
    args = parser.parse_args()

    folder = ensure_corpus(args.docs, args.seed, args.corpora)
    lower = run_child("lower_bound", folder)
    ours = run_child("screen", folder)
    ours_dps = ours["docs"] / ours["warm"]
    print(f"corpus: {folder} ({ours['docs']} documents compared, {ours['candidates']} candidate pairs)")
    print(f"{'approach':58} {'seconds':>8} {'docs/s':>9} {'peak MB':>8} {'ratio':>7}")
    print(
        f"{'lower bound: read + decode + one pass over shingle hashes':58} {lower['total']:8.2f} "
        f"{lower['docs'] / lower['total']:9.0f} {'':>8} {'':>7}"
    )
    print(f"{'neardup screen, end to end from files, cold':58} {ours['cold']:8.2f} {ours['docs'] / ours['cold']:9.0f} {ours['peak_mb']:8.0f}")
    print(
        f"{'neardup screen, end to end from files, warm':58} {ours['warm']:8.2f} {ours_dps:9.0f} {'':>8} "
        f"{ours['warm'] / lower['total']:6.1f}x lower bound"
    )
    print(
        f"{'  the same, without writing normalized/ (--no-normalized)':58} {ours['warm_no_normalized']:8.2f} "
        f"{ours['docs'] / ours['warm_no_normalized']:9.0f} {'':>8} {ours['warm_no_normalized'] / lower['total']:6.1f}x lower bound"
    )
    if not args.skip_baselines:
        for mode, label in (
            ("seed", f"seed prototype (salted BLAKE2b, first {args.baseline_docs} docs)"),
            ("datasketch", f"datasketch MinHash.update() per shingle (first {args.baseline_docs})"),
        ):
            res = run_child(mode, folder, args.baseline_docs)
            dps = res["docs"] / res["seconds"]
            print(f"{label:58} {res['seconds']:8.2f} {dps:9.1f} {res['peak_mb']:8.0f} {ours_dps / dps:6.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
