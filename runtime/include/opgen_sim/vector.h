// opgen NPU simulator: vector instructions (level-2 "count" interfaces of Ascend C).
#pragma once

#include <algorithm>
#include <functional>

#include "data_copy.h"
#include "exp_lanes.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace opgen_sim {

// Arithmetic type used to evaluate one lane: half/bfloat16 lanes compute in float and round
// once when stored, like the hardware's 16-bit lanes.
template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>, float, T>;

[[noreturn]] OPGEN_SIM_OUTLINE void FailNegativeCount(int64_t count, const char* api)
#if OPGEN_SIM_OUTLINE_BODIES
{
    Fail(ErrorKind::VectorCount, api, "count " + std::to_string(count) + " is negative");
}
#else
;
#endif

inline void CheckCount(int64_t count, const char* api) {
    if (count < 0) FailNegativeCount(count, api);
}

[[noreturn]] OPGEN_SIM_OUTLINE void FailOperandCount(int64_t count, uint64_t size,
                                                     const char* type_name, const char* api,
                                                     const char* what)
#if OPGEN_SIM_OUTLINE_BODIES
{
    Fail(ErrorKind::LocalMemoryOutOfBounds, api,
         std::string(what) + ": count " + std::to_string(count) + " exceeds the LocalTensor<" +
             type_name + "> of " + Str(size) + " elements");
}
#else
;
#endif

// Whether an instruction may reach `bytes` from `p`, past its LocalTensor: the NPU knows
// addresses, not LocalTensors, so by default a reach that stays in the Unified Buffer is what the
// hardware does (ops-nn's mse_loss_grad_v2 casts three tiles into a one-tile output, foreach_norm
// copies 256 floats into 8); the work deferred into the range is done first. Strict mode
// (OPGEN_SIM_STRICT=1) holds every instruction to its LocalTensor.
inline bool ReachesOnInUb(const void* p, uint64_t bytes) {
    Core* c = tls_core;
    if (c == nullptr || c->strict_gm || c->ub == nullptr) return false;
    const auto* b = static_cast<const uint8_t*>(p);
    if (b < c->ub || b + bytes > c->ub + c->ub_capacity) return false;
    FlushUb(c, p, bytes);
    return true;
}

template <typename T>
inline void CheckOperandCount(const AscendC::LocalTensor<T>& t, int64_t count, const char* api,
                              const char* what) {
    if (static_cast<uint64_t>(count) > t.size_ &&
        !ReachesOnInUb(t.ptr_, static_cast<uint64_t>(count) * sizeof(T))) {
        FailOperandCount(count, t.size_, TypeName<T>(), api, what);
    }
}
// CheckOperand without applying deferred work, on the calling thread's core `c`.
template <typename T>
inline void CheckOperandLive(const Core* c, const AscendC::LocalTensor<T>& t, int64_t count,
                             const char* api, const char* what) {
    CheckUbAlignedLive(c, t, api, what);
    CheckOperandCount(t, count, api, what);
}

template <typename T>
inline void CheckOperand(const AscendC::LocalTensor<T>& t, int64_t count, const char* api,
                         const char* what, bool apply_pending = true) {
    CheckUbAligned(t, api, what, apply_pending);
    CheckOperandCount(t, count, api, what);
}

// An element-wise instruction that is not recorded (DeferInstruction) reads its sources through
// LazySource (deferred.h: a source still to be copied in from GM is read there). dst is written
// whole, so entries inside it are dropped (and those reading it applied); a dst that overlaps a
// source without being it reads everything from UB, as the loop did.
template <typename T>
inline T* LazyDst(Core* c, const AscendC::LocalTensor<T>& dst, int32_t count, const T** srcs,
                  const AscendC::LocalTensor<T>* const* tensors, int n) {
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    for (int i = 0; i < n; ++i) {
        if (srcs[i] == tensors[i]->ptr_ || tensors[i]->ptr_ == dst.ptr_) continue;
        if (Overlaps(reinterpret_cast<const uint8_t*>(dst.ptr_), bytes,
                     reinterpret_cast<const uint8_t*>(tensors[i]->ptr_), bytes)) {
            for (int j = 0; j < n; ++j) {
                FlushUb(c, tensors[j]->ptr_, bytes, false);
                srcs[j] = tensors[j]->ptr_;
            }
            break;
        }
    }
    DiscardUb(c, dst.ptr_, bytes);
    return dst.ptr_;
}

// Element-wise instructions on recorded sources are recorded rather than run (deferred.h,
// "Deferred work") when their lane function can be kept in a step: a closure of at most 16 bytes
// that is trivially copyable (the API's lambdas, capturing at most a scalar).
template <typename F>
inline constexpr bool kDeferrable = sizeof(F) <= sizeof(Step::fn) &&
                                    alignof(F) <= 8 && std::is_trivially_copyable_v<F>;

template <typename F>
inline const F& LaneFn(const Step& s) {
    return *std::launder(reinterpret_cast<const F*>(s.fn));
}

// ---- SIMD lanes --------------------------------------------------------------------------
// The float and half element-wise instructions whose lane function is marked Vectorised (below)
// run four lanes per step on SSE2 vectors (the x86-64 baseline; half lanes load and store through
// F16C's conversions when the CPU has them, checked once). Each lane is the same IEEE operation
// on the same float values as the scalar loop (no contraction, no reassociation), and
// cvtps2ph rounds to nearest even as the scalar conversion does, so results are bit-identical.
// A dst that partly overlaps a source keeps the scalar loop (its element order is observable).
typedef float F4 __attribute__((vector_size(16)));

template <typename F>
struct Vec {
    F f;
    template <typename... A>
    auto operator()(A... a) const { return f(a...); }
};
template <typename F>
inline Vec<F> Vectorised(F f) { return Vec<F>{f}; }
template <typename F>
struct IsVec : std::false_type {};
// A lane function with a static Span(float* d, const float* x, uint64_t n) runs whole float spans
// itself (Exp: exp_lanes.h); Span returns false to leave them to the four-lane loop.
template <typename F, typename = void>
struct HasSpan : std::false_type {};
template <typename F>
struct HasSpan<F, std::void_t<decltype(&F::Span)>> : std::true_type {};
template <typename F>
struct IsVec<Vec<F>> : std::true_type {};
// A float lane function with a member `kWide` also takes eight-lane vectors (F8, an overload
// compiled for AVX): the binary and tensor-scalar arithmetic, whose float lanes then run eight
// at a time where the CPU has AVX.
template <typename F, typename = void>
struct IsWide : std::false_type {};
template <typename F>
struct IsWide<F, std::void_t<decltype(F::kWide)>> : std::true_type {};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define OPGEN_SIM_SIMD_LANES 1
inline bool HasF16c() {
    static const bool ok = __builtin_cpu_supports("f16c") != 0;
    return ok;
}

inline F4 Load4(const float* p) {
    F4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void Store4(float* p, F4 v) { std::memcpy(p, &v, sizeof v); }

template <int N, typename F>
inline void MapFloat(float* d, const float* x, const float* y, uint64_t n, const F f) {
    // bounded by a rounded-down count: `i + 4 <= n` makes GCC warn (-Waggressive-loop-
    // optimizations, an error under -Werror) about the tail loop once it knows n
    const uint64_t n4 = n & ~uint64_t{3};
    uint64_t i = 0;
    // unrolled: one vector per iteration left the loop's speed to where its code happened to
    // land (a 4-instruction loop across a 64-byte fetch boundary ran at ~0.6 of the same loop
    // inside one)
#pragma GCC unroll 4
    for (; i < n4; i += 4) {
        if constexpr (N == 1) {
            Store4(d + i, f(Load4(x + i)));
        } else {
            Store4(d + i, f(Load4(x + i), Load4(y + i)));
        }
    }
    for (; i < n; ++i) {
        if constexpr (N == 1) {
            d[i] = f(x[i]);
        } else {
            d[i] = f(x[i], y[i]);
        }
    }
}

// MapFloat on wide vectors of V (eight or sixteen float lanes), for a lane function taking V:
// the same IEEE operation on each lane (no FMA is enabled, so nothing is contracted),
// bit-identical to four lanes a step. Inlined into the target-specific forms below, whose target
// its vector code is compiled for (so no vector crosses a call: GCC's note that passing one
// without the target "changes the ABI" does not apply).
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
template <typename V, int N, typename F>
__attribute__((always_inline)) inline void MapFloatWide(float* d, const float* x, const float* y,
                                                        uint64_t n, const F& f) {
    constexpr uint64_t kLanes = sizeof(V) / sizeof(float);
    const uint64_t nv = n / kLanes * kLanes;
    uint64_t i = 0;
#pragma GCC unroll 4
    for (; i < nv; i += kLanes) {
        V a, r;
        std::memcpy(&a, x + i, sizeof a);
        if constexpr (N == 1) {
            r = f(a);
        } else {
            V b;
            std::memcpy(&b, y + i, sizeof b);
            r = f(a, b);
        }
        std::memcpy(d + i, &r, sizeof r);
    }
    for (; i < n; ++i) {
        if constexpr (N == 1) {
            d[i] = f(x[i]);
        } else {
            d[i] = f(x[i], y[i]);
        }
    }
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
// Eight lanes per step (AVX), for a Wide lane function.
typedef float F8 __attribute__((vector_size(32)));
template <int N, typename F>
__attribute__((target("avx"))) inline void MapFloat8(float* d, const float* x, const float* y,
                                                     uint64_t n, const F f) {
    MapFloatWide<F8, N>(d, x, y, n, f);
}
// Sixteen lanes per step (AVX-512F), for a lane function with a 512-bit overload (IsWide16).
typedef float F16v __attribute__((vector_size(64)));
template <typename F, typename = void>
struct IsWide16 : std::false_type {};
template <typename F>
struct IsWide16<F, std::void_t<decltype(F::kWide16)>> : std::true_type {};
inline bool HasAvx512f() {
    static const bool ok = __builtin_cpu_supports("avx512f") != 0;
    return ok;
}
// The sixteen-lane maps run over operands of at most this many bytes each: spans that stay in
// the core's L1 cache, as a row of a tile does (8,000 Adds of 1024 floats: 1.77 -> 1.33 ms on
// the Intel Xeon of benchmarks/RESULTS.md). Over larger spans, read from L2, the eight-lane maps
// were the faster there (8,000 Adds of 8192 floats: 3.30 ms against 3.64).
constexpr uint64_t kWide16MaxBytes = 16 * 1024;
template <int N, typename F>
__attribute__((target("avx512f"))) inline void MapFloat16(float* d, const float* x, const float* y,
                                                         uint64_t n, const F f) {
    MapFloatWide<F16v, N>(d, x, y, n, f);
}

__attribute__((target("f16c"))) inline F4 LoadHalf4(const half* p) {
    __m128i h;
    std::memcpy(&h, p, 8);
    const __m128 v = _mm_cvtph_ps(h);
    F4 r;
    std::memcpy(&r, &v, sizeof r);
    return r;
}
__attribute__((target("f16c"))) inline void StoreHalf4(half* p, F4 v) {
    __m128 f;
    std::memcpy(&f, &v, sizeof f);
    const __m128i h = _mm_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT);
    std::memcpy(p, &h, 8);
}

inline bool HasAvx() {
    static const bool ok = __builtin_cpu_supports("avx") != 0;
    return ok;
}
// Eight float or half elements as eight floats, and back (half through F16C's 256-bit forms,
// rounding to nearest even, as MapHalf converts).
template <typename T>
__attribute__((target("avx,f16c"))) inline __m256 Load8Float(const T* p) {
    if constexpr (std::is_same_v<T, half>) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    } else {
        return _mm256_loadu_ps(p);
    }
}
template <typename T>
__attribute__((target("avx,f16c"))) inline void Store8Float(T* p, __m256 v) {
    if constexpr (std::is_same_v<T, half>) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    } else {
        _mm256_storeu_ps(p, v);
    }
}
// Eight halves converted at once (AVX's 256-bit F16C forms), as two four-lane vectors.
struct HalfPair {
    F4 lo, hi;
};
__attribute__((target("avx,f16c"))) inline HalfPair LoadHalf8(const half* p) {
    __m128i h;
    std::memcpy(&h, p, 16);
    const __m256 v = _mm256_cvtph_ps(h);
    HalfPair r;
    const __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
    std::memcpy(&r.lo, &lo, sizeof r.lo);
    std::memcpy(&r.hi, &hi, sizeof r.hi);
    return r;
}
__attribute__((target("avx,f16c"))) inline void StoreHalf8(half* p, F4 lo, F4 hi) {
    __m128 l, h;
    std::memcpy(&l, &lo, sizeof l);
    std::memcpy(&h, &hi, sizeof h);
    const __m128i r = _mm256_cvtps_ph(_mm256_set_m128(h, l), _MM_FROUND_TO_NEAREST_INT);
    std::memcpy(p, &r, 16);
}

inline F4 Sqrt4(F4 v) {
    __m128 f;
    std::memcpy(&f, &v, sizeof f);
    f = _mm_sqrt_ps(f);
    std::memcpy(&v, &f, sizeof v);
    return v;
}

// |a| as `a < 0 ? -a : a + 0` computes it, in three operations: t = a + 0 (-0.0 becomes +0.0, a
// NaN keeps its sign and payload, quietened), then maxps(-t, t), which gives its second operand,
// t, for a NaN and for two zeros (equal to the scalar form on every float).
inline F4 Abs4(F4 v) {
    __m128 f;
    std::memcpy(&f, &v, sizeof f);
    const __m128 t = _mm_add_ps(f, _mm_setzero_ps());
    f = _mm_max_ps(_mm_xor_ps(t, _mm_set1_ps(-0.0f)), t);
    std::memcpy(&v, &f, sizeof v);
    return v;
}

// A libm function of each lane in turn (Ln: the scalar loop's calls, in the same order,
// without its per-element conversions).
template <typename G>
inline F4 PerLane(F4 v, G g) {
    F4 r;
    for (int k = 0; k < 4; ++k) r[k] = g(v[k]);
    return r;
}

// The first n rounded down to eight elements of MapHalf, eight halves per conversion, through f's
// eight-lane overload (IsWide) or else each four-lane half through f as MapHalf does; returns how
// many it did.
template <int N, typename F>
__attribute__((target("avx,f16c"))) inline uint64_t MapHalf8(half* d, const half* x, const half* y,
                                                             uint64_t n, const F f) {
    const uint64_t n8 = n & ~uint64_t{7};
    if constexpr (IsWide<F>::value) {  // the lane function's eight-lane (F8) overload
#pragma GCC unroll 2
        for (uint64_t i = 0; i < n8; i += 8) {
            const __m256 av = Load8Float(x + i);
            F8 a, r;
            std::memcpy(&a, &av, sizeof a);
            if constexpr (N == 1) {
                r = f(a);
            } else {
                const __m256 bv = Load8Float(y + i);
                F8 b;
                std::memcpy(&b, &bv, sizeof b);
                r = f(a, b);
            }
            __m256 rv;
            std::memcpy(&rv, &r, sizeof rv);
            Store8Float(d + i, rv);
        }
        return n8;
    }
#pragma GCC unroll 2
    for (uint64_t i = 0; i < n8; i += 8) {
        const HalfPair a = LoadHalf8(x + i);
        if constexpr (N == 1) {
            StoreHalf8(d + i, f(a.lo), f(a.hi));
        } else {
            const HalfPair b = LoadHalf8(y + i);
            StoreHalf8(d + i, f(a.lo, b.lo), f(a.hi, b.hi));
        }
    }
    return n8;
}

// The first n rounded down to sixteen elements of MapHalf with AVX-512F, for a lane function with
// a 512-bit overload: sixteen halves per conversion, the same float operation on each lane and
// the same rounding to half; returns how many it did.
// (GCC 12's AVX-512 conversion intrinsics start from an "undefined" vector, which -Wall's
// -Wuninitialized reports inside the compiler's own headers.)
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
template <int N, typename F>
__attribute__((target("avx512f"))) inline uint64_t MapHalf16(half* d, const half* x, const half* y,
                                                            uint64_t n, const F f) {
    const uint64_t n16 = n & ~uint64_t{15};
    for (uint64_t i = 0; i < n16; i += 16) {
        __m256i h;
        std::memcpy(&h, x + i, 32);
        const __m512 av = _mm512_cvtph_ps(h);
        F16v a, r;
        std::memcpy(&a, &av, sizeof a);
        if constexpr (N == 1) {
            r = f(a);
        } else {
            std::memcpy(&h, y + i, 32);
            const __m512 bv = _mm512_cvtph_ps(h);
            F16v b;
            std::memcpy(&b, &bv, sizeof b);
            r = f(a, b);
        }
        __m512 rv;
        std::memcpy(&rv, &r, sizeof rv);
        h = _mm512_cvtps_ph(rv, _MM_FROUND_TO_NEAREST_INT);
        std::memcpy(d + i, &h, 32);
    }
    return n16;
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

template <int N, typename F>
__attribute__((target("f16c"))) inline void MapHalf(half* d, const half* x, const half* y, uint64_t n,
                                                    const F f) {
    const uint64_t n4 = n & ~uint64_t{3};
    uint64_t i = 0;
    if constexpr (IsWide16<F>::value) {
        // At any span: sixteen halves are a 256-bit load, as eight floats are (kWide16MaxBytes
        // bounds the 512-bit loads of float spans), and the eight-lane form below converts twice
        // as often and runs the lane function on four-lane halves. Side by side through torch
        // (leaky_relu, 4096x1024 float16, 2 threads, AMD EPYC, tiles of 16 KiB and more that
        // used the eight-lane form): 0.39 -> 0.24 ms.
        if (HasAvx512f()) i = MapHalf16<N>(d, x, y, n, f);
    }
    // (HasF16c() holds: the caller checked)
    if (HasAvx()) i += MapHalf8<N>(d + i, x + i, y == nullptr ? nullptr : y + i, n - i, f);
#pragma GCC unroll 4
    for (; i < n4; i += 4) {
        if constexpr (N == 1) {
            StoreHalf4(d + i, f(LoadHalf4(x + i)));
        } else {
            StoreHalf4(d + i, f(LoadHalf4(x + i), LoadHalf4(y + i)));
        }
    }
    for (; i < n; ++i) {
        if constexpr (N == 1) {
            d[i] = static_cast<half>(f(static_cast<float>(x[i])));
        } else {
            d[i] = static_cast<half>(f(static_cast<float>(x[i]), static_cast<float>(y[i])));
        }
    }
}
#endif

// MapHalf for a lane function with a float span form (Span: Exp, and Sigmoid, Silu, Gelu and
// FasterGelu through it): a chunk of halves converted to floats (exactly), the span run on them,
// the results rounded to half to nearest even, as MapHalf computes a half lane in float and
// rounds it once; the span gives every element the bits of its one-lane form. Instead of the
// four-lane calls MapHalf would make (ops-nn's foreach_exp, 4096x1024 float16: 4.5-7.4 -> 2.7-3.3
// ms, benchmarks/RESULTS.md).
template <typename F>
__attribute__((target("avx,f16c"))) inline void SpanHalf(half* d, const half* x, uint64_t n,
                                                        const F& f) {
    constexpr uint64_t kChunk = 512;
    alignas(64) float buf[kChunk];
    for (uint64_t i = 0; i < n; i += kChunk) {
        const uint64_t m = n - i < kChunk ? n - i : kChunk;
        uint64_t j = 0;
        for (; j + 8 <= m; j += 8) _mm256_store_ps(buf + j, Load8Float(x + i + j));
        for (; j < m; ++j) buf[j] = static_cast<float>(x[i + j]);
        f.Span(buf, buf, m);  // (always true: each span form runs every element)
        j = 0;
        for (; j + 8 <= m; j += 8) Store8Float(d + i + j, _mm256_load_ps(buf + j));
        for (; j < m; ++j) d[i + j] = static_cast<half>(buf[j]);
    }
}

// Runs d[i] = f(x[i]) (y == nullptr) or f(x[i], y[i]) for i < n on SIMD lanes; false if this
// instruction keeps the scalar loop (not marked, not float/half, a partly overlapping dst).
template <int N, typename T, typename F>
inline bool MapLanes(T* d, const T* x, const T* y, uint64_t n, const F& f) {
#ifdef OPGEN_SIM_SIMD_LANES
    if constexpr (IsVec<F>::value && (std::is_same_v<T, float> || std::is_same_v<T, half>)) {
        const uint64_t bytes = n * sizeof(T);
        const auto* db = reinterpret_cast<const uint8_t*>(d);
        for (const T* s : {x, y}) {
            if (s != nullptr && s != d && Overlaps(db, bytes, reinterpret_cast<const uint8_t*>(s), bytes)) return false;
        }
        if constexpr (std::is_same_v<T, float>) {
            if constexpr (N == 1 && HasSpan<decltype(f.f)>::value) {
                if (f.f.Span(d, x, n)) return true;
            }
            if constexpr (IsWide16<std::decay_t<decltype(f.f)>>::value) {
                if (n * sizeof(float) <= kWide16MaxBytes && HasAvx512f()) {
                    MapFloat16<N>(d, x, y, n, f.f);
                    return true;
                }
            }
            if constexpr (IsWide<std::decay_t<decltype(f.f)>>::value) {
                if (HasAvx()) {
                    MapFloat8<N>(d, x, y, n, f.f);
                    return true;
                }
            }
            MapFloat<N>(d, x, y, n, f.f);
            return true;
        } else {
            if (!HasF16c()) return false;
            if constexpr (N == 1 && HasSpan<std::decay_t<decltype(f.f)>>::value) {
                if (HasAvx()) {
                    SpanHalf(d, x, n, f.f);
                    return true;
                }
            }
            MapHalf<N>(d, x, y, n, f.f);
            return true;
        }
    }
#endif
    (void)d, (void)x, (void)y, (void)n, (void)f;
    return false;
}

// One step of a recorded program (deferred.h): the instruction's own loop over n elements, x
// the running result (or the program's first operand), in the form its sources took.
template <int Form, typename T, typename F>
inline void RunStep(const Step& s, uint8_t* d8, const uint8_t* x8, uint64_t first, uint64_t n) {
    const F f = LaneFn<F>(s);
    T* d = reinterpret_cast<T*>(d8);
    const T* x = reinterpret_cast<const T*>(x8);
    if constexpr (Form == kStepUnary) {
        if (MapLanes<1, T>(d, x, nullptr, n, f)) return;
        for (uint64_t i = 0; i < n; ++i) d[i] = static_cast<T>(f(static_cast<Acc<T>>(x[i])));
    } else {
        const T* o = Form == kStepAccAcc ? x : reinterpret_cast<const T*>(s.other) + first;
        const T* a = Form == kStepOtherAcc ? o : x;
        const T* b = Form == kStepOtherAcc ? x : o;
        if (MapLanes<2>(d, a, b, n, f)) return;
        for (uint64_t i = 0; i < n; ++i) d[i] = static_cast<T>(f(static_cast<Acc<T>>(a[i]), static_cast<Acc<T>>(b[i])));
    }
}

// Records the instruction writing `count` elements of dst from its N sources (deferred.h,
// DeferElementwise); false if it must run now.
template <int N, typename T, typename F>
inline bool DeferInstruction(Core* c, const AscendC::LocalTensor<T>& dst,
                             const AscendC::LocalTensor<T>* const* srcs, int32_t count, const F& f) {
    if constexpr (kDeferrable<F>) {
        const StepRun* runs = nullptr;
        if constexpr (N == 1) {
            static constexpr StepRun unary[kStepForms] = {&RunStep<kStepUnary, T, F>, nullptr, nullptr, nullptr};
            runs = unary;
        } else {
            static constexpr StepRun binary[kStepForms] = {nullptr, &RunStep<kStepAccOther, T, F>,
                                                           &RunStep<kStepOtherAcc, T, F>, &RunStep<kStepAccAcc, T, F>};
            runs = binary;
        }
        // nothing recorded: nothing to extend, and DeferElementwise would refuse at once
        if (count <= 0 || c == nullptr || c->npending == 0) return false;
        const uint8_t* src[N];
        for (int k = 0; k < N; ++k) src[k] = reinterpret_cast<const uint8_t*>(srcs[k]->ptr_);
        return DeferElementwise(c, reinterpret_cast<uint8_t*>(dst.ptr_), static_cast<uint64_t>(count) * sizeof(T),
                                src, N, TypeTag<T>(), sizeof(T), runs, &f, sizeof(F));
    } else {
        (void)c, (void)dst, (void)srcs, (void)count, (void)f;
        return false;
    }
}

template <typename T, typename F>
inline void Binary(const char* api, const AscendC::LocalTensor<T>& dst,
                   const AscendC::LocalTensor<T>& a, const AscendC::LocalTensor<T>& b, int32_t count,
                   F f) {
    Core& core = CurrentCore();  // once: each thread-local read is a call (core.h)
    Core* c = &core;
    CheckCount(count, api);
    CheckOperandLive(c, dst, count, api, "dst");
    CheckOperandLive(c, a, count, api, "src0");
    CheckOperandLive(c, b, count, api, "src1");
    CountVector<T>(core, static_cast<uint64_t>(count), api);
    const AscendC::LocalTensor<T>* tensors[2] = {&a, &b};
    if (DeferInstruction<2>(c, dst, tensors, count, f)) return;
    const T* srcs[2] = {LazySource(c, a.ptr_, count), LazySource(c, b.ptr_, count)};
    T* d = LazyDst(c, dst, count, srcs, tensors, 2);
    const T* x = srcs[0];
    const T* y = srcs[1];
    if (MapLanes<2>(d, x, y, static_cast<uint64_t>(count), f)) return;
    for (int32_t i = 0; i < count; ++i) d[i] = static_cast<T>(f(static_cast<Acc<T>>(x[i]), static_cast<Acc<T>>(y[i])));
}

template <typename T, typename F>
inline void Unary(const char* api, const AscendC::LocalTensor<T>& dst,
                  const AscendC::LocalTensor<T>& a, int32_t count, F f) {
    Core& core = CurrentCore();
    Core* c = &core;
    CheckCount(count, api);
    CheckOperandLive(c, dst, count, api, "dst");
    CheckOperandLive(c, a, count, api, "src");
    CountVector<T>(core, static_cast<uint64_t>(count), api);
    const AscendC::LocalTensor<T>* tensors[1] = {&a};
    if (DeferInstruction<1>(c, dst, tensors, count, f)) return;
    const T* srcs[1] = {LazySource(c, a.ptr_, count)};
    T* d = LazyDst(c, dst, count, srcs, tensors, 1);
    const T* x = srcs[0];
    if (MapLanes<1, T>(d, x, nullptr, static_cast<uint64_t>(count), f)) return;
    for (int32_t i = 0; i < count; ++i) d[i] = static_cast<T>(f(static_cast<Acc<T>>(x[i])));
}

// One addition of a vector reduction, rounded to T. A half sum that overflows saturates to
// +-65504: CTRL[48] = 0, the saturation mode that is the register's reset value on the Atlas A2
// products (Ascend C reference, SetCtrlSpr, table 5), in which ReduceDataBlock's example
// [60000, 60000, -30000, 100] adds 60000 + 60000 to 65504 (ReduceDataBlock, figure 2).
template <typename T>
inline T ReduceAdd(T a, T b) {
    const Acc<T> s = static_cast<Acc<T>>(a) + static_cast<Acc<T>>(b);
    if constexpr (std::is_same_v<T, half>) {
        if (s > 65504.0f) return static_cast<T>(65504.0f);
        if (s < -65504.0f) return static_cast<T>(-65504.0f);
    }
    return static_cast<T>(s);
}

// Binary-tree sum of n values, n a power of two, rounding each step to T: adjacent pairs
// first, then adjacent pairs of those sums (ReduceDataBlock, "关键特性说明", figure 3; ReduceSum
// and ReduceRepeat sum a repeat the same way).
template <typename T>
inline T TreeSum(T* v, uint32_t n) {
    for (uint32_t w = n; w > 1; w /= 2) {
        for (uint32_t i = 0; i < w / 2; ++i) v[i] = ReduceAdd(v[2 * i], v[2 * i + 1]);
    }
    return v[0];
}

// Max/min reductions propagate NaN: the reference does not say what a NaN lane does to
// ReduceMax/ReduceMin, WholeReduceMax/Min or BlockReduceMax/Min, and CANN's own operators rely on
// it winning (ops-math's non_finite_check detects a NaN only through ReduceMax/ReduceMin
// returning it). The simulator lets a NaN beat every number, the first NaN beating later ones,
// so a NaN lane's value (and index) is the result. `max` selects the comparison.
template <typename T>
inline bool ExtremeBetter(bool max, T v, T best) {
    const Acc<T> a = static_cast<Acc<T>>(v);
    const Acc<T> b = static_cast<Acc<T>>(best);
    if constexpr (std::is_floating_point_v<Acc<T>>) {
        if (std::isnan(b)) return false;
        if (std::isnan(a)) return true;
    }
    return max ? a > b : a < b;
}

// Integer lanes wrap around on overflow (the truncation mode: an integer result keeps its low
// bits, CTRL[53] = 0 in the reference's SetCtrlSpr); computed in uint64_t, so that no C++ signed
// overflow happens. Float lanes compute as they are.
template <typename A, typename B, typename Op>
inline A Wrap(A a, B b, Op op) {
    if constexpr (std::is_integral_v<A>) {
        return static_cast<A>(op(static_cast<uint64_t>(a), static_cast<uint64_t>(b)));
    } else {
        return op(a, b);
    }
}
// max(s, 0) as the Relu of AddRelu/SubRelu: NaN and -0.0 give +0.0 (also on four SSE lanes).
template <typename S>
inline S ReluOf(S s) {
    return s > S{} ? s : S{};
}

// The reductions and Div take half and float on the simulated SoCs (the reference's data type
// lists for the Atlas A2 and Atlas inference products).
template <typename T>
inline void CheckHalfOrFloat(const char* api) {
    if constexpr (!std::is_same_v<T, half> && !std::is_same_v<T, float>) {
        Fail(ErrorKind::Generic, api,
             std::string(TypeName<T>()) +
                 " is not supported on the simulated SoCs (the Ascend C reference lists half and float for " +
                 api + " on the Atlas A2 and Atlas inference products)");
    }
}

}  // namespace opgen_sim

namespace AscendC {

// Scalar bfloat16_t conversions (标量计算, "Cast（多类型转float）"; ToFloat is its former name
// and ToBfloat16 that of "Cast（float转bfloat16_t）", which kernels still call): bfloat16_t ->
// float is exact, float -> bfloat16_t rounds to nearest even.
inline float ToFloat(const bfloat16_t& v) { return static_cast<float>(v); }
inline float Cast(const bfloat16_t& v) { return static_cast<float>(v); }
inline bfloat16_t ToBfloat16(const float& v) { return bfloat16_t(v); }

enum class RoundMode : uint8_t {
    CAST_NONE = 0,
    CAST_RINT,
    CAST_FLOOR,
    CAST_CEIL,
    CAST_ROUND,
    CAST_TRUNC,
    CAST_ODD,
    CAST_HYBRID,
};

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };

enum class SELMODE : uint8_t {
    VSEL_CMPMASK_SPR = 0,
    VSEL_TENSOR_SCALAR_MODE,
    VSEL_TENSOR_TENSOR_MODE,
};

// ---- binary ------------------------------------------------------------------------------
// Each lane function is a functor whose F8 overload is compiled for AVX (IsWide, MapFloat8).
#ifdef OPGEN_SIM_SIMD_LANES
#define OPGEN_SIM_WIDE_OVERLOAD_2(EXPR)                                                         \
    static constexpr bool kWide = true;                                                         \
    static constexpr bool kWide16 = true;                                                       \
    __attribute__((target("avx"))) opgen_sim::F8 operator()(opgen_sim::F8 a, opgen_sim::F8 b) const { return EXPR; } \
    __attribute__((target("avx512f"))) opgen_sim::F16v operator()(opgen_sim::F16v a, opgen_sim::F16v b) const { return EXPR; }
#define OPGEN_SIM_WIDE_OVERLOAD_1(EXPR)                                                         \
    static constexpr bool kWide = true;                                                         \
    static constexpr bool kWide16 = true;                                                       \
    __attribute__((target("avx"))) opgen_sim::F8 operator()(opgen_sim::F8 a) const { return EXPR; } \
    __attribute__((target("avx512f"))) opgen_sim::F16v operator()(opgen_sim::F16v a) const { return EXPR; }
#else
#define OPGEN_SIM_WIDE_OVERLOAD_2(EXPR)
#define OPGEN_SIM_WIDE_OVERLOAD_1(EXPR)
#endif
// Div takes half and float only on the simulated SoCs (reference, Div, 数据类型); an integer
// Div is refused before any lane divides, so an integer division by zero cannot happen.
// AddRelu / SubRelu ("复合计算"): dst = max(src0 +/- src1, 0), on int16_t, half and float (the A2/A3
// products' list). The sum is a lane's own (int16_t wraps as Add does, half computes in float and
// rounds once: rounding keeps the sign, so relu before or after it is the same value); NaN gives 0.
template <typename T>
constexpr void CheckAddReluType() {
    static_assert(std::is_same_v<T, int16_t> || std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "AddRelu/SubRelu take int16_t, half or float on the Atlas A2/A3 products (documented)");
}
// WEXPR: EXPR on eight float lanes (plain float arithmetic: no Wrap, which is for integers);
// CHECK: the instruction's type check, before any lane (the mask/repeat forms run it too).
#define OPGEN_SIM_BINARY(NAME, EXPR, WEXPR, CHECK)                                              \
    struct OpgenSim##NAME##Lane {                                                               \
        template <typename A, typename B>                                                       \
        auto operator()(A a, B b) const { return EXPR; }                                        \
        OPGEN_SIM_WIDE_OVERLOAD_2(WEXPR)                                                        \
    };                                                                                          \
    template <typename T>                                                                       \
    OPGEN_SIM_API void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,              \
                     const LocalTensor<T>& src1, const int32_t& count) {                        \
        CHECK;                                                                                  \
        opgen_sim::Binary(#NAME, dst, src0, src1, count, opgen_sim::Vectorised(OpgenSim##NAME##Lane{})); \
    }
OPGEN_SIM_BINARY(Add, opgen_sim::Wrap(a, b, std::plus<>()), a + b, )
OPGEN_SIM_BINARY(Sub, opgen_sim::Wrap(a, b, std::minus<>()), a - b, )
OPGEN_SIM_BINARY(Mul, opgen_sim::Wrap(a, b, std::multiplies<>()), a * b, )
OPGEN_SIM_BINARY(Max, a > b ? a : b, a > b ? a : b, )
OPGEN_SIM_BINARY(Min, a < b ? a : b, a < b ? a : b, )
OPGEN_SIM_BINARY(Div, a / b, a / b, opgen_sim::CheckHalfOrFloat<T>("Div"))
OPGEN_SIM_BINARY(AddRelu, opgen_sim::ReluOf(opgen_sim::Wrap(a, b, std::plus<>())),
                 ((a + b) > decltype(a){}) ? (a + b) : decltype(a){}, CheckAddReluType<T>())
OPGEN_SIM_BINARY(SubRelu, opgen_sim::ReluOf(opgen_sim::Wrap(a, b, std::minus<>())),
                 ((a - b) > decltype(a){}) ? (a - b) : decltype(a){}, CheckAddReluType<T>())
#undef OPGEN_SIM_BINARY

}  // namespace AscendC

namespace opgen_sim {

// `dst = a + b`, `-`, `*`, `/`: the reference's whole-tensor form, whose count is dst's length
template <typename T, typename Op>
struct WholeTensorBinary {
    AscendC::LocalTensor<T> a, b;
    void Run(const AscendC::LocalTensor<T>& dst) const { Op::Run(dst, a, b, static_cast<int32_t>(dst.size_)); }
};

#define OPGEN_SIM_WHOLE_TENSOR_OP(NAME)                                                     \
    struct NAME##Op {                                                                        \
        template <typename T>                                                                \
        static void Run(const AscendC::LocalTensor<T>& d, const AscendC::LocalTensor<T>& a,  \
                        const AscendC::LocalTensor<T>& b, int32_t n) {                        \
            AscendC::NAME(d, a, b, n);                                                       \
        }                                                                                    \
    };
OPGEN_SIM_WHOLE_TENSOR_OP(Add)
OPGEN_SIM_WHOLE_TENSOR_OP(Sub)
OPGEN_SIM_WHOLE_TENSOR_OP(Mul)
OPGEN_SIM_WHOLE_TENSOR_OP(Div)
#undef OPGEN_SIM_WHOLE_TENSOR_OP

}  // namespace opgen_sim

namespace AscendC {

#define OPGEN_SIM_WHOLE_TENSOR_OPERATOR(NAME, SYMBOL)                                                  \
    template <typename T>                                                                             \
    inline opgen_sim::WholeTensorBinary<T, opgen_sim::NAME##Op> operator SYMBOL(const LocalTensor<T>& a, \
                                                                               const LocalTensor<T>& b) { \
        return {a, b};                                                                                \
    }
OPGEN_SIM_WHOLE_TENSOR_OPERATOR(Add, +)
OPGEN_SIM_WHOLE_TENSOR_OPERATOR(Sub, -)
OPGEN_SIM_WHOLE_TENSOR_OPERATOR(Mul, *)
OPGEN_SIM_WHOLE_TENSOR_OPERATOR(Div, /)
#undef OPGEN_SIM_WHOLE_TENSOR_OPERATOR

// ---- tensor-scalar -----------------------------------------------------------------------
#define OPGEN_SIM_SCALAR(NAME, EXPR, WEXPR)                                                    \
    template <typename S>                                                                      \
    struct OpgenSim##NAME##Lane {                                                              \
        S s;                                                                                   \
        template <typename A>                                                                  \
        auto operator()(A a) const { return EXPR; }                                            \
        OPGEN_SIM_WIDE_OVERLOAD_1(WEXPR)                                                       \
    };                                                                                         \
    template <typename T>                                                                      \
    OPGEN_SIM_API void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,              \
                     const typename opgen_sim::Id<T>::type& scalarValue, const int32_t& count) { \
        const opgen_sim::Acc<T> s = static_cast<opgen_sim::Acc<T>>(scalarValue);               \
        opgen_sim::Unary(#NAME, dst, src, count,                                               \
                         opgen_sim::Vectorised(OpgenSim##NAME##Lane<opgen_sim::Acc<T>>{s}));   \
    }
OPGEN_SIM_SCALAR(Adds, opgen_sim::Wrap(a, s, std::plus<>()), a + s)
OPGEN_SIM_SCALAR(Muls, opgen_sim::Wrap(a, s, std::multiplies<>()), a * s)
OPGEN_SIM_SCALAR(Maxs, a > s ? a : s, a > s ? a : s)
OPGEN_SIM_SCALAR(Mins, a < s ? a : s, a < s ? a : s)
OPGEN_SIM_SCALAR(LeakyRelu, a >= 0 ? a : a * s, a >= 0 ? a : a * s)
#undef OPGEN_SIM_SCALAR
#undef OPGEN_SIM_WIDE_OVERLOAD_1
#undef OPGEN_SIM_WIDE_OVERLOAD_2

// ---- unary -------------------------------------------------------------------------------
#define OPGEN_SIM_UNARY(NAME, EXPR)                                                     \
    template <typename T>                                                               \
    OPGEN_SIM_API void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,       \
                     const int32_t& count) {                                            \
        opgen_sim::Unary(#NAME, dst, src, count, [](auto a) {                           \
            using A = decltype(a);                                                      \
            return static_cast<A>(EXPR);                                                \
        });                                                                             \
    }
// Float and half lanes run four at a time (vector.h, "SIMD lanes"): VEXPR is EXPR on four lanes,
// the same IEEE operations (sqrtps is correctly rounded as sqrtf is; Ln calls libm for each lane
// in turn). The lane function is named (OpgenSim<NAME>Lane) so that the mask/repeat forms
// (vector_masked.h) run the same one.
#ifdef OPGEN_SIM_SIMD_LANES
#define OPGEN_SIM_UNARY_LANE(NAME, EXPR, VEXPR)                                         \
    struct OpgenSim##NAME##Lane {                                                       \
        template <typename A>                                                           \
        A operator()(A a) const {                                                       \
            if constexpr (std::is_same_v<A, opgen_sim::F4>) {                           \
                using opgen_sim::Sqrt4;                                                 \
                const A zero{};                                                         \
                const A one = zero + 1.0f;                                              \
                (void)zero, (void)one;                                                  \
                return static_cast<A>(VEXPR);                                           \
            } else {                                                                    \
                return static_cast<A>(EXPR);                                            \
            }                                                                           \
        }                                                                               \
    };
#else
#define OPGEN_SIM_UNARY_LANE(NAME, EXPR, VEXPR)                                         \
    struct OpgenSim##NAME##Lane {                                                       \
        template <typename A>                                                           \
        A operator()(A a) const { return static_cast<A>(EXPR); }                        \
    };
#endif
#define OPGEN_SIM_UNARY_VEC(NAME, EXPR, VEXPR)                                          \
    OPGEN_SIM_UNARY_LANE(NAME, EXPR, VEXPR)                                             \
    template <typename T>                                                               \
    OPGEN_SIM_API void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,       \
                     const int32_t& count) {                                            \
        opgen_sim::Unary(#NAME, dst, src, count, opgen_sim::Vectorised(OpgenSim##NAME##Lane{})); \
    }
// Exp: exp_lanes.h's float steps on SIMD lanes (ExpF, within 0.9 ulp; libm's expf past |x| = 87);
// half lanes in float, rounded once.
template <typename T>
OPGEN_SIM_API void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
    opgen_sim::Unary("Exp", dst, src, count, opgen_sim::Vectorised(opgen_sim::ExpLane{}));
}
// Ln: libm's logf for each lane in turn (float spans: one call an element in a plain loop, not
// four calls a four-lane vector; half lanes in float, rounded once).
struct OpgenSimLnLane {
    template <typename A>
    A operator()(A a) const {
#ifdef OPGEN_SIM_SIMD_LANES
        if constexpr (std::is_same_v<A, opgen_sim::F4>) {
            return opgen_sim::PerLane(a, [](float v) { return std::log(v); });
        } else
#endif
            return static_cast<A>(std::log(a));
    }
    static bool Span(float* d, const float* x, uint64_t n) {
        for (uint64_t i = 0; i < n; ++i) d[i] = std::log(x[i]);
        return true;
    }
};
template <typename T>
OPGEN_SIM_API void Ln(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
    opgen_sim::Unary("Ln", dst, src, count, opgen_sim::Vectorised(OpgenSimLnLane{}));
}
// `+ 0` turns -0.0 into +0.0: the hardware clears the sign bit, as fabs and numpy do.
OPGEN_SIM_UNARY_VEC(Abs, a < 0 ? -a : a + 0, opgen_sim::Abs4(a))
// Sqrt: sqrtps on four, eight or sixteen lanes, each correctly rounded as sqrtf is.
struct OpgenSimSqrtLane {
    template <typename A>
    A operator()(A a) const {
#ifdef OPGEN_SIM_SIMD_LANES
        if constexpr (std::is_same_v<A, opgen_sim::F4>) return opgen_sim::Sqrt4(a);
        else
#endif
            return static_cast<A>(std::sqrt(a));
    }
#ifdef OPGEN_SIM_SIMD_LANES
    static constexpr bool kWide = true;
    static constexpr bool kWide16 = true;
    __attribute__((target("avx"))) opgen_sim::F8 operator()(opgen_sim::F8 a) const {
        __m256 f;
        std::memcpy(&f, &a, sizeof f);
        f = _mm256_sqrt_ps(f);
        std::memcpy(&a, &f, sizeof a);
        return a;
    }
    __attribute__((target("avx512f"))) opgen_sim::F16v operator()(opgen_sim::F16v a) const {
        __m512 f;
        std::memcpy(&f, &a, sizeof f);
        f = _mm512_sqrt_ps(f);
        std::memcpy(&a, &f, sizeof a);
        return a;
    }
#endif
};
template <typename T>
OPGEN_SIM_API void Sqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
    opgen_sim::Unary("Sqrt", dst, src, count, opgen_sim::Vectorised(OpgenSimSqrtLane{}));
}
OPGEN_SIM_UNARY_VEC(Rsqrt, A(1) / std::sqrt(a), one / Sqrt4(a))
OPGEN_SIM_UNARY_VEC(Reciprocal, A(1) / a, one / a)
OPGEN_SIM_UNARY_VEC(Relu, a > 0 ? a : A(0), a > zero ? a : zero)
OPGEN_SIM_UNARY(Not, ~a)
#undef OPGEN_SIM_UNARY_VEC
#undef OPGEN_SIM_UNARY_LANE
#undef OPGEN_SIM_UNARY

// ---- Duplicate ---------------------------------------------------------------------------
template <typename T>
OPGEN_SIM_API void Duplicate(const LocalTensor<T>& dst, const typename opgen_sim::Id<T>::type& scalarValue,
                      const int32_t& count) {
    constexpr const char* api = "Duplicate";
    opgen_sim::CheckCount(count, api);
    opgen_sim::CheckOperand(dst, count, api, "dst");
    T* d = dst.ptr_;
    const T v = scalarValue;
    for (int32_t i = 0; i < count; ++i) d[i] = v;
    opgen_sim::CountVector<T>(static_cast<uint64_t>(count));
}

// ---- Cast --------------------------------------------------------------------------------
// Follows the Ascend C API reference: "Cast" (the pairs and RoundModes each product supports)
// and "精度转换" (precision conversion: how each mode rounds, and that an out-of-range value
// saturates by default). The saturation rules are those of "SetCtrlSpr" / "asc_set_ctrl"
// (CTRL[48] = 0, its reset value on the Atlas A2 products: an inf result of a conversion to
// half/bfloat16_t becomes +-MAX, a NaN result 0) and the "舍入模式与饱和模式" page: a float to
// integer conversion gives the type's extreme for an out-of-range or infinite value and 0 for
// NaN; integer to integer saturates. float results only have the non-saturating mode.
namespace cast_detail {
constexpr uint32_t Bit(RoundMode m) { return 1u << static_cast<uint32_t>(m); }
constexpr uint32_t kModesRFCRT = Bit(RoundMode::CAST_RINT) | Bit(RoundMode::CAST_FLOOR) |
                                 Bit(RoundMode::CAST_CEIL) | Bit(RoundMode::CAST_ROUND) |
                                 Bit(RoundMode::CAST_TRUNC);
constexpr uint32_t kModeNone = Bit(RoundMode::CAST_NONE);
constexpr uint32_t kAnyMode = 0xFFu;  // int32_t -> half: the mode is ignored (SetDeqScale)

template <typename A, typename B>
constexpr bool kSame = std::is_same_v<A, B>;

// The RoundModes the reference allows from S to D on the Atlas A2 products (Cast, "Atlas A2
// 训练系列产品/Atlas A2 推理系列产品支持的数据类型组合情况"); 0: the pair does not exist.
template <typename D, typename S>
constexpr uint32_t AllowedModes() {
    if constexpr ((kSame<S, int8_t> || kSame<S, uint8_t>) && kSame<D, half>) return kModeNone;
    else if constexpr (kSame<S, int16_t> && kSame<D, half>) return kModesRFCRT | kModeNone;
    else if constexpr (kSame<S, int16_t> && kSame<D, float>) return kModeNone;
    else if constexpr (kSame<S, half> && (kSame<D, int8_t> || kSame<D, uint8_t>)) return kModesRFCRT | kModeNone;
    else if constexpr (kSame<S, half> && (kSame<D, int16_t> || kSame<D, int32_t>)) return kModesRFCRT;
    else if constexpr (kSame<S, half> && kSame<D, float>) return kModeNone;
    else if constexpr (kSame<S, bfloat16_t> && kSame<D, int32_t>) return kModesRFCRT;
    else if constexpr (kSame<S, bfloat16_t> && kSame<D, float>) return kModeNone;
    else if constexpr (kSame<S, int32_t> && (kSame<D, int16_t> || kSame<D, int64_t>)) return kModeNone;
    else if constexpr (kSame<S, int32_t> && kSame<D, half>) return kAnyMode;
    else if constexpr (kSame<S, int32_t> && kSame<D, float>) return kModesRFCRT | kModeNone;
    else if constexpr (kSame<S, float> && kSame<D, half>) return kModesRFCRT | kModeNone | Bit(RoundMode::CAST_ODD);
    else if constexpr (kSame<S, float> && (kSame<D, int16_t> || kSame<D, int32_t> || kSame<D, int64_t> ||
                                           kSame<D, bfloat16_t> || kSame<D, float>)) return kModesRFCRT;
    else if constexpr (kSame<S, int64_t> && kSame<D, int32_t>) return kModeNone;
    else if constexpr (kSame<S, int64_t> && kSame<D, float>) return kModesRFCRT;
    else return 0;
}

inline const char* ModeName(RoundMode m) {
    static const char* const names[] = {"CAST_NONE",  "CAST_RINT", "CAST_FLOOR", "CAST_CEIL",
                                        "CAST_ROUND", "CAST_TRUNC", "CAST_ODD",  "CAST_HYBRID"};
    const uint32_t i = static_cast<uint32_t>(m);
    return i < 8 ? names[i] : "RoundMode(?)";
}

// The SoC a core simulates, told apart by its Unified Buffer (runtime/opgen_runtime/soc.py).
inline bool Is310P() { return opgen_sim::CurrentCore().ub_capacity == 256u * 1024u; }

template <typename D, typename S>
inline void CheckPair(RoundMode mode) {
    constexpr uint32_t allowed = AllowedModes<D, S>();
    // bfloat16_t does not exist on the Atlas inference products (Cast's table for them has none).
    const bool bf16 = kSame<S, bfloat16_t> || kSame<D, bfloat16_t>;
    if (__builtin_expect(allowed != 0 && !(bf16 && Is310P()) && (allowed & Bit(mode)) != 0, 1)) return;
    const std::string pair = std::string("from ") + opgen_sim::TypeName<S>() + " to " + opgen_sim::TypeName<D>();
    if (allowed == 0 || (bf16 && Is310P())) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "Cast",
                        "no conversion " + pair + " on " + (Is310P() ? "ascend310p" : "ascend910b") +
                            " (the Ascend C reference, Cast, lists the supported pairs)");
    }
    if ((allowed & Bit(mode)) == 0) {
        std::string ok;
        for (uint32_t m = 0; m < 8; ++m) {
            if (allowed & (1u << m)) ok += std::string(ok.empty() ? "" : ", ") + ModeName(static_cast<RoundMode>(m));
        }
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "Cast",
                        std::string(ModeName(mode)) + " is not supported " + pair + " (supported: " + ok + ")");
    }
}

// A finite value as (-1)^neg * mag * 2^exp, exactly.
struct Exact {
    bool neg = false;
    uint64_t mag = 0;
    int exp = 0;
};

template <typename S>
inline Exact Decompose(S s) {
    Exact x;
    if constexpr (std::is_integral_v<S>) {
        x.neg = s < 0;
        x.mag = x.neg ? uint64_t{0} - static_cast<uint64_t>(s) : static_cast<uint64_t>(s);
    } else {
        const double d = static_cast<double>(static_cast<float>(s));
        int e = 0;
        const double f = std::frexp(std::fabs(d), &e);  // |d| = f * 2^e, f in [0.5, 1)
        x.neg = std::signbit(d);
        x.mag = static_cast<uint64_t>(std::ldexp(f, 53));
        x.exp = e - 53;
    }
    return x;
}

inline int BitLength(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

// Rounds |x| to a multiple of 2^q in `mode`, deciding on the discarded bits as the reference's
// table 1 of "精度转换" does (the modes act on the magnitude and look at the sign), and returns
// the signed result (a double holds it exactly for every pair: at most 64 significant bits are
// kept only when nothing is discarded, and then the value is the source's own).
inline double RoundAt(const Exact& x, int q, RoundMode mode) {
    const double sign = x.neg ? -1.0 : 1.0;
    if (x.mag == 0) return std::copysign(0.0, sign);
    if (x.exp >= q) return sign * std::ldexp(static_cast<double>(x.mag), x.exp);  // nothing discarded
    const int shift = q - x.exp;
    const uint64_t kept = shift >= 64 ? 0 : x.mag >> shift;
    const bool round_bit = shift - 1 < 64 && ((x.mag >> (shift - 1)) & 1u) != 0;
    const bool sticky = shift - 1 >= 64 ? x.mag != 0 : (x.mag & ((uint64_t{1} << (shift - 1)) - 1)) != 0;
    const bool inexact = round_bit || sticky;
    bool up = false;
    switch (mode) {
        case RoundMode::CAST_ROUND: up = round_bit; break;                     // half away from 0
        case RoundMode::CAST_TRUNC: up = false; break;                          // toward 0
        case RoundMode::CAST_FLOOR: up = x.neg && inexact; break;               // toward -inf
        case RoundMode::CAST_CEIL: up = !x.neg && inexact; break;               // toward +inf
        case RoundMode::CAST_ODD: up = inexact && (kept & 1u) == 0; break;      // sticky to odd
        default: up = round_bit && (sticky || (kept & 1u) != 0); break;         // RINT/NONE
    }
    return sign * std::ldexp(static_cast<double>(kept + (up ? 1u : 0u)), q);
}

// Binary formats a float result can take: significant bits and the smallest normal exponent.
template <typename D>
struct FloatFormat;
template <>
struct FloatFormat<half> {
    static constexpr int kBits = 11, kMinExp = -14;
    static constexpr double kMax = 65504.0;
};
template <>
struct FloatFormat<bfloat16_t> {
    static constexpr int kBits = 8, kMinExp = -126;
    static constexpr double kMax = 3.3895313892515355e38;  // 0x7F7F
};
template <>
struct FloatFormat<float> {
    static constexpr int kBits = 24, kMinExp = -126;
    static constexpr double kMax = 3.4028234663852886e38;
};

// To a float type: the nearest representable values bracket the source, the mode picks one.
// float -> float rounds to an integral value ("精度转换", float -> float: 0.5 CAST_CEIL gives 1.0).
template <typename D, typename S>
inline D ToFloat(S s, RoundMode mode) {
    using F = FloatFormat<D>;
    constexpr bool saturating = !kSame<D, float>;  // CTRL[48] covers half and bfloat16_t results
    if constexpr (!std::is_integral_v<S>) {
        const float v = static_cast<float>(s);
        if (std::isnan(v)) return saturating ? D(0.0f) : static_cast<D>(v);
        if (std::isinf(v)) return saturating ? static_cast<D>(static_cast<float>(std::copysign(F::kMax, v))) : static_cast<D>(v);
    }
    const Exact x = Decompose(s);
    int q;
    if constexpr (kSame<D, float> && kSame<S, float>) {
        q = 0;
    } else {
        const int top = BitLength(x.mag) - 1 + x.exp;  // floor(log2|x|)
        q = std::max(top, F::kMinExp) - (F::kBits - 1);
    }
    const double r = RoundAt(x, q, mode);
    if (std::fabs(r) > F::kMax) {  // overflow saturates to +-MAX ("精度转换": 饱和模式 by default)
        return static_cast<D>(static_cast<float>(std::copysign(F::kMax, r)));
    }
    return static_cast<D>(static_cast<float>(r));
}

// To an integer type: round to an integral value, then saturate; NaN gives 0 and +-inf the
// type's extremes ("舍入模式与饱和模式", 浮点转整型).
template <typename D, typename S>
inline D ToInteger(S s, RoundMode mode) {
    constexpr D lo = std::numeric_limits<D>::min();
    constexpr D hi = std::numeric_limits<D>::max();
    if constexpr (std::is_integral_v<S>) {
        // integer to integer saturates ("精度转换": int32_t -> int16_t gives 2^15 - 1 for 2^31 - 1;
        // a negative value into an unsigned type, which the reference calls abnormal, gives 0)
        if constexpr (std::is_signed_v<S>) {
            const int64_t v = s;
            if (v < static_cast<int64_t>(lo)) return lo;
            if (v > 0 && static_cast<uint64_t>(v) > static_cast<uint64_t>(hi)) return hi;
            return static_cast<D>(v);
        } else {
            const uint64_t v = s;
            return v > static_cast<uint64_t>(hi) ? hi : static_cast<D>(v);
        }
    } else {
        const float v = static_cast<float>(s);
        if (std::isnan(v)) return D(0);
        if (std::isinf(v)) return v > 0 ? hi : lo;
        const double r = RoundAt(Decompose(s), 0, mode);
        if (r <= static_cast<double>(lo)) return lo;
        if (r >= static_cast<double>(hi)) return hi;  // 2^63 for int64_t: the double compare is exact
        return static_cast<D>(r);
    }
}

template <typename D, typename S>
inline D Convert(S s, RoundMode mode) {
    if constexpr (std::is_integral_v<D>) {
        return ToInteger<D>(s, mode);
    } else {
        return ToFloat<D>(s, mode);
    }
}

// int32_t -> half ("SetDeqScale", s322fp16): src * scale, the exact product (at most 31 + 11
// significant bits) rounded once to half, to nearest even, saturating as other half results.
inline half Dequantize(int32_t s, float scale) {
    using F = FloatFormat<half>;
    if (std::isnan(scale) || std::isinf(scale)) return ToFloat<half>(static_cast<float>(s) * scale, RoundMode::CAST_RINT);
    Exact k = Decompose(scale);
    if (k.mag != 0) {
        const int tz = __builtin_ctzll(k.mag);
        k.mag >>= tz;
        k.exp += tz;
    }
    Exact x;
    x.neg = (s < 0) != k.neg;
    x.mag = (s < 0 ? uint64_t{0} - static_cast<uint64_t>(static_cast<int64_t>(s)) : static_cast<uint64_t>(s)) * k.mag;
    x.exp = k.exp;
    if (x.mag == 0) return static_cast<half>(x.neg ? -0.0f : 0.0f);
    const int top = BitLength(x.mag) - 1 + x.exp;
    const double r = RoundAt(x, std::max(top, F::kMinExp) - (F::kBits - 1), RoundMode::CAST_RINT);
    if (std::fabs(r) > F::kMax) return static_cast<half>(static_cast<float>(std::copysign(F::kMax, r)));
    return static_cast<half>(static_cast<float>(r));
}

// Direct conversions of the common pairs on SSE lanes, bit-identical to Convert: the hardware
// conversions (cvtps2ph, cvtps2dq, cvtdq2ps, at the default MXCSR rounding, to nearest even) round
// as RoundAt does, and a fix-up pass applies the saturation rules (an inf half result, from an
// overflow or an inf source, becomes +-MAX and a NaN 0; cvtps2dq's 0x80000000 for an out-of-range
// or NaN source becomes INT32_MAX for a positive one and 0 for a NaN). Tails, the other modes
// and a dst that partly overlaps src keep the exact per-element path. Returns the elements done.
#ifdef OPGEN_SIM_SIMD_LANES
inline void SaturateHalf8(__m128i& h) {
    const __m128i mag = _mm_and_si128(h, _mm_set1_epi16(0x7FFF));
    const __m128i inf = _mm_cmpeq_epi16(mag, _mm_set1_epi16(0x7C00));
    const __m128i nan = _mm_cmpgt_epi16(mag, _mm_set1_epi16(0x7C00));
    h = _mm_sub_epi16(h, _mm_and_si128(inf, _mm_set1_epi16(1)));  // 0x7C00 -> 0x7BFF, sign kept
    h = _mm_andnot_si128(nan, h);
}

template <bool kTrunc>
inline __m128i FloatToInt4(__m128 f) {
    __m128i r = kTrunc ? _mm_cvttps_epi32(f) : _mm_cvtps_epi32(f);
    const __m128i bad = _mm_cmpeq_epi32(r, _mm_set1_epi32(INT32_MIN));
    if (_mm_movemask_epi8(bad) != 0) {
        const __m128i pos = _mm_castps_si128(_mm_cmpgt_ps(f, _mm_setzero_ps()));
        const __m128i nan = _mm_castps_si128(_mm_cmpunord_ps(f, f));
        r = _mm_sub_epi32(r, _mm_and_si128(_mm_and_si128(bad, pos), _mm_set1_epi32(1)));  // -> INT32_MAX
        r = _mm_andnot_si128(_mm_and_si128(bad, nan), r);
    }
    return r;
}

#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// The first n rounded down to sixteen of FloatToHalfLanes and HalfToFloatLanes with AVX-512F:
// the same conversions; returns how many. Float to half saturates before converting instead of
// fixing the result up: a NaN lane is zeroed (the fix-up's 0) and the others are clamped to
// [-MAX, MAX], which changes no result (a value within MAX's rounding range, below 65520, rounds
// to +-MAX to nearest even anyway; one from 65520 up, inf included, would round to inf, which the
// fix-up makes +-MAX; -0.0 stays -0.0), in four float operations a vector instead of seven on the
// halves. Half to float is cvtph2ps, exact, stopping before a group holding a NaN, which the
// narrower loops then take.
__attribute__((target("avx512f,avx2,f16c"))) inline uint64_t FloatToHalf16(half* d, const float* s,
                                                                          uint64_t n) {
    const __m512 hi = _mm512_set1_ps(65504.0f), lo = _mm512_set1_ps(-65504.0f);
    uint64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 x = _mm512_loadu_ps(s + i);
        const __mmask16 number = _mm512_cmp_ps_mask(x, x, _CMP_ORD_Q);
        // (min_ps returns its second operand for a NaN: hi, which the zero mask then drops)
        const __m512 c = _mm512_maskz_max_ps(number, _mm512_min_ps(x, hi), lo);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i),
                            _mm512_cvtps_ph(c, _MM_FROUND_TO_NEAREST_INT));
    }
    return i;
}
__attribute__((target("avx512f,avx2,f16c"))) inline uint64_t HalfToFloat16(float* d, const half* s,
                                                                          uint64_t n) {
    uint64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 f = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
        if (_mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q) != 0) break;
        _mm512_storeu_ps(d + i, f);
    }
    return i;
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// (F16C's eight-lane forms are VEX-encoded with 256-bit sources: the f16c target implies AVX.)
__attribute__((target("f16c"))) inline uint64_t FloatToHalfLanes(half* d, const float* s, uint64_t n) {
    uint64_t i = opgen_sim::HasAvx512f() ? FloatToHalf16(d, s, n) : 0;
    for (; i + 16 <= n; i += 16) {
        __m128i h0 = _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT);
        __m128i h1 = _mm256_cvtps_ph(_mm256_loadu_ps(s + i + 8), _MM_FROUND_TO_NEAREST_INT);
        SaturateHalf8(h0);
        SaturateHalf8(h1);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), h0);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 8), h1);
    }
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT);
        SaturateHalf8(h);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), h);
    }
    return i;
}

__attribute__((target("f16c"))) inline __m128 HalfToFloat4(const half* s) {
    return _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s)));
}

// half -> float is exact; a NaN keeps its payload quieted, as the scalar conversion does, but
// such a group of four is left to it all the same.
__attribute__((target("f16c"))) inline uint64_t HalfToFloatLanes(float* d, const half* s, uint64_t n) {
    uint64_t i = opgen_sim::HasAvx512f() ? HalfToFloat16(d, s, n) : 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
        if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)) != 0) break;  // four at a time below
        _mm256_storeu_ps(d + i, f);
    }
    for (; i + 4 <= n; i += 4) {
        const __m128 f = HalfToFloat4(s + i);
        if (_mm_movemask_ps(_mm_cmpunord_ps(f, f)) != 0) break;
        _mm_storeu_ps(d + i, f);
    }
    return i;
}

template <typename S>
__attribute__((target("f16c"))) inline uint64_t ToInt32Lanes(int32_t* d, const S* s, uint64_t n, bool trunc) {
    uint64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128 f;
        if constexpr (std::is_same_v<S, half>) {
            f = HalfToFloat4(s + i);
        } else {
            f = _mm_loadu_ps(s + i);
        }
        const __m128i r = trunc ? FloatToInt4<true>(f) : FloatToInt4<false>(f);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), r);
    }
    return i;
}

template <typename D, typename S>
inline uint64_t FastConvert(D* d, const S* s, uint64_t n, RoundMode mode) {
    const uint64_t db = n * sizeof(D), sb = n * sizeof(S);
    // Overlapping operands: the lane loops below and the scalar loop after them go front to
    // back, each group read before it is written, so they read every source element before any
    // write reaches it when the source starts at or after dst and the written part never
    // overtakes the unread part: d + sizeof(D) * k <= s + sizeof(S) * k for every k <= n. That
    // holds narrowing or at the same width from the same start or after it, and widening when
    // the source lies far enough up (ops-nn's layer_norm_v4 loads half data into the upper half
    // of its float tile and widens it in place, `Cast(x, x.ReinterpretCast<half>()[n], ...)`).
    // Then the lanes give what the scalar loop gives; otherwise the scalar loop runs alone.
    const auto* d8 = reinterpret_cast<const uint8_t*>(d);
    const auto* s8 = reinterpret_cast<const uint8_t*>(s);
    if (opgen_sim::Overlaps(d8, db, s8, sb) &&
        (s8 < d8 || (sizeof(D) > sizeof(S) &&
                     static_cast<uint64_t>(s8 - d8) < (sizeof(D) - sizeof(S)) * n))) {
        return 0;
    }
    if ((_mm_getcsr() & 0x6000u) != 0) return 0;  // MXCSR not rounding to nearest
    if constexpr (kSame<S, float> && kSame<D, half>) {
        if (mode == RoundMode::CAST_RINT && opgen_sim::HasF16c()) return FloatToHalfLanes(d, s, n);
    } else if constexpr (kSame<S, half> && kSame<D, float>) {
        if (opgen_sim::HasF16c()) return HalfToFloatLanes(d, s, n);
    } else if constexpr (kSame<S, int32_t> && kSame<D, float>) {
        if (mode == RoundMode::CAST_RINT) {
            uint64_t i = 0;
            for (; i + 4 <= n; i += 4) {
                _mm_storeu_ps(d + i, _mm_cvtepi32_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i))));
            }
            return i;
        }
    } else if constexpr (kSame<D, int32_t> && (kSame<S, float> || kSame<S, half>)) {
        if (mode != RoundMode::CAST_RINT && mode != RoundMode::CAST_TRUNC) return 0;
        if (kSame<S, half> && !opgen_sim::HasF16c()) return 0;
        return ToInt32Lanes(d, s, n, mode == RoundMode::CAST_TRUNC);
    }
    (void)d, (void)s, (void)n, (void)mode;
    return 0;
}
#else
template <typename D, typename S>
inline uint64_t FastConvert(D*, const S*, uint64_t, RoundMode) { return 0; }
#endif

// n elements of s converted into d with `mode` (already resolved from CAST_NONE); not the
// dequantising int32_t -> half.
template <typename T1, typename T2>
inline void ConvertRange(T1* d, const T2* s, uint64_t n, RoundMode mode) {
    const uint64_t done = FastConvert(d, s, n, mode);
    for (uint64_t i = done; i < n; ++i) d[i] = Convert<T1>(s[i], mode);
}

// A recorded Cast's step (opgen_sim/deferred.h, DeferCast): the round mode in fn.
template <typename T1, typename T2>
inline void RunCastStep(const opgen_sim::Step& step, uint8_t* d, const uint8_t* x, uint64_t,
                        uint64_t n) {
    RoundMode mode;
    std::memcpy(&mode, step.fn, sizeof(mode));
    ConvertRange(reinterpret_cast<T1*>(d), reinterpret_cast<const T2*>(x), n, mode);
}
}  // namespace cast_detail

// int32_t -> half runs the reference's dequantisation (the mode is ignored; the result is
// src * scale with the scale SetDeqScale gives, 1 before any: cast_more.h), rounding to nearest
// even and saturating.
template <typename T1, typename T2>
OPGEN_SIM_API void Cast(const LocalTensor<T1>& dst, const LocalTensor<T2>& src, const RoundMode& round_mode,
                 const uint32_t count) {
    constexpr const char* api = "Cast";
    cast_detail::CheckPair<T1, T2>(round_mode);
    opgen_sim::Core& core = opgen_sim::CurrentCore();
    opgen_sim::Core* c = &core;
    opgen_sim::CheckOperandLive(c, dst, count, api, "dst");
    opgen_sim::CheckOperandLive(c, src, count, api, "src");
    if constexpr (sizeof(T1) >= sizeof(T2)) {
        opgen_sim::CountVector<T1>(core, count, __builtin_FUNCTION());
    } else {
        opgen_sim::CountVector<T2>(core, count, __builtin_FUNCTION());
    }
    RoundMode mode = round_mode;
    if (mode == RoundMode::CAST_NONE || cast_detail::AllowedModes<T1, T2>() == cast_detail::kAnyMode) {
        mode = RoundMode::CAST_RINT;  // CAST_NONE: RINT where the conversion loses precision
    }
    if constexpr (std::is_same_v<T2, int32_t> && std::is_same_v<T1, half>) {
        dst.Check(api, c);  // dst's pending work applied before it is written
        const T2* s = opgen_sim::LazySource(c, src.ptr_, count);
        const float scale = core.deq_scale;  // at issue: never recorded
        for (uint32_t i = 0; i < count; ++i) dst.ptr_[i] = cast_detail::Dequantize(s[i], scale);
    } else {
        // a source still to be copied in from GM, or a recorded program of T2, makes the Cast the
        // program's last step (deferred.h); a DataCopy to GM of dst then converts straight there
        if (count > 0 && c != nullptr && c->npending != 0 &&  // (nothing recorded: DeferCast refuses)
            opgen_sim::DeferCast(c, reinterpret_cast<uint8_t*>(dst.ptr_), static_cast<uint64_t>(count) * sizeof(T1),
                                 sizeof(T1), opgen_sim::TypeTag<T1>(),
                                 reinterpret_cast<const uint8_t*>(src.ptr_), sizeof(T2), opgen_sim::TypeTag<T2>(),
                                 &cast_detail::RunCastStep<T1, T2>, &mode, sizeof(mode))) {
            return;
        }
        dst.Check(api, c);
        // read from GM while src is still a pending copy from there (as the element-wise
        // instructions read it: deferred.h), after dst's pending work was applied
        const T2* s = opgen_sim::LazySource(c, src.ptr_, count);
        cast_detail::ConvertRange(dst.ptr_, s, count, mode);
    }
}

// ---- Compare / Select --------------------------------------------------------------------
namespace cmp_detail {
template <typename T>
inline bool Apply(CMPMODE m, T a, T b) {
    switch (m) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}
template <typename T>
inline void CheckRepeatFill(uint32_t count, const char* api) {
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    if (bytes % opgen_sim::kRepeatBytes != 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::VectorCount, api,
                        "count " + std::to_string(count) + " x " + opgen_sim::TypeName<T>() +
                            " = " + std::to_string(bytes) +
                            " bytes does not fill whole 256-byte repeats; Compare needs count to "
                            "be a multiple of " +
                            std::to_string(opgen_sim::kRepeatBytes / sizeof(T)) + " for " +
                            opgen_sim::TypeName<T>());
    }
}
template <typename U>
inline void CheckMask(const LocalTensor<U>& m, uint32_t count, const char* api) {
    opgen_sim::CheckUbAligned(m, api, "mask");
    if ((count + 7) / 8 > static_cast<uint64_t>(m.size_) * sizeof(U)) {
        opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                        "the bit mask of " + std::to_string(count) + " elements needs " +
                            std::to_string((count + 7) / 8) + " bytes but the mask tensor has " +
                            std::to_string(static_cast<uint64_t>(m.size_) * sizeof(U)));
    }
}
template <typename T, typename U, typename F>
inline void WriteMask(const LocalTensor<U>& dst, uint32_t count, F pred) {
    uint8_t* bits = reinterpret_cast<uint8_t*>(dst.ptr_);
    for (uint32_t i = 0; i < count; i += 8) {
        uint8_t byte = 0;
        for (uint32_t k = 0; k < 8 && i + k < count; ++k) byte |= static_cast<uint8_t>(pred(i + k)) << k;
        bits[i / 8] = byte;
    }
}

// Float and half comparisons eight lanes at a time into one mask byte (cmpps: LT/GT/LE/GE/EQ are
// ordered and NE unordered, false and true for a NaN as the C++ operators). b == nullptr
// compares with the scalar s. False: the scalar loop is used.
#ifdef OPGEN_SIM_SIMD_LANES
template <typename T>
__attribute__((target("f16c"))) inline __m128 LoadAsFloat(const T* p) {
    if constexpr (std::is_same_v<T, half>) {
        return _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    } else {
        return _mm_loadu_ps(p);
    }
}
template <typename T, typename Op>
__attribute__((target("f16c"))) inline void CompareBytes(uint8_t* bits, const T* a, const T* b, float s,
                                                       uint32_t count, Op op) {
    const __m128 sv = _mm_set1_ps(s);
    for (uint32_t i = 0; i < count; i += 8) {
        const __m128 lo = op(LoadAsFloat(a + i), b ? LoadAsFloat(b + i) : sv);
        const __m128 hi = op(LoadAsFloat(a + i + 4), b ? LoadAsFloat(b + i + 4) : sv);
        bits[i / 8] = static_cast<uint8_t>(_mm_movemask_ps(lo) | (_mm_movemask_ps(hi) << 4));
    }
}
template <typename T>
inline bool CompareLanes(uint8_t* bits, const T* a, const T* b, float s, CMPMODE m, uint32_t count) {
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, float>) {
        if (count % 8 != 0 || !opgen_sim::HasF16c()) return false;
        switch (m) {
            case CMPMODE::LT: CompareBytes(bits, a, b, s, count, [](__m128 x, __m128 y) { return _mm_cmplt_ps(x, y); }); break;
            case CMPMODE::GT: CompareBytes(bits, a, b, s, count, [](__m128 x, __m128 y) { return _mm_cmpgt_ps(x, y); }); break;
            case CMPMODE::EQ: CompareBytes(bits, a, b, s, count, [](__m128 x, __m128 y) { return _mm_cmpeq_ps(x, y); }); break;
            case CMPMODE::LE: CompareBytes(bits, a, b, s, count, [](__m128 x, __m128 y) { return _mm_cmple_ps(x, y); }); break;
            case CMPMODE::GE: CompareBytes(bits, a, b, s, count, [](__m128 x, __m128 y) { return _mm_cmpge_ps(x, y); }); break;
            default: CompareBytes(bits, a, b, s, count, [](__m128 x, __m128 y) { return _mm_cmpneq_ps(x, y); }); break;
        }
        return true;
    }
    (void)bits, (void)a, (void)b, (void)s, (void)m, (void)count;
    return false;
}
#else
template <typename T>
inline bool CompareLanes(uint8_t*, const T*, const T*, float, CMPMODE, uint32_t) { return false; }
#endif
}  // namespace cmp_detail

template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                    CMPMODE cmpMode, uint32_t count) {
    constexpr const char* api = "Compare";
    cmp_detail::CheckRepeatFill<T>(count, api);
    opgen_sim::CheckOperand(src0, count, api, "src0");
    opgen_sim::CheckOperand(src1, count, api, "src1");
    cmp_detail::CheckMask(dst, count, api);
    const T* a = src0.ptr_;
    const T* b = src1.ptr_;
    if (cmp_detail::CompareLanes(reinterpret_cast<uint8_t*>(dst.ptr_), a, b, 0.0f, cmpMode, count)) {
        opgen_sim::CountVector<T>(count);
        return;
    }
    cmp_detail::WriteMask<T>(dst, count, [&](uint32_t i) {
        return cmp_detail::Apply(cmpMode, static_cast<opgen_sim::Acc<T>>(a[i]),
                                 static_cast<opgen_sim::Acc<T>>(b[i]));
    });
    opgen_sim::CountVector<T>(count);
}

template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                          const typename opgen_sim::Id<T>::type src1Scalar, CMPMODE cmpMode,
                          uint32_t count) {
    constexpr const char* api = "CompareScalar";
    cmp_detail::CheckRepeatFill<T>(count, api);
    opgen_sim::CheckOperand(src0, count, api, "src0");
    cmp_detail::CheckMask(dst, count, api);
    const T* a = src0.ptr_;
    const opgen_sim::Acc<T> s = static_cast<opgen_sim::Acc<T>>(src1Scalar);
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, float>) {
        if (cmp_detail::CompareLanes(reinterpret_cast<uint8_t*>(dst.ptr_), a, static_cast<const T*>(nullptr),
                                     static_cast<float>(s), cmpMode, count)) {
            opgen_sim::CountVector<T>(count);
            return;
        }
    }
    cmp_detail::WriteMask<T>(dst, count, [&](uint32_t i) {
        return cmp_detail::Apply(cmpMode, static_cast<opgen_sim::Acc<T>>(a[i]), s);
    });
    opgen_sim::CountVector<T>(count);
}

// Select: compare_select.h (all SELMODEs, count and mask/repeat forms).

// ---- ReduceSum / ReduceMax / ReduceMin ---------------------------------------------------
namespace reduce_detail {
// Elements of T the work buffer (sharedTmpBuffer) must hold: one partial result per 256-byte
// repeat (value and index for max/min), rounded up to a 32-byte block.
template <typename T>
inline uint64_t WorkElements(int32_t count, bool with_index) {
    const uint64_t per_repeat = opgen_sim::kRepeatBytes / sizeof(T);
    const uint64_t per_block = opgen_sim::kBlockBytes / sizeof(T);
    const uint64_t repeats = (static_cast<uint64_t>(count) + per_repeat - 1) / per_repeat;
    return std::max<uint64_t>(per_block, opgen_sim::RoundUp(repeats * (with_index ? 2 : 1), per_block));
}
[[noreturn]] OPGEN_SIM_OUTLINE void FailDstAlign(uint64_t ub_offset, uint64_t align, const char* api)
#if OPGEN_SIM_OUTLINE_BODIES
{
    opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                    "dst LocalTensor starts at UB offset " + opgen_sim::Str(ub_offset) + ", which is not " +
                        opgen_sim::Str(align) + "-byte aligned");
}
#else
;
#endif
[[noreturn]] OPGEN_SIM_OUTLINE void FailDstCount(bool with_index, uint64_t size, const char* type_name,
                                                 const char* api)
#if OPGEN_SIM_OUTLINE_BODIES
{
    opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                    std::string("dst: count ") + (with_index ? "2" : "1") + " exceeds the LocalTensor<" +
                        type_name + "> of " + opgen_sim::Str(size) + " elements");
}
#else
;
#endif
[[noreturn]] OPGEN_SIM_OUTLINE void FailWork(uint64_t size, int32_t count, uint64_t need, const char* type_name,
                                             const char* api)
#if OPGEN_SIM_OUTLINE_BODIES
{
    opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                    "sharedTmpBuffer holds " + opgen_sim::Str(size) + " elements, " + std::string(api) + " of " +
                        std::to_string(count) + " x " + type_name + " needs at least " + opgen_sim::Str(need));
}
#else
;
#endif
template <typename T>
inline void Check(opgen_sim::Core* c, const char* api, const LocalTensor<T>& dst,
                  const LocalTensor<T>& src, const LocalTensor<T>& work, int32_t count,
                  bool with_index, bool work_used = true) {
    opgen_sim::CheckCount(count, api);
    if (count == 0) opgen_sim::Fail(opgen_sim::ErrorKind::VectorCount, api, "count must be > 0");
    // src is read through LazySource (Source) after the other operands' checks
    opgen_sim::CheckOperandLive(c, src, count, api, "src");
    // The destination of a reduction needs only its result's alignment, not 32 bytes (Ascend C
    // reference, ReduceRepeat table 3: SUM half 2 bytes, float 4; MAX/MIN with the index twice
    // the element size).
    dst.Check(api, c);
    const uint64_t dst_align = sizeof(T) * (with_index ? 2 : 1);
    if (dst.UbOffset(c) % dst_align != 0) FailDstAlign(dst.UbOffset(c), dst_align, api);
    if ((with_index ? 2u : 1u) > dst.size_) FailDstCount(with_index, dst.size_, opgen_sim::TypeName<T>(), api);
    opgen_sim::CheckUbAlignedOn(c, work, api, "sharedTmpBuffer");
    if (!work_used) return;  // ReduceSum's count form on the Atlas A2 (方式一): any size will do
    const uint64_t need = WorkElements<T>(count, with_index);
    if (work.size_ < need) FailWork(work.size_, count, need, opgen_sim::TypeName<T>(), api);
}
// The count elements of src as the reduction reads them: straight from GM while src is still a
// pending copy from there (as the element-wise instructions read it: deferred.h), else from UB
// with any pending work in it applied.
template <typename T>
inline const T* Source(opgen_sim::Core* c, const LocalTensor<T>& src, int32_t count) {
    return opgen_sim::LazySource(c, src.ptr_, static_cast<uint64_t>(count));
}
}  // namespace reduce_detail

namespace reduce_detail {
template <typename T>
inline bool RepeatSumLanes(const T*, T*) { return false; }
// One whole repeat's tree sum (TreeSum's order and roundings) on SSE lanes: each level adds
// adjacent pairs, four sums per step (even and odd lanes shuffled apart), down to four values,
// which TreeSum finishes. Half levels compute in float, saturate as ReduceAdd does (minps/maxps
// with the sum second keep a NaN) and round to half. False: the scalar tree is used.
#ifdef OPGEN_SIM_SIMD_LANES
inline __m128 PairSums(__m128 a, __m128 b) {
    return _mm_add_ps(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)), _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}
// The same tree on AVX's eight lanes: _mm256_hadd_ps adds lanes 2k and 2k+1 of each 128-bit half
// of its two operands, and the pairs it leaves adjacent after two levels are still true pairs
// ([s0+s1, s2+s3, s8+s9, s10+s11 | s4+s5, ...], then the sums of four in the order 0, 2, 4, 6 |
// 1, 3, 5, 7), so the third level adds the two halves and the fourth is PairSums. Every sum is
// the one TreeSum forms (the operands of an addition in either order give the same float). The
// four sums of sixteen are returned to SSE code (vzeroupper on the way out). Named registers, not
// an array: GCC moves an array of __m256 through the stack in 128-bit halves in a target("avx")
// function of an SSE unit, which made the tree 5x slower than the SSE one.
__attribute__((target("avx"))) inline __m128 RepeatSumLanesAvx(const float* s) {
    const __m256 v0 = _mm256_loadu_ps(s), v1 = _mm256_loadu_ps(s + 8);
    const __m256 v2 = _mm256_loadu_ps(s + 16), v3 = _mm256_loadu_ps(s + 24);
    const __m256 v4 = _mm256_loadu_ps(s + 32), v5 = _mm256_loadu_ps(s + 40);
    const __m256 v6 = _mm256_loadu_ps(s + 48), v7 = _mm256_loadu_ps(s + 56);
    const __m256 w0 = _mm256_hadd_ps(v0, v1), w1 = _mm256_hadd_ps(v2, v3);
    const __m256 w2 = _mm256_hadd_ps(v4, v5), w3 = _mm256_hadd_ps(v6, v7);
    const __m256 x0 = _mm256_hadd_ps(w0, w1), x1 = _mm256_hadd_ps(w2, w3);
    const __m128 a = _mm_add_ps(_mm256_castps256_ps128(x0), _mm256_extractf128_ps(x0, 1));
    const __m128 b = _mm_add_ps(_mm256_castps256_ps128(x1), _mm256_extractf128_ps(x1, 1));
    return PairSums(a, b);
}
inline bool RepeatSumLanes(const float* s, float* out) {
    if (opgen_sim::HasAvx()) {
        float lanes[4];
        _mm_storeu_ps(lanes, RepeatSumLanesAvx(s));
        *out = opgen_sim::TreeSum(lanes, 4);
        return true;
    }
    __m128 v[16];
    for (int k = 0; k < 16; ++k) v[k] = _mm_loadu_ps(s + 4 * k);
    for (int w = 16; w > 1; w /= 2) {
        for (int k = 0; k < w / 2; ++k) v[k] = PairSums(v[2 * k], v[2 * k + 1]);
    }
    float lanes[4];
    _mm_storeu_ps(lanes, v[0]);
    *out = opgen_sim::TreeSum(lanes, 4);
    return true;
}
__attribute__((target("f16c"))) inline bool RepeatSumHalfLanes(const half* s, half* out) {
    const __m128 hi = _mm_set1_ps(65504.0f), lo = _mm_set1_ps(-65504.0f);
    __m128 v[32];
    for (int k = 0; k < 32; ++k) v[k] = _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + 4 * k)));
    for (int w = 32; w > 1; w /= 2) {
        for (int k = 0; k < w / 2; ++k) {
            const __m128 sum = _mm_max_ps(lo, _mm_min_ps(hi, PairSums(v[2 * k], v[2 * k + 1])));
            v[k] = _mm_cvtph_ps(_mm_cvtps_ph(sum, _MM_FROUND_TO_NEAREST_INT));
        }
    }
    half lanes[4];
    const __m128i h = _mm_cvtps_ph(v[0], _MM_FROUND_TO_NEAREST_INT);
    std::memcpy(lanes, &h, sizeof lanes);
    *out = opgen_sim::TreeSum(lanes, 4);
    return true;
}
inline bool RepeatSumLanes(const half* s, half* out) {
    return opgen_sim::HasF16c() && (_mm_getcsr() & 0x6000u) == 0 && RepeatSumHalfLanes(s, out);
}

// (GCC 12's AVX-512 intrinsics start from an "undefined" vector, which -Wall's -Wuninitialized
// reports inside the compiler's own headers.)
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// One level of TreeSum over the 32 floats a|b: the 16 sums of adjacent pairs, in order. Two
// AVX-512 two-source permutes (the even and the odd lanes) and one add: a quarter of the shuffle
// work of _mm256_hadd_ps's three-uop form, where the tree's cost is its shuffles.
__attribute__((target("avx512f"))) inline __m512 PairLevel512(__m512 a, __m512 b) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    return _mm512_add_ps(_mm512_permutex2var_ps(a, even, b), _mm512_permutex2var_ps(a, odd, b));
}
// Levels one and two of one 64-float repeat: its 16 sums of four, in order.
__attribute__((target("avx512f"))) inline __m512 RepeatQuads512(const float* s) {
    return PairLevel512(PairLevel512(_mm512_loadu_ps(s), _mm512_loadu_ps(s + 16)),
                        PairLevel512(_mm512_loadu_ps(s + 32), _mm512_loadu_ps(s + 48)));
}
// The tree sums of up to eight consecutive 64-float repeats, in order (TreeSum's pairs and
// roundings for each: a level over a|b never pairs a lane of a with one of b, and a repeat's
// values stay in order and adjacent, so each level's pairs are that repeat's own; the missing
// repeats' values are zero and their sums dropped). The later levels work on several repeats'
// values at once: levels three to six cost one level of one repeat each.
__attribute__((target("avx512f"))) inline void RepeatSums512(const float* s, int32_t repeats,
                                                             float* out) {
    __m512 q[8];
    for (int32_t k = 0; k < 8; ++k) q[k] = k < repeats ? RepeatQuads512(s + 64 * k) : _mm512_setzero_ps();
    const __m512 l5 = PairLevel512(PairLevel512(PairLevel512(q[0], q[1]), PairLevel512(q[2], q[3])),
                                   PairLevel512(PairLevel512(q[4], q[5]), PairLevel512(q[6], q[7])));
    const __m512 l6 = PairLevel512(l5, _mm512_setzero_ps());  // the first eight lanes
    _mm256_storeu_ps(out, _mm512_castps512_ps256(l6));
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
// The running total of ReduceSum's count form over the first `repeats` whole repeats of s (each
// repeat's tree sum added to the total in order, rounded to float): what the per-repeat loop
// computes for them, with AVX-512; false without it (the caller's loop runs).
inline bool WholeRepeatsTotal(const float* s, int32_t repeats, float* total) {
    if (repeats <= 0 || !opgen_sim::HasAvx512f()) return false;
    float sums[8];
    float t = 0.0f;
    for (int32_t r = 0; r < repeats; r += 8) {
        const int32_t n = repeats - r < 8 ? repeats - r : 8;
        RepeatSums512(s + 64 * r, n, sums);
        for (int32_t k = 0; k < n; ++k) t = r + k == 0 ? sums[k] : opgen_sim::ReduceAdd(t, sums[k]);
    }
    *total = t;
    return true;
}
#endif
}  // namespace reduce_detail

namespace reduce_detail {
// The count form's sum of s[0, count): each repeat's tree, the repeats' sums added in order.
template <typename T>
inline T CountSum(const T* s, int32_t count) {
    const int32_t per_repeat = static_cast<int32_t>(opgen_sim::kRepeatBytes / sizeof(T));
    T lanes[128];
    T total = T(0);
    int32_t r = 0;
#ifdef OPGEN_SIM_SIMD_LANES
    if constexpr (std::is_same_v<T, float>) {  // the whole repeats eight at a time (AVX-512)
        if (WholeRepeatsTotal(s, count / per_repeat, &total)) r = count / per_repeat;
    }
#endif
    for (; r * per_repeat < count; ++r) {
        const int32_t first = r * per_repeat;
        T part;
        if (first + per_repeat > count || !RepeatSumLanes(s + first, &part)) {
            for (int32_t l = 0; l < per_repeat; ++l) lanes[l] = first + l < count ? s[first + l] : T(0);
            part = opgen_sim::TreeSum(lanes, static_cast<uint32_t>(per_repeat));
        }
        total = r == 0 ? part : opgen_sim::ReduceAdd(total, part);
    }
    return total;
}
template <typename T>
inline void SetSumAcc(opgen_sim::Core& core, T total) {
    uint64_t bits = 0;
    std::memcpy(&bits, &total, sizeof(T));
    core.reduce_sum_acc = bits;
}
}  // namespace reduce_detail

// Count form, Atlas A2 ("ReduceSum", 关键特性说明, 方式一): each 256-byte repeat is summed as a
// binary tree (a tail repeat's missing lanes count as 0), and the repeats' sums are added in
// order, each addition rounded to T. The reference does not say in which precision the running
// total is kept; CANN's implementation reads it from the accumulator of one counter-mode vcadd,
// and the simulator keeps it in T. sharedTmpBuffer is not used (方式一).
template <typename T, bool isSetMask = true>
OPGEN_SIM_API void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count) {
    opgen_sim::CheckHalfOrFloat<T>("ReduceSum");
    opgen_sim::Core& core = opgen_sim::CurrentCore();
    // 方式一 does not use sharedTmpBuffer: the reference lets it have any size (ops-nn's
    // layer_norm_v4 passes 256 floats for 24192-element sums)
    reduce_detail::Check(&core, "ReduceSum", dst, src, sharedTmpBuffer, count, false, false);
    const T total = reduce_detail::CountSum(reduce_detail::Source(&core, src, count), count);
    dst.ptr_[0] = total;
    reduce_detail::SetSumAcc(core, total);
    opgen_sim::CountVector<T>(core, static_cast<uint64_t>(count), "ReduceSum");
}

// GetReduceRepeatSumSpr (GetAccVal, its former name): the sum the last ReduceSum left in the
// accumulator register.
template <typename T>
inline T GetReduceRepeatSumSpr() {
    T v;
    const uint64_t bits = opgen_sim::CurrentCore().reduce_sum_acc;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}
template <typename T>
inline T GetAccVal() {
    return GetReduceRepeatSumSpr<T>();
}
// The untyped forms (CANN's kernel_operator_vec_reduce_intf_impl.h): the register's raw 64 bits,
// which callers reinterpret (ops-nn's layer_norm_v4: `acc = GetAccVal(); *(float*)&acc`).
inline int64_t GetReduceRepeatSumSpr() { return static_cast<int64_t>(opgen_sim::CurrentCore().reduce_sum_acc); }
inline int64_t GetAccVal() { return GetReduceRepeatSumSpr(); }

namespace reduce_detail {
// The first index of the extreme on SSE lanes: one pass finds the extreme value (maxps/minps on
// four accumulators) and whether a NaN is present, a second the first element equal to it (a
// -0.0 and a 0.0 compare equal, as in the scalar scan). Without calIndex only the value is
// needed, and a nonzero extreme has one bit pattern, so any index holding it will do: the second
// pass runs only for a zero extreme (whose sign is that of the first zero). A NaN anywhere
// leaves the search to the scalar scan (the first NaN wins there).
#ifdef OPGEN_SIM_SIMD_LANES
template <typename T>
__attribute__((target("f16c"))) inline __m128 Load4Float(const T* p) {
    if constexpr (std::is_same_v<T, half>) {
        return _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    } else {
        return _mm_loadu_ps(p);
    }
}
template <bool kMax>
inline __m128 Pick(__m128 a, __m128 b) {
    return kMax ? _mm_max_ps(a, b) : _mm_min_ps(a, b);
}
// The main pass of ExtremeLanesF16c on AVX's eight lanes: from element i, sixteen at a time while
// they fit below n4, starting from `first` (the first four elements, a valid start for any
// extreme); the two accumulators' halves folded to four lanes each, and the NaN lanes seen.
// Named registers, not arrays (see RepeatSumLanesAvx).
struct Extreme8 {
    __m128 acc0, acc1, nan;
    int32_t end;
};
template <typename T, bool kMax>
__attribute__((target("avx,f16c"))) inline Extreme8 ExtremeLanes8(const T* s, int32_t i, int32_t n4,
                                                                 __m128 first) {
    __m256 a0 = _mm256_insertf128_ps(_mm256_castps128_ps256(first), first, 1);
    __m256 a1 = a0;
    __m256 n0 = _mm256_setzero_ps(), n1 = _mm256_setzero_ps();
    for (; i + 16 <= n4; i += 16) {
        const __m256 v0 = opgen_sim::Load8Float(s + i), v1 = opgen_sim::Load8Float(s + i + 8);
        n0 = _mm256_or_ps(n0, _mm256_cmp_ps(v0, v0, _CMP_UNORD_Q));
        n1 = _mm256_or_ps(n1, _mm256_cmp_ps(v1, v1, _CMP_UNORD_Q));
        a0 = kMax ? _mm256_max_ps(a0, v0) : _mm256_min_ps(a0, v0);
        a1 = kMax ? _mm256_max_ps(a1, v1) : _mm256_min_ps(a1, v1);
    }
    const __m256 n = _mm256_or_ps(n0, n1);
    return Extreme8{Pick<kMax>(_mm256_castps256_ps128(a0), _mm256_extractf128_ps(a0, 1)),
                    Pick<kMax>(_mm256_castps256_ps128(a1), _mm256_extractf128_ps(a1, 1)),
                    _mm_or_ps(_mm256_castps256_ps128(n), _mm256_extractf128_ps(n, 1)), i};
}
// The same pass on AVX-512's sixteen float lanes, thirty-two a step; the two accumulators folded
// to four lanes (maxps/minps of their quarters: the extreme's value does not depend on the order
// in which it is found), and whether a NaN was seen.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
struct Extreme16 {
    __m128 acc;
    bool nan;
    int32_t end;
};
template <bool kMax>
__attribute__((target("avx512f"))) inline Extreme16 ExtremeLanes16(const float* s, int32_t i, int32_t n4,
                                                                  __m128 first) {
    __m512 a0 = _mm512_broadcast_f32x4(first);
    __m512 a1 = a0;
    __mmask16 nan = 0;
    for (; i + 32 <= n4; i += 32) {
        const __m512 v0 = _mm512_loadu_ps(s + i), v1 = _mm512_loadu_ps(s + i + 16);
        nan = static_cast<__mmask16>(nan | _mm512_cmp_ps_mask(v0, v0, _CMP_UNORD_Q) |
                                     _mm512_cmp_ps_mask(v1, v1, _CMP_UNORD_Q));
        a0 = kMax ? _mm512_max_ps(a0, v0) : _mm512_min_ps(a0, v0);
        a1 = kMax ? _mm512_max_ps(a1, v1) : _mm512_min_ps(a1, v1);
    }
    const __m512 a = kMax ? _mm512_max_ps(a0, a1) : _mm512_min_ps(a0, a1);
    const __m256 lo = _mm512_castps512_ps256(a);
    const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1));
    const __m256 h = kMax ? _mm256_max_ps(lo, hi) : _mm256_min_ps(lo, hi);
    const __m128 q0 = _mm256_castps256_ps128(h), q1 = _mm256_extractf128_ps(h, 1);
    return Extreme16{kMax ? _mm_max_ps(q0, q1) : _mm_min_ps(q0, q1), nan != 0, i};
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
// 0: NaN present (the scalar scan decides), 1: *best is the first index of the extreme, 2: only
// *value, the extreme, is known (no calIndex).
template <typename T, bool kMax>
__attribute__((target("f16c"))) inline int ExtremeLanesF16c(const T* s, int32_t count, bool calIndex,
                                                            int32_t* best, float* value) {
    const int32_t n4 = count / 4 * 4;
    __m128 acc[4];
    __m128 nan[4];
    for (int k = 0; k < 4; ++k) {
        acc[k] = Load4Float(s);
        nan[k] = _mm_cmpunord_ps(acc[k], acc[k]);
    }
    int32_t i = 4;
    if constexpr (std::is_same_v<T, float>) {  // thirty-two a step with AVX-512, into acc[2]
        if (i + 32 <= n4 && opgen_sim::HasAvx512f()) {
            const Extreme16 e = ExtremeLanes16<kMax>(s, i, n4, acc[2]);
            i = e.end;
            acc[2] = e.acc;
            if (e.nan) return 0;
        }
    }
    if (i + 16 <= n4) {  // sixteen a step on two eight-lane accumulators, folded into acc[0..1]
        const Extreme8 e = ExtremeLanes8<T, kMax>(s, i, n4, acc[0]);
        i = e.end;
        acc[0] = e.acc0;
        acc[1] = e.acc1;
        nan[0] = _mm_or_ps(nan[0], e.nan);
    }
    for (; i < n4; i += 4) {
        const __m128 v = Load4Float(s + i);
        nan[0] = _mm_or_ps(nan[0], _mm_cmpunord_ps(v, v));
        acc[0] = Pick<kMax>(acc[0], v);
    }
    if (_mm_movemask_ps(_mm_or_ps(_mm_or_ps(nan[0], nan[1]), _mm_or_ps(nan[2], nan[3]))) != 0) return 0;
    const __m128 all = Pick<kMax>(Pick<kMax>(acc[0], acc[1]), Pick<kMax>(acc[2], acc[3]));
    float lanes[4];
    _mm_storeu_ps(lanes, all);
    float m = lanes[0];
    for (int k = 1; k < 4; ++k) m = kMax ? std::max(m, lanes[k]) : std::min(m, lanes[k]);
    for (int32_t t = n4; t < count; ++t) {
        const float v = static_cast<float>(s[t]);
        if (std::isnan(v)) return 0;
        m = kMax ? std::max(m, v) : std::min(m, v);
    }
    if (!calIndex && !(m == 0.0f)) {
        *value = m;
        return 2;
    }
    const __m128 mv = _mm_set1_ps(m);
    int32_t j = 0;
    for (; j < n4; j += 4) {
        const int bits = _mm_movemask_ps(_mm_cmpeq_ps(Load4Float(s + j), mv));
        if (bits != 0) {
            *best = j + __builtin_ctz(static_cast<unsigned>(bits));
            return 1;
        }
    }
    for (; j < count; ++j) {
        if (static_cast<float>(s[j]) == m) break;
    }
    *best = j;
    return 1;
}
template <typename T>
inline int ExtremeLanes(const T* s, int32_t count, bool max, bool calIndex, int32_t* best, float* value) {
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, float>) {
        // both types go through the f16c-targeted code, which may use AVX encodings
        if (count < 4 || !opgen_sim::HasF16c()) return 0;
        return max ? ExtremeLanesF16c<T, true>(s, count, calIndex, best, value)
                   : ExtremeLanesF16c<T, false>(s, count, calIndex, best, value);
    }
    (void)s, (void)count, (void)max, (void)calIndex, (void)best, (void)value;
    return 0;
}
#else
template <typename T>
inline int ExtremeLanes(const T*, int32_t, bool, bool, int32_t*, float*) { return 0; }
#endif

template <typename T>
inline void Extreme(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                    const LocalTensor<T>& work, int32_t count, bool calIndex, bool max) {
    opgen_sim::CheckHalfOrFloat<T>(api);
    opgen_sim::Core& core = opgen_sim::CurrentCore();
    Check(&core, api, dst, src, work, count, calIndex);
    const T* s = Source(&core, src, count);
    int32_t best = 0;
    float value = 0.0f;
    const int found = ExtremeLanes(s, count, max, calIndex, &best, &value);
    if (found == 0) {
        for (int32_t i = 1; i < count; ++i) {
            if (opgen_sim::ExtremeBetter(max, s[i], s[best])) best = i;
        }
    }
    // found == 2: a nonzero extreme of float values read from T, so T(value) has the bits of
    // every element equal to it
    const T result = found == 2 ? static_cast<T>(value) : s[best];
    dst.ptr_[0] = result;
    if (calIndex) {  // the index is stored in the bits of the second element, as on hardware
        if constexpr (sizeof(T) == 4) {
            const uint32_t idx = static_cast<uint32_t>(best);
            std::memcpy(&dst.ptr_[1], &idx, 4);
        } else if constexpr (sizeof(T) == 2) {
            const uint16_t idx = static_cast<uint16_t>(best);
            std::memcpy(&dst.ptr_[1], &idx, 2);
        }
    }
    work.ptr_[0] = result;
    opgen_sim::CountVector<T>(core, static_cast<uint64_t>(count), __builtin_FUNCTION());
}
}  // namespace reduce_detail

template <typename T>
OPGEN_SIM_API void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count, bool calIndex = 0) {
    reduce_detail::Extreme("ReduceMax", dst, src, sharedTmpBuffer, count, calIndex, true);
}

template <typename T>
OPGEN_SIM_API void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count, bool calIndex = 0) {
    reduce_detail::Extreme("ReduceMin", dst, src, sharedTmpBuffer, count, calIndex, false);
}

}  // namespace AscendC
