// opgen NPU simulator: this unit's kernel declares KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1):
// one cube core and 1 vector core a block (force-included by build.py, which reads the
// declaration; the macro itself expands to nothing, inside the kernel's body).
#pragma once

#include "opgen_sim/task_ratio.h"

namespace {
[[maybe_unused]] const bool opgen_sim_declared_mix_here = (::opgen_sim::binary_declared_mix = 1, true);
}
