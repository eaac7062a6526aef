"""A screen's output files change as a whole: staging, publishing and settling after a crash."""

from __future__ import annotations

import json
from pathlib import Path

from neardup_gui.core.records import NormalizeOptions
from neardup_gui.io import outputs


def _stage(out: Path, run_id: str, marker: str) -> None:
    files = {
        "manifest.csv": outputs.csv_bytes(["doc_id"], [[marker]]),
        "candidates.csv": outputs.csv_bytes(["left"], [[marker]]),
        "run.json": outputs.json_bytes({"run_id": run_id}),
    }
    outputs.stage_screen_outputs(
        out, run_id, files,
        lambda folder: outputs.write_normalized(folder, {marker: "Ａ文本"}, [marker], NormalizeOptions()),
    )  # fmt: skip


def _state(out: Path) -> tuple[str, str, list[str]]:
    return (
        json.loads((out / "run.json").read_text(encoding="utf-8"))["run_id"],
        (out / "manifest.csv").read_text(encoding="utf-8-sig").split()[1],
        sorted(p.name for p in (out / "normalized").iterdir()),
    )


def test_staged_files_change_nothing_until_published(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _stage(out, "r1", "d1")
    assert sorted(p.name for p in out.iterdir()) == [".pending-r1"]
    outputs.publish_screen_outputs(out, "r1")
    assert _state(out) == ("r1", "d1", ["d1.txt"])
    assert (out / "normalized" / "d1.txt").read_text(encoding="utf-8") == "a文本"
    assert sorted(p.name for p in out.iterdir()) == ["candidates.csv", "manifest.csv", "normalized", "run.json"]


def test_settling_publishes_the_committed_run_and_discards_an_uncommitted_one(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _stage(out, "r1", "d1")
    outputs.publish_screen_outputs(out, "r1")
    _stage(out, "r2", "d2")
    assert outputs.settle_pending(out, "r1") == [("r2", "discarded")]  # r2 never reached the session
    assert _state(out) == ("r1", "d1", ["d1.txt"])
    _stage(out, "r3", "d3")
    assert outputs.settle_pending(out, "r3") == [("r3", "published")]
    assert _state(out) == ("r3", "d3", ["d3.txt"])
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_a_publish_interrupted_halfway_is_finished_by_settling(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _stage(out, "r1", "d1")
    outputs.publish_screen_outputs(out, "r1")
    _stage(out, "r2", "d2")
    # As if killed after the CSV files and the old normalized/ were moved: a mixed folder.
    for name in ("manifest.csv", "candidates.csv"):
        (out / ".pending-r2" / name).replace(out / name)
    (out / "normalized").replace(out / ".normalized.old")
    outputs.settle_pending(out, "r2")
    assert _state(out) == ("r2", "d2", ["d2.txt"])
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_files_are_readable_by_others_like_any_new_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _stage(out, "r1", "d1")
    outputs.publish_screen_outputs(out, "r1")
    outputs.write_csv(out / "extra.csv", ["a"], [["=1+1"]])
    for path in (out / "manifest.csv", out / "extra.csv", out / "normalized" / "d1.txt"):
        assert path.stat().st_mode & 0o044 == 0o044, path  # mkstemp's 0600 would hide them
    assert (out / "extra.csv").read_bytes().decode("utf-8-sig") == "a\r\n'=1+1\r\n"


def test_the_manifest_digest_is_sha256_over_each_rows_id_path_size_hash_and_status(tmp_path: Path) -> None:
    import hashlib

    from neardup_gui.io.corpus import scan_folder
    from neardup_gui.tasks import manifest_digest

    src = tmp_path / "稿件"
    (src / "a").mkdir(parents=True)
    (src / "a" / "一.txt").write_text("第一篇文章的正文内容。" * 5, encoding="utf-8")
    (src / "a" / "empty.txt").write_bytes(b"")
    (src / "二.txt").write_bytes("第二篇".encode("gb18030"))
    documents = scan_folder(src).documents
    expected = hashlib.sha256()
    for d in documents:  # the definition run.json and the workbook's readers rely on
        expected.update(f"{d.doc_id}\x1f{d.path}\x1f{d.size}\x1f{d.sha256}\x1f{d.status}\x1e".encode("utf-8"))
    assert manifest_digest(documents) == expected.hexdigest()
    assert manifest_digest(()) == hashlib.sha256(b"").hexdigest()
    assert manifest_digest(documents[:-1]) != manifest_digest(documents)


def test_removing_the_previous_normalized_folder_removes_it_whole_and_nothing_it_links_to(tmp_path: Path) -> None:
    # The previous run's normalized/ (100,000 files at scale) is unlinked file by file relative
    # to a handle on it; links inside it, or a link given in its place, must never lead outside.
    keep_dir = tmp_path / "keep"
    keep_dir.mkdir()
    (keep_dir / "f.txt").write_text("kept", encoding="utf-8")
    keep_file = tmp_path / "keep.txt"
    keep_file.write_text("kept", encoding="utf-8")
    old = tmp_path / ".normalized.old"
    old.mkdir()
    for i in range(300):
        (old / f"d{i:04d}.txt").write_text("文本", encoding="utf-8")
    (old / "sub").mkdir()
    (old / "sub" / "x.txt").write_text("x", encoding="utf-8")
    (old / "file-link.txt").symlink_to(keep_file)
    (old / "folder-link").symlink_to(keep_dir)
    outputs.remove_folder(old)
    assert not old.exists()
    assert keep_file.read_text(encoding="utf-8") == "kept" and (keep_dir / "f.txt").read_text(encoding="utf-8") == "kept"
    link = tmp_path / "link-to-keep"
    link.symlink_to(keep_dir)
    outputs.remove_folder(link)
    assert (keep_dir / "f.txt").exists()
    outputs.remove_folder(tmp_path / "never-there")  # nothing to remove: no error


def test_rows_cross_to_a_helper_process_as_joined_columns_and_come_back_the_same() -> None:
    rows = [("d1", "稿件/a,b\n\"c\".txt", "ab" * 32), ("d2", "", ""), ("d3", "x\\y\t\u3000z", "ff" * 32)]
    columns = outputs.joined_columns(rows)
    assert len(columns) == 3 and all(isinstance(c, str) for c in columns)
    assert outputs.split_columns(columns, len(rows)) == rows
    assert outputs.split_columns(outputs.joined_columns([]), 0) == []
    assert outputs.split_columns(outputs.joined_columns([("", "", "")]), 1) == [("", "", "")]
