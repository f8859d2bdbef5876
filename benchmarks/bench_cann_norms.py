"""CANN's own norm operators (hicann/ops-nn: `rms_norm`, `layer_norm_v4`, `add_rms_norm`) on the
simulator, through the runtime registry, against torch's CPU ops on 4096x1024 float32 and
float16; each output checked against a numpy reference first. Writes the "CANN operators
(ops-nn norms)" section of benchmarks/RESULTS.md.

The ops are imported unchanged from a checkout of ops-nn and of its helper library opbase
(docs/cann.md, "CANN's open operator library for neural networks"), into a project of their own:

    mkdir proj && cd proj && printf '[tool.opgen]\\nspec_dir = "specs"\\n' > pyproject.toml
    for op in norm/rms_norm norm/layer_norm_v4 norm/add_rms_norm; do
      opgen import-msopgen $NN/$op -I $OB/include -I $OB/include/op_common \\
        -I $OB/include/op_common/op_host -I $OB/pkg_inc -I $OB/pkg_inc/op_common \\
        -I $NN/common/inc --host-source $OB/src/op_common/log/log.cpp \\
        --host-source $OB/src/op_common/op_host/tiling_util.cpp \\
        --host-source $OB/src/op_common/op_host/util/shape_util.cpp
    done
    opgen generate
    python benchmarks/bench_cann_norms.py --project proj

Timing as benchmarks/bench_ops.py does: the two sides in alternation, the best of each and the
median of the back-to-back pairs' ratios. torch's own `rms_norm` is not one fused kernel on the
CPU (several passes, fresh temporaries), so its side of rms_norm and add_rms_norm moves with the
machine's load more than layer_norm's does.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ops import best_pair
from results import machine, steady_malloc, table, write_section

import opgen_runtime as rt
from opgen.project import load_config

ROWS, COLS, EPS = 4096, 1024, 1e-5
OPS = ("rms_norm", "layer_norm_v4", "add_rms_norm")


def gm(a: np.ndarray) -> np.ndarray:
    """`a` in a GM-shaped buffer (32-byte aligned, the device allocation's padding behind it),
    so that a launch need not copy it."""
    b = rt.gm_empty(a.shape, a.dtype)
    b[...] = a
    return b


def inputs(op: str, dtype: np.dtype[Any]) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    x = gm(rng.standard_normal((ROWS, COLS), dtype=np.float32).astype(dtype))
    gamma = gm(rng.uniform(0.5, 1.5, COLS).astype(np.float32).astype(dtype))
    if op == "rms_norm":
        return x, gamma
    if op == "layer_norm_v4":
        beta = gm((0.1 * rng.standard_normal(COLS, dtype=np.float32)).astype(dtype))
        return x, gm(np.array([COLS], np.int32)), gamma, beta
    return x, gm(rng.standard_normal((ROWS, COLS), dtype=np.float32).astype(dtype)), gamma


def register(project: Path, ops: Sequence[str]) -> None:
    """Registers `ops` from the generated Python package of the opgen project `project`."""
    config = load_config(project.resolve())
    sys.path.insert(0, str(config.output_dir / "python"))
    for op in ops:
        importlib.import_module(f"{config.package}.registration.{op}")


def reference(op: str, args: tuple[np.ndarray, ...]) -> np.ndarray:
    """y in float32 (add_rms_norm's sum in the dtype, as the kernel and torch add)."""
    if op == "add_rms_norm":
        x = (args[0] + args[1]).astype(np.float32)
        g = args[2].astype(np.float32)
    else:
        x, g = args[0].astype(np.float32), args[-1 if op == "rms_norm" else 2].astype(np.float32)
    y: np.ndarray
    if op == "layer_norm_v4":
        mean = x.mean(-1, keepdims=True)
        rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + EPS)
        y = (x - mean) * rstd * g + args[3].astype(np.float32)
    else:
        y = x / np.sqrt(np.mean(x * x, -1, keepdims=True) + EPS) * g
    return y


def native(op: str, args: tuple[np.ndarray, ...]) -> Callable[[], object]:
    t = [torch.from_numpy(a) for a in args]
    if op == "rms_norm":
        return lambda: torch.nn.functional.rms_norm(t[0], (COLS,), t[1], EPS)
    if op == "layer_norm_v4":
        return lambda: torch.native_layer_norm(t[0], (COLS,), t[2], t[3], EPS)
    return lambda: torch.nn.functional.rms_norm(t[0] + t[1], (COLS,), t[2], EPS)


def main() -> int:
    steady_malloc()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, required=True,
                        help="the opgen project the three ops were imported into and generated")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    register(args.project, OPS)
    rows, ok = [], True
    for dtype in (np.dtype(np.float32), np.dtype(np.float16)):
        tolerance = 2e-5 if dtype == np.float32 else 4e-3  # relative to max(1, |y|)
        for op in OPS:
            data = inputs(op, dtype)

            def ours(op: str = op, data: tuple[np.ndarray, ...] = data) -> Any:
                return rt.call(op, *data, epsilon=EPS)

            y = np.asarray(ours()[0], np.float32)
            want = reference(op, data)
            err = float(np.max(np.abs(y - want) / np.maximum(1.0, np.abs(want))))
            if err > tolerance:
                ok = False
            t_ours, t_native, ratio = best_pair(ours, native(op, data))
            rows.append((op, dtype.name, f"{err:.1e}", f"{t_ours * 1e3:.2f}",
                         f"{t_native * 1e3:.2f}", f"{ratio:.2f}x"))
            print(*rows[-1], flush=True)
    body = (f"`benchmarks/bench_cann_norms.py` on {machine()}, torch {torch.__version__}, "
            f"{torch.get_num_threads()} threads for both: ops-nn's norm operators imported "
            "unchanged (`opgen import-msopgen`, their own op_host tiling), called through the "
            "runtime registry on 4096x1024 (gamma, beta of 1024; eps 1e-5) against torch's CPU "
            "ops (`rms_norm`, `native_layer_norm`, an add then `rms_norm`), timed in alternation "
            "15 times: the best milliseconds of each and the median of the pairs' ratios "
            "(glibc's malloc keeping large blocks in its heap for both sides: "
            "results.steady_malloc). The "
            "error is y's largest difference from a float32 numpy reference, relative to "
            "max(1, |y|).\n\n"
            + table(["op", "dtype", "error", "opgen ms", "torch ms", "ratio"], rows))
    print(body)
    if not args.no_write:
        write_section("CANN operators (ops-nn norms)", body)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
