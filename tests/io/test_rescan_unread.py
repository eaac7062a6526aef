"""Rescans that do not open unchanged files: the file stamps kept in the workspace's cache.

Real folders, real files, real stamps. The settle time (files written this close to a scan are read
again next time) is shortened to 50 ms here, and the tests wait past it, so that they run in
milliseconds and still see the kernel's real time stamps.
"""

from __future__ import annotations

import os
import random
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from neardup_gui.cli import main
from neardup_gui.core.normalize import normalize, to_text
from neardup_gui.core.records import ScreenParams
from neardup_gui.io import corpus as corpus_mod
from neardup_gui.io.corpus import SourceTexts, TextUnavailable, check_integrity, scan_folder
from neardup_gui.io.prepcache import load_known
from neardup_gui.io.session import ReviewSession
from neardup_gui.tasks import screen_folder

# TF-IDF and SimHash for every pair (automatic on small folders) fit models on every text, which
# reads them all; an archive large enough for reading to matter is past that automatic limit.
PARAMS = ScreenParams(k=5, all_scores="never")
SETTLE_NS = 50_000_000

# Files opened under a folder while ``_OPENED`` is being recorded (an audit hook cannot be
# removed, so one hook serves every test and records only when asked).
_OPENED: list[str] | None = None


def _audit(event: str, args: tuple) -> None:
    # Files only: a folder opened as a handle (its files stat'ed relative to it) reads no file.
    if _OPENED is not None and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        if not os.path.isdir(args[0]):
            _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


def _recorded(fn) -> tuple[object, list[str]]:
    """``fn()``'s result and every file opened meanwhile, in order."""
    global _OPENED
    _OPENED = []
    try:
        result = fn()
    finally:
        seen, _OPENED = _OPENED, None
    return result, seen


def _opened_during(fn, under: Path) -> tuple[object, list[str]]:
    result, seen = _recorded(fn)
    root = str(under) + os.sep
    return result, sorted({p for p in seen if p.startswith(root)})


def _opened_counted(fn, under: Path) -> tuple[object, dict[str, int]]:
    """``_opened_during`` with how many times each file was opened."""
    result, seen = _recorded(fn)
    root = str(under) + os.sep
    return result, {p: seen.count(p) for p in set(seen) if p.startswith(root)}


def _settle() -> None:
    time.sleep(3 * SETTLE_NS / 1e9)


@pytest.fixture(autouse=True)
def short_settle(monkeypatch) -> None:
    monkeypatch.setattr(corpus_mod, "SETTLE_NS", SETTLE_NS)


def _text(rng: random.Random, n: int) -> str:
    return "".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(n)) + "。"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """40 articles, 12 of them with a copy or an edit, a GB18030 copy, an empty and a binary file."""
    rng = random.Random(3)
    src = tmp_path / "稿件"
    (src / "a").mkdir(parents=True)
    (src / "b").mkdir()
    bodies = [_text(rng, rng.randrange(200, 600)) for _ in range(40)]
    for i, body in enumerate(bodies):
        (src / "a" / f"{i:03d}.txt").write_text(body, encoding="utf-8")
    for i in range(0, 24, 2):
        edited = list(bodies[i])
        for _ in range(3):
            edited[rng.randrange(len(edited) - 1)] = "改"
        (src / "b" / f"{i:03d}-edit.txt").write_text("".join(edited), encoding="utf-8")
    (src / "b" / "000-gb.txt").write_bytes(bodies[0].encode("gb18030"))
    (src / "b" / "empty.txt").write_bytes(b"")
    (src / "b" / "blob.txt").write_bytes(bytes(range(256)) * 8)
    _settle()
    return src


def _essentials(outcome) -> list[tuple]:
    return [(c.left, c.right, c.methods, round(c.jaccard, 12), c.flags, c.segments, c.evidence) for c in outcome.candidates]


def test_a_rescan_opens_no_unchanged_file_and_gives_the_same_results(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    first = screen_folder(folder, PARAMS, out_dir=out)
    manifest, candidates = (out / "manifest.csv").read_bytes(), (out / "candidates.csv").read_bytes()
    again, opened = _opened_during(lambda: screen_folder(folder, PARAMS, out_dir=out), folder)
    assert opened == []
    files = first.run.counts["files"]
    assert again.run.counts["unchanged_files_not_read"] == files == 55
    assert any("were not read again" in n for n in again.run.notes)
    assert (out / "manifest.csv").read_bytes() == manifest
    assert (out / "candidates.csv").read_bytes() == candidates
    assert _essentials(again) == _essentials(first) and len(first.candidates) >= 12
    assert again.changed_files == () and again.run.integrity == "unchanged"


def test_only_the_changed_file_is_read_and_results_match_a_fresh_screen(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    target = folder / "a" / "004.txt"
    target.write_text(target.read_text(encoding="utf-8")[:-30] + "文末新增一句话，内容有所不同。", encoding="utf-8")
    again, opened = _opened_during(lambda: screen_folder(folder, PARAMS, out_dir=out), folder)
    fresh = screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    # the changed file, twice (read, hashed again after the run); its edited twin's text for verifying the pair
    assert set(opened) == {str(target), str(folder / "b" / "004-edit.txt")}
    assert again.run.counts["unchanged_files_not_read"] == again.run.counts["files"] - 1
    assert _essentials(again) == _essentials(fresh)
    assert [(d.path, d.sha256, d.chars) for d in again.documents] == [(d.path, d.sha256, d.chars) for d in fresh.documents]


def _rows_stored(out: Path, run_id: str) -> tuple[int, int]:
    with sqlite3.connect(out / "session.sqlite") as raw:
        return tuple(raw.execute(f"SELECT COUNT(*) FROM {table} WHERE run_id = ?", (run_id,)).fetchone()[0]
                     for table in ("documents", "candidates"))  # fmt: skip


def test_the_session_stores_only_what_a_rescan_changed_right_after_a_first_screen(folder, tmp_path) -> None:
    # The pairs a rescan takes over come back from the cache as plain numbers; a pair scored
    # afresh held a numpy float (the MinHash estimate), whose session row digest differed from
    # the same value read back: the first rescan stored every pair again, whole.
    out = tmp_path / "ws"
    first = screen_folder(folder, PARAMS, out_dir=out)
    assert _rows_stored(out, first.run.run_id) == (55, len(first.candidates))
    same = screen_folder(folder, PARAMS, out_dir=out)
    assert same.run.counts["pairs_from_previous_run"] == len(first.candidates)
    assert _rows_stored(out, same.run.run_id) == (0, 0)
    target = folder / "a" / "004.txt"
    target.write_text(target.read_text(encoding="utf-8")[:-30] + "文末新增一句话，内容有所不同。", encoding="utf-8")
    edited = screen_folder(folder, PARAMS, out_dir=out)
    touched = [c for c in edited.candidates if "a/004.txt" in (first.documents_by_id[c.left].path,
                                                                 first.documents_by_id[c.right].path)]  # fmt: skip
    assert touched and _rows_stored(out, edited.run.run_id) == (1, len(touched))
    with ReviewSession.open(out / "session.sqlite", read_only=True) as session:
        assert session.candidates() == list(edited.candidates)


def _values_made(monkeypatch) -> list[int]:
    """How many candidates' session values each call made (``io.session._candidate_values``)."""
    from neardup_gui.io import session as session_mod

    made: list[int] = []
    real = session_mod._candidate_values

    def counted(candidates):
        got = real(candidates)
        made.append(len(got))
        return got

    monkeypatch.setattr(session_mod, "_candidate_values", counted)
    return made


def test_pairs_taken_over_unchanged_are_recorded_without_making_their_values_again(
    folder, tmp_path, monkeypatch
) -> None:
    out = tmp_path / "ws"
    first = screen_folder(folder, PARAMS, out_dir=out)
    made = _values_made(monkeypatch)
    same = screen_folder(folder, PARAMS, out_dir=out)
    assert same.run.counts["pairs_from_previous_run"] == len(first.candidates)
    assert sum(made) == 0  # every pair the last run's, unchanged: no values made, no row stored
    assert _rows_stored(out, same.run.run_id) == (0, 0)
    target = folder / "a" / "006.txt"
    text = target.read_text(encoding="utf-8")[:-30] + "文末改写了一句，以示区别。"
    target.write_text(text, encoding="utf-8")
    made.clear()
    edited = screen_folder(folder, PARAMS, out_dir=out)
    touched = [c for c in edited.candidates if "a/006.txt" in (edited.documents_by_id[c.left].path,
                                                                 edited.documents_by_id[c.right].path)]  # fmt: skip
    assert touched and sum(made) == len(touched)  # the edited file's pairs only, and each once
    assert _rows_stored(out, edited.run.run_id) == (1, len(touched))
    # Unchanged since: the edited pairs (and file) differ from the first run's rows (the base), so
    # they are made and stored again; the others are still the base's.
    made.clear()
    again = screen_folder(folder, PARAMS, out_dir=out)
    assert sum(made) == len(touched) and _rows_stored(out, again.run.run_id) == (1, len(touched))
    with ReviewSession.open(out / "session.sqlite", read_only=True) as session:
        assert session.candidates() == list(again.candidates)
        assert session.candidates(edited.run.run_id) == list(edited.candidates)
        assert session.candidates(first.run.run_id) == list(first.candidates)


def test_pairs_from_a_cache_older_than_the_last_recorded_run_are_compared_by_their_values(
    folder, tmp_path, monkeypatch
) -> None:
    from neardup_gui.tasks import screen as screen_mod

    out = tmp_path / "ws"
    first = screen_folder(folder, PARAMS, out_dir=out)
    target = folder / "a" / "006.txt"
    text = target.read_text(encoding="utf-8")[:-30] + "文末改写了一句，以示区别。"
    target.write_text(text, encoding="utf-8")

    def refused(*args):
        raise OSError("disk full")

    with monkeypatch.context() as m:  # the edited screen is recorded, its cache is not written
        m.setattr(screen_mod, "publish_cache", refused)
        edited = screen_folder(folder, PARAMS, out_dir=out)
    made = _values_made(monkeypatch)
    again = screen_folder(folder, PARAMS, out_dir=out)  # pairs taken over from the first run's cache
    assert again.run.counts["pairs_from_previous_run"] >= len(first.candidates) - 4
    assert sum(made) == len(again.candidates)  # the cache is not the latest run's: every value made
    with ReviewSession.open(out / "session.sqlite", read_only=True) as session:
        assert session.candidates() == list(again.candidates)
        assert session.candidates(edited.run.run_id) == list(edited.candidates)


def test_a_same_size_rewrite_with_its_modification_time_set_back_is_read(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    target = folder / "a" / "010.txt"
    before = target.stat()
    text = target.read_text(encoding="utf-8")
    target.write_text("变" + text[1:], encoding="utf-8")  # same size in UTF-8
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old modification time
    assert target.stat().st_size == before.st_size and target.stat().st_mtime_ns == before.st_mtime_ns
    again = screen_folder(folder, PARAMS, out_dir=out)
    fresh = screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    row = next(d for d in again.documents if d.path.endswith("a/010.txt"))
    assert row.sha256 == next(d for d in fresh.documents if d.path == row.path).sha256
    assert again.run.counts["unchanged_files_not_read"] == again.run.counts["files"] - 1
    assert _essentials(again) == _essentials(fresh)


def test_each_part_of_a_files_stamp_and_row_decides_whether_it_is_taken_over_unread(folder, monkeypatch) -> None:
    monkeypatch.setattr(corpus_mod, "_COLUMN_SLICE", 7)  # the columns made and compared over several slices
    old = folder / "a" / "003.txt"  # a file dated before 1970 (a negative time) is compared as any other
    os.utime(old, ns=(old.stat().st_atime_ns, -1_234_567_891))
    _settle()
    first = scan_folder(folder)
    known = first.known_files()
    assert known["a/003.txt"].stamp[1] == -1_234_567_891
    changed = {  # each differs from the file in one field only: read again
        "a/001.txt": lambda k: k._replace(stamp=(*k.stamp[:3], k.stamp[3] + 1, k.stamp[4])),  # inode
        "a/002.txt": lambda k: k._replace(stamp=(*k.stamp[:4], k.stamp[4] + 1)),  # device
        "a/004.txt": lambda k: k._replace(stamp=(k.stamp[0], k.stamp[1], k.stamp[2] - 1, *k.stamp[3:])),  # ctime
        "a/005.txt": lambda k: k._replace(stamp=(*k.stamp[:3], 2**64 - 1, k.stamp[4])),  # an inode past int64
        "a/006.txt": lambda k: k._replace(status="unreadable"),  # a status that may have been passing
        "a/008.txt": lambda k: k._replace(sha256=""),
        "a/009.txt": lambda k: k._replace(stamp=k.stamp[:4]),  # not a stamp this program makes
    }
    for path, change in changed.items():
        known[path] = change(known[path])
    big = max((d for d in first.documents if d.path in known and d.path not in changed), key=lambda d: d.size)
    second = scan_folder(folder, known=known, max_bytes=big.size - 1)  # over the limit now: not taken over
    expected = set(known) - set(changed) - {big.path}
    assert "a/003.txt" in expected and second.trusted == expected
    assert [d for d in second.documents if d.path in expected] == [d for d in first.documents if d.path in expected]
    assert second.stamps == {p: s for p, s in first.stamps.items() if p != big.path}


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="needs arbitrary bytes in file names")
def test_rows_taken_over_unread_are_the_rows_a_fresh_scan_makes(folder, monkeypatch) -> None:
    # Rows taken over are made by columns, a slice at a time; a name that is not valid UTF-8 (its
    # row notes it) sends its slice the slower way. Top-level files take the folder's name as source.
    monkeypatch.setattr(corpus_mod, "_COLUMN_SLICE", 5)
    (folder / "总览.txt").write_text("总览" * 40, encoding="utf-8")
    with open(os.fsencode(str(folder / "b")) + b"/gbk_\xd6\xd0.txt", "wb") as fh:
        fh.write(("内容" * 40).encode())
    _settle()
    first = scan_folder(folder)
    rows = first.known_files()
    # (a row stored without the note, as for a text too short to compare: the note is added again)
    rows["b/gbk_\\xd6\\xd0.txt"] = rows["b/gbk_\\xd6\\xd0.txt"]._replace(message="")
    second = scan_folder(folder, known=rows)
    known = set(rows)  # the empty and the binary file too: their statuses come from the bytes
    assert {"b/gbk_\\xd6\\xd0.txt", "总览.txt", "b/empty.txt"} <= known and len(known) == len(first.documents)
    assert second.trusted == known
    assert second.documents == first.documents
    by_path = {d.path: d for d in second.documents}
    assert "not valid UTF-8" in by_path["b/gbk_\\xd6\\xd0.txt"].message
    assert by_path["总览.txt"].source_id == folder.name and by_path["a/001.txt"].source_id == "a"
    assert second.stamps == first.stamps


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="needs arbitrary bytes in file names")
def test_files_taken_over_under_a_folder_whose_name_is_not_utf8_keep_its_shown_name_as_source(tmp_path) -> None:
    root = os.fsencode(str(tmp_path)) + b"/src_\xd6\xd0"
    os.mkdir(root)
    for i in range(3):
        with open(root + f"/{i}.txt".encode(), "wb") as fh:
            fh.write(f"第{i}篇".encode() * 30)
    _settle()
    first = scan_folder(os.fsdecode(root))
    second = scan_folder(os.fsdecode(root), known=first.known_files())
    assert second.trusted == {"0.txt", "1.txt", "2.txt"}
    assert second.documents == first.documents and first.documents[0].source_id == "src_\\xd6\\xd0"


def test_the_stamps_the_check_trusts_are_of_files_taken_over_or_written_well_before_the_scan(folder) -> None:
    import dataclasses

    corpus = scan_folder(folder)
    start = corpus.started_ns
    just_before = (10, start - 1, start - 1, 7, 1)  # written while the scan began: not settled
    long_before = (10, start - 10 * corpus_mod.SETTLE_NS, start - 10 * corpus_mod.SETTLE_NS, 8, 1)
    changed_ctime = (10, start - 10 * corpus_mod.SETTLE_NS, start - 1, 9, 1)
    stamps = {"a.txt": just_before, "b.txt": long_before, "c.txt": just_before, "d.txt": changed_ctime}
    taken = dataclasses.replace(corpus, stamps=stamps, trusted=frozenset({"c.txt"}))
    assert taken.settled_stamps() == {"b.txt": long_before, "c.txt": just_before}


def test_a_file_whose_inode_number_is_past_int64_is_still_taken_over(folder) -> None:
    # (Some file systems give such inode or device numbers; the walk's stamps are converted in one
    # call as int64 and, where one does not fit, the slower way.)
    first = scan_folder(folder)
    known = corpus_mod.KnownFiles.of(first.known_files())
    paths = list(known)
    stamps = [known[p].stamp for p in paths]
    big = (*stamps[1][:3], 2**64 - 5, 2**63 + 7)
    known_rows = dict(first.known_files())
    known_rows[paths[1]] = known_rows[paths[1]]._replace(stamp=big)
    columns = corpus_mod.KnownFiles.of(known_rows)
    assert columns.unchanged(paths, [stamps[0], big, *stamps[2:]], 10**9) == list(range(len(paths)))
    assert columns.unchanged(paths, [stamps[0], (*big[:3], 2**64 - 6, big[4]), *stamps[2:]], 10**9)[1] == -1


def test_a_cache_whose_file_rows_disagree_is_not_used_to_skip_any_file(folder, tmp_path, caplog) -> None:
    from neardup_gui.io.extract import ExtractOptions
    from neardup_gui.io.prepcache import CACHE_FILE
    from neardup_gui.tasks import library_versions
    from neardup_gui.tasks.screen import _read_key

    out = tmp_path / "ws"
    first = screen_folder(folder, PARAMS, out_dir=out)
    path = out / CACHE_FILE
    with np.load(path) as z:
        arrays = {name: z[name] for name in z.files}
    arrays["known_times"] = arrays["known_times"][:-1]  # one file's stamp missing: the rows no longer line up
    np.savez(path, **arrays)
    key = _read_key(PARAMS, ExtractOptions(tables=PARAMS.docx_tables, headers_footers=PARAMS.docx_headers_footers))
    with caplog.at_level("WARNING"):
        assert load_known(out, library_versions(), key) is None
    assert "could not be read" in caplog.text and "disagree" in caplog.text
    again = screen_folder(folder, PARAMS, out_dir=out)
    assert again.run.counts["unchanged_files_not_read"] == 0  # every file opened and hashed
    assert again.run.counts["prepared_from_cache"] > 0  # the rest of the cache still serves
    assert _essentials(again) == _essentials(first)


def test_the_cache_holds_each_files_row_as_the_scan_found_it(folder, tmp_path) -> None:
    from neardup_gui.io.extract import ExtractOptions
    from neardup_gui.tasks import library_versions
    from neardup_gui.tasks.screen import _read_key

    (folder / "b" / "短.txt").write_text("短", encoding="utf-8")  # no shingles: stored as ok
    _settle()
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    options = ExtractOptions(tables=PARAMS.docx_tables, headers_footers=PARAMS.docx_headers_footers)
    stored = load_known(out, library_versions(), _read_key(PARAMS, options))
    scanned = scan_folder(folder, extract_options=options).known_files()
    assert stored == scanned and len(stored) > 50
    assert stored["b/短.txt"].status == "ok" and stored["b/短.txt"].sha256


def test_files_written_just_before_a_screen_are_read_again_next_time(folder, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(corpus_mod, "SETTLE_NS", 60 * 1_000_000_000)  # everything counts as just written
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    assert load_known(out, None, "nothing") is None  # stored for the reading options only
    again = screen_folder(folder, PARAMS, out_dir=out)
    assert again.run.counts["unchanged_files_not_read"] == 0


def test_reread_and_other_reading_options_read_every_file(folder, tmp_path, capsys) -> None:
    out = tmp_path / "ws"
    assert main(["screen", str(folder), "--out", str(out), "-q", "--all-scores", "never"]) == 0
    capsys.readouterr()
    assert main(["screen", str(folder), "--out", str(out), "-q", "--all-scores", "never"]) == 0
    said = capsys.readouterr()
    assert "55 files not opened" in said.out and "were not read again" in said.err
    assert main(["screen", str(folder), "--out", str(out), "-q", "--all-scores", "never", "--reread"]) == 0
    said = capsys.readouterr()
    assert "not opened" not in said.out and "were not read again" not in said.err
    smaller = screen_folder(folder, ScreenParams(k=5, all_scores="never", max_bytes=1500), out_dir=out)
    assert smaller.run.counts["unchanged_files_not_read"] == 0
    assert smaller.run.counts["files_too_large"] > 0


def test_a_text_taken_over_unread_is_checked_against_its_sha256_when_read(folder) -> None:
    first = scan_folder(folder)
    known = first.known_files()
    path = "a/007.txt"
    known[path] = known[path]._replace(sha256="0" * 64)  # as if rewritten in the same clock tick
    second = scan_folder(folder, known=known)
    assert path in second.trusted and len(second.trusted) == len(known)
    texts = second.texts
    assert isinstance(texts, SourceTexts) and texts.unread == first.counts()["ok"]
    doc = next(d for d in second.documents if d.path == path)
    good = next(d for d in second.documents if d.path == "a/008.txt")
    assert texts[good.doc_id] == first.texts[good.doc_id] and texts.unread == first.counts()["ok"] - 1
    with pytest.raises(TextUnavailable):
        texts[doc.doc_id]
    assert texts.get(doc.doc_id) is None and doc.doc_id in texts
    assert texts.lenient()[doc.doc_id] == ""
    assert "SHA-256" in texts.failures[path]
    assert len(texts) == len(first.texts) and set(texts) == set(first.texts)


def test_the_check_after_the_run_stats_files_taken_over_and_reports_a_change(folder) -> None:
    odd = os.fsencode(folder) + b"/b/gbk_\xd6\xd0.txt"  # a name that is not UTF-8: shown as \xNN
    with open(odd, "wb") as fh:
        fh.write("旧稿全文，名字不是 UTF-8。".encode("utf-8"))
    time.sleep(3 * SETTLE_NS / 1e9)  # settled: taken over unread on the second scan
    first = scan_folder(folder)
    second = scan_folder(folder, known=first.known_files())
    stamps = {p: second.stamps[p] for p in second.trusted}
    assert "b/gbk_\\xd6\\xd0.txt" in stamps
    report, opened = _opened_during(lambda: check_integrity(folder, second.documents, stamps=stamps), folder)
    assert report == [] and opened == []  # stat'ed only, the oddly named file too
    target = folder / "b" / "002-edit.txt"
    target.write_text(target.read_text(encoding="utf-8") + "补", encoding="utf-8")
    with open(odd, "ab") as fh:
        fh.write("补".encode("utf-8"))
    changed = dict(check_integrity(folder, second.documents, stamps=stamps))
    assert set(changed) == {"b/002-edit.txt", "b/gbk_\\xd6\\xd0.txt"}
    assert all("size" in what for what in changed.values())
    (folder / "a" / "008.txt").unlink()
    assert dict(check_integrity(folder, second.documents, stamps=stamps))["a/008.txt"] == "missing"


def test_the_check_shares_its_stats_with_the_helper_process_and_reports_the_same(folder, monkeypatch) -> None:
    """From CHECK_SHARE_MIN stamped files, the verification helper stats the second half; the
    files whose stamp moved there are checked in full here, and the report is the one a check
    alone gives, in the order of the documents."""
    from neardup_gui.core.helper import VerifyHelper
    from neardup_gui.io import fstat

    monkeypatch.setattr(fstat, "_disabled", True)

    first = scan_folder(folder)
    _settle()
    second = scan_folder(folder, known=first.known_files())
    stamps = dict(second.settled_stamps())
    docs = second.documents
    stamped = [d.path for d in docs if d.sha256 and d.path in stamps]
    assert len(stamped) >= 40
    monkeypatch.setattr(corpus_mod, "CHECK_SHARE_MIN", 10)
    # Edited: one file in each half; one removed in the second half.
    half = len(docs) // 2
    early = next(d.path for d in docs[:half] if d.path in stamps)
    late = [d.path for d in docs[half:] if d.path in stamps]
    # One in the second half without a stamp (read just as it was written: hashed again here).
    for path in (early, late[0], late[2]):
        with open(folder / path, "ab") as fh:
            fh.write("补".encode("utf-8"))
    (folder / late[-1]).unlink()
    del stamps[late[2]]
    alone = check_integrity(folder, docs, stamps=stamps)
    assert [p for p, _ in alone] == [early, late[0], late[2], late[-1]]
    # What this process stats: one file at a time, or many in one call (io.fstat, on Linux).
    here: list[str] = []
    real_stat, real_batch = corpus_mod._Stamper.__call__, corpus_mod.stamps_regular

    def stat_here(self, rel):
        here.append(rel)
        return real_stat(self, rel)

    def batch_here(root, names):
        here.extend(names)
        return real_batch(root, names)

    monkeypatch.setattr(corpus_mod._Stamper, "__call__", stat_here)
    monkeypatch.setattr(corpus_mod, "stamps_regular", batch_here)
    helper = VerifyHelper()
    helper.start()
    try:
        shared = check_integrity(folder, docs, stamps=stamps, share=helper.call)
    finally:
        helper.close()
    assert shared == alone
    assert not set(here) & set(late)  # the second half was stat'ed by the other process only
    assert early in here
    # A helper that cannot take it (None) leaves every file to this process.
    here.clear()
    assert check_integrity(folder, docs, stamps=stamps, share=lambda *a: None) == alone
    assert set(late) - {late[2]} <= set(here)
    # Where this process stats its share in one call (io.fstat), the helper still takes the other.
    monkeypatch.setattr(fstat, "_disabled", False)
    if fstat.batch_available():
        here.clear()
        helper = VerifyHelper()
        helper.start()
        try:
            assert check_integrity(folder, docs, stamps=stamps, share=helper.call) == alone
        finally:
            helper.close()
        assert not set(here) & set(late) and early in here


_REAL_STAMPS_MOVED = corpus_mod._stamps_moved


def stamps_moved_failing_in_a_child(root_text, paths, stamps):
    """``_stamps_moved`` that fails in another process (sent there by name) and works here."""
    import multiprocessing

    if multiprocessing.parent_process() is not None:
        raise OSError("the helper's share failed")
    return _REAL_STAMPS_MOVED(root_text, paths, stamps)


def test_a_share_that_fails_in_the_helper_is_checked_here(folder, monkeypatch) -> None:
    from neardup_gui.core.helper import VerifyHelper
    from neardup_gui.io import fstat

    monkeypatch.setattr(fstat, "_disabled", True)

    first = scan_folder(folder)
    stamps = dict(first.settled_stamps())
    late = [d.path for d in first.documents[len(first.documents) // 2 :] if d.path in stamps]
    with open(folder / late[1], "ab") as fh:
        fh.write("补".encode("utf-8"))
    monkeypatch.setattr(corpus_mod, "CHECK_SHARE_MIN", 10)
    monkeypatch.setattr(corpus_mod, "_stamps_moved", stamps_moved_failing_in_a_child)
    helper = VerifyHelper()
    helper.start()
    try:
        report = check_integrity(folder, first.documents, stamps=stamps, share=helper.call)
    finally:
        helper.close()
    assert [p for p, _ in report] == [late[1]]


def test_a_large_screen_drops_the_texts_once_prepared_and_reads_the_paired_ones_again(folder, tmp_path, monkeypatch) -> None:
    from neardup_gui.tasks import screen as screen_task

    kept = screen_folder(folder, PARAMS)
    monkeypatch.setattr(screen_task, "RELEASE_TEXTS_CHARS", 0)  # as if past 50 million characters
    released, opened = _opened_during(lambda: screen_folder(folder, PARAMS), folder)
    assert _essentials(released) == _essentials(kept) and released.documents == kept.documents
    paired = {d for c in released.candidates for d in (c.left, c.right)}
    usable = [d for d in released.documents if d.usable]
    assert released.texts.unread == len([d for d in usable if d.doc_id not in paired]) > 0
    assert released.texts[usable[0].doc_id] == kept.texts[usable[0].doc_id]  # read again when asked
    # read once by the scan, hashed once after the run, and read again if paired
    paths = {str(folder / d.path) for d in usable}
    assert paths <= set(opened)
    # normalized/ is written as the texts are prepared: a screen that writes it drops them too, opens
    # no file more for it, and its files hold each document's normalized text
    written, opened_too = _opened_counted(lambda: screen_folder(folder, PARAMS, out_dir=tmp_path / "ws"), folder)
    assert written.texts.unread == released.texts.unread
    _, opened_without = _opened_counted(lambda: screen_folder(folder, PARAMS), folder)
    assert opened_too == opened_without
    normalized = tmp_path / "ws" / "normalized"
    assert sorted(p.name for p in normalized.iterdir()) == sorted(f"{d.doc_id}.txt" for d in usable)
    for d in usable:
        expected = to_text(normalize(kept.texts[d.doc_id], PARAMS.normalize).cps)
        assert (normalized / f"{d.doc_id}.txt").read_text(encoding="utf-8") == expected
    assert list((tmp_path / "ws" / "cache").glob(".normalized-*")) == []


def test_a_large_screen_lets_the_paired_texts_go_once_they_are_verified(folder, tmp_path, monkeypatch) -> None:
    # Past HELD_TEXT_CHARS (100,000 articles hold ~29 million characters of paired texts, 58 MB) the
    # texts read again for the pairs go before the check and the outputs, which need none: the
    # screen's last stages peaked ~45 MB lower. Each is read again, and checked, when asked for.
    from neardup_gui.tasks import screen as screen_task

    kept = screen_folder(folder, PARAMS)
    monkeypatch.setattr(screen_task, "RELEASE_TEXTS_CHARS", 0)  # as if past 50 million characters
    monkeypatch.setattr(screen_task, "HELD_TEXT_CHARS", 0)
    out = tmp_path / "ws"
    let_go = screen_folder(folder, PARAMS, out_dir=out)
    assert _essentials(let_go) == _essentials(kept) and let_go.documents == kept.documents
    usable = [d for d in let_go.documents if d.usable]
    assert let_go.texts.held_chars == 0 and let_go.texts.unread == len(usable)
    assert all(let_go.texts[d.doc_id] == kept.texts[d.doc_id] for d in usable)
    lines = (out / "candidates.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(lines) == len(kept.candidates) + 1
    assert sorted(p.name for p in (out / "normalized").iterdir()) == sorted(f"{d.doc_id}.txt" for d in usable)


def test_after_the_run_files_read_are_stated_and_rehashed_only_when_their_stamp_moved_or_reread_asks(folder) -> None:
    global _OPENED
    counts: dict[str, list[int]] = {}
    for reread in (False, True):
        _OPENED = []
        try:
            screen_folder(folder, PARAMS, reread=reread)
        finally:
            seen, _OPENED = _OPENED, None
        counts[str(reread)] = [seen.count(str(p)) for p in sorted(folder.rglob("*.txt"))]
    # opened once to be read (the empty file too), and again after the run only with reread
    assert set(counts["False"]) == {1}
    assert set(counts["True"]) == {2}


def test_a_screen_runs_without_the_cycle_collector_and_restores_it(tmp_path: Path) -> None:
    import gc

    from neardup_gui.core.progress import CallbackProgress

    source = tmp_path / "src"
    source.mkdir()
    for i in range(3):
        (source / f"{i}.txt").write_text("同一段新闻稿的正文内容。" * 20 + str(i), encoding="utf-8")
    during: list[bool] = []
    screen_folder(source, progress=CallbackProgress(lambda *_: during.append(gc.isenabled()), min_interval=0))
    assert during and not any(during)
    assert gc.isenabled()


def test_reading_ahead_reads_the_paired_texts_again_in_order_and_stops_when_asked(folder) -> None:
    from neardup_gui.core.pipeline import _read_ahead
    from neardup_gui.core.progress import NULL_PROGRESS

    scanned = scan_folder(folder)
    texts = scanned.texts
    before = {d.doc_id: texts[d.doc_id] for d in scanned.usable()}
    ids = [d.doc_id for d in scanned.usable()]
    texts.forget()
    assert texts.unread == len(ids)
    pairs = {(0, 3), (3, 9), (20, 21)}
    _, opened = _opened_during(lambda: _read_ahead(texts.lenient(), ids, NULL_PROGRESS, pairs, lambda: False), folder)
    wanted = [ids[i] for i in (0, 3, 9, 20, 21)]
    assert texts.unread == len(ids) - len(wanted)
    paths = {d.doc_id: str(folder / d.path) for d in scanned.usable()}
    assert opened == sorted(paths[d] for d in wanted)
    assert all(texts[d] == before[d] for d in wanted)  # the same texts, kept
    # Asked to stop (the containment index is done): it reads nothing more.
    _, opened = _opened_during(lambda: _read_ahead(texts.lenient(), ids, NULL_PROGRESS, {(1, 2)}, lambda: True), folder)
    assert opened == [] and texts.unread == len(ids) - len(wanted)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's")
def test_texts_let_go_give_their_memory_back_to_the_system(tmp_path: Path) -> None:
    # Like a large result's texts once it is shown (100,000 articles: ~29 million characters): many
    # texts of a few KB, with small objects made among them and still held (they pin the heap, so
    # freeing the texts alone leaves the process as large as before). The window stayed ~110 MB
    # larger at rest after a 100,000-file screen until forgetting gave the memory back.
    from engine_kit import resident_mb

    from neardup_gui.core.records import STATUS_OK, document

    read: dict[str, str] = {}
    docs = {}
    pins = []
    for i in range(40_000):  # ~240 MB of texts
        doc_id = f"d{i:016x}"
        read[doc_id] = "通讯社记者报道" * 430 + str(i)
        docs[doc_id] = document(doc_id, "src", "v1", f"{i}.txt", 0, 0.0, "", "utf-8", len(read[doc_id]), STATUS_OK)
        if i % 500 == 0:
            pins.append(np.ones(1500, dtype=np.uint64))
    texts = SourceTexts(tmp_path, read, {}, docs=docs)
    del read
    before = resident_mb()
    texts.forget()
    assert texts.held_chars == 0 and texts.unread == 40_000  # each is read again when asked for
    deadline = time.monotonic() + 10
    while before - resident_mb() < 150 and time.monotonic() < deadline:
        time.sleep(0.02)  # (given back on a thread of its own)
    assert before - resident_mb() >= 150, (before, resident_mb())
    assert all(int(p.sum()) == 1500 for p in pins)


def test_a_large_screen_reads_lsh_pairs_ahead_with_the_same_results(folder, monkeypatch) -> None:
    from neardup_gui.core import pipeline
    from neardup_gui.tasks import screen as screen_task

    kept = screen_folder(folder, PARAMS)
    monkeypatch.setattr(screen_task, "RELEASE_TEXTS_CHARS", 0)
    asked: list[int] = []
    real = pipeline._read_ahead
    real_propose = pipeline.propose

    def propose(prepared, params, progress, meanwhile=None, earlier=None, in_scope=None):
        assert meanwhile is not None  # texts released, scope "all": the screen reads ahead
        # The containment index may finish before LSH on a folder this small: call it as propose would.
        meanwhile({(0, 1)}, lambda: False, None)  # (no helper: no early jobs, which read the proposals)
        return real_propose(prepared, params, progress, meanwhile=meanwhile, earlier=earlier, in_scope=in_scope)

    monkeypatch.setattr(pipeline, "propose", propose)
    monkeypatch.setattr(pipeline, "_read_ahead", lambda *a: asked.append(len(a[3])) or real(*a))
    released = screen_folder(folder, PARAMS)
    assert asked and _essentials(released) == _essentials(kept)


def test_a_released_rescan_reads_ahead_only_the_pairs_it_will_verify(folder, tmp_path, monkeypatch) -> None:
    from neardup_gui.core import pipeline
    from neardup_gui.tasks import screen as screen_task

    monkeypatch.setattr(screen_task, "RELEASE_TEXTS_CHARS", 0)  # as if past 50 million characters
    real_propose = pipeline.propose

    def propose(prepared, params, progress, meanwhile=None, earlier=None, in_scope=None):
        # However fast the containment index is on a folder this small, read ahead over every pair.
        proposals = real_propose(prepared, params, progress, earlier=earlier, in_scope=in_scope)
        if meanwhile is not None:
            meanwhile(set(proposals.all_pairs()), lambda: False, proposals)
        return proposals

    monkeypatch.setattr(pipeline, "propose", propose)
    out = tmp_path / "ws"
    asked: list[int] = []
    real = pipeline._read_ahead
    monkeypatch.setattr(pipeline, "_read_ahead", lambda *a, **k: asked.append(len(a[3])) or real(*a, **k))
    screen_folder(folder, PARAMS, out_dir=out, with_normalized=False)  # normalized/ would hold every text
    changed = folder / "b" / "002-edit.txt"
    changed.write_text(changed.read_text(encoding="utf-8") + "补", encoding="utf-8")
    _settle()
    again, opened = _opened_during(lambda: screen_folder(folder, PARAMS, out_dir=out, with_normalized=False), folder)
    assert asked == [len(again.candidates)] * 2  # every pair went to the reading ahead
    fresh = screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    assert _essentials(again) == _essentials(fresh)
    assert again.run.counts["pairs_from_previous_run"] == len(again.candidates) - 1
    # Opened: the changed file, to be read and checked after the run, and its partner, whose
    # pair is verified again. None of the files whose pairs were taken over.
    by_id = again.documents_by_id
    partner = {by_id[d].path for c in again.candidates if "b/002-edit.txt" in (by_id[c.left].path, by_id[c.right].path)
               for d in (c.left, c.right)}  # fmt: skip
    assert partner == {"a/002.txt", "b/002-edit.txt"}
    assert opened == sorted(str(folder / p) for p in partner)


@pytest.mark.parametrize("slice_bytes", [7, 1 << 20])
def test_a_rescan_links_the_unchanged_documents_normalized_files_and_rewrites_the_changed_one(
    folder: Path, tmp_path: Path, monkeypatch, slice_bytes: int
) -> None:
    """The last manifest.csv (Chinese paths: multi-byte characters across the decoding slices when
    they are 7 bytes) tells which normalized/ files still hold their document's text."""
    from neardup_gui.io import outputs as outputs_mod

    monkeypatch.setattr(outputs_mod, "_DECODE_SLICE", slice_bytes)
    out = tmp_path / "ws"
    first = screen_folder(folder, PARAMS, out_dir=out)
    normalized = out / "normalized"
    inodes = {p.name: p.stat().st_ino for p in normalized.glob("*.txt")}
    assert len(inodes) >= 40
    changed = next(d for d in first.documents if d.usable and "/a/" in f"/{d.path}")
    target = folder / changed.path
    target.write_text(target.read_text(encoding="utf-8") + "补充一句新的说明。", encoding="utf-8")
    _settle()
    again = screen_folder(folder, PARAMS, out_dir=out)
    after = {p.name: p.stat().st_ino for p in normalized.glob("*.txt")}
    assert set(after) == set(inodes)
    moved = {name for name in after if after[name] != inodes[name]}
    assert moved == {f"{changed.doc_id}.txt"}  # every other file linked, not written again
    assert (normalized / f"{changed.doc_id}.txt").read_text(encoding="utf-8").endswith("补充一句新的说明")
    assert again.run.counts.get("files_ok") == first.run.counts.get("files_ok")


def _normalized_files(out: Path) -> dict[str, tuple[int, bytes]]:
    return {p.name: (p.stat().st_ino, p.read_bytes()) for p in (out / "normalized").glob("*.txt")}


def _prelinked_left(out: Path) -> list[str]:
    from neardup_gui.tasks.screen import _ASIDE_PREFIX, _Prelink

    return [p.name for p in (out / "cache").iterdir() if p.name.startswith((_Prelink.PREFIX, _ASIDE_PREFIX))]


def _prelinked_left_once_removed(out: Path) -> list[str]:
    """``_prelinked_left`` once the helper process has had time to remove the previous
    ``normalized/`` (it does so after the screen has returned)."""
    deadline = time.monotonic() + 60
    while _prelinked_left(out) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _prelinked_left(out)


def _given_to_helper(monkeypatch) -> list[tuple[str, str]]:
    """``(function name, its first argument)`` of each call a helper process is given from now on."""
    from neardup_gui.core.helper import VerifyHelper

    given: list[tuple[str, str]] = []
    call = VerifyHelper.call

    def spied(helper, fn, *args):
        given.append((fn.__name__, str(args[0])))
        return call(helper, fn, *args)

    monkeypatch.setattr(VerifyHelper, "call", spied)
    return given


def _screened_for_a_helper_rescan(folder: Path, tmp_path: Path, monkeypatch):
    """A first screen into ``tmp_path/ws`` of a folder small enough that, with the threshold lowered
    here, its rescans start their light helper process (which links normalized/ ahead)."""
    from neardup_gui.tasks import screen as screen_mod

    monkeypatch.setattr(corpus_mod, "CHECK_SHARE_MIN", 10)
    monkeypatch.setattr(screen_mod, "PRELINK_MIN", 10)
    out = tmp_path / "ws"
    return out, screen_folder(folder, PARAMS, out_dir=out, verify_helper=True)


def test_a_rescans_helper_process_links_the_normalized_files_ahead_with_the_same_outputs(
    folder: Path, tmp_path: Path, monkeypatch
) -> None:
    from neardup_gui.io import outputs as outputs_mod
    from neardup_gui.tasks import screen as screen_mod

    out, first = _screened_for_a_helper_rescan(folder, tmp_path, monkeypatch)
    before = _normalized_files(out)
    changed = next(d for d in first.documents if d.usable and d.path.startswith("a/"))
    target = folder / changed.path
    target.write_text(target.read_text(encoding="utf-8") + "补充一句新的说明。", encoding="utf-8")
    for stale in (f"{screen_mod._Prelink.PREFIX}1-1", f"{screen_mod._ASIDE_PREFIX}.normalized.old-r0"):
        (out / "cache" / stale).mkdir()  # left by a screen, or a helper process, that stopped
        (out / "cache" / stale / "x.txt").write_text("旧", encoding="utf-8")
    _settle()
    taken: list[list[str] | None] = []
    real = screen_mod._Prelink.take
    monkeypatch.setattr(screen_mod._Prelink, "take", lambda self, into: taken.append(real(self, into)) or taken[-1])
    given = _given_to_helper(monkeypatch)
    again = screen_folder(folder, PARAMS, out_dir=out, verify_helper=True)
    assert len(taken) == 1 and sorted(taken[0]) == sorted(n[:-4] for n in before if n != f"{changed.doc_id}.txt")
    # The previous normalized/ is moved into cache/ (out of reach of the settling that opening
    # the session does), then removed by the helper process, not here.
    assert [n for n, a in given if n == outputs_mod.remove_folder_aside.__name__ and ".normalized.old" in a]
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]
    _prelinked_left_once_removed(out)
    after = _normalized_files(out)
    assert {n for n in after if after[n][0] != before[n][0]} == {f"{changed.doc_id}.txt"}  # the rest linked
    fresh = screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    made_afresh = _normalized_files(tmp_path / "fresh")
    assert {n: b for n, (_, b) in after.items()} == {n: b for n, (_, b) in made_afresh.items()}
    assert (out / "manifest.csv").read_bytes() == (tmp_path / "fresh" / "manifest.csv").read_bytes()
    assert again.run.counts["files_ok"] == fresh.run.counts["files_ok"]
    assert _prelinked_left(out) == []  # its own moved into the outputs, the stale one removed


def test_while_the_helper_still_links_the_check_after_the_run_is_done_here(
    folder: Path, tmp_path: Path, monkeypatch
) -> None:
    # The helper runs one job at a time: a share of the check queued behind the links would wait.
    from neardup_gui.tasks import screen as screen_mod

    out, _ = _screened_for_a_helper_rescan(folder, tmp_path, monkeypatch)
    given = _given_to_helper(monkeypatch)
    monkeypatch.setattr(screen_mod._Prelink, "done", lambda self: False)
    target = folder / "a" / "011.txt"
    target.write_text(target.read_text(encoding="utf-8") + "补充。", encoding="utf-8")
    again = screen_folder(folder, PARAMS, out_dir=out, verify_helper=True)
    names = [name for name, _ in given]
    assert "prelink_normalized" in names and "_stamps_moved" not in names
    assert again.run.integrity == "unchanged" and again.run.counts["unchanged_files_not_read"] == 54


def test_linked_files_that_are_gone_by_the_end_of_the_run_are_made_there_and_then(
    folder: Path, tmp_path: Path, monkeypatch
) -> None:
    from neardup_gui.io import outputs as outputs_mod
    from neardup_gui.tasks import screen as screen_mod

    out, _ = _screened_for_a_helper_rescan(folder, tmp_path, monkeypatch)
    before = _normalized_files(out)
    real = screen_mod._Prelink.take

    def cleared_meanwhile(self, into):  # as if another screen into this workspace had cleared it
        self._future.result()
        outputs_mod.remove_folder(self.path)
        return real(self, into)

    monkeypatch.setattr(screen_mod._Prelink, "take", cleared_meanwhile)
    screen_folder(folder, PARAMS, out_dir=out, verify_helper=True)
    after = _normalized_files(out)
    assert {n: b for n, (_, b) in after.items()} == {n: b for n, (_, b) in before.items()}
    assert all(after[n][0] == before[n][0] for n in after)  # linked at the end instead
    assert _prelinked_left_once_removed(out) == []


def test_a_screen_cancelled_before_its_outputs_leaves_no_folder_linked_ahead(
    folder: Path, tmp_path: Path, monkeypatch
) -> None:
    from neardup_gui.core.progress import Cancelled

    class StopAtWrite:
        def report(self, stage: str, done: int, total: int) -> None:
            self.stage = stage

        def check(self) -> None:
            if getattr(self, "stage", "") == "write":
                raise Cancelled()

    out, _ = _screened_for_a_helper_rescan(folder, tmp_path, monkeypatch)
    before = _normalized_files(out)
    with pytest.raises(Cancelled):
        screen_folder(folder, PARAMS, out_dir=out, verify_helper=True, progress=StopAtWrite())
    assert _prelinked_left(out) == [] and _normalized_files(out) == before


def test_normalized_files_linked_ahead_are_completed_and_stray_ones_removed(tmp_path: Path) -> None:
    from neardup_gui.core.records import NormalizeOptions
    from neardup_gui.io.outputs import write_normalized

    folder = tmp_path / "n"
    folder.mkdir()
    for name in ("d1", "gone"):
        (folder / f"{name}.txt").write_text(f"{name} linked", encoding="utf-8")
    texts = {"d1": "不应再写", "d2": "第二篇ＡＢＣ"}
    write_normalized(folder, texts, ["d1", "d2"], NormalizeOptions(), linked=["d1", "gone"])
    assert sorted(p.name for p in folder.iterdir()) == ["d1.txt", "d2.txt"]
    assert (folder / "d1.txt").read_text(encoding="utf-8") == "d1 linked"  # linked: not written again
    assert (folder / "d2.txt").read_text(encoding="utf-8") == "第二篇abc"


@pytest.mark.parametrize("damage", ["rows", "header"])
def test_a_damaged_last_manifest_only_means_normalized_files_written_afresh(
    folder: Path, tmp_path: Path, damage: str
) -> None:
    """Rows of the last manifest.csv that are cut short or name another SHA-256 do not vouch for
    their normalized/ files (written again); without its sha256 column none does. The screen goes on."""
    import csv
    import io

    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    normalized = out / "normalized"
    inodes = {p.name: p.stat().st_ino for p in normalized.glob("*.txt")}
    contents = {p.name: p.read_bytes() for p in normalized.glob("*.txt")}
    manifest = out / "manifest.csv"
    rows = list(csv.reader(io.StringIO(manifest.read_text(encoding="utf-8-sig"), newline="")))
    header = rows[0]
    at = {name: header.index(name) for name in ("doc_id", "path", "sha256")}
    listed = [r for r in rows[1:] if f"{r[at['doc_id']]}.txt" in inodes]
    short, wrong = listed[0], listed[1]
    if damage == "rows":
        wrong[at["sha256"]] = "0" * 64
        rows[rows.index(short)] = short[: at["sha256"]]  # cut before its SHA-256
        expect_rewritten = {f"{short[at['doc_id']]}.txt", f"{wrong[at['doc_id']]}.txt"}
    else:
        header[at["sha256"]] = "checksum"
        expect_rewritten = set(inodes)
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows(rows)
    manifest.write_text(buffer.getvalue(), encoding="utf-8-sig")

    again = screen_folder(folder, PARAMS, out_dir=out)
    after = {p.name: p.stat().st_ino for p in normalized.glob("*.txt")}
    assert set(after) == set(inodes) and again.run.counts.get("files_ok", 0) >= 40
    assert {name for name in after if after[name] != inodes[name]} == expect_rewritten
    assert {p.name: p.read_bytes() for p in normalized.glob("*.txt")} == contents  # the same texts


def test_letting_the_texts_go_keeps_those_extracted_from_word_and_pdf_files(tmp_path: Path) -> None:
    import io as _io

    import docx

    source = tmp_path / "src"
    source.mkdir()
    (source / "plain.txt").write_text("纯文本稿件的正文。" * 30, encoding="utf-8")
    document = docx.Document()
    document.add_paragraph("一份Word稿件的正文。" * 30)
    buffer = _io.BytesIO()
    document.save(buffer)
    (source / "word.docx").write_bytes(buffer.getvalue())
    scanned = scan_folder(source, include=("*.txt", "*.docx"))
    texts = scanned.texts
    by_path = {d.path: d.doc_id for d in scanned.usable()}
    word = texts[by_path["word.docx"]]
    texts.forget()
    assert texts.unread == 1  # the plain text only: extracting a file again costs far more than reading it
    for path in ("plain.txt", "word.docx"):
        (source / path).unlink()  # neither can be read again now
    assert texts[by_path["word.docx"]] == word
    assert texts.lenient()[by_path["plain.txt"]] == ""  # gone: read again when asked, and it is not there
    # Within a budget: past it an extracted text is let go too (a folder of long PDFs would fill memory).
    (source / "word.docx").write_bytes(buffer.getvalue())
    again = scan_folder(source, include=("*.txt", "*.docx")).texts
    again.forget(keep_extracted=len(word) - 1)
    assert again.unread == 1 and again[by_path["word.docx"]] == word  # read (extracted) again, from the file
