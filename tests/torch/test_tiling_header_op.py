"""An msopgen-style op (its tiling struct declared only in op_host/<op>_tiling.h) builds into
the PyTorch op library and runs: the library's kernel variants get the spec's tiling header
force-included, as the operator library does."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

torch = pytest.importorskip("torch")

import tiled_project  # noqa: E402
import torch_env  # noqa: E402, F401 - a private OPGEN_OPP_PATH


@pytest.fixture(scope="module")
def op(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    python = tiled_project.generate(tmp_path_factory.mktemp("tiled"), "tiled_torch_ops",
                                    "opgen_tiled")
    sys.path.insert(0, str(python))
    try:
        importlib.import_module("tiled_torch_ops.registration.tiled_scaled_add")
        module = importlib.import_module("tiled_torch_ops.torch.tiled_scaled_add")
        from tiled_torch_ops.torch import _library

        assert _library.PATH is not None and Path(_library.PATH).is_file()  # the C++ library
        yield module
    finally:
        sys.path.remove(str(python))


def test_runs_with_the_op_host_tiling_struct(op: ModuleType) -> None:
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(5000, generator=gen)
    y = torch.randn(5000, generator=gen)
    z = torch.ops.opgen_tiled.tiled_scaled_add(x, y, alpha=0.75)
    torch.testing.assert_close(z, x + 0.75 * y, rtol=0, atol=0)
    torch.testing.assert_close(op.tiled_scaled_add(x, y), x + 0.5 * y, rtol=0, atol=0)


def test_trains_through_it(op: ModuleType) -> None:
    x = torch.randn(300, requires_grad=True)
    y = torch.randn(300, requires_grad=True)
    torch.ops.opgen_tiled.tiled_scaled_add(x, y, alpha=2.0).sum().backward()
    assert x.grad is not None and y.grad is not None
    torch.testing.assert_close(x.grad, torch.ones(300))
    torch.testing.assert_close(y.grad, torch.full((300,), 2.0))
