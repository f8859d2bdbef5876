// element_add: z = x + y. Multi-core and double-buffered, in the shape of CANN's add_custom
// sample; tails (a block or tile that is not a multiple of 32 bytes) go through DataCopyPad.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;  // tensors per queue: double buffering

struct ElementAddTilingData {
    uint32_t totalLength;  // elements of z
    uint32_t blockLength;  // elements per block (the last block may get fewer)
    uint32_t tileLength;   // elements per tile, a multiple of 32 bytes
};
REGISTER_TILING_DEFAULT(ElementAddTilingData);

template <typename T>
class KernelElementAdd {
public:
    __aicore__ inline KernelElementAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength,
                                uint32_t blockLength, uint32_t tileLength)
    {
        const uint64_t start = static_cast<uint64_t>(blockLength) * GetBlockIdx();
        const uint64_t rest = start < totalLength ? totalLength - start : 0;
        this->length = rest < blockLength ? rest : blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ T*)x + start, this->length);
        yGm.SetGlobalBuffer((__gm__ T*)y + start, this->length);
        zGm.SetGlobalBuffer((__gm__ T*)z + start, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        const uint32_t loopCount = (this->length + this->tileLength - 1) / this->tileLength;
        for (uint32_t i = 0; i < loopCount; i++) {
            const uint32_t left = this->length - i * this->tileLength;
            const uint32_t n = left < this->tileLength ? left : this->tileLength;
            CopyIn(i, n);
            Compute(n);
            CopyOut(i, n);
        }
    }

private:
    static constexpr uint32_t ALIGN = 32 / sizeof(T);

    __aicore__ inline void Load(LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t n)
    {
        if (n % ALIGN == 0) {
            DataCopy(dst, src, n);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(dst, src, copyParams, padParams);
        }
    }
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t n)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        Load(xLocal, xGm[progress * this->tileLength], n);
        Load(yLocal, yGm[progress * this->tileLength], n);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        Add(zLocal, xLocal, yLocal, (n + ALIGN - 1) / ALIGN * ALIGN);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t n)
    {
        LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        if (n % ALIGN == 0) {
            DataCopy(zGm[progress * this->tileLength], zLocal, n);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPad(zGm[progress * this->tileLength], zLocal, copyParams);
        }
        outQueueZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    GlobalTensor<T> zGm;
    uint32_t length;
    uint32_t tileLength;
};

extern "C" __global__ __aicore__ void element_add(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelElementAdd<DTYPE_X> op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
