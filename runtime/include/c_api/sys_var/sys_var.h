// opgen NPU simulator: the C API's "c_api/sys_var/sys_var.h" (asc_get_block_idx,
// asc_get_block_num, asc_get_sub_block_id/num, asc_get_system_cycle, asc_get_phy_buf_addr),
// npu_arch 2201; implemented in opgen_sim/c_api_base.h.
#pragma once

#include "opgen_sim/c_api_base.h"
