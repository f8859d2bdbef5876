"""A tensor used after FreeTensor. The NPU has no notion of a tensor's owner: it reads the buffer
as it is, which stays what was last written there until AllocTensor hands the buffer out again
and its new owner writes it (CANN's ops-nn rms_norm and add_rms_norm read their rstd and x a
little after CopyOut freed them). So by default the simulator gives those bytes, with work it
had deferred into the buffer (a copy not yet made, an element-wise program computed straight
into GM) done when the freed tensor is read, and one warning; strict mode refuses the use
(test_sim_rules.py)."""

from __future__ import annotations

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct FreedTilingData {
    uint32_t n;
};
REGISTER_TILING_DEFAULT(FreedTilingData);

extern "C" __global__ __aicore__ void freed(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const uint32_t n = t.n;
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(inQ, 1, n * sizeof(float));
    pipe.InitBuffer(outQ, 1, n * sizeof(float));
    pipe.InitBuffer(calc, n * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 2 * n);
    zGm.SetGlobalBuffer((__gm__ float*)z, 4 * n);
    LocalTensor<float> c = calc.Get<float>();

    LocalTensor<float> a = inQ.AllocTensor<float>();
    DataCopy(a, xGm, n);                  // a copy the simulator defers
    inQ.EnQue(a);
    a = inQ.DeQue<float>();
    LocalTensor<float> y = outQ.AllocTensor<float>();
    Adds(y, a, 1.0f, n);                  // a program over the deferred copy
    outQ.EnQue(y);
    y = outQ.DeQue<float>();
    DataCopy(zGm, y, n);                  // computed straight into GM
    outQ.FreeTensor(y);
    inQ.FreeTensor(a);

    Muls(c, a, 2.0f, n);                  // a after FreeTensor: x
    DataCopy(zGm[n], c, n);
    Muls(c, y, 3.0f, n);                  // y after FreeTensor: x + 1
    DataCopy(zGm[2 * n], c, n);

    LocalTensor<float> b = inQ.AllocTensor<float>();  // the same buffer, to a new owner
    DataCopy(b, xGm[n], n);
    inQ.EnQue(b);
    b = inQ.DeQue<float>();
    Adds(c, a, 0.0f, n);                  // the stale tensor now reads the new owner's data
    DataCopy(zGm[3 * n], c, n);
    inQ.FreeTensor(b);
}
"""

LAYOUT = rt.TilingLayout.from_fields("FreedTilingData", [("n", "uint32_t")])
N = 256


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = tmp_path_factory.mktemp("freed") / "freed.cpp"
    src.write_text(KERNEL)
    return rt.build_kernel(src, entry="freed")


def test_a_freed_tensor_reads_its_buffer_as_it_is(lib: rt.KernelLibrary,
                                                  capfd: pytest.CaptureFixture[str]) -> None:
    x = np.random.default_rng(3).standard_normal(2 * N).astype(np.float32)
    z = np.zeros(4 * N, np.float32)
    rt.launch(lib, "freed", {"x": x, "z": z}, block_dim=1, tiling=LAYOUT.pack({"n": N}))
    np.testing.assert_array_equal(z[:N], x[:N] + 1)
    np.testing.assert_array_equal(z[N:2 * N], x[:N] * 2)
    np.testing.assert_array_equal(z[2 * N:3 * N], (x[:N] + 1) * 3)
    np.testing.assert_array_equal(z[3 * N:], x[N:])
    assert "is used after FreeTensor" in capfd.readouterr().err
