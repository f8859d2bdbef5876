// opgen host runtime: CANN's NPU architecture numbers (platform/soc_spec.h), which op_hosts
// compare with PlatformAscendC::GetCurNpuArch() to choose an architecture's tiling.
#pragma once

#include <cstdint>

enum class NpuArch : uint32_t {
    DAV_1001 = 1001,  // Ascend910
    DAV_2002 = 2002,  // Ascend310P
    DAV_2201 = 2201,  // Ascend910B, Ascend910_93
    DAV_3002 = 3002,  // Ascend310B
    DAV_3003 = 3003,
    DAV_3102 = 3102,
    DAV_3113 = 3113,
    DAV_3510 = 3510,  // Ascend950
    DAV_5102 = 5102,
    DAV_RESV = 0xFFFFFFFFU,  // an architecture opgen does not simulate
};
