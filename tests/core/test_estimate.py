"""The screen's share done and time left: from the engine's estimates of each stage's work."""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from neardup_gui.core import prepare as prepare_mod
from neardup_gui.io import corpus as corpus_mod
from neardup_gui.core.estimate import PlannedProgress, ScreenEstimate, stage_seconds
from neardup_gui.core.progress import STAGES, overall_fraction
from neardup_gui.core.records import ScreenParams
from neardup_gui.tasks import screen_folder

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "io"))
from test_extract import make_pdf  # noqa: E402  (the tests' PDF writer)

NAMES = [name for name, _weight in STAGES]


class Recorder:
    """A progress that listens to estimates: every report and plan, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def report(self, stage: str, done: int, total: int) -> None:
        self.events.append((stage, (done, total)))

    def plan(self, seconds: dict[str, float]) -> None:
        self.events.append(("plan", dict(seconds)))

    def check(self) -> None:
        pass

    def plans(self) -> list[tuple[str, dict[str, float]]]:
        """Each plan with the stage reported last before it."""
        out, stage = [], ""
        for name, what in self.events:
            if name == "plan":
                out.append((stage, what))
            else:
                stage = name
        return out


def shares(seconds: dict[str, float]) -> dict[str, float]:
    total = sum(seconds.values())
    return {name: value / total for name, value in seconds.items()}


def test_a_folder_of_pdfs_spends_its_time_reading_and_the_time_left_says_so() -> None:
    # 2,000 PDFs: reading is ~300 plain files' worth each (io.corpus.read_weight).
    seconds = stage_seconds(files=2000, read_units=2000 * 300, documents=2000)
    assert shares(seconds)["read"] > 0.9
    est = ScreenEstimate()
    est.plan(seconds)
    est.report("list", 2000, 0)
    est.report("read", 1000, 2000)  # half the files read after 4.5 s
    left = est.seconds_left(4.5)
    assert left is not None and 3.5 < left < 6.0  # the other half of the reading, and a little
    # The fixed shares said eight times too long: reading is a fifth of the bar there.
    fixed = overall_fraction("read", 1000, 2000)
    assert 4.5 * (1 - fixed) / fixed > 30


def test_pairs_of_long_drafts_make_verification_most_of_the_work() -> None:
    before = stage_seconds(files=4000, documents=4000, new_chars=4000 * 20_000)
    after = stage_seconds(files=4000, pairs=38_000, pair_chars=38_000 * 40_000)
    assert after["verify"] > 20 * before["verify"]  # once the pairs are known
    est = ScreenEstimate()
    est.plan(stage_seconds(files=4000, read_units=4000, documents=4000))
    est.plan(before)
    est.plan(after)
    assert shares(est.seconds)["verify"] > 0.5
    assert shares(est.seconds)["normalize"] > 0.1 and shares(est.seconds)["read"] < 0.1
    # A rescan that takes its pairs over from the last run verifies almost nothing.
    taken = stage_seconds(files=4000, pairs=38_000, pair_chars=38_000 * 40_000, pairs_taken=37_900)
    assert taken["verify"] < after["verify"] / 5


def test_the_bar_never_moves_back_when_an_estimate_grows_but_the_time_left_does() -> None:
    est = ScreenEstimate()
    est.plan({name: 1.0 for name in NAMES})
    for name in NAMES[: NAMES.index("candidates") + 1]:
        est.report(name, 1, 1)
    shown = est.share()
    assert shown == pytest.approx(5 / 9)
    left_before = est.seconds_left(5.0)
    assert left_before == pytest.approx(4.0)
    est.plan({"verify": 40.0})  # the pairs turned out many
    assert est.share() == shown  # stays where it was
    assert est.work_share() < shown
    left = est.seconds_left(5.0)
    assert left is not None and left == pytest.approx(5.0 * 43 / 5)
    est.report("verify", 20, 40)
    assert est.share() == shown  # still behind what was shown
    est.report("verify", 40, 40)
    assert est.share() > shown
    est.report("candidates", 0, 10)  # out of order: ignored
    est.report("export", 1, 2)  # not a screen's stage: ignored
    assert est.work_share() == pytest.approx(45 / 48)


def test_nothing_is_said_of_the_time_left_until_a_little_is_done() -> None:
    est = ScreenEstimate()
    assert est.seconds_left(10.0) is None  # nothing reported
    est.report("list", 500, 0)  # the listing counts without a total: a sliver of the fixed shares
    assert 0 < est.share() < 0.03 and est.seconds_left(10.0) is None
    est.plan({name: 1.0 for name in NAMES})
    est.report("read", 1, 1)
    assert est.seconds_left(0.2) is None  # too early to extrapolate
    assert est.seconds_left(2.0) == pytest.approx(2.0 * 7 / 2)


def test_a_screen_tells_the_estimates_after_listing_before_preparing_and_before_verifying(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    base = "河流治理项目第三期工程于今年春季正式开工，预计明年年底完工，总投资约十二亿元。"
    for n in range(6):
        (src / f"a{n}.txt").write_text(base * 4 + f"补充说明第{n}条。" * 3, encoding="utf-8")
    (src / "report.pdf").write_bytes(make_pdf([["关于城市绿地建设的调查报告，全文共分五个部分。" * 3]]))
    rec = Recorder()
    screen_folder(src, ScreenParams(include=("*.txt", "*.pdf")), out_dir=tmp_path / "ws", progress=rec)
    plans = rec.plans()
    # after the listing, once read (before preparing), the pairs guessed from the first sample
    # (here every document), once the pairs are proposed
    assert [stage for stage, _seconds in plans] == ["list", "read", "normalize", plans[3][0]] and len(plans) == 4
    listing, preparing, _guess, verifying = (seconds for _stage, seconds in plans)
    assert set(listing) == set(NAMES)
    # One PDF is read at the cost of ~300 plain files: most of the reading's estimate.
    assert listing["read"] > 30 * 6 * 30e-6
    assert {"normalize", "candidates", "verify"} <= set(preparing) and "read" not in preparing
    assert set(verifying) == {"verify", "flags", "check", "write"}
    # The six near copies give 15 pairs: the verification now says so (the guess was one).
    assert verifying["verify"] > 5 * preparing["verify"]
    # Every estimate came before the stage it is for.
    order = [name for name, _what in rec.events]
    assert order.index("plan") < order.index("read")
    assert max(i for i, name in enumerate(order) if name == "plan") < order.index("verify")


def test_a_rescan_estimates_little_work_for_files_taken_over(tmp_path: Path, monkeypatch) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for n in range(40):
        (src / f"{n:02}.txt").write_text(f"第{n}篇文章的内容，讲述本地新闻与天气变化。" * 20, encoding="utf-8")
    # Files written within SETTLE_NS of a scan are read again whatever their stamp: shortened here.
    monkeypatch.setattr(corpus_mod, "SETTLE_NS", 50_000_000)
    time.sleep(0.15)
    screen_folder(src, ScreenParams(), out_dir=tmp_path / "ws")
    first, again = Recorder(), Recorder()
    screen_folder(src, ScreenParams(), out_dir=tmp_path / "ws2", progress=first)
    screen_folder(src, ScreenParams(), out_dir=tmp_path / "ws", progress=again)
    fresh, rescan = first.plans()[0][1], again.plans()[0][1]
    assert rescan["read"] < fresh["read"] / 2  # taken over unread, not read
    assert again.plans()[1][1]["normalize"] < first.plans()[1][1]["normalize"] / 2  # from the cache


def test_a_planned_progress_passes_estimates_on_unthrottled() -> None:
    got: list[dict[str, float]] = []
    reports: list[tuple[str, int, int]] = []
    progress = PlannedProgress(lambda s, d, t: reports.append((s, d, t)), got.append, min_interval=3600)
    progress.report("read", 0, 10)
    progress.report("read", 1, 10)  # throttled
    progress.plan({"read": 1.0})
    progress.plan({"verify": 2.0})
    assert got == [{"read": 1.0}, {"verify": 2.0}]
    assert reports == [("read", 0, 10)]


def test_preparing_reports_the_batches_finished_while_it_waits_for_one() -> None:
    """The bar moves while preparing waits for the candidates its samples choose (for a folder of
    articles that is every batch): it reports the documents of the batches finished meanwhile."""
    reports: list[tuple[str, int, int]] = []
    blocker: Future[object] = Future()

    class Progress:
        def report(self, stage: str, done: int, total: int) -> None:
            reports.append((stage, done, total))
            if done >= 5 + 300:  # every finished batch counted: let the wait end
                blocker.set_result(None)

        def check(self) -> None:
            pass

    work = prepare_mod._Preparer(ScreenParams(), Progress(), False, False, False)
    try:
        finished: list[Future[object]] = []
        for size in (100, 200):
            f: Future[object] = Future()
            f.set_result(None)
            finished.append(f)
        waiting: Future[object] = Future()  # not finished
        work.pending = [*finished, waiting]
        work._sizes = [100, 200, 50]
        old = prepare_mod._REPORT_EVERY
        prepare_mod._REPORT_EVERY = 0.01
        try:
            timer = threading.Timer(10, lambda: blocker.done() or blocker.set_result(None))
            timer.start()
            shown = work._waiting(blocker, 5, 5, 355)
            timer.cancel()
        finally:
            prepare_mod._REPORT_EVERY = old
    finally:
        work.close()
    assert reports and reports[-1] == ("normalize", 305, 355)
    assert shown == 305


def test_drafts_that_pair_with_each_other_are_guessed_many_pairs_from_the_first_sample(
    tmp_path: Path, monkeypatch
) -> None:
    """Before the pairs are known, the pairs of the first boilerplate sample (LSH on its
    signatures), scaled to the folder, say that a folder of drafts verifies many pairs."""
    import random

    rng = random.Random(5)
    src = tmp_path / "drafts"
    src.mkdir()
    for family in range(10):
        text = "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(1500))
        for draft in range(8):
            cut = rng.randrange(100, 1400)
            text = text[:cut] + "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(20)) + text[cut + 20 :]
            (src / f"m{family}_{draft}.txt").write_text(text, encoding="utf-8")
    monkeypatch.setattr(prepare_mod, "TEMPLATE_SAMPLE", 40)  # half the folder is sampled first
    rec = Recorder()
    outcome = screen_folder(src, ScreenParams(), out_dir=tmp_path / "ws", progress=rec)
    assert len(outcome.candidates) >= 200  # most of the 280 pairs within the families
    plans = rec.plans()
    guessed = [seconds for stage, seconds in plans if stage == "normalize"]
    assert len(guessed) == 1
    before, final = plans[1][1], plans[-1][1]
    assert before["verify"] < final["verify"] / 10  # from the document count: far too little
    assert final["verify"] / 2 < guessed[0]["verify"] < final["verify"] * 2
