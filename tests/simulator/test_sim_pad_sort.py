"""Pad, UnPad (kernel side, and the host tiling functions that fill their tiling structs) and
Sort32: results of own kernels against the documented behaviour, and each documented limit
reported as a SimulatorError subclass."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct PadSortTilingData {
    int32_t mode;
};
REGISTER_TILING_DEFAULT(PadSortTilingData);

template <typename T>
__aicore__ inline void SetSrcShape(T& t, uint32_t h, uint32_t w) {
    t.srcHeight = h;
    t.srcWidth = w;
}

extern "C" __global__ __aicore__ void padsort(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                              GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const int32_t mode = t.mode;
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf, tmpBuf;
    pipe.InitBuffer(buf, 4 * 1024 * sizeof(float));
    pipe.InitBuffer(tmpBuf, 1024);
    GlobalTensor<float> xf, zf;
    xf.SetGlobalBuffer((__gm__ float*)x, 1024);
    zf.SetGlobalBuffer((__gm__ float*)z, 1024);
    GlobalTensor<half> xh, zh;
    xh.SetGlobalBuffer((__gm__ half*)x, 2048);
    zh.SetGlobalBuffer((__gm__ half*)z, 2048);
    LocalTensor<float> all = buf.Get<float>();
    LocalTensor<float> a = all[0], c = all[1024];
    a.SetSize(1024);
    c.SetSize(1024);
    LocalTensor<half> ah = a.ReinterpretCast<half>(), ch = c.ReinterpretCast<half>();
    LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
    PadTiling pt;
    UnPadTiling ut;
    if (mode == 1) {                      // scene 1: 16 x 15 half, one column on the right
        DataCopy(ah, xh, 240);
        SetSrcShape(pt, 16, 15);
        pt.srcOriWidth = 15;
        PadParams p{0, 1, 321};
        Pad(ch, ah, p, pt);
        DataCopy(zh, ch, 256);
    }
    if (mode == 2) {                      // scene 1: 4 x 6 float, both sides, with sharedTmpBuffer
        DataCopy(a, xf, 24);
        SetSrcShape(pt, 4, 6);
        pt.srcOriWidth = 6;
        PadParams p{1, 1, -7};
        Pad(c, a, p, tmp, pt);
        DataCopy(zf, c, 32);
    }
    if (mode == 3) {                      // scene 2: 16 x 16 half, the last 2 columns redundant
        DataCopy(ah, xh, 256);
        SetSrcShape(pt, 16, 16);
        pt.srcOriWidth = 14;
        PadParams p{0, 2, 5};
        Pad(ah, ah, p, pt);               // in place
        DataCopy(zh, ah, 256);
    }
    if (mode == 4) {                      // 16 x 16 half -> 16 x 15
        DataCopy(ah, xh, 256);
        SetSrcShape(ut, 16, 16);
        UnPadParams p{0, 1};
        UnPad(ch, ah, p, ut);
        DataCopy(zh, ch, 240);
    }
    if (mode == 5) {                      // 8 x 16 float -> 8 x 13, with sharedTmpBuffer
        DataCopy(a, xf, 128);
        SetSrcShape(ut, 8, 16);
        UnPadParams p{0, 3};
        UnPad(c, a, p, tmp, ut);
        DataCopy(zf, c, 104);
    }
    if (mode == 6) {                      // Sort32, float, 2 repeats
        DataCopy(a, xf, 64);
        LocalTensor<uint32_t> idx = all[2048].ReinterpretCast<uint32_t>();
        for (uint32_t i = 0; i < 64; ++i) idx.SetValue(i, 1000 + i);
        Sort32(c, a, idx, 2);
        DataCopy(zf, c, 128);
    }
    if (mode == 7) {                      // Sort32, half, 1 repeat
        DataCopy(ah, xh, 32);
        LocalTensor<uint32_t> idx = all[2048].ReinterpretCast<uint32_t>();
        for (uint32_t i = 0; i < 32; ++i) idx.SetValue(i, 31 - i);
        Duplicate(c, 1.0f, 64);
        Sort32(ch, ah, idx, 1);
        DataCopy(zf, c, 64);
    }
    if (mode == 10) {                     // 15 + 0 + 2 columns of half: not 16
        SetSrcShape(pt, 16, 15);
        PadParams p{0, 2, 0};
        Pad(ch, ah, p, pt);
    }
    if (mode == 11) {
        SetSrcShape(pt, 16, 16);
        pt.srcOriWidth = 14;
        PadParams p{1, 1, 0};
        Pad(ch, ah, p, pt);
    }
    if (mode == 12) {
        SetSrcShape(pt, 16, 16);
        pt.srcOriWidth = 16;
        PadParams p{0, 1, 0};
        Pad(ch, ah, p, pt);
    }
    if (mode == 13) {
        SetSrcShape(pt, 16, 16);
        pt.srcOriWidth = 14;
        PadParams p{0, 3, 0};
        Pad(ch, ah, p, pt);
    }
    if (mode == 14) {                     // 3 x 15 half = 90 bytes
        SetSrcShape(pt, 3, 15);
        PadParams p{0, 1, 0};
        Pad(ch, ah, p, pt);
    }
    if (mode == 15) {
        SetSrcShape(pt, 4, 6);
        LocalTensor<uint8_t> small = tmp;
        small.SetSize(512);
        PadParams p{1, 1, 0};
        Pad(c, a, p, small, pt);
    }
    if (mode == 16) {
        SetSrcShape(pt, 16, 15);
        LocalTensor<half> small = ch;
        small.SetSize(240);
        PadParams p{0, 1, 0};
        Pad(small, ah, p, pt);
    }
    if (mode == 17) {
        SetSrcShape(ut, 16, 15);
        UnPadParams p{0, 1};
        UnPad(ch, ah, p, ut);
    }
    if (mode == 18) {
        SetSrcShape(ut, 16, 16);
        UnPadParams p{0, 16};
        UnPad(ch, ah, p, ut);
    }
    if (mode == 19) {
        LocalTensor<uint32_t> idx = all[2048].ReinterpretCast<uint32_t>();
        Sort32(c, a, idx, 256);
    }
    if (mode == 20) {
        LocalTensor<uint32_t> idx = all[2048].ReinterpretCast<uint32_t>();
        LocalTensor<float> small = c;
        small.SetSize(100);               // 2 repeats write 128 floats
        Sort32(small, a, idx, 2);
    }
}
"""

LAYOUT = rt.TilingLayout.from_fields("PadSortTilingData", [("mode", "int32_t")])
RNG = np.random.default_rng(11)


@pytest.fixture(scope="module")
def padsort(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("padsort")) / "padsort.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry="padsort")


def run(lib: rt.KernelLibrary, mode: int, x: np.ndarray) -> np.ndarray:
    out = np.zeros(1024, np.float32)
    rt.launch(lib, "padsort", {"x": x, "z": out}, block_dim=1, tiling=LAYOUT.pack({"mode": mode}))
    return out


def test_pad_unaligned_width_as_documented(padsort: rt.KernelLibrary) -> None:
    x = np.zeros(2048, np.float16)
    x[:240] = np.arange(240)
    z = run(padsort, 1, x.view(np.float32)).view(np.float16)[:256].reshape(16, 16)
    np.testing.assert_array_equal(z[:, :15], np.arange(240).reshape(16, 15))
    np.testing.assert_array_equal(z[:, 15], 321)  # the reference's example, value for value


def test_pad_both_sides_with_shared_tmp_buffer(padsort: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(1024).astype(np.float32)
    z = run(padsort, 2, x)[:32].reshape(4, 8)
    np.testing.assert_array_equal(z[:, 1:7], x[:24].reshape(4, 6))
    np.testing.assert_array_equal(z[:, [0, 7]], -7)


def test_pad_redundant_columns_of_an_aligned_width(padsort: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(2048).astype(np.float16)
    z = run(padsort, 3, x.view(np.float32)).view(np.float16)[:256].reshape(16, 16)
    np.testing.assert_array_equal(z[:, :14], x[:256].reshape(16, 16)[:, :14])
    np.testing.assert_array_equal(z[:, 14:], 5)


def test_unpad_drops_right_columns(padsort: rt.KernelLibrary) -> None:
    x = np.zeros(2048, np.float16)
    x[:256] = np.arange(256)
    z = run(padsort, 4, x.view(np.float32)).view(np.float16)[:240]
    np.testing.assert_array_equal(z, np.arange(256).reshape(16, 16)[:, :15].ravel())


def test_unpad_float_with_shared_tmp_buffer(padsort: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(1024).astype(np.float32)
    z = run(padsort, 5, x)
    np.testing.assert_array_equal(z[:104], x[:128].reshape(8, 16)[:, :13].ravel())


def sort32_expected(scores: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Descending; of equal scores the one from the lower position first (documented)."""
    order = sorted(range(32), key=lambda i: (-float(scores[i]), i))
    return scores[order], index[order]


def test_sort32_float_pairs_with_ties(padsort: rt.KernelLibrary) -> None:
    x = np.zeros(1024, np.float32)
    x[:64] = RNG.integers(-4, 4, 64).astype(np.float32)  # many equal scores
    z = run(padsort, 6, x)
    pairs = z[:128].reshape(2, 32, 2)
    for r in range(2):
        part = slice(r * 32, (r + 1) * 32)
        score, index = sort32_expected(x[part], 1000 + np.arange(1024)[part])
        np.testing.assert_array_equal(pairs[r, :, 0], score)
        np.testing.assert_array_equal(pairs[r, :, 1].view(np.uint32), index)


def test_sort32_half_layout(padsort: rt.KernelLibrary) -> None:
    x = np.zeros(2048, np.float16)
    x[:32] = RNG.standard_normal(32).astype(np.float16)
    z = run(padsort, 7, x.view(np.float32))
    words = z[:64].view(np.uint16).reshape(32, 4)  # score, reserved, index (low, high)
    score, index = sort32_expected(x[:32], 31 - np.arange(32))
    np.testing.assert_array_equal(words[:, 0].view(np.float16), score)
    np.testing.assert_array_equal(words[:, 1], 0)
    np.testing.assert_array_equal(z[:64].view(np.uint32).reshape(32, 2)[:, 1], index)


@pytest.mark.parametrize(
    ("mode", "error", "text"),
    [
        (10, rt.SimulatorError,
         "Pad: srcWidth 15 + leftPad 0 + rightPad 2 = 17 must be srcWidth rounded up to 32 bytes "
         "(16)"),
        (11, rt.SimulatorError,
         "Pad: leftPad 1: a 32-byte aligned srcWidth (16) is padded on the right only"),
        (12, rt.SimulatorError,
         "Pad: srcWidth 16 is 32-byte aligned and srcOriWidth is 16: an aligned width needs "
         "redundant columns"),
        (13, rt.SimulatorError,
         "Pad: srcOriWidth 14 + rightPad 3 = 17 exceeds srcOriWidth rounded up to 32 bytes (16)"),
        (14, rt.AlignmentError,
         "Pad: src: srcHeight 3 x srcWidth 15 x half = 90 bytes is not a multiple of 32"),
        (15, rt.LocalMemoryOutOfBounds,
         "Pad: sharedTmpBuffer holds 512 bytes, below GetPadMaxMinTmpSize's minimum of 1024"),
        (16, rt.LocalMemoryOutOfBounds,
         "Pad: dst: 16 x 16 = 256 elements do not fit the LocalTensor<half> of 240 elements"),
        (17, rt.AlignmentError, "UnPad: srcWidth 15 x half = 30 bytes is not 32-byte aligned"),
        (18, rt.SimulatorError, "UnPad: rightPad 16 is outside [1, 15]"),
        (19, rt.VectorCountError, "Sort32: repeatTime 256 is outside [0, 255]"),
        (20, rt.LocalMemoryOutOfBounds,
         "Sort32: dst: 2 repeat(s) need 128 elements but the LocalTensor<float> has 100"),
    ],
)
def test_documented_limits(padsort: rt.KernelLibrary, mode: int, error: type[Exception],
                           text: str) -> None:
    with pytest.raises(error, match="block 0: " + re.escape(text)):
        run(padsort, mode, np.zeros(1024, np.float32))


HOST_CPP = r"""
#include <cstdio>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"
#include "tiling/platform/platform_ascendc.h"

static void Print(const char* name, const void* p, size_t bytes) {
    std::printf("%s", name);
    for (size_t i = 0; i < bytes / 4; ++i) std::printf(" %u", static_cast<const uint32_t*>(p)[i]);
    std::printf("\n");
}

int main() {
    uint32_t maxValue = 1, minValue = 1;
    ge::Shape src(std::vector<int64_t>{320, 63}), ori(std::vector<int64_t>{320, 63});
    AscendC::GetPadMaxMinTmpSize(src, 2, maxValue, minValue);
    std::printf("pad tmp %u %u\n", maxValue, minValue);
    optiling::PadTiling pad;
    AscendC::PadTilingFunc(src, ori, minValue, 2, pad);
    AscendC::tiling::PadTiling padStruct;
    AscendC::PadTilingFunc(src, ori, minValue, 2, padStruct);
    std::printf("pad size %zu %zu\n", pad.GetDataSize(), sizeof(PadTiling));
    Print("pad", &padStruct, sizeof(padStruct));
    ge::Shape aligned(std::vector<int64_t>{320, 64});
    auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance("Ascend910B1");
    AscendC::GetUnPadMaxMinTmpSize(*platform, aligned, 2, maxValue, minValue);
    std::printf("unpad tmp %u %u\n", maxValue, minValue);
    AscendC::tiling::UnPadTiling unpad;
    AscendC::UnPadTilingFunc(aligned, 2048, 2, unpad);
    Print("unpad", &unpad, sizeof(unpad));
    AscendC::GetPadMaxMinTmpSize(ge::Shape(std::vector<int64_t>{4}), 2, maxValue, minValue);
    std::printf("bad %u %u\n", maxValue, minValue);
}
"""


def test_host_tiling_functions(tmp_path: Path) -> None:
    done = run_host_program(tmp_path, HOST_CPP)
    lines = done.stdout.splitlines()
    # 320 x 63 halves in 16-row blocks of one 32-byte block, twice; the minimum is one block twice
    assert lines[0] == "pad tmp 1290240 1024"
    assert lines[1] == "pad size 104 104"
    fields = [int(v) for v in lines[2].split()[1:]]
    assert fields[:10] == [320, 63, 63, 47, 3, 255, 1, 65, 255 * 63, 255 * 63 + 47]
    # 1024 bytes: one block a half; 16-element width tiles, 63 = 3 x 16 + 15 (aligned: 16)
    assert fields[10:17] == [1, 16, 256, 16, 3, 15, 16]
    assert fields[17:] == [16, 320 * 63 // 16, 0, 254, 0, 2, 0, 0, 0]
    assert lines[3] == "unpad tmp 0 0"  # the 910B's UnPad needs no stack buffer
    # 2048 bytes: two blocks a half, 32-element width tiles, 64 = 2 whole ones
    assert lines[4] == "unpad 320 64 2 32 512 32 2 32"
    assert lines[5] == "bad 0 0"
    assert "GetPadMaxMinTmpSize: srcShape has 1 dims, should be 2" in done.stderr
