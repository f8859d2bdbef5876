// opgen NPU simulator: the kinds of core a binary's kernels launch on (its own header: the
// declared-mix headers build.py force-includes before a unit's first line set them too).
#pragma once

#include <cstdint>

namespace opgen_sim {
// AIV cores per block of this binary's kernels (a kernel library, or a program built with its
// kernels): lib/matmul_intf.h sets 2, when the binary loads, in a unit using the Matmul API from
// the vector cores (not ASCENDC_CUBE_ONLY): CANN's compiler makes those kernels mix kernels, one
// AIC and two AIV cores a block on the A2/A3. Hidden, so each library has its own: defined by the
// runtime object a kernel unit links (outline.h), else an inline variable of the binary.
#if defined(OPGEN_SIM_EXTERN_RUNTIME) || defined(OPGEN_SIM_RUNTIME_UNIT)
extern int32_t binary_task_ratio __attribute__((visibility("hidden")));
#if defined(OPGEN_SIM_RUNTIME_UNIT)
__attribute__((weak)) int32_t binary_task_ratio = 1;  // (the runtime and instance objects: one)
#endif
#else
inline int32_t binary_task_ratio __attribute__((visibility("hidden"))) = 1;
#endif
inline int32_t UnitTaskRatio() { return binary_task_ratio; }
// A kernel that declares itself mix (KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1) or
// (..._1_2)): its AIV cores per block, set when the binary loads by the header build.py
// force-includes into such a unit (declared_mix_1_1.h, declared_mix_1_2.h); 0 otherwise. A
// registered op's launch then runs one cube core per block beside them (launch.h).
#if defined(OPGEN_SIM_EXTERN_RUNTIME) || defined(OPGEN_SIM_RUNTIME_UNIT)
extern int32_t binary_declared_mix __attribute__((visibility("hidden")));
#if defined(OPGEN_SIM_RUNTIME_UNIT)
__attribute__((weak)) int32_t binary_declared_mix = 0;
#endif
#else
inline int32_t binary_declared_mix __attribute__((visibility("hidden"))) = 0;
#endif
inline int32_t BinaryDeclaredMix() { return binary_declared_mix; }
}  // namespace opgen_sim
