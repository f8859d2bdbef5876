// broadcast_add: z = x + y with numpy broadcasting. The output is walked row by row (rows = all
// dims but the last), rows split over the blocks. When a row fills whole 32-byte blocks and
// several fit in a tile, a tile holds a group of rows: an operand that is the same row for every
// output row (broadcast along all the others) is loaded once per block into every row of a tile
// and kept, one that has a row for each output row is copied in with one DataCopy (rows in
// order) or one per row, and the add is one instruction over the group (one instruction over
// many repeats costs less than one per row, on the NPU as on the simulator). Otherwise each row is
// tiled along the last dim; an operand broadcast along the last dim is a scalar per row and
// filled with Duplicate.
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
        if (cols % ALIGN == 0 && cols > 0 && tileLength / cols >= 2 && xv.dims[rank - 1] == cols &&
            yv.dims[rank - 1] == cols) {
            ProcessGroups();
            return;
        }
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
    // How an operand's rows map to the output's: one row for all (KEPT), its row r at r * cols
    // (IN_ORDER), or anything else (SCATTERED: each row found by RowOffset).
    enum RowKind : uint32_t { KEPT, IN_ORDER, SCATTERED };
    __aicore__ inline RowKind Kind(const Operand& v) const
    {
        bool kept = true;
        bool inOrder = true;
        for (uint32_t d = 0; d + 1 < rank; d++) {
            kept = kept && v.dims[d] == 1;
            inOrder = inOrder && v.dims[d] == zv.dims[d];
        }
        return kept ? KEPT : (inOrder ? IN_ORDER : SCATTERED);
    }
    // Rows [g, g + n) of an operand into one tile, row i at i * cols.
    __aicore__ inline void LoadRows(const LocalTensor<T>& dst, const GlobalTensor<T>& gm,
                                    const Operand& v, RowKind kind, uint64_t g, uint32_t n)
    {
        if (kind == IN_ORDER) {
            DataCopy(dst, gm[g * cols], n * cols);
            return;
        }
        for (uint32_t i = 0; i < n; i++) {
            DataCopy(dst[i * cols], gm[RowOffset(v, g + i)], cols);
        }
    }
    // One tile of an operand's rows into its queue (a kept row: row 0, once per block).
    __aicore__ inline void CopyInRows(TQue<QuePosition::VECIN, BUFFER_NUM>& que,
                                      const GlobalTensor<T>& gm, const Operand& v, RowKind kind,
                                      uint64_t g, uint32_t n)
    {
        LocalTensor<T> tile = que.AllocTensor<T>();
        LoadRows(tile, gm, v, kind, g, n);
        que.EnQue(tile);
    }
    __aicore__ inline void ProcessGroups()
    {
        const RowKind xKind = Kind(xv);
        const RowKind yKind = Kind(yv);
        const uint32_t groupRows = tileLength / cols;
        LocalTensor<T> xKept;
        LocalTensor<T> yKept;
        const uint32_t keptRows = rowCount < groupRows ? static_cast<uint32_t>(rowCount) : groupRows;
        if (xKind == KEPT) {
            CopyInRows(inQueueX, xGm, xv, KEPT, 0, keptRows);
            xKept = inQueueX.DeQue<T>();
        }
        if (yKind == KEPT) {
            CopyInRows(inQueueY, yGm, yv, KEPT, 0, keptRows);
            yKept = inQueueY.DeQue<T>();
        }
        for (uint64_t g = rowStart; g < rowStart + rowCount; g += groupRows) {
            const uint32_t n = static_cast<uint32_t>(
                rowStart + rowCount - g < groupRows ? rowStart + rowCount - g : groupRows);
            if (xKind != KEPT) {
                CopyInRows(inQueueX, xGm, xv, xKind, g, n);
            }
            if (yKind != KEPT) {
                CopyInRows(inQueueY, yGm, yv, yKind, g, n);
            }
            LocalTensor<T> xLocal = xKind == KEPT ? xKept : inQueueX.DeQue<T>();
            LocalTensor<T> yLocal = yKind == KEPT ? yKept : inQueueY.DeQue<T>();
            LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
            Add(zLocal, xLocal, yLocal, n * cols);
            outQueueZ.EnQue<T>(zLocal);
            if (xKind != KEPT) {
                inQueueX.FreeTensor(xLocal);
            }
            if (yKind != KEPT) {
                inQueueY.FreeTensor(yLocal);
            }
            zLocal = outQueueZ.DeQue<T>();
            DataCopy(zGm[g * cols], zLocal, n * cols);
            outQueueZ.FreeTensor(zLocal);
        }
        if (xKind == KEPT) {
            inQueueX.FreeTensor(xKept);
        }
        if (yKind == KEPT) {
            inQueueY.FreeTensor(yKept);
        }
    }
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
