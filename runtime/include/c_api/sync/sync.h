// opgen NPU simulator: the C API's "c_api/sync/sync.h" (asc_sync, asc_sync_vec, asc_sync_mte2,
// asc_sync_mte3, asc_sync_notify / asc_sync_wait / asc_sync_pipe, the cross-core flags),
// npu_arch 2201; implemented in opgen_sim/c_api_base.h.
#pragma once

#include "opgen_sim/c_api_base.h"
