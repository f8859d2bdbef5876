// opgen NPU simulator: CANN's CPU twin-debug header. A driver (main.cpp) written for
// `run.sh -r cpu` includes it under ASCENDC_CPU_DEBUG and runs kernels with ICPU_RUN_KF on the
// simulator; build flags come from `opgen config --cflags --libs`. See docs/simulator.md.
#pragma once

#include "kernel_operator.h"
#include "securec.h"
#include "opgen_sim/icpu.h"
