"""Cast's mask/repeat forms and SetDeqScale, as the Ascend C API reference gives them ("Cast":
a repeat holds 256 bytes of the wider type, the mask counts its lanes, each operand steps with
its own UnaryRepeatParams strides; "SetDeqScale": an int32_t -> half Cast yields src * scale).
Expected values come from numpy, independently of the simulator's conversion code."""

from __future__ import annotations

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct CastFormsTiling {
    int32_t mode;
    float scale;
};
REGISTER_TILING_DEFAULT(CastFormsTiling);

extern "C" __global__ __aicore__ void cast_forms(GM_ADDR x, GM_ADDR xi, GM_ADDR yh, GM_ADDR yi,
                                                 GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<QuePosition::VECCALC> bx, bxi, bh, bi;
    pipe.InitBuffer(bx, 512 * 4);
    pipe.InitBuffer(bxi, 512 * 4);
    pipe.InitBuffer(bh, 512 * 2);
    pipe.InitBuffer(bi, 512 * 4);
    GlobalTensor<half> xHalf;    // x as 512 halves (the first 1024 bytes)
    GlobalTensor<float> xFloat;  // x as 512 floats
    GlobalTensor<int32_t> xInt, yInt;
    GlobalTensor<half> yHalf;
    xHalf.SetGlobalBuffer((__gm__ half*)x, 512);
    xFloat.SetGlobalBuffer((__gm__ float*)x, 512);
    xInt.SetGlobalBuffer((__gm__ int32_t*)xi, 512);
    yHalf.SetGlobalBuffer((__gm__ half*)yh, 512);
    yInt.SetGlobalBuffer((__gm__ int32_t*)yi, 512);
    LocalTensor<half> h = bh.Get<half>();
    LocalTensor<int32_t> i32 = bi.Get<int32_t>();
    LocalTensor<float> f = bx.Get<float>();
    LocalTensor<int32_t> srcInt = bxi.Get<int32_t>();
    if (t.mode == 1) {            // half -> int32, count mask 64, 8 repeats (the reference)
        DataCopy(h, xHalf, 512);
        DataCopy(i32, yInt, 512);
        Cast(i32, h, RoundMode::CAST_CEIL, (uint64_t)64, 8, {1, 1, 8, 4});
        DataCopy(yInt, i32, 512);
    } else if (t.mode == 2) {     // the first 32 lanes of each repeat only
        DataCopy(h, xHalf, 512);
        DataCopy(i32, yInt, 512);
        Cast(i32, h, RoundMode::CAST_FLOOR, (uint64_t)32, 8, {1, 1, 8, 4});
        DataCopy(yInt, i32, 512);
    } else if (t.mode == 3) {     // float -> half, bit mask, every other lane, 4 repeats
        DataCopy(f, xFloat, 256);
        DataCopy(h, yHalf, 256);
        uint64_t mask[2] = {0x5555555555555555ull, 0};
        Cast(h, f, RoundMode::CAST_RINT, mask, 4, {1, 1, 4, 8});
        DataCopy(yHalf, h, 256);
    } else if (t.mode == 4) {     // int32 -> half with SetDeqScale, count form
        DataCopy(srcInt, xInt, 512);
        SetDeqScale(static_cast<half>(t.scale));
        Cast(h, srcInt, RoundMode::CAST_NONE, 512);
        DataCopy(yHalf, h, 512);
    } else if (t.mode == 5) {     // int32 -> half with SetDeqScale, mask form
        DataCopy(srcInt, xInt, 512);
        SetDeqScale(static_cast<half>(t.scale));
        Cast(h, srcInt, RoundMode::CAST_NONE, (uint64_t)64, 8, {1, 1, 4, 8});
        DataCopy(yHalf, h, 512);
    } else if (t.mode == 6) {     // a mask past the 64 lanes of an int32 repeat
        Cast(i32, h, RoundMode::CAST_CEIL, (uint64_t)65, 1, {1, 1, 8, 4});
    } else if (t.mode == 7) {     // 9 repeats of 64 int32 lanes do not fit 512 elements
        Cast(i32, h, RoundMode::CAST_CEIL, (uint64_t)64, 9, {1, 1, 8, 4});
    }
}
"""

LAYOUT = rt.TilingLayout.from_fields("CastFormsTiling", [("mode", "int32_t"), ("scale", "float")])


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = tmp_path_factory.mktemp("cast_forms") / "cast_forms.cpp"
    src.write_text(KERNEL)
    return rt.build_kernel(src, entry="cast_forms")


def run(lib: rt.KernelLibrary, mode: int, x: np.ndarray, xi: np.ndarray, *,
        scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    gx = rt.gm_empty(512, np.float32)
    gx.view(np.uint8)[...] = 0
    raw = x.view(np.uint8)
    gx.view(np.uint8)[:raw.size] = raw
    gxi = rt.gm_empty(512, np.int32)
    gxi[...] = xi
    yh = rt.gm_empty(512, np.float16)
    yh[...] = np.float16(-7.0)  # lanes the mask leaves out keep it
    yi = rt.gm_empty(512, np.int32)
    yi[...] = -7
    rt.launch(lib, "cast_forms", [gx, gxi, yh, yi], block_dim=1,
              tiling=LAYOUT.pack({"mode": mode, "scale": scale}))
    return np.array(yh), np.array(yi)


def halves() -> np.ndarray:
    rng = np.random.default_rng(5)
    return (rng.integers(-400, 400, 512) / 4).astype(np.float16)  # .25 steps, exact in half


def test_count_mask_converts_every_lane_of_every_repeat(lib: rt.KernelLibrary) -> None:
    x = halves()
    _, yi = run(lib, 1, x, np.zeros(512, np.int32))
    np.testing.assert_array_equal(yi, np.ceil(x.astype(np.float64)).astype(np.int32))


def test_count_mask_below_the_lanes_leaves_the_rest(lib: rt.KernelLibrary) -> None:
    x = halves()
    _, yi = run(lib, 2, x, np.zeros(512, np.int32))
    lane = np.arange(512) % 64
    want = np.where(lane < 32, np.floor(x.astype(np.float64)), -7).astype(np.int32)
    np.testing.assert_array_equal(yi, want)


def test_bit_mask_with_strides_per_operand(lib: rt.KernelLibrary) -> None:
    rng = np.random.default_rng(6)
    x = rng.normal(0, 1000, 512).astype(np.float32)
    x[:4] = [70000.0, -1e30, 0.5 + 2.0**-12, 65519.0]  # saturating, and rounding cases
    yh, _ = run(lib, 3, x, np.zeros(512, np.int32))
    lane = np.arange(256) % 64
    with np.errstate(over="ignore"):
        conv = np.clip(x[:256], -65504, 65504).astype(np.float16)
    want = np.where(lane % 2 == 0, conv, np.float16(-7.0))
    np.testing.assert_array_equal(yh[:256], want)
    np.testing.assert_array_equal(yh[256:], np.float16(-7.0))


@pytest.mark.parametrize("mode", [4, 5])
@pytest.mark.parametrize("scale", [1.0, 0.5, 0.0999755859375, -3.0])
def test_int32_to_half_multiplies_by_the_deq_scale(lib: rt.KernelLibrary, mode: int,
                                                   scale: float) -> None:
    rng = np.random.default_rng(7)
    xi = rng.integers(-(2**31), 2**31 - 1, 512, dtype=np.int64).astype(np.int32)
    xi[:6] = [3, -3, 2049, 2**20 + 1, 30000, 2**31 - 1]
    yh, _ = run(lib, mode, np.zeros(1, np.float32), xi, scale=scale)
    # the exact product, rounded once to half (to nearest even), saturating at +-65504
    exact = xi.astype(np.float64) * np.float64(np.float16(scale))
    want = np.clip(exact, -65504, 65504).astype(np.float16)
    np.testing.assert_array_equal(yh, want)


@pytest.mark.parametrize(("mode", "error", "text"), [
    (6, rt.VectorCountError, "Cast: mask 65 is outside [1, 64] for int32_t"),
    (7, rt.LocalMemoryOutOfBounds, "Cast: dst: the mask and 9 repeat(s) reach element 575"),
])
def test_limits(lib: rt.KernelLibrary, mode: int, error: type[Exception], text: str,
                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    with pytest.raises(error) as info:
        run(lib, mode, np.zeros(1, np.float32), np.zeros(512, np.int32))
    assert text in str(info.value)
