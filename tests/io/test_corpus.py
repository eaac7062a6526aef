"""Reading the source folder: statuses, encodings, ids, sidecar, integrity, read-only guarantee.

Every test builds real files in tmp_path; nothing is mocked. Decoding of bytes on their own is
tested in test_decoding.py.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import stat
import struct
import subprocess
import sys
import fnmatch
import threading
import zlib
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from neardup_gui.core.progress import CallbackProgress, Cancelled
from neardup_gui.core.records import FILE_STATUSES, Document
from neardup_gui.io import walk as walk_mod
from neardup_gui.io.corpus import (
    BinaryContentError,
    CorpusError,
    LoadedCorpus,
    UndecodableError,
    check_integrity,
    decode_bytes,
    make_doc_id,
    read_document_text,
    scan_folder,
)
from neardup_gui.io.walk import matches_any, matching_pattern, walk_folder

SIMPLIFIED = (
    "今天上午，市政府召开新闻发布会，介绍了今年第一季度全市经济运行情况。"
    "数据显示，全市地区生产总值同比增长百分之五点二，工业生产保持稳定，消费市场逐步回暖。\n"
    "发言人表示，下一步将继续优化营商环境，支持中小企业发展，确保全年目标顺利完成。"
)
TRADITIONAL = (
    "今天上午，市政府召開新聞發布會，介紹了今年第一季度全市經濟運行情況。"
    "數據顯示，全市地區生產總值同比增長百分之五點二，工業生產保持穩定，消費市場逐步回暖。\n"
    "發言人表示，下一步將繼續優化營商環境，支持中小企業發展，確保全年目標順利完成。"
)



def permissions_do_not_bite(locked: Path) -> bool:
    """True when a chmod 000 file can still be opened (root, unless its capabilities were dropped)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    try:
        with open(locked, "rb"):
            return True
    except PermissionError:
        return False

needs_symlinks = pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")


def tiny_png() -> bytes:
    """A valid 1x1 PNG image."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


# Undecodable: invalid UTF-8 (0xFF, lone 0x80), invalid GB18030/Big5 (0xFF is never a lead byte),
# and as UTF-16 it reads as garbage.
UNDECODABLE = b"abc \xff\xfe\xfd def \x80\xff"

# relative path -> (bytes on disk, expected status, expected encoding, expected text or None)
CASES: dict[str, tuple[bytes, str, str, str | None]] = {
    "news/gb18030.txt": (SIMPLIFIED.encode("gb18030"), "ok", "gb18030", SIMPLIFIED),
    "news/big5.txt": (TRADITIONAL.encode("big5"), "ok", "big5", TRADITIONAL),
    "news/utf8_bom.txt": (codecs.BOM_UTF8 + SIMPLIFIED.encode(), "ok", "utf-8-sig", SIMPLIFIED),
    "news/utf16_le_bom.txt": (SIMPLIFIED.encode("utf-16"), "ok", "utf-16", SIMPLIFIED),
    "news/utf16_be_bom.txt": (
        codecs.BOM_UTF16_BE + TRADITIONAL.encode("utf-16-be"), "ok", "utf-16", TRADITIONAL,
    ),
    "news/utf16_le.txt": (SIMPLIFIED.encode("utf-16-le"), "ok", "utf-16-le", SIMPLIFIED),
    "news/utf16_be.txt": (TRADITIONAL.encode("utf-16-be"), "ok", "utf-16-be", TRADITIONAL),
    "news/utf32_bom.txt": (SIMPLIFIED.encode("utf-32"), "ok", "utf-32", SIMPLIFIED),
    "news/crlf.txt": (SIMPLIFIED.replace("\n", "\r\n").encode(), "ok", "utf-8",
                      SIMPLIFIED.replace("\n", "\r\n")),
    "news/cr_only.txt": ("第一行\r第二行\r".encode(), "ok", "utf-8", "第一行\r第二行\r"),
    "news/deep/nested.md": ("# 标题\n\n正文内容。\n".encode(), "ok", "utf-8", "# 标题\n\n正文内容。\n"),
    "misc/empty.txt": (b"", "empty", "", None),
    "misc/blank.txt": (" \r\n\t\u3000\n".encode(), "empty", "utf-8", None),
    "misc/picture.txt": (tiny_png(), "binary", "", None),
    "misc/garbage.txt": (UNDECODABLE, "undecodable", "", None),
    "misc/中文 文件 名.txt": ("文件名里有空格。".encode(), "ok", "utf-8", "文件名里有空格。"),
    "misc/=SUM(A1).txt": (b"formula-looking name", "ok", "utf-8", "formula-looking name"),
    "misc/photo.jpg": (b"\xff\xd8\xff\xe0 not really a jpeg", "excluded", "", None),
    "top.txt": ("顶层文件".encode("gbk"), "ok", "gb18030", "顶层文件"),
}


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under root (links not followed): type, size, mtime and content hash."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            digest = ""
            if stat.S_ISREG(st.st_mode) and os.access(path, os.R_OK):
                with open(path, "rb") as fh:
                    digest = hashlib.sha256(fh.read()).hexdigest()
            out[os.path.relpath(path, root)] = (st.st_mode, st.st_size, st.st_mtime_ns, digest)
    return out


def by_path(corpus: LoadedCorpus) -> dict[str, Document]:
    return {d.path: d for d in corpus.documents}


@pytest.fixture()
def source(tmp_path: Path) -> Path:
    root = tmp_path / "source"
    write_tree(root, {rel: case[0] for rel, case in CASES.items()})
    return root


@pytest.fixture()
def full_source(source: Path, tmp_path: Path) -> Path:
    """The source plus links, a hidden folder and an unreadable file."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("外部文件", encoding="utf-8")
    (source / "hidden.txt").write_text("x", encoding="utf-8")
    (source / ".hidden_dir").mkdir()
    (source / ".hidden_dir" / "inside.txt").write_text("不应被读取", encoding="utf-8")
    (source / ".dotfile.txt").write_text("隐藏", encoding="utf-8")
    if sys.platform != "win32":
        os.symlink(outside / "secret.txt", source / "link_out.txt")
        os.symlink(outside, source / "link_out_dir")
        os.symlink(source, source / "news" / "loop")
        os.symlink("gb18030.txt", source / "news" / "link_in.txt")
    locked = source / "misc" / "locked.txt"
    locked.write_text("锁定", encoding="utf-8")
    locked.chmod(0)
    yield source
    locked.chmod(0o644)


def test_every_file_gets_the_right_status_encoding_and_text(full_source: Path) -> None:
    corpus = scan_folder(full_source)
    docs = by_path(corpus)
    for rel, (data, status, encoding, text) in CASES.items():
        doc = docs[rel]
        assert (doc.status, doc.encoding) == (status, encoding), (rel, doc.message)
        assert doc.size == len(data)
        if status in ("excluded",):
            assert doc.sha256 == ""
        else:
            assert doc.sha256 == hashlib.sha256(data).hexdigest()
        if text is None:
            assert doc.doc_id not in corpus.texts
        else:
            assert corpus.texts[doc.doc_id] == text
            assert doc.chars == len(text)
            # The decoded text reproduces the file's bytes (BOM aside): offsets match the file.
            assert data.decode(doc.encoding) == text
    assert all(d.status in FILE_STATUSES for d in corpus.documents)
    assert [d.path for d in corpus.documents] == sorted(d.path for d in corpus.documents)


def test_problem_files_say_why(full_source: Path) -> None:
    docs = by_path(scan_folder(full_source))
    assert docs["misc/empty.txt"].message == "empty file (0 bytes)"
    assert "only whitespace" in docs["misc/blank.txt"].message
    assert "PNG" in docs["misc/picture.txt"].message
    assert "not valid UTF-8" in docs["misc/garbage.txt"].message
    assert "include patterns" in docs["misc/photo.jpg"].message
    assert docs["hidden.txt"].status == "ok"  # "hidden" in the name is not hidden
    assert docs[".dotfile.txt"].status == "excluded"
    assert docs[".hidden_dir"].message == "hidden folder, not searched"
    assert not any(p.startswith(".hidden_dir/") for p in docs)


def test_unreadable_file_is_reported_with_the_os_error(full_source: Path) -> None:
    if permissions_do_not_bite(full_source / "misc" / "locked.txt"):
        pytest.skip("running as root with DAC override: chmod 000 does not stop reading")
    doc = by_path(scan_folder(full_source))["misc/locked.txt"]
    assert doc.status == "unreadable"
    assert "Permission denied" in doc.message
    assert doc.sha256 == ""


@needs_symlinks
def test_links_out_of_the_folder_and_loops_are_not_followed(full_source: Path) -> None:
    docs = by_path(scan_folder(full_source))
    assert docs["link_out.txt"].status == "skipped_link"
    assert "outside the source folder" in docs["link_out.txt"].message
    assert docs["link_out_dir"].status == "skipped_link"
    assert docs["news/loop"].status == "skipped_link"
    assert docs["news/loop"].message == "symlink loop"
    assert not any(p.startswith("news/loop/") for p in docs)
    # A file link inside the folder is followed.
    inner = docs["news/link_in.txt"]
    assert inner.status == "ok" and inner.sha256 == docs["news/gb18030.txt"].sha256


@needs_symlinks
def test_a_link_to_itself_is_a_loop_row_and_the_scan_goes_on(tmp_path: Path) -> None:
    root = tmp_path / "src"
    write_tree(root, {"a.txt": "甲乙丙丁".encode()})
    os.symlink("self", root / "self")
    os.symlink("two", root / "one")
    os.symlink("one", root / "two")
    docs = by_path(scan_folder(root))
    for name in ("self", "one", "two"):
        assert docs[name].status == "skipped_link" and "loop" in docs[name].message, docs[name]
    assert docs["a.txt"].status == "ok"


@needs_symlinks
def test_folder_link_inside_the_source_is_followed(tmp_path: Path) -> None:
    root = tmp_path / "src"
    write_tree(root, {"real/a.txt": "甲乙丙丁".encode()})
    os.symlink(root / "real", root / "alias")
    docs = by_path(scan_folder(root))
    assert docs["alias/a.txt"].status == "ok"
    assert docs["alias/a.txt"].source_id == "alias"
    assert docs["real/a.txt"].status == "ok"


def test_source_folder_is_unchanged_after_a_scan(full_source: Path) -> None:
    before = snapshot(full_source)
    corpus = scan_folder(full_source)
    check_integrity(full_source, corpus.documents)
    assert snapshot(full_source) == before


def test_read_only_source_folder_scans_and_stays_unchanged(source: Path) -> None:
    paths = [source] + sorted(source.rglob("*"))
    modes = {p: p.stat().st_mode for p in paths}
    for p in paths:
        p.chmod(p.stat().st_mode & ~0o222)
    try:
        before = snapshot(source)
        corpus = scan_folder(source)
        assert by_path(corpus)["news/big5.txt"].status == "ok"
        assert snapshot(source) == before
    finally:
        for p in reversed(paths):
            p.chmod(modes[p])


def test_doc_ids_are_stable_and_differ_by_path(source: Path) -> None:
    first = scan_folder(source)
    second = scan_folder(source)
    assert [d.doc_id for d in first.documents] == [d.doc_id for d in second.documents]
    ids = [d.doc_id for d in first.documents]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"d[0-9a-f]{16}", i) for i in ids)
    assert by_path(first)["top.txt"].doc_id == make_doc_id("top.txt")
    # NFC and NFD spellings of a path give the same id.
    assert make_doc_id("cafe\u0301.txt") == make_doc_id("caf\u00e9.txt")


def test_source_id_is_the_first_subfolder_or_the_folder_name(source: Path) -> None:
    docs = by_path(scan_folder(source))
    assert docs["news/deep/nested.md"].source_id == "news"
    assert docs["misc/empty.txt"].source_id == "misc"
    assert docs["top.txt"].source_id == "source"
    assert {d.version for d in docs.values()} == {"v1"}


def test_root_is_absolute_and_resolved(source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(source.parent)
    corpus = scan_folder("source/../source")
    assert corpus.root == source.resolve()


def test_include_and_exclude_patterns_match_names_and_paths(source: Path) -> None:
    corpus = scan_folder(source, include=["news/*.TXT"], exclude=["*_bom.txt"])
    docs = by_path(corpus)
    assert docs["news/gb18030.txt"].status == "ok"
    assert docs["news/utf8_bom.txt"].status == "excluded"
    assert "'*_bom.txt'" in docs["news/utf8_bom.txt"].message
    assert docs["top.txt"].status == "excluded"
    assert docs["news/deep/nested.md"].status == "excluded"
    jpg = by_path(scan_folder(source, include=["*"], exclude=["*.jpg"]))["misc/photo.jpg"]
    assert (jpg.status, jpg.message) == ("excluded", "excluded by pattern '*.jpg'")


def test_excluded_folder_gets_one_row_and_is_not_searched(source: Path) -> None:
    docs = by_path(scan_folder(source, exclude=["deep"]))
    assert docs["news/deep"].status == "excluded"
    assert "news/deep/nested.md" not in docs


def test_too_large_files_are_listed_but_not_read(source: Path) -> None:
    docs = by_path(scan_folder(source, max_bytes=100))
    big = docs["news/gb18030.txt"]
    assert big.status == "too_large"
    assert big.size == len(CASES["news/gb18030.txt"][0])
    assert big.sha256 == ""
    assert "limit" in big.message
    assert docs["top.txt"].status == "ok"


def test_one_and_two_workers_give_the_same_manifest(full_source: Path) -> None:
    one = scan_folder(full_source, workers=1)
    two = scan_folder(full_source, workers=2)
    assert one.documents == two.documents
    assert one.texts == two.texts


@pytest.mark.parametrize("stat_files", [True, False])
@pytest.mark.parametrize(
    ("include", "exclude", "nested_read"),
    [
        (("*.txt", "*.md"), (), True), (("*.TXT",), ("*gb*",), False), (("news/*",), (), True),
        (("*",), ("misc",), True), (("*.md",), ("news/deep/*",), False), ((), (), False),
    ],
)
def test_files_to_read_are_listed_as_every_entry_is_classified(
    full_source: Path, monkeypatch: pytest.MonkeyPatch, include: tuple[str, ...], exclude: tuple[str, ...],
    nested_read: bool, stat_files: bool,
) -> None:
    # The walk makes the rows of plain files to read itself, without ``_classify``: the listing
    # (statuses, messages, sizes, times, stamps, paths to open) must be the one that classifying
    # every entry gives, whatever the patterns, hidden entries, links, a loop and a pipe.
    if hasattr(os, "mkfifo"):
        os.mkfifo(full_source / "misc" / "pipe.txt")
    (full_source / "misc" / ".hidden.md").write_text("隐藏", encoding="utf-8")
    quick = walk_folder(full_source.resolve(), include, exclude, CallbackProgress(), stat_files=stat_files)
    monkeypatch.setattr(walk_mod, "_wanted", lambda include, exclude: lambda name, rel: False)
    classified = walk_folder(full_source.resolve(), include, exclude, CallbackProgress(), stat_files=stat_files)
    assert quick == classified
    to_read = {e.rel for e in quick if not e.status}
    assert ("news/deep/nested.md" in to_read) == nested_read  # the patterns were applied
    assert "misc/pipe.txt" not in to_read and "misc/.hidden.md" not in to_read


def test_file_that_disappears_before_reading_is_unreadable(source: Path) -> None:
    victim = source / "news" / "big5.txt"

    def on_report(stage: str, done: int, total: int) -> None:
        if stage == "read" and done == 0 and victim.exists():
            victim.unlink()  # listed already, not read yet

    corpus = scan_folder(source, progress=CallbackProgress(on_report, min_interval=0.0))
    doc = by_path(corpus)["news/big5.txt"]
    assert doc.status == "unreadable"
    assert "No such file" in doc.message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_named_pipe_is_listed_and_not_opened(source: Path) -> None:
    os.mkfifo(source / "pipe.txt")
    doc = by_path(scan_folder(source))["pipe.txt"]
    assert doc.status == "excluded"
    assert "not a regular file" in doc.message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_file_replaced_by_a_pipe_after_the_listing_is_not_waited_on(source: Path) -> None:
    # The walk no longer stats files it will open; the open itself must not block on a pipe.
    victim = source / "news" / "big5.txt"

    def on_report(stage: str, done: int, total: int) -> None:
        if stage == "read" and done == 0 and victim.is_file():
            victim.unlink()
            os.mkfifo(victim)  # listed as a file, a pipe by the time it is opened

    result: list = []
    worker = threading.Thread(
        target=lambda: result.append(scan_folder(source, progress=CallbackProgress(on_report, min_interval=0.0))),
        daemon=True,
    )
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), "the scan blocked opening a pipe"
    doc = by_path(result[0])["news/big5.txt"]
    assert doc.status == "excluded" and "not a regular file" in doc.message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_file_replaced_by_a_pipe_between_listing_and_stat_is_not_a_file_to_read(
    source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rescan's walk stats each file it lists: one listed as a file and a pipe by the time it is
    # stat'ed gets the pipe's row, not a row to read.
    victim = source / "news" / "big5.txt"
    real_stat = walk_mod._stat

    def stat_after_swap(path, *args, **kwargs):
        if os.fspath(path) == str(victim.resolve()) and victim.is_file():
            victim.unlink()
            os.mkfifo(victim)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(walk_mod, "_stat", stat_after_swap)
    rows = {e.rel: e for e in walk_folder(source.resolve(), ("*.txt",), (), CallbackProgress(), stat_files=True)}
    assert rows["news/big5.txt"].status == "excluded" and "not a regular file" in rows["news/big5.txt"].message
    assert rows["news/gb18030.txt"].status == "" and rows["news/gb18030.txt"].stamp is not None


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="needs arbitrary bytes in file names")
def test_file_name_that_is_not_utf8_is_read_and_checkable(tmp_path: Path) -> None:
    root = tmp_path / "src"
    root.mkdir()
    name = os.fsencode(str(root)) + b"/gbk_\xd6\xd0.txt"
    with open(name, "wb") as fh:
        fh.write("内容".encode())
    corpus = scan_folder(root)
    (doc,) = corpus.documents
    assert doc.path == "gbk_\\xd6\\xd0.txt"
    assert doc.status == "ok" and "not valid UTF-8" in doc.message
    assert corpus.texts[doc.doc_id] == "内容"
    assert check_integrity(root, corpus.documents) == []


def test_cancel_before_start_raises_cancelled(source: Path) -> None:
    event = threading.Event()
    event.set()
    with pytest.raises(Cancelled):
        scan_folder(source, progress=CallbackProgress(cancel_event=event))


def test_cancel_while_reading_stops_and_leaves_no_threads(source: Path) -> None:
    event = threading.Event()

    def on_report(stage: str, done: int, total: int) -> None:
        if done >= 2:
            event.set()  # the user presses Cancel after two files

    progress = CallbackProgress(on_report, cancel_event=event, min_interval=0.0)
    with pytest.raises(Cancelled):
        scan_folder(source, progress=progress, workers=2)
    assert not [t for t in threading.enumerate() if t.name.startswith("neardup-read")]


def test_progress_reports_reading_until_done(source: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    scan_folder(source, progress=CallbackProgress(lambda *a: seen.append(a), min_interval=0.0))
    reading = [r for r in seen if r[0] == "read"]
    assert reading[0][1] == 0
    assert seen[-1] == reading[-1] and reading[-1][1] == reading[-1][2] > 0


def test_listing_counts_what_it_found_before_reading_starts(tmp_path: Path) -> None:
    # A folder on a slow disk can take long to list: the progress says how much is found meanwhile,
    # including inside one large folder, and ends on every entry the manifest lists.
    from neardup_gui.io.walk import LIST_REPORT_EVERY

    files = {f"big/{n:05d}.txt": "正文".encode() for n in range(LIST_REPORT_EVERY + 10)}
    files.update({"a/one.txt": "一".encode(), "a/skip.bin": b"x", "z/two.md": "二".encode()})
    write_tree(tmp_path / "src", files)
    seen: list[tuple[str, int, int]] = []
    corpus = scan_folder(tmp_path / "src", progress=CallbackProgress(lambda *a: seen.append(a), min_interval=0.0))
    listing = [done for stage, done, total in seen if stage == "list" and total == 0]
    assert seen[0] == ("list", 0, 0)
    assert [stage for stage, _, _ in seen[: len(listing)]] == ["list"] * len(listing)  # all before reading
    assert listing == sorted(listing) and listing[-1] == len(corpus.documents) == len(files)
    assert LIST_REPORT_EVERY in listing  # a report from inside the large folder, not only after it


def test_missing_or_non_folder_source_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="not found"):
        scan_folder(tmp_path / "nope")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(CorpusError, match="not a folder"):
        scan_folder(tmp_path / "file.txt")


# --- sidecar -----------------------------------------------------------------------------------


def write_sidecar(path: Path, text: str, bom: bool = True) -> Path:
    path.write_bytes((codecs.BOM_UTF8 if bom else b"") + text.encode("utf-8"))
    return path


def test_sidecar_overrides_ids_and_keeps_extra_columns(source: Path, tmp_path: Path) -> None:
    sidecar = write_sidecar(
        tmp_path / "meta.csv",
        "path,doc_id,source_id,version,collected\n"
        "news/gb18030.txt,ND-001,人民日报,v2,2024-01-05\n"
        "./top.txt,,官网,,2024-02-01\n",
    )
    corpus = scan_folder(source, sidecar=sidecar)
    docs = by_path(corpus)
    gb = docs["news/gb18030.txt"]
    assert (gb.doc_id, gb.source_id, gb.version) == ("ND-001", "人民日报", "v2")
    assert corpus.texts["ND-001"] == SIMPLIFIED
    top = docs["top.txt"]
    assert (top.doc_id, top.source_id, top.version) == (make_doc_id("top.txt"), "官网", "v1")
    assert corpus.extra == {"ND-001": {"collected": "2024-01-05"}, top.doc_id: {"collected": "2024-02-01"}}
    assert docs["news/big5.txt"].source_id == "news"  # rows not in the sidecar keep defaults


def test_sidecar_without_bom_is_read(source: Path, tmp_path: Path) -> None:
    sidecar = write_sidecar(tmp_path / "m.csv", "path,version\ntop.txt,第二版\n", bom=False)
    assert by_path(scan_folder(source, sidecar=sidecar))["top.txt"].version == "第二版"


def test_sidecar_duplicate_doc_id_names_both_paths(source: Path, tmp_path: Path) -> None:
    sidecar = write_sidecar(
        tmp_path / "m.csv", "path,doc_id\nnews/big5.txt,SAME\nmisc/中文 文件 名.txt,SAME\n"
    )
    with pytest.raises(CorpusError) as info:
        scan_folder(source, sidecar=sidecar)
    assert "news/big5.txt" in str(info.value) and "misc/中文 文件 名.txt" in str(info.value)
    assert "SAME" in str(info.value)


def test_sidecar_with_unknown_paths_lists_them(source: Path, tmp_path: Path) -> None:
    sidecar = write_sidecar(tmp_path / "m.csv", "path,version\nnot/here.txt,v2\ngone.txt,v3\n")
    with pytest.raises(CorpusError) as info:
        scan_folder(source, sidecar=sidecar)
    assert "not/here.txt" in str(info.value) and "gone.txt" in str(info.value)


def test_sidecar_without_path_column_is_an_error(source: Path, tmp_path: Path) -> None:
    sidecar = write_sidecar(tmp_path / "m.csv", "file,version\ntop.txt,v2\n")
    with pytest.raises(CorpusError, match="'path' column"):
        scan_folder(source, sidecar=sidecar)


# --- integrity ---------------------------------------------------------------------------------


def test_integrity_reports_changed_and_deleted_files(source: Path) -> None:
    corpus = scan_folder(source)
    assert check_integrity(source, corpus.documents) == []
    changed = source / "news" / "crlf.txt"
    size_before = changed.stat().st_size
    with open(changed, "ab") as fh:
        fh.write("追加".encode())
    (source / "top.txt").unlink()
    report = dict(check_integrity(source, corpus.documents))
    assert report["top.txt"] == "missing"
    assert f"size {size_before} -> {size_before + 6}" in report["news/crlf.txt"]
    assert "content changed (SHA-256)" in report["news/crlf.txt"]
    assert set(report) == {"top.txt", "news/crlf.txt"}


def test_integrity_check_can_be_cancelled(source: Path) -> None:
    corpus = scan_folder(source)
    progress = CallbackProgress()
    progress.cancel()
    with pytest.raises(Cancelled):
        check_integrity(source, corpus.documents, progress)


def test_integrity_notices_same_size_edits(source: Path) -> None:
    corpus = scan_folder(source)
    target = source / "misc" / "=SUM(A1).txt"
    st = target.stat()
    target.write_bytes(b"FORMULA-looking name")
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime
    assert check_integrity(source, corpus.documents) == [
        ("misc/=SUM(A1).txt", "content changed (SHA-256)")
    ]


def test_reader_modules_do_not_load_qt() -> None:
    code = (
        "import sys, neardup_gui.io.corpus, neardup_gui.io.paths;"
        "sys.exit(1 if any(m.startswith('PySide6') for m in sys.modules) else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_a_document_read_again_gives_the_scanned_text(source: Path) -> None:
    corpus = scan_folder(source)
    for doc in corpus.usable():
        assert read_document_text(source, doc) == corpus.texts[doc.doc_id]
    big5 = by_path(corpus)["news/big5.txt"]
    (source / "news" / "big5.txt").write_bytes(b"changed")
    with pytest.raises(CorpusError, match="changed since it was scanned"):
        read_document_text(source, big5)
    with pytest.raises(CorpusError, match="no text"):
        read_document_text(source, by_path(corpus)["misc/photo.jpg"])


def test_decoding_names_are_still_importable_from_corpus() -> None:
    from neardup_gui.io import decoding

    assert decode_bytes is decoding.decode_bytes
    assert UndecodableError is decoding.UndecodableError
    assert BinaryContentError is decoding.BinaryContentError


def test_listing_reports_are_throttled_like_any_stage_in_progress(tmp_path: Path) -> None:
    # A count with no total never counts as a stage's last report, so listing 60 folders does not
    # send 60 updates to the window: only the first passes within the interval.
    write_tree(tmp_path / "src", {f"f{n:02d}/a.txt": "正文".encode() for n in range(60)})
    seen: list[tuple[str, int, int]] = []
    scan_folder(tmp_path / "src", progress=CallbackProgress(lambda *a: seen.append(a), min_interval=60.0))
    assert [r for r in seen if r[0] == "list"] == [("list", 0, 0)]
    assert [r for r in seen if r[0] == "read"] == [("read", 0, 60), ("read", 60, 60)]


_PATTERN_CHARS = st.sampled_from(list("*?[]/\\.aTxt稿") + ["*.txt", "*.TXT", "*.md", ".t"])


@settings(max_examples=400, deadline=None)
@example(["*/a.txt"], "a.txt", "news/")  # an ending with "/" matches the path, not the name
@example(["*.t?t"], "b.txt", "")
@example(["*[ab].txt"], "b.txt", "")
@example(["*.txt", "news/*"], "b.md", "news/")
@given(
    st.lists(st.lists(_PATTERN_CHARS, min_size=1, max_size=4).map("".join), min_size=1, max_size=3),
    st.lists(st.sampled_from(list("aAtTxX.稿/_")), max_size=8).map("".join),
    st.sampled_from(["", "news/", "a/b.TXT/", "稿件/"]),
)
def test_include_patterns_match_names_and_paths_as_fnmatch_does(patterns: list[str], name: str, folder: str) -> None:
    # "*.txt"-like patterns are checked with str.endswith on the name; any pattern must still
    # select exactly the files fnmatch selects on the lower-cased name or path.
    name = name.replace("/", "_") or "x"
    rel = folder + name
    expected = any(
        fnmatch.fnmatchcase(candidate.lower(), p.lower().replace("\\", "/")) for p in patterns for candidate in (name, rel)
    )
    assert matches_any(name, rel, patterns) == expected
    assert (matching_pattern(name, rel, patterns) is not None) == expected
