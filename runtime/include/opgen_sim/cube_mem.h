// opgen NPU simulator: the cube core's local memories (Atlas A2/A3, npu arch 2201): L1, L0A, L0B,
// L0C and the bias table. Each simulated core gets them, beside its Unified Buffer, the first
// time a block touches one (a kernel that never does allocates nothing); docs/simulator.md, "The
// cube data path".
#pragma once

#include <cstdlib>

#include "core.h"

namespace opgen_sim {

// The memories, in the order of Hardware::L1, L0A, L0B, L0C, BIAS, FIXBUF.
enum CubeBuf : int32_t { kCubeL1 = 0, kCubeL0A, kCubeL0B, kCubeL0C, kCubeBias, kCubeFb, kNumCubeBufs };

// Their sizes on the Atlas A2/A3 (ascend910b): L1 512 KiB, L0A and L0B 64 KiB each, L0C 128 KiB,
// the bias table (BT, TPosition::C2) 1 KiB, the fixpipe buffer (FB, TPosition::C2PIPE2GM) 7 KiB
// (asc-devkit's CPU-debug memory sizes for npu arch 2201).
constexpr uint64_t kCubeBufBytes[kNumCubeBufs] = {512 * 1024, 64 * 1024, 64 * 1024, 128 * 1024, 1024, 7 * 1024};

inline const char* CubeBufName(int32_t b) {
    switch (b) {
        case kCubeL1: return "L1";
        case kCubeL0A: return "L0A";
        case kCubeL0B: return "L0B";
        case kCubeL0C: return "L0C";
        case kCubeBias: return "the bias table (BT)";
        case kCubeFb: return "the fixpipe buffer (FB)";
        default: return "the Unified Buffer";
    }
}

// The unit flag of each 512-byte block of L0C (Mmad/Fixpipe unitFlag, cube_more.h): 1 while
// the block holds a result a Mmad with unitFlag 3 wrote and no Fixpipe with unitFlag 3 has read.
constexpr uint64_t kUnitFlagBlockBytes = 512;
constexpr uint64_t kNumUnitFlags = 128 * 1024 / kUnitFlagBlockBytes;

// One core's cube memories: where each lies, how many bytes TPipe::InitBuffer has handed out,
// L0C's unit flags, and the fixpipe's registers that DataCopy from L0C reads (cube_more.h): the
// scalar quant word (QUANT_PRE, SetFixpipePreQuantFlag), the NZ2ND parameters (ND_PARA,
// SetFixpipeNz2ndFlag: ndNum 1 until set) and the FB offset of the quant table (SetFixPipeConfig;
// -1: none set).
struct CubeMem {
    uint8_t* base[kNumCubeBufs] = {};
    uint64_t used[kNumCubeBufs] = {};
    uint8_t unit_flag[kNumUnitFlags] = {};
    uint64_t quant_pre = 0;
    uint64_t nd_para = 1;
    int64_t fb_quant = -1;
};

// The calling thread's memories (kept for its later blocks, as its Unified Buffer is; zeroed
// once, when they are first needed).
inline CubeMem& ThreadCubeMem() {
    static thread_local CubeMem mem;
    if (mem.base[0] == nullptr) {
        uint64_t total = 0;
        for (uint64_t b : kCubeBufBytes) total += b;
        auto* block = static_cast<uint8_t*>(std::aligned_alloc(4096, total));
        if (block == nullptr) throw std::bad_alloc();
        std::memset(block, 0, total);
        uint64_t off = 0;
        for (int32_t i = 0; i < kNumCubeBufs; ++i) {
            mem.base[i] = block + off;
            off += kCubeBufBytes[i];
        }
    }
    return mem;
}

// The core's memories; a block starts with none of their bytes handed out and every unit flag 0.
inline CubeMem& CubeOf(Core& c) {
    if (c.cube == nullptr) {
        CubeMem& m = ThreadCubeMem();
        for (uint64_t& u : m.used) u = 0;
        std::memset(m.unit_flag, 0, sizeof(m.unit_flag));
        m.quant_pre = 0;
        m.nd_para = 1;
        m.fb_quant = -1;
        c.cube = &m;
    }
    return *c.cube;
}

// Which cube memory holds `bytes` at `p` (-1: none of them), and the offset of `p` in it.
inline int32_t CubeBufAt(const Core* c, const void* p, uint64_t* offset) {
    if (c == nullptr || c->cube == nullptr) return -1;
    const auto* q = static_cast<const uint8_t*>(p);
    for (int32_t i = 0; i < kNumCubeBufs; ++i) {
        const uint8_t* b = c->cube->base[i];
        if (q >= b && q < b + kCubeBufBytes[i]) {
            if (offset != nullptr) *offset = static_cast<uint64_t>(q - b);
            return i;
        }
    }
    return -1;
}

// Reserves `bytes` of memory `buf` for TPipe::InitBuffer (a queue or TBuf on a cube position);
// past the memory's end is an error at once (UnifiedBufferOverflow, as the UB's in strict mode):
// the cube memories are not shared with anything a kernel could mean to reach.
inline uint8_t* ReserveCube(int32_t buf, uint64_t bytes, uint32_t num, uint32_t len) {
    Core& c = CurrentCore();
    CubeMem& m = CubeOf(c);
    if (m.used[buf] + bytes > kCubeBufBytes[buf]) {
        Fail(ErrorKind::UnifiedBufferOverflow, "TPipe::InitBuffer",
             std::string(CubeBufName(buf)) + " overflow: InitBuffer(num=" + std::to_string(num) +
                 ", len=" + std::to_string(len) + ") needs " + Str(bytes) + " bytes, " +
                 Str(m.used[buf]) + " of the " + Str(kCubeBufBytes[buf]) + " bytes of " +
                 CubeBufName(buf) + " are already in use");
    }
    uint8_t* addr = m.base[buf] + m.used[buf];
    m.used[buf] += bytes;
    return addr;
}

// Gives back `bytes` of memory `buf` (TPipe::Reset/Destroy).
inline void ReleaseCube(Core* c, int32_t buf, uint64_t bytes) {
    if (c == nullptr || c->cube == nullptr) return;
    uint64_t& u = c->cube->used[buf];
    u = u >= bytes ? u - bytes : 0;
}

}  // namespace opgen_sim
