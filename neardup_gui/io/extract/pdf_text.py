"""Text layer of a PDF, page by page, with pypdf. No OCR: a scan without text is reported as such.

pypdf (pure Python, about 4 MB, no required dependencies) maps glyphs to characters through the
fonts' ToUnicode maps, which is how Chinese PDFs from word processors carry their text. It was
chosen over pdfminer.six (28 MB with its dependencies) because it reads those maps just as well
for our purpose and keeps the install small; ``cryptography`` comes with it (``pypdf[crypto]``)
because many official PDFs are AES-encrypted with only an owner password, which pypdf cannot
remove without it.

The text: each page's text from ``extract_text()`` (plain mode: lines as pypdf infers them),
trailing whitespace removed, pages separated by one empty line.

Statuses: every page without text -> ``no_text_layer``; a text layer made of control and
private-use characters (fonts without a Unicode map) -> ``undecodable``; a password needed to
open the file -> ``undecodable``; some pages without text -> ``ok`` with a note naming them.

Must not import Qt. pypdf is imported only when a PDF is read.
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING

from neardup_gui.core.records import (
    STATUS_EMPTY,
    STATUS_NO_TEXT_LAYER,
    STATUS_UNDECODABLE,
)
from neardup_gui.io.decoding import detect_binary, plausibility
from neardup_gui.io.extract.base import (
    Check,
    Extracted,
    ExtractionError,
    ExtractOptions,
    no_check,
    short_error,
)

if TYPE_CHECKING:
    from pypdf import PdfReader

FORMAT = "pdf"
LIBRARY = "pypdf"
# pypdf leaves ~170 objects a file in reference cycles, the file's bytes among them (core.memory.CycleSweep)
LEAVES_CYCLES = True
SUFFIXES = (".pdf",)

PAGE_SEPARATOR = "\n\n"
# Below this plausibility (see io.decoding) the "text" is glyph ids, not characters.
_PLAUSIBLE_MIN = 0.5
_LISTED_PAGES = 10

log = logging.getLogger(__name__)


def _page_list(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:_LISTED_PAGES])
    return shown + (f" and {len(numbers) - _LISTED_PAGES} more" if len(numbers) > _LISTED_PAGES else "")


def _open(data: bytes) -> tuple[PdfReader, int]:
    import pypdf

    if b"%PDF-" not in data[:1024]:
        kind = detect_binary(data)
        what = f"it is a {kind}" if kind else "it has no PDF header"
        raise ExtractionError(STATUS_UNDECODABLE, f"not a valid PDF file: {what}")
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted and reader.decrypt("") == pypdf.PasswordType.NOT_DECRYPTED:
            raise ExtractionError(
                STATUS_UNDECODABLE, "the PDF is protected by a password; its text cannot be read"
            )
        page_count = len(reader.pages)  # reads the page tree now, so its errors surface here
    except ExtractionError:
        raise
    except Exception as exc:  # pypdf raises many types for damaged files
        raise ExtractionError(STATUS_UNDECODABLE, f"not a valid PDF file: {short_error(exc)}") from exc
    return reader, page_count


def extract(
    data: bytes,
    options: ExtractOptions,
    check: Check = no_check,
    encoding: str | None = None,
) -> Extracted:
    """Extract the text layer of a PDF.

    Args:
        data: The whole file.
        options: Not used for PDF.
        check: Called before each page; may raise ``Cancelled``.
        encoding: Ignored (a PDF has no character encoding to choose).

    Returns:
        The pages' text (see the module docstring); ``encoding`` is ""; ``note`` names pages
        without text or pages that could not be read.

    Raises:
        ExtractionError: ``no_text_layer`` when no page has text, ``undecodable`` for a damaged,
            password-protected or glyph-only file, ``empty`` when the PDF has no pages.
    """
    reader, page_count = _open(data)
    if page_count == 0:
        raise ExtractionError(STATUS_EMPTY, "the PDF has no pages")
    texts: list[str] = []
    blank: list[int] = []
    failed: list[str] = []
    for number, page in enumerate(reader.pages, start=1):
        check()
        try:
            text = page.extract_text() or ""
        except Exception as exc:  # one damaged page must not lose the others
            log.debug("page %d of a PDF could not be read", number, exc_info=True)
            failed.append(f"page {number}: {short_error(exc, 120)}")
            text = ""
        text = text.rstrip()
        if not text.strip():
            blank.append(number)
        texts.append(text)
    if len(blank) == len(texts):
        what = f"none of its {len(texts)} page(s) has text"
        if failed:
            raise ExtractionError(
                STATUS_UNDECODABLE, f"not a readable PDF: {what}; " + "; ".join(failed[:3])
            )
        raise ExtractionError(
            STATUS_NO_TEXT_LAYER,
            f"no text layer: {what} (a scan or images?); text recognition (OCR) is not done",
        )
    text = PAGE_SEPARATOR.join(texts)
    if plausibility(text) < _PLAUSIBLE_MIN:
        raise ExtractionError(
            STATUS_UNDECODABLE,
            "the text layer does not map to readable characters (fonts without a Unicode map)",
        )
    notes: list[str] = []
    if blank:
        notes.append(f"{len(blank)} of {len(texts)} pages have no text (page {_page_list(blank)})")
    if failed:
        notes.append("; ".join(failed[:3]))
    return Extracted(text, "", "; ".join(notes))
