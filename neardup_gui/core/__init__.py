"""The screening engine: pure Python + numpy + datasketch. Never imports Qt or ``neardup_gui.io``.

Public names are re-exported here. The pipeline's (``screen``, ``ScreenResult``, ``banding``) load on
first use: importing one engine module (``core.progress`` for a file-reading process, say) then does
not import the whole pipeline with scipy (~0.3 s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from neardup_gui.core.normalize import Normalized, normalize
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

if TYPE_CHECKING:
    from neardup_gui.core.pipeline import ScreenResult, banding, screen

_FROM_PIPELINE = frozenset({"ScreenResult", "banding", "screen"})


def __getattr__(name: str) -> Any:
    if name in _FROM_PIPELINE:
        from neardup_gui.core import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
