// opgen NPU simulator: Fill of L1 / L0A / L0B with a constant (reference "Fill", matrix
// computation's auxiliary configuration; InitConstValueParams). repeatTimes repeats each set
// blockNum blocks to initValue and then skip dstGap blocks; a block is 32 bytes in L1 (TPosition
// A1/B1, 32-byte aligned start) and 512 bytes in L0A/L0B (A2/B2, 512-byte aligned start).
// repeatTimes or blockNum 0 is a NOP.
#pragma once

#include <cstdint>
#include <type_traits>

#include "opgen_sim/cube.h"

namespace AscendC {

template <typename T>
struct InitConstValueParams {
    InitConstValueParams() {}
    InitConstValueParams(const uint16_t repeatTimesIn, const uint16_t blockNumIn, const uint16_t dstGapIn,
                         const T initValueIn)
        : repeatTimes(repeatTimesIn), blockNum(blockNumIn), dstGap(dstGapIn), initValue(initValueIn) {}
    InitConstValueParams(const uint16_t repeatTimesIn, const T initValueIn)
        : repeatTimes(repeatTimesIn), initValue(initValueIn) {}
    uint16_t repeatTimes = 0;
    uint16_t blockNum = 0;
    uint16_t dstGap = 0;
    T initValue = 0;
};

template <typename T, typename U = T, typename std::enable_if<std::is_same<T, U>::value, bool>::type = true>
inline void Fill(const LocalTensor<T>& dst, const InitConstValueParams<U>& p) {
    constexpr const char* api = "Fill(LocalTensor, InitConstValueParams)";
    static_assert(std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, half> ||
                      std::is_same_v<T, bfloat16_t> || std::is_same_v<T, int32_t> ||
                      std::is_same_v<T, uint32_t> || std::is_same_v<T, float>,
                  "Fill(InitConstValueParams): the A2/A3 fills int16_t, uint16_t, half, bfloat16_t, int32_t, "
                  "uint32_t or float");
    using namespace opgen_sim::cube;  // NOLINT: the cube checks
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    opgen_sim::CubeMem& m = opgen_sim::CubeOf(c);
    Range(api, "repeatTimes", p.repeatTimes, 0, 32767);
    Range(api, "blockNum", p.blockNum, 0, 32767);
    Range(api, "dstGap", p.dstGap, 0, 32767);
    if (p.repeatTimes == 0 || p.blockNum == 0) return;  // a NOP, as documented
    const int32_t where = opgen_sim::CubeBufAt(&c, dst.ptr_, nullptr);
    const uint64_t blk = where == opgen_sim::kCubeL1 ? 32 : 512;
    const uint64_t bytes = ((uint64_t{p.repeatTimes} - 1) * (p.blockNum + p.dstGap) + p.blockNum) * blk;
    const uint64_t off =
        Operand(&c, dst, Bit(opgen_sim::kCubeL1) | Bit(opgen_sim::kCubeL0A) | Bit(opgen_sim::kCubeL0B), blk, bytes,
                api, "dst", "Fill initialises L1 (TPosition A1/B1), L0A (A2) or L0B (B2)");
    T* base = reinterpret_cast<T*>(m.base[where] + off);
    const uint64_t per_blk = blk / sizeof(T);
    for (uint64_t r = 0; r < p.repeatTimes; ++r) {
        T* d = base + r * (p.blockNum + p.dstGap) * per_blk;
        for (uint64_t i = 0; i < p.blockNum * per_blk; ++i) d[i] = p.initValue;
    }
}

}  // namespace AscendC
