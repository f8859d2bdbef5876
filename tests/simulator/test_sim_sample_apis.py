"""The kernel APIs CANN's public samples use beyond the basic set: GatherMask, the mask/repeat
forms of ReduceMax/ReduceMin, InitGlobalMemory's two-argument form (and Fill/InitOutput), and
stores through GlobalTensor::address_ while copies are deferred. Results against numpy, and each
documented limit reported as a SimulatorError subclass."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct ApiTilingData {
    int32_t mode;
};
REGISTER_TILING_DEFAULT(ApiTilingData);

extern "C" __global__ __aicore__ void apis(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const int32_t mode = t.mode;
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4 * 1024 * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 1024);
    zGm.SetGlobalBuffer((__gm__ float*)z, 1024);
    GlobalTensor<half> xh, zh;
    xh.SetGlobalBuffer((__gm__ half*)x, 2048);
    zh.SetGlobalBuffer((__gm__ half*)z, 2048);
    LocalTensor<float> all = buf.Get<float>();
    LocalTensor<float> a = all[0], c = all[1024], w = all[2048];
    a.SetSize(512);
    c.SetSize(512);
    LocalTensor<half> ah = a.ReinterpretCast<half>(), ch = c.ReinterpretCast<half>();
    LocalTensor<half> wh = w.ReinterpretCast<half>();
    uint64_t cnt = 0;
    if (mode == 1) {                      // user pattern, counter mode, as AbsGatherMask does
        DataCopy(ah, xh, 256);
        LocalTensor<uint16_t> pat = w.ReinterpretCast<uint16_t>();
        Duplicate(pat.ReinterpretCast<half>(), (half)0, 16);
        pat.SetValue(0, 0b1111111111111100);
        pat.SetValue(1, 0b0000000000000011);
        Duplicate(ch, (half)0, 64);
        GatherMask(ch, ah, pat, true, 128, {1, 1, 8, 8}, cnt);
        ch.SetValue(32, (half)(float)cnt);
        DataCopy(zh, ch, 64);
        return;
    }
    if (mode == 2) {                      // built-in pattern 2 (odd lanes), normal mode, 2 repeats
        DataCopy(a, xGm, 256);
        Duplicate(c, 0.0f, 256);
        GatherMask(c, a, (uint8_t)2, false, 0, {1, 2, 8, 0}, cnt);
        c.SetValue(100, (float)cnt);
    }
    if (mode == 3) {                      // one pattern for every repeat (src1RepeatStride 0)
        DataCopy(a, xGm, 256);
        LocalTensor<uint32_t> pat = w.ReinterpretCast<uint32_t>();
        Duplicate(w, 0.0f, 8);
        pat.SetValue(0, 0x99999999u);     // lanes 0 and 3 of every four
        pat.SetValue(1, 0x00000001u);     // and lane 32
        Duplicate(c, 0.0f, 256);
        GatherMask(c, a, pat, true, 40, {1, 3, 8, 0}, cnt);
        c.SetValue(200, (float)cnt);
    }
    if (mode == 4) {                      // ReduceMin, bit mask, with index; ReduceMax by count
        DataCopy(ah, xh, 1024);
        Duplicate(ch, (half)0, 64);
        uint64_t m[2] = {0xF0F0F0F0F0F0F0F0ULL, 0xFFULL};
        ReduceMin<half>(ch, ah, wh, m, 3, 8, true);
        ReduceMax<half>(ch[16], ah, wh, 20, 4, 16, true);
        ReduceMin<half>(ch[32], ah, wh, 5, 2, 8, false);
        DataCopy(zh, ch, 64);
        return;
    }
    if (mode == 5) {                      // InitGlobalMemory without a value, Fill with one
        InitGlobalMemory(zGm, 256);
        GlobalTensor<float> rest = zGm[256];
        Fill(rest, 8, 2.5f);
        InitOutput(zGm[512], 4, 1.5f);
        return;
    }
    if (mode == 6) {                      // raw stores through address_ while copies are deferred
        DataCopy(a, zGm, 64);             // recorded: reads z[0, 64) later
        for (int i = 0; i < 8; ++i) *(zGm.address_ + i) = 100.0f + i;
        auto cursor = zGm[16].address_;
        cursor[0] = -1.0f;
        DataCopy(c, zGm, 64);             // issued after the stores: sees them
        Add(c, c, a, 64);                 // old z + new z
        DataCopy(zGm[64], c, 64);
        return;
    }
    if (mode == 7) {                      // Copy: 8 of every 64 floats, by mask and in counter mode
        DataCopy(a, xGm, 512);
        Duplicate(c, 0.0f, 512);
        Copy(c, a, 8, 6, {1, 1, 1, 8});
        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(48);
        Copy<float, false>(c[64], a, MASK_PLACEHOLDER, 1, {1, 8, 8, 8});
        SetMaskNorm();
        ResetMask();
    }
    if (mode == 8) {                      // a static tensor at byte 8192 of the Unified Buffer
        LocalTensor<float> s(TPosition::VECCALC, 8192, 256);
        DataCopy(s, xGm, 256);
        Muls(s, s, 2.0f, 256);
        DataCopy(zGm, s, 256);
        return;
    }
    if (mode == 10) GatherMask(c, a, (uint8_t)8, false, 0, {1, 1, 8, 8}, cnt);
    if (mode == 11) {
        LocalTensor<uint32_t> pat = w.ReinterpretCast<uint32_t>();
        Duplicate(w, 0.0f, 8);
        pat.SetValue(1, 0x80000000u);     // lane 63 of a 48-element source
        LocalTensor<float> small = a;
        small.SetSize(48);
        GatherMask(c, small, pat, false, 0, {1, 1, 8, 8}, cnt);
    }
    if (mode == 12) {
        LocalTensor<float> tiny = c;
        tiny.SetSize(8);
        GatherMask(tiny, a, (uint8_t)7, false, 0, {1, 1, 8, 8}, cnt);
    }
    if (mode == 13) {
        LocalTensor<uint32_t> pat = w.ReinterpretCast<uint32_t>();
        pat.SetSize(8);                   // 32 bytes of pattern, 2 repeats 32 bytes apart need 40
        GatherMask(c, a, pat, false, 0, {1, 2, 8, 1}, cnt);
    }
    if (mode == 14) ReduceMin<float>(c, a, w, 64, 1, 70000, false);
    if (mode == 15) {
        LocalTensor<half> small = wh;
        small.SetSize(16);                // 9 repeats need 18 partials: 32 halves
        ReduceMax<half>(ch, ah, small, 128, 9, 0, false);
    }
    if (mode == 16) InitGlobalMemory(zGm, 1025, 1.0f);
    if (mode == 17) LocalTensor<float> s(TPosition::VECIN, 16, 8);
    if (mode == 18) LocalTensor<float> s(TPosition::VECIN, 196608 - 32, 16);
    if (mode == 19) {
        LocalTensor<float> small = c;
        small.SetSize(40);
        Copy(small, a, 8, 6, {1, 1, 1, 8});
    }
    DataCopy(zGm, c, 256);
}
"""

LAYOUT = rt.TilingLayout.from_fields("ApiTilingData", [("mode", "int32_t")])
RNG = np.random.default_rng(5)


@pytest.fixture(scope="module")
def apis(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("apis")) / "apis.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry="apis")


def run(lib: rt.KernelLibrary, mode: int, x: np.ndarray, z: np.ndarray | None = None) -> np.ndarray:
    out = np.zeros(1024, np.float32) if z is None else z
    rt.launch(lib, "apis", {"x": x, "z": out}, block_dim=1, tiling=LAYOUT.pack({"mode": mode}))
    return out


def distinct_halves() -> np.ndarray:
    """2048 float16 values, all different, so that an index pins one element."""
    return RNG.permutation(np.arange(-1024, 1024)).astype(np.float16)


def test_gather_mask_user_pattern_as_abs_gather_mask(apis: rt.KernelLibrary) -> None:
    h = distinct_halves()
    z = run(apis, 1, h.view(np.float32)).view(np.float16)
    np.testing.assert_array_equal(z[:16], h[2:18])  # lanes 2..15, then 16 and 17
    assert np.all(z[16:32] == 0)
    assert z[32] == 16  # rsvdCnt


def test_gather_mask_builtin_pattern_normal_mode(apis: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(1024).astype(np.float32)
    z = run(apis, 2, x)
    np.testing.assert_array_equal(z[:64], x[:128][1::2])  # odd lanes of both 64-lane repeats
    assert z[100] == 64
    assert np.all(z[64:100] == 0)


def test_gather_mask_pattern_reused_by_every_repeat(apis: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(1024).astype(np.float32)
    z = run(apis, 3, x)
    lanes = [lane for lane in range(32) if lane % 4 in (0, 3)] + [32]
    expected = np.concatenate([x[r * 64 + np.array(lanes)] for r in range(3)])
    np.testing.assert_array_equal(z[: len(expected)], expected)
    assert z[200] == len(expected)


def test_reduce_min_max_mask_forms(apis: rt.KernelLibrary) -> None:
    h = distinct_halves()
    z = run(apis, 4, h.view(np.float32)).view(np.float16)
    lane = np.arange(128)
    bits = np.array([(0xF0F0F0F0F0F0F0F0 >> int(k)) & 1 if k < 64 else (0xFF >> int(k - 64)) & 1
                     for k in lane])
    pos = np.concatenate([r * 128 + lane[bits == 1] for r in range(3)])
    best = pos[np.argmin(h[pos])]
    assert z[0] == h[best]
    assert z[1:2].view(np.uint16)[0] == best  # position counted from src
    # count mask 20, srcRepStride 16 blocks: repeat r covers h[256 r, 256 r + 20)
    pos = np.concatenate([r * 256 + np.arange(20) for r in range(4)])
    best = pos[np.argmax(h[pos])]
    assert z[16] == h[best]
    assert z[17:18].view(np.uint16)[0] == best
    assert z[32] == h[np.r_[0:5, 128:133]].min()
    assert z[33] == 0  # without calIndex only the value is written


def test_init_global_memory_fill_and_init_output(apis: rt.KernelLibrary) -> None:
    x = np.zeros(1024, np.float32)
    z = run(apis, 5, x, np.full(1024, 9, np.float32))
    np.testing.assert_array_equal(z[:256], 0)
    np.testing.assert_array_equal(z[256:264], 2.5)
    np.testing.assert_array_equal(z[264:512], 9)
    np.testing.assert_array_equal(z[512:516], 1.5)
    np.testing.assert_array_equal(z[516:], 9)


def test_raw_stores_through_address_keep_program_order(apis: rt.KernelLibrary) -> None:
    x = np.zeros(1024, np.float32)
    old = RNG.standard_normal(1024).astype(np.float32)
    z = run(apis, 6, x, old.copy())
    new = old[:64].copy()
    new[:8] = 100 + np.arange(8)
    new[16] = -1
    np.testing.assert_array_equal(z[:64], new)
    np.testing.assert_array_equal(z[64:128], new + old[:64])  # the earlier copy saw the old data
    np.testing.assert_array_equal(z[128:], old[128:])


def test_copy_by_mask_and_in_counter_mode(apis: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(1024).astype(np.float32)
    z = run(apis, 7, x)
    rows = x[:512].reshape(8, 64)
    np.testing.assert_array_equal(z[:48], rows[:6, :8].ravel())  # dstRepeatSize 1: packed
    np.testing.assert_array_equal(z[48:64], 0)
    np.testing.assert_array_equal(z[64:112], rows[:6, :8].ravel())  # srcStride 8, one long repeat
    np.testing.assert_array_equal(z[112:256], 0)


def test_local_tensor_at_a_unified_buffer_address(apis: rt.KernelLibrary) -> None:
    x = RNG.standard_normal(1024).astype(np.float32)
    z = run(apis, 8, x)
    np.testing.assert_array_equal(z[:256], x[:256] * 2)


@pytest.mark.parametrize(
    ("mode", "error", "text"),
    [
        (10, rt.VectorCountError, "GatherMask: built-in src1Pattern 8 is outside [1, 7]"),
        (11, rt.LocalMemoryOutOfBounds,
         "GatherMask: src0: the pattern selects element 63 (repeat 0, lane 63) but the "
         "LocalTensor<float> has 48 elements"),
        (12, rt.LocalMemoryOutOfBounds,
         "GatherMask: dst: 64 selected elements do not fit the LocalTensor<float> of 8 elements"),
        (13, rt.LocalMemoryOutOfBounds,
         "GatherMask: src1Pattern: 2 repeat(s) of 64 lanes, src1RepeatStride 1, read 40 bytes of "
         "a pattern of 32 bytes"),
        (14, rt.VectorCountError, "ReduceMin: srcRepStride 70000 is outside [0, 65535]"),
        (15, rt.LocalMemoryOutOfBounds,
         "ReduceMax: sharedTmpBuffer holds 16 elements, 9 repeat(s) of half without calIndex "
         "need at least 32"),
        (16, rt.GlobalMemoryOutOfBounds,
         "InitGlobalMemory: size 1025 exceeds the GlobalTensor<float> of 1024 elements"),
        (17, rt.AlignmentError, "LocalTensor(pos, addr, tileSize): addr 16 is not 32-byte aligned"),
        (18, rt.UnifiedBufferOverflow,
         "LocalTensor(pos, addr, tileSize): bytes [196576, 196640) run past the Unified Buffer of "
         "196608 bytes"),
        (19, rt.LocalMemoryOutOfBounds,
         "Copy: dst: the mask and 6 repeat(s) reach element 47 (repeat 5, lane 7, blkStride 1, "
         "repStride 1) but the LocalTensor<float> has 40 elements"),
    ],
)
def test_documented_limits(apis: rt.KernelLibrary, mode: int, error: type[Exception],
                           text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    x = np.zeros(1024, np.float32)
    with pytest.raises(error, match="block 0: " + re.escape(text)):
        run(apis, mode, x)


LIST_CPP = r"""
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void lists(GM_ADDR desc, GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                            GM_ADDR tiling)
{
    uint32_t length = *reinterpret_cast<__gm__ uint32_t*>(tiling);
    ListTensorDesc list(reinterpret_cast<__gm__ void*>(desc), length, 2);
    uint64_t shape[4] = {0};
    TensorDesc<float> d;
    d.SetShapeAddr(shape);
    list.GetDesc(d, 1);
    GlobalTensor<float> out;
    out.SetGlobalBuffer((__gm__ float*)z, 8);
    out.SetValue(0, (float)list.GetSize());
    out.SetValue(1, (float)d.GetDim());
    out.SetValue(2, (float)d.GetShape(0));
    out.SetValue(3, (float)d.GetShape(1));
    out.SetValue(4, (float)d.GetIndex());
    out.SetValue(5, d.GetDataObj().GetValue(0));
    out.SetValue(6, list.GetDataPtr<float>(0)[3]);
}
"""


def test_list_tensor_desc_reads_a_dynamic_input(tmp_path: Path) -> None:
    src = tmp_path / "lists.cpp"
    src.write_text(LIST_CPP)
    lib = rt.build_kernel(src, entry="lists")
    x = rt.gm_empty((64,), np.float32)
    x[:] = np.arange(64)
    x0, x1 = x.ctypes.data, x.ctypes.data + 32 * 4  # two tensors inside one buffer
    # ptrOffset, then (dim | index << 32) and 2 shape words per tensor, then the pointers
    desc = np.array([56, 2, 4, 8, 2 | 1 << 32, 5, 6, x0, x1], np.uint64)
    z = np.zeros(8, np.float32)
    for length, ok in ((72, True), (80, False)):
        tiling = np.array([length], np.uint32).tobytes()
        if ok:
            rt.launch(lib, "lists", {"desc": desc, "x": x, "z": z}, block_dim=1, tiling=tiling)
            np.testing.assert_array_equal(z[:7], [2, 2, 5, 6, 1, 32, 3])
        else:
            text = ("ListTensorDesc::Init: the layout holds 2 tensor(s) in 72 bytes, the call "
                    "says 2 in 80")
            with pytest.raises(rt.SimulatorError, match=re.escape(text)):
                rt.launch(lib, "lists", {"desc": desc, "x": x, "z": z}, block_dim=1, tiling=tiling)
