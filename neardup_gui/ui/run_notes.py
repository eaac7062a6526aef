""""About this run": what the last screen left out or could not do, above the candidate table.

The engine writes its notes in English into the run record (``RunRecord.notes``); the window says
them in the interface language, from the record's counts where it can: pairs the comparison scope
left out (``counts["left_out_by_scope"]``), LSH buckets that were capped, pairs set aside in large
clusters of near copies, TF-IDF and SimHash
scores skipped above the size limit, files that changed during the run, too few documents, files a
rescan took over without opening them. A note
the window does not know is shown as written. The line is hidden when there is nothing to say;
its tooltip lists every note.
Imports PySide6 and ``neardup_gui.core`` only.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from neardup_gui.core.records import RunRecord, ScreenParams
from neardup_gui.ui.labels import literal_tooltip, scope_text

_SCORES_SKIPPED_RE = re.compile(r"\(([\d,]+) characters is above the automatic limit of ([\d,]+)\)")
# Prefixes of the engine's notes that the window says in its own words.
_KNOWN = {
    "scope": "comparison scope:",
    "capped": " LSH buckets held more than ",
    "clusters": " group(s) of more than ",
    "scores": "TF-IDF cosine and SimHash distance were not computed for every pair",
    "dask_scores": "TF-IDF cosine and SimHash distance are not computed by the Dask engine",
    "changed": " source file(s) changed during the run",
    "too_few": "fewer than two usable documents",
    "unread": " file(s) unchanged since the last screen into this workspace",
}


def _thousands(value: object) -> str:
    """A count with thousands separators (as the engine writes its larger numbers); "?" as it is."""
    return f"{value:,}" if isinstance(value, int) else str(value)


def _kind(note: str) -> str:
    for kind, marker in _KNOWN.items():
        if note.startswith(marker) or (marker.startswith(" ") and marker in note):
            return kind
    return ""


class RunNotes(QLabel):
    """One wrapped line naming the run's notes; the tooltip lists them all."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("run_notes")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setStyleSheet("QLabel#run_notes { background: #FFF4D6; color: #3A2A00; padding: 3px 6px; }")
        self.lines: list[str] = []
        self.hide()

    def show_run(self, run: RunRecord | None, params: ScreenParams | None) -> None:
        """Say the notes of ``run`` (screened with ``params``); hidden when it has none."""
        self.lines = self.note_lines(run, params) if run is not None else []
        if not self.lines:
            self.clear()
            self.setToolTip("")
            self.hide()
            return
        self.setText(self.tr("About this run: {0}").format(" ".join(self.lines)))
        self.setToolTip(literal_tooltip("\n".join(f"• {line}" for line in self.lines)))
        self.show()

    def left_out_by_scope(self, run: RunRecord | None) -> int | None:
        """Pairs the comparison scope left out, or None when the run had no scope."""
        if run is None or "left_out_by_scope" not in run.counts:
            return None
        return int(run.counts["left_out_by_scope"])

    def with_scope_summary(self, summary: str, run: RunRecord | None) -> str:
        """The status bar's ``summary`` of a run, followed by the pairs the scope left out (if any)."""
        left_out = self.left_out_by_scope(run)
        if left_out is None:
            return summary
        return self.tr("{0} The comparison scope left out {1} proposed pairs.").format(summary, left_out)

    def note_lines(self, run: RunRecord, params: ScreenParams | None) -> list[str]:
        """The run's notes in the interface language, the scope first."""
        counts = run.counts
        kinds = {_kind(note): note for note in run.notes}
        lines: list[str] = []
        left_out = self.left_out_by_scope(run)
        if left_out is not None or "scope" in kinds:
            scope = params if params is not None and params.scope != "all" else None
            what = scope_text(scope) if scope is not None else kinds.get("scope", "")
            lines.append(
                self.tr("Comparison scope: {0}. {1} proposed pairs were left out by it and not compared.").format(
                    what, left_out if left_out is not None else "?"
                )
            )
        if counts.get("capped_buckets") or "capped" in kinds:
            cap = params.bucket_cap if params is not None else "?"
            lines.append(
                self.tr(
                    "{0} LSH buckets held more than {1} documents and were paired around their first member only "
                    "(likely boilerplate)."
                ).format(counts.get("capped_buckets", "?"), cap)
            )
        if counts.get("set_aside_in_large_clusters") or "clusters" in kinds:
            limit = params.cluster_limit if params is not None else "?"
            lines.append(
                self.tr(
                    "{0} group(s) of more than {1} files are near copies of each other ({2} files); {3} of the pairs "
                    "among them were not verified: each file kept its closest partners and the links that keep its "
                    "group together (Groups tab)."
                ).format(
                    _thousands(counts.get("large_clusters", "?")), limit,
                    _thousands(counts.get("clustered_documents", "?")),
                    _thousands(counts.get("set_aside_in_large_clusters", "?")),
                )
            )
        if "scores" in kinds:
            found = _SCORES_SKIPPED_RE.search(kinds["scores"])
            size, limit = found.groups() if found else ("?", "?")
            lines.append(
                self.tr(
                    "TF-IDF cosine and SimHash distance were not computed for every pair ({0} characters is above "
                    "the automatic limit of {1}); choose the TF-IDF or SimHash method to get them."
                ).format(size, limit)
            )
        if "dask_scores" in kinds:
            lines.append(self.tr("TF-IDF cosine and SimHash distance are not computed by the Dask engine."))
        if run.changed_files or "changed" in kinds:
            lines.append(
                self.tr("{0} source file(s) changed during the run; their results may be out of date.").format(
                    len(run.changed_files) or "?"
                )
            )
        if "too_few" in kinds:
            lines.append(self.tr("Fewer than two usable documents: nothing was compared."))
        if "unread" in kinds:
            lines.append(
                self.tr(
                    "{0} files unchanged since the last screen (same size, times and inode) were not opened; "
                    "they keep the SHA-256 recorded then."
                ).format(counts.get("unchanged_files_not_read", "?"))
            )
        lines += [note for note in run.notes if not _kind(note)]
        return lines


def notes_above(notes: RunNotes, table: QWidget) -> QWidget:
    """The candidate tab: the notes line above the table."""
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(2)
    layout.addWidget(notes)
    layout.addWidget(table, 1)
    return page
