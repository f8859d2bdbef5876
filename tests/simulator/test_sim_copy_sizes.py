"""Byte copies of every size through DataCopy and DataCopyPad (opgen_sim/copy_bytes.h): in a
launch whose GM arguments add up to 4 MiB or more, copies of 256 bytes up to 16 KiB take a
128-byte vector loop with an overlapping last step on x86 with AVX; the others, and every copy
of a smaller launch, memcpy. Each size around those edges, each alignment of the GM side, each
copy direction and both footprints must move exactly its bytes: the data intact, nothing before
or after it written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct CopySizesTilingData {
    uint32_t mode;
    uint32_t count;  // float elements copied
    uint32_t offset; // elements into x (and z) where the copied row starts
};
REGISTER_TILING_DEFAULT(CopySizesTilingData);

constexpr uint32_t kUb = 8192;  // floats in each UB buffer (32 KiB)

extern "C" __global__ __aicore__ void copy_sizes(GM_ADDR x, GM_ADDR z, GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECIN> inBuf;
    TBuf<TPosition::VECOUT> outBuf;
    pipe.InitBuffer(inBuf, kUb * sizeof(float));
    pipe.InitBuffer(outBuf, kUb * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kUb + 64);
    zGm.SetGlobalBuffer((__gm__ float*)z, kUb + 64);
    LocalTensor<float> a = inBuf.Get<float>();
    LocalTensor<float> b = outBuf.Get<float>();
    DataCopyExtParams row{1, t.count * static_cast<uint32_t>(sizeof(float)), 0, 0, 0};
    if (t.mode == 0) {  // byte-exact bursts both ways, GM at any 4-byte offset
        DataCopyPad(a, xGm[t.offset], row, DataCopyPadExtParams<float>{false, 0, 0, 0});
    } else {            // 32-byte DataCopy both ways (count a multiple of 8 floats)
        DataCopy(a, xGm[t.offset], t.count);
    }
    event_t v = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
    SetFlag<HardEvent::MTE2_V>(v);
    WaitFlag<HardEvent::MTE2_V>(v);
    const uint32_t aligned = (t.count + 7) / 8 * 8;
    if (t.mode == 2) {  // UB -> UB in between
        DataCopy(b, a, aligned);
    } else {
        Adds(b, a, 0.0f, t.count);
    }
    event_t o = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));
    SetFlag<HardEvent::V_MTE3>(o);
    WaitFlag<HardEvent::V_MTE3>(o);
    if (t.mode == 0) {
        DataCopyPad(zGm[t.offset], b, row);
    } else {
        DataCopy(zGm[t.offset], b, t.count);
    }
}
"""

TOTAL = 8192 + 64
STREAMING = (4 << 20) // 4  # floats of an x that makes the launch's footprint 4 MiB


def last_level_cache_bytes() -> int:
    """The host's last-level cache as Linux describes it, as the simulator reads it
    (copy_bytes.h LastLevelCacheBytes), or 32 MiB (its default) where it is not listed."""
    best, best_level = 0, 0
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level = int((index / "level").read_text())
            text = (index / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:].upper(), 1)
        size = int(text.rstrip("KkMm")) * scale
        if level >= best_level:
            best, best_level = size, level
    return best or 32 << 20


# floats of an x that makes the launch's footprint the last-level cache (stores past the cache)
PAST_CACHE = last_level_cache_bytes() // 4

# bytes around the loop's edges (256 and 16 KiB), its 128-byte step and a 4 KiB row
BYTE_SIZES = [4, 124, 128, 252, 256, 260, 380, 384, 388, 4092, 4096, 4100, 16380, 16384, 16388,
              32768]
BLOCK_SIZES = [32, 224, 256, 288, 384, 416, 4096, 4128, 16352, 16384, 16416, 32768]


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("copy_sizes")) / "copy_sizes.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry="copy_sizes")


def run(lib: rt.KernelLibrary, mode: int, count: int, offset: int,
        footprint: str) -> tuple[np.ndarray, np.ndarray]:
    size = {"cached": TOTAL, "streaming": STREAMING, "past-cache": PAST_CACHE}[footprint]
    x = np.zeros(size, np.float32)  # (the pages past TOTAL stay untouched here)
    x[:TOTAL] = np.random.default_rng(count * 7 + offset).standard_normal(TOTAL)
    z = np.full(TOTAL, -7.0, np.float32)
    rt.launch(lib, "copy_sizes", [x, z], block_dim=1,
              tiling=np.array([mode, count, offset], np.uint32).tobytes())
    return x, z


def check(x: np.ndarray, z: np.ndarray, count: int, offset: int) -> None:
    np.testing.assert_array_equal(z[offset:offset + count], x[offset:offset + count])
    np.testing.assert_array_equal(z[:offset], -7.0)  # nothing written before the row
    np.testing.assert_array_equal(z[offset + count:], -7.0)  # nor after it


FOOTPRINTS = pytest.mark.parametrize("footprint", [
    "cached", "streaming",
    pytest.param("past-cache", marks=pytest.mark.skipif(
        PAST_CACHE > 128 << 20, reason="a last-level cache above 512 MiB: too large a launch"))])


@FOOTPRINTS
@pytest.mark.parametrize("nbytes", BYTE_SIZES)
@pytest.mark.parametrize("offset", [0, 1, 3, 8])
def test_data_copy_pad_moves_exactly_its_bytes(lib: rt.KernelLibrary, nbytes: int,
                                               offset: int, footprint: str) -> None:
    x, z = run(lib, 0, nbytes // 4, offset, footprint)
    check(x, z, nbytes // 4, offset)


@FOOTPRINTS
@pytest.mark.parametrize("nbytes", BLOCK_SIZES)
@pytest.mark.parametrize("mode", [1, 2], ids=["gm-ub-gm", "gm-ub-ub-gm"])
def test_data_copy_moves_exactly_its_blocks(lib: rt.KernelLibrary, nbytes: int,
                                            mode: int, footprint: str) -> None:
    x, z = run(lib, mode, nbytes // 4, 8, footprint)
    check(x, z, nbytes // 4, 8)


# Two blocks on two threads: each copies its half of x to z in 4 KiB rows, then (after SyncAll,
# or in a second launch) copies the other block's half of z to w. In a launch past the cache,
# the copies to z are stored non-temporally and fenced only where another thread may read them
# (the synchronisation, the block's end): w must hold every byte the other thread stored.
SWAP_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t kRow = 1024;   // floats a copy (4 KiB)
constexpr uint32_t kRows = 64;    // rows a block
constexpr uint32_t kHalf = kRow * kRows;

struct SwapTilingData {
    uint32_t phase;  // 0: both steps with SyncAll between; 1: z only; 2: w only
};
REGISTER_TILING_DEFAULT(SwapTilingData);

__aicore__ inline void Rows(GlobalTensor<float>& dst, GlobalTensor<float>& src,
                            const LocalTensor<float>& a, uint32_t first)
{
    for (uint32_t r = 0; r < kRows; ++r) {
        DataCopy(a, src[first + r * kRow], kRow);
        event_t e = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_MTE3));
        SetFlag<HardEvent::MTE2_MTE3>(e);
        WaitFlag<HardEvent::MTE2_MTE3>(e);
        DataCopy(dst[first + r * kRow], a, kRow);
        event_t f = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_MTE2));
        SetFlag<HardEvent::MTE3_MTE2>(f);
        WaitFlag<HardEvent::MTE3_MTE2>(f);
    }
}

extern "C" __global__ __aicore__ void swap_halves(GM_ADDR x, GM_ADDR z, GM_ADDR w, GM_ADDR ws,
                                                  GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kRow * sizeof(float));
    GlobalTensor<float> xGm, zGm, wGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 2 * kHalf);
    zGm.SetGlobalBuffer((__gm__ float*)z, 2 * kHalf);
    wGm.SetGlobalBuffer((__gm__ float*)w, 2 * kHalf);
    LocalTensor<float> a = buf.Get<float>();
    const uint32_t own = GetBlockIdx() * kHalf, other = (1 - GetBlockIdx()) * kHalf;
    if (t.phase != 2) Rows(zGm, xGm, a, own);
    if (t.phase == 0) SyncAll();
    if (t.phase != 1) Rows(wGm, zGm, a, other);
}
"""


@pytest.mark.skipif(PAST_CACHE > 128 << 20, reason="a last-level cache above 512 MiB")
@pytest.mark.parametrize("footprint", ["cached", "past-cache"])
@pytest.mark.parametrize("split", ["SyncAll", "two launches"])
def test_streamed_stores_reach_the_other_block(tmp_path: Path, footprint: str,
                                               split: str) -> None:
    src = tmp_path / "swap.cpp"
    src.write_text(SWAP_CPP)
    lib = rt.build_kernel(src, entry="swap_halves")
    half = 1024 * 64
    size = PAST_CACHE if footprint == "past-cache" else 2 * half
    x = np.zeros(size, np.float32)
    x[:2 * half] = np.random.default_rng(5).standard_normal(2 * half)
    for attempt in range(3):
        z = np.full(2 * half, -1.0, np.float32)
        w = np.full(2 * half, -2.0, np.float32)
        phases = [0] if split == "SyncAll" else [1, 2]
        for phase in phases:
            rt.launch(lib, "swap_halves", [x, z, w], block_dim=2, max_threads=2,
                      tiling=np.array([phase], np.uint32).tobytes())
        np.testing.assert_array_equal(z, x[:2 * half], err_msg=f"attempt {attempt}")
        np.testing.assert_array_equal(w, x[:2 * half], err_msg=f"attempt {attempt}")
