// opgen host runtime: CANN's tiling/tiling_api.h for the advanced APIs the simulator implements:
// Pad and UnPad (GetPadMaxMinTmpSize, PadTilingFunc, GetUnPadMaxMinTmpSize, UnPadTilingFunc) and
// their tiling classes optiling::PadTiling / optiling::UnPadTiling; Broadcast
// (GetBroadCastMaxMinTmpSize); Sort with a SortConfig (GetSortMaxMinTmpSize); Exp
// (GetExpMaxMinTmpSize, GetExpTmpBufferFactorSize); the math library and activations (Gelu, Sigmoid,
// Tanh, Erf, Floor, Ceil, Trunc, Axpy: math_tmp_size.h). Header-only, so a sample's
// host code that links CANN's tiling_api library links the toolkit's empty stub of it.
//
// The functions fill every field CANN's kernels read; the simulator's Pad and UnPad use only the
// shape fields. A bad argument (typeSize not 2 or 4, a shape that is not 2-D) prints an error and
// leaves the tiling unfilled (the sizes 0), where CANN logs it.
#pragma once

#if defined(REGISTER_TILING_DEFAULT) && !defined(OPGEN_OP_HOST) && !defined(OPGEN_ASC_SOURCE)
// A kernel translation unit (the simulator's tiling macros are in effect): only the kernel structs.
// A single-source .asc program (OPGEN_ASC_SOURCE) gets the host functions too, its tiling-data
// classes being the kernel's structs with their set_/get_/SaveToBuffer (opgen_sim/tiling.h).
#include "../kernel_tiling/kernel_tiling.h"
#else

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../graph/tensor.h"
#include "../kernel_tiling/kernel_tiling.h"
#include "../opgen_host/broadcast_tmp_size.h"
#include "../opgen_host/exp_tmp_size.h"
#include "../opgen_host/sort_tmp_size.h"
#include "../securec.h"  // CANN's tiling headers bring in securec's memcpy_s and the like
#if defined(OPGEN_ASC_SOURCE)
#include "../opgen_host/host_log.h"
#else
#include "../opgen_host/tiling_def.h"
#endif
#include "platform/platform_ascendc.h"
#include "math_tmp_size.h"
#include "math_more_tiling.h"
#include "softmax_tiling.h"
#include "matmul_tiling.h"
#include "norm_tiling.h"
#include "quant_tiling.h"
#include "reduce_filter_tiling.h"
#include "transform_more_tiling.h"
#include "transdata_tiling.h"

namespace optiling {

BEGIN_TILING_DATA_DEF(UnPadTiling)
TILING_DATA_FIELD_DEF(uint32_t, srcHeight);
TILING_DATA_FIELD_DEF(uint32_t, srcWidth);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer1BlockNum);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer1RowNum);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer2Offset);
TILING_DATA_FIELD_DEF(uint32_t, widthTiling);
TILING_DATA_FIELD_DEF(uint32_t, widthFractal);
TILING_DATA_FIELD_DEF(uint32_t, widthFractalTail);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(PadTiling)
TILING_DATA_FIELD_DEF(uint32_t, srcHeight);
TILING_DATA_FIELD_DEF(uint32_t, srcWidth);
TILING_DATA_FIELD_DEF(uint32_t, srcOriWidth);
TILING_DATA_FIELD_DEF(uint32_t, widthWithoutLastBlock);
TILING_DATA_FIELD_DEF(uint32_t, blocksPerRow);
TILING_DATA_FIELD_DEF(uint32_t, heightTiling);
TILING_DATA_FIELD_DEF(uint32_t, heightFractal);
TILING_DATA_FIELD_DEF(uint32_t, heightFractalTail);
TILING_DATA_FIELD_DEF(uint32_t, mainLoopOffset);
TILING_DATA_FIELD_DEF(uint32_t, tailBlockOffset);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer1BlockNum);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer1RowNum);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer2Offset);
TILING_DATA_FIELD_DEF(uint32_t, widthTiling);
TILING_DATA_FIELD_DEF(uint32_t, widthFractal);
TILING_DATA_FIELD_DEF(uint32_t, widthFractalTail);
TILING_DATA_FIELD_DEF(uint32_t, widthFractalTailAlingned);
TILING_DATA_FIELD_DEF(uint32_t, brcbTiling);
TILING_DATA_FIELD_DEF(uint32_t, brcbFractal);
TILING_DATA_FIELD_DEF(uint32_t, brcbFractalTail);
TILING_DATA_FIELD_DEF(uint32_t, maxRepeatTimes);
TILING_DATA_FIELD_DEF(uint32_t, brcbTilingRepeatTimes);
TILING_DATA_FIELD_DEF(uint32_t, brcbTilingRepeatTimesTail);
TILING_DATA_FIELD_DEF(uint32_t, brcbFractalTailRepeatTimes);
TILING_DATA_FIELD_DEF(uint32_t, brcbFractalTailRepeatTimesTail);
TILING_DATA_FIELD_DEF(uint32_t, reserved);
END_TILING_DATA_DEF;

}  // namespace optiling

namespace AscendC {

using TensorShape = ge::Shape;

namespace pad_tiling_detail {

constexpr uint32_t kBlockBytes = 32;
constexpr uint32_t kRowsPerTranspose = 16;  // the 16 rows of one 5HD transpose
constexpr uint32_t kMaxRepeat = 255;
constexpr uint32_t kBrcbMaxRepeat = 254;  // 255 repeats of 8 elements would end off a 32-byte block
// one temporary block: 16 rows of one 32-byte block; the stack buffer holds two halves of them
constexpr uint32_t kTmpBlockBytes = kRowsPerTranspose * kBlockBytes;

using math_tmp_detail::Report;

inline bool CheckArgs(const char* api, const ge::Shape& shape, uint32_t typeSize) {
    if (typeSize != 2 && typeSize != 4) {
        Report(api, "typeSize is " + std::to_string(typeSize) + ", should be 2 or 4");
        return false;
    }
    if (shape.GetDimNum() != 2) {
        Report(api, "srcShape has " + std::to_string(shape.GetDimNum()) + " dims, should be 2");
        return false;
    }
    return true;
}

// The largest and smallest stack buffer CANN's vector implementation uses for an unaligned width:
// the whole tile in 16-row blocks, twice, or one such block twice.
inline void TmpSizes(const ge::Shape& shape, uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue) {
    const uint64_t elems = static_cast<uint64_t>(shape.GetDim(0)) * static_cast<uint64_t>(shape.GetDim(1));
    const uint64_t rows = elems == 0 ? 0 : (elems + kRowsPerTranspose - 1) / kRowsPerTranspose * kRowsPerTranspose;
    maxValue = static_cast<uint32_t>(rows * (kBlockBytes / typeSize) * 2 * typeSize);
    minValue = kRowsPerTranspose * (kBlockBytes / typeSize) * 2 * typeSize;
}

}  // namespace pad_tiling_detail

inline void GetPadMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                uint32_t& minValue) {
    // 0 on a bad argument: callers compiled with -Werror see no uninitialised read
    maxValue = 0;
    minValue = 0;
    if (!pad_tiling_detail::CheckArgs("GetPadMaxMinTmpSize", srcShape, typeSize)) return;
    pad_tiling_detail::TmpSizes(srcShape, typeSize, maxValue, minValue);
}

inline void PadTilingFunc(const ge::Shape srcShape, const ge::Shape oriSrcShape, const uint32_t stackBufferSize,
                          const uint32_t typeSize, optiling::PadTiling& tiling) {
    namespace d = pad_tiling_detail;
    constexpr const char* api = "PadTilingFunc";
    if (!d::CheckArgs(api, srcShape, typeSize)) return;
    if (oriSrcShape.GetDimNum() != 2) {
        d::Report(api, "oriSrcShape has " + std::to_string(oriSrcShape.GetDimNum()) + " dims, should be 2");
        return;
    }
    if (oriSrcShape.GetShapeSize() > srcShape.GetShapeSize()) {
        d::Report(api, "oriSrcShape holds " + std::to_string(oriSrcShape.GetShapeSize()) +
                           " elements, more than srcShape's " + std::to_string(srcShape.GetShapeSize()));
        return;
    }
    const uint32_t height = static_cast<uint32_t>(srcShape.GetDim(0));
    const uint32_t width = static_cast<uint32_t>(srcShape.GetDim(1));
    const uint32_t perBlock = d::kBlockBytes / typeSize;
    tiling.set_srcHeight(height);
    tiling.set_srcWidth(width);
    tiling.set_srcOriWidth(static_cast<uint32_t>(oriSrcShape.GetDim(1)));
    // an aligned width: rows copied whole, the last block of each row re-filled, 255 rows a pass
    const uint32_t heightFractal = height / d::kMaxRepeat;
    tiling.set_widthWithoutLastBlock(width - perBlock);
    tiling.set_blocksPerRow(width * typeSize / d::kBlockBytes);
    tiling.set_heightTiling(d::kMaxRepeat);
    tiling.set_heightFractal(heightFractal);
    tiling.set_heightFractalTail(height % d::kMaxRepeat);
    tiling.set_mainLoopOffset(d::kMaxRepeat * width);
    tiling.set_tailBlockOffset(heightFractal * d::kMaxRepeat * width + width - perBlock);
    if (stackBufferSize == 0) return;  // nothing to plan for the stack buffer
    // an unaligned width: the stack buffer's two halves, in 16-row blocks
    const uint32_t blocks = stackBufferSize / d::kTmpBlockBytes / 2;
    if (blocks == 0) {
        d::Report(api, "stackBufferSize " + std::to_string(stackBufferSize) + " is below the minimum " +
                           std::to_string(2 * d::kTmpBlockBytes) + " GetPadMaxMinTmpSize returns");
        return;
    }
    const uint32_t rows = d::kRowsPerTranspose * blocks;
    tiling.set_tmpBuffer1BlockNum(blocks);
    tiling.set_tmpBuffer1RowNum(rows);
    tiling.set_tmpBuffer2Offset(blocks * (d::kTmpBlockBytes / typeSize));
    const uint32_t widthTail = width % rows;
    tiling.set_widthTiling(rows);
    tiling.set_widthFractal(width / rows);
    tiling.set_widthFractalTail(widthTail);
    tiling.set_widthFractalTailAlingned((widthTail + perBlock - 1) / perBlock * perBlock);
    const uint32_t total = height * width;
    const uint32_t brcbTail = total % rows;
    tiling.set_brcbTiling(rows);
    tiling.set_brcbFractal(total / rows);
    tiling.set_brcbFractalTail(brcbTail);
    // Brcb broadcasts 8 elements a repeat
    tiling.set_maxRepeatTimes(d::kBrcbMaxRepeat);
    tiling.set_brcbTilingRepeatTimes(rows / 8 / d::kBrcbMaxRepeat);
    tiling.set_brcbTilingRepeatTimesTail(rows / 8 % d::kBrcbMaxRepeat);
    tiling.set_brcbFractalTailRepeatTimes(brcbTail / 8 / d::kBrcbMaxRepeat);
    tiling.set_brcbFractalTailRepeatTimesTail(brcbTail / 8 % d::kBrcbMaxRepeat);
}

inline void PadTilingFunc(const ge::Shape srcShape, const ge::Shape oriSrcShape, const uint32_t stackBufferSize,
                          const uint32_t typeSize, AscendC::tiling::PadTiling& tiling) {
    optiling::PadTiling data;
    PadTilingFunc(srcShape, oriSrcShape, stackBufferSize, typeSize, data);
    data.SaveToBuffer(&tiling, sizeof(tiling));
}

// The 910B family's UnPad needs no stack buffer (a GatherMask per tile); other architectures
// transpose through one, as Pad does.
inline void GetUnPadMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform,
                                  const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                  uint32_t& minValue) {
    maxValue = 0;
    minValue = 0;
    if (!pad_tiling_detail::CheckArgs("GetUnPadMaxMinTmpSize", srcShape, typeSize)) return;
    const NpuArch arch = ascendcPlatform.GetCurNpuArch();
    if (arch == NpuArch::DAV_2201 || arch == NpuArch::DAV_3510 || arch == NpuArch::DAV_5102) return;
    pad_tiling_detail::TmpSizes(srcShape, typeSize, maxValue, minValue);
}

inline void UnPadTilingFunc(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                            optiling::UnPadTiling& tiling) {
    namespace d = pad_tiling_detail;
    constexpr const char* api = "UnPadTilingFunc";
    if (!d::CheckArgs(api, srcShape, typeSize)) return;
    const uint32_t width = static_cast<uint32_t>(srcShape.GetDim(1));
    tiling.set_srcHeight(static_cast<uint32_t>(srcShape.GetDim(0)));
    tiling.set_srcWidth(width);
    if (stackBufferSize == 0) return;
    const uint32_t blocks = stackBufferSize / d::kTmpBlockBytes / 2;
    if (blocks == 0) {
        d::Report(api, "stackBufferSize " + std::to_string(stackBufferSize) + " is below the minimum " +
                           std::to_string(2 * d::kTmpBlockBytes) + " GetUnPadMaxMinTmpSize returns");
        return;
    }
    const uint32_t rows = d::kRowsPerTranspose * blocks;
    tiling.set_tmpBuffer1BlockNum(blocks);
    tiling.set_tmpBuffer1RowNum(rows);
    tiling.set_tmpBuffer2Offset(blocks * (d::kTmpBlockBytes / typeSize));
    tiling.set_widthTiling(rows);
    // the last fractal is a whole one when the width divides evenly
    tiling.set_widthFractal((width + rows - 1) / rows);
    tiling.set_widthFractalTail(width % rows == 0 ? rows : width % rows);
}

inline void UnPadTilingFunc(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                            AscendC::tiling::UnPadTiling& tiling) {
    optiling::UnPadTiling data;
    UnPadTilingFunc(srcShape, stackBufferSize, typeSize, data);
    data.SaveToBuffer(&tiling, sizeof(tiling));
}

// The figures are opgen_broadcast::BroadcastTmpSize's, the rule the simulator's Broadcast checks
// its sharedTmpBuffer against. isReuseSource is reserved (the reference): it changes nothing.
inline void GetBroadCastMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform,
                                      const ge::Shape& srcShape, const ge::Shape& dstShape, uint32_t typeSize,
                                      const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    maxValue = 0;
    minValue = 0;
    constexpr const char* api = "GetBroadCastMaxMinTmpSize";
    const size_t dims = srcShape.GetDimNum();
    if (dims != dstShape.GetDimNum()) {
        pad_tiling_detail::Report(api, "srcShape has " + std::to_string(dims) + " dims and dstShape " +
                                           std::to_string(dstShape.GetDimNum()) + ", they should be equal");
        return;
    }
    if (dims != 1 && dims != 2) {
        pad_tiling_detail::Report(api, "srcShape has " + std::to_string(dims) + " dims, should be 1 or 2");
        return;
    }
    uint64_t src[2] = {0, 0}, dst[2] = {0, 0};
    for (size_t i = 0; i < dims; ++i) {
        src[i] = static_cast<uint64_t>(srcShape.GetDim(i));
        dst[i] = static_cast<uint64_t>(dstShape.GetDim(i));
    }
    const NpuArch npu = ascendcPlatform.GetCurNpuArch();
    const opgen_broadcast::Arch arch = npu == NpuArch::DAV_2201   ? opgen_broadcast::Arch::Dav2201
                                       : npu == NpuArch::DAV_2002 ? opgen_broadcast::Arch::Dav2002
                                                                  : opgen_broadcast::Arch::Other;
    const opgen_broadcast::TmpSize size = opgen_broadcast::BroadcastTmpSize(arch, src, dst, dims, typeSize);
    if (!size.error.empty()) {
        pad_tiling_detail::Report(api, size.error);
        return;
    }
    maxValue = size.maxBytes;
    minValue = size.minBytes;
}

// The Sort advanced API with a SortConfig: its sharedTmpBuffer's bounds (opgen_host/sort_tmp_size.h
// has the rule). The figures come on every architecture; CANN's implementation gives them for the
// Ascend 950 only (the kernel API's target) and elsewhere logs an error and writes neither output.
inline void GetSortMaxMinTmpSize(const ge::Shape& srcShape, ge::DataType valueType, ge::DataType indexType,
                                 bool isReuseSource, const SortConfig& config, uint32_t& maxValue,
                                 uint32_t& minValue) {
    constexpr const char* api = "GetSortMaxMinTmpSize";
    maxValue = 0;
    minValue = 0;
    const auto valueBytes = [](ge::DataType t) -> uint32_t {
        switch (t) {
            case ge::DT_INT8: case ge::DT_UINT8: return 1;
            case ge::DT_INT16: case ge::DT_UINT16: case ge::DT_FLOAT16: case ge::DT_BF16: return 2;
            case ge::DT_INT32: case ge::DT_UINT32: case ge::DT_FLOAT: return 4;
            case ge::DT_INT64: case ge::DT_UINT64: return 8;
            default: return 0;
        }
    };
    const uint32_t vBytes = valueBytes(valueType);
    if (vBytes == 0) {
        pad_tiling_detail::Report(api, "valueType " + std::to_string(static_cast<int>(valueType)) +
                                           " is not supported: int8, uint8, int16, uint16, float16, bf16, int32, "
                                           "uint32, float, int64 or uint64");
        return;
    }
    if (config.type == SortType::MERGE_SORT && valueType != ge::DT_FLOAT && valueType != ge::DT_FLOAT16) {
        pad_tiling_detail::Report(api, "MERGE_SORT takes float16 or float values");
        return;
    }
    uint32_t iBytes = 0;
    if (config.hasSrcIndex) {
        const bool ok = config.type == SortType::MERGE_SORT
                            ? indexType == ge::DT_UINT32
                            : (indexType == ge::DT_INT32 || indexType == ge::DT_UINT32 ||
                               indexType == ge::DT_INT64 || indexType == ge::DT_UINT64);
        if (!ok) {
            pad_tiling_detail::Report(api, "indexType " + std::to_string(static_cast<int>(indexType)) +
                                               (config.type == SortType::MERGE_SORT
                                                    ? " is not supported with MERGE_SORT: uint32"
                                                    : " is not supported: int32, uint32, int64 or uint64"));
            return;
        }
        iBytes = valueBytes(indexType);
    } else if (config.hasDstIndex && indexType != ge::DT_UINT32) {
        pad_tiling_detail::Report(api, "indexType " + std::to_string(static_cast<int>(indexType)) +
                                           " is not supported for a generated output index: uint32");
        return;
    }
    uint64_t count = 1;
    for (size_t i = 0; i < srcShape.GetDimNum(); ++i) {
        if (srcShape.GetDim(i) < 0) {
            pad_tiling_detail::Report(api, "srcShape dim " + std::to_string(i) + " is " +
                                               std::to_string(srcShape.GetDim(i)) + ", should not be negative");
            return;
        }
        count *= static_cast<uint64_t>(srcShape.GetDim(i));
    }
    const opgen_sort::TmpSize size = opgen_sort::SortTmpSize(count, vBytes, iBytes, isReuseSource, config.type,
                                                             config.hasSrcIndex, config.hasDstIndex);
    if (!size.error.empty()) {
        pad_tiling_detail::Report(api, size.error);
        return;
    }
    maxValue = size.maxBytes;
    minValue = size.minBytes;
}

// Exp's advanced API (adv_api/math/exp_tiling.h): opgen_host/exp_tmp_size.h.
inline bool GetExpMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    const uint64_t kRepeat = opgen_host::kExpRepeatBytes;
    const uint64_t n = opgen_host::ExpTmpBuffers(typeSize, isReuseSource);
    const int64_t size = srcShape.GetShapeSize();
    const uint64_t each = size > 0 && static_cast<uint64_t>(size) * sizeof(float) > kRepeat
                              ? static_cast<uint64_t>(size) * sizeof(float) : kRepeat;
    minValue = static_cast<uint32_t>(n * kRepeat);
    maxValue = static_cast<uint32_t>(n * each);
    return true;
}

inline void GetExpTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount,
                                      uint32_t& extraBuffer) {
    // the temporaries in float per input element, over the input's own bytes: 12 / 4, 16 / 2
    extraBuffer = 0;
    maxLiveNodeCount = typeSize == sizeof(float) ? 3 : 8;
}

}  // namespace AscendC

#endif
