// opgen NPU simulator: acl_op.h on the CPU. Single-operator execution (aclopExecute and friends)
// is not simulated; the header exists so that programs including it compile. Kernels run through
// <<<>>> launches or ICPU_RUN_KF instead.
#pragma once

#include "acl/acl_base.h"
