"""TransData (opgen_sim/transdata.h) with the Layout helpers, against numpy models of the four
moves TransData.md documents (NCDHW <-> NDC1HWC0, NCDHW <-> FRACTAL_Z_3D, C0 = N0 = 16, an NCDHW
tensor's H * W rows padded to 32 bytes), bit for bit, with what CANN's A2 steps
(asc-devkit impl/adv_api/detail/transpose/transdata/transdata_impl.h) leave where the reference
is silent: zeros in the padded channels and batches and in FRACTAL_Z_3D -> NCDHW's row padding;
NDC1HWC0 -> NCDHW's row padding from the sharedTmpBuffer's staging area (byte 512 on), which the
transposes of the channels past C partly overwrite. The host side
(tiling/transdata_tiling.h: GetTransDataMaxMinTmpSize) as asc-devkit's tiling code computes it."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import run_host_program

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct Cfg {
    int32_t n, c, d, h, w;
    int32_t o[7];  // the NDC1HWC0 (6 dims) or FRACTAL_Z_3D (7 dims) shape
    uint32_t srcLen, dstLen, tmpBytes, useTmp;
};
REGISTER_TILING_DEFAULT(Cfg);

constexpr TransDataConfig kToFz = {DataFormat::NCDHW, DataFormat::FRACTAL_Z_3D};
constexpr TransDataConfig kFromFz = {DataFormat::FRACTAL_Z_3D, DataFormat::NCDHW};
constexpr TransDataConfig kTo6hd = {DataFormat::NCDHW, DataFormat::NDC1HWC0};
constexpr TransDataConfig kFrom6hd = {DataFormat::NDC1HWC0, DataFormat::NCDHW};

template <const TransDataConfig& cfg, typename T, typename U, typename S>
__aicore__ inline void Call(LocalTensor<T>& y, LocalTensor<T>& x, LocalTensor<uint8_t>& tmp,
                            const U& a, const S& b, bool useTmp)
{
    TransDataParams<U, S> params = {a, b};
    if (useTmp) {
        TransData<cfg>(y, x, tmp, params);
    } else {
        TransData<cfg, T, U, S>(y, x, params);
    }
}

// x: the source; y: the destination's initial content, then the result; z: the temporary's
// initial content, then what it holds after the call
template <typename T, int mode>
__aicore__ inline void Body(GM_ADDR x, GM_ADDR y, GM_ADDR z, Cfg& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bz;
    pipe.InitBuffer(bx, t.srcLen * sizeof(T));
    pipe.InitBuffer(by, t.dstLen * sizeof(T));
    pipe.InitBuffer(bz, t.tmpBytes);
    GlobalTensor<T> xGm, yGm;
    GlobalTensor<uint8_t> zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, t.srcLen);
    yGm.SetGlobalBuffer((__gm__ T*)y, t.dstLen);
    zGm.SetGlobalBuffer((__gm__ uint8_t*)z, t.tmpBytes);
    LocalTensor<T> xl = bx.Get<T>(), yl = by.Get<T>();
    LocalTensor<uint8_t> zl = bz.Get<uint8_t>();
    DataCopy(xl, xGm, t.srcLen);
    DataCopy(yl, yGm, t.dstLen);
    DataCopy(zl, zGm, t.tmpBytes);
    PipeBarrier<PIPE_ALL>();
    auto nc = MakeLayout(MakeShape(t.n, t.c, t.d, t.h, t.w), MakeStride());
    const int32_t* o = t.o;
    auto hd = MakeLayout(MakeShape(o[0], o[1], o[2], o[3], o[4], o[5]), MakeStride());
    auto fz = MakeLayout(MakeShape(o[0], o[1], o[2], o[3], o[4], o[5], o[6]), MakeStride());
    const bool useTmp = t.useTmp != 0;
    if constexpr (mode == 1) Call<kToFz>(yl, xl, zl, nc, fz, useTmp);
    if constexpr (mode == 2) Call<kFromFz>(yl, xl, zl, fz, nc, useTmp);
    if constexpr (mode == 3) Call<kTo6hd>(yl, xl, zl, nc, hd, useTmp);
    if constexpr (mode == 4) Call<kFrom6hd>(yl, xl, zl, hd, nc, useTmp);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, yl, t.dstLen);
    DataCopy(zGm, zl, t.tmpBytes);
}

#define TD_ENTRY(NAME, T, MODE)                                                                   \
    extern "C" __global__ __aicore__ void NAME(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR ws,       \
                                               GM_ADDR tiling)                                    \
    {                                                                                             \
        GET_TILING_DATA(t, tiling);                                                               \
        Body<T, MODE>(x, y, z, t);                                                                \
    }
TD_ENTRY(to_fz_h, half, 1)
TD_ENTRY(from_fz_h, half, 2)
TD_ENTRY(to_6hd_h, half, 3)
TD_ENTRY(from_6hd_h, half, 4)
TD_ENTRY(to_fz_i16, int16_t, 1)
TD_ENTRY(from_fz_bf16, bfloat16_t, 2)
TD_ENTRY(to_6hd_u16, uint16_t, 3)
TD_ENTRY(from_6hd_bf16, bfloat16_t, 4)
"""

ENTRIES = (
    "to_fz_h",
    "from_fz_h",
    "to_6hd_h",
    "from_6hd_h",
    "to_fz_i16",
    "from_fz_bf16",
    "to_6hd_u16",
    "from_6hd_bf16",
)
MODE = {"to_fz": 1, "from_fz": 2, "to_6hd": 3, "from_6hd": 4}


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("transdata")) / "transdata.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry=ENTRIES)


def up(a: int, b: int) -> int:
    return (a + b - 1) // b


def dims(n: int, c: int, d: int, h: int, w: int) -> tuple[int, int, int]:
    """C1, N1 and H * W padded to 16 elements (32 bytes)."""
    return up(c, 16), up(n, 16), up(h * w, 16) * 16


def other_shape(mode: int, n: int, c: int, d: int, h: int, w: int) -> list[int]:
    c1, n1, _ = dims(n, c, d, h, w)
    if mode in (1, 2):
        return [d, c1, h, w, n1, 16, 16]
    return [n, d, c1, h, w, 16]


def tmp_bytes(mode: int, n: int, c: int, d: int, h: int, w: int) -> int:
    """GetTransDataMaxMinTmpSize (asc-devkit transdata_tiling.cpp)."""
    c1, n1, hwp = dims(n, c, d, h, w)
    if mode == 3:
        return 2 * (d * hwp + d * c1 * 16 * hwp)
    if mode == 4:
        return 2 * d * c1 * 16 * hwp + 512
    if mode == 1:
        return 2 * max(c * d * hwp, d * h * w * n1 * 16) + 2 * n1 * 16 * d * c1 * 16 * hwp
    one = 2 * n1 * 16 * c1 * 16 * d * hwp
    return one if (n == n1 * 16 and c == c1 * 16) else 2 * one


# ---- numpy models --------------------------------------------------------------------------------
def to_6hd(src: np.ndarray, n: int, c: int, d: int, h: int, w: int) -> np.ndarray:
    """src [N, C, D, HWp] -> [N, D, C1, H*W, C0], channels past C 0."""
    c1, _, hwp = dims(n, c, d, h, w)
    x = np.zeros((n, c1 * 16, d, h * w), src.dtype)
    x[:, :c] = src.reshape(n, c, d, hwp)[..., : h * w]
    return x.reshape(n, c1, 16, d, h * w).transpose(0, 3, 1, 4, 2).ravel()


def to_fz(src: np.ndarray, n: int, c: int, d: int, h: int, w: int) -> np.ndarray:
    """src [N, C, D, HWp] -> [D, C1, H*W, N1*N0, C0], channels and batches past C and N 0."""
    c1, n1, hwp = dims(n, c, d, h, w)
    x = np.zeros((n1 * 16, c1 * 16, d, h * w), src.dtype)
    x[:n, :c] = src.reshape(n, c, d, hwp)[..., : h * w]
    return x.reshape(n1 * 16, c1, 16, d, h * w).transpose(3, 1, 4, 0, 2).ravel()


def from_fz(src: np.ndarray, n: int, c: int, d: int, h: int, w: int) -> np.ndarray:
    """src [D, C1, H*W, N1*N0, C0] -> [N, C, D, HWp], the row padding 0."""
    c1, n1, hwp = dims(n, c, d, h, w)
    x = src.reshape(d, c1, h * w, n1 * 16, 16).transpose(3, 1, 4, 0, 2)
    x = x.reshape(n1 * 16, c1 * 16, d, h * w)
    out = np.zeros((n, c, d, hwp), src.dtype)
    out[..., : h * w] = x[:n, :c]
    return out.ravel()


def from_6hd(
    src: np.ndarray, tmp: np.ndarray, n: int, c: int, d: int, h: int, w: int
) -> tuple[np.ndarray, np.ndarray]:
    """src [N, D, C1, H*W, C0] -> [N, C, D, HWp], one batch at a time through the staging area
    [C1, D*HWp, C0] at byte 512 of tmp (16-bit words here): the row padding comes from there; the
    channels past C of the last C1 block are written 16 words a row to row i + r of tmp (repeat r
    of the transposes, i from C % 16 to 15). Returns the result and tmp after the call."""
    c1, _, hwp = dims(n, c, d, h, w)
    t = tmp.copy()
    rows = d * hwp
    stage = t[256 : 256 + c1 * rows * 16].reshape(c1, d, hwp, 16)  # a view on t
    x = src.reshape(n, d, c1, h * w, 16)
    out = np.empty((n, c, rows), src.dtype)
    remain = c - (c1 - 1) * 16
    for k in range(n):
        stage[:, :, : h * w, :] = x[k].transpose(1, 0, 2, 3)
        flat = stage.reshape(c1, rows, 16)
        out[k] = flat.transpose(0, 2, 1).reshape(c1 * 16, rows)[:c]
        if remain < 16:
            for r in range(rows // 16):
                for i in range(remain, 16):
                    t[(i + r) * 16 : (i + r + 1) * 16] = flat[c1 - 1, r * 16 : r * 16 + 16, i]
    return out.ravel(), t


def unpadded_6hd(src: np.ndarray, n: int, c: int, d: int, h: int, w: int) -> np.ndarray:
    """src [N, D, C1, H*W, C0] as [N, C, D, H*W]: the documented part of NDC1HWC0 -> NCDHW."""
    c1 = up(c, 16)
    x = src.reshape(n, d, c1, h * w, 16).transpose(0, 2, 4, 1, 3)
    return x.reshape(n, c1 * 16, d, h * w)[:, :c]


# ---- running -------------------------------------------------------------------------------------
def blob(n: int, c: int, d: int, h: int, w: int, o: list[int], lens: list[int]) -> bytes:
    o = o + [0] * (7 - len(o))
    return struct.pack("<12i4I", n, c, d, h, w, *o, *lens)


def run(
    lib: rt.KernelLibrary,
    entry: str,
    x: np.ndarray,
    dst_len: int,
    shape: tuple[int, int, int, int, int],
    *,
    o: list[int] | None = None,
    tmp: np.ndarray | None = None,
    tmp_len: int | None = None,
    use_tmp: bool = True,
    y0: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    n, c, d, h, w = shape
    mode = MODE[entry.rsplit("_", 1)[0]]
    o = other_shape(mode, n, c, d, h, w) if o is None else o
    tb = (tmp_bytes(mode, n, c, d, h, w) if tmp_len is None else tmp_len) if use_tmp else 32
    tb = up(tb, 32) * 32
    dst_len = up(dst_len, 16) * 16
    gx = rt.gm_empty(x.size, "uint16")
    gy = rt.gm_empty(dst_len, "uint16")
    gz = rt.gm_empty(tb, "uint8")
    gx[:] = x.view(np.uint16)
    gy[:] = np.full(dst_len, 0xABCD, np.uint16) if y0 is None else y0
    gz[:] = np.zeros(tb, np.uint8) if tmp is None else tmp.view(np.uint8)[:tb]
    tiling = blob(n, c, d, h, w, o, [x.size, dst_len, tb, int(use_tmp)])
    rt.launch(lib, entry, [gx, gy, gz], block_dim=1, tiling=tiling)
    return np.asarray(gy).copy(), np.asarray(gz).copy().view(np.uint16)


def ncdhw_src(rng: np.random.Generator, n: int, c: int, d: int, h: int, w: int) -> np.ndarray:
    """A padded NCDHW source; the padding holds values the API must not read."""
    _, _, hwp = dims(n, c, d, h, w)
    x = rng.integers(0, 0xFFFF, (n, c, d, hwp), dtype=np.uint16)
    x[..., h * w :] = 0x7E00 + np.arange(hwp - h * w, dtype=np.uint16)  # NaN bit patterns
    return x.ravel()


SHAPES = [
    (16, 16, 1, 3, 5),  # the transdata sample's
    (1, 32, 2, 2, 8),  # TransData.md's example: H * W already 32 bytes
    (5, 20, 2, 3, 3),  # C and N not multiples of 16, H * W padded
    (18, 35, 1, 1, 7),
]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("entry", ["to_6hd_h", "to_fz_h", "to_6hd_u16", "to_fz_i16"])
def test_from_ncdhw(lib: rt.KernelLibrary, entry: str, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(sum(shape))
    x = ncdhw_src(rng, *shape)
    want = (to_6hd if entry.startswith("to_6hd") else to_fz)(x, *shape)
    words = up(tmp_bytes(MODE[entry.rsplit("_", 1)[0]], *shape), 32) * 16
    z = rng.integers(0, 0xFFFF, words, dtype=np.uint16)
    got, tmp_after = run(lib, entry, x, want.size, shape, tmp=z)
    np.testing.assert_array_equal(got[: want.size], want)
    assert (got[want.size :] == 0xABCD).all()  # nothing past the destination
    # the simulator leaves the temporary as it was (CANN's scratch use is not observable)
    np.testing.assert_array_equal(tmp_after, z[: tmp_after.size])


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("entry", ["from_fz_h", "from_fz_bf16"])
def test_from_fractal_z_3d_pads_the_rows_with_zero(
    lib: rt.KernelLibrary, entry: str, shape: tuple[int, ...]
) -> None:
    n, c, d, h, w = shape
    c1, n1, hwp = dims(*shape)
    rng = np.random.default_rng(sum(shape) + 1)
    x = rng.integers(0, 0xFFFF, d * c1 * h * w * n1 * 256, dtype=np.uint16)
    want = from_fz(x, *shape)
    got, _ = run(lib, entry, x, want.size, shape)
    np.testing.assert_array_equal(got[: want.size], want)
    assert (got[want.size :] == 0xABCD).all()
    if hwp != h * w:
        assert (got[: want.size].reshape(n, c, d, hwp)[..., h * w :] == 0).all()


@pytest.mark.parametrize(
    "shape",
    [
        *SHAPES,
        (2, 20, 17, 1, 1),  # 17 repeats: the channels past C reach the staging area's first rows
        (3, 4, 40, 1, 3),
    ],
)
@pytest.mark.parametrize("entry", ["from_6hd_h", "from_6hd_bf16"])
def test_from_ndc1hwc0_leaves_the_staging_areas_values_in_the_padding(
    lib: rt.KernelLibrary, entry: str, shape: tuple[int, ...]
) -> None:
    n, c, d, h, w = shape
    c1, _, hwp = dims(*shape)
    rng = np.random.default_rng(sum(shape) + 2)
    x = rng.integers(0, 0xFFFF, n * d * c1 * h * w * 16, dtype=np.uint16)
    z = rng.integers(0, 0xFFFF, up(tmp_bytes(4, *shape), 32) * 16, dtype=np.uint16)
    want, want_tmp = from_6hd(x, z, *shape)
    got, tmp_after = run(lib, entry, x, want.size, shape, tmp=z)
    np.testing.assert_array_equal(got[: want.size], want)
    np.testing.assert_array_equal(tmp_after[: want_tmp.size], want_tmp)
    valid = got[: want.size].reshape(n, c, d, hwp)[..., : h * w]
    np.testing.assert_array_equal(valid, unpadded_6hd(x, *shape))


@pytest.mark.parametrize("entry", ["to_6hd_h", "from_6hd_h", "to_fz_h", "from_fz_h"])
def test_the_form_without_a_temporary_uses_the_stack(lib: rt.KernelLibrary, entry: str) -> None:
    shape = (5, 20, 2, 3, 3)
    n, c, d, h, w = shape
    c1, n1, hwp = dims(*shape)
    rng = np.random.default_rng(9)
    if entry.startswith("to"):
        x = ncdhw_src(rng, *shape)
        want = (to_6hd if "6hd" in entry else to_fz)(x, *shape)
        got, _ = run(lib, entry, x, want.size, shape, use_tmp=False)
        np.testing.assert_array_equal(got[: want.size], want)
        return
    size = n * d * c1 * h * w * 16 if "6hd" in entry else d * c1 * h * w * n1 * 256
    x = rng.integers(0, 0xFFFF, size, dtype=np.uint16)
    got, _ = run(lib, entry, x, n * c * d * hwp, shape, use_tmp=False)
    if "6hd" in entry:
        want = unpadded_6hd(x, *shape)
    else:
        want = from_fz(x, *shape).reshape(n, c, d, hwp)[..., : h * w]
    np.testing.assert_array_equal(got[: n * c * d * hwp].reshape(n, c, d, hwp)[..., : h * w], want)


def test_misuse_is_an_error_naming_the_api_the_argument_and_the_rule(lib: rt.KernelLibrary) -> None:
    shape = (5, 20, 2, 3, 3)
    x = np.zeros(5 * 20 * 2 * 16, np.uint16)
    fz_len = 2 * 2 * 9 * 16 * 16
    cases = [
        (
            dict(entry="to_6hd_h", o=[5, 2, 1, 3, 3, 16]),
            rt.SimulatorError,
            "TransData: params.dstLayout NDC1HWC0 shape (5, 2, 1, 3, 3, 16) against "
            "params.srcLayout NCDHW shape (5, 20, 2, 3, 3): C1 must be (C + C0 - 1) / C0 = 2",
        ),
        (
            dict(entry="to_6hd_h", o=[5, 2, 2, 3, 3, 8]),
            rt.SimulatorError,
            "C0 must be 16 (16-bit data)",
        ),
        (
            dict(entry="to_fz_h", o=[2, 2, 3, 3, 2, 16, 16]),
            rt.SimulatorError,
            "TransData: params.dstLayout FRACTAL_Z_3D shape (2, 2, 3, 3, 2, 16, 16) against "
            "params.srcLayout NCDHW shape (5, 20, 2, 3, 3): N1 must be (N + N0 - 1) / N0 = 1",
        ),
        (
            dict(entry="to_fz_h", o=[2, 2, 3, 4, 1, 16, 16]),
            rt.SimulatorError,
            "D, H and W must be equal",
        ),
        (
            dict(entry="to_fz_h", tmp_len=1024),
            rt.LocalMemoryOutOfBounds,
            "TransData: sharedTmpBuffer holds 1024 bytes, below GetTransDataMaxMinTmpSize's "
            f"minimum of {tmp_bytes(1, *shape)} bytes",
        ),
    ]
    for kw, error, text in cases:
        prefix = "block 0: " if text.startswith("TransData") else "TransData: .*"
        with pytest.raises(error, match=prefix + re.escape(text)):
            run(lib, kw["entry"], x, fz_len, shape, o=kw.get("o"), tmp_len=kw.get("tmp_len"))
    # an NCDHW source shorter than N * C * D * HWp
    with pytest.raises(
        rt.LocalMemoryOutOfBounds,
        match=re.escape(
            "TransData: srcTensor: NCDHW [5, 20, 2, H * W = 9 padded to 16] = 3200 elements do not "
            "fit the LocalTensor<half> of 3184 elements"
        ),
    ):
        run(lib, "to_6hd_h", x[:-16], 5 * 2 * 2 * 9 * 16, shape)
    with pytest.raises(
        rt.LocalMemoryOutOfBounds,
        match=re.escape("TransData: dstTensor: NCDHW [5, 20, 2, H * W = 9 padded to 16] = 3200"),
    ):
        run(lib, "from_6hd_h", np.zeros(5 * 2 * 2 * 9 * 16, np.uint16), 3184, shape)


BAD_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;
#ifndef T_
#define T_ half
#endif
constexpr TransDataConfig kCfg = {DataFormat::SRC_, DataFormat::DST_};
extern "C" __global__ __aicore__ void bad(GM_ADDR x, GM_ADDR ws, GM_ADDR tiling)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 65536);
    LocalTensor<T_> y = b.Get<T_>(), s = b.Get<T_>()[8192];
    LocalTensor<uint8_t> tmp = b.Get<uint8_t>()[32768];
    auto nc = MakeLayout(MakeShape(1, 16, 1, 4, 4), MakeStride());
    auto other = MakeLayout(MakeShape(OTHER_), MakeStride());
    TransDataParams<decltype(nc), decltype(other)> p = {nc, other};
    TransData<kCfg>(y, s, tmp, p);
}
"""


@pytest.mark.parametrize(
    ("defines", "text"),
    [
        (
            {"SRC_": "NCHW", "DST_": "NC1HWC0", "OTHER_": "1, 1, 4, 4, 16"},
            "TransData: config (srcFormat, dstFormat) must be (NCDHW, NDC1HWC0), "
            "(NDC1HWC0, NCDHW), (NCDHW, FRACTAL_Z_3D) or (FRACTAL_Z_3D, NCDHW)",
        ),
        (
            {"SRC_": "NCDHW", "DST_": "NDC1HWC0", "OTHER_": "1, 1, 1, 4, 4, 16", "T_": "float"},
            "TransData takes int16_t, uint16_t, half or bfloat16_t",
        ),
        (
            {"SRC_": "NCDHW", "DST_": "FRACTAL_Z_3D", "OTHER_": "1, 1, 1, 4, 4, 16"},
            "TransData: the FRACTAL_Z_3D layout's shape must have 7 dims (D, C1, H, W, N1, N0, C0)",
        ),
    ],
)
def test_a_bad_config_type_or_rank_stops_the_build(
    tmp_path: Path, defines: dict[str, str], text: str
) -> None:
    src = tmp_path / "transdata_bad.cpp"
    src.write_text(BAD_CPP)
    with pytest.raises(rt.BuildError, match=re.escape(text)):
        rt.build_kernel(src, entry="bad", defines=defines)


def test_layout_helpers_compile_and_map_a_coordinate(tmp_path: Path) -> None:
    """Layout.md / MakeLayout.md: GetShape, GetStride, layout(), is_layout, operator()."""
    src = tmp_path / "layout.cpp"
    src.write_text(
        r"""
#include "kernel_operator.h"
using namespace AscendC;
static_assert(is_layout<Layout<Shape<int, int>, Stride<int, int>>>::value);
static_assert(!is_layout<Shape<int, int>>::value);
constexpr auto kL = MakeLayout(MakeShape(10, 20, 30), MakeStride(1, 100, 200));
static_assert(Std::get<1>(kL.GetShape()) == 20 && Std::get<2>(kL.GetStride()) == 200);
static_assert(kL(Std::make_tuple(2, 1, 3)) == 2 + 100 + 600);
static_assert(Std::get<0>(kL.layout().GetShape()) == 10);
extern "C" __global__ __aicore__ void noop(GM_ADDR ws, GM_ADDR tiling) {}
"""
    )
    rt.build_kernel(src, entry="noop")


# ---- the host side -------------------------------------------------------------------------------
HOST_CPP = r"""
#include <cstdio>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"
using AscendC::DataFormat;

int main() {
    using V = std::vector<int64_t>;
    auto* p = platform_ascendc::PlatformAscendCManager::GetInstance("Ascend910B1");
    const AscendC::TransDataConfig to6 = {DataFormat::NCDHW, DataFormat::NDC1HWC0};
    const AscendC::TransDataConfig from6 = {DataFormat::NDC1HWC0, DataFormat::NCDHW};
    const AscendC::TransDataConfig toFz = {DataFormat::NCDHW, DataFormat::FRACTAL_Z_3D};
    const AscendC::TransDataConfig fromFz = {DataFormat::FRACTAL_Z_3D, DataFormat::NCDHW};
    const ge::Shape sample(V{16, 16, 1, 3, 5}), sampleFz(V{1, 1, 3, 5, 1, 16, 16});
    const ge::Shape sample6(V{16, 1, 1, 3, 5, 16});
    const ge::Shape odd(V{5, 20, 2, 3, 3}), oddFz(V{2, 2, 3, 3, 1, 16, 16});
    const ge::Shape odd6(V{5, 2, 2, 3, 3, 16});
    uint32_t mx = 0, mn = 0;
    struct Case {
        const ge::Shape* s;
        const ge::Shape* d;
        const AscendC::TransDataConfig* c;
        ge::DataType t;
    };
    const Case cases[] = {
        {&sample, &sampleFz, &toFz, ge::DT_FLOAT16}, {&sampleFz, &sample, &fromFz, ge::DT_FLOAT16},
        {&sample, &sample6, &to6, ge::DT_INT16}, {&sample6, &sample, &from6, ge::DT_BF16},
        {&odd, &oddFz, &toFz, ge::DT_UINT16}, {&oddFz, &odd, &fromFz, ge::DT_FLOAT16},
        {&odd, &odd6, &to6, ge::DT_FLOAT}, {&odd6, &odd, &from6, ge::DT_FLOAT16},
    };
    for (const Case& k : cases) {
        bool ok = AscendC::GetTransDataMaxMinTmpSize(*p, *k.s, *k.d, k.t, *k.c, mx, mn);
        std::printf("%d %u %u\n", ok, mx, mn);
    }
    mx = mn = 7;
    const AscendC::TransDataConfig bad = {DataFormat::NCHW, DataFormat::NC1HWC0};
    using AscendC::GetTransDataMaxMinTmpSize;
    const ge::DataType f16 = ge::DT_FLOAT16;
    std::printf("%d\n", GetTransDataMaxMinTmpSize(*p, sample, sample6, f16, bad, mx, mn));
    std::printf("%d\n", GetTransDataMaxMinTmpSize(*p, sample, sample6, ge::DT_INT8, to6, mx, mn));
    std::printf("%d\n", GetTransDataMaxMinTmpSize(*p, odd, oddFz, f16, to6, mx, mn));
    const ge::Shape badN1(V{2, 2, 3, 3, 2, 16, 16});
    std::printf("%d\n", GetTransDataMaxMinTmpSize(*p, odd, badN1, f16, toFz, mx, mn));
    std::printf("%u %u\n", mx, mn);
}
"""


def test_host_tmp_size_as_cann_computes_it(tmp_path: Path) -> None:
    """GetTransDataMaxMinTmpSize.md (max == min), asc-devkit's transdata_tiling.cpp figures; a bad
    argument is reported and writes nothing."""
    out = run_host_program(tmp_path, HOST_CPP)
    lines = out.stdout.splitlines()
    sample, odd = (16, 16, 1, 3, 5), (5, 20, 2, 3, 3)
    want = [
        tmp_bytes(1, *sample),
        tmp_bytes(2, *sample),
        tmp_bytes(3, *sample),
        tmp_bytes(4, *sample),
        tmp_bytes(1, *odd),
        tmp_bytes(2, *odd),
        tmp_bytes(3, *odd),
        tmp_bytes(4, *odd),
    ]
    assert want[:4] == [256 * 2 + 256 * 16 * 2, 256 * 16 * 2, 32 + 16 * 16 * 2, 512 + 16 * 16 * 2]
    assert lines[:8] == [f"1 {v} {v}" for v in want]
    assert lines[8:12] == ["0", "0", "0", "0"]
    err = out.stderr
    assert "GetTransDataMaxMinTmpSize: config (srcFormat 2, dstFormat 3) is not supported" in err
    assert "GetTransDataMaxMinTmpSize: dataType 2 is not supported" in err
    assert "dstShape [2, 2, 3, 3, 1, 16, 16] is not a NDC1HWC0 shape: it must have 6 dims" in err
    assert (
        "dstShape [2, 2, 3, 3, 2, 16, 16] against srcShape [5, 20, 2, 3, 3]: "
        "N1 must be (N + 15) / 16 = 1" in err
    )
    assert lines[12] == "7 7"  # the failed calls left the outputs as they were
