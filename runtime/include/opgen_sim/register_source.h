// opgen NPU simulator: registers the unit's main source file for the raw-pointer scan
// (raw_gm_scan.h). Force-included after the precompiled simulator header, which cannot hold
// this registration: __BASE_FILE__ must be the kernel's file, not the header's.
#pragma once

#include "opgen_sim/raw_gm_scan.h"

namespace {
[[maybe_unused]] const bool opgen_sim_source_registered_here =
    ::opgen_sim::RegisterSource(__BASE_FILE__);
}
