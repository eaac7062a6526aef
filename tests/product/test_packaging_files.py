"""The packaging files agree with each other and with the program: one application id, an icon in
every size the desktop asks for, and a bundle spec that ships what the program reads."""

from __future__ import annotations

import configparser
import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtGui import QImage

from neardup_gui.app import APP_ID
from neardup_gui.ui.app_menus import ICON_SIZES, application_icon

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"


def test_desktop_entry_launches_the_bundle_with_the_shipped_icon() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(PACKAGING / f"{APP_ID}.desktop", encoding="utf-8")
    desktop = entry["Desktop Entry"]
    assert desktop["Type"] == "Application"
    assert desktop["Exec"].split()[0] == "neardup"
    assert desktop["Icon"] == APP_ID
    assert desktop["Terminal"] == "false"
    assert "Office" in desktop["Categories"].split(";")
    assert desktop["Comment[zh_CN]"]


def test_appstream_metadata_names_the_same_application() -> None:
    root = ET.parse(PACKAGING / f"{APP_ID}.metainfo.xml").getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.find("launchable").text == f"{APP_ID}.desktop"
    assert root.findtext("project_license") == "MIT"
    from neardup_gui import __version__

    assert root.find("releases/release").get("version") == __version__


def test_icon_ships_as_svg_and_every_png_size() -> None:
    icons = ROOT / "resources" / "icons"
    assert (icons / "neardup_gui.svg").is_file()
    for size in ICON_SIZES:
        image = QImage(str(icons / f"neardup_gui-{size}.png"))
        assert (image.width(), image.height()) == (size, size)
        assert image.hasAlphaChannel()
    assert (PACKAGING / "neardup_gui.ico").stat().st_size > 0
    assert (PACKAGING / "neardup_gui.icns").stat().st_size > 0


def test_application_icon_offers_the_sizes(qapp) -> None:
    sizes = {(s.width(), s.height()) for s in application_icon().availableSizes()}
    assert {(16, 16), (32, 32), (256, 256)} <= sizes


def test_bundle_spec_ships_resources_translations_guide_and_icon() -> None:
    spec = (PACKAGING / "neardup_gui.spec").read_text(encoding="utf-8")
    for needed in ('"resources/sample"', '"resources/translations"', '"resources/docs"', '"resources/icons"',
                   "console=False", "neardup_gui.ico", "neardup_gui.icns", "_sigkernel", "_prepkernel", "_diffkernel"):  # fmt: skip
        assert needed in spec
    for kernel in sorted((ROOT / "neardup_gui").rglob("_*kernel.py")):  # every compiled kernel module ships
        assert f'"{".".join(kernel.relative_to(ROOT).with_suffix("").parts)}"' in spec
    assert 'name="neardup"' in spec
