// The kernel parses (opgen reads declarations only); the body refers to a name that does not
// exist, which only the build finds.
#include "kernel_operator.h"

struct NegateTilingData {
    uint32_t totalLength;
};

extern "C" __global__ __aicore__ void negate(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                             GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(NegateTilingData, t, tiling);
    AscendC::GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, t.totalLength);
    negativeOne = -1.0f;
}
