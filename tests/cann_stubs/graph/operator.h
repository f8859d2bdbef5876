// Stub of CANN graph/operator.h: ge::Operator lives in this directory's graph/operator_reg.h.
#pragma once
#include "graph/operator_reg.h"
