"""How true the progress bar's time left is: fixed stage shares against the engine's estimates.

Screens folders of different shapes into a workspace (as the window does: outputs, ``normalized/``,
both helpers allowed) with a progress that records every report and every estimate the engine
gives (``core.estimate.plan_stages``), untimed by throttling. Then replays the records through
both ways of saying the time left, at each report as the window would have shown it:

- *fixed*: the stages' fixed shares (``core.progress.overall_fraction``), the time left
  extrapolated from the elapsed time (the window before session 36);
- *estimated*: ``core.estimate.ScreenEstimate`` (the window now).

and prints, at a quarter, half and three quarters of the real run, the time left each said over
the real time left (1.00 is exact; 3.00 says three times too long), and each stage's real time
beside its last estimate (the estimates' scale is the bench machine's; only ratios matter).

    .venv/bin/python bench/bench_progress.py                        # the default folders (below)
    .venv/bin/python bench/bench_progress.py --folder DIR [--include '*.pdf']

Default folders, under bench/corpora (made by the other benches; missing ones are skipped):
10,000 articles (``bench_screen.py``), the same folder screened again after 1 % changed, 2,000
PDFs (``bench_formats.py``) and 200 manuscripts kept as 20 drafts each (``bench_long.py
--manuscripts 200 --chapters 14 --drafts 20``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from neardup_gui.core.estimate import ScreenEstimate  # noqa: E402
from neardup_gui.core.progress import STAGES, overall_fraction  # noqa: E402
from neardup_gui.core.records import ScreenParams  # noqa: E402
from neardup_gui.tasks import screen_folder  # noqa: E402

from bench_screen import _touch_one_percent  # noqa: E402  (a sentence appended to every 100th file)

CORPORA = HERE / "corpora"
POINTS = (0.25, 0.5, 0.75)


class Recorder:
    """Records each report and each estimate with its time (a progress that listens)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.events: list[tuple[float, str, object]] = []

    def report(self, stage: str, done: int, total: int) -> None:
        self.events.append((time.perf_counter() - self.start, stage, (done, total)))

    def plan(self, seconds: dict[str, float]) -> None:
        self.events.append((time.perf_counter() - self.start, "plan", dict(seconds)))

    def check(self) -> None:
        pass


def fixed_left(stage: str, done: int, total: int, elapsed: float) -> float | None:
    """The time left as the window said it before: fixed shares, extrapolated."""
    share = overall_fraction(stage, done, total)
    return elapsed * (1 - share) / share if share >= 0.03 and elapsed > 0.5 else None


def replay(events: list[tuple[float, str, object]]) -> tuple[list[tuple[float, float | None]], ...]:
    """(time, time left said) at each report, for the fixed shares and for the estimates; and the
    last estimate of each stage."""
    estimate = ScreenEstimate()
    fixed: list[tuple[float, float | None]] = []
    estimated: list[tuple[float, float | None]] = []
    for t, stage, what in events:
        if stage == "plan":
            estimate.plan(what)  # type: ignore[arg-type]
            continue
        done, total = what  # type: ignore[misc]
        estimate.report(stage, done, total)
        fixed.append((t, fixed_left(stage, done, total, t)))
        estimated.append((t, estimate.seconds_left(t)))
    return fixed, estimated, estimate.seconds


def said_at(series: list[tuple[float, float | None]], t: float) -> float | None:
    """The time left last said at or before ``t``."""
    out = None
    for at, left in series:
        if at > t:
            break
        out = left
    return out


def stage_times(events: list[tuple[float, str, object]], end: float) -> dict[str, float]:
    """Seconds from each stage's first report to the next stage's (the last to ``end``)."""
    first: dict[str, float] = {}
    for t, stage, _what in events:
        if stage != "plan":
            first.setdefault(stage, t)
    marks = sorted(first.items(), key=lambda kv: kv[1])
    return {name: (nxt - t) for (name, t), nxt in zip(marks, [*(m[1] for m in marks[1:]), end])}


def run(label: str, folder: Path, params: ScreenParams, workspace: Path) -> None:
    rec = Recorder()
    screen_folder(folder, params, out_dir=workspace, progress=rec, with_normalized=True, verify_helper=True,
                  read_helper=True)  # fmt: skip
    end = time.perf_counter() - rec.start
    fixed, estimated, seconds = replay(rec.events)
    cells = []
    for p in POINTS:
        t = p * end
        real = end - t
        for series in (fixed, estimated):
            left = said_at(series, t)
            cells.append("   -  " if left is None else f"{left / real:6.2f}")
    print(f"{label:<34} {end:7.2f} s  " + "  ".join(f"{cells[2 * i]} {cells[2 * i + 1]}" for i in range(len(POINTS))))
    real = stage_times(rec.events, end)
    total_est = sum(seconds.values()) or 1.0
    print("    stage: real s (share) / estimated share: " + ", ".join(
        f"{name} {real.get(name, 0.0):.2f} ({real.get(name, 0.0) / end:.0%}) / {seconds[name] / total_est:.0%}"
        for name, _w in STAGES if name in real or seconds[name] > 0.005 * total_est
    ))  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", type=Path, action="append", help="a folder to screen (repeatable)")
    ap.add_argument("--include", default=None, help="include pattern for --folder (e.g. '*.pdf')")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        # Kernels compiled and loaded once first: a first screen in a fresh process pays that.
        warm = base / "warm"
        warm.mkdir()
        for n in range(3):
            (warm / f"{n}.txt").write_text("今天天气很好，我们去公园散步。" * (n + 3), encoding="utf-8")
        screen_folder(warm, ScreenParams())
        print("time left said / real time left, at 25 %, 50 % and 75 % of the run: fixed shares, estimated")
        print(f"{'folder':<34} {'run':>9}  {'25 %':>13}  {'50 %':>13}  {'75 %':>13}")
        if args.folder:
            params = ScreenParams(include=(args.include,)) if args.include else ScreenParams()
            for i, folder in enumerate(args.folder):
                run(folder.name, folder, params, base / f"ws{i}")
            return 0
        articles = CORPORA / "zh_10000_7"
        if articles.is_dir():
            copy = base / "articles"
            shutil.copytree(articles, copy)
            time.sleep(2.1)  # past the time within which a file counts as just written
            run("10,000 articles", copy, ScreenParams(), base / "ws_articles")
            _touch_one_percent(copy)
            run("the same, 1 % changed (rescan)", copy, ScreenParams(), base / "ws_articles")
        pdfs = CORPORA / "formats_2000" / "pdf"
        if pdfs.is_dir():
            run("2,000 PDFs", pdfs, ScreenParams(include=("*.pdf",)), base / "ws_pdf")
        drafts = CORPORA / "drafts_200x14x20"
        if drafts.is_dir():
            run("200 manuscripts x 20 drafts", drafts, ScreenParams(), base / "ws_drafts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
