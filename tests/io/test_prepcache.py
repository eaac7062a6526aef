"""Incremental rescans: the workspace's prepare cache, on real folders and real files."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from neardup_gui.cli import main
from neardup_gui.core.records import ScreenParams
from neardup_gui.io.prepcache import CACHE_FILE, load_cache, save_cache
from neardup_gui.tasks import screen_folder

PARAMS = ScreenParams(k=5)


def _text(rng: random.Random, n: int) -> str:
    return "".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(n)) + "。"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """60 articles in two folders: copies, light edits, an excerpt, a tiny note and an empty file."""
    rng = random.Random(8)
    src = tmp_path / "稿件"
    for sub in ("a", "b"):
        (src / sub).mkdir(parents=True)
    bodies = [_text(rng, rng.randrange(200, 700)) for _ in range(50)]
    for i, body in enumerate(bodies):
        (src / "a" / f"{i:03d}.txt").write_text(body, encoding="utf-8")
    for i in range(0, 30, 3):
        edited = list(bodies[i])
        for _ in range(3):
            edited[rng.randrange(len(edited) - 1)] = "改"
        (src / "b" / f"{i:03d}-copy.txt").write_bytes(bodies[i].encode("gb18030"))
        (src / "b" / f"{i:03d}-edit.txt").write_text("".join(edited), encoding="utf-8")
    (src / "b" / "excerpt.txt").write_text(bodies[40][50:190], encoding="utf-8")
    (src / "b" / "tiny.txt").write_text("短", encoding="utf-8")
    (src / "b" / "empty.txt").write_bytes(b"")
    return src


def _parts(workspace: Path) -> list[str]:
    """The parts of entries the workspace's cache names, in order."""
    import json

    with np.load(workspace / CACHE_FILE) as z:
        return [name for name, _entries in json.loads(str(z["parts"]))]


def _essentials(outcome) -> list[tuple]:
    return [
        (c.left, c.right, c.methods, round(c.jaccard, 12), c.flags, c.segments, c.evidence)
        for c in outcome.candidates
    ]


def test_a_rescan_takes_unchanged_files_from_the_cache_and_writes_the_same_outputs(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    first = screen_folder(folder, PARAMS, out_dir=out)
    manifest, candidates = (out / "manifest.csv").read_bytes(), (out / "candidates.csv").read_bytes()
    assert (out / CACHE_FILE).is_file() and first.run.counts["prepared_from_cache"] == 0
    second = screen_folder(folder, PARAMS, out_dir=out)
    assert second.run.counts["prepared_from_cache"] == second.run.counts["files_ok"] > 60
    assert (out / "manifest.csv").read_bytes() == manifest
    assert (out / "candidates.csv").read_bytes() == candidates
    assert _essentials(second) == _essentials(first) and len(first.candidates) >= 20


def test_after_one_file_changes_only_it_is_prepared_again_and_results_match_a_fresh_screen(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    changed = folder / "a" / "006.txt"
    changed.write_text(changed.read_text(encoding="utf-8")[:-40] + "文末新增一句话。", encoding="utf-8")
    again = screen_folder(folder, PARAMS, out_dir=out)
    fresh = screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    assert again.run.counts["prepared_from_cache"] == again.run.counts["files_ok"] - 1
    assert _essentials(again) == _essentials(fresh)
    assert not (tmp_path / "fresh" / "cache").exists()


def test_a_damaged_cache_is_ignored_and_replaced(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    first = screen_folder(folder, PARAMS, out_dir=out)
    path = out / CACHE_FILE
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])  # torn by a crash or a full disk
    assert load_cache(out) is None
    again = screen_folder(folder, PARAMS, out_dir=out)
    assert again.run.counts["prepared_from_cache"] == 0
    assert _essentials(again) == _essentials(first)
    assert load_cache(out) is not None


def test_the_cache_round_trips_every_entry(folder, tmp_path) -> None:
    from neardup_gui.core.pipeline import screen
    from neardup_gui.io.corpus import scan_folder

    corpus = scan_folder(folder)
    cache = screen(corpus.documents, corpus.texts, PARAMS, keep_cache=True).cache
    assert cache is not None and cache.no_shingles
    save_cache(tmp_path / "ws", cache)
    back = load_cache(tmp_path / "ws")
    assert back is not None
    assert (back.key, back.shas, back.digests, back.no_shingles) == (cache.key, cache.shas, cache.digests, cache.no_shingles)
    assert np.array_equal(back.signatures, cache.signatures) and np.array_equal(back.chars, cache.chars)
    assert np.array_equal(back.boiler, cache.boiler)
    assert all(np.array_equal(a, b) for a, b in zip(back.samples, cache.samples))
    assert all(np.array_equal(a, b) for a, b in zip(back.hits, cache.hits))
    memo, saved = back.containment, cache.containment
    assert memo is not None and saved is not None and len(saved.pairs) > 0
    assert (memo.key, memo.digests, memo.ignored) == (saved.key, saved.digests, saved.ignored)
    assert memo.pairs.tolist() == saved.pairs.tolist() and memo.usable.tolist() == saved.usable.tolist()
    assert all(np.array_equal(a, b) for a, b in zip(memo.samples, saved.samples))


def test_a_rescan_brings_the_containment_index_up_to_date_with_a_fresh_screens_pairs(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    first = screen_folder(folder, PARAMS, out_dir=out)
    assert first.run.counts["containment_index_updated"] == 0  # built
    body = (folder / "a" / "020.txt").read_text(encoding="utf-8")
    (folder / "b" / "new-excerpt.txt").write_text(body[30:200], encoding="utf-8")  # a new contained pair
    (folder / "b" / "excerpt.txt").unlink()  # and one gone
    again = screen_folder(folder, PARAMS, out_dir=out)
    fresh = screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    assert again.run.counts["containment_index_updated"] == 1
    assert _essentials(again) == _essentials(fresh)
    path = {d.doc_id: Path(d.path).name for d in again.documents}
    pairs = {(path[c.left], path[c.right]) for c in again.candidates if "containment" in c.methods}
    assert ("020.txt", "new-excerpt.txt") in pairs
    assert not any("excerpt.txt" in pair for pair in pairs)


def test_a_containment_memo_that_does_not_fit_its_cache_is_dropped_not_the_cache(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    path = out / CACHE_FILE
    with np.load(path) as z:
        arrays = {name: z[name] for name in z.files}
    arrays["ci_pairs"] = arrays["ci_pairs"] + 10_000  # rows past its documents
    with path.open("wb") as fh:
        np.savez(fh, **arrays)
    back = load_cache(out)
    assert back is not None and back.containment is None and len(back.shas) > 60
    again = screen_folder(folder, PARAMS, out_dir=out)
    assert again.run.counts["prepared_from_cache"] > 60 and again.run.counts["containment_index_updated"] == 0


def test_cli_says_how_much_came_from_the_cache_and_no_cache_keeps_none(folder, tmp_path, capsys) -> None:
    out = tmp_path / "ws"
    assert main(["screen", str(folder), "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    assert main(["screen", str(folder), "--out", str(out), "-q"]) == 0
    said = capsys.readouterr().out
    assert "documents unchanged since the last screen here" in said
    bare = tmp_path / "bare"
    assert main(["screen", str(folder), "--out", str(bare), "-q", "--no-cache"]) == 0
    assert not (bare / "cache").exists()
    shutil.rmtree(bare)


def test_a_rescan_takes_over_the_pairs_of_unchanged_files_and_verifies_the_rest(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    first = screen_folder(folder, PARAMS.with_(all_scores="never"), out_dir=out)
    assert first.run.counts["pairs_from_previous_run"] == 0
    changed = folder / "b" / "003-edit.txt"
    changed.write_text(changed.read_text(encoding="utf-8").replace("改", "变", 1), encoding="utf-8")
    (folder / "a" / "000.txt").rename(folder / "a" / "zzz-renamed.txt")  # same bytes, new path and id
    again = screen_folder(folder, PARAMS.with_(all_scores="never"), out_dir=out)
    fresh = screen_folder(folder, PARAMS.with_(all_scores="never"), out_dir=tmp_path / "fresh", use_cache=False)
    taken = again.run.counts["pairs_from_previous_run"]
    assert 0 < taken < len(again.candidates)  # the changed file's pairs were verified again
    assert _essentials(again) == _essentials(fresh)
    assert (out / "candidates.csv").read_bytes() == (tmp_path / "fresh" / "candidates.csv").read_bytes()


def test_a_rescan_does_not_verify_again_the_pairs_the_last_screen_rejected(tmp_path) -> None:
    from neardup_gui.io.prepcache import load_pairs

    # Pairs sharing a fifth of their shingles: a permissive banding proposes most of them, and
    # verification rejects them (Jaccard ~0.2 < 0.5, containment ~0.33).
    rng = random.Random(12)
    src = tmp_path / "src"
    src.mkdir()
    for i in range(8):
        shared = _text(rng, 150)
        (src / f"{i}-x.txt").write_text(shared + _text(rng, 300), encoding="utf-8")
        (src / f"{i}-y.txt").write_text(shared + _text(rng, 300), encoding="utf-8")
    (src / "copy-a.txt").write_text(_text(rng, 400), encoding="utf-8")
    shutil.copy(src / "copy-a.txt", src / "copy-b.txt")
    params = PARAMS.with_(all_scores="never", bands=64, rows=2)
    out = tmp_path / "ws"
    first = screen_folder(src, params, out_dir=out)
    rejected = first.run.counts["rejected_by_verification"]
    assert rejected >= 5 and first.run.counts["rejections_from_previous_run"] == 0
    assert len(load_pairs(out).rejected) == rejected
    # One document of a rejected pair changes (its pair is scored again), and one that pairs with none.
    (src / "0-x.txt").write_text((src / "0-x.txt").read_text(encoding="utf-8") + "补", encoding="utf-8")
    (src / "extra.txt").write_text(_text(rng, 300), encoding="utf-8")
    again = screen_folder(src, params, out_dir=out)
    fresh = screen_folder(src, params, out_dir=tmp_path / "fresh", use_cache=False)
    assert again.run.counts["rejected_by_verification"] == fresh.run.counts["rejected_by_verification"]
    assert again.run.counts["rejections_from_previous_run"] == fresh.run.counts["rejected_by_verification"] - 1
    assert again.run.counts["pairs_from_previous_run"] == 1  # the copies
    assert _essentials(again) == _essentials(fresh)
    assert (out / "candidates.csv").read_bytes() == (tmp_path / "fresh" / "candidates.csv").read_bytes()


def test_outputs_made_while_the_containment_index_is_built_are_the_ones_written(folder, tmp_path, monkeypatch) -> None:
    import csv
    import time

    from neardup_gui.io import corpus as corpus_mod
    from neardup_gui.io.session import ReviewSession
    from neardup_gui.tasks import screen as screen_task

    from engine_kit import HoldContainment

    progress = HoldContainment()  # the index waits until the outputs are made
    made: list[tuple] = []
    real = screen_task._OutputsAhead.__call__

    def call(self, documents) -> None:
        real(self, documents)
        made.append(documents)
        progress.released.set()

    monkeypatch.setattr(screen_task._OutputsAhead, "__call__", call)
    monkeypatch.setattr(corpus_mod, "SETTLE_NS", 50_000_000)  # files this new are read again next time
    time.sleep(0.15)
    out = tmp_path / "ws"
    outcome = screen_folder(folder, PARAMS, out_dir=out, progress=progress)
    assert len(made) == 1 and made[0] is outcome.documents  # made once, from the final manifest
    assert any(d.status == "no_shingles" for d in made[0])  # statuses as the result has them
    with open(out / "manifest.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["doc_id"], r["status"]) for r in rows] == [(d.doc_id, d.status) for d in outcome.documents]
    with ReviewSession.open(out / "session.sqlite", read_only=True) as session:
        assert tuple(session.documents()) == outcome.documents
    again = screen_folder(folder, PARAMS, out_dir=out)  # the file rows made ahead: unchanged files not read
    assert again.run.counts["unchanged_files_not_read"] == sum(1 for d in outcome.documents if d.sha256) > 60


def test_pairs_are_verified_again_when_the_parameters_change(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS.with_(all_scores="never"), out_dir=out)
    again = screen_folder(folder, PARAMS.with_(all_scores="never", containment_threshold=0.7), out_dir=out)
    fresh = screen_folder(folder, PARAMS.with_(all_scores="never", containment_threshold=0.7), out_dir=tmp_path / "f", use_cache=False)
    assert again.run.counts["pairs_from_previous_run"] == 0
    assert _essentials(again) == _essentials(fresh)


def test_a_cache_made_by_other_program_or_library_versions_is_not_used(folder, tmp_path) -> None:
    from neardup_gui.core.pipeline import screen
    from neardup_gui.io.corpus import scan_folder

    corpus = scan_folder(folder)
    cache = screen(corpus.documents, corpus.texts, PARAMS, keep_cache=True).cache
    made_with = {"neardup_gui": "0.9", "readability-lxml": "0.8.1"}
    save_cache(tmp_path / "ws", cache, None, made_with)
    assert load_cache(tmp_path / "ws", made_with) is not None
    assert load_cache(tmp_path / "ws", {**made_with, "readability-lxml": "0.8.4"}) is None  # another extractor
    out = tmp_path / "ws2"
    screen_folder(folder, PARAMS, out_dir=out)
    assert screen_folder(folder, PARAMS, out_dir=out).run.counts["prepared_from_cache"] > 0  # same versions


def test_file_rows_round_trip_past_one_conversion_slice(folder, tmp_path) -> None:
    from neardup_gui.core.pipeline import screen
    from neardup_gui.io.corpus import KnownFile, scan_folder
    from neardup_gui.io.prepcache import load_known

    corpus = scan_folder(folder)
    cache = screen(corpus.documents, corpus.texts, PARAMS, keep_cache=True).cache
    assert cache is not None
    rng = random.Random(4)
    known = {
        f"稿件/{i:05d}\udcff.txt" if i % 997 == 0 else f"a/{i:05d}.txt": KnownFile(
            (i * 3, rng.randrange(2**62), rng.randrange(2**62), rng.randrange(2**63), 2049),  # size first
            ("ok", "empty", "binary")[i % 3], "empty file (0 bytes)" if i % 3 == 1 else "", i * 3, 1.7e9 + i / 7,
            f"{i:064x}", ("utf-8", "gb18030", "")[i % 3], i * 2, "text",
        )
        for i in range(20_000)  # past two slices of 8,192 rows
    }
    # Names may hold a line break, a comma, a quote (the paths are stored NUL-separated).
    odd = KnownFile((1, 2, 3, 4, 5), "ok", "", 1, 1.7e9, "f" * 64, "utf-8", 1, "text")
    known.update({"a/行\n换.txt": odd, 'a/逗,号"引.txt': odd, "a/\udcfe\udcff.txt": odd})
    save_cache(tmp_path / "ws", cache, known=known, read_key="k")
    assert load_known(tmp_path / "ws", None, "k") == known
    assert load_known(tmp_path / "ws", None, "other") is None
    save_cache(tmp_path / "empty", cache, known={}, read_key="k")  # no file rows at all
    assert load_known(tmp_path / "empty", None, "k") == {}


def test_a_screen_whose_outputs_cannot_be_written_keeps_the_previous_cache(folder, tmp_path) -> None:
    from neardup_gui.io.session import SESSION_FILENAME, ReviewSession, SessionInUseError

    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    before = (out / CACHE_FILE).read_bytes()
    changed = folder / "a" / "006.txt"
    changed.write_text(changed.read_text(encoding="utf-8") + "文末新增一句话。", encoding="utf-8")
    # The cache is written on a thread while the outputs are; here the outputs fail (the session is
    # open elsewhere), so the new cache must not replace the one that matches the outputs on disk.
    with ReviewSession.open(out / SESSION_FILENAME):
        with pytest.raises(SessionInUseError):
            screen_folder(folder, PARAMS, out_dir=out)
    assert (out / CACHE_FILE).read_bytes() == before
    # nothing staged is left: the cache and the parts of entries it names
    assert sorted(p.name for p in (out / CACHE_FILE).parent.iterdir()) == sorted([CACHE_FILE.name, *_parts(out)])
    again = screen_folder(folder, PARAMS, out_dir=out)
    assert again.run.counts["prepared_from_cache"] == again.run.counts["files_ok"] - 1


def test_staged_cache_files_left_by_a_killed_screen_are_removed_by_the_next(folder, tmp_path) -> None:
    import os
    import time

    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    cache_dir = (out / CACHE_FILE).parent
    killed = cache_dir / ".prepare-k1ll3d.npz.tmp"
    killed.write_bytes(b"half a cache")
    an_hour_ago = time.time() - 3600
    os.utime(killed, (an_hour_ago, an_hour_ago))
    staging = cache_dir / ".prepare-n0wrun.npz.tmp"  # another screen's, being written right now
    staging.write_bytes(b"a cache being written")
    keep = cache_dir / "notes.txt"  # not ours: never touched
    keep.write_text("the editor's own file", encoding="utf-8")
    screen_folder(folder, PARAMS, out_dir=out)
    assert not killed.exists()
    assert staging.exists() and keep.exists()
    assert load_cache(out) is not None


def test_pairs_taken_over_are_stored_as_read_and_changed_ones_afresh(folder, tmp_path, monkeypatch) -> None:
    from neardup_gui.io import prepcache
    from neardup_gui.io.prepcache import load_pairs

    out = tmp_path / "ws"
    params = PARAMS.with_(all_scores="never")  # pairs are taken over only without TF-IDF scores
    screen_folder(folder, params, out_dir=out)
    with np.load(out / CACHE_FILE) as z:
        before = z["pairs_json"].tobytes()
    encoded: list[object] = []
    real_row = prepcache._candidate_row
    monkeypatch.setattr(prepcache, "_candidate_row", lambda c: encoded.append(c) or real_row(c))
    again = screen_folder(folder, params, out_dir=out)
    assert again.run.counts["pairs_from_previous_run"] == len(again.candidates) > 0
    assert encoded == []  # every pair stored as it was read
    with np.load(out / CACHE_FILE) as z:
        assert z["pairs_json"].tobytes() == before
    (folder / "a" / "000.txt").rename(folder / "a" / "zzz-renamed.txt")  # same bytes, another doc_id
    renamed = screen_folder(folder, params, out_dir=out)
    moved = [c for c in renamed.candidates if "zzz-renamed" in renamed.documents_by_id[c.left].path
             or "zzz-renamed" in renamed.documents_by_id[c.right].path]  # fmt: skip
    assert moved and all(c in encoded for c in moved)  # encoded afresh: their ids changed
    by_id = renamed.documents_by_id
    stored = load_pairs(out)
    assert stored is not None
    assert stored.pairs == {(by_id[c.left].sha256, by_id[c.right].sha256): c for c in renamed.candidates}


def _two_workspaces(folder: Path, tmp_path: Path, params: ScreenParams):  # type: ignore[no-untyped-def]
    """A first screen into a workspace, and a copy of that workspace as it was after it."""
    out, twin = tmp_path / "ws", tmp_path / "twin"
    first = screen_folder(folder, params, out_dir=out)
    shutil.copytree(out, twin)
    return first, out, twin


def test_a_rescan_given_the_result_it_follows_takes_over_those_very_pairs(folder, tmp_path) -> None:
    # The window holds the result it shows: screening again, the pairs taken over are its own
    # candidates, not the stored ones decoded again (~0.2 s and ~40 MB held twice at 100,000 files),
    # with the same results and the same cache written as a rescan reading them back.
    params = PARAMS.with_(all_scores="never")  # pairs are taken over only without TF-IDF scores
    (folder / "a" / "000-same.txt").write_bytes((folder / "a" / "000.txt").read_bytes())  # two pairs, one key
    first, out, twin = _two_workspaces(folder, tmp_path, params)
    again = screen_folder(folder, params, out_dir=out, shown=first)
    read_back = screen_folder(folder, params, out_dir=twin)
    assert again.run.counts["pairs_from_previous_run"] == len(again.candidates) > 10
    shown = {id(c) for c in first.candidates}
    # each pair of two files' contents held once (the copy's pair and the original's: one, the
    # other made from it for its own files)
    by_id = first.documents_by_id
    keys = {(by_id[c.left].sha256, by_id[c.right].sha256) for c in first.candidates}
    assert len(keys) < len(first.candidates)
    assert sum(id(c) in shown for c in again.candidates) == len(keys)
    assert not any(id(c) in shown for c in read_back.candidates)
    assert again.candidates == read_back.candidates and again.documents == read_back.documents
    # and the manifest rows are the result's rows, but for the note too short to compare (its status
    # is the screen's, set on a row of its own each time)
    rows = {id(d) for d in first.documents}
    assert [d.path for d in again.documents if id(d) not in rows] == ["b/tiny.txt"]
    assert [d.path for d in read_back.documents if id(d) in rows] == []
    with np.load(out / CACHE_FILE) as mine, np.load(twin / CACHE_FILE) as theirs:
        assert mine["pairs_json"].tobytes() == theirs["pairs_json"].tobytes()


def test_a_rescan_given_the_result_it_follows_verifies_the_pairs_of_changed_files_again(folder, tmp_path) -> None:
    # Files changed since the result shown: their pairs are verified again, the rest taken over from
    # the result; the same outcome and the same files written as a rescan reading the pairs back.
    import time

    params = PARAMS.with_(all_scores="never")
    first, out, twin = _two_workspaces(folder, tmp_path, params)
    time.sleep(0.01)
    edited = folder / "b" / "003-edit.txt"
    edited.write_text(edited.read_text(encoding="utf-8")[:-40] + "补上的一句话。", encoding="utf-8")
    again = screen_folder(folder, params, out_dir=out, shown=first)
    read_back = screen_folder(folder, params, out_dir=twin)
    assert again.candidates == read_back.candidates and again.documents == read_back.documents
    changed_id = next(d.doc_id for d in again.documents if d.path == "b/003-edit.txt")
    redone = [c for c in again.candidates if changed_id in (c.left, c.right)]
    assert redone and again.run.counts["pairs_from_previous_run"] == len(again.candidates) - len(redone)
    shown = {id(c) for c in first.candidates}
    assert not any(id(c) in shown for c in redone)
    assert all(id(c) in shown for c in again.candidates if c not in redone)
    for name in ("manifest.csv", "candidates.csv"):
        assert (out / name).read_bytes() == (twin / name).read_bytes()
    with np.load(out / CACHE_FILE) as mine, np.load(twin / CACHE_FILE) as theirs:
        assert mine["pairs_json"].tobytes() == theirs["pairs_json"].tobytes()


@pytest.mark.parametrize(
    "held", ["an earlier run", "a pair fewer", "a pair more", "the other pick", "another workspace"]
)
def test_pairs_held_that_are_not_those_stored_are_read_back_instead(folder, tmp_path, held) -> None:
    # Only the very screen that wrote the cache, with the same pairs (and of two pairs of the same
    # two files' contents, the one stored), stands in for the stored pairs.
    import dataclasses

    params = PARAMS.with_(all_scores="never")
    (folder / "a" / "000-same.txt").write_bytes((folder / "a" / "000.txt").read_bytes())
    first, out, twin = _two_workspaces(folder, tmp_path, params)
    shown = first
    if held == "an earlier run":
        screen_folder(folder, params, out_dir=out)
        screen_folder(folder, params, out_dir=twin)  # (the twin's cache of a run of its own)
    elif held == "a pair fewer":
        shown = dataclasses.replace(first, candidates=first.candidates[1:])
    elif held == "a pair more":  # two files the screen did not pair
        paired = {d for c in first.candidates for d in (c.left, c.right)}
        alone = sorted((d for d in first.documents if d.usable and d.doc_id not in paired), key=lambda d: d.path)
        left, right = alone[:2]
        extra = dataclasses.replace(first.candidates[0], left=left.doc_id, right=right.doc_id)
        shown = dataclasses.replace(first, candidates=(*first.candidates, extra))
    elif held == "the other pick":  # in reverse order, of the copy's pair and the original's the other is held
        shown = dataclasses.replace(first, candidates=tuple(reversed(first.candidates)))
    else:
        shown = dataclasses.replace(first, out_dir=twin)
    again = screen_folder(folder, params, out_dir=out, shown=shown)
    read_back = screen_folder(folder, params, out_dir=twin)
    held_ids = {id(c) for c in shown.candidates}
    assert not any(id(c) in held_ids for c in again.candidates)
    assert again.candidates == read_back.candidates and again.run.counts["pairs_from_previous_run"] > 10


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_the_pairs_lines_read_a_chunk_at_a_time_are_the_lines_written(folder, tmp_path, monkeypatch, chunk) -> None:
    # The verified pairs are read back in chunks (a line may start in one and end in the next, or
    # a chunk hold only part of a line): the same pairs as split whole, whatever the chunk size.
    from neardup_gui.io import prepcache
    from neardup_gui.io.prepcache import load_pairs

    out = tmp_path / "ws"
    screen_folder(folder, PARAMS.with_(all_scores="never"), out_dir=out)
    with np.load(out / CACHE_FILE) as z:
        whole = z["pairs_json"].tobytes().split(b"\n")
    assert len(whole) > 3 and max(map(len, whole)) > 64
    monkeypatch.setattr(prepcache, "_LINES_CHUNK", chunk)
    assert list(prepcache._lines(np.frombuffer(b"\n".join(whole), dtype=np.uint8))) == whole
    stored = load_pairs(out)
    assert stored is not None and list(stored.lines.values()) == whole[1:]
    assert list(prepcache._lines(np.frombuffer(b"one\n\nthree\n", dtype=np.uint8))) == [b"one", b"", b"three", b""]


@pytest.mark.parametrize("per_write", [2, 4096])
def test_arrays_written_part_by_part_read_back_as_numpy_savez_writes_them(tmp_path, monkeypatch, per_write) -> None:
    # The cache's samples and hits go into the file a few thousand documents at a time (no joined copy
    # of all of them in memory); np.load must find exactly what np.savez of the joined arrays gives,
    # empty parts and all, whether the parts fill one write or several.
    from neardup_gui.io import prepcache
    from neardup_gui.io.prepcache import _joined, stage_arrays

    monkeypatch.setattr(prepcache, "_WRITE_PARTS", per_write)

    rng = np.random.default_rng(5)
    samples = [rng.integers(0, 2**63, size=n, dtype=np.uint64) for n in (3, 0, 7, 1, 0)]
    hits = [np.array([2, 9], dtype=np.int32), np.zeros(0, dtype=np.int32)]
    plain = {"signatures": rng.integers(0, 2**32, size=(5, 4), dtype=np.uint32), "key": np.array("k5"),
             "shas": np.array([b"a" * 64, b"b" * 64], dtype="S64")}  # fmt: skip
    staged = stage_arrays(tmp_path / "ws", {**plain, "sample_values": _joined(samples, np.uint64),
                                            "hit_values": _joined(hits, np.int32), "none": _joined([], np.int32)})
    expected = {**plain, "sample_values": np.concatenate(samples), "hit_values": np.concatenate(hits),
                "none": np.zeros(0, np.int32)}  # fmt: skip
    np.savez(tmp_path / "reference.npz", **expected)
    with np.load(staged) as ours, np.load(tmp_path / "reference.npz") as reference:
        assert sorted(ours.files) == sorted(reference.files) == sorted(expected)
        for name in expected:
            assert ours[name].dtype == reference[name].dtype and ours[name].shape == reference[name].shape, name
            assert np.array_equal(ours[name], reference[name]), name


@pytest.mark.parametrize("size", [1, 3, 4, 8192])
def test_stored_paths_come_back_whole_when_read_a_slice_at_a_time(size: int) -> None:
    # (read a slice of paths per call so that the cache thread never holds the GIL long)
    from neardup_gui.io.prepcache import _path_bytes, _paths

    paths = ["a.txt", "来稿/第1篇.txt", "gbk_\udcd6\udcd0.txt", "x/y/z.md", "𠀀.txt", "b c,d.txt", "e.txt", "f.txt"]
    for n in range(len(paths) + 1):
        assert _paths(_path_bytes(paths[:n]), size) == paths[:n]


def _edit(path: Path, tail: str) -> None:
    path.write_text(path.read_text(encoding="utf-8")[:-40] + tail, encoding="utf-8")


def test_a_rescan_writes_only_the_changed_files_entries_and_keeps_the_earlier_part(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    [first] = _parts(out)
    part = out / "cache" / first
    written, stamp = part.read_bytes(), part.stat().st_mtime_ns
    entries = len(load_cache(out))
    _edit(folder / "a" / "006.txt", "文末新增一句话。")
    again = screen_folder(folder, PARAMS, out_dir=out)
    assert again.run.counts["prepared_from_cache"] == again.run.counts["files_ok"] - 1
    names = _parts(out)
    assert names[0] == first and len(names) == 2
    assert part.read_bytes() == written and part.stat().st_mtime_ns == stamp  # never written again
    with np.load(out / "cache" / names[1]) as z:
        assert z["shas"].size == 1  # the edited file's entry only
    cache = load_cache(out)
    assert len(cache) == entries + 1  # the edited file's old entry stays in the first part
    assert all(cache.position(d.sha256) is not None for d in again.documents if d.usable and d.chars > 5)
    fresh = screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    third = screen_folder(folder, PARAMS, out_dir=out)  # read from both parts
    assert third.run.counts["prepared_from_cache"] == third.run.counts["files_ok"]
    assert _essentials(third) == _essentials(again) == _essentials(fresh)
    assert _parts(out) == names  # nothing new to store


def test_a_file_edited_and_restored_is_taken_from_its_earlier_entry(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    target = folder / "a" / "012.txt"
    original = target.read_bytes()
    _edit(target, "临时改动。")
    screen_folder(folder, PARAMS, out_dir=out)
    names = _parts(out)
    target.write_bytes(original)
    restored = screen_folder(folder, PARAMS, out_dir=out)
    assert restored.run.counts["prepared_from_cache"] == restored.run.counts["files_ok"]
    assert _parts(out) == names  # its entry was still in the first part: no part added


def test_the_parts_are_written_again_as_one_past_the_limit_and_the_old_ones_deleted(
    folder, tmp_path, monkeypatch
) -> None:
    from neardup_gui.io import prepcache

    monkeypatch.setattr(prepcache, "MAX_PARTS", 3)
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    seen: list[list[str]] = [_parts(out)]
    for i in range(3):
        _edit(folder / "a" / f"{20 + i:03d}.txt", f"第{i}次修改。")
        screen_folder(folder, PARAMS, out_dir=out)
        seen.append(_parts(out))
    assert [len(names) for names in seen] == [1, 2, 3, 1]
    on_disk = sorted(p.name for p in (out / "cache").iterdir() if p.name.startswith("entries-"))
    assert on_disk == seen[-1]  # the three earlier parts are gone
    last = screen_folder(folder, PARAMS, out_dir=out)
    fresh = screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh")  # a first screen, its cache in one part
    assert _essentials(last) == _essentials(fresh)
    # written as one, the entries are only the current files': the edited files' old ones are dropped
    assert sorted(load_cache(out).shas) == sorted(load_cache(tmp_path / "fresh").shas)


def test_entries_of_many_removed_files_are_dropped_when_the_parts_are_written_again(folder, tmp_path) -> None:
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    names, before = _parts(out), len(load_cache(out))
    for path in sorted((folder / "b").glob("*-copy.txt"))[:6]:
        path.unlink()  # GB18030 copies: files of their own, each an entry
    screen_folder(folder, PARAMS, out_dir=out)
    # 6 of ~70 entries of no file now: under MAX_STALE_SHARE, the part is kept as it is
    assert _parts(out) == names and len(load_cache(out)) == before
    for path in sorted((folder / "a").glob("0[0-1]?.txt")):
        path.unlink()  # 20 more: past the share
    third = screen_folder(folder, PARAMS, out_dir=out)
    assert third.run.counts["prepared_from_cache"] == third.run.counts["files_ok"]  # nothing to prepare
    cache = load_cache(out)
    assert len(_parts(out)) == 1 and _parts(out) != names  # written again as one part
    assert set(cache.shas) == {d.sha256 for d in third.documents if cache.position(d.sha256) is not None}
    assert len(cache) == before - 26
    assert not (out / "cache" / names[0]).exists()


@pytest.mark.parametrize("damage", ["missing", "torn", "foreign name", "another key"])
def test_a_damaged_or_missing_part_makes_the_cache_ignored_never_the_screen(folder, tmp_path, damage) -> None:
    import json

    out = tmp_path / "ws"
    first = screen_folder(folder, PARAMS, out_dir=out)
    _edit(folder / "a" / "006.txt", "文末新增一句话。")
    screen_folder(folder, PARAMS, out_dir=out)
    part = out / "cache" / _parts(out)[1]
    if damage == "missing":
        part.unlink()
    elif damage == "torn":
        part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    else:
        path = out / CACHE_FILE
        with np.load(path) as z:
            arrays = {name: z[name] for name in z.files}
        names = json.loads(str(arrays["parts"]))
        if damage == "foreign name":  # a good part, outside the cache's folder
            shutil.copy(part, out / part.name)
            names[1][0] = f"../{part.name}"
        else:
            arrays["key"] = np.array("k=9;other")
        arrays["parts"] = np.array(json.dumps(names))
        np.savez(path, **arrays)
    assert load_cache(out) is None
    again = screen_folder(folder, PARAMS, out_dir=out)
    assert again.run.counts["prepared_from_cache"] == 0
    fresh = screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    assert _essentials(again) == _essentials(fresh) and len(first.candidates) > 0
    assert load_cache(out) is not None and len(_parts(out)) == 1


def test_a_screen_whose_outputs_fail_after_staging_leaves_no_new_part(folder, tmp_path, monkeypatch) -> None:
    from neardup_gui.tasks import screen as screen_mod

    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    before = sorted(p.name for p in (out / "cache").iterdir())
    real = screen_mod.write_screen_outputs

    def fails_after_staging(*args, alongside=None, **kwargs):
        if alongside is not None:
            alongside()  # the cache (with a new part) is staged, then the outputs fail
        raise OSError("disk full")

    _edit(folder / "a" / "006.txt", "文末新增一句话。")
    monkeypatch.setattr(screen_mod, "write_screen_outputs", fails_after_staging)
    with pytest.raises(OSError, match="disk full"):
        screen_folder(folder, PARAMS, out_dir=out)
    monkeypatch.setattr(screen_mod, "write_screen_outputs", real)
    assert sorted(p.name for p in (out / "cache").iterdir()) == before


def test_a_cache_sharing_the_screens_rows_stores_each_files_own_signature(folder, tmp_path) -> None:
    """Byte-identical copies make the cache's entries a subset of the screen's documents: the cache
    then keeps the screen's MinHash rows and which of them are its entries' (no copy), and what it
    writes, on a first screen and as a rescan's new part, is each file's own row."""
    from neardup_gui.core.pipeline import screen
    from neardup_gui.io.corpus import scan_folder

    for i in (1, 4):  # the same bytes in another folder: one entry, two documents
        shutil.copyfile(folder / "a" / f"{i:03d}.txt", folder / "b" / f"{i:03d}-same.txt")
    corpus = scan_folder(folder)
    made = screen(corpus.documents, corpus.texts, PARAMS, keep_cache=True).cache
    assert made is not None and made.signature_rows is not None and len(made.shas) < made.signature_source.shape[0]
    own = dict(zip(made.shas, made.signatures))
    assert len(own) == len(made.shas)

    def stored_rows_agree(workspace: Path) -> int:
        back = load_cache(workspace)
        assert back is not None and back.signature_rows is None
        assert back.signatures.shape == (len(back.shas), PARAMS.num_perm)
        for sha, row in zip(back.shas, back.signatures):
            assert np.array_equal(row, own[sha]), sha
        return len(back.shas)

    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    assert stored_rows_agree(out) == len(own)
    # A rescan with changed files writes only their entries, a new part, from its own shared rows.
    edited = folder / "b" / "027-edit.txt"  # after the copies: its entry and its row differ in number
    edited.write_text(edited.read_text(encoding="utf-8") + "又一句。", encoding="utf-8")
    shutil.copyfile(folder / "a" / "012.txt", folder / "b" / "012-same.txt")
    corpus = scan_folder(folder)
    made = screen(corpus.documents, corpus.texts, PARAMS, keep_cache=True).cache
    assert made is not None and made.signature_rows is not None
    before = len(own)
    own.update(zip(made.shas, made.signatures))  # (the edited file's old text stays an entry)
    assert len(own) == before + 1
    again = screen_folder(folder, PARAMS, out_dir=out)
    assert again.run.counts["prepared_from_cache"] > 0 and len(_parts(out)) == 2
    assert stored_rows_agree(out) == len(own)


def test_a_screen_that_spends_the_cache_lets_go_of_its_rows_and_finds_the_same_pairs(folder, tmp_path) -> None:
    """A rescan holds the last cache only for which entries its parts hold once the documents are
    prepared: its MinHash rows (51 MB at 100,000 files) go then, and the pairs are the same."""
    from neardup_gui.core.pipeline import screen
    from neardup_gui.io.corpus import scan_folder

    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    edited = folder / "a" / "007.txt"
    edited.write_text(edited.read_text(encoding="utf-8") + "又一句。", encoding="utf-8")
    corpus = scan_folder(folder)
    kept, spent = load_cache(out), load_cache(out)
    assert kept is not None and spent is not None and kept.signatures.shape[0] == len(kept.shas) > 0
    with_rows = screen(corpus.documents, corpus.texts, PARAMS, cache=kept, keep_cache=True)
    without = screen(corpus.documents, corpus.texts, PARAMS, cache=spent, keep_cache=True, spend_cache=True)
    assert kept.signatures.shape[0] == len(kept.shas) and spent.signatures.shape[0] == 0
    assert len(spent.shas) == len(kept.shas)  # what the parts hold is still known
    assert without.counts["prepared_from_cache"] == with_rows.counts["prepared_from_cache"] > 0
    assert _essentials(without) == _essentials(with_rows)
    assert without.cache is not None and np.array_equal(without.cache.signatures, with_rows.cache.signatures)


def test_a_rescans_new_part_holds_its_new_entries_as_the_screen_made_them(folder, tmp_path, monkeypatch) -> None:
    """A rescan writes its new entries from a cache of them alone (``PrepareCache.written_part``,
    made before the check so that the screen's other rows are let go): read back, each is the
    screen's own entry, in value and in place, and the containment memo is the screen's."""
    from neardup_gui.core import prepare
    from neardup_gui.core.pipeline import screen
    from neardup_gui.io.corpus import scan_folder

    monkeypatch.setattr(prepare, "INCREMENTAL_MAX_SHARE", 0.1)  # three files of 71 changed: the cache still used
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    for i, tail in ((6, "文末新增一句话。"), (13, "另有一处改动。"), (21, "第三处改动在此。")):
        _edit(folder / "a" / f"{i:03d}.txt", tail)
    corpus = scan_folder(folder)
    made = screen(corpus.documents, corpus.texts, PARAMS, keep_cache=True, cache=load_cache(out)).cache
    assert made is not None
    screen_folder(folder, PARAMS, out_dir=out)
    names = _parts(out)
    with np.load(out / "cache" / names[1]) as z:
        assert z["shas"].size == 3
    back = load_cache(out)
    assert back is not None and back.key == made.key and np.array_equal(back.boiler, made.boiler)
    at = {sha: i for i, sha in enumerate(back.shas)}
    new = [sha for sha in made.shas if at[sha] >= len(back) - 3]
    assert [at[sha] for sha in new] == list(range(len(back) - 3, len(back)))  # the screen's order
    rows = made.signatures
    for j, sha in enumerate(made.shas):
        i = at[sha]
        assert (back.digests[i], int(back.chars[i])) == (made.digests[j], int(made.chars[j])), sha
        assert np.array_equal(back.signatures[i], rows[j]), sha
        assert np.array_equal(back.samples[i], made.samples[j]) and np.array_equal(back.hits[i], made.hits[j]), sha
    memo, saved = back.containment, made.containment
    assert memo is not None and saved is not None and len(saved.pairs) > 0
    assert (memo.key, memo.digests, memo.ignored) == (saved.key, saved.digests, saved.ignored)
    assert memo.pairs.tolist() == saved.pairs.tolist() and memo.usable.tolist() == saved.usable.tolist()
    assert all(np.array_equal(a, b) for a, b in zip(memo.samples, saved.samples))


def test_a_rescan_lets_go_of_the_screens_minhash_rows_before_the_check(folder, tmp_path, monkeypatch) -> None:
    # At 100,000 files the rows (51 MB) and the last screen's samples (68 MB) were held through the
    # check after the run and the outputs, the stages a window screening again peaked in.
    import weakref

    from neardup_gui.core import prepare
    from neardup_gui.tasks import screen as screen_task

    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    _edit(folder / "a" / "006.txt", "文末新增一句话。")
    rows: list[weakref.ref] = []
    real_assemble, real_check = prepare._assemble, screen_task.check_integrity

    def assemble(*args, **kwargs):  # type: ignore[no-untyped-def]
        made = real_assemble(*args, **kwargs)
        rows.append(weakref.ref(made.signatures))
        return made

    alive: list[bool] = []

    def check(*args, **kwargs):  # type: ignore[no-untyped-def]
        import gc

        gc.collect()
        alive.append(rows[0]() is not None)
        return real_check(*args, **kwargs)

    monkeypatch.setattr(prepare, "_assemble", assemble)
    monkeypatch.setattr(screen_task, "check_integrity", check)
    again = screen_folder(folder, PARAMS, out_dir=out)
    assert again.run.counts["prepared_from_cache"] == again.run.counts["files_ok"] - 1
    assert alive == [False]
    assert len(_parts(out)) == 2  # and the new part was written all the same


def test_a_loaded_caches_minhash_rows_are_read_from_its_parts_when_asked_for(folder, tmp_path, monkeypatch) -> None:
    # Held from loading to preparing, the rows were 51 MB at 100,000 files beside the screen's own
    # (a rescan's peak): they are read from the part files, a few rows at a time, when gathered.
    from neardup_gui.io import prepcache
    from neardup_gui.io.prepcache import StoredRows, StoredRowsChanged

    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    _edit(folder / "a" / "006.txt", "文末新增一句话。")
    screen_folder(folder, PARAMS, out_dir=out)
    assert len(_parts(out)) == 2
    back = load_cache(out)
    assert isinstance(back.signature_source, StoredRows)
    joined = []  # the parts' rows as numpy reads them
    for name in _parts(out):
        with np.load(out / "cache" / name) as z:
            joined.append(z["signatures"])
    every = np.concatenate(joined)
    assert back.signatures.shape == every.shape and np.array_equal(np.asarray(back.signatures), every)
    monkeypatch.setattr(StoredRows, "CHUNK", 3)  # rows read 3 at a time: most chunks skipped below
    rng = np.random.default_rng(5)
    entries = rng.choice(len(every), size=9, replace=False)
    entries = np.concatenate([entries, entries[:2]])  # (an entry asked for twice)
    assert np.array_equal(back.entry_signatures(entries), every[entries])
    assert np.array_equal(back.signature_source[int(entries[0])], every[entries[0]])
    out_rows = np.zeros((20, every.shape[1]), dtype=np.uint32)
    at = rng.choice(20, size=entries.size, replace=False)
    back.signatures_into(out_rows, at, entries)
    assert np.array_equal(out_rows[at], every[entries]) and not out_rows[np.setdiff1d(np.arange(20), at)].any()
    # A part whose rows are not stored so (compressed, say) is loaded whole: the same rows.
    monkeypatch.setattr(prepcache, "_stored_rows", lambda *args: None)
    loaded = load_cache(out)
    assert isinstance(loaded.signature_source, np.ndarray) and np.array_equal(loaded.signatures, every)
    monkeypatch.undo()
    # A part file that is no longer the one loaded is not read as if it were.
    (out / "cache" / _parts(out)[0]).write_bytes((out / "cache" / _parts(out)[0]).read_bytes() + b"\0")
    with pytest.raises(StoredRowsChanged, match="changed after the prepare cache was read"):
        back.entry_signatures(np.arange(len(every)))


def test_a_rescan_reading_every_file_finds_what_a_fresh_screen_finds(folder, tmp_path) -> None:
    # It reads every file again but keeps only the texts the cache does not hold (the others are
    # read once more for the pairs verified): the same documents and pairs all the same.
    out = tmp_path / "ws"
    screen_folder(folder, PARAMS, out_dir=out)
    _edit(folder / "a" / "006.txt", "文末新增一句话。")
    again = screen_folder(folder, PARAMS, out_dir=out, reread=True)
    assert again.run.counts["unchanged_files_not_read"] == 0
    assert again.run.counts["prepared_from_cache"] == again.run.counts["files_ok"] - 1
    fresh = screen_folder(folder, PARAMS, out_dir=tmp_path / "fresh", use_cache=False)
    assert _essentials(again) == _essentials(fresh)
    assert dict(again.texts) == dict(fresh.texts)


def test_a_cache_rewritten_by_another_screen_meanwhile_stops_the_screen_with_a_message(
    folder, tmp_path, monkeypatch, capsys
) -> None:
    # Two screens into one workspace at once: the other one rewrote (here: removed) a part of the
    # cache after this one read the cache and before it gathered the rows. Nothing is written.
    from neardup_gui.tasks import screen as screen_task

    out = tmp_path / "ws"
    assert main(["screen", str(folder), "--out", str(out), "-q"]) == 0
    _edit(folder / "a" / "006.txt", "文末新增一句话。")
    real = screen_task.load_cache

    def load_then_rewritten(*args, **kwargs):  # type: ignore[no-untyped-def]
        cache = real(*args, **kwargs)
        for name in _parts(out):
            (out / "cache" / name).unlink()
        return cache

    monkeypatch.setattr(screen_task, "load_cache", load_then_rewritten)
    written = (out / "manifest.csv").read_bytes()
    capsys.readouterr()
    assert main(["screen", str(folder), "--out", str(out), "-q"]) == 2
    said = capsys.readouterr()
    assert "changed after the prepare cache was read" in said.out + said.err
    assert "screen again" in said.out + said.err
    assert (out / "manifest.csv").read_bytes() == written
    monkeypatch.undo()
    assert main(["screen", str(folder), "--out", str(out), "-q"]) == 0  # and screening again works
