// opgen kernel frontend stub for <lib/sigmoid/kernel_operator_sigmoid_intf.h>; see opgen_frontend_stub.h.
#pragma once
#include "../../opgen_frontend_stub.h"
