"""``neardup evaluate`` on a screen of the bundled sample corpus (a private copy) and its labels."""

from __future__ import annotations

import csv
import hashlib
import shutil
from pathlib import Path

import pytest
from openpyxl import load_workbook

from neardup_gui.cli import main
from neardup_gui.tasks.evaluate import PAIR_COLUMNS, THRESHOLD_COLUMNS
from neardup_gui.io.paths import resources_dir, sample_corpus_dir
from neardup_gui.io.session import SESSION_FILENAME, ReviewSession

LIGHT_EDIT = ("通讯员来稿/农村电商培训班_通讯员原稿.txt", "历史稿件/2024-03-08_桥南镇农村电商培训班结业.txt")


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    target = tmp_path / "sample"
    shutil.copytree(sample_corpus_dir(), target)
    return target


@pytest.fixture
def labels() -> Path:
    return resources_dir() / "sample_labels.csv"


def _screen(sample: Path, out: Path, *extra: str) -> Path:
    assert main(["screen", str(sample), "--out", str(out), "-q", *extra]) == 0
    return out


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def _checksums(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_evaluate_writes_the_threshold_table_for_k_3_5_7_and_prints_it(sample: Path, labels: Path, tmp_path: Path, capsys) -> None:
    out = _screen(sample, tmp_path / "out")
    before = _checksums(sample)
    capsys.readouterr()
    assert main(["evaluate", str(out), "--labels", str(labels), "-q"]) == 0
    printed = capsys.readouterr().out
    assert "17 pairs (5 positive, 12 negative; tune 10, holdout 7)" in printed
    assert "k  threshold  split    candidates  TP  FP  FN  precision  recall  cand.recall" in printed
    with (out / "thresholds.csv").open(encoding="utf-8-sig") as fh:
        header = fh.readline().strip().split(",")
    assert header[:9] == ["k", "threshold", "candidates", "tp", "fp", "fn", "precision", "recall", "candidate_recall"]
    assert tuple(header) == THRESHOLD_COLUMNS
    rows = _csv(out / "thresholds.csv")
    assert len(rows) == 3 * 3 * 3  # k x thresholds x (all, tune, holdout)
    table = {(r["k"], r["threshold"], r["split"]): r for r in rows}
    # The three revisions (number, date, negation) score above 0.9 at every k: they are the false
    # positives a threshold cannot remove. The light edit drops below 0.9.
    for k in ("3", "5", "7"):
        r = table[(k, "0.9", "all")]
        assert (r["tp"], r["fp"], r["fn"], r["candidate_recall"]) == ("4", "3", "1", "1.000000")
        r = table[(k, "0.7", "all")]
        assert (r["tp"], r["fp"], r["fn"], r["precision"]) == ("5", "3", "0", "0.625000")
    assert table[("5", "0.9", "holdout")]["fn"] == "1" and table[("5", "0.9", "tune")]["fn"] == "0"
    assert all(r["label_source"] == "labels file sample_labels.csv" for r in rows)
    assert _checksums(sample) == before


def test_every_labelled_pair_gets_its_score_outcome_and_error_reason(sample: Path, labels: Path, tmp_path: Path) -> None:
    out = _screen(sample, tmp_path / "out")
    assert main(["evaluate", str(out), "--labels", str(labels), "--k", "5", "--thresholds", "0.9", "-q"]) == 0
    rows = _csv(out / "evaluation_pairs.csv")
    assert tuple(rows[0]) == PAIR_COLUMNS and len(rows) == 17
    by_pair = {(r["left"], r["right"]): r for r in rows}
    edit = by_pair[LIGHT_EDIT]
    assert edit["outcome"] == "FN" and edit["hit"] == "1"
    assert edit["error"].startswith("below threshold (Jaccard 0.86") and edit["error"].endswith("< 0.9)")
    negation = by_pair[("内部通知/夜班编辑工作规范.txt", "内部通知/夜班编辑工作规范_修订稿.txt")]
    assert negation["outcome"] == "FP"
    assert negation["error"].startswith("false positive: labelled 0 (否定修订：")
    excerpt = by_pair[("历史稿件/雨污分流改造纪实.txt", "网站转载/sewer_renovation_excerpt.txt")]
    assert (excerpt["outcome"], excerpt["methods"], excerpt["error"]) == ("TN", "containment", "")


def test_results_go_into_the_workbook_thresholds_sheet(sample: Path, labels: Path, tmp_path: Path) -> None:
    out = _screen(sample, tmp_path / "out")
    assert main(["evaluate", str(out), "--labels", str(labels), "--k", "3", "-q"]) == 0
    with ReviewSession.open(out / SESSION_FILENAME, read_only=True) as session:
        stored = session.thresholds()
    assert len(stored) == 9 and stored[0]["k"] == 3 and stored[0]["split"] == "all"
    book_path = tmp_path / "review.xlsx"
    assert main(["export", str(out), "--xlsx", str(book_path), "--signed-by", "测试"]) == 0
    sheet = load_workbook(book_path)["Thresholds"]
    values = list(sheet.iter_rows(values_only=True))
    head = list(values[0])
    first = dict(zip(head, values[1]))
    assert head[:9] == ["k", "threshold", "candidates", "tp", "fp", "fn", "precision", "recall", "candidate_recall"]
    assert (first["k"], first["threshold"], first["tp"], first["fp"]) == (3, 0.5, 5, 3)


def test_unknown_paths_in_the_labels_are_reported_and_not_counted(sample: Path, tmp_path: Path, capsys) -> None:
    out = _screen(sample, tmp_path / "out")
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "left,right,label\n" + f"{LIGHT_EDIT[0]},{LIGHT_EDIT[1]},1\n" + "历史稿件/不存在的稿件.txt,网站转载/spring_tea_harvest.txt,1\n",
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["evaluate", str(out), "--labels", str(labels), "--k", "5", "-q"]) == 0
    captured = capsys.readouterr()
    assert "1 pairs (1 positive, 0 negative)" in captured.out
    assert "1 labelled pair(s) name documents not in the source folder and are NOT counted" in captured.err
    assert "'历史稿件/不存在的稿件.txt' is neither a doc_id nor a path" in captured.err
    unknown = [r for r in _csv(out / "evaluation_pairs.csv") if r["outcome"] == "unknown"]
    assert len(unknown) == 1 and unknown[0]["error"].startswith("not counted: line 3:")


def test_a_positive_that_lsh_misses_counts_as_a_miss_and_the_audit_lists_it(sample: Path, labels: Path, tmp_path: Path, capsys) -> None:
    # One band of 64 rows and no containment index: only near-identical texts can collide.
    out = _screen(sample, tmp_path / "out", "--bands", "1", "--rows", "64", "--containment", "0")
    capsys.readouterr()
    assert main(["evaluate", str(out), "--labels", str(labels), "--k", "5", "--audit-misses", "-q"]) == 0
    printed = capsys.readouterr().out
    rows = {(r["threshold"], r["split"]): r for r in _csv(out / "thresholds.csv")}
    r = rows[("0.7", "all")]
    assert int(r["fn"]) >= 1 and float(r["candidate_recall"]) < 1.0 and int(r["lsh_misses"]) >= 1
    pairs = {(p["left"], p["right"]): p for p in _csv(out / "evaluation_pairs.csv") if p["threshold"] == "0.7"}
    edit = pairs[LIGHT_EDIT]
    assert edit["hit"] == "0" and edit["error"].startswith("missed by LSH (Jaccard 0.86")
    misses = {(m["left"], m["right"]): m for m in _csv(out / "lsh_misses.csv")}
    left, right = sorted(LIGHT_EDIT)  # the audit lists pairs in path order
    assert misses[(left, right)]["label"] == "1"
    assert f"{left}  <->  {right}" in printed
    assert "not returned by LSH" in printed


def test_audit_above_the_limit_is_refused_with_the_sampling_option(sample: Path, labels: Path, tmp_path: Path, capsys) -> None:
    out = _screen(sample, tmp_path / "out")
    capsys.readouterr()
    code = main(["evaluate", str(out), "--labels", str(labels), "--k", "5", "--audit-misses", "--audit-limit", "10", "-q"])
    assert code == 2
    assert "above the limit of 10 documents" in capsys.readouterr().err
    code = main(["evaluate", str(out), "--labels", str(labels), "--k", "5", "--audit-misses", "--audit-limit", "10",
                 "--audit-sample", "8", "-q"])  # fmt: skip
    assert code == 0
    assert "a sample of 8 of 23 documents" in capsys.readouterr().out
    assert {r["sampled"] for r in _csv(out / "lsh_misses.csv")} <= {"1"}


def test_review_decisions_can_serve_as_labels(sample: Path, tmp_path: Path, capsys) -> None:
    out = _screen(sample, tmp_path / "out")
    assert main(["decide", str(out), "--left", LIGHT_EDIT[0], "--right", LIGHT_EDIT[1],
                 "--status", "suggest_merge_entry", "--reviewer", "王芳"]) == 0  # fmt: skip
    assert main(["decide", str(out), "--left", "历史稿件/old_estate_renovation.txt",
                 "--right", "历史稿件/old_estate_renovation_rev2.txt", "--status", "valid_revision",
                 "--reviewer", "王芳"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["evaluate", str(out), "--from-decisions", "--k", "5", "-q"]) == 0
    captured = capsys.readouterr()
    assert "labels: review decisions in session.sqlite" in captured.out
    assert "2 pairs (1 positive, 1 negative)" in captured.out
    assert "exist only for pairs the screen already showed" in captured.err
    row = _csv(out / "thresholds.csv")[0]
    assert (row["tp"], row["fp"], row["fn"]) == ("1", "1", "0")
    assert row["label_source"].startswith("review decisions")


def test_a_folder_without_a_screen_is_refused(tmp_path: Path, labels: Path, capsys) -> None:
    assert main(["evaluate", str(tmp_path), "--labels", str(labels)]) == 2
    assert "run `neardup screen` first" in capsys.readouterr().err


def test_a_bad_threshold_list_is_refused(tmp_path: Path, labels: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", str(tmp_path), "--labels", str(labels), "--thresholds", "50,70"])
    assert exc.value.code == 2
    assert "thresholds are Jaccard values in (0, 1]" in capsys.readouterr().err


def test_files_read_by_the_reading_helper_give_the_same_evaluation(sample: Path, labels: Path, tmp_path: Path,
                                                                   monkeypatch) -> None:
    # A large folder is read partly by a helper process, as a screen reads it: the same results.
    from neardup_gui.io import corpus as corpus_mod

    out = _screen(sample, tmp_path / "out")
    assert main(["evaluate", str(out), "--labels", str(labels), "-q"]) == 0
    alone = {name: (out / name).read_bytes() for name in ("thresholds.csv", "evaluation_pairs.csv")}
    chunks: list[int] = []
    real_chunk = corpus_mod._claim
    monkeypatch.setattr(corpus_mod, "READ_HELPER_MIN_FILES", 2)
    monkeypatch.setattr(corpus_mod, "_HELPER_CHUNK", 2)
    monkeypatch.setattr(corpus_mod, "usable_cores", lambda: 2)
    monkeypatch.setattr(corpus_mod, "_claim", lambda counter: chunks.append(1) or real_chunk(counter))
    assert main(["evaluate", str(out), "--labels", str(labels), "-q"]) == 0
    assert chunks  # the files were shared with a helper
    assert {name: (out / name).read_bytes() for name in alone} == alone


def test_the_screens_prepare_cache_serves_its_own_shingle_size_with_the_same_results(
    sample: Path, labels: Path, tmp_path: Path, monkeypatch
) -> None:
    from neardup_gui.core import evaluate as evaluate_core
    from neardup_gui.tasks import evaluate as evaluate_task

    out = _screen(sample, tmp_path / "out")  # k = 5, its entries in out/cache
    reused: dict[int, int] = {}
    real_prepare = evaluate_core.prepare

    def noting(doc_ids, texts, params, *args, **kwargs):  # type: ignore[no-untyped-def]
        prepared = real_prepare(doc_ids, texts, params, *args, **kwargs)
        reused[params.k] = prepared.reused
        return prepared

    monkeypatch.setattr(evaluate_core, "prepare", noting)
    assert main(["evaluate", str(out), "--labels", str(labels), "-q"]) == 0
    from_cache = {name: (out / name).read_bytes() for name in ("thresholds.csv", "evaluation_pairs.csv")}
    usable = sum(1 for row in _csv(out / "manifest.csv") if row["status"] == "ok")
    assert usable >= 20 and reused == {3: 0, 5: usable, 7: 0}  # the other sizes: another key, prepared afresh
    monkeypatch.setattr(evaluate_task, "load_cache", lambda *args, **kwargs: None)  # as without a cache
    assert main(["evaluate", str(out), "--labels", str(labels), "-q"]) == 0
    assert reused == {3: 0, 5: 0, 7: 0}
    assert {name: (out / name).read_bytes() for name in from_cache} == from_cache
