"""Kernel APIs that CANN's operator library hicann/ops-nn calls and the simulator lacked, each
against its documented (or, where the reference is silent, asc-devkit's) behaviour: the
`block_idx`/`block_num` builtins in an op kernel, `AscendCUtils::SetMask` and the C0 helpers,
the untyped `TQue::DeQue()` and `GetAccVal()`, `ReduceSum`'s count form with a small
sharedTmpBuffer, `TransDataTo5HD` on 32-bit data and its `TransDataTo5HDImpl` layer,
`ArithProgression`, `GetUserWorkspace` without a workspace, the basic API's constants, a
`TQueConfig` queue, `Sign`, and the `impl/dav_c220/kernel_operator_reg_others_impl.h` include."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL_CPP = r"""
#include "kernel_operator.h"
#include "impl/dav_c220/kernel_operator_reg_others_impl.h"
using namespace AscendC;

struct ApiTiling {
    int32_t mode;
};
REGISTER_TILING_DEFAULT(ApiTiling);

constexpr TPosition kNoConsumers[8] = {TPosition::MAX, TPosition::MAX, TPosition::MAX,
                                       TPosition::MAX, TPosition::MAX, TPosition::MAX,
                                       TPosition::MAX, TPosition::MAX};
constexpr TQueConfig kOneBufferConfig =
    GetTQueConfig(false, false, false, 0, 1, 0, kNoConsumers);

extern "C" __global__ __aicore__ void apis(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf, tmpBuf;
    pipe.InitBuffer(buf, 8 * 1024 * sizeof(float));
    pipe.InitBuffer(tmpBuf, 256 * sizeof(float));
    GlobalTensor<float> xf, zf;
    xf.SetGlobalBuffer((__gm__ float*)x, 4096);
    zf.SetGlobalBuffer((__gm__ float*)z, 4096);
    GlobalTensor<int32_t> zi;
    zi.SetGlobalBuffer((__gm__ int32_t*)z, 4096);
    LocalTensor<float> all = buf.Get<float>();
    LocalTensor<float> a = all[0], c = all[4096];
    a.SetSize(4096);
    c.SetSize(4096);
    LocalTensor<float> tmp = tmpBuf.Get<float>();
    if (t.mode == 1) {  // the builtins, in a registered kernel
        zi.SetValue(block_idx * 2, static_cast<int32_t>(block_idx));
        zi.SetValue(block_idx * 2 + 1, static_cast<int32_t>(block_num));
    }
    if (t.mode == 2) {  // SetMask(len) before a level-0 Add: only the first 20 lanes are written
        DataCopy(a, xf, 64);
        Duplicate(c, -1.0f, 64);
        AscendCUtils::SetMask<float>(20);
        Add<float, false>(c, a, a, MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8});
        ResetMask();
        DataCopy(zf, c, 64);
    }
    if (t.mode == 3) {  // SetMask(high, low): lanes 0-3 and 60-63 of the 64 floats
        DataCopy(a, xf, 64);
        Duplicate(c, -1.0f, 64);
        AscendCUtils::SetMask<float>(0, 0xF00000000000000Full);
        Add<float, false>(c, a, a, MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8});
        ResetMask();
        DataCopy(zf, c, 64);
    }
    if (t.mode == 4) {  // the C0 helpers
        zi.SetValue(0, AscendCUtils::GetC0Size());
        zi.SetValue(1, AscendCUtils::GetC0Count(2));
        zi.SetValue(2, AscendCUtils::GetBitSize(4));
    }
    if (t.mode == 5) {  // the untyped DeQue: it orders the pipes; the tensor is the caller's
        TQue<QuePosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 64 * sizeof(float));
        LocalTensor<float> in = q.AllocTensor<float>();
        DataCopy(in, xf, 64);
        q.EnQue(in);
        (void)q.DeQue();
        Muls(c, in, 2.0f, 64);
        q.FreeTensor(in);
        DataCopy(zf, c, 64);
    }
    if (t.mode == 6) {  // the untyped GetAccVal: the register's bits, read as the sum's float
        DataCopy(a, xf, 4096);
        ReduceSum(c, a, tmp, 4096);
        const int64_t acc = GetAccVal();
        float sum;
        const int32_t low = static_cast<int32_t>(acc);
        static_assert(sizeof(low) == sizeof(sum));
        __builtin_memcpy(&sum, &low, sizeof(sum));
        zf.SetValue(0, sum);
        zf.SetValue(1, c.GetValue(0));
    }
    if (t.mode == 7) {  // TransDataTo5HD on floats: 16 blocks of 8 -> 8 pairs of blocks
        DataCopy(a, xf, 128);
        uint64_t dst[16], src[16];
        for (int i = 0; i < 16; ++i) {
            src[i] = a[i * 8].GetPhyAddr();
            dst[i] = c[i * 8].GetPhyAddr();
        }
        TransDataTo5HD<float>(dst, src, TransDataTo5HDParams(false, false, 1, 0, 0));
        DataCopy(zf, c, 128);
    }
    if (t.mode == 8) {  // the same through TransDataTo5HDImpl with __ubuf__ pointers
        DataCopy(a, xf, 128);
        __ubuf__ float* dst[16];
        __ubuf__ float* src[16];
        for (int i = 0; i < 16; ++i) {
            src[i] = reinterpret_cast<__ubuf__ float*>(a[i * 8].GetPhyAddr());
            dst[i] = reinterpret_cast<__ubuf__ float*>(c[i * 8].GetPhyAddr());
        }
        TransDataTo5HDImpl<float>(dst, src, TransDataTo5HDParams(false, false, 1, 0, 0));
        DataCopy(zf, c, 128);
    }
    if (t.mode == 9) {  // ArithProgression, Arange's other name
        ArithProgression<float>(c, 2.0f, 0.5f, 40);
        DataCopy(zf, c, 40);
    }
    if (t.mode == 10) {  // no workspace: the call is fine, as on the device (ops-nn's mse_loss_v2)
        zi.SetValue(0, GetUserWorkspace(workspace) == nullptr ? 1 : 0);
    }
    if (t.mode == 11) {  // ... and a use of it is the bad address it is
        GlobalTensor<int32_t> w;
        w.SetGlobalBuffer((__gm__ int32_t*)GetUserWorkspace(workspace), 8);
        w.SetValue(0, 1);
    }
    if (t.mode == 12) {  // the basic API's constants, unqualified (ops-nn's add_layer_norm)
        const int32_t values[] = {
            static_cast<int32_t>(ONE_BLK_FLOAT_NUM), static_cast<int32_t>(ONE_BLK_HALF_NUM),
            static_cast<int32_t>(BRCB_BROADCAST_NUMBER), B32_DATA_NUM_PER_REPEAT,
            B16_DATA_NUM_PER_REPEAT, BLOCK_CUBE, DEFAULT_BLOCK_SIZE, MAX_16BITS_STRIDE,
            static_cast<int32_t>(TOTAL_L0A_SIZE), static_cast<int32_t>(F32_INF),
            static_cast<int32_t>(FULL_MASK == ~0ull), HALF_FACTOR};
        for (int i = 0; i < 12; ++i) zi.SetValue(i, values[i]);
    }
    if (t.mode == 13) {  // a queue whose mask is a TQueConfig (ops-nn's mse_loss_grad_v2)
        TQue<QuePosition::VECIN, 1, &kOneBufferConfig> q;
        pipe.InitBuffer(q, 1, 64 * sizeof(float));
        LocalTensor<float> in = q.AllocTensor<float>();
        DataCopy(in, xf, 64);
        q.EnQue(in);
        in = q.DeQue<float>();
        Sign(c, in, 64);
        q.FreeTensor(in);
        DataCopy(zf, c, 64);
    }
    if (t.mode == 15) {  // a count past dst, inside the UB (ops-nn's mse_loss_grad_v2 Cast)
        DataCopy(a, xf, 96);
        LocalTensor<float> small = c;
        small.SetSize(32);
        Adds(small, a, 1.0f, 96);
        DataCopy(zf, c, 96);
    }
    if (t.mode == 14) {  // Sign with a sharedTmpBuffer, over all of src
        DataCopy(a, xf, 4096);
        LocalTensor<float> src = a[0];
        src.SetSize(256);
        Sign(c, src, tmp.ReinterpretCast<uint8_t>());
        DataCopy(zf, c, 256);
    }
}
"""

LAYOUT = rt.TilingLayout.from_fields("ApiTiling", [("mode", "int32_t")])
RNG = np.random.default_rng(11)


@pytest.fixture(scope="module")
def apis(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("opsnn_apis")) / "apis.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry="apis")


def run(lib: rt.KernelLibrary, mode: int, x: np.ndarray, block_dim: int = 1) -> np.ndarray:
    out = np.zeros(4096, np.float32)
    rt.launch(lib, "apis", {"x": x, "z": out}, block_dim=block_dim,
              tiling=LAYOUT.pack({"mode": mode}))
    return out


def test_block_idx_and_block_num_in_an_op_kernel(apis: rt.KernelLibrary) -> None:
    z = run(apis, 1, np.zeros(4096, np.float32), block_dim=3).view(np.int32)[:6]
    np.testing.assert_array_equal(z, [0, 3, 1, 3, 2, 3])


def test_set_mask_by_length(apis: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(4096).astype(np.float32)
    z = run(apis, 2, x)[:64]
    np.testing.assert_array_equal(z[:20], x[:20] * 2)
    np.testing.assert_array_equal(z[20:], -1.0)


def test_set_mask_by_bits(apis: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(4096).astype(np.float32)
    z = run(apis, 3, x)[:64]
    lanes = [*range(4), *range(60, 64)]
    np.testing.assert_array_equal(z[lanes], x[lanes] * 2)
    np.testing.assert_array_equal(np.delete(z, lanes), -1.0)


def test_c0_helpers(apis: rt.KernelLibrary) -> None:
    np.testing.assert_array_equal(run(apis, 4, np.zeros(4096, np.float32)).view(np.int32)[:3],
                                  [32, 16, 32])


def test_untyped_deque(apis: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(4096).astype(np.float32)
    np.testing.assert_array_equal(run(apis, 5, x)[:64], x[:64] * 2)


def test_untyped_acc_val_and_a_small_shared_tmp_buffer(apis: rt.KernelLibrary) -> None:
    """ReduceSum's count form of 4096 floats with a 256-float sharedTmpBuffer (the A2's form
    one takes any size), then GetAccVal() as raw bits (ops-nn's layer_norm_v4)."""
    x = RNG.standard_normal(4096).astype(np.float32)
    z = run(apis, 6, x)
    assert z[0] == z[1]
    assert abs(float(z[0]) - float(x.astype(np.float64).sum())) < 1e-3


@pytest.mark.parametrize("mode", [7, 8])
def test_transdata_to_5hd_on_32_bit_data(apis: rt.KernelLibrary, mode: int) -> None:
    """TransDataTo5HD.md, 32-bit: 8 rounds, round k takes element k of the 16 source blocks and
    makes 2 blocks, the first from source blocks 0-7, the second from 8-15."""
    x = RNG.standard_normal(4096).astype(np.float32)
    src = x[:128].reshape(16, 8)  # 16 blocks of 8 floats
    want = np.stack([src[(i % 2) * 8:(i % 2) * 8 + 8, i // 2] for i in range(16)])
    np.testing.assert_array_equal(run(apis, mode, x)[:128].reshape(16, 8), want)


def test_arith_progression(apis: rt.KernelLibrary) -> None:
    z = run(apis, 9, np.zeros(4096, np.float32))[:40]
    np.testing.assert_allclose(z, 2.0 + 0.5 * np.arange(40), rtol=0, atol=1e-5)


def test_get_user_workspace_without_a_workspace(apis: rt.KernelLibrary) -> None:
    """The device's GetUserWorkspace ignores its argument (asc-devkit dav_c220
    kernel_operator_common_impl.h), so an op that asks for no workspace may still call it; only a
    use of the address is an error."""
    assert run(apis, 10, np.zeros(4096, np.float32)).view(np.int32)[0] == 1
    with pytest.raises(rt.GlobalMemoryOutOfBounds):
        run(apis, 11, np.zeros(4096, np.float32))


def test_the_basic_api_constants(apis: rt.KernelLibrary) -> None:
    z = run(apis, 12, np.zeros(4096, np.float32)).view(np.int32)[:12]
    np.testing.assert_array_equal(z, [8, 16, 8, 64, 128, 16, 256, 65535, 65536, 0x7f800000, 1, 2])


@pytest.mark.parametrize("mode", [13, 14])
def test_sign(apis: rt.KernelLibrary, mode: int) -> None:
    """Sign.md: 1, -1, or 0 for zero; NaN and -0 give +0, as CANN's A2 implementation (a 0
    where neither src > 0 nor src < 0)."""
    x = RNG.standard_normal(4096).astype(np.float32)
    x[:4] = [0.0, -0.0, np.nan, -np.inf]
    n = 64 if mode == 13 else 256
    z = run(apis, mode, x)[:n]
    want = np.where(x[:n] > 0, 1.0, np.where(x[:n] < 0, -1.0, 0.0)).astype(np.float32)
    np.testing.assert_array_equal(z, want)
    assert not np.signbit(z[:3]).any()


def test_a_count_past_the_tensor_reaches_on_in_the_unified_buffer(
        apis: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch) -> None:
    """The NPU knows addresses, not LocalTensors: a count past dst writes on into the Unified
    Buffer (ops-nn's mse_loss_grad_v2 casts three tiles into a one-tile output); strict mode
    holds the instruction to its tensor."""
    x = RNG.standard_normal(4096).astype(np.float32)
    np.testing.assert_array_equal(run(apis, 15, x)[:96], x[:96] + np.float32(1))
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.LocalMemoryOutOfBounds,
                       match="Adds: dst: count 96 exceeds the LocalTensor<float> of 32 elements"):
        run(apis, 15, x)
