"""The prepare cache on disk: ``cache/prepare.npz`` in the workspace (never in the source folder).

One uncompressed ``.npz`` holds the per-document entries of the last completed screen
(``core.prepare.PrepareCache``): file SHA-256, normalized digest and length, MinHash signature,
containment sample and boilerplate hits. A rescan takes unchanged files from it instead of
normalizing, shingling and signing them again. It also holds that screen's verified pairs keyed by
the SHA-256 of both files (``core.pipeline.PairMemo``, as JSON) and the pairs it rejected, so
pairs of unchanged files are not verified again. And it holds how each file was found
(``io.corpus.KnownFile``: size, times, inode and the row read from it), so a rescan does not even
open a file whose stamp is unchanged.

The file is written atomically (temporary file + ``os.replace``) after a screen completed, so it is
either the previous run's or this one's. A missing, unreadable, truncated or foreign file is
ignored (the screen then prepares everything and writes a fresh one); it never stops a screen.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import operator
import os
import tempfile
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from neardup_gui.core.methods.containment import ContainmentMemo
from neardup_gui.core.pipeline import PairMemo
from neardup_gui.core.prepare import PrepareCache
from neardup_gui.core.progress import GIVING_WAY_SLICE, dict_giving_way, give_way, list_giving_way
from neardup_gui.core.records import Candidate, FlagEvidence, Segment, shared_strings
from neardup_gui.io.carry import carried_rows
from neardup_gui.io.corpus import KnownFile, KnownFiles

log = logging.getLogger(__name__)

__all__ = [
    "CACHE_FILE", "cache_arrays", "known_arrays", "known_row_arrays", "load_cache", "load_known", "load_pairs",
    "publish_cache", "save_cache", "stage_arrays", "stage_cache",
]  # fmt: skip

CACHE_FILE = Path("cache") / "prepare.npz"
T = TypeVar("T")
_FORMAT = "neardup-prepare-cache-12"
_STAGED_PREFIX, _STAGED_SUFFIX = ".prepare-", ".npz.tmp"


def _offsets(arrays: list[np.ndarray]) -> np.ndarray:
    out = np.zeros(len(arrays) + 1, dtype=np.int64)
    if arrays:
        np.cumsum([a.size for a in arrays], out=out[1:])
    return out


@dataclasses.dataclass(frozen=True)
class _Joined:
    """An array stored as the concatenation of ``parts`` (each of ``dtype``), written a few thousand
    parts at a time by ``stage_arrays``: the per-document samples are not copied into one array
    first (~70 MB at 100,000 files, held while the session's rows are written beside it)."""

    parts: list[np.ndarray]
    dtype: np.dtype

    @property
    def size(self) -> int:
        return sum(p.size for p in self.parts)


def _joined(parts: Sequence[np.ndarray], empty: type) -> _Joined:
    """``np.concatenate(parts)`` as ``_Joined`` (the same dtype; ``empty``'s when there are none)."""
    dtypes = {p.dtype for p in parts}
    return _Joined(list(parts), np.result_type(*dtypes) if dtypes else np.dtype(empty))


# Parts joined per write by ``_save_npz``: one write per document held the interpreter ~0.5 s at
# 100,000 files (200,000 small writes through ``zipfile``), beside the session's rows being written.
_WRITE_PARTS = 4096


def _save_npz(fh: Any, arrays: Mapping[str, np.ndarray | _Joined]) -> None:
    """``np.savez(fh, **arrays)`` (the same file, read by ``np.load``) with ``_Joined`` arrays
    written ``_WRITE_PARTS`` parts at a time, never joined whole."""
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, value in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as out:
                if isinstance(value, _Joined):
                    header = {"descr": np.lib.format.dtype_to_descr(np.dtype(value.dtype)), "fortran_order": False,
                              "shape": (value.size,)}  # fmt: skip
                    np.lib.format.write_array_header_1_0(out, header)
                    for lo in range(0, len(value.parts), _WRITE_PARTS):
                        chunk = np.concatenate(value.parts[lo : lo + _WRITE_PARTS])
                        out.write(chunk.astype(value.dtype, copy=False).data)
                else:
                    np.lib.format.write_array(out, np.asanyarray(value), allow_pickle=False)


def _split(values: np.ndarray, offsets: np.ndarray) -> list[np.ndarray]:
    return [values[offsets[i] : offsets[i + 1]] for i in range(offsets.size - 1)]


_CAND_FIELDS = tuple(f.name for f in dataclasses.fields(Candidate))
_SEGMENTS = _CAND_FIELDS.index("segments")
_EVIDENCE = _CAND_FIELDS.index("evidence")
_TUPLES = tuple(_CAND_FIELDS.index(n) for n in ("methods", "flags", "shared_sample"))
_cand_values = operator.attrgetter(*_CAND_FIELDS)


def _candidate_row(c: Candidate) -> list:
    """A candidate as a JSON-ready list in field order (no ``dataclasses.asdict``: 10x faster)."""
    row = list(_cand_values(c))
    row[_SEGMENTS] = [(s.left_start, s.left_end, s.right_start, s.right_end) for s in c.segments]
    row[_EVIDENCE] = [(e.flag, e.left_spans, e.right_spans, e.note) for e in c.evidence]
    return row


def _candidate(row: list, strings: dict[str, str]) -> Candidate:
    row = list(row)
    for i in _TUPLES:
        row[i] = shared_strings(row[i], strings)
    row[_SEGMENTS] = tuple(Segment(*s) for s in row[_SEGMENTS])
    row[_EVIDENCE] = tuple(
        FlagEvidence(flag, tuple(map(tuple, left)), tuple(map(tuple, right)), note)
        for flag, left, right, note in row[_EVIDENCE]
    )
    return Candidate(*row)


def _memo_bytes(memo: PairMemo | None, earlier: PairMemo | None = None) -> np.ndarray:
    """JSON lines: a header (candidate fields, parameters), then one line per pair. One small
    ``json.dumps`` per line keeps the GIL free for the window between lines. A pair that is the
    very candidate ``earlier`` (the memo this screen took pairs over from) read back gets the line
    it was read from (encoding 8,800 pairs again took 0.15 s)."""
    if memo is None:
        return np.zeros(0, dtype=np.uint8)
    dumps = json.JSONEncoder(ensure_ascii=False).encode
    head = dumps({"fields": _CAND_FIELDS, "params": memo.params, "rejected": sorted(memo.rejected)})
    # Each line encoded and appended as it is made: the lines as text, the joined text and its
    # encoding were three copies of it at once (+350 MB for 90,000 pairs of a large cluster).
    data = bytearray(head.encode("utf-8"))
    was, was_line = (earlier.pairs, earlier.lines) if earlier is not None else ({}, {})
    for key, c in memo.pairs.items():
        line = was_line.get(key) if was.get(key) is c else None
        data += b"\n"
        data += (line if line is not None else dumps([*key, _candidate_row(c)])).encode("utf-8")
    return np.frombuffer(data, dtype=np.uint8)


def _codes(values: list[str]) -> tuple[np.ndarray, str]:
    """Small-vocabulary strings as indexes into a JSON list (statuses, encodings, extractors)."""
    vocab = sorted(set(values))
    index = {v: i for i, v in enumerate(vocab)}
    codes = np.fromiter(list_giving_way(map(index.__getitem__, values)), dtype=np.int32, count=len(values))
    return codes, json.dumps(vocab)


# Rows per conversion call: one numpy or JSON call over 100,000 rows holds the GIL for ~0.1 s,
# which the window feels (its worker thread writes the cache).
_SLICE = 8192


def _sliced(convert: Callable[[list[Any]], np.ndarray], rows: list[Any], empty: np.ndarray) -> np.ndarray:
    parts = []
    for i in range(0, len(rows), _SLICE):
        give_way()
        parts.append(convert(rows[i : i + _SLICE]))
    return np.concatenate(parts) if parts else empty


def _tolist_sliced(array: np.ndarray, convert: Callable[[np.ndarray], np.ndarray] | None = None) -> list[Any]:
    """``array.tolist()`` (each slice through ``convert`` first), ``_SLICE`` rows a call: one call
    over 100,000 rows held the GIL for 35-60 ms while a rescan read the cache beside the window."""
    out: list[Any] = []
    for i in range(0, len(array), _SLICE):
        give_way()
        part = array[i : i + _SLICE]
        out.extend((part if convert is None else convert(part)).tolist())
    return out


def _path_bytes(paths: list[str]) -> np.ndarray:
    """The paths as NUL-separated UTF-8 (a name's undecodable bytes, held as lone surrogates, kept
    by ``surrogatepass``): read back in one decode and one split (``_paths``). As a JSON list in a
    numpy string (UTF-32), writing and reading 100,000 paths took ~0.1 s each."""
    return np.frombuffer("\0".join(paths).encode("utf-8", "surrogatepass"), dtype=np.uint8)


def _paths(stored: np.ndarray, size: int = GIVING_WAY_SLICE) -> list[str]:
    """``_path_bytes``' paths back, decoded and split ``size`` paths per call (giving way between:
    100,000 paths in one call held the GIL 50-110 ms on the cache thread, and the window with it)."""
    if not stored.size:
        return []
    ends = np.flatnonzero(stored == 0)  # (a NUL is never part of a longer UTF-8 sequence)
    cuts = ends[size - 1 :: size].tolist()
    out: list[str] = []
    for lo, hi in zip([0, *(c + 1 for c in cuts)], [*cuts, stored.size]):
        give_way()
        out += stored[lo:hi].tobytes().decode("utf-8", "surrogatepass").split("\0")
    return out


def known_arrays(known: Mapping[str, KnownFile] | None, read_key: str) -> dict[str, np.ndarray]:
    """How each file was found, as the cache stores it (part of ``cache_arrays``; a caller with time
    to spare before the cache is written can make it then)."""
    return known_row_arrays([(path, *row) for path, row in (known or {}).items()], read_key)


# Where each KnownFile field sits in a known row (``(path, *fields)``).
_STAMP, _STATUS, _MESSAGE, _SIZE, _MTIME, _SHA, _ENCODING, _CHARS, _EXTRACTOR = range(1, len(KnownFile._fields) + 1)


def known_row_arrays(rows: list[tuple[Any, ...]], read_key: str) -> dict[str, np.ndarray]:
    """``known_arrays`` of ``(path, *KnownFile fields)`` tuples (``LoadedCorpus.known_rows``)."""
    stamps = [r[_STAMP] for r in rows]
    status, status_vocab = _codes([r[_STATUS] for r in rows])
    encoding, encoding_vocab = _codes([r[_ENCODING] for r in rows])
    extractor, extractor_vocab = _codes([r[_EXTRACTOR] for r in rows])
    messages = {i: r[_MESSAGE] for i, r in enumerate(rows) if r[_MESSAGE]}
    return {
        "known_key": np.array(read_key),
        "known_paths": _path_bytes([r[0] for r in rows]),
        "known_times": _sliced(lambda part: np.array([s[:3] for s in part], dtype=np.int64).reshape(-1, 3),
                               stamps, np.zeros((0, 3), dtype=np.int64)),
        "known_inodes": _sliced(lambda part: np.array([s[3:] for s in part], dtype=np.uint64).reshape(-1, 2),
                                stamps, np.zeros((0, 2), dtype=np.uint64)),
        "known_status": status,
        "known_encoding": encoding,
        "known_extractor": extractor,
        "known_vocab": np.array(json.dumps([status_vocab, encoding_vocab, extractor_vocab])),
        "known_messages": np.array(json.JSONEncoder(ensure_ascii=True).encode(messages)),
        "known_mtime": np.array([r[_MTIME] for r in rows], dtype=np.float64),
        "known_sha": _sliced(lambda part: np.array(part, dtype="S64"), [r[_SHA] for r in rows], np.zeros(0, dtype="S64")),
        "known_chars": np.array([r[_CHARS] for r in rows], dtype=np.int64),
    }  # fmt: skip


def save_cache(
    workspace: Path | str,
    cache: PrepareCache,
    memo: PairMemo | None = None,
    versions: Mapping[str, str] | None = None,
    known: Mapping[str, KnownFile] | None = None,
    read_key: str = "",
) -> Path:
    """Write ``cache`` (and the run's verified pairs) to ``workspace/cache/prepare.npz`` atomically.

    ``versions``: program and library versions (``tasks.library_versions``); a later load with
    other versions ignores the cache (an extractor or Unicode table that changed could give other
    texts for the same bytes). ``known``: how the run found each file
    (``LoadedCorpus.known_files``), valid for reading options ``read_key`` (``load_known``).
    """
    return publish_cache(workspace, stage_cache(workspace, cache, memo, versions, known, read_key))


def publish_cache(workspace: Path | str, staged: Path) -> Path:
    """Put a file ``stage_cache`` wrote in the cache's place (atomically); returns that place."""
    path = Path(workspace) / CACHE_FILE
    try:
        os.replace(staged, path)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise
    _remove_leftovers(path.parent)
    return path


# A staged file this old is a leftover of a screen that was killed (staging takes seconds).
_LEFTOVER_AGE_S = 600.0


def _remove_leftovers(folder: Path) -> None:
    """Delete staged cache files that killed screens left in ``folder`` (each can be ~100 MB)."""
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(_STAGED_PREFIX) and entry.name.endswith(_STAGED_SUFFIX):
            try:
                if now - entry.stat().st_mtime > _LEFTOVER_AGE_S:
                    os.unlink(entry.path)
                    log.info("removed %s, left by an interrupted screen", entry.path)
            except OSError:
                pass


def stage_cache(
    workspace: Path | str,
    cache: PrepareCache,
    memo: PairMemo | None = None,
    versions: Mapping[str, str] | None = None,
    known: Mapping[str, KnownFile] | None = None,
    read_key: str = "",
) -> Path:
    """``save_cache`` up to its last step: the new cache written (and synced) under a temporary
    name beside the cache's place, which is returned. ``publish_cache`` puts it in place; a caller
    that decides against it deletes it. The current cache stays readable meanwhile."""
    return stage_arrays(workspace, cache_arrays(cache, memo, versions, known, read_key))


def cache_arrays(
    cache: PrepareCache,
    memo: PairMemo | None = None,
    versions: Mapping[str, str] | None = None,
    known: Mapping[str, KnownFile] | None = None,
    read_key: str = "",
    *,
    known_made: Mapping[str, np.ndarray] | None = None,
    earlier_pairs: PairMemo | None = None,
) -> dict[str, np.ndarray | _Joined]:
    """What ``stage_cache`` writes, made in memory (the part that needs the interpreter: ~0.7 s
    at 100,000 files; writing it mostly waits for the disk). ``known_made``: ``known_arrays(known,
    read_key)`` made beforehand, used instead of ``known``. ``earlier_pairs``: the memo the screen
    took pairs over from (``load_pairs``); pairs taken over as they were are stored as read."""
    return {
        "format": np.array(_FORMAT),
        "key": np.array(cache.key),
        "shas": np.array(cache.shas, dtype="S64"),
        "digests": np.array(cache.digests, dtype="S16"),
        "chars": cache.chars.astype(np.int64),
        "signatures": cache.signatures,
        "sample_values": _joined(cache.samples, np.uint64),
        "sample_offsets": _offsets(cache.samples),
        "boiler": cache.boiler,
        "hit_values": _joined(cache.hits, np.int32),
        "hit_offsets": _offsets(cache.hits),
        "no_shingles": np.array(sorted(cache.no_shingles), dtype="S64"),
        "template": cache.template,
        "template_min_count": np.array(cache.template_min_count),
        "run_id": np.array(cache.run_id),
        "pairs_json": _memo_bytes(memo, earlier_pairs),
        "versions": np.array(json.dumps(dict(versions or {}), sort_keys=True)),
        **_containment_arrays(cache.containment),
        **(known_arrays(known, read_key) if known_made is None else known_made),
    }


def _containment_arrays(memo: ContainmentMemo | None) -> dict[str, np.ndarray]:
    """The containment index's memo (its documents' samples are the entries'; not stored twice)."""
    if memo is None:
        return {}
    return {
        "ci_key": np.array(memo.key),
        "ci_digests": np.array(memo.digests, dtype="S16"),
        "ci_usable": memo.usable.astype(np.int32),
        "ci_pairs": memo.pairs.astype(np.int32 if len(memo.digests) < 2**31 else np.int64).reshape(-1, 2),
        "ci_ignored": np.array(memo.ignored, dtype=np.int64),
    }


def _containment_from(z: Any, cache: PrepareCache) -> ContainmentMemo | None:
    """The memo saved with ``cache``, its samples taken from the cache's entries; None when there
    is none or it does not fit them (logged: the index is then built afresh)."""
    if "ci_key" not in z.files:
        return None
    try:
        digests = [d.ljust(16, b"\0") for d in z["ci_digests"].tolist()]
        # digest -> its first entry: made in one call, the later entries written first (a loop of
        # ``setdefault`` over 100,000 entries took ~0.1 s of the cache thread, beside the walk)
        last = len(cache.digests) - 1
        entry_of = dict_giving_way(zip(reversed(cache.digests), range(last, -1, -1)))
        samples = [cache.samples[entry_of[d]] for d in digests]
        usable = z["ci_usable"].astype(np.int64)
        pairs = z["ci_pairs"].astype(np.int64).reshape(-1, 2)
        n = len(digests)
        if usable.size != n or (pairs.size and (pairs.min() < 0 or pairs.max() >= n)):
            raise ValueError("its arrays disagree")
        return ContainmentMemo(str(z["ci_key"]), digests, samples, usable, pairs, int(z["ci_ignored"]))
    except (KeyError, ValueError, TypeError) as exc:
        log.info("the containment index saved with the prepare cache does not fit it (%s); building it afresh", exc)
        return None


def stage_arrays(workspace: Path | str, arrays: Mapping[str, np.ndarray | _Joined]) -> Path:
    """Write ``cache_arrays``' result as ``stage_cache`` does; returns the staged file."""
    path = Path(workspace) / CACHE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=_STAGED_PREFIX, suffix=_STAGED_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            _save_npz(fh, arrays)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def _read(
    workspace: Path | str, what: str, build: Callable[[Any], T | None], versions: Mapping[str, str] | None
) -> T | None:
    """``build(npz)`` on the workspace's cache file, or None when there is none, it has another
    format or other ``versions``, or it cannot be read (logged: a damaged cache only costs time,
    never a screen)."""
    path = Path(workspace) / CACHE_FILE
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            if str(z["format"]) != _FORMAT:
                log.info("%s in %s has another format; ignored", what, path)
                return None
            if versions is not None and json.loads(str(z["versions"])) != dict(versions):
                log.info("%s in %s was made by other program or library versions; ignored", what, path)
                return None
            return build(z)
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        log.warning("%s in %s could not be read (%s); screening without it", what, path, exc)
        return None


def _cache_from(z: Any) -> PrepareCache | None:
    cache = PrepareCache(
        key=str(z["key"]),
        shas=[s.decode("ascii") for s in z["shas"].tolist()],
        # S16 strips trailing NUL bytes: pad back to the 16-byte digests they were
        digests=[d.ljust(16, b"\0") for d in z["digests"].tolist()],
        chars=z["chars"],
        signatures=z["signatures"],
        samples=_split(z["sample_values"], z["sample_offsets"]),
        boiler=z["boiler"],
        hits=_split(z["hit_values"], z["hit_offsets"]),
        no_shingles=frozenset(s.decode("ascii") for s in z["no_shingles"].tolist()),
        template=z["template"],
        template_min_count=int(z["template_min_count"]),
        run_id=str(z["run_id"]),
    )
    n = len(cache.shas)
    if not (len(cache.digests) == n == cache.chars.size == cache.signatures.shape[0] == len(cache.samples) == len(cache.hits)):
        raise ValueError("its arrays disagree in length")
    cache.containment = _containment_from(z, cache)
    return cache


def _pairs_from(z: Any) -> PairMemo | None:
    raw = z["pairs_json"].tobytes()
    if not raw:
        return None
    lines = raw.decode("utf-8").split("\n")
    head = json.loads(lines[0])
    if tuple(head["fields"]) != _CAND_FIELDS:  # written by a version with other candidate fields
        return None
    pairs, kept_lines = {}, {}
    strings: dict[str, str] = {}  # the strings the pairs repeat, held once (records.shared_strings)
    for line in lines[1:]:
        a, b, row = json.loads(line)
        pairs[(a, b)] = _candidate(row, strings)
        kept_lines[(a, b)] = line
    rejected = frozenset((a, b) for a, b in head.get("rejected", ()))
    return PairMemo(head["params"], z["template"], pairs, int(z["template_min_count"]), rejected, kept_lines,
                    str(z["run_id"]))  # fmt: skip


def load_cache(workspace: Path | str, versions: Mapping[str, str] | None = None) -> PrepareCache | None:
    """The prepare cache in ``workspace``, or None when there is none or it cannot be used
    (``versions`` given: also when it was saved with others)."""
    return _read(workspace, "the prepare cache", _cache_from, versions)


def load_pairs(workspace: Path | str, versions: Mapping[str, str] | None = None) -> PairMemo | None:
    """The verified pairs saved with the cache in ``workspace``, or None (as ``load_cache``)."""
    return _read(workspace, "the last run's verified pairs", _pairs_from, versions)


def _known_from(z: Any, read_key: str) -> KnownFiles | None:
    if str(z["known_key"]) != read_key:
        return None
    paths = _paths(z["known_paths"])
    vocabs = [json.loads(v) for v in json.loads(str(z["known_vocab"]))]
    status, encoding, extractor = (
        [vocab[i] for i in z[name].tolist()]
        for vocab, name in zip(vocabs, ("known_status", "known_encoding", "known_extractor"))
    )
    messages = {int(i): message for i, message in json.loads(str(z["known_messages"])).items()}
    mtimes, chars = _tolist_sliced(z["known_mtime"]), _tolist_sliced(z["known_chars"])
    # ``np.char.decode`` took 86-200 ms for 100,000 hashes, decoding each ``bytes`` ~25 ms
    shas = [sha.decode("ascii") for sha in _tolist_sliced(z["known_sha"])]
    known = KnownFiles(paths, z["known_times"], z["known_inodes"], status, messages, mtimes, shas, encoding, chars,
                       extractor)  # fmt: skip
    known.carried = carried_rows(z, len(paths))
    return known


def load_known(
    workspace: Path | str, versions: Mapping[str, str] | None = None, read_key: str = ""
) -> KnownFiles | None:
    """How the last screen into ``workspace`` found each file (``scan_folder``'s ``known``), or
    None when there is no cache, it cannot be used (as ``load_cache``) or it was made with other
    reading options than ``read_key`` (size limit, extraction choices)."""
    return _read(workspace, "the last run's file list", lambda z: _known_from(z, read_key), versions)
