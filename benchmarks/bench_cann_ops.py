"""CANN's own activation, loss and foreach operators (hicann/ops-nn) that run on the 910B, on the
simulator through the runtime registry, against the torch CPU expression computing the same thing
on 4096x1024 float32 and float16; each output checked against a float64 numpy reference first.
Writes the "CANN operators (ops-nn activations and losses)" section of benchmarks/RESULTS.md.

The ops are imported unchanged from a checkout of ops-nn and of its helper library opbase, into
a project of their own, as for benchmarks/bench_cann_norms.py (its docstring has the command
line), with these op folders:

    activation/swi_glu activation/squared_relu activation/heaviside activation/fatrelu_mul
    loss/mse_loss_v2 loss/logit foreach/foreach_exp

then `opgen generate` and `python benchmarks/bench_cann_ops.py --project proj`.

What they exercise: mse_loss_v2's blocks meet at a `SyncAll()` (48 blocks on the host's threads,
crosscore.h), foreach_exp and logit the count forms of `Exp` and `Ln` on float and half,
the others element-wise instructions and copies. Timing as benchmarks/bench_ops.py does: the two
sides in alternation, the best of each and the median of the back-to-back pairs' ratios.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cann_norms import gm, register
from bench_ops import best_pair
from results import machine, steady_malloc, table, write_section

import opgen_runtime as rt

ROWS, COLS = 4096, 1024
Arrays = list[np.ndarray]


@dataclass(frozen=True)
class Case:
    """One op: its inputs (numpy, in the dtype), attrs, float64 reference and torch side."""

    make: Callable[[np.random.Generator, np.dtype[Any]], Arrays]
    reference: Callable[..., np.ndarray]
    native: Callable[..., Callable[[], torch.Tensor]]
    torch_text: str
    attrs: tuple[tuple[str, Any], ...] = ()
    listed: bool = False  # the op takes its input as a tensor list (foreach_*)


def _normal(rng: np.random.Generator, dtype: np.dtype[Any], shape: tuple[int, ...],
            scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _halves(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.split(x, 2, -1)
    return a, b


CASES: dict[str, Case] = {
    "swi_glu": Case(
        lambda r, dt: [_normal(r, dt, (ROWS, 2 * COLS), 2.0)],
        lambda x: (lambda a, b: a / (1 + np.exp(-a)) * b)(*_halves(x)),
        lambda x: (lambda a, b: lambda: F.silu(a) * b)(*x.chunk(2, -1)),
        "F.silu(a) * b (x: 4096x2048 in halves)", (("dim", -1),)),
    "squared_relu": Case(
        lambda r, dt: [_normal(r, dt, (ROWS, COLS))],
        lambda x: np.maximum(x, 0) ** 2,
        lambda x: lambda: torch.square(F.relu(x)), "torch.square(F.relu(x))"),
    "heaviside": Case(
        lambda r, dt: [np.round(_normal(r, dt, (ROWS, COLS), 3.0)).astype(dt),
                       _normal(r, dt, (ROWS, COLS))],
        lambda x, v: np.where(x > 0, 1.0, np.where(x < 0, 0.0, v)),
        lambda x, v: lambda: torch.heaviside(x, v), "torch.heaviside(x, v)"),
    "fatrelu_mul": Case(  # (the op takes last dims up to 1024: x is 8192x1024 in halves)
        lambda r, dt: [_normal(r, dt, (2 * ROWS, COLS)), np.array([0.1], dt)],
        lambda x, t: (lambda a, b: np.where(a > t[0], a, 0) * b)(*_halves(x)),
        lambda x, t: (lambda a, b: lambda: F.threshold(a, float(t[0]), 0.0) * b)(*x.chunk(2, -1)),
        "F.threshold(a, 0.1, 0) * b (x: 8192x1024 in halves)"),
    "mse_loss_v2": Case(
        lambda r, dt: [_normal(r, dt, (ROWS, COLS)), _normal(r, dt, (ROWS, COLS))],
        lambda a, b: np.array([np.mean((a - b) ** 2)]),
        lambda a, b: lambda: F.mse_loss(a, b), "F.mse_loss(a, b)", (("reduction", "mean"),)),
    "logit": Case(
        lambda r, dt: [r.uniform(0.02, 0.98, (ROWS, COLS)).astype(dt)],
        lambda x: np.log(x / (1 - x)),
        lambda x: lambda: torch.logit(x), "torch.logit(x)", (("eps", -1.0),)),
    "foreach_exp": Case(
        lambda r, dt: [_normal(r, dt, (ROWS, COLS))],
        np.exp,
        lambda x: lambda: torch._foreach_exp([x])[0], "torch._foreach_exp([x])", listed=True),
}


def first(out: Any) -> np.ndarray:
    while isinstance(out, tuple | list):
        out = out[0]
    return np.asarray(out)


def main() -> int:
    steady_malloc()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, required=True,
                        help="the opgen project the ops were imported into and generated")
    parser.add_argument("--ops", default=",".join(CASES), help="a comma-separated subset")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    names = [n for n in args.ops.split(",") if n]
    register(args.project, names)
    rows, ok = [], True
    for dtype in (np.dtype(np.float32), np.dtype(np.float16)):
        tolerance = 1e-5 if dtype == np.float32 else 4e-3  # relative to max(1, |y|)
        for name in names:
            case = CASES[name]
            data = case.make(np.random.default_rng(0), dtype)
            gms: list[Any] = [gm(a) for a in data]
            call_args: list[Any] = [gms] if case.listed else gms
            attrs = dict(case.attrs)

            def ours(call_args: list[Any] = call_args, name: str = name,
                     attrs: dict[str, Any] = attrs) -> Any:
                return rt.call(name, *call_args, **attrs)

            want = case.reference(*[a.astype(np.float64) for a in data])
            got = first(ours()).astype(np.float64).reshape(want.shape)
            err = float(np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want))))
            if not err <= tolerance:
                ok = False
            native = case.native(*[torch.from_numpy(a) for a in gms])
            t_ours, t_native, ratio = best_pair(ours, native)
            rows.append((name, dtype.name, f"{err:.1e}", f"{t_ours * 1e3:.2f}",
                         f"{t_native * 1e3:.2f}", f"{ratio:.2f}x", case.torch_text))
            print(*rows[-1], flush=True)
    body = (f"`benchmarks/bench_cann_ops.py` on {machine()}, torch {torch.__version__}, "
            f"{torch.get_num_threads()} threads for both: ops-nn's activation, loss and foreach "
            "operators that run on the 910B, imported unchanged (`opgen import-msopgen`, their "
            "own op_host tiling), called through the runtime registry on 4096x1024 against the "
            "torch expression named, timed in alternation 15 times: the best milliseconds of "
            "each and the median of the pairs' ratios (glibc's malloc keeping large blocks in "
            "its heap for both sides: results.steady_malloc). The error is the output's largest "
            "difference from a float64 numpy reference, relative to max(1, |y|).\n\n"
            + table(["op", "dtype", "error", "opgen ms", "torch ms", "ratio", "torch side"],
                    rows))
    print(body)
    if not args.no_write:
        write_section("CANN operators (ops-nn activations and losses)", body)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
