// opgen kernel frontend stub for <lib/math/kernel_operator_acos_intf.h>; see opgen_frontend_stub.h.
#pragma once
#include "../../opgen_frontend_stub.h"
