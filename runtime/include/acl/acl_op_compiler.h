// opgen NPU simulator: acl_op_compiler.h on the CPU. Online op compilation (aclopCompile and
// friends) is not simulated: ops run through their aclnn API or kernel launches. The header
// exists so that drivers including it compile.
#pragma once

#include "acl/acl_op.h"
