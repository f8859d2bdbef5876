"""Frac, Fmod, Xor, Acosh, Swish, ClampMin/ClampMax and Log/Log2/Log10 of the math library
(opgen_sim/vector_more.h), in their overloads (with or without sharedTmpBuffer and calCount),
against numpy models of what the reference and CANN's implementation compute; a type the
reference does not list is a compile error naming the API."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

N = 256

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Body(GM_ADDR x, GM_ADDR y, GM_ADDR z, int32_t mode, int32_t n)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA, bufB, bufC, bufTmp;
    pipe.InitBuffer(bufA, 256 * sizeof(T));
    pipe.InitBuffer(bufB, 256 * sizeof(T));
    pipe.InitBuffer(bufC, 256 * sizeof(T));
    pipe.InitBuffer(bufTmp, 8192);
    GlobalTensor<T> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, 256);
    yGm.SetGlobalBuffer((__gm__ T*)y, 256);
    zGm.SetGlobalBuffer((__gm__ T*)z, 256);
    LocalTensor<T> a = bufA.template Get<T>(), b = bufB.template Get<T>(),
                   c = bufC.template Get<T>();
    LocalTensor<uint8_t> tmp = bufTmp.template Get<uint8_t>();
    DataCopy(a, xGm, 256);
    DataCopy(b, yGm, 256);
    DataCopy(c, yGm, 256);
    if constexpr (std::is_integral_v<T>) {
        if (mode == 0) Xor(c, a, b, tmp, n);
        if (mode == 1) Xor(c, a, b, tmp);
        if (mode == 2) Xor(c, a, b, n);
        if (mode == 3) Xor(c, a, b);
    } else {
        if (mode == 0) Frac(c, a, tmp, n);
        if (mode == 1) Frac(c, a, tmp);
        if (mode == 2) Frac(c, a, n);
        if (mode == 3) Frac(c, a);
        if (mode == 4) Fmod(c, a, b, tmp, n);
        if (mode == 5) Fmod(c, a, b, tmp);
        if (mode == 6) Fmod(c, a, b, n);
        if (mode == 7) Fmod(c, a, b);
        if (mode == 8) Acosh(c, a, tmp, n);
        if (mode == 9) Acosh(c, a, n);
        if (mode == 10) Swish(c, a, n, (T)1.702f);
        if (mode == 11) ClampMin(c, a, tmp, (T)0.5f, n);
        if (mode == 12) ClampMax(c, a, (T)0.5f, n);
        if (mode == 13) Log(c, a, n);
        if (mode == 14) Log10(c, a);
        if (mode == 15) Log2(c, a, tmp, n);
        if (mode == 16) Log2(c, a, n);
        if (mode == 17) GeGLU(c, a, b, tmp, n);
        if (mode == 18) GeGLU(c, a, b);
        if (mode == 19) SwiGLU(c, a, b, 1.5f, tmp, n);
        if (mode == 20) SwiGLU(c, a, b, 1.5f);
    }
    DataCopy(zGm, c, 256);
}

extern "C" __global__ __aicore__ void math_more(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                GM_ADDR workspace, GM_ADDR tiling)
{
    const int32_t mode = reinterpret_cast<const int32_t*>(tiling)[0];
    const int32_t n = reinterpret_cast<const int32_t*>(tiling)[1];
    Body<DTYPE_X>(x, y, z, mode, n);
}
"""


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = Path(tmp_path_factory.mktemp("math_more")) / "math_more.cpp"
    src.write_text(KERNEL)
    return src


def _run(source: Path, dtype: str, mode: int, x: np.ndarray, y: np.ndarray,
         n: int = N) -> np.ndarray:
    lib = rt.build_kernel(source, entry="math_more", defines=rt.dtype_defines({"x": dtype}))
    gx, gy, gz = (rt.gm_empty(N, x.dtype) for _ in range(3))
    gx[:], gy[:] = x, y
    gz[:] = 0
    rt.launch(lib, "math_more", [gx, gy, gz], block_dim=1,
              tiling=np.array([mode, n], np.int32).tobytes())
    return np.asarray(gz).copy()


def _fmod_steps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """CANN's Fmod: Div, Trunc, Mul, Sub, each rounded in float32 (half: in float, cast once)."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    with np.errstate(all="ignore"):
        q = (a32 / b32).astype(np.float32)
        p = (np.trunc(q) * b32).astype(np.float32)
        return (a32 - p).astype(np.float32).astype(a.dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_frac_is_x_minus_trunc_x(source: Path, dtype: str, mode: int) -> None:
    """Frac.md: the fractional part, the sign of x kept (-2.75 -> -0.75), for every overload."""
    rng = np.random.default_rng(mode)
    x = (rng.standard_normal(N) * 40).astype(dtype)
    x[:4] = [-2.75, 3.5, -0.0, 1e4]
    z = _run(source, dtype, mode, x, np.zeros(N, dtype))
    np.testing.assert_array_equal(z, (x.astype(np.float32) - np.trunc(x.astype(np.float32)))
                                  .astype(dtype))
    assert z[0] == -0.75


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", [4, 5, 6, 7])
def test_fmod_runs_cann_steps(source: Path, dtype: str, mode: int) -> None:
    """Fmod.md: a - trunc(a / b) * b, the sign of a; each step rounded in float as CANN's
    implementation (Div, Trunc, Mul, Sub) does, b = 0 giving NaN."""
    rng = np.random.default_rng(10 + mode)
    a = (rng.standard_normal(N) * 30).astype(dtype)
    b = (rng.standard_normal(N) * 4).astype(dtype)
    a[:3], b[:3] = [7.5, -7.5, 3.0], [2.0, 2.0, 0.0]
    z = _run(source, dtype, mode, a, b)
    np.testing.assert_array_equal(z, _fmod_steps(a, b))
    assert list(z[:2]) == [1.5, -1.5] and np.isnan(z[2])


@pytest.mark.parametrize("dtype", ["int16", "uint16"])
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_xor_bits(source: Path, dtype: str, mode: int) -> None:
    """Xor.md: src0 ^ src1 bit for bit, int16_t and uint16_t."""
    rng = np.random.default_rng(20 + mode)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, N, endpoint=True).astype(dtype)
    b = rng.integers(info.min, info.max, N, endpoint=True).astype(dtype)
    np.testing.assert_array_equal(_run(source, dtype, mode, a, b), a ^ b)


def test_count_limits_the_lanes(source: Path) -> None:
    """calCount: lanes past it keep what dst held (here src1's values)."""
    a = np.full(N, 5.25, np.float32)
    b = np.arange(N, dtype=np.float32)
    z = _run(source, "float32", 0, a, b, n=64)
    np.testing.assert_array_equal(z[:64], np.full(64, 0.25, np.float32))
    np.testing.assert_array_equal(z[64:], b[64:])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", [8, 9])
def test_acosh_is_libms(source: Path, dtype: str, mode: int) -> None:
    """Acosh.md: acosh(x) for x >= 1, NaN below; the host's libm in float (docs/simulator.md,
    "Approximations that are not public"), so within an ulp of the exact value."""
    rng = np.random.default_rng(30 + mode)
    x = (1 + np.abs(rng.standard_normal(N)) * 20).astype(dtype)
    x[0] = 0.5
    z = _run(source, dtype, mode, x, np.zeros(N, dtype))
    want = np.arccosh(x[1:].astype(np.float64))
    assert np.isnan(z[0])
    np.testing.assert_allclose(z[1:].astype(np.float64), want,
                               rtol=2e-7 if dtype == "float32" else 1e-3)


def test_fmod_of_integers_is_a_compile_error(tmp_path: Path) -> None:
    src = tmp_path / "fmod_int.cpp"
    src.write_text(KERNEL.replace("if constexpr (std::is_integral_v<T>) {",
                                  "if constexpr (std::is_integral_v<T>) { Fmod(c, a, b, n);"))
    with pytest.raises(rt.BuildError, match="Fmod takes half or float"):
        rt.build_kernel(src, entry="math_more", defines=rt.dtype_defines({"x": "int32"}))


def _ulps_close(got: np.ndarray, want: np.ndarray, dtype: str) -> None:
    rtol = 4e-7 if dtype == "float32" else 2e-3
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_swish_runs_cann_steps_in_the_element_type(source: Path, dtype: str) -> None:
    """Swish.md: x / (1 + e^(-beta x)), as CANN's Muls, Exp, Adds and Div of the element type
    (half rounds after each)."""
    x = np.linspace(-6, 6, N).astype(dtype)
    t = np.dtype(dtype).type
    m = (x * t(-1.702)).astype(dtype)
    e = np.exp(m.astype(np.float64)).astype(dtype)
    want = (x.astype(np.float64) / (e + t(1)).astype(dtype).astype(np.float64)).astype(dtype)
    _ulps_close(_run(source, dtype, 10, x, np.zeros(N, dtype)), want, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_clamp_min_and_max_are_maxs_and_mins(source: Path, dtype: str) -> None:
    """ClampMin.md / ClampMax.md: values below (above) the scalar become the scalar."""
    x = np.linspace(-3, 3, N).astype(dtype)
    np.testing.assert_array_equal(_run(source, dtype, 11, x, np.zeros(N, dtype)),
                                  np.maximum(x, np.dtype(dtype).type(0.5)))
    np.testing.assert_array_equal(_run(source, dtype, 12, x, np.zeros(N, dtype)),
                                  np.minimum(x, np.dtype(dtype).type(0.5)))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_logs(source: Path, dtype: str) -> None:
    """Log.md: Log is Ln; Log10 is Ln then a Muls by 1/ln 10 in the element type; Log2 is Ln
    then a Muls by 1/ln 2 in float (half: cast to float and back once), with and without
    sharedTmpBuffer."""
    x = np.linspace(0.1, 500, N).astype(dtype)
    ln = np.log(x.astype(np.float64))
    _ulps_close(_run(source, dtype, 13, x, np.zeros(N, dtype)), ln.astype(dtype), dtype)
    log10 = (ln.astype(dtype) * np.dtype(dtype).type(0.43429448190325176)).astype(dtype)
    _ulps_close(_run(source, dtype, 14, x, np.zeros(N, dtype)), log10, dtype)
    log2 = (ln.astype(np.float32) * np.float32(1.4426950408889634)).astype(dtype)
    for mode in (15, 16):
        _ulps_close(_run(source, dtype, mode, x, np.zeros(N, dtype)), log2, dtype)


SUM_KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void sum_kernel(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                                 GM_ADDR tiling)
{
    using T = DTYPE_X;
    const uint32_t* t = reinterpret_cast<const uint32_t*>(tiling);
    const uint32_t outter = t[0], inner = t[1], n = t[2], withTmp = t[3];
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bz, bt;
    pipe.InitBuffer(bx, outter * inner * sizeof(T));
    pipe.InitBuffer(bz, 256);
    pipe.InitBuffer(bt, 1024);
    GlobalTensor<T> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, outter * inner);
    zGm.SetGlobalBuffer((__gm__ T*)z, 256 / sizeof(T));
    LocalTensor<T> src = bx.Get<T>(), dst = bz.Get<T>();
    DataCopy(src, xGm, outter * inner);
    Duplicate(dst, (T)0, 256 / sizeof(T));
    SumParams p{outter, inner, n};
    if (withTmp) Sum(dst, src, bt.Get<uint8_t>(), p);
    else Sum(dst, src, p);
    DataCopy(zGm, dst, 256 / sizeof(T));
}
"""


def _tree(v: np.ndarray, lanes: int) -> np.floating:
    """One repeat's tree sum: adjacent pairs, level by level, zeros past the values."""
    w = np.zeros(lanes, v.dtype)
    w[:len(v)] = v
    while len(w) > 1:
        w = (w[0::2].astype(np.float32) + w[1::2].astype(np.float32)).astype(v.dtype)
    return w[0]


def _sum_model(x: np.ndarray, n: int) -> np.floating:
    lanes = 256 // x.dtype.itemsize
    level = x[:n]
    while True:
        level = np.array([_tree(level[i:i + lanes], lanes) for i in range(0, len(level), lanes)],
                         x.dtype)
        if len(level) == 1:
            return level[0]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize(("n", "with_tmp"), [(40, 1), (200, 1), (1000, 0)])
def test_sum_reduces_rows_level_by_level(tmp_path: Path, dtype: str, n: int, with_tmp: int) -> None:
    """Sum.md: each of `outter` rows' first n elements summed, as CANN's A2 implementation's
    counter-mode RepeatReduceSum does it: a tree sum a 256-byte repeat, then those sums again."""
    src = tmp_path / "sum.cpp"
    src.write_text(SUM_KERNEL)
    lib = rt.build_kernel(src, entry="sum_kernel", defines=rt.dtype_defines({"x": dtype}))
    per_block = 32 // np.dtype(dtype).itemsize
    inner = (n + per_block - 1) // per_block * per_block
    outter = 3
    rng = np.random.default_rng(n)
    x = rt.gm_empty(outter * inner, dtype)
    x[:] = rng.standard_normal(outter * inner).astype(dtype)
    z = rt.gm_empty(256 // np.dtype(dtype).itemsize, dtype)
    rt.launch(lib, "sum_kernel", [x, z], block_dim=1,
              tiling=np.array([outter, inner, n, with_tmp], np.uint32).tobytes())
    rows = np.asarray(x).reshape(outter, inner)
    want = np.array([_sum_model(rows[r], n) for r in range(outter)], dtype)
    np.testing.assert_array_equal(np.asarray(z)[:outter], want)


ARANGE_KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void arange_kernel(GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    using T = DTYPE_Z;
    const int32_t count = *reinterpret_cast<const int32_t*>(tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> bz;
    pipe.InitBuffer(bz, 1024 * sizeof(T) + 32);
    GlobalTensor<T> zGm;
    zGm.SetGlobalBuffer((__gm__ T*)z, 1024 + 32 / sizeof(T));
    LocalTensor<T> dst = bz.Get<T>();
    Duplicate(dst, (T)-1, 1024 + 32 / sizeof(T));
    Arange(dst, (T)ARANGE_FIRST, (T)ARANGE_DIFF, count);
    DataCopy(zGm, dst, 1024 + 32 / sizeof(T));
}
"""


def _arange_model(dtype: str, first: float, diff: float, count: int, size: int) -> np.ndarray:
    """CANN's steps: the first block on the scalar unit, then blocks and repeats by Adds."""
    t = np.dtype(dtype)
    is_int = t.kind == "i"
    out = np.full(size, -1, t)
    b, r = 32 // t.itemsize, 256 // t.itemsize

    def add(a: np.ndarray, s: object) -> np.ndarray:
        if is_int:
            return (a.astype(np.int64) + int(s)).astype(t)  # wraps
        return (a.astype(np.float32) + np.float32(s)).astype(t)

    def step(n: int) -> object:
        if is_int:
            return np.array([int(diff) * n], np.int64).astype(t)[0]  # wraps
        return t.type(np.float32(diff) * np.float32(n))

    def base(n: int) -> None:
        i = np.arange(n)
        if is_int:
            out[:n] = (int(first) + int(diff) * i).astype(t)
        else:
            f32 = np.float32
            out[:n] = (f32(t.type(first)) + (f32(t.type(diff)) * i.astype(f32))).astype(t)

    if count <= b:
        base(count)
        return out
    base(b)
    if count <= r:
        for i in range(-(-count // b) - 1):
            out[(i + 1) * b:(i + 2) * b] = add(out[i * b:(i + 1) * b], step(b))
        return out
    for i in range(r // b - 1):
        out[(i + 1) * b:(i + 2) * b] = add(out[i * b:(i + 1) * b], step(b))
    rep, tail = divmod(count, r)
    for i in range(rep - 1):
        out[(i + 1) * r:(i + 2) * r] = add(out[i * r:(i + 1) * r], step(r))
    if tail:
        n = -(-tail // b) * b
        out[rep * r:rep * r + n] = add(out[(rep - 1) * r:(rep - 1) * r + n], step(r))
    return out


@pytest.mark.parametrize(("dtype", "first", "diff"),
                         [("float32", 0.1, 0.3), ("float16", -2.0, 0.125), ("int16", 7, 301),
                          ("int32", -5, 3)])
@pytest.mark.parametrize("count", [5, 50, 192, 1000])
def test_arange_values_carry_canns_roundings(tmp_path: Path, dtype: str, first: float, diff: float,
                                             count: int) -> None:
    """Arange.md: first + i * diff, computed block by block and repeat by repeat as CANN's
    implementation does (the last block written whole); int16 wraps."""
    src = tmp_path / "arange.cpp"
    src.write_text(ARANGE_KERNEL)
    defines = {**rt.dtype_defines({"z": dtype}), "ARANGE_FIRST": str(first),
               "ARANGE_DIFF": str(diff)}
    lib = rt.build_kernel(src, entry="arange_kernel", defines=defines)
    size = 1024 + 32 // np.dtype(dtype).itemsize
    z = rt.gm_empty(size, dtype)
    rt.launch(lib, "arange_kernel", [z], block_dim=1, tiling=np.array([count], np.int32).tobytes())
    np.testing.assert_array_equal(np.asarray(z), _arange_model(dtype, first, diff, count, size))


def _glu_models(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GeGLU and SwiGLU (beta 1.5) in CANN's float steps, cast back once."""
    f = np.float32
    x, y = b.astype(f), a.astype(f)
    with np.errstate(all="ignore"):
        d = (x * x).astype(f)
        d = (d + f(2.2363860002236e1)).astype(f)
        d = (d * x).astype(f)
        d = (d * f(-0.0713548162726)).astype(f)
        d = np.exp(d.astype(np.float64)).astype(f)
        d = (d + f(1)).astype(f)
        gelu = (x / d).astype(f)
        e = np.exp((x * f(-1.5)).astype(f).astype(np.float64)).astype(f)
        swish = (x / (e + f(1)).astype(f)).astype(f)
    return (y * gelu).astype(a.dtype), (y * swish).astype(a.dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_geglu_and_swiglu_run_canns_float_steps(source: Path, dtype: str) -> None:
    """GeGLU.md / SwiGLU.md: src0 times gelu (tanh form) or swish of src1, in CANN's float
    steps, with and without sharedTmpBuffer and calCount."""
    rng = np.random.default_rng(40)
    a = (rng.standard_normal(N) * 2).astype(dtype)
    b = (rng.standard_normal(N) * 3).astype(dtype)
    geglu, swiglu = _glu_models(a, b)
    for mode in (17, 18):
        _ulps_close(_run(source, dtype, mode, a, b), geglu, dtype)
    for mode in (19, 20):
        _ulps_close(_run(source, dtype, mode, a, b), swiglu, dtype)


CUMSUM_KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;
constexpr CumSumConfig kConfig = {CUMSUM_LAST_AXIS, false, true};
extern "C" __global__ __aicore__ void cumsum_kernel(GM_ADDR x, GM_ADDR z, GM_ADDR last,
                                                    GM_ADDR workspace, GM_ADDR tiling)
{
    using T = DTYPE_X;
    constexpr uint32_t rows = 20, cols = 32;
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bz, bl, bt;
    pipe.InitBuffer(bx, rows * cols * sizeof(T));
    pipe.InitBuffer(bz, rows * cols * sizeof(T));
    pipe.InitBuffer(bl, cols * sizeof(T));
    pipe.InitBuffer(bt, rows * cols * sizeof(float) + 4096);
    GlobalTensor<T> xGm, zGm, lGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, rows * cols);
    zGm.SetGlobalBuffer((__gm__ T*)z, rows * cols);
    lGm.SetGlobalBuffer((__gm__ T*)last, cols);
    LocalTensor<T> src = bx.Get<T>(), dst = bz.Get<T>(), lastRow = bl.Get<T>();
    LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
    DataCopy(src, xGm, rows * cols);
    CumSum<T, kConfig>(dst, lastRow, src, tmp, CumSumInfo{rows, cols});
    DataCopy(zGm, dst, rows * cols);
    DataCopy(lGm, lastRow, cols);
}
"""


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("last_axis", [True, False])
def test_cumsum_adds_in_float_element_after_element(tmp_path: Path, dtype: str,
                                                    last_axis: bool) -> None:
    """CumSum.md: running sums along the last axis or down the first, accumulated in float one
    element after another as CANN's A2 implementation adds rows (half cast once each way); the
    implementation's final Adds of 0 turns a -0 into +0 where it has one; outputLastRow copies
    the last row."""
    src = tmp_path / "cumsum.cpp"
    src.write_text(CUMSUM_KERNEL)
    defines = {**rt.dtype_defines({"x": dtype}),
               "CUMSUM_LAST_AXIS": "true" if last_axis else "false"}
    lib = rt.build_kernel(src, entry="cumsum_kernel", defines=defines)
    rows, cols = 20, 32
    rng = np.random.default_rng(7)
    x = rt.gm_empty(rows * cols, dtype)
    x[:] = (rng.standard_normal(rows * cols) * 3).astype(dtype)
    x[0] = -0.0
    z, last = rt.gm_empty(rows * cols, dtype), rt.gm_empty(cols, dtype)
    rt.launch(lib, "cumsum_kernel", [x, z, last], block_dim=1, tiling=b"\0" * 8)
    acc = np.asarray(x).astype(np.float32).reshape(rows, cols)
    axis = 1 if last_axis else 0
    for k in range(1, acc.shape[axis]):
        if last_axis:
            acc[:, k] = (acc[:, k - 1] + acc[:, k]).astype(np.float32)
        else:
            acc[k] = (acc[k - 1] + acc[k]).astype(np.float32)
    want = acc.astype(dtype)
    plus_zero = last_axis or dtype == "float32"
    if plus_zero:
        want = want + np.dtype(dtype).type(0)
    got = np.asarray(z).reshape(rows, cols)
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got[0, 0]) == (not plus_zero)
    np.testing.assert_array_equal(np.asarray(last), want[-1] + np.dtype(dtype).type(0))
