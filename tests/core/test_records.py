"""``records.document`` makes the same ``Document`` as the class, ``candidate_with`` the same ``Candidate`` as
``dataclasses.replace``; samples are held once where they repeat."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

from neardup_gui.core.records import Candidate, Document, FlagEvidence, Segment, candidate_with, document

ROW = ("d0123456789abcdef", "来源", "v2", "来源/稿件.txt", 1234, 1_700_000_000.25, "ab" * 32, "gb18030", 600, "ok",
       "file name is not valid UTF-8", "docx")  # fmt: skip


def test_document_takes_exactly_the_fields_of_the_class_in_order_with_their_defaults() -> None:
    # A field added to Document (or a default changed) without document() following would
    # silently build manifest rows without it: this is what keeps the two in step.
    params = inspect.signature(document).parameters
    fields = dataclasses.fields(Document)
    assert list(params) == [f.name for f in fields]
    for f in fields:
        expected = inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        assert params[f.name].default == expected, f.name
    assert "__post_init__" not in vars(Document)  # document() would skip it


@pytest.mark.parametrize("given", [ROW, ROW[:10]])
def test_a_document_built_fast_is_the_same_object_in_every_way_that_shows(given: tuple) -> None:
    fast, slow = document(*given), Document(*given)
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert dataclasses.astuple(fast) == dataclasses.astuple(slow)
    assert fast.usable and pickle.loads(pickle.dumps(fast)) == slow
    assert dataclasses.replace(fast, status="binary") == dataclasses.replace(slow, status="binary")
    assert document(*given[:4], size=1234, mtime=given[5], sha256=given[6], encoding=given[7], chars=600,
                    status="ok") == Document(*given[:10])  # fmt: skip
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.status = "binary"  # type: ignore[misc]


def test_samples_are_shared_where_they_repeat_and_left_alone_where_they_do_not() -> None:
    from neardup_gui.core.records import SharedWhereRepeated

    block, probe = SharedWhereRepeated.BLOCK, SharedWhereRepeated.PROBE
    share = SharedWhereRepeated()
    # A block of distinct samples (an ordinary folder's pairs), then a block of one template's.
    distinct = [[f"{n}-{i}" for i in range(20)] for n in range(block)]
    template = [["".join(["模板", str(i)]) for i in range(20)] for _ in range(block)]  # equal, not identical
    got = [share(s) for s in distinct + template]
    assert got == [tuple(s) for s in distinct + template]  # the same values either way
    # The distinct block: only its probes went through the table (no point holding the rest).
    assert sum(1 for v in share.table if "-" in v) == probe * 20
    # The template's block: every sample made of the same twenty string objects.
    objects = {id(v) for sample in got[block:] for v in sample}
    assert len(objects) == 20


def _candidate() -> Candidate:
    return Candidate(
        left="d1", right="d2", methods=("minhash",), jaccard=0.8, containment_left=0.9, containment_right=0.85,
        minhash_estimate=0.79, shared_shingles=800, shingles_left=900, shingles_right=950, length_ratio=0.95,
        score=0.8, flags=("exact_normalized",), shared_sample=("第一段",), segments=(Segment(0, 10, 2, 12),),
        evidence=(FlagEvidence("number_changed", ((3, 4),), ((5, 6),), "3 -> 5"),),
    )  # fmt: skip


def test_a_candidate_with_changed_fields_is_what_dataclasses_replace_makes() -> None:
    old = _candidate()
    changes = {"flags": ("number_changed",), "suggestion": "keep_both", "evidence": ()}
    fast, slow = candidate_with(old, **changes), dataclasses.replace(old, **changes)
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert dataclasses.astuple(fast) == dataclasses.astuple(slow)
    assert pickle.loads(pickle.dumps(fast)) == slow and type(fast) is Candidate
    assert old.flags == ("exact_normalized",) and old.suggestion != "keep_both"  # the old one unchanged
    assert candidate_with(old) == old and candidate_with(old) is not old
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.flags = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        candidate_with(old, colour="red")  # not a field
    assert "__post_init__" not in vars(Candidate)  # candidate_with would skip it
