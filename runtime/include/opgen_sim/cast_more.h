// opgen NPU simulator: Cast's mask/repeat (level 0) forms and SetDeqScale.
//
// Ascend C API reference, "Cast": in the level-0 forms a repeat holds 256 bytes of the wider of
// the two types (64 lanes when either side is 32-bit, 128 for 16-bit pairs), the mask counts
// lanes of that type, and each operand steps through its own 32-byte blocks with its own block
// and repeat strides (UnaryRepeatParams, in blocks). Every lane converts as the count form does
// (pairs, RoundModes, saturation: vector.h, cast_detail).
// "SetDeqScale": the DEQSCALE register's s322fp16 field is one half `scale`; an int32_t -> half
// Cast yields src * scale. The simulator multiplies exactly and rounds once to half, to nearest
// even, saturating as the other conversions to half do (cast_detail::Dequantize); the reference
// does not say how the hardware rounds the product. Before any SetDeqScale a block's scale is 1.
#pragma once

#include "vector.h"
#include "vector_masked.h"

namespace AscendC {

inline void SetDeqScale(half scale) { opgen_sim::CurrentCore().deq_scale = static_cast<float>(scale); }

namespace cast_detail {
template <typename D, typename S>
inline D ConvertLane(S s, RoundMode mode) {
    if constexpr (std::is_same_v<S, int32_t> && std::is_same_v<D, half>) {
        return Dequantize(s, opgen_sim::CurrentCore().deq_scale);
    } else {
        return Convert<D>(s, mode);
    }
}

// The wider type fixes the lanes of a repeat and the mask's meaning.
template <typename D, typename S>
using Wide = std::conditional_t<(sizeof(D) >= sizeof(S)), D, S>;

template <typename D, typename S>
inline void CastRep(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode round_mode,
                    const opgen_sim::MaskSpec& m, const UnaryRepeatParams& p) {
    constexpr const char* api = "Cast";
    CheckPair<D, S>(round_mode);
    opgen_sim::CheckReach(api, m, dst, p.dstBlkStride, p.dstRepStride, "dst");
    opgen_sim::CheckReach(api, m, src, p.srcBlkStride, p.srcRepStride, "src");
    RoundMode mode = round_mode;
    if (mode == RoundMode::CAST_NONE) mode = RoundMode::CAST_RINT;
    D* d = dst.ptr_;
    const S* s = src.ptr_;
    const opgen_sim::RepOperand ops[2] = {opgen_sim::Operand<D>(p.dstBlkStride, p.dstRepStride),
                                          opgen_sim::Operand<S>(p.srcBlkStride, p.srcRepStride)};
    opgen_sim::ForRuns(m, ops, [&](int32_t r, uint32_t l, uint64_t n) {
        D* dd = d + opgen_sim::LaneOffset<D>(r, l, p.dstBlkStride, p.dstRepStride);
        const S* ss = s + opgen_sim::LaneOffset<S>(r, l, p.srcBlkStride, p.srcRepStride);
        if constexpr (std::is_same_v<S, int32_t> && std::is_same_v<D, half>) {
            for (uint64_t i = 0; i < n; ++i) dd[i] = ConvertLane<D>(ss[i], mode);
        } else {
            ConvertRange(dd, ss, n, mode);  // FastConvert where it is exact, then lane after lane
        }
    });
    opgen_sim::CountMasked<Wide<D, S>>(m);
}
}  // namespace cast_detail

template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                 const uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
    const opgen_sim::MaskSpec m = opgen_sim::ResolveMask<cast_detail::Wide<T, U>, isSetMask>(
        "Cast", true, 0, mask, repeatTime);
    cast_detail::CastRep(dst, src, roundMode, m, repeatParams);
}

template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                 const uint64_t mask, const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
    const opgen_sim::MaskSpec m = opgen_sim::ResolveMask<cast_detail::Wide<T, U>, isSetMask>(
        "Cast", false, mask, nullptr, repeatTime);
    cast_detail::CastRep(dst, src, roundMode, m, repeatParams);
}

}  // namespace AscendC
