// opgen NPU simulator: the instance objects' APIs (instances.h), declared `extern template` for a
// kernel unit that links them. Force-included after the precompiled simulator header, before the
// kernel's first token: the kernel calls these instances and g++ does not generate them again.
#pragma once

#include "opgen_sim/instances.h"

#define OPGEN_SIM_EXTERN_INSTANCE(...) extern template __VA_ARGS__;
#define OPGEN_SIM_EXTERN_INSTANCES(T) OPGEN_SIM_ALL_INSTANCES_OF(OPGEN_SIM_EXTERN_INSTANCE, T)
OPGEN_SIM_INSTANCE_DTYPES(OPGEN_SIM_EXTERN_INSTANCES)
#undef OPGEN_SIM_EXTERN_INSTANCES
#undef OPGEN_SIM_EXTERN_INSTANCE
