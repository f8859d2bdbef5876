// opgen NPU simulator: the byte copies behind DataCopy and DataCopyPad between GM and UB.
//
// Every such copy is bounded by the Unified Buffer's size, and most are one row or one tile:
// hundreds of bytes to a few KiB. On x86 glibc moves those with `rep movsb` where the CPU has
// fast short rep-movs (FSRM): the fastest copy of bytes in the core's L1 or L2, but on some CPUs
// (AMD EPYC) half the rate of a plain 256-bit loop when the source is in L3 or memory
// (benchmarks/RESULTS.md, "Ops vs native": 4 KiB rows of a 16 MiB tensor 1.5-2.5x slower; the
// same rows of a 32 KiB buffer 1.4x faster). So a launch whose GM arguments together exceed any
// core's L2 (kStreamFootprint: its rows come from L3 or memory) copies 256 bytes up to 16 KiB
// through a four-register AVX loop when the CPU has AVX; every other copy, and every copy on
// other CPUs, is memcpy's.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define OPGEN_SIM_COPY_LOOP 1
#endif

namespace opgen_sim {

constexpr uint64_t kCopyLoopMin = 256;        // below: memcpy's short-copy paths are as fast
constexpr uint64_t kCopyLoopMax = 16 * 1024;  // from here memcpy is as fast from L3 too
// GM bytes of a launch's arguments from which its copies stream from L3 or memory (larger than
// the L2 of one core of current x86 server CPUs: 1 MiB on AMD EPYC, 2 MiB on Intel Xeon)
constexpr uint64_t kStreamFootprint = 4u << 20;

// Which end of a copy lies in GM (the end whose next bytes CopyLoop prefetches).
enum class GmSide { kSource, kDestination };

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
// byte-wise tail is left. The ranges must not overlap. Each step also prefetches the matching
// 128 bytes of the n bytes after the GM end (`gm`: the source, for reading, after a copy in; the
// destination, for writing, after a copy out): a kernel moving rows or tiles one after another
// copies those next, after computing on these. On the NPU the copy engines fetch the next tile
// while the vector unit computes (double buffering); the simulator runs a core's pipes one after
// another, so the host's prefetch gives that overlap back, where its own prefetchers stop at
// every 4 KiB page (a row of 1024 floats). A prefetch never faults, so a guess past the end of a
// buffer is harmless; a wrong one costs a little bandwidth. Side by side (layer_norm, 4096x1024
// float32, the registry's path, on an AMD EPYC): 1.35-1.52 -> 1.14-1.20 ms with a burst of
// prefetches after each copy; the read side alone gave about half of that (docs/simulator.md).
// Spread over the copy, the prefetches do not all queue for the core's line fill buffers at once
// as that burst of 64 did (on an Intel Xeon, through torch, alternating runs: a kernel copying
// 4096 rows of 4 KiB in and out 0.65-0.72 -> 0.60-0.62 ms, layer_norm 1.48-1.60 -> 1.40-1.43 ms,
// softmax 2.00-2.04 -> 1.90-1.94 ms).
template <GmSide kGm>
__attribute__((target("avx"))) inline void CopyLoopTo(uint8_t* d, const uint8_t* s, uint64_t n) {
    constexpr int kWrite = kGm == GmSide::kDestination ? 1 : 0;  // prefetch for writing
    const uint8_t* next = (kGm == GmSide::kSource ? s : d) + n;  // the GM end's next n bytes
    uint64_t i = 0;
    for (; i + 128 <= n; i += 128) {
        Copy128(d + i, s + i);
        __builtin_prefetch(next + i, kWrite, 3);
        __builtin_prefetch(next + i + 64, kWrite, 3);
    }
    if (i < n) {
        Copy128(d + n - 128, s + n - 128);
        __builtin_prefetch(next + n - 128, kWrite, 3);
        __builtin_prefetch(next + n - 64, kWrite, 3);
    }
}
__attribute__((target("avx"))) inline void CopyLoop(uint8_t* d, const uint8_t* s, uint64_t n,
                                                     GmSide gm) {
    if (gm == GmSide::kSource) {
        CopyLoopTo<GmSide::kSource>(d, s, n);
    } else {
        CopyLoopTo<GmSide::kDestination>(d, s, n);
    }
}
#endif

// memcpy's contract: [dst, dst + n) and [src, src + n) do not overlap. `streaming`: the launch's
// GM footprint is at least kStreamFootprint (Core::stream_copies).
inline void CopyBytes(void* dst, const void* src, uint64_t n, bool streaming, GmSide gm) {
#if defined(OPGEN_SIM_COPY_LOOP)
    if (streaming && n >= kCopyLoopMin && n < kCopyLoopMax && CopyLoopAvailable()) {
        CopyLoop(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n, gm);
        return;
    }
#endif
    (void)streaming;
    (void)gm;
    std::memcpy(dst, src, n);
}

}  // namespace opgen_sim
