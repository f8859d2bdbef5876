// opgen NPU simulator: the C API of Ascend C, as CANN's "c_api/asc_simd.h" declares it for
// npu_arch 2201 (Atlas A2/A3 vector cores): its vector subset, on the simulator's C++ API
// (opgen_sim/c_api_*.h; docs/simulator.md, "The C API"). The families' own headers
// (c_api/vector_compute/vector_compute.h, ...) may be included one by one, as in CANN.
#pragma once

#include "c_api/misc/misc.h"
#include "c_api/sync/sync.h"
#include "c_api/sys_var/sys_var.h"
#include "c_api/atomic/atomic.h"
#include "c_api/vector_datamove/vector_datamove.h"
#include "c_api/vector_compute/vector_compute.h"
