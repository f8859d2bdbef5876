"""Checks that the generated per-op PyTorch tests run: opcheck, reference, gradcheck,
torch.compile and torch.export (saved, then loaded and run in a fresh process).

Gradcheck approach: through the real kernel, in the dtype the spec supports (float32; the
example specs have no float64). Finite differences in float32 need a larger step than
gradcheck's float64 default and matching tolerances, chosen so that both the truncation error
(~eps^2) and the rounding error (~float32 epsilon / eps) stay well inside them. Inputs lie on a
grid (multiples of 2^-8, |x| >= 0.125) that float16 represents exactly and that keeps them
away from kinks such as leaky_relu's at 0; outputs in float16 use a step of 2^-6 so that
x +- eps stays on that grid.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

FLOAT_TOLERANCES: dict[str, float] = {"eps": 1e-3, "atol": 5e-3, "rtol": 2e-2}
HALF_TOLERANCES: dict[str, float] = {"eps": 2.0 ** -6, "atol": 1e-2, "rtol": 1e-2}

# Output tolerances against the reference and between eager and compiled/exported runs.
_CLOSE: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (2e-3, 2e-3), torch.bfloat16: (1e-2, 1e-2), torch.float32: (1e-5, 1e-5),
}


def sample(shape: Sequence[int], dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    """Deterministic sample input: floats on a grid of 2^-8 with 0.125 <= |x| <= 1, ints in
    [-8, 8)."""
    gen = torch.Generator().manual_seed(1234 + seed)
    if dtype.is_floating_point:
        magnitude = torch.randint(32, 257, tuple(shape), generator=gen).float() / 256
        sign = torch.randint(0, 2, tuple(shape), generator=gen).float() * 2 - 1
        return (magnitude * sign).to(dtype)
    return torch.randint(-8, 8, tuple(shape), generator=gen).to(dtype)


def _tuple(value: Any) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else (value,)


def assert_close(actual: Any, expected: Any, what: str) -> None:
    for i, (a, e) in enumerate(zip(_tuple(actual), _tuple(expected), strict=True)):
        atol, rtol = _CLOSE.get(a.dtype, (0.0, 0.0))
        try:
            torch.testing.assert_close(a, e.to(a.dtype), atol=atol, rtol=rtol)
        except AssertionError as exc:
            raise AssertionError(f"{what}, output {i}: {exc}") from None


def _with_grad(args: Sequence[Any], differentiable: Sequence[bool]) -> tuple[Any, ...]:
    return tuple(a.detach().clone().requires_grad_(True) if d and a is not None else a
                 for a, d in zip(args, differentiable, strict=True))


def check_opcheck(op: Any, args: Sequence[Any], attrs: Mapping[str, Any],
                  differentiable: Sequence[bool]) -> None:
    """torch.library.opcheck with all four default checks (schema, autograd registration,
    fake tensor, AOT dispatch with dynamic shapes), with gradients where the spec has them."""
    torch.library.opcheck(op, _with_grad(args, differentiable), dict(attrs))


def check_reference(op: Any, reference: Callable[..., Any], args: Sequence[Any],
                    attrs: Mapping[str, Any]) -> None:
    out = op(*args, **attrs)
    assert_close(out, reference(*args, **attrs), f"{op} against the spec's reference")


def check_gradcheck(op: Any, args: Sequence[Any], attrs: Mapping[str, Any],
                    differentiable: Sequence[bool], tolerances: Mapping[str, float]) -> None:
    diff_index = [i for i, d in enumerate(differentiable) if d and args[i] is not None]
    assert diff_index, f"{op}: no differentiable input to gradcheck"

    def fn(*diff: torch.Tensor) -> Any:
        full = list(args)
        for i, t in zip(diff_index, diff, strict=True):
            full[i] = t
        return op(*full, **attrs)

    diff_args = tuple(args[i].detach().clone().requires_grad_(True) for i in diff_index)
    with warnings.catch_warnings():
        # Deliberately float32 (the kernel's dtype): gradcheck warns about non-double inputs;
        # the step and tolerances above are chosen for float32.
        warnings.filterwarnings("ignore", message=r"Input #\d+ requires gradient and is not a "
                                r"double precision", category=UserWarning)
        assert torch.autograd.gradcheck(fn, diff_args, eps=tolerances["eps"],
                                        atol=tolerances["atol"], rtol=tolerances["rtol"])


def check_function(op: Any, function: Any, args: Sequence[Any], attrs: Mapping[str, Any],
                   differentiable: Sequence[bool]) -> None:
    """The seed-style autograd.Function gives the op's outputs and gradients."""
    a1, a2 = _with_grad(args, differentiable), _with_grad(args, differentiable)
    out_op = _tuple(op(*a1, **attrs))
    out_fn = _tuple(function.apply(*a2, *attrs.values()))
    assert_close(out_fn, out_op, f"{function.__name__}.apply against {op}")
    weights = [torch.linspace(-1, 1, o.numel()).reshape(o.shape).to(o.dtype) for o in out_op]

    def loss(outs: Sequence[torch.Tensor]) -> torch.Tensor:
        total = torch.zeros(())
        for o, w in zip(outs, weights, strict=True):
            if o.requires_grad:
                total = total + (o * w).float().sum()
        return total

    got = [t for t in a2 if isinstance(t, torch.Tensor) and t.requires_grad]
    want = [t for t in a1 if isinstance(t, torch.Tensor) and t.requires_grad]
    loss(out_op).backward()  # type: ignore[no-untyped-call]
    loss(out_fn).backward()  # type: ignore[no-untyped-call]
    for g, w in zip(got, want, strict=True):
        assert g.grad is not None and w.grad is not None
        assert_close(g.grad, w.grad, f"{function.__name__} gradient")


def check_compile(op: Any, args: Sequence[Any], attrs: Mapping[str, Any]) -> None:
    """torch.compile(fullgraph=True) — a graph break is an error — matches eager."""
    import torch._dynamo

    def fn(*xs: Any) -> Any:
        out = op(*xs, **attrs)
        return tuple(o * 2 for o in out) if isinstance(out, tuple) else out * 2

    torch._dynamo.reset()
    compiled = torch.compile(fn, fullgraph=True, dynamic=False)
    with warnings.catch_warnings():
        # Importing inductor (on the first compile) reaches torch.utils.mkldnn, which uses the
        # deprecated torch.jit.script_method: torch's own warning, not this op's.
        warnings.filterwarnings("ignore", message=r"`torch\.jit\.script_method` is deprecated",
                                category=DeprecationWarning)
        out = compiled(*args)
    assert_close(out, fn(*args), f"torch.compile of {op}")


def _import_root(module_name: str) -> str:
    """The sys.path entry from which `module_name` was imported."""
    import importlib

    path = Path(importlib.import_module(module_name).__file__ or "")
    for _ in module_name.split("."):
        path = path.parent
    return str(path)


def check_export(module: torch.nn.Module, module_name: str, args: Sequence[Any],
                 tmp_path: Path) -> None:
    """torch.export the module, save it, and load and run it in a fresh process, which finds
    the kernel in the op package directory (it never registers it itself)."""
    program = torch.export.export(module, tuple(args))
    model, data = tmp_path / "model.pt2", tmp_path / "data.pt"
    torch.export.save(program, str(model))
    expected = module(*args)
    torch.save({"args": tuple(args), "expected": expected}, str(data))
    script = textwrap.dedent(f"""
        import torch
        import {module_name}  # defines the op; the kernel comes from the op package dir
        from opgen_runtime.torch_testing import assert_close
        data = torch.load({str(data)!r})
        program = torch.export.load({str(model)!r})
        assert_close(program.module()(*data["args"]), data["expected"], "loaded program")
        print("ok")
    """)
    env = dict(os.environ)
    root = _import_root(module_name)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0 and "ok" in done.stdout, (
        f"loading the exported program in a fresh process failed:\n{done.stderr[-4000:]}")
