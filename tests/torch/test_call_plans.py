"""The C++ CPU kernel's call plans (docs/pytorch.md, "Call plans"): a call whose inputs' dtypes,
shapes and attrs match one of the thread's last few reuses its variant, output shapes and tiling;
any difference in the key gets its own, and a call that fails its checks keeps nothing."""

from __future__ import annotations

import threading

import pytest
import torch
import torch.nn.functional as F
import torch_env  # noqa: F401 - generated/python on sys.path, a private OPGEN_OPP_PATH
from opgen_ops.torch import _library
from opgen_ops.torch import element_add as element_add_module
from opgen_ops.torch import layer_norm as layer_norm_module
from opgen_ops.torch import leaky_relu as leaky_relu_module

PLANS = 8  # kCallPlans in opgen_torch/sim_op.h


def setup_module() -> None:
    assert _library.PATH is not None, "the C++ kernel library did not build"


@pytest.mark.parametrize("path", ["entry", "dispatcher"])
def test_more_shapes_than_plans_each_exact(path: str) -> None:
    call = (element_add_module._FAST if path == "entry"
            else torch.ops.opgen_ops_cpu.element_add)
    assert call is not None
    shapes = [(n,) for n in range(1, PLANS + 4)] + [(15,), (1000,), (4099,)]
    inputs = {s: (torch.randn(s), torch.randn(s)) for s in shapes}
    for _ in range(3):  # the second and third rounds find plans (or lost them to newer keys)
        for s, (x, y) in inputs.items():
            got = call(x, y)
            assert got.shape == torch.Size(s)
            torch.testing.assert_close(got, x + y, rtol=0, atol=0)


def test_an_attr_is_part_of_the_key() -> None:
    x = torch.randn(4, 33)
    for _ in range(2):
        for slope in (0.1, 0.2, -0.0, 0.0, 3):
            got = leaky_relu_module.leaky_relu(x, negative_slope=slope)
            torch.testing.assert_close(got, F.leaky_relu(x, float(slope)), rtol=0, atol=0)


def test_a_dtype_is_part_of_the_key() -> None:
    x = torch.randn(64)
    for _ in range(2):
        for dtype in (torch.float32, torch.float16, torch.float32):
            got = leaky_relu_module.leaky_relu(x.to(dtype), negative_slope=0.25)
            assert got.dtype == dtype
            torch.testing.assert_close(got, F.leaky_relu(x.to(dtype), 0.25))


def test_an_optional_inputs_presence_is_part_of_the_key() -> None:
    fast = layer_norm_module._FAST
    assert fast is not None
    x, gamma, beta = torch.randn(6, 16), torch.randn(16), torch.randn(16)
    for _ in range(2):
        for g, b in ((gamma, beta), (None, None), (gamma, None), (None, beta)):
            got = fast(x, g, b, 1e-5)
            want = torch.ops.opgen_ops_cpu.layer_norm(x, g, b, epsilon=1e-5)
            for have, expect in zip(got, want, strict=True):
                torch.testing.assert_close(have, expect, rtol=0, atol=0)


def test_a_failing_call_fails_every_time() -> None:
    fast = element_add_module._FAST
    assert fast is not None
    x8, y8, y9 = torch.randn(8), torch.randn(8), torch.randn(9)
    fast(x8, y8)
    for _ in range(3):
        with pytest.raises(ValueError, match=r"element_add\(\)"):
            fast(x8, y9)
        torch.testing.assert_close(fast(x8, y8), x8 + y8, rtol=0, atol=0)


def test_threads_keep_their_own_plans() -> None:
    fast = element_add_module._FAST
    assert fast is not None
    failures: list[str] = []

    def work(n: int) -> None:
        xs = [(torch.randn(n + k), torch.randn(n + k)) for k in range(PLANS + 2)]
        for _ in range(50):
            for x, y in xs:
                if not torch.equal(fast(x, y), x + y):
                    failures.append(f"{x.shape}")
                    return

    threads = [threading.Thread(target=work, args=(n,)) for n in (5, 7, 1000)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
