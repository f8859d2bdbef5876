// opgen host runtime: the host side of the normalization advanced APIs (tiling/tiling_api.h
// includes this), as CANN's adv_api/normalization/rmsnorm_tiling.h declares it: the tiling class
// optiling::RmsNormTiling, GetRmsNormMaxMinTmpSize and GetRmsNormTilingInfo (optiling:: and
// AscendC::tiling:: forms); and LayerNorm's, LayerNormGrad's and LayerNormGradBeta's (below).
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

#include <algorithm>
#include <cstdint>
#include <cstring>
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

BEGIN_TILING_DATA_DEF(LayerNormTiling)
TILING_DATA_FIELD_DEF(uint32_t, bLength);
TILING_DATA_FIELD_DEF(uint32_t, sLength);
TILING_DATA_FIELD_DEF(uint32_t, hLength);
TILING_DATA_FIELD_DEF(uint32_t, originalHLength);
TILING_DATA_FIELD_DEF(uint32_t, inputXSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarSize);
TILING_DATA_FIELD_DEF(uint32_t, numberOfTmpBuf);
TILING_DATA_FIELD_DEF(uint32_t, meanTmpTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, meanTmpTensorSize);
TILING_DATA_FIELD_DEF(uint32_t, varianceTmpTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, varianceTmpTensorSize);
TILING_DATA_FIELD_DEF(uint32_t, tmpBufSize);
TILING_DATA_FIELD_DEF(uint32_t, oneTmpSize);
TILING_DATA_FIELD_DEF(uint32_t, firstTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, secondTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, thirdTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, loopRound);
TILING_DATA_FIELD_DEF(uint32_t, inputRoundSize);
TILING_DATA_FIELD_DEF(uint32_t, inputTailSize);
TILING_DATA_FIELD_DEF(uint32_t, inputTailPos);
TILING_DATA_FIELD_DEF(uint32_t, meanVarRoundSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarTailSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarTailPos);
TILING_DATA_FIELD_DEF(uint32_t, bshCurLength);
TILING_DATA_FIELD_DEF(uint32_t, bsCurLength);
TILING_DATA_FIELD_DEF(float, lastDimValueBack);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(LayerNormGradTiling)
TILING_DATA_FIELD_DEF(uint32_t, stackBufferSize);
TILING_DATA_FIELD_DEF(uint32_t, bLength);
TILING_DATA_FIELD_DEF(uint32_t, sLength);
TILING_DATA_FIELD_DEF(uint32_t, hLength);
TILING_DATA_FIELD_DEF(uint32_t, originalHLength);
TILING_DATA_FIELD_DEF(uint32_t, oneCalSize);
TILING_DATA_FIELD_DEF(uint32_t, nohCalSize);
TILING_DATA_FIELD_DEF(uint32_t, loopNum);
TILING_DATA_FIELD_DEF(uint32_t, tailSize);
TILING_DATA_FIELD_DEF(uint32_t, nohTailSize);
TILING_DATA_FIELD_DEF(uint32_t, tmpTensorBSHPos);
TILING_DATA_FIELD_DEF(uint32_t, tmpTensorBSHSize);
TILING_DATA_FIELD_DEF(uint32_t, pdVarTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, pdVarTensorSize);
TILING_DATA_FIELD_DEF(uint32_t, pdMeanTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, pdMeanTensorSize);
TILING_DATA_FIELD_DEF(uint32_t, x1TensorPos);
TILING_DATA_FIELD_DEF(uint32_t, x1TensorSize);
TILING_DATA_FIELD_DEF(uint32_t, x2TensorPos);
TILING_DATA_FIELD_DEF(uint32_t, x2TensorSize);
TILING_DATA_FIELD_DEF(uint32_t, x3TensorPos);
TILING_DATA_FIELD_DEF(uint32_t, x3TensorSize);
TILING_DATA_FIELD_DEF(uint32_t, tmpTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, tmpTensorSize);
TILING_DATA_FIELD_DEF(uint32_t, tmpTensor1Pos);
TILING_DATA_FIELD_DEF(uint32_t, tmpTensor1Size);
TILING_DATA_FIELD_DEF(uint32_t, tmpTensor2Pos);
TILING_DATA_FIELD_DEF(uint32_t, tmpTensor2Size);
TILING_DATA_FIELD_DEF(uint32_t, lastDimValueBack);
TILING_DATA_FIELD_DEF(uint32_t, lastDimValueBackMulTwo);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(LayerNormGradBetaTiling)
TILING_DATA_FIELD_DEF(uint32_t, stackBufferSize);
TILING_DATA_FIELD_DEF(uint32_t, bLength);
TILING_DATA_FIELD_DEF(uint32_t, sLength);
TILING_DATA_FIELD_DEF(uint32_t, hLength);
TILING_DATA_FIELD_DEF(uint32_t, originalHLength);
TILING_DATA_FIELD_DEF(uint32_t, bshLength);
TILING_DATA_FIELD_DEF(uint32_t, bsLength);
TILING_DATA_FIELD_DEF(uint32_t, oneCalSize);
TILING_DATA_FIELD_DEF(uint32_t, numberOfTmpBuf);
TILING_DATA_FIELD_DEF(uint32_t, loopRound);
TILING_DATA_FIELD_DEF(uint32_t, inputTailSize);
TILING_DATA_FIELD_DEF(uint32_t, inputTailPos);
TILING_DATA_FIELD_DEF(uint32_t, bsTailSize);
TILING_DATA_FIELD_DEF(uint32_t, bshCurLength);
TILING_DATA_FIELD_DEF(uint32_t, bsCurLength);
TILING_DATA_FIELD_DEF(uint32_t, gammaTempTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, betaTempTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, inputDyTmpTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, resForGammaTmpTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, reserved);
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

// ---- LayerNorm, LayerNormGrad, LayerNormGradBeta (LayerNorm-Tiling.md, LayerNormGrad-Tiling.md,
// LayerNormGradBeta-Tiling.md) -----------------------------------------------------------------
// The shape is [B, S, H, originalH] (H the stored, 32-byte aligned length). The figures follow
// asc-devkit's layernorm_tiling_impl.cpp, layernorm_grad_tiling_impl.cpp and
// layernorm_grad_beta_tiling_impl.cpp (A2/A3). These return void, as CANN's do; a bad argument
// is reported and leaves the optiling class as it was (the AscendC::tiling struct forms then
// hold zeros, as CANN's save a fresh class).
namespace norm_host_detail {

// [B, S, H, originalH] of a 4-dimensional shape of positive dims; false (reported) otherwise.
inline bool Bsho(const char* api, const ge::Shape& shape, uint32_t typeSize, uint32_t dims[4]) {
    std::string error;
    if (typeSize != 2 && typeSize != 4) {
        error = "typeSize is " + std::to_string(typeSize) + ", should be 2 (half) or 4 (float)";
    } else if (shape.GetDimNum() != 4) {
        error = "srcShape has " + std::to_string(shape.GetDimNum()) +
                " dims; it must be [B, S, storageHLength, originHLength]";
    } else if (shape.GetShapeSize() <= 0) {
        error = "srcShape holds no element; every dim must be greater than 0";
    }
    if (!error.empty()) {
        math_tmp_detail::Report(api, error);
        return false;
    }
    for (size_t i = 0; i < 4; ++i) dims[i] = static_cast<uint32_t>(shape.GetDim(i));
    return true;
}

inline uint32_t Bits(float v) {
    uint32_t u;
    std::memcpy(&u, &v, sizeof(u));
    return u;
}

}  // namespace norm_host_detail

// LayerNorm's buffer: three temporaries of a pass's floats (two for float with isReuseSource)
// and, for half, the mean and variance in float, each rounded up to 32 bytes. Max: all rows a
// pass; min: one row.
inline void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                      uint32_t& maxValue, uint32_t& minValue) {
    namespace d = norm_host_detail;
    uint32_t v[4];
    if (!d::Bsho("GetLayerNormMaxMinTmpSize", srcShape, typeSize, v)) return;
    const uint32_t bufs = isReuseSource && typeSize == 4 ? 2 : 3;
    const uint32_t mv = d::RoundUp(v[0] * v[1] * d::kFloatBytes, 32);
    maxValue = bufs * d::RoundUp(v[0] * v[1] * v[2] * d::kFloatBytes, 32) + 2 * mv;
    minValue = bufs * d::RoundUp(v[2] * d::kFloatBytes, 32) + 2 * mv;
}

inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t typeSize, const bool isReuseSource,
                                     optiling::LayerNormTiling& tiling) {
    namespace d = norm_host_detail;
    uint32_t v[4];
    if (!d::Bsho("GetLayerNormNDTilingInfo", srcShape, typeSize, v)) return;
    const uint32_t b = v[0], s = v[1], h = v[2], oriH = v[3];
    const uint32_t inputXSize = b * s * h, meanVarSize = b * s;
    const uint32_t bufs = isReuseSource && typeSize == 4 ? 2 : 3;
    const uint32_t mvSize = d::RoundUp(meanVarSize, 8);
    const uint32_t mvTotal = typeSize == 4 ? 0 : 2 * mvSize;  // float writes mean/var in place
    const uint32_t tmpBufSize = stackBufferSize / d::kFloatBytes;
    uint32_t one = tmpBufSize > mvTotal ? (tmpBufSize - mvTotal) / bufs : 0;
    one = std::min(one / h * h, inputXSize);
    if (one == 0) {  // CANN's returns without a plan; the kernel refuses oneTmpSize 0
        math_tmp_detail::Report("GetLayerNormNDTilingInfo",
                                "stackBufferSize " + std::to_string(stackBufferSize) +
                                    " holds no row (GetLayerNormMaxMinTmpSize gives the minimum)");
        return;
    }
    const uint32_t tail = inputXSize % one;
    tiling.set_bLength(b);
    tiling.set_sLength(s);
    tiling.set_hLength(h);
    tiling.set_originalHLength(oriH);
    tiling.set_inputXSize(inputXSize);
    tiling.set_meanVarSize(meanVarSize);
    tiling.set_numberOfTmpBuf(bufs);
    tiling.set_meanTmpTensorPos(0);
    tiling.set_meanTmpTensorSize(mvSize);
    tiling.set_varianceTmpTensorPos(mvSize);
    tiling.set_varianceTmpTensorSize(mvSize);
    tiling.set_tmpBufSize(tmpBufSize);
    tiling.set_oneTmpSize(one);
    tiling.set_firstTmpStartPos(mvTotal);
    tiling.set_secondTmpStartPos(mvTotal + one);
    tiling.set_thirdTmpStartPos(mvTotal + 2 * one);
    tiling.set_loopRound(inputXSize / one);
    tiling.set_inputRoundSize(one);
    tiling.set_inputTailSize(tail);
    tiling.set_inputTailPos(inputXSize - tail);
    tiling.set_meanVarRoundSize(one / h);
    tiling.set_meanVarTailSize(tail / h);
    tiling.set_meanVarTailPos(meanVarSize - tail / h);
    tiling.set_bshCurLength(one);
    tiling.set_bsCurLength(one / h);
    tiling.set_lastDimValueBack(1.0f / static_cast<float>(oriH));
}

inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t typeSize, const bool isReuseSource,
                                     AscendC::tiling::LayerNormTiling& tiling) {
    optiling::LayerNormTiling data;
    GetLayerNormNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource, data);
    data.SaveToBuffer(&tiling, sizeof(tiling));
}

// LayerNormGrad's buffer: 9 temporaries for half, 6 for float (4 with isReuseSource), each of
// max(B * S * H, H * H) floats (max) or min(B * S * H, H * H) (min), in bytes of typeSize.
inline void GetLayerNormGradMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                          const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    namespace d = norm_host_detail;
    uint32_t v[4];
    if (!d::Bsho("GetLayerNormGradMaxMinTmpSize", srcShape, typeSize, v)) return;
    const uint32_t input = v[0] * v[1] * v[2], hh = v[2] * v[2];
    const uint32_t bufs = typeSize == 2 ? 9 : (isReuseSource ? 4 : 6);
    maxValue = bufs * std::max(input, hh) * typeSize;
    minValue = bufs * std::min(input, hh) * typeSize;
}

inline void GetLayerNormGradNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize,
                                         const uint32_t typeSize, const bool isReuseSource,
                                         optiling::LayerNormGradTiling& tiling) {
    namespace d = norm_host_detail;
    uint32_t v[4];
    if (!d::Bsho("GetLayerNormGradNDTilingInfo", srcShape, typeSize, v)) return;
    const uint32_t h = v[2], oriH = v[3], inputXSize = v[0] * v[1] * h;
    const bool reuse = isReuseSource && typeSize == 4;
    const uint32_t bufs = typeSize == 2 ? 9 : (reuse ? 4 : 6);
    uint32_t one = stackBufferSize / d::kFloatBytes / bufs / h * h;
    if (one == 0) {
        math_tmp_detail::Report("GetLayerNormGradNDTilingInfo",
                                "stackBufferSize " + std::to_string(stackBufferSize) + " is not enough for a row");
        return;
    }
    // the rows a pass, rounded up to a 32-byte block of the type (CANN's plan)
    const uint32_t noh = d::RoundUp(one / h, typeSize == 4 ? 8 : 16);
    one = noh * h;
    const uint32_t pdVar = one, pdMean = 2 * one;
    const uint32_t x1 = reuse ? 0 : 3 * one, x2 = reuse ? 0 : 4 * one, x3 = reuse ? 3 * one : 5 * one;
    const uint32_t tmp = typeSize == 2 ? x3 + one : 0;
    tiling.set_tmpTensorBSHPos(0);
    tiling.set_pdVarTensorPos(pdVar);
    tiling.set_pdMeanTensorPos(pdMean);
    tiling.set_x1TensorPos(x1);
    tiling.set_x2TensorPos(x2);
    tiling.set_x3TensorPos(x3);
    tiling.set_tmpTensorPos(tmp);
    tiling.set_tmpTensor1Pos(typeSize == 2 ? tmp + one : 0);
    tiling.set_tmpTensor2Pos(typeSize == 2 ? tmp + 2 * one : 0);
    tiling.set_tmpTensorBSHSize(one);
    tiling.set_pdVarTensorSize(one);
    tiling.set_pdMeanTensorSize(one);
    tiling.set_x1TensorSize(one);
    tiling.set_x2TensorSize(one);
    tiling.set_x3TensorSize(one);
    tiling.set_tmpTensorSize(one);
    tiling.set_tmpTensor1Size(one);
    tiling.set_tmpTensor2Size(one);
    tiling.set_stackBufferSize(stackBufferSize);
    tiling.set_bLength(v[0]);
    tiling.set_sLength(v[1]);
    tiling.set_hLength(h);
    tiling.set_originalHLength(oriH);
    tiling.set_oneCalSize(one);
    tiling.set_nohCalSize(noh);
    tiling.set_loopNum(inputXSize / one);
    tiling.set_tailSize(inputXSize % one);
    tiling.set_nohTailSize(inputXSize % one / h);
    tiling.set_lastDimValueBack(d::Bits(1.0f / static_cast<float>(oriH)));
    tiling.set_lastDimValueBackMulTwo(d::Bits(2.0f / static_cast<float>(oriH)));
}

inline void GetLayerNormGradNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize,
                                         const uint32_t typeSize, const bool isReuseSource,
                                         AscendC::tiling::LayerNormGradTiling& tiling) {
    optiling::LayerNormGradTiling data;
    GetLayerNormGradNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource, data);
    data.SaveToBuffer(&tiling, sizeof(tiling));
}

// LayerNormGradBeta's buffer: B * S * H floats twice (four times for half) at most, H at least.
inline void GetLayerNormGradBetaMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                              const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    namespace d = norm_host_detail;
    (void)isReuseSource;
    uint32_t v[4];
    if (!d::Bsho("GetLayerNormGradBetaMaxMinTmpSize", srcShape, typeSize, v)) return;
    const uint32_t bufs = typeSize == 2 ? 4 : 2;
    maxValue = bufs * v[0] * v[1] * v[2] * d::kFloatBytes;
    minValue = bufs * v[2] * d::kFloatBytes;
}

inline void GetLayerNormGradBetaNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize,
                                             const uint32_t typeSize, const bool isReuseSource,
                                             optiling::LayerNormGradBetaTiling& tiling) {
    namespace d = norm_host_detail;
    (void)isReuseSource;
    constexpr const char* api = "GetLayerNormGradBetaNDTilingInfo";
    uint32_t v[4];
    if (!d::Bsho(api, srcShape, typeSize, v)) return;
    const uint32_t h = v[2], bsh = v[0] * v[1] * h;
    const uint32_t floats = stackBufferSize / d::kFloatBytes;
    if (floats < 2 * h) {
        math_tmp_detail::Report(api, "stackBufferSize " + std::to_string(stackBufferSize) + " is not enough");
        return;
    }
    // half keeps gamma's and beta's sums (H floats each) and two casts of a pass
    uint32_t one = typeSize == 2 ? (floats - 2 * h) / 2 : floats;
    one = one / h * h;
    if (one == 0) {
        math_tmp_detail::Report(api, "stackBufferSize " + std::to_string(stackBufferSize) + " is not enough");
        return;
    }
    one = std::min(one, bsh);
    const uint32_t tail = bsh % one;
    tiling.set_stackBufferSize(floats);
    tiling.set_bLength(v[0]);
    tiling.set_sLength(v[1]);
    tiling.set_hLength(h);
    tiling.set_originalHLength(v[3]);
    tiling.set_bshLength(bsh);
    tiling.set_bsLength(v[0] * v[1]);
    tiling.set_oneCalSize(one);
    tiling.set_numberOfTmpBuf(typeSize == 2 ? 2 : 1);
    tiling.set_loopRound(bsh / one);
    tiling.set_inputTailSize(tail);
    tiling.set_inputTailPos(bsh - tail);
    tiling.set_bsTailSize(tail / h);
    tiling.set_bshCurLength(one);
    tiling.set_bsCurLength(one / h);
    tiling.set_gammaTempTensorPos(0);
    tiling.set_betaTempTensorPos(typeSize == 2 ? h : 0);
    tiling.set_inputDyTmpTensorPos(typeSize == 2 ? 2 * h : 0);
    tiling.set_resForGammaTmpTensorPos(typeSize == 2 ? 2 * h + one : 0);
}

inline void GetLayerNormGradBetaNDTilingInfo(const ge::Shape srcShape, const uint32_t stackBufferSize,
                                             const uint32_t typeSize, const bool isReuseSource,
                                             AscendC::tiling::LayerNormGradBetaTiling& tiling) {
    optiling::LayerNormGradBetaTiling data;
    GetLayerNormGradBetaNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource, data);
    data.SaveToBuffer(&tiling, sizeof(tiling));
}

}  // namespace AscendC

#include "norm_more_tiling.h"
