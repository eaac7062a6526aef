"""Put the flags on a candidate and suggest what the editor should probably decide.

Order of ``Candidate.flags`` (stable, whatever order the checks ran in): ``FLAG_ORDER`` -
exact_bytes, exact_normalized, date_changed, number_changed, unit_changed, negation_changed,
condition_changed, template_only, quotation, contained; flags this module does not know are kept
after them in their original order.

Order of ``Candidate.evidence``: evidence of flags this module does not compute (kept as given),
then revision evidence in reading order, then template_only, quotation, contained.

Suggestion (first rule that applies): any revision flag -> ``valid_revision`` (never merge);
quotation -> ``public_quotation``; template_only -> ``keep_both``; exact_normalized / exact_bytes,
or Jaccard >= ``merge_jaccard`` with no other flag -> ``suggest_merge_entry``; otherwise ``pending``.

``annotate`` is idempotent: flags and evidence it computes are replaced, not added twice.

Imports numpy and sibling engine modules only.
"""

from __future__ import annotations

import numpy as np

from neardup_gui.core.diffspans import PairDiff
from neardup_gui.core.flags.overlap import contained_evidence, quotation_evidence
from neardup_gui.core.flags.revision import revision_evidence
from neardup_gui.core.flags.template import TemplateIndex, template_evidence
from neardup_gui.core.records import (
    FLAG_CONDITION_CHANGED,
    FLAG_CONTAINED,
    FLAG_DATE_CHANGED,
    FLAG_EXACT_BYTES,
    FLAG_EXACT_NORMALIZED,
    FLAG_NEGATION_CHANGED,
    FLAG_NUMBER_CHANGED,
    FLAG_QUOTATION,
    FLAG_TEMPLATE_ONLY,
    FLAG_UNIT_CHANGED,
    REVIEW_KEEP_BOTH,
    REVIEW_PENDING,
    REVIEW_PUBLIC_QUOTATION,
    REVIEW_SUGGEST_MERGE,
    REVIEW_VALID_REVISION,
    REVISION_FLAGS,
    Candidate,
    FlagEvidence,
    candidate_with,
)

__all__ = ["FLAG_ORDER", "OWNED_FLAGS", "annotate", "suggestion_for"]

FLAG_ORDER = (
    FLAG_EXACT_BYTES,
    FLAG_EXACT_NORMALIZED,
    FLAG_DATE_CHANGED,
    FLAG_NUMBER_CHANGED,
    FLAG_UNIT_CHANGED,
    FLAG_NEGATION_CHANGED,
    FLAG_CONDITION_CHANGED,
    FLAG_TEMPLATE_ONLY,
    FLAG_QUOTATION,
    FLAG_CONTAINED,
)
# Flags ``annotate`` computes (and therefore replaces); exact_* come from the verify stage.
OWNED_FLAGS = frozenset(REVISION_FLAGS) | {FLAG_TEMPLATE_ONLY, FLAG_QUOTATION, FLAG_CONTAINED}
_RANK = {f: i for i, f in enumerate(FLAG_ORDER)}
_EXACT = frozenset({FLAG_EXACT_BYTES, FLAG_EXACT_NORMALIZED})


def suggestion_for(flags: tuple[str, ...], jaccard: float, *, merge_jaccard: float = 0.9) -> str:
    """The review status to suggest for a pair with these flags and this Jaccard (0..1)."""
    present = set(flags)
    if present & set(REVISION_FLAGS):
        return REVIEW_VALID_REVISION
    if FLAG_QUOTATION in present:
        return REVIEW_PUBLIC_QUOTATION
    if FLAG_TEMPLATE_ONLY in present:
        return REVIEW_KEEP_BOTH
    if present & _EXACT or (jaccard >= merge_jaccard and not present):
        return REVIEW_SUGGEST_MERGE
    return REVIEW_PENDING


def annotate(
    candidate: Candidate,
    left_raw: str,
    right_raw: str,
    diff: PairDiff,
    *,
    left_hashes: np.ndarray | None = None,
    right_hashes: np.ndarray | None = None,
    template: TemplateIndex | None = None,
    containment_threshold: float = 0.8,
    merge_jaccard: float = 0.9,
) -> Candidate:
    """The candidate with revision, template, quotation and containment flags, evidence and suggestion.

    Args:
        candidate: A verified pair (its exact_* flags and scores are kept).
        left_raw, right_raw: Raw texts of ``candidate.left`` and ``candidate.right``.
        diff: ``pair_diff`` of the two raw texts.
        left_hashes, right_hashes: Sorted shingle hashes of each side (for the template check).
        template: Corpus boilerplate index; None or empty skips the corpus part of the template check.
        containment_threshold: Containment (0..1) at which one document counts as inside the other;
            0 disables the contained flag.
        merge_jaccard: Jaccard (0..1) from which a pair without flags is suggested for merging.

    Returns:
        A new ``Candidate`` (the input is frozen and unchanged).
    """
    new: list[FlagEvidence] = revision_evidence(left_raw, right_raw, diff)
    tmpl = template_evidence(left_raw, right_raw, diff, left_hashes, right_hashes, template)
    # A shared header is a template, not a quotation: the template check wins.
    quote = None if tmpl is not None else quotation_evidence(left_raw, right_raw, diff)
    contained = contained_evidence(candidate, threshold=containment_threshold, segments=diff.segments)
    new.extend(ev for ev in (tmpl, quote, contained) if ev is not None)

    kept_flags = [f for f in candidate.flags if f not in OWNED_FLAGS]
    flags = set(kept_flags) | {ev.flag for ev in new}
    known = sorted((f for f in flags if f in _RANK), key=_RANK.__getitem__)
    unknown = [f for f in dict.fromkeys(kept_flags) if f not in _RANK]
    ordered = tuple(known + unknown)
    evidence = tuple(ev for ev in candidate.evidence if ev.flag not in OWNED_FLAGS) + tuple(new)
    suggestion = suggestion_for(ordered, candidate.jaccard, merge_jaccard=merge_jaccard)
    return candidate_with(candidate, flags=ordered, evidence=evidence, suggestion=suggestion)
