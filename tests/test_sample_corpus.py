"""The bundled sample corpus (resources/sample) and its labels hold what the user guide promises.

The sample is what a new user screens first, and resources/SAMPLE.md tells them what each planted
pair is. These tests check the files themselves with plain Python (no engine, no Qt), so a change
to the sample that breaks a documented case fails here, whatever the engine does with it.
"""

from __future__ import annotations

import csv
import difflib
import re
import statistics
import unicodedata
from itertools import combinations
from pathlib import Path

import pytest

RESOURCES = Path(__file__).resolve().parents[1] / "resources"
SAMPLE = RESOURCES / "sample"
LABELS = RESOURCES / "sample_labels.csv"
SAMPLE_MD = RESOURCES / "SAMPLE.md"

CANTEEN = "历史稿件/2023-06-12_柳塘街道社区食堂开业.txt"
CANTEEN_REPOST = "网站转载/qingxi_news_canteen_repost.txt"
CANTEEN_IDENTICAL = "通讯员来稿/社区食堂开业稿_柳塘街道报送.txt"
PAPERCUT = "通讯员来稿/非遗剪纸进校园.txt"
PAPERCUT_REPOST = "网站转载/papercut_school_repost.txt"
ECOMMERCE_DRAFT_GB18030 = "通讯员来稿/农村电商培训班_通讯员原稿.txt"
ECOMMERCE_PUBLISHED = "历史稿件/2024-03-08_桥南镇农村电商培训班结业.txt"
RENOVATION = "历史稿件/old_estate_renovation.txt"
RENOVATION_REV2 = "历史稿件/old_estate_renovation_rev2.txt"
DRILL = "内部通知/防汛应急演练通知.txt"
DRILL_MOVED_CRLF = "内部通知/防汛应急演练通知_改期.txt"
NIGHT_RULES_BOM = "内部通知/夜班编辑工作规范.txt"
NIGHT_RULES_REVISED = "内部通知/夜班编辑工作规范_修订稿.txt"
TEMPLATE_ROAD = "通讯员来稿/基层来稿_桥头村道路硬化.txt"
TEMPLATE_CHOIR = "通讯员来稿/jiceng_choir_award.txt"
QUOTE_COMMUNITY = "历史稿件/垃圾分类定时定点投放.txt"
QUOTE_RESTAURANTS = "网站转载/restaurant_waste_sorting.txt"
SEWER_FEATURE = "历史稿件/雨污分流改造纪实.txt"
SEWER_EXCERPT = "网站转载/sewer_renovation_excerpt.txt"
NIGHT_MARKET = "历史稿件/riverside_night_market.txt"
NIGHT_MARKET_FOLLOWUP = "历史稿件/riverside_night_market_followup.txt"
UNRELATED = ("网站转载/spring_tea_harvest.txt", "内部通知/network_maintenance_0316.txt")
EMPTY = "通讯员来稿/未命名稿件.txt"

CASE_FILES = (
    CANTEEN, CANTEEN_REPOST, CANTEEN_IDENTICAL, PAPERCUT, PAPERCUT_REPOST,
    ECOMMERCE_DRAFT_GB18030, ECOMMERCE_PUBLISHED, RENOVATION, RENOVATION_REV2, DRILL,
    DRILL_MOVED_CRLF, NIGHT_RULES_BOM, NIGHT_RULES_REVISED, TEMPLATE_ROAD, TEMPLATE_CHOIR,
    QUOTE_COMMUNITY, QUOTE_RESTAURANTS, SEWER_FEATURE, SEWER_EXCERPT, NIGHT_MARKET,
    NIGHT_MARKET_FOLLOWUP, *UNRELATED, EMPTY,
)  # fmt: skip

TEMPLATE_HEADER_LINES = 4
TEMPLATE_FOOTER_LINES = 3


def sample_files() -> list[str]:
    """Relative paths (``/`` separators) of every file in the sample, sorted."""
    return sorted(p.relative_to(SAMPLE).as_posix() for p in SAMPLE.rglob("*") if p.is_file())


def raw(rel: str) -> bytes:
    return (SAMPLE / rel).read_bytes()


def text(rel: str) -> str:
    """Decoded text: UTF-8 (BOM dropped), else GB18030; line endings unified to LF."""
    data = raw(rel)
    try:
        decoded = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        decoded = data.decode("gb18030")
    return decoded.replace("\r\n", "\n")


def normalized(value: str) -> str:
    """NFKC, casefold, letters and digits only (the seed's default matching copy)."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", value).casefold() if ch.isalnum())


def trigrams(value: str) -> set[str]:
    norm = normalized(value)
    return {norm[i : i + 3] for i in range(len(norm) - 2)}


def jaccard(a: str, b: str) -> float:
    sa, sb = trigrams(a), trigrams(b)
    return len(sa & sb) / len(sa | sb) if sa and sb else 0.0


def no_whitespace(value: str) -> str:
    return "".join(value.split())


def label_rows() -> list[dict[str, str]]:
    with open(LABELS, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


# --- the folder as a whole -------------------------------------------------------------------


def test_sample_has_15_to_30_files_spread_over_several_source_folders():
    files = sample_files()
    assert 15 <= len(files) <= 30
    folders = {rel.split("/")[0] for rel in files}
    assert all("/" in rel for rel in files), "every file sits in a source subfolder"
    assert 3 <= len(folders) <= 5
    assert all(sum(rel.startswith(f + "/") for rel in files) >= 3 for f in folders)


def test_sample_texts_have_newsroom_lengths_with_a_couple_of_long_ones():
    lengths = [len(text(rel)) for rel in sample_files() if raw(rel)]
    assert 300 <= statistics.median(lengths) <= 1500
    assert sum(n >= 3000 for n in lengths) >= 2
    assert min(lengths) >= 200


def test_every_documented_case_file_exists():
    for rel in CASE_FILES:
        assert (SAMPLE / rel).is_file(), rel


def test_sample_md_describes_every_sample_file():
    guide = SAMPLE_MD.read_text(encoding="utf-8")
    missing = [rel for rel in sample_files() if rel not in guide]
    assert not missing


# --- encodings, line endings, empty file ----------------------------------------------------


def test_gb18030_file_is_not_valid_utf8_but_reads_as_gb18030():
    data = raw(ECOMMERCE_DRAFT_GB18030)
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert "农村电商培训班" in data.decode("gb18030")


def test_all_other_nonempty_files_are_utf8():
    for rel in sample_files():
        if rel != ECOMMERCE_DRAFT_GB18030 and raw(rel):
            raw(rel).decode("utf-8")  # raises if not


def test_exactly_one_file_starts_with_a_utf8_bom():
    with_bom = [rel for rel in sample_files() if raw(rel).startswith(b"\xef\xbb\xbf")]
    assert with_bom == [NIGHT_RULES_BOM]


def test_crlf_file_uses_crlf_for_every_line_break():
    data = raw(DRILL_MOVED_CRLF)
    assert data.count(b"\r\n") == data.count(b"\n") > 10


def test_exactly_one_file_is_empty():
    assert [rel for rel in sample_files() if not raw(rel)] == [EMPTY]


# --- the labels file --------------------------------------------------------------------------


def test_labels_file_is_utf8_with_bom_and_has_the_evaluation_columns():
    data = LABELS.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    with open(LABELS, encoding="utf-8-sig", newline="") as fh:
        header = next(csv.reader(fh))
    assert header == ["left", "right", "label", "reason", "split"]


def test_labels_reference_only_existing_sample_files():
    files = set(sample_files())
    for row in label_rows():
        assert row["left"] in files and row["right"] in files, row
        assert row["left"] != row["right"]
        assert raw(row["left"]) and raw(row["right"]), "the empty file cannot be labelled"


def test_labels_are_binary_with_a_reason_and_a_known_split():
    rows = label_rows()
    assert len(rows) >= 12
    for row in rows:
        assert row["label"] in {"0", "1"}
        assert row["split"] in {"tune", "holdout"}
        assert row["reason"].strip()
    for split in ("tune", "holdout"):
        labels = {row["label"] for row in rows if row["split"] == split}
        assert labels == {"0", "1"}, f"{split} needs positives and negatives"


def test_no_pair_is_labelled_twice():
    pairs = [frozenset((row["left"], row["right"])) for row in label_rows()]
    assert len(pairs) == len(set(pairs))


def test_no_file_is_used_in_both_tune_and_holdout():
    used: dict[str, set[str]] = {"tune": set(), "holdout": set()}
    for row in label_rows():
        used[row["split"]].update((row["left"], row["right"]))
    assert not used["tune"] & used["holdout"]


def test_labels_say_copies_merge_and_revisions_do_not():
    label = {frozenset((r["left"], r["right"])): r["label"] for r in label_rows()}
    assert label[frozenset((CANTEEN, CANTEEN_IDENTICAL))] == "1"
    assert label[frozenset((CANTEEN, CANTEEN_REPOST))] == "1"
    assert label[frozenset((ECOMMERCE_DRAFT_GB18030, ECOMMERCE_PUBLISHED))] == "1"
    for pair in [
        (RENOVATION, RENOVATION_REV2),
        (DRILL, DRILL_MOVED_CRLF),
        (NIGHT_RULES_BOM, NIGHT_RULES_REVISED),
        (TEMPLATE_ROAD, TEMPLATE_CHOIR),
        (QUOTE_COMMUNITY, QUOTE_RESTAURANTS),
    ]:
        assert label[frozenset(pair)] == "0", pair


# --- each planted relationship, checked on the text -------------------------------------------


def test_byte_identical_copy_lives_in_another_source_folder():
    assert raw(CANTEEN) == raw(CANTEEN_IDENTICAL)
    assert CANTEEN.split("/")[0] != CANTEEN_IDENTICAL.split("/")[0]


@pytest.mark.parametrize(("original", "repost"), [(CANTEEN, CANTEEN_REPOST), (PAPERCUT, PAPERCUT_REPOST)])
def test_format_copy_equals_original_once_header_and_formatting_are_ignored(original, repost):
    header, _, body = text(repost).partition("\n")
    assert header.strip() and normalized(header) not in normalized(text(original))
    assert body != text(original)
    assert normalized(body) == normalized(text(original))
    assert "\n\n\n" in body, "extra blank lines"
    assert ", " in body and "，" not in body, "half-width punctuation"


def test_canteen_repost_uses_fullwidth_digits():
    body = text(CANTEEN_REPOST).partition("\n")[2]
    assert "１２元" in body and not re.search(r"[0-9]", body)


def test_light_edit_rewords_a_few_phrases_but_keeps_every_number():
    draft, published = text(ECOMMERCE_DRAFT_GB18030), text(ECOMMERCE_PUBLISHED)
    assert normalized(draft) != normalized(published)
    assert re.findall(r"\d+", draft) == re.findall(r"\d+", published)
    assert jaccard(draft, published) >= 0.8
    changed = difflib.SequenceMatcher(None, draft, published, autojunk=False).ratio()
    assert 0.9 <= changed < 1.0


def test_number_revision_differs_only_in_the_budget():
    first, second = text(RENOVATION), text(RENOVATION_REV2)
    assert "300万元" in first and "350万元" in second
    assert first.replace("300万元", "350万元") == second


def test_date_revision_differs_only_in_the_drill_date():
    first, second = text(DRILL), text(DRILL_MOVED_CRLF)
    assert "7月15日" in first and "7月22日" in second
    assert first.replace("7月15日", "7月22日") == second


def test_negation_revision_differs_only_by_one_inserted_bu():
    before, after = text(NIGHT_RULES_BOM), text(NIGHT_RULES_REVISED)
    ops = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    changes = [(tag, before[i1:i2], after[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag != "equal"]
    assert changes == [("insert", "", "不")]
    position = after.index("不需要重新履行")
    assert after[:position] + after[position + 1 :] == before


def test_template_pair_shares_header_and_footer_lines_but_not_the_body():
    road, choir = text(TEMPLATE_ROAD).strip("\n").split("\n"), text(TEMPLATE_CHOIR).strip("\n").split("\n")
    assert road[:TEMPLATE_HEADER_LINES] == choir[:TEMPLATE_HEADER_LINES]
    assert road[-TEMPLATE_FOOTER_LINES:] == choir[-TEMPLATE_FOOTER_LINES:]
    assert any("免责声明" in line for line in road[:TEMPLATE_HEADER_LINES])
    road_body = "\n".join(road[TEMPLATE_HEADER_LINES:-TEMPLATE_FOOTER_LINES])
    choir_body = "\n".join(choir[TEMPLATE_HEADER_LINES:-TEMPLATE_FOOTER_LINES])
    assert len(normalized(road_body)) > 200 and len(normalized(choir_body)) > 200
    assert jaccard(road_body, choir_body) < 0.05


def test_quotation_pair_quotes_the_same_regulation_passage_in_different_marks():
    community, restaurants = text(QUOTE_COMMUNITY), text(QUOTE_RESTAURANTS)
    in_curly = re.search(r"第十八条印在了[^：]*：“([^”]+)”", community)
    in_corner = re.search(r"第十八条「([^」]+)」", restaurants)
    assert in_curly and in_corner
    passage = in_curly.group(1)
    assert passage == in_corner.group(1)
    assert len(passage) >= 100
    rest_a = community.replace(passage, "")
    rest_b = restaurants.replace(passage, "")
    assert jaccard(rest_a, rest_b) < 0.05, "apart from the quotation the articles differ"


def test_excerpt_is_contained_in_the_long_feature():
    excerpt, feature = no_whitespace(text(SEWER_EXCERPT)), no_whitespace(text(SEWER_FEATURE))
    assert excerpt in feature
    assert len(excerpt) * 4 < len(feature)
    assert text(SEWER_EXCERPT) not in text(SEWER_FEATURE), "line breaks differ from the feature"


def test_appended_version_starts_with_the_whole_original_and_adds_a_section():
    base, followup = no_whitespace(text(NIGHT_MARKET)), no_whitespace(text(NIGHT_MARKET_FOLLOWUP))
    assert followup.startswith(base)
    added = followup[len(base) :]
    assert "记者回访" in added
    assert len(added) >= 0.5 * len(base)


@pytest.mark.parametrize("unrelated", UNRELATED)
def test_unrelated_files_share_little_with_any_other_file(unrelated):
    for other in sample_files():
        if other != unrelated and raw(other):
            assert jaccard(text(unrelated), text(other)) < 0.1, other


def test_only_planted_pairs_overlap_strongly():
    planted = {frozenset((r["left"], r["right"])) for r in label_rows()}
    files = [rel for rel in sample_files() if raw(rel)]
    for left, right in combinations(files, 2):
        if jaccard(text(left), text(right)) >= 0.1:
            assert frozenset((left, right)) in planted, (left, right)
