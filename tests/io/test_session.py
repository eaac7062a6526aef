"""The review session in a real SQLite file: reopening, kill -9, locking, history, re-screening."""

from __future__ import annotations

import dataclasses
import hashlib
import signal
import sqlite3
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from neardup_gui.core.records import (
    METHODS,
    Arbitration,
    Candidate,
    Decision,
    Document,
    FlagEvidence,
    NormalizeOptions,
    RunRecord,
    ScreenParams,
    Segment,
)
from neardup_gui.io.session import (
    DELTA_SHARE,
    SCHEMA_VERSION,
    SESSION_FILENAME,
    UI_SELECTED_PAIR,
    ReviewSession,
    SessionInUseError,
    SessionReadOnlyError,
    SessionVersionError,
)
from neardup_gui.tasks import screen_folder

REPO = Path(__file__).resolve().parents[2]
TEXTS = {
    "news/a.txt": "资料整理说明：先备份原始稿件，再登记来源与版本。每周归档一次。",
    "news/b.txt": "资料整理说明  先备份原始稿件，再登记来源与版本！每周归档一次。",
    "web/c.txt": "资料整理说明：先备份原始稿件，再登记来源与版本。每天归档一次。",
}


def _document(rel: str, data: bytes) -> Document:
    return Document(
        doc_id="d-" + Path(rel).stem, source_id=rel.split("/")[0], version="v1", path=rel,
        size=len(data), mtime=1_700_000_000.25, sha256=hashlib.sha256(data).hexdigest(),
        encoding="utf-8", chars=len(data.decode("utf-8")), status="ok",
    )  # fmt: skip


def _candidate(left: str, right: str, jaccard: float = 0.81234567) -> Candidate:
    return Candidate(
        left=left, right=right, methods=("minhash", "containment"), jaccard=jaccard,
        containment_left=0.9, containment_right=0.875, minhash_estimate=0.796875,
        shared_shingles=30, shingles_left=34, shingles_right=36, length_ratio=0.94,
        score=jaccard, flags=("number_changed",), shared_sample=("资料整", "整理说"),
        segments=(Segment(0, 6, 0, 6), Segment(7, 20, 8, 21)),
        evidence=(FlagEvidence("number_changed", ((24, 25),), ((24, 25),), "周 -> 天"),),
        tfidf_cosine=None, simhash_distance=3, suggestion="keep_both",
    )  # fmt: skip


def _run(run_id: str, source: Path) -> RunRecord:
    return RunRecord(
        run_id=run_id, source=str(source), params=ScreenParams(k=3).to_dict(), bands=25, rows=5,
        versions={"neardup_gui": "0.1.0", "python": "3.11"}, manifest_digest="ab" * 32,
        counts={"files": 3, "files_ok": 3}, started="2024-05-01T09:00:00+08:00",
        finished="2024-05-01T09:00:02+08:00", integrity="unchanged",
        normalization=NormalizeOptions().describe(), notes=("a note",),
    )  # fmt: skip


def record_sample_run(
    session: ReviewSession, tmp_path: Path, run_id: str = "run-1", texts: dict[str, str] = TEXTS
) -> tuple[list[Document], list[Candidate]]:
    source = tmp_path / "source"
    docs = []
    for rel, text in texts.items():
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        (source / rel).write_text(text, encoding="utf-8")
        docs.append(_document(rel, text.encode("utf-8")))
    candidates = [_candidate("d-a", "d-b", 0.9), _candidate("d-a", "d-c")]
    session.record_run(_run(run_id, source), docs, candidates)
    return docs, candidates


@pytest.fixture
def session(tmp_path: Path):
    s = ReviewSession.open(tmp_path / "out" / SESSION_FILENAME)
    record_sample_run(s, tmp_path)
    yield s
    s.close()


def test_a_manifest_read_back_holds_each_repeated_value_once(tmp_path: Path) -> None:
    # A window showing a 100,000-file run holds its manifest: SQLite gives every cell a string of
    # its own, ~27 MB of copies of a few folder names, versions, encodings and statuses.
    docs = [
        dataclasses.replace(
            _document(f"{folder}/{n:03d}.txt", f"第{n}篇".encode()), doc_id=f"d-{folder}-{n}",
            encoding=("utf-8", "gb18030")[n % 2],
            status=("ok", "empty")[n % 3 == 0], message=("", "file is empty")[n % 3 == 0], version=f"v{n % 2 + 1}",
        )
        for folder in ("报刊", "web") for n in range(30)
    ]  # fmt: skip
    with ReviewSession.open(tmp_path / SESSION_FILENAME) as s:
        s.record_run(_run("run-1", tmp_path), docs, [])
    with ReviewSession.open(tmp_path / SESSION_FILENAME, read_only=True) as s:
        back = s.documents()
    assert back == sorted(docs, key=lambda d: d.path)
    for field in ("source_id", "version", "encoding", "status", "message", "extractor"):
        values = [getattr(d, field) for d in back]
        assert len({id(v) for v in values}) == len(set(values)), field
    assert len({id(d.sha256) for d in back}) == len(back)  # (values of their own stay their own)


def test_everything_is_restored_after_closing_and_reopening(tmp_path: Path) -> None:
    path = tmp_path / "out" / SESSION_FILENAME
    with ReviewSession.open(path) as s:
        docs, candidates = record_sample_run(s, tmp_path)
        s.add_decision(Decision("d-a", "d-b", "suggest_merge_entry", "王芳", "", reason="同一稿件",
                                retained="left", related_source="人民日报", author="李明",
                                original_source="1998-01-02 第4版", reprint_permission="已授权"))  # fmt: skip
        s.set_ui_state(UI_SELECTED_PAIR, "d-a\td-c")
        s.set_thresholds([{"k": 3, "threshold": 0.5, "tp": 1, "fp": 0, "fn": 0, "precision": 1.0,
                           "recall": 1.0, "candidate_recall": 1.0, "candidates": 2}])  # fmt: skip
        run = s.run("run-1")

    with ReviewSession.open(path) as s:
        assert s.latest_run_id() == "run-1"
        assert s.run("run-1") == run
        assert s.documents() == sorted(docs, key=lambda d: d.path)
        assert s.candidates() == candidates  # segments, evidence, flags, samples, None scores
        [decision] = s.decisions()
        assert (decision.reviewer, decision.reason, decision.author) == ("王芳", "同一稿件", "李明")
        assert decision.reprint_permission == "已授权"
        assert datetime.fromisoformat(decision.time).tzinfo is not None  # "now", with its zone
        assert decision.left_sha256 == docs[0].sha256  # the file the reviewer looked at
        assert s.pair_state("d-a", "d-b").status == "suggest_merge_entry"
        assert s.ui_state(UI_SELECTED_PAIR) == "d-a\td-c"
        assert s.thresholds()[0]["precision"] == 1.0


def test_decision_shown_as_saved_survives_sigkill(tmp_path: Path) -> None:
    path = tmp_path / SESSION_FILENAME
    with ReviewSession.open(path) as s:
        record_sample_run(s, tmp_path)
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from neardup_gui.io.session import ReviewSession\n"
        "from neardup_gui.core.records import Decision\n"
        f"s = ReviewSession.open(Path({str(path)!r}))\n"
        "s.add_decision(Decision('d-a', 'd-c', 'valid_revision', 'kill-test', '', reason='周/天'))\n"
        "print('saved', flush=True)\n"
        "time.sleep(120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "saved"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    with ReviewSession.open(path) as s:  # the dead writer's lock is gone too
        [decision] = s.decisions()
        assert (decision.reviewer, decision.status, decision.reason) == ("kill-test", "valid_revision", "周/天")
        assert s.pair_state("d-c", "d-a").status == "valid_revision"


def test_second_writer_is_told_the_session_is_in_use_and_can_open_read_only(
    session: ReviewSession,
) -> None:
    with pytest.raises(SessionInUseError) as info:
        ReviewSession.open(session.path)
    assert "already open" in str(info.value) and "read-only" in str(info.value)
    assert "process" in str(info.value)  # says who holds it

    session.add_decision(Decision("d-a", "d-b", "keep_both", "reviewer1", ""))
    with ReviewSession.open(session.path, read_only=True) as viewer:
        assert [d.reviewer for d in viewer.decisions()] == ["reviewer1"]
        assert len(viewer.candidates()) == 2
        with pytest.raises(SessionReadOnlyError):
            viewer.add_decision(Decision("d-a", "d-b", "keep_both", "reviewer2", ""))
        viewer.set_ui_state(UI_SELECTED_PAIR, "ignored")  # UI state is not data: no error
    assert session.ui_state(UI_SELECTED_PAIR) == ""


def test_session_can_be_reopened_for_writing_after_the_first_writer_closes(tmp_path: Path) -> None:
    path = tmp_path / SESSION_FILENAME
    ReviewSession.open(path).close()
    with ReviewSession.open(path, read_only=True) as viewer:  # clean close: no -wal/-shm left
        assert viewer.latest_run_id() is None
    ReviewSession.open(path).close()


def test_disagreeing_reviewers_put_the_pair_in_arbitration_and_both_opinions_stay(
    session: ReviewSession,
) -> None:
    session.add_decision(Decision("d-a", "d-c", "suggest_merge_entry", "alice",
                                  "2024-05-01T10:00:00+08:00", retained="left"))  # fmt: skip
    session.add_decision(Decision("d-a", "d-c", "valid_revision", "bob",
                                  "2024-05-01T10:05:00+08:00", reason="周 -> 天"))  # fmt: skip
    state = session.pair_state("d-a", "d-c")
    assert state.status == "pending_arbitration"
    assert [d.reviewer for d in state.decisions] == ["alice", "bob"]
    assert session.id_mapping() == []  # no merge while disputed

    session.add_arbitration(Arbitration("d-c", "d-a", "chief", "valid_revision", "数字不同",
                                        "2024-05-02T09:00:00+08:00"))  # fmt: skip
    state = session.pair_states()[("d-a", "d-c")]
    assert state.status == "valid_revision"
    assert state.arbitration_state == "arbitrated"
    assert [d.status for d in state.decisions] == ["suggest_merge_entry", "valid_revision"]
    assert [(a.arbitrator, a.left, a.right) for a in session.arbitrations()] == [("chief", "d-a", "d-c")]


def test_a_reviewer_changing_their_own_mind_needs_no_arbitration(session: ReviewSession) -> None:
    session.add_decision(Decision("d-a", "d-b", "keep_both", "alice", "2024-05-01T10:00:00+00:00"))
    session.add_decision(Decision("d-a", "d-b", "suggest_merge_entry", "Alice ",
                                  "2024-05-01T11:00:00+00:00", retained="right"))  # fmt: skip
    assert session.pair_state("d-a", "d-b").status == "suggest_merge_entry"
    assert len(session.decisions("d-b", "d-a")) == 2  # history keeps both
    [(old, new, by, _when)] = session.id_mapping()
    assert (old, new, by) == ("d-a", "d-b", "Alice")


def test_history_is_ordered_by_time_not_by_entry(session: ReviewSession) -> None:
    session.add_decision(Decision("d-a", "d-b", "keep_both", "bob", "2024-05-01T12:00:00+08:00"))
    session.add_decision(Decision("d-a", "d-b", "keep_both", "alice", "2024-05-01T03:00:00+00:00"))
    # 03:00Z is 11:00 in +08:00, so alice decided first
    assert [d.reviewer for d in session.decisions()] == ["alice", "bob"]


def test_a_pair_given_in_reverse_is_stored_in_candidate_order(session: ReviewSession) -> None:
    stored = session.add_decision(
        Decision("d-c", "d-a", "suggest_merge_entry", "alice", "", retained="left")
    )
    assert (stored.left, stored.right, stored.retained) == ("d-a", "d-c", "right")
    assert session.id_mapping()[0][:2] == ("d-a", "d-c")  # d-c (given as "left") is kept


def test_decisions_are_append_only_even_for_raw_sql(session: ReviewSession) -> None:
    session.add_decision(Decision("d-a", "d-b", "keep_both", "alice", ""))
    raw = sqlite3.connect(session.path, timeout=10)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            raw.execute("UPDATE decisions SET status = 'suggest_merge_entry'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            raw.execute("DELETE FROM decisions")
    finally:
        raw.close()
    assert session.decisions()[0].status == "keep_both"


def test_rescreen_adds_a_run_and_old_decisions_return_marked_stale_when_a_file_changed(
    session: ReviewSession, tmp_path: Path
) -> None:
    session.add_decision(Decision("d-a", "d-b", "keep_both", "alice", ""))
    session.add_decision(Decision("d-a", "d-c", "valid_revision", "alice", ""))
    changed = dict(TEXTS, **{"web/c.txt": TEXTS["web/c.txt"] + "补充说明。"})
    record_sample_run(session, tmp_path, run_id="run-2", texts=changed)

    assert [r.run_id for r in session.runs()] == ["run-1", "run-2"]
    states = session.pair_states("run-2")
    assert states[("d-a", "d-b")].status == "keep_both" and not states[("d-a", "d-b")].stale
    assert states[("d-a", "d-c")].status == "valid_revision" and states[("d-a", "d-c")].stale
    assert not session.pair_states("run-1")[("d-a", "d-c")].stale  # against the old files


def _archive(n: int, changed: set[int] = frozenset(), gone: set[int] = frozenset(), added: int = 0) -> list[Document]:
    """A manifest of ``n`` files (``changed`` ones edited, ``gone`` ones deleted) plus ``added`` new ones."""
    docs = []
    for i in [*range(n), *range(1000, 1000 + added)]:
        if i in gone:
            continue
        text = f"第{i}号稿件。" + ("修订后加了一句。" if i in changed else "")
        docs.append(_document(f"archive/{i:04d}.txt", text.encode("utf-8")))
    return docs


def _stored_rows(path: Path, run_id: str) -> tuple[int, int]:
    with sqlite3.connect(path) as raw:
        rows = raw.execute("SELECT COUNT(*) FROM documents WHERE run_id = ?", (run_id,)).fetchone()[0]
        removed = raw.execute("SELECT COUNT(*) FROM removed_documents WHERE run_id = ?", (run_id,)).fetchone()[0]
    return rows, removed


def test_a_rescan_stores_only_the_manifest_rows_that_changed_and_reads_back_whole(tmp_path: Path) -> None:
    path = tmp_path / SESSION_FILENAME
    first = _archive(200)
    second = _archive(200, changed={3, 150}, gone={7}, added=2)  # 2 edited, 1 deleted, 2 new
    third = _archive(200, changed={3}, gone={8}, added=1)  # 150 back as it was, 7 back, 8 deleted
    by_path = lambda docs: sorted(docs, key=lambda d: d.path)  # noqa: E731
    with ReviewSession.open(path) as s:
        for run_id, docs in (("run-1", first), ("run-2", second), ("run-3", third)):
            s.record_run(_run(run_id, tmp_path), docs, [_candidate("d-0003", "d-0004")])
        s.add_decision(Decision("d-0003", "d-0004", "keep_both", "alice", ""))
        s.add_decision(Decision("d-0005", "d-0006", "keep_both", "alice", ""))
    assert _stored_rows(path, "run-1") == (200, 0)
    assert _stored_rows(path, "run-2") == (4, 1)  # against run-1: 2 edited + 2 new rows, 1 removed
    assert _stored_rows(path, "run-3") == (2, 1)  # also against run-1, the last whole manifest
    with ReviewSession.open(path, read_only=True) as s:
        assert s.documents("run-1") == by_path(first)
        assert s.documents("run-2") == by_path(second)
        assert s.documents() == by_path(third)
        # The decisions were taken on run-3's files: 0003 as edited there, stale against run-1 only.
        assert not s.pair_states("run-3")[("d-0003", "d-0004")].stale
        assert s.pair_states("run-1")[("d-0003", "d-0004")].stale
        assert s.pair_state("d-0005", "d-0006").status == "keep_both"
        assert not s.pair_state("d-0005", "d-0006").stale


def test_a_rescan_reads_the_last_manifests_doc_ids_only_when_a_file_may_be_gone(tmp_path: Path, monkeypatch) -> None:
    from neardup_gui.io import session as session_mod

    read: list[str] = []
    real = session_mod._doc_ids_of
    monkeypatch.setattr(session_mod, "_doc_ids_of", lambda cursor, run_id: read.append(run_id) or real(cursor, run_id))
    path = tmp_path / SESSION_FILENAME
    with ReviewSession.open(path) as s:
        s.record_run(_run("run-1", tmp_path), _archive(200), [])
        s.record_run(_run("run-2", tmp_path), _archive(200, changed={3, 150}, added=2), [])  # edited, added
        assert read == []  # every row of run-1 is matched: by an unchanged row or an edited document's
        s.record_run(_run("run-3", tmp_path), _archive(200, changed={3}, gone={9}), [])
        assert read == ["run-1"]
        assert s.documents("run-3") == _archive(200, changed={3}, gone={9})
    assert _stored_rows(path, "run-2") == (4, 0) and _stored_rows(path, "run-3") == (1, 1)


def _pairs(n: int, changed: set[int] = frozenset(), gone: set[int] = frozenset(), added: int = 0) -> list[Candidate]:
    """``n`` candidate pairs (``changed`` ones rescored, ``gone`` ones dropped), ``added`` new pairs
    placed first, the way a rescan's new best matches sort to the top."""
    out = [_candidate(f"d-{1000 + i:04d}", f"d-{2000 + i:04d}", 0.99) for i in range(added)]
    for i in range(n):
        if i not in gone:
            out.append(_candidate(f"d-{i:04d}", f"d-{i + 1:04d}", 0.9 - i / 1000 - (0.05 if i in changed else 0)))
    return out


def _stored_pairs(path: Path, run_id: str) -> int:
    with sqlite3.connect(path) as raw:
        return raw.execute("SELECT COUNT(*) FROM candidates WHERE run_id = ?", (run_id,)).fetchone()[0]


def test_a_rescan_stores_only_its_new_or_changed_pairs_and_reads_all_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / SESSION_FILENAME
    runs = {
        "run-1": _pairs(40),
        "run-2": _pairs(40, changed={5}, gone={9, 30}, added=2),  # a rescored pair, 2 dropped, 2 new
        "run-3": _pairs(40, changed={6}),
        "run-4": [*reversed(_pairs(40))],  # the same pairs in another order
    }
    with ReviewSession.open(path) as s:
        for run_id, pairs in runs.items():
            s.record_run(_run(run_id, tmp_path), _archive(3), pairs)
        s.add_decision(Decision("d-0005", "d-0006", "keep_both", "alice", ""))
    assert [_stored_pairs(path, r) for r in runs] == [40, 3, 1, 0]  # against run-1 each time
    with ReviewSession.open(path, read_only=True) as s:
        for run_id, pairs in runs.items():
            assert s.candidates(run_id) == pairs
            assert list(s.pair_states(run_id)) == [c.key for c in pairs]
        assert s.pair_states("run-2")[("d-0005", "d-0006")].status == "keep_both"


def test_pairs_unchanged_from_the_latest_run_take_its_rows_without_their_values(tmp_path: Path, monkeypatch) -> None:
    from neardup_gui.io import session as session_mod

    made: list[int] = []
    real = session_mod._candidate_values
    monkeypatch.setattr(session_mod, "_candidate_values", lambda cs: made.append(len(got := real(cs))) or got)
    path = tmp_path / SESSION_FILENAME
    second = _pairs(40, changed={5})
    grown = [_candidate(f"d-{3000 + i:04d}", f"d-{4000 + i:04d}", 0.97) for i in range(30)] + second
    with ReviewSession.open(path) as s:
        s.record_run(_run("run-1", tmp_path), _archive(3), _pairs(40))
        s.record_run(_run("run-2", tmp_path), _archive(3), second)  # pair 5 stored: it differs from run-1
        made.clear()
        s.record_run(_run("run-3", tmp_path), _archive(3), second, unchanged_from=("run-2", [True] * 40))
        assert sum(made) == 1  # pair 5 only: run-2 took the 39 others from run-1, the base
        made.clear()
        s.record_run(_run("run-4", tmp_path), _archive(3), second, unchanged_from=("run-1", [True] * 40))
        assert sum(made) == 40  # run-1 is not the latest run: every pair compared by its values
        made.clear()
        s.record_run(_run("run-5", tmp_path), _archive(3), second, unchanged_from=("run-4", [True] * 39))
        assert sum(made) == 40  # a flag per candidate, or none taken
        # 30 new pairs are too many to store as differences: every row, the unchanged ones' made too.
        s.record_run(_run("run-6", tmp_path), _archive(3), grown, unchanged_from=("run-5", [False] * 30 + [True] * 40))
    assert [_stored_pairs(path, r) for r in ("run-3", "run-4", "run-5", "run-6")] == [1, 1, 1, 70]
    with ReviewSession.open(path, read_only=True) as s:
        for run_id in ("run-2", "run-3", "run-4", "run-5"):
            assert s.candidates(run_id) == second
        assert s.candidates("run-6") == grown


def test_segments_are_stored_as_the_json_earlier_versions_stored(tmp_path: Path) -> None:
    # A rescan compares each pair's row with the base's by a digest of its values: a segment
    # written another way would make every pair of a session written before look changed.
    import dataclasses
    import json

    path = tmp_path / SESSION_FILENAME
    pairs = _pairs(6)
    pairs[2] = dataclasses.replace(pairs[2], segments=(Segment(0, 12, 3, 15), Segment(10**9, 10**9 + 7, 0, 7)))
    pairs[3] = dataclasses.replace(pairs[3], segments=())
    with ReviewSession.open(path) as s:
        s.record_run(_run("run-1", tmp_path), _archive(3), pairs)
    with sqlite3.connect(path) as conn:
        stored = [r[0] for r in conn.execute("SELECT segments FROM candidates WHERE run_id = 'run-1' ORDER BY ord")]
    assert stored == [json.dumps([dataclasses.asdict(g) for g in c.segments], ensure_ascii=False) for c in pairs]


def test_candidates_that_changed_too_much_are_stored_whole(tmp_path: Path) -> None:
    path = tmp_path / SESSION_FILENAME
    many = set(range(int(40 * DELTA_SHARE) + 1))
    with ReviewSession.open(path) as s:
        s.record_run(_run("run-1", tmp_path), _archive(3), _pairs(40))
        s.record_run(_run("run-2", tmp_path), _archive(3), _pairs(40, changed=many))
        s.record_run(_run("run-3", tmp_path), _archive(3), _pairs(40, changed=many | {39}))
        s.record_run(_run("run-4", tmp_path), _archive(3), [])
        assert s.candidates("run-3") == _pairs(40, changed=many | {39})
        assert s.candidates("run-4") == []
    assert [_stored_pairs(path, r) for r in ("run-2", "run-3", "run-4")] == [40, 1, 0]


def test_a_manifest_that_changed_too_much_is_stored_whole_and_becomes_the_base(tmp_path: Path) -> None:
    path = tmp_path / SESSION_FILENAME
    n = 100
    many = set(range(int(n * DELTA_SHARE) + 1))
    with ReviewSession.open(path) as s:
        s.record_run(_run("run-1", tmp_path), _archive(n), [])
        s.record_run(_run("run-2", tmp_path), _archive(n, changed=many), [])
        s.record_run(_run("run-3", tmp_path), _archive(n, changed=many | {99}), [])
        s.record_run(_run("run-4", tmp_path), _archive(3), [])  # another folder in the same workspace
        assert s.documents("run-3") == _archive(n, changed=many | {99})
        assert s.documents("run-4") == _archive(3)
    assert _stored_rows(path, "run-2") == (n, 0)
    assert _stored_rows(path, "run-3") == (1, 0)  # against run-2
    assert _stored_rows(path, "run-4") == (3, 0)


# A session of schema 2 turned into what version 1 of the program wrote: every manifest whole in a
# rowid table, no digests, no bases.
_AS_SCHEMA_2 = """
ALTER TABLE runs DROP COLUMN candidates_base;
ALTER TABLE runs DROP COLUMN candidate_order;
ALTER TABLE candidates DROP COLUMN row_digest;
PRAGMA user_version = 2;
"""
_AS_SCHEMA_1 = _AS_SCHEMA_2 + """
ALTER TABLE runs DROP COLUMN manifest_base;
DROP TABLE removed_documents;
CREATE TABLE documents_1 (run_id TEXT NOT NULL REFERENCES runs(run_id), doc_id TEXT NOT NULL,
    source_id TEXT NOT NULL, version TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL,
    mtime REAL NOT NULL, sha256 TEXT NOT NULL, encoding TEXT NOT NULL, chars INTEGER NOT NULL,
    status TEXT NOT NULL, message TEXT NOT NULL, extractor TEXT NOT NULL,
    PRIMARY KEY (run_id, doc_id));
INSERT INTO documents_1 SELECT run_id, doc_id, source_id, version, path, size, mtime, sha256, encoding, chars,
    status, message, extractor FROM documents;
DROP TABLE documents;
ALTER TABLE documents_1 RENAME TO documents;
PRAGMA user_version = 1;
"""


def test_a_schema_1_session_is_read_as_it_is_and_upgraded_when_opened_for_writing(tmp_path: Path) -> None:
    path = tmp_path / SESSION_FILENAME
    with ReviewSession.open(path) as s:
        s.record_run(_run("run-1", tmp_path), _archive(50), _pairs(8))
        s.add_decision(Decision("d-0001", "d-0002", "keep_both", "alice", ""))
    with sqlite3.connect(path) as raw:  # as version 1 of the program left it
        raw.executescript(_AS_SCHEMA_1)
    with ReviewSession.open(path, read_only=True) as s:
        assert s.documents() == _archive(50)
        assert s.candidates() == _pairs(8)
        assert s.pair_state("d-0001", "d-0002").status == "keep_both"
    with ReviewSession.open(path) as s:
        s.record_run(_run("run-2", tmp_path), _archive(50, changed={1}), _pairs(8))
        assert s.documents("run-1") == _archive(50)
        assert s.documents("run-2") == _archive(50, changed={1})
        assert s.candidates("run-1") == s.candidates("run-2") == _pairs(8)
        assert s.pair_state("d-0001", "d-0002").stale
        s.record_run(_run("run-3", tmp_path), _archive(50, changed={1, 2}), _pairs(8, changed={3}))
        assert s.documents("run-3") == _archive(50, changed={1, 2})
        assert s.candidates("run-3") == _pairs(8, changed={3})
    # Schema 1's rows have no digest to compare: run-2 stores everything, run-3 its differences.
    assert (_stored_rows(path, "run-2"), _stored_pairs(path, "run-2")) == ((50, 0), 8)
    assert (_stored_rows(path, "run-3"), _stored_pairs(path, "run-3")) == ((1, 0), 1)
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3


def test_invalid_decisions_are_refused_with_a_reason(session: ReviewSession) -> None:
    with pytest.raises(ValueError, match="status"):
        session.add_decision(Decision("d-a", "d-b", "delete", "alice", ""))
    with pytest.raises(ValueError, match="reviewer"):
        session.add_decision(Decision("d-a", "d-b", "keep_both", "  ", ""))
    with pytest.raises(ValueError, match="ISO 8601"):
        session.add_decision(Decision("d-a", "d-b", "keep_both", "alice", "yesterday"))
    with pytest.raises(ValueError, match="arbitration"):
        session.add_arbitration(Arbitration("d-a", "d-b", "chief", "pending_arbitration", "", ""))
    assert session.decisions() == []


def test_a_session_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / SESSION_FILENAME
    ReviewSession.open(path).close()
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA user_version = 99")
    raw.close()
    with pytest.raises(SessionVersionError, match="newer"):
        ReviewSession.open(path)
    with pytest.raises(SessionVersionError, match="newer"):  # not "in use": the failed open let go
        ReviewSession.open(path)


def test_review_logic_loads_without_storage_or_qt() -> None:
    """core.review (pair states, times, id mapping) is pure: no SQLite, no io package, no Qt."""
    code = (
        "import sys, neardup_gui.core.review; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('sqlite3', '_sqlite3', 'PySide6')"
        " or m.startswith('neardup_gui.io')]; print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_session_keeps_exporting_the_review_names() -> None:
    from neardup_gui.core import review
    from neardup_gui.io import session

    for name in ("PairState", "effective_state", "utc_key", "pair_histories", "now_iso", "RETAINED_CHOICES"):
        assert getattr(session, name) is getattr(review, name)


def test_a_schema_2_session_keeps_its_manifest_differences_and_stores_candidates_as_differences_after(
    tmp_path: Path,
) -> None:
    path = tmp_path / SESSION_FILENAME
    moved = {0, 1, 2}  # more than a quarter of run-1's pairs: run-2's are stored whole, as schema 2 did
    with ReviewSession.open(path) as s:
        s.record_run(_run("run-1", tmp_path), _archive(50), _pairs(8))
        s.record_run(_run("run-2", tmp_path), _archive(50, changed={1}), _pairs(8, changed=moved))
    with sqlite3.connect(path) as raw:  # as the program left it before candidate lists were differences
        raw.executescript(_AS_SCHEMA_2)
    with ReviewSession.open(path, read_only=True) as s:
        assert s.documents("run-2") == _archive(50, changed={1})
        assert s.candidates("run-2") == _pairs(8, changed=moved)
    with ReviewSession.open(path) as s:
        s.record_run(_run("run-3", tmp_path), _archive(50, changed={1}), _pairs(8, changed=moved))
        s.record_run(_run("run-4", tmp_path), _archive(50, changed={1}), _pairs(8, changed=moved | {3}))
        assert s.candidates("run-3") == _pairs(8, changed=moved)
        assert s.candidates("run-4") == _pairs(8, changed=moved | {3})
        assert s.documents("run-4") == _archive(50, changed={1})
    # run-3 stores its pairs whole (schema 2's have no digest to compare), run-4 only the changed one.
    assert [_stored_pairs(path, r) for r in ("run-2", "run-3", "run-4")] == [8, 8, 1]
    assert _stored_rows(path, "run-4") == (1, 0)  # the manifest against run-1, as before


def _plain(value: object) -> bool:
    """Only built-in values, all the way down (tuples, and the records a candidate holds)."""
    if isinstance(value, tuple) and type(value) is tuple:
        return all(map(_plain, value))
    if dataclasses.is_dataclass(value) or hasattr(value, "_fields"):
        return all(_plain(getattr(value, name)) for name in (
            [f.name for f in dataclasses.fields(value)] if dataclasses.is_dataclass(value) else value._fields))  # type: ignore[arg-type]
    return type(value) in (str, int, float, bool, type(None))


@pytest.mark.parametrize("method", METHODS)
def test_every_candidate_value_is_a_plain_python_value(method: str) -> None:
    # A numpy number in a candidate prints and compares like a float, but is stored another way:
    # its session row got another digest than the same value read back (so a rescan stored every
    # pair again), and JSON cannot write a numpy integer at all.
    params = ScreenParams(method=method, threshold=0.2 if method != "simhash" else 0.5, all_scores="always")
    outcome = screen_folder(REPO / "resources" / "sample", params)
    assert outcome.candidates
    for candidate in outcome.candidates:
        bad = {f.name: type(getattr(candidate, f.name)) for f in dataclasses.fields(candidate)
               if not _plain(getattr(candidate, f.name))}  # fmt: skip
        assert not bad, (method, bad)


def _copies_of_one_template(folder: Path, n: int) -> None:
    """``n`` copies of one article, each with its own amount filled in and a character changed:
    a cluster in which every file is a near copy of every other."""
    import random

    rng = random.Random(8)
    base = "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(600))
    folder.mkdir()
    for i in range(n):
        at = rng.randrange(100, 500)
        text = f"{base[:at]}{rng.randrange(1000, 99999)}元{base[at:]}"
        p = rng.randrange(len(text))
        (folder / f"{i:03d}.txt").write_text(text[:p] + "改" + text[p + 1 :], encoding="utf-8")


def _distinct_objects(candidates) -> tuple[int, int]:
    """(distinct strings, distinct string objects) among the candidates' methods, flags and samples."""
    strings = [s for c in candidates for part in (c.methods, c.flags, c.shared_sample) for s in part]
    return len(set(strings)), len({id(s) for s in strings})


@pytest.mark.parametrize("compiled", [False, True], ids=["aligned-here", "compiled-batches"])
def test_a_cluster_of_near_copies_shares_its_repeated_strings(tmp_path: Path, monkeypatch, compiled: bool) -> None:
    # Every pair of a cluster names the same methods and flags and mostly the same sampled
    # shingles; each string held once, however many pairs hold it (freshly screened, by either
    # way of aligning, read back from the session, and taken over from the last run's pairs).
    from neardup_gui.core import diffspans

    kernel = diffspans._load_kernel() if compiled else None
    assert kernel is not None or not compiled
    monkeypatch.setattr(diffspans, "_kernel", lambda: kernel)  # small screens align here otherwise
    folder = tmp_path / "稿件"
    _copies_of_one_template(folder, 40)
    out = tmp_path / "ws"
    first = screen_folder(folder, ScreenParams(k=5, all_scores="never"), out_dir=out)
    assert len(first.candidates) >= 300 and all(c.shared_sample for c in first.candidates)
    distinct, objects = _distinct_objects(first.candidates)
    assert objects == distinct < len(first.candidates)
    with ReviewSession.open(out / "session.sqlite") as session:
        stored = session.candidates()
    assert [c.shared_sample for c in stored] == [c.shared_sample for c in first.candidates]
    assert _distinct_objects(stored)[1] == _distinct_objects(stored)[0]
    again = screen_folder(folder, ScreenParams(k=5, all_scores="never"), out_dir=out)
    assert again.run.counts["pairs_from_previous_run"] == len(first.candidates)
    assert _distinct_objects(again.candidates)[1] == _distinct_objects(again.candidates)[0]
