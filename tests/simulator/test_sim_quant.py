"""AscendQuant (opgen_sim/quant.h) with a scale and an offset for the whole tensor, and per channel
(a scale tensor, an offset scalar or tensor), against numpy models of CANN's A2 steps in half
(asc-devkit impl/adv_api/detail/quantization/quant/ascend_quant_pre_impl.h), bit for bit. Each
test names the Ascend C API reference page it checks (AscendQuant.md)."""

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


PC_KERNEL = r"""
#include <cstring>
#include "kernel_operator.h"
using namespace AscendC;
// calcCount, offsetCount, scaleCount, workLocalSize
constexpr AscendQuantConfig kConfig = {256, 64, 64, 256};
extern "C" __global__ __aicore__ void quant_pc_kernel(GM_ADDR x, GM_ADDR sc, GM_ADDR of, GM_ADDR z,
                                                      GM_ADDR sOut, GM_ADDR workspace,
                                                      GM_ADDR tiling)
{
    using T = DTYPE_X;
    const uint32_t* t = reinterpret_cast<const uint32_t*>(tiling);
    const uint32_t mode = t[0], scaleCount = t[1], calCount = t[2], tmpBytes = t[3];
    T offset;
    std::memcpy(&offset, t + 4, sizeof(T));
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bs, bo, bz, bt;
    pipe.InitBuffer(bx, 512 * sizeof(T));
    pipe.InitBuffer(bs, 128 * sizeof(T));
    pipe.InitBuffer(bo, 128 * sizeof(T));
    pipe.InitBuffer(bz, 512);
    pipe.InitBuffer(bt, 2048);
    GlobalTensor<T> xGm, sGm, oGm, sOutGm;
    GlobalTensor<int8_t> zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, 512);
    sGm.SetGlobalBuffer((__gm__ T*)sc, 128);
    oGm.SetGlobalBuffer((__gm__ T*)of, 128);
    zGm.SetGlobalBuffer((__gm__ int8_t*)z, 512);
    sOutGm.SetGlobalBuffer((__gm__ T*)sOut, 128);
    DataCopy(bx.Get<T>(), xGm, 512);
    DataCopy(bs.Get<T>(), sGm, 128);
    DataCopy(bo.Get<T>(), oGm, 128);
    LocalTensor<int8_t> dst = bz.Get<int8_t>();
    Duplicate(dst.ReinterpretCast<int16_t>(), (int16_t)0x5555, 256);
    LocalTensor<T> src = bx.Get<T>(calCount);  // the forms without counts take the tensors' sizes
    LocalTensor<T> scale = bs.Get<T>(scaleCount);
    LocalTensor<T> off = bo.Get<T>(scaleCount);
    LocalTensor<uint8_t> tmp = bt.Get<uint8_t>(tmpBytes);
    LocalTensor<T> all = bx.Get<T>();
    if (mode == 0) AscendQuant<T>(dst, all, tmp, scale, offset, scaleCount, calCount);
    if (mode == 1) AscendQuant<T>(dst, all, scale, offset, scaleCount, calCount);
    if (mode == 2) AscendQuant<T>(dst, src, tmp, scale, offset);
    if (mode == 3) AscendQuant<T>(dst, src, scale, offset);
    if (mode == 4) AscendQuant<T>(dst, all, tmp, scale, off, scaleCount, scaleCount, calCount);
    if (mode == 5) AscendQuant<T>(dst, all, scale, off, scaleCount, scaleCount, calCount);
    if (mode == 6) AscendQuant<T>(dst, src, tmp, scale, off);
    if (mode == 7) AscendQuant<T>(dst, src, scale, off);
    // the config's counts replace the arguments' (CANN's AscendQuantImplStatic)
    if (mode == 8) {
        AscendQuant<T, false, kConfig>(dst, all, bt.Get<uint8_t>(), bs.Get<T>(), bo.Get<T>(),
                                       32, 32, 64);
    }
    DataCopy(zGm, dst, 512);
    DataCopy(sOutGm, bs.Get<T>(), 128);
}
"""


def _half_step(x: np.ndarray) -> np.ndarray:
    """float -> half as the simulator's Cast (to nearest even, saturating to +-65504)."""
    with np.errstate(over="ignore"):
        h = x.astype(np.float16)
    big = np.isinf(h) & np.isfinite(x)
    h[big] = np.copysign(np.float16(65504), h[big])
    return h


def _pc_model(x: np.ndarray, scale: np.ndarray, offset: np.ndarray, scale_count: int,
              count: int) -> np.ndarray:
    """CANN's per-channel steps: source, scale and offset to half; Mul, Add (each rounded to half);
    to int8 to nearest even, saturating; column c = i % scaleCount."""
    f16, f32 = np.float16, np.float32
    col = np.arange(count) % scale_count
    h = _half_step(x[:count])
    s = _half_step(scale[:scale_count])[col]
    if offset.size > 1:
        o = _half_step(offset[:scale_count])[col]
    else:
        o = np.repeat(offset.astype(f16), count)
    with np.errstate(over="ignore", invalid="ignore"):
        h = (h.astype(f32) * s.astype(f32)).astype(f16)
        h = (h.astype(f32) + o.astype(f32)).astype(f16)
        r = np.rint(h.astype(f32))
    r[np.isnan(r)] = 0
    return np.clip(r, -128, 127).astype(np.int8)


@pytest.fixture(scope="module")
def pc_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = Path(tmp_path_factory.mktemp("quant_pc")) / "quant_pc.cpp"
    src.write_text(PC_KERNEL)
    return src


def _run_pc(lib: rt.KernelLibrary, dtype: str, x: np.ndarray, scale: np.ndarray,
            offsets: np.ndarray, words: list[int], offset: float) -> tuple[np.ndarray, np.ndarray]:
    gx = rt.gm_empty(512, dtype)
    gx[:] = x
    gs = rt.gm_empty(128, dtype)
    gs[:] = scale
    go = rt.gm_empty(128, dtype)
    go[:] = offsets
    z = rt.gm_empty(512, np.int8)
    s_out = rt.gm_empty(128, dtype)
    raw = np.array([offset], dtype).view(np.uint16 if dtype == "float16" else np.uint32)[0]
    rt.launch(lib, "quant_pc_kernel", [gx, gs, go, z, s_out], block_dim=1,
              tiling=np.array([*words, int(raw)], np.uint32).tobytes())
    return np.asarray(z).copy(), np.asarray(s_out).copy()


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_per_channel_quant_runs_canns_half_steps(pc_source: Path, dtype: str) -> None:
    """AscendQuant.md (PER_CHANNEL): int8(round(x * scale[c] + offset[c] or offset)) over rows of
    scaleCount, each step a half instruction as CANN's A2 kernel; calCount elements written; a
    float scale (and offset) tensor holds its halves afterwards (CANN casts it in place); an
    AscendQuantConfig with scaleCount and calcCount replaces the counts."""
    lib = rt.build_kernel(pc_source, entry="quant_pc_kernel",
                          defines=rt.dtype_defines({"x": dtype}))
    rng = np.random.default_rng(9)
    x = (rng.standard_normal(512) * 30).astype(dtype)
    x[:4] = [0.5, -2.5, 70000.0 if dtype == "float32" else 60000.0, -1.5]
    scale = rng.uniform(-3, 3, 128).astype(dtype)
    offsets = rng.uniform(-20, 20, 128).astype(dtype)
    off_s = -3.3
    f_off = np.array([off_s], dtype)
    # (mode, scaleCount, calCount, tmp bytes): the split of the tmp (64 bytes: 32 halves)
    # changes no result
    for mode, sc, cal, tmp in [(0, 64, 320, 64), (1, 32, 256, 0), (2, 96, 384, 2048),
                               (3, 32, 512, 0), (4, 64, 448, 256), (5, 128, 256, 0),
                               (6, 32, 160, 1024), (7, 64, 64, 0), (8, 64, 256, 2048)]:
        got, s_out = _run_pc(lib, dtype, x, scale, offsets, [mode, sc, cal, tmp], off_s)
        use_off = offsets if mode >= 4 else f_off
        if mode == 8:
            sc, cal = 64, 256
        want = _pc_model(x, scale, use_off, sc, cal)
        np.testing.assert_array_equal(got[:cal], want, err_msg=f"mode {mode}")
        assert (got[cal:] == 0x55).all()
        if dtype == "float32":  # the first scaleCount * 2 bytes now hold the scale as halves
            np.testing.assert_array_equal(s_out.view(np.float16)[:sc], _half_step(scale[:sc]))
            rest = slice(sc * 2, None)
            np.testing.assert_array_equal(s_out.view(np.uint8)[rest], scale.view(np.uint8)[rest])
        else:
            np.testing.assert_array_equal(s_out, scale)


def test_per_channel_count_not_whole_rows_is_an_error(pc_source: Path) -> None:
    """AscendQuant.md (PER_CHANNEL): calCount is a whole number of rows of scaleCount."""
    lib = rt.build_kernel(pc_source, entry="quant_pc_kernel",
                          defines=rt.dtype_defines({"x": "float16"}))
    z = np.zeros(512, np.float16)
    with pytest.raises(rt.SimulatorError,
                       match="calCount 100 must be a positive multiple of scaleCount 64"):
        _run_pc(lib, "float16", z, z[:128], z[:128], [0, 64, 100, 1024], 0.0)
    with pytest.raises(rt.LocalMemoryOutOfBounds,
                       match="sharedTmpBuffer holds 32 bytes; the kernel stages 32 halves"):
        _run_pc(lib, "float16", z, z[:128], z[:128], [0, 64, 128, 32], 0.0)
