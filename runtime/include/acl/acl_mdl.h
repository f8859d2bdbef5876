// opgen NPU simulator: acl_mdl.h on the CPU. Offline models of whole graphs (aclmdlLoadFromFile,
// aclmdlExecute and the model descriptions) are not simulated; single-operator models are
// (acl/acl_op.h: atc --singleop, aclopSetModelDir, aclopExecuteV2). The header exists so that
// programs including it compile.
#pragma once

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
