"""Every op of a project's spec index through ``torch.ops.<namespace>.<op>`` against its native
torch equivalent on 4096x1024 float32 and float16, and per-instruction-family throughput of the
simulator as a fraction of a plain C++ loop over the same bytes compiled in the same run; writes
the "Ops vs native" section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/bench_ops.py                  # this repository's specs/
    .venv/bin/python benchmarks/bench_ops.py --project DIR    # another project (opgen generate
                                                              # run there; results printed only)

The example ops are timed against hand-picked torch functions; any other op of the index
against its spec's `reference` printed as eager torch (benchmarks/op_index.py), its inputs
built from the spec's shapes, dtypes and attr defaults.
Goals: each op <= 1.5x native; each instruction family >= 0.7 of the plain loop (the count forms
and the mask/repeat forms alike).
"""

from __future__ import annotations

import argparse
import ctypes
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from op_index import Case, Index, load_index, op_cases  # noqa: E402
from results import machine, steady_malloc, table, write_section  # noqa: E402

import opgen_runtime as rt  # noqa: E402
from opgen.diagnostics import OpgenError  # noqa: E402

SHAPE = (4096, 1024)
OP_GOAL, FAMILY_GOAL = 1.5, 0.7
TILE = 8192  # elements per operand of a family kernel: UB-resident, as an instruction's operands
REPEATS = 4000  # instructions per family launch
# timed calls of each side, alternating: on a shared machine the load moves a call's time by up to
# 10x, so a ratio of two bests lets one quiet sample of one side decide it (element_add's 9.3x);
# the ratio reported is the median of the back-to-back pairs' ratios
BEST_OF = 15

# name -> (instruction(s) over UB tensors a, b -> d, w (work), m (mask)); the plain loop's body
FAMILIES: dict[str, tuple[str, str]] = {
    "binary (Add)": ("Add(d, a, b, n);", "d[i] = a[i] + b[i];"),
    "scalar (Muls)": ("Muls(d, a, (float)1.5f, n);", "d[i] = a[i] * 1.5f;"),
    "scalar (LeakyRelu)": ("LeakyRelu(d, a, (float)0.1f, n);",
                           "d[i] = a[i] >= 0 ? a[i] : a[i] * 0.1f;"),
    "unary (Abs)": ("Abs(d, a, n);", "d[i] = std::fabs(a[i]);"),
    "transcendental (Exp)": ("Exp(d, a, n);", "d[i] = std::exp(a[i]);"),
    "compare (CompareScalar)": ("CompareScalar(m, a, (float)0.5f, CMPMODE::GT, n);",
                                "mb[i / 8] = (uint8_t)(i % 8 ? mb[i / 8] | ((a[i] > 0.5f)"
                                " << (i % 8)) : (a[i] > 0.5f));"),
    "cast (float->half)": ("Cast(h, a, RoundMode::CAST_NONE, n);", "hb[i] = (_Float16)a[i];"),
    "reduction (ReduceSum)": ("ReduceSum(d, a, w, n);", "s += a[i];"),
    "reduction (ReduceMax)": ("ReduceMax(d, a, w, n, false);", "s = a[i] > s ? a[i] : s;"),
    # the mask/repeat (level-0) forms CANN's operators are written in: every lane of a repeat
    # active, default strides
    "binary, mask/repeat (Add)": (
        "Add(d, a, b, (uint64_t)64, (uint8_t)(n / 64), BinaryRepeatParams(1, 1, 1, 8, 8, 8));",
        "d[i] = a[i] + b[i];"),
    "scalar, mask/repeat (Muls)": (
        "Muls(d, a, 1.5f, (uint64_t)64, (uint8_t)(n / 64), UnaryRepeatParams(1, 1, 8, 8));",
        "d[i] = a[i] * 1.5f;"),
    "transcendental, mask/repeat (Exp)": (
        "Exp(d, a, (uint64_t)64, (uint8_t)(n / 64), UnaryRepeatParams(1, 1, 8, 8));",
        "d[i] = std::exp(a[i]);"),
    "cast, mask/repeat (float->half)": (
        "Cast(h, a, RoundMode::CAST_NONE, (uint64_t)64, (uint8_t)(n / 64),"
        " UnaryRepeatParams(1, 1, 4, 8));", "hb[i] = (_Float16)a[i];"),
    "duplicate, mask/repeat": (
        "Duplicate(d, 1.0f, (uint64_t)64, (uint8_t)(n / 64), (uint16_t)1, (uint8_t)8);",
        "d[i] = 1.0f;"),
    "data move UB, mask/repeat (Copy)": (
        "Copy(d, a, (uint64_t)64, (uint8_t)(n / 64), CopyRepeatParams(1, 1, 8, 8));",
        "d[i] = a[i];"),
    "compare, mask/repeat (Compare)": (
        "Compare(m, a, b, CMPMODE::LT, (uint64_t)64, (uint8_t)(n / 64),"
        " BinaryRepeatParams(1, 1, 1, 8, 8, 8));",
        "mb[i / 8] = (uint8_t)(i % 8 ? mb[i / 8] | ((a[i] < b[i]) << (i % 8)) : (a[i] < b[i]));"),
    "select (Select)": ("Select(d, m, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);",
                        "d[i] = (mb[i / 8] >> (i % 8)) & 1 ? a[i] : b[i];"),
    "repeat reduction (WholeReduceSum)": ("WholeReduceSum(d, a, 64, n / 64, 1, 1, 8);",
                                          "s += a[i];"),
    "repeat reduction (WholeReduceMax)": ("WholeReduceMax(d, a, 64, n / 64, 1, 1, 8);",
                                          "s = a[i] > s ? a[i] : s;"),
    "block reduction (BlockReduceSum)": ("BlockReduceSum(d, a, n / 64, 64, 1, 1, 8);",
                                         "s += a[i];"),
    # eight 4 KiB bursts (one row of a 1024-float tile each), as the row kernels copy
    "data move (DataCopyPad GM->UB)": (
        "DataCopyPad(d, xg, DataCopyExtParams{8, 4096, 0, 0, 0},"
        " DataCopyPadExtParams<float>{false, 0, 0, 0});", "d[i] = a[i];"),
    "data move (DataCopyPad UB->GM)": (
        "DataCopyPad(yg, a, DataCopyExtParams{8, 4096, 0, 0, 0});", "d[i] = a[i];"),
}

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void family(GM_ADDR x, GM_ADDR y, GM_ADDR ws, GM_ADDR t) {
    const int32_t n = %(tile)d;
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 5 * n * sizeof(float));
    LocalTensor<float> a = buf.Get<float>(), b = a[n], d = a[2 * n], w = a[3 * n];
    LocalTensor<uint8_t> m = a[4 * n].ReinterpretCast<uint8_t>();
    LocalTensor<half> h = a[4 * n].ReinterpretCast<half>();
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, n);
    yg.SetGlobalBuffer((__gm__ float*)y, n);
    DataCopy(a, xg, n);
    DataCopy(b, xg, n);
    a.GetValue(0);  // applies the copies: the timed instructions read UB, not GM
    b.GetValue(0);
    for (int r = 0; r < %(repeats)d; ++r) {
        FAMILY_BODY
    }
    DataCopy(yg, d, n);
}
"""

LOOP = r"""
#include <cmath>
#include <cstdint>
extern "C" double family(const float* a, const float* b, float* d, uint8_t* mb, _Float16* hb,
                         int n, int repeats) {
    float s = 0;
    for (int r = 0; r < repeats; ++r) {
        for (int i = 0; i < n; ++i) { FAMILY_BODY }
        __asm__ volatile("" ::: "memory");
    }
    return s;
}
"""


def best_pair(ours: Callable[[], object], native: Callable[[], object],
              repeat: int = BEST_OF) -> tuple[float, float, float]:
    """Best seconds of each and the median of the per-pair ratios ours / native, the two timed
    in alternation: a pair runs back to back under about the same load, so its ratio holds
    where the load moves either side's best by several times."""
    a, b = [], []
    for _ in range(repeat):
        for fn, out in ((ours, a), (native, b)):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    ratios = sorted(x / y for x, y in zip(a, b, strict=True))
    return min(a), min(b), ratios[len(ratios) // 2]


Pair = tuple[Callable[[], object], Callable[[], object]]


def example_cases(dtype: torch.dtype) -> dict[str, Pair]:
    """The example ops (this repository's specs/) against hand-picked torch functions."""
    ops = torch.ops.opgen_ops
    g = torch.Generator().manual_seed(0)
    x = torch.randn(SHAPE, generator=g).to(dtype)
    y = torch.randn(SHAPE, generator=g).to(dtype)
    row = torch.randn(SHAPE[1], generator=g).to(dtype)
    gamma, beta = torch.ones(SHAPE[1], dtype=dtype), torch.zeros(SHAPE[1], dtype=dtype)
    xf, yf = x.reshape(-1), y.reshape(-1)
    other = torch.float16 if dtype == torch.float32 else torch.float32
    return {
        "element_add": (lambda: ops.element_add(xf, yf), lambda: torch.add(xf, yf)),
        "broadcast_add": (lambda: ops.broadcast_add(x, row), lambda: torch.add(x, row)),
        "leaky_relu": (lambda: ops.leaky_relu(x, negative_slope=0.1),
                       lambda: torch.nn.functional.leaky_relu(x, 0.1)),
        "softmax": (lambda: ops.softmax(x, axis=-1), lambda: torch.softmax(x, -1)),
        "layer_norm": (lambda: ops.layer_norm(x, gamma, beta, epsilon=1e-5),
                       lambda: torch.native_layer_norm(x, [SHAPE[1]], gamma, beta, 1e-5)),
        "cast": (lambda: ops.cast(x, dst_type=other), lambda: x.to(other)),
    }


def cases(index: Index, own: bool, dtype: torch.dtype) -> list[Case]:
    """Every op of the index: the example ops' hand-picked cases when `index` is this
    repository's, the printed reference for the others."""
    hand = example_cases(dtype) if own else {}
    return ([Case(op, ours, native) for op, (ours, native) in hand.items()]
            + op_cases(index, dtype, SHAPE, skip=tuple(hand)))


def bench_ops(index: Index, own: bool) -> tuple[list[tuple[str, ...]], bool]:
    sys.path.insert(0, str(index.python_dir))
    package = index.config.package
    for spec in index.specs:
        __import__(f"{package}.registration.{spec.op_name}")
        __import__(f"{package}.torch.{spec.op_name}")
    rows, ok = [], True
    for dtype in (torch.float32, torch.float16):
        for case in cases(index, own, dtype):
            op, ours, native = case.op, case.ours, case.native
            name = str(dtype).removeprefix("torch.")
            if ours is None or native is None:
                rows.append((op, name, "-", "-", "-", case.skipped))
                continue
            try:
                ours()
            except TypeError:  # a dtype the op's spec does not list
                rows.append((op, name, "-", "-", "-", "not in spec"))
                continue
            native()
            t_ours, t_native, ratio = best_pair(ours, native)
            ok &= ratio <= OP_GOAL
            rows.append((op, name, f"{t_ours * 1e3:.2f}",
                         f"{t_native * 1e3:.2f}", f"{ratio:.2f}x",
                         "yes" if ratio <= OP_GOAL else "no"))
    return rows, ok


def bench_families(tmp: Path) -> tuple[list[tuple[str, ...]], bool]:
    rows, ok = [], True
    x = rt.gm_empty(TILE, np.float32)
    x[...] = np.random.default_rng(0).standard_normal(TILE).astype(np.float32)
    y = rt.gm_empty(TILE, np.float32)
    # the loop's operands at the kernel's UB offsets (a, b, d, w, then the mask/half area, one
    # 32 KiB tile apart), so both sides see the same cache-set and 4K-aliasing pattern
    ub = rt.gm_empty(5 * TILE, np.float32)
    ub[...] = 0
    a, b, d = ub[:TILE], ub[TILE:2 * TILE], ub[2 * TILE:3 * TILE]
    a[...] = x
    b[...] = x
    mb = ub[4 * TILE:].view(np.uint8)
    hb = ub[4 * TILE:].view(np.float16)
    ptr = ctypes.c_void_p
    for i, (name, (instr, body)) in enumerate(FAMILIES.items()):
        src = tmp / f"family_{i}.cpp"
        src.write_text((KERNEL % {"tile": TILE, "repeats": REPEATS}).replace("FAMILY_BODY", instr))
        lib = rt.build_kernel(src, entry="family")
        loop_src = tmp / f"loop_{i}.cpp"
        loop_src.write_text(LOOP.replace("FAMILY_BODY", body))
        so = tmp / f"loop_{i}.so"
        # the simulator's own optimisation flags (opgen_runtime.build.BASE_FLAGS)
        subprocess.run(["g++", "-O3", "-std=c++17", "-fPIC", "-shared", "-fno-math-errno",
                        "-o", str(so), str(loop_src)], check=True)
        fn = ctypes.CDLL(str(so)).family
        fn.restype = ctypes.c_double
        fn.argtypes = [ptr, ptr, ptr, ptr, ptr, ctypes.c_int, ctypes.c_int]
        t_sim, t_loop, sim_per_loop = best_pair(
            lambda lib=lib: rt.launch(lib, "family", [x, y], block_dim=1, tiling=b"\0" * 8,
                                      max_threads=1),
            lambda fn=fn: fn(*(arr.ctypes.data for arr in (a, b, d, mb, hb)), TILE, REPEATS))
        frac = 1 / sim_per_loop
        ok &= frac >= FAMILY_GOAL
        gbs = TILE * 4 * REPEATS / t_sim / 1e9
        rows.append((name, f"{gbs:.1f}", f"{t_sim * 1e3:.2f}", f"{t_loop * 1e3:.2f}",
                     f"{frac:.2f}", "yes" if frac >= FAMILY_GOAL else "no"))
    return rows, ok


def main() -> int:
    steady_malloc()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, default=ROOT,
                        help="the project whose spec index to benchmark (default: this repository)")
    args = parser.parse_args()
    try:
        index = load_index(args.project)
    except OpgenError as exc:
        print(f"bench_ops: error: {exc}", file=sys.stderr)
        return 2
    own = index.config.root == ROOT
    torch.set_num_threads(2)
    op_rows, ops_ok = bench_ops(index, own)
    with tempfile.TemporaryDirectory() as tmp:
        fam_rows, fam_ok = bench_families(Path(tmp))
    body = (
        f"`benchmarks/bench_ops.py` on {machine()}, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads for both. Each op of the spec index "
        f"({index.config.display(index.config.spec_dir)}/) through "
        f"`torch.ops.{index.config.namespace}.<op>` against its native torch equivalent on "
        f"{SHAPE[0]}x{SHAPE[1]} ("
        + ("the example ops against hand-picked torch functions: element_add flattened, "
           "broadcast_add adds a row, cast to the other float type; any other op " if own else
           "each op ")
        + "against its spec's reference printed as eager torch, inputs from its spec's shapes), "
        "timed in "
        f"alternation {BEST_OF} times: the best milliseconds per call of each, and the ratio as "
        f"the median of the {BEST_OF} back-to-back pairs' ratios (robust to the shared machine's "
        f"load), glibc's malloc keeping large blocks in its heap for both sides "
        "(results.steady_malloc: otherwise the page faults of fresh outputs set the times); "
        f"goal <= {OP_GOAL}x.\n\n"
        + table(("op", "dtype", "opgen ms", "native ms", "ratio", "met"), op_rows)
        + "\n\nInstruction families: one block repeating the instruction "
        f"{REPEATS} times over {TILE} UB-resident float32 elements against a plain C++ loop over "
        "the same bytes (same flags as the simulator's build, no -march), compiled and loaded "
        "(ctypes) in the same run; throughput fraction = loop time / simulator time, the median "
        "of the back-to-back pairs' fractions, goal >= "
        f"{FAMILY_GOAL}.\n\n"
        + table(("family", "simulator GB/s (src)", "simulator ms", "loop ms", "fraction", "met"),
                fam_rows))
    print(body)
    if own:
        write_section("Ops vs native", body)
    return 0 if ops_ok and fam_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
