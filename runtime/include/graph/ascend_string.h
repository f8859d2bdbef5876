// opgen host runtime: CANN's graph/ascend_string.h on the CPU (see ../opgen_host/ge_types.h).
#pragma once
#include "../opgen_host/ge_types.h"
