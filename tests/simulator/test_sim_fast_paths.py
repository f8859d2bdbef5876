"""The simulator's SIMD paths give bit-for-bit the results of a plain per-element model run in the
same kernel (same compiler, same libm): Exp's double-precision lanes against libm's expf of each
element (docs/simulator.md, "Numerics": Exp is libm's expf per lane, half lanes in float rounded
once), on random bit patterns, the edges of expf's special cases, NaN, infinities, subnormals,
tails of every length and in-place operands, from UB and from a pending GM copy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

FAST_PATHS_CPP = r"""
#include <cmath>
#include "kernel_operator.h"
using namespace AscendC;

struct FastPathsTilingData {
    int32_t mode;
    int32_t n;
};
REGISTER_TILING_DEFAULT(FastPathsTilingData);

extern "C" __global__ __aicore__ void fast_paths(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                                 GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 96 * 1024);
    GlobalTensor<uint8_t> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ uint8_t*)x, 64 * 1024);
    zGm.SetGlobalBuffer((__gm__ uint8_t*)z, 32 * 1024);
    LocalTensor<uint8_t> all = buf.Get<uint8_t>();
    LocalTensor<uint8_t> in = all[0], out = all[32 * 1024];
    in.SetSize(32 * 1024);
    out.SetSize(32 * 1024);
    DataCopy(in, xGm, 32 * 1024);
    DataCopy(out, xGm[32 * 1024], 32 * 1024);
    const int32_t n = t.n;
    LocalTensor<half> ih = in.ReinterpretCast<half>(), oh = out.ReinterpretCast<half>();
    LocalTensor<float> iff = in.ReinterpretCast<float>(), of = out.ReinterpretCast<float>();
    LocalTensor<uint8_t> result = out;
    switch (t.mode) {
        // the instruction, its source still a pending copy from GM
        case 0: Exp(of, iff, n); break;
        case 1: Exp(oh, ih, n); break;
        // the instruction on UB operands
        case 2: iff.GetValue(0); Exp(of, iff, n); break;
        case 3: ih.GetValue(0); Exp(oh, ih, n); break;
        // in place
        case 4: iff.GetValue(0); Exp(iff, iff, n); result = in; break;
        case 5: ih.GetValue(0); Exp(ih, ih, n); result = in; break;
        // the per-element models
        case 100:
            for (int32_t i = 0; i < n; ++i) of.SetValue(i, std::exp(iff.GetValue(i)));
            break;
        case 101:
            for (int32_t i = 0; i < n; ++i) {
                oh.SetValue(i, static_cast<half>(std::exp(static_cast<float>(ih.GetValue(i)))));
            }
            break;
        case 104:
            for (int32_t i = 0; i < n; ++i) iff.SetValue(i, std::exp(iff.GetValue(i)));
            result = in;
            break;
        case 105:
            for (int32_t i = 0; i < n; ++i) {
                ih.SetValue(i, static_cast<half>(std::exp(static_cast<float>(ih.GetValue(i)))));
            }
            result = in;
            break;
        default: break;
    }
    DataCopy(zGm, result, 32 * 1024);
}
"""

LAYOUT = rt.TilingLayout.from_fields("FastPathsTilingData", [("mode", "int32_t"), ("n", "int32_t")])
BYTES = 32 * 1024
RNG = np.random.default_rng(2024)


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("fast_paths")) / "fast_paths.cpp"
    src.write_text(FAST_PATHS_CPP)
    return rt.build_kernel(src, entry="fast_paths")


def run(lib: rt.KernelLibrary, mode: int, data: np.ndarray, n: int, init: np.ndarray) -> bytes:
    x = np.zeros(2 * BYTES, np.uint8)
    raw = data.view(np.uint8)
    x[: raw.size] = raw
    x[BYTES : BYTES + init.view(np.uint8).size] = init.view(np.uint8)
    z = np.zeros(BYTES, np.uint8)
    rt.launch(lib, "fast_paths", {"x": x, "z": z}, block_dim=1,
              tiling=LAYOUT.pack({"mode": mode, "n": n}))
    return z.tobytes()


def float_inputs() -> np.ndarray:
    """Random bit patterns, the range where expf computes, the edges of its special cases, the
    two floats where its two x86-64 variants differ, and NaN/inf/zero/subnormal values."""
    count = BYTES // 4
    bits = RNG.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32).copy()
    x[: count // 2] = RNG.uniform(-105.0, 90.0, count // 2).astype(np.float32)
    edges = np.array(
        [88.0, -88.0, 88.72283, 88.72284, -103.27893, -103.97208, -104.0, 0.0, -0.0, 1.0, -1.0,
         np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38],
        np.float32,
    )
    special = np.array([0x4202422F, 0xC27C65D9, 0x7FC00001, 0xFF800001, 0x42AFFFFF, 0x42B00000],
                       np.uint32).view(np.float32)
    near = np.nextafter(np.repeat(np.float32([88.0, -88.0]), 8),
                        np.float32(np.inf)).astype(np.float32)
    head = np.concatenate([edges, special, near])
    x[: head.size] = head
    return x


def half_inputs(chunk: int) -> np.ndarray:
    """A quarter of all half bit patterns (NaN, inf, subnormals included), shuffled."""
    count = BYTES // 2
    h = np.arange(chunk * count, (chunk + 1) * count, dtype=np.uint32).astype(np.uint16)
    return RNG.permutation(h).view(np.float16)


@pytest.mark.parametrize("n", [8192, 8191, 8189, 4100, 64, 7, 4, 3, 1])
@pytest.mark.parametrize(("mode", "model"), [(0, 100), (2, 100), (4, 104)])
def test_float_exp_lanes_equal_expf(lib: rt.KernelLibrary, mode: int, model: int, n: int) -> None:
    x = float_inputs()
    init = RNG.standard_normal(BYTES // 4).astype(np.float32)
    if n >= 3:
        x[n - 3 : n] = [np.nan, 88.5, -0.5]  # special cases in the tail
    assert run(lib, mode, x, n, init) == run(lib, model, x, n, init)


@pytest.mark.parametrize("n", [16384, 16383, 16381, 100, 5, 1])
@pytest.mark.parametrize(("mode", "model"), [(1, 101), (3, 101), (5, 105)])
def test_half_exp_lanes_equal_expf_rounded_once(lib: rt.KernelLibrary, mode: int, model: int,
                                                 n: int) -> None:
    init = RNG.standard_normal(BYTES // 2).astype(np.float16)
    for chunk in range(4) if n == 16384 else range(1):
        x = half_inputs(chunk)
        assert run(lib, mode, x, n, init) == run(lib, model, x, n, init)
