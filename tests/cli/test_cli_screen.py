"""``neardup screen`` end to end on real folders: outputs, refusals, determinism, originals untouched."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from neardup_gui.cli import main
from neardup_gui.core.normalize import normalize
from neardup_gui.io.paths import sample_corpus_dir

SEED_TEXTS = {
    "A": "资料整理说明：先备份原始稿件，再登记来源与版本。每周归档一次，保留修改记录。",
    "B": "资料整理说明  先备份原始稿件，再登记来源与版本！每周归档一次；保留修改记录。",
    "C": "资料整理说明：先备份原始稿件，再登记来源与版本。每天归档一次，保留修改记录。",
    "D": "资料整理说明：本文供内部参考。摄影素材需要登记镜头焦距与拍摄位置。",
    "E": "盆栽养护记录：观察叶片状态，按照土壤湿度调整浇水频率。",
}
SEED_ARGS = ["--k", "3", "--num-perm", "64", "--bands", "16", "--rows", "4", "-q"]


def read_csv(path: Path) -> list[dict[str, str]]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "CSV must start with a UTF-8 BOM for spreadsheet programs"
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def snapshot(folder: Path) -> dict[str, tuple[str, int, int]]:
    """Every entry under folder: content hash, size and mtime (ns)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        st = p.lstat()
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() and not p.is_symlink() else ""
        out[str(p.relative_to(folder))] = (digest, st.st_size if p.is_file() else 0, st.st_mtime_ns)
    return out


@pytest.fixture
def seed_folder(tmp_path: Path) -> Path:
    src = tmp_path / "seed" / "demo"
    src.mkdir(parents=True)
    for name, text in SEED_TEXTS.items():
        (src / f"{name}.txt").write_text(text, encoding="utf-8")
    return tmp_path / "seed"


@pytest.fixture
def sample_copy(tmp_path: Path) -> Path:
    dest = tmp_path / "sample"
    shutil.copytree(sample_corpus_dir(), dest)
    return dest


def test_seed_example_through_the_command_line(seed_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["screen", str(seed_folder), "--out", str(out), *SEED_ARGS]) == 0
    rows = read_csv(out / "candidates.csv")
    by_pair = {(r["left"], r["right"]): r for r in rows}
    assert float(by_pair[("demo/A.txt", "demo/B.txt")]["jaccard"]) == 1.0
    assert "exact_normalized" in by_pair[("demo/A.txt", "demo/B.txt")]["flags"].split(";")
    assert round(float(by_pair[("demo/A.txt", "demo/C.txt")]["jaccard"]), 4) == 0.8235
    assert not any("demo/E.txt" in pair for pair in by_pair)
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert (run["bands"], run["rows"]) == (16, 4)
    assert run["params"]["k"] == 3 and run["params"]["num_perm"] == 64
    assert run["integrity"] == "unchanged"
    assert run["versions"]["neardup_gui"]


def test_outputs_of_the_sample_corpus(sample_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["screen", str(sample_copy), "--out", str(out), "-q"]) == 0
    manifest = read_csv(out / "manifest.csv")
    files = sorted(str(p.relative_to(sample_copy)).replace(os.sep, "/") for p in sample_copy.rglob("*") if p.is_file())
    assert sorted(r["path"] for r in manifest) == files
    statuses = {r["path"]: r["status"] for r in manifest}
    assert statuses["通讯员来稿/未命名稿件.txt"] == "empty"
    assert {r["encoding"] for r in manifest if r["path"] == "通讯员来稿/农村电商培训班_通讯员原稿.txt"} == {"gb18030"}

    rows = read_csv(out / "candidates.csv")
    assert rows, "the sample has planted duplicates"
    scores = [float(r["jaccard"]) for r in rows]
    assert scores == sorted(scores, reverse=True)
    pairs = {frozenset((r["left"], r["right"])) for r in rows}
    assert frozenset(("历史稿件/old_estate_renovation.txt", "历史稿件/old_estate_renovation_rev2.txt")) in pairs
    excerpt = frozenset(("历史稿件/雨污分流改造纪实.txt", "网站转载/sewer_renovation_excerpt.txt"))
    assert excerpt in pairs, "an excerpt must be found through containment"
    assert all("网站转载/spring_tea_harvest.txt" not in p for p in pairs)

    # normalized/ holds the normalized text of each compared document, re-creatable from the raw text.
    by_path = {r["path"]: r for r in manifest}
    row = by_path["历史稿件/old_estate_renovation.txt"]
    raw = (sample_copy / row["path"]).read_text(encoding="utf-8")
    assert (out / "normalized" / f"{row['doc_id']}.txt").read_text(encoding="utf-8") == normalize(raw).text
    assert (out / "session.sqlite").is_file()


def test_two_runs_write_byte_identical_candidates(sample_copy: Path, tmp_path: Path) -> None:
    assert main(["screen", str(sample_copy), "--out", str(tmp_path / "one"), "-q"]) == 0
    assert main(["screen", str(sample_copy), "--out", str(tmp_path / "two"), "-q"]) == 0
    for name in ("candidates.csv", "manifest.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_source_folder_is_byte_identical_after_a_run(sample_copy: Path, tmp_path: Path) -> None:
    before = snapshot(sample_copy)
    assert main(["screen", str(sample_copy), "--out", str(tmp_path / "out"), "-q"]) == 0
    assert snapshot(sample_copy) == before


def test_read_only_source_folder_is_screened_and_left_unchanged(sample_copy: Path, tmp_path: Path) -> None:
    for p in [*sample_copy.rglob("*"), sample_copy]:
        mode = p.stat().st_mode
        p.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        before = snapshot(sample_copy)
        assert main(["screen", str(sample_copy), "--out", str(tmp_path / "out"), "-q"]) == 0
        assert snapshot(sample_copy) == before
        assert read_csv(tmp_path / "out" / "candidates.csv")
    finally:
        for p in [sample_copy, *sample_copy.rglob("*")]:
            p.chmod(p.stat().st_mode | stat.S_IWUSR)


@pytest.mark.parametrize("inside", [".", "results", "demo/results"])
def test_output_inside_the_source_is_refused_and_nothing_is_written(
    seed_folder: Path, inside: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(seed_folder)
    out = seed_folder / inside
    assert main(["screen", str(seed_folder), "--out", str(out), "-q"]) == 2
    assert "inside" in capsys.readouterr().err.lower()
    assert snapshot(seed_folder) == before


def test_missing_source_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["screen", str(tmp_path / "nope"), "--out", str(tmp_path / "out"), "-q"]) == 2
    assert "not found" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("method", ["tfidf", "jaccard"])
def test_a_method_too_large_for_the_folder_is_refused_in_a_sentence(
    seed_folder: Path, tmp_path: Path, method: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from neardup_gui.core import pipeline
    from neardup_gui.core.methods import bruteforce

    monkeypatch.setattr(pipeline, "available_memory", lambda: 1024)  # no room for a TF-IDF model
    monkeypatch.setattr(bruteforce, "estimated_seconds", lambda *a: 3 * 3600.0)  # nor time for every pair
    out = tmp_path / "out"
    assert main(["screen", str(seed_folder), "--out", str(out), "-q", "--method", method]) == 2
    err = capsys.readouterr().err
    assert err.startswith("neardup: error: ") and "Traceback" not in err
    assert ("of memory at its peak" if method == "tfidf" else "would take about 3 h") in err and "minhash" in err
    assert not (out / "manifest.csv").exists()


@pytest.mark.parametrize(
    "options",
    [
        ["--threshold", "0.7", "--bands", "16", "--rows", "4"],
        ["--bands", "16"],
        ["--bands", "40", "--rows", "4"],  # 160 > 128 permutations
        ["--k", "0"],
        ["--threshold", "1.5"],
    ],
)
def test_contradictory_or_impossible_options_are_refused(
    seed_folder: Path, tmp_path: Path, options: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["screen", str(seed_folder), "--out", str(out), "-q", *options]) == 2
    assert "error" in capsys.readouterr().err
    assert not out.exists()


def test_skipped_files_are_summarised_on_the_command_line(
    seed_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (seed_folder / "demo" / "empty.txt").write_bytes(b"")
    (seed_folder / "demo" / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    assert main(["screen", str(seed_folder), "--out", str(tmp_path / "out"), *SEED_ARGS]) == 0
    printed = capsys.readouterr().out
    assert "1 empty" in printed and "1 binary" in printed


def test_word_documents_are_screened_when_included(tmp_path: Path) -> None:
    docx = pytest.importorskip("docx")
    src = tmp_path / "manuscripts"
    src.mkdir()
    body = SEED_TEXTS["A"] * 3
    for name, text in (("draft.docx", body), ("final.docx", body.replace("每周", "每天")), ("other.docx", SEED_TEXTS["E"] * 3)):
        document = docx.Document()
        for paragraph in text.split("。"):
            document.add_paragraph(paragraph)
        document.save(str(src / name))
    (src / "note.txt").write_text(body, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["screen", str(src), "--out", str(out), "--include", "*.docx", "-q"]) == 0
    manifest = {r["path"]: r for r in read_csv(out / "manifest.csv")}
    assert manifest["draft.docx"]["status"] == "ok"
    assert manifest["draft.docx"]["extractor"].startswith("docx lxml")
    assert manifest["note.txt"]["status"] == "excluded"
    pairs = {(r["left"], r["right"]) for r in read_csv(out / "candidates.csv")}
    assert pairs == {("draft.docx", "final.docx")}


TFIDF_SEED = {
    "a": "报销单提交后需要直属主管审批，批准后才能付款。",
    "b": "报销单提交后，需要直属主管审批，批准后才可以付款。",
    "c": "报销单提交后不需要直属主管审批，批准后才能付款。",
    "d": "视频配音先上传音频，再选择音色并试听效果。",
    "e": "报销单提交后需要直属主管审批，批准后才能付款。",
}


def test_tfidf_method_reproduces_the_seed_table(tmp_path: Path) -> None:
    src = tmp_path / "rules"
    src.mkdir()
    for name, text in TFIDF_SEED.items():
        (src / f"{name}.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    args = ["screen", str(src), "--out", str(out), "--method", "tfidf", "--threshold", "0.5",
            "--normalize", "whitespace", "--ngram", "2,3", "--k", "2", "-q"]  # fmt: skip
    assert main(args) == 0
    rows = read_csv(out / "candidates.csv")
    got = {(r["left"][0], r["right"][0]): round(float(r["score"]), 4) for r in rows}
    assert got == {("a", "b"): 0.5907, ("a", "c"): 0.7967, ("a", "e"): 1.0, ("b", "c"): 0.5394,
                   ("b", "e"): 0.5907, ("c", "e"): 0.7967}  # fmt: skip
    flags = {(r["left"][0], r["right"][0]): r["flags"].split(";") for r in rows}
    assert "exact_normalized" in flags[("a", "e")]
    assert all(r["methods"] for r in rows)


def test_every_pair_carries_every_methods_score_and_who_found_it(sample_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["screen", str(sample_copy), "--out", str(out), "-q"]) == 0
    rows = read_csv(out / "candidates.csv")
    assert rows
    for r in rows:
        assert r["tfidf_cosine"] and 0.0 <= float(r["tfidf_cosine"]) <= 1.0 + 1e-9
        assert r["simhash_distance"] != "" and 0 <= int(r["simhash_distance"]) <= 64
        assert set(r["methods"].split(";")) <= {"exact", "minhash", "containment"}


@pytest.mark.parametrize("method", ["jaccard", "simhash", "exact"])
def test_other_methods_run_and_are_recorded(sample_copy: Path, tmp_path: Path, method: str) -> None:
    out = tmp_path / method
    assert main(["screen", str(sample_copy), "--out", str(out), "--method", method, "-q"]) == 0
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["params"]["method"] == method
    rows = read_csv(out / "candidates.csv")
    pairs = {frozenset((r["left"], r["right"])) for r in rows}
    identical = frozenset(("历史稿件/2023-06-12_柳塘街道社区食堂开业.txt", "通讯员来稿/社区食堂开业稿_柳塘街道报送.txt"))
    assert identical in pairs
    if method == "exact":
        assert all("exact_normalized" in r["flags"] for r in rows)


def test_brute_force_jaccard_finds_what_minhash_verified_above_the_threshold(sample_copy: Path, tmp_path: Path) -> None:
    assert main(["screen", str(sample_copy), "--out", str(tmp_path / "m"), "--containment", "0", "-q"]) == 0
    assert main(["screen", str(sample_copy), "--out", str(tmp_path / "j"), "--method", "jaccard", "--containment", "0", "-q"]) == 0
    minhash = {(r["left"], r["right"]): r["jaccard"] for r in read_csv(tmp_path / "m" / "candidates.csv")}
    brute = {(r["left"], r["right"]): r["jaccard"] for r in read_csv(tmp_path / "j" / "candidates.csv")}
    assert minhash == brute


def test_scope_new_against_reference_is_recorded_and_counted(sample_copy: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["screen", str(sample_copy), "--out", str(out), "--scope", "new_vs_reference", "--reference", "历史稿件/*", "-q"]) == 0
    rows = read_csv(out / "candidates.csv")
    both_archive = [r for r in rows if r["left"].startswith("历史稿件/") and r["right"].startswith("历史稿件/")]
    assert not both_archive
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["params"]["scope"] == "new_vs_reference" and run["params"]["scope_patterns"] == ["历史稿件/*"]
    assert run["counts"]["left_out_by_scope"] >= 2  # the number and the appended revisions, both in the archive
    assert "left out" in capsys.readouterr().err


def test_scope_without_reference_patterns_is_refused(seed_folder: Path, tmp_path: Path) -> None:
    assert main(["screen", str(seed_folder), "--out", str(tmp_path / "o"), "--scope", "across", "-q"]) == 2


def test_no_normalized_leaves_a_note_instead_of_stale_files(sample_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["screen", str(sample_copy), "--out", str(out), "-q"]) == 0
    assert len(list((out / "normalized").glob("*.txt"))) > 20
    assert main(["screen", str(sample_copy), "--out", str(out), "--no-normalized", "-q"]) == 0
    assert [p.name for p in (out / "normalized").iterdir()] == ["NOT_WRITTEN.txt"]
    assert read_csv(out / "candidates.csv")


def test_progress_on_stderr_names_each_stage_once_with_the_listing_count_first(sample_copy, tmp_path, capsys) -> None:
    # stderr is not a terminal here: one line per stage as it starts and one as it ends, none in between.
    assert main(["screen", str(sample_copy), "--out", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].endswith("Listing files: 0 found")
    reading = [line for line in lines if "Reading files" in line]
    files = sum(1 for p in sample_copy.rglob("*") if p.is_file())
    assert reading[0].endswith(": 0/" + reading[-1].rsplit("/", 1)[1]) and reading[-1].endswith(f": {files}/{files}")
    assert not [line for line in lines if "Listing files" in line][1:]  # no count for every folder listed


def test_a_large_group_of_copies_is_verified_sparsely_unless_told_otherwise(tmp_path: Path, capsys) -> None:
    import random

    rng = random.Random(9)
    base = "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(300))
    src = tmp_path / "notices"
    src.mkdir()
    for i in range(30):  # one notice filled in 30 times
        (src / f"{i:02d}.txt").write_text(base[:150] + f"金额{1000 + i}元" + base[150:], encoding="utf-8")
    assert main(["screen", str(src), "--out", str(tmp_path / "sparse"), "--cluster-limit", "20"]) == 0
    said = capsys.readouterr().err  # notes go to stderr
    assert main(["screen", str(src), "--out", str(tmp_path / "all"), "--cluster-limit", "0", "-q"]) == 0
    sparse = json.loads((tmp_path / "sparse" / "run.json").read_text(encoding="utf-8"))
    every = json.loads((tmp_path / "all" / "run.json").read_text(encoding="utf-8"))
    assert (sparse["params"]["cluster_limit"], every["params"]["cluster_limit"]) == (20, 0)
    assert len(read_csv(tmp_path / "all" / "candidates.csv")) == 30 * 29 // 2
    kept = len(read_csv(tmp_path / "sparse" / "candidates.csv"))
    assert kept < 30 * 29 // 2 and sparse["counts"]["set_aside_in_large_clusters"] == 30 * 29 // 2 - kept
    assert "1 group(s) of more than 20 files linked as near copies (30 files)" in said
