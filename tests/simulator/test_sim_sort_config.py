"""Sort with a SortConfig (RADIX_SORT and MERGE_SORT, ascending and descending, with and without
indices) against numpy's stable sort, and the host's GetSortMaxMinTmpSize: its figures, and the
kernel accepting a sharedTmpBuffer of exactly the host's minimum and refusing one byte less."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct SortCfgTiling {
    int32_t mode;
    uint32_t count;
    uint32_t tmpBytes;
};
REGISTER_TILING_DEFAULT(SortCfgTiling);

static constexpr SortConfig kRadixUp = {SortType::RADIX_SORT, false};
static constexpr SortConfig kRadixDown = {SortType::RADIX_SORT, true};
static constexpr SortConfig kMergeUp = {SortType::MERGE_SORT, false};
static constexpr SortConfig kMergeDown = {SortType::MERGE_SORT, true};

extern "C" __global__ __aicore__ void sortcfg(GM_ADDR x, GM_ADDR xi, GM_ADDR z, GM_ADDR zi,
                                              GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const uint32_t n = t.count;
    TPipe pipe;
    TBuf<TPosition::VECCALC> inBuf, idxBuf, outBuf, outIdxBuf, tmpBuf;
    pipe.InitBuffer(inBuf, 8192);
    pipe.InitBuffer(idxBuf, 8192);
    pipe.InitBuffer(outBuf, 8192);
    pipe.InitBuffer(outIdxBuf, 8192);
    pipe.InitBuffer(tmpBuf, 16384);
    LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
    tmp.SetSize(t.tmpBytes);
    GlobalTensor<uint8_t> xg, xig, zg, zig;
    xg.SetGlobalBuffer((__gm__ uint8_t*)x, 8192);
    xig.SetGlobalBuffer((__gm__ uint8_t*)xi, 8192);
    zg.SetGlobalBuffer((__gm__ uint8_t*)z, 8192);
    zig.SetGlobalBuffer((__gm__ uint8_t*)zi, 8192);
    DataCopy(inBuf.Get<uint8_t>(), xg, 8192);
    DataCopy(idxBuf.Get<uint8_t>(), xig, 8192);
    LocalTensor<float> srcF = inBuf.Get<float>(), dstF = outBuf.Get<float>();
    LocalTensor<half> srcH = inBuf.Get<half>(), dstH = outBuf.Get<half>();
    LocalTensor<int16_t> srcS = inBuf.Get<int16_t>(), dstS = outBuf.Get<int16_t>();
    LocalTensor<uint8_t> srcB = inBuf.Get<uint8_t>(), dstB = outBuf.Get<uint8_t>();
    LocalTensor<int64_t> srcL = inBuf.Get<int64_t>(), dstL = outBuf.Get<int64_t>();
    LocalTensor<uint32_t> dstIdx = outIdxBuf.Get<uint32_t>();
    LocalTensor<int64_t> srcIdx64 = idxBuf.Get<int64_t>(), dstIdx64 = outIdxBuf.Get<int64_t>();
    switch (t.mode) {
        case 1: Sort<float, false, kRadixUp>(dstF, srcF, tmp, n); break;
        case 2: Sort<float, false, kRadixDown>(dstF, dstIdx, srcF, tmp, n); break;
        case 3: Sort<half, false, kRadixUp>(dstH, dstIdx, srcH, n); break;
        case 4:
            Sort<int16_t, int64_t, false, kRadixDown>(dstS, dstIdx64, srcS, srcIdx64, tmp, n);
            break;
        case 5: Sort<uint8_t, false, kRadixUp>(dstB, dstIdx, srcB, tmp, n); break;
        case 6: Sort<int64_t, true, kRadixUp>(dstL, srcL, tmp, n); break;
        case 7: Sort<float, false, kMergeUp>(dstF, dstIdx, srcF, tmp, n); break;
        case 8: Sort<half, false, kMergeDown>(dstH, srcH, tmp, n); break;
        case 9: Sort<float>(dstF, srcF, n); break;  // DEFAULT_SORT_CONFIG: radix, ascending
        case 10: Sort<float, false, kRadixUp>(srcF, srcF, tmp, n); break;
    }
    DataCopy(zg, outBuf.Get<uint8_t>(), 8192);
    DataCopy(zig, outIdxBuf.Get<uint8_t>(), 8192);
}
"""

LAYOUT = rt.TilingLayout.from_fields(
    "SortCfgTiling", [("mode", "int32_t"), ("count", "uint32_t"), ("tmpBytes", "uint32_t")])
RNG = np.random.default_rng(11)

HOST_CPP = r"""
#include <cstdio>
#include <vector>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

static void Show(int64_t n, ge::DataType v, ge::DataType i, bool reuse, AscendC::SortType type,
                 bool descend,
                 bool hasSrcIndex, bool hasDstIndex) {
    AscendC::SortConfig config;
    config.type = type;
    config.isDescend = descend;
    config.hasSrcIndex = hasSrcIndex;
    config.hasDstIndex = hasDstIndex;
    uint32_t maxValue = 1, minValue = 1;
    const ge::Shape shape(std::vector<int64_t>{n});
    AscendC::GetSortMaxMinTmpSize(shape, v, i, reuse, config, maxValue, minValue);
    std::printf("%u %u\n", maxValue, minValue);
}

int main() {
    using AscendC::SortType;
    Show(100, ge::DT_FLOAT, ge::DT_UINT32, false, SortType::RADIX_SORT, false, false, false);
    Show(100, ge::DT_FLOAT, ge::DT_UINT32, false, SortType::RADIX_SORT, true, false, true);
    Show(200, ge::DT_FLOAT16, ge::DT_UINT32, false, SortType::RADIX_SORT, false, false, true);
    Show(96, ge::DT_INT16, ge::DT_INT64, false, SortType::RADIX_SORT, true, true, true);
    Show(70, ge::DT_UINT8, ge::DT_UINT32, false, SortType::RADIX_SORT, false, false, true);
    Show(64, ge::DT_INT64, ge::DT_UINT32, true, SortType::RADIX_SORT, false, false, false);
    Show(128, ge::DT_FLOAT, ge::DT_UINT32, false, SortType::MERGE_SORT, false, false, true);
    Show(128, ge::DT_FLOAT, ge::DT_UINT32, false, SortType::RADIX_SORT, false, true, false);
    Show(128, ge::DT_DOUBLE, ge::DT_UINT32, false, SortType::RADIX_SORT, false, false, false);
    Show(128, ge::DT_FLOAT, ge::DT_INT32, false, SortType::RADIX_SORT, false, false, true);
}
"""


def radix(count: int, value: int, extra: int) -> int:
    n = -(-count // 32) * 32
    return 7 * n + 512 + n * extra if value != 1 else 7 * n + 512 - extra


# (count, value bytes) -> the host's minimum, computed here from the documented layout of the rule
EXPECTED = [
    radix(100, 4, 4),          # values only: a copy of the values
    radix(100, 4, 4 + 4),      # generated uint32 index: values and index
    radix(200, 2, 4 + 2),
    radix(96, 2, 2 + 8),       # input int64 index
    radix(70, 1, 2 * 96),      # one-byte values with an output index: 2 n less
    radix(64, 8, 0),           # isReuseSource: no copy
    8 * 128,                   # merge sort: 8 bytes an element
]


@pytest.fixture(scope="module")
def host_sizes(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[int], str]:
    d = Path(tmp_path_factory.mktemp("sort_host"))
    (d / "host.cpp").write_text(HOST_CPP)
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-O1", f"-I{rt.include_dir()}",
                    str(d / "host.cpp"), "-o", str(d / "host")], check=True)
    done = subprocess.run([str(d / "host")], check=True, capture_output=True, text=True)
    return [int(line.split()[1]) for line in done.stdout.splitlines()], done.stderr


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("sort_cfg")) / "sort_cfg.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry="sortcfg")


def test_host_figures(host_sizes: tuple[list[int], str]) -> None:
    sizes, err = host_sizes
    assert sizes[:7] == EXPECTED
    assert sizes[7:] == [0, 0, 0]
    assert "GetSortMaxMinTmpSize: hasSrcIndex without hasDstIndex is not supported" in err
    assert "GetSortMaxMinTmpSize: valueType 11 is not supported" in err
    assert "is not supported for a generated output index: uint32" in err


def run(lib: rt.KernelLibrary, mode: int, count: int, tmp: int, x: np.ndarray,
        xi: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    xb = np.zeros(8192, np.uint8)
    raw = x.view(np.uint8)
    xb[:raw.size] = raw
    xib = np.zeros(8192, np.uint8)
    if xi is not None:
        xib[:xi.nbytes] = xi.view(np.uint8)
    z = np.zeros(8192, np.uint8)
    zi = np.zeros(8192, np.uint8)
    rt.launch(lib, "sortcfg", {"x": xb, "xi": xib, "z": z, "zi": zi}, block_dim=1,
              tiling=LAYOUT.pack({"mode": mode, "count": count, "tmpBytes": tmp}))
    return z, zi


def stable(x: np.ndarray, descend: bool) -> np.ndarray:
    return np.argsort(-x if descend else x, kind="stable")


def test_radix_float_ascending_values_only(lib: rt.KernelLibrary, host_sizes) -> None:
    x = RNG.uniform(-1000, 1000, 100).astype(np.float32)
    z, _ = run(lib, 1, 100, host_sizes[0][0], x)
    np.testing.assert_array_equal(z.view(np.float32)[:100], np.sort(x))


def test_radix_float_descending_generated_index_keeps_ties(lib: rt.KernelLibrary,
                                                           host_sizes) -> None:
    x = RNG.integers(-5, 5, 100).astype(np.float32)  # many equal values
    z, zi = run(lib, 2, 100, host_sizes[0][1], x)
    order = stable(x, True)
    np.testing.assert_array_equal(zi.view(np.uint32)[:100], order)
    np.testing.assert_array_equal(z.view(np.float32)[:100], x[order])


def test_radix_half_framework_tmp(lib: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(200).astype(np.float16)
    z, zi = run(lib, 3, 200, 0, x)
    order = stable(x, False)
    np.testing.assert_array_equal(zi.view(np.uint32)[:200], order)
    np.testing.assert_array_equal(z.view(np.float16)[:200], x[order])


def test_radix_int16_with_int64_input_index(lib: rt.KernelLibrary, host_sizes) -> None:
    x = RNG.integers(-300, 300, 96).astype(np.int16)
    xi = RNG.integers(-(2 ** 40), 2 ** 40, 96).astype(np.int64)
    z, zi = run(lib, 4, 96, host_sizes[0][3], x, xi)
    order = stable(x.astype(np.int64), True)
    np.testing.assert_array_equal(z.view(np.int16)[:96], x[order])
    np.testing.assert_array_equal(zi.view(np.int64)[:96], xi[order])


def test_radix_uint8_and_int64(lib: rt.KernelLibrary, host_sizes) -> None:
    x = RNG.integers(0, 256, 70).astype(np.uint8)
    z, zi = run(lib, 5, 70, host_sizes[0][4], x)
    order = stable(x, False)
    np.testing.assert_array_equal(z[:70], x[order])
    np.testing.assert_array_equal(zi.view(np.uint32)[:70], order)
    y = RNG.integers(-(2 ** 62), 2 ** 62, 64).astype(np.int64)
    z, _ = run(lib, 6, 64, host_sizes[0][5], y)
    np.testing.assert_array_equal(z.view(np.int64)[:64], np.sort(y))


def test_merge_sort(lib: rt.KernelLibrary, host_sizes) -> None:
    x = RNG.integers(-20, 20, 128).astype(np.float32)
    z, zi = run(lib, 7, 128, host_sizes[0][6], x)
    order = stable(x, False)
    np.testing.assert_array_equal(z.view(np.float32)[:128], x[order])
    np.testing.assert_array_equal(zi.view(np.uint32)[:128], order)
    h = RNG.standard_normal(64).astype(np.float16)
    z, _ = run(lib, 8, 64, 8 * 64, h)
    np.testing.assert_array_equal(z.view(np.float16)[:64], np.sort(h)[::-1])


def test_default_config_and_signed_zero(lib: rt.KernelLibrary) -> None:
    x = np.array([0.0, -0.0, np.inf, -np.inf, 1.5, -1.5, 0.0, -0.0] * 4, np.float32)
    z, _ = run(lib, 9, 32, 0, x)
    got = z.view(np.float32)[:32]
    np.testing.assert_array_equal(got, np.sort(x))
    # bitwise order: every -0.0 before every +0.0
    assert list(np.signbit(got[12:20])) == [True] * 4 + [False] * 4


@pytest.mark.parametrize(
    ("mode", "count", "host_index", "delta", "error", "text"),
    [
        (1, 100, 0, -1, rt.LocalMemoryOutOfBounds,
         f"Sort: sharedTmpBuffer holds {radix(100, 4, 4) - 1} bytes, below GetSortMaxMinTmpSize's "
         f"minimum of {radix(100, 4, 4)} for 100 elements"),
        (7, 128, 6, -1, rt.LocalMemoryOutOfBounds,
         "Sort: sharedTmpBuffer holds 1023 bytes, below GetSortMaxMinTmpSize's minimum of 1024"),
        (7, 100, 6, 0, rt.SimulatorError,
         "Sort: calCount 100 is not a multiple of 32, which MERGE_SORT needs"),
        (10, 64, 0, 0, rt.SimulatorError,
         "Sort: dst and src overlap; the reference does not allow that"),
        (1, 3000, 0, 0, rt.LocalMemoryOutOfBounds,
         "Sort: src: calCount 3000 is more than the LocalTensor's 2048 elements"),
    ],
)
def test_limits(lib: rt.KernelLibrary, host_sizes, mode: int, count: int, host_index: int,
                delta: int, error: type[Exception], text: str) -> None:
    with pytest.raises(error, match="block 0: " + re.escape(text)):
        run(lib, mode, count, host_sizes[0][host_index] + delta, np.zeros(64, np.float32))
