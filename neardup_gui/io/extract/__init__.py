"""Text extraction for files that are not plain text: Word .docx, web pages, PDF.

A file is extracted when the include patterns let it be read and its name ends in a suffix an
extractor claims (case-insensitive): ``.docx``; ``.html``, ``.htm``, ``.shtml``, ``.xhtml``;
``.pdf``. Every other file read is decoded as plain text by :mod:`neardup_gui.io.decoding`.

The manifest keeps the SHA-256 of the original file; the extracted text is what is compared and
shown. Each row names how its text was made in ``Document.extractor``:
``"<format> <library> <version>"``, plus ``+option`` / ``-option`` words for choices that differ
from the defaults, e.g. ``"docx lxml 6.2.0"``, ``"html readability-lxml 0.9"``,
``"pdf pypdf 7.1.1"``, ``"docx lxml 6.2.0 +headers_footers"``. Plain files keep
``"text"``. ``Document.encoding`` is the codec used for HTML and "" for .docx and .pdf (they have
no character encoding to choose; the extractor column says what the file was).

Failures never raise out of :func:`extract_document`; they become a status and a message:
``undecodable`` (not a valid file of its format, password-protected, glyph-only PDF; the message
says which), ``binary`` (a web page that is binary data), ``empty`` (no text at all),
``no_text_layer`` (a PDF without a text layer; no OCR), ``too_large`` (a .docx that unpacks to
more than 512 MB). ``Cancelled`` from the check callback is the only exception that passes.

Must not import Qt; the extraction libraries are imported only when a file of their format is read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from neardup_gui.core.memory import CycleSweep
from neardup_gui.core.progress import Cancelled
from neardup_gui.core.records import STATUS_EMPTY, STATUS_OK, STATUS_UNDECODABLE
from neardup_gui.io.extract import docx_text, html_text, pdf_text
from neardup_gui.io.extract.base import (
    DEFAULT_OPTIONS,
    Check,
    Extracted,
    ExtractionError,
    ExtractOptions,
    library_version,
    no_check,
    short_error,
)

__all__ = [
    "DEFAULT_OPTIONS",
    "PLAIN_TEXT",
    "ExtractOptions",
    "Extracted",
    "ExtractionError",
    "Extractor",
    "Outcome",
    "extract_document",
    "extractor_for",
    "extractor_for_label",
    "reextract",
    "supported_suffixes",
]

PLAIN_TEXT = "text"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Extractor:
    """One format: its name, the library that reads it, the suffixes it claims, its function."""

    format: str
    library: str
    suffixes: tuple[str, ...]
    run: Callable[[bytes, ExtractOptions, Check, str | None], Extracted]
    leaves_cycles: bool = False  # its library leaves garbage in reference cycles (``core.memory.CycleSweep``)

    def label(self, options: ExtractOptions = DEFAULT_OPTIONS) -> str:
        """``"<format> <library> <version>"`` plus the non-default option words."""
        words = [self.format, self.library, library_version(self.library)]
        if self.format == docx_text.FORMAT:  # the only format with options so far
            words.extend(options.flags())
        return " ".join(words)


def _extractor(module: ModuleType) -> Extractor:
    return Extractor(module.FORMAT, module.LIBRARY, module.SUFFIXES, module.extract, module.LEAVES_CYCLES)


# After every extraction by a library that leaves garbage in reference cycles: with the collector
# paused through a screen, 2,000 small PDFs otherwise held 470 MB more than their text.
sweep_cycles = CycleSweep()


EXTRACTORS: tuple[Extractor, ...] = tuple(_extractor(m) for m in (docx_text, html_text, pdf_text))
_BY_SUFFIX = {suffix: e for e in EXTRACTORS for suffix in e.suffixes}
_BY_FORMAT = {e.format: e for e in EXTRACTORS}
# Common suffixes of plain text, which no extractor takes (in any case): looked for first.
_PLAIN_SUFFIXES = (".txt", ".TXT", ".md")
assert not {s for s in _PLAIN_SUFFIXES if s.lower() in _BY_SUFFIX}


def supported_suffixes() -> tuple[str, ...]:
    """Every suffix read through an extractor, e.g. ``(".docx", ".html", ...)``."""
    return tuple(_BY_SUFFIX)


def extractor_for(name: str) -> Extractor | None:
    """The extractor for a file name (by its suffix, case-insensitive), or None for plain text."""
    if name.endswith(_PLAIN_SUFFIXES):  # most files: one call, ~0.1 us (the split below ~0.26 us)
        return None
    stem, dot, suffix = name.replace("\\", "/").rpartition("/")[2].rpartition(".")
    if not dot or not stem:  # no suffix, or a dot file such as ".html"
        return None
    return _BY_SUFFIX.get("." + suffix.lower())


def extractor_for_label(label: str) -> tuple[Extractor | None, ExtractOptions]:
    """The extractor and options a manifest label names; ``(None, defaults)`` for plain text.

    Raises:
        ValueError: The label names a format this version cannot extract.
    """
    words = label.split()
    if not words or words[0] == PLAIN_TEXT:
        return None, DEFAULT_OPTIONS
    extractor = _BY_FORMAT.get(words[0])
    if extractor is None:
        raise ValueError(f"unknown extractor {label!r}")
    return extractor, ExtractOptions.from_flags(words[3:])


@dataclass(frozen=True)
class Outcome:
    """What extracting one file gave, ready for a manifest row.

    Attributes:
        status: ``ok`` or a failure status (see the module docstring).
        message: Why, or a note about a text that was read; "" when nothing to say.
        text: The extracted text (status ``ok``), else None.
        encoding: Codec used (HTML) or "".
        extractor: The label, recorded whatever the status.
        chars: Code points of the extracted text (0 when none).
    """

    status: str
    message: str
    text: str | None
    encoding: str
    extractor: str
    chars: int = 0


def extract_document(
    data: bytes,
    name: str,
    options: ExtractOptions = DEFAULT_OPTIONS,
    check: Check = no_check,
) -> Outcome | None:
    """Extract the text of one file whose format has an extractor.

    Args:
        data: The whole file (not empty).
        name: Its file name or relative path; the suffix chooses the extractor.
        options: Extraction choices.
        check: Called between pages or blocks; may raise ``Cancelled``.

    Returns:
        The outcome, or None when ``name`` has no extractor (read it as plain text).

    Raises:
        Cancelled: ``check`` asked to stop. Nothing else: failures are outcomes.
    """
    extractor = extractor_for(name)
    if extractor is None:
        return None
    label = extractor.label(options)
    try:
        try:
            got = extractor.run(data, options, check, None)
        finally:
            if extractor.leaves_cycles:
                sweep_cycles()
    except Cancelled:
        raise
    except ExtractionError as exc:
        return Outcome(exc.status, exc.message, None, "", label)
    except ImportError as exc:
        message = f"the {extractor.format} extractor needs {extractor.library}: {short_error(exc)}"
        return Outcome(STATUS_UNDECODABLE, message, None, "", label)
    except Exception as exc:  # a library bug or a file it chokes on must not stop the scan
        log.warning("extracting %s failed", name, exc_info=True)
        message = f"not a valid .{extractor.format} file: {short_error(exc)}"
        return Outcome(STATUS_UNDECODABLE, message, None, "", label)
    if not got.text.strip():
        return Outcome(STATUS_EMPTY, "no text", None, got.encoding, label, len(got.text))
    return Outcome(STATUS_OK, got.note, got.text, got.encoding, label, len(got.text))


def reextract(data: bytes, label: str, encoding: str) -> str:
    """Extract a scanned file's text again the way its manifest row says.

    Args:
        data: The file's bytes (the caller has checked its SHA-256).
        label: ``Document.extractor`` of the row (not ``"text"``).
        encoding: ``Document.encoding`` of the row ("" for .docx and .pdf).

    Returns:
        The text; the same as at scan time when the same library version is installed.

    Raises:
        ValueError: Unknown label, or the file no longer gives text.
    """
    extractor, options = extractor_for_label(label)
    if extractor is None:
        raise ValueError(f"{label!r} is plain text, not an extractor")
    try:
        return extractor.run(data, options, no_check, encoding or None).text
    except ExtractionError as exc:
        raise ValueError(exc.message) from exc
    finally:
        if extractor.leaves_cycles:
            sweep_cycles()
