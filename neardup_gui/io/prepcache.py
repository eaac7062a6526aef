"""The prepare cache on disk: ``cache/prepare.npz`` in the workspace (never in the source folder).

The per-document entries of the last completed screen (``core.prepare.PrepareCache``: file
SHA-256, normalized digest and length, MinHash signature, containment sample and boilerplate hits)
let a rescan take unchanged files instead of normalizing, shingling and signing them again. They
are stored in parts, ``cache/entries-*.npz`` (uncompressed ``.npz``), each written once and never
changed: a rescan writes only the entries of files it prepared as a new part and keeps the earlier
parts (a 100,000-file rescan with 1 % changed wrote 180 MB before, ~45 MB now). The entries of
files no longer in the folder stay in their part until the parts are written again as one
(``MAX_PARTS`` parts, or ``MAX_STALE_SHARE`` of their entries of no current file).

``prepare.npz`` names the parts, and holds the rest: the screen's verified pairs keyed by the
SHA-256 of both files (``core.pipeline.PairMemo``, as JSON) and the pairs it rejected, so pairs of
unchanged files are not verified again; how each file was found (``io.corpus.KnownFile``: size,
times, inode and the row read from it), so a rescan does not even open a file whose stamp is
unchanged; the manifest lines carried over.

A new part is written under a name of its own and synced before ``prepare.npz`` is replaced
atomically (temporary file + ``os.replace``) after a screen completed, so the cache is either the
previous run's or this one's; parts that no ``prepare.npz`` names any more are then deleted. A
missing, unreadable, truncated or foreign file (a part included) is ignored: the screen prepares
everything and writes a fresh cache; it never stops a screen.
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
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from neardup_gui.core.methods.containment import ContainmentMemo
from neardup_gui.core.pipeline import PairMemo
from neardup_gui.core.prepare import PrepareCache
from neardup_gui.core.progress import GIVING_WAY_SLICE, dict_giving_way, give_way, list_giving_way
from neardup_gui.core.records import Candidate, FlagEvidence, Segment, SharedWhereRepeated, shared_strings
from neardup_gui.io.carry import carried_rows
from neardup_gui.io.corpus import KnownFile, KnownFiles

log = logging.getLogger(__name__)

__all__ = [
    "CACHE_FILE", "MAX_PARTS", "MAX_STALE_SHARE", "CacheArrays", "EntryParts", "HeldPairs", "cache_arrays",
    "discard_staged", "known_arrays", "known_row_arrays", "load_cache", "load_known", "load_pairs", "plan_parts",
    "publish_cache", "save_cache", "stage_arrays", "stage_cache",
]  # fmt: skip

CACHE_FILE = Path("cache") / "prepare.npz"
T = TypeVar("T")
_FORMAT = "neardup-prepare-cache-13"  # 13: the entries in parts of their own
_PART_FORMAT = "neardup-prepare-entries-1"
_STAGED_PREFIX, _STAGED_SUFFIX = ".prepare-", ".npz.tmp"
_PART_PREFIX, _PART_SUFFIX = "entries-", ".npz"
# The parts are written again as one when a screen would leave this many, or when this share of
# their entries is of files no longer in the folder (each rescan changing 1 % of the files adds a
# part and ~1 % of stale entries: one in eight rescans writes every entry).
MAX_PARTS = 8
MAX_STALE_SHARE = 0.2


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


@dataclasses.dataclass(frozen=True)
class _Rows:
    """``source[rows]`` (a 2-D array's rows) as ``_save_npz`` writes it, gathered ``_WRITE_ROWS``
    rows at a time: a screen's cache shares the screen's MinHash rows (``PrepareCache.signature_rows``),
    and gathered whole they were a 51 MB copy at 100,000 files beside the session's rows."""

    source: np.ndarray
    rows: np.ndarray

    @property
    def size(self) -> int:
        return int(self.rows.size) * int(np.prod(self.source.shape[1:], dtype=np.int64))


def _entry_rows(cache: PrepareCache, entries: np.ndarray | None) -> np.ndarray | _Rows:
    """The MinHash rows of ``entries`` of ``cache`` (None: all) for ``_save_npz``."""
    rows = cache.signature_rows
    if rows is None and entries is None:
        return cache.signature_source
    return _Rows(cache.signature_source, rows if entries is None else (entries if rows is None else rows[entries]))


_WRITE_ROWS = 8192

# Parts joined per write by ``_save_npz``: one write per document held the interpreter ~0.5 s at
# 100,000 files (200,000 small writes through ``zipfile``), beside the session's rows being written.
_WRITE_PARTS = 4096


def _save_npz(fh: Any, arrays: Mapping[str, np.ndarray | _Joined | _Rows]) -> None:
    """``np.savez(fh, **arrays)`` (the same file, read by ``np.load``) with ``_Joined`` arrays
    written ``_WRITE_PARTS`` parts at a time and ``_Rows`` ``_WRITE_ROWS`` rows at a time, never
    joined or gathered whole."""
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, value in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as out:
                if isinstance(value, _Rows):
                    header = {"descr": np.lib.format.dtype_to_descr(value.source.dtype), "fortran_order": False,
                              "shape": (int(value.rows.size), *value.source.shape[1:])}  # fmt: skip
                    np.lib.format.write_array_header_1_0(out, header)
                    for lo in range(0, value.rows.size, _WRITE_ROWS):
                        out.write(np.ascontiguousarray(value.source[value.rows[lo : lo + _WRITE_ROWS]]).data)
                elif isinstance(value, _Joined):
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
_TUPLES = tuple(_CAND_FIELDS.index(n) for n in ("methods", "flags"))
_SAMPLE = _CAND_FIELDS.index("shared_sample")
_cand_values = operator.attrgetter(*_CAND_FIELDS)


def _candidate_row(c: Candidate) -> list:
    """A candidate as a JSON-ready list in field order (no ``dataclasses.asdict``: 10x faster)."""
    row = list(_cand_values(c))
    row[_SEGMENTS] = [(s.left_start, s.left_end, s.right_start, s.right_end) for s in c.segments]
    row[_EVIDENCE] = [(e.flag, e.left_spans, e.right_spans, e.note) for e in c.evidence]
    return row


def _candidate(row: list, strings: dict[str, str], samples: SharedWhereRepeated) -> Candidate:
    row = list(row)
    for i in _TUPLES:
        row[i] = shared_strings(row[i], strings)
    row[_SAMPLE] = samples(row[_SAMPLE])
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
        data += line if line is not None else dumps([*key, _candidate_row(c)]).encode("utf-8")
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
    """Put a file ``stage_cache`` wrote in the cache's place (atomically); returns that place. The
    parts of entries it does not name are deleted then (an earlier cache's, a killed screen's)."""
    path = Path(workspace) / CACHE_FILE
    try:
        named = _part_names(staged)
        os.replace(staged, path)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise
    _remove_leftovers(path.parent, named)
    return path


def discard_staged(workspace: Path | str, staged: Path) -> None:
    """Delete a file ``stage_cache`` wrote, and the new part of entries it named (a caller that
    decided against publishing it); the cache in place and its parts stay."""
    path = Path(workspace) / CACHE_FILE
    named, kept = _part_names(staged), _part_names(path) if path.is_file() else set()
    new = named - kept if named is not None and kept is not None else set()  # else left to the next publish
    staged.unlink(missing_ok=True)
    for name in new:
        (path.parent / name).unlink(missing_ok=True)


def _part_names(cache_file: Path) -> set[str] | None:
    """The parts a (staged) ``prepare.npz`` names; None when it cannot be read."""
    try:
        with np.load(cache_file, allow_pickle=False) as z:
            return {str(name) for name, _entries in json.loads(str(z["parts"]))} if "parts" in z.files else set()
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as exc:
        log.info("could not read which parts %s names (%s)", cache_file, exc)
        return None


def _is_part(name: str) -> bool:
    return name.startswith(_PART_PREFIX) and name.endswith(_PART_SUFFIX) and "/" not in name and "\\" not in name


# A staged file this old is a leftover of a screen that was killed (staging takes seconds).
_LEFTOVER_AGE_S = 600.0


def _remove_leftovers(folder: Path, parts: set[str] | None = None) -> None:
    """Delete staged cache files that killed screens left in ``folder`` (each can be ~100 MB) and,
    given the ``parts`` the cache names, the parts of entries it does not."""
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        staged = entry.name.startswith(_STAGED_PREFIX) and entry.name.endswith(_STAGED_SUFFIX)
        unnamed = parts is not None and _is_part(entry.name) and entry.name not in parts
        try:
            if unnamed or (staged and now - entry.stat().st_mtime > _LEFTOVER_AGE_S):
                os.unlink(entry.path)
                if staged:
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


@dataclasses.dataclass(frozen=True)
class EntryParts:
    """Where a new cache's entries are stored (``plan_parts``).

    Attributes:
        kept: The earlier parts kept as they are: (file name, entries), in order.
        new_rows: The rows of the new cache written as a new part; None: every row (and no part kept).
    """

    kept: tuple[tuple[str, int], ...] = ()
    new_rows: np.ndarray | None = None


def plan_parts(new: PrepareCache, earlier: PrepareCache | None) -> EntryParts:
    """Which of ``new``'s entries ``earlier``'s parts hold already, as they would be written again.

    An entry is a function of the file's bytes, the parameters (``key``) and the candidate
    boilerplate hashes (``boiler``; a rescan keeps the earlier ones): with both the same, an entry
    of the same SHA-256 is the same entry. Otherwise, or when the parts would grow past
    ``MAX_PARTS`` or hold more than ``MAX_STALE_SHARE`` of entries no file has now, every entry is
    written as one new part.
    """
    if (
        earlier is None
        or not earlier.parts
        or earlier.key != new.key
        or not np.array_equal(earlier.boiler, new.boiler)
        or len(earlier.parts) >= MAX_PARTS
    ):
        return EntryParts()
    found = earlier.positions(new.shas)
    new_rows = [i for i, at in enumerate(found) if at is None]
    stale = len(earlier) - (len(new) - len(new_rows))
    if stale > MAX_STALE_SHARE * (len(earlier) + len(new_rows)):
        return EntryParts()
    return EntryParts(earlier.parts, np.asarray(new_rows, dtype=np.int64))


@dataclasses.dataclass
class CacheArrays:
    """What ``stage_arrays`` writes: ``main`` as ``prepare.npz`` (``parts`` added: the parts it
    names), ``part`` (None: no new entries) as a new part after the ``kept`` ones."""

    main: dict[str, np.ndarray | _Joined | _Rows]
    part: dict[str, np.ndarray | _Joined | _Rows] | None
    kept: tuple[tuple[str, int], ...] = ()

    def __len__(self) -> int:  # entries in the part written
        return 0 if self.part is None else int(self.part["chars"].size)


def _part_arrays(cache: PrepareCache, rows: np.ndarray | None) -> dict[str, np.ndarray | _Joined | _Rows]:
    """The entries of ``cache`` (``rows`` of them; None: all) as a part stores them."""
    if rows is None:
        shas, digests, samples, hits = cache.shas, cache.digests, cache.samples, cache.hits
        chars = cache.chars
    else:
        at = rows.tolist()
        shas, digests = [cache.shas[i] for i in at], [cache.digests[i] for i in at]
        samples, hits = [cache.samples[i] for i in at], [cache.hits[i] for i in at]
        chars = cache.chars[rows]
    return {
        "format": np.array(_PART_FORMAT),
        "key": np.array(cache.key),
        "shas": np.array(shas, dtype="S64"),
        "digests": np.array(digests, dtype="S16"),
        "chars": np.asarray(chars).astype(np.int64),
        "signatures": _entry_rows(cache, rows),
        "sample_values": _joined(samples, np.uint64),
        "sample_offsets": _offsets(samples),
        "hit_values": _joined(hits, np.int32),
        "hit_offsets": _offsets(hits),
    }


def cache_arrays(
    cache: PrepareCache,
    memo: PairMemo | None = None,
    versions: Mapping[str, str] | None = None,
    known: Mapping[str, KnownFile] | None = None,
    read_key: str = "",
    *,
    known_made: Mapping[str, np.ndarray] | None = None,
    earlier_pairs: PairMemo | None = None,
    parts: EntryParts | None = None,
) -> CacheArrays:
    """What ``stage_cache`` writes, made in memory (the part that needs the interpreter: ~0.7 s
    at 100,000 files; writing it mostly waits for the disk). ``known_made``: ``known_arrays(known,
    read_key)`` made beforehand, used instead of ``known``. ``earlier_pairs``: the memo the screen
    took pairs over from (``load_pairs``); pairs taken over as they were are stored as read.
    ``parts``: ``plan_parts`` of the cache the screen was given (None: every entry written)."""
    parts = parts or EntryParts()
    rows = parts.new_rows
    main = {
        "format": np.array(_FORMAT),
        "key": np.array(cache.key),
        "boiler": cache.boiler,
        "no_shingles": np.array(sorted(cache.no_shingles), dtype="S64"),
        "template": cache.template,
        "template_min_count": np.array(cache.template_min_count),
        "run_id": np.array(cache.run_id),
        "pairs_json": _memo_bytes(memo, earlier_pairs),
        "versions": np.array(json.dumps(dict(versions or {}), sort_keys=True)),
        **_containment_arrays(cache.containment),
        **(known_arrays(known, read_key) if known_made is None else known_made),
    }
    part = _part_arrays(cache, rows) if rows is None or rows.size else None
    return CacheArrays(main, part, parts.kept)


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


def stage_arrays(workspace: Path | str, arrays: CacheArrays | Mapping[str, np.ndarray | _Joined | _Rows]) -> Path:
    """Write ``cache_arrays``' result as ``stage_cache`` does; returns the staged ``prepare.npz``.
    A new part of entries is written (and synced) first, under its own name: no cache names it
    until the staged file is published. A plain mapping is written as the staged file alone."""
    folder = (Path(workspace) / CACHE_FILE).parent
    folder.mkdir(parents=True, exist_ok=True)
    if not isinstance(arrays, CacheArrays):
        return _write_synced(folder, _STAGED_PREFIX, _STAGED_SUFFIX, arrays)
    part: Path | None = None
    try:
        names = list(arrays.kept)
        if arrays.part is not None:
            entries = len(arrays)
            part = _write_synced(folder, _PART_PREFIX, _PART_SUFFIX, arrays.part)
            names.append((part.name, entries))
            arrays.part = None  # its arrays go while the rest is written
        main = {**arrays.main, "parts": np.array(json.dumps(names))}
        return _write_synced(folder, _STAGED_PREFIX, _STAGED_SUFFIX, main)
    except BaseException:
        if part is not None:
            part.unlink(missing_ok=True)
        raise


def _write_synced(folder: Path, prefix: str, suffix: str, arrays: Mapping[str, np.ndarray | _Joined | _Rows]) -> Path:
    """``arrays`` as a new ``.npz`` in ``folder`` named ``prefix``...``suffix``, synced to disk."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
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


def _one(arrays: list[np.ndarray], empty: np.ndarray) -> np.ndarray:
    """The parts' arrays joined (one part's as read: no copy)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays) if arrays else empty


class StoredRows:
    """The MinHash rows of a cache's parts, read from the part files when asked for instead of
    held from loading to preparing (51 MB at 100,000 files, beside the new rows the screen
    gathers from them: that stage made a rescan's peak). Indexed as the 2-D array of every part's
    rows joined (``rows[entries]``, ``rows[i]``, ``rows[:0]``; ``np.asarray`` reads them all);
    ``take_into`` fills another array without a copy of its own.

    Each part's rows are a stored (uncompressed) member of its ``.npz``: read at their place in
    the file, which is checked to be the file that was loaded (size, modification time, inode).

    Raises (when read): ``StoredRowsChanged`` when a part file is no longer the one loaded.
    """

    # Rows read per call (4 MB of 128 permutations).
    CHUNK = 8192

    def __init__(self, segments: list[_Segment], width: int) -> None:
        self._segments = segments  # (file, offset of its rows, rows, width, identity), in order
        self.dtype = np.dtype("<u4")
        self.shape = (sum(segment[2] for segment in segments), width)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self.take(np.arange(self.shape[0]))
        return out if dtype is None else out.astype(dtype, copy=False)

    def __getitem__(self, key: Any) -> np.ndarray:
        if isinstance(key, slice):
            return self.take(np.arange(self.shape[0])[key])
        if np.ndim(key) == 0:
            return self.take(np.array([operator.index(key)]))[0]
        return self.take(np.asarray(key))

    def take(self, entries: np.ndarray) -> np.ndarray:
        """The rows ``entries``, in that order."""
        out = np.empty((len(entries), self.shape[1]), dtype=self.dtype)
        self.take_into(out, np.arange(len(entries)), entries)
        return out

    def take_into(self, out: np.ndarray, at: np.ndarray, entries: np.ndarray) -> None:
        """``out[at] = rows[entries]``, each part file read once, ``CHUNK`` rows at a time (those
        holding none of ``entries`` skipped)."""
        entries = np.asarray(entries, dtype=np.int64)
        if entries.size == 0:
            return
        if int(entries.min()) < 0 or int(entries.max()) >= self.shape[0]:
            raise IndexError("row out of range")
        order = np.argsort(entries, kind="stable")
        wanted, at = entries[order], np.asarray(at, dtype=np.int64)[order]
        width = self.shape[1] * self.dtype.itemsize
        first = 0
        for path, offset, rows, _width, identity in self._segments:
            lo, hi = np.searchsorted(wanted, [first, first + rows])
            if lo < hi:
                try:
                    fh = open(path, "rb")
                except OSError as exc:
                    raise StoredRowsChanged(f"{path} changed after the prepare cache was read ({exc})") from exc
                with fh:
                    st = os.fstat(fh.fileno())
                    if (st.st_size, st.st_mtime_ns, st.st_ino) != identity:
                        raise StoredRowsChanged(f"{path} changed after the prepare cache was read")
                    for start in range(int(wanted[lo]) - first, int(wanted[hi - 1]) - first + 1, self.CHUNK):
                        end = min(start + self.CHUNK, rows)
                        a, b = np.searchsorted(wanted[lo:hi], [first + start, first + end]) + lo
                        if a == b:
                            continue
                        give_way()
                        chunk = np.empty((end - start, self.shape[1]), dtype=self.dtype)
                        fh.seek(offset + start * width)
                        if fh.readinto(memoryview(chunk).cast("B")) != chunk.nbytes:
                            raise StoredRowsChanged(f"{path} ends before its rows")
                        out[at[a:b]] = chunk[wanted[a:b] - first - start]
            first += rows


class StoredRowsChanged(ValueError):
    """A part file of the prepare cache changed or went after it was read (its rows cannot be
    trusted), likely rewritten by another screen into the same workspace meanwhile. Screening
    again reads the cache as it is then."""

    def __str__(self) -> str:
        return f"{super().__str__()} (by another screen into this workspace?); screen again"


# A part file's rows as ``StoredRows`` reads them: (file, offset of the rows, rows, width, (size,
# modification time, inode) of the file when loaded).
_Segment = tuple[Path, int, int, int, tuple[int, int, int]]


def _stored_rows(part: Any, path: Path, member: str) -> _Segment | None:
    """Where an ``.npz``'s member holds its 2-D little-endian uint32 array's rows, as
    ``StoredRows`` reads them: None when it is not stored so (compressed, another type)."""
    info = part.zip.getinfo(member + ".npy")
    if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 0x1:
        return None
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        fh.seek(info.header_offset)
        local = fh.read(30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            return None
        name_length, extra_length = int.from_bytes(local[26:28], "little"), int.from_bytes(local[28:30], "little")
        fh.seek(info.header_offset + 30 + name_length + extra_length)
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        else:
            return None
        offset = fh.tell()
    if fortran or len(shape) != 2 or np.dtype(dtype) != np.dtype("<u4"):
        return None
    if offset + shape[0] * shape[1] * 4 > st.st_size:
        return None
    return path, offset, int(shape[0]), int(shape[1]), (st.st_size, st.st_mtime_ns, st.st_ino)


def _cache_from(z: Any, folder: Path) -> PrepareCache | None:
    parts = [(str(name), int(entries)) for name, entries in json.loads(str(z["parts"]))]
    key = str(z["key"])
    shas: list[str] = []
    digests: list[bytes] = []
    chars, signatures = [], []
    samples: list[np.ndarray] = []
    hits: list[np.ndarray] = []
    for name, entries in parts:
        expected = len(shas) + entries
        if not _is_part(name):
            raise ValueError(f"it names {name!r}, not a part of entries")
        with np.load(folder / name, allow_pickle=False) as part:
            if str(part["format"]) != _PART_FORMAT or str(part["key"]) != key:
                raise ValueError(f"its part {name} is of another kind")
            shas += [s.decode("ascii") for s in part["shas"].tolist()]
            # S16 strips trailing NUL bytes: pad back to the 16-byte digests they were
            digests += [d.ljust(16, b"\0") for d in part["digests"].tolist()]
            chars.append(part["chars"])
            stored = _stored_rows(part, folder / name, "signatures")
            signatures.append(stored if stored is not None else part["signatures"])
            samples += _split(part["sample_values"], part["sample_offsets"])
            hits += _split(part["hit_values"], part["hit_offsets"])
        if len(shas) != expected:
            raise ValueError(f"its part {name} holds another number of entries")
    cache = PrepareCache(
        key=key,
        shas=shas,
        digests=digests,
        chars=_one(chars, np.zeros(0, dtype=np.int64)),
        signature_source=_signature_source(signatures),
        samples=samples,
        boiler=z["boiler"],
        hits=hits,
        no_shingles=frozenset(s.decode("ascii") for s in z["no_shingles"].tolist()),
        template=z["template"],
        template_min_count=int(z["template_min_count"]),
        run_id=str(z["run_id"]),
        parts=tuple(parts),
    )
    n = len(cache.shas)
    if not (len(cache.digests) == n == cache.chars.size == cache.signatures.shape[0] == len(cache.samples) == len(cache.hits)):
        raise ValueError("its arrays disagree in length")
    cache.containment = _containment_from(z, cache)
    return cache


def _signature_source(parts: list[_Segment | np.ndarray]) -> np.ndarray | StoredRows:
    """The parts' rows as one source: read when asked for (``StoredRows``) when every part's are
    stored so with one width, else read now and joined."""
    segments = [p for p in parts if isinstance(p, tuple)]
    if parts and len(segments) == len(parts) and len({s[3] for s in segments}) == 1:
        return StoredRows(segments, segments[0][3])
    arrays = [np.asarray(StoredRows([p], p[3])) if isinstance(p, tuple) else p for p in parts]
    return _one(arrays, np.zeros((0, 0), dtype=np.uint32))


# Bytes of the pairs' JSON lines copied and split at once (``_lines``).
_LINES_CHUNK = 1 << 20


def _lines(data: np.ndarray) -> Iterator[bytes]:
    """The lines of a uint8 array, split a chunk at a time: the whole copied to bytes and split in
    two calls held the GIL ~70 ms for 38,000 pairs of long drafts (41 MB), and the window waiting
    for it in a rescan's reading stage froze for 0.23 s."""
    rest = b""
    for start in range(0, data.size, _LINES_CHUNK):
        *whole, rest = (rest + data[start : start + _LINES_CHUNK].tobytes()).split(b"\n")
        yield from whole
    yield rest


# A stored pair's line starts with its two files' SHA-256 (``_memo_bytes``: ``json.dumps`` of
# ``[left, right, row]``): where each is, and where the row begins, to find the keys without
# decoding the rest.
_LEFT_KEY = slice(2, 66)
_RIGHT_KEY = slice(70, 134)
_ROW_AT = 137
_HEX = frozenset(b"0123456789abcdef")


def _line_key(line: bytes) -> tuple[str, str] | None:
    """The (left, right) SHA-256 a stored pair's line starts with, or None when it does not start so."""
    if not (line[: _LEFT_KEY.start] == b'["' and line[_LEFT_KEY.stop : _RIGHT_KEY.start] == b'", "'
            and line[_RIGHT_KEY.stop : _ROW_AT] == b'", '):  # fmt: skip
        return None
    left, right = line[_LEFT_KEY], line[_RIGHT_KEY]
    if not (_HEX.issuperset(left) and _HEX.issuperset(right)):
        return None
    return left.decode("ascii"), right.decode("ascii")


def _json_str(text: str) -> str:
    return f'"{text}"' if text.isalnum() and text.isascii() else json.dumps(text, ensure_ascii=False)


def _ids_prefix(c: Candidate) -> bytes:
    """How a stored row of ``c`` begins (``_candidate_row`` in ``json.dumps``): its two doc_ids."""
    return f"[{_json_str(c.left)}, {_json_str(c.right)}, ".encode("utf-8")


@dataclasses.dataclass(frozen=True)
class HeldPairs:
    """The verified pairs of a screen a caller still holds (the window's result shown), by the SHA-256
    of both files as ``PairMemo.pairs``: ``load_pairs`` takes them instead of decoding the stored
    ones when they are that screen's (``run_id``) and the same pairs."""

    run_id: str
    pairs: Mapping[tuple[str, str], Candidate]


def _held_memo(z: Any, lines: Iterator[bytes], head: dict[str, Any], held: HeldPairs) -> PairMemo | None:
    """The stored memo with the held pairs as its candidates, or None when they are not the stored
    ones (another run's, or other pairs): the lines are split and their keys read, not decoded."""
    if not held.run_id or str(z["run_id"]) != held.run_id:
        return None
    kept_lines: dict[tuple[str, str], bytes] = {}
    for line in lines:
        key = _line_key(line)
        c = held.pairs.get(key) if key is not None else None
        # the candidate stored there is the one held: its doc_ids come next ("[left, right, ...")
        if c is None or not line.startswith(_ids_prefix(c), _ROW_AT):
            return None
        kept_lines[key] = line
    if len(kept_lines) != len(held.pairs):
        return None
    return _memo(z, head, {key: held.pairs[key] for key in kept_lines}, kept_lines)


def _memo(z: Any, head: dict[str, Any], pairs: dict[tuple[str, str], Candidate],
          lines: dict[tuple[str, str], bytes]) -> PairMemo:  # fmt: skip
    """The stored memo with these candidates and the lines they were stored as."""
    rejected = frozenset((a, b) for a, b in head.get("rejected", ()))
    return PairMemo(head["params"], z["template"], pairs, int(z["template_min_count"]), rejected, lines,
                    str(z["run_id"]))  # fmt: skip


def _pairs_from(z: Any, held: HeldPairs | None = None) -> PairMemo | None:
    data = z["pairs_json"]
    if not data.size:
        return None
    # Split as bytes and each line decoded on its own, in the loop below: the whole text decoded and
    # split in two calls held the GIL ~0.1 s (a window waiting for it, in a rescan's reading stage).
    lines = _lines(data)
    del data
    head = json.loads(next(lines))
    if tuple(head["fields"]) != _CAND_FIELDS:  # written by a version with other candidate fields
        return None
    if held is not None:
        # The caller's own candidates of that screen (the same values, as stored and read back): not
        # decoded again (8,800 pairs at 100,000 files: ~0.2 s of the interpreter and ~40 MB held twice).
        memo = _held_memo(z, lines, head, held)
        if memo is not None:
            return memo
        log.info("the pairs held are not those stored; reading the stored ones")
        lines = _lines(z["pairs_json"])
        next(lines)  # (the head)
    pairs, kept_lines = {}, {}
    strings: dict[str, str] = {}  # the strings the pairs repeat, held once (records.shared_strings)
    samples = SharedWhereRepeated()
    for line in lines:
        a, b, row = json.loads(line)
        pairs[(a, b)] = _candidate(row, strings, samples)
        kept_lines[(a, b)] = line
    return _memo(z, head, pairs, kept_lines)


def load_cache(workspace: Path | str, versions: Mapping[str, str] | None = None) -> PrepareCache | None:
    """The prepare cache in ``workspace``, or None when there is none or it cannot be used
    (``versions`` given: also when it was saved with others)."""
    folder = (Path(workspace) / CACHE_FILE).parent
    return _read(workspace, "the prepare cache", lambda z: _cache_from(z, folder), versions)


def load_pairs(
    workspace: Path | str, versions: Mapping[str, str] | None = None, held: HeldPairs | None = None
) -> PairMemo | None:
    """The verified pairs saved with the cache in ``workspace``, or None (as ``load_cache``).

    ``held``: the pairs of the screen that wrote the cache, as the caller holds them: taken as its
    candidates instead of those stored when they are that screen's and the same pairs (else the
    stored ones are read)."""
    return _read(workspace, "the last run's verified pairs", lambda z: _pairs_from(z, held), versions)


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
