// opgen NPU simulator: the float Exp instruction. One definition (ExpF), run on the host's SIMD
// lanes; every width gives the same bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define OPGEN_SIM_EXP_LANES 1
#endif

namespace opgen_sim {
namespace exp_lanes {

// The hardware's Exp algorithm is not public; its documented bound (the Exp page of the Ascend C
// API reference, Ascend 950) is a maximum error of 1 ulp. The simulator's Exp (docs/simulator.md,
// "Numerics"), for |x| <= 87:
//   k = nearest integer to x * log2(e) (ties to even), in float;
//   r = x - k ln2 with ln2 in two parts: r1 = fma(-k, kLn2Hi, x) is exact (kLn2Hi has 16
//       significant bits), r = fma(-k, kLn2Lo, r1) and its rounding error dr = fma(-k, kLn2Lo,
//       r1 - r);
//   e^r = 1 + (r + fma(r * r, q, dr)) with q(r) = kC2 + r (kC3 + r (kC4 + r (kC5 + r kC6)))
//       (Horner, each step an fma), a fit of (e^r - 1 - r) / r^2 on |r| <= ln2 / 2;
//   the result is e^r * 2^k (exact: normal for |x| <= 87).
// Each named step is one IEEE float operation, rounded to nearest. Over every float of |x| <= 87
// the error is below 0.9 ulp of the exact value (tests/simulator/test_sim_exp_accuracy.py); the
// result differs from the correctly rounded one for about 0.4% of inputs, by one ulp.
// |x| > 87, infinities and NaN (the results near overflow, subnormal or zero) are libm's expf.
inline constexpr float kLog2e = 0x1.715476p+0f;
inline constexpr float kLn2Hi = 0x1.62e4p-1f;
inline constexpr float kLn2Lo = 0x1.7f7d1cp-20f;  // ln 2 - kLn2Hi, rounded to float
inline constexpr float kC2 = 0x1.fffffcp-2f;
inline constexpr float kC3 = 0x1.55549p-3f;
inline constexpr float kC4 = 0x1.5558f4p-5f;
inline constexpr float kC5 = 0x1.123a24p-7f;
inline constexpr float kC6 = 0x1.6a23aap-10f;
inline constexpr uint32_t kFastMaxBits = 0x42ae0000u;  // |x| bits of 87.0f: above, libm

typedef float F4v __attribute__((vector_size(16)));

inline float ExpF(float x) {
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    if ((bits & 0x7fffffffu) > kFastMaxBits) return std::exp(x);
    const float k = std::nearbyint(x * kLog2e);
    const float r1 = std::fma(-k, kLn2Hi, x);
    const float r = std::fma(-k, kLn2Lo, r1);
    const float dr = std::fma(-k, kLn2Lo, r1 - r);
    float q = std::fma(kC6, r, kC5);
    q = std::fma(q, r, kC4);
    q = std::fma(q, r, kC3);
    q = std::fma(q, r, kC2);
    const float p = 1.0f + (r + std::fma(r * r, q, dr));
    const uint32_t scale_bits = static_cast<uint32_t>(static_cast<int32_t>(k) + 127) << 23;
    float scale;
    std::memcpy(&scale, &scale_bits, 4);
    return p * scale;
}

#ifdef OPGEN_SIM_EXP_LANES
// (GCC 12's AVX-512 intrinsics start from an "undefined" vector, which -Wall's -Wuninitialized
// reports inside the compiler's own headers.)
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// The same steps on sixteen lanes (AVX-512F), eight (AVX2 with FMA) and four (FMA on SSE
// registers). The lanes past 87 are computed too and then replaced by libm's.
__attribute__((target("avx512f"))) inline __m512 Exp16(__m512 v) {
    const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(v, _mm512_set1_ps(kLog2e)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 r1 = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2Hi), v);
    const __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2Lo), r1);
    const __m512 dr = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2Lo), _mm512_sub_ps(r1, r));
    __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(kC6), r, _mm512_set1_ps(kC5));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kC4));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kC3));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kC2));
    const __m512 p = _mm512_add_ps(_mm512_set1_ps(1.0f),
                                   _mm512_add_ps(r, _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, dr)));
    const __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(k), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(p, _mm512_castsi512_ps(e));
}
__attribute__((target("avx512f"))) inline __mmask16 Slow16(__m512 v) {
    const __m512i mag = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff));
    return _mm512_cmpgt_epu32_mask(mag, _mm512_set1_epi32(static_cast<int>(kFastMaxBits)));
}
// x[i] for the lanes of `slow` (read before the store: d may be x) after libm.
inline void SlowLanes(float* d, const float* in, unsigned slow, int lanes) {
    for (int j = 0; j < lanes; ++j) {
        if ((slow >> j) & 1u) d[j] = std::exp(in[j]);
    }
}
__attribute__((target("avx512f"))) inline void SpanAvx512(float* d, const float* x, uint64_t n) {
    uint64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        const __mmask16 slow = Slow16(v);
        _mm512_storeu_ps(d + i, Exp16(v));
        if (slow != 0) {
            float in[16];
            _mm512_storeu_ps(in, v);
            SlowLanes(d + i, in, slow, 16);
        }
    }
    if (i < n) {  // the tail, masked: no lane past n is read or written
        const __mmask16 live = static_cast<__mmask16>((1u << (n - i)) - 1u);
        const __m512 v = _mm512_maskz_loadu_ps(live, x + i);
        const __mmask16 slow = Slow16(v) & live;
        _mm512_mask_storeu_ps(d + i, live, Exp16(v));
        if (slow != 0) {
            float in[16];
            _mm512_storeu_ps(in, v);
            SlowLanes(d + i, in, slow, 16);
        }
    }
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
__attribute__((target("avx2,fma"))) inline __m256 Exp8(__m256 v) {
    const __m256 k = _mm256_round_ps(_mm256_mul_ps(v, _mm256_set1_ps(kLog2e)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256 r1 = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2Hi), v);
    const __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2Lo), r1);
    const __m256 dr = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2Lo), _mm256_sub_ps(r1, r));
    __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(kC6), r, _mm256_set1_ps(kC5));
    q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(kC4));
    q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(kC3));
    q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(kC2));
    const __m256 p = _mm256_add_ps(_mm256_set1_ps(1.0f),
                                   _mm256_add_ps(r, _mm256_fmadd_ps(_mm256_mul_ps(r, r), q, dr)));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}
__attribute__((target("avx2,fma"))) inline unsigned Slow8(__m256 v) {
    const __m256i mag = _mm256_and_si256(_mm256_castps_si256(v), _mm256_set1_epi32(0x7fffffff));
    // (magnitudes are below 2^31: a signed compare orders them)
    return static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(
        _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(static_cast<int>(kFastMaxBits))))));
}
__attribute__((target("avx2,fma"))) inline void SpanAvx2(float* d, const float* x, uint64_t n) {
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const unsigned slow = Slow8(v);
        _mm256_storeu_ps(d + i, Exp8(v));
        if (slow != 0) {
            float in[8];
            _mm256_storeu_ps(in, v);
            SlowLanes(d + i, in, slow, 8);
        }
    }
    if (i < n) {  // the tail through a local copy: no lane past n is read or written
        float in[8] = {0, 0, 0, 0, 0, 0, 0, 0}, out[8];
        std::memcpy(in, x + i, (n - i) * 4);
        const __m256 v = _mm256_loadu_ps(in);
        _mm256_storeu_ps(out, Exp8(v));
        SlowLanes(out, in, Slow8(v), 8);
        std::memcpy(d + i, out, (n - i) * 4);
    }
}
__attribute__((target("avx2,fma"))) inline F4v Exp4Fma(F4v a) {
    __m128 v;
    std::memcpy(&v, &a, 16);
    const __m128 k = _mm_round_ps(_mm_mul_ps(v, _mm_set1_ps(kLog2e)),
                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m128 r1 = _mm_fnmadd_ps(k, _mm_set1_ps(kLn2Hi), v);
    const __m128 r = _mm_fnmadd_ps(k, _mm_set1_ps(kLn2Lo), r1);
    const __m128 dr = _mm_fnmadd_ps(k, _mm_set1_ps(kLn2Lo), _mm_sub_ps(r1, r));
    __m128 q = _mm_fmadd_ps(_mm_set1_ps(kC6), r, _mm_set1_ps(kC5));
    q = _mm_fmadd_ps(q, r, _mm_set1_ps(kC4));
    q = _mm_fmadd_ps(q, r, _mm_set1_ps(kC3));
    q = _mm_fmadd_ps(q, r, _mm_set1_ps(kC2));
    const __m128 p = _mm_add_ps(_mm_set1_ps(1.0f), _mm_add_ps(r, _mm_fmadd_ps(_mm_mul_ps(r, r), q, dr)));
    const __m128i e = _mm_slli_epi32(_mm_add_epi32(_mm_cvtps_epi32(k), _mm_set1_epi32(127)), 23);
    const __m128i mag = _mm_and_si128(_mm_castps_si128(v), _mm_set1_epi32(0x7fffffff));
    const unsigned slow = static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(
        _mm_cmpgt_epi32(mag, _mm_set1_epi32(static_cast<int>(kFastMaxBits))))));
    const __m128 y = _mm_mul_ps(p, _mm_castsi128_ps(e));
    F4v out;
    std::memcpy(&out, &y, 16);
    for (int j = 0; j < 4; ++j) {
        if ((slow >> j) & 1u) out[j] = std::exp(a[j]);
    }
    return out;
}

// 2: AVX-512F, 1: AVX2 with FMA, 0: neither (each lane is ExpF, whose std::fma is exact on any
// host).
inline int Width() {
    static const int w = __builtin_cpu_supports("avx512f")                                  ? 2
                         : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1
                                                                                             : 0;
    return w;
}
#endif

// ExpF of four lanes.
inline F4v Exp4(F4v v) {
#ifdef OPGEN_SIM_EXP_LANES
    if (Width() > 0) return Exp4Fma(v);
#endif
    F4v r;
    for (int k = 0; k < 4; ++k) r[k] = ExpF(v[k]);
    return r;
}

// d[i] = ExpF(x[i]) for i < n (d == x allowed).
inline void Span(float* d, const float* x, uint64_t n) {
#ifdef OPGEN_SIM_EXP_LANES
    const int w = Width();
    if (w == 2) {
        SpanAvx512(d, x, n);
        return;
    }
    if (w == 1) {
        SpanAvx2(d, x, n);
        return;
    }
#endif
    for (uint64_t i = 0; i < n; ++i) d[i] = ExpF(x[i]);
}

}  // namespace exp_lanes

// Exp's lane function (vector.h): one value of any lane type (half: in float, rounded once),
// four float lanes (Exp4) or a whole float span (Span).
struct ExpLane {
    template <typename A>
    A operator()(A a) const {
        if constexpr (std::is_same_v<A, exp_lanes::F4v>) {
            return exp_lanes::Exp4(a);
        } else {
            return static_cast<A>(exp_lanes::ExpF(static_cast<float>(a)));
        }
    }
    static bool Span(float* d, const float* x, uint64_t n) {
        exp_lanes::Span(d, x, n);
        return true;
    }
};
}  // namespace opgen_sim
