"""A reduction's destination needs only its result's alignment (Ascend C reference,
ReduceRepeat table 3), not the 32 bytes of other UB operands: CANN's layer-norm sample reduces
rows into consecutive floats of one buffer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void row_sums(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                               GM_ADDR tiling)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096);
    LocalTensor<float> all = buf.Get<float>();
    LocalTensor<float> src = all;          // 8 rows of 8 floats, each row 32-byte aligned
    LocalTensor<float> work = all[256];
    LocalTensor<float> sums = all[512];    // row i's sum at sums[i]: 4-byte steps
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 64);
    yg.SetGlobalBuffer((__gm__ float*)y, 8);
    DataCopy(src, xg, 64);
    for (int32_t i = 0; i < 8; ++i) {
        ReduceSum(sums[i], src[i * 8], work, 8);
    }
    DataCopy(yg, sums, 8);
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src: Path = tmp_path_factory.mktemp("reduce_dst") / "row_sums.cpp"
    src.write_text(KERNEL)
    return rt.build_kernel(src, entry="row_sums")


def test_reduce_sum_into_consecutive_floats(lib: rt.KernelLibrary) -> None:
    x = (np.arange(64, dtype=np.float32) - 20.0) / 4
    y = np.zeros(8, np.float32)
    rt.launch(lib, "row_sums", {"x": x, "y": y}, block_dim=1, tiling=b"")
    np.testing.assert_array_equal(y, x.reshape(8, 8).sum(axis=1))
