// opgen NPU simulator: the host's record of Global Memory. Every buffer a host program allocates
// as device memory (AscendC::GmAlloc in CPU-debug drivers, aclrtMalloc in acl programs) is
// registered here; a launch from the host (ICPU_RUN_KF, a <<<>>> launch) bounds-checks the
// kernel's GM accesses against these buffers, as the hardware faults outside its allocations.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace opgen_sim {

struct GmBlock {
    uint8_t* ptr;
    uint64_t size;       // bytes a kernel may touch (aclrtMalloc: the rounded allocation)
    uint64_t requested;  // bytes the program asked for
    uint64_t serial;
    const char* kind;    // "GmAlloc" or "aclrtMalloc": names the buffer in messages
};

struct GmRegistry {
    std::mutex mu;
    std::vector<GmBlock> blocks;
    uint64_t next_serial = 0;
};

// The registry this code uses: its own, or the program's once a kernel library compiled at run
// time (aclrtc, opgen_sim/rtc_launch.h) is loaded into a program that holds its own copy of
// these inline functions.
inline GmRegistry*& GmRegistryPtr() {
    static GmRegistry* registry = new GmRegistry();  // never destroyed: usable during exit
    return registry;
}

inline GmRegistry& Gm() { return *GmRegistryPtr(); }

inline std::string GmBlockName(const GmBlock& b) { return b.kind + ("#" + std::to_string(b.serial)); }

// Registers [ptr, ptr + size) as a device buffer; returns its serial number.
inline uint64_t GmRegister(uint8_t* ptr, uint64_t size, uint64_t requested, const char* kind) {
    GmRegistry& gm = Gm();
    std::lock_guard<std::mutex> lock(gm.mu);
    const uint64_t serial = gm.next_serial++;
    gm.blocks.push_back({ptr, size, requested, serial, kind});
    return serial;
}

// Removes the buffer starting at ptr if it was registered by `kind`; false if there is none.
inline bool GmUnregister(const void* ptr, const char* kind) {
    GmRegistry& gm = Gm();
    std::lock_guard<std::mutex> lock(gm.mu);
    for (size_t i = 0; i < gm.blocks.size(); ++i) {
        if (gm.blocks[i].ptr == ptr && std::string(gm.blocks[i].kind) == kind) {
            gm.blocks.erase(gm.blocks.begin() + static_cast<std::ptrdiff_t>(i));
            return true;
        }
    }
    return false;
}

// The registered buffer holding address p, if any (copied out under the lock).
inline bool GmFind(const void* p, GmBlock* out) {
    const auto* a = static_cast<const uint8_t*>(p);
    GmRegistry& gm = Gm();
    std::lock_guard<std::mutex> lock(gm.mu);
    for (const GmBlock& b : gm.blocks) {
        if (a >= b.ptr && a < b.ptr + b.size) {
            *out = b;
            return true;
        }
    }
    return false;
}

}  // namespace opgen_sim
