"""Sigmoid, Silu, Gelu and FasterGelu run a float span as h(x) for every lane, the Exp of all of
them on its SIMD lanes, then g(x, e); half operands run the same float span on chunks converted
to float (SpanHalf), as Exp and Ln (a loop of libm's logf) do. Each lane must still be the
scalar form's float operations with Exp's scalar definition (ExpF, tests/simulator/exp_ref.py)
or libm's logf: bit for bit, in place and not, over lengths with tails, float and half."""

from __future__ import annotations

import ctypes
import ctypes.util
import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .exp_ref import expf

N = 2048
KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void act(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    using T = DTYPE_X;
    const int32_t op = reinterpret_cast<const int32_t*>(tiling)[0];
    const uint32_t n = reinterpret_cast<const uint32_t*>(tiling)[1];
    const int32_t inPlace = reinterpret_cast<const int32_t*>(tiling)[2];
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * N * sizeof(T));
    GlobalTensor<T> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, N);
    zGm.SetGlobalBuffer((__gm__ T*)z, N);
    LocalTensor<T> src = buf.Get<T>();
    LocalTensor<T> dst = inPlace ? src : src[N];
    DataCopy(src, xGm, N);
    Duplicate(src[N], static_cast<T>(0), N);
    switch (op) {
        case 0: Sigmoid(dst, src, n); break;
        case 1: Silu(dst, src, n); break;
        case 2: Gelu(dst, src, n); break;
        case 3: FasterGelu(dst, src, n); break;
        case 4: Exp(dst, src, n); break;
        default: Ln(dst, src, n); break;
    }
    DataCopy(zGm, dst, N);
}
""".replace("N * sizeof", f"{N} * sizeof").replace(", N)", f", {N})").replace("[N]", f"[{N}]")

F = np.float32
_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_LIBM.logf.restype = ctypes.c_float
_LIBM.logf.argtypes = [ctypes.c_float]


def _expf(v: np.float32) -> np.float32:
    return F(expf(v))


# the scalar forms, one float operation at a time (vector_more.h)
LANES: dict[str, Callable[[np.float32], np.float32]] = {
    "Sigmoid": lambda x: F(1) / (F(1) + _expf(-x)),
    "Silu": lambda x: x / (F(1) + _expf(-x)),
    "Gelu": lambda x: x / (F(1) + _expf(F(-1.59576912) * (x + F(0.044715) * x * x * x))),
    "FasterGelu": lambda x: x / (F(1) + _expf(F(-1.702) * x)),
    "Exp": _expf,  # (half: in float, rounded once, its span as the activations')
    "Ln": lambda x: F(_LIBM.logf(float(x))),  # libm's, an element at a time
}


@pytest.fixture(scope="module")
def libs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, rt.KernelLibrary]:
    src = Path(tmp_path_factory.mktemp("act")) / "act.cpp"
    src.write_text(KERNEL)
    return {t: rt.build_kernel(src, entry="act", defines={"DTYPE_X": t}) for t in ("float", "half")}


@pytest.mark.parametrize("dtype_name", ["float", "half"])
@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("op", list(LANES))
def test_exp_activations_are_their_scalar_form_bit_for_bit(
        libs: dict[str, rt.KernelLibrary], dtype_name: str, in_place: bool, op: str) -> None:
    dtype = np.float32 if dtype_name == "float" else np.float16
    rng = np.random.default_rng(3)
    x0 = (rng.standard_normal(N) * 6).astype(dtype)
    x0[:8] = np.array([0.0, -0.0, 88.5, -104.0, 1e-30, -1e-30, np.inf, -np.inf]).astype(dtype)
    x = rt.gm_empty(N, dtype)
    x[...] = x0
    z = rt.gm_empty(N, dtype)
    n = 1000 + 13  # a span of 256-lane chunks and a tail
    with np.errstate(all="ignore"):
        lane = LANES[op]
        want = np.array([lane(F(v)) for v in x0[:n]], dtype=np.float32).astype(dtype)
    rt.launch(libs[dtype_name], "act", {"x": x, "z": z}, block_dim=1,
              tiling=struct.pack("<iIi", list(LANES).index(op), n, int(in_place)))
    got = np.asarray(z)[:n]
    bits = f"u{np.dtype(dtype).itemsize}"
    same = (got.view(bits) == want.view(bits)) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, (f"{bad.size} lanes differ, first x={x0[bad[0]]!r}: "
                           f"{got[bad[0]]!r} != {want[bad[0]]!r}")
