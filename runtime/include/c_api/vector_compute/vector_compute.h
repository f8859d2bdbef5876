// opgen NPU simulator: the C API's "c_api/vector_compute/vector_compute.h" (the vector
// instructions and conversions), npu_arch 2201; implemented in opgen_sim/c_api_vector.h.
#pragma once

#include "opgen_sim/c_api_vector.h"
