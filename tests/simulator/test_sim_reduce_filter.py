"""The reduce and filter advanced APIs (opgen_sim/reduce_more.h, opgen_sim/filter_more.h):
ReduceMax / ReduceMin with the AR and RA patterns, Select with a byte mask and DropOut, against
numpy models of the steps of CANN's A2/A3 implementation (asc-devkit impl/adv_api/detail/reduce/
reduce_common_util_v220_impl.h, select/selectwithbytesmask, filter/dropout): the element-wise
Max/Min folds (src0 unless src1 is strictly better), the copies by Adds of 0, the first-best block
reduces with NaN winning, the mask tests through a cast to half, the byte mode's products (a
dropped element zero, as DropOut.md says) and the bit mode's select-then-multiply; and the host
side (tiling/reduce_filter_tiling.h) as CANN's tiling implementation computes it."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program

F32 = np.float32
F16 = np.float16

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct RfTiling {
    int32_t mode;
    uint32_t a;
    uint32_t b;
    uint32_t c;
    uint32_t tmpBytes;
    float value;
};
REGISTER_TILING_DEFAULT(RfTiling);

// Reduce: src [a * padded b] of T (a = first, b = last); out [max(a, b) rounded to 32 elements];
// mode bit 0 RA, bit 1 isReuseSource, bit 2 ReduceMin, bit 3 the stack-buffer form,
// bit 4 srcInnerPad false
template <typename T, bool ra, bool reuse, bool isMin, bool stack>
__aicore__ inline void ReduceCall(LocalTensor<T>& d, LocalTensor<T>& s, LocalTensor<uint8_t>& tmp,
                                  const uint32_t* shape, bool pad)
{
    using P = typename std::conditional<ra, Pattern::Reduce::RA, Pattern::Reduce::AR>::type;
    if constexpr (isMin) {
        if constexpr (stack) ReduceMin<T, P, reuse>(d, s, shape, pad);
        else ReduceMin<T, P, reuse>(d, s, tmp, shape, pad);
    } else {
        if constexpr (stack) ReduceMax<T, P, reuse>(d, s, shape, pad);
        else ReduceMax<T, P, reuse>(d, s, tmp, shape, pad);
    }
}

template <typename T>
__aicore__ inline void ReduceBody(GM_ADDR x, GM_ADDR y, GM_ADDR xo, RfTiling& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, btmp;
    constexpr uint32_t blk = 32 / sizeof(T);
    const uint32_t n = t.a * ((t.b + blk - 1) / blk * blk);
    const uint32_t no = ((t.a > t.b ? t.a : t.b) + 31) / 32 * 32;
    pipe.InitBuffer(bx, n * sizeof(T));
    pipe.InitBuffer(by, no * sizeof(T));
    if (t.tmpBytes != 0) pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, yGm, xoGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    yGm.SetGlobalBuffer((__gm__ T*)y, no);
    xoGm.SetGlobalBuffer((__gm__ T*)xo, n);
    LocalTensor<T> s = bx.Get<T>(), d = by.Get<T>();
    LocalTensor<uint8_t> tmp;
    if (t.tmpBytes != 0) tmp = btmp.Get<uint8_t>();
    DataCopy(s, xGm, n);
    DataCopy(d, yGm, no);
    const uint32_t shape[2] = {t.a, t.b};
    const bool pad = (t.mode & 16) == 0;
    switch (t.mode & 15) {
        case 0: ReduceCall<T, false, false, false, false>(d, s, tmp, shape, pad); break;
        case 1: ReduceCall<T, true, false, false, false>(d, s, tmp, shape, pad); break;
        case 2: ReduceCall<T, false, true, false, false>(d, s, tmp, shape, pad); break;
        case 3: ReduceCall<T, true, true, false, false>(d, s, tmp, shape, pad); break;
        case 4: ReduceCall<T, false, false, true, false>(d, s, tmp, shape, pad); break;
        case 5: ReduceCall<T, true, false, true, false>(d, s, tmp, shape, pad); break;
        case 8: ReduceCall<T, false, false, false, true>(d, s, tmp, shape, pad); break;
        case 9: ReduceCall<T, true, false, false, true>(d, s, tmp, shape, pad); break;
        case 11: ReduceCall<T, true, true, false, true>(d, s, tmp, shape, pad); break;
        default: break;
    }
    DataCopy(yGm, d, no);
    DataCopy(xoGm, s, n);
}

// Select: src [a * b] of T, mask [a * c] of U, out [a * b], mask after; value the scalar;
// mode 0 tensor/scalar, 1 scalar/tensor, 2 tensor/scalar without isReuseMask; 3 and 4 the
// first two under CANN 8's name SelectWithBytesMask
template <typename T, typename U>
__aicore__ inline void SelectBody(GM_ADDR x, GM_ADDR m, GM_ADDR y, GM_ADDR mo, RfTiling& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bm, by, btmp;
    const uint32_t n = t.a * t.b, nm = t.a * t.c;
    pipe.InitBuffer(bx, n * sizeof(T));
    pipe.InitBuffer(bm, nm * sizeof(U));
    pipe.InitBuffer(by, n * sizeof(T));
    pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, yGm;
    GlobalTensor<U> mGm, moGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    yGm.SetGlobalBuffer((__gm__ T*)y, n);
    mGm.SetGlobalBuffer((__gm__ U*)m, nm);
    moGm.SetGlobalBuffer((__gm__ U*)mo, nm);
    LocalTensor<T> s = bx.Get<T>(), d = by.Get<T>();
    LocalTensor<U> ml = bm.Get<U>();
    LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
    DataCopy(s, xGm, n);
    DataCopy(ml, mGm, nm);
    SelectWithBytesMaskShapeInfo info;
    info.firstAxis = t.a;
    info.srcLastAxis = t.b;
    info.maskLastAxis = t.c;
    const T v = static_cast<T>(t.value);
    if (t.mode == 0) Select(d, s, v, ml, tmp, info);
    if (t.mode == 1) Select(d, v, s, ml, tmp, info);
    if (t.mode == 2) Select<T, U, false>(d, s, v, ml, tmp, info);
    if (t.mode == 3) SelectWithBytesMask(d, s, v, ml, tmp, info);
    if (t.mode == 4) SelectWithBytesMask(d, v, s, ml, tmp, info);
    DataCopy(yGm, d, n);
    DataCopy(moGm, ml, nm);
}

// DropOut: src [a * b] of T, mask [a * c] bytes (rounded to 32), out [a * b], mask after; value
// keepProb; mode the dropOutMode, 8 the stack form, 9 isInitBitMode after a SetCmpMask of 2.0
template <typename T>
__aicore__ inline void DropOutBody(GM_ADDR x, GM_ADDR m, GM_ADDR y, GM_ADDR mo, RfTiling& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bm, by, btmp, bc;
    const uint32_t n = t.a * t.b, nm = (t.a * t.c + 31) / 32 * 32;
    pipe.InitBuffer(bx, n * sizeof(T));
    pipe.InitBuffer(bm, nm);
    pipe.InitBuffer(by, n * sizeof(T));
    pipe.InitBuffer(bc, 32);
    if (t.tmpBytes != 0) pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, yGm;
    GlobalTensor<uint8_t> mGm, moGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    yGm.SetGlobalBuffer((__gm__ T*)y, n);
    mGm.SetGlobalBuffer((__gm__ uint8_t*)m, nm);
    moGm.SetGlobalBuffer((__gm__ uint8_t*)mo, nm);
    LocalTensor<T> s = bx.Get<T>(), d = by.Get<T>();
    LocalTensor<uint8_t> ml = bm.Get<uint8_t>();
    LocalTensor<uint8_t> tmp;
    if (t.tmpBytes != 0) tmp = btmp.Get<uint8_t>();
    DataCopy(s, xGm, n);
    DataCopy(ml, mGm, nm);
    DropOutShapeInfo info;
    info.firstAxis = t.a;
    info.srcLastAxis = t.b;
    info.maskLastAxis = t.c;
    const float p = t.value;
    if (t.mode == 0) DropOut(d, s, ml, tmp, p, info);
    if (t.mode == 1) DropOut<T, false, 1>(d, s, ml, tmp, p, info);
    if (t.mode == 4) DropOut<T, false, 4>(d, s, ml, tmp, p, info);
    if (t.mode == 8) DropOut(d, s, ml, p, info);
    if (t.mode == 9) {
        LocalTensor<T> c = bc.Get<T>();
        Duplicate(c, static_cast<T>(2.0f), 32 / sizeof(T));
        SetCmpMask(c);
        DropOut<T, true>(d, s, ml, tmp, p, info);
    }
    DataCopy(yGm, d, n);
    DataCopy(moGm, ml, nm);
}

extern "C" __global__ __aicore__ void reduce_f(GM_ADDR x, GM_ADDR y, GM_ADDR xo, GM_ADDR ws,
                                             GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    ReduceBody<float>(x, y, xo, t);
}
extern "C" __global__ __aicore__ void reduce_h(GM_ADDR x, GM_ADDR y, GM_ADDR xo, GM_ADDR ws,
                                             GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    ReduceBody<half>(x, y, xo, t);
}
extern "C" __global__ __aicore__ void select_f_u8(GM_ADDR x, GM_ADDR m, GM_ADDR y, GM_ADDR mo,
    GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    SelectBody<float, uint8_t>(x, m, y, mo, t);
}
extern "C" __global__ __aicore__ void select_h_i16(GM_ADDR x, GM_ADDR m, GM_ADDR y, GM_ADDR mo,
    GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    SelectBody<half, int16_t>(x, m, y, mo, t);
}
extern "C" __global__ __aicore__ void select_f_i32(GM_ADDR x, GM_ADDR m, GM_ADDR y, GM_ADDR mo,
    GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    SelectBody<float, int32_t>(x, m, y, mo, t);
}
extern "C" __global__ __aicore__ void dropout_f(GM_ADDR x, GM_ADDR m, GM_ADDR y, GM_ADDR mo,
    GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    DropOutBody<float>(x, m, y, mo, t);
}
extern "C" __global__ __aicore__ void dropout_h(GM_ADDR x, GM_ADDR m, GM_ADDR y, GM_ADDR mo,
    GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    DropOutBody<half>(x, m, y, mo, t);
}
"""

ENTRIES = (
    "reduce_f",
    "reduce_h",
    "select_f_u8",
    "select_h_i16",
    "select_f_i32",
    "dropout_f",
    "dropout_h",
)


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("reduce_filter")) / "reduce_filter.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry=ENTRIES)


def blob(mode: int, a: int, b: int, c: int, tmp: int, value: float = 0.0) -> bytes:
    return struct.pack("<iIIIIf", mode, a, b, c, tmp, value)


def assert_bits(got: np.ndarray, want: np.ndarray) -> None:
    bits = np.uint32 if got.dtype == np.float32 else np.uint16
    np.testing.assert_array_equal(got.view(bits), want.astype(got.dtype).view(bits))


# ---- ReduceMax / ReduceMin -----------------------------------------------------------------------
def fold(a: np.ndarray, b: np.ndarray, is_max: bool) -> np.ndarray:
    """The element-wise Max/Min instruction: a unless b is strictly better (a NaN a loses)."""
    return np.where(a > b if is_max else a < b, a, b)


def first_best(v: np.ndarray, is_max: bool):
    """Block/WholeReduceMax/Min: the first best lane, the first NaN beating every number."""
    best = v[0]
    for x in v[1:]:
        if np.isnan(best):
            break
        if np.isnan(x) or (x > best if is_max else x < best):
            best = x
    return best


def reduce_model(
    x: np.ndarray, first: int, last: int, ra: bool, reuse: bool, is_max: bool
) -> tuple[np.ndarray, np.ndarray]:
    """CANN's steps; returns dst and the source after the call (changed only with isReuseSource)."""
    dt = x.dtype
    blk, rep = 32 // dt.itemsize, 256 // dt.itemsize
    pad = -(-last // blk) * blk
    src = x.copy()
    rows = src.reshape(first, pad)
    zero = dt.type(0)
    if not ra:
        dst = np.zeros(first, dt)
        if last <= blk:
            for r in range(first):
                dst[r] = first_best(rows[r, :last], is_max)
            return dst, src
        width = blk if last < rep else rep
        long_row = last > 255 * blk
        accs = []
        for r in range(first):
            acc = rows[r, :width].copy() if reuse else rows[r, :width] + zero
            for off in range(width, last, width):
                n = min(width, last - off)
                acc[:n] = fold(acc[:n], rows[r, off : off + n], is_max)
            dst[r] = first_best(acc, is_max)
            accs.append(acc)
            if reuse:
                home = r * rep if long_row else r * pad
                src[home : home + width] = acc
        if reuse and dt == F32 and width == rep:
            for r in range(first):
                home = r * (rep if long_row else pad)
                part = [
                    first_best(src[home + b * blk : home + (b + 1) * blk], is_max) for b in range(8)
                ]
                src[r * 8 : r * 8 + 8] = part
        return dst, src
    k = 1 << (first.bit_length() - 1)
    remain = first - k
    if reuse:
        cur = rows
        cur[:remain] = fold(cur[:remain], cur[k:first], is_max)
    elif remain:
        cur = rows[:k] + zero
        cur[:remain] = fold(cur[:remain], rows[k:first], is_max)
    elif k > 1:
        k //= 2
        cur = fold(rows[:k], rows[k : 2 * k], is_max)
    else:
        cur = rows
    while k > 1:
        k //= 2
        cur[:k] = fold(cur[:k], cur[k : 2 * k], is_max)
    return cur[0, :last] + zero, src


def tmp_need(first: int, last: int, ra: bool, ts: int) -> int:
    blk, rep = 32 // ts, 256 // ts
    if not ra:
        return 0 if last <= blk else first * (blk if last < rep else rep) * ts
    k = 1 << (first.bit_length() - 1)
    if k == first and first > 1:
        k //= 2
    return k * (-(-last * ts // 32) * 32)


def run_reduce(
    lib: rt.KernelLibrary, dtype: str, mode: int, x: np.ndarray, first: int, last: int, tmp: int
) -> tuple[np.ndarray, np.ndarray]:
    no = -(-max(first, last) // 32) * 32
    gx, gy, gxo = rt.gm_empty(x.size, dtype), rt.gm_empty(no, dtype), rt.gm_empty(x.size, dtype)
    gx[:] = x
    gy[:] = 7
    rt.launch(
        lib,
        "reduce_f" if dtype == "float32" else "reduce_h",
        [gx, gy, gxo],
        block_dim=1,
        tiling=blob(mode, first, last, 0, tmp),
    )
    return np.asarray(gy).copy(), np.asarray(gxo).copy()


def reduce_input(first: int, last: int, dtype: str, seed: int) -> np.ndarray:
    """Values with ties, signed zeros and a NaN or two, in rows padded to 32 bytes."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    pad = -(-last // (32 // dt.itemsize)) * (32 // dt.itemsize)
    x = rng.integers(-6, 6, (first, pad)).astype(dt) * dt.type(0.5)
    x[rng.random((first, pad)) < 0.1] = dt.type(-0.0)
    x[rng.random((first, pad)) < 0.02] = np.nan
    x[:, last:] = dt.type(99)  # the padding: never part of a result
    return x.reshape(-1)


@pytest.mark.parametrize(
    ("dtype", "first", "last", "ra"),
    [
        ("float32", 3, 5, False),  # below one block
        ("float32", 4, 8, False),  # one block
        ("float32", 5, 20, False),  # blocks
        ("float32", 3, 100, False),  # repeats
        ("float32", 2, 2100, False),  # past 255 blocks
        ("float16", 3, 37, False),
        ("float16", 2, 300, False),
        ("float32", 32, 136, True),  # the reducemax sample's
        ("float32", 5, 13, True),
        ("float32", 1, 24, True),
        ("float16", 6, 40, True),
    ],
)
@pytest.mark.parametrize("reuse", [False, True])
def test_reduce_max_follows_canns_steps(
    lib: rt.KernelLibrary, dtype: str, first: int, last: int, ra: bool, reuse: bool
) -> None:
    x = reduce_input(first, last, dtype, first * 1000 + last)
    ts = np.dtype(dtype).itemsize
    tmp = 0 if reuse else max(32, tmp_need(first, last, ra, ts))
    y, xo = run_reduce(lib, dtype, int(ra) | (2 if reuse else 0), x, first, last, tmp)
    want, src_after = reduce_model(x, first, last, ra, reuse, True)
    n = last if ra else first
    assert_bits(y[:n], want)
    assert (y[n:] == 7).all()
    assert_bits(xo, src_after)


@pytest.mark.parametrize(
    ("dtype", "first", "last", "ra"), [("float32", 4, 70, False), ("float16", 7, 24, True)]
)
def test_reduce_min_and_the_stack_form(
    lib: rt.KernelLibrary, dtype: str, first: int, last: int, ra: bool
) -> None:
    x = reduce_input(first, last, dtype, 7)
    ts = np.dtype(dtype).itemsize
    y, _ = run_reduce(
        lib, dtype, 4 | int(ra), x, first, last, max(32, tmp_need(first, last, ra, ts))
    )
    n = last if ra else first
    assert_bits(y[:n], reduce_model(x, first, last, ra, False, False)[0])
    y, _ = run_reduce(lib, dtype, 8 | int(ra), x, first, last, 0)
    assert_bits(y[:n], reduce_model(x, first, last, ra, False, True)[0])


# ---- Select with a byte mask ---------------------------------------------------------------------
def run_select(
    lib: rt.KernelLibrary,
    entry: str,
    mode: int,
    x: np.ndarray,
    mask: np.ndarray,
    rows: int,
    sl: int,
    ml: int,
    tmp: int,
    scalar: float,
) -> tuple[np.ndarray, np.ndarray]:
    gx, gy = rt.gm_empty(x.size, str(x.dtype)), rt.gm_empty(x.size, str(x.dtype))
    gm, gmo = rt.gm_empty(mask.size, str(mask.dtype)), rt.gm_empty(mask.size, str(mask.dtype))
    gx[:], gm[:] = x, mask
    rt.launch(
        lib, entry, [gx, gm, gy, gmo], block_dim=1, tiling=blob(mode, rows, sl, ml, tmp, scalar)
    )
    return np.asarray(gy).copy(), np.asarray(gmo).copy()


def mask_zero(m: np.ndarray) -> np.ndarray:
    """CANN's test through a cast to half: 4-byte masks by their bits read as a float."""
    if m.dtype.itemsize == 4:
        return (m.view(np.uint32) & 0x7FFFFFFF) == 0
    return m == 0


@pytest.mark.parametrize(
    ("entry", "t", "u", "rows", "sl", "ml", "mode"),
    [
        ("select_f_u8", F32, np.uint8, 2, 32, 32, 0),  # the select sample's
        ("select_f_u8", F32, np.uint8, 3, 8, 64, 0),  # rows packed in the mask
        ("select_f_u8", F32, np.uint8, 3, 8, 64, 2),  # packed in sharedTmpBuffer
        ("select_f_u8", F32, np.uint8, 2, 40, 64, 1),  # scalar/tensor
        ("select_h_i16", F16, np.int16, 4, 16, 32, 0),
        ("select_f_i32", F32, np.int32, 2, 16, 16, 1),
        ("select_f_u8", F32, np.uint8, 3, 8, 64, 3),  # SelectWithBytesMask, tensor/scalar
        ("select_h_i16", F16, np.int16, 4, 16, 32, 4),  # SelectWithBytesMask, scalar/tensor
    ],
)
def test_select_with_bytes_mask(
    lib: rt.KernelLibrary, entry: str, t, u, rows: int, sl: int, ml: int, mode: int
) -> None:
    rng = np.random.default_rng(rows * 100 + sl)
    x = rng.uniform(-4, 4, rows * sl).astype(t)
    x[::7] = t(-0.0)
    mask = rng.integers(0, 3, rows * ml).astype(u)
    if u == np.int32:
        mask[::5] = np.int32(-(2**31))  # a float -0.0: counts as zero
    scalar = 1.234
    tmp = 1024 + (-(-rows * sl * np.dtype(u).itemsize // 32) * 32 if mode == 2 else 0)
    y, mo = run_select(lib, entry, mode, x, mask, rows, sl, ml, tmp, scalar)
    packed = mask.reshape(rows, ml)[:, :sl].reshape(-1)
    zero = mask_zero(packed)
    s = t(scalar)
    want = np.where(zero, x, s) if mode not in (1, 4) else np.where(zero, s, x)
    assert_bits(y, want)
    if ml != sl and mode != 2:  # isReuseMask packs the rows in place
        np.testing.assert_array_equal(mo[: rows * sl], packed)
    else:
        np.testing.assert_array_equal(mo, mask)


# ---- DropOut -------------------------------------------------------------------------------------
def dropout_model(
    x: np.ndarray, mask: np.ndarray, rows: int, sl: int, ml: int, p: float, cmp_scalar: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    t = x.dtype.type
    div = t(F32(1) / F32(p))
    m = mask.copy()
    if sl < ml or (sl != ml and sl != 8 * ml):  # misaligned: rows packed in place
        keep = sl if sl < ml else sl // 8
        rowsb = [mask[r * ml : r * ml + keep] for r in range(rows)]
        m[: rows * keep] = np.concatenate(rowsb)
    if sl <= ml:  # byte mode: a 0 byte gives +0.0 (DropOut.md), else (mask * x) * div, rounded
        mv = m[: rows * sl].astype(t)
        with np.errstate(invalid="ignore"):
            return np.where(mv == 0, t(0), (mv * x) * div), m
    bits = np.unpackbits(m, bitorder="little")[: rows * sl].astype(bool)
    return np.where(bits, x, t(cmp_scalar)) * div, m


def run_dropout(
    lib: rt.KernelLibrary,
    mode: int,
    x: np.ndarray,
    mask: np.ndarray,
    rows: int,
    sl: int,
    ml: int,
    tmp: int,
    p: float,
) -> tuple[np.ndarray, np.ndarray]:
    dt = str(x.dtype)
    nm = -(-rows * ml // 32) * 32
    gx, gy = rt.gm_empty(x.size, dt), rt.gm_empty(x.size, dt)
    gm, gmo = rt.gm_empty(nm, "uint8"), rt.gm_empty(nm, "uint8")
    gx[:] = x
    gm[: mask.size] = mask
    rt.launch(
        lib,
        "dropout_f" if dt == "float32" else "dropout_h",
        [gx, gm, gy, gmo],
        block_dim=1,
        tiling=blob(mode, rows, sl, ml, tmp, p),
    )
    return np.asarray(gy).copy(), np.asarray(gmo).copy()[: mask.size]


@pytest.mark.parametrize(
    ("t", "rows", "sl", "ml", "mode"),
    [
        (F32, 4, 256, 32, 0),  # the dropout sample's: bit mode
        (F32, 3, 64, 64, 0),  # byte mode
        (F16, 3, 48, 64, 1),  # byte mode, rows packed
        (F32, 2, 64, 32, 4),  # bit mode, rows packed
        (F16, 2, 128, 16, 0),
        (F32, 2, 64, 8, 8),  # the stack form
        (F32, 2, 64, 8, 9),  # isInitBitMode: CmpMask's 2.0 for the dropped lanes
    ],
)
def test_dropout_follows_canns_steps(
    lib: rt.KernelLibrary, t, rows: int, sl: int, ml: int, mode: int
) -> None:
    rng = np.random.default_rng(rows * 1000 + sl + mode)
    x = rng.uniform(-100, 100, rows * sl).astype(t)
    x[3] = t(np.inf)
    mask = rng.integers(0, 3 if sl <= ml else 256, rows * ml).astype(np.uint8)
    p = float(F32(0.37))
    y, mo = run_dropout(lib, mode, x, mask, rows, sl, ml, 512, p)
    want, m_after = dropout_model(x, mask, rows, sl, ml, p, 2.0 if mode == 9 else 0.0)
    assert_bits(y, want)
    np.testing.assert_array_equal(mo, m_after)


# ---- misuse --------------------------------------------------------------------------------------
def test_misuse_is_an_error_naming_the_api(lib: rt.KernelLibrary) -> None:
    """The checks of CANN's A2/A3 code and the buffers its kernels use."""
    x = reduce_input(4, 20, "float32", 1)
    with pytest.raises(rt.SimulatorError, match=re.escape("ReduceMax: srcInnerPad is false")):
        run_reduce(lib, "float32", 16, x, 4, 20, 128)
    with pytest.raises(
        rt.LocalMemoryOutOfBounds,
        match=re.escape(
            "ReduceMax: sharedTmpBuffer holds 64 bytes; srcShape {4, 20} of float (AR) needs 128"
        ),
    ):
        run_reduce(lib, "float32", 0, x, 4, 20, 64)
    xs, ms = np.ones(64, F32), np.ones(64, np.uint8)
    with pytest.raises(
        rt.SimulatorError,
        match=re.escape("Select: info.maskLastAxis 48 must be a multiple of 16 and of 32 bytes"),
    ):
        run_select(lib, "select_f_u8", 0, xs, np.ones(96, np.uint8), 2, 32, 48, 1024, 1.0)
    with pytest.raises(
        rt.LocalMemoryOutOfBounds, match=re.escape("Select: sharedTmpBuffer holds 512 bytes")
    ):
        run_select(lib, "select_f_u8", 0, xs, ms, 2, 32, 32, 512, 1.0)
    xd, md = np.ones(128, F32), np.ones(64, np.uint8)
    with pytest.raises(
        rt.SimulatorError, match=re.escape("DropOut: keepProb is 1.000000; it must be in (0, 1)")
    ):
        run_dropout(lib, 0, xd, md, 2, 64, 32, 512, 1.0)
    with pytest.raises(
        rt.SimulatorError, match=re.escape("DropOut: info.srcLastAxis 40 must be a multiple of 16")
    ):
        run_dropout(lib, 0, np.ones(80, F32), md, 2, 40, 32, 512, 0.5)
    with pytest.raises(
        rt.LocalMemoryOutOfBounds, match=re.escape("DropOut: sharedTmpBuffer holds 128 bytes")
    ):
        run_dropout(lib, 0, xd, md[:16], 2, 64, 8, 128, 0.5)


# ---- the host side -------------------------------------------------------------------------------
HOST_CPP = r"""
#include <cstdio>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

int main() {
    using V = std::vector<int64_t>;
    using AscendC::ReducePattern;
    const ge::DataType f = ge::DT_FLOAT, h = ge::DT_FLOAT16;
    uint32_t mx = 7, mn = 7;
    const struct { V s; ge::DataType t; ReducePattern p; bool reuse; } cases[] = {
        {{3, 5}, f, ReducePattern::AR, false},    {{3, 20}, f, ReducePattern::AR, false},
        {{3, 100}, f, ReducePattern::AR, false},  {{2, 300}, h, ReducePattern::AR, false},
        {{32, 136}, f, ReducePattern::RA, false}, {{5, 13}, f, ReducePattern::RA, false},
        {{6, 40}, h, ReducePattern::RA, false},   {{32, 136}, f, ReducePattern::RA, true},
    };
    for (const auto& c : cases) {
        AscendC::GetReduceMaxMaxMinTmpSize(ge::Shape(c.s), c.t, c.p, true, c.reuse, mx, mn);
        std::printf("%u %u\n", mx, mn);
    }
    mx = mn = 7;
    const ge::Shape s32(V{32, 136});
    AscendC::GetReduceMaxMaxMinTmpSize(s32, f, ReducePattern::RA, false, true, mx, mn);
    AscendC::GetReduceMinMaxMinTmpSize(s32, ge::DT_INT32, ReducePattern::RA, true, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    const ge::Shape one(V{1}), s2(V{2, 32}), big(V{64, 128}), bigMask(V{64, 160});
    AscendC::GetSelectMaxMinTmpSize(s2, one, 4, s2, 1, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetSelectMaxMinTmpSize(big, one, 4, bigMask, 1, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetSelectMaxMinTmpSize(one, big, 2, bigMask, 2, true, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetDropOutMaxMinTmpSize(ge::Shape(V{4, 256, 32}), 4, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetDropOutMaxMinTmpSize(ge::Shape(V{2, 16}), 2, false, mx, mn);
    std::printf("%u %u %u\n", mx, mn, AscendC::GetDropOutMinTmpSize(ge::Shape(V{2, 16}), 3, false));
    struct SumCase {
        V s;
        ReducePattern p;
        bool reuse;
    };
    const SumCase sums[] = {
        {{3, 64}, ReducePattern::AR, false},  {{3, 100}, ReducePattern::AR, false},
        {{3, 128}, ReducePattern::AR, false}, {{1, 128}, ReducePattern::AR, false},
        {{32, 13}, ReducePattern::RA, false}, {{5, 13}, ReducePattern::RA, false},
        {{1, 13}, ReducePattern::RA, false},  {{3, 100}, ReducePattern::AR, true},
    };
    for (const auto& c : sums) {
        AscendC::GetReduceSumMaxMinTmpSize(ge::Shape(c.s), f, c.p, true, c.reuse, mx, mn);
        std::printf("%u %u", mx, mn);
        AscendC::GetReduceMeanMaxMinTmpSize(ge::Shape(c.s), f, c.p, true, c.reuse, mx, mn);
        std::printf(" %u %u\n", mx, mn);
    }
    mx = mn = 7;
    const ge::Shape s100(V{3, 100});
    AscendC::GetReduceSumMaxMinTmpSize(s100, h, ReducePattern::AR, true, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    return 0;
}
"""


def test_host_tiling_as_cann_computes_it(tmp_path: Path) -> None:
    """ReduceMax-Tiling.md, Select's and DropOut's tiling pages: asc-devkit's figures; a bad
    argument is reported and leaves the outputs as they were."""
    out = run_host_program(tmp_path, HOST_CPP)
    lines = out.stdout.splitlines()
    sizes = [
        0,
        3 * 8 * 4,
        3 * 64 * 4,
        2 * 128 * 2,
        16 * 544,
        4 * 64,
        4 * 96,
        0,
    ]
    assert lines[:8] == [f"{v} {v}" for v in sizes]
    assert lines[8] == "7 7"
    assert "GetReduceMaxMaxMinTmpSize: isSrcInnerPad must be true on the Atlas A2/A3" in out.stderr
    assert "GetReduceMinMaxMinTmpSize: dataType" in out.stderr
    assert lines[9] == "1024 1024"
    assert lines[10] == f"{8192 * 2 + 512 + 8192} {4096 * 2 + 512 + 8192}"
    assert lines[11] == f"{8192 * 2 + 512} {4096 * 2 + 512}"
    assert lines[12] == f"{2 * 4 * 256 * 32 * 4} 512"
    assert lines[13] == "512 512 0"
    assert "GetDropOutMinTmpSize: typeSize is 3" in out.stderr
    # ReduceSum and ReduceMean (asc-devkit's GetReduceSumMeanCommonTmpSize): float only; AR 0 up
    # to 64 floats, else first * k floats; RA k rows of last rounded up to 8 floats
    sums = [0, 3 * 64 * 4, 3 * 64 * 4, 128 * 4, 16 * 16 * 4, 4 * 16 * 4, 1 * 16 * 4, 0]
    assert lines[14:22] == [f"{v} {v} {v} {v}" for v in sums]
    assert lines[22] == "7 7"
    assert "GetReduceSumMaxMinTmpSize: dataType 1 is not supported; the Atlas A2/A3 take DT_FLOAT" \
        in out.stderr
