// opgen: CANN's register/tilingdata_base.h, for both sides of a tiling header. Compiled into an
// op_host library (OPGEN_OP_HOST, set by opgen's host build) it declares CANN's tiling-data
// classes with set_/get_/SaveToBuffer/GetDataSize; compiled into a kernel it declares the plain
// struct of the same layout that GET_TILING_DATA fills.
#pragma once

#include <cstdint>

#if defined(OPGEN_OP_HOST)
#include "../opgen_host/tiling_def.h"
#else
#include "../opgen_sim/tiling.h"
#endif
