// opgen host runtime: CANN's platform/platform_info.h, which op_host sources include for
// fe::PlatFormInfos (TilingContext::GetPlatformInfo(): GetLocalMemSize, GetCoreNum...); the
// platform is the simulated SoC's (opgen_host/gert.h). CANN's PlatformInfoManager (the platform
// tables of its graph compiler) is not provided.
#pragma once

#include "platform/platform_infos_def.h"
