// graph/operator_reg.h (CANN's graph engine): register/op_def.h includes it for ge::Operator.
#pragma once
#include "graph/operator.h"
