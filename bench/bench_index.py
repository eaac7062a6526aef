"""Time the candidate indexes on a real folder: LSH bands and the containment index, compiled and numpy.

    python bench/bench_index.py                        # bench/corpora/zh_10000_7 (generated once)
    python bench/bench_index.py --docs 100000          # bench/corpora/zh_100000_7
    python bench/bench_index.py --folder some/folder   # any folder of texts

Reads and prepares the folder once with the engine's own stages (``scan_folder``, ``prepare``), then
times, on the representatives ``propose`` would index (identical texts once):

- ``band_keys`` and ``lsh_pairs`` with the compiled kernels (band keys, the radix sort of each
  band) against the numpy path, measured in the same run;
- ``containment_pairs`` compiled (radix sort of the postings, probe rounds, exact counts) against
  its numpy rounds;
- the stable sort of the containment index's keys alone: ``sort_in_place`` against
  ``np.argsort(kind="stable")``;
- the containment index after 1 % of the texts were edited: built again against brought up to
  date from the first build's memo (what a rescan does), with the same pairs.

Each line prints the best of ``--repeat`` wall-clock runs (one thread each: the screen runs LSH and
the containment index side by side) and the ratio numpy / compiled, and checks that both paths give
the same result.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))


def build_input(folder: Path) -> dict:
    """Read and prepare the folder; returns the representatives' signatures and samples."""
    import numpy as np

    from neardup_gui.core.methods import exact
    from neardup_gui.core.pipeline import banding, prepare
    from neardup_gui.core.records import ScreenParams
    from neardup_gui.io.corpus import scan_folder

    params = ScreenParams()
    t = time.perf_counter()
    loaded = scan_folder(folder, workers=2)
    prepared = prepare([d.doc_id for d in loaded.usable()], loaded.texts, params)
    reps = np.asarray([g[0] for g in exact.group_by_digest(prepared.digests)], dtype=np.int64)
    samples = [prepared.samples[r] for r in reps.tolist()]
    bands, rows = banding(params)
    print(f"input: {len(prepared)} documents, {reps.size} distinct texts, "
          f"{sum(s.size for s in samples):,} containment samples, built in {time.perf_counter() - t:.1f} s",
          file=sys.stderr)  # fmt: skip
    digests = [prepared.digests[r] for r in reps.tolist()]
    return {"params": params, "sigs": prepared.signatures, "subset": reps, "samples": samples, "bands": bands, "rows": rows,
            "digests": digests}  # fmt: skip


def _best(fn, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def _same(a: object, b: object) -> bool:
    import numpy as np

    if isinstance(a, tuple):
        return all(_same(x, y) for x, y in zip(a, b))
    return bool(np.array_equal(a, b)) if isinstance(a, np.ndarray) else a == b


def measure(data: dict, repeat: int) -> list[tuple[str, float, float, bool]]:
    """(what, numpy seconds, compiled seconds, same result) per line."""
    import numpy as np

    from neardup_gui.core.methods import containment, minhash_lsh, sorting

    p, sigs, subset, samples = data["params"], data["sigs"], data["subset"], data["samples"]
    bands, rows = data["bands"], data["rows"]

    def paths(compiled: bool) -> None:
        minhash_lsh._COMPILED_MIN_DOCS = 0 if compiled else 10**12
        sorting._RADIX_MIN = 0 if compiled else 10**12
        containment._COMPILED_MIN_ENTRIES = 0 if compiled else 10**12

    keys = np.concatenate(samples).astype(np.uint64)
    runs = {
        "band keys": lambda: minhash_lsh.band_keys(sigs, bands, rows, subset),
        "LSH pairs (band keys, sorts, pairs)": lambda: minhash_lsh.lsh_pairs(sigs, bands, rows, p.bucket_cap, subset=subset),
        "containment index": lambda: containment.containment_pairs(samples, p.containment_threshold, 1, p.bucket_cap),
        f"stable sort of its {keys.size:,} keys": lambda: sorting.sort_in_place(keys.copy(), np.int32),
    }
    out = []
    for name, fn in runs.items():
        paths(True)
        fn()  # loads the compiled code
        compiled_s, compiled_result = _best(fn, repeat)
        paths(False)
        numpy_s, numpy_result = _best(fn, repeat)
        out.append((name, numpy_s, compiled_s, _same(compiled_result, numpy_result)))
    paths(True)
    return out


def measure_update(data: dict, repeat: int) -> tuple[float, float, bool]:
    """The containment index after 1 % of the texts were edited (every 100th loses a tenth of its
    samples and gains five new ones): (built again s, brought up to date from the first build's
    memo s, same result)."""
    import numpy as np

    from neardup_gui.core.methods import containment

    p, samples, digests = data["params"], data["samples"], data["digests"]
    first = containment.containment_index(samples, digests, p.containment_threshold, p.bucket_cap)
    rng = np.random.default_rng(1)
    step = np.uint64(p.containment_sample)
    edited, new_digests = list(samples), list(digests)
    for i in range(0, len(samples), 100):
        fresh = rng.integers(0, 2**63, 5, dtype=np.uint64) // step * step  # in the sampling class
        edited[i] = np.unique(np.concatenate([np.delete(samples[i], np.s_[::10]), fresh]))
        new_digests[i] = b"edited" + i.to_bytes(10, "little")

    def build() -> object:
        return containment.containment_index(edited, new_digests, p.containment_threshold, p.bucket_cap)

    def update() -> object:
        return containment.containment_index(edited, new_digests, p.containment_threshold, p.bucket_cap, first)

    update()  # loads the compiled lookup
    full_s, full = _best(build, repeat)
    update_s, updated = _best(update, repeat)
    same = (full.pairs.tolist(), full.ignored, full.usable.tolist()) == (
        updated.pairs.tolist(), updated.ignored, updated.usable.tolist())  # fmt: skip
    return full_s, update_s, same and not updated.rebuilt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--folder", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = args.folder
    if folder is None:
        from bench_screen import ensure_corpus

        folder = ensure_corpus(args.docs, args.seed, HERE / "corpora")
    data = build_input(folder)
    lines = measure(data, args.repeat)
    print(f"{'stage':48s} {'numpy s':>9s} {'compiled s':>11s} {'ratio':>7s}  same result")
    for name, numpy_s, compiled_s, same in lines:
        print(f"{name:48s} {numpy_s:9.3f} {compiled_s:11.3f} {numpy_s / compiled_s:6.1f}x  {'yes' if same else 'NO'}")
    full_s, update_s, same = measure_update(data, args.repeat)
    print(f"\n{'containment index, 1 % of the texts edited':48s} {'built s':>9s} {'updated s':>11s}")
    print(f"{'':48s} {full_s:9.3f} {update_s:11.3f} {full_s / update_s:6.1f}x  {'yes' if same else 'NO'}")
    if not same or not all(same for *_, same in lines):
        sys.exit(1)


if __name__ == "__main__":
    main()
