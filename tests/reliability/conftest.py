"""Fixtures shared by the reliability tests (real folders in pytest's temporary directory)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from neardup_gui.io.paths import DATA_DIR_ENV

# GB2312 level-1 characters: a random text of them is Chinese-looking and shares no passage by chance.
_HANZI = [bytes([hi, lo]).decode("gb2312") for hi in range(0xB0, 0xD8) for lo in range(0xA1, 0xFF)
          if not (hi == 0xD7 and lo > 0xF9)]  # fmt: skip


@pytest.fixture(autouse=True)
def _private_app_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing here reads or writes the developer's real app data."""
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "appdata"))


def write_families(folder: Path, families: int, members: int, chars: int = 600, seed: int = 5) -> int:
    """Write ``families`` groups of ``members`` light edits of one random text; returns the pairs
    expected (every two members of a family, about 1 % of characters changed in each)."""
    rng = random.Random(seed)
    for f in range(families):
        base = "".join(rng.choice(_HANZI) for _ in range(chars))
        for m in range(members):
            text = list(base)
            for _ in range(chars // 100):
                text[rng.randrange(chars)] = rng.choice(_HANZI)
            path = folder / f"family{f:02}" / f"member{m:02}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(text), encoding="utf-8")
    return families * members * (members - 1) // 2


@pytest.fixture(scope="session")
def many_pairs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A small folder whose screen has well over 64 candidates (every stage reports twice or more)."""
    folder = tmp_path_factory.mktemp("families") / "source"
    return folder, write_families(folder, families=10, members=6)
