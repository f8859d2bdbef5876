// opgen NPU simulator: the raw-pointer scan's verdict on this unit's source, given by the build
// that scanned it (opgen_runtime.build), instead of a scan of __BASE_FILE__ at the first launch.
// Force-included through source_stores_raw.h or source_stores_nothing.h, which define
// OPGEN_SIM_SOURCE_STORES_RAW first: a macro defined here, after any precompiled header, keeps
// the precompiled header valid where a -D on the command line would not.
#pragma once

#define OPGEN_SIM_SOURCE_VERDICT_GIVEN 1
#include "opgen_sim/raw_gm_scan.h"

namespace {
[[maybe_unused]] const bool opgen_sim_source_verdict_registered =
    ::opgen_sim::RegisterVerdict(OPGEN_SIM_SOURCE_STORES_RAW != 0);
}
