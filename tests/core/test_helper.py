"""Verification split with a helper process: the same candidates as in one process, and a helper
that dies costs nothing but time. Real spawned processes, real files."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from engine_kit import HoldContainment, StageRecorder

from neardup_gui.core import helper as helper_mod
from neardup_gui.core.helper import VerifyHelper, pack_texts, unpack_texts
from neardup_gui.core.pipeline import screen
from neardup_gui.core.records import ScreenParams
from neardup_gui.io.corpus import scan_folder
from neardup_gui.tasks import screen as screen_mod
from neardup_gui.tasks import screen_folder

# No TF-IDF/SimHash for every pair: those models stay in this process, so the helper is not used.
PARAMS = ScreenParams(k=5, all_scores="never")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """160 articles, each with an edited copy (numbers and a negation changed in some), and excerpts."""
    rng = random.Random(12)
    src = tmp_path_factory.mktemp("helper") / "src"
    src.mkdir()
    for i in range(160):
        body = "".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(rng.randrange(300, 900)))
        body = f"截至{rng.randrange(10, 99)}月，共{rng.randrange(100, 999)}家。" + body + "不得擅自变更。"
        (src / f"a{i:03d}.txt").write_text(body, encoding="utf-8")
        edited = body.replace("不得", "可以") if i % 3 == 0 else body[:-30] + "另有补充说明。"
        (src / f"b{i:03d}.txt").write_text(edited, encoding="utf-8")
        if i % 5 == 0:
            (src / f"c{i:03d}.txt").write_text(body[40:260], encoding="utf-8")
    return src


def _key(c) -> tuple:
    return (c.left, c.right, c.methods, round(c.jaccard, 12), c.flags, c.segments, c.evidence, c.suggestion, c.shared_sample)


def test_half_of_each_round_verified_in_a_helper_gives_the_same_candidates(folder) -> None:
    corpus = scan_folder(folder)
    alone = screen(corpus.documents, corpus.texts, PARAMS)
    helper = VerifyHelper()
    helper.start()
    try:
        split = screen(corpus.documents, corpus.texts, PARAMS, helper=helper)
    finally:
        helper.close()
    assert helper.sent >= len(alone.candidates) // 3 and not helper.failed
    assert [_key(c) for c in split.candidates] == [_key(c) for c in alone.candidates]
    assert split.counts == alone.counts and len(alone.candidates) >= 190
    assert any("negation_changed" in c.flags for c in split.candidates)


def test_jobs_the_helper_has_not_started_are_taken_back_and_verified_here(folder) -> None:
    corpus = scan_folder(folder)
    alone = screen(corpus.documents, corpus.texts, PARAMS)
    helper = VerifyHelper()
    helper.start()
    for _ in range(3):  # busy for 3 s: its jobs stay queued meanwhile
        assert helper.call(time.sleep, 1) is not None
    pool = helper._pool
    assert pool is not None
    try:
        split = screen(corpus.documents, corpus.texts, PARAMS, helper=helper)
    finally:
        helper.close()
        pool.shutdown(wait=True)  # no process left sleeping behind the later tests
    assert helper.sent > 0 and helper.taken_back > 0 and not helper.failed
    assert [_key(c) for c in split.candidates] == [_key(c) for c in alone.candidates]
    assert split.counts == alone.counts


def test_a_helper_that_dies_leaves_its_pairs_to_this_process(folder) -> None:
    corpus = scan_folder(folder)
    alone = screen(corpus.documents, corpus.texts, PARAMS)
    helper = VerifyHelper()
    helper.start()
    helper.submit({"doc_ids": [], "texts": pack_texts([]), "documents": [], "groups": [], "signatures": None, "pairs": [],
                   "methods": [], "method_order": [], "params": PARAMS, "template": None}).result()  # fmt: skip
    for process in list(helper._pool._processes.values()):  # type: ignore[union-attr]
        process.kill()  # as the system would, short of memory
        process.join()
    try:
        split = screen(corpus.documents, corpus.texts, PARAMS, helper=helper)
    finally:
        helper.close()
    assert helper.failed
    assert [_key(c) for c in split.candidates] == [_key(c) for c in alone.candidates]


def _screen_sending_early(corpus, params, monkeypatch) -> tuple:
    """``screen`` with a helper whose first jobs go out while the containment index is held back
    (as at 100,000 files, where it outlasts LSH by ~1 s): (result, pairs sent early, helper)."""
    from neardup_gui.core import pipeline as pipeline_mod

    progress = HoldContainment()
    sent_early: list[tuple[int, int]] = []
    real_send = pipeline_mod._EarlyJobs.send

    def send(self, pairs, done, proposals) -> None:
        real_send(self, pairs, done, proposals)
        sent_early.extend(p for job in self.jobs for p in job.pairs)
        progress.released.set()  # the index goes on once the early jobs are out

    monkeypatch.setattr(pipeline_mod._EarlyJobs, "send", send)
    helper = VerifyHelper()
    helper.start()
    try:
        result = screen(corpus.documents, corpus.texts, params, progress, helper=helper)
    finally:
        helper.close()
    assert not helper.failed
    return result, sent_early, helper


def test_pairs_sent_to_the_helper_while_the_containment_index_is_built_give_the_same_candidates(
    folder, monkeypatch
) -> None:
    corpus = scan_folder(folder)
    alone = screen(corpus.documents, corpus.texts, PARAMS)
    split, sent_early, helper = _screen_sending_early(corpus, PARAMS, monkeypatch)
    assert len(sent_early) >= len(alone.candidates) // 3 and helper.sent > len(sent_early)  # and more in rounds
    assert [_key(c) for c in split.candidates] == [_key(c) for c in alone.candidates]
    assert split.counts == alone.counts
    # The index named some of those pairs too after they were sent: their methods say so.
    ids = [d.doc_id for d in corpus.documents if d.usable]
    named = {tuple(sorted((ids[i], ids[j]))) for i, j in sent_early}
    assert any(c.methods == ("minhash", "containment") and tuple(sorted((c.left, c.right))) in named
               for c in split.candidates)  # fmt: skip


def test_pairs_sent_early_that_a_large_cluster_sets_aside_are_left_out(tmp_path, monkeypatch) -> None:
    rng = random.Random(31)
    src = tmp_path / "src"
    src.mkdir()
    base = "".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(700))
    for i in range(14):  # a cluster of near copies, more than cluster_limit files
        chars = list(base)
        for _ in range(12):
            chars[rng.randrange(len(chars))] = chr(0x4E00 + rng.randrange(2500))
        (src / f"copy{i:02d}.txt").write_text("".join(chars), encoding="utf-8")
    for i in range(190):  # pairs of copies, and texts alone: fewer pairs than texts (see ``propose``)
        body = "".join(chr(0x4E00 + rng.randrange(2500)) for _ in range(rng.randrange(300, 700)))
        (src / f"a{i:03d}.txt").write_text(body, encoding="utf-8")
        if i < 40:
            (src / f"b{i:03d}.txt").write_text(body[:-20] + "另有补充说明。", encoding="utf-8")
    params = ScreenParams(k=5, all_scores="never", cluster_limit=5)
    corpus = scan_folder(src)
    alone = screen(corpus.documents, corpus.texts, params)
    split, sent_early, _ = _screen_sending_early(corpus, params, monkeypatch)
    assert alone.counts["set_aside_in_large_clusters"] > 0
    kept = {tuple(sorted((c.left, c.right))) for c in split.candidates}
    ids = [d.doc_id for d in corpus.documents if d.usable]
    named = {tuple(sorted((ids[i], ids[j]))) for i, j in sent_early}
    assert named - kept  # some of the pairs sent early were set aside: not among the candidates
    assert [_key(c) for c in split.candidates] == [_key(c) for c in alone.candidates]
    assert split.counts == alone.counts


@pytest.mark.parametrize("one_call_stats", [False, True])
def test_a_large_screen_starts_the_helper_and_gives_the_same_outputs(folder, tmp_path, monkeypatch,
                                                                    one_call_stats: bool) -> None:
    from neardup_gui.io import fstat

    # This process stats its share of the files one by one, or in one call (io.fstat).
    monkeypatch.setattr(fstat, "_disabled", not one_call_stats)
    if one_call_stats and not fstat.batch_available():
        pytest.skip("no one-call stats here")
    shared = ["_stamps_moved: 0"]
    plain = screen_folder(folder, PARAMS, out_dir=tmp_path / "one")
    monkeypatch.setattr(helper_mod, "HELPER_MIN_DOCUMENTS", 0)
    monkeypatch.setattr(helper_mod, "HELPER_MIN_CORES", 0)
    started: list[VerifyHelper] = []
    engines: list[bool] = []
    real_start = VerifyHelper.start

    def start(self, engine: bool = True) -> None:
        started.append(self)
        engines.append(engine)
        real_start(self, engine)

    monkeypatch.setattr(VerifyHelper, "start", start)
    # The check after the run gives the helper half of the files to stat.
    from neardup_gui.io import corpus as corpus_mod

    monkeypatch.setattr(corpus_mod, "CHECK_SHARE_MIN", 1)
    monkeypatch.setattr(screen_mod, "PRELINK_MIN", 1)
    monkeypatch.setattr(corpus_mod, "SETTLE_NS", 0)  # the rescan below takes every file over unread
    calls: list[str] = []
    real_call = VerifyHelper.call

    def call(self, fn, *args):
        future = real_call(self, fn, *args)
        got = future.result() if future is not None else None
        if isinstance(got, str):  # a NUL-joined list
            got = got.split("\0")
        calls.append(f"{fn.__name__}: {len(got) if isinstance(got, list) else got}")
        return future

    monkeypatch.setattr(VerifyHelper, "call", call)
    split = screen_folder(folder, PARAMS, out_dir=tmp_path / "two", verify_helper=True)
    assert calls == shared and split.run.integrity == "unchanged"
    unasked = screen_folder(folder, PARAMS)  # a library call spawns nothing unless asked
    assert len(started) == 1 and [_key(c) for c in unasked.candidates] == [_key(c) for c in plain.candidates]
    normalized = len(list((tmp_path / "two" / "normalized").glob("*.txt")))
    again = screen_folder(folder, PARAMS, out_dir=tmp_path / "two", verify_helper=True)  # pairs taken over
    assert again.run.counts["pairs_from_previous_run"] == len(plain.candidates)
    # The rescan verifies nothing; a light helper (no engine) links the normalized files ahead,
    # takes half of the check's stats, and removes the previous normalized/ once it is replaced.
    assert engines == [True, False] and again.run.counts["unchanged_files_not_read"] == len(plain.documents)
    assert calls[len(shared):] == [f"prelink_normalized: {normalized}", *shared, "remove_folder_aside: None"]
    assert calls[: len(shared)] == shared and again.run.integrity == "unchanged"
    assert started[0].sent > 0 and started[1].sent == 0 and all(h._pool is None for h in started)  # closed
    assert (tmp_path / "one" / "candidates.csv").read_bytes() == (tmp_path / "two" / "candidates.csv").read_bytes()
    assert [_key(c) for c in split.candidates] == [_key(c) for c in plain.candidates]


@pytest.mark.parametrize(
    ("cores", "documents", "pays", "early"),
    [(2, 39_999, False, False), (2, 40_000, True, False), (3, 100_000, True, False), (1, 100_000, False, False),
     (4, 19_999, False, True), (4, 20_000, True, True), (16, 40_000, True, True)],
)  # fmt: skip
def test_the_helper_is_started_where_it_was_measured_to_pay(monkeypatch, cores, documents, pays, early) -> None:
    monkeypatch.setattr(helper_mod, "usable_cores", lambda: cores)
    assert helper_mod.helper_pays(documents) is pays
    assert helper_mod.start_early() is early


@pytest.mark.parametrize(
    ("cores", "documents", "characters", "pays"),
    [(2, 2_200, 165_000_000, True), (2, 2_200, 59_999_999, False), (2, 800, 60_000_000, True),
     (4, 500, 30_000_000, True), (4, 500, 29_999_999, False), (1, 2_200, 165_000_000, False)],
)  # fmt: skip
def test_long_texts_start_the_helper_from_as_many_characters_as_the_articles_that_pay(
    monkeypatch, cores, documents, characters, pays
) -> None:
    """Verification's work grows with the paired texts' length: 2,200 manuscripts of 75,000
    characters verified in 35 s with the helper against 58-67 s without, on two cores."""
    monkeypatch.setattr(helper_mod, "usable_cores", lambda: cores)
    assert helper_mod.helper_pays(documents, characters) is pays


def test_on_two_cores_the_helper_starts_once_the_documents_are_prepared(folder, monkeypatch) -> None:
    plain = screen_folder(folder, PARAMS)
    monkeypatch.setattr(helper_mod, "usable_cores", lambda: 2)
    monkeypatch.setattr(helper_mod, "HELPER_FEW_CORES_MIN_DOCUMENTS", 0)
    stages = StageRecorder()
    started_after: list[list[str]] = []
    real_start = VerifyHelper.start

    def start(self) -> None:
        started_after.append(list(stages.seen))
        real_start(self)

    monkeypatch.setattr(VerifyHelper, "start", start)
    split = screen_folder(folder, PARAMS, verify_helper=True, progress=stages)
    # Started once (the preparing stages done, before the LSH stage), and used.
    assert len(started_after) == 1 and started_after[0][-1] == "shingle" and "candidates" not in started_after[0]
    assert [_key(c) for c in split.candidates] == [_key(c) for c in plain.candidates]


def test_a_screen_of_few_but_long_texts_starts_the_helper(folder, monkeypatch) -> None:
    """``screen_folder`` weighs the characters of the usable documents, not only their number."""
    usable = [d for d in scan_folder(folder).documents if d.usable]
    chars = sum(d.chars for d in usable)
    monkeypatch.setattr(helper_mod, "usable_cores", lambda: 2)
    monkeypatch.setattr(helper_mod, "HELPER_FEW_CORES_MIN_DOCUMENTS", 1000)
    assert len(usable) < 1000 and chars > 100_000
    started: list[bool] = []
    real_start = VerifyHelper.start

    def start(self) -> None:
        started.append(True)
        real_start(self)

    monkeypatch.setattr(VerifyHelper, "start", start)
    monkeypatch.setattr(helper_mod, "ARTICLE_CHARS", chars // 1000 + 1)  # just more characters than it has
    screen_folder(folder, PARAMS, verify_helper=True)
    assert not started
    monkeypatch.setattr(helper_mod, "ARTICLE_CHARS", chars // 1000)  # the folder holds as many
    screen_folder(folder, PARAMS, verify_helper=True)
    assert started == [True]


def test_texts_packed_for_a_job_come_back_as_they_were() -> None:
    texts = ["", "第一篇", "a\x00b", "半\ud800角", "é" * 3000, "𠀀𠀁", ""]  # a lone surrogate, NULs, astral
    packed = pack_texts(texts)
    assert isinstance(packed[0], bytes) and len(packed[1]) == len(texts)
    assert unpack_texts(packed) == texts
    assert unpack_texts(pack_texts([])) == []


def test_the_helper_warms_up_the_compiled_diff_and_the_exact_intersection() -> None:
    # The helper verifies its share with the compiled kernels, as this process does: without the
    # intersection kernel, 4,000 drafts of ~20,000 characters spent ~5 s in numpy's searchsorted.
    import subprocess
    import sys

    probe = (
        "import sys; from neardup_gui.core import helper; helper._warm(); "
        "from neardup_gui.core import diffspans; "
        "print(diffspans.compiled_diff_active(), 'neardup_gui.core.methods._sortkernel' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]
