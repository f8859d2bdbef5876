// broadcast_add: z = x + y with numpy broadcasting. The output is walked row by row (rows = all
// dims but the last), rows split over the blocks; each row is tiled along the last dim. An
// operand that is broadcast along the last dim is a scalar per row and filled with Duplicate.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr int32_t MAX_DIMS = 8;

struct BroadcastAddTilingData {
    int64_t xShape[8];
    int64_t yShape[8];
    int64_t zShape[8];
    uint32_t xRank;
    uint32_t yRank;
    uint32_t zRank;
    uint32_t tileLength;  // elements per tile along the last dim, a multiple of 32 bytes
};
REGISTER_TILING_DEFAULT(BroadcastAddTilingData);

// One operand's view of the output: its dims right-aligned to the output's, and its strides.
struct Operand {
    int64_t dims[MAX_DIMS];
    int64_t strides[MAX_DIMS];
    uint64_t size;

    __aicore__ inline void Init(const int64_t* shape, uint32_t rank, uint32_t outRank)
    {
        size = 1;
        for (int32_t d = static_cast<int32_t>(outRank) - 1; d >= 0; d--) {
            const int32_t src = d - static_cast<int32_t>(outRank - rank);
            dims[d] = src >= 0 ? shape[src] : 1;
            strides[d] = static_cast<int64_t>(size);
            size *= static_cast<uint64_t>(dims[d]);
        }
    }
};

template <typename T>
class KernelBroadcastAdd {
public:
    static constexpr uint32_t ALIGN = 32 / sizeof(T);

    __aicore__ inline KernelBroadcastAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const BroadcastAddTilingData& t)
    {
        rank = t.zRank > 0 ? t.zRank : 1;
        const int64_t one[1] = {1};
        xv.Init(t.xRank > 0 ? t.xShape : one, t.xRank > 0 ? t.xRank : 1, rank);
        yv.Init(t.yRank > 0 ? t.yShape : one, t.yRank > 0 ? t.yRank : 1, rank);
        zv.Init(t.zRank > 0 ? t.zShape : one, t.zRank > 0 ? t.zRank : 1, rank);
        cols = static_cast<uint32_t>(zv.dims[rank - 1]);
        rows = cols > 0 ? zv.size / cols : 0;
        tileLength = t.tileLength;
        const uint64_t perBlock = (rows + GetBlockNum() - 1) / GetBlockNum();
        rowStart = perBlock * GetBlockIdx();
        rowCount = rowStart < rows ? (rows - rowStart < perBlock ? rows - rowStart : perBlock) : 0;
        xGm.SetGlobalBuffer((__gm__ T*)x, xv.size);
        yGm.SetGlobalBuffer((__gm__ T*)y, yv.size);
        zGm.SetGlobalBuffer((__gm__ T*)z, zv.size);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint64_t r = rowStart; r < rowStart + rowCount; r++) {
            const uint64_t xRow = RowOffset(xv, r);
            const uint64_t yRow = RowOffset(yv, r);
            for (uint32_t c = 0; c < cols; c += tileLength) {
                const uint32_t n = cols - c < tileLength ? cols - c : tileLength;
                CopyIn(xRow, yRow, c, n);
                Compute(n);
                CopyOut(r * cols + c, n);
            }
        }
    }

private:
    // GM offset of output row r's first element in an operand (broadcast dims contribute 0).
    __aicore__ inline uint64_t RowOffset(const Operand& v, uint64_t r) const
    {
        uint64_t off = 0;
        for (int32_t d = static_cast<int32_t>(rank) - 2; d >= 0; d--) {
            const uint64_t idx = r % static_cast<uint64_t>(zv.dims[d]);
            r /= static_cast<uint64_t>(zv.dims[d]);
            if (v.dims[d] != 1) {
                off += idx * static_cast<uint64_t>(v.strides[d]);
            }
        }
        return off;
    }
    __aicore__ inline void Load(const LocalTensor<T>& dst, const GlobalTensor<T>& gm,
                                const Operand& v, uint64_t rowOff, uint32_t c, uint32_t n)
    {
        if (v.dims[rank - 1] == 1 && cols != 1) {
            Duplicate(dst, gm.GetValue(rowOff), (n + ALIGN - 1) / ALIGN * ALIGN);
        } else if (n % ALIGN == 0) {
            DataCopy(dst, gm[rowOff + c], n);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(dst, gm[rowOff + c], copyParams, padParams);
        }
    }
    __aicore__ inline void CopyIn(uint64_t xRow, uint64_t yRow, uint32_t c, uint32_t n)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        Load(xLocal, xGm, xv, xRow, c, n);
        Load(yLocal, yGm, yv, yRow, c, n);
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
    __aicore__ inline void CopyOut(uint64_t offset, uint32_t n)
    {
        LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        if (n % ALIGN == 0) {
            DataCopy(zGm[offset], zLocal, n);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPad(zGm[offset], zLocal, copyParams);
        }
        outQueueZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<T> xGm, yGm, zGm;
    Operand xv, yv, zv;
    uint32_t rank;
    uint32_t cols;
    uint64_t rows;
    uint32_t tileLength;
    uint64_t rowStart;
    uint64_t rowCount;
};

extern "C" __global__ __aicore__ void broadcast_add(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelBroadcastAdd<DTYPE_X> op;
    op.Init(x, y, z, tilingData);
    op.Process();
}
