// opgen host runtime: CANN's platform/platform_info_def.h (the platform's structs: fe::PlatFormInfos
// and its memory types), which ops-nn's op_hosts include next to platform_ascendc.h (foreach's
// foreach_tiling_class.h, ...). The platform is the simulated SoC's (opgen_host/gert.h).
#pragma once

#include "platform/platform_infos_def.h"
