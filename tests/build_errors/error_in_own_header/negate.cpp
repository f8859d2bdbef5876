#include "kernel_operator.h"
#include "negate_steps.h"

struct NegateTilingData {
    uint32_t totalLength;
};

extern "C" __global__ __aicore__ void negate(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                             GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(NegateTilingData, t, tiling);
    (void)NegateOne(static_cast<float>(t.totalLength));
}
