// Ascend C's power header of CANN 8's high-level API layout (lib/math/kernel_operator_power_intf.h):
// the simulator declares every API it implements in kernel_operator.h.
#pragma once
#include "kernel_operator.h"
