// opgen NPU simulator: the Ascend C kernel API on the CPU. Same name as CANN's header, so a kernel
// written for Ascend hardware compiles unchanged; see docs/simulator.md.
#pragma once

#include "opgen_sim/core.h"
#include "opgen_sim/tensor.h"
#include "opgen_sim/buf_pool.h"
#include "opgen_sim/data_copy.h"
#include "opgen_sim/vector.h"
#include "opgen_sim/vector_masked.h"
#include "opgen_sim/vector_more.h"
#include "opgen_sim/math_more.h"
#include "opgen_sim/softmax.h"
#include "opgen_sim/norm.h"
#include "opgen_sim/quant.h"
#include "opgen_sim/cast_more.h"
#include "opgen_sim/gather_mask.h"
#include "opgen_sim/pad.h"
#include "opgen_sim/broadcast.h"
#include "opgen_sim/sort.h"
#include "opgen_sim/compare_select.h"
#include "opgen_sim/gather.h"
#include "opgen_sim/transpose.h"
#include "opgen_sim/sync.h"
#include "opgen_sim/tiling.h"
#include "opgen_sim/workspace.h"
#include "opgen_sim/launch.h"
#include "opgen_sim/dt_macros.h"  // last: DT_FLOAT16 ... as CANN's kernel build defines them
