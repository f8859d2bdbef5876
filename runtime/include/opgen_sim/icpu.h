// opgen NPU simulator: CANN's CPU twin-debug entry points (ICPU_RUN_KF, GmAlloc, GmFree,
// SetKernelMode, ICPU_SET_TILING_KEY) for a standalone driver program; see tikicpulib.h.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "gm_registry.h"
#include "launch.h"

enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE };

// CANN's CPU-debug tiling key variable; ICPU_SET_TILING_KEY sets it, TILING_KEY_IS reads it.
inline uint64_t g_tilingKey = 0;

namespace opgen_sim {

// The kernel mode a driver set with AscendC::SetKernelMode (recorded; only AIV cores are simulated).
inline KernelMode& IcpuKernelMode() {
    static KernelMode mode = KernelMode::MIX_MODE;
    return mode;
}

// AIV cores per block of an ICPU_RUN_KF launch: in MIX_MODE (CANN's CPU debug default) 2 when the
// program's kernels use the Matmul API from the vector cores (IcpuMatmulMixProgram; CANN's
// KernelLaunch matmul samples run blockDim 1 with a tiling for 2 cores), else 1.
inline int32_t IcpuMixRatio() {
    return IcpuKernelMode() == KernelMode::MIX_MODE && IcpuMatmulMixProgram() ? 2 : 1;
}

[[noreturn]] inline void IcpuFatal(const std::string& text) {
    std::fflush(stdout);
    std::fprintf(stderr, "[ERROR][opgen-sim][pid %d] %s\n", static_cast<int>(getpid()), text.c_str());
    std::fflush(stderr);
    std::exit(1);
}

inline const char* ErrorKindName(int32_t kind) {
    switch (static_cast<ErrorKind>(kind)) {
        case ErrorKind::UnifiedBufferOverflow: return "UnifiedBufferOverflow";
        case ErrorKind::Alignment: return "AlignmentError";
        case ErrorKind::GlobalMemoryOutOfBounds: return "GlobalMemoryOutOfBounds";
        case ErrorKind::Queue: return "QueueError";
        case ErrorKind::VectorCount: return "VectorCountError";
        case ErrorKind::LocalMemoryOutOfBounds: return "LocalMemoryOutOfBounds";
        case ErrorKind::KernelAssert: return "KernelAssertError";
        case ErrorKind::Tiling: return "TilingError";
        default: return "SimulatorError";
    }
}

// Unified Buffer bytes per core: OPGEN_SIM_SOC=ascend910b (192 KiB) or ascend310p (256 KiB);
// without it, the SoC a build named (OPGEN_SIM_DEFAULT_SOC, set by the toolkit's per-SoC CMake
// targets), else ascend910b.
#define OPGEN_SIM_STR2(x) #x
#define OPGEN_SIM_STR(x) OPGEN_SIM_STR2(x)
inline uint64_t IcpuUbBytes() {
    const char* soc = std::getenv("OPGEN_SIM_SOC");
#ifdef OPGEN_SIM_DEFAULT_SOC
    if (soc == nullptr) soc = OPGEN_SIM_STR(OPGEN_SIM_DEFAULT_SOC);
#endif
    if (soc == nullptr || std::string(soc) == "ascend910b") return 192 * 1024;
    if (std::string(soc) == "ascend310p") return 256 * 1024;
    IcpuFatal(std::string("OPGEN_SIM_SOC=") + soc + " is not a known SoC (ascend910b, ascend310p)");
}

// `opgen run --profile` and `opgen profile --exec` set OPGEN_SIM_PROFILE to a file: every launch
// then runs with the launch detail of `opgen profile` (detail.h) and appends one record to the
// file (opgen_runtime/program_profile.py reads them); OPGEN_SIM_PROFILE_TIMELINE=1 adds the
// blocks' phase spans.
inline const char* IcpuProfileFile() {
    static const char* file = [] {
        const char* f = std::getenv("OPGEN_SIM_PROFILE");
        return f != nullptr && *f != '\0' ? f : nullptr;
    }();
    return file;
}

inline const char* IcpuSocName() {
    return IcpuUbBytes() == 256 * 1024 ? "ascend310p" : "ascend910b";
}

// One launch's record: a header, its blocks' counters, the GM buffers it could reach, the
// detail's lines (LaunchDetail::Text), an end line. Written with one append, so the records of
// launches from several threads do not interleave.
inline void IcpuWriteProfile(const char* file, const char* kernel, const char* launch, const Job& job,
                             const std::vector<int64_t>& counters, const std::vector<GmRegion>& regions,
                             const LaunchDetail& detail, int64_t wall_ns) {
    std::string rec = "launch\t" + std::string(kernel) + "\t" + launch + "\t" + IcpuSocName() + "\t" +
                      std::to_string(job.ub_capacity) + "\t" + std::to_string(job.block_dim) + "\t" +
                      std::to_string(wall_ns) + "\n";
    rec += "counters";
    for (const int64_t v : counters) rec += "\t" + std::to_string(v);
    rec += "\n";
    const int32_t n = static_cast<int32_t>(std::min<size_t>(regions.size(), kMaxDetailRegions));
    for (int32_t i = 0; i < n; ++i) {
        rec += "buffer\t" + std::to_string(i) + "\t" +
               std::to_string(reinterpret_cast<uintptr_t>(regions[static_cast<size_t>(i)].begin)) + "\t" +
               std::to_string(regions[static_cast<size_t>(i)].size) + "\t" + regions[static_cast<size_t>(i)].name +
               "\n";
    }
    rec += detail.Text(n) + "end\n";
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    FILE* f = std::fopen(file, "ab");
    if (f == nullptr || std::fwrite(rec.data(), 1, rec.size(), f) != rec.size() || std::fclose(f) != 0) {
        IcpuFatal(std::string("OPGEN_SIM_PROFILE=") + file + ": cannot append the profile of kernel '" + kernel +
                  "'");
    }
}

template <typename F>
inline void InvokeBody(void* ctx) {
    (*static_cast<F*>(ctx))();
}

// ICPU_RUN_KF (and a <<<>>> launch, `launch` naming it): runs `body` (the kernel call) once per
// block on blockDim simulated cores. A rule violation prints the lowest failing block's error to
// stderr and exits with status 1.
template <typename F>
inline void IcpuRun(const char* kernel, int64_t block_dim, F&& body,
                    const char* launch = "ICPU_RUN_KF", int32_t task_ratio = 0,
                    bool run_aic = false, bool cube_only = false) {
    if (block_dim < 1 || block_dim > 65535) {
        IcpuFatal(std::string(launch) + "(" + kernel + "): blockDim " +
                  std::to_string(block_dim) + " must be in [1, 65535]");
    }
    if (task_ratio == 0) task_ratio = IcpuMixRatio();
    const int64_t aic_blocks = run_aic || cube_only ? block_dim : 0;  // a cube core per block
    // the AIV cores, task_ratio per block (none for a __cube__ kernel), then the cube cores
    block_dim = (cube_only ? 0 : block_dim * task_ratio) + aic_blocks;
    std::vector<std::string> names;
    std::vector<GmRegion> regions;
    {
        GmRegistry& gm = Gm();
        std::lock_guard<std::mutex> lock(gm.mu);
        names.reserve(gm.blocks.size());
        for (const GmBlock& b : gm.blocks) {
            names.push_back(GmBlockName(b));
        }
        for (size_t i = 0; i < gm.blocks.size(); ++i) {
            regions.push_back({gm.blocks[i].ptr, gm.blocks[i].size, names[i].c_str()});
        }
    }
    using Body = std::remove_reference_t<F>;
    std::vector<int64_t> counters(static_cast<size_t>(block_dim) * kNumCounters);
    Job job;
    job.invoke = &InvokeBody<Body>;
    job.ctx = const_cast<void*>(static_cast<const void*>(&body));
    job.icpu = true;
    job.tiling_key = g_tilingKey;
    job.block_dim = static_cast<int32_t>(block_dim);
    job.task_ratio = task_ratio;
    job.aic_blocks = static_cast<int32_t>(aic_blocks);
    job.ub_capacity = IcpuUbBytes();
    job.strict = true;
    job.regions = regions.data();
    job.num_regions = static_cast<int32_t>(regions.size());
    job.counters = counters.data();
    const char* profile = IcpuProfileFile();
    LaunchDetail detail;
    if (profile != nullptr) {
        detail.Reset(job.block_dim);
        job.detail = &detail;
        const char* timeline = std::getenv("OPGEN_SIM_PROFILE_TIMELINE");
        job.timeline = timeline != nullptr && std::string(timeline) == "1";
        job.origin = std::chrono::steady_clock::now();
    }
    std::fflush(stdout);
    const auto start = std::chrono::steady_clock::now();
    RunJob(job, 0);  // host threads: DefaultThreads()
    const int64_t wall_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
    if (profile != nullptr && job.err_block < 0) {
        IcpuWriteProfile(profile, kernel, launch, job, counters, regions, detail, wall_ns);
    }
    if (job.err_block >= 0) {
        IcpuFatal(std::string("kernel '") + kernel + "', block " + std::to_string(job.err_block) +
                  ": " + job.err_api + ": " + job.err_msg + " [" + ErrorKindName(job.err_kind) +
                  "]");
    }
}

}  // namespace opgen_sim

namespace AscendC {

// GmAlloc: zero-filled, 64-byte aligned host memory standing for Global Memory; kernel accesses
// are bounds-checked against these blocks.
inline void* GmAlloc(size_t size) {
    const uint64_t bytes = opgen_sim::RoundUp(size == 0 ? 1 : size, 64);
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, bytes));
    if (p == nullptr) opgen_sim::IcpuFatal("GmAlloc(" + std::to_string(size) + "): out of memory");
    std::memset(p, 0, bytes);
    opgen_sim::GmRegister(p, size, size, "GmAlloc");
    return p;
}

inline void GmFree(void* ptr) {
    if (ptr == nullptr) return;
    if (opgen_sim::GmUnregister(ptr, "GmAlloc")) {
        std::free(ptr);
        return;
    }
    opgen_sim::IcpuFatal("GmFree: the pointer was not returned by GmAlloc, or was freed already");
}

// The simulator runs vector (AIV) cores only; the mode is recorded and otherwise accepted.
inline void SetKernelMode(KernelMode mode) { opgen_sim::IcpuKernelMode() = mode; }

}  // namespace AscendC

#define ICPU_SET_TILING_KEY(tilingKey) \
    do {                               \
        g_tilingKey = (tilingKey);     \
    } while (0)

#define ICPU_RUN_KF(func, blkdim, ...) \
    ::opgen_sim::IcpuRun(#func, static_cast<int64_t>(blkdim), [&]() { func(__VA_ARGS__); })
