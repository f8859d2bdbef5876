"""The queue state machine as CANN's TQue implements it (Ascend C reference, "TQue/EnQue" and
"TQue/DeQue"): a tensor taken out with DeQue may be put back with EnQue and taken out again,
which CANN's own samples do (DeQue, compute in place, EnQue for the copy-out stage)."""

from __future__ import annotations

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct RequeueTilingData {
    uint32_t n;
    uint32_t twice;
};
REGISTER_TILING_DEFAULT(RequeueTilingData);

extern "C" __global__ __aicore__ void requeue(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                              GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> que;
    pipe.InitBuffer(que, 1, t.n * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * t.n, t.n);
    zGm.SetGlobalBuffer((__gm__ float*)z + GetBlockIdx() * t.n, t.n);
    LocalTensor<float> a = que.AllocTensor<float>();
    DataCopy(a, xGm, t.n);
    que.EnQue(a);
    LocalTensor<float> b = que.DeQue<float>();
    Muls(b, b, 2.0f, t.n);
    que.EnQue(b);                       // back into the queue after DeQue
    LocalTensor<float> c = que.DeQue<float>();
    Adds(c, c, 1.0f, t.n);
    if (t.twice != 0) {
        que.EnQue(c);
        que.EnQue(c);                   // a tensor already in the queue: an error
    }
    DataCopy(zGm, c, t.n);
    que.FreeTensor(c);
}
"""

LAYOUT = rt.TilingLayout.from_fields(
    "RequeueTilingData", [("n", "uint32_t"), ("twice", "uint32_t")])
N = 64


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = tmp_path_factory.mktemp("requeue") / "requeue.cpp"
    src.write_text(KERNEL)
    return rt.build_kernel(src, entry="requeue")


def test_enque_after_deque_is_allowed(lib: rt.KernelLibrary) -> None:
    x = rt.gm_empty(2 * N, np.float32)
    x[...] = np.arange(2 * N, dtype=np.float32)
    z = rt.gm_empty(2 * N, np.float32)
    rt.launch(lib, "requeue", [x, z], block_dim=2, tiling=LAYOUT.pack({"n": N, "twice": 0}))
    np.testing.assert_array_equal(z, x * 2 + 1)


def test_enque_of_a_queued_tensor_is_an_error(lib: rt.KernelLibrary) -> None:
    x = rt.gm_empty(N, np.float32)
    z = rt.gm_empty(N, np.float32)
    with pytest.raises(rt.QueueError,
                       match=r"TQue::EnQue: the tensor is already in the queue") as info:
        rt.launch(lib, "requeue", [x, z], block_dim=1, tiling=LAYOUT.pack({"n": N, "twice": 1}))
    line = next(i for i, text in enumerate(KERNEL.splitlines(), 1) if "an error" in text)
    assert f"requeue.cpp:{line}" in str(info.value)
