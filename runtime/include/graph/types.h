// opgen host runtime: CANN's graph/types.h on the CPU (see ../opgen_host/ge_types.h).
#pragma once
#include "../opgen_host/ge_types.h"
