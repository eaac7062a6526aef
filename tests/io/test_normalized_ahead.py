"""normalized/ written while the screen prepares the documents (``outputs.NormalizedWriter``).

The files are those ``write_normalized`` makes at the end; a failed write falls back to it; a
cancelled screen leaves no scratch folder (nor a workspace it created); a folder left by a screen
that was stopped is removed by the next.
"""

from __future__ import annotations

import errno
import json
import logging
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from neardup_gui.core.normalize import normalize, normalize_batch, to_text
from neardup_gui.core.progress import CallbackProgress, Cancelled
from neardup_gui.core.records import NormalizeOptions, ScreenParams
from neardup_gui.io import outputs
from neardup_gui.tasks import screen_folder
from neardup_gui.tasks import screen as screen_mod

PARAMS = ScreenParams(k=5)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """30 articles, a third of them edited copies, one with full-width forms, an empty file."""
    rng = random.Random(11)
    src = tmp_path / "src"
    src.mkdir()
    bodies = ["".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(rng.randrange(150, 400))) for _ in range(20)]
    for i, body in enumerate(bodies):
        (src / f"{i:02d}.txt").write_text(body, encoding="utf-8")
    for i in range(0, 20, 2):
        (src / f"{i:02d}-copy.txt").write_text(body[:50] + "修改后的一句。" + bodies[i], encoding="utf-8")
    (src / "fullwidth.txt").write_text("ＡＢＣ１２３，全角字符。" + bodies[3], encoding="utf-8")
    (src / "empty.txt").write_bytes(b"")
    return src


def _expected(src: Path, outcome) -> dict[str, str]:
    """doc_id -> its normalized text, made afresh from the file."""
    return {
        d.doc_id: to_text(normalize((src / d.path).read_text(encoding="utf-8"), PARAMS.normalize).cps)
        for d in outcome.documents
        if d.usable or d.status == "no_shingles"
    }


def _normalized(out: Path) -> dict[str, str]:
    return {p.name[: -len(".txt")]: p.read_text(encoding="utf-8") for p in (out / "normalized").iterdir()}


def _scratch(out: Path) -> list[str]:
    cache = out / "cache"
    return sorted(p.name for p in cache.iterdir() if p.name.startswith(".normalized")) if cache.exists() else []


def _writer_batches(monkeypatch) -> list[int]:
    """How many documents each ``NormalizedWriter.add`` was given, from now on."""
    sizes: list[int] = []
    real = outputs.NormalizedWriter.add
    monkeypatch.setattr(outputs.NormalizedWriter, "add", lambda self, ids, cps: sizes.append(len(ids)) or real(self, ids, cps))
    return sizes


def test_a_screen_writes_normalized_files_as_it_prepares_them(source, tmp_path, monkeypatch) -> None:
    sizes = _writer_batches(monkeypatch)
    out = tmp_path / "ws"
    outcome = screen_folder(source, PARAMS, out_dir=out)
    expected = _expected(source, outcome)
    assert sum(sizes) == len(expected) == 31  # every document given once, as it was prepared
    assert _normalized(out) == expected
    assert "abc123" in expected[next(d.doc_id for d in outcome.documents if d.path == "fullwidth.txt")]
    assert _scratch(out) == []


def test_a_failed_write_during_the_screen_leaves_it_to_the_end(source, tmp_path, monkeypatch, caplog) -> None:
    real = outputs._write_files

    def full_disk(folder: Path, folder_fd, files) -> None:
        if folder.name.startswith(screen_mod._WRITTEN_PREFIX):
            raise OSError(errno.ENOSPC, "No space left on device")
        real(folder, folder_fd, files)

    monkeypatch.setattr(outputs, "_write_files", full_disk)
    out = tmp_path / "ws"
    with caplog.at_level(logging.WARNING, logger="neardup_gui.io.outputs"):
        outcome = screen_folder(source, PARAMS, out_dir=out)
    assert _normalized(out) == _expected(source, outcome)  # all of them, written at the end
    assert any("could not be used" in r.getMessage() and "No space left" in r.getMessage() for r in caplog.records)
    assert _scratch(out) == []


def test_a_cancelled_screen_removes_what_it_wrote_and_the_workspace_it_made(source, tmp_path, monkeypatch) -> None:
    sizes = _writer_batches(monkeypatch)
    out = tmp_path / "new" / "ws"
    event = threading.Event()

    def on_progress(stage: str, done: int, total: int) -> None:
        if stage == "candidates":  # every document prepared, its file queued
            event.set()

    with pytest.raises(Cancelled):
        screen_folder(source, PARAMS, out_dir=out, progress=CallbackProgress(on_progress, event, 0))
    assert sum(sizes) == 31
    assert not out.exists() and (tmp_path / "new").exists()  # only what the screen made is removed
    # Into an existing workspace: the previous run's outputs stay, no scratch folder is left.
    screen_folder(source, PARAMS, out_dir=out)
    before = _normalized(out)
    event.clear()
    (source / "03.txt").write_text("改过的文章。" * 30, encoding="utf-8")
    with pytest.raises(Cancelled):
        screen_folder(source, PARAMS, out_dir=out, progress=CallbackProgress(on_progress, event, 0))
    assert _normalized(out) == before and _scratch(out) == []


def test_a_folder_left_by_a_stopped_screen_is_removed_by_the_next(source, tmp_path) -> None:
    out = tmp_path / "ws"
    left = out / "cache" / f"{screen_mod._WRITTEN_PREFIX}1-1"
    left.mkdir(parents=True)
    (left / "d1.txt").write_text("半截", encoding="utf-8")
    outcome = screen_folder(source, PARAMS, out_dir=out)
    assert _scratch(out) == [] and _normalized(out) == _expected(source, outcome)


def test_the_writer_takes_batches_from_several_threads_and_moves_or_removes_its_folder(tmp_path) -> None:
    options = NormalizeOptions()
    texts = {f"d{i:03d}": f"第{i}篇，Ｆｕｌｌ　ｗｉｄｔｈ {i}。" * (i % 7 + 1) for i in range(600)}
    ids = sorted(texts)
    writer = outputs.NormalizedWriter(tmp_path / "scratch")
    batches = [ids[lo : lo + 25] for lo in range(0, len(ids), 25)]  # more than it lets wait at once
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda batch: writer.add(batch, normalize_batch([texts[d] for d in batch], options)), batches))
    written = writer.take(tmp_path / "normalized")
    assert sorted(written) == ids and not (tmp_path / "scratch").exists()
    for d in ids:
        assert (tmp_path / "normalized" / f"{d}.txt").read_text(encoding="utf-8") == to_text(normalize(texts[d], options).cps)
    dropped = outputs.NormalizedWriter(tmp_path / "dropped")
    dropped.add(ids[:5], normalize_batch([texts[d] for d in ids[:5]], options))
    dropped.discard()
    assert not (tmp_path / "dropped").exists() and dropped.take(tmp_path / "late") is None


def _inodes(out: Path) -> dict[str, int]:
    return {p.name[: -len(".txt")]: p.stat().st_ino for p in (out / "normalized").iterdir()}


def test_a_small_rescan_links_the_earlier_files_on_a_thread_and_writes_the_changed_ones(
    source, tmp_path, monkeypatch
) -> None:
    import os
    import time

    rng = random.Random(5)
    for i in range(40):  # one file of 71 changed: the rest is taken from the prepare cache
        (source / f"more{i:02d}.txt").write_text("".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(200)),
                                                 encoding="utf-8")  # fmt: skip
    out = tmp_path / "ws"
    screen_folder(source, PARAMS, out_dir=out, with_normalized=True)
    before = _inodes(out)
    time.sleep(2.1)  # (files written this recently are hashed again by the rescan, whatever their stamp)
    changed = source / "05.txt"
    changed.write_text(changed.read_text(encoding="utf-8") + "新增的一段文字。", encoding="utf-8")
    jobs: list[tuple[str, bool]] = []  # (thread, background) of each linking job
    real = outputs.prelink_normalized

    def linking(*args, background: bool = True) -> str:
        jobs.append((threading.current_thread().name, background))
        return real(*args, background=background)

    monkeypatch.setattr(outputs, "prelink_normalized", linking)
    event = threading.Event()  # stopped once: the workspace as it was, nothing linked left behind
    stop = CallbackProgress(lambda stage, done, total: event.set() if stage == "candidates" else None, event, 0)
    with pytest.raises(Cancelled):
        screen_folder(source, PARAMS, out_dir=out, with_normalized=True, progress=stop)
    assert len(jobs) == 1 and _inodes(out) == before and _scratch(out) == []
    jobs.clear()
    again = screen_folder(source, PARAMS, out_dir=out, with_normalized=True)
    assert len(jobs) == 1 and jobs[0][0].startswith("neardup-prelink") and jobs[0][1] is False
    assert again.run.counts["prepared_from_cache"] == len(again.documents) - 2  # (and the empty file)
    assert _normalized(out) == _expected(source, again)  # every file, the changed one's made afresh
    after = _inodes(out)
    moved = next(d.doc_id for d in again.documents if d.path == "05.txt")
    assert after[moved] != before[moved]
    kept = [d for d in before if d != moved]
    assert kept and [d for d in kept if after[d] != before[d]] == []  # the others: the earlier run's files, linked
    assert _scratch(out) == []
    assert not os.path.exists(out / "normalized.written")


def test_the_linking_thread_leaves_the_folder_the_screen_writes_into(source, tmp_path) -> None:
    # The thread clears folders stopped screens left in cache/, but not the one this screen's
    # writer was given (it removed it once, and the written files were lost to a slower path).
    out = tmp_path / "ws"
    outcome = screen_folder(source, PARAMS, out_dir=out, with_normalized=True)
    writer, made = screen_mod._normalized_writer(out)
    assert writer is not None and not made
    left = out / "cache" / f"{screen_mod._Prelink.PREFIX}1-1"  # left by a stopped screen
    left.mkdir()
    with ThreadPoolExecutor(1) as pool:
        job = screen_mod._Prelink.start(pool, out, PARAMS, outcome.run.versions, outcome.documents)
        assert job is not None
        linked = job.take(tmp_path / "linked")
    assert writer.path.is_dir() and not left.exists()
    writer.discard()
    assert linked is not None and sorted(linked) == sorted(p.stem for p in (tmp_path / "linked").iterdir())
    assert sorted(linked) == sorted(_normalized(out))


def test_a_rescan_that_prepares_every_document_again_links_nothing_ahead(source, tmp_path, monkeypatch) -> None:
    import time

    out = tmp_path / "ws"
    screen_folder(source, PARAMS, out_dir=out, with_normalized=True)
    time.sleep(2.1)
    changed = source / "05.txt"  # one of 31: past the share a rescan takes from the prepare cache
    changed.write_text(changed.read_text(encoding="utf-8") + "新增的一段文字。", encoding="utf-8")
    jobs: list[str] = []
    real = outputs.prelink_normalized
    monkeypatch.setattr(outputs, "prelink_normalized", lambda *a, **k: jobs.append("linked") or real(*a, **k))
    again = screen_folder(source, PARAMS, out_dir=out, with_normalized=True)
    assert again.run.counts["prepared_from_cache"] == 0
    assert jobs == []  # every file is written as it is normalized again: links would all be replaced
    assert _normalized(out) == _expected(source, again)


def test_the_helper_process_links_without_loading_the_compiled_code(source, tmp_path, monkeypatch) -> None:
    # The rescan's light helper process never loads numba (~125 MB, ~1 s): os.link and os.scandir there.
    out = tmp_path / "ws"
    outcome = screen_folder(source, PARAMS, out_dir=out, with_normalized=True)
    used: list[str] = []
    monkeypatch.setattr(outputs, "_yield_cpu", lambda: used.append("niced"))  # (not this test process)
    monkeypatch.setattr(outputs, "link_same_names", lambda *a: used.append("compiled links"))
    monkeypatch.setattr(outputs, "list_folder", lambda *a: used.append("compiled listing"))
    rows = [(d.doc_id, d.path, d.sha256) for d in outcome.documents if d.usable and d.sha256]
    joined = outputs.prelink_normalized(str(out), PARAMS.to_dict(), outcome.run.versions,
                                        (outputs.joined_columns(rows), len(rows)), "cache/.normalized-prelinked-t")
    assert used == ["niced"]
    assert sorted(joined.split("\0")) == sorted(d for d, _, _ in rows if d in _normalized(out))
    assert len(list((out / "cache" / ".normalized-prelinked-t").iterdir())) == len(joined.split("\0"))


def _held_writes(monkeypatch) -> threading.Event:
    """Hold every normalized file write until the event is set (a disk slower than the screen)."""
    go = threading.Event()
    real = outputs._write_files

    def held(folder: Path, folder_fd, files) -> None:
        go.wait(30)
        real(folder, folder_fd, files)

    monkeypatch.setattr(outputs, "_write_files", held)
    return go


def test_a_screen_can_leave_its_normalized_files_to_be_finished_after_it(source, tmp_path, monkeypatch) -> None:
    go = _held_writes(monkeypatch)
    out = tmp_path / "ws"
    outcome = screen_folder(source, PARAMS, out_dir=out, normalized_after=True)
    pending = outcome.normalized_pending
    assert pending is not None and not pending.in_place
    # Published without waiting for the disk: the run, its manifest and a note in normalized/.
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["run_id"] == outcome.run.run_id
    assert (out / "manifest.csv").is_file()
    assert [p.name for p in (out / "normalized").iterdir()] == ["BEING_WRITTEN.txt"]
    go.set()
    reports: list[tuple[str, int, int]] = []
    assert pending.finish(CallbackProgress(lambda *r: reports.append(r), threading.Event(), 0)) is True
    assert pending.in_place and pending.ended.is_set()
    assert _normalized(out) == _expected(source, outcome)
    assert _scratch(out) == []
    assert reports[-1] == ("normalized", 31, 31)


def test_finishing_normalized_files_can_be_stopped_and_leaves_the_note(source, tmp_path, monkeypatch) -> None:
    go = _held_writes(monkeypatch)
    out = tmp_path / "ws"
    outcome = screen_folder(source, PARAMS, out_dir=out, normalized_after=True)
    stop = threading.Event()
    stop.set()
    go.set()
    with pytest.raises(Cancelled):
        outcome.normalized_pending.finish(CallbackProgress(None, stop, 0))
    assert outcome.normalized_pending.ended.is_set() and not outcome.normalized_pending.in_place
    assert [p.name for p in (out / "normalized").iterdir()] == ["BEING_WRITTEN.txt"]
    assert _scratch(out) == []
    # The next screen writes them.
    again = screen_folder(source, PARAMS, out_dir=out)
    assert _normalized(out) == _expected(source, again)


def test_normalized_files_of_a_run_screened_again_meanwhile_are_not_put_in_place(source, tmp_path) -> None:
    out = tmp_path / "ws"
    first = screen_folder(source, PARAMS, out_dir=out, normalized_after=True)
    (source / "05.txt").write_text("另一篇完全不同的文章。" * 20, encoding="utf-8")
    second = screen_folder(source, PARAMS, out_dir=out)
    assert first.normalized_pending.finish() is False
    assert _normalized(out) == _expected(source, second)
    assert _scratch(out) == []


def test_a_writer_that_need_not_wait_leaves_out_what_it_is_behind_on(tmp_path, monkeypatch) -> None:
    options = NormalizeOptions()
    texts = {f"d{i:03d}": f"第{i}篇文章的正文。" * 3 for i in range(200)}
    ids = sorted(texts)
    go = _held_writes(monkeypatch)
    writer = outputs.NormalizedWriter(tmp_path / "scratch", wait=False)
    batches = [ids[lo : lo + 10] for lo in range(0, len(ids), 10)]  # 20 batches, 16 let wait at once
    for batch in batches:
        writer.add(batch, normalize_batch([texts[d] for d in batch], options))  # returns at once
    assert writer.skipped == 40
    go.set()
    written = writer.take(tmp_path / "normalized")
    assert sorted(written) == [d for batch in batches[:16] for d in batch]


def test_a_screen_that_does_not_wait_writes_what_its_writer_left_out_after_it(source, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(outputs, "_WRITER_BATCHES_AHEAD", 0)  # the writer always behind: every batch left out
    out = tmp_path / "ws"
    outcome = screen_folder(source, PARAMS, out_dir=out, normalized_after=True)
    assert [p.name for p in (out / "normalized").iterdir()] == ["BEING_WRITTEN.txt"]
    reports: list[tuple[int, int]] = []
    progress = CallbackProgress(lambda stage, done, total: reports.append((done, total)), threading.Event(), 0)
    assert outcome.normalized_pending.finish(progress) is True
    assert reports[-1] == (31, 31) and {t for _, t in reports} == {31}  # one count of them all
    assert _normalized(out) == _expected(source, outcome)
    assert _scratch(out) == []


def test_a_file_changed_before_its_normalized_text_is_written_is_named_not_written(
    source, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(outputs, "_WRITER_BATCHES_AHEAD", 0)  # every text written after the screen
    out = tmp_path / "ws"
    outcome = screen_folder(source, PARAMS, out_dir=out, normalized_after=True)
    outcome.texts.forget()  # as a large result does: its texts are read again when wanted
    (source / "07.txt").write_text("屏幕之后改过的文章。" * 30, encoding="utf-8")  # while the result is reviewed
    assert outcome.normalized_pending.finish() is True
    expected = _expected(source, outcome)
    changed = next(d.doc_id for d in outcome.documents if d.path == "07.txt")
    written = _normalized(out)
    note = written.pop("NOT_WRITTEN")
    assert "07.txt" in note and changed not in written
    assert written == {d: t for d, t in expected.items() if d != changed}
    assert outcome.texts.held_chars == 0  # the texts read again for it were not kept
