#include "kernel_operator.h"

struct ScaleAddTilingData {
    uint32_t totalLength;
    uint32_t tileNum;
    int32_t alpha;
};

extern "C" __global__ __aicore__ void scale_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(ScaleAddTilingData);
    GET_TILING_DATA(tilingData, tiling);
    (void)tilingData;
}
