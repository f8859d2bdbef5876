"""A kernel that copies its tiling struct word by word through a uint32_t pointer and then reads
its float fields (the CopyTiling of CANN samples written before GET_TILING_DATA): undefined in
C++, and GCC at -O2 and up would read the struct's initial zeros. A kernel whose source casts to
an integer pointer outside GM is built with -fno-strict-aliasing (opgen_runtime.build,
aliasing_flags), so it sees what it copied; the others keep the faster strict-aliasing build."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

import opgen_runtime as rt

PUN_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct PunTiling {
    uint32_t n = 0;
    float alpha = 0.0f;
    float beta = 0.0f;
};

__aicore__ inline void CopyTiling(PunTiling* tiling, GM_ADDR tilingGm)
{
    uint32_t* ptr = reinterpret_cast<uint32_t*>(tiling);
    auto words = reinterpret_cast<__gm__ uint32_t*>(tilingGm);
    for (int i = 0; i < static_cast<int>(sizeof(PunTiling) / sizeof(uint32_t)); i++, ptr++) {
        *ptr = *(words + i);
    }
}

extern "C" __global__ __aicore__ void pun(GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    PunTiling t;
    CopyTiling(&t, tiling);
    GlobalTensor<float> zGm;
    zGm.SetGlobalBuffer((__gm__ float*)z, 8);
    zGm.SetValue(0, t.alpha);
    zGm.SetValue(1, t.beta * static_cast<float>(t.n));
}
"""


def test_tiling_copied_through_a_word_pointer_reads_as_copied(tmp_path: Path) -> None:
    src = tmp_path / "pun.cpp"
    src.write_text(PUN_CPP)
    lib = rt.build_kernel(src, entry="pun")
    z = np.zeros(8, np.float32)
    rt.launch(lib, "pun", [z], block_dim=1, tiling=struct.pack("<Iff", 3, 0.9375, 2.0))
    np.testing.assert_array_equal(z[:2], [0.9375, 6.0])


def test_only_kernels_with_such_casts_drop_strict_aliasing() -> None:
    from opgen_runtime.build import aliasing_flags

    assert aliasing_flags(PUN_CPP.encode()) == ["-fno-strict-aliasing"]
    assert aliasing_flags(b"*(uint32_t *)&bits = 1;") == ["-fno-strict-aliasing"]
    for text in (b"xGm.SetGlobalBuffer((__gm__ float*)x);",
                 b"auto w = reinterpret_cast<__gm__ uint32_t*>(tilingGm);",
                 b"auto b = reinterpret_cast<uint8_t*>(p);"):
        assert aliasing_flags(text) == [], text
