"""How long writing a screen's outputs takes, part by part.

    python bench/bench_outputs.py                              # bench/corpora/zh_10000_7
    python bench/bench_outputs.py --folder bench/corpora/zh_100000_7 --repeat 1

Screens the folder once in memory (no outputs), then times, on that same outcome, each part of
``tasks.screen.write_screen_outputs``:

- ``manifest.csv`` bytes (``outputs.manifest_rows`` + ``outputs.csv_bytes``);
- ``candidates.csv`` bytes (``outputs.candidate_rows`` + ``outputs.csv_bytes``);
- ``session.record_run`` into a fresh ``session.sqlite`` (open and close not counted);
- the ``normalized/`` folder (``outputs.write_normalized`` into a fresh folder, then the folder
  synced as staging does);
- the whole call, with and without ``normalized/`` (into a fresh output folder each time).

Each part runs ``--repeat`` times (after an ``os.sync()``); the table shows the fastest and the
median in seconds. It prints the numbers of the code as it is now; keep old tables to compare. The
corpus folder is only read. Output folders are made under ``--tmp`` (default: the system temp
folder) and all deleted at the end. Timings on a shared machine are noisy, and creating many small
files depends on the disk and on what else writes to it: compare medians of runs made together.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))


def _timed(fn: Callable[[Path], object], repeat: int, root: Path, pause: float) -> list[float]:
    times = []
    for _ in range(repeat):
        tmp = Path(tempfile.mkdtemp(dir=root))
        if hasattr(os, "sync"):
            os.sync()  # earlier parts' dirty pages are not this part's cost
        time.sleep(pause)
        t = time.perf_counter()
        fn(tmp)
        times.append(time.perf_counter() - t)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=HERE / "corpora" / "zh_10000_7")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tmp", type=Path, default=None, help="where to make output folders")
    parser.add_argument("--skip-normalized", action="store_true", help="do not time normalized/")
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds to wait after the sync before each timing (lets the disk settle)")  # fmt: skip
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        print(f"no corpus at {args.folder}; make one with bench/make_corpus.py", file=sys.stderr)
        return 2

    from neardup_gui.io import outputs
    from neardup_gui.io.session import ReviewSession
    from neardup_gui.tasks import screen_folder
    from neardup_gui.tasks.screen import _normalized_skipped, write_screen_outputs

    t = time.perf_counter()
    outcome = screen_folder(args.folder)
    screen_s = time.perf_counter() - t
    docs, cands = outcome.documents, outcome.candidates
    by_id = outcome.documents_by_id
    normalized_ids = [
        d.doc_id for d in docs if (d.usable or d.status == "no_shingles") and d.doc_id in outcome.texts
    ]
    print(f"{args.folder}: {len(docs)} files, {len(cands)} candidates, "
          f"{len(normalized_ids)} normalized texts; screened in memory in {screen_s:.1f} s")  # fmt: skip

    def manifest(_: Path) -> None:
        outputs.csv_bytes(outputs.MANIFEST_COLUMNS, outputs.manifest_rows(docs))

    def candidates(_: Path) -> None:
        outputs.csv_bytes(outputs.CANDIDATE_COLUMNS, outputs.candidate_rows(cands, by_id))

    def record_run(tmp: Path) -> None:
        session = ReviewSession.open(tmp / "session.sqlite")
        try:
            start = time.perf_counter()
            session.record_run(outcome.run, docs, cands)
            record_run.seconds.append(time.perf_counter() - start)  # type: ignore[attr-defined]
        finally:
            session.close()

    record_run.seconds = []  # type: ignore[attr-defined]

    def normalized(tmp: Path) -> None:
        outputs.write_normalized(tmp / "normalized", outcome.texts, normalized_ids, outcome.params.normalize)
        outputs._fsync_dir(tmp / "normalized")

    def whole(tmp: Path) -> None:
        write_screen_outputs(outcome, tmp / "out")

    def whole_without(tmp: Path) -> None:
        write_screen_outputs(outcome, tmp / "out", _normalized_skipped)

    parts: list[tuple[str, Callable[[Path], object]]] = [
        ("manifest.csv bytes", manifest),
        ("candidates.csv bytes", candidates),
        ("session.record_run", record_run),
    ]
    if not args.skip_normalized:
        parts.append(("normalized/ folder", normalized))
        parts.append(("whole write_screen_outputs", whole))
    parts.append(("whole, without normalized/", whole_without))

    print(f"\n| part | best s | median s |  (repeat {args.repeat})")
    print("| --- | ---: | ---: |")
    # Output folders are deleted only at the end: on ext4 (at least), deleting thousands of files
    # slows the creation of the next thousands for seconds, which would be charged to the wrong part.
    root = Path(tempfile.mkdtemp(prefix="bench_outputs_", dir=args.tmp))
    try:
        for name, fn in parts:
            times = _timed(fn, args.repeat, root, args.pause)
            if fn is record_run:
                times = record_run.seconds  # type: ignore[attr-defined]
            print(f"| {name} | {min(times):.3f} | {statistics.median(times):.3f} |", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
