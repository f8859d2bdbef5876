// opgen NPU simulator: aclnn/aclnn_base.h on the CPU. The aclnn handles and codes (acl_meta.h)
// and the library-wide calls; on the simulator there is nothing to set up, so aclnnInit and
// aclnnFinalize only succeed.
#pragma once

#include "aclnn/acl_meta.h"

extern "C" {

inline aclnnStatus aclnnInit(const char* configPath) {
    (void)configPath;
    return ACLNN_SUCCESS;
}

inline aclnnStatus aclnnFinalize() { return ACLNN_SUCCESS; }

}  // extern "C"
