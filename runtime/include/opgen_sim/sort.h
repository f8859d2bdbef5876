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
#include <vector>

#include "../opgen_host/sort_tmp_size.h"
#include "deferred.h"
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

// ---- MrgSort, GetMrgSortResult, and the sort library (Sort, Concat, Extract, GetSortLen,
// GetSortOffset, the high-level MrgSort) ------------------------------------------------------------
// MrgSort (reference, "MrgSort"): merges up to 4 queues of (score, index) pairs, each sorted by
// descending score, into dst by descending score; on equal scores the lower queue goes first
// (documented), a NaN score counts as the smallest (as in Sort32). elementLengths count pairs (8
// bytes each). With ifExhaustedSuspension the merge stops when a queue runs out, and
// GetMrgSortResult reports how many pairs of each queue went to dst. repeatTimes > 1 merges
// repeatTimes groups of 4 contiguous equal queues, each group right after the one before in
// source and destination (its documented conditions are enforced).

constexpr uint8_t MRG_SORT_ELEMENT_LEN = 4;

struct MrgSort4Info {
    MrgSort4Info() {}
    MrgSort4Info(const uint16_t elementLengthsIn[MRG_SORT_ELEMENT_LEN], const bool ifExhaustedSuspensionIn,
                 const uint16_t validBitIn, const uint16_t repeatTimesIn)
        : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn),
          repeatTimes(static_cast<uint8_t>(repeatTimesIn)) {
        for (int32_t i = 0; i < MRG_SORT_ELEMENT_LEN; ++i) elementLengths[i] = elementLengthsIn[i];
    }
    uint16_t elementLengths[MRG_SORT_ELEMENT_LEN] = {0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint8_t repeatTimes = 1;
};

template <typename T>
struct MrgSortSrcList {
    MrgSortSrcList() {}
    MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In, const LocalTensor<T>& src3In,
                   const LocalTensor<T>& src4In)
        : src1(src1In), src2(src2In), src3(src3In), src4(src4In) {}
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};

}  // namespace AscendC

namespace opgen_sim {

inline thread_local uint16_t tls_mrgsort_result[4] = {0, 0, 0, 0};

template <typename T>
inline float SortKey(const uint8_t* pair) {
    T v;
    std::memcpy(&v, pair, sizeof(T));
    const float f = static_cast<float>(v);
    return f != f ? -std::numeric_limits<float>::infinity() : f;
}

template <typename T>
inline void MergeQueues(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>* const q[4],
                        const AscendC::MrgSort4Info& p) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "MrgSort takes half or float scores");
    constexpr uint64_t kPair = 8;
    const uint16_t vb = p.validBit;
    if (vb != 3 && vb != 7 && vb != 15) {
        Fail(ErrorKind::VectorCount, api, "validBit " + std::to_string(vb) + " is not 3, 7 or 15 (documented values)");
    }
    const int nq = vb == 3 ? 2 : (vb == 7 ? 3 : 4);
    for (int i = 0; i < nq; ++i) {
        if (p.elementLengths[i] > 4095) {
            Fail(ErrorKind::VectorCount, api,
                 "elementLengths[" + std::to_string(i) + "] = " + std::to_string(p.elementLengths[i]) +
                     " is outside [0, 4095]");
        }
    }
    CheckUbAligned(dst, api, "dst");
    const int32_t repeats = p.repeatTimes;
    if (repeats > 1) {
        bool ok = nq == 4 && !p.ifExhaustedSuspension;
        for (int i = 1; ok && i < 4; ++i) {
            ok = p.elementLengths[i] == p.elementLengths[0] &&
                 reinterpret_cast<const uint8_t*>(q[i]->ptr_) ==
                     reinterpret_cast<const uint8_t*>(q[0]->ptr_) + i * p.elementLengths[0] * kPair;
        }
        if (!ok) {
            Fail(ErrorKind::VectorCount, api,
                 "repeatTimes " + std::to_string(repeats) +
                     " > 1 needs 4 equal queues stored one after another, validBit 15 and "
                     "ifExhaustedSuspension false (documented)");
        }
    }
    uint64_t group = 0;  // pairs in one repeat
    for (int i = 0; i < nq; ++i) group += p.elementLengths[i];
    for (int i = 0; i < nq; ++i) {
        q[i]->CheckLive(api);
        FlushUb(q[i]->ptr_, static_cast<uint64_t>(q[i]->size_) * sizeof(T));
        if (reinterpret_cast<uintptr_t>(q[i]->ptr_) % 8 != 0) {
            Fail(ErrorKind::Alignment, api,
                 "src" + std::to_string(i + 1) + " starts at UB offset " + Str(q[i]->UbOffset()) +
                     ", which is not 8-byte aligned");
        }
        const uint64_t need =
            ((repeats > 1 ? (repeats - 1) * group : 0) + p.elementLengths[i]) * kPair / sizeof(T);
        if (repeats > 0 && need > q[i]->size_) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "src" + std::to_string(i + 1) + ": " + std::to_string(repeats) + " repeat(s) read " + Str(need) +
                     " elements but the LocalTensor<" + TypeName<T>() + "> has " + Str(q[i]->size_));
        }
        if (Overlaps(reinterpret_cast<const uint8_t*>(dst.ptr_), static_cast<uint64_t>(dst.size_) * sizeof(T),
                     reinterpret_cast<const uint8_t*>(q[i]->ptr_), p.elementLengths[i] * kPair)) {
            Fail(ErrorKind::Generic, api, "dst overlaps src" + std::to_string(i + 1) + " (the reference forbids it)");
        }
    }
    const uint64_t out_need = static_cast<uint64_t>(repeats) * group * kPair / sizeof(T);
    if (out_need > dst.size_) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "dst: " + std::to_string(repeats) + " repeat(s) of " + Str(group) + " pairs need " + Str(out_need) +
                 " elements but the LocalTensor<" + TypeName<T>() + "> has " + Str(dst.size_));
    }
    uint8_t* out = reinterpret_cast<uint8_t*>(dst.ptr_);
    uint16_t taken[4] = {0, 0, 0, 0};
    for (int32_t r = 0; r < repeats; ++r) {
        const uint8_t* base[4];
        uint32_t pos[4] = {0, 0, 0, 0};
        for (int i = 0; i < nq; ++i) base[i] = reinterpret_cast<const uint8_t*>(q[i]->ptr_) + r * group * kPair;
        uint64_t k = 0;
        while (true) {
            int best = -1;
            bool exhausted = false;
            for (int i = 0; i < nq; ++i) {
                if (pos[i] >= p.elementLengths[i]) {
                    exhausted = true;
                    continue;
                }
                if (best < 0 || SortKey<T>(base[i] + pos[i] * kPair) > SortKey<T>(base[best] + pos[best] * kPair)) {
                    best = i;
                }
            }
            if (best < 0 || (exhausted && p.ifExhaustedSuspension)) break;
            std::memcpy(out + (r * group + k) * kPair, base[best] + pos[best] * kPair, kPair);
            ++pos[best];
            ++k;
        }
        for (int i = 0; i < 4; ++i) taken[i] = static_cast<uint16_t>(i < nq ? pos[i] : 0);
    }
    std::memcpy(tls_mrgsort_result, taken, sizeof(taken));
    Core& c = CurrentCore();
    c.counters[kVectorInstructions] += 1;
    c.counters[kVectorRepeats] += repeats;
}

}  // namespace opgen_sim

namespace AscendC {

template <typename T>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params) {
    const LocalTensor<T>* q[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
    opgen_sim::MergeQueues("MrgSort", dst, q, params);
}

inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                             uint16_t& mrgSortList4) {
    mrgSortList1 = opgen_sim::tls_mrgsort_result[0];
    mrgSortList2 = opgen_sim::tls_mrgsort_result[1];
    mrgSortList3 = opgen_sim::tls_mrgsort_result[2];
    mrgSortList4 = opgen_sim::tls_mrgsort_result[3];
}

// The sort library's MrgSort: the counts of each queue that went to dst come back in sortedNum
// (with isExhaustedSuspension), as CANN's implementation reads them after the merge.
template <typename T, bool isExhaustedSuspension = false>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList, const uint16_t elementCountList[4],
                    uint32_t sortedNum[4], uint16_t validBit, const int32_t repeatTime) {
    MrgSort4Info info(elementCountList, isExhaustedSuspension, validBit, static_cast<uint16_t>(repeatTime));
    MrgSort(dst, sortList, info);
    if (isExhaustedSuspension) {
        for (int i = 0; i < 4; ++i) sortedNum[i] = opgen_sim::tls_mrgsort_result[i];
    }
}

// GetSortOffset / GetSortLen: on the 910B family a sorted element is an 8-byte (score, index) pair,
// so the results count elements of T: 4 per element for half, 2 for float (CANN's implementation;
// the reference says bytes).
template <typename T>
inline uint32_t GetSortOffset(const uint32_t elemOffset) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "GetSortOffset takes half or float");
    return elemOffset * (std::is_same_v<T, half> ? 4u : 2u);
}

template <typename T>
inline uint32_t GetSortLen(const uint32_t elemCount) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "GetSortLen takes half or float");
    return elemCount * (std::is_same_v<T, half> ? 4u : 2u);
}

// Concat: on the 910B family the scores need no region-proposal layout, so concat becomes src
// (CANN's implementation); repeatTime is checked against [0, 255].
template <typename T>
inline void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src, const LocalTensor<T>& tmp,
                   const int32_t repeatTime) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "Concat takes half or float");
    (void)tmp;
    if (repeatTime < 0 || repeatTime > 255) {
        opgen_sim::Fail(opgen_sim::ErrorKind::VectorCount, "Concat",
                        "repeatTime " + std::to_string(repeatTime) + " is outside [0, 255]");
    }
    opgen_sim::CheckUbAligned(src, "Concat", "src");
    concat = src;
}

// Sort<T, isFullSort>: Sort32 on repeatTime groups of 32; with isFullSort the groups are merged
// into one sequence by descending score (ties keep the lower position first, NaN last).
template <typename T, bool isFullSort>
inline void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat, const LocalTensor<uint32_t>& index,
                 LocalTensor<T>& tmp, const int32_t repeatTime) {
    constexpr const char* api = "Sort";
    Sort32(dst, concat, index, repeatTime);
    if constexpr (isFullSort) {
        opgen_sim::CheckUbAligned(tmp, api, "tmp");
        const uint64_t n = static_cast<uint64_t>(repeatTime) * 32;
        std::vector<uint64_t> pairs(n);
        std::memcpy(pairs.data(), dst.ptr_, n * 8);
        std::stable_sort(pairs.begin(), pairs.end(), [](const uint64_t& a, const uint64_t& b) {
            return opgen_sim::SortKey<T>(reinterpret_cast<const uint8_t*>(&a)) >
                   opgen_sim::SortKey<T>(reinterpret_cast<const uint8_t*>(&b));
        });
        std::memcpy(dst.ptr_, pairs.data(), n * 8);
    }
}

// Extract: the scores and indices of repeatTime * 32 sorted pairs (one 256-byte repeat of pairs each).
template <typename T>
inline void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex, const LocalTensor<T>& sorted,
                    const int32_t repeatTime) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "Extract takes half or float");
    constexpr const char* api = "Extract";
    if (repeatTime < 0 || repeatTime > 255) {
        opgen_sim::Fail(opgen_sim::ErrorKind::VectorCount, api,
                        "repeatTime " + std::to_string(repeatTime) + " is outside [0, 255]");
    }
    const uint64_t n = static_cast<uint64_t>(repeatTime) * 32;
    opgen_sim::CheckUbAligned(dstValue, api, "dstValue");
    opgen_sim::CheckUbAligned(dstIndex, api, "dstIndex");
    opgen_sim::CheckUbAligned(sorted, api, "sorted");
    const auto holds = [&](const char* what, uint64_t need, uint64_t have) {
        if (need > have) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                            std::string(what) + ": " + std::to_string(repeatTime) + " repeat(s) need " +
                                opgen_sim::Str(need) + " elements but the LocalTensor has " + opgen_sim::Str(have));
        }
    };
    holds("dstValue", n, dstValue.size_);
    holds("dstIndex", n, dstIndex.size_);
    holds("sorted", n * 8 / sizeof(T), sorted.size_);
    std::vector<uint8_t> pairs(n * 8);
    std::memcpy(pairs.data(), sorted.ptr_, pairs.size());
    for (uint64_t i = 0; i < n; ++i) {
        std::memcpy(&dstValue.ptr_[i], pairs.data() + i * 8, sizeof(T));
        std::memcpy(&dstIndex.ptr_[i], pairs.data() + i * 8 + 4, 4);
    }
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    c.counters[opgen_sim::kVectorInstructions] += 2;
    c.counters[opgen_sim::kVectorRepeats] += 2 * repeatTime;
}

// Sort<T[, U], isReuseSource, config> (the form with a SortConfig, the reference's Ascend 950 API;
// the simulator runs it on every target): count values in ascending order, or descending with
// config.isDescend, stable in both (equal values keep their input order), as documented.
// RADIX_SORT orders by the values' bits made unsigned-comparable (a float's sign bit set on a
// positive and all bits flipped on a negative, an integer's sign bit flipped: CANN's
// implementation; so -0.0 comes before +0.0 and a NaN beyond the infinity of its sign).
// MERGE_SORT (half or float, count a multiple of 32) compares the values as numbers, NaN last.
// An output index is the input index of each value's origin, or its position from 0 when there
// is no input index. A sharedTmpBuffer below GetSortMaxMinTmpSize's minimum is refused
// (opgen_host/sort_tmp_size.h); without one, the framework's temporary space is assumed.
}  // namespace AscendC

namespace opgen_sim {

template <typename T>
constexpr bool kSortFloat = std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t> || std::is_same_v<T, float>;

template <typename T>
inline uint64_t RadixKey(const T& v) {
    using Bits = std::conditional_t<sizeof(T) == 1, uint8_t,
                                    std::conditional_t<sizeof(T) == 2, uint16_t,
                                                       std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    Bits b;
    std::memcpy(&b, &v, sizeof(T));
    constexpr Bits sign = static_cast<Bits>(Bits(1) << (8 * sizeof(T) - 1));
    if constexpr (kSortFloat<T>) {
        b = (b & sign) ? static_cast<Bits>(~b) : static_cast<Bits>(b | sign);
    } else if constexpr (std::is_signed_v<T>) {
        b = static_cast<Bits>(b ^ sign);
    }
    return b;
}

template <typename T, typename U, bool isReuseSource, const AscendC::SortConfig& config>
inline void ConfigSort(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>* dstIndex,
                       const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<U>* srcIndex,
                       const AscendC::LocalTensor<uint8_t>* tmp, const uint32_t count) {
    constexpr const char* api = "Sort";
    constexpr bool merge = config.type == AscendC::SortType::MERGE_SORT;
    if constexpr (merge) {
        static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "Sort MERGE_SORT takes half or float");
        static_assert(std::is_same_v<U, uint32_t>, "Sort MERGE_SORT takes a uint32_t index");
    } else {
        static_assert(std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t> || std::is_same_v<T, uint16_t> ||
                          std::is_same_v<T, int16_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, int32_t> ||
                          std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t> || std::is_same_v<T, float> ||
                          std::is_same_v<T, uint64_t> || std::is_same_v<T, int64_t>,
                      "Sort RADIX_SORT takes uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, half, "
                      "bfloat16_t, float, uint64_t or int64_t");
        static_assert(std::is_same_v<U, uint32_t> || std::is_same_v<U, int32_t> || std::is_same_v<U, uint64_t> ||
                          std::is_same_v<U, int64_t>,
                      "Sort RADIX_SORT takes a uint32_t, int32_t, uint64_t or int64_t index");
    }
    CheckUbAligned(dst, api, "dst");
    CheckUbAligned(src, api, "src");
    if (dstIndex != nullptr) CheckUbAligned(*dstIndex, api, "dstIndex");
    if (srcIndex != nullptr) CheckUbAligned(*srcIndex, api, "srcIndex");
    if (tmp != nullptr) CheckUbAligned(*tmp, api, "sharedTmpBuffer");
    if (count == 0) Fail(ErrorKind::VectorCount, api, "calCount is 0, should be at least 1");
    const auto holds = [&](const char* what, uint64_t have) {
        if (count > have) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 std::string(what) + ": calCount " + Str(count) + " is more than the LocalTensor's " + Str(have) +
                     " elements");
        }
    };
    holds("src", src.size_);
    holds("dst", dst.size_);
    if (dstIndex != nullptr) holds("dstIndex", dstIndex->size_);
    if (srcIndex != nullptr) holds("srcIndex", srcIndex->size_);
    if constexpr (merge) {
        if (count % 32 != 0) {
            Fail(ErrorKind::VectorCount, api,
                 "calCount " + Str(count) + " is not a multiple of 32, which MERGE_SORT needs");
        }
        // CANN's implementation sorts the (value, index) pairs in dst: 8 bytes an element
        if (static_cast<uint64_t>(dst.size_) * sizeof(T) < 8ull * count) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "dst: MERGE_SORT of " + Str(count) + " elements needs " + Str(8ull * count) +
                     " bytes but the LocalTensor has " + Str(static_cast<uint64_t>(dst.size_) * sizeof(T)));
        }
    }
    const uint8_t* srcBytes = reinterpret_cast<const uint8_t*>(src.ptr_);
    const uint64_t valueBytes = static_cast<uint64_t>(count) * sizeof(T);
    if (Overlaps(reinterpret_cast<const uint8_t*>(dst.ptr_), valueBytes, srcBytes, valueBytes)) {
        Fail(ErrorKind::Generic, api, "dst and src overlap; the reference does not allow that");
    }
    if (tmp != nullptr) {
        const uint8_t* t = reinterpret_cast<const uint8_t*>(tmp->ptr_);
        if (Overlaps(t, tmp->size_, srcBytes, valueBytes) ||
            Overlaps(t, tmp->size_, reinterpret_cast<const uint8_t*>(dst.ptr_), valueBytes)) {
            Fail(ErrorKind::Generic, api, "sharedTmpBuffer overlaps src or dst; the reference does not allow that");
        }
        const opgen_sort::TmpSize need =
            opgen_sort::SortTmpSize(count, sizeof(T), srcIndex != nullptr ? sizeof(U) : 0, isReuseSource,
                                    config.type, srcIndex != nullptr, dstIndex != nullptr);
        if (!need.error.empty()) Fail(ErrorKind::Generic, api, need.error);
        if (tmp->size_ < need.minBytes) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "sharedTmpBuffer holds " + Str(tmp->size_) + " bytes, below GetSortMaxMinTmpSize's minimum of " +
                     Str(need.minBytes) + " for " + Str(count) + " elements");
        }
    }
    std::vector<T> values(src.ptr_, src.ptr_ + count);
    std::vector<uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0u);
    if constexpr (merge) {
        std::vector<float> key(count);
        for (uint32_t i = 0; i < count; ++i) {
            const float f = static_cast<float>(values[i]);
            key[i] = f != f ? -std::numeric_limits<float>::infinity() : (config.isDescend ? f : -f);
        }
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            const bool aNan = values[a] != values[a], bNan = values[b] != values[b];
            if (aNan || bNan) return !aNan && bNan;
            return key[a] > key[b];
        });
    } else {
        std::vector<uint64_t> key(count);
        for (uint32_t i = 0; i < count; ++i) key[i] = RadixKey(values[i]);
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return config.isDescend ? key[a] > key[b] : key[a] < key[b];
        });
    }
    std::vector<U> indices;
    if (dstIndex != nullptr) {
        indices.resize(count);
        for (uint32_t k = 0; k < count; ++k) {
            indices[k] = srcIndex != nullptr ? srcIndex->ptr_[order[k]] : static_cast<U>(order[k]);
        }
    }
    for (uint32_t k = 0; k < count; ++k) dst.ptr_[k] = values[order[k]];
    if (dstIndex != nullptr) std::memcpy(dstIndex->ptr_, indices.data(), count * sizeof(U));
    Core& c = CurrentCore();
    c.counters[kVectorInstructions] += 1;
    c.counters[kVectorRepeats] += (valueBytes + 255) / 256;
}

}  // namespace opgen_sim

namespace AscendC {

template <typename T, typename U, bool isReuseSource = false, const SortConfig& config = DEFAULT_SORT_CONFIG>
inline void Sort(LocalTensor<T>& dst, LocalTensor<U>& dstIndex, const LocalTensor<T>& src,
                 const LocalTensor<U>& srcIndex, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {
    opgen_sim::ConfigSort<T, U, isReuseSource, config>(dst, &dstIndex, src, &srcIndex, &sharedTmpBuffer, calCount);
}

template <typename T, typename U, bool isReuseSource = false, const SortConfig& config = DEFAULT_SORT_CONFIG>
inline void Sort(const LocalTensor<T>& dst, const LocalTensor<U>& dstIndex, const LocalTensor<T>& src,
                 const LocalTensor<U>& srcIndex, const uint32_t calCount) {
    opgen_sim::ConfigSort<T, U, isReuseSource, config>(dst, &dstIndex, src, &srcIndex, nullptr, calCount);
}

template <typename T, bool isReuseSource = false, const SortConfig& config = DEFAULT_SORT_CONFIG>
inline void Sort(LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                 const uint32_t calCount) {
    opgen_sim::ConfigSort<T, uint32_t, isReuseSource, config>(dst, nullptr, src, nullptr, &sharedTmpBuffer,
                                                              calCount);
}

template <typename T, bool isReuseSource = false, const SortConfig& config = DEFAULT_SORT_CONFIG>
inline void Sort(LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount) {
    opgen_sim::ConfigSort<T, uint32_t, isReuseSource, config>(dst, nullptr, src, nullptr, nullptr, calCount);
}

template <typename T, bool isReuseSource = false, const SortConfig& config = DEFAULT_SORT_CONFIG>
inline void Sort(LocalTensor<T>& dst, LocalTensor<uint32_t>& dstIndex, const LocalTensor<T>& src,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {
    opgen_sim::ConfigSort<T, uint32_t, isReuseSource, config>(dst, &dstIndex, src, nullptr, &sharedTmpBuffer,
                                                              calCount);
}

template <typename T, bool isReuseSource = false, const SortConfig& config = DEFAULT_SORT_CONFIG>
inline void Sort(LocalTensor<T>& dst, LocalTensor<uint32_t>& dstIndex, const LocalTensor<T>& src,
                 const uint32_t calCount) {
    opgen_sim::ConfigSort<T, uint32_t, isReuseSource, config>(dst, &dstIndex, src, nullptr, nullptr, calCount);
}

}  // namespace AscendC
