"""Text of a Word .docx file: body paragraphs and tables in document order, optional headers/footers.

The package is read straight from its ZIP with lxml: the package relationships name the main
document part, whose content type must be a Word document's, and its relationships name the
header, footer and settings parts; nothing else is opened or parsed. (python-docx, used before,
loaded and parsed every part of the package, ~8 ms a file against ~0.2 ms, and left each file's
object graph in reference cycles: with the cyclic collector paused through a screen, 2,000 .docx
files held 10 GB.) The text is read from the WordprocessingML elements directly, because
python-docx's ``Paragraph.text`` skips tracked insertions (``w:ins``) and its
``Document.iter_inner_content`` skips content controls (``w:sdt``), both common in edited
manuscripts.

The text, line by line:

- one line per paragraph (empty paragraphs give empty lines); ``w:tab`` -> tab, a line break
  (``w:br`` of text wrapping, ``w:cr``) -> line feed, a non-breaking hyphen -> ``-``; page and
  column breaks, deleted text (``w:delText``), field codes and text boxes are left out;
- tables (option ``tables``, on by default): one line per row, cells separated by a tab; a cell
  with several paragraphs keeps them on separate lines; merged cells appear once;
- headers and footers (option ``headers_footers``, off by default): the distinct header texts of
  all sections before the body, the distinct footer texts after it (per section its first-page
  ones when it has a distinct first page, its default ones, and its even-page ones when the
  document has them; a section that defines none of a kind repeats its predecessor's).

The XML parser resolves no entities and reads nothing from the network. Must not import Qt; lxml
is imported only when a .docx file is read.
"""

from __future__ import annotations

import functools
import io
import posixpath
import zipfile
import zlib
from urllib.parse import unquote
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
    from lxml.etree import _Element

FORMAT = "docx"
LIBRARY = "lxml"
LEAVES_CYCLES = False  # lxml trees only: reference counting frees them
SUFFIXES = (".docx",)

# A file whose parts unpack to more than this is refused: a ZIP bomb, or no manuscript.
MAX_UNCOMPRESSED = 512 * 1024 * 1024

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_P, _TBL, _SDT, _SDT_CONTENT = f"{{{_W}}}p", f"{{{_W}}}tbl", f"{{{_W}}}sdt", f"{{{_W}}}sdtContent"
_TR, _TC, _CUSTOM_XML = f"{{{_W}}}tr", f"{{{_W}}}tc", f"{{{_W}}}customXml"
_T, _TAB, _BR, _CR = f"{{{_W}}}t", f"{{{_W}}}tab", f"{{{_W}}}br", f"{{{_W}}}cr"
_NB_HYPHEN, _TYPE = f"{{{_W}}}noBreakHyphen", f"{{{_W}}}type"
_V_MERGE, _VAL, _TC_PR = f"{{{_W}}}vMerge", f"{{{_W}}}val", f"{{{_W}}}tcPr"
_BODY, _TITLE_PG, _EVEN_AND_ODD = f"{{{_W}}}body", f"{{{_W}}}titlePg", f"{{{_W}}}evenAndOddHeaders"
_HEADER_REF, _FOOTER_REF = f"{{{_W}}}headerReference", f"{{{_W}}}footerReference"
# The package's own vocabulary (Open Packaging Conventions) and the relationship types used here.
_OPC_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_OPC_TYPES = "http://schemas.openxmlformats.org/package/2006/content-types"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_REL_ID = f"{{{_REL}}}id"
_RT_DOCUMENT, _RT_SETTINGS = f"{_REL}/officeDocument", f"{_REL}/settings"
# The main part of a Word document, a macro-enabled one, or a template.
_WORD_MAIN_TYPES = frozenset({
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    "application/vnd.ms-word.document.macroEnabled.main+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml",
})  # fmt: skip
# Runs anywhere in the paragraph (hyperlinks, tracked insertions, inline content controls, smart
# tags), but not those inside text boxes, whose paragraphs belong to the drawing (and are often
# present twice, once per mc:AlternateContent branch).
_RUN_CONTENT_XPATH = (
    ".//w:r[not(ancestor::w:txbxContent)]/*[self::w:t or self::w:tab or self::w:br or self::w:cr"
    " or self::w:noBreakHyphen]"
)
# Each section's properties in document order, where Word keeps them: in the paragraph that ends
# the section, and the last section's as the body's last child.
_SECTIONS_XPATH = "./w:p/w:pPr/w:sectPr | ./w:sectPr"
# What a broken package raises: not a ZIP after all, truncated, a part that does not inflate or is
# not XML, a compression method or an encryption zipfile cannot read.
_BROKEN = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, OSError, EOFError, ValueError, NotImplementedError,
           RuntimeError)  # fmt: skip


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


def _parser() -> object:
    from lxml import etree

    # One per call (a parser must not be shared between threads); blank text between elements is
    # dropped, as python-docx's parser did (a run's own spaces are kept: Word marks them so).
    return etree.XMLParser(remove_blank_text=True, resolve_entities=False, no_network=True)


def _part(archive: zipfile.ZipFile, name: str) -> _Element:
    from lxml import etree

    try:
        data = archive.read(name)
    except KeyError:
        raise ExtractionError(STATUS_UNDECODABLE, f"not a valid .docx file: its part {name} is missing") from None
    return etree.fromstring(data, _parser())


def _relationships(archive: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """Id -> (type, part name) of the relationships of ``part`` ("" for the package's own) that
    point inside the package; empty when it has none."""
    folder, name = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", f"{name}.rels")
    if rels not in archive.NameToInfo:
        return {}
    found: dict[str, tuple[str, str]] = {}
    for rel in _part(archive, rels).iter(f"{{{_OPC_RELS}}}Relationship"):
        target = rel.get("Target") or ""
        if rel.get("TargetMode") == "External" or not target:
            continue
        path = posixpath.normpath(target if target.startswith("/") else posixpath.join("/" + folder, target))
        path = path.lstrip("/")
        if path not in archive.NameToInfo and unquote(path) in archive.NameToInfo:  # a name given %-encoded
            path = unquote(path)
        found[rel.get("Id") or ""] = (rel.get("Type") or "", path)
    return found


def _content_type(archive: zipfile.ZipFile, part: str) -> str:
    """The content type ``[Content_Types].xml`` gives ``part`` (part names match in any case)."""
    types = _part(archive, "[Content_Types].xml")
    wanted = "/" + part.lower()
    for override in types.iter(f"{{{_OPC_TYPES}}}Override"):
        if (override.get("PartName") or "").lower() == wanted:
            return override.get("ContentType") or ""
    extension = posixpath.splitext(part)[1].lstrip(".").lower()
    for default in types.iter(f"{{{_OPC_TYPES}}}Default"):
        if (default.get("Extension") or "").lower() == extension:
            return default.get("ContentType") or ""
    return ""


def _is_on(element: _Element | None) -> bool:
    """An on/off property: present, and its ``w:val`` (when given) not false, 0 or off."""
    return element is not None and (element.get(_VAL) or "true").lower() not in ("false", "0", "off")


def _main_part(archive: zipfile.ZipFile) -> tuple[str, _Element]:
    """The name and root element (``w:document``) of the package's main document part;
    ``ExtractionError`` when it unpacks too large or is not a Word document."""
    inflated = sum(info.file_size for info in archive.infolist())
    if inflated > MAX_UNCOMPRESSED:
        raise ExtractionError(
            STATUS_TOO_LARGE,
            f"unpacks to {inflated // (1024 * 1024)} MB, over the limit of "
            f"{MAX_UNCOMPRESSED // (1024 * 1024)} MB for a .docx file; not read",
        )
    main = next((p for kind, p in _relationships(archive, "").values() if kind == _RT_DOCUMENT), None)
    if main is None:
        raise ExtractionError(STATUS_UNDECODABLE, "not a valid .docx file: it has no main document part")
    content_type = _content_type(archive, main)
    if content_type not in _WORD_MAIN_TYPES:
        what = f"its main part is {content_type}" if content_type else "its main part has no content type"
        raise ExtractionError(STATUS_UNDECODABLE, f"not a valid .docx file: {what}")
    return main, _part(archive, main)


def _header_footer_texts(
    archive: zipfile.ZipFile, main: str, body: _Element, check: Check
) -> tuple[list[str], list[str]]:
    from lxml import etree

    headers: list[str] = []
    footers: list[str] = []
    rels = _relationships(archive, main)
    settings = next((p for kind, p in rels.values() if kind == _RT_SETTINGS), None)
    even = settings in archive.NameToInfo and _is_on(_part(archive, settings).find(_EVEN_AND_ODD))
    plain = ExtractOptions(tables=True, headers_footers=False)
    for sect_pr in etree.XPath(_SECTIONS_XPATH, namespaces={"w": _W})(body):  # type: ignore[union-attr]
        kinds = ["first"] if _is_on(sect_pr.find(_TITLE_PG)) else []
        kinds.append("default")
        if even:
            kinds.append("even")
        for kind in kinds:
            for tag, out in ((_HEADER_REF, headers), (_FOOTER_REF, footers)):
                # Without a reference of this kind the section repeats its predecessor's: nothing new.
                ref = next((r for r in sect_pr.iterchildren(tag) if r.get(_TYPE) == kind), None)
                target = rels.get(ref.get(_REL_ID) or "") if ref is not None else None
                if target is None or target[1] not in archive.NameToInfo:
                    continue
                text = "\n".join(_block_lines(_part(archive, target[1]), plain, check)).strip("\n")
                if text.strip() and text not in out:
                    out.append(text)
    return headers, footers


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
    from lxml import etree

    if not data.startswith(b"PK"):
        kind = detect_binary(data)
        what = f"it is a {kind}" if kind else "it is not a ZIP package"
        raise ExtractionError(STATUS_UNDECODABLE, f"not a valid .docx file: {what}")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            main, document = _main_part(archive)
            body = document.find(_BODY)
            lines = _block_lines(body, options, check) if body is not None else []
            if options.headers_footers and body is not None:
                headers, footers = _header_footer_texts(archive, main, body, check)
                lines = headers + lines + footers
    except (*_BROKEN, etree.XMLSyntaxError) as exc:
        raise ExtractionError(STATUS_UNDECODABLE, f"not a valid .docx file: {short_error(exc)}") from exc
    text = "\n".join(lines)
    if not text.strip():
        raise ExtractionError(STATUS_EMPTY, "the document contains no text")
    return Extracted(text)
