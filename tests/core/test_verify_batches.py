"""Pairs aligned in batches on a helper thread (compiled diff) give the candidates one thread gives.

With numba loaded, ``verify_pairs`` normalizes, aligns and samples kept pairs in batches of
``ALIGN_BATCH`` with ``core._diffkernel`` on a helper thread while it builds and flags the earlier
ones (texts that need the exact normalization path are normalized before and passed as given). Here a screen
with far more pairs than one batch runs both ways (and once with the C++ library) and every
field of every candidate - passages, flags, their evidence, the suggestion - must agree.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from neardup_gui.core import diffspans, verify
from neardup_gui.core.pipeline import screen
from neardup_gui.core.progress import CallbackProgress, Cancelled
from neardup_gui.core.records import Document, ScreenParams


def _corpus(seed: int = 4) -> tuple[list[Document], dict[str, str]]:
    rng = random.Random(seed)
    chars = [chr(0x4E00 + i) for i in range(800)]
    texts: dict[str, str] = {}
    for n in range(60):
        body = "".join(rng.choice(chars) + ("，" if rng.random() < 0.08 else "") for _ in range(rng.randrange(300, 900)))
        if n % 7 == 3:  # texts normalized on the exact path: an expansion, a combining mark
            body = body[:50] + "面积120㎡，cafe\u0301" + body[50:]
        texts[f"d{n:02d}"] = body
        edited = list(body)
        for _ in range(rng.randrange(1, 6)):
            at = rng.randrange(len(edited))
            edited[at : at + rng.randrange(1, 4)] = rng.choice(["2023年", "不", "增加了", "5%", "。"])
        texts[f"d{n:02d}-rev"] = "".join(edited)
        if n % 5 == 0:
            texts[f"d{n:02d}-part"] = body[100:400]
    docs = [
        Document(doc_id=d, source_id=d, version="v1", path=f"{d}.txt", size=len(t.encode()), mtime=0.0,
                 sha256=f"{i:064x}", encoding="utf-8", chars=len(t), status="ok", message="")
        for i, (d, t) in enumerate(sorted(texts.items()))
    ]  # fmt: skip
    return docs, texts


def _everything(result) -> list[tuple]:
    return [
        (c.left, c.right, c.methods, c.jaccard, c.flags, c.segments, c.evidence, c.suggestion, c.shared_sample,
         c.length_ratio, c.containment_left, c.minhash_estimate)
        for c in result.candidates
    ]


def _both_ways(docs, texts, monkeypatch) -> tuple:
    """The screen with the C++ library's alignments, then with the compiled batches (and how many)."""
    params = ScreenParams(k=5)
    kernel = diffspans._load_kernel()
    assert kernel is not None
    monkeypatch.setattr(diffspans, "_kernel", lambda: None)
    library = screen(docs, texts, params)
    monkeypatch.setattr(diffspans, "_kernel", lambda: kernel)
    batches = []
    real = verify.align_verify
    monkeypatch.setattr(verify, "align_verify", lambda packed: batches.append(1) or real(packed))
    return library, screen(docs, texts, params), len(batches)


def test_batched_alignment_on_a_helper_thread_gives_the_same_candidates(monkeypatch) -> None:
    docs, texts = _corpus()
    library, compiled, batches = _both_ways(docs, texts, monkeypatch)

    assert len(library.candidates) > 2 * verify.ALIGN_BATCH  # several batches, one thread ahead
    assert batches >= 3
    assert _everything(compiled) == _everything(library)
    assert sum(bool(c.flags) for c in compiled.candidates) > 10  # the flags saw the hunks


def test_a_cancel_while_batches_are_aligned_stops_the_screen(monkeypatch) -> None:
    import threading

    docs, texts = _corpus(seed=6)
    kernel = diffspans._load_kernel()
    monkeypatch.setattr(diffspans, "_kernel", lambda: kernel)
    cancel = threading.Event()
    real = verify.align_verify

    def align_then_cancel(packed):
        cancel.set()  # the user clicks Cancel while the first batch is aligned
        return real(packed)

    monkeypatch.setattr(verify, "align_verify", align_then_cancel)
    with pytest.raises(Cancelled):
        screen(docs, texts, ScreenParams(k=5), CallbackProgress(lambda *a: None, cancel, 0))
    assert not [t for t in threading.enumerate() if t.name.startswith("neardup-align")]


def test_texts_that_start_or_end_on_the_exact_path_are_normalized_there_in_a_batch(monkeypatch) -> None:
    # A batch joins its texts end to end: a text whose first (or last) character needs the exact
    # path (an expansion, a combining mark) must be found as that text's, not its neighbour's.
    docs, texts = _corpus(seed=9)
    for n, d in enumerate(sorted(texts)):
        if n % 3 == 0:
            texts[d] = "㎡" + texts[d]
        elif n % 3 == 1:
            texts[d] = texts[d] + "e\u0301"
    docs = [dataclasses.replace(d, chars=len(texts[d.doc_id])) for d in docs]
    library, compiled, batches = _both_ways(docs, texts, monkeypatch)
    assert len(compiled.candidates) > 2 * verify.ALIGN_BATCH and batches >= 3
    assert _everything(compiled) == _everything(library)


class _ReadAnew(dict):
    """Texts that come back as a new object at every access (as a text read again from its file)."""

    def __getitem__(self, key: str) -> str:
        return "".join(list(super().__getitem__(key)))


@pytest.mark.parametrize("read_anew", [False, True])
def test_families_of_long_drafts_are_packed_once_a_text_and_align_as_pair_by_pair(monkeypatch, read_anew) -> None:
    # An editor who keeps every draft: each draft pairs with every other of its manuscript, so a
    # batch holds each text in several pairs. Each is packed, normalized and sampled for seeds once;
    # the anchored alignments (drafts past ANCHOR_FROM together), the hunks and the samples must
    # still be those of each pair aligned alone. One manuscript's drafts need the exact path.
    from neardup_gui.core import anchors

    rng = random.Random(12)
    chars = [chr(0x4E00 + i) for i in range(2000)]
    texts: dict[str, str] = {}
    for m in range(3):
        draft = "".join(rng.choice(chars) + ("。" if rng.random() < 0.05 else "") for _ in range(12_000))
        if m == 1:
            draft = "㎡" + draft[:5000] + "cafe\u0301" + draft[5000:]
        for d in range(6):
            texts[f"m{m}-draft{d}"] = draft
            edited = list(draft)
            for _ in range(8):
                at = rng.randrange(len(edited))
                edited[at : at + rng.randrange(1, 5)] = rng.choice(["2024年", "不", "修订", "7%"])
            draft = "".join(edited)
    assert all(2 * len(t) > anchors.ANCHOR_FROM for t in texts.values())
    docs = [
        Document(doc_id=d, source_id=d, version="v1", path=f"{d}.txt", size=len(t.encode()), mtime=0.0,
                 sha256=f"{i:064x}", encoding="utf-8", chars=len(t), status="ok", message="")
        for i, (d, t) in enumerate(sorted(texts.items()))
    ]  # fmt: skip
    packed_texts: list[tuple[int, int]] = []
    real_pack = verify.pack_verify

    def pack(items, *args, **kwargs):
        batch = real_pack(items, *args, **kwargs)
        distinct = len({id(a) for a, _, _ in items} | {id(b) for _, b, _ in items})
        packed_texts.append((batch.args[1].size - 1, distinct))
        return batch

    monkeypatch.setattr(verify, "pack_verify", pack)
    monkeypatch.setattr(verify, "ALIGN_BATCH", 4)  # batches of 8 texts: a family split between two
    if read_anew:  # still one text a document in a batch: its memory stays bounded
        texts = _ReadAnew(texts)
    library, compiled, batches = _both_ways(docs, texts, monkeypatch)

    assert len(compiled.candidates) == 3 * 15  # every pair of each family
    assert batches >= 3 and all(n <= 8 for n, _ in packed_texts)
    assert _everything(compiled) == _everything(library)
    assert sum(bool(c.flags) for c in compiled.candidates) > 10
    assert packed_texts and all(texts_packed == distinct for texts_packed, distinct in packed_texts)
    assert sum(n for n, _ in packed_texts) < len(compiled.candidates)  # far fewer texts than pairs' sides


def test_a_batch_takes_pairs_until_it_holds_as_many_texts_as_its_pairs_of_distinct_texts_would() -> None:
    distinct = [(f"a{n}", f"b{n}") for n in range(100)]
    assert verify.align_batch_end(distinct) == verify.ALIGN_BATCH
    assert verify.align_batch_end(distinct, 90) == 100
    family = [(f"d{i}", f"d{j}") for i in range(30) for j in range(i + 1, 30)]  # 435 pairs of 30 texts
    assert verify.align_batch_end(family) == verify.ALIGN_BATCH_MOST
    mixed = family[:10] + distinct
    end = verify.align_batch_end(mixed)
    held = {d for pair in mixed[:end] for d in pair}
    assert len(held) == 2 * verify.ALIGN_BATCH or len(held | set(mixed[end])) > 2 * verify.ALIGN_BATCH
    assert len(held) <= 2 * verify.ALIGN_BATCH and end > verify.ALIGN_BATCH
