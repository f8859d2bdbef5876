"""The whole-tensor operator form of Add/Sub/Mul/Div (`dst = a + b`): the count is the
destination LocalTensor's length, and the form keeps the count form's rules."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct OpsTilingData {
    int32_t mode;
};
REGISTER_TILING_DEFAULT(OpsTilingData);

extern "C" __global__ __aicore__ void ops(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4 * 256 * sizeof(float));
    GlobalTensor<float> xf, zf;
    xf.SetGlobalBuffer((__gm__ float*)x, 512);
    zf.SetGlobalBuffer((__gm__ float*)z, 1024);
    LocalTensor<float> all = buf.Get<float>();
    LocalTensor<float> a = all[0], b = all[256], d = all[512];
    a.SetSize(256);
    b.SetSize(256);
    d.SetSize(64);                        // only dst's 64 elements are computed
    DataCopy(a, xf, 256);
    DataCopy(b, xf[256], 256);
    Duplicate(all[512], -1.0f, 512);
    if (t.mode == 0) {
        d = a + b;
        d[8] = a - b;                     // a sub-tensor: its own length, 56
        DataCopy(zf, all[512], 64);
        LocalTensor<float> e = all[768];
        e.SetSize(32);
        e = a * b;
        DataCopy(zf[64], e, 32);
        e = a / b;
        DataCopy(zf[96], e, 32);
    }
    if (t.mode == 1) {
        LocalTensor<float> big = all[256];
        big.SetSize(512);                 // past a's 256 elements
        big = a + a;
    }
}
"""

LAYOUT = rt.TilingLayout.from_fields("OpsTilingData", [("mode", "int32_t")])


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("tensor_ops")) / "ops.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry="ops")


def run(lib: rt.KernelLibrary, mode: int, x: np.ndarray) -> np.ndarray:
    out = np.zeros(1024, np.float32)
    rt.launch(lib, "ops", {"x": x, "z": out}, block_dim=1, tiling=LAYOUT.pack({"mode": mode}))
    return out


def test_operators_count_the_destination(ops: rt.KernelLibrary) -> None:
    x = np.random.default_rng(3).uniform(1, 2, 512).astype(np.float32)
    a, b = x[:256], x[256:]
    z = run(ops, 0, x)
    np.testing.assert_array_equal(z[:8], (a + b)[:8])
    np.testing.assert_array_equal(z[8:64], (a - b)[:56])
    np.testing.assert_array_equal(z[64:96], (a * b)[:32])
    np.testing.assert_array_equal(z[96:128], (a / b)[:32])


def test_operator_keeps_the_count_rules(ops: rt.KernelLibrary,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    with pytest.raises(rt.LocalMemoryOutOfBounds, match=re.escape("block 0: Add")):
        run(ops, 1, np.ones(512, np.float32))
