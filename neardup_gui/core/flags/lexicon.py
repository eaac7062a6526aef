"""Word lists and regular expressions behind the revision flags (Chinese first, some Latin units).

Everything here is data: which characters are numerals, which words are units, negations,
conditions, and which look-alike words are *not* negations (不断, 无论, 非常, 未来, ...). The lists
are deliberately short and explicit so an editor can read why a pair was flagged and a developer
can extend them with a test.

Imports only the standard library.
"""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------
# Numerals
ARABIC_DIGITS = "0123456789０１２３４５６７８９"
CN_DIGIT_VALUES = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
    "九": 9, "壹": 1, "贰": 2, "叁": 3, "肆": 4, "伍": 5, "陆": 6, "柒": 7, "捌": 8, "玖": 9,
}
CN_SMALL_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
CN_LARGE_UNITS = {"万": 10**4, "亿": 10**8}
CN_NUMERALS = "".join(CN_DIGIT_VALUES) + "".join(CN_SMALL_UNITS) + "".join(CN_LARGE_UNITS)
# Magnitude characters written after Arabic digits (3万, 1.5亿, 2千万).
MAGNITUDES = {"十": 10, "百": 100, "千": 1000, "万": 10**4, "亿": 10**8}

# Words made of numerals (plus a unit-like character) that are not quantities.
CN_NUMBER_EXCEPTIONS = frozenset(
    {"十分", "万分", "万一", "一一", "一度", "三角", "一律", "千万", "百分", "一时", "一旦", "两口"}
)

# ---------------------------------------------------------------------------
# Units. Chinese units are matched longest first; Latin units case-insensitively and only when no
# Latin letter follows (5km, 5 km, but not "5 kilograms" -> "k").
CN_UNITS = (
    # money
    "人民币", "美元", "欧元", "日元", "英镑", "港元", "港币", "澳元", "韩元", "卢布", "元", "块钱", "角",
    # weight
    "毫克", "千克", "公斤", "公吨", "克", "吨", "斤",
    # length, area, volume
    "纳米", "微米", "毫米", "厘米", "分米", "千米", "公里", "英里", "英尺", "英寸", "海里", "米", "里",
    "平方公里", "平方千米", "平方米", "平米", "立方米", "公顷", "亩", "毫升", "升",
    "㎡", "㎞", "㎏", "㎎", "㎝", "㎜",
    # time spans
    "个工作日", "工作日", "个小时", "小时", "分钟", "秒钟", "秒", "个月", "周岁", "岁", "天", "年", "周",
    "星期",
    # rates
    "个百分点", "百分点", "%", "％", "‰", "‱", "倍", "成",
    # energy, power, temperature, data
    "千瓦时", "千瓦", "兆瓦", "瓦", "摄氏度", "℃", "度", "伏", "兆", "字节",
    # counts of people
    "人次", "户次", "人", "名",
) + (
    CLASSIFIERS := (
        "个", "位", "次", "项", "件", "条", "款", "章", "节", "篇", "份", "家", "所", "户", "座", "台", "辆",
        "架", "艘", "套", "张", "本", "部", "种", "类", "批", "届", "期", "例", "起", "宗", "株", "头", "只",
        "棵", "层", "级", "分", "场", "轮", "组", "栋", "间", "处", "床",
    )
)
# A lone 一 before a classifier reads as an article (一个, 一部, 统一部署), not as a count; it is a
# quantity only before a measuring unit (一年, 一吨, 一名).
ONE_NOT_BEFORE = frozenset(CLASSIFIERS)
LATIN_UNITS = (
    "kwh", "kw", "mw", "gw", "km2", "km", "cm", "mm", "nm", "m2", "m3", "m", "kg", "mg", "g", "t",
    "ml", "l", "gb", "mb", "kb", "tb", "h", "min", "s", "usd", "rmb", "cny", "eur",
)
# Spellings of one unit (compared after NFKC + casefold).
UNIT_ALIASES = {
    "公斤": "kg", "千克": "kg", "kg": "kg",
    "公里": "km", "千米": "km", "km": "km",
    "米": "m", "m": "m", "厘米": "cm", "cm": "cm", "毫米": "mm", "mm": "mm", "克": "g", "g": "g",
    "毫克": "mg", "mg": "mg", "吨": "t", "公吨": "t", "t": "t",
    "平方米": "m2", "平米": "m2", "m2": "m2", "平方公里": "km2", "平方千米": "km2", "km2": "km2",
    "立方米": "m3", "m3": "m3", "毫升": "ml", "ml": "ml", "升": "l", "l": "l",
    "小时": "h", "个小时": "h", "h": "h", "分钟": "min", "min": "min", "秒": "s", "秒钟": "s", "s": "s",
    "千瓦": "kw", "kw": "kw", "千瓦时": "kwh", "kwh": "kwh", "摄氏度": "℃", "°c": "℃",
    "%": "%", "％": "%", "个百分点": "pp", "百分点": "pp", "工作日": "workday", "个工作日": "workday",
    "周": "week", "星期": "week", "元": "元", "块钱": "元", "人民币": "元", "rmb": "元", "cny": "元",
    "美元": "usd", "usd": "usd", "欧元": "eur", "eur": "eur", "港元": "hkd", "港币": "hkd",
}


def _alternation(words: tuple[str, ...] | frozenset[str] | list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))


def _trie(words: tuple[str, ...] | list[str]) -> str:
    """A regex matching the longest of ``words``, shaped as a trie (one branch per next character).

    ``re`` tries the alternatives of a flat alternation one by one; with ~150 units after every
    numeral that dominated the scan. A trie checks one character per level instead.
    """
    tree: dict = {}
    for w in set(words):
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(tree)


_UNIT_FIRST = "".join(sorted({w[0] for w in CN_UNITS} | {c for w in LATIN_UNITS for c in (w[0], w[0].upper())}))
UNIT_PATTERN = f"(?=[{re.escape(_UNIT_FIRST)}])(?:{_trie(CN_UNITS)}|(?i:{_trie(LATIN_UNITS)})(?![A-Za-z]))"

# ---------------------------------------------------------------------------
# Number and date tokens. One master pattern; the first alternative that matches at a position
# wins, so date parts come before plain quantities (2023年 is a year, 3年 a duration).
_D = "[0-9０-９]"
_CN_DAY = "(?:[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"  # 1..39
_CN_HOUR = "(?:二十[一二三四]?|十[一二三四五六七八九]?|[零〇一二两三四五六七八九])"
_CN_YEAR = "[〇零一二三四五六七八九]{4}"
AMPM_WORDS = ("上午", "下午", "中午", "晚上", "早上", "凌晨", "傍晚", "夜间", "晚间", "清晨", "早晨", "午间", "深夜")
_AMPM = _alternation(AMPM_WORDS)
_MINUTE = f"\\s?(?:{_D}{{1,2}}|{_CN_DAY})\\s?分"
_NUM_AR = f"{_D}+(?:,{_D}{{3}})*(?:[.．]{_D}+)?"
_CN_RUN = f"[{CN_NUMERALS}]"

# (name, pattern, classes of its first character: d = digit, c = Chinese numeral, w = word)
DATE_PARTS = (
    ("iso", f"{_D}{{4}}[-/.．]{_D}{{1,2}}[-/.．]{_D}{{1,2}}(?!{_D})|{_D}{{4}}[-/]{_D}{{1,2}}(?![0-9０-９.．])", "d"),
    ("year", f"(?:{_D}{{4}}|{_CN_YEAR})\\s?年(?:度|初|底|末)?", "dc"),
    ("month_day", f"(?:{_D}{{1,2}}|十[一二]?|[一二三四五六七八九])\\s?月\\s?(?:{_D}{{1,2}}|{_CN_DAY})\\s?[日号]", "dc"),
    ("month", f"(?:{_D}{{1,2}}|十[一二]?|[一二三四五六七八九])\\s?月份?(?:初|底|末|[上中下]旬)?", "dc"),
    ("quarter", "第?(?:[一二三四]|[1-4１-４])\\s?季度", "wdc"),
    ("day", f"(?:{_D}{{1,2}}|{_CN_DAY})\\s?日", "dc"),
    ("ampm_time", f"(?:{_AMPM})\\s?(?:{_D}{{1,2}}|{_CN_HOUR})\\s?(?:时|点钟|点)(?:{_MINUTE}|半|整)?", "w"),
    (
        "time",
        f"{_D}{{1,2}}\\s?[:：]\\s?{_D}{{2}}(?:\\s?[:：]\\s?{_D}{{2}})?"
        f"|{_D}{{1,2}}\\s?(?:时|点钟|点)(?:{_MINUTE}|半|整)?"
        f"|{_CN_HOUR}\\s?时(?:{_MINUTE}|半|整)"
        f"|(?:{_D}{{1,2}}|{_CN_HOUR})\\s?点(?:{_MINUTE}|半|整|钟)",
        "dc",
    ),
    ("weekday", "(?:星期|周|礼拜)[一二三四五六日天七]", "w"),
    ("ampm", _AMPM, "w"),
    ("period", "每(?:个)?(?:工作日|小时|季度|星期|天|日|周|月|年|旬)", "w"),
    ("relative", "(?:今|明|昨|前|后)(?:天|日)|(?:今|明|去|前)年|(?:本|上|下)(?:周|星期|个月|月|季度|年度|半年)|(?:年|月)(?:初|底|末)", "w"),
)
QUANTITY_PARTS = (
    ("pct_word", f"(?:百分之|千分之){_CN_RUN}+", "c"),
    ("fraction", f"{_CN_RUN}+分之{_CN_RUN}+|{_D}+/{_D}+(?![0-9０-９/])", "cd"),
    ("arabic", f"{_NUM_AR}[余多]?(?:\\s?{UNIT_PATTERN}|[十百千万亿]+(?:{UNIT_PATTERN})?)?", "d"),
    ("chinese", f"{_CN_RUN}+?[余多]?{UNIT_PATTERN}|{_CN_RUN}+", "c"),
)
_PARTS = DATE_PARTS + QUANTITY_PARTS


def _token_re(first: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?P<{name}>{pat})" for name, pat, starts in _PARTS if first in starts))


# The whole grammar (reference), and the same split by the class of the first character: the
# scanner picks the pattern from the character it stands on, so a digit never tries the date words.
TOKEN_RE = re.compile("|".join(f"(?P<{name}>{pat})" for name, pat, _ in _PARTS))
_DIGIT_RE, _NUMERAL_RE, _WORD_RE = _token_re("d"), _token_re("c"), _token_re("w")
_WORD_STARTS = "第星周礼每今明昨前后去本年月" + "".join(sorted({w[0] for w in AMPM_WORDS}))
TOKEN_DISPATCH = {
    **{ch: _WORD_RE for ch in _WORD_STARTS},
    **{ch: _NUMERAL_RE for ch in CN_NUMERALS},
    **{ch: _DIGIT_RE for ch in ARABIC_DIGITS},
}
DATE_KINDS = frozenset(name for name, _, _ in DATE_PARTS)
# The same shapes with groups, to split a matched quantity into number, approximation, magnitude
# and unit (used with fullmatch, so the lazy numeral run splits 三千克 as 三 + 千克 like TOKEN_RE).
ARABIC_SPLIT_RE = re.compile(f"({_NUM_AR})([余多]?)(?:\\s?({UNIT_PATTERN})|([十百千万亿]+)({UNIT_PATTERN})?)?")
CHINESE_SPLIT_RE = re.compile(f"({_CN_RUN}+?)([余多]?)({UNIT_PATTERN})?")
# Every character a token can start with (digits, numerals, 第, and the first characters of the
# date words): the scanner jumps from one to the next instead of trying TOKEN_RE everywhere.
TOKEN_STARTS = "".join(sorted(TOKEN_DISPATCH))
TOKEN_START_RE = re.compile(f"[{re.escape(TOKEN_STARTS)}]")
CN_NUMERAL_SET = frozenset(CN_NUMERALS)
# What may follow a Chinese numeral that starts a token; anything else makes it a lone numeral.
CN_NUMERAL_FOLLOW = frozenset(CN_NUMERALS + "月日时点年季分号余多之 \u3000" + _UNIT_FIRST)
# Characters a number or date token can contain next to a change (numerals, date words, and the
# characters of units and separators are reached through the token's start).
TOKEN_CHARS = frozenset(TOKEN_STARTS + "年月日号时点分秒半整份度初底末旬季天期拜午晚间")
# Characters a date part may be separated by and still form one date (2023年5月16日（星期二）上午).
DATE_JOINERS = frozenset(" \t\u3000（）()")


# CJK ideographs and punctuation: where a Chinese text's characters come from.
_CJK_SPANS = ((0x3001, 0x303F), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xFF01, 0xFF0F), (0xFF1A, 0xFF20),
              (0xFF3B, 0xFF40), (0xFF5B, 0xFF65), (0x2010, 0x2027))  # fmt: skip


def _outside_tokens() -> bytes:
    """Per code point, 1 for the CJK ideographs and punctuation no number or date token can hold.

    A token touching a change contains the character before it or starts at it, so the scan for
    it can begin after the last of these before the change (a token cannot run across one). The
    grammar matches CJK characters only where it names them (no ranges or classes reach them; the
    tests check this on the parsed grammar), so leaving out every character the grammar's source
    mentions is enough. A table rather than a set: built in ~2 ms, not ~15.
    """
    table = bytearray(0x110000)
    for lo, hi in _CJK_SPANS:
        table[lo : hi + 1] = b"\x01" * (hi + 1 - lo)
    for ch in set(TOKEN_RE.pattern) | DATE_JOINERS | set(",.．"):
        table[ord(ch)] = 0
    return bytes(table)


# TOKEN_OUTSIDE[ord(ch)] is 1 when no token can contain or join across ``ch``.
TOKEN_OUTSIDE = _outside_tokens()

# ---------------------------------------------------------------------------
# Negation. Words in NEGATION_EXCEPTIONS contain a negation character without negating anything;
# they are matched first so their characters are consumed and never counted.
NEGATIONS = (
    "没有", "不得", "不予", "不再", "不准", "不许", "不必", "禁止", "严禁", "免于", "免予", "免除", "免征",
    "免收", "免费", "并非", "毋须", "毋需", "不", "未", "没", "无", "非", "否", "勿",
)
NEGATION_EXCEPTIONS = (
    # 不
    "不断", "不仅", "不但", "不过", "不管", "不论", "不久", "不少", "不禁", "不料", "不妨", "不免", "不然",
    "要不", "不光", "不时", "不已", "不外乎", "不得不", "不动产", "不锈钢", "对不起", "了不起", "差不多",
    "不错", "不愧", "不一而足", "不由得", "忍不住", "不得了",
    # 无
    "无论", "无疑", "无非", "无线", "无锡", "无人机", "无比", "无数", "无奈", "无穷", "无私",
    # 非
    "非常", "非洲", "是非", "莫非", "除非", "非凡", "想入非非",
    # 否
    "否则", "是否", "能否", "可否", "与否", "成否",
    # 未
    "未来",
    # 没
    "没收", "淹没", "埋没", "出没", "沉没", "吞没", "覆没", "湮没", "隐没",
    # 勿
    "勿忘我",
)

# ---------------------------------------------------------------------------
# Conditions and modality. Each word maps to a class; a pair whose classes around a change differ
# (如果 inserted, 仅 removed, 应当 -> 可以) is condition_changed.
CONDITION_CLASSES = {
    "如果": "if", "假如": "if", "倘若": "if", "假若": "if", "若是": "if", "如若": "if", "若": "if",
    "一旦": "if", "只要": "if",
    "除非": "unless", "除外": "unless",
    "仅": "only", "仅限": "only", "仅仅": "only", "只有": "only", "只限": "only", "只能": "only",
    "唯有": "only", "惟有": "only", "凡是": "only", "凡": "only", "限于": "only",
    "必须": "must", "务必": "must", "应当": "must", "应该": "must", "须": "must", "需要": "must",
    "一律": "must", "理应": "must",
    "可以": "may", "允许": "may", "准许": "may", "可酌情": "may", "有权": "may",
    "不得": "prohibit", "禁止": "prohibit", "严禁": "prohibit", "不准": "prohibit", "不许": "prohibit",
}
MODAL_CLASSES = frozenset({"must", "may", "prohibit"})
CONDITION_EXCEPTIONS = (
    "若干", "不仅", "平凡", "非凡", "大凡", "须知", "必需", "急需", "所需", "无须",
)


def _marker_re(words: tuple[str, ...] | list[str], exceptions: tuple[str, ...]) -> re.Pattern[str]:
    # A plain alternation of literal words (no groups) lets ``re`` skip ahead to the possible first
    # characters, ~10x faster than named groups; exceptions are told apart by a set lookup.
    return re.compile(_alternation(tuple(words) + tuple(exceptions)))


NEGATION_RE = _marker_re(NEGATIONS, NEGATION_EXCEPTIONS)
NEGATION_EXCEPTION_SET = frozenset(NEGATION_EXCEPTIONS)
NEGATION_CHARS = frozenset(w[0] for w in NEGATIONS)
CONDITION_RE = _marker_re(list(CONDITION_CLASSES), CONDITION_EXCEPTIONS)
CONDITION_EXCEPTION_SET = frozenset(CONDITION_EXCEPTIONS)
CONDITION_CHARS = frozenset(w[0] for w in CONDITION_CLASSES)
# Longest exception minus one: how much context each side of a change needs so a negation character
# at the edge of the change is recognised as part of 不断 / 无人机 / 想入非非.
MARKER_CONTEXT = 4
