// opgen NPU simulator: the normalization advanced APIs (adv_api/normalization/rmsnorm.h; and
// layernorm.h, layernormgrad.h, layernormgradbeta.h, described in docs/simulator.md, "LayerNorm
// follows CANN's float steps", after RmsNorm's code below) and the
// stack buffer they default to: PopStackBuffer and RmsNorm (with or without sharedTmpBuffer), with
// the kernel struct RmsNormTiling (kernel_tiling/norm_tiling_data.h). ShapeInfo and DataFormat,
// which kernels set on their tensors before these calls, live with LocalTensor (tensor.h).
//
// RmsNorm.md gives y = x / sqrt(mean(x^2) + eps) * gamma over the last axis of [B, S, H]. Where it
// is silent the simulator follows CANN's A2/A3 implementation (asc-devkit
// impl/adv_api/detail/normalization/rmsnorm/rmsnorm_common_impl.h and rmsnorm_v220_impl.h), so
// each row carries the same float roundings:
//
// - half rows and gamma are cast to float (exact); the result is cast back with CAST_NONE, which
//   rounds to nearest even.
// - x^2 in float; the sum of a row: on the general path, the first originalHLength squares by
//   counter-mode RepeatReduceSum, one tree sum (adjacent pairs) a 256-byte repeat of 64 floats,
//   then the same over those sums until one is left; on the basic-block path (isBasicBlock), all
//   hLength squares, the 64-column blocks added into the first one in order, then the 64 lanes'
//   tree. An originalHLength of 1 is CANN's loop that runs no reduction: the row's value is
//   whatever the buffer's reduce slot holds (its previous pass's result, or the bytes that were
//   there).
// - then Muls by tiling.reciprocalOfHLength, Adds epsilon, and the rsqrt as CANN computes it:
//   Ln (libm logf), Muls by -0.5, Exp (exp_lanes.h);
// - then every one of the hLength columns (the padding too, as documented) x * rstd, then * gamma.
// Rules (each a SimulatorError naming the API): T half or float; hLength 32-byte aligned; a tiling
// with 0 < originalHLength <= hLength and rows of the pass plan inside src/dst; a sharedTmpBuffer
// of at least the plan's floats (mainBsLengthAlign reduce slots, mainBshLength floats, twice that
// for half: CANN's kernel writes there unchecked); dst not overlapping gamma (RmsNorm.md, 约束说明);
// isBasicBlock needs hLength a multiple of 64 below 2048 (its repeat stride). The TPositions
// (VECIN/VECCALC/VECOUT) are checked in strict mode, as CANN's CPU-debug build checks them.
#pragma once

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../kernel_tiling/kernel_tiling.h"
#include "vector_more.h"

namespace AscendC {

// PopStackBuffer (PopStackBuffer.md): all of the Unified Buffer the pipe has not handed out, from
// the end of its last buffer to the end CANN uses: the UB's end less the 128 bytes the A2/A3 keep
// for KFC messages (a 256 KB UB, the 310P's, keeps none).
template <typename T, TPosition pos>
inline bool PopStackBuffer(LocalTensor<T>& popLocal) {
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    constexpr uint64_t kKfcMsgBytes = 128;
    const uint64_t end = c.ub_capacity == 256 * 1024 ? c.ub_capacity : c.ub_capacity - kKfcMsgBytes;
    if (c.ub_used >= end) {
        opgen_sim::Fail(opgen_sim::ErrorKind::UnifiedBufferOverflow, "PopStackBuffer",
                        "the pipe's buffers use " + opgen_sim::Str(c.ub_used) + " bytes of the " +
                            opgen_sim::Str(end) + " the stack buffer may reach: nothing is left to pop");
    }
    LocalTensor<T> t;
    t.ptr_ = reinterpret_cast<T*>(c.ub + c.ub_used);
    t.size_ = static_cast<uint32_t>((end - c.ub_used) / sizeof(T));
    t.pos_ = pos;
    popLocal = t;
    return true;
}

}  // namespace AscendC

namespace opgen_sim {
namespace norm_detail {

constexpr uint32_t kLanes = 64;  // floats of one 256-byte repeat

template <typename T>
inline T FromF(float v) {
    return FromFloatAs<T, AscendC::RoundMode::CAST_RINT>(v);
}

// Counter-mode RepeatReduceSum over n floats, repeated until one value is left: a tree sum a
// repeat of 64 lanes (zeros past n), then the same over those sums.
inline float RepeatSum(std::vector<float>& v, uint32_t n) {
    while (n > 1) n = RepeatSumLevel(v.data(), n);
    return v[0];
}

// The sum of a basic-block row: its h / 64 blocks added lane by lane into the first, in order,
// then the 64 lanes' tree.
inline float BasicBlockSum(const float* sq, uint32_t h) {
    float acc[kLanes];
    std::memcpy(acc, sq, sizeof(acc));
    for (uint32_t b = 1; b < h / kLanes; ++b) {
        for (uint32_t j = 0; j < kLanes; ++j) acc[j] = acc[j] + sq[b * kLanes + j];
    }
    return TreeSum(acc, kLanes);
}

template <typename T>
inline void CheckPos(const char* api, const AscendC::LocalTensor<T>& t, const char* what) {
    if (!CurrentCore().strict_gm || IsVecPosition(t.pos_)) return;
    Fail(ErrorKind::Generic, api,
         std::string(what) + " must be a VECIN/VECCALC/VECOUT LocalTensor (TPosition " +
             std::to_string(static_cast<int>(t.pos_)) + "; strict mode, as CANN's CPU-debug check)");
}

template <typename T, bool isBasicBlock>
inline void RmsNormRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                       const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<uint8_t>& tmp,
                       const T epsilon, const AscendC::tiling::RmsNormTiling& tiling) {
    constexpr const char* api = "RmsNorm";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "RmsNorm takes half or float");
    const uint32_t h = tiling.hLength, oriH = tiling.originalHLength;
    if (h == 0 || h * sizeof(T) % kBlockBytes != 0) {
        Fail(ErrorKind::Alignment, api,
             "tiling.hLength " + std::to_string(h) + " of " + TypeName<T>() +
                 " is not a positive multiple of 32 bytes (RmsNorm.md: H must be 32-byte aligned)");
    }
    if (oriH == 0 || oriH > h) {
        Fail(ErrorKind::Tiling, api,
             "tiling.originalHLength " + std::to_string(oriH) + " must be in [1, hLength " + std::to_string(h) +
                 "] (GetRmsNormTilingInfo)");
    }
    if (isBasicBlock && (h % kLanes != 0 || h >= 2048)) {
        Fail(ErrorKind::Tiling, api,
             "isBasicBlock needs H a multiple of 64 below 2048 (RmsNorm.md); tiling.hLength is " + std::to_string(h));
    }
    const uint32_t mainBs = tiling.mainBsLength, tailBs = tiling.tailBsLength;
    if (tiling.loopRound != 0 && mainBs == 0) {
        Fail(ErrorKind::Tiling, api,
             "tiling.mainBsLength is 0 with loopRound " + std::to_string(tiling.loopRound) +
                 ": GetRmsNormTilingInfo's stackBufferByteSize held no row");
    }
    const uint64_t rows = static_cast<uint64_t>(tiling.loopRound) * mainBs + tailBs;
    const uint64_t elems = rows * h;
    CheckPos(api, dst, "dstLocal");
    CheckPos(api, src, "srcLocal");
    CheckPos(api, gamma, "gammaLocal");
    CheckPos(api, tmp, "sharedTmpBuffer");
    CheckOperand(src, static_cast<int64_t>(elems), api, "srcLocal");
    CheckOperand(dst, static_cast<int64_t>(elems), api, "dstLocal");
    CheckOperand(gamma, static_cast<int64_t>(h), api, "gammaLocal");
    CheckUbAligned(tmp, api, "sharedTmpBuffer");
    const uint64_t passBs = std::max(mainBs, tailBs);
    const uint64_t passBsh = passBs * h;
    const uint64_t slots = std::max<uint64_t>(tiling.mainBsLengthAlign, passBs);
    const uint64_t needFloats = slots + passBsh * (sizeof(T) == 2 ? 2 : 1);
    if (static_cast<uint64_t>(tmp.size_) < needFloats * sizeof(float)) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes; passes of " + Str(passBs) + " rows of H " +
                 std::to_string(h) + " need " + Str(needFloats * sizeof(float)) +
                 " (plan the tiling with GetRmsNormTilingInfo for the buffer's size)");
    }
    if (Overlaps(dst, elems, gamma, h)) {
        Fail(ErrorKind::Generic, api, "dstLocal overlaps gammaLocal; RmsNorm.md (约束说明) does not allow that");
    }
    FlushAll();

    float* slot = reinterpret_cast<float*>(tmp.ptr_);  // the reduce slots, as CANN's reducedAddr
    const float recip = tiling.reciprocalOfHLength;
    const float eps = ToF(epsilon);
    std::vector<float> g(h), x(h), sq(h);
    for (uint32_t c = 0; c < h; ++c) g[c] = ToF(gamma.ptr_[c]);
    std::vector<float> out(passBsh);
    for (uint64_t first = 0; first < rows;) {
        const uint64_t passRows = first < static_cast<uint64_t>(tiling.loopRound) * mainBs ? mainBs : tailBs;
        for (uint64_t i = 0; i < passRows; ++i) {
            const T* s = src.ptr_ + (first + i) * h;
            for (uint32_t c = 0; c < h; ++c) {
                x[c] = ToF(s[c]);
                sq[c] = x[c] * x[c];
            }
            float v;
            if (isBasicBlock) {
                v = BasicBlockSum(sq.data(), h);
            } else if (oriH > 1) {
                v = RepeatSum(sq, oriH);
            } else {
                v = slot[i];
            }
            v = v * recip;
            v = v + eps;
            v = std::log(v);
            v = v * -0.5f;
            v = opgen_sim::exp_lanes::ExpF(v);
            slot[i] = v;
            for (uint32_t c = 0; c < h; ++c) out[i * h + c] = (x[c] * v) * g[c];
        }
        // a pass reads all of its source rows before it writes dst (dst may be src)
        T* d = dst.ptr_ + first * h;
        for (uint64_t k = 0; k < passRows * h; ++k) d[k] = FromF<T>(out[k]);
        first += passRows;
    }
}


// ---- LayerNorm, LayerNormGrad, LayerNormGradBeta -------------------------------------------------
// LayerNorm's row sum (CANN's layernorm reduce): up to 64 columns one tree; more, the 64-column
// blocks added lane by lane into the first in order, the partial last block into its first lanes,
// then the 64 lanes' tree.
inline float LnRowSum(const float* v, uint32_t h) {
    float acc[kLanes] = {};
    if (h <= kLanes) {
        std::memcpy(acc, v, h * sizeof(float));
        return TreeSum(acc, kLanes);
    }
    std::memcpy(acc, v, sizeof(acc));
    const uint32_t blocks = h / kLanes, tail = h % kLanes;
    for (uint32_t b = 1; b < blocks; ++b) {
        for (uint32_t j = 0; j < kLanes; ++j) acc[j] = v[b * kLanes + j] + acc[j];
    }
    for (uint32_t j = 0; j < tail; ++j) acc[j] = v[blocks * kLanes + j] + acc[j];
    return TreeSum(acc, kLanes);
}

// LayerNormGrad's row sum: a tree a 64-column repeat, then the same over those sums.
inline float LnGradRowSum(const float* v, uint32_t h) {
    std::vector<float> t(v, v + h);
    return RepeatSum(t, h);
}

inline void LnTiling(const char* api, const std::string& what) { Fail(ErrorKind::Tiling, api, what); }

template <typename T>
inline void LnTmpSize(const char* api, const AscendC::LocalTensor<uint8_t>& tmp, uint64_t floats,
                      const std::string& plan) {
    CheckUbAligned(tmp, api, "sharedTmpBuffer");
    if (static_cast<uint64_t>(tmp.size_) < floats * sizeof(float)) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes; the tiling's " + plan + " need " +
                 Str(floats * sizeof(float)) + " (CANN's kernel writes there unchecked)");
    }
}

template <typename T, bool isReuseSource>
inline void LayerNormRun(const AscendC::LocalTensor<T>& out, const AscendC::LocalTensor<T>& outMean,
                         const AscendC::LocalTensor<T>& outVar, const AscendC::LocalTensor<T>& x,
                         const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<T>& beta,
                         const AscendC::LocalTensor<uint8_t>& tmp, const T epsilon,
                         AscendC::tiling::LayerNormTiling& tl) {
    constexpr const char* api = "LayerNorm";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "LayerNorm takes half or float");
    const uint32_t h = tl.hLength;
    if (h == 0 || tl.oneTmpSize == 0 || tl.oneTmpSize % h != 0) {
        LnTiling(api, "tiling.oneTmpSize " + std::to_string(tl.oneTmpSize) + " must be a positive multiple of hLength " +
                          std::to_string(h) + " (plan it with GetLayerNormNDTilingInfo)");
    }
    CheckPos(api, out, "output");
    CheckPos(api, outMean, "outputMean");
    CheckPos(api, outVar, "outputVariance");
    CheckPos(api, x, "inputX");
    CheckPos(api, gamma, "gamma");
    CheckPos(api, beta, "beta");
    // the passes: loopRound of bsCurLength rows every meanVarRoundSize rows, then the tail
    const uint64_t mainEnd = tl.loopRound == 0 ? 0
                                               : static_cast<uint64_t>(tl.loopRound - 1) * tl.meanVarRoundSize +
                                                     tl.bsCurLength;
    const uint64_t tailEnd = tl.inputTailSize > 0 ? static_cast<uint64_t>(tl.meanVarTailPos) + tl.meanVarTailSize : 0;
    const uint64_t rows = std::max(mainEnd, tailEnd);
    CheckOperand(x, static_cast<int64_t>(rows * h), api, "inputX");
    CheckOperand(out, static_cast<int64_t>(rows * h), api, "output");
    CheckOperand(outMean, static_cast<int64_t>(rows), api, "outputMean");
    CheckOperand(outVar, static_cast<int64_t>(rows), api, "outputVariance");
    CheckOperand(gamma, static_cast<int64_t>(h), api, "gamma");
    CheckOperand(beta, static_cast<int64_t>(h), api, "beta");
    const bool twoBufs = isReuseSource && sizeof(T) == 4;
    uint64_t need = static_cast<uint64_t>(twoBufs ? tl.secondTmpStartPos : tl.thirdTmpStartPos) + tl.oneTmpSize;
    if (sizeof(T) == 2) {
        need = std::max<uint64_t>({need, static_cast<uint64_t>(tl.meanTmpTensorPos) + tl.meanTmpTensorSize,
                                   static_cast<uint64_t>(tl.varianceTmpTensorPos) + tl.varianceTmpTensorSize});
    }
    LnTmpSize<T>(api, tmp, need, "temporaries of " + Str(tl.oneTmpSize) + " floats");
    if (CurrentCore().strict_gm && static_cast<uint64_t>(tmp.size_) < static_cast<uint64_t>(tl.tmpBufSize) * 4) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes, below tiling.tmpBufSize " + Str(tl.tmpBufSize) +
                 " floats (strict mode, as CANN's CPU-debug check)");
    }
    FlushAll();

    const float recip = tl.lastDimValueBack;
    const float eps = ToF(epsilon);
    std::vector<float> g(h), bt(h), xf(h), d(h), a(h), y(h);
    for (uint32_t c = 0; c < h; ++c) {
        g[c] = ToF(gamma.ptr_[c]);
        bt[c] = ToF(beta.ptr_[c]);
    }
    auto row = [&](uint64_t r) {
        const T* s = x.ptr_ + r * h;
        for (uint32_t c = 0; c < h; ++c) {
            xf[c] = ToF(s[c]);
            a[c] = xf[c] * recip;
        }
        const float mean = LnRowSum(a.data(), h);
        for (uint32_t c = 0; c < h; ++c) {
            d[c] = xf[c] - mean;
            const float sq = d[c] * d[c];
            a[c] = sq * recip;
        }
        const float var = LnRowSum(a.data(), h);
        const float rstd = 1.0f / std::sqrt(var + eps);  // Adds eps, Sqrt, Div of 1 by it
        for (uint32_t c = 0; c < h; ++c) {
            const float n = rstd * d[c];
            const float t = n * g[c];
            y[c] = t + bt[c];
        }
        T* o = out.ptr_ + r * h;  // a row's source is read before its output is written
        for (uint32_t c = 0; c < h; ++c) o[c] = FromF<T>(y[c]);
        outMean.ptr_[r] = FromF<T>(mean);
        outVar.ptr_[r] = FromF<T>(var);
    };
    for (uint32_t i = 0; i < tl.loopRound; ++i) {
        const uint64_t first = static_cast<uint64_t>(i) * tl.meanVarRoundSize;
        for (uint64_t r = 0; r < tl.bsCurLength; ++r) row(first + r);
    }
    if (tl.inputTailSize > 0) {
        // CANN's kernel leaves the tail's sizes in the caller's tiling
        tl.bshCurLength = tl.inputTailSize;
        tl.bsCurLength = tl.meanVarTailSize;
        for (uint64_t r = 0; r < tl.meanVarTailSize; ++r) row(tl.meanVarTailPos + r);
    }
}

inline float LnBitsFloat(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof(f));
    return f;
}

template <typename T, bool isReuseSource>
inline void LayerNormGradRun(const AscendC::LocalTensor<T>& pdX, const AscendC::LocalTensor<T>& resForGamma,
                             const AscendC::LocalTensor<T>& dy, const AscendC::LocalTensor<T>& x,
                             const AscendC::LocalTensor<T>& variance, const AscendC::LocalTensor<T>& mean,
                             const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<uint8_t>& tmp,
                             const T epsilon, const AscendC::tiling::LayerNormGradTiling& tl) {
    constexpr const char* api = "LayerNormGrad";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "LayerNormGrad takes half or float");
    const uint32_t h = tl.hLength;
    if (h == 0 || tl.oneCalSize == 0 || tl.oneCalSize % h != 0 || tl.nohCalSize * h != tl.oneCalSize ||
        tl.tailSize % h != 0 || tl.nohTailSize * h != tl.tailSize) {
        LnTiling(api, "tiling.oneCalSize " + std::to_string(tl.oneCalSize) + " / tailSize " +
                          std::to_string(tl.tailSize) + " must be whole rows of hLength " + std::to_string(h) +
                          " (plan it with GetLayerNormGradNDTilingInfo)");
    }
    CheckPos(api, pdX, "outputPdX");
    CheckPos(api, resForGamma, "resForGamma");
    CheckPos(api, dy, "inputDy");
    CheckPos(api, x, "inputX");
    CheckPos(api, variance, "inputVariance");
    CheckPos(api, mean, "inputMean");
    CheckPos(api, gamma, "inputGamma");
    const uint64_t rows = static_cast<uint64_t>(tl.loopNum) * tl.nohCalSize + tl.nohTailSize;
    for (const auto* t : {&pdX, &resForGamma, &dy, &x}) {
        const char* n = t == &pdX ? "outputPdX" : t == &resForGamma ? "resForGamma" : t == &dy ? "inputDy" : "inputX";
        CheckOperand(*t, static_cast<int64_t>(rows * h), api, n);
    }
    CheckOperand(variance, static_cast<int64_t>(rows), api, "inputVariance");
    CheckOperand(mean, static_cast<int64_t>(rows), api, "inputMean");
    CheckOperand(gamma, static_cast<int64_t>(h), api, "inputGamma");
    auto end = [](uint32_t pos, uint32_t size) { return static_cast<uint64_t>(pos) + size; };
    uint64_t need = std::max<uint64_t>({end(tl.tmpTensorBSHPos, tl.tmpTensorBSHSize),
                                        end(tl.pdVarTensorPos, tl.pdVarTensorSize),
                                        end(tl.pdMeanTensorPos, tl.pdMeanTensorSize),
                                        end(tl.x3TensorPos, tl.x3TensorSize)});
    if (!(isReuseSource && sizeof(T) == 4)) {
        need = std::max<uint64_t>({need, end(tl.x1TensorPos, tl.x1TensorSize), end(tl.x2TensorPos, tl.x2TensorSize)});
    }
    if (sizeof(T) == 2) {
        need = std::max<uint64_t>({need, end(tl.tmpTensorPos, tl.tmpTensorSize),
                                   end(tl.tmpTensor1Pos, tl.tmpTensor1Size), end(tl.tmpTensor2Pos, tl.tmpTensor2Size)});
    }
    LnTmpSize<T>(api, tmp, need, "temporaries of " + Str(tl.oneCalSize) + " floats");
    if (CurrentCore().strict_gm && tmp.size_ < tl.stackBufferSize) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes, below tiling.stackBufferSize " +
                 Str(tl.stackBufferSize) + " (strict mode, as CANN's CPU-debug check)");
    }
    FlushAll();

    const float inv = LnBitsFloat(tl.lastDimValueBack), inv2 = LnBitsFloat(tl.lastDimValueBackMulTwo);
    const float eps = ToF(epsilon);
    std::vector<float> g(h), x1(h), x2(h), x3(h), t(h), res(h), px(h);
    for (uint32_t c = 0; c < h; ++c) g[c] = ToF(gamma.ptr_[c]);
    // all of a pass's rows are read before it writes: resForGamma or outputPdX may be a source
    std::vector<T> outPd, outRes;
    auto pass = [&](uint64_t first, uint64_t n) {
        outPd.resize(n * h);
        outRes.resize(n * h);
        for (uint64_t i = 0; i < n; ++i) {
            const uint64_t r = first + i;
            const float m = ToF(mean.ptr_[r]), v = ToF(variance.ptr_[r]);
            for (uint32_t c = 0; c < h; ++c) {
                x1[c] = ToF(dy.ptr_[r * h + c]) * g[c];
                x2[c] = ToF(x.ptr_[r * h + c]) - m;
            }
            // pd_var: (var + eps)^-1.5 as 1 / sqrt((v * v) * v), then x2 * it * x1 * -0.5, summed
            const float ve = v + eps;
            const float cube = (ve * ve) * ve;
            const float p15 = 1.0f / std::sqrt(cube);
            for (uint32_t c = 0; c < h; ++c) {
                const float q = x2[c] * p15;
                t[c] = (x1[c] * q) * -0.5f;
            }
            float pdVar = LnGradRowSum(t.data(), h);
            // pd_mean: sum(x1 * rstd * -1) + pd_var * (sum(x2 * -2) * 1/H)
            const float rstd = 1.0f / std::sqrt(ve);
            for (uint32_t c = 0; c < h; ++c) {
                res[c] = x2[c] * rstd;
                x3[c] = x1[c] * rstd;
                t[c] = x3[c] * -1.0f;
            }
            float pdMean = LnGradRowSum(t.data(), h);
            for (uint32_t c = 0; c < h; ++c) t[c] = x2[c] * -2.0f;
            float s2 = LnGradRowSum(t.data(), h);
            s2 = s2 * inv;
            pdMean = pdMean + pdVar * s2;
            // pd_x = (pd_var * 2/H * x2 + pd_mean * 1/H) + x3
            pdVar = pdVar * inv2;
            pdMean = pdMean * inv;
            for (uint32_t c = 0; c < h; ++c) {
                const float a = pdVar * x2[c];
                const float b = a + pdMean;
                outPd[i * h + c] = FromF<T>(b + x3[c]);
                outRes[i * h + c] = FromF<T>(res[c]);
            }
        }
        std::copy(outPd.begin(), outPd.end(), pdX.ptr_ + first * h);
        std::copy(outRes.begin(), outRes.end(), resForGamma.ptr_ + first * h);
    };
    for (uint32_t i = 0; i < tl.loopNum; ++i) pass(static_cast<uint64_t>(i) * tl.nohCalSize, tl.nohCalSize);
    if (tl.tailSize != 0) pass(static_cast<uint64_t>(tl.loopNum) * tl.nohCalSize, tl.nohTailSize);
}

template <typename T, bool isReuseSource>
inline void LayerNormGradBetaRun(const AscendC::LocalTensor<T>& pdGamma, const AscendC::LocalTensor<T>& pdBeta,
                                 const AscendC::LocalTensor<T>& resForGamma, const AscendC::LocalTensor<T>& dy,
                                 const AscendC::LocalTensor<uint8_t>& tmp,
                                 const AscendC::tiling::LayerNormGradBetaTiling& tl) {
    constexpr const char* api = "LayerNormGradBeta";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "LayerNormGradBeta takes half or float");
    const uint32_t h = tl.hLength, cols = tl.originalHLength;
    if (h == 0 || cols == 0 || cols > h || tl.oneCalSize == 0 || tl.bsCurLength * h != tl.bshCurLength ||
        tl.bsTailSize * h != tl.inputTailSize) {
        LnTiling(api, "tiling.oneCalSize " + std::to_string(tl.oneCalSize) + " with hLength " + std::to_string(h) +
                          " and originalHLength " + std::to_string(cols) +
                          " is not a plan of whole rows (plan it with GetLayerNormGradBetaNDTilingInfo)");
    }
    CheckPos(api, pdGamma, "outputPdGamma");
    CheckPos(api, pdBeta, "outputPdBeta");
    CheckPos(api, resForGamma, "resForGamma");
    CheckPos(api, dy, "inputDy");
    // the passes: bsCurLength rows from row 0, from oneCalSize * i for i in [1, loopRound), and
    // bsTailSize rows from inputTailPos
    std::vector<std::pair<uint64_t, uint64_t>> passes{{0, tl.bsCurLength}};
    for (uint32_t i = 1; i < tl.loopRound; ++i) passes.emplace_back(static_cast<uint64_t>(i) * tl.oneCalSize / h,
                                                                     tl.bsCurLength);
    if (tl.inputTailSize > 0) passes.emplace_back(tl.inputTailPos / h, tl.bsTailSize);
    uint64_t rows = 0;
    for (const auto& p : passes) rows = std::max(rows, p.first + p.second);
    const int64_t elems = rows == 0 ? 0 : static_cast<int64_t>((rows - 1) * h + cols);
    CheckOperand(resForGamma, elems, api, "resForGamma");
    CheckOperand(dy, elems, api, "inputDy");
    CheckOperand(pdGamma, cols, api, "outputPdGamma");
    CheckOperand(pdBeta, cols, api, "outputPdBeta");
    uint64_t need = 0;
    if (sizeof(T) == 2) {
        need = std::max<uint64_t>({static_cast<uint64_t>(tl.gammaTempTensorPos) + h,
                                   static_cast<uint64_t>(tl.betaTempTensorPos) + h,
                                   static_cast<uint64_t>(tl.inputDyTmpTensorPos) + tl.oneCalSize,
                                   static_cast<uint64_t>(tl.resForGammaTmpTensorPos) + tl.oneCalSize});
    } else if (!isReuseSource) {
        need = static_cast<uint64_t>(tl.resForGammaTmpTensorPos) + tl.oneCalSize;
    }
    LnTmpSize<T>(api, tmp, need, "temporaries of " + Str(tl.oneCalSize) + " floats");
    if (CurrentCore().strict_gm && static_cast<uint64_t>(tmp.size_) < static_cast<uint64_t>(tl.stackBufferSize) * 4) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes, below tiling.stackBufferSize " +
                 Str(tl.stackBufferSize) + " floats (strict mode, as CANN's CPU-debug check)");
    }
    FlushAll();

    // column sums in float: the first pass's first row + 0, then every row added in order
    std::vector<float> sg(cols, 0.0f), sb(cols, 0.0f);
    bool first = true;
    for (const auto& p : passes) {
        for (uint64_t i = 0; i < p.second; ++i) {
            const T* d = dy.ptr_ + (p.first + i) * h;
            const T* rg = resForGamma.ptr_ + (p.first + i) * h;
            for (uint32_t c = 0; c < cols; ++c) {
                const float dv = ToF(d[c]);
                const float prod = dv * ToF(rg[c]);
                if (first) {
                    sg[c] = prod + 0.0f;
                    sb[c] = dv + 0.0f;
                } else {
                    sg[c] = prod + sg[c];
                    sb[c] = dv + sb[c];
                }
            }
            first = false;
        }
    }
    if (first) return;  // no row
    for (uint32_t c = 0; c < cols; ++c) {
        pdGamma.ptr_[c] = FromF<T>(sg[c]);
        pdBeta.ptr_[c] = FromF<T>(sb[c]);
    }
}

}  // namespace norm_detail
}  // namespace opgen_sim

namespace AscendC {

// ---- RmsNorm (RmsNorm.md) ----------------------------------------------------------------------
template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon, const RmsNormTiling& tiling) {
    opgen_sim::norm_detail::RmsNormRun<T, isBasicBlock>(dstLocal, srcLocal, gammaLocal, sharedTmpBuffer, epsilon,
                                                         tiling);
}
template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
                    const T epsilon, const RmsNormTiling& tiling) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::norm_detail::RmsNormRun<T, isBasicBlock>(dstLocal, srcLocal, gammaLocal, stack, epsilon, tiling);
}

// ---- LayerNorm, LayerNormGrad, LayerNormGradBeta (LayerNorm.md, LayerNormGrad.md,
// LayerNormGradBeta.md) -----------------------------------------------------------------------
struct LayerNormGradShapeInfo {
    DataFormat dataFormat = DataFormat::ND;
};

template <typename T, bool isReuseSource = false>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
                      const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX, const LocalTensor<T>& gamma,
                      const LocalTensor<T>& beta, const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
                      LayerNormTiling& tiling) {
    opgen_sim::norm_detail::LayerNormRun<T, isReuseSource>(output, outputMean, outputVariance, inputX, gamma, beta,
                                                            sharedTmpBuffer, epsilon, tiling);
}
template <typename T, bool isReuseSource = false>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
                      const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX, const LocalTensor<T>& gamma,
                      const LocalTensor<T>& beta, const T epsilon, LayerNormTiling& tiling) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::norm_detail::LayerNormRun<T, isReuseSource>(output, outputMean, outputVariance, inputX, gamma, beta,
                                                            stack, epsilon, tiling);
}

template <typename T, bool isReuseSource = false>
inline void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma,
                          const LocalTensor<T>& inputDy, const LocalTensor<T>& inputX,
                          const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                          const LocalTensor<T>& inputGamma, LocalTensor<uint8_t>& sharedTmpBuffer, T epsilon,
                          LayerNormGradTiling& tiling, const LayerNormGradShapeInfo& shapeInfo = {}) {
    if (shapeInfo.dataFormat != DataFormat::ND) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "LayerNormGrad", "only DataFormat::ND is supported");
    }
    opgen_sim::norm_detail::LayerNormGradRun<T, isReuseSource>(outputPdX, resForGamma, inputDy, inputX, inputVariance,
                                                                inputMean, inputGamma, sharedTmpBuffer, epsilon,
                                                                tiling);
}
template <typename T, bool isReuseSource = false>
inline void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma,
                          const LocalTensor<T>& inputDy, const LocalTensor<T>& inputX,
                          const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                          const LocalTensor<T>& inputGamma, T epsilon, LayerNormGradTiling& tiling,
                          const LayerNormGradShapeInfo& shapeInfo = {}) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    LayerNormGrad<T, isReuseSource>(outputPdX, resForGamma, inputDy, inputX, inputVariance, inputMean, inputGamma,
                                    stack, epsilon, tiling, shapeInfo);
}

template <typename T, bool isReuseSource = false>
inline void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                              const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                              const LocalTensor<uint8_t>& sharedTmpBuffer, const LayerNormGradBetaTiling& tiling) {
    opgen_sim::norm_detail::LayerNormGradBetaRun<T, isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy,
                                                                    sharedTmpBuffer, tiling);
}
template <typename T, bool isReuseSource = false>
inline void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                              const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                              LayerNormGradBetaTiling& tiling) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::norm_detail::LayerNormGradBetaRun<T, isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy,
                                                                    stack, tiling);
}

}  // namespace AscendC

#include "norm_more.h"  // WelfordUpdate, WelfordFinalize, DeepNorm, Normalize, LayerNorm [A, R]
