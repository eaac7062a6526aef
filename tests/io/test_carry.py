"""A rescan carries the manifest rows of unchanged files over from the last screen (``io.carry``):
the same manifest.csv and session rows as made afresh, and nothing carried when anything the rows
are made of besides the files changed, or when the stored rows disagree with the files' rows."""

from __future__ import annotations

import csv
import io
import logging
import os
import random
import shutil
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest

from neardup_gui.core.records import ScreenParams
from neardup_gui.io import corpus as corpus_mod
from neardup_gui.io import carry as carry_mod
from neardup_gui.io.carry import line_offsets
from neardup_gui.io.prepcache import CACHE_FILE
from neardup_gui.tasks import screen_folder

PARAMS = ScreenParams(k=5)


def _text(rng: random.Random, n: int) -> str:
    return "".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(n)) + "。"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Articles with names a CSV must quote (comma, quote, line break, formula-like), one whose
    name is not UTF-8, copies and edits, a text too short to compare, an empty file and a binary
    one; all old enough for a rescan to take them over unread."""
    monkeypatch.setattr(corpus_mod, "SETTLE_NS", 50_000_000)
    rng = random.Random(31)
    src = tmp_path / "来稿"
    (src / "甲").mkdir(parents=True)
    (src / "乙").mkdir()
    bodies = [_text(rng, rng.randrange(200, 600)) for _ in range(24)]
    names = ["逗号,标题.txt", '引号"稿.txt', "换行\n标题.txt", "=SUM(A1).txt", "+86.txt", "@提及.txt"]
    names += [f"{i:02d}.txt" for i in range(len(bodies) - len(names))]
    for name, body in zip(names, bodies):
        (src / "甲" / name).write_text(body, encoding="utf-8")
    for i in range(0, 12, 2):
        edited = list(bodies[i])
        edited[rng.randrange(len(edited) - 1)] = "改"
        (src / "乙" / f"{i:02d}-副本.txt").write_bytes(bodies[i].encode("gb18030"))
        (src / "乙" / f"{i:02d}-改.txt").write_text("".join(edited), encoding="utf-8")
    with open(os.path.join(os.fsencode(src / "乙"), b"\xb8\xe5-gbk-name.txt"), "wb") as fh:
        fh.write(bodies[3].encode("utf-8"))
    (src / "乙" / "短.txt").write_text("短", encoding="utf-8")
    (src / "乙" / "空.txt").write_bytes(b"")
    (src / "乙" / "图.txt").write_bytes(bytes(range(256)) * 8)
    (src / "top.txt").write_text(bodies[5], encoding="utf-8")
    (src / "=1+1.txt").write_text(bodies[6], encoding="utf-8")
    time.sleep(0.1)
    return src


def _rescan_changes(src: Path) -> None:
    """One file edited, one added, one removed."""
    time.sleep(0.06)
    with open(src / "甲" / "03.txt", "a", encoding="utf-8") as fh:
        fh.write("又补充了一句。")
    added = (src / "甲" / "05.txt").read_text(encoding="utf-8") + "新"
    (src / "乙" / "新稿.txt").write_text(added, encoding="utf-8")
    (src / "甲" / "07.txt").unlink()
    time.sleep(0.1)


def _edit_carried_lines(workspace: Path, edit) -> None:
    """Rewrite the workspace's cache with ``edit(lines)`` (a writable copy of its carried lines)."""
    path = workspace / CACHE_FILE
    with np.load(path) as z:
        arrays = {name: z[name] for name in z.files}
    arrays["carry_lines"] = arrays["carry_lines"].copy()
    edit(arrays["carry_lines"])
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


def _without_carried_rows(workspace: Path) -> None:
    """Rewrite the workspace's cache without its carried rows (as a version before them wrote it)."""
    path = workspace / CACHE_FILE
    with np.load(path) as z:
        arrays = {name: z[name] for name in z.files if not name.startswith("carry_")}
    assert len(arrays) < len(np.load(path).files)
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


def _session_rows(workspace: Path) -> list[tuple]:
    """The latest run's manifest as stored (its own rows and digests; doc_id order)."""
    with sqlite3.connect(workspace / "session.sqlite") as conn:
        run_id, base = conn.execute("SELECT run_id, manifest_base FROM runs ORDER BY seq DESC LIMIT 1").fetchone()
        rows = conn.execute("SELECT * FROM documents WHERE run_id = ? ORDER BY doc_id", (run_id,)).fetchall()
        removed = conn.execute("SELECT doc_id FROM removed_documents WHERE run_id = ?", (run_id,)).fetchall()
    return [(base is not None, *row[1:]) for row in rows] + [("removed", *r) for r in removed]


def test_a_rescan_carries_unchanged_rows_and_writes_what_it_would_make(folder: Path, tmp_path: Path) -> None:
    carry, plain = tmp_path / "carry", tmp_path / "plain"
    first = screen_folder(folder, PARAMS, out_dir=carry)
    assert first.run.counts["manifest_rows_carried"] == 0
    assert {"no_shingles", "empty", "binary"} <= {d.status for d in first.documents}
    shutil.copytree(carry, plain)
    _without_carried_rows(plain)
    _rescan_changes(folder)
    again = screen_folder(folder, PARAMS, out_dir=carry)
    made = screen_folder(folder, PARAMS, out_dir=plain)
    fresh = screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    # Every row taken over unread is carried; the rest (changed, new, status rows) are made.
    assert again.run.counts["manifest_rows_carried"] == again.run.counts["unchanged_files_not_read"] > 30
    assert made.run.counts["manifest_rows_carried"] == 0 and made.run.counts["unchanged_files_not_read"] > 30
    manifest = (carry / "manifest.csv").read_bytes()
    assert manifest == (plain / "manifest.csv").read_bytes() == (tmp_path / "fresh" / "manifest.csv").read_bytes()
    rows = list(csv.DictReader(io.StringIO(manifest.decode("utf-8-sig"), newline="")))
    assert len(rows) == len(fresh.documents)
    # Quoted cells (a line break, a quote) and an escaped formula-like one, carried as they were.
    assert {"甲/换行\n标题.txt", '甲/引号"稿.txt', "'=1+1.txt"} <= {r["path"] for r in rows}
    # The session holds the same rows, stored as the same differences from the first run.
    stored = _session_rows(carry)
    assert stored == _session_rows(plain) and stored[0][0] is True
    assert {r[1] for r in stored if r[0] != "removed"} == {
        d.doc_id for d in again.documents if d.path in ("甲/03.txt", "乙/新稿.txt")
    }
    # And the next rescan carries again, from the rows this one stored.
    third = screen_folder(folder, PARAMS, out_dir=carry)
    assert third.run.counts["manifest_rows_carried"] == third.run.counts["unchanged_files_not_read"]
    assert (carry / "manifest.csv").read_bytes() == manifest


def test_nothing_is_carried_once_the_sidecar_changed(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One row checked before carrying (the first, not the one the sidecar changes): the context decides.
    monkeypatch.setattr(carry_mod, "CARRY_CHECKS", 1)
    out = tmp_path / "ws"
    sidecar = tmp_path / "meta.csv"
    sidecar.write_text("path,version\n甲/00.txt,初稿\n", encoding="utf-8")
    screen_folder(folder, PARAMS, out_dir=out, sidecar=sidecar)
    sidecar.write_text("path,version\n甲/00.txt,终稿\n", encoding="utf-8")
    again = screen_folder(folder, PARAMS, out_dir=out, sidecar=sidecar)
    assert again.run.counts["unchanged_files_not_read"] > 30 and again.run.counts["manifest_rows_carried"] == 0
    rows = list(csv.DictReader(io.StringIO((out / "manifest.csv").read_text(encoding="utf-8-sig"), newline="")))
    assert {r["path"]: r["version"] for r in rows}["甲/00.txt"] == "终稿"


@pytest.mark.skipif(not hasattr(time, "tzset"), reason="needs time.tzset")
def test_nothing_is_carried_in_another_time_zone(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The manifest gives each file's time as local time: a laptop taken to another time zone
    writes every time again."""
    out = tmp_path / "ws"
    try:
        with monkeypatch.context() as zone:
            zone.setenv("TZ", "Asia/Shanghai")
            time.tzset()
            screen_folder(folder, PARAMS, out_dir=out)
            before = {r["path"]: r["mtime"] for r in csv.DictReader(io.StringIO(
                (out / "manifest.csv").read_text(encoding="utf-8-sig"), newline=""))}  # fmt: skip
            zone.setenv("TZ", "Europe/Berlin")
            time.tzset()
            again = screen_folder(folder, PARAMS, out_dir=out)
            screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    finally:
        time.tzset()
    assert again.run.counts["unchanged_files_not_read"] > 30 and again.run.counts["manifest_rows_carried"] == 0
    manifest = (out / "manifest.csv").read_bytes()
    assert manifest == (tmp_path / "fresh" / "manifest.csv").read_bytes()
    after = {r["path"]: r["mtime"] for r in csv.DictReader(io.StringIO(manifest.decode("utf-8-sig"), newline=""))}
    assert before["甲/00.txt"].endswith("+08:00") and after["甲/00.txt"].endswith(("+01:00", "+02:00"))


def test_stored_rows_that_disagree_with_the_files_are_not_carried(
    folder: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)

    def rename(lines: np.ndarray) -> None:
        at = lines.tobytes().find("甲/02.txt".encode())
        assert at > 0
        lines[at + len("甲/".encode())] = ord("9")  # one stored row names another file

    _edit_carried_lines(out, rename)
    with caplog.at_level(logging.WARNING, logger="neardup_gui.io.carry"):
        again = screen_folder(folder, PARAMS, out_dir=out)
    screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    assert again.run.counts["unchanged_files_not_read"] > 30 and again.run.counts["manifest_rows_carried"] == 0
    assert "differ from the files' rows" in caplog.text
    assert (out / "manifest.csv").read_bytes() == (tmp_path / "fresh" / "manifest.csv").read_bytes()


@pytest.mark.parametrize("rows", [
    [["a", "b"], ["c", "d"]],
    [['say "hi"', "x"], ["line\r\nbreak", "lf\nonly"], ["cr\ronly", '""']],
    [["逗,号", "引\"号\r\n换行"], ["", ""]],
    [["\r\n"], ['"'], [","]],
])  # fmt: skip
def test_line_offsets_split_csv_data_into_its_rows(rows: list[list[str]]) -> None:
    buf = io.StringIO(newline="")
    csv.writer(buf, lineterminator="\r\n").writerows(rows)
    data = ("标题\r\n" + buf.getvalue()).encode("utf-8")
    start = len("标题\r\n".encode())
    at = line_offsets(data, start).tolist()
    assert at[0] == start and at[-1] == len(data) and len(at) == len(rows) + 1
    for row, lo, hi in zip(rows, at, at[1:]):
        assert list(csv.reader(io.StringIO(data[lo:hi].decode("utf-8"), newline=""))) == [row]


def test_line_offsets_refuse_data_that_does_not_end_a_row() -> None:
    with pytest.raises(ValueError):
        line_offsets(b'a,b\r\nc,"d\r\n')
    assert line_offsets(b"head\r\n", 6).tolist() == [6]


def test_joined_slices_merge_only_within_one_source() -> None:
    from neardup_gui.io.carry import _joined

    sources = [memoryview(b"abcdef"), memoryview(b"XYZ")]
    which, starts, ends = (np.array(v, dtype=np.int64) for v in ([0, 1, 0, 0], [0, 2, 3, 4], [2, 3, 4, 6]))
    assert _joined(sources, which, starts, ends) == b"ab" + b"Z" + b"d" + b"ef"


@pytest.mark.skipif(not hasattr(time, "tzset"), reason="needs time.tzset")
def test_the_carry_context_names_the_source_sidecar_parameters_and_time_zone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neardup_gui.io.carry import carry_context

    sidecar = tmp_path / "meta.csv"
    sidecar.write_text("path,version\na.txt,v2\n", encoding="utf-8")
    try:
        with monkeypatch.context() as zone:
            zone.setenv("TZ", "Asia/Shanghai")
            time.tzset()
            here = carry_context(tmp_path / "src", sidecar, "key")
            assert here == carry_context(tmp_path / "src", sidecar, "key")
            others = [carry_context(tmp_path / "other", sidecar, "key"), carry_context(tmp_path / "src", None, "key"),
                      carry_context(tmp_path / "src", sidecar, "key2")]  # fmt: skip
            sidecar.write_text("path,version\na.txt,v3\n", encoding="utf-8")
            others.append(carry_context(tmp_path / "src", sidecar, "key"))
            sidecar.write_text("path,version\na.txt,v2\n", encoding="utf-8")
            zone.setenv("TZ", "America/New_York")
            time.tzset()
            others.append(carry_context(tmp_path / "src", sidecar, "key"))
    finally:
        time.tzset()
    assert len({here, *others}) == 1 + len(others)


def test_a_stored_row_with_a_formula_cell_is_never_carried(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The carried lines go into manifest.csv unescaped: a cache edited to hold a cell a
    spreadsheet would run is not carried, even where the sample made afresh would not look."""
    monkeypatch.setattr(carry_mod, "CARRY_CHECKS", 1)  # the first row (=1+1.txt) only
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)

    def formula(lines: np.ndarray) -> None:
        data = lines.tobytes()
        row = data.find("甲/02.txt".encode())
        at = data.find(b",utf-8,", row)
        assert 0 < row < at < data.find(b"\r\n", row)
        lines[at + 1] = ord("=")  # its encoding cell: "=tf-8"

    _edit_carried_lines(out, formula)
    with caplog.at_level(logging.WARNING, logger="neardup_gui.io.carry"):
        again = screen_folder(folder, PARAMS, out_dir=out)
    assert again.run.counts["unchanged_files_not_read"] > 30 and again.run.counts["manifest_rows_carried"] == 0
    assert "a spreadsheet would run" in caplog.text
    manifest = (out / "manifest.csv").read_bytes()
    assert b"=tf-8" not in manifest
    screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    assert manifest == (tmp_path / "fresh" / "manifest.csv").read_bytes()


@pytest.mark.parametrize("cells, free", [
    (["a", "", "b"], True), (["", ""], True), (["'=x", "1"], True), (['say "=x"', "y"], True),
    (["x", "=1"], False), (["+1"], False), (["-1", "a"], False), (["@x"], False), (["\tx"], False),
    (["\rx"], False), (['"=x" inside', "q,=x"], True), (["ok", "\n=x"], True),
])  # fmt: skip
def test_formula_cells_are_found_in_csv_lines(cells: list[str], free: bool) -> None:
    from neardup_gui.io.carry import _formula_free

    buf = io.StringIO(newline="")
    csv.writer(buf, lineterminator="\r\n").writerows([["head", "x"], cells, ["tail", ""]])
    assert _formula_free(np.frombuffer(buf.getvalue().encode("utf-8"), dtype=np.uint8)) is free


def test_formula_cells_are_found_as_a_csv_reader_reads_the_cells() -> None:
    from neardup_gui.io.carry import _formula_free
    from neardup_gui.io.cellsafe import FORMULA_PREFIXES

    rng = random.Random(8)
    alphabet = ["a", "中", "1", ",", '"', "\n", "\r", "=", "+", "-", "@", "\t", " "]
    for _ in range(400):
        rows = [[rng.choice(["", "x"]) + "".join(rng.choices(alphabet, k=rng.randrange(0, 5))) for _ in range(3)]
                for _ in range(rng.randrange(1, 4))]  # fmt: skip
        buf = io.StringIO(newline="")
        csv.writer(buf, lineterminator="\r\n").writerows(rows)
        text = buf.getvalue()
        cells = [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]
        expected = not any(cell.startswith(FORMULA_PREFIXES) for cell in cells)
        assert _formula_free(np.frombuffer(text.encode("utf-8"), dtype=np.uint8)) is expected, rows
