// opgen host runtime: CANN's exe_graph/runtime/compute_node_info.h on the CPU (see ../../opgen_host/gert.h).
#pragma once
#include "../../opgen_host/gert.h"
