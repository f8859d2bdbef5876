// opgen host runtime: CANN's register/op_impl_registry.h on the CPU (see ../opgen_host/op_registry.h).
#pragma once
#include "../opgen_host/op_registry.h"
