"""A worker that dies mid-run is replaced and its work recomputed; a task that kills every worker
it runs on stops the run with a clear message and leaves no output behind."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

from dask_kit import PARAMS, TRICKY_PARAMS, failures_allowed, killing_workers  # noqa: E402

from neardup_gui.distributed import DistributedScreenError  # noqa: E402
from neardup_gui.distributed.engine import screen_distributed  # noqa: E402


def test_a_worker_killed_mid_run_is_replaced_and_the_results_stay_identical(
    dask_client, tricky_dir, reference_tricky, tmp_path
):
    marker = tmp_path / "killed"
    out = tmp_path / "out"
    # The worker dies when the band keys are computed: the shingles it held are gone and must be
    # recomputed from the files by its replacement or the other worker.
    with killing_workers(dask_client, "neardup-bands-", marker):
        got = screen_distributed(tricky_dir, TRICKY_PARAMS, out_dir=out, client=dask_client, partition_docs=10)
    assert marker.exists()
    assert got.documents == reference_tricky.documents
    assert got.candidates == reference_tricky.candidates
    assert (out / "candidates.csv").is_file() and (out / "session.sqlite").is_file()
    assert len(list((out / "normalized").iterdir())) == sum(d.status in ("ok", "no_shingles") for d in got.documents)


def test_a_task_that_kills_its_workers_stops_the_run_and_writes_nothing(dask_client, sample_dir, tmp_path):
    out = tmp_path / "out"
    # The scheduler gives up on a task the first time its worker dies (by default after three
    # deaths, each costing a worker restart).
    with failures_allowed(dask_client, 0), killing_workers(dask_client, "neardup-verify-"):
        with pytest.raises(DistributedScreenError, match="kept dying.*nothing was written"):
            screen_distributed(sample_dir, PARAMS, out_dir=out, client=dask_client, partition_docs=5)
    assert not out.exists()
