// opgen NPU simulator: the reduce advanced APIs ReduceMax and ReduceMin (adv_api/reduce/reduce.h)
// on a 2-D [first, last] source with the Pattern::Reduce::AR (reduce the last axis) or RA (reduce
// the first axis) pattern, with and without sharedTmpBuffer, and the Pattern::Reduce structs.
//
// ReduceMax.md / ReduceMin.md give the result (the max / min along the R axis); they are silent on
// NaN, signed zeros and what isReuseSource leaves in the source, so the simulator runs the steps
// of CANN's A2/A3 implementation (asc-devkit impl/adv_api/detail/reduce/reduce_common_util_v220_
// impl.h, reduce_max_v220_impl.h, reduce_min_v220_impl.h) with the simulator's own lane rules:
// the element-wise Max/Min instruction keeps src0 unless src1 is strictly better (a > b ? a : b),
// a copy by Adds of 0 turns -0.0 into +0.0, and Block/WholeReduceMax/Min take the first best lane
// with a NaN beating every number (vector.h, ExtremeBetter).
//
// - AR, row r of last values (the row padded to padLast = last rounded up to 32 bytes):
//   last < one block or == one block: the first best of the row's lanes. One block < last < one
//   repeat: an accumulator of one block (the row's first block, copied by Adds of 0 unless
//   isReuseSource), each further block and the tail block folded in lane by lane (acc = Max(acc,
//   x)); the result the first best of its lanes. last >= one repeat: the same with a one-repeat
//   accumulator (64 floats / 128 halves) and the row's repeats. isReuseSource keeps the
//   accumulators in srcTensor (at the row's start, or at r * repeat when last > 255 blocks) and,
//   for float rows of a repeat or more, the per-block results of the first BlockReduce at r * 8.
// - RA, R rows of padLast: k = the largest power of two <= R; the rows past k folded into the
//   first R - k rows, then halves folded (rows [0, k/2) with [k/2, k)) until one row is left,
//   copied to dst by Adds of 0 (so a -0.0 result reads +0.0). Without isReuseSource the work is
//   in sharedTmpBuffer (the first k rows copied there first, or, with R a power of two, the first
//   fold written there straight), with it in srcTensor.
// Rules (SimulatorError naming the API): T half or float and the pattern AR or RA
// (static_assert), srcShape's axes positive, srcInnerPad true (CANN's A2/A3 check), srcTensor of
// first * padLast, dstTensor of first (AR) or last (RA) elements, dst not overlapping src, and a
// sharedTmpBuffer of at least GetReduceMaxMaxMinTmpSize's minimum when the steps use one.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "norm.h"

namespace AscendC {

// ---- Pattern::Reduce (reduce_common.h): the axes' A/R letters; ReduceMax/Min take AR and RA ----
namespace Pattern {
namespace Reduce {
struct R {};
struct AR {};
struct RA {};
struct ARA {};
struct ARAR {};
struct ARARA {};
struct ARARAR {};
struct ARARARA {};
struct ARARARAR {};
struct ARARARARA {};
struct RAR {};
struct RARA {};
struct RARAR {};
struct RARARA {};
struct RARARAR {};
struct RARARARA {};
}  // namespace Reduce
}  // namespace Pattern

}  // namespace AscendC

namespace opgen_sim {
namespace reduce_detail {

template <typename T>
inline float Val(T v) {
    return static_cast<float>(v);
}

// The element-wise Max/Min instruction: src0 unless src1 is strictly better.
template <bool kMax, typename T>
inline T Fold(T a, T b) {
    const float fa = Val(a), fb = Val(b);
    return (kMax ? fa > fb : fa < fb) ? a : b;
}

// Adds of 0 as the simulator's Adds lane computes it (a copy that turns -0.0 into +0.0).
template <typename T>
inline T AddZero(T v) {
    return static_cast<T>(v + static_cast<T>(0));
}

// Block/WholeReduceMax/Min over n lanes: the first best lane, a NaN beating every number.
template <bool kMax, typename T>
inline T FirstBest(const T* v, uint32_t n) {
    T best = v[0];
    for (uint32_t i = 1; i < n; ++i) {
        if (ExtremeBetter(kMax, v[i], best)) best = v[i];
    }
    return best;
}

inline uint32_t PowerOfTwoBelow(uint32_t n) {
    uint32_t k = 1;
    while (n > 1) {
        k <<= 1;
        n >>= 1;
    }
    return k;
}

// The sharedTmpBuffer bytes CANN's steps use (GetReduceMaxMaxMinTmpSize's figure).
template <typename T>
inline uint64_t TmpNeed(bool ar, bool reuse, uint32_t first, uint32_t last) {
    if (reuse) return 0;
    constexpr uint32_t blk = kBlockBytes / sizeof(T), rep = kRepeatBytes / sizeof(T);
    if (ar) {
        if (last <= blk) return 0;
        return static_cast<uint64_t>(first) * (last < rep ? blk : rep) * sizeof(T);
    }
    uint32_t k = PowerOfTwoBelow(first);
    if (k == first && first > 1) k >>= 1;
    return static_cast<uint64_t>(k) * ((static_cast<uint64_t>(last) * sizeof(T) + kBlockBytes - 1) / kBlockBytes *
                                       kBlockBytes);
}

template <bool kMax, typename T, bool isReuseSource>
inline void ReduceAR(T* dst, T* src, uint32_t first, uint32_t last, uint32_t padLast) {
    constexpr uint32_t blk = kBlockBytes / sizeof(T), rep = kRepeatBytes / sizeof(T);
    constexpr uint32_t maxRepeatLanes = 255 * blk;
    if (last <= blk) {
        for (uint32_t r = 0; r < first; ++r) dst[r] = FirstBest<kMax>(src + static_cast<uint64_t>(r) * padLast, last);
        return;
    }
    const uint32_t width = last < rep ? blk : rep;  // the accumulator's lanes
    const bool longRow = last > maxRepeatLanes;
    T acc[kRepeatBytes / sizeof(T)];
    for (uint32_t r = 0; r < first; ++r) {
        T* s = src + static_cast<uint64_t>(r) * padLast;
        for (uint32_t j = 0; j < width; ++j) acc[j] = isReuseSource ? s[j] : AddZero(s[j]);
        for (uint32_t off = width; off < last; off += width) {
            const uint32_t n = std::min(width, last - off);
            for (uint32_t j = 0; j < n; ++j) acc[j] = Fold<kMax>(acc[j], s[off + j]);
        }
        dst[r] = FirstBest<kMax>(acc, width);
        if constexpr (isReuseSource) {
            T* home = longRow ? src + static_cast<uint64_t>(r) * rep : s;
            std::memcpy(home, acc, width * sizeof(T));
        }
    }
    // float rows of a repeat or more reduce in two BlockReduce steps, the first writing its eight
    // per-block results of row r at srcTensor[r * 8] when the accumulators live there
    if constexpr (isReuseSource && std::is_same_v<T, float>) {
        if (width == rep) {
            for (uint32_t r = 0; r < first; ++r) {
                const T* home = src + static_cast<uint64_t>(r) * (longRow ? rep : padLast);
                T part[8];
                for (uint32_t b = 0; b < 8; ++b) part[b] = FirstBest<kMax>(home + b * blk, blk);
                std::memcpy(src + static_cast<uint64_t>(r) * 8, part, sizeof(part));
            }
        }
    }
}

template <bool kMax, typename T, bool isReuseSource>
inline void ReduceRA(T* dst, T* src, T* work, uint32_t first, uint32_t last, uint32_t padLast) {
    const uint64_t row = padLast;
    uint32_t k = PowerOfTwoBelow(first);
    const uint32_t remain = first - k;
    T* cur = isReuseSource ? src : work;
    if (isReuseSource) {
        for (uint64_t i = 0; i < remain * row; ++i) src[i] = Fold<kMax>(src[i], src[k * row + i]);
    } else if (remain != 0) {
        for (uint64_t i = 0; i < k * row; ++i) work[i] = AddZero(src[i]);
        for (uint64_t i = 0; i < remain * row; ++i) work[i] = Fold<kMax>(work[i], src[k * row + i]);
    } else if (k > 1) {
        k >>= 1;
        for (uint64_t i = 0; i < k * row; ++i) work[i] = Fold<kMax>(src[i], src[k * row + i]);
    } else {
        cur = src;  // one row: copied straight to dst
    }
    while (k > 1) {
        k >>= 1;
        for (uint64_t i = 0; i < k * row; ++i) cur[i] = Fold<kMax>(cur[i], cur[k * row + i]);
    }
    for (uint32_t i = 0; i < last; ++i) dst[i] = AddZero(cur[i]);
}

template <bool kMax, typename T, class pattern, bool isReuseSource>
inline void ReduceRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                      const AscendC::LocalTensor<uint8_t>& tmp, const uint32_t srcShape[], bool srcInnerPad) {
    constexpr const char* api = kMax ? "ReduceMax" : "ReduceMin";
    constexpr const char* page = kMax ? "ReduceMax.md" : "ReduceMin.md";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "ReduceMax/ReduceMin: T is half or float on the Atlas A2/A3");
    static_assert(std::is_same_v<pattern, AscendC::Pattern::Reduce::AR> ||
                      std::is_same_v<pattern, AscendC::Pattern::Reduce::RA>,
                  "ReduceMax/ReduceMin: the pattern is Pattern::Reduce::AR or Pattern::Reduce::RA on the Atlas A2/A3");
    constexpr bool ar = std::is_same_v<pattern, AscendC::Pattern::Reduce::AR>;
    const uint32_t first = srcShape[0], last = srcShape[1];
    if (first == 0 || last == 0) {
        Fail(ErrorKind::Generic, api,
             "srcShape is {" + Str(first) + ", " + Str(last) + "}; both axes must be greater than 0 (" + page + ")");
    }
    if (!srcInnerPad) {
        Fail(ErrorKind::Generic, api,
             std::string("srcInnerPad is false; the Atlas A2/A3 need it true (the last axis padded to 32 bytes, ") +
                 page + ")");
    }
    constexpr uint32_t blk = kBlockBytes / sizeof(T);
    const uint32_t padLast = (last + blk - 1) / blk * blk;
    const uint64_t srcCount = static_cast<uint64_t>(first) * padLast;
    const uint64_t dstCount = ar ? first : last;
    norm_detail::CheckPos(api, dst, "dstTensor");
    norm_detail::CheckPos(api, src, "srcTensor");
    CheckOperand(src, static_cast<int64_t>(srcCount), api, "srcTensor (first * last padded to 32 bytes)");
    CheckOperand(dst, static_cast<int64_t>(dstCount), api, ar ? "dstTensor (first, pattern AR)" : "dstTensor (last, pattern RA)");
    if (Overlaps(dst, dstCount, src, srcCount)) {
        Fail(ErrorKind::Generic, api, std::string("dstTensor overlaps srcTensor; ") + page + " (约束说明) does not allow that");
    }
    const uint64_t need = TmpNeed<T>(ar, isReuseSource, first, last);
    if (need != 0) {
        norm_detail::CheckPos(api, tmp, "sharedTmpBuffer");
        CheckUbAligned(tmp, api, "sharedTmpBuffer");
        if (static_cast<uint64_t>(tmp.size_) < need) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes; srcShape {" + Str(first) + ", " + Str(last) +
                     "} of " + TypeName<T>() + (ar ? " (AR)" : " (RA)") + " needs " + Str(need) +
                     " (GetReduce" + (kMax ? "Max" : "Min") + "MaxMinTmpSize)");
        }
        if (Overlaps(tmp, need, src, srcCount) || Overlaps(tmp, need, dst, dstCount)) {
            Fail(ErrorKind::Generic, api,
                 std::string("sharedTmpBuffer overlaps srcTensor or dstTensor; ") + page + " (约束说明) does not allow that");
        }
    }
    FlushAll();
    if constexpr (ar) {
        ReduceAR<kMax, T, isReuseSource>(dst.ptr_, src.ptr_, first, last, padLast);
    } else {
        T* work = need != 0 ? reinterpret_cast<T*>(tmp.ptr_) : nullptr;
        ReduceRA<kMax, T, isReuseSource>(dst.ptr_, src.ptr_, work, first, last, padLast);
    }
}

}  // namespace reduce_detail
}  // namespace opgen_sim

namespace AscendC {

// ---- ReduceMax / ReduceMin (ReduceMax.md, ReduceMin.md) ---------------------------------------
template <class T, class pattern, bool isReuseSource = false>
inline void ReduceMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                      const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[], bool srcInnerPad) {
    opgen_sim::reduce_detail::ReduceRun<true, T, pattern, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer,
                                                                         srcShape, srcInnerPad);
}
template <class T, class pattern, bool isReuseSource = false>
inline void ReduceMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t srcShape[],
                      bool srcInnerPad) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::reduce_detail::ReduceRun<true, T, pattern, isReuseSource>(dstTensor, srcTensor, stack, srcShape,
                                                                         srcInnerPad);
}
template <class T, class pattern, bool isReuseSource = false>
inline void ReduceMin(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                      const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[], bool srcInnerPad) {
    opgen_sim::reduce_detail::ReduceRun<false, T, pattern, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer,
                                                                          srcShape, srcInnerPad);
}
template <class T, class pattern, bool isReuseSource = false>
inline void ReduceMin(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t srcShape[],
                      bool srcInnerPad) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::reduce_detail::ReduceRun<false, T, pattern, isReuseSource>(dstTensor, srcTensor, stack, srcShape,
                                                                          srcInnerPad);
}

}  // namespace AscendC
