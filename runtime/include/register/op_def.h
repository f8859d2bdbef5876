// opgen host runtime: CANN's register/op_def.h on the CPU (see ../opgen_host/op_def.h).
#pragma once
#include "../opgen_host/op_def.h"
