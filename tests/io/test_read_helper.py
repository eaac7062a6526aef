"""The reading helper process (``scan_folder(read_helper=True)``): a spawned process reads a share of
the files of a large folder. These tests lower the file threshold and the chunk size so that a
small folder of every kind of file is split between the two processes."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest

from neardup_gui.core.progress import CallbackProgress, Cancelled
from neardup_gui.io import corpus as corpus_mod
from neardup_gui.io.corpus import _pack_chunk, _ReadResult, _unpack_chunk, scan_folder

from test_corpus import CASES, write_tree


@pytest.fixture()
def many(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every case of test_corpus (statuses, encodings, excluded files) six times over, read in
    chunks of three files with a helper from two files on."""
    root = tmp_path / "many"
    files = {}
    for copy in range(6):
        for rel, case in CASES.items():
            files[f"part{copy}/{rel}"] = case[0]
    # Texts the pipe must carry exactly: characters outside the BMP, a lone surrogate is not
    # possible in a decoded file, but combining marks and NUL-free control-like text are.
    files["astral.txt"] = "𠀀𠀁 古籍用字 🙂 e\u0301".encode()
    write_tree(root, files)
    monkeypatch.setattr(corpus_mod, "READ_HELPER_MIN_FILES", 2)
    monkeypatch.setattr(corpus_mod, "_HELPER_CHUNK", 3)
    monkeypatch.setattr(corpus_mod, "usable_cores", lambda: 2)
    return root


class HelperFirst:
    """Patches this process's reading so that it waits, at its first file, until the helper has
    claimed two chunks: the helper then surely reads a share however slowly it starts. Records the
    files read here (the helper, a fresh interpreter, is not patched)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.read_here: list[str] = []
        self.counter = None
        real_claim, real_read = corpus_mod._claim, corpus_mod._read_file

        def claim(counter) -> int:
            self.counter = counter
            return real_claim(counter)

        def read(path, name, how):
            if not self.read_here and self.counter is not None:
                deadline = time.monotonic() + 60
                while self.counter.value < 3 and time.monotonic() < deadline:
                    time.sleep(0.01)
            self.read_here.append(path)
            return real_read(path, name, how)

        monkeypatch.setattr(corpus_mod, "_claim", claim)
        monkeypatch.setattr(corpus_mod, "_read_file", read)


def _no_helper_left() -> bool:
    return not [p for p in multiprocessing.active_children() if p.name == "neardup-read-helper"]


def test_the_helper_gives_the_same_manifest_and_texts(many: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = scan_folder(many)
    here = HelperFirst(monkeypatch)
    shared = scan_folder(many, read_helper=True)
    assert 0 < len(here.read_here) < sum(1 for d in shared.documents if d.status != "excluded")
    assert shared.documents == alone.documents
    assert dict(shared.texts) == dict(alone.texts)
    assert shared.settled_stamps() == alone.settled_stamps()
    assert {d.status for d in shared.documents} >= {"ok", "empty", "binary", "undecodable", "excluded"}
    assert _no_helper_left()


def test_below_the_threshold_no_helper_is_started(many: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(corpus_mod, "READ_HELPER_MIN_FILES", 10_000)
    started: list[object] = []
    monkeypatch.setattr(corpus_mod, "_read_with_helper", lambda *a: started.append(a))
    scan_folder(many, read_helper=True)
    assert not started


def test_a_helper_started_during_the_walk_is_stopped_when_fewer_files_are_to_read(
    many: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The helper starts once the walk has found READ_HELPER_MIN_FILES entries; here they are all
    the entries, but the excluded ones among them leave fewer files than that to read."""
    alone = scan_folder(many)
    entries = len(alone.documents)
    assert sum(1 for d in alone.documents if d.status != "excluded") < entries
    monkeypatch.setattr(corpus_mod, "READ_HELPER_MIN_FILES", entries)
    started: list[int] = []
    real_start = corpus_mod._ReadHelper.start

    def start(self) -> None:
        started.append(os.getpid())
        real_start(self)

    monkeypatch.setattr(corpus_mod._ReadHelper, "start", start)
    here = HelperFirst(monkeypatch)
    shared = scan_folder(many, read_helper=True)
    assert started  # during the walk
    assert shared.documents == alone.documents
    assert dict(shared.texts) == dict(alone.texts)
    assert len(here.read_here) == sum(1 for d in alone.documents if d.status != "excluded")  # all here
    assert _no_helper_left()


def test_a_first_screen_starts_the_helper_during_the_walk(many: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Started before the walk ends, it reads a share; a rescan never starts it during the walk."""
    alone = scan_folder(many)
    walking: list[bool] = []
    real_start = corpus_mod._ReadHelper.start
    real_walk = corpus_mod.walk_folder
    in_walk = [False]

    def walk(*args, **kwargs):
        in_walk[0] = True
        try:
            return real_walk(*args, **kwargs)
        finally:
            in_walk[0] = False

    def start(self) -> None:
        walking.append(in_walk[0])
        real_start(self)

    monkeypatch.setattr(corpus_mod, "walk_folder", walk)
    monkeypatch.setattr(corpus_mod._ReadHelper, "start", start)
    here = HelperFirst(monkeypatch)
    shared = scan_folder(many, read_helper=True)
    assert walking == [True]
    assert 0 < len(here.read_here) < sum(1 for d in shared.documents if d.status != "excluded")
    assert shared.documents == alone.documents and dict(shared.texts) == dict(alone.texts)
    # A rescan: its list of known files loads during the walk (screen_folder gives a function),
    # and most files are usually taken over unread, so a helper is started only after the walk,
    # if enough files are to be read (here all: written too recently to be trusted).
    walking.clear()
    again = scan_folder(many, read_helper=True, known=alone.known_files)
    assert walking == [False]
    assert again.documents == alone.documents
    assert _no_helper_left()


def dies_after_two_chunks(paths, names, size, max_bytes, options, counter, out) -> None:
    """A helper (run in the spawned process) that claims two chunks, sends the first and dies."""
    files = list(zip(paths.split("\0"), names.split("\0")))
    how = corpus_mod._How(max_bytes, options)
    first, _second = corpus_mod._claim(counter), corpus_mod._claim(counter)
    out.put((first, *_pack_chunk([corpus_mod._read_file(p, n, how) for p, n in files[first * size : (first + 1) * size]])))
    out.close()
    out.join_thread()  # the chunk is in the pipe
    os._exit(3)


def test_a_helper_that_dies_leaves_its_files_to_this_process(many: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = scan_folder(many)
    here = HelperFirst(monkeypatch)  # waits until the helper has claimed its two chunks
    monkeypatch.setattr(corpus_mod, "_helper_reads", dies_after_two_chunks)
    shared = scan_folder(many, read_helper=True)
    assert shared.documents == alone.documents
    assert dict(shared.texts) == dict(alone.texts)
    total = sum(1 for d in shared.documents if d.status != "excluded")
    assert len(here.read_here) == total - 3  # all but the one chunk the helper sent
    assert _no_helper_left()


def test_a_helper_that_cannot_start_leaves_every_file_to_this_process(
    many: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    alone = scan_folder(many)
    # A spawned process gets what it runs by pickling: a lambda cannot be, so start() fails.
    monkeypatch.setattr(corpus_mod, "_helper_reads", lambda *args: None)
    read_here: list[str] = []
    real_read = corpus_mod._read_file

    def read(path, name, how):
        read_here.append(path)
        return real_read(path, name, how)

    monkeypatch.setattr(corpus_mod, "_read_file", read)
    with caplog.at_level("WARNING", logger="neardup_gui.io.corpus"):
        shared = scan_folder(many, read_helper=True)
    assert shared.documents == alone.documents and dict(shared.texts) == dict(alone.texts)
    assert len(read_here) == sum(1 for d in alone.documents if d.status != "excluded")
    assert "reading helper could not start" in caplog.text
    assert _no_helper_left()


def test_a_cancel_while_reading_stops_the_helper(many: Path) -> None:
    cancel = threading.Event()

    def cancel_soon(stage: str, done: int, total: int) -> None:
        if stage == "read" and done > 0:
            cancel.set()

    with pytest.raises(Cancelled):
        scan_folder(many, read_helper=True, progress=CallbackProgress(cancel_soon, cancel, min_interval=0.0))
    assert _no_helper_left()


def test_a_cancel_while_listing_stops_a_helper_started_meanwhile(
    many: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The walk reports each folder listed; a cancel after the helper started during the walk
    (at the second folder) stops the scan at the next folder, and the helper is stopped with it
    (not left waiting for files until its queue breaks, which it would report on stderr)."""
    cancel = threading.Event()
    started: list[bool] = []
    real_start = corpus_mod._ReadHelper.start

    def start(self) -> None:
        started.append(True)
        real_start(self)

    monkeypatch.setattr(corpus_mod._ReadHelper, "start", start)

    def cancel_once_started(stage: str, done: int, total: int) -> None:
        assert stage == "list", "the scan went past the walk"
        if started:
            cancel.set()

    with pytest.raises(Cancelled):
        scan_folder(many, read_helper=True, progress=CallbackProgress(cancel_once_started, cancel, min_interval=0.0))
    assert started == [True]
    assert _no_helper_left()
    time.sleep(0.5)  # a helper left behind would be up by now, and fail on its broken queue
    assert "Traceback" not in capfd.readouterr().err


def _results(texts: list[str]) -> list[_ReadResult]:
    results = [
        _ReadResult("ok", "", len(t), 1.5, "ab" * 32, "utf-8", len(t), t, "text", (1, 2, 3, 4, 5)) for t in texts
    ]
    results.insert(2, _ReadResult("binary", "binary data: PNG", 10, 2.0, "cd" * 32, stamp=None))
    return results


def test_chunks_cross_the_pipe_unchanged() -> None:
    plain = _results(["普通文本", "", "𠀀 astral 🙂 古籍", "a\u0000b", "e\u0301"])
    rows, wire, encoding = _pack_chunk(plain)
    assert encoding == "utf-16-le" and len(wire) < 4 * sum(len(r.text or "") for r in plain)  # the compact form
    assert _unpack_chunk(rows, wire, encoding) == plain
    # Surrogate code points (a lenient decode's lone surrogates; a high one then a low one, which
    # UTF-16 would read back as the one character the pair encodes) go exactly, as UTF-32.
    for odd in ["lone \udc80 surrogate from a lenient decode", "\ud840\udc00 two code points, not 𠀀", "\ud800"]:
        results = _results(["普通文本", "", odd, "𠀀"])
        rows, wire, encoding = _pack_chunk(results)
        assert encoding == "utf-32-le"
        back = _unpack_chunk(rows, wire, encoding)
        assert back == results and [len(r.text or "") for r in back] == [len(r.text or "") for r in results]


def test_a_few_hundred_pdfs_get_the_helper_that_as_many_plain_files_would_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_extract import P1, P2, P3, make_pdf

    # Reading a PDF costs ~300 plain files' worth: twelve of them are worth 3,600 plain files.
    monkeypatch.setattr(corpus_mod, "READ_HELPER_MIN_FILES", 2_000)
    monkeypatch.setattr(corpus_mod, "usable_cores", lambda: 2)
    sizes: list[int] = []
    real = corpus_mod._read_with_helper

    def spy(files, *args, **kwargs):
        sizes.append(len(files))
        return real(files, *args, **kwargs)

    monkeypatch.setattr(corpus_mod, "_read_with_helper", spy)
    texts = [P1, P2, P3, P1 + P2, P2 + P3, P3 + P1] * 2
    pdfs, plain = tmp_path / "pdf", tmp_path / "txt"
    write_tree(pdfs, {f"{i:02d}.pdf": make_pdf([[t]]) for i, t in enumerate(texts)})
    write_tree(plain, {f"{i:02d}.txt": t.encode() for i, t in enumerate(texts)})
    assert corpus_mod.read_weight("报告.PDF") == 300 and corpus_mod.read_weight("a.txt") == 1
    shared = scan_folder(pdfs, include=("*.pdf",), read_helper=True)
    assert sizes == [12]  # the helper read alongside
    assert shared.documents == scan_folder(pdfs, include=("*.pdf",)).documents
    assert [shared.texts[d.doc_id] for d in shared.documents] == texts
    scan_folder(plain, read_helper=True)
    assert sizes == [12]  # twelve plain files: not worth a process
    assert _no_helper_left()


@pytest.mark.parametrize("helped", [False, True])
def test_texts_the_caller_does_not_keep_are_read_again_when_asked_for(
    many: Path, monkeypatch: pytest.MonkeyPatch, helped: bool
) -> None:
    # A rescan reading every file keeps the texts the prepare cache does not hold (``keep_text``):
    # at 100,000 files the others were ~300 MB held through the reading for nothing.
    from neardup_gui.io.extract import PLAIN_TEXT

    alone = scan_folder(many)
    texts = dict(alone.texts)
    by_id = {d.doc_id: d for d in alone.documents}
    keep = set(sorted({by_id[d].sha256 for d in texts})[::2])  # (each text is there six times)
    if helped:
        HelperFirst(monkeypatch)
    scanned = scan_folder(many, read_helper=helped, keep_text=keep.__contains__)
    assert scanned.documents == alone.documents
    held = [d for d in texts if by_id[d].sha256 in keep or by_id[d].extractor != PLAIN_TEXT]
    assert 0 < len(held) < len(texts)
    assert scanned.texts.held_chars == sum(len(texts[d]) for d in held)
    assert scanned.texts.unread == len(texts) - len(held)
    assert dict(scanned.texts) == texts  # each read again, and checked, when asked for
    assert _no_helper_left()


_ROW_FIELDS = ("doc_id", "source_id", "version", "size", "mtime", "sha256", "encoding", "chars", "status", "message",
               "extractor")  # fmt: skip


@pytest.mark.parametrize("differs", [None, *_ROW_FIELDS])
@pytest.mark.parametrize("helped", [False, True])
def test_rows_the_caller_holds_are_given_back_where_they_are_the_same(
    many: Path, monkeypatch: pytest.MonkeyPatch, helped: bool, differs: str | None
) -> None:
    # The window screening again holds its result's rows (``held_rows``): a file whose row would be
    # equal to one of them gets that very row (~35 MB less at 100,000 files while both are held);
    # one that differs in any field (here one row in three, in ``differs``) gets its own.
    import dataclasses

    alone = scan_folder(many)
    usable = [d for d in alone.documents if d.status == "ok"]
    other = {"size": 1, "mtime": 1.0, "chars": 1}
    held = {d.path: d for d in alone.documents}
    altered = set()
    if differs is not None:
        for d in usable[::3]:
            held[d.path] = dataclasses.replace(d, **{differs: other.get(differs, "x")})
            altered.add(d.path)
    if helped:
        HelperFirst(monkeypatch)
    scanned = scan_folder(many, read_helper=helped, held_rows=held)
    assert scanned.documents == alone.documents
    given = [d.path for d in scanned.documents if d is held[d.path]]
    assert sorted(given) == sorted(set(held) - altered)
    assert len(given) > len(usable) // 2
    assert _no_helper_left()
