// opgen NPU simulator: the normalization advanced APIs (adv_api/normalization/rmsnorm.h) and the
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
//   Ln (libm logf), Muls by -0.5, Exp (glibc expf);
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
inline float ToF(T v) {
    return static_cast<float>(v);
}
template <typename T>
inline T FromF(float v) {
    if constexpr (std::is_same_v<T, half>) {
        return AscendC::cast_detail::ToFloat<half>(v, AscendC::RoundMode::CAST_RINT);
    } else {
        return v;
    }
}

// Counter-mode RepeatReduceSum over n floats, repeated until one value is left: a tree sum a
// repeat of 64 lanes (zeros past n), then the same over those sums.
inline float RepeatSum(std::vector<float>& v, uint32_t n) {
    float lanes[kLanes];
    while (n > 1) {
        const uint32_t reps = (n + kLanes - 1) / kLanes;
        for (uint32_t r = 0; r < reps; ++r) {
            const uint32_t take = std::min(kLanes, n - r * kLanes);
            std::fill_n(lanes, kLanes, 0.0f);
            std::memcpy(lanes, v.data() + static_cast<uint64_t>(r) * kLanes, take * sizeof(float));
            v[r] = TreeSum(lanes, kLanes);
        }
        n = reps;
    }
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

inline bool InVec(AscendC::TPosition p) {
    return p == AscendC::TPosition::VECIN || p == AscendC::TPosition::VECOUT || p == AscendC::TPosition::VECCALC;
}

template <typename T>
inline void CheckPos(const char* api, const AscendC::LocalTensor<T>& t, const char* what) {
    if (!CurrentCore().strict_gm || InVec(t.pos_)) return;
    Fail(ErrorKind::Generic, api,
         std::string(what) + " must be a VECIN/VECCALC/VECOUT LocalTensor (TPosition " +
             std::to_string(static_cast<int>(t.pos_)) + "; strict mode, as CANN's CPU-debug check)");
}

template <typename A, typename B>
inline bool Overlap(const AscendC::LocalTensor<A>& a, uint64_t na, const AscendC::LocalTensor<B>& b, uint64_t nb) {
    if (a.ptr_ == nullptr || b.ptr_ == nullptr || na == 0 || nb == 0) return false;
    const auto* a0 = reinterpret_cast<const uint8_t*>(a.ptr_);
    const auto* b0 = reinterpret_cast<const uint8_t*>(b.ptr_);
    return a0 < b0 + nb * sizeof(B) && b0 < a0 + na * sizeof(A);
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
    if (Overlap(dst, elems, gamma, h)) {
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
            v = std::exp(v);
            slot[i] = v;
            for (uint32_t c = 0; c < h; ++c) out[i * h + c] = (x[c] * v) * g[c];
        }
        // a pass reads all of its source rows before it writes dst (dst may be src)
        T* d = dst.ptr_ + first * h;
        for (uint64_t k = 0; k < passRows * h; ++k) d[k] = FromF<T>(out[k]);
        first += passRows;
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

}  // namespace AscendC
