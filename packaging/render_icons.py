"""Render the application icon (resources/icons/neardup_gui.svg) to PNG sizes, .ico and .icns.

Run after changing the SVG:  .venv/bin/python packaging/render_icons.py
Writes resources/icons/neardup_gui-<size>.png (16 … 512), packaging/neardup_gui.ico (Windows
bundle) and packaging/neardup_gui.icns (macOS bundle) with Qt's own SVG renderer and image
writers, so no other tool is needed. Files are written atomically.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QIODevice, QRectF, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "resources" / "icons" / "neardup_gui.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(renderer: QSvgRenderer, size: int) -> QImage:
    """The icon as a size × size ARGB image on a transparent background."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def save(image: QImage, path: Path, fmt: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    if not image.save(str(tmp), fmt):
        raise SystemExit(f"could not write {path} as {fmt}")
    os.replace(tmp, path)


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico holding one PNG-compressed image per size (Vista and later read PNG entries)."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(header) + 16 * len(pngs)
    entries, payload = [], b""
    for size, data in sorted(pngs.items()):
        side = 0 if size >= 256 else size  # 0 means 256 in the directory
        entries.append(struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset + len(payload)))
        payload += data
    return header + b"".join(entries) + payload


def png_bytes(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(buffer.data())


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - needed by QImage/QPainter
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"not a valid SVG: {SVG}", file=sys.stderr)
        return 1
    for size in SIZES:
        out = SVG.with_name(f"neardup_gui-{size}.png")
        save(render(renderer, size), out, "PNG")
        print(out.relative_to(ROOT))
    ico = ROOT / "packaging" / "neardup_gui.ico"
    data = ico_bytes({size: png_bytes(render(renderer, size)) for size in SIZES if size <= 256})
    tmp = ico.with_name(f".{ico.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, ico)
    save(render(renderer, 512), ROOT / "packaging" / "neardup_gui.icns", "ICNS")
    print("packaging/neardup_gui.ico packaging/neardup_gui.icns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
