// opgen: CANN's impl/dav_c220/kernel_operator_reg_others_impl.h (asc-devkit
// impl/basic_api/dav_c220/), the 910B's wrappers of special-register intrinsics (GetRsvdCnt,
// GetSubBlockId, Clz, SetCtrl, ...), which CANN's kernel build finds on its include path.
// ops-nn's kernels include it (deep_norm, 20 others) without calling anything of it that
// kernel_operator.h does not already declare; the simulator's APIs are all there.
#pragma once

#include "kernel_operator.h"  // through the include path: the simulator's, or the kernel frontend's own
