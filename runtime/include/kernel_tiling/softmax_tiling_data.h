// opgen: the kernel-side SoftMaxTiling and LogSoftMaxTiling of CANN's kernel_tiling/kernel_tiling.h
// (the SoftMax family of advanced APIs: SoftMax, SimpleSoftMax, SoftmaxGrad, SoftmaxGradFront,
// SoftmaxFlashV2 take SoftMaxTiling, LogSoftMax its own struct of the same fields). Sixteen
// uint32_t fields in the order and at the offsets of the host classes optiling::SoftMaxTiling and
// optiling::LogSoftMaxTiling (tiling/softmax_tiling.h), so the bytes SaveToBuffer writes are these
// structs. Kernels name them unqualified, as CANN's header exports them.
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

// LogSoftMax's tiling (logsoftmax_tilingdata.h): SoftMaxTiling's fields under another name. CANN's
// LogSoftMax re-plans its passes from sharedTmpBuffer and reads none of them.
struct LogSoftMaxTiling {
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

using AscendC::tiling::LogSoftMaxTiling;
using AscendC::tiling::SoftMaxTiling;
