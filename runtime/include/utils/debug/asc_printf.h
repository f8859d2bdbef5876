// opgen NPU simulator: printf in kernels. On the simulator a kernel's printf is the host's.
#pragma once

#include <cstdio>

#include "kernel_operator.h"
