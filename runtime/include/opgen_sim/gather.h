// opgen NPU simulator: Gather (offset-based, count and mask/repeat forms), Gatherb (whole 32-byte
// blocks) and CreateVecIndex.
//
// Gather (Ascend C reference, "Gather"): dst[i] = the element at byte srcBaseAddr + srcOffset[i] of
// src, srcOffset being uint32_t byte offsets. The mask/repeat form takes lanes = 256 / sizeof(T)
// offsets a repeat, consecutively (repeat r reads srcOffset from r * lanes), and writes repeat r
// of dst from dstRepStride * 32 bytes on (CANN's implementation: the count form is whole repeats of
// dstRepStride 8 plus a tail). An offset must be a multiple of sizeof(T) and, with srcBaseAddr,
// stay inside src (CANN's CPU model bounds it by src's size; the hardware reads whatever the
// Unified Buffer holds).
//
// Gatherb (reference, "Gatherb"): repeat r copies 8 blocks of 32 bytes; block j comes from byte
// offset[8 r + j] of src and goes to dst block r * dstRepStride + j * dstBlkStride (dstBlkStride 0
// counts as 1). Offsets are 32-byte multiples.
//
// CreateVecIndex (reference, "CreateVecIndex"): dst[i] = firstValue + i. For the mask/repeat form
// lane l of repeat r holds firstValue + r * lanes + l. CANN's implementation builds the values with
// Adds of a block (32 / sizeof(T)) and then a repeat's lane count, so half values are rounded at
// each such step; the simulator does the same additions.
#pragma once

#include "vector_masked.h"

namespace AscendC {

struct GatherRepeatParams {
    GatherRepeatParams() {}
    GatherRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t dstRepStrideIn)
        : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

}  // namespace AscendC

namespace opgen_sim {

template <typename T>
inline void GatherLanes(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                        const AscendC::LocalTensor<uint32_t>& srcOffset, uint32_t srcBaseAddr, const MaskSpec& m,
                        uint32_t dstRepStride) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                  "Gather takes 16- or 32-bit elements on the 910B family (documented)");
    CheckUbAligned(src, api, "src");
    CheckReach(api, m, dst, 1, dstRepStride, "dst");
    if (srcBaseAddr % sizeof(T) != 0) {
        Fail(ErrorKind::Alignment, api,
             "srcBaseAddr " + Str(srcBaseAddr) + " is not a multiple of sizeof(" + TypeName<T>() + ") = " +
                 Str(sizeof(T)));
    }
    if (Overlaps(reinterpret_cast<const uint8_t*>(dst.ptr_), static_cast<uint64_t>(dst.size_) * sizeof(T),
                 reinterpret_cast<const uint8_t*>(src.ptr_), static_cast<uint64_t>(src.size_) * sizeof(T))) {
        Fail(ErrorKind::Generic, api, "dst overlaps src (the reference forbids one buffer for both)");
    }
    CheckUbAligned(srcOffset, api, "srcOffset");
    uint64_t need = 0;
    for (int32_t r = m.repeats - 1; r >= 0 && need == 0; --r) {
        for (uint32_t l = m.lanes; l-- > 0;) {
            if (m.Active(r, l)) {
                need = static_cast<uint64_t>(r) * m.lanes + l + 1;
                break;
            }
        }
    }
    if (need > srcOffset.size_) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "srcOffset: the mask and " + std::to_string(m.repeats) + " repeat(s) read " + Str(need) +
                 " offsets but the LocalTensor<uint32_t> has " + Str(srcOffset.size_));
    }
    const uint64_t src_bytes = static_cast<uint64_t>(src.size_) * sizeof(T);
    const uint8_t* base = reinterpret_cast<const uint8_t*>(src.ptr_);
    std::vector<T> vals;
    vals.reserve(static_cast<size_t>(m.ActiveLanes()));
    ForActive(m, [&](int32_t r, uint32_t l) {
        const uint64_t i = static_cast<uint64_t>(r) * m.lanes + l;
        const uint64_t at = static_cast<uint64_t>(srcBaseAddr) + srcOffset.ptr_[i];
        if (srcOffset.ptr_[i] % sizeof(T) != 0) {
            Fail(ErrorKind::Alignment, api,
                 "srcOffset[" + Str(i) + "] = " + Str(srcOffset.ptr_[i]) + " is not a multiple of sizeof(" +
                     TypeName<T>() + ") = " + Str(sizeof(T)));
        }
        if (at + sizeof(T) > src_bytes) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "srcBaseAddr " + Str(srcBaseAddr) + " + srcOffset[" + Str(i) + "] = " + Str(srcOffset.ptr_[i]) +
                     " reads byte " + Str(at) + " of src, a LocalTensor<" + TypeName<T>() + "> of " +
                     Str(src_bytes) + " bytes");
        }
        T v;
        std::memcpy(&v, base + at, sizeof(T));
        vals.push_back(v);
    });
    size_t k = 0;
    ForActive(m, [&](int32_t r, uint32_t l) { dst.ptr_[LaneOffset<T>(r, l, 1, dstRepStride)] = vals[k++]; });
    CountMasked<T>(m, api);
}

template <typename T>
inline T IndexAdd(T a, uint32_t n) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<int64_t>(a) + static_cast<int64_t>(n));
    } else {
        return static_cast<T>(static_cast<float>(a) + static_cast<float>(n));
    }
}

template <typename T>
inline void CreateIndex(const char* api, const AscendC::LocalTensor<T>& dst, T first, const MaskSpec& m,
                        uint32_t blk, uint32_t rep) {
    static_assert(std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, half> ||
                      std::is_same_v<T, float>,
                  "CreateVecIndex takes int16_t, int32_t, half or float on the 910B family (documented)");
    CheckReach(api, m, dst, blk, rep, "dst");
    constexpr uint32_t B = BlockElems<T>();
    constexpr uint32_t L = RepeatLanes<T>();
    // the values of one repeat, then each repeat adds L to the one before
    std::vector<T> row(L);
    for (uint32_t l = 0; l < L; ++l) row[l] = l < B ? IndexAdd(first, l) : IndexAdd(row[l - B], B);
    int32_t at = 0;
    ForActive(m, [&](int32_t r, uint32_t l) {
        while (at < r) {
            for (uint32_t k = 0; k < L; ++k) row[k] = IndexAdd(row[k], L);
            ++at;
        }
        dst.ptr_[LaneOffset<T>(r, l, blk, rep)] = row[l];
    });
    CountMasked<T>(m, api);
}

}  // namespace opgen_sim

namespace AscendC {

// ---- Gather ------------------------------------------------------------------------------------
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint32_t count) {
    constexpr const char* api = "Gather";
    opgen_sim::CheckOperand(dst, count, api, "dst");
    opgen_sim::MaskSpec m;
    m.counter = true;
    m.count = count;
    m.lanes = opgen_sim::RepeatLanes<T>();
    m.repeats = static_cast<int32_t>((static_cast<uint64_t>(count) + m.lanes - 1) / m.lanes);
    opgen_sim::GatherLanes(api, dst, src, srcOffset, srcBaseAddr, m, 8);
}

template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTime,
                   const uint16_t dstRepStride) {
    const opgen_sim::MaskSpec m = opgen_sim::ResolveMask<T, true>("Gather", true, 0, mask, repeatTime);
    opgen_sim::GatherLanes("Gather", dst, src, srcOffset, srcBaseAddr, m, dstRepStride);
}

template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTime,
                   const uint16_t dstRepStride) {
    const opgen_sim::MaskSpec m = opgen_sim::ResolveMask<T, true>("Gather", false, mask, nullptr, repeatTime);
    opgen_sim::GatherLanes("Gather", dst, src, srcOffset, srcBaseAddr, m, dstRepStride);
}

// ---- Gatherb -----------------------------------------------------------------------------------
template <typename T>
inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offset,
                    const uint8_t repeatTime, const GatherRepeatParams& repeatParams) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Gatherb takes uint16_t or uint32_t (16- or 32-bit) data");
    constexpr const char* api = "Gatherb";
    constexpr uint64_t kBlk = opgen_sim::kBlockBytes;
    opgen_sim::CheckUbAligned(dst, api, "dst");
    opgen_sim::CheckUbAligned(src, api, "src");
    opgen_sim::CheckUbAligned(offset, api, "offset");
    const uint64_t blk_stride = repeatParams.dstBlkStride == 0 ? 1 : repeatParams.dstBlkStride;
    const uint64_t n = static_cast<uint64_t>(repeatTime) * 8;
    if (n > offset.size_) {
        opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                        "offset: " + std::to_string(repeatTime) + " repeat(s) read " + opgen_sim::Str(n) +
                            " offsets but the LocalTensor<uint32_t> has " + opgen_sim::Str(offset.size_));
    }
    if (repeatTime == 0) return;
    const uint64_t dst_bytes = static_cast<uint64_t>(dst.size_) * sizeof(T);
    const uint64_t src_bytes = static_cast<uint64_t>(src.size_) * sizeof(T);
    const uint64_t last = (static_cast<uint64_t>(repeatTime) - 1) * repeatParams.dstRepStride + 7 * blk_stride;
    if ((last + 1) * kBlk > dst_bytes) {
        opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                        "dst: " + std::to_string(repeatTime) + " repeat(s) (dstBlkStride " +
                            std::to_string(blk_stride) + ", dstRepStride " +
                            std::to_string(repeatParams.dstRepStride) + ") write block " + opgen_sim::Str(last) +
                            " but the LocalTensor holds " + opgen_sim::Str(dst_bytes) + " bytes");
    }
    if (opgen_sim::Overlaps(reinterpret_cast<const uint8_t*>(dst.ptr_), dst_bytes,
                            reinterpret_cast<const uint8_t*>(src.ptr_), src_bytes)) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api, "dst overlaps src (the reference forbids it)");
    }
    for (uint64_t i = 0; i < n; ++i) {
        const uint32_t o = offset.ptr_[i];
        if (o % kBlk != 0) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                            "offset[" + opgen_sim::Str(i) + "] = " + opgen_sim::Str(o) +
                                " is not a multiple of 32 bytes");
        }
        if (o + kBlk > src_bytes) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                            "offset[" + opgen_sim::Str(i) + "] = " + opgen_sim::Str(o) +
                                " reads a block past src, a LocalTensor of " + opgen_sim::Str(src_bytes) + " bytes");
        }
    }
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr_);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.ptr_);
    for (uint64_t r = 0; r < repeatTime; ++r) {
        for (uint64_t j = 0; j < 8; ++j) {
            std::memcpy(d + (r * repeatParams.dstRepStride + j * blk_stride) * kBlk, s + offset.ptr_[r * 8 + j], kBlk);
        }
    }
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    c.counters[opgen_sim::kVectorInstructions] += 1;
    c.counters[opgen_sim::kVectorRepeats] += repeatTime;
}

// ---- CreateVecIndex ----------------------------------------------------------------------------
template <typename T>
inline void CreateVecIndex(LocalTensor<T> dst, const T& firstValue, uint32_t count) {
    constexpr const char* api = "CreateVecIndex";
    opgen_sim::CheckOperand(dst, count, api, "dst");
    opgen_sim::MaskSpec m;
    m.counter = true;
    m.count = count;
    m.lanes = opgen_sim::RepeatLanes<T>();
    m.repeats = static_cast<int32_t>((static_cast<uint64_t>(count) + m.lanes - 1) / m.lanes);
    opgen_sim::CreateIndex(api, dst, firstValue, m, 1, 8);
}

template <typename T>
inline void CreateVecIndex(LocalTensor<T>& dst, const T& firstValue, uint64_t mask[], uint8_t repeatTime,
                           uint16_t dstBlkStride, uint8_t dstRepStride) {
    constexpr const char* api = "CreateVecIndex";
    const opgen_sim::MaskSpec m = opgen_sim::ResolveMask<T, true>(api, true, 0, mask, repeatTime);
    opgen_sim::CreateIndex(api, dst, firstValue, m, dstBlkStride, dstRepStride);
}

template <typename T>
inline void CreateVecIndex(LocalTensor<T>& dst, const T& firstValue, uint64_t mask, uint8_t repeatTime,
                           uint16_t dstBlkStride, uint8_t dstRepStride) {
    constexpr const char* api = "CreateVecIndex";
    const opgen_sim::MaskSpec m = opgen_sim::ResolveMask<T, true>(api, false, mask, nullptr, repeatTime);
    opgen_sim::CreateIndex(api, dst, firstValue, m, dstBlkStride, dstRepStride);
}

}  // namespace AscendC
