// opgen host runtime: the host side of the SoftMax advanced APIs (SoftMax, SimpleSoftMax), as
// CANN's adv_api/activation/softmax_tiling.h declares it (tiling/tiling_api.h includes this): the
// tiling class optiling::SoftMaxTiling, GetSoftMaxMaxTmpSize / GetSoftMaxMinTmpSize,
// SoftMaxTilingFunc (optiling:: and AscendC::tiling:: forms) and IsBasicBlockInSoftMax.
//
// The figures follow asc-devkit's host implementation (impl/adv_api/tiling/activation/
// softmax_tiling.cpp) for the simulated SoCs (the A2/A3 and 310P architectures, which share the
// rule): the shape is [m, k] with k the last dimension and m the product of the others; a row
// needs (32 / dataTypeSize + k + 64) floats of sharedTmpBuffer (its max/sum block, a float copy
// of the row, one 256-byte repeat of partial reductions). The minimum is one row, the maximum all
// m rows. SoftMaxTilingFunc plans as many rows a pass (splitM) as localWorkSpaceSize holds, a
// multiple of 8 where fewer than m, and for a basic-block shape (m a multiple of 8, k of 64) a
// divisor of m below 64 * 256 elements. dataTypeSize is the size of the max and sum elements.
// A bad argument (typeSize not 2 or 4, an empty shape) prints an error and returns 0 / leaves
// the tiling unfilled, where CANN logs and returns; a last dimension that is not 32-byte aligned
// is reported and planned anyway, as CANN does.
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
    const uint32_t perBlock = d::kBlockBytes / dataTypeSize;
    const uint32_t rowFloats = d::RowFloats(r, dataTypeSize);
    uint32_t rows = std::min(localWorkSpaceSize / d::kFloatBytes / rowFloats, r.m);
    if (rows == 0) {
        d::Log(opgen_host::kLogError, api,
               "localWorkSpaceSize " + std::to_string(localWorkSpaceSize) + " holds no row of [" +
                   std::to_string(r.m) + ", " + std::to_string(r.k) + "]; GetSoftMaxMinTmpSize gives " +
                   std::to_string(rowFloats * d::kFloatBytes));
    }
    if (rows < r.m && rows > d::kRowsUnit) rows = rows / d::kRowsUnit * d::kRowsUnit;
    // a basic-block shape: whole passes of a multiple of 8 rows, each below 64 * 256 elements
    if (rows > d::kRowsUnit && r.m % d::kRowsUnit == 0 && r.k % d::kRepeatFloats == 0) {
        rows = rows / d::kRowsUnit * d::kRowsUnit;
        while (r.m % rows != 0) rows -= d::kRowsUnit;
        while (rows * r.k >= d::kBasicMaxElems) rows /= 2;
    }
    softmaxTiling.set_srcM(r.m);
    softmaxTiling.set_srcK(r.k);
    softmaxTiling.set_srcSize(r.m * r.k);
    softmaxTiling.set_outMaxM(r.m);
    softmaxTiling.set_outMaxK(perBlock);
    softmaxTiling.set_outMaxSize(r.m * perBlock);
    softmaxTiling.set_splitM(rows);
    softmaxTiling.set_splitK(r.k);
    softmaxTiling.set_splitSize(rows * r.k);
    softmaxTiling.set_reduceM(rows);
    softmaxTiling.set_reduceK(perBlock);
    softmaxTiling.set_reduceSize(rows * perBlock);
    const uint32_t tail = rows == 0 ? 0 : r.m % rows;
    if (rows != 0) softmaxTiling.set_rangeM(r.m / rows);
    softmaxTiling.set_tailM(tail);
    softmaxTiling.set_tailSplitSize(tail * r.k);
    softmaxTiling.set_tailReduceSize(tail * perBlock);
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

}  // namespace AscendC
