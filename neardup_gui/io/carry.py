"""Manifest rows carried over from the last screen into the same workspace.

A rescan takes over the manifest row of a file whose stamp is unchanged without reading it
(``io.corpus``). Its row in ``manifest.csv`` and in the session is then the one the last screen
wrote, unless something the row is made of besides the file changed: the source folder's path
(top-level files take its name as source_id), the sidecar (doc_id, source_id, version), the
parameters that decide ``no_shingles``, or the time zone (mtime is written as local time). When
none did (``carry_context``), those rows' ``manifest.csv`` lines and session digests are taken from
the prepare cache (``CarriedRows``) instead of being made again: at 100,000 files ~0.5 s of the
interpreter, which the containment index on the other thread waited for.

Before anything is carried, a sample of the rows (``CARRY_CHECKS``) is made afresh and compared
with what would be carried; one difference and nothing is (the rows are made as without a
cache, and a warning is logged). The stored lines are carried unescaped, so a stored cell that a
spreadsheet would run as a formula also stops all carrying (``_formula_free``). The outputs are
the same either way; tests hold them so.

No Qt here.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import operator
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neardup_gui.core.progress import list_giving_way
from neardup_gui.core.records import Document
from neardup_gui.io import outputs
from neardup_gui.io.cellsafe import FORMULA_PREFIXES
from neardup_gui.io.session import ManifestValues, manifest_values

log = logging.getLogger(__name__)

__all__ = ["CARRY_CHECKS", "CarriedRows", "ManifestMade", "carry_arrays", "carried_rows", "carry_context",
           "line_offsets", "make_manifest"]  # fmt: skip

_path_of = operator.attrgetter("path")

# Rows made afresh and compared before any is carried.
CARRY_CHECKS = 64
_DIGEST = 16  # bytes of a session row digest
_HEADER = outputs.csv_bytes(outputs.MANIFEST_COLUMNS, [])
_FORMULA_BYTES = np.frombuffer("".join(FORMULA_PREFIXES).encode("ascii"), dtype=np.uint8)
_FORMULA_TABLE = np.zeros(256, dtype=bool)
_FORMULA_TABLE[_FORMULA_BYTES] = True


@dataclass(frozen=True)
class CarriedRows:
    """The last screen's ``manifest.csv`` line and session digest of each row of its known files
    (``io.corpus.KnownFiles``, same order), and the context they were made in.

    Attributes:
        context: ``carry_context`` of that screen.
        digests: ``_DIGEST`` bytes per row, joined.
        lines: uint8, the rows' CSV lines (CRLF included), joined.
        offsets: int64, where each row's line starts in ``lines``, then ``lines.size``.
    """

    context: str
    digests: bytes
    lines: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return self.offsets.size - 1


@dataclass(frozen=True)
class ManifestMade:
    """``manifest.csv`` and the session's rows of one manifest (``make_manifest``).

    Attributes:
        csv: The file's bytes.
        offsets: Where document ``i``'s line starts in ``csv`` (then ``len(csv)``).
        values: The session's values and digests.
        carried: Rows taken over from the last screen.
    """

    csv: bytes
    offsets: np.ndarray
    values: ManifestValues
    carried: int = 0


def carry_context(source: Path, sidecar: Path | None, prepare_key: str) -> str:
    """What a screen's manifest rows depend on besides the files and the program's version (which
    the cache checks itself): the source folder, the sidecar's bytes, the prepare cache's key
    and the local time zone."""
    side = ""
    if sidecar is not None:
        try:
            side = hashlib.sha256(Path(sidecar).read_bytes()).hexdigest()
        except OSError:
            side = "unreadable"  # the scan refuses it anyway
    zone = [time.timezone, time.altzone, time.daylight, list(time.tzname)]
    return json.dumps({"source": str(source), "sidecar": side, "prepare": prepare_key, "zone": zone},
                      ensure_ascii=True, sort_keys=True)  # fmt: skip


def line_offsets(data: bytes, start: int = 0) -> np.ndarray:
    """Where each CSV row of ``data[start:]`` starts, then ``len(data)``: a row ends with CRLF
    outside quotes (``csv.writer`` quotes every field holding a quote, CR or LF, and doubles its
    quotes, so an odd count of quotes before a CRLF means it is inside a field). Every row must
    end with CRLF."""
    b = np.frombuffer(data, dtype=np.uint8)[start:]
    if b.size == 0:
        return np.full(1, start, dtype=np.int64)
    inside = np.bitwise_xor.accumulate(b == 34)  # a quote opens or closes: inside after an odd count
    ends = np.flatnonzero((b[:-1] == 13) & (b[1:] == 10) & ~inside[:-1]) + 2
    if ends.size == 0 or ends[-1] != b.size:
        raise ValueError("CSV data that does not end with a row's CRLF")
    return np.concatenate(([0], ends)).astype(np.int64) + start


def _fresh(documents: Sequence[Document]) -> tuple[bytes, np.ndarray]:
    """``documents``' manifest lines made now (without the header), and where each starts."""
    data = outputs.csv_bytes(outputs.MANIFEST_COLUMNS, outputs.manifest_rows(documents))[len(_HEADER) :]
    return data, line_offsets(data)


def _sample_agrees(documents: Sequence[Document], at: list[int], carried: CarriedRows) -> bool:
    """Whether ``CARRY_CHECKS`` of the rows to carry, spread over them, are those made afresh."""
    rows = [i for i, j in enumerate(at) if j >= 0]
    if not rows:
        return True
    picked = sorted({rows[int(x)] for x in np.linspace(0, len(rows) - 1, min(CARRY_CHECKS, len(rows)))})
    docs = [documents[i] for i in picked]
    data, offsets = _fresh(docs)
    digests = manifest_values(docs).digests
    lines, starts, dig = carried.lines, carried.offsets, carried.digests
    for n, i in enumerate(picked):
        j = at[i]
        if dig[j * _DIGEST : (j + 1) * _DIGEST] != digests[n]:
            return False
        if lines[starts[j] : starts[j + 1]].tobytes() != data[offsets[n] : offsets[n + 1]]:
            return False
    return True


def make_manifest(
    documents: Sequence[Document],
    carried: CarriedRows | None = None,
    known_at: Mapping[str, int] | None = None,
    context: str = "",
) -> ManifestMade:
    """``manifest.csv`` and the session's values of ``documents``: made, or for the documents in
    ``known_at`` (path -> row of ``carried``) taken from ``carried`` when it was made in
    ``context`` and a sample of it agrees with rows made afresh (see the module notes)."""
    at: list[int] | None = None
    if carried is not None and known_at and carried.context == context:
        at = list_giving_way(map(known_at.get, map(_path_of, documents), itertools.repeat(-1)))
        if max(at, default=-1) >= len(carried):
            at = None
        elif not _sample_agrees(documents, at, carried):
            log.warning("the manifest rows stored with the prepare cache differ from the files' rows; made afresh")
            at = None
    if at is None:
        data = outputs.csv_bytes(outputs.MANIFEST_COLUMNS, outputs.manifest_rows(documents))
        return ManifestMade(data, line_offsets(data, len(_HEADER)), manifest_values(documents))
    assert carried is not None
    rows = np.asarray(at, dtype=np.int64)
    kept = rows >= 0
    fresh = np.flatnonzero(~kept).tolist()
    fresh_data, fresh_at = _fresh([documents[i] for i in fresh])
    row = np.maximum(rows, 0)
    k = np.cumsum(~kept)  # a fresh row's line is the k-th of ``fresh_data`` (from 1)
    fresh_at = np.append(fresh_at, fresh_at[-1])  # an index for the carried rows to read harmlessly
    starts = np.where(kept, carried.offsets[row], fresh_at[np.maximum(k - 1, 0)])
    ends = np.where(kept, carried.offsets[row + 1], fresh_at[k])
    sources = [memoryview(carried.lines), memoryview(fresh_data)]
    data = _HEADER + _joined(sources, (~kept).astype(np.int64), starts, ends)
    offsets = np.zeros(len(at) + 1, dtype=np.int64)
    np.cumsum(ends - starts, out=offsets[1:])
    offsets += len(_HEADER)
    dig = carried.digests
    digests = [dig[j * _DIGEST : (j + 1) * _DIGEST] if j >= 0 else None for j in at]
    return ManifestMade(data, offsets, manifest_values(documents, digests), len(at) - len(fresh))


def _joined(sources: Sequence[memoryview], which: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bytes:
    """The slices ``sources[which[i]][starts[i]:ends[i]]`` joined, those that follow each other in
    one source taken as one (a rescan's rows are mostly in the order the last screen stored them:
    a few thousand slices instead of one per row)."""
    n = which.size
    if n == 0:
        return b""
    first = np.ones(n, dtype=bool)
    first[1:] = (which[1:] != which[:-1]) | (starts[1:] != ends[:-1])
    heads = np.flatnonzero(first)
    tails = np.append(heads[1:], n) - 1
    return b"".join([sources[w][s:e] for w, s, e in zip(which[heads].tolist(), starts[heads].tolist(),
                                                         ends[tails].tolist())])  # fmt: skip


def carry_arrays(made: ManifestMade, positions: Sequence[int], context: str) -> dict[str, np.ndarray]:
    """What the prepare cache stores for the next rescan to carry: the lines and digests of the
    documents at ``positions`` (the known files' rows, in their order), and ``context``."""
    at = np.asarray(positions, dtype=np.int64)
    begin, end = made.offsets[at], made.offsets[at + 1]
    lines = _joined([memoryview(made.csv)], np.zeros(at.size, dtype=np.int64), begin, end)
    starts = np.zeros(at.size + 1, dtype=np.int64)
    np.cumsum(end - begin, out=starts[1:])
    digests = made.values.digests
    return {
        "carry_context": np.array(context),
        "carry_digests": np.frombuffer(b"".join([digests[p] for p in positions]), dtype=np.uint8),
        "carry_lines": np.frombuffer(lines, dtype=np.uint8),
        "carry_offsets": starts,
    }


def carried_rows(z: Mapping[str, np.ndarray], rows: int) -> CarriedRows | None:
    """``carry_arrays`` as read back from the cache (``z``, an ``np.load`` of it), for ``rows``
    known files; None when absent or not of that many rows."""
    try:
        offsets = z["carry_offsets"].astype(np.int64, copy=False)
        lines, digests = z["carry_lines"], z["carry_digests"].tobytes()
        context = str(z["carry_context"])
    except KeyError:
        return None
    if offsets.size != rows + 1 or len(digests) != rows * _DIGEST or (rows and offsets[-1] != lines.size):
        return None
    if not _formula_free(lines):
        log.warning("the manifest rows stored with the prepare cache hold a cell a spreadsheet would run; made afresh")
        return None
    return CarriedRows(context, digests, lines, offsets)


def _formula_free(lines: np.ndarray) -> bool:
    """Whether no cell of these CSV lines (uint8) starts, inside its quotes if quoted, with what a
    spreadsheet reads as a formula (``cellsafe.FORMULA_PREFIXES``). The lines are carried into
    ``manifest.csv`` as they are, never through ``cellsafe.csv_cell`` again: a cache edited by
    hand (or by anything else) must not put a formula there."""
    if lines.size == 0:
        return True
    # First the bytes that could open such a cell at all: a formula byte after a comma, a line
    # end or the start (not a CR there: the line end itself), or after a quote. Usually none, and
    # the quotes need not be followed (100,000 manifest rows: ~25 ms against ~0.13 s).
    at = np.flatnonzero(_FORMULA_TABLE[lines])
    if at.size == 0:
        return True
    before = np.where(at > 0, lines[np.maximum(at - 1, 0)], 44)
    if not (((before == 44) | (before == 10)) & (lines[at] != 13) | (before == 34)).any():
        return True
    outside = ~np.bitwise_xor.accumulate(lines == 34)  # after an even count of quotes
    # A cell starts the data, or follows a comma or a line end outside quotes (a field holding a
    # comma, CR or LF is quoted).
    starts = np.concatenate(([0], np.flatnonzero((((lines == 44) | (lines == 10)) & outside)[:-1]) + 1))
    first = lines[starts]
    quoted = first == 34
    content = np.where(quoted, lines[np.minimum(starts + 1, lines.size - 1)], first)
    # An unquoted cell starting with CR is the empty last cell before its line's CRLF.
    danger = np.isin(content, _FORMULA_BYTES) & (quoted | (first != 13))
    return not bool(danger.any())
