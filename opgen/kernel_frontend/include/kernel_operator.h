// opgen kernel frontend stub for <kernel_operator.h>; see opgen_frontend_stub.h.
#pragma once
#include "opgen_frontend_stub.h"
