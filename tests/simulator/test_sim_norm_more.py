"""The rest of the normalization advanced APIs (opgen_sim/norm_more.h): WelfordUpdate,
WelfordFinalize, DeepNorm, Normalize and LayerNorm's [A, R] form, against numpy models of the float
steps of CANN's A2/A3 implementation (asc-devkit impl/adv_api/detail/normalization/layernorm,
welfordfinalize, deepnorm and normalize): each element's operations in CANN's order, LayerNorm's
row reduce (64-column blocks, then a 64-lane tree), DeepNorm's RepeatReduceSum levels or basic
blocks, WelfordFinalize's chunks and 64 partial slots, half cast in exactly and back to nearest
even; and the host side (tiling/norm_more_tiling.h) as CANN's tiling implementation computes it."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program
from .test_sim_norm import basic_sum, ln_row_sum, repeat_sum, round_up, tree_sum

F32 = np.float32

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct MoreNorm {
    int32_t mode;
    uint32_t rows;
    uint32_t h;
    uint32_t tmpBytes;
    float eps;
    float alpha;
    uint32_t r;
    uint32_t rPad;
    uint32_t rn;
    uint32_t ab;
    uint32_t abc;
    float nRec;
    uint32_t fin[6];
    float abRec;
    float rRec;
    DeepNormTiling dn;
    LayerNormSeparateTiling ls;
};
REGISTER_TILING_DEFAULT(MoreNorm);

static constexpr WelfordUpdateConfig INPLACE_CFG = {true};
static constexpr LayerNormConfig NO_GAMMA_CFG = {false, true, false, true};

// Welford: x [ab] of T; mean, var [ab] float; counts [ab] int32; out: the update's mean and var,
// then the finalize's 8 + 8; x after the call
template <typename T>
__aicore__ inline void WelfordBody(GM_ADDR x, GM_ADDR m, GM_ADDR v, GM_ADDR c, GM_ADDR out,
                                   GM_ADDR xo, MoreNorm& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bm, bv, bc, bom, bov, bfm, bfv, btmp;
    const uint32_t n = t.ab;
    pipe.InitBuffer(bx, n * sizeof(T));
    pipe.InitBuffer(bm, n * 4);
    pipe.InitBuffer(bv, n * 4);
    pipe.InitBuffer(bc, n * 4);
    pipe.InitBuffer(bom, n * 4);
    pipe.InitBuffer(bov, n * 4);
    pipe.InitBuffer(bfm, 32);
    pipe.InitBuffer(bfv, 32);
    if (t.tmpBytes != 0) pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, xoGm;
    GlobalTensor<float> mGm, vGm, oGm;
    GlobalTensor<int32_t> cGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    xoGm.SetGlobalBuffer((__gm__ T*)xo, n);
    mGm.SetGlobalBuffer((__gm__ float*)m, n);
    vGm.SetGlobalBuffer((__gm__ float*)v, n);
    cGm.SetGlobalBuffer((__gm__ int32_t*)c, n);
    oGm.SetGlobalBuffer((__gm__ float*)out, 2 * n + 16);
    LocalTensor<T> xl = bx.Get<T>();
    LocalTensor<float> ml = bm.Get<float>(), vl = bv.Get<float>();
    LocalTensor<float> om = bom.Get<float>(), ov = bov.Get<float>();
    LocalTensor<float> fm = bfm.Get<float>(), fv = bfv.Get<float>();
    LocalTensor<int32_t> cl = bc.Get<int32_t>();
    DataCopy(xl, xGm, n);
    DataCopy(ml, mGm, n);
    DataCopy(vl, vGm, n);
    DataCopy(cl, cGm, n);
    DataCopy(om, oGm, n);  // the outputs start as the GM's contents
    DataCopy(ov, oGm[n], n);
    DataCopy(fm, oGm[2 * n], 8);
    DataCopy(fv, oGm[2 * n + 8], 8);
    const WelfordUpdateParam up = {t.rn, t.ab, t.abc, t.nRec};
    WelfordFinalizePara fp = {t.rn, t.ab, t.fin[0], t.fin[1], t.fin[2], t.fin[3], t.abRec, t.rRec};
    LocalTensor<uint8_t> tmp;
    if (t.tmpBytes != 0) tmp = btmp.Get<uint8_t>();
    if (t.mode == 0) WelfordUpdate<T, float>(om, ov, ml, vl, xl, tmp, up);
    if (t.mode == 1) WelfordUpdate<T, float, false, INPLACE_CFG>(om, ov, ml, vl, xl, tmp, up);
    if constexpr (sizeof(T) == 4) {
        if (t.mode == 2) WelfordUpdate<T, float, true>(om, ov, ml, vl, xl, tmp, up);
    }
    if (t.mode == 3) WelfordUpdate<T, float>(om, ov, ml, vl, xl, up);
    if (t.mode == 4) WelfordUpdate<T, float>(ml, ov, ml, vl, xl, tmp, up);  // out over in
    if (t.mode == 10) WelfordFinalize<false>(fm, fv, ml, vl, cl, tmp, fp);
    if (t.mode == 11) WelfordFinalize<false>(fm, fv, ml, vl, tmp, fp);
    if (t.mode == 12) WelfordFinalize<false>(fm, fv, ml, vl, fp);
    DataCopy(oGm, om, n);
    DataCopy(oGm[n], ov, n);
    DataCopy(oGm[2 * n], fm, 8);
    DataCopy(oGm[2 * n + 8], fv, 8);
    DataCopy(xoGm, xl, n);
}

extern "C" __global__ __aicore__ void welford_f(GM_ADDR x, GM_ADDR m, GM_ADDR v, GM_ADDR c,
                                                GM_ADDR out, GM_ADDR xo, GM_ADDR ws,
                                                GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    WelfordBody<float>(x, m, v, c, out, xo, t);
}

extern "C" __global__ __aicore__ void welford_h(GM_ADDR x, GM_ADDR m, GM_ADDR v, GM_ADDR c,
                                                GM_ADDR out, GM_ADDR xo, GM_ADDR ws,
                                                GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    WelfordBody<half>(x, m, v, c, out, xo, t);
}

// DeepNorm: x, gx [rows, h]; gamma, beta [h]; y [rows, h]; mean, var [rows rounded to 16]; x after
template <typename T>
__aicore__ inline void DeepNormBody(GM_ADDR x, GM_ADDR gx, GM_ADDR g, GM_ADDR b, GM_ADDR y,
                                    GM_ADDR mv, GM_ADDR xo, MoreNorm& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bgx, bg, bb, by, bm, bv, btmp;
    const uint32_t n = t.rows * t.h, r16 = (t.rows + 15) / 16 * 16;
    pipe.InitBuffer(bx, n * sizeof(T));
    pipe.InitBuffer(bgx, n * sizeof(T));
    pipe.InitBuffer(bg, t.h * sizeof(T));
    pipe.InitBuffer(bb, t.h * sizeof(T));
    pipe.InitBuffer(by, n * sizeof(T));
    pipe.InitBuffer(bm, r16 * sizeof(T));
    pipe.InitBuffer(bv, r16 * sizeof(T));
    if (t.mode != 3) pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, gxGm, gGm, bGm, yGm, mvGm, xoGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    gxGm.SetGlobalBuffer((__gm__ T*)gx, n);
    gGm.SetGlobalBuffer((__gm__ T*)g, t.h);
    bGm.SetGlobalBuffer((__gm__ T*)b, t.h);
    yGm.SetGlobalBuffer((__gm__ T*)y, n);
    mvGm.SetGlobalBuffer((__gm__ T*)mv, 2 * r16);
    xoGm.SetGlobalBuffer((__gm__ T*)xo, n);
    LocalTensor<T> xl = bx.Get<T>(), gxl = bgx.Get<T>(), gl = bg.Get<T>(), bl = bb.Get<T>();
    LocalTensor<T> yl = by.Get<T>(), ml = bm.Get<T>(), vl = bv.Get<T>();
    DataCopy(xl, xGm, n);
    DataCopy(gxl, gxGm, n);
    DataCopy(gl, gGm, t.h);
    DataCopy(bl, bGm, t.h);
    const T alpha = (T)t.alpha, eps = (T)t.eps;
    LocalTensor<uint8_t> tmp;
    if (t.mode != 3) tmp = btmp.Get<uint8_t>();
    if (t.mode == 0) DeepNorm<T, false, false>(yl, ml, vl, xl, gxl, bl, gl, tmp, alpha, eps, t.dn);
    if (t.mode == 1) DeepNorm<T, false, true>(yl, ml, vl, xl, gxl, bl, gl, tmp, alpha, eps, t.dn);
    if constexpr (sizeof(T) == 4) {
        if (t.mode == 2) {
            DeepNorm<T, true, false>(yl, ml, vl, xl, gxl, bl, gl, tmp, alpha, eps, t.dn);
        }
    }
    if (t.mode == 3) DeepNorm<T>(yl, ml, vl, xl, gxl, bl, gl, alpha, eps, t.dn);
    if (t.mode == 4) DeepNorm<T>(xl, ml, vl, xl, gxl, bl, gl, tmp, alpha, eps, t.dn);
    DataCopy(yGm, yl, n);
    DataCopy(mvGm, ml, r16);
    DataCopy(mvGm[r16], vl, r16);
    DataCopy(xoGm, xl, n);
}

extern "C" __global__ __aicore__ void deepnorm_f(GM_ADDR x, GM_ADDR gx, GM_ADDR g, GM_ADDR b,
                                                 GM_ADDR y, GM_ADDR mv, GM_ADDR xo, GM_ADDR ws,
                                                 GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    DeepNormBody<float>(x, gx, g, b, y, mv, xo, t);
}

extern "C" __global__ __aicore__ void deepnorm_h(GM_ADDR x, GM_ADDR gx, GM_ADDR g, GM_ADDR b,
                                                 GM_ADDR y, GM_ADDR mv, GM_ADDR xo, GM_ADDR ws,
                                                 GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    DeepNormBody<half>(x, gx, g, b, y, mv, xo, t);
}

// LayerNorm [A, R] and Normalize: x [A, rPad] of T; gamma, beta [rPad] of U; mean, var in [A16]
// float; y [A, rPad]; stats out: mean, rstd [A16] float; x after
template <typename T, typename U>
__aicore__ inline void LnBody(GM_ADDR x, GM_ADDR g, GM_ADDR b, GM_ADDR mvIn, GM_ADDR y, GM_ADDR st,
                              GM_ADDR xo, MoreNorm& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bg, bb, bmi, bvi, by, bm, brs, btmp;
    const uint32_t a = t.rows, n = a * t.rPad, a16 = (a + 15) / 16 * 16;
    pipe.InitBuffer(bx, n * sizeof(T));
    pipe.InitBuffer(bg, t.rPad * sizeof(U));
    pipe.InitBuffer(bb, t.rPad * sizeof(U));
    pipe.InitBuffer(bmi, a16 * 4);
    pipe.InitBuffer(bvi, a16 * 4);
    pipe.InitBuffer(by, n * sizeof(T));
    pipe.InitBuffer(bm, a16 * 4);
    pipe.InitBuffer(brs, a16 * 4);
    if (t.mode != 1) pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, yGm, xoGm;
    GlobalTensor<U> gGm, bGm;
    GlobalTensor<float> mvGm, stGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    yGm.SetGlobalBuffer((__gm__ T*)y, n);
    xoGm.SetGlobalBuffer((__gm__ T*)xo, n);
    gGm.SetGlobalBuffer((__gm__ U*)g, t.rPad);
    bGm.SetGlobalBuffer((__gm__ U*)b, t.rPad);
    mvGm.SetGlobalBuffer((__gm__ float*)mvIn, 2 * a16);
    stGm.SetGlobalBuffer((__gm__ float*)st, 2 * a16);
    LocalTensor<T> xl = bx.Get<T>(), yl = by.Get<T>();
    LocalTensor<U> gl = bg.Get<U>(), bl = bb.Get<U>();
    LocalTensor<float> mi = bmi.Get<float>(), vi = bvi.Get<float>();
    LocalTensor<float> ml = bm.Get<float>(), rl = brs.Get<float>();
    DataCopy(xl, xGm, n);
    DataCopy(gl, gGm, t.rPad);
    DataCopy(bl, bGm, t.rPad);
    DataCopy(mi, mvGm, a16);
    DataCopy(vi, mvGm[a16], a16);
    const LayerNormPara lp = {a, t.r, t.rPad};
    const NormalizePara np = {a, t.r, t.rPad};
    LocalTensor<uint8_t> tmp;
    if (t.mode != 1) tmp = btmp.Get<uint8_t>();
    if (t.mode == 0) LayerNorm<U, T>(yl, ml, rl, xl, gl, bl, t.eps, tmp, lp, t.ls);
    if (t.mode == 1) LayerNorm<U, T>(yl, ml, rl, xl, gl, bl, t.eps, lp, t.ls);
    if (t.mode == 2) Normalize<U, T>(yl, rl, mi, vi, xl, gl, bl, tmp, t.eps, np);
    if (t.mode == 3) {
        Normalize<U, T, false, NLCFG_NOBETA>(yl, rl, mi, vi, xl, gl, bl, tmp, t.eps, np);
    }
    if (t.mode == 4) Normalize<U, T>(xl, rl, mi, vi, xl, gl, bl, tmp, t.eps, np);
    if (t.mode == 5) {
        LayerNorm<U, T, false, NO_GAMMA_CFG>(yl, ml, rl, xl, gl, bl, t.eps, tmp, lp, t.ls);
    }
    DataCopy(yGm, yl, n);
    DataCopy(stGm, ml, a16);
    DataCopy(stGm[a16], rl, a16);
    DataCopy(xoGm, xl, n);
}

#define LN_ENTRY(name, T, U)                                                                   \
    extern "C" __global__ __aicore__ void name(GM_ADDR x, GM_ADDR g, GM_ADDR b, GM_ADDR mv,       \
                                               GM_ADDR y, GM_ADDR st, GM_ADDR xo, GM_ADDR ws,     \
                                               GM_ADDR tiling)                                    \
    {                                                                                          \
        GET_TILING_DATA(t, tiling);                                                            \
        LnBody<T, U>(x, g, b, mv, y, st, xo, t);                                               \
    }
LN_ENTRY(ln_ff, float, float)
LN_ENTRY(ln_hh, half, half)
LN_ENTRY(ln_hf, half, float)
"""

ENTRIES = ("welford_f", "welford_h", "deepnorm_f", "deepnorm_h", "ln_ff", "ln_hh", "ln_hf")


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("norm_more")) / "norm_more.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry=ENTRIES)


# ---- the tiling blob -----------------------------------------------------------------------------
def pack(values: list[int | float]) -> bytes:
    return b"".join(struct.pack("<f" if isinstance(v, float) else "<I", v) for v in values)


def blob(
    mode: int,
    *,
    rows: int = 0,
    h: int = 0,
    tmp: int = 0,
    eps: float = 0.0,
    alpha: float = 0.0,
    r: int = 0,
    r_pad: int = 0,
    wu: tuple[int, int, int, float] = (1, 0, 0, 0.0),
    fin: tuple[int, int, int, int, float, float] = (0, 0, 0, 0, 0.0, 0.0),
    dn: list[int | float] | None = None,
    ls: list[int | float] | None = None,
) -> bytes:
    head = [
        mode,
        rows,
        h,
        tmp,
        float(eps),
        float(alpha),
        r,
        r_pad,
        wu[0],
        wu[1],
        wu[2],
        float(wu[3]),
        *fin[:4],
        0,
        0,
        float(fin[4]),
        float(fin[5]),
    ]
    return (
        pack(head)
        + pack(dn or [0] * 25 + [0.0])
        + pack(ls or [0] * 4 + [0.0, 0.0] + [0] * 19 + [0.0])
    )


def f32(v: float) -> float:
    return float(F32(v))


def deepnorm_tiling(
    b: int, s: int, h: int, ori_h: int, ts: int, ws: int, reuse: bool = False, basic: bool = False
) -> list[int | float]:
    """GetDeepNormTilingInfo (deepnorm_tiling_impl.cpp): three temporaries (two for float with
    isReuseSource) of whole rows after, for half, the mean and variance in float; whole groups of
    8 rows for the basic block when one fits."""
    total, mv = b * s * h, b * s
    bufs = 2 if reuse and ts == 4 else 3
    mv_size = round_up(mv, 8)
    mv_total = 0 if ts == 4 else 2 * mv_size
    one = min((ws // 4 - mv_total) // bufs // h * h, total)
    if basic and one // (8 * h) > 0:
        one = one // (8 * h) * (8 * h)
    tail = total % one
    return [
        b,
        s,
        h,
        ori_h,
        total,
        mv,
        bufs,
        0,
        mv_size,
        mv_size,
        mv_size,
        ws // 4,
        one,
        mv_total,
        mv_total + one,
        mv_total + 2 * one,
        total // one,
        one,
        tail,
        total - tail,
        one // h,
        tail // h,
        mv - tail // h,
        one,
        one // h,
        f32(1 / ori_h),
    ]


def ln_sep_tiling(a: int, r: int, ts: int, ws: int) -> list[int | float]:
    """GetLayerNormNDTilingInfo's [A, R] form (layernorm_tiling_impl.cpp): the variance (A rounded
    up to 8 floats), then two temporaries of whole padded rows."""
    rp = round_up(r, 32 // ts)
    total, var = a * rp, round_up(a, 8)
    one = min((ws // 4 - var) // 2 // rp * rp, total)
    tail = total % one
    return [
        a,
        r,
        0,
        0,
        0.0,
        0.0,
        total,
        a,
        2,
        0,
        var,
        ws // 4,
        one,
        var,
        var + one,
        0,
        total // one,
        one,
        tail,
        total - tail,
        one // rp,
        tail // rp,
        a - tail // rp,
        one,
        one // rp,
        f32(F32(1) / F32(r)),
    ]


def assert_bits(got: np.ndarray, want: np.ndarray) -> None:
    bits = np.uint32 if got.dtype == np.float32 else np.uint16
    np.testing.assert_array_equal(got.view(bits), want.astype(got.dtype).view(bits))


# ---- WelfordUpdate -------------------------------------------------------------------------------
def run_welford(
    lib: rt.KernelLibrary,
    dtype: str,
    mode: int,
    x: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    counts: np.ndarray | None,
    init: np.ndarray,
    tiling: bytes,
) -> tuple[np.ndarray, ...]:
    n = len(mean)
    gx, gm, gv = rt.gm_empty(n, dtype), rt.gm_empty(n, "float32"), rt.gm_empty(n, "float32")
    gc, go, gxo = rt.gm_empty(n, "int32"), rt.gm_empty(2 * n + 16, "float32"), rt.gm_empty(n, dtype)
    gx[:], gm[:], gv[:] = x, mean, var
    gc[:] = 0 if counts is None else counts
    go[:] = init
    rt.launch(
        lib,
        "welford_f" if dtype == "float32" else "welford_h",
        [gx, gm, gv, gc, go, gxo],
        block_dim=1,
        tiling=tiling,
    )
    o = np.asarray(go).copy()
    return o[:n], o[n : 2 * n], o[2 * n : 2 * n + 8], o[2 * n + 8 :], np.asarray(gxo).copy()


def welford_update_model(
    x: np.ndarray,
    m: np.ndarray,
    v: np.ndarray,
    n_rec: float,
    abc: int,
    init_m: np.ndarray,
    init_v: np.ndarray,
    inplace: bool,
) -> tuple[np.ndarray, ...]:
    """layernorm_common_impl.h's WelfordUpdate: d = x - mean; mean' = d * nRec + mean;
    var' = d * (x - mean') + var over abComputeLength; isInplace copies the inputs past it."""
    xf, nr = x.astype(F32), F32(n_rec)
    om, ov = (m.copy(), v.copy()) if inplace else (init_m.copy(), init_v.copy())
    d = (xf[:abc] - m[:abc]).astype(F32)
    om[:abc] = ((d * nr).astype(F32) + m[:abc]).astype(F32)
    ov[:abc] = ((d * (xf[:abc] - om[:abc]).astype(F32)).astype(F32) + v[:abc]).astype(F32)
    return om, ov, d


def welford_inputs(n: int, dtype: str, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-50, 50, n).astype(dtype)
    return x, rng.uniform(-20, 20, n).astype(F32), rng.uniform(0, 300, n).astype(F32)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize(
    ("ab", "abc", "mode"), [(64, 35, 0), (208, 208, 0), (96, 41, 1), (64, 64, 3)]
)
def test_welford_update_follows_canns_steps(
    lib: rt.KernelLibrary, dtype: str, ab: int, abc: int, mode: int
) -> None:
    """WelfordUpdate.md: Mean_t = Mean_{t-1} + (x - Mean_{t-1}) * nRec, M_t = M_{t-1} + (x -
    Mean_{t-1}) * (x - Mean_t) over abComputeLength, in CANN's order; past it the outputs are left
    alone, or (isInplace) take the inputs; the overload without sharedTmpBuffer pops the stack."""
    x, m, v = welford_inputs(ab, dtype, ab + abc)
    init = np.full(2 * ab + 16, 7.25, F32)
    tmp = 3 * 256 if dtype == "float16" else 512
    om, ov, _, _, xo = run_welford(
        lib,
        dtype,
        mode,
        x,
        m,
        v,
        None,
        init,
        blob(mode, tmp=0 if mode == 3 else tmp, wu=(1, ab, abc, 1 / 3)),
    )
    wm, wv, _ = welford_update_model(x, m, v, 1 / 3, abc, init[:ab], init[ab : 2 * ab], mode == 1)
    assert_bits(om, wm)
    assert_bits(ov, wv)
    assert_bits(xo, x)  # inputX unchanged without isReuseSource


def test_welford_update_reuse_source_leaves_x_minus_mean(lib: rt.KernelLibrary) -> None:
    """isReuseSource (float inputX): the results are the same; CANN's code leaves x - mean in
    inputX over abComputeLength (one 256-byte temporary is then enough)."""
    x, m, v = welford_inputs(128, "float32", 5)
    init = np.zeros(2 * 128 + 16, F32)
    om, ov, _, _, xo = run_welford(
        lib, "float32", 2, x, m, v, None, init, blob(2, tmp=256, wu=(1, 128, 100, 0.125))
    )
    wm, wv, d = welford_update_model(x, m, v, 0.125, 100, init[:128], init[128:256], False)
    assert_bits(om, wm)
    assert_bits(ov, wv)
    assert_bits(xo[:100], d)
    assert_bits(xo[100:], x[100:])


# ---- WelfordFinalize -----------------------------------------------------------------------------
def fin_reduce(vals, ab: int, chunk: int) -> F32:
    """Chunks of computeLength reduced as LayerNorm's rows into 64 partial slots (folded into slot
    0 when full), then a tree of the slots."""
    slots: list[F32] = []
    rounds, tail = divmod(ab, chunk)
    for i in range(rounds + 1):
        n = chunk if i < rounds else tail
        if n == 0:
            break
        slots.append(ln_row_sum(vals(i * chunk, n)))
        if len(slots) == 64 and i < rounds:
            slots = [tree_sum(np.array(slots, F32))]
    return tree_sum(np.array(slots, F32))


def welford_finalize_model(
    m: np.ndarray,
    v: np.ndarray,
    counts: np.ndarray | None,
    rn: int,
    ab: int,
    head: tuple[int, int],
    tail: tuple[int, int],
    ab_rec: float,
    r_rec: float,
    tmp_bytes: int,
) -> tuple[F32, F32]:
    """welfordfinalize_common_impl.h: mean = sum(mean_i * k_i * rRec) (k_i counts_i or the
    head/tail form; mean_i * abRec without a tail), var = sum((var_i + (mean_i - Mean)^2 * k_i) *
    rRec); k_i = rnLength without counts or a tail."""
    chunk = (tmp_bytes // 4 - 128) // 128 * 64
    rr, ar = F32(r_rec), F32(ab_rec)
    tail_form = counts is None and tail[1] != 0 and tail[0] != 0
    ratio = F32(F32(head[0]) / F32(tail[0])) if tail_form else F32(0)

    def scale(t: np.ndarray, off: int, n: int) -> np.ndarray:
        if tail_form:
            h = max(0, min(head[1] - off, n))
            t[:h] = (t[:h] * ratio).astype(F32)
        return t

    def mean_vals(off: int, n: int) -> np.ndarray:
        mi = m[off : off + n]
        if counts is not None:
            return ((mi * counts[off : off + n].astype(F32)).astype(F32) * rr).astype(F32)
        if tail_form:
            return scale(((mi * F32(tail[0])).astype(F32) * rr).astype(F32), off, n)
        return (mi * ar).astype(F32)

    mean = fin_reduce(mean_vals, ab, chunk)
    mb = F32(F32(mean + F32(0)) + F32(0))

    def var_vals(off: int, n: int) -> np.ndarray:
        d = (m[off : off + n] - mb).astype(F32)
        sq = (d * d).astype(F32)
        if counts is not None:
            k = counts[off : off + n].astype(F32)
        else:
            k = F32(tail[0] if tail_form else rn)
        t = scale((sq * k).astype(F32), off, n)
        return ((v[off : off + n] + t).astype(F32) * rr).astype(F32)

    return mean, fin_reduce(var_vals, ab, chunk)


@pytest.mark.parametrize(
    ("case", "ab", "tmp", "head", "tail"),
    [
        (
            "counts",
            4488,
            1024,
            (1, 4488),
            (0, 0),
        ),  # 70 chunks of 64 and a tail: the slots fold once
        ("counts", 200, 4096, (1, 200), (0, 0)),  # chunks of 960: one partial chunk
        ("plain", 256, 1024, (4, 256), (0, 0)),  # no tail: mean_i * abRec
        ("tail", 96, 1024, (5, 56), (3, 40)),  # head and tail counts
        ("stack", 128, 0, (2, 128), (0, 0)),  # the overload without sharedTmpBuffer
    ],
)
def test_welford_finalize_follows_canns_steps(
    lib: rt.KernelLibrary,
    case: str,
    ab: int,
    tmp: int,
    head: tuple[int, int],
    tail: tuple[int, int],
) -> None:
    """WelfordFinalize.md's formulas (with counts, without a tail, with head/tail counts) in CANN's
    float steps and reduction order; the result is lane 0 of the 8 outputs, the rest zero."""
    rng = np.random.default_rng(ab)
    m = rng.uniform(-3, 3, ab).astype(F32)
    v = rng.uniform(0, 5, ab).astype(F32)
    counts = rng.integers(1, 9, ab).astype(np.int32) if case == "counts" else None
    rn = 3
    r_rec = 1 / (rn * ab) if tail == (0, 0) else 1 / (head[0] * head[1] + tail[0] * tail[1])
    mode = {"counts": 10, "plain": 11, "tail": 11, "stack": 12}[case]
    tl = blob(mode, tmp=tmp, wu=(rn, ab, 0, 0.0), fin=(*head, *tail, 1 / ab, r_rec))
    _, _, fm, fv, _ = run_welford(
        lib, "float32", mode, np.zeros(ab, F32), m, v, counts, np.full(2 * ab + 16, 9.0, F32), tl
    )
    if case == "stack":  # the stack buffer: all of the UB the pipe left
        stack_floats = (192 * 1024 - 128 - (ab * 4 * 6 + 64)) // 4
        tmp = stack_floats * 4
    wm, wv = welford_finalize_model(m, v, counts, rn, ab, head, tail, 1 / ab, r_rec, tmp)
    assert_bits(fm, np.array([wm, 0, 0, 0, 0, 0, 0, 0], F32))
    assert_bits(fv, np.array([wv, 0, 0, 0, 0, 0, 0, 0], F32))
    # and it is the documented mean and variance
    w = counts.astype(np.float64) if counts is not None else np.full(ab, float(rn))
    if case == "tail":
        w = np.r_[np.full(head[1], float(head[0])), np.full(tail[1], float(tail[0]))]
    np.testing.assert_allclose(fm[0], np.sum(m * w) * r_rec, rtol=1e-4, atol=1e-5)


# ---- DeepNorm ------------------------------------------------------------------------------------
def deepnorm_model(
    x: np.ndarray,
    gx: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    alpha: float,
    eps: float,
    tl: list[int | float],
    basic: bool,
) -> tuple[np.ndarray, ...]:
    """deepnorm_common_impl.h / deepnorm_v220_impl.h, a row at a time."""
    dt = x.dtype
    h, ori_h, one, bs_cur = int(tl[2]), int(tl[3]), int(tl[12]), int(tl[24])
    brcb = basic and one % (8 * h) == 0 and bs_cur > h // 64
    xf, gxf = x.astype(F32), gx.astype(F32)
    g, bt = gamma.astype(F32), beta.astype(F32)
    a, e = F32(np.array(alpha, dt)), F32(np.array(eps, dt))
    recip = F32(tl[25])
    rows = x.shape[0]
    y, mean, var = np.empty_like(xf), np.empty(rows, F32), np.empty(rows, F32)
    for r in range(rows):
        x1 = (gxf[r] + (xf[r] * a).astype(F32)).astype(F32)
        t = (x1 * recip).astype(F32)
        mean[r] = basic_sum(t) if basic else repeat_sum(t[:ori_h])
        d = (x1 - F32(mean[r] + F32(0))).astype(F32) if brcb else (x1 + F32(-mean[r])).astype(F32)
        t = ((d * d).astype(F32) * recip).astype(F32)
        var[r] = basic_sum(t) if basic else repeat_sum(t[:ori_h])
        rstd = F32(F32(1) / np.sqrt(F32(var[r] + e)))
        yv = (
            ((F32(rstd + F32(0)) * d).astype(F32) + F32(0)).astype(F32)
            if brcb
            else (d * rstd).astype(F32)
        )
        y[r] = ((yv * g).astype(F32) + bt).astype(F32)
    return y.astype(dt), mean.astype(dt), var.astype(dt)


def run_deepnorm(
    lib: rt.KernelLibrary,
    mode: int,
    x: np.ndarray,
    gx: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    alpha: float,
    eps: float,
    tl: list[int | float],
    tmp: int,
) -> tuple[np.ndarray, ...]:
    rows, h = x.shape
    dt = x.dtype
    r16 = round_up(rows, 16)
    bufs = [
        rt.gm_empty(rows * h, dt),
        rt.gm_empty(rows * h, dt),
        rt.gm_empty(h, dt),
        rt.gm_empty(h, dt),
        rt.gm_empty(rows * h, dt),
        rt.gm_empty(2 * r16, dt),
        rt.gm_empty(rows * h, dt),
    ]
    bufs[0][:], bufs[1][:], bufs[2][:], bufs[3][:] = x.ravel(), gx.ravel(), gamma, beta
    rt.launch(
        lib,
        "deepnorm_f" if dt == np.float32 else "deepnorm_h",
        bufs,
        block_dim=1,
        tiling=blob(mode, rows=rows, h=h, tmp=tmp, eps=eps, alpha=alpha, dn=tl),
    )
    mv = np.asarray(bufs[5]).copy()
    return (
        np.asarray(bufs[4]).reshape(rows, h).copy(),
        mv[:rows],
        mv[r16 : r16 + rows],
        np.asarray(bufs[6]).reshape(rows, h).copy(),
    )


def deepnorm_inputs(rows: int, h: int, dtype: str, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (
        (rng.standard_normal((rows, h)) * 2).astype(dtype),
        rng.standard_normal((rows, h)).astype(dtype),
        rng.uniform(-1, 1, h).astype(dtype),
        rng.uniform(-1, 1, h).astype(dtype),
    )


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize(
    ("b", "s", "h", "ori_h", "rows_a_pass", "basic"),
    [
        (1, 5, 208, 200, 2, False),  # padding columns, two passes and a tail row
        (2, 3, 64, 64, 6, False),  # one repeat, one pass
        (2, 8, 128, 128, 16, True),  # basic block, 8 * H * n temporaries: CANN's Brcb path
        (1, 8, 192, 192, 1, True),  # basic block a row a pass: its for-loop path
    ],
)
def test_deepnorm_follows_canns_steps(
    lib: rt.KernelLibrary,
    dtype: str,
    b: int,
    s: int,
    h: int,
    ori_h: int,
    rows_a_pass: int,
    basic: bool,
) -> None:
    """DeepNorm.md: LayerNorm(alpha * x + gx) over H, in CANN's float steps; meanLocal and
    rstdLocal receive the mean and the variance (CANN's A2/A3 code, which asc-devkit's deepnorm
    sample checks)."""
    ts = 2 if dtype == "float16" else 4
    mv_total = 0 if ts == 4 else 2 * round_up(b * s, 8)
    ws = round_up((mv_total + 3 * rows_a_pass * h + 5) * 4, 32)
    tl = deepnorm_tiling(b, s, h, ori_h, ts, ws, basic=basic)
    assert tl[12] == rows_a_pass * h
    x, gx, gamma, beta = deepnorm_inputs(b * s, h, dtype, h + b)
    y, mean, var, xo = run_deepnorm(lib, 1 if basic else 0, x, gx, gamma, beta, -1.5, 1e-3, tl, ws)
    wy, wm, wv = deepnorm_model(x, gx, gamma, beta, -1.5, 1e-3, tl, basic)
    assert_bits(y, wy)
    assert_bits(mean, wm)
    assert_bits(var, wv)
    assert_bits(xo, x)


def test_deepnorm_reuse_and_stack(lib: rt.KernelLibrary) -> None:
    """isReuseSrc (float): the same results, srcLocal used as a temporary (CANN's code leaves the
    last pass's (y - beta) at its start); the overload without sharedTmpBuffer pops the stack."""
    x, gx, gamma, beta = deepnorm_inputs(4, 64, "float32", 11)
    ws = 2 * 2 * 64 * 4
    tl = deepnorm_tiling(1, 4, 64, 64, 4, ws, reuse=True)
    y, mean, var, xo = run_deepnorm(lib, 2, x, gx, gamma, beta, 0.75, 1e-5, tl, ws)
    wy, wm, wv = deepnorm_model(x, gx, gamma, beta, 0.75, 1e-5, tl, False)
    assert_bits(y, wy)
    assert_bits(mean, wm)
    assert_bits(var, wv)
    # the last pass (rows 2, 3) left (y - beta) = y * gamma before beta in rows 0, 1
    np.testing.assert_allclose(xo[:2] + beta, wy[2:], rtol=1e-6, atol=1e-6)
    tl3 = deepnorm_tiling(1, 4, 64, 64, 4, 3 * 64 * 4)
    y3, _, _, _ = run_deepnorm(lib, 3, x, gx, gamma, beta, 0.75, 1e-5, tl3, 0)
    assert_bits(y3, deepnorm_model(x, gx, gamma, beta, 0.75, 1e-5, tl3, False)[0])


# ---- LayerNorm [A, R] and Normalize -------------------------------------------------------------
LN_ENTRIES = {
    ("float32", "float32"): "ln_ff",
    ("float16", "float16"): "ln_hh",
    ("float16", "float32"): "ln_hf",
}


def run_ln(
    lib: rt.KernelLibrary,
    mode: int,
    t: str,
    u: str,
    x: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    r: int,
    eps: float,
    tmp: int,
    ls: list[int | float] | None,
) -> tuple[np.ndarray, ...]:
    a, rp = x.shape
    a16 = round_up(a, 16)
    bufs = [
        rt.gm_empty(a * rp, t),
        rt.gm_empty(rp, u),
        rt.gm_empty(rp, u),
        rt.gm_empty(2 * a16, "float32"),
        rt.gm_empty(a * rp, t),
        rt.gm_empty(2 * a16, "float32"),
        rt.gm_empty(a * rp, t),
    ]
    bufs[0][:], bufs[1][:], bufs[2][:] = x.ravel(), gamma, beta
    bufs[3][:] = 0
    bufs[3][:a], bufs[3][a16 : a16 + a] = mean, var
    rt.launch(
        lib,
        LN_ENTRIES[(t, u)],
        bufs,
        block_dim=1,
        tiling=blob(mode, rows=a, tmp=tmp, eps=eps, r=r, r_pad=rp, ls=ls),
    )
    st = np.asarray(bufs[5]).copy()
    return (
        np.asarray(bufs[4]).reshape(a, rp).copy(),
        st[:a],
        st[a16 : a16 + a],
        np.asarray(bufs[6]).reshape(a, rp).copy(),
    )


def normalize_model(
    x: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    gamma: np.ndarray | None,
    beta: np.ndarray | None,
    r: int,
    eps: float,
) -> tuple[np.ndarray, np.ndarray]:
    """normalize_common_impl.h: rstd = 1 / sqrt(var + eps); ((x - mean) * rstd) * gamma + beta
    over the rLength columns (the padding columns are not compared)."""
    xf = x.astype(F32)[:, :r]
    rstd = (F32(1) / np.sqrt((var + F32(eps)).astype(F32))).astype(F32)
    y = ((xf - mean[:, None]).astype(F32) * rstd[:, None]).astype(F32)
    if gamma is not None:
        y = (y * gamma.astype(F32)[:r]).astype(F32)
    if beta is not None:
        y = (y + beta.astype(F32)[:r]).astype(F32)
    return y.astype(x.dtype), rstd


def ln_stats_model(x: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """layernorm_common_impl.h's [A, R] mean and variance: the padding zeroed in x, then
    sum(x * 1/R) and sum((x - mean)^2 * 1/R) with LayerNorm's row reduce over the padded row."""
    xz = x.copy()
    xz[:, r:] = (xz[:, r:].astype(F32) * F32(0)).astype(x.dtype)
    xf = xz.astype(F32)
    recip = F32(F32(1) / F32(r))
    mean, var = np.empty(len(x), F32), np.empty(len(x), F32)
    for i, row in enumerate(xf):
        mean[i] = ln_row_sum((row * recip).astype(F32))
        d = row.copy()
        d[:r] = (row[:r] + F32(-mean[i])).astype(F32)
        var[i] = ln_row_sum(((d * d).astype(F32) * recip).astype(F32))
    return xz, mean, var


@pytest.mark.parametrize(
    ("t", "u"), [("float32", "float32"), ("float16", "float16"), ("float16", "float32")]
)
@pytest.mark.parametrize(
    ("a", "r", "rows_a_pass", "mode"), [(12, 40, 5, 0), (8, 96, 8, 0), (9, 30, 4, 1), (6, 72, 6, 5)]
)
def test_layernorm_ar_form_follows_canns_steps(
    lib: rt.KernelLibrary, t: str, u: str, a: int, r: int, rows_a_pass: int, mode: int
) -> None:
    """LayerNorm.md's [A, R] form: the mean and rstd as outputs, y = (x - mean) * rstd * gamma +
    beta (no gamma with isNoGamma); CANN zeroes inputX's padding columns first, sums as LayerNorm's
    rows, then runs Normalize."""
    ts = 2 if t == "float16" else 4
    rp = round_up(r, 32 // ts)
    ws = (round_up(a, 8) + 2 * rows_a_pass * rp) * 4
    ls = ln_sep_tiling(a, r, ts, ws)
    assert ls[12] == rows_a_pass * rp
    rng = np.random.default_rng(a * r)
    x = (rng.standard_normal((a, rp)) * 3 + 1).astype(t)
    gamma, beta = rng.uniform(-1, 1, rp).astype(u), rng.uniform(-1, 1, rp).astype(u)
    tmp = 0 if mode == 1 else ws + 64 * 1024 // 4
    y, mean, rstd, xo = run_ln(
        lib, mode, t, u, x, gamma, beta, np.zeros(a, F32), np.zeros(a, F32), r, 1e-4, tmp, ls
    )
    xz, wm, wv = ln_stats_model(x, r)
    wy, wr = normalize_model(xz, wm, wv, None if mode == 5 else gamma, beta, r, 1e-4)
    assert_bits(mean, wm)
    assert_bits(rstd, wr)
    assert_bits(y[:, :r], wy)
    assert_bits(xo, xz)


@pytest.mark.parametrize(
    ("t", "u", "mode"),
    [("float32", "float32", 2), ("float16", "float32", 2), ("float16", "float16", 3)],
)
def test_normalize_follows_canns_steps(lib: rt.KernelLibrary, t: str, u: str, mode: int) -> None:
    """Normalize.md: rstd = 1 / sqrt(var + eps), y = (x - mean) * rstd * gamma + beta (no beta with
    NLCFG_NOBETA), in passes of the rows sharedTmpBuffer holds."""
    a, r = 11, 50
    rp = round_up(r, 16 if t == "float16" else 8)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((a, rp)).astype(t)
    mean, var = rng.uniform(-0.5, 0.5, a).astype(F32), rng.uniform(0.1, 4, a).astype(F32)
    gamma, beta = rng.uniform(-1, 1, rp).astype(u), rng.uniform(-1, 1, rp).astype(u)
    tmp = (3 * 2 * rp + (2 * rp if u == "float16" else 0)) * 4  # three rows a pass
    y, _, rstd, xo = run_ln(lib, mode, t, u, x, gamma, beta, mean, var, r, 1e-5, tmp, None)
    wy, wr = normalize_model(x, mean, var, gamma, None if mode == 3 else beta, r, 1e-5)
    assert_bits(rstd, wr)
    assert_bits(y[:, :r], wy)
    assert_bits(xo, x)


# ---- misuse --------------------------------------------------------------------------------------
def test_misuse_is_an_error_naming_the_api(lib: rt.KernelLibrary) -> None:
    """The pages' constraints (约束说明) and the buffers CANN's kernels use."""
    x, m, v = welford_inputs(64, "float32", 1)
    init = np.zeros(2 * 64 + 16, F32)
    cases = [
        (
            blob(0, tmp=512, wu=(2, 64, 64, 0.5)),
            rt.SimulatorError,
            "WelfordUpdate: para.rnLength is 2; it must be 1 (WelfordUpdate.md)",
        ),
        (
            blob(0, tmp=256, wu=(1, 64, 64, 0.5)),
            rt.LocalMemoryOutOfBounds,
            "WelfordUpdate: sharedTmpBuffer holds 256 bytes; "
            "WelfordUpdate with float inputX (2 temporaries",
        ),
        (
            blob(4, tmp=512, wu=(1, 64, 64, 0.5)),
            rt.SimulatorError,
            "WelfordUpdate: outputMean overlaps inputMean; "
            "WelfordUpdate.md (约束说明) does not allow that",
        ),
        (
            blob(11, tmp=1024, wu=(1, 64, 0, 0.0), fin=(1, 60, 0, 0, 1 / 64, 1 / 64)),
            rt.SimulatorError,
            "WelfordFinalize: para.headCountLength 60 + tailCountLength 0 must be abLength 64",
        ),
        (
            blob(11, tmp=512, wu=(1, 64, 0, 0.0), fin=(1, 64, 0, 0, 1 / 64, 1 / 64)),
            rt.LocalMemoryOutOfBounds,
            "WelfordFinalize: sharedTmpBuffer holds 512 bytes",
        ),
    ]
    for tiling, error, text in cases:
        with pytest.raises(error, match="block 0: " + re.escape(text)):
            run_welford(
                lib,
                "float32",
                struct.unpack("<i", tiling[:4])[0],
                x,
                m,
                v,
                np.ones(64, np.int32),
                init,
                tiling,
            )
    dx, gx, gamma, beta = deepnorm_inputs(2, 64, "float32", 2)
    tl = deepnorm_tiling(1, 2, 64, 64, 4, 3 * 64 * 4)
    with pytest.raises(
        rt.SimulatorError,
        match=re.escape(
            "DeepNorm: dstLocal overlaps srcLocal; DeepNorm.md (约束说明) does not allow"
        ),
    ):
        run_deepnorm(lib, 4, dx, gx, gamma, beta, 1.0, 1e-5, tl, 3 * 64 * 4)
    bad = list(tl)
    bad[12] = 100  # oneTmpSize not whole rows
    with pytest.raises(
        rt.TilingError,
        match=re.escape("DeepNorm: tiling.oneTmpSize 100 must be a positive multiple"),
    ):
        run_deepnorm(lib, 0, dx, gx, gamma, beta, 1.0, 1e-5, bad, 3 * 64 * 4)
    xn = np.ones((4, 8), F32)
    with pytest.raises(
        rt.SimulatorError,
        match=re.escape(
            "Normalize: output overlaps inputX; Normalize.md (约束说明) does not allow"
        ),
    ):
        run_ln(
            lib,
            4,
            "float32",
            "float32",
            xn,
            np.ones(8, F32),
            np.ones(8, F32),
            np.zeros(4, F32),
            np.ones(4, F32),
            8,
            1e-5,
            1024,
            None,
        )


# ---- the host side -------------------------------------------------------------------------------
HOST_CPP = r"""
#include <cstdio>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

template <typename S>
static void Dump(const S& s) {
    const uint32_t* w = reinterpret_cast<const uint32_t*>(&s);
    for (size_t i = 0; i < sizeof(S) / 4; ++i) std::printf("%u ", w[i]);
    std::printf("\n");
}

int main() {
    using V = std::vector<int64_t>;
    uint32_t mx = 0, mn = 0;
    bool ok = AscendC::GetDeepNormMaxMinTmpSize(ge::Shape(V{4, 16, 64}), 4, false, true, mx, mn);
    std::printf("%d %u %u\n", ok, mx, mn);
    ok = AscendC::GetDeepNormMaxMinTmpSize(ge::Shape(V{2, 3, 208}), 2, false, false, mx, mn);
    std::printf("%d %u %u\n", ok, mx, mn);
    AscendC::tiling::DeepNormTiling dn;
    const ge::Shape a(V{1, 5, 208}), ao(V{1, 5, 200}), b(V{2, 8, 128});
    ok = AscendC::GetDeepNormTilingInfo(a, ao, 5056, 2, false, false, dn);
    std::printf("%d\n", ok);
    Dump(dn);
    ok = AscendC::GetDeepNormTilingInfo(b, b, 30000, 4, true, true, dn);
    std::printf("%d\n", ok);
    Dump(dn);
    std::printf("%d\n", AscendC::GetDeepNormTilingInfo(a, ao, 100, 4, false, false, dn));
    AscendC::GetLayerNormMaxMinTmpSize(ge::Shape(V{32, 32}), 4, false, true, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetLayerNormMaxMinTmpSize(ge::Shape(V{7, 40}), 2, false, true, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::tiling::LayerNormSeparateTiling ls;
    AscendC::GetLayerNormNDTilingInfo(ge::Shape(V{12, 40}), 1408, 4, false, true, ls);
    Dump(ls);
    AscendC::GetNormalizeMaxMinTmpSize(ge::Shape(V{32, 32}), 4, 4, false, true, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetNormalizeMaxMinTmpSize(ge::Shape(V{100, 50}), 2, 2, false, true, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetWelfordUpdateMaxMinTmpSize(ge::Shape(V{1, 64}), 4, 4, false, true, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetWelfordUpdateMaxMinTmpSize(ge::Shape(V{1, 200}), 2, 4, false, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetWelfordUpdateMaxMinTmpSize(ge::Shape(V{1, 200}), 4, 4, true, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetWelfordFinalizeMaxMinTmpSize(ge::Shape(V{64}), 4, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::GetWelfordFinalizeMaxMinTmpSize(ge::Shape(V{200}), 4, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
    mx = mn = 0;
    AscendC::GetWelfordUpdateMaxMinTmpSize(ge::Shape(V{64}), 4, 4, false, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
}
"""


def normalize_sizes(a: int, r: int, ts_u: int, ts_t: int) -> tuple[int, int]:
    """GetNormalizeMaxMinTmpSize (normalize_tiling_impl.cpp): 2R + 2 * A8 * R floats at most,
    max(A, 2R) (4R with half gamma/beta) at least, each part rounded up to 32 bytes."""
    rp = round_up(r, 32 // ts_t)
    rb = round_up(rp * 4, 32)
    return 2 * rb + 2 * round_up(round_up(a, 8) * rp * 4, 32), max(
        round_up(a * 4, 32), (2 if ts_u == 4 else 4) * rb
    )


def ln_sizes(a: int, r: int, ts: int) -> tuple[int, int]:
    """GetLayerNormMaxMinTmpSize's [A, R] form: 2 * A * R + A floats at most, 2R + A at least,
    raised to Normalize's need + A."""
    rp, mv = round_up(r, 32 // ts), round_up(a * 4, 32)
    mx, mn = 2 * round_up(a * rp * 4, 32) + mv, 2 * round_up(rp * 4, 32) + mv
    nmx, nmn = normalize_sizes(a, r, ts, ts)
    return (nmx + mv if mx - mv <= nmx else mx), (nmn + mv if mn - mv <= nmn else mn)


def words(values: list[int | float]) -> list[str]:
    return [
        str(struct.unpack("<I", struct.pack("<f" if isinstance(v, float) else "<I", v))[0])
        for v in values
    ]


def test_host_tiling_as_cann_computes_it(tmp_path: Path) -> None:
    """DeepNorm-Tiling.md, LayerNorm-Tiling.md, Normalize-Tiling.md, WelfordUpdate-Tiling.md and
    WelfordFinalize-Tiling.md: the sizes and plans of asc-devkit's tiling implementation; a shape
    or buffer they cannot serve is reported (and returns false where the function returns bool)."""
    out = run_host_program(tmp_path, HOST_CPP)
    lines = out.stdout.splitlines()
    assert lines[0] == f"1 {3 * 4 * 16 * 64 * 4 + 2 * 256} {3 * 256 + 2 * 256}"
    assert lines[1] == f"1 {3 * 6 * 208 * 4 + 2 * 32} {3 * 208 * 4 + 2 * 32}"
    assert lines[2] == "1"
    assert lines[3].split() == words(deepnorm_tiling(1, 5, 208, 200, 2, 5056))
    assert lines[4] == "1"
    assert lines[5].split() == words(
        deepnorm_tiling(2, 8, 128, 128, 4, 30000, reuse=True, basic=True)
    )
    assert lines[6] == "0"
    assert "GetDeepNormTilingInfo: stackBufferSize 100 is below the minimum" in out.stderr
    # [32, 32] float (the layernorm_v2 sample's): raised to Normalize's 8448 and 256 bytes + 128
    assert lines[7] == "8576 384" == "{} {}".format(*ln_sizes(32, 32, 4))
    assert lines[8] == "{} {}".format(*ln_sizes(7, 40, 2))
    assert lines[9].split() == words(ln_sep_tiling(12, 40, 4, 1408))
    assert lines[10] == "8448 256" == "{} {}".format(*normalize_sizes(32, 32, 4, 4))
    assert lines[11] == "{} {}".format(*normalize_sizes(100, 50, 2, 2))
    assert lines[12:17] == [
        "512 512",
        f"{4 * 768} 768",
        f"{4 * 256} 256",
        "1024 1024",
        f"{(128 + 400) * 4} 1024",
    ]
    assert lines[17] == "0 0"
    assert "GetWelfordUpdateMaxMinTmpSize: srcShape has 1 dims" in out.stderr
