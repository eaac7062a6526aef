"""An installed (non-editable) wheel carries the sample corpus, icons, translations and user guide,
and the installed program finds them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT_FILES = ("pyproject.toml", "setup.py", "README.md")
PROJECT_DIRS = ("neardup_gui", "resources", "docs")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built offline from a clean copy of the checkout (no stale build/ folder)."""
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    for name in PROJECT_FILES:
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.tmp", ".*")
    for name in PROJECT_DIRS:
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    out = work / "dist"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(out), str(src)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    (found,) = out.glob("neardup_gui-*.whl")
    return found


def test_wheel_holds_the_data_the_program_reads(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    sample = sorted(p.relative_to(ROOT / "resources").as_posix() for p in (ROOT / "resources" / "sample").rglob("*") if p.is_file())
    assert sample and all(f"neardup_gui/resources/{s}" in names for s in sample)
    for needed in (
        "neardup_gui/resources/sample_labels.csv",
        "neardup_gui/resources/translations/neardup_gui_zh_CN.qm",
        "neardup_gui/resources/icons/neardup_gui.svg",
        "neardup_gui/resources/icons/neardup_gui-256.png",
        "neardup_gui/resources/docs/USER_GUIDE.md",
        "neardup_gui/resources/docs/USER_GUIDE.zh_CN.md",
        "neardup_gui/app.py",
        "neardup_gui/ui/i18n.py",
    ):
        assert needed in names


def test_every_package_of_the_checkout_is_in_the_wheel(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = [p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "neardup_gui").rglob("__init__.py")]
    assert packages and all(f"{pkg}/__init__.py" in names for pkg in packages)


def test_installed_wheel_finds_sample_translations_and_guide(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(site), str(wheel)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    probe = (
        "import json, neardup_gui\n"
        "from neardup_gui.io.paths import resources_dir, sample_corpus_dir\n"
        "from neardup_gui.ui.i18n import catalog_path\n"
        "from neardup_gui.ui.help_dialog import guide_path\n"
        "print(json.dumps({'package': neardup_gui.__file__, 'resources': str(resources_dir()),\n"
        "  'samples': sum(1 for p in sample_corpus_dir().rglob('*.txt')),\n"
        "  'qm': catalog_path('zh_CN').is_file(), 'guide': str(guide_path('zh_CN'))}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site), "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=tmp_path, capture_output=True, text=True, check=True)
    found = json.loads(out.stdout)
    assert Path(found["package"]).is_relative_to(site)  # the installed copy, not the checkout
    assert Path(found["resources"]) == site / "neardup_gui" / "resources"
    assert found["samples"] == sum(1 for _ in (ROOT / "resources" / "sample").rglob("*.txt"))
    assert found["qm"] is True
    assert found["guide"] == str(site / "neardup_gui" / "resources" / "docs" / "USER_GUIDE.zh_CN.md")
