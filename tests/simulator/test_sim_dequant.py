"""AscendDequant (opgen_sim/quant.h) against a numpy model of CANN's A2 steps
(asc-devkit impl/adv_api/detail/quantization/dequant/ascend_dequant_common_impl.h), bit for bit,
for every (dstT, scaleT) pair the A2/A3 products take, every overload, and the host's
GetAscendDequantMaxMinTmpSize / GetAscendDequantTmpBufferFactorSize against CANN's
ascend_dequant_tiling_impl.cpp. Each test names the reference page it checks (AscendDequant.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program

SRC_N = 512  # int32_t elements of the source buffer
SCALE_N = 64
DST_N = 1024  # dstT elements of the destination buffer (rows padded to 32 bytes fit)
SENTINEL = 0x5555

KERNEL = r"""
#include <cstring>
#include <type_traits>
#include "kernel_operator.h"
using namespace AscendC;

// the scalar forms exist for a float or bfloat16_t scale only
template <typename D, typename S>
inline void Scalar(uint32_t mode, const LocalTensor<D>& dst, const LocalTensor<int32_t>& src,
                   float scalar, const LocalTensor<uint8_t>& tmp, uint32_t m, uint32_t n,
                   uint32_t cal) {
    if constexpr (!std::is_same_v<S, uint64_t>) {
        if (mode == 7) AscendDequant(dst, src, static_cast<S>(scalar), tmp, {m, n, cal});
        if (mode == 8) AscendDequant(dst, src, static_cast<S>(scalar), {m, n, cal});
    }
}

extern "C" __global__ __aicore__ void dequant_kernel(GM_ADDR x, GM_ADDR s, GM_ADDR z,
                                                     GM_ADDR workspace, GM_ADDR tiling)
{
    using D = DST_T;
    using S = SCALE_T;
    const uint32_t* t = reinterpret_cast<const uint32_t*>(tiling);
    const uint32_t mode = t[0], m = t[1], n = t[2], cal = t[3], tmpBytes = t[4];
    float scalar;
    std::memcpy(&scalar, t + 5, sizeof(scalar));
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bs, bz, bt;
    pipe.InitBuffer(bx, 512 * sizeof(int32_t));
    pipe.InitBuffer(bs, 64 * sizeof(S));
    pipe.InitBuffer(bz, 1024 * sizeof(D));
    pipe.InitBuffer(bt, 4096);
    GlobalTensor<int32_t> xGm;
    GlobalTensor<S> sGm;
    GlobalTensor<D> zGm;
    xGm.SetGlobalBuffer((__gm__ int32_t*)x, 512);
    sGm.SetGlobalBuffer((__gm__ S*)s, 64);
    zGm.SetGlobalBuffer((__gm__ D*)z, 1024);
    LocalTensor<int32_t> src = bx.Get<int32_t>();
    LocalTensor<S> scale = bs.Get<S>();
    LocalTensor<D> dst = bz.Get<D>();
    DataCopy(src, xGm, 512);
    DataCopy(scale, sGm, 64);
    Duplicate(dst.ReinterpretCast<int16_t>(), (int16_t)0x5555, 1024 * sizeof(D) / 2);
    LocalTensor<uint8_t> tmp = tmpBytes != 0 ? bt.Get<uint8_t>(tmpBytes) : bt.Get<uint8_t>();
    LocalTensor<int32_t> rows = bx.Get<int32_t>(m * n);  // the older forms: src of m rows of n
    LocalTensor<S> row = bs.Get<S>(n);                     // ... and a deqScale of n
    if (mode == 0) AscendDequant(dst, src, scale, tmp, {m, n, cal});
    if (mode == 1) AscendDequant(dst, src, scale, {m, n, cal});
    if (mode == 2) AscendDequant(dst, rows, row, tmp, cal);
    if (mode == 3) AscendDequant(dst, rows, row, cal);
    if (mode == 4) AscendDequant(dst, rows, row, tmp);
    if (mode == 5) AscendDequant(dst, rows, row);
    constexpr DeQuantMode multi = DeQuantMode::DEQUANT_WITH_MULTI_ROW;
    if (mode == 6) AscendDequant<D, S, multi>(dst, src, scale, tmp, {m, n, cal});
    Scalar<D, S>(mode, dst, src, scalar, tmp, m, n, cal);
    DataCopy(zGm, dst, 1024);
}
"""

# (dstT, scaleT): AscendDequant.md 表5 (a deqScale tensor) for the A2/A3 products
PAIRS = [
    ("half", "uint64_t"),
    ("float", "float"),
    ("float", "bfloat16_t"),
    ("bfloat16_t", "bfloat16_t"),
    ("bfloat16_t", "float"),
]
SCALAR_PAIRS = {
    ("float", "float"),
    ("float", "bfloat16_t"),
    ("bfloat16_t", "bfloat16_t"),
    ("bfloat16_t", "float"),
}
BYTES = {"half": 2, "float": 4, "bfloat16_t": 2}


def _bf16_bits(v: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits, to nearest even; an inf result (or source) saturates to +-max
    and NaN gives 0, as the simulator's Cast."""
    b = v.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    inf = (r & 0x7FFF) == 0x7F80
    r[inf] = (r[inf] & 0x8000) | 0x7F7F
    r[np.isnan(v)] = 0
    return r


def _half_bits(v: np.ndarray) -> np.ndarray:
    """float32 -> half bits, to nearest even, saturating to +-65504 (NaN 0)."""
    with np.errstate(over="ignore", invalid="ignore"):
        h = v.astype(np.float16)
    h[np.isinf(h)] = np.copysign(np.float16(65504), h[np.isinf(h)])
    h[np.isnan(v)] = 0
    return h.view(np.uint16)


def _scale_f32(raw: np.ndarray, scale_t: str) -> np.ndarray:
    """deqScale widened as CANN's CastDeqscale: float + 0 (-0 -> +0), uint64_t's low word,
    bfloat16 exactly."""
    if scale_t == "float":
        return raw.view(np.float32) + np.float32(0)
    if scale_t == "uint64_t":
        return (raw & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
    return (raw.astype(np.uint32) << 16).view(np.float32)


def _model(
    src: np.ndarray, scale: np.ndarray, dst_t: str, m: int, n: int, cal: int, count: int
) -> np.ndarray:
    """The destination's bits: `count` source elements in rows of n, the first `cal` columns
    scaled by their column's float scale, then cast to dstT; rows land n rounded up to 32 bytes
    apart, the rest keeps the sentinel."""
    per_block = 32 // BYTES[dst_t]
    inner = (n + per_block - 1) // per_block * per_block
    v = src[:count].astype(np.float32)
    col = np.arange(count) % n
    scaled = col < cal
    with np.errstate(over="ignore"):
        v[scaled] = v[scaled] * scale[col[scaled]]
    if dst_t == "float":
        bits = (v + np.float32(0)).view(np.uint32)
        out = np.full(DST_N, SENTINEL * 0x10001, np.uint32)
    else:
        bits = _half_bits(v) if dst_t == "half" else _bf16_bits(v)
        out = np.full(DST_N, SENTINEL, np.uint16)
    out[np.arange(count) // n * inner + col] = bits
    return out


def _inputs(scale_t: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    src = rng.integers(-(1 << 20), 1 << 20, SRC_N).astype(np.int32)
    # 0 against a negative scale (CANN's Adds 0 makes +0), int32 values float cannot hold (rounded
    # to nearest even), the extremes
    src[:6] = [0, 16777217, -16777219, 2**31 - 1, -(2**31), 3]
    f = (rng.standard_normal(SCALE_N) * 3).astype(np.float32)
    f[:4] = [-2.5, -0.0, 1e-3, 0.1]
    f[5] = 1e33  # column 5 overflows float (inf), which bfloat16_t saturates to its max
    scale: np.ndarray
    if scale_t == "float":
        scale = f
    elif scale_t == "bfloat16_t":
        scale = _bf16_bits(f)
    else:  # the low word the float, the high word control bits the API ignores
        f[5] = 1e3  # half: 2^20 * 1e3 saturates to 65504
        hi = rng.integers(0, 1 << 32, SCALE_N, dtype=np.uint64)
        scale = (hi << np.uint64(32)) | f.view(np.uint32).astype(np.uint64)
    return src, scale


def _np_type(name: str) -> type:
    return {"half": np.uint16, "bfloat16_t": np.uint16, "float": np.uint32, "uint64_t": np.uint64}[
        name
    ]


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = Path(tmp_path_factory.mktemp("dequant")) / "dequant.cpp"
    src.write_text(KERNEL)
    return src


def _run(
    lib: rt.KernelLibrary,
    dst_t: str,
    scale_t: str,
    src: np.ndarray,
    scale: np.ndarray,
    mode: int,
    m: int,
    n: int,
    cal: int,
    tmp_bytes: int,
    scalar: float = 0.0,
) -> np.ndarray:
    x = rt.gm_empty(SRC_N, np.int32)
    x[:] = src
    s = rt.gm_empty(SCALE_N, _np_type(scale_t))
    s[:] = scale.view(np.uint32) if scale.dtype == np.float32 else scale.astype(s.dtype)
    z = rt.gm_empty(DST_N, _np_type(dst_t))
    tiling = (
        np.array([mode, m, n, cal, tmp_bytes], np.uint32).tobytes() + np.float32(scalar).tobytes()
    )
    rt.launch(lib, "dequant_kernel", [x, s, z], block_dim=1, tiling=tiling)
    return np.asarray(z).copy()


def _lib(source: Path, dst_t: str, scale_t: str) -> rt.KernelLibrary:
    return rt.build_kernel(
        source, entry="dequant_kernel", defines={"DST_T": dst_t, "SCALE_T": scale_t}
    )


# (mode, m, n, calCount, tmp bytes): DequantParams with and without sharedTmpBuffer (a 512-byte
# buffer runs one row a pass), rows padded for 16-bit dst (n 40, n 8), the older forms (calCount
# elements in rows of deqScale.GetSize(), or all of src), {1, n, calCount} in both DeQuantModes
CASES = [
    (0, 4, 40, 30, 4096),
    (0, 8, 64, 64, 512),
    (1, 8, 16, 5, 0),
    (0, 5, 8, 8, 4096),
    (2, 6, 24, 100, 4096),
    (3, 6, 24, 144, 0),
    (4, 4, 16, 0, 4096),
    (5, 4, 16, 0, 0),
    (0, 1, 32, 16, 4096),
    (6, 1, 32, 16, 4096),
]


@pytest.mark.parametrize(("dst_t", "scale_t"), PAIRS)
def test_dequant_runs_canns_float_steps(source: Path, dst_t: str, scale_t: str) -> None:
    """AscendDequant.md: int32 to float, times deqScale (only the first calCount columns of each
    row), to dstT; rows of n_dst = n rounded up to 32 bytes of dstT, the padding unwritten.
    Bit for bit CANN's steps: a float scale and a float result pass through Adds 0 (-0 becomes
    +0), a uint64_t scale is its low 32 bits, half/bfloat16 results round to nearest even and
    saturate."""
    lib = _lib(source, dst_t, scale_t)
    src, scale = _inputs(scale_t, 7)
    f32 = _scale_f32(scale, scale_t)
    for mode, m, n, cal, tmp in CASES:
        got = _run(lib, dst_t, scale_t, src, scale, mode, m, n, cal, tmp)
        if mode in (2, 3):  # calCount elements, every column of a row scaled
            want = _model(src, f32, dst_t, m, n, n, cal)
        elif mode in (4, 5):
            want = _model(src, f32, dst_t, m, n, n, m * n)
        elif mode == 0 and m == 1:  # DEQUANT_WITH_SINGLE_ROW: {1, 32, 16} runs as {2, 16, 16}
            want = _model(src, f32, dst_t, 2, 16, 16, 32)
        else:
            want = _model(src, f32, dst_t, m, n, cal, m * n)
        np.testing.assert_array_equal(
            got, want, err_msg=f"{dst_t}/{scale_t} case {(mode, m, n, cal, tmp)}"
        )
    # the two modes differ on {1, 32, 16}: MULTI_ROW leaves columns 16..31 unscaled
    single = _run(lib, dst_t, scale_t, src, scale, 0, 1, 32, 16, 4096)
    multi = _run(lib, dst_t, scale_t, src, scale, 6, 1, 32, 16, 4096)
    assert (single[16:32] != multi[16:32]).any()


@pytest.mark.parametrize(("dst_t", "scale_t"), sorted(SCALAR_PAIRS))
def test_dequant_scalar_scale(source: Path, dst_t: str, scale_t: str) -> None:
    """AscendDequant.md, deqScale a scalar (表6): the scalar as float (CANN duplicates it, then
    Adds 0) times the first calCount columns of each row."""
    lib = _lib(source, dst_t, scale_t)
    src, _ = _inputs(scale_t, 11)
    for mode, m, n, cal, tmp, scalar in [
        (7, 3, 48, 20, 4096, -1.75),
        (8, 2, 8, 8, 0, 0.3),
        (7, 4, 16, 16, 4096, -0.0),
    ]:
        raw = np.array([scalar], np.float32)
        value = _scale_f32(_bf16_bits(raw), "bfloat16_t") if scale_t == "bfloat16_t" else raw
        f32 = np.full(SCALE_N, value[0] + np.float32(0), np.float32)
        got = _run(lib, dst_t, scale_t, src, np.zeros(SCALE_N), mode, m, n, cal, tmp, scalar)
        np.testing.assert_array_equal(got, _model(src, f32, dst_t, m, n, cal, m * n))


def test_dequant_sample_shape_matches_the_golden_to_the_sign_of_zero(source: Path) -> None:
    """The dequant sample's case (float/float, {128, 32, 32} in rows of 4 here): numpy's golden
    x * scale differs from CANN's result only where it is -0.0, which CANN's Adds 0 makes +0.0."""
    lib = _lib(source, "float", "float")
    rng = np.random.default_rng(3)
    src = rng.integers(-10, 10, SRC_N).astype(np.int32)
    scale = rng.uniform(-100, 100, SCALE_N).astype(np.float32)
    got = _run(lib, "float", "float", src, scale.view(np.uint32), 1, 16, 32, 32, 0)[:512].view(
        np.float32
    )
    golden = (src.reshape(16, 32) * scale[:32]).astype(np.float32).ravel()
    np.testing.assert_array_equal(got, golden)
    differ = got.view(np.uint32) != golden.view(np.uint32)
    assert differ.any() and (golden[differ] == 0).all() and not np.signbit(got[differ]).any()


def test_too_small_a_buffer_is_an_error(source: Path) -> None:
    """AscendDequant.md, sharedTmpBuffer (GetAscendDequantMaxMinTmpSize): CANN's kernel needs the
    float deqScale (calCount rounded up to 8) and one row of n floats."""
    lib = _lib(source, "float", "float")
    src, scale = _inputs("float", 1)
    with pytest.raises(
        rt.LocalMemoryOutOfBounds,
        match="sharedTmpBuffer holds 256 bytes; the kernel needs at least 512",
    ):
        _run(lib, "float", "float", src, scale, 0, 8, 64, 64, 256)


def test_calcount_past_the_row_is_an_error(source: Path) -> None:
    """AscendDequant.md, params: 1 <= calCount <= n."""
    lib = _lib(source, "float", "float")
    src, scale = _inputs("float", 1)
    with pytest.raises(
        rt.SimulatorError, match=r"params.calCount 20 must be in \[1, params.n 16\]"
    ):
        _run(lib, "float", "float", src, scale, 0, 2, 16, 20, 4096)


def test_an_unsupported_pair_stops_the_build(tmp_path: Path) -> None:
    """AscendDequant.md 表5: half output takes a uint64_t deqScale only."""
    src = tmp_path / "dequant_bad.cpp"
    src.write_text(KERNEL)
    with pytest.raises(rt.BuildError, match="AscendDequant with a deqScale tensor takes"):
        rt.build_kernel(src, entry="dequant_kernel", defines={"DST_T": "half", "SCALE_T": "float"})


HOST_CPP = r"""
#include <cstdio>
#include <vector>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

static void Sizes(std::vector<int64_t> dims, uint32_t typeSize) {
    uint32_t maxValue = 7, minValue = 7;
    AscendC::GetAscendDequantMaxMinTmpSize(ge::Shape(dims), typeSize, maxValue, minValue);
    std::printf("%u %u\n", maxValue, minValue);
}
static void Factor(std::vector<int64_t> dims) {
    uint32_t live = 7, extra = 7;
    AscendC::GetAscendDequantTmpBufferFactorSize(ge::Shape(dims), live, extra);
    std::printf("%u %u\n", live, extra);
}

int main() {
    Sizes({128, 32}, 4);
    Sizes({1024}, 4);
    Sizes({7, 40}, 4);
    Sizes({16, 64}, 2);
    Sizes({2, 4, 8}, 4);
    Factor({128, 32});
    Factor({1024});
    Factor({2, 4, 8});
}
"""


def _dequant_sizes(outer: int, inner: int) -> str:
    """CANN's rule: 64 floats (a repeat), deqScale's inner + 8 floats, and the rows in float
    (all of them at most, one at least)."""
    scale = inner + 8
    return f"{(64 + outer * inner + scale) * 4} {(64 + inner + scale) * 4}"


def test_host_sizes_as_cann_computes_them(tmp_path: Path) -> None:
    """GetAscendDequantMaxMinTmpSize.md, GetAscendDequantTmpBufferFactorSize.md; a typeSize other
    than 4 is logged and computed all the same, a 3-D shape logged and left unwritten, as CANN."""
    done = run_host_program(tmp_path, HOST_CPP)
    assert done.stdout.splitlines() == [
        _dequant_sizes(128, 32),
        _dequant_sizes(1, 1024),
        _dequant_sizes(7, 40),
        _dequant_sizes(16, 64),
        "7 7",
        f"1 {8 + 64 + 32}",
        f"2 {8 + 64}",
        "0 0",
    ]
    assert "Type size 2 is unsupported" in done.stderr
    assert "SrcShape dim 3 is unsupported, must be 1 or 2!" in done.stderr
    assert "srcShape should be 1-dimensional / 2-dimensional." in done.stderr
