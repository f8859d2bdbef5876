"""The vector API families CANN's public samples use: Gather/Gatherb, CreateVecIndex, Transpose and
TransDataTo5HD, Sort32/MrgSort/GetMrgSortResult and the sort library (Concat, Sort, Extract),
Compare/Compares in their mask and CmpMask forms with GetCmpMask, and Select in its three modes.

Each case names the Ascend C API reference page (asc-devkit docs/zh/api, SIMD-API) it follows and
compares the kernel's bytes with an independent numpy model; then one violation per documented
limit, raised as the SimulatorError subclass the simulator uses for that kind of rule."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

NBYTES = 4096

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct FamTilingData {
    int32_t mode;
};
REGISTER_TILING_DEFAULT(FamTilingData);

extern "C" __global__ __aicore__ void fam(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                          GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const int32_t mode = t.mode;
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA, bufB, bufC, bufW, bufT;
    pipe.InitBuffer(bufA, 4096);
    pipe.InitBuffer(bufB, 4096);
    pipe.InitBuffer(bufC, 4096);
    pipe.InitBuffer(bufW, 4096);
    pipe.InitBuffer(bufT, 8192);
    GlobalTensor<uint8_t> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ uint8_t*)x, 4096);
    yGm.SetGlobalBuffer((__gm__ uint8_t*)y, 4096);
    zGm.SetGlobalBuffer((__gm__ uint8_t*)z, 4096);
    LocalTensor<uint8_t> a = bufA.Get<uint8_t>(), b = bufB.Get<uint8_t>(), c = bufC.Get<uint8_t>(),
                         w = bufW.Get<uint8_t>(), tmp = bufT.Get<uint8_t>();
    DataCopy(a, xGm, 4096);
    DataCopy(b, yGm, 4096);
    Duplicate(c.ReinterpretCast<int32_t>(), 0, 1024);
    LocalTensor<float> af = a.ReinterpretCast<float>(), bf = b.ReinterpretCast<float>(),
                       cf = c.ReinterpretCast<float>(), wf = w.ReinterpretCast<float>();
    LocalTensor<half> ah = a.ReinterpretCast<half>(), ch = c.ReinterpretCast<half>();
    LocalTensor<uint32_t> bu = b.ReinterpretCast<uint32_t>(), cu = c.ReinterpretCast<uint32_t>();
    BinaryRepeatParams bin;
    constexpr TransposeType TO_NHWC = TransposeType::TRANSPOSE_NCHW2NHWC;
    constexpr TransposeType TO_NCHW = TransposeType::TRANSPOSE_NHWC2NCHW;
    constexpr SELMODE TT = SELMODE::VSEL_TENSOR_TENSOR_MODE;
    if (mode == 1) Gather(cf, af, bu, 0u, 256u);
    if (mode == 2) Gather(ch, ah[0], bu, 0u, (uint64_t)100, 2, 8);
    if (mode == 3) Gatherb(cu, a.ReinterpretCast<uint32_t>(), bu, 2, GatherRepeatParams{1, 8});
    if (mode == 4) CreateVecIndex(cf, 3.0f, 200);
    if (mode == 5) {
        LocalTensor<int16_t> ci = c.ReinterpretCast<int16_t>();
        CreateVecIndex(ci, (int16_t)-5, (uint64_t)100, 2, 1, 8);
    }
    if (mode == 6) Transpose(ch, ah);
    if (mode == 7) Transpose(cf, af, tmp, TransposeParamsExt(2, 3, 2, 8, TO_NHWC));
    if (mode == 8) Transpose(ch, ah, tmp, TransposeParamsExt(1, 5, 4, 4, TO_NCHW));
    if (mode == 9) {
        uint64_t dl[16], sl[16];
        for (int i = 0; i < 16; ++i) {
            dl[i] = ch[16 * i].GetPhyAddr();
            sl[i] = ah[16 * i].GetPhyAddr();
        }
        TransDataTo5HD<half>(dl, sl, TransDataTo5HDParams(false, false, 1, 0, 0));
    }
    if (mode == 10 || mode == 11) {
        Sort32(wf, af, bu, 4);
        MrgSort4Info info;
        MrgSortSrcList<float> list(wf[0], wf[64], wf[128], wf[192]);
        if (mode == 10) {
            for (int i = 0; i < 4; ++i) info.elementLengths[i] = 32;
            info.validBit = 15;
        } else {
            info.elementLengths[0] = 32;
            info.elementLengths[1] = 10;
            info.elementLengths[2] = 20;
            info.validBit = 7;
            info.ifExhaustedSuspension = true;
        }
        MrgSort(cf, list, info);
        if (mode == 11) {
            uint16_t n1, n2, n3, n4;
            GetMrgSortResult(n1, n2, n3, n4);
            LocalTensor<uint16_t> cs = c.ReinterpretCast<uint16_t>();
            cs.SetValue(1024, n1);
            cs.SetValue(1025, n2);
            cs.SetValue(1026, n3);
            cs.SetValue(1027, n4);
        }
    }
    if (mode == 12) {
        LocalTensor<float> concat, tf = tmp.ReinterpretCast<float>();
        Concat(concat, af, tf, 8);
        Sort<float, true>(wf, concat, bu, tf, 4);
        Extract(cf, cu[128], wf, 4);
    }
    if (mode == 13) Compare(c, af, bf, CMPMODE::LT, (uint64_t)10, 2, bin);
    if (mode == 14) Compares(c, af, 0.25f, CMPMODE::GE, (uint64_t)10, 4, UnaryRepeatParams());
    if (mode == 15) {
        Compare(af, bf, CMPMODE::GT, (uint64_t)64, bin);
        GetCmpMask(c);
        Select<float, SELMODE::VSEL_CMPMASK_SPR>(cf[64], af, bf, 2, bin);
    }
    if (mode == 16) Select(cf, b[1024], af, bf, SELMODE::VSEL_CMPMASK_SPR, 256);
    if (mode == 17) Select(cf, b[1024], af, 7.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 256);
    if (mode == 18) Select(cf, b[1024], af, bf, SELMODE::VSEL_TENSOR_TENSOR_MODE, 256);
    if (mode == 19) Select(cf, b[1024], af, bf, TT, (uint64_t)40, 4, bin);
    if (mode == 20) {
        uint64_t m[2] = {0xF0F0F0F0F0F0F0F0ULL, 0};
        Select(cf, b[1024], af, 2.5f, SELMODE::VSEL_TENSOR_SCALAR_MODE, m, 4, bin);
    }
    // one violation per documented limit
    if (mode == 100) Gather(cf, af, bu, 0u, 256u);            // an offset not a multiple of 4
    if (mode == 101) Gather(cf, af, bu, 0u, 256u);            // an offset past src
    if (mode == 102) Gather(cf, af, bu, 2u, 256u);            // srcBaseAddr not a multiple of 4
    // a 16-byte offset
    if (mode == 103) Gatherb(cu, a.ReinterpretCast<uint32_t>(), bu, 2, GatherRepeatParams{1, 8});
    if (mode == 104) Transpose(cf, af, tmp[6016], TransposeParamsExt(2, 3, 2, 8, TO_NHWC));
    if (mode == 105) Transpose(cf, af, tmp, TransposeParamsExt(1, 3, 3, 3, TO_NHWC));
    if (mode == 106) Transpose(cf, af, tmp, TransposeParamsExt(0, 4096, 1, 8, TO_NHWC));
    if (mode == 107 || mode == 108 || mode == 109) {
        MrgSort4Info info;
        for (int i = 0; i < 4; ++i) info.elementLengths[i] = 8;
        info.validBit = mode == 107 ? 5 : 15;
        if (mode == 108) info.repeatTimes = 2;
        if (mode == 109) info.elementLengths[0] = 4096;
        MrgSortSrcList<float> list(af[0], af[16], af[64], af[96]);  // not one after another
        MrgSort(cf, list, info);
    }
    if (mode == 110) Select(cf, b[1024], af, bf, SELMODE::VSEL_TENSOR_SCALAR_MODE, 256);
    if (mode == 111) Select(cf, b[4064], af, bf, SELMODE::VSEL_TENSOR_TENSOR_MODE, 512);
    if (mode == 112) Compare(c, af, bf, CMPMODE::LT, (uint64_t)64, 20, bin);
    if (mode == 113) CreateVecIndex(cf, 0.0f, 2000);
    if (mode == 114) Extract(cf, cu[128], wf, 256);
    if (mode == 115) Transpose(ch, ah[8]);
    DataCopy(zGm, c, 4096);
}
"""

LAYOUT = rt.TilingLayout.from_fields("FamTilingData", [("mode", "int32_t")])
RNG = np.random.default_rng(15)


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("families")) / "families.cpp"
    src.write_text(KERNEL)
    return rt.build_kernel(src, entry="fam")


def run(lib: rt.KernelLibrary, mode: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xb = np.zeros(NBYTES, np.uint8)
    yb = np.zeros(NBYTES, np.uint8)
    xv = x.view(np.uint8).ravel()
    yv = y.view(np.uint8).ravel()
    xb[: xv.size] = xv
    yb[: yv.size] = yv
    z = np.zeros(NBYTES, np.uint8)
    tiling = LAYOUT.pack({"mode": mode})
    rt.launch(lib, "fam", {"x": xb, "y": yb, "z": z}, block_dim=1, tiling=tiling)
    return z


def bits(mask: np.ndarray) -> np.ndarray:
    return np.packbits(mask.astype(np.uint8), bitorder="little")


def test_gather_count_form(lib: rt.KernelLibrary) -> None:
    """Gather.md, tensor front-n form: dst[i] = src at byte srcBaseAddr + srcOffset[i]."""
    src = RNG.standard_normal(256).astype(np.float32)
    off = (RNG.integers(0, 256, 256) * 4).astype(np.uint32)
    z = run(lib, 1, src, off)
    np.testing.assert_array_equal(z[:1024].view(np.float32), src[off // 4])


def test_gather_mask_form(lib: rt.KernelLibrary) -> None:
    """Gather.md, high-dimension form (continuous mask 100, 2 repeats, dstRepStride 8): half."""
    src = RNG.standard_normal(256).astype(np.float16)
    off = (RNG.integers(0, 256, 256) * 2).astype(np.uint32)
    z = run(lib, 2, src, off).view(np.float16)
    want = np.zeros(2048, np.float16)
    for r in range(2):
        lanes = np.arange(100) + r * 128
        want[lanes] = src[off[lanes] // 2]
    np.testing.assert_array_equal(z.view(np.uint16), want.view(np.uint16))


def test_gatherb_blocks(lib: rt.KernelLibrary) -> None:
    """Gatherb(ISASI).md: repeat r gathers 8 blocks of 32 bytes from src + offset[8 r + j]."""
    src = RNG.integers(0, 2**32, 256, dtype=np.uint64).astype(np.uint32)
    off = (RNG.integers(0, 32, 16) * 32).astype(np.uint32)
    z = run(lib, 3, src, off).view(np.uint32)
    want = np.zeros(1024, np.uint32)
    for k in range(16):
        want[k * 8 : k * 8 + 8] = src[off[k] // 4 : off[k] // 4 + 8]
    np.testing.assert_array_equal(z, want)


def test_create_vec_index(lib: rt.KernelLibrary) -> None:
    """CreateVecIndex.md: front-n form (float, 200 from 3.0) and mask form (int16, mask 100,
    2 repeats)."""
    z = run(lib, 4, np.zeros(1, np.uint8), np.zeros(1, np.uint8)).view(np.float32)
    want = np.zeros(1024, np.float32)
    want[:200] = np.arange(200, dtype=np.float32) + 3
    np.testing.assert_array_equal(z, want)
    z = run(lib, 5, np.zeros(1, np.uint8), np.zeros(1, np.uint8)).view(np.int16)
    want16 = np.zeros(2048, np.int16)
    for r in range(2):
        want16[r * 128 : r * 128 + 100] = np.arange(100) + r * 128 - 5
    np.testing.assert_array_equal(z, want16)


def test_transpose_16x16(lib: rt.KernelLibrary) -> None:
    """Transpose.md, plain form: one 16x16 half matrix."""
    src = RNG.standard_normal(256).astype(np.float16)
    z = run(lib, 6, src, np.zeros(1, np.uint8)).view(np.uint16)
    np.testing.assert_array_equal(z[:256], src.view(np.uint16).reshape(16, 16).T.ravel())


def test_transpose_nchw_nhwc(lib: rt.KernelLibrary) -> None:
    """Transpose.md, extended form: TRANSPOSE_NCHW2NHWC (float) and TRANSPOSE_NHWC2NCHW (half)."""
    src = RNG.standard_normal(96).astype(np.float32)
    z = run(lib, 7, src, np.zeros(1, np.uint8)).view(np.float32)
    np.testing.assert_array_equal(z[:96], src.reshape(2, 3, 2, 8).transpose(0, 2, 3, 1).ravel())
    src16 = RNG.standard_normal(80).astype(np.float16)
    z = run(lib, 8, src16, np.zeros(1, np.uint8)).view(np.uint16)
    want = src16.view(np.uint16).reshape(1, 4, 4, 5).transpose(0, 3, 1, 2).ravel()
    np.testing.assert_array_equal(z[:80], want)


def test_transdata_to_5hd_16bit(lib: rt.KernelLibrary) -> None:
    """TransDataTo5HD.md, 16-bit: element j of dst block i is element i of src block j."""
    src = RNG.standard_normal(256).astype(np.float16)
    z = run(lib, 9, src, np.zeros(1, np.uint8)).view(np.uint16)
    np.testing.assert_array_equal(z[:256], src.view(np.uint16).reshape(16, 16).T.ravel())


def _pairs(scores: np.ndarray, index: np.ndarray) -> np.ndarray:
    out = np.zeros((scores.size, 2), np.uint32)
    out[:, 0] = scores.view(np.uint32)
    out[:, 1] = index
    return out.ravel()


def test_mrgsort_four_queues(lib: rt.KernelLibrary) -> None:
    """MrgSort.md after Sort32.md: 4 sorted queues of 32 merged by descending score; equal scores
    keep the lower queue first (so the whole run is a stable descending sort)."""
    scores = np.round(RNG.standard_normal(128) * 3).astype(np.float32)  # many ties
    index = np.arange(1000, 1128, dtype=np.uint32)
    z = run(lib, 10, scores, index).view(np.uint32)
    order = np.argsort(-scores, kind="stable")
    np.testing.assert_array_equal(z[:256], _pairs(scores[order], index[order]))


def test_mrgsort_exhausted_suspension(lib: rt.KernelLibrary) -> None:
    """MrgSort.md / GetMrgSortResult.md: with ifExhaustedSuspension the merge stops when a queue
    runs out; GetMrgSortResult counts each queue's pairs in dst."""
    scores = RNG.standard_normal(128).astype(np.float32)
    index = np.arange(128, dtype=np.uint32)
    z = run(lib, 11, scores, index)
    queues = []
    for q, n in enumerate((32, 10, 20)):
        grp = np.argsort(-scores[q * 32 : q * 32 + 32], kind="stable")[:n] + q * 32
        queues.append(list(grp))
    pos, merged = [0, 0, 0], []
    while all(pos[i] < len(queues[i]) for i in range(3)):
        best = max(range(3), key=lambda i: (scores[queues[i][pos[i]]], -i))
        merged.append(queues[best][pos[best]])
        pos[best] += 1
    merged = np.array(merged)
    u = z.view(np.uint32)
    np.testing.assert_array_equal(u[: 2 * merged.size], _pairs(scores[merged], index[merged]))
    assert u[2 * merged.size : 2 * 62].sum() == 0  # nothing written past the stop
    np.testing.assert_array_equal(z.view(np.uint16)[1024:1028], [*pos, 0])


def test_sort_library_full_sort(lib: rt.KernelLibrary) -> None:
    """Sort.md (isFullSort), Concat.md, Extract.md: values and indices of a full descending sort."""
    scores = np.round(RNG.standard_normal(128) * 4).astype(np.float32)
    index = RNG.permutation(128).astype(np.uint32)
    z = run(lib, 12, scores, index)
    order = np.argsort(-scores, kind="stable")
    np.testing.assert_array_equal(z[:512].view(np.float32), scores[order])
    np.testing.assert_array_equal(z[512:1024].view(np.uint32), index[order])


def test_compare_mask_forms(lib: rt.KernelLibrary) -> None:
    """Compare.md / Compares.md, high-dimension forms: on the 910B family the mask is reserved,
    so every lane of every repeat is compared; repeat r's bits follow repeat r - 1's."""
    x = RNG.standard_normal(256).astype(np.float32)
    y = RNG.standard_normal(256).astype(np.float32)
    z = run(lib, 13, x, y)
    np.testing.assert_array_equal(z[:16], bits(x[:128] < y[:128]))
    assert not z[16:].any()
    z = run(lib, 14, x, y)
    np.testing.assert_array_equal(z[:32], bits(x >= np.float32(0.25)))


def test_compare_into_cmpmask_and_select_mode0(lib: rt.KernelLibrary) -> None:
    """Compare(result in register).md, GetCmpMask(ISASI).md, Select.md (no mask argument,
    mode 0)."""
    x = RNG.standard_normal(256).astype(np.float32)
    y = RNG.standard_normal(256).astype(np.float32)
    z = run(lib, 15, x, y)
    gt = x[:64] > y[:64]
    np.testing.assert_array_equal(z[:16], np.concatenate([bits(gt), np.zeros(8, np.uint8)]))
    sel = np.where(np.tile(gt, 2), x[:128], y[:128])
    np.testing.assert_array_equal(z[256:768].view(np.float32), sel)


def _select_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    x = RNG.standard_normal(256).astype(np.float32)
    ysrc = RNG.standard_normal(256).astype(np.float32)
    mask = RNG.integers(0, 256, 32, dtype=np.uint8)
    y = np.zeros(1024 + 32, np.uint8)
    y[:1024] = ysrc.view(np.uint8)
    y[1024:] = mask
    return x, ysrc, y, np.unpackbits(mask, bitorder="little").astype(bool)


def test_select_count_modes(lib: rt.KernelLibrary) -> None:
    """Select.md, front-n forms: mode 0 reuses selMask's first 64 bits every repeat; modes 1 and 2
    consume selMask continuously."""
    x, ysrc, y, sel = _select_inputs()
    z = run(lib, 16, x, y).view(np.float32)
    np.testing.assert_array_equal(z[:256], np.where(np.tile(sel[:64], 4), x, ysrc))
    z = run(lib, 17, x, y).view(np.float32)
    np.testing.assert_array_equal(z[:256], np.where(sel, x, np.float32(7.0)))
    z = run(lib, 18, x, y).view(np.float32)
    np.testing.assert_array_equal(z[:256], np.where(sel, x, ysrc))


def test_select_mask_forms(lib: rt.KernelLibrary) -> None:
    """Select.md, high-dimension forms: lanes outside the mask keep dst (here 0)."""
    x, ysrc, y, sel = _select_inputs()
    z = run(lib, 19, x, y).view(np.float32)
    want = np.zeros(1024, np.float32)
    for r in range(4):
        lanes = np.arange(40) + 64 * r
        want[lanes] = np.where(sel[lanes], x[lanes], ysrc[lanes])
    np.testing.assert_array_equal(z, want)
    z = run(lib, 20, x, y).view(np.float32)
    want = np.zeros(1024, np.float32)
    lane_on = np.array([(0xF0F0F0F0F0F0F0F0 >> i) & 1 for i in range(64)], bool)
    for r in range(4):
        lanes = np.arange(64)[lane_on] + 64 * r
        want[lanes] = np.where(sel[lanes], x[lanes], np.float32(2.5))
    np.testing.assert_array_equal(z, want)


VIOLATIONS = {
    100: (rt.AlignmentError, r"Gather: srcOffset\[3\] = 6 is not a multiple of sizeof\(float\)"),
    101: (
        rt.LocalMemoryOutOfBounds,
        r"Gather: srcBaseAddr 0 \+ srcOffset\[3\] = 4096 reads byte 4096",
    ),
    102: (rt.AlignmentError, r"Gather: srcBaseAddr 2 is not a multiple"),
    103: (rt.AlignmentError, r"Gatherb: offset\[3\] = 16 is not a multiple of 32 bytes"),
    104: (rt.LocalMemoryOutOfBounds, r"Transpose: sharedTmpBuffer holds 2176 bytes.*needs 2560"),
    105: (rt.AlignmentError, r"Transpose: hSize \* wSize \* sizeof\(T\) = 36 bytes"),
    106: (rt.SimulatorError, r"Transpose: cSize 4096 is outside \[0, 4095\]"),
    107: (rt.VectorCountError, r"MrgSort: validBit 5 is not 3, 7 or 15"),
    108: (
        rt.VectorCountError,
        r"MrgSort: repeatTimes 2 > 1 needs 4 equal queues stored one after another",
    ),
    109: (rt.VectorCountError, r"MrgSort: elementLengths\[0\] = 4096 is outside \[0, 4095\]"),
    110: (
        rt.SimulatorError,
        r"Select: a tensor src1 needs SELMODE::VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE",
    ),
    111: (
        rt.LocalMemoryOutOfBounds,
        r"Select: selMask: 512 bits need 64 bytes but the LocalTensor<uint8_t> holds 32",
    ),
    112: (rt.LocalMemoryOutOfBounds, r"Compare: src0: the mask and 20 repeat\(s\) reach element"),
    113: (rt.LocalMemoryOutOfBounds, r"CreateVecIndex: dst: count 2000 exceeds"),
    114: (rt.VectorCountError, r"Extract: repeatTime 256 is outside \[0, 255\]"),
    115: (
        rt.AlignmentError,
        r"Transpose: src LocalTensor starts at UB offset \d+, which is not 32-byte aligned",
    ),
}


@pytest.mark.parametrize("mode", sorted(VIOLATIONS))
def test_documented_limits(lib: rt.KernelLibrary, mode: int,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    """One violation per documented limit (Gather.md, Gatherb(ISASI).md, Transpose.md, MrgSort.md,
    Select.md, Compare.md, CreateVecIndex.md, Extract.md; UB alignment: general constraints)."""
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    error, message = VIOLATIONS[mode]
    off = (np.arange(256) * 4).astype(np.uint32)
    if mode == 100:
        off[3] = 6
    if mode == 101:
        off[3] = 4096
    if mode == 103:
        off = (np.arange(16) * 32).astype(np.uint32)
        off[3] = 16
    with pytest.raises(error, match=message):
        run(lib, mode, np.zeros(1024, np.float32), off)
