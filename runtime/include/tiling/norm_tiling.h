// opgen host runtime: the host side of the normalization advanced APIs (tiling/tiling_api.h
// includes this), as CANN's adv_api/normalization/rmsnorm_tiling.h declares it: the tiling class
// optiling::RmsNormTiling, GetRmsNormMaxMinTmpSize and GetRmsNormTilingInfo (optiling:: and
// AscendC::tiling:: forms).
//
// The figures follow asc-devkit's host implementation (impl/adv_api/tiling/normalization/
// rmsnorm_tiling_impl.cpp); the reference (RmsNorm-Tiling.md) names the functions, not the rule.
// The shape is [B, S, H] (H 32-byte aligned), originSrcShape the same with the real H. RmsNorm's
// buffer holds a pass of rows: a reduce slot per row (rounded up to 8 floats) and the pass's
// elements in float (twice that for half, whose source is cast to float there). The maximum is all
// B * S rows, the minimum one row with 8 slots. GetRmsNormTilingInfo plans as many rows a pass as
// stackBufferByteSize holds (at most 255, a repeat count; a multiple of 8 for the basic block).
// A bad argument returns false, as CANN's does; the simulator also prints why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../graph/tensor.h"
#include "../kernel_tiling/kernel_tiling.h"
#include "math_tmp_size.h"
#if defined(OPGEN_ASC_SOURCE)
#include "../opgen_host/host_log.h"
#else
#include "../opgen_host/tiling_def.h"
#endif

namespace optiling {

BEGIN_TILING_DATA_DEF(RmsNormTiling)
TILING_DATA_FIELD_DEF(uint32_t, bLength);
TILING_DATA_FIELD_DEF(uint32_t, sLength);
TILING_DATA_FIELD_DEF(uint32_t, hLength);
TILING_DATA_FIELD_DEF(uint32_t, originalHLength);
TILING_DATA_FIELD_DEF(float, reciprocalOfHLength);
TILING_DATA_FIELD_DEF(uint32_t, mainBshLength);
TILING_DATA_FIELD_DEF(uint32_t, mainBsLength);
TILING_DATA_FIELD_DEF(uint32_t, mainBsLengthAlign);
TILING_DATA_FIELD_DEF(uint32_t, loopRound);
TILING_DATA_FIELD_DEF(uint32_t, inputTailPos);
TILING_DATA_FIELD_DEF(uint32_t, tailBshLength);
TILING_DATA_FIELD_DEF(uint32_t, tailBsLength);
END_TILING_DATA_DEF;

}  // namespace optiling

namespace AscendC {
namespace norm_host_detail {

constexpr uint32_t kFloatBytes = 4;
constexpr uint32_t kSlotFloats = 8;     // a row's reduce slots come in 32-byte blocks of floats
constexpr uint32_t kMaxPassRows = 255;  // a pass's rows are one instruction's repeats
constexpr uint32_t kBasicH = 64;
constexpr uint32_t kBasicRows = 8;
constexpr uint32_t kBasicMaxH = 2048;

inline uint32_t RoundUp(uint32_t v, uint32_t unit) { return (v + unit - 1) / unit * unit; }

// [B, S, H] of a 3-dimensional shape; false (reported) otherwise.
inline bool Bsh(const char* api, const char* what, const ge::Shape& shape, uint32_t dims[3]) {
    if (shape.GetDimNum() != 3) {
        math_tmp_detail::Report(api, std::string(what) + " has " + std::to_string(shape.GetDimNum()) +
                                         " dims; it must be [B, S, H]");
        return false;
    }
    for (size_t i = 0; i < 3; ++i) dims[i] = static_cast<uint32_t>(shape.GetDim(i));
    return true;
}

inline bool RmsBasicShapeBad(uint32_t b, uint32_t s, uint32_t h) {
    return h % kBasicH != 0 || (b * s) % kBasicRows != 0 || h >= kBasicMaxH;
}

inline uint32_t RmsMinFloats(uint32_t h, uint32_t typeSize) {
    return h * (typeSize == 2 ? 2 : 1) + kSlotFloats;
}

}  // namespace norm_host_detail

inline bool GetRmsNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                    uint32_t& minValue, const bool isBasicBlock = false) {
    namespace d = norm_host_detail;
    constexpr const char* api = "GetRmsNormMaxMinTmpSize";
    uint32_t bsh[3];
    if (!d::Bsh(api, "srcShape", srcShape, bsh)) return false;
    if (typeSize != 2 && typeSize != 4) {
        math_tmp_detail::Report(api, "typeSize is " + std::to_string(typeSize) + ", should be 2 (half) or 4 (float)");
        return false;
    }
    if (isBasicBlock && d::RmsBasicShapeBad(bsh[0], bsh[1], bsh[2])) {
        math_tmp_detail::Report(api, "isBasicBlock needs H a multiple of 64 below 2048 and B * S a multiple of 8");
        return false;
    }
    const uint32_t rows = bsh[0] * bsh[1];
    const uint32_t coeff = typeSize == 2 ? 2 : 1;
    maxValue = (rows * bsh[2] * coeff + d::RoundUp(rows, 32 / typeSize)) * d::kFloatBytes;
    minValue = d::RmsMinFloats(bsh[2], typeSize) * d::kFloatBytes;
    return true;
}

inline bool GetRmsNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                 const uint32_t stackBufferByteSize, const uint32_t typeSize,
                                 optiling::RmsNormTiling& tiling, const bool isBasicBlock = false) {
    namespace d = norm_host_detail;
    constexpr const char* api = "GetRmsNormTilingInfo";
    uint32_t bsh[3], ori[3];
    if (!d::Bsh(api, "srcShape", srcShape, bsh) || !d::Bsh(api, "originSrcShape", originSrcShape, ori)) return false;
    const uint32_t b = bsh[0], s = bsh[1], h = bsh[2], oriH = ori[2];
    std::string error;
    if (ori[0] != b || ori[1] != s || oriH == 0 || oriH > h) {
        error = "originSrcShape must have srcShape's B and S and 0 < H <= srcShape's H";
    } else if (typeSize == 0 || h * typeSize % 32 != 0) {
        error = "H " + std::to_string(h) + " of " + std::to_string(typeSize) + "-byte elements is not 32-byte aligned";
    } else if (isBasicBlock && d::RmsBasicShapeBad(b, s, h)) {
        error = "isBasicBlock needs H a multiple of 64 below 2048 and B * S a multiple of 8";
    } else if (stackBufferByteSize < d::RmsMinFloats(h, typeSize) * d::kFloatBytes) {
        error = "stackBufferByteSize " + std::to_string(stackBufferByteSize) + " is below the minimum " +
                std::to_string(d::RmsMinFloats(h, typeSize) * d::kFloatBytes) + " (GetRmsNormMaxMinTmpSize)";
    }
    if (!error.empty()) {
        math_tmp_detail::Report(api, error);
        return false;
    }
    tiling.set_bLength(b);
    tiling.set_sLength(s);
    tiling.set_hLength(h);
    tiling.set_originalHLength(oriH);
    tiling.set_reciprocalOfHLength(1.0f / static_cast<float>(oriH));
    // the most rows whose floats and reduce slots fit the buffer
    const uint32_t floats = stackBufferByteSize / d::kFloatBytes;
    const uint32_t coeff = typeSize == 4 ? 1 : 2;
    uint32_t rows = 1;
    while (floats >= (rows + 1) * h * coeff + d::RoundUp(rows + 1, d::kSlotFloats)) ++rows;
    const uint32_t total = b * s * h;
    rows = std::min(rows * h, total) / h;
    if (isBasicBlock) {
        if (rows >= d::kBasicRows) rows = rows / d::kBasicRows * d::kBasicRows;
    } else if (rows > d::kMaxPassRows) {
        rows = d::kMaxPassRows;
    }
    const uint32_t passElems = rows * h;
    tiling.set_mainBshLength(passElems);
    tiling.set_mainBsLength(rows);
    tiling.set_mainBsLengthAlign(d::RoundUp(rows, d::kSlotFloats));
    tiling.set_loopRound(total / passElems);
    const uint32_t tail = total % passElems;
    tiling.set_tailBshLength(tail);
    tiling.set_inputTailPos(total - tail);
    tiling.set_tailBsLength(tail / h);
    return true;
}

inline bool GetRmsNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                 const uint32_t stackBufferByteSize, const uint32_t typeSize,
                                 AscendC::tiling::RmsNormTiling& tiling, const bool isBasicBlock = false) {
    optiling::RmsNormTiling data;
    const bool ok = GetRmsNormTilingInfo(srcShape, originSrcShape, stackBufferByteSize, typeSize, data, isBasicBlock);
    data.SaveToBuffer(&tiling, sizeof(tiling));
    return ok;
}

}  // namespace AscendC
