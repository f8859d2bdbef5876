#include "kernel_operator.h"

// TODO: write the kernel
struct ScaleAddTilingData {
    uint32_t totalLength;
    uint32_t tileNum;
    float alpha;
};
