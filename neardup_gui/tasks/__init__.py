"""Use cases shared by the window and the command line.

Each reads through ``neardup_gui.io``, computes with ``neardup_gui.core`` and stores through
``neardup_gui.io``. The GUI and the CLI call these and nothing below them. No Qt here.

- ``screen``: screen a folder and write its outputs;
- ``review``: read a workspace's texts again, export the signed workbook and CSV files;
- ``evaluate``: compare a screen with labelled pairs.
"""

from neardup_gui.tasks.screen import (
    SESSION_FILE,
    PendingNormalized,
    ScreenOutcome,
    library_versions,
    manifest_digest,
    screen_folder,
    write_screen_outputs,
)
from neardup_gui.tasks.review import CSV_NAMES, ExportRefused, ExportSummary, export_review, read_texts
from neardup_gui.tasks.evaluate import EvaluationError, EvaluationRun, evaluate_outdir

evaluate_labels = evaluate_outdir

__all__ = [
    "CSV_NAMES",
    "EvaluationError",
    "EvaluationRun",
    "ExportRefused",
    "ExportSummary",
    "PendingNormalized",
    "SESSION_FILE",
    "ScreenOutcome",
    "evaluate_labels",
    "evaluate_outdir",
    "export_review",
    "library_versions",
    "manifest_digest",
    "read_texts",
    "screen_folder",
    "write_screen_outputs",
]
