// opgen: CANN's kernel_tiling/kernel_tiling.h, the kernel-side tiling structs of the advanced APIs
// the simulator implements (Pad, UnPad). Plain structs of uint32_t fields, in the order and at the
// offsets of the host classes in tiling/tiling_api.h, so the bytes SaveToBuffer writes are the
// struct a kernel copies them into. Kernels name them unqualified, as CANN's header exports them.
#pragma once

#include <cstdint>
#include "softmax_tiling_data.h"
#include "norm_tiling_data.h"
#include "transform_tiling_data.h"
#include "matmul_tiling_data.h"

namespace AscendC {
namespace tiling {

// Only srcHeight, srcWidth and srcOriWidth drive the simulator's Pad; the other fields are the
// plan CANN's vector implementation follows, filled by PadTilingFunc for a kernel that reads them.
struct PadTiling {
    uint32_t srcHeight = 0;
    uint32_t srcWidth = 0;
    uint32_t srcOriWidth = 0;
    uint32_t widthWithoutLastBlock = 0;
    uint32_t blocksPerRow = 0;
    uint32_t heightTiling = 0;
    uint32_t heightFractal = 0;
    uint32_t heightFractalTail = 0;
    uint32_t mainLoopOffset = 0;
    uint32_t tailBlockOffset = 0;
    uint32_t tmpBuffer1BlockNum = 0;
    uint32_t tmpBuffer1RowNum = 0;
    uint32_t tmpBuffer2Offset = 0;
    uint32_t widthTiling = 0;
    uint32_t widthFractal = 0;
    uint32_t widthFractalTail = 0;
    uint32_t widthFractalTailAlingned = 0;  // CANN's spelling
    uint32_t brcbTiling = 0;
    uint32_t brcbFractal = 0;
    uint32_t brcbFractalTail = 0;
    uint32_t maxRepeatTimes = 0;
    uint32_t brcbTilingRepeatTimes = 0;
    uint32_t brcbTilingRepeatTimesTail = 0;
    uint32_t brcbFractalTailRepeatTimes = 0;
    uint32_t brcbFractalTailRepeatTimesTail = 0;
    uint32_t reserved = 0;
};

struct UnPadTiling {
    uint32_t srcHeight = 0;
    uint32_t srcWidth = 0;
    uint32_t tmpBuffer1BlockNum = 0;
    uint32_t tmpBuffer1RowNum = 0;
    uint32_t tmpBuffer2Offset = 0;
    uint32_t widthTiling = 0;
    uint32_t widthFractal = 0;
    uint32_t widthFractalTail = 0;
};

}  // namespace tiling
}  // namespace AscendC

using AscendC::tiling::PadTiling;
using AscendC::tiling::UnPadTiling;
