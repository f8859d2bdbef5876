// Ascend C's Sigmoid header of CANN 8's high-level API layout
// (lib/sigmoid/kernel_operator_sigmoid_intf.h): the simulator declares every API it implements in
// kernel_operator.h.
#pragma once
#include "kernel_operator.h"
