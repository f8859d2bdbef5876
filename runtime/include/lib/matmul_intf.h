// opgen: CANN's lib/matmul_intf.h, the advanced Matmul API on the simulator (opgen_sim/matmul.h).
#pragma once

#include "../kernel_operator.h"
#include "../opgen_sim/matmul.h"

// A translation unit using Matmul from the vector cores (not ASCENDC_CUBE_ONLY) holds mix
// kernels: its binary's launches run 2 AIV cores a block (opgen_sim/core.h, UnitTaskRatio: a
// kernel library's launches and aclrtlaunch_ functions, ICPU_RUN_KF in MIX_MODE).
#if !defined(ASCENDC_CUBE_ONLY)
namespace opgen_sim {
namespace {
[[maybe_unused]] const bool matmul_mix_unit = (binary_task_ratio = 2, IcpuMatmulMixProgram() = true);
}  // namespace
}  // namespace opgen_sim
#endif
