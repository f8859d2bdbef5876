"""AscendAntiQuant (opgen_sim/quant.h) against numpy models of CANN's A2 paths
(asc-devkit impl/adv_api/detail/quantization/antiquant/ascend_antiquant_impl.h and
ascend_antiquant_c220_impl.h), bit for bit, for int8_t to half and to bfloat16_t, every A2/A3
overload, transposed or not; and the host's GetAscendAntiQuantMaxMinTmpSize /
GetAscendAntiQuantTmpBufferFactorSize against CANN's ascend_antiquant_tiling_impl.cpp. Each test
names the reference page it checks (AscendAntiQuant.md)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program
from .test_sim_dequant import _bf16_bits

SRC_N = 2048
PARAM_N = 256
SENTINEL = 0x5555

KERNEL = r"""
#include <cstring>
#include "kernel_operator.h"
using namespace AscendC;
using D = DST_T;

template <bool tr>
inline void Run(uint32_t mode, const LocalTensor<D>& dst, const LocalTensor<int8_t>& src,
                const LocalTensor<D>& off, const LocalTensor<D>& sc,
                const LocalTensor<uint8_t>& tmp, uint32_t k, const AntiQuantShapeInfo& info,
                D offS, D scS) {
    if (mode == 0) AscendAntiQuant<int8_t, D, tr>(dst, src, off, sc, tmp, k, info);
    if (mode == 1) AscendAntiQuant<int8_t, D, tr>(dst, src, off, sc, k, info);
    if (mode == 2) AscendAntiQuant<int8_t, D, tr>(dst, src, sc, tmp, k, info);
    if (mode == 3) AscendAntiQuant<int8_t, D, tr>(dst, src, offS, scS, tmp, k, info);
    if (mode == 4) AscendAntiQuant<int8_t, D, tr>(dst, src, offS, scS, k, info);
    if (mode == 5) AscendAntiQuant<int8_t, D, tr>(dst, src, scS, tmp, k, info);
}

extern "C" __global__ __aicore__ void antiquant_kernel(GM_ADDR x, GM_ADDR o, GM_ADDR s, GM_ADDR z,
                                                       GM_ADDR workspace, GM_ADDR tiling)
{
    const uint32_t* t = reinterpret_cast<const uint32_t*>(tiling);
    const uint32_t mode = t[0], k = t[1], srcCount = t[2], offCount = t[3], scCount = t[4];
    const uint32_t tmpBytes = t[5];
    const uint32_t setShape = t[10];
    D offS, scS;
    std::memcpy(&offS, t + 11, sizeof(D));
    std::memcpy(&scS, t + 12, sizeof(D));
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bo, bs, bz, bt;
    pipe.InitBuffer(bx, 2048);
    pipe.InitBuffer(bo, 256 * sizeof(D));
    pipe.InitBuffer(bs, 256 * sizeof(D));
    pipe.InitBuffer(bz, 2048 * sizeof(D));
    pipe.InitBuffer(bt, 8192);
    GlobalTensor<int8_t> xGm;
    GlobalTensor<D> oGm, sGm, zGm;
    xGm.SetGlobalBuffer((__gm__ int8_t*)x, 2048);
    oGm.SetGlobalBuffer((__gm__ D*)o, 256);
    sGm.SetGlobalBuffer((__gm__ D*)s, 256);
    zGm.SetGlobalBuffer((__gm__ D*)z, 2048);
    DataCopy(bx.Get<int8_t>(), xGm, 2048);
    DataCopy(bo.Get<D>(), oGm, 256);
    DataCopy(bs.Get<D>(), sGm, 256);
    LocalTensor<D> dst = bz.Get<D>();
    Duplicate(dst.ReinterpretCast<int16_t>(), (int16_t)0x5555, 2048);
    LocalTensor<int8_t> src = bx.Get<int8_t>(srcCount);
    LocalTensor<D> off = bo.Get<D>(offCount);
    LocalTensor<D> sc = bs.Get<D>(scCount);
    LocalTensor<uint8_t> tmp = bt.Get<uint8_t>(tmpBytes);
    AntiQuantShapeInfo info = {t[6], t[7], t[8], t[9]};
    if (setShape != 0) {  // the shapes on the tensors (ShapeInfo), shapeInfo left 0
        const uint32_t os[2] = {t[6], t[7]}, ss[2] = {t[8], t[9]};
        off.SetShapeInfo(ShapeInfo(2, os, DataFormat::ND));
        sc.SetShapeInfo(ShapeInfo(2, ss, DataFormat::ND));
        info = {};
    }
    if (mode < 10) Run<false>(mode, dst, src, off, sc, tmp, k, info, offS, scS);
    else Run<true>(mode - 10, dst, src, off, sc, tmp, k, info, offS, scS);
    DataCopy(zGm, dst, 2048);
}
"""


class Case(NamedTuple):
    mode: int
    k: int
    src: int
    off: int
    sc: int
    tmp: int
    shape: tuple[int, int, int, int]  # offset height, width, scale height, width
    set_shape: bool = False


def _lane(dst_t: str, s: np.ndarray, off: np.ndarray | None, sc: np.ndarray) -> np.ndarray:
    """CANN's per-element steps, as the destination's bits. half: cast, + offset, * scale, each
    rounded to half. bfloat16_t: in float (the source exactly, offset and scale widened), the
    result rounded to nearest even (saturating)."""
    if dst_t == "half":
        h = s.astype(np.float16)
        with np.errstate(over="ignore"):  # a half Mul overflows to inf, as the vector unit's
            if off is not None:
                h = (h.astype(np.float32) + off.view(np.float16).astype(np.float32)).astype(
                    np.float16
                )
            h = (sc.view(np.float16).astype(np.float32) * h.astype(np.float32)).astype(np.float16)
        return h.view(np.uint16)
    f = s.astype(np.float32)
    if off is not None:
        f = f + (off.astype(np.uint32) << 16).view(np.float32)
    f = f * (sc.astype(np.uint32) << 16).view(np.float32)
    return _bf16_bits(f)


def _per_column(
    dst_t: str,
    src: np.ndarray,
    off: np.ndarray | None,
    sc: np.ndarray,
    rows: int,
    cols: int,
    chunk: int | None = None,
) -> np.ndarray:
    """src [rows, cols] with offset[c] and scale[c] a column (c % chunk with CANN's chunking)."""
    idx = np.arange(cols) % (chunk or cols)
    s = src[: rows * cols].reshape(rows, cols)
    return _lane(dst_t, s, None if off is None else off[idx], sc[idx]).ravel()


def _per_row(
    dst_t: str, src: np.ndarray, off: np.ndarray | None, sc: np.ndarray, rows: int, k: int
) -> np.ndarray:
    """Transposed src [rows, k], row n with the n-th offset and scale (CANN's broadcast paths)."""
    s = src[: rows * k].reshape(rows, k)
    return _lane(dst_t, s, None if off is None else off[:rows, None], sc[:rows, None]).ravel()


def _grouped(
    dst_t: str,
    src: np.ndarray,
    off: np.ndarray | None,
    sc: np.ndarray,
    rows: int,
    k: int,
    width: int,
) -> np.ndarray:
    """Transposed src [rows, k] in `width` groups a row; group j of row i takes element
    i * width + j."""
    g = k // width
    s = src[: rows * k].reshape(rows, width, g)
    o = None if off is None else off[: rows * width].reshape(rows, width, 1)
    return _lane(dst_t, s, o, sc[: rows * width].reshape(rows, width, 1)).ravel()


def _expected(
    dst_t: str,
    c: Case,
    src: np.ndarray,
    off: np.ndarray,
    sc: np.ndarray,
    off_s: np.ndarray,
    sc_s: np.ndarray,
) -> np.ndarray:
    out = np.full(SRC_N, SENTINEL, np.uint16)
    mode, tr = c.mode % 10, c.mode >= 10
    with_off = mode in (0, 1, 3, 4)
    o = off if with_off else None
    if mode in (3, 4, 5):  # scalars: every element of src
        n = c.src
        out[:n] = _lane(
            dst_t, src[:n], np.repeat(off_s, n) if with_off else None, np.repeat(sc_s, n)
        )
        return out
    if not tr and with_off:
        n_cols = c.src // c.k
        fast = dst_t == "half" or c.tmp >= c.sc * 8 + 256 * c.k or mode == 1
        if fast:  # every row takes offset[c] and scale[c]; half casts all of src first
            out[: c.k * n_cols] = _per_column(dst_t, src, o, sc, c.k, n_cols)
            if dst_t == "half":
                out[c.k * n_cols : c.src] = (
                    src[c.k * n_cols : c.src].astype(np.float16).view(np.uint16)
                )
        else:  # the first k / scaleHeight rows, chunks of tmp / 8 from offset[0] and scale[0]
            rows = c.k // c.shape[2]
            out[: rows * n_cols] = _per_column(dst_t, src, o, sc, rows, n_cols, c.tmp // 8)
        return out
    if not tr:  # scale only: rows of the scale's width, row r with scale row r / (k / height)
        height, width = c.shape[2], c.shape[3]
        group = c.k // height
        chunk = c.tmp // 8 if dst_t == "bfloat16_t" else width
        for r in range(group * height):
            row = sc[(r // group) * width : (r // group + 1) * width]
            out[r * width : (r + 1) * width] = _per_column(
                dst_t, src[r * width :], None, row, 1, width, chunk
            )
        return out
    rows = c.src // c.k
    width = c.shape[1] if with_off else c.shape[3]
    if dst_t == "half":
        brcb = c.tmp // 2 >= 16 * c.shape[2] * (2 if with_off else 1) and c.k < 4096
    else:
        brcb = c.k % 64 == 0 and c.k <= 2040
    if brcb:  # row n takes the n-th offset and scale whatever their width; half casts src first
        out[: rows * c.k] = _per_row(dst_t, src, o, sc, rows, c.k)
        return out
    out[: rows * c.k] = _grouped(dst_t, src, o, sc, rows, c.k, width)
    return out


def _half_bits(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float16).view(np.uint16)


def _params(dst_t: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    src = rng.integers(-128, 128, SRC_N).astype(np.int8)
    src[:2] = [-128, 127]
    off = rng.uniform(-10, 10, PARAM_N).astype(np.float32)
    sc = rng.uniform(-10, 10, PARAM_N).astype(np.float32)
    sc[:2] = [1000.0, 0.001]  # half: 127 + offset times 1000 overflows to inf (a vector Mul)
    bits = _half_bits if dst_t == "half" else _bf16_bits
    return src, bits(off), bits(sc)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = Path(tmp_path_factory.mktemp("antiquant")) / "antiquant.cpp"
    src.write_text(KERNEL)
    return src


def _run(
    lib: rt.KernelLibrary,
    c: Case,
    src: np.ndarray,
    off: np.ndarray,
    sc: np.ndarray,
    off_s: int,
    sc_s: int,
) -> np.ndarray:
    x = rt.gm_empty(SRC_N, np.int8)
    x[:] = src
    o = rt.gm_empty(PARAM_N, np.uint16)
    o[:] = off
    s = rt.gm_empty(PARAM_N, np.uint16)
    s[:] = sc
    z = rt.gm_empty(SRC_N, np.uint16)
    words = [c.mode, c.k, c.src, c.off, c.sc, c.tmp, *c.shape, int(c.set_shape), off_s, sc_s]
    rt.launch(
        lib,
        "antiquant_kernel",
        [x, o, s, z],
        block_dim=1,
        tiling=np.array(words, np.uint32).tobytes(),
    )
    return np.asarray(z).copy()


NT = (1, 128, 1, 128)
CASES = [
    # not transposed, src [k, n]: the sample's shape (offset's ShapeInfo set, as the sample does)
    Case(0, 8, 1024, 128, 128, 8192, NT, True),
    Case(1, 8, 1024, 128, 128, 8192, NT, True),
    # bfloat16_t below the column-block path's buffer: the first k / 2 rows, chunks of 64 columns
    Case(0, 8, 1024, 128, 128, 512, (1, 128, 2, 128)),
    # a scale tensor only: rows of its width, groups of k / its height rows
    Case(2, 8, 1024, 0, 256, 8192, (0, 0, 2, 128)),
    Case(2, 8, 1024, 0, 256, 512, (0, 0, 2, 128), True),
    # scalars
    Case(3, 8, 1024, 0, 0, 8192, (0, 0, 0, 0)),
    Case(4, 8, 1024, 0, 0, 8192, (0, 0, 0, 0)),
    Case(5, 8, 1000, 0, 0, 512, (0, 0, 0, 0)),
    # transposed, src [n, k]: one offset and scale a row (broadcast path, and for half with
    # little buffer the grouped path), k 96 in three groups of 32 (grouped path; half's
    # broadcast path with a larger buffer gives row n the n-th element instead)
    Case(10, 64, 1024, 16, 16, 8192, (16, 1, 16, 1)),
    Case(11, 64, 1024, 16, 16, 0, (16, 1, 16, 1)),
    Case(10, 96, 1536, 48, 48, 512, (16, 3, 16, 3)),
    Case(10, 96, 1536, 48, 48, 8192, (16, 3, 16, 3), True),
    Case(12, 64, 1024, 0, 16, 8192, (0, 0, 16, 1)),
    Case(13, 64, 1024, 0, 0, 1024, (0, 0, 0, 0)),
    Case(15, 64, 1024, 0, 0, 8192, (0, 0, 0, 0)),
]
HALF_ONLY = [
    Case(10, 64, 1024, 16, 16, 512, (16, 1, 16, 1))
]  # bfloat16_t's broadcast path needs 5120


@pytest.mark.parametrize("dst_t", ["half", "bfloat16_t"])
def test_antiquant_runs_canns_paths(source: Path, dst_t: str) -> None:
    """AscendAntiQuant.md: dst = scale * (src + offset), PER_CHANNEL (tensors) and PER_TENSOR
    (scalars), with and without offset, transposed or not; bit for bit CANN's A2 steps (half:
    each instruction in half; bfloat16_t: in float, rounded once) along the elements and
    parameters each of CANN's paths reads."""
    lib = rt.build_kernel(source, entry="antiquant_kernel", defines={"DST_T": dst_t})
    rng = np.random.default_rng(5)
    src, off, sc = _params(dst_t, rng)
    bits = _half_bits if dst_t == "half" else _bf16_bits
    off_s, sc_s = bits(np.array([-3.5], np.float32)), bits(np.array([0.0123], np.float32))
    for c in CASES + (HALF_ONLY if dst_t == "half" else []):
        got = _run(lib, c, src, off, sc, int(off_s[0]), int(sc_s[0]))
        np.testing.assert_array_equal(
            got, _expected(dst_t, c, src, off, sc, off_s, sc_s), err_msg=str(c)
        )


def test_antiquant_sample_case_matches_numpy_half(source: Path) -> None:
    """The antiquant sample's case: its golden computes in float16 as the half path does."""
    lib = rt.build_kernel(source, entry="antiquant_kernel", defines={"DST_T": "half"})
    np.random.seed(10)
    src = np.random.uniform(-10, 10, [8, 128]).astype(np.int8)
    offset = np.random.uniform(-10, 10, [1, 128]).astype(np.float16)
    scale = np.random.uniform(-10, 10, [1, 128]).astype(np.float16)
    golden = (scale * (src + offset)).astype(np.float16).ravel()
    x = np.zeros(SRC_N, np.int8)
    x[:1024] = src.ravel()
    o = np.zeros(PARAM_N, np.uint16)
    o[:128] = offset.view(np.uint16).ravel()
    s = np.zeros(PARAM_N, np.uint16)
    s[:128] = scale.view(np.uint16).ravel()
    got = _run(lib, Case(0, 8, 1024, 128, 128, 8192, NT, True), x, o, s, 0, 0)
    np.testing.assert_array_equal(got[:1024], golden.view(np.uint16))


def test_transposed_k_not_32_bytes_is_an_error(source: Path) -> None:
    """AscendAntiQuant.md, 约束说明: with isTranspose, k must be 32-byte aligned."""
    lib = rt.build_kernel(source, entry="antiquant_kernel", defines={"DST_T": "half"})
    src, off, sc = _params("half", np.random.default_rng(1))
    with pytest.raises(
        rt.AlignmentError, match=r"k 48: with isTranspose, k \* sizeof\(int8_t\) must be a multiple"
    ):
        _run(lib, Case(10, 48, 768, 16, 16, 8192, (16, 1, 16, 1)), src, off, sc, 0, 0)


def test_bf16_broadcast_path_with_too_small_a_buffer_is_an_error(source: Path) -> None:
    """GetAscendAntiQuantMaxMinTmpSize.md: transposed per-channel bfloat16_t needs 80 floats a
    scale; CANN's kernel writes them unchecked."""
    lib = rt.build_kernel(source, entry="antiquant_kernel", defines={"DST_T": "bfloat16_t"})
    src, off, sc = _params("bfloat16_t", np.random.default_rng(1))
    with pytest.raises(
        rt.LocalMemoryOutOfBounds,
        match="sharedTmpBuffer holds 4096 bytes; the broadcast path needs 5120",
    ):
        _run(lib, Case(10, 64, 1024, 16, 16, 4096, (16, 1, 16, 1)), src, off, sc, 0, 0)


def test_float_output_stops_the_build(tmp_path: Path) -> None:
    """AscendAntiQuant.md: on the A2/A3 products dst is half or bfloat16_t."""
    src = tmp_path / "antiquant_float.cpp"
    src.write_text(KERNEL)
    with pytest.raises(rt.BuildError, match="AscendAntiQuant gives half or bfloat16_t"):
        rt.build_kernel(src, entry="antiquant_kernel", defines={"DST_T": "float"})


HOST_CPP = r"""
#include <cstdio>
#include <vector>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

static void Show(std::vector<int64_t> src, std::vector<int64_t> scale, bool tr, ge::DataType out) {
    uint32_t maxValue = 7, minValue = 7, live = 7, extra = 7;
    const ge::Shape s(src), sc(scale);
    AscendC::GetAscendAntiQuantMaxMinTmpSize(s, sc, tr, ge::DT_INT8, out, maxValue, minValue);
    AscendC::GetAscendAntiQuantTmpBufferFactorSize(s, sc, tr, ge::DT_INT8, out, live, extra);
    std::printf("%u %u %u %u\n", maxValue, minValue, live, extra);
}

int main() {
    Show({1024}, {128}, false, ge::DT_FLOAT16);    // the sample's call
    Show({8, 128}, {1, 128}, false, ge::DT_BF16);  // per channel, src [k, n]
    Show({16, 64}, {16, 1}, true, ge::DT_BF16);    // per channel, transposed src [n, k]
    Show({16, 64}, {1}, true, ge::DT_BF16);        // one scale: per tensor
    Show({8, 128}, {1}, false, ge::DT_BF16);
    Show({16, 40}, {16, 1}, true, ge::DT_FLOAT16); // k 40: CANN's check logs
    Show({16, 48}, {16, 1}, true, ge::DT_FLOAT16); // k 48: its rule (enum value 2 * k) passes
    const ge::Shape src(std::vector<int64_t>{8, 128}), scale(std::vector<int64_t>{2, 128});
    std::printf("%u\n",
                AscendC::GetAscendAntiQuantMinTmpSize(src, scale, false, ge::DT_INT8, ge::DT_BF16));
}
"""


def test_host_sizes_as_cann_computes_them(tmp_path: Path) -> None:
    """GetAscendAntiQuantMaxMinTmpSize.md, GetAscendAntiQuantTmpBufferFactorSize.md: half needs no
    buffer; bfloat16_t per channel: float offset and scale and 64 columns of k rows (2 * 4 * n +
    256 * k), transposed 80 floats a scale (320 * n); one scale: the source in float at most,
    1 KB at least (one live node)."""
    done = run_host_program(tmp_path, HOST_CPP)
    per_channel = 128 * 2 * 4 + 64 * 8 * 4
    assert done.stdout.splitlines() == [
        "0 0 0 0",
        f"{per_channel} {per_channel} 0 {per_channel}",
        f"{320 * 16} {320 * 16} 0 {320 * 16}",
        f"{16 * 64 * 4} 1024 1 0",
        f"{8 * 128 * 4} 1024 1 0",
        "0 0 0 0",
        "0 0 0 0",
        f"{256 * 2 * 4 + 64 * 8 * 4}",
    ]
    assert (
        done.stderr.count(
            "When isTranspose is true, srcShape is [N, K] where the dimension K must be 32B "
            "aligned!"
        )
        == 3
    )  # k 40, from MaxMin and from Max and Min as CANN
