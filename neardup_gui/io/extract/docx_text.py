"""Text of a Word .docx file: body paragraphs and tables in document order, optional headers/footers.

python-docx opens the package (ZIP, content types, relationships, header and footer parts); the
text is then read from the WordprocessingML elements directly, because ``Paragraph.text`` skips
tracked insertions (``w:ins``) and ``Document.iter_inner_content`` skips content controls
(``w:sdt``), both common in edited manuscripts.

The text, line by line:

- one line per paragraph (empty paragraphs give empty lines); ``w:tab`` -> tab, a line break
  (``w:br`` of text wrapping, ``w:cr``) -> line feed, a non-breaking hyphen -> ``-``; page and
  column breaks, deleted text (``w:delText``), field codes and text boxes are left out;
- tables (option ``tables``, on by default): one line per row, cells separated by a tab; a cell
  with several paragraphs keeps them on separate lines; merged cells appear once;
- headers and footers (option ``headers_footers``, off by default): the distinct header texts of
  all sections before the body, the distinct footer texts after it.

Must not import Qt. python-docx is imported only when a .docx file is read.
"""

from __future__ import annotations

import functools
import io
import zipfile
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from neardup_gui.core.records import STATUS_EMPTY, STATUS_TOO_LARGE, STATUS_UNDECODABLE
from neardup_gui.io.decoding import detect_binary
from neardup_gui.io.extract.base import (
    Check,
    Extracted,
    ExtractionError,
    ExtractOptions,
    no_check,
    short_error,
)

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
    from lxml.etree import _Element

FORMAT = "docx"
LIBRARY = "python-docx"
SUFFIXES = (".docx",)

# python-docx holds every part in memory; a small file that inflates past this is refused.
MAX_UNCOMPRESSED = 512 * 1024 * 1024

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_P, _TBL, _SDT, _SDT_CONTENT = f"{{{_W}}}p", f"{{{_W}}}tbl", f"{{{_W}}}sdt", f"{{{_W}}}sdtContent"
_TR, _TC, _CUSTOM_XML = f"{{{_W}}}tr", f"{{{_W}}}tc", f"{{{_W}}}customXml"
_T, _TAB, _BR, _CR = f"{{{_W}}}t", f"{{{_W}}}tab", f"{{{_W}}}br", f"{{{_W}}}cr"
_NB_HYPHEN, _TYPE = f"{{{_W}}}noBreakHyphen", f"{{{_W}}}type"
_V_MERGE, _VAL, _TC_PR = f"{{{_W}}}vMerge", f"{{{_W}}}val", f"{{{_W}}}tcPr"
# Runs anywhere in the paragraph (hyperlinks, tracked insertions, inline content controls, smart
# tags), but not those inside text boxes, whose paragraphs belong to the drawing (and are often
# present twice, once per mc:AlternateContent branch).
_RUN_CONTENT_XPATH = (
    ".//w:r[not(ancestor::w:txbxContent)]/*[self::w:t or self::w:tab or self::w:br or self::w:cr"
    " or self::w:noBreakHyphen]"
)


@functools.lru_cache(maxsize=1)
def _run_content() -> Callable[[_Element], list[_Element]]:
    from lxml import etree

    return etree.XPath(_RUN_CONTENT_XPATH, namespaces={"w": _W})  # type: ignore[return-value]


def _paragraph_text(p: _Element) -> str:
    parts: list[str] = []
    for el in _run_content()(p):
        tag = el.tag
        if tag == _T:
            parts.append(el.text or "")
        elif tag == _TAB:
            parts.append("\t")
        elif tag == _BR:
            if el.get(_TYPE) in (None, "textWrapping"):
                parts.append("\n")
        elif tag == _CR:
            parts.append("\n")
        elif tag == _NB_HYPHEN:
            parts.append("-")
    return "".join(parts)


def _children(parent: _Element, tags: tuple[str, ...]) -> Iterator[_Element]:
    """Children of ``parent`` with one of ``tags``, in order, looking through content controls
    (``w:sdt``) and custom XML wrappers as Word does."""
    for child in parent:
        tag = child.tag
        if tag in tags:
            yield child
        elif tag == _SDT:
            content = child.find(_SDT_CONTENT)
            if content is not None:
                yield from _children(content, tags)
        elif tag == _CUSTOM_XML:
            yield from _children(child, tags)


def _block_lines(parent: _Element, options: ExtractOptions, check: Check) -> list[str]:
    lines: list[str] = []
    for n, block in enumerate(_children(parent, (_P, _TBL))):
        if n % 256 == 0:
            check()
        if block.tag == _P:
            lines.append(_paragraph_text(block))
        elif options.tables:
            lines.extend(_table_lines(block, options, check))
    return lines


def _is_merge_continuation(tc: _Element) -> bool:
    """A cell that continues a vertical merge: Word shows the cell above instead."""
    tc_pr = tc.find(_TC_PR)
    if tc_pr is None:
        return False
    v_merge = tc_pr.find(_V_MERGE)
    return v_merge is not None and v_merge.get(_VAL) in (None, "continue")


def _table_lines(tbl: _Element, options: ExtractOptions, check: Check) -> list[str]:
    lines: list[str] = []
    for tr in _children(tbl, (_TR,)):
        cells = [
            "" if _is_merge_continuation(tc) else "\n".join(_block_lines(tc, options, check))
            for tc in _children(tr, (_TC,))
        ]
        lines.append("\t".join(cells))
    return lines


def _header_footer_texts(document: DocxDocument, check: Check) -> tuple[list[str], list[str]]:
    headers: list[str] = []
    footers: list[str] = []
    even = bool(document.settings.odd_and_even_pages_header_footer)
    plain = ExtractOptions(tables=True, headers_footers=False)
    for section in document.sections:
        kinds = ["first_page_"] if section.different_first_page_header_footer else []
        kinds.append("")
        if even:
            kinds.append("even_page_")
        for prefix in kinds:
            for name, out in (("header", headers), ("footer", footers)):
                part = getattr(section, prefix + name)
                if part.is_linked_to_previous:
                    continue
                text = "\n".join(_block_lines(part._element, plain, check)).strip("\n")
                if text.strip() and text not in out:
                    out.append(text)
    return headers, footers


def _open(data: bytes) -> DocxDocument:
    if not data.startswith(b"PK"):
        kind = detect_binary(data)
        what = f"it is a {kind}" if kind else "it is not a ZIP package"
        raise ExtractionError(STATUS_UNDECODABLE, f"not a valid .docx file: {what}")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            inflated = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ExtractionError(STATUS_UNDECODABLE, f"not a valid .docx file: {short_error(exc)}") from exc
    if inflated > MAX_UNCOMPRESSED:
        raise ExtractionError(
            STATUS_TOO_LARGE,
            f"unpacks to {inflated // (1024 * 1024)} MB, over the limit of "
            f"{MAX_UNCOMPRESSED // (1024 * 1024)} MB for a .docx file; not read",
        )
    import docx  # python-docx; imported here so plain-text scans do not load it

    try:
        return docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises many types for broken packages
        raise ExtractionError(STATUS_UNDECODABLE, f"not a valid .docx file: {short_error(exc)}") from exc


def extract(
    data: bytes,
    options: ExtractOptions,
    check: Check = no_check,
    encoding: str | None = None,
) -> Extracted:
    """Extract the text of a .docx file.

    Args:
        data: The whole file.
        options: ``tables`` and ``headers_footers`` choose what is included.
        check: Called every few hundred paragraphs; may raise ``Cancelled``.
        encoding: Ignored (a .docx has no character encoding to choose).

    Returns:
        The text (see the module docstring for its layout); ``encoding`` is "".

    Raises:
        ExtractionError: ``undecodable`` for a file that is not a Word document, ``too_large``
            when it unpacks to more than ``MAX_UNCOMPRESSED`` bytes, ``empty`` when it holds
            no text.
    """
    document = _open(data)
    lines = _block_lines(document.element.body, options, check)
    if options.headers_footers:
        headers, footers = _header_footer_texts(document, check)
        lines = headers + lines + footers
    text = "\n".join(lines)
    if not text.strip():
        raise ExtractionError(STATUS_EMPTY, "the document contains no text")
    return Extracted(text)
