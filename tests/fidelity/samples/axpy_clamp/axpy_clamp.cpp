/* axpy_clamp: z = min(max(alpha * x + y, low), high), element type a template parameter.
 * The tiling struct arrives by value. Tiles use one TBuf per operand (no queues), so every
 * step synchronises the copy and vector pipes itself with SetFlag/WaitFlag. */
#include "axpy_clamp_tiling.h"
#include "kernel_operator.h"

template <typename T>
class AxpyClamp {
public:
    __aicore__ inline AxpyClamp(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AxpyClampTiling &tiling)
        : params(tiling)
    {
        ascendc_assert(tiling.tileNum > 0, "tileNum must be positive, got %u", tiling.tileNum);
        span = tiling.length / AscendC::GetBlockNum();
        tile = span / tiling.tileNum;
        const uint32_t start = span * AscendC::GetBlockIdx();
        xs.SetGlobalBuffer((__gm__ T *)x + start, span);
        ys.SetGlobalBuffer((__gm__ T *)y + start, span);
        zs.SetGlobalBuffer((__gm__ T *)z + start, span);
        pipe.InitBuffer(xBuf, tile * sizeof(T));
        pipe.InitBuffer(yBuf, tile * sizeof(T));
    }

    __aicore__ inline void Run()
    {
        AscendC::LocalTensor<T> xt = xBuf.Get<T>();
        AscendC::LocalTensor<T> yt = yBuf.Get<T>();
        for (uint32_t t = 0; t < params.tileNum; ++t) {
            AscendC::DataCopy(xt, xs[t * tile], tile);
            AscendC::DataCopy(yt, ys[t * tile], tile);
            AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID1);
            AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID1);
            AscendC::Muls(xt, xt, static_cast<T>(params.alpha), tile);
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Add(xt, xt, yt, tile);
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Maxs(xt, xt, static_cast<T>(params.low), tile);
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Mins(xt, xt, static_cast<T>(params.high), tile);
            AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
            AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
            AscendC::DataCopy(zs[t * tile], xt, tile);
            // the next tile's loads overwrite xt and yt: wait for this write-back first
            AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID1);
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID1);
        }
    }

private:
    AxpyClampTiling params;
    uint32_t span = 0;
    uint32_t tile = 0;
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xBuf, yBuf;
    AscendC::GlobalTensor<T> xs, ys, zs;
};

extern "C" __global__ __aicore__ void axpy_clamp(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                 AxpyClampTiling tiling)
{
    AxpyClamp<float> op(x, y, z, tiling);
    op.Run();
}
