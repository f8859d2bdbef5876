// opgen: tiling sink's registration (CANN 9, register/device_op_impl_registry.h). On the NPU,
// DEVICE_IMPL_OP_OPTILING(Op).Tiling(f) also runs the tiling function f on the device, at
// launch; on the simulator every tiling runs on the host, so it registers f as
// IMPL_OP_OPTILING does (docs/op-host.md).
#pragma once

#include "register/op_impl_registry.h"

#define DEVICE_IMPL_OP_OPTILING(op_type) IMPL_OP_OPTILING(op_type)
