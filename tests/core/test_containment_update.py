"""The containment index brought up to date from an earlier screen's memo gives what a full build gives.

A rescan where a few texts changed indexes only those (and the documents whose usable samples
changed because a key crossed the bucket cap), taking every other pair over: the pairs, the
boilerplate count and the usable counts must be exactly a full build's.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from neardup_gui.core import shingles as sh
from neardup_gui.core.methods import containment
from neardup_gui.core.methods.containment import ContainmentMemo, containment_index, containment_pairs, sampled
from neardup_gui.core.normalize import codepoints


def _texts(rng: random.Random, phrases: list[str], count: int) -> list[str]:
    out = []
    for _ in range(count):
        parts = [
            rng.choice(phrases) if rng.random() < 0.35 else "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(8))
            for _ in range(rng.randrange(15, 90))
        ]
        out.append("".join(parts))
    return out


def _index_input(texts: list[str]) -> tuple[list[np.ndarray], list[bytes]]:
    samples = [sampled(sh.shingle_set(codepoints(t), 5), 4) for t in texts]
    return samples, [hashlib.blake2b(t.encode("utf-8"), digest_size=16).digest() for t in texts]


def _rescanned(rng: random.Random, texts: list[str], phrases: list[str], changes: int) -> list[str]:
    """The folder again: a few texts gone, edited, copied in part or new; the order shuffled."""
    out = list(texts)
    for _ in range(changes):
        kind = rng.randrange(5)
        i = rng.randrange(len(out))
        if kind == 0 and len(out) > 2:
            del out[i]
        elif kind == 1:  # edited: a phrase shared with many others added (its key may cross the cap)
            out[i] = out[i] + rng.choice(phrases) + rng.choice(phrases)
        elif kind == 2:  # an excerpt of another text
            start = rng.randrange(0, max(1, len(out[i]) // 2))
            out.append(out[i][start : start + rng.randrange(80, 300)])
        elif kind == 3:
            out.extend(_texts(rng, phrases, 1))
        else:  # two new texts sharing most of their length (a pair of two new documents)
            new = _texts(rng, phrases, 1)[0]
            cut = rng.randrange(len(new) // 2, len(new))
            out += [new, new[:cut] + _texts(rng, phrases, 1)[0][: len(new) - cut]]
    out = list(dict.fromkeys(t for t in out if len(t) >= 40))  # one document per distinct text
    rng.shuffle(out)
    return out


def _same(got: ContainmentMemo, full: ContainmentMemo) -> None:
    assert got.pairs.tolist() == full.pairs.tolist()
    assert got.ignored == full.ignored
    assert got.usable.tolist() == full.usable.tolist()
    assert got.digests == full.digests


@pytest.mark.parametrize("path", ["compiled", "numpy"])
@pytest.mark.parametrize("threshold, cap", [(0.8, 200), (0.6, 4), (0.5, 7)])
@pytest.mark.parametrize("parts", ["whole", "in parts"])
def test_an_index_brought_up_to_date_equals_a_full_build(path, threshold, cap, parts, monkeypatch) -> None:
    monkeypatch.setattr(containment, "_COMPILED_MIN_ENTRIES", 0 if path == "compiled" else 10**9)
    if parts == "in parts":  # the documents' samples looked in 7 documents at a time, as 8,192 at scale
        monkeypatch.setattr(containment, "_LOOKUP_DOCS", 7)
    updated = 0
    for seed in range(6):
        rng = random.Random(seed)
        phrases = ["".join(chr(0x4E00 + rng.randrange(400)) for _ in range(10)) for _ in range(40)]
        texts = _texts(rng, phrases, 80)
        for i in range(0, 16, 2):
            texts.append(texts[i][: len(texts[i]) // 2])  # halves of others: contained pairs
        samples, digests = _index_input(texts)
        memo = containment_index(samples, digests, threshold, cap)
        assert memo.rebuilt
        for _ in range(3):  # rescan after rescan, each from the last one's memo
            texts = _rescanned(rng, texts, phrases, rng.randrange(0, 6))
            samples, digests = _index_input(texts)
            memo_before = memo
            memo = containment_index(samples, digests, threshold, cap, earlier=memo_before)
            full = containment_index(samples, digests, threshold, cap)
            _same(memo, full)
            # and what the index is meant to find, counted by hand
            assert set(map(tuple, memo.pairs.tolist())) == set(
                map(tuple, containment_pairs(samples, threshold, 1, cap)[0].tolist())
            )
            updated += not memo.rebuilt
    assert updated >= 12  # most rescans were brought up to date, not rebuilt


def test_a_key_crossing_the_bucket_cap_changes_pairs_of_unchanged_documents() -> None:
    # A short document (0) pairs through one key held by three documents (cap 3). A new document
    # holding it too makes it boilerplate: 0 then pairs with nothing, though neither it nor its
    # partners changed; when the new document goes again, the pairs come back.
    keys = np.arange(1, 400, dtype=np.uint64) << np.uint64(40)
    common = np.array([7 << 50], dtype=np.uint64)
    short = np.sort(np.concatenate([keys[:1], common]))
    longer = [np.sort(np.concatenate([keys[10 * i : 10 * i + 10], common])) for i in (1, 2)]
    fillers = [keys[100 + 10 * i : 110 + 10 * i] for i in range(12)]  # so one new text is a small change
    new = np.sort(np.concatenate([keys[300:310], common]))
    before_docs = [short, *longer, *fillers]
    digests = [bytes([i]) * 16 for i in range(len(before_docs) + 1)]
    before = containment_index(before_docs, digests[:-1], 0.9, 3)
    assert before.pairs.tolist() == [[0, 1], [0, 2]] and before.ignored == 0
    after = containment_index([*before_docs, new], digests, 0.9, 3, earlier=before)
    assert not after.rebuilt
    assert after.pairs.tolist() == [] and after.ignored == 1
    assert after.usable.tolist()[:3] == [1, 10, 10]
    again = containment_index(before_docs, digests[:-1], 0.9, 3, earlier=after)
    assert not again.rebuilt
    assert again.pairs.tolist() == [[0, 1], [0, 2]] and again.ignored == 0 and again.usable.tolist()[:3] == [2, 11, 11]


@pytest.mark.parametrize("y_first", [False, True])
def test_a_document_whose_usable_samples_grew_can_lose_a_pair_with_an_unchanged_one(y_first) -> None:
    # y shares 14 of its 20 usable samples with x: just what it needs (14 of 20 at 0.9). Its key k,
    # held by three documents (cap 2), is boilerplate. When one of those goes, k is usable: y then
    # has 21 usable samples and needs 15, so x and y (neither changed) no longer pair.
    keys = np.arange(1, 600, dtype=np.uint64) << np.uint64(40)
    k = np.array([7 << 50], dtype=np.uint64)
    x = keys[:40]
    y = np.sort(np.concatenate([keys[:14], keys[100:106], k]))
    z = [np.sort(np.concatenate([keys[200 + 10 * i : 210 + 10 * i], k])) for i in range(2)]
    fillers = [keys[300 + 10 * i : 310 + 10 * i] for i in range(12)]
    docs = [y, x, *z, *fillers] if y_first else [x, y, *z, *fillers]
    digests = [bytes([i]) * 16 for i in range(len(docs))]
    before = containment_index(docs, digests, 0.9, 2)
    assert before.pairs.tolist() == [[0, 1]]
    gone = [d for i, d in enumerate(docs) if i != 3]
    after = containment_index(gone, digests[:3] + digests[4:], 0.9, 2, earlier=before)
    assert not after.rebuilt
    assert after.pairs.tolist() == [] and sorted(after.usable.tolist()[:2]) == [21, 40]


def test_other_parameters_or_a_large_change_build_the_index_afresh() -> None:
    rng = random.Random(5)
    phrases = ["".join(chr(0x4E00 + rng.randrange(400)) for _ in range(10)) for _ in range(40)]
    texts = _texts(rng, phrases, 50)
    samples, digests = _index_input(texts)
    memo = containment_index(samples, digests, 0.8, 200)
    assert containment_index(samples, digests, 0.7, 200, earlier=memo).rebuilt
    assert containment_index(samples, digests, 0.8, 50, earlier=memo).rebuilt
    assert not containment_index(samples, digests, 0.8, 200, earlier=memo).rebuilt
    half = texts[:25] + _texts(rng, phrases, 25)
    samples, digests = _index_input(half)
    assert containment_index(samples, digests, 0.8, 200, earlier=memo).rebuilt
