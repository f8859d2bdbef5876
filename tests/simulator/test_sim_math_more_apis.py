"""IsFinite, Rint, Fma, Clamp, BitwiseAnd, LogicalAnd and Where of the math library
(opgen_sim/math_more.h) and their host sizes (tiling/math_more_tiling.h), against numpy models of
what the reference documents and CANN's implementation (impl/adv_api/detail/math/<op>/) computes;
a type the reference does not list is a compile error naming the API, a count beyond an operand a
simulator error naming the API and the operand."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program

N = 256

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Body(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR z, GM_ADDR b, int32_t mode,
                            int32_t n)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA, bufB, bufW, bufC, bufM, bufTmp;
    pipe.InitBuffer(bufA, 256 * sizeof(T));
    pipe.InitBuffer(bufB, 256 * sizeof(T));
    pipe.InitBuffer(bufW, 256 * sizeof(T));
    pipe.InitBuffer(bufC, 256 * sizeof(T));
    pipe.InitBuffer(bufM, 256);
    pipe.InitBuffer(bufTmp, 1024);
    GlobalTensor<T> xGm, yGm, wGm, zGm;
    GlobalTensor<bool> bGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, 256);
    yGm.SetGlobalBuffer((__gm__ T*)y, 256);
    wGm.SetGlobalBuffer((__gm__ T*)w, 256);
    zGm.SetGlobalBuffer((__gm__ T*)z, 256);
    bGm.SetGlobalBuffer((__gm__ bool*)b, 256);
    LocalTensor<T> a = bufA.template Get<T>(), bb = bufB.template Get<T>();
    LocalTensor<T> ww = bufW.template Get<T>(), c = bufC.template Get<T>();
    LocalTensor<bool> m = bufM.template Get<bool>();
    LocalTensor<uint8_t> tmp = bufTmp.template Get<uint8_t>();
    DataCopy(a, xGm, 256);
    DataCopy(bb, yGm, 256);
    DataCopy(ww, wGm, 256);
    DataCopy(m, bGm, 256);
    Duplicate(c, (T)0, 256);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half>) {
        if (mode == 0) IsFinite(c, a, n);
        if (mode == 1) IsFinite(m, a, n);
        if (mode == 2) Rint(c, a, tmp, n);
        if (mode == 3) Rint(c, a, n);
        if (mode == 4) Fma(c, a, bb, ww, tmp, n);
        if (mode == 5) Fma(c, a, bb, ww, n);
        if (mode == 6) LogicalAnd(m, a, bb, n);
    }
    if constexpr (!std::is_same_v<T, half> && std::is_integral_v<T>) {
        if (mode == 7) BitwiseAnd(c, a, bb, n);
    }
    if (mode == 8) Clamp(c, a, bb, ww, n);
    if (mode == 9) Clamp(c, a, bb, ww.GetValue(0), n);
    if (mode == 10) Clamp(c, a, bb.GetValue(0), ww, n);
    if (mode == 11) Clamp(c, a, bb.GetValue(0), ww.GetValue(0), n);
    if (mode == 12) Where<T>(c, a, bb, m, n);
    if (mode == 13) Where<T>(c, a.GetValue(0), bb, m, n);
    if (mode == 14) Where<T>(c, a, bb.GetValue(0), m, n);
    if (mode == 15) Where<T>(c, a.GetValue(0), bb.GetValue(0), m, n);
    DataCopy(zGm, c, 256);
    DataCopy(bGm, m, 256);
}

extern "C" __global__ __aicore__ void math_more_apis(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR z,
                                                     GM_ADDR b, GM_ADDR workspace, GM_ADDR tiling)
{
    const int32_t mode = reinterpret_cast<const int32_t*>(tiling)[0];
    const int32_t n = reinterpret_cast<const int32_t*>(tiling)[1];
    Body<DTYPE_X>(x, y, w, z, b, mode, n);
}
"""


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = Path(tmp_path_factory.mktemp("math_more_apis")) / "math_more_apis.cpp"
    src.write_text(KERNEL)
    return src


_LIBS: dict[tuple[Path, str], rt.KernelLibrary] = {}


def _run(source: Path, dtype: str, mode: int, x: np.ndarray, y: np.ndarray | None = None,
         w: np.ndarray | None = None, cond: np.ndarray | None = None,
         n: int = N) -> tuple[np.ndarray, np.ndarray]:
    key = (source, dtype)
    if key not in _LIBS:
        _LIBS[key] = rt.build_kernel(source, entry="math_more_apis",
                                     defines=rt.dtype_defines({"x": dtype}))
    gx, gy, gw, gz = (rt.gm_empty(N, dtype) for _ in range(4))
    gb = rt.gm_empty(N, np.uint8)
    gx[:] = x
    gy[:] = np.zeros(N, dtype) if y is None else y
    gw[:] = np.zeros(N, dtype) if w is None else w
    gz[:] = 0
    gb[:] = np.full(N, 7, np.uint8) if cond is None else cond
    rt.launch(_LIBS[key], "math_more_apis", [gx, gy, gw, gz, gb], block_dim=1,
              tiling=np.array([mode, n], np.int32).tobytes())
    return np.asarray(gz).copy(), np.asarray(gb).copy()


def _specials(dtype: str, rng: np.random.Generator) -> np.ndarray:
    x = (rng.standard_normal(N) * 100).astype(dtype)
    x[:8] = [np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0, np.finfo(dtype).max, np.finfo(dtype).tiny]
    return x


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_is_finite_as_the_type_and_as_bool(source: Path, dtype: str) -> None:
    """IsFinite.md: 1 (the type's 1.0, or true) where x is neither NaN nor +-inf, else 0; only
    calCount elements are written (the rest keep the 0 Duplicate or the 7s of the bool dst)."""
    x = _specials(dtype, np.random.default_rng(1))
    want = np.isfinite(x)
    z, _ = _run(source, dtype, 0, x, n=200)
    np.testing.assert_array_equal(z[:200], want[:200].astype(dtype))
    assert not z[200:].any()
    _, b = _run(source, dtype, 1, x, n=200)
    np.testing.assert_array_equal(b[:200], want[:200].astype(np.uint8))
    assert (b[200:] == 7).all()


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", [2, 3])
def test_rint_rounds_ties_to_even(source: Path, dtype: str, mode: int) -> None:
    """Rint.md: the nearest integer, halfway cases to the even one (CANN: Truncate with CAST_RINT),
    with and without sharedTmpBuffer; NaN and inf stay, -0.5 gives -0."""
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(N) * 20).astype(dtype)
    x[:10] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, np.inf, np.nan, 1e4 + 0.5, -3.7]
    z, _ = _run(source, dtype, mode, x)
    want = np.rint(x)
    np.testing.assert_array_equal(z, want)
    assert list(z[:6]) == [0.0, 2.0, 2.0, -0.0, -2.0, -2.0] and np.signbit(z[3])


def _fma_model(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """One rounding of a * b + c to float32 (float64 holds a float32 product exactly; the sum is
    exact in float64 for these magnitudes), then half rounds once more."""
    exact = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
    return exact.astype(np.float32).astype(a.dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", [4, 5])
def test_fma_rounds_once(source: Path, dtype: str, mode: int) -> None:
    """Fma.md: src0 * src1 + src2, one fused multiply-add (CANN: FusedMulDstAdd), with and
    without sharedTmpBuffer. For float it differs from the twice-rounded a * b + c."""
    rng = np.random.default_rng(3)
    a, b, c = ((rng.standard_normal(N) * 8).astype(dtype) for _ in range(3))
    if dtype == "float32":  # a case where the two roundings differ: (1 + 2^-12)^2 - 1
        a[0] = b[0] = np.float32(1 + 2.0 ** -12)
        c[0] = np.float32(-1)
    z, _ = _run(source, dtype, mode, a, b, c)
    np.testing.assert_array_equal(z, _fma_model(a, b, c))
    if dtype == "float32":
        assert z[0] == np.float32(2.0 ** -11 + 2.0 ** -24)
        assert z[0] != (a[0] * b[0]).astype(np.float32) + c[0]


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
@pytest.mark.parametrize("mode", [8, 9, 10, 11])
def test_clamp_tensor_or_scalar_bounds(source: Path, dtype: str, mode: int) -> None:
    """Clamp.md: max(src, min) then min(that, max), each bound a tensor or a scalar (the scalar
    here the tensor's element 0); a min above the max gives the max, as np.clip does."""
    rng = np.random.default_rng(4 + mode)
    x = (rng.standard_normal(N) * 50).astype(dtype)
    lo = (rng.standard_normal(N) * 20 - 10).astype(dtype)
    hi = (rng.standard_normal(N) * 20 + 10).astype(dtype)
    z, _ = _run(source, dtype, mode, x, lo, hi, n=250)
    lo_b = lo if mode in (8, 9) else lo[0]
    hi_b = hi if mode in (8, 10) else hi[0]
    want = np.minimum(np.maximum(x, lo_b), hi_b)
    np.testing.assert_array_equal(z[:250], want[:250])
    assert not z[250:].any()


@pytest.mark.parametrize("dtype", ["int32", "uint16", "int8"])
def test_bitwise_and_bits(source: Path, dtype: str) -> None:
    """BitwiseAnd.md: src0 & src1 bit for bit."""
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    z, _ = _run(source, dtype, 7, a, b)
    np.testing.assert_array_equal(z, a & b)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_logical_and_compares_with_zero(source: Path, dtype: str) -> None:
    """LogicalAnd.md: (src0 != 0) and (src1 != 0) as bool; a NaN is not 0, -0.0 is."""
    rng = np.random.default_rng(6)
    a = rng.choice([0.0, -0.0, 1.5, -2.0, np.nan], N).astype(dtype)
    b = rng.choice([0.0, 3.0, np.inf, -0.0], N).astype(dtype)
    _, m = _run(source, dtype, 6, a, b, n=192)
    with np.errstate(invalid="ignore"):
        want = ((a != 0) & (b != 0)).astype(np.uint8)
    np.testing.assert_array_equal(m[:192], want[:192])
    assert (m[192:] == 7).all()


@pytest.mark.parametrize("dtype", ["float32", "float16", "int16"])
@pytest.mark.parametrize("mode", [12, 13, 14, 15])
def test_where_selects_by_condition(source: Path, dtype: str, mode: int) -> None:
    """Where.md: condition ? src0 : src1 element by element, each source a tensor or a scalar;
    the element is copied bit for bit (a NaN's payload kept); a condition byte other than 0 is
    true."""
    rng = np.random.default_rng(7 + mode)
    a = (rng.standard_normal(N) * 9).astype(dtype)
    b = (rng.standard_normal(N) * 9).astype(dtype)
    if dtype != "int16":
        a[1] = np.nan
    cond = rng.choice([0, 1, 2, 255], N).astype(np.uint8)
    z, _ = _run(source, dtype, mode, a, b, cond=cond, n=240)
    sa = a if mode in (12, 14) else np.full(N, a[0], dtype)
    sb = b if mode in (12, 13) else np.full(N, b[0], dtype)
    want = np.where(cond != 0, sa, sb)
    bits = "u" + str(np.dtype(dtype).itemsize)
    np.testing.assert_array_equal(z[:240].view(bits), want[:240].view(bits))
    assert not z[240:].any()


def test_a_count_beyond_an_operand_is_an_error(source: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tensor operand must hold count elements: Clamp names the operand."""
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    x = np.zeros(N, np.float32)
    with pytest.raises(rt.LocalMemoryOutOfBounds, match=r"Clamp: .*count 300 exceeds"):
        _run(source, "float32", 8, x, x, x, n=300)
    with pytest.raises(rt.LocalMemoryOutOfBounds, match=r"IsFinite: .*count 300 exceeds"):
        _run(source, "float32", 1, x, n=300)


@pytest.mark.parametrize(("call", "text"), [
    ("Rint(c, a, n);", "Rint takes half or float"),
    ("BitwiseAnd(c, a, bb, n);", "BitwiseAnd takes uint8_t"),
    ("IsFinite(c, a, n);", "IsFinite takes (dst U, src T)"),
])
def test_an_unlisted_type_is_a_compile_error(tmp_path: Path, call: str, text: str) -> None:
    src = tmp_path / "bad.cpp"
    src.write_text(KERNEL.replace("DataCopy(zGm, c, 256);", call + "\n    DataCopy(zGm, c, 256);"))
    dtype = "float32" if call.startswith("BitwiseAnd") else "int32"
    with pytest.raises(rt.BuildError, match=re.escape(text)):
        rt.build_kernel(src, entry="math_more_apis", defines=rt.dtype_defines({"x": dtype}))


HOST_CPP = r"""
#include <cstdio>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"
#include "tiling/platform/platform_ascendc.h"
int main() {
    fe::PlatFormInfos info;
    info.soc = "Ascend910B1";
    const platform_ascendc::PlatformAscendC plat(&info);
    ge::Shape shape({1, 1024});
    uint32_t mx = 7, mn = 7, live = 7, extra = 7;
    AscendC::GetRintMaxMinTmpSize(plat, shape, 4, false, mx, mn);
    std::printf("rint %u %u\n", mx, mn);
    mx = mn = 7;
    AscendC::GetFmaMaxMinTmpSize(plat, shape, 2, false, mx, mn);
    AscendC::GetWhereTmpBufferFactorSize(plat, 8, live, extra);
    std::printf("fma %u %u where %u %u\n", mx, mn, live, extra);
    mx = mn = 7;
    AscendC::GetBitwiseAndMaxMinTmpSize(plat, ge::Shape({0}), 4, false, mx, mn);
    std::printf("empty %u %u\n", mx, mn);
    AscendC::GetLogicalAndMaxMinTmpSize(plat, shape, 3, false, mx, mn);
    std::printf("badsize %u %u\n", mx, mn);
    return 0;
}
"""


def test_host_sizes_are_zero_and_bad_arguments_are_reported(tmp_path: Path) -> None:
    """rint/fma/where/bitwise_and/logical_and_tiling_impl.cpp: no temporary buffer (0 bytes, 0 live
    nodes); an empty shape leaves the outputs and logs an error, a typeSize not listed logs one and
    still writes them, as CANN's checks do."""
    proc = run_host_program(tmp_path, HOST_CPP)
    out, err = proc.stdout, proc.stderr
    assert out.splitlines() == ["rint 0 0", "fma 0 0 where 0 0", "empty 7 7", "badsize 0 0"]
    assert "GetBitwiseAndMaxMinTmpSize: the input shape holds no element" in err
    assert "GetLogicalAndMaxMinTmpSize: typeSize 3 is unsupported" in err
