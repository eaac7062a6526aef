"""The views beyond the score, for the main window: Groups and Boilerplate.

After each screen (or opened workspace) the Groups view gets the candidate pairs and the links cut
for grouping (kept in the session's UI state), and a background job looks for recurring passages
for the Boilerplate view; a newer request cancels an older one, and a late answer for results no
longer shown is dropped. "Show pair" in the Groups view selects the pair in the candidate table
(clearing filters that hide it), so the diff and the decision form follow.
Not a widget; imports PySide6 only (and the views).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject

from neardup_gui.ui.boilerplate_view import (
    BoilerplateResult,
    BoilerplateView,
    find_boilerplate,
)
from neardup_gui.ui.groups import GROUP_CUTS_KEY, Pair, cuts_from_text, cuts_to_text
from neardup_gui.ui.groups_view import GroupsView

if TYPE_CHECKING:
    from neardup_gui import tasks
    from neardup_gui.ui.main_window import MainWindow


class OverviewController(QObject):
    """Feeds the Groups and Boilerplate views and carries out their requests."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.groups_view = GroupsView(window.candidate_model.status_of)
        self.boilerplate_view = BoilerplateView()
        self._token = 0  # the latest boilerplate search asked for
        self._answered = 0  # the latest one that answered
        self.groups_view.pair_requested.connect(self.show_pair)
        self.groups_view.cuts_changed.connect(self.save_cuts)
        self.boilerplate_view.min_docs_changed.connect(lambda _n: self.find_boilerplate())
        window.candidate_model.dataChanged.connect(lambda *_: self.groups_view.links_model.refresh_statuses())

    def show_outcome(self, outcome: tasks.ScreenOutcome) -> None:
        store = self.window.review.store
        cuts = cuts_from_text(store.ui_value(GROUP_CUTS_KEY)) if store is not None else set()
        self.groups_view.set_candidates(list(outcome.candidates), outcome.documents_by_id, cuts)
        self.find_boilerplate()

    def resume(self) -> None:
        """A screen ended without new results: finish the search it interrupted, if any."""
        if self._answered != self._token and not self.window.jobs.busy("boilerplate"):
            self.find_boilerplate()

    def show_pair(self, pair: Pair) -> None:
        view = self.window.candidate_view
        if not view.select_pair(pair):
            view.clear_filters()
            if not view.select_pair(pair):
                self.window.statusBar().showMessage(self.tr("That pair is not in the table."), 5000)

    def save_cuts(self, cuts: set[Pair]) -> None:
        store = self.window.review.store
        if store is None:
            self.window.statusBar().showMessage(self.tr("Cut links are not remembered while a screen runs."), 5000)
            return
        try:
            store.set_ui_value(GROUP_CUTS_KEY, cuts_to_text(cuts))
        except Exception as exc:  # the grouping still changed on screen; say it was not kept
            self.window.show_error(self.tr("The cut links were not saved"), str(exc))

    def find_boilerplate(self) -> None:
        """Look for recurring passages of the results shown, in the background."""
        outcome = self.window.outcome
        jobs = self.window.jobs
        jobs.cancel("boilerplate")
        self._token += 1
        token = self._token
        if outcome is None:
            self.boilerplate_view.clear()
            return
        ids = [d.doc_id for d in outcome.documents if d.usable and d.doc_id in outcome.texts]
        texts, params, docs = outcome.texts, outcome.params, outcome.documents_by_id
        min_docs = self.boilerplate_view.min_docs()
        self.boilerplate_view.set_computing()

        def done(result: BoilerplateResult) -> None:
            if token == self._token:
                self._answered = token
                self.boilerplate_view.set_result(result, docs)

        def failed(message: str, _details: str) -> None:
            if token == self._token:
                self._answered = token
                self.boilerplate_view.set_failed(message)

        def work(progress: Any) -> BoilerplateResult:
            return find_boilerplate(ids, texts, params, min_docs, progress)

        jobs.start("boilerplate", work, done, failed)
