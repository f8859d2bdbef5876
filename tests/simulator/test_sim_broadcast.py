"""Broadcast (kernel side, also spelled BroadCast) and the host's GetBroadCastMaxMinTmpSize: results
of own kernels against the documented behaviour, each documented limit reported as a
SimulatorError subclass, and the host function's minimum and maximum sizes."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct BroadcastTilingData {
    int32_t mode;
};
REGISTER_TILING_DEFAULT(BroadcastTilingData);

extern "C" __global__ __aicore__ void brc(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
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
    GlobalTensor<int8_t> xi, zi;
    xi.SetGlobalBuffer((__gm__ int8_t*)x, 4096);
    zi.SetGlobalBuffer((__gm__ int8_t*)z, 4096);
    LocalTensor<float> all = buf.Get<float>();
    LocalTensor<float> a = all[0], c = all[1024];
    a.SetSize(1024);
    c.SetSize(1024);
    LocalTensor<half> ah = a.ReinterpretCast<half>(), ch = c.ReinterpretCast<half>();
    LocalTensor<int8_t> ai = a.ReinterpretCast<int8_t>(), ci = c.ReinterpretCast<int8_t>();
    LocalTensor<uint8_t> tmp = tmpBuf.AllocTensor<uint8_t>();   // a TBuf's queue calls, as CANN's
    if (mode == 1) {                      // the reference's example: float {16, 1} -> {16, 16}
        DataCopy(a, xf, 16);
        const uint32_t srcShape[2] = {16, 1};
        const uint32_t dstShape[2] = {16, 16};
        Broadcast<float, 2, 1>(c, a, dstShape, srcShape);
        DataCopy(zf, c, 256);
    }
    if (mode == 2) {                      // int8 {2, 1} -> {2, 16}, with sharedTmpBuffer
        DataCopy(ai, xi, 32);
        const uint32_t srcShape[2] = {2, 1};
        const uint32_t dstShape[2] = {2, 16};
        Broadcast<int8_t, 2, 1>(ci, ai, dstShape, srcShape, tmp);
        DataCopy(zi, ci, 32);
    }
    if (mode == 3) {                      // axis 0: half {1, 16} -> {4, 16}
        DataCopy(ah, xh, 16);
        const uint32_t srcShape[2] = {1, 16};
        const uint32_t dstShape[2] = {4, 16};
        BroadCast<half, 2, 0>(ch, ah, dstShape, srcShape, tmp);
        DataCopy(zh, ch, 64);
    }
    if (mode == 4) {                      // dim 1: float {1} -> {8}
        DataCopy(a, xf, 8);
        const uint32_t srcShape[1] = {1};
        const uint32_t dstShape[1] = {8};
        BroadCast<float, 1, 0>(c, a, dstShape, srcShape);
        DataCopy(zf, c, 8);
    }
    if (mode == 5) {                      // an unaligned row: half {16, 1} -> {16, 3}, dense
        DataCopy(ah, xh, 16);
        SetMaskCount();
        const uint32_t srcShape[2] = {16, 1};
        const uint32_t dstShape[2] = {16, 3};
        BroadCast<half, 2, 1>(ch, ah, dstShape, srcShape, tmp);
        tmpBuf.FreeTensor(tmp);
        // a full mask in normal mode again: 128 lanes
        Adds<half, false>(ch, ch, (half)1, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
        DataCopy(zh, ch, 48);
    }
    if (mode == 6) {                      // equal shapes: a copy
        DataCopy(a, xf, 32);
        const uint32_t shape[2] = {4, 8};
        Broadcast<float, 2, 0>(c, a, shape, shape);
        DataCopy(zf, c, 32);
    }
    if (mode == 10) {
        const uint32_t shape[3] = {1, 1, 8};
        Broadcast<float, 3, 0>(c, a, shape, shape);
    }
    if (mode == 11) {
        const uint32_t shape[2] = {1, 8};
        Broadcast<float, 2, 2>(c, a, shape, shape);
    }
    if (mode == 12) {
        const uint32_t srcShape[2] = {1, 15};
        const uint32_t dstShape[2] = {4, 15};
        Broadcast<half, 2, 0>(ch, ah, dstShape, srcShape);
    }
    if (mode == 13) {
        const uint32_t srcShape[2] = {16, 1};
        const uint32_t dstShape[2] = {16, 3};
        Broadcast<half, 2, 0>(ch, ah, dstShape, srcShape);
    }
    if (mode == 14) {
        const uint32_t srcShape[2] = {2, 3};
        const uint32_t dstShape[2] = {4, 3};
        Broadcast<float, 2, 0>(c, a, dstShape, srcShape);
    }
    if (mode == 15) {
        const uint32_t srcShape[2] = {16, 1};
        const uint32_t dstShape[2] = {16, 16};
        Broadcast<float, 2, 1>(a[8], a, dstShape, srcShape);
    }
    if (mode == 16) {
        LocalTensor<uint8_t> small = tmp;
        small.SetSize(512);
        const uint32_t srcShape[2] = {16, 1};
        const uint32_t dstShape[2] = {16, 3};
        Broadcast<half, 2, 1>(ch, ah, dstShape, srcShape, small);
    }
    if (mode == 17) {
        LocalTensor<half> small = ch;
        small.SetSize(40);
        const uint32_t srcShape[2] = {16, 1};
        const uint32_t dstShape[2] = {16, 3};
        Broadcast<half, 2, 1>(small, ah, dstShape, srcShape);
    }
    if (mode == 18) {
        const uint32_t srcShape[2] = {16, 1};
        const uint32_t dstShape[2] = {16, 16};
        Broadcast<float, 2, 1>(c, a[1], dstShape, srcShape);
    }
    if (mode == 19) {                     // in place: row 0 into 8 rows (ops-nn's rms_norm)
        DataCopy(a, xf, 128);
        const uint32_t srcShape[2] = {1, 16};
        const uint32_t dstShape[2] = {8, 16};
        Broadcast<float, 2, 0>(a, a, dstShape, srcShape);
        DataCopy(zf, a, 128);
    }
    if (mode == 20) {                     // in place: one element into 16
        DataCopy(a, xf, 16);
        const uint32_t srcShape[1] = {1};
        const uint32_t dstShape[1] = {16};
        Broadcast<float, 1, 0>(a, a, dstShape, srcShape);
        DataCopy(zf, a, 16);
    }
}
"""

LAYOUT = rt.TilingLayout.from_fields("BroadcastTilingData", [("mode", "int32_t")])
RNG = np.random.default_rng(5)


@pytest.fixture(scope="module")
def brc(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("broadcast")) / "broadcast.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry="brc")


def run(lib: rt.KernelLibrary, mode: int, x: np.ndarray) -> np.ndarray:
    out = np.zeros(1024, np.float32)
    rt.launch(lib, "brc", {"x": x, "z": out}, block_dim=1, tiling=LAYOUT.pack({"mode": mode}))
    return out


def test_reference_example_last_axis(brc: rt.KernelLibrary) -> None:
    x = np.zeros(1024, np.float32)
    x[:16] = np.arange(1, 17)
    z = run(brc, 1, x)[:256].reshape(16, 16)
    np.testing.assert_array_equal(z, np.repeat(np.arange(1, 17, dtype=np.float32)[:, None], 16, 1))


def test_int8_with_shared_tmp_buffer(brc: rt.KernelLibrary) -> None:
    x = np.zeros(4096, np.int8)
    x[:2] = [-7, 100]
    z = run(brc, 2, x.view(np.float32)).view(np.int8)[:32].reshape(2, 16)
    np.testing.assert_array_equal(z, np.array([[-7] * 16, [100] * 16], np.int8))


def test_first_axis_repeats_the_row(brc: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(2048).astype(np.float16)
    z = run(brc, 3, x.view(np.float32)).view(np.float16)[:64].reshape(4, 16)
    np.testing.assert_array_equal(z, np.broadcast_to(x[:16], (4, 16)))


def test_one_dim_fill(brc: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(1024).astype(np.float32)
    np.testing.assert_array_equal(run(brc, 4, x)[:8], np.full(8, x[0]))


def test_unaligned_row_is_dense_and_mask_is_reset(brc: rt.KernelLibrary) -> None:
    # the Broadcast sample's shape: 16 values, each 3 times, 48 halves with no gap
    x = np.zeros(2048, np.float16)
    x[:16] = np.arange(16)
    z = run(brc, 5, x.view(np.float32)).view(np.float16)[:48]
    np.testing.assert_array_equal(z, np.repeat(np.arange(16, dtype=np.float16), 3) + 1)


def test_equal_shapes_copy(brc: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(1024).astype(np.float32)
    np.testing.assert_array_equal(run(brc, 6, x)[:32], x[:32])


@pytest.mark.parametrize(
    ("mode", "error", "text"),
    [
        (10, rt.SimulatorError, "Broadcast: dim 3 is not supported: 1 or 2"),
        (11, rt.SimulatorError, "Broadcast: axis 2 is not supported: 0 or 1"),
        (12, rt.AlignmentError,
         "Broadcast: srcShape[1] 15 x half = 30 bytes is not 32-byte aligned (dim 2, axis 0)"),
        (13, rt.SimulatorError,
         "Broadcast: srcShape {16, 1}, dstShape {16, 3} repeats dim 1 but axis is 0"),
        (14, rt.SimulatorError,
         "Broadcast: srcShape {2, 3}, dstShape {4, 3}: dim 0 is neither dstShape's nor 1"),
        (15, rt.SimulatorError,
         "Broadcast: dst and src overlap; the reference does not allow that"),
        (16, rt.LocalMemoryOutOfBounds,
         "Broadcast: sharedTmpBuffer holds 512 bytes, below GetBroadCastMaxMinTmpSize's minimum of "
         "1024 for srcShape {16, 1}, dstShape {16, 3}"),
        (17, rt.LocalMemoryOutOfBounds,
         "Broadcast: dst: {16, 3} = 48 elements do not fit the LocalTensor<half> of 40 elements"),
        (18, rt.AlignmentError, "Broadcast: src LocalTensor starts at UB offset 4, which is not "
                                "32-byte aligned"),
    ],
)
def test_documented_limits(brc: rt.KernelLibrary, mode: int, error: type[Exception],
                           text: str) -> None:
    with pytest.raises(error, match="block 0: " + re.escape(text)):
        run(brc, mode, np.zeros(1024, np.float32))


@pytest.mark.parametrize(("mode", "rows"), [(19, 8), (20, 1)])
def test_in_place_where_the_source_is_the_first_row(brc: rt.KernelLibrary, mode: int,
                                                    rows: int) -> None:
    """dst == src with the source dst's first row (or element): CANN's A2 implementation copies
    that row into the others, so the hardware gives the broadcast; only strict mode refuses it,
    as the reference forbids overlap."""
    x = RNG.standard_normal(1024).astype(np.float32)
    width = 16 if rows > 1 else 1
    z = run(brc, mode, x)[:rows * 16].reshape(-1, 16)
    np.testing.assert_array_equal(z, np.broadcast_to(x[:width], z.shape))


def test_in_place_broadcast_is_refused_in_strict_mode(brc: rt.KernelLibrary,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.SimulatorError, match=re.escape(
            "Broadcast: dst and src overlap; the reference does not allow that")):
        run(brc, 19, np.zeros(1024, np.float32))


def test_unsupported_type_does_not_compile(tmp_path: Path) -> None:
    src = tmp_path / "int64.cpp"  # b64 is the Ascend 950's; CANN's A2 code moves b8, b16 and b32
    src.write_text('#include "kernel_operator.h"\n'
                   "void f(AscendC::LocalTensor<int64_t>& d, AscendC::LocalTensor<int64_t>& s) {\n"
                   "    const uint32_t a[1] = {1}, b[1] = {8};\n"
                   "    AscendC::Broadcast<int64_t, 1, 0>(d, s, b, a);\n}\n")
    done = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{rt.include_dir()}", str(src)],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "Broadcast takes a 1-, 2- or 4-byte type on the Atlas A2/A3" in done.stderr


HOST_CPP = r"""
#include <cstdio>
#include <vector>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"
#include "tiling/platform/platform_ascendc.h"

static void Show(const char* soc, std::vector<int64_t> src, std::vector<int64_t> dst,
                 uint32_t typeSize) {
    fe::PlatFormInfos info;
    info.soc = soc;
    const platform_ascendc::PlatformAscendC platform(&info);
    uint32_t maxValue = 1, minValue = 1;
    AscendC::GetBroadCastMaxMinTmpSize(platform, ge::Shape(src), ge::Shape(dst), typeSize, false,
                                       maxValue, minValue);
    std::printf("%u %u\n", maxValue, minValue);
}

int main() {
    Show("ascend910b", {1024, 1}, {1024, 16}, 2);  // the reference's example
    Show("ascend910b", {16, 1}, {16, 3}, 2);       // the Broadcast sample's
    Show("ascend910b", {5, 1}, {5, 3}, 4);
    Show("ascend910b", {2, 1}, {2, 16}, 1);
    Show("ascend910b", {1, 16}, {4, 16}, 2);
    Show("ascend910b", {1}, {8}, 4);
    Show("ascend910b", {1}, {8}, 1);
    Show("ascend910b", {4, 8}, {4, 8}, 4);
    Show("ascend310p", {32, 1}, {32, 3}, 2);
    Show("ascend910b", {2, 3}, {4, 3}, 4);
    Show("ascend910b", {1, 15}, {4, 15}, 2);
}
"""


def test_host_get_broadcast_max_min_tmp_size(tmp_path: Path) -> None:
    done = run_host_program(tmp_path, HOST_CPP)
    assert done.stdout.splitlines() == [
        # aligned rows: one 16x16 brcb block at least, every row's block at most
        f"{1024 * 16 * 2} {16 * 16 * 2}",
        # an unaligned row adds its staging copy: 16 rows of 16 halves
        "1024 1024",
        # float rows of 3: brcb 8 rows x 8 (256 bytes); staging 5 rows (max) or 8 rows (min) x 8
        f"{256 + 5 * 8 * 4} {256 + 8 * 8 * 4}",
        # int8 runs as half: the two casts (16 + 32 halves) come first
        f"{8 * 16 * 2 + 96} {16 * 16 * 2 + 96}",
        "32 32",  # axis 0: one zero block
        "0 0",  # a fill needs nothing
        "96 96",  # ... except int8's casts and a block
        "0 0",  # a copy
        f"{32 + 32 * 3 * 2} {32 + 16 * 1 * 2}",  # the 310P's own figures
        "0 0",
        "0 0",
    ]
    assert "GetBroadCastMaxMinTmpSize: srcShape {2, 3} does not broadcast to dstShape {4, 3}" \
        in done.stderr
    assert "GetBroadCastMaxMinTmpSize: dstShape {4, 15}: dim[1] is not 32-byte aligned (axis 0)" \
        in done.stderr
