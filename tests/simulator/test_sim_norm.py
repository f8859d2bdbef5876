"""The normalization advanced APIs (opgen_sim/norm.h): RmsNorm with and without sharedTmpBuffer
(PopStackBuffer), against a numpy model of the float steps of CANN's A2/A3 implementation
(asc-devkit impl/adv_api/detail/normalization/rmsnorm/rmsnorm_common_impl.h): x^2, a tree sum a
256-byte repeat (or the basic block's block adds), Muls by 1/H, Adds eps, Ln, Muls -0.5, Exp, then
x * rstd * gamma, half cast in exactly and back to nearest even; and the host side
(tiling/norm_tiling.h) as rmsnorm_tiling_impl.cpp computes it. LayerNorm, LayerNormGrad and
LayerNormGradBeta (end of the file) against a numpy model of CANN's layernorm steps."""

from __future__ import annotations

import ctypes
import ctypes.util
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

struct NormTest {
    int32_t mode;
    uint32_t rows;
    uint32_t h;
    uint32_t tmpBytes;
    float eps;
    uint32_t pad;
    RmsNormTiling tl;
};
REGISTER_TILING_DEFAULT(NormTest);

template <typename T>
__aicore__ inline void Body(GM_ADDR x, GM_ADDR g, GM_ADDR y, const NormTest& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bg, by, btmp;
    const uint32_t n = t.rows * t.h;
    pipe.InitBuffer(bx, n * sizeof(T));
    pipe.InitBuffer(bg, t.h * sizeof(T));
    pipe.InitBuffer(by, n * sizeof(T));
    if (t.mode != 2) pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, gGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    gGm.SetGlobalBuffer((__gm__ T*)g, t.h);
    yGm.SetGlobalBuffer((__gm__ T*)y, n);
    LocalTensor<T> src = bx.Get<T>(), gamma = bg.Get<T>(), dst = by.Get<T>();
    DataCopy(src, xGm, n);
    DataCopy(gamma, gGm, t.h);
    const T eps = (T)t.eps;
    if (t.mode == 0) RmsNorm<T>(dst, src, gamma, btmp.Get<uint8_t>(), eps, t.tl);
    if (t.mode == 1) RmsNorm<T, true>(dst, src, gamma, btmp.Get<uint8_t>(), eps, t.tl);
    if (t.mode == 2) {
        LocalTensor<uint8_t> stack;
        PopStackBuffer<uint8_t, TPosition::LCM>(stack);
        // the stack buffer starts where the pipe's buffers end and runs to the UB's end less 128
        if (stack.GetPhyAddr() != dst.GetPhyAddr() + n * sizeof(T) ||
            stack.GetSize() != 192 * 1024 - 128 - stack.GetPhyAddr()) {
            return;
        }
        RmsNorm<T>(dst, src, gamma, eps, t.tl);
    }
    if (t.mode == 3) RmsNorm<T>(gamma, src, gamma, btmp.Get<uint8_t>(), eps, t.tl);
    if (t.mode == 4) {
        RmsNorm<T>(src, src, gamma, btmp.Get<uint8_t>(), eps, t.tl);
        dst = src;
    }
    DataCopy(yGm, dst, n);
}

extern "C" __global__ __aicore__ void rmsnorm_f(GM_ADDR x, GM_ADDR g, GM_ADDR y, GM_ADDR ws,
                                                GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    Body<float>(x, g, y, t);
}

extern "C" __global__ __aicore__ void rmsnorm_h(GM_ADDR x, GM_ADDR g, GM_ADDR y, GM_ADDR ws,
                                                GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    Body<half>(x, g, y, t);
}
"""

ENTRIES = {"float32": "rmsnorm_f", "float16": "rmsnorm_h"}

_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
_LIBM.logf.restype = ctypes.c_float
_LIBM.logf.argtypes = [ctypes.c_float]

F32 = np.float32


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("norm")) / "norm.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry=tuple(ENTRIES.values()))


# ---- the host's tiling, as rmsnorm_tiling_impl.cpp plans it ------------------------------------
FIELDS = ["bLength", "sLength", "hLength", "originalHLength", "reciprocalOfHLength",
          "mainBshLength", "mainBsLength", "mainBsLengthAlign", "loopRound", "inputTailPos",
          "tailBshLength", "tailBsLength"]


def round_up(v: int, unit: int) -> int:
    return (v + unit - 1) // unit * unit


def min_tmp(h: int, type_size: int) -> int:
    return (h * (2 if type_size == 2 else 1) + 8) * 4


def host_tiling(b: int, s: int, h: int, ori_h: int, type_size: int, ws_bytes: int,
                basic: bool = False) -> dict[str, float]:
    """GetRmsNormTilingInfo: the most rows whose floats (twice for half) and 8-float-rounded
    reduce slots the buffer holds, at most 255 (a multiple of 8 for the basic block)."""
    floats = ws_bytes // 4
    coeff = 1 if type_size == 4 else 2
    rows = 1
    while floats >= (rows + 1) * h * coeff + round_up(rows + 1, 8):
        rows += 1
    total = b * s * h
    rows = min(rows * h, total) // h
    rows = (rows if rows < 8 else rows // 8 * 8) if basic else min(rows, 255)
    tail = total % (rows * h)
    return dict(zip(FIELDS, [b, s, h, ori_h, float(F32(1) / F32(ori_h)), rows * h, rows,
                             round_up(rows, 8), total // (rows * h), total - tail, tail,
                             tail // h], strict=True))


# ---- the kernel's float steps -------------------------------------------------------------------
def tree_sum(v: np.ndarray) -> F32:
    """Adjacent pairs, then pairs of those sums, over 64 lanes (missing lanes 0)."""
    t = np.zeros(64, F32)
    t[:len(v)] = v
    while len(t) > 1:
        t = (t[0::2] + t[1::2]).astype(F32)
    return F32(t[0])


def repeat_sum(v: np.ndarray) -> F32:
    """Counter-mode RepeatReduceSum until one value is left: a tree a repeat, then again."""
    while len(v) > 1:
        v = np.array([tree_sum(v[i:i + 64]) for i in range(0, len(v), 64)], F32)
    return F32(v[0])


def basic_sum(v: np.ndarray) -> F32:
    acc = v[:64].copy()
    for b in range(1, len(v) // 64):
        acc = (acc + v[64 * b:64 * b + 64]).astype(F32)
    return tree_sum(acc)


def model(x: np.ndarray, gamma: np.ndarray, eps: float, ori_h: int, basic: bool) -> np.ndarray:
    """RmsNorm of rows [rows, h], each in CANN's order of float operations."""
    xf = x.astype(F32)
    g = gamma.astype(F32)
    recip = F32(1) / F32(ori_h)
    e = F32(np.array(eps, x.dtype))
    out = np.empty_like(xf)
    for r in range(x.shape[0]):
        sq = (xf[r] * xf[r]).astype(F32)
        v = basic_sum(sq) if basic else repeat_sum(sq[:ori_h])
        v = F32(F32(v * recip) + e)
        v = F32(_LIBM.logf(float(v)))
        v = F32(expf(F32(v * F32(-0.5))))
        out[r] = ((xf[r] * v).astype(F32) * g).astype(F32)
    return out.astype(x.dtype)  # half: to nearest even, as Cast's CAST_NONE


# ---- launching ----------------------------------------------------------------------------------
def tiling_bytes(mode: int, rows: int, h: int, tmp_bytes: int, eps: float,
                 tl: dict[str, float]) -> bytes:
    head = np.array([mode, rows, h, tmp_bytes], np.uint32).tobytes()
    head += np.array([eps], F32).tobytes() + np.zeros(1, np.uint32).tobytes()
    body = b"".join(np.array([tl[f]], F32 if f == "reciprocalOfHLength" else np.uint32).tobytes()
                    for f in FIELDS)
    return head + body


def run(lib: rt.KernelLibrary, dtype: str, mode: int, x: np.ndarray, gamma: np.ndarray,
        eps: float, tl: dict[str, float], tmp_bytes: int) -> np.ndarray:
    rows, h = x.shape
    gx, gg, gy = rt.gm_empty(rows * h, dtype), rt.gm_empty(h, dtype), rt.gm_empty(rows * h, dtype)
    gx[:] = x.ravel()
    gg[:] = gamma
    gy[:] = 0
    blob = tiling_bytes(mode, rows, h, tmp_bytes, eps, tl)
    rt.launch(lib, ENTRIES[dtype], [gx, gg, gy], block_dim=1, tiling=blob)
    return np.asarray(gy).reshape(rows, h).copy()


def inputs(rows: int, h: int, dtype: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((rows, h)) * 2).astype(dtype), rng.uniform(-1, 1, h).astype(dtype)


def assert_bits(got: np.ndarray, want: np.ndarray) -> None:
    bits = np.uint32 if got.dtype == np.float32 else np.uint16
    np.testing.assert_array_equal(got.view(bits), want.view(bits))


# b, s, h, original h, rows a pass the buffer holds: h below a repeat, h over several repeats
# with a partial one, h over 64 repeats (three levels of sums), padding columns
SHAPES = [(2, 8, 32, 32, 16), (3, 5, 200, 200, 4), (1, 3, 4160, 4160, 1), (2, 4, 64, 50, 3)]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_rmsnorm_follows_canns_float_steps(lib: rt.KernelLibrary, dtype: str) -> None:
    """RmsNorm.md: x / sqrt(mean(x^2) + eps) * gamma over H, in CANN's float steps (a tree sum a
    repeat of the first originalHLength squares, 1/H, eps, Ln, -0.5, Exp, x * rstd * gamma), in
    passes of the rows the buffer holds; the padding columns are computed too."""
    size = 2 if dtype == "float16" else 4
    for i, (b, s, h, ori_h, rows) in enumerate(SHAPES):
        if dtype == "float16" and h % 16:
            h += 16 - h % 16
        x, gamma = inputs(b * s, h, dtype, i)
        ws = (rows * h * (2 if size == 2 else 1) + round_up(rows, 8)) * 4
        tl = host_tiling(b, s, h, ori_h, size, ws)
        assert tl["mainBsLength"] == rows
        got = run(lib, dtype, 0, x, gamma, 1e-5, tl, ws)
        assert_bits(got, model(x, gamma, 1e-5, ori_h, False))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_basic_block_adds_the_blocks_in_order(lib: rt.KernelLibrary, dtype: str) -> None:
    """RmsNorm.md, isBasicBlock (H a multiple of 64 below 2048, B * S of 8): CANN's basic-block
    path adds each 64-column block into the first, then sums the 64 lanes as a tree."""
    size = 2 if dtype == "float16" else 4
    x, gamma = inputs(16, 320, dtype, 7)
    ws = 1 << 16
    tl = host_tiling(2, 8, 320, 320, size, ws, basic=True)
    got = run(lib, dtype, 1, x, gamma, 1e-3, tl, ws)
    want = model(x, gamma, 1e-3, 320, True)
    assert_bits(got, want)
    if dtype == "float32":  # the orders differ (half's rounding hides it here)
        assert not np.array_equal(want, model(x, gamma, 1e-3, 320, False))


def test_stack_buffer_and_in_place(lib: rt.KernelLibrary) -> None:
    """PopStackBuffer.md: the rest of the UB (the A2's last 128 bytes kept) serves the overload
    without sharedTmpBuffer; RmsNorm.md allows dst over src (only gamma may not be dst)."""
    x, gamma = inputs(8, 96, "float32", 3)
    tl = host_tiling(1, 8, 96, 96, 4, 1 << 16)
    want = model(x, gamma, 1e-6, 96, False)
    assert_bits(run(lib, "float32", 2, x, gamma, 1e-6, tl, 0), want)
    assert_bits(run(lib, "float32", 4, x, gamma, 1e-6, tl, 1 << 16), want)


@pytest.mark.parametrize(
    ("mode", "shape", "tmp_bytes", "basic", "error", "text"),
    [
        (0, (8, 64), 256, False, rt.LocalMemoryOutOfBounds,
         "RmsNorm: sharedTmpBuffer holds 256 bytes; passes of 8 rows of H 64 need 2080"),
        (1, (8, 96), 1 << 14, False, rt.TilingError,
         "RmsNorm: isBasicBlock needs H a multiple of 64 below 2048 (RmsNorm.md); "
         "tiling.hLength is 96"),
        (3, (1, 64), 1 << 14, False, rt.SimulatorError,
         "RmsNorm: dstLocal overlaps gammaLocal; RmsNorm.md (约束说明) does not allow that"),
    ],
)
def test_misuse_is_an_error_naming_the_api(lib: rt.KernelLibrary, mode: int, shape: tuple[int, int],
                                           tmp_bytes: int, basic: bool, error: type[Exception],
                                           text: str) -> None:
    """RmsNorm.md, 约束说明 and RmsNorm-Tiling.md: the buffer the tiling was planned for, the
    basic block's H, dst apart from gamma."""
    rows, h = shape
    x, gamma = inputs(rows, h, "float32", 1)
    tl = host_tiling(1, rows, h, h, 4, 1 << 16, basic=basic)
    with pytest.raises(error, match="block 0: " + re.escape(text)):
        run(lib, "float32", mode, x, gamma, 1e-5, tl, tmp_bytes)


HOST_CPP = r"""
#include <cstdio>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

static void Print(const AscendC::tiling::RmsNormTiling& t) {
    std::printf("%u %u %u %u %.9g %u %u %u %u %u %u %u\n", t.bLength, t.sLength, t.hLength,
                t.originalHLength, t.reciprocalOfHLength, t.mainBshLength, t.mainBsLength,
                t.mainBsLengthAlign, t.loopRound, t.inputTailPos, t.tailBshLength, t.tailBsLength);
}

int main() {
    const ge::Shape a(std::vector<int64_t>{3, 5, 200});
    const ge::Shape ao(std::vector<int64_t>{3, 5, 190});
    uint32_t mx = 0, mn = 0;
    bool ok = AscendC::GetRmsNormMaxMinTmpSize(a, 4, mx, mn);
    std::printf("%d %u %u\n", ok, mx, mn);
    ok = AscendC::GetRmsNormMaxMinTmpSize(a, 2, mx, mn);
    std::printf("%d %u %u\n", ok, mx, mn);
    AscendC::tiling::RmsNormTiling t;
    ok = AscendC::GetRmsNormTilingInfo(a, ao, 3300, 4, t);
    std::printf("%d\n", ok);
    Print(t);
    optiling::RmsNormTiling o;
    const ge::Shape b(std::vector<int64_t>{2, 8, 320});
    ok = AscendC::GetRmsNormTilingInfo(b, b, 1 << 16, 2, o, true);
    std::printf("%d %u %u %u\n", ok, o.get_mainBsLength(), o.get_loopRound(), o.get_tailBsLength());
    std::printf("%d\n", AscendC::GetRmsNormMaxMinTmpSize(ge::Shape(std::vector<int64_t>{2, 8, 96}),
                                                       4, mx, mn, true));
    std::printf("%d\n", AscendC::GetRmsNormTilingInfo(a, a, 100, 4, t));
}
"""


def test_host_tiling_as_cann_computes_it(tmp_path: Path) -> None:
    """RmsNorm-Tiling.md: GetRmsNormMaxMinTmpSize (all rows in float, twice for half, and their
    reduce slots; one row and 8 slots) and GetRmsNormTilingInfo's fields
    (rmsnorm_tiling_impl.cpp); a shape or buffer it cannot plan for returns false, reported."""
    out = run_host_program(tmp_path, HOST_CPP)
    lines = out.stdout.splitlines()
    assert lines[0] == f"1 {(15 * 200 + 16) * 4} {min_tmp(200, 4)}"
    assert lines[1] == f"1 {(2 * 15 * 200 + 16) * 4} {min_tmp(200, 2)}"
    assert lines[2] == "1"
    tl = host_tiling(3, 5, 200, 190, 4, 3300)
    assert lines[3].split() == [f"{tl[f]:.9g}" if f == "reciprocalOfHLength" else str(tl[f])
                                for f in FIELDS]
    assert lines[3].split()[5:] == ["800", "4", "8", "3", "2400", "600", "3"]
    basic = host_tiling(2, 8, 320, 320, 2, 1 << 16, basic=True)
    assert lines[4] == f"1 {basic['mainBsLength']} {basic['loopRound']} {basic['tailBsLength']}"
    assert lines[5] == "0"
    assert lines[6] == "0"
    assert "[ERROR][opgen][tiling] GetRmsNormMaxMinTmpSize: isBasicBlock needs H" in out.stderr
    assert "GetRmsNormTilingInfo: stackBufferByteSize 100 is below the minimum 832" in out.stderr


# ---- LayerNorm, LayerNormGrad, LayerNormGradBeta ----------------------------------------------
LN_KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct LnTest {
    int32_t mode;
    uint32_t rows;
    uint32_t h;
    uint32_t tmpBytes;
    float eps;
    uint32_t pad;
    LayerNormTiling ln;
    LayerNormGradTiling lg;
    LayerNormGradBetaTiling lb;
};
REGISTER_TILING_DEFAULT(LnTest);

template <typename T>
__aicore__ inline void Body(GM_ADDR x, GM_ADDR g, GM_ADDR be, GM_ADDR dy, GM_ADDR y, GM_ADDR mv,
                            GM_ADDR pd, GM_ADDR gb, LnTest& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bg, bb, bdy, by, bm, bv, bpd, bres, bpg, bpb, btmp;
    const uint32_t n = t.rows * t.h, r = (t.rows + 15) / 16 * 16;
    pipe.InitBuffer(bx, n * sizeof(T));
    pipe.InitBuffer(bg, t.h * sizeof(T));
    pipe.InitBuffer(bb, t.h * sizeof(T));
    pipe.InitBuffer(bdy, n * sizeof(T));
    pipe.InitBuffer(by, n * sizeof(T));
    pipe.InitBuffer(bm, r * sizeof(T));
    pipe.InitBuffer(bv, r * sizeof(T));
    pipe.InitBuffer(bpd, n * sizeof(T));
    pipe.InitBuffer(bres, n * sizeof(T));
    pipe.InitBuffer(bpg, t.h * sizeof(T));
    pipe.InitBuffer(bpb, t.h * sizeof(T));
    pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, gGm, bGm, dyGm, yGm, mvGm, pdGm, gbGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    gGm.SetGlobalBuffer((__gm__ T*)g, t.h);
    bGm.SetGlobalBuffer((__gm__ T*)be, t.h);
    dyGm.SetGlobalBuffer((__gm__ T*)dy, n);
    yGm.SetGlobalBuffer((__gm__ T*)y, n);
    mvGm.SetGlobalBuffer((__gm__ T*)mv, 2 * r);
    pdGm.SetGlobalBuffer((__gm__ T*)pd, 2 * n);
    gbGm.SetGlobalBuffer((__gm__ T*)gb, 2 * t.h);
    LocalTensor<T> src = bx.Get<T>(), gamma = bg.Get<T>(), beta = bb.Get<T>(), dyL = bdy.Get<T>();
    LocalTensor<T> yL = by.Get<T>(), mean = bm.Get<T>(), var = bv.Get<T>(), pdx = bpd.Get<T>();
    LocalTensor<T> res = bres.Get<T>(), pg = bpg.Get<T>(), pb = bpb.Get<T>();
    LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
    DataCopy(src, xGm, n);
    DataCopy(gamma, gGm, t.h);
    DataCopy(beta, bGm, t.h);
    DataCopy(dyL, dyGm, n);
    const T eps = (T)t.eps;
    LayerNorm<T, false>(yL, mean, var, src, gamma, beta, tmp, eps, t.ln);
    if (t.mode == 0) {
        LayerNormGrad<T, false>(pdx, res, dyL, src, var, mean, gamma, tmp, eps, t.lg);
        LayerNormGradBeta<T, false>(pg, pb, res, dyL, tmp, t.lb);
    }
    DataCopy(yGm, yL, n);
    DataCopy(mvGm, mean, r);
    DataCopy(mvGm[r], var, r);
    DataCopy(pdGm, pdx, n);
    DataCopy(pdGm[n], res, n);
    DataCopy(gbGm, pg, t.h);
    DataCopy(gbGm[t.h], pb, t.h);
}

extern "C" __global__ __aicore__ void ln_f(GM_ADDR x, GM_ADDR g, GM_ADDR b, GM_ADDR dy, GM_ADDR y,
                                           GM_ADDR mv, GM_ADDR pd, GM_ADDR gb, GM_ADDR ws,
                                           GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    Body<float>(x, g, b, dy, y, mv, pd, gb, t);
}

extern "C" __global__ __aicore__ void ln_h(GM_ADDR x, GM_ADDR g, GM_ADDR b, GM_ADDR dy, GM_ADDR y,
                                           GM_ADDR mv, GM_ADDR pd, GM_ADDR gb, GM_ADDR ws,
                                           GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    Body<half>(x, g, b, dy, y, mv, pd, gb, t);
}
"""

LN_ENTRIES = {"float32": "ln_f", "float16": "ln_h"}


@pytest.fixture(scope="module")
def ln_lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("layernorm")) / "layernorm.cpp"
    src.write_text(LN_KERNEL_CPP)
    return rt.build_kernel(src, entry=tuple(LN_ENTRIES.values()))


def f32_bits(v: float) -> int:
    return int(np.array([v], F32).view(np.uint32)[0])


def ln_tiling(b: int, s: int, h: int, ori_h: int, ts: int, ws: int) -> list[int | float]:
    """GetLayerNormNDTilingInfo (layernorm_tiling_impl.cpp): three temporaries of the most whole
    rows the buffer holds (after, for half, the mean and variance in float)."""
    total, mv = b * s * h, b * s
    mv_size = round_up(mv, 8)
    mv_total = 0 if ts == 4 else 2 * mv_size
    one = min((ws // 4 - mv_total) // 3 // h * h, total)
    tail = total % one
    return [b, s, h, ori_h, total, mv, 3, 0, mv_size, mv_size, mv_size, ws // 4, one, mv_total,
            mv_total + one, mv_total + 2 * one, total // one, one, tail, total - tail, one // h,
            tail // h, mv - tail // h, one, one // h, float(F32(1) / F32(ori_h))]


def lg_tiling(b: int, s: int, h: int, ori_h: int, ts: int, ws: int) -> list[int]:
    """GetLayerNormGradNDTilingInfo (layernorm_grad_tiling_impl.cpp): 6 temporaries (9 for half)
    of the whole rows the buffer holds, the rows then rounded up to a 32-byte block."""
    total, bufs = b * s * h, 9 if ts == 2 else 6
    noh = round_up(ws // 4 // bufs // h, 8 if ts == 4 else 16)
    one = noh * h
    tmp = [5 * one + one * k for k in range(1, 4)] if ts == 2 else [0, 0, 0]
    pos = [0, one, 2 * one, 3 * one, 4 * one, 5 * one, *tmp]
    fields = [ws, b, s, h, ori_h, one, noh, total // one, total % one, total % one // h]
    for p in pos:
        fields += [p, one]
    return [*fields, f32_bits(float(F32(1) / F32(ori_h))), f32_bits(float(F32(2) / F32(ori_h)))]


def lb_tiling(b: int, s: int, h: int, ori_h: int, ts: int, ws: int) -> list[int]:
    """GetLayerNormGradBetaNDTilingInfo (layernorm_grad_beta_tiling_impl.cpp): a pass of the whole
    rows the buffer holds (for half, two casts of them after gamma's and beta's H sums)."""
    floats, bsh = ws // 4, b * s * h
    one = (floats - 2 * h) // 2 if ts == 2 else floats
    one = min(one // h * h, bsh)
    tail = bsh % one
    pos = [0, h, 2 * h, 2 * h + one] if ts == 2 else [0, 0, 0, 0]
    return [floats, b, s, h, ori_h, bsh, b * s, one, 2 if ts == 2 else 1, bsh // one, tail,
            bsh - tail, tail // h, one, one // h, *pos, 0]


def ln_blob(mode: int, rows: int, h: int, tmp_bytes: int, eps: float, ln: list[int | float],
            lg: list[int], lb: list[int]) -> bytes:
    head = np.array([mode, rows, h, tmp_bytes], np.uint32).tobytes()
    head += np.array([eps], F32).tobytes() + np.zeros(1, np.uint32).tobytes()
    body = np.array(ln[:-1], np.uint32).tobytes() + np.array([ln[-1]], F32).tobytes()
    return head + body + np.array(lg, np.uint32).tobytes() + np.array(lb, np.uint32).tobytes()


def ln_row_sum(v: np.ndarray) -> F32:
    """LayerNorm's reduce: 64-column blocks added into the first (the partial last one into its
    first lanes), then the 64 lanes' tree."""
    if len(v) <= 64:
        return tree_sum(v)
    acc = v[:64].copy()
    for k in range(64, len(v), 64):
        part = v[k:k + 64]
        acc[:len(part)] = (part + acc[:len(part)]).astype(F32)
    return tree_sum(acc)


def ln_model(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, dy: np.ndarray, eps: float,
             ori_h: int) -> tuple[np.ndarray, ...]:
    """CANN's float steps (layernorm_common_impl.h, layernormgrad_common_impl.h,
    layernormgradbeta_common_impl.h), a row at a time; half in exactly, out to nearest even."""
    dt = x.dtype
    xf, df = x.astype(F32), dy.astype(F32)
    g, bt = gamma.astype(F32), beta.astype(F32)
    e = F32(np.array(eps, dt))
    inv, inv2 = F32(1) / F32(ori_h), F32(2) / F32(ori_h)
    rows = x.shape[0]
    y, pdx, res = np.empty_like(xf), np.empty_like(xf), np.empty_like(xf)
    mean, var = np.empty(rows, F32), np.empty(rows, F32)
    for r in range(rows):
        mean[r] = ln_row_sum((xf[r] * inv).astype(F32))
        d = (xf[r] - mean[r]).astype(F32)
        var[r] = ln_row_sum(((d * d).astype(F32) * inv).astype(F32))
        rstd = F32(F32(1) / np.sqrt(F32(var[r] + e)))
        y[r] = (((rstd * d).astype(F32) * g).astype(F32) + bt).astype(F32)
    # the grad reads the mean and variance LayerNorm wrote (half: rounded)
    m_in, v_in = mean.astype(dt).astype(F32), var.astype(dt).astype(F32)
    for r in range(rows):
        x1 = (df[r] * g).astype(F32)
        x2 = (xf[r] - m_in[r]).astype(F32)
        ve = F32(v_in[r] + e)
        p15 = F32(F32(1) / np.sqrt(F32(F32(ve * ve) * ve)))
        pd_var = repeat_sum(((x1 * (x2 * p15).astype(F32)).astype(F32) * F32(-0.5)).astype(F32))
        rstd = F32(F32(1) / np.sqrt(ve))
        res[r] = (x2 * rstd).astype(F32)
        x3 = (x1 * rstd).astype(F32)
        pd_mean = repeat_sum((x3 * F32(-1)).astype(F32))
        s2 = F32(repeat_sum((x2 * F32(-2)).astype(F32)) * inv)
        pd_mean = F32(pd_mean + F32(pd_var * s2))
        a = (F32(pd_var * inv2) * x2).astype(F32)
        pdx[r] = ((a + F32(pd_mean * inv)).astype(F32) + x3).astype(F32)
    res_in = res.astype(dt).astype(F32)
    sg, sb = np.zeros(ori_h, F32), np.zeros(ori_h, F32)
    for r in range(rows):
        sg = ((df[r, :ori_h] * res_in[r, :ori_h]).astype(F32) + sg).astype(F32)
        sb = (df[r, :ori_h] + sb).astype(F32)
    return tuple(a.astype(dt) for a in (y, mean, var, pdx, res, sg, sb))


def ln_run(lib: rt.KernelLibrary, dtype: str, mode: int, arrays: tuple[np.ndarray, ...],
           eps: float, tilings: tuple[list, list, list], tmp_bytes: int) -> tuple[np.ndarray, ...]:
    x = arrays[0]
    rows, h = x.shape
    r = round_up(rows, 16)
    gms = [rt.gm_empty(n, dtype) for n in (rows * h, h, h, rows * h, rows * h, 2 * r, 2 * rows * h,
                                           2 * h)]
    for gm, a in zip(gms, arrays, strict=False):
        gm[:] = a.ravel()
    for gm in gms[4:]:
        gm[:] = 0
    rt.launch(lib, LN_ENTRIES[dtype], gms, block_dim=1,
              tiling=ln_blob(mode, rows, h, tmp_bytes, eps, *tilings))
    y, mv, pd, gb = (np.asarray(gm).copy() for gm in gms[4:])
    n = rows * h
    return (y.reshape(rows, h), mv[:rows], mv[r:r + rows], pd[:n].reshape(rows, h),
            pd[n:].reshape(rows, h), gb[:h], gb[h:])


# b, s, h, original h, stack bytes for LayerNorm / LayerNormGrad / LayerNormGradBeta's plans:
# the sample's shape; several passes and tails with H over 64 (a partial block); padding columns
LN_SHAPES = [(2, 32, 16, 16, 6144, 6144, 6144), (3, 5, 200, 200, 9600, 14400, 3200),
             (2, 3, 144, 130, 6912, 6912, 4608)]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_layernorm_forward_and_grads_follow_canns_float_steps(ln_lib: rt.KernelLibrary,
                                                             dtype: str) -> None:
    """LayerNorm.md (with LayerNormGrad.md and LayerNormGradBeta.md): mean and variance over H
    (x * 1/H summed as blocks then a tree), y = (x - mean) * (1 / sqrt(var + eps)) * gamma + beta,
    then pd_x, resForGamma and the column sums of dy * resForGamma and dy, each bit for bit in
    CANN's order of float operations, in the passes the tilings plan."""
    ts = 2 if dtype == "float16" else 4
    for i, (b, s, h, ori_h, ws_ln, ws_lg, ws_lb) in enumerate(LN_SHAPES):
        if ts == 2:  # H 32-byte aligned; half's GradBeta keeps two casts of a pass
            h, ws_lb = round_up(h, 16), 3 * ws_lb
        rng = np.random.default_rng(10 + i)
        rows = b * s
        arrays = (rng.uniform(-4, 4, (rows, h)).astype(dtype), rng.uniform(-2, 2, h).astype(dtype),
                  rng.uniform(-2, 2, h).astype(dtype), rng.uniform(-4, 4, (rows, h)).astype(dtype))
        tl = (ln_tiling(b, s, h, ori_h, ts, ws_ln), lg_tiling(b, s, h, ori_h, ts, ws_lg),
              lb_tiling(b, s, h, ori_h, ts, ws_lb))
        tmp = max(ws_ln, 4 * (9 if ts == 2 else 6) * tl[1][5], ws_lb)
        got = ln_run(ln_lib, dtype, 0, arrays, 1e-4, tl, round_up(tmp, 32))
        want = ln_model(*arrays, 1e-4, ori_h)
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            if k >= 5:
                g = g[:ori_h]
            assert_bits(g, w)


def test_layernorm_buffer_below_the_plan_is_an_error(ln_lib: rt.KernelLibrary) -> None:
    """LayerNorm.md, 约束说明 and LayerNorm-Tiling.md: sharedTmpBuffer must hold the temporaries
    the tiling planned (CANN's kernel writes them unchecked)."""
    rng = np.random.default_rng(5)
    arrays = (rng.standard_normal((8, 32)).astype("float32"), np.ones(32, "float32"),
              np.zeros(32, "float32"), rng.standard_normal((8, 32)).astype("float32"))
    tl = (ln_tiling(1, 8, 32, 32, 4, 3072), lg_tiling(1, 8, 32, 32, 4, 6144),
          lb_tiling(1, 8, 32, 32, 4, 1024))
    text = ("LayerNorm: sharedTmpBuffer holds 1024 bytes; the tiling's temporaries of 256 floats "
            "need 3072")
    with pytest.raises(rt.LocalMemoryOutOfBounds, match="block 0: " + re.escape(text)):
        ln_run(ln_lib, "float32", 1, arrays, 1e-5, tl, 1024)


LN_HOST_CPP = r"""
#include <cstdio>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

int main() {
    const ge::Shape a(std::vector<int64_t>{3, 5, 200, 190});
    for (uint32_t ts : {4u, 2u}) {
        uint32_t mx = 0, mn = 0;
        AscendC::GetLayerNormMaxMinTmpSize(a, ts, false, mx, mn);
        std::printf("%u %u ", mx, mn);
        AscendC::GetLayerNormGradMaxMinTmpSize(a, ts, false, mx, mn);
        std::printf("%u %u ", mx, mn);
        AscendC::GetLayerNormGradBetaMaxMinTmpSize(a, ts, false, mx, mn);
        std::printf("%u %u\n", mx, mn);
        AscendC::tiling::LayerNormTiling ln;
        AscendC::GetLayerNormNDTilingInfo(a, 9600, ts, false, ln);
        const uint32_t* p = reinterpret_cast<const uint32_t*>(&ln);
        for (int i = 0; i < 25; ++i) std::printf("%u ", p[i]);
        std::printf("%.9g\n", ln.lastDimValueBack);
        AscendC::tiling::LayerNormGradTiling lg;
        AscendC::GetLayerNormGradNDTilingInfo(a, 14400, ts, false, lg);
        p = reinterpret_cast<const uint32_t*>(&lg);
        for (int i = 0; i < 30; ++i) std::printf("%u ", p[i]);
        std::printf("\n");
        optiling::LayerNormGradBetaTiling lb;
        AscendC::GetLayerNormGradBetaNDTilingInfo(a, 4000, ts, false, lb);
        std::printf("%u %u %u %u\n", lb.get_oneCalSize(), lb.get_loopRound(), lb.get_bsTailSize(),
                    lb.get_resForGammaTmpTensorPos());
    }
    uint32_t mx = 7, mn = 7;
    AscendC::GetLayerNormMaxMinTmpSize(ge::Shape(std::vector<int64_t>{2, 8, 16}), 4, false, mx, mn);
    std::printf("%u %u\n", mx, mn);
}
"""


def test_layernorm_host_tiling_as_cann_computes_it(tmp_path: Path) -> None:
    """LayerNorm-Tiling.md, LayerNormGrad-Tiling.md, LayerNormGradBeta-Tiling.md: the buffer
    sizes and tiling fields of asc-devkit's host implementation; a shape that is not
    [B, S, H, originalH] is reported and leaves the outputs alone."""
    lines = run_host_program(tmp_path, LN_HOST_CPP).stdout.splitlines()
    for k, ts in enumerate((4, 2)):
        ln_bufs, lg_bufs, lb_bufs = 3, 9 if ts == 2 else 6, 4 if ts == 2 else 2
        mv = round_up(15 * 4, 32)
        sizes = [ln_bufs * 3000 * 4 + 2 * mv, ln_bufs * 800 + 2 * mv,
                 lg_bufs * 40000 * ts, lg_bufs * 3000 * ts, lb_bufs * 3000 * 4, lb_bufs * 800]
        assert lines[4 * k].split() == [str(v) for v in sizes]
        ln = ln_tiling(3, 5, 200, 190, ts, 9600)
        assert lines[4 * k + 1].split() == [str(v) for v in ln[:-1]] + [f"{ln[-1]:.9g}"]
        assert lines[4 * k + 2].split() == [str(v) for v in lg_tiling(3, 5, 200, 190, ts, 14400)]
        lb = lb_tiling(3, 5, 200, 190, ts, 4000)
        assert lines[4 * k + 3].split() == [str(lb[7]), str(lb[9]), str(lb[12]), str(lb[18])]
    assert lines[8] == "7 7"
