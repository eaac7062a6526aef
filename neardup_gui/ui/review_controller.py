"""The review of one screen's results: selected pair -> diff, form and history; decisions and
arbitrations -> store and table.

Owns the decision store of the results shown. While a screen runs the review session belongs to the
screen (it records the new run under the session's writer lock), so ``pause`` closes the store and
``resume`` opens it again for whatever results are shown afterwards: the new ones, or the previous
ones after a cancelled or failed screen. Stored statuses and the documents of the pairs normally come
ready-made (``result_handoff.PreparedResult``, read in a job thread: ``expect``), so showing a result
does not read the whole session on the GUI thread. Not a widget; imports PySide6.QtCore, ``tasks`` and the
decision store.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from neardup_gui import tasks
from neardup_gui.core.records import REVIEW_PENDING_ARBITRATION, Arbitration, Candidate, Decision
from neardup_gui.ui.candidate_model import CandidateModel
from neardup_gui.ui.candidate_view import CandidateView
from neardup_gui.ui.decision_form import DecisionForm
from neardup_gui.ui.decision_store import DecisionStore, MemoryDecisionStore, SessionDecisionStore
from neardup_gui.ui.diff_view import DiffView, PairRequest
from neardup_gui.ui.history_panel import HistoryPanel
from neardup_gui.ui.labels import review_label
from neardup_gui.ui.result_handoff import PreparedResult, prepare_result

log = logging.getLogger(__name__)


class ReviewController(QObject):
    """Connects the candidate table, the diff view, the decision form and the decision store."""

    error = Signal(str, str, str)  # title, message, details
    message = Signal(str)  # a short note for the status bar
    reviewer_used = Signal(str)
    store_changed = Signal(object)  # the DecisionStore now open, or None while paused

    def __init__(
        self,
        model: CandidateModel,
        view: CandidateView,
        diff_view: DiffView,
        form: DecisionForm,
        history: HistoryPanel,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.model, self.view, self.diff_view, self.form, self.history = model, view, diff_view, form, history
        self.outcome: tasks.ScreenOutcome | None = None
        self.store: DecisionStore | None = None
        self._last_saved: tuple[tuple[str, str], int] | None = None  # pair, its row when saved
        self._expected: PreparedResult | None = None  # prepared in the background for the next outcome
        self._expected_saves: int | None = None  # ``saves`` when that preparation started
        self.saves = 0  # decisions and arbitrations stored through this window so far
        view.candidate_selected.connect(self.show_candidate)
        form.decision_made.connect(self.save_decision)
        form.next_requested.connect(self.select_next)
        history.arbitration_made.connect(self.save_arbitration)

    # -- results ------------------------------------------------------------------------------
    def expect(self, prepared: PreparedResult, saves_at_start: int | None = None) -> None:
        """Use ``prepared`` (made off the GUI thread) when its outcome is shown next.

        ``saves_at_start``: ``saves`` when the preparation began; if the workspace shown is being
        reopened and nothing was stored since, the stored states it read are still current.
        """
        self._expected, self._expected_saves = prepared, saves_at_start

    def show_outcome(self, outcome: tasks.ScreenOutcome) -> None:
        """Put a screen's candidates in the table (with stored statuses) and select a pair."""
        if self.form.is_dirty() and self.store is not None:
            self.form.save()  # into the session of the pair's own results, before switching
        prepared, self._expected = self._expected, None
        saves_at_start, self._expected_saves = self._expected_saves, None
        if prepared is None or prepared.outcome is not outcome:
            prepared = prepare_result(outcome, read_states=False)  # not prepared in the background
        states = prepared.states
        if self._same_session(outcome) and saves_at_start != self.saves:
            states = None  # the workspace shown is reopened and decisions were made meanwhile: read again
        self.outcome = outcome
        self.resume()
        if states is None or not isinstance(self.store, SessionDecisionStore):
            states = self.store.states(c.key for c in outcome.candidates) if self.store is not None else {}
        self.model.set_candidates(
            outcome.candidates,
            prepared.pair_documents,
            {k: s.status for k, s in states.items()},
            stale=[k for k, s in states.items() if s.stale],
            changed_docs=prepared.changed_docs,
            names=prepared.pair_names,
        )
        column, order = self.view.proxy.current_sort()
        if column >= 0:
            self.model.sort(column, order)
        remembered = self.store.remembered_selection() if self.store is not None else None
        if not (remembered and self.view.select_pair(remembered)):
            self.view.select_first()

    def _same_session(self, outcome: tasks.ScreenOutcome) -> bool:
        if not isinstance(self.store, SessionDecisionStore) or outcome.out_dir is None:
            return False
        try:
            return Path(self.store.session.path).resolve() == (outcome.out_dir / tasks.SESSION_FILE).resolve()
        except OSError:
            return True

    def pause(self, why: str) -> None:
        """Release the session (a screen is about to write to it); deciding waits."""
        if self.form.is_dirty() and self.store is not None:
            self.form.save()
        self._close_store()
        self.form.set_available(False, why)
        self.history.set_available(False)

    def resume(self) -> None:
        """Open the decision store of the results shown."""
        self._close_store()
        self.history.set_available(True)
        if self.outcome is None:
            self.form.set_available(True)
            return
        if self.outcome.out_dir is None:
            self._set_store(MemoryDecisionStore())
            self.form.set_available(True, self.tr("No workspace: decisions are kept until the window closes."))
            return
        try:
            store = SessionDecisionStore.open(self.outcome.out_dir / tasks.SESSION_FILE, self.outcome.run.run_id)
        except Exception as exc:  # in use elsewhere, unwritable, newer schema: say so, keep reviewing
            log.exception("could not open the review session")
            self._set_store(MemoryDecisionStore())
            self.error.emit(
                self.tr("Decisions cannot be saved"),
                self.tr("The review session could not be opened; decisions are kept only until the window closes."),
                str(exc),
            )
            self.form.set_available(True, self.tr("Decisions are not being saved to disk."))
            return
        self._set_store(store)
        self.form.set_available(True)

    def _set_store(self, store: DecisionStore | None) -> None:
        self.store = store
        self.store_changed.emit(store)

    def session(self) -> object | None:
        """The open ``ReviewSession`` of the results shown, if decisions go to one."""
        return self.store.session if isinstance(self.store, SessionDecisionStore) else None

    def _close_store(self) -> None:
        if self.store is None:
            return
        current = self.view.current_candidate()
        try:
            if current is not None:
                self.store.remember_selection(current.key)
        except Exception:
            log.exception("could not remember the selected pair")
        self.store.close()
        self._set_store(None)

    def close(self) -> None:
        """Save unsaved form edits and close the store (window closing)."""
        if self.form.is_dirty():
            self.form.save()
        self._close_store()

    # -- pairs and decisions --------------------------------------------------------------------
    def show_candidate(self, candidate: Candidate | None) -> None:
        """Load a pair into the diff view and the form (saving unsaved form edits first)."""
        if self.form.is_dirty():
            self.form.save()
        if candidate is None or self.outcome is None:
            self.diff_view.clear()
            self.form.clear()
            self.history.set_pair(None, None)
            return
        left_doc = self.model.document(candidate.left)
        right_doc = self.model.document(candidate.right)
        texts = self.outcome.texts
        # A text taken over unread by a rescan is read now; one that no longer reads as screened counts as changed.
        left_text, right_text = texts.get(candidate.left), texts.get(candidate.right)
        gone = {c for c, t in ((candidate.left, left_text), (candidate.right, right_text)) if t is None and c in texts}
        changed = [
            d.path
            for d in (left_doc, right_doc)
            if d is not None and (d.doc_id in self.model.changed_documents() or d.doc_id in gone)
        ]
        notice = ""
        if changed:
            notice = self.tr("Changed since the screen, so its text is not shown: {0}. Screen again to compare.").format(
                ", ".join(changed)
            )
        self.diff_view.show_pair(
            PairRequest(
                candidate=candidate,
                left_doc=left_doc,
                right_doc=right_doc,
                left_text=left_text or "",
                right_text=right_text or "",
                options=self.outcome.params.normalize,
                min_len=self.outcome.params.k,
                notice=notice,
            )
        )
        latest = self.store.latest(candidate.key) if self.store is not None else None
        self.form.set_pair(candidate, left_doc, right_doc, latest)
        self._show_history(candidate)

    def _show_history(self, candidate: Candidate) -> None:
        state = None
        if self.store is not None:
            try:
                state = self.store.state(candidate.key)
            except Exception:
                log.exception("could not read the history of a pair")
        docs = (self.model.document(candidate.left), self.model.document(candidate.right))
        self.history.set_pair(candidate, state, docs)
        if state is not None and state.status == REVIEW_PENDING_ARBITRATION:
            self.form.show_note(self.tr("The reviewers disagree: History ▸ Arbitrate… records the final status."))

    def save_decision(self, decision: Decision) -> None:
        """Store a decision now (one committed transaction) and update that row's status."""
        if self.store is None:
            self.form.show_note(self.tr("Deciding is paused while a screen runs."))
            return
        pair = (decision.left, decision.right)
        self._last_saved = (pair, self.view.table.selectionModel().currentIndex().row())
        try:
            stored = self.store.save(decision)
            self.saves += 1
            state = self.store.state(pair)
        except Exception as exc:
            log.exception("could not save a decision")
            self.error.emit(self.tr("The decision was not saved"), str(exc), "")
            return
        self.model.set_status(pair, state.status, state.stale)
        self.form.mark_saved(stored)
        self.reviewer_used.emit(stored.reviewer)
        current = self.view.current_candidate()
        if current is not None and current.key == pair:
            self._show_history(current)

    def save_arbitration(self, arbitration: Arbitration) -> None:
        """Store an arbitration now and show the pair's new status."""
        if self.store is None:
            self.message.emit(self.tr("Arbitrating is paused while a screen runs."))
            return
        pair = (arbitration.left, arbitration.right)
        try:
            self.store.add_arbitration(arbitration)
            self.saves += 1
            state = self.store.state(pair)
        except Exception as exc:
            log.exception("could not save an arbitration")
            self.error.emit(self.tr("The arbitration was not saved"), str(exc), "")
            return
        self.model.set_status(pair, state.status, state.stale)
        self.message.emit(self.tr("Arbitrated: {0}").format(review_label(state.status)))
        current = self.view.current_candidate()
        if current is not None and current.key == pair:
            self._show_history(current)

    def select_next(self) -> None:
        """Go to the pair after the one just decided."""
        current = self.view.current_candidate()
        moved = False
        if self._last_saved is not None and (current is None or current.key != self._last_saved[0]):
            # The decided row left the filtered table (e.g. "pending only"): its successor took its row.
            moved = self.view.select_proxy_row(self._last_saved[1])
        else:
            moved = self.view.select_next()
        if not moved:
            self.message.emit(self.tr("That was the last pair shown."))
