"""Window speed at scale (issue #8): the candidate table at 1,000,000 rows, a 100k-character pair in
the diff view, and the event loop while a real screen runs in the worker, while its result is shown,
while its workspace is opened again, and while the folder is screened again into that workspace.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_gui.py
    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_gui.py --rows 200000 --no-screen
    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_gui.py --screen-only          # 10,000 files
    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_gui.py --screen-only --big    # 100,000 files
    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_gui.py --screen-only --big --stacks late.txt
    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_gui.py --workspace WS [--labels L.csv] [--stacks F]

``--workspace WS``: only an editor's actions on a screened workspace (sort the pairs by each column,
type a filter, step through pairs, the Groups, Files (sorted by each column), History and
Boilerplate tabs, and with ``--labels`` an evaluation, which writes its CSVs into WS): the
largest event-loop gap of each.

``--stacks FILE``: whenever the window's 10 ms timer is ``--late`` ms overdue during the screen
measures (or the actions), every thread's stack is written to FILE, again every ``--late`` ms while
it stays late (``faulthandler``'s watchdog, which needs no
GIL), followed by a ``GAP`` line with the gap, the engine's stage and the phase: a thread holding
the GIL in one long call shows there (how session 31 found the 100,000-row calls mapped in C).

Everything runs through the real widgets offscreen: ``CandidateView`` (model, filter proxy, table),
``DiffView`` and ``MainWindow`` with its ``ScreenRunner``. Times include a forced repaint
(``grab``) so drawing is counted. The script reports; it asserts nothing.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QElapsedTimer, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from bench_screen import _peak_mb, _reset_peak  # noqa: E402  (this folder is on sys.path)
from neardup_gui.core.diffspans import pair_diff  # noqa: E402
from neardup_gui.core.flags.annotate import FLAG_ORDER  # noqa: E402
from neardup_gui.core.records import (  # noqa: E402
    REVIEW_PENDING,
    REVIEW_STATUSES,
    Candidate,
    Document,
    NormalizeOptions,
)
from neardup_gui.ui.candidate_model import CandidateModel, Column  # noqa: E402
from neardup_gui.ui.candidate_view import CandidateView  # noqa: E402
from neardup_gui.ui.diff_view import DiffView, PairRequest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FOLDER = ROOT / "bench" / "corpora" / "zh_10000_7"
BIG_FOLDER = ROOT / "bench" / "corpora" / "zh_100000_7"
_FOLDERS = ("新闻稿", "通知公告", "政策解读", "会议纪要", "folder_a", "folder_b", "press", "reports")
# A run of common Chinese characters; bench texts are drawn from it (statistics, not meaning).
_CHARS = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说"
    "产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点"
    "从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原"
    "又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革"
)
_PUNCT = "，，，，。。、；：“”"


def _app() -> QApplication:
    app = QApplication.instance()
    return app if isinstance(app, QApplication) else QApplication(sys.argv[:1])


def _drain() -> None:
    app = _app()
    app.processEvents()
    app.processEvents()


# -- synthetic data -----------------------------------------------------------------------------
def make_rows(n_rows: int, n_docs: int, seed: int = 7) -> tuple[list[Candidate], dict[str, Document]]:
    """``n_rows`` candidates over ``n_docs`` documents with realistic paths, scores and flags."""
    rng = random.Random(seed)
    docs: dict[str, Document] = {}
    paths = []
    for i in range(n_docs):
        folder = _FOLDERS[i % len(_FOLDERS)]
        name = f"稿件{i:06d}.txt" if i % 3 else f"doc_{i:06d}.txt"
        path = f"{folder}/{2015 + i % 9}/{name}"
        doc_id = f"d{i:06d}"
        paths.append(path)
        docs[doc_id] = Document(
            doc_id=doc_id, source_id=folder, version="v1", path=path, size=3000 + i % 997, mtime=1.7e9,
            sha256=f"{i:064x}", encoding="utf-8" if i % 12 else "gb18030", chars=1500 + i % 701, status="ok",
        )  # fmt: skip
    ids = list(docs)
    flag_choices = [()] * 6 + [(f,) for f in FLAG_ORDER] + [(FLAG_ORDER[0], FLAG_ORDER[3])]
    rows: list[Candidate] = []
    seen: set[tuple[str, str]] = set()
    while len(rows) < n_rows:
        a, b = rng.randrange(n_docs), rng.randrange(n_docs)
        if a == b:
            continue
        if paths[a] > paths[b]:
            a, b = b, a
        key = (ids[a], ids[b])
        if key in seen:
            continue
        seen.add(key)
        # Four decimals: plenty of ties, as in real runs (exact copies all score 1.0).
        jac = 1.0 if rng.random() < 0.03 else round(rng.betavariate(2, 3) * 0.8 + 0.2, 4)
        cl = min(1.0, round(jac + rng.random() * 0.2, 4))
        cr = min(1.0, round(jac + rng.random() * 0.2, 4))
        rows.append(
            Candidate(
                left=key[0], right=key[1], methods=("minhash",), jaccard=jac, containment_left=cl,
                containment_right=cr, minhash_estimate=None if rng.random() < 0.05 else round(jac, 2),
                shared_shingles=500, shingles_left=900, shingles_right=950, length_ratio=0.95, score=jac,
                flags=rng.choice(flag_choices),
                suggestion=REVIEW_PENDING if rng.random() < 0.9 else rng.choice(REVIEW_STATUSES),
            )
        )  # fmt: skip
    return rows, docs


def make_text(n_chars: int, rng: random.Random) -> str:
    """Chinese-looking text: clauses, punctuation, numbers and a line break every paragraph."""
    parts: list[str] = []
    size = 0
    while size < n_chars:
        clause = "".join(rng.choice(_CHARS) for _ in range(rng.randint(6, 18)))
        if rng.random() < 0.1:
            clause += f"{rng.randint(2, 9999)}万元"
        clause += rng.choice(_PUNCT)
        if rng.random() < 0.06:
            clause += "\n"
        parts.append(clause)
        size += len(clause)
    return "".join(parts)[:n_chars]


def make_pair(n_chars: int, seed: int = 7, edit: float = 0.10) -> tuple[str, str]:
    """A text and a near-duplicate: a share ``edit`` of clauses edited, 2 % dropped, 2 % new ones added."""
    rng = random.Random(seed)
    left = make_text(n_chars, rng)
    clauses = left.split("，")
    out = []
    for clause in clauses:
        r = rng.random()
        if r < 0.02:
            continue
        if r < 0.02 + edit:
            clause = clause[: len(clause) // 2] + "".join(rng.choice(_CHARS) for _ in range(4)) + clause[len(clause) // 2 :]
        elif r < 0.04 + edit:
            out.append(make_text(20, rng))
        out.append(clause)
    return left, "，".join(out)[:n_chars]


def make_revised(n_chars: int, seed: int = 7, rewritten: float = 0.05) -> tuple[str, str]:
    """A text and a revision: a share ``rewritten`` of it replaced in passages of ~1,500 characters
    (a section rewritten), plus the edited copy's clause edits. One diff of such a pair cost its
    length times its differences (0.8 s at 100,000 characters); it is aligned between anchors."""
    rng = random.Random(seed)
    left, right = make_pair(n_chars, seed)
    out = list(right)
    for _ in range(max(1, int(n_chars * rewritten) // 1500)):
        at = rng.randrange(max(1, len(out) - 1500))
        out[at : at + 1500] = make_text(rng.randint(1200, 1800), rng)
    return left, "".join(out)[:n_chars]


_FULL_WIDTH = str.maketrans({str(i): chr(0xFF10 + i) for i in range(10)})


def make_reformatted(n_chars: int, seed: int = 7) -> tuple[str, str]:
    """A text and a reformatted copy: every digit full-width, a line break every 40 characters."""
    left = make_text(n_chars, random.Random(seed))
    wide = left.translate(_FULL_WIDTH)
    return left, "\n".join(wide[i : i + 40] for i in range(0, len(wide), 40))


# -- measurements -------------------------------------------------------------------------------
def timed(action) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def bench_table(n_rows: int, results: list[tuple[str, str, str]]) -> None:
    t0 = time.perf_counter()
    rows, docs = make_rows(n_rows, max(1000, n_rows // 10))
    print(f"[table] built {n_rows:,} candidates in {time.perf_counter() - t0:.1f} s", flush=True)
    model = CandidateModel()
    view = CandidateView(model)
    model.setParent(view)  # deleted with the view, in Qt's order (not at interpreter exit)
    view.resize(1200, 700)
    view.show()
    _drain()

    def reset() -> None:
        model.set_candidates(rows, docs)
        view.table.sortByColumn(Column.JACCARD, Qt.SortOrder.DescendingOrder)
        _drain()
        view.table.viewport().grab()

    results.append((f"load {n_rows:,} rows (reset + default sort + paint)", f"{timed(reset):.3f} s", "—"))
    sort_times = []
    for col in (Column.LEFT, Column.RIGHT, Column.JACCARD, Column.CONTAINMENT_LEFT, Column.FLAGS, Column.STATUS):
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):

            def click(col: Column = col, order: Qt.SortOrder = order) -> None:
                view.table.sortByColumn(col, order)  # what a header click calls
                _drain()
                view.table.viewport().grab()

            t = timed(click)
            sort_times.append(t)
            print(f"[table] sort {col.name:18s} {order.name:16s} {t:.3f} s", flush=True)
    results.append(("sort by a column (worst of 12)", f"{max(sort_times):.3f} s", "< 1 s"))
    results.append(("sort by a column (median)", f"{statistics.median(sort_times):.3f} s", "< 1 s"))

    # Typing: each keystroke as the user makes it (the handler + repaint), then the filter pass the
    # pause triggers; and the filter pass for every prefix on its own (typing slowly).
    text = "稿件0123"
    key_times = []
    view.search.clear()
    _drain()
    start_all = time.perf_counter()
    for ch in text:
        key_times.append(timed(lambda ch=ch: (view.search.insert(ch), _drain())))
    settle_start = time.perf_counter()
    app = _app()
    deadline = time.perf_counter() + 30
    while view.shown_count() == model.rowCount() and time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.002)
    view.table.viewport().grab()
    settled = time.perf_counter()
    results.append(("filter: one keystroke typed fast (worst)", f"{max(key_times) * 1000:.0f} ms", "< 100 ms"))
    results.append(
        (f"filter: '{text}' typed, until the table shows {view.shown_count():,} rows",
         f"{settled - start_all:.3f} s (wait after typing {settled - settle_start:.3f} s)", "—")
    )  # fmt: skip
    view.search.clear()
    _drain()
    passes = []
    for i in range(1, len(text) + 1):
        prefix = text[:i]
        passes.append(timed(lambda p=prefix: (view.proxy.set_text(p), _drain())))
    results.append(("filter pass per prefix typed slowly (worst)", f"{max(passes) * 1000:.0f} ms", "< 100 ms"))
    results.append(("filter pass per prefix (median)", f"{statistics.median(passes) * 1000:.0f} ms", "—"))
    results.append(("clear the filter", f"{timed(lambda: (view.proxy.set_text(''), _drain())) * 1000:.0f} ms", "—"))
    view.min_score.setValue(0.9)
    t = timed(lambda: (view.proxy.set_min_score(0.95), _drain()))
    results.append(("min-score filter pass", f"{t * 1000:.0f} ms", "—"))
    view.close()
    view.deleteLater()
    _drain()


PAIR_KINDS = {"edited copy": make_pair, "revised copy": make_revised, "reformatted copy": make_reformatted}


def bench_pair(n_chars: int, results: list[tuple[str, str, str]], kind: str = "edited copy") -> None:
    left, right = PAIR_KINDS[kind](n_chars)
    options = NormalizeOptions()
    t_engine = timed(lambda: pair_diff(left, right, options, min_len=5))
    diff = pair_diff(left, right, options, min_len=5)
    print(f"[pair] {kind}: {len(left):,} + {len(right):,} chars, {len(diff.segments)} segments, "
          f"{len(diff.hunks)} hunks")  # fmt: skip
    candidate = Candidate(
        left="a", right="b", methods=("minhash",), jaccard=0.9, containment_left=0.9, containment_right=0.9,
        minhash_estimate=0.9, shared_shingles=1, shingles_left=1, shingles_right=1, length_ratio=1.0, score=0.9,
    )  # fmt: skip
    view = DiffView()
    view.resize(1400, 800)
    view.show()
    _drain()
    request = PairRequest(candidate, None, None, left, right, options, 5)
    app = _app()

    def load() -> None:
        view.show_pair(request)
        while not view.is_drawn():
            app.processEvents()
            time.sleep(0.001)
        _drain()
        view.grab()

    total = timed(load)
    # The GUI-thread share: texts in, highlights drawn, given a finished diff. The highlights of a
    # pair past BACKGROUND_CHARS are made in the pool thread with its diff, as the view does.
    from neardup_gui.ui.diff_highlights import highlights_for, insertion_points
    from neardup_gui.ui.diff_view import BACKGROUND_CHARS

    def marks() -> tuple:
        return (*highlights_for(diff, candidate), *insertion_points(diff))

    made = marks() if len(left) + len(right) > BACKGROUND_CHARS else None

    def gui_only() -> None:
        view.left.set_text(left)
        view.right.set_text(right)
        lh, rh, lp, rp = made or marks()
        view.left.set_highlights(lh)
        view.right.set_highlights(rh)
        view.left.set_insertions(lp)
        view.right.set_insertions(rp)
        _drain()
        view.grab()

    gui = timed(gui_only)
    scroll = timed(lambda: (view.go_to_overlap(len(diff.segments) // 2), _drain(), view.grab()))
    results.append((f"pair diff, engine only ({kind}, {n_chars:,} chars)", f"{t_engine:.3f} s", "—"))
    results.append((f"pair ({kind}): texts + highlights + paint (GUI thread)", f"{gui:.3f} s", "< 0.3 s"))
    results.append((f"pair ({kind}): show_pair until drawn (engine + GUI)", f"{total:.3f} s", "< 0.3 s"))
    results.append((f"pair ({kind}): jump to the middle overlap + paint", f"{scroll * 1000:.0f} ms", "—"))
    view.shutdown()
    view.close()
    view.deleteLater()
    _drain()


class GapClock:
    """A 10 ms QTimer: the gaps between its ticks, each tagged with the phase it ended in."""

    def __init__(self, stacks: TextIO | None = None, late_ms: float = 90.0) -> None:
        self.clock = QElapsedTimer()
        self.clock.start()
        self.last = self.clock.elapsed()
        self.phase = ""
        self.stage = ""  # the engine's stage, when told (for the ``stacks`` file)
        self.gaps: dict[str, list[float]] = {}
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self.tick)
        self.stacks, self.late_ms = stacks, late_ms

    def tick(self) -> None:
        now = self.clock.elapsed()
        gap = now - self.last
        self.gaps.setdefault(self.phase, []).append(gap)
        self.last = now
        if self.stacks is not None:
            faulthandler.cancel_dump_traceback_later()
            if gap >= self.late_ms:  # the stacks written during this gap are above this line
                print(f"GAP {gap:.0f} ms, stage {self.stage or '-'}, phase {self.phase}", file=self.stacks, flush=True)
            # repeated every late_ms while the window stays late: a long gap shows how it went on
            faulthandler.dump_traceback_later(self.late_ms / 1000, repeat=True, file=self.stacks)

    def enter(self, phase: str) -> None:
        """Later gaps count for ``phase`` (the gap now open counts for the phase it ends in)."""
        self.phase = phase

    def start(self) -> None:
        self.last = self.clock.elapsed()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        if self.stacks is not None:
            faulthandler.cancel_dump_traceback_later()

    def largest(self, phase: str) -> float:
        return max(self.gaps.get(phase, []), default=0.0)


def _spin_until(condition, settle: float = 0.3, limit: float = 900.0) -> None:  # type: ignore[no-untyped-def]
    """Run the event loop until ``condition()``, then ``settle`` seconds more (late paints count)."""
    app = _app()
    deadline = time.perf_counter() + limit
    while not condition() and time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.001)
    end = time.perf_counter() + settle
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.001)


def _memory_mb() -> tuple[float, float] | None:
    """(resident, peak resident since the last ``_reset_peak``) of this process in MB (Linux only)."""
    try:
        resident = int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None
    peak = _peak_mb()
    return None if peak is None else (resident, peak)


def bench_screen(
    folder: Path,
    results: list[tuple[str, str, str]],
    stacks: TextIO | None = None,
    late_ms: float = 90.0,
    k: int | None = None,
    include: tuple[str, ...] | None = None,
) -> None:
    """Screen ``folder`` in the window (with shingles of ``k`` characters when given), then open its
    workspace again; the largest event-loop gaps while the screen runs, while its result is shown,
    and while the workspace is opened and shown."""
    from neardup_gui.io.paths import DATA_DIR_ENV
    from neardup_gui.ui.main_window import MainWindow
    from neardup_gui.ui.settings import AppSettings

    with tempfile.TemporaryDirectory(prefix="bench_gui_") as tmp:
        os.environ[DATA_DIR_ENV] = str(Path(tmp) / "appdata")
        window = MainWindow(AppSettings.in_file(Path(tmp) / "settings.ini"))
        window.resize(1400, 900)
        window.show()
        # As the application does once its window is open (given time, as a user would).
        from neardup_gui.ui.background import FontWarmUp

        fonts = FontWarmUp(window)
        fonts.start()
        _spin_until(lambda: fonts.done, settle=0.0, limit=60.0)
        window.set_source(folder, screen=False)
        window.set_workspace(Path(tmp) / "workspace")
        if k is not None:
            window.params_panel.set_params(window.params_panel.params().with_(k=k))
        if include:
            window.params_panel.set_params(window.params_panel.params().with_(include=include))
        _drain()
        gaps = GapClock(stacks, late_ms)
        progress_signals = [0]
        shown: list[object] = []
        loaded: list[object] = []
        times: dict[str, float] = {}

        def on_progress(_done: int, _total: int, stage: str) -> None:
            progress_signals[0] += 1
            gaps.stage = stage

        after_finish = ["show"]  # the phase the gaps count for once a screen finished

        def on_finished(_outcome: object) -> None:  # connected first: runs before the window's slot
            times["finished"] = time.perf_counter()
            gaps.enter(after_finish[0])

        def on_shown(_outcome: object) -> None:  # keeps no reference: reopening replaces the result
            times.setdefault("shown", time.perf_counter())
            shown.append(True)

        window.runner.progress_changed.connect(on_progress)
        window.runner.screening_finished.connect(on_finished)
        window.outcome_shown.connect(on_shown)
        window.workspaces.workspace_loaded.connect(lambda _outcome: loaded.append(True))
        gaps.enter("screen")
        before = _memory_mb()
        _reset_peak()
        started = time.perf_counter()
        gaps.start()
        window.start_screen()
        _spin_until(lambda: bool(shown))
        wall = times["finished"] - started
        with_result = _memory_mb()
        show_delay = times["shown"] - times["finished"]
        n_pairs = len(window.outcome.candidates) if window.outcome is not None else 0
        # The window writes normalized/ after showing the result (one file per document: the disk's
        # pace); waited for here, so that the phases below start from a complete workspace.
        gaps.enter("normalized")
        writing = time.perf_counter()
        _spin_until(window.normalized_status.isHidden, settle=0.0, limit=600.0)
        normalized_wall = time.perf_counter() - writing
        after_normalized = _memory_mb()
        # Opening the workspace just written: read in the background, then shown the same way, in place
        # of the result shown (freed meanwhile: nothing here keeps a reference to it).
        gaps.enter("open")
        opened = time.perf_counter()
        window.workspaces.open_workspace(window.workspace)  # type: ignore[arg-type]
        _spin_until(lambda: bool(loaded))
        open_wall = time.perf_counter() - opened
        # Screening again into that workspace, as an editor does after adding a few files (here
        # nothing changed: every file is taken over from the last screen unread), in place of the
        # result shown.
        gaps.enter("rescan")
        after_finish[0] = "rescan show"
        shown.clear()
        times.pop("shown", None)
        _reset_peak()
        again = time.perf_counter()
        window.start_screen()
        _spin_until(lambda: bool(shown))
        rescan_wall = times["finished"] - again
        after_rescan = _memory_mb()
        gaps.stop()
        results.append((f"screen {folder.name}: wall time ({n_pairs:,} pairs)", f"{wall:.1f} s", "—"))
        results.append(("screen: largest event-loop gap during the screen", f"{gaps.largest('screen'):.0f} ms", "< 100 ms"))
        results.append(
            (f"screen: largest gap showing the result ({show_delay:.2f} s to shown)",
             f"{gaps.largest('show'):.0f} ms", "< 100 ms")
        )  # fmt: skip
        results.append(
            (f"normalized/ written after it: largest gap ({normalized_wall:.1f} s after shown)",
             f"{gaps.largest('normalized'):.0f} ms", "< 100 ms")
        )  # fmt: skip
        results.append(
            (f"open workspace: largest gap ({open_wall:.1f} s to shown)", f"{gaps.largest('open'):.0f} ms", "< 100 ms")
        )
        results.append((f"screen again, nothing changed: largest gap during it ({rescan_wall:.1f} s)",
                        f"{gaps.largest('rescan'):.0f} ms", "< 100 ms"))  # fmt: skip
        results.append(
            (f"screen again: largest gap showing the result ({times['shown'] - times['finished']:.2f} s to shown)",
             f"{gaps.largest('rescan show'):.0f} ms", "< 100 ms")
        )  # fmt: skip
        if before is not None and with_result is not None:
            results.append(("window's memory before the screen (resident)", f"{before[0]:.0f} MB", "—"))
            results.append(("window's memory, peak during the screen and showing it", f"{with_result[1]:.0f} MB",
                            "≤ 1 GB"))  # fmt: skip
            results.append(("window's memory with the result shown (resident)", f"{with_result[0]:.0f} MB", "—"))
        if after_normalized is not None:
            results.append(("window's memory, peak up to normalized/ written after it", f"{after_normalized[1]:.0f} MB",
                            "≤ 1 GB"))  # fmt: skip
            results.append(("window's memory with the result shown, normalized/ written (resident)",
                            f"{after_normalized[0]:.0f} MB", "—"))  # fmt: skip
        if after_rescan is not None:
            results.append(("window's memory, peak screening again (the result shown meanwhile)",
                            f"{after_rescan[1]:.0f} MB", "≤ 1 GB"))  # fmt: skip
        results.append(
            ("screen: progress signals delivered", f"{progress_signals[0]} ({progress_signals[0] / wall:.1f}/s)", "few/s")
        )
        window.close()
        window.deleteLater()
        _drain()


def bench_actions(
    workspace: Path,
    labels: Path | None,
    results: list[tuple[str, str, str]],
    stacks: TextIO | None = None,
    late_ms: float = 90.0,
) -> None:
    """Open a screened workspace in the window and do what an editor does with it, each action
    followed by a second (or its job) of the event loop: the largest gap of each. With ``labels``
    the workspace is evaluated too (which writes its evaluation CSVs into it)."""
    from PySide6.QtTest import QTest

    from neardup_gui.io.paths import DATA_DIR_ENV
    from neardup_gui.ui.main_window import MainWindow
    from neardup_gui.ui.settings import AppSettings

    app = _app()
    with tempfile.TemporaryDirectory(prefix="bench_gui_") as tmp:
        os.environ[DATA_DIR_ENV] = str(Path(tmp) / "appdata")
        window = MainWindow(AppSettings.in_file(Path(tmp) / "settings.ini"))
        window.resize(1400, 900)
        window.show()
        loaded: list[object] = []
        window.workspaces.workspace_loaded.connect(lambda _outcome: loaded.append(True))
        window.workspaces.open_workspace(workspace)
        _spin_until(lambda: bool(loaded), settle=2.0)
        gaps = GapClock(stacks, late_ms)
        gaps.start()
        table, search, files = window.candidate_view.table, window.candidate_view.search, window.files_view.table

        def act(  # type: ignore[no-untyped-def]
            name: str, action, until=lambda: True, settle: float = 1.0, target: str = "< 100 ms"
        ) -> None:
            gaps.enter(name)
            started = time.perf_counter()
            action()
            _spin_until(until, settle=settle)
            wall = time.perf_counter() - started - settle
            results.append((f"{name} ({wall:.1f} s): largest gap", f"{gaps.largest(name):.0f} ms", target))

        def each_column(view) -> None:  # type: ignore[no-untyped-def]
            for column in range(view.model().columnCount()):
                view.sortByColumn(column, Qt.SortOrder.DescendingOrder)
                app.processEvents()

        def type_filter() -> None:
            search.setFocus()
            for key in "archive_20":
                QTest.keyClick(search, key)
                _spin_until(lambda: True, settle=0.05)

        def next_pairs() -> None:
            for _ in range(20):
                QTest.keyClick(table, Qt.Key.Key_Down)
                app.processEvents()

        groups, boilerplate = window.overview.groups_view, window.overview.boilerplate_view
        a_sort = "< 1 s a sort"  # as the candidate table's target: the sort is the gap
        act("sort the candidate pairs by each column", lambda: each_column(table), target=a_sort)
        act("type a filter over the candidate pairs", type_filter)
        act("clear the filter", search.clear)
        act("the next 20 pairs", next_pairs, settle=2.0)
        act("Groups tab, grouped", lambda: window.tabs.setCurrentWidget(groups),
            lambda: not window.jobs.busy("groups"))  # fmt: skip
        act("Files tab", lambda: window.tabs.setCurrentWidget(window.files_view))
        act("sort the files by each column", lambda: each_column(files), target=a_sort)
        act("History tab", lambda: window.side_tabs.setCurrentIndex(1))
        act("Boilerplate tab, searched", lambda: window.tabs.setCurrentWidget(boilerplate),
            lambda: not window.jobs.busy("boilerplate"))  # fmt: skip
        if labels is not None:
            finished: list[object] = []
            window.evaluation.evaluation_finished.connect(finished.append)
            window.evaluation.evaluation_failed.connect(finished.append)

            def evaluate() -> None:
                window.tabs.setCurrentWidget(window.evaluation.panel)
                window.evaluation.evaluate(labels_file=labels)

            act(f"Evaluation tab, evaluated against {labels.name}", evaluate, lambda: bool(finished))
        gaps.stop()
        window.close()
        window.deleteLater()
        _drain()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000, help="candidate rows (default 1,000,000)")
    parser.add_argument("--chars", type=int, default=100_000, help="characters per side of the pair")
    parser.add_argument("--folder", type=Path, default=DEFAULT_FOLDER, help="folder to screen")
    parser.add_argument("--big", action="store_true", help=f"screen {BIG_FOLDER.name} (100,000 files; minutes)")
    parser.add_argument("--screen-only", action="store_true", help="only the screen and workspace measures")
    parser.add_argument("--no-table", action="store_true")
    parser.add_argument("--no-pair", action="store_true")
    parser.add_argument("--no-screen", action="store_true")
    parser.add_argument("--stacks", type=Path, help="write every thread's stack here when the window is late")
    parser.add_argument("--late", type=float, default=90.0, help="ms overdue that writes the stacks (default 90)")
    parser.add_argument("--workspace", type=Path, help="only the editor's actions on this screened workspace")
    parser.add_argument("--labels", type=Path, help="with --workspace: evaluate it against this labels file too")
    parser.add_argument("--k", type=int, help="shingle size of the screen (default: the window's, 5)")
    parser.add_argument("--include", nargs="+", help="file patterns the screen reads (default: the window's, *.txt *.md)")
    args = parser.parse_args(argv)
    if args.big:
        args.folder = BIG_FOLDER
    if args.screen_only:
        args.no_table = args.no_pair = True
    _app()
    # As the application does at start-up: numba's kernels load in the background while the window
    # opens (joined here, as if the window had been open a few seconds before the first screen).
    from neardup_gui.ui.background import warm_up_engine

    warm_up_engine().join()
    results: list[tuple[str, str, str]] = []
    if args.workspace is not None:
        args.no_table = args.no_pair = args.no_screen = True
        with open(args.stacks or os.devnull, "w", encoding="utf-8") as stacks:
            bench_actions(args.workspace, args.labels, results, stacks if args.stacks else None, args.late)
    if not args.no_table:
        bench_table(args.rows, results)
    if not args.no_pair:
        for kind in PAIR_KINDS:
            bench_pair(args.chars, results, kind)
    if not args.no_screen:
        if args.folder.is_dir():
            if args.stacks is not None:
                with open(args.stacks, "w", encoding="utf-8") as stacks:
                    bench_screen(args.folder, results, stacks, args.late, args.k, tuple(args.include or ()))
            else:
                bench_screen(args.folder, results, k=args.k, include=tuple(args.include or ()))
        else:
            print(f"[screen] skipped: {args.folder} is not a folder (make it with bench_screen.py)")
    width = max(len(r[0]) for r in results) if results else 10
    print()
    print(f"{'measure':{width}s}  {'result':>34s}  target")
    for name, value, target in results:
        print(f"{name:{width}s}  {value:>34s}  {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
