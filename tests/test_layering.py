"""The engine and the I/O layer never load Qt (they run in batch jobs and on Dask workers)."""

from __future__ import annotations

import subprocess
import sys


def test_core_and_io_import_without_loading_qt() -> None:
    code = (
        "import sys, neardup_gui.core, neardup_gui.core.pipeline, neardup_gui.io.corpus, neardup_gui.io.outputs,"
        " neardup_gui.tasks, neardup_gui.cli; "
        "bad = [m for m in sys.modules if m.startswith('PySide6')]; print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
