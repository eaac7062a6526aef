"""Convert the engine's code-point offsets into positions of a Qt text document, and back.

The engine counts code points. A ``QTextDocument`` filled with ``setPlainText`` counts UTF-16 units,
so a character beyond U+FFFF (CJK Extension B such as 𠀀) takes two positions; and it turns the
two characters CR LF into one paragraph separator, so a Windows line end takes one position.
Every other character, line feeds and lone CRs included, takes exactly one.
Imports numpy and ``neardup_gui.core.normalize`` only (no Qt: the rules were checked against Qt
and are pinned by tests).
"""

from __future__ import annotations

import numpy as np

from neardup_gui.core.normalize import codepoints


class OffsetMap:
    """Code-point offset <-> document position for one text.

    Texts without astral characters or CR LF (the usual case) need no table at all.
    """

    def __init__(self, text: str) -> None:
        self.length = len(text)
        cps = codepoints(text)
        astral = cps > 0xFFFF
        crlf_second = np.zeros(cps.size, dtype=bool)
        if cps.size > 1:
            crlf_second[1:] = (cps[1:] == 10) & (cps[:-1] == 13)
        if not astral.any() and not crlf_second.any():
            self._positions: np.ndarray | None = None
            self.qt_length = self.length
            return
        width = 1 + astral.astype(np.int64) - crlf_second.astype(np.int64)
        self._positions = np.concatenate(([0], np.cumsum(width)))
        self.qt_length = int(self._positions[-1])

    def to_qt(self, offset: int) -> int:
        """Document position of a code-point offset (clamped to the text)."""
        offset = min(max(0, offset), self.length)
        return offset if self._positions is None else int(self._positions[offset])

    def many_to_qt(self, offsets: np.ndarray) -> np.ndarray:
        """``to_qt`` of every offset of an integer array, at once."""
        clamped = np.clip(offsets, 0, self.length)
        return clamped if self._positions is None else self._positions[clamped]

    def span_to_qt(self, start: int, end: int) -> tuple[int, int]:
        """Document positions of a code-point span (end exclusive)."""
        return self.to_qt(start), self.to_qt(end)

    def from_qt(self, position: int) -> int:
        """Code-point offset of the character at a document position (clamped to the text)."""
        position = min(max(0, position), self.qt_length)
        if self._positions is None:
            return position
        return int(np.searchsorted(self._positions, position, side="right") - 1)
