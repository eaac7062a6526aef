"""Where the decision form's decisions go: one small interface, two implementations.

``SessionDecisionStore`` appends each decision and arbitration to the workspace's SQLite review
session in its own committed transaction (``io.session.ReviewSession``). ``MemoryDecisionStore``
keeps them in memory for a window without a usable workspace; the window says so when it falls back
to it. Both work out a pair's state the same way (``io.session.effective_state``: two reviewers who
disagree make a pair ``pending_arbitration``) and keep small UI values (selected pair, cut links).
No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from neardup_gui.core.records import Arbitration, Decision
from neardup_gui.io.session import UI_SELECTED_PAIR, PairState, ReviewSession, effective_state, now_iso

Pair = tuple[str, str]


class DecisionStore(Protocol):
    """Saves review decisions and answers where a pair's review stands."""

    persistent: bool  # False when decisions are lost with the window

    def save(self, decision: Decision) -> Decision:
        """Store one decision (committed before returning); returns it as stored."""
        ...

    def add_arbitration(self, arbitration: Arbitration) -> Arbitration:
        """Store the final word on a disputed pair (committed before returning)."""
        ...

    def status_of(self, pair: Pair) -> str:
        """Effective review status of a pair (``pending`` when nobody decided)."""
        ...

    def state(self, pair: Pair) -> PairState:
        """A pair's whole review: status, every decision and arbitration, stale or not."""
        ...

    def states(self, pairs: Iterable[Pair]) -> dict[Pair, PairState]:
        """States of many pairs; pairs without any decision or arbitration are left out."""
        ...

    def statuses(self, pairs: Iterable[Pair]) -> dict[Pair, str]:
        """Effective statuses of many pairs; pairs nobody decided are left out."""
        ...

    def latest(self, pair: Pair) -> Decision | None:
        """The most recent decision on a pair, or None."""
        ...

    def ui_value(self, key: str) -> str:
        """A remembered piece of UI state ("" when unset)."""
        ...

    def set_ui_value(self, key: str, value: str) -> None:
        ...

    def remember_selection(self, pair: Pair) -> None:
        """Remember the selected pair for the next time this workspace is opened."""
        ...

    def remembered_selection(self) -> Pair | None:
        ...

    def close(self) -> None:
        ...


class MemoryDecisionStore:
    """Decisions kept in memory only (no workspace), with the session's rules for the status."""

    persistent = False

    def __init__(self) -> None:
        self._decisions: dict[Pair, list[Decision]] = {}
        self._arbitrations: dict[Pair, list[Arbitration]] = {}
        self._ui: dict[str, str] = {}

    def save(self, decision: Decision) -> Decision:
        stored = decision if decision.time else replace(decision, time=now_iso())
        self._decisions.setdefault((decision.left, decision.right), []).append(stored)
        return stored

    def add_arbitration(self, arbitration: Arbitration) -> Arbitration:
        if not arbitration.arbitrator.strip():
            raise ValueError("an arbitration needs the arbitrator's name")
        stored = arbitration if arbitration.time else replace(arbitration, time=now_iso())
        self._arbitrations.setdefault((arbitration.left, arbitration.right), []).append(stored)
        return stored

    def state(self, pair: Pair) -> PairState:
        return effective_state(*pair, self._decisions.get(pair, []), self._arbitrations.get(pair, []))

    def status_of(self, pair: Pair) -> str:
        return self.state(pair).status

    def states(self, pairs: Iterable[Pair]) -> dict[Pair, PairState]:
        return {p: self.state(p) for p in pairs if p in self._decisions or p in self._arbitrations}

    def statuses(self, pairs: Iterable[Pair]) -> dict[Pair, str]:
        return {p: s.status for p, s in self.states(pairs).items()}

    def latest(self, pair: Pair) -> Decision | None:
        history = self._decisions.get(pair)
        return history[-1] if history else None

    def ui_value(self, key: str) -> str:
        return self._ui.get(key, "")

    def set_ui_value(self, key: str, value: str) -> None:
        self._ui[key] = value

    def remember_selection(self, pair: Pair) -> None:
        self.set_ui_value(UI_SELECTED_PAIR, "\t".join(pair))

    def remembered_selection(self) -> Pair | None:
        return _pair_of(self.ui_value(UI_SELECTED_PAIR))

    def close(self) -> None:
        pass


def _pair_of(value: str) -> Pair | None:
    parts = value.split("\t")
    return (parts[0], parts[1]) if len(parts) == 2 and all(parts) else None


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

    def add_arbitration(self, arbitration: Arbitration) -> Arbitration:
        return self.session.add_arbitration(arbitration)

    def state(self, pair: Pair) -> PairState:
        return self.session.pair_state(*pair)

    def status_of(self, pair: Pair) -> str:
        return self.state(pair).status

    def states(self, pairs: Iterable[Pair]) -> dict[Pair, PairState]:
        wanted = set(pairs)
        states = self.session.pair_states(self.run_id)
        return {k: s for k, s in states.items() if k in wanted and (s.decisions or s.arbitrations)}

    def statuses(self, pairs: Iterable[Pair]) -> dict[Pair, str]:
        return {k: s.status for k, s in self.states(pairs).items()}

    def latest(self, pair: Pair) -> Decision | None:
        history = self.session.decisions(*pair)
        return history[-1] if history else None

    def ui_value(self, key: str) -> str:
        return self.session.ui_state(key)

    def set_ui_value(self, key: str, value: str) -> None:
        self.session.set_ui_state(key, value)

    def remember_selection(self, pair: Pair) -> None:
        self.set_ui_value(UI_SELECTED_PAIR, "\t".join(pair))

    def remembered_selection(self) -> Pair | None:
        return _pair_of(self.ui_value(UI_SELECTED_PAIR))

    def close(self) -> None:
        self.session.close()
