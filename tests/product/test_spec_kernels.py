"""The desktop bundle's spec lists every compiled kernel module: they are imported by name
(``core.compiled.kernel_module``), which PyInstaller's analysis cannot see, and one left out would
quietly leave the bundle on the slower numpy path."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_kernel_module_is_listed_in_the_bundle_spec() -> None:
    spec = (ROOT / "packaging" / "neardup_gui.spec").read_text(encoding="utf-8")
    tree = ast.parse(spec)
    listed = next(
        ast.literal_eval(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "KERNELS" for t in node.targets)
    )
    on_disk = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "neardup_gui").rglob("_*kernel.py")
    }
    assert len(on_disk) >= 4 and set(listed) == on_disk
