// opgen NPU simulator: the rest of the normalization advanced APIs (norm.h includes this):
// WelfordUpdate and WelfordFinalize (adv_api/normalization/layernorm.h, welfordfinalize.h),
// DeepNorm (deepnorm.h), Normalize (normalize.h) and LayerNorm's [A, R] form with LayerNormPara,
// LayerNormConfig and LayerNormSeparateTiling (layernorm.h), with their parameter structs and
// configs; and AscendCUtils::SetOverflow (a basic API), which the samples call around them.
//
// The reference pages (WelfordUpdate.md, WelfordFinalize.md, DeepNorm.md, Normalize.md,
// LayerNorm.md) give the formulas; where they are silent (step order, intermediate precision) the
// simulator follows CANN's A2/A3 implementation (asc-devkit impl/adv_api/detail/normalization/
// layernorm/layernorm_common_impl.h and layernorm_common_basic_impl.h, welfordfinalize/
// welfordfinalize_common_impl.h, deepnorm/deepnorm_common_impl.h and deepnorm_v220_impl.h,
// normalize/normalize_common_impl.h), so every element carries the same float roundings:
//
// - WelfordUpdate, element i < abComputeLength (x cast to float, exact for half):
//   d = x - mean_in; mean_out = d * nRec + mean_in (Muls, then Add); var_out = d * (x - mean_out)
//   + var_in. isInplace copies mean_in/var_in to the outputs past abComputeLength (else they are
//   left as they were); isReuseSource (float x) leaves x - mean_in in inputX, as CANN's does.
// - WelfordFinalize (output [8]: the result in lane 0, lanes 1..7 zero): chunks of computeLength =
//   64 * ((sharedTmpBuffer floats - 128) / 128) elements, each reduced as LayerNorm's rows are
//   (64-column blocks added into the first, then a 64-lane tree) into one of 64 partial slots
//   (the 64 slots tree-summed into slot 0 whenever they fill), the slots then tree-summed. Mean:
//   sum(mean_i * abRec) without a tail, sum(mean_i * tailCount * rRec, times headCount / tailCount
//   on the first headCountLength) with one, sum(mean_i * counts_i * rRec) with counts. Variance:
//   sum((var_i + (mean_i - Mean)^2 * k_i) * rRec), k_i = rnLength, the tail form's factor, or
//   counts_i.
// - DeepNorm, a row of H (x and gx cast to float for half): X1 = gx + x * alpha; mean =
//   sum(X1 * 1/originalH); d = X1 - mean; var = sum(d * d * 1/originalH); rstd = 1 / sqrt(var +
//   eps) (Adds, Sqrt, Div); y = (d * rstd) * gamma + beta. The sums: counter-mode RepeatReduceSum
//   trees over the first originalH columns, level by level, or with isBasicBlock the 64-column
//   blocks added into the first then a tree. meanLocal and rstdLocal receive the mean and the
//   VARIANCE (CANN's A2/A3 code writes the variance there, although DeepNorm.md calls rstdLocal
//   the reciprocal standard deviation; asc-devkit's deepnorm sample checks the variance).
// - Normalize, row a: rstd = 1 / sqrt(var + eps); y = ((x - mean) * rstd) * gamma + beta over the
//   rLength columns (gamma/beta cast to float when half); the padding columns get (x - p) * p,
//   p the stale float of CANN's broadcast buffer in sharedTmpBuffer.
// - LayerNorm [A, R]: the padding columns of inputX are zeroed in place (x * 0, CANN's pre-pass);
//   mean = sum(x * 1/R) and var = sum((x - mean)^2 * 1/R) as LayerNorm's rows (over the padded
//   row), then Normalize with sharedTmpBuffer from firstTmpStartPos. outputRstd is the rstd for
//   every LayerNormConfig (the A2/A3 code ignores isOutputRstd).
// Half results are cast back to nearest even (CAST_NONE). Rules (each a SimulatorError naming the
// API): the types CANN's code accepts (static_assert), the documented constraints (WelfordUpdate's
// rnLength 1, abLength 32-byte aligned, 0 < abComputeLength <= abLength; WelfordFinalize's
// abLength 32-byte aligned = headCountLength + tailCountLength, abRec = 1/abLength, tailCount 0
// only with tailCountLength 0; DeepNorm's H; no source overlapping a destination where the pages
// forbid it), a tiling that plans inside the operands and the buffer, a sharedTmpBuffer of at
// least what CANN's kernel uses. The Ascend 950 (npu arch 3510) forms are not simulated:
// WelfordFinalizeConfig's isCorrection is a compile-time error naming it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../opgen_host/reduce_pattern.h"
#include "norm.h"

namespace AscendC {

// ---- parameter structs and configs (layernorm_utils.h, welfordfinalize_utils.h,
// normalize_utils.h) ----------------------------------------------------------------------------
struct LayerNormConfig {
    bool isNoBeta = false;
    bool isNoGamma = false;
    bool isOnlyOutput = false;
    bool isOutputRstd = true;
};
constexpr LayerNormConfig LNCFG_NORM = {false, false, false, true};

struct LayerNormPara {
    uint32_t aLength;
    uint32_t rLength;
    uint32_t rLengthWithPadding;
};

struct WelfordUpdateConfig {
    constexpr WelfordUpdateConfig(const bool isInplaceIn) : isInplace(isInplaceIn) {}
    bool isInplace = false;
};
constexpr WelfordUpdateConfig WFUPDATE_DEFAULT_CFG = {false};

struct WelfordUpdateParam {
    uint32_t rnLength;
    uint32_t abLength;
    uint32_t abComputeLength;
    float nRec;
};

struct WelfordFinalizeConfig {
    constexpr WelfordFinalizeConfig(const bool isCorrectionIn) : isCorrection(isCorrectionIn) {}
    bool isCorrection = false;
};
constexpr WelfordFinalizeConfig WFFINALIZE_DEFAULT_CFG = {false};

// The A2/A3 layout (the Ascend 950's adds rRecWithCorrection).
struct WelfordFinalizePara {
    uint32_t rnLength;
    uint32_t abLength;
    uint32_t headCount;
    uint32_t headCountLength;
    uint32_t tailCount;
    uint32_t tailCountLength;
    float abRec;
    float rRec;
};


struct NormalizeConfig {
    ReducePattern reducePattern = ReducePattern::AR;
    int32_t aLength = -1;
    bool isNoBeta = false;
    bool isNoGamma = false;
    bool isOnlyOutput = false;
};
constexpr NormalizeConfig NLCFG_NORM = {ReducePattern::AR, -1, false, false, false};
constexpr NormalizeConfig NLCFG_NOBETA = {ReducePattern::AR, -1, true, false, false};
constexpr NormalizeConfig NLCFG_NOGAMMA = {ReducePattern::AR, -1, false, true, false};
constexpr NormalizeConfig NLCFG_NOOPT = {ReducePattern::AR, -1, true, true, false};

struct NormalizePara {
    uint32_t aLength;
    uint32_t rLength;
    uint32_t rLengthWithPadding;
};


// ---- AscendCUtils::SetOverflow(ctrlValue) (a basic API; the layernorm_v2 and Where samples call
// it) ---------------------------------------------------------------------------------------------
// On the Atlas A2/A3 it sets CTRL[48]: 1 the inf/NaN mode, anything else the saturation mode (the
// reset value). The simulator does not model the CTRL register: the call is accepted and changes
// nothing. Float results are IEEE's in both modes; the simulator's half conversions and half
// reductions keep saturating as in the reset mode.
// GetRsvdCnt: the RSVD_CNT register, the elements the last GatherMask of the core kept.
// SetMask<T, isSetMask>(high, low) / SetMask<T, isSetMask>(len): CANN's kernel_utils_base.h
// (set_vector_mask with the raw bits; len 64 is (0, all), len == a repeat's elements (256 bytes /
// sizeof(T)) or >= 128 is (all, all), else the first len lanes), which ops-nn's norm kernels
// call before level-0 APIs.
// GetC0Size/GetC0Count/GetBitSize: the C0 of 32 bytes, as CANN's.
struct AscendCUtils {
    static inline void SetOverflow(uint64_t ctrlValue) { (void)ctrlValue; }
    template <typename T, bool isSetMask = true>
    static inline void SetMask(const uint64_t& maskHigh, const uint64_t& maskLow) {
        if constexpr (isSetMask) SetVectorMask<T>(maskHigh, maskLow);
    }
    template <typename T, bool isSetMask = true>
    static inline void SetMask(int32_t len) {
        if constexpr (!isSetMask) return;
        constexpr int32_t typeLen = static_cast<int32_t>(ONE_REPEAT_BYTE_SIZE / sizeof(T));
        if (len == HALF_MASK_LEN) {
            SetMask<T>(0, FULL_MASK);
        } else if (len == typeLen || len >= FULL_MASK_LEN) {
            SetMask<T>(FULL_MASK, FULL_MASK);
        } else {
            SetMask<T>(len > HALF_MASK_LEN ? ((1ull << static_cast<uint32_t>(len - HALF_MASK_LEN)) - 1) : 0ull,
                       len > HALF_MASK_LEN ? FULL_MASK : ((1ull << static_cast<uint32_t>(len)) - 1));
        }
    }
    static inline int32_t GetC0Size() { return DEFAULT_C0_SIZE; }
    static inline int32_t GetC0Count(const int32_t dtypeSize) { return GetC0Size() / dtypeSize; }
    static inline int32_t GetBitSize(int32_t byteSize) { return byteSize * ONE_BYTE_BIT_SIZE; }
    static inline int64_t GetRsvdCnt() { return static_cast<int64_t>(opgen_sim::CurrentCore().rsvd_cnt); }
};
// GetGatherMaskRemainCount (reference "GatherMask"): the same register.
inline int64_t GetGatherMaskRemainCount() { return static_cast<int64_t>(opgen_sim::CurrentCore().rsvd_cnt); }

}  // namespace AscendC

namespace opgen_sim {
namespace norm_detail {

template <typename A, typename B>
inline void NoOverlap(const char* api, const AscendC::LocalTensor<A>& a, uint64_t na, const char* an,
                      const AscendC::LocalTensor<B>& b, uint64_t nb, const char* bn, const char* page) {
    if (Overlaps(a, na, b, nb)) {
        Fail(ErrorKind::Generic, api,
             std::string(an) + " overlaps " + bn + "; " + page + " (约束说明) does not allow that");
    }
}

inline void TmpBytes(const char* api, const AscendC::LocalTensor<uint8_t>& tmp, uint64_t need,
                     const std::string& why) {
    CheckUbAligned(tmp, api, "sharedTmpBuffer");
    if (static_cast<uint64_t>(tmp.size_) < need) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes; " + why + " needs " + Str(need));
    }
}

// ---- WelfordUpdate -----------------------------------------------------------------------------
template <typename T, typename U, bool isReuseSource, bool isInplace>
inline void WelfordUpdateRun(const AscendC::LocalTensor<U>& outMean, const AscendC::LocalTensor<U>& outVar,
                             const AscendC::LocalTensor<U>& inMean, const AscendC::LocalTensor<U>& inVar,
                             const AscendC::LocalTensor<T>& x, const AscendC::LocalTensor<uint8_t>& tmp,
                             const AscendC::WelfordUpdateParam& para) {
    constexpr const char* api = "WelfordUpdate";
    constexpr const char* page = "WelfordUpdate.md";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "WelfordUpdate: inputX (T) is half or float");
    static_assert(std::is_same_v<U, float>, "WelfordUpdate: the mean and variance (U) are float on the Atlas A2/A3");
    if (para.rnLength != 1) {
        Fail(ErrorKind::Generic, api, "para.rnLength is " + Str(para.rnLength) + "; it must be 1 (" + page + ")");
    }
    if (para.abLength * sizeof(T) % kBlockBytes != 0) {
        Fail(ErrorKind::Alignment, api,
             "para.abLength " + Str(para.abLength) + " of " + TypeName<T>() + " is not a multiple of 32 bytes (" +
                 page + ")");
    }
    if (para.abComputeLength == 0 || para.abComputeLength > para.abLength) {
        Fail(ErrorKind::Generic, api,
             "para.abComputeLength " + Str(para.abComputeLength) + " must be in [1, abLength " + Str(para.abLength) +
                 "] (" + page + ")");
    }
    const uint64_t n = para.abLength;
    CheckPos(api, outMean, "outputMean");
    CheckPos(api, outVar, "outputVariance");
    CheckPos(api, inMean, "inputMean");
    CheckPos(api, inVar, "inputVariance");
    CheckPos(api, x, "inputX");
    CheckPos(api, tmp, "sharedTmpBuffer");
    CheckOperand(outMean, static_cast<int64_t>(n), api, "outputMean");
    CheckOperand(outVar, static_cast<int64_t>(n), api, "outputVariance");
    CheckOperand(inMean, static_cast<int64_t>(n), api, "inputMean");
    CheckOperand(inVar, static_cast<int64_t>(n), api, "inputVariance");
    CheckOperand(x, static_cast<int64_t>(n), api, "inputX");
    // CANN's temporaries: 256 bytes each, 3 for half inputX, 1 for float reusing inputX, else 2
    constexpr uint32_t bufs = sizeof(T) == 2 ? 3 : (isReuseSource ? 1 : 2);
    TmpBytes(api, tmp, bufs * kRepeatBytes,
             std::string("WelfordUpdate with ") + TypeName<T>() + " inputX" + (isReuseSource ? " reusing it" : "") + " (" +
                 Str(bufs) + " temporaries of 256 bytes; GetWelfordUpdateMaxMinTmpSize)");
    NoOverlap(api, outMean, n, "outputMean", outVar, n, "outputVariance", page);
    for (const auto* o : {&outMean, &outVar}) {
        const char* on = o == &outMean ? "outputMean" : "outputVariance";
        NoOverlap(api, *o, n, on, inMean, n, "inputMean", page);
        NoOverlap(api, *o, n, on, inVar, n, "inputVariance", page);
        NoOverlap(api, *o, n, on, x, n, "inputX", page);
        NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", *o, n, on, page);
    }
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", inMean, n, "inputMean", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", inVar, n, "inputVariance", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", x, n, "inputX", page);
    FlushAll();

    if (isInplace && para.abComputeLength < para.abLength) {
        for (uint64_t i = para.abComputeLength; i < n; ++i) {
            outMean.ptr_[i] = inMean.ptr_[i];
            outVar.ptr_[i] = inVar.ptr_[i];
        }
    }
    const float nRec = para.nRec;
    for (uint64_t i = 0; i < para.abComputeLength; ++i) {
        const float xf = ToF(x.ptr_[i]);
        const float m = inMean.ptr_[i], v = inVar.ptr_[i];
        const float d = xf - m;
        const float s = d * nRec;
        const float nm = s + m;
        const float e = xf - nm;
        const float p = d * e;
        outMean.ptr_[i] = nm;
        outVar.ptr_[i] = p + v;
        if constexpr (isReuseSource && sizeof(T) == 4) x.ptr_[i] = d;
    }
}

// ---- WelfordFinalize ---------------------------------------------------------------------------
// A 64-lane tree of the first n values (the rest 0), as WholeReduceSum with a mask of n lanes.
inline float SlotsSum(const float* v, uint32_t n) {
    float lanes[kLanes] = {};
    std::memcpy(lanes, v, n * sizeof(float));
    return TreeSum(lanes, kLanes);
}

template <bool hasCounts>
inline void WelfordFinalizeRun(const AscendC::LocalTensor<float>& outMean, const AscendC::LocalTensor<float>& outVar,
                               const AscendC::LocalTensor<float>& inMean, const AscendC::LocalTensor<float>& inVar,
                               const AscendC::LocalTensor<int32_t>* counts, const AscendC::LocalTensor<uint8_t>& tmp,
                               const AscendC::WelfordFinalizePara& para) {
    constexpr const char* api = "WelfordFinalize";
    constexpr const char* page = "WelfordFinalize.md";
    const uint32_t ab = para.abLength;
    if (ab == 0 || ab % 8 != 0) {
        Fail(ErrorKind::Alignment, api,
             "para.abLength " + Str(ab) + " is not a positive multiple of 32 bytes (8 floats) (" + page + ")");
    }
    if (static_cast<uint64_t>(para.headCountLength) + para.tailCountLength != ab) {
        Fail(ErrorKind::Generic, api,
             "para.headCountLength " + Str(para.headCountLength) + " + tailCountLength " +
                 Str(para.tailCountLength) + " must be abLength " + Str(ab) + " (" + page + ")");
    }
    if (std::fabs(static_cast<double>(para.abRec) - 1.0 / ab) >= 1e-4) {
        Fail(ErrorKind::Generic, api,
             "para.abRec " + std::to_string(para.abRec) + " is not 1 / abLength " + Str(ab) + " (" + page + ")");
    }
    if (para.tailCount == 0 && para.tailCountLength != 0) {
        Fail(ErrorKind::Generic, api,
             "para.tailCountLength is " + Str(para.tailCountLength) +
                 " with tailCount 0; the Atlas A2/A3 need it 0 then (" + page + ")");
    }
    CheckPos(api, outMean, "outputMean");
    CheckPos(api, outVar, "outputVariance");
    CheckPos(api, inMean, "inputMean");
    CheckPos(api, inVar, "inputVariance");
    CheckPos(api, tmp, "sharedTmpBuffer");
    CheckOperand(outMean, 8, api, "outputMean");
    CheckOperand(outVar, 8, api, "outputVariance");
    CheckOperand(inMean, ab, api, "inputMean");
    CheckOperand(inVar, ab, api, "inputVariance");
    if (hasCounts) {
        CheckPos(api, *counts, "counts");
        CheckOperand(*counts, ab, api, "counts");
    }
    TmpBytes(api, tmp, 256 * sizeof(float),
             "WelfordFinalize (two 64-float partial buffers and two of 64-float chunks; "
             "GetWelfordFinalizeMaxMinTmpSize)");
    for (const auto* o : {&outMean, &outVar}) {
        const char* on = o == &outMean ? "outputMean" : "outputVariance";
        NoOverlap(api, *o, 8, on, inMean, ab, "inputMean", page);
        NoOverlap(api, *o, 8, on, inVar, ab, "inputVariance", page);
        if (hasCounts) NoOverlap(api, *o, 8, on, *counts, ab, "counts", page);
        NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", *o, 8, on, page);
    }
    NoOverlap(api, outMean, 8, "outputMean", outVar, 8, "outputVariance", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", inMean, ab, "inputMean", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", inVar, ab, "inputVariance", page);
    if (hasCounts) NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", *counts, ab, "counts", page);
    FlushAll();

    const uint32_t chunk = (tmp.size_ / 4 - 2 * kLanes) / (2 * kLanes) * kLanes;
    const bool tailForm = !hasCounts && para.tailCountLength != 0 && para.tailCount != 0;
    const float ratio = tailForm ? static_cast<float>(static_cast<int32_t>(para.headCount)) /
                                       static_cast<float>(static_cast<int32_t>(para.tailCount))
                                 : 0.0f;
    auto headIn = [&](uint32_t off, uint32_t len) {  // the chunk's elements before headCountLength
        const int64_t h = static_cast<int64_t>(para.headCountLength) - off;
        return static_cast<uint32_t>(std::clamp<int64_t>(h, 0, static_cast<int64_t>(len)));
    };
    // the chunks, each reduced into a partial slot; the 64 slots summed into slot 0 when full
    auto reduce = [&](auto&& fill) {
        float slots[kLanes] = {};
        uint32_t used = 0;
        std::vector<float> t(chunk);
        const uint32_t rounds = ab / chunk, tail = ab % chunk;
        for (uint32_t i = 0; i <= rounds; ++i) {
            const uint32_t len = i < rounds ? chunk : tail;
            if (len == 0) break;
            fill(i * chunk, len, t.data());
            slots[used++] = LnRowSum(t.data(), len);
            if (used == kLanes && i < rounds) {
                slots[0] = SlotsSum(slots, kLanes);
                used = 1;
            }
        }
        return SlotsSum(slots, used);
    };
    const float mean = reduce([&](uint32_t off, uint32_t len, float* t) {
        for (uint32_t j = 0; j < len; ++j) {
            const float m = inMean.ptr_[off + j];
            if (hasCounts) {
                const float c = static_cast<float>(counts->ptr_[off + j]);
                t[j] = (m * c) * para.rRec;
            } else if (tailForm) {
                t[j] = (m * static_cast<float>(static_cast<int32_t>(para.tailCount))) * para.rRec;
            } else {
                t[j] = m * para.abRec;
            }
        }
        if (tailForm) {
            for (uint32_t j = 0; j < headIn(off, len); ++j) t[j] = t[j] * ratio;
        }
    });
    const float mb = (mean + 0.0f) + 0.0f;  // the mean copied twice by Adds of 0, then broadcast
    const float var = reduce([&](uint32_t off, uint32_t len, float* t) {
        for (uint32_t j = 0; j < len; ++j) {
            const float d = inMean.ptr_[off + j] - mb;
            const float sq = d * d;
            float k;
            if (hasCounts) {
                k = static_cast<float>(counts->ptr_[off + j]);
            } else if (tailForm) {
                k = static_cast<float>(static_cast<int32_t>(para.tailCount));
            } else {
                k = static_cast<float>(static_cast<int32_t>(para.rnLength));
            }
            t[j] = sq * k;
        }
        if (tailForm) {
            for (uint32_t j = 0; j < headIn(off, len); ++j) t[j] = t[j] * ratio;
        }
        for (uint32_t j = 0; j < len; ++j) t[j] = (inVar.ptr_[off + j] + t[j]) * para.rRec;
    });
    outMean.ptr_[0] = mean + 0.0f;
    outVar.ptr_[0] = var + 0.0f;
    for (uint32_t i = 1; i < 8; ++i) outMean.ptr_[i] = outVar.ptr_[i] = 0.0f;
}

// ---- DeepNorm ----------------------------------------------------------------------------------
template <typename T, bool isReuseSrc, bool isBasicBlock>
inline void DeepNormRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& meanOut,
                        const AscendC::LocalTensor<T>& varOut, const AscendC::LocalTensor<T>& src,
                        const AscendC::LocalTensor<T>& gx, const AscendC::LocalTensor<T>& beta,
                        const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<uint8_t>& tmp, const T alpha,
                        const T epsilon, AscendC::tiling::DeepNormTiling& tl) {
    constexpr const char* api = "DeepNorm";
    constexpr const char* page = "DeepNorm.md";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "DeepNorm takes half or float");
    static_assert(!(isReuseSrc && std::is_same_v<T, half>),
                  "DeepNorm: isReuseSrc is for float input only (DeepNorm.md: half does not support it)");
    const uint32_t h = tl.hLength, oriH = tl.originalHLength;
    if (h == 0 || h * sizeof(T) % kBlockBytes != 0 || h > 2040) {
        Fail(ErrorKind::Alignment, api,
             "tiling.hLength " + Str(h) + " of " + TypeName<T>() + " must be a positive multiple of 32 bytes, at most "
             "2040 (" + page + ")");
    }
    if (oriH == 0 || oriH > h) {
        LnTiling(api, "tiling.originalHLength " + Str(oriH) + " must be in [1, hLength " + Str(h) +
                          "] (GetDeepNormTilingInfo)");
    }
    if (tl.oneTmpSize == 0 || tl.oneTmpSize % h != 0 || tl.inputTailSize % h != 0) {
        LnTiling(api, "tiling.oneTmpSize " + Str(tl.oneTmpSize) + " must be a positive multiple of hLength " + Str(h) +
                          " (plan it with GetDeepNormTilingInfo)");
    }
    if (isBasicBlock && (h % kLanes != 0 || oriH % kLanes != 0 || (tl.bLength * tl.sLength) % 8 != 0)) {
        LnTiling(api, "isBasicBlock needs hLength and originalHLength multiples of 64 and B * S a multiple of 8; "
                      "the tiling has " + Str(h) + ", " + Str(oriH) + " and " + Str(tl.bLength * tl.sLength));
    }
    CheckPos(api, dst, "dstLocal");
    CheckPos(api, meanOut, "meanLocal");
    CheckPos(api, varOut, "rstdLocal");
    CheckPos(api, src, "srcLocal");
    CheckPos(api, gx, "gxLocal");
    CheckPos(api, beta, "betaLocal");
    CheckPos(api, gamma, "gammaLocal");
    CheckPos(api, tmp, "sharedTmpBuffer");
    const uint64_t mainEnd =
        tl.loopRound == 0 ? 0 : static_cast<uint64_t>(tl.loopRound - 1) * tl.meanVarRoundSize + tl.bsCurLength;
    const uint64_t tailEnd = tl.inputTailSize > 0 ? static_cast<uint64_t>(tl.meanVarTailPos) + tl.meanVarTailSize : 0;
    const uint64_t rows = std::max(mainEnd, tailEnd);
    CheckOperand(src, static_cast<int64_t>(rows * h), api, "srcLocal");
    CheckOperand(gx, static_cast<int64_t>(rows * h), api, "gxLocal");
    CheckOperand(dst, static_cast<int64_t>(rows * h), api, "dstLocal");
    CheckOperand(meanOut, static_cast<int64_t>(rows), api, "meanLocal");
    CheckOperand(varOut, static_cast<int64_t>(rows), api, "rstdLocal");
    CheckOperand(gamma, h, api, "gammaLocal");
    CheckOperand(beta, h, api, "betaLocal");
    const uint64_t lastTmp = isReuseSrc ? tl.secondTmpStartPos : tl.thirdTmpStartPos;
    uint64_t need = std::max<uint64_t>(lastTmp + tl.oneTmpSize, tl.tmpBufSize);
    if (sizeof(T) == 2) {
        need = std::max<uint64_t>({need, static_cast<uint64_t>(tl.meanTmpTensorPos) + tl.meanVarSize,
                                   static_cast<uint64_t>(tl.varianceTmpTensorPos) + tl.meanVarSize});
    }
    TmpBytes(api, tmp, need * sizeof(float),
             "the tiling's temporaries of " + Str(tl.oneTmpSize) + " floats (tmpBufSize " + Str(tl.tmpBufSize) + ")");
    if (!isReuseSrc) NoOverlap(api, dst, rows * h, "dstLocal", src, rows * h, "srcLocal", page);
    FlushAll();

    float* stack = reinterpret_cast<float*>(tmp.ptr_);
    const float recip = tl.lastDimValueBack;
    const float a = ToF(alpha), eps = ToF(epsilon);
    std::vector<float> g(h), bt(h), x1(h), t(h), dv(h), y(h);
    for (uint32_t c = 0; c < h; ++c) {
        g[c] = ToF(gamma.ptr_[c]);
        bt[c] = ToF(beta.ptr_[c]);
    }
    // mean and variance go to the outputs (float) or to float slots in the buffer (half)
    auto slotOf = [&](bool isMean, uint64_t r) -> float& {
        if constexpr (sizeof(T) == 4) {
            return (isMean ? meanOut : varOut).ptr_[r];
        } else {
            return stack[(isMean ? tl.meanTmpTensorPos : tl.varianceTmpTensorPos) + r];
        }
    };
    auto rowSum = [&](std::vector<float>& v, float old) {
        if (isBasicBlock) return BasicBlockSum(v.data(), h);
        if (oriH > 1) return RepeatSum(v, oriH);
        return old;  // CANN's loop runs no reduction: the slot keeps what it held
    };
    std::vector<float> reuse;  // what CANN's tempTensorA (srcLocal itself) holds after a pass
    auto pass = [&](uint64_t first, uint64_t n) {
        const bool brcb = isBasicBlock && tl.oneTmpSize % (h * 8) == 0 && tl.bsCurLength > h / kLanes;
        std::vector<T> out(n * h);
        if (isReuseSrc) reuse.assign(n * h, 0.0f);
        for (uint64_t i = 0; i < n; ++i) {
            const uint64_t r = first + i;
            for (uint32_t c = 0; c < h; ++c) {
                const float m = ToF(src.ptr_[r * h + c]) * a;
                x1[c] = ToF(gx.ptr_[r * h + c]) + m;
                t[c] = x1[c] * recip;
            }
            float& ms = slotOf(true, r);
            const float mean = rowSum(t, ms);
            ms = mean;
            const float negMean = mean * -1.0f, mb = mean + 0.0f;
            for (uint32_t c = 0; c < h; ++c) {
                dv[c] = brcb ? x1[c] - mb : x1[c] + negMean;
                const float sq = dv[c] * dv[c];
                t[c] = sq * recip;
            }
            float& vs = slotOf(false, r);
            const float var = rowSum(t, vs);
            vs = var;
            const float rstd = 1.0f / std::sqrt(var + eps);
            const float rb = rstd + 0.0f;
            for (uint32_t c = 0; c < h; ++c) {
                const float yv = brcb ? (rb * dv[c]) + 0.0f : dv[c] * rstd;
                const float gy = yv * g[c];
                if (isReuseSrc) reuse[i * h + c] = gy;
                out[i * h + c] = FromF<T>(gy + bt[c]);
            }
        }
        // with isReuseSrc CANN's tempTensorA is srcLocal from its start: its last value there is
        // (y * gamma), written before the output (dstLocal may be srcLocal then)
        if constexpr (isReuseSrc) std::copy(reuse.begin(), reuse.end(), src.ptr_);
        std::copy(out.begin(), out.end(), dst.ptr_ + first * h);
    };
    for (uint32_t i = 0; i < tl.loopRound; ++i) pass(static_cast<uint64_t>(i) * tl.meanVarRoundSize, tl.bsCurLength);
    if (tl.inputTailSize > 0) {
        // CANN's kernel leaves the tail's sizes in the caller's tiling
        tl.bshCurLength = tl.inputTailSize;
        tl.bsCurLength = tl.meanVarTailSize;
        pass(tl.meanVarTailPos, tl.meanVarTailSize);
    }
    if constexpr (sizeof(T) == 2) {
        for (uint32_t r = 0; r < tl.meanVarSize; ++r) {
            meanOut.ptr_[r] = FromF<T>(stack[tl.meanTmpTensorPos + r]);
            varOut.ptr_[r] = FromF<T>(stack[tl.varianceTmpTensorPos + r]);
        }
    }
}

// ---- Normalize ---------------------------------------------------------------------------------
// CANN's steps on the float buffer `stack` of `floats` floats: rstd for all rows, then passes of
// N rows (x as float at stack[0], a broadcast buffer at stack[N * rPad]).
template <typename U, typename T, bool noBeta, bool noGamma>
inline void NormalizeCore(const AscendC::LocalTensor<T>& out, float* rstdOut, const float* mean, const float* var,
                          const AscendC::LocalTensor<T>& x, const AscendC::LocalTensor<U>& gamma,
                          const AscendC::LocalTensor<U>& beta, float* stack, uint32_t n, float eps,
                          const AscendC::NormalizePara& para) {
    const uint32_t a = para.aLength, r = para.rLength, rp = para.rLengthWithPadding;
    for (uint32_t i = 0; i < a; ++i) rstdOut[i] = var[i] + eps;
    for (uint32_t i = 0; i < a; ++i) stack[i] = 1.0f;
    for (uint32_t i = 0; i < a; ++i) rstdOut[i] = stack[i] / std::sqrt(rstdOut[i]);
    std::vector<float> g(r, 0.0f), b(r, 0.0f);
    for (uint32_t c = 0; c < r; ++c) {
        if (!noGamma) g[c] = ToF(gamma.ptr_[c]);
        if (!noBeta) b[c] = ToF(beta.ptr_[c]);
    }
    if constexpr (std::is_same_v<U, half>) {  // the casts land after the two N-row buffers
        for (uint32_t c = 0; c < r; ++c) {
            if (!noGamma) stack[2 * n * rp + c] = g[c];
            if (!noBeta) stack[2 * n * rp + rp + c] = b[c];
        }
    }
    float* xa = stack;
    float* br = stack + static_cast<uint64_t>(n) * rp;
    for (uint32_t base = 0; base < a; base += n) {
        const uint32_t rows = std::min(n, a - base);
        const uint64_t elems = static_cast<uint64_t>(rows) * rp;
        const T* xs = x.ptr_ + static_cast<uint64_t>(base) * rp;
        for (uint64_t k = 0; k < elems; ++k) {  // float: Adds of 0 (-0.0 becomes +0.0); half: an exact Cast
            xa[k] = sizeof(T) == 4 ? ToF(xs[k]) + 0.0f : ToF(xs[k]);
        }
        for (uint32_t i = 0; i < rows; ++i) std::fill_n(br + static_cast<uint64_t>(i) * rp, r, mean[base + i]);
        for (uint64_t k = 0; k < elems; ++k) xa[k] = xa[k] - br[k];
        for (uint32_t i = 0; i < rows; ++i) std::fill_n(br + static_cast<uint64_t>(i) * rp, r, rstdOut[base + i]);
        for (uint64_t k = 0; k < elems; ++k) xa[k] = xa[k] * br[k];
        for (uint32_t i = 0; i < rows; ++i) {
            float* row = xa + static_cast<uint64_t>(i) * rp;
            for (uint32_t c = 0; c < r; ++c) {
                if (!noGamma) row[c] = row[c] * g[c];
                if (!noBeta) row[c] = row[c] + b[c];
            }
        }
        T* o = out.ptr_ + static_cast<uint64_t>(base) * rp;
        for (uint64_t k = 0; k < elems; ++k) {
            if constexpr (sizeof(T) == 4) {
                o[k] = xa[k] + 0.0f;
            } else {
                o[k] = FromF<T>(xa[k]);
            }
        }
    }
}

template <typename U, typename T>
constexpr bool NormalizeTypes() {
    return (std::is_same_v<T, float> && std::is_same_v<U, float>) ||
           (std::is_same_v<T, half> && (std::is_same_v<U, half> || std::is_same_v<U, float>));
}

// Normalize's N (rows a pass) for a buffer of `floats` floats; 0 when it holds no row.
template <typename U>
inline uint32_t NormalizeRows(uint64_t floats, const AscendC::NormalizePara& para) {
    const uint64_t r2 = 2ull * para.rLengthWithPadding;
    const uint64_t n = std::is_same_v<U, float> ? floats / r2 : (floats >= r2 ? (floats - r2) / r2 : 0);
    return static_cast<uint32_t>(std::min<uint64_t>(n, para.aLength));
}

inline void CheckNormalizePara(const char* api, const AscendC::NormalizePara& para, uint32_t typeSize,
                               const char* page) {
    if (para.aLength == 0 || para.rLength == 0 || para.rLength > para.rLengthWithPadding ||
        para.rLengthWithPadding * typeSize % kBlockBytes != 0) {
        Fail(ErrorKind::Alignment, api,
             "para (aLength " + Str(para.aLength) + ", rLength " + Str(para.rLength) + ", rLengthWithPadding " +
                 Str(para.rLengthWithPadding) +
                 ") needs positive lengths and rLength <= rLengthWithPadding, which is 32-byte aligned (" + page +
                 ")");
    }
}

template <typename U, typename T, const AscendC::NormalizeConfig& config>
inline void NormalizeRun(const AscendC::LocalTensor<T>& out, const AscendC::LocalTensor<float>& rstd,
                         const AscendC::LocalTensor<float>& mean, const AscendC::LocalTensor<float>& var,
                         const AscendC::LocalTensor<T>& x, const AscendC::LocalTensor<U>& gamma,
                         const AscendC::LocalTensor<U>& beta, const AscendC::LocalTensor<uint8_t>& tmp,
                         const float epsilon, const AscendC::NormalizePara& para) {
    constexpr const char* api = "Normalize";
    constexpr const char* page = "Normalize.md";
    static_assert(NormalizeTypes<U, T>(),
                  "Normalize takes T float with U float, or T half with U half or float (Normalize.md)");
    static_assert(!config.isOnlyOutput, "Normalize: NormalizeConfig.isOnlyOutput must be false (Normalize.md)");
    static_assert(config.aLength != 1, "Normalize: NormalizeConfig.aLength must not be 1");
    static_assert(config.reducePattern == AscendC::ReducePattern::AR,
                  "Normalize: only ReducePattern::AR is supported (Normalize.md)");
    CheckNormalizePara(api, para, sizeof(T), page);
    if (config.aLength != -1 && static_cast<uint32_t>(config.aLength) != para.aLength) {
        Fail(ErrorKind::Generic, api,
             "NormalizeConfig.aLength " + std::to_string(config.aLength) + " is not para.aLength " +
                 Str(para.aLength));
    }
    const uint64_t elems = static_cast<uint64_t>(para.aLength) * para.rLengthWithPadding;
    CheckPos(api, out, "output");
    CheckPos(api, rstd, "outputRstd");
    CheckPos(api, mean, "inputMean");
    CheckPos(api, var, "inputVariance");
    CheckPos(api, x, "inputX");
    CheckPos(api, tmp, "sharedTmpBuffer");
    CheckOperand(out, static_cast<int64_t>(elems), api, "output");
    CheckOperand(x, static_cast<int64_t>(elems), api, "inputX");
    CheckOperand(rstd, para.aLength, api, "outputRstd");
    CheckOperand(mean, para.aLength, api, "inputMean");
    CheckOperand(var, para.aLength, api, "inputVariance");
    if (!config.isNoGamma) {
        CheckPos(api, gamma, "gamma");
        CheckOperand(gamma, para.rLength, api, "gamma");
    }
    if (!config.isNoBeta) {
        CheckPos(api, beta, "beta");
        CheckOperand(beta, para.rLength, api, "beta");
    }
    CheckUbAligned(tmp, api, "sharedTmpBuffer");
    const uint64_t floats = tmp.size_ / sizeof(float);
    const uint32_t n = NormalizeRows<U>(floats, para);
    if (floats < para.aLength || n == 0) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes; A " + Str(para.aLength) + " floats and " +
                 (std::is_same_v<U, half> ? "gamma, beta and " : "") + "two rows of " +
                 Str(para.rLengthWithPadding) + " floats need more (GetNormalizeMaxMinTmpSize)");
    }
    NoOverlap(api, out, elems, "output", x, elems, "inputX", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", out, elems, "output", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", x, elems, "inputX", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", rstd, para.aLength, "outputRstd", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", mean, para.aLength, "inputMean", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", var, para.aLength, "inputVariance", page);
    FlushAll();
    NormalizeCore<U, T, config.isNoBeta, config.isNoGamma>(out, rstd.ptr_, mean.ptr_, var.ptr_, x, gamma, beta,
                                                           reinterpret_cast<float*>(tmp.ptr_), n, epsilon, para);
}

// ---- LayerNorm's [A, R] form -------------------------------------------------------------------
template <typename U, typename T, bool isReuseSource, const AscendC::LayerNormConfig& config>
inline void LayerNormRstdRun(const AscendC::LocalTensor<T>& out, const AscendC::LocalTensor<float>& meanOut,
                             const AscendC::LocalTensor<float>& rstdOut, const AscendC::LocalTensor<T>& x,
                             const AscendC::LocalTensor<U>& gamma, const AscendC::LocalTensor<U>& beta,
                             const float epsilon, const AscendC::LocalTensor<uint8_t>& tmp,
                             const AscendC::LayerNormPara& para, AscendC::tiling::LayerNormSeparateTiling& tl) {
    constexpr const char* api = "LayerNorm";
    constexpr const char* page = "LayerNorm.md";
    static_assert(NormalizeTypes<U, T>(), "LayerNorm ([A, R] form) takes T float with U float, or T half with U half "
                                          "or float");
    static_assert(!config.isOnlyOutput, "LayerNorm: LayerNormConfig.isOnlyOutput must be false on the Atlas A2/A3");
    const AscendC::NormalizePara np = {para.aLength, para.rLength, para.rLengthWithPadding};
    CheckNormalizePara(api, np, sizeof(T), page);
    const uint32_t rp = para.rLengthWithPadding;
    if (tl.oneTmpSize == 0 || tl.oneTmpSize % rp != 0 || tl.inputTailSize % rp != 0 || tl.rLength > rp) {
        LnTiling(api, "tiling.oneTmpSize " + Str(tl.oneTmpSize) + " must be a positive multiple of " +
                          "rLengthWithPadding " + Str(rp) + " (plan it with GetLayerNormNDTilingInfo)");
    }
    const uint64_t elems = static_cast<uint64_t>(para.aLength) * rp;
    CheckPos(api, out, "output");
    CheckPos(api, meanOut, "outputMean");
    CheckPos(api, rstdOut, "outputRstd");
    CheckPos(api, x, "inputX");
    CheckPos(api, tmp, "sharedTmpBuffer");
    const uint64_t mainEnd =
        tl.loopRound == 0 ? 0 : static_cast<uint64_t>(tl.loopRound - 1) * tl.meanVarRoundSize + tl.aCurLength;
    const uint64_t tailEnd = tl.inputTailSize > 0 ? static_cast<uint64_t>(tl.meanVarTailPos) + tl.meanVarTailSize : 0;
    const uint64_t rows = std::max<uint64_t>({mainEnd, tailEnd, para.aLength});
    CheckOperand(x, static_cast<int64_t>(rows * rp), api, "inputX");
    CheckOperand(out, static_cast<int64_t>(elems), api, "output");
    CheckOperand(meanOut, static_cast<int64_t>(rows), api, "outputMean");
    CheckOperand(rstdOut, para.aLength, api, "outputRstd");
    if (!config.isNoGamma) {
        CheckPos(api, gamma, "gamma");
        CheckOperand(gamma, para.rLength, api, "gamma");
    }
    if (!config.isNoBeta) {
        CheckPos(api, beta, "beta");
        CheckOperand(beta, para.rLength, api, "beta");
    }
    CheckUbAligned(tmp, api, "sharedTmpBuffer");
    const uint64_t floats = tmp.size_ / sizeof(float);
    const uint64_t need = std::max<uint64_t>({static_cast<uint64_t>(tl.secondTmpStartPos) + tl.oneTmpSize,
                                              tl.tmpBufSize, static_cast<uint64_t>(rp) + 1,
                                              static_cast<uint64_t>(tl.varianceTmpTensorPos) + rows});
    if (floats < need || tl.firstTmpStartPos > floats ||
        NormalizeRows<U>(floats - tl.firstTmpStartPos, np) == 0 || floats - tl.firstTmpStartPos < para.aLength) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes; the tiling's variance and temporaries (tmpBufSize " +
                 Str(tl.tmpBufSize) + " floats) and Normalize's rows from firstTmpStartPos " +
                 Str(tl.firstTmpStartPos) + " need more (GetLayerNormMaxMinTmpSize)");
    }
    NoOverlap(api, out, elems, "output", x, elems, "inputX", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", out, elems, "output", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", x, elems, "inputX", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", meanOut, para.aLength, "outputMean", page);
    NoOverlap(api, tmp, tmp.size_, "sharedTmpBuffer", rstdOut, para.aLength, "outputRstd", page);
    FlushAll();

    float* stack = reinterpret_cast<float*>(tmp.ptr_);
    if (para.rLength != rp) {  // CANN's pre-pass: x * [1 .. 1, 0 .. 0], in T, in place
        for (uint32_t i = 0; i < para.aLength; ++i) {
            for (uint32_t c = para.rLength; c < rp; ++c) {
                T& e = x.ptr_[static_cast<uint64_t>(i) * rp + c];
                e = FromF<T>(ToF(e) * 0.0f);
            }
        }
    }
    float* variance = stack + tl.varianceTmpTensorPos;
    const float recip = tl.rValueBack;
    std::vector<float> xf(rp), t(rp);
    auto pass = [&](uint64_t first, uint64_t n) {
        for (uint64_t i = 0; i < n; ++i) {
            const uint64_t r = first + i;
            for (uint32_t c = 0; c < rp; ++c) {
                xf[c] = ToF(x.ptr_[r * rp + c]);
                t[c] = xf[c] * recip;
            }
            const float mean = LnRowSum(t.data(), rp);
            meanOut.ptr_[r] = mean;
            const float neg = -1.0f * mean;
            for (uint32_t c = 0; c < rp; ++c) {
                const float dv = c < tl.rLength ? xf[c] + neg : xf[c];
                const float sq = dv * dv;
                t[c] = sq * recip;
            }
            variance[r] = LnRowSum(t.data(), rp);
        }
    };
    for (uint32_t i = 0; i < tl.loopRound; ++i) pass(static_cast<uint64_t>(i) * tl.meanVarRoundSize, tl.aCurLength);
    if (tl.inputTailSize > 0) {
        // CANN's kernel leaves the tail's sizes in the caller's tiling
        tl.arCurLength = tl.inputTailSize;
        tl.aCurLength = tl.meanVarTailSize;
        pass(tl.meanVarTailPos, tl.meanVarTailSize);
    }
    float* ntmp = stack + tl.firstTmpStartPos;
    const uint32_t n = NormalizeRows<U>(floats - tl.firstTmpStartPos, np);
    NormalizeCore<U, T, config.isNoBeta, config.isNoGamma>(out, rstdOut.ptr_, meanOut.ptr_, variance, x, gamma, beta,
                                                           ntmp, n, epsilon, np);
}

}  // namespace norm_detail
}  // namespace opgen_sim

namespace AscendC {

// ---- WelfordUpdate (WelfordUpdate.md) ----------------------------------------------------------
template <typename T, typename U, bool isReuseSource = false, const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
inline void WelfordUpdate(const LocalTensor<U>& outputMean, const LocalTensor<U>& outputVariance,
                          const LocalTensor<U>& inputMean, const LocalTensor<U>& inputVariance,
                          const LocalTensor<T>& inputX, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          const WelfordUpdateParam& para) {
    opgen_sim::norm_detail::WelfordUpdateRun<T, U, isReuseSource, config.isInplace>(
        outputMean, outputVariance, inputMean, inputVariance, inputX, sharedTmpBuffer, para);
}
template <typename T, typename U, bool isReuseSource = false, const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
inline void WelfordUpdate(const LocalTensor<U>& outputMean, const LocalTensor<U>& outputVariance,
                          const LocalTensor<U>& inputMean, const LocalTensor<U>& inputVariance,
                          const LocalTensor<T>& inputX, const WelfordUpdateParam& para) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::norm_detail::WelfordUpdateRun<T, U, isReuseSource, config.isInplace>(
        outputMean, outputVariance, inputMean, inputVariance, inputX, stack, para);
}

// ---- WelfordFinalize (WelfordFinalize.md) ------------------------------------------------------
// The A2/A3 take isReuseSource only; a WelfordFinalizeConfig (the Ascend 950's) is accepted when
// it asks for nothing the A2/A3 lack.
#define OPGEN_WELFORD_FINALIZE_CHECKS                                                                       \
    static_assert(!isReuseSource, "WelfordFinalize: isReuseSource is reserved; pass false (WelfordFinalize.md)"); \
    static_assert(!config.isCorrection,                                                                     \
                  "WelfordFinalize: WelfordFinalizeConfig.isCorrection (rRecWithCorrection) is Ascend 950 (npu " \
                  "arch 3510) only; the simulator runs the Atlas A2/A3 (2201) form")
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
inline void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                            const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                            const LocalTensor<uint8_t>& sharedTmpBuffer, WelfordFinalizePara& para) {
    OPGEN_WELFORD_FINALIZE_CHECKS;
    opgen_sim::norm_detail::WelfordFinalizeRun<false>(outputMean, outputVariance, inputMean, inputVariance, nullptr,
                                                      sharedTmpBuffer, para);
}
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
inline void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                            const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                            const LocalTensor<int32_t>& counts, const LocalTensor<uint8_t>& sharedTmpBuffer,
                            WelfordFinalizePara& para) {
    OPGEN_WELFORD_FINALIZE_CHECKS;
    opgen_sim::norm_detail::WelfordFinalizeRun<true>(outputMean, outputVariance, inputMean, inputVariance, &counts,
                                                     sharedTmpBuffer, para);
}
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
inline void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                            const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                            WelfordFinalizePara& para) {
    OPGEN_WELFORD_FINALIZE_CHECKS;
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::norm_detail::WelfordFinalizeRun<false>(outputMean, outputVariance, inputMean, inputVariance, nullptr,
                                                      stack, para);
}
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
inline void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                            const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                            const LocalTensor<int32_t>& counts, WelfordFinalizePara& para) {
    OPGEN_WELFORD_FINALIZE_CHECKS;
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::norm_detail::WelfordFinalizeRun<true>(outputMean, outputVariance, inputMean, inputVariance, &counts,
                                                     stack, para);
}
#undef OPGEN_WELFORD_FINALIZE_CHECKS

// ---- DeepNorm (DeepNorm.md) --------------------------------------------------------------------
template <typename T, bool isReuseSrc = false, bool isBasicBlock = false>
inline void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal, const LocalTensor<T>& rstdLocal,
                     const LocalTensor<T>& srcLocal, const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
                     const LocalTensor<T>& gammaLocal, const LocalTensor<uint8_t>& sharedTmpBuffer, const T alpha,
                     const T epsilon, DeepNormTiling& tiling) {
    opgen_sim::norm_detail::DeepNormRun<T, isReuseSrc, isBasicBlock>(dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal,
                                                                     betaLocal, gammaLocal, sharedTmpBuffer, alpha,
                                                                     epsilon, tiling);
}
template <typename T, bool isReuseSrc = false, bool isBasicBlock = false>
inline void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal, const LocalTensor<T>& rstdLocal,
                     const LocalTensor<T>& srcLocal, const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
                     const LocalTensor<T>& gammaLocal, const T alpha, const T epsilon, DeepNormTiling& tiling) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::norm_detail::DeepNormRun<T, isReuseSrc, isBasicBlock>(dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal,
                                                                     betaLocal, gammaLocal, stack, alpha, epsilon,
                                                                     tiling);
}

// ---- Normalize (Normalize.md) ------------------------------------------------------------------
template <typename U, typename T, bool isReuseSource = false, const NormalizeConfig& config = NLCFG_NORM>
inline void Normalize(const LocalTensor<T>& output, const LocalTensor<float>& outputRstd,
                      const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                      const LocalTensor<T>& inputX, const LocalTensor<U>& gamma, const LocalTensor<U>& beta,
                      const LocalTensor<uint8_t>& sharedTmpBuffer, const float epsilon, const NormalizePara& para) {
    opgen_sim::norm_detail::NormalizeRun<U, T, config>(output, outputRstd, inputMean, inputVariance, inputX, gamma,
                                                       beta, sharedTmpBuffer, epsilon, para);
}
template <typename U, typename T, bool isReuseSource = false, const NormalizeConfig& config = NLCFG_NORM>
inline void Normalize(const LocalTensor<T>& output, const LocalTensor<float>& outputRstd,
                      const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                      const LocalTensor<T>& inputX, const LocalTensor<U>& gamma, const LocalTensor<U>& beta,
                      const float epsilon, const NormalizePara& para) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::norm_detail::NormalizeRun<U, T, config>(output, outputRstd, inputMean, inputVariance, inputX, gamma,
                                                       beta, stack, epsilon, para);
}

// ---- LayerNorm's [A, R] form (LayerNorm.md) ----------------------------------------------------
template <typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
                      const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
                      const LocalTensor<U>& beta, const float epsilon, const LocalTensor<uint8_t>& sharedTmpBuffer,
                      const LayerNormPara& para, const LayerNormSeparateTiling& tiling) {
    opgen_sim::norm_detail::LayerNormRstdRun<U, T, isReuseSource, config>(
        output, outputMean, outputRstd, inputX, gamma, beta, epsilon, sharedTmpBuffer, para,
        const_cast<LayerNormSeparateTiling&>(tiling));
}
template <typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
                      const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
                      const LocalTensor<U>& beta, const float epsilon, const LayerNormPara& para,
                      const LayerNormSeparateTiling& tiling) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::norm_detail::LayerNormRstdRun<U, T, isReuseSource, config>(
        output, outputMean, outputRstd, inputX, gamma, beta, epsilon, stack, para,
        const_cast<LayerNormSeparateTiling&>(tiling));
}

}  // namespace AscendC
