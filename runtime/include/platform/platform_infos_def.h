// opgen host runtime: CANN's path for fe::PlatFormInfos, the platform behind
// TilingContext::GetPlatformInfo() (opgen_host/gert.h).
#pragma once

#include "opgen_host/gert.h"
