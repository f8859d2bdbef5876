// opgen NPU simulator: per-core context, errors, scalar types and kernel-language macros.
#pragma once

#include <execinfo.h>

#include <cmath>
#include <cstddef>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "detail.h"
#include "outline.h"

#include "task_ratio.h"

namespace opgen_sim {
// The same, for the whole process: set with it. A CPU-debug driver's ICPU_RUN_KF launches may be
// in another binary than its kernels (a kernel library the driver links).
inline bool& IcpuMatmulMixProgram() {
    static bool mix = false;
    return mix;
}
}  // namespace opgen_sim

// ---- Kernel-language keywords of Ascend C, mapped onto host C++ ----------------------------
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __kfc_workspace__
#define __kfc_workspace__  // the workspace parameter a mix kernel's Matmul objects use
#endif
#ifndef __global__
#define __global__ __attribute__((visibility("default")))
#endif
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif
#define KERNEL_TASK_TYPE_DEFAULT(type)
#define KERNEL_TASK_TYPE(key, type)
// Which kind of core runs the code: a vector core (AIV) but for the cube cores (AIC) of a
// __mix__ kernel's launch (docs/simulator.md, "Mix kernels"): `if ASCEND_IS_AIC { ... }`.
namespace opgen_sim {
inline bool CoreIsAic();
}  // namespace opgen_sim
#define ASCEND_IS_AIV (!::opgen_sim::CoreIsAic())
#define ASCEND_IS_AIC (::opgen_sim::CoreIsAic())
#define ASCEND_IS_NOT_AIV (::opgen_sim::CoreIsAic())
#define ASCEND_IS_NOT_AIC (!::opgen_sim::CoreIsAic())
// The core kinds (asc-devkit's sys_constants.h) and g_coreType, CANN's CPU-debug variable the
// macros above read: here the running core's kind, read where it is used.
namespace AscendC {
constexpr int32_t MIX = 0;
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;
}  // namespace AscendC
namespace opgen_sim {
struct CoreTypeVar {
    operator int32_t() const { return CoreIsAic() ? AscendC::AIC : AscendC::AIV; }  // NOLINT
};
}  // namespace opgen_sim
inline constexpr opgen_sim::CoreTypeVar g_coreType{};

// half: a real IEEE binary16 type (GCC's _Float16 rounds every store to 16 bits).
using half = _Float16;

// bfloat16_t: storage type with round-to-nearest-even conversion from float.
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U> ||
                                                      std::is_same_v<U, half>>>
    bfloat16_t(U v) { FromFloat(static_cast<float>(v)); }  // NOLINT: implicit like the hardware type
    operator float() const {
        uint32_t u = static_cast<uint32_t>(bits) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    void FromFloat(float f) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN stays NaN
            bits = static_cast<uint16_t>((u >> 16) | 0x40u);
            return;
        }
        u += 0x7fffu + ((u >> 16) & 1u);
        bits = static_cast<uint16_t>(u >> 16);
    }
};

namespace opgen_sim {

// Error kinds; the numbering is shared with opgen_runtime/errors.py (ERROR_KINDS).
enum class ErrorKind : int32_t {
    Generic = 1,
    UnifiedBufferOverflow = 2,
    Alignment = 3,
    GlobalMemoryOutOfBounds = 4,
    Queue = 5,
    VectorCount = 6,
    LocalMemoryOutOfBounds = 7,
    KernelAssert = 8,
    Tiling = 9,
    KernelFault = 20,    // a signal in the kernel (faults.h)
    LaunchTimeout = 21,  // OPGEN_SIM_TIMEOUT
    Interrupted = 22,    // SIGINT during the launch
};

constexpr int32_t kMaxFailPcs = 24;

struct SimError {
    ErrorKind kind;
    std::string api;
    std::string message;
    // Return addresses where Fail was called; faults.h resolves them to the kernel's line.
    void* pcs[kMaxFailPcs] = {};
    int32_t npcs = 0;
};

[[noreturn]] __attribute__((noinline, cold)) OPGEN_SIM_OUTLINE void Fail(ErrorKind kind, const char* api,
                                                                        const std::string& message)
#if OPGEN_SIM_OUTLINE_BODIES
{
    SimError e{kind, api, message};
    e.npcs = backtrace(e.pcs, kMaxFailPcs);
    throw e;
}
#else
;
#endif

// The same with a message that is a literal: the call site builds no std::string (a kernel unit
// inlines many checks, and each string it built was code in every kernel).
[[noreturn]] __attribute__((noinline, cold)) OPGEN_SIM_OUTLINE void Fail(ErrorKind kind, const char* api,
                                                                        const char* message)
#if OPGEN_SIM_OUTLINE_BODIES
{
    Fail(kind, api, std::string(message));  // one more frame of the simulator's in its report
}
#else
;
#endif

// Per-block counters; plain integers summed by the host after the launch.
enum Counter : int {
    kGmToUbBytes = 0,
    kUbToGmBytes,
    kVectorInstructions,
    kVectorRepeats,
    kLanesUsed,
    kLanesTotal,
    kPeakUbBytes,
    kTimeNs,
    kNumCounters,
};

struct GmRegion {
    const uint8_t* begin;
    uint64_t size;
    const char* name;
};

// UB contents the simulator has not produced yet (opgen_sim/deferred.h): a DataCopy
// (GM->UB) still to be done (nsteps == 0, no cast), or a program of element-wise instructions (a
// chain: the first reads its operands, each later one the result of the one before), possibly
// ending in a Cast to another element type, whose result is the UB range, computed from operands
// in GM or in UB ranges no entry produces.
struct Step {
    // d[i] = f(x[i]), f(x[i], other[i]), f(other[i], x[i]) or f(x[i], x[i]) for i < n, where
    // `other` is read from element `first` of the entry's operands on.
    void (*run)(const Step& s, uint8_t* d, const uint8_t* x, uint64_t first, uint64_t n);
    const uint8_t* other;  // the second operand at the entry's element 0, or null
    alignas(8) unsigned char fn[16];  // the instruction's lane function (a trivially copyable closure)
};
constexpr int32_t kMaxSteps = 8;

// The fields the scans of the list read (ub, bytes, gm, in_bytes, nsteps, the first step's
// operand) lie in the entry's first 64 bytes.
struct Pending {
    uint8_t* ub;
    uint64_t bytes;
    const uint8_t* gm;  // a copy's source; a program's first operand (its first step's x)
    uint64_t in_bytes;  // the bytes of each operand (bytes, unless a cast)
    const void* type;   // a program's element type (deferred.h, TypeTag): its result's
    uint32_t elem;      // a program's element size: its result's
    int32_t nsteps;     // 0 (and no cast): a copy
    Step steps[kMaxSteps];
    uint32_t in_elem;   // the element size of the steps and operands (elem, unless a cast)
    Step cast;          // run non-null: the program ends converting in_elem- to elem-sized elements
    // (a new field: copy it in MoveEntry, deferred.h)
};
constexpr int32_t kMaxPending = 32;

struct CubeMem;  // the cube core's L1/L0A/L0B/L0C/bias table (cube_mem.h)

// The GM lines a streaming copy guesses come next (the bytes after its GM end), prefetched a
// share at a time by the vector instructions that follow it (PlanPrefetch, DripPrefetch) rather
// than all during the copy: see copy_bytes.h, "The next lines".
struct PrefetchPlan {
    const uint8_t* next = nullptr;  // the first line not yet prefetched
    uint64_t left = 0;              // bytes still to prefetch
    uint64_t step = 0;              // bytes a vector instruction prefetches
    int64_t set_at = 0;             // the core's vector instruction count when planned
};

// State of one simulated AI Core (vector core) while it runs one block.
struct Core {
    int64_t block_idx = 0;
    int64_t block_num = 1;
    int64_t task_ratio = 1;  // AIV cores per block: GetTaskRation, GetSubBlockIdx
    bool is_aic = false;     // a cube core of a __mix__ launch (block_idx: its AI Core)
    int32_t launch_core = 0;  // the core's index among all the launch's (AIV cores, then AIC)
    uint8_t* ub = nullptr;  // Unified Buffer base, 64-byte aligned
    uint64_t ub_capacity = 0;
    uint64_t ub_used = 0;
    bool strict_datacopy = true;
    // Strict mode (OPGEN_SIM_STRICT=1): also bound GM accesses by the size a GlobalTensor was
    // given (SetGlobalBuffer), which the hardware does not check.
    bool strict_gm = false;
    const uint8_t* tiling = nullptr;
    uint64_t tiling_size = 0;
    const GmRegion* regions = nullptr;
    int32_t num_regions = 0;
    bool icpu = false;  // launched by ICPU_RUN_KF: GM buffers are the GmAlloc'ed ones
    // Vector mask register and its mode (SetMaskCount/SetMaskNorm/SetVectorMask/ResetMask).
    bool mask_counter = false;
    uint64_t mask_hi = ~0ull;
    uint64_t mask_lo = ~0ull;
    // DEQSCALE's s322fp16 scale (SetDeqScale(half)): int32_t -> half Cast multiplies by it
    float deq_scale = 1.0f;
    // the accumulator of the last ReduceSum (count form or mask/repeat form), as its T's bits:
    // what GetReduceRepeatSumSpr reads
    uint64_t reduce_sum_acc = 0;
    // RSVD_CNT: the elements the last GatherMask kept (AscendCUtils::GetRsvdCnt,
    // GetGatherMaskRemainCount)
    uint64_t rsvd_cnt = 0;
    // GM polls of this block (DataCacheCleanAndInvalid, ReadGmByPassDCache): crosscore.h, NotePoll
    uint32_t gm_polls = 0;
    // Atomic mode of copies to GM (SetAtomicAdd<T>/SetAtomicMax<T>/SetAtomicMin<T>/SetAtomicNone).
    int32_t atomic_op = 0;
    const char* atomic_type = nullptr;
    uint64_t tiling_key = 0;  // TILING_KEY_IS
    // SetPadValue<T>(v): the bits of v, which DataCopyPad(GM->UB) with isPad false fills with once
    // set in this block
    uint64_t pad_bits = 0;
    bool pad_set = false;
    int64_t counters[kNumCounters] = {};
    // Deferred work; the UB ranges of the entries never overlap one another.
    Pending pending[kMaxPending];
    int32_t npending = 0;
    // The kernel took a raw GM pointer (GlobalTensor::address_): it may store through it at any
    // later time, unseen, so from then on this block defers nothing (deferred.h).
    bool raw_gm = false;
    // The launch's GM arguments add up to kStreamFootprint or more: its GM <-> UB copies come
    // from L3 or memory, not the core's cache (copy_bytes.h)
    bool stream_copies = false;
    // ... NonTemporalFootprint() or more: its copies to GM store past the cache (copy_bytes.h)
    bool stream_stores = false;
    // Such stores were made and not yet fenced: another thread may not see them (deferred.h,
    // FenceStreamedStores, run where other threads may read GM)
    bool stores_unfenced = false;
    // The next source lines of the copies from GM and destination lines of the copies to GM,
    // and whether either has lines left (DripPrefetch)
    PrefetchPlan pf_read, pf_write;
    bool pf_pending = false;
    Detail* detail = nullptr;  // launch detail for `opgen profile` (detail.h), null if not asked
    // The cube memories, bound the first time the block uses one (cube_mem.h, CubeOf).
    CubeMem* cube = nullptr;
};

enum AtomicOp : int32_t { kAtomicNone = 0, kAtomicAdd, kAtomicMax, kAtomicMin };

inline thread_local Core* tls_core = nullptr;

[[noreturn]] __attribute__((noinline, cold)) inline void NoCurrentCore() {
    throw std::logic_error("Ascend C API called outside a simulated kernel launch");
}

inline bool CoreIsAic() {
    const Core* c = tls_core;
    return c != nullptr && c->is_aic;
}

// The calling thread's core. A kernel library's thread-locals are reached through a call to
// __tls_get_addr (it is dlopen'ed), so the hot APIs read it once and hand it to their helpers.
inline Core& CurrentCore() {
    Core* c = tls_core;
    if (__builtin_expect(c == nullptr, 0)) NoCurrentCore();
    return *c;
}

constexpr uint32_t kBlockBytes = 32;    // ONE_BLK_SIZE: DataCopy and UB address granule
constexpr uint32_t kRepeatBytes = 256;  // one vector repeat processes 256 bytes

// `step` bytes of `plan` prefetched, a line at a time (for writing when kWrite is 1); returns
// whether lines are left.
template <int kWrite>
inline bool DripPlan(PrefetchPlan& plan) {
    if (plan.left == 0) return false;
    const uint64_t k = plan.left < plan.step ? plan.left : plan.step;
    for (uint64_t o = 0; o < k; o += 64) __builtin_prefetch(plan.next + o, kWrite, 3);
    plan.next += k;
    plan.left -= k;
    return plan.left > 0;
}

// One vector instruction's share of the planned prefetches (PlanPrefetch): the source lines of
// the copies in for reading, the destination lines of the copies out for writing.
__attribute__((noinline)) inline void DripPrefetch(Core& c) {
    const bool more_read = DripPlan<0>(c.pf_read);
    const bool more_write = DripPlan<1>(c.pf_write);
    c.pf_pending = more_read || more_write;
}

// A streaming copy ends at GM `end`: plans the prefetch of the n bytes after it over the vector
// instructions to come, spread evenly over as many as ran since the plan's previous copy (at
// least 512 bytes each), and returns true; or, when fewer than two ran (a copy after a copy, the
// first copy of a block), plans nothing and returns false: the copy prefetches them itself.
inline bool PlanPrefetch(Core& c, PrefetchPlan& plan, const uint8_t* end, uint64_t n) {
    const int64_t now = c.counters[kVectorInstructions];
    const int64_t gap = now - plan.set_at;
    plan.set_at = now;
    if (gap < 2) {
        plan.left = 0;
        return false;
    }
    const uint64_t share = (n / static_cast<uint64_t>(gap) + 63) & ~uint64_t{63};
    plan.next = end;
    plan.left = n;
    plan.step = share < 512 ? 512 : share;
    c.pf_pending = true;
    return true;
}

// `api` names the instruction in the launch detail (by default the calling function's name).
template <typename T>
__attribute__((always_inline)) inline void CountVector(Core& c, uint64_t count, const char* api) {
    if (__builtin_expect(c.pf_pending, 0)) DripPrefetch(c);
    const uint64_t lanes = kRepeatBytes / sizeof(T);
    const uint64_t repeats = (count + lanes - 1) / lanes;
    c.counters[kVectorInstructions] += 1;
    c.counters[kVectorRepeats] += static_cast<int64_t>(repeats);
    c.counters[kLanesUsed] += static_cast<int64_t>(count);
    c.counters[kLanesTotal] += static_cast<int64_t>(repeats * lanes);
    if (c.detail != nullptr) {
        NoteLanes(*c.detail, api, static_cast<uint32_t>(lanes), 0, static_cast<int64_t>(repeats),
                  static_cast<int64_t>(count));
    }
}
template <typename T>
inline void CountVector(uint64_t count, const char* api = __builtin_FUNCTION()) {
    CountVector<T>(CurrentCore(), count, api);
}

inline std::string Str(uint64_t v) { return std::to_string(v); }

// Non-deduced context: scalar arguments take the tensor's element type, as in Ascend C.
template <typename T>
struct Id {
    using type = T;
};

// Resets the per-core state a previous kernel could leave behind (InitSocState, TPipe()).
inline void ResetSocState(Core& c) {
    c.mask_counter = false;
    c.mask_hi = c.mask_lo = ~0ull;
    c.atomic_op = kAtomicNone;
    c.atomic_type = nullptr;
}

[[noreturn]] inline void AssertFail(const char* cond, const char* file, int line) {
    Fail(ErrorKind::KernelAssert, "ascendc_assert",
         std::string("assertion failed: ") + cond + " at " + file + ":" + std::to_string(line));
}

template <typename... Args>
[[noreturn]] inline void AssertFail(const char* cond, const char* file, int line, const char* fmt,
                                    Args... args) {
    char msg[512];
    if constexpr (sizeof...(Args) == 0) {
        std::snprintf(msg, sizeof(msg), "%s", fmt);
    } else {
        std::snprintf(msg, sizeof(msg), fmt, args...);
    }
    Fail(ErrorKind::KernelAssert, "ascendc_assert",
         std::string("assertion failed: ") + cond + " at " + file + ":" + std::to_string(line) +
             ": " + msg);
}

template <typename T>
constexpr const char* TypeName() {
    if constexpr (std::is_same_v<T, half>) return "half";
    else if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else if constexpr (std::is_same_v<T, bfloat16_t>) return "bfloat16_t";
    else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
    else if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
    else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
    else if constexpr (std::is_same_v<T, uint16_t>) return "uint16_t";
    else if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
    else if constexpr (std::is_same_v<T, uint32_t>) return "uint32_t";
    else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
    else if constexpr (std::is_same_v<T, uint64_t>) return "uint64_t";
    else return "T";
}

}  // namespace opgen_sim

namespace AscendC {

constexpr int32_t ONE_BLK_SIZE = 32;
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr int32_t DEFAULT_BLK_NUM = 8;
constexpr int32_t MAX_REPEAT_TIMES = 255;
constexpr int32_t DEFAULT_C0_SIZE = 32;  // bytes of a C0 block (a fractal row)
// The simulated Ascend910B's (dav-2201) local memory sizes, as CANN's kernel constants give them:
// UB 192 KiB, of which 184 KiB for a kernel's vector buffers; L1 512 KiB less the 128 bytes the
// Matmul server reserves; L0C 128 KiB.
constexpr int32_t TOTAL_VEC_LOCAL_SIZE = 184 * 1024;
constexpr uint32_t TOTAL_UB_SIZE = 192 * 1024;
constexpr uint32_t TMP_UB_OFFSET = 184 * 1024;
constexpr uint32_t TOTAL_L1_SIZE = 512 * 1024 - 128;
constexpr uint32_t TOTAL_L0C_SIZE = 128 * 1024;
constexpr uint32_t TOTAL_L0A_SIZE = 64 * 1024;
constexpr uint32_t TOTAL_L0B_SIZE = 64 * 1024;
constexpr uint32_t TMP_UB_SIZE = 8 * 1024;
// The kernel constants of CANN's basic API (asc-devkit impl/basic_api/utils/
// kernel_utils_constants.h, the A2/A3 values) that operator kernels name unqualified after
// `using namespace AscendC` (ops-nn's add_layer_norm: ONE_BLK_FLOAT_NUM, BRCB_BROADCAST_NUMBER).
// Element sizes and counts: of a type, a 32-byte block, a 256-byte repeat.
constexpr uint8_t B8_BYTE_SIZE = 1;
constexpr uint8_t B16_BYTE_SIZE = 2;
constexpr uint8_t B32_BYTE_SIZE = 4;
constexpr uint8_t B64_BYTE_SIZE = 8;
constexpr int32_t ONE_BYTE_BIT_SIZE = 8;
constexpr int32_t BLOCK_CUBE = 16;  // a cube fractal's side
constexpr uint8_t B16_DATA_NUM_PER_BLOCK = ONE_BLK_SIZE / B16_BYTE_SIZE;
constexpr uint8_t B32_DATA_NUM_PER_BLOCK = ONE_BLK_SIZE / B32_BYTE_SIZE;
constexpr uint32_t ONE_BLK_HALF_NUM = ONE_BLK_SIZE / B16_BYTE_SIZE;
constexpr uint32_t ONE_BLK_FLOAT_NUM = ONE_BLK_SIZE / B32_BYTE_SIZE;
constexpr int32_t B16_DATA_NUM_PER_REPEAT = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
constexpr int32_t B32_DATA_NUM_PER_REPEAT = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
constexpr uint32_t HALF_REPEAT_SIZE = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
constexpr uint32_t FLOAT_REPEAT_SIZE = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
constexpr uint32_t ONE_REPEAT_HALF_SIZE = HALF_REPEAT_SIZE;
constexpr uint32_t ONE_REPEAT_FLOAT_SIZE = FLOAT_REPEAT_SIZE;
constexpr uint32_t MAX_REPEAT_HALF_SIZE = ONE_REPEAT_HALF_SIZE * MAX_REPEAT_TIMES;
constexpr uint32_t MAX_REPEAT_FLOAT_SIZE = ONE_REPEAT_FLOAT_SIZE * MAX_REPEAT_TIMES;
constexpr int32_t DEFAULT_BLOCK_SIZE = ONE_REPEAT_BYTE_SIZE;
// Masks and strides of the mask/repeat (level-0) forms.
constexpr uint64_t FULL_MASK = ~uint64_t{0};
constexpr uint64_t CONST_MASK_VALUE = uint64_t{1} << 63;
constexpr int32_t FULL_MASK_LEN = 128;
constexpr int32_t HALF_MASK_LEN = 64;
constexpr uint16_t MAX_HALF_MASK_LEN = 64;
constexpr uint16_t MASK_ARRAY_SIZE = 4;
constexpr int32_t POWER_MASK_NUM = 8;
constexpr int32_t HALF_FACTOR = 2;
constexpr int32_t DOUBLE_FACTOR = 2;
constexpr uint8_t HALF_DEFAULT_REPEAT_STRIDE = 4;
constexpr uint8_t ONE_FOURTH_DEFAULT_REPEAT_STRIDE = 2;
constexpr int32_t DEFAULT_REDUCE_DST_REP_STRIDE = 1;
constexpr int32_t MIN_REPEAT_TIMES = 0;
constexpr uint32_t BRCB_BROADCAST_NUMBER = 8;
constexpr uint32_t BRCB_MAX_REPEAT_SIZE = BRCB_BROADCAST_NUMBER * MAX_REPEAT_TIMES;
// DataCopy's block counts and lengths, and the stride fields' ranges.
constexpr int32_t MIN_BLOCK_LEN = 1;
constexpr int32_t MAX_BLOCK_LEN = 65535;
constexpr int32_t MIN_BLOCK_COUNT = 1;
constexpr int32_t MAX_BLOCK_COUNT = 4095;
constexpr int32_t MIN_BLOCK_NUM = 1;
constexpr int32_t MAX_16BITS_STRIDE = 65535;
constexpr int32_t MAX_8BITS_STRIDE = 255;
// IEEE single-precision special values, as bit patterns.
constexpr uint32_t F32_INF = 0x7f800000;
constexpr uint32_t F32_NEG_INF = 0xff800000;
constexpr uint32_t F32_NAN = 0x7fc00000;

inline int64_t GetBlockIdx() { return opgen_sim::CurrentCore().block_idx; }
inline int64_t GetBlockNum() { return opgen_sim::CurrentCore().block_num; }
// A __mix__(1, 2) launch runs 2 AIV cores per block: GetBlockIdx is in [0, 2 * numBlocks),
// GetSubBlockIdx is the core's index within its block (reference "GetBlockIdx").
inline int64_t GetSubBlockIdx() {
    const opgen_sim::Core& c = opgen_sim::CurrentCore();
    return c.is_aic ? 0 : c.block_idx % c.task_ratio;
}
// GetDataBlockSizeInBytes: the bytes of one DataBlock (32 on the Atlas A2/A3).
constexpr int16_t GetDataBlockSizeInBytes() { return ONE_BLK_SIZE; }
inline int64_t GetTaskRation() { return opgen_sim::CurrentCore().task_ratio; }
// GetSystemCycle: the system counter, which the reference converts to time at 50 MHz on the
// Atlas A2 and A3 products (time = cycles / 50 us): here the host's monotonic clock in those units.
inline int64_t GetSystemCycle() {
    return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::steady_clock::now().time_since_epoch())
                                    .count() /
                                20);
}

// InitSocState: clears the mask mode, the vector mask and the atomic mode of this core.
inline void InitSocState() { opgen_sim::ResetSocState(opgen_sim::CurrentCore()); }

}  // namespace AscendC

// block_idx / block_num: the kernel language's builtin variables (CANN's "核函数" guide:
// `uint32_t core_idx = block_idx; uint32_t core_num = block_num;`), GetBlockIdx() and
// GetBlockNum() of the running core. Every kernel has them: .asc programs and op kernels alike
// (ops-nn's deep_norm, 30 others, read block_idx). A local of the same name shadows them.
namespace opgen_sim {
struct BlockIdxVar {
    operator int64_t() const { return AscendC::GetBlockIdx(); }  // NOLINT: reads like the builtin
};
struct BlockNumVar {
    operator int64_t() const { return AscendC::GetBlockNum(); }  // NOLINT
};
}  // namespace opgen_sim
inline const opgen_sim::BlockIdxVar block_idx{};
inline const opgen_sim::BlockNumVar block_num{};

// likely(x) / unlikely(x): branch hints, as CANN's kernel headers give kernels.
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

// ascendc_assert(cond) / ascendc_assert(cond, fmt, args...): a failed check is a KernelAssert
// error naming the condition, the file and line, and the formatted message.
#ifndef ascendc_assert
#define ascendc_assert(cond, ...) \
    ((cond) ? void(0) : ::opgen_sim::AssertFail(#cond, __FILE__, __LINE__, ##__VA_ARGS__))
#endif

// KERNEL_LOG(level, fmt, args...): asc-devkit's kernel log (impl/basic_api/kernel_log.h), which
// its CPU-debug build prints: here one line on stderr, "[LEVEL][opgen-sim][block N] file:line:
// message", for the levels KERNEL_DEBUG, KERNEL_INFO, KERNEL_WARN and KERNEL_ERROR.
#define OPGEN_SIM_KERNEL_LOG(tag, format, ...)                                                  \
    std::fprintf(stderr, "[" tag "][opgen-sim][block %lld] %s:%d: " format "\n",               \
                 static_cast<long long>(::opgen_sim::tls_core != nullptr ? ::opgen_sim::tls_core->block_idx : 0), \
                 __FILE__, __LINE__, ##__VA_ARGS__)
#define KERNEL_LOG_KERNEL_DEBUG(format, ...) OPGEN_SIM_KERNEL_LOG("DEBUG", format, ##__VA_ARGS__)
#define KERNEL_LOG_KERNEL_INFO(format, ...) OPGEN_SIM_KERNEL_LOG("INFO", format, ##__VA_ARGS__)
#define KERNEL_LOG_KERNEL_WARN(format, ...) OPGEN_SIM_KERNEL_LOG("WARN", format, ##__VA_ARGS__)
#define KERNEL_LOG_KERNEL_ERROR(format, ...) OPGEN_SIM_KERNEL_LOG("ERROR", format, ##__VA_ARGS__)
#ifndef KERNEL_LOG
#define KERNEL_LOG(level, format, ...) KERNEL_LOG_##level(format, ##__VA_ARGS__)
#endif
// ASCENDC_ASSERT(cond, behavior): as asc-devkit's CPU-debug build, a failed check runs `behavior`
// (usually a KERNEL_LOG of why) and stops the kernel: a KernelAssert error naming the condition.
#ifndef ASCENDC_ASSERT
#define ASCENDC_ASSERT(cond, behavior)                                                          \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            behavior;                                                                           \
            ::opgen_sim::AssertFail(#cond, __FILE__, __LINE__);                                 \
        }                                                                                       \
    } while (0)
#endif

// ASSERT as the NPU compiles it: to nothing, so code that builds for the device builds here
// (kernels write `x = n ASSERT(n != 0);` or name functions that only an expanded check would
// look up). In libraries built with OPGEN_SIM_STRICT=1 (OPGEN_SIM_CHECKED_ASSERT, added by the
// runtime's build) a failed check is reported to the host as an error, as CANN's CPU-debug
// build asserts.
#if !defined(ASSERT) && !(defined(OPGEN_SIM_CHECKED_ASSERT) && OPGEN_SIM_CHECKED_ASSERT)
#define ASSERT(expr)
#endif
#ifndef ASSERT
#define ASSERT(expr)                                                                           \
    do {                                                                                       \
        if (!(expr)) {                                                                         \
            ::opgen_sim::Fail(::opgen_sim::ErrorKind::KernelAssert, "ASSERT",                  \
                              std::string("assertion failed: ") + #expr + " at " + __FILE__ + \
                                  ":" + std::to_string(__LINE__));                             \
        }                                                                                      \
    } while (0)
#endif
