"""Large clusters of near copies: each file's closest partners and a connected group, not every pair."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from neardup_gui.core.methods.dense import DENSE_NEAREST, agreement, thin_by_signatures
from neardup_gui.core.pipeline import PairMemo, screen
from neardup_gui.core.records import Document, ScreenParams

PARAMS = ScreenParams(k=3, num_perm=64, bands=16, rows=4)


def _components(edges: list[tuple[int, int]] | list[tuple[str, str]]) -> list[set]:
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        parent[find(a)] = find(b)
    groups: dict = {}
    for x in list(parent):
        groups.setdefault(find(x), set()).add(x)
    return list(groups.values())


def _clique_signatures(n: int, perms: int, seed: int) -> np.ndarray:
    """Signatures of n near copies: each row agrees with a shared row on a random share of permutations."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 2**32, size=perms, dtype=np.uint32)
    sigs = np.tile(base, (n, 1))
    for i in range(n):
        changed = rng.random(perms) < rng.uniform(0.05, 0.4)
        sigs[i, changed] = rng.integers(0, 2**32, size=int(changed.sum()), dtype=np.uint32)
    return sigs


def test_a_large_clique_keeps_each_files_closest_partners_and_stays_connected() -> None:
    n, perms = 80, 64
    sigs = _clique_signatures(n, perms, seed=3)
    pairs = np.array(list(itertools.combinations(range(n), 2)), dtype=np.int64)
    out = thin_by_signatures(pairs, n, sigs, np.arange(n), limit=50)

    kept = [tuple(p) for p in pairs[out.keep].tolist()]
    assert (out.clusters, out.documents) == (1, n)
    assert out.set_aside == len(pairs) - len(kept)
    assert len(kept) <= (DENSE_NEAREST + 1) * n < len(pairs) // 3
    comps = _components(kept)
    assert len(comps) == 1 and comps[0] == set(range(n))
    # Each file's closest partners (by agreement, ties to the lower partner) are all kept.
    agree = agreement(sigs, np.arange(n), pairs[:, 0], pairs[:, 1])
    score = {tuple(p): int(a) for p, a in zip(pairs.tolist(), agree.tolist())}
    kept_set = set(kept)
    for i in range(n):
        partners = sorted((j for j in range(n) if j != i), key=lambda j: (-score[min(i, j), max(i, j)], j))
        for j in partners[:DENSE_NEAREST]:
            assert (min(i, j), max(i, j)) in kept_set


def test_groups_up_to_the_limit_and_files_with_few_partners_keep_every_pair() -> None:
    perms = 64
    big, family = 60, 8
    sigs = np.concatenate([_clique_signatures(big, perms, 1), _clique_signatures(family, perms, 2)])
    n = big + family
    clique = list(itertools.combinations(range(big), 2))
    fam = list(itertools.combinations(range(big, n), 2))
    # A chain of three near copies hangs off the big group: each has at most two partners.
    tail = [(0, n), (n, n + 1), (n + 1, n + 2)]
    rng = np.random.default_rng(4)
    chain = np.tile(sigs[0], (3, 1))
    chain[rng.random(chain.shape) < 0.1] = 7  # each agrees with file 0 on ~90 % of the permutations
    sigs = np.concatenate([sigs, chain])
    pairs = np.array(sorted(clique + fam + tail), dtype=np.int64)
    out = thin_by_signatures(pairs, n + 3, sigs, np.arange(n + 3), limit=50)
    kept = {tuple(p) for p in pairs[out.keep].tolist()}
    assert set(fam) <= kept  # eight revisions of one text: every pair verified
    assert {(n, n + 1), (n + 1, n + 2)} <= kept
    assert out.clusters == 1 and out.documents == big + 3
    assert out.set_aside > 0

    everything = thin_by_signatures(pairs, n + 3, sigs, np.arange(n + 3), limit=0)
    assert everything.keep.all() and everything.set_aside == 0
    roomy = thin_by_signatures(pairs, n + 3, sigs, np.arange(n + 3), limit=big + 3)
    assert roomy.keep.all() and roomy.clusters == 0


def test_a_representative_of_identical_texts_counts_as_all_its_files() -> None:
    sigs = _clique_signatures(20, 64, 5)
    pairs = np.array(list(itertools.combinations(range(20), 2)), dtype=np.int64)
    alone = thin_by_signatures(pairs, 20, sigs, np.arange(20), limit=30)
    assert alone.keep.all() and alone.clusters == 0
    files = np.ones(20, dtype=np.int64)
    files[7] = 15  # one text copied 15 times: 34 files in the group
    grouped = thin_by_signatures(pairs, 20, sigs, np.arange(20), limit=30, files=files)
    assert (grouped.clusters, grouped.documents) == (1, 34) and not grouped.keep.all()
    # A file standing for 40 copies but paired with no other text is not a group to thin.
    lone = np.ones(21, dtype=np.int64)
    lone[20] = 40
    alone_copies = thin_by_signatures(pairs, 21, np.concatenate([sigs, sigs[:1]]), np.arange(21), limit=30, files=lone)
    assert alone_copies.keep.all() and alone_copies.clusters == 0


def test_the_same_signatures_keep_the_same_pairs() -> None:
    n = 70
    sigs = _clique_signatures(n, 64, 9)
    pairs = np.array(list(itertools.combinations(range(n), 2)), dtype=np.int64)
    first = thin_by_signatures(pairs, n, sigs, np.arange(n), limit=50)
    again = thin_by_signatures(pairs.copy(), n, sigs.copy(), np.arange(n), limit=50)
    assert np.array_equal(first.keep, again.keep)


# --- through the pipeline -------------------------------------------------------------------------


def _template_cluster(copies: int, seed: int = 11) -> dict[str, str]:
    """One notice filled in ``copies`` times (an amount and two characters differ), a family of
    revisions of another text, and unrelated texts."""
    rng = random.Random(seed)

    def text(n: int) -> str:
        return "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(n))

    base = text(240)
    texts: dict[str, str] = {}
    for i in range(copies):
        chars = list(base)
        for _ in range(2):
            chars[rng.randrange(len(chars))] = chr(0x4E00 + rng.randrange(3000))
        texts[f"notice_{i:03d}"] = "".join(chars[:120]) + f"金额{rng.randrange(10**6)}元" + "".join(chars[120:])
    for c in range(3):  # the same notice saved three more times
        texts[f"notice_000_copy{c}"] = texts["notice_000"]
    family = text(300)
    for v in range(4):
        texts[f"report_v{v}"] = family[: 280 + 5 * v] + text(6)
    for i in range(5):
        texts[f"other_{i}"] = text(300)
    return texts


def _docs(texts: dict[str, str]) -> list[Document]:
    return [
        Document(k, "demo", "v1", f"{k}.txt", len(v.encode()), 0.0, f"sha-{k}", "utf-8", len(v), "ok")
        for k, v in sorted(texts.items())
    ]


def test_a_folder_of_one_template_filled_in_many_times_is_verified_sparsely_and_stays_one_group() -> None:
    texts = _template_cluster(90)
    docs = _docs(texts)
    full = screen(docs, texts, PARAMS.with_(cluster_limit=0))
    thin = screen(docs, texts, PARAMS)

    notices = {d for d in texts if d.startswith("notice_")}  # 90, and three copies of one
    full_pairs = {(c.left, c.right) for c in full.candidates}
    thin_pairs = {(c.left, c.right) for c in thin.candidates}
    among = {p for p in full_pairs if p[0] in notices and p[1] in notices}
    assert len(among) > 2000  # LSH proposed (nearly) every pair of the 90 notices
    assert thin_pairs < full_pairs
    assert len(thin_pairs) <= (DENSE_NEAREST + 1) * len(notices) + 6
    # The notices are still one group, and the family of revisions keeps all six of its pairs.
    groups = _components([p for p in thin_pairs if p[0] in notices])
    assert len(groups) == 1 and groups[0] == notices
    family = {p for p in full_pairs if p[0].startswith("report_")}
    assert len(family) == 6 and family <= thin_pairs
    assert thin.counts["large_clusters"] == 1 and thin.counts["clustered_documents"] == 93
    # The copies of one notice keep their exact pairs, and stand in the group with their original.
    copies = {"notice_000", "notice_000_copy0", "notice_000_copy1", "notice_000_copy2"}
    assert {p for p in thin_pairs if set(p) <= copies} == set(itertools.combinations(sorted(copies), 2))
    assert thin.counts["set_aside_in_large_clusters"] == len(full_pairs) - len(thin_pairs)
    assert thin.counts["proposed_pairs"] == len(thin_pairs) + thin.counts["rejected_by_verification"]
    assert any("1 group(s) of more than 50 files" in note for note in thin.notes)
    assert not any("group(s) of more than" in note for note in full.notes)
    # What was kept is verified as fully as before.
    by_pair = {(c.left, c.right): c for c in full.candidates}
    for c in thin.candidates:
        assert c == by_pair[(c.left, c.right)]


def test_a_rescan_takes_the_sparse_pairs_over_and_the_limit_does_not_void_the_memo() -> None:
    texts = _template_cluster(70, seed=5)
    docs = _docs(texts)
    params = PARAMS.with_(all_scores="never")  # a TF-IDF score would be computed again
    first = screen(docs, texts, params, keep_cache=True)
    memo = PairMemo(
        params.with_(cluster_limit=0).to_dict(), first.cache.template,
        {(f"sha-{c.left}", f"sha-{c.right}"): c for c in first.candidates}, first.cache.template_min_count,
    )  # fmt: skip
    assert memo.applies_to(params) and memo.applies_to(params.with_(cluster_limit=7))
    assert not memo.applies_to(params.with_(k=4))
    again = screen(docs, texts, params, cache=first.cache, previous=memo, keep_cache=True)
    assert again.candidates == first.candidates
    assert again.counts["pairs_from_previous_run"] == len(first.candidates)


def test_a_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="cluster_limit"):
        ScreenParams(cluster_limit=-1)


def test_copies_of_one_notice_pair_with_the_same_files_as_the_notice_itself() -> None:
    texts = _template_cluster(60, seed=8)
    result = screen(_docs(texts), texts, PARAMS.with_(cluster_limit=0))
    copies = {"notice_000", "notice_000_copy0", "notice_000_copy1", "notice_000_copy2"}

    def partners(doc: str) -> set[str]:
        return {c.right if c.left == doc else c.left for c in result.candidates if doc in (c.left, c.right)} - copies

    assert len(partners("notice_000")) >= 50
    for copy in copies:
        assert partners(copy) == partners("notice_000")


def test_a_small_cluster_over_a_low_limit_is_thinned_when_few_pairs_were_proposed() -> None:
    # Eight near copies among thirty unrelated texts: LSH proposes fewer pairs than there are
    # documents, so they are expanded before the thinning and must be taken out after it.
    rng = random.Random(4)
    base = "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(300))
    texts = {f"copy_{i}": base[:150] + "改" * (i + 1) + base[150:] for i in range(8)}
    texts.update({f"other_{i:02d}": "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(300)) for i in range(30)})
    docs = _docs(texts)
    full = screen(docs, texts, PARAMS.with_(cluster_limit=0))
    thin = screen(docs, texts, PARAMS.with_(cluster_limit=3))
    assert len(full.candidates) == 28
    kept = {(c.left, c.right) for c in thin.candidates}
    assert thin.counts["set_aside_in_large_clusters"] == 28 - len(kept) > 0
    assert thin.counts["proposed_minhash"] == len(kept)
    assert len(_components(list(kept))) == 1


def test_evaluation_says_a_labelled_pair_was_set_aside_not_missed_by_lsh() -> None:
    from neardup_gui.core.evaluate import LabelledPair, error_reason, evaluate

    texts = _template_cluster(70, seed=6)
    ids = sorted(texts)
    full = screen(_docs(texts), texts, PARAMS.with_(cluster_limit=0))
    thin = {(c.left, c.right) for c in screen(_docs(texts), texts, PARAMS).candidates}
    aside = sorted((c.left, c.right) for c in full.candidates if (c.left, c.right) not in thin)
    labels = [LabelledPair(*aside[0], 1), LabelledPair(*sorted(thin)[0], 1)]
    report = evaluate(ids, texts, labels, PARAMS, audit=True)
    ev = report.for_k(PARAMS.k)
    by_pair = {s.pair.key: s for s in ev.pair_scores}
    unverified = by_pair[aside[0]]
    assert unverified.set_aside and not unverified.hit
    assert error_reason(unverified, 0.5).startswith("set aside unverified in a large cluster")
    assert not by_pair[sorted(thin)[0]].set_aside
    # The miss audit lists what LSH missed, not what was set aside.
    assert ev.audit is not None and not any((m.left, m.right) == aside[0] for m in ev.audit.misses)


def test_with_a_comparison_scope_each_file_keeps_its_closest_partners_inside_the_scope() -> None:
    # New notices screened against an archive of the same notice: archive files are not compared
    # with each other, so their closest partners must be chosen among the new files.
    texts = _template_cluster(120, seed=12)
    notices = sorted(d for d in texts if d.startswith("notice_") and "copy" not in d)
    archive = set(notices[:60]) | {d for d in texts if "copy" in d}  # notice_000 and its copies archived
    docs = [
        Document(k, "demo", "v1", f"{'archive/' if k in archive else 'new/'}{k}.txt", len(v.encode()), 0.0,
                 f"sha-{k}", "utf-8", len(v), "ok")
        for k, v in sorted(texts.items())
    ]  # fmt: skip
    params = PARAMS.with_(scope="new_vs_reference", scope_patterns=("archive/*",))
    full = screen(docs, texts, params.with_(cluster_limit=0))
    thin = screen(docs, texts, params)
    kept = {(c.left, c.right) for c in thin.candidates}
    assert not any(a in archive and b in archive for a, b in kept)
    assert thin.counts["set_aside_in_large_clusters"] > 0
    assert len(kept) < len({(c.left, c.right) for c in full.candidates})
    for doc in notices:  # each has ~60 or more partners in scope: at least its closest five kept
        assert sum(doc in pair for pair in kept) >= DENSE_NEAREST, doc
    groups = _components([p for p in kept if p[0] in set(notices) and p[1] in set(notices)])
    assert len(groups) == 1 and groups[0] == set(notices)


def test_groups_are_the_same_whether_found_in_python_or_by_scipy(monkeypatch) -> None:
    from neardup_gui.core.methods import dense

    rng = np.random.default_rng(2)
    n = 400
    pairs = np.unique(np.sort(rng.integers(0, n, size=(260, 2)), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] < pairs[:, 1]]

    def partition(label: np.ndarray) -> set[frozenset[int]]:
        out: dict[int, set[int]] = {}
        for i, x in enumerate(label.tolist()):
            out.setdefault(x, set()).add(i)
        return {frozenset(g) for g in out.values()}

    small = partition(dense._components(pairs, n))
    monkeypatch.setattr(dense, "_SMALL_GRAPH", 0)
    assert partition(dense._components(pairs, n)) == small
    assert 1 < len(small) < n  # some groups joined, some files alone


def test_pairs_of_texts_that_are_not_near_copies_join_no_cluster_and_are_always_verified() -> None:
    # What the containment index proposes in a folder of short texts: pairs whose signatures hardly
    # agree (two headlines sharing one of their few samples), chaining hundreds of files.
    rng = np.random.default_rng(11)
    n, perms = 300, 64
    sigs = rng.integers(0, 2**32, size=(n, perms), dtype=np.uint32)
    chain = np.array([(i, i + 1) for i in range(n - 1)] + [(i, i + 7) for i in range(0, n - 7, 3)], dtype=np.int64)
    chain = np.unique(chain, axis=0)
    out = thin_by_signatures(chain, n, sigs, np.arange(n), limit=50)
    assert out.keep.all() and (out.clusters, out.documents, out.set_aside) == (0, 0, 0)
    # A clique of near copies inside the same chain is still thinned, and only its own pairs are.
    clique = _clique_signatures(80, perms, seed=3)
    sigs[100:180] = clique
    inner = np.array(list(itertools.combinations(range(100, 180), 2)), dtype=np.int64)
    both = np.unique(np.concatenate([chain, inner]), axis=0)
    out = thin_by_signatures(both, n, sigs, np.arange(n), limit=50)
    assert (out.clusters, out.documents) == (1, 80) and out.set_aside > 0
    dropped = {tuple(p) for p in both[~out.keep].tolist()}
    assert dropped and all(100 <= a < 180 and 100 <= b < 180 for a, b in dropped)
    assert {tuple(p) for p in chain.tolist()} - {tuple(p) for p in inner.tolist()} <= {
        tuple(p) for p in both[out.keep].tolist()
    }
