"""Fixtures for the Dask engine tests: one local cluster of two worker processes on loopback for
the whole session, the corpora, and in-process reference screens to compare with."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from dask_kit import PARAMS, TRICKY_PARAMS, write_tricky_corpus

from neardup_gui.io.paths import sample_corpus_dir

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="session")
def dask_client():
    """A local cluster: 2 worker processes, 1 thread each, on 127.0.0.1, no dashboard."""
    pytest.importorskip("distributed")
    pytest.importorskip("dask.dataframe")
    from neardup_gui.distributed.engine import dask_client as make_client

    with make_client(workers=2) as client:
        yield client


@pytest.fixture(scope="session")
def sample_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("sample") / "sample"
    shutil.copytree(sample_corpus_dir(), target)
    return target


@pytest.fixture(scope="session")
def corpus_2000(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bench generator's synthetic Chinese corpus: 2,000 files (~2 s to write)."""
    folder = tmp_path_factory.mktemp("synth") / "synth_2000"
    sys.path.insert(0, str(BENCH))
    try:
        from make_corpus import generate
    finally:
        sys.path.remove(str(BENCH))
    generate(folder, 2000, 7)
    return folder


@pytest.fixture(scope="session")
def tricky_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tricky") / "tricky"
    write_tricky_corpus(root)
    return root


@pytest.fixture(scope="session")
def reference_2000(corpus_2000: Path):
    from neardup_gui.tasks import screen_folder

    return screen_folder(corpus_2000, PARAMS)


@pytest.fixture(scope="session")
def reference_tricky(tricky_dir: Path):
    from neardup_gui.tasks import screen_folder

    return screen_folder(tricky_dir, TRICKY_PARAMS)
