"""The screening engine: pure Python + numpy + datasketch. Never imports Qt or ``neardup_gui.io``.

Public names are re-exported here.
"""

from neardup_gui.core.normalize import Normalized, normalize
from neardup_gui.core.pipeline import ScreenResult, banding, screen
from neardup_gui.core.progress import NULL_PROGRESS, CallbackProgress, Cancelled, Progress
from neardup_gui.core.records import (
    Arbitration,
    Candidate,
    Decision,
    Document,
    FlagEvidence,
    NormalizeOptions,
    RunRecord,
    ScreenParams,
    Segment,
)

__all__ = [
    "Arbitration",
    "CallbackProgress",
    "Cancelled",
    "Candidate",
    "Decision",
    "Document",
    "FlagEvidence",
    "NULL_PROGRESS",
    "NormalizeOptions",
    "Normalized",
    "Progress",
    "RunRecord",
    "ScreenParams",
    "ScreenResult",
    "Segment",
    "banding",
    "normalize",
    "screen",
]
