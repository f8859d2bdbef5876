// Stub of CANN acl/acl_base.h.
#pragma once
#include <cstddef>
#include <cstdint>

typedef void* aclrtStream;
typedef int aclError;
static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_BAD_ALLOC = 200000;
