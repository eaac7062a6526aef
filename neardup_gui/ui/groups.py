"""Groups of documents joined by candidate pairs (connected components), for navigation only.

A group is everything reachable through candidate pairs: A–B and B–C put A, B and C in one group
even when A–C is not a candidate. Such member pairs are listed as "not directly similar", so nobody
reads a group as "all these are copies of each other". A link can be cut for grouping only (a
boilerplate pair that chains two families together): the pair stays a candidate with its own
decision; it only stops joining groups. Cut links are kept as JSON in the session's UI state.
Decisions stay per pair; nothing here decides anything.
No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from neardup_gui.core.progress import give_way
from neardup_gui.core.records import Candidate, Document

Pair = tuple[str, str]
GROUP_CUTS_KEY = "group_cuts"  # session UI state: JSON list of [left, right]
MAX_INDIRECT = 200  # not-directly-similar pairs listed per group
COUNT_LIMIT = 50_000  # ... and counted at most (a hub with thousands of neighbours)


@dataclass(frozen=True)
class Indirect:
    """Two members of a group that are not a candidate pair, linked through ``via``."""

    left: str
    right: str
    via: str


@dataclass(frozen=True)
class Group:
    """One connected component of the candidate graph (at least two documents).

    Attributes:
        members: doc_ids, ordered by path.
        links: Candidate pairs joining members (not cut).
        cut: Cut candidate pairs with at least one end in the group.
        indirect: Up to ``MAX_INDIRECT`` member pairs that are not candidates but share a neighbour.
        indirect_total: How many such pairs there are (at most ``COUNT_LIMIT``).
        indirect_more: True when counting stopped at ``COUNT_LIMIT``.
    """

    members: tuple[str, ...]
    links: tuple[Candidate, ...]
    cut: tuple[Candidate, ...]
    indirect: tuple[Indirect, ...]
    indirect_total: int
    indirect_more: bool = False

    @property
    def best(self) -> float:
        """Highest Jaccard among the links (0 to 1)."""
        return max((c.jaccard for c in self.links), default=0.0)


def cuts_from_text(text: str) -> set[Pair]:
    """Cut links from their stored JSON (bad or empty text: none)."""
    try:
        data = json.loads(text) if text else []
    except ValueError:
        return set()
    return {(str(p[0]), str(p[1])) for p in data if isinstance(p, list) and len(p) == 2} if isinstance(data, list) else set()


def cuts_to_text(cuts: Iterable[Pair]) -> str:
    """Cut links as JSON (sorted, so equal sets give equal text)."""
    return json.dumps(sorted([list(p) for p in cuts]), ensure_ascii=False)


def _find(parent: dict[str, str], x: str) -> str:
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:  # path compression
        parent[x], x = root, parent[x]
    return root


def build_groups(
    candidates: Sequence[Candidate],
    documents: Mapping[str, Document],
    cuts: Iterable[Pair] = (),
    max_indirect: int = MAX_INDIRECT,
) -> list[Group]:
    """The connected components of the candidate pairs, largest first.

    Args:
        candidates: The pairs of a screen.
        documents: doc_id -> manifest row (members are ordered by path).
        cuts: Pairs that do not join groups (either order).
        max_indirect: Most not-directly-similar pairs kept per group.

    Returns:
        Groups of two or more documents: most members first, then the best Jaccard, then path.
    """
    cut = {tuple(sorted(p)) for p in cuts}
    pairs = {tuple(sorted(c.key)) for c in candidates}
    parent: dict[str, str] = {}
    neighbours: dict[str, set[str]] = {}
    kept: list[Candidate] = []
    cut_links: list[Candidate] = []
    for c in candidates:
        for doc_id in c.key:
            parent.setdefault(doc_id, doc_id)
        if tuple(sorted(c.key)) in cut:
            cut_links.append(c)
            continue
        kept.append(c)
        neighbours.setdefault(c.left, set()).add(c.right)
        neighbours.setdefault(c.right, set()).add(c.left)
        a, b = _find(parent, c.left), _find(parent, c.right)
        if a != b:
            parent[max(a, b)] = min(a, b)
    members: dict[str, list[str]] = {}
    for doc_id in neighbours:
        members.setdefault(_find(parent, doc_id), []).append(doc_id)
    links: dict[str, list[Candidate]] = {}
    for c in kept:
        links.setdefault(_find(parent, c.left), []).append(c)

    def path(doc_id: str) -> str:
        doc = documents.get(doc_id)
        return doc.path if doc is not None else doc_id

    groups = []
    for n, (root, ids) in enumerate(members.items()):
        if n % 64 == 0:
            give_way()  # (run beside diff jobs whose kernels let go of the GIL often: 137 ms stalls)
        ids.sort(key=lambda d: (path(d), d))
        inside = set(ids)
        indirect: list[Indirect] = []
        seen: set[Pair] = set()
        more = False
        for via in ids:
            near = sorted(neighbours.get(via, ()), key=lambda d: (path(d), d))
            for i, x in enumerate(near):
                for y in near[i + 1 :]:
                    key = tuple(sorted((x, y)))
                    if key in pairs or key in seen:
                        continue
                    seen.add(key)
                    if len(indirect) < max_indirect:
                        indirect.append(Indirect(x, y, via))
                if len(seen) >= COUNT_LIMIT:
                    more = True
                    break
            if more:
                break
        touching = tuple(c for c in cut_links if c.left in inside or c.right in inside)
        groups.append(Group(tuple(ids), tuple(links.get(root, ())), touching, tuple(indirect), len(seen), more))
    groups.sort(key=lambda g: (-len(g.members), -g.best, path(g.members[0])))
    return groups
