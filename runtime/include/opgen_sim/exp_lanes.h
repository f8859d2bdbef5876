// opgen NPU simulator: float Exp on SIMD lanes, bit-identical to the host libm's expf.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__) && defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 28))
#include <immintrin.h>
#define OPGEN_SIM_EXP_LANES 1
#endif

namespace opgen_sim {
namespace exp_lanes {

// The simulator's Exp is libm's expf of each lane (docs/simulator.md, "Numerics"). glibc's expf
// (2.28 and later) evaluates, in double, exp(x) = 2^(k/32) * 2^(r/32) with x * 32/ln2 = k + r:
// k is rounded by adding 1.5 * 2^52, 2^(k/32) is a table entry 2^((k mod 32)/32) with k/32 added
// to its exponent bits, 2^(r/32) a degree-3 polynomial, and the product is rounded once to
// float. Its x86-64 build has two variants, chosen at load time by the CPU: plain SSE2
// arithmetic, and one where four of the multiply-adds are fused (FMA with AVX2). The functions
// below are those two sequences of IEEE double operations on four lanes, so they round exactly
// as the scalar code does. |x| >= 88, inf and NaN (glibc's special cases, which may set errno)
// call expf itself. Which sequence is the host's is not assumed: Exp4 compares both with expf on
// a fixed sample once per process (ExpLanesVariant) and uses the one that matches, else expf per
// lane.
inline constexpr double kInvLn2N = 0x1.71547652b82fep+5;  // 32 / ln 2
inline constexpr double kShift = 0x1.8p+52;
inline constexpr double kC0 = 0x1.c6af84b912394p-20;  // 2^(r/32) ~ 1 + C2 r + C1 r^2 + C0 r^3
inline constexpr double kC1 = 0x1.ebfce50fac4f3p-13;
inline constexpr double kC2 = 0x1.62e42ff0c52d6p-6;
inline constexpr uint32_t kSpecialBits = 0x42b00000u;  // |x| bits from which expf branches off

typedef float F4v __attribute__((vector_size(16)));

// Bits of 2^(i/32) minus i << 47 (so that adding k << 47 scales by 2^(k div 32)), built when
// the library loads.
struct Table {
    uint64_t v[32];
    Table() {
        for (int i = 0; i < 32; ++i) {
            const double d = std::exp2(static_cast<double>(i) / 32.0);
            std::memcpy(&v[i], &d, 8);
            v[i] -= static_cast<uint64_t>(i) << 47;
        }
    }
};
inline const Table kTable;

#ifdef OPGEN_SIM_EXP_LANES
inline unsigned SpecialLanes(__m128i bits) {
    const __m128i mag = _mm_and_si128(bits, _mm_set1_epi32(0x7fffffff));
    return static_cast<unsigned>(
        _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(mag, _mm_set1_epi32(kSpecialBits - 1)))));
}
// The lanes of x (the source as loaded: out may be the same memory) that expf branches off for.
inline void Specials(__m128 xf, float* out, unsigned special) {
    float x[4];
    _mm_storeu_ps(x, xf);
    for (int k = 0; k < 4; ++k) {
        if ((special >> k) & 1u) out[k] = std::exp(x[k]);
    }
}

// The SSE2 variant: z = x * 32/ln2, kd = z + shift, r = z - (kd - shift), s from the table,
// y = (C0 r + C1) r^2 + (C2 r + 1), each product and sum rounded.
inline void Exp4Sse2(const float* x, float* out) {
    const __m128 xf = _mm_loadu_ps(x);
    const uint64_t* tab = kTable.v;
    alignas(16) double y[4];
    for (int h = 0; h < 2; ++h) {
        const __m128d xd = _mm_cvtps_pd(h == 0 ? xf : _mm_movehl_ps(xf, xf));
        const __m128d z = _mm_mul_pd(xd, _mm_set1_pd(kInvLn2N));
        __m128d kd = _mm_add_pd(z, _mm_set1_pd(kShift));
        const __m128i ki = _mm_castpd_si128(kd);
        kd = _mm_sub_pd(kd, _mm_set1_pd(kShift));
        const __m128d r = _mm_sub_pd(z, kd);
        alignas(16) uint64_t k[2];
        _mm_store_si128(reinterpret_cast<__m128i*>(k), ki);
        const __m128i t = _mm_add_epi64(_mm_set_epi64x(static_cast<int64_t>(tab[k[1] & 31]), static_cast<int64_t>(tab[k[0] & 31])),
                                        _mm_slli_epi64(ki, 47));
        const __m128d s = _mm_castsi128_pd(t);
        const __m128d y1 = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(kC2), r), _mm_set1_pd(1.0));
        const __m128d z2 = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(kC0), r), _mm_set1_pd(kC1));
        const __m128d r2 = _mm_mul_pd(r, r);
        _mm_store_pd(y + 2 * h, _mm_mul_pd(_mm_add_pd(_mm_mul_pd(z2, r2), y1), s));
    }
    const __m128 lo = _mm_cvtpd_ps(_mm_load_pd(y)), hi = _mm_cvtpd_ps(_mm_load_pd(y + 2));
    const unsigned special = SpecialLanes(_mm_castps_si128(xf));
    _mm_storeu_ps(out, _mm_movelh_ps(lo, hi));
    if (special != 0) Specials(xf, out, special);
}

// The FMA variant: kd = fma(x, 32/ln2, shift), r = fma(x, 32/ln2, -(kd - shift)) (the product
// unrounded), y = fma(fma(C0, r, C1), r^2, fma(C2, r, 1)).
__attribute__((target("avx2,fma"))) inline void Exp4Fma(const float* x, float* out) {
    const __m128 xf = _mm_loadu_ps(x);
    const __m256d xd = _mm256_cvtps_pd(xf);
    const __m256d inv = _mm256_set1_pd(kInvLn2N), shift = _mm256_set1_pd(kShift);
    __m256d kd = _mm256_fmadd_pd(inv, xd, shift);
    const __m256i ki = _mm256_castpd_si256(kd);
    kd = _mm256_sub_pd(kd, shift);
    const __m256d r = _mm256_fmsub_pd(inv, xd, kd);
    // the four table entries by scalar loads: faster than a gather on AMD's Zen 2 (9% per lane)
    alignas(32) uint64_t k[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(k), ki);
    const uint64_t* tab = kTable.v;
    const __m256i t = _mm256_add_epi64(
        _mm256_set_epi64x(static_cast<int64_t>(tab[k[3] & 31]), static_cast<int64_t>(tab[k[2] & 31]),
                          static_cast<int64_t>(tab[k[1] & 31]), static_cast<int64_t>(tab[k[0] & 31])),
        _mm256_slli_epi64(ki, 47));
    const __m256d z = _mm256_fmadd_pd(_mm256_set1_pd(kC0), r, _mm256_set1_pd(kC1));
    const __m256d r2 = _mm256_mul_pd(r, r);
    const __m256d y1 = _mm256_fmadd_pd(r, _mm256_set1_pd(kC2), _mm256_set1_pd(1.0));
    const __m256d y = _mm256_mul_pd(_mm256_fmadd_pd(z, r2, y1), _mm256_castsi256_pd(t));
    const unsigned special = SpecialLanes(_mm_castps_si128(xf));
    _mm_storeu_ps(out, _mm256_cvtpd_ps(y));
    if (special != 0) Specials(xf, out, special);
}

// (GCC 12's AVX-512 conversion intrinsics start from an "undefined" vector, which -Wall's
// -Wuninitialized reports inside the compiler's own headers.)
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// The FMA variant on eight lanes with AVX-512F (the same operations; the table, held in four
// registers, is looked up with two permutes of its halves).
struct Table512 {
    __m512i t0, t1, t2, t3;
};
__attribute__((target("avx512f,avx2,fma"))) inline Table512 LoadTable512() {
    return {_mm512_loadu_si512(kTable.v), _mm512_loadu_si512(kTable.v + 8),
            _mm512_loadu_si512(kTable.v + 16), _mm512_loadu_si512(kTable.v + 24)};
}
// expf of the eight lanes of xf, but for the lanes expf branches off for (Special16/SpecialLanes).
__attribute__((target("avx512f,avx2,fma"))) inline __m256 Exp8Avx512Regs(__m256 xf, const Table512& tab) {
    const __m512d xd = _mm512_cvtps_pd(xf);
    const __m512d inv = _mm512_set1_pd(kInvLn2N), shift = _mm512_set1_pd(kShift);
    __m512d kd = _mm512_fmadd_pd(inv, xd, shift);
    const __m512i ki = _mm512_castpd_si512(kd);
    kd = _mm512_sub_pd(kd, shift);
    const __m512d r = _mm512_fmsub_pd(inv, xd, kd);
    const __m512i lo = _mm512_permutex2var_epi64(tab.t0, ki, tab.t1);  // entries 0-15 by bits 0-3
    const __m512i hi = _mm512_permutex2var_epi64(tab.t2, ki, tab.t3);  // entries 16-31
    const __mmask8 upper = _mm512_test_epi64_mask(ki, _mm512_set1_epi64(16));
    const __m512i t = _mm512_add_epi64(_mm512_mask_blend_epi64(upper, lo, hi), _mm512_slli_epi64(ki, 47));
    const __m512d z = _mm512_fmadd_pd(_mm512_set1_pd(kC0), r, _mm512_set1_pd(kC1));
    const __m512d r2 = _mm512_mul_pd(r, r);
    const __m512d y1 = _mm512_fmadd_pd(r, _mm512_set1_pd(kC2), _mm512_set1_pd(1.0));
    const __m512d y = _mm512_mul_pd(_mm512_fmadd_pd(z, r2, y1), _mm512_castsi512_pd(t));
    return _mm512_cvtpd_ps(y);
}
__attribute__((target("avx512f,avx2,fma"))) inline void Exp8Avx512(const float* x, float* out) {
    const __m256 xf = _mm256_loadu_ps(x);
    const __m256i mag = _mm256_and_si256(_mm256_castps_si256(xf), _mm256_set1_epi32(0x7fffffff));
    const unsigned special = static_cast<unsigned>(_mm256_movemask_ps(
        _mm256_castsi256_ps(_mm256_cmpgt_epi32(mag, _mm256_set1_epi32(kSpecialBits - 1)))));
    _mm256_storeu_ps(out, Exp8Avx512Regs(xf, LoadTable512()));
    if (special != 0) {
        Specials(_mm256_castps256_ps128(xf), out, special & 15u);
        Specials(_mm256_extractf128_ps(xf, 1), out + 4, special >> 4);
    }
}
// The lanes of sixteen floats that expf branches off for (|x| >= 88, inf, NaN), as a bit mask.
__attribute__((target("avx512f"))) inline unsigned Special16(__m512 xf) {
    const __m512i mag = _mm512_and_si512(_mm512_castps_si512(xf), _mm512_set1_epi32(0x7fffffff));
    return _mm512_cmpgt_epi32_mask(mag, _mm512_set1_epi32(kSpecialBits - 1));
}
__attribute__((target("avx512f,avx2,fma"))) inline void SpanAvx512(float* d, const float* x, uint64_t n) {
    const Table512 tab = LoadTable512();
    const uint64_t n16 = n & ~uint64_t{15};
    uint64_t i = 0;
    for (; i < n16; i += 16) {  // sixteen lanes a step: two independent eight-lane chains
        const __m512 xf = _mm512_loadu_ps(x + i);
        const unsigned special = Special16(xf);
        const __m256 a = Exp8Avx512Regs(_mm512_castps512_ps256(xf), tab);
        const __m256 b = Exp8Avx512Regs(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(xf), 1)), tab);
        _mm256_storeu_ps(d + i, a);
        _mm256_storeu_ps(d + i + 8, b);
        if (special != 0) {
            float in[16];
            _mm512_storeu_ps(in, xf);
            for (int k = 0; k < 16; ++k) {
                if ((special >> k) & 1u) d[i + k] = std::exp(in[k]);
            }
        }
    }
    const uint64_t n8 = n & ~uint64_t{7};
    for (; i < n8; i += 8) Exp8Avx512(x + i, d + i);
    if (n - i >= 4) {
        Exp4Fma(x + i, d + i);
        i += 4;
    }
    for (; i < n; ++i) d[i] = std::exp(x[i]);
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
inline void Exp4Avx512(const float* x, float* out) {
    float in[8] = {x[0], x[1], x[2], x[3], 0.0f, 0.0f, 0.0f, 0.0f}, res[8];
    Exp8Avx512(in, res);
    std::memcpy(out, res, 16);
}

// d[i] = expf(x[i]) for i < n (d == x allowed), four lanes per step; a tail of fewer than four
// calls expf.
template <void (*Lanes)(const float*, float*)>
inline void SpanWith(float* d, const float* x, uint64_t n) {
    const uint64_t n4 = n & ~uint64_t{3};
    uint64_t i = 0;
    for (; i < n4; i += 4) Lanes(x + i, d + i);
    for (; i < n; ++i) d[i] = std::exp(x[i]);
}
__attribute__((target("avx2,fma"))) inline void SpanFma(float* d, const float* x, uint64_t n) {
    const uint64_t n4 = n & ~uint64_t{3};
    uint64_t i = 0;
    for (; i < n4; i += 4) Exp4Fma(x + i, d + i);
    for (; i < n; ++i) d[i] = std::exp(x[i]);
}

// Whether f equals expf on a sample: the only two floats whose results differ between the two
// variants (found by running both over every float: 0x1.04845ep+5 and -0x1.f8cbb2p+5, one ulp
// apart), 1.0 and -1.0, then 65536 values of every exponent from 2^-30 to 2^6 with random
// mantissas and signs.
inline bool Matches(void (*f)(const float*, float*)) {
    // through a volatile pointer: the compiler would fold expf of a known constant to the
    // correctly rounded value, which is not always libm's
    float (*volatile libm_expf)(float) = &::expf;
    static const uint32_t kDistinct[] = {0x4202422fu, 0xc27c65d9u, 0x3f800000u, 0xbf800000u};
    float x[4], got[4];
    for (int k = 0; k < 4; ++k) std::memcpy(&x[k], &kDistinct[k], 4);
    f(x, got);
    for (int k = 0; k < 4; ++k) {
        const float want = libm_expf(x[k]);
        if (std::memcmp(&want, &got[k], 4) != 0) return false;
    }
    uint32_t state = 12345u;
    for (int i = 0; i < 16384; ++i) {
        for (int k = 0; k < 4; ++k) {
            state = state * 1664525u + 1013904223u;
            const uint32_t bits = (state & 0x807fffffu) | ((97u + (state >> 7) % 37u) << 23);
            std::memcpy(&x[k], &bits, 4);
        }
        f(x, got);
        for (int k = 0; k < 4; ++k) {
            const float want = libm_expf(x[k]);
            if (std::memcmp(&want, &got[k], 4) != 0) return false;
        }
    }
    return true;
}
#endif

inline bool HasAvx512() {
#ifdef OPGEN_SIM_EXP_LANES
    static const bool ok = __builtin_cpu_supports("avx512f") != 0 && Matches(&Exp4Avx512);
    return ok;
#else
    return false;
#endif
}

// 2: the FMA variant, 1: SSE2, 0: expf per lane (another libm, or neither matched).
inline int ExpLanesVariant() {
#ifdef OPGEN_SIM_EXP_LANES
    static const int v = [] {
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && Matches(&Exp4Fma)) return 2;
        if (Matches(&Exp4Sse2)) return 1;
        return 0;
    }();
    return v;
#else
    return 0;
#endif
}

// expf of four lanes, as libm computes each.
inline F4v Exp4(F4v v) {
    F4v r;
#ifdef OPGEN_SIM_EXP_LANES
    const int variant = ExpLanesVariant();
    if (variant == 2) {
        Exp4Fma(reinterpret_cast<const float*>(&v), reinterpret_cast<float*>(&r));
        return r;
    }
    if (variant == 1) {
        Exp4Sse2(reinterpret_cast<const float*>(&v), reinterpret_cast<float*>(&r));
        return r;
    }
#endif
    for (int k = 0; k < 4; ++k) r[k] = std::exp(v[k]);
    return r;
}

// d[i] = expf(x[i]) for i < n, d == x allowed; false: no variant matched, the caller's lanes run.
inline bool Span(float* d, const float* x, uint64_t n) {
#ifdef OPGEN_SIM_EXP_LANES
    const int variant = ExpLanesVariant();
    if (variant == 2) {
        if (HasAvx512()) {
            SpanAvx512(d, x, n);
        } else {
            SpanFma(d, x, n);
        }
        return true;
    }
    if (variant == 1) {
        SpanWith<&Exp4Sse2>(d, x, n);
        return true;
    }
#endif
    (void)d, (void)x, (void)n;
    return false;
}

}  // namespace exp_lanes

// Exp's lane function (vector.h): one value of any lane type, four float lanes (Exp4) or a whole
// float span (Span).
struct ExpLane {
    template <typename A>
    A operator()(A a) const {
        if constexpr (std::is_same_v<A, exp_lanes::F4v>) {
            return exp_lanes::Exp4(a);
        } else {
            return static_cast<A>(std::exp(a));
        }
    }
    static bool Span(float* d, const float* x, uint64_t n) { return exp_lanes::Span(d, x, n); }
};
}  // namespace opgen_sim
