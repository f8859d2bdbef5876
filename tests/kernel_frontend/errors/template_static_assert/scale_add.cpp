#include "kernel_operator.h"

// Checks outside function bodies that only instantiating a template reveals: the frontend
// reports them (it skips bodies, whose errors are the build's).
template <typename T>
constexpr uint32_t LanesOf() { return 32 / sizeof(T); }
static_assert(LanesOf<float>() == 16, "a float block is taken for sixteen lanes");

template <typename T>
struct HalfOnly {
    static_assert(sizeof(T) == 2, "HalfOnly holds two-byte elements");
    T value;
};

struct ScaleAddTilingData {
    uint32_t totalLength;
    uint32_t tileNum;
    float alpha;
};

HalfOnly<float> scratch;

extern "C" __global__ __aicore__ void scale_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(ScaleAddTilingData);
    GET_TILING_DATA(tilingData, tiling);
    (void)tilingData;
}
