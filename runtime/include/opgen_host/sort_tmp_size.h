// opgen: SortType, SortConfig and the temporary buffer the Sort advanced API with a SortConfig
// needs, one rule for both sides: the host's AscendC::GetSortMaxMinTmpSize (tiling/tiling_api.h)
// reports it, and the simulator's Sort<T[, U], isReuseSource, config> (opgen_sim/sort.h) refuses
// a sharedTmpBuffer below its minimum. Standard headers only, so host code and kernels include it
// alike (a single-source .asc sees one SortConfig).
//
// The reference gives the function but no figures; these are CANN's implementation's (the minimum
// and the maximum are equal):
//   MERGE_SORT: 8 bytes an element (the (value, index) pairs of the merge);
//   RADIX_SORT: the element count n rounded up to 32, then 7 n bytes (the 8-bit digit and its
//     copy, the 16-bit local indices, the 32-bit sorted indices) plus 512 (the 256 16-bit bucket
//     sums), plus a copy of the values (n x value size) when there is no index, or of the values
//     and the indices (n x (value size + 4)) with an output index only, or of both (n x (value
//     size + index size)) with an input and an output index; isReuseSource drops the value and
//     index sizes of that copy (not the 4 bytes of the generated uint32 index). One-byte values
//     need no copy, and with an output index only they need 2 n bytes less.
#pragma once

#include <cstdint>
#include <string>

namespace AscendC {

enum class SortType { RADIX_SORT, MERGE_SORT };

// The host's form (the kernel reads type and isDescend; which indices take part follows from the
// Sort overload called there).
struct SortConfig {
    SortType type = SortType::RADIX_SORT;
    bool isDescend = false;
    bool hasSrcIndex = false;
    bool hasDstIndex = false;
};

constexpr SortConfig DEFAULT_SORT_CONFIG = {SortType::RADIX_SORT, false};

}  // namespace AscendC

namespace opgen_sort {

struct TmpSize {
    std::string error;  // empty when the arguments are valid
    uint32_t maxBytes = 0;
    uint32_t minBytes = 0;
};

// count: the elements sorted; valueBytes: 1, 2, 4 or 8; indexBytes: the input index's size (4 or 8)
// when hasSrcIndex, else ignored.
inline TmpSize SortTmpSize(uint64_t count, uint32_t valueBytes, uint32_t indexBytes, bool isReuseSource,
                           AscendC::SortType type, bool hasSrcIndex, bool hasDstIndex) {
    TmpSize out;
    if (hasSrcIndex && !hasDstIndex) {
        out.error = "hasSrcIndex without hasDstIndex is not supported";
        return out;
    }
    uint64_t bytes = 0;
    if (type == AscendC::SortType::MERGE_SORT) {
        bytes = 8 * count;
    } else {
        constexpr uint64_t kAlign = 32;
        constexpr uint64_t kFixedPerElement = 7;
        constexpr uint64_t kBuckets = 512;
        const uint64_t n = (count + kAlign - 1) / kAlign * kAlign;
        const uint64_t v = isReuseSource ? 0 : valueBytes;
        const uint64_t i = isReuseSource ? 0 : indexBytes;
        bytes = kFixedPerElement * n + kBuckets;
        if (valueBytes != 1) {
            if (!hasDstIndex) {
                bytes += n * v;
            } else if (!hasSrcIndex) {
                bytes += n * (sizeof(uint32_t) + v);
            } else {
                bytes += n * (v + i);
            }
        } else if (hasDstIndex && !hasSrcIndex) {
            bytes -= 2 * n;
        }
    }
    if (bytes > UINT32_MAX) {
        out.error = std::to_string(count) + " elements need " + std::to_string(bytes) +
                    " bytes, more than a uint32_t holds";
        return out;
    }
    out.maxBytes = static_cast<uint32_t>(bytes);
    out.minBytes = static_cast<uint32_t>(bytes);
    return out;
}

}  // namespace opgen_sort
