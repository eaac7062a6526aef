"""``records.document`` makes the same ``Document`` as the class, for every field the class has."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

from neardup_gui.core.records import Document, document

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
