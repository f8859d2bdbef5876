// opgen host runtime: the host side of the rest of the normalization advanced APIs
// (tiling/norm_tiling.h includes this): DeepNorm's (optiling::DeepNormTiling,
// GetDeepNormMaxMinTmpSize, GetDeepNormTilingInfo), LayerNorm's [A, R] form
// (optiling::LayerNormSeparateTiling, the GetLayerNormMaxMinTmpSize and GetLayerNormNDTilingInfo
// overloads with isComputeRstd), Normalize's (GetNormalizeMaxMinTmpSize), WelfordUpdate's
// (GetWelfordUpdateMaxMinTmpSize) and WelfordFinalize's (GetWelfordFinalizeMaxMinTmpSize).
//
// The reference pages (DeepNorm-Tiling.md, LayerNorm-Tiling.md, Normalize-Tiling.md,
// WelfordUpdate-Tiling.md, WelfordFinalize-Tiling.md) name the functions and what they return;
// the figures follow asc-devkit's A2/A3 host implementation (impl/adv_api/tiling/normalization/
// deepnorm_tiling_impl.cpp, layernorm_tiling_impl.cpp, normalize_tiling_impl.cpp,
// welfordfinalize_tiling_impl.cpp):
//   DeepNorm     max: three temporaries of B * S * H floats (two for float with isReuseSource)
//                and two of B * S floats, each rounded up to 32 bytes; min: the same with H for
//                B * S * H. The plan: the mean and variance in float first for half (B * S
//                rounded up to 8 each), then oneTmpSize = the rest / temporaries, whole rows, at
//                most all of them, whole groups of 8 rows for the basic block when one fits.
//   LayerNorm    [A, R] (R padded to 32 bytes of the type): max 2 * A * R + A floats, min 2 * R +
//                A, each part rounded up to 32 bytes, raised to Normalize's need + A; the plan:
//                the variance (A rounded up to 8 floats) first, then two temporaries of whole rows.
//   Normalize    max 2 * R + 2 * A8 * R floats (A rounded up to 8); min max(A, 2 * R) floats,
//                max(A, 4 * R) when gamma/beta (typeSizeU) are half.
//   WelfordUpdate min 256 bytes a temporary: 3 for half inputX, 1 for float with isReuseSource,
//                else 2; max: that per 64 floats of rnLength * abLength.
//   WelfordFinalize [abLength]: min 1024 bytes (four 64-float buffers); max the same up to 64,
//                else (128 + 2 * abLength) floats.
// A bad argument (a shape of the wrong rank, an unsupported type size, a buffer below the minimum,
// the options the A2/A3 do not support) is reported and leaves the outputs as they were; the
// functions that return bool return false.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "../graph/tensor.h"
#include "../kernel_tiling/kernel_tiling.h"
#include "math_tmp_size.h"
#if defined(OPGEN_ASC_SOURCE)
#include "../opgen_host/host_log.h"
#else
#include "../opgen_host/tiling_def.h"
#endif

namespace optiling {

BEGIN_TILING_DATA_DEF(DeepNormTiling)
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

BEGIN_TILING_DATA_DEF(LayerNormSeparateTiling)
TILING_DATA_FIELD_DEF(uint32_t, aLength);
TILING_DATA_FIELD_DEF(uint32_t, rLength);
TILING_DATA_FIELD_DEF(uint32_t, halfAddRepeatTimes);
TILING_DATA_FIELD_DEF(uint32_t, rHeadLength);
TILING_DATA_FIELD_DEF(float, k2Rec);
TILING_DATA_FIELD_DEF(float, k2RRec);
TILING_DATA_FIELD_DEF(uint32_t, inputXSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarSize);
TILING_DATA_FIELD_DEF(uint32_t, numberOfTmpBuf);
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
TILING_DATA_FIELD_DEF(uint32_t, arCurLength);
TILING_DATA_FIELD_DEF(uint32_t, aCurLength);
TILING_DATA_FIELD_DEF(float, rValueBack);
END_TILING_DATA_DEF;

}  // namespace optiling

namespace AscendC {
namespace norm_more_host_detail {

constexpr uint32_t kBlock = 32;
constexpr uint32_t kF = 4;  // bytes of a float: every temporary holds floats
constexpr uint32_t kRepeatBytes = 256;
constexpr uint32_t kDeepNormMaxH = 2040;

inline uint32_t Up(uint32_t v, uint32_t unit) { return (v + unit - 1) / unit * unit; }

// The dims of a shape of `rank` positive dims; false (reported) otherwise.
inline bool Dims(const char* api, const ge::Shape& shape, size_t rank, const char* form, uint32_t* dims) {
    std::string error;
    if (shape.GetDimNum() != rank) {
        error = "srcShape has " + std::to_string(shape.GetDimNum()) + " dims; it must be " + form;
    } else {
        for (size_t i = 0; i < rank; ++i) {
            if (shape.GetDim(i) <= 0) error = "srcShape's dim " + std::to_string(i) + " is not positive";
        }
    }
    if (!error.empty()) {
        math_tmp_detail::Report(api, error);
        return false;
    }
    for (size_t i = 0; i < rank; ++i) dims[i] = static_cast<uint32_t>(shape.GetDim(i));
    return true;
}

inline bool HalfOrFloat(const char* api, const char* what, uint32_t typeSize) {
    if (typeSize == 2 || typeSize == 4) return true;
    math_tmp_detail::Report(api, std::string(what) + " is " + std::to_string(typeSize) +
                                     ", should be 2 (half) or 4 (float)");
    return false;
}

// DeepNorm's checks on [B, S, H] (deepnorm_tiling_impl.cpp's CheckDeepNormHostCommon).
inline bool DeepNormShape(const char* api, const ge::Shape& shape, uint32_t typeSize, bool isBasicBlock,
                          uint32_t bsh[3]) {
    if (!Dims(api, shape, 3, "[B, S, H]", bsh) || !HalfOrFloat(api, "typeSize", typeSize)) return false;
    std::string error;
    const uint32_t bs = bsh[0] * bsh[1], h = bsh[2];
    if (h * typeSize % kBlock != 0) {
        error = "H " + std::to_string(h) + " of " + std::to_string(typeSize) + "-byte elements is not 32-byte aligned";
    } else if (h > kDeepNormMaxH) {
        error = "H " + std::to_string(h) + " is above 2040 (DeepNorm.md)";
    } else if (isBasicBlock && (h % 64 != 0 || bs % 8 != 0)) {
        error = "isBasicBlock needs H a multiple of 64 and B * S a multiple of 8; they are " + std::to_string(h) +
                " and " + std::to_string(bs);
    }
    if (!error.empty()) {
        math_tmp_detail::Report(api, error);
        return false;
    }
    return true;
}

inline uint32_t DeepNormBufs(uint32_t typeSize, bool isReuseSource) {
    return isReuseSource && typeSize == kF ? 2 : 3;
}

// R padded to 32 bytes of the type.
inline uint32_t PadR(uint32_t r, uint32_t typeSize) { return Up(r, kBlock / typeSize); }

}  // namespace norm_more_host_detail

// ---- DeepNorm (DeepNorm-Tiling.md) -------------------------------------------------------------
inline bool GetDeepNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                     const bool isBasicBlock, uint32_t& maxValue, uint32_t& minValue) {
    namespace d = norm_more_host_detail;
    uint32_t v[3];
    if (!d::DeepNormShape("GetDeepNormMaxMinTmpSize", srcShape, typeSize, isBasicBlock, v)) return false;
    const uint32_t bufs = d::DeepNormBufs(typeSize, isReuseSource);
    const uint32_t bs = d::Up(v[0] * v[1] * d::kF, d::kBlock);
    maxValue = bufs * d::Up(v[0] * v[1] * v[2] * d::kF, d::kBlock) + 2 * bs;
    minValue = bufs * d::Up(v[2] * d::kF, d::kBlock) + 2 * bs;
    return true;
}

inline bool GetDeepNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                  const uint32_t stackBufferSize, const uint32_t typeSize, const bool isReuseSource,
                                  const bool isBasicBlock, optiling::DeepNormTiling& tiling) {
    namespace d = norm_more_host_detail;
    constexpr const char* api = "GetDeepNormTilingInfo";
    uint32_t v[3], o[3];
    if (!d::DeepNormShape(api, srcShape, typeSize, isBasicBlock, v) ||
        !d::Dims(api, originSrcShape, 3, "[B, S, originH]", o)) {
        return false;
    }
    const uint32_t b = v[0], s = v[1], h = v[2], oriH = o[2];
    uint32_t maxSize = 0, minSize = 0;
    GetDeepNormMaxMinTmpSize(srcShape, typeSize, isReuseSource, isBasicBlock, maxSize, minSize);
    std::string error;
    if (o[0] != b || o[1] != s) {
        error = "originSrcShape must have srcShape's B and S";
    } else if (oriH == 0 || oriH > h) {
        error = "originSrcShape's H " + std::to_string(oriH) + " must be in (0, " + std::to_string(h) + "]";
    } else if (isBasicBlock && oriH != h) {
        error = "isBasicBlock needs originSrcShape's H equal to H (" + std::to_string(oriH) + " vs " +
                std::to_string(h) + ")";
    } else if (stackBufferSize < minSize) {
        error = "stackBufferSize " + std::to_string(stackBufferSize) + " is below the minimum " +
                std::to_string(minSize) + " (GetDeepNormMaxMinTmpSize)";
    }
    if (!error.empty()) {
        math_tmp_detail::Report(api, error);
        return false;
    }
    const uint32_t inputXSize = b * s * h, meanVarSize = b * s;
    const uint32_t bufs = d::DeepNormBufs(typeSize, isReuseSource);
    const uint32_t mvSize = d::Up(meanVarSize, 8);
    const uint32_t mvTotal = typeSize == d::kF ? 0 : 2 * mvSize;  // float writes mean/var in place
    const uint32_t tmpBufSize = stackBufferSize / d::kF;
    uint32_t one = (tmpBufSize - mvTotal) / bufs;
    one = std::min(one / h * h, inputXSize);
    if (isBasicBlock && one / (8 * h) > 0) one = one / (8 * h) * (8 * h);
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
    return true;
}

inline bool GetDeepNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                  const uint32_t stackBufferSize, const uint32_t typeSize, const bool isReuseSource,
                                  const bool isBasicBlock, AscendC::tiling::DeepNormTiling& tiling) {
    optiling::DeepNormTiling data;
    const bool ok =
        GetDeepNormTilingInfo(srcShape, originSrcShape, stackBufferSize, typeSize, isReuseSource, isBasicBlock, data);
    data.SaveToBuffer(&tiling, sizeof(tiling));
    return ok;
}

// ---- Normalize (Normalize-Tiling.md) -----------------------------------------------------------
inline void GetNormalizeMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSizeU, const uint32_t typeSizeT,
                                      const bool isReuseSource, const bool isComputeRstd, const bool isOnlyOutput,
                                      uint32_t& maxValue, uint32_t& minValue) {
    namespace d = norm_more_host_detail;
    constexpr const char* api = "GetNormalizeMaxMinTmpSize";
    (void)isReuseSource;
    if (!isComputeRstd || isOnlyOutput) {
        math_tmp_detail::Report(api, "isComputeRstd must be true and isOnlyOutput false (Normalize-Tiling.md)");
        return;
    }
    uint32_t v[2];
    if (!d::Dims(api, srcShape, 2, "[A, R]", v) || !d::HalfOrFloat(api, "typeSizeU", typeSizeU) ||
        !d::HalfOrFloat(api, "typeSizeT", typeSizeT)) {
        return;
    }
    const uint32_t a = v[0], rPad = d::PadR(v[1], typeSizeT);
    const uint32_t rBytes = d::Up(rPad * d::kF, d::kBlock);
    maxValue = 2 * rBytes + 2 * d::Up(d::Up(a, 8) * rPad * d::kF, d::kBlock);
    const uint32_t nr = (typeSizeU == d::kF ? 2 : 4) * rBytes;
    minValue = std::max(d::Up(a * d::kF, d::kBlock), nr);
}

// ---- LayerNorm's [A, R] form (LayerNorm-Tiling.md) ---------------------------------------------
inline void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                      const bool isComputeRstd, const bool isOnlyOutput, uint32_t& maxValue,
                                      uint32_t& minValue) {
    namespace d = norm_more_host_detail;
    constexpr const char* api = "GetLayerNormMaxMinTmpSize";
    if (isOnlyOutput) {
        math_tmp_detail::Report(api, "isOnlyOutput must be false (LayerNorm-Tiling.md)");
        return;
    }
    uint32_t v[2];
    if (!d::Dims(api, srcShape, 2, "[A, R]", v) || !d::HalfOrFloat(api, "typeSize", typeSize)) return;
    const uint32_t a = v[0], rPad = d::PadR(v[1], typeSize);
    const uint32_t mv = d::Up(a * d::kF, d::kBlock);
    uint32_t mx = 2 * d::Up(a * rPad * d::kF, d::kBlock) + mv;
    uint32_t mn = 2 * d::Up(rPad * d::kF, d::kBlock) + mv;
    uint32_t nMax = 0, nMin = 0;
    GetNormalizeMaxMinTmpSize(srcShape, typeSize, typeSize, isReuseSource, true, false, nMax, nMin);
    if (mn - mv <= nMin) mn = nMin + mv;
    if (mx - mv <= nMax) mx = nMax + mv;
    maxValue = mx;
    minValue = mn;
}

inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t typeSize, const bool isReuseSource, const bool isComputeRstd,
                                     optiling::LayerNormSeparateTiling& tiling) {
    namespace d = norm_more_host_detail;
    constexpr const char* api = "GetLayerNormNDTilingInfo";
    (void)isReuseSource;
    (void)isComputeRstd;
    uint32_t v[2];
    if (!d::Dims(api, srcShape, 2, "[A, R]", v) || !d::HalfOrFloat(api, "typeSize", typeSize)) return;
    const uint32_t a = v[0], r = v[1], rPad = d::PadR(r, typeSize);
    const uint32_t inputXSize = a * rPad;
    const uint32_t varSize = d::Up(a, 8);
    const uint32_t tmpBufSize = stackBufferSize / d::kF;
    const uint32_t one = tmpBufSize > varSize ? std::min((tmpBufSize - varSize) / 2 / rPad * rPad, inputXSize) : 0;
    if (one == 0) {  // CANN's returns without a plan
        math_tmp_detail::Report(api, "stackBufferSize " + std::to_string(stackBufferSize) +
                                         " holds no row (GetLayerNormMaxMinTmpSize gives the minimum)");
        return;
    }
    const uint32_t tail = inputXSize % one;
    tiling.set_aLength(a);
    tiling.set_rLength(r);
    tiling.set_inputXSize(inputXSize);
    tiling.set_meanVarSize(a);
    tiling.set_numberOfTmpBuf(2);
    tiling.set_varianceTmpTensorPos(0);
    tiling.set_varianceTmpTensorSize(varSize);
    tiling.set_tmpBufSize(tmpBufSize);
    tiling.set_oneTmpSize(one);
    tiling.set_firstTmpStartPos(varSize);
    tiling.set_secondTmpStartPos(varSize + one);
    tiling.set_loopRound(inputXSize / one);
    tiling.set_inputRoundSize(one);
    tiling.set_inputTailSize(tail);
    tiling.set_inputTailPos(inputXSize - tail);
    tiling.set_meanVarRoundSize(one / rPad);
    tiling.set_meanVarTailSize(tail / rPad);
    tiling.set_meanVarTailPos(a - tail / rPad);
    tiling.set_arCurLength(one);
    tiling.set_aCurLength(one / rPad);
    tiling.set_rValueBack(1.0f / static_cast<float>(r));
}

inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t typeSize, const bool isReuseSource, const bool isComputeRstd,
                                     AscendC::tiling::LayerNormSeparateTiling& tiling) {
    optiling::LayerNormSeparateTiling data;
    GetLayerNormNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource, isComputeRstd, data);
    data.SaveToBuffer(&tiling, sizeof(tiling));
}

// ---- WelfordUpdate, WelfordFinalize (WelfordUpdate-Tiling.md, WelfordFinalize-Tiling.md) -------
inline void GetWelfordUpdateMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSizeT,
                                          const uint32_t typeSizeU, const bool isReuseSource, const bool isInplace,
                                          uint32_t& maxValue, uint32_t& minValue) {
    namespace d = norm_more_host_detail;
    constexpr const char* api = "GetWelfordUpdateMaxMinTmpSize";
    (void)isInplace;
    uint32_t v[2];
    if (!d::Dims(api, srcShape, 2, "[rnLength, abLength]", v) || !d::HalfOrFloat(api, "typeSizeT", typeSizeT)) return;
    if (typeSizeU != d::kF) {
        math_tmp_detail::Report(api, "typeSizeU is " + std::to_string(typeSizeU) +
                                         ", should be 4 (the mean and variance are float)");
        return;
    }
    const uint32_t bufs = typeSizeT == 2 ? 3 : (isReuseSource ? 1 : 2);
    minValue = bufs * d::kRepeatBytes;
    maxValue = (v[0] * v[1] + 63) / 64 * minValue;
}

inline void GetWelfordFinalizeMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                            const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    namespace d = norm_more_host_detail;
    constexpr const char* api = "GetWelfordFinalizeMaxMinTmpSize";
    (void)typeSize;
    (void)isReuseSource;
    uint32_t v[1];
    if (!d::Dims(api, srcShape, 1, "[abLength]", v)) return;
    if (v[0] % 8 != 0) {
        math_tmp_detail::Report(api, "abLength " + std::to_string(v[0]) + " is not 32-byte aligned (8 floats)");
        return;
    }
    minValue = 64 * 4 * d::kF;
    maxValue = v[0] <= 64 ? minValue : (64 * 2 + v[0] * 2) * d::kF;
}

}  // namespace AscendC
