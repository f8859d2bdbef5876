// opgen kernel frontend stub for <tiling/tiling_api.h>, which an op_host's tiling header includes
// for the advanced APIs' tiling structs it nests (TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, ...));
// see opgen_frontend_stub.h.
#pragma once
#include "../opgen_frontend_stub.h"
