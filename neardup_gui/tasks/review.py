"""The review side: read the texts of a workspace again and export the review.

No Qt here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from neardup_gui.core.progress import NULL_PROGRESS, Progress, empty_giving_way
from neardup_gui.core.records import Document
from neardup_gui.io.corpus import CorpusError
from neardup_gui.io.paths import ensure_outside_source
from neardup_gui.tasks.screen import SESSION_FILE

CSV_NAMES = {"candidates": "candidates_reviewed.csv", "reviews": "reviews.csv", "mapping": "id_mapping.csv"}


class ExportRefused(ValueError):
    """An export that cannot be done as asked (no run, target inside the source, nothing to write)."""


@dataclass(frozen=True)
class ExportSummary:
    """What ``export_review`` wrote.

    Attributes:
        workbook: The signed workbook summary, when an xlsx was written.
        csv_counts: Rows written per CSV file name, when CSV files were written.
        unreadable: Relative paths whose text could not be read again unchanged (their excerpts are
            given as offsets).
    """

    workbook: object | None
    csv_counts: dict[str, int]
    unreadable: tuple[str, ...]


def read_texts(source: Path | str, documents: Sequence[Document]) -> tuple[dict[str, str], list[str]]:
    """Read the raw texts of ``documents`` again from the source folder (read-only).

    A file that is missing, unreadable or no longer has the SHA-256 of its manifest row is left
    out and its path returned in the second element, so callers can say so.
    """
    from neardup_gui.io.corpus import read_document_text

    texts: dict[str, str] = {}
    failed: list[str] = []
    for doc in documents:
        try:
            texts[doc.doc_id] = read_document_text(source, doc)
        except (OSError, CorpusError, ValueError):  # ValueError: no longer decodes as recorded
            failed.append(doc.path)
    return texts, failed


def export_review(
    out_dir: Path | str,
    *,
    xlsx: Path | str | None = None,
    csv_dir: Path | str | None = None,
    signed_by: str = "",
    run_id: str | None = None,
    language: str = "en",
    with_texts: bool = True,
    sheet_rows: int | None = None,
    progress: Progress = NULL_PROGRESS,
) -> ExportSummary:
    """Export a workspace's review: the signed workbook and/or CSV files.

    The session is opened read-only, so an export works while the window has it open. Targets
    inside the source folder are refused. ``sheet_rows``: rows a workbook sheet may hold (Excel's
    limit by default; a longer table goes on over further sheets). ``progress``: the workbook's
    stages (``io.workbook.export_workbook``); a cancel leaves every target as it was.

    Raises:
        ExportRefused: Nothing to export, no run, or a target inside the source folder.
        SessionInUseError, SessionVersionError: From the session store.
    """
    from neardup_gui.io import csv_export
    from neardup_gui.io.paths import OutputInsideSourceError
    from neardup_gui.io.session import ReviewSession
    from neardup_gui.io.workbook import SHEET_ROWS, export_workbook

    if xlsx is None and csv_dir is None:
        raise ExportRefused("nothing to export: give a workbook file and/or a CSV folder")
    path = Path(out_dir) / SESSION_FILE
    if not path.is_file():
        raise ExportRefused(f"no review session in {out_dir} (expected {path}; screen first)")
    with ReviewSession.open(path, read_only=True) as session:
        run_id = run_id or session.latest_run_id()
        if run_id is None:
            raise ExportRefused(f"{path} holds no screening run")
        try:
            run = session.run(run_id)
        except KeyError as exc:
            raise ExportRefused(str(exc.args[0])) from None
        documents = session.documents(run_id)
        candidates = session.candidates(run_id)
        for target in (Path(xlsx).parent if xlsx is not None else None, csv_dir):
            if target is not None and run.source:
                try:
                    ensure_outside_source(Path(target), run.source)
                except OutputInsideSourceError as exc:
                    raise ExportRefused(str(exc)) from None
        texts: dict[str, str] = {}
        unreadable: list[str] = []
        if with_texts and run.source:
            wanted = {doc_id for c in candidates for doc_id in c.key}
            texts, unreadable = read_texts(run.source, [d for d in documents if d.doc_id in wanted])
        summary = None
        if xlsx is not None:
            summary = export_workbook(
                Path(xlsx), session, signed_by=signed_by, run_id=run_id, language=language, texts=texts,
                progress=progress, sheet_rows=sheet_rows or SHEET_ROWS,
            )
        counts: dict[str, int] = {}
        if csv_dir is not None:
            folder = Path(csv_dir)
            states = session.pair_states(run_id)
            counts[CSV_NAMES["candidates"]] = csv_export.export_candidates_csv(
                folder / CSV_NAMES["candidates"], candidates, documents, states, texts
            )
            counts[CSV_NAMES["reviews"]] = csv_export.export_reviews_csv(
                folder / CSV_NAMES["reviews"], session.decisions(), session.arbitrations(), documents
            )
            counts[CSV_NAMES["mapping"]] = csv_export.export_id_mapping_csv(
                folder / CSV_NAMES["mapping"], session.id_mapping(), documents
            )
        # Let the manifest go a slice at a time (at once on return, 100,000 rows held the GIL
        # ~0.1 s, and a window waiting for it).
        empty_giving_way(documents)
    return ExportSummary(summary, counts, tuple(unreadable))
