"""Chains of deferred element-wise instructions (opgen_sim/deferred.h): an instruction reading a
recorded program's result extends that program, and a DataCopy(UB->GM) of the result computes
the whole chain straight into GM. Each mode mixes a chain with an access that must see (or must
not see) its steps; every run must equal, bit for bit, the same kernel with deferral off (it
calls GlobalTensor::GetPhyAddr first, which stops deferral for the block) and numpy doing each
instruction when issued, in float32 and in half."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

N = 2608  # several 4 KiB evaluation chunks in either type, and a tail

CHAIN_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct ChainTilingData {
    int32_t mode;
    int32_t n;
    int32_t nodefer;
};
REGISTER_TILING_DEFAULT(ChainTilingData);

constexpr int32_t MAX_N = 2608;

template <typename T, typename I>
__aicore__ inline void RunChain(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w,
                                const ChainTilingData& tl)
{
    const int32_t mode = tl.mode;
    const int32_t n = tl.n;
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA, bufB, bufC, bufT, bufU, bufE;
    TQue<QuePosition::VECIN, 1> que;
    pipe.InitBuffer(bufA, MAX_N * sizeof(T));
    pipe.InitBuffer(bufB, MAX_N * sizeof(T));
    pipe.InitBuffer(bufC, MAX_N * sizeof(T));
    pipe.InitBuffer(bufT, MAX_N * sizeof(T));
    pipe.InitBuffer(bufU, MAX_N * sizeof(T));
    pipe.InitBuffer(bufE, MAX_N * sizeof(T));
    pipe.InitBuffer(que, 1, MAX_N * sizeof(T));
    GlobalTensor<T> xGm, yGm, zGm, wGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    yGm.SetGlobalBuffer((__gm__ T*)y, n);
    zGm.SetGlobalBuffer((__gm__ T*)z, n);
    wGm.SetGlobalBuffer((__gm__ T*)w, n);
    if (tl.nodefer != 0) (void)xGm.GetPhyAddr();  // every instruction runs when issued
    LocalTensor<T> a = bufA.Get<T>(), b = bufB.Get<T>(), c = bufC.Get<T>();
    LocalTensor<T> t = bufT.Get<T>(), u = bufU.Get<T>(), e = bufE.Get<T>();
    Duplicate(c, static_cast<T>(-1.0f), n);
    Duplicate(e, static_cast<T>(-1.0f), n);
    DataCopy(a, xGm, n);
    DataCopy(b, yGm, n);
    bool zDone = false, wDone = false;
    if (mode == 1) {  // two steps, the second to another tensor
        Muls(t, a, static_cast<T>(2.0f), n);
        Adds(c, t, static_cast<T>(1.0f), n);
    } else if (mode == 2) {  // the fused chain's six steps, in place, then to the output
        Add(t, a, b, n);
        LeakyRelu(t, t, static_cast<T>(0.1f), n);
        Muls(t, t, static_cast<T>(2.0f), n);
        Adds(t, t, static_cast<T>(0.5f), n);
        Maxs(t, t, static_cast<T>(0.0f), n);
        Mins(c, t, static_cast<T>(6.0f), n);
    } else if (mode == 3) {  // binary steps: copied operand on either side, the result twice
        Muls(t, a, static_cast<T>(3.0f), n);
        Sub(t, b, t, n);
        Mul(t, t, t, n);
        Add(c, t, a, n);
    } else if (mode == 4) {  // a UB operand no one writes
        Duplicate(u, static_cast<T>(0.25f), n);
        Muls(t, a, static_cast<T>(2.0f), n);
        Mul(t, t, u, n);
        Adds(c, t, static_cast<T>(1.0f), n);
    } else if (mode == 5) {  // a UB operand overwritten in the middle of the chain
        Duplicate(u, static_cast<T>(0.25f), n);
        Add(t, a, u, n);
        Muls(t, t, static_cast<T>(3.0f), n);
        Duplicate(u, static_cast<T>(4.0f), n);
        Mul(c, t, u, n);
    } else if (mode == 6) {  // the GM the chain reads overwritten in the middle of the chain
        Muls(t, a, static_cast<T>(2.0f), n);
        Adds(t, t, static_cast<T>(1.0f), n);
        DataCopy(xGm, b, n);
        Adds(c, t, static_cast<T>(1.0f), n);
    } else if (mode == 7) {  // an intermediate read element by element, then stored
        Muls(t, a, static_cast<T>(2.0f), n);
        Adds(t, t, static_cast<T>(1.0f), n);
        Mins(c, t, static_cast<T>(1.0f), n);
        for (int32_t i = 0; i < n; ++i) e.SetValue(i, t.GetValue(i));
        Maxs(t, t, static_cast<T>(0.0f), n);
        DataCopy(yGm, t, n);
    } else if (mode == 8) {  // parts of a chain's range, and a step on part of it in place
        Muls(t, a, static_cast<T>(2.0f), n);
        Adds(c, t[256], static_cast<T>(1.0f), 512);
        Adds(c[1024], t, static_cast<T>(3.0f), 256);
        Muls(t, t, static_cast<T>(5.0f), 128);
        DataCopy(e, t, n);
    } else if (mode == 9) {  // a masked instruction in the middle
        Muls(t, a, static_cast<T>(2.0f), n);
        Adds(t, t, static_cast<T>(100.0f), static_cast<uint64_t>(32), 2, {1, 1, 8, 8});
        Adds(t, t, static_cast<T>(1.0f), n);
        Mins(c, t, static_cast<T>(50.0f), n);
    } else if (mode == 10) {  // a step in place on a range another chain was taken from
        Muls(t, a, static_cast<T>(2.0f), n);
        Adds(c, t, static_cast<T>(1.0f), n);
        Muls(t, t, static_cast<T>(10.0f), n);
        DataCopy(e, t, n);
    } else if (mode == 11) {  // a UB operand freed, its buffer reused
        LocalTensor<T> q = que.AllocTensor<T>();
        Duplicate(q, static_cast<T>(3.0f), n);
        Mul(t, a, q, n);
        que.FreeTensor(q);
        LocalTensor<T> q2 = que.AllocTensor<T>();
        Duplicate(q2, static_cast<T>(100.0f), n);
        Adds(c, t, static_cast<T>(1.0f), n);
        DataCopy(wGm, t, n);
        wDone = true;
        que.FreeTensor(q2);
    } else if (mode == 12) {  // longer than a program holds
        Add(t, a, b, n);
        for (int32_t k = 0; k < 6; ++k) {
            Adds(t, t, static_cast<T>(0.125f), n);
            Muls(t, t, static_cast<T>(0.5f), n);
        }
        Muls(c, t, static_cast<T>(1.0f), n);
    } else if (mode == 13) {  // dst is the chain's own UB operand
        Duplicate(u, static_cast<T>(2.0f), n);
        Add(t, a, u, n);
        Mul(u, t, u, n);
        Adds(c, u, static_cast<T>(1.0f), n);
    } else if (mode == 14) {  // a chain stored over the GM it reads, then extended
        Muls(t, a, static_cast<T>(2.0f), n);
        Adds(t, t, static_cast<T>(1.0f), n);
        DataCopy(xGm, t, n);
        Adds(c, t, static_cast<T>(1.0f), n);
    } else if (mode == 15) {  // two chains joined by one instruction
        Muls(t, a, static_cast<T>(2.0f), n);
        Adds(u, b, static_cast<T>(1.0f), n);
        Mul(c, t, u, n);
    } else if (mode == 16) {  // one chain as both operands, at different offsets
        Muls(t, a, static_cast<T>(2.0f), n);
        Add(c, t, t[512], 1024);
    } else if (mode == 17) {  // a chain's range read through another type
        Muls(t, a, static_cast<T>(-1.0f), n);
        LocalTensor<I> ti = t.template ReinterpretCast<I>();
        LocalTensor<I> ci = c.template ReinterpretCast<I>();
        Adds(ci, ti, static_cast<I>(1), n);
    } else if (mode == 18) {  // a chain stored in two parts, the first at an offset
        Muls(t, a, static_cast<T>(2.0f), n);
        Adds(t, t, static_cast<T>(1.0f), n);
        DataCopy(zGm[1040], t[1040], n - 1040);
        DataCopy(zGm, t, 1040);
        zDone = true;
    } else if (mode == 19) {  // a copy into the chain's UB operand
        Duplicate(u, static_cast<T>(0.5f), n);
        Add(t, a, u, n);
        DataCopy(u, yGm, n);
        e.SetValue(0, u.GetValue(0));  // the copy lands in UB now
        Mul(c, t, u, n);
    } else if (mode == 20) {  // a recorded instruction writing the chain's UB operand
        Duplicate(u, static_cast<T>(0.5f), n);
        Add(t, a, u, n);
        Muls(u, b, static_cast<T>(2.0f), n);
        DataCopy(e, u, n);  // u's own chain lands in UB now
        Mul(c, t, u, n);
    }
    if (!zDone) DataCopy(zGm, c, n);
    if (!wDone) DataCopy(wGm, e, n);
}

extern "C" __global__ __aicore__ void chain_f32(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w,
                                                GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tl, tiling);
    RunChain<float, int32_t>(x, y, z, w, tl);
}

extern "C" __global__ __aicore__ void chain_f16(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w,
                                                GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tl, tiling);
    RunChain<half, int16_t>(x, y, z, w, tl);
}
"""

LAYOUT = rt.TilingLayout.from_fields(
    "ChainTilingData", [("mode", "int32_t"), ("n", "int32_t"), ("nodefer", "int32_t")])
MODES = range(1, 21)
Arr = np.ndarray


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("chain")) / "chain.cpp"
    src.write_text(CHAIN_CPP)
    return rt.build_kernel(src, entry="chain_f32")


class Lanes:
    """Each instruction as the simulator's lanes do it: float lanes for both types, the result
    rounded to the element type once."""

    def __init__(self, dtype: type[np.floating]) -> None:
        self.dt = np.dtype(dtype)

    def r(self, v: Arr) -> Arr:
        return np.asarray(v, np.float32).astype(self.dt)

    def s(self, v: float) -> np.float32:
        return np.float32(self.dt.type(v))

    def f(self, v: Arr) -> Arr:
        return v.astype(np.float32)

    def muls(self, v: Arr, k: float) -> Arr:
        return self.r(self.f(v) * self.s(k))

    def adds(self, v: Arr, k: float) -> Arr:
        return self.r(self.f(v) + self.s(k))

    def maxs(self, v: Arr, k: float) -> Arr:
        return self.r(np.where(self.f(v) > self.s(k), self.f(v), self.s(k)))

    def mins(self, v: Arr, k: float) -> Arr:
        return self.r(np.where(self.f(v) < self.s(k), self.f(v), self.s(k)))

    def leaky(self, v: Arr, k: float) -> Arr:
        return self.r(np.where(self.f(v) >= 0, self.f(v), self.f(v) * self.s(k)))

    def bin(self, op: Callable[[Arr, Arr], Arr], p: Arr, q: Arr) -> Arr:
        return self.r(op(self.f(p), self.f(q)))


def _expected(mode: int, x: Arr, y: Arr, dt: type[np.floating]) -> tuple[Arr, Arr, Arr, Arr]:
    """(z, w, x and y after the launch) with every instruction run when issued."""
    L = Lanes(dt)
    z = np.full(N, -1.0, dt)
    w = np.full(N, -1.0, dt)
    xa, ya = x.copy(), y.copy()

    def full(k: float) -> Arr:
        return np.full(N, k, dt)

    if mode == 1:
        z = L.adds(L.muls(x, 2), 1)
    elif mode == 2:
        t = L.bin(np.add, x, y)
        z = L.mins(L.maxs(L.adds(L.muls(L.leaky(t, 0.1), 2), 0.5), 0), 6)
    elif mode == 3:
        t = L.bin(np.subtract, y, L.muls(x, 3))
        z = L.bin(np.add, L.bin(np.multiply, t, t), x)
    elif mode == 4:
        z = L.adds(L.bin(np.multiply, L.muls(x, 2), full(0.25)), 1)
    elif mode == 5:
        t = L.muls(L.bin(np.add, x, full(0.25)), 3)
        z = L.bin(np.multiply, t, full(4))
    elif mode == 6:
        z = L.adds(L.adds(L.muls(x, 2), 1), 1)
        xa = y.copy()
    elif mode == 7:
        t = L.adds(L.muls(x, 2), 1)
        z, w, ya = L.mins(t, 1), t, L.maxs(t, 0)
    elif mode == 8:
        t = L.muls(x, 2)
        z[:512] = L.adds(t[256:768], 1)
        z[1024:1280] = L.adds(t[:256], 3)
        w = t.copy()
        w[:128] = L.muls(t[:128], 5)
    elif mode == 9:
        t = L.muls(x, 2)
        per = 256 // np.dtype(dt).itemsize
        for r in range(2):
            t[r * per:r * per + 32] = L.adds(t[r * per:r * per + 32], 100)
        z = L.mins(L.adds(t, 1), 50)
    elif mode == 10:
        t = L.muls(x, 2)
        z, w = L.adds(t, 1), L.muls(t, 10)
    elif mode == 11:
        t = L.bin(np.multiply, x, full(3))
        z, w = L.adds(t, 1), t
    elif mode == 12:
        t = L.bin(np.add, x, y)
        for _ in range(6):
            t = L.muls(L.adds(t, 0.125), 0.5)
        z = L.muls(t, 1)
    elif mode == 13:
        z = L.adds(L.bin(np.multiply, L.bin(np.add, x, full(2)), full(2)), 1)
    elif mode == 14:
        xa = L.adds(L.muls(x, 2), 1)
        z = L.adds(xa, 1)
    elif mode == 15:
        z = L.bin(np.multiply, L.muls(x, 2), L.adds(y, 1))
    elif mode == 16:
        t = L.muls(x, 2)
        z[:1024] = L.bin(np.add, t[:1024], t[512:1536])
    elif mode == 17:
        bits = L.muls(x, -1).view(np.int32 if dt == np.float32 else np.int16)
        z = (bits + np.ones(1, bits.dtype)).view(dt)
    elif mode == 18:
        z = L.adds(L.muls(x, 2), 1)
    elif mode == 19:
        z = L.bin(np.multiply, L.bin(np.add, x, full(0.5)), y)
        w[0] = y[0]
    elif mode == 20:
        z, w = L.bin(np.multiply, L.bin(np.add, x, full(0.5)), L.muls(y, 2)), L.muls(y, 2)
    return z, w, xa, ya


def _run(lib: rt.KernelLibrary, entry: str, mode: int, nodefer: int, x0: Arr,
         y0: Arr) -> tuple[Arr, Arr, Arr, Arr]:
    x, y = x0.copy(), y0.copy()
    z = np.zeros(N, x0.dtype)
    w = np.zeros(N, x0.dtype)
    rt.launch(lib, entry, {"x": x, "y": y, "z": z, "w": w}, block_dim=1,
              tiling=LAYOUT.pack({"mode": mode, "n": N, "nodefer": nodefer}))
    return z, w, x, y


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float", "half"])
@pytest.mark.parametrize("mode", MODES)
def test_chains_compute_as_if_each_instruction_ran_when_issued(
        lib: rt.KernelLibrary, mode: int, dtype: type[np.floating]) -> None:
    rng = np.random.default_rng(100 + mode)
    x0 = (rng.standard_normal(N) * 3).astype(dtype)
    y0 = (rng.standard_normal(N) * 3).astype(dtype)
    entry = "chain_f32" if dtype == np.float32 else "chain_f16"
    deferred = _run(lib, entry, mode, 0, x0, y0)
    direct = _run(lib, entry, mode, 1, x0, y0)
    want = _expected(mode, x0, y0, dtype)
    for name, got, ref, exp in zip("zwxy", deferred, direct, want, strict=True):
        assert got.tobytes() == ref.tobytes(), f"{name}: deferred differs from direct"
        assert got.tobytes() == exp.tobytes(), f"{name}: differs from numpy"


def test_chains_still_count_every_instruction(lib: rt.KernelLibrary) -> None:
    """The profile reports each instruction issued, whether it ran or joined a chain."""
    x = np.ones(N, np.float32)
    prof = rt.launch(lib, "chain_f32", {"x": x, "y": x.copy(), "z": np.zeros(N, np.float32),
                                        "w": np.zeros(N, np.float32)},
                     block_dim=1, tiling=LAYOUT.pack({"mode": 2, "n": N, "nodefer": 0}))
    assert prof.vector_instructions == 8  # 2 Duplicate, Add, LeakyRelu, Muls, Adds, Maxs, Mins
    assert prof.gm_to_ub_bytes == 2 * N * 4
    assert prof.ub_to_gm_bytes == 2 * N * 4
