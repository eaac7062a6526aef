"""Word, web-page and PDF sources: real files written in tmp_path, scanned, read again.

.docx files are written with python-docx (tracked changes and content controls added as XML);
PDFs are written by a small writer below (a Type0 font with a ToUnicode map, as word processors
write Chinese); web pages are real HTML in UTF-8, GBK and Big5. Nothing is mocked.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import subprocess
import sys
import threading
import zipfile
import zlib
from pathlib import Path

import docx
import pypdf
import pytest
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls

from neardup_gui.core.progress import CallbackProgress, Cancelled
from neardup_gui.core.records import FILE_STATUSES, Document
from neardup_gui.io.corpus import CorpusError, LoadedCorpus, read_document_text, scan_folder
from neardup_gui.io.extract import ExtractOptions, extract_document, extractor_for

P1 = "今天上午，市政府召开新闻发布会，介绍了今年第一季度全市经济运行情况。"
P2 = "发言人表示，下一步将继续优化营商环境，支持中小企业发展，确保全年目标顺利完成。"
P3 = "数据显示，全市地区生产总值同比增长百分之五点二，工业生产保持稳定，消费市场逐步回暖。"
NAV = ("首页", "新闻中心", "政务公开", "办事服务", "互动交流")
HOT = ("全国秋粮收购工作全面展开", "多地出台措施促进消费回暖", "气象台发布寒潮蓝色预警")
FOOTER = ("版权所有：某某市人民政府办公室", "京ICP备05070218号")


# --- writers -------------------------------------------------------------------------------------


def make_docx(body: list[str], *, header: str = "", footer: str = "",
              table: list[list[str]] | None = None) -> docx.document.Document:
    document = docx.Document()
    document.add_paragraph(body[0])
    if table:
        t = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                t.cell(r, c).text = value
    for text in body[1:]:
        document.add_paragraph(text)
    if header:
        document.sections[0].header.paragraphs[0].text = header
    if footer:
        document.sections[0].footer.paragraphs[0].text = footer
    return document


def docx_bytes(document: docx.document.Document) -> bytes:
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def make_pdf(pages: list[list[str]], *, to_unicode: bool = True, image_only: bool = False) -> bytes:
    """A real PDF: each page a list of lines drawn with a CID font (Identity-H, glyph id = CID).

    With ``to_unicode`` the font carries a ToUnicode map (what word processors write); without
    it the text layer is glyph ids only. ``image_only`` draws a gray image instead (a "scan").
    """
    chars = sorted({c for page in pages for line in page for c in line})
    cid = {c: i + 1 for i, c in enumerate(chars)}
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    def stream(data: bytes, extra: bytes = b"") -> bytes:
        return b"<< /Length %d%s >>\nstream\n" % (len(data), extra) + data + b"\nendstream"

    catalog, page_tree = add(b""), add(b"")
    bfchar = b"".join(b"<%04X> <%s>\n" % (cid[c], c.encode("utf-16-be").hex().upper().encode())
                      for c in chars)
    cmap = stream(
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        b"/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
        b"1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
        + b"%d beginbfchar\n" % len(chars) + bfchar
        + b"endbfchar endcmap CMapName currentdict /CMap defineresource pop end end"
    )
    descriptor = add(b"<< /Type /FontDescriptor /FontName /SimSun /Flags 4 /FontBBox [0 -200 1000 900]"
                     b" /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>")
    cid_font = add(b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /SimSun /CIDSystemInfo"
                   b" << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >>"
                   b" /FontDescriptor %d 0 R /DW 1000 /CIDToGIDMap /Identity >>" % descriptor)
    unicode_ref = b" /ToUnicode %d 0 R" % add(cmap) if to_unicode else b""
    font = add(b"<< /Type /Font /Subtype /Type0 /BaseFont /SimSun /Encoding /Identity-H"
               b" /DescendantFonts [%d 0 R]%s >>" % (cid_font, unicode_ref))
    image = add(stream(zlib.compress(b"\x80" * 64), b" /Type /XObject /Subtype /Image /Width 8"
                       b" /Height 8 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode"))
    kids = []
    for lines in pages:
        if image_only:
            content = b"q 400 0 0 560 100 140 cm /Im1 Do Q"
        else:
            ops = [b"BT /F1 14 Tf 72 760 Td 18 TL"]
            ops += [b"<" + b"".join(b"%04X" % cid[c] for c in line) + b"> Tj T*" for line in lines]
            content = b"\n".join(ops + [b"ET"])
        contents = add(stream(content))
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Contents %d 0 R"
                        b" /Resources << /Font << /F1 %d 0 R >> /XObject << /Im1 %d 0 R >> >> >>"
                        % (page_tree, contents, font, image)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % page_tree
    objects[page_tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, catalog, xref)
    return bytes(out)


def encrypt_pdf(data: bytes, user_password: str) -> bytes:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="AES-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def news_page(paragraphs: list[str], *, head: str = '<meta charset="utf-8">') -> str:
    nav = "".join(f'<li><a href="/c{i}/">{n}</a></li>' for i, n in enumerate(NAV))
    hot = "".join(f'<li><a href="/h{i}.html">{h}</a></li>' for i, h in enumerate(HOT))
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    foot = "".join(f"<p>{f}</p>" for f in FOOTER)
    return (
        f"<!DOCTYPE html><html><head>{head}<title>新闻_某某市人民政府</title>"
        "<script>var track = '统计代码';</script><style>p{margin:0}</style></head><body>"
        f'<div class="header"><ul class="nav">{nav}</ul></div>'
        '<div class="crumb">当前位置：<a href="/">首页</a> &gt; 政务要闻</div>'
        f'<div class="article"><h1>新闻发布会</h1><div class="content">{body}</div></div>'
        f'<div class="sidebar"><h3>热点新闻</h3><ul>{hot}</ul></div>'
        f'<div class="footer">{foot}</div></body></html>'
    )


def write(root: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def scan(root: Path, include: tuple[str, ...] = ("*",), **kwargs: object) -> LoadedCorpus:
    return scan_folder(root, include=include, **kwargs)  # type: ignore[arg-type]


def by_path(corpus: LoadedCorpus) -> dict[str, Document]:
    return {d.path: d for d in corpus.documents}


# --- .docx ---------------------------------------------------------------------------------------


def test_docx_paragraphs_and_tables_are_read_in_document_order(tmp_path: Path) -> None:
    data = docx_bytes(make_docx([P1, P2], table=[["指标", "增速"], ["工业", "4.0%"]]))
    corpus = scan(write(tmp_path / "src", {"稿件/一季度.docx": data}), include=("*.docx",))
    doc = by_path(corpus)["稿件/一季度.docx"]
    assert (doc.status, doc.encoding) == ("ok", "")
    assert doc.extractor.startswith("docx lxml ")
    assert doc.sha256 == hashlib.sha256(data).hexdigest()  # the original file, not the text
    text = corpus.texts[doc.doc_id]
    assert text == f"{P1}\n指标\t增速\n工业\t4.0%\n{P2}"
    assert doc.chars == len(text)


def test_docx_headers_and_footers_are_read_only_when_asked(tmp_path: Path) -> None:
    data = docx_bytes(make_docx([P1], header="某某出版社内部稿件", footer="第1页"))
    root = write(tmp_path / "src", {"a.docx": data})
    plain = scan(root)
    assert plain.texts[plain.documents[0].doc_id] == P1
    corpus = scan(root, extract_options=ExtractOptions(headers_footers=True))
    doc = corpus.documents[0]
    assert corpus.texts[doc.doc_id] == f"某某出版社内部稿件\n{P1}\n第1页"
    assert doc.extractor.endswith(" +headers_footers")
    # The label alone is enough to extract the same text again.
    assert read_document_text(root, doc) == corpus.texts[doc.doc_id]


def test_docx_tables_can_be_left_out(tmp_path: Path) -> None:
    data = docx_bytes(make_docx([P1, P2], table=[["表格内容", "不比较"]]))
    corpus = scan(write(tmp_path / "src", {"a.docx": data}), extract_options=ExtractOptions(tables=False))
    doc = corpus.documents[0]
    assert corpus.texts[doc.doc_id] == f"{P1}\n{P2}"
    assert doc.extractor.endswith(" -tables")


def test_edited_manuscript_keeps_insertions_and_drops_deletions(tmp_path: Path) -> None:
    document = make_docx([P1, P2])
    w = nsdecls("w")
    first = document.paragraphs[0]._p
    first.append(parse_xml(
        f'<w:ins {w} w:id="1" w:author="编辑" w:date="2024-05-01T00:00:00Z">'
        "<w:r><w:t>（新增一句）</w:t></w:r></w:ins>"))
    first.append(parse_xml(
        f'<w:del {w} w:id="2" w:author="编辑" w:date="2024-05-01T00:00:00Z">'
        "<w:r><w:delText>删掉的话</w:delText></w:r></w:del>"))
    document.element.body.insert(0, parse_xml(
        f"<w:sdt {w}><w:sdtPr/><w:sdtContent><w:p><w:r><w:t>封面标题</w:t></w:r></w:p>"
        "</w:sdtContent></w:sdt>"))
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).merge(table.cell(1, 0)).text = "合并单元格"
    table.cell(0, 1).text = "上"
    table.cell(1, 1).text = "下"
    corpus = scan(write(tmp_path / "src", {"修订稿.docx": docx_bytes(document)}))
    text = corpus.texts[corpus.documents[0].doc_id]
    assert text == f"封面标题\n{P1}（新增一句）\n{P2}\n合并单元格\t上\n\t下"


def test_broken_or_mislabelled_docx_files_get_a_status_and_a_reason(tmp_path: Path) -> None:
    zip_without_word = io.BytesIO()
    with zipfile.ZipFile(zip_without_word, "w") as z:
        z.writestr("hello.txt", "不是Word文档")
    empty_doc = docx.Document()
    files = {
        "text.docx": "其实是纯文本".encode(),
        "picture.docx": b"\x89PNG\r\n\x1a\n" + b"\x00" * 40,
        "other.docx": zip_without_word.getvalue(),
        "truncated.docx": docx_bytes(make_docx([P1]))[:400],
        "blank.docx": docx_bytes(empty_doc),
        "zero.docx": b"",
    }
    docs = by_path(scan(write(tmp_path / "src", files)))
    assert docs["text.docx"].status == "undecodable"
    assert docs["text.docx"].message == "not a valid .docx file: it is not a ZIP package"
    assert "PNG image" in docs["picture.docx"].message
    for name in ("other.docx", "truncated.docx"):
        assert docs[name].status == "undecodable"
        assert docs[name].message.startswith("not a valid .docx file: ")
    assert (docs["blank.docx"].status, docs["blank.docx"].message) == ("empty", "the document contains no text")
    assert docs["zero.docx"].status == "empty"
    assert all(d.sha256 for d in docs.values())
    assert all(d.extractor.startswith("docx ") for d in docs.values() if d.path != "zero.docx")


def _rebuilt(data: bytes, change: dict[str, bytes | None]) -> bytes:
    """``data``'s package with the members in ``change`` replaced (None: removed) or added."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename not in change:
                dst.writestr(info.filename, src.read(info.filename))
        for name, content in change.items():
            if content is not None:
                dst.writestr(name, content)
    return out.getvalue()


def test_docx_headers_and_footers_of_every_section_follow_words_rules() -> None:
    from docx.enum.section import WD_SECTION

    document = docx.Document()
    document.settings.odd_and_even_pages_header_footer = True
    document.add_paragraph(P1)
    first = document.sections[0]
    first.different_first_page_header_footer = True
    first.first_page_header.paragraphs[0].text = "封面页眉"
    first.header.paragraphs[0].text = "奇数页页眉"
    first.even_page_header.paragraphs[0].text = "偶数页页眉"
    first.footer.paragraphs[0].text = "第1页"
    second = document.add_section(WD_SECTION.NEW_PAGE)
    document.add_paragraph(P2)
    for kind in ("header", "footer", "first_page_header", "first_page_footer", "even_page_header", "even_page_footer"):
        getattr(second, kind).is_linked_to_previous = True  # it repeats the first's: nothing new
    third = document.add_section(WD_SECTION.NEW_PAGE)
    document.add_paragraph(P3)
    for kind in ("first_page_header", "first_page_footer", "even_page_header", "even_page_footer"):
        getattr(third, kind).is_linked_to_previous = True
    third.different_first_page_header_footer = False
    third.header.is_linked_to_previous = False
    third.header.paragraphs[0].text = "附录页眉"
    third.footer.is_linked_to_previous = False
    third.footer.paragraphs[0].text = "第1页"  # the same text as the first's: said once
    text = extract_document(docx_bytes(document), "a.docx", ExtractOptions(headers_footers=True)).text
    # (a section break is a paragraph of its own: an empty line)
    assert text == f"封面页眉\n奇数页页眉\n偶数页页眉\n附录页眉\n{P1}\n\n{P2}\n\n{P3}\n第1页"
    document.settings.odd_and_even_pages_header_footer = False  # even pages' headers then unused
    text = extract_document(docx_bytes(document), "a.docx", ExtractOptions(headers_footers=True)).text
    assert text == f"封面页眉\n奇数页页眉\n附录页眉\n{P1}\n\n{P2}\n\n{P3}\n第1页"


def test_docx_main_part_is_found_through_the_package_relationships(caplog: pytest.LogCaptureFixture) -> None:
    data = docx_bytes(make_docx([P1, P2]))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        rels, types = z.read("_rels/.rels").decode(), z.read("[Content_Types].xml").decode()
        body, body_rels = z.read("word/document.xml"), z.read("word/_rels/document.xml.rels")
    # Some producers name the part otherwise (or point at it with an absolute name).
    moved = _rebuilt(data, {
        "word/document.xml": None, "word/_rels/document.xml.rels": None,
        "word/正文.xml": body, "word/_rels/正文.xml.rels": body_rels,
        "_rels/.rels": rels.replace('Target="word/document.xml"', 'Target="/word/正文.xml"').encode(),
        "[Content_Types].xml": types.replace('PartName="/word/document.xml"', 'PartName="/WORD/正文.XML"').encode(),
    })  # fmt: skip
    assert extract_document(moved, "a.docx").text == f"{P1}\n{P2}"
    encoded = _rebuilt(moved, {"_rels/.rels": rels.replace('Target="word/document.xml"',
                                                          'Target="/word/%E6%AD%A3%E6%96%87.xml"').encode()})
    assert extract_document(encoded, "a.docx").text == f"{P1}\n{P2}"  # the name given %-encoded
    # A spreadsheet's package named .docx: its main part says what it is.
    sheet = _rebuilt(data, {"[Content_Types].xml": types.replace(
        "wordprocessingml.document.main+xml", "spreadsheetml.sheet.main+xml").encode()})
    outcome = extract_document(sheet, "a.docx")
    assert outcome.status == "undecodable"
    assert outcome.message == ("not a valid .docx file: its main part is "
                               "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml")
    # The document's compressed bytes damaged: said as such, no traceback in the log.
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = z.getinfo("word/document.xml")
    at = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 40
    damaged = data[:at] + bytes(b ^ 0x5A for b in data[at : at + 64]) + data[at + 64 :]
    with caplog.at_level("WARNING"):
        outcome = extract_document(damaged, "a.docx")
    assert outcome.status == "undecodable" and outcome.message.startswith("not a valid .docx file: ")
    assert not caplog.records  # a broken file, not a failure of the program
    missing = _rebuilt(data, {"word/document.xml": None})
    outcome = extract_document(missing, "a.docx")
    assert (outcome.status, outcome.message) == ("undecodable", "not a valid .docx file: its part word/document.xml is missing")


def test_docx_entities_are_never_resolved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("机密内容", encoding="utf-8")
    data = docx_bytes(make_docx([P1]))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        body = z.read("word/document.xml").decode()
    head, rest = body.split("?>", 1)
    hostile = (f'{head}?><!DOCTYPE w:document [<!ENTITY leak SYSTEM "{secret.as_uri()}">]>'
               + rest.replace(P1, P1 + "&leak;"))  # fmt: skip
    outcome = extract_document(_rebuilt(data, {"word/document.xml": hostile.encode()}), "a.docx")
    assert "机密内容" not in (outcome.text or "") and "机密内容" not in outcome.message


def _from_reading(obj: object) -> bool:
    """An object a .docx reading makes: the ZIP, its members, the XML trees, the extractor's frames
    and functions (python-docx left ~100 such objects a file in cycles)."""
    module = type(obj).__module__ or ""
    if module.split(".")[0] in ("zipfile", "lxml", "docx", "neardup_gui"):
        return True
    code = getattr(obj, "f_code", None) or getattr(obj, "__code__", None)
    return code is not None and "/io/extract/" in code.co_filename.replace("\\", "/")


def test_reading_docx_and_pdf_files_leaves_no_pile_of_garbage_while_the_collector_is_paused() -> None:
    import gc

    from neardup_gui.core.memory import cycle_collector_paused
    from neardup_gui.io.extract import sweep_cycles

    docx_data = docx_bytes(make_docx([P1, P2], header="页眉", table=[["表", "格"]]))
    pdf_data = make_pdf([[P1, P2], [P3]])
    with cycle_collector_paused():
        gc.collect()
        for _ in range(10):  # a .docx is a tree that reference counting frees: nothing left
            assert extract_document(docx_data, "a.docx", ExtractOptions(headers_footers=True)).status == "ok"
        # Only the reading's own garbage counts: threads left by earlier tests may free cycles of theirs meanwhile.
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            ours = [o for o in gc.garbage if _from_reading(o)]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert ours == []
        for _ in range(2 * sweep_cycles.every + 3):  # pypdf leaves each file's reader in cycles: swept
            assert extract_document(pdf_data, "a.pdf").status == "ok"
        readers = sum(isinstance(o, pypdf.PdfReader) for o in gc.get_objects())
        assert readers <= sweep_cycles.every, readers  # at most those read since the last sweep


# --- web pages -----------------------------------------------------------------------------------


def test_web_page_main_text_leaves_out_navigation_sidebar_and_footer(tmp_path: Path) -> None:
    page = news_page([P1, P2, P3]).encode("utf-8")
    corpus = scan(write(tmp_path / "src", {"page.html": page}), include=("*.html",))
    doc = corpus.documents[0]
    assert (doc.status, doc.encoding) == ("ok", "utf-8")
    assert doc.extractor.startswith("html readability-lxml ")
    text = corpus.texts[doc.doc_id]
    assert [P1, P2, P3] == [line for line in text.split("\n") if line in (P1, P2, P3)]
    for noise in (*NAV, *HOT, *FOOTER, "统计代码", "当前位置", "margin"):
        assert noise not in text


def test_gbk_page_with_meta_charset_is_read_with_it(tmp_path: Path) -> None:
    # 镕 is in GBK but not in GB2312: a page labelled gb2312 is read as GB18030, as browsers do.
    body = [P1, "朱镕基同志的讲话摘要刊登在第二版。", P2]
    head = '<meta http-equiv="Content-Type" content="text/html; charset=gb2312">'
    page = news_page(body, head=head).encode("gbk")
    big5_page = (
        '<html><head><meta charset="big5"><title>新聞</title></head><body>'
        '<div class="nav"><a href="/">首頁</a> <a href="/n">新聞</a></div><div class="article">'
        "<p>今天上午，市政府召開新聞發布會，介紹了今年第一季度全市經濟運行情況。</p>"
        "<p>發言人表示，將繼續優化營商環境，支持中小企業發展，確保全年目標順利完成。</p></div>"
        "</body></html>"
    ).encode("big5")
    xhtml = ('<?xml version="1.0" encoding="GBK"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
             f"<head><title>t</title></head><body><div><p>{P1}</p><p>{P2}</p></div></body></html>"
             ).encode("gbk")
    docs = by_path(corpus := scan(write(tmp_path / "src", {
        "gbk.htm": page, "big5.html": big5_page, "decl.xhtml": xhtml})))
    gbk = docs["gbk.htm"]
    assert (gbk.status, gbk.encoding, gbk.message) == ("ok", "gb18030", "")
    assert all(p in corpus.texts[gbk.doc_id].split("\n") for p in body)
    assert docs["big5.html"].encoding == "big5"
    assert "發言人表示，將繼續優化營商環境，支持中小企業發展，確保全年目標順利完成。" in corpus.texts[docs["big5.html"].doc_id]
    decl = docs["decl.xhtml"]
    assert (decl.encoding, corpus.texts[decl.doc_id]) == ("gb18030", f"{P1}\n{P2}")


def test_page_whose_declared_charset_is_wrong_is_detected_and_says_so(tmp_path: Path) -> None:
    wrong = news_page([P1, P2], head='<meta charset="utf-8">').encode("gbk")
    undeclared = news_page([P1, P2], head="").encode("gbk")
    bom_wins = b"\xef\xbb\xbf" + news_page([P1, P2], head='<meta charset="gbk">').encode("utf-8")
    docs = by_path(corpus := scan(write(tmp_path / "src", {
        "wrong.html": wrong, "undeclared.html": undeclared, "bom.html": bom_wins})))
    assert (docs["wrong.html"].status, docs["wrong.html"].encoding) == ("ok", "gb18030")
    assert docs["wrong.html"].message == "declared charset 'utf-8' does not decode the page; read as gb18030"
    assert (docs["undeclared.html"].encoding, docs["undeclared.html"].message) == ("gb18030", "")
    assert docs["bom.html"].encoding == "utf-8-sig"
    for name in docs:
        assert P2 in corpus.texts[docs[name].doc_id]


def test_pages_without_text_get_a_status(tmp_path: Path) -> None:
    files = {
        "blank.html": b"  \n ",
        "markup.html": b"<html><head><title>t</title></head><body><div></div></body></html>",
        "png.html": b"\x89PNG\r\n\x1a\n" + b"\x00" * 20,
        "garbage.html": b"abc \xff\xfe\xfd def \x80\xff",
    }
    docs = by_path(scan(write(tmp_path / "src", files)))
    assert docs["blank.html"].status == "empty"
    assert docs["markup.html"].status == "empty"
    assert docs["png.html"].status == "binary"
    assert docs["garbage.html"].status == "undecodable"


def test_page_extraction_gives_the_same_text_in_another_process(tmp_path: Path) -> None:
    page = news_page([P1, P2, P3]).encode("gbk")
    path = tmp_path / "p.html"
    path.write_bytes(page)
    here = extract_document(page, "p.html")
    assert here is not None and here.text
    code = (
        "import sys; from neardup_gui.io.extract import extract_document;"
        f"sys.stdout.buffer.write(extract_document(open({str(path)!r}, 'rb').read(), 'p.html')"
        ".text.encode('utf-8'))"
    )
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, check=True)
        assert out.stdout.decode("utf-8") == here.text


# --- PDF -----------------------------------------------------------------------------------------


def test_pdf_text_layer_is_read_page_by_page(tmp_path: Path) -> None:
    data = make_pdf([[P1, P2], [P3 + "𠀀"]])
    corpus = scan(write(tmp_path / "src", {"报告.pdf": data}), include=("*.pdf",))
    doc = corpus.documents[0]
    assert (doc.status, doc.encoding, doc.message) == ("ok", "", "")
    assert doc.extractor.startswith("pdf pypdf ")
    assert doc.sha256 == hashlib.sha256(data).hexdigest()
    assert corpus.texts[doc.doc_id] == f"{P1}\n{P2}\n\n{P3}𠀀"


def test_scanned_pdf_without_text_gets_no_text_layer(tmp_path: Path) -> None:
    files = {"scan.pdf": make_pdf([[], []], image_only=True), "blank_pages.pdf": make_pdf([[]])}
    docs = by_path(corpus := scan(write(tmp_path / "src", files)))
    for name in files:
        assert docs[name].status == "no_text_layer"
        assert "OCR" in docs[name].message
        assert docs[name].doc_id not in corpus.texts
    assert "none of its 2 page(s) has text" in docs["scan.pdf"].message
    assert "no_text_layer" in FILE_STATUSES


def test_pdf_with_a_scanned_annex_is_read_and_names_the_pages_without_text(tmp_path: Path) -> None:
    data = make_pdf([[P1], [], [P2]])
    corpus = scan(write(tmp_path / "src", {"a.pdf": data}))
    doc = corpus.documents[0]
    assert doc.status == "ok"
    assert doc.message == "1 of 3 pages have no text (page 2)"
    assert corpus.texts[doc.doc_id] == f"{P1}\n\n\n\n{P2}"


def test_damaged_glyph_only_and_locked_pdfs_get_undecodable_with_a_reason(tmp_path: Path) -> None:
    good = make_pdf([[P1]])
    files = {
        "truncated.pdf": good[: len(good) // 3],
        "glyphs.pdf": make_pdf([[P1, P2]], to_unicode=False),
        "locked.pdf": encrypt_pdf(good, user_password="secret"),
        "owner_only.pdf": encrypt_pdf(good, user_password=""),
        "word.pdf": docx_bytes(make_docx([P1])),
    }
    docs = by_path(corpus := scan(write(tmp_path / "src", files)))
    assert docs["truncated.pdf"].status == "undecodable"
    assert docs["glyphs.pdf"].status == "undecodable"
    assert "Unicode map" in docs["glyphs.pdf"].message
    assert docs["locked.pdf"].status == "undecodable"
    assert "password" in docs["locked.pdf"].message
    # Encrypted only against editing (the usual case for official documents): read as usual.
    assert corpus.texts[docs["owner_only.pdf"].doc_id] == P1
    assert "ZIP archive" in docs["word.pdf"].message


# --- scanning, re-reading, progress --------------------------------------------------------------


@pytest.fixture()
def mixed(tmp_path: Path) -> Path:
    return write(tmp_path / "src", {
        "a/稿件.docx": docx_bytes(make_docx([P1, P2])),
        "a/网页.html": news_page([P1, P3], head='<meta charset="gbk">').encode("gbk"),
        "b/报告.pdf": make_pdf([[P2], [P3]]),
        "b/扫描件.pdf": make_pdf([[]], image_only=True),
        "b/纯文本.txt": P1.encode("gb18030"),
        "b/note.md": "# 标题\n".encode(),
    })


def test_extraction_follows_the_include_patterns(mixed: Path) -> None:
    default = by_path(scan_folder(mixed))
    assert default["a/稿件.docx"].status == "excluded"
    assert default["b/报告.pdf"].status == "excluded"
    assert (default["b/纯文本.txt"].status, default["b/纯文本.txt"].extractor) == ("ok", "text")
    only_docx = by_path(scan(mixed, include=("*.docx",)))
    assert only_docx["a/稿件.docx"].status == "ok"
    assert {d.status for p, d in only_docx.items() if p != "a/稿件.docx"} == {"excluded"}
    everything = by_path(scan(mixed, include=("*.txt", "*.md", "*.docx", "*.HTML", "*.pdf")))
    assert {p: d.extractor.split()[0] for p, d in everything.items()} == {
        "a/稿件.docx": "docx", "a/网页.html": "html", "b/报告.pdf": "pdf", "b/扫描件.pdf": "pdf",
        "b/纯文本.txt": "text", "b/note.md": "text",
    }


def test_a_pdf_named_txt_is_still_binary_text(tmp_path: Path) -> None:
    doc = scan(write(tmp_path / "src", {"x.txt": make_pdf([[P1]])})).documents[0]
    assert (doc.status, doc.extractor) == ("binary", "text")
    assert extractor_for("稿件.DOCX") is not None and extractor_for("x.doc") is None


def test_extracted_documents_read_again_give_the_scanned_text(mixed: Path) -> None:
    corpus = scan(mixed)
    assert len(corpus.usable()) == 5
    for doc in corpus.usable():
        assert read_document_text(mixed, doc) == corpus.texts[doc.doc_id]
    pdf = by_path(corpus)["b/报告.pdf"]
    with pytest.raises(CorpusError, match="differs from the scan"):
        read_document_text(mixed, dataclasses.replace(pdf, chars=pdf.chars + 1))
    with pytest.raises(CorpusError, match="no text"):
        read_document_text(mixed, by_path(corpus)["b/扫描件.pdf"])
    (mixed / "a" / "稿件.docx").write_bytes(docx_bytes(make_docx([P3])))
    with pytest.raises(CorpusError, match="changed since it was scanned"):
        read_document_text(mixed, by_path(corpus)["a/稿件.docx"])


def test_one_and_two_workers_extract_the_same_and_leave_the_source_unchanged(mixed: Path) -> None:
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in mixed.rglob("*") if p.is_file()}
    one = scan(mixed, workers=1)
    two = scan(mixed, workers=2)
    assert one.documents == two.documents and one.texts == two.texts
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in mixed.rglob("*") if p.is_file()} == before
    assert sorted(os.listdir(mixed / "b")) == ["note.md", "扫描件.pdf", "报告.pdf", "纯文本.txt"]


def test_progress_counts_extracted_files_to_the_end(mixed: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    scan(mixed, progress=CallbackProgress(lambda *a: seen.append(a), min_interval=0.0))
    reading = [r for r in seen if r[0] != "list"]
    assert reading[0] == ("read", 0, 6) and reading[-1] == ("read", 6, 6)


def test_long_pdf_extraction_stops_between_pages_when_cancelled() -> None:
    data = make_pdf([[P1]] * 20)
    calls: list[int] = []

    def check() -> None:
        calls.append(1)
        if len(calls) == 3:
            raise Cancelled()

    with pytest.raises(Cancelled):
        extract_document(data, "long.pdf", check=check)
    assert len(calls) == 3


def test_cancel_during_extraction_stops_the_scan_and_its_threads(tmp_path: Path) -> None:
    root = write(tmp_path / "src", {f"r{i:02d}.pdf": make_pdf([[P1]] * 5) for i in range(12)})
    event = threading.Event()

    def on_report(stage: str, done: int, total: int) -> None:
        if done >= 1:
            event.set()

    progress = CallbackProgress(on_report, cancel_event=event, min_interval=0.0)
    with pytest.raises(Cancelled):
        scan(root, progress=progress, workers=2)
    assert not [t for t in threading.enumerate() if t.name.startswith("neardup-read")]


def test_plain_text_scans_do_not_load_the_extraction_libraries(tmp_path: Path) -> None:
    root = write(tmp_path / "src", {"a.txt": P1.encode()})
    code = (
        "import sys; from neardup_gui.io.corpus import scan_folder;"
        f"scan_folder({str(root)!r});"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('docx', 'pypdf', 'readability', 'PySide6')];"
        "sys.exit(1 if bad else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
