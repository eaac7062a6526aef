"""Text normalization with a map back to the raw text.

The raw text is never changed. Normalization produces the sequence of code points that is shingled,
plus, for each normalized character, the span of raw code points it came from, so that every overlap
found on normalized text can be highlighted on the raw text.

Speed: NFKC through ``unicodedata`` per character costs ~100 ns; here each distinct code point is
normalized once and cached in a per-options lookup table (a numpy array over all code points), and
whole documents are mapped with array indexing. Documents containing combining marks (whose NFKC
depends on their neighbours) take an exact per-cluster path instead.

Imports only the standard library and numpy.
"""

from __future__ import annotations

import threading
import unicodedata
from dataclasses import dataclass

import numpy as np

from neardup_gui.core.records import NormalizeOptions

__all__ = ["Normalized", "lookup_table", "normalize", "normalize_codepoints", "codepoints", "not_by_table", "to_text"]

_UNKNOWN = -3  # not looked up yet
_COMPLEX = -2  # result depends on neighbours (combining marks): exact slow path
_DROP = -1  # removed by the character filter
_MULTI = -4  # expands to several characters (e.g. "㎡" -> "m2"): looked up in _Table.multi

_MAX_CP = 0x110000


def codepoints(text: str) -> np.ndarray:
    """Code points of ``text`` as a uint32 array (no copy of the string's data beyond encoding)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def to_text(cps: np.ndarray) -> str:
    """Inverse of ``codepoints``."""
    return np.ascontiguousarray(cps, dtype=np.uint32).tobytes().decode("utf-32-le", "surrogatepass")


def _is_context_sensitive(ch: str) -> bool:
    # Marks compose with what precedes them under NFKC; Hangul medial/final jamo compose with the
    # preceding syllable. Either makes per-character normalization differ from whole-text NFKC.
    cp = ord(ch)
    return unicodedata.category(ch).startswith("M") or 0x1160 <= cp <= 0x11FF


def _keep(ch: str, keep: str) -> bool:
    if keep == "alnum":
        return ch.isalnum()
    if ch.isspace():
        return False
    if keep == "punct":
        # Drop invisible format and control characters (zero-width space, bidi marks, ...).
        return unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp", "Zs")
    return True  # "whitespace": drop whitespace only


def _apply(s: str, options: NormalizeOptions) -> str:
    if options.nfkc:
        s = unicodedata.normalize("NFKC", s)
    if options.case == "casefold":
        s = s.casefold()
    elif options.case == "lower":
        s = s.lower()
    return "".join(c for c in s if _keep(c, options.keep))


class _Table:
    """Lazily filled code point -> normalized code point table for one NormalizeOptions."""

    def __init__(self, options: NormalizeOptions) -> None:
        self.options = options
        self.values = np.full(_MAX_CP, _UNKNOWN, dtype=np.int32)
        self.multi: dict[int, np.ndarray] = {}
        self.lock = threading.Lock()

    def lookup(self, cps: np.ndarray) -> np.ndarray:
        """Table values for ``cps``, filling in code points not seen before."""
        vals = self.values[cps]
        if (vals == _UNKNOWN).any():
            self._fill(np.unique(cps[vals == _UNKNOWN]))
            vals = self.values[cps]
        return vals

    def _fill(self, todo: np.ndarray) -> None:
        with self.lock:
            for cp in todo.tolist():
                ch = chr(cp)
                if 0xD800 <= cp <= 0xDFFF:
                    self.values[cp] = _DROP
                    continue
                if _is_context_sensitive(ch):
                    self.values[cp] = _COMPLEX
                    continue
                out = _apply(ch, self.options)
                if not out:
                    self.values[cp] = _DROP
                elif len(out) == 1:
                    self.values[cp] = ord(out)
                else:
                    self.multi[cp] = codepoints(out).copy()
                    self.values[cp] = _MULTI


_tables: dict[NormalizeOptions, _Table] = {}
_tables_lock = threading.Lock()


def _table(options: NormalizeOptions) -> _Table:
    with _tables_lock:
        table = _tables.get(options)
        if table is None:
            table = _tables[options] = _Table(options)
        return table


def not_by_table(values: np.ndarray) -> np.ndarray:
    """Where lookup-table ``values`` are code points the table cannot map one for one: marks whose
    result depends on their neighbours (the exact path) and expansions to several characters. A
    text holding none is normalized by the table alone, each kept character from one raw one."""
    return (values == _COMPLEX) | (values == _MULTI)


def exact_path_flags(cps: np.ndarray, bounds: np.ndarray, table: _Table, scan=None) -> np.ndarray:
    """Per text (``bounds``: each one's range in ``cps``), 1 where it holds a code point the lookup
    ``table`` cannot map alone (rare: combining marks, expansions), so it takes the exact path;
    the table is filled in for every code point first. ``scan``: the compiled
    ``_prepkernel.scan_batch`` (one pass), else found from where those code points are, not by a
    running count over every code point (5.7 s of a screen of 4,000 drafts of 20,000 characters)."""
    flags = np.zeros(bounds.size - 1, dtype=np.uint8)
    if scan is not None:
        if scan(cps, bounds, table.values, flags):  # code points not in the table yet
            table.lookup(cps)
            scan(cps, bounds, table.values, flags)
        return flags
    special = np.flatnonzero(not_by_table(table.lookup(cps)))
    flags[np.searchsorted(bounds[1:], special, side="right")] = 1
    return flags


def lookup_table(options: NormalizeOptions) -> _Table:
    """The shared table of ``options`` for compiled code: ``values[cp]`` is the normalized code
    point, or a negative marker (-1 dropped, -2 needs the exact path, -3 not filled in yet, -4
    expands to several characters); ``lookup(cps)`` fills in code points not seen before."""
    return _table(options)


@dataclass(frozen=True)
class Normalized:
    """Normalized text of one document and its map to the raw text.

    Attributes:
        cps: Normalized code points (uint32).
        starts: For each normalized character, the raw code-point offset where its source begins.
        ends: For each normalized character, the raw offset just after its source (exclusive).
    """

    cps: np.ndarray
    starts: np.ndarray
    ends: np.ndarray

    @property
    def text(self) -> str:
        return to_text(self.cps)

    def __len__(self) -> int:
        return int(self.cps.size)

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """Raw code-point span covering normalized characters ``[start, end)``."""
        if end <= start:
            raise ValueError("empty span")
        return int(self.starts[start]), int(self.ends[end - 1])


def _fast(cps: np.ndarray, table: _Table) -> Normalized | None:
    vals = table.lookup(cps)
    if (vals == _COMPLEX).any():
        return None
    raw_index = np.arange(cps.size, dtype=np.int64)
    multi_pos = np.flatnonzero(vals == _MULTI)
    if multi_pos.size == 0:
        keep = vals >= 0
        out = vals[keep].astype(np.uint32)
        starts = raw_index[keep]
        return Normalized(out, starts, starts + 1)
    lengths = np.where(vals >= 0, 1, 0)
    expansions = [table.multi[int(cps[p])] for p in multi_pos]
    lengths[multi_pos] = [len(e) for e in expansions]
    total = int(lengths.sum())
    offsets = np.cumsum(lengths) - lengths
    out = np.empty(total, dtype=np.uint32)
    single = vals >= 0
    out[offsets[single]] = vals[single]
    for p, e in zip(multi_pos.tolist(), expansions):
        out[offsets[p] : offsets[p] + len(e)] = e
    starts = np.repeat(raw_index, lengths)
    return Normalized(out, starts, starts + 1)


def _exact(text: str, options: NormalizeOptions) -> Normalized:
    """Per-cluster path: a base character and the marks after it are normalized together."""
    out: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    n = len(text)
    i = 0
    while i < n:
        j = i + 1
        while j < n and _is_context_sensitive(text[j]):
            j += 1
        for ch in _apply(text[i:j], options):
            out.append(ord(ch))
            starts.append(i)
            ends.append(j)
        i = j
    return Normalized(
        np.array(out, dtype=np.uint32), np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)
    )


def normalize(text: str, options: NormalizeOptions | None = None) -> Normalized:
    """Normalize ``text`` and keep the map back to raw offsets.

    Args:
        text: Raw decoded text (unchanged by this call).
        options: Rules; default NFKC + casefold + letters and digits only.

    Returns:
        A ``Normalized`` whose ``text`` equals applying the rules to the whole string.
    """
    options = options or NormalizeOptions()
    if not text:
        empty = np.zeros(0, dtype=np.int64)
        return Normalized(np.zeros(0, dtype=np.uint32), empty, empty)
    cps = codepoints(text)
    result = _fast(cps, _table(options))
    if result is None:
        result = _exact(text, options)
    return result


def normalize_codepoints(text: str, options: NormalizeOptions | None = None) -> np.ndarray:
    """Normalized code points only (what shingling needs), as uint32."""
    return normalize(text, options).cps


def normalize_batch(texts: list[str], options: NormalizeOptions | None = None) -> list[np.ndarray]:
    """Normalized code points of many texts at once (no offset maps): what shingling needs.

    One table lookup over the concatenated texts; texts with characters whose normalization depends
    on their neighbours, or expands to several characters, go through ``normalize`` one by one.
    Equal to ``[normalize(t, options).cps for t in texts]``.
    """
    options = options or NormalizeOptions()
    if not texts:
        return []
    table = _table(options)
    cps = codepoints("".join(texts))
    bounds = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in texts], out=bounds[1:])
    vals = table.lookup(cps)
    keep = vals >= 0
    kept_before = np.zeros(cps.size + 1, dtype=np.int64)
    np.cumsum(keep, out=kept_before[1:])
    special_before = np.zeros(cps.size + 1, dtype=np.int64)
    np.cumsum(not_by_table(vals), out=special_before[1:])
    out_vals = vals[keep].astype(np.uint32)
    result: list[np.ndarray] = []
    for i, text in enumerate(texts):
        lo, hi = bounds[i], bounds[i + 1]
        if special_before[hi] - special_before[lo]:
            result.append(normalize(text, options).cps)
        else:
            result.append(out_vals[kept_before[lo] : kept_before[hi]])
    return result
