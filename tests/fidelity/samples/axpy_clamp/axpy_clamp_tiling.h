/* The tiling of axpy_clamp: a plain struct the driver fills on the host and passes to the
 * kernel by value (the kernel entry takes it as a parameter, not through GM). */
#ifndef AXPY_CLAMP_TILING_H
#define AXPY_CLAMP_TILING_H
#include <cstdint>

struct AxpyClampTiling {
    uint32_t length;    // elements in all
    uint32_t tileNum;   // UB tiles per block
    float alpha;        // z = clamp(alpha * x + y, low, high)
    float low;
    float high;
};
#endif
