// opgen NPU simulator: Sort32, which sorts each group of 32 scores in descending order and writes
// them as (score, index) pairs of 8 bytes: the score in the low bytes (a half score in the low 2,
// its 2 reserved bytes written as 0 here), the uint32_t index taken from src1 in the high 4.
// Equal scores keep their order (the one from the lower position first), as documented. Repeat r
// reads src0 and src1 from element 32 r and writes dst from byte 256 r.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <numeric>

#include "vector_masked.h"

namespace AscendC {

template <typename T>
inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
                   const int32_t repeatTime) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "Sort32 takes half or float scores");
    constexpr const char* api = "Sort32";
    constexpr uint32_t kGroup = 32;
    constexpr uint64_t kPairBytes = 8;
    if (repeatTime < 0 || repeatTime > 255) {
        opgen_sim::Fail(opgen_sim::ErrorKind::VectorCount, api,
                        "repeatTime " + std::to_string(repeatTime) + " is outside [0, 255]");
    }
    opgen_sim::CheckUbAligned(dst, api, "dst");
    opgen_sim::CheckUbAligned(src0, api, "src0");
    opgen_sim::CheckUbAligned(src1, api, "src1");
    const uint64_t n = static_cast<uint64_t>(repeatTime) * kGroup;
    const auto holds = [&](const char* what, uint64_t need, uint64_t have, const std::string& type) {
        if (need > have) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                            std::string(what) + ": " + std::to_string(repeatTime) + " repeat(s) need " +
                                opgen_sim::Str(need) + " elements but the LocalTensor<" + type + "> has " +
                                opgen_sim::Str(have));
        }
    };
    holds("src0", n, src0.size_, opgen_sim::TypeName<T>());
    holds("src1", n, src1.size_, "uint32_t");
    holds("dst", n * kPairBytes / sizeof(T), dst.size_, opgen_sim::TypeName<T>());
    // each repeat is sorted into a local buffer first, so a dst that overlaps its own sources works
    for (int32_t r = 0; r < repeatTime; ++r) {
        const T* score = src0.ptr_ + static_cast<uint64_t>(r) * kGroup;
        const uint32_t* index = src1.ptr_ + static_cast<uint64_t>(r) * kGroup;
        std::array<uint32_t, kGroup> order;
        std::iota(order.begin(), order.end(), 0u);
        // NaN scores compare as the smallest, so the order stays a strict weak ordering
        const auto key = [&](uint32_t i) {
            const float v = static_cast<float>(score[i]);
            return v != v ? -std::numeric_limits<float>::infinity() : v;
        };
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) > key(b); });
        std::array<uint8_t, kGroup * kPairBytes> out{};
        for (uint32_t k = 0; k < kGroup; ++k) {
            std::memcpy(out.data() + k * kPairBytes, score + order[k], sizeof(T));
            std::memcpy(out.data() + k * kPairBytes + 4, index + order[k], sizeof(uint32_t));
        }
        std::memcpy(reinterpret_cast<uint8_t*>(dst.ptr_) + static_cast<uint64_t>(r) * kGroup * kPairBytes, out.data(),
                    out.size());
    }
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    c.counters[opgen_sim::kVectorInstructions] += 1;
    c.counters[opgen_sim::kVectorRepeats] += repeatTime;
}

}  // namespace AscendC
