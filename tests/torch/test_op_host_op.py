"""An op tiled by its own op_host (tests/fixtures/msopgen_clamp) as a PyTorch op: the C++ kernel
of the op library runs the op_host's InferShape and TilingFunc (embedded in the library) at each
call, dispatches on its tiling key and gives the kernel its workspace."""

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
    python = tiled_project.generate(tmp_path_factory.mktemp("clamp"), "clamp_torch_ops",
                                    "opgen_clamp", tiled_project.OP_HOST_FIXTURE)
    sys.path.insert(0, str(python))
    try:
        importlib.import_module("clamp_torch_ops.registration.clamp_scale")
        module = importlib.import_module("clamp_torch_ops.torch.clamp_scale")
        from clamp_torch_ops.torch import _library

        assert _library.PATH is not None and Path(_library.PATH).is_file()  # the C++ library
        yield module
    finally:
        sys.path.remove(str(python))


@pytest.mark.parametrize(("shape", "dtype"), [((64,), torch.float32), ((100,), torch.float32),
                                              ((3, 37), torch.float16),
                                              ((16000,), torch.float16),
                                              ((300, 1024), torch.float32)])
def test_runs_with_the_op_hosts_tiling(op: ModuleType, shape: tuple[int, ...],
                                       dtype: torch.dtype) -> None:
    gen = torch.Generator().manual_seed(5)
    x = (torch.randn(shape, generator=gen) * 10).to(dtype)
    with torch.no_grad():  # the bare C++ kernel
        y = torch.ops.opgen_clamp_cpu.clamp_scale(x, gain=1.5, limit=4.0)
    want = torch.clamp(x * torch.tensor(1.5, dtype=dtype), -4, 4)
    torch.testing.assert_close(y, want, rtol=0, atol=0)


def test_trains_through_it(op: ModuleType) -> None:
    x = torch.linspace(-20, 20, 4096, requires_grad=True)
    torch.ops.opgen_clamp.clamp_scale(x, gain=2.0, limit=6.0).sum().backward()
    assert x.grad is not None
    torch.testing.assert_close(x.grad, torch.where((x * 2).abs() <= 6, 2.0, 0.0))


def test_failing_op_host_is_an_error_not_a_crash(op: ModuleType) -> None:
    x = torch.ones(64)
    with pytest.raises(RuntimeError, match="ClampScale: the op_host TilingFunc returned "
                                           "GRAPH_FAILED"):
        torch.ops.opgen_clamp_cpu.clamp_scale(x, mode=1)
    with pytest.raises(RuntimeError, match="ClampScale: the op_host TilingFunc crashed with "
                                           "SIGSEGV"):
        torch.ops.opgen_clamp_cpu.clamp_scale(x, mode=2)
    torch.testing.assert_close(torch.ops.opgen_clamp_cpu.clamp_scale(x), x)
