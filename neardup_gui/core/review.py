"""Review state of candidate pairs, worked out from their decision and arbitration history.

Pure logic on ``Decision`` and ``Arbitration`` records: checking a decision before it is stored,
ordering decision times (any ISO 8601 offset) on one UTC key, grouping history by pair, the
effective status of a pair (agreement, dispute, arbitration, stale files) and the old-to-new id
mapping of merge suggestions. The SQLite store is ``neardup_gui.io.session``; it calls these.

Imports only the standard library and ``neardup_gui.core.records``: no file access, no Qt.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from neardup_gui.core.records import (
    REVIEW_PENDING,
    REVIEW_PENDING_ARBITRATION,
    REVIEW_STATUSES,
    REVIEW_SUGGEST_MERGE,
    Arbitration,
    Decision,
)

__all__ = [
    "ARBITRATION_STATUSES",
    "RETAINED_CHOICES",
    "PairState",
    "effective_state",
    "id_mapping",
    "now_iso",
    "pair_histories",
    "swap_sides",
    "utc_key",
    "validate_arbitration",
    "validate_decision",
]

RETAINED_CHOICES = ("", "left", "right", "both")
# An arbitration concludes a dispute, so it cannot itself be "pending arbitration".
ARBITRATION_STATUSES = tuple(s for s in REVIEW_STATUSES if s != REVIEW_PENDING_ARBITRATION)
_SWAP_RETAINED = {"left": "right", "right": "left"}


@dataclass(frozen=True)
class PairState:
    """Where the review of one pair stands.

    Attributes:
        left, right: doc_ids of the pair.
        status: Effective status: ``pending`` without opinions; the agreed status when the
            reviewers' latest opinions agree; ``pending_arbitration`` when they differ and no later
            arbitration settled it; otherwise the latest arbitration's status.
        decisions: Every decision on the pair, in time order.
        arbitrations: Every arbitration on the pair, in time order.
        stale: True when a decision was made on a file whose SHA-256 differs from the file in
            the run the state was computed for.
    """

    left: str
    right: str
    status: str
    decisions: tuple[Decision, ...] = ()
    arbitrations: tuple[Arbitration, ...] = ()
    stale: bool = False

    @property
    def arbitration_state(self) -> str:
        """``arbitrated``, ``pending_arbitration`` or ``none``."""
        if self.status == REVIEW_PENDING_ARBITRATION:
            return "pending_arbitration"
        return "arbitrated" if self.arbitrations else "none"


def now_iso() -> str:
    """Current local time, ISO 8601 with its UTC offset, to the second."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


def utc_key(text: str) -> tuple[str, str]:
    """(ISO time as stored, sortable UTC key) for a decision time; empty means now.

    Naive times are taken as local time and get the local offset.

    Raises:
        ValueError: The text is not an ISO 8601 time.
    """
    text = text or now_iso()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"time {text!r} is not ISO 8601 (e.g. 2024-05-01T09:30:00+08:00)") from exc
    if moment.tzinfo is None:
        moment = moment.astimezone()
        text = moment.isoformat(timespec="seconds")
    return text, moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def validate_decision(decision: Decision) -> None:
    """Refuse a decision that cannot be stored.

    Raises:
        ValueError: Unknown status, bad ``retained``, empty reviewer, one document twice, or a
            time that is not ISO 8601.
    """
    d = decision
    if d.status not in REVIEW_STATUSES:
        raise ValueError(f"unknown status {d.status!r}; use one of {', '.join(REVIEW_STATUSES)}")
    if d.retained not in RETAINED_CHOICES:
        raise ValueError("retained must be 'left', 'right', 'both' or empty")
    if not d.reviewer.strip():
        raise ValueError("a decision needs a reviewer name")
    if d.left == d.right:
        raise ValueError("a pair needs two different documents")
    utc_key(d.time)


def validate_arbitration(arb: Arbitration) -> None:
    """Refuse an arbitration that cannot be stored.

    Raises:
        ValueError: A status that is not a conclusion, an empty arbitrator, or a bad time.
    """
    if arb.status not in ARBITRATION_STATUSES:
        raise ValueError(f"an arbitration's status must be one of {', '.join(ARBITRATION_STATUSES)}")
    if not arb.arbitrator.strip():
        raise ValueError("an arbitration needs the arbitrator's name")
    utc_key(arb.time)


def swap_sides(decision: Decision) -> Decision:
    """The same decision with left and right exchanged (ids, hashes and the retained side)."""
    d = decision
    return replace(d, left=d.right, right=d.left, left_sha256=d.right_sha256,
                   right_sha256=d.left_sha256,
                   retained=_SWAP_RETAINED.get(d.retained, d.retained))  # fmt: skip


def effective_state(
    left: str,
    right: str,
    decisions: Sequence[Decision],
    arbitrations: Sequence[Arbitration],
    shas: dict[str, str] | None = None,
) -> PairState:
    """Work out a pair's effective status from its history.

    Args:
        left, right: The pair.
        decisions, arbitrations: The pair's history, each in time order.
        shas: doc_id -> current SHA-256, for the stale flag (None: never stale).

    Returns:
        The pair's state. Each reviewer's latest opinion counts (a reviewer may change their
        mind; names compare without case); ``pending`` is "no opinion yet". Opinions given
        before the latest arbitration are settled by it.
    """
    latest = {d.reviewer.strip().casefold(): d for d in decisions}
    settled_at = utc_key(arbitrations[-1].time)[1] if arbitrations else ""
    opinions = {
        d.status
        for d in latest.values()
        if d.status != REVIEW_PENDING and utc_key(d.time)[1] > settled_at
    }
    if arbitrations:
        opinions.add(arbitrations[-1].status)
    status = REVIEW_PENDING
    if len(opinions) == 1:
        status = opinions.pop()
    elif opinions:
        status = REVIEW_PENDING_ARBITRATION
    stale = shas is not None and any(
        sha and shas.get(doc_id) and sha != shas[doc_id]
        for d in decisions
        for doc_id, sha in ((d.left, d.left_sha256), (d.right, d.right_sha256))
    )
    return PairState(left, right, status, tuple(decisions), tuple(arbitrations), stale)


def pair_histories(
    decisions: Iterable[Decision], arbitrations: Iterable[Arbitration]
) -> dict[tuple[str, str], tuple[list[Decision], list[Arbitration]]]:
    """Group time-ordered decisions and arbitrations by pair (left, right)."""
    out: dict[tuple[str, str], tuple[list[Decision], list[Arbitration]]] = {}
    for d in decisions:
        out.setdefault((d.left, d.right), ([], []))[0].append(d)
    for a in arbitrations:
        out.setdefault((a.left, a.right), ([], []))[1].append(a)
    return out


def id_mapping(
    decisions: Iterable[Decision], arbitrations: Iterable[Arbitration]
) -> list[tuple[str, str, str, str]]:
    """Old-id to new-id mapping of pairs whose effective status is ``suggest_merge_entry``.

    Args:
        decisions, arbitrations: The whole history, each in time order.

    Returns:
        ``(old_doc_id, new_doc_id, decided_by, time)``: ``new_doc_id`` is the entry kept
        (the retained side of the latest merge decision with ``retained`` left or right),
        ``old_doc_id`` the one mapped to it. When an arbitration settled the pair,
        ``decided_by`` names the arbitrator and ``time`` is the arbitration's.
    """
    out = []
    for (left, right), (pair_decisions, arbs) in pair_histories(decisions, arbitrations).items():
        merges = [d for d in pair_decisions
                  if d.status == REVIEW_SUGGEST_MERGE and d.retained in ("left", "right")]  # fmt: skip
        if not merges:
            continue
        if effective_state(left, right, pair_decisions, arbs).status != REVIEW_SUGGEST_MERGE:
            continue
        chosen = merges[-1]
        kept, old = (left, right) if chosen.retained == "left" else (right, left)
        by, when = chosen.reviewer, chosen.time
        if arbs:
            by, when = f"{arbs[-1].arbitrator} (arbitration)", arbs[-1].time
        out.append((old, kept, by, when))
    return out
