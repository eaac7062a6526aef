"""The desktop bundle's spec lists every compiled kernel module and every module the kernels
compile functions from: they are imported by name (``core.compiled.kernel_module``), which
PyInstaller's analysis cannot see, and shipped as source, which numba's cache needs beside a
function it compiles. One left out would quietly leave the bundle on the slower numpy path (a
kernel that cannot cache a function it compiles fails to load)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _listed() -> list[str]:
    tree = ast.parse((ROOT / "packaging" / "neardup_gui.spec").read_text(encoding="utf-8"))
    return next(
        ast.literal_eval(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "KERNELS" for t in node.targets)
    )


def _kernel_modules() -> set[str]:
    return {
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "neardup_gui").rglob("_*kernel.py")
    }


def test_every_kernel_module_is_listed_in_the_bundle_spec() -> None:
    on_disk = _kernel_modules()
    assert len(on_disk) >= 4 and on_disk <= set(_listed())


def test_every_module_the_kernels_compile_from_is_listed_and_nothing_else() -> None:
    pytest.importorskip("numba")
    compiled_from = set()
    for name in _kernel_modules():
        for value in vars(importlib.import_module(name)).values():
            if hasattr(value, "py_func") and hasattr(value, "signatures"):  # a numba dispatcher
                compiled_from.add(value.py_func.__module__)
    assert "neardup_gui.core.anchors" in compiled_from  # the diff kernel compiles the anchors' chain
    assert set(_listed()) == _kernel_modules() | compiled_from
