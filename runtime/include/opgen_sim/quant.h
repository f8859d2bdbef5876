// opgen NPU simulator: the quantisation advanced API of the Atlas A2/A3 products (adv_api/
// quantization/ascend_quant.h). AscendQuant with a scale and an offset for the whole tensor runs
// CANN's A2 steps (asc-devkit impl/adv_api/detail/quantization/quant/ascend_quant_pre_impl.h), each
// an instruction of half: a float source is cast to half (CAST_NONE: to nearest even), multiplied by
// the scale as a half, the offset (a half) added, and the result cast to int8_t (CAST_NONE: to
// nearest even, saturating as the simulator's Cast does). The per-channel forms (a scale tensor)
// are declared and stop the build, saying they are not simulated yet.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tensor.h"
#include "vector.h"

namespace AscendC {

struct AscendQuantConfig {
    constexpr AscendQuantConfig(const uint32_t calcCountIn, const uint32_t offsetCountIn,
                                const uint32_t scaleCountIn, const uint32_t workLocalSizeIn)
        : calcCount(calcCountIn), offsetCount(offsetCountIn), scaleCount(scaleCountIn),
          workLocalSize(workLocalSizeIn) {}
    uint32_t calcCount = 0;
    uint32_t offsetCount = 0;
    uint32_t scaleCount = 0;
    uint32_t workLocalSize = 0;
};
constexpr AscendQuantConfig ASCEND_QUANT_DEFAULT_CFG = {0, 0, 0, 0};

namespace quant_detail {
template <typename T>
inline void PerTensor(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src,
                      const LocalTensor<uint8_t>* tmp, float scale, float offset, uint32_t calCount) {
    constexpr const char* api = "AscendQuant";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "AscendQuant takes a half or float source (the A2/A3 products)");
    opgen_sim::CheckOperand(src, calCount, api, "srcTensor");
    opgen_sim::CheckOperand(dst, calCount, api, "dstTensor");
    if (tmp != nullptr) opgen_sim::CheckUbAligned(*tmp, api, "sharedTmpBuffer");
    opgen_sim::FlushAll();
    const float hs = static_cast<float>(static_cast<half>(scale));
    const float ho = static_cast<float>(static_cast<half>(offset));
    for (uint32_t i = 0; i < calCount; ++i) {
        half h = static_cast<half>(src.ptr_[i]);                // Cast<half, float> (or the half itself)
        h = static_cast<half>(static_cast<float>(h) * hs);      // Muls in half
        h = static_cast<half>(static_cast<float>(h) + ho);      // Adds in half
        dst.ptr_[i] = cast_detail::Convert<int8_t>(h, RoundMode::CAST_RINT);  // Cast<int8_t, half>
    }
}
template <typename T>
constexpr bool kPerChannelNotSimulated = !std::is_same_v<T, T>;
}  // namespace quant_detail

template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale, const float offset,
                        const uint32_t calCount) {
    quant_detail::PerTensor(dstTensor, srcTensor, &sharedTmpBuffer, scale, offset, calCount);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor, const float scale,
                        const float offset, const uint32_t calCount) {
    quant_detail::PerTensor<T>(dstTensor, srcTensor, nullptr, scale, offset, calCount);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale, const float offset) {
    quant_detail::PerTensor(dstTensor, srcTensor, &sharedTmpBuffer, scale, offset, srcTensor.GetSize());
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor, const float scale,
                        const float offset) {
    quant_detail::PerTensor<T>(dstTensor, srcTensor, nullptr, scale, offset, srcTensor.GetSize());
}
// The per-channel forms (a scale tensor, with an offset scalar or tensor).
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG,
          typename Offset, typename... Rest>
inline void AscendQuant(const LocalTensor<int8_t>&, const LocalTensor<T>&, const LocalTensor<T>&, const Offset&,
                        Rest...) {
    static_assert(quant_detail::kPerChannelNotSimulated<T>,
                  "AscendQuant with a scale tensor (per channel) is not simulated yet: this kernel needs "
                  "hardware or the CANN CPU-debug build");
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG,
          typename Scale, typename Offset, typename... Rest>
inline void AscendQuant(const LocalTensor<int8_t>&, const LocalTensor<T>&, const LocalTensor<uint8_t>&,
                        const LocalTensor<Scale>&, const Offset&, Rest...) {
    static_assert(quant_detail::kPerChannelNotSimulated<T>,
                  "AscendQuant with a scale tensor (per channel) is not simulated yet: this kernel needs "
                  "hardware or the CANN CPU-debug build");
}

}  // namespace AscendC
