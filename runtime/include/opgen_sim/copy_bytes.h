// opgen NPU simulator: the byte copies behind DataCopy and DataCopyPad (GM <-> UB, UB <-> UB).
//
// Every such copy is bounded by the Unified Buffer's size, and most are one row or one tile:
// hundreds of bytes to a few KiB, read from GM that is not in the core's cache. On x86 glibc
// picks its widest memmove for those sizes, which on some CPUs (AMD EPYC with AVX-512, where a
// 512-bit access is two halves) runs at half the rate of a plain 256-bit loop from L3 or memory
// (benchmarks/RESULTS.md, "Ops vs native"). Copies of 256 bytes up to 16 KiB therefore go through
// a four-register AVX loop when the CPU has AVX; smaller and larger ones, overlapping ones and
// other CPUs keep memcpy/memmove, which are as fast or faster there.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define OPGEN_SIM_COPY_LOOP 1
#endif

namespace opgen_sim {

constexpr uint64_t kCopyLoopMin = 256;         // below: memcpy's short-copy paths are as fast
constexpr uint64_t kCopyLoopMax = 16 * 1024;   // from here glibc's rep-movs path is faster

#if defined(OPGEN_SIM_COPY_LOOP)
inline bool CopyLoopAvailable() {
    static const bool ok = __builtin_cpu_supports("avx") != 0;
    return ok;
}

// Four 32-byte registers loaded from s, then stored to d.
__attribute__((target("avx"))) inline void Copy128(uint8_t* d, const uint8_t* s) {
    const __m256i* p = reinterpret_cast<const __m256i*>(s);
    __m256i* q = reinterpret_cast<__m256i*>(d);
    const __m256i a = _mm256_loadu_si256(p), b = _mm256_loadu_si256(p + 1);
    const __m256i c = _mm256_loadu_si256(p + 2), e = _mm256_loadu_si256(p + 3);
    _mm256_storeu_si256(q, a);
    _mm256_storeu_si256(q + 1, b);
    _mm256_storeu_si256(q + 2, c);
    _mm256_storeu_si256(q + 3, e);
}

// n >= 128: 128 bytes a step, then the last 128 bytes (overlapping the previous step) so no
// byte-wise tail is left. The ranges must not overlap.
__attribute__((target("avx"))) inline void CopyLoop(uint8_t* d, const uint8_t* s, uint64_t n) {
    uint64_t i = 0;
    for (; i + 128 <= n; i += 128) Copy128(d + i, s + i);
    if (i < n) Copy128(d + n - 128, s + n - 128);
}
#endif

// memcpy's contract: [dst, dst + n) and [src, src + n) do not overlap.
inline void CopyBytes(void* dst, const void* src, uint64_t n) {
#if defined(OPGEN_SIM_COPY_LOOP)
    if (n >= kCopyLoopMin && n < kCopyLoopMax && CopyLoopAvailable()) {
        CopyLoop(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n);
        return;
    }
#endif
    std::memcpy(dst, src, n);
}

// memmove's contract: the ranges may overlap (UB -> UB copies).
inline void MoveBytes(void* dst, const void* src, uint64_t n) {
    const auto d = reinterpret_cast<uintptr_t>(dst);
    const auto s = reinterpret_cast<uintptr_t>(src);
    if (d + n <= s || s + n <= d) {
        CopyBytes(dst, src, n);
        return;
    }
    std::memmove(dst, src, n);
}

}  // namespace opgen_sim
