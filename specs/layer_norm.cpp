// layer_norm over the last axis, with optional gamma/beta; also writes each row's mean and
// rstd (float32). Rows are split over the blocks and computed in float in UB; the rows' means and
// rstds are gathered in UB and written out STAT_ROWS at a time (one copy each, not two 4-byte
// copies a row).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct LayerNormCustomTilingData {
    uint32_t rows;          // product of all dims but the last
    uint32_t cols;          // the normalised (last) dim
    float epsilon;          // the epsilon attr
    uint32_t gammaPresent;  // optional inputs: 1 when passed
    uint32_t betaPresent;
};
REGISTER_TILING_DEFAULT(LayerNormCustomTilingData);

template <typename T>
class KernelLayerNorm {
public:
    static constexpr uint32_t ALIGN = 32 / sizeof(T);
    static constexpr uint32_t STAT_ROWS = 256;  // rows whose mean and rstd are copied out together

    __aicore__ inline KernelLayerNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, GM_ADDR mean,
                                GM_ADDR rstd, const LayerNormCustomTilingData& t)
    {
        cols = t.cols;
        epsilon = t.epsilon;
        hasGamma = t.gammaPresent != 0;
        hasBeta = t.betaPresent != 0;
        const uint32_t perBlock = (t.rows + GetBlockNum() - 1) / GetBlockNum();
        rowStart = perBlock * GetBlockIdx();
        rowCount = rowStart < t.rows ? (t.rows - rowStart < perBlock ? t.rows - rowStart : perBlock) : 0;
        const uint64_t total = static_cast<uint64_t>(t.rows) * cols;
        xGm.SetGlobalBuffer((__gm__ T*)x, total);
        yGm.SetGlobalBuffer((__gm__ T*)y, total);
        meanGm.SetGlobalBuffer((__gm__ float*)mean, t.rows);
        rstdGm.SetGlobalBuffer((__gm__ float*)rstd, t.rows);
        const uint32_t colsT = (cols + ALIGN - 1) / ALIGN * ALIGN;
        const uint32_t colsF = (cols + 7) / 8 * 8;
        pipe.InitBuffer(inQueueX, BUFFER_NUM, colsT * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, colsT * sizeof(T));
        if constexpr (!std::is_same_v<T, float>) {
            pipe.InitBuffer(xFloat, colsF * sizeof(float));
        }
        pipe.InitBuffer(yFloat, colsF * sizeof(float));
        pipe.InitBuffer(centered, colsF * sizeof(float));
        pipe.InitBuffer(workBuf, ((colsF / 64 + 1 + 7) / 8 * 8) * sizeof(float));
        pipe.InitBuffer(statBuf, 64);
        pipe.InitBuffer(meanBuf, STAT_ROWS * sizeof(float));
        pipe.InitBuffer(rstdBuf, STAT_ROWS * sizeof(float));
        if (hasGamma) {
            gammaGm.SetGlobalBuffer((__gm__ T*)gamma, cols);
            pipe.InitBuffer(gammaBuf, colsF * sizeof(float));
            LoadParam(gammaGm, gammaBuf.Get<float>(), colsT);
        }
        if (hasBeta) {
            betaGm.SetGlobalBuffer((__gm__ T*)beta, cols);
            pipe.InitBuffer(betaBuf, colsF * sizeof(float));
            LoadParam(betaGm, betaBuf.Get<float>(), colsT);
        }
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < rowCount; r++) {
            const uint32_t row = rowStart + r;
            const uint32_t slot = r % STAT_ROWS;
            CopyIn(row);
            Compute(slot);
            CopyOut(row);
            if (slot + 1 == STAT_ROWS || r + 1 == rowCount) {
                CopyOutStats(row - slot, slot + 1);
            }
        }
    }

private:
    // gamma/beta are loaded once per block (through the input queue) and kept as float.
    __aicore__ inline void LoadParam(const GlobalTensor<T>& src, const LocalTensor<float>& dst,
                                     uint32_t colsT)
    {
        LocalTensor<T> tmp = inQueueX.AllocTensor<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        DataCopyPad(tmp, src, copyParams, padParams);
        inQueueX.EnQue(tmp);
        tmp = inQueueX.DeQue<T>();
        ToFloat(dst, tmp);
        inQueueX.FreeTensor(tmp);
        (void)colsT;
    }
    __aicore__ inline void ToFloat(const LocalTensor<float>& dst, const LocalTensor<T>& src)
    {
        if constexpr (std::is_same_v<T, float>) {
            Adds(dst, src, 0.0f, cols);
        } else {
            Cast(dst, src, RoundMode::CAST_NONE, cols);
        }
    }
    // dst = d * rstd (* gamma) (+ beta); tmp holds the intermediate steps.
    __aicore__ inline void Normalize(const LocalTensor<float>& dst, const LocalTensor<float>& d,
                                     const LocalTensor<float>& tmp, float rstd)
    {
        if (!hasGamma && !hasBeta) {
            Muls(dst, d, rstd, cols);
            return;
        }
        if (hasGamma && hasBeta) {  // (d * rstd) * gamma + beta: two passes over the row
            Muls(dst, d, rstd, cols);
            FusedMulAdd(dst, gammaBuf.Get<float>(), betaBuf.Get<float>(), cols);
            return;
        }
        Muls(tmp, d, rstd, cols);
        if (hasGamma) {
            Mul(dst, tmp, gammaBuf.Get<float>(), cols);
        } else {
            Add(dst, tmp, betaBuf.Get<float>(), cols);
        }
    }
    __aicore__ inline void CopyIn(uint32_t row)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[static_cast<uint64_t>(row) * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline float ReadStat()
    {
        event_t eventVS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        return statBuf.Get<float>().GetValue(0);
    }
    __aicore__ inline void Compute(uint32_t slot)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<float> yf = yFloat.Get<float>();
        LocalTensor<float> d = centered.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> stat = statBuf.Get<float>();
        LocalTensor<float> xf;
        if constexpr (std::is_same_v<T, float>) {
            xf = xLocal;  // a float row is used where it landed
        } else {
            xf = xFloat.Get<float>();
            Cast(xf, xLocal, RoundMode::CAST_NONE, cols);
        }

        ReduceSum(stat, xf, work, cols);
        const float mean = ReadStat() / cols;
        Adds(d, xf, -mean, cols);
        inQueueX.FreeTensor(xLocal);
        Mul(yf, d, d, cols);
        ReduceSum(stat, yf, work, cols);
        const float rstd = 1.0f / sqrtf(ReadStat() / cols + epsilon);
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        if constexpr (std::is_same_v<T, float>) {
            Normalize(yLocal, d, yf, rstd);  // the last step writes the output row
        } else {
            Normalize(yf, d, yf, rstd);
            Cast(yLocal, yf, RoundMode::CAST_RINT, cols);
        }
        outQueueY.EnQue<T>(yLocal);

        // mean and rstd of this row: one float each, into the row's slot of the stats buffers
        meanBuf.Get<float>().SetValue(slot, mean);
        rstdBuf.Get<float>().SetValue(slot, rstd);
    }
    // the means and rstds of rows [first, first + n): written with byte-exact DataCopyPad
    __aicore__ inline void CopyOutStats(uint32_t first, uint32_t n)
    {
        event_t eventSM = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE3));
        SetFlag<HardEvent::S_MTE3>(eventSM);
        WaitFlag<HardEvent::S_MTE3>(eventSM);
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
        DataCopyPad(meanGm[first], meanBuf.Get<float>(), copyParams);
        DataCopyPad(rstdGm[first], rstdBuf.Get<float>(), copyParams);
        // the scalar unit writes the buffers again only once MTE3 has read them
        event_t eventMS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_S));
        SetFlag<HardEvent::MTE3_S>(eventMS);
        WaitFlag<HardEvent::MTE3_S>(eventMS);
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
    TBuf<QuePosition::VECCALC> xFloat, yFloat, centered, workBuf, statBuf, gammaBuf, betaBuf;
    TBuf<QuePosition::VECCALC> meanBuf, rstdBuf;
    GlobalTensor<T> xGm, gammaGm, betaGm, yGm;
    GlobalTensor<float> meanGm, rstdGm;
    uint32_t cols;
    float epsilon;
    bool hasGamma;
    bool hasBeta;
    uint32_t rowStart;
    uint32_t rowCount;
};

extern "C" __global__ __aicore__ void layer_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                                 GM_ADDR mean, GM_ADDR rstd, GM_ADDR workspace,
                                                 GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLayerNorm<DTYPE_X> op;
    op.Init(x, gamma, beta, y, mean, rstd, tilingData);
    op.Process();
}
