"""Logging of the desktop app: a rotating file in the app-data folder, warnings also on stderr.

The log is what a user sends with a bug report, so it is kept small and in a place the About
dialog and the error dialog name. Calling ``setup_logging`` again (tests, a second window)
replaces the handlers it added before instead of doubling every line.
Imports no Qt.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path

from neardup_gui.io.paths import app_data_dir

LOG_FILE_NAME = "neardup_gui.log"
MAX_BYTES = 1024 * 1024
BACKUP_COUNT = 4  # 5 files of at most 1 MB
_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s]: %(message)s"
_MARK = "_neardup_handler"


def log_dir() -> Path:
    """The folder holding the log files (``app_data_dir()/logs``; not created here)."""
    return app_data_dir() / "logs"


def log_file() -> Path:
    """The current log file."""
    return log_dir() / LOG_FILE_NAME


def setup_logging(level: int = logging.INFO, *, stderr_level: int = logging.WARNING) -> Path | None:
    """Send log records of every module to the rotating log file and warnings to stderr.

    Args:
        level: Lowest level written to the file (the ``neardup_gui`` loggers are set to it).
        stderr_level: Lowest level also printed on stderr.

    Returns:
        The log file, or None when the folder cannot be written (then only stderr logs; the
        reason is printed once on stderr).
    """
    root = logging.getLogger()
    for handler in [h for h in root.handlers if getattr(h, _MARK, False)]:
        root.removeHandler(handler)
        handler.close()
    formatter = logging.Formatter(_FORMAT)
    handlers: list[logging.Handler] = []
    path: Path | None = log_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        file_handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT, encoding="utf-8", delay=False
        )
        file_handler.setLevel(level)
        handlers.append(file_handler)
    except OSError as exc:
        print(f"neardup-gui: cannot write the log file {path}: {exc}", file=sys.stderr)
        path = None
    if sys.stderr is not None:  # a windowed bundle on Windows has no stderr
        console = logging.StreamHandler(sys.stderr)
        console.setLevel(stderr_level)
        handlers.append(console)
    for handler in handlers:
        handler.setFormatter(formatter)
        setattr(handler, _MARK, True)
        root.addHandler(handler)
    root.setLevel(min(level, stderr_level, root.level or logging.WARNING))
    logging.getLogger("neardup_gui").setLevel(level)
    # Libraries chatter at INFO (numba compiles, PIL plugins); their warnings are enough.
    for noisy in ("numba", "PIL", "matplotlib"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.getLogger("neardup_gui").info("neardup_gui started (pid %d); log file %s", os.getpid(), path)
    return path
