"""FusedMulAdd (dst = src0 * dst + src1) and MulAddDst (dst = src0 * src1 + dst), the Ascend C
reference's formulas: the count, continuous-mask and bit-mask forms in float32 and float16
against numpy (the product and the sum rounded separately, half in float), MulAddDst's half
sources into a float dst, and misuse (other types, counts and repeats past the tensors, the
mixed-type mask forms) reported as a SimulatorError naming the API."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

N = 256

MUL_ADD_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct MulAddTilingData {
    int32_t mode;
    int32_t n;
};
REGISTER_TILING_DEFAULT(MulAddTilingData);

template <typename T>
__aicore__ inline void Body(GM_ADDR x, GM_ADDR y, GM_ADDR d, GM_ADDR z, int32_t mode, int32_t n)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA, bufB, bufC, bufF;
    pipe.InitBuffer(bufA, 256 * sizeof(T));
    pipe.InitBuffer(bufB, 256 * sizeof(T));
    pipe.InitBuffer(bufC, 256 * sizeof(T));
    pipe.InitBuffer(bufF, 256 * sizeof(float));
    GlobalTensor<T> xGm, yGm, dGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, 256);
    yGm.SetGlobalBuffer((__gm__ T*)y, 256);
    dGm.SetGlobalBuffer((__gm__ T*)d, 256);
    zGm.SetGlobalBuffer((__gm__ T*)z, 256);
    LocalTensor<T> a = bufA.template Get<T>(), b = bufB.template Get<T>(),
                   c = bufC.template Get<T>();
    DataCopy(a, xGm, 256);
    DataCopy(b, yGm, 256);
    DataCopy(c, dGm, 256);
    constexpr uint64_t lanes = 256 / sizeof(T);
    constexpr uint8_t reps = 256 / lanes;
    uint64_t bits[2] = {0x5555555555555555ULL, lanes > 64 ? 0xF0F0F0F0F0F0F0F0ULL : 0};
    if (mode == 1) FusedMulAdd(c, a, b, n);
    if (mode == 2) MulAddDst(c, a, b, n);
    if (mode == 3) FusedMulAdd(c, a, b, lanes, reps, {1, 1, 1, 8, 8, 8});
    if (mode == 4) MulAddDst(c, a, b, lanes, reps, {1, 1, 1, 8, 8, 8});
    if (mode == 5) FusedMulAdd(c, a, b, bits, reps, {1, 1, 1, 8, 8, 8});
    if (mode == 6) MulAddDst(c, a, b, bits, reps, {1, 1, 1, 8, 8, 8});
    if constexpr (std::is_same_v<T, half>) {
        if (mode == 7 || mode == 91) {  // half sources into a float dst
            LocalTensor<float> f = bufF.template Get<float>();
            Duplicate(f, 0.5f, 256);
            if (mode == 7) MulAddDst(f, a, b, 256);
            if (mode == 91) MulAddDst(f, a, b, (uint64_t)64, (uint8_t)4, {1, 1, 1, 8, 4, 4});
            Cast(c, f, RoundMode::CAST_RINT, 256);
        }
    }
    // rule violations
    if (mode == 90) FusedMulAdd(c, a, b, n);                          // n past the tensors
    if (mode == 92) MulAddDst(c, a, b, lanes, (uint8_t)(reps + 1), {1, 1, 1, 8, 8, 8});  // past
    DataCopy(zGm, c, 256);
}

extern "C" __global__ __aicore__ void mul_add(GM_ADDR x, GM_ADDR y, GM_ADDR d, GM_ADDR z,
                                              GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    Body<DTYPE_X>(x, y, d, z, t.mode, t.n);
}
"""

LAYOUT = rt.TilingLayout.from_fields("MulAddTilingData", [("mode", "int32_t"), ("n", "int32_t")])
RNG = np.random.default_rng(11)
_LIBS: dict[str, rt.KernelLibrary] = {}


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = Path(tmp_path_factory.mktemp("mul_add")) / "mul_add.cpp"
    src.write_text(MUL_ADD_CPP)
    return src


def run(source: Path, dtype: str, mode: int, x: np.ndarray, y: np.ndarray, d: np.ndarray,
        n: int = N) -> np.ndarray:
    if dtype not in _LIBS:
        _LIBS[dtype] = rt.build_kernel(source, entry="mul_add", defines=rt.dtype_defines(
            {"x": dtype, "y": dtype, "d": dtype, "z": dtype}))
    z = np.zeros(N, dtype)
    rt.launch(_LIBS[dtype], "mul_add", {"x": x, "y": y, "d": d, "z": z}, block_dim=1,
              tiling=LAYOUT.pack({"mode": mode, "n": n}))
    return z


def inputs(dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if dtype == "int16":
        x, y, d = (RNG.integers(-300, 300, N).astype(np.int16) for _ in range(3))
    else:
        x, y, d = (RNG.uniform(-3.0, 3.0, N).astype(dtype) for _ in range(3))
    return x, y, d


def mul_add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c as the simulator rounds it: each operation in float32 (half widened), the
    result rounded to the element type."""
    f = np.float32
    prod = a.astype(f) * b.astype(f)
    return (prod + c.astype(f)).astype(a.dtype)


def active(dtype: str, mode: int) -> np.ndarray:
    """The elements the mask of `mode` computes (the rest keep dst)."""
    lanes = 256 // np.dtype(dtype).itemsize
    if mode in (3, 4):
        return np.ones(N, bool)
    low = [(0x5555555555555555 >> k) & 1 == 1 for k in range(64)]
    high = [(0xF0F0F0F0F0F0F0F0 >> k) & 1 == 1 for k in range(64)] if lanes > 64 else []
    per_repeat = np.array((low + high)[:lanes])
    return np.tile(per_repeat, N // lanes)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", [1, 2, 3, 4, 5, 6])
def test_mul_add_matches_numpy(source: Path, dtype: str, mode: int) -> None:
    x, y, d = inputs(dtype)
    got = run(source, dtype, mode, x, y, d)
    fused = mode % 2 == 1  # FusedMulAdd: x * d + y; MulAddDst: x * y + d
    want = mul_add(x, d, y) if fused else mul_add(x, y, d)
    if mode in (5, 6):
        want = np.where(active(dtype, mode), want, d)
    np.testing.assert_array_equal(got, want)


def test_mul_add_dst_half_sources_into_float(source: Path) -> None:
    x, y, d = inputs("float16")
    got = run(source, "float16", 7, x, y, d)
    want = (x.astype(np.float32) * y.astype(np.float32) + np.float32(0.5)).astype(np.float16)
    np.testing.assert_array_equal(got, want)


def test_fused_mul_add_count_past_the_tensors(source: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    x, y, d = inputs("float32")
    with pytest.raises(rt.SimulatorError, match="FusedMulAdd"):
        run(source, "float32", 90, x, y, d, n=N + 8)


def test_mul_add_dst_mixed_mask_form_names_the_count_form(source: Path) -> None:
    x, y, d = inputs("float16")
    with pytest.raises(rt.SimulatorError, match=r"MulAddDst.*use the count form"):
        run(source, "float16", 91, x, y, d)


def test_mul_add_dst_repeats_past_the_tensor(source: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    x, y, d = inputs("float32")
    with pytest.raises(rt.SimulatorError, match="MulAddDst"):
        run(source, "float32", 92, x, y, d)


@pytest.mark.parametrize("mode", [1, 4])
def test_mul_add_other_types_are_errors(source: Path, mode: int) -> None:
    x, y, d = inputs("int16")
    api = "FusedMulAdd" if mode == 1 else "MulAddDst"
    with pytest.raises(rt.SimulatorError, match=rf"{api}.*int16_t.*not supported"):
        run(source, "int16", mode, x, y, d)


def special_inputs(dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Operands that reach every rounding case of the lanes: infinities, NaN, signed zeros,
    subnormals, products and sums that overflow the element type, and ordinary values."""
    info = np.finfo(dtype)
    pool = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, info.max, -info.max,
                     info.tiny, -info.tiny, info.smallest_subnormal, 3.0, 1e-3, 7.5, -0.25],
                    dtype)
    x, y, d = (np.concatenate([RNG.choice(pool, N // 2),
                               RNG.uniform(-300.0, 300.0, N // 2).astype(dtype)]) for _ in range(3))
    return x, y, d


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize("n", [1, 7, 8, 9, 15, 16, 17, 24, 31, 33, 131, 255, 256])
def test_mul_add_count_lanes_and_tails(source: Path, dtype: str, mode: int, n: int) -> None:
    """The count forms on any count (sixteen lanes a step with AVX-512, then eight, then the
    tail one by one): every
    element bit for bit as numpy rounds a * b + c, special values included; the elements past
    the count keep dst."""
    x, y, d = special_inputs(dtype)
    with np.errstate(all="ignore"):
        got = run(source, dtype, mode, x, y, d, n=n)
        want = mul_add(x, d, y) if mode == 1 else mul_add(x, y, d)
    want[n:] = d[n:]
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    bits = np.uint32 if dtype == "float32" else np.uint16
    np.testing.assert_array_equal(got[~nan].view(bits), want[~nan].view(bits))
