/* row_mean: y[r] = mean(x[r, :]) for rows of COLS floats, COLS not a multiple of 8 (unaligned
 * rows). DataCopyPad pads each row to 32 bytes in UB, WholeReduceSum sums a row per repeat, a
 * counter-mode Muls scales the sums, and DataCopyPad writes the unaligned result back. */
#include "kernel_operator.h"

struct RowMeanTilingData {
    uint32_t rows;
    uint32_t cols;
};

constexpr uint32_t TILE_ROWS = 16;
constexpr uint32_t MAX_COLS = 64;                 // one float repeat per row
constexpr uint32_t ROW_ELEMS = MAX_COLS;          // UB row stride upper bound (elements)

class KernelRowMean {
public:
    __aicore__ inline KernelRowMean() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const RowMeanTilingData &t)
    {
        ascendc_assert(t.cols <= MAX_COLS);
        cols = t.cols;
        const uint32_t per = (t.rows + AscendC::GetBlockNum() - 1) / AscendC::GetBlockNum();
        const uint32_t first = per * AscendC::GetBlockIdx();
        rows = first >= t.rows ? 0 : (t.rows - first < per ? t.rows - first : per);
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, rows * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first, rows);
        pipe.InitBuffer(inQueueX, 2, TILE_ROWS * ROW_ELEMS * sizeof(float));
        pipe.InitBuffer(outQueueY, 2, TILE_ROWS * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r0 = 0; r0 < rows; r0 += TILE_ROWS) {
            const uint32_t n = rows - r0 < TILE_ROWS ? rows - r0 : TILE_ROWS;
            CopyIn(r0, n);
            Compute(n);
            CopyOut(r0, n);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t r0, uint32_t n)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        const uint32_t padded = (cols + 7) / 8 * 8;
        AscendC::DataCopyExtParams copyParams{static_cast<uint16_t>(n), cols * static_cast<uint32_t>(sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{true, 0, static_cast<uint8_t>(padded - cols), 0.0f};
        AscendC::DataCopyPad(xLocal, xGm[r0 * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        const int32_t rowBlocks = static_cast<int32_t>((cols + 7) / 8);  // srcRepStride: one padded row
        int32_t repeat = static_cast<int32_t>(n);
#ifdef OPGEN_TEST_OVERRUN
        repeat += TILE_ROWS;  // a repeat count past the tile: must be reported, not corrupt UB
#endif
        AscendC::WholeReduceSum<float>(yLocal, xLocal, static_cast<int32_t>(cols), repeat, 1, 1, rowBlocks);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::SetMaskCount();
        AscendC::SetVectorMask<float, AscendC::MaskMode::COUNTER>(0, n);
        AscendC::Muls<float, false>(yLocal, yLocal, 1.0f / cols, AscendC::MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
        AscendC::SetMaskNorm();
        AscendC::ResetMask();
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t r0, uint32_t n)
    {
        AscendC::LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        AscendC::DataCopyExtParams copyParams{1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(yGm[r0], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECOUT, 2> outQueueY;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t rows;
    uint32_t cols;
};

extern "C" __global__ __aicore__ void row_mean(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(RowMeanTilingData, tilingData, tiling);
    KernelRowMean op;
    op.Init(x, y, tilingData);
    op.Process();
}
