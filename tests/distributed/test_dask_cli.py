"""``neardup screen --engine dask``: the same outputs as the in-process command, and clear refusals."""

from __future__ import annotations

import subprocess
import sys

import pytest

from neardup_gui.cli import EXIT_OK, EXIT_REFUSED, main


def test_engine_dask_writes_the_same_outputs_as_the_in_process_screen(dask_client, sample_dir, tmp_path, capsys):
    common = ["screen", str(sample_dir), "--all-scores", "never"]
    assert main([*common, "--out", str(tmp_path / "local"), "-q"]) == EXIT_OK
    address = dask_client.scheduler.address  # the session's local cluster, reached by its address
    assert main([*common, "--out", str(tmp_path / "dask"), "--engine", "dask", "--scheduler", address]) == EXIT_OK
    err = capsys.readouterr().err
    assert "Finding candidates" in err and "Verifying pairs" in err  # progress, stage by stage
    local, dask = tmp_path / "local", tmp_path / "dask"
    for name in ("manifest.csv", "candidates.csv"):
        assert (dask / name).read_bytes() == (local / name).read_bytes(), name
    files = sorted(p.name for p in (local / "normalized").iterdir())
    assert sorted(p.name for p in (dask / "normalized").iterdir()) == files
    assert (dask / "run.json").is_file() and (dask / "session.sqlite").is_file()


def test_engine_dask_without_dask_says_how_to_install_it(sample_dir, tmp_path):
    # A fresh interpreter in which importing Dask fails, as on a machine without the extra.
    code = (
        "import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None; "
        "from neardup_gui.cli import main; "
        f"sys.exit(main(['screen', {str(sample_dir)!r}, '--out', {str(tmp_path / 'out')!r}, '--engine', 'dask']))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == EXIT_REFUSED, proc.stderr
    assert "pip install 'neardup_gui[dask]'" in proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--files-from", "list.txt"], "need --engine dask"),
        (["--engine", "dask", "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"], "not both"),
        (["--engine", "dask", "--parquet", "missing.parquet"], "not found"),
    ],
)
def test_dask_options_that_cannot_work_are_refused(sample_dir, tmp_path, capsys, extra, message):
    args = ["screen", str(sample_dir), "--out", str(tmp_path / "out"), "-q"]
    extra = [str(tmp_path / x) if x.endswith((".txt", ".parquet")) else x for x in extra]
    assert main(args + extra) == EXIT_REFUSED
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_no_normalized_skips_the_per_document_files_on_dask_too(dask_client, sample_dir, tmp_path):
    out = tmp_path / "out"
    address = dask_client.scheduler.address
    args = ["screen", str(sample_dir), "--out", str(out), "--all-scores", "never", "--no-normalized", "-q"]
    assert main([*args, "--engine", "dask", "--scheduler", address]) == EXIT_OK
    assert [p.name for p in (out / "normalized").iterdir()] == ["NOT_WRITTEN.txt"]
    assert (out / "candidates.csv").is_file()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
