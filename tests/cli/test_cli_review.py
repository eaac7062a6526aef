"""``neardup decide / arbitrate / export / verify`` on a real session and real source files."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path

import pytest
from openpyxl import load_workbook

from neardup_gui.cli import main
from neardup_gui.core.records import Candidate, Document, RunRecord, ScreenParams, Segment
from neardup_gui.io.session import SESSION_FILENAME, ReviewSession

TEXTS = {
    "news/a.txt": "报销单提交后需要直属主管审批，批准后才能付款。",
    "news/b.txt": "报销单提交后，需要直属主管审批，批准后才可以付款。",
    "web/c.txt": "报销单提交后不需要直属主管审批，批准后才能付款。",
}


@pytest.fixture
def outdir(tmp_path: Path) -> Path:
    """A screen output folder as `neardup screen` leaves it (session built from hand-made records)."""
    source, out = tmp_path / "source", tmp_path / "out"
    docs = []
    for rel, text in TEXTS.items():
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("gb18030" if rel.startswith("web") else "utf-8")
        (source / rel).write_bytes(data)
        docs.append(Document("d-" + Path(rel).stem, rel.split("/")[0], "v1", rel, len(data), 1.0,
                             hashlib.sha256(data).hexdigest(), "utf-8", len(text), "ok"))  # fmt: skip
    candidates = [
        Candidate("d-a", "d-b", ("minhash",), 0.59, 0.7, 0.65, 0.6, 12, 20, 22, 0.9, 0.59,
                  segments=(Segment(0, 6, 0, 6),)),
        Candidate("d-a", "d-c", ("minhash",), 0.79, 0.9, 0.88, 0.8, 18, 20, 21, 0.95, 0.79,
                  flags=("negation_changed",), segments=(Segment(8, 15, 9, 16),)),
    ]  # fmt: skip
    run = RunRecord("run-1", str(source), ScreenParams().to_dict(), 25, 5, {}, "0" * 64,
                    {"files": 3}, "2024-05-01T09:00:00+08:00", "2024-05-01T09:00:01+08:00")  # fmt: skip
    with ReviewSession.open(out / SESSION_FILENAME) as session:
        session.record_run(run, docs, candidates)
    return out


def _decisions(outdir: Path):
    with ReviewSession.open(outdir / SESSION_FILENAME, read_only=True) as session:
        return session.decisions(), session.pair_state("d-a", "d-c")


def test_decide_by_manifest_path_records_the_decision(outdir: Path, capsys) -> None:
    code = main(["decide", str(outdir), "--left", "web/c.txt", "--right", "./news/a.txt",
                 "--status", "valid_revision", "--reviewer", "王芳", "--reason", "多了“不”字",
                 "--retained", "both", "--related-source", "内部制度 2024 版"])  # fmt: skip
    assert code == 0
    assert "saved: news/a.txt <-> web/c.txt: valid_revision by 王芳" in capsys.readouterr().out
    [decision], state = _decisions(outdir)
    assert (decision.left, decision.right, decision.retained) == ("d-a", "d-c", "both")
    assert decision.related_source == "内部制度 2024 版" and state.status == "valid_revision"


def test_unknown_document_is_refused_with_exit_2(outdir: Path, capsys) -> None:
    code = main(["decide", str(outdir), "--left", "news/missing.txt", "--right", "d-a",
                 "--status", "keep_both", "--reviewer", "王芳"])  # fmt: skip
    assert code == 2
    assert "no document 'news/missing.txt'" in capsys.readouterr().err
    assert _decisions(outdir)[0] == []


def test_folder_without_session_or_with_a_damaged_one_is_refused(tmp_path: Path, capsys) -> None:
    args = ["--left", "a", "--right", "b", "--status", "keep_both", "--reviewer", "x"]
    assert main(["decide", str(tmp_path), *args]) == 2
    assert "no review session" in capsys.readouterr().err
    (tmp_path / SESSION_FILENAME).write_bytes(b"this is not a database, just bytes" * 100)
    assert main(["decide", str(tmp_path), *args]) == 2
    assert "not a database" in capsys.readouterr().err


def test_disagreement_then_arbitration_from_the_command_line(outdir: Path, capsys) -> None:
    base = ["--left", "d-a", "--right", "d-c"]
    assert main(["decide", str(outdir), *base, "--status", "suggest_merge_entry",
                 "--reviewer", "alice", "--retained", "left"]) == 0  # fmt: skip
    assert main(["decide", str(outdir), *base, "--status", "valid_revision", "--reviewer", "bob"]) == 0
    assert "pending_arbitration" in capsys.readouterr().out
    assert main(["arbitrate", str(outdir), *base, "--status", "valid_revision",
                 "--arbitrator", "chief", "--reason", "否定词改变含义"]) == 0  # fmt: skip
    decisions, state = _decisions(outdir)
    assert [d.reviewer for d in decisions] == ["alice", "bob"]
    assert state.status == "valid_revision" and state.arbitrations[0].arbitrator == "chief"


def test_decide_is_refused_while_another_program_holds_the_session(outdir: Path, capsys) -> None:
    with ReviewSession.open(outdir / SESSION_FILENAME):
        code = main(["decide", str(outdir), "--left", "d-a", "--right", "d-b",
                     "--status", "keep_both", "--reviewer", "x"])  # fmt: skip
    assert code == 2 and "already open" in capsys.readouterr().err


def test_export_then_verify_passes_and_fails_after_one_edited_cell(outdir: Path, tmp_path: Path, capsys) -> None:
    main(["decide", str(outdir), "--left", "d-a", "--right", "d-b", "--status", "keep_both",
          "--reviewer", "王芳"])  # fmt: skip
    workbook = tmp_path / "exports" / "review.xlsx"
    with ReviewSession.open(outdir / SESSION_FILENAME):  # export works while the window is open
        assert main(["export", str(outdir), "--xlsx", str(workbook), "--signed-by", "李主任"]) == 0
    assert "signed by 李主任" in capsys.readouterr().out

    assert main(["verify", str(workbook)]) == 0
    assert "Unchanged since signing" in capsys.readouterr().out

    wb = load_workbook(workbook)
    wb["Reviews"]["H2"] = "edited afterwards"
    wb.save(workbook)
    assert main(["verify", str(workbook)]) == 1
    assert "Reviews differs" in capsys.readouterr().err


def test_export_reads_excerpts_from_the_unchanged_source_files(outdir: Path, tmp_path: Path) -> None:
    workbook = tmp_path / "review.xlsx"
    assert main(["export", str(outdir), "--xlsx", str(workbook), "--signed-by", "x"]) == 0
    ws = load_workbook(workbook)["Candidates"]
    header = [c.value for c in ws[1]]
    excerpts = [row[header.index("raw_excerpts")] for row in ws.iter_rows(min_row=2, values_only=True)]
    assert excerpts[0].startswith("[1] 报销单提交后")
    assert excerpts[1].startswith("[1] 直属主管审批，") and "(right)" not in excerpts[1]  # GB18030 file


def test_export_csv_writes_candidates_reviews_and_mapping(outdir: Path, tmp_path: Path) -> None:
    main(["decide", str(outdir), "--left", "d-a", "--right", "d-b", "--status",
          "suggest_merge_entry", "--reviewer", "alice", "--retained", "right"])  # fmt: skip
    folder = tmp_path / "csv"
    assert main(["export", str(outdir), "--csv", str(folder), "--signed-by", "x"]) == 0
    with (folder / "candidates_reviewed.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["review_decision"] for r in rows] == ["merge", "needs_context"]
    with (folder / "id_mapping.csv").open(encoding="utf-8-sig", newline="") as fh:
        [mapping] = list(csv.DictReader(fh))
    assert (mapping["old_doc_id"], mapping["new_doc_id"], mapping["decided_by"]) == ("d-a", "d-b", "alice")
    assert (folder / "reviews.csv").read_bytes().startswith(b"\xef\xbb\xbf")


def test_export_refuses_a_target_inside_the_source_folder(outdir: Path, tmp_path: Path, capsys) -> None:
    before = sorted(p.name for p in (tmp_path / "source").rglob("*"))
    code = main(["export", str(outdir), "--xlsx", str(tmp_path / "source" / "r.xlsx"), "--signed-by", "x"])
    assert code == 2 and "source folder" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "source").rglob("*")) == before


def test_export_without_a_target_and_verify_of_a_non_workbook_are_refused(outdir: Path, tmp_path: Path) -> None:
    assert main(["export", str(outdir), "--signed-by", "x"]) == 2
    (tmp_path / "fake.xlsx").write_text("not a workbook", encoding="utf-8")
    assert main(["verify", str(tmp_path / "fake.xlsx")]) == 2
    assert main(["verify", str(tmp_path / "missing.xlsx")]) == 2


class _Terminal:
    """A stderr that says it is a terminal, keeping what is written."""

    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


def test_export_shows_its_progress_on_stderr_and_quiet_silences_it(outdir: Path, tmp_path: Path, capsys) -> None:
    # stderr is not a terminal here: a line as each stage starts and one as it ends.
    assert main(["export", str(outdir), "--xlsx", str(tmp_path / "r.xlsx"), "--signed-by", "x"]) == 0
    lines = capsys.readouterr().err.splitlines()
    rows = [line for line in lines if "Writing the workbook" in line]
    total = rows[0].rsplit("/", 1)[1]
    assert int(total) >= 3  # the manifest's three files at least
    assert rows == [f"  0% Writing the workbook: 0/{total}", f"100% Writing the workbook: {total}/{total}"]
    checks = [line for line in lines if "Checking the workbook" in line]
    assert checks[-1] == f"100% Checking the workbook's digests: {total}/{total}"
    assert lines.index(rows[-1]) < lines.index(checks[0])

    assert main(["export", str(outdir), "--xlsx", str(tmp_path / "q.xlsx"), "--signed-by", "x", "-q"]) == 0
    assert main(["verify", str(tmp_path / "q.xlsx"), "-q"]) == 0
    err = capsys.readouterr().err  # (the fixture's GB18030 file gives a note: its row says UTF-8)
    assert "Writing" not in err and "Checking" not in err and "%" not in err


def test_the_terminal_bar_fills_per_export_stage_and_counts_a_check_of_unknown_size() -> None:
    from neardup_gui.cli import StderrProgress

    term = _Terminal()
    bar = StderrProgress(term, min_interval=0)
    bar.report("workbook", 500, 2000)
    assert term.text.endswith(" 25% Writing the workbook 500/2,000   ")  # the stage's share, not the screen's
    assert "[#######......." in term.text
    bar.report("workbook_check", 40960, 0)  # `verify` does not know the size beforehand
    last = term.text.rsplit("\r", 1)[1]
    assert last.startswith("Checking the workbook's digests: 40,960 so far ")
    assert "%" not in last and "#" not in last
    bar.close()
    assert term.text.endswith("\n")


def test_the_terminal_bar_of_a_screen_follows_the_engine_s_estimates_and_says_the_time_left() -> None:
    import time

    from neardup_gui.cli import StderrProgress
    from neardup_gui.core.progress import STAGES

    term = _Terminal()
    bar = StderrProgress(term, min_interval=0)
    bar.report("list", 2000, 0)
    assert "left" not in term.text  # nothing known yet
    # As the engine says after listing a folder of PDFs: reading is nine tenths of the work.
    bar.plan({name: (9.0 if name == "read" else 0.1) for name, _weight in STAGES})
    bar._started = time.monotonic() - 4.5  # reading for 4.5 s
    bar.report("read", 1000, 2000)
    last = term.text.rsplit("\r", 1)[1]
    assert last.startswith("[##############................]  47% Reading files 1,000/2,000, about 5 s left")
    bar.close()
    # Without a terminal: a plain line per stage, no time left.
    plain = io.StringIO()
    lines = StderrProgress(plain, min_interval=0)
    lines.plan({name: (9.0 if name == "read" else 0.1) for name, _weight in STAGES})
    lines.report("read", 0, 2000)
    assert plain.getvalue() == "  1% Reading files: 0/2,000\n"
