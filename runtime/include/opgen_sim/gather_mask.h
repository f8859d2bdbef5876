// opgen NPU simulator: GatherMask, which packs the elements of a source selected by a bit pattern
// (a fixed one, or a tensor of the user's) into the start of its destination.
//
// Repeat r reads src0 lanes laid out as the other mask/repeat forms (vector_masked.h: block stride
// src0BlockStride, repeat stride src0RepeatStride). Its pattern bits start src1RepeatStride data
// blocks after the previous repeat's and are consumed in order, bit i of the pattern selecting lane
// i (bit 0 of the first element is lane 0). Selected elements of all repeats are packed one after
// another from dst[0]; rsvdCnt returns how many. Normal mode (reduceMode false) covers a whole
// 256-byte repeat; counter mode covers `mask` lanes per repeat (the 910B's "configuration one").
#pragma once

#include <algorithm>
#include <vector>

#include "vector_masked.h"

namespace AscendC {

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V2;
constexpr GatherMaskMode defaultGahterMaskMode = defaultGatherMaskMode;  // CANN's misspelling, kept

struct GatherMaskParams {
    GatherMaskParams() {}
    GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn,
                     const uint16_t src0RepeatStrideIn, const uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn),
          src0RepeatStride(src0RepeatStrideIn), src1RepeatStride(src1RepeatStrideIn) {}
    uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;
};

}  // namespace AscendC

namespace opgen_sim {

// The built-in patterns 1..7 as the bit of lane l.
inline bool FixedPatternBit(uint8_t pattern, uint32_t l) {
    switch (pattern) {
        case 1: return l % 2 == 0;
        case 2: return l % 2 == 1;
        case 3: return l % 4 == 0;
        case 4: return l % 4 == 1;
        case 5: return l % 4 == 2;
        case 6: return l % 4 == 3;
        default: return true;
    }
}

// `bit(r, l)` tells whether lane l of repeat r is selected; the pattern tensor (if any) has been
// checked by the caller.
template <typename T, typename Bit>
inline void GatherMaskRun(const char* api, const AscendC::LocalTensor<T>& dst,
                          const AscendC::LocalTensor<T>& src0, bool reduceMode, uint32_t mask,
                          const AscendC::GatherMaskParams& p, uint64_t& rsvdCnt, Bit bit) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                  "GatherMask takes 16- or 32-bit elements on this SoC (CANN's data type table)");
    const uint32_t lanes = reduceMode ? mask : RepeatLanes<T>();
    if (reduceMode && mask == 0) {
        Fail(ErrorKind::VectorCount, api, "mask 0 is outside [1, 2^32 - 1] in counter mode (reduceMode true)");
    }
    CheckUbAligned(dst, api, "dst");
    CheckUbAligned(src0, api, "src0");
    // Every selected element must lie inside src0, and the packed results inside dst; both are
    // checked before anything is written.
    uint64_t count = 0;
    for (int32_t r = 0; r < p.repeatTimes; ++r) {
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!bit(r, l)) continue;
            const uint64_t off = LaneOffset<T>(r, l, p.src0BlockStride, p.src0RepeatStride);
            if (off >= src0.size_) {
                Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                     "src0: the pattern selects element " + Str(off) + " (repeat " + std::to_string(r) +
                         ", lane " + std::to_string(l) + ") but the LocalTensor<" + TypeName<T>() +
                         "> has " + Str(src0.size_) + " elements");
            }
            ++count;
        }
    }
    if (count > dst.size_) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "dst: " + Str(count) + " selected elements do not fit the LocalTensor<" + TypeName<T>() +
                 "> of " + Str(dst.size_) + " elements");
    }
    // Sources may overlap dst (CANN forbids only partial overlap): gather first, then write.
    std::vector<T> packed;
    packed.reserve(count);
    for (int32_t r = 0; r < p.repeatTimes; ++r) {
        for (uint32_t l = 0; l < lanes; ++l) {
            if (bit(r, l)) packed.push_back(src0.ptr_[LaneOffset<T>(r, l, p.src0BlockStride, p.src0RepeatStride)]);
        }
    }
    std::copy(packed.begin(), packed.end(), dst.ptr_);
    rsvdCnt = count;
    // The instruction leaves the mask in normal mode (CANN: set counter mode again afterwards).
    Core& c = CurrentCore();
    c.rsvd_cnt = count;
    c.mask_counter = false;
    c.counters[kVectorInstructions] += 1;
    c.counters[kVectorRepeats] += p.repeatTimes;
    c.counters[kLanesUsed] += static_cast<int64_t>(count);
    c.counters[kLanesTotal] += static_cast<int64_t>(p.repeatTimes) * lanes;
}

}  // namespace opgen_sim

namespace AscendC {

// User pattern: U is uint16_t for 16-bit T and uint32_t for 32-bit T.
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt) {
    static_assert(std::is_unsigned_v<U> && sizeof(U) == sizeof(T),
                  "GatherMask: the pattern type must be uint16_t for 16-bit and uint32_t for 32-bit data");
    constexpr const char* api = "GatherMask";
    opgen_sim::CheckUbAligned(src1Pattern, api, "src1Pattern");
    const uint32_t lanes = reduceMode ? mask : opgen_sim::RepeatLanes<T>();
    const uint64_t stride = static_cast<uint64_t>(gatherMaskParams.src1RepeatStride) * opgen_sim::kBlockBytes;
    const uint64_t have = static_cast<uint64_t>(src1Pattern.size_) * sizeof(U);
    if (gatherMaskParams.repeatTimes > 0 && lanes > 0) {
        const uint64_t need = (gatherMaskParams.repeatTimes - 1) * stride + (lanes + 7) / 8;
        if (need > have) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                            "src1Pattern: " + std::to_string(gatherMaskParams.repeatTimes) + " repeat(s) of " +
                                std::to_string(lanes) + " lanes, src1RepeatStride " +
                                std::to_string(gatherMaskParams.src1RepeatStride) + ", read " +
                                opgen_sim::Str(need) + " bytes of a pattern of " + opgen_sim::Str(have) + " bytes");
        }
    }
    const auto* bits = reinterpret_cast<const uint8_t*>(src1Pattern.ptr_);
    opgen_sim::GatherMaskRun(api, dst, src0, reduceMode, mask, gatherMaskParams, rsvdCnt,
                             [&](int32_t r, uint32_t l) {
                                 const uint8_t byte = bits[static_cast<uint64_t>(r) * stride + l / 8];
                                 return ((byte >> (l % 8)) & 1u) != 0;
                             });
}

// Built-in pattern 1..7 (even lanes, odd lanes, lane 0/1/2/3 of every four, all lanes); the
// pattern is the same for every repeat, so src1RepeatStride is ignored.
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt) {
    if (src1Pattern < 1 || src1Pattern > 7) {
        opgen_sim::Fail(opgen_sim::ErrorKind::VectorCount, "GatherMask",
                        "built-in src1Pattern " + std::to_string(src1Pattern) + " is outside [1, 7]");
    }
    opgen_sim::GatherMaskRun("GatherMask", dst, src0, reduceMode, mask, gatherMaskParams, rsvdCnt,
                             [&](int32_t, uint32_t l) { return opgen_sim::FixedPatternBit(src1Pattern, l); });
}

}  // namespace AscendC
