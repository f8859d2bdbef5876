"""The C++ kernel's outputs come from a pool that keeps freed outputs of 1 MiB or more for the
next output of the same size, as a device's caching allocator does (opgen_torch/sim_op.h,
GmCacheAllocator; docs/pytorch.md, "Output memory")."""

from __future__ import annotations

import torch
import torch_env  # noqa: F401 - generated/python on sys.path, a private OPGEN_OPP_PATH
from opgen_ops.torch import _library
from opgen_ops.torch.leaky_relu import leaky_relu

ROWS = 512  # 512 x 1024 float32: 2 MiB, over the pool's 1 MiB floor


def test_a_freed_output_is_the_next_outputs_memory() -> None:
    assert _library.PATH is not None, "the C++ kernel library did not build"
    x = torch.randn(ROWS, 1024)
    first = leaky_relu(x, negative_slope=0.1)
    address = first.data_ptr()
    del first
    # memory malloc would hand out first, had the output gone back to it
    others = [torch.empty(ROWS, 1024) for _ in range(2)]
    second = leaky_relu(-x, negative_slope=0.1)
    assert second.data_ptr() == address
    assert address not in {o.data_ptr() for o in others}
    # the reused memory holds this call's result, not the last one's
    torch.testing.assert_close(second, torch.nn.functional.leaky_relu(-x, 0.1), rtol=0, atol=0)


def test_a_live_output_is_never_handed_out_again() -> None:
    x = torch.randn(ROWS, 1024)
    outs = [leaky_relu(x, negative_slope=0.1) for _ in range(4)]
    assert len({o.data_ptr() for o in outs}) == 4
    for o in outs:
        torch.testing.assert_close(o, torch.nn.functional.leaky_relu(x, 0.1), rtol=0, atol=0)


def test_an_output_keeps_the_padding_of_a_device_allocation_and_resizes() -> None:
    x = torch.randn(ROWS, 1024)
    out = leaky_relu(x, negative_slope=0.1)
    # a device allocation: the size rounded up to 32 bytes, and 32 more (the launch's GM size)
    assert out.untyped_storage().nbytes() == out.nbytes + 32
    out.resize_(2 * ROWS, 1024)  # the pool's storage grows as torch's does
    assert out.shape == (2 * ROWS, 1024)
    torch.testing.assert_close(out[:ROWS], torch.nn.functional.leaky_relu(x, 0.1), rtol=0, atol=0)
