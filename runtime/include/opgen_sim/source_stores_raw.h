// opgen NPU simulator: this unit's source may store through raw pointers (source_verdict.h).
#pragma once
#define OPGEN_SIM_SOURCE_STORES_RAW 1
#include "opgen_sim/source_verdict.h"
