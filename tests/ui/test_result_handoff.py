"""Showing a finished screen or an opened workspace (issue #8): the same tables as ever, with the
session read, the pairs grouped and the boilerplate searched off the GUI thread, the last two only
when their tab is shown."""

from __future__ import annotations

import sys
import threading
import weakref
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from engine_kit import resident_mb
from ui_factories import SCREEN_TIMEOUT_MS

from neardup_gui.core.records import REVIEW_KEEP_BOTH, REVIEW_VALID_REVISION
from neardup_gui.io.session import ReviewSession
from neardup_gui.ui import overview_controller, result_handoff
from neardup_gui.ui.candidate_model import CandidateModel, Column
from neardup_gui.ui.files_view import FileColumn, FilesModel
from neardup_gui.ui.groups import build_groups


def table(model, columns) -> list[tuple]:  # type: ignore[no-untyped-def]
    return [tuple(model.index(r, c).data() for c in columns) for r in range(model.rowCount())]


def decide(window, status: str, reviewer: str = "张编辑") -> None:  # type: ignore[no-untyped-def]
    form = window.decision_form
    form.reviewer_edit.setText(reviewer)
    assert form.choose_status(status)


@pytest.fixture
def session_threads(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """The threads that read every pair's review state from a session (the read that grows with it)."""
    threads: list[threading.Thread] = []
    real = ReviewSession.pair_states

    def recording(self, run_id=None):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        return real(self, run_id)

    monkeypatch.setattr(ReviewSession, "pair_states", recording)
    return threads


def test_a_screen_shows_the_candidates_and_files_as_the_outcome_holds_them(screened, qtmodeltester) -> None:
    window = screened
    outcome = window.outcome
    # What the tables showed before the hand-off moved work off the GUI thread: models fed directly.
    reference = CandidateModel()
    reference.set_candidates(outcome.candidates, outcome.documents_by_id)
    reference.sort(Column.JACCARD, Qt.SortOrder.DescendingOrder)
    window.candidate_model.sort(Column.JACCARD, Qt.SortOrder.DescendingOrder)
    assert len(outcome.candidates) > 5
    assert table(window.candidate_model, list(Column)) == table(reference, list(Column))
    files = FilesModel()
    files.set_documents(outcome.documents)
    assert table(window.files_model, list(FileColumn)) == table(files, list(FileColumn))
    assert window.files_model.rowCount() == len(outcome.documents)
    assert window.candidate_view.current_candidate() is not None  # a pair is selected, its diff shown
    window.files_view.problems_only.setChecked(True)
    shown = [window.files_model.document(r) for r in range(window.files_model.rowCount())]
    assert shown and all(not d.usable for d in shown)
    qtmodeltester.check(window.files_view.proxy)
    window.files_view.problems_only.setChecked(False)
    assert window.files_model.rowCount() == len(outcome.documents)


def test_the_stored_decisions_are_read_off_the_gui_thread(make_window, sample: Path, qtbot, session_threads) -> None:
    window = make_window(sample)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    assert session_threads  # read once for the hand-off ...
    assert threading.main_thread() not in session_threads  # ... never by the window's thread
    pair = window.candidate_view.current_candidate().key
    decide(window, REVIEW_VALID_REVISION)
    session_threads.clear()
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()  # the same folder again: the decision still shows
    assert session_threads and threading.main_thread() not in session_threads
    row = window.candidate_model.row_of(pair)
    assert window.candidate_model.index(row, Column.STATUS).data() == "Valid revision · 有效修订"


def test_the_tables_file_names_are_worked_out_off_the_gui_thread(make_window, sample: Path, qtbot, monkeypatch) -> None:
    from neardup_gui.ui import candidate_columns, candidate_model, result_handoff

    named_on: list[threading.Thread] = []

    def recording(path: str) -> str:
        named_on.append(threading.current_thread())
        return candidate_columns.file_name(path)

    monkeypatch.setattr(result_handoff, "file_name", recording)
    monkeypatch.setattr(candidate_model, "file_name", recording)
    window = make_window(sample)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    outcome = window.outcome
    paired = {d for c in outcome.candidates for d in (c.left, c.right)}
    assert len(named_on) == len(paired) and threading.main_thread() not in named_on
    model = window.candidate_model
    by_id = outcome.documents_by_id
    for row in range(model.rowCount()):
        c = model.index(row, Column.LEFT).data(Qt.ItemDataRole.UserRole + 2)
        assert model.index(row, Column.LEFT).data() == by_id[c.left].path.rsplit("/", 1)[-1]
        assert model.index(row, Column.RIGHT).data() == by_id[c.right].path.rsplit("/", 1)[-1]


def test_decisions_saved_before_reopening_a_workspace_still_show(screened, make_window, qtbot, session_threads) -> None:
    window = screened
    view = window.candidate_view
    view.select_proxy_row(1)
    first = view.current_candidate().key
    decide(window, REVIEW_KEEP_BOTH)
    view.select_proxy_row(2)
    second = view.current_candidate().key
    decide(window, REVIEW_VALID_REVISION, "李审校")
    window.close()
    session_threads.clear()
    again = make_window()
    with qtbot.waitSignal(again.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert again.workspaces.open_workspace(window.workspace)
    assert session_threads and threading.main_thread() not in session_threads
    model = again.candidate_model
    assert model.status_of(first) == REVIEW_KEEP_BOTH and model.status_of(second) == REVIEW_VALID_REVISION
    assert model.index(model.row_of(second), Column.STATUS).data() == "Valid revision · 有效修订"
    assert again.candidate_view.current_candidate().key == second  # the pair selected last
    assert again.files_model.rowCount() == len(window.outcome.documents)


def test_reopening_the_workspace_shown_counts_the_decisions_made_meanwhile(screened, qtbot) -> None:
    window = screened
    pair = window.candidate_view.current_candidate().key
    decide(window, REVIEW_KEEP_BOTH)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.workspaces.open_workspace(window.workspace)
    assert window.candidate_model.status_of(pair) == REVIEW_KEEP_BOTH


def test_the_groups_tab_groups_the_pairs_when_first_shown_in_a_job_thread(
    screened, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = screened
    threads: list[threading.Thread] = []

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        return build_groups(*args, **kwargs)

    monkeypatch.setattr(overview_controller, "build_groups", recording)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    view = window.overview.groups_view
    assert threads == [] and view.groups() == []  # not grouped while the tab is hidden
    assert view.summary.text() == "Grouping the pairs…"
    window.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: bool(view.groups()) or "Groups of documents" in view.summary.text(),
                    timeout=SCREEN_TIMEOUT_MS)  # fmt: skip
    assert threads and threading.main_thread() not in threads
    outcome = window.outcome
    view.larger_only.setChecked(False)
    expected = build_groups(outcome.candidates, outcome.documents_by_id)
    assert [g.members for g in view.groups()] == [g.members for g in expected]
    assert [sorted(c.key for c in g.links) for g in view.groups()] == [sorted(c.key for c in g.links) for g in expected]


def test_the_boilerplate_search_waits_for_its_tab(screened, qtbot) -> None:
    window = screened
    view = window.overview.boilerplate_view
    assert "boilerplate" not in window.jobs.running_names() and view.model.rowCount() == 0
    window.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.model.rowCount() > 0, timeout=SCREEN_TIMEOUT_MS)
    assert any("【基层来稿】" in p.text for p in view.model.passages())


def test_reopening_the_workspace_shown_reads_the_states_once_off_the_gui_thread(screened, qtbot, session_threads) -> None:
    window = screened
    pair = window.candidate_view.current_candidate().key
    decide(window, REVIEW_KEEP_BOTH)
    session_threads.clear()
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.workspaces.open_workspace(window.workspace)
    assert session_threads and threading.main_thread() not in session_threads  # nothing new: no second read
    assert window.candidate_model.status_of(pair) == REVIEW_KEEP_BOTH


def test_a_decision_made_while_the_workspace_reopens_is_shown(screened, qtbot) -> None:
    window = screened
    view = window.candidate_view
    view.select_proxy_row(1)
    pair = view.current_candidate().key
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.workspaces.open_workspace(window.workspace)
        decide(window, REVIEW_VALID_REVISION)  # saved while the load job runs
    assert window.candidate_model.status_of(pair) == REVIEW_VALID_REVISION


def test_word_files_a_rescan_took_over_unread_are_extracted_before_the_result_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    import docx

    from neardup_gui.core.records import ScreenParams
    from neardup_gui.io import corpus
    from neardup_gui.tasks import screen_folder
    from neardup_gui.ui.result_handoff import prepare_result

    monkeypatch.setattr(corpus, "SETTLE_NS", 50_000_000)
    body = "本报讯，市文化馆今年共举办公益讲座四十二场，参与市民一万两千余人次，较去年增长三成。" * 6
    src = tmp_path / "src"
    src.mkdir()
    for name, text in (("a.docx", body), ("b.docx", body + "新增结尾一句。"), ("c.txt", body[::-1]), ("d.txt", body[::-1] + "尾")):
        if name.endswith(".docx"):
            document = docx.Document()
            document.add_paragraph(text)
            document.save(src / name)
        else:
            (src / name).write_text(text, encoding="utf-8")
    time.sleep(0.15)
    params = ScreenParams(include=("*.txt", "*.docx"), all_scores="never")
    screen_folder(src, params, out_dir=tmp_path / "ws")
    outcome = screen_folder(src, params, out_dir=tmp_path / "ws")
    assert outcome.run.counts["unchanged_files_not_read"] == 4 and len(outcome.candidates) == 2
    assert outcome.texts.unread == 4
    prepared = prepare_result(outcome, read_states=False)
    assert outcome.texts.unread == 2  # the two Word files; the plain ones are read when shown
    by_path = {d.path: d for d in prepared.pair_documents.values()}
    assert outcome.texts[by_path["a.docx"].doc_id].startswith("本报讯")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's")
def test_the_memory_of_a_replaced_result_goes_back_to_the_system_once_it_is_freed(qtbot) -> None:
    # Like a large result's rows: many small objects, a few of them still held elsewhere (which pins
    # the heap's top, so that freeing alone gives nothing back): resident memory falls once the last
    # slice is freed, not only when something else happens to trim the heap.
    import numpy as np

    from neardup_gui.ui.background import SlicedRelease

    rows = [np.ones(1500, dtype=np.uint64) for _ in range(30_000)]  # ~360 MB
    kept = rows[::1000]
    release = SlicedRelease()
    release.STEP = 5_000
    release.hold(rows)
    del rows
    before = resident_mb()
    qtbot.waitUntil(lambda: release.pending == 0, timeout=10_000)
    qtbot.waitUntil(lambda: before - resident_mb() > 200, timeout=10_000)
    assert all(int(a.sum()) == 1500 for a in kept)


def test_a_replaced_result_is_freed_a_slice_per_pass_after_the_new_one_is_shown(screened, qtbot) -> None:
    # Freed at once, a 100,000-file result's rows held the window's thread for 60-100 ms in the pass
    # that showed the next result. Here nothing of the old result may be freed in that pass, then
    # one object per pass (the slice made as small as it goes), until all of it is gone.
    window = screened
    old = window.outcome
    refs = [weakref.ref(x) for x in (*old.candidates, *old.documents)]
    del old
    window.released.STEP, window.released.BUDGET = 1, 0.0
    alive_when_shown: list[int] = []
    window.outcome_shown.connect(lambda _o: alive_when_shown.append(sum(r() is not None for r in refs)))
    passes = window.released.passes
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.workspaces.open_workspace(window.workspace)
    assert window.outcome is not None and alive_when_shown == [len(refs)]
    qtbot.waitUntil(lambda: all(r() is None for r in refs), timeout=SCREEN_TIMEOUT_MS)
    assert window.released.passes - passes >= len(refs) and window.released.pending == 0


def _other_pair(window, avoid: set[str]):  # type: ignore[no-untyped-def]
    """A pair of the result none of whose files is in ``avoid`` (found without showing it)."""
    return next(c for c in window.outcome.candidates if not {c.left, c.right} & avoid)


def _in_pane(text: str) -> str:  # a QTextDocument gives CR LF back as LF
    return text.replace("\r\n", "\n").replace("\r", "\n")


def test_a_large_result_lets_its_texts_go_and_reads_each_pair_again_when_shown(
    make_window, sample: Path, qtbot, monkeypatch
) -> None:
    # A result whose texts pass HELD_TEXT_CHARS (100,000 articles hold ~29 million characters of
    # paired texts) keeps none of them once shown: a pair's are read again from the source folder,
    # checked against their SHA-256, when it is shown. Here every result passes the bound.
    monkeypatch.setattr(result_handoff, "HELD_TEXT_CHARS", 0)
    window = make_window(sample)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    outcome, texts = window.outcome, window.outcome.texts
    first = window.candidate_view.current_candidate()
    on_disk = {d: (sample / outcome.document(d).path).read_text(encoding=outcome.document(d).encoding)
               for d in (first.left, first.right)}  # fmt: skip
    assert texts.held_chars == sum(map(len, on_disk.values()))  # the pair shown, read again; no other
    assert window.diff_view.left.toPlainText() == _in_pane(on_disk[first.left])
    # A file changed since the screen: its pair says so rather than showing what is no longer there.
    other = _other_pair(window, {first.left, first.right})
    (sample / outcome.document(other.left).path).write_text("改过的文字" * 20, encoding="utf-8")
    assert window.candidate_view.select_pair(other.key)
    assert not window.diff_view.notice_label.isHidden()
    assert outcome.document(other.left).path in window.diff_view.notice_label.text()
    assert window.diff_view.left.toPlainText() == ""


def test_a_result_within_the_bound_keeps_its_texts(screened, sample: Path) -> None:
    window = screened
    outcome, texts = window.outcome, window.outcome.texts
    paired = {d for c in outcome.candidates for d in (c.left, c.right)}
    assert texts.held_chars >= sum(outcome.document(d).chars for d in paired) > 0
    # so a pair whose file changed after the screen still shows the text screened
    first = window.candidate_view.current_candidate()
    other = _other_pair(window, {first.left, first.right})
    window.candidate_view.select_pair(first.key)
    screened_text = texts[other.left]
    (sample / outcome.document(other.left).path).write_text("改过的文字" * 20, encoding="utf-8")
    assert window.candidate_view.select_pair(other.key)
    assert window.diff_view.left.toPlainText() == _in_pane(screened_text)


def test_an_opened_workspace_past_the_bound_keeps_only_the_texts_of_the_pair_shown(
    screened, make_window, qtbot, monkeypatch
) -> None:
    # Opening reads every pair's texts to list the files changed since the screen; past the bound
    # they are let go once checked, as a screen's are.
    monkeypatch.setattr(result_handoff, "HELD_TEXT_CHARS", 0)
    again = make_window()
    with qtbot.waitSignal(again.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        again.workspaces.open_workspace(screened.workspace)
    shown = again.candidate_view.current_candidate()
    texts = again.outcome.texts
    assert texts.held_chars == len(texts[shown.left]) + len(texts[shown.right])
    assert len({d for c in again.outcome.candidates for d in (c.left, c.right)}) > 2


def test_screening_again_takes_over_the_pairs_of_the_result_shown(make_window, sample: Path, qtbot) -> None:
    # The window holds the result it shows; screening the same folder again into its workspace, the
    # pairs taken over are those very candidates (not the stored ones decoded and held a second
    # time): after a screen, and after the workspace was opened (its candidates read from the session).
    window = make_window(sample)
    window.params_panel.set_params(window.params_panel.params().with_(all_scores="never"))

    def screen():  # type: ignore[no-untyped-def]
        with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
            assert window.start_screen()
        return window.outcome

    def held_in(outcome, shown) -> int:  # type: ignore[no-untyped-def]
        ids = {id(c) for c in shown.candidates}
        return sum(id(c) in ids for c in outcome.candidates)

    def keys(outcome) -> int:  # type: ignore[no-untyped-def]  # pairs of two files' contents
        by_id = outcome.documents_by_id
        return len({(by_id[c.left].sha256, by_id[c.right].sha256) for c in outcome.candidates})

    first = screen()
    again = screen()
    assert again.run.counts["pairs_from_previous_run"] == len(again.candidates) > 0
    assert held_in(again, first) == keys(first) > 0
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.workspaces.open_workspace(window.workspace)
    opened = window.outcome
    assert opened is not again and held_in(opened, again) == 0
    third = screen()
    assert held_in(third, opened) == keys(opened) > 0
    assert third.candidates == again.candidates == first.candidates
