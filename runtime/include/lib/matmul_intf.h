// opgen: CANN's lib/matmul_intf.h, the advanced Matmul API on the simulator (opgen_sim/matmul.h).
#pragma once

#include "../kernel_operator.h"
#include "../opgen_sim/matmul.h"

// A translation unit using Matmul from the vector cores (not ASCENDC_CUBE_ONLY) makes the
// program's ICPU_RUN_KF launches mix launches in MIX_MODE (opgen_sim/icpu.h, IcpuMixRatio).
#if !defined(ASCENDC_CUBE_ONLY)
namespace {
[[maybe_unused]] const bool opgen_matmul_mix_unit = (::opgen_sim::IcpuMatmulMixProgram() = true);
}  // namespace
#endif
