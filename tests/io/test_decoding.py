"""Decoding a text file's bytes: BOMs, UTF-8, GB18030 versus Big5, BOM-less UTF-16, binary data.

Pure byte-level tests of neardup_gui.io.decoding; folder scanning is tested in test_corpus.py.
"""

from __future__ import annotations

import codecs
import struct
import zlib

import pytest

from neardup_gui.io.decoding import (
    BinaryContentError,
    UndecodableError,
    decode_bytes,
    detect_binary,
    plausibility,
)

SIMPLIFIED = (
    "今天上午，市政府召开新闻发布会，介绍了今年第一季度全市经济运行情况。"
    "数据显示，全市地区生产总值同比增长百分之五点二，工业生产保持稳定，消费市场逐步回暖。\n"
    "发言人表示，下一步将继续优化营商环境，支持中小企业发展，确保全年目标顺利完成。"
)
TRADITIONAL = (
    "今天上午，市政府召開新聞發布會，介紹了今年第一季度全市經濟運行情況。"
    "數據顯示，全市地區生產總值同比增長百分之五點二，工業生產保持穩定，消費市場逐步回暖。\n"
    "發言人表示，下一步將繼續優化營商環境，支持中小企業發展，確保全年目標順利完成。"
)
SHORT_SIMPLIFIED = "中华人民共和国成立了"  # 10 characters: unrestricted detectors call this cp949
SHORT_TRADITIONAL = "臺灣總統府發表聲明說"
MIXED_ASCII = "Version 2.1 release notes: 修复了若干问题 (see README)."
# Invalid UTF-8 (0xFF, lone 0x80), invalid GB18030/Big5 (0xFF is never a lead byte), garbage as UTF-16.
UNDECODABLE = b"abc \xff\xfe\xfd def \x80\xff"


def tiny_png() -> bytes:
    """A valid 1x1 PNG image."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def test_short_gbk_text_is_gb18030_not_korean() -> None:
    assert decode_bytes(SHORT_SIMPLIFIED.encode("gbk")) == (SHORT_SIMPLIFIED, "gb18030")
    assert decode_bytes(MIXED_ASCII.encode("gbk")) == (MIXED_ASCII, "gb18030")


def test_big5_text_is_big5_not_garbage_gb18030() -> None:
    # Big5 bytes always decode "successfully" as GB18030; the plausibility check must refuse that.
    assert decode_bytes(SHORT_TRADITIONAL.encode("big5")) == (SHORT_TRADITIONAL, "big5")
    assert decode_bytes(TRADITIONAL.encode("big5")) == (TRADITIONAL, "big5")


@pytest.mark.parametrize(
    "text",
    [SIMPLIFIED, TRADITIONAL, SHORT_SIMPLIFIED, SHORT_TRADITIONAL, "你好世界", "hello\r\nworld", "𠀀𪚥 😀 中文"],
)
@pytest.mark.parametrize(
    ("codec", "reported"),
    [("utf-16-le", "utf-16-le"), ("utf-16-be", "utf-16-be"), ("utf-16", "utf-16"), ("utf-32", "utf-32"),
     ("utf-8-sig", "utf-8-sig")],
)
def test_unicode_encodings_round_trip(text: str, codec: str, reported: str) -> None:
    assert decode_bytes(text.encode(codec)) == (text, reported)


@pytest.mark.parametrize(
    "text",
    ["请于本周五前提交报告", "关于加强安全生产工作的通知", "第三条 本办法自发布之日起施行。",
     "注：以上数据截至2023年12月31日", "张三说：“不行。”", SIMPLIFIED],
)
def test_gbk_snippets_decode_as_gb18030(text: str) -> None:
    assert decode_bytes(text.encode("gbk")) == (text, "gb18030")


@pytest.mark.parametrize(
    "text",
    ["請於本週五前提交報告", "關於加強安全生產工作的通知", "第三條 本辦法自發布之日起施行。",
     "註：以上資料截至2023年12月31日", "張三說：「不行。」", "中文"],
)
def test_big5_snippets_decode_as_big5(text: str) -> None:
    assert decode_bytes(text.encode("big5")) == (text, "big5")


def test_gb18030_four_byte_characters_decode() -> None:
    text = "生僻字𠀀𪚥与表情😀"
    assert decode_bytes(text.encode("gb18030")) == (text, "gb18030")


def test_bom_is_stripped_and_line_endings_are_kept() -> None:
    text, enc = decode_bytes(codecs.BOM_UTF8 + "一\r\n二\r三\n".encode())
    assert (text, enc) == ("一\r\n二\r三\n", "utf-8-sig")


def test_binary_and_undecodable_bytes_raise() -> None:
    with pytest.raises(BinaryContentError, match="PNG"):
        decode_bytes(tiny_png())
    with pytest.raises(BinaryContentError, match="NUL"):
        decode_bytes(b"\x01\x02\x00\x00\x00\x07\xff\x00\x13")
    with pytest.raises(UndecodableError):
        decode_bytes(UNDECODABLE)


def test_traditional_text_saved_as_gb18030_stays_gb18030() -> None:
    assert decode_bytes(TRADITIONAL.encode("gb18030")) == (TRADITIONAL, "gb18030")


def test_bomless_utf16_that_happens_to_be_valid_utf8_is_still_utf16() -> None:
    # Each UTF-16 code unit of these characters is two ASCII-range bytes (control characters).
    text = "持中小企業發"
    assert text.encode("utf-16-be").decode("utf-8")  # valid UTF-8, but garbage
    assert decode_bytes(text.encode("utf-16-be")) == (text, "utf-16-be")


def test_known_file_signatures_are_named() -> None:
    assert detect_binary(tiny_png()) == "PNG image"
    assert detect_binary(b"%PDF-1.4\n") == "PDF document"
    assert detect_binary(SIMPLIFIED.encode()) is None


def test_real_text_is_plausible_and_big5_read_as_gb18030_is_not() -> None:
    assert plausibility(SIMPLIFIED) > 0.9
    assert plausibility(TRADITIONAL.encode("big5").decode("gb18030")) < 0.5


def test_repetitive_bytes_with_nuls_are_binary_not_utf16_letters() -> None:
    # 00 01 00 01 ... reads as UTF-16 "ĀĀĀ…": letters, but nothing like a text.
    for data in (b"\x00\x01" * 64, b"\x01\x00\x02\x00" * 50):
        with pytest.raises(BinaryContentError):
            decode_bytes(data)


def test_undecodable_message_says_where_utf8_breaks() -> None:
    data = SIMPLIFIED.encode()[:30] + b"\xff" + SIMPLIFIED.encode()[30:]
    with pytest.raises(UndecodableError, match=f"byte 0xFF at byte 30 of {len(data)}"):
        decode_bytes(data)


def test_stopping_at_a_sure_first_decoding_changes_no_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    # decode_bytes stops scoring once the first decoding that works scores 0.98 or more (nothing
    # can then beat it); the answers must be those of scoring every candidate.
    import neardup_gui.io.decoding as decoding

    samples = [
        SIMPLIFIED.encode("gb18030"),
        (SIMPLIFIED + "\r\n" + MIXED_ASCII).encode("gbk"),
        (SIMPLIFIED + "锟斤拷𠀀").encode("gb18030"),  # a rare character and Extension B: below 1.0
        SHORT_SIMPLIFIED.encode("gbk"),
        TRADITIONAL.encode("big5"),
        SHORT_TRADITIONAL.encode("big5"),
        "持中小企業發".encode("utf-16-be"),
        SIMPLIFIED.encode("utf-16-le"),
        ("a\x01" + SIMPLIFIED).encode("utf-8"),
        UNDECODABLE,
        b"\x00\x01" * 64,
    ]

    def outcome(data: bytes) -> object:
        try:
            return decode_bytes(data)
        except (BinaryContentError, UndecodableError) as exc:
            return type(exc)

    fast = [outcome(d) for d in samples]
    monkeypatch.setattr(decoding, "_SURE", 2.0)  # never sure: every candidate is scored
    assert [outcome(d) for d in samples] == fast
    assert fast[0] == (SIMPLIFIED, "gb18030") and fast[4] == (TRADITIONAL, "big5")


def test_the_control_character_check_on_bytes_agrees_with_the_one_on_text() -> None:
    # decode_bytes looks for control characters in the UTF-8 bytes (a quarter of the cost of a
    # regex over the text); for valid UTF-8 the two must always agree.
    import random

    from neardup_gui.io.decoding import _CONTROL_RE, _NOT_CONTROL

    rng = random.Random(3)
    alphabet = [chr(c) for c in range(0x00, 0x100)] + list("中文，。「」\u3000\U00020000é")
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        assert bool(_CONTROL_RE.search(text)) == bool(text.encode("utf-8").translate(None, _NOT_CONTROL)), repr(text)
    assert decode_bytes("第一行\t第二行\r\n".encode("utf-8")) == ("第一行\t第二行\r\n", "utf-8")
