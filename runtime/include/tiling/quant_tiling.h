// opgen host runtime: the host's temporary-buffer sizes of the quantization advanced APIs
// (adv_api/quantization/ascend_dequant_tiling.h, ascend_antiquant_tiling.h; tiling/tiling_api.h
// includes this). Each follows asc-devkit's host implementation
// (impl/adv_api/tiling/quantization/ascend_dequant_tiling_impl.cpp,
// ascend_antiquant_tiling_impl.cpp), its arithmetic in uint32_t as there, including what it does
// with a bad argument: a check that fails logs an error (printed here, and in the host log) and, as
// in CANN, the size is computed all the same unless CANN returns early. The 950-only float4 inputs
// do not exist in this runtime's ge::DataType and have no branch here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../graph/tensor.h"
#include "math_tmp_size.h"

namespace AscendC {

using TensorDataType = ge::DataType;

namespace quant_tiling_detail {
constexpr uint32_t kFloatsPerBlock = 8;    // 32 bytes of float
constexpr uint32_t kFloatsPerRepeat = 64;  // 256 bytes of float

inline std::string Prefix(const char* fn) { return std::string("[AscendDequant][") + fn + "] "; }

// CANN's CheckDequantHostCommon: each failed rule is logged; the caller goes on.
inline void CheckDequant(const char* fn, const ge::Shape& srcShape, uint32_t typeSize) {
    if (srcShape.GetShapeSize() <= 0) {
        math_tmp_detail::Report(fn, Prefix(fn) + "Input Shape size must be greater than 0.");
    }
    if (srcShape.GetDimNum() > 2 || srcShape.GetDimNum() == 0) {
        math_tmp_detail::Report(fn, Prefix(fn) + "SrcShape dim " + std::to_string(srcShape.GetDimNum()) +
                                        " is unsupported, must be 1 or 2!");
    }
    if (typeSize != sizeof(int32_t)) {
        math_tmp_detail::Report(fn, Prefix(fn) + "Type size " + std::to_string(typeSize) +
                                        " is unsupported! (int32_t: 4)");
    }
}
}  // namespace quant_tiling_detail

// AscendDequant: the kernel keeps deqScale in float (inner + 8, so a bfloat16_t deqScale of up to
// a block more fits) and the source rows in float, plus a 256-byte repeat CANN reserves against a
// normal-mode repeat reading past the buffer; at least one row, at most all of them.
inline void GetAscendDequantMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                          uint32_t& minValue) {
    namespace d = quant_tiling_detail;
    constexpr const char* fn = "GetAscendDequantMaxMinTmpSize";
    d::CheckDequant(fn, srcShape, typeSize);
    uint32_t outer = 1, inner = 0;
    if (srcShape.GetDimNum() == 2) {
        outer = static_cast<uint32_t>(srcShape.GetDim(0));
        inner = static_cast<uint32_t>(srcShape.GetDim(1));
    } else if (srcShape.GetDimNum() == 1) {
        inner = static_cast<uint32_t>(srcShape.GetDim(0));
    } else {
        math_tmp_detail::Report(fn, "srcShape should be 1-dimensional / 2-dimensional.");
        return;
    }
    const uint32_t deqScaleSize = inner + d::kFloatsPerBlock;
    maxValue = (d::kFloatsPerRepeat + outer * inner + deqScaleSize) * static_cast<uint32_t>(sizeof(float));
    minValue = (d::kFloatsPerRepeat + inner + deqScaleSize) * static_cast<uint32_t>(sizeof(float));
}

// As CANN gives them: extraBuf 8 + 64 (plus the inner axis for a 2-D shape, one live node; a 1-D
// shape two live nodes); any other rank gives 0 and 0.
inline void GetAscendDequantTmpBufferFactorSize(const ge::Shape& srcShape, uint32_t& maxLiveNodeCount,
                                                uint32_t& extraBuf) {
    namespace d = quant_tiling_detail;
    extraBuf = d::kFloatsPerBlock + d::kFloatsPerRepeat;
    if (srcShape.GetDimNum() == 2) {
        extraBuf += static_cast<uint32_t>(srcShape.GetDim(1));
        maxLiveNodeCount = 1;
    } else if (srcShape.GetDimNum() == 1) {
        maxLiveNodeCount = 2;
    } else {
        extraBuf = 0;
        maxLiveNodeCount = 0;
    }
}

// AscendAntiQuant. half output needs no buffer (0, 0). bfloat16_t: with one scale for the tensor
// (a scale shape of one element), the source in float at most and 1 KB at least; per channel, the
// float offsets and scales and 64 columns of k rows in float (src [k, n]), or transposed 80 floats a
// scale (their broadcasts and 64 columns). srcShape is [k, n], or [n, k] with isTranspose.
namespace quant_tiling_detail {
inline uint32_t Product(const ge::Shape& shape) {
    uint32_t n = 1;
    for (size_t i = 0; i < shape.GetDimNum(); ++i) n *= static_cast<uint32_t>(shape.GetDim(i));
    return n;
}

// CANN's CheckAntiQuantHostCommon, its K rule as CANN writes it: the data type's enum value (not
// its size) times K must be a multiple of 32. It only logs.
inline void CheckAntiQuant(const char* fn, const ge::Shape& srcShape, bool isTranspose, ge::DataType inputDataType) {
    const std::string prefix = std::string("[AscendAntiQuant][") + fn + "] ";
    if (srcShape.GetShapeSize() <= 0) {
        math_tmp_detail::Report(fn, prefix + "Input Shape size must be greater than 0.");
    }
    const uint32_t k = static_cast<uint32_t>(srcShape.GetDim(1));
    if (isTranspose && static_cast<uint32_t>(static_cast<int32_t>(inputDataType)) * k % 32 != 0) {
        math_tmp_detail::Report(fn, prefix + "When isTranspose is true, srcShape is [N, K] where the dimension K "
                                             "must be 32B aligned!");
    }
}
}  // namespace quant_tiling_detail

inline uint32_t GetAscendAntiQuantMaxTmpSize(const ge::Shape& srcShape, const ge::Shape& scaleShape, bool isTranspose,
                                             ge::DataType inputDataType, ge::DataType outputDataType) {
    namespace d = quant_tiling_detail;
    d::CheckAntiQuant("GetAscendAntiQuantMaxTmpSize", srcShape, isTranspose, inputDataType);
    if (outputDataType == ge::DT_FLOAT16) return 0;
    const uint32_t scaleSize = d::Product(scaleShape), srcSize = d::Product(srcShape);
    const bool perChannel = scaleSize != 1;
    if (isTranspose && perChannel) return 80 * scaleSize * static_cast<uint32_t>(sizeof(float));
    if (!isTranspose && perChannel) {
        const uint32_t k = static_cast<uint32_t>(srcShape.GetDim(0));
        return scaleSize * 2 * static_cast<uint32_t>(sizeof(float)) + 64 * k * static_cast<uint32_t>(sizeof(float));
    }
    return srcSize * static_cast<uint32_t>(sizeof(float));
}

inline uint32_t GetAscendAntiQuantMinTmpSize(const ge::Shape& srcShape, const ge::Shape& scaleShape, bool isTranspose,
                                             ge::DataType inputDataType, ge::DataType outputDataType) {
    namespace d = quant_tiling_detail;
    d::CheckAntiQuant("GetAscendAntiQuantMinTmpSize", srcShape, isTranspose, inputDataType);
    if (outputDataType == ge::DT_FLOAT16) return 0;
    const uint32_t scaleSize = d::Product(scaleShape);
    if (scaleSize == 1) return 1024;
    if (isTranspose) return 80 * scaleSize * static_cast<uint32_t>(sizeof(float));
    const uint32_t k = static_cast<uint32_t>(srcShape.GetDim(0));
    return scaleSize * 2 * static_cast<uint32_t>(sizeof(float)) + 64 * k * static_cast<uint32_t>(sizeof(float));
}

inline void GetAscendAntiQuantMaxMinTmpSize(const ge::Shape& srcShape, const ge::Shape& scaleShape, bool isTranspose,
                                            ge::DataType inputDataType, ge::DataType outputDataType,
                                            uint32_t& maxValue, uint32_t& minValue) {
    quant_tiling_detail::CheckAntiQuant("GetAscendAntiQuantMaxMinTmpSize", srcShape, isTranspose, inputDataType);
    maxValue = GetAscendAntiQuantMaxTmpSize(srcShape, scaleShape, isTranspose, inputDataType, outputDataType);
    minValue = GetAscendAntiQuantMinTmpSize(srcShape, scaleShape, isTranspose, inputDataType, outputDataType);
}

// maxTmpBuffer = maxLiveNodeCount * input bytes + extraBuf, as CANN gives the two.
inline void GetAscendAntiQuantTmpBufferFactorSize(const ge::Shape& srcShape, const ge::Shape& scaleShape,
                                                  bool isTranspose, ge::DataType inputDataType,
                                                  ge::DataType outputDataType, uint32_t& maxLiveNodeCount,
                                                  uint32_t& extraBuf) {
    (void)inputDataType;
    extraBuf = 0;
    maxLiveNodeCount = 0;
    const uint32_t scaleSize = quant_tiling_detail::Product(scaleShape);
    const bool perChannel = scaleSize != 1;
    if (outputDataType == ge::DT_FLOAT16) return;
    if (isTranspose && perChannel) {
        extraBuf = 80 * scaleSize * static_cast<uint32_t>(sizeof(float));
    } else if (!perChannel) {
        maxLiveNodeCount = 1;
    } else {
        extraBuf = scaleSize * 2 * static_cast<uint32_t>(sizeof(float)) +
                   64 * static_cast<uint32_t>(srcShape.GetDim(0)) * static_cast<uint32_t>(sizeof(float));
    }
}

}  // namespace AscendC
