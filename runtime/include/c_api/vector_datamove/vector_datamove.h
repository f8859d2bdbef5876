// opgen NPU simulator: the C API's "c_api/vector_datamove/vector_datamove.h" (asc_copy_gm2ub,
// asc_copy_ub2gm, asc_copy_ub2ub and their _align and _sync forms, asc_set_copy_pad_val),
// npu_arch 2201; implemented in opgen_sim/c_api_datamove.h.
#pragma once

#include "opgen_sim/c_api_datamove.h"
