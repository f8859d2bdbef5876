// opgen kernel frontend stub: a kernel's printf (utils/debug/asc_printf.h) is only called in
// function bodies, which the parser skips.
#pragma once

#include "kernel_operator.h"
