// opgen kernel frontend stub for <kernel_tiling/kernel_tiling.h>; see opgen_frontend_stub.h.
#pragma once
#include "../opgen_frontend_stub.h"
