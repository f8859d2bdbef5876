// opgen NPU simulator: stand-in for CANN's register/tilingdata_base.h, so an op_host tiling
// header (BEGIN_TILING_DATA_DEF ... REGISTER_TILING_DATA_CLASS) compiles into the kernel.
#pragma once

#include <cstdint>

#include "../opgen_sim/tiling.h"
