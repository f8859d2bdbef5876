// opgen host runtime: CANN's exe_graph/runtime/extended_kernel_context.h on the CPU (see ../../opgen_host/gert.h).
#pragma once
#include "../../opgen_host/gert.h"
