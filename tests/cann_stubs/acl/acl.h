// Stub of CANN acl/acl.h (acl_rt.h's memory and stream calls).
#pragma once
#include <cstddef>

#include "acl/acl_base.h"

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEM_MALLOC_HUGE_ONLY,
    ACL_MEM_MALLOC_NORMAL_ONLY,
} aclrtMemMallocPolicy;

extern "C" {
aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void* devPtr);
aclError aclrtSynchronizeStream(aclrtStream stream);
}
