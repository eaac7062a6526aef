"""Number and date tokens of a raw text window, with values that compare across spellings.

A ``Quantity`` is a number with its magnitude and unit (300万元, ３００ 元, 35%, 三百人, 1,250.5吨);
a ``DateToken`` is a run of date parts (2023年5月16日（星期二）上午9时, 2024-03-05, 每周, 下月).
Values are compared, not spellings: 300 and ３００ are equal, 1,200 and 1200 are equal,
2023年5月16日 and 2023-05-16 are equal.

Imports only the standard library.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from neardup_gui.core.flags import lexicon as lx

__all__ = [
    "DateToken",
    "Quantity",
    "RawToken",
    "Token",
    "parse_chinese_number",
    "read_token",
    "scan_spans",
    "scan_tokens",
]

Span = tuple[int, int]

_ASCII_DIGITS = str.maketrans({**{chr(0xFF10 + i): str(i) for i in range(10)}, "．": ".", ",": ""})
_WEEKDAYS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7, "七": 7}
_AMPM_CLASS = {
    "上午": "am", "早上": "am", "早晨": "am", "清晨": "am", "中午": "noon", "午间": "noon", "下午": "pm",
    "傍晚": "pm", "晚上": "night", "晚间": "night", "夜间": "night", "深夜": "night", "凌晨": "dawn",
}
_PERIOD_CLASS = {"天": "day", "日": "day", "工作日": "workday", "周": "week", "星期": "week", "月": "month",
                 "季度": "quarter", "年": "year", "小时": "hour", "旬": "dekad"}
_DIGITS_RE = re.compile(r"\d+")
_MINUTE_RE = re.compile(r"[点时]\s?(.+?)\s?分")


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number with what follows it.

    Attributes:
        start, end: Raw span of the whole token (number, magnitude and unit).
        number: Raw span of the number itself (digits, decimal point, separators, 余/多).
        unit_span: Raw span of magnitude + unit; empty (at the number's end) when there is none.
        text: The token's raw text.
        value: The number's value (without magnitude).
        approx: 余 / 多 after the number, or "".
        scale: Magnitude multiplier (万 -> 10000; 1 when none).
        unit: Canonical unit ("" when none).
    """

    start: int
    end: int
    number: Span
    unit_span: Span
    text: str
    value: Decimal
    approx: str
    scale: int
    unit: str

    kind = "quantity"


@dataclass(frozen=True, slots=True)
class DateToken:
    """Adjacent date parts read as one date; ``parts`` is its canonical reading."""

    start: int
    end: int
    text: str
    parts: tuple[tuple[str, object], ...]

    kind = "date"


Token = Quantity | DateToken


def parse_chinese_number(s: str) -> int | None:
    """Value of a Chinese numeral (三百二十, 一万五千, 两, 二〇二三); None when it is not one."""
    if not s:
        return None
    if len(s) > 1 and all(ch in lx.CN_DIGIT_VALUES for ch in s):
        return int("".join(str(lx.CN_DIGIT_VALUES[ch]) for ch in s))  # digit by digit: 二〇二三
    total = section = num = 0
    for ch in s:
        if ch in lx.CN_DIGIT_VALUES:
            num = lx.CN_DIGIT_VALUES[ch]
        elif ch in lx.CN_SMALL_UNITS:
            section += (num or 1) * lx.CN_SMALL_UNITS[ch]
            num = 0
        elif ch == "万":
            total += ((section + num) or 1) * 10**4
            section = num = 0
        elif ch == "亿":
            total = ((total + section + num) or 1) * 10**8
            section = num = 0
        else:
            return None
    return total + section + num


def _int(s: str) -> int | None:
    ascii_ = s.translate(_ASCII_DIGITS)
    m = _DIGITS_RE.search(ascii_)
    if m:
        return int(m.group())
    return parse_chinese_number(s.strip())


def _canon_unit(unit: str) -> str:
    u = unicodedata.normalize("NFKC", unit).casefold()
    return lx.UNIT_ALIASES.get(u, lx.UNIT_ALIASES.get(unit, u))


def _scale(magnitude: str) -> int:
    out = 1
    for ch in magnitude:
        out *= lx.MAGNITUDES[ch]
    return out


def _quantity(kind: str, text: str, start: int, source: str) -> Quantity | None:
    end = start + len(text)
    if kind == "pct_word":
        value = parse_chinese_number(text[3:])
        if value is None:
            return None
        unit = "%" if text.startswith("百") else "‰"
        return Quantity(start, end, (start + 3, end), (start, start + 3), text, Decimal(value), "", 1, unit)
    if kind == "fraction":
        if "分之" in text:  # 三分之一: denominator first
            bottom, top = text.split("分之", 1)
        else:
            top, bottom = text.split("/", 1)
        num, den = _int(top), _int(bottom)
        if not num or not den:
            return None
        value = Decimal(num) / Decimal(den)
        return Quantity(start, end, (start, end), (end, end), text, value, "", 1, "")
    if kind == "arabic":
        m = lx.ARABIC_SPLIT_RE.fullmatch(text)
        if m is None:
            return None
        try:
            value = Decimal(m.group(1).translate(_ASCII_DIGITS))
        except InvalidOperation:
            return None
        approx = m.group(2)
        magnitude = m.group(4) or ""
        unit_text = m.group(3) or m.group(5) or ""
        number_end = start + m.end(2)
        unit_start = start + (m.start(3) if m.group(3) else m.start(4) if magnitude else m.end(2))
        return Quantity(
            start, end, (start, number_end), (unit_start, end), text, value, approx, _scale(magnitude),
            _canon_unit(unit_text),
        )
    # Chinese numerals: accept only shapes that read as quantities, not words (一些, 统一, 十分).
    m = lx.CHINESE_SPLIT_RE.fullmatch(text)
    if m is None or text in lx.CN_NUMBER_EXCEPTIONS:
        return None
    run, approx, unit_text = m.group(1), m.group(2), m.group(3) or ""
    ordinal = start > 0 and source[start - 1] == "第"
    if not ordinal:
        if unit_text:
            if len(run) == 1 and (run in "百千万亿" or (run == "一" and unit_text in lx.ONE_NOT_BEFORE)):
                return None
        elif not (
            len(run) >= 2
            and any(ch in lx.CN_DIGIT_VALUES for ch in run)
            and any(ch in lx.CN_SMALL_UNITS or ch in lx.CN_LARGE_UNITS for ch in run)
        ):
            return None
    # A trailing 万/亿 is a magnitude, as in 300万: 三百万元 and 300万元 then read alike.
    mantissa, magnitude = run, ""
    while len(mantissa) > 1 and mantissa[-1] in "万亿":
        magnitude = mantissa[-1] + magnitude
        mantissa = mantissa[:-1]
    value = parse_chinese_number(mantissa)
    if value is None:
        return None
    number_end = start + len(mantissa) + (0 if magnitude else len(approx))
    return Quantity(
        start, end, (start, number_end), (number_end, end), text, Decimal(value), approx, _scale(magnitude),
        _canon_unit(unit_text),
    )


def _date_parts(kind: str, text: str) -> tuple[tuple[str, object], ...]:
    t = text.translate(_ASCII_DIGITS)
    if kind == "iso":
        nums = [int(x) for x in _DIGITS_RE.findall(t)]
        return tuple(zip(("y", "m", "d"), nums))
    if kind == "year":
        core = text.split("年")[0].strip()
        suffix = text.split("年", 1)[1].removeprefix("度")  # 2023年度 is the year 2023
        return (("y", _int(core)),) + ((("edge", suffix),) if suffix else ())
    if kind == "month_day":
        month, day = text.split("月", 1)
        return (("m", _int(month)), ("d", _int(day.rstrip("日号 "))))
    if kind == "month":
        month, rest = text.split("月", 1)
        rest = rest.removeprefix("份")
        return (("m", _int(month)),) + ((("edge", rest),) if rest else ())
    if kind == "quarter":
        return (("q", _int(text.removeprefix("第").split("季")[0])),)
    if kind == "day":
        return (("d", _int(text.rstrip("日 "))),)
    if kind == "weekday":
        return (("w", _WEEKDAYS[text[-1]]),)
    if kind == "ampm":
        return (("ap", _AMPM_CLASS[text]),)
    if kind == "period":
        return (("p", _PERIOD_CLASS.get(text.lstrip("每").removeprefix("个"), text)),)
    if kind == "relative":
        return (("r", text.replace("日", "天")),)
    parts: list[tuple[str, object]] = []
    if kind == "ampm_time":
        ampm = text[:2]
        parts.append(("ap", _AMPM_CLASS[ampm]))
        text, t = text[2:], t[2:]
    if ":" in t or "：" in t:
        nums = [int(x) for x in _DIGITS_RE.findall(t)]
        parts.append(("t", tuple(nums) + (0,) * (3 - len(nums))))
        return tuple(parts)
    hour_text = re.split("[时点]", text, maxsplit=1)[0]
    minute = 0
    if text.endswith("半"):
        minute = 30
    else:
        m = _MINUTE_RE.search(text)
        if m:
            minute = _int(m.group(1)) or 0
    parts.append(("t", (_int(hour_text), minute, 0)))
    return tuple(parts)


RawToken = tuple[int, int, str, tuple[tuple[str, int, int], ...]]


def scan_spans(text: str, lo: int, hi: int, until: int | None = None) -> list[RawToken]:
    """Where the tokens of ``text[lo:hi]`` are, not yet read: (start, end, kind, pieces).

    ``kind`` is ``date`` (pieces: the date parts merged into it) or a quantity pattern name (one
    piece). Reading is deferred to ``read_token`` because most tokens of a text never touch a change.

    With ``until``, scanning stops at the first token start after ``until`` that cannot be a further
    part of the last date found: every token starting up to ``until`` is the same, in full, as
    without it; later ones are left out (a check of one change reads less: ~7 % fewer
    instructions for the revision check on a screen's pairs, counted with callgrind).
    """
    out: list[RawToken] = []
    pos = lo
    find_start, dispatch = lx.TOKEN_START_RE.search, lx.TOKEN_DISPATCH
    numerals, follow = lx.CN_NUMERAL_SET, lx.CN_NUMERAL_FOLLOW
    last = hi - 1
    stop_after = hi if until is None else until
    while True:
        found = find_start(text, pos, hi)
        if found is None:
            break
        at = found.start()
        # A date part joins the last token only within two characters of its end (see below).
        if at > stop_after and not (out and out[-1][2] == "date" and at - out[-1][1] <= 2):
            break
        ch = text[at]
        if ch in numerals and (at == last or text[at + 1] not in follow) and not (at and text[at - 1] == "第"):
            pos = at + 1  # a lone numeral (一, 两, 十) is a word unless it is an ordinal
            continue
        m = dispatch[ch].match(text, at, hi)
        if m is None:
            pos = at + 1
            continue
        pos = end = m.end()
        kind = m.lastgroup or ""
        if kind in lx.DATE_KINDS:
            prev = out[-1] if out else None
            if (
                prev is not None
                and prev[2] == "date"
                and at - prev[1] <= 2
                and all(c in lx.DATE_JOINERS for c in text[prev[1] : at])
            ):
                out[-1] = (prev[0], end, "date", prev[3] + ((kind, at, end),))
            else:
                out.append((at, end, "date", ((kind, at, end),)))
        else:
            out.append((at, end, kind, ((kind, at, end),)))
    return out


def read_token(text: str, raw: RawToken) -> Token | None:
    """The ``Quantity`` or ``DateToken`` of a scanned span; None for numerals that read as words."""
    start, end, kind, pieces = raw
    if kind == "date":
        parts: tuple[tuple[str, object], ...] = ()
        for k, a, b in pieces:
            parts += _date_parts(k, text[a:b])
        return DateToken(start, end, text[start:end], parts)
    return _quantity(kind, text[start:end], start, text)


def scan_tokens(text: str, lo: int, hi: int) -> list[Token]:
    """Number and date tokens found in ``text[lo:hi]`` (offsets into ``text``), in order.

    Adjacent date parts (separated by at most two spaces or brackets) are merged into one
    ``DateToken``. Chinese numerals that read as words (一些, 统一, 十分) are not tokens.
    """
    out = []
    for raw in scan_spans(text, lo, hi):
        token = read_token(text, raw)
        if token is not None:
            out.append(token)
    return out
