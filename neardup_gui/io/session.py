"""The review session: one SQLite database per workspace (``OUTDIR/session.sqlite``).

It holds the runs (parameters, versions, manifest, candidates with scores and evidence), every
review decision and arbitration (append-only history: triggers refuse UPDATE and DELETE), the
evaluation threshold table and small UI state such as the selected pair.

Durability: WAL journal, ``synchronous=FULL``, one committed transaction per decision, so a
decision reported as saved survives the process being killed at any moment.

One writer at a time: ``ReviewSession.open`` takes an exclusive advisory lock on the sibling file
``session.sqlite.lock`` (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows) and holds it
while open; a second writer gets ``SessionInUseError`` naming the holder. ``read_only=True`` never
takes the lock. The lock file is left in place on close (deleting it would let two processes lock
two different files).

Schema (``PRAGMA user_version`` = ``SCHEMA_VERSION``): ``meta``, ``runs``, ``documents``,
``candidates``, ``decisions``, ``arbitrations``, ``thresholds``, ``ui_state``.

Imports only the standard library and ``neardup_gui.core`` (never Qt).
"""

from __future__ import annotations

import getpass
import json
import os
import socket
import sqlite3
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from neardup_gui import __version__
from neardup_gui.core.records import (
    REVIEW_PENDING,
    REVIEW_PENDING_ARBITRATION,
    REVIEW_STATUSES,
    REVIEW_SUGGEST_MERGE,
    Arbitration,
    Candidate,
    Decision,
    Document,
    FlagEvidence,
    RunRecord,
    Segment,
)

SESSION_FILENAME = "session.sqlite"
SCHEMA_VERSION = 1
RETAINED_CHOICES = ("", "left", "right", "both")
UI_SELECTED_PAIR = "selected_pair"  # value: "left_doc_id\tright_doc_id"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL UNIQUE, source TEXT NOT NULL,
    params_json TEXT NOT NULL, bands INTEGER NOT NULL, rows INTEGER NOT NULL,
    versions_json TEXT NOT NULL, manifest_digest TEXT NOT NULL, counts_json TEXT NOT NULL,
    started TEXT NOT NULL, finished TEXT NOT NULL, integrity TEXT NOT NULL,
    changed_files_json TEXT NOT NULL, normalization TEXT NOT NULL, notes_json TEXT NOT NULL,
    recorded_at TEXT NOT NULL);
CREATE TABLE documents (
    run_id TEXT NOT NULL REFERENCES runs(run_id), doc_id TEXT NOT NULL, source_id TEXT NOT NULL,
    version TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL, mtime REAL NOT NULL,
    sha256 TEXT NOT NULL, encoding TEXT NOT NULL, chars INTEGER NOT NULL, status TEXT NOT NULL,
    message TEXT NOT NULL, extractor TEXT NOT NULL, PRIMARY KEY (run_id, doc_id));
CREATE TABLE candidates (
    run_id TEXT NOT NULL REFERENCES runs(run_id), left_id TEXT NOT NULL, right_id TEXT NOT NULL,
    ord INTEGER NOT NULL, methods_json TEXT NOT NULL, jaccard REAL NOT NULL,
    containment_left REAL NOT NULL, containment_right REAL NOT NULL, minhash_estimate REAL,
    shared_shingles INTEGER NOT NULL, shingles_left INTEGER NOT NULL,
    shingles_right INTEGER NOT NULL, length_ratio REAL NOT NULL, score REAL NOT NULL,
    flags_json TEXT NOT NULL, shared_sample_json TEXT NOT NULL, segments_json TEXT NOT NULL,
    evidence_json TEXT NOT NULL, tfidf_cosine REAL, simhash_distance INTEGER,
    suggestion TEXT NOT NULL, PRIMARY KEY (run_id, left_id, right_id));
CREATE TABLE decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT, left_id TEXT NOT NULL, right_id TEXT NOT NULL,
    status TEXT NOT NULL, reviewer TEXT NOT NULL, time TEXT NOT NULL, time_utc TEXT NOT NULL,
    reason TEXT NOT NULL, retained TEXT NOT NULL, related_source TEXT NOT NULL,
    original_source TEXT NOT NULL, author TEXT NOT NULL, reprint_permission TEXT NOT NULL,
    left_sha256 TEXT NOT NULL, right_sha256 TEXT NOT NULL, recorded_at TEXT NOT NULL);
CREATE INDEX candidates_pair ON candidates (left_id, right_id);
CREATE INDEX decisions_pair ON decisions (left_id, right_id);
CREATE TABLE arbitrations (
    id INTEGER PRIMARY KEY AUTOINCREMENT, left_id TEXT NOT NULL, right_id TEXT NOT NULL,
    arbitrator TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL, time TEXT NOT NULL,
    time_utc TEXT NOT NULL, recorded_at TEXT NOT NULL);
CREATE INDEX arbitrations_pair ON arbitrations (left_id, right_id);
CREATE TABLE thresholds (run_id TEXT NOT NULL, ord INTEGER NOT NULL, row_json TEXT NOT NULL,
    PRIMARY KEY (run_id, ord));
CREATE TABLE ui_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TRIGGER decisions_append_only_u BEFORE UPDATE ON decisions
    BEGIN SELECT RAISE(ABORT, 'decisions are append-only history'); END;
CREATE TRIGGER decisions_append_only_d BEFORE DELETE ON decisions
    BEGIN SELECT RAISE(ABORT, 'decisions are append-only history'); END;
CREATE TRIGGER arbitrations_append_only_u BEFORE UPDATE ON arbitrations
    BEGIN SELECT RAISE(ABORT, 'arbitrations are append-only history'); END;
CREATE TRIGGER arbitrations_append_only_d BEFORE DELETE ON arbitrations
    BEGIN SELECT RAISE(ABORT, 'arbitrations are append-only history'); END;
"""

_DOC_COLUMNS = [f.name for f in fields(Document)]
_DECISION_COLUMNS = (
    "left_id, right_id, status, reviewer, time, reason, retained, related_source, "
    "original_source, author, reprint_permission, left_sha256, right_sha256"
)


class SessionInUseError(RuntimeError):
    """Another process holds the session for writing."""


class SessionReadOnlyError(RuntimeError):
    """A write was attempted on a session opened with ``read_only=True``."""


@dataclass(frozen=True)
class PairState:
    """Where the review of one pair stands.

    Attributes:
        left, right: doc_ids of the pair.
        status: Effective status: ``pending`` without opinions; the agreed status when the
            reviewers' latest opinions agree; ``pending_arbitration`` when they differ and no later
            arbitration settled it; otherwise the latest arbitration's status.
        decisions: Every decision on the pair, in time order.
        arbitrations: Every arbitration on the pair, in time order.
        stale: True when a decision was made on a file whose SHA-256 differs from the file in
            the run the state was computed for.
    """

    left: str
    right: str
    status: str
    decisions: tuple[Decision, ...] = ()
    arbitrations: tuple[Arbitration, ...] = ()
    stale: bool = False

    @property
    def arbitration_state(self) -> str:
        """``arbitrated``, ``pending_arbitration`` or ``none``."""
        if self.status == REVIEW_PENDING_ARBITRATION:
            return "pending_arbitration"
        return "arbitrated" if self.arbitrations else "none"


def now_iso() -> str:
    """Current local time, ISO 8601 with its UTC offset, to the second."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


def utc_key(text: str) -> tuple[str, str]:
    """(ISO time as stored, sortable UTC key) for a decision time; empty means now.

    Naive times are taken as local time and get the local offset.

    Raises:
        ValueError: The text is not an ISO 8601 time.
    """
    if not text:
        text = now_iso()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"time {text!r} is not ISO 8601 (e.g. 2024-05-01T09:30:00+08:00)") from exc
    if moment.tzinfo is None:
        moment = moment.astimezone()
        text = moment.isoformat(timespec="seconds")
    return text, moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def _lock_file(handle: Any) -> bool:
    """Try to take an exclusive lock on an open file; False when someone else holds it."""
    if sys.platform == "win32":
        import msvcrt

        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _unlock_file(handle: Any) -> None:
    if sys.platform == "win32":
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _candidate_row(run_id: str, ord_: int, c: Candidate) -> tuple[Any, ...]:
    segments = [[s.left_start, s.left_end, s.right_start, s.right_end] for s in c.segments]
    evidence = [
        {
            "flag": e.flag,
            "left_spans": [list(span) for span in e.left_spans],
            "right_spans": [list(span) for span in e.right_spans],
            "note": e.note,
        }
        for e in c.evidence
    ]
    return (
        run_id, c.left, c.right, ord_, _dumps(list(c.methods)), c.jaccard, c.containment_left,
        c.containment_right, c.minhash_estimate, c.shared_shingles, c.shingles_left,
        c.shingles_right, c.length_ratio, c.score, _dumps(list(c.flags)),
        _dumps(list(c.shared_sample)), _dumps(segments), _dumps(evidence), c.tfidf_cosine,
        c.simhash_distance, c.suggestion,
    )  # fmt: skip


def _candidate_from_row(row: sqlite3.Row) -> Candidate:
    return Candidate(
        left=row["left_id"],
        right=row["right_id"],
        methods=tuple(json.loads(row["methods_json"])),
        jaccard=row["jaccard"],
        containment_left=row["containment_left"],
        containment_right=row["containment_right"],
        minhash_estimate=row["minhash_estimate"],
        shared_shingles=row["shared_shingles"],
        shingles_left=row["shingles_left"],
        shingles_right=row["shingles_right"],
        length_ratio=row["length_ratio"],
        score=row["score"],
        flags=tuple(json.loads(row["flags_json"])),
        shared_sample=tuple(json.loads(row["shared_sample_json"])),
        segments=tuple(Segment(*s) for s in json.loads(row["segments_json"])),
        evidence=tuple(
            FlagEvidence(
                flag=e["flag"],
                left_spans=tuple(tuple(span) for span in e["left_spans"]),
                right_spans=tuple(tuple(span) for span in e["right_spans"]),
                note=e["note"],
            )
            for e in json.loads(row["evidence_json"])
        ),
        tfidf_cosine=row["tfidf_cosine"],
        simhash_distance=row["simhash_distance"],
        suggestion=row["suggestion"],
    )


def _decision_from_row(row: sqlite3.Row) -> Decision:
    return Decision(
        left=row["left_id"], right=row["right_id"], status=row["status"],
        reviewer=row["reviewer"], time=row["time"], reason=row["reason"],
        retained=row["retained"], related_source=row["related_source"],
        original_source=row["original_source"], author=row["author"],
        reprint_permission=row["reprint_permission"], left_sha256=row["left_sha256"],
        right_sha256=row["right_sha256"],
    )  # fmt: skip


def _arbitration_from_row(row: sqlite3.Row) -> Arbitration:
    return Arbitration(
        left=row["left_id"], right=row["right_id"], arbitrator=row["arbitrator"],
        status=row["status"], reason=row["reason"], time=row["time"],
    )  # fmt: skip


def effective_state(
    left: str,
    right: str,
    decisions: Sequence[tuple[str, Decision]],
    arbitrations: Sequence[tuple[str, Arbitration]],
    shas: dict[str, str] | None = None,
) -> PairState:
    """Work out a pair's effective status from its history.

    Args:
        left, right: The pair.
        decisions: ``(utc_key, decision)`` in history order.
        arbitrations: ``(utc_key, arbitration)`` in history order.
        shas: doc_id -> current SHA-256, for the stale flag (None: never stale).

    Returns:
        The pair's state. Each reviewer's latest opinion counts (a reviewer may change their
        mind); ``pending`` opinions are "no opinion yet". Opinions given before the latest
        arbitration are settled by it.
    """
    latest: dict[str, tuple[str, Decision]] = {}
    for key, d in decisions:
        latest[d.reviewer.strip().casefold()] = (key, d)
    last_arb = arbitrations[-1] if arbitrations else None
    opinions = {
        d.status
        for key, d in latest.values()
        if d.status != REVIEW_PENDING and (last_arb is None or key > last_arb[0])
    }
    if last_arb is not None:
        opinions.add(last_arb[1].status)
    if not opinions:
        status = REVIEW_PENDING
    elif len(opinions) == 1:
        status = opinions.pop()
    else:
        status = REVIEW_PENDING_ARBITRATION
    stale = False
    if shas is not None:
        for _key, d in decisions:
            for doc_id, sha in ((d.left, d.left_sha256), (d.right, d.right_sha256)):
                current = shas.get(doc_id, "")
                if sha and current and sha != current:
                    stale = True
    return PairState(
        left=left,
        right=right,
        status=status,
        decisions=tuple(d for _k, d in decisions),
        arbitrations=tuple(a for _k, a in arbitrations),
        stale=stale,
    )


class ReviewSession:
    """An open review session. Use ``ReviewSession.open``; close it (or use ``with``).

    Methods are safe to call from several threads (one connection behind a lock).
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, lock_handle: Any, read_only: bool):
        self.path = path
        self.read_only = read_only
        self._conn = conn
        self._lock_handle = lock_handle
        self._mutex = threading.RLock()

    # -- opening and closing ---------------------------------------------------------------
    @classmethod
    def open(cls, path: Path, *, read_only: bool = False) -> ReviewSession:
        """Open (and, for a writer, create) the session database at ``path``.

        Args:
            path: The database file, normally ``OUTDIR/session.sqlite``.
            read_only: Open without the writer lock; every write raises
                ``SessionReadOnlyError`` (``set_ui_state`` is silently ignored).

        Raises:
            SessionInUseError: Another process has the session open for writing.
            FileNotFoundError: ``read_only`` and the database does not exist.
            RuntimeError: The database was made by a newer, incompatible version.
        """
        path = Path(path)
        if read_only:
            if not path.exists():
                raise FileNotFoundError(f"no review session at {path}")
            conn = sqlite3.connect(
                f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False,
                isolation_level=None, timeout=10.0,
            )  # fmt: skip
            conn.execute("PRAGMA query_only = ON")
            session = cls(path, conn, None, True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = cls._acquire_lock(path)
            try:
                conn = sqlite3.connect(
                    str(path), check_same_thread=False, isolation_level=None, timeout=10.0
                )
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = FULL")
            except BaseException:
                _unlock_file(handle)
                handle.close()
                raise
            session = cls(path, conn, handle, False)
        conn.row_factory = sqlite3.Row
        try:
            session._prepare_schema()
        except BaseException:
            session.close()
            raise
        return session

    @staticmethod
    def _acquire_lock(path: Path) -> Any:
        lock_path = path.with_name(path.name + ".lock")
        handle = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 - held while open
        if not _lock_file(handle):
            handle.seek(0)
            holder = handle.read().strip()
            handle.close()
            who = ""
            try:
                info = json.loads(holder)
                who = (
                    f" by {info.get('user', '?')} (process {info.get('pid', '?')} on "
                    f"{info.get('host', '?')}, since {info.get('since', '?')})"
                )
            except (ValueError, AttributeError):
                pass
            raise SessionInUseError(
                f"The review session {path} is already open{who}. Close it there first, "
                "or open it read-only to look without changing anything."
            )
        try:
            user = getpass.getuser()
        except (OSError, KeyError):
            user = "?"
        info = {"pid": os.getpid(), "host": socket.gethostname(), "user": user, "since": now_iso()}
        handle.seek(0)
        handle.truncate()
        # A leading newline keeps byte 0 (the byte msvcrt locks on Windows) out of the record.
        handle.write("\n" + json.dumps(info) + "\n")
        handle.flush()
        return handle

    def _prepare_schema(self) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"{self.path} was written by a newer neardup (schema {version}); "
                f"this version reads schema {SCHEMA_VERSION} or older"
            )
        if version == SCHEMA_VERSION:
            return
        if self.read_only:
            raise RuntimeError(f"{self.path} is not an initialised review session")
        if version != 0:
            raise RuntimeError(f"{self.path}: no migration from schema {version}")
        with self._mutex:
            # One script, one transaction: a kill here leaves an empty file, never half a schema.
            self._conn.executescript(
                "BEGIN IMMEDIATE;" + _SCHEMA
                + "INSERT INTO meta VALUES ('created_by', " + _sql_text(f"neardup_gui {__version__}")
                + "), ('created_at', " + _sql_text(now_iso()) + ");"
                + f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            )  # fmt: skip

    def close(self) -> None:
        """Close the database and release the writer lock. Safe to call twice."""
        with self._mutex:
            if self._conn is not None:
                self._conn.close()
                self._conn = None  # type: ignore[assignment]
            if self._lock_handle is not None:
                try:
                    self._lock_handle.seek(0)
                    self._lock_handle.truncate()
                    self._lock_handle.flush()
                finally:
                    _unlock_file(self._lock_handle)
                    self._lock_handle.close()
                    self._lock_handle = None

    def __enter__(self) -> ReviewSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing ------------------------------------------------------------------------------
    def _write(self) -> _WriteGuard:
        if self.read_only:
            raise SessionReadOnlyError(f"{self.path} was opened read-only")
        return _WriteGuard(self)

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._mutex:
            if self._conn is None:
                raise RuntimeError("the review session is closed")
            return self._conn.execute(sql, tuple(params)).fetchall()

    def _resolve_run(self, run_id: str | None) -> str | None:
        return run_id if run_id is not None else self.latest_run_id()

    # -- runs ------------------------------------------------------------------------------------
    def record_run(
        self, run: RunRecord, documents: Sequence[Document], candidates: Sequence[Candidate]
    ) -> str:
        """Store a finished screen: its record, manifest and candidates, in one transaction.

        Returns:
            The run id.

        Raises:
            ValueError: A run with that id is already stored.
        """
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (run.run_id,)).fetchone():
                raise ValueError(f"run {run.run_id!r} is already in the session")
            conn.execute(
                "INSERT INTO runs (run_id, source, params_json, bands, rows, versions_json, "
                "manifest_digest, counts_json, started, finished, integrity, changed_files_json, "
                "normalization, notes_json, recorded_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    run.run_id, run.source, _dumps(run.params), run.bands, run.rows,
                    _dumps(run.versions), run.manifest_digest, _dumps(run.counts), run.started,
                    run.finished, run.integrity, _dumps(list(run.changed_files)),
                    run.normalization, _dumps(list(run.notes)), now_iso(),
                ),
            )  # fmt: skip
            conn.executemany(
                f"INSERT INTO documents (run_id, {', '.join(_DOC_COLUMNS)}) "
                f"VALUES (?{', ?' * len(_DOC_COLUMNS)})",
                ((run.run_id, *(getattr(d, name) for name in _DOC_COLUMNS)) for d in documents),
            )
            conn.executemany(
                f"INSERT INTO candidates VALUES ({', '.join('?' * 21)})",
                (_candidate_row(run.run_id, i, c) for i, c in enumerate(candidates)),
            )
        return run.run_id

    def latest_run_id(self) -> str | None:
        """Id of the most recently recorded run, or None when no run was recorded."""
        rows = self._query("SELECT run_id FROM runs ORDER BY seq DESC LIMIT 1")
        return rows[0]["run_id"] if rows else None

    def runs(self) -> list[RunRecord]:
        """Every run, oldest first."""
        return [self._run_from_row(r) for r in self._query("SELECT * FROM runs ORDER BY seq")]

    def run(self, run_id: str) -> RunRecord:
        """One run. Raises ``KeyError`` when unknown."""
        rows = self._query("SELECT * FROM runs WHERE run_id = ?", (run_id,))
        if not rows:
            raise KeyError(f"no run {run_id!r} in {self.path}")
        return self._run_from_row(rows[0])

    @staticmethod
    def _run_from_row(row: sqlite3.Row) -> RunRecord:
        return RunRecord(
            run_id=row["run_id"], source=row["source"], params=json.loads(row["params_json"]),
            bands=row["bands"], rows=row["rows"], versions=json.loads(row["versions_json"]),
            manifest_digest=row["manifest_digest"], counts=json.loads(row["counts_json"]),
            started=row["started"], finished=row["finished"], integrity=row["integrity"],
            changed_files=tuple(json.loads(row["changed_files_json"])),
            normalization=row["normalization"], notes=tuple(json.loads(row["notes_json"])),
        )  # fmt: skip

    def documents(self, run_id: str | None = None) -> list[Document]:
        """The manifest of a run (default: the latest), ordered by path."""
        run_id = self._resolve_run(run_id)
        rows = self._query(
            f"SELECT {', '.join(_DOC_COLUMNS)} FROM documents WHERE run_id = ? ORDER BY path",
            (run_id,),
        )
        return [Document(*tuple(r)) for r in rows]

    def candidates(self, run_id: str | None = None) -> list[Candidate]:
        """The candidates of a run (default: the latest), in the order they were recorded."""
        run_id = self._resolve_run(run_id)
        rows = self._query("SELECT * FROM candidates WHERE run_id = ? ORDER BY ord", (run_id,))
        return [_candidate_from_row(r) for r in rows]

    def _shas(self, run_id: str | None) -> dict[str, str]:
        rows = self._query("SELECT doc_id, sha256 FROM documents WHERE run_id = ?", (run_id,))
        return {r["doc_id"]: r["sha256"] for r in rows}

    # -- decisions -------------------------------------------------------------------------------
    def _canonical_pair(self, a: str, b: str) -> tuple[str, str, bool]:
        """Order a pair as candidates are ordered (left's path sorts first); True when swapped."""
        known = self._query(
            "SELECT left_id FROM candidates WHERE (left_id = ? AND right_id = ?) "
            "OR (left_id = ? AND right_id = ?) ORDER BY rowid DESC LIMIT 1",
            (a, b, b, a),
        )
        if known:
            return (a, b, False) if known[0]["left_id"] == a else (b, a, True)
        paths = {
            r["doc_id"]: r["path"]
            for r in self._query(
                "SELECT doc_id, path FROM documents WHERE doc_id IN (?, ?) ORDER BY rowid",
                (a, b),
            )
        }
        key_a, key_b = (paths.get(a, a), a), (paths.get(b, b), b)
        return (a, b, False) if key_a <= key_b else (b, a, True)

    def add_decision(self, decision: Decision) -> Decision:
        """Append one decision to the history, in its own committed transaction.

        The pair is put in candidate order (swapping ``retained`` and the hashes if given
        reversed); an empty ``time`` becomes now; empty hashes are filled from the latest run.

        Returns:
            The decision exactly as stored.

        Raises:
            ValueError: Unknown status, bad ``retained``, empty reviewer or a bad time.
            SessionReadOnlyError: The session is read-only.
        """
        if decision.status not in REVIEW_STATUSES:
            raise ValueError(f"unknown status {decision.status!r}; use one of {REVIEW_STATUSES}")
        if decision.retained not in RETAINED_CHOICES:
            raise ValueError("retained must be 'left', 'right', 'both' or empty")
        if not decision.reviewer.strip():
            raise ValueError("a decision needs a reviewer name")
        if decision.left == decision.right:
            raise ValueError("a pair needs two different documents")
        time_text, utc = utc_key(decision.time)
        left, right, swapped = self._canonical_pair(decision.left, decision.right)
        d = decision
        if swapped:
            retained = {"left": "right", "right": "left"}.get(d.retained, d.retained)
            d = replace(d, left=left, right=right, retained=retained,
                        left_sha256=d.right_sha256, right_sha256=d.left_sha256)  # fmt: skip
        shas = self._shas(self.latest_run_id())
        d = replace(d, time=time_text, reviewer=d.reviewer.strip(),
                    left_sha256=d.left_sha256 or shas.get(left, ""),
                    right_sha256=d.right_sha256 or shas.get(right, ""))  # fmt: skip
        with self._write() as conn:
            conn.execute(
                f"INSERT INTO decisions ({_DECISION_COLUMNS}, time_utc, recorded_at) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (d.left, d.right, d.status, d.reviewer, d.time, d.reason, d.retained,
                 d.related_source, d.original_source, d.author, d.reprint_permission,
                 d.left_sha256, d.right_sha256, utc, now_iso()),
            )  # fmt: skip
        return d

    def decisions(self, left: str | None = None, right: str | None = None) -> list[Decision]:
        """Decision history, in time order (ties in the order recorded).

        Args:
            left, right: Restrict to one pair (either order); None for all pairs.
        """
        return [d for _k, d in self._decision_rows(left, right)]

    def _pair_filter(self, left: str | None, right: str | None) -> tuple[str, tuple[str, ...]]:
        if left is None or right is None:
            return "", ()
        l, r, _ = self._canonical_pair(left, right)
        return " WHERE left_id = ? AND right_id = ?", (l, r)

    def _decision_rows(self, left: str | None, right: str | None) -> list[tuple[str, Decision]]:
        where, params = self._pair_filter(left, right)
        rows = self._query(f"SELECT * FROM decisions{where} ORDER BY time_utc, id", params)
        return [(r["time_utc"], _decision_from_row(r)) for r in rows]

    def _arbitration_rows(
        self, left: str | None, right: str | None
    ) -> list[tuple[str, Arbitration]]:
        where, params = self._pair_filter(left, right)
        rows = self._query(f"SELECT * FROM arbitrations{where} ORDER BY time_utc, id", params)
        return [(r["time_utc"], _arbitration_from_row(r)) for r in rows]

    def add_arbitration(self, arb: Arbitration) -> Arbitration:
        """Append an arbitration (the final word on a disputed pair) in its own transaction.

        Returns:
            The arbitration as stored (pair in candidate order, time filled in).

        Raises:
            ValueError: Empty arbitrator, or a status that is not a conclusion.
        """
        conclusions = tuple(s for s in REVIEW_STATUSES if s != REVIEW_PENDING_ARBITRATION)
        if arb.status not in conclusions:
            raise ValueError(f"an arbitration's status must be one of {conclusions}")
        if not arb.arbitrator.strip():
            raise ValueError("an arbitration needs the arbitrator's name")
        time_text, utc = utc_key(arb.time)
        left, right, _ = self._canonical_pair(arb.left, arb.right)
        a = Arbitration(left, right, arb.arbitrator.strip(), arb.status, arb.reason, time_text)
        with self._write() as conn:
            conn.execute(
                "INSERT INTO arbitrations (left_id, right_id, arbitrator, status, reason, time, "
                "time_utc, recorded_at) VALUES (?,?,?,?,?,?,?,?)",
                (a.left, a.right, a.arbitrator, a.status, a.reason, a.time, utc, now_iso()),
            )
        return a

    def arbitrations(self, left: str | None = None, right: str | None = None) -> list[Arbitration]:
        """Arbitration history, in time order; optionally for one pair."""
        return [a for _k, a in self._arbitration_rows(left, right)]

    def pair_state(self, left: str, right: str) -> PairState:
        """The review state of one pair, stale against the latest run's files."""
        l, r, _ = self._canonical_pair(left, right)
        return effective_state(
            l, r, self._decision_rows(l, r), self._arbitration_rows(l, r),
            self._shas(self.latest_run_id()),
        )  # fmt: skip

    def pair_states(self, run_id: str | None = None) -> dict[tuple[str, str], PairState]:
        """States of every candidate pair of a run (default: the latest), keyed (left, right).

        Reads each table once, whatever the number of pairs.
        """
        run_id = self._resolve_run(run_id)
        keys = [
            (r["left_id"], r["right_id"])
            for r in self._query(
                "SELECT left_id, right_id FROM candidates WHERE run_id = ? ORDER BY ord", (run_id,)
            )
        ]
        decided: dict[tuple[str, str], list[tuple[str, Decision]]] = {}
        for key, d in self._decision_rows(None, None):
            decided.setdefault((d.left, d.right), []).append((key, d))
        arbitrated: dict[tuple[str, str], list[tuple[str, Arbitration]]] = {}
        for key, a in self._arbitration_rows(None, None):
            arbitrated.setdefault((a.left, a.right), []).append((key, a))
        shas = self._shas(run_id)
        return {
            k: effective_state(k[0], k[1], decided.get(k, []), arbitrated.get(k, []), shas)
            for k in keys
        }

    def id_mapping(self) -> list[tuple[str, str, str, str]]:
        """Old-id to new-id mapping of pairs whose effective status is ``suggest_merge_entry``.

        Returns:
            ``(old_doc_id, new_doc_id, decided_by, time)``: ``new_doc_id`` is the entry kept
            (the retained side of the latest merge decision with ``retained`` left or right),
            ``old_doc_id`` the one mapped to it. When an arbitration settled the pair,
            ``decided_by`` names the arbitrator and ``time`` is the arbitration's.
        """
        decided: dict[tuple[str, str], list[tuple[str, Decision]]] = {}
        for key, d in self._decision_rows(None, None):
            decided.setdefault((d.left, d.right), []).append((key, d))
        arbitrated: dict[tuple[str, str], list[tuple[str, Arbitration]]] = {}
        for key, a in self._arbitration_rows(None, None):
            arbitrated.setdefault((a.left, a.right), []).append((key, a))
        out: list[tuple[str, str, str, str]] = []
        for (left, right), history in decided.items():
            arbs = arbitrated.get((left, right), [])
            if effective_state(left, right, history, arbs).status != REVIEW_SUGGEST_MERGE:
                continue
            merges = [d for _k, d in history
                      if d.status == REVIEW_SUGGEST_MERGE and d.retained in ("left", "right")]  # fmt: skip
            if not merges:
                continue
            chosen = merges[-1]
            kept, old = (left, right) if chosen.retained == "left" else (right, left)
            by, when = chosen.reviewer, chosen.time
            if arbs and arbs[-1][1].status == REVIEW_SUGGEST_MERGE:
                by, when = f"{arbs[-1][1].arbitrator} (arbitration)", arbs[-1][1].time
            out.append((old, kept, by, when))
        return out

    # -- small state -----------------------------------------------------------------------------
    def set_ui_state(self, key: str, value: str) -> None:
        """Remember a piece of UI state (e.g. the selected pair). Ignored when read-only."""
        if self.read_only:
            return
        with self._write() as conn:
            conn.execute("INSERT OR REPLACE INTO ui_state VALUES (?, ?)", (key, value))

    def ui_state(self, key: str, default: str = "") -> str:
        """A piece of UI state, or ``default``."""
        rows = self._query("SELECT value FROM ui_state WHERE key = ?", (key,))
        return rows[0]["value"] if rows else default

    def set_thresholds(self, rows: list[dict[str, Any]], run_id: str | None = None) -> None:
        """Replace the label-evaluation threshold table of a run (default: the latest).

        Rows are dicts such as ``{k, threshold, candidates, tp, fp, fn, precision, recall,
        candidate_recall}`` (precision/recall None when undefined).
        """
        run_id = self._resolve_run(run_id) or ""
        with self._write() as conn:
            conn.execute("DELETE FROM thresholds WHERE run_id = ?", (run_id,))
            conn.executemany(
                "INSERT INTO thresholds VALUES (?, ?, ?)",
                ((run_id, i, json.dumps(row, ensure_ascii=False)) for i, row in enumerate(rows)),
            )

    def thresholds(self, run_id: str | None = None) -> list[dict[str, Any]]:
        """The threshold table of a run (default: the latest); empty when none was evaluated."""
        run_id = self._resolve_run(run_id) or ""
        rows = self._query(
            "SELECT row_json FROM thresholds WHERE run_id = ? ORDER BY ord", (run_id,)
        )
        return [json.loads(r["row_json"]) for r in rows]


class _WriteGuard:
    """``with`` block = one IMMEDIATE transaction, committed (and synced) on exit."""

    def __init__(self, session: ReviewSession):
        self._session = session

    def __enter__(self) -> sqlite3.Connection:
        self._session._mutex.acquire()
        conn = self._session._conn
        if conn is None:
            self._session._mutex.release()
            raise RuntimeError("the review session is closed")
        conn.execute("BEGIN IMMEDIATE")
        return conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        conn = self._session._conn
        try:
            if exc_type is None:
                conn.execute("COMMIT")
            else:
                conn.execute("ROLLBACK")
        finally:
            self._session._mutex.release()
