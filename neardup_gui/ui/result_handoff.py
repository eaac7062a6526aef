"""Everything a finished screen (or an opened workspace) needs before the window shows it, worked out
off the GUI thread.

At 100,000 files the window used to stall for more than a second when a result arrived: reading every
stored decision from the review session (the SHA-256 of every file, to mark stale decisions), building
the candidate table's file names over every manifest row, grouping pairs. ``prepare_result`` does the
reading and the per-document work in a job thread (``JobRunner``) and returns a ``PreparedResult``;
the GUI thread then only installs ready-made values. Grouping and the boilerplate search wait until
their tabs are shown (``OverviewController``).
Imports ``neardup_gui.tasks``, ``neardup_gui.io``, ``neardup_gui.core`` and ``ui.candidate_columns``
(numpy) only (no Qt): it runs in a worker thread.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from neardup_gui import tasks
from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.records import Document
from neardup_gui.io.corpus import SourceTexts
from neardup_gui.io.extract import PLAIN_TEXT
from neardup_gui.io.session import PairState, ReviewSession
from neardup_gui.tasks import screen as screen_task
from neardup_gui.ui.candidate_columns import file_name

log = logging.getLogger(__name__)

# A result holding more characters of texts than this (~32 MB of Chinese) lets its plain texts go
# once it is prepared for showing: 10,000 articles keep their pairs' texts (~3 million characters),
# 100,000 (~29 million, 58 MB) read each pair's again when it is shown. (A large screen has let them
# go already, past the same bound; an opened workspace reads them to check its pairs' files.)
HELD_TEXT_CHARS = screen_task.HELD_TEXT_CHARS

Pair = tuple[str, str]


@dataclass(frozen=True)
class PreparedResult:
    """A screen outcome with what showing it needs, computed in the background.

    Attributes:
        outcome: The screen (or opened workspace) to show.
        pair_documents: doc_id -> manifest row of the documents that appear in a candidate pair.
        pair_names: doc_id -> the file name the candidate table shows for each of those documents
            (at 100,000 files ~17,600 of them: ~15 ms the window's thread need not spend).
        changed_docs: doc_ids whose file changed since the screen (their texts are not shown).
        states: Review states of the pairs someone decided or arbitrated; None when they were not
            read here (no workspace, or the session could not be read: the window reads them itself).
    """

    outcome: tasks.ScreenOutcome
    pair_documents: dict[str, Document]
    pair_names: dict[str, str]
    changed_docs: frozenset[str]
    states: dict[Pair, PairState] | None


def prepare_result(
    outcome: tasks.ScreenOutcome, progress: Progress = NULL_PROGRESS, *, read_states: bool = True
) -> PreparedResult:
    """Work out what the window needs to show ``outcome`` (runs in a job thread; no Qt).

    Args:
        outcome: A finished screen or an opened workspace.
        progress: Cancellation is checked between the steps.
        read_states: False: leave ``states`` None (the caller reads them through its own store).

    Returns:
        The outcome with the candidate pairs' documents, the changed documents and, when the
        outcome has a workspace, the stored review states read through a read-only connection.
    """
    by_id = outcome.documents_by_id
    pair_documents: dict[str, Document] = {}
    for c in outcome.candidates:
        for doc_id in (c.left, c.right):
            if doc_id not in pair_documents and doc_id in by_id:
                pair_documents[doc_id] = by_id[doc_id]
    texts = outcome.texts
    if getattr(texts, "unread", 0):
        # Texts a rescan took over unread are read when a pair is shown, on the GUI thread: cheap
        # for plain files, not for a Word or PDF file extracted again. Those are read here.
        for doc_id, doc in pair_documents.items():
            if doc.extractor not in ("", PLAIN_TEXT) and doc.usable:
                progress.check()
                texts.get(doc_id)
    if isinstance(texts, SourceTexts) and texts.held_chars > HELD_TEXT_CHARS:
        # A large result's plain texts (those its screen read to verify the pairs, or those an opened
        # workspace read to check its pairs' files) are let go: each is read again, and checked
        # against its SHA-256, when its pair is shown (well under a millisecond for an article).
        texts.forget()
    changed_paths = {path for path, _what in outcome.changed_files}
    changed = frozenset(d.doc_id for d in outcome.documents if d.path in changed_paths) if changed_paths else frozenset()
    progress.check()
    states: dict[Pair, PairState] | None = None
    path = outcome.out_dir / tasks.SESSION_FILE if outcome.out_dir is not None else None
    if read_states and path is not None and path.is_file():
        try:
            with ReviewSession.open(path, read_only=True) as session:
                every = session.pair_states(outcome.run.run_id)
        except Exception:  # the window opens the session itself and says what is wrong
            log.exception("could not read the review states in the background")
        else:
            states = {k: s for k, s in every.items() if s.decisions or s.arbitrations}
    progress.check()
    names = {doc_id: file_name(doc.path) for doc_id, doc in pair_documents.items()}
    return PreparedResult(outcome, pair_documents, names, changed, states)
