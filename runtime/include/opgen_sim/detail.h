// opgen NPU simulator: launch detail for `opgen profile` (opgen_runtime/profile.py). A launch
// with kFlagDetail gives each block a Detail: lanes used per vector API, GM accesses that are not
// 32-byte aligned, bytes read and written per GM region, and (kFlagTimeline) coarse phase spans
// (copy in, vector, copy out). Without the flag Core::detail is null and the counting sites pay
// one branch.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "outline.h"

namespace opgen_sim {

constexpr int32_t kMaxApiStats = 32;
constexpr int32_t kMaxUnaligned = 16;
constexpr int32_t kMaxDetailRegions = 48;  // launch.h's kMaxArgs
constexpr int32_t kMaxPhases = 512;        // per block; later phases are counted as dropped

// Lanes of one vector API at one lane count (element width) and form (count or mask).
struct ApiStat {
    const char* api;
    uint32_t lanes;   // lanes per 256-byte repeat
    uint32_t masked;  // 1: mask/repeat form, 0: count form
    int64_t calls, repeats, used, total;
    // the call with the lowest lane utilisation: its active lanes, lanes and repeats
    int64_t worst_used, worst_total, worst_repeats;
};

// A GM access (DataCopy, DataCopyPad) whose address, length or stride is not 32-byte aligned.
struct UnalignedAccess {
    const char* api;
    int32_t region;  // index into Core::regions, -1 if outside them
    uint32_t to_gm;
    uint64_t offset;  // from the region's start (or the address)
    uint64_t len;     // bytes of one burst
    uint64_t stride;  // bytes between bursts (0: one burst)
    int64_t count;    // accesses like this one (same api, region, length, offset mod 32)
};

enum PhaseKind : int32_t { kPhaseCopyIn = 0, kPhaseVector = 1, kPhaseCopyOut = 2 };

struct Phase {
    int32_t kind;
    int64_t t0, t1;  // ns since the launch started
};

struct Detail {
    ApiStat apis[kMaxApiStats];
    int32_t napis = 0;
    int32_t last_api = 0;
    UnalignedAccess unaligned[kMaxUnaligned];
    int32_t nunaligned = 0;
    int64_t region_read[kMaxDetailRegions] = {};
    int64_t region_written[kMaxDetailRegions] = {};
    bool timeline = false;
    std::chrono::steady_clock::time_point origin;
    Phase phases[kMaxPhases];
    int32_t nphases = 0;
    int64_t dropped_phases = 0;
    // Elements read or written one at a time by the scalar unit: GetValue/SetValue/operator() of
    // a LocalTensor (UB) or a GlobalTensor (GM).
    int64_t scalar_ub = 0;
    int64_t scalar_gm = 0;
};

inline int64_t DetailNow(const Detail& d) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                d.origin)
        .count();
}

// A phase of `kind` starts now unless the current one is of that kind.
inline void NotePhase(Detail& d, int32_t kind) {
    if (!d.timeline) return;
    if (d.nphases > 0 && d.phases[d.nphases - 1].kind == kind) return;
    if (d.nphases == kMaxPhases) {
        ++d.dropped_phases;
        return;
    }
    const int64_t t = DetailNow(d);
    if (d.nphases > 0) d.phases[d.nphases - 1].t1 = t;
    d.phases[d.nphases++] = {kind, t, t};
}

inline void EndPhases(Detail& d) {
    if (d.timeline && d.nphases > 0) d.phases[d.nphases - 1].t1 = DetailNow(d);
}

// One vector instruction of `api`: `used` active lanes out of `repeats` * `lanes`.
inline void NoteLanes(Detail& d, const char* api, uint32_t lanes, uint32_t masked, int64_t repeats,
                      int64_t used) {
    const int64_t total = repeats * static_cast<int64_t>(lanes);
    ApiStat* s = nullptr;
    if (d.napis > 0) {
        ApiStat& last = d.apis[d.last_api];
        if (last.api == api && last.lanes == lanes && last.masked == masked) s = &last;
    }
    if (s == nullptr) {
        for (int32_t i = 0; i < d.napis; ++i) {
            ApiStat& e = d.apis[i];
            if (e.api == api && e.lanes == lanes && e.masked == masked) {
                s = &e;
                d.last_api = i;
                break;
            }
        }
    }
    if (s == nullptr) {
        if (d.napis < kMaxApiStats) {
            s = &d.apis[d.napis];
            *s = {api, lanes, masked, 0, 0, 0, 0, used, total, repeats};
            d.last_api = d.napis++;
        } else {  // a full table folds further APIs into its last entry
            s = &d.apis[kMaxApiStats - 1];
            s->api = "(other)";
        }
    }
    s->calls += 1;
    s->repeats += repeats;
    s->used += used;
    s->total += total;
    if (total > 0 && used * s->worst_total < s->worst_used * total) {
        s->worst_used = used;
        s->worst_total = total;
        s->worst_repeats = repeats;
    }
    NotePhase(d, kPhaseVector);
}

// A DataCopy/DataCopyPad touching GM at `gm`: `count` bursts of `len` bytes, `stride` bytes
// apart. Adds the bytes to the region's total and records an access that is not 32-byte aligned.
template <typename Region>  // GmRegion (core.h)
inline void NoteGm(Detail& d, const Region* regions, int32_t nregions, const char* api,
                   const void* gm, uint64_t len, uint64_t count, uint64_t stride, bool to_gm) {
    NotePhase(d, to_gm ? kPhaseCopyOut : kPhaseCopyIn);
    const auto* p = static_cast<const uint8_t*>(gm);
    int32_t region = -1;
    uint64_t offset = reinterpret_cast<uintptr_t>(p);
    for (int32_t i = 0; i < nregions && i < kMaxDetailRegions; ++i) {
        if (p >= regions[i].begin && p < regions[i].begin + regions[i].size) {
            region = i;
            offset = static_cast<uint64_t>(p - regions[i].begin);
            break;
        }
    }
    if (region >= 0) (to_gm ? d.region_written : d.region_read)[region] += static_cast<int64_t>(len * count);
    const uint64_t s = count > 1 ? stride : 0;
    if (((reinterpret_cast<uintptr_t>(p) | len | s) & 31u) == 0) return;
    for (int32_t i = 0; i < d.nunaligned; ++i) {
        UnalignedAccess& u = d.unaligned[i];
        if (u.api == api && u.region == region && u.len == len && u.stride == s &&
            u.offset % 32 == offset % 32) {
            ++u.count;
            return;
        }
    }
    if (d.nunaligned < kMaxUnaligned) {
        d.unaligned[d.nunaligned++] = {api, region, to_gm ? 1u : 0u, offset, len, s, 1};
    }
}

#if !OPGEN_SIM_KERNEL_UNIT  // the runtime object merges and reports them
// The detail of a whole launch: the blocks' tables merged (APIs and accesses by name), the
// phases per block. Kept per launching thread until its next detailed launch.
struct LaunchDetail {
    std::vector<ApiStat> apis;
    std::vector<UnalignedAccess> unaligned;
    int64_t region_read[kMaxDetailRegions] = {};
    int64_t region_written[kMaxDetailRegions] = {};
    std::vector<std::vector<Phase>> phases;  // per block
    std::vector<int64_t> dropped_phases;     // per block
    int64_t scalar_ub = 0;
    int64_t scalar_gm = 0;

    void Reset(int32_t blocks) {
        scalar_ub = scalar_gm = 0;
        apis.clear();
        unaligned.clear();
        std::memset(region_read, 0, sizeof(region_read));
        std::memset(region_written, 0, sizeof(region_written));
        phases.assign(static_cast<size_t>(blocks), {});
        dropped_phases.assign(static_cast<size_t>(blocks), 0);
    }

    // Adds one block's Detail (the caller serialises the blocks).
    void Merge(int32_t block, const Detail& d) {
        for (int32_t i = 0; i < d.napis; ++i) {
            const ApiStat& a = d.apis[i];
            ApiStat* m = nullptr;
            for (ApiStat& e : apis) {
                if (e.lanes == a.lanes && e.masked == a.masked && std::strcmp(e.api, a.api) == 0) {
                    m = &e;
                    break;
                }
            }
            if (m == nullptr) {
                apis.push_back(a);
                continue;
            }
            m->calls += a.calls;
            m->repeats += a.repeats;
            m->used += a.used;
            m->total += a.total;
            if (a.worst_total > 0 && a.worst_used * m->worst_total < m->worst_used * a.worst_total) {
                m->worst_used = a.worst_used;
                m->worst_total = a.worst_total;
                m->worst_repeats = a.worst_repeats;
            }
        }
        for (int32_t i = 0; i < d.nunaligned; ++i) {
            const UnalignedAccess& u = d.unaligned[i];
            bool merged = false;
            for (UnalignedAccess& e : unaligned) {
                if (e.region == u.region && e.len == u.len && e.stride == u.stride &&
                    e.offset % 32 == u.offset % 32 && std::strcmp(e.api, u.api) == 0) {
                    e.count += u.count;
                    if (u.offset < e.offset) e.offset = u.offset;
                    merged = true;
                    break;
                }
            }
            if (!merged && unaligned.size() < 4 * kMaxUnaligned) unaligned.push_back(u);
        }
        scalar_ub += d.scalar_ub;
        scalar_gm += d.scalar_gm;
        for (int32_t r = 0; r < kMaxDetailRegions; ++r) {
            region_read[r] += d.region_read[r];
            region_written[r] += d.region_written[r];
        }
        if (block >= 0 && static_cast<size_t>(block) < phases.size()) {
            phases[static_cast<size_t>(block)].assign(d.phases, d.phases + d.nphases);
            dropped_phases[static_cast<size_t>(block)] = d.dropped_phases;
        }
    }

    // Tab-separated lines for opgen_runtime/profile.py (LaunchDetail.parse).
    std::string Text(int32_t nregions) const {
        std::string out = "scalar\t" + std::to_string(scalar_ub) + "\t" + std::to_string(scalar_gm) + "\n";
        for (const ApiStat& a : apis) {
            out += "api\t" + std::string(a.api) + "\t" + std::to_string(a.lanes) + "\t" +
                   std::to_string(a.masked) + "\t" + std::to_string(a.calls) + "\t" +
                   std::to_string(a.repeats) + "\t" + std::to_string(a.used) + "\t" +
                   std::to_string(a.total) + "\t" + std::to_string(a.worst_used) + "\t" +
                   std::to_string(a.worst_total) + "\t" + std::to_string(a.worst_repeats) + "\n";
        }
        for (const UnalignedAccess& u : unaligned) {
            out += "unaligned\t" + std::string(u.api) + "\t" + std::to_string(u.region) + "\t" +
                   std::to_string(u.to_gm) + "\t" + std::to_string(u.offset) + "\t" +
                   std::to_string(u.len) + "\t" + std::to_string(u.stride) + "\t" +
                   std::to_string(u.count) + "\n";
        }
        for (int32_t r = 0; r < nregions && r < kMaxDetailRegions; ++r) {
            out += "region\t" + std::to_string(r) + "\t" + std::to_string(region_read[r]) + "\t" +
                   std::to_string(region_written[r]) + "\n";
        }
        for (size_t b = 0; b < phases.size(); ++b) {
            for (const Phase& p : phases[b]) {
                out += "phase\t" + std::to_string(b) + "\t" + std::to_string(p.kind) + "\t" +
                       std::to_string(p.t0) + "\t" + std::to_string(p.t1) + "\n";
            }
            if (dropped_phases[b] > 0) {
                out += "dropped\t" + std::to_string(b) + "\t" + std::to_string(dropped_phases[b]) +
                       "\n";
            }
        }
        return out;
    }
};
#endif  // !OPGEN_SIM_KERNEL_UNIT

}  // namespace opgen_sim
