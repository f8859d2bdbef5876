"""The rest of the SoftMax family (opgen_sim/softmax.h): LogSoftMax, SoftmaxGrad, SoftmaxGradFront
and SoftmaxFlashV2, against numpy models of the float steps of CANN's A2/A3 implementation
(asc-devkit impl/adv_api/detail/activation/softmax/membase/common and v220): the rows a pass each
plans, the reductions in their order (SoftMax's, SoftmaxGrad's repeat-by-repeat block sums,
SoftmaxFlashV2's basic-block trees), the basic Exp (exp_ref.expf) and libm's logf, half cast
back with CAST_ROUND; and the
host side (tiling/softmax_tiling.h) as softmax_tiling.cpp and logsoftmax_tiling.cpp compute it."""

from __future__ import annotations

import ctypes
import ctypes.util
import re
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program
from .test_sim_softmax import FIELDS, cast_round, expf, lanes_max, max_of, row_fold, tree_sum

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct MoreTest {
    int32_t mode;
    uint32_t m;
    uint32_t k;
    uint32_t oriK;
    uint32_t tmpBytes;
    uint32_t oriM;
    uint32_t pad0;
    uint32_t pad1;
    SoftMaxTiling tl;
};
REGISTER_TILING_DEFAULT(MoreTest);

constexpr SoftmaxConfig NO_BRC_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC};

template <typename T, typename U>
__aicore__ inline void Body(GM_ADDR x, GM_ADDR g, GM_ADDR y, GM_ADDR mx, GM_ADDR sm, GM_ADDR imx,
                            GM_ADDR ism, GM_ADDR em, const MoreTest& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bg, by, bmx, bsm, bimx, bism, bem, btmp;
    const uint32_t n = t.m * t.k;
    const uint32_t slots = t.m * 16;
    pipe.InitBuffer(bx, n * sizeof(T));
    pipe.InitBuffer(bg, n * sizeof(T));
    pipe.InitBuffer(by, n * sizeof(T));
    pipe.InitBuffer(bmx, slots * sizeof(U));
    pipe.InitBuffer(bsm, slots * sizeof(U));
    pipe.InitBuffer(bimx, slots * sizeof(U));
    pipe.InitBuffer(bism, slots * sizeof(U));
    pipe.InitBuffer(bem, slots * sizeof(T));
    pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, gGm, yGm, emGm;
    GlobalTensor<U> mxGm, smGm, imxGm, ismGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    gGm.SetGlobalBuffer((__gm__ T*)g, n);
    yGm.SetGlobalBuffer((__gm__ T*)y, n);
    emGm.SetGlobalBuffer((__gm__ T*)em, slots);
    mxGm.SetGlobalBuffer((__gm__ U*)mx, slots);
    smGm.SetGlobalBuffer((__gm__ U*)sm, slots);
    imxGm.SetGlobalBuffer((__gm__ U*)imx, slots);
    ismGm.SetGlobalBuffer((__gm__ U*)ism, slots);
    LocalTensor<T> src = bx.Get<T>(), grad = bg.Get<T>(), dst = by.Get<T>(), eml = bem.Get<T>();
    LocalTensor<U> maxL = bmx.Get<U>(), sumL = bsm.Get<U>();
    LocalTensor<U> inMax = bimx.Get<U>(), inSum = bism.Get<U>();
    LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
    DataCopy(src, xGm, n);
    DataCopy(grad, gGm, n);
    DataCopy(dst, yGm, n);
    DataCopy(eml, emGm, slots);
    DataCopy(maxL, mxGm, slots);
    DataCopy(sumL, smGm, slots);
    DataCopy(inMax, imxGm, slots);
    DataCopy(inSum, ismGm, slots);
    const SoftMaxShapeInfo shape = {t.m, t.k, t.oriM, t.oriK};
    if constexpr (std::is_same_v<T, U>) {
        LogSoftMaxTiling lt;  // CANN's LogSoftMax reads none of it
        if (t.mode == 0) LogSoftMax<T>(dst, sumL, maxL, src, tmp, lt, shape);
        if (t.mode == 1) {  // the shape from the source's ShapeInfo
            const uint32_t dims[2] = {t.m, t.k};
            src.SetShapeInfo(ShapeInfo(2, dims));
            LogSoftMax<T>(dst, sumL, maxL, src, tmp, lt);
        }
        if (t.mode == 2) SoftmaxGrad<T>(dst, grad, src, tmp, t.tl, false, shape);
        if (t.mode == 3) SoftmaxGrad<T>(dst, grad, src, tmp, t.tl, true, shape);
        if (t.mode == 4) SoftmaxGradFront<T>(dst, grad, src, tmp, t.tl, shape);
        if (t.mode == 5) SoftmaxGradFront<T, true>(dst, grad, src, tmp, t.tl, shape);
        if (t.mode == 6) SoftmaxGrad<T>(src, grad, src, tmp, t.tl, false, shape);  // dst over src
        if (t.mode == 7) SoftmaxGrad<T>(dst, grad, src, t.tl, false, shape);
        if (t.mode == 20) LogSoftMax<T, false, true>(dst, sumL, maxL, src, tmp, lt, shape);
        const LocalTensor<uint8_t> srcBytes = src.template ReinterpretCast<uint8_t>();
        const LocalTensor<uint8_t> gradBytes = grad.template ReinterpretCast<uint8_t>();
        if (t.mode == 21) LogSoftMax<T>(dst, sumL, maxL, src, srcBytes, lt, shape);
        if (t.mode == 23) LogSoftMax<T>(src, sumL, maxL, src, tmp, lt, shape);
        if (t.mode == 24) SoftmaxGradFront<T>(dst, grad, src, gradBytes, t.tl, shape);
    }
#define FLASH_ARGS dst, sumL, maxL, src, eml, inSum, inMax
    if (t.mode == 10) SoftmaxFlashV2<T, false>(FLASH_ARGS, tmp, t.tl, shape);
    if (t.mode == 11) SoftmaxFlashV2<T, true>(FLASH_ARGS, tmp, t.tl, shape);
    if (t.mode == 12) SoftmaxFlashV2<T, false, false, true>(FLASH_ARGS, tmp, t.tl, shape);
    if (t.mode == 13) SoftmaxFlashV2<T, true, false, true>(FLASH_ARGS, tmp, t.tl, shape);
    if (t.mode == 14) {  // in place, as a K-loop does: src/dst, max/inMax, sum/inSum shared
        SoftmaxFlashV2<T, true, false, true>(src, sumL, maxL, src, eml, sumL, maxL, tmp, t.tl,
                                             shape);
    }
    if (t.mode == 15) SoftmaxFlashV2<T, true>(FLASH_ARGS, t.tl, shape);
    if (t.mode == 16) {  // the kernel-side tiling function's plan; its fields into grad
        const SoftMaxTiling kt =
            SoftMaxFlashV2TilingFunc(shape, sizeof(T), sizeof(U), t.tmpBytes, true, true);
        SoftmaxFlashV2<T, true, false, true>(FLASH_ARGS, tmp, kt, shape);
        const uint32_t* words = reinterpret_cast<const uint32_t*>(&kt);
        LocalTensor<uint32_t> out = grad.template ReinterpretCast<uint32_t>();
        for (int i = 0; i < 16; ++i) out.SetValue(i, words[i]);
    }
    if (t.mode == 22) {
        SoftmaxFlashV2<T, true, false, false, false, NO_BRC_CFG>(FLASH_ARGS, tmp, t.tl, shape);
    }
    DataCopy(xGm, src, n);
    DataCopy(gGm, grad, n);
    DataCopy(yGm, dst, n);
    DataCopy(emGm, eml, slots);
    DataCopy(mxGm, maxL, slots);
    DataCopy(smGm, sumL, slots);
    DataCopy(imxGm, inMax, slots);
    DataCopy(ismGm, inSum, slots);
}

#define ENTRY(NAME, T, U)                                                                 \
    extern "C" __global__ __aicore__ void NAME(GM_ADDR x, GM_ADDR g, GM_ADDR y, GM_ADDR mx, \
                                               GM_ADDR sm, GM_ADDR imx, GM_ADDR ism,        \
                                               GM_ADDR em, GM_ADDR ws, GM_ADDR tiling)      \
    {                                                                                     \
        GET_TILING_DATA(t, tiling);                                                       \
        Body<T, U>(x, g, y, mx, sm, imx, ism, em, t);                                     \
    }
ENTRY(more_ff, float, float)
ENTRY(more_hh, half, half)
ENTRY(more_hf, half, float)
"""

ENTRIES = {("float32", "float32"): "more_ff", ("float16", "float16"): "more_hh",
           ("float16", "float32"): "more_hf"}

_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
_LIBM.logf.restype = ctypes.c_float
_LIBM.logf.argtypes = [ctypes.c_float]

F32 = np.float32
LOG10_E = F32(0.4342944819)  # CANN's SCALAR_NATURE_LOG_10


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("softmax_more")) / "softmax_more.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry=tuple(ENTRIES.values()))


# ---- float steps ---------------------------------------------------------------------------------
def logf(a: np.ndarray) -> np.ndarray:
    return np.array([_LIBM.logf(float(v)) for v in a.ravel()], F32).reshape(a.shape)


def tree(v: np.ndarray) -> F32:
    """Adjacent pairs, then pairs of those sums (a power-of-two count, no padding)."""
    t = np.asarray(v, F32).copy()
    while len(t) > 1:
        t = (t[0::2] + t[1::2]).astype(F32)
    return F32(t[0])


def to_type(v: np.ndarray, dtype: str) -> np.ndarray:
    return np.asarray(v, F32) if dtype == "float32" else cast_round(np.asarray(v, F32))


def nd_split(floats: int, size1: int, per: int, m: int, k: int, basic: bool) -> int:
    """CANN's CalculateNDSplitM: the rows a kernel-side plan takes from its work space."""
    rows = min(floats // (per + k + 64) if size1 == 2 else floats // (per + 64), m)
    if basic and rows > 8 and m % 8 == 0:
        rows = rows // 8 * 8
        while m % rows:
            rows -= 8
        while rows * k >= 64 * 256:
            rows //= 2
    return rows


def fields(m: int, k: int, rows: int, per: int) -> dict[str, int]:
    tail = m % rows if rows else 0
    values = [m, k, m * k, m, per, m * per, rows, k, rows * k, rows, per, rows * per,
              m // rows if rows else 0, tail, tail * k, tail * per]
    return dict(zip(FIELDS, values, strict=True))


def adjust_basic(rows: int, m: int, k: int) -> int:
    """AdjustToBasicBlockBaseM of the host tiling functions."""
    if rows > 8 and m % 8 == 0 and k % 64 == 0:
        rows = rows // 8 * 8
        while m % rows:
            rows -= 8
        while rows * k >= 64 * 256:
            rows //= 2
    return rows


# ---- the host rules (softmax_tiling.cpp, logsoftmax_tiling.cpp) ----------------------------------
def log_row(k: int, size: int) -> int:
    return 32 // size + k + 64


def grad_row(k: int, size: int, front: bool) -> int:
    per = 32 // size
    return 2 * per + 3 * k + 64 if size == 2 else (per if front else 2 * per) + k + 64


def flash_row(k: int, size1: int, size2: int, basic: bool) -> int:
    per = 32 // size2
    if basic:
        return per + (k if size1 == 2 else 0) + (128 if k == 1024 else 64)
    return 2 * per + k + 64 if size1 == 2 else per + 64


def host_plan(m: int, k: int, ws: int, row: int, per: int) -> dict[str, int]:
    """SoftMaxTilingFunc's pattern: rows the buffer holds, a multiple of 8 below m, basic-block."""
    rows = min(ws // 4 // row, m)
    if 8 < rows < m:
        rows = rows // 8 * 8
    return fields(m, k, adjust_basic(rows, m, k), per)


def flash_host_plan(m: int, k: int, size1: int, size2: int, ws: int, basic: bool) -> dict[str, int]:
    basic = basic and k % 64 == 0 and m % 8 == 0
    rows = ws // 4 // flash_row(k, size1, size2, basic)
    if basic:
        rows = adjust_basic(min(rows, m), m, k)
    rows = min(rows, m)
    if 8 < rows < m:
        rows = rows // 8 * 8
    return fields(m, k, rows, 32 // size2)


# ---- models of the kernels -----------------------------------------------------------------------
def slot_rows(tl: dict[str, int], basic: bool = False) -> list[tuple[int, int]]:
    """(row, rows of its pass) for every row the plan computes."""
    split, rng, tail = tl["splitM"], tl["rangeM"], tl["tailM"]
    n = rng * split + (0 if basic else tail)
    return [(r, split if r // split < rng else tail) for r in range(n)]


def log_model(x: np.ndarray, ori_m: int, ori_k: int, tmp_bytes: int) -> tuple[np.ndarray, ...]:
    """LogSoftMax: re-planned from the buffer; SoftMax's max, exp, sum and quotient, then Ln and
    log10(e), each row's max/sum in one 32-byte block."""
    m, k = x.shape
    dtype = str(x.dtype)
    per = 32 // x.itemsize
    rows = nd_split(tmp_bytes // 4, x.itemsize, per, m, k, False)
    if 8 < rows < ori_m:
        rows = rows // 8 * 8
    tl = fields(ori_m, k, min(rows, ori_m), per)
    dst = np.zeros_like(x)
    mx = np.zeros(m * 16, dtype)
    sm = np.zeros(m * 16, dtype)
    for r, pass_rows in slot_rows(tl):
        xf = x[r].astype(F32)
        vmax = row_fold(xf, ori_k, pass_rows, False, True)
        e = expf((xf - vmax).astype(F32))
        vsum = row_fold(e, ori_k, pass_rows, False, False)
        dst[r] = to_type((logf((e / vsum).astype(F32)) * LOG10_E).astype(F32), dtype)
        mx[r * per:(r + 1) * per] = to_type(np.array([vmax]), dtype)[0]
        sm[r * per:(r + 1) * per] = to_type(np.array([vsum]), dtype)[0]
    return dst, mx, sm


def grad_sum(p: np.ndarray, k: int) -> F32:
    """ReduceSumLastNDImpl: block sums added repeat after repeat, reduced as a block; the tail
    columns as one masked repeat, added last."""
    reps, tail = divmod(k, 64)
    aligned = F32(0)
    if reps:
        acc = np.array([tree(p[8 * b:8 * b + 8]) for b in range(8)], F32)
        for q in range(1, reps):
            part = np.array([tree(p[64 * q + 8 * b:64 * q + 8 * b + 8]) for b in range(8)], F32)
            acc = (acc + part).astype(F32)
        aligned = tree(acc)
    if not tail:
        return aligned
    t = tree_sum(p[64 * reps:k])
    return t if reps == 0 else F32(aligned + t)


def front_basic_sum(p: np.ndarray, k: int) -> F32:
    """SoftmaxGradFront's basic block: the repeats added in order, then the 64 lanes' tree."""
    acc = p[:64].copy()
    for q in range(1, k // 64):
        acc = (acc + p[64 * q:64 * q + 64]).astype(F32)
    return tree(acc)


def grad_model(y: np.ndarray, g: np.ndarray, tl: dict[str, int], front: bool, basic: bool,
               ori_k: int) -> np.ndarray:
    """SoftmaxGrad: s = rowsum(grad * src); dst = (grad - s) * src, or with isFront s in one
    32-byte block a row (laid out [m * 16] then)."""
    m, k = y.shape
    dtype = str(y.dtype)
    per = 32 // y.itemsize
    out = np.zeros(m * 16, dtype) if front else np.zeros_like(y)
    for r, _ in slot_rows(tl):
        yf, gf = y[r].astype(F32), g[r].astype(F32)
        p = (yf * gf).astype(F32)
        whole_pass = r // tl["splitM"] < tl["rangeM"]
        s = front_basic_sum(p, k) if basic and whole_pass else grad_sum(p, ori_k)
        if front:
            out[r * per:(r + 1) * per] = to_type(np.array([s]), dtype)[0]
        else:
            out[r] = to_type(((gf - s) * yf).astype(F32), dtype)
    return out


def flash_basic(x: np.ndarray, k: int, rows: int, is_max: bool) -> F32:
    """SoftmaxFlashV2's basic-block reductions (softmax_flashv2_block_reduce_impl.h)."""
    red = lanes_max if is_max else tree

    def op(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return max_of(a, b) if is_max else (a + b).astype(F32)

    if k == 512:
        return red(x[:512])
    if k == 1024:
        v = np.array([red(x[64 * q:64 * q + 64]) for q in range(16)], F32)
        return red(op(v[:8], v[8:]))
    if k > 512:
        acc = np.array([red(x[8 * b:8 * b + 8]) for b in range(64)], F32)
        for q in range(8, k // 64):
            acc = op(x[64 * q:64 * q + 64], acc)
        return red(acc)
    return row_fold(x, k, rows, True, is_max)


def flash_model(x: np.ndarray, out_dtype: str, tl: dict[str, int], update: bool, basic: bool,
                in_max: np.ndarray, in_sum: np.ndarray, ori_k: int) -> dict[str, np.ndarray]:
    """SoftmaxFlashV2 per row: M = max(inmax, rowmax), dst = exp(x - M), E = exp(inmax - M),
    S = E * insum + rowsum (without update M = rowmax, S = rowsum); the max/sum/expMax blocks one
    32-byte block a row of their type; the float basic-block path leaves x - M in src (no update)
    or E * insum in inExpSumTensor (update)."""
    m, k = x.shape
    dtype = str(x.dtype)
    w1, w2 = 32 // x.itemsize, 32 // np.dtype(out_dtype).itemsize
    res = {"dst": np.zeros_like(x), "src": x.copy(), "max": np.zeros(m * 16, out_dtype),
           "sum": np.zeros(m * 16, out_dtype), "exp": np.zeros(m * 16, dtype),
           "insum": in_sum.copy()}
    for r, pass_rows in slot_rows(tl, basic):
        xf = x[r].astype(F32)
        if basic:
            rmax = flash_basic(xf, k, tl["splitM"], True)
        else:
            rmax = row_fold(xf, ori_k, pass_rows, False, True)
        at = r * w2
        if update:
            inm = in_max[at:at + w2].astype(F32)
            ins = in_sum[at:at + w2].astype(F32)
            nm = max_of(inm, np.full(w2, rmax, F32))
            em = expf((inm - nm).astype(F32))
        else:
            nm = np.full(w2, rmax, F32)
        sub = (xf - nm[np.arange(k) % 8]).astype(F32)
        if basic and not update and dtype == "float32":
            res["src"][r] = sub
        e = expf(sub)
        res["dst"][r] = to_type(e, dtype)
        if basic:
            rsum = flash_basic(e, k, tl["splitM"], False)
        else:
            rsum = row_fold(e, ori_k, pass_rows, False, False)
        res["max"][at:at + w2] = to_type(nm, out_dtype)
        if update:
            scaled = (em * ins).astype(F32)
            if basic and dtype == "float32":
                res["insum"][at:at + w2] = scaled
            res["sum"][at:at + w2] = to_type((scaled + rsum).astype(F32), out_dtype)
            res["exp"][r * w1:(r + 1) * w1] = to_type(em[np.arange(w1) % w2], dtype)
        else:
            res["sum"][at:at + w2] = to_type(np.full(w2, rsum, F32), out_dtype)
    return res


# ---- launching -----------------------------------------------------------------------------------
def run(lib: rt.KernelLibrary, mode: int, x: np.ndarray, out_dtype: str, tl: dict[str, int] | None,
        tmp_bytes: int, *, g: np.ndarray | None = None, ori_k: int | None = None,
        ori_m: int | None = None, in_max: np.ndarray | None = None,
        in_sum: np.ndarray | None = None) -> dict[str, np.ndarray]:
    m, k = x.shape
    dtype = str(x.dtype)
    bufs = {"x": rt.gm_empty(m * k, dtype), "g": rt.gm_empty(m * k, dtype),
            "y": rt.gm_empty(m * k, dtype),
            "max": rt.gm_empty(m * 16, out_dtype), "sum": rt.gm_empty(m * 16, out_dtype),
            "inmax": rt.gm_empty(m * 16, out_dtype), "insum": rt.gm_empty(m * 16, out_dtype),
            "exp": rt.gm_empty(m * 16, dtype)}
    for b in bufs.values():
        b[:] = 0
    bufs["x"][:] = x.ravel()
    if g is not None:
        bufs["g"][:] = g.ravel()
    if in_max is not None:
        bufs["inmax"][:] = in_max
        bufs["max"][:] = in_max
    if in_sum is not None:
        bufs["insum"][:] = in_sum
        bufs["sum"][:] = in_sum
    head = [mode, m, k, k if ori_k is None else ori_k, tmp_bytes, m if ori_m is None else ori_m,
            0, 0]
    blob = np.array(head + [(tl or {}).get(f, 0) for f in FIELDS], np.uint32).tobytes()
    order = ["x", "g", "y", "max", "sum", "inmax", "insum", "exp"]
    rt.launch(lib, ENTRIES[(dtype, out_dtype)], [bufs[n] for n in order], block_dim=1, tiling=blob)
    out = {n: np.asarray(bufs[n]).copy() for n in order}
    out["x"] = out["x"].reshape(m, k)
    out["y"] = out["y"].reshape(m, k)
    return out


def inputs(m: int, k: int, dtype: str, seed: int, scale: float = 3.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((m, k)) * scale).astype(dtype)


def assert_bits(got: np.ndarray, want: np.ndarray) -> None:
    bits = np.uint32 if got.dtype == np.float32 else np.uint16
    np.testing.assert_array_equal(got.view(bits), want.view(bits))


# ---- LogSoftMax ----------------------------------------------------------------------------------
# rows, columns, rows a pass the buffer holds: k < 64; [64, 128) with a tail pass; [128, 512) in
# passes of 8 and a tail; >= 512
LOG_SHAPES = [(12, 32, 12), (10, 96, 3), (20, 208, 8), (8, 576, 8)]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_log_softmax_follows_canns_float_steps(lib: rt.KernelLibrary, dtype: str) -> None:
    """LogSoftMax.md: reducemax, sub, exp, reducesum, div, then log10 per row (CANN: Ln, then Muls
    by log10(e)); the passes re-planned from sharedTmpBuffer whatever the tiling says."""
    size = np.dtype(dtype).itemsize
    per = 32 // size
    for i, (m, k, rows) in enumerate(LOG_SHAPES):
        x = inputs(m, k, dtype, i)
        floats = rows * (per + 64 + (k if size == 2 else 0))
        assert nd_split(floats, size, per, m, k, False) == rows
        got = run(lib, 0, x, dtype, None, floats * 4)
        want_y, want_mx, want_sm = log_model(x, m, k, floats * 4)
        assert_bits(got["y"], want_y)
        assert_bits(got["max"], want_mx)
        assert_bits(got["sum"], want_sm)
        ref = np.log10(np.exp(x.astype(np.float64) - x.max(1, keepdims=True)).astype(np.float64) /
                       np.exp(x.astype(np.float64) - x.max(1, keepdims=True)).sum(1, keepdims=True))
        tol = 2e-3 if size == 2 else 1e-5
        np.testing.assert_allclose(got["y"].astype(np.float64), ref, rtol=tol, atol=tol / 10)


def test_log_softmax_shape_from_shape_info_and_padded_rows(lib: rt.KernelLibrary) -> None:
    """LogSoftMax.md: a default SoftMaxShapeInfo takes the source's ShapeInfo; with oriSrcM <
    srcM and oriSrcK < srcK only the first oriSrcM rows are computed, each reduced over oriSrcK
    columns."""
    m, k = 16, 64
    x = inputs(m, k, "float32", 21)
    got = run(lib, 1, x, "float32", None, 4096)
    assert_bits(got["y"], log_model(x, m, k, 4096)[0])
    x[:, 50:] = 40.0  # padding that would dominate the max and the sum
    got = run(lib, 0, x, "float32", None, 4096, ori_k=50, ori_m=11)
    want_y, want_mx, _ = log_model(x, 11, 50, 4096)
    assert_bits(got["y"], want_y)
    assert_bits(got["max"], want_mx)
    assert not got["y"][11:].any() and (got["max"][:11 * 8] < 40).all()


# ---- SoftmaxGrad / SoftmaxGradFront --------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize(("m", "k", "ori_k", "rows"),
                         [(8, 48, 48, 8), (12, 208, 208, 8), (9, 256, 230, 4)])
def test_softmax_grad_follows_canns_float_steps(lib: rt.KernelLibrary, dtype: str, m: int, k: int,
                                                ori_k: int, rows: int) -> None:
    """SoftmaxGrad.md: dst = (grad - rowsum(grad * src)) * src, and with isFront (SoftmaxGrad with
    isFront, SoftmaxGradFront) the row sums in one 32-byte block a row; the sum in the order of
    CANN's ReduceSumLastNDImpl (block sums repeat after repeat, the tail repeat added last)."""
    size = np.dtype(dtype).itemsize
    y, g = inputs(m, k, dtype, 1, 1.0), inputs(m, k, dtype, 2, 1.0)
    for mode, front in ((2, False), (3, True), (4, True)):
        ws = rows * grad_row(k, size, front) * 4
        tl = host_plan(m, k, ws, grad_row(k, size, front), 32 // size)
        assert tl["splitM"] == rows
        got = run(lib, mode, y, dtype, tl, ws, g=g, ori_k=ori_k)
        out = got["y"] if not front else got["y"].ravel()[:m * 16]
        want = grad_model(y, g, tl, front, False, ori_k)
        assert_bits(out, want.ravel()[:out.size].reshape(out.shape))
    if dtype == "float32":
        ref = (g - (g.astype(np.float64) * y).sum(1, keepdims=True)) * y if ori_k == k else None
        if ref is not None:
            big = host_plan(m, k, 1 << 16, grad_row(k, 4, False), 8)
            got = run(lib, 2, y, dtype, big, 1 << 16, g=g)
            np.testing.assert_allclose(got["y"], ref, rtol=1e-4, atol=1e-5)


def test_softmax_grad_in_place_without_buffer_and_replanned(lib: rt.KernelLibrary) -> None:
    """SoftmaxGrad.md: srcTensor and dstTensor may be one tensor; the framework-buffer form; a
    shape other than the tiling's (the sample's tail rows) re-planned from sharedTmpBuffer."""
    m, k = 16, 128
    y, g = inputs(m, k, "float32", 3, 1.0), inputs(m, k, "float32", 4, 1.0)
    ws = 4 * grad_row(k, 4, False) * 4
    tl = host_plan(m, k, ws, grad_row(k, 4, False), 8)
    want = grad_model(y, g, tl, False, False, k)
    assert_bits(run(lib, 6, y, "float32", tl, ws, g=g)["x"], want)
    assert_bits(run(lib, 7, y, "float32", tl, 32, g=g)["y"], want)
    other = host_plan(32, k, ws, grad_row(k, 4, False), 8)  # a tiling for 32 rows
    replanned = fields(m, k, min(ws // 4 // (k + 16 + 64), m), 8)
    assert replanned["splitM"] == 4
    got = run(lib, 2, y, "float32", other, ws, g=g)["y"]
    assert_bits(got, grad_model(y, g, replanned, False, False, k))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_softmax_grad_front_basic_block(lib: rt.KernelLibrary, dtype: str) -> None:
    """SoftmaxGradFront.md, isBasicBlock: the products of a row's repeats added element-wise, then
    the 64 lanes reduced: other sums than the generic path's block-by-block order."""
    size = np.dtype(dtype).itemsize
    m, k = 16, 640
    y, g = inputs(m, k, dtype, 5, 1.0), inputs(m, k, dtype, 6, 1.0)
    ws = 8 * grad_row(k, size, True) * 4
    tl = host_plan(m, k, ws, grad_row(k, size, True), 32 // size)
    assert (tl["splitM"], tl["tailM"]) == (8, 0)
    got = run(lib, 5, y, dtype, tl, ws, g=g)["y"].ravel()[:m * 16]
    assert_bits(got, grad_model(y, g, tl, True, True, k))
    generic = grad_model(y.astype(F32), g.astype(F32), tl, True, False, k)
    basic = grad_model(y.astype(F32), g.astype(F32), tl, True, True, k)
    assert not np.array_equal(generic, basic)


# ---- SoftmaxFlashV2 ------------------------------------------------------------------------------
FLASH_TYPES = [("float32", "float32"), ("float16", "float16"), ("float16", "float32")]


def flash_inputs(m: int, out_dtype: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A previous block's max and sum, one value a row broadcast over its 32-byte block."""
    rng = np.random.default_rng(seed)
    w = 32 // np.dtype(out_dtype).itemsize
    mx = np.zeros(m * 16, out_dtype)
    sm = np.zeros(m * 16, out_dtype)
    mx[:m * w] = np.repeat(rng.uniform(-1, 9, m), w).astype(out_dtype)
    sm[:m * w] = np.repeat(rng.uniform(1, 50, m), w).astype(out_dtype)
    return mx, sm


def check_flash(got: dict[str, np.ndarray], want: dict[str, np.ndarray], update: bool) -> None:
    assert_bits(got["y"], want["dst"])
    assert_bits(got["max"], want["max"])
    assert_bits(got["sum"], want["sum"])
    assert_bits(got["x"], want["src"])
    if update:
        assert_bits(got["exp"], want["exp"])
        assert_bits(got["insum"], want["insum"])


@pytest.mark.parametrize(("dtype", "out_dtype"), FLASH_TYPES)
@pytest.mark.parametrize("update", [False, True])
def test_flash_v2_generic_path(lib: rt.KernelLibrary, dtype: str, out_dtype: str,
                               update: bool) -> None:
    """SoftmaxFlashV2.md: without update dst = exp(x - rowmax) and the row's max and sum; with it
    M = max(inmax, rowmax), E = exp(inmax - M), S = E * insum + rowsum, in CANN's order (SoftMax's
    reductions); a tail pass; padded columns left out of the reductions."""
    s1, s2 = np.dtype(dtype).itemsize, np.dtype(out_dtype).itemsize
    m, k, ori_k = 12, 208, 200
    x = inputs(m, k, dtype, 7)
    x[:, ori_k:] = 12.0  # above every row's max: it would change max and sum
    in_max, in_sum = flash_inputs(m, out_dtype, 8)
    rows = 8
    ws = rows * flash_row(k, s1, s2, False) * 4 + (64 if update else 0)
    tl = flash_host_plan(m, k, s1, s2, ws, False)
    assert (tl["splitM"], tl["tailM"]) == (rows, 4)
    got = run(lib, 11 if update else 10, x, out_dtype, tl, ws, ori_k=ori_k, in_max=in_max,
              in_sum=in_sum)
    want = flash_model(x, out_dtype, tl, update, False, in_max, in_sum, ori_k)
    check_flash(got, want, update)
    if update and dtype == "float32":  # the formula, with an exact reference
        xd = x[:, :ori_k].astype(np.float64)
        im = in_max[::8][:m].astype(np.float64)
        new_max = np.maximum(im, xd.max(1))
        ref = np.exp(im - new_max) * in_sum[::8][:m] + np.exp(xd - new_max[:, None]).sum(1)
        np.testing.assert_allclose(got["sum"][::8][:m], ref, rtol=1e-5)


@pytest.mark.parametrize(("dtype", "out_dtype"), FLASH_TYPES)
@pytest.mark.parametrize("k", [64, 448, 512, 640, 1024])
def test_flash_v2_basic_block(lib: rt.KernelLibrary, dtype: str, out_dtype: str, k: int) -> None:
    """SoftmaxFlashV2.md, isBasicBlock: CANN's basic-block reductions (512 columns as one tree,
    1024 as 16 repeat results folded pairwise, wider rows from the block results of the first 512
    columns); the float path leaves x - max in src without update and E * insum in
    inExpSumTensor with it."""
    s1, s2 = np.dtype(dtype).itemsize, np.dtype(out_dtype).itemsize
    if k < 256 // s1:
        pytest.skip("below the basic-block width of the type")
    m = 8 if k == 1024 else 16  # the Unified Buffer holds three tensors of it
    x = inputs(m, k, dtype, k)
    in_max, in_sum = flash_inputs(m, out_dtype, k + 1)
    ws = 8 * flash_row(k, s1, s2, True) * 4
    tl = flash_host_plan(m, k, s1, s2, ws, True)
    assert tl["splitM"] == 8 and tl["tailM"] == 0
    for update in (False, True):
        got = run(lib, 13 if update else 12, x, out_dtype, tl, ws, in_max=in_max, in_sum=in_sum)
        want = flash_model(x, out_dtype, tl, update, True, in_max, in_sum, k)
        check_flash(got, want, update)


def test_flash_v2_in_place_k_loop_and_replan(lib: rt.KernelLibrary) -> None:
    """SoftmaxFlashV2.md, 约束说明: src/dst, maxTensor/inMaxTensor and expSumTensor/
    inExpSumTensor may be shared (the sample's K loop); a shape the tiling does not cover is
    re-planned (SoftMaxFlashV2TilingFuncImpl); the framework-buffer form."""
    m, k = 16, 448
    x = inputs(m, k, "float32", 30)
    in_max, in_sum = flash_inputs(m, "float32", 31)
    ws = flash_row(512, 4, 4, True) * 8 * 4
    tl = flash_host_plan(m, 512, 4, 4, ws, True)  # the sample's tiling, for 512 columns
    got = run(lib, 14, x, "float32", tl, ws, in_max=in_max, in_sum=in_sum)
    rows = nd_split(ws // 4, 4, 8, m, k, True)
    replanned = fields(m, k, rows, 8)
    want = flash_model(x, "float32", replanned, True, True, in_max, in_sum, k)
    assert_bits(got["x"], want["dst"])
    assert_bits(got["max"], want["max"])
    assert_bits(got["sum"], want["sum"])
    kernel_side = run(lib, 16, x, "float32", None, ws, in_max=in_max, in_sum=in_sum)
    assert kernel_side["g"].view(np.uint32)[:16].tolist() == [replanned[f] for f in FIELDS]
    check_flash(kernel_side, want | {"src": x}, True)
    tl2 = flash_host_plan(m, k, 4, 4, 1 << 16, False)
    got = run(lib, 15, x, "float32", tl2, 32, in_max=in_max, in_sum=in_sum)
    check_flash(got, flash_model(x, "float32", tl2, True, False, in_max, in_sum, k), True)


# ---- misuse --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("mode", "dtype", "shape", "tmp_bytes", "tiling", "error", "text"),
    [
        (0, "float32", (8, 64), 256, None, rt.LocalMemoryOutOfBounds,
         "LogSoftMax: LogSoftMax plans its passes from sharedTmpBuffer (GetLogSoftMaxMinTmpSize): "
         "sharedTmpBuffer's 256 bytes hold no row of 288 bytes"),
        (0, "float32", (8, 36), 4096, None, rt.AlignmentError,
         "LogSoftMax: srcK 36 of float is not 32-byte"),
        (20, "float32", (8, 64), 4096, None, rt.SimulatorError,
         "LogSoftMax: the NZ format (isDataFormatNZ = true) is not simulated"),
        (21, "float32", (8, 64), 4096, None, rt.SimulatorError,
         "LogSoftMax: sharedTmpBuffer (UB offset 0"),
        (24, "float32", (8, 64), 4096, "front1", rt.SimulatorError,
         "SoftmaxGradFront: sharedTmpBuffer (UB offset"),
        (2, "float32", (8, 64), 1024, "grad", rt.LocalMemoryOutOfBounds,
         "SoftmaxGrad: sharedTmpBuffer holds 1024 bytes; passes of 8 rows of [8, 64] need 2560"),
        (5, "float32", (8, 96), 1 << 14, "front", rt.TilingError,
         "SoftmaxGradFront: isBasicBlock needs srcK a multiple of 64 in [64, 2048)"),
        (12, "float32", (12, 128), 1 << 14, "flash", rt.TilingError,
         "SoftmaxFlashV2: isBasicBlock needs srcK a multiple of 64 in [64, 2048) and whole passes"),
        (22, "float32", (8, 64), 4096, "flash", rt.SimulatorError,
         "SoftmaxFlashV2: SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC (max/sum of one element a row)"),
    ],
)
def test_misuse_is_an_error_naming_the_api(lib: rt.KernelLibrary, mode: int, dtype: str,
                                           shape: tuple[int, int], tmp_bytes: int,
                                           tiling: str | None, error: type[Exception],
                                           text: str) -> None:
    """LogSoftMax.md, SoftmaxGrad.md, SoftmaxFlashV2.md (约束说明): a buffer for at least one row
    of the plan, apart from the operands; a 32-byte aligned last axis; basic-block shapes; ND and
    the broadcast output mode only."""
    m, k = shape
    x = inputs(m, k, dtype, 1)
    tl = None
    if tiling in ("grad", "front"):
        tl = host_plan(m, k, 1 << 16, grad_row(k, 4, tiling == "front"), 8)
    elif tiling == "front1":  # one row a pass
        tl = host_plan(m, k, grad_row(k, 4, True) * 4, grad_row(k, 4, True), 8)
    elif tiling == "flash":
        tl = flash_host_plan(m, k, 4, 4, 1 << 16, False)
    with pytest.raises(error, match="block 0: " + re.escape(text)):
        run(lib, mode, x, dtype, tl, tmp_bytes, g=x)


def test_log_softmax_src_over_dst_is_an_error_in_strict_mode(
        lib: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch) -> None:
    """LogSoftMax.md, 约束说明: src and dst may not overlap. The hardware computes a shared tensor
    row by row correctly, so the simulator runs it, and reports it in strict mode as CANN's
    CPU-debug check does."""
    m, k = 8, 64
    x = inputs(m, k, "float32", 2)
    got = run(lib, 23, x, "float32", None, 4096)
    assert_bits(got["x"], log_model(x, m, k, 4096)[0])
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.SimulatorError, match=re.escape("LogSoftMax: dst and src overlap")):
        run(lib, 23, x, "float32", None, 4096)


# ---- host side -----------------------------------------------------------------------------------
HOST_CPP = r"""
#include <cstdio>
#include <cstring>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

template <typename Tiling>
static void Print(const Tiling& t) {
    uint32_t p[16];
    std::memcpy(static_cast<void*>(p), static_cast<const void*>(&t), sizeof(p));
    for (int i = 0; i < 16; ++i) std::printf("%u%s", p[i], i == 15 ? "\n" : " ");
}

int main() {
    const ge::Shape a(std::vector<int64_t>{128, 128});
    const ge::Shape b(std::vector<int64_t>{2, 8, 96});
    std::printf("%u %u %u %u\n", AscendC::GetLogSoftMaxMinTmpSize(a, 4, false),
                AscendC::GetLogSoftMaxMaxTmpSize(a, 4, false),
                AscendC::GetLogSoftMaxMinTmpSize(b, 2, false),
                AscendC::GetLogSoftMaxMaxTmpSize(b, 2, false));
    AscendC::tiling::LogSoftMaxTiling lt;
    AscendC::LogSoftMaxTilingFunc(a, 4, 20 * 200 * 4, lt);
    Print(lt);
    const ge::Shape g(std::vector<int64_t>{16, 960});
    for (int front = 0; front < 2; ++front) {
        std::printf("%u %u %u %u\n", AscendC::GetSoftMaxGradMinTmpSize(g, 4, front, false),
                    AscendC::GetSoftMaxGradMaxTmpSize(g, 4, front, false),
                    AscendC::GetSoftMaxGradMinTmpSize(g, 2, front, false),
                    AscendC::GetSoftMaxGradMaxTmpSize(g, 2, front, false));
    }
    AscendC::tiling::SoftMaxTiling t;
    const ge::Shape g2(std::vector<int64_t>{40, 64});
    AscendC::SoftMaxGradTilingFunc(g2, 4, 11 * 144 * 4, t, false);
    Print(t);
    optiling::SoftMaxTiling o;
    AscendC::SoftMaxGradTilingFunc(ge::Shape(std::vector<int64_t>{64, 128}), 2, 1 << 20, o, true);
    std::printf("%u %u %u\n", o.get_splitM(), o.get_rangeM(), o.get_reduceK());
    const ge::Shape f(std::vector<int64_t>{16, 512});
    const ge::Shape f2(std::vector<int64_t>{16, 1024});
    const ge::Shape f3(std::vector<int64_t>{12, 208});
    std::printf("%u %u %u %u %u %u\n", AscendC::GetSoftMaxFlashV2MinTmpSize(f, 4, 4, true, true),
                AscendC::GetSoftMaxFlashV2MaxTmpSize(f, 4, 4, true, true),
                AscendC::GetSoftMaxFlashV2MinTmpSize(f2, 2, 2, true, true),
                AscendC::GetSoftMaxFlashV2MaxTmpSize(f2, 2, 2, true, true),
                AscendC::GetSoftMaxFlashV2MinTmpSize(f3, 2, 4, false, false),
                AscendC::GetSoftMaxFlashV2MaxTmpSize(f3, 4, 4, false, false));
    const uint32_t fMin = AscendC::GetSoftMaxFlashV2MinTmpSize(f, 4, 4, true, true);
    AscendC::SoftMaxFlashV2TilingFunc(f, 4, 4, fMin, t, true, true);
    Print(t);
    AscendC::SoftMaxFlashV2TilingFunc(f3, 2, 4, 10000, t, true, false);
    Print(t);
    const ge::Shape f4(std::vector<int64_t>{64, 256});
    AscendC::SoftMaxFlashV2TilingFunc(f4, 4, 4, 1 << 20, t, false, true);
    Print(t);
    std::printf("%u %u\n", AscendC::GetSoftMaxGradMinTmpSize(g, 3, false, false),
                AscendC::GetLogSoftMaxMinTmpSize(a, 3, false));
}
"""


def test_host_sizes_and_tiling_as_cann_computes_them(tmp_path: Path) -> None:
    """LogSoftMax-Tiling.md, SoftmaxGrad-Tiling接口.md, SoftmaxFlashV2-Tiling接口.md: the sizes (one
    row / all rows; SoftmaxFlashV2's basic block 8 rows, its maximum the rows of one pass) and the
    tiling fields, as softmax_tiling.cpp and logsoftmax_tiling.cpp compute them; a typeSize other
    than 2 or 4 is an error naming the function (LogSoftMax plans with it, as CANN does)."""
    out = run_host_program(tmp_path, HOST_CPP)
    lines = out.stdout.splitlines()

    def row(tl: dict[str, int]) -> str:
        return " ".join(str(tl[f]) for f in FIELDS)

    assert lines[0] == f"{log_row(128, 4) * 4} {128 * log_row(128, 4) * 4} {log_row(96, 2) * 4} " \
                       f"{16 * log_row(96, 2) * 4}"
    assert lines[0].split()[0] == "800"  # the logsoftmax sample's buffer
    assert lines[1] == row(host_plan(128, 128, 20 * 200 * 4, log_row(128, 4), 8))
    assert lines[1].split()[6] == "16"  # 20 rows fit: 16 a pass (a multiple of 8 dividing 128)
    for front in (0, 1):
        f4, f2 = grad_row(960, 4, bool(front)), grad_row(960, 2, bool(front))
        assert lines[2 + front] == f"{f4 * 4} {16 * f4 * 4} {f2 * 4} {16 * f2 * 4}"
    assert lines[2].split()[0] == "4160"  # the softmaxgrad sample's buffer (1040 floats)
    assert lines[4] == row(host_plan(40, 64, 11 * 144 * 4, grad_row(64, 4, False), 8))
    assert lines[4].split()[6] == "8"
    assert lines[5] == "64 1 16"
    sizes = [8 * flash_row(512, 4, 4, True), 16 * flash_row(512, 4, 4, True),
             8 * flash_row(1024, 2, 2, True), 8 * flash_row(1024, 2, 2, True),
             flash_row(208, 2, 4, False), 12 * flash_row(208, 4, 4, False)]
    assert lines[6].split() == [str(4 * v) for v in sizes]
    assert lines[6].split()[0] == "2304"  # the softmaxflashv2 sample's buffer
    assert lines[7] == row(flash_host_plan(16, 512, 4, 4, 2304, True))
    assert lines[8] == row(flash_host_plan(12, 208, 2, 4, 10000, False))
    assert lines[9] == row(flash_host_plan(64, 256, 4, 4, 1 << 20, True))
    assert lines[9].split()[6] == "32"  # 64 rows fit; 32 * 256 stays below 64 * 256 elements
    assert lines[10] == f"0 {log_row(128, 4) * 4 - 8 * 4 + (32 // 3) * 4}"
    assert "[ERROR][opgen][tiling] GetSoftMaxGradMinTmpSize: dataTypeSize is 3" in out.stderr
    assert "[ERROR][opgen][tiling] GetLogSoftMaxMinTmpSize: dataTypeSize is 3" in out.stderr


# ---- SoftmaxFlashV3 ------------------------------------------------------------------------------
V3_KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct V3Test {
    int32_t mode;
    uint32_t m;
    uint32_t k;
    uint32_t tmpBytes;
    uint32_t loopCnt;
    uint32_t splitMeanCnt;
    float alpha;
    uint32_t pad;
    SoftMaxTiling tl;
};

extern "C" __global__ __aicore__ void flash_v3(GM_ADDR x, GM_ADDR y, GM_ADDR st, GM_ADDR em,
                                               GM_ADDR ws, GM_ADDR tiling)
{
    const V3Test& t = *reinterpret_cast<const V3Test*>(tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bst, bem, btmp;
    const uint32_t n = t.m * t.k, slots = t.m * 8;
    pipe.InitBuffer(bx, n * 2);
    pipe.InitBuffer(by, n * 2);
    pipe.InitBuffer(bst, 6 * slots * 4);
    pipe.InitBuffer(bem, slots * 4);
    pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<half> xGm, yGm, emGm;
    GlobalTensor<float> stGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, n);
    yGm.SetGlobalBuffer((__gm__ half*)y, n);
    stGm.SetGlobalBuffer((__gm__ float*)st, 6 * slots);
    emGm.SetGlobalBuffer((__gm__ half*)em, 2 * slots);
    LocalTensor<half> src = bx.Get<half>(), dst = by.Get<half>(), eml = bem.Get<half>();
    LocalTensor<float> stl = bst.Get<float>();
    LocalTensor<float> mean = stl, sum = stl[slots], max = stl[2 * slots];
    LocalTensor<float> inMean = stl[3 * slots], inSum = stl[4 * slots], inMax = stl[5 * slots];
    LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
    DataCopy(src, xGm, n);
    DataCopy(stl, stGm, 6 * slots);
    DataCopy(eml, emGm, 2 * slots);
    const SoftMaxParams params = {t.m, t.k, t.m, t.k, t.loopCnt, t.splitMeanCnt, t.alpha};
    if (t.mode == 0) {
        SoftmaxFlashV3<half, float, false>(dst, mean, sum, max, src, eml, inMean, inSum, inMax,
                                           tmp, t.tl, params);
    }
    if (t.mode == 1) {
        SoftmaxFlashV3<half, float, true>(dst, mean, sum, max, src, eml, inMean, inSum, inMax,
                                          tmp, t.tl, params);
    }
    if (t.mode == 2) {  // the outputs over the inputs, without sharedTmpBuffer (the K loop's form)
        SoftmaxFlashV3<half, float, true>(dst, inMean, inSum, inMax, src, eml, inMean, inSum,
                                          inMax, t.tl, params);
    }
    if (t.mode == 3) {  // the shape from the source's ShapeInfo
        const uint32_t dims[2] = {t.m, t.k};
        src.SetShapeInfo(ShapeInfo(2, dims));
        const SoftMaxParams p0 = {0, 0, 0, 0, t.loopCnt, t.splitMeanCnt, t.alpha};
        SoftmaxFlashV3<half, float, true>(dst, mean, sum, max, src, eml, inMean, inSum, inMax,
                                          tmp, t.tl, p0);
    }
    if (t.mode == 4) {  // the kernel's shape not the tiling's
        const SoftMaxParams p2 = {t.m / 2, t.k, t.m / 2, t.k, t.loopCnt, t.splitMeanCnt, t.alpha};
        SoftmaxFlashV3<half, float, true>(dst, mean, sum, max, src, eml, inMean, inSum, inMax,
                                          tmp, t.tl, p2);
    }
    DataCopy(yGm, dst, n);
    DataCopy(stGm, stl, 6 * slots);
    DataCopy(emGm, eml, 2 * slots);
}
"""


@pytest.fixture(scope="module")
def v3_lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("flash_v3")) / "flash_v3.cpp"
    src.write_text(V3_KERNEL)
    return rt.build_kernel(src, entry="flash_v3")


def v3_row_floats(k: int) -> int:
    return 5 * 8 + 2 * k + 64


def v3_host_plan(m: int, k: int, ws: int) -> dict[str, int]:
    rows = min(ws // 4 // v3_row_floats(k), m)
    if 8 < rows < m:
        rows = rows // 8 * 8
    return fields(m, k, rows, 8)


def v3_model(x: np.ndarray, in_mean: np.ndarray, in_sum: np.ndarray, in_max: np.ndarray,
             update: bool, loop_cnt: int, alpha: float) -> dict[str, np.ndarray]:
    """SoftmaxFlashV3.md's formula with the float steps of CANN's A2 kernel: block sums of the
    first 512 columns and later repeats added lane by lane, local means times 1 / baseK, the row
    mean their block sum times 1/8; x shifted by (mean - local) * a / (1 - a) per segment; SoftMax's
    max and sum; the update of mean, max, sum and expMax as the reference writes it."""
    m, k = x.shape
    base_k = k // 8
    sc = F32(F32(alpha) / (F32(1.0) - F32(alpha)))
    res = {n: np.zeros(m * 8, F32) for n in ("mean", "sum", "max")}
    res["dst"] = np.zeros_like(x)
    res["exp"] = np.zeros(m * 16, np.float16)
    loops = F32(loop_cnt)
    for r in range(m):
        xf = x[r].astype(F32)
        acc = np.array([tree(xf[8 * b:8 * b + 8]) for b in range(64)], F32)
        for q in range(8, k // 64):
            acc = (xf[64 * q:64 * q + 64] + acc).astype(F32)
        inv = F32(F32(1.0) / F32(base_k))
        local = (np.array([tree(acc[8 * b:8 * b + 8]) for b in range(8)], F32) * inv).astype(F32)
        mean = F32(tree(local) * F32(0.125))
        shift = ((mean - local) * sc).astype(F32)
        xf = (xf - shift[np.arange(k) // base_k]).astype(F32)
        rmax = row_fold(xf, k, m, False, True)
        at = slice(8 * r, 8 * r + 8)
        if update:
            inm, inx, ins = in_mean[at], in_max[at], in_sum[at]
            nmean = ((inm * (loops - F32(1)) + mean).astype(F32) * F32(F32(1) / loops)).astype(F32)
        else:
            nmean = np.full(8, mean, F32)
        shift_curr = ((mean - nmean) * sc).astype(F32)
        nmax = (rmax + shift_curr).astype(F32)
        if update:
            shift_prev = ((inm - nmean) * sc).astype(F32)
            nmax = max_of(nmax, (inx + shift_prev).astype(F32))
            em = expf((shift_prev + (inx - nmax).astype(F32)).astype(F32))
        e = expf((xf - (nmax - shift_curr).astype(F32)[np.arange(k) % 8]).astype(F32))
        res["dst"][r] = cast_round(e)
        rsum = row_fold(e, k, m, False, False)
        res["mean"][at] = nmean
        res["max"][at] = nmax
        res["sum"][at] = ((em * ins).astype(F32) + rsum).astype(F32) if update else rsum
        if update:
            res["exp"][16 * r:16 * r + 16] = cast_round(em[np.arange(16) % 8])
    return res


def run_v3(lib: rt.KernelLibrary, mode: int, x: np.ndarray, tl: dict[str, int], tmp_bytes: int,
           stats: np.ndarray, loop_cnt: int = 2, split: int = 8,
           alpha: float = 0.9375) -> dict[str, np.ndarray]:
    m, k = x.shape
    gx, gy = rt.gm_empty(m * k, "float16"), rt.gm_empty(m * k, "float16")
    gst, gem = rt.gm_empty(6 * m * 8, "float32"), rt.gm_empty(m * 16, "float16")
    gx[:] = x.ravel()
    gy[:] = 0
    gst[:] = stats
    gem[:] = 0
    head = np.array([mode, m, k, tmp_bytes, loop_cnt, split], np.uint32).tobytes()
    blob = head + np.array([alpha], np.float32).tobytes() + np.zeros(1, np.uint32).tobytes()
    blob += np.array([tl.get(f, 0) for f in FIELDS], np.uint32).tobytes()
    rt.launch(lib, "flash_v3", [gx, gy, gst, gem], block_dim=1, tiling=blob)
    st = np.asarray(gst).copy().reshape(6, m * 8)
    return {"dst": np.asarray(gy).copy().reshape(m, k), "mean": st[0], "sum": st[1], "max": st[2],
            "inmean": st[3], "insum": st[4], "inmax": st[5], "exp": np.asarray(gem).copy()}


def v3_inputs(m: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, (m, k)).astype(np.float16)
    stats = np.zeros((6, m * 8), F32)
    stats[3] = np.repeat(rng.uniform(0, 3, m).astype(F32), 8)   # inMean
    stats[4] = np.repeat(rng.uniform(0.5, 4, m).astype(F32), 8)  # inSum
    stats[5] = np.repeat(rng.uniform(20, 60, m).astype(F32), 8)  # inMax: some rows keep theirs
    return x, stats.ravel()


@pytest.mark.parametrize("update", [False, True])
@pytest.mark.parametrize(("m", "k", "ws"),
                         [(8, 512, 1 << 16), (16, 1024, 70000), (16, 2048, 40000)])
def test_flash_v3_follows_the_formula_and_canns_float_steps(v3_lib: rt.KernelLibrary, update: bool,
                                                            m: int, k: int, ws: int) -> None:
    """SoftmaxFlashV3.md: dst, mean, max, sum (and expMax with update) bit for bit against the
    model, the passes of SoftMaxFlashV3TilingFunc's plan (16 x 1024 in passes of 8, 16 x 2048
    of 2)."""
    x, stats = v3_inputs(m, k, m + k)
    tl = v3_host_plan(m, k, ws)
    got = run_v3(v3_lib, int(update), x, tl, ws, stats)
    st = stats.reshape(6, m * 8)
    want = v3_model(x, st[3], st[4], st[5], update, 2, 0.9375)
    assert_bits(got["dst"], want["dst"])
    for name in ("mean", "max", "sum"):
        assert_bits(got[name], want[name])
    if update:
        assert_bits(got["exp"], want["exp"])
        assert (want["max"] != (np.repeat(want["max"][::8], 8))).sum() == 0
    if k == 1024:
        assert tl["splitM"] == 8 and tl["rangeM"] == 2
    if k == 2048:
        assert tl["splitM"] == 2 and tl["rangeM"] == 8


def test_flash_v3_shared_outputs_read_the_inputs_first(v3_lib: rt.KernelLibrary) -> None:
    """SoftmaxFlashV3.md, 约束说明: meanTensor/inMeanTensor, maxTensor/inMaxTensor and
    expSumTensor/inExpSumTensor may share a tensor; the result is the formula's on the inputs (the
    K loop of the sample), and the ShapeInfo form gives the same."""
    m, k = 8, 1024
    x, stats = v3_inputs(m, k, 5)
    tl = v3_host_plan(m, k, 1 << 16)
    st = stats.reshape(6, m * 8)
    want = v3_model(x, st[3], st[4], st[5], True, 3, 0.96889)
    got = run_v3(v3_lib, 2, x, tl, 1 << 16, stats, loop_cnt=3, alpha=0.96889)
    assert_bits(got["dst"], want["dst"])
    for name in ("mean", "sum", "max"):
        assert_bits(got["in" + name], want[name])
    got3 = run_v3(v3_lib, 3, x, tl, 1 << 16, stats, loop_cnt=3, alpha=0.96889)
    assert_bits(got3["dst"], want["dst"])
    assert_bits(got3["max"], want["max"])


@pytest.mark.parametrize(("mode", "shape", "tmp", "kw", "error", "text"), [
    (1, (8, 256), 1 << 16, {}, rt.TilingError,
     "SoftmaxFlashV3: the shape [8, 256] must have srcK >= 512, a multiple of 64, and srcM a "
     "multiple of 8"),
    (1, (8, 512), 1 << 16, {"split": 4}, rt.TilingError,
     "SoftmaxFlashV3: params.splitMeanCnt is 4; only 8 is supported"),
    (1, (8, 512), 1 << 16, {"loop_cnt": 0}, rt.TilingError,
     "SoftmaxFlashV3: params.loopCnt is 0; with isUpdate it must be at least 1"),
    (4, (16, 512), 1 << 16, {}, rt.TilingError,
     "SoftmaxFlashV3: the tiling is for [16, 512] (splitK 512) and the shape is [8, 512]"),
    (1, (8, 512), 4096, {}, rt.LocalMemoryOutOfBounds,
     "SoftmaxFlashV3: sharedTmpBuffer holds 4096 bytes; passes of 8 rows of [8, 512] need"),
])
def test_flash_v3_misuse_is_an_error(v3_lib: rt.KernelLibrary, mode: int, shape: tuple[int, int],
                                     tmp: int, kw: dict[str, int], error: type[Exception],
                                     text: str) -> None:
    """SoftmaxFlashV3.md: srcK >= 512 and a multiple of 64, srcM a multiple of 8, splitMeanCnt 8,
    loopCnt >= 1; the tiling of the call's shape; a buffer for the tiling's passes."""
    m, k = shape
    x, stats = v3_inputs(m, k, 1)
    with pytest.raises(error, match="block 0: " + re.escape(text)):
        run_v3(v3_lib, mode, x, v3_host_plan(m, k, 1 << 16), tmp, stats, **kw)


V3_HOST_CPP = r"""
#include <cstdio>
#include <cstring>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

int main() {
    uint32_t mx = 0, mn = 0;
    const ge::Shape a(std::vector<int64_t>{2, 4, 2048});
    AscendC::GetSoftMaxFlashV3MaxMinTmpSize(a, 2, 4, mx, mn, true);
    std::printf("%u %u\n", mx, mn);
    AscendC::tiling::SoftMaxTiling t;
    const ge::Shape b(std::vector<int64_t>{40, 1024});
    AscendC::SoftMaxFlashV3TilingFunc(b, 2, 4, 70000, t, true);
    uint32_t p[16];
    std::memcpy(static_cast<void*>(p), static_cast<const void*>(&t), sizeof(p));
    for (int i = 0; i < 16; ++i) std::printf("%u%s", p[i], i == 15 ? "\n" : " ");
    mx = mn = 7;
    const ge::Shape c(std::vector<int64_t>{8, 512});
    AscendC::GetSoftMaxFlashV3MaxMinTmpSize(c, 4, 4, mx, mn, false);
    std::printf("%u %u\n", mx, mn);
}
"""


def test_flash_v3_host_sizes_and_tiling(tmp_path: Path) -> None:
    """SoftmaxFlashV3-Tiling接口.md with softmax_tiling.cpp's A2/A3 rule: a row of 5 * 8 + 2 k + 64
    floats, the minimum one row and the maximum all; the plan's rows a multiple of 8 below m; only
    half/float (an error naming the function, nothing set)."""
    out = run_host_program(tmp_path, V3_HOST_CPP)
    lines = out.stdout.splitlines()
    assert lines[0] == f"{8 * v3_row_floats(2048) * 4} {v3_row_floats(2048) * 4}"
    assert lines[0].split()[1] == "16800"  # the sample's 10 * 1024 / (8 * 5 + 2048 * 2 + 64) rule
    assert lines[1] == " ".join(str(v) for v in v3_host_plan(40, 1024, 70000).values())
    assert lines[1].split()[6] == "8"
    assert lines[2] == "7 7"
    assert "[ERROR][opgen][tiling] GetSoftMaxFlashV3MaxMinTmpSize: dataTypeSize1 is 4" in out.stderr
