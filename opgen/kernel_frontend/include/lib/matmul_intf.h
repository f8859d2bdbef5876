// opgen kernel frontend stub for <lib/matmul_intf.h>; see opgen_frontend_stub.h.
#pragma once
#include "../opgen_frontend_stub.h"
