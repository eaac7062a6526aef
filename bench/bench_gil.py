"""How long a sleeping "window" thread waits for the GIL beside a busy thread, with and without the
window's heartbeat (``neardup_gui.core.progress.Heartbeat``).

    python bench/bench_gil.py                 # 3 s per case
    python bench/bench_gil.py --seconds 5

A window thread sleeps 1 ms at a time (as an event loop waiting for its next event) and notes how
long each pass really took: the largest of these is the longest the window would have frozen. A
busy thread meanwhile runs loops like the engine's:

- ``python``: pure Python (CPython's switch interval hands the GIL over every 5 ms);
- ``stat every N``: N iterations of Python, then one ``os.stat``, which lets go of the GIL and takes
  it back at once: the waiting thread sees the GIL change hands, never asks for it, and wakes too late
  to take it (CPython issue 7946, the "convoy effect");
- ``csv from a file``: ``csv.DictReader`` over a file on disk (a read every 8 KB), as a rescan reads
  the last ``manifest.csv``.

Each loop runs once as it is (the baseline) and once calling ``give_way()`` per pass while the window
thread beats a held ``Heartbeat``. Printed per case: the window's longest and 99th-percentile pass,
and the busy thread's passes per second, whose ratio to the baseline is what standing aside costs.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from neardup_gui.core.progress import Heartbeat  # noqa: E402


def run_case(loop, seconds: float, heart: Heartbeat | None) -> tuple[float, float, float]:
    """(longest window pass ms, 99th percentile ms, busy passes per second)."""
    stop = threading.Event()
    passes = [0]
    give_way = heart.give_way if heart is not None else (lambda: False)

    def busy() -> None:
        while not stop.is_set():
            loop()
            passes[0] += 1
            give_way()

    if heart is not None:
        heart.hold()
    worker = threading.Thread(target=busy)
    started = time.perf_counter()
    worker.start()
    gaps = []
    last = time.perf_counter()
    end = last + seconds
    while last < end:
        time.sleep(0.001)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
        if heart is not None:
            heart.beat()
    stop.set()
    worker.join()
    wall = time.perf_counter() - started
    if heart is not None:
        heart.release()
    gaps.sort()
    return gaps[-1] * 1000, gaps[int(len(gaps) * 0.99)] * 1000, passes[0] / wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per case and variant")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "manifest.csv"
        with open(manifest, "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([f"column{j}" for j in range(12)])
            for i in range(10_000):
                w.writerow([f"稿件{i:05d}_{j}" for j in range(12)])

        def python() -> None:
            x = 0
            for i in range(1000):
                x += i

        def stat_every(n: int):
            def loop() -> None:
                x = 0
                for i in range(n):
                    x += i
                os.stat(tmp)

            return loop

        def csv_from_file() -> None:
            with open(manifest, encoding="utf-8", newline="") as fh:
                for n, _row in enumerate(csv.DictReader(fh)):
                    if n % 64 == 0:
                        give[0]()

        give = [lambda: False]
        cases = [("python", python), ("stat every 1,000", stat_every(1000)),
                 ("stat every 10,000", stat_every(10_000)), ("csv from a file", csv_from_file)]  # fmt: skip
        row = "{:<20} {:>10} {:>10} {:>12} {:>10} {:>10} {:>12} {:>8}"
        print(row.format("busy loop", "max ms", "p99 ms", "passes/s", "max ms", "p99 ms", "passes/s", "ratio"))
        print(row.format("", "baseline", "", "", "heartbeat", "", "", ""))
        for name, loop in cases:
            give[0] = lambda: False
            base = run_case(loop, args.seconds, None)
            heart = Heartbeat()
            give[0] = heart.give_way  # the csv case gives way inside its pass, as the app's loops do
            beat = run_case(loop, args.seconds, heart)
            print(row.format(name, f"{base[0]:.1f}", f"{base[1]:.1f}", f"{base[2]:,.0f}", f"{beat[0]:.1f}",
                             f"{beat[1]:.1f}", f"{beat[2]:,.0f}", f"{beat[2] / base[2]:.2f}x"))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
