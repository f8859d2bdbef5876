// opgen: CANN's register/tilingdata_base.h, for both sides of a tiling header. Compiled into an
// op_host library (OPGEN_OP_HOST, set by opgen's host build) it declares CANN's tiling-data
// classes with set_/get_/SaveToBuffer/GetDataSize; compiled into a kernel it declares the plain
// struct of the same layout that GET_TILING_DATA fills.
#pragma once

#include <cstdint>

#if defined(OPGEN_OP_HOST)
// CANN's header includes <securec.h>: op_hosts call memset_s/memcpy_s (and test EOK) with only
// it included (ops-nn's fused_sgd_tiling.cpp, ...).
#include "../securec.h"
#include "../opgen_host/tiling_def.h"
#else
#include "../opgen_sim/tiling.h"
#endif
