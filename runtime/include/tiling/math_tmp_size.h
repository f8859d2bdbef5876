// opgen host runtime: the host's temporary-buffer sizes of the math-library and activation APIs the
// simulator implements (tiling/tiling_api.h includes this): Gelu, Sigmoid, Tanh, Erf, Floor, Ceil,
// Trunc, Frac, Fmod, Xor, Acosh, Axpy and Power. Each size follows asc-devkit's host implementation
// (impl/adv_api/tiling/activation/gelu_tiling_impl.cpp, sigmoid_tiling_impl.cpp and
// impl/adv_api/tiling/math/<op>_tiling_impl.cpp): the op keeps `factor` temporaries of the input's
// bytes (a factor per element type), so the smallest buffer is `factor` repeats of 256 bytes and the
// largest `factor` times the input's bytes (at least one repeat). A typeSize other than 2 or 4, or
// an empty shape, prints an error and leaves the sizes as they were, where CANN logs and returns.
// The simulator's kernels accept any buffer of at least 256 bytes (docs/simulator.md, "Rules").
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "../graph/tensor.h"
#include "platform/platform_ascendc.h"
#if defined(OPGEN_ASC_SOURCE)
#include "../opgen_host/host_log.h"
#else
#include "../opgen_host/tiling_def.h"
#endif

namespace AscendC {
namespace math_tmp_detail {

constexpr uint32_t kRepeatBytes = 256;

// A tiling function's error or warning, as CANN's host logs it: on stderr and in the host log
// (every host tiling header of this runtime reports through these two).
inline void Log(int32_t level, const char* api, const std::string& text) {
    const std::string line = std::string(api) + ": " + text;
    std::fprintf(stderr, "[%s][opgen][tiling] %s\n", level == opgen_host::kLogError ? "ERROR" : "WARNING",
                 line.c_str());
    opgen_host::LogRecord(level, line);
}
inline void Report(const char* api, const std::string& error) { Log(opgen_host::kLogError, api, error); }

inline bool Check(const char* api, const ge::Shape& shape, uint32_t typeSize) {
    std::string error;
    if (typeSize != 2 && typeSize != 4) {
        error = "typeSize is " + std::to_string(typeSize) + ", should be 2 (half) or 4 (float)";
    } else if (shape.GetShapeSize() <= 0) {
        error = "the input shape holds no element; its size must be greater than 0";
    }
    if (error.empty()) return true;
    Report(api, error);
    return false;
}

// min: factor repeats; max: factor times the input's bytes, at least one repeat each.
inline void Sizes(const ge::Shape& shape, uint32_t typeSize, uint32_t factor, uint32_t& maxValue,
                  uint32_t& minValue) {
    const uint64_t bytes = static_cast<uint64_t>(shape.GetShapeSize()) * typeSize;
    minValue = factor * kRepeatBytes;
    maxValue = static_cast<uint32_t>(factor * std::max<uint64_t>(bytes, kRepeatBytes));
}

}  // namespace math_tmp_detail

// Get<Op>MaxMinTmpSize and Get<Op>TmpBufferFactorSize of an op with `HALF` temporaries for half
// and `FLOAT` for float.
#define OPGEN_HOST_MATH_TMP(OP, HALF, FLOAT)                                                        \
    inline void Get##OP##MaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,          \
                                       const bool isReuseSource, uint32_t& maxValue,                \
                                       uint32_t& minValue) {                                        \
        (void)isReuseSource;                                                                        \
        if (!math_tmp_detail::Check("Get" #OP "MaxMinTmpSize", srcShape, typeSize)) return;         \
        math_tmp_detail::Sizes(srcShape, typeSize, typeSize == 4 ? (FLOAT) : (HALF), maxValue,      \
                               minValue);                                                           \
    }                                                                                               \
    inline void Get##OP##TmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount,   \
                                             uint32_t& extraBuf) {                                  \
        extraBuf = 0;                                                                               \
        maxLiveNodeCount = typeSize == 4 ? (FLOAT) : (HALF);                                        \
    }
OPGEN_HOST_MATH_TMP(Tanh, 4, 1)
OPGEN_HOST_MATH_TMP(Erf, 8, 3)
OPGEN_HOST_MATH_TMP(Floor, 2, 0)
OPGEN_HOST_MATH_TMP(Ceil, 2, 1)
OPGEN_HOST_MATH_TMP(Trunc, 2, 1)
OPGEN_HOST_MATH_TMP(Frac, 4, 0)
OPGEN_HOST_MATH_TMP(Fmod, 8, 1)  // Trunc's temporaries, and for half three float pairs more
OPGEN_HOST_MATH_TMP(Xor, 1, 1)
OPGEN_HOST_MATH_TMP(GeGLU, 4, 0)
#undef OPGEN_HOST_MATH_TMP

// Axpy: float needs no buffer (sizes 0; one live node), half four temporaries.
inline void GetAxpyMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                 const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    if (!math_tmp_detail::Check("GetAxpyMaxMinTmpSize", srcShape, typeSize)) return;
    if (typeSize == 4) {
        maxValue = minValue = 0;
        return;
    }
    math_tmp_detail::Sizes(srcShape, typeSize, 4, maxValue, minValue);
}
inline void GetAxpyTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount,
                                       uint32_t& extraBuf) {
    extraBuf = 0;
    maxLiveNodeCount = typeSize == 4 ? 1 : 4;
}

// Acosh, as asc-devkit writes it: factor repeats of 256 bytes at least; at most the input's elements
// times factor (at least 256 of them) in the input's bytes.
inline void GetAcoshMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                  const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    if (!math_tmp_detail::Check("GetAcoshMaxMinTmpSize", srcShape, typeSize)) return;
    const uint64_t factor = typeSize == 4 ? 1 : 2;
    const uint64_t n = static_cast<uint64_t>(srcShape.GetShapeSize());
    minValue = static_cast<uint32_t>(factor * math_tmp_detail::kRepeatBytes);
    maxValue = static_cast<uint32_t>(std::max<uint64_t>(factor * n, math_tmp_detail::kRepeatBytes) *
                                     typeSize);
}
inline void GetAcoshTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount,
                                        uint32_t& extraBuf) {
    extraBuf = 0;
    maxLiveNodeCount = typeSize == 4 ? 1 : 2;
}

// Swish, Silu, Log and Log10 need no buffer (asc-devkit's hosts give 0 and 0); Log2 one float
// temporary of the input for half, none for float; Clamp one byte an element (64 / 128 at least).
#define OPGEN_HOST_NO_TMP(OP)                                                                       \
    inline void Get##OP(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource, \
                        uint32_t& maxValue, uint32_t& minValue) {                                   \
        (void)srcShape;                                                                             \
        (void)typeSize;                                                                             \
        (void)isReuseSource;                                                                        \
        maxValue = minValue = 0;                                                                    \
    }
OPGEN_HOST_NO_TMP(SwishTmpSize)
OPGEN_HOST_NO_TMP(SiluTmpSize)
OPGEN_HOST_NO_TMP(LogMaxMinTmpSize)
OPGEN_HOST_NO_TMP(Log10MaxMinTmpSize)
#undef OPGEN_HOST_NO_TMP
inline void GetLogTmpBufferFactorSize(const uint32_t, uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
    maxLiveNodeCount = extraBuf = 0;
}
inline void GetLog10TmpBufferFactorSize(const uint32_t, uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
    maxLiveNodeCount = extraBuf = 0;
}
inline void GetLog2MaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                 const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    if (typeSize != 2) {
        maxValue = minValue = 0;
        return;
    }
    const uint64_t floats = static_cast<uint64_t>(srcShape.GetShapeSize()) * sizeof(float);
    minValue = math_tmp_detail::kRepeatBytes;
    maxValue = static_cast<uint32_t>(std::max<uint64_t>(floats, math_tmp_detail::kRepeatBytes));
}
inline void GetLog2TmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount,
                                       uint32_t& extraBuf) {
    extraBuf = 0;
    maxLiveNodeCount = typeSize == 4 ? 0 : 2;
}
inline void GetClampMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                  const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    if (!math_tmp_detail::Check("GetClampMaxMinTmpSize", srcShape, typeSize)) return;
    const uint64_t least = typeSize == 4 ? 64 : 128;
    minValue = static_cast<uint32_t>(least);
    maxValue = static_cast<uint32_t>(std::max<uint64_t>(static_cast<uint64_t>(srcShape.GetShapeSize()), least));
}
inline void GetClampTmpBufferFactorSize(const uint32_t, uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
    extraBuf = 0;
    maxLiveNodeCount = 1;
}

// Sum (impl/adv_api/tiling/reduce/sum_tiling.cpp): one sum a 256-byte repeat of the inner axis's n
// elements, rounded up to 32 bytes; the largest and smallest buffer are the same.
inline void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t typeSize, const bool isReuseSource,
                                uint32_t& maxSize, uint32_t& minSize) {
    (void)isReuseSource;
    if (typeSize == 0 || typeSize > 32 || n == 0) {
        math_tmp_detail::Report("GetSumMaxMinTmpSize", "typeSize " + std::to_string(typeSize) + " and n " +
                                                           std::to_string(n) +
                                                           ": typeSize must be 2 or 4 and n greater than 0");
        return;
    }
    const uint32_t per_block = 32 / typeSize, per_repeat = 256 / typeSize;
    const uint32_t repeats = (n + per_repeat - 1) / per_repeat;
    maxSize = minSize = (repeats + per_block - 1) / per_block * per_block * typeSize;
}

// SwiGLU: six temporaries of the input for half, none for float (its size arguments come in
// asc-devkit's order: max, min, then isReuseSource).
inline void GetSwiGLUMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                   uint32_t& minValue, const bool isReuseSource = false) {
    (void)isReuseSource;
    if (!math_tmp_detail::Check("GetSwiGLUMaxMinTmpSize", srcShape, typeSize)) return;
    math_tmp_detail::Sizes(srcShape, typeSize, typeSize == 4 ? 0 : 6, maxValue, minValue);
}
inline void GetSwiGLUTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount,
                                         uint32_t& extraBuffer) {
    extraBuffer = 0;
    maxLiveNodeCount = typeSize == 4 ? 0 : 6;
}

// CumSum (impl/adv_api/tiling/math/cumsum_tiling.cpp): down the first axis, half needs the whole
// input in float, float none; along the last axis two transposes' worth of 16 rows (at least) or of
// all rows rounded up to 16 (at most), plus for half the float sums' room.
inline void GetCumSumMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isLastAxis,
                                   const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    std::string error;
    if (typeSize != 2 && typeSize != 4) {
        error = "typeSize is " + std::to_string(typeSize) + "; CumSum takes half (2) or float (4)";
    } else if (srcShape.GetDimNum() != 2 || srcShape.GetDim(1) <= 0 ||
               (static_cast<uint64_t>(srcShape.GetDim(1)) * typeSize) % 32 != 0) {
        error = "srcShape must be 2-D with its inner dim a positive multiple of 32 bytes";
    }
    if (!error.empty()) {
        math_tmp_detail::Report("GetCumSumMaxMinTmpSize", error);
        return;
    }
    const uint64_t rows = static_cast<uint64_t>(srcShape.GetDim(0)), cols = static_cast<uint64_t>(srcShape.GetDim(1));
    if (!isLastAxis) {
        maxValue = minValue = typeSize == 2 ? static_cast<uint32_t>(rows * cols * sizeof(float)) : 0;
        return;
    }
    const uint64_t aligned = (rows + 15) / 16 * 16;
    const uint64_t castMin = typeSize == 2 ? cols * 16 * 2 : 0, castMax = typeSize == 2 ? cols * aligned * 2 : 0;
    minValue = static_cast<uint32_t>(castMin + 16 * cols * typeSize * 2);
    maxValue = static_cast<uint32_t>(castMax + aligned * cols * typeSize * 2);
}

// AscendQuant (impl/adv_api/tiling/quantization/ascend_quant_tiling_impl.cpp): two 256-byte repeats
// at least; at most two bytes an element (at least the minimum), rounded up to 32 bytes.
inline void GetAscendQuantMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                        uint32_t& minValue) {
    const int64_t n = srcShape.GetShapeSize();
    if (n <= 0 || (typeSize != 2 && typeSize != 4) || (static_cast<uint64_t>(n) * typeSize) % 32 != 0) {
        math_tmp_detail::Report("GetAscendQuantMaxMinTmpSize",
                                "the input must hold elements filling whole 32-byte blocks, of typeSize 2 "
                                "(half) or 4 (float); typeSize is " + std::to_string(typeSize));
    }
    minValue = 2 * math_tmp_detail::kRepeatBytes;
    const uint64_t most = std::max<uint64_t>(static_cast<uint64_t>(std::max<int64_t>(n, 0)) * 2, minValue);
    maxValue = static_cast<uint32_t>((most + 31) / 32 * 32);
}
inline void GetAscendQuantTmpBufferFactorSize(uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
    extraBuf = 0;
    maxLiveNodeCount = 2;
}

// Arange needs no buffer.
inline void GetArangeMaxMinTmpSize(uint32_t& maxValue, uint32_t& minValue) { maxValue = minValue = 0; }

// Sigmoid: one temporary of the input's bytes.
inline void GetSigmoidMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                    const bool isReuseSource, uint32_t& maxValue,
                                    uint32_t& minValue) {
    (void)isReuseSource;
    if (!math_tmp_detail::Check("GetSigmoidMaxMinTmpSize", srcShape, typeSize)) return;
    math_tmp_detail::Sizes(srcShape, typeSize, 1, maxValue, minValue);
}

// Gelu: three float temporaries, whatever the input's type.
inline uint32_t GetGeluMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize) {
    if (!math_tmp_detail::Check("GetGeluMinTmpSize", srcShape, typeSize)) return 0;
    return 3 * math_tmp_detail::kRepeatBytes;
}
inline uint32_t GetGeluMaxTmpSize(const ge::Shape& srcShape, const uint32_t typeSize) {
    if (!math_tmp_detail::Check("GetGeluMaxTmpSize", srcShape, typeSize)) return 0;
    const uint64_t floats = static_cast<uint64_t>(srcShape.GetShapeSize()) * sizeof(float);
    return static_cast<uint32_t>(std::max<uint64_t>(3 * math_tmp_detail::kRepeatBytes, 3 * floats));
}
inline void GetGeluMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                 uint32_t& maxValue, uint32_t& minValue) {
    if (!math_tmp_detail::Check("GetGeluMaxMinTmpSize", srcShape, typeSize)) return;
    maxValue = GetGeluMaxTmpSize(srcShape, typeSize);
    minValue = GetGeluMinTmpSize(srcShape, typeSize);
}

// Power (impl/adv_api/tiling/math/power_tiling_impl.cpp): a shape of one dimension of 1 is the
// scalar operand; the temporaries per element depend on the form (tensor^tensor or with a
// scalar), the type and the architecture (the simulated SoC's: DAV_2201 for the A2/A3 products,
// DAV_2002 for the 310P), plus one 256-byte repeat for float and half.
namespace math_tmp_detail {
struct PowFactors {
    uint32_t halfTT, intTT, floatTT, halfTS, intTS, floatTS;
};
inline bool PowFactorsOf(const char* api, PowFactors& f) {
    const NpuArch arch = platform_ascendc::PlatformAscendCManager::GetInstance()->GetCurNpuArch();
    if (arch == NpuArch::DAV_2201) {
        f = {14, 6, 4, 14, 7, 5};
    } else if (arch == NpuArch::DAV_2002) {
        f = {16, 7, 5, 16, 8, 6};
    } else {
        Report(api, "not supported on the simulated SoC");
        return false;
    }
    return true;
}
inline bool IsTensor(const ge::Shape& s) { return !(s.GetDimNum() == 1 && s.GetDim(0) == 1); }
}  // namespace math_tmp_detail

inline void GetPowerMaxMinTmpSize(const ge::Shape& srcShape1, const ge::Shape& srcShape2,
                                  const bool typeIsInt, const uint32_t typeSize,
                                  const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    math_tmp_detail::PowFactors f{};
    if (!math_tmp_detail::PowFactorsOf("GetPowerMaxMinTmpSize", f)) return;
    const bool t1 = math_tmp_detail::IsTensor(srcShape1);
    const bool tt = t1 && math_tmp_detail::IsTensor(srcShape2);
    const uint64_t n = static_cast<uint64_t>((t1 ? srcShape1 : srcShape2).GetShapeSize());
    constexpr uint64_t kRep = math_tmp_detail::kRepeatBytes;
    const uint64_t each = typeSize == 4 ? std::max<uint64_t>(n * typeSize, kRep)
                                        : std::max<uint64_t>(n * typeSize, kRep / 2);
    if (typeIsInt) {
        const uint32_t k = tt ? f.intTT : f.intTS;
        minValue = static_cast<uint32_t>(kRep * k);
        maxValue = static_cast<uint32_t>(each * k);
    } else if (typeSize == 4) {
        const uint32_t k = tt ? f.floatTT : f.floatTS;
        minValue = static_cast<uint32_t>(kRep * k + kRep);
        maxValue = static_cast<uint32_t>(each * k + kRep);
    } else {
        const uint32_t k = tt ? f.halfTT : f.halfTS;
        minValue = static_cast<uint32_t>(kRep * k / 2 + kRep);
        maxValue = static_cast<uint32_t>(each * k + kRep);
    }
}
inline void GetPowerTmpBufferFactorSize(const bool baseIsTensor, const bool expIsTensor,
                                        const bool typeIsInt, const uint32_t typeSize,
                                        uint32_t& maxLiveNodeCount, uint32_t& extraBuffer) {
    math_tmp_detail::PowFactors f{};
    if (!math_tmp_detail::PowFactorsOf("GetPowerTmpBufferFactorSize", f)) return;
    const bool tt = baseIsTensor && expIsTensor;
    extraBuffer = typeIsInt ? 0 : math_tmp_detail::kRepeatBytes;
    if (typeIsInt) {
        maxLiveNodeCount = tt ? f.intTT : f.intTS;
    } else if (typeSize == 4) {
        maxLiveNodeCount = tt ? f.floatTT : f.floatTS;
    } else {
        maxLiveNodeCount = tt ? f.halfTT : f.halfTS;
    }
}

}  // namespace AscendC
