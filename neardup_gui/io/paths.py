"""Where the program keeps its files, and the rule that nothing is ever written in the source folder.

Holds the app-data and resources locations, the inside/outside test for output folders and atomic
file writes (temporary file in the destination folder, flush, fsync, ``os.replace``).
Must not import Qt: the locations follow the platforms' conventions by hand.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
from pathlib import Path

APP_NAME = "neardup_gui"
# Set this variable to put all app data in one folder (portable use, tests of other modules).
DATA_DIR_ENV = "NEARDUP_GUI_DATA_DIR"


class OutputInsideSourceError(ValueError):
    """An output location lies inside (or is) the read-only source folder."""


def _resolved(path: Path | str) -> Path:
    # os.path.realpath, not Path.resolve: before Python 3.13 Path.resolve raises RuntimeError on a
    # symlink loop (a link to itself in the source folder stopped the whole scan).
    return Path(os.path.realpath(Path(path).expanduser()))


def is_inside(path: Path | str, root: Path | str) -> bool:
    """True if ``path`` is ``root`` or lies below it, after resolving symlinks and ``..``.

    Paths need not exist; the existing part of each is resolved (so a symlink that points into
    ``root`` counts as inside). Case is compared the way the platform compares it.
    """
    p = os.path.normcase(str(_resolved(path)))
    r = os.path.normcase(str(_resolved(root)))
    if p == r:
        return True
    return p.startswith(r if r.endswith(os.sep) else r + os.sep)


def ensure_outside_source(out_dir: Path | str, source: Path | str) -> Path:
    """Refuse an output folder that is the source folder or inside it.

    Args:
        out_dir: Where the caller wants to write (need not exist yet).
        source: The source folder being screened.

    Returns:
        ``out_dir`` resolved to an absolute path.

    Raises:
        OutputInsideSourceError: ``out_dir`` is ``source`` or below it (also through a symlink).
    """
    out = _resolved(out_dir)
    src = _resolved(source)
    if is_inside(out, src):
        where = "is the source folder" if out == src else f"is inside the source folder {src}"
        raise OutputInsideSourceError(
            f"The output location {out} {where}. The source folder is never written to; "
            "choose a folder outside it."
        )
    return out


def app_data_dir() -> Path:
    """The per-user folder for sessions and workspaces (not created here).

    ``$NEARDUP_GUI_DATA_DIR`` if set; otherwise ``%APPDATA%/neardup_gui`` on Windows,
    ``~/Library/Application Support/neardup_gui`` on macOS and
    ``$XDG_DATA_HOME/neardup_gui`` (default ``~/.local/share/neardup_gui``) elsewhere.
    """
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    if sys.platform.startswith("win"):
        base = os.environ.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
        return Path(base) / APP_NAME
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP_NAME
    xdg = os.environ.get("XDG_DATA_HOME")
    # The XDG spec says relative values are invalid and must be ignored.
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / APP_NAME


_UNSAFE_NAME_RE = re.compile(r'[<>:"/\\|?*\x00-\x1f]')


def default_workspace(source: Path | str, root: Path | str | None = None) -> Path:
    """The default workspace of a source folder (not created here).

    ``<root>/<folder name>-<8 hex digits of SHA-1 of the resolved path>``, where ``root`` defaults
    to ``app_data_dir()/workspaces`` (the user may choose another in Preferences): the name helps
    a person find it, the digest keeps two folders of the same name apart.
    """
    resolved = _resolved(source)
    name = _UNSAFE_NAME_RE.sub("_", resolved.name).strip(" .")[:60] or "root"
    digest = hashlib.sha1(str(resolved).encode("utf-8", "surrogateescape")).hexdigest()[:8]
    base = Path(root).expanduser() if root else app_data_dir() / "workspaces"
    return base / f"{name}-{digest}"


def resources_dir() -> Path:
    """The ``resources`` folder: inside the bundle when frozen (PyInstaller), inside the package
    when installed from a wheel (``neardup_gui/resources``, see setup.py), else the checkout's."""
    bundle = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundle:
        return Path(bundle) / "resources"
    installed = Path(__file__).resolve().parents[1] / "resources"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[2] / "resources"


def sample_corpus_dir() -> Path:
    """The small sample corpus shipped with the program."""
    return resources_dir() / "sample"


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half.

    The parent folder is created if needed. A new file gets mode 0644; an existing file keeps its
    mode.

    Raises:
        OSError: The folder is not writable, the disk is full, ... (no temporary file is left).
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = target.stat().st_mode & 0o7777
    except OSError:
        mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_text(path: Path | str, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` atomically (see ``atomic_write_bytes``). Newlines are written as given."""
    atomic_write_bytes(path, text.encode(encoding))
