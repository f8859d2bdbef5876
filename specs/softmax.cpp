// softmax over the last axis: y = exp(x - max) / sum(exp(x - max)), row by row. Rows are split
// over the blocks; each row is staged in UB (computed in float for half inputs).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct SoftmaxCustomTilingData {
    uint32_t rows;  // product of all dims but the last
    uint32_t cols;  // the last dim, the softmax axis
    uint32_t rank;  // rank of x
    int64_t axis;   // the axis attr; this kernel handles the last axis only
};
REGISTER_TILING_DEFAULT(SoftmaxCustomTilingData);

template <typename T>
class KernelSoftmax {
public:
    static constexpr uint32_t ALIGN = 32 / sizeof(T);
    static constexpr uint32_t FLOATS_PER_REPEAT = 64;

    __aicore__ inline KernelSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxCustomTilingData& t)
    {
        ascendc_assert(t.axis == -1 || t.axis == static_cast<int64_t>(t.rank) - 1);
        cols = t.cols;
        colsAligned = (cols + ALIGN - 1) / ALIGN * ALIGN;
        const uint32_t perBlock = (t.rows + GetBlockNum() - 1) / GetBlockNum();
        rowStart = perBlock * GetBlockIdx();
        rowCount = rowStart < t.rows ? (t.rows - rowStart < perBlock ? t.rows - rowStart : perBlock) : 0;
        xGm.SetGlobalBuffer((__gm__ T*)x, static_cast<uint64_t>(t.rows) * cols);
        yGm.SetGlobalBuffer((__gm__ T*)y, static_cast<uint64_t>(t.rows) * cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, colsAligned * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, colsAligned * sizeof(T));
        const uint32_t repeats = (cols + FLOATS_PER_REPEAT - 1) / FLOATS_PER_REPEAT;
        pipe.InitBuffer(workBuf, ((repeats + 7) / 8 * 8) * sizeof(float));
        pipe.InitBuffer(resultBuf, 32);
        if constexpr (!std::is_same_v<T, float>) {
            pipe.InitBuffer(floatBuf, (cols + 7) / 8 * 8 * sizeof(float));
        }
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < rowCount; r++) {
            CopyIn(rowStart + r);
            Compute();
            CopyOut(rowStart + r);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t row)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[static_cast<uint64_t>(row) * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline float ReadResult()
    {
        event_t eventVS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        return resultBuf.Get<float>().GetValue(0);
    }
    __aicore__ inline void SoftmaxRow(const LocalTensor<float>& src, const LocalTensor<float>& dst)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> result = resultBuf.Get<float>();
        ReduceMax(result, src, work, cols);
        const float rowMax = ReadResult();
        Adds(dst, src, -rowMax, cols);
        Exp(dst, dst, cols);
        ReduceSum(result, dst, work, cols);
        const float rowSum = ReadResult();
        Muls(dst, dst, 1.0f / rowSum, cols);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        if constexpr (std::is_same_v<T, float>) {
            SoftmaxRow(xLocal, yLocal);
        } else {
            LocalTensor<float> f = floatBuf.Get<float>();
            Cast(f, xLocal, RoundMode::CAST_NONE, cols);
            SoftmaxRow(f, f);
            Cast(yLocal, f, RoundMode::CAST_RINT, cols);
        }
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t row)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm[static_cast<uint64_t>(row) * cols], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> workBuf, resultBuf, floatBuf;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    uint32_t cols;
    uint32_t colsAligned;
    uint32_t rowStart;
    uint32_t rowCount;
};

extern "C" __global__ __aicore__ void softmax(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                              GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSoftmax<DTYPE_X> op;
    op.Init(x, y, tilingData);
    op.Process();
}
