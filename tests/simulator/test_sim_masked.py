"""Mask/repeat forms of the vector instructions, repeat reductions, atomics, tiling keys and the
static-tensor API in the Python-launch mode: results against numpy, and each misuse reported as
a SimulatorError subclass naming the API and the values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

MASKED_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct MaskedTilingData {
    int32_t mode;
};
REGISTER_TILING_DEFAULT(MaskedTilingData);

extern "C" __global__ __aicore__ void masked(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                             GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const int32_t mode = t.mode;
    if (mode == 16) {                                   // LocalMemAllocator past the UB
        LocalMemAllocator<Hardware::UB> ub;
        LocalTensor<float> big = ub.Alloc<float>(100 * 1024);
        return;
    }
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4 * 1024 * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 1024);
    zGm.SetGlobalBuffer((__gm__ float*)z, 1024);
    LocalTensor<float> all = buf.Get<float>();
    LocalTensor<float> a = all[0], b = all[256], c = all[512];
    a.SetSize(256);
    b.SetSize(256);
    c.SetSize(256);
    DataCopy(a, xGm, 256);
    DataCopy(b, xGm[256], 256);
    Duplicate(c, 0.0f, 256);
    uint64_t even[2] = {0x5555555555555555ULL, 0};
    if (mode == 1) Add(c, a, b, even, 4, {1, 1, 1, 8, 8, 8});
    if (mode == 2) Adds(c, a, 1.0f, 16, 4, {1, 1, 8, 8});
    if (mode == 3) {
        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(0, 100);
        Mul<float, false>(c, a, b, MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8});
        SetMaskNorm();
        ResetMask();
    }
    if (mode == 4) {
        WholeReduceSum<float>(c, a, 64, 4, 1, 1, 8);
        WholeReduceMax<float>(c[8], a, 64, 4, 1, 1, 8);
        BlockReduceSum<float>(c[16], a, 4, 64, 1, 1, 8);
        WholeReduceMin<float>(c[48], a, even, 4, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
    }
    if (mode == 5) {
        uint64_t m[2] = {0xF0F0F0F0F0F0F0F0ULL, 0};
        Duplicate<float>(c, 7.0f, m, 4, 1, 8);
    }
    if (mode == 6) {
        SetAtomicAdd<float>();
        DataCopy(zGm, a, 256);
        SetAtomicNone();
        return;
    }
    if (mode == 7) c.SetValue(0, TILING_KEY_IS(3) ? 1.0f : 2.0f);
    if (mode == 8) {                                    // float16 pairwise sum saturates at 65504
        GlobalTensor<half> xh, zh;
        xh.SetGlobalBuffer((__gm__ half*)x, 2048);
        zh.SetGlobalBuffer((__gm__ half*)z, 2048);
        LocalTensor<half> h = all.ReinterpretCast<half>();
        DataCopy(h, xh, 128);
        WholeReduceSum<half>(h[128], h, 128, 1, 1, 1, 8);
        DataCopy(zh, h[128], 16);
        return;
    }
    if (mode == 10) Add(c, a, b, even, 5, {1, 1, 1, 8, 8, 8});
    if (mode == 11) Adds(c, a, 1.0f, 65, 1, {1, 1, 8, 8});
    if (mode == 12) {
        uint64_t wide[2] = {1, 1};
        Exp(c, a, wide, 1, {1, 1, 8, 8});
    }
    if (mode == 13) {
        LocalTensor<float> small = buf.GetWithOffset<float>(8, 0);
        WholeReduceSum<float>(small, b, 64, 16, 1, 1, 0);
    }
    if (mode == 14) {
        SetAtomicAdd<half>();
        DataCopy(zGm, c, 256);
    }
    if (mode == 15) ascendc_assert(mode != 15, "mode %d", mode);
    DataCopy(zGm, c, 256);
}
"""

LAYOUT = rt.TilingLayout.from_fields("MaskedTilingData", [("mode", "int32_t")])
RNG = np.random.default_rng(11)
LANE = np.arange(256) % 64


@pytest.fixture(scope="module")
def masked(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("masked")) / "masked.cpp"
    src.write_text(MASKED_CPP)
    return rt.build_kernel(src, entry="masked")


def run(lib: rt.KernelLibrary, mode: int, x: np.ndarray, *, block_dim: int = 1,
        tiling_key: int = 0) -> np.ndarray:
    z = np.zeros(1024, np.float32)
    rt.launch(lib, "masked", {"x": x, "z": z}, block_dim=block_dim,
              tiling=LAYOUT.pack({"mode": mode}), tiling_key=tiling_key)
    return z


def inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = RNG.integers(-20, 20, 1024).astype(np.float32)
    return x, x[:256], x[256:512]


def test_bit_mask_selects_lanes_of_every_repeat(masked: rt.KernelLibrary) -> None:
    x, a, b = inputs()
    z = run(masked, 1, x)
    np.testing.assert_array_equal(z[:256], np.where(LANE % 2 == 0, a + b, 0))


def test_count_mask_takes_the_first_lanes_of_every_repeat(masked: rt.KernelLibrary) -> None:
    x, a, _ = inputs()
    z = run(masked, 2, x)
    np.testing.assert_array_equal(z[:256], np.where(LANE < 16, a + 1, 0))


def test_counter_mode_with_mask_placeholder(masked: rt.KernelLibrary) -> None:
    x, a, b = inputs()
    z = run(masked, 3, x)
    np.testing.assert_array_equal(z[:256], np.where(np.arange(256) < 100, a * b, 0))


def test_whole_and_block_reductions(masked: rt.KernelLibrary) -> None:
    x, a, _ = inputs()
    z = run(masked, 4, x)
    rows = a.reshape(4, 64)
    np.testing.assert_array_equal(z[:4], rows.sum(axis=1))
    np.testing.assert_array_equal(z[8:16:2], rows.max(axis=1))
    np.testing.assert_array_equal(z[9:16:2].view(np.uint32), rows.argmax(axis=1))
    np.testing.assert_array_equal(z[16:48], a.reshape(32, 8).sum(axis=1))
    np.testing.assert_array_equal(z[48:52], rows[:, ::2].min(axis=1))


def test_duplicate_with_a_bit_mask(masked: rt.KernelLibrary) -> None:
    x, _, _ = inputs()
    z = run(masked, 5, x)
    np.testing.assert_array_equal(z[:256], np.where((LANE // 4) % 2 == 1, 7, 0))


def test_set_atomic_add_from_concurrent_blocks(masked: rt.KernelLibrary) -> None:
    x, a, _ = inputs()
    z = run(masked, 6, x, block_dim=16)
    np.testing.assert_array_equal(z[:256], 16 * a)


def test_tiling_key(masked: rt.KernelLibrary) -> None:
    x, _, _ = inputs()
    assert run(masked, 7, x, tiling_key=3)[0] == 1
    assert run(masked, 7, x)[0] == 2


def test_float16_pairwise_sum_saturates_as_documented(masked: rt.KernelLibrary) -> None:
    h = np.zeros(2048, np.float16)
    h[:4] = [60000, 60000, -30000, 100]  # CANN's WholeReduceSum example: "35604"
    z = run(masked, 8, h.view(np.float32))
    # 60000 + 60000 saturates to 65504 (not inf); each step rounds to float16
    expected = np.float16(np.float32(65504) + np.float32(np.float16(-29900)))
    assert z.view(np.float16)[0] == expected
    assert abs(float(expected) - 35604) <= 32  # one float16 ulp at that magnitude


@pytest.mark.parametrize(
    ("mode", "error", "text"),
    [
        (10, rt.LocalMemoryOutOfBounds,
         "Add: dst: the mask and 5 repeat(s) reach element 318 (repeat 4, lane 62, blkStride 1, "
         "repStride 8) but the LocalTensor<float> has 256 elements"),
        (11, rt.VectorCountError, "Adds: mask 65 is outside [1, 64] for float"),
        (12, rt.VectorCountError, "Exp: mask[1] must be 0 for float"),
        (13, rt.LocalMemoryOutOfBounds,
         "WholeReduceSum: dst: the results of the repeats reach element 15 but the "
         "LocalTensor<float> has 8 elements"),
        (14, rt.SimulatorError, "the atomic mode was set for half (SetAtomic...<half>) but this "
         "copy moves float"),
        (15, rt.KernelAssertError, "assertion failed: mode != 15 at "),
        (16, rt.UnifiedBufferOverflow, "LocalMemAllocator::Alloc: Unified Buffer overflow"),
    ],
)
def test_misuse_is_reported(masked: rt.KernelLibrary, mode: int, error: type[Exception],
                            text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    x, _, _ = inputs()
    with pytest.raises(error) as info:
        run(masked, mode, x, block_dim=2)
    assert text in str(info.value)
    assert "kernel 'masked', block 0" in str(info.value)
