// opgen host runtime: CANN's platform/platform_ascendc.h on the CPU (see ../opgen_host/platform.h).
#pragma once
#include "../opgen_host/platform.h"
