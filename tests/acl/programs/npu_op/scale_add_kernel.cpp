#include "kernel_operator.h"
#include "scale_add_tiling.h"

extern "C" __global__ __aicore__ void scale_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                       GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(ScaleAddTilingData);
    GET_TILING_DATA(t, tiling);
    const uint32_t n = t.blockLength;
    AscendC::GlobalTensor<float> xg, yg, zg;
    xg.SetGlobalBuffer((__gm__ float*)x + n * AscendC::GetBlockIdx(), n);
    yg.SetGlobalBuffer((__gm__ float*)y + n * AscendC::GetBlockIdx(), n);
    zg.SetGlobalBuffer((__gm__ float*)z + n * AscendC::GetBlockIdx(), n);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> bx, by;
    pipe.InitBuffer(bx, n * sizeof(float));
    pipe.InitBuffer(by, n * sizeof(float));
    AscendC::LocalTensor<float> a = bx.Get<float>(), b = by.Get<float>();
    AscendC::DataCopy(a, xg, n);
    AscendC::DataCopy(b, yg, n);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Muls(a, a, t.alpha, n);
    AscendC::Add(a, a, b, n);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(zg, a, n);
}
