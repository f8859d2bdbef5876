// opgen host runtime: the host side of TopK and of the advanced Transpose (tiling/tiling_api.h
// includes this): the tiling classes optiling::TopkTiling and optiling::ConfusionTransposeTiling,
// GetTopKMaxMinTmpSize, TopKTilingFunc, GetTransposeMaxMinTmpSize and GetTransposeTilingInfo (and
// their older names GetConfusionTransposeMaxMinTmpSize / GetConfusionTransposeTilingInfo).
//
// The reference page (TopK-Tiling.md) names the functions and what they return; the figures
// follow asc-devkit's Atlas A2/A3 host implementation (impl/adv_api/tiling/sort/topk_tiling_impl.cpp):
//   GetTopKMaxMinTmpSize  Normal mode: 16 bytes an inner element (two copies of the sorted (value,
//                         index) pairs), 4 more when the API makes the index (isInitIndex false).
//                         Small mode: 8 bytes an element of outter * inner, 64 bytes of GatherMask
//                         patterns, 4 bytes an element for the negated input (isLargest false) and
//                         4 for the made index (isInitIndex false). The largest equals the smallest.
//   TopKTilingFunc        the offsets and GatherMask masks CANN's A2 kernel reads; the simulator's
//                         TopK itself reads tmpLocalSize (the temporary's size in elements of T).
// The Atlas inference (DAV_2002) and Ascend 950 (DAV_3510, DAV_5102) figures are not
// simulated: those targets are reported and the outputs stay as they were (false).
// Transpose (Transpose-Tiling.md; confusion_transpose_tiling_impl.cpp): the 18 parameters of
// scenes 1 to 7 as CANN's host code plans them (srcShape [B, N, S, H/N] for scenes 1 to 6, [H, W]
// for scene 7); the sharedTmpBuffer: scenes 1 and 2 at least one 16 x 16 block, at most 16 rows of
// S rounded up to 16; scenes 3 to 6 two 16 x 16 blocks; scene 7 none. Scenes 13 to 16 (Ascend 950)
// and the unsupported types are reported and write nothing.
// A bad argument (inner not a positive multiple of 32, inner not 32 in Small mode, outter not
// positive, a typeSize other than 2 or 4, a source larger than the Unified Buffer, k outside
// [1, inner]) is reported and leaves the outputs as they were; the functions return false.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "../kernel_tiling/kernel_tiling.h"
#include "math_tmp_size.h"
#include "platform/platform_ascendc.h"
#if defined(OPGEN_ASC_SOURCE)
#include "../opgen_host/host_log.h"
#else
#include "../opgen_host/tiling_def.h"
#endif

namespace optiling {

BEGIN_TILING_DATA_DEF(TopkTiling)
TILING_DATA_FIELD_DEF(int32_t, tmpLocalSize);
TILING_DATA_FIELD_DEF(int32_t, allDataSize);
TILING_DATA_FIELD_DEF(int32_t, innerDataSize);
TILING_DATA_FIELD_DEF(uint32_t, sortRepeat);
TILING_DATA_FIELD_DEF(int32_t, mrgSortRepeat);
TILING_DATA_FIELD_DEF(int32_t, kAlignFourBytes);
TILING_DATA_FIELD_DEF(int32_t, kAlignTwoBytes);
TILING_DATA_FIELD_DEF(int32_t, maskOffset);
TILING_DATA_FIELD_DEF(int32_t, maskVreducev2FourBytes);
TILING_DATA_FIELD_DEF(int32_t, maskVreducev2TwoBytes);
TILING_DATA_FIELD_DEF(int32_t, mrgSortSrc1offset);
TILING_DATA_FIELD_DEF(int32_t, mrgSortSrc2offset);
TILING_DATA_FIELD_DEF(int32_t, mrgSortSrc3offset);
TILING_DATA_FIELD_DEF(int32_t, mrgSortTwoQueueSrc1Offset);
TILING_DATA_FIELD_DEF(int32_t, mrgFourQueueTailPara1);
TILING_DATA_FIELD_DEF(int32_t, mrgFourQueueTailPara2);
TILING_DATA_FIELD_DEF(int32_t, srcIndexOffset);
TILING_DATA_FIELD_DEF(uint32_t, copyUbToUbBlockCount);
TILING_DATA_FIELD_DEF(int32_t, topkMrgSrc1MaskSizeOffset);
TILING_DATA_FIELD_DEF(int32_t, topkNSmallSrcIndexOffset);
TILING_DATA_FIELD_DEF(uint32_t, vreduceValMask0);
TILING_DATA_FIELD_DEF(uint32_t, vreduceValMask1);
TILING_DATA_FIELD_DEF(uint32_t, vreduceIdxMask0);
TILING_DATA_FIELD_DEF(uint32_t, vreduceIdxMask1);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask0);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask1);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask2);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask3);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask4);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask5);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask6);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask7);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(ConfusionTransposeTiling)
TILING_DATA_FIELD_DEF(uint32_t, param0);
TILING_DATA_FIELD_DEF(uint32_t, param1);
TILING_DATA_FIELD_DEF(uint32_t, param2);
TILING_DATA_FIELD_DEF(uint32_t, param3);
TILING_DATA_FIELD_DEF(uint32_t, param4);
TILING_DATA_FIELD_DEF(uint32_t, param5);
TILING_DATA_FIELD_DEF(uint32_t, param6);
TILING_DATA_FIELD_DEF(uint32_t, param7);
TILING_DATA_FIELD_DEF(uint32_t, param8);
TILING_DATA_FIELD_DEF(uint32_t, param9);
TILING_DATA_FIELD_DEF(uint32_t, param10);
TILING_DATA_FIELD_DEF(uint32_t, param11);
TILING_DATA_FIELD_DEF(uint32_t, param12);
TILING_DATA_FIELD_DEF(uint32_t, param13);
TILING_DATA_FIELD_DEF(uint32_t, param14);
TILING_DATA_FIELD_DEF(uint32_t, param15);
TILING_DATA_FIELD_DEF(uint32_t, param16);
TILING_DATA_FIELD_DEF(uint32_t, param17);
END_TILING_DATA_DEF;

}  // namespace optiling

namespace AscendC {
namespace topk_tiling_detail {

using math_tmp_detail::Report;

constexpr int32_t kSmallInner = 32;
constexpr uint32_t kSmallMaskBytes = 64;  // the GatherMask patterns of Small mode, one 64-byte block

// CANN's argument checks of both host functions; false when the outputs must stay as they were.
inline bool Check(const char* api, const platform_ascendc::PlatformAscendC& platform, int32_t inner, int32_t outter,
                  TopKMode mode, uint32_t typeSize) {
    const NpuArch arch = platform.GetCurNpuArch();
    if (arch == NpuArch::DAV_2002 || arch == NpuArch::DAV_3510 || arch == NpuArch::DAV_5102) {
        Report(api, "npu arch " + std::to_string(static_cast<int>(arch)) +
                        " is not simulated: only the Atlas A2/A3 (DAV_2201) TopK figures are");
        return false;
    }
    if (inner <= 0 || inner % 32 != 0) {
        Report(api, "inner is " + std::to_string(inner) + ", should be a positive multiple of 32");
        return false;
    }
    if (mode == TopKMode::TOPK_NSMALL && inner != kSmallInner) {
        Report(api, "inner is " + std::to_string(inner) + ", should be 32 in TOPK_NSMALL mode");
        return false;
    }
    if (outter <= 0) {
        Report(api, "outter is " + std::to_string(outter) + ", should be greater than 0");
        return false;
    }
    if (typeSize != 2 && typeSize != 4) {
        Report(api, "dataTypeSize is " + std::to_string(typeSize) + ", should be 2 (half) or 4 (float)");
        return false;
    }
    uint64_t ub = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    const uint64_t bytes = static_cast<uint64_t>(inner) * static_cast<uint64_t>(outter) * typeSize;
    if (ub != 0 && bytes > ub) {
        Report(api, "the source of " + std::to_string(outter) + " x " + std::to_string(inner) + " elements is " +
                        std::to_string(bytes) + " bytes, more than the Unified Buffer's " + std::to_string(ub));
        return false;
    }
    return true;
}

// a mask of k two-bit groups, each `group` (0b10 picks the odd element, 0b01 the even one)
inline uint32_t PairMask(int32_t k, uint32_t group) {
    uint32_t m = 0;
    for (int32_t i = 0; i < k; ++i) m = (m << 2u) | group;
    return m;
}
// a mask of k four-bit groups 0b0001 (the first half of each 8-byte pair)
inline uint16_t QuadMask(int32_t k) {
    uint16_t m = 0;
    for (int32_t i = 0; i < k; ++i) m = static_cast<uint16_t>((m << 4u) | 1u);
    return m;
}

inline void SmallModeMasks(int32_t k, uint32_t typeSize, optiling::TopkTiling& t) {
    if (k <= 16) {
        t.set_vreduceIdxMask0(PairMask(k, 2u));
    } else if (k <= 32) {
        t.set_vreduceIdxMask0(PairMask(16, 2u));
        t.set_vreduceIdxMask1(PairMask(k - 16, 2u));
    }
    if (typeSize == 4) {
        if (k <= 16) {
            t.set_vreduceValMask0(PairMask(k, 1u));
        } else if (k <= 32) {
            t.set_vreduceValMask0(PairMask(16, 1u));
            t.set_vreduceValMask1(PairMask(k - 16, 1u));
        }
        return;
    }
    // half: 4 values of 8-byte pairs a 16-bit mask word, 8 words for k up to 32
    uint16_t words[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int32_t w = 0; w < 8; ++w) {
        const int32_t left = k - 4 * w;
        words[w] = left <= 0 ? 0 : QuadMask(left >= 4 ? 4 : left);
    }
    t.set_vreducehalfValMask0(words[0]);
    t.set_vreducehalfValMask1(words[1]);
    t.set_vreducehalfValMask2(words[2]);
    t.set_vreducehalfValMask3(words[3]);
    t.set_vreducehalfValMask4(words[4]);
    t.set_vreducehalfValMask5(words[5]);
    t.set_vreducehalfValMask6(words[6]);
    t.set_vreducehalfValMask7(words[7]);
}

inline void Fill(int32_t inner, int32_t outter, int32_t k, uint32_t typeSize, bool isInitIndex, TopKMode mode,
                 bool isLargest, optiling::TopkTiling& t) {
    const int32_t kAlign4 = (k + 7) / 8 * 8;
    const int32_t kAlign2 = (k + 15) / 16 * 16;
    const int32_t perValue = static_cast<int32_t>(8 / typeSize);  // elements of T in an 8-byte pair
    t.set_allDataSize(inner * outter);
    t.set_kAlignFourBytes(kAlign4);
    if (mode == TopKMode::TOPK_NORMAL) {
        t.set_innerDataSize(inner * perValue);
        t.set_copyUbToUbBlockCount(static_cast<uint32_t>(inner * 8 / 32));
        t.set_sortRepeat(static_cast<uint32_t>(inner / 32));
        t.set_mrgSortRepeat(inner / 4);
        t.set_kAlignTwoBytes(kAlign2);
        t.set_maskOffset(outter * (typeSize == 2 ? kAlign2 : kAlign4));
        t.set_maskVreducev2FourBytes(2 * k);
        t.set_maskVreducev2TwoBytes(4 * k);
        t.set_mrgSortSrc1offset(perValue);
        t.set_mrgSortSrc2offset(2 * perValue);
        t.set_mrgSortSrc3offset(3 * perValue);
        t.set_mrgSortTwoQueueSrc1Offset(perValue);
        t.set_mrgFourQueueTailPara1(inner * 2);
        t.set_mrgFourQueueTailPara2(static_cast<int32_t>(4 / typeSize));
        // two copies of the pairs (16 bytes an element), then the made index (4 bytes an element)
        const int32_t pairs = inner * 16 / static_cast<int32_t>(typeSize);
        t.set_tmpLocalSize(pairs);
        if (!isInitIndex) {
            t.set_srcIndexOffset(pairs);
            t.set_tmpLocalSize(pairs + inner * 4 / static_cast<int32_t>(typeSize));
        }
        return;
    }
    const int32_t pairs = inner * outter * perValue;
    t.set_innerDataSize(pairs);
    t.set_maskOffset(outter * k);
    const int32_t negated = isLargest ? 0 : inner * outter;
    const int32_t maskAt = pairs + negated;
    const int32_t maskElems = static_cast<int32_t>(kSmallMaskBytes / typeSize);
    t.set_topkMrgSrc1MaskSizeOffset(maskAt);
    t.set_tmpLocalSize(maskAt + maskElems);
    if (!isInitIndex) {
        t.set_topkNSmallSrcIndexOffset(maskAt + maskElems);
        t.set_tmpLocalSize(maskAt + maskElems + inner * outter * 4 / static_cast<int32_t>(typeSize));
    }
    SmallModeMasks(k, typeSize, t);
}

}  // namespace topk_tiling_detail

inline bool GetTopKMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform, const int32_t inner,
                                 const int32_t outter, const bool isReuseSource, const bool isInitIndex,
                                 enum TopKMode mode, const bool isLargest, const uint32_t dataTypeSize,
                                 uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;  // reserved (the reference)
    namespace d = topk_tiling_detail;
    if (!d::Check("GetTopKMaxMinTmpSize", ascendcPlatform, inner, outter, mode, dataTypeSize)) return false;
    const uint64_t in = static_cast<uint64_t>(inner);
    const uint64_t all = in * static_cast<uint64_t>(outter);
    uint64_t bytes = 0;
    if (mode == TopKMode::TOPK_NORMAL) {
        bytes = 16 * in + (isInitIndex ? 0 : 4 * in);
    } else {
        bytes = 8 * all + d::kSmallMaskBytes + (isLargest ? 0 : 4 * all) + (isInitIndex ? 0 : 4 * all);
    }
    minValue = static_cast<uint32_t>(bytes);
    maxValue = minValue;
    return true;
}

inline bool TopKTilingFunc(const platform_ascendc::PlatformAscendC& ascendcPlatform, const int32_t inner,
                           const int32_t outter, const int32_t k, const uint32_t dataTypeSize, const bool isInitIndex,
                           enum TopKMode mode, const bool isLargest, optiling::TopkTiling& topKTiling) {
    namespace d = topk_tiling_detail;
    constexpr const char* api = "TopKTilingFunc";
    if (!d::Check(api, ascendcPlatform, inner, outter, mode, dataTypeSize)) return false;
    if (k < 1 || k > inner) {
        d::Report(api, "k is " + std::to_string(k) + ", should be in [1, inner = " + std::to_string(inner) + "]");
        return false;
    }
    d::Fill(inner, outter, k, dataTypeSize, isInitIndex, mode, isLargest, topKTiling);
    return true;
}

inline bool TopKTilingFunc(const platform_ascendc::PlatformAscendC& ascendcPlatform, const int32_t inner,
                           const int32_t outter, const int32_t k, const uint32_t dataTypeSize, const bool isInitIndex,
                           enum TopKMode mode, const bool isLargest, AscendC::tiling::TopkTiling& topKTiling) {
    optiling::TopkTiling data;
    const bool ok = TopKTilingFunc(ascendcPlatform, inner, outter, k, dataTypeSize, isInitIndex, mode, isLargest, data);
    if (ok) data.SaveToBuffer(&topKTiling, sizeof(topKTiling));
    return ok;
}

namespace transpose_tiling_detail {

using math_tmp_detail::Report;

constexpr uint32_t kCube = 16;           // a fractal's side
constexpr uint32_t kCubeElems = 16 * 16;  // a fractal's elements

inline uint32_t Up16(uint64_t v) { return static_cast<uint32_t>((v + kCube - 1) / kCube); }

// the shape a transpose type takes: 4 dims [B, N, S, H/N] for scenes 1 to 6, 2 for scene 7
inline bool Check(const char* api, const ge::Shape& shape, uint32_t typeSize, uint32_t type) {
    if (type < 1 || type > 7) {
        Report(api, "transposeTypeIn " + std::to_string(type) +
                        " is not supported on the Atlas A2/A3: scenes 1 (TRANSPOSE_NZ2ND_0213) to 7 "
                        "(TRANSPOSE_ND2ND_ONLY); 13 to 16 are the Ascend 950's");
        return false;
    }
    if (typeSize != 2 && typeSize != 4) {
        Report(api, "typeSize is " + std::to_string(typeSize) + ", should be 2 or 4 (scenes 1 to 7)");
        return false;
    }
    const size_t dims = type == 7 ? 2 : 4;
    if (shape.GetDimNum() != dims) {
        Report(api, "srcShape has " + std::to_string(shape.GetDimNum()) + " dims, should be " +
                        std::to_string(dims) + (type == 7 ? " ([H, W])" : " ([B, N, S, H/N])"));
        return false;
    }
    for (size_t i = 0; i < dims; ++i) {
        if (shape.GetDim(i) <= 0) {
            Report(api, "srcShape dim " + std::to_string(i) + " is " + std::to_string(shape.GetDim(i)) +
                            ", should be positive");
            return false;
        }
    }
    return true;
}

inline void Set(optiling::ConfusionTransposeTiling& t, std::initializer_list<uint32_t> values) {
    void (optiling::ConfusionTransposeTiling::*setters[18])(uint32_t) = {
        &optiling::ConfusionTransposeTiling::set_param0,  &optiling::ConfusionTransposeTiling::set_param1,
        &optiling::ConfusionTransposeTiling::set_param2,  &optiling::ConfusionTransposeTiling::set_param3,
        &optiling::ConfusionTransposeTiling::set_param4,  &optiling::ConfusionTransposeTiling::set_param5,
        &optiling::ConfusionTransposeTiling::set_param6,  &optiling::ConfusionTransposeTiling::set_param7,
        &optiling::ConfusionTransposeTiling::set_param8,  &optiling::ConfusionTransposeTiling::set_param9,
        &optiling::ConfusionTransposeTiling::set_param10, &optiling::ConfusionTransposeTiling::set_param11,
        &optiling::ConfusionTransposeTiling::set_param12, &optiling::ConfusionTransposeTiling::set_param13,
        &optiling::ConfusionTransposeTiling::set_param14, &optiling::ConfusionTransposeTiling::set_param15,
        &optiling::ConfusionTransposeTiling::set_param16, &optiling::ConfusionTransposeTiling::set_param17};
    size_t i = 0;
    for (uint32_t v : values) (t.*setters[i++])(v);
}

inline void Fill(const ge::Shape& shape, uint32_t stackBufferSize, uint32_t typeSize, uint32_t type,
                 optiling::ConfusionTransposeTiling& t) {
    const uint32_t block = 32 / typeSize;  // elements of a 32-byte block
    if (type == 7) {
        const uint32_t h = static_cast<uint32_t>(shape.GetDim(0));
        const uint32_t w = static_cast<uint32_t>(shape.GetDim(1));
        Set(t, {block, h, w, h / kCube, h * block * typeSize / 32, w / block});
        return;
    }
    const uint32_t b = static_cast<uint32_t>(shape.GetDim(0));
    const uint32_t n = static_cast<uint32_t>(shape.GetDim(1));
    const uint32_t s = static_cast<uint32_t>(shape.GetDim(2));
    const uint32_t hn = static_cast<uint32_t>(shape.GetDim(3));
    if (type == 1 || type == 2) {
        const uint32_t sAlign = Up16(s) * kCube;
        const uint32_t hnBlocks = Up16(hn);
        const uint32_t hnAlign = hnBlocks * kCube;
        const uint32_t pop = stackBufferSize / typeSize / kCubeElems * kCubeElems;  // elements
        const uint32_t popRows = pop / kCube;
        const uint32_t need = sAlign * kCube;
        const uint32_t mainBlocks = pop == 0 ? 0 : need / pop;
        const uint32_t tail = pop == 0 ? need : need % pop;
        Set(t, {block, b, n, hnAlign, sAlign, hnBlocks, pop, popRows, need, mainBlocks, tail, sAlign * hnAlign,
                n * sAlign * hnAlign, n * hnAlign, n * kCube, popRows * mainBlocks * n * hnAlign});
        return;
    }
    const uint32_t h = hn * n;
    const uint32_t hBlocks = Up16(h);
    const uint32_t sBlocks = Up16(s);
    const uint32_t hnBlocks = Up16(hn);
    const uint32_t hnAlign = hnBlocks * kCube;
    const uint32_t blockNum = kCube / block;
    if (type == 3) {
        const uint32_t hAlign = hBlocks * kCube;
        const uint32_t sAlign = sBlocks * kCube;
        Set(t, {block, b, n, hn, blockNum, h, hBlocks, sBlocks, hAlign, sAlign, hnBlocks, hnAlign, hnAlign - hn,
                sAlign * kCube, n * hnBlocks, n * hnAlign * sAlign, hAlign * sAlign});
    } else if (type == 4) {
        Set(t, {block, b, n, hn, h, hBlocks, sBlocks, hnBlocks, hnAlign, hnAlign - hn, sBlocks * kCubeElems,
                n * hnBlocks, sBlocks * kCube * hnAlign, hnAlign * kCube, hnAlign * block,
                n * hnAlign * sBlocks * kCube, hBlocks * sBlocks * kCubeElems, blockNum});
    } else {
        const uint32_t hAlign = hBlocks * kCube;
        Set(t, {block, b, n, hn, h, hBlocks, sBlocks, hnBlocks, hAlign, sBlocks * kCubeElems, hAlign * kCube,
                block * hAlign, n * hnBlocks * kCube * sBlocks * kCube, hAlign * sBlocks * kCube, blockNum});
    }
}

}  // namespace transpose_tiling_detail

inline void GetTransposeMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                      const uint32_t transposeTypeIn, uint32_t& maxValue, uint32_t& minValue) {
    namespace d = transpose_tiling_detail;
    if (!d::Check("GetTransposeMaxMinTmpSize", srcShape, typeSize, transposeTypeIn)) return;
    if (transposeTypeIn == 1 || transposeTypeIn == 2) {
        // 16 rows of S rounded up to 16
        maxValue = d::Up16(static_cast<uint64_t>(srcShape.GetDim(2))) * d::kCube * d::kCube * typeSize;
        minValue = d::kCubeElems * typeSize;
    } else if (transposeTypeIn == 7) {
        maxValue = 0;
        minValue = 0;
    } else {
        maxValue = 2 * d::kCubeElems * typeSize;
        minValue = maxValue;
    }
}

inline void GetTransposeTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                   const uint32_t transposeTypeIn, optiling::ConfusionTransposeTiling& tiling) {
    namespace d = transpose_tiling_detail;
    if (!d::Check("GetTransposeTilingInfo", srcShape, typeSize, transposeTypeIn)) return;
    d::Fill(srcShape, stackBufferSize, typeSize, transposeTypeIn, tiling);
}

inline void GetTransposeTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                   const uint32_t transposeTypeIn, AscendC::tiling::ConfusionTransposeTiling& tiling) {
    optiling::ConfusionTransposeTiling data;
    namespace d = transpose_tiling_detail;
    if (!d::Check("GetTransposeTilingInfo", srcShape, typeSize, transposeTypeIn)) return;
    d::Fill(srcShape, stackBufferSize, typeSize, transposeTypeIn, data);
    data.SaveToBuffer(&tiling, sizeof(tiling));
}

inline void GetConfusionTransposeMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                               const uint32_t transposeTypeIn, uint32_t& maxValue,
                                               uint32_t& minValue) {
    GetTransposeMaxMinTmpSize(srcShape, typeSize, transposeTypeIn, maxValue, minValue);
}

inline void GetConfusionTransposeTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                            const uint32_t typeSize, const uint32_t transposeTypeIn,
                                            optiling::ConfusionTransposeTiling& tiling) {
    GetTransposeTilingInfo(srcShape, stackBufferSize, typeSize, transposeTypeIn, tiling);
}

inline void GetConfusionTransposeTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                            const uint32_t typeSize, const uint32_t transposeTypeIn,
                                            AscendC::tiling::ConfusionTransposeTiling& tiling) {
    GetTransposeTilingInfo(srcShape, stackBufferSize, typeSize, transposeTypeIn, tiling);
}

}  // namespace AscendC
