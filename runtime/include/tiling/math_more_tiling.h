// opgen host runtime: the host's temporary-buffer sizes of the math-library APIs of
// opgen_sim/math_more.h (tiling/tiling_api.h includes this): Rint, Fma, BitwiseAnd, LogicalAnd and
// Where. None of them uses a temporary buffer: the largest and smallest sizes, the live-node
// count and the extra buffer are all 0, as asc-devkit's host implementation gives them
// (impl/adv_api/tiling/math/<op>_tiling_impl.cpp). CANN gives these figures for npu arch 3510 only
// and logs "Unsupported NpuArch" elsewhere; the simulator runs the kernels on every target, so it
// gives them on every target too. Its argument checks are CANN's: an empty shape is an error and
// the outputs stay as they were; an unsupported typeSize is an error that CANN logs and goes on
// from (the outputs are written); isReuseSource true is a warning (it has no effect).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "math_tmp_size.h"

namespace AscendC {
namespace math_more_tiling_detail {

// CANN's checks of a Get<Op>MaxMinTmpSize call; false if the outputs must stay as they were.
inline bool CheckMaxMin(const char* api, const ge::Shape& srcShape, uint32_t typeSize, bool isReuseSource,
                        std::initializer_list<uint32_t> sizes, const char* names) {
    if (srcShape.GetShapeSize() <= 0) {
        math_tmp_detail::Report(api, "the input shape holds no element; its size must be greater than 0");
        return false;
    }
    bool known = false;
    for (uint32_t s : sizes) known = known || s == typeSize;
    if (!known) {
        math_tmp_detail::Report(api, "typeSize " + std::to_string(typeSize) + " is unsupported; it must be " + names);
    }
    if (isReuseSource) {
        math_tmp_detail::Log(opgen_host::kLogWarn, api, "isReuseSource is true, which has no effect");
    }
    return true;
}
inline void CheckFactor(const char* api, uint32_t typeSize, std::initializer_list<uint32_t> sizes,
                        const char* names) {
    bool known = false;
    for (uint32_t s : sizes) known = known || s == typeSize;
    if (!known) {
        math_tmp_detail::Report(api, "typeSize " + std::to_string(typeSize) + " is unsupported; it must be " + names);
    }
}

}  // namespace math_more_tiling_detail

#define OPGEN_HOST_MATH_NO_TMP(OP, SIZES, NAMES)                                                                \
    inline void Get##OP##MaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform,                \
                                       const ge::Shape& srcShape, const uint32_t typeSize,                      \
                                       const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {      \
        (void)ascendcPlatform;                                                                                  \
        if (!math_more_tiling_detail::CheckMaxMin("Get" #OP "MaxMinTmpSize", srcShape, typeSize, isReuseSource,  \
                                                  SIZES, NAMES)) {                                              \
            return;                                                                                             \
        }                                                                                                       \
        maxValue = 0u;                                                                                          \
        minValue = 0u;                                                                                          \
    }                                                                                                           \
    inline void Get##OP##TmpBufferFactorSize(const platform_ascendc::PlatformAscendC& ascendcPlatform,          \
                                             const uint32_t typeSize, uint32_t& maxLivedNodeCount,              \
                                             uint32_t& extraBuf) {                                              \
        (void)ascendcPlatform;                                                                                  \
        math_more_tiling_detail::CheckFactor("Get" #OP "TmpBufferFactorSize", typeSize, SIZES, NAMES);          \
        extraBuf = 0u;                                                                                          \
        maxLivedNodeCount = 0u;                                                                                 \
    }
OPGEN_HOST_MATH_NO_TMP(Rint, (std::initializer_list<uint32_t>{2, 4}), "2 (half) or 4 (float)")
OPGEN_HOST_MATH_NO_TMP(Fma, (std::initializer_list<uint32_t>{2, 4}), "2 (half) or 4 (float)")
OPGEN_HOST_MATH_NO_TMP(BitwiseAnd, (std::initializer_list<uint32_t>{1, 2, 4, 8}), "1, 2, 4 or 8")
OPGEN_HOST_MATH_NO_TMP(LogicalAnd, (std::initializer_list<uint32_t>{1, 2, 4, 8}), "1, 2, 4 or 8")
OPGEN_HOST_MATH_NO_TMP(Where, (std::initializer_list<uint32_t>{1, 2, 4, 8}), "1, 2, 4 or 8")
#undef OPGEN_HOST_MATH_NO_TMP

}  // namespace AscendC
