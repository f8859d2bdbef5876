// opgen NPU simulator: CANN's CPU-debug header for single-source (.asc) programs. The <<<>>>
// launches of such a file run on the simulator once `opgen run` / `opgen cxx` has rewritten them
// (opgen_sim/asc_launch.h); including this header is all a program needs.
#pragma once

#include "opgen_sim/asc_launch.h"
