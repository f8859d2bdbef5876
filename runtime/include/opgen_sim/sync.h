// opgen NPU simulator: pipeline synchronisation (accepted; the simulator runs pipes in order)
// and cross-core synchronisation (SyncAll, IBSet/IBWait, CrossCoreSetFlag/CrossCoreWaitFlag:
// blocks really wait for one another, crosscore.h).
#pragma once

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstring>
#include <string>

#include "crosscore.h"
#include "kernel_utils.h"
#include "tensor.h"

enum pipe_t : uint8_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX };
enum : int32_t {
    EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7,
};

inline void pipe_barrier(pipe_t) {}
inline void set_flag(pipe_t, pipe_t, int32_t) {}
inline void wait_flag(pipe_t, pipe_t, int32_t) {}

namespace AscendC {

template <pipe_t pipe>
inline void PipeBarrier() {}

template <HardEvent event>
inline void SetFlag(int32_t eventID) { (void)eventID; }

template <HardEvent event>
inline void WaitFlag(int32_t eventID) { (void)eventID; }

inline void DataCacheCleanAndInvalid() {}

// SetNextTaskStart / WaitPreTaskEnd: let the parts of consecutive kernels of a superkernel that do
// not touch each other's data overlap. Outside a superkernel (CANN's build defines
// __ASCENDC_SUPERKERNEL_EARLY_START_*, or FORCE) they do nothing, as asc-devkit's dav_c220
// implementation; the simulator runs a stream's launches one after another, so there is nothing to
// overlap either way.
template <pipe_t AIV_PIPE = PIPE_MTE3, pipe_t AIC_PIPE = PIPE_FIX, bool FORCE = false>
inline void SetNextTaskStart() {}
template <bool FORCE = false>
inline void WaitPreTaskEnd() {}

}  // namespace AscendC

// ---- Cross-core synchronisation --------------------------------------------------------------
// Every call first applies this core's deferred work and fences its streamed stores (deferred.h,
// PublishGm): a copy issued before the call reads GM as it was then, even if another core writes
// that GM once the call lets it go on, and the other cores see what this one wrote. The
// conditions live where CANN keeps them: SyncAll(gm, ub) and IBSet/IBWait in the user's
// GM workspace (as asc-devkit's implementation lays it out), CrossCoreSetFlag's counters and the
// hardware SyncAll() in the launch (the FFTS flags of the hardware).
namespace opgen_sim {

// The counter of flag f of core b (reference "CrossCoreSetFlag": one counter per flag id, which
// a CrossCoreWaitFlag waits to be above the waits before it): the rounds in which every core of
// its kind (AIV, or AIC) has set f in mode 0, plus, in a __mix__ launch, the rounds both vector
// cores of its AI Core have set f in mode 1 (a vector core) and the sets of its cube core in mode
// 2 (a vector core) or the rounds all its vector cores have set f in mode 2 (the cube core).
// Under s.mu.
// The mode-0 rounds of flag f of each kind of core (index 0: vector, 1: cube): the fewest mode-0
// sets of f among the launch's cores of that kind. Under s.mu.
inline std::array<uint32_t, 2> CrossCoreMode0Rounds(LaunchSync& s, int32_t f) {
    std::array<uint32_t, 2> r{~0u, ~0u};
    const std::vector<uint32_t>& sets = s.Sets(0);
    for (int32_t i = 0; i < s.block_dim; ++i) {
        uint32_t& kind = r[s.IsAic(i) ? 1 : 0];
        kind = std::min(kind, sets[static_cast<size_t>(i) * kCrossCoreFlags + f]);
    }
    return r;
}
inline uint32_t CrossCoreCounter(LaunchSync& s, int32_t b, int32_t f, const std::array<uint32_t, 2>& mode0) {
    const auto at = [f](const std::vector<uint32_t>& v, int32_t core) {
        return v[static_cast<size_t>(core) * kCrossCoreFlags + f];
    };
    const bool aic = s.IsAic(b);
    uint32_t n = mode0[aic ? 1 : 0];
    const int32_t core = s.AiCore(b);
    const auto vectorRounds = [&](const std::vector<uint32_t>& v) {
        uint32_t r = ~0u;
        for (int32_t k = 0; k < s.task_ratio; ++k) r = std::min(r, at(v, s.FirstAiv(core) + k));
        return r;
    };
    if (!aic) {
        n += vectorRounds(s.Sets(1));
        if (s.IsMix()) n += at(s.Sets(2), s.Aic(core));
    } else if (s.IsMix()) {
        n += vectorRounds(s.Sets(2));
    }
    return n;
}
inline uint32_t CrossCoreCounter(LaunchSync& s, int32_t b, int32_t f) {
    return CrossCoreCounter(s, b, f, CrossCoreMode0Rounds(s, f));
}

// CrossCoreSetFlag of mode `mode` by core b on flag f: one more set. Under s.mu.
inline void CrossCoreSetLocked(LaunchSync& s, int32_t b, int32_t f, const char* api, int32_t mode = 0) {
    s.Sets(mode)[static_cast<size_t>(b) * kCrossCoreFlags + f] += 1;
    // The hardware counts 0-15 and stops the kernel beyond (CrossCoreSetFlag, flagId constraints).
    // (the mode-0 rounds once: each core's counter is then O(1), not a pass over the launch)
    std::vector<uint32_t>& waits = s.Waits();
    const std::array<uint32_t, 2> mode0 = CrossCoreMode0Rounds(s, f);
    for (int32_t i = 0; i < s.block_dim; ++i) {
        const uint32_t n = CrossCoreCounter(s, i, f, mode0);
        const uint32_t w = waits[static_cast<size_t>(i) * kCrossCoreFlags + f];
        if (n > w && n - w > 15) {
            Fail(ErrorKind::Generic, api,
                 "the counter of flag " + std::to_string(f) + " of block " + s.CoreName(i) +
                     " would reach " + std::to_string(n - w) +
                     " (the hardware counts 0-15): every CrossCoreSetFlag needs a "
                     "CrossCoreWaitFlag of the same flag on each block");
        }
    }
    opgen_sim::WakeReady(s);
}

// CrossCoreWaitFlag of core b on flag f: waits until the flag's counter is above the waits b made
// for it (in mode 0 alone: until every core of its kind has set f one more time), then counts
// the wait. Under `lock`.
inline void CrossCoreWaitLocked(LaunchSync& s, std::unique_lock<std::mutex>& lock, int32_t b,
                                int32_t f, const char* api, const char* what) {
    std::vector<uint32_t>& waits = s.Waits();
    const uint32_t want = waits[static_cast<size_t>(b) * kCrossCoreFlags + f] + 1;
    const auto ready = [&] { return CrossCoreCounter(s, b, f) >= want; };
    const auto describe = [&] {
        // the cores whose mode-0 sets are behind, and, in a __mix__ launch, its AI Core's
        std::vector<int32_t> behind;
        const bool aic = s.IsAic(b);
        const int32_t lo = aic ? s.aiv_blocks : 0, hi = aic ? s.block_dim : s.aiv_blocks;
        for (int32_t i = lo; i < hi; ++i) {
            if (s.Sets(0)[static_cast<size_t>(i) * kCrossCoreFlags + f] < want) behind.push_back(i);
        }
        std::string text = std::string("in ") + what + " for blocks " + BlockList(s, behind) +
                           " to reach " +
                           (std::strcmp(what, "SyncAll") == 0 ? std::string("SyncAll")
                                                              : "CrossCoreSetFlag(" + std::to_string(f) + ")") +
                           " (time " + std::to_string(want) + ")";
        if (s.IsMix() || s.task_ratio > 1) {
            text += " or for the other cores of AI Core " + std::to_string(s.AiCore(b)) +
                    " to set it in mode 1 or 2";
        }
        return text;
    };
    WaitLocked(s, lock, api, ready, describe);
    waits[static_cast<size_t>(b) * kCrossCoreFlags + f] = want;
}

inline int32_t CheckedSyncBlock(const char* api) {
    (void)api;
    return CurrentCore().launch_core;
}

// The 32-byte slot of an IBSet/IBWait pair: gmWorkspace[blockNum * 8 * eventID + blockIdx * 8]
// (asc-devkit's implementation; the reference gives the size, core count * 32 bytes * eventID_max
// + blockIdx_max * 32 bytes + 32 bytes).
inline int32_t* IbSlot(const AscendC::GlobalTensor<int32_t>& gm,
                       const AscendC::LocalTensor<int32_t>& ub, int32_t blockIdx, int32_t eventID,
                       const char* api) {
    const Core& c = CurrentCore();
    if (blockIdx < 0 || blockIdx >= c.block_num) {
        Fail(ErrorKind::Generic, api,
             "blockIdx " + std::to_string(blockIdx) + " is outside [0, " +
                 std::to_string(c.block_num - 1) + "] (the blocks of the launch)");
    }
    if (eventID < 0) Fail(ErrorKind::Generic, api, "eventID " + std::to_string(eventID) + " is negative");
    ub.Check(api);
    if (ub.GetSize() < 8) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "ubWorkspace holds " + std::to_string(ub.GetSize()) +
                 " int32_t; it needs 32 bytes (8 int32_t)");
    }
    const uint64_t off = static_cast<uint64_t>(c.block_num) * 8 * static_cast<uint64_t>(eventID) +
                         static_cast<uint64_t>(blockIdx) * 8;
    gm[off].CheckRange(8, api);
    return gm.ptr_ + off;
}

}  // namespace opgen_sim

namespace AscendC {

struct SyncAllConfig {
    pipe_t triggerPipe;
    pipe_t waitPipe;
};
constexpr SyncAllConfig DEFAULT_SYNC_ALL_CONFIG = {PIPE_ALL, PIPE_ALL};

// CrossCoreSetFlag<modeId, pipe>(flagId) (reference "CrossCoreSetFlag"): mode 0 syncs every
// core of the caller's kind (vector or cube) in the launch; in a __mix__ launch mode 1 syncs the
// vector cores of one AI Core and mode 2 its cube core with its vector cores (CrossCoreCounter).
// Mode 4 is the Ascend 950's. flagId keeps its low 4 bits, as documented.
template <uint8_t modeId, pipe_t pipe>
inline void CrossCoreSetFlag(uint16_t flagId) {
    constexpr const char* api = "CrossCoreSetFlag";
    if constexpr (modeId != 0 && modeId != 1 && modeId != 2) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "modeId " + std::to_string(modeId) +
                            " is not a mode of the simulated A2/A3, which have modes 0, 1 and 2 "
                            "(mode 4 is the Ascend 950's)");
    }
    if constexpr (pipe == PIPE_S || pipe == PIPE_ALL) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "pipe PIPE_S and PIPE_ALL are not supported for modes 0-2 (use PIPE_V, "
                        "PIPE_MTE2, PIPE_MTE3, ...)");
    }
    opgen_sim::PublishGm();
    opgen_sim::LaunchSync& s = opgen_sim::CurrentSync();
    const int32_t b = opgen_sim::CheckedSyncBlock(api);
    if constexpr (modeId != 0) {
        if (!s.IsMix()) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                            "modeId " + std::to_string(modeId) +
                                " synchronises the cores inside one AI Core (cube and vector): it "
                                "needs a __mix__(1, 1) or __mix__(1, 2) kernel (reference "
                                "\"CrossCoreSetFlag\", table 3); this launch runs one kind of core only");
        }
        if (modeId == 1 && s.IsAic(b)) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                            "modeId 1 synchronises the vector cores of an AI Core; a cube core "
                            "called it");
        }
    }
    std::lock_guard<std::mutex> lock(s.mu);
    opgen_sim::CrossCoreSetLocked(s, b, flagId & 0xf, api, modeId);
}

// CrossCoreWaitFlag<modeId = 0, pipe = PIPE_S>(flagId): on the 910B the template arguments
// have no effect (documented); it waits until the flag's counter of the calling core is above
// its waits (opgen_sim::CrossCoreCounter).
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
inline void CrossCoreWaitFlag(uint16_t flagId) {
    constexpr const char* api = "CrossCoreWaitFlag";
    opgen_sim::PublishGm();
    opgen_sim::LaunchSync& s = opgen_sim::CurrentSync();
    const int32_t b = opgen_sim::CheckedSyncBlock(api);
    std::unique_lock<std::mutex> lock(s.mu);
    opgen_sim::CrossCoreWaitLocked(s, lock, b, flagId & 0xf, api, "CrossCoreWaitFlag");
}

// SyncAll(): the hardware barrier of all vector cores of the launch. As in asc-devkit's
// implementation it is CrossCoreSetFlag<0, PIPE_MTE3>(14) + CrossCoreWaitFlag(14), so a kernel
// that also uses flag 14 (SyncAll's flags are 11-14) meets the same conflict as on hardware.
// isAIVOnly = false synchronises cube cores too: not simulated (a pure vector kernel hangs with
// it on hardware, SyncAll constraints). `config` (the 950's pipes) is checked and has no effect.
template <bool isAIVOnly = true, const SyncAllConfig& config = DEFAULT_SYNC_ALL_CONFIG>
inline void SyncAll() {
    constexpr const char* api = "SyncAll";
    if constexpr (!isAIVOnly) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "SyncAll<false>() synchronises cube and vector cores; the simulator runs "
                        "vector cores only, and a pure vector kernel must use SyncAll<true>() "
                        "(with false it hangs on hardware)");
    }
    constexpr auto ok = [](pipe_t p) { return p == PIPE_MTE2 || p == PIPE_MTE3 || p == PIPE_ALL; };
    if constexpr (!ok(config.triggerPipe) || !ok(config.waitPipe)) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "SyncAllConfig pipes must be PIPE_MTE2, PIPE_MTE3 or PIPE_ALL");
    }
    opgen_sim::PublishGm();
    opgen_sim::LaunchSync& s = opgen_sim::CurrentSync();
    const int32_t b = opgen_sim::CheckedSyncBlock(api);
    std::unique_lock<std::mutex> lock(s.mu);
    opgen_sim::CrossCoreSetLocked(s, b, 14, api);
    opgen_sim::CrossCoreWaitLocked(s, lock, b, 14, api, "SyncAll");
}

// SyncAll(gmWorkspace, ubWorkspace, usedCores = 0): the software barrier, on a zero-initialised
// GM workspace of 32 bytes per core, as asc-devkit implements it: each core adds 1 to the first
// int32 of its slot (gmWorkspace[blockIdx * 8]) and waits until the slots of the first
// `usedCores` cores (0: all) sum to usedCores times its own count. A core past usedCores also
// counts in its slot and waits. isAIVOnly has no effect (CANN's CPU debug ignores it too).
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace,
                    const LocalTensor<int32_t>& ubWorkspace, const int32_t usedCores = 0) {
    constexpr const char* api = "SyncAll";
    opgen_sim::PublishGm();
    const opgen_sim::Core& c = opgen_sim::CurrentCore();
    const int32_t blockNum = static_cast<int32_t>(c.block_num);
    const int32_t b = static_cast<int32_t>(c.block_idx);
    if (usedCores < 0 || usedCores > blockNum) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "usedCores " + std::to_string(usedCores) + " is outside [0, " +
                            std::to_string(blockNum) + "] (it may not exceed the launch's blockDim)");
    }
    const int32_t total = usedCores != 0 ? usedCores : blockNum;
    ubWorkspace.Check(api);
    if (ubWorkspace.GetSize() < static_cast<uint32_t>(blockNum) * 8) {
        opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                        "ubWorkspace holds " + std::to_string(ubWorkspace.GetSize()) +
                            " int32_t; it needs GetBlockNum() * 32 bytes = " +
                            std::to_string(blockNum * 8) + " int32_t");
    }
    gmWorkspace.CheckRange(static_cast<uint64_t>(blockNum) * 8, api);
    int32_t* slots = gmWorkspace.ptr_;
    opgen_sim::LaunchSync& s = opgen_sim::CurrentSync();
    std::unique_lock<std::mutex> lock(s.mu);
    const int32_t round = opgen_sim::LoadGm(slots + b * 8) + 1;
    opgen_sim::StoreGm(slots + b * 8, round);
    opgen_sim::WakeReady(s);
    const auto sum = [&] {
        int64_t n = 0;
        for (int32_t i = 0; i < total; ++i) n += opgen_sim::LoadGm(slots + i * 8);
        return n;
    };
    const auto ready = [&] { return sum() >= static_cast<int64_t>(total) * round; };
    const auto describe = [&] {
        std::vector<int32_t> behind;
        for (int32_t i = 0; i < total; ++i) {
            if (opgen_sim::LoadGm(slots + i * 8) < round) behind.push_back(i);
        }
        return "in SyncAll(gmWorkspace, ubWorkspace) for blocks " + opgen_sim::BlockList(s, behind) +
               " to reach it (time " + std::to_string(round) + "; the slots sum to " +
               std::to_string(sum()) + ", waiting for " +
               std::to_string(static_cast<int64_t>(total) * round) +
               "; gmWorkspace must start zeroed)";
    };
    opgen_sim::WaitLocked(s, lock, api, ready, describe);
    // The UB workspace holds the slots of the last poll, as CANN's loop leaves it.
    for (int32_t i = 0; i < total * 8; ++i) ubWorkspace.ptr_[i] = opgen_sim::LoadGm(slots + i);
}

// IBSet(gmWorkspace, ubWorkspace, blockIdx, eventID): waits until the slot of (blockIdx, eventID)
// is 0, then writes 1 to it; IBWait with the same arguments waits until it is 1 and writes 0 back
// (asc-devkit's implementation; the reference: the waited-for core sets, the waiting core polls
// until 1, and the workspace starts zeroed).
template <bool isAIVOnly = true>
inline void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                  int32_t blockIdx, int32_t eventID) {
    constexpr const char* api = "IBSet";
    opgen_sim::PublishGm();
    int32_t* slot = opgen_sim::IbSlot(gmWorkspace, ubWorkspace, blockIdx, eventID, api);
    opgen_sim::LaunchSync& s = opgen_sim::CurrentSync();
    std::unique_lock<std::mutex> lock(s.mu);
    const auto ready = [&] { return opgen_sim::LoadGm(slot) == 0; };
    const auto describe = [&] {
        return "in IBSet(blockIdx " + std::to_string(blockIdx) + ", eventID " +
               std::to_string(eventID) + ") for the previous set to be taken by an IBWait (its "
               "slot is " + std::to_string(opgen_sim::LoadGm(slot)) + ", waiting for 0)";
    };
    opgen_sim::WaitLocked(s, lock, api, ready, describe);
    opgen_sim::StoreGm(slot, 1);
    ubWorkspace.ptr_[0] = 1;
    opgen_sim::WakeReady(s);
}

template <bool isAIVOnly = true>
inline void IBWait(const GlobalTensor<int32_t>& gmWorkspace,
                   const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx, int32_t eventID) {
    constexpr const char* api = "IBWait";
    opgen_sim::PublishGm();
    int32_t* slot = opgen_sim::IbSlot(gmWorkspace, ubWorkspace, blockIdx, eventID, api);
    opgen_sim::LaunchSync& s = opgen_sim::CurrentSync();
    std::unique_lock<std::mutex> lock(s.mu);
    const auto ready = [&] { return opgen_sim::LoadGm(slot) == 1; };
    const auto describe = [&] {
        return "in IBWait for block " + std::to_string(blockIdx) +
               s.StateNote(blockIdx) + " to IBSet event " + std::to_string(eventID) +
               " (its slot is " + std::to_string(opgen_sim::LoadGm(slot)) + ", waiting for 1)";
    };
    opgen_sim::WaitLocked(s, lock, api, ready, describe);
    opgen_sim::StoreGm(slot, 0);
    ubWorkspace.ptr_[0] = 0;
    opgen_sim::WakeReady(s);
}

// InitDetermineComputeWorkspace / WaitPreBlock / NotifyNextBlock: the blocks of a launch take
// turns in blockIdx order, round after round ("InitDetermineComputeWorkspace", "WaitPreBlock",
// "NotifyNextBlock"), on a GM workspace of one 32-byte slot per block and a UB workspace of those
// slots plus one int32, the block's round, as asc-devkit's dav_c220 implementation keeps them:
// Init has block 0 zero the slots and sets each block's round to 1; WaitPreBlock waits until the
// slots of the blocks before this one hold the round and the others 0, and leaves the slots it
// read in ubWorkspace; NotifyNextBlock writes the round into this block's slot (the last block
// zeroes every slot instead, which opens the next round to block 0) and counts the round up.
}  // namespace AscendC

namespace opgen_sim {
struct DetermineSlots {
    int32_t* gm;
    int32_t* ub;
    int32_t n;      // blocks
    int32_t b;      // this block
    int32_t round;  // the block's round, as its UB workspace holds it
};
// The workspaces checked, after the core's deferred work is applied (as every cross-core call).
inline DetermineSlots CheckDetermine(const AscendC::GlobalTensor<int32_t>& gm,
                                     const AscendC::LocalTensor<int32_t>& ub, const char* api) {
    PublishGm();
    const Core& c = CurrentCore();
    const int32_t n = static_cast<int32_t>(c.block_num);
    ub.Check(api);
    if (ub.GetSize() < static_cast<uint64_t>(n) * 8 + 1) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "ubWorkspace holds " + std::to_string(ub.GetSize()) + " int32_t; it needs " +
                 std::to_string(n * 8 + 1) + " (a 32-byte slot per block, then the round)");
    }
    gm.CheckRange(static_cast<uint64_t>(n) * 8, api);
    return {gm.ptr_, ub.ptr_, n, static_cast<int32_t>(c.block_idx), ub.ptr_[n * 8]};
}
}  // namespace opgen_sim

namespace AscendC {

inline void InitDetermineComputeWorkspace(GlobalTensor<int32_t>& gmWorkspace,
                                          LocalTensor<int32_t>& ubWorkspace) {
    constexpr const char* api = "InitDetermineComputeWorkspace";
    const opgen_sim::DetermineSlots d = opgen_sim::CheckDetermine(gmWorkspace, ubWorkspace, api);
    opgen_sim::LaunchSync& s = opgen_sim::CurrentSync();
    std::lock_guard<std::mutex> lock(s.mu);
    if (d.b == 0) {
        for (int32_t i = 0; i < d.n * 8; ++i) {
            d.ub[i] = 0;
            opgen_sim::StoreGm(d.gm + i, 0);
        }
    }
    d.ub[d.n * 8] = 1;
    opgen_sim::WakeReady(s);
}

inline void WaitPreBlock(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace) {
    constexpr const char* api = "WaitPreBlock";
    const opgen_sim::DetermineSlots d = opgen_sim::CheckDetermine(gmWorkspace, ubWorkspace, api);
    const int32_t round = d.round;
    opgen_sim::LaunchSync& s = opgen_sim::CurrentSync();
    std::unique_lock<std::mutex> lock(s.mu);
    const auto ready = [&] {
        for (int32_t i = 0; i < d.n; ++i) {
            if (opgen_sim::LoadGm(d.gm + 8 * i) != (i < d.b ? round : 0)) return false;
        }
        return true;
    };
    const auto describe = [&] {
        std::string slots;
        for (int32_t i = 0; i < d.n && i < 16; ++i) {
            slots += (i ? ", " : "") + std::to_string(opgen_sim::LoadGm(d.gm + 8 * i));
        }
        return "in WaitPreBlock (round " + std::to_string(round) + ") for blocks 0-" +
               std::to_string(d.b - 1) + " to NotifyNextBlock and the rest to hold 0 (the slots: " +
               slots + (d.n > 16 ? ", ..." : "") + ")";
    };
    opgen_sim::WaitLocked(s, lock, api, ready, describe);
    for (int32_t i = 0; i < d.n * 8; ++i) d.ub[i] = opgen_sim::LoadGm(d.gm + i);
}

inline void NotifyNextBlock(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace) {
    constexpr const char* api = "NotifyNextBlock";
    const opgen_sim::DetermineSlots d = opgen_sim::CheckDetermine(gmWorkspace, ubWorkspace, api);
    const int32_t round = d.round;
    opgen_sim::LaunchSync& s = opgen_sim::CurrentSync();
    std::lock_guard<std::mutex> lock(s.mu);
    const bool last = d.b + 1 == d.n;
    for (int32_t i = last ? 0 : d.b * 8; i < (last ? d.n : d.b + 1) * 8; ++i) {
        d.ub[i] = last ? 0 : round;
        opgen_sim::StoreGm(d.gm + i, d.ub[i]);
    }
    d.ub[d.n * 8] = round + 1;
    opgen_sim::WakeReady(s);
}

// GroupBarrier<PipeMode::MTE3_MODE>(groupWorkspace, arriveSize, waitSize): a barrier between
// an Arrive group and a Wait group of vector cores ("GroupBarrier", A2), laid out in the user's
// zeroed, 512-byte aligned GM workspace as asc-devkit's dav_c220 implementation does: line i
// (i < max(arriveSize, waitSize)) is the 512 bytes at groupWorkspace + 512 * i; its first uint32
// counts Arrive calls, the uint32 64 bytes further on counts Wait calls. Arrive adds 1 to every
// line's arrive count; Wait(i) waits until line i's arrive count reaches the round times
// arriveSize, then adds 1 to every line's wait count; an Arrive after the first waits until line
// arriveIndex's wait count reaches the rounds before times waitSize. The counts are added
// atomically, as the hardware's atomic-add copies do. The reference wants the workspace 512-byte
// aligned; aclrtMalloc promises 64 (asc-devkit's group_barrier sample passes such a buffer) and
// the hardware does not check, so only OPGEN_SIM_STRICT=1 checks it. The constructor writes the 1s it copies
// from into the last 1,600 bytes of the UB, which the reference reserves ("使用该接口时，UB空间末尾
// 的1600B被占用"): a buffer of the kernel there is overwritten, as on the hardware (an error under
// OPGEN_SIM_STRICT=1).
enum class PipeMode : uint8_t { SCALAR_MODE = 0, MTE3_MODE = 1, MAX };

template <PipeMode pipeMode>
class GroupBarrier {
    static_assert(pipeMode == PipeMode::MTE3_MODE,
                  "GroupBarrier supports PipeMode::MTE3_MODE only (GroupBarrier constructor, template "
                  "parameters)");

public:
    static constexpr uint32_t kLine = 512;        // bytes of GM per arrive/wait index
    static constexpr uint32_t kWaitOffset = 64;   // the wait count's offset in a line
    static constexpr uint32_t kUbReserved = 1600;  // 50 blocks of 32 bytes at the UB's end

    GroupBarrier(GM_ADDR groupWorkspace, uint32_t arriveSizeIn, uint32_t waitSizeIn)
        : base_(groupWorkspace), arriveSize_(arriveSizeIn), waitSize_(waitSizeIn) {
        constexpr const char* api = "GroupBarrier";
        opgen_sim::Core& c = opgen_sim::CurrentCore();
        const auto sizeError = [&](const char* what, uint32_t v) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                            std::string(what) + " is " + std::to_string(v) + "; it must be in [1, " +
                                std::to_string(c.block_num) + "] (the launch's blockDim)");
        };
        if (arriveSizeIn == 0 || arriveSizeIn > c.block_num) sizeError("arriveSizeIn", arriveSizeIn);
        if (waitSizeIn == 0 || waitSizeIn > c.block_num) sizeError("waitSizeIn", waitSizeIn);
        // the reference requires 512-byte alignment, but aclrtMalloc promises 64 and the
        // hardware does not check: strict mode only
        if (c.strict_gm && reinterpret_cast<uintptr_t>(groupWorkspace) % kLine != 0) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                            "groupWorkspace must be 512-byte aligned (GroupBarrier constructor, "
                            "groupWorkspace; strict mode); it is " +
                                std::to_string(reinterpret_cast<uintptr_t>(groupWorkspace) % kLine) +
                                " bytes past a multiple of 512");
        }
        const uint64_t bytes = GetWorkspaceLen();
        opgen_sim::CheckGmRange(groupWorkspace, groupWorkspace, bytes, bytes, 1, "uint8_t", api);
        if (c.strict_gm && c.ub_used > c.ub_capacity - kUbReserved) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                            "the kernel's buffers use " + std::to_string(c.ub_used) +
                                " bytes of the UB, and GroupBarrier overwrites its last " +
                                std::to_string(kUbReserved) + " (from byte " +
                                std::to_string(c.ub_capacity - kUbReserved) +
                                "): keep the buffers below that (strict mode)");
        }
        uint8_t* ub = c.ub + c.ub_capacity - kUbReserved;
        for (uint32_t i = 0; i < kUbReserved / 32; ++i) {
            const uint32_t one = 1;
            std::memcpy(ub + 32 * i, &one, sizeof(one));
        }
    }
    GroupBarrier() = delete;

    void Arrive(uint32_t arriveIndex) {
        constexpr const char* api = "GroupBarrier::Arrive";
        opgen_sim::PublishGm();
        CheckIndex(api, "arriveIndex", arriveIndex);
        opgen_sim::LaunchSync& s = opgen_sim::CurrentSync();
        std::unique_lock<std::mutex> lock(s.mu);
        if (counter_ > 1) {  // the previous round's waits must all have ended
            const uint32_t expected = (counter_ - 1) * waitSize_;
            const uint32_t* head = Count(arriveIndex, kWaitOffset);
            const auto ready = [&] { return Load(head) == expected; };
            const auto describe = [&] {
                return "in Arrive(" + std::to_string(arriveIndex) + ") for the " +
                       std::to_string(waitSize_) + " Wait calls of round " +
                       std::to_string(counter_ - 1) + " (line " + std::to_string(arriveIndex) +
                       " counts " + std::to_string(Load(head)) + " waits, waiting for " +
                       std::to_string(expected) + ")";
            };
            opgen_sim::WaitLocked(s, lock, api, ready, describe);
        }
        AddToEveryLine(0);
        counter_ += 1;
        hasArrive_ = true;
        opgen_sim::WakeReady(s);
    }

    void Wait(uint32_t waitIndex) {
        constexpr const char* api = "GroupBarrier::Wait";
        opgen_sim::PublishGm();
        CheckIndex(api, "waitIndex", waitIndex);
        opgen_sim::LaunchSync& s = opgen_sim::CurrentSync();
        std::unique_lock<std::mutex> lock(s.mu);
        const uint32_t round = hasArrive_ ? counter_ - 1 : counter_;
        const uint32_t expected = round * arriveSize_;
        const uint32_t* head = Count(waitIndex, 0);
        const auto ready = [&] { return Load(head) >= expected; };
        const auto describe = [&] {
            return "in Wait(" + std::to_string(waitIndex) + ") for the " +
                   std::to_string(arriveSize_) + " Arrive calls of round " + std::to_string(round) +
                   " (line " + std::to_string(waitIndex) + " counts " + std::to_string(Load(head)) +
                   " arrivals, waiting for " + std::to_string(expected) + ")";
        };
        opgen_sim::WaitLocked(s, lock, api, ready, describe);
        AddToEveryLine(kWaitOffset);
        if (!hasArrive_) counter_ += 1;
        hasArrive_ = false;
        opgen_sim::WakeReady(s);
    }

    uint64_t GetWorkspaceLen() const {
        return static_cast<uint64_t>(std::max(arriveSize_, waitSize_)) * kLine;
    }

private:
    uint32_t Lines() const { return std::max(arriveSize_, waitSize_); }
    void CheckIndex(const char* api, const char* what, uint32_t index) const {
        if (index >= Lines()) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                            std::string(what) + " " + std::to_string(index) +
                                " is past the barrier's " + std::to_string(Lines()) +
                                " lines (max(arriveSizeIn, waitSizeIn)); give each core of the "
                                "group an index from 0");
        }
    }
    uint32_t* Count(uint32_t line, uint32_t offset) const {
        return reinterpret_cast<uint32_t*>(base_ + static_cast<uint64_t>(line) * kLine + offset);
    }
    static uint32_t Load(const uint32_t* p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
    void AddToEveryLine(uint32_t offset) const {
        for (uint32_t i = 0; i < Lines(); ++i) __atomic_fetch_add(Count(i, offset), 1u, __ATOMIC_SEQ_CST);
    }

    uint8_t* base_;
    uint32_t arriveSize_;
    uint32_t waitSize_;
    uint32_t counter_ = 1;    // the round this core is in
    bool hasArrive_ = false;  // whether this core called Arrive in this round
};

template <typename... Args>
inline void printf(const char* fmt, Args... args) {
    std::printf(fmt, args...);
}

}  // namespace AscendC
