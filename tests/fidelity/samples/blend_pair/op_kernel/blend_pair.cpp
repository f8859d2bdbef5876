/* op_kernel/blend_pair.cpp: the tiling key picks the blend.
 *   key 1: z = x + y, with double-buffered queues;
 *   key 2: z = max(x, y), one buffer per queue.
 * Element types come from the build (DTYPE_X, DTYPE_Y, DTYPE_Z), the tiling from
 * GET_TILING_DATA on the op_host header's struct. */
#include "kernel_operator.h"

enum class Blend { SUM, MAX };

template <Blend MODE, int32_t DEPTH>
struct BlendPass {
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> xq, yq;  // room for DEPTH <= 2 buffers
    AscendC::TQue<AscendC::TPosition::VECOUT, 2> zq;
    AscendC::GlobalTensor<DTYPE_X> xg;
    AscendC::GlobalTensor<DTYPE_Y> yg;
    AscendC::GlobalTensor<DTYPE_Z> zg;
    uint32_t chunk = 0;
    uint32_t chunks = 0;

    __aicore__ inline void Run(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tiles)
    {
        const uint32_t share = total / AscendC::GetBlockNum();
        const uint32_t base = share * AscendC::GetBlockIdx();
        chunks = tiles * DEPTH;
        chunk = share / chunks;
        xg.SetGlobalBuffer((__gm__ DTYPE_X *)x + base, share);
        yg.SetGlobalBuffer((__gm__ DTYPE_Y *)y + base, share);
        zg.SetGlobalBuffer((__gm__ DTYPE_Z *)z + base, share);
        pipe.InitBuffer(xq, DEPTH, chunk * sizeof(DTYPE_X));
        pipe.InitBuffer(yq, DEPTH, chunk * sizeof(DTYPE_Y));
        pipe.InitBuffer(zq, DEPTH, chunk * sizeof(DTYPE_Z));
        for (uint32_t c = 0; c < chunks; ++c) {
            Fetch(c);
            Blend1();
            Flush(c);
        }
    }

    __aicore__ inline void Fetch(uint32_t c)
    {
        AscendC::LocalTensor<DTYPE_X> xl = xq.AllocTensor<DTYPE_X>();
        AscendC::DataCopy(xl, xg[c * chunk], chunk);
        xq.EnQue(xl);
        AscendC::LocalTensor<DTYPE_Y> yl = yq.AllocTensor<DTYPE_Y>();
        AscendC::DataCopy(yl, yg[c * chunk], chunk);
        yq.EnQue(yl);
    }

    __aicore__ inline void Blend1()
    {
        // the output buffer first: with DEPTH 1 it is the one that may still be in flight
        AscendC::LocalTensor<DTYPE_Z> zl = zq.AllocTensor<DTYPE_Z>();
        AscendC::LocalTensor<DTYPE_X> xl = xq.DeQue<DTYPE_X>();
        AscendC::LocalTensor<DTYPE_Y> yl = yq.DeQue<DTYPE_Y>();
        if constexpr (MODE == Blend::SUM) {
            AscendC::Add(zl, xl, yl, chunk);
        } else {
            AscendC::Max(zl, xl, yl, chunk);
        }
        xq.FreeTensor(xl);
        yq.FreeTensor(yl);
        zq.EnQue<DTYPE_Z>(zl);
    }

    __aicore__ inline void Flush(uint32_t c)
    {
        AscendC::LocalTensor<DTYPE_Z> zl = zq.DeQue<DTYPE_Z>();
        AscendC::DataCopy(zg[c * chunk], zl, chunk);
        zq.FreeTensor(zl);
    }
};

extern "C" __global__ __aicore__ void blend_pair(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                 GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(plan, tiling);
    if (TILING_KEY_IS(1)) {
        BlendPass<Blend::SUM, 2> pass;
        pass.Run(x, y, z, plan.totalLength, plan.tileNum);
    } else if (TILING_KEY_IS(2)) {
        BlendPass<Blend::MAX, 1> pass;
        pass.Run(x, y, z, plan.totalLength, plan.tileNum);
    }
}
