"""Small records for model and view tests (real dataclasses, no engine run)."""

from __future__ import annotations

from neardup_gui.core.records import REVIEW_PENDING, Candidate, Document, FlagEvidence

SCREEN_TIMEOUT_MS = 60_000  # generous: a loaded CI machine, never a timing assertion


def make_document(doc_id: str, path: str, status: str = "ok", **extra: object) -> Document:
    fields = dict(
        doc_id=doc_id, source_id=path.split("/")[0], version="v1", path=path, size=100, mtime=0.0,
        sha256="0" * 64, encoding="utf-8", chars=50, status=status, message="",
    )  # fmt: skip
    fields.update(extra)
    return Document(**fields)  # type: ignore[arg-type]


def make_candidate(
    left: str,
    right: str,
    jaccard: float,
    *,
    containment: tuple[float, float] | None = None,
    minhash: float | None = None,
    flags: tuple[str, ...] = (),
    evidence: tuple[FlagEvidence, ...] = (),
    suggestion: str = REVIEW_PENDING,
) -> Candidate:
    cl, cr = containment if containment is not None else (jaccard, jaccard)
    return Candidate(
        left=left, right=right, methods=("minhash",), jaccard=jaccard, containment_left=cl,
        containment_right=cr, minhash_estimate=minhash, shared_shingles=10, shingles_left=20,
        shingles_right=20, length_ratio=1.0, score=jaccard, flags=flags, evidence=evidence,
        suggestion=suggestion,
    )  # fmt: skip
