// opgen NPU simulator: the host ABI of a kernel library. Runs blockDim simulated cores on a
// persistent thread pool and carries the first error of a launch back to Python (see
// opgen_runtime/launcher.py for the caller).
#pragma once

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <vector>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "copy_bytes.h"
#include "core.h"
#include "crosscore.h"
#include "raw_gm_scan.h"
#if !OPGEN_SIM_KERNEL_UNIT  // the fault, timeout and interrupt machinery of the block runner
#include "faults.h"
#endif
#include "tensor.h"

namespace opgen_sim {

constexpr int32_t kMaxArgs = 48;
constexpr int32_t kAbiVersion = 2;  // 2: counters may be null
constexpr int32_t kFlagStrictDataCopy = 1;
constexpr int32_t kFlagDetail = 2;    // per-API lanes, unaligned GM accesses, bytes per region
constexpr int32_t kFlagTimeline = 4;  // and phase spans per block (detail.h)

using Ptr = uint8_t*;

#if !OPGEN_SIM_KERNEL_UNIT  // the runtime object runs the blocks
template <size_t I>
using PtrAt = Ptr;

template <size_t... I>
inline void CallWith(void* fn, Ptr* a, std::index_sequence<I...>) {
    using F = void (*)(PtrAt<I>...);
    reinterpret_cast<F>(fn)(a[I]...);
}

template <size_t... N>
inline void CallEntry(void* fn, int32_t nargs, Ptr* args, std::index_sequence<N...>) {
    using Caller = void (*)(void*, Ptr*);
    static constexpr Caller table[] = {
        [](void* f, Ptr* a) { CallWith(f, a, std::make_index_sequence<N>{}); }...};
    table[nargs](fn, args);
}

// OPGEN_SIM_STRICT=1: checks beyond the hardware's (docs/simulator.md, "Strict mode"). Read at
// every launch (Job::strict_gm), so a process can switch it between launches.
inline bool StrictMode() {
    const char* env = std::getenv("OPGEN_SIM_STRICT");
    return env != nullptr && env[0] != '\0' && env[0] != '0';
}

// How a launch's blocks are shared among its threads: contiguous ranges, one a thread, split as
// evenly as the count allows (the static schedule torch's and OpenMP's parallel loops use), each
// run first to last by its thread, so that each thread streams through its own part of GM. Handing
// the blocks out one at a time in order interleaves the threads' parts, which costs a memory-bound
// kernel: element_add on 1M floats in 48 blocks, a plain two-thread C++ loop over the same blocks,
// AMD EPYC: 81 us interleaved against 68 us contiguous (and 68 us for two halves). A thread that
// has run its range takes blocks from the ends of the others' (a thread the host deschedules
// holds up no one), and a thread beyond the ranges (crosscore.h's helper threads) takes only such.
// With one thread the blocks run in order, 0 to blockDim - 1.
struct BlockRanges {
    static constexpr int32_t kMax = 64;
    std::atomic<uint64_t> span[kMax];  // first << 32 | end, of the blocks not taken
    int32_t count = 0;
    std::atomic<int32_t> entered{0};

    void Split(int32_t blocks, int32_t threads) {
        count = threads < 1 ? 1 : threads > kMax ? kMax : threads;
        for (int32_t k = 0; k < count; ++k) {
            const auto first = static_cast<uint64_t>(int64_t{blocks} * k / count);
            const auto end = static_cast<uint64_t>(int64_t{blocks} * (k + 1) / count);
            span[k].store(first << 32 | end, std::memory_order_relaxed);
        }
    }
    // The calling thread's range (count or more: none of its own).
    int32_t Enter() { return entered.fetch_add(1, std::memory_order_relaxed); }
    // The next block for the thread with range `home`: its range's first, else the last of
    // another's; -1 when none is left.
    int32_t Take(int32_t home) {
        if (home < count) {
            const int32_t b = TakeEnd(span[home], true);
            if (b >= 0) return b;
        }
        for (int32_t k = 1; k <= count; ++k) {
            const int32_t b = TakeEnd(span[(home + k) % count], false);
            if (b >= 0) return b;
        }
        return -1;
    }

private:
    static int32_t TakeEnd(std::atomic<uint64_t>& s, bool front) {
        uint64_t v = s.load(std::memory_order_relaxed);
        for (;;) {
            const uint64_t first = v >> 32, end = v & 0xffffffffu;
            if (first >= end) return -1;
            const uint64_t next = front ? (first + 1) << 32 | end : first << 32 | (end - 1);
            if (s.compare_exchange_weak(v, next, std::memory_order_acq_rel, std::memory_order_relaxed)) {
                return static_cast<int32_t>(front ? first : end - 1);
            }
        }
    }
};

struct Job {
    // Either a GM-pointer entry (the Python launch ABI) or a callable (ICPU_RUN_KF).
    void (*invoke)(void* ctx) = nullptr;
    void* ctx = nullptr;
    bool icpu = false;
    uint64_t tiling_key = 0;
    void* entry = nullptr;
    int32_t nargs = 0;
    Ptr* args = nullptr;
    int32_t block_dim = 1;  // the simulated cores run: AIV cores, task_ratio of them per block
    int32_t task_ratio = 1;  // AIV cores per launched block (2 for a __mix__(1, 2) kernel)
    int32_t aic_blocks = 0;  // cube cores, one per launched block, after the AIV cores (__mix__)
    uint64_t ub_capacity = 0;
    bool strict = true;
    bool strict_gm = StrictMode();  // the launch's OPGEN_SIM_STRICT, read once for its blocks
    const uint8_t* tiling = nullptr;
    uint64_t tiling_size = 0;
    const GmRegion* regions = nullptr;
    int32_t num_regions = 0;
    uint64_t footprint = 0;  // the GM arguments' bytes, summed (RunJob)
    int64_t* counters = nullptr;
    LaunchDetail* detail = nullptr;  // kFlagDetail: the blocks' Details merged here
    bool timeline = false;
    std::chrono::steady_clock::time_point origin;
    std::mutex detail_mu;
    BlockRanges ranges;               // the blocks not yet taken, a contiguous range per thread
    std::atomic<int32_t> taken{0};    // how many blocks have been taken (crosscore.h's count)
    std::mutex err_mu;
    int32_t err_block = -1;
    int32_t err_kind = 0;
    std::string err_api;
    std::string err_msg;
    bool err_secondary = false;
    // Cross-core waits, deadlocks, helper threads and cancellation (crosscore.h): a launch
    // timeout or an interrupt sets sync.cancel (or sync.deadline before the launch).
    LaunchSync sync;
    LaunchWatch watch;  // timeout, interrupt and faults of the blocks (faults.h)

    // The lowest failing block's error is the launch's; a secondary error (a deadlock, a
    // cancelled wait: SyncAbort) only when no block broke a rule, as it is then the consequence.
    void Record(int32_t block, ErrorKind kind, const std::string& api, const std::string& msg,
                bool secondary = false) {
        std::lock_guard<std::mutex> lock(err_mu);
        const bool better = err_block < 0 || (err_secondary && !secondary) ||
                            (err_secondary == secondary && block < err_block);
        if (better) {
            err_block = block;
            err_kind = static_cast<int32_t>(kind);
            err_api = api;
            err_msg = msg;
            err_secondary = secondary;
        }
    }
};

inline uint8_t* ThreadUb(uint64_t capacity) {
    return GuardedThreadUb(capacity);  // ends at an inaccessible page (faults.h)
}


inline int64_t SteadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

inline void RunBlock(Job& job, int32_t b) {
    Core core;
    core.block_idx = b;
    const int32_t aiv = job.block_dim - job.aic_blocks;
    core.block_num = aiv > 0 ? aiv / job.task_ratio : job.aic_blocks;  // the launch's numBlocks
    core.task_ratio = job.task_ratio;
    core.launch_core = b;
    if (b >= aiv) {  // a cube core: GetBlockIdx is its AI Core's index
        core.is_aic = true;
        core.block_idx = b - aiv;
    }
    core.ub = ThreadUb(job.ub_capacity);
    core.ub_capacity = job.ub_capacity;
    core.strict_datacopy = job.strict;
    core.strict_gm = job.strict_gm;
    core.tiling = job.tiling;
    core.tiling_size = job.tiling_size;
    core.regions = job.regions;
    core.num_regions = job.num_regions;
    core.icpu = job.icpu;
    core.tiling_key = job.tiling_key;
    core.raw_gm = ProgramStoresRawPointers();  // raw stores the simulator cannot see: no deferral
    core.stream_copies = job.footprint >= kStreamFootprint;
    core.stream_stores = job.footprint >= NonTemporalFootprint();
    std::unique_ptr<Detail> detail;
    if (job.detail != nullptr) {
        detail.reset(new Detail());
        detail->timeline = job.timeline;
        detail->origin = job.origin;
        core.detail = detail.get();
    }
    tls_core = &core;
    tls_sync = &job.sync;
    AscendC::tls_pipe = nullptr;
    job.sync.state[b].store(kBlockRunning, std::memory_order_relaxed);
    bool failed = true;
    // The block's time for the caller's counters (none: a caller that reads no counters skips
    // the two clock reads); its start is kept in the counter itself, in memory across sigsetjmp.
    if (job.counters != nullptr) core.counters[kTimeNs] = SteadyNs();
    BlockGuard guard(job.watch, b);  // a signal in the kernel, or a cancel, jumps back here
    if (sigsetjmp(guard.jump, 0) != 0) {
        job.Record(b, guard.Kind(), guard.Api(), guard.Message(core));
    } else try {
        const BlockGuard::Armed armed(guard);  // until the kernel returns or throws
        if (job.invoke != nullptr) {
            job.invoke(job.ctx);
        } else {
            CallEntry(job.entry, job.nargs, job.args, std::make_index_sequence<kMaxArgs + 1>{});
        }
        failed = false;
    } catch (const SyncAbort& e) {
        job.Record(b, e.error.kind, e.error.api, e.error.message, true);
    } catch (const SimError& e) {
        job.Record(b, e.kind, e.api, e.message + FailSite(e));
    } catch (const std::exception& e) {
        job.Record(b, ErrorKind::Generic, "C++", std::string("uncaught C++ exception: ") + e.what());
    } catch (...) {
        job.Record(b, ErrorKind::Generic, "C++", "uncaught C++ exception of unknown type");
    }
    if (job.counters != nullptr) {
        core.counters[kTimeNs] = SteadyNs() - core.counters[kTimeNs];
        std::memcpy(job.counters + static_cast<int64_t>(b) * kNumCounters, core.counters,
                    sizeof(core.counters));
    }
    if (detail != nullptr) {
        EndPhases(*detail);
        std::lock_guard<std::mutex> lock(job.detail_mu);
        job.detail->Merge(b, *detail);
    }
    FenceStreamedStores(core);  // the launch's caller, and later blocks, read what it stored
    tls_core = nullptr;
    tls_sync = nullptr;
    AscendC::tls_pipe = nullptr;
    job.sync.BlockEnded(b, failed);
}

// A thread's blocks: those of its own range, first to last, then those left in the others'.
inline void RunBlocks(Job& job) {
    const int32_t home = job.ranges.Enter();
    for (;;) {
        if (job.sync.cancel.load(std::memory_order_relaxed)) return;  // no block starts after it
        const int32_t b = job.ranges.Take(home);
        if (b < 0) return;
        job.taken.fetch_add(1, std::memory_order_seq_cst);
        RunBlock(job, b);
    }
}

// Spin-waiting for up to OPGEN_SIM_SPIN_US microseconds (default 100) before sleeping, as
// OpenMP runtimes do: launches that follow each other closely (an op per training step) then
// skip the futex wake-up of the workers, which costs more than a small kernel runs.
inline std::chrono::nanoseconds SpinWindow() {
    static const std::chrono::nanoseconds window = [] {
        const char* env = std::getenv("OPGEN_SIM_SPIN_US");
        const long us = env != nullptr ? std::atol(env) : 100;
        return std::chrono::nanoseconds(us > 0 ? us * 1000 : 0);
    }();
    return window;
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

// Spins until pred() holds or the spin window passes; returns pred().
template <typename Pred>
inline bool SpinUntil(Pred pred) {
    if (pred()) return true;
    const std::chrono::nanoseconds window = SpinWindow();
    if (window.count() == 0) return false;
    const auto deadline = std::chrono::steady_clock::now() + window;
    for (uint32_t i = 1;; ++i) {
        CpuRelax();
        if (pred()) return true;
        if (i % 64 == 0 && std::chrono::steady_clock::now() >= deadline) return false;
    }
}

// Persistent workers; the launching thread works too. One launch at a time per library.
class Pool {
public:
    std::mutex launch_mu;

    void Run(Job& job, int32_t workers) {
        bool wake = false;
        {
            std::lock_guard<std::mutex> lock(mu_);
            while (nthreads_ < workers) {
                std::thread(&Pool::Worker, this, nthreads_).detach();
                ++nthreads_;
            }
            job_ = &job;
            want_ = workers;
            busy_.store(workers, std::memory_order_relaxed);
            gen_.fetch_add(1, std::memory_order_release);
            wake = sleepers_ > 0;
        }
        if (wake) cv_.notify_all();
        RunBlocks(job);
        const auto idle = [&] { return busy_.load(std::memory_order_acquire) == 0; };
        if (!SpinUntil(idle)) {
            std::unique_lock<std::mutex> lock(mu_);
            done_.wait(lock, idle);
        }
    }

private:
    void Worker(int32_t id) {
        uint64_t seen = 0;
        for (;;) {
            const auto fresh = [&] { return gen_.load(std::memory_order_acquire) != seen; };
            if (!SpinUntil(fresh)) {
                std::unique_lock<std::mutex> lock(mu_);
                ++sleepers_;
                cv_.wait(lock, fresh);
                --sleepers_;
            }
            Job* job;
            {  // gen_, want_ and job_ of one launch together: Run writes them under mu_
                std::lock_guard<std::mutex> lock(mu_);
                seen = gen_.load(std::memory_order_relaxed);
                job = id < want_ ? job_ : nullptr;
            }
            if (job == nullptr) continue;
            RunBlocks(*job);
            if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                std::lock_guard<std::mutex> lock(mu_);
                done_.notify_all();
            }
        }
    }

    std::mutex mu_;
    std::condition_variable cv_;
    std::condition_variable done_;
    Job* job_ = nullptr;             // guarded by mu_, as is want_
    int32_t want_ = 0;
    std::atomic<uint64_t> gen_{0};
    std::atomic<int32_t> busy_{0};
    int32_t sleepers_ = 0;           // workers blocked on cv_ (guarded by mu_)
    int32_t nthreads_ = 0;
};

inline Pool*& PoolPtr() {
    static Pool* pool = nullptr;
    return pool;
}

inline Pool& GetPool() {
    static std::once_flag once;
    std::call_once(once, [] {
        PoolPtr() = new Pool();  // never destroyed: detached workers may outlive static teardown
        // A forked child has none of the workers: give it a fresh pool.
        pthread_atfork(nullptr, nullptr, [] { PoolPtr() = new Pool(); });
    });
    return *PoolPtr();
}

struct LastError {
    int32_t kind = 0;
    int32_t block = -1;
    std::string text;
};

inline LastError& ThreadLastError() {
    thread_local LastError e;
    return e;
}

// Detail of this thread's last launch with kFlagDetail (opgen_sim_last_detail).
inline LaunchDetail& ThreadLastDetail() {
    thread_local LaunchDetail d;
    return d;
}

inline int32_t& ThreadLastDetailRegions() {
    thread_local int32_t n = 0;
    return n;
}

// Tiling key for the next opgen_sim_launch on this thread (set by opgen_sim_set_tiling_key).
inline uint64_t& NextTilingKey() {
    thread_local uint64_t key = 0;
    return key;
}

#endif  // !OPGEN_SIM_KERNEL_UNIT

// A host framework's own thread pool (opgen_sim_launch_with): parallel(ctx, n, body, arg) runs
// body(arg) once on each of up to n threads, the calling thread included, and returns when all
// have returned. Using the framework's pool keeps two pools from competing for the cores.
using ParallelFn = void (*)(void* ctx, int32_t n, void (*body)(void*), void* arg);

#if !OPGEN_SIM_KERNEL_UNIT
inline void RunBlocksThunk(void* job) { RunBlocks(*static_cast<Job*>(job)); }

// Blocks run one after another on each thread; a block that waits for others (crosscore.h)
// while blocks remain unstarted starts a helper thread that takes them, so every blockDim works
// on any thread count. The helpers are joined before the launch returns.

// Host threads when a launch does not say: OPGEN_SIM_THREADS, else one per CPU core. Both are
// read once (hardware_concurrency reads /sys/devices/system/cpu/online on every call in glibc:
// a few microseconds, more than a small launch).
OPGEN_SIM_OUTLINE int32_t DefaultThreads()
#if OPGEN_SIM_OUTLINE_BODIES
{
    static const int32_t threads = [] {
        const char* env = std::getenv("OPGEN_SIM_THREADS");
        const int32_t n = env != nullptr ? static_cast<int32_t>(std::atoi(env)) : 0;
        return n > 0 ? n : -static_cast<int32_t>(std::thread::hardware_concurrency());
    }();
    return threads;  // negative: one per core, OPGEN_SIM_THREADS unset
}
#else
;
#endif

// A launch whose GM arguments add up to less than this runs its blocks on the calling thread
// when neither it nor OPGEN_SIM_THREADS says how many threads: waking another thread (0.5-1 us)
// costs more than such blocks take (element_add on 4096 floats, 2 blocks: 2.6 us on two threads,
// 2.1 us on one). torch's own element-wise ops stay on one thread below 32768 elements.
constexpr uint64_t kInlineFootprint = 64 * 1024;

// Runs all blocks of a job on up to max_threads threads (0: DefaultThreads()): on the calling
// thread alone, on the host's pool (`parallel`), or with this library's workers.
OPGEN_SIM_OUTLINE void RunJob(Job& job, int32_t max_threads, ParallelFn parallel = nullptr,
                              void* parallel_ctx = nullptr)
#if OPGEN_SIM_OUTLINE_BODIES
{
    job.footprint = 0;
    for (int32_t r = 0; r < job.num_regions; ++r) job.footprint += job.regions[r].size;
    int32_t hw = max_threads;
    if (hw <= 0) {
        hw = DefaultThreads();
        if (hw < 0) {  // one per core, unless the launch is too small to share
            hw = job.footprint < kInlineFootprint ? 1 : -hw;
        }
    }
    if (hw < 1) hw = 1;
    const int32_t threads = job.block_dim < hw ? job.block_dim : hw;
    job.ranges.Split(job.block_dim, threads);
    job.sync.Prepare(job.block_dim, &job.taken, &RunBlocksThunk, &job);
    job.sync.aiv_blocks = job.block_dim - job.aic_blocks;
    job.sync.task_ratio = job.task_ratio;
    WatchScope watch(job.watch, job.sync, job.block_dim);  // OPGEN_SIM_TIMEOUT, SIGINT, faults
    if (threads <= 1) {
        RunBlocks(job);
    } else if (parallel != nullptr) {
        parallel(parallel_ctx, threads, &RunBlocksThunk, &job);
    } else {
        Pool& pool = GetPool();
        std::lock_guard<std::mutex> lock(pool.launch_mu);
        pool.Run(job, threads - 1);
    }
    job.sync.JoinHelpers();
}
#else
;
#endif
#endif  // !OPGEN_SIM_KERNEL_UNIT

}  // namespace opgen_sim

// OPGEN_SIM_EXTERN_RUNTIME: the kernel's translation unit leaves the launch entries (and the
// runtime they pull in: pool, watchdog, fault reports) to the simulator runtime object that
// opgen_runtime.build compiles once per flag set and links beside the kernel.
#ifndef OPGEN_SIM_EXTERN_RUNTIME
extern "C" {

__attribute__((visibility("default"), weak)) int32_t opgen_sim_abi_version() {
    return opgen_sim::kAbiVersion;
}

// 1 if launches of this program defer copies (its source stores through no raw pointer,
// raw_gm_scan.h), else 0.
__attribute__((visibility("default"), weak)) int32_t opgen_sim_defers_copies() {
    return opgen_sim::ProgramStoresRawPointers() ? 0 : 1;
}

__attribute__((visibility("default"), weak)) int32_t opgen_sim_num_counters() {
    return opgen_sim::kNumCounters;
}

// Runs `entry` on block_dim simulated cores. args: nargs GM pointers (inputs, outputs,
// workspace, tiling); region_sizes/region_names describe each as a GM buffer for bounds checks
// (names joined by '\0'). counters receives block_dim * opgen_sim_num_counters() int64s, or is
// null when the caller reads none.
// Returns 0, or an error kind (details via opgen_sim_last_error).
// opgen_sim_launch on the host's thread pool (see ParallelFn).
__attribute__((visibility("default"), weak)) int32_t opgen_sim_launch_with(
    void* entry, int32_t nargs, uint8_t** args, const int64_t* region_sizes,
    const char* region_names, int32_t block_dim, int64_t ub_capacity, int32_t flags,
    int64_t tiling_size, int32_t max_threads, int64_t* counters, opgen_sim::ParallelFn parallel,
    void* parallel_ctx) {
    using namespace opgen_sim;
    LastError& last = ThreadLastError();
    last.kind = 0;
    if (nargs < 0 || nargs > kMaxArgs || block_dim < 1) {
        last = {static_cast<int32_t>(ErrorKind::Generic), -1,
                "launch: bad argument count or blockDim"};
        return last.kind;
    }
    GmRegion regions[kMaxArgs];
    const char* name = region_names;
    for (int32_t i = 0; i < nargs; ++i) {
        regions[i] = {args[i], static_cast<uint64_t>(region_sizes[i]), name};
        name += std::strlen(name) + 1;
    }
    Job job;
    job.entry = entry;
    job.nargs = nargs;
    job.args = args;
    // a mix kernel runs UnitTaskRatio AIV cores per block; one that declares itself mix
    // (KERNEL_TASK_TYPE_DEFAULT, BinaryDeclaredMix: build.py records it unless the kernel
    // registers Matmul objects) runs its declared AIV cores and a cube core (AIC) per block,
    // after all the AIV cores, as a __mix__ launch does. The caller's counters hold one row per
    // block, the sums of its cores' (their longest time).
    job.task_ratio = UnitTaskRatio();
    if (BinaryDeclaredMix() > 0) {
        job.task_ratio = BinaryDeclaredMix();
        job.aic_blocks = block_dim;
    }
    const int64_t aiv_cores = static_cast<int64_t>(block_dim) * job.task_ratio;
    job.block_dim = static_cast<int32_t>(aiv_cores + job.aic_blocks);
    std::vector<int64_t> core_counters;
    if (counters != nullptr && job.block_dim > block_dim) {
        core_counters.assign(static_cast<size_t>(job.block_dim) * kNumCounters, 0);
    }
    job.ub_capacity = static_cast<uint64_t>(ub_capacity);
    job.strict = (flags & kFlagStrictDataCopy) != 0;
    job.tiling = nargs > 0 ? args[nargs - 1] : nullptr;
    job.tiling_size = static_cast<uint64_t>(tiling_size);
    job.regions = regions;
    job.num_regions = nargs;
    job.counters = core_counters.empty() ? counters : core_counters.data();
    job.tiling_key = NextTilingKey();
    NextTilingKey() = 0;
    if ((flags & kFlagDetail) != 0) {
        job.detail = &ThreadLastDetail();
        job.detail->Reset(job.block_dim);
        ThreadLastDetailRegions() = nargs;
        job.timeline = (flags & kFlagTimeline) != 0;
        job.origin = std::chrono::steady_clock::now();
    }
    RunJob(job, max_threads, parallel, parallel_ctx);
    for (size_t i = 0; i < core_counters.size(); ++i) {
        const int64_t core = static_cast<int64_t>(i / kNumCounters);
        const bool aic = core >= aiv_cores;  // block core - aiv_cores's cube core
        const size_t row = static_cast<size_t>(aic ? core - aiv_cores : core / job.task_ratio);
        const size_t col = i % kNumCounters;
        int64_t& into = counters[row * kNumCounters + col];
        const bool first = !aic && core % job.task_ratio == 0;
        into = first ? core_counters[i]
                     : col == kTimeNs ? std::max(into, core_counters[i]) : into + core_counters[i];
    }
    if (job.watch.why.load() != kNotCancelled) {  // a timeout or an interrupt stopped it
        last.kind = static_cast<int32_t>(job.watch.why.load() == kCancelInterrupt
                                             ? ErrorKind::Interrupted
                                             : ErrorKind::LaunchTimeout);
        last.block = -1;
        last.text = "launch: " + job.watch.summary;
        return last.kind;
    }
    if (job.err_block >= 0) {
        last.kind = job.err_kind;
        last.block = job.err_block;
        last.text = job.err_api + ": " + job.err_msg;
        return last.kind;
    }
    return 0;
}

__attribute__((visibility("default"), weak)) int32_t opgen_sim_launch(
    void* entry, int32_t nargs, uint8_t** args, const int64_t* region_sizes,
    const char* region_names, int32_t block_dim, int64_t ub_capacity, int32_t flags,
    int64_t tiling_size, int32_t max_threads, int64_t* counters) {
    return opgen_sim_launch_with(entry, nargs, args, region_sizes, region_names, block_dim,
                                 ub_capacity, flags, tiling_size, max_threads, counters, nullptr,
                                 nullptr);
}

// The detail of this thread's last launch with flag 2 (kFlagDetail) as tab-separated lines
// (detail.h, LaunchDetail::Text), NUL-terminated in buf when it fits; returns its length.
__attribute__((visibility("default"), weak)) int64_t opgen_sim_last_detail(char* buf, int64_t cap) {
    const std::string text =
        opgen_sim::ThreadLastDetail().Text(opgen_sim::ThreadLastDetailRegions());
    const int64_t n = static_cast<int64_t>(text.size());
    if (cap > n) {
        std::memcpy(buf, text.data(), text.size());
        buf[n] = '\0';
    }
    return n;
}

// Sets the tiling key (TILING_KEY_IS) of this thread's next opgen_sim_launch.
__attribute__((visibility("default"), weak)) void opgen_sim_set_tiling_key(uint64_t key) {
    opgen_sim::NextTilingKey() = key;
}

__attribute__((visibility("default"), weak)) int32_t opgen_sim_last_error(char* buf, int32_t cap,
                                                                           int32_t* block) {
    const opgen_sim::LastError& e = opgen_sim::ThreadLastError();
    if (cap > 0) {
        const size_t n = e.text.size() < static_cast<size_t>(cap - 1) ? e.text.size()
                                                                       : static_cast<size_t>(cap - 1);
        std::memcpy(buf, e.text.data(), n);
        buf[n] = '\0';
    }
    *block = e.block;
    return e.kind;
}

}  // extern "C"
#endif  // OPGEN_SIM_EXTERN_RUNTIME
