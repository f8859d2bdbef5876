// opgen NPU simulator: more element-wise vector APIs.
//
// Basic APIs: Axpy (count and mask/repeat forms), And / Or (count and mask/repeat forms), Not
// (mask/repeat forms; the count form is in vector.h), ShiftLeft / ShiftRight (count form), Brcb.
// Advanced (math library) APIs, each with and without sharedTmpBuffer: Sigmoid, Tanh, Sin, Cos,
// Erf, Power (tensor^tensor, tensor^scalar, scalar^tensor), Floor, Ceil, Round, Trunc, Gelu,
// FasterGelu, FasterGeluV2, Silu, Axpy's sharedTmpBuffer overload, and Exp<T, taylorExpandLevel>.
//
// Lanes compute in float for half/bfloat16 (libm for the transcendental functions) and round once
// to T, as the existing vector instructions do. The hardware's approximations (e.g. Sin's
// polynomial, Erf's rational P/Q) can differ from these by an ulp or more.
#pragma once

#include <algorithm>
#include <vector>

#include "../opgen_host/exp_tmp_size.h"
#include "vector_masked.h"

namespace opgen_sim {

// sharedTmpBuffer rules of the advanced APIs (the simulator's): a VECIN/VECOUT/VECCALC tensor,
// 32-byte aligned, at least min_bytes long, not overlapping the operands it works for (CANN
// documents "sharedTmpBuffer must not overlap src/dst" for these APIs).
// Whether `a` elements at one tensor and `b` at another share a byte (none when either is empty).
template <typename A, typename B>
inline bool Overlaps(const AscendC::LocalTensor<A>& a, uint64_t na, const AscendC::LocalTensor<B>& b,
                     uint64_t nb) {
    if (a.ptr_ == nullptr || b.ptr_ == nullptr || na == 0 || nb == 0) return false;
    return Overlaps(reinterpret_cast<const uint8_t*>(a.ptr_), na * sizeof(A),
                    reinterpret_cast<const uint8_t*>(b.ptr_), nb * sizeof(B));
}
template <typename T>
inline bool Overlaps(const AscendC::LocalTensor<uint8_t>& tmp, const AscendC::LocalTensor<T>& t,
                     uint64_t count) {
    return Overlaps(tmp, tmp.size_, t, count);
}

// The positions of the vector unit's buffers.
inline bool IsVecPosition(AscendC::TPosition p) {
    return p == AscendC::TPosition::VECIN || p == AscendC::TPosition::VECOUT ||
           p == AscendC::TPosition::VECCALC;
}

// Where a sharedTmpBuffer may lie: 32-byte aligned, in a vector buffer.
inline void CheckTmpPlace(const char* api, const AscendC::LocalTensor<uint8_t>& tmp) {
    CheckUbAligned(tmp, api, "sharedTmpBuffer");
    if (!IsVecPosition(tmp.pos_)) {
        Fail(ErrorKind::Generic, api,
             "sharedTmpBuffer must be a VECIN/VECOUT/VECCALC LocalTensor (TPosition " +
                 std::to_string(static_cast<int>(tmp.pos_)) + ")");
    }
}

// One counter-mode RepeatReduceSum over v's first n values, in place: the tree sum of each
// 256-byte repeat (zeros past n) into v[0], v[1], ...; returns how many sums it left.
template <typename T>
inline uint32_t RepeatSumLevel(T* v, uint32_t n) {
    constexpr uint32_t lanes = kRepeatBytes / sizeof(T);
    T vals[lanes];
    const uint32_t reps = (n + lanes - 1) / lanes;
    for (uint32_t r = 0; r < reps; ++r) {
        const uint32_t take = std::min(lanes, n - r * lanes);
        std::fill_n(vals, lanes, T(0));
        std::memcpy(vals, v + static_cast<uint64_t>(r) * lanes, take * sizeof(T));
        v[r] = TreeSum(vals, lanes);
    }
    return reps;
}

// Element <-> float for the advanced APIs that compute in float (SoftMax's family, RmsNorm,
// LayerNorm): a half result is cast back once with the API's own mode (CANN's code uses
// CAST_ROUND in the SoftMax family, CAST_RINT in the norms); a float result is itself.
template <typename T>
inline float ToF(T v) {
    return static_cast<float>(v);
}
template <typename T, AscendC::RoundMode mode>
inline T FromFloatAs(float v) {
    if constexpr (std::is_same_v<T, half>) {
        return AscendC::cast_detail::ToFloat<half>(v, mode);
    } else {
        return v;
    }
}

template <typename T>
inline void CheckTmp(const char* api, const AscendC::LocalTensor<uint8_t>& tmp, uint64_t min_bytes,
                     const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>* src0,
                     const AscendC::LocalTensor<T>* src1, uint64_t count) {
    CheckTmpPlace(api, tmp);
    if (tmp.size_ < min_bytes) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes; the simulator requires at least " +
                 Str(min_bytes) + " (one 256-byte repeat)");
    }
    if (Overlaps(tmp, dst, count) || (src0 != nullptr && Overlaps(tmp, *src0, count)) ||
        (src1 != nullptr && Overlaps(tmp, *src1, count))) {
        Fail(ErrorKind::Generic, api,
             "sharedTmpBuffer (UB offset " + Str(tmp.UbOffset()) + ", " + Str(tmp.size_) +
                 " bytes) overlaps a source or destination operand; CANN does not allow that");
    }
}

constexpr uint64_t kTmpMinBytes = kRepeatBytes;

template <typename T>
inline Acc<T> PowLane(Acc<T> a, Acc<T> b) {
    if constexpr (std::is_integral_v<T>) {
        if (b < 0) {
            if (a == 1) return 1;
            if (a == -1) return (b % 2 == 0) ? 1 : -1;
            return 0;
        }
        uint64_t base = static_cast<uint64_t>(static_cast<int64_t>(a));
        uint64_t r = 1;
        for (uint64_t e = static_cast<uint64_t>(b); e != 0; e >>= 1) {
            if (e & 1u) r *= base;
            base *= base;
        }
        return static_cast<Acc<T>>(static_cast<T>(r));
    } else {
        return std::pow(a, b);
    }
}

// The activations built on e^h(x): g(x, Exp(h(x))), in float (half lanes too, rounded once).
// A float span computes h of 256 lanes, their Exp on its SIMD lanes (exp_lanes.h), then g: each
// lane the same float operations as one lane alone.
template <typename H, typename G>
inline bool ExpActivationSpan(float* d, const float* x, uint64_t n, H h, G g) {
    float e[256];
    for (uint64_t i = 0; i < n; i += 256) {
        const uint64_t k = n - i < 256 ? n - i : 256;
        for (uint64_t j = 0; j < k; ++j) e[j] = h(x[i + j]);
        exp_lanes::Span(e, e, k);
        for (uint64_t j = 0; j < k; ++j) d[i + j] = g(x[i + j], e[j]);  // (d == x: x[i + j] read first)
    }
    return true;
}
#ifdef OPGEN_SIM_SIMD_LANES
#define OPGEN_SIM_EXP_ACTIVATION_F4                                                              \
    if constexpr (std::is_same_v<A, F4>) {                                                       \
        return PerLane(x, [this](float v) { return (*this)(v); });                              \
    } else
#else
#define OPGEN_SIM_EXP_ACTIVATION_F4
#endif
// A lane function (vector.h, Vectorised) for g(x, e) with e = Exp(H), H and G in terms of x, e, A.
#define OPGEN_SIM_EXP_ACTIVATION(NAME, H, G)                                                     \
    struct NAME {                                                                                \
        template <typename A>                                                                    \
        A operator()(A x) const {                                                                \
            OPGEN_SIM_EXP_ACTIVATION_F4 {                                                        \
                const A e = static_cast<A>(exp_lanes::ExpF(static_cast<float>(H)));              \
                return static_cast<A>(G);                                                        \
            }                                                                                    \
        }                                                                                        \
        static bool Span(float* d, const float* xs, uint64_t n) {                                \
            using A = float;                                                                     \
            return ExpActivationSpan(                                                            \
                d, xs, n, [](A x) { return static_cast<A>(H); },                                 \
                [](A x, A e) { (void)x; return static_cast<A>(G); });                            \
        }                                                                                        \
    };
OPGEN_SIM_EXP_ACTIVATION(SigmoidLane, -x, A(1) / (A(1) + e))
OPGEN_SIM_EXP_ACTIVATION(SiluLane, -x, x / (A(1) + e))
// CANN Gelu: x / (1 + e^(-1.59576912 * (x + 0.044715 * x^3)))
OPGEN_SIM_EXP_ACTIVATION(GeluLane, A(-1.59576912) * (x + A(0.044715) * x * x * x), x / (A(1) + e))
// CANN FasterGelu: x / (1 + e^(-1.702 * x))
OPGEN_SIM_EXP_ACTIVATION(FasterGeluLane, A(-1.702) * x, x / (A(1) + e))
#undef OPGEN_SIM_EXP_ACTIVATION
#undef OPGEN_SIM_EXP_ACTIVATION_F4
template <typename A>
inline A FasterGeluV2Lane(A x) {
    // CANN FasterGeluV2: sgn(x) = (x + 1e-12) / |x + 1e-12|,
    // y = x * (sgn(x) * [(-0.1444) * (min(|0.7071 * x|, 1.769) - 1.769)^2 + 0.5] + 0.5)
    const A s = (x + A(1e-12)) / std::abs(x + A(1e-12));
    const A c = std::min(std::abs(A(0.7071) * x), A(1.769)) - A(1.769);
    return x * (s * (A(-0.1444) * c * c + A(0.5)) + A(0.5));
}

}  // namespace opgen_sim

namespace AscendC {

// ---- Axpy: dst = src * scalarValue + dst ---------------------------------------------------
template <typename T, typename U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue,
                 const int32_t& calCount) {
    constexpr const char* api = "Axpy";
    opgen_sim::CheckCount(calCount, api);
    opgen_sim::CheckOperand(dst, calCount, api, "dst");
    opgen_sim::CheckOperand(src, calCount, api, "src");
    using A = std::common_type_t<opgen_sim::Acc<T>, opgen_sim::Acc<U>>;
    const A s = static_cast<A>(static_cast<opgen_sim::Acc<U>>(scalarValue));
    T* d = dst.ptr_;
    const U* x = src.ptr_;
    for (int32_t i = 0; i < calCount; ++i) {
        d[i] = static_cast<T>(static_cast<A>(static_cast<opgen_sim::Acc<U>>(x[i])) * s +
                              static_cast<A>(static_cast<opgen_sim::Acc<T>>(d[i])));
    }
    if constexpr (sizeof(T) >= sizeof(U)) {
        opgen_sim::CountVector<T>(static_cast<uint64_t>(calCount));
    } else {
        opgen_sim::CountVector<U>(static_cast<uint64_t>(calCount));
    }
}

namespace axpy_detail {
template <typename T, typename U, bool isSetMask>
inline void Rep(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue,
                bool is_bits, uint64_t count_mask, const uint64_t* bit_mask, uint8_t repeatTime,
                const UnaryRepeatParams& p) {
    constexpr const char* api = "Axpy";
    if constexpr (!std::is_same_v<T, U>) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "the mask/repeat forms of Axpy with different dst and src types are not "
                        "simulated; use the count form");
    } else {
        const opgen_sim::MaskSpec m =
            opgen_sim::ResolveMask<T, isSetMask>(api, is_bits, count_mask, bit_mask, repeatTime);
        opgen_sim::CheckReach(api, m, dst, p.dstBlkStride, p.dstRepStride, "dst");
        opgen_sim::CheckReach(api, m, src, p.srcBlkStride, p.srcRepStride, "src");
        using A = opgen_sim::Acc<T>;
        const A s = static_cast<A>(scalarValue);
        T* d = dst.ptr_;
        const T* x = src.ptr_;
        opgen_sim::ForActive(m, [&](int32_t r, uint32_t l) {
            T& o = d[opgen_sim::LaneOffset<T>(r, l, p.dstBlkStride, p.dstRepStride)];
            o = static_cast<T>(
                static_cast<A>(x[opgen_sim::LaneOffset<T>(r, l, p.srcBlkStride, p.srcRepStride)]) * s +
                static_cast<A>(o));
        });
        opgen_sim::CountMasked<T>(m);
    }
}
}  // namespace axpy_detail

template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue,
                 const uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
    axpy_detail::Rep<T, U, isSetMask>(dst, src, scalarValue, true, 0, mask, repeatTime, repeatParams);
}

template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue,
                 uint64_t mask, const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
    axpy_detail::Rep<T, U, isSetMask>(dst, src, scalarValue, false, mask, nullptr, repeatTime,
                                      repeatParams);
}

// ---- FusedMulAdd: dst = src0 * dst + src1; MulAddDst: dst = src0 * src1 + dst -------------
// (the Ascend C reference's formulas). The product and the sum round separately, in float for
// half operands, as Axpy does (test_sim_fp_contract.py); the reference does not say whether the
// vector unit (vmadd, vmla) fuses them. MulAddDst also takes half sources into a float dst (its type table);
// the mask/repeat forms of that pair are not simulated (an error naming the count form).
namespace mul_add_detail {
// The simulated SoCs' types (the reference's tables for the Atlas A2 and Atlas inference
// products, and asc-devkit's dtype checks for them): half or float throughout, and for MulAddDst
// half sources into a float dst.
template <typename T, typename U>
inline constexpr bool kSupported =
    (std::is_same_v<T, U> && (std::is_same_v<T, half> || std::is_same_v<T, float>)) ||
    (std::is_same_v<T, float> && std::is_same_v<U, half>);

template <typename T, typename U>
inline void CheckTypes(const char* api) {
    if constexpr (!kSupported<T, U>) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        std::string("dst ") + opgen_sim::TypeName<T>() + " with sources " +
                            opgen_sim::TypeName<U>() +
                            " is not supported on the simulated SoCs (the Ascend C reference lists "
                            "half and float, and for MulAddDst half sources into a float dst, on "
                            "the Atlas A2 and Atlas inference products)");
    }
}

// One element: a * b + c, rounded once to the element type after each operation's precision.
template <typename T, typename U>
inline T MulAdd(U a, U b, T c) {
    using A = std::common_type_t<opgen_sim::Acc<T>, opgen_sim::Acc<U>>;
    const A prod = static_cast<A>(static_cast<opgen_sim::Acc<U>>(a)) *
                   static_cast<A>(static_cast<opgen_sim::Acc<U>>(b));
    return static_cast<T>(prod + static_cast<A>(static_cast<opgen_sim::Acc<T>>(c)));
}

#if defined(OPGEN_SIM_SIMD_LANES)
// d[i] = x[i] * y[i] + z[i] on eight lanes a step for the first n rounded down to eight; returns
// how many. The same two IEEE float operations as MulAdd (a half or float product of half or
// float operands is exact in float or rounded once there, then the sum rounded once, then the
// result to T), so each lane is bit-identical to the scalar loop. d may be x, y or z.
template <typename T, typename U>
__attribute__((target("avx,f16c"))) inline uint64_t MulAdd8(T* d, const U* x, const U* y, const T* z,
                                                           uint64_t n) {
    const uint64_t n8 = n & ~uint64_t{7};
#pragma GCC unroll 2
    for (uint64_t i = 0; i < n8; i += 8) {
        opgen_sim::Store8Float(d + i, _mm256_add_ps(_mm256_mul_ps(opgen_sim::Load8Float(x + i),
                                                                  opgen_sim::Load8Float(y + i)),
                                                    opgen_sim::Load8Float(z + i)));
    }
    return n8;
}
// The same on sixteen lanes a step (AVX-512F), for operands that stay in L1 (kWide16MaxBytes, as
// the sixteen-lane maps): the first n rounded down to sixteen; returns how many.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
template <typename V>
__attribute__((target("avx512f"))) inline __m512 Load16Float(const V* p) {
    if constexpr (std::is_same_v<V, half>) {
        return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    } else {
        return _mm512_loadu_ps(p);
    }
}
template <typename T, typename U>
__attribute__((target("avx512f"))) inline uint64_t MulAdd16(T* d, const U* x, const U* y, const T* z,
                                                            uint64_t n) {
    const uint64_t n16 = n & ~uint64_t{15};
    for (uint64_t i = 0; i < n16; i += 16) {
        const __m512 r = _mm512_add_ps(_mm512_mul_ps(Load16Float(x + i), Load16Float(y + i)),
                                       Load16Float(z + i));
        if constexpr (std::is_same_v<T, half>) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i),
                                _mm512_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT));
        } else {
            _mm512_storeu_ps(d + i, r);
        }
    }
    return n16;
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
// MulAdd16 where the operands stay in L1, the CPU has AVX-512F and no source partly overlaps d
// (sixteen lanes read ahead of the writes further than eight do), then MulAdd8.
template <typename T, typename U>
inline uint64_t MulAddLanes(T* d, const U* x, const U* y, const T* z, uint64_t n) {
    const auto apart = [d, n](const void* s, uint64_t elem) {
        const auto* a = reinterpret_cast<const uint8_t*>(d);
        const auto* b = static_cast<const uint8_t*>(s);
        return b == a || !opgen_sim::Overlaps(a, n * sizeof(T), b, n * elem);
    };
    uint64_t i = 0;
    if (n * sizeof(float) <= opgen_sim::kWide16MaxBytes && opgen_sim::HasAvx512f() &&
        apart(x, sizeof(U)) && apart(y, sizeof(U)) && apart(z, sizeof(T))) {
        i = MulAdd16<T, U>(d, x, y, z, n);
    }
    return i + MulAdd8<T, U>(d + i, x + i, y + i, z + i, n - i);
}
#endif

template <typename T, typename U>
inline void Count(const char* api, const LocalTensor<T>& dst, const LocalTensor<U>& src0,
                  const LocalTensor<U>& src1, int32_t count, bool fused) {
    CheckTypes<T, U>(api);
    if constexpr (kSupported<T, U>) {
        opgen_sim::CheckCount(count, api);
        opgen_sim::CheckOperand(dst, count, api, "dst");
        opgen_sim::CheckOperand(src0, count, api, "src0");
        opgen_sim::CheckOperand(src1, count, api, "src1");
        T* d = dst.ptr_;
        const U* a = src0.ptr_;
        const U* b = src1.ptr_;
        int32_t i = 0;
#if defined(OPGEN_SIM_SIMD_LANES)
        const bool lanes = opgen_sim::HasAvx() && opgen_sim::HasF16c();
#endif
        if constexpr (std::is_same_v<T, U>) {
            if (fused) {  // src0 * dst + src1
#if defined(OPGEN_SIM_SIMD_LANES)
                if (lanes) i = static_cast<int32_t>(MulAddLanes<T, T>(d, a, d, b, static_cast<uint64_t>(count)));
#endif
                for (; i < count; ++i) d[i] = MulAdd<T, T>(a[i], d[i], b[i]);
                opgen_sim::CountVector<T>(static_cast<uint64_t>(count));
                return;
            }
        }
#if defined(OPGEN_SIM_SIMD_LANES)
        if (lanes) i = static_cast<int32_t>(MulAddLanes<T, U>(d, a, b, d, static_cast<uint64_t>(count)));
#endif
        for (; i < count; ++i) d[i] = MulAdd<T, U>(a[i], b[i], d[i]);
        opgen_sim::CountVector<T>(static_cast<uint64_t>(count));
    }
}

template <typename T, typename U, bool isSetMask>
inline void Rep(const char* api, const LocalTensor<T>& dst, const LocalTensor<U>& src0,
                const LocalTensor<U>& src1, bool is_bits, uint64_t count_mask,
                const uint64_t* bit_mask, uint8_t repeatTime, const BinaryRepeatParams& p,
                bool fused) {
    CheckTypes<T, U>(api);
    if constexpr (!kSupported<T, U>) {
        return;
    } else if constexpr (!std::is_same_v<T, U>) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "the mask/repeat forms with half sources and a float dst are not "
                        "simulated; use the count form");
    } else {
        const opgen_sim::MaskSpec m =
            opgen_sim::ResolveMask<T, isSetMask>(api, is_bits, count_mask, bit_mask, repeatTime);
        opgen_sim::CheckReach(api, m, dst, p.dstBlkStride, p.dstRepStride, "dst");
        opgen_sim::CheckReach(api, m, src0, p.src0BlkStride, p.src0RepStride, "src0");
        opgen_sim::CheckReach(api, m, src1, p.src1BlkStride, p.src1RepStride, "src1");
        T* d = dst.ptr_;
        const T* a = src0.ptr_;
        const T* b = src1.ptr_;
        opgen_sim::ForActive(m, [&](int32_t r, uint32_t l) {
            T& o = d[opgen_sim::LaneOffset<T>(r, l, p.dstBlkStride, p.dstRepStride)];
            const T x = a[opgen_sim::LaneOffset<T>(r, l, p.src0BlkStride, p.src0RepStride)];
            const T y = b[opgen_sim::LaneOffset<T>(r, l, p.src1BlkStride, p.src1RepStride)];
            o = fused ? MulAdd<T, T>(x, o, y) : MulAdd<T, T>(x, y, o);
        });
        opgen_sim::CountMasked<T>(m);
    }
}
}  // namespace mul_add_detail

template <typename T>
inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                        const int32_t& count) {
    mul_add_detail::Count<T, T>("FusedMulAdd", dst, src0, src1, count, true);
}
template <typename T, bool isSetMask = true>
inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                        uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
    mul_add_detail::Rep<T, T, isSetMask>("FusedMulAdd", dst, src0, src1, true, 0, mask, repeatTime,
                                         repeatParams, true);
}
template <typename T, bool isSetMask = true>
inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                        uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
    mul_add_detail::Rep<T, T, isSetMask>("FusedMulAdd", dst, src0, src1, false, mask, nullptr,
                                         repeatTime, repeatParams, true);
}

template <typename T, typename U>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      const int32_t& count) {
    mul_add_detail::Count<T, U>("MulAddDst", dst, src0, src1, count, false);
}
template <typename T, typename U, bool isSetMask = true>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      const uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
    mul_add_detail::Rep<T, U, isSetMask>("MulAddDst", dst, src0, src1, true, 0, mask, repeatTime,
                                         repeatParams, false);
}
template <typename T, typename U, bool isSetMask = true>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
    mul_add_detail::Rep<T, U, isSetMask>("MulAddDst", dst, src0, src1, false, mask, nullptr,
                                         repeatTime, repeatParams, false);
}

// Advanced-API Axpy (computed with Muls and Add on hardware) with a sharedTmpBuffer.
template <typename T, typename U, bool isReuseSource = false>
inline void Axpy(const LocalTensor<T>& dstTensor, const LocalTensor<U>& srcTensor, const U scalarValue,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {
    opgen_sim::CheckTmp<T>("Axpy", sharedTmpBuffer, opgen_sim::kTmpMinBytes, dstTensor, nullptr,
                           nullptr, calCount);
    if (opgen_sim::Overlaps(sharedTmpBuffer, srcTensor, calCount)) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "Axpy",
                        "sharedTmpBuffer overlaps srcTensor; CANN does not allow that");
    }
    const U s = scalarValue;
    Axpy(dstTensor, srcTensor, s, static_cast<int32_t>(calCount));
}

// ---- And / Or (count form) and And / Or / Not (mask/repeat forms) ---------------------------
#define OPGEN_SIM_BITWISE(NAME, EXPR)                                                             \
    template <typename T>                                                                         \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                       \
                     const LocalTensor<T>& src1, const int32_t& count) {                          \
        static_assert(std::is_integral_v<T>, #NAME " takes integer tensors (int16_t/uint16_t)");  \
        opgen_sim::Binary(#NAME, dst, src0, src1, count, [](auto a, auto b) { return EXPR; });    \
    }                                                                                             \
    template <typename T, bool isSetMask = true>                                                  \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                       \
                     const LocalTensor<T>& src1, const uint64_t mask[], const uint8_t repeatTime, \
                     const BinaryRepeatParams& repeatParams) {                                    \
        static_assert(std::is_integral_v<T>, #NAME " takes integer tensors (int16_t/uint16_t)");  \
        const opgen_sim::MaskSpec m =                                                             \
            opgen_sim::ResolveMask<T, isSetMask>(#NAME, true, 0, mask, repeatTime);               \
        opgen_sim::BinaryRep(#NAME, dst, src0, src1, m, repeatParams,                             \
                             [](auto a, auto b) { return EXPR; });                                \
    }                                                                                             \
    template <typename T, bool isSetMask = true>                                                  \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                       \
                     const LocalTensor<T>& src1, uint64_t mask, const uint8_t repeatTime,         \
                     const BinaryRepeatParams& repeatParams) {                                    \
        static_assert(std::is_integral_v<T>, #NAME " takes integer tensors (int16_t/uint16_t)");  \
        const opgen_sim::MaskSpec m =                                                             \
            opgen_sim::ResolveMask<T, isSetMask>(#NAME, false, mask, nullptr, repeatTime);        \
        opgen_sim::BinaryRep(#NAME, dst, src0, src1, m, repeatParams,                             \
                             [](auto a, auto b) { return EXPR; });                                \
    }
OPGEN_SIM_BITWISE(And, a & b)
OPGEN_SIM_BITWISE(Or, a | b)
#undef OPGEN_SIM_BITWISE

template <typename T, bool isSetMask = true>
inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
    static_assert(std::is_integral_v<T>, "Not takes integer tensors (int16_t/uint16_t)");
    const opgen_sim::MaskSpec m = opgen_sim::ResolveMask<T, isSetMask>("Not", true, 0, mask, repeatTime);
    opgen_sim::UnaryRep("Not", dst, src, m, repeatParams, [](auto a) { return ~a; });
}

template <typename T, bool isSetMask = true>
inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,
                const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
    static_assert(std::is_integral_v<T>, "Not takes integer tensors (int16_t/uint16_t)");
    const opgen_sim::MaskSpec m =
        opgen_sim::ResolveMask<T, isSetMask>("Not", false, mask, nullptr, repeatTime);
    opgen_sim::UnaryRep("Not", dst, src, m, repeatParams, [](auto a) { return ~a; });
}

// ---- ShiftLeft / ShiftRight (count form) -----------------------------------------------------
template <typename T, bool isSetMask = true>
inline void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const typename opgen_sim::Id<T>::type& scalarValue, const int32_t& count) {
    static_assert(std::is_integral_v<T>, "ShiftLeft takes integer tensors");
    const int s = static_cast<int>(scalarValue);
    opgen_sim::Unary("ShiftLeft", dst, src, count, [s](auto a) {
        using UT = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<UT>(static_cast<UT>(a) << s));
    });
}

template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                       const typename opgen_sim::Id<T>::type& scalarValue, const int32_t& count) {
    static_assert(std::is_integral_v<T>, "ShiftRight takes integer tensors");
    const int s = static_cast<int>(scalarValue);
    // logical for unsigned T, arithmetic for signed T
    opgen_sim::Unary("ShiftRight", dst, src, count, [s](auto a) { return static_cast<T>(a >> s); });
}

// ---- Brcb -----------------------------------------------------------------------------------
struct BrcbRepeatParams {
    BrcbRepeatParams() {}
    BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}  // declaration order
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

// Repeat r reads src[8r .. 8r+7] and fills data block j of the repeat (at block
// r * dstRepStride + j * dstBlkStride of dst) with src[8r + j].
template <typename T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t repeatTime,
                 const BrcbRepeatParams& repeatParams) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Brcb takes 16- or 32-bit elements");
    constexpr const char* api = "Brcb";
    constexpr uint64_t B = opgen_sim::kBlockBytes / sizeof(T);
    opgen_sim::CheckUbAligned(dst, api, "dst");
    opgen_sim::CheckUbAligned(src0, api, "src0");
    const uint64_t r = repeatTime;
    if (r == 0) return;
    const uint64_t rep = repeatParams.dstRepStride;
    const uint64_t blk = repeatParams.dstBlkStride;
    // Reading past src0 inside the Unified Buffer is what the NPU does (it knows addresses, not
    // LocalTensors; ops-nn's rms_norm passes its row count as repeatTime and uses the first
    // rows): strict mode holds the read to src0, the default to the Unified Buffer.
    if (r * 8 > src0.size_ && !opgen_sim::ReachesOnInUb(src0.ptr_, r * 8 * sizeof(T))) {
        opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                        "src0: " + std::to_string(r) + " repeat(s) read " + opgen_sim::Str(r * 8) +
                            " elements but the LocalTensor<" + opgen_sim::TypeName<T>() + "> has " +
                            opgen_sim::Str(src0.size_) +
                            (opgen_sim::CurrentCore().strict_gm ? " (strict mode)"
                                                                : " and they run past the Unified Buffer"));
    }
    uint64_t reach = 0;  // one past the last dst element written
    for (uint64_t j = 0; j < 8; ++j) reach = std::max(reach, ((r - 1) * rep + j * blk + 1) * B);
    if (reach > dst.size_) {
        opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                        "dst: " + std::to_string(r) + " repeat(s) with dstBlkStride " +
                            std::to_string(blk) + ", dstRepStride " + std::to_string(rep) +
                            " reach element " + opgen_sim::Str(reach - 1) + " but the LocalTensor<" +
                            opgen_sim::TypeName<T>() + "> has " + opgen_sim::Str(dst.size_) +
                            " elements");
    }
    T vals[8 * 255];
    std::memcpy(vals, src0.ptr_, r * 8 * sizeof(T));  // read all before writing (dst may alias)
    for (uint64_t i = 0; i < r; ++i) {
        for (uint64_t j = 0; j < 8; ++j) {
            T* b = dst.ptr_ + (i * rep + j * blk) * B;
            for (uint64_t k = 0; k < B; ++k) b[k] = vals[i * 8 + j];
        }
    }
    opgen_sim::CountVector<T>(r * 8 * B);
}

// ---- advanced unary math APIs ---------------------------------------------------------------
namespace more_detail {
template <typename T, typename F>
inline void AdvUnary(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const LocalTensor<uint8_t>* tmp, uint64_t min_tmp, uint32_t calCount, F f) {
    opgen_sim::CheckOperand(dst, calCount, api, "dstTensor");
    opgen_sim::CheckOperand(src, calCount, api, "srcTensor");
    if (tmp != nullptr) opgen_sim::CheckTmp<T>(api, *tmp, min_tmp, dst, &src, nullptr, calCount);
    opgen_sim::Unary(api, dst, src, static_cast<int32_t>(calCount), f);
}
}  // namespace more_detail

// Four overloads (with/without sharedTmpBuffer, with/without calCount), as CANN documents for
// Sigmoid, Tanh, Sin, Cos and Erf.
#define OPGEN_SIM_ADV_UNARY4(NAME, LANE)                                                           \
    template <typename T, bool isReuseSource = false>                                              \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,             \
                     const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {       \
        more_detail::AdvUnary(#NAME, dstTensor, srcTensor, &sharedTmpBuffer,                       \
                              opgen_sim::kTmpMinBytes, calCount, LANE);                            \
    }                                                                                              \
    template <typename T, bool isReuseSource = false>                                              \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,             \
                     const LocalTensor<uint8_t>& sharedTmpBuffer) {                                \
        NAME<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize());        \
    }                                                                                              \
    template <typename T, bool isReuseSource = false>                                              \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,             \
                     const uint32_t calCount) {                                                    \
        more_detail::AdvUnary(#NAME, dstTensor, srcTensor, nullptr, 0, calCount, LANE);            \
    }                                                                                              \
    template <typename T, bool isReuseSource = false>                                              \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor) {           \
        NAME<T, isReuseSource>(dstTensor, srcTensor, srcTensor.GetSize());                         \
    }
// libm's function of each lane (in float for half)
#define OPGEN_SIM_LIBM_LANE(FN) [](auto x) { return static_cast<decltype(x)>(FN(x)); }
OPGEN_SIM_ADV_UNARY4(Sigmoid, opgen_sim::Vectorised(opgen_sim::SigmoidLane{}))
OPGEN_SIM_ADV_UNARY4(Tanh, OPGEN_SIM_LIBM_LANE(std::tanh))
OPGEN_SIM_ADV_UNARY4(Sin, OPGEN_SIM_LIBM_LANE(std::sin))
OPGEN_SIM_ADV_UNARY4(Cos, OPGEN_SIM_LIBM_LANE(std::cos))
OPGEN_SIM_ADV_UNARY4(Erf, OPGEN_SIM_LIBM_LANE(std::erf))
OPGEN_SIM_ADV_UNARY4(Acosh, OPGEN_SIM_LIBM_LANE(std::acosh))
// Frac: x - trunc(x), the sign of x kept (CANN: a Cast with CAST_TRUNC, then Sub; half in float)
OPGEN_SIM_ADV_UNARY4(Frac, [](auto x) { return x - std::trunc(x); })
#undef OPGEN_SIM_LIBM_LANE
#undef OPGEN_SIM_ADV_UNARY4

// Binary math-library APIs with the four overloads of the unary ones (two sources).
namespace more_detail {
template <typename T, typename F>
inline void AdvBinary(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a,
                      const LocalTensor<T>& b, const LocalTensor<uint8_t>* tmp, uint32_t calCount, F f) {
    opgen_sim::CheckOperand(dst, calCount, api, "dstTensor");
    opgen_sim::CheckOperand(a, calCount, api, "src0Tensor");
    opgen_sim::CheckOperand(b, calCount, api, "src1Tensor");
    if (tmp != nullptr) opgen_sim::CheckTmp<T>(api, *tmp, opgen_sim::kTmpMinBytes, dst, &a, &b, calCount);
    opgen_sim::Binary(api, dst, a, b, static_cast<int32_t>(calCount), f);
}
}  // namespace more_detail
#define OPGEN_SIM_ADV_BINARY4(NAME, TYPES_OK, TYPES, LANE)                                         \
    template <typename T, bool isReuseSource = false>                                             \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor,           \
                     const LocalTensor<T>& src1Tensor, const LocalTensor<uint8_t>& sharedTmpBuffer,\
                     const uint32_t calCount) {                                                    \
        static_assert(TYPES_OK, #NAME " takes " TYPES " (the Ascend C API reference)");           \
        more_detail::AdvBinary(#NAME, dstTensor, src0Tensor, src1Tensor, &sharedTmpBuffer,         \
                               calCount, LANE);                                                    \
    }                                                                                              \
    template <typename T, bool isReuseSource = false>                                             \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor,           \
                     const LocalTensor<T>& src1Tensor, const LocalTensor<uint8_t>& sharedTmpBuffer) {\
        NAME<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, sharedTmpBuffer,                 \
                               src0Tensor.GetSize());                                              \
    }                                                                                              \
    template <typename T, bool isReuseSource = false>                                             \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor,           \
                     const LocalTensor<T>& src1Tensor, const uint32_t calCount) {                 \
        static_assert(TYPES_OK, #NAME " takes " TYPES " (the Ascend C API reference)");           \
        more_detail::AdvBinary(#NAME, dstTensor, src0Tensor, src1Tensor, nullptr, calCount, LANE); \
    }                                                                                              \
    template <typename T, bool isReuseSource = false>                                             \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor,           \
                     const LocalTensor<T>& src1Tensor) {                                          \
        NAME<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, src0Tensor.GetSize());           \
    }
// Fmod: a - trunc(a / b) * b, each step rounded in float, as CANN's implementation runs Div, Trunc,
// Mul and Sub (half: cast to float, those steps, one cast back); so it can differ from C's fmod,
// which is exact.
OPGEN_SIM_ADV_BINARY4(Fmod, (std::is_same_v<T, float> || std::is_same_v<T, half>), "half or float",
                      ([](auto a, auto b) {
                          using A = decltype(a);
                          const A q = a / b;
                          const A p = std::trunc(q) * b;
                          return static_cast<A>(a - p);
                      }))
// Xor: the bits of src0 ^ src1, for int16_t and uint16_t.
OPGEN_SIM_ADV_BINARY4(Xor, (std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t>),
                      "int16_t or uint16_t",
                      ([](auto a, auto b) { return static_cast<decltype(a)>(a ^ b); }))
// GeGLU(dst, src0, src1): src0 * gelu(src1), gelu by CANN's tanh approximation in its steps
// (impl/adv_api/detail/activation/geglu/geglu_common_impl.h): x * x, + 22.36386, * x,
// * -0.0713548, exp, + 1, x / that, then * src0; each step rounded in float (half: cast to float,
// those steps, one cast back).
OPGEN_SIM_ADV_BINARY4(GeGLU, (std::is_same_v<T, float> || std::is_same_v<T, half>), "half or float",
                      ([](auto a, auto b) {
                          using A = decltype(a);
                          const float x = static_cast<float>(b);
                          float d = x * x;
                          d = d + 2.2363860002236e1f;
                          d = d * x;
                          d = d * -0.0713548162726f;
                          d = opgen_sim::exp_lanes::ExpF(d);
                          d = d + 1.0f;
                          d = x / d;
                          return static_cast<A>(static_cast<float>(a) * d);
                      }))
#undef OPGEN_SIM_ADV_BINARY4

// SwiGLU(dst, src0, src1, beta[, sharedTmpBuffer][, calCount]): src0 * swish(src1), swish in CANN's
// steps (Muls by -beta, Exp, Adds 1, Div), then Mul; all in float (half cast once each way).
namespace more_detail {
template <typename T>
inline void SwiGLURun(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                      float beta, const LocalTensor<uint8_t>* tmp, uint32_t calCount) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "SwiGLU takes half or float");
    const float scalar = -1.0f * beta;
    AdvBinary("SwiGLU", dst, a, b, tmp, calCount, [scalar](auto x0, auto x1) {
        using A = decltype(x0);
        const float x = static_cast<float>(x1);
        float d = x * scalar;
        d = opgen_sim::exp_lanes::ExpF(d);
        d = d + 1.0f;
        d = x / d;
        return static_cast<A>(static_cast<float>(x0) * d);
    });
}
}  // namespace more_detail
template <typename T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                   const LocalTensor<T>& srcTensor1, const float& scalarValue,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {
    more_detail::SwiGLURun(dstTensor, srcTensor0, srcTensor1, scalarValue, &sharedTmpBuffer, calCount);
}
template <typename T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                   const LocalTensor<T>& srcTensor1, const float& scalarValue, const uint32_t calCount) {
    more_detail::SwiGLURun<T>(dstTensor, srcTensor0, srcTensor1, scalarValue, nullptr, calCount);
}
template <typename T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                   const LocalTensor<T>& srcTensor1, const float& scalarValue,
                   const LocalTensor<uint8_t>& sharedTmpBuffer) {
    more_detail::SwiGLURun(dstTensor, srcTensor0, srcTensor1, scalarValue, &sharedTmpBuffer,
                           srcTensor0.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                   const LocalTensor<T>& srcTensor1, const float& scalarValue) {
    more_detail::SwiGLURun<T>(dstTensor, srcTensor0, srcTensor1, scalarValue, nullptr, srcTensor0.GetSize());
}

// ---- Exp, advanced API (adv_api/math/exp.h) ---------------------------------------------------
// exp(x) = e^floor(x) * (1 + c + c^2/2! + ... + c^n/n!) with c = x - floor(x), n =
// taylorExpandLevel, in float, one rounding per step in the order of CANN's implementation
// (asc-devkit impl/adv_api/detail/math/exp/exp_common_impl.h): Cast with CAST_FLOOR, Sub, the
// basic Exp of the integer part (exp_lanes.h, see docs/simulator.md "Numerics"), c + 1, then for
// i = 2..n: p = c * p, p = p * (1.0f / i), r = r + p; finally r * e^floor(x). half is computed in
// float and cast back once. taylorExpandLevel 0 is the basic Exp. With sharedTmpBuffer, each of
// the implementation's float temporaries (3 for float, 2 when it reuses the source, 4 for half)
// must get at least one 32-byte block of it, which CANN's kernel asserts ("Insufficient temporary
// space"; opgen_host/exp_tmp_size.h, whose rule GetExpMaxMinTmpSize reports on the host). With isReuseSource the
// source's contents are unspecified afterwards; the simulator leaves them as they were.
namespace exp_adv_detail {
template <uint8_t level>
inline float Taylor(float x) {
    const float ip = std::floor(x);
    const float c = x - ip;
    const float e = opgen_sim::exp_lanes::ExpF(ip);
    float p = c;
    float r = c + 1.0f;
    for (int32_t i = 2; i < static_cast<int32_t>(level) + 1; ++i) {
        p = c * p;
        p = p * (1.0f / static_cast<float>(i));
        r = r + p;
    }
    return r * e;
}

template <typename T, uint8_t level>
inline void Run(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t calCount) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>,
                  "Exp<T, taylorExpandLevel>: T must be half or float");
    if constexpr (level == 0) {
        Exp(dst, src, static_cast<int32_t>(calCount));
    } else {
        opgen_sim::CheckOperand(dst, calCount, api, "dstLocal");
        opgen_sim::CheckOperand(src, calCount, api, "srcLocal");
        opgen_sim::Unary(api, dst, src, static_cast<int32_t>(calCount), [](auto x) {
            using A = decltype(x);
            return static_cast<A>(Taylor<level>(static_cast<float>(x)));
        });
    }
}
}  // namespace exp_adv_detail

template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {
    constexpr const char* api = "Exp";
    if constexpr (taylorExpandLevel != 0) {
        constexpr uint64_t buffers = opgen_host::ExpTmpBuffers(sizeof(T), isReuseSource);
        constexpr uint64_t align = 32 / sizeof(T);  // elements of T in a block
        const uint64_t each = sharedTmpBuffer.size_ / sizeof(float) / buffers / align * align;
        if (each == 0) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                            "Insufficient temporary space: sharedTmpBuffer holds " +
                                opgen_sim::Str(sharedTmpBuffer.size_) + " bytes, which gives each of the " +
                                std::to_string(buffers) + " float temporaries of Exp<" +
                                opgen_sim::TypeName<T>() + ", " + std::to_string(taylorExpandLevel) +
                                (isReuseSource ? ", true" : ", false") + "> no whole " +
                                std::to_string(align) + "-element block; give it at least " +
                                opgen_sim::Str(buffers * align * sizeof(float)) +
                                " bytes (GetExpMaxMinTmpSize's minimum is " +
                                opgen_sim::Str(buffers * opgen_host::kExpRepeatBytes) + ")");
        }
        opgen_sim::CheckTmp<T>(api, sharedTmpBuffer, 0, dstLocal, &srcLocal, nullptr, calCount);
    }
    exp_adv_detail::Run<T, taylorExpandLevel>(api, dstLocal, srcLocal, calCount);
}

template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t calCount) {
    exp_adv_detail::Run<T, taylorExpandLevel>("Exp", dstLocal, srcLocal, calCount);
}

// Two overloads (with/without sharedTmpBuffer, both with calCount), as CANN documents for Floor,
// Ceil, Round (half to even) and Trunc. No minimum sharedTmpBuffer size is enforced for these.
#define OPGEN_SIM_ADV_UNARY2(NAME, EXPR)                                                          \
    template <typename T, bool isReuseSource = false>                                             \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,            \
                     const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {      \
        more_detail::AdvUnary(#NAME, dstTensor, srcTensor, &sharedTmpBuffer, 0, calCount,         \
                              [](auto x) {                                                        \
                                  using A = decltype(x);                                          \
                                  return static_cast<A>(EXPR);                                    \
                              });                                                                 \
    }                                                                                             \
    template <typename T, bool isReuseSource = false>                                             \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,            \
                     const uint32_t calCount) {                                                   \
        more_detail::AdvUnary(#NAME, dstTensor, srcTensor, nullptr, 0, calCount, [](auto x) {     \
            using A = decltype(x);                                                                \
            return static_cast<A>(EXPR);                                                          \
        });                                                                                       \
    }
OPGEN_SIM_ADV_UNARY2(Floor, std::floor(x))
OPGEN_SIM_ADV_UNARY2(Ceil, std::ceil(x))
OPGEN_SIM_ADV_UNARY2(Round, std::nearbyint(x))
OPGEN_SIM_ADV_UNARY2(Trunc, std::trunc(x))
#undef OPGEN_SIM_ADV_UNARY2

// Sign (reference "Sign"): 1 for a positive element, -1 for a negative one, 0 for zero. The
// reference is silent on NaN; CANN's A2 implementation (asc-devkit adv_api math/sign,
// sign_common_impl.h) starts from 0 and sets +-1 where src > 0 / src < 0, so NaN and -0 give +0.
// Four overloads: with or without sharedTmpBuffer, with or without calCount (all of src).
namespace more_detail {
struct SignLane {
    template <typename A>
    A operator()(A x) const {
        const float f = static_cast<float>(x);
        return static_cast<A>(f > 0.0f ? 1.0f : f < 0.0f ? -1.0f : 0.0f);
    }
};
}  // namespace more_detail
template <typename T, bool isReuseSource = false>
inline void Sign(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "Sign takes half or float on the Atlas A2/A3 products");
    more_detail::AdvUnary("Sign", dstTensor, srcTensor, &sharedTmpBuffer, 0, calCount, more_detail::SignLane{});
}
template <typename T, bool isReuseSource = false>
inline void Sign(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer) {
    Sign<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Sign(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "Sign takes half or float on the Atlas A2/A3 products");
    more_detail::AdvUnary("Sign", dstTensor, srcTensor, nullptr, 0, calCount, more_detail::SignLane{});
}
template <typename T, bool isReuseSource = false>
inline void Sign(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor) {
    Sign<T, isReuseSource>(dstTensor, srcTensor, srcTensor.GetSize());
}

// Gelu / FasterGelu / FasterGeluV2: template <T, highPrecision, highPerformance>, argument named
// dataSize; with and without sharedTmpBuffer.
#define OPGEN_SIM_GELU(NAME, LANE)                                                                \
    template <typename T, bool highPrecision = false, bool highPerformance = false>               \
    inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,              \
                     const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t dataSize) {      \
        more_detail::AdvUnary(#NAME, dstLocal, srcLocal, &sharedTmpBuffer,                        \
                              opgen_sim::kTmpMinBytes, dataSize, LANE);                           \
    }                                                                                             \
    template <typename T, bool highPrecision = false, bool highPerformance = false>               \
    inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,              \
                     const uint32_t dataSize) {                                                   \
        more_detail::AdvUnary(#NAME, dstLocal, srcLocal, nullptr, 0, dataSize, LANE);             \
    }
OPGEN_SIM_GELU(Gelu, opgen_sim::Vectorised(opgen_sim::GeluLane{}))
OPGEN_SIM_GELU(FasterGelu, opgen_sim::Vectorised(opgen_sim::FasterGeluLane{}))
OPGEN_SIM_GELU(FasterGeluV2, [](auto x) { return opgen_sim::FasterGeluV2Lane(x); })
#undef OPGEN_SIM_GELU

// Silu: silu(x) = x / (1 + e^(-x)); CANN has only the count form (argument dataSize).
template <typename T, bool isReuseSource = false>
inline void Silu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize) {
    more_detail::AdvUnary("Silu", dstLocal, srcLocal, nullptr, 0, dataSize,
                          opgen_sim::Vectorised(opgen_sim::SiluLane{}));
}

// Swish(dst, src, dataSize, beta): x / (1 + e^(-beta * x)) in CANN's steps, each an instruction
// of the element type (asc-devkit impl/adv_api/detail/activation/swish/swish_common_impl.h): Muls by
// -beta, Exp, Adds 1, then Div of the source by that; half rounds to half after each step.
template <typename T, bool isReuseSource = false>
inline void Swish(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize,
                  const T scalarValue) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "Swish takes half or float");
    opgen_sim::CheckOperand(dstLocal, dataSize, "Swish", "dstLocal");
    opgen_sim::CheckOperand(srcLocal, dataSize, "Swish", "srcLocal");
    const int32_t n = static_cast<int32_t>(dataSize);
    Muls(dstLocal, srcLocal, static_cast<T>(-1.0f * static_cast<float>(scalarValue)), n);
    Exp(dstLocal, dstLocal, n);
    Adds(dstLocal, dstLocal, static_cast<T>(1.0f), n);
    Div(dstLocal, srcLocal, dstLocal, n);
}

// ClampMax / ClampMin(dst, src[, sharedTmpBuffer], scalar, calCount): Mins / Maxs with the scalar,
// as CANN's implementation (impl/adv_api/detail/math/clamp/clamp_common_impl.h).
#define OPGEN_SIM_CLAMP(NAME, INSTR)                                                               \
    template <typename T, bool isReuseSource = false>                                             \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,            \
                     const LocalTensor<uint8_t>& sharedTmpBuffer, const T scalar,                  \
                     const uint32_t calCount) {                                                    \
        static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>,                        \
                      #NAME " takes half or float");                                               \
        opgen_sim::CheckTmp<T>(#NAME, sharedTmpBuffer, 0, dstTensor, &srcTensor, nullptr, calCount); \
        INSTR(dstTensor, srcTensor, scalar, static_cast<int32_t>(calCount));                       \
    }                                                                                              \
    template <typename T, bool isReuseSource = false>                                             \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const T scalar, \
                     const uint32_t calCount) {                                                    \
        static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>,                        \
                      #NAME " takes half or float");                                               \
        INSTR(dstTensor, srcTensor, scalar, static_cast<int32_t>(calCount));                       \
    }
OPGEN_SIM_CLAMP(ClampMax, Mins)
OPGEN_SIM_CLAMP(ClampMin, Maxs)
#undef OPGEN_SIM_CLAMP

// Log (Ln), Log10 (Ln, then Muls by 1/ln 10 in the element type) and Log2 (float: Ln, then Muls by
// 1/ln 2; half: the same in float, cast back once), as CANN's implementation for the A2/A3
// products (impl/adv_api/detail/math/log/log_common_impl.h).
template <typename T, bool isReuseSource = false>
inline void Log(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, uint32_t calCount) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "Log takes half or float");
    Ln(dstTensor, srcTensor, static_cast<int32_t>(calCount));
}
template <typename T, bool isReuseSource = false>
inline void Log(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor) {
    Log<T, isReuseSource>(dstTensor, srcTensor, srcTensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Log10(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, uint32_t calCount) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "Log10 takes half or float");
    Ln(dstTensor, srcTensor, static_cast<int32_t>(calCount));
    Muls(dstTensor, dstTensor, static_cast<T>(0.43429448190325176f), static_cast<int32_t>(calCount));
}
template <typename T, bool isReuseSource = false>
inline void Log10(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor) {
    Log10<T, isReuseSource>(dstTensor, srcTensor, srcTensor.GetSize());
}
namespace more_detail {
template <typename T>
inline void Log2Run(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                    const LocalTensor<uint8_t>* tmp, uint32_t calCount) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "Log2 takes half or float");
    if constexpr (std::is_same_v<T, float>) {
        Ln(dst, src, static_cast<int32_t>(calCount));
        Muls(dst, dst, 1.4426950408889634f, static_cast<int32_t>(calCount));
    } else {
        AdvUnary("Log2", dst, src, tmp, opgen_sim::kTmpMinBytes, calCount, [](auto x) {
            const float l = std::log(static_cast<float>(x));
            return static_cast<decltype(x)>(l * 1.4426950408889634f);
        });
    }
}
}  // namespace more_detail
template <typename T, bool isReuseSource = false>
inline void Log2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount) {
    more_detail::Log2Run(dstTensor, srcTensor, &sharedTmpBuffer, calCount);
}
template <typename T, bool isReuseSource = false>
inline void Log2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer) {
    more_detail::Log2Run(dstTensor, srcTensor, &sharedTmpBuffer, srcTensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Log2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, uint32_t calCount) {
    more_detail::Log2Run<T>(dstTensor, srcTensor, nullptr, calCount);
}
template <typename T, bool isReuseSource = false>
inline void Log2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor) {
    more_detail::Log2Run<T>(dstTensor, srcTensor, nullptr, srcTensor.GetSize());
}

// ---- Power ----------------------------------------------------------------------------------
namespace more_detail {
template <typename T>
inline void PowerTT(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                    const LocalTensor<uint8_t>* tmp, uint32_t calCount) {
    constexpr const char* api = "Power";
    opgen_sim::CheckOperand(dst, calCount, api, "dstTensor");
    opgen_sim::CheckOperand(a, calCount, api, "src0Tensor");
    opgen_sim::CheckOperand(b, calCount, api, "src1Tensor");
    if (tmp != nullptr) opgen_sim::CheckTmp<T>(api, *tmp, opgen_sim::kTmpMinBytes, dst, &a, &b, calCount);
    opgen_sim::Binary(api, dst, a, b, static_cast<int32_t>(calCount),
                      [](auto x, auto y) { return opgen_sim::PowLane<T>(x, y); });
}
template <typename T>
inline void PowerTS(const LocalTensor<T>& dst, const LocalTensor<T>& a, T s,
                    const LocalTensor<uint8_t>* tmp, uint32_t calCount) {
    constexpr const char* api = "Power";
    opgen_sim::CheckOperand(dst, calCount, api, "dstTensor");
    opgen_sim::CheckOperand(a, calCount, api, "src0Tensor");
    if (tmp != nullptr) opgen_sim::CheckTmp<T>(api, *tmp, opgen_sim::kTmpMinBytes, dst, &a, nullptr, calCount);
    const opgen_sim::Acc<T> e = static_cast<opgen_sim::Acc<T>>(s);
    opgen_sim::Unary(api, dst, a, static_cast<int32_t>(calCount),
                     [e](auto x) { return opgen_sim::PowLane<T>(x, e); });
}
template <typename T>
inline void PowerST(const LocalTensor<T>& dst, T s, const LocalTensor<T>& b,
                    const LocalTensor<uint8_t>* tmp, uint32_t calCount) {
    constexpr const char* api = "Power";
    opgen_sim::CheckOperand(dst, calCount, api, "dstTensor");
    opgen_sim::CheckOperand(b, calCount, api, "src1Tensor");
    if (tmp != nullptr) opgen_sim::CheckTmp<T>(api, *tmp, opgen_sim::kTmpMinBytes, dst, &b, nullptr, calCount);
    const opgen_sim::Acc<T> base = static_cast<opgen_sim::Acc<T>>(s);
    opgen_sim::Unary(api, dst, b, static_cast<int32_t>(calCount),
                     [base](auto y) { return opgen_sim::PowLane<T>(base, y); });
}
}  // namespace more_detail

template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor,
                  const LocalTensor<T>& src1Tensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                  uint32_t calCount) {
    more_detail::PowerTT(dstTensor, src0Tensor, src1Tensor, &sharedTmpBuffer, calCount);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor,
                  const LocalTensor<T>& src1Tensor, uint32_t calCount) {
    more_detail::PowerTT<T>(dstTensor, src0Tensor, src1Tensor, nullptr, calCount);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor,
                  const LocalTensor<T>& src1Tensor, const LocalTensor<uint8_t>& sharedTmpBuffer) {
    more_detail::PowerTT(dstTensor, src0Tensor, src1Tensor, &sharedTmpBuffer, src0Tensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor,
                  const LocalTensor<T>& src1Tensor) {
    more_detail::PowerTT<T>(dstTensor, src0Tensor, src1Tensor, nullptr, src0Tensor.GetSize());
}

template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount) {
    more_detail::PowerTS(dstTensor, src0Tensor, src1Scalar, &sharedTmpBuffer, calCount);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar,
                  uint32_t calCount) {
    more_detail::PowerTS<T>(dstTensor, src0Tensor, src1Scalar, nullptr, calCount);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar,
                  const LocalTensor<uint8_t>& sharedTmpBuffer) {
    more_detail::PowerTS(dstTensor, src0Tensor, src1Scalar, &sharedTmpBuffer, src0Tensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar) {
    more_detail::PowerTS<T>(dstTensor, src0Tensor, src1Scalar, nullptr, src0Tensor.GetSize());
}

template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar, const LocalTensor<T>& src1Tensor,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount) {
    more_detail::PowerST(dstTensor, src0Scalar, src1Tensor, &sharedTmpBuffer, calCount);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar, const LocalTensor<T>& src1Tensor,
                  uint32_t calCount) {
    more_detail::PowerST<T>(dstTensor, src0Scalar, src1Tensor, nullptr, calCount);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar, const LocalTensor<T>& src1Tensor,
                  const LocalTensor<uint8_t>& sharedTmpBuffer) {
    more_detail::PowerST(dstTensor, src0Scalar, src1Tensor, &sharedTmpBuffer, src1Tensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar, const LocalTensor<T>& src1Tensor) {
    more_detail::PowerST<T>(dstTensor, src0Scalar, src1Tensor, nullptr, src1Tensor.GetSize());
}

// ---- Sum, advanced API (adv_api/reduce/sum.h) ----------------------------------------------
// Sum(dst, src[, sharedTmpBuffer], SumParams{outter, inner, n}): row r's first n of its inner
// (32-byte aligned) elements summed into dst[r], as CANN's A2 implementation does it
// (impl/adv_api/detail/reduce/sum/sum_common_impl.h): RepeatReduceSum in counter mode, one tree
// sum a repeat of 256 bytes, then the same over those sums until one is left. The host gives the
// buffer (GetSumMaxMinTmpSize: one sum a repeat, rounded up to 32 bytes); a smaller one is an error
// in strict mode (CANN's kernel writes past it).
struct SumParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};
namespace more_detail {
template <typename T>
inline void SumRun(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                   const LocalTensor<uint8_t>* tmp, const SumParams& p) {
    constexpr const char* api = "Sum";
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "Sum takes half or float");
    constexpr uint32_t lanes = opgen_sim::kRepeatBytes / sizeof(T);
    constexpr uint32_t per_block = opgen_sim::kBlockBytes / sizeof(T);
    if (p.n == 0 || p.n > p.inner || p.inner % per_block != 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                        "SumParams{outter " + std::to_string(p.outter) + ", inner " +
                            std::to_string(p.inner) + ", n " + std::to_string(p.n) +
                            "}: n must be in [1, inner] and inner a multiple of " +
                            std::to_string(per_block) + " (n rounded up to 32 bytes)");
    }
    opgen_sim::CheckOperand(src, static_cast<uint64_t>(p.outter) * p.inner, api, "srcTensor");
    opgen_sim::CheckOperand(dst, p.outter, api, "dstTensor");
    const uint32_t repeats = (p.n + lanes - 1) / lanes;
    if (tmp != nullptr && repeats > 1) {
        opgen_sim::CheckUbAligned(*tmp, api, "sharedTmpBuffer");
        const uint64_t need = opgen_sim::RoundUp(repeats, per_block) * sizeof(T);
        if (opgen_sim::CurrentCore().strict_gm && tmp->size_ < need) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                            "sharedTmpBuffer holds " + opgen_sim::Str(tmp->size_) + " bytes; " +
                                std::to_string(repeats) + " repeat sums need " + opgen_sim::Str(need) +
                                " (GetSumMaxMinTmpSize; strict mode)");
        }
    }
    opgen_sim::FlushAll();
    std::vector<T> level(p.n);
    for (uint32_t row = 0; row < p.outter; ++row) {
        std::memcpy(level.data(), src.ptr_ + static_cast<uint64_t>(row) * p.inner, p.n * sizeof(T));
        uint32_t count = p.n;
        do {  // at least one RepeatReduceSum, as CANN's loop runs one for a single repeat too
            count = opgen_sim::RepeatSumLevel(level.data(), count);
        } while (count > 1);
        dst.ptr_[row] = level[0];
    }
}
}  // namespace more_detail
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                const LocalTensor<uint8_t>& sharedTmpBuffer, const SumParams& sumParams) {
    more_detail::SumRun(dstTensor, srcTensor, &sharedTmpBuffer, sumParams);
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SumParams& sumParams) {
    more_detail::SumRun<T>(dstTensor, srcTensor, nullptr, sumParams);
}

// ---- Arange (adv_api/index/arithprogression.h) -----------------------------------------------
// Arange(dst, firstValue, diffValue, count): first + i * diff, computed as CANN's implementation
// computes it (impl/adv_api/detail/index/arithprogression/arithprogression_common_impl.h), so each
// value carries the same roundings: the first 32-byte block on the scalar unit (half in float),
// every later block its predecessor plus 8 steps' worth (Adds in the element type), then every
// later 256-byte repeat its predecessor plus a repeat's steps; the last block or repeat is written
// whole (up to 32 bytes past count), as the hardware's masks do.
namespace more_detail {
template <typename T>
inline T ArangeAdd(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
    } else {
        return static_cast<T>(static_cast<opgen_sim::Acc<T>>(a) + static_cast<opgen_sim::Acc<T>>(b));
    }
}
template <typename T>
inline T ArangeStep(T diff, int32_t steps) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<int64_t>(diff) * static_cast<int64_t>(steps));
    } else {
        return static_cast<T>(static_cast<float>(diff) * static_cast<float>(steps));
    }
}
}  // namespace more_detail
template <typename T>
inline void Arange(const LocalTensor<T>& dst, const T firstValue, const T diffValue, const int32_t count) {
    constexpr const char* api = "Arange";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, int16_t> ||
                      std::is_same_v<T, int32_t>,
                  "Arange takes half, float, int16_t or int32_t");
    constexpr int32_t B = static_cast<int32_t>(opgen_sim::kBlockBytes / sizeof(T));
    constexpr int32_t R = static_cast<int32_t>(opgen_sim::kRepeatBytes / sizeof(T));
    if (count < 0) opgen_sim::Fail(opgen_sim::ErrorKind::VectorCount, api, "count " + std::to_string(count) + " is negative");
    const int32_t written = count > B ? (count + B - 1) / B * B : count;
    opgen_sim::CheckOperand(dst, static_cast<uint64_t>(written), api, "dst");
    opgen_sim::FlushAll();
    T* d = dst.ptr_;
    const auto base = [&](int32_t n) {
        for (int32_t i = 0; i < n; ++i) {
            if constexpr (std::is_same_v<T, half>) {
                d[i] = static_cast<half>(static_cast<float>(firstValue) +
                                         static_cast<float>(diffValue) * static_cast<float>(i));
            } else if constexpr (std::is_integral_v<T>) {
                d[i] = more_detail::ArangeAdd<T>(firstValue, static_cast<T>(static_cast<int64_t>(diffValue) * i));
            } else {
                d[i] = firstValue + diffValue * static_cast<T>(i);
            }
        }
    };
    const auto copyAdd = [&](int32_t to, int32_t from, int32_t n, T step) {
        for (int32_t j = 0; j < n; ++j) d[to + j] = more_detail::ArangeAdd<T>(d[from + j], step);
    };
    if (count <= B) {
        base(count);
        return;
    }
    base(B);
    const T stepB = more_detail::ArangeStep<T>(diffValue, B);
    if (count <= R) {
        for (int32_t i = 0; i + 1 < written / B; ++i) copyAdd((i + 1) * B, i * B, B, stepB);
        return;
    }
    for (int32_t i = 0; i < R / B - 1; ++i) copyAdd((i + 1) * B, i * B, B, stepB);
    const T stepR = more_detail::ArangeStep<T>(diffValue, R);
    const int32_t repeat = count / R, tail = count % R;
    for (int32_t i = 0; i + 1 < repeat; ++i) copyAdd((i + 1) * R, i * R, R, stepR);
    if (tail > 0) copyAdd(repeat * R, (repeat - 1) * R, (tail + B - 1) / B * B, stepR);
}

// ArithProgression: the same sequence under its other name (CANN's adv_api/index/arithprogression.h
// and impl/.../arithprogression_common_impl.h define both, each calling ArithProgressionImpl)
template <typename T>
inline void ArithProgression(const LocalTensor<T>& dst, const T firstValue, const T diffValue,
                             const int32_t count) {
    Arange(dst, firstValue, diffValue, count);
}

// ---- CumSum (adv_api/math/cumsum.h) ----------------------------------------------------------
// CumSum<T, config>(dst, lastRow, src[, sharedTmpBuffer], CumSumInfo{outter, inner}): running sums
// along the last axis (config.isLastAxis) or down the first, element after element in float, as
// CANN's A2 implementation adds row after row (impl/adv_api/detail/math/cumsum/cumsum_common_impl.h;
// the algorithm setting does not change it there): half is cast to float, summed and cast back; the
// result passes through the implementation's final Adds of 0 where it has one (a -0 becomes +0),
// and with config.outputLastRow the last row is copied to lastRow the same way. The buffer size it
// needs (GetCumSumMaxMinTmpSize) is checked by CANN's CPU-debug build only: here in strict mode.
enum class CumSumAlgorithm { CUMSUM_ALGORITHM_LINEBYLINE = 0, CUMSUM_ALGORITHM_SKLANSKY = 1 };
struct CumSumConfig {
    bool isLastAxis{true};
    bool isReuseSource{false};
    bool outputLastRow{false};
    CumSumAlgorithm algorithm{CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};
};
struct CumSumInfo {
    uint32_t outter{0};
    uint32_t inner{0};  // 32-byte aligned
};
constexpr CumSumConfig defaultCumSumConfig = {true, false, true};
namespace more_detail {
template <typename T>
inline T PlusZero(float v) {
    return static_cast<T>(static_cast<opgen_sim::Acc<T>>(static_cast<T>(v)) + opgen_sim::Acc<T>(0));
}
template <typename T, const CumSumConfig& config>
inline void CumSumRun(const LocalTensor<T>& dst, const LocalTensor<T>& lastRow, const LocalTensor<T>& src,
                      const LocalTensor<uint8_t>* tmp, const CumSumInfo& info) {
    constexpr const char* api = "CumSum";
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "CumSum takes half or float");
    const uint64_t rows = info.outter, cols = info.inner;
    if (rows == 0 || cols == 0 || cols * sizeof(T) % opgen_sim::kBlockBytes != 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                        "CumSumInfo{outter " + std::to_string(rows) + ", inner " + std::to_string(cols) +
                            "}: both must be positive and inner a multiple of 32 bytes");
    }
    opgen_sim::CheckOperand(src, rows * cols, api, "srcTensor");
    opgen_sim::CheckOperand(dst, rows * cols, api, "dstTensor");
    if constexpr (config.outputLastRow) opgen_sim::CheckOperand(lastRow, cols, api, "lastRowTensor");
    if (tmp != nullptr && opgen_sim::CurrentCore().strict_gm) {
        uint64_t need = 0;
        if (config.isLastAxis) {
            need = (sizeof(T) == 2 ? cols * 16 * 2 : 0) + 16 * cols * sizeof(T) * 2;
        } else if (sizeof(T) == 2) {
            need = rows * cols * sizeof(float);
        }
        if (tmp->size_ < need) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                            "sharedTmpBuffer holds " + opgen_sim::Str(tmp->size_) + " bytes; it needs " +
                                opgen_sim::Str(need) + " (GetCumSumMaxMinTmpSize; strict mode)");
        }
    }
    opgen_sim::FlushAll();
    std::vector<float> acc(rows * cols);
    for (uint64_t i = 0; i < rows * cols; ++i) acc[i] = static_cast<float>(src.ptr_[i]);
    const bool add_zero = config.isLastAxis || sizeof(T) == sizeof(float);
    for (uint64_t r = 0; r < rows; ++r) {
        for (uint64_t c = 0; c < cols; ++c) {
            const uint64_t i = r * cols + c;
            if (config.isLastAxis ? c > 0 : r > 0) {
                const uint64_t prev = config.isLastAxis ? i - 1 : i - cols;
                acc[i] = acc[prev] + acc[i];
            }
        }
    }
    for (uint64_t i = 0; i < rows * cols; ++i) {
        dst.ptr_[i] = add_zero ? PlusZero<T>(acc[i]) : static_cast<T>(acc[i]);
    }
    if constexpr (config.outputLastRow) {
        for (uint64_t c = 0; c < cols; ++c) {
            lastRow.ptr_[c] = PlusZero<T>(static_cast<float>(dst.ptr_[(rows - 1) * cols + c]));
        }
    }
}
}  // namespace more_detail
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
inline void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
                   LocalTensor<uint8_t>& sharedTmpBuffer, const CumSumInfo& cumSumInfo) {
    more_detail::CumSumRun<T, config>(dstTensor, lastRowTensor, srcTensor, &sharedTmpBuffer, cumSumInfo);
}
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
inline void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
                   const CumSumInfo& cumSumInfo) {
    more_detail::CumSumRun<T, config>(dstTensor, lastRowTensor, srcTensor, nullptr, cumSumInfo);
}

}  // namespace AscendC

