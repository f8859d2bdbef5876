// opgen NPU simulator: acl.h on the CPU, the header host programs include for CANN's runtime
// (acl_base.h: types and codes; acl_rt.h: devices, streams, memory). See acl_rt.h.
#pragma once

#include "acl/acl_base.h"
#include "acl/acl_op.h"
#include "acl/acl_rt.h"
