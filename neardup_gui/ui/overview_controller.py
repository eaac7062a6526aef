"""The views beyond the score, for the main window: Groups and Boilerplate.

Both are computed only when their tab is shown, and then in a job thread, so showing a screen's
result never waits for them (at 100,000 files grouping took half a second and the boilerplate search
competed for the interpreter with the window for many seconds). After each screen (or opened
workspace) the Groups view is told grouping is due, with the links cut for grouping (kept in the
session's UI state); showing its tab groups the pairs in the background, as does cutting or restoring
a link. Showing the Boilerplate tab starts the search for recurring passages; a newer request cancels
an older one, and a late answer for results no longer shown is dropped. "Show pair" in the Groups
view selects the pair in the candidate table (clearing filters that hide it), so the diff and the
decision form follow.
Not a widget; imports PySide6 only (and the views).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget

from neardup_gui.core.progress import list_giving_way
from neardup_gui.ui.boilerplate_view import (
    BoilerplateResult,
    BoilerplateView,
    boilerplate_sample,
    find_boilerplate,
)
from neardup_gui.ui.groups import GROUP_CUTS_KEY, Group, Pair, build_groups, cuts_from_text, cuts_to_text
from neardup_gui.ui.groups_view import GroupsView

if TYPE_CHECKING:
    from neardup_gui import tasks
    from neardup_gui.ui.main_window import MainWindow

log = logging.getLogger(__name__)


class OverviewController(QObject):
    """Feeds the Groups and Boilerplate views and carries out their requests."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.groups_view = GroupsView(window.candidate_model.status_of)
        self.boilerplate_view = BoilerplateView()
        self._token = 0  # the latest boilerplate search asked for
        self._answered = 0  # the latest one that answered
        self._boilerplate_due = False  # the results shown have not been searched yet
        self._groups_due = False  # ... nor grouped
        self._group_token = 0
        self._cuts: set[Pair] = set()
        self._tabs_connected = False
        self.groups_view.run_in_background = self._run_grouping
        self.groups_view.installEventFilter(self)
        self.boilerplate_view.installEventFilter(self)
        self.groups_view.pair_requested.connect(self.show_pair)
        self.groups_view.cuts_changed.connect(self.save_cuts)
        self.boilerplate_view.min_docs_changed.connect(lambda _n: self.find_boilerplate())
        window.candidate_model.dataChanged.connect(lambda *_: self.groups_view.links_model.refresh_statuses())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show:
            self._catch_up()
        return False

    def _shown(self, view: QWidget) -> bool:
        return view.isVisible() or self.window.tabs.currentWidget() is view

    def _catch_up(self) -> None:
        """Do what is due for the tab now shown (the Show event, or the tab chosen in a hidden window)."""
        if self._groups_due and self._shown(self.groups_view):
            self.group_pairs()
        if self._boilerplate_due and self._shown(self.boilerplate_view):
            self.find_boilerplate()

    def show_outcome(self, outcome: tasks.ScreenOutcome) -> None:
        """New results: grouping and the boilerplate search are due (now, if their tab is shown)."""
        if not self._tabs_connected:
            self.window.tabs.currentChanged.connect(lambda _index: self._catch_up())
            self._tabs_connected = True
        store = self.window.review.store
        self._cuts = cuts_from_text(store.ui_value(GROUP_CUTS_KEY)) if store is not None else set()
        self._groups_due = True
        self._group_token += 1
        self.groups_view.set_computing()
        self.window.jobs.cancel("boilerplate")
        self._token += 1
        self._boilerplate_due = True
        self.boilerplate_view.set_computing()
        self._catch_up()

    def resume(self) -> None:
        """A screen ended without new results: finish the search it interrupted, if any."""
        if self._answered != self._token and not self.window.jobs.busy("boilerplate"):
            self._boilerplate_due = True
            self._catch_up()

    def group_pairs(self) -> None:
        """Group the pairs of the results shown, in the background."""
        outcome = self.window.outcome
        self._groups_due = False
        self._group_token += 1
        token = self._group_token
        if outcome is None:
            self.groups_view.set_candidates([], {}, set())
            return
        candidates, by_id, cuts = outcome.candidates, outcome.documents_by_id, set(self._cuts)

        def work(_progress: Any) -> tuple[dict[str, Any], list[Group]]:
            docs = {i: by_id[i] for c in candidates for i in c.key if i in by_id}
            return docs, build_groups(candidates, docs, cuts)

        def done(result: tuple[dict[str, Any], list[Group]]) -> None:
            if token == self._group_token:
                docs, groups = result
                self.groups_view.set_candidates(list(candidates), docs, cuts, groups=groups)

        self.window.jobs.start("groups", work, done, self._grouping_failed)

    def _run_grouping(self, work: Callable[[], list[Group]], done: Callable[[list[Group]], None]) -> None:
        self.window.jobs.start("groups", lambda _progress: work(), done, self._grouping_failed)

    def _grouping_failed(self, message: str, _details: str) -> None:
        self.window.statusBar().showMessage(message, 8000)

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
        self._boilerplate_due = False
        self._token += 1
        token = self._token
        if outcome is None:
            self.boilerplate_view.clear()
            return
        documents, texts, params, docs = outcome.documents, outcome.texts, outcome.params, outcome.documents_by_id
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
            # A large folder is searched in a sample (read alone). Texts a rescan took over unread
            # are read here, once; one that cannot be read as screened (changed since) is left out
            # rather than failing the whole view.
            # (in slices: the watchdog caught a 126 ms window gap during one comprehension over 100,000)
            usable = list_giving_way(d.doc_id for d in documents if d.usable and d.doc_id in texts)
            picked = boilerplate_sample(usable)
            got = {doc_id: texts.get(doc_id) for doc_id in picked}
            readable = {d: t for d, t in got.items() if t is not None}
            sampled_from = len(usable) if len(picked) < len(usable) else 0
            return find_boilerplate(list(readable), readable, params, min_docs, progress, sampled_from)

        jobs.start("boilerplate", work, done, failed)
