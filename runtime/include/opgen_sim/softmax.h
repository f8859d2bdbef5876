// opgen NPU simulator: the SoftMax advanced APIs (adv_api/activation/softmax.h, simplesoftmax.h,
// logsoftmax.h, softmaxgrad.h, softmaxflashv2.h, softmaxflashv3.h): SoftMax (with or without sumTensor/maxTensor,
// with or without sharedTmpBuffer, half/float and half with float max/sum), SimpleSoftMax,
// AdjustSoftMaxRes, LogSoftMax, SoftmaxGrad, SoftmaxGradFront, SoftmaxFlashV2 (with the
// kernel-side SoftMaxFlashV2TilingFunc) and SoftmaxFlashV3, with SoftMaxShapeInfo, SoftmaxConfig and the kernel
// structs SoftMaxTiling and LogSoftMaxTiling (kernel_tiling/softmax_tiling_data.h).
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
// - exp is the simulator's Exp (exp_lanes.h); the subtraction and division read element c % 8
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
//
// The other members follow the same implementation's steps (membase/common/logsoftmax_common_impl.h,
// softmax_grad_nd_impl.h, softmax_flashv2_impl/*.h), each row computed in float as there:
// - LogSoftMax: SoftMax's max, exp, sum and quotient, then logf and a multiplication by CANN's
//   float log10(e) (the reference's log10); its passes always re-planned from sharedTmpBuffer
//   (CANN's kernel ignores the LogSoftMaxTiling), over the shape's oriSrcM rows.
// - SoftmaxGrad: the row sum of grad * src as CANN's ReduceSumLastNDImpl adds it (the eight block
//   sums of each whole repeat added repeat after repeat, reduced as a block, the tail columns a
//   masked repeat added last); dst = (grad - sum) * src, or with isFront (and SoftmaxGradFront)
//   the sums, one 32-byte block a row. SoftmaxGradFront's isBasicBlock adds a row's repeats
//   element-wise before reducing its 64 lanes (its passes; a tail pass takes the generic sum).
// - SoftmaxFlashV2: the row's max and sum as SoftMax's (generic path) or CANN's basic-block trees
//   (512 columns one pairwise tree, 1024 as 16 repeat results folded j with j + 8, other widths
//   above 512 from the block results of the first 512 columns and each further repeat, narrower
//   ones as SoftMax's basic-block path); with isUpdate M = max(inMax, rowmax) lane by lane (Max's
//   operand order), dst = exp(x - M[c % 8]), expMax = exp(inMax - M), sum = expMax * inSum +
//   rowsum. The float basic-block path leaves x - max in srcTensor (no update) and expMax * inSum
//   in inExpSumTensor (update), as CANN's does. A half source with float max/sum writes expMax
//   as 16 halves a row (the 8 floats' values twice).
// - SoftmaxFlashV3 (T half, U float; the PASA form, membase/v220/softmax_flashv3_impl.h): per row
//   in float, the 64 block sums of the first 512 columns with each further repeat added lane by
//   lane, 8 block sums of those times the float 1 / baseK (baseK = srcK / 8: the local means), their
//   block sum times 1/8 (the row mean); x -= (mean - local mean of segment c / baseK) * s, s the
//   float alpha / (1 - alpha); then SoftMax's max (generic path); without isUpdate mean = row mean,
//   max = rowmax + (mean - mean) * s; with isUpdate mean = (inMean * (loopCnt - 1) + row mean) *
//   (1 / loopCnt), shiftCurr = (row mean - mean) * s, shiftPrev = (inMean - mean) * s,
//   max = Max(rowmax + shiftCurr, inMax + shiftPrev), expMax = exp(shiftPrev + (inMax - max)),
//   sum = expMax * inSum + rowsum; dst = exp(x - (max - shiftCurr)[c % 8]) cast with CAST_ROUND,
//   expMax 16 halves a row. Two places follow the reference where CANN's A2 code differs: the
//   segment shift is the formula's for every column (CANN broadcasts it with a counter-mode Copy of
//   baseK elements and 8 repeats; in counter mode the repeat count is ignored (SetMaskCount.md), so
//   that instruction covers ceil(baseK / 64) repeats of 64 columns and leaves the rest of its
//   buffer as it was), and the inputs are read before the outputs are written (the reference lets
//   mean/inMean, max/inMax, sum/inSum share a tensor; CANN's sequence would read the new mean and
//   max as the old). The tiling is used as it is (CANN does not re-plan): it must be for the call's
//   shape; srcK >= 512 and a multiple of 64, srcM a multiple of 8, splitMeanCnt 8 and the aligned
//   case (oriSrcM/K = srcM/K) only, each an error naming the API otherwise.
// A shape other than the tiling's is re-planned as CANN's kernel-side tiling functions do
// (CalculateNDSplitM, SoftMaxGradTilingFunc, SoftMaxFlashV2TilingFuncImpl); a sharedTmpBuffer
// smaller than the plan's passes use, an isBasicBlock shape CANN's path does not cover (it runs
// whole passes of 8-row groups without a tail pass), the NZ format and SoftmaxFlashV2's mode
// without broadcast (SOFTMAX_OUTPUT_WITHOUT_BRC) are errors naming the API; operands a call may
// not share (LogSoftMax's dst/src/sum/max) are checked in strict mode, as CANN's CPU-debug build
// checks them.
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

inline void ExpRow(float* v, uint32_t n) { exp_lanes::Span(v, v, n); }

template <typename T>
inline T FromF(float v) {
    return FromFloatAs<T, AscendC::RoundMode::CAST_ROUND>(v);
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

// ---- the rest of the family: LogSoftMax, SoftmaxGrad(Front), SoftmaxFlashV2 ----------------------

// An 8-lane block's sum as BlockReduceSum gives it (adjacent pairs, then pairs of those).
inline float BlockSum(const float* v) {
    float t[kBlock];
    std::memcpy(t, v, sizeof(t));
    return TreeSum(t, kBlock);
}

// CANN's ReduceSumLastNDImpl (softmax_common_nd_reduce.h), the sum SoftmaxGrad takes: the eight
// block sums of each whole repeat added repeat after repeat into eight lanes and those reduced
// as a block; the tail columns (k % 64) summed as one masked repeat and added last.
inline float GradRowSum(const float* x, uint32_t k) {
    const uint32_t repeats = k / kLanes, tail = k % kLanes;
    float aligned = 0;
    if (repeats > 0) {
        float acc[kBlock];
        for (uint32_t b = 0; b < kBlock; ++b) acc[b] = BlockSum(x + b * kBlock);
        for (uint32_t q = 1; q < repeats; ++q) {
            for (uint32_t b = 0; b < kBlock; ++b) acc[b] = acc[b] + BlockSum(x + q * kLanes + b * kBlock);
        }
        aligned = BlockSum(acc);
    }
    if (tail == 0) return aligned;
    const float t = LanesSum(x + repeats * kLanes, tail);
    return repeats == 0 ? t : aligned + t;
}

// SoftmaxGradFront's basic-block sum: the row's repeats added element-wise in order, the 64
// lanes then reduced block by block.
inline float FrontBasicRowSum(const float* x, uint32_t k) {
    float acc[kLanes];
    std::memcpy(acc, x, sizeof(acc));
    for (uint32_t q = 1; q < k / kLanes; ++q) {
        for (uint32_t j = 0; j < kLanes; ++j) acc[j] = acc[j] + x[q * kLanes + j];
    }
    return TreeSum(acc, kLanes);
}

// SoftmaxFlashV2's basic-block reductions (softmax_flashv2_block_reduce_impl.h), k a multiple of
// 64: 512 columns reduce as blocks, blocks of those and the last eight; 1024 columns as 16
// repeat results folded pairwise (j with j + 8) before the last block; other widths above 512
// from the block results of the first 512 columns and each further repeat; below 512 as
// SoftMax's basic-block path folds (RowMax/RowSum). passRows: the rows of the pass.
inline float FlashBasicRow(const float* x, uint32_t k, uint32_t passRows, bool isMax) {
    const auto op = [isMax](float a, float b) { return isMax ? MaxOf(a, b) : a + b; };
    const auto lanes = [isMax](const float* v, uint32_t n) {
        if (isMax) return LanesMax(v, n);
        std::vector<float> t(v, v + n);
        return TreeSum(t.data(), n);
    };
    if (k == kBigRow) return lanes(x, kBigRow);
    if (k == 2 * kBigRow) {
        float v[2 * kBlock], w[kBlock];
        for (uint32_t q = 0; q < 2 * kBlock; ++q) v[q] = lanes(x + q * kLanes, kLanes);
        for (uint32_t l = 0; l < kBlock; ++l) w[l] = op(v[l], v[l + kBlock]);
        return lanes(w, kBlock);
    }
    if (k > kBigRow) {
        float acc[kLanes];
        for (uint32_t b = 0; b < kLanes; ++b) acc[b] = lanes(x + b * kBlock, kBlock);
        for (uint32_t q = kBigRow / kLanes; q < k / kLanes; ++q) {
            for (uint32_t j = 0; j < kLanes; ++j) acc[j] = op(x[q * kLanes + j], acc[j]);
        }
        return lanes(acc, kLanes);
    }
    return isMax ? RowMax(x, k, passRows, true) : RowSum(x, k, true);
}

// CANN's CalculateNDSplitM (softmax_common_shape_process.h): the rows `floats` of work space
// hold, a float row needing its max/sum block and one repeat, a half row its float copy too; for
// a basic-block shape a multiple of 8 dividing m, below 64 * 256 elements.
constexpr uint32_t NDSplitM(uint64_t floats, uint32_t size1, uint32_t reduceK, uint32_t m, uint32_t k, bool basic) {
    uint64_t rows = size1 == 2 ? floats / (reduceK + k + kLanes) : floats / (reduceK + kLanes);
    rows = std::min<uint64_t>(rows, m);
    if (basic && rows > kBlock && m % kBlock == 0) {
        rows = rows / kBlock * kBlock;
        while (m % rows != 0) rows -= kBlock;
        while (rows * k >= static_cast<uint64_t>(kLanes) * 256) rows /= 2;
    }
    return static_cast<uint32_t>(rows);
}

// The shape of a call: SoftMaxShapeInfo's, else the source's ShapeInfo (CANN's
// GetShapeInfo), else the tiling's (a kernel that set neither).
struct CallShape {
    uint32_t m = 0;
    uint32_t k = 0;
    uint32_t oriM = 0;
    uint32_t oriK = 0;
};

template <typename T>
inline CallShape ShapeOfCall(const AscendC::LocalTensor<T>& src, const AscendC::SoftMaxShapeInfo& info,
                             uint32_t tilingM, uint32_t tilingK) {
    if (info.srcM != 0 && info.srcK != 0) return {info.srcM, info.srcK, info.oriSrcM, info.oriSrcK};
    const AscendC::ShapeInfo s = src.GetShapeInfo();
    if (s.shapeDim == 0) return {tilingM, tilingK, tilingM, tilingK};
    const auto last = [](const uint32_t* d, uint8_t n, uint32_t& m, uint32_t& k) {
        uint64_t size = 1;
        for (uint8_t i = 0; i < n; ++i) size *= d[i];
        k = d[n - 1];
        m = k == 0 ? 0 : static_cast<uint32_t>(size / k);
    };
    CallShape c;
    last(s.shape, s.shapeDim, c.m, c.k);
    if (s.originalShapeDim > 0) {
        last(s.originalShape, s.originalShapeDim, c.oriM, c.oriK);
    } else {
        c.oriM = c.m;
        c.oriK = c.k;
    }
    return c;
}

// The rules every member checks of a shape: rows and columns, a 32-byte aligned last axis of the
// source type, 0 < oriSrcK <= srcK.
template <typename T>
inline void CheckCallShape(const char* api, const CallShape& c) {
    if (c.m == 0 || c.k == 0) {
        Fail(ErrorKind::Tiling, api,
             "the shape " + Shape(c.m, c.k) + " holds nothing (SoftMaxShapeInfo, the source's ShapeInfo and the "
             "tiling all empty)");
    }
    if (c.k * sizeof(T) % kBlockBytes != 0) {
        Fail(ErrorKind::Alignment, api,
             "srcK " + std::to_string(c.k) + " of " + TypeName<T>() +
                 " is not 32-byte aligned (the reference requires the last axis to be)");
    }
    if (c.oriK == 0 || c.oriK > c.k) {
        Fail(ErrorKind::Tiling, api,
             "SoftMaxShapeInfo.oriSrcK " + std::to_string(c.oriK) + " must be in [1, srcK " + std::to_string(c.k) +
                 "] (the columns of each row the reductions take)");
    }
}

// A plan from a tiling the shape matches: its passes, checked for a row each and a max/sum block
// of `perBlock` elements a row.
inline void PlanFromTiling(const char* api, const char* func, Plan& p, const AscendC::tiling::SoftMaxTiling& t,
                           uint32_t perBlock) {
    p.splitM = t.splitM;
    p.rangeM = t.rangeM;
    p.tailM = t.tailM;
    p.reduceK = t.reduceK;
    p.reduceSize = t.reduceSize;
    if (p.splitM == 0 || (p.rangeM == 0 && p.tailM == 0)) {
        Fail(ErrorKind::Tiling, api,
             "the tiling plans passes of " + std::to_string(p.splitM) + " rows, " + std::to_string(p.rangeM) +
                 " of them, for " + Shape(p.m, p.k) + ": " + func + "'s localWorkSpaceSize held no row");
    }
    if (p.reduceK != perBlock) {
        Fail(ErrorKind::Tiling, api,
             "tiling.reduceK is " + std::to_string(p.reduceK) + "; a row's max/sum block here is " +
                 std::to_string(perBlock) + " elements (32 bytes; " + func + "'s dataTypeSize decides it)");
    }
}

// A kernel-side plan of `rows` rows a pass over m rows (CANN's kernel tiling functions).
inline void PlanRows(const char* api, Plan& p, uint32_t rows, uint32_t m, uint32_t perBlock,
                     const AscendC::LocalTensor<uint8_t>* tmp, uint64_t rowBytes, const std::string& why) {
    if (rows == 0) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             why + ": sharedTmpBuffer's " + Str(tmp == nullptr ? 0 : tmp->size_) + " bytes hold no row of " +
                 Str(rowBytes) + " bytes");
    }
    p.splitM = rows;
    p.rangeM = m / rows;
    p.tailM = m % rows;
    p.reduceK = perBlock;
    p.reduceSize = rows * perBlock;
}

inline uint64_t TmpFloats(const AscendC::LocalTensor<uint8_t>* tmp) {
    return tmp != nullptr ? tmp->size_ / sizeof(float) : std::numeric_limits<uint32_t>::max();
}

// The buffer the plan's passes use (CANN's kernel carves them out of sharedTmpBuffer unchecked).
inline void CheckTmpHolds(const char* api, const char* sizer, const AscendC::LocalTensor<uint8_t>* tmp,
                          const Plan& p, uint64_t rowFloats) {
    if (tmp == nullptr) return;
    CheckTmpPlace(api, *tmp);
    const uint64_t need = static_cast<uint64_t>(p.splitM) * rowFloats * sizeof(float);
    if (tmp->size_ < need) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp->size_) + " bytes; passes of " + std::to_string(p.splitM) +
                 " rows of " + Shape(p.m, p.k) + " need " + Str(need) + " (" + sizer + ")");
    }
}

// CANN's CPU-debug check of the operands a call may not share (strict mode).
template <typename A, typename B>
inline void CheckApart(const char* api, const AscendC::LocalTensor<A>& a, uint64_t na, const char* an,
                       const AscendC::LocalTensor<B>& b, uint64_t nb, const char* bn) {
    if (CurrentCore().strict_gm && Overlaps(a, na, b, nb)) {
        Fail(ErrorKind::Generic, api,
             std::string(an) + " and " + bn + " overlap; the reference does not allow that (strict mode, as CANN's "
             "CPU-debug check)");
    }
}

// ---- LogSoftMax ----------------------------------------------------------------------------------
constexpr float kLog10OfE = 0.4342944819f;  // CANN's SCALAR_NATURE_LOG_10: Ln, then Muls by it

template <typename T>
inline void RunLog(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& sum,
                   const AscendC::LocalTensor<T>& max, const AscendC::LocalTensor<T>& src,
                   const AscendC::LocalTensor<uint8_t>& tmp, const AscendC::tiling::LogSoftMaxTiling& tiling,
                   const AscendC::SoftMaxShapeInfo& info, bool isDataFormatNZ) {
    constexpr const char* api = "LogSoftMax";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "LogSoftMax takes half or float");
    if (isDataFormatNZ) Fail(ErrorKind::Generic, api, "the NZ format (isDataFormatNZ = true) is not simulated; use ND");
    const CallShape c = ShapeOfCall(src, info, tiling.srcM, tiling.srcK);
    CheckCallShape<T>(api, c);
    if (c.oriM == 0 || c.oriM > c.m) {
        Fail(ErrorKind::Tiling, api,
             "SoftMaxShapeInfo.oriSrcM " + std::to_string(c.oriM) + " must be in [1, srcM " + std::to_string(c.m) +
                 "] (the rows LogSoftMax computes)");
    }
    CheckTmpPlace(api, tmp);
    // CANN re-plans from the buffer whatever the tiling says (logsoftmax_base_impl.h)
    const uint32_t perBlock = kBlockBytes / sizeof(T);
    Plan p;
    p.m = c.m;
    p.k = c.k;
    p.oriK = c.oriK;
    uint32_t rows = NDSplitM(tmp.size_ / sizeof(float), sizeof(T), perBlock, c.m, c.k, false);
    if (rows < c.oriM && rows > kBlock) rows = rows / kBlock * kBlock;
    rows = std::min(rows, c.oriM);
    const uint64_t rowFloats = perBlock + kLanes + (sizeof(T) == 2 ? c.k : 0);
    PlanRows(api, p, rows, c.oriM, perBlock, &tmp, rowFloats * sizeof(float),
             "LogSoftMax plans its passes from sharedTmpBuffer (GetLogSoftMaxMinTmpSize)");
    p.slot = perBlock;
    const uint32_t n = p.Rows();
    const uint64_t elems = static_cast<uint64_t>(n) * p.k;
    const uint64_t slots = p.SlotOf(n - 1) + p.slot;
    CheckOperand(src, static_cast<int64_t>(elems), api, "src");
    CheckOperand(dst, static_cast<int64_t>(elems), api, "dst");
    CheckOperand(sum, static_cast<int64_t>(slots), api, "sum");
    CheckOperand(max, static_cast<int64_t>(slots), api, "max");
    CheckNoOverlap(api, &tmp, src, elems, "src");
    CheckNoOverlap(api, &tmp, dst, elems, "dst");
    CheckNoOverlap(api, &tmp, sum, slots, "sum");
    CheckNoOverlap(api, &tmp, max, slots, "max");
    CheckApart(api, dst, elems, "dst", src, elems, "src");
    CheckApart(api, sum, slots, "sum", max, slots, "max");
    CheckApart(api, dst, elems, "dst", sum, slots, "sum");
    CheckApart(api, dst, elems, "dst", max, slots, "max");
    CheckApart(api, src, elems, "src", sum, slots, "sum");
    CheckApart(api, src, elems, "src", max, slots, "max");
    FlushAll();

    std::vector<float> x(p.k);
    for (uint32_t r = 0; r < n; ++r) {
        const T* s = src.ptr_ + static_cast<uint64_t>(r) * p.k;
        for (uint32_t col = 0; col < p.k; ++col) x[col] = ToF(s[col]);
        const uint32_t passRows = r / p.splitM < p.rangeM ? p.splitM : p.tailM;
        const float mx = RowMax(x.data(), p.oriK, passRows, false);
        for (uint32_t col = 0; col < p.k; ++col) x[col] = x[col] - mx;
        ExpRow(x.data(), p.k);
        const float sm = RowSum(x.data(), p.oriK, false);
        T* d = dst.ptr_ + static_cast<uint64_t>(r) * p.k;
        for (uint32_t col = 0; col < p.k; ++col) d[col] = FromF<T>(std::log(x[col] / sm) * kLog10OfE);
        const uint64_t at = p.SlotOf(r);
        std::fill_n(max.ptr_ + at, p.slot, FromF<T>(mx));
        std::fill_n(sum.ptr_ + at, p.slot, FromF<T>(sm));
    }
}

// ---- SoftmaxGrad / SoftmaxGradFront --------------------------------------------------------------
template <typename T>
inline void RunGrad(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& grad,
                    const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<uint8_t>* tmp,
                    const AscendC::tiling::SoftMaxTiling& tiling, bool isFront, bool isBasicBlock,
                    const AscendC::SoftMaxShapeInfo& info, bool isDataFormatNZ) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "SoftmaxGrad takes half or float");
    if (isDataFormatNZ) Fail(ErrorKind::Generic, api, "the NZ format (isDataFormatNZ = true) is not simulated; use ND");
    const CallShape c = ShapeOfCall(src, info, tiling.srcM, tiling.srcK);
    CheckCallShape<T>(api, c);
    constexpr uint32_t perBlock = kBlockBytes / sizeof(T);
    Plan p;
    p.m = c.m;
    p.k = c.k;
    p.oriK = c.oriK;
    // the floats a row of a pass takes: the products (half: the float copies of both sources
    // too) and the sum blocks
    const uint64_t rowFloats = sizeof(T) == 2 ? 3 * c.k + 2 * perBlock : c.k + (isFront ? 1 : 2) * perBlock;
    if (c.m == tiling.srcM && c.k == tiling.srcK) {
        PlanFromTiling(api, "SoftMaxGradTilingFunc", p, tiling, perBlock);
    } else {  // CANN's kernel-side SoftMaxGradTilingFunc (softmax_tiling_func.h)
        const uint64_t floats = TmpFloats(tmp);
        const uint64_t per = sizeof(T) == 2 ? 2 * perBlock + 3 * c.k + kLanes
                                            : (isFront ? perBlock : 2 * perBlock) + c.k + kLanes;
        uint64_t rows = floats / per;
        if (rows < c.m && rows > kBlock) rows = rows / kBlock * kBlock;
        rows = std::min<uint64_t>(rows, c.m);
        if (isBasicBlock && isFront && rows > kBlock && c.m % kBlock == 0) {
            rows = rows / kBlock * kBlock;
            while (c.m % rows != 0) rows -= kBlock;
            while (rows * c.k >= static_cast<uint64_t>(kLanes) * 256) rows /= 2;
        }
        PlanRows(api, p, static_cast<uint32_t>(rows), c.m, perBlock, tmp, per * sizeof(float),
                 "the tiling is for " + Shape(tiling.srcM, tiling.srcK) + " and the shape is " + Shape(c.m, c.k) +
                     ", so the kernel plans from sharedTmpBuffer (GetSoftMaxGradMinTmpSize)");
    }
    p.slot = perBlock;
    const bool basic = isFront && isBasicBlock;
    if (basic) {
        const bool ok = p.k % kLanes == 0 && p.k < 2048 && p.k >= 256 / sizeof(T) && p.m % kBlock == 0 &&
                        p.splitM % kBlock == 0;
        if (!ok) {
            Fail(ErrorKind::Tiling, api,
                 "isBasicBlock needs srcK a multiple of 64 in [" + std::to_string(256 / sizeof(T)) +
                     ", 2048), srcM and the rows a pass multiples of 8 (IsBasicBlockInSoftMax); the shape is " +
                     Shape(p.m, p.k) + ", " + std::to_string(p.splitM) + " rows a pass");
        }
    }
    CheckTmpHolds(api, "GetSoftMaxGradMinTmpSize", tmp, p, rowFloats);
    const uint32_t n = p.Rows();
    const uint64_t elems = static_cast<uint64_t>(n) * p.k;
    const uint64_t outs = isFront ? p.SlotOf(n - 1) + p.slot : elems;
    CheckOperand(src, static_cast<int64_t>(elems), api, "srcTensor");
    CheckOperand(grad, static_cast<int64_t>(elems), api, "gradTensor");
    CheckOperand(dst, static_cast<int64_t>(outs), api, "dstTensor");
    CheckNoOverlap(api, tmp, src, elems, "srcTensor");
    CheckNoOverlap(api, tmp, grad, elems, "gradTensor");
    CheckNoOverlap(api, tmp, dst, outs, "dstTensor");
    FlushAll();

    // pass by pass, its sources read before its results are written (dst may be src)
    std::vector<float> g, y, prod;
    std::vector<float> sums;
    for (uint32_t pass = 0; pass * p.splitM < n; ++pass) {
        const uint32_t r0 = pass * p.splitM;
        const uint32_t rows = std::min(p.splitM, n - r0);
        const bool passBasic = basic && pass < p.rangeM;
        g.resize(static_cast<size_t>(rows) * p.k);
        y.resize(g.size());
        prod.resize(g.size());
        sums.resize(rows);
        for (uint64_t i = 0; i < g.size(); ++i) {
            const uint64_t at = static_cast<uint64_t>(r0) * p.k + i;
            y[i] = ToF(src.ptr_[at]);
            g[i] = ToF(grad.ptr_[at]);
            prod[i] = y[i] * g[i];
        }
        for (uint32_t r = 0; r < rows; ++r) {
            const float* pr = prod.data() + static_cast<uint64_t>(r) * p.k;
            sums[r] = passBasic ? FrontBasicRowSum(pr, p.k) : GradRowSum(pr, p.oriK);
        }
        for (uint32_t r = 0; r < rows; ++r) {
            if (isFront) {
                std::fill_n(dst.ptr_ + p.SlotOf(r0 + r), p.slot, FromF<T>(sums[r]));
                continue;
            }
            T* d = dst.ptr_ + static_cast<uint64_t>(r0 + r) * p.k;
            const uint64_t base = static_cast<uint64_t>(r) * p.k;
            for (uint32_t col = 0; col < p.k; ++col) d[col] = FromF<T>((g[base + col] - sums[r]) * y[base + col]);
        }
    }
}

// ---- SoftmaxFlashV2 ------------------------------------------------------------------------------
// The floats a row of a pass takes (softmax_flashv2_*_impl.h): the float copy of a half row, the
// max/sum blocks in float where the outputs are half, and one repeat of partial reductions (two
// for the basic-block reduction of 1024 columns).
template <typename T1, typename T2>
inline uint64_t FlashRowFloats(uint32_t k, bool update, bool basic) {
    constexpr uint64_t block2 = kBlockBytes / sizeof(T2);
    const uint64_t lanes = basic && k == 2 * kBigRow ? 2 * kLanes : kLanes;
    if constexpr (std::is_same_v<T1, float>) {
        return basic || update ? block2 + lanes : lanes;
    } else if constexpr (std::is_same_v<T2, half>) {
        return k + block2 + lanes + (update && !basic ? block2 : 0);
    } else {
        return k + lanes + (basic || update ? block2 : 0) + (update && !basic ? block2 : 0);
    }
}

// CANN's SoftMaxFlashV2TilingFuncImpl (softmax_flashv2_base_impl.h), the ND form: rows a pass
// from `floats` of work space.
constexpr uint32_t FlashV2Rows(uint32_t m, uint32_t k, uint32_t size1, uint32_t size2, uint64_t floats,
                            bool isBasicBlock) {
    const uint32_t perBlock = kBlockBytes / size2;
    uint64_t rows = 0;
    if (isBasicBlock && k % kLanes == 0 && m % kBlock == 0) {
        rows = NDSplitM(floats, size1, perBlock, m, k, true);
    } else {
        rows = size1 == 2 ? floats / (2 * perBlock + k + kLanes) : floats / (perBlock + kLanes);
    }
    if (rows < m && rows > kBlock) rows = rows / kBlock * kBlock;
    return static_cast<uint32_t>(std::min<uint64_t>(rows, m));
}

template <typename T1, typename T2, bool isUpdate, bool isBasicBlock, const AscendC::SoftmaxConfig& config>
inline void RunFlashV2(const AscendC::LocalTensor<T1>& dst, const AscendC::LocalTensor<T2>& sum,
                       const AscendC::LocalTensor<T2>& max, const AscendC::LocalTensor<T1>& src,
                       const AscendC::LocalTensor<T1>& expMax, const AscendC::LocalTensor<T2>& inSum,
                       const AscendC::LocalTensor<T2>& inMax, const AscendC::LocalTensor<uint8_t>* tmp,
                       const AscendC::tiling::SoftMaxTiling& tiling, const AscendC::SoftMaxShapeInfo& info,
                       bool isDataFormatNZ) {
    constexpr const char* api = "SoftmaxFlashV2";
    static_assert(std::is_same_v<T1, half> || std::is_same_v<T1, float>, "SoftmaxFlashV2 takes half or float");
    static_assert(std::is_same_v<T2, T1> || (std::is_same_v<T1, half> && std::is_same_v<T2, float>),
                  "SoftmaxFlashV2's max and sum are of the source's type, or float for a half source");
    if (isDataFormatNZ) Fail(ErrorKind::Generic, api, "the NZ format (isDataFormatNZ = true) is not simulated; use ND");
    if (config.mode != AscendC::SoftmaxMode::SOFTMAX_NORMAL) {
        Fail(ErrorKind::Generic, api,
             "SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC (max/sum of one element a row) is not simulated; use "
             "SOFTMAX_NORMAL");
    }
    const CallShape c = ShapeOfCall(src, info, tiling.srcM, tiling.srcK);
    CheckCallShape<T1>(api, c);
    constexpr uint32_t block1 = kBlockBytes / sizeof(T1), block2 = kBlockBytes / sizeof(T2);
    Plan p;
    p.m = c.m;
    p.k = c.k;
    p.oriK = c.oriK;
    bool basic = isBasicBlock;
    if (config.oriSrcM != 0 && config.oriSrcK != 0) {  // a constant shape decides the path
        basic = config.oriSrcK % kLanes == 0 && config.oriSrcK < 2048 && config.oriSrcM % kBlock == 0;
        if (!basic && (config.oriSrcK + kBlock - 1) / kBlock * kBlock != p.k) {
            Fail(ErrorKind::Tiling, api,
                 "config.oriSrcK " + std::to_string(config.oriSrcK) + " rounded up to 8 must be srcK " +
                     std::to_string(p.k) + " (CANN's reductions step rows by it)");
        }
        p.oriK = config.oriSrcK;
    }
    if (!config.isCheckTiling || (c.m == tiling.srcM && c.k == tiling.srcK)) {
        PlanFromTiling(api, "SoftMaxFlashV2TilingFunc", p, tiling, block2);
    } else {
        const uint32_t rows = FlashV2Rows(c.m, c.k, sizeof(T1), sizeof(T2), TmpFloats(tmp), isBasicBlock);
        const uint64_t per = sizeof(T1) == 2 ? 2 * block2 + c.k + kLanes : block2 + kLanes;
        PlanRows(api, p, rows, c.m, block2, tmp, per * sizeof(float),
                 "the tiling is for " + Shape(tiling.srcM, tiling.srcK) + " and the shape is " + Shape(c.m, c.k) +
                     ", so the kernel plans from sharedTmpBuffer (GetSoftMaxFlashV2MinTmpSize)");
    }
    p.slot = block2;
    p.basic = basic;
    if (basic) {
        // CANN's basic-block path runs whole passes of 8-row groups and has no tail pass; 1024
        // columns reduce 8 rows at once
        const bool ok = p.k % kLanes == 0 && p.k < 2048 && p.k >= 256 / sizeof(T1) && p.splitM % kBlock == 0 &&
                        p.tailM == 0 && (p.k != 2 * kBigRow || p.splitM == kBlock);
        if (!ok) {
            Fail(ErrorKind::Tiling, api,
                 "isBasicBlock needs srcK a multiple of 64 in [" + std::to_string(256 / sizeof(T1)) +
                     ", 2048) and whole passes of a multiple of 8 rows (8 where srcK is 1024) without a tail pass "
                     "(IsBasicBlockInSoftMax); the shape is " + Shape(p.m, p.k) + ", " + std::to_string(p.splitM) +
                     " rows a pass, tailM " + std::to_string(p.tailM));
        }
        p.tailM = 0;
    }
    CheckTmpHolds(api, "GetSoftMaxFlashV2MinTmpSize", tmp, p, FlashRowFloats<T1, T2>(p.k, isUpdate, basic));
    const uint32_t n = p.Rows();
    const uint64_t elems = static_cast<uint64_t>(n) * p.k;
    const uint64_t slots = p.SlotOf(n - 1) + p.slot;
    // expMax: a block of the source type a row, at the max/sum offsets scaled to its type
    const uint64_t expSlots = slots / block2 * block1;
    CheckOperand(src, static_cast<int64_t>(elems), api, "srcTensor");
    CheckOperand(dst, static_cast<int64_t>(elems), api, "dstTensor");
    CheckOperand(sum, static_cast<int64_t>(slots), api, "expSumTensor");
    CheckOperand(max, static_cast<int64_t>(slots), api, "maxTensor");
    if (isUpdate) {
        CheckOperand(expMax, static_cast<int64_t>(expSlots), api, "expMaxTensor");
        CheckOperand(inSum, static_cast<int64_t>(slots), api, "inExpSumTensor");
        CheckOperand(inMax, static_cast<int64_t>(slots), api, "inMaxTensor");
        CheckNoOverlap(api, tmp, expMax, expSlots, "expMaxTensor");
        CheckNoOverlap(api, tmp, inSum, slots, "inExpSumTensor");
        CheckNoOverlap(api, tmp, inMax, slots, "inMaxTensor");
    }
    CheckNoOverlap(api, tmp, src, elems, "srcTensor");
    CheckNoOverlap(api, tmp, dst, elems, "dstTensor");
    CheckNoOverlap(api, tmp, sum, slots, "expSumTensor");
    CheckNoOverlap(api, tmp, max, slots, "maxTensor");
    FlushAll();

    std::vector<float> x(p.k);
    float inm[kBlockBytes / 2], ins[kBlockBytes / 2], nm[kBlockBytes / 2], em[kBlockBytes / 2];
    for (uint32_t r = 0; r < n; ++r) {
        T1* s = src.ptr_ + static_cast<uint64_t>(r) * p.k;
        for (uint32_t col = 0; col < p.k; ++col) x[col] = ToF(s[col]);
        const uint32_t passRows = r / p.splitM < p.rangeM ? p.splitM : p.tailM;
        const float rowMax = basic ? FlashBasicRow(x.data(), p.k, p.splitM, true)
                                   : RowMax(x.data(), p.oriK, passRows, false);
        const uint64_t at = p.SlotOf(r);
        for (uint32_t j = 0; j < block2; ++j) {
            if constexpr (isUpdate) {  // inMax/inSum may be max/sum: read before either is written
                inm[j] = ToF(inMax.ptr_[at + j]);
                ins[j] = ToF(inSum.ptr_[at + j]);
                nm[j] = MaxOf(inm[j], rowMax);
                em[j] = opgen_sim::exp_lanes::ExpF(inm[j] - nm[j]);
            } else {
                nm[j] = rowMax;
            }
        }
        // the broadcasting Sub reads element c % 8 of the row's (float) max block for column c
        for (uint32_t col = 0; col < p.k; ++col) x[col] = x[col] - nm[col % kBlock];
        if constexpr (std::is_same_v<T1, float> && !isUpdate) {
            if (basic) std::copy(x.begin(), x.end(), s);  // CANN's float basic-block path subtracts in src
        }
        ExpRow(x.data(), p.k);
        T1* d = dst.ptr_ + static_cast<uint64_t>(r) * p.k;
        for (uint32_t col = 0; col < p.k; ++col) d[col] = FromF<T1>(x[col]);
        const float rowSum = basic ? FlashBasicRow(x.data(), p.k, p.splitM, false) : RowSum(x.data(), p.oriK, false);
        for (uint32_t j = 0; j < block2; ++j) max.ptr_[at + j] = FromF<T2>(nm[j]);
        if constexpr (isUpdate) {
            const uint64_t eat = at / block2 * block1;
            for (uint32_t j = 0; j < block1; ++j) expMax.ptr_[eat + j] = FromF<T1>(em[j % block2]);
            for (uint32_t j = 0; j < block2; ++j) {
                const float scaled = em[j] * ins[j];
                // CANN's float basic-block path scales inExpSumTensor in place before the addition
                if (std::is_same_v<T1, float> && basic) inSum.ptr_[at + j] = FromF<T2>(scaled);
                sum.ptr_[at + j] = FromF<T2>(scaled + rowSum);
            }
        } else {
            std::fill_n(sum.ptr_ + at, block2, FromF<T2>(rowSum));
        }
    }
}


// ---- SoftmaxFlashV3 (the PASA form) ---------------------------------------------------------------
// The work space of a pass of `rows` rows as CANN's A2/A3 kernel carves it from sharedTmpBuffer
// (membase/v220/softmax_flashv3_impl.h): the rows in float, the row means, one repeat of 64 floats
// a row, 3 (4 with isUpdate) more blocks of 8 floats a row and one row of srcK floats.
inline uint64_t FlashV3PassFloats(uint32_t rows, uint32_t k, bool update) {
    return static_cast<uint64_t>(rows) * (k + kLanes + (update ? 5u : 4u) * kBlock) + k;
}

template <bool isUpdate>
inline void RunFlashV3(const AscendC::LocalTensor<half>& dst, const AscendC::LocalTensor<float>& mean,
                       const AscendC::LocalTensor<float>& sum, const AscendC::LocalTensor<float>& max,
                       const AscendC::LocalTensor<half>& src, const AscendC::LocalTensor<half>& expMax,
                       const AscendC::LocalTensor<float>& inMean, const AscendC::LocalTensor<float>& inSum,
                       const AscendC::LocalTensor<float>& inMax, const AscendC::LocalTensor<uint8_t>* tmp,
                       const AscendC::tiling::SoftMaxTiling& tiling, const AscendC::SoftMaxParams& params) {
    constexpr const char* api = "SoftmaxFlashV3";
    // the shape: params, or the source's ShapeInfo where params leave it 0 (CANN's base impl)
    CallShape c{params.srcM, params.srcK, params.oriSrcM, params.oriSrcK};
    if (params.srcM == 0 || params.srcK == 0) c = ShapeOfCall(src, AscendC::SoftMaxShapeInfo{}, tiling.srcM, tiling.srcK);
    CheckCallShape<half>(api, c);
    if (c.oriM != c.m || c.oriK != c.k) {
        Fail(ErrorKind::Tiling, api,
             "params.oriSrcM/oriSrcK " + Shape(c.oriM, c.oriK) + " must be srcM/srcK " + Shape(c.m, c.k) +
                 " (SoftmaxFlashV3.md: the unaligned case is not supported)");
    }
    if (c.k < kBigRow || c.k % kLanes != 0 || c.m % kBlock != 0) {
        Fail(ErrorKind::Tiling, api,
             "the shape " + Shape(c.m, c.k) + " must have srcK >= 512, a multiple of 64, and srcM a multiple of 8 "
             "(SoftmaxFlashV3.md, 约束说明)");
    }
    if (params.splitMeanCnt != kBlock) {
        Fail(ErrorKind::Tiling, api,
             "params.splitMeanCnt is " + std::to_string(params.splitMeanCnt) + "; only 8 is supported (SoftmaxFlashV3.md)");
    }
    if (isUpdate && params.loopCnt < 1) {
        Fail(ErrorKind::Tiling, api, "params.loopCnt is 0; with isUpdate it must be at least 1 (SoftmaxFlashV3.md)");
    }
    if (tiling.srcM != c.m || tiling.srcK != c.k || tiling.splitK != c.k) {
        Fail(ErrorKind::Tiling, api,
             "the tiling is for " + Shape(tiling.srcM, tiling.srcK) + " (splitK " + std::to_string(tiling.splitK) +
                 ") and the shape is " + Shape(c.m, c.k) +
                 ": CANN's kernel runs the tiling's passes as they are (SoftMaxFlashV3TilingFunc)");
    }
    Plan p;
    p.m = c.m;
    p.k = c.k;
    p.oriK = c.k;
    PlanFromTiling(api, "SoftMaxFlashV3TilingFunc", p, tiling, kBlock);
    p.slot = kBlock;
    if (p.reduceSize != p.splitM * kBlock || p.Rows() != p.m) {
        Fail(ErrorKind::Tiling, api,
             "the tiling's passes (" + std::to_string(p.rangeM) + " of " + std::to_string(p.splitM) + " rows, tailM " +
                 std::to_string(p.tailM) + ", reduceSize " + std::to_string(p.reduceSize) + ") do not cover the " +
                 std::to_string(p.m) + " rows in blocks of 8 floats (SoftMaxFlashV3TilingFunc)");
    }
    if (tmp != nullptr) {
        CheckTmpPlace(api, *tmp);
        const uint64_t need = FlashV3PassFloats(p.splitM, p.k, isUpdate) * sizeof(float);
        if (tmp->size_ < need) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "sharedTmpBuffer holds " + Str(tmp->size_) + " bytes; passes of " + std::to_string(p.splitM) +
                     " rows of " + Shape(p.m, p.k) + " need " + Str(need) + " (GetSoftMaxFlashV3MaxMinTmpSize)");
        }
    }
    const uint64_t elems = static_cast<uint64_t>(p.m) * p.k, slots = static_cast<uint64_t>(p.m) * kBlock;
    CheckOperand(src, static_cast<int64_t>(elems), api, "srcTensor");
    CheckOperand(dst, static_cast<int64_t>(elems), api, "dstTensor");
    CheckOperand(mean, static_cast<int64_t>(slots), api, "meanTensor");
    CheckOperand(sum, static_cast<int64_t>(slots), api, "expSumTensor");
    CheckOperand(max, static_cast<int64_t>(slots), api, "maxTensor");
    CheckNoOverlap(api, tmp, src, elems, "srcTensor");
    CheckNoOverlap(api, tmp, dst, elems, "dstTensor");
    CheckNoOverlap(api, tmp, mean, slots, "meanTensor");
    CheckNoOverlap(api, tmp, sum, slots, "expSumTensor");
    CheckNoOverlap(api, tmp, max, slots, "maxTensor");
    if (isUpdate) {
        CheckOperand(expMax, static_cast<int64_t>(2 * slots), api, "expMaxTensor");
        CheckOperand(inMean, static_cast<int64_t>(slots), api, "inMeanTensor");
        CheckOperand(inSum, static_cast<int64_t>(slots), api, "inExpSumTensor");
        CheckOperand(inMax, static_cast<int64_t>(slots), api, "inMaxTensor");
        CheckNoOverlap(api, tmp, expMax, 2 * slots, "expMaxTensor");
        CheckNoOverlap(api, tmp, inMean, slots, "inMeanTensor");
        CheckNoOverlap(api, tmp, inSum, slots, "inExpSumTensor");
        CheckNoOverlap(api, tmp, inMax, slots, "inMaxTensor");
    }
    FlushAll();

    const uint32_t baseK = p.k / params.splitMeanCnt;
    const float invBaseK = 1.0f / static_cast<float>(baseK);
    const float scalar = params.alpha / (1.0f - params.alpha);
    std::vector<float> x(p.k);
    for (uint32_t r = 0; r < p.m; ++r) {
        const uint64_t at = static_cast<uint64_t>(r) * kBlock;
        const half* s = src.ptr_ + static_cast<uint64_t>(r) * p.k;
        for (uint32_t col = 0; col < p.k; ++col) x[col] = ToF(s[col]);
        // the means: 64 block sums of the first 512 columns, each further repeat added lane by
        // lane, 8 block sums of those scaled by 1 / baseK (the local means), their block sum
        // times 1/8 (the row's mean)
        float acc[kLanes], local[kBlock];
        for (uint32_t b = 0; b < kLanes; ++b) acc[b] = BlockSum(x.data() + b * kBlock);
        for (uint32_t q = kBigRow / kLanes; q < p.k / kLanes; ++q) {
            for (uint32_t j = 0; j < kLanes; ++j) acc[j] = x[q * kLanes + j] + acc[j];
        }
        for (uint32_t b = 0; b < kBlock; ++b) local[b] = BlockSum(acc + b * kBlock) * invBaseK;
        const float rowMean = BlockSum(local) * (1.0f / kBlock);
        // the input shifted by (rowMean - local mean of its segment) * alpha / (1 - alpha), segment
        // c / baseK for column c (SoftmaxFlashV3.md's formula; see the header comment)
        float shift[kBlock];
        for (uint32_t b = 0; b < kBlock; ++b) shift[b] = (rowMean - local[b]) * scalar;
        for (uint32_t col = 0; col < p.k; ++col) x[col] = x[col] - shift[col / baseK];
        const float rowMax = RowMax(x.data(), p.k, r / p.splitM < p.rangeM ? p.splitM : p.tailM, false);
        // the inputs are read before any output is written: they may share a tensor
        float inm[kBlock], inx[kBlock], ins[kBlock], nmean[kBlock], nmax[kBlock], shiftCurr[kBlock], em[kBlock];
        for (uint32_t j = 0; j < kBlock; ++j) {
            if constexpr (isUpdate) {
                inm[j] = inMean.ptr_[at + j];
                inx[j] = inMax.ptr_[at + j];
                ins[j] = inSum.ptr_[at + j];
                const float loops = static_cast<float>(params.loopCnt);
                nmean[j] = (inm[j] * (loops - 1.0f) + rowMean) * (1.0f / loops);
            } else {
                nmean[j] = rowMean;
            }
            shiftCurr[j] = (rowMean - nmean[j]) * scalar;
            nmax[j] = rowMax + shiftCurr[j];
            if constexpr (isUpdate) {
                const float shiftPrev = (inm[j] - nmean[j]) * scalar;
                nmax[j] = MaxOf(nmax[j], inx[j] + shiftPrev);
                em[j] = opgen_sim::exp_lanes::ExpF(shiftPrev + (inx[j] - nmax[j]));
            }
        }
        float sub[kBlock];
        for (uint32_t j = 0; j < kBlock; ++j) sub[j] = nmax[j] - shiftCurr[j];
        for (uint32_t col = 0; col < p.k; ++col) x[col] = x[col] - sub[col % kBlock];
        ExpRow(x.data(), p.k);
        half* d = dst.ptr_ + static_cast<uint64_t>(r) * p.k;
        for (uint32_t col = 0; col < p.k; ++col) d[col] = FromF<half>(x[col]);
        const float rowSum = RowSum(x.data(), p.k, false);
        for (uint32_t j = 0; j < kBlock; ++j) {
            mean.ptr_[at + j] = nmean[j];
            max.ptr_[at + j] = nmax[j];
            if constexpr (isUpdate) {
                sum.ptr_[at + j] = em[j] * ins[j] + rowSum;
            } else {
                sum.ptr_[at + j] = rowSum;
            }
        }
        if constexpr (isUpdate) {
            for (uint32_t j = 0; j < 2 * kBlock; ++j) expMax.ptr_[2 * at + j] = FromF<half>(em[j % kBlock]);
        }
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

// ---- LogSoftMax (LogSoftMax.md) ---------------------------------------------------------------
// log10 of SoftMax's quotient, each row in CANN's steps (logsoftmax_common_impl.h): SoftMax's
// max, exp and sum, the division, then Ln and a multiplication by log10(e) in float.
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void LogSoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sum, const LocalTensor<T>& max,
                       const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                       const LogSoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    opgen_sim::softmax_detail::RunLog<T>(dst, sum, max, src, sharedTmpBuffer, tiling, softmaxShapeInfo,
                                         isDataFormatNZ);
}

// ---- SoftmaxGrad / SoftmaxGradFront (SoftmaxGrad.md, SoftmaxGradFront.md) ---------------------
// sum = rowsum(grad * src); SoftmaxGrad's dst = (grad - sum) * src, or with isFront the sums, one
// 32-byte block a row (SoftmaxGradFront's dst).
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                        const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, bool isFront = false,
                        const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    opgen_sim::softmax_detail::RunGrad<T>("SoftmaxGrad", dstTensor, gradTensor, srcTensor, nullptr, tiling, isFront,
                                          false, softmaxShapeInfo, isDataFormatNZ);
}
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                        const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                        const SoftMaxTiling& tiling, bool isFront = false,
                        const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    opgen_sim::softmax_detail::RunGrad<T>("SoftmaxGrad", dstTensor, gradTensor, srcTensor, &sharedTmpBuffer, tiling,
                                          isFront, false, softmaxShapeInfo, isDataFormatNZ);
}
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
inline void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                             const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                             const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    opgen_sim::softmax_detail::RunGrad<T>("SoftmaxGradFront", dstTensor, gradTensor, srcTensor, nullptr, tiling, true,
                                          isBasicBlock, softmaxShapeInfo, isDataFormatNZ);
}
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
inline void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                             const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                             const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    opgen_sim::softmax_detail::RunGrad<T>("SoftmaxGradFront", dstTensor, gradTensor, srcTensor, &sharedTmpBuffer,
                                          tiling, true, isBasicBlock, softmaxShapeInfo, isDataFormatNZ);
}

// ---- SoftmaxFlashV2 (SoftmaxFlashV2.md) -------------------------------------------------------
// The kernel-side tiling function: CANN's SoftMaxFlashV2TilingFuncImpl for the ND format,
// localWorkSpaceSize in bytes (the NZ and output-without-broadcast plans are not modelled).
constexpr SoftMaxTiling SoftMaxFlashV2TilingFunc(const SoftMaxShapeInfo& shapeInfo, const uint32_t dataTypeSize1,
                                                 const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                                 const bool isUpdate = false, const bool isBasicBlock = false,
                                                 const bool isDataFormatNZ = false,
                                                 const bool isFlashOutputBrc = false) {
    (void)isUpdate;
    (void)isDataFormatNZ;
    (void)isFlashOutputBrc;
    SoftMaxTiling t;
    if (dataTypeSize2 == 0) return t;
    const uint32_t m = shapeInfo.srcM, k = shapeInfo.srcK, perBlock = 32 / dataTypeSize2;
    const uint32_t rows = opgen_sim::softmax_detail::FlashV2Rows(m, k, dataTypeSize1, dataTypeSize2,
                                                                 localWorkSpaceSize / 4, isBasicBlock);
    t.srcM = m;
    t.srcK = k;
    t.srcSize = m * k;
    t.outMaxM = m;
    t.outMaxK = perBlock;
    t.outMaxSize = m * perBlock;
    t.reduceM = rows;
    t.reduceK = perBlock;
    t.reduceSize = rows * perBlock;
    t.splitM = rows;
    t.splitK = k;
    t.splitSize = rows * k;
    t.rangeM = rows == 0 ? 0 : m / rows;
    t.tailM = rows == 0 ? 0 : m % rows;
    t.tailSplitSize = t.tailM * k;
    t.tailReduceSize = t.tailM * perBlock;
    return t;
}

template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                           const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                           const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                           const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    opgen_sim::softmax_detail::RunFlashV2<T, T, isUpdate, isBasicBlock, config>(
        dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, nullptr, tiling,
        softmaxShapeInfo, isDataFormatNZ);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                           const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                           const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                           const LocalTensor<float>& inMaxTensor, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    opgen_sim::softmax_detail::RunFlashV2<half, float, isUpdate, isBasicBlock, config>(
        dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, nullptr, tiling,
        softmaxShapeInfo, isDataFormatNZ);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                           const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                           const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                           const LocalTensor<T>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                           const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    opgen_sim::softmax_detail::RunFlashV2<T, T, isUpdate, isBasicBlock, config>(
        dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, &sharedTmpBuffer,
        tiling, softmaxShapeInfo, isDataFormatNZ);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                           const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                           const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                           const LocalTensor<float>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                           const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    opgen_sim::softmax_detail::RunFlashV2<half, float, isUpdate, isBasicBlock, config>(
        dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, &sharedTmpBuffer,
        tiling, softmaxShapeInfo, isDataFormatNZ);
}
// ---- SoftmaxFlashV3 (SoftmaxFlashV3.md): T half, U float --------------------------------------
namespace softmax_detail_v3 {
template <typename T, typename U, bool isReuseSource, bool isBasicBlock, bool isDataFormatNZ,
          const SoftmaxConfig& config>
constexpr void CheckFlashV3Template() {
    static_assert(std::is_same_v<T, half> && std::is_same_v<U, float>,
                  "SoftmaxFlashV3: T must be half and U float (SoftmaxFlashV3.md)");
    static_assert(!isReuseSource && !isBasicBlock && !isDataFormatNZ,
                  "SoftmaxFlashV3: isReuseSource, isBasicBlock and isDataFormatNZ are reserved and must stay false "
                  "(SoftmaxFlashV3.md)");
    static_assert(config.mode == SoftmaxMode::SOFTMAX_NORMAL,
                  "SoftmaxFlashV3: config is reserved; use SOFTMAX_DEFAULT_CFG (SoftmaxFlashV3.md)");
}
}  // namespace softmax_detail_v3

template <typename T, typename U, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV3(const LocalTensor<T>& dstTensor, const LocalTensor<U>& meanTensor,
                           const LocalTensor<U>& expSumTensor, const LocalTensor<U>& maxTensor,
                           const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
                           const LocalTensor<U>& inMeanTensor, const LocalTensor<U>& inExpSumTensor,
                           const LocalTensor<U>& inMaxTensor, const SoftMaxTiling& tiling, const SoftMaxParams& params) {
    softmax_detail_v3::CheckFlashV3Template<T, U, isReuseSource, isBasicBlock, isDataFormatNZ, config>();
    opgen_sim::softmax_detail::RunFlashV3<isUpdate>(dstTensor, meanTensor, expSumTensor, maxTensor, srcTensor,
                                                    expMaxTensor, inMeanTensor, inExpSumTensor, inMaxTensor, nullptr,
                                                    tiling, params);
}
template <typename T, typename U, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV3(const LocalTensor<T>& dstTensor, const LocalTensor<U>& meanTensor,
                           const LocalTensor<U>& expSumTensor, const LocalTensor<U>& maxTensor,
                           const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
                           const LocalTensor<U>& inMeanTensor, const LocalTensor<U>& inExpSumTensor,
                           const LocalTensor<U>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                           const SoftMaxTiling& tiling, const SoftMaxParams& params) {
    softmax_detail_v3::CheckFlashV3Template<T, U, isReuseSource, isBasicBlock, isDataFormatNZ, config>();
    opgen_sim::softmax_detail::RunFlashV3<isUpdate>(dstTensor, meanTensor, expSumTensor, maxTensor, srcTensor,
                                                    expMaxTensor, inMeanTensor, inExpSumTensor, inMaxTensor,
                                                    &sharedTmpBuffer, tiling, params);
}

// The forms with outReduceMax: CANN runs them only in SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC
// (SoftmaxFlashV2.md, 约束说明: in SOFTMAX_NORMAL they write nothing), which is not simulated.
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& outReduceMax,
                           const LocalTensor<T>& outExpSum, const LocalTensor<T>& outMax,
                           const LocalTensor<T>& srcTensor, const LocalTensor<T>& outExpMax,
                           const LocalTensor<T>& inExpSum, const LocalTensor<T>& inMax, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    if (config.mode == SoftmaxMode::SOFTMAX_NORMAL) return;
    opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "SoftmaxFlashV2",
                    "the form with outReduceMax (SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC) is not simulated");
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& outReduceMax,
                           const LocalTensor<T>& outExpSum, const LocalTensor<T>& outMax,
                           const LocalTensor<T>& srcTensor, const LocalTensor<T>& outExpMax,
                           const LocalTensor<T>& inExpSum, const LocalTensor<T>& inMax,
                           const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    if (config.mode == SoftmaxMode::SOFTMAX_NORMAL) return;
    opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "SoftmaxFlashV2",
                    "the form with outReduceMax (SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC) is not simulated");
}

}  // namespace AscendC
