// A user header: the tiling struct lives outside the kernel file.
#pragma once
#include <cstdint>

namespace demo {
struct alignas(8) MixTilingData {
    uint32_t totalLength;   // elements
    uint8_t xPresent;       /* optional input flag */
    bool flag;
    half scale;
    int64_t xShape[8];
    uint16_t xRank;
    float negativeSlope;
};
}  // namespace demo
