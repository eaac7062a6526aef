"""The review session: one SQLite database per workspace (``OUTDIR/session.sqlite``).

It holds the runs (record, manifest, candidates with scores and evidence), every review decision
and arbitration (append-only history: triggers refuse UPDATE and DELETE), the evaluation
threshold table and small UI state such as the selected pair.

Durability: WAL journal, ``synchronous=FULL``, one committed transaction per decision, so a
decision reported as saved survives the process being killed at any moment.

One writer at a time: ``ReviewSession.open`` takes an exclusive advisory lock on the sibling file
``session.sqlite.lock`` (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows) and holds it
while open; a second writer gets ``SessionInUseError`` naming the holder (user, process, host,
since). ``read_only=True`` never takes the lock. The lock file stays in place on close (deleting
it would let two processes lock two different files).

Schema (``PRAGMA user_version`` = ``SCHEMA_VERSION``): ``meta``, ``runs`` (``RunRecord`` as
JSON), ``documents`` and ``candidates`` per run (nested parts of a candidate as JSON),
``decisions``, ``arbitrations`` (with a UTC sort key), ``thresholds``, ``ui_state``.

Manifests are stored as differences: a run whose manifest differs from the last complete one
(``runs.manifest_base``) in at most ``DELTA_SHARE`` of its rows stores only the rows that differ,
plus the ids of the base's documents it no longer has (``removed_documents``); otherwise it stores
every row and becomes the base of the runs after it. A rescan of 100,000 files with 1 % changed thus
adds ~1,000 rows instead of 100,000 (~35 MB a run otherwise). Reading a run's manifest puts the
two together; the result is the same as if every row had been stored. Candidates likewise
(``runs.candidates_base``): a run whose pairs are mostly the base's, with the same scores,
passages and flags, stores only its new or changed pairs and its order (``runs.candidate_order``:
for each position, the base's ``ord`` of the row taken over, or -1 for the run's own row with that
``ord``). Sessions of schema 1 (every manifest and candidate list whole) are upgraded in place when
opened for writing, and read as they are; so are those of schema 2 (manifests as differences,
candidate lists whole).

Opening a workspace's session (``OUTDIR/session.sqlite``) for writing also settles the output
files a killed screen left half-published (``neardup_gui.io.outputs.settle_pending``), so the
files beside the session always belong to its latest run.

The review logic itself (effective status of a pair, UTC ordering of times, the id mapping,
checks on a decision) is pure and lives in :mod:`neardup_gui.core.review`; its names are
re-exported here for existing imports.

Imports only the standard library and ``neardup_gui.core`` (never Qt).
"""

from __future__ import annotations

import functools
import getpass
import hashlib
import json
import marshal
import os
import re
import socket
import sqlite3
import struct
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from itertools import compress
from operator import attrgetter, itemgetter, not_
from pathlib import Path
from typing import Any

from neardup_gui import __version__
from neardup_gui.core.progress import list_giving_way, slices_giving_way
from neardup_gui.core.records import (
    Arbitration,
    Candidate,
    Decision,
    Document,
    FlagEvidence,
    RunRecord,
    Segment,
    SharedWhereRepeated,
    document,
    shared_strings,
)
from neardup_gui.core.review import (
    RETAINED_CHOICES,
    PairState,
    effective_state,
    id_mapping,
    now_iso,
    pair_histories,
    swap_sides,
    utc_key,
    validate_arbitration,
    validate_decision,
)

__all__ = [
    "DELTA_SHARE",
    "RETAINED_CHOICES",
    "SCHEMA_VERSION",
    "SESSION_FILENAME",
    "UI_SELECTED_PAIR",
    "ManifestValues",
    "PairState",
    "ReviewSession",
    "SessionInUseError",
    "SessionReadOnlyError",
    "SessionVersionError",
    "effective_state",
    "manifest_values",
    "now_iso",
    "pair_histories",
    "utc_key",
]

SESSION_FILENAME = "session.sqlite"
SCHEMA_VERSION = 3
# A run stores its whole manifest again once more than this share of its rows differ from the base's.
DELTA_SHARE = 0.25
UI_SELECTED_PAIR = "selected_pair"  # value: "left_doc_id\tright_doc_id"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL, started TEXT NOT NULL, finished TEXT NOT NULL,
    record_json TEXT NOT NULL, recorded_at TEXT NOT NULL, manifest_base TEXT, candidates_base TEXT,
    candidate_order BLOB);
CREATE TABLE documents (run_id TEXT NOT NULL REFERENCES runs(run_id), doc_id TEXT NOT NULL,
    source_id TEXT NOT NULL, version TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL,
    mtime REAL NOT NULL, sha256 TEXT NOT NULL, encoding TEXT NOT NULL, chars INTEGER NOT NULL,
    status TEXT NOT NULL, message TEXT NOT NULL, extractor TEXT NOT NULL, row_digest BLOB,
    PRIMARY KEY (run_id, doc_id)) WITHOUT ROWID;
CREATE TABLE removed_documents (run_id TEXT NOT NULL REFERENCES runs(run_id),
    doc_id TEXT NOT NULL, PRIMARY KEY (run_id, doc_id));
CREATE TABLE candidates (run_id TEXT NOT NULL REFERENCES runs(run_id), ord INTEGER NOT NULL,
    left_id TEXT NOT NULL, right_id TEXT NOT NULL, methods TEXT NOT NULL, jaccard REAL NOT NULL,
    containment_left REAL NOT NULL, containment_right REAL NOT NULL, minhash_estimate REAL,
    shared_shingles INTEGER NOT NULL, shingles_left INTEGER NOT NULL,
    shingles_right INTEGER NOT NULL, length_ratio REAL NOT NULL, score REAL NOT NULL,
    flags TEXT NOT NULL, shared_sample TEXT NOT NULL, segments TEXT NOT NULL,
    evidence TEXT NOT NULL, tfidf_cosine REAL, simhash_distance INTEGER, suggestion TEXT NOT NULL,
    row_digest BLOB, PRIMARY KEY (run_id, left_id, right_id));
CREATE INDEX candidates_pair ON candidates (left_id, right_id);
CREATE TABLE decisions (id INTEGER PRIMARY KEY AUTOINCREMENT, left_id TEXT NOT NULL,
    right_id TEXT NOT NULL, status TEXT NOT NULL, reviewer TEXT NOT NULL, time TEXT NOT NULL,
    reason TEXT NOT NULL, retained TEXT NOT NULL, related_source TEXT NOT NULL,
    original_source TEXT NOT NULL, author TEXT NOT NULL, reprint_permission TEXT NOT NULL,
    left_sha256 TEXT NOT NULL, right_sha256 TEXT NOT NULL, time_utc TEXT NOT NULL,
    recorded_at TEXT NOT NULL);
CREATE INDEX decisions_pair ON decisions (left_id, right_id);
CREATE TABLE arbitrations (id INTEGER PRIMARY KEY AUTOINCREMENT, left_id TEXT NOT NULL,
    right_id TEXT NOT NULL, arbitrator TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL,
    time TEXT NOT NULL, time_utc TEXT NOT NULL, recorded_at TEXT NOT NULL);
CREATE INDEX arbitrations_pair ON arbitrations (left_id, right_id);
CREATE TABLE thresholds (run_id TEXT NOT NULL, ord INTEGER NOT NULL, row_json TEXT NOT NULL,
    PRIMARY KEY (run_id, ord));
CREATE TABLE ui_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
# Schema 1 -> 2: manifests as differences from a complete one (old runs keep theirs whole).
# The documents table is rebuilt keyed by (run_id, doc_id) alone (a run's rows side by side).
_UPGRADE_1 = (
    """
ALTER TABLE runs ADD COLUMN manifest_base TEXT;
CREATE TABLE removed_documents (run_id TEXT NOT NULL REFERENCES runs(run_id),
    doc_id TEXT NOT NULL, PRIMARY KEY (run_id, doc_id));
ALTER TABLE documents RENAME TO documents_1;
"""
    + _SCHEMA[_SCHEMA.index("CREATE TABLE documents") : _SCHEMA.index("CREATE TABLE removed_documents")]
    + """
INSERT INTO documents SELECT *, NULL FROM documents_1;
DROP TABLE documents_1;
"""
)
# Schema 2 -> 3: candidate lists as differences from a complete one.
_UPGRADE_2 = """
ALTER TABLE runs ADD COLUMN candidates_base TEXT;
ALTER TABLE runs ADD COLUMN candidate_order BLOB;
ALTER TABLE candidates ADD COLUMN row_digest BLOB;
"""
# History is append-only, whoever writes to the file.
_SCHEMA += "".join(
    f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} "
    f"BEGIN SELECT RAISE(ABORT, '{table} are append-only history'); END;\n"
    for table in ("decisions", "arbitrations")
    for op in ("UPDATE", "DELETE")
)

# Record field -> column: the pair's ids get an ``_id`` suffix (LEFT and RIGHT are SQL keywords).
_COLUMN = {"left": "left_id", "right": "right_id"}
_DOC_FIELDS = [f.name for f in fields(Document)]
# Manifest columns that take few values across a folder (its folders, versions, encodings,
# statuses, messages, extractors): read back, each distinct value is held once instead of once
# per row (SQLite gives each cell a string of its own), ~27 MB less at 100,000 files for as long
# as the window shows the run.
_FEW_VALUES = tuple(_DOC_FIELDS.index(n) for n in ("source_id", "version", "encoding", "status", "message", "extractor"))
_CAND_FIELDS = [f.name for f in fields(Candidate)]
_CAND_JSON = {"methods", "flags", "shared_sample", "segments", "evidence"}
_DEC_FIELDS = [f.name for f in fields(Decision)]
_ARB_FIELDS = [f.name for f in fields(Arbitration)]


def _columns(names: Iterable[str]) -> str:
    return ", ".join(_COLUMN.get(n, n) for n in names)


@dataclass(frozen=True)
class ManifestValues:
    """A manifest's rows as the session stores them: their digests, and their values when made
    (``manifest_values``). Without values a row's are made when it is stored (a rescan stores the
    ~1 % of rows that differ from the last run's)."""

    documents: Sequence[Document]
    digests: list[bytes]
    values: list[tuple[Any, ...]] | None = None

    def row(self, i: int) -> tuple[Any, ...]:
        """Document ``i``'s values, as stored."""
        return self.values[i] if self.values is not None else _doc_values(self.documents[i])


def manifest_values(documents: Sequence[Document], digests: Sequence[bytes | None] | None = None) -> ManifestValues:
    """The values and digests ``ReviewSession.record_run`` stores for ``documents``: a caller
    with time to spare before the run is recorded can make them then.

    ``digests``: per document, its row's digest when known (``io.carry``: the row the last run
    stored, carried over), else None; only the other rows' values are made then, and they are
    not kept (``ManifestValues.row`` makes a row's values again if it is stored)."""
    if digests is None:
        values = [_doc_values(d) for part in slices_giving_way(documents, 1024) for d in part]
        return ManifestValues(documents, _row_digests(values), values)
    if len(digests) != len(documents):
        raise ValueError("one digest (or None) per document")
    missing = [i for i, d in enumerate(digests) if d is None]
    made = _row_digests([_doc_values(documents[i]) for i in missing])
    out = list(digests)
    for i, d in zip(missing, made):
        out[i] = d
    return ManifestValues(documents, out)


def _row_digests(values: list[tuple[Any, ...]]) -> list[bytes]:
    """128-bit digests of manifest rows' values: equal rows, equal digests. (``marshal`` format 2
    writes values only, never references to objects seen before as ``pickle`` does, so its bytes
    depend on the values alone.)"""
    blake, dumps = hashlib.blake2b, marshal.dumps
    return [blake(dumps(v, 2), digest_size=16).digest() for part in slices_giving_way(values, 1024) for v in part]


def _doc_ids_of(cursor: sqlite3.Cursor, run_id: str) -> list[str]:
    """The doc_ids of run ``run_id``'s own manifest rows."""
    return [r[0] for r in cursor.execute("SELECT doc_id FROM documents WHERE run_id = ?", (run_id,))]


def _stored_of(cursor: sqlite3.Cursor, run_id: str, doc_ids: Sequence[str]) -> int:
    """How many of ``doc_ids`` (distinct) have a manifest row of run ``run_id``'s own."""
    found = 0
    for lo in range(0, len(doc_ids), 500):  # (SQLite's older limit on parameters is 999)
        part = doc_ids[lo : lo + 500]
        sql = f"SELECT count(*) FROM documents WHERE run_id = ? AND doc_id IN ({', '.join('?' * len(part))})"
        found += cursor.execute(sql, (run_id, *part)).fetchone()[0]
    return found


def _manifest_sql(names: Sequence[str], ids: int = 0) -> str:
    """A run's manifest rows (columns ``names``): parameters ``(run_id, manifest base or None,
    *doc_ids)``, ``ids`` doc_ids restricting the rows when given. The run's own rows, then the
    base's rows it neither replaced nor removed (none when the base is None: a complete
    manifest)."""
    columns = ", ".join(f"d.{n}" for n in names)
    where = f" AND d.doc_id IN ({', '.join(f'?{i + 3}' for i in range(ids))})" if ids else ""
    return (
        f"SELECT {columns} FROM documents AS d WHERE d.run_id = ?1{where} "
        f"UNION ALL SELECT {columns} FROM documents AS d WHERE d.run_id = ?2{where} "
        "AND NOT EXISTS (SELECT 1 FROM documents AS x WHERE x.run_id = ?1 AND x.doc_id = d.doc_id) "
        "AND NOT EXISTS (SELECT 1 FROM removed_documents AS r WHERE r.run_id = ?1 AND r.doc_id = d.doc_id)"
    )


class SessionInUseError(RuntimeError):
    """Another process holds the session for writing."""


class SessionReadOnlyError(RuntimeError):
    """A write was attempted on a session opened with ``read_only=True``."""


class SessionVersionError(RuntimeError):
    """The file is a session of a newer version, or not a review session at all."""


def _lock(handle: Any, take: bool) -> bool:
    """Take (non-blocking) or release the exclusive lock; False when someone else holds it."""
    try:
        if sys.platform == "win32":
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK if take else msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), (fcntl.LOCK_EX | fcntl.LOCK_NB) if take else fcntl.LOCK_UN)
    except OSError:
        return False
    return True


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _record_dict(cls: type) -> Callable[[Any], dict[str, Any]]:
    """``dataclasses.asdict`` for a flat record class (fields hold text, numbers and tuples)."""
    names = tuple(f.name for f in fields(cls))
    values = attrgetter(*names)
    return lambda record: dict(zip(names, values(record)))


_to_json = json.JSONEncoder(ensure_ascii=False).encode  # what json.dumps(x, ensure_ascii=False) does
_evidence_dict = _record_dict(FlagEvidence)
_segment_values = attrgetter(*(f.name for f in fields(Segment)))
_SEGMENT_JSON = "{{" + ", ".join(f'"{f.name}": {{}}' for f in fields(Segment)) + "}}"


def _segments_json(segments: Iterable[Segment]) -> str:
    """``_to_json`` of the segments as dicts, character for character (the rows' digests compare
    it with what earlier runs stored), made by formatting: their fields are integers, and this is
    ~3x faster for the ~60,000 segments of a 100,000-file screen's pairs."""
    return "[" + ", ".join([_SEGMENT_JSON.format(*_segment_values(s)) for s in segments]) + "]"


# What JSON escapes in a string (``ensure_ascii=False``): the quote, the backslash, control characters.
_JSON_ESCAPED = re.compile(r'[\x00-\x1f"\\]')


def _texts_json(texts: Sequence[str]) -> str:
    """``_to_json`` of a sequence of texts, character for character, made by joining them when
    none needs escaping (4x faster: ~9,000 shared samples a rescan of 100,000 files)."""
    try:
        joined = "".join(texts)
    except TypeError:  # not all texts
        return _to_json(texts)
    if not texts:
        return "[]"
    if _JSON_ESCAPED.search(joined) is not None:
        return _to_json(texts)
    return '["' + '", "'.join(texts) + '"]'


def _spans_json(spans: Iterable[tuple[int, int]]) -> str:
    """``_to_json`` of (start, end) pairs of whole numbers (anything else: through ``json``)."""
    parts = [f"[{a}, {b}]" if type(a) is int and type(b) is int else "" for a, b in spans]
    return "[" + ", ".join(parts) + "]" if all(parts) else _to_json(spans)


def _evidence_json(evidence: Sequence[FlagEvidence]) -> str:
    """``_to_json`` of the evidence as dicts, character for character (as ``_segments_json``)."""
    if not evidence:
        return "[]"
    try:
        parts = [f'{{"flag": {_text_json(e.flag)}, "left_spans": {_spans_json(e.left_spans)}, '
                 f'"right_spans": {_spans_json(e.right_spans)}, "note": {_text_json(e.note)}}}' for e in evidence]
    except (TypeError, ValueError):  # spans that are not pairs of numbers: as JSON makes them
        return _to_json(list(map(_evidence_dict, evidence)))
    return "[" + ", ".join(parts) + "]"


def _text_json(text: str) -> str:
    return f'"{text}"' if type(text) is str and _JSON_ESCAPED.search(text) is None else _to_json(text)


_texts_json_once = functools.lru_cache(maxsize=1024)(_texts_json)


def _names_json(names: Sequence[str]) -> str:
    """``_texts_json`` for methods and flags, which repeat from pair to pair: each distinct tuple
    is made once."""
    try:
        return _texts_json_once(names)
    except TypeError:  # not hashable (a list)
        return _texts_json(names)


# One converter per candidate column that is not stored as it is (JSON text for nested parts).
_CAND_CONVERT: dict[str, Callable[[Any], Any]] = {
    "methods": _names_json,
    "flags": _names_json,
    "shared_sample": _texts_json,
    "segments": _segments_json,
    "evidence": _evidence_json,
}
_cand_values = attrgetter(*_CAND_FIELDS)
_doc_values = attrgetter(*_DOC_FIELDS)


def _candidate_values(candidates: Iterable[Candidate]) -> list[tuple[Any, ...]]:
    """The ``candidates`` table values of each candidate (``_CAND_FIELDS``; nested parts as JSON)."""
    convert = [_CAND_CONVERT.get(name) for name in _CAND_FIELDS]
    return [tuple(v if f is None else f(v) for f, v in zip(convert, _cand_values(c))) for c in candidates]


# The JSON columns of a candidate, decoded in one call per row as one array (five calls a row took
# 0.2 s of 0.45 s reading 8,800 candidates back), and a passage's offsets taken in one C call.
_JSON_ORDER = tuple(name for name in _CAND_FIELDS if name in _CAND_JSON)
_decode_json = json.JSONDecoder().decode
_passage_offsets = itemgetter(*(f.name for f in fields(Segment)))


def _candidate_from_row(row: sqlite3.Row, strings: dict[str, str], samples: SharedWhereRepeated) -> Candidate:
    data = {name: row[_COLUMN.get(name, name)] for name in _CAND_FIELDS}
    decoded = _decode_json("[" + ",".join([data[name] for name in _JSON_ORDER]) + "]")
    data.update(zip(_JSON_ORDER, map(tuple, decoded)))
    for name in ("methods", "flags"):
        data[name] = shared_strings(data[name], strings)
    data["shared_sample"] = samples(data["shared_sample"])
    data["segments"] = tuple(Segment(*_passage_offsets(s)) for s in data["segments"])
    data["evidence"] = tuple(
        FlagEvidence(e["flag"], tuple(map(tuple, e["left_spans"])),
                     tuple(map(tuple, e["right_spans"])), e["note"])  # fmt: skip
        for e in data["evidence"]
    )
    return Candidate(**data)


class ReviewSession:
    """An open review session. Use ``ReviewSession.open``; close it (or use ``with``).

    Methods are safe to call from several threads (one connection behind a lock).
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, lock_handle: Any, read_only: bool):
        self.path = path
        self.read_only = read_only
        self._conn: sqlite3.Connection | None = conn
        self._lock_handle = lock_handle
        self._mutex = threading.RLock()
        self._schema = SCHEMA_VERSION

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
            SessionVersionError: The database was made by a newer, incompatible version.
            sqlite3.DatabaseError: The file is not an SQLite database.
        """
        path = Path(path)
        handle = None
        try:
            if read_only:
                if not path.exists():
                    raise FileNotFoundError(f"no review session at {path}")
                conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                                       check_same_thread=False, isolation_level=None, timeout=10)  # fmt: skip
                conn.execute("PRAGMA query_only = ON")
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                handle = cls._acquire_lock(path)
                conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None,
                                       timeout=10)  # fmt: skip
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = FULL")  # fsync the WAL at every commit
        except BaseException:
            if handle is not None:
                _lock(handle, take=False)
                handle.close()
            raise
        conn.row_factory = sqlite3.Row
        session = cls(path, conn, handle, read_only)
        try:
            session._prepare_schema()
            if not read_only and path.name == SESSION_FILENAME:
                session._settle_outputs()
        except BaseException:
            session.close()
            raise
        return session

    def _settle_outputs(self) -> None:
        """Finish or undo the output files of a screen that was killed while writing them.

        Screens stage their files, commit the run here, then publish the files (see
        ``neardup_gui.io.outputs``). Whoever next holds the writer lock completes that: the
        folder's files then always belong to the latest run.
        """
        from neardup_gui.io.outputs import settle_pending

        settle_pending(self.path.parent, self.latest_run_id())

    @staticmethod
    def _acquire_lock(path: Path) -> Any:
        handle = open(path.with_name(path.name + ".lock"), "a+", encoding="utf-8")  # noqa: SIM115
        if not _lock(handle, take=True):
            who = ""
            try:
                handle.seek(1)  # byte 0 is the one locked on Windows
                info = json.loads(handle.read())
                who = (f" by {info['user']} (process {info['pid']} on {info['host']}, "
                       f"since {info['since']})")  # fmt: skip
            except (OSError, ValueError, KeyError, TypeError):
                pass
            handle.close()
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
        handle.write("\n" + json.dumps(info) + "\n")
        handle.flush()
        return handle

    def _prepare_schema(self) -> None:
        assert self._conn is not None
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        self._schema = version
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise SessionVersionError(f"{self.path} was written by a newer neardup (schema {version}); "
                               f"this version reads schema {SCHEMA_VERSION} or older")  # fmt: skip
        if version in (1, 2):
            # Read-only, an older schema is read as it is (its manifests or candidates whole).
            if not self.read_only:
                steps = (_UPGRADE_1 if version == 1 else "") + _UPGRADE_2
                with self._mutex:
                    self._conn.executescript(
                        "BEGIN IMMEDIATE;" + steps + f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
                    )
                self._schema = SCHEMA_VERSION
            return
        if self.read_only or version != 0:
            raise SessionVersionError(f"{self.path} is not a review session this version can open")
        with self._mutex:
            # One script, one transaction: a kill here leaves an empty file, never half a schema.
            self._conn.executescript(
                "BEGIN IMMEDIATE;" + _SCHEMA
                + "INSERT INTO meta VALUES ('created_by', " + _sql_text(f"neardup_gui {__version__}")
                + "), ('created_at', " + _sql_text(now_iso()) + ");"
                + f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            )  # fmt: skip
        self._schema = SCHEMA_VERSION

    def close(self) -> None:
        """Close the database and release the writer lock. Safe to call twice."""
        with self._mutex:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            if self._lock_handle is not None:
                try:
                    self._lock_handle.seek(0)
                    self._lock_handle.truncate()
                finally:
                    _lock(self._lock_handle, take=False)
                    self._lock_handle.close()
                    self._lock_handle = None

    def __enter__(self) -> ReviewSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing ------------------------------------------------------------------------------
    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction, committed (and synced) when the block ends."""
        if self.read_only:
            raise SessionReadOnlyError(f"{self.path} was opened read-only")
        with self._mutex:
            if self._conn is None:
                raise RuntimeError("the review session is closed")
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._mutex:
            if self._conn is None:
                raise RuntimeError("the review session is closed")
            return self._conn.execute(sql, tuple(params)).fetchall()

    def _resolve_run(self, run_id: str | None) -> str | None:
        return run_id if run_id is not None else self.latest_run_id()

    # -- runs ------------------------------------------------------------------------------------
    def record_run(
        self,
        run: RunRecord,
        documents: Sequence[Document],
        candidates: Sequence[Candidate],
        *,
        manifest: ManifestValues | None = None,
        unchanged_from: tuple[str, Sequence[bool]] | None = None,
    ) -> str:
        """Store a finished screen: its record, manifest and candidates, in one transaction.

        The manifest and the candidates are stored as their differences from the last complete
        ones when at most ``DELTA_SHARE`` of their rows differ (see the module notes);
        ``documents`` and ``candidates`` read them back whole either way. ``manifest``: the
        documents' ``manifest_values`` made beforehand (used when made from ``documents``).
        ``unchanged_from``: ``(run_id, flags)``, a flag per candidate, True for a candidate that is
        one of run ``run_id``'s, taken over with every value as that run stored it (a rescan's
        pairs of unchanged files). When that run is the latest stored, such a candidate's row is
        known without making its values (see ``_candidates_delta``).

        Returns:
            The run id.

        Raises:
            ValueError: A run with that id is already stored.
        """
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (run.run_id,)).fetchone():
                raise ValueError(f"run {run.run_id!r} is already in the session")
            if manifest is None or manifest.documents is not documents:
                manifest = manifest_values(documents)
            base, rows, removed = self._manifest_delta(conn, run.run_id, manifest)
            pairs_base, pair_rows, order = self._candidates_delta(conn, run.run_id, candidates, unchanged_from)
            conn.execute(
                "INSERT INTO runs (run_id, source, started, finished, record_json, recorded_at, manifest_base, "
                "candidates_base, candidate_order) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run.run_id, run.source, run.started, run.finished,
                 json.dumps(run.to_dict(), ensure_ascii=False), now_iso(), base, pairs_base, order),
            )  # fmt: skip
            conn.executemany(
                f"INSERT INTO documents (run_id, {_columns(_DOC_FIELDS)}, row_digest) "
                f"VALUES (?{', ?' * len(_DOC_FIELDS)}, ?)",
                rows,
            )
            conn.executemany(
                "INSERT INTO removed_documents (run_id, doc_id) VALUES (?, ?)",
                ((run.run_id, doc_id) for doc_id in removed),
            )
            conn.executemany(
                f"INSERT INTO candidates (run_id, ord, {_columns(_CAND_FIELDS)}, row_digest) "
                f"VALUES (?, ?{', ?' * len(_CAND_FIELDS)}, ?)",
                pair_rows,
            )
        return run.run_id

    @staticmethod
    def _manifest_delta(
        conn: sqlite3.Connection, run_id: str, manifest: ManifestValues
    ) -> tuple[str | None, list[tuple[Any, ...]], list[str]]:
        """(base, rows to store, doc_ids removed) for a new run's manifest: against the latest
        complete manifest when at most ``DELTA_SHARE`` of the rows differ, else (None, every row,
        []). Rows are compared by their digests (reading 100,000 of them costs a tenth of reading
        the rows); the rows to store are (run_id, *values, digest), in key order (appended to the
        table, not inserted)."""
        documents, digests = manifest.documents, manifest.digests
        picked: Iterable[int] = range(len(documents))
        base = None
        removed: list[str] = []
        latest = conn.execute("SELECT run_id, manifest_base FROM runs ORDER BY seq DESC LIMIT 1").fetchone()
        if latest is not None and documents:
            cursor = conn.cursor()
            cursor.row_factory = None
            last = latest[1] or latest[0]
            # Every digest of the last complete manifest in one value: a digest covers its row's
            # doc_id, so a row is unchanged when its digest is among them (100,000 rows inside a
            # rescan: ~0.15 s against ~0.28 s for a (doc_id, digest) tuple each, compared by doc_id).
            # Its doc_ids are read only when a row of it is matched by none (a file may be gone).
            count, whole, blob = cursor.execute(
                "SELECT count(*), count(length(row_digest) = 16 OR NULL), CAST(group_concat(row_digest, X'') AS BLOB) "
                "FROM documents WHERE run_id = ?", (last,)
            ).fetchone()  # fmt: skip
            limit = DELTA_SHARE * len(documents)
            if count == whole and len(blob or b"") == 16 * count:
                stored_digests = {blob[o : o + 16] for o in range(0, len(blob), 16)}
                changed = list_giving_way(
                    compress(range(len(digests)), map(not_, map(stored_digests.__contains__, digests)))
                )
                # A row of the last manifest not matched is a changed document's, or a gone one's.
                maybe_gone = len(changed) <= limit and count > len(documents) - len(changed) + _stored_of(
                    cursor, last, [documents[i].doc_id for i in changed]
                )  # fmt: skip
                ids: Iterable[str] = _doc_ids_of(cursor, last) if maybe_gone else ()
            else:  # rows stored without a digest (a session of schema 1), or another kind of digest
                stored = dict(cursor.execute("SELECT doc_id, row_digest FROM documents WHERE run_id = ?", (last,)))
                get = stored.get
                changed = [i for i, (d, digest) in enumerate(zip(documents, digests)) if get(d.doc_id) != digest]
                ids = stored.keys()
            if len(changed) <= limit:
                gone = set(ids)
                if gone:
                    gone -= {d.doc_id for d in documents}
                if len(changed) + len(gone) <= limit:
                    base, picked, removed = last, changed, sorted(gone)
        rows = [(run_id, *manifest.row(i), digests[i]) for i in picked]
        rows.sort(key=itemgetter(1))
        return base, rows, removed

    @staticmethod
    def _candidates_delta(
        conn: sqlite3.Connection,
        run_id: str,
        candidates: Sequence[Candidate],
        unchanged_from: tuple[str, Sequence[bool]] | None = None,
    ) -> tuple[str | None, list[tuple[Any, ...]], bytes | None]:
        """(base, rows to store, order) for a new run's candidates (in their order): against the
        latest complete candidate list when at most ``DELTA_SHARE`` of the pairs are new or differ
        in any value, else (None, every row, None). Rows are (run_id, ord, *values, digest);
        ``order`` packs, per position, the base's ``ord`` or -1 (little-endian int32).

        A pair is compared by the digest of its values. A candidate flagged in ``unchanged_from``
        as the latest run's, unchanged, whose row that run took from the base (it stored no row
        of its own for the pair), has the base's row: its values are not made (a rescan's 8,600
        pairs taken over cost ~0.16 s of values and digests otherwise)."""
        made: dict[int, tuple[tuple[Any, ...], bytes]] = {}  # position -> (values, digest)

        def make(positions: list[int]) -> None:
            values = _candidate_values(candidates[i] for i in positions)
            made.update(zip(positions, zip(values, _row_digests(values))))

        def rows(positions: Iterable[int]) -> list[tuple[Any, ...]]:
            return [(run_id, i, *made[i][0], made[i][1]) for i in positions]

        latest = conn.execute("SELECT run_id, candidates_base FROM runs ORDER BY seq DESC LIMIT 1").fetchone()
        if latest is not None and candidates:
            base = latest[1] or latest[0]
            cursor = conn.cursor()
            cursor.row_factory = None
            pairs_of = "SELECT ord, left_id, right_id, row_digest FROM candidates WHERE run_id = ?"
            stored = {(left, right): (ord_, digest) for ord_, left, right, digest in cursor.execute(pairs_of, (base,))}
            same: Sequence[bool] = ()
            if unchanged_from is not None and unchanged_from[0] == latest[0]:
                same = unchanged_from[1] if len(unchanged_from[1]) == len(candidates) else ()
            # The pairs whose rows the latest run stored itself (it differed from the base there).
            own_then = {(r[1], r[2]) for r in cursor.execute(pairs_of, (latest[0],))} if same and latest[1] else set()
            order = [-1] * len(candidates)
            for i, c in enumerate(candidates):
                hit = stored.get((c.left, c.right))
                if same and same[i] and hit is not None and (c.left, c.right) not in own_then:
                    order[i] = hit[0]
            make([i for i, b in enumerate(order) if b < 0])
            for i, (v, d) in made.items():
                hit = stored.get((v[0], v[1]))
                if hit is not None and hit[1] == d:
                    order[i] = hit[0]
            own = [i for i, b in enumerate(order) if b < 0]
            if len(own) <= DELTA_SHARE * len(candidates):
                return base, rows(own), struct.pack(f"<{len(order)}i", *order)
        # No base, or too many differ: every row stored (those of unchanged pairs made now).
        make([i for i in range(len(candidates)) if i not in made])
        return None, rows(range(len(candidates))), None

    def _candidate_rows(self, run_id: str | None, columns: str) -> list[sqlite3.Row]:
        """``columns`` of a run's candidates in their order, put together from the run's rows and
        its base's when it stores differences (see the module notes)."""
        info = []
        if self._schema >= 3:  # older schemas store every run's candidates whole
            info = self._query("SELECT candidates_base, candidate_order FROM runs WHERE run_id = ?", (run_id,))
        if not info or info[0][0] is None:
            return self._query(f"SELECT {columns} FROM candidates WHERE run_id = ? ORDER BY ord", (run_id,))
        base, packed = info[0]
        sql = f"SELECT ord AS ord_, {columns} FROM candidates WHERE run_id = ?"
        own = {r["ord_"]: r for r in self._query(sql, (run_id,))}
        taken = {r["ord_"]: r for r in self._query(sql, (base,))}
        order = struct.unpack(f"<{len(packed) // 4}i", packed)
        return [own[i] if b < 0 else taken[b] for i, b in enumerate(order)]

    def _manifest(
        self, names: Sequence[str], run_id: str | None, doc_ids: Sequence[str] = (), order: str = ""
    ) -> list[sqlite3.Row]:
        """Columns ``names`` of a run's manifest rows (of ``doc_ids`` only, when given), put
        together from the run's rows and its base's (see the module notes)."""
        order_by = f" ORDER BY {order}" if order else ""
        if self._schema < 2:  # schema 1 (read-only): every manifest is whole
            where = f" AND doc_id IN ({', '.join('?' * len(doc_ids))})" if doc_ids else ""
            sql = f"SELECT {', '.join(names)} FROM documents WHERE run_id = ?{where}{order_by}"
            return self._query(sql, (run_id, *doc_ids))
        base = self._query("SELECT manifest_base FROM runs WHERE run_id = ?", (run_id,))
        sql = _manifest_sql(names, len(doc_ids))
        return self._query(f"SELECT * FROM ({sql}){order_by}", (run_id, base[0][0] if base else None, *doc_ids))

    def latest_run_id(self) -> str | None:
        """Id of the most recently recorded run, or None when no run was recorded."""
        rows = self._query("SELECT run_id FROM runs ORDER BY seq DESC LIMIT 1")
        return rows[0]["run_id"] if rows else None

    def runs(self) -> list[RunRecord]:
        """Every run, oldest first."""
        rows = self._query("SELECT record_json FROM runs ORDER BY seq")
        return [RunRecord.from_dict(json.loads(r["record_json"])) for r in rows]

    def run(self, run_id: str) -> RunRecord:
        """One run. Raises ``KeyError`` when unknown."""
        rows = self._query("SELECT record_json FROM runs WHERE run_id = ?", (run_id,))
        if not rows:
            raise KeyError(f"no run {run_id!r} in {self.path}")
        return RunRecord.from_dict(json.loads(rows[0]["record_json"]))

    def documents(self, run_id: str | None = None) -> list[Document]:
        """The manifest of a run (default: the latest), ordered by path."""
        rows = self._manifest(_DOC_FIELDS, self._resolve_run(run_id), order="path")
        if not rows:
            return []
        columns = list(zip(*rows))
        del rows
        shared: dict[str, str] = {}
        for i in _FEW_VALUES:
            columns[i] = list(map(shared.setdefault, columns[i], columns[i]))
        return list(map(document, *columns))

    def candidates(self, run_id: str | None = None) -> list[Candidate]:
        """The candidates of a run (default: the latest), in the order they were recorded."""
        strings: dict[str, str] = {}  # the strings the pairs repeat, held once (records.shared_strings)
        samples = SharedWhereRepeated()
        return [_candidate_from_row(r, strings, samples) for r in self._candidate_rows(self._resolve_run(run_id), "*")]

    def _shas(self, run_id: str | None, *doc_ids: str) -> dict[str, str]:
        """doc_id -> SHA-256 in a run: of the given documents, or of all when none are given."""
        return {r[0]: r[1] for r in self._manifest(("doc_id", "sha256"), run_id, doc_ids)}

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
        paths = {r[0]: r[1] for r in self._manifest(("doc_id", "path"), self.latest_run_id(), (a, b))}
        return (a, b, False) if (paths.get(a, a), a) <= (paths.get(b, b), b) else (b, a, True)

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
        validate_decision(decision)
        d = decision
        time_text, utc = utc_key(d.time)
        left, right, swapped = self._canonical_pair(d.left, d.right)
        if swapped:
            d = swap_sides(d)
        shas = self._shas(self.latest_run_id(), left, right)
        d = replace(d, time=time_text, reviewer=d.reviewer.strip(),
                    left_sha256=d.left_sha256 or shas.get(left, ""),
                    right_sha256=d.right_sha256 or shas.get(right, ""))  # fmt: skip
        with self._write() as conn:
            conn.execute(
                f"INSERT INTO decisions ({_columns(_DEC_FIELDS)}, time_utc, recorded_at) "
                f"VALUES ({', '.join('?' * len(_DEC_FIELDS))}, ?, ?)",
                (*(getattr(d, name) for name in _DEC_FIELDS), utc, now_iso()),
            )
        return d

    def add_arbitration(self, arb: Arbitration) -> Arbitration:
        """Append an arbitration (the final word on a disputed pair) in its own transaction.

        Returns:
            The arbitration as stored (pair in candidate order, time filled in).

        Raises:
            ValueError: Empty arbitrator, or a status that is not a conclusion.
        """
        validate_arbitration(arb)
        time_text, utc = utc_key(arb.time)
        left, right, _ = self._canonical_pair(arb.left, arb.right)
        a = replace(arb, left=left, right=right, arbitrator=arb.arbitrator.strip(), time=time_text)
        with self._write() as conn:
            conn.execute(
                f"INSERT INTO arbitrations ({_columns(_ARB_FIELDS)}, time_utc, recorded_at) "
                f"VALUES ({', '.join('?' * len(_ARB_FIELDS))}, ?, ?)",
                (*(getattr(a, name) for name in _ARB_FIELDS), utc, now_iso()),
            )
        return a

    def _history(self, table: str, names: list[str], left: str | None, right: str | None) -> list:
        where, params = "", ()
        if left is not None and right is not None:
            where, params = " WHERE left_id = ? AND right_id = ?", self._canonical_pair(left, right)[:2]
        rows = self._query(f"SELECT {_columns(names)} FROM {table}{where} ORDER BY time_utc, id",
                           params)  # fmt: skip
        record = Decision if table == "decisions" else Arbitration
        return [record(*r) for r in rows]

    def decisions(self, left: str | None = None, right: str | None = None) -> list[Decision]:
        """Decision history in time order (ties in the order recorded); optionally of one pair
        (given in either order)."""
        return self._history("decisions", _DEC_FIELDS, left, right)

    def arbitrations(self, left: str | None = None, right: str | None = None) -> list[Arbitration]:
        """Arbitration history in time order; optionally of one pair."""
        return self._history("arbitrations", _ARB_FIELDS, left, right)

    def pair_state(self, left: str, right: str) -> PairState:
        """The review state of one pair, stale against the latest run's files."""
        l, r, _ = self._canonical_pair(left, right)
        return effective_state(l, r, self.decisions(l, r), self.arbitrations(l, r),
                               self._shas(self.latest_run_id(), l, r))  # fmt: skip

    def pair_states(self, run_id: str | None = None) -> dict[tuple[str, str], PairState]:
        """States of every candidate pair of a run (default: the latest), keyed (left, right).

        Reads each table once, whatever the number of pairs.
        """
        run_id = self._resolve_run(run_id)
        rows = self._candidate_rows(run_id, "left_id, right_id")
        histories = pair_histories(self.decisions(), self.arbitrations())
        shas = self._shas(run_id)
        states = {}
        for key in ((r["left_id"], r["right_id"]) for r in rows):
            decisions, arbitrations = histories.get(key, ([], []))
            states[key] = effective_state(*key, decisions, arbitrations, shas)
        return states

    def id_mapping(self) -> list[tuple[str, str, str, str]]:
        """Old-id to new-id mapping of pairs whose effective status is ``suggest_merge_entry``.

        Returns:
            ``(old_doc_id, new_doc_id, decided_by, time)``: ``new_doc_id`` is the entry kept
            (the retained side of the latest merge decision with ``retained`` left or right),
            ``old_doc_id`` the one mapped to it. When an arbitration settled the pair,
            ``decided_by`` names the arbitrator and ``time`` is the arbitration's.
        """
        return id_mapping(self.decisions(), self.arbitrations())

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
        rows = self._query("SELECT row_json FROM thresholds WHERE run_id = ? ORDER BY ord",
                           (self._resolve_run(run_id) or "",))  # fmt: skip
        return [json.loads(r["row_json"]) for r in rows]
