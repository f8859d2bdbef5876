// opgen host runtime: the host side of the SoftMax family of advanced APIs, as CANN's
// adv_api/activation/softmax_tiling.h and logsoftmax_tiling.h declare it (tiling/tiling_api.h
// includes this): the tiling classes optiling::SoftMaxTiling and optiling::LogSoftMaxTiling;
// GetSoftMaxMaxTmpSize / GetSoftMaxMinTmpSize, SoftMaxTilingFunc and IsBasicBlockInSoftMax (SoftMax,
// SimpleSoftMax); GetLogSoftMaxMaxTmpSize / GetLogSoftMaxMinTmpSize and LogSoftMaxTilingFunc;
// GetSoftMaxGradMaxTmpSize / GetSoftMaxGradMinTmpSize and SoftMaxGradTilingFunc (SoftmaxGrad,
// SoftmaxGradFront); GetSoftMaxFlashV2MaxTmpSize / GetSoftMaxFlashV2MinTmpSize and
// SoftMaxFlashV2TilingFunc; GetSoftMaxFlashV3MaxMinTmpSize and SoftMaxFlashV3TilingFunc (its A2/A3
// row: 5 blocks of 8 floats + 2 k + 64 floats). Each tiling function comes in its optiling:: and
// AscendC::tiling:: form.
//
// The figures follow asc-devkit's host implementation (impl/adv_api/tiling/activation/
// softmax_tiling.cpp, logsoftmax_tiling.cpp) for the simulated SoCs (the A2/A3 and 310P
// architectures, which share the rule; the Ascend 950's other rule is not modelled): the shape is
// [m, k] with k the last dimension and m the product of the others. SoftMax and LogSoftMax: a row
// needs (32 / dataTypeSize + k + 64) floats of sharedTmpBuffer (its max/sum block, a float copy of
// the row, one 256-byte repeat of partial reductions); the minimum is one row, the maximum all m
// rows; the tiling plans as many rows a pass (splitM) as localWorkSpaceSize holds, a multiple of 8
// where fewer than m, and for a basic-block shape (m a multiple of 8, k of 64) a divisor of m
// below 64 * 256 elements. SoftmaxGrad's row is (2 blocks + k + 64) floats for a float source
// ((1 block + k + 64) with isFront), (2 blocks + 3 k + 64) for half; SoftmaxFlashV2's row is
// (1 block + 64) floats for float and (2 blocks + k + 64) for half, its basic-block form 8 rows of
// (1 block [+ k for half] + 64, or + 128 where k is 1024). dataTypeSize (dataTypeSize2 for
// SoftmaxFlashV2) is the size of the max and sum elements and decides the block.
// A bad argument (typeSize not 2 or 4, an empty shape) prints an error and returns 0 / leaves
// the tiling unfilled, where CANN logs and returns; a last dimension that is not 32-byte aligned
// is reported and planned anyway, as CANN does. LogSoftMax's functions, which CANN does not stop
// on a typeSize other than 2 or 4, report it and plan with it (0 returns 0).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
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

BEGIN_TILING_DATA_DEF(SoftMaxTiling)
TILING_DATA_FIELD_DEF(uint32_t, srcM);
TILING_DATA_FIELD_DEF(uint32_t, srcK);
TILING_DATA_FIELD_DEF(uint32_t, srcSize);
TILING_DATA_FIELD_DEF(uint32_t, outMaxM);
TILING_DATA_FIELD_DEF(uint32_t, outMaxK);
TILING_DATA_FIELD_DEF(uint32_t, outMaxSize);
TILING_DATA_FIELD_DEF(uint32_t, splitM);
TILING_DATA_FIELD_DEF(uint32_t, splitK);
TILING_DATA_FIELD_DEF(uint32_t, splitSize);
TILING_DATA_FIELD_DEF(uint32_t, reduceM);
TILING_DATA_FIELD_DEF(uint32_t, reduceK);
TILING_DATA_FIELD_DEF(uint32_t, reduceSize);
TILING_DATA_FIELD_DEF(uint32_t, rangeM);
TILING_DATA_FIELD_DEF(uint32_t, tailM);
TILING_DATA_FIELD_DEF(uint32_t, tailSplitSize);
TILING_DATA_FIELD_DEF(uint32_t, tailReduceSize);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(LogSoftMaxTiling)
TILING_DATA_FIELD_DEF(uint32_t, srcM);
TILING_DATA_FIELD_DEF(uint32_t, srcK);
TILING_DATA_FIELD_DEF(uint32_t, srcSize);
TILING_DATA_FIELD_DEF(uint32_t, outMaxM);
TILING_DATA_FIELD_DEF(uint32_t, outMaxK);
TILING_DATA_FIELD_DEF(uint32_t, outMaxSize);
TILING_DATA_FIELD_DEF(uint32_t, splitM);
TILING_DATA_FIELD_DEF(uint32_t, splitK);
TILING_DATA_FIELD_DEF(uint32_t, splitSize);
TILING_DATA_FIELD_DEF(uint32_t, reduceM);
TILING_DATA_FIELD_DEF(uint32_t, reduceK);
TILING_DATA_FIELD_DEF(uint32_t, reduceSize);
TILING_DATA_FIELD_DEF(uint32_t, rangeM);
TILING_DATA_FIELD_DEF(uint32_t, tailM);
TILING_DATA_FIELD_DEF(uint32_t, tailSplitSize);
TILING_DATA_FIELD_DEF(uint32_t, tailReduceSize);
END_TILING_DATA_DEF;

}  // namespace optiling

namespace AscendC {
namespace softmax_host_detail {

constexpr uint32_t kBlockBytes = 32;
constexpr uint32_t kFloatBytes = 4;
constexpr uint32_t kRepeatFloats = 64;      // one 256-byte repeat of floats per row
constexpr uint32_t kRowsUnit = 8;           // rows of one 32-byte block of floats
constexpr uint32_t kBasicMaxElems = 64 * 256;  // a basic-block pass stays below this many elements

using AscendC::math_tmp_detail::Log;

// [m, k]: k the last dimension, m the product of the others (0 when the shape holds nothing).
struct Rows {
    uint32_t m = 0;
    uint32_t k = 0;
};

// CANN's argument checks: an empty shape and a typeSize other than 2 or 4 end the call; a last
// dimension that is not 32-byte aligned is reported only.
inline bool Check(const char* api, const ge::Shape& shape, uint32_t typeSize, Rows& rows) {
    const int64_t size = shape.GetShapeSize();
    if (size <= 0) {
        Log(opgen_host::kLogError, api, "the input srcShape holds no element; its size must be greater than 0");
        return false;
    }
    if (typeSize != 2 && typeSize != 4) {
        Log(opgen_host::kLogError, api,
            "dataTypeSize is " + std::to_string(typeSize) + ", should be 2 (half) or 4 (float)");
        return false;
    }
    const int64_t k = shape.GetDim(shape.GetDimNum() - 1);
    if (k <= 0 || (static_cast<uint64_t>(k) * typeSize) % kBlockBytes != 0) {
        Log(opgen_host::kLogError, api,
            "the last dimension " + std::to_string(k) + " of " + std::to_string(typeSize) +
                "-byte elements is not 32-byte aligned");
        if (k <= 0) return false;
    }
    rows.k = static_cast<uint32_t>(k);
    rows.m = static_cast<uint32_t>(size / k);
    return true;
}

inline uint32_t RowFloats(const Rows& r, uint32_t typeSize) {
    return kBlockBytes / typeSize + r.k + kRepeatFloats;
}

// CANN's AdjustToBasicBlockBaseM: for a basic-block shape, whole passes of a multiple of 8 rows
// dividing m, each below 64 * 256 elements (a vector instruction repeats at most 255 times).
inline void AdjustToBasicBlock(uint32_t& rows, const Rows& r) {
    if (rows > kRowsUnit && r.m % kRowsUnit == 0 && r.k % kRepeatFloats == 0) {
        rows = rows / kRowsUnit * kRowsUnit;
        while (r.m % rows != 0) rows -= kRowsUnit;
        while (rows * r.k >= kBasicMaxElems) rows /= 2;
    }
}

// The fields of a plan of `rows` rows a pass over [m, k] with max/sum blocks of perBlock elements
// (every SoftMax-family tiling function fills them the same way); rangeM stays unset when no row
// fits, as CANN's functions leave it.
template <typename Tiling>
inline void Fill(Tiling& t, const Rows& r, uint32_t rows, uint32_t perBlock) {
    t.set_srcM(r.m);
    t.set_srcK(r.k);
    t.set_srcSize(r.m * r.k);
    t.set_outMaxM(r.m);
    t.set_outMaxK(perBlock);
    t.set_outMaxSize(r.m * perBlock);
    t.set_splitM(rows);
    t.set_splitK(r.k);
    t.set_splitSize(rows * r.k);
    t.set_reduceM(rows);
    t.set_reduceK(perBlock);
    t.set_reduceSize(rows * perBlock);
    const uint32_t tail = rows == 0 ? 0 : r.m % rows;
    if (rows != 0) t.set_rangeM(r.m / rows);
    t.set_tailM(tail);
    t.set_tailSplitSize(tail * r.k);
    t.set_tailReduceSize(tail * perBlock);
}

inline void NoRowFits(const char* api, const Rows& r, uint32_t bytes, uint32_t rowBytes) {
    Log(opgen_host::kLogError, api,
        "localWorkSpaceSize " + std::to_string(bytes) + " holds no row of [" + std::to_string(r.m) + ", " +
            std::to_string(r.k) + "] (" + std::to_string(rowBytes) + " bytes a row)");
}

// The rows a pass of SoftMax's (and LogSoftMax's) tiling takes: as many as the workspace holds,
// at most all of them, a multiple of 8 when more than 8 and not all, then the basic-block rule.
inline uint32_t PlanRows(const char* api, const Rows& r, uint32_t dataTypeSize, uint32_t localWorkSpaceSize) {
    const uint32_t rowFloats = RowFloats(r, dataTypeSize);
    uint32_t rows = std::min(localWorkSpaceSize / kFloatBytes / rowFloats, r.m);
    if (rows == 0) NoRowFits(api, r, localWorkSpaceSize, rowFloats * kFloatBytes);
    if (rows < r.m && rows > kRowsUnit) rows = rows / kRowsUnit * kRowsUnit;
    AdjustToBasicBlock(rows, r);
    return rows;
}

// SoftmaxFlashV2's second type size (the max/sum/expMax type): 2 or 4, else an error.
inline bool CheckSecond(const char* api, uint32_t typeSize) {
    if (typeSize == 2 || typeSize == 4) return true;
    Log(opgen_host::kLogError, api,
        "dataTypeSize2 is " + std::to_string(typeSize) + ", should be 2 (half) or 4 (float)");
    return false;
}

// SoftmaxFlashV2's floats a row (the basic-block form: per row of its 8-row minimum; k = 1024
// reduces through a second repeat's worth).
inline uint32_t FlashV2RowFloats(const Rows& r, uint32_t size1, uint32_t size2, bool basic) {
    const uint32_t perBlock = kBlockBytes / size2;
    if (basic) {
        const uint32_t lanes = r.k == 1024 ? 2 * kRepeatFloats : kRepeatFloats;
        return perBlock + (size1 == 2 ? r.k : 0) + lanes;
    }
    return size1 == 2 ? 2 * perBlock + r.k + kRepeatFloats : perBlock + kRepeatFloats;
}

// SoftmaxGrad's floats a row: the float product of a row and its sum blocks, and one repeat.
inline uint32_t GradRowFloats(const Rows& r, uint32_t typeSize, bool isFront) {
    const uint32_t perBlock = kBlockBytes / typeSize;
    if (typeSize == 2) return 2 * perBlock + 3 * r.k + kRepeatFloats;
    return (isFront ? perBlock : 2 * perBlock) + r.k + kRepeatFloats;
}

}  // namespace softmax_host_detail

inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                     const bool isReuseSource) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "GetSoftMaxMaxTmpSize";
    if (isReuseSource) d::Log(opgen_host::kLogWarn, api, "isReuseSource is true, which has no effect");
    d::Rows r;
    if (!d::Check(api, srcShape, dataTypeSize, r)) return 0;
    return r.m * d::RowFloats(r, dataTypeSize) * d::kFloatBytes;
}

inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                     const bool isReuseSource) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "GetSoftMaxMinTmpSize";
    if (isReuseSource) d::Log(opgen_host::kLogWarn, api, "isReuseSource is true, which has no effect");
    d::Rows r;
    if (!d::Check(api, srcShape, dataTypeSize, r)) return 0;
    return d::RowFloats(r, dataTypeSize) * d::kFloatBytes;
}

inline void SoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                              const uint32_t localWorkSpaceSize, optiling::SoftMaxTiling& softmaxTiling) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "SoftMaxTilingFunc";
    d::Rows r;
    if (!d::Check(api, srcShape, dataTypeSize, r)) return;
    if (localWorkSpaceSize == 0) {
        d::Log(opgen_host::kLogError, api, "localWorkSpaceSize is 0; it must be greater than 0");
        return;
    }
    d::Fill(softmaxTiling, r, d::PlanRows(api, r, dataTypeSize, localWorkSpaceSize), d::kBlockBytes / dataTypeSize);
}

inline void SoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                              const uint32_t localWorkSpaceSize, AscendC::tiling::SoftMaxTiling& softmaxTiling) {
    optiling::SoftMaxTiling data;
    SoftMaxTilingFunc(srcShape, dataTypeSize, localWorkSpaceSize, data);
    data.SaveToBuffer(&softmaxTiling, sizeof(softmaxTiling));
}

// Whether the kernel may take its basic-block path with this tiling (SoftMax.md, isBasicBlock):
// no tail pass, k a multiple of 64 in [256 / dataTypeSize, 2048).
inline bool IsBasicBlockInSoftMax(optiling::SoftMaxTiling& tiling, const uint32_t dataTypeSize = 2) {
    if (dataTypeSize == 0) return false;
    const uint32_t k = tiling.get_srcK();
    return tiling.get_tailM() == 0 && k >= 256 / dataTypeSize && k < 2048 && k % 64 == 0;
}

inline bool IsBasicBlockInSoftMax(AscendC::tiling::SoftMaxTiling& tiling, const uint32_t dataTypeSize = 2) {
    if (dataTypeSize == 0) return false;
    const uint32_t k = tiling.srcK;
    return tiling.tailM == 0 && k >= 256 / dataTypeSize && k < 2048 && k % 64 == 0;
}

// ---- LogSoftMax (logsoftmax_tiling.cpp) ------------------------------------------------------
namespace softmax_host_detail {

// LogSoftMax's checks: CANN logs a typeSize other than 2 or 4 and goes on with it; a size of 0
// (no block) and an empty shape end the call.
inline bool CheckLog(const char* api, const ge::Shape& shape, uint32_t typeSize, Rows& rows) {
    if (typeSize == 2 || typeSize == 4) return Check(api, shape, typeSize, rows);
    Log(opgen_host::kLogError, api,
        "dataTypeSize is " + std::to_string(typeSize) + ", should be 2 (half) or 4 (float)");
    if (typeSize == 0) return false;
    return Check(api, shape, 4, rows);
}

}  // namespace softmax_host_detail

inline uint32_t GetLogSoftMaxMaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                        const bool isReuseSource) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "GetLogSoftMaxMaxTmpSize";
    if (isReuseSource) d::Log(opgen_host::kLogWarn, api, "isReuseSource is true, which has no effect");
    d::Rows r;
    if (!d::CheckLog(api, srcShape, dataTypeSize, r)) return 0;
    return r.m * d::RowFloats(r, dataTypeSize) * d::kFloatBytes;
}

inline uint32_t GetLogSoftMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                        const bool isReuseSource) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "GetLogSoftMaxMinTmpSize";
    if (isReuseSource) d::Log(opgen_host::kLogWarn, api, "isReuseSource is true, which has no effect");
    d::Rows r;
    if (!d::CheckLog(api, srcShape, dataTypeSize, r)) return 0;
    return d::RowFloats(r, dataTypeSize) * d::kFloatBytes;
}

// CANN's kernel re-plans LogSoftMax's passes from sharedTmpBuffer and reads none of these fields;
// they are SoftMaxTilingFunc's for the same arguments.
inline void LogSoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                 const uint32_t localWorkSpaceSize, optiling::LogSoftMaxTiling& softmaxTiling) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "LogSoftMaxTilingFunc";
    d::Rows r;
    if (!d::CheckLog(api, srcShape, dataTypeSize, r)) return;
    if (localWorkSpaceSize == 0) {
        d::Log(opgen_host::kLogError, api, "localWorkSpaceSize is 0; it must be greater than 0");
        return;
    }
    d::Fill(softmaxTiling, r, d::PlanRows(api, r, dataTypeSize, localWorkSpaceSize), d::kBlockBytes / dataTypeSize);
}

inline void LogSoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                 const uint32_t localWorkSpaceSize, AscendC::tiling::LogSoftMaxTiling& softmaxTiling) {
    optiling::LogSoftMaxTiling data;
    LogSoftMaxTilingFunc(srcShape, dataTypeSize, localWorkSpaceSize, data);
    data.SaveToBuffer(&softmaxTiling, sizeof(softmaxTiling));
}

// ---- SoftmaxGrad / SoftmaxGradFront -----------------------------------------------------------
inline uint32_t GetSoftMaxGradMaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isFront,
                                         const bool isReuseSource) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "GetSoftMaxGradMaxTmpSize";
    if (isReuseSource) d::Log(opgen_host::kLogWarn, api, "isReuseSource is true, which has no effect");
    d::Rows r;
    if (!d::Check(api, srcShape, dataTypeSize, r)) return 0;
    return r.m * d::GradRowFloats(r, dataTypeSize, isFront) * d::kFloatBytes;
}

inline uint32_t GetSoftMaxGradMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isFront,
                                         const bool isReuseSource) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "GetSoftMaxGradMinTmpSize";
    if (isReuseSource) d::Log(opgen_host::kLogWarn, api, "isReuseSource is true, which has no effect");
    d::Rows r;
    if (!d::Check(api, srcShape, dataTypeSize, r)) return 0;
    return d::GradRowFloats(r, dataTypeSize, isFront) * d::kFloatBytes;
}

inline void SoftMaxGradTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                  const uint32_t localWorkSpaceSize, optiling::SoftMaxTiling& softmaxGradTiling,
                                  const bool isFront = false) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "SoftMaxGradTilingFunc";
    d::Rows r;
    if (!d::Check(api, srcShape, dataTypeSize, r)) return;
    if (localWorkSpaceSize == 0) {
        d::Log(opgen_host::kLogError, api, "localWorkSpaceSize is 0; it must be greater than 0");
        return;
    }
    const uint32_t rowFloats = d::GradRowFloats(r, dataTypeSize, isFront);
    uint32_t rows = std::min(localWorkSpaceSize / d::kFloatBytes / rowFloats, r.m);
    if (rows == 0) d::NoRowFits(api, r, localWorkSpaceSize, rowFloats * d::kFloatBytes);
    if (rows < r.m && rows > d::kRowsUnit) rows = rows / d::kRowsUnit * d::kRowsUnit;
    d::AdjustToBasicBlock(rows, r);
    d::Fill(softmaxGradTiling, r, rows, d::kBlockBytes / dataTypeSize);
}

inline void SoftMaxGradTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                  const uint32_t localWorkSpaceSize, AscendC::tiling::SoftMaxTiling& softmaxGradTiling,
                                  const bool isFront = false) {
    optiling::SoftMaxTiling data;
    SoftMaxGradTilingFunc(srcShape, dataTypeSize, localWorkSpaceSize, data, isFront);
    data.SaveToBuffer(&softmaxGradTiling, sizeof(softmaxGradTiling));
}

// ---- SoftmaxFlashV2 ----------------------------------------------------------------------------
// isUpdate changes nothing on the simulated SoCs (CANN's rule differs only on the Ascend 950).
// isFlashOutputBrc (the output mode without broadcast) scales the minimum to a block of the source
// type's rows, as CANN's does; the kernel side of that mode is not simulated.
inline uint32_t GetSoftMaxFlashV2MaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize1,
                                            const uint32_t dataTypeSize2, const bool isUpdate,
                                            const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "GetSoftMaxFlashV2MaxTmpSize";
    (void)isUpdate;
    (void)isFlashOutputBrc;
    d::Rows r;
    if (!d::Check(api, srcShape, dataTypeSize1, r) || !d::CheckSecond(api, dataTypeSize2)) return 0;
    const bool basic = isBasicBlock && r.k % d::kRepeatFloats == 0 && r.m % d::kRowsUnit == 0;
    uint32_t m = r.m;
    if (basic) {
        while (m * r.k >= d::kBasicMaxElems) m /= 2;  // the rows one pass may hold
    }
    return m * d::FlashV2RowFloats(r, dataTypeSize1, dataTypeSize2, basic) * d::kFloatBytes;
}

inline uint32_t GetSoftMaxFlashV2MinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize1,
                                            const uint32_t dataTypeSize2, const bool isUpdate,
                                            const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "GetSoftMaxFlashV2MinTmpSize";
    (void)isUpdate;
    d::Rows r;
    if (!d::Check(api, srcShape, dataTypeSize1, r) || !d::CheckSecond(api, dataTypeSize2)) return 0;
    const bool basic = isBasicBlock && r.k % d::kRepeatFloats == 0;  // CANN's minimum does not ask m
    uint32_t need = d::FlashV2RowFloats(r, dataTypeSize1, dataTypeSize2, basic) * (basic ? d::kRowsUnit : 1);
    if (isFlashOutputBrc) {
        const uint32_t rows = std::min(d::kBlockBytes / dataTypeSize1, r.m);
        need = basic ? need / d::kRowsUnit * rows : need * rows;
    }
    return need * d::kFloatBytes;
}

inline void SoftMaxFlashV2TilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                     optiling::SoftMaxTiling& softmaxFlashTiling, const bool isUpdate,
                                     const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "SoftMaxFlashV2TilingFunc";
    (void)isUpdate;
    d::Rows r;
    if (!d::Check(api, srcShape, dataTypeSize1, r) || !d::CheckSecond(api, dataTypeSize2)) return;
    if (localWorkSpaceSize == 0) {
        d::Log(opgen_host::kLogError, api, "localWorkSpaceSize is 0; it must be greater than 0");
        return;
    }
    const bool basic = isBasicBlock && r.k % d::kRepeatFloats == 0 && r.m % d::kRowsUnit == 0;
    const uint32_t rowFloats = d::FlashV2RowFloats(r, dataTypeSize1, dataTypeSize2, basic);
    uint32_t rows = localWorkSpaceSize / d::kFloatBytes / rowFloats;
    if (basic) {
        rows = std::min(rows, r.m);
        d::AdjustToBasicBlock(rows, r);
    }
    // the output mode without broadcast plans in blocks of the source type's rows
    const uint32_t unit = isFlashOutputBrc && dataTypeSize1 == 2 ? d::kBlockBytes / 2 : d::kRowsUnit;
    rows = std::min(rows, r.m);
    if (rows == 0) d::NoRowFits(api, r, localWorkSpaceSize, rowFloats * d::kFloatBytes);
    if (rows < r.m && rows > unit) rows = rows / unit * unit;
    d::Fill(softmaxFlashTiling, r, rows, d::kBlockBytes / dataTypeSize2);
    if (isFlashOutputBrc && rows != 0 && (r.m / rows > 1 || r.m % rows != 0) &&
        rows % (d::kBlockBytes / dataTypeSize1) != 0) {
        d::Log(opgen_host::kLogError, api,
               "with isFlashOutputBrc the rows a pass (" + std::to_string(rows) + ") must be a multiple of " +
                   std::to_string(d::kBlockBytes / dataTypeSize1) + "; adjust localWorkSpaceSize");
    }
}

inline void SoftMaxFlashV2TilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                     AscendC::tiling::SoftMaxTiling& softmaxFlashTiling, const bool isUpdate,
                                     const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    optiling::SoftMaxTiling data;
    SoftMaxFlashV2TilingFunc(srcShape, dataTypeSize1, dataTypeSize2, localWorkSpaceSize, data, isUpdate,
                             isBasicBlock, isFlashOutputBrc);
    data.SaveToBuffer(&softmaxFlashTiling, sizeof(softmaxFlashTiling));
}

// ---- SoftmaxFlashV3 (SoftmaxFlashV3-Tiling接口.md) ---------------------------------------------
// The A2/A3 rule of CANN's softmax_tiling.cpp: a row takes 5 blocks of 8 floats, 2 rows of srcK
// floats and one repeat of 64 floats; the minimum is one row, the maximum all of them; T half and U
// float only (dataTypeSize1 2, dataTypeSize2 4: other sizes log an error and set nothing).
namespace softmax_host_detail {
inline uint32_t FlashV3RowFloats(const Rows& r) { return 5 * kRowsUnit + 2 * r.k + kRepeatFloats; }
inline bool CheckV3(const char* api, const ge::Shape& shape, uint32_t size1, uint32_t size2, Rows& r) {
    if (!Check(api, shape, size1, r)) return false;
    if (size1 != 2 || size2 != 4) {
        Log(opgen_host::kLogError, api,
            "dataTypeSize1 is " + std::to_string(size1) + " and dataTypeSize2 " + std::to_string(size2) +
                "; SoftmaxFlashV3 takes half (2) and float (4)");
        return false;
    }
    return true;
}
}  // namespace softmax_host_detail

inline void GetSoftMaxFlashV3MaxMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize1,
                                           const uint32_t dataTypeSize2, uint32_t& maxValue, uint32_t& minValue,
                                           const bool isUpdate, const bool isBasicBlock = false) {
    namespace d = softmax_host_detail;
    (void)isUpdate;
    (void)isBasicBlock;
    d::Rows r;
    if (!d::CheckV3("GetSoftMaxFlashV3MaxMinTmpSize", srcShape, dataTypeSize1, dataTypeSize2, r)) return;
    minValue = d::FlashV3RowFloats(r) * d::kFloatBytes;
    maxValue = r.m * minValue;
}

inline void SoftMaxFlashV3TilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                     optiling::SoftMaxTiling& softmaxFlashV3Tiling, const bool isUpdate,
                                     const bool isBasicBlock = false) {
    namespace d = softmax_host_detail;
    constexpr const char* api = "SoftMaxFlashV3TilingFunc";
    (void)isUpdate;
    (void)isBasicBlock;
    d::Rows r;
    if (!d::CheckV3(api, srcShape, dataTypeSize1, dataTypeSize2, r)) return;
    if (localWorkSpaceSize == 0) {
        d::Log(opgen_host::kLogError, api, "localWorkSpaceSize is 0; it must be greater than 0");
        return;
    }
    const uint32_t rowFloats = d::FlashV3RowFloats(r);
    uint32_t rows = std::min(localWorkSpaceSize / d::kFloatBytes / rowFloats, r.m);
    if (rows == 0) d::NoRowFits(api, r, localWorkSpaceSize, rowFloats * d::kFloatBytes);
    if (rows < r.m && rows > d::kRowsUnit) rows = rows / d::kRowsUnit * d::kRowsUnit;
    d::Fill(softmaxFlashV3Tiling, r, rows, d::kBlockBytes / dataTypeSize2);
}

inline void SoftMaxFlashV3TilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                     AscendC::tiling::SoftMaxTiling& softmaxFlashV3Tiling, const bool isUpdate,
                                     const bool isBasicBlock = false) {
    optiling::SoftMaxTiling data;
    SoftMaxFlashV3TilingFunc(srcShape, dataTypeSize1, dataTypeSize2, localWorkSpaceSize, data, isUpdate,
                             isBasicBlock);
    data.SaveToBuffer(&softmaxFlashV3Tiling, sizeof(softmaxFlashV3Tiling));
}

}  // namespace AscendC
