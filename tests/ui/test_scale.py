"""The window at scale (issue #8): big tables sort and filter exactly, typing filters once per pause,
a 100,000-character pair is highlighted where the engine says, and a screen leaves the event loop free.

Behaviour only; the timings are measured by ``bench/bench_gui.py``.
"""

from __future__ import annotations

import gc
import random
import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QElapsedTimer, Qt, QTimer
from PySide6.QtTest import QTest

from neardup_gui.core.diffspans import pair_diff
from neardup_gui.core.records import REVIEW_KEEP_BOTH, REVIEW_PENDING, NormalizeOptions, ScreenParams
from neardup_gui.ui.candidate_filter import ANY
from neardup_gui.ui.candidate_model import CANDIDATE_ROLE, CandidateModel, Column
from neardup_gui.ui.candidate_view import CandidateView
from neardup_gui.ui.diff_highlights import highlights_for
from neardup_gui.ui.diff_view import DiffView, PairRequest
from neardup_gui.ui.palette import HighlightKind
from neardup_gui.ui.worker import PROGRESS_INTERVAL, ScreenRunner
from ui_factories import SCREEN_TIMEOUT_MS, make_candidate, make_document

ROWS = 200_000
CHARS = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定"


def big_table(qtbot, rows: int = ROWS) -> tuple[CandidateView, list, dict]:
    """``rows`` pairs over a tenth as many documents, loaded in (left path, right path) order."""
    rng = random.Random(8)
    n_docs = rows // 10 + 200
    docs = {f"d{i:06d}": make_document(f"d{i:06d}", f"来源{i % 7}/稿件_{i:06d}.txt") for i in range(n_docs)}
    ids = sorted(docs, key=lambda d: docs[d].path)
    pairs = [(a, a + d) for a in range(n_docs) for d in (1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144) if a + d < n_docs][:rows]
    # Two decimals: many ties, so the tie order is tested too.
    candidates = [make_candidate(ids[a], ids[b], rng.randint(10, 100) / 100) for a, b in pairs]
    model = CandidateModel()
    model.set_candidates(candidates, docs)
    view = CandidateView(model)
    qtbot.addWidget(view)
    return view, candidates, docs


def shown_keys(view: CandidateView) -> list[tuple[str, str]]:
    proxy = view.proxy
    return [proxy.index(r, 0).data(CANDIDATE_ROLE).key for r in range(proxy.rowCount())]


def test_a_big_table_sorts_by_score_with_ties_in_path_order_like_python_sorted(qtbot) -> None:
    view, candidates, docs = big_table(qtbot)
    view.table.sortByColumn(Column.JACCARD, Qt.SortOrder.DescendingOrder)
    path = {d: doc.path for d, doc in docs.items()}
    expected = sorted(candidates, key=lambda c: (-c.jaccard, path[c.left], path[c.right]))
    assert view.model.candidates() == expected
    assert shown_keys(view)[:1000] == [c.key for c in expected[:1000]]
    # A second click sorts by file name; ties keep the score order (Python's sort is stable too).
    view.table.sortByColumn(Column.RIGHT, Qt.SortOrder.AscendingOrder)
    assert view.model.candidates() == sorted(expected, key=lambda c: path[c.right].rsplit("/", 1)[-1].casefold())
    view.table.sortByColumn(Column.JACCARD, Qt.SortOrder.AscendingOrder)
    values = [c.jaccard for c in view.model.candidates()]
    assert values == sorted(values)


def test_filtering_a_big_table_by_a_path_fragment_keeps_exactly_the_matching_rows_in_order(qtbot) -> None:
    view, candidates, docs = big_table(qtbot)
    view.search.setText("稿件_0012")
    matches = lambda c: "稿件_0012" in docs[c.left].path or "稿件_0012" in docs[c.right].path  # noqa: E731
    expected = [c.key for c in view.model.candidates() if matches(c)]
    assert 0 < len(expected) < len(candidates)
    assert shown_keys(view) == expected
    assert view.count_label.text() == f"{len(expected)} of {len(candidates)} pairs"
    view.min_score.setValue(0.5)  # filters combine
    assert shown_keys(view) == [k for k, c in zip(expected, (view.model.candidate(view.model.row_of(k)) for k in expected)) if max(c.jaccard, c.containment_left, c.containment_right) >= 0.5]
    view.clear_filters()
    assert view.shown_count() == len(candidates)


def test_typing_fast_filters_once_after_the_pause(qtbot) -> None:
    view, candidates, docs = big_table(qtbot, 20_000)
    passes: list[int] = []
    view.proxy.layoutChanged.connect(lambda *_: passes.append(view.shown_count()))
    QTest.keyClicks(view.search, "_0001")  # one key event after the other, no pause between (ASCII only)
    assert passes == [] and view.shown_count() == len(candidates)  # the window stayed with the typing
    with qtbot.waitSignal(view.proxy.layoutChanged, timeout=5000):
        pass
    expected = sum(1 for c in candidates if "_0001" in docs[c.left].path or "_0001" in docs[c.right].path)
    assert passes == [expected]


def test_the_selected_pair_survives_a_filter_that_keeps_it_and_a_hidden_one_hands_over_to_its_neighbour(qtbot) -> None:
    view, _candidates, docs = big_table(qtbot, 20_000)
    selected: list[object] = []
    view.candidate_selected.connect(selected.append)
    target = next(c for c in view.model.candidates()[50:] if "稿件_0001" in docs[c.left].path)
    assert view.select_pair(target.key)
    view.search.setText("稿件_0001")
    assert view.current_candidate() == target
    view.search.setText("稿件_0002")  # hides the pair: the row now in its place is selected and shown
    assert view.current_candidate() is not None and view.current_candidate() != target
    assert selected[-1] == view.current_candidate()
    view.search.setText("no such file")
    assert view.current_candidate() is None and selected[-1] is None


def test_deciding_a_pair_under_the_pending_filter_takes_it_out_of_the_list(qtbot) -> None:
    view, candidates, _docs = big_table(qtbot, 20_000)
    view.status_filter.setCurrentIndex(view.status_filter.findData(REVIEW_PENDING))
    assert view.shown_count() == len(candidates)
    first = view.proxy.index(0, 0).data(CANDIDATE_ROLE)
    view.model.set_status(first.key, REVIEW_KEEP_BOTH)
    assert view.shown_count() == len(candidates) - 1
    assert first.key not in set(shown_keys(view)[:10])
    view.status_filter.setCurrentIndex(view.status_filter.findData(ANY))
    assert view.shown_count() == len(candidates)


# -- the diff view --------------------------------------------------------------------------------
def near_duplicates(n_chars: int) -> tuple[str, str]:
    """Two ~``n_chars`` texts: clauses with line breaks and a few CJK Extension B characters, the
    second with one clause in eight edited, dropped or followed by a new one."""
    rng = random.Random(4)
    clauses = []
    while sum(map(len, clauses)) < n_chars:
        clause = "".join(rng.choice(CHARS) for _ in range(rng.randint(6, 16)))
        if rng.random() < 0.02:
            clause += "𠀀"
        clauses.append(clause + rng.choice("，，，。\n"))
    edited = []
    for clause in clauses:
        r = rng.random()
        if r < 0.04:
            continue
        if r < 0.10:
            clause = clause[:3] + "".join(rng.choice(CHARS) for _ in range(3)) + clause[3:]
        elif r < 0.125:
            edited.append("新增" + "".join(rng.choice(CHARS) for _ in range(8)) + "。")
        edited.append(clause)
    return "".join(clauses)[:n_chars], "".join(edited)[:n_chars]


def top_kind_cover(n: int, highlights: list, kind: HighlightKind) -> np.ndarray:
    """Where ``kind`` is the kind painted on top (later kinds over earlier ones)."""
    top = np.full(n, -1)
    for h in sorted(highlights, key=lambda h: h.kind):
        top[h.start : h.end] = h.kind
    return top == kind


def test_a_100k_character_pair_is_highlighted_exactly_where_the_engine_put_its_spans(qtbot) -> None:
    left, right = near_duplicates(100_000)
    options = NormalizeOptions()
    diff = pair_diff(left, right, options, min_len=5)
    assert len(diff.segments) > 100
    view = DiffView()
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.show()
    candidate = make_candidate("a", "b", 0.8)
    with qtbot.waitSignal(view.pair_drawn, timeout=SCREEN_TIMEOUT_MS):
        view.show_pair(PairRequest(candidate, None, None, left, right, options, 5))
    assert view.overlap_count() == len(diff.segments)
    left_h, right_h = highlights_for(diff, candidate)
    for pane, text, highlights in ((view.left, left, left_h), (view.right, right, right_h)):
        for kind in (HighlightKind.SHARED, HighlightKind.CHANGED, HighlightKind.UNIQUE):
            painted = np.zeros(len(text), dtype=bool)
            for start, end in pane.painted_spans(kind):
                painted[start:end] = True
            expected = top_kind_cover(len(text), highlights, kind)
            line_breaks = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32) == ord("\n")
            # Line breaks carry no colour in Qt's layouts; every other character must agree.
            assert np.array_equal(painted & ~line_breaks, expected & ~line_breaks), kind
    # The shared passages read back from the panes are the engine's segments.
    seg = diff.segments[len(diff.segments) // 2]
    view.go_to_overlap(len(diff.segments) // 2)
    assert view.left.current_span() == (seg.left_start, seg.left_end)
    assert view.left.textCursor().position() == view.left.offsets.to_qt(seg.left_start)


# -- the event loop during a screen -----------------------------------------------------------------
def write_corpus(folder: Path, n: int) -> None:
    rng = random.Random(3)
    base = ["".join(rng.choice(CHARS) for _ in range(300)) for _ in range(n // 10)]
    for i in range(n):
        text = base[i % len(base)] if i % 5 == 0 else "".join(rng.choice(CHARS) for _ in range(300))
        sub = folder / f"组{i % 10}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"稿件{i:05d}.txt").write_text(text + f"\n编号{i}", encoding="utf-8")


def test_a_running_screen_leaves_the_event_loop_free_with_throttled_progress_and_no_full_collections(
    qtbot, tmp_path: Path, record_property
) -> None:
    source = tmp_path / "source"
    write_corpus(source, 3000)
    runner = ScreenRunner()
    clock = QElapsedTimer()
    ticks: list[int] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(clock.elapsed()))
    reports: list[str] = []
    runner.progress_changed.connect(lambda _d, _t, stage: reports.append(stage))
    full_collections: list[int] = []

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2 and runner.running:
            full_collections.append(1)

    gc.callbacks.append(on_gc)
    try:
        started = time.monotonic()
        clock.start()
        timer.start()
        with qtbot.waitSignal(runner.screening_finished, timeout=SCREEN_TIMEOUT_MS) as finished:
            runner.start(source, ScreenParams(), tmp_path / "workspace")
        wall = time.monotonic() - started
        timer.stop()
    finally:
        gc.callbacks.remove(on_gc)
    assert len(finished.args[0].documents) == 3000
    # The GUI thread kept running its timer while the worker screened.
    assert len(ticks) >= 2
    gaps = np.diff([0, *ticks])
    record_property("largest_event_loop_gap_ms", int(gaps.max()))
    # Progress is throttled: the first and last report of each stage, and a few a second between.
    stages = len(set(reports))
    assert len(reports) <= 2 * stages + wall / PROGRESS_INTERVAL + 1
    # Full garbage collections (the longest stalls measured) are paused while the engine runs.
    assert full_collections == []


def test_a_screen_in_the_window_freezes_its_survivors_without_counting_the_frozen_objects(
    qtbot, tmp_path: Path, monkeypatch
) -> None:
    # Counting the frozen objects walks every one of them with the GIL held (30 ms and more once
    # the window has frozen earlier screens' survivors, a stall at the end of each screen): the
    # worker freezes the survivors itself and never asks.
    real_count = gc.get_freeze_count
    counted: list[int] = []
    monkeypatch.setattr(gc, "get_freeze_count", lambda: counted.append(1) or real_count())
    source = tmp_path / "source"
    write_corpus(source, 200)
    frozen = real_count()
    runner = ScreenRunner()
    with qtbot.waitSignal(runner.screening_finished, timeout=SCREEN_TIMEOUT_MS) as finished:
        runner.start(source, ScreenParams(), tmp_path / "workspace")
    assert len(finished.args[0].documents) == 200
    assert counted == []
    assert real_count() > frozen  # what the screen left alive is out of the collector's sight
