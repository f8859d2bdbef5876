"""More element-wise vector APIs (Axpy, Sigmoid, Tanh, And/Or/Not, Sin, Cos, Erf, Gelu family,
Silu, Power, Floor/Ceil/Round/Trunc, ShiftLeft/ShiftRight, Brcb): results against numpy in
float32 and float16 (int16/uint16/int32 for the integer APIs), and misuse reported as a
SimulatorError subclass naming the API."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

N = 256

MORE_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct MoreTilingData {
    int32_t mode;
    int32_t n;
};
REGISTER_TILING_DEFAULT(MoreTilingData);

// A template, so that `if constexpr` drops the branches of the other element types.
template <typename T>
__aicore__ inline void Body(GM_ADDR x, GM_ADDR y, GM_ADDR z, int32_t mode, int32_t n)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA, bufB, bufC, bufTmp;
    pipe.InitBuffer(bufA, 256 * sizeof(T));
    pipe.InitBuffer(bufB, 256 * sizeof(T));
    pipe.InitBuffer(bufC, 256 * sizeof(T));
    pipe.InitBuffer(bufTmp, 4096);
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
    constexpr uint64_t lanes = 256 / sizeof(T) > 128 ? 128 : 256 / sizeof(T);
    if constexpr (std::is_integral_v<T>) {
        if constexpr (sizeof(T) == 2) {
            uint64_t half[2] = {~0ULL, 0};
            if (mode == 1) And(c, a, b, n);
            if (mode == 2) Or(c, a, b, n);
            if (mode == 3) Not(c, a, n);
            if (mode == 4) And(c, a, b, lanes, 256 / lanes, {1, 1, 1, 8, 8, 8});
            if (mode == 5) Or(c, a, b, half, 256 / lanes, {1, 1, 1, 8, 8, 8});
            if (mode == 6) Not(c, a, lanes, 256 / lanes, {1, 1, 8, 8});
            if (mode == 7) ShiftLeft(c, a, (T)3, n);
            if (mode == 8) ShiftRight(c, a, (T)2, n);
        }
        if (mode == 9) Power(c, a, b, n);
        if (mode == 90) And(c, a, b, n);
    } else {
        const T s = (T)1.5f;
        if (mode == 1) Axpy(c, a, s, n);
        if (mode == 2) Axpy(c, a, s, tmp, n);
        if (mode == 3) Axpy(c, a, s, lanes, 256 / lanes, {1, 1, 8, 8});
        if (mode == 4) Sigmoid(c, a, tmp, n);
        if (mode == 5) Sigmoid(c, a);
        if (mode == 6) Tanh(c, a, tmp, n);
        if (mode == 7) Tanh(c, a, n);
        if (mode == 8) Sin(c, a, tmp);
        if (mode == 9) Cos(c, a, n);
        if (mode == 10) Erf(c, a, tmp, n);
        if (mode == 11) Gelu(c, a, tmp, n);
        if (mode == 12) FasterGelu(c, a, n);
        if (mode == 13) FasterGeluV2(c, a, tmp, n);
        if (mode == 14) Silu(c, a, n);
        if (mode == 15) Power(c, a, b, tmp, n);
        if (mode == 16) Power(c, a, (T)2.5f, n);
        if (mode == 17) Power(c, (T)1.25f, b, tmp, n);
        if (mode == 18) Floor(c, a, n);
        if (mode == 19) Ceil(c, a, tmp, n);
        if (mode == 20) Round(c, a, n);
        if (mode == 21) Trunc(c, a, tmp, n);
        if (mode == 22) Brcb(c, a, (uint8_t)(256 / (8 * (32 / sizeof(T)))), {1, 8});
        if (mode == 23) {                          // Axpy float16 src into float dst
            LocalTensor<half> ah = a.template ReinterpretCast<half>();
            LocalTensor<float> cf = bufTmp.template Get<float>();
            Duplicate(cf, 1.0f, 256);
            Axpy(cf, ah, (half)2.0f, 256);
            DataCopy(c, cf.template ReinterpretCast<T>(), 256);
        }
        // rule violations
        if (mode == 90) Sigmoid(c, a, tmp, n);                      // n past the tensors
        if (mode == 91) Tanh(c, a, bufTmp.template GetWithOffset<uint8_t>(32, 0), n);  // too small
        if (mode == 92) Sin(c, a, a.template ReinterpretCast<uint8_t>(), n);  // overlaps src
        if (mode == 93) Brcb(c, a, (uint8_t)5, {1, 8});             // dst too short
        if (mode == 94) Axpy(c, a, s, n);                           // n past the tensors
        if (mode == 95) Brcb(c, a[240], (uint8_t)4, {1, 8});        // src0 read on into b
    }
    DataCopy(zGm, c, 256);
}

extern "C" __global__ __aicore__ void more(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                           GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    Body<DTYPE_X>(x, y, z, t.mode, t.n);
}
"""

LAYOUT = rt.TilingLayout.from_fields("MoreTilingData", [("mode", "int32_t"), ("n", "int32_t")])
RNG = np.random.default_rng(5)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = Path(tmp_path_factory.mktemp("more")) / "more.cpp"
    src.write_text(MORE_CPP)
    return src


_LIBS: dict[str, rt.KernelLibrary] = {}


def lib_for(source: Path, dtype: str) -> rt.KernelLibrary:
    if dtype not in _LIBS:
        _LIBS[dtype] = rt.build_kernel(
            source, entry="more", defines=rt.dtype_defines({"x": dtype, "y": dtype, "z": dtype})
        )
    return _LIBS[dtype]


def run(
    source: Path, dtype: str, mode: int, x: np.ndarray, y: np.ndarray, n: int = N
) -> np.ndarray:
    z = np.zeros(N, dtype)
    rt.launch(
        lib_for(source, dtype),
        "more",
        {"x": x, "y": y, "z": z},
        block_dim=1,
        tiling=LAYOUT.pack({"mode": mode, "n": n}),
    )
    return z


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-v))


def _erf(v: np.ndarray) -> np.ndarray:
    import math

    return np.vectorize(math.erf)(v)


def _gelu(v: np.ndarray) -> np.ndarray:
    return v / (1 + np.exp(-1.59576912 * (v + 0.044715 * v**3)))


def _fgelu_v2(v: np.ndarray) -> np.ndarray:
    sgn = (v + 1e-12) / np.abs(v + 1e-12)
    c = np.minimum(np.abs(0.7071 * v), 1.769) - 1.769
    return v * (sgn * (-0.1444 * c * c + 0.5) + 0.5)


Ref = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]

# mode -> (reference on float64 copies of x, y and the initial dst (= y), positive inputs only)
FLOAT_CASES: dict[int, tuple[str, Ref, bool]] = {
    1: ("Axpy", lambda x, y, d: x * 1.5 + d, False),
    2: ("Axpy+tmp", lambda x, y, d: x * 1.5 + d, False),
    3: ("Axpy mask", lambda x, y, d: x * 1.5 + d, False),
    4: ("Sigmoid+tmp", lambda x, y, d: _sigmoid(x), False),
    5: ("Sigmoid whole", lambda x, y, d: _sigmoid(x), False),
    6: ("Tanh+tmp", lambda x, y, d: np.tanh(x), False),
    7: ("Tanh", lambda x, y, d: np.tanh(x), False),
    8: ("Sin whole+tmp", lambda x, y, d: np.sin(x), False),
    9: ("Cos", lambda x, y, d: np.cos(x), False),
    10: ("Erf+tmp", lambda x, y, d: _erf(x), False),
    11: ("Gelu+tmp", lambda x, y, d: _gelu(x), False),
    12: ("FasterGelu", lambda x, y, d: x / (1 + np.exp(-1.702 * x)), False),
    13: ("FasterGeluV2+tmp", lambda x, y, d: _fgelu_v2(x), False),
    14: ("Silu", lambda x, y, d: x * _sigmoid(x), False),
    15: ("Power tensor^tensor", lambda x, y, d: x**y, True),
    16: ("Power tensor^scalar", lambda x, y, d: x**2.5, True),
    17: ("Power scalar^tensor", lambda x, y, d: 1.25**y, True),
}


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", sorted(FLOAT_CASES))
def test_float_apis_match_numpy(source: Path, dtype: str, mode: int) -> None:
    name, ref, positive = FLOAT_CASES[mode]
    if positive:
        x = RNG.uniform(0.25, 2.0, N).astype(dtype)
        y = RNG.uniform(-2.0, 2.0, N).astype(dtype)
    else:
        x = RNG.uniform(-4.0, 4.0, N).astype(dtype)
        y = RNG.uniform(-4.0, 4.0, N).astype(dtype)
    z = run(source, dtype, mode, x, y)
    want = ref(x.astype(np.float64), y.astype(np.float64), y.astype(np.float64))
    if dtype == "float16":  # computed in float, rounded once: within one float16 ulp
        np.testing.assert_allclose(
            z.astype(np.float64), want, rtol=2**-10, atol=2**-14, err_msg=name
        )
    else:
        np.testing.assert_allclose(z.astype(np.float64), want, rtol=2e-6, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("mode", [1, 7, 14])
def test_float16_lanes_round_once(source: Path, mode: int) -> None:
    # each lane is computed in float and rounded once to float16: the correctly rounded result
    x = RNG.uniform(-4.0, 4.0, N).astype(np.float16)
    y = RNG.uniform(-4.0, 4.0, N).astype(np.float16)
    _, ref, _ = FLOAT_CASES[mode]
    z = run(source, "float16", mode, x, y)
    want = ref(x.astype(np.float64), y.astype(np.float64), y.astype(np.float64))
    np.testing.assert_array_equal(z, want.astype(np.float16))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize(
    ("mode", "ref"), [(18, np.floor), (19, np.ceil), (20, np.round), (21, np.trunc)]
)
def test_rounding_apis(source: Path, dtype: str, mode: int, ref: Callable) -> None:
    x = (RNG.integers(-40, 40, N) / 4).astype(dtype)  # includes exact .5 ties
    z = run(source, dtype, mode, x, x)
    np.testing.assert_array_equal(z, ref(x))  # np.round is half-to-even, as CANN's Round


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_brcb(source: Path, dtype: str) -> None:
    x = RNG.uniform(-4.0, 4.0, N).astype(dtype)
    z = run(source, dtype, 22, x, x)
    per_block = 32 // np.dtype(dtype).itemsize
    np.testing.assert_array_equal(z, np.repeat(x[: N // per_block], per_block))


def test_axpy_half_into_float(source: Path) -> None:
    xh = RNG.uniform(-4.0, 4.0, N).astype(np.float16)
    x = np.zeros(N, np.float32)
    x.view(np.float16)[:N] = xh
    z = run(source, "float32", 23, x, x)
    np.testing.assert_array_equal(z, xh.astype(np.float32) * 2 + 1)


@pytest.mark.parametrize("dtype", ["int16", "uint16"])
def test_bitwise_and_shift_apis(source: Path, dtype: str) -> None:
    info = np.iinfo(dtype)
    x = RNG.integers(info.min, info.max, N, endpoint=True).astype(dtype)
    y = RNG.integers(info.min, info.max, N, endpoint=True).astype(dtype)
    np.testing.assert_array_equal(run(source, dtype, 1, x, y), x & y)
    np.testing.assert_array_equal(run(source, dtype, 2, x, y), x | y)
    np.testing.assert_array_equal(run(source, dtype, 3, x, y), ~x)
    np.testing.assert_array_equal(run(source, dtype, 4, x, y), x & y)  # count mask
    lane = np.arange(N) % 128
    np.testing.assert_array_equal(
        run(source, dtype, 5, x, y),  # bit mask: lanes 0..63
        np.where(lane < 64, x | y, y),
    )
    np.testing.assert_array_equal(run(source, dtype, 6, x, y), ~x)
    np.testing.assert_array_equal(run(source, dtype, 7, x, y), (x << 3).astype(dtype))
    np.testing.assert_array_equal(run(source, dtype, 8, x, y), x >> 2)


def test_integer_power(source: Path) -> None:
    x = RNG.integers(-6, 6, N).astype(np.int32)
    y = RNG.integers(0, 7, N).astype(np.int32)
    np.testing.assert_array_equal(run(source, "int32", 9, x, y), x**y)


@pytest.mark.parametrize(
    ("mode", "n", "error", "text"),
    [
        (
            90,
            N + 1,
            rt.LocalMemoryOutOfBounds,
            "Sigmoid: dstTensor: count 257 exceeds the LocalTensor<float> of 256 elements",
        ),
        (
            91,
            N,
            rt.LocalMemoryOutOfBounds,
            "Tanh: sharedTmpBuffer holds 32 bytes; the simulator requires at least 256",
        ),
        (92, N, rt.SimulatorError, "Sin: sharedTmpBuffer (UB offset 0, 1024 bytes) overlaps"),
        (
            93,
            N,
            rt.LocalMemoryOutOfBounds,
            "Brcb: dst: 5 repeat(s) with dstBlkStride 1, dstRepStride 8 reach element 319",
        ),
        (
            94,
            N + 1,
            rt.LocalMemoryOutOfBounds,
            "Axpy: dst: count 257 exceeds the LocalTensor<float> of 256 elements",
        ),
    ],
)
def test_rule_violations(
    source: Path, mode: int, n: int, error: type[rt.SimulatorError], text: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    x = np.ones(N, np.float32)
    with pytest.raises(error) as info:
        run(source, "float32", mode, x, x, n=n)
    assert text in str(info.value)


def test_bitwise_count_past_the_tensor(source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    x = np.ones(N, np.int16)
    with pytest.raises(rt.LocalMemoryOutOfBounds, match="And: dst: count 300 exceeds"):
        run(source, "int16", 90, x, x, n=300)


def test_brcb_reads_past_src0_inside_the_unified_buffer(
        source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Brcb's repeats read on past src0 into what follows it in the Unified Buffer, as the NPU
    does (ops-nn's rms_norm passes its row count as repeatTime); strict mode holds them to src0."""
    x = np.arange(N, dtype=np.float32)
    y = -np.arange(N, dtype=np.float32)
    src = np.concatenate([x[240:], y[:16]])  # a's last 16 floats, then b's first
    np.testing.assert_array_equal(run(source, "float32", 95, x, y), np.repeat(src, 8))
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.LocalMemoryOutOfBounds,
                       match=r"Brcb: src0: 4 repeat\(s\) read 32 elements but the "
                             r"LocalTensor<float> has 16 \(strict mode\)"):
        run(source, "float32", 95, x, y)
