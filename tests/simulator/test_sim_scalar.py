"""The basic API's scalar computations (reference "标量计算"), and GatherMask's kept-element
register (AscendCUtils::GetRsvdCnt, GetGatherMaskRemainCount)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void scalar_k(GM_ADDR x, GM_ADDR out, GM_ADDR workspace,
                                               GM_ADDR tiling)
{
    GlobalTensor<uint64_t> in;
    in.SetGlobalBuffer((__gm__ uint64_t*)x, 8);
    GlobalTensor<int64_t> o;
    o.SetGlobalBuffer((__gm__ int64_t*)out, 64);
    for (int i = 0; i < 8; ++i) {
        const uint64_t v = in.GetValue(i);
        o.SetValue(i * 7 + 0, GetBitCount<1>(v));
        o.SetValue(i * 7 + 1, ScalarGetCountOfValue<0>(v));
        o.SetValue(i * 7 + 2, CountLeadingZero(v));
        o.SetValue(i * 7 + 3, CountBitsCntSameAsSignBit(static_cast<int64_t>(v)));
        o.SetValue(i * 7 + 4, GetSFFValue<1>(v));
        o.SetValue(i * 7 + 5, ScalarGetSFFValue<0>(v));
        o.SetValue(i * 7 + 6, ScalarCountLeadingZero(v));
    }
    // float -> half CAST_ODD and float -> int32_t in four modes, of 2.5 and -3.14159
    half h = Cast<float, half, RoundMode::CAST_ODD>(3.14159f);
    o.SetValue(56, static_cast<int64_t>(*reinterpret_cast<uint16_t*>(&h)));
    o.SetValue(57, Cast<float, int32_t, RoundMode::CAST_ROUND>(2.5f));
    o.SetValue(58, Cast<float, int32_t, RoundMode::CAST_RINT>(2.5f));
    o.SetValue(59, ScalarCast<float, int32_t, RoundMode::CAST_FLOOR>(-3.14159f));
    o.SetValue(60, Cast<float, int32_t, RoundMode::CAST_CEIL>(-3.14159f));
    // GatherMask keeps the elements of its pattern; the register says how many
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    LocalTensor<float> src = buf.Get<float>(), dst = src[64];
    Duplicate(src, 1.0f, 64);
    uint64_t kept = 0;
    GatherMask(dst, src, 3, false, 0, GatherMaskParams{1, 1, 8, 0}, kept);  // every fourth
    o.SetValue(61, static_cast<int64_t>(kept));
    o.SetValue(62, AscendCUtils::GetRsvdCnt());
    o.SetValue(63, GetGatherMaskRemainCount());
    o.SetValue(0, g_coreType == AscendC::AIV && ASCEND_IS_AIV && !ASCEND_IS_NOT_AIV ? 2 : -2);
}
"""

VALUES = [0, 1, 0x0100000000000020, 0x1000000000000100, 0xFFFFFFFFFFFFFFFF,
          0x8000000000000000, 0xFFFF0000FFFF0000, 0x7FFFFFFFFFFFFFFE]


def expected(v: int) -> list[int]:
    ones = bin(v).count("1")
    clz = 64 - v.bit_length()
    signed = v - (1 << 64) if v >> 63 else v
    if signed in (0, -1):
        same = -1
    else:
        sign = v >> 63
        same = 0
        for bit in range(62, -1, -1):
            if (v >> bit) & 1 != sign:
                break
            same += 1
    low1 = (v & -v).bit_length() - 1 if v else -1
    inv = ~v & (2**64 - 1)
    low0 = (inv & -inv).bit_length() - 1 if inv else -1
    return [ones, 64 - ones, clz, same, low1, low0, clz]


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src: Path = tmp_path_factory.mktemp("scalar") / "scalar_k.cpp"
    src.write_text(KERNEL)
    return rt.build_kernel(src, entry="scalar_k")


def test_scalar_computations_follow_the_reference(lib: rt.KernelLibrary) -> None:
    x = rt.gm_empty(8, "uint64")
    x[:] = np.array(VALUES, np.uint64)
    out = rt.gm_empty(64, "int64")
    rt.launch(lib, "scalar_k", [x, out], block_dim=1, tiling=b"")
    got = [int(v) for v in out]
    assert got[0] == 2  # g_coreType: a vector core (CANN's CPU-debug variable)
    got[0] = expected(VALUES[0])[0]
    for i, v in enumerate(VALUES):
        assert got[i * 7:i * 7 + 7] == expected(v), hex(v)
    # the reference's examples: CountLeadingZero 7, CountBitsCntSameAsSignBit 6, GetSFFValue<1> 8
    assert got[2 * 7 + 2] == 7 and got[2 * 7 + 3] == 6 and got[3 * 7 + 4] == 8
    # 3.14159 to half rounding to odd: 3.140625 and 3.142578125 bracket it, the odd one wins
    assert struct.unpack("<e", struct.pack("<H", got[56]))[0] == 3.142578125
    assert got[57:61] == [3, 2, -4, -3]
    assert got[61:64] == [16, 16, 16]
