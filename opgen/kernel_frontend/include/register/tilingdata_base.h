// opgen kernel frontend stub for <register/tilingdata_base.h>; see opgen_frontend_stub.h.
#pragma once
#include "../opgen_frontend_stub.h"
