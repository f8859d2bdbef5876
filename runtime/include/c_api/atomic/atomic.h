// opgen NPU simulator: the C API's "c_api/atomic/atomic.h" (asc_set_atomic_add/max/min_<type>,
// asc_set_atomic_none), npu_arch 2201; implemented in opgen_sim/c_api_datamove.h.
#pragma once

#include "opgen_sim/c_api_datamove.h"
