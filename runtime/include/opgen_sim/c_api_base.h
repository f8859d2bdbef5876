// opgen NPU simulator: the C API of Ascend C (c_api/asc_simd.h) for npu_arch 2201, the Atlas A2/A3
// vector cores. Its functions take raw `__gm__ T*` and `__ubuf__ T*` operands; each one here checks
// them (a UB operand in the Unified Buffer of the core running the block, on a 32-byte boundary,
// every element the call reaches inside it; a GM operand in a GM buffer of the launch), views them
// as the C++ API's LocalTensor / GlobalTensor of exactly the elements the call reaches, and issues
// the C++ API's instruction as asc-devkit's impl/c_api/instr_impl/npu_arch_2201 does: the same
// semantics, checks and launch detail as a C++ kernel gets.
//
// This file: the operand views, the count forms' counter mode, asc_init, the system variables and
// synchronisation. The data moves are in c_api_datamove.h, the vector instructions in
// c_api_vector.h.
//
// Synchronisation: the simulator runs every pipe's instructions in program order (sync.h), so the
// flags and barriers a kernel sets (asc_sync_notify / asc_sync_wait, asc_sync_*, the barrier each
// _sync form ends with) are accepted and change nothing: a kernel that leaves one out computes
// here what it computes when the hardware's pipes happen to run in order.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

#include "kernel_operator.h"
#include "opgen_sim/ub_array.h"

#if defined(__NPU_ARCH__) && (__NPU_ARCH__ != 2201)
#error "opgen's simulator has the C API of npu_arch 2201 (Atlas A2/A3: dav-2201), not of this __NPU_ARCH__"
#endif

namespace opgen_sim {
namespace capi {

[[noreturn]] __attribute__((noinline, cold)) inline void FailNull(const char* api, const char* what, bool ub) {
    Fail(ub ? ErrorKind::LocalMemoryOutOfBounds : ErrorKind::GlobalMemoryOutOfBounds, api,
         std::string(what) + " is a null pointer");
}

[[noreturn]] __attribute__((noinline, cold)) inline void FailNotUb(const Core& c, const char* api, const char* what,
                                                                   const void* p) {
    char at[32];
    std::snprintf(at, sizeof(at), "%p", p);
    Fail(ErrorKind::LocalMemoryOutOfBounds, api,
         std::string(what) + " (" + at + ") is not an address in the Unified Buffer of block " +
             std::to_string(c.block_idx) + ": a __ubuf__ operand must point into a __ubuf__ array of the kernel "
             "(or the buffer of a LocalTensor)");
}

[[noreturn]] __attribute__((noinline, cold)) inline void FailUbRange(const Core& c, const char* api, const char* what,
                                                                     uint64_t offset, uint64_t bytes) {
    Fail(ErrorKind::UnifiedBufferOverflow, api,
         std::string(what) + ": bytes [" + Str(offset) + ", " + Str(offset + bytes) +
             ") of the Unified Buffer run past its end (" + Str(c.ub_capacity) + " bytes)");
}

[[noreturn]] __attribute__((noinline, cold)) inline void FailUbAlign(const char* api, const char* what,
                                                                     uint64_t offset) {
    Fail(ErrorKind::Alignment, api,
         std::string(what) + " is at UB offset " + Str(offset) + ", which is not 32-byte aligned (offset % 32 = " +
             Str(offset % kBlockBytes) + "); the C API's UB operands must start on a 32-byte boundary");
}

[[noreturn]] __attribute__((noinline, cold)) inline void FailNotGm(const char* api, const char* what, const void* p) {
    char at[32];
    std::snprintf(at, sizeof(at), "%p", p);
    Fail(ErrorKind::GlobalMemoryOutOfBounds, api,
         std::string(what) + " (" + at + ") is not in device memory: a __gm__ operand must point into a buffer "
             "the kernel was given (aclrtMalloc)");
}

// The UB operand `what` of `api`: `elems` elements of T from p, checked, as a LocalTensor of them.
template <typename T>
inline AscendC::LocalTensor<T> Ub(const char* api, const char* what, const T* p, uint64_t elems) {
    const Core& c = CurrentCore();
    if (p == nullptr) FailNull(api, what, true);
    const uint64_t offset =
        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(c.ub));
    if (offset >= c.ub_capacity) FailNotUb(c, api, what, p);
    if (offset % kBlockBytes != 0) FailUbAlign(api, what, offset);
    const uint64_t bytes = elems * sizeof(T);
    if (bytes > c.ub_capacity - offset) FailUbRange(c, api, what, offset, bytes);
    AscendC::LocalTensor<T> t;
    t.ptr_ = const_cast<T*>(p);
    t.size_ = static_cast<uint32_t>(elems);
    return t;
}

// The GM operand `what` of `api`: `elems` elements of T from p, in one of the launch's GM buffers
// (or the kernel's static data, as GlobalTensor::CheckRange allows), as a GlobalTensor of them.
template <typename T>
inline AscendC::GlobalTensor<T> Gm(const char* api, const char* what, const T* p, uint64_t elems) {
    if (p == nullptr) FailNull(api, what, false);
    const Core& c = CurrentCore();
    const auto* b = reinterpret_cast<const uint8_t*>(p);
    bool in_gm = false;
    for (int32_t i = 0; i < c.num_regions && !in_gm; ++i) {
        const GmRegion& r = c.regions[i];
        in_gm = r.begin != nullptr && b >= r.begin && b <= r.begin + r.size;
    }
    ImageData image;
    if (!in_gm && !FindImageData(b, &image)) FailNotGm(api, what, p);
    CheckGmRange(p, p, elems, elems, sizeof(T), TypeName<T>(), api);  // its end, in the same buffer
    AscendC::GlobalTensor<T> g;
    g.SetGlobalBuffer(const_cast<T*>(p), elems);
    return g;
}

// The count form of an instruction as asc-devkit's npu_arch_2201 implementation issues it: the mask
// register in counter mode holding `count`, one issue of the mask/repeat form (with the default
// strides, taking the register's mask), then normal mode again. The register keeps `count` in its
// low half afterwards, as on the hardware, for a later mask/repeat form that sets no mask.
template <typename F>
inline void CountForm(uint32_t count, F issue) {
    AscendC::SetMaskCount();
    AscendC::SetVectorMask<uint16_t>(0, count);
    issue();
    AscendC::SetMaskNorm();
}

template <typename T, typename... U>
inline constexpr bool kOneOf = (std::is_same_v<T, U> || ...);

// What each _sync form ends with: a barrier of all pipes (asc_sync_post_process).
inline void SyncPostProcess() { pipe_barrier(PIPE_ALL); }

}  // namespace capi
}  // namespace opgen_sim

// ---- misc ----------------------------------------------------------------------------------------
// asc_init: the core's state as a kernel starts it: no atomic mode, the mask register in normal
// mode with every lane on (InitSocState).
inline void asc_init() { AscendC::InitSocState(); }

// ---- system variables -----------------------------------------------------------------------------
inline int64_t asc_get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t asc_get_block_num() { return AscendC::GetBlockNum(); }
// The simulator runs vector kernels, one vector core a block: one sub-block, number 0.
inline int64_t asc_get_sub_block_id() { return AscendC::GetSubBlockIdx(); }
inline int64_t asc_get_sub_block_num() { return AscendC::GetTaskRation(); }
inline int64_t asc_get_system_cycle() { return AscendC::GetSystemCycle(); }
// The physical address of UB byte `offset` of this core: here the host address of that byte, which a
// kernel may turn back into a __ubuf__ pointer.
inline uint64_t asc_get_phy_buf_addr(uint64_t offset) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(opgen_sim::CurrentCore().ub + offset));
}

// ---- synchronisation (accepted: the pipes run in order, see above) -------------------------------
#define asc_sync_notify(pipe, tpipe, id) set_flag((pipe), (tpipe), (id))
#define asc_sync_wait(pipe, tpipe, id) wait_flag((pipe), (tpipe), (id))
#define asc_sync_pipe(pipe) pipe_barrier((pipe))

inline void asc_sync_vec() { pipe_barrier(PIPE_ALL); }
inline void asc_sync_mte2(int id) {
    set_flag(PIPE_MTE2, PIPE_MTE3, id);
    set_flag(PIPE_MTE2, PIPE_V, id);
    wait_flag(PIPE_MTE2, PIPE_MTE3, id);
    wait_flag(PIPE_MTE2, PIPE_V, id);
    pipe_barrier(PIPE_MTE2);
}
inline void asc_sync_mte3(int id) {
    set_flag(PIPE_MTE3, PIPE_MTE2, id);
    set_flag(PIPE_MTE3, PIPE_V, id);
    wait_flag(PIPE_MTE3, PIPE_MTE2, id);
    wait_flag(PIPE_MTE3, PIPE_V, id);
    pipe_barrier(PIPE_MTE3);
}
inline void asc_sync() { pipe_barrier(PIPE_ALL); }

// Cross-core flags (FFTS): mode 0, all vector cores of the launch, is CrossCoreSetFlag<0, pipe> /
// CrossCoreWaitFlag, which blocks really wait for (sync.h). Modes 2 (asc_sync_block_*: the cube and
// vector cores of a group) and 1 (asc_sync_subblock_*: inside one AI Core) synchronise cores the
// simulator does not run: CrossCoreSetFlag reports them.
#define asc_sync_inter_arrive(pipe, flag_id) ::AscendC::CrossCoreSetFlag<0, (pipe)>((flag_id))
#define asc_sync_inter_wait(pipe, flag_id) ::AscendC::CrossCoreWaitFlag<0, (pipe)>((flag_id))
#define asc_sync_block_arrive(pipe, flag_id) ::AscendC::CrossCoreSetFlag<2, (pipe)>((flag_id))
#define asc_sync_block_wait(pipe, flag_id) ::AscendC::CrossCoreWaitFlag<2, (pipe)>((flag_id))
#define asc_sync_subblock_arrive(pipe, flag_id) ::AscendC::CrossCoreSetFlag<1, (pipe)>((flag_id))
#define asc_sync_subblock_wait(pipe, flag_id) ::AscendC::CrossCoreWaitFlag<1, (pipe)>((flag_id))

// ---- the mask register ------------------------------------------------------------------------------
inline void asc_set_mask_count() { AscendC::SetMaskCount(); }
inline void asc_set_mask_norm() { AscendC::SetMaskNorm(); }
inline void asc_set_vector_mask(uint64_t mask1, uint64_t mask0) { AscendC::SetVectorMask<uint16_t>(mask1, mask0); }
