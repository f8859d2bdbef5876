/* Tiling of add_custom, a plain struct shared by the host driver and the kernel. */
#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include <cstdint>

struct AddCustomTilingData {
    uint32_t totalLength;
    uint32_t tileNum;
    float alpha;  // z = x + alpha * y
};
#endif
