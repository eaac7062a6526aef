"""How long exporting a screened workspace takes: the signed workbook, and the CSV files.

    python bench/bench_export.py                                # bench/corpora/zh_10000_7
    python bench/bench_export.py --folder bench/corpora/zh_100000_7 --repeat 1

Screens the folder once into a temporary workspace, then, on that workspace, times:

- reading the paired texts again for the excerpts (``tasks.read_texts``);
- ``io.workbook.export_workbook``: writing the rows (stage ``workbook``), then reading the written
  file back to check its digests (stage ``workbook_check``), and the whole call;
- the baseline, in the same run: the same tables (``build_frames``) written by pandas'
  ``DataFrame.to_excel`` with openpyxl, one sheet each: no cell sanitising, styles, row heights,
  digests or check (what a plain export would cost);
- the three CSV files (``tasks.export_review`` with ``csv_dir``, texts read again included).

Each runs ``--repeat`` times; the table shows the fastest, in seconds, and the ratio of the
workbook to the baseline. Timings on a shared machine are noisy: compare ratios from one run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))


class _Stages:
    """A progress that notes when each stage is first reported."""

    def __init__(self) -> None:
        self.first: dict[str, float] = {}

    def report(self, stage: str, done: int, total: int) -> None:
        self.first.setdefault(stage, time.perf_counter())

    def check(self) -> None:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, default=HERE / "corpora" / "zh_10000_7")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    if not args.folder.is_dir():
        print(f"no corpus at {args.folder}: make one with bench/bench_screen.py --docs 10000", file=sys.stderr)
        return 2

    import pandas as pd

    from neardup_gui.core.records import ScreenParams
    from neardup_gui.io.session import ReviewSession
    from neardup_gui.io.workbook import build_frames, export_workbook
    from neardup_gui.tasks import SESSION_FILE, export_review, read_texts, screen_folder

    rows: dict[str, list[float]] = {}

    def note(name: str, seconds: float) -> None:
        rows.setdefault(name, []).append(seconds)

    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        t = time.perf_counter()
        screen_folder(args.folder, ScreenParams(), out_dir=ws, verify_helper=True, read_helper=True)
        print(f"screened {args.folder} into a workspace in {time.perf_counter() - t:.1f} s")
        with ReviewSession.open(ws / SESSION_FILE, read_only=True) as session:
            run_id = session.latest_run_id()
            documents, candidates = session.documents(run_id), session.candidates(run_id)
            wanted = {doc_id for c in candidates for doc_id in c.key}
            for n in range(args.repeat):
                t = time.perf_counter()
                texts, _ = read_texts(str(args.folder), [d for d in documents if d.doc_id in wanted])
                note("paired texts read again", time.perf_counter() - t)

                stages = _Stages()
                t = time.perf_counter()
                export_workbook(Path(tmp) / f"w{n}.xlsx", session, signed_by="bench", texts=texts, progress=stages)
                end = time.perf_counter()
                note("workbook: rows written", stages.first["workbook_check"] - stages.first["workbook"])
                note("workbook: written file read back and checked", end - stages.first["workbook_check"])
                note("workbook, whole call", end - t)

                t = time.perf_counter()
                frames = build_frames(session, run_id, session.pair_states(run_id), texts, "en")
                with pd.ExcelWriter(Path(tmp) / f"b{n}.xlsx", engine="openpyxl") as writer:
                    for name, frame in frames.items():
                        frame.to_excel(writer, sheet_name=name, index=False)
                note("baseline: the same tables by DataFrame.to_excel", time.perf_counter() - t)

                folder = Path(tmp) / f"csv{n}"
                folder.mkdir()
                t = time.perf_counter()
                export_review(ws, csv_dir=folder)
                note("CSV files (texts read again included)", time.perf_counter() - t)
    print(f"{len(documents):,} files, {len(candidates):,} candidate pairs; fastest of {args.repeat}")
    base = min(rows["baseline: the same tables by DataFrame.to_excel"])
    for name, times in rows.items():
        ratio = f"{min(times) / base:.2f}x" if name.startswith("workbook") else ""
        print(f"{name:<52} {min(times):8.2f} {ratio:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
