"""Compiled kernels load lazily, once; one that cannot load leaves the numpy path, said once in the log."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from neardup_gui.core.compiled import kernel_module


def test_a_kernel_module_loads_once_and_works() -> None:
    pytest.importorskip("numba")
    module = kernel_module("methods._sortkernel")
    assert module is not None and kernel_module("methods._sortkernel") is module
    keys = np.array([5, 3, 5, 1], dtype=np.uint64)
    order = np.empty(4, dtype=np.int64)
    module.radix_argsort(keys, order)
    assert order.tolist() == [3, 1, 0, 2] and keys.tolist() == [1, 3, 5, 5]


def test_a_kernel_that_cannot_load_gives_none_and_one_warning(caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="neardup_gui.core.compiled"):
        assert kernel_module("_no_such_kernel", "the C++ library") is None
        assert kernel_module("_no_such_kernel", "the C++ library") is None
    warnings = [r for r in caplog.records if "_no_such_kernel" in r.getMessage()]
    assert len(warnings) == 1 and "using the C++ library" in warnings[0].getMessage()
