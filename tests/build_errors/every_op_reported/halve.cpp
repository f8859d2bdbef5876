#include "kernel_operator.h"

struct HalveTilingData {
    uint32_t totalLength;
};

extern "C" __global__ __aicore__ void halve(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                            GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(HalveTilingData, t, tiling);
    uint32_t n = t.totalLen;  // misspelt field
    (void)n;
}
