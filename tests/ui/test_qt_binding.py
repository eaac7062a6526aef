"""The installed Qt binding does not corrupt the interpreter when the window's signals are emitted.

PySide6 6.12.0 returned ``True`` from ``Signal.emit()`` without taking a reference: every emit took
one from the ``True`` object, and after a few thousand emits (progress reports, selections, a long
review session) the process aborted with "Fatal Python error: bool_dealloc". A 100,000-file screen
in the window died that way. The dependency excludes that version; this test fails on any version
with a leak like it, whatever the signal's arguments or connections.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Qt, Signal


class _Emitter(QObject):
    progress = Signal(int, int, str)
    outcome = Signal(object)
    plain = Signal()


def _counts() -> tuple[int, int, int]:
    return sys.getrefcount(True), sys.getrefcount(False), sys.getrefcount(None)


def test_emitting_signals_leaves_the_refcounts_of_true_false_and_none_alone(qapp) -> None:
    emitter, received = _Emitter(), []
    emitter.progress.connect(lambda done, total, stage: received.append(done))
    emitter.outcome.connect(lambda value: received.append(-1), Qt.ConnectionType.QueuedConnection)
    before = _counts()
    for n in range(300):
        emitter.progress.emit(n, 300, "read")
        emitter.outcome.emit(None)
        emitter.plain.emit()  # no receiver
    qapp.processEvents()
    after = _counts()
    assert len(received) == 600
    # A leaking binding loses one reference per emit (-300 or -900 here); the interpreter itself
    # may take or drop a few meanwhile.
    assert all(abs(a - b) < 30 for a, b in zip(after, before)), (before, after)
