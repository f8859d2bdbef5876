"""Deferred work (opgen_sim/deferred.h): the simulator may postpone a DataCopy(GM->UB) and an
element-wise instruction on GM sources, compute a DataCopy(UB->GM) of its result straight into
GM and drop what nobody read, but every kernel must compute exactly what it computes with each
instruction run when issued. Each mode below mixes deferred work with an access that must see
(or must not see) its result."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

N = 256

DEFERRED_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct DeferredTilingData {
    int32_t mode;
};
REGISTER_TILING_DEFAULT(DeferredTilingData);

extern "C" __global__ __aicore__ void deferred(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                               GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const int32_t mode = t.mode;
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA, bufB, bufC;
    TQue<QuePosition::VECIN, 1> que;
    pipe.InitBuffer(bufA, 256 * sizeof(float));
    pipe.InitBuffer(bufB, 256 * sizeof(float));
    pipe.InitBuffer(bufC, 256 * sizeof(float));
    pipe.InitBuffer(que, 1, 256 * sizeof(float));
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 256);
    yGm.SetGlobalBuffer((__gm__ float*)y, 256);
    zGm.SetGlobalBuffer((__gm__ float*)z, 256);
    LocalTensor<float> a = bufA.Get<float>(), b = bufB.Get<float>(), c = bufC.Get<float>();
    Duplicate(c, -1.0f, 256);
    if (mode == 1) {  // the kernel overwrites the GM it copied from before reading the copy
        DataCopy(a, xGm, 256);
        Duplicate(b, 7.0f, 256);
        DataCopy(xGm, b, 256);
        Adds(c, a, 1.0f, 256);
    } else if (mode == 2) {  // ... with an atomic add
        DataCopy(a, xGm, 256);
        Duplicate(b, 7.0f, 256);
        SetAtomicAdd<float>();
        DataCopy(xGm, b, 256);
        SetAtomicNone();
        Adds(c, a, 1.0f, 256);
    } else if (mode == 3) {  // ... element by element
        DataCopy(a, xGm, 256);
        xGm.SetValue(3, 100.0f);
        Muls(c, a, 2.0f, 256);
    } else if (mode == 4) {  // scalar reads of the copied tensor
        DataCopy(a, xGm, 256);
        for (int32_t i = 0; i < 256; ++i) c.SetValue(i, a.GetValue(i) * 3.0f);
    } else if (mode == 5) {  // a second copy over part of the first
        DataCopy(a, xGm, 256);
        DataCopy(a[64], yGm, 128);
        Adds(c, a, 0.0f, 256);
    } else if (mode == 6) {  // UB -> UB copy of a copied tensor
        DataCopy(a, xGm, 256);
        DataCopy(c, a, 256);
    } else if (mode == 7) {  // dst overlapping the source at an offset: the loop's order
        DataCopy(a, xGm, 256);
        Add(a[8], a, a, 128);
        DataCopy(c, a, 256);
    } else if (mode == 8) {  // more copies outstanding than the simulator records
        for (int32_t k = 0; k < 32; ++k) DataCopy(a[8 * k], xGm[8 * k], 8);
        Muls(c, a, 1.0f, 256);
    } else if (mode == 9) {  // a freed buffer reused: the new copy's data, not the old
        LocalTensor<float> q = que.AllocTensor<float>();
        DataCopy(q, xGm, 256);
        que.EnQue(q);
        q = que.DeQue<float>();
        que.FreeTensor(q);
        LocalTensor<float> r = que.AllocTensor<float>();
        DataCopy(r, yGm, 128);
        que.EnQue(r);
        r = que.DeQue<float>();
        Adds(c, r, 0.0f, 128);
        que.FreeTensor(r);
    } else if (mode == 10) {  // one copy read by two instructions, then written in place
        DataCopy(a, xGm, 256);
        Add(b, a, a, 256);
        Mul(a, a, b, 256);
        DataCopy(c, a, 256);
    } else if (mode == 11) {  // a sub-range of a copy, and a source straddling two copies
        DataCopy(a, xGm, 128);
        DataCopy(a[128], yGm, 128);
        Muls(b, a[32], 2.0f, 64);
        Adds(c, a[64], 0.0f, 128);
        DataCopy(c[192], b, 64);
    } else if (mode == 12) {  // a deferred result stored over its own source, then read again
        DataCopy(a, xGm, 256);
        Adds(b, a, 1.0f, 256);
        DataCopy(xGm, b, 256);
        Muls(c, b, 2.0f, 256);
    } else if (mode == 13) {  // the source of a deferred result overwritten before the store
        DataCopy(a, xGm, 256);
        Adds(b, a, 1.0f, 256);
        Duplicate(c, 0.0f, 64);
        DataCopy(xGm, c, 64);
        DataCopy(c, b, 256);
    } else if (mode == 14) {  // stored in two parts, then freed unread
        LocalTensor<float> q = que.AllocTensor<float>();
        DataCopy(a, xGm, 256);
        Muls(q, a, 3.0f, 256);
        DataCopy(yGm[128], q[128], 128);
        DataCopy(yGm, q, 128);
        que.FreeTensor(q);
    } else if (mode == 15) {  // stored with an atomic add: not computed into GM directly
        DataCopy(a, xGm, 256);
        Adds(b, a, 1.0f, 256);
        SetAtomicAdd<float>();
        DataCopy(yGm, b, 256);
        SetAtomicNone();
    } else if (mode == 16) {  // a deferred result read element by element
        DataCopy(a, xGm, 256);
        DataCopy(b, yGm, 256);
        Sub(b, a, b, 256);
        for (int32_t i = 0; i < 256; ++i) c.SetValue(i, b.GetValue(i));
    } else if (mode == 17) {  // a copy over the head of a deferred result: its tail still counts
        DataCopy(a, xGm, 256);
        Adds(b, a, 1.0f, 256);
        DataCopy(b, yGm, 96);
        DataCopy(c, b, 256);
    } else if (mode == 18) {  // ... over its middle: its head and its tail still count
        DataCopy(a, xGm, 256);
        Muls(b, a, 2.0f, 256);
        DataCopy(b[64], yGm, 64);
        Adds(c, b, 0.0f, 256);
    } else if (mode == 19) {  // a shorter copy into a freed buffer (a block's last tile): the
        // earlier copy's bytes past it are still there to read
        LocalTensor<float> q = que.AllocTensor<float>();
        DataCopy(q, xGm, 256);
        que.EnQue(q);
        q = que.DeQue<float>();
        Muls(b, q, 3.0f, 256);
        DataCopy(yGm, b, 256);
        que.FreeTensor(q);
        LocalTensor<float> r = que.AllocTensor<float>();
        DataCopy(r, yGm[8], 96);
        que.EnQue(r);
        r = que.DeQue<float>();
        DataCopy(b[32], xGm, 64);
        Adds(c, r, 0.0f, 256);
        que.FreeTensor(r);
        DataCopy(yGm, b, 256);
    } else if (mode == 20) {  // a copy's tail still recorded when the GM it reads is written
        DataCopy(a, xGm, 256);
        DataCopy(a, yGm, 96);
        Duplicate(b, 7.0f, 256);
        DataCopy(xGm, b, 256);
        Adds(c, a, 0.0f, 256);
    } else if (mode == 21) {  // a result's head and tail still recorded when its source changes
        DataCopy(a, xGm, 256);
        Muls(b, a, 2.0f, 256);
        DataCopy(b[64], yGm, 64);
        Duplicate(c, 5.0f, 256);
        DataCopy(xGm, c, 256);
        Adds(c, b, 0.0f, 256);
    } else if (mode == 22) {  // a copy cut in its middle while the list is full
        Duplicate(b, 0.0f, 256);
        DataCopy(a, xGm, 256);
        for (int32_t k = 0; k < 31; ++k) DataCopy(b[8 * k], yGm[8 * k], 8);
        DataCopy(a[64], yGm[128], 64);
        Add(c, a, b, 256);
    } else if (mode == 23) {  // DataCopyPad's one burst, its GM written before the read
        DataCopyPad(a, xGm, DataCopyExtParams{1, 256 * sizeof(float), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0});
        Duplicate(b, 7.0f, 256);
        DataCopy(xGm, b, 256);
        Adds(c, a, 1.0f, 256);
    } else if (mode == 24) {  // ... over the head of a deferred copy, the whole then read
        DataCopy(a, yGm, 256);
        DataCopyPad(a, xGm, DataCopyExtParams{1, 128 * sizeof(float), 0, 0, 0},
                    DataCopyPadExtParams<float>{true, 0, 0, 5.0f});
        Muls(c, a, 2.0f, 256);
    }
    DataCopy(zGm, c, 256);
}
"""

LAYOUT = rt.TilingLayout.from_fields("DeferredTilingData", [("mode", "int32_t")])


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("deferred")) / "deferred.cpp"
    src.write_text(DEFERRED_CPP)
    return rt.build_kernel(src, entry="deferred")


def _expected(mode: int, x: np.ndarray,
              y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(z, x and y after the launch) computed with every instruction run when issued."""
    z = np.full(N, -1.0, np.float32)
    x_after = x.copy()
    y_after = y.copy()
    if mode == 1:
        z, x_after = x + 1, np.full(N, 7.0, np.float32)
    elif mode == 2:
        z, x_after = x + 1, x + 7
    elif mode == 3:
        z = x * 2
        x_after[3] = 100
    elif mode == 4:
        z = x * 3
    elif mode == 5:
        a = x.copy()
        a[64:192] = y[:128]
        z = a
    elif mode == 6:
        z = x.copy()
    elif mode == 7:
        a = x.copy()
        for i in range(128):
            a[8 + i] = a[i] + a[i]
        z = a
    elif mode == 8:
        z = x.copy()
    elif mode == 9:
        z[:128] = y[:128]
    elif mode == 10:
        z = x * (x + x)
    elif mode == 11:
        a = np.concatenate([x[:128], y[:128]])
        z[:128] = a[64:192]
        z[192:] = a[32:96] * 2
    elif mode == 12:
        x_after = x + 1
        z = (x + 1) * 2
    elif mode == 13:
        x_after[:64] = 0
        z = x + 1
    elif mode == 14:
        y_after = x * 3
    elif mode == 15:
        y_after = y + (x + 1)
    elif mode == 16:
        z = x - y
    elif mode == 17:
        z = np.concatenate([y[:96], (x + 1)[96:]])
    elif mode == 18:
        z = x * 2
        z[64:128] = y[:64]
    elif mode == 19:
        b = x * 3
        z = np.concatenate([b[8:104], x[96:]])  # the new copy reads y after the store of b
        b[32:96] = x[:64]
        y_after = b
    elif mode == 20:
        z = np.concatenate([y[:96], x[96:]])
        x_after = np.full(N, 7.0, np.float32)
    elif mode == 21:
        z = x * 2
        z[64:128] = y[:64]
        x_after = np.full(N, 5.0, np.float32)
    elif mode == 22:
        a = x.copy()
        a[64:128] = y[128:192]
        b = np.zeros(N, np.float32)
        b[:248] = y[:248]
        z = a + b
    elif mode == 23:
        z, x_after = x + 1, np.full(N, 7.0, np.float32)
    elif mode == 24:
        z = np.concatenate([x[:128], y[128:]]) * 2
    return (z.astype(np.float32), x_after.astype(np.float32), y_after.astype(np.float32))


@pytest.mark.parametrize("mode", range(1, 25))
def test_deferred_copies_compute_as_if_done_when_issued(lib: rt.KernelLibrary, mode: int) -> None:
    rng = np.random.default_rng(mode)
    x = rng.standard_normal(N).astype(np.float32)
    y = rng.standard_normal(N).astype(np.float32)
    x0, y0 = x.copy(), y.copy()
    z = np.zeros(N, np.float32)
    rt.launch(lib, "deferred", {"x": x, "y": y, "z": z}, block_dim=1,
              tiling=LAYOUT.pack({"mode": mode}))
    want_z, want_x, want_y = _expected(mode, x0, y0)
    np.testing.assert_array_equal(z, want_z)
    np.testing.assert_array_equal(x, want_x)
    np.testing.assert_array_equal(y, want_y)


def test_deferred_copies_still_count_as_moved(lib: rt.KernelLibrary) -> None:
    """The profile reports the copies and instructions the kernel issued, run or deferred."""
    x = np.ones(N, np.float32)
    prof = rt.launch(lib, "deferred", {"x": x, "y": x.copy(), "z": np.zeros(N, np.float32)},
                     block_dim=1, tiling=LAYOUT.pack({"mode": 10}))
    assert prof.gm_to_ub_bytes == N * 4
    assert prof.ub_to_gm_bytes == N * 4
    assert prof.vector_instructions == 3  # Duplicate, Add, Mul
