// And is an integer instruction: the simulator's static_assert fires inside its own header,
// and the report points at the call here instead.
#include "kernel_operator.h"

struct NegateTilingData {
    uint32_t totalLength;
};

extern "C" __global__ __aicore__ void negate(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                             GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(NegateTilingData, t, tiling);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    AscendC::LocalTensor<float> v = buf.Get<float>();
    AscendC::And(v, v, v, 64);
}
