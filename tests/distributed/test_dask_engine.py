"""The Dask engine finds exactly what the in-process engine finds, from folders, file lists and
Parquet tables, and writes the same outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

from dask_kit import PARAMS, TRICKY_PARAMS  # noqa: E402

from neardup_gui.core.pipeline import screen  # noqa: E402
from neardup_gui.core.progress import Cancelled, CallbackProgress  # noqa: E402
from neardup_gui.core.records import STATUS_OK  # noqa: E402
from neardup_gui.distributed import DistributedRefused  # noqa: E402
from neardup_gui.distributed.engine import screen_distributed  # noqa: E402
from neardup_gui.tasks import screen_folder  # noqa: E402

ENGINE_COUNTS = (
    "documents_compared",
    "proposed_exact",
    "proposed_minhash",
    "proposed_containment",
    "capped_buckets",
    "boilerplate_samples_ignored",
    "proposed_pairs",
    "rejected_by_verification",
    "candidates",
)


def assert_same_screen(got, ref) -> None:
    """Same manifest, same candidates with every score, flag, span and sample, same counts."""
    assert got.documents == ref.documents
    assert len(got.candidates) == len(ref.candidates)
    for mine, theirs in zip(got.candidates, ref.candidates):
        assert mine == theirs
    for key in ENGINE_COUNTS:
        assert got.run.counts.get(key) == ref.run.counts.get(key), key
    assert (got.run.bands, got.run.rows) == (ref.run.bands, ref.run.rows)


def session_contents(out: Path) -> tuple:
    """The run's manifest and candidates as the review session (the desktop app) reads them."""
    from neardup_gui.io.session import ReviewSession

    with ReviewSession.open(out / "session.sqlite", read_only=True) as session:
        run_id = session.latest_run_id()
        return tuple(session.documents(run_id)), tuple(session.candidates(run_id))


def test_sample_on_dask_gives_the_in_process_candidates_and_output_files(dask_client, sample_dir, tmp_path):
    stages: list[str] = []
    ref = screen_folder(sample_dir, PARAMS, out_dir=tmp_path / "local")
    got = screen_distributed(
        sample_dir,
        PARAMS,
        out_dir=tmp_path / "dask",
        client=dask_client,
        partition_docs=5,
        chunk_pairs=3,
        progress=CallbackProgress(lambda stage, done, total: stages.append(stage), min_interval=0),
    )
    assert_same_screen(got, ref)
    local, dask = tmp_path / "local", tmp_path / "dask"
    for name in ("manifest.csv", "candidates.csv"):
        assert (dask / name).read_bytes() == (local / name).read_bytes(), name
    normalized = sorted(p.name for p in (local / "normalized").iterdir())
    assert sorted(p.name for p in (dask / "normalized").iterdir()) == normalized
    for name in normalized:
        assert (dask / "normalized" / name).read_bytes() == (local / "normalized" / name).read_bytes()
    assert session_contents(dask) == session_contents(local)
    # Nothing but the outputs is left in the output folder (no staging folder). The in-process
    # engine also keeps its prepare cache for the next rescan; the Dask engine has none.
    assert (local / "cache" / "prepare.npz").is_file()
    assert sorted(p.name for p in dask.iterdir()) == sorted(p.name for p in local.iterdir() if p.name != "cache")
    assert got.run.integrity == "unchanged"
    assert got.run.versions["engine"] == "dask (2 workers)"
    assert stages.index("read") < stages.index("candidates") < stages.index("verify")


def test_corpus_wide_choices_match_in_process(dask_client, tricky_dir, reference_tricky):
    # Partitions of 10 documents cut exact groups, LSH buckets and boilerplate across workers.
    got = screen_distributed(tricky_dir, TRICKY_PARAMS, client=dask_client, partition_docs=10, chunk_pairs=16)
    assert_same_screen(got, reference_tricky)
    counts = got.run.counts
    assert counts["capped_buckets"] > 0 and counts["boilerplate_samples_ignored"] > 0
    assert counts["proposed_containment"] > 0 and counts["files_no_shingles"] == 1
    flags = {f for c in got.candidates for f in c.flags}
    assert {"template_only", "exact_bytes", "contained"} <= flags


@pytest.mark.parametrize(
    "scope", [dict(scope="within", scope_field="source_id"), dict(scope="new_vs_reference", scope_patterns=("转载/*",))]
)
def test_comparison_scope_leaves_out_the_same_pairs(dask_client, tricky_dir, scope):
    params = TRICKY_PARAMS.with_(**scope)
    ref = screen_folder(tricky_dir, params)
    got = screen_distributed(tricky_dir, params, client=dask_client, partition_docs=10)
    assert ref.run.counts["left_out_by_scope"] > 0
    assert got.run.counts["left_out_by_scope"] == ref.run.counts["left_out_by_scope"]
    assert_same_screen(got, ref)


def test_generated_2000_file_corpus_on_dask_matches_in_process(dask_client, corpus_2000, reference_2000):
    got = screen_distributed(corpus_2000, PARAMS, client=dask_client, partition_docs=250, chunk_pairs=40)
    assert len(got.candidates) > 100
    assert_same_screen(got, reference_2000)


def test_file_list_screens_the_listed_files_like_their_folder(dask_client, tricky_dir, reference_tricky, tmp_path):
    readable = [d for d in reference_tricky.documents if d.sha256]
    listing = tmp_path / "files.txt"
    lines = ["# every file the folder screen read", *[d.path for d in readable[::2]]]
    lines += [str(tricky_dir / d.path) for d in readable[1::2]]  # absolute paths work too
    listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = screen_distributed(tricky_dir, TRICKY_PARAMS, files_from=listing, client=dask_client, partition_docs=10)
    assert got.documents == tuple(readable)
    assert got.candidates == reference_tricky.candidates


def test_parquet_table_gives_the_in_process_candidates_for_its_texts(dask_client, tricky_dir, reference_tricky,
                                                                     tmp_path):  # fmt: skip
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from neardup_gui.io.corpus import scan_folder

    corpus = scan_folder(tricky_dir)
    rows = [d for d in corpus.documents if d.status == STATUS_OK]
    table = pa.table(
        {
            "doc_id": [d.doc_id for d in rows],
            "path": [d.path for d in rows],
            "text": [corpus.texts[d.doc_id] for d in rows],
        }
    )
    folder = tmp_path / "lake"
    folder.mkdir()
    pq.write_table(table.slice(0, 40), folder / "part-0.parquet", row_group_size=7)
    pq.write_table(table.slice(40), folder / "part-1.parquet", row_group_size=7)
    out = tmp_path / "out"
    got = screen_distributed(tricky_dir, TRICKY_PARAMS, parquet=folder, out_dir=out, client=dask_client,
                             partition_docs=10, chunk_pairs=16)  # fmt: skip
    assert [d.doc_id for d in got.documents] == [d.doc_id for d in rows]
    texts = {d.doc_id: corpus.texts[d.doc_id] for d in rows}
    ref = screen([d for d in got.documents], texts, TRICKY_PARAMS)
    assert got.candidates == ref.candidates
    assert len(got.candidates) == len(reference_tricky.candidates)
    assert sorted(p.name for p in (out / "normalized").iterdir()) == sorted(f"{d.doc_id}.txt" for d in rows)
    assert got.run.integrity.startswith("not checked")


def test_cancel_stops_the_run_and_writes_nothing(dask_client, sample_dir, tmp_path):
    def cancel_at_candidates(stage: str, done: int, total: int) -> None:
        if stage == "candidates":
            progress.cancel()

    progress = CallbackProgress(cancel_at_candidates, min_interval=0)
    out = tmp_path / "out"
    with pytest.raises(Cancelled):
        screen_distributed(sample_dir, PARAMS, out_dir=out, client=dask_client, partition_docs=5, progress=progress)
    assert not out.exists()


def test_methods_other_than_minhash_are_refused_with_a_reason(dask_client, sample_dir):
    with pytest.raises(DistributedRefused, match="in-process"):
        screen_distributed(sample_dir, PARAMS.with_(method="tfidf"), client=dask_client)
    with pytest.raises(DistributedRefused, match="in-process"):
        screen_distributed(sample_dir, PARAMS.with_(all_scores="always"), client=dask_client)
    with pytest.raises(DistributedRefused, match="not both"):
        screen_distributed(sample_dir, PARAMS, files_from=sample_dir / "x.txt", parquet=sample_dir, client=dask_client)


@pytest.mark.parametrize("scope", [{}, dict(scope="new_vs_reference", scope_patterns=("archive/*",))])
def test_a_large_cluster_of_near_copies_is_thinned_to_the_same_pairs_on_dask(dask_client, tmp_path, scope):
    import random

    rng = random.Random(21)

    def text(n: int) -> str:
        return "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(n))

    base = text(240)
    src = tmp_path / "src"
    (src / "archive").mkdir(parents=True)
    for i in range(45):  # one notice filled in 45 times, one of them saved twice more; a third archived
        chars = list(base)
        for _ in range(2):
            chars[rng.randrange(len(chars))] = chr(0x4E00 + rng.randrange(3000))
        body = "".join(chars[:120]) + f"金额{rng.randrange(10**6)}元" + "".join(chars[120:])
        (src / ("archive" if i % 3 == 1 else "") / f"notice_{i:02d}.txt").write_text(body, encoding="utf-8")
    for i in range(6):
        (src / f"other_{i}.txt").write_text(text(300), encoding="utf-8")
    for c in range(2):
        (src / f"notice_00_copy{c}.txt").write_bytes((src / "notice_00.txt").read_bytes())
    params = PARAMS.with_(cluster_limit=20, **scope)
    ref = screen_folder(src, params, out_dir=tmp_path / "local")
    got = screen_distributed(src, params, out_dir=tmp_path / "dask", client=dask_client, partition_docs=9,
                             chunk_pairs=64)  # fmt: skip
    assert ref.run.counts["set_aside_in_large_clusters"] > 0 and ref.run.counts["clustered_documents"] == 47
    assert_same_screen(got, ref)
    for key in ("large_clusters", "clustered_documents", "set_aside_in_large_clusters"):
        assert got.run.counts[key] == ref.run.counts[key], key
    said = [note for note in got.run.notes if "group(s) of more than 20 files" in note]
    assert said and said == [note for note in ref.run.notes if "group(s) of more than" in note]
    assert (tmp_path / "dask" / "candidates.csv").read_bytes() == (tmp_path / "local" / "candidates.csv").read_bytes()
