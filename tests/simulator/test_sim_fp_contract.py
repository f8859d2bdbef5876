"""A multiply and an add of one instruction round separately, as the vector unit does (Axpy is a
Muls and an Add on the hardware): the simulator's build keeps GCC from fusing `a * b + c` into
one FMA (-ffp-contract=off in opgen_runtime.build.BASE_FLAGS), which GCC does by default on
aarch64 and on x86 wherever FMA instructions are enabled. The kernel is built here with FMA
enabled (-mfma on x86-64), the case where a fused build gives other bits."""

from __future__ import annotations

import platform
import struct
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

N = 4096

AXPY_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void axpy_round(GM_ADDR x, GM_ADDR d, GM_ADDR out,
                                                 GM_ADDR workspace, GM_ADDR tiling)
{
    constexpr int32_t n = %(n)d;
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufX, bufD;
    pipe.InitBuffer(bufX, n * sizeof(float));
    pipe.InitBuffer(bufD, n * sizeof(float));
    GlobalTensor<float> xGm, dGm, outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, n);
    dGm.SetGlobalBuffer((__gm__ float*)d, n);
    outGm.SetGlobalBuffer((__gm__ float*)out, n);
    LocalTensor<float> lx = bufX.Get<float>(), ld = bufD.Get<float>();
    DataCopy(lx, xGm, n);
    DataCopy(ld, dGm, n);
    Axpy(ld, lx, %(scale)s, n);
    DataCopy(outGm, ld, n);
}
"""

SCALE = np.float32(1 + 2.0**-12)


def _fma_flags() -> list[str]:
    machine = platform.machine()
    if machine == "aarch64":
        return []  # GCC fuses there by default
    if machine not in ("x86_64", "AMD64"):
        pytest.skip(f"no FMA build to compare on {machine}")
    try:
        flags = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        pytest.skip("cannot read the CPU's flags")
    if " fma" not in flags:
        pytest.skip("this CPU has no FMA instructions")
    return ["-mfma"]


def _float_literal(v: np.float32) -> str:
    return f"{float(v):.9e}f"


def test_axpy_rounds_the_product_before_the_add(tmp_path: Path) -> None:
    src = tmp_path / "axpy_round.cpp"
    src.write_text(AXPY_CPP % {"n": N, "scale": _float_literal(SCALE)})
    lib = rt.build_kernel(src, entry="axpy_round", extra_flags=_fma_flags())
    rng = np.random.default_rng(7)
    x = rt.gm_empty(N, np.float32)
    d = rt.gm_empty(N, np.float32)
    x[:] = rng.uniform(-2, 2, N).astype(np.float32)
    # d = -(x * SCALE rounded), so the separately rounded sum is 0 and a fused one is the
    # product's rounding error, which these inputs make non-zero
    x[0] = np.float32(1 + 2.0**-12)  # x * SCALE = 1 + 2^-11 + 2^-24: a tie, rounded to 1 + 2^-11
    d[:] = -(x * SCALE)
    out = rt.gm_empty(N, np.float32)
    rt.launch(lib, "axpy_round", [x, d, out], block_dim=1, tiling=b"\0" * 8)
    want = (x * SCALE) + d  # numpy float32: the product rounded, then the add
    assert want[0] == 0.0
    fused = np.float32(np.float64(x[0]) * np.float64(SCALE) + np.float64(d[0]))
    assert struct.pack("<f", fused) != struct.pack("<f", want[0])  # the inputs tell them apart
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
