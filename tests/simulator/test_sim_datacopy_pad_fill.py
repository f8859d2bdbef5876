"""What DataCopyPad(GM->UB) writes around each block's data, as the Ascend C reference documents it
("DataCopyPad", GM->UB, DataCopyPadExtParams; "SetPadValue(ISASI)"): leftPadding and
rightPadding apply whatever isPad says; the padding holds paddingValue with isPad, the value of
SetPadValue with isPad false once it was called, and with no left or right padding the dummy
elements up to 32 bytes repeat the block's first element. asc-devkit's
03_basic_api/00_data_movement/data_copy_pad_gm2ub_ub2gm sample (scenario 1) depends on
SetPadValue."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct PadFillTilingData {
    int32_t mode;
};
REGISTER_TILING_DEFAULT(PadFillTilingData);

extern "C" __global__ __aicore__ void pad_fill(GM_ADDR x, GM_ADDR z, GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECIN> buf;
    pipe.InitBuffer(buf, 64 * sizeof(half));
    GlobalTensor<half> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, 64);
    zGm.SetGlobalBuffer((__gm__ half*)z + GetBlockIdx() * 64, 64);
    LocalTensor<half> row = buf.Get<half>();
    Duplicate(row, (half)-5, 64);  // what the UB held before the copy
    event_t ev = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE2));
    SetFlag<HardEvent::V_MTE2>(ev);
    WaitFlag<HardEvent::V_MTE2>(ev);
    DataCopyExtParams copy{1, 20 * sizeof(half), 0, 0, 0};
    if (t.mode == 1) {  // the reference's scenario: SetPadValue with isPad false
        SetPadValue((half)1);
        DataCopyPad(row, xGm, copy, DataCopyPadExtParams<half>{false, 0, 12, 0});
    }
    if (t.mode == 2) {  // no padding asked: the dummy elements repeat the first one
        DataCopyPad(row, xGm, copy, DataCopyPadExtParams<half>{false, 0, 0, 0});
    }
    if (t.mode == 3) {  // leftPadding moves the data even with isPad false
        DataCopyPad(row, xGm, copy, DataCopyPadExtParams<half>{false, 2, 0, 0});
    }
    if (t.mode == 4) {  // isPad: paddingValue, also over a SetPadValue
        SetPadValue((half)1);
        DataCopyPad(row, xGm, copy, DataCopyPadExtParams<half>{true, 2, 3, (half)7});
    }
    if (t.mode == 5) {  // SetPadValue holds for its block only
        if (GetBlockIdx() == 0) SetPadValue((half)9);
        DataCopyPad(row, xGm, copy, DataCopyPadExtParams<half>{false, 0, 0, 0});
    }
    event_t back = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_MTE3));
    SetFlag<HardEvent::MTE2_MTE3>(back);
    WaitFlag<HardEvent::MTE2_MTE3>(back);
    DataCopy(zGm, row, 64);
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("pad_fill")) / "pad_fill.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry="pad_fill")


X = np.arange(1, 65, dtype=np.float16)


def run(lib: rt.KernelLibrary, mode: int, blocks: int = 1) -> np.ndarray:
    z = np.zeros(64 * blocks, np.float16)
    rt.launch(lib, "pad_fill", [X.copy(), z], block_dim=blocks,
              tiling=np.array([mode], np.int32).tobytes())
    return z.reshape(blocks, 64)


def test_set_pad_value_fills_with_is_pad_false(lib: rt.KernelLibrary) -> None:
    row = run(lib, 1)[0]
    np.testing.assert_array_equal(row[:20], X[:20])
    np.testing.assert_array_equal(row[20:32], 1)  # rightPadding 12 up to 32 halves
    np.testing.assert_array_equal(row[32:], -5)  # past the row: untouched


def test_dummy_repeats_the_first_element(lib: rt.KernelLibrary) -> None:
    row = run(lib, 2)[0]
    np.testing.assert_array_equal(row[:20], X[:20])
    np.testing.assert_array_equal(row[20:32], X[0])
    np.testing.assert_array_equal(row[32:], -5)


def test_left_padding_applies_without_is_pad(lib: rt.KernelLibrary) -> None:
    row = run(lib, 3)[0]
    np.testing.assert_array_equal(row[2:22], X[:20])  # the padding itself is unspecified


def test_is_pad_value_wins(lib: rt.KernelLibrary) -> None:
    row = run(lib, 4)[0]
    np.testing.assert_array_equal(row[:2], 7)
    np.testing.assert_array_equal(row[2:22], X[:20])
    np.testing.assert_array_equal(row[22:32], 7)  # rightPadding 3, then dummy to 32 bytes


def test_set_pad_value_is_per_block(lib: rt.KernelLibrary) -> None:
    rows = run(lib, 5, blocks=2)
    np.testing.assert_array_equal(rows[0][20:32], 9)
    np.testing.assert_array_equal(rows[1][20:32], X[0])
