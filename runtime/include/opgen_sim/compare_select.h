// opgen NPU simulator: Compare / Compares / CompareScalar in their mask/repeat ("tensor
// high-dimension") forms and the forms that write the CmpMask register, GetCmpMask/SetCmpMask,
// and Select in all three SELMODEs (count, mask/repeat and register forms). The count forms of
// Compare/CompareScalar live in vector.h.
//
// Model (Ascend C reference, "Compare", "Compare (result in register)", "Select"; where it is
// silent, CANN's implementation for the 910B decided):
// - A repeat covers 256 bytes: lanes = 256 / sizeof(T). Compare's bit result for repeat r is
//   written from bit r * lanes of dst, consecutively (the count form is built on exactly that).
//   On the 910B family the mask of Compare/Compares' mask/repeat forms is a reserved parameter
//   (documented): every lane of every repeat is compared.
// - CmpMask is one 128-bit register per core. The register form of Compare writes one repeat's
//   bits to it (lanes the mask leaves out read 0); GetCmpMask stores its 16 bytes, SetCmpMask
//   loads them.
// - Select picks src0 where the selection bit is 1 and src1 (a tensor or, in
//   VSEL_TENSOR_SCALAR_MODE, a scalar) where it is 0. VSEL_CMPMASK_SPR: the first 128 bits of
//   selMask go to CmpMask and every repeat uses the same lanes bits. VSEL_TENSOR_SCALAR_MODE and
//   VSEL_TENSOR_TENSOR_MODE consume selMask continuously, lanes bits a repeat. In the mask/repeat
//   forms a lane the mask leaves out keeps its dst value.
#pragma once

#include "vector_masked.h"

namespace opgen_sim {

inline thread_local uint64_t tls_cmp_mask[2] = {0, 0};

inline bool CmpBit(const uint8_t* bits, uint64_t i) { return ((bits[i / 8] >> (i % 8)) & 1u) != 0; }

template <typename U>
inline void CheckBitsHeld(const char* api, const AscendC::LocalTensor<U>& t, uint64_t bits, const char* what) {
    const uint64_t have = static_cast<uint64_t>(t.size_) * sizeof(U);
    const uint64_t need = (bits + 7) / 8;
    if (need > have) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             std::string(what) + ": " + Str(bits) + " bits need " + Str(need) + " bytes but the LocalTensor<" +
                 TypeName<U>() + "> holds " + Str(have));
    }
}

// Every lane of `repeat` repeats (Compare's mask/repeat forms on the 910B ignore the mask).
template <typename T>
inline MaskSpec AllLanes(const char* api, int64_t repeat) {
    CheckRepeatTimes(repeat, api);
    MaskSpec m;
    m.lanes = RepeatLanes<T>();
    m.repeats = static_cast<int32_t>(repeat);
    m.bits[0] = m.lanes >= 64 ? ~0ull : ((1ull << m.lanes) - 1);
    m.bits[1] = m.lanes > 64 ? ~0ull : 0ull;
    return m;
}

template <typename T, typename U, typename F>
inline void CompareRep(const char* api, const AscendC::LocalTensor<U>& dst, const AscendC::LocalTensor<T>& a,
                       uint32_t a_blk, uint32_t a_rep, int64_t repeat, F pred, const AscendC::LocalTensor<T>* b,
                       uint32_t b_blk, uint32_t b_rep) {
    const MaskSpec m = AllLanes<T>(api, repeat);
    CheckReach(api, m, a, a_blk, a_rep, "src0");
    if (b != nullptr) CheckReach(api, m, *b, b_blk, b_rep, "src1");
    CheckUbAligned(dst, api, "dst");
    CheckBitsHeld(api, dst, static_cast<uint64_t>(m.repeats) * m.lanes, "dst");
    uint8_t* out = reinterpret_cast<uint8_t*>(dst.ptr_);
    for (int32_t r = 0; r < m.repeats; ++r) {
        for (uint32_t l = 0; l < m.lanes; l += 8) {
            uint8_t byte = 0;
            for (uint32_t k = 0; k < 8; ++k) {
                const Acc<T> x = static_cast<Acc<T>>(a.ptr_[LaneOffset<T>(r, l + k, a_blk, a_rep)]);
                const Acc<T> y = b != nullptr ? static_cast<Acc<T>>(b->ptr_[LaneOffset<T>(r, l + k, b_blk, b_rep)])
                                              : Acc<T>(0);
                byte |= static_cast<uint8_t>(pred(x, y)) << k;
            }
            out[(static_cast<uint64_t>(r) * m.lanes + l) / 8] = byte;
        }
    }
    CountMasked<T>(m, api);
}

// The selection bit of lane l in repeat r.
struct SelBits {
    AscendC::SELMODE mode;
    const uint8_t* bits;  // selMask (modes 1 and 2)
    uint32_t lanes;
    bool Get(int32_t r, uint32_t l) const {
        if (mode == AscendC::SELMODE::VSEL_CMPMASK_SPR) return ((tls_cmp_mask[l >> 6] >> (l & 63)) & 1u) != 0;
        return CmpBit(bits, static_cast<uint64_t>(r) * lanes + l);
    }
};

template <typename U>
inline void LoadCmpMask(const char* api, const AscendC::LocalTensor<U>& src, uint32_t lanes) {
    // CANN loads the register from selMask (set_cmpmask); a repeat uses its first `lanes` bits.
    CheckBitsHeld(api, src, lanes, "selMask");
    const uint8_t* p = reinterpret_cast<const uint8_t*>(src.ptr_);
    const uint64_t have = static_cast<uint64_t>(src.size_) * sizeof(U);
    uint8_t reg[16] = {};
    std::memcpy(reg, p, have < 16 ? have : 16);
    std::memcpy(tls_cmp_mask, reg, 16);
}

template <typename T, typename U, typename Src1>
inline void SelectRep(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>* selMask,
                      const AscendC::LocalTensor<T>& src0, const Src1& src1, AscendC::SELMODE mode,
                      const MaskSpec& m, const AscendC::BinaryRepeatParams& p) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Select takes half or float (16- or 32-bit) elements");
    CheckReach(api, m, dst, p.dstBlkStride, p.dstRepStride, "dst");
    CheckReach(api, m, src0, p.src0BlkStride, p.src0RepStride, "src0");
    constexpr bool kScalar = !std::is_same_v<Src1, AscendC::LocalTensor<T>>;
    if constexpr (!kScalar) CheckReach(api, m, src1, p.src1BlkStride, p.src1RepStride, "src1");
    SelBits sel{mode, nullptr, m.lanes};
    if (mode != AscendC::SELMODE::VSEL_CMPMASK_SPR) {
        CheckUbAligned(*selMask, api, "selMask");
        CheckBitsHeld(api, *selMask, static_cast<uint64_t>(m.repeats) * m.lanes, "selMask");
        sel.bits = reinterpret_cast<const uint8_t*>(selMask->ptr_);
    }
    // dst may be one of the sources: read every lane first
    std::vector<T> out;
    out.reserve(static_cast<size_t>(m.ActiveLanes()));
    ForActive(m, [&](int32_t r, uint32_t l) {
        T v;
        if (sel.Get(r, l)) {
            v = src0.ptr_[LaneOffset<T>(r, l, p.src0BlkStride, p.src0RepStride)];
        } else if constexpr (kScalar) {
            v = src1;
        } else {
            v = src1.ptr_[LaneOffset<T>(r, l, p.src1BlkStride, p.src1RepStride)];
        }
        out.push_back(v);
    });
    size_t i = 0;
    ForActive(m, [&](int32_t r, uint32_t l) { dst.ptr_[LaneOffset<T>(r, l, p.dstBlkStride, p.dstRepStride)] = out[i++]; });
    CountMasked<T>(m, api);
}

// The count forms run as one counter-mode instruction: count lanes, repeat after repeat.
template <typename T>
inline MaskSpec CountLanes(uint32_t count) {
    MaskSpec m;
    m.counter = true;
    m.count = count;
    m.lanes = RepeatLanes<T>();
    m.repeats = static_cast<int32_t>((static_cast<uint64_t>(count) + m.lanes - 1) / m.lanes);
    return m;
}

inline const char* SelModeName(AscendC::SELMODE m) {
    switch (m) {
        case AscendC::SELMODE::VSEL_CMPMASK_SPR: return "VSEL_CMPMASK_SPR";
        case AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE: return "VSEL_TENSOR_SCALAR_MODE";
        default: return "VSEL_TENSOR_TENSOR_MODE";
    }
}

inline void CheckTensorSelMode(const char* api, AscendC::SELMODE m) {
    if (m == AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE) {
        Fail(ErrorKind::Generic, api,
             "a tensor src1 needs SELMODE::VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE, not "
             "VSEL_TENSOR_SCALAR_MODE (pass a scalar src1 for that mode)");
    }
}

inline void CheckScalarSelMode(const char* api, AscendC::SELMODE m) {
    if (m != AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE) {
        Fail(ErrorKind::Generic, api,
             std::string("a scalar src1 needs SELMODE::VSEL_TENSOR_SCALAR_MODE, not ") + SelModeName(m));
    }
}

}  // namespace opgen_sim

namespace AscendC {

// ---- Compare, mask/repeat forms (bits to dst) -------------------------------------------------
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
    (void)mask;  // reserved on the 910B family (documented)
    opgen_sim::CompareRep<T>("Compare", dst, src0, repeatParams.src0BlkStride, repeatParams.src0RepStride, repeatTime,
                             [cmpMode](auto x, auto y) { return cmp_detail::Apply(cmpMode, x, y); }, &src1,
                             repeatParams.src1BlkStride, repeatParams.src1RepStride);
}

template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    const uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
    (void)mask;
    opgen_sim::CompareRep<T>("Compare", dst, src0, repeatParams.src0BlkStride, repeatParams.src0RepStride, repeatTime,
                             [cmpMode](auto x, auto y) { return cmp_detail::Apply(cmpMode, x, y); }, &src1,
                             repeatParams.src1BlkStride, repeatParams.src1RepStride);
}

// ---- Compare, one repeat into the CmpMask register ---------------------------------------------
namespace cmp_detail {
template <typename T, bool isSetMask>
inline void CompareToRegister(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                              bool is_bits, uint64_t count_mask, const uint64_t* bit_mask,
                              const BinaryRepeatParams& p) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "Compare into CmpMask takes half or float (documented)");
    constexpr const char* api = "Compare(CmpMask)";
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    if (c.mask_counter) {
        opgen_sim::Fail(opgen_sim::ErrorKind::VectorCount, api,
                        "the register form runs one repeat in normal mask mode; call SetMaskNorm first");
    }
    opgen_sim::MaskSpec m = opgen_sim::ResolveMask<T, isSetMask>(api, is_bits, count_mask, bit_mask, 1);
    opgen_sim::CheckReach(api, m, src0, p.src0BlkStride, p.src0RepStride, "src0");
    opgen_sim::CheckReach(api, m, src1, p.src1BlkStride, p.src1RepStride, "src1");
    uint64_t reg[2] = {0, 0};
    opgen_sim::ForActive(m, [&](int32_t r, uint32_t l) {
        const auto x = static_cast<opgen_sim::Acc<T>>(src0.ptr_[opgen_sim::LaneOffset<T>(r, l, p.src0BlkStride, p.src0RepStride)]);
        const auto y = static_cast<opgen_sim::Acc<T>>(src1.ptr_[opgen_sim::LaneOffset<T>(r, l, p.src1BlkStride, p.src1RepStride)]);
        if (Apply(cmpMode, x, y)) reg[l >> 6] |= 1ull << (l & 63);
    });
    opgen_sim::tls_cmp_mask[0] = reg[0];
    opgen_sim::tls_cmp_mask[1] = reg[1];
    opgen_sim::CountMasked<T>(m);
}
}  // namespace cmp_detail

template <typename T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask[],
                    const BinaryRepeatParams& repeatParams) {
    cmp_detail::CompareToRegister<T, isSetMask>(src0, src1, cmpMode, true, 0, mask, repeatParams);
}

template <typename T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask,
                    const BinaryRepeatParams& repeatParams) {
    cmp_detail::CompareToRegister<T, isSetMask>(src0, src1, cmpMode, false, mask, nullptr, repeatParams);
}

// GetCmpMask stores the 128-bit CmpMask register (16 bytes) at dst; SetCmpMask loads it from src.
template <typename T>
inline void GetCmpMask(const LocalTensor<T>& dst) {
    constexpr const char* api = "GetCmpMask";
    opgen_sim::CheckUbAligned(dst, api, "dst");
    opgen_sim::CheckBitsHeld(api, dst, 128, "dst");
    std::memcpy(dst.ptr_, opgen_sim::tls_cmp_mask, 16);
}

template <typename T>
inline void SetCmpMask(const LocalTensor<T>& src) {
    constexpr const char* api = "SetCmpMask";
    opgen_sim::CheckUbAligned(src, api, "src");
    opgen_sim::CheckBitsHeld(api, src, 128, "src");
    std::memcpy(opgen_sim::tls_cmp_mask, src.ptr_, 16);
}

// ---- Compares (the current name of CompareScalar) -----------------------------------------------
template <typename T, typename U>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                     const typename opgen_sim::Id<T>::type src1Scalar, CMPMODE cmpMode, uint32_t count) {
    CompareScalar(dst, src0, src1Scalar, cmpMode, count);
}

namespace cmp_detail {
template <typename T, typename U>
inline void ScalarRep(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>& src0, T scalar,
                      CMPMODE cmpMode, uint8_t repeatTime, const UnaryRepeatParams& p) {
    const opgen_sim::Acc<T> s = static_cast<opgen_sim::Acc<T>>(scalar);
    opgen_sim::CompareRep<T>(api, dst, src0, p.srcBlkStride, p.srcRepStride, repeatTime,
                             [cmpMode, s](auto x, auto) { return Apply(cmpMode, x, s); },
                             static_cast<const LocalTensor<T>*>(nullptr), 0, 0);
}
}  // namespace cmp_detail

#define OPGEN_SIM_COMPARES_REP(NAME)                                                                          \
    template <typename T, typename U, bool isSetMask = true>                                                  \
    inline void NAME(const LocalTensor<U>& dst, const LocalTensor<T>& src0,                                   \
                     const typename opgen_sim::Id<T>::type src1Scalar, CMPMODE cmpMode, const uint64_t mask[], \
                     uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {                             \
        (void)mask; /* reserved on the 910B family */                                                         \
        cmp_detail::ScalarRep<T>(#NAME, dst, src0, static_cast<T>(src1Scalar), cmpMode, repeatTime,           \
                                 repeatParams);                                                               \
    }                                                                                                         \
    template <typename T, typename U, bool isSetMask = true>                                                  \
    inline void NAME(const LocalTensor<U>& dst, const LocalTensor<T>& src0,                                   \
                     const typename opgen_sim::Id<T>::type src1Scalar, CMPMODE cmpMode, const uint64_t mask,   \
                     uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {                             \
        (void)mask;                                                                                           \
        cmp_detail::ScalarRep<T>(#NAME, dst, src0, static_cast<T>(src1Scalar), cmpMode, repeatTime,           \
                                 repeatParams);                                                               \
    }
OPGEN_SIM_COMPARES_REP(Compares)
OPGEN_SIM_COMPARES_REP(CompareScalar)
#undef OPGEN_SIM_COMPARES_REP

// ---- Select, count forms -----------------------------------------------------------------------
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count) {
    constexpr const char* api = "Select";
    opgen_sim::CheckTensorSelMode(api, selMode);
    opgen_sim::CheckOperand(dst, count, api, "dst");
    opgen_sim::CheckOperand(src0, count, api, "src0");
    opgen_sim::CheckOperand(src1, count, api, "src1");
    opgen_sim::CheckUbAligned(selMask, api, "selMask");
    const opgen_sim::MaskSpec m = opgen_sim::CountLanes<T>(count);
    if (selMode == SELMODE::VSEL_CMPMASK_SPR) opgen_sim::LoadCmpMask(api, selMask, std::min<uint32_t>(count, m.lanes));
    opgen_sim::SelectRep(api, dst, &selMask, src0, src1, selMode, m, BinaryRepeatParams());
}

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   typename opgen_sim::Id<T>::type src1, SELMODE selMode, uint32_t count) {
    constexpr const char* api = "Select";
    opgen_sim::CheckScalarSelMode(api, selMode);
    opgen_sim::CheckOperand(dst, count, api, "dst");
    opgen_sim::CheckOperand(src0, count, api, "src0");
    const opgen_sim::MaskSpec m = opgen_sim::CountLanes<T>(count);
    opgen_sim::SelectRep(api, dst, &selMask, src0, static_cast<T>(src1), selMode, m, BinaryRepeatParams());
}

// ---- Select, mask/repeat forms -----------------------------------------------------------------
namespace cmp_detail {
template <typename T, typename U, bool isSetMask, typename Src1>
inline void SelectMasked(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                         const Src1& src1, SELMODE selMode, bool is_bits, uint64_t count_mask,
                         const uint64_t* bit_mask, uint8_t repeatTime, const BinaryRepeatParams& p) {
    constexpr const char* api = "Select";
    if constexpr (std::is_same_v<Src1, LocalTensor<T>>) {
        opgen_sim::CheckTensorSelMode(api, selMode);
    } else {
        opgen_sim::CheckScalarSelMode(api, selMode);
    }
    const opgen_sim::MaskSpec m = opgen_sim::ResolveMask<T, isSetMask>(api, is_bits, count_mask, bit_mask, repeatTime);
    if (selMode == SELMODE::VSEL_CMPMASK_SPR) {
        opgen_sim::CheckUbAligned(selMask, api, "selMask");
        opgen_sim::LoadCmpMask(api, selMask, m.lanes);
    }
    opgen_sim::SelectRep(api, dst, &selMask, src0, src1, selMode, m, p);
}
}  // namespace cmp_detail

template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask[], uint8_t repeatTime,
                   const BinaryRepeatParams& repeatParams) {
    cmp_detail::SelectMasked<T, U, isSetMask>(dst, selMask, src0, src1, selMode, true, 0, mask, repeatTime,
                                              repeatParams);
}

template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask, uint8_t repeatTime,
                   const BinaryRepeatParams& repeatParams) {
    cmp_detail::SelectMasked<T, U, isSetMask>(dst, selMask, src0, src1, selMode, false, mask, nullptr, repeatTime,
                                              repeatParams);
}

template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   typename opgen_sim::Id<T>::type src1, SELMODE selMode, uint64_t mask[], uint8_t repeatTime,
                   const BinaryRepeatParams& repeatParams) {
    cmp_detail::SelectMasked<T, U, isSetMask>(dst, selMask, src0, static_cast<T>(src1), selMode, true, 0, mask,
                                              repeatTime, repeatParams);
}

template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   typename opgen_sim::Id<T>::type src1, SELMODE selMode, uint64_t mask, uint8_t repeatTime,
                   const BinaryRepeatParams& repeatParams) {
    cmp_detail::SelectMasked<T, U, isSetMask>(dst, selMask, src0, static_cast<T>(src1), selMode, false, mask, nullptr,
                                              repeatTime, repeatParams);
}

// ---- Select without a mask argument: the mask register (SetVectorMask) and CmpMask -------------
// VSEL_CMPMASK_SPR selects by the CmpMask bits (from Compare's register form or SetCmpMask).
template <typename T, SELMODE selMode>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                   uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
    constexpr const char* api = "Select";
    if constexpr (selMode != SELMODE::VSEL_CMPMASK_SPR) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        std::string("the form without selMask is simulated for SELMODE::VSEL_CMPMASK_SPR only, not ") +
                            opgen_sim::SelModeName(selMode));
    }
    const opgen_sim::MaskSpec m = opgen_sim::ResolveMask<T, false>(api, false, 0, nullptr, repeatTime);
    opgen_sim::SelectRep(api, dst, static_cast<const LocalTensor<uint8_t>*>(nullptr), src0, src1, selMode, m,
                         repeatParams);
}

// VSEL_TENSOR_SCALAR_MODE with the scalar taken from CmpMask's low bytes (SetCmpMask of a tensor
// holding it, as CANN's implementation stages it).
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
    constexpr const char* api = "Select";
    const opgen_sim::MaskSpec m = opgen_sim::ResolveMask<T, false>(api, false, 0, nullptr, repeatTime);
    T scalar;
    std::memcpy(&scalar, opgen_sim::tls_cmp_mask, sizeof(T));
    opgen_sim::SelectRep(api, dst, &selMask, src0, scalar, SELMODE::VSEL_TENSOR_SCALAR_MODE, m, repeatParams);
}

}  // namespace AscendC
