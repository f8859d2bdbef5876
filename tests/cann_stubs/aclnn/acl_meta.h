// Stub of CANN aclnn/acl_meta.h: the aclnn handle types and status.
#pragma once
#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclStringArray aclStringArray;
typedef int32_t aclnnStatus;
