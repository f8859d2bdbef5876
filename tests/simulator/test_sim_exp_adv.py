"""Exp's advanced API (`Exp<T, taylorExpandLevel, isReuseSource>`, adv_api/math/exp.h) and its
host sizes (GetExpMaxMinTmpSize, GetExpTmpBufferFactorSize): e^floor(x) times the Taylor series
of the fraction, step by step in float as CANN's implementation runs them, bit for bit against a
numpy float32 model of those steps with the basic Exp (exp_ref.expf) for the integer part; the
temporary-space assertion; the host sizes CANN's own tiling test expects."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program
from .exp_ref import expf

N = 1024

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct ExpAdvTilingData {
    int32_t mode;
    int32_t n;
    int32_t tmpBytes;
};
REGISTER_TILING_DEFAULT(ExpAdvTilingData);

template <typename T>
__aicore__ inline void Body(GM_ADDR x, GM_ADDR z, int32_t mode, uint32_t n, uint32_t tmpBytes)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufX, bufZ, bufTmp;
    pipe.InitBuffer(bufX, 1024 * sizeof(T));
    pipe.InitBuffer(bufZ, 1024 * sizeof(T));
    pipe.InitBuffer(bufTmp, 16384);
    GlobalTensor<T> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, 1024);
    zGm.SetGlobalBuffer((__gm__ T*)z, 1024);
    LocalTensor<T> a = bufX.Get<T>(), d = bufZ.Get<T>();
    LocalTensor<uint8_t> tmp = bufTmp.GetWithOffset<uint8_t>(tmpBytes, 0);
    DataCopy(a, xGm, 1024);
    DataCopy(d, xGm, 1024);
    if (mode == 1) Exp<T, 10, false>(d, a, tmp, n);
    if (mode == 2) Exp<T, 10, true>(d, a, tmp, n);
    if (mode == 3) Exp<T, 3>(d, a, n);
    if (mode == 4) Exp<T, 0>(d, a, tmp, n);
    if (mode == 5) Exp<T, 10>(d, a, a.template ReinterpretCast<uint8_t>(), n);  // tmp over src
    DataCopy(zGm, d, 1024);
}

extern "C" __global__ __aicore__ void exp_adv_f(GM_ADDR x, GM_ADDR z, GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    Body<float>(x, z, t.mode, t.n, t.tmpBytes);
}

extern "C" __global__ __aicore__ void exp_adv_h(GM_ADDR x, GM_ADDR z, GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    Body<half>(x, z, t.mode, t.n, t.tmpBytes);
}
"""



def model(x: np.ndarray, level: int) -> np.ndarray:
    """CANN's steps in float32 (exp_common_impl.h), each rounded: floor, subtract, the basic Exp
    of the integer part, then p = c * p, p = p * (1 / i), r = r + p, and r * e."""
    f = x.astype(np.float32)
    ip = np.floor(f)
    c = f - ip
    e = expf(ip)
    if level == 0:
        return expf(f).astype(x.dtype)
    p = c.copy()
    r = c + np.float32(1)
    for i in range(2, level + 1):
        p = c * p
        p = p * (np.float32(1) / np.float32(i))
        r = r + p
    return (r * e).astype(x.dtype)


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("exp_adv")) / "exp_adv.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry=("exp_adv_f", "exp_adv_h"))


def run(lib: rt.KernelLibrary, dtype: type, mode: int, x: np.ndarray, n: int = N,
        tmp_bytes: int = 16384) -> np.ndarray:
    entry = "exp_adv_f" if dtype == np.float32 else "exp_adv_h"
    z = np.zeros(N, dtype)
    tiling = np.array([mode, n, tmp_bytes], np.int32).tobytes()
    rt.launch(lib, entry, [x.astype(dtype), z], block_dim=1, tiling=tiling)
    return z


def _inputs(dtype: type) -> np.ndarray:
    rng = np.random.default_rng(0)
    x = rng.uniform(-10, 10, N).astype(dtype)
    x[:6] = [0, -0.0, 1, -1, 0.5, -7.25]
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize(("mode", "level"), [(1, 10), (3, 3), (4, 0)])
def test_taylor_steps_bit_for_bit(lib: rt.KernelLibrary, dtype: type, mode: int,
                                  level: int) -> None:
    x = _inputs(dtype)
    got = run(lib, dtype, mode, x)
    want = model(x, level)
    bits = np.uint32 if dtype == np.float32 else np.uint16
    assert np.array_equal(got.view(bits), want.view(bits))
    # and the expansion is e^x to within a few float ulps (10 terms of a fraction in [0, 1))
    if level == 10:
        tol = 4e-7 if dtype == np.float32 else 1e-3
        np.testing.assert_allclose(got.astype(np.float64), np.exp(x.astype(np.float64)),
                                   rtol=tol)


def test_reuse_source_float(lib: rt.KernelLibrary) -> None:
    x = _inputs(np.float32)
    np.testing.assert_array_equal(run(lib, np.float32, 2, x), model(x, 10))


def test_partial_count_leaves_the_rest(lib: rt.KernelLibrary) -> None:
    x = _inputs(np.float32)
    got = run(lib, np.float32, 1, x, n=100)
    np.testing.assert_array_equal(got[:100], model(x[:100], 10))
    np.testing.assert_array_equal(got[100:], x[100:])  # dst started as a copy of x


@pytest.mark.parametrize(
    ("dtype", "tmp_bytes", "ok"),
    # each float temporary needs a 32-byte block of T: float 3 x 8 x 4 = 96, half 4 x 16 x 4 = 256
    [(np.float32, 96, True), (np.float32, 64, False), (np.float16, 256, True),
     (np.float16, 224, False)],
)
def test_insufficient_temporary_space(lib: rt.KernelLibrary, dtype: type, tmp_bytes: int,
                                      ok: bool) -> None:
    x = _inputs(dtype)
    if ok:
        bits = np.uint32 if dtype == np.float32 else np.uint16
        got = run(lib, dtype, 1, x, tmp_bytes=tmp_bytes)
        assert np.array_equal(got.view(bits), model(x, 10).view(bits))
        return
    name = "float" if dtype == np.float32 else "half"
    with pytest.raises(rt.LocalMemoryOutOfBounds, match=re.escape(
            f"Exp: Insufficient temporary space: sharedTmpBuffer holds {tmp_bytes} bytes, which "
            f"gives each of the {3 if name == 'float' else 4} float temporaries of Exp<{name}, 10, "
            "false> no whole")):
        run(lib, dtype, 1, x, tmp_bytes=tmp_bytes)


def test_tmp_over_the_source_is_an_error(lib: rt.KernelLibrary) -> None:
    with pytest.raises(rt.SimulatorError, match=r"Exp: sharedTmpBuffer .* overlaps a source"):
        run(lib, np.float32, 5, _inputs(np.float32))


HOST_CPP = r"""
#include <cstdio>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

int main() {
    ge::Shape shape(std::vector<int64_t>{128, 128});
    uint32_t maxValue = 1, minValue = 1;
    const bool ok = AscendC::GetExpMaxMinTmpSize(shape, 4, false, maxValue, minValue);
    std::printf("%d %u %u\n", ok ? 1 : 0, maxValue, minValue);
    AscendC::GetExpMaxMinTmpSize(shape, 4, true, maxValue, minValue);
    std::printf("%u %u\n", maxValue, minValue);
    AscendC::GetExpMaxMinTmpSize(shape, 2, false, maxValue, minValue);
    std::printf("%u %u\n", maxValue, minValue);
    AscendC::GetExpMaxMinTmpSize(ge::Shape(std::vector<int64_t>{8}), 4, false, maxValue, minValue);
    std::printf("%u %u\n", maxValue, minValue);
    uint32_t live = 0, extra = 1;
    AscendC::GetExpTmpBufferFactorSize(4, live, extra);
    std::printf("%u %u\n", live, extra);
    AscendC::GetExpTmpBufferFactorSize(2, live, extra);
    std::printf("%u %u\n", live, extra);
}
"""


def test_host_sizes_as_cann_computes_them(tmp_path: Path) -> None:
    lines = run_host_program(tmp_path, HOST_CPP).stdout.splitlines()
    # asc-devkit tests/api/adv_api/tiling/test_tiling.cpp, TestExpTiling: 3, 2 and 4 buffers
    assert lines[0] == f"1 {3 * 128 * 128 * 4} {3 * 256}"
    assert lines[1] == f"{2 * 128 * 128 * 4} {2 * 256}"
    assert lines[2] == f"{4 * 128 * 128 * 4} {4 * 256}"
    assert lines[3] == f"{3 * 256} {3 * 256}"  # each temporary at least one 256-byte repeat
    assert lines[4:] == ["3 0", "8 0"]
