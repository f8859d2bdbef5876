"""TopK (opgen_sim/transform_more.h) and the advanced Transpose with a ConfusionTransposeTiling
(scenes 1, 2 and 7), against numpy models of CANN's A2/A3 behaviour (asc-devkit
impl/adv_api/detail/sort/topk/topk_v220_impl.h: a stable descending sort, NaN the smallest,
isLargest false negating the values before and the whole padded output after;
confusion_transpose_v220_impl.h's layouts), bit for bit; the host side
(tiling/transform_more_tiling.h) as asc-devkit's tiling implementation computes it; and
Broadcast's undocumented 2- and 4-byte types."""

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
    int32_t outter;
    int32_t inner;
    int32_t n;
    int32_t k;
    int32_t largest;
    uint32_t tmpBytes;
    uint32_t vLen;
    uint32_t iLen;
    int32_t scene;
    uint32_t count;
    uint32_t src0;
    uint32_t src1;
    uint32_t dst0;
    uint32_t dst1;
    uint32_t pad0;
    uint32_t pad1;
    TopkTiling tk;
    ConfusionTransposeTiling ct;
};
REGISTER_TILING_DEFAULT(Cfg);

static uint32_t Up32(uint32_t bytes) { return (bytes + 31) / 32 * 32; }

// x [outter, inner] of T, idx [outter * inner] int32, finish [32] bool; v and i start as the GM's
template <typename T, bool init, bool fin, TopKMode mode>
__aicore__ inline void TopkBody(GM_ADDR x, GM_ADDR idx, GM_ADDR finish, GM_ADDR v, GM_ADDR i,
                                Cfg& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bi, bf, bv, bo, btmp;
    const uint32_t all = t.outter * t.inner;
    pipe.InitBuffer(bx, Up32(all * sizeof(T)));
    pipe.InitBuffer(bi, Up32(all * 4));
    pipe.InitBuffer(bf, 32);
    pipe.InitBuffer(bv, Up32(t.vLen * sizeof(T)));
    pipe.InitBuffer(bo, Up32(t.iLen * 4));
    if (t.tmpBytes != 0) pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, vGm;
    GlobalTensor<int32_t> iGm, oGm;
    GlobalTensor<bool> fGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, all);
    iGm.SetGlobalBuffer((__gm__ int32_t*)idx, all);
    fGm.SetGlobalBuffer((__gm__ bool*)finish, 32);
    vGm.SetGlobalBuffer((__gm__ T*)v, t.vLen);
    oGm.SetGlobalBuffer((__gm__ int32_t*)i, t.iLen);
    LocalTensor<T> xl = bx.Get<T>(), vl = bv.Get<T>();
    LocalTensor<int32_t> il = bi.Get<int32_t>(), ol = bo.Get<int32_t>();
    LocalTensor<bool> fl = bf.Get<bool>();
    DataCopy(xl, xGm, all);
    DataCopy(il, iGm, all);
    DataCopy(fl, fGm, 32);
    DataCopy(vl, vGm, t.vLen);
    DataCopy(ol, oGm, t.iLen);
    TopKInfo info;
    info.outter = t.outter;
    info.inner = t.inner;
    info.n = t.n;
    if (t.tmpBytes != 0) {
        LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
        TopK<T, init, fin, false, mode>(vl, ol, xl, il, fl, tmp, t.k, t.tk, info, t.largest != 0);
    } else {
        TopK<T, init, fin, false, mode>(vl, ol, xl, il, fl, t.k, t.tk, info, t.largest != 0);
    }
    DataCopy(vGm, vl, t.vLen);
    DataCopy(oGm, ol, t.iLen);
}

#define TOPK_ENTRY(NAME, T, INIT, FIN, MODE)                                                     \
    extern "C" __global__ __aicore__ void NAME(GM_ADDR x, GM_ADDR idx, GM_ADDR f, GM_ADDR v,     \
                                               GM_ADDR i, GM_ADDR ws, GM_ADDR tiling)            \
    {                                                                                            \
        GET_TILING_DATA(t, tiling);                                                              \
        TopkBody<T, INIT, FIN, MODE>(x, idx, f, v, i, t);                                        \
    }
TOPK_ENTRY(topk_nf, float, false, true, TopKMode::TOPK_NORMAL)
TOPK_ENTRY(topk_nh, half, true, false, TopKMode::TOPK_NORMAL)
TOPK_ENTRY(topk_sf, float, false, false, TopKMode::TOPK_NSMALL)
TOPK_ENTRY(topk_sh, half, true, false, TopKMode::TOPK_NSMALL)
TOPK_ENTRY(topk_sfin, float, false, true, TopKMode::TOPK_NSMALL)

// Transpose scenes with the tiling's ConfusionTransposeTiling;
// Broadcast [src0, src1] -> [dst0, dst1]
template <typename T>
__aicore__ inline void MoveBody(GM_ADDR x, GM_ADDR y, Cfg& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, btmp;
    pipe.InitBuffer(bx, Up32(t.count * sizeof(T)));
    pipe.InitBuffer(by, Up32(t.count * sizeof(T)));
    if (t.tmpBytes != 0) pipe.InitBuffer(btmp, t.tmpBytes);
    GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, t.count);
    yGm.SetGlobalBuffer((__gm__ T*)y, t.count);
    LocalTensor<T> xl = bx.Get<T>(), yl = by.Get<T>();
    DataCopy(xl, xGm, Up32(t.count * sizeof(T)) / sizeof(T));
    DataCopy(yl, yGm, Up32(t.count * sizeof(T)) / sizeof(T));
    if constexpr (!std::is_same_v<T, bfloat16_t>) {  // bfloat16_t: Broadcast only
        if (t.scene > 0 && t.tmpBytes != 0) {
            LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
            Transpose(yl, xl, tmp, static_cast<TransposeType>(t.scene), t.ct);
        } else if (t.scene > 0) {
            Transpose(yl, xl, static_cast<TransposeType>(t.scene), t.ct);
        }
    }
    if (t.scene <= 0) {
        const uint32_t src[2] = {t.src0, t.src1};
        const uint32_t dst[2] = {t.dst0, t.dst1};
        if (t.scene == 0) Broadcast<T, 2, 1>(yl, xl, dst, src);
        if (t.scene == -1) Broadcast<T, 2, 0>(yl, xl, dst, src);
    }
    DataCopy(yGm, yl, Up32(t.count * sizeof(T)) / sizeof(T));
}

#define MOVE_ENTRY(NAME, T)                                                                       \
    extern "C" __global__ __aicore__ void NAME(GM_ADDR x, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling) \
    {                                                                                             \
        GET_TILING_DATA(t, tiling);                                                               \
        MoveBody<T>(x, y, t);                                                                     \
    }
MOVE_ENTRY(move_h, half)
MOVE_ENTRY(move_f, float)
MOVE_ENTRY(move_i16, int16_t)
MOVE_ENTRY(move_i32, int32_t)
MOVE_ENTRY(move_bf16, bfloat16_t)
"""

ENTRIES = (
    "topk_nf",
    "topk_nh",
    "topk_sf",
    "topk_sh",
    "topk_sfin",
    "move_h",
    "move_f",
    "move_i16",
    "move_i32",
    "move_bf16",
)


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("transform_more")) / "transform_more.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry=ENTRIES)


def blob(head: list[int], tmp_local_size: int = 0, ct: list[int] | None = None) -> bytes:
    """Cfg: 16 int fields, TopkTiling (24 words + 8 half-words: only tmpLocalSize matters to the
    simulator), ConfusionTransposeTiling (18 words)."""
    head = head + [0] * (16 - len(head))
    tk = struct.pack("<i", tmp_local_size) + bytes(23 * 4 + 8 * 2)
    ctw = (ct or []) + [0] * (18 - len(ct or []))
    return struct.pack("<16i", *head) + tk + struct.pack("<18I", *ctw)


def bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)


# ---- TopK ----------------------------------------------------------------------------------------
def topk_model(
    x: np.ndarray,
    idx: np.ndarray,
    finish: np.ndarray,
    k: int,
    n: int,
    largest: bool,
    normal: bool,
    init: bool,
    has_finish: bool,
    v0: np.ndarray,
    i0: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """CANN's A2 steps: the values (times -1 for the smallest) Sort32-sorted and merged, i.e. a
    stable descending sort with NaN the smallest; the first k of each row; finish rows get index
    n; the smallest: the whole padded value output times -1 again."""
    outter, inner = x.shape
    dt = x.dtype
    kv = (k * dt.itemsize + 31) // 32 * 32 // dt.itemsize if normal else k
    ki = (k + 7) // 8 * 8 if normal else k
    v, i = v0.copy(), i0.copy()
    for r in range(outter):
        key = x[r] if largest else (x[r] * dt.type(-1)).astype(dt)
        rank = np.where(np.isnan(key), -np.inf, key.astype(np.float64))
        order = np.argsort(-rank, kind="stable")[:k]
        v[r * kv : r * kv + k] = key[order]
        if has_finish and finish[r]:
            i[r * ki : r * ki + k] = n
        elif init:
            i[r * ki : r * ki + k] = idx[order] if normal else idx[r * inner + order]
        else:
            i[r * ki : r * ki + k] = order
    if not largest:
        v[: outter * kv] = (v[: outter * kv] * dt.type(-1)).astype(dt)
    return v, i


def topk_tmp_elems(
    inner: int, outter: int, normal: bool, init: bool, largest: bool, ts: int
) -> int:
    if normal:
        return (16 * inner + (0 if init else 4 * inner)) // ts
    return (
        8 * inner * outter
        + 64
        + (0 if largest else 4 * inner * outter)
        + (0 if init else 4 * inner * outter)
    ) // ts


def run_topk(
    lib: rt.KernelLibrary,
    entry: str,
    x: np.ndarray,
    k: int,
    n: int,
    largest: bool,
    *,
    idx: np.ndarray | None = None,
    finish: np.ndarray | None = None,
    use_tmp: bool = True,
    tmp_bytes: int | None = None,
    inner: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    normal = entry.startswith("topk_n")
    init = entry in ("topk_nh", "topk_sh")
    outter, width = x.shape
    inner = width if inner is None else inner
    dt = x.dtype
    kv = (k * dt.itemsize + 31) // 32 * 32 // dt.itemsize if normal else k
    ki = (k + 7) // 8 * 8 if normal else k
    v_len = (outter * kv * dt.itemsize + 31) // 32 * 32 // dt.itemsize
    i_len = (outter * ki + 7) // 8 * 8
    tmp_elems = topk_tmp_elems(width, outter, normal, init, largest, dt.itemsize)
    if tmp_bytes is None:
        tmp_bytes = tmp_elems * dt.itemsize if use_tmp else 0
    gx, gi = rt.gm_empty(x.size, str(dt)), rt.gm_empty(x.size, "int32")
    gf, gv, go = rt.gm_empty(32, "uint8"), rt.gm_empty(v_len, str(dt)), rt.gm_empty(i_len, "int32")
    gx[:] = x.ravel()
    gi[:] = np.arange(x.size, dtype=np.int32) * 3 + 7 if idx is None else idx
    gf[:] = 0
    if finish is not None:
        gf[: len(finish)] = finish
    rng = np.random.default_rng(5)
    v0 = rng.uniform(-9, 9, v_len).astype(dt)
    i0 = rng.integers(-50, 50, i_len).astype(np.int32)
    gv[:], go[:] = v0, i0
    tiling = blob([outter, inner, n, k, int(largest), tmp_bytes, v_len, i_len], tmp_elems)
    rt.launch(lib, entry, [gx, gi, gf, gv, go], block_dim=1, tiling=tiling)
    return np.asarray(gv).copy(), np.asarray(go).copy(), v0, i0


@pytest.mark.parametrize(
    ("entry", "dtype", "outter", "inner", "n", "k", "largest", "use_tmp"),
    [
        ("topk_nf", np.float32, 2, 32, 32, 1, False, True),  # the topk sample's call
        ("topk_nf", np.float32, 3, 160, 150, 13, True, True),  # 4-way then 2-way merges
        ("topk_nf", np.float32, 2, 96, 96, 40, False, False),
        ("topk_nh", np.float16, 3, 64, 60, 17, True, True),
        ("topk_nh", np.float16, 2, 544, 544, 5, False, True),
        ("topk_sf", np.float32, 4, 32, 32, 7, False, True),
        ("topk_sh", np.float16, 3, 32, 30, 20, True, False),
    ],
)
def test_topk_follows_canns_steps(
    lib: rt.KernelLibrary,
    entry: str,
    dtype: type,
    outter: int,
    inner: int,
    n: int,
    k: int,
    largest: bool,
    use_tmp: bool,
) -> None:
    rng = np.random.default_rng(outter * inner + k)
    # few distinct values: many ties, whose order the stable sort decides; a NaN and a -0
    x = rng.integers(-6, 6, (outter, inner)).astype(dtype)
    x[0, 3] = np.nan
    x[-1, 5] = -0.0
    x[:, n:] = -np.inf if largest else np.inf  # the documented padding of n up to inner
    idx = (rng.permutation(outter * inner) + 100).astype(np.int32)
    finish = np.array([1, 0, 1, 0], np.uint8)[:outter]
    got_v, got_i, v0, i0 = run_topk(
        lib, entry, x, k, n, largest, idx=idx, finish=finish, use_tmp=use_tmp
    )
    want_v, want_i = topk_model(
        x,
        idx,
        finish,
        k,
        n,
        largest,
        entry.startswith("topk_n"),
        entry in ("topk_nh", "topk_sh"),
        entry == "topk_nf",
        v0,
        i0,
    )
    np.testing.assert_array_equal(bits(got_v), bits(want_v))
    np.testing.assert_array_equal(got_i, want_i)


def test_topk_smallest_negates_the_padding(lib: rt.KernelLibrary) -> None:
    """CANN multiplies all outter * k_pad values by -1 at the end: a 0 in the padding becomes -0."""
    x = np.arange(32, dtype=np.float32).reshape(1, 32)[:, ::-1].copy()
    got_v, got_i, v0, _ = run_topk(lib, "topk_nf", x, 1, 32, False)
    assert got_v[0] == 0.0 and got_i[0] == 31
    np.testing.assert_array_equal(bits(got_v[1:8]), bits(v0[1:8] * np.float32(-1)))


def test_topk_misuse_is_an_error_naming_the_api(lib: rt.KernelLibrary) -> None:
    x = np.ones((2, 32), np.float32)
    cases = [
        (dict(k=33, n=32), rt.SimulatorError, "TopK: k is 33, should be in [1, n = 32]"),
        (
            dict(k=4, n=40),
            rt.SimulatorError,
            "TopK: topKInfo.n is 40, should be in [1, inner = 32]",
        ),
        (
            dict(k=4, n=20, inner=20),
            rt.SimulatorError,
            "TopK: topKInfo.inner is 20, should be a positive multiple of 32",
        ),
        (
            dict(k=4, n=32, tmp_bytes=64),
            rt.LocalMemoryOutOfBounds,
            "TopK: tmpLocal holds 64 bytes, below the tiling's tmpLocalSize of 640 bytes",
        ),
    ]
    for kw, error, text in cases:
        with pytest.raises(error, match="block 0: " + re.escape(text)):
            run_topk(
                lib,
                "topk_nf",
                x,
                kw["k"],
                kw["n"],
                True,
                tmp_bytes=kw.get("tmp_bytes"),
                inner=kw.get("inner"),
            )
    with pytest.raises(
        rt.SimulatorError,
        match=re.escape("TopK: topKInfo.inner is 64, should be 32 in TOPK_NSMALL"),
    ):
        run_topk(lib, "topk_sf", np.ones((1, 64), np.float32), 2, 64, True)
    with pytest.raises(
        rt.SimulatorError, match=re.escape("TopK: isHasfinish must be false in TOPK_NSMALL mode")
    ):
        run_topk(lib, "topk_sfin", x, 2, 32, True)


# ---- Transpose (ConfusionTransposeTiling) and Broadcast ------------------------------------------
def run_move(
    lib: rt.KernelLibrary,
    entry: str,
    x: np.ndarray,
    count: int,
    head: list[int],
    ct: list[int] | None = None,
) -> np.ndarray:
    gx, gy = rt.gm_empty(count, str(x.dtype)), rt.gm_empty(count, str(x.dtype))
    gx[:] = 0
    gx[: x.size] = x.ravel()
    gy[:] = 0
    rt.launch(lib, entry, [gx, gy], block_dim=1, tiling=blob(head, 0, ct))
    return np.asarray(gy).copy()


def ct_0213(b: int, n: int, s: int, hn: int, ts: int, stack: int) -> list[int]:
    """GetTransposeTilingInfo's plan for scenes 1 and 2 (confusion_transpose_tiling_impl.cpp)."""
    a2, wt = (s + 15) // 16 * 16, (hn + 15) // 16
    a3 = wt * 16
    pop = stack // ts // 256 * 256
    need = a2 * 16
    main = need // pop
    return [
        32 // ts,
        b,
        n,
        a3,
        a2,
        wt,
        pop,
        pop // 16,
        need,
        main,
        need % pop,
        a2 * a3,
        n * a2 * a3,
        n * a3,
        n * 16,
        pop // 16 * main * n * a3,
    ]


@pytest.mark.parametrize(("entry", "dtype"), [("move_h", np.float16), ("move_f", np.float32)])
@pytest.mark.parametrize("scene", [1, 2])
@pytest.mark.parametrize("use_tmp", [True, False])
def test_transpose_0213_layouts(
    lib: rt.KernelLibrary, entry: str, dtype: type, scene: int, use_tmp: bool
) -> None:
    b, n, s, hn = 2, 3, 32, 48
    rng = np.random.default_rng(scene)
    origin = rng.uniform(-100, 100, (b, n, s, hn)).astype(dtype)
    # NZ: [B, N, H/N/16, S/16, 16, 16]
    src = origin.reshape(b, n, s // 16, 16, hn // 16, 16).transpose(0, 1, 4, 2, 3, 5)
    ts = np.dtype(dtype).itemsize
    got = run_move(
        lib,
        entry,
        src,
        origin.size,
        [0, 0, 0, 0, 0, 256 * ts if use_tmp else 0, 0, 0, scene, origin.size],
        ct_0213(b, n, s, hn, ts, 256 * ts),
    )
    if scene == 1:
        want = origin.transpose(0, 2, 1, 3)  # ND [B, S, N, H/N]
    else:
        want = origin.reshape(b, n, s, hn // 16, 16).transpose(
            0, 2, 3, 1, 4
        )  # [B, S, H/N/16, N, 16]
    np.testing.assert_array_equal(bits(got), bits(np.ascontiguousarray(want).ravel()))


def test_transpose_nd2nd_only(lib: rt.KernelLibrary) -> None:
    x = np.arange(32 * 48, dtype=np.int32).view(np.float32).reshape(32, 48)
    got = run_move(
        lib, "move_f", x, x.size, [0, 0, 0, 0, 0, 0, 0, 0, 7, x.size], [8, 32, 48, 2, 32, 6]
    )
    np.testing.assert_array_equal(bits(got), bits(np.ascontiguousarray(x.T).ravel()))


def test_transpose_misuse_is_an_error_naming_the_api(lib: rt.KernelLibrary) -> None:
    x = np.ones(2 * 16 * 16, np.float16)
    ct = ct_0213(1, 2, 16, 16, 2, 512)
    with pytest.raises(
        rt.SimulatorError, match=re.escape("Transpose: transposeType 3 (scenes 3 to 6")
    ):
        run_move(lib, "move_h", x, x.size, [0, 0, 0, 0, 0, 0, 0, 0, 3, x.size], ct)
    with pytest.raises(
        rt.SimulatorError, match=re.escape("Transpose: transposeType 13 is not supported")
    ):
        run_move(lib, "move_h", x, x.size, [0, 0, 0, 0, 0, 0, 0, 0, 13, x.size], ct)
    with pytest.raises(
        rt.LocalMemoryOutOfBounds,
        match=re.escape(
            "Transpose: sharedTmpBuffer holds 256 bytes, below GetTransposeMaxMinTmpSize's "
            "minimum of 512"
        ),
    ):
        run_move(lib, "move_h", x, x.size, [0, 0, 0, 0, 0, 256, 0, 0, 1, x.size], ct)
    with pytest.raises(
        rt.LocalMemoryOutOfBounds, match=re.escape("Transpose: src: [1, 2, 16, 16] = 512 elements")
    ):
        run_move(lib, "move_h", x[:256], 256, [0, 0, 0, 0, 0, 0, 0, 0, 1, 256], ct)


@pytest.mark.parametrize(
    ("entry", "dtype"),
    [("move_i16", np.int16), ("move_i32", np.int32), ("move_bf16", np.uint16)],
)
def test_broadcast_of_an_undocumented_type_compiles_and_fails_when_called(
        lib: rt.KernelLibrary, entry: str, dtype: type) -> None:
    """The reference lists int8_t, uint8_t, half and float for the Atlas A2/A3: the add_broadcast
    sample instantiates int16_t, int32_t and bfloat16_t kernels (it runs the int8_t one), so they
    compile; a call with one is an error, though CANN's implementation would copy it."""
    col = np.arange(5, dtype=dtype).reshape(5, 1)
    with pytest.raises(rt.SimulatorError, match=re.escape(
            f"Broadcast: a {np.dtype(dtype).itemsize}-byte element type other than half and "
            "float: the reference lists int8_t, uint8_t, half and float")):
        run_move(lib, entry, col, 5 * 48, [0] * 8 + [0, 5 * 48, 5, 1, 5, 48])


# ---- the host side -------------------------------------------------------------------------------
HOST_CPP = r"""
#include <cstdio>
#include "graph/tensor.h"
#include "tiling/tiling_api.h"

template <typename S>
static void Dump(const S& s, size_t n) {
    const uint32_t* w = reinterpret_cast<const uint32_t*>(&s);
    for (size_t i = 0; i < n; ++i) std::printf("%u ", w[i]);
    std::printf("\n");
}

int main() {
    using V = std::vector<int64_t>;
    auto* p = platform_ascendc::PlatformAscendCManager::GetInstance("Ascend910B1");
    uint32_t mx = 0, mn = 0;
    const AscendC::TopKMode N = AscendC::TopKMode::TOPK_NORMAL, S = AscendC::TopKMode::TOPK_NSMALL;
    bool ok = AscendC::GetTopKMaxMinTmpSize(*p, 32, 2, false, false, N, false, 4, mx, mn);
    std::printf("%d %u %u\n", ok, mx, mn);
    ok = AscendC::GetTopKMaxMinTmpSize(*p, 32, 5, false, true, S, false, 2, mx, mn);
    std::printf("%d %u %u\n", ok, mx, mn);
    AscendC::tiling::TopkTiling tk;
    ok = AscendC::TopKTilingFunc(*p, 160, 3, 13, 4, false, N, true, tk);
    std::printf("%d %zu\n", ok, sizeof(tk));
    Dump(tk, 28);
    ok = AscendC::TopKTilingFunc(*p, 32, 4, 20, 2, true, S, false, tk);
    std::printf("%d\n", ok);
    Dump(tk, 28);
    ok = AscendC::TopKTilingFunc(*p, 32, 2, 0, 4, false, N, true, tk);
    std::printf("%d\n", ok);
    ok = AscendC::GetTopKMaxMinTmpSize(*p, 48, 2, false, false, N, true, 4, mx, mn);
    std::printf("%d\n", ok);
    AscendC::GetTransposeMaxMinTmpSize(ge::Shape(V{1, 2, 64, 32}), 2, 1, mx, mn);
    std::printf("%u %u\n", mx, mn);
    AscendC::tiling::ConfusionTransposeTiling ct;
    AscendC::GetTransposeTilingInfo(ge::Shape(V{1, 2, 64, 32}), mn, 2, 1, ct);
    Dump(ct, 18);
    AscendC::GetTransposeTilingInfo(ge::Shape(V{2, 3, 40, 24}), 0, 4, 4, ct);
    Dump(ct, 18);
    mx = mn = 7;
    AscendC::GetTransposeMaxMinTmpSize(ge::Shape(V{16, 16}), 2, 13, mx, mn);
    std::printf("%u %u\n", mx, mn);
}
"""


def test_host_tiling_as_cann_computes_it(tmp_path: Path) -> None:
    """TopK-Tiling.md and Transpose-Tiling.md: the sizes and plans of asc-devkit's A2 tiling
    implementation; a bad argument is reported and writes nothing."""
    out = run_host_program(tmp_path, HOST_CPP)
    lines = out.stdout.splitlines()
    assert lines[0] == "1 640 640"  # the topk sample's minsize: (16 + 4) * 32
    assert lines[1] == f"1 {8 * 160 + 64 + 4 * 160} {8 * 160 + 64 + 4 * 160}"
    assert lines[2] == "1 112"
    w = [int(v) for v in lines[3].split()]
    # tmpLocalSize, allDataSize, innerDataSize, sortRepeat, mrgSortRepeat, kAlign4, kAlign2,
    # maskOffset, masks 2k / 4k, mrgSort offsets, two-queue offset, tail paras, srcIndexOffset,
    # copy blocks
    assert w[:18] == [5 * 160, 480, 320, 5, 40, 16, 16, 48, 26, 52, 2, 4, 6, 2, 320, 1, 640, 40]
    w = [int(v) for v in lines[5].split()]
    mask_at = 32 * 4 * 4 + 128
    assert w[:3] == [mask_at + 32, 128, 512] and w[7] == 80 and w[18] == mask_at
    assert w[20:24] == [0, 0, 0x55555555 << 1 & 0xFFFFFFFF, 0b10101010]
    assert w[24:28] == [0x11111111, 0x11111111, 0x1111, 0]  # 5 groups of 4 pairs, then 0
    assert lines[6] == "0"
    assert "TopKTilingFunc: k is 0, should be in [1, inner = 32]" in out.stderr
    assert lines[7] == "0"
    assert "GetTopKMaxMinTmpSize: inner is 48, should be a positive multiple of 32" in out.stderr
    assert lines[8] == f"{64 * 16 * 2} 512"
    assert [int(v) for v in lines[9].split()] == [*ct_0213(1, 2, 64, 32, 2, 512), 0, 0]
    h, hb, sb = 72, 5, 3
    assert [int(v) for v in lines[10].split()] == [
        8,
        2,
        3,
        24,
        h,
        hb,
        sb,
        2,
        32,
        8,
        sb * 256,
        6,
        sb * 16 * 32,
        512,
        256,
        3 * 32 * sb * 16,
        hb * sb * 256,
        2,
    ]
    assert lines[11] == "7 7"
    assert "GetTransposeMaxMinTmpSize: transposeTypeIn 13 is not supported" in out.stderr
