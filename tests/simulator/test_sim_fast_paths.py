"""The simulator's SIMD paths give bit-for-bit the results of a plain per-element model run in the
same kernel (same compiler, same libm), from UB and from a pending GM copy:

- Exp's SIMD lanes against its scalar definition (opgen_sim::exp_lanes::ExpF, docs/simulator.md,
  "Numerics"; half lanes in float rounded once), on random bit patterns, the edges of its fast
  range and of libm's expf past it, NaN, infinities, subnormals, tails of every length and
  in-place operands;
- Cast float -> half (RINT and NONE: to nearest even, +-inf and overflow -> +-65504, NaN -> 0)
  and half -> float (exact, NaN payloads kept), in place from the same start, and over
  overlapping operands where converting from the front reads every source first;
- Abs against `a < 0 ? -a : a + 0` (signed zeros, NaN signs and payloads, infinities);
- ReduceMax/ReduceMin (count form, with and without calIndex) against the scalar scan (NaN wins,
  the first of equal extremes, -0.0 and 0.0 equal) and ReduceSum against the pair tree of each
  256-byte repeat with the repeats added in order, each addition rounded to T (half saturating),
  with NaN, infinities, signed zeros, ties and tails.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

FAST_PATHS_CPP = r"""
#include <cmath>
#include "kernel_operator.h"
using namespace AscendC;
using opgen_sim::exp_lanes::ExpF;  // Exp's scalar definition

struct FastPathsTilingData {
    int32_t mode;
    int32_t n;
};
REGISTER_TILING_DEFAULT(FastPathsTilingData);

// the per-element models of the reductions
template <typename T>
__aicore__ inline void ModelExtreme(const LocalTensor<T>& d, const LocalTensor<T>& s,
                                    const LocalTensor<T>& w, int32_t n, bool index, bool max)
{
    int32_t best = 0;
    for (int32_t i = 1; i < n; ++i) {
        const float a = static_cast<float>(s.GetValue(i));
        const float b = static_cast<float>(s.GetValue(best));
        const bool better = std::isnan(b) ? false : std::isnan(a) ? true : (max ? a > b : a < b);
        if (better) best = i;
    }
    d.SetValue(0, s.GetValue(best));
    if (index) {
        if constexpr (sizeof(T) == 4) {
            d.template ReinterpretCast<uint32_t>().SetValue(1, static_cast<uint32_t>(best));
        } else {
            d.template ReinterpretCast<uint16_t>().SetValue(1, static_cast<uint16_t>(best));
        }
    }
    w.SetValue(0, s.GetValue(best));
}
// float -> half, rounding to nearest even and saturating: +-inf -> +-65504, NaN -> 0
__aicore__ inline half ModelToHalf(float f)
{
    if (std::isnan(f)) return static_cast<half>(0.0f);
    const float h = static_cast<float>(static_cast<half>(f));
    if (std::isinf(h)) return static_cast<half>(h > 0 ? 65504.0f : -65504.0f);
    return static_cast<half>(f);
}
template <typename T>
__aicore__ inline T ModelAdd(T a, T b)
{
    float sum = static_cast<float>(a) + static_cast<float>(b);
    if constexpr (sizeof(T) == 2) {
        sum = sum > 65504.0f ? 65504.0f : sum < -65504.0f ? -65504.0f : sum;
    }
    return static_cast<T>(sum);
}
template <typename T>
__aicore__ inline void ModelSum(const LocalTensor<T>& d, const LocalTensor<T>& s, int32_t n)
{
    constexpr int32_t per = 256 / sizeof(T);
    T lanes[per];
    T total = T(0);
    for (int32_t r = 0; r * per < n; ++r) {
        for (int32_t l = 0; l < per; ++l) {
            lanes[l] = r * per + l < n ? s.GetValue(r * per + l) : T(0);
        }
        for (int32_t w = per; w > 1; w /= 2) {
            for (int32_t i = 0; i < w / 2; ++i) lanes[i] = ModelAdd(lanes[2 * i], lanes[2 * i + 1]);
        }
        total = r == 0 ? lanes[0] : ModelAdd(total, lanes[0]);
    }
    d.SetValue(0, total);
}

extern "C" __global__ __aicore__ void fast_paths(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                                 GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    FastPathsTilingData t = tilingData;
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
    LocalTensor<half> wh = oh[1024];
    LocalTensor<float> wf = of[512];
    if (t.mode >= 30 && t.mode < 50) {  // the reductions on UB operands
        iff.GetValue(0);
        t.mode -= 20;
    }
    if (t.mode >= 160 && t.mode < 200) {  // the arithmetic on UB operands
        iff.GetValue(0);
        t.mode -= 100;
    }
    switch (t.mode) {
        // the reductions: dst at out[0], sharedTmpBuffer at out[2048]
        case 10: ReduceMax(of, iff, wf, n, false); break;
        case 11: ReduceMax(of, iff, wf, n, true); break;
        case 12: ReduceMin(of, iff, wf, n, false); break;
        case 13: ReduceMin(of, iff, wf, n, true); break;
        case 14: ReduceMax(oh, ih, wh, n, false); break;
        case 15: ReduceMax(oh, ih, wh, n, true); break;
        case 16: ReduceMin(oh, ih, wh, n, false); break;
        case 17: ReduceMin(oh, ih, wh, n, true); break;
        case 18: ReduceSum(of, iff, wf, n); break;
        case 19: ReduceSum(oh, ih, wh, n); break;
        case 20: Cast(oh, iff, RoundMode::CAST_RINT, n); break;
        case 21: Cast(of, ih, RoundMode::CAST_NONE, n); break;
        case 22: Cast(oh, iff, RoundMode::CAST_NONE, n); break;
        case 23: iff.GetValue(0); Cast(ih, iff, RoundMode::CAST_RINT, n); result = in; break;
        // overlapping operands in the UB: halves in the upper half of the floats widened in place
        // (ops-nn's layer_norm_v4; the source at n rounded down to 16 halves, a 32-byte
        // boundary), the source 32 bytes short of that, and floats narrowed onto the UB 32 bytes
        // before them
        case 26:
            ih.GetValue(0);
            Cast(iff, ih[n & ~15], RoundMode::CAST_NONE, n);
            result = in;
            break;
        case 27:
            ih.GetValue(0);
            Cast(iff, ih[(n & ~15) - 16], RoundMode::CAST_NONE, n);
            result = in;
            break;
        case 28: iff.GetValue(0); Cast(ih, iff[8], RoundMode::CAST_RINT, n); result = in; break;
        case 126:
            for (int32_t i = 0; i < n; ++i) {
                iff.SetValue(i, static_cast<float>(ih.GetValue((n & ~15) + i)));
            }
            result = in;
            break;
        case 127:
            for (int32_t i = 0; i < n; ++i) {
                iff.SetValue(i, static_cast<float>(ih.GetValue((n & ~15) - 16 + i)));
            }
            result = in;
            break;
        case 128:
            for (int32_t i = 0; i < n; ++i) ih.SetValue(i, ModelToHalf(iff.GetValue(8 + i)));
            result = in;
            break;
        case 120:
            for (int32_t i = 0; i < n; ++i) oh.SetValue(i, ModelToHalf(iff.GetValue(i)));
            break;
        case 121:
            for (int32_t i = 0; i < n; ++i) of.SetValue(i, static_cast<float>(ih.GetValue(i)));
            break;
        case 123:
            for (int32_t i = 0; i < n; ++i) ih.SetValue(i, ModelToHalf(iff.GetValue(i)));
            result = in;
            break;
        // Sqrt: from a pending copy, on UB operands, and the per-element model
        case 50: Sqrt(of, iff, n); break;
        case 51: iff.GetValue(0); Sqrt(of, iff, n); break;
        case 52: Sqrt(oh, ih, n); break;
        case 53: ih.GetValue(0); Sqrt(oh, ih, n); break;
        case 150:
            for (int32_t i = 0; i < n; ++i) of.SetValue(i, std::sqrt(iff.GetValue(i)));
            break;
        case 152:
            for (int32_t i = 0; i < n; ++i) {
                oh.SetValue(i, static_cast<half>(std::sqrt(static_cast<float>(ih.GetValue(i)))));
            }
            break;
        case 24: Abs(of, iff, n); break;
        case 25: Abs(oh, ih, n); break;
        case 124:
            for (int32_t i = 0; i < n; ++i) {
                const float a = iff.GetValue(i);
                of.SetValue(i, a < 0 ? -a : a + 0);
            }
            break;
        case 125:
            for (int32_t i = 0; i < n; ++i) {
                const float a = static_cast<float>(ih.GetValue(i));
                oh.SetValue(i, static_cast<half>(a < 0 ? -a : a + 0));
            }
            break;
        case 110: ModelExtreme(of, iff, wf, n, false, true); break;
        case 111: ModelExtreme(of, iff, wf, n, true, true); break;
        case 112: ModelExtreme(of, iff, wf, n, false, false); break;
        case 113: ModelExtreme(of, iff, wf, n, true, false); break;
        case 114: ModelExtreme(oh, ih, wh, n, false, true); break;
        case 115: ModelExtreme(oh, ih, wh, n, true, true); break;
        case 116: ModelExtreme(oh, ih, wh, n, false, false); break;
        case 117: ModelExtreme(oh, ih, wh, n, true, false); break;
        case 118: ModelSum(of, iff, n); break;
        case 119: ModelSum(oh, ih, n); break;
        // the element-wise arithmetic (eight float lanes a step with AVX): src0 = in[0, n), src1
        // = in[16 KiB, 16 KiB + n) (as T); 60-70 float, 80-90 half, +100: on UB operands
        case 60: Add(of, iff, iff[4096], n); break;
        case 61: Sub(of, iff, iff[4096], n); break;
        case 62: Mul(of, iff, iff[4096], n); break;
        case 63: Div(of, iff, iff[4096], n); break;
        case 64: Max(of, iff, iff[4096], n); break;
        case 65: Min(of, iff, iff[4096], n); break;
        case 66: Adds(of, iff, 1.5f, n); break;
        case 67: Muls(of, iff, -0.75f, n); break;
        case 68: Maxs(of, iff, 0.5f, n); break;
        case 69: Mins(of, iff, 0.5f, n); break;
        case 70: LeakyRelu(of, iff, 0.1f, n); break;
        case 80: Add(oh, ih, ih[8192], n); break;
        case 81: Sub(oh, ih, ih[8192], n); break;
        case 82: Mul(oh, ih, ih[8192], n); break;
        case 83: Div(oh, ih, ih[8192], n); break;
        case 84: Max(oh, ih, ih[8192], n); break;
        case 85: Min(oh, ih, ih[8192], n); break;
        case 86: Adds(oh, ih, static_cast<half>(1.5f), n); break;
        case 87: Muls(oh, ih, static_cast<half>(-0.75f), n); break;
        case 88: Maxs(oh, ih, static_cast<half>(0.5f), n); break;
        case 89: Mins(oh, ih, static_cast<half>(0.5f), n); break;
        case 90: LeakyRelu(oh, ih, static_cast<half>(0.1f), n); break;
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
            for (int32_t i = 0; i < n; ++i) of.SetValue(i, ExpF(iff.GetValue(i)));
            break;
        case 101:
            for (int32_t i = 0; i < n; ++i) {
                oh.SetValue(i, static_cast<half>(ExpF(static_cast<float>(ih.GetValue(i)))));
            }
            break;
        case 104:
            for (int32_t i = 0; i < n; ++i) iff.SetValue(i, ExpF(iff.GetValue(i)));
            result = in;
            break;
        case 105:
            for (int32_t i = 0; i < n; ++i) {
                ih.SetValue(i, static_cast<half>(ExpF(static_cast<float>(ih.GetValue(i)))));
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
    """Random bit patterns, the range where Exp computes, the edges of its fast range (|x| <= 87)
    and of libm's special cases past it, and NaN/inf/zero/subnormal values."""
    count = BYTES // 4
    bits = RNG.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32).copy()
    x[: count // 2] = RNG.uniform(-105.0, 90.0, count // 2).astype(np.float32)
    edges = np.array(
        [88.0, -88.0, 88.72283, 88.72284, -103.27893, -103.97208, -104.0, 0.0, -0.0, 1.0, -1.0,
         np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38],
        np.float32,
    )
    special = np.array([0x42AE0000, 0x42AE0001, 0xC2AE0000, 0xC2AE0001, 0x7FC00001, 0xFF800001,
                        0x42AFFFFF, 0x42B00000], np.uint32).view(np.float32)
    near = np.nextafter(np.repeat(np.array([88.0, -88.0, 87.0, -87.0], np.float32), 8),
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
def test_float_exp_lanes_equal_the_scalar_definition(lib: rt.KernelLibrary, mode: int, model: int,
                                                     n: int) -> None:
    x = float_inputs()
    init = RNG.standard_normal(BYTES // 4).astype(np.float32)
    if n >= 3:
        x[n - 3 : n] = [np.nan, 88.5, -0.5]  # special cases in the tail
    assert run(lib, mode, x, n, init) == run(lib, model, x, n, init)


@pytest.mark.parametrize("n", [16384, 16383, 16381, 100, 5, 1])
@pytest.mark.parametrize(("mode", "model"), [(1, 101), (3, 101), (5, 105)])
def test_half_exp_lanes_equal_the_scalar_definition_rounded_once(lib: rt.KernelLibrary, mode: int,
                                                                 model: int, n: int) -> None:
    init = RNG.standard_normal(BYTES // 2).astype(np.float16)
    for chunk in range(4) if n == 16384 else range(1):
        x = half_inputs(chunk)
        assert run(lib, mode, x, n, init) == run(lib, model, x, n, init)


def reduce_inputs(kind: str, dtype: type[np.floating], count: int) -> np.ndarray:
    """Values of one kind for the reductions: normal values, with NaNs, signed zeros only, many
    equal extremes, infinities, or large values whose half sums saturate."""
    x = RNG.standard_normal(count).astype(dtype)
    if kind == "nan":
        x[RNG.integers(0, count, 3)] = np.nan
    elif kind == "zeros":
        x[:] = 0.0
        x[RNG.integers(0, count, count // 3)] = -0.0
        x[count // 2] = -0.0
    elif kind == "ties":
        x = RNG.integers(-3, 4, count).astype(dtype)
    elif kind == "inf":
        x[RNG.integers(0, count, 4)] = np.inf
        x[RNG.integers(0, count, 4)] = -np.inf
    elif kind == "large":
        x = RNG.uniform(-60000, 60000, count).astype(dtype)
    return x


KINDS = ["normal", "nan", "zeros", "ties", "inf", "large"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [8192, 8191, 4100, 1000, 67, 5, 4, 3, 1])
@pytest.mark.parametrize("ub", [False, True])
def test_float_reductions_equal_the_models(lib: rt.KernelLibrary, kind: str, n: int,
                                           ub: bool) -> None:
    x = reduce_inputs(kind, np.float32, BYTES // 4)
    x[n:] = 1e30  # past the count: must not count
    init = RNG.standard_normal(BYTES // 4).astype(np.float32)
    for mode in range(10, 14):
        assert run(lib, mode + 20 * ub, x, n, init) == run(lib, mode + 100, x, n, init), mode
    if kind != "large":
        assert run(lib, 18 + 20 * ub, x, n, init) == run(lib, 118, x, n, init)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [16384, 16383, 4100, 1000, 131, 5, 4, 3, 1])
@pytest.mark.parametrize("ub", [False, True])
def test_half_reductions_equal_the_models(lib: rt.KernelLibrary, kind: str, n: int,
                                          ub: bool) -> None:
    x = reduce_inputs(kind, np.float16, BYTES // 2)
    x[n:] = 60000.0
    init = RNG.standard_normal(BYTES // 2).astype(np.float16)
    for mode in range(14, 18):
        assert run(lib, mode + 20 * ub, x, n, init) == run(lib, mode + 100, x, n, init), mode
    assert run(lib, 19 + 20 * ub, x, n, init) == run(lib, 119, x, n, init)


@pytest.mark.parametrize("n", [8192, 8191, 8184, 4100, 17, 9, 8, 7, 1])
@pytest.mark.parametrize("ub", [False, True])
def test_float_to_half_cast_lanes_equal_the_model(lib: rt.KernelLibrary, n: int, ub: bool) -> None:
    x = float_inputs()
    x[: BYTES // 8] = RNG.uniform(-70000, 70000, BYTES // 8).astype(np.float32)
    x[BYTES // 8 : BYTES // 8 + 8] = [65504.0, 65519.0, 65520.0, -65520.0, 1e-8, 6e-8, -3e-8, 2e-7]
    RNG.shuffle(x[: n])
    init = RNG.standard_normal(BYTES // 2).astype(np.float16)
    for mode in (20, 22):
        assert run(lib, mode + 20 * ub, x, n, init) == run(lib, 120, x, n, init), mode
    if n <= BYTES // 8:  # in place: the halves fit in the first half of the floats
        assert run(lib, 23, x, n, init) == run(lib, 123, x, n, init)


@pytest.mark.parametrize("n", [16384, 16383, 16376, 100, 9, 8, 7, 1])
@pytest.mark.parametrize("ub", [False, True])
def test_half_to_float_cast_lanes_equal_the_model(lib: rt.KernelLibrary, n: int, ub: bool) -> None:
    init = RNG.standard_normal(BYTES // 4).astype(np.float32)
    for chunk in range(4):
        x = half_inputs(chunk)
        m = min(n, BYTES // 8)  # the floats fill the output
        assert run(lib, 21 + 20 * ub, x, m, init) == run(lib, 121, x, m, init)


@pytest.mark.parametrize("n", [8192, 8191, 4112, 4100, 100, 32, 17, 16])
def test_overlapping_casts_equal_the_per_element_model(lib: rt.KernelLibrary, n: int) -> None:
    """A Cast whose operands overlap in the UB gives what converting element by element from
    the front gives: the lanes take it when the source starts at or after dst and no write
    overtakes the part still to be read (halves in the upper half of their floats widened in
    place, floats narrowed onto the bytes before them), the per-element loop otherwise (a source
    32 bytes short of that, or a count past the upper half: their last elements are overwritten
    before they are read)."""
    init = RNG.standard_normal(BYTES // 4).astype(np.float32)
    for chunk in range(4):
        halves = half_inputs(chunk)
        assert run(lib, 26, halves, n, init) == run(lib, 126, halves, n, init), chunk
        assert run(lib, 27, halves, n, init) == run(lib, 127, halves, n, init), chunk
    floats = float_inputs()
    floats[: BYTES // 8] = RNG.uniform(-70000, 70000, BYTES // 8).astype(np.float32)
    m = min(n, BYTES // 4 - 8)
    assert run(lib, 28, floats, m, init) == run(lib, 128, floats, m, init)
    if n % 16 == 0:  # the widened halves are the source's, converted exactly (NaN as NaN)
        widened = np.frombuffer(run(lib, 26, halves, n, init)[: 4 * n], np.float32)
        expect = halves[n : 2 * n].astype(np.float32)
        assert np.array_equal(widened, expect, equal_nan=True)


@pytest.mark.parametrize("n", [8192, 8191, 4096, 4100, 17, 5, 1])
def test_sqrt_lanes_equal_the_model(lib: rt.KernelLibrary, n: int) -> None:
    """Sqrt on sixteen lanes (spans up to 16 KiB), eight (longer) and four, from GM and from
    the UB: sqrtps is correctly rounded, so every lane equals sqrtf, negative numbers, NaN
    payloads, infinities and subnormals included; half lanes in float, rounded once."""
    init = RNG.standard_normal(BYTES // 4).astype(np.float32)
    x = float_inputs()
    x[: n // 2] = np.abs(x[: n // 2])  # half the values in sqrt's domain, the rest anything
    for mode in (50, 51):
        assert run(lib, mode, x, n, init) == run(lib, 150, x, n, init), mode
    halves = half_inputs(1)
    m = min(n, BYTES // 2)
    for mode in (52, 53):
        assert run(lib, mode, halves, m, init) == run(lib, 152, halves, m, init), mode


@pytest.mark.parametrize("n", [8192, 8191, 5, 1])
@pytest.mark.parametrize("ub", [False, True])
def test_abs_lanes_equal_the_model(lib: rt.KernelLibrary, n: int, ub: bool) -> None:
    x = float_inputs()
    x[:8] = np.array([0x80000000, 0x7FC00001, 0xFFC00002, 0x7F800001, 0xFF800003, 0xFF800000,
                      0x00000001, 0x80000001], np.uint32).view(np.float32)
    init = RNG.standard_normal(BYTES // 4).astype(np.float32)
    assert run(lib, 24 + 20 * ub, x, n, init) == run(lib, 124, x, n, init)
    h = half_inputs(0)
    assert run(lib, 25 + 20 * ub, h, n, init) == run(lib, 125, h, n, init)


WARNINGS_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;
template <typename T>
void Use(const LocalTensor<T>& a, const LocalTensor<float>& f, const LocalTensor<T>& w)
{
    Exp(a, a, 100);
    Abs(a, a, 100);
    Adds(a, a, static_cast<T>(1), 100);
    Muls(a, a, static_cast<T>(2), 100);
    Add(a, a, w, 100);
    Mul(a, a, w, 100);
    Cast(f, a, RoundMode::CAST_NONE, 100);
    ReduceMax(a, a, w, 100, true);
    ReduceMin(a, a, w, 100, false);
    ReduceSum(a, a, w, 100);
}
using F = LocalTensor<float>;
using H = LocalTensor<half>;
template void Use<float>(const F&, const F&, const F&);
template void Use<half>(const H&, const F&, const H&);
"""


@pytest.mark.parametrize("opt", ["-O1", "-O2", "-O3"])
def test_lanes_build_clean_with_warnings_as_errors(tmp_path: Path, opt: str) -> None:
    src = tmp_path / "use.cpp"
    src.write_text(WARNINGS_CPP)
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", opt, "-fPIC", "-c",
                    "-DASCENDC_CPU_DEBUG=1", f"-I{rt.include_dir()}", str(src), "-o",
                    str(tmp_path / "use.o")], check=True)


ARITH = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Adds", "Muls", "Maxs", "Mins", "LeakyRelu"]


def arith_model(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The lane expressions of vector.h in numpy, computed in float32 (a half lane computes in
    float and rounds once)."""
    f = np.float32
    with np.errstate(all="ignore"):
        return {
            "Add": lambda: a + b, "Sub": lambda: a - b, "Mul": lambda: a * b,
            "Div": lambda: a / b, "Max": lambda: np.where(a > b, a, b),
            "Min": lambda: np.where(a < b, a, b), "Adds": lambda: a + f(1.5),
            "Muls": lambda: a * f(-0.75), "Maxs": lambda: np.where(a > f(0.5), a, f(0.5)),
            "Mins": lambda: np.where(a < f(0.5), a, f(0.5)),
            "LeakyRelu": lambda: np.where(a >= 0, a, a * f(0.1)),
        }[op]()


def same_bits_but_nan_payloads(got: np.ndarray, want: np.ndarray) -> None:
    """Equal bit for bit, except that a NaN may carry either operand's payload."""
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    bits = {2: np.uint16, 4: np.uint32}[got.itemsize]
    np.testing.assert_array_equal(got[~nan].view(bits), want[~nan].view(bits))


@pytest.mark.parametrize("n", [4096, 4095, 4089, 17, 9, 8, 7, 1])
@pytest.mark.parametrize("ub", [False, True])
@pytest.mark.parametrize("op", ARITH)
def test_float_arithmetic_lanes_equal_the_model(lib: rt.KernelLibrary, op: str, n: int,
                                                ub: bool) -> None:
    x = float_inputs()
    x[:64] = np.array([np.nan, 1.0, -0.0, 0.0, np.inf, -np.inf, 3.0, -2.0] * 8, np.float32)
    x[4096:4096 + 64] = np.array([1.0, np.nan, 0.0, -0.0, -np.inf, np.inf, 0.0, -0.0] * 8,
                                 np.float32)
    got = np.frombuffer(run(lib, 60 + ARITH.index(op) + (100 if ub else 0), x, n,
                            np.zeros(1, np.float32)), np.float32)[:n]
    same_bits_but_nan_payloads(got, arith_model(op, x[:n], x[4096:4096 + n]))


@pytest.mark.parametrize("n", [8192, 8191, 8185, 17, 9, 8, 7, 1])
@pytest.mark.parametrize("ub", [False, True])
@pytest.mark.parametrize("op", ARITH)
def test_half_arithmetic_lanes_equal_the_model(lib: rt.KernelLibrary, op: str, n: int,
                                               ub: bool) -> None:
    x = half_inputs(1)
    got = np.frombuffer(run(lib, 80 + ARITH.index(op) + (100 if ub else 0), x, n,
                            np.zeros(1, np.float16)), np.float16)[:n]
    a, b = x[:n].astype(np.float32), x[8192:8192 + n].astype(np.float32)
    if op in ("Adds", "Muls", "Maxs", "Mins", "LeakyRelu"):  # the scalar is a half
        scalar = {"Adds": 1.5, "Muls": -0.75, "Maxs": 0.5, "Mins": 0.5, "LeakyRelu": 0.1}[op]
        want = arith_model(op, a, b)
        if op == "LeakyRelu":
            with np.errstate(all="ignore"):
                want = np.where(a >= 0, a, a * np.float32(np.float16(scalar)))
    else:
        want = arith_model(op, a, b)
    with np.errstate(all="ignore"):  # overflow to inf, as the lanes round
        want = want.astype(np.float16)
    same_bits_but_nan_payloads(got, want)


# Half spans past 16 KiB (a tile of 12,000 halves, as the example ops' tiles are): the sixteen-lane
# map runs over the whole span, on UB operands and in a deferred program straight from GM, with the
# same lanes as the shorter spans above.
LONG_HALF_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct LongHalfTilingData {
    int32_t mode;  // 0: LeakyRelu on UB; 1: Add on UB; 2, 3: the same, deferred (copy in, op, out)
    int32_t n;
};
REGISTER_TILING_DEFAULT(LongHalfTilingData);

extern "C" __global__ __aicore__ void long_half(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR ws,
                                                GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA, bufB, bufC;
    pipe.InitBuffer(bufA, t.n * sizeof(half));
    pipe.InitBuffer(bufB, t.n * sizeof(half));
    pipe.InitBuffer(bufC, t.n * sizeof(half));
    GlobalTensor<half> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, t.n);
    yGm.SetGlobalBuffer((__gm__ half*)y, t.n);
    zGm.SetGlobalBuffer((__gm__ half*)z, t.n);
    LocalTensor<half> a = bufA.Get<half>(), b = bufB.Get<half>(), c = bufC.Get<half>();
    DataCopy(a, xGm, t.n);
    DataCopy(b, yGm, t.n);
    if (t.mode < 2) {  // the UB operands read once by the scalar unit: applied, not deferred
        (void)a.GetValue(0);
        (void)b.GetValue(0);
    }
    if (t.mode % 2 == 0) {
        LeakyRelu(c, a, static_cast<half>(0.1f), t.n);
    } else {
        Add(c, a, b, t.n);
    }
    event_t e = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));
    SetFlag<HardEvent::V_MTE3>(e);
    WaitFlag<HardEvent::V_MTE3>(e);
    DataCopy(zGm, c, t.n);
}
"""


@pytest.fixture(scope="module")
def long_half(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("long_half")) / "long_half.cpp"
    src.write_text(LONG_HALF_CPP)
    return rt.build_kernel(src, entry="long_half")


@pytest.mark.parametrize("n", [12000, 12016, 8208])
@pytest.mark.parametrize("mode", [0, 1, 2, 3], ids=["leaky-ub", "add-ub", "leaky-gm", "add-gm"])
def test_long_half_spans_equal_the_model(long_half: rt.KernelLibrary, mode: int, n: int) -> None:
    h = RNG.integers(0, 1 << 16, 2 * n, dtype=np.uint16).view(np.float16)  # any bits
    x, y = h[:n].copy(), h[n:].copy()
    z = np.zeros(n, np.float16)
    rt.launch(long_half, "long_half", [x, y, z], block_dim=1,
              tiling=np.array([mode, n], np.int32).tobytes())
    a, b = x.astype(np.float32), y.astype(np.float32)
    with np.errstate(all="ignore"):
        if mode % 2 == 0:
            want = np.where(a >= 0, a, a * np.float32(np.float16(0.1))).astype(np.float16)
        else:
            want = arith_model("Add", a, b).astype(np.float16)
    same_bits_but_nan_payloads(z, want)
