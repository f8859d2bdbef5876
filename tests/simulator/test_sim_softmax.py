"""The SoftMax advanced APIs (opgen_sim/softmax.h): SoftMax in its overloads, SimpleSoftMax and
AdjustSoftMaxRes, against a numpy model of the float steps of CANN's A2/A3 implementation
(asc-devkit impl/adv_api/detail/activation/softmax/membase/v220 and membase/common): per row a max
and a sum folded to one 256-byte repeat and reduced as the simulator's reductions do, the basic
Exp (exp_ref.expf), float subtraction and division, half cast back with CAST_ROUND; the max/sum
outputs one 32-byte block per row; and the host side (tiling/softmax_tiling.h) as
softmax_tiling.cpp computes it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program
from .exp_ref import expf

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct SoftMaxTest {
    int32_t mode;
    uint32_t m;
    uint32_t k;
    uint32_t oriK;
    uint32_t tmpBytes;
    uint32_t from;
    float to;
    uint32_t pad;
    SoftMaxTiling tl;
};
REGISTER_TILING_DEFAULT(SoftMaxTest);

template <typename T, typename U>
__aicore__ inline void Body(GM_ADDR x, GM_ADDR y, GM_ADDR mx, GM_ADDR sm, const SoftMaxTest& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bmax, bsum, btmp;
    const uint32_t n = t.m * t.k;
    const uint32_t slots = t.m * 16;
    pipe.InitBuffer(bx, n * sizeof(T));
    pipe.InitBuffer(by, n * sizeof(T));
    pipe.InitBuffer(bmax, slots * sizeof(U));
    pipe.InitBuffer(bsum, slots * sizeof(U));
    pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, yGm;
    GlobalTensor<U> maxGm, sumGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    yGm.SetGlobalBuffer((__gm__ T*)y, n);
    maxGm.SetGlobalBuffer((__gm__ U*)mx, slots);
    sumGm.SetGlobalBuffer((__gm__ U*)sm, slots);
    LocalTensor<T> src = bx.Get<T>(), dst = by.Get<T>();
    LocalTensor<U> maxL = bmax.Get<U>(), sumL = bsum.Get<U>();
    LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
    DataCopy(src, xGm, n);
    DataCopy(dst, yGm, n);
    DataCopy(maxL, maxGm, slots);
    DataCopy(sumL, sumGm, slots);
    const SoftMaxShapeInfo shape = {t.m, t.k, t.m, t.oriK};
    if (t.mode == 0) SoftMax<T>(dst, sumL, maxL, src, tmp, t.tl, shape);
    if (t.mode == 1) SoftMax<T, false, true>(dst, sumL, maxL, src, tmp, t.tl, shape);
    if (t.mode == 2) SoftMax<T>(dst, sumL, maxL, src, t.tl, shape);
    if (t.mode == 3) SoftMax<T>(dst, src, tmp, t.tl, shape);
    if (t.mode == 4) SimpleSoftMax<T>(dst, sumL, maxL, src, tmp, t.tl, shape);
    if (t.mode == 5) SimpleSoftMax<T>(dst, sumL, maxL, src, t.tl, shape);
    if (t.mode == 6) SoftMax<T>(dst, sumL, maxL, src, tmp, t.tl);
    if (t.mode == 7 || t.mode == 8) {
        const bool changed =
            t.mode == 7 ? AdjustSoftMaxRes<T, U>(dst, maxL, t.from, (T)t.to, shape)
                        : AdjustSoftMaxRes<T, U, false, 1>(dst, maxL, t.from, (T)t.to, shape);
        sumL.SetValue(0, (U)(changed ? 1.0f : 0.0f));
    }
    if (t.mode == 9) {  // sharedTmpBuffer over src
        SoftMax<T>(dst, sumL, maxL, src, src.template ReinterpretCast<uint8_t>(), t.tl, shape);
    }
    if (t.mode == 10) SoftMax<T, false, false, true>(dst, sumL, maxL, src, tmp, t.tl, shape);
    if (t.mode == 11) SoftMax<T>(dst, src, t.tl, shape);
    DataCopy(yGm, dst, n);
    DataCopy(maxGm, maxL, slots);
    DataCopy(sumGm, sumL, slots);
}

extern "C" __global__ __aicore__ void softmax_ff(GM_ADDR x, GM_ADDR y, GM_ADDR mx, GM_ADDR sm,
                                                 GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    Body<float, float>(x, y, mx, sm, t);
}

extern "C" __global__ __aicore__ void softmax_hh(GM_ADDR x, GM_ADDR y, GM_ADDR mx, GM_ADDR sm,
                                                 GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    Body<half, half>(x, y, mx, sm, t);
}

extern "C" __global__ __aicore__ void softmax_hf(GM_ADDR x, GM_ADDR y, GM_ADDR mx, GM_ADDR sm,
                                                 GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    Body<half, float>(x, y, mx, sm, t);
}
"""

ENTRIES = {("float32", "float32"): "softmax_ff", ("float16", "float16"): "softmax_hh",
           ("float16", "float32"): "softmax_hf"}

F32 = np.float32


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("softmax")) / "softmax.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry=tuple(ENTRIES.values()))


# ---- the host's tiling, as softmax_tiling.cpp plans it -----------------------------------------
FIELDS = ["srcM", "srcK", "srcSize", "outMaxM", "outMaxK", "outMaxSize", "splitM", "splitK",
          "splitSize", "reduceM", "reduceK", "reduceSize", "rangeM", "tailM", "tailSplitSize",
          "tailReduceSize"]


def min_tmp(k: int, type_size: int) -> int:
    return (32 // type_size + k + 64) * 4


def host_tiling(m: int, k: int, type_size: int, ws_bytes: int) -> dict[str, int]:
    """SoftMaxTilingFunc: the rows a pass the buffer holds (a row: its 32-byte max/sum block, a
    float copy of the row and one repeat), a multiple of 8 below m, a divisor of m for a basic-block
    shape and below 64 * 256 elements."""
    per = 32 // type_size
    base = min(ws_bytes // 4 // (per + k + 64), m)
    if 8 < base < m:
        base = base // 8 * 8
    if base > 8 and m % 8 == 0 and k % 64 == 0:
        base = base // 8 * 8
        while m % base:
            base -= 8
        while base * k >= 64 * 256:
            base //= 2
    tail = m % base if base else 0
    values = [m, k, m * k, m, per, m * per, base, k, base * k, base, per, base * per,
              m // base if base else 0, tail, tail * k, tail * per]
    return dict(zip(FIELDS, values, strict=True))


# ---- the kernel's float steps -------------------------------------------------------------------

def lanes_max(v: np.ndarray) -> F32:
    """WholeReduceMax / BlockReduceMax on the simulator: a NaN wins, else the largest."""
    best = v[0]
    for e in v[1:]:
        if np.isnan(best):
            break
        if np.isnan(e) or e > best:
            best = e
    return F32(best)


def tree_sum(v: np.ndarray) -> F32:
    """Adjacent pairs, then pairs of those sums, over 64 lanes (missing lanes 0)."""
    t = np.zeros(64, F32)
    t[:len(v)] = v
    while len(t) > 1:
        t = (t[0::2] + t[1::2]).astype(F32)
    return F32(t[0])


def max_of(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The element-wise Max instruction: src0 > src1 ? src0 : src1."""
    return np.where(a > b, a, b).astype(F32)


def row_fold(x: np.ndarray, k: int, rows: int, basic: bool, is_max: bool) -> F32:
    """One row's max or sum over k columns in CANN's order: fold to 64 lanes, then reduce."""
    reduce = lanes_max if is_max else tree_sum
    if k < 64:
        return reduce(x[:k])
    reps, tail = divmod(k, 64)
    if not basic and k >= 512:
        acc = np.array([reduce(x[8 * b:8 * b + 8]) for b in range(64)], F32)
        for q in range(8, reps):
            blk = x[64 * q:64 * q + 64]
            acc = max_of(blk, acc) if is_max else (blk + acc).astype(F32)
    elif reps >= 2:
        acc = max_of(x[:64], x[64:128]) if is_max else (x[:64] + x[64:128]).astype(F32)
        for q in range(2, reps):
            blk = x[64 * q:64 * q + 64]
            if is_max:
                acc = max_of(acc, blk) if rows > reps else max_of(blk, acc)
            else:
                acc = (acc + blk).astype(F32)
    else:
        acc = x[:64].copy()
    if tail:
        t = x[64 * reps:k]
        acc[:tail] = max_of(acc[:tail], t) if is_max else (acc[:tail] + t).astype(F32)
    return reduce(acc)


def cast_round(x: np.ndarray) -> np.ndarray:
    """float32 -> float16 with CAST_ROUND: to nearest, ties away from zero."""
    r = x.astype(np.float16)
    rf, xf = r.astype(np.float64), x.astype(np.float64)
    toward = np.where(xf > rf, np.float16(np.inf), np.float16(-np.inf)).astype(np.float16)
    other = np.nextafter(r, toward).astype(np.float64)
    tie = (xf != rf) & (2 * xf == rf + other)
    return np.where(tie & (np.abs(other) > np.abs(rf)), other, rf).astype(np.float16)


def to_type(v: np.ndarray, dtype: str) -> np.ndarray:
    return v.astype(F32) if dtype == "float32" else cast_round(v.astype(F32))


def model(x: np.ndarray, ori_k: int, tl: dict[str, int], basic: bool, out_dtype: str,
          slot: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dst, max and sum (as laid out in their tensors, 16 elements a row reserved) of SoftMax."""
    m = x.shape[0]
    split, rng, tail = tl["splitM"], tl["rangeM"], tl["tailM"]
    width = slot if slot is not None else tl["reduceK"]
    dst = np.zeros_like(x)
    mx = np.zeros(m * 16, out_dtype)
    sm = np.zeros(m * 16, out_dtype)
    for r in range(rng * split + (0 if basic else tail)):
        rows = split if r // split < rng else tail
        xf = x[r].astype(F32)
        vmax = row_fold(xf, ori_k, rows, basic, True)
        e = expf((xf - vmax).astype(F32))
        vsum = row_fold(e, ori_k, rows, basic, False)
        dst[r] = to_type((e / vsum).astype(F32), str(x.dtype))
        at = (r // split) * tl["reduceSize"] + (r % split) * width
        mx[at:at + width] = to_type(np.array([vmax]), out_dtype)[0]
        sm[at:at + width] = to_type(np.array([vsum]), out_dtype)[0]
    return dst, mx, sm


# ---- launching ----------------------------------------------------------------------------------
def tiling_bytes(mode: int, m: int, k: int, ori_k: int, tmp_bytes: int, tl: dict[str, int],
                 frm: int = 0, to: float = 0.0) -> bytes:
    head = np.array([mode, m, k, ori_k, tmp_bytes, frm], np.uint32).tobytes()
    head += np.array([to], F32).tobytes() + np.zeros(1, np.uint32).tobytes()
    return head + np.array([tl[f] for f in FIELDS], np.uint32).tobytes()


def run(lib: rt.KernelLibrary, dtype: str, out_dtype: str, mode: int, x: np.ndarray,
        tl: dict[str, int], tmp_bytes: int, ori_k: int | None = None,
        mx: np.ndarray | None = None, sm: np.ndarray | None = None, y: np.ndarray | None = None,
        frm: int = 0, to: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m, k = x.shape
    gx, gy = rt.gm_empty(m * k, dtype), rt.gm_empty(m * k, dtype)
    gmx, gsm = rt.gm_empty(m * 16, out_dtype), rt.gm_empty(m * 16, out_dtype)
    gx[:] = x.ravel()
    gy[:] = 0 if y is None else y.ravel()
    gmx[:] = 0 if mx is None else mx
    gsm[:] = 0 if sm is None else sm
    blob = tiling_bytes(mode, m, k, k if ori_k is None else ori_k, tmp_bytes, tl, frm, to)
    rt.launch(lib, ENTRIES[(dtype, out_dtype)], [gx, gy, gmx, gsm], block_dim=1, tiling=blob)
    return np.asarray(gy).reshape(m, k).copy(), np.asarray(gmx).copy(), np.asarray(gsm).copy()


def inputs(m: int, k: int, dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((m, k)) * 3).astype(dtype)


def assert_bits(got: np.ndarray, want: np.ndarray) -> None:
    bits = np.uint32 if got.dtype == np.float32 else np.uint16
    np.testing.assert_array_equal(got.view(bits), want.view(bits))


# rows, columns, rows a pass the tmp buffer holds: k < 64; [64, 128) with a tail; [128, 512) in
# passes of 5 rows and a tail pass of 4; >= 512 with a tail
SHAPES_F32 = [(16, 40, 16), (8, 96, 8), (24, 200, 5), (8, 584, 3)]
SHAPES_F16 = [(16, 48, 16), (8, 112, 8), (24, 208, 5), (8, 592, 3)]


@pytest.mark.parametrize(("dtype", "shapes"), [("float32", SHAPES_F32), ("float16", SHAPES_F16)])
def test_softmax_follows_canns_float_steps(lib: rt.KernelLibrary, dtype: str,
                                           shapes: list[tuple[int, int, int]]) -> None:
    """SoftMax.md: reducemax, sub, exp, reducesum, div per row, each in CANN's order of float
    operations; max and sum fill one 32-byte block per row (8 floats, 16 halves)."""
    size = 2 if dtype == "float16" else 4
    for i, (m, k, rows) in enumerate(shapes):
        x = inputs(m, k, dtype, i)
        ws = rows * min_tmp(k, size)
        tl = host_tiling(m, k, size, ws)
        assert tl["splitM"] == rows
        y, mx, sm = run(lib, dtype, dtype, 0, x, tl, ws)
        want_y, want_mx, want_sm = model(x, k, tl, False, dtype)
        assert_bits(y, want_y)
        assert_bits(mx, want_mx)
        assert_bits(sm, want_sm)
        block = 32 // size
        blocks = mx[:m * block].reshape(m, block)
        assert (blocks == blocks[:, :1]).all()
        np.testing.assert_array_equal(blocks[:, 0], x.max(axis=1))
        np.testing.assert_allclose(y.astype(F32).sum(axis=1), 1, rtol=1e-2 if size == 2 else 1e-5)


def test_half_source_with_float_max_and_sum(lib: rt.KernelLibrary) -> None:
    """SoftMax.md, "LocalTensor的数据类型不同": half src/dst with float sumTensor/maxTensor, their
    block 8 floats a row (SoftMaxTilingFunc's dataTypeSize is the max/sum type: 4)."""
    m, k = 16, 144
    x = inputs(m, k, "float16", 7)
    ws = 4 * min_tmp(k, 4)
    tl = host_tiling(m, k, 4, ws)
    y, mx, sm = run(lib, "float16", "float32", 0, x, tl, ws)
    want_y, want_mx, want_sm = model(x, k, tl, False, "float32")
    assert_bits(y, want_y)
    assert_bits(mx, want_mx)
    assert_bits(sm, want_sm)
    assert mx[8] == x[1].astype(F32).max() and mx[15] == mx[8]


def test_half_results_round_ties_away_from_zero(lib: rt.KernelLibrary) -> None:
    """SimpleSoftMax.md / SoftMax.md, half results: CANN casts the float quotients back with
    CAST_ROUND, so a quotient halfway between two halves goes away from zero (RINT would keep the
    even one): 1 / 0.99951196f is 1 + 2^-11 exactly, between 1 and 1 + 2^-10."""
    m, k = 8, 32
    x = np.repeat(inputs(m, 1, "float16", 11), k, axis=1)  # each row one value: exp(x - max) = 1
    mx = np.zeros(m * 16, F32)
    mx[:m * 8] = np.repeat(x[:, 0].astype(F32), 8)
    sm = np.zeros(m * 16, F32)
    sm[:m * 8] = np.array([0x3F7FE003], np.uint32).view(F32)[0]
    q = F32(1) / sm[0]
    assert q == F32(1 + 2**-11) and q.astype(np.float16) == 1  # a tie; to even it would be 1
    tl = host_tiling(m, k, 4, m * min_tmp(k, 4))
    y, _, _ = run(lib, "float16", "float32", 4, x, tl, m * min_tmp(k, 4) * 2, mx=mx, sm=sm)
    assert (y == np.float16(1 + 2**-10)).all()


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_basic_block_folds_pairwise(lib: rt.KernelLibrary, dtype: str) -> None:
    """SoftMax.md, isBasicBlock: CANN's basic-block path folds a row's repeats pairwise at every
    width, where the generic path reduces the first 512 columns block by block: other sums."""
    size = 2 if dtype == "float16" else 4
    m, k = 16, 640
    x = inputs(m, k, dtype, 3)
    ws = 8 * min_tmp(k, size)
    tl = host_tiling(m, k, size, ws)
    assert (tl["splitM"], tl["tailM"]) == (8, 0)
    y, mx, sm = run(lib, dtype, dtype, 1, x, tl, ws)
    want_y, want_mx, want_sm = model(x, k, tl, True, dtype, slot=32 // size)
    assert_bits(y, want_y)
    assert_bits(mx, want_mx)
    assert_bits(sm, want_sm)
    generic = model(x.astype(F32), k, tl, False, "float32")[2]
    basic = model(x.astype(F32), k, tl, True, "float32")[2]
    assert not np.array_equal(generic, basic)  # the two orders give other bits on these rows


def test_shape_the_tiling_does_not_cover_is_replanned(lib: rt.KernelLibrary) -> None:
    """SoftMax.md, config.isCheckTiling: a shape other than the tiling's is re-planned in the kernel
    from sharedTmpBuffer (asc-devkit's sample runs 32 rows with a tiling for 64): here one row a
    pass, the max/sum blocks of the max/sum type (8 floats)."""
    m, k = 32, 32
    x = inputs(m, k, "float32", 5)
    ws = min_tmp(k, 4)
    tl = host_tiling(64, k, 4, ws)
    y, mx, sm = run(lib, "float32", "float32", 0, x, tl, ws)
    replanned = host_tiling(m, k, 4, ws)  # the kernel's rule (8 + 64 floats a row) gives 1 too
    assert replanned["splitM"] == 1
    want_y, want_mx, want_sm = model(x, k, replanned, False, "float32")
    assert_bits(y, want_y)
    assert_bits(mx, want_mx)
    assert_bits(sm, want_sm)


@pytest.mark.parametrize(("mode", "name"), [(2, "without sharedTmpBuffer"), (6, "default shape"),
                                            (3, "no max/sum"), (11, "no max/sum, no buffer")])
def test_other_overloads(lib: rt.KernelLibrary, mode: int, name: str) -> None:
    """SoftMax.md, 函数原型: the framework-buffer forms, the form without sumTensor/maxTensor and a
    default SoftMaxShapeInfo (the tiling's shape) give the same dst."""
    m, k = 16, 200
    x = inputs(m, k, "float32", mode)
    ws = m * min_tmp(k, 4)
    tl = host_tiling(m, k, 4, ws)
    y, mx, sm = run(lib, "float32", "float32", mode, x, tl, ws)
    want_y, want_mx, want_sm = model(x, k, tl, False, "float32")
    assert_bits(y, want_y)
    if mode in (2, 6):
        assert_bits(mx, want_mx)
        assert_bits(sm, want_sm)
    else:
        assert not mx.any() and not sm.any(), name


def test_padded_columns_take_no_part_in_the_reductions(lib: rt.KernelLibrary) -> None:
    """SoftMax.md, 约束说明: with oriSrcK < srcK the reductions take the first oriSrcK columns; the
    padded columns are still computed (and overwritten) with that row's max and sum."""
    m, k, ori_k = 8, 96, 70
    x = inputs(m, k, "float32", 9)
    x[:, ori_k:] = 50.0  # would dominate the max and the sum
    ws = m * min_tmp(k, 4)
    tl = host_tiling(m, k, 4, ws)
    y, mx, _ = run(lib, "float32", "float32", 0, x, tl, ws, ori_k=ori_k)
    want_y, want_mx, _ = model(x, ori_k, tl, False, "float32")
    assert_bits(y, want_y)
    assert_bits(mx, want_mx)
    assert (mx[:m * 8] < 50).all()


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_simple_softmax_uses_the_given_max_and_sum(lib: rt.KernelLibrary, dtype: str) -> None:
    """SimpleSoftMax.md: exp(src - max) / sum with given max and sum (half ones cast to float);
    with float SoftMax's own max and sum it gives SoftMax's dst. Each column c reads element
    c % 8 of its row's block, as CANN's broadcasting Sub/Div do."""
    size = 2 if dtype == "float16" else 4
    m, k = 16, 96
    x = inputs(m, k, dtype, 13)
    ws = m * min_tmp(k, size)
    tl = host_tiling(m, k, size, ws)
    y0, mx, sm = run(lib, dtype, dtype, 0, x, tl, ws)
    width = 32 // size
    rows = np.arange(m)[:, None] * width
    col = np.arange(k)[None, :] % 8
    xf = x.astype(F32)

    def want(mx: np.ndarray, sm: np.ndarray) -> np.ndarray:
        e = expf((xf - mx[rows + col].astype(F32)).astype(F32))
        return to_type((e / sm[rows + col].astype(F32)).astype(F32), dtype)

    for mode in (4, 5):  # with and without sharedTmpBuffer
        y, _, _ = run(lib, dtype, dtype, mode, x, tl, ws, mx=mx, sm=sm)
        assert_bits(y, want(mx, sm))
        if dtype == "float32":
            assert_bits(y, y0)
    mx2 = mx.copy()  # blocks whose elements differ
    mx2[:m * width] += np.tile(np.arange(width), m).astype(dtype)
    y, _, _ = run(lib, dtype, dtype, 4, x, tl, ws, mx=mx2, sm=sm)
    assert_bits(y, want(mx2, sm))


@pytest.mark.parametrize(("dtype", "frm"), [("float32", 0xFF7FFFFF), ("float16", 0x7BFF)])
def test_adjust_softmax_res(lib: rt.KernelLibrary, dtype: str, frm: int) -> None:
    """AdjustSoftMaxRes.md: rows whose max (the first element of the row's 32-byte block, or
    element j with stepSizeMode != 0) has the bits `from` become `to`; true when one did."""
    size = 2 if dtype == "float16" else 4
    m, k, width = 8, 32, 32 // size
    res = inputs(m, k, dtype, 17)
    bits = np.uint32 if size == 4 else np.uint16
    mx = np.zeros(m * 16, dtype)
    mx.view(bits)[[2 * width, 5 * width]] = frm
    mx.view(bits)[3 * width + 1] = frm  # not a block's first element: ignored
    tl = host_tiling(m, k, size, 4096)
    y, _, sm = run(lib, dtype, dtype, 7, res, tl, 64, mx=mx, y=res, frm=frm, to=0.5)
    want = res.copy()
    want[[2, 5]] = 0.5
    assert_bits(y, want)
    assert sm[0] == 1
    y, _, sm = run(lib, dtype, dtype, 7, res, tl, 64, mx=np.zeros(m * 16, dtype), y=res, frm=frm)
    assert_bits(y, res)
    assert sm[0] == 0
    # stepSizeMode 1: element j
    y, _, sm = run(lib, dtype, dtype, 8, res, tl, 64, mx=mx, y=res, frm=frm, to=0.5)
    want = res.copy()
    want[[r for r in range(m) if mx.view(bits)[r] == frm]] = 0.5
    assert_bits(y, want)
    assert sm[0] == 0  # elements 0..7 hold no `from`


@pytest.mark.parametrize(
    ("mode", "shape", "rows", "tmp_bytes", "error", "text"),
    [
        (0, (16, 64), 16, 1024, rt.LocalMemoryOutOfBounds,
         "SoftMax: sharedTmpBuffer holds 1024 bytes; the tiling's passes of 16 rows of [16, 64] "
         "need 4608"),
        (1, (16, 96), 16, None, rt.TilingError,
         "SoftMax: isBasicBlock needs srcK a multiple of 64 in [64, 2048), srcM a multiple of 8"),
        (0, (8, 36), 8, None, rt.AlignmentError,
         "SoftMax: srcK 36 of float is not 32-byte aligned"),
        (9, (8, 128), 8, None, rt.SimulatorError, "SoftMax: sharedTmpBuffer (UB offset 0"),
        (10, (8, 64), 8, None, rt.SimulatorError,
         "SoftMax: the NZ format (isDataFormatNZ = true) is not simulated"),
        (0, (8, 64), -1, 64, rt.LocalMemoryOutOfBounds,
         "SoftMax: the tiling is for [16, 64] and the shape is [8, 64], so the kernel plans from "
         "sharedTmpBuffer: its 64 bytes hold no row of 288 bytes"),
    ],
)
def test_misuse_is_an_error_naming_the_api(lib: rt.KernelLibrary, mode: int, shape: tuple[int, int],
                                           rows: int, tmp_bytes: int | None,
                                           error: type[Exception], text: str) -> None:
    """SoftMax.md, 约束说明 and SoftMax-SimpleSoftMax-Tiling.md: the buffer the tiling was planned
    for, a basic-block shape, a 32-byte aligned last axis, a buffer apart from the operands, ND."""
    m, k = shape
    x = inputs(m, k, "float32", 1)
    if rows < 0:
        tl = host_tiling(2 * m, k, 4, 2 * m * min_tmp(k, 4))
    else:
        tl = host_tiling(m, k, 4, rows * min_tmp(k, 4))
    tmp = tmp_bytes if tmp_bytes is not None else m * min_tmp(k, 4)
    with pytest.raises(error, match="block 0: " + re.escape(text)):
        run(lib, "float32", "float32", mode, x, tl, tmp)


HOST_CPP = r"""
#include <cstdio>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

static void Print(const AscendC::tiling::SoftMaxTiling& t) {
    const uint32_t* p = reinterpret_cast<const uint32_t*>(&t);
    for (int i = 0; i < 16; ++i) std::printf("%u%s", p[i], i == 15 ? "\n" : " ");
}

int main() {
    const ge::Shape a(std::vector<int64_t>{64, 32});
    std::printf("%u %u\n", AscendC::GetSoftMaxMinTmpSize(a, 4, false),
                AscendC::GetSoftMaxMaxTmpSize(a, 4, false));
    const ge::Shape b(std::vector<int64_t>{2, 8, 128});
    std::printf("%u %u\n", AscendC::GetSoftMaxMinTmpSize(b, 2, false),
                AscendC::GetSoftMaxMaxTmpSize(b, 2, false));
    AscendC::tiling::SoftMaxTiling t;
    AscendC::SoftMaxTilingFunc(a, 4, AscendC::GetSoftMaxMinTmpSize(a, 4, false), t);
    Print(t);
    AscendC::SoftMaxTilingFunc(ge::Shape(std::vector<int64_t>{24, 200}), 4, 5 * 1088 + 100, t);
    Print(t);
    optiling::SoftMaxTiling o;
    AscendC::SoftMaxTilingFunc(b, 2, 100000, o);
    std::printf("%u %u %u %u\n", o.get_splitM(), o.get_rangeM(), o.get_tailM(), o.get_reduceK());
    AscendC::SoftMaxTilingFunc(ge::Shape(std::vector<int64_t>{64, 512}), 4, 1 << 20, t);
    Print(t);
    std::printf("%d %d\n", AscendC::IsBasicBlockInSoftMax(t, 4),
                AscendC::IsBasicBlockInSoftMax(o, 2));
    std::printf("%u\n", AscendC::GetSoftMaxMinTmpSize(a, 3, false));
}
"""


def test_host_tiling_as_cann_computes_it(tmp_path: Path) -> None:
    """SoftMax-SimpleSoftMax-Tiling.md: GetSoftMaxMin/MaxTmpSize (one row / all rows of the
    32-byte block, the row in float and a repeat), SoftMaxTilingFunc's fields (softmax_tiling.cpp)
    and IsBasicBlockInSoftMax; a typeSize other than 2 or 4 is an error naming the function."""
    out = run_host_program(tmp_path, HOST_CPP)
    lines = out.stdout.splitlines()
    assert lines[0] == f"{min_tmp(32, 4)} {64 * min_tmp(32, 4)}"
    assert lines[1] == f"{min_tmp(128, 2)} {16 * min_tmp(128, 2)}"

    def fields(tl: dict[str, int]) -> str:
        return " ".join(str(tl[f]) for f in FIELDS)

    assert lines[2] == fields(host_tiling(64, 32, 4, min_tmp(32, 4)))
    assert lines[2].split()[6] == "1"
    assert lines[3] == fields(host_tiling(24, 200, 4, 5 * 1088 + 100))
    assert lines[3].split()[6:14] == ["5", "200", "1000", "5", "8", "40", "4", "4"]
    assert lines[4] == "16 1 0 16"  # all 16 rows of 128 halves in one pass
    basic = host_tiling(64, 512, 4, 1 << 20)
    assert lines[5] == fields(basic) and basic["splitM"] == 16  # 32 * 512 reaches 64 * 256
    assert lines[6] == "1 1"
    assert lines[7] == "0"
    assert "[ERROR][opgen][tiling] GetSoftMaxMinTmpSize: dataTypeSize is 3" in out.stderr
