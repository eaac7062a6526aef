"""Where the decision form's decisions go: one small interface, two implementations.

``SessionDecisionStore`` appends each decision to the workspace's SQLite review session in its own
committed transaction (``io.session.ReviewSession``). ``MemoryDecisionStore`` keeps them in memory
for a window without a usable workspace; the window says so when it falls back to it.
No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from neardup_gui.core.records import REVIEW_PENDING, Decision
from neardup_gui.io.session import UI_SELECTED_PAIR, ReviewSession

Pair = tuple[str, str]


class DecisionStore(Protocol):
    """Saves review decisions and answers where a pair's review stands."""

    persistent: bool  # False when decisions are lost with the window

    def save(self, decision: Decision) -> Decision:
        """Store one decision (committed before returning); returns it as stored."""
        ...

    def status_of(self, pair: Pair) -> str:
        """Effective review status of a pair (``pending`` when nobody decided)."""
        ...

    def statuses(self, pairs: Iterable[Pair]) -> dict[Pair, str]:
        """Effective statuses of many pairs; pairs nobody decided are left out."""
        ...

    def latest(self, pair: Pair) -> Decision | None:
        """The most recent decision on a pair, or None."""
        ...

    def remember_selection(self, pair: Pair) -> None:
        """Remember the selected pair for the next time this workspace is opened."""
        ...

    def remembered_selection(self) -> Pair | None:
        ...

    def close(self) -> None:
        ...


class MemoryDecisionStore:
    """Decisions kept in memory only (no workspace); effective status = the latest decision's."""

    persistent = False

    def __init__(self) -> None:
        self._history: dict[Pair, list[Decision]] = {}
        self._selected: Pair | None = None

    def save(self, decision: Decision) -> Decision:
        self._history.setdefault((decision.left, decision.right), []).append(decision)
        return decision

    def status_of(self, pair: Pair) -> str:
        latest = self.latest(pair)
        return latest.status if latest is not None else REVIEW_PENDING

    def statuses(self, pairs: Iterable[Pair]) -> dict[Pair, str]:
        return {p: self._history[p][-1].status for p in pairs if p in self._history}

    def latest(self, pair: Pair) -> Decision | None:
        history = self._history.get(pair)
        return history[-1] if history else None

    def remember_selection(self, pair: Pair) -> None:
        self._selected = pair

    def remembered_selection(self) -> Pair | None:
        return self._selected

    def close(self) -> None:
        pass


class SessionDecisionStore:
    """Decisions appended to ``<workspace>/session.sqlite``.

    Args:
        session: An open, writable review session; the store closes it in ``close``.
        run_id: The run whose pairs the window shows (None: the latest).
    """

    persistent = True

    def __init__(self, session: ReviewSession, run_id: str | None = None) -> None:
        self.session = session
        self.run_id = run_id

    @classmethod
    def open(cls, path: Path, run_id: str | None = None) -> SessionDecisionStore:
        """Open the session at ``path`` for writing (raises ``SessionInUseError``, OSError, ...)."""
        return cls(ReviewSession.open(path), run_id)

    def save(self, decision: Decision) -> Decision:
        return self.session.add_decision(decision)

    def status_of(self, pair: Pair) -> str:
        return self.session.pair_state(*pair).status

    def statuses(self, pairs: Iterable[Pair]) -> dict[Pair, str]:
        wanted = set(pairs)
        states = self.session.pair_states(self.run_id)
        return {k: s.status for k, s in states.items() if k in wanted and (s.decisions or s.arbitrations)}

    def latest(self, pair: Pair) -> Decision | None:
        history = self.session.decisions(*pair)
        return history[-1] if history else None

    def remember_selection(self, pair: Pair) -> None:
        self.session.set_ui_state(UI_SELECTED_PAIR, "\t".join(pair))

    def remembered_selection(self) -> Pair | None:
        value = self.session.ui_state(UI_SELECTED_PAIR)
        parts = value.split("\t")
        return (parts[0], parts[1]) if len(parts) == 2 and all(parts) else None

    def close(self) -> None:
        self.session.close()
