"""Cast as the last step of a recorded program (opgen_sim/deferred.h, DeferCast): a Cast whose
source is a pending GM->UB copy, or a recorded chain of its source type, is recorded too, and a
DataCopy(UB->GM) of its result converts straight into GM. Each mode mixes such a Cast with an
access that must see it (an instruction or GetValue reading the result, a write to the GM or the
UB operand it reads, a partial or offset store, an overwrite of its dst); every run must equal,
bit for bit, the same kernel with deferral off (GlobalTensor::GetPhyAddr first) and numpy doing
each instruction when issued, for a narrowing (float -> half), a widening (half -> float) and an
integer (float -> int32, toward zero) conversion."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

N = 2608  # several 4 KiB evaluation chunks, and a tail

CAST_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct CastDeferTilingData {
    int32_t mode;
    int32_t n;
    int32_t nodefer;
};
REGISTER_TILING_DEFAULT(CastDeferTilingData);

constexpr int32_t MAX_N = 2608;

template <typename TI, typename TO>
__aicore__ inline void RunCast(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w,
                               const CastDeferTilingData& tl, RoundMode rm)
{
    const int32_t mode = tl.mode;
    const int32_t n = tl.n;
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA, bufB, bufT, bufU, bufH, bufG, bufP;
    pipe.InitBuffer(bufA, MAX_N * sizeof(TI));
    pipe.InitBuffer(bufB, MAX_N * sizeof(TI));
    pipe.InitBuffer(bufT, MAX_N * sizeof(TI));
    pipe.InitBuffer(bufU, MAX_N * sizeof(TI));
    pipe.InitBuffer(bufH, MAX_N * sizeof(TO));
    pipe.InitBuffer(bufG, MAX_N * sizeof(TO));
    pipe.InitBuffer(bufP, 64);
    GlobalTensor<TI> xGm, yGm;
    GlobalTensor<TO> zGm;
    GlobalTensor<int32_t> wGm;
    xGm.SetGlobalBuffer((__gm__ TI*)x, n);
    yGm.SetGlobalBuffer((__gm__ TI*)y, n);
    zGm.SetGlobalBuffer((__gm__ TO*)z, n);
    wGm.SetGlobalBuffer((__gm__ int32_t*)w, 8);
    if (tl.nodefer != 0) (void)xGm.GetPhyAddr();  // every instruction runs when issued
    LocalTensor<TI> a = bufA.Get<TI>(), b = bufB.Get<TI>(), t = bufT.Get<TI>(), u = bufU.Get<TI>();
    LocalTensor<TO> h = bufH.Get<TO>(), g = bufG.Get<TO>();
    LocalTensor<int32_t> probe = bufP.Get<int32_t>();
    DataCopy(a, xGm, n);
    DataCopy(b, yGm, n);
    bool zDone = false;
    if (mode == 1) {  // a copy cast and stored: the program's probe is the pending count
        Cast(h, a, rm, n);
        probe.SetValue(0, opgen_sim::tls_core->npending);
    } else if (mode == 2) {  // a chain ending in the cast
        Muls(t, a, static_cast<TI>(2.0f), n);
        Adds(t, t, static_cast<TI>(1.0f), n);
        Cast(h, t, rm, n);
        probe.SetValue(0, opgen_sim::tls_core->npending);
    } else if (mode == 3) {  // the cast's result read by an instruction of its type
        Cast(g, a, rm, n);
        Adds(h, g, static_cast<TO>(1), n);
    } else if (mode == 4) {  // the cast's result read element by element
        Cast(h, a, rm, n);
        probe.SetValue(1, static_cast<int32_t>(h.GetValue(7)));
    } else if (mode == 5) {  // the GM the cast reads overwritten before the store
        Cast(h, a, rm, n);
        DataCopy(xGm, b, n);
    } else if (mode == 6) {  // stored in two parts, the first at an offset
        Cast(h, a, rm, n);
        DataCopy(zGm[1040], h[1040], n - 1040);
        DataCopy(zGm, h, 1040);
        zDone = true;
    } else if (mode == 7) {  // a source at an offset into the copy
        Duplicate(h, static_cast<TO>(0), n);
        Cast(h, a[64], rm, n - 64);
    } else if (mode == 8) {  // the cast's dst overwritten before the store
        Cast(h, a, rm, n);
        Duplicate(h, static_cast<TO>(3), n);
    } else if (mode == 9) {  // the chain's UB operand overwritten before the store
        Duplicate(u, static_cast<TI>(0.25f), n);
        Add(t, a, u, n);
        Cast(h, t, rm, n);
        Duplicate(u, static_cast<TI>(4.0f), n);
    } else if (mode == 10) {  // the chain's range extended after the cast took it
        Muls(t, a, static_cast<TI>(2.0f), n);
        Cast(h, t, rm, n);
        Adds(t, t, static_cast<TI>(1.0f), n);
        DataCopy(yGm, t, n);
    } else if (mode == 11) {  // a cast over part of the copy, then the copy's range read
        Cast(h, a, rm, 512);
        Cast(h[512], b, rm, n - 512);
        Muls(t, a, static_cast<TI>(3.0f), n);
        DataCopy(yGm, t, n);
    } else if (mode == 12) {  // stored by one DataCopyPad burst of an odd length
        Muls(t, a, static_cast<TI>(2.0f), n);
        Cast(h, t, rm, n);
        DataCopyExtParams burst{1, static_cast<uint32_t>((n - 3) * sizeof(TO)), 0, 0, 0};
        DataCopyPad(zGm, h, burst);
        zDone = true;
    } else if (mode == 13) {  // a chain (no cast) stored by DataCopyPad bursts, one then two
        Muls(t, a, static_cast<TI>(2.0f), n);
        Adds(t, t, static_cast<TI>(1.0f), n);
        DataCopyExtParams one{1, static_cast<uint32_t>((n - 5) * sizeof(TI)), 0, 0, 0};
        DataCopyPad(yGm, t, one);
        Muls(u, b, static_cast<TI>(3.0f), n);
        DataCopyExtParams two{2, static_cast<uint32_t>(512 * sizeof(TI)), 0, 0, 0};
        DataCopyPad(xGm, u, two);
        Cast(h, a, rm, n);
    } else if (mode == 14) {  // a copy over the middle of the cast's result, then the GM the
        // cast reads overwritten: both ends of the result stay recorded until then
        Muls(t, a, static_cast<TI>(2.0f), n);
        Cast(h, t, rm, n);
        DataCopy(h[256], zGm, 512);
        probe.SetValue(0, opgen_sim::tls_core->npending);
        DataCopy(xGm, b, n);
    }
    if (!zDone) DataCopy(zGm, h, n);
    DataCopyExtParams one{1, 2 * sizeof(int32_t), 0, 0, 0};
    DataCopyPad(wGm, probe, one);
}

extern "C" __global__ __aicore__ void f2h(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w,
                                          GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tl, tiling);
    RunCast<float, half>(x, y, z, w, tl, RoundMode::CAST_RINT);
}

extern "C" __global__ __aicore__ void h2f(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w,
                                          GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tl, tiling);
    RunCast<half, float>(x, y, z, w, tl, RoundMode::CAST_NONE);
}

extern "C" __global__ __aicore__ void f2i(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w,
                                          GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tl, tiling);
    RunCast<float, int32_t>(x, y, z, w, tl, RoundMode::CAST_TRUNC);
}
"""

LAYOUT = rt.TilingLayout.from_fields(
    "CastDeferTilingData", [("mode", "int32_t"), ("n", "int32_t"), ("nodefer", "int32_t")])
MODES = range(1, 15)
PAIRS = {"f2h": (np.float32, np.float16), "h2f": (np.float16, np.float32),
         "f2i": (np.float32, np.int32)}
Arr = np.ndarray


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("cast_defer")) / "cast_defer.cpp"
    src.write_text(CAST_CPP)
    return rt.build_kernel(src, entry=list(PAIRS))


def _conv(v: Arr, to: type[np.generic]) -> Arr:
    if to is np.int32:
        return np.trunc(v.astype(np.float32)).astype(np.int32)
    return v.astype(to)


def _expected(mode: int, x: Arr, y: Arr, ti: type[np.generic],
              to: type[np.generic]) -> tuple[Arr, Arr, Arr]:
    """(z, x and y after the launch) with every instruction run when issued: float lanes, each
    result rounded to its type."""

    def r(v: Arr) -> Arr:
        return np.asarray(v, np.float32).astype(ti)

    def f(v: Arr) -> Arr:
        return v.astype(np.float32)

    z = np.zeros(N, to)
    xa, ya = x.copy(), y.copy()
    if mode in (1, 4, 5):
        z = _conv(x, to)
        if mode == 5:
            xa = y.copy()
    elif mode == 2:
        z = _conv(r(f(r(f(x) * 2)) + 1), to)
    elif mode == 3:
        g = _conv(x, to)
        z = g + np.ones(1, to) if to is np.int32 else (g.astype(np.float32) + 1).astype(to)
    elif mode == 6:
        z = _conv(x, to)
    elif mode == 7:
        z[:N - 64] = _conv(x[64:], to)
    elif mode == 8:
        z = np.full(N, 3, to)
    elif mode == 9:
        z = _conv(r(f(x) + np.float32(0.25)), to)
    elif mode == 10:
        t = r(f(x) * 2)
        z = _conv(t, to)
        ya = r(f(t) + 1)
    elif mode == 11:
        z[:512] = _conv(x[:512], to)
        z[512:] = _conv(y[:N - 512], to)
        ya = r(f(x) * 3)
    elif mode == 12:
        z[:N - 3] = _conv(r(f(x) * 2), to)[:N - 3]
    elif mode == 13:
        ya[:N - 5] = r(f(r(f(x) * 2)) + 1)[:N - 5]
        xa[:1024] = r(f(y) * 3)[:1024]
        z = _conv(x, to)
    elif mode == 14:
        z = _conv(r(f(x) * 2), to)
        z[256:768] = 0  # z's GM as the launch found it
        xa = y.copy()
    return z, xa, ya


def _run(lib: rt.KernelLibrary, entry: str, mode: int, nodefer: int, x0: Arr,
         y0: Arr, to: type[np.generic]) -> tuple[Arr, Arr, Arr, Arr]:
    x, y = x0.copy(), y0.copy()
    z = np.zeros(N, to)
    w = np.zeros(8, np.int32)
    rt.launch(lib, entry, {"x": x, "y": y, "z": z, "w": w}, block_dim=1,
              tiling=LAYOUT.pack({"mode": mode, "n": N, "nodefer": nodefer}))
    return z, x, y, w


@pytest.mark.parametrize("entry", list(PAIRS))
@pytest.mark.parametrize("mode", MODES)
def test_a_recorded_cast_computes_as_if_it_ran_when_issued(lib: rt.KernelLibrary, entry: str,
                                                           mode: int) -> None:
    ti, to = PAIRS[entry]
    rng = np.random.default_rng(mode)
    x = (rng.standard_normal(N) * 50).astype(ti)
    y = (rng.standard_normal(N) * 50).astype(ti)
    deferred = _run(lib, entry, mode, 0, x, y, to)
    plain = _run(lib, entry, mode, 1, x, y, to)
    for got, ref, what in zip(deferred[:3], plain[:3], ("z", "x", "y"), strict=True):
        assert got.tobytes() == ref.tobytes(), f"{entry} mode {mode}: {what} differs with deferral"
    if mode == 4:
        assert deferred[3][1] == plain[3][1] == int(_conv(x, to)[7])
    z, xa, ya = _expected(mode, x, y, ti, to)
    np.testing.assert_array_equal(deferred[0], z)
    np.testing.assert_array_equal(deferred[1], xa)
    np.testing.assert_array_equal(deferred[2], ya)


@pytest.mark.parametrize("entry", list(PAIRS))
def test_a_cast_of_a_pending_copy_or_chain_is_recorded(lib: rt.KernelLibrary,
                                                       entry: str) -> None:
    """Before its store, mode 1 has three entries pending (the copies of x and y, and the cast
    program reading x's copy in GM) and mode 2 four (the copies, the Muls/Adds chain at t and the
    cast program continuing it at h); a Cast run when issued would have left two. A copy over
    the middle of that cast's result (mode 14) leaves both its ends recorded, as two entries,
    beside the copy: six. With deferral off nothing is pending."""
    ti, to = PAIRS[entry]
    x = np.linspace(-3, 3, N).astype(ti)
    y = np.ones(N, ti)
    for mode, pending in ((1, 3), (2, 4), (14, 6)):
        assert _run(lib, entry, mode, 0, x, y, to)[3][0] == pending
        assert _run(lib, entry, mode, 1, x, y, to)[3][0] == 0
