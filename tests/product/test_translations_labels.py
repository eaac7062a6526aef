"""Words built outside widgets follow the language: progress stages, list separator, scope names, run notes."""

from __future__ import annotations

from neardup_gui.core.progress import STAGES
from neardup_gui.core.records import FLAG_DATE_CHANGED, FLAG_NUMBER_CHANGED, RunRecord, ScreenParams
from neardup_gui.ui import i18n
from neardup_gui.ui.labels import flags_text, scope_label, stage_label
from neardup_gui.ui.progress_panel import ProgressPanel
from neardup_gui.ui.run_notes import RunNotes

CHINESE_STAGES = {
    "list": "正在列出文件",
    "read": "正在读取文件",
    "normalize": "正在标准化",
    "shingle": "正在分片并计算签名",
    "candidates": "正在查找候选",
    "verify": "正在核验文本对",
    "flags": "正在检查修订和模板",
    "check": "正在复核源文件",
    "write": "正在写出结果",
}


def test_every_stage_of_a_screen_has_an_english_and_a_chinese_name(qapp, english_afterwards) -> None:
    assert stage_label("read") == "Reading files"
    i18n.install_language(qapp, "zh_CN")
    assert {name: stage_label(name) for name, _weight in STAGES} == CHINESE_STAGES


def test_progress_bar_names_the_stage_in_chinese(qapp, qtbot, english_afterwards) -> None:
    i18n.install_language(qapp, "zh_CN")
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.start()
    panel.update_progress(3, 10, "verify")
    assert panel.stage_label.text() == "正在核验文本对 3 / 10"
    panel.update_progress(0, 1, "write")  # one step: no "0 / 1"
    assert panel.stage_label.text() == "正在写出结果"
    panel.update_progress(12345, 0, "list")  # listing: what was found so far, no total
    assert panel.stage_label.text() == "正在列出文件（已找到 12,345 个）"


def test_progress_bar_counts_the_listing_without_a_total(qapp, qtbot) -> None:
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.start()
    panel.update_progress(0, 0, "list")
    assert panel.stage_label.text() == "Listing files (0 found)"
    panel.update_progress(98765, 0, "list")
    assert panel.stage_label.text() == "Listing files (98,765 found)"
    assert 0 < panel.bar.value() < panel.bar.maximum() * 0.05  # the listing is a sliver of the bar
    panel.update_progress(0, 100, "read")
    assert panel.stage_label.text() == "Reading files 0 / 100"


def test_flag_lists_use_the_chinese_enumeration_comma(qapp, english_afterwards) -> None:
    flags = (FLAG_NUMBER_CHANGED, FLAG_DATE_CHANGED)
    assert flags_text(flags) == "number changed, date changed"
    i18n.install_language(qapp, "zh_CN")
    assert flags_text(flags) == "数字变化、日期变化"


def test_scope_names_and_the_left_out_note_are_in_chinese(qapp, qtbot, english_afterwards) -> None:
    i18n.install_language(qapp, "zh_CN")
    assert scope_label("new_vs_reference") == "新稿件对照参考档案"
    notes = RunNotes()
    qtbot.addWidget(notes)
    run = RunRecord(
        run_id="r", source="/s", params={}, bands=1, rows=1, versions={}, manifest_digest="d",
        counts={"left_out_by_scope": 2}, started="", finished="",
        notes=("comparison scope: new documents against the reference archive (历史稿件/*); 2 proposed pairs left out by it",),
    )  # fmt: skip
    notes.show_run(run, ScreenParams(scope="new_vs_reference", scope_patterns=("历史稿件/*",)))
    assert notes.text() == "本次筛查说明：比较范围为新稿件对照参考档案 历史稿件/*（档案内部不互相比较），有 2 个候选文本对因此被排除，未作比较。"


def test_spans_of_time_and_refusals_read_naturally_in_both_languages(qapp, english_afterwards) -> None:
    from neardup_gui.core.records import TOO_LONG, TOO_MUCH_MEMORY, TooLarge
    from neardup_gui.ui.labels import format_span, refusal_text

    spans = [12.4, 240, 3 * 3600 + 20 * 60, 1234 * 86400 + 5 * 3600]
    assert [format_span(s) for s in spans] == ["12 s", "4 min", "3 h 20 min", "1,234 days 5 h"]
    simhash = TooLarge("engine words", what=TOO_MUCH_MEMORY, method="simhash", documents=120_000,
                       chars=180_000_000, need=9.5 * 2**30, limit=3 * 2**30)  # fmt: skip
    scores = TooLarge("engine words", what=TOO_MUCH_MEMORY, documents=5, chars=99, need=2**20, limit=2**10)
    jaccard = TooLarge("engine words", what=TOO_LONG, method="jaccard", documents=90_000, need=7200, limit=120)
    assert refusal_text(simhash).startswith("The SimHash method over 120,000 documents (180,000,000 characters) "
                                            "needs about 9.5 GB of memory at its peak, and this computer has 3.0 GB")
    assert "Leave these scores to the automatic setting" in refusal_text(scores)
    assert "would take about 2 h 0 min; this method is refused past 2 min." in refusal_text(jaccard)
    assert refusal_text(TooLarge("a kind the window does not know")) == "a kind the window does not know"
    i18n.install_language(qapp, "zh_CN")
    assert [format_span(s) for s in spans] == ["12 秒", "4 分钟", "3 小时 20 分钟", "1,234 天 5 小时"]
    assert refusal_text(simhash).startswith("SimHash 方法处理 120,000 个文档（180,000,000 个字符）时内存峰值约需 9.5 GB，"
                                            "而本机可用内存只有 3.0 GB。")
    assert "请将这些分数保留为自动设置" in refusal_text(scores)
    assert "约需 2 小时 0 分钟，超过本方法的上限 2 分钟" in refusal_text(jaccard)
