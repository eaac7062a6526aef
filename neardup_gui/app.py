"""GUI entry point: ``neardup-gui [SOURCE] [--capture OUT.png [--select N]] [--workspace DIR] [--version]``.

Creates the QApplication, installs an exception hook that shows what went wrong, and opens the
main window on SOURCE (default: the bundled sample corpus). ``--capture`` screens SOURCE with the
default parameters at 1400 × 900, selects the N-th row of the sorted table (``--select``, default
0: the top candidate), waits for its diff, saves the window as a PNG and exits 0 (README
screenshots; checking the window on a machine without a screen). A capture keeps its settings and,
unless ``--workspace`` is given, its outputs in a temporary folder removed at the end.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import threading
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from neardup_gui import __version__

log = logging.getLogger("neardup_gui")

CAPTURE_SIZE = (1400, 900)
CAPTURE_TIMEOUT_S = 180
EXIT_CAPTURE_FAILED = 2
APP_ID = "io.github.neardup.NeardupGui"  # reverse-DNS id of the .desktop file and AppStream metadata


def _row_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"a row number (0 or more) is needed, not {text!r}")
    return value


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="neardup-gui",
        description="Review near-duplicate texts side by side. The source folder is only read.",
    )
    parser.add_argument("source", nargs="?", help="folder of texts to screen (default: the bundled sample)")
    parser.add_argument("--capture", metavar="OUT.png", help="screen, draw the top pair, save the window, exit")
    parser.add_argument(
        "--select", metavar="N", type=_row_number, default=0,
        help="with --capture: select the N-th row of the sorted table (default 0, the top pair)",
    )  # fmt: skip
    parser.add_argument("--workspace", metavar="DIR", help="folder for outputs and the review session")
    parser.add_argument(
        "--language", choices=("system", "en", "zh_CN"), help="interface language for this run (default: Preferences)"
    )
    parser.add_argument("--version", action="version", version=f"neardup-gui {__version__}")
    return parser.parse_args(list(argv) if argv is not None else None)


def install_excepthook(capture: bool) -> None:
    """Show unexpected errors to the user (with the traceback as details) instead of dying quietly."""
    from PySide6.QtCore import QCoreApplication, Qt, QThread
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication, QMessageBox

    from neardup_gui.ui.logging_setup import log_file

    kept: list[QMessageBox] = []  # message boxes without a parent window stay alive until closed

    def hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        log.error("unexpected error:\n%s", details)
        app = QCoreApplication.instance()
        if capture:
            print(details, file=sys.stderr)
            if app is not None:
                app.exit(EXIT_CAPTURE_FAILED)
            return
        if not isinstance(app, QApplication) or QThread.currentThread() is not app.thread():
            return
        parent = app.activeWindow()
        text = QCoreApplication.translate(
            "ErrorDialog", "Something went wrong: {0}\nThe window stays usable; the details say where."
        ).format(exc)
        text += "\n" + QCoreApplication.translate("ErrorDialog", "Log file: {0}").format(log_file())
        box = QMessageBox(
            QMessageBox.Icon.Critical,
            QCoreApplication.translate("ErrorDialog", "Unexpected error"),
            text,
            QMessageBox.StandardButton.Ok,
            parent,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setDetailedText(details)
        copy = box.addButton(QCoreApplication.translate("ErrorDialog", "Copy details"), QMessageBox.ButtonRole.ActionRole)
        copy.clicked.disconnect()  # a message box closes on any button; this one only copies
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(f"{text}\n\n{details}"))
        # With two buttons a message box has no escape button of its own, and then ignores the
        # title bar's close button and Esc: OK is the way out either way.
        box.setEscapeButton(QMessageBox.StandardButton.Ok)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        if parent is None:
            kept[:] = [b for b in kept if b.isVisible()] + [box]

    sys.excepthook = hook

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        log.error("unexpected error in thread %s", args.thread, exc_info=(args.exc_type, args.exc_value, args.exc_traceback))

    threading.excepthook = thread_hook


def _application() -> object:
    from PySide6.QtWidgets import QApplication

    from neardup_gui.ui import settings as ui_settings
    from neardup_gui.ui.app_menus import application_icon

    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "neardup-gui"])
    app.setOrganizationName(ui_settings.ORGANIZATION)
    app.setApplicationName(ui_settings.APPLICATION)
    app.setApplicationDisplayName("neardup")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_ID)  # names packaging/<APP_ID>.desktop: the window's icon on Wayland
    app.setWindowIcon(application_icon())
    return app


def _prepare_frozen_runtime() -> None:
    """In a bundle, numba cannot cache compiled code beside the program: use the app-data folder."""
    if getattr(sys, "frozen", False):
        from neardup_gui.io.paths import app_data_dir

        os.environ.setdefault("NUMBA_CACHE_DIR", str(app_data_dir() / "numba-cache"))


def _save_png_atomically(window: object, out: Path) -> bool:
    """Grab the window and write it as ``out`` (temporary file beside it, then ``os.replace``)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    if not window.grab().save(str(tmp), "PNG"):  # type: ignore[attr-defined]
        return False
    os.replace(tmp, out)
    return True


def run_capture(app: object, window: object, out: Path, select: int = 0) -> int:
    """Screen, select row ``select`` of the sorted table, wait for its diff, save the window.
    Returns the exit code."""
    from PySide6.QtCore import QTimer

    from neardup_gui.core.records import ScreenParams

    state = {"code": EXIT_CAPTURE_FAILED, "saved": False, "shown": False, "scheduled": False}

    def finish(code: int, message: str = "") -> None:
        if message:
            print(message, file=sys.stderr)
        state["code"] = code
        app.exit(code)  # type: ignore[attr-defined]

    def save() -> None:
        if state["saved"]:
            return
        state["saved"] = True
        if _save_png_atomically(window, out):
            print(str(out))
            finish(0)
        else:
            finish(EXIT_CAPTURE_FAILED, f"could not write {out}")

    def on_drawn(request_id: int) -> None:
        if state["shown"] and request_id == window.diff_view.request_id and not state["scheduled"]:
            state["scheduled"] = True
            QTimer.singleShot(300, save)  # let the layout settle before the grab

    def on_shown(_outcome: object) -> None:
        state["shown"] = True
        # Row 0 is the top candidate (Jaccard, descending).
        if not window.candidate_view.select_proxy_row(select):
            rows = window.candidate_view.shown_count()
            finish(EXIT_CAPTURE_FAILED, f"no row {select} to select: the table has {rows} row(s)")
            return
        if window.diff_view.is_drawn():  # drawn at once; long pairs report through pair_drawn
            on_drawn(window.diff_view.request_id)

    window.params_panel.set_params(ScreenParams())
    window.resize(*CAPTURE_SIZE)
    window.show()
    window.diff_view.pair_drawn.connect(on_drawn)
    window.outcome_shown.connect(on_shown)
    window.runner.screening_failed.connect(lambda msg, details: finish(EXIT_CAPTURE_FAILED, f"screen failed: {msg}\n{details}"))
    window.runner.screening_refused.connect(lambda refusal: finish(EXIT_CAPTURE_FAILED, f"screen refused: {refusal}"))
    window.runner.screening_cancelled.connect(lambda: finish(EXIT_CAPTURE_FAILED, "screen cancelled"))
    QTimer.singleShot(CAPTURE_TIMEOUT_S * 1000, lambda: finish(EXIT_CAPTURE_FAILED, "capture timed out"))
    if not window.start_screen():
        return EXIT_CAPTURE_FAILED
    app.exec()  # type: ignore[attr-defined]
    return int(state["code"])


def main(argv: Sequence[str] | None = None) -> int:
    """Start the window; returns the process exit code."""
    args = parse_args(argv)
    _prepare_frozen_runtime()
    from neardup_gui.ui.logging_setup import setup_logging

    setup_logging()
    app = _application()
    install_excepthook(capture=bool(args.capture))
    if not args.capture:
        from neardup_gui.ui.background import warm_up_engine

        warm_up_engine()  # numba loads while the window opens, not during the first large screen

    from PySide6.QtCore import QCoreApplication, QEvent

    from neardup_gui.io.paths import sample_corpus_dir
    from neardup_gui.ui.i18n import install_language
    from neardup_gui.ui.main_window import MainWindow
    from neardup_gui.ui.settings import AppSettings

    source = Path(args.source).expanduser() if args.source else sample_corpus_dir()
    with tempfile.TemporaryDirectory(prefix="neardup-capture-") as scratch:
        # A capture must not read or change the user's remembered state.
        settings = AppSettings.in_file(Path(scratch) / "settings.ini") if args.capture else AppSettings()
        if args.capture:
            settings.set_workspaces_root(Path(scratch) / "workspaces")  # outputs vanish with the capture
        install_language(app, args.language or settings.language())  # type: ignore[arg-type]
        if args.capture and not source.is_dir():
            print(f"not a folder: {source}", file=sys.stderr)
            settings.sync()  # the writer may still be writing into the scratch folder about to go
            return EXIT_CAPTURE_FAILED
        window = MainWindow(settings)
        try:
            if not window.set_source(source, screen=False):
                print(f"not a folder: {source}", file=sys.stderr)
                if args.capture:
                    return EXIT_CAPTURE_FAILED
            if args.workspace and not window.set_workspace(Path(args.workspace)):
                print(f"workspace refused: {args.workspace}", file=sys.stderr)
                return EXIT_CAPTURE_FAILED if args.capture else 1
            if args.capture:
                return run_capture(app, window, Path(args.capture).expanduser(), args.select)
            window.show()
            from neardup_gui.ui.background import FontWarmUp

            FontWarmUp(window).start()  # glyphs drawn now, in slices, not when the first result shows
            # Without a folder on the command line, the last workspace comes back as it was left.
            if not (args.source or args.workspace) and window.workspaces.restore_last():
                pass
            elif window.source is not None:
                window.start_screen()
            return int(app.exec())  # type: ignore[attr-defined]
        finally:
            window.close()
            window.deleteLater()
            # Delete it now (with any message box it still shows): the event loop has ended.
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            # What closing saved (geometry, splitters) is written before a capture's scratch
            # folder, which holds the settings file, is removed.
            settings.sync()
