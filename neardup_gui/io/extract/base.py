"""Pieces shared by the format extractors: options, the result record, the error, versions.

Must not import Qt, nor the extraction libraries themselves (each format module imports its
library lazily, so scanning plain text never pays for them).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, fields
from importlib import metadata

Check = Callable[[], None]
"""Called between pages or blocks; raises ``Cancelled`` when the user asked to stop."""


def no_check() -> None:
    """A ``Check`` that never cancels."""


@dataclass(frozen=True)
class ExtractOptions:
    """Choices that change the extracted text of a format.

    A choice that differs from its default is written into the extractor label of every document
    it applied to (e.g. ``docx lxml 6.2.0 +headers_footers``), so the same text can be
    extracted again from the manifest row alone.

    Attributes:
        tables: .docx: include the text of tables, row by row, cells separated by a tab.
        headers_footers: .docx: include page headers and footers (off by default: they repeat the
            same letterhead in every manuscript and make unrelated documents look alike).
    """

    tables: bool = True
    headers_footers: bool = False

    def flags(self) -> tuple[str, ...]:
        """The choices that differ from the defaults, as ``+name`` / ``-name`` words."""
        default = ExtractOptions()
        out: list[str] = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value != getattr(default, f.name):
                out.append(("+" if value else "-") + f.name)
        return tuple(out)

    @classmethod
    def from_flags(cls, words: tuple[str, ...] | list[str]) -> ExtractOptions:
        """Options from ``+name`` / ``-name`` words (unknown names are ignored)."""
        known = {f.name for f in fields(cls)}
        values = {w[1:]: w[0] == "+" for w in words if w[:1] in "+-" and w[1:] in known}
        return cls(**values)


DEFAULT_OPTIONS = ExtractOptions()


@dataclass(frozen=True)
class Extracted:
    """Text obtained from one file.

    Attributes:
        text: The extracted text; what is compared and shown.
        encoding: Python codec the bytes were decoded with (HTML), "" where the format has no
            character encoding to choose (.docx, .pdf).
        note: Something the user should know although the text was read (pages without text,
            a declared charset that did not fit, ...); "" when nothing.
    """

    text: str
    encoding: str = ""
    note: str = ""


class ExtractionError(Exception):
    """The file's text could not be extracted; carries the manifest status and a message.

    Attributes:
        status: One of ``core.records.FILE_STATUSES``.
        message: Why, in words a user understands.
    """

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@functools.lru_cache(maxsize=None)
def library_version(distribution: str) -> str:
    """Installed version of a distribution, or ``"not-installed"``."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not-installed"


def short_error(exc: BaseException, limit: int = 200) -> str:
    """``Type: message`` of an exception, on one line and at most ``limit`` characters."""
    text = " ".join(str(exc).split()) or "no details"
    text = f"{type(exc).__name__}: {text}"
    return text if len(text) <= limit else text[: limit - 3] + "..."
