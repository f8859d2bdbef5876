// opgen host runtime: CANN's exe_graph/runtime/kernel_run_context.h on the CPU. CANN's KernelRunContext is
// the storage behind every context; opgen keeps its own (../../opgen_host/gert.h), so this only
// gives the contexts to sources that include it for them.
#pragma once
#include "../../opgen_host/gert.h"
