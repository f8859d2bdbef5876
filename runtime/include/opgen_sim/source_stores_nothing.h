// opgen NPU simulator: this unit's source stores through no raw pointer (source_verdict.h).
#pragma once
#define OPGEN_SIM_SOURCE_STORES_RAW 0
#include "opgen_sim/source_verdict.h"
