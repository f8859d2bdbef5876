// opgen: AscendC::ReducePattern, the reduction patterns of the normalization and reduce advanced
// APIs and their host tiling, shared by the kernel (opgen_sim/norm_more.h) and the host
// (tiling/reduce_filter_tiling.h). CANN's guard, so that one definition wins when a program also
// includes CANN's own header.
#pragma once

#include <cstdint>

namespace AscendC {

#ifndef ASCC_ENUM_REDUCEPATTERN
#define ASCC_ENUM_REDUCEPATTERN
enum class ReducePattern : uint32_t {
    AR = 0,
    RA = 1,
    R,
    ARA,
    ARAR,
    ARARA,
    ARARAR,
    ARARARA,
    ARARARAR,
    ARARARARA,
    RAR,
    RARA,
    RARAR,
    RARARA,
    RARARAR,
    RARARARA,
};
#endif

}  // namespace AscendC
