"""Evaluation of a screen against labelled pairs: threshold sweep, candidate recall and LSH misses.

``evaluate_outdir`` (shared by the window and ``neardup evaluate``) re-reads the source folder recorded
in ``OUTDIR/run.json`` with the recorded parameters (k replaced by each size asked for), keeps the
doc_ids of ``OUTDIR/manifest.csv``, evaluates the labels with ``core.evaluate`` and writes

- ``thresholds.csv``: ``k,threshold,candidates,tp,fp,fn,precision,recall,candidate_recall`` then
  ``split,tn,positives,negatives,lsh_misses,bands,rows,label_source``; one ``all`` row per k and
  threshold, plus one per split;
- ``evaluation_pairs.csv``: every labelled pair at every k and threshold with its scores, outcome
  and error reason; labels naming unknown documents are listed there too (outcome ``unknown``);
- ``lsh_misses.csv`` (with ``--audit-misses``): pairs reaching the lowest threshold that the
  candidate stage did not return;

and stores the table in ``session.sqlite`` for the workbook's Thresholds sheet.

No Qt here.
"""

from __future__ import annotations

import csv
import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from neardup_gui.core.evaluate import (
    AUDIT_LIMIT,
    DEFAULT_KS,
    DEFAULT_THRESHOLDS,
    EvaluationReport,
    error_reason,
    evaluate,
    outcome,
    split_by_source,
)
from neardup_gui.core.progress import NULL_PROGRESS, Progress, slices_giving_way
from neardup_gui.core.records import STATUS_OK, Document, ScreenParams
from neardup_gui.io import outputs
from neardup_gui.io.corpus import scan_folder
from neardup_gui.io.labels import LabelSet, labels_from_decisions, read_labels, resolve_labels
from neardup_gui.io.paths import ensure_outside_source
from neardup_gui.io.prepcache import load_cache
from neardup_gui.io.session import SESSION_FILENAME, ReviewSession
from neardup_gui.tasks.screen import library_versions

__all__ = [
    "EvaluationError",
    "EvaluationRun",
    "MISS_COLUMNS",
    "PAIR_COLUMNS",
    "THRESHOLD_COLUMNS",
    "evaluate_outdir",
]

THRESHOLD_COLUMNS = (
    "k", "threshold", "candidates", "tp", "fp", "fn", "precision", "recall", "candidate_recall",
    "split", "tn", "positives", "negatives", "lsh_misses", "bands", "rows", "label_source",
)  # fmt: skip
PAIR_COLUMNS = (
    "k", "threshold", "split", "left", "right", "left_doc_id", "right_doc_id", "label", "label_reason",
    "labels_line", "compared", "hit", "methods", "jaccard", "containment_left", "containment_right",
    "predicted", "outcome", "error", "label_source",
)  # fmt: skip
MISS_COLUMNS = (
    "k", "left", "right", "left_doc_id", "right_doc_id", "jaccard", "containment_left",
    "containment_right", "label", "audited_documents", "sampled",
)  # fmt: skip
FILES = {"thresholds": "thresholds.csv", "pairs": "evaluation_pairs.csv", "misses": "lsh_misses.csv"}


class EvaluationError(Exception):
    """The evaluation cannot run as asked (no screen in the folder, missing source, bad input)."""


@dataclass(frozen=True)
class EvaluationRun:
    """What ``evaluate_outdir`` did.

    Attributes:
        out_dir: The screen's output folder the results were written to.
        source: The source folder that was read again.
        report: The evaluation.
        labels: The labels used (with the unresolved rows).
        documents: The manifest as re-read (doc_ids from manifest.csv).
        written: Files written.
        warnings: Things the user must know (unknown documents, changed files, split leaks, ...).
        stored_in_session: The table went into session.sqlite (the workbook's Thresholds sheet).
    """

    out_dir: Path
    source: Path
    report: EvaluationReport
    labels: LabelSet
    documents: tuple[Document, ...]
    written: tuple[Path, ...]
    warnings: tuple[str, ...]
    stored_in_session: bool


def _read_run(out_dir: Path) -> tuple[Path, ScreenParams]:
    path = out_dir / "run.json"
    if not path.is_file():
        raise EvaluationError(f"no screen in {out_dir} (expected {path}; run `neardup screen` first)")
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
        return Path(run["source"]), ScreenParams.from_dict(run["params"])
    except (ValueError, KeyError, TypeError) as exc:
        raise EvaluationError(f"{path} is not a run record this version can read ({exc})") from exc


def _manifest_rows(out_dir: Path) -> dict[str, dict[str, str]]:
    path = out_dir / "manifest.csv"
    if not path.is_file():
        return {}
    # Parsed as it is read, in 8 KB reads that each let go of the GIL: a window thread waiting for
    # it then lost it again and again (0.3 s stalls at 100,000 rows) unless the loop gives way.
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return {row["path"]: row for part in slices_giving_way(csv.DictReader(fh)) for row in part if row.get("path")}


def _reread(
    source: Path, params: ScreenParams, out_dir: Path, progress: Progress, read_helper: bool = False
) -> tuple[tuple[Document, ...], dict[str, str], list[str]]:
    """Scan the source again; give documents the doc_ids, source_ids and versions of manifest.csv."""
    corpus = scan_folder(source, include=params.include, exclude=params.exclude,
                         max_bytes=params.max_bytes, progress=progress, read_helper=read_helper)  # fmt: skip
    manifest = _manifest_rows(out_dir)
    documents: list[Document] = []
    texts: dict[str, str] = {}
    warnings: list[str] = []
    changed: list[str] = []
    new = 0
    for doc in corpus.documents:
        row = manifest.get(doc.path)
        mapped = doc
        if row is not None:
            mapped = replace(doc, doc_id=row["doc_id"] or doc.doc_id, source_id=row.get("source_id") or doc.source_id,
                             version=row.get("version") or doc.version)  # fmt: skip
            if row.get("sha256") and doc.sha256 and row["sha256"] != doc.sha256:
                changed.append(doc.path)
        elif manifest:
            new += 1
        documents.append(mapped)
        if doc.doc_id in corpus.texts:
            texts[mapped.doc_id] = corpus.texts[doc.doc_id]
    gone = sorted(set(manifest) - {d.path for d in corpus.documents})
    if changed:
        warnings.append(f"{len(changed)} file(s) changed since the screen; their current text is evaluated: "
                        + ", ".join(changed[:5]) + (" …" if len(changed) > 5 else ""))  # fmt: skip
    if gone:
        warnings.append(f"{len(gone)} file(s) of the screen are gone: " + ", ".join(gone[:5]) + (" …" if len(gone) > 5 else ""))
    if new:
        warnings.append(f"{new} file(s) appeared since the screen; they take part with new doc_ids")
    return tuple(documents), texts, warnings


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


def _threshold_rows(report: EvaluationReport, source: str) -> list[list[Any]]:
    return [
        [r.k, f"{r.threshold:g}", r.candidates, r.tp, r.fp, r.fn, _fmt(r.precision), _fmt(r.recall),
         _fmt(r.candidate_recall), r.split, r.tn, r.positives, r.negatives,
         "" if r.lsh_misses is None else r.lsh_misses, r.bands, r.rows, source]
        for r in report.rows
    ]  # fmt: skip


def _pair_rows(report: EvaluationReport, labels: LabelSet) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for ev in report.per_k:
        for t in report.thresholds:
            for s in ev.pair_scores:
                p = s.pair
                kind = outcome(s, t)
                rows.append([
                    ev.k, f"{t:g}", p.split, p.left_name, p.right_name, p.left, p.right, p.label, p.reason,
                    p.line or "", int(s.compared), int(s.hit), ";".join(s.methods), _fmt(s.jaccard),
                    _fmt(s.containment_left), _fmt(s.containment_right), int(kind in ("TP", "FP")), kind,
                    error_reason(s, t), labels.source,
                ])  # fmt: skip
    for u in labels.unresolved:
        r = u.row
        rows.append(["", "", r.split, r.left, r.right, "", "", r.label, r.reason, r.line, 0, "", "", "", "", "",
                     "", "unknown", f"not counted: {u.message}", labels.source])  # fmt: skip
    return rows


def _miss_rows(report: EvaluationReport, labels: LabelSet, by_id: dict[str, Document]) -> list[list[Any]]:
    labelled = {p.key: p.label for p in labels.pairs}
    rows: list[list[Any]] = []
    for ev in report.per_k:
        if ev.audit is None:
            continue
        for m in ev.audit.misses:
            key = (min(m.left, m.right), max(m.left, m.right))
            rows.append([ev.k, by_id[m.left].path, by_id[m.right].path, m.left, m.right, _fmt(m.jaccard),
                         _fmt(m.containment_left), _fmt(m.containment_right), labelled.get(key, ""),
                         ev.audit.documents, int(ev.audit.sampled)])  # fmt: skip
    return rows


def _open_session(out_dir: Path):
    path = out_dir / SESSION_FILENAME
    return ReviewSession.open(path) if path.is_file() else None


def evaluate_outdir(
    out_dir: Path | str,
    *,
    labels_file: Path | str | None = None,
    from_decisions: bool = False,
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
    ks: Sequence[int] | None = DEFAULT_KS,
    audit: bool = False,
    audit_limit: int = AUDIT_LIMIT,
    audit_sample: int | None = None,
    group_by: str = "split",
    session: Any = None,
    progress: Progress = NULL_PROGRESS,
    read_helper: bool = False,
) -> EvaluationRun:
    """Evaluate labelled pairs against a screen's source folder and write the results into ``out_dir``.

    Args:
        out_dir: A screen's output folder (holds run.json, manifest.csv, session.sqlite).
        labels_file: CSV or XLSX of labelled pairs; or
        from_decisions: use the review decisions of the session as labels.
        thresholds: Jaccard thresholds in (0, 1].
        ks: Shingle sizes (None: the screen's own k).
        audit: Score all pairs exactly and list what the candidate stage missed.
        audit_limit, audit_sample: Most documents audited in full; sample size above that.
        group_by: ``split`` (the labels' split column) or ``source`` (source_id families).
        session: An open writable ``ReviewSession`` of ``out_dir`` (the window's); when None the
            session file is opened (and locked) here.
        progress: Stages ``read``, ``normalize``, ..., ``evaluate``, ``audit``; may cancel.
        read_helper: Read a share of a large folder's files in a helper process, as a screen does
            (``io.corpus.scan_folder``; the caller's entry point must be guarded for ``spawn``).

    Returns:
        What was evaluated and written.

    Raises:
        EvaluationError: No screen in ``out_dir``, source folder missing, neither or both label
            sources, bad group_by. LabelsError: unusable labels. AuditTooLargeError: see
            ``core.evaluate``. SessionInUseError: another program holds the session.
        Cancelled: Nothing was written.
    """
    out = Path(out_dir)
    if (labels_file is None) == (not from_decisions):
        raise EvaluationError("give a labels file or use the review decisions as labels (one of the two)")
    if group_by not in ("split", "source"):
        raise EvaluationError(f"group_by must be 'split' or 'source', got {group_by!r}")
    # The session first: opening it for writing settles a screen that was interrupted while writing
    # its outputs, so run.json read below belongs to the session's latest complete run.
    own = session is None
    if own:
        session = _open_session(out)
    try:
        source, params = _read_run(out)
        if not source.is_dir():
            raise EvaluationError(f"the screened folder {source} (from run.json) no longer exists")
        out = ensure_outside_source(out, source)
        rows_checked = None
        if labels_file is not None:
            rows_checked = read_labels(labels_file)  # fail on a bad file before reading the corpus
        documents, texts, warnings = _reread(source, params, out, progress, read_helper)
        if from_decisions:
            if session is None:
                raise EvaluationError(f"no review session in {out}; there are no decisions to use as labels")
            labels = labels_from_decisions(session)
        else:
            assert rows_checked is not None and labels_file is not None
            labels = resolve_labels(rows_checked, documents, root=source, source=f"labels file {Path(labels_file).name}")
        pairs = list(labels.pairs)
        if group_by == "source":
            if any(p.split for p in pairs):
                warnings.append("results are grouped by source family; the labels' split column is not used")
            pairs = split_by_source(pairs, {d.doc_id: d.source_id for d in documents})
        usable = [d.doc_id for d in documents if d.status == STATUS_OK and d.doc_id in texts]
        not_compared = {d.doc_id: f"status {d.status}" + (f" ({d.message})" if d.message else "")
                        for d in documents if d.status != STATUS_OK}  # fmt: skip
        keys = {d.doc_id: d.sha256 for d in documents if d.sha256 and d.doc_id in texts}
        cached = functools.partial(load_cache, out, library_versions())
        report = evaluate(usable, texts, pairs, params, thresholds=thresholds, ks=ks, audit=audit,
                          audit_limit=audit_limit, audit_sample=audit_sample, not_compared=not_compared,
                          progress=progress, keys=keys, earlier=cached)  # fmt: skip
        warnings = list(labels.warnings) + warnings + list(report.notes)
        if labels.unresolved:
            warnings.append(
                f"{len(labels.unresolved)} labelled pair(s) name documents not in the source folder and are "
                "NOT counted: " + "; ".join(u.message for u in labels.unresolved[:5])
                + (" …" if len(labels.unresolved) > 5 else "")
            )  # fmt: skip
        written = [out / FILES["thresholds"], out / FILES["pairs"]]
        outputs.write_csv(written[0], THRESHOLD_COLUMNS, _threshold_rows(report, labels.source))
        outputs.write_csv(written[1], PAIR_COLUMNS, _pair_rows(report, labels))
        misses_path = out / FILES["misses"]
        if audit:
            by_id = {d.doc_id: d for d in documents}
            outputs.write_csv(misses_path, MISS_COLUMNS, _miss_rows(report, labels, by_id))
            written.append(misses_path)
        else:
            misses_path.unlink(missing_ok=True)  # an older audit no longer matches these results
        stored = False
        if session is not None:
            session.set_thresholds([{**r.as_dict(), "label_source": labels.source} for r in report.rows])
            stored = True
        else:
            warnings.append(f"no session.sqlite in {out}: the workbook's Thresholds sheet was not updated")
    finally:
        if own and session is not None:
            session.close()
    return EvaluationRun(out, source, report, labels, documents, tuple(written), tuple(warnings), stored)


# -- command line ------------------------------------------------------------------------------------
