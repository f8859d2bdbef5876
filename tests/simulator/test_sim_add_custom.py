# ruff: noqa: E501
"""CANN's canonical add_custom sample, typed out as the samples write it, compiles and runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

# op_kernel/add_custom.cpp of the AddCustom sample (TQue<QuePosition::VECIN, BUFFER_NUM> style).
ADD_CUSTOM_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;
constexpr int32_t BUFFER_NUM = 2; // tensor num for each queue

class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileNum)
    {
        ASSERT(GetBlockNum() != 0 && "block dim can not be zero!");
        this->blockLength = totalLength / GetBlockNum();
        this->tileNum = tileNum;
        ASSERT(tileNum != 0 && "tile num can not be zero!");
        this->tileLength = this->blockLength / tileNum / BUFFER_NUM;

        xGm.SetGlobalBuffer((__gm__ DTYPE_X*)x + this->blockLength * GetBlockIdx(), this->blockLength);
        yGm.SetGlobalBuffer((__gm__ DTYPE_Y*)y + this->blockLength * GetBlockIdx(), this->blockLength);
        zGm.SetGlobalBuffer((__gm__ DTYPE_Z*)z + this->blockLength * GetBlockIdx(), this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(DTYPE_X));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, this->tileLength * sizeof(DTYPE_Y));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(DTYPE_Z));
    }
    __aicore__ inline void Process()
    {
        int32_t loopCount = this->tileNum * BUFFER_NUM;
        for (int32_t i = 0; i < loopCount; i++) {
            CopyIn(i);
            Compute(i);
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t progress)
    {
        LocalTensor<DTYPE_X> xLocal = inQueueX.AllocTensor<DTYPE_X>();
        LocalTensor<DTYPE_Y> yLocal = inQueueY.AllocTensor<DTYPE_Y>();
        DataCopy(xLocal, xGm[progress * this->tileLength], this->tileLength);
        DataCopy(yLocal, yGm[progress * this->tileLength], this->tileLength);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(int32_t progress)
    {
        LocalTensor<DTYPE_X> xLocal = inQueueX.DeQue<DTYPE_X>();
        LocalTensor<DTYPE_Y> yLocal = inQueueY.DeQue<DTYPE_Y>();
        LocalTensor<DTYPE_Z> zLocal = outQueueZ.AllocTensor<DTYPE_Z>();
        Add(zLocal, xLocal, yLocal, this->tileLength);
        outQueueZ.EnQue<DTYPE_Z>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress)
    {
        LocalTensor<DTYPE_Z> zLocal = outQueueZ.DeQue<DTYPE_Z>();
        DataCopy(zGm[progress * this->tileLength], zLocal, this->tileLength);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<DTYPE_X> xGm;
    GlobalTensor<DTYPE_Y> yGm;
    GlobalTensor<DTYPE_Z> zGm;
    uint32_t blockLength;
    uint32_t tileNum;
    uint32_t tileLength;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelAdd op;
    op.Init(x, y, z, tiling_data.totalLength, tiling_data.tileNum);
    op.Process();
}
"""

# op_host/add_custom_tiling.h of the sample; CANN's build hands this struct to the kernel.
ADD_CUSTOM_TILING_H = r"""
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);
  TILING_DATA_FIELD_DEF(uint32_t, tileNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, TilingData)
}
"""

TOTAL_LENGTH = 8 * 2048
TILE_NUM = 8
BLOCK_DIM = 8


@pytest.mark.parametrize(("dtype", "ctype"), [("float16", "half"), ("float32", "float")])
def test_add_custom_sample_compiles_unchanged_and_runs(
    tmp_path: Path, dtype: str, ctype: str
) -> None:
    src = tmp_path / "add_custom.cpp"
    src.write_text(ADD_CUSTOM_CPP)
    tiling_h = tmp_path / "add_custom_tiling.h"
    tiling_h.write_text(ADD_CUSTOM_TILING_H)
    lib = rt.build_kernel(
        src,
        entry="add_custom",
        defines={"DTYPE_X": ctype, "DTYPE_Y": ctype, "DTYPE_Z": ctype},
        extra_flags=("-include", str(tiling_h)),
    )
    layout = rt.TilingLayout.from_fields(
        "TilingData", [("totalLength", "uint32_t"), ("tileNum", "uint32_t")]
    )
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, TOTAL_LENGTH).astype(dtype)
    y = rng.uniform(-1, 1, TOTAL_LENGTH).astype(dtype)
    z = np.zeros_like(x)
    prof = rt.launch(
        lib,
        "add_custom",
        {"x": x, "y": y, "z": z},
        block_dim=BLOCK_DIM,
        tiling=layout.pack({"totalLength": TOTAL_LENGTH, "tileNum": TILE_NUM}),
    )
    np.testing.assert_array_equal(z, x + y)
    itemsize = np.dtype(dtype).itemsize
    assert prof.gm_to_ub_bytes == 2 * TOTAL_LENGTH * itemsize
    assert prof.ub_to_gm_bytes == TOTAL_LENGTH * itemsize
    assert prof.vector_instructions == BLOCK_DIM * TILE_NUM * 2
