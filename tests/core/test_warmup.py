"""The engine warm-up tells a cold numba cache from a warm one (core.warmup.cache_is_warm).

On a cold cache (first start, or sources newer than the cache) the window compiles the kernels in a
child process instead of its own, so that ~30 s of compiling do not stall it; a wrong answer either
costs every start a child process or lets the first start stall.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numba
import pytest

from neardup_gui.core import warmup

INDEXES = [pattern.replace("*", "77") for _, pattern in warmup._INDEXES]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    return tmp_path


def _write(folder: Path, name: str, mtime: float) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(b"index")
    os.utime(folder / name, (mtime, mtime))


def test_every_kernel_indexed_after_its_source_is_warm(cache_dir) -> None:
    for name in INDEXES:  # numba mirrors the source folders under its cache directory
        _write(cache_dir / "some" / "where", name, time.time() + 60)
    assert warmup.cache_is_warm()


def test_a_missing_or_older_index_is_cold(cache_dir) -> None:
    assert not warmup.cache_is_warm()  # nothing compiled yet
    for name in INDEXES[:-1]:
        _write(cache_dir, name, time.time() + 60)
    assert not warmup.cache_is_warm()  # the last kernel was never compiled
    _write(cache_dir, INDEXES[-1], 0)  # written before its source was: numba would compile again
    assert not warmup.cache_is_warm()
    _write(cache_dir, INDEXES[-1], time.time() + 60)
    assert warmup.cache_is_warm()
