// opgen NPU simulator: the classes of namespace optiling as global names, as CANN's kernel build
// sees an op_host tiling header's classes (it generates the kernel's tiling structs at global
// scope). Force-included after an msopgen project's op_host tiling header when its kernel is built
// (opgen_runtime/oplib.py); not part of kernel_operator.h (opgen_sim/tiling.h says why).
#pragma once

namespace optiling {}
using namespace optiling;  // NOLINT(google-build-using-namespace)
