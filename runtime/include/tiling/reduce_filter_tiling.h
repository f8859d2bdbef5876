// opgen host runtime: the host side of the reduce and filter advanced APIs the simulator runs
// (tiling/tiling_api.h includes this): ReducePattern; GetReduceMaxMaxMinTmpSize and
// GetReduceMinMaxMinTmpSize (ReduceMax-Tiling.md, ReduceMin-Tiling.md), GetReduceSumMaxMinTmpSize
// and GetReduceMeanMaxMinTmpSize (ops-nn's cross_entropy_loss tiling calls the first);
// GetSelectMaxMinTmpSize,
// GetSelectMinTmpSize, GetSelectMaxTmpSize and their GetSelectWithBytesMask* names (Select's byte
// mask form); GetDropOutMaxMinTmpSize, GetDropOutMinTmpSize, GetDropOutMaxTmpSize.
//
// The pages name the functions; the figures follow asc-devkit's A2/A3 host implementation
// (impl/adv_api/tiling/reduce/reduce_tiling.cpp, select/selectwithbytesmask_tiling_impl.cpp,
// filter/dropout_tiling_impl.cpp):
//   ReduceMax/Min [first, last] of T: 0 with isReuseSource; AR: 0 for last up to one 32-byte
//             block, first blocks below one 256-byte repeat, else first repeats; RA: k rows of
//             last rounded up to 32 bytes, k the largest power of two <= first (halved when first
//             is one). max = min.
//   ReduceSum/Mean [first, last] of float (the A2/A3 take no other type): 0 with
//             isReuseSource; AR: 0 for last up to one 256-byte repeat (64 floats), else first
//             times k floats, k the largest power of two <= last (halved when that is last and
//             first is not one); RA: k rows of last rounded up to 8 floats, k the largest power
//             of two <= first (halved when that is first and first is not one). max = min.
//   Select    max(1024, (the source's elements, at most 4096 for the minimum) rounded up to 32,
//             as halves, + 512), plus the source's mask bytes rounded up to 32 when the mask's
//             last axis differs and isReuseMask is false.
//   DropOut   min 512 (two 256-byte repeats); max 2 * the shape's elements * 4, at least 512.
// A bad argument (a type CANN's A2/A3 code rejects, a shape of the wrong rank or an empty axis,
// isSrcInnerPad false, a pattern other than AR/RA) is reported and leaves the outputs as they
// were; the functions returning a size return 0 then.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "../graph/tensor.h"
#include "../opgen_host/reduce_pattern.h"
#include "math_tmp_size.h"
#if defined(OPGEN_ASC_SOURCE)
#include "../opgen_host/host_log.h"
#else
#include "../opgen_host/tiling_def.h"
#endif

namespace AscendC {


namespace reduce_filter_host_detail {

constexpr uint32_t kBlock = 32;
constexpr uint32_t kRepeat = 256;

inline uint64_t Up(uint64_t v, uint64_t unit) { return (v + unit - 1) / unit * unit; }

inline bool ReduceCheck(const char* api, const ge::Shape& shape, ge::DataType dataType, ReducePattern pattern,
                        bool isSrcInnerPad, uint32_t& typeSize, uint32_t& first, uint32_t& last) {
    std::string error;
    if (dataType == ge::DT_FLOAT) {
        typeSize = 4;
    } else if (dataType == ge::DT_FLOAT16) {
        typeSize = 2;
    } else {
        error = "dataType " + std::to_string(static_cast<int>(dataType)) +
                " is not supported; the Atlas A2/A3 take DT_FLOAT and DT_FLOAT16";
    }
    if (error.empty() && shape.GetDimNum() != 2) {
        error = "srcShape has " + std::to_string(shape.GetDimNum()) + " dims; it must be 2 ([first, last])";
    } else if (error.empty() && (shape.GetDim(0) <= 0 || shape.GetDim(1) <= 0)) {
        error = "both axes of srcShape must be greater than 0";
    } else if (error.empty() && !isSrcInnerPad) {
        error = "isSrcInnerPad must be true on the Atlas A2/A3";
    } else if (error.empty() && pattern != ReducePattern::AR && pattern != ReducePattern::RA) {
        error = "pattern " + std::to_string(static_cast<uint32_t>(pattern)) + " is not supported; only AR and RA are";
    }
    if (!error.empty()) {
        math_tmp_detail::Report(api, error);
        return false;
    }
    first = static_cast<uint32_t>(shape.GetDim(0));
    last = static_cast<uint32_t>(shape.GetDim(1));
    return true;
}

// The largest power of two <= n, halved when that is n itself and first is not one: the rows or
// columns CANN's A2/A3 reduce trees fold first (asc-devkit's FindK and the halving after it).
inline uint64_t FoldWidth(uint32_t n, uint32_t first) {
    uint64_t k = 1;
    for (uint32_t m = n; m > 1; m >>= 1) k <<= 1;
    return k == n && first > 1 ? k >> 1 : k;
}

inline void ReduceExtremeSizes(const char* api, const ge::Shape& shape, ge::DataType dataType, ReducePattern pattern,
                               bool isSrcInnerPad, bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    uint32_t ts = 0, first = 0, last = 0;
    if (!ReduceCheck(api, shape, dataType, pattern, isSrcInnerPad, ts, first, last)) return;
    uint64_t v = 0;
    if (isReuseSource) {
        v = 0;
    } else if (pattern == ReducePattern::AR) {
        const uint32_t blk = kBlock / ts, rep = kRepeat / ts;
        v = last <= blk ? 0 : static_cast<uint64_t>(first) * (last < rep ? blk : rep) * ts;
    } else {
        v = FoldWidth(first, first) * Up(static_cast<uint64_t>(last) * ts, kBlock);
    }
    maxValue = minValue = static_cast<uint32_t>(v);
}

inline void ReduceSumMeanSizes(const char* api, const ge::Shape& shape, ge::DataType dataType,
                               ReducePattern pattern, bool isSrcInnerPad, bool isReuseSource,
                               uint32_t& maxValue, uint32_t& minValue) {
    if (dataType != ge::DT_FLOAT) {
        math_tmp_detail::Report(api, "dataType " + std::to_string(static_cast<int>(dataType)) +
                                         " is not supported; the Atlas A2/A3 take DT_FLOAT");
        return;
    }
    uint32_t ts = 0, first = 0, last = 0;
    if (!ReduceCheck(api, shape, dataType, pattern, isSrcInnerPad, ts, first, last)) return;
    uint64_t v = 0;
    if (isReuseSource) {
        v = 0;
    } else if (pattern == ReducePattern::AR) {
        v = last <= kRepeat / ts ? 0 : static_cast<uint64_t>(first) * FoldWidth(last, first) * ts;
    } else {
        v = FoldWidth(first, first) * Up(last, kBlock / ts) * ts;
    }
    maxValue = minValue = static_cast<uint32_t>(v);
}

inline bool SelectCheck(const char* api, const ge::Shape& src0Shape, const ge::Shape& src1Shape,
                        uint32_t srcTypeSize, const ge::Shape& maskShape, uint32_t maskTypeSize) {
    std::string error;
    if (srcTypeSize != 2 && srcTypeSize != 4) {
        error = "srcTypeSize is " + std::to_string(srcTypeSize) + ", should be 2 (half) or 4 (float)";
    } else if (maskTypeSize != 1 && maskTypeSize != 2 && maskTypeSize != 4) {
        error = "maskTypeSize is " + std::to_string(maskTypeSize) + ", should be 1, 2 or 4";
    } else if (src0Shape.GetDimNum() != 2 && src1Shape.GetDimNum() != 2) {
        error = "src0Shape has " + std::to_string(src0Shape.GetDimNum()) + " dims and src1Shape " +
                std::to_string(src1Shape.GetDimNum()) + "; one of them must have 2";
    } else if (maskShape.GetDimNum() != 2) {
        error = "maskShape has " + std::to_string(maskShape.GetDimNum()) + " dims; it must have 2";
    }
    if (error.empty()) return true;
    math_tmp_detail::Report(api, error);
    return false;
}

inline uint32_t SelectBytes(const ge::Shape& src0Shape, const ge::Shape& src1Shape, const ge::Shape& maskShape,
                            uint32_t maskTypeSize, bool isReuseMask, bool isMin) {
    const bool src0Scalar = src0Shape.GetDimNum() == 0 || src0Shape.GetShapeSize() == 1;
    const ge::Shape& s = src0Scalar ? src1Shape : src0Shape;
    const int64_t srcSize = s.GetShapeSize();
    const int64_t srcLast = s.GetDim(s.GetDimNum() - 1);
    const int64_t maskLast = maskShape.GetDim(maskShape.GetDimNum() - 1);
    const uint64_t cal = (isMin && srcSize > 4096) ? 4096 : static_cast<uint64_t>(srcSize);
    uint64_t need = std::max<uint64_t>(1024, Up(cal, kBlock) * 2 + 512);
    if (maskLast != srcLast && !isReuseMask && maskLast > 1) {
        need += Up(static_cast<uint64_t>(srcSize) * maskTypeSize, kBlock);
    }
    return static_cast<uint32_t>(need);
}

inline bool DropOutCheck(const char* api, const ge::Shape& srcShape, uint32_t typeSize) {
    std::string error;
    if (typeSize != 2 && typeSize != 4) {
        error = "typeSize is " + std::to_string(typeSize) + ", should be 2 (half) or 4 (float)";
    } else if (srcShape.GetDimNum() == 0) {
        error = "srcShape has no dims";
    }
    if (error.empty()) return true;
    math_tmp_detail::Report(api, error);
    return false;
}

}  // namespace reduce_filter_host_detail

// ---- ReduceMax / ReduceMin -----------------------------------------------------------------------
inline void GetReduceMaxMaxMinTmpSize(const ge::Shape& srcShape, const ge::DataType dataType, ReducePattern pattern,
                                      bool isSrcInnerPad, bool isReuseSource, uint32_t& maxValue,
                                      uint32_t& minValue) {
    reduce_filter_host_detail::ReduceExtremeSizes("GetReduceMaxMaxMinTmpSize", srcShape, dataType, pattern,
                                                  isSrcInnerPad, isReuseSource, maxValue, minValue);
}
inline void GetReduceMinMaxMinTmpSize(const ge::Shape& srcShape, const ge::DataType dataType, ReducePattern pattern,
                                      bool isSrcInnerPad, bool isReuseSource, uint32_t& maxValue,
                                      uint32_t& minValue) {
    reduce_filter_host_detail::ReduceExtremeSizes("GetReduceMinMaxMinTmpSize", srcShape, dataType, pattern,
                                                  isSrcInnerPad, isReuseSource, maxValue, minValue);
}

inline void GetReduceSumMaxMinTmpSize(const ge::Shape& srcShape, const ge::DataType dataType, ReducePattern pattern,
                                      bool isSrcInnerPad, bool isReuseSource, uint32_t& maxValue,
                                      uint32_t& minValue) {
    reduce_filter_host_detail::ReduceSumMeanSizes("GetReduceSumMaxMinTmpSize", srcShape, dataType, pattern,
                                                  isSrcInnerPad, isReuseSource, maxValue, minValue);
}
inline void GetReduceMeanMaxMinTmpSize(const ge::Shape& srcShape, const ge::DataType dataType, ReducePattern pattern,
                                       bool isSrcInnerPad, bool isReuseSource, uint32_t& maxValue,
                                       uint32_t& minValue) {
    reduce_filter_host_detail::ReduceSumMeanSizes("GetReduceMeanMaxMinTmpSize", srcShape, dataType, pattern,
                                                  isSrcInnerPad, isReuseSource, maxValue, minValue);
}

// ---- Select (byte mask) --------------------------------------------------------------------------
inline uint32_t GetSelectMinTmpSize(const ge::Shape& src0Shape, const ge::Shape& src1Shape, const uint32_t srcTypeSize,
                                    const ge::Shape& maskShape, const uint32_t maskTypeSize, const bool isReuseMask) {
    namespace d = reduce_filter_host_detail;
    if (!d::SelectCheck("GetSelectMinTmpSize", src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize)) return 0;
    return d::SelectBytes(src0Shape, src1Shape, maskShape, maskTypeSize, isReuseMask, true);
}
inline uint32_t GetSelectMaxTmpSize(const ge::Shape& src0Shape, const ge::Shape& src1Shape, const uint32_t srcTypeSize,
                                    const ge::Shape& maskShape, const uint32_t maskTypeSize, const bool isReuseMask) {
    namespace d = reduce_filter_host_detail;
    if (!d::SelectCheck("GetSelectMaxTmpSize", src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize)) return 0;
    return d::SelectBytes(src0Shape, src1Shape, maskShape, maskTypeSize, isReuseMask, false);
}
inline void GetSelectMaxMinTmpSize(const ge::Shape& src0Shape, const ge::Shape& src1Shape, const uint32_t srcTypeSize,
                                   const ge::Shape& maskShape, const uint32_t maskTypeSize, const bool isReuseMask,
                                   uint32_t& maxValue, uint32_t& minValue) {
    namespace d = reduce_filter_host_detail;
    if (!d::SelectCheck("GetSelectMaxMinTmpSize", src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize)) return;
    maxValue = d::SelectBytes(src0Shape, src1Shape, maskShape, maskTypeSize, isReuseMask, false);
    minValue = d::SelectBytes(src0Shape, src1Shape, maskShape, maskTypeSize, isReuseMask, true);
}
inline uint32_t GetSelectWithBytesMaskMinTmpSize(const ge::Shape& src0Shape, const ge::Shape& src1Shape,
                                                 const uint32_t srcTypeSize, const ge::Shape& maskShape,
                                                 const uint32_t maskTypeSize, const bool isReuseMask) {
    return GetSelectMinTmpSize(src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize, isReuseMask);
}
inline uint32_t GetSelectWithBytesMaskMaxTmpSize(const ge::Shape& src0Shape, const ge::Shape& src1Shape,
                                                 const uint32_t srcTypeSize, const ge::Shape& maskShape,
                                                 const uint32_t maskTypeSize, const bool isReuseMask) {
    return GetSelectMaxTmpSize(src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize, isReuseMask);
}
inline void GetSelectWithBytesMaskMaxMinTmpSize(const ge::Shape& src0Shape, const ge::Shape& src1Shape,
                                                const uint32_t srcTypeSize, const ge::Shape& maskShape,
                                                const uint32_t maskTypeSize, const bool isReuseMask,
                                                uint32_t& maxValue, uint32_t& minValue) {
    GetSelectMaxMinTmpSize(src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize, isReuseMask, maxValue,
                           minValue);
}

// ---- DropOut -------------------------------------------------------------------------------------
inline uint32_t GetDropOutMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource) {
    (void)isReuseSource;
    if (!reduce_filter_host_detail::DropOutCheck("GetDropOutMinTmpSize", srcShape, typeSize)) return 0;
    return 2 * reduce_filter_host_detail::kRepeat;
}
inline uint32_t GetDropOutMaxTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource) {
    (void)isReuseSource;
    if (!reduce_filter_host_detail::DropOutCheck("GetDropOutMaxTmpSize", srcShape, typeSize)) return 0;
    uint64_t n = 1;
    for (size_t i = 0; i < srcShape.GetDimNum(); ++i) n *= static_cast<uint64_t>(srcShape.GetDim(i));
    return static_cast<uint32_t>(std::max<uint64_t>(2 * reduce_filter_host_detail::kRepeat, 2 * n * sizeof(float)));
}
inline void GetDropOutMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                    uint32_t& maxValue, uint32_t& minValue) {
    if (!reduce_filter_host_detail::DropOutCheck("GetDropOutMaxMinTmpSize", srcShape, typeSize)) return;
    maxValue = GetDropOutMaxTmpSize(srcShape, typeSize, isReuseSource);
    minValue = GetDropOutMinTmpSize(srcShape, typeSize, isReuseSource);
}

}  // namespace AscendC
