"""The normalization advanced APIs (opgen_sim/norm.h): RmsNorm with and without sharedTmpBuffer
(PopStackBuffer), against a numpy model of the float steps of CANN's A2/A3 implementation
(asc-devkit impl/adv_api/detail/normalization/rmsnorm/rmsnorm_common_impl.h): x^2, a tree sum a
256-byte repeat (or the basic block's block adds), Muls by 1/H, Adds eps, Ln, Muls -0.5, Exp, then
x * rstd * gamma, half cast in exactly and back to nearest even; and the host side
(tiling/norm_tiling.h) as rmsnorm_tiling_impl.cpp computes it."""

from __future__ import annotations

import ctypes
import ctypes.util
import re
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program

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
for _name in ("expf", "logf"):
    getattr(_LIBM, _name).restype = ctypes.c_float
    getattr(_LIBM, _name).argtypes = [ctypes.c_float]

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
        v = F32(_LIBM.expf(float(F32(v * F32(-0.5)))))
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
