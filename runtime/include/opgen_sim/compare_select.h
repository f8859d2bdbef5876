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

// Eight lanes at a time, each byte of dst written once its eight lanes are read. The lanes run
// as runs (ForRuns: whole repeats, or data blocks, of 8 or 16 lanes); `lanes(bits, x, y, n)` may
// do a run at once (cmp_detail::CompareLanes, in the same byte order), else pred lane by lane.
template <typename T, typename U, typename F, typename L>
inline void CompareRep(const char* api, const AscendC::LocalTensor<U>& dst, const AscendC::LocalTensor<T>& a,
                       uint32_t a_blk, uint32_t a_rep, int64_t repeat, F pred, L lanes,
                       const AscendC::LocalTensor<T>* b, uint32_t b_blk, uint32_t b_rep) {
    const MaskSpec m = AllLanes<T>(api, repeat);
    CheckReach(api, m, a, a_blk, a_rep, "src0");
    if (b != nullptr) CheckReach(api, m, *b, b_blk, b_rep, "src1");
    CheckUbAligned(dst, api, "dst");
    CheckBitsHeld(api, dst, static_cast<uint64_t>(m.repeats) * m.lanes, "dst");
    uint8_t* out = reinterpret_cast<uint8_t*>(dst.ptr_);
    const RepOperand ops[2] = {Operand<T>(a_blk, a_rep),
                               b != nullptr ? Operand<T>(b_blk, b_rep) : Operand<T>(a_blk, a_rep)};
    ForRuns(m, ops, [&](int32_t r, uint32_t l, uint64_t n) {
        uint8_t* bits = out + (static_cast<uint64_t>(r) * m.lanes + l) / 8;
        const T* x = a.ptr_ + LaneOffset<T>(r, l, a_blk, a_rep);
        const T* y = b != nullptr ? b->ptr_ + LaneOffset<T>(r, l, b_blk, b_rep) : nullptr;
        if (lanes(bits, x, y, static_cast<uint32_t>(n))) return;
        for (uint64_t i = 0; i < n; i += 8) {
            uint8_t byte = 0;
            for (uint32_t k = 0; k < 8; ++k) {
                const Acc<T> xv = static_cast<Acc<T>>(x[i + k]);
                const Acc<T> yv = y != nullptr ? static_cast<Acc<T>>(y[i + k]) : Acc<T>(0);
                byte |= static_cast<uint8_t>(pred(xv, yv)) << k;
            }
            bits[i / 8] = byte;
        }
    });
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

// d[k] = bit k of the bytes at bits ? x[k] : (y ? y[k] : s) for k < end - from, eight lanes a
// byte; returns `end` (`from` where this T has no such form). SSE2 masks from each byte.
template <typename T>
inline uint64_t SelectBytes(T* d, const T* x, const T* y, T s, const uint8_t* bits, uint64_t from,
                            uint64_t end) {
#ifdef OPGEN_SIM_SIMD_LANES
    if constexpr (sizeof(T) == 4 || sizeof(T) == 2) {
        const uint64_t n = end - from;
        __m128i sv;
        std::memcpy(&sv, &s, sizeof(T));
        sv = sizeof(T) == 4 ? _mm_shuffle_epi32(sv, 0) : _mm_set1_epi16(static_cast<short>(_mm_cvtsi128_si32(sv)));
        for (uint64_t k = 0; k < n; k += 8) {
            const int byte = bits[k / 8];
            if constexpr (sizeof(T) == 4) {
                const __m128i one = _mm_setr_epi32(1, 2, 4, 8), two = _mm_setr_epi32(16, 32, 64, 128);
                const __m128i b = _mm_set1_epi32(byte);
                const __m128i m0 = _mm_cmpeq_epi32(_mm_and_si128(b, one), one);
                const __m128i m1 = _mm_cmpeq_epi32(_mm_and_si128(b, two), two);
                const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k));
                const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k + 4));
                const __m128i y0 = y ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(y + k)) : sv;
                const __m128i y1 = y ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(y + k + 4)) : sv;
                _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k),
                                 _mm_or_si128(_mm_and_si128(m0, x0), _mm_andnot_si128(m0, y0)));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k + 4),
                                 _mm_or_si128(_mm_and_si128(m1, x1), _mm_andnot_si128(m1, y1)));
            } else {
                const __m128i w = _mm_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128);
                const __m128i m = _mm_cmpeq_epi16(_mm_and_si128(_mm_set1_epi16(static_cast<short>(byte)), w), w);
                const __m128i xv = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k));
                const __m128i yv = y ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(y + k)) : sv;
                _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k), _mm_or_si128(_mm_and_si128(m, xv), _mm_andnot_si128(m, yv)));
            }
        }
        return end;
    }
#endif
    (void)d, (void)x, (void)y, (void)s, (void)bits, (void)end;
    return from;
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
    // Where dst lies apart from every source tensor, or the call is one run with a source in
    // dst's place (each element read once, then written), run by run as the lanes compute.
    const RepOperand ops[3] = {Operand<T>(p.dstBlkStride, p.dstRepStride),
                               Operand<T>(p.src0BlkStride, p.src0RepStride),
                               kScalar ? Operand<T>(p.src0BlkStride, p.src0RepStride)
                                       : Operand<T>(p.src1BlkStride, p.src1RepStride)};
    const uint8_t* d_at = reinterpret_cast<const uint8_t*>(dst.ptr_);
    const uint64_t d_bytes = ReachEnd<T>(m, p.dstBlkStride, p.dstRepStride) * sizeof(T);
    const bool one_run = LaneRuns(m, ops).OneRun();
    const auto apart = [&](const T* t, uint32_t blk, uint32_t rep) {
        if (one_run && t == dst.ptr_ && blk == p.dstBlkStride && rep == p.dstRepStride) return true;
        return !Overlaps(d_at, d_bytes, reinterpret_cast<const uint8_t*>(t), ReachEnd<T>(m, blk, rep) * sizeof(T));
    };
    bool direct = apart(src0.ptr_, p.src0BlkStride, p.src0RepStride);
    if constexpr (!kScalar) direct = direct && apart(src1.ptr_, p.src1BlkStride, p.src1RepStride);
    if (sel.bits != nullptr) {  // and from the selection bits
        direct = direct && !Overlaps(d_at, d_bytes, sel.bits, (m.TotalLanes() + 7) / 8);
    }
    if (direct) {
        ForRuns(m, ops, [&](int32_t r, uint32_t l, uint64_t n) {
            T* d = dst.ptr_ + LaneOffset<T>(r, l, p.dstBlkStride, p.dstRepStride);
            const T* x = src0.ptr_ + LaneOffset<T>(r, l, p.src0BlkStride, p.src0RepStride);
            const uint64_t first = static_cast<uint64_t>(r) * m.lanes + l;  // the lanes' bits
            const T* y = nullptr;
            if constexpr (!kScalar) y = src1.ptr_ + LaneOffset<T>(r, l, p.src1BlkStride, p.src1RepStride);
            const auto pick = [&](uint64_t i, bool bit) {
                if constexpr (kScalar) {
                    d[i] = bit ? x[i] : src1;
                } else {
                    d[i] = bit ? x[i] : y[i];
                }
            };
            if (mode == AscendC::SELMODE::VSEL_CMPMASK_SPR) {  // the register's bits, every repeat
                uint32_t lane = static_cast<uint32_t>(first % m.lanes);
                for (uint64_t i = 0; i < n; ++i) {
                    pick(i, ((tls_cmp_mask[lane >> 6] >> (lane & 63)) & 1u) != 0);
                    lane = lane + 1 == m.lanes ? 0 : lane + 1;
                }
            } else {
                uint64_t i = 0;
                for (; i < n && ((first + i) & 7) != 0; ++i) pick(i, CmpBit(sel.bits, first + i));
                const uint64_t whole = i + (n - i) / 8 * 8;  // eight lanes a byte of selMask
                if constexpr (kScalar) {
                    i = SelectBytes<T>(d + i, x + i, nullptr, src1, sel.bits + (first + i) / 8, i, whole);
                } else {
                    i = SelectBytes<T>(d + i, x + i, y + i, T(), sel.bits + (first + i) / 8, i, whole);
                }
                for (; i < n; ++i) pick(i, CmpBit(sel.bits, first + i));
            }
        });
        CountMasked<T>(m, api);
        return;
    }
    // dst overlaps a source: read every lane first
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

namespace cmp_detail {
// A run of a mask/repeat Compare at once (CompareLanes), against src1's lanes or the scalar s.
template <typename T>
inline auto RunLanes(CMPMODE mode, float s) {
    return [mode, s](uint8_t* bits, const T* x, const T* y, uint32_t n) {
        return CompareLanes(bits, x, y, s, mode, n);
    };
}
}  // namespace cmp_detail

// ---- Compare, mask/repeat forms (bits to dst) -------------------------------------------------
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
    (void)mask;  // reserved on the 910B family (documented)
    opgen_sim::CompareRep<T>("Compare", dst, src0, repeatParams.src0BlkStride, repeatParams.src0RepStride, repeatTime,
                             [cmpMode](auto x, auto y) { return cmp_detail::Apply(cmpMode, x, y); },
                             cmp_detail::RunLanes<T>(cmpMode, 0.0f), &src1, repeatParams.src1BlkStride,
                             repeatParams.src1RepStride);
}

template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    const uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
    (void)mask;
    opgen_sim::CompareRep<T>("Compare", dst, src0, repeatParams.src0BlkStride, repeatParams.src0RepStride, repeatTime,
                             [cmpMode](auto x, auto y) { return cmp_detail::Apply(cmpMode, x, y); },
                             cmp_detail::RunLanes<T>(cmpMode, 0.0f), &src1, repeatParams.src1BlkStride,
                             repeatParams.src1RepStride);
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
                             RunLanes<T>(cmpMode, static_cast<float>(s)),
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
