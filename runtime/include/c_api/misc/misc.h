// opgen NPU simulator: the C API's "c_api/misc/misc.h" (asc_init), npu_arch 2201;
// implemented in opgen_sim/c_api_base.h.
#pragma once

#include "opgen_sim/c_api_base.h"
