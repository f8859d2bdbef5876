// Macros, namespaces, templates, several kernels, comments and includes in one file.
#include <cmath>
#include <cstdint>
#include "kernel_operator.h"
#include "include/common_tiling.h"

#define KERNEL_ENTRY(name) extern "C" __global__ __aicore__ void name
#define BUFFERS 2

using namespace AscendC;
using demo::MixTilingData;

namespace helpers {
template <typename T, int32_t N = BUFFERS>
class Pipeline {
public:
    __aicore__ inline void Init(GM_ADDR src, uint32_t n) { (void)src; total = n * N; }
    template <typename U>
    __aicore__ inline U Cast(T v) const { return static_cast<U>(v); }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, N> in;
    TBuf<TPosition::VECCALC> calc;
    GlobalTensor<T> gm;
    uint32_t total = 0;
};

template <typename T>
constexpr bool IsHalf() { return std::is_same_v<T, half>; }

constexpr float kEps = 1e-5f;
}  // namespace helpers

/* A helper with C++ linkage: not a kernel. */
__aicore__ inline float Slope(float s) { return std::fabs(s) + helpers::kEps; }

// The op's kernel, declared through a macro.
KERNEL_ENTRY(mixed)(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(MixTilingData, t, tiling);  // a comment with GET_TILING_DATA(
    helpers::Pipeline<float> p;
    p.Init(x, t.totalLength);
    const char* s = "REGISTER_TILING_DEFAULT(Wrong)";
    (void)s;
}

extern "C" {
__global__ __aicore__ void mixed_grad(GM_ADDR dz, GM_ADDR dx, GM_ADDR workspace, GM_ADDR tiling)
{
    // no tiling here
}
}

namespace ns {
extern "C" __global__ __aicore__ void mixed_v2(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                               GM_ADDR tiling);
}
