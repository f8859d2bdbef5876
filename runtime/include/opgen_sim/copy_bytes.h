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
#include <cstdio>
#include <cstring>
#include <string>

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

// Which end of a copy lies in GM (the end whose next bytes CopyLoop prefetches), and for a copy
// to GM, whether its stores bypass the host's caches (kStreamedDestination, see CopyStream).
enum class GmSide { kSource, kDestination, kStreamedDestination };

// The size of the last-level cache shared by the host core running this thread, as Linux
// describes it (/sys/devices/system/cpu/cpu0/cache/index*/, the highest level listed), or 0.
// (Not sysconf: glibc reads CPUID, which in a virtual machine may give the whole host
// processor's cache, as on this project's test machine: 320 MiB for a 32 MiB instance.)
inline uint64_t LastLevelCacheBytes() {
    uint64_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 8; ++i) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
        std::FILE* fl = std::fopen((dir + "level").c_str(), "r");
        if (fl == nullptr) break;
        int level = 0;
        const bool got_level = std::fscanf(fl, "%d", &level) == 1;
        std::fclose(fl);
        std::FILE* fs = std::fopen((dir + "size").c_str(), "r");
        if (fs == nullptr) continue;
        unsigned long long size = 0;
        char unit = 0;
        const int got = std::fscanf(fs, "%llu%c", &size, &unit);
        std::fclose(fs);
        if (!got_level || got < 1) continue;
        if (got == 2 && (unit == 'K' || unit == 'k')) size <<= 10;
        if (got == 2 && (unit == 'M' || unit == 'm')) size <<= 20;
        if (level >= best_level) {
            best_level = level;
            best = size;
        }
    }
    return best;
}

// GM bytes of a launch's arguments from which its copies to GM are stored non-temporally: the
// host's last-level cache (32 MiB where Linux does not say). A launch reading and writing more
// than the cache holds cannot keep its output there while its inputs stream through, so storing
// past the cache saves reading each output line in before it is overwritten. Side by side on
// an AMD EPYC (32 MiB L3; 4096x1024, through torch, the two ways alternating in one process):
// float32 layer_norm (32 MiB of GM) 17% and softmax 15% faster; their float16 forms (16 MiB),
// whose output can stay in the cache, 1-7% slower, so they keep storing through it.
inline uint64_t NonTemporalFootprint() {
    static const uint64_t bytes = [] {
        const uint64_t llc = LastLevelCacheBytes();
        return llc > 0 ? llc : uint64_t{32} << 20;
    }();
    return bytes;
}

#if defined(OPGEN_SIM_COPY_LOOP)
inline bool CopyLoopAvailable() {
    static const bool ok = __builtin_cpu_supports("avx") != 0;
    return ok;
}

// One 32-byte register to d: an ordinary store, or a non-temporal one (d 32-byte aligned).
template <bool kNonTemporal>
__attribute__((target("avx"))) inline void Store32(__m256i* q, __m256i v) {
    if constexpr (kNonTemporal) {
        _mm256_stream_si256(q, v);
    } else {
        _mm256_storeu_si256(q, v);
    }
}
// Four 32-byte registers loaded from s, then stored to d.
template <bool kNonTemporal = false>
__attribute__((target("avx"))) inline void Copy128(uint8_t* d, const uint8_t* s) {
    const __m256i* p = reinterpret_cast<const __m256i*>(s);
    __m256i* q = reinterpret_cast<__m256i*>(d);
    const __m256i a = _mm256_loadu_si256(p), b = _mm256_loadu_si256(p + 1);
    const __m256i c = _mm256_loadu_si256(p + 2), e = _mm256_loadu_si256(p + 3);
    Store32<kNonTemporal>(q, a);
    Store32<kNonTemporal>(q + 1, b);
    Store32<kNonTemporal>(q + 2, c);
    Store32<kNonTemporal>(q + 3, e);
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
//
// The next lines. A copy followed by vector instructions before the next copy (a row kernel:
// CopyIn, a few passes over the row in UB, CopyOut) gets those lines through the vector
// instructions instead (`kPrefetch` false here; core.h, PlanPrefetch and DripPrefetch): each
// takes its share, spread evenly over as many instructions as ran between the previous two such
// copies, the source lines for reading and the destination lines for writing, so the loads and
// the ownership requests of the next row's copies run while the core computes instead of in a
// burst beside the copy's own. Side by side on an Intel Xeon (rt.launch, 4096x1024 float32, 48
// blocks on two threads, alternating runs): layer_norm 1.27-1.41 -> 1.05-1.12 ms, a kernel
// copying rows in and out with eight passes between 1.39-1.41 -> 1.26-1.30 ms; the destination
// lines gave most of it (1.41 -> 1.13-1.17 ms alone), the source lines the rest. Prefetching the
// source lines to L2 instead (prefetcht1) was as slow as no plan. A copy with fewer than two
// vector instructions since the previous one (a copy kernel, one instruction a tile) prefetches
// during the copy as before.
template <GmSide kGm, bool kPrefetch = true>
__attribute__((target("avx"))) inline void CopyLoopTo(uint8_t* d, const uint8_t* s, uint64_t n) {
    constexpr int kWrite = kGm == GmSide::kDestination ? 1 : 0;  // prefetch for writing
    const uint8_t* next = (kGm == GmSide::kSource ? s : d) + n;  // the GM end's next n bytes
    uint64_t i = 0;
    for (; i + 128 <= n; i += 128) {
        Copy128(d + i, s + i);
        if constexpr (kPrefetch) {
            __builtin_prefetch(next + i, kWrite, 3);
            __builtin_prefetch(next + i + 64, kWrite, 3);
        }
    }
    if (i < n) {
        Copy128(d + n - 128, s + n - 128);
        if constexpr (kPrefetch) {
            __builtin_prefetch(next + n - 128, kWrite, 3);
            __builtin_prefetch(next + n - 64, kWrite, 3);
        }
    }
}
// A copy to GM whose 128-byte steps are stored non-temporally (to a 32-byte aligned d; the
// rest of n as memcpy stores it), for launches past NonTemporalFootprint(). Not fenced here: the
// thread itself reads its own stores in program order, and another thread may read them only
// after a fence (an sfence, or a locked instruction), which the simulator runs where the NPU lets
// another core read what this one wrote: a cross-core synchronisation and the block's end
// (deferred.h, FenceStreamedStores). An sfence after each copy waits for its lines to reach
// memory: side by side on an AMD EPYC (softmax, 4096x1024 float32, one thread, five alternating
// runs), 3.57-4.27 ms with it and 3.00-3.26 ms without.
__attribute__((target("avx"))) inline void CopyStream(uint8_t* d, const uint8_t* s, uint64_t n) {
    const uint64_t whole = n & ~uint64_t{127};
    for (uint64_t i = 0; i < whole; i += 128) Copy128<true>(d + i, s + i);
    if (whole < n) std::memcpy(d + whole, s + whole, n - whole);
}
__attribute__((target("avx"))) inline void CopyLoop(uint8_t* d, const uint8_t* s, uint64_t n,
                                                     GmSide gm, bool prefetch = true) {
    if (gm == GmSide::kSource) {
        if (prefetch) {
            CopyLoopTo<GmSide::kSource>(d, s, n);
        } else {
            CopyLoopTo<GmSide::kSource, false>(d, s, n);
        }
    } else if (gm == GmSide::kStreamedDestination && (reinterpret_cast<uintptr_t>(d) & 31) == 0) {
        CopyStream(d, s, n);
    } else if (prefetch) {
        CopyLoopTo<GmSide::kDestination>(d, s, n);
    } else {
        CopyLoopTo<GmSide::kDestination, false>(d, s, n);
    }
}
#endif

// Whether CopyBytes moves n bytes with CopyLoop (and so prefetches the next n bytes).
inline bool LoopCopies(uint64_t n, bool streaming) {
#if defined(OPGEN_SIM_COPY_LOOP)
    return streaming && n >= kCopyLoopMin && n < kCopyLoopMax && CopyLoopAvailable();
#else
    (void)n;
    (void)streaming;
    return false;
#endif
}

// memcpy's contract: [dst, dst + n) and [src, src + n) do not overlap. `streaming`: the launch's
// GM footprint is at least kStreamFootprint (Core::stream_copies); kStreamedDestination only
// where it is at least NonTemporalFootprint() (Core::stream_stores).
// `prefetch` false: the next n bytes are planned for the vector instructions (PlanPrefetch).
inline void CopyBytes(void* dst, const void* src, uint64_t n, bool streaming, GmSide gm,
                      bool prefetch = true) {
#if defined(OPGEN_SIM_COPY_LOOP)
    if (LoopCopies(n, streaming)) {
        CopyLoop(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n, gm, prefetch);
        return;
    }
#endif
    (void)prefetch;
    (void)streaming;
    (void)gm;
    std::memcpy(dst, src, n);
}

}  // namespace opgen_sim
