// One of two broken ops: both are reported by one `opgen build`.
#include "kernel_operator.h"

struct NegateTilingData {
    uint32_t totalLength;
};

extern "C" __global__ __aicore__ void negate(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                             GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(NegateTilingData, t, tiling);
    AscendC::GlobalTensor<float> out;
    out.SetGlobalBuffer((__gm__ float *)y, t.totalLength, 0.0f, "extra");
}
