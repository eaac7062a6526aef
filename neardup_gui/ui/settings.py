"""Remembered UI state behind typed getters: the only module that touches ``QSettings``.

Geometry, splitter and header states, recent folders, the workspace chosen per source, the last
workspace shown (reopened at start-up) and the recent ones, the last screening parameters and the
reviewer's name. Lists are stored as lists and converted on read; the
parameters as JSON (``ScreenParams.to_dict``), so a value written by an older version that no longer
validates falls back to the defaults instead of breaking start-up.

The file is written on a thread of its own, never on the window's: ``QSettings`` writes it with
``fdatasync`` from the event loop after every change, and that call waits for the disk: 5-14 ms
here beside one large write, longer on a slow or throttled disk, all of it a frozen window.
Here the window's ``QSettings`` holds the values (it is read from and written to, but its own
writing is held back), and each change is also queued for the writer thread, which writes the
changes queued by then in one go (showing a result changes four settings). ``sync()`` waits until
every change made is on disk.

``QSettings.sync()`` holds Python's GIL for as long as it runs, its ``fdatasync`` included (the
binding does not release it), so even on the writer thread a slow disk froze the window, whose
every Python call waits for the GIL (200 ms and more on a throttled disk, as a result was shown).
Where the settings are an INI file and a memory-backed folder exists (``XDG_RUNTIME_DIR`` or
``/dev/shm``), the writer thread has ``QSettings`` apply the change to a copy of the file there,
then writes the bytes to the real file itself (``os.fsync`` releases the GIL).
Imports PySide6.QtCore and ``neardup_gui.io.paths``.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings

from neardup_gui.core.records import ScreenParams
from neardup_gui.io.paths import atomic_write_bytes

log = logging.getLogger(__name__)

ORGANIZATION = "neardup"
APPLICATION = "neardup_gui"
MAX_RECENT = 10


class AppSettings:
    """Typed access to the window's remembered state.

    Args:
        store: The ``QSettings`` to use; default the per-user native store of the application.
            Tests and the headless capture pass an INI file of their own.
    """

    def __init__(self, store: QSettings | None = None) -> None:
        self._s = store if store is not None else QSettings(ORGANIZATION, APPLICATION)
        self._hold = _HoldWrites(self._s)
        self._s.installEventFilter(self._hold)
        self._where = (self._s.fileName(), self._s.format())
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="neardup-settings")
        self._queued: list[tuple[str, Any]] = []  # changes the writer has not taken yet
        self._queue_lock = threading.Lock()

    @classmethod
    def in_file(cls, path: Path | str) -> AppSettings:
        """Settings kept in an INI file of their own (tests, headless capture)."""
        return cls(QSettings(str(path), QSettings.Format.IniFormat))

    def sync(self) -> None:
        """Wait until every change made so far is written to permanent storage."""
        try:
            self._writer.submit(lambda: None).result()
        except RuntimeError:  # the writer was shut down (at exit): write here
            self._s.sync()

    def _set(self, key: str, value: Any) -> None:
        """``setValue`` here (read back at once) and on the writer thread (written to disk there)."""
        self._s.setValue(key, value)
        if isinstance(value, QByteArray):
            value = QByteArray(value)  # the caller's may change after this returns
        with self._queue_lock:
            self._queued.append((key, value))
            first = len(self._queued) == 1
        if not first:  # a write is already on its way and takes this change too
            return
        try:
            self._writer.submit(self._write_queued)
        except RuntimeError:  # the writer was shut down (at exit): this QSettings writes them all
            with self._queue_lock:
                self._queued.clear()
            self._s.sync()

    def _write_queued(self) -> None:
        """On the writer thread: every change queued so far, in one write of the file."""
        with self._queue_lock:
            changes, self._queued = self._queued, []
        _write_setting(self._where, changes)

    # -- byte blobs (geometry, splitters, headers) ------------------------------------------------
    def _bytes(self, key: str) -> QByteArray | None:
        value = self._s.value(key)
        if isinstance(value, QByteArray) and not value.isEmpty():
            return value
        if isinstance(value, (bytes, bytearray)) and value:
            return QByteArray(bytes(value))
        return None

    def window_geometry(self) -> QByteArray | None:
        return self._bytes("window/geometry")

    def set_window_geometry(self, value: QByteArray) -> None:
        self._set("window/geometry", value)

    def window_state(self) -> QByteArray | None:
        return self._bytes("window/state")

    def set_window_state(self, value: QByteArray) -> None:
        self._set("window/state", value)

    def splitter_state(self, name: str) -> QByteArray | None:
        return self._bytes(f"splitters/{name}")

    def set_splitter_state(self, name: str, value: QByteArray) -> None:
        self._set(f"splitters/{name}", value)

    def header_state(self, name: str) -> QByteArray | None:
        return self._bytes(f"headers/{name}")

    def set_header_state(self, name: str, value: QByteArray) -> None:
        self._set(f"headers/{name}", value)

    # -- folders ------------------------------------------------------------------------------
    def _list(self, key: str) -> list[str]:
        value = self._s.value(key, [])
        if isinstance(value, str):  # QSettings returns a lone string for a one-item list
            value = [value]
        return [str(v) for v in (value or []) if v][:MAX_RECENT]

    def _push(self, key: str, item: Path | str) -> None:
        item = str(item)
        self._set(key, ([item] + [f for f in self._list(key) if f != item])[:MAX_RECENT])

    def recent_folders(self) -> list[str]:
        """Recently opened source folders, most recent first."""
        return self._list("folders/recent")

    def add_recent_folder(self, folder: Path | str) -> None:
        self._push("folders/recent", folder)

    def recent_workspaces(self) -> list[str]:
        """Workspaces whose review was shown recently, most recent first."""
        return self._list("folders/recent_workspaces")

    def workspace_for(self, source: Path | str) -> str | None:
        """The workspace the user chose for this source folder, if any."""
        chosen = self._json("folders/workspaces", {})
        value = chosen.get(str(source)) if isinstance(chosen, dict) else None
        return str(value) if value else None

    def set_workspace_for(self, source: Path | str, workspace: Path | str) -> None:
        chosen = self._json("folders/workspaces", {})
        if not isinstance(chosen, dict):
            chosen = {}
        chosen[str(source)] = str(workspace)
        self._set("folders/workspaces", json.dumps(chosen, ensure_ascii=False))

    def last_workspace(self) -> str | None:
        """The workspace whose review was shown last (reopened when the app starts), if any."""
        value = self._s.value("folders/last_workspace", "")
        return str(value) if value else None

    def set_last_workspace(self, workspace: Path | str) -> None:
        """Remember the workspace shown now (reopened at start-up; first of the recent ones)."""
        self._set("folders/last_workspace", str(workspace))
        self._push("folders/recent_workspaces", workspace)

    # -- screening parameters -------------------------------------------------------------------
    def last_params(self) -> ScreenParams | None:
        """The parameters of the last screen started, or None (never set, or no longer valid)."""
        data = self._json("screen/params", None)
        if not isinstance(data, dict):
            return None
        try:
            return ScreenParams.from_dict(data)
        except (TypeError, ValueError) as exc:
            log.warning("ignoring remembered parameters that no longer validate: %s", exc)
            return None

    def set_last_params(self, params: ScreenParams) -> None:
        self._set("screen/params", json.dumps(params.to_dict(), ensure_ascii=False))

    # -- review -------------------------------------------------------------------------------
    def reviewer(self) -> str:
        return str(self._s.value("review/reviewer", "") or "")

    def set_reviewer(self, name: str) -> None:
        self._set("review/reviewer", name.strip())

    def sync_scroll(self) -> bool:
        return bool(self._s.value("diff/sync_scroll", True, type=bool))

    def set_sync_scroll(self, on: bool) -> None:
        self._set("diff/sync_scroll", bool(on))

    # -- preferences (the Preferences dialog writes these) ------------------------------------
    def language(self) -> str:
        """Interface language: ``system`` (follow the locale), ``en`` or ``zh_CN``."""
        return str(self._s.value("preferences/language", "system") or "system")

    def set_language(self, language: str) -> None:
        self._set("preferences/language", language)

    def default_params(self) -> ScreenParams:
        """The screening parameters a fresh start uses (Preferences); the built-in ones if unset."""
        data = self._json("preferences/default_params", None)
        try:
            return ScreenParams.from_dict(data) if isinstance(data, dict) else ScreenParams()
        except (TypeError, ValueError) as exc:
            log.warning("ignoring default parameters that no longer validate: %s", exc)
            return ScreenParams()

    def set_default_params(self, params: ScreenParams) -> None:
        self._set("preferences/default_params", json.dumps(params.to_dict(), ensure_ascii=False))

    def write_normalized(self) -> bool:
        """Whether a screen writes ``normalized/`` (one file per document) into the workspace."""
        return bool(self._s.value("preferences/write_normalized", True, type=bool))

    def set_write_normalized(self, on: bool) -> None:
        self._set("preferences/write_normalized", bool(on))

    def reread_all(self) -> bool:
        """Whether a screen opens and hashes every file, also those whose size and times are
        unchanged since the last screen into the workspace (off: those are taken over)."""
        return bool(self._s.value("preferences/reread_all", False, type=bool))

    def set_reread_all(self, on: bool) -> None:
        self._set("preferences/reread_all", bool(on))

    def pane_font_size(self) -> float:
        """Point size of the text panes; 0 means the panes' built-in size."""
        try:
            return max(0.0, float(self._s.value("preferences/pane_font_size", 0.0)))
        except (TypeError, ValueError):
            return 0.0

    def set_pane_font_size(self, points: float) -> None:
        self._set("preferences/pane_font_size", float(points))

    def highlight_colours(self) -> dict[str, str]:
        """Highlight colours the user chose, ``{kind name: "#rrggbb"}`` (``shared``, ``unique``,
        ``changed``, ``revision``, ``current``); kinds not listed keep the colour-blind-safe default."""
        data = self._json("preferences/highlight_colours", {})
        if not isinstance(data, dict):
            return {}
        return {str(k): str(v) for k, v in data.items() if isinstance(v, str) and v.startswith("#")}

    def set_highlight_colours(self, colours: dict[str, str]) -> None:
        self._set("preferences/highlight_colours", json.dumps(dict(colours)))

    def workspaces_root(self) -> str:
        """Folder under which new workspaces are made; empty means the app-data folder's default."""
        return str(self._s.value("preferences/workspaces_root", "") or "")

    def set_workspaces_root(self, folder: Path | str) -> None:
        self._set("preferences/workspaces_root", str(folder))

    # -- helpers ------------------------------------------------------------------------------
    def _json(self, key: str, default: object) -> object:
        raw = self._s.value(key)
        if not raw:
            return default
        try:
            return json.loads(str(raw))
        except ValueError:
            log.warning("ignoring unreadable setting %s", key)
            return default


class _HoldWrites(QObject):
    """Keeps a ``QSettings`` from writing its file from the event loop (the update request it
    posts to itself after a change): ``AppSettings``' writer thread writes the file instead."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        return event.type() == QEvent.Type.UpdateRequest


def _write_setting(where: tuple[str, QSettings.Format], changes: list[tuple[str, Any]]) -> None:
    """On the writer thread: the (key, value) changes into the file, synced (each ``QSettings``
    made and dropped here, so no object of this thread outlives the call); staged in memory where
    it can be."""
    path, fmt = where
    staging = _staging_folder() if _is_ini_file(fmt) else None
    updated = None
    if staging is not None:
        try:
            updated = _staged_change(path, staging, changes)
        except OSError as exc:  # the staging folder is full or the file unreadable: QSettings writes it
            log.info("settings not staged in %s (%s); writing %s directly", staging, exc, path)
    if updated is None:
        _apply(QSettings(path, fmt), changes, path)
        return
    try:
        atomic_write_bytes(path, updated)  # its write and fsync release the GIL
    except OSError as exc:
        log.warning("settings could not be written to %s (%s)", path, exc)


def _staged_change(path: str, staging: str, changes: list[tuple[str, Any]]) -> bytes | None:
    """The settings file's bytes with the changes applied, made in ``staging`` (None: not made)."""
    with tempfile.TemporaryDirectory(prefix="neardup-settings-", dir=staging) as folder:
        staged = os.path.join(folder, "settings.ini")
        try:
            with open(path, "rb") as fh:
                current = fh.read()
        except FileNotFoundError:
            current = b""
        with open(staged, "wb") as fh:
            fh.write(current)
        if not _apply(QSettings(staged, QSettings.Format.IniFormat), changes, path):
            return None
        with open(staged, "rb") as fh:
            return fh.read()


def _apply(store: QSettings, changes: list[tuple[str, Any]], shown_path: str) -> bool:
    """``setValue`` each change and ``sync`` on ``store``; False (logged) when the file could not
    be written."""
    for key, value in changes:
        store.setValue(key, value)
    store.sync()
    status = store.status()
    if status != QSettings.Status.NoError:
        log.warning("settings could not be written to %s (%s)", shown_path, status)
        return False
    return True


def _is_ini_file(fmt: QSettings.Format) -> bool:
    """Whether settings of this format are an INI file (the native format is one on Linux and the
    other Unix systems, not on Windows, the registry, or macOS, property lists)."""
    return fmt == QSettings.Format.IniFormat or (
        fmt == QSettings.Format.NativeFormat and sys.platform not in ("win32", "darwin")
    )


def _staging_folder() -> str | None:
    """A writable folder in memory (``XDG_RUNTIME_DIR``, ``/dev/shm``), where syncing is cheap."""
    for folder in (os.environ.get("XDG_RUNTIME_DIR"), "/dev/shm"):
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return folder
    return None
