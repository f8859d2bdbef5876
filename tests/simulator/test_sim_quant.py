"""AscendQuant (opgen_sim/quant.h) with a scale and an offset for the whole tensor, against a
numpy model of CANN's A2 steps in half; the per-channel forms stop the build saying they are not
simulated. Each test names the Ascend C API reference page it checks (AscendQuant.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

N = 256

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void quant_kernel(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                                   GM_ADDR tiling)
{
    using T = DTYPE_X;
    const int32_t mode = *reinterpret_cast<const int32_t*>(tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bz, bt;
    pipe.InitBuffer(bx, 256 * sizeof(T));
    pipe.InitBuffer(bz, 256);
    pipe.InitBuffer(bt, 1024);
    GlobalTensor<T> xGm;
    GlobalTensor<int8_t> zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, 256);
    zGm.SetGlobalBuffer((__gm__ int8_t*)z, 256);
    LocalTensor<T> src = bx.Get<T>();
    LocalTensor<int8_t> dst = bz.Get<int8_t>();
    DataCopy(src, xGm, 256);
    Duplicate(dst.ReinterpretCast<int16_t>(), (int16_t)0x5555, 128);
    if (mode == 0) AscendQuant<T>(dst, src, 2.0f, 0.9f, 256);
    if (mode == 1) AscendQuant<T>(dst, src, bt.Get<uint8_t>(), 0.37f, -3.3f, 160);
    if (mode == 2) AscendQuant<T>(dst, src, bt.Get<uint8_t>(), 1.5f, 0.25f);
    if (mode == 3) AscendQuant<T>(dst, src, 3.0f, 0.0f);
    PER_CHANNEL
    DataCopy(zGm, dst, 256);
}
"""


def _model(x: np.ndarray, scale: float, offset: float) -> np.ndarray:
    f16, f32 = np.float16, np.float32
    h = x.astype(f16)
    h = (h.astype(f32) * f32(f16(scale))).astype(f16)
    h = (h.astype(f32) + f32(f16(offset))).astype(f16)
    return np.clip(np.rint(h.astype(f32)), -128, 127).astype(np.int8)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = Path(tmp_path_factory.mktemp("quant")) / "quant.cpp"
    src.write_text(KERNEL.replace("PER_CHANNEL", ""))
    return src


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize(("mode", "scale", "offset", "count"),
                         [(0, 2.0, 0.9, 256), (1, 0.37, -3.3, 160), (2, 1.5, 0.25, 256),
                          (3, 3.0, 0.0, 256)])
def test_per_tensor_quant_runs_canns_half_steps(source: Path, dtype: str, mode: int, scale: float,
                                                offset: float, count: int) -> None:
    """AscendQuant.md (per tensor): int8(round(x * scale + offset)) in CANN's A2 steps, each a
    half instruction (a float source cast to half first), rounding to nearest even and
    saturating; calCount limits the lanes written."""
    lib = rt.build_kernel(source, entry="quant_kernel", defines=rt.dtype_defines({"x": dtype}))
    rng = np.random.default_rng(mode)
    x = rt.gm_empty(N, dtype)
    x[:] = (rng.standard_normal(N) * 40).astype(dtype)
    x[:4] = [0.5, 1.5, -2.5, 1000.0]
    z = rt.gm_empty(N, np.int8)
    rt.launch(lib, "quant_kernel", [x, z], block_dim=1,
              tiling=np.array([mode, 0], np.int32).tobytes())
    got = np.asarray(z)
    np.testing.assert_array_equal(got[:count], _model(np.asarray(x)[:count], scale, offset))
    assert (got[count:] == 0x55).all()


def test_per_channel_quant_is_a_compile_error_saying_why(tmp_path: Path) -> None:
    """AscendQuant.md (per channel, a scale tensor): not simulated yet, said at build time."""
    src = tmp_path / "quant_pc.cpp"
    src.write_text(KERNEL.replace("PER_CHANNEL", "AscendQuant<T>(dst, src, src, (T)1, 32, 256);"))
    with pytest.raises(rt.BuildError, match="per channel\\) is not simulated yet"):
        rt.build_kernel(src, entry="quant_kernel", defines=rt.dtype_defines({"x": "float32"}))
