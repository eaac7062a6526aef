"""Comparison scope: which pairs of documents may be compared at all.

The TF-IDF seed asks to group before comparing (先分组再比较), and editors check new material
against an archive without re-checking the archive against itself. A scope is one of:

- ``all``: every pair (the default);
- ``within``: only documents sharing the value of a field (``source_id``, ``version``, or a column of
  the sidecar CSV such as product, language or date range); documents with no value are compared
  with nobody;
- ``new_vs_reference``: documents whose path matches the scope patterns are the reference archive;
  new documents are compared with each other and with the reference, reference documents are not
  compared with each other;
- ``across``: only pairs with one document matching the patterns and one not (e.g. a training folder
  against a validation folder, to find leakage).

Pairs left out by the scope are counted in the run, never dropped silently. Pure Python.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence

from neardup_gui.core.records import Document, ScreenParams

__all__ = ["SCOPES", "scope_labels", "allowed", "describe"]

SCOPES = ("all", "within", "new_vs_reference", "across")


def _matches(path: str, patterns: Sequence[str]) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    low = path.lower()
    return any(fnmatch.fnmatchcase(low, p.lower()) or fnmatch.fnmatchcase(name, p.lower()) for p in patterns)


def scope_labels(
    documents: Sequence[Document], params: ScreenParams, fields: Mapping[str, Mapping[str, str]] | None = None
) -> dict[str, str]:
    """The label each document carries for the scope: its field value, or ``reference`` / ``new``.

    Args:
        documents: The manifest.
        params: ``scope``, ``scope_field`` and ``scope_patterns`` are used.
        fields: doc_id -> extra field values (the sidecar CSV's columns), for ``within`` on a field
            that is not ``source_id`` or ``version``.
    """
    if params.scope == "within":
        if params.scope_field in ("source_id", "version"):
            return {d.doc_id: getattr(d, params.scope_field) for d in documents}
        fields = fields or {}
        return {d.doc_id: fields.get(d.doc_id, {}).get(params.scope_field, "") for d in documents}
    if params.scope in ("new_vs_reference", "across"):
        return {d.doc_id: "reference" if _matches(d.path, params.scope_patterns) else "new" for d in documents}
    return {}


def allowed(scope: str, left_label: str, right_label: str) -> bool:
    """Whether a pair with these labels is inside the scope."""
    if scope == "within":
        return bool(left_label) and left_label == right_label
    if scope == "new_vs_reference":
        return not (left_label == "reference" and right_label == "reference")
    if scope == "across":
        return left_label != right_label
    return True


def describe(params: ScreenParams) -> str:
    """One line for the run record and the window."""
    if params.scope == "within":
        return f"only within the same {params.scope_field}"
    patterns = ", ".join(params.scope_patterns) or "(no pattern)"
    if params.scope == "new_vs_reference":
        return f"new documents against the reference archive ({patterns}); reference not compared with itself"
    if params.scope == "across":
        return f"only across the two sets: matching {patterns} against the rest"
    return "all pairs"
