/* op_host tiling of BlendPair in the macro style of an msopgen project. The op_kernel source
 * never includes it: the build force-includes it, as CANN's build does. */
#ifndef BLEND_PAIR_TILING_H
#define BLEND_PAIR_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BlendPairTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);  // elements of z
TILING_DATA_FIELD_DEF(uint32_t, tileNum);      // UB passes per block
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BlendPair, BlendPairTilingData)
}  // namespace optiling
#endif
