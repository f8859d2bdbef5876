// leaky_relu: y = x > 0 ? x : x * negative_slope. Multi-core, double-buffered element-wise kernel.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct LeakyReluTilingData {
    uint32_t totalLength;  // elements of y
    uint32_t blockLength;  // elements per block
    uint32_t tileLength;   // elements per tile, a multiple of 32 bytes
    float negativeSlope;   // the negative_slope attr
};
REGISTER_TILING_DEFAULT(LeakyReluTilingData);

template <typename T>
class KernelLeakyRelu {
public:
    __aicore__ inline KernelLeakyRelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const LeakyReluTilingData& t)
    {
        const uint64_t start = static_cast<uint64_t>(t.blockLength) * GetBlockIdx();
        const uint64_t rest = start < t.totalLength ? t.totalLength - start : 0;
        length = rest < t.blockLength ? rest : t.blockLength;
        tileLength = t.tileLength;
        slope = static_cast<T>(t.negativeSlope);
        xGm.SetGlobalBuffer((__gm__ T*)x + start, length);
        yGm.SetGlobalBuffer((__gm__ T*)y + start, length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        const uint32_t loopCount = (length + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < loopCount; i++) {
            const uint32_t left = length - i * tileLength;
            const uint32_t n = left < tileLength ? left : tileLength;
            CopyIn(i, n);
            Compute(n);
            CopyOut(i, n);
        }
    }

private:
    static constexpr uint32_t ALIGN = 32 / sizeof(T);

    __aicore__ inline void CopyIn(uint32_t progress, uint32_t n)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        if (n % ALIGN == 0) {
            DataCopy(xLocal, xGm[progress * tileLength], n);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[progress * tileLength], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        LeakyRelu(yLocal, xLocal, slope, (n + ALIGN - 1) / ALIGN * ALIGN);
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t n)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        if (n % ALIGN == 0) {
            DataCopy(yGm[progress * tileLength], yLocal, n);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPad(yGm[progress * tileLength], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    uint32_t length;
    uint32_t tileLength;
    T slope;
};

extern "C" __global__ __aicore__ void leaky_relu(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                 GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLeakyRelu<DTYPE_X> op;
    op.Init(x, y, tilingData);
    op.Process();
}
