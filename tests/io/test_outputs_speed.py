"""The fast output writers give exactly the bytes and session rows of the straightforward ones.

The reference writers below are the earlier, simple implementations (one ``csv_cell`` call per
cell, ``datetime.astimezone`` per file time, ``dataclasses.asdict`` per candidate part, one
``normalize`` per text), kept here as the oracle.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_gui.core.normalize import normalize, to_text
from neardup_gui.core.records import Candidate, Document, FlagEvidence, NormalizeOptions, Segment
from neardup_gui.io import outputs
from neardup_gui.io.cellsafe import csv_cell
from neardup_gui.io.session import ReviewSession
from neardup_gui.tasks import screen_folder

BENCH = Path(__file__).resolve().parents[2] / "bench"


# -- the reference writers ------------------------------------------------------------------------
def ref_iso_time(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).astimezone().isoformat(timespec="seconds")


def ref_fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


def ref_manifest_rows(documents: Iterable[Document]) -> list[list[Any]]:
    return [
        [d.doc_id, d.source_id, d.version, d.path, d.size, ref_iso_time(d.mtime) if d.mtime else "",
         d.sha256, d.encoding, d.chars, d.status, d.message, d.extractor]
        for d in documents
    ]  # fmt: skip


def ref_candidate_rows(candidates: Iterable[Candidate], documents: Mapping[str, Document]) -> list[list[Any]]:
    rows = []
    for c in candidates:
        left, right = documents[c.left], documents[c.right]
        rows.append(
            [left.path, right.path, c.left, c.right, left.source_id, right.source_id, left.version,
             right.version, ";".join(c.methods), ref_fmt(c.score), ref_fmt(c.jaccard),
             ref_fmt(c.containment_left), ref_fmt(c.containment_right), ref_fmt(c.minhash_estimate),
             ref_fmt(c.tfidf_cosine), "" if c.simhash_distance is None else c.simhash_distance,
             ref_fmt(c.length_ratio), c.shared_shingles, c.shingles_left, c.shingles_right,
             ";".join(c.flags), c.suggestion,
             " ".join(f"{s.left_start}-{s.left_end}:{s.right_start}-{s.right_end}" for s in c.segments),
             " | ".join(c.shared_sample)]
        )  # fmt: skip
    return rows


def ref_csv_bytes(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([csv_cell(v) for v in row])
    return buf.getvalue().encode("utf-8-sig")


_JSON_PARTS = {"methods", "flags", "shared_sample", "segments", "evidence"}


def ref_candidate_values(run_id: str, ord_: int, c: Candidate) -> tuple[Any, ...]:
    def value(name: str) -> Any:
        v = getattr(c, name)
        if name in _JSON_PARTS:
            return json.dumps([asdict(x) if name in ("segments", "evidence") else x for x in v], ensure_ascii=False)
        return v

    return (run_id, ord_, *(value(f.name) for f in fields(Candidate)))


def ref_document_values(run_id: str, d: Document) -> tuple[Any, ...]:
    return (run_id, *(getattr(d, f.name) for f in fields(Document)))


# -- a realistic folder ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def screened(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """A 300-document synthetic Chinese corpus plus awkward files, screened with outputs."""
    root = tmp_path_factory.mktemp("speed")
    source = root / "source"
    sys.path.insert(0, str(BENCH))
    try:
        from make_corpus import generate
    finally:
        sys.path.remove(str(BENCH))
    generate(source, 300, 5)
    text = (source / sorted(p.relative_to(source).as_posix() for p in source.rglob("*.txt"))[0]).read_text(
        encoding="utf-8", errors="replace"
    )
    # Names a spreadsheet would run as formulas, in a folder whose name does too (source_id).
    odd = source / "=HYPERLINK(1)"
    odd.mkdir()
    (odd / "+1 稿件.txt").write_text(text, encoding="utf-8")
    (odd / "-draft.txt").write_text(text.replace("。", "，", 3), encoding="utf-8")
    (odd / "@mention.txt").write_text("短", encoding="utf-8")
    (odd / "empty.txt").write_bytes(b"")
    (odd / "binary.txt").write_bytes(b"\x00\x01\x02" * 50)
    (odd / "gb.txt").write_bytes(text.encode("gb18030", errors="replace"))
    os.utime(odd / "gb.txt", (1_700_000_000.9999996, 1_700_000_000.9999996))  # rounds up a second
    outcome = screen_folder(source, out_dir=root / "out")
    return outcome, root / "out"


def test_manifest_and_candidates_files_are_byte_identical_to_the_reference(screened: tuple[Any, Path]) -> None:
    outcome, out = screened
    by_id = outcome.documents_by_id
    assert any(d.status != "ok" for d in outcome.documents)  # the manifest holds every status
    assert any(c.evidence for c in outcome.candidates) and any(len(c.segments) > 1 for c in outcome.candidates)
    assert (out / "manifest.csv").read_bytes() == ref_csv_bytes(
        outputs.MANIFEST_COLUMNS, ref_manifest_rows(outcome.documents)
    )
    assert (out / "candidates.csv").read_bytes() == ref_csv_bytes(
        outputs.CANDIDATE_COLUMNS, ref_candidate_rows(outcome.candidates, by_id)
    )
    cells = [cell for name in ("manifest.csv", "candidates.csv")
             for row in csv.reader(io.StringIO((out / name).read_text(encoding="utf-8-sig"))) for cell in row]  # fmt: skip
    assert "'=HYPERLINK(1)/+1 稿件.txt" in cells and "'=HYPERLINK(1)" in cells
    assert not [c for c in cells if c.startswith(("=", "+", "@", "\t", "\r")) or c.startswith("-") and not c[1:2].isdigit()]


def test_candidates_written_a_slice_at_a_time_are_the_reference_bytes(screened: tuple[Any, Path]) -> None:
    outcome, _ = screened
    by_id = outcome.documents_by_id
    many = list(outcome.candidates) * (600 // len(outcome.candidates) + 1)  # several slices
    parts = list(outputs.candidate_csv_parts(many, by_id))
    assert len(parts) > 3
    assert b"".join(parts) == ref_csv_bytes(outputs.CANDIDATE_COLUMNS, ref_candidate_rows(many, by_id))
    assert b"".join(outputs.candidate_csv_parts([], by_id)) == ref_csv_bytes(outputs.CANDIDATE_COLUMNS, [])


def test_a_screen_with_hundreds_of_pairs_writes_its_candidates_file_whole(tmp_path: Path) -> None:
    rng = random.Random(3)
    base = "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(400))
    source = tmp_path / "src"
    source.mkdir()
    for i in range(32):  # 496 pairs: two slices and more
        (source / f"{i:02d}.txt").write_text(base[:200] + "=改" * (i + 1) + base[200:], encoding="utf-8")
    outcome = screen_folder(source, out_dir=tmp_path / "out")
    assert len(outcome.candidates) == 32 * 31 // 2
    written = (tmp_path / "out" / "candidates.csv").read_bytes()
    expected = ref_candidate_rows(outcome.candidates, outcome.documents_by_id)
    assert written == ref_csv_bytes(outputs.CANDIDATE_COLUMNS, expected)


def test_session_rows_are_those_of_the_reference_encoding(screened: tuple[Any, Path]) -> None:
    outcome, out = screened
    run_id = outcome.run.run_id
    with sqlite3.connect(f"{(out / 'session.sqlite').as_uri()}?mode=ro", uri=True) as conn:
        documents = conn.execute("SELECT * FROM documents WHERE run_id = ? ORDER BY path", (run_id,)).fetchall()
        candidates = conn.execute("SELECT * FROM candidates WHERE run_id = ? ORDER BY ord", (run_id,)).fetchall()
    # The last column of both tables is the row's digest (see the session's notes).
    documents, candidates = [row[:-1] for row in documents], [row[:-1] for row in candidates]
    assert documents == [ref_document_values(run_id, d) for d in sorted(outcome.documents, key=lambda d: d.path)]
    assert candidates == [ref_candidate_values(run_id, i, c) for i, c in enumerate(outcome.candidates)]
    with ReviewSession.open(out / "session.sqlite", read_only=True) as session:
        assert tuple(session.candidates(run_id)) == outcome.candidates


def test_normalized_files_hold_each_text_normalized_on_its_own(screened: tuple[Any, Path]) -> None:
    outcome, out = screened
    expected = {
        f"{d.doc_id}.txt": to_text(normalize(outcome.texts[d.doc_id], outcome.params.normalize).cps).encode("utf-8")
        for d in outcome.documents
        if (d.usable or d.status == "no_shingles") and d.doc_id in outcome.texts
    }
    written = {p.name: p.read_bytes() for p in (out / "normalized").iterdir()}
    assert len(written) > 300 and written == expected


def test_normalized_folder_of_more_texts_than_one_batch_is_complete(tmp_path: Path) -> None:
    texts = {f"d{i:04d}": f"第{i}篇　Ｔｅｘｔ，{'内容' * (i % 7)}" for i in range(1100)}
    options = NormalizeOptions.preset("punct")
    outputs.write_normalized(tmp_path / "n", texts, list(texts), options)
    for doc_id, text in texts.items():
        expected = to_text(normalize(text, options).cps).encode("utf-8")
        assert (tmp_path / "n" / f"{doc_id}.txt").read_bytes() == expected
    assert len(list((tmp_path / "n").iterdir())) == 1100


# -- file times in awkward zones ------------------------------------------------------------------
@pytest.fixture
def local_zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    if not hasattr(time, "tzset"):
        pytest.skip("the time zone cannot be switched on this platform")

    def use(zone: str) -> None:
        monkeypatch.setenv("TZ", zone)
        time.tzset()

    yield use
    monkeypatch.undo()
    time.tzset()


def _times(seed: int) -> list[float]:
    rng = random.Random(seed)
    times = [rng.uniform(-2e9, 4e9) for _ in range(1500)]
    times += [rng.uniform(1.6e9, 1.61e9) for _ in range(1500)]  # clustered, as in a copied folder
    times += [rng.randrange(-10**9, 3 * 10**9) for _ in range(200)]  # whole seconds, ints
    # Fractions that round into the next second, and times on both sides of zone changes.
    times += [1_700_000_000.9999996, 1_700_000_000.9999994, 1_699_999_999.99999949, -0.0000001, -1.5, 1e-7]
    times += [t + d for t in (1_710_054_000, 1_730_613_600, 1_711_846_800, 1_728_144_000) for d in
              (-3601, -3600, -1800.5, -1, -0.5, 0, 0.5, 1, 1799.25, 3599, 3600, 86400)]  # fmt: skip
    times += [-2_177_481_943.0, -2_177_481_944.5, 253_402_300_799.0, -62_135_596_800.0, 1e300, float("nan")]
    return times


@pytest.mark.parametrize(
    "zone",
    ["UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe", "Asia/Shanghai",
     "America/St_Johns", "Pacific/Chatham", "Africa/Casablanca", "Antarctica/Troll"],
)  # fmt: skip
def test_file_times_in_the_manifest_match_the_reference_in_every_kind_of_zone(local_zone: Any, zone: str) -> None:
    local_zone(zone)
    documents = [Document(f"d{i}", "s", "v1", f"d{i}.txt", 1, t, "", "", 0, "ok") for i, t in enumerate(_times(3))]
    expected = []
    for d in documents:
        try:
            expected.append(ref_iso_time(d.mtime) if d.mtime else "")
        except (ValueError, OverflowError, OSError) as exc:
            expected.append(type(exc))
    if any(isinstance(e, type) for e in expected):  # the reference refuses some: so must we, one by one
        for d, e in zip(documents, expected):
            if isinstance(e, type):
                with pytest.raises(e):
                    outputs.manifest_rows([d])
            else:
                assert outputs.manifest_rows([d])[0][5] == e, d.mtime
    kept = [d for d, e in zip(documents, expected) if not isinstance(e, type)]
    assert [row[5] for row in outputs.manifest_rows(kept)] == [e for e in expected if not isinstance(e, type)]


# -- CSV cells ------------------------------------------------------------------------------------
class Label(str):
    """A str subclass, as some libraries hand out."""


_text = st.text(alphabet=st.sampled_from(list("=+-@\t\r\n,\"' a中文；")), max_size=6)
_cell = st.one_of(
    _text, _text.map(Label), st.integers(-5, 5), st.floats(allow_nan=False), st.none(), st.booleans()
)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 4).flatmap(lambda n: st.lists(st.lists(_cell, min_size=n, max_size=n), max_size=6)))
def test_csv_cells_are_escaped_exactly_as_the_reference_escapes_them(rows: list[list[Any]]) -> None:
    columns = [f"c{i}" for i in range(len(rows[0]) if rows else 1)]
    assert outputs.csv_bytes(columns, rows) == ref_csv_bytes(columns, rows)
    assert outputs.csv_bytes(columns, iter(rows)) == ref_csv_bytes(columns, rows)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(_cell, max_size=4), max_size=6))
def test_rows_of_different_lengths_or_empty_rows_are_written_as_the_reference_writes_them(rows: list[list[Any]]) -> None:
    assert outputs.csv_bytes(["a", "b"], rows) == ref_csv_bytes(["a", "b"], rows)


@pytest.mark.parametrize(
    "odd",
    ['say "hi"', "a,b", "line\nbreak", "carriage\rreturn", "=1+1", "", Label("label"), 2.5, None, True, -3],
)
def test_plain_slices_are_joined_and_any_cell_that_needs_quoting_or_converting_gives_the_same_bytes(odd: Any) -> None:
    # Slices of plain text and whole numbers are joined cell by cell rather than run through the
    # csv writer (3x cheaper); one cell anywhere in the slice that the writer would quote, escape
    # or print differently must still come out as the reference writes it.
    rows = [[f"稿件{i}.txt", i, "a1b2c3", ""] for i in range(50)]
    columns = ["path", "n", "sha256", "message"]
    assert outputs.csv_bytes(columns, rows) == ref_csv_bytes(columns, rows)
    for place in (0, 2, 3):
        changed = [list(r) for r in rows]
        changed[17][place] = odd
        assert outputs.csv_bytes(columns, changed) == ref_csv_bytes(columns, changed), (place, odd)
    assert outputs.csv_bytes(["path"], [[""], ["x"]]) == ref_csv_bytes(["path"], [[""], ["x"]])  # a lone empty cell: ""


def test_wide_rows_are_written_in_short_slices_with_the_same_bytes(monkeypatch) -> None:
    # A candidate row carries its passages and shared sample (~1,000 characters): 2,048 of them
    # in one C call held the GIL for ~60 ms, a stall of the window while a screen writes.
    from neardup_gui.io import outputs

    wide = [[f"p{i}.txt", "=SUM(A1)" if i % 97 == 0 else "ok", "段落" * 400, i, 0.5] for i in range(3000)]
    narrow = [[f"p{i}.txt", i] for i in range(5000)]
    slices: list[int] = []
    real = outputs._write_rows
    monkeypatch.setattr(outputs, "_write_rows", lambda writer, out, rows: slices.append(len(rows)) or real(writer, out, rows))
    columns = ["path", "note", "text", "n", "score"]
    assert outputs.csv_bytes(columns, wide) == ref_csv_bytes(columns, wide)
    assert sum(slices) == 3000 and max(slices) * 800 <= outputs._CSV_SLICE_CHARS
    slices.clear()
    assert outputs.csv_bytes(["path", "n"], narrow) == ref_csv_bytes(["path", "n"], narrow)
    assert max(slices) == outputs._CSV_SLICE  # short rows: as many a slice as before


# -- the session's candidate values ---------------------------------------------------------------
_json_text = st.text(alphabet=st.sampled_from(list('ab稿"\\\n\t\x00\x1f\x7f\u2028 ') + ["\ud800", "😀"]), max_size=5)
_span_end = st.one_of(st.integers(0, 10**6), st.integers(0, 10**6), st.booleans(), st.floats(0, 10))  # ints, mostly
_spans = st.lists(st.tuples(_span_end, _span_end), max_size=2).map(tuple)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_json_text, max_size=3).map(tuple),
    st.lists(st.sampled_from(["exact_normalized", "template_only", 'a"b']), max_size=3).map(tuple),
    st.lists(st.builds(FlagEvidence, _json_text, _spans, _spans, _json_text), max_size=3).map(tuple),
)
def test_session_values_of_a_candidate_are_the_reference_json_for_any_text(
    sample: tuple[str, ...], flags: tuple[str, ...], evidence: tuple[FlagEvidence, ...]
) -> None:
    # Texts, flags and notes are joined into JSON by hand when nothing in them needs escaping; a
    # quote, backslash, control character or lone surrogate anywhere must give what json gives.
    from neardup_gui.io.session import _candidate_values

    candidate = Candidate("a", "b", flags or ("minhash",), 0.5, 0.5, 0.5, 0.5, 3, 6, 6, 1.0, 0.5, flags, sample,
                          (Segment(0, 3, 1, 4),), evidence)  # fmt: skip
    assert _candidate_values([candidate])[0] == ref_candidate_values("run", 0, candidate)[2:]
