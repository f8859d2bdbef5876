// opgen NPU simulator: the mask/repeat ("tensor high-dimension slicing") forms of the vector
// instructions, the mask register (SetMaskCount/SetMaskNorm/SetVectorMask/ResetMask), and the
// repeat reductions WholeReduceSum/Max/Min and BlockReduceSum/Max/Min.
//
// One repeat covers 256 bytes: 8 data blocks of 32 bytes. Lane l of repeat r of an operand sits
// at element r * repStride * B + (l / B) * blkStride * B + l % B, B = 32 / sizeof(T). Every
// element a call would touch is checked against the LocalTensor first.
#pragma once

#include "vector.h"

namespace AscendC {

constexpr int32_t DEFAULT_BLK_STRIDE = 1;
constexpr uint8_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr uint64_t MASK_PLACEHOLDER_LIST[2] = {0, 0};

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

// The reduction of ReduceRepeat, ReduceDataBlock and ReducePairElem (asc-devkit
// impl/utils/common_types.h).
enum class ReduceType { SUM = 0, MAX, MIN };

enum class ReduceOrder : uint8_t {
    ORDER_VALUE_INDEX = 0,
    ORDER_INDEX_VALUE,
    ORDER_ONLY_VALUE,
    ORDER_ONLY_INDEX,
};

struct BinaryRepeatParams {
    BinaryRepeatParams() {}
    BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn,
                       const uint8_t src1BlkStrideIn, const uint8_t dstRepStrideIn,
                       const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn),
          src1BlkStride(src1BlkStrideIn), dstRepStride(dstRepStrideIn),
          src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

struct UnaryRepeatParams {
    UnaryRepeatParams() {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn,
                      const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn),
          dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn,
                      const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn,
                      const bool halfBlockIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn),
          dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    bool halfBlock = false;
};

// ---- mask register -----------------------------------------------------------------------
inline void SetMaskCount() { opgen_sim::CurrentCore().mask_counter = true; }
inline void SetMaskNorm() { opgen_sim::CurrentCore().mask_counter = false; }
inline void ResetMask() {
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    c.mask_hi = c.mask_lo = ~0ull;
}

template <typename T, MaskMode mode = MaskMode::NORMAL>
static inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    c.mask_hi = maskHigh;
    c.mask_lo = maskLow;
}

template <typename T, MaskMode mode = MaskMode::NORMAL>
static inline void SetVectorMask(int32_t len) {
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    if (mode == MaskMode::COUNTER || c.mask_counter) {
        c.mask_hi = 0;
        c.mask_lo = static_cast<uint64_t>(len);
        return;
    }
    const uint32_t n = len < 0 ? 0u : static_cast<uint32_t>(len);
    c.mask_lo = n >= 64 ? ~0ull : ((1ull << n) - 1);
    c.mask_hi = n >= 128 ? ~0ull : (n <= 64 ? 0ull : ((1ull << (n - 64)) - 1));
}

}  // namespace AscendC

namespace opgen_sim {

// Lanes of one repeat: 256 bytes of T, at most 128 (the mask register is 128 bits).
template <typename T>
constexpr uint32_t RepeatLanes() {
    return kRepeatBytes / sizeof(T) > 128 ? 128u : static_cast<uint32_t>(kRepeatBytes / sizeof(T));
}
template <typename T>
constexpr uint32_t BlockElems() {
    return static_cast<uint32_t>(kBlockBytes / sizeof(T));
}

// The set bits of a mask word, without a call (the x86-64 baseline has no popcnt instruction,
// so the builtin is a libgcc call: 2% of a mask/repeat-heavy kernel's time).
constexpr uint32_t Ones64(uint64_t v) {
    v = v - ((v >> 1) & 0x5555555555555555ull);
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return static_cast<uint32_t>((v * 0x0101010101010101ull) >> 56);
}

// The lanes one level-0 call computes: a per-repeat lane mask (normal mode), or the first
// `count` elements laid out repeat after repeat (counter mode).
struct MaskSpec {
    bool counter = false;
    uint64_t count = 0;
    uint64_t bits[2] = {0, 0};
    int32_t repeats = 0;
    uint32_t lanes = 0;
    bool Active(int32_t r, uint32_t l) const {
        if (counter) return static_cast<uint64_t>(r) * lanes + l < count;
        return ((bits[l >> 6] >> (l & 63)) & 1u) != 0;
    }
    // The active lanes of each repeat (normal mode).
    uint32_t RepeatActive() const { return Ones64(bits[0]) + Ones64(bits[1]); }
    uint64_t ActiveLanes() const {
        if (counter) return count;
        return static_cast<uint64_t>(RepeatActive()) * static_cast<uint64_t>(repeats);
    }
    // The lanes of the call, active or not: repeats * lanes (counter mode: count).
    uint64_t TotalLanes() const { return counter ? count : static_cast<uint64_t>(repeats) * lanes; }
    // Every lane of repeat r is active (the bits never reach past the lanes of a repeat).
    bool AllActive(int32_t r) const {
        if (counter) return count >= (static_cast<uint64_t>(r) + 1) * lanes;
        return RepeatActive() == lanes;
    }
};

inline void CheckRepeatTimes(int64_t repeat, const char* api) {
    if (repeat < 0 || repeat > 255) {
        Fail(ErrorKind::VectorCount, api,
             "repeatTime " + std::to_string(repeat) + " is outside [0, 255]");
    }
}

// Resolves the mask of a call. isSetMask: the call's mask argument is used (and written to the
// mask register, as the hardware does); otherwise the register set by SetVectorMask is used.
template <typename T, bool isSetMask>
inline MaskSpec ResolveMask(const char* api, bool is_bits, uint64_t count_mask, const uint64_t* bit_mask,
                            int64_t repeat) {
    static_assert(sizeof(T) >= 2, "mask/repeat forms take 16-, 32- or 64-bit elements");
    Core& c = CurrentCore();
    MaskSpec m;
    m.lanes = RepeatLanes<T>();
    if (c.mask_counter) {  // counter mode: the mask is the element count, repeatTime is ignored
        m.counter = true;
        m.count = isSetMask ? (is_bits ? bit_mask[0] : count_mask) : c.mask_lo;
        if (isSetMask) {
            c.mask_hi = 0;
            c.mask_lo = m.count;
        }
        m.repeats = static_cast<int32_t>((m.count + m.lanes - 1) / m.lanes);
        return m;
    }
    CheckRepeatTimes(repeat, api);
    m.repeats = static_cast<int32_t>(repeat);
    if (!isSetMask) {
        m.bits[0] = c.mask_lo;
        m.bits[1] = m.lanes > 64 ? c.mask_hi : 0;
        if (m.lanes < 64) m.bits[0] &= (1ull << m.lanes) - 1;
        return m;
    }
    if (is_bits) {
        if (m.lanes <= 64 && bit_mask[1] != 0) {
            Fail(ErrorKind::VectorCount, api,
                 std::string("mask[1] must be 0 for ") + TypeName<T>() + " (a repeat has " +
                     std::to_string(m.lanes) + " lanes, all in mask[0])");
        }
        if (m.lanes < 64 && (bit_mask[0] >> m.lanes) != 0) {
            Fail(ErrorKind::VectorCount, api,
                 std::string("mask[0] sets bits past lane ") + std::to_string(m.lanes - 1) +
                     " of a " + TypeName<T>() + " repeat");
        }
        m.bits[0] = bit_mask[0];
        m.bits[1] = m.lanes > 64 ? bit_mask[1] : 0;
        if (m.bits[0] == 0 && m.bits[1] == 0) {
            Fail(ErrorKind::VectorCount, api, "the bit mask is all zero: no lane would compute");
        }
    } else {
        if (count_mask < 1 || count_mask > m.lanes) {
            Fail(ErrorKind::VectorCount, api,
                 "mask " + std::to_string(count_mask) + " is outside [1, " +
                     std::to_string(m.lanes) + "] for " + TypeName<T>() + " (" +
                     std::to_string(m.lanes) + " elements per 256-byte repeat)");
        }
        const uint32_t n = static_cast<uint32_t>(count_mask);
        m.bits[0] = n >= 64 ? ~0ull : ((1ull << n) - 1);
        m.bits[1] = n >= 128 ? ~0ull : (n <= 64 ? 0ull : ((1ull << (n - 64)) - 1));
    }
    c.mask_lo = m.bits[0];
    c.mask_hi = m.bits[1];
    return m;
}

template <typename T>
inline uint64_t LaneOffset(int32_t r, uint32_t l, uint32_t blk, uint32_t rep) {
    constexpr uint32_t B = BlockElems<T>();
    return static_cast<uint64_t>(r) * rep * B + static_cast<uint64_t>(l / B) * blk * B + l % B;
}

// One operand of a mask/repeat call as ForRuns sees it: elements per 32-byte block, and its block
// and repeat strides (in blocks).
struct RepOperand {
    uint32_t block;
    uint32_t blk;
    uint32_t rep;
};
template <typename T>
constexpr RepOperand Operand(uint32_t blk, uint32_t rep) {
    return {BlockElems<T>(), blk, rep};
}
// Whether an operand's repeats lie one after another, each `lanes` consecutive elements.
inline bool Follows(const RepOperand& o, uint32_t lanes) {
    return o.blk == 1 && static_cast<uint64_t>(o.rep) * o.block == lanes;
}

// The active lanes of one repeat as runs of consecutive lanes in every operand, in lane order.
// Lanes of one data block are consecutive in their operand; so are a repeat's blocks where every
// operand's block stride is 1. In normal mode every repeat has the same runs; in counter mode a
// repeat's active lanes are its first ones.
class LaneRuns {
public:
    template <size_t K>
    LaneRuns(const MaskSpec& m, const RepOperand (&ops)[K]) : m_(m) {
        span_ = m.lanes;
        for (const RepOperand& o : ops) {
            if (o.blk != 1) span_ = o.block < span_ ? o.block : span_;
            follow_ = follow_ && Follows(o, m.lanes);
        }
        if (m.counter) return;
        for (uint32_t l = 0; l < m.lanes;) {
            if (!Bit(l)) {
                ++l;
                continue;
            }
            uint32_t e = l + 1;
            while (e < m.lanes && e % span_ != 0 && Bit(e)) ++e;
            first_[n_] = l;
            count_[n_] = e - l;
            ++n_;
            l = e;
        }
    }
    // Every operand's repeats follow one another, each whole: all the call's lanes are one run.
    bool OneRun() const {
        if (!follow_) return false;
        return m_.counter || (n_ == 1 && count_[0] == m_.lanes);
    }
    // Every lane of repeat r is active and the repeat is one run.
    bool Whole(int32_t r) const { return span_ == m_.lanes && m_.AllActive(r); }
    // run(l, n) for the runs of repeat r.
    template <typename G>
    void Each(int32_t r, G run) const {
        if (m_.counter) {
            const uint64_t before = static_cast<uint64_t>(r) * m_.lanes;
            if (m_.count <= before) return;
            const uint32_t active = m_.count - before < m_.lanes ? static_cast<uint32_t>(m_.count - before) : m_.lanes;
            for (uint32_t l = 0; l < active; l += span_) run(l, active - l < span_ ? active - l : span_);
            return;
        }
        for (uint32_t k = 0; k < n_; ++k) run(first_[k], count_[k]);
    }

private:
    bool Bit(uint32_t l) const { return ((m_.bits[l >> 6] >> (l & 63)) & 1u) != 0; }
    const MaskSpec& m_;
    uint32_t span_ = 0;  // a run never crosses a multiple of span_
    bool follow_ = true;
    uint32_t first_[128];  // runs [first_[k], first_[k] + count_[k]) for k < n_
    uint32_t count_[128];
    uint32_t n_ = 0;
};

// The active lanes of a call as runs, in the order the lanes compute (repeat after repeat, lane
// after lane): run(r, l, n) stands for lanes l .. l + n - 1 of repeat r, which lie at n
// consecutive elements of every operand (from LaneOffset(r, l) of each). Where each operand's
// repeats follow one another and every lane is active, the whole call is one run,
// run(0, 0, repeats * lanes) (counter mode: its `count` lanes). An instruction running each run
// as one step reads a run's sources before writing its dst; where a source overlaps the run's
// dst other than element for element (the same start), it must step through the run lane by
// lane, as MapLanes and FastConvert decide.
template <size_t K, typename G>
inline void ForRuns(const MaskSpec& m, const RepOperand (&ops)[K], G run) {
    if (m.repeats <= 0) return;
    const LaneRuns runs(m, ops);
    if (runs.OneRun()) {
        if (m.TotalLanes() > 0) run(0, 0u, m.TotalLanes());
        return;
    }
    for (int32_t r = 0; r < m.repeats; ++r) {
        runs.Each(r, [&](uint32_t l, uint32_t n) { run(r, l, static_cast<uint64_t>(n)); });
    }
}

// The active lane of repeat r farthest into its operand (the first of them, at block stride 0);
// false if no lane of r is active. At a block stride of 1 or more offsets grow with the lane.
template <typename T>
inline bool FarthestLane(const MaskSpec& m, int32_t r, uint32_t blk, uint32_t* lane) {
    uint32_t last = 0;  // the highest active lane + 1
    if (m.counter) {
        const uint64_t before = static_cast<uint64_t>(r) * m.lanes;
        if (m.count <= before) return false;
        last = m.count - before < m.lanes ? static_cast<uint32_t>(m.count - before) : m.lanes;
    } else if (m.bits[1] != 0) {
        last = 128 - static_cast<uint32_t>(__builtin_clzll(m.bits[1]));
    } else if (m.bits[0] != 0) {
        last = 64 - static_cast<uint32_t>(__builtin_clzll(m.bits[0]));
    } else {
        return false;
    }
    if (blk != 0) {
        *lane = last - 1;
        return true;
    }
    // every lane below `last` active (counter mode, a count mask): the first lane at the block's
    // last element, or the last lane of a shorter run
    const uint32_t below = m.counter ? last : m.RepeatActive();
    if (below == last) {
        *lane = last < BlockElems<T>() ? last - 1 : BlockElems<T>() - 1;
        return true;
    }
    bool any = false;
    for (uint32_t l = 0; l < last; ++l) {  // offsets repeat every block: the largest l % B
        if (m.Active(r, l) && (!any || l % BlockElems<T>() > *lane % BlockElems<T>())) {
            *lane = l;
            any = true;
        }
    }
    return any;
}

// The element of an operand farthest from its start that the call reaches, and its repeat and
// lane (the first such). Offsets grow with the repeat, and all repeats but a counter-mode tail
// share one lane set, so the last two repeats bound the reach.
struct Reach {
    bool any = false;
    uint64_t offset = 0;
    int32_t repeat = 0;
    uint32_t lane = 0;
};
template <typename T>
inline Reach Farthest(const MaskSpec& m, uint32_t blk, uint32_t rep) {
    Reach reach;
    for (int32_t r = m.repeats - 1; r >= 0 && r >= m.repeats - 2; --r) {
        uint32_t l = 0;
        if (!FarthestLane<T>(m, r, blk, &l)) continue;
        const uint64_t off = LaneOffset<T>(r, l, blk, rep);
        if (!reach.any || off > reach.offset) reach = {true, off, r, l};
    }
    return reach;
}

// Elements from an operand's start to one past the farthest one the call reaches (0: none).
template <typename T>
inline uint64_t ReachEnd(const MaskSpec& m, uint32_t blk, uint32_t rep) {
    const Reach reach = Farthest<T>(m, blk, rep);
    return reach.any ? reach.offset + 1 : 0;
}

// Checks that every element the mask and repeats reach (Farthest) is inside the operand, or by
// default inside the Unified Buffer (ReachesOnInUb).
template <typename T>
inline void CheckReach(const char* api, const MaskSpec& m, const AscendC::LocalTensor<T>& t,
                       uint32_t blk, uint32_t rep, const char* what) {
    CheckUbAligned(t, api, what);
    if (m.repeats == 0) return;
    const Reach reach = Farthest<T>(m, blk, rep);
    if (reach.any && reach.offset >= t.size_ && !ReachesOnInUb(t.ptr_, (reach.offset + 1) * sizeof(T))) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             std::string(what) + ": the mask and " + std::to_string(m.repeats) +
                 " repeat(s) reach element " + Str(reach.offset) + " (repeat " + std::to_string(reach.repeat) +
                 ", lane " + std::to_string(reach.lane) + ", blkStride " + std::to_string(blk) +
                 ", repStride " + std::to_string(rep) + ") but the LocalTensor<" + TypeName<T>() +
                 "> has " + Str(t.size_) + " elements");
    }
}

template <typename T>
inline void CountMasked(const MaskSpec& m, const char* api = __builtin_FUNCTION()) {
    Core& c = CurrentCore();
    c.counters[kVectorInstructions] += 1;
    c.counters[kVectorRepeats] += m.repeats;
    c.counters[kLanesUsed] += static_cast<int64_t>(m.ActiveLanes());
    c.counters[kLanesTotal] += static_cast<int64_t>(m.repeats) * m.lanes;
    if (c.detail != nullptr) {
        NoteLanes(*c.detail, api, m.lanes, 1, m.repeats, static_cast<int64_t>(m.ActiveLanes()));
    }
}

template <typename F>
inline void ForActive(const MaskSpec& m, F f) {
    for (int32_t r = 0; r < m.repeats; ++r) {
        for (uint32_t l = 0; l < m.lanes; ++l) {
            if (m.Active(r, l)) f(r, l);
        }
    }
}

// Copies `bytes` from 32-byte blocks `stride` bytes apart in src (0: one block again and again),
// the last block in part where `bytes` ends inside it, to consecutive bytes at out (64-byte
// aligned). With AVX-512 two blocks make one 64-byte store:
// the lane maps then load each 64 (or 32) bytes from one store, which the CPU forwards, where
// loads over several smaller stores just made would wait for them (RepSpans' buffers).
#ifdef OPGEN_SIM_SIMD_LANES
__attribute__((target("avx512f"))) inline uint64_t GatherBlocks512(uint8_t* out, const uint8_t* src,
                                                                   uint64_t stride, uint64_t blocks) {
    uint64_t b = 0;
    if (stride == 0) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
        const __m512i w = _mm512_inserti64x4(_mm512_castsi256_si512(v), v, 1);
        for (; b + 2 <= blocks; b += 2) _mm512_store_si512(reinterpret_cast<__m512i*>(out + b * kBlockBytes), w);
    } else {
        for (; b + 2 <= blocks; b += 2) {
            const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + b * stride));
            const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + (b + 1) * stride));
            _mm512_store_si512(reinterpret_cast<__m512i*>(out + b * kBlockBytes),
                               _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1));
        }
    }
    return b;
}
#endif
inline void GatherBlocks(uint8_t* out, const uint8_t* src, uint64_t stride, uint64_t bytes) {
    const uint64_t blocks = bytes / kBlockBytes;
    uint64_t b = 0;
#ifdef OPGEN_SIM_SIMD_LANES
    if (HasAvx512f()) b = GatherBlocks512(out, src, stride, blocks);
#endif
    for (; b < blocks; ++b) std::memcpy(out + b * kBlockBytes, src + b * stride, kBlockBytes);
    if (bytes % kBlockBytes != 0) std::memcpy(out + b * kBlockBytes, src + b * stride, bytes % kBlockBytes);
}

// The regular mask/repeat call run a repeat at a time rather than a run at a time: normal mode
// with the same first k lanes active in every repeat, and float or half lanes MapLanes computes.
// A source whose k lanes are not consecutive (block stride 0: one block read again, as ops-nn's
// norms read a Brcb'd value per row; or above 1) is gathered into a buffer first, and a dst whose
// lanes are not is computed into one and spread out; the result is the runs' (where a source is
// gathered or dst spread, only if that operand meets no element the other touches). A run of a
// block-stride-0 operand is one block long, so the runs made a MapLanes call per eight floats.
// false: the runs are needed (counter mode, a mask with holes, such an overlap, other element
// types or lane functions).
template <int N, typename T, typename F>
inline bool RepSpans(T* d, const T* const (&src)[N], const RepOperand (&ops)[N + 1], const MaskSpec& m,
                     const F& f) {
#ifdef OPGEN_SIM_SIMD_LANES
    if constexpr (IsVec<F>::value && (std::is_same_v<T, float> || std::is_same_v<T, half>)) {
        if (m.counter || m.repeats <= 0) return false;
        const uint32_t k = m.RepeatActive();
        const bool prefix = k <= 64 ? m.bits[1] == 0 && m.bits[0] == (k == 64 ? ~0ull : (1ull << k) - 1)
                                    : m.bits[0] == ~0ull && m.bits[1] == (k == 128 ? ~0ull : (1ull << (k - 64)) - 1);
        if (k == 0 || !prefix) return false;
        const RepOperand& od = ops[0];
        if (od.blk == 0) return false;  // every block of a repeat writes the same elements
        constexpr uint32_t B = BlockElems<T>();
        // every lane active and every operand's repeats one after another: the runs make the
        // whole call one span (the common {1, 1, 1, 8, 8, 8})
        bool follow = k == m.lanes;
        for (const RepOperand& o : ops) follow = follow && Follows(o, m.lanes);
        if (follow) return false;
        // Repeats run in order, as the runs do. Within one, a source read in place (block stride
        // 1) with dst written in place goes through MapLanes, which runs a partly overlapping
        // pair lane by lane, front to back: what the runs give. A gathered source or a spread
        // dst is read, or written, all at once, so either must not meet an element the other
        // operands touch (except a source that is dst at dst's strides: each lane reads its own
        // element before writing it).
        uint64_t reach = 0;  // dst's bytes, when needed
        for (int i = 0; i < N; ++i) {
            const RepOperand& o = ops[i + 1];
            if ((o.blk == 1 && od.blk == 1) || (src[i] == d && o.blk == od.blk && o.rep == od.rep)) continue;
            if (reach == 0) reach = ReachEnd<T>(m, od.blk, od.rep) * sizeof(T);
            if (Overlaps(reinterpret_cast<const uint8_t*>(d), reach, reinterpret_cast<const uint8_t*>(src[i]),
                         ReachEnd<T>(m, o.blk, o.rep) * sizeof(T))) {
                return false;
            }
        }
        alignas(64) T buf[N + 1][128];
        for (int32_t r = 0; r < m.repeats; ++r) {
            const T* x[2] = {nullptr, nullptr};
            for (int i = 0; i < N; ++i) {
                const RepOperand& o = ops[i + 1];
                const T* s = src[i] + static_cast<uint64_t>(r) * o.rep * B;
                if (o.blk == 1) {
                    x[i] = s;
                    continue;
                }
                GatherBlocks(reinterpret_cast<uint8_t*>(buf[i + 1]), reinterpret_cast<const uint8_t*>(s),
                             static_cast<uint64_t>(o.blk) * kBlockBytes, k * sizeof(T));
                x[i] = buf[i + 1];
            }
            T* dd = d + static_cast<uint64_t>(r) * od.rep * B;
            T* out = od.blk == 1 ? dd : buf[0];
            if (!MapLanes<N, T>(out, x[0], x[1], k, f)) {
                for (uint32_t i = 0; i < k; ++i) {
                    if constexpr (N == 1) {
                        out[i] = static_cast<T>(f(static_cast<Acc<T>>(x[0][i])));
                    } else {
                        out[i] = static_cast<T>(f(static_cast<Acc<T>>(x[0][i]), static_cast<Acc<T>>(x[1][i])));
                    }
                }
            }
            if (od.blk != 1) {
                uint32_t l = 0;
                for (; l + B <= k; l += B) std::memcpy(dd + static_cast<uint64_t>(l / B) * od.blk * B, buf[0] + l, kBlockBytes);
                if (l < k) std::memcpy(dd + static_cast<uint64_t>(l / B) * od.blk * B, buf[0] + l, (k - l) * sizeof(T));
            }
        }
        return true;
    }
#endif
    (void)d, (void)src, (void)ops, (void)m, (void)f;
    return false;
}

template <typename T, typename F>
inline void BinaryRep(const char* api, const AscendC::LocalTensor<T>& dst,
                      const AscendC::LocalTensor<T>& a, const AscendC::LocalTensor<T>& b,
                      const MaskSpec& m, const AscendC::BinaryRepeatParams& p, F f) {
    CheckReach(api, m, dst, p.dstBlkStride, p.dstRepStride, "dst");
    CheckReach(api, m, a, p.src0BlkStride, p.src0RepStride, "src0");
    CheckReach(api, m, b, p.src1BlkStride, p.src1RepStride, "src1");
    T* d = dst.ptr_;
    const T* x = a.ptr_;
    const T* y = b.ptr_;
    const RepOperand ops[3] = {Operand<T>(p.dstBlkStride, p.dstRepStride),
                               Operand<T>(p.src0BlkStride, p.src0RepStride),
                               Operand<T>(p.src1BlkStride, p.src1RepStride)};
    const T* const srcs[2] = {x, y};
    if (RepSpans<2>(d, srcs, ops, m, f)) {
        CountMasked<T>(m, api);
        return;
    }
    ForRuns(m, ops, [&](int32_t r, uint32_t l, uint64_t n) {
        T* dd = d + LaneOffset<T>(r, l, p.dstBlkStride, p.dstRepStride);
        const T* xx = x + LaneOffset<T>(r, l, p.src0BlkStride, p.src0RepStride);
        const T* yy = y + LaneOffset<T>(r, l, p.src1BlkStride, p.src1RepStride);
        if (MapLanes<2>(dd, xx, yy, n, f)) return;
        for (uint64_t i = 0; i < n; ++i) {
            dd[i] = static_cast<T>(f(static_cast<Acc<T>>(xx[i]), static_cast<Acc<T>>(yy[i])));
        }
    });
    CountMasked<T>(m, api);
}

template <typename T, typename F>
inline void UnaryRep(const char* api, const AscendC::LocalTensor<T>& dst,
                     const AscendC::LocalTensor<T>& a, const MaskSpec& m,
                     const AscendC::UnaryRepeatParams& p, F f) {
    CheckReach(api, m, dst, p.dstBlkStride, p.dstRepStride, "dst");
    CheckReach(api, m, a, p.srcBlkStride, p.srcRepStride, "src");
    T* d = dst.ptr_;
    const T* x = a.ptr_;
    const RepOperand ops[2] = {Operand<T>(p.dstBlkStride, p.dstRepStride),
                               Operand<T>(p.srcBlkStride, p.srcRepStride)};
    const T* const srcs[1] = {x};
    if (RepSpans<1>(d, srcs, ops, m, f)) {
        CountMasked<T>(m, api);
        return;
    }
    ForRuns(m, ops, [&](int32_t r, uint32_t l, uint64_t n) {
        T* dd = d + LaneOffset<T>(r, l, p.dstBlkStride, p.dstRepStride);
        const T* xx = x + LaneOffset<T>(r, l, p.srcBlkStride, p.srcRepStride);
        if (MapLanes<1, T>(dd, xx, nullptr, n, f)) return;
        for (uint64_t i = 0; i < n; ++i) dd[i] = static_cast<T>(f(static_cast<Acc<T>>(xx[i])));
    });
    CountMasked<T>(m, api);
}

template <typename T>
inline T Lowest() {
    if constexpr (std::is_floating_point_v<Acc<T>>) return static_cast<T>(-std::numeric_limits<float>::infinity());
    else return std::numeric_limits<T>::lowest();
}
template <typename T>
inline T Highest() {
    if constexpr (std::is_floating_point_v<Acc<T>>) return static_cast<T>(std::numeric_limits<float>::infinity());
    else return std::numeric_limits<T>::max();
}

// The first of the n values at v that ExtremeBetter ranks highest (a NaN beats every number,
// the first NaN later ones; among equal numbers the first): what a scan keeping the best so far
// ends on. Float spans: eight lanes a step find a NaN or the extreme's value, then its first
// position (an equal compare, so -0.0 and +0.0 tie as in the scan).
#ifdef OPGEN_SIM_SIMD_LANES
__attribute__((target("avx"))) inline bool ExtremeValueAvx(const float* v, uint32_t n, bool max, float* value) {
    __m256 ext = _mm256_loadu_ps(v), nan = _mm256_cmp_ps(ext, ext, _CMP_UNORD_Q);
    uint32_t i = 8;
    for (; i + 8 <= n; i += 8) {
        const __m256 x = _mm256_loadu_ps(v + i);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
        ext = max ? _mm256_max_ps(x, ext) : _mm256_min_ps(x, ext);
    }
    if (_mm256_movemask_ps(nan) != 0) return false;
    float lanes[8];
    _mm256_storeu_ps(lanes, ext);
    float e = lanes[0];
    for (int k = 1; k < 8; ++k) e = (max ? lanes[k] > e : lanes[k] < e) ? lanes[k] : e;
    for (; i < n; ++i) {
        if (v[i] != v[i]) return false;
        e = (max ? v[i] > e : v[i] < e) ? v[i] : e;
    }
    *value = e;
    return true;
}
// The first i with v[i] == e (one exists).
__attribute__((target("avx"))) inline uint32_t FirstEqualAvx(const float* v, uint32_t n, float e) {
    const __m256 ev = _mm256_set1_ps(e);
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const int hit = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(v + i), ev, _CMP_EQ_OQ));
        if (hit != 0) return i + static_cast<uint32_t>(__builtin_ctz(static_cast<unsigned>(hit)));
    }
    while (v[i] != e) ++i;
    return i;
}
#endif
template <typename T>
inline uint32_t FirstExtreme(const T* v, uint32_t n, bool max) {
#ifdef OPGEN_SIM_SIMD_LANES
    if constexpr (std::is_same_v<T, float>) {
        float e = 0.0f;
        if (n >= 8 && HasAvx() && ExtremeValueAvx(v, n, max, &e)) return FirstEqualAvx(v, n, e);
    }
#endif
    uint32_t at = 0;
    for (uint32_t i = 1; i < n; ++i) {
        if (ExtremeBetter(max, v[i], v[at])) at = i;
    }
    return at;
}

enum class ReduceKind { Sum, Max, Min };

// The tree sum of repeat r's active lanes, 0 where the mask is off (TreeSum's pairs, on SIMD lanes
// where RepeatSumLanes has them): WholeReduceSum's result and the first step of ReduceSum's mask
// form. A whole repeat is read where it lies.
template <typename T>
inline T RepeatTreeSum(const MaskSpec& m, const LaneRuns& runs, const T* s, int32_t r, uint32_t blk, uint32_t rep) {
    T vals[128];
    const T* lanes = s + LaneOffset<T>(r, 0, blk, rep);
    if (!runs.Whole(r)) {
        std::fill_n(vals, m.lanes, T(0));
        runs.Each(r, [&](uint32_t l, uint32_t n) {
            std::memcpy(vals + l, s + LaneOffset<T>(r, l, blk, rep), n * sizeof(T));
        });
        lanes = vals;
    }
    T sum;
    if (!AscendC::reduce_detail::RepeatSumLanes(lanes, &sum)) {
        if (lanes != vals) std::memcpy(vals, lanes, m.lanes * sizeof(T));
        sum = TreeSum(vals, m.lanes);
    }
    return sum;
}

template <typename T>
inline void CheckDst(const char* api, const AscendC::LocalTensor<T>& dst, uint64_t need,
                     uint64_t align) {
    dst.Check(api);
    if ((reinterpret_cast<uintptr_t>(dst.ptr_) & (align - 1)) != 0) {
        Fail(ErrorKind::Alignment, api,
             "dst LocalTensor starts at UB offset " + Str(dst.UbOffset()) + ", which is not " +
                 Str(align) + "-byte aligned");
    }
    if (need > dst.size_) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "dst: the results of the repeats reach element " + Str(need - 1) +
                 " but the LocalTensor<" + TypeName<T>() + "> has " + Str(dst.size_) + " elements");
    }
}

template <typename T>
inline void WholeReduce(const char* api, ReduceKind kind, const AscendC::LocalTensor<T>& dst,
                        const AscendC::LocalTensor<T>& src, const MaskSpec& m, int32_t dstRepStride,
                        int32_t srcBlkStride, int32_t srcRepStride, AscendC::ReduceOrder order) {
    CheckHalfOrFloat<T>(api);
    if (dstRepStride < 0 || srcBlkStride < 0 || srcRepStride < 0) {
        Fail(ErrorKind::VectorCount, api, "strides must not be negative");
    }
    CheckReach(api, m, src, static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride), "src");
    const bool pair = kind != ReduceKind::Sum && order != AscendC::ReduceOrder::ORDER_ONLY_VALUE;
    const uint64_t unit = pair ? 2 : 1;  // dstRepStride counts reduced results of one repeat
    if (m.repeats > 0) {
        const uint64_t last = static_cast<uint64_t>(m.repeats - 1) * dstRepStride * unit + unit;
        CheckDst(api, dst, last, sizeof(T));
    }
    const T* s = src.ptr_;
    T* d = dst.ptr_;
    const uint32_t blk = static_cast<uint32_t>(srcBlkStride), rep = static_cast<uint32_t>(srcRepStride);
    const RepOperand ops[1] = {Operand<T>(blk, rep)};
    const LaneRuns runs(m, ops);
    for (int32_t r = 0; r < m.repeats; ++r) {
        T* out = d + static_cast<uint64_t>(r) * dstRepStride * unit;
        if (kind == ReduceKind::Sum) {
            out[0] = RepeatTreeSum(m, runs, s, r, blk, rep);
            continue;
        }
        bool found = false;
        uint32_t best_l = 0;
        T best = kind == ReduceKind::Max ? Lowest<T>() : Highest<T>();
        runs.Each(r, [&](uint32_t l0, uint32_t n) {  // each run's first extreme against the best
            const T* v = s + LaneOffset<T>(r, l0, blk, rep);
            const uint32_t i = FirstExtreme(v, n, kind == ReduceKind::Max);
            if (!found || ExtremeBetter(kind == ReduceKind::Max, v[i], best)) {
                best = v[i];
                best_l = l0 + i;
                found = true;
            }
        });
        T index;  // the lane index inside the repeat, stored in the bits of a T
        using U = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
        const U bits = static_cast<U>(best_l);
        std::memcpy(&index, &bits, sizeof(T));
        switch (order) {
            case AscendC::ReduceOrder::ORDER_VALUE_INDEX: out[0] = best; out[1] = index; break;
            case AscendC::ReduceOrder::ORDER_INDEX_VALUE: out[0] = index; out[1] = best; break;
            case AscendC::ReduceOrder::ORDER_ONLY_VALUE: out[0] = best; break;
            default: out[0] = index; break;
        }
    }
    CountMasked<T>(m, api);
}

#ifdef OPGEN_SIM_SIMD_LANES
// The tree sums (TreeSum's pairs, each sum rounded to float) of eight blocks of eight floats, block
// b at s + b * step: two levels of _mm256_hadd_ps pair the lanes of each block within its
// 128-bit halves, and adding the halves is the third level.
__attribute__((target("avx"))) inline void BlockSums8Avx(const float* s, uint64_t step, float* out) {
    const __m256 h01 = _mm256_hadd_ps(_mm256_loadu_ps(s), _mm256_loadu_ps(s + step));
    const __m256 h23 = _mm256_hadd_ps(_mm256_loadu_ps(s + 2 * step), _mm256_loadu_ps(s + 3 * step));
    const __m256 h45 = _mm256_hadd_ps(_mm256_loadu_ps(s + 4 * step), _mm256_loadu_ps(s + 5 * step));
    const __m256 h67 = _mm256_hadd_ps(_mm256_loadu_ps(s + 6 * step), _mm256_loadu_ps(s + 7 * step));
    const __m256 q0 = _mm256_hadd_ps(h01, h23), q1 = _mm256_hadd_ps(h45, h67);
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(q0), _mm256_extractf128_ps(q0, 1)));
    _mm_storeu_ps(out + 4, _mm_add_ps(_mm256_castps256_ps128(q1), _mm256_extractf128_ps(q1, 1)));
}
#endif

template <typename T>
inline void BlockReduce(const char* api, ReduceKind kind, const AscendC::LocalTensor<T>& dst,
                        const AscendC::LocalTensor<T>& src, const MaskSpec& m, int32_t dstRepStride,
                        int32_t srcBlkStride, int32_t srcRepStride) {
    CheckHalfOrFloat<T>(api);
    if (dstRepStride < 0 || srcBlkStride < 0 || srcRepStride < 0) {
        Fail(ErrorKind::VectorCount, api, "strides must not be negative");
    }
    CheckReach(api, m, src, static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride), "src");
    constexpr uint32_t B = BlockElems<T>();
    const uint32_t nblk = m.lanes / B;  // results per repeat (8)
    if (m.repeats > 0) {
        const uint64_t last = static_cast<uint64_t>(m.repeats - 1) * dstRepStride * nblk + nblk;
        CheckDst(api, dst, last, sizeof(T) == 2 ? 16 : 32);
    }
    const T* s = src.ptr_;
    T* d = dst.ptr_;
    const uint32_t blk = static_cast<uint32_t>(srcBlkStride), rep = static_cast<uint32_t>(srcRepStride);
    const RepOperand ops[1] = {{B, 0, 0}};  // (as at block stride 0: runs inside a data block)
    const LaneRuns runs(m, ops);
    // float sums of a repeat's eight blocks at once, where dst lies apart from src
    bool sums8 = false;
#ifdef OPGEN_SIM_SIMD_LANES
    if constexpr (std::is_same_v<T, float>) {
        sums8 = kind == ReduceKind::Sum && m.repeats > 0 && HasAvx() &&
                !Overlaps(reinterpret_cast<const uint8_t*>(d),
                          (static_cast<uint64_t>(m.repeats - 1) * dstRepStride * nblk + nblk) * sizeof(T),
                          reinterpret_cast<const uint8_t*>(s), ReachEnd<T>(m, blk, rep) * sizeof(T));
    }
#endif
    T vals[32];
    for (int32_t r = 0; r < m.repeats; ++r) {
        T* out = d + static_cast<uint64_t>(r) * dstRepStride * nblk;
#ifdef OPGEN_SIM_SIMD_LANES
        if constexpr (std::is_same_v<T, float>) {
            if (sums8 && m.AllActive(r)) {
                BlockSums8Avx(s + LaneOffset<T>(r, 0, blk, rep), blk * B, out);
                continue;
            }
        }
#endif
        // Block after block, each read and then written (dst may overlap src). A data block none
        // of whose lanes the mask selects is not written: dst keeps its value (ReduceDataBlock,
        // 约束说明, Atlas A2 products).
        uint32_t block = nblk, have = 0;  // the block being read, and how many of its lanes
        const auto finish = [&] {
            if (block == nblk) return;
            if (kind == ReduceKind::Sum) {
                out[block] = TreeSum(vals, B);
            } else {
                T best = kind == ReduceKind::Max ? Lowest<T>() : Highest<T>();
                for (uint32_t e = 0; e < B; ++e) {
                    if (have != B && !m.Active(r, block * B + e)) continue;
                    if (ExtremeBetter(kind == ReduceKind::Max, vals[e], best)) best = vals[e];
                }
                out[block] = best;
            }
        };
        runs.Each(r, [&](uint32_t l, uint32_t n) {
            if (l / B != block) {
                finish();
                block = l / B;
                have = 0;
                std::fill_n(vals, B, T(0));
            }
            std::memcpy(vals + l % B, s + LaneOffset<T>(r, l, blk, rep), n * sizeof(T));
            have += n;
        });
        finish();
    }
    CountMasked<T>(m, api);
}

// PairReduceSum (ReducePairElem with ReduceType::SUM): lanes 2k and 2k+1 of a repeat add into
// result k (a masked-out lane counts as 0; a pair with both lanes masked out leaves its dst
// element as it was, ReducePairElem, 约束说明). A repeat's lanes / 2 results are dense;
// dstRepStride counts 128-byte units (lanes / 2 elements).
template <typename T>
inline void PairReduce(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                       const MaskSpec& m, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride) {
    if (dstRepStride < 0 || srcBlkStride < 0 || srcRepStride < 0) {
        Fail(ErrorKind::VectorCount, api, "strides must not be negative");
    }
    CheckReach(api, m, src, static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride), "src");
    const uint32_t half_lanes = m.lanes / 2;
    if (m.repeats > 0) {
        const uint64_t last = static_cast<uint64_t>(m.repeats - 1) * dstRepStride * half_lanes + half_lanes;
        CheckUbAligned(dst, api, "dst");
        if (last > dst.size_) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "dst: the results of the repeats reach element " + Str(last - 1) + " but the LocalTensor<" +
                     TypeName<T>() + "> has " + Str(dst.size_) + " elements");
        }
    }
    const T* s = src.ptr_;
    T* d = dst.ptr_;
    for (int32_t r = 0; r < m.repeats; ++r) {
        T* out = d + static_cast<uint64_t>(r) * dstRepStride * half_lanes;
        for (uint32_t k = 0; k < half_lanes; ++k) {
            const bool a_on = m.Active(r, 2 * k), b_on = m.Active(r, 2 * k + 1);
            if (!a_on && !b_on) continue;
            const T a = a_on ? s[LaneOffset<T>(r, 2 * k, srcBlkStride, srcRepStride)] : T(0);
            const T b = b_on ? s[LaneOffset<T>(r, 2 * k + 1, srcBlkStride, srcRepStride)] : T(0);
            out[k] = ReduceAdd(a, b);
        }
    }
    CountMasked<T>(m, api);
}

}  // namespace opgen_sim

namespace AscendC {

// ---- binary, mask/repeat forms ---------------------------------------------------------------
// The count forms' lane functions and type checks (vector.h, OPGEN_SIM_BINARY): Div takes half and
// float only (reference, Div, 数据类型), checked before any lane divides.
#define OPGEN_SIM_BINARY0(NAME, CHECK)                                                            \
    template <typename T, bool isSetMask = true>                                                  \
    OPGEN_SIM_API void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                       \
                     const LocalTensor<T>& src1, const uint64_t mask[], const uint8_t repeatTime, \
                     const BinaryRepeatParams& repeatParams) {                                    \
        CHECK;                                                                                    \
        const opgen_sim::MaskSpec m =                                                             \
            opgen_sim::ResolveMask<T, isSetMask>(#NAME, true, 0, mask, repeatTime);               \
        opgen_sim::BinaryRep(#NAME, dst, src0, src1, m, repeatParams,                             \
                             opgen_sim::Vectorised(OpgenSim##NAME##Lane{}));                      \
    }                                                                                             \
    template <typename T, bool isSetMask = true>                                                  \
    OPGEN_SIM_API void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                       \
                     const LocalTensor<T>& src1, uint64_t mask, const uint8_t repeatTime,         \
                     const BinaryRepeatParams& repeatParams) {                                    \
        CHECK;                                                                                    \
        const opgen_sim::MaskSpec m =                                                             \
            opgen_sim::ResolveMask<T, isSetMask>(#NAME, false, mask, nullptr, repeatTime);        \
        opgen_sim::BinaryRep(#NAME, dst, src0, src1, m, repeatParams,                             \
                             opgen_sim::Vectorised(OpgenSim##NAME##Lane{}));                      \
    }
OPGEN_SIM_BINARY0(Add, )
OPGEN_SIM_BINARY0(Sub, )
OPGEN_SIM_BINARY0(Mul, )
OPGEN_SIM_BINARY0(Max, )
OPGEN_SIM_BINARY0(Min, )
OPGEN_SIM_BINARY0(Div, opgen_sim::CheckHalfOrFloat<T>("Div"))
OPGEN_SIM_BINARY0(AddRelu, CheckAddReluType<T>())
OPGEN_SIM_BINARY0(SubRelu, CheckAddReluType<T>())
#undef OPGEN_SIM_BINARY0

// ---- tensor-scalar, mask/repeat forms ----------------------------------------------------------
#define OPGEN_SIM_SCALAR0(NAME)                                                             \
    template <typename T, bool isSetMask = true>                                                  \
    OPGEN_SIM_API void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                        \
                     const typename opgen_sim::Id<T>::type& scalarValue, const uint64_t mask[],   \
                     const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {           \
        const opgen_sim::Acc<T> s = static_cast<opgen_sim::Acc<T>>(scalarValue);                  \
        const opgen_sim::MaskSpec m =                                                             \
            opgen_sim::ResolveMask<T, isSetMask>(#NAME, true, 0, mask, repeatTime);               \
        opgen_sim::UnaryRep(#NAME, dst, src, m, repeatParams,                              \
                            opgen_sim::Vectorised(OpgenSim##NAME##Lane<opgen_sim::Acc<T>>{s}));  \
    }                                                                                             \
    template <typename T, bool isSetMask = true>                                                  \
    OPGEN_SIM_API void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                        \
                     const typename opgen_sim::Id<T>::type& scalarValue, uint64_t mask,           \
                     const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {           \
        const opgen_sim::Acc<T> s = static_cast<opgen_sim::Acc<T>>(scalarValue);                  \
        const opgen_sim::MaskSpec m =                                                             \
            opgen_sim::ResolveMask<T, isSetMask>(#NAME, false, mask, nullptr, repeatTime);        \
        opgen_sim::UnaryRep(#NAME, dst, src, m, repeatParams,                              \
                            opgen_sim::Vectorised(OpgenSim##NAME##Lane<opgen_sim::Acc<T>>{s}));  \
    }
OPGEN_SIM_SCALAR0(Adds)
OPGEN_SIM_SCALAR0(Muls)
OPGEN_SIM_SCALAR0(Maxs)
OPGEN_SIM_SCALAR0(Mins)
OPGEN_SIM_SCALAR0(LeakyRelu)
#undef OPGEN_SIM_SCALAR0

// ---- unary, mask/repeat forms ------------------------------------------------------------------
#define OPGEN_SIM_UNARY0(NAME, LANE)                                                              \
    template <typename T, bool isSetMask = true>                                                  \
    OPGEN_SIM_API void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], \
                     const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {           \
        const opgen_sim::MaskSpec m =                                                             \
            opgen_sim::ResolveMask<T, isSetMask>(#NAME, true, 0, mask, repeatTime);               \
        opgen_sim::UnaryRep(#NAME, dst, src, m, repeatParams, opgen_sim::Vectorised(LANE{}));     \
    }                                                                                             \
    template <typename T, bool isSetMask = true>                                                  \
    OPGEN_SIM_API void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,         \
                     const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {           \
        const opgen_sim::MaskSpec m =                                                             \
            opgen_sim::ResolveMask<T, isSetMask>(#NAME, false, mask, nullptr, repeatTime);        \
        opgen_sim::UnaryRep(#NAME, dst, src, m, repeatParams, opgen_sim::Vectorised(LANE{}));     \
    }
OPGEN_SIM_UNARY0(Exp, opgen_sim::ExpLane)
OPGEN_SIM_UNARY0(Ln, OpgenSimLnLane)
OPGEN_SIM_UNARY0(Abs, OpgenSimAbsLane)
OPGEN_SIM_UNARY0(Sqrt, OpgenSimSqrtLane)
OPGEN_SIM_UNARY0(Rsqrt, OpgenSimRsqrtLane)
OPGEN_SIM_UNARY0(Reciprocal, OpgenSimReciprocalLane)
OPGEN_SIM_UNARY0(Relu, OpgenSimReluLane)
#undef OPGEN_SIM_UNARY0

// ---- Duplicate with a mask -------------------------------------------------------------------
namespace dup_detail {
template <typename T>
inline void Fill(const LocalTensor<T>& dst, T v, const opgen_sim::MaskSpec& m, uint16_t blk,
                 uint8_t rep) {
    opgen_sim::CheckReach("Duplicate", m, dst, blk, rep, "dst");
    T* d = dst.ptr_;
    const opgen_sim::RepOperand ops[1] = {opgen_sim::Operand<T>(blk, rep)};
    opgen_sim::ForRuns(m, ops, [&](int32_t r, uint32_t l, uint64_t n) {
        std::fill_n(d + opgen_sim::LaneOffset<T>(r, l, blk, rep), n, v);
    });
    opgen_sim::CountMasked<T>(m);
}
}  // namespace dup_detail

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const typename opgen_sim::Id<T>::type& scalarValue,
                      const uint64_t mask[], const uint8_t repeatTime, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride) {
    dup_detail::Fill(dst, static_cast<T>(scalarValue),
                     opgen_sim::ResolveMask<T, isSetMask>("Duplicate", true, 0, mask, repeatTime),
                     dstBlockStride, dstRepeatStride);
}

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const typename opgen_sim::Id<T>::type& scalarValue,
                      uint64_t mask, const uint8_t repeatTime, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride) {
    dup_detail::Fill(dst, static_cast<T>(scalarValue),
                     opgen_sim::ResolveMask<T, isSetMask>("Duplicate", false, mask, nullptr, repeatTime),
                     dstBlockStride, dstRepeatStride);
}

// ---- WholeReduceSum / WholeReduceMax / WholeReduceMin ----------------------------------------
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride) {
    opgen_sim::WholeReduce("WholeReduceSum", opgen_sim::ReduceKind::Sum, dst, src,
                           opgen_sim::ResolveMask<T, isSetMask>("WholeReduceSum", true, 0, mask, repeatTime),
                           dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride) {
    opgen_sim::WholeReduce("WholeReduceSum", opgen_sim::ReduceKind::Sum, dst, src,
                           opgen_sim::ResolveMask<T, isSetMask>("WholeReduceSum", false,
                                                                static_cast<uint64_t>(mask), nullptr, repeatTime),
                           dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE);
}

#define OPGEN_SIM_WHOLE_EXTREME(NAME, KIND)                                                         \
    template <typename T, bool isSetMask = true>                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],   \
                     const int32_t repeatTime, const int32_t dstRepStride,                          \
                     const int32_t srcBlkStride, const int32_t srcRepStride,                        \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {                          \
        opgen_sim::WholeReduce(#NAME, KIND, dst, src,                                               \
                               opgen_sim::ResolveMask<T, isSetMask>(#NAME, true, 0, mask, repeatTime), \
                               dstRepStride, srcBlkStride, srcRepStride, order);                    \
    }                                                                                               \
    template <typename T, bool isSetMask = true>                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,      \
                     const int32_t repeatTime, const int32_t dstRepStride,                          \
                     const int32_t srcBlkStride, const int32_t srcRepStride,                        \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {                          \
        opgen_sim::WholeReduce(#NAME, KIND, dst, src,                                               \
                               opgen_sim::ResolveMask<T, isSetMask>(                                \
                                   #NAME, false, static_cast<uint64_t>(mask), nullptr, repeatTime), \
                               dstRepStride, srcBlkStride, srcRepStride, order);                    \
    }
OPGEN_SIM_WHOLE_EXTREME(WholeReduceMax, opgen_sim::ReduceKind::Max)
OPGEN_SIM_WHOLE_EXTREME(WholeReduceMin, opgen_sim::ReduceKind::Min)
#undef OPGEN_SIM_WHOLE_EXTREME

// ---- BlockReduceSum / BlockReduceMax / BlockReduceMin (note: repeatTime before mask) ----------
#define OPGEN_SIM_BLOCK_REDUCE(NAME, KIND)                                                          \
    template <typename T, bool isSetMask = true>                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, \
                     const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride, \
                     const int32_t srcRepStride) {                                                  \
        opgen_sim::BlockReduce(#NAME, KIND, dst, src,                                               \
                               opgen_sim::ResolveMask<T, isSetMask>(#NAME, true, 0, mask, repeatTime), \
                               dstRepStride, srcBlkStride, srcRepStride);                           \
    }                                                                                               \
    template <typename T, bool isSetMask = true>                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, \
                     const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,    \
                     const int32_t srcRepStride) {                                                  \
        opgen_sim::BlockReduce(#NAME, KIND, dst, src,                                               \
                               opgen_sim::ResolveMask<T, isSetMask>(                                \
                                   #NAME, false, static_cast<uint64_t>(mask), nullptr, repeatTime), \
                               dstRepStride, srcBlkStride, srcRepStride);                           \
    }
OPGEN_SIM_BLOCK_REDUCE(BlockReduceSum, opgen_sim::ReduceKind::Sum)
OPGEN_SIM_BLOCK_REDUCE(BlockReduceMax, opgen_sim::ReduceKind::Max)
OPGEN_SIM_BLOCK_REDUCE(BlockReduceMin, opgen_sim::ReduceKind::Min)

// ---- PairReduceSum (note: repeatTime before mask, as in BlockReduceSum) ------------------------
template <typename T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                          const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,
                          const int32_t srcRepStride) {
    opgen_sim::CheckHalfOrFloat<T>("PairReduceSum");
    opgen_sim::PairReduce("PairReduceSum", dst, src,
                          opgen_sim::ResolveMask<T, isSetMask>("PairReduceSum", true, 0, mask, repeatTime),
                          dstRepStride, srcBlkStride, srcRepStride);
}
template <typename T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                          const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,
                          const int32_t srcRepStride) {
    opgen_sim::CheckHalfOrFloat<T>("PairReduceSum");
    opgen_sim::PairReduce("PairReduceSum", dst, src,
                          opgen_sim::ResolveMask<T, isSetMask>("PairReduceSum", false,
                                                               static_cast<uint64_t>(mask), nullptr, repeatTime),
                          dstRepStride, srcBlkStride, srcRepStride);
}
#undef OPGEN_SIM_BLOCK_REDUCE

// ---- ReduceRepeat / ReduceDataBlock / ReducePairElem: the current names of WholeReduce*,
// BlockReduce* and PairReduceSum ("归约计算"), with the reduction a template argument, mask
// before repeatTime, and a dst type T and src type U that the Atlas A2/A3 products require to be
// one type.
namespace reduce0_detail {
template <typename T, typename U>
constexpr void CheckSameType() {
    static_assert(std::is_same_v<T, U>,
                  "ReduceRepeat/ReduceDataBlock/ReducePairElem: dst and src must be one type (half or float) on "
                  "the Atlas A2/A3 products (\"归约计算\", 数据类型)");
}
constexpr opgen_sim::ReduceKind Kind(ReduceType t) {
    return t == ReduceType::SUM ? opgen_sim::ReduceKind::Sum
                                : (t == ReduceType::MAX ? opgen_sim::ReduceKind::Max : opgen_sim::ReduceKind::Min);
}
constexpr const char* RepeatName(ReduceType t) {
    return t == ReduceType::SUM ? "ReduceRepeat<SUM>" : (t == ReduceType::MAX ? "ReduceRepeat<MAX>" : "ReduceRepeat<MIN>");
}
constexpr const char* BlockName(ReduceType t) {
    return t == ReduceType::SUM ? "ReduceDataBlock<SUM>"
                                : (t == ReduceType::MAX ? "ReduceDataBlock<MAX>" : "ReduceDataBlock<MIN>");
}
// The mask argument of a call: a count (int32_t) or bits (uint64_t[2]).
template <typename T, bool isSetMask>
inline opgen_sim::MaskSpec Mask(const char* api, int32_t mask, int32_t repeatTime) {
    return opgen_sim::ResolveMask<T, isSetMask>(api, false, static_cast<uint64_t>(mask), nullptr, repeatTime);
}
template <typename T, bool isSetMask>
inline opgen_sim::MaskSpec Mask(const char* api, const uint64_t* mask, int32_t repeatTime) {
    return opgen_sim::ResolveMask<T, isSetMask>(api, true, 0, mask, repeatTime);
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask, typename M>
inline void Repeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, M mask, int32_t repeatTime,
                   int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, ReduceOrder order) {
    CheckSameType<T, U>();
    constexpr const char* api = RepeatName(reduceType);
    opgen_sim::WholeReduce(api, Kind(reduceType), dst, src, Mask<T, isSetMask>(api, mask, repeatTime), dstRepStride,
                           srcBlkStride, srcRepStride,
                           reduceType == ReduceType::SUM ? ReduceOrder::ORDER_ONLY_VALUE : order);
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask, typename M>
inline void DataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, M mask, int32_t repeatTime,
                      int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride) {
    CheckSameType<T, U>();
    constexpr const char* api = BlockName(reduceType);
    opgen_sim::BlockReduce(api, Kind(reduceType), dst, src, Mask<T, isSetMask>(api, mask, repeatTime), dstRepStride,
                           srcBlkStride, srcRepStride);
}
// ReducePairElem: ReduceType::SUM only ("当前仅支持求和操作").
template <ReduceType reduceType, typename T, typename U, bool isSetMask, typename M>
inline void PairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, M mask, int32_t repeatTime,
                     int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride) {
    CheckSameType<T, U>();
    static_assert(reduceType == ReduceType::SUM, "ReducePairElem supports ReduceType::SUM only (documented)");
    constexpr const char* api = "ReducePairElem<SUM>";
    opgen_sim::CheckHalfOrFloat<T>(api);
    opgen_sim::PairReduce(api, dst, src, Mask<T, isSetMask>(api, mask, repeatTime), dstRepStride, srcBlkStride,
                          srcRepStride);
}
}  // namespace reduce0_detail

#define OPGEN_SIM_REDUCE0(NAME, IMPL, ORDER_PARAM, ORDER_ARG)                                                    \
    template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>                               \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,                   \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,           \
                     const int32_t srcRepStride ORDER_PARAM) {                                                   \
        reduce0_detail::IMPL<reduceType, T, U, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, \
                                                          srcRepStride ORDER_ARG);                               \
    }                                                                                                             \
    template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>                               \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],                \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,           \
                     const int32_t srcRepStride ORDER_PARAM) {                                                   \
        reduce0_detail::IMPL<reduceType, T, U, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, \
                                                          srcRepStride ORDER_ARG);                               \
    }
#define OPGEN_SIM_COMMA ,
OPGEN_SIM_REDUCE0(ReduceRepeat, Repeat, OPGEN_SIM_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                  OPGEN_SIM_COMMA order)
OPGEN_SIM_REDUCE0(ReduceDataBlock, DataBlock, , )
OPGEN_SIM_REDUCE0(ReducePairElem, PairElem, , )
#undef OPGEN_SIM_COMMA
#undef OPGEN_SIM_REDUCE0

}  // namespace AscendC

namespace opgen_sim {

// sharedTmpBuffer elements the mask/repeat ReduceMax/ReduceMin need, by CANN's formula (ReduceMax,
// "sharedTmpBuffer"): the first round writes a (value, index) pair per repeat; with calIndex the
// later rounds keep their own space, each rounded up to a 32-byte block.
template <typename T>
inline uint64_t RepeatExtremeWork(uint64_t repeats, bool calIndex) {
    const uint64_t B = BlockElems<T>();
    const uint64_t per_repeat = kRepeatBytes / sizeof(T);
    const uint64_t out1 = repeats * 2;
    if (!calIndex) return RoundUp(out1, B);
    const uint64_t start2 = RoundUp(out1, B);
    const uint64_t out2 = (out1 + per_repeat - 1) / per_repeat * 2;
    const uint64_t end2 = RoundUp(out2, B);
    if (out2 <= 2) return start2 + end2;
    const uint64_t out3 = (out2 + per_repeat - 1) / per_repeat * 2;
    return start2 + end2 + RoundUp(out3, B);
}

// ReduceMax/ReduceMin over the lanes the mask selects in `repeatTime` repeats of src (block stride
// 1, repeat stride srcRepStride): dst[0] is the extreme value, dst[1] (calIndex) its position,
// counted in elements from src (repeat r's lanes start at r * srcRepStride * 32 bytes, as CANN
// derives it) and stored in the bits of a T. Ties keep the lowest position.
template <typename T, bool isSetMask>
inline void RepeatExtreme(const char* api, ReduceKind kind, const AscendC::LocalTensor<T>& dst,
                          const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<T>& work,
                          bool is_bits, uint64_t count_mask, const uint64_t* bit_mask,
                          int32_t repeatTime, int32_t srcRepStride, bool calIndex) {
    static_assert(std::is_floating_point_v<Acc<T>>, "ReduceMax/ReduceMin take half or float on this SoC");
    if (repeatTime < 0) {
        Fail(ErrorKind::VectorCount, api, "repeatTime " + std::to_string(repeatTime) + " is negative");
    }
    if (srcRepStride < 0 || srcRepStride > 65535) {
        Fail(ErrorKind::VectorCount, api,
             "srcRepStride " + std::to_string(srcRepStride) + " is outside [0, 65535]");
    }
    // repeatTime may exceed 255 here (CANN: any int32_t); the mask is resolved for one repeat.
    MaskSpec m = ResolveMask<T, isSetMask>(api, is_bits, count_mask, bit_mask, repeatTime > 0 ? 1 : 0);
    if (!m.counter) m.repeats = repeatTime;
    if (m.repeats == 0) return;  // a no-op on this SoC, as CANN documents
    const uint32_t rep = static_cast<uint32_t>(srcRepStride);
    CheckReach(api, m, src, 1, rep, "src");
    CheckOperand(dst, calIndex ? 2 : 1, api, "dst");
    CheckUbAligned(work, api, "sharedTmpBuffer");
    const uint64_t need = RepeatExtremeWork<T>(static_cast<uint64_t>(m.repeats), calIndex);
    if (work.size_ < need) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(work.size_) + " elements, " + std::to_string(m.repeats) +
                 " repeat(s) of " + TypeName<T>() + (calIndex ? " with" : " without") +
                 " calIndex need at least " + Str(need));
    }
    using U = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
    const auto as_t = [](uint64_t i) {
        T v;
        const U bits = static_cast<U>(i);
        std::memcpy(&v, &bits, sizeof(T));
        return v;
    };
    const T* s = src.ptr_;
    bool found = false;
    uint64_t best_at = 0;
    for (int32_t r = 0; r < m.repeats; ++r) {
        bool any = false;
        uint64_t at = 0;
        for (uint32_t l = 0; l < m.lanes; ++l) {
            if (!m.Active(r, l)) continue;
            const uint64_t off = LaneOffset<T>(r, l, 1, rep);
            if (!any || ExtremeBetter(kind == ReduceKind::Max, s[off], s[at])) {
                at = off;
                any = true;
            }
        }
        if (!any) continue;
        // The first round's pair: the repeat's extreme and its lane inside the repeat.
        work.ptr_[2 * r] = s[at];
        work.ptr_[2 * r + 1] = as_t(at - static_cast<uint64_t>(r) * rep * BlockElems<T>());
        const Acc<T> v = static_cast<Acc<T>>(s[at]);
        const Acc<T> b = static_cast<Acc<T>>(s[best_at]);
        const bool both_nan = std::isnan(v) && std::isnan(b);
        if (!found || ExtremeBetter(kind == ReduceKind::Max, s[at], s[best_at]) ||
            ((v == b || both_nan) && at < best_at)) {
            best_at = at;
            found = true;
        }
    }
    dst.ptr_[0] = s[best_at];
    if (calIndex) dst.ptr_[1] = as_t(best_at);
    CountMasked<T>(m, api);
}

// ReduceSum's mask/repeat form on the Atlas A2 products, as CANN implements it (asc-devkit
// impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h): each of `repeatTime` repeats of src
// (block stride 1, repeat stride srcRepStride) sums the lanes the mask selects as a tree (0 where
// it does not) into sharedTmpBuffer, one value per repeat; then one counter-mode reduction over
// those values gives dst[0] as the count form sums `repeatTime` values.
template <typename T, bool isSetMask>
inline void RepeatSum(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                      const AscendC::LocalTensor<T>& work, bool is_bits, uint64_t count_mask,
                      const uint64_t* bit_mask, int32_t repeatTime, int32_t srcRepStride) {
    CheckHalfOrFloat<T>(api);
    CheckRepeatTimes(repeatTime, api);
    if (srcRepStride < 0 || srcRepStride > 65535) {
        Fail(ErrorKind::VectorCount, api, "srcRepStride " + std::to_string(srcRepStride) + " is outside [0, 65535]");
    }
    const MaskSpec m = ResolveMask<T, isSetMask>(api, is_bits, count_mask, bit_mask, repeatTime);
    if (m.repeats == 0) return;
    const uint32_t rep = static_cast<uint32_t>(srcRepStride);
    CheckReach(api, m, src, 1, rep, "src");
    CheckOperand(dst, 1, api, "dst");
    CheckUbAligned(work, api, "sharedTmpBuffer");
    const uint64_t need = RoundUp(static_cast<uint64_t>(m.repeats), BlockElems<T>());
    if (work.size_ < need) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(work.size_) + " elements, " + std::to_string(m.repeats) +
                 " repeat(s) need at least " + Str(need) + " (one sum a repeat, rounded up to 32 bytes)");
    }
    const RepOperand ops[1] = {Operand<T>(1, rep)};
    const LaneRuns runs(m, ops);
    for (int32_t r = 0; r < m.repeats; ++r) work.ptr_[r] = RepeatTreeSum(m, runs, src.ptr_, r, 1, rep);
    const T total = AscendC::reduce_detail::CountSum(static_cast<const T*>(work.ptr_), m.repeats);
    dst.ptr_[0] = total;
    AscendC::reduce_detail::SetSumAcc(CurrentCore(), total);
    CountMasked<T>(m, api);
}

}  // namespace opgen_sim

namespace AscendC {

// ---- ReduceMax / ReduceMin, mask and repeat forms (the count form is in vector.h) -------------
#define OPGEN_SIM_REPEAT_EXTREME(NAME, KIND)                                                        \
    template <typename T, bool isSetMask = true>                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                          \
                     const LocalTensor<T>& sharedTmpBuffer, const uint64_t mask[],                  \
                     const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0) {     \
        opgen_sim::RepeatExtreme<T, isSetMask>(#NAME, KIND, dst, src, sharedTmpBuffer, true, 0, mask, \
                                               repeatTime, srcRepStride, calIndex);                 \
    }                                                                                               \
    template <typename T, bool isSetMask = true>                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                          \
                     const LocalTensor<T>& sharedTmpBuffer, const int32_t mask,                     \
                     const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0) {     \
        opgen_sim::RepeatExtreme<T, isSetMask>(#NAME, KIND, dst, src, sharedTmpBuffer, false,       \
                                               static_cast<uint64_t>(mask), nullptr, repeatTime,    \
                                               srcRepStride, calIndex);                             \
    }
OPGEN_SIM_REPEAT_EXTREME(ReduceMax, opgen_sim::ReduceKind::Max)
OPGEN_SIM_REPEAT_EXTREME(ReduceMin, opgen_sim::ReduceKind::Min)
#undef OPGEN_SIM_REPEAT_EXTREME

// ReduceSum, mask and repeat forms (the count form is in vector.h)
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride) {
    opgen_sim::RepeatSum<T, isSetMask>("ReduceSum", dst, src, sharedTmpBuffer, true, 0, mask, repeatTime,
                                       srcRepStride);
}
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride) {
    opgen_sim::RepeatSum<T, isSetMask>("ReduceSum", dst, src, sharedTmpBuffer, false, static_cast<uint64_t>(mask),
                                       nullptr, repeatTime, srcRepStride);
}

}  // namespace AscendC

namespace AscendC {

// ---- Copy: UB -> UB by mask and repeat (CopyRepeatParams strides in data blocks) --------------
struct CopyRepeatParams {
    CopyRepeatParams() {}
    CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                     uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn),
          srcRepeatSize(srcRepeatSizeIn) {}
    uint16_t dstStride = DEFAULT_DATA_COPY_STRIDE;
    uint16_t srcStride = DEFAULT_DATA_COPY_STRIDE;
    uint16_t dstRepeatSize = DEFAULT_REPEAT_STRIDE;
    uint16_t srcRepeatSize = DEFAULT_REPEAT_STRIDE;
};

}  // namespace AscendC

namespace opgen_sim {
template <typename T>
inline void CopyRep(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, const MaskSpec& m,
                    const AscendC::CopyRepeatParams& p) {
    constexpr const char* api = "Copy";
    if (m.counter) {
        // Counter mode: the `count` elements run as one long repeat, data block after data block
        // at the block strides; the repeat strides play no part (asc-devkit's copy_ub2ub example,
        // scenario 3, relies on it: 144 int32 at srcStride 8 pick 8 of every 64).
        constexpr uint32_t B = BlockElems<T>();
        const auto at = [](uint64_t k, uint32_t blk) { return (k / B) * blk * B + k % B; };
        if (m.count > 0) {
            CheckUbAligned(dst, api, "dst");
            CheckUbAligned(src, api, "src");
            const uint64_t last_d = at(m.count - 1, p.dstStride), last_s = at(m.count - 1, p.srcStride);
            if (last_d >= dst.size_ || last_s >= src.size_) {
                const bool d_out = last_d >= dst.size_;
                Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                     std::string(d_out ? "dst" : "src") + ": " + Str(m.count) + " elements in counter mode reach element " +
                         Str(d_out ? last_d : last_s) + " but the LocalTensor<" + TypeName<T>() + "> has " +
                         Str(d_out ? dst.size_ : src.size_) + " elements");
            }
        }
        for (uint64_t k = 0; k < m.count; ++k) dst.ptr_[at(k, p.dstStride)] = src.ptr_[at(k, p.srcStride)];
        CountMasked<T>(m);
        return;
    }
    CheckReach(api, m, dst, p.dstStride, p.dstRepeatSize, "dst");
    CheckReach(api, m, src, p.srcStride, p.srcRepeatSize, "src");
    T* d = dst.ptr_;
    const T* s = src.ptr_;
    const RepOperand ops[2] = {Operand<T>(p.dstStride, p.dstRepeatSize), Operand<T>(p.srcStride, p.srcRepeatSize)};
    ForRuns(m, ops, [&](int32_t r, uint32_t l, uint64_t n) {
        T* dd = d + LaneOffset<T>(r, l, p.dstStride, p.dstRepeatSize);
        const T* ss = s + LaneOffset<T>(r, l, p.srcStride, p.srcRepeatSize);
        if (!Overlaps(reinterpret_cast<const uint8_t*>(dd), n * sizeof(T), reinterpret_cast<const uint8_t*>(ss),
                      n * sizeof(T))) {
            std::memcpy(dd, ss, n * sizeof(T));
            return;
        }
        for (uint64_t i = 0; i < n; ++i) dd[i] = ss[i];  // lane after lane, as they compute
    });
    CountMasked<T>(m);
}
}  // namespace opgen_sim

namespace AscendC {
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                 const uint8_t repeatTime, const CopyRepeatParams& repeatParams) {
    opgen_sim::CopyRep(dst, src, opgen_sim::ResolveMask<T, isSetMask>("Copy", true, 0, mask, repeatTime),
                       repeatParams);
}
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask,
                 const uint8_t repeatTime, const CopyRepeatParams& repeatParams) {
    opgen_sim::CopyRep(dst, src, opgen_sim::ResolveMask<T, isSetMask>("Copy", false, mask, nullptr, repeatTime),
                       repeatParams);
}
}  // namespace AscendC
