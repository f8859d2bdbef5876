// opgen host runtime: CANN's path for NpuArch (opgen_host/soc_spec.h).
#pragma once

#include "opgen_host/soc_spec.h"
