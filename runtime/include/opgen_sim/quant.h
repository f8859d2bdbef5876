// opgen NPU simulator: the quantisation advanced APIs of the Atlas A2/A3 products
// (adv_api/quantization/ascend_quant.h, ascend_dequant.h, ascend_antiquant.h). Where the reference
// (AscendQuant.md, AscendDequant.md, AscendAntiQuant.md) is silent, each follows CANN's A2
// implementation in asc-devkit (impl/adv_api/detail/quantization/quant/ascend_quant_pre_impl.h,
// dequant/ascend_dequant_common_impl.h, antiquant/ascend_antiquant_impl.h and
// ascend_antiquant_c220_impl.h): its instructions' order, types and roundings, and which elements
// and parameters each of its paths reads and writes, so the results are the device's bit for bit.
//
// - AscendQuant with a scale and an offset for the whole tensor: a float source cast to half
//   (CAST_NONE: to nearest even, saturating), Muls by the scale as a half, Adds of the offset as a
//   half, Cast to int8_t (to nearest even, saturating). With a scale tensor (per channel): rows of
//   scaleCount elements, Mul by scale[c], Add of offset[c] or the scalar offset, in half likewise
//   (a float scale or offset tensor is cast to half over its own first bytes, as CANN does).
// - AscendDequant: int32_t cast to float, the first calCount elements of each row multiplied by
//   their column's scale in float (the other columns are only cast), the result to dstT.
// - AscendAntiQuant (int8_t to half or bfloat16_t): scale * (src + offset), in half for half and in
//   float for bfloat16_t, along the layout each of CANN's paths reads (see antiquant_detail).
// The Ascend 950's forms (PER_TOKEN / PER_GROUP, other dstT) stop the build saying so; int4b_t
// sources are not simulated (int4b_t tensors are not, tensor.h).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "norm.h"
#include "tensor.h"
#include "vector.h"

namespace AscendC {

struct AscendQuantConfig {
    constexpr AscendQuantConfig(const uint32_t calcCountIn, const uint32_t offsetCountIn,
                                const uint32_t scaleCountIn, const uint32_t workLocalSizeIn)
        : calcCount(calcCountIn), offsetCount(offsetCountIn), scaleCount(scaleCountIn),
          workLocalSize(workLocalSizeIn) {}
    uint32_t calcCount = 0;
    uint32_t offsetCount = 0;
    uint32_t scaleCount = 0;
    uint32_t workLocalSize = 0;
};
constexpr AscendQuantConfig ASCEND_QUANT_DEFAULT_CFG = {0, 0, 0, 0};

namespace quant_detail {
// A source, scale or offset element as the half CANN computes with: a float one through
// Cast<half, float> with CAST_NONE (to nearest even, saturating as the simulator's Cast), a half
// one as it is.
template <typename T>
inline half ToHalf(T v) {
    if constexpr (std::is_same_v<T, half>) {
        return v;
    } else {
        return cast_detail::Convert<half>(static_cast<float>(v), RoundMode::CAST_RINT);
    }
}

// An AscendQuantConfig with workLocalSize and calcCount set replaces calCount (CANN's AscendQuantCalc);
// the staging buffer must hold 32 halves (CANN divides by the split it gives).
template <typename T, const AscendQuantConfig& config>
inline void PerTensor(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src,
                      const LocalTensor<uint8_t>* tmp, float scale, float offset, uint32_t calCount) {
    constexpr const char* api = "AscendQuant";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "AscendQuant takes a half or float source (the A2/A3 products)");
    if (config.calcCount > src.size_ || (tmp != nullptr && config.workLocalSize > tmp->size_)) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "the AscendQuantConfig's calcCount " + opgen_sim::Str(config.calcCount) + " / workLocalSize " +
                            opgen_sim::Str(config.workLocalSize) + " exceed srcTensor / sharedTmpBuffer");
    }
    if (config.workLocalSize != 0 && config.calcCount != 0) calCount = config.calcCount;
    opgen_sim::CheckOperand(src, calCount, api, "srcTensor");
    opgen_sim::CheckOperand(dst, calCount, api, "dstTensor");
    if (tmp != nullptr) {
        opgen_sim::CheckUbAligned(*tmp, api, "sharedTmpBuffer");
        const uint64_t bytes = config.workLocalSize != 0 && config.calcCount != 0 ? config.workLocalSize : tmp->size_;
        if (bytes / sizeof(half) / 32 == 0) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                            "sharedTmpBuffer holds " + opgen_sim::Str(bytes) +
                                " bytes; the kernel stages 32 halves at least (64 bytes; "
                                "GetAscendQuantMaxMinTmpSize gives 512)");
        }
    }
    opgen_sim::FlushAll();
    const float hs = static_cast<float>(static_cast<half>(scale));
    const float ho = static_cast<float>(static_cast<half>(offset));
    for (uint32_t i = 0; i < calCount; ++i) {
        half h = ToHalf(src.ptr_[i]);                           // Cast<half, float>, or the half
        h = static_cast<half>(static_cast<float>(h) * hs);      // Muls in half
        h = static_cast<half>(static_cast<float>(h) + ho);      // Adds in half
        dst.ptr_[i] = cast_detail::Convert<int8_t>(h, RoundMode::CAST_RINT);  // Cast<int8_t, half>
    }
}
}  // namespace quant_detail

template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale, const float offset,
                        const uint32_t calCount) {
    quant_detail::PerTensor<T, config>(dstTensor, srcTensor, &sharedTmpBuffer, scale, offset, calCount);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor, const float scale,
                        const float offset, const uint32_t calCount) {
    quant_detail::PerTensor<T, config>(dstTensor, srcTensor, nullptr, scale, offset, calCount);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale, const float offset) {
    quant_detail::PerTensor<T, config>(dstTensor, srcTensor, &sharedTmpBuffer, scale, offset, srcTensor.GetSize());
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor, const float scale,
                        const float offset) {
    quant_detail::PerTensor<T, config>(dstTensor, srcTensor, nullptr, scale, offset, srcTensor.GetSize());
}

// ---- AscendDequant ------------------------------------------------------------------------------
// DequantParams {m, n, calCount} with mode DEQUANT_WITH_SINGLE_ROW: {1, n, calCount} whose calCount
// fills whole 32-byte blocks of dstT and divides n is computed as {n / calCount, calCount, calCount}.
enum class DeQuantMode : uint8_t {
    DEQUANT_WITH_SINGLE_ROW = 0,
    DEQUANT_WITH_MULTI_ROW,
};
struct DequantParams {
    uint32_t m;         // rows
    uint32_t n;         // int32_t elements a row (a multiple of 8: 32 bytes)
    uint32_t calCount;  // the first calCount elements of a row are scaled
};
// The PER_TOKEN / PER_GROUP forms' types (the Ascend 950's; declared so a kernel naming them builds).
struct AscendDeQuantConfig {
    bool hasOffset;
    int32_t kDim = 1;
};
enum class AscendDeQuantPolicy : int32_t { PER_TOKEN, PER_GROUP, PER_CHANNEL_PER_GROUP, PER_TOKEN_PER_GROUP };
struct AscendDeQuantParam {
    uint32_t m;
    uint32_t n;
    uint32_t calCount;
    uint32_t groupSize = 0;
};

namespace dequant_detail {
using opgen_sim::ErrorKind;
using opgen_sim::Fail;
using opgen_sim::Str;
constexpr const char* kApi = "AscendDequant";
constexpr uint32_t kFloatsPerBlock = 8;

// The (dstT, scaleT) pairs of the A2/A3 products (AscendDequant.md, 表5 and 表6).
template <typename D, typename S>
constexpr bool kTensorPair = (std::is_same_v<S, uint64_t> && std::is_same_v<D, half>) ||
                             (std::is_same_v<S, float> && std::is_same_v<D, float>) ||
                             (std::is_same_v<S, bfloat16_t> && std::is_same_v<D, float>) ||
                             (std::is_same_v<S, bfloat16_t> && std::is_same_v<D, bfloat16_t>) ||
                             (std::is_same_v<S, float> && std::is_same_v<D, bfloat16_t>);
template <typename D, typename S>
constexpr bool kScalarPair = (std::is_same_v<S, float> || std::is_same_v<S, bfloat16_t>) &&
                             (std::is_same_v<D, float> || std::is_same_v<D, bfloat16_t>);

// A deqScale element as CANN's kernel widens it to float: a float passes through Adds 0 (so -0.0
// becomes +0.0), a uint64_t gives its low 32 bits (GatherMask of the even words), read as a
// float, and a bfloat16_t widens exactly.
template <typename S>
inline float ScaleLane(S v) {
    if constexpr (std::is_same_v<S, float>) {
        return v + 0.0f;
    } else if constexpr (std::is_same_v<S, uint64_t>) {
        const uint32_t low = static_cast<uint32_t>(v);
        float f;
        std::memcpy(&f, &low, sizeof(f));
        return f;
    } else {
        return static_cast<float>(v);
    }
}

// The float result into dstT as CANN's CastDst: a float result through Adds 0, half with CAST_NONE
// (to nearest even), bfloat16_t with CAST_RINT, saturating as the simulator's Cast does.
template <typename D>
inline D OutLane(float v) {
    if constexpr (std::is_same_v<D, float>) {
        return v + 0.0f;
    } else {
        return cast_detail::Convert<D>(v, RoundMode::CAST_RINT);
    }
}

template <typename D>
constexpr uint32_t DstInner(uint32_t n) {
    constexpr uint32_t perBlock = 32 / sizeof(D);
    return (n + perBlock - 1) / perBlock * perBlock;
}

// The rules of CANN's kernel check (dequant_check_common.h), on the params as the caller gave them:
// past them CANN's strides and counts go wrong, so each is an error here.
template <typename D>
inline void CheckParams(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const DequantParams& p) {
    if (p.n == 0 || p.n % kFloatsPerBlock != 0) {
        Fail(ErrorKind::Alignment, kApi,
             "params.n " + Str(p.n) + " must be a positive multiple of 8: a row of int32_t (and of its float "
             "copy) fills whole 32-byte blocks (AscendDequant.md, params)");
    }
    if (p.calCount == 0 || p.calCount > p.n) {
        Fail(ErrorKind::Generic, kApi,
             "params.calCount " + Str(p.calCount) + " must be in [1, params.n " + Str(p.n) + "] (AscendDequant.md)");
    }
    opgen_sim::CheckOperand(src, static_cast<int64_t>(static_cast<uint64_t>(p.m) * p.n), kApi, "srcTensor");
    opgen_sim::CheckOperand(dst, static_cast<int64_t>(static_cast<uint64_t>(p.m) * DstInner<D>(p.n)), kApi,
                            "dstTensor");
}

template <typename D, DeQuantMode mode>
inline void UpdateParams(DequantParams& p) {
    if constexpr (mode == DeQuantMode::DEQUANT_WITH_SINGLE_ROW) {
        constexpr uint32_t perBlock = 32 / sizeof(D);
        if (p.m == 1 && p.calCount % perBlock == 0 && p.n % p.calCount == 0) {
            p.m = p.n / p.calCount;
            p.n = p.calCount;
        }
    }
}

// The temporary CANN's kernel carves (AscendDequantTmpCalc): calCount floats of deqScale rounded up
// to a block, then at least one row of n floats of the source.
template <typename D, typename S>
inline void CheckTmp(const LocalTensor<uint8_t>& tmp, const char* tmpName, const DequantParams& p,
                     const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>* scale) {
    opgen_sim::CheckTmpPlace(kApi, tmp);
    const uint64_t scaleFloats = (p.calCount + kFloatsPerBlock - 1) / kFloatsPerBlock * kFloatsPerBlock;
    const uint64_t need = (scaleFloats + p.n) * sizeof(float);
    if (tmp.size_ < need) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, kApi,
             std::string(tmpName) + " holds " + Str(tmp.size_) + " bytes; the kernel needs at least " + Str(need) +
                 ": " + Str(scaleFloats) + " floats of deqScale and one row of " + Str(p.n) +
                 " floats (GetAscendDequantMaxMinTmpSize gives the minimum)");
    }
    const uint64_t rows = static_cast<uint64_t>(p.m) * p.n;
    if (opgen_sim::Overlaps(tmp, dst, rows) || opgen_sim::Overlaps(tmp, src, rows) ||
        (scale != nullptr && opgen_sim::Overlaps(tmp, *scale, p.calCount))) {
        Fail(ErrorKind::Generic, kApi,
             std::string(tmpName) + " (UB offset " + Str(tmp.UbOffset()) + ", " + Str(tmp.size_) +
                 " bytes) overlaps an operand; CANN does not allow that");
    }
}

template <typename D>
inline void CheckNoOverlap(const LocalTensor<D>& dst, const DequantParams& p, const void* other, uint64_t bytes,
                           const char* what) {
    const uint64_t dstBytes = (static_cast<uint64_t>(p.m) * DstInner<D>(p.n)) * sizeof(D);
    if (opgen_sim::Overlaps(reinterpret_cast<const uint8_t*>(dst.ptr_), dstBytes,
                            reinterpret_cast<const uint8_t*>(other), bytes)) {
        Fail(ErrorKind::Generic, kApi,
             std::string("dstTensor overlaps ") + what + " (AscendDequant.md, 约束说明: no overlap of source and "
             "destination)");
    }
}

// CANN's steps, element by element: the int32_t cast to float (to nearest even), the row's first
// calCount elements multiplied by their column's scale, every element cast to dstT; row r of n
// elements lands at r * n_dst in dst (n_dst: n rounded up to 32 bytes of dstT; the padding is
// not written). `count` elements of src are processed (m * n, or the old forms' calCount).
template <typename D>
inline void Run(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const std::vector<float>& scale,
                const DequantParams& p, uint64_t count) {
    opgen_sim::FlushAll();
    const uint32_t dstInner = DstInner<D>(p.n);
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t r = i / p.n, c = i % p.n;
        float v = static_cast<float>(src.ptr_[i]);
        if (c < p.calCount) v = v * scale[c];
        dst.ptr_[r * dstInner + c] = OutLane<D>(v);
    }
}

template <typename D, typename S, DeQuantMode mode>
inline void TensorForm(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>& deqScale,
                       const LocalTensor<uint8_t>& tmp, const char* tmpName, DequantParams p, bool wholeRows,
                       uint64_t count) {
    static_assert(kTensorPair<D, S>,
                  "AscendDequant with a deqScale tensor takes (dstT, scaleT) half/uint64_t, float/float, "
                  "float/bfloat16_t, bfloat16_t/bfloat16_t or bfloat16_t/float on the A2/A3 products "
                  "(AscendDequant.md, 表5)");
    CheckParams(dst, src, p);
    opgen_sim::CheckOperand(deqScale, p.calCount, kApi, "deqScale");
    opgen_sim::norm_detail::CheckPos(kApi, dst, "dstTensor");
    opgen_sim::norm_detail::CheckPos(kApi, src, "srcTensor");
    opgen_sim::norm_detail::CheckPos(kApi, deqScale, "deqScale");
    CheckNoOverlap(dst, p, src.ptr_, static_cast<uint64_t>(p.m) * p.n * sizeof(int32_t), "srcTensor");
    CheckNoOverlap(dst, p, deqScale.ptr_, static_cast<uint64_t>(p.calCount) * sizeof(S), "deqScale");
    UpdateParams<D, mode>(p);
    CheckTmp(tmp, tmpName, p, dst, src, &deqScale);
    opgen_sim::FlushAll();
    std::vector<float> scale(p.calCount);
    for (uint32_t c = 0; c < p.calCount; ++c) scale[c] = ScaleLane(deqScale.ptr_[c]);
    Run(dst, src, scale, p, wholeRows ? static_cast<uint64_t>(p.m) * p.n : count);
}

// The forms without DequantParams: each row is deqScale.GetSize() long and scaled whole;
// calCount elements of src are processed (CANN's IsCalCountValid, IsWithoutDequantParamsValid).
template <typename D, typename S, DeQuantMode mode>
inline void CountForm(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>& deqScale,
                      const LocalTensor<uint8_t>& tmp, const char* tmpName, uint32_t calCount) {
    if (calCount == 0 || calCount > src.size_) {
        Fail(ErrorKind::Generic, kApi,
             "calCount " + Str(calCount) + " must be in [1, srcTensor.GetSize() " + Str(src.size_) + "]");
    }
    if (deqScale.size_ == 0 || src.size_ % deqScale.size_ != 0) {
        Fail(ErrorKind::Generic, kApi,
             "without DequantParams, srcTensor.GetSize() " + Str(src.size_) +
                 " must be a multiple of deqScale.GetSize() " + Str(deqScale.size_) + " (a row of src per deqScale)");
    }
    const DequantParams p = {src.size_ / deqScale.size_, deqScale.size_, deqScale.size_};
    TensorForm<D, S, mode>(dst, src, deqScale, tmp, tmpName, p, false, calCount);
}

template <typename D, typename S, DeQuantMode mode>
inline void ScalarForm(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, S deqScale,
                       const LocalTensor<uint8_t>& tmp, const char* tmpName, DequantParams p) {
    static_assert(kScalarPair<D, S>,
                  "AscendDequant with a scalar deqScale takes (dstT, scaleT) bfloat16_t/bfloat16_t, "
                  "bfloat16_t/float, float/bfloat16_t or float/float on the A2/A3 products (AscendDequant.md, 表6)");
    CheckParams(dst, src, p);
    opgen_sim::norm_detail::CheckPos(kApi, dst, "dstTensor");
    opgen_sim::norm_detail::CheckPos(kApi, src, "srcTensor");
    CheckNoOverlap(dst, p, src.ptr_, static_cast<uint64_t>(p.m) * p.n * sizeof(int32_t), "srcTensor");
    UpdateParams<D, mode>(p);
    CheckTmp<D, S>(tmp, tmpName, p, dst, src, nullptr);
    // CANN duplicates the scalar (as a float) into the temporary, which then goes through the float
    // deqScale's Adds 0
    const std::vector<float> scale(p.calCount, ScaleLane<float>(static_cast<float>(deqScale)));
    Run(dst, src, scale, p, static_cast<uint64_t>(p.m) * p.n);
}

inline LocalTensor<uint8_t> Stack() {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    return stack;
}
constexpr const char* kStackName = "the stack buffer (PopStackBuffer: the UB the pipe did not hand out)";

template <typename T>
constexpr bool kOnly950 = !std::is_same_v<T, T>;
}  // namespace dequant_detail

// deqScale a tensor, with DequantParams
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          DequantParams params) {
    dequant_detail::TensorForm<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, sharedTmpBuffer,
                                                   "sharedTmpBuffer", params, true, 0);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, DequantParams params) {
    dequant_detail::TensorForm<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, dequant_detail::Stack(),
                                                   dequant_detail::kStackName, params, true, 0);
}
// deqScale a tensor, the older forms (rows of deqScale.GetSize(); calCount elements, or all of src)
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          const uint32_t calCount) {
    dequant_detail::CountForm<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, sharedTmpBuffer, "sharedTmpBuffer",
                                                  calCount);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const uint32_t calCount) {
    dequant_detail::CountForm<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, dequant_detail::Stack(),
                                                  dequant_detail::kStackName, calCount);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer) {
    dequant_detail::CountForm<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, sharedTmpBuffer, "sharedTmpBuffer",
                                                  srcTensor.GetSize());
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale) {
    dequant_detail::CountForm<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, dequant_detail::Stack(),
                                                  dequant_detail::kStackName, srcTensor.GetSize());
}
// deqScale a scalar
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const scaleT deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer, DequantParams params) {
    dequant_detail::ScalarForm<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, sharedTmpBuffer,
                                                   "sharedTmpBuffer", params);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const scaleT deqScale, DequantParams params) {
    dequant_detail::ScalarForm<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, dequant_detail::Stack(),
                                                   dequant_detail::kStackName, params);
}
// PER_TOKEN / PER_GROUP (AscendDeQuantConfig, AscendDeQuantPolicy): the Ascend 950's only.
template <typename dstT, typename srcT, typename scaleT, const AscendDeQuantConfig& config,
          const AscendDeQuantPolicy& policy>
inline void AscendDequant(const LocalTensor<dstT>&, const LocalTensor<srcT>&, const LocalTensor<scaleT>&,
                          const LocalTensor<scaleT>&, const AscendDeQuantParam&) {
    static_assert(dequant_detail::kOnly950<dstT>,
                  "AscendDequant PER_TOKEN / PER_GROUP exists on the Ascend 950 only (AscendDequant.md); the "
                  "simulator models the A2/A3 products");
}
template <typename dstT, typename srcT, typename scaleT, const AscendDeQuantConfig& config,
          const AscendDeQuantPolicy& policy>
inline void AscendDequant(const LocalTensor<dstT>&, const LocalTensor<srcT>&, const LocalTensor<scaleT>&,
                          const LocalTensor<scaleT>&, const LocalTensor<uint8_t>&, const AscendDeQuantParam&) {
    static_assert(dequant_detail::kOnly950<dstT>,
                  "AscendDequant PER_TOKEN / PER_GROUP exists on the Ascend 950 only (AscendDequant.md); the "
                  "simulator models the A2/A3 products");
}

// ---- AscendAntiQuant -----------------------------------------------------------------------------
struct AntiQuantShapeInfo {
    uint32_t offsetHeight{0};
    uint32_t offsetWidth{0};
    uint32_t scaleHeight{0};
    uint32_t scaleWidth{0};
};

namespace antiquant_detail {
using opgen_sim::ErrorKind;
using opgen_sim::Fail;
using opgen_sim::Str;
constexpr const char* kApi = "AscendAntiQuant";

template <typename I, typename D>
constexpr void CheckTypes() {
    static_assert(!std::is_same_v<I, int4b_t>,
                  "AscendAntiQuant of int4b_t: 4-bit tensors are not simulated yet; this kernel needs hardware or "
                  "the CANN CPU-debug build");
    static_assert(std::is_same_v<I, int8_t>,
                  "AscendAntiQuant takes an int8_t (or int4b_t) source on the A2/A3 products");
    static_assert(std::is_same_v<D, half> || std::is_same_v<D, bfloat16_t>,
                  "AscendAntiQuant gives half or bfloat16_t on the A2/A3 products (offset and scale of that type)");
}

// One element, as CANN's A2 kernel computes it. half: the source cast to half (exact), Add of the
// offset and Mul by the scale, each a half instruction rounding to nearest even. bfloat16_t: the
// source cast to half and on to float (exact), Add of the offset and Mul by the scale in float
// (each widened exactly), the result cast to bfloat16_t with CAST_RINT.
template <typename D, bool withOffset>
inline D Lane(int8_t s, D off, D sc) {
    if constexpr (std::is_same_v<D, half>) {
        half h = static_cast<half>(s);
        if constexpr (withOffset) h = static_cast<half>(static_cast<float>(h) + static_cast<float>(off));
        return static_cast<half>(static_cast<float>(sc) * static_cast<float>(h));
    } else {
        float f = static_cast<float>(s);
        if constexpr (withOffset) f = f + static_cast<float>(off);
        f = f * static_cast<float>(sc);
        return cast_detail::Convert<bfloat16_t>(f, RoundMode::CAST_RINT);
    }
}

// An instruction CANN's kernel starts at element `at` of an operand: its address must be 32-byte
// aligned, as every vector operand's.
inline void CheckStart(uint64_t at, uint64_t elemBytes, const std::string& why) {
    if (at * elemBytes % 32 != 0) {
        Fail(ErrorKind::Alignment, kApi,
             why + ": CANN's kernel starts an instruction at byte " + Str(at * elemBytes) +
                 " of the operand, which is not 32-byte aligned");
    }
}

// bfloat16_t runs in float through sharedTmpBuffer: chunks of bytes / 8 elements (a float result
// and a float operand each).
inline uint64_t Bf16Chunk(const LocalTensor<uint8_t>& tmp, const char* tmpName, uint64_t count) {
    const uint64_t chunk = tmp.size_ / 8;
    if (chunk == 0) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, kApi,
             std::string(tmpName) + " holds " + Str(tmp.size_) +
                 " bytes; bfloat16_t needs 8 bytes an element of a chunk (CANN divides by the chunk)");
    }
    if (count > chunk) CheckStart(chunk, 1, "a chunk of " + Str(chunk) + " elements (" + tmpName + " / 8)");
    return chunk;
}

template <typename T>
inline uint32_t ShapeOr(uint32_t given, const LocalTensor<T>& t, int dim, const char* what) {
    const uint32_t v = given != 0 ? given : t.GetShapeInfo().shape[dim];
    if (v == 0) {
        Fail(ErrorKind::Generic, kApi,
             std::string(what) + " is 0: pass it in shapeInfo or set the tensor's ShapeInfo (AscendAntiQuant.md, "
             "shapeInfo); CANN's kernel divides by it");
    }
    return v;
}

template <typename A, typename B>
inline void NoOverlap(const LocalTensor<A>& a, uint64_t na, const LocalTensor<B>& b, uint64_t nb, const char* what) {
    if (opgen_sim::Overlaps(a, na, b, nb)) {
        Fail(ErrorKind::Generic, kApi,
             std::string(what) + " (AscendAntiQuant.md, 约束说明: no overlap of operands)");
    }
}

// The checks every form makes: types, K, positions (strict mode, as CANN's CPU-debug check) and
// overlaps (the reference forbids them; sharedTmpBuffer must not lie over an operand either).
template <typename I, typename D, bool isTranspose>
inline void CheckCommon(const LocalTensor<D>& dst, const LocalTensor<I>& src, const LocalTensor<D>* offset,
                        const LocalTensor<D>* scale, const LocalTensor<uint8_t>& tmp, uint32_t K) {
    CheckTypes<I, D>();
    if (K == 0) Fail(ErrorKind::Generic, kApi, "k is 0; CANN's kernel divides by it");
    if (isTranspose && K * sizeof(I) % 32 != 0) {
        Fail(ErrorKind::Alignment, kApi,
             "k " + Str(K) + ": with isTranspose, k * sizeof(" + opgen_sim::TypeName<I>() +
                 ") must be a multiple of 32 (AscendAntiQuant.md, 约束说明)");
    }
    opgen_sim::CheckUbAligned(dst, kApi, "dst");
    opgen_sim::CheckUbAligned(src, kApi, "src");
    opgen_sim::CheckTmpPlace(kApi, tmp);
    opgen_sim::norm_detail::CheckPos(kApi, dst, "dst");
    opgen_sim::norm_detail::CheckPos(kApi, src, "src");
    const uint64_t n = src.size_;
    NoOverlap(dst, n, src, n, "dst overlaps src");
    NoOverlap(tmp, tmp.size_, dst, n, "sharedTmpBuffer overlaps dst");
    NoOverlap(tmp, tmp.size_, src, n, "sharedTmpBuffer overlaps src");
    if (offset != nullptr) {
        opgen_sim::CheckUbAligned(*offset, kApi, "offset");
        opgen_sim::norm_detail::CheckPos(kApi, *offset, "offset");
        NoOverlap(dst, n, *offset, offset->size_, "dst overlaps offset");
        NoOverlap(tmp, tmp.size_, *offset, offset->size_, "sharedTmpBuffer overlaps offset");
    }
    if (scale != nullptr) {
        opgen_sim::CheckUbAligned(*scale, kApi, "scale");
        opgen_sim::norm_detail::CheckPos(kApi, *scale, "scale");
        NoOverlap(dst, n, *scale, scale->size_, "dst overlaps scale");
        NoOverlap(tmp, tmp.size_, *scale, scale->size_, "sharedTmpBuffer overlaps scale");
    }
}

// A row-per-scale layout CANN's broadcast paths compute (transposed src [N, K]): row n takes the
// n-th offset and scale, whatever shape they were given.
template <typename D, bool withOffset>
inline void PerRow(const LocalTensor<D>& dst, const LocalTensor<int8_t>& src, const D* off, const D* sc,
                   uint64_t rows, uint64_t K) {
    for (uint64_t n = 0; n < rows; ++n) {
        for (uint64_t k = 0; k < K; ++k) {
            const uint64_t i = n * K + k;
            dst.ptr_[i] = Lane<D, withOffset>(src.ptr_[i], withOffset ? off[n] : D{}, sc[n]);
        }
    }
}

// The transposed path with one scalar offset and scale per group (CANN's AntiQuantImplScalar): row i
// of src [N, K] in groups of K / width elements, group j taking element i * groups + j.
template <typename D, bool withOffset>
inline void Grouped(const LocalTensor<D>& dst, const LocalTensor<int8_t>& src, const LocalTensor<D>* offset,
                    const LocalTensor<D>& scale, const LocalTensor<uint8_t>& tmp, const char* tmpName, uint32_t K,
                    uint32_t width) {
    const uint64_t N = src.size_ / K;
    const uint32_t groupSize = K / width;
    if (groupSize == 0) {
        Fail(ErrorKind::Generic, kApi,
             "the offset/scale width " + Str(width) + " is above k " + Str(K) + ": no element a group");
    }
    const uint32_t groups = K / groupSize;
    if (groups > 1) CheckStart(groupSize, 1, "a group of " + Str(groupSize) + " int8_t");
    if constexpr (std::is_same_v<D, bfloat16_t>) Bf16Chunk(tmp, tmpName, groupSize);
    opgen_sim::CheckOperandCount(dst, static_cast<int64_t>(N * K), kApi, "dst");
    if (offset != nullptr) opgen_sim::CheckOperandCount(*offset, static_cast<int64_t>(N * groups), kApi, "offset");
    opgen_sim::CheckOperandCount(scale, static_cast<int64_t>(N * groups), kApi, "scale");
    opgen_sim::FlushAll();
    for (uint64_t i = 0; i < N; ++i) {
        for (uint32_t j = 0; j < groups; ++j) {
            const D off = withOffset ? offset->ptr_[i * groups + j] : D{};
            const D sc = scale.ptr_[i * groups + j];
            for (uint32_t k = 0; k < groupSize; ++k) {
                const uint64_t e = i * K + static_cast<uint64_t>(j) * groupSize + k;
                dst.ptr_[e] = Lane<D, withOffset>(src.ptr_[e], off, sc);
            }
        }
    }
}

// isTranspose, half (CANN's AscendAntiQuantFP16Transpose): with room for the broadcast scales (and
// offsets) in sharedTmpBuffer and k below 4096, src is cast to half into dst whole and row n of
// [N, K] takes the n-th scale and offset (Brcb of the first scaleHeight / 8 * 8 of them); else the
// grouped scalar path.
template <bool withOffset>
inline void Fp16Transpose(const LocalTensor<half>& dst, const LocalTensor<int8_t>& src, const LocalTensor<half>* offset,
                          const LocalTensor<half>& scale, const LocalTensor<uint8_t>& tmp, const char* tmpName,
                          uint32_t K, const AntiQuantShapeInfo& info) {
    const uint32_t scaleN = ShapeOr(info.scaleHeight, scale, 0, "the scale's height");
    const uint64_t need = 16ull * scaleN * (withOffset ? 2 : 1);
    if (tmp.size_ / sizeof(half) < need || K >= 4096) {
        const uint32_t width = withOffset ? ShapeOr(info.offsetWidth, *offset, 1, "the offset's width")
                                          : ShapeOr(info.scaleWidth, scale, 1, "the scale's width");
        Grouped<half, withOffset>(dst, src, offset, scale, tmp, tmpName, K, width);
        return;
    }
    const uint64_t rows = src.size_ / K;
    const uint64_t broadcast = scaleN / 8 * 8;
    if (scaleN / 8 > 255) {
        Fail(ErrorKind::Generic, kApi, "the scale's height " + Str(scaleN) + " needs more than 255 Brcb repeats");
    }
    if (rows > broadcast) {
        Fail(ErrorKind::Generic, kApi,
             "src holds " + Str(rows) + " rows of k " + Str(K) + " but CANN's kernel broadcasts the first " +
                 Str(broadcast) + " scales (the scale's height " + Str(scaleN) +
                 " rounded down to 8): the other rows would read bytes it never wrote");
    }
    opgen_sim::CheckOperandCount(dst, src.size_, kApi, "dst");
    opgen_sim::CheckOperandCount(scale, static_cast<int64_t>(broadcast), kApi, "scale");
    if (offset != nullptr) opgen_sim::CheckOperandCount(*offset, static_cast<int64_t>(broadcast), kApi, "offset");
    opgen_sim::FlushAll();
    for (uint64_t i = rows * K; i < src.size_; ++i) dst.ptr_[i] = static_cast<half>(src.ptr_[i]);
    PerRow<half, withOffset>(dst, src, withOffset ? offset->ptr_ : nullptr, scale.ptr_, rows, K);
}

// isTranspose, bfloat16_t (CANN's AscendAntiQuantBF16Transpose): k a multiple of 64 up to 2040 runs
// the broadcast path over scale.GetSize() rows (its float temporaries take 320 bytes a row of
// sharedTmpBuffer, unchecked by CANN); other k the grouped scalar path.
template <bool withOffset>
inline void Bf16Transpose(const LocalTensor<bfloat16_t>& dst, const LocalTensor<int8_t>& src,
                          const LocalTensor<bfloat16_t>* offset, const LocalTensor<bfloat16_t>& scale,
                          const LocalTensor<uint8_t>& tmp, const char* tmpName, uint32_t K,
                          const AntiQuantShapeInfo& info) {
    if (K > 2040 || K % 64 != 0) {
        const uint32_t width = withOffset ? ShapeOr(info.offsetWidth, *offset, 1, "the offset's width")
                                          : ShapeOr(info.scaleWidth, scale, 1, "the scale's width");
        Grouped<bfloat16_t, withOffset>(dst, src, offset, scale, tmp, tmpName, K, width);
        return;
    }
    const uint64_t S = scale.size_, rows = src.size_ / K;
    if (tmp.size_ < 320 * S) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, kApi,
             std::string(tmpName) + " holds " + Str(tmp.size_) + " bytes; the broadcast path needs " + Str(320 * S) +
                 " (80 floats for each of scale.GetSize() " + Str(S) + "; GetAscendAntiQuantMaxMinTmpSize's minimum)");
    }
    if (withOffset && offset->size_ != S) {
        Fail(ErrorKind::Generic, kApi,
             "offset.GetSize() " + Str(offset->size_) + " differs from scale.GetSize() " + Str(S) +
                 ": CANN's kernel places the converted offsets by the one and reads them by the other");
    }
    if (S > 255) Fail(ErrorKind::Generic, kApi, "scale.GetSize() " + Str(S) + " needs more than 255 repeats");
    if (rows > S) {
        Fail(ErrorKind::Generic, kApi,
             "src holds " + Str(rows) + " rows of k " + Str(K) + " but scale.GetSize() is " + Str(S) +
                 ": CANN's kernel computes scale.GetSize() rows and would write the others from bytes it never wrote");
    }
    opgen_sim::CheckOperandCount(src, static_cast<int64_t>(S * K), kApi, "src");
    opgen_sim::CheckOperandCount(dst, static_cast<int64_t>(rows * K), kApi, "dst");
    opgen_sim::FlushAll();
    PerRow<bfloat16_t, withOffset>(dst, src, withOffset ? offset->ptr_ : nullptr, scale.ptr_, rows, K);
}

// Tensor offset (withOffset) and tensor scale.
template <typename I, typename D, bool isTranspose, bool withOffset>
inline void TensorForm(const LocalTensor<D>& dst, const LocalTensor<I>& src, const LocalTensor<D>* offset,
                       const LocalTensor<D>& scale, const LocalTensor<uint8_t>& tmp, const char* tmpName, uint32_t K,
                       const AntiQuantShapeInfo& info) {
    CheckCommon<I, D, isTranspose>(dst, src, offset, &scale, tmp, K);
    if constexpr (isTranspose) {
        if constexpr (std::is_same_v<D, half>) {
            Fp16Transpose<withOffset>(dst, src, offset, scale, tmp, tmpName, K, info);
        } else {
            Bf16Transpose<withOffset>(dst, src, offset, scale, tmp, tmpName, K, info);
        }
    } else if constexpr (withOffset) {
        // CANN's AscendAntiQuantNoTranspose: src [K, N] with N = src.GetSize() / k. half, and
        // bfloat16_t with room for the float offsets and scales and 64 columns of k rows, run the
        // column-block path: every row takes offset[c] and scale[c] of its column (the first row of a
        // [groups, N] offset); half first casts the whole of src into dst.
        const uint64_t N = src.size_ / K;
        const bool fast = std::is_same_v<D, half> ||
                          static_cast<uint64_t>(tmp.size_) >= scale.size_ * 8ull + 256ull * K;
        if (fast) {
            if constexpr (std::is_same_v<D, half>) {
                if (N % 16 != 0 || N / 16 > 255) {
                    Fail(ErrorKind::Alignment, kApi,
                         "a row of N " + Str(N) + " (src.GetSize() / k) halves: CANN's kernel steps rows by N * 2 / 32 "
                         "blocks, which must be whole and at most 255");
                }
                opgen_sim::CheckOperandCount(dst, src.size_, kApi, "dst");
            } else {
                if (N % 32 != 0 || N > 4080) {
                    Fail(ErrorKind::Alignment, kApi,
                         "a row of N " + Str(N) + " (src.GetSize() / k) int8_t: CANN's kernel steps rows by N / 32 "
                         "blocks (and N * 2 / 32 of bfloat16_t), which must be whole and at most 255");
                }
                if (offset->size_ != N) {
                    Fail(ErrorKind::Generic, kApi,
                         "offset.GetSize() " + Str(offset->size_) + " differs from N " + Str(N) +
                             ": CANN's kernel places the converted scales by the one and reads them by the other");
                }
                opgen_sim::CheckOperandCount(dst, static_cast<int64_t>(K * N), kApi, "dst");
            }
            opgen_sim::CheckOperandCount(*offset, static_cast<int64_t>(N), kApi, "offset");
            opgen_sim::CheckOperandCount(scale, static_cast<int64_t>(N), kApi, "scale");
            opgen_sim::FlushAll();
            if constexpr (std::is_same_v<D, half>) {
                for (uint64_t i = K * N; i < src.size_; ++i) dst.ptr_[i] = static_cast<half>(src.ptr_[i]);
            }
            for (uint64_t r = 0; r < K; ++r) {
                for (uint64_t c = 0; c < N; ++c) {
                    dst.ptr_[r * N + c] = Lane<D, true>(src.ptr_[r * N + c], offset->ptr_[c], scale.ptr_[c]);
                }
            }
            return;
        }
        // bfloat16_t with a smaller buffer (CANN's AntiQuantNoTransposeImplScalar): only the first
        // k / scaleHeight rows are computed, each in chunks of sharedTmpBuffer / 8 elements that all
        // start from offset[0] and scale[0]
        const uint32_t groupCount = ShapeOr(info.scaleHeight, scale, 0, "the scale's height");
        const uint64_t rows = K / groupCount;
        const uint64_t chunk = Bf16Chunk(tmp, tmpName, N);
        if (rows > 1) CheckStart(N, 1, "a row of N " + Str(N) + " int8_t");
        opgen_sim::CheckOperandCount(dst, static_cast<int64_t>(rows * N), kApi, "dst");
        opgen_sim::CheckOperandCount(*offset, static_cast<int64_t>(std::min(N, chunk)), kApi, "offset");
        opgen_sim::CheckOperandCount(scale, static_cast<int64_t>(std::min(N, chunk)), kApi, "scale");
        opgen_sim::FlushAll();
        for (uint64_t r = 0; r < rows; ++r) {
            for (uint64_t c = 0; c < N; ++c) {
                dst.ptr_[r * N + c] =
                    Lane<D, true>(src.ptr_[r * N + c], offset->ptr_[c % chunk], scale.ptr_[c % chunk]);
            }
        }
    } else {
        // scale only, src [K, N] (N the scale's width): row r takes scale row r / (k / height);
        // bfloat16_t in chunks of sharedTmpBuffer / 8 elements that start from the row's first scale
        const uint32_t groupCount = ShapeOr(info.scaleHeight, scale, 0, "the scale's height");
        const uint64_t N = ShapeOr(info.scaleWidth, scale, 1, "the scale's width");
        const uint64_t groupSize = K / groupCount, rows = groupSize * groupCount;
        uint64_t chunk = N;
        if constexpr (std::is_same_v<D, bfloat16_t>) chunk = Bf16Chunk(tmp, tmpName, N);
        if (rows > 1) CheckStart(N, 1, "a row of N " + Str(N) + " int8_t");
        opgen_sim::CheckOperandCount(src, static_cast<int64_t>(rows * N), kApi, "src");
        opgen_sim::CheckOperandCount(dst, static_cast<int64_t>(rows * N), kApi, "dst");
        opgen_sim::CheckOperandCount(scale, static_cast<int64_t>((groupCount - 1) * N + std::min(N, chunk)), kApi,
                                     "scale");
        opgen_sim::FlushAll();
        for (uint64_t r = 0; r < rows; ++r) {
            const D* sc = scale.ptr_ + (r / groupSize) * N;
            for (uint64_t c = 0; c < N; ++c) {
                dst.ptr_[r * N + c] = Lane<D, false>(src.ptr_[r * N + c], D{}, sc[c % chunk]);
            }
        }
    }
}

// Scalar offset (withOffset) and scale: every element of src, the same steps with Adds and Muls
// (bfloat16_t in chunks of sharedTmpBuffer / 8 elements); isTranspose changes nothing.
template <typename I, typename D, bool isTranspose, bool withOffset>
inline void ScalarForm(const LocalTensor<D>& dst, const LocalTensor<I>& src, D offset, D scale,
                       const LocalTensor<uint8_t>& tmp, const char* tmpName, uint32_t K) {
    CheckCommon<I, D, isTranspose>(dst, src, nullptr, nullptr, tmp, K);
    if constexpr (std::is_same_v<D, bfloat16_t>) Bf16Chunk(tmp, tmpName, src.size_);
    opgen_sim::CheckOperandCount(dst, src.size_, kApi, "dst");
    opgen_sim::FlushAll();
    for (uint64_t i = 0; i < src.size_; ++i) dst.ptr_[i] = Lane<D, withOffset>(src.ptr_[i], offset, scale);
}

constexpr const char* kStackName = "the stack buffer (PopStackBuffer: the UB the pipe did not hand out)";
}  // namespace antiquant_detail

// PER_CHANNEL: offset and scale tensors
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale,
                            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}) {
    antiquant_detail::TensorForm<InputDataType, OutputDataType, isTranspose, true>(
        dst, src, &offset, scale, sharedTmpBuffer, "sharedTmpBuffer", k, shapeInfo);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale,
                            const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {}) {
    antiquant_detail::TensorForm<InputDataType, OutputDataType, isTranspose, true>(
        dst, src, &offset, scale, dequant_detail::Stack(), antiquant_detail::kStackName, k, shapeInfo);
}
// PER_CHANNEL without offset: a scale tensor
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& scale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                            const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {}) {
    antiquant_detail::TensorForm<InputDataType, OutputDataType, isTranspose, false>(
        dst, src, nullptr, scale, sharedTmpBuffer, "sharedTmpBuffer", k, shapeInfo);
}
// PER_TENSOR: offset and scale scalars
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const OutputDataType offset, const OutputDataType scale,
                            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}) {
    (void)shapeInfo;
    antiquant_detail::ScalarForm<InputDataType, OutputDataType, isTranspose, true>(
        dst, src, offset, scale, sharedTmpBuffer, "sharedTmpBuffer", k);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const OutputDataType offset, const OutputDataType scale, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}) {
    (void)shapeInfo;
    antiquant_detail::ScalarForm<InputDataType, OutputDataType, isTranspose, true>(
        dst, src, offset, scale, dequant_detail::Stack(), antiquant_detail::kStackName, k);
}
// PER_TENSOR without offset: a scale scalar
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const OutputDataType scale, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}) {
    (void)shapeInfo;
    antiquant_detail::ScalarForm<InputDataType, OutputDataType, isTranspose, false>(
        dst, src, scale, scale, sharedTmpBuffer, "sharedTmpBuffer", k);
}

// ---- AscendQuant per channel ---------------------------------------------------------------------
// CANN's A2 steps (ascend_quant_pre_impl.h, AscendQuantCalc with a scale tensor): src is calCount
// elements in rows of scaleCount, column c scaled by scale[c]; a float scale (and offset) tensor is
// first cast to half in place, over its own first scaleCount * 2 bytes, which the kernel then reads
// (so the caller's float scale holds halves afterwards, as on the device). Then per element, each a
// half instruction: a float source cast to half (CAST_NONE: to nearest even, saturating), Mul by the
// scale, Add of the offset (a scalar offset cast to half), Cast to int8_t (to nearest even,
// saturating). An AscendQuantConfig with scaleCount and calcCount both set replaces the counts.
namespace quant_detail {
using opgen_sim::ErrorKind;
using opgen_sim::Fail;
using opgen_sim::Str;
constexpr const char* kApi = "AscendQuant";

// A float scale or offset tensor cast to half over its own first bytes (CANN reuses its memory);
// a half one is read as it is. Returns the halves the kernel reads.
template <typename T>
inline std::vector<half> HalfParams(const LocalTensor<T>& t, uint32_t count) {
    std::vector<half> h(count);
    for (uint32_t c = 0; c < count; ++c) h[c] = ToHalf(t.ptr_[c]);
    if constexpr (std::is_same_v<T, float>) std::memcpy(t.ptr_, h.data(), count * sizeof(half));
    return h;
}

template <typename T, const AscendQuantConfig& config>
inline void PerChannel(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                       const char* tmpName, const LocalTensor<T>& scale, const LocalTensor<T>* offset, T offsetValue,
                       uint32_t scaleCount, uint32_t offsetCount, uint32_t calCount) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "AscendQuant takes a half or float source (the A2/A3 products)");
    // CANN's kernel checks (IsQuantParamValid, IsQuantConfigValid): past them its loops read and
    // write outside the operands
    if (config.calcCount > src.size_ || config.scaleCount > scale.size_ || config.scaleCount % 32 != 0 ||
        (config.scaleCount != 0 && config.calcCount % config.scaleCount != 0) ||
        (offset != nullptr && (config.offsetCount > offset->size_ || config.scaleCount != config.offsetCount)) ||
        config.workLocalSize > tmp.size_) {
        Fail(ErrorKind::Generic, kApi,
             "the AscendQuantConfig {calcCount " + Str(config.calcCount) + ", offsetCount " + Str(config.offsetCount) +
                 ", scaleCount " + Str(config.scaleCount) + ", workLocalSize " + Str(config.workLocalSize) +
                 "} does not fit the operands: calcCount <= src, scaleCount <= scale, a multiple of 32 dividing "
                 "calcCount, offsetCount equal to it, workLocalSize <= " + tmpName);
    }
    if (config.scaleCount != 0 && config.calcCount != 0) {
        scaleCount = offsetCount = config.scaleCount;
        calCount = config.calcCount;
    }
    if (scaleCount == 0 || (offset != nullptr && offsetCount != scaleCount)) {
        Fail(ErrorKind::Generic, kApi,
             "scaleCount " + Str(scaleCount) + (offset != nullptr ? " and offsetCount " + Str(offsetCount) : "") +
                 ": scaleCount must be positive" + (offset != nullptr ? " and equal offsetCount" : ""));
    }
    if (calCount == 0 || calCount % scaleCount != 0) {
        Fail(ErrorKind::Generic, kApi,
             "calCount " + Str(calCount) + " must be a positive multiple of scaleCount " + Str(scaleCount) +
                 " (rows of scaleCount elements)");
    }
    opgen_sim::CheckOperand(src, calCount, kApi, "srcTensor");
    opgen_sim::CheckOperand(dst, calCount, kApi, "dstTensor");
    opgen_sim::CheckOperand(scale, scaleCount, kApi, "scaleTensor");
    if (offset != nullptr) opgen_sim::CheckOperand(*offset, scaleCount, kApi, "offsetTensor");
    if (calCount > scaleCount && scaleCount % 32 != 0) {
        Fail(ErrorKind::Alignment, kApi,
             "scaleCount " + Str(scaleCount) + ": each row of int8_t starts an instruction, so rows must be whole "
             "32-byte blocks (AscendQuant.md, 约束说明)");
    }
    opgen_sim::CheckTmpPlace(kApi, tmp);
    const uint64_t split = (config.workLocalSize != 0 && config.scaleCount != 0 ? config.workLocalSize : tmp.size_) /
                           sizeof(half) / 32 * 32;
    if (split == 0) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, kApi,
             std::string(tmpName) + " holds " + Str(tmp.size_) +
                 " bytes; the kernel stages 32 halves at least (64 bytes; GetAscendQuantMaxMinTmpSize gives 512)");
    }
    if (opgen_sim::Overlaps(tmp, src, calCount) || opgen_sim::Overlaps(tmp, dst, calCount) ||
        opgen_sim::Overlaps(tmp, scale, scaleCount) ||
        (offset != nullptr && opgen_sim::Overlaps(tmp, *offset, scaleCount))) {
        Fail(ErrorKind::Generic, kApi,
             std::string(tmpName) + " (UB offset " + Str(tmp.UbOffset()) + ", " + Str(tmp.size_) +
                 " bytes) overlaps an operand; CANN does not allow that");
    }
    opgen_sim::norm_detail::CheckPos(kApi, dst, "dstTensor");
    opgen_sim::norm_detail::CheckPos(kApi, src, "srcTensor");
    opgen_sim::norm_detail::CheckPos(kApi, scale, "scaleTensor");
    if (offset != nullptr) opgen_sim::norm_detail::CheckPos(kApi, *offset, "offsetTensor");
    opgen_sim::FlushAll();
    const std::vector<half> sc = HalfParams(scale, scaleCount);
    const std::vector<half> off = offset != nullptr ? HalfParams(*offset, scaleCount)
                                                    : std::vector<half>(scaleCount, static_cast<half>(offsetValue));
    // src and dst may be one buffer (AscendQuant.md): every element is read before any is written
    std::vector<int8_t> out(calCount);
    for (uint32_t i = 0; i < calCount; ++i) {
        const uint32_t c = i % scaleCount;
        half h = ToHalf(src.ptr_[i]);                                               // Cast<half, float>
        h = static_cast<half>(static_cast<float>(h) * static_cast<float>(sc[c]));   // Mul in half
        h = static_cast<half>(static_cast<float>(h) + static_cast<float>(off[c]));  // Add / Adds in half
        out[i] = cast_detail::Convert<int8_t>(h, RoundMode::CAST_RINT);             // Cast<int8_t, half>
    }
    std::memcpy(dst.ptr_, out.data(), calCount);
}
}  // namespace quant_detail

// scale a tensor, offset a scalar
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor, const T offset,
                        const uint32_t scaleCount, const uint32_t calCount) {
    quant_detail::PerChannel<T, config>(dstTensor, srcTensor, sharedTmpBuffer, "sharedTmpBuffer", scaleTensor, nullptr,
                                        offset, scaleCount, scaleCount, calCount);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<T>& scaleTensor, const T offset, const uint32_t scaleCount,
                        const uint32_t calCount) {
    quant_detail::PerChannel<T, config>(dstTensor, srcTensor, dequant_detail::Stack(), dequant_detail::kStackName,
                                        scaleTensor, nullptr, offset, scaleCount, scaleCount, calCount);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor,
                        const T offset) {
    quant_detail::PerChannel<T, config>(dstTensor, srcTensor, sharedTmpBuffer, "sharedTmpBuffer", scaleTensor, nullptr,
                                        offset, scaleTensor.GetSize(), scaleTensor.GetSize(), srcTensor.GetSize());
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<T>& scaleTensor, const T offset) {
    quant_detail::PerChannel<T, config>(dstTensor, srcTensor, dequant_detail::Stack(), dequant_detail::kStackName,
                                        scaleTensor, nullptr, offset, scaleTensor.GetSize(), scaleTensor.GetSize(),
                                        srcTensor.GetSize());
}
// scale and offset tensors
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor,
                        const LocalTensor<T>& offsetTensor, const uint32_t scaleCount, const uint32_t offsetCount,
                        const uint32_t calCount) {
    quant_detail::PerChannel<T, config>(dstTensor, srcTensor, sharedTmpBuffer, "sharedTmpBuffer", scaleTensor,
                                        &offsetTensor, T{}, scaleCount, offsetCount, calCount);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<T>& scaleTensor, const LocalTensor<T>& offsetTensor,
                        const uint32_t scaleCount, const uint32_t offsetCount, const uint32_t calCount) {
    quant_detail::PerChannel<T, config>(dstTensor, srcTensor, dequant_detail::Stack(), dequant_detail::kStackName,
                                        scaleTensor, &offsetTensor, T{}, scaleCount, offsetCount, calCount);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor,
                        const LocalTensor<T>& offsetTensor) {
    quant_detail::PerChannel<T, config>(dstTensor, srcTensor, sharedTmpBuffer, "sharedTmpBuffer", scaleTensor,
                                        &offsetTensor, T{}, scaleTensor.GetSize(), offsetTensor.GetSize(),
                                        srcTensor.GetSize());
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<T>& scaleTensor, const LocalTensor<T>& offsetTensor) {
    quant_detail::PerChannel<T, config>(dstTensor, srcTensor, dequant_detail::Stack(), dequant_detail::kStackName,
                                        scaleTensor, &offsetTensor, T{}, scaleTensor.GetSize(), offsetTensor.GetSize(),
                                        srcTensor.GetSize());
}

}  // namespace AscendC
