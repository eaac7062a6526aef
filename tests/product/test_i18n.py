"""The interface in Simplified Chinese and English: catalogues ship, load, switch and are complete."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, Qt

from neardup_gui.core.records import REVIEW_PENDING, REVIEW_SUGGEST_MERGE
from neardup_gui.ui import i18n

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "translations" / "neardup_gui_zh_CN.ts"
BIN = Path(sys.executable).parent


def _messages(ts: Path) -> list[tuple[str, str, ET.Element]]:
    root = ET.parse(ts).getroot()
    return [
        (ctx.findtext("name") or "", m.findtext("source") or "", m.find("translation"))
        for ctx in root.iter("context")
        for m in ctx.findall("message")
    ]


def test_chinese_catalogue_ships_compiled_beside_its_source() -> None:
    assert TS.is_file()
    assert i18n.catalog_path("zh_CN").is_file()
    assert i18n.available_languages() == ["en", "zh_CN"]


def test_chinese_shows_menus_errors_and_column_headers_in_chinese(qapp, english_afterwards) -> None:
    from neardup_gui.ui.candidate_model import CandidateModel

    assert i18n.install_language(qapp, "zh_CN") == "zh_CN"
    assert QCoreApplication.translate("AppMenus", "&Help") == "帮助(&H)"
    assert QCoreApplication.translate("ErrorDialog", "Copy details") == "复制详细信息"
    model = CandidateModel()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert "左侧文件" in headers and "审核状态" in headers
    assert i18n.workbook_language() == "zh"


def test_qt_standard_buttons_follow_the_language(qapp, english_afterwards) -> None:
    i18n.install_language(qapp, "zh_CN")
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "取消"


def test_switching_back_to_english_restores_the_source_strings(qapp, english_afterwards) -> None:
    i18n.install_language(qapp, "zh_CN")
    i18n.install_language(qapp, "zh_CN")  # a second install replaces, never stacks
    assert i18n.install_language(qapp, "en") == "en"
    assert QCoreApplication.translate("AppMenus", "&Help") == "&Help"
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancel"
    assert i18n.installed_language() == "en"
    assert i18n.workbook_language() == "en"


def test_a_missing_catalogue_falls_back_to_english(qapp, english_afterwards, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(i18n, "translations_dir", lambda: tmp_path)
    assert i18n.install_language(qapp, "zh_CN") == "en"
    assert QCoreApplication.translate("AppMenus", "&Help") == "&Help"


@pytest.mark.parametrize(
    ("locale", "expected"),
    [("zh_CN", "zh_CN"), ("zh_TW", "zh_CN"), ("zh_HK", "zh_CN"), ("en_US", "en"), ("de_DE", "en"), ("C", "en")],
)
def test_system_choice_follows_the_locale(locale: str, expected: str) -> None:
    assert i18n.resolve_language("system", QLocale(locale)) == expected


def test_an_explicit_choice_wins_over_the_locale() -> None:
    assert i18n.resolve_language("en", QLocale("zh_CN")) == "en"
    assert i18n.resolve_language("zh_CN", QLocale("en_US")) == "zh_CN"


def test_status_names_have_their_established_chinese() -> None:
    translated = {source: t.text for _ctx, source, t in _messages(TS) if t.text}
    for english, chinese in (
        ("Pending · 待审", "待审"),
        ("Keep both · 保留双方", "保留双方"),
        ("Suggest merged entry · 建议合并检索入口", "建议合并检索入口"),
        ("Public quotation · 公共引用", "公共引用"),
        ("Valid revision · 有效修订", "有效修订"),
        ("Needs arbitration · 待仲裁", "待仲裁"),
    ):
        assert translated.get(english) == chinese


def test_status_names_show_in_chinese_in_the_window(qapp, english_afterwards) -> None:
    from neardup_gui.ui.labels import review_label

    from neardup_gui.ui.palette import legend_entries

    i18n.install_language(qapp, "zh_CN")
    assert review_label(REVIEW_PENDING) == "待审"
    assert review_label(REVIEW_SUGGEST_MERGE) == "建议合并检索入口"
    assert [label for _kind, label, _tip in legend_entries()][:2] == ["共有", "当前"]


def test_every_translation_keeps_placeholders_and_one_mnemonic() -> None:
    for context, source, translation in _messages(TS):
        if translation.get("type") in ("vanished", "obsolete", "unfinished") or not translation.text:
            continue
        text = translation.text
        assert sorted(re.findall(r"\{[^}]*\}", source)) == sorted(re.findall(r"\{[^}]*\}", text)), (context, source)
        assert text.replace("&&", "").count("&") == source.replace("&&", "").count("&"), (context, source)


@pytest.mark.skipif(not (BIN / "pyside6-lupdate").exists(), reason="pyside6-lupdate is not installed next to Python")
def test_every_window_string_has_a_chinese_translation(tmp_path: Path) -> None:
    """Run the extraction on the current code: a new tr() string without a translation fails here
    (fix: bash scripts/update_translations.sh, translate, commit the .ts and .qm)."""
    ts = tmp_path / TS.name
    shutil.copy(TS, ts)
    sources = sorted(str(p) for p in (ROOT / "neardup_gui" / "ui").rglob("*.py")) + [str(ROOT / "neardup_gui" / "app.py")]
    subprocess.run([str(BIN / "pyside6-lupdate"), *sources, "-ts", str(ts)], check=True, capture_output=True)
    untranslated = [(c, s) for c, s, t in _messages(ts) if t.get("type") == "unfinished"]
    assert untranslated == []
