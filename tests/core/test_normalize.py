"""Normalization: same result as whole-text NFKC + casefold + filter, and offsets that point at raw text."""

from __future__ import annotations

import unicodedata

import pytest

from neardup_gui.core.normalize import normalize
from neardup_gui.core.records import NormalizeOptions


def reference(text: str, options: NormalizeOptions) -> str:
    s = unicodedata.normalize("NFKC", text) if options.nfkc else text
    s = s.casefold() if options.case == "casefold" else s.lower() if options.case == "lower" else s
    if options.keep == "alnum":
        return "".join(c for c in s if c.isalnum())
    if options.keep == "whitespace":
        return "".join(c for c in s if not c.isspace())
    return "".join(c for c in s if not c.isspace() and unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp", "Zs"))


SAMPLES = [
    "资料，先备份！",
    "资料整理说明  先备份原始稿件，再登记来源与版本！",
    "ＡＢＣ１２３　全角字母与数字",
    "面积 120㎡，温度 25℃，编号⑩，½ 份",
    "Café résumé naïve e\u0301 Straße ǅ",
    "한국어 텍스트 \u1100\u1161\u11a8",
    "零宽\u200b字符\u200d与双向\u202e控制\u202c",
    "扩展B：\U00020000\U0002A6D6 表情😀",
]


@pytest.mark.parametrize("preset", ["alnum", "punct", "whitespace"])
@pytest.mark.parametrize("text", SAMPLES)
def test_normalized_text_equals_whole_text_rules(text: str, preset: str) -> None:
    options = NormalizeOptions.preset(preset)
    assert normalize(text, options).text == reference(text, options)


def test_seed_example_keeps_only_letters_and_digits() -> None:
    assert normalize("资料，先备份！").text == "资料先备份"


@pytest.mark.parametrize("text", SAMPLES)
def test_every_normalized_character_maps_back_to_its_raw_source(text: str) -> None:
    n = normalize(text)
    for i, ch in enumerate(n.text):
        start, end = n.raw_span(i, i + 1)
        raw = text[start:end]
        assert ch in reference(raw, NormalizeOptions()), (ch, raw)


def test_raw_span_of_a_passage_covers_the_punctuation_between() -> None:
    text = "前言。资料，先备份！结尾"
    n = normalize(text)
    i = n.text.index("资料先备份")
    start, end = n.raw_span(i, i + len("资料先备份"))
    assert text[start:end] == "资料，先备份"


def test_full_width_and_half_width_digits_normalize_alike() -> None:
    assert normalize("资金３００万元").text == normalize("资金300万元").text


def test_punctuation_is_kept_by_the_punct_preset_but_not_whitespace() -> None:
    assert normalize("需要 审批，批准。", NormalizeOptions.preset("punct")).text == "需要审批,批准。"


def test_empty_text_normalizes_to_empty() -> None:
    n = normalize("")
    assert n.text == "" and len(n) == 0


@pytest.mark.parametrize("preset", ["alnum", "punct", "whitespace"])
def test_batch_normalization_equals_one_by_one(preset: str) -> None:
    from neardup_gui.core.normalize import normalize_batch

    options = NormalizeOptions.preset(preset)
    texts = SAMPLES + ["", "。。。", "普通文本"]
    batch = normalize_batch(texts, options)
    assert [b.tolist() for b in batch] == [normalize(t, options).cps.tolist() for t in texts]


def test_texts_needing_the_exact_path_are_found_alike_compiled_and_in_numpy() -> None:
    # A combining mark and an expansion (㎡) first, last and alone in a text, an empty text and
    # plain ones, in every position of a batch; each path starts from a table that has seen none
    # of these code points (it fills them in, then looks again).
    import numpy as np

    from neardup_gui.core.compiled import kernel_module
    from neardup_gui.core.normalize import _Table, codepoints, exact_path_flags

    texts = ["", "cafe\u0301", "㎡开头的面积", "普通的一段文字", "\u0301在最前", "", "ＡＢＣ全角", "㎡"]
    kernel = kernel_module("_prepkernel")
    for shift in range(len(texts)):
        batch = texts[shift:] + texts[:shift]
        cps = codepoints("".join(batch))
        bounds = np.zeros(len(batch) + 1, dtype=np.int64)
        np.cumsum([len(t) for t in batch], out=bounds[1:])
        expected = [1 if ("\u0301" in t or "㎡" in t) else 0 for t in batch]
        assert exact_path_flags(cps, bounds, _Table(NormalizeOptions())).tolist() == expected
        if kernel is not None:
            assert exact_path_flags(cps, bounds, _Table(NormalizeOptions()), kernel.scan_batch).tolist() == expected
