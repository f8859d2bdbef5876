// A helper header of the kernel: its error is reported at its own line.
#ifndef NEGATE_STEPS_H
#define NEGATE_STEPS_H
#include "kernel_operator.h"

__aicore__ inline float NegateOne(float v)
{
    return -v
}
#endif
