"""End-to-end screening speed against baselines measured in the same run.

    python bench/bench_screen.py --docs 10000            # generate (once) and screen a 10k corpus
    python bench/bench_screen.py --docs 100000 --baseline-docs 500

Prints, for the same documents:
- the lower bound: read + decode every file, plus one pass over every shingle hash;
- the engine from files, warm, no outputs (read, hash, decode, normalize, shingle, sign, LSH and the
  containment index, verify with aligned passages and flags, the sources checked again), with the
  time of each stage and the peak memory up to then, and its ratio to the lower bound;
- ``screen_folder`` with outputs: cold (first run in a fresh process, numba loading included), warm
  without and with the per-document ``normalized/`` files (creating thousands of small files is slow);
- an incremental rescan: the corpus is copied, screened into a workspace (writing the prepare cache),
  1 % of its files get a sentence appended, and it is screened again, once reading every file
  (``reread``) and once taking unchanged files over unread; best of three each (each from a copy
  of the same workspace), against the best of two full screens; then the same rescan into a
  workspace whose screen wrote ``normalized/``, writing it again as the window does, best of two,
  against the warm screen with ``normalized/`` (``--skip-rescan`` to skip);
- the seed's pure-Python prototype (64 salted BLAKE2b hashes per shingle) and datasketch's
  ``MinHash.update()`` per shingle, on the first ``--baseline-docs`` documents (they are too slow for
  the whole corpus), as docs/s; the ratios compare docs/s.

Each approach runs in its own subprocess so peak memory is its own; the screens with outputs and
the rescans, several to a process, each report their own peak (Linux: the peak is reset before
each, ``/proc/self/clear_refs``). Timings on a shared machine are
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


class StageClock:
    """A Progress that notes when each stage is first reported (stage durations of one run)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.first: dict[str, float] = {}

    def report(self, stage: str, done: int, total: int) -> None:
        self.first.setdefault(stage, time.perf_counter())

    def check(self) -> None:
        pass

    def durations(self, end: float) -> dict[str, float]:
        """Seconds per stage: from its first report to the next stage's (the last to ``end``)."""
        marks = sorted(self.first.items(), key=lambda kv: kv[1])
        out = {}
        for (name, t), nxt in zip(marks, [*(m[1] for m in marks[1:]), end]):
            out[name] = nxt - t
        return out


def _touch_one_percent(folder: Path) -> int:
    """Append a sentence to every 100th file (sorted by path); returns how many changed."""
    paths = sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))
    changed = 0
    for p in paths[::100]:
        data = p.read_bytes()
        try:
            data.decode("utf-8")
            p.write_bytes(data + "\n本段为复核时补充的说明文字。".encode("utf-8"))
        except UnicodeDecodeError:
            p.write_bytes(data + "\n本段为复核时补充的说明文字。".encode("gb18030"))
        changed += 1
    return changed


def _removed_meanwhile(space: Path, limit: float = 120.0) -> None:
    """Wait (untimed) until the helper process has removed the previous normalized/ that a rescan
    left it (the next run's copy of the workspace must not race with it)."""
    deadline = time.perf_counter() + limit
    cache = space / "cache"
    while time.perf_counter() < deadline and any(p.name.startswith(".normalized-") for p in cache.iterdir()):
        time.sleep(0.05)


def _create_files(folder: Path, sizes: list[int]) -> float:
    """Seconds to create one new file of each size in ``folder`` (made here), one after another,
    as ``io.outputs`` writes ``normalized/`` (open, one write, close); the time of the disk alone."""
    folder.mkdir()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    payload = "正文".encode("utf-8") * (max(sizes, default=0) // 6 + 1)
    t = time.perf_counter()
    for i, size in enumerate(sizes):
        fd = os.open(folder / f"d{i:016x}.txt", flags, 0o666)
        try:
            os.write(fd, payload[:size])
        finally:
            os.close(fd)
    return time.perf_counter() - t


def _reset_peak() -> None:
    """Start this process's peak resident memory again from what is resident now (Linux)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _peak_mb() -> float | None:
    """This process's peak resident memory since the last ``_reset_peak`` (Linux), in MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _child(mode: str, folder: str, limit: int) -> dict:
    """Runs inside a subprocess; returns timings and peak RSS."""
    import resource

    out: dict = {}
    if mode == "engine":  # no outputs: the engine alone, its stages and its memory
        from neardup_gui.core.records import ScreenParams
        from neardup_gui.tasks import screen_folder

        params = ScreenParams()
        t = time.perf_counter()
        screen_folder(folder, params, verify_helper=True, read_helper=True)  # cold: imports, numba loading, first touch of the files
        out["cold"] = time.perf_counter() - t
        clock = StageClock()
        outcome = screen_folder(folder, params, progress=clock, verify_helper=True, read_helper=True)
        end = time.perf_counter()
        out["engine"] = end - clock.start
        out["stages"] = clock.durations(end)
        out["docs"] = outcome.run.counts.get("files_ok", 0)
        out["candidates"] = len(outcome.candidates)
    elif mode == "outputs":  # screen_folder writing a workspace, and an incremental rescan
        from neardup_gui.core.records import ScreenParams
        from neardup_gui.tasks import screen_folder

        import shutil
        import tempfile

        params = ScreenParams()
        with tempfile.TemporaryDirectory() as tmp:
            for label, with_normalized in (("cold", False), ("warm_no_normalized", False), ("warm", True)):
                _reset_peak()  # each screen's own peak (this process ran others before)
                t = time.perf_counter()
                screen_folder(folder, params, out_dir=Path(tmp) / label, with_normalized=with_normalized, use_cache=False,
                              verify_helper=True, read_helper=True)
                out[label] = time.perf_counter() - t
                out[f"peak_{label}"] = _peak_mb()
            if limit >= 0:  # incremental rescan on a copy with 1 % of the files changed
                from neardup_gui.io.corpus import SETTLE_NS

                copy = Path(tmp) / "copy"
                shutil.copytree(folder, copy)
                # Files written this recently are read again on the next screen whatever their
                # stamp (a write in the same clock tick could hide); an archive is older than that.
                time.sleep(SETTLE_NS / 1e9 + 0.1)
                # Best of two full screens and of three rescans each: single runs on a shared
                # machine vary by a third, and the ratio is what this row is for.
                fulls = []
                for name in ("ws_other", "ws"):
                    t = time.perf_counter()
                    screen_folder(copy, params, out_dir=Path(tmp) / name, with_normalized=False, verify_helper=True, read_helper=True)
                    fulls.append(time.perf_counter() - t)
                ws = Path(tmp) / "ws"
                out["full_with_cache_write"] = min(fulls)
                # As the window screens by default: normalized/ written, then linked again by a rescan.
                ws_n = Path(tmp) / "ws_normalized"
                screen_folder(copy, params, out_dir=ws_n, with_normalized=True, verify_helper=True, read_helper=True)
                out["changed_files"] = _touch_one_percent(copy)
                # Each rescan starts from the same workspace (cache, session and outputs of the
                # screen before): a session with the earlier rescans in it would be another start.
                starts = {}
                for space in (ws, ws_n):
                    starts[space] = Path(tmp) / f"{space.name}.start"
                    shutil.copytree(space, starts[space])
                for key, reread, space in (("rescan_reread", True, ws), ("rescan_1pct", False, ws),
                                           ("rescan_1pct_normalized", False, ws_n)):  # fmt: skip
                    times, peaks = [], []
                    for _ in range(3 if space is ws else 2):
                        shutil.rmtree(space)
                        shutil.copytree(starts[space], space)
                        _reset_peak()
                        t = time.perf_counter()
                        again = screen_folder(copy, params, out_dir=space, with_normalized=space is ws_n, reread=reread,
                                              verify_helper=True, read_helper=True)  # fmt: skip
                        times.append(time.perf_counter() - t)
                        peaks.append(_peak_mb())
                        counts = again.run.counts
                        del again  # not held through the next run (its peak would count it)
                        _removed_meanwhile(space)
                    out[key] = min(times)
                    out[f"peak_{key}"] = max((p for p in peaks if p is not None), default=None)
                    if key == "rescan_1pct":
                        out["rescan_reused"] = counts.get("prepared_from_cache", 0)
                        out["rescan_pairs_reused"] = counts.get("pairs_from_previous_run", 0)
                        out["rescan_not_read"] = counts.get("unchanged_files_not_read", 0)
            # The disk's share of normalized/: as many files as the warm screen wrote there, of the
            # same sizes, created alone in the same place, one after another as the writer does
            # (last: its writing back must not slow the runs above).
            sizes = [p.stat().st_size for p in (Path(tmp) / "warm" / "normalized").iterdir() if p.suffix == ".txt"]
            out["normalized_files"] = len(sizes)
            out["create_files"] = _create_files(Path(tmp) / "disk", sizes)
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


def _prime_page_cache(folder: Path) -> float:
    """Read every file of ``folder`` once (the bytes are dropped); returns the seconds it took."""
    t = time.perf_counter()
    stack = [str(folder)]
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    with open(entry.path, "rb", buffering=0) as fh:
                        while fh.read(1 << 20):
                            pass
    return time.perf_counter() - t


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
    parser.add_argument("--skip-rescan", action="store_true", help="no incremental rescan (it copies the corpus)")
    args = parser.parse_args()

    folder = ensure_corpus(args.docs, args.seed, args.corpora)
    primed = [_prime_page_cache(folder)]
    lower = run_child("lower_bound", folder)
    primed.append(_prime_page_cache(folder))
    ours = run_child("engine", folder)
    primed.append(_prime_page_cache(folder))
    outs = run_child("outputs", folder, -1 if args.skip_rescan else 0)
    docs = ours["docs"]
    ours_dps = docs / ours["engine"]
    lb = lower["total"]
    print(f"corpus: {folder} ({docs} documents compared, {ours['candidates']} candidate pairs)")
    # Before each approach every file is read once, so that none starts from the disk (some virtual
    # machines evict idle page cache within seconds); a slow pass shows the disk was hit.
    print("page cache primed before each approach: " + ", ".join(f"{t:.2f} s" for t in primed))
    print(f"{'approach':62} {'seconds':>8} {'docs/s':>9} {'peak MB':>8} {'ratio':>7}")
    row = "{:62} {:8.2f} {:9.0f} {:>8} {:>7}"
    print(row.format("lower bound: read + decode + one pass over shingle hashes", lb, lower["docs"] / lb, "", ""))
    print(row.format("engine from files, cold process, no outputs", ours["cold"], docs / ours["cold"], "", ""))
    print(row.format("engine from files, warm, no outputs (read .. verify, flags)", ours["engine"], ours_dps,
                     f"{ours['peak_mb']:.0f}", f"{ours['engine'] / lb:.1f}x"))  # fmt: skip
    names = {"flags": "sources hashed again"}
    for stage, secs in ours["stages"].items():
        print(f"    {names.get(stage, stage):58} {secs:8.2f}")
    def peak(key: str) -> str:  # a run's own peak, where the system says it
        value = outs.get(f"peak_{key}")
        return f"{value:.0f}" if value is not None else ""

    print(row.format("screen_folder with outputs, cold, without normalized/", outs["cold"], docs / outs["cold"],
                     peak("cold"), ""))  # fmt: skip
    print(row.format("screen_folder with outputs, warm, without normalized/", outs["warm_no_normalized"],
                     docs / outs["warm_no_normalized"], peak("warm_no_normalized"),
                     f"{outs['warm_no_normalized'] / lb:.1f}x"))  # fmt: skip
    print(row.format("screen_folder with outputs, warm, with normalized/", outs["warm"], docs / outs["warm"],
                     peak("warm"), f"{outs['warm'] / lb:.1f}x"))  # fmt: skip
    if "create_files" in outs:  # what normalized/ costs, against what the disk takes to create its files
        label = f"    its {outs['normalized_files']} files created alone, one by one (the disk)"
        print(row.format(label, outs["create_files"], outs["normalized_files"] / max(outs["create_files"], 1e-9), "",
                         f"+{outs['warm'] - outs['warm_no_normalized']:.2f} s"))  # fmt: skip
    if "rescan_1pct" in outs:
        print(row.format("first screen of a copy, writing the prepare cache", outs["full_with_cache_write"],
                         docs / outs["full_with_cache_write"], "", ""))  # fmt: skip
        full = outs["full_with_cache_write"]
        label = f"rescan, {outs['changed_files']} files changed, every file read (--reread)"
        print(row.format(label, outs["rescan_reread"], docs / outs["rescan_reread"], peak("rescan_reread"),
                         f"{outs['rescan_reread'] / full:.2f} of full"))  # fmt: skip
        label = (f"rescan, {outs['changed_files']} files changed ({outs['rescan_not_read']} not read, "
                 f"{outs['rescan_reused']} docs, {outs['rescan_pairs_reused']} pairs reused)")  # fmt: skip
        print(row.format(label, outs["rescan_1pct"], docs / outs["rescan_1pct"], peak("rescan_1pct"),
                         f"{outs['rescan_1pct'] / full:.2f} of full"))  # fmt: skip
        label = f"the same rescan writing normalized/ (as the window does; against {outs['warm']:.2f} s)"
        print(row.format(label, outs["rescan_1pct_normalized"], docs / outs["rescan_1pct_normalized"],
                         peak("rescan_1pct_normalized"), f"{outs['rescan_1pct_normalized'] / outs['warm']:.2f} of full"))  # fmt: skip
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
