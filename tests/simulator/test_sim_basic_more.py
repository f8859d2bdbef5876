"""Basic APIs of opgen_sim/basic_more.h: DataCopy with SliceInfo (GM -> UB and UB -> GM), against a
numpy model of the reference's slice semantics and, where it is silent, CANN's A2/A3 steps
(asc-devkit impl/basic_api/kernel_operator_data_copy_intf_impl.h): the burst length and count come
from the source's dimension 0 (a last partial piece is not copied), the GM gap between bursts is
`stride` elements, the UB gap `stride` elements rounded down to whole 32-byte blocks, and the
selected rows of the outer dimensions are enumerated innermost first."""

from __future__ import annotations

import itertools
import re
import struct
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct SliceCfg {
    int32_t mode;        // 0: slice GM -> UB, then UB -> GM contiguous; 1: contiguous in, slice out
    uint32_t dims;
    uint32_t ubElems;    // the LocalTensor's size
    uint32_t flatElems;  // the contiguous copy's count
    uint32_t xElems;     // the GlobalTensors' sizes (SetGlobalBuffer)
    uint32_t yElems;
    uint32_t src[8][5];
    uint32_t dst[8][5];
};
REGISTER_TILING_DEFAULT(SliceCfg);

template <typename T>
__aicore__ inline void SliceBody(GM_ADDR x, GM_ADDR y, SliceCfg& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, t.ubElems * sizeof(T));
    LocalTensor<T> u = b.Get<T>();
    Duplicate(u, static_cast<T>(0), t.ubElems);
    PipeBarrier<PIPE_ALL>();
    GlobalTensor<T> xg, yg;
    xg.SetGlobalBuffer((__gm__ T*)x, t.xElems);
    yg.SetGlobalBuffer((__gm__ T*)y, t.yElems);
    SliceInfo s[K_MAX_DIM], d[K_MAX_DIM];
    for (uint32_t i = 0; i < 8; ++i) {
        s[i] = SliceInfo(t.src[i][0], t.src[i][1], t.src[i][2], t.src[i][3], t.src[i][4]);
        d[i] = SliceInfo(t.dst[i][0], t.dst[i][1], t.dst[i][2], t.dst[i][3], t.dst[i][4]);
    }
    if (t.mode == 0) {
        DataCopy(u, xg, d, s, t.dims);
        PipeBarrier<PIPE_ALL>();
        DataCopy(yg, u, t.flatElems);
    } else {
        DataCopy(u, xg, t.flatElems);
        PipeBarrier<PIPE_ALL>();
        DataCopy(yg, u, d, s, t.dims);
    }
    PipeBarrier<PIPE_ALL>();
}

extern "C" __global__ __aicore__ void slice_f(GM_ADDR x, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    SliceBody<float>(x, y, t);
}
extern "C" __global__ __aicore__ void slice_h(GM_ADDR x, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    SliceBody<half>(x, y, t);
}
extern "C" __global__ __aicore__ void slice_defaults(GM_ADDR x, GM_ADDR y, GM_ADDR ws,
                                                     GM_ADDR tiling)
{
    // SliceInfo() is {0, 31, 0, 32, 0}: shapeValue 0 asks for the tensors' ShapeInfo
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024 * sizeof(float));
    LocalTensor<float> u = b.Get<float>();
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.xElems);
    SliceInfo s[1], d[1];
    DataCopy(u, xg, d, s, 1);
}
"""

ENTRIES = ("slice_f", "slice_h", "slice_defaults")

Slice = tuple[int, int, int, int, int]  # startIndex, endIndex, stride, burstLen, shapeValue


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("basic_more")) / "basic_more.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry=ENTRIES)


def blob(
    mode: int,
    src: list[Slice],
    dst: list[Slice],
    ub_elems: int,
    flat: int,
    x_elems: int,
    y_elems: int,
    dims: int | None = None,
) -> bytes:
    def table(s: list[Slice]) -> list[int]:
        rows = [list(r) for r in s] + [[0, 0, 0, 1, 1]] * (8 - len(s))
        return [v for r in rows for v in r]

    head = [mode, len(src) if dims is None else dims, ub_elems, flat, x_elems, y_elems]
    return struct.pack("<i5I", *head) + struct.pack("<80I", *(table(src) + table(dst)))


# ---- the model ---------------------------------------------------------------------------------
def side_offsets(info: list[Slice]) -> list[int]:
    """The element offset of each selected row: the outer dimensions' indices, innermost first."""
    shapes = [s[4] for s in info]
    below = [int(np.prod(shapes[:i])) for i in range(len(info))]
    lists = [range(s[0], s[1] + 1, s[2] + 1) for s in info[1:]]
    rows = []
    for combo in itertools.product(*reversed(lists)):
        idx = list(reversed(combo))
        rows.append(info[0][0] + sum(i * below[k + 1] for k, i in enumerate(idx)))
    return rows


def slice_model(
    x: np.ndarray, y: np.ndarray, src: list[Slice], dst: list[Slice], gm_is_src: bool
) -> np.ndarray:
    """Copies x's slice into a copy of y. The UB side's gap is rounded down to whole blocks."""
    y = y.copy()
    per_block = 32 // x.itemsize
    s0 = src[0]
    burst = s0[3] * per_block
    n = (s0[1] - s0[0] + 1 + s0[2]) // (burst + s0[2])
    src_gap = s0[2] if gm_is_src else s0[2] * x.itemsize // 32 * per_block
    dst_gap = dst[0][2] * x.itemsize // 32 * per_block if gm_is_src else dst[0][2]
    for so, do in zip(side_offsets(src), side_offsets(dst), strict=True):
        for b in range(n):
            a = so + b * (burst + src_gap)
            c = do + b * (burst + dst_gap)
            y[c : c + burst] = x[a : a + burst]
    return y


def run(
    lib: rt.KernelLibrary,
    entry: str,
    x: np.ndarray,
    y_elems: int,
    tiling: bytes,
) -> np.ndarray:
    gx, gy = rt.gm_empty(x.size, str(x.dtype)), rt.gm_empty(y_elems, str(x.dtype))
    gx[:] = x
    gy[:] = 0
    rt.launch(lib, entry, [gx, gy], block_dim=1, tiling=tiling)
    return np.asarray(gy).copy()


def check_to_ub(lib, entry, dtype, src, dst, ub_elems, seed=0):
    """GM slice -> UB (zeroed), then the whole UB out: the UB image equals the model's."""
    rng = np.random.default_rng(seed)
    gm_elems = int(np.prod([s[4] for s in src]))
    x = rng.standard_normal(gm_elems).astype(dtype)
    got = run(lib, entry, x, ub_elems, blob(0, src, dst, ub_elems, ub_elems, gm_elems, ub_elems))
    want = slice_model(x, np.zeros(ub_elems, dtype), src, dst, gm_is_src=True)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    return got


def check_to_gm(lib, entry, dtype, src, dst, ub_elems, seed=1):
    """Whole GM in to UB, then the UB slice -> GM (zeroed): the GM image equals the model's."""
    rng = np.random.default_rng(seed)
    gm_elems = int(np.prod([s[4] for s in dst]))
    x = rng.standard_normal(ub_elems).astype(dtype)
    got = run(lib, entry, x, gm_elems, blob(1, src, dst, ub_elems, ub_elems, ub_elems, gm_elems))
    want = slice_model(x, np.zeros(gm_elems, dtype), src, dst, gm_is_src=False)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    return got


# ---- results -----------------------------------------------------------------------------------
SAMPLE_SRC: list[Slice] = [(16, 70, 7, 3, 87), (0, 2, 1, 1, 3)]
SAMPLE_DST: list[Slice] = [(0, 47, 0, 3, 48), (0, 1, 0, 1, 2)]


def test_the_references_example_both_ways(lib: rt.KernelLibrary) -> None:
    """The reference's example (and asc-devkit's data_copy_gm2ub_slice): rows 0 and 2 of a 3 x 87
    float tensor, elements 16..39 and 47..70 of each, into a dense 2 x 48."""
    got = check_to_ub(lib, "slice_f", np.float32, SAMPLE_SRC, SAMPLE_DST, 96)
    x = np.random.default_rng(0).standard_normal(3 * 87).astype(np.float32).reshape(3, 87)
    want = np.concatenate([x[[0, 2], 16:40], x[[0, 2], 47:71]], axis=1).ravel()
    np.testing.assert_array_equal(got, want)
    # back out: the dense 2 x 48 in UB scattered into a 3 x 87 GM (the zeros stay)
    check_to_gm(lib, "slice_f", np.float32, SAMPLE_DST, SAMPLE_SRC, 96)


def test_half_three_dims_with_a_gm_stride_of_part_blocks(lib: rt.KernelLibrary) -> None:
    """A GM stride of 5 halves (10 bytes) is CANN's byte-stride form; three dimensions, the middle
    one every third index, the outer one every second: the rows innermost first."""
    src = [(3, 3 + 3 * 16 + 2 * 5 - 1, 5, 1, 80), (1, 7, 2, 1, 8), (0, 2, 1, 1, 3)]
    dst = [(0, 47, 0, 1, 48), (0, 2, 0, 1, 3), (0, 1, 0, 1, 2)]
    check_to_ub(lib, "slice_h", np.float16, src, dst, 6 * 48)


def test_ub_gap_in_whole_blocks_and_partial_piece_dropped(lib: rt.KernelLibrary) -> None:
    """UB -> GM with a UB stride of 20 floats (80 bytes): CANN's UB stride is in blocks, 2 of them
    (16 floats), while the burst count uses the 20: the source range 0..100 holds pieces at 0 and
    44 and a partial third at 88: only 2 are copied."""
    src = [(0, 100, 20, 3, 128), (0, 1, 0, 1, 2)]
    dst = [(5, 5 + 24 + 3 + 23, 3, 3, 70), (1, 3, 1, 1, 4)]
    got = check_to_gm(lib, "slice_f", np.float32, src, dst, 256)
    x = np.random.default_rng(1).standard_normal(256).astype(np.float32)
    # row 1 of the GM (index 1 of 4), second burst: UB elements 24 + 16 = 40..63 of row 0
    np.testing.assert_array_equal(got[70 + 5 + 27 : 70 + 5 + 51], x[40:64])


def test_one_dimension(lib: rt.KernelLibrary) -> None:
    check_to_ub(
        lib,
        "slice_h",
        np.float16,
        [(32, 32 + 4 * 16 + 3 * 16 - 1, 16, 1, 160)],
        [(0, 127, 16, 1, 128)],
        128,
    )


# ---- misuse ------------------------------------------------------------------------------------
def expect_error(
    lib, error, text, mode, src, dst, ub=96, flat=None, xe=None, ye=None, dims=None, entry="slice_f"
):
    dtype = np.float32 if entry != "slice_h" else np.float16
    xe = xe if xe is not None else 512  # the GM buffers' sizes (device allocations)
    ye = ye if ye is not None else 512
    x = np.zeros(xe, dtype)
    tiling = blob(mode, src, dst, ub, flat if flat is not None else ub, xe, ye, dims)
    with pytest.raises(error, match="block 0: " + re.escape(text)):
        run(lib, entry, x, ye, tiling)


API = "DataCopy with SliceInfo: "


def test_misuse_is_an_error_naming_the_api(lib: rt.KernelLibrary) -> None:
    S, D = SAMPLE_SRC, SAMPLE_DST
    E = rt.SimulatorError
    expect_error(lib, E, API + "dimValue is 0, should be in [1, 8]", 0, S, D, dims=0)
    expect_error(lib, E, API + "dimValue is 9, should be in [1, 8]", 0, S, D, dims=9)
    expect_error(
        lib,
        E,
        API + "srcSliceInfo[1]: burstLen is 2, should be 1 in a dimension above the first",
        0,
        [S[0], (0, 2, 1, 2, 3)],
        D,
    )
    expect_error(
        lib,
        E,
        API + "srcSliceInfo[0]: startIndex 16, endIndex 87 should satisfy startIndex <= endIndex "
        "< shape 87",
        0,
        [(16, 87, 7, 3, 87), S[1]],
        D,
    )
    expect_error(
        lib,
        E,
        API + "dstSliceInfo[1]: startIndex 2, endIndex 1 should satisfy startIndex <= endIndex "
        "< shape 2",
        0,
        S,
        [D[0], (2, 1, 0, 1, 2)],
    )
    expect_error(
        lib,
        E,
        API + "srcSliceInfo selects 2 rows, dstSliceInfo 3: they should select the same number",
        0,
        S,
        [D[0], (0, 2, 0, 1, 3)],
        ub=144,
    )
    expect_error(
        lib,
        E,
        API + "srcSliceInfo selects 1 rows, dstSliceInfo 2: they should select the same number",
        1,
        [D[0], (0, 0, 0, 1, 2)],
        S,
    )
    expect_error(
        lib,
        E,
        API + "srcSliceInfo[0].shapeValue is 0, which takes the shapes from the tensors' ShapeInfo",
        0,
        [(16, 70, 7, 3, 0), S[1]],
        D,
    )
    expect_error(
        lib,
        E,
        API + "srcSliceInfo selects more than 1536 rows (CANN's MAX_SLICE_SIZE)",
        0,
        [(0, 7, 0, 1, 8), (0, 39, 0, 1, 40), (0, 39, 0, 1, 40)],
        [(0, 7, 0, 1, 8), (0, 39, 0, 1, 40), (0, 39, 0, 1, 40)],
        ub=12800,
        xe=12800,
    )
    expect_error(
        lib,
        rt.AlignmentError,
        API + "dst row 1 starts at element 47 of the LocalTensor, not on a 32-byte boundary",
        0,
        S,
        [(0, 46, 0, 3, 47), (0, 1, 0, 1, 2)],
    )
    expect_error(
        lib,
        rt.LocalMemoryOutOfBounds,
        API + "dst access of 384 bytes overruns the LocalTensor<float> of 88 elements",
        0,
        S,
        D,
        ub=88,
    )
    # rows 0 and 2 of 87 floats reach element 245 of the source, 71 + 174 of the destination
    expect_error(lib, rt.GlobalMemoryOutOfBounds, API + "bytes [", 0, S, D, xe=200)
    expect_error(lib, rt.GlobalMemoryOutOfBounds, API + "bytes [", 1, D, S, ub=96, ye=200)
    with pytest.raises(rt.SimulatorError, match=re.escape(API + "srcSliceInfo[0].shapeValue is 0")):
        gx, gy = rt.gm_empty(1024, "float32"), rt.gm_empty(8, "float32")
        rt.launch(
            lib, "slice_defaults", [gx, gy], block_dim=1, tiling=blob(0, S, D, 96, 96, 1024, 8)
        )
