#pragma once
#include <cstdint>
struct ScaleAddTilingData {
    uint32_t blockLength;
    float alpha;
};
