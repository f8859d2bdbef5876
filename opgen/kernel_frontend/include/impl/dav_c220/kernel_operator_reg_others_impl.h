// Frontend stub of CANN's impl/dav_c220/kernel_operator_reg_others_impl.h (the simulator's is
// runtime/include/impl/dav_c220/): kernels include it for nothing kernel_operator.h lacks.
#pragma once

#include "kernel_operator.h"
