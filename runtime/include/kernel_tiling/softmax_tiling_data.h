// opgen: the kernel-side SoftMaxTiling of CANN's kernel_tiling/kernel_tiling.h (the SoftMax family
// of advanced APIs: SoftMax, SimpleSoftMax). Sixteen uint32_t fields in the order and at the
// offsets of the host class optiling::SoftMaxTiling (tiling/softmax_tiling.h), so the bytes
// SaveToBuffer writes are this struct. Kernels name it unqualified, as CANN's header exports it.
#pragma once

#include <cstdint>

namespace AscendC {
namespace tiling {

// Rows [m] of width [k] are processed splitM rows at a time: rangeM whole chunks, then tailM rows.
// outMax*/reduce*: the max and sum outputs, reduceK elements (one 32-byte block) a row.
struct SoftMaxTiling {
    uint32_t srcM = 0;
    uint32_t srcK = 0;
    uint32_t srcSize = 0;
    uint32_t outMaxM = 0;
    uint32_t outMaxK = 0;
    uint32_t outMaxSize = 0;
    uint32_t splitM = 0;
    uint32_t splitK = 0;
    uint32_t splitSize = 0;
    uint32_t reduceM = 0;
    uint32_t reduceK = 0;
    uint32_t reduceSize = 0;
    uint32_t rangeM = 0;
    uint32_t tailM = 0;
    uint32_t tailSplitSize = 0;
    uint32_t tailReduceSize = 0;
};

}  // namespace tiling
}  // namespace AscendC

using AscendC::tiling::SoftMaxTiling;
