"""Comparison scope: pairs outside it are never compared, and the run says how many were left out."""

from __future__ import annotations

import random

from neardup_gui.core.pipeline import screen
from neardup_gui.core.records import Document, ScreenParams


def _text(seed: int, n: int = 600) -> str:
    rng = random.Random(seed)
    return "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(n))


BODY = _text(1)
# Three copies of one article: in the archive twice (old/), once among new submissions (new/).
TEXTS = {"old1": BODY, "old2": BODY + "。", "new1": BODY[:-3] + "结束语", "new2": _text(2), "new3": _text(2)[:-2]}
PATHS = {"old1": "old/a.txt", "old2": "old/b.txt", "new1": "new/c.txt", "new2": "new/d.txt", "new3": "new/e.txt"}


def _docs() -> list[Document]:
    return [
        Document(d, PATHS[d].split("/")[0], "v1", PATHS[d], 1, 0.0, f"h{d}", "utf-8", len(TEXTS[d]), "ok")
        for d in sorted(TEXTS, key=PATHS.get)
    ]


def _pairs(params: ScreenParams, fields=None) -> tuple[set[frozenset[str]], dict[str, int]]:
    result = screen(_docs(), TEXTS, params, fields=fields)
    return {frozenset(c.key) for c in result.candidates}, result.counts


def test_all_pairs_by_default() -> None:
    pairs, counts = _pairs(ScreenParams())
    assert frozenset(("old1", "old2")) in pairs and frozenset(("new2", "new3")) in pairs
    assert "left_out_by_scope" not in counts


def test_new_against_reference_skips_reference_with_itself() -> None:
    pairs, counts = _pairs(ScreenParams(scope="new_vs_reference", scope_patterns=("old/*",)))
    assert frozenset(("old1", "old2")) not in pairs
    assert frozenset(("new1", "old1")) in pairs and frozenset(("new2", "new3")) in pairs
    assert counts["left_out_by_scope"] == 1


def test_across_keeps_only_pairs_between_the_sets() -> None:
    pairs, counts = _pairs(ScreenParams(scope="across", scope_patterns=("old/*",)))
    assert pairs == {frozenset(("new1", "old1")), frozenset(("new1", "old2"))}
    assert counts["left_out_by_scope"] == 2


def test_within_a_field_compares_only_equal_values() -> None:
    pairs, _ = _pairs(ScreenParams(scope="within", scope_field="source_id"))
    assert frozenset(("old1", "old2")) in pairs and frozenset(("new2", "new3")) in pairs
    assert not any({"old1", "new1"} <= p for p in pairs)


def test_within_a_sidecar_column_and_documents_without_a_value_are_compared_with_nobody() -> None:
    fields = {"old1": {"product": "A"}, "new1": {"product": "A"}, "new2": {"product": "B"}, "new3": {}}
    pairs, _ = _pairs(ScreenParams(scope="within", scope_field="product"), fields)
    assert pairs == {frozenset(("new1", "old1"))}
