"""The generated wrapper's ways to the kernel (docs/pytorch.md, "Registration path"): in
eager mode the bare CPU kernel `opgen_ops_cpu::<op>`, under the op's autograd.Function when an
input needs a gradient; the public op `opgen_ops::<op>` while a dispatch mode must see the op."""

from __future__ import annotations

import torch
import torch_env  # noqa: F401 - generated/python on sys.path, a private OPGEN_OPP_PATH
from opgen_ops.registration import element_add as _registered  # noqa: F401
from opgen_ops.torch import _library
from opgen_ops.torch.element_add import element_add
from opgen_ops.torch.leaky_relu import leaky_relu
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.utils._python_dispatch import TorchDispatchMode


def _ops_run(fn: object, *args: torch.Tensor) -> set[str]:
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        fn(*args)  # type: ignore[operator]
    return {e.key for e in prof.key_averages()}


def test_no_grad_calls_go_to_the_bare_cpu_kernel() -> None:
    assert _library.PATH is not None, "the C++ kernel library did not build"
    x, y = torch.randn(64), torch.randn(64)
    ran = _ops_run(element_add, x, y)
    assert "opgen_ops_cpu::element_add" in ran
    assert "opgen_ops::element_add" not in ran
    torch.testing.assert_close(element_add(x, y), x + y, rtol=0, atol=0)


def test_grad_calls_use_the_autograd_function_over_the_bare_kernel() -> None:
    x = torch.randn(64, requires_grad=True)
    y = torch.randn(64)
    ran = _ops_run(element_add, x, y)
    assert "opgen_ops_cpu::element_add" in ran
    assert "opgen_ops::element_add" not in ran
    out = element_add(x, y)  # (the direct entry's node; the Function's while profiling)
    assert out.grad_fn is not None and out.grad_fn.name() == "ElementAddBackward"
    out.sum().backward()
    assert x.grad is not None
    torch.testing.assert_close(x.grad, torch.ones(64))


def test_grad_with_attrs_matches_the_public_ops_autograd() -> None:
    x = torch.randn(3, 40, requires_grad=True)
    x2 = x.detach().clone().requires_grad_()
    leaky_relu(x, negative_slope=0.3).pow(2).sum().backward()
    torch.ops.opgen_ops.leaky_relu(x2, negative_slope=0.3).pow(2).sum().backward()
    assert x.grad is not None and x2.grad is not None
    torch.testing.assert_close(x.grad, x2.grad, rtol=0, atol=0)


def test_no_grad_mode_takes_the_bare_kernel_even_for_grad_inputs() -> None:
    x = torch.randn(64, requires_grad=True)
    with torch.no_grad():
        ran = _ops_run(element_add, x, torch.randn(64))
        out = element_add(x, torch.zeros(64))
    assert "opgen_ops_cpu::element_add" in ran
    assert not out.requires_grad


def test_bare_kernel_agrees_with_the_public_op_with_attrs() -> None:
    x = torch.randn(3, 40)
    want = torch.ops.opgen_ops.leaky_relu(x, negative_slope=0.2)
    got = torch.ops.opgen_ops_cpu.leaky_relu(x, negative_slope=0.2)
    torch.testing.assert_close(got, want, rtol=0, atol=0)
    torch.testing.assert_close(leaky_relu(x, negative_slope=0.2), want, rtol=0, atol=0)


class _Recorder(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


def test_a_dispatch_mode_sees_the_public_op() -> None:
    x, y = torch.ones(16), torch.ones(16)
    with _Recorder() as rec:
        out = element_add(x, y)
    assert rec.seen == ["opgen_ops.element_add.default"]
    torch.testing.assert_close(out, torch.full((16,), 2.0))
    xg = torch.ones(16, requires_grad=True)
    with _Recorder() as rec:
        out = element_add(xg, y)
    assert rec.seen == ["opgen_ops.element_add.default"]
    out.sum().backward()
    torch.testing.assert_close(xg.grad, torch.ones(16))


def test_fake_tensors_get_the_fake_kernel() -> None:
    with FakeTensorMode() as mode:
        x = mode.from_tensor(torch.empty(5, 7))
        out = leaky_relu(x, negative_slope=0.1)
    assert tuple(out.shape) == (5, 7)
    assert out.dtype == torch.float32


def test_argument_errors_are_the_same_on_every_path() -> None:
    from opgen_runtime.registry import OpCallError

    x64 = torch.randn(4, dtype=torch.float64)
    messages = set()
    for x in (x64, x64.clone().requires_grad_()):
        try:
            element_add(x, torch.randn(4, dtype=torch.float64))
        except OpCallError as exc:
            messages.add(str(exc))
    assert messages == {
        "element_add(): no supported dtype combination for (x=float64, y=float64); "
        "specs/element_add.json supports: x=float32, y=float32 -> z=float32"}
