"""CSV export of candidates, reviews and the old-to-new id mapping, and the row builders the Excel
workbook shares.

Files are UTF-8 with a byte-order mark (so spreadsheet programs open Chinese correctly), CRLF line
ends, RFC 4180 quoting, and every text cell that a spreadsheet would run as a formula escaped with a
leading apostrophe (``cellsafe.csv_cell``). Written atomically.

``review_decision`` gives the TF-IDF guide's three-word vocabulary next to our statuses:

- ``suggest_merge_entry`` -> ``merge``
- ``keep_both``, ``valid_revision``, ``public_quotation`` -> ``keep_both``
- ``pending``, ``pending_arbitration`` -> ``needs_context``

"merge" means "suggest merging the catalogue entry"; no file is ever merged or deleted.

No Qt, no pandas here.
"""

from __future__ import annotations

import csv
import io as _stdio
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from neardup_gui.core.records import (
    REVIEW_KEEP_BOTH,
    REVIEW_PENDING,
    REVIEW_PENDING_ARBITRATION,
    REVIEW_PUBLIC_QUOTATION,
    REVIEW_SUGGEST_MERGE,
    REVIEW_VALID_REVISION,
    Arbitration,
    Candidate,
    Decision,
    Document,
)
from neardup_gui.core.review import PairState, effective_state, pair_histories
from neardup_gui.io.cellsafe import csv_cell
from neardup_gui.io.paths import atomic_write_bytes

REVIEW_DECISION = {
    REVIEW_SUGGEST_MERGE: "merge",
    REVIEW_KEEP_BOTH: "keep_both",
    REVIEW_VALID_REVISION: "keep_both",
    REVIEW_PUBLIC_QUOTATION: "keep_both",
    REVIEW_PENDING: "needs_context",
    REVIEW_PENDING_ARBITRATION: "needs_context",
}

# Columns holding shares in [0, 1] (shown with 4 decimals in the workbook).
SCORE_FIELDS = (
    "score", "jaccard", "containment_left", "containment_right", "minhash_estimate",
    "tfidf_cosine", "length_ratio",
)  # fmt: skip
CANDIDATE_FIELDS = (
    "left_path", "left_doc_id", "left_source_id", "left_version",
    "right_path", "right_doc_id", "right_source_id", "right_version",
    "methods", *SCORE_FIELDS, "simhash_distance", "shared_shingles", "shingles_left",
    "shingles_right", "exact_normalized", "flags", "flag_evidence", "suggestion", "review_status",
    "review_decision", "arbitration_state", "stale", "shared_sample", "raw_excerpts",
)  # fmt: skip
REVIEW_FIELDS = (
    "record", "left_doc_id", "left_path", "right_doc_id", "right_path", "status",
    "review_decision", "reason", "retained", "retained_doc_id", "retained_version",
    "related_source", "original_source", "author", "reprint_permission", "reviewer", "time",
    "arbitration_state", "stale", "left_sha256", "right_sha256",
)  # fmt: skip
MAPPING_FIELDS = ("old_doc_id", "old_path", "new_doc_id", "new_path", "decided_by", "time")
EXCERPTS_MAX = 5
EXCERPT_CHARS = 400


def review_decision(status: str) -> str:
    """The TF-IDF guide's word (merge / keep_both / needs_context) for a review status."""
    return REVIEW_DECISION.get(status, "needs_context")


def _by_id(documents: Iterable[Document] | Mapping[str, Document]) -> Mapping[str, Document]:
    if isinstance(documents, Mapping):
        return documents
    return {d.doc_id: d for d in documents}


def _shorten(text: str, limit: int = EXCERPT_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]} …[{len(text) - 2 * half} characters]… {text[-half:]}"


def raw_excerpts(candidate: Candidate, texts: Mapping[str, str] | None = None) -> str:
    """Up to five shared passages of a pair, from the raw texts.

    Args:
        candidate: The pair; its ``segments`` hold code-point offsets into both raw texts.
        texts: doc_id -> raw text. Without it (the session does not keep texts) the offsets
            are given instead.

    Returns:
        Numbered excerpts, one per line block; the right side is added when its raw text differs.
    """
    texts = texts or {}
    left, right = texts.get(candidate.left), texts.get(candidate.right)
    parts = []
    for i, s in enumerate(candidate.segments[:EXCERPTS_MAX], 1):
        if left is None and right is None:
            parts.append(
                f"[{i}] left {s.left_start}-{s.left_end}, right {s.right_start}-{s.right_end}"
                " (character offsets)"
            )
            continue
        a = left[s.left_start : s.left_end] if left is not None else None
        b = right[s.right_start : s.right_end] if right is not None else None
        line = f"[{i}] {_shorten(a if a is not None else b or '')}"
        if a is not None and b is not None and a != b:
            line += f"\n    (right) {_shorten(b)}"
        parts.append(line)
    return "\n".join(parts)


def _evidence_text(candidate: Candidate) -> str:
    lines = []
    for e in candidate.evidence:
        spans = "; ".join(
            f"{side} " + ", ".join(f"{a}-{b}" for a, b in spans)
            for side, spans in (("left", e.left_spans), ("right", e.right_spans))
            if spans
        )
        lines.append(f"{e.flag}: {e.note}".rstrip(": ") + (f" ({spans})" if spans else ""))
    return "\n".join(lines)


def candidate_records(
    candidates: Sequence[Candidate],
    documents: Iterable[Document] | Mapping[str, Document],
    states: Mapping[tuple[str, str], PairState],
    texts: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """One plain dict per candidate, keyed by ``CANDIDATE_FIELDS``; numbers stay numbers."""
    docs = _by_id(documents)
    rows = []
    for c in candidates:
        left, right = docs.get(c.left), docs.get(c.right)
        state = states.get(c.key) or PairState(c.left, c.right, REVIEW_PENDING)
        rows.append(
            {
                "left_path": left.path if left else "", "left_doc_id": c.left,
                "left_source_id": left.source_id if left else "",
                "left_version": left.version if left else "",
                "right_path": right.path if right else "", "right_doc_id": c.right,
                "right_source_id": right.source_id if right else "",
                "right_version": right.version if right else "",
                "methods": ", ".join(c.methods),
                **{name: getattr(c, name) for name in SCORE_FIELDS},
                "simhash_distance": c.simhash_distance, "shared_shingles": c.shared_shingles,
                "shingles_left": c.shingles_left, "shingles_right": c.shingles_right,
                "exact_normalized": "yes" if "exact_normalized" in c.flags else "no",
                "flags": ", ".join(c.flags), "flag_evidence": _evidence_text(c),
                "suggestion": c.suggestion, "review_status": state.status,
                "review_decision": review_decision(state.status),
                "arbitration_state": state.arbitration_state,
                "stale": "yes" if state.stale else "no",
                "shared_sample": " | ".join(c.shared_sample),
                "raw_excerpts": raw_excerpts(c, texts),
            }
        )  # fmt: skip
    return rows


def review_records(
    decisions: Sequence[Decision],
    arbitrations: Sequence[Arbitration],
    documents: Iterable[Document] | Mapping[str, Document],
) -> list[dict[str, Any]]:
    """One dict per decision, then one per arbitration, keyed by REVIEW_FIELDS.

    Args:
        decisions, arbitrations: The history in time order, as ``ReviewSession.decisions()``
            and ``arbitrations()`` return it.
        documents: The manifest the rows are described against (paths, versions, hashes).

    Returns:
        Rows whose ``arbitration_state`` is the pair's state now (``none``,
        ``pending_arbitration``, ``arbitrated``; ``final`` on arbitration rows) and whose
        ``stale`` says whether the decision was made on a file whose SHA-256 differs from the
        one in ``documents``.
    """
    docs = _by_id(documents)
    states = {
        key: effective_state(*key, history, settled)
        for key, (history, settled) in pair_histories(decisions, arbitrations).items()
    }

    def path(doc_id: str) -> str:
        doc = docs.get(doc_id)
        return doc.path if doc else ""

    rows: list[dict[str, Any]] = []
    for d in decisions:
        kept = {"left": [d.left], "right": [d.right], "both": [d.left, d.right]}.get(d.retained, [])
        stale = any(
            sha and doc_id in docs and docs[doc_id].sha256 and docs[doc_id].sha256 != sha
            for doc_id, sha in ((d.left, d.left_sha256), (d.right, d.right_sha256))
        )
        rows.append(
            {
                "record": "decision", "left_doc_id": d.left, "left_path": path(d.left),
                "right_doc_id": d.right, "right_path": path(d.right), "status": d.status,
                "review_decision": review_decision(d.status), "reason": d.reason,
                "retained": d.retained,
                "retained_doc_id": ", ".join(kept),
                "retained_version": ", ".join(docs[k].version for k in kept if k in docs),
                "related_source": d.related_source, "original_source": d.original_source,
                "author": d.author, "reprint_permission": d.reprint_permission,
                "reviewer": d.reviewer, "time": d.time,
                "arbitration_state": states[(d.left, d.right)].arbitration_state,
                "stale": "yes" if stale else "no",
                "left_sha256": d.left_sha256, "right_sha256": d.right_sha256,
            }
        )  # fmt: skip
    for a in arbitrations:
        row = dict.fromkeys(REVIEW_FIELDS, "")
        row.update(
            record="arbitration", left_doc_id=a.left, left_path=path(a.left), right_doc_id=a.right,
            right_path=path(a.right), status=a.status, review_decision=review_decision(a.status),
            reason=a.reason, reviewer=a.arbitrator, time=a.time, arbitration_state="final",
        )  # fmt: skip
        rows.append(row)
    return rows


def mapping_records(
    mapping: Sequence[tuple[str, str, str, str]],
    documents: Iterable[Document] | Mapping[str, Document],
) -> list[dict[str, Any]]:
    """Rows of the old-to-new id mapping (``ReviewSession.id_mapping()``), keyed MAPPING_FIELDS."""
    docs = _by_id(documents)
    return [
        {
            "old_doc_id": old, "old_path": docs[old].path if old in docs else "",
            "new_doc_id": new, "new_path": docs[new].path if new in docs else "",
            "decided_by": by, "time": when,
        }
        for old, new, by, when in mapping
    ]  # fmt: skip


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6f}"
    return csv_cell(value)


def write_records_csv(path: Path, fields: Sequence[str], records: Iterable[Mapping[str, Any]]) -> None:
    """Write dict rows as CSV (UTF-8 with BOM, CRLF, formula-like text escaped), atomically."""
    buf = _stdio.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(fields)
    for record in records:
        writer.writerow([_csv_value(record.get(name)) for name in fields])
    atomic_write_bytes(path, buf.getvalue().encode("utf-8-sig"))


def export_candidates_csv(
    path: Path,
    candidates: Sequence[Candidate],
    documents: Iterable[Document] | Mapping[str, Document],
    states: Mapping[tuple[str, str], PairState],
    texts: Mapping[str, str] | None = None,
) -> int:
    """Write the candidate list with review status and ``review_decision``.

    Args:
        path: Target file (replaced atomically).
        candidates: The run's candidates.
        documents: The run's manifest (list or doc_id mapping).
        states: ``ReviewSession.pair_states(run_id)``.
        texts: Optional doc_id -> raw text for excerpts (offsets otherwise).

    Returns:
        Number of rows written.
    """
    rows = candidate_records(candidates, documents, states, texts)
    write_records_csv(path, CANDIDATE_FIELDS, rows)
    return len(rows)


def export_reviews_csv(
    path: Path,
    decisions: Sequence[Decision],
    arbitrations: Sequence[Arbitration],
    documents: Iterable[Document] | Mapping[str, Document],
) -> int:
    """Write every decision (history order) then every arbitration. Returns rows written."""
    rows = review_records(decisions, arbitrations, documents)
    write_records_csv(path, REVIEW_FIELDS, rows)
    return len(rows)


def export_id_mapping_csv(
    path: Path,
    mapping: Sequence[tuple[str, str, str, str]],
    documents: Iterable[Document] | Mapping[str, Document],
) -> int:
    """Write the old-to-new id mapping of merge suggestions. Returns rows written."""
    rows = mapping_records(mapping, documents)
    write_records_csv(path, MAPPING_FIELDS, rows)
    return len(rows)

