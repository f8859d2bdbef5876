// opgen NPU simulator: the SoftMax advanced APIs (adv_api/activation/softmax.h, simplesoftmax.h):
// SoftMax (with or without sumTensor/maxTensor, with or without sharedTmpBuffer, half/float and
// half with float max/sum), SimpleSoftMax and AdjustSoftMaxRes, with SoftMaxShapeInfo,
// SoftmaxConfig and the kernel struct SoftMaxTiling (kernel_tiling/softmax_tiling_data.h).
//
// The reference (SoftMax.md) gives the steps per row of [m, k]: reduce max, subtract, exp, reduce
// sum, divide; max and sum are written as one 32-byte block per row holding the row's value. Where
// it is silent the simulator follows CANN's A2/A3 implementation (asc-devkit
// impl/adv_api/detail/activation/softmax/membase/v220/softmax_impl.h and membase/common/**), so
// each row carries the same float roundings:
//
// - half rows compute in float (an exact cast) and the results are cast back with CAST_ROUND
//   (half away from zero), as are a half max and sum; the subtraction and division take the
//   float max and sum.
// - the max and sum of a row of k columns (the shape's oriSrcK) fold it to one 256-byte repeat of
//   64 floats first: k < 64 reduces the row's lanes directly; 64 <= k < 512 starts from the first
//   repeat (k >= 128: the element-wise max / sum of the first two) and folds each further whole
//   repeat in; k >= 512 starts from the eight block results (8 columns each) of the first 512
//   columns and folds the further repeats in; the tail columns (k % 64) fold into the first lanes;
//   the 64 lanes then reduce as a tree of adjacent pairs (sums) or NaN-first (max), as
//   BlockReduce/WholeReduce do on this simulator. The basic-block path (isBasicBlock) folds every
//   repeat pairwise from the first two at any k. The element-wise folds are Max's `a > b ? a : b`
//   with CANN's operand order (which decides whether a NaN survives) and float adds.
// - exp is the simulator's Exp (glibc's expf); the subtraction and division read element c % 8
//   of the row's max/sum block for column c, as CANN's broadcasting Sub/Div do (SimpleSoftMax
//   with blocks that do not repeat one value sees this).
// - the plan in effect is the kernel's tiling when its srcM/srcK are the shape's, else CANN's
//   kernel-side re-plan from the sharedTmpBuffer's size (a float row needs reduceK + 64 floats, a
//   half row reduceK + k + 64); it decides the rows of each pass (rangeM passes of splitM rows and
//   a tail pass of tailM; the basic-block path has no tail pass) and where max and sum go: row r
//   of pass p at p * reduceSize + r * reduceK (basic block: r * 32 / sizeof(max element)).
// Rules (each a SimulatorError naming the API): srcK 32-byte aligned, 0 < oriSrcK <= srcK, a
// sharedTmpBuffer large enough for the plan's passes (VECIN/VECCALC/VECOUT, overlapping no
// operand), isBasicBlock only on the documented shapes, ND format only (isDataFormatNZ false).
// A default SoftMaxShapeInfo ({}) takes the shape from the tiling (CANN reads the tensor's
// ShapeInfo, which the simulator's LocalTensor does not carry). isReuseSource is reserved
// (documented) and changes nothing. The 310P's implementation (multiplying by 1/sum) is not
// modelled: both simulated SoCs divide.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../kernel_tiling/kernel_tiling.h"
#include "vector_more.h"

namespace AscendC {

enum class SoftmaxMode {
    SOFTMAX_NORMAL = 0,
    SOFTMAX_OUTPUT_WITHOUT_BRC = 1,
};

struct SoftmaxConfig {
    constexpr SoftmaxConfig(const bool isCheckTilingIn) : isCheckTiling(isCheckTilingIn) {}
    constexpr SoftmaxConfig(const bool isCheckTilingIn, const uint32_t oriSrcMIn, const uint32_t oriSrcKIn)
        : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn) {}
    constexpr SoftmaxConfig(const bool isCheckTilingIn, const uint32_t oriSrcMIn, const uint32_t oriSrcKIn,
                            const SoftmaxMode modeIn)
        : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn), mode(modeIn) {}
    bool isCheckTiling = true;  // the simulator always checks the tiling against the shape
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
    SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};

constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};

struct SoftMaxParams {
    uint32_t srcM{0};
    uint32_t srcK{0};
    uint32_t oriSrcM{0};
    uint32_t oriSrcK{0};
    uint32_t loopCnt{1};
    uint32_t splitMeanCnt{8};
    float alpha{0.9375};
};

struct SoftMaxShapeInfo {
    uint32_t srcM{0};
    uint32_t srcK{0};
    uint32_t oriSrcM{0};
    uint32_t oriSrcK{0};
};

}  // namespace AscendC

namespace opgen_sim {
namespace softmax_detail {

constexpr uint32_t kLanes = 64;    // floats of one 256-byte repeat
constexpr uint32_t kBlock = 8;     // floats of one 32-byte block
constexpr uint32_t kBigRow = 512;  // from here the first 8 repeats reduce block by block

enum class Form { WithOutputs, NoOutputs, Simple };

// Element-wise Max as the simulator's Max instruction: src0 > src1 ? src0 : src1.
inline float MaxOf(float a, float b) { return a > b ? a : b; }

// The max of n lanes as WholeReduceMax / BlockReduceMax give it: a NaN wins, the first NaN
// before later ones; among equal values the first.
inline float LanesMax(const float* v, uint32_t n) {
    float best = v[0];
    for (uint32_t i = 1; i < n; ++i) {
        if (ExtremeBetter(true, v[i], best)) best = v[i];
    }
    return best;
}

// The tree sum of n <= 64 lanes, the others 0 (a masked repeat; 8-lane blocks, then their 8
// sums, pair the same way).
inline float LanesSum(const float* v, uint32_t n) {
    float t[kLanes] = {};
    std::memcpy(t, v, n * sizeof(float));
    return TreeSum(t, kLanes);
}

// One row's max over its first k columns (see the header comment). passRows: the rows of the
// pass, which with the repeats per row decides the operand order of the folds.
inline float RowMax(const float* x, uint32_t k, uint32_t passRows, bool basic) {
    if (k < kLanes) return LanesMax(x, k);
    const uint32_t repeats = k / kLanes, tail = k % kLanes;
    float acc[kLanes];
    if (!basic && k >= kBigRow) {
        for (uint32_t b = 0; b < kLanes; ++b) acc[b] = LanesMax(x + b * kBlock, kBlock);
        for (uint32_t q = kBigRow / kLanes; q < repeats; ++q) {
            for (uint32_t j = 0; j < kLanes; ++j) acc[j] = MaxOf(x[q * kLanes + j], acc[j]);
        }
    } else if (repeats >= 2) {
        for (uint32_t j = 0; j < kLanes; ++j) acc[j] = MaxOf(x[j], x[kLanes + j]);
        const bool accFirst = passRows > repeats;  // one instruction per repeat, else per row
        for (uint32_t q = 2; q < repeats; ++q) {
            for (uint32_t j = 0; j < kLanes; ++j) {
                const float v = x[q * kLanes + j];
                acc[j] = accFirst ? MaxOf(acc[j], v) : MaxOf(v, acc[j]);
            }
        }
    } else {
        std::memcpy(acc, x, sizeof(acc));
    }
    for (uint32_t j = 0; j < tail; ++j) acc[j] = MaxOf(acc[j], x[repeats * kLanes + j]);
    return LanesMax(acc, kLanes);
}

// One row's sum over its first k columns, in the order RowMax folds.
inline float RowSum(const float* x, uint32_t k, bool basic) {
    if (k < kLanes) return LanesSum(x, k);
    const uint32_t repeats = k / kLanes, tail = k % kLanes;
    float acc[kLanes];
    if (!basic && k >= kBigRow) {
        for (uint32_t b = 0; b < kLanes; ++b) acc[b] = LanesSum(x + b * kBlock, kBlock);
        for (uint32_t q = kBigRow / kLanes; q < repeats; ++q) {
            for (uint32_t j = 0; j < kLanes; ++j) acc[j] = x[q * kLanes + j] + acc[j];
        }
    } else if (repeats >= 2) {
        for (uint32_t j = 0; j < kLanes; ++j) acc[j] = x[j] + x[kLanes + j];
        for (uint32_t q = 2; q < repeats; ++q) {
            for (uint32_t j = 0; j < kLanes; ++j) acc[j] = acc[j] + x[q * kLanes + j];
        }
    } else {
        std::memcpy(acc, x, sizeof(acc));
    }
    for (uint32_t j = 0; j < tail; ++j) acc[j] = acc[j] + x[repeats * kLanes + j];
    return TreeSum(acc, kLanes);
}

inline void ExpRow(float* v, uint32_t n) {
    if (ExpLane::Span(v, v, n)) return;
    for (uint32_t i = 0; i < n; ++i) v[i] = std::exp(v[i]);
}

template <typename T>
inline float ToF(T v) {
    return static_cast<float>(v);
}
template <typename T>
inline T FromF(float v) {
    if constexpr (std::is_same_v<T, half>) {
        return AscendC::cast_detail::ToFloat<half>(v, AscendC::RoundMode::CAST_ROUND);
    } else {
        return v;
    }
}

// The rows, columns and passes a call works by.
struct Plan {
    uint32_t m = 0;       // rows of the shape
    uint32_t k = 0;       // srcK: the row stride, the columns sub/exp/div cover
    uint32_t oriK = 0;    // the columns the reductions take
    uint32_t splitM = 0;  // rows of a whole pass
    uint32_t rangeM = 0;  // whole passes
    uint32_t tailM = 0;   // rows of the tail pass (none on the basic-block path)
    uint32_t reduceK = 0;
    uint32_t reduceSize = 0;
    uint32_t slot = 0;    // elements of a row's max/sum block
    bool basic = false;   // the basic-block path
    uint32_t Rows() const { return rangeM * splitM + tailM; }
    uint64_t SlotOf(uint32_t r) const {
        return static_cast<uint64_t>(r / splitM) * reduceSize + static_cast<uint64_t>(r % splitM) * slot;
    }
};

inline std::string Shape(uint32_t m, uint32_t k) {
    return "[" + std::to_string(m) + ", " + std::to_string(k) + "]";
}

template <typename T1>
inline uint32_t TmpRowFloats(Form form, uint32_t k, uint32_t reduceK) {
    constexpr bool h = sizeof(T1) == 2;
    if (form == Form::Simple) return h ? k + reduceK : 0;
    return reduceK + kLanes + (h ? k : 0);
}

// CANN's kernel-side plan for a shape the tiling does not cover (softmax_tiling_func.h and
// CalculateNDSplitM): as many rows as `floats` of buffer hold, a multiple of 8 where fewer than
// the rows, a divisor of the rows below 64 * 256 elements for a basic-block shape.
template <typename T1>
inline uint32_t ReplanRows(uint64_t floats, uint32_t m, uint32_t k, uint32_t oriM, uint32_t reduceK, bool basic) {
    const uint64_t per = sizeof(T1) == 2 ? reduceK + k + kLanes : reduceK + kLanes;
    uint64_t rows = std::min<uint64_t>(floats / per, m);
    if (basic && rows > kBlock && m % kBlock == 0) {
        rows = rows / kBlock * kBlock;
        while (m % rows != 0) rows -= kBlock;
        while (rows * k >= static_cast<uint64_t>(kLanes) * 256) rows /= 2;
    }
    if (rows < oriM && rows > kBlock) rows = rows / kBlock * kBlock;
    return static_cast<uint32_t>(std::min<uint64_t>(rows, oriM));
}

template <typename T>
inline void CheckNoOverlap(const char* api, const AscendC::LocalTensor<uint8_t>* tmp, const AscendC::LocalTensor<T>& t,
                           uint64_t count, const char* what) {
    if (tmp != nullptr && Overlaps(*tmp, t, count)) {
        Fail(ErrorKind::Generic, api,
             "sharedTmpBuffer (UB offset " + Str(tmp->UbOffset()) + ", " + Str(tmp->size_) +
                 " bytes) overlaps " + what + "; the reference does not allow that (SoftMax.md, 约束说明)");
    }
}

// SoftMax and SimpleSoftMax, every overload: dst from src, with max and sum written (WithOutputs),
// read (Simple) or neither (NoOutputs).
template <typename T1, typename T2>
inline void Run(const char* api, Form form, const AscendC::LocalTensor<T1>& dst,
                const AscendC::LocalTensor<T2>* sum, const AscendC::LocalTensor<T2>* max,
                const AscendC::LocalTensor<T1>& src, const AscendC::LocalTensor<uint8_t>* tmp,
                const AscendC::tiling::SoftMaxTiling& tiling, const AscendC::SoftMaxShapeInfo& info,
                bool isBasicBlock, bool isDataFormatNZ, uint32_t cfgM, uint32_t cfgK) {
    static_assert(std::is_same_v<T1, half> || std::is_same_v<T1, float>, "SoftMax takes half or float");
    static_assert(std::is_same_v<T2, T1> || (std::is_same_v<T1, half> && std::is_same_v<T2, float>),
                  "SoftMax's max and sum are of the source's type, or float for a half source");
    if (isDataFormatNZ) {
        Fail(ErrorKind::Generic, api, "the NZ format (isDataFormatNZ = true) is not simulated; use ND");
    }
    Plan p;
    uint32_t oriM;
    if (info.srcM == 0 || info.srcK == 0) {  // the default {}: the tiling's shape
        p.m = tiling.srcM;
        p.k = tiling.srcK;
        oriM = p.m;
        p.oriK = p.k;
    } else {
        p.m = info.srcM;
        p.k = info.srcK;
        oriM = info.oriSrcM;
        p.oriK = info.oriSrcK;
    }
    bool basic = isBasicBlock;
    if (cfgM != 0 && cfgK != 0) {  // a constant shape in SoftmaxConfig decides the path
        p.oriK = cfgK;
        basic = cfgK % kLanes == 0 && cfgK < 2048 && cfgM % kBlock == 0;
    }
    if (form == Form::NoOutputs) basic = false;  // CANN's form without max/sum has one path
    const std::string shape = Shape(p.m, p.k);
    if (p.m == 0 || p.k == 0) {
        Fail(ErrorKind::Tiling, api, "the shape " + shape + " holds nothing (SoftMaxShapeInfo and tiling both empty)");
    }
    if (p.k * sizeof(T1) % kBlockBytes != 0) {
        Fail(ErrorKind::Alignment, api,
             "srcK " + std::to_string(p.k) + " of " + TypeName<T1>() +
                 " is not 32-byte aligned (the reference requires the last axis to be)");
    }
    if (p.oriK == 0 || p.oriK > p.k) {
        Fail(ErrorKind::Tiling, api,
             "SoftMaxShapeInfo.oriSrcK " + std::to_string(p.oriK) + " must be in [1, srcK " + std::to_string(p.k) +
                 "] (the columns of each row the reductions take)");
    }
    const uint32_t perBlock = kBlockBytes / sizeof(T2);
    const bool covered = p.m == tiling.srcM && p.k == tiling.srcK;
    if (covered) {
        p.splitM = tiling.splitM;
        p.rangeM = tiling.rangeM;
        p.tailM = tiling.tailM;
        p.reduceK = tiling.reduceK;
        p.reduceSize = tiling.reduceSize;
        if (p.splitM == 0 || p.rangeM == 0) {
            Fail(ErrorKind::Tiling, api,
                 "the tiling plans passes of " + std::to_string(p.splitM) + " rows, " + std::to_string(p.rangeM) +
                     " of them, for " + shape +
                     ": SoftMaxTilingFunc's localWorkSpaceSize held no row (at least GetSoftMaxMinTmpSize)");
        }
        if (p.reduceK < kBlock) {
            Fail(ErrorKind::Tiling, api,
                 "tiling.reduceK is " + std::to_string(p.reduceK) +
                     "; a row's max/sum block is 32 bytes (SoftMaxTilingFunc's dataTypeSize 2 or 4 gives 16 or 8)");
        }
    } else {
        if (oriM == 0 || oriM > p.m) {
            Fail(ErrorKind::Tiling, api,
                 "SoftMaxShapeInfo.oriSrcM " + std::to_string(oriM) + " must be in [1, srcM " + std::to_string(p.m) +
                     "] (the rows the kernel plans for a shape the tiling does not cover)");
        }
        p.reduceK = perBlock;
        const uint64_t floats = tmp != nullptr ? tmp->size_ / sizeof(float) : std::numeric_limits<uint32_t>::max();
        p.splitM = ReplanRows<T1>(floats, p.m, p.k, oriM, p.reduceK, isBasicBlock);
        if (p.splitM == 0) {
            const uint64_t per = sizeof(T1) == 2 ? p.reduceK + p.k + kLanes : p.reduceK + kLanes;
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "the tiling is for " + Shape(tiling.srcM, tiling.srcK) + " and the shape is " + shape +
                     ", so the kernel plans from sharedTmpBuffer: its " + Str(tmp == nullptr ? 0 : tmp->size_) +
                     " bytes hold no row of " + Str(per * sizeof(float)) + " bytes");
        }
        p.rangeM = oriM / p.splitM;
        p.tailM = oriM % p.splitM;
        p.reduceSize = p.splitM * p.reduceK;
    }
    p.basic = basic;
    p.slot = basic ? perBlock : p.reduceK;
    if (basic) {
        const bool ok = p.k % kLanes == 0 && p.k < 2048 && p.k >= 256 / sizeof(T1) && p.m % kBlock == 0 &&
                        p.tailM == 0;
        if (!ok) {
            Fail(ErrorKind::Tiling, api,
                 "isBasicBlock needs srcK a multiple of 64 in [" + std::to_string(256 / sizeof(T1)) +
                     ", 2048), srcM a multiple of 8 and a tiling without a tail pass (IsBasicBlockInSoftMax); " +
                     "the shape is " + shape + ", tiling.tailM " + std::to_string(p.tailM));
        }
        p.tailM = 0;
    }
    if (tmp != nullptr) {
        CheckTmpPlace(api, *tmp);
        const uint64_t need =
            static_cast<uint64_t>(p.splitM) * TmpRowFloats<T1>(form, p.k, p.reduceK) * sizeof(float);
        if (tmp->size_ < need) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "sharedTmpBuffer holds " + Str(tmp->size_) + " bytes; the tiling's passes of " +
                     std::to_string(p.splitM) + " rows of " + shape + " need " + Str(need) +
                     " (plan the tiling with SoftMaxTilingFunc for the buffer GetSoftMaxMinTmpSize/"
                     "GetSoftMaxMaxTmpSize sizes)");
        }
    }
    const uint32_t rows = p.Rows();
    const uint64_t elems = static_cast<uint64_t>(rows) * p.k;
    CheckOperand(src, static_cast<int64_t>(elems), api, "srcTensor");
    CheckOperand(dst, static_cast<int64_t>(elems), api, "dstTensor");
    const uint64_t slots = rows == 0 ? 0 : p.SlotOf(rows - 1) + p.slot;
    if (sum != nullptr) CheckOperand(*sum, static_cast<int64_t>(slots), api, "sumTensor");
    if (max != nullptr) CheckOperand(*max, static_cast<int64_t>(slots), api, "maxTensor");
    CheckNoOverlap(api, tmp, src, elems, "srcTensor");
    CheckNoOverlap(api, tmp, dst, elems, "dstTensor");
    if (sum != nullptr) CheckNoOverlap(api, tmp, *sum, slots, "sumTensor");
    if (max != nullptr) CheckNoOverlap(api, tmp, *max, slots, "maxTensor");
    FlushAll();

    std::vector<float> x(p.k);
    for (uint32_t r = 0; r < rows; ++r) {
        const T1* s = src.ptr_ + static_cast<uint64_t>(r) * p.k;
        for (uint32_t c = 0; c < p.k; ++c) x[c] = ToF(s[c]);
        const uint64_t at = p.SlotOf(r);
        if (form == Form::Simple) {
            const T2* mx = max->ptr_ + at;
            const T2* sm = sum->ptr_ + at;
            for (uint32_t c = 0; c < p.k; ++c) x[c] = x[c] - ToF(mx[c % kBlock]);
            ExpRow(x.data(), p.k);
            for (uint32_t c = 0; c < p.k; ++c) x[c] = x[c] / ToF(sm[c % kBlock]);
        } else {
            const uint32_t passRows = r / p.splitM < p.rangeM ? p.splitM : p.tailM;
            const float mx = RowMax(x.data(), p.oriK, passRows, p.basic);
            for (uint32_t c = 0; c < p.k; ++c) x[c] = x[c] - mx;
            ExpRow(x.data(), p.k);
            const float sm = RowSum(x.data(), p.oriK, p.basic);
            for (uint32_t c = 0; c < p.k; ++c) x[c] = x[c] / sm;
            if (form == Form::WithOutputs) {
                std::fill_n(max->ptr_ + at, p.slot, FromF<T2>(mx));
                std::fill_n(sum->ptr_ + at, p.slot, FromF<T2>(sm));
            }
        }
        T1* d = dst.ptr_ + static_cast<uint64_t>(r) * p.k;
        for (uint32_t c = 0; c < p.k; ++c) d[c] = FromF<T1>(x[c]);
    }
}

}  // namespace softmax_detail
}  // namespace opgen_sim

namespace AscendC {

// ---- SoftMax (SoftMax.md) --------------------------------------------------------------------
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    namespace d = opgen_sim::softmax_detail;
    d::Run<T, T>("SoftMax", d::Form::WithOutputs, dstTensor, &sumTensor, &maxTensor, srcTensor, nullptr, tiling,
                 softmaxShapeInfo, isBasicBlock, isDataFormatNZ, config.oriSrcM, config.oriSrcK);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                    const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    namespace d = opgen_sim::softmax_detail;
    d::Run<half, float>("SoftMax", d::Form::WithOutputs, dstTensor, &sumTensor, &maxTensor, srcTensor, nullptr,
                        tiling, softmaxShapeInfo, isBasicBlock, isDataFormatNZ, config.oriSrcM, config.oriSrcK);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    namespace d = opgen_sim::softmax_detail;
    d::Run<T, T>("SoftMax", d::Form::NoOutputs, dstTensor, nullptr, nullptr, srcTensor, nullptr, tiling,
                 softmaxShapeInfo, isBasicBlock, false, config.oriSrcM, config.oriSrcK);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    namespace d = opgen_sim::softmax_detail;
    d::Run<T, T>("SoftMax", d::Form::NoOutputs, dstTensor, nullptr, nullptr, srcTensor, &sharedTmpBuffer, tiling,
                 softmaxShapeInfo, isBasicBlock, false, config.oriSrcM, config.oriSrcK);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    namespace d = opgen_sim::softmax_detail;
    d::Run<T, T>("SoftMax", d::Form::WithOutputs, dstTensor, &sumTensor, &maxTensor, srcTensor, &sharedTmpBuffer,
                 tiling, softmaxShapeInfo, isBasicBlock, isDataFormatNZ, config.oriSrcM, config.oriSrcK);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                    const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    namespace d = opgen_sim::softmax_detail;
    d::Run<half, float>("SoftMax", d::Form::WithOutputs, dstTensor, &sumTensor, &maxTensor, srcTensor,
                        &sharedTmpBuffer, tiling, softmaxShapeInfo, isBasicBlock, isDataFormatNZ, config.oriSrcM,
                        config.oriSrcK);
}

// ---- SimpleSoftMax (SimpleSoftMax.md): exp(src - inMax) / inSum, no reductions ---------------
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
                          const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor,
                          const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    namespace d = opgen_sim::softmax_detail;
    d::Run<T, T>("SimpleSoftMax", d::Form::Simple, dstTensor, &inSumTensor, &inMaxTensor, srcTensor, nullptr, tiling,
                 softmaxShapeInfo, isBasicBlock, isDataFormatNZ, config.oriSrcM, config.oriSrcK);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor,
                          const LocalTensor<float>& inMaxTensor, const LocalTensor<half>& srcTensor,
                          const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    namespace d = opgen_sim::softmax_detail;
    d::Run<half, float>("SimpleSoftMax", d::Form::Simple, dstTensor, &inSumTensor, &inMaxTensor, srcTensor, nullptr,
                        tiling, softmaxShapeInfo, isBasicBlock, isDataFormatNZ, config.oriSrcM, config.oriSrcK);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
                          const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor,
                          const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                          const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    namespace d = opgen_sim::softmax_detail;
    d::Run<T, T>("SimpleSoftMax", d::Form::Simple, dstTensor, &inSumTensor, &inMaxTensor, srcTensor,
                 &sharedTmpBuffer, tiling, softmaxShapeInfo, isBasicBlock, isDataFormatNZ, config.oriSrcM,
                 config.oriSrcK);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor,
                          const LocalTensor<float>& inMaxTensor, const LocalTensor<half>& srcTensor,
                          const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                          const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    namespace d = opgen_sim::softmax_detail;
    d::Run<half, float>("SimpleSoftMax", d::Form::Simple, dstTensor, &inSumTensor, &inMaxTensor, srcTensor,
                        &sharedTmpBuffer, tiling, softmaxShapeInfo, isBasicBlock, isDataFormatNZ, config.oriSrcM,
                        config.oriSrcK);
}

// ---- AdjustSoftMaxRes (AdjustSoftMaxRes.md) ---------------------------------------------------
// Row j of softMaxRes (srcK elements) becomes `to` where the max element read for it has the bits
// `from` (a float's 32 bits, a half's low 16): element j * 32 / sizeof(T2) (the first of its
// block), or element j with stepSizeMode != 0. True when a row changed.
template <typename T1, typename T2, bool isDataFormatNZ = false, uint8_t stepSizeMode = 0>
inline bool AdjustSoftMaxRes(const LocalTensor<T1>& softMaxRes, const LocalTensor<T2>& maxTensor, const uint32_t from,
                             const T1 to, const SoftMaxShapeInfo& softmaxShapeInfo) {
    constexpr const char* api = "AdjustSoftMaxRes";
    static_assert(std::is_same_v<T1, half> || std::is_same_v<T1, float>, "AdjustSoftMaxRes takes half or float");
    static_assert(std::is_same_v<T2, half> || std::is_same_v<T2, float>,
                  "AdjustSoftMaxRes's maxTensor is half or float");
    if (isDataFormatNZ) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "the NZ format (isDataFormatNZ = true) is not simulated; use ND");
    }
    const uint32_t m = softmaxShapeInfo.srcM, k = softmaxShapeInfo.srcK;
    const uint32_t step = stepSizeMode != 0 ? 1u : static_cast<uint32_t>(opgen_sim::kBlockBytes / sizeof(T2));
    if (m == 0) return false;
    opgen_sim::CheckOperand(maxTensor, static_cast<int64_t>(static_cast<uint64_t>(m - 1) * step + 1), api,
                            "maxTensor");
    opgen_sim::CheckOperand(softMaxRes, static_cast<int64_t>(static_cast<uint64_t>(m) * k), api, "softMaxRes");
    opgen_sim::FlushAll();
    using Bits = std::conditional_t<sizeof(T2) == 4, uint32_t, uint16_t>;
    const Bits want = static_cast<Bits>(from);
    bool changed = false;
    for (uint32_t j = 0; j < m; ++j) {
        Bits bits;
        std::memcpy(&bits, maxTensor.ptr_ + static_cast<uint64_t>(j) * step, sizeof(bits));
        if (bits != want) continue;
        std::fill_n(softMaxRes.ptr_ + static_cast<uint64_t>(j) * k, k, to);
        changed = true;
    }
    return changed;
}

}  // namespace AscendC
