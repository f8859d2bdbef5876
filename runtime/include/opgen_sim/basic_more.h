// opgen NPU simulator: basic APIs the A2/A3 vector samples use beyond the other headers.
//
// DataCopy with SliceInfo (the "slice" data copy, GM -> UB and UB -> GM): copies a sub-block of a
// tensor of up to K_MAX_DIM dimensions. Each side (GM and UB) is described by one SliceInfo per
// dimension, dimension 0 the innermost: the elements startIndex..endIndex of a dimension of
// shapeValue elements, in pieces separated by `stride` elements. In dimension 0 a piece is burstLen
// 32-byte blocks; in the outer dimensions a piece is one index (burstLen must be 1), so an outer
// dimension selects every (stride + 1)-th index from startIndex to endIndex. The outer
// dimensions' selected rows are enumerated, the innermost outer dimension fastest, and row k of
// the source goes to row k of the destination. Where the reference says no more, the steps follow
// CANN's implementation (impl/basic_api/kernel_operator_data_copy_intf_impl.h):
//  - the burst length and the number of bursts of a row come from the source's dimension 0:
//    (endIndex - startIndex + 1 + stride) / (burstLen * 32 / sizeof(T) + stride) bursts, rounded
//    down (a last partial piece is not copied);
//  - the gap between bursts on the GM side is `stride` elements exactly, on the UB side `stride`
//    elements rounded down to whole 32-byte blocks (the hardware's UB stride is in blocks);
//  - the shapes are the SliceInfos' shapeValue when the source's dimension 0 gives one, else the
//    tensors' ShapeInfo; the simulator keeps none for a GlobalTensor, so shapeValue 0 is an error.
// Misuse fails naming "DataCopy with SliceInfo": dimValue outside [1, K_MAX_DIM], an empty or
// out-of-shape range, an outer burstLen other than 1, source and destination selecting different
// numbers of rows, more rows than CANN's offset list holds (MAX_SLICE_SIZE, 1536), a UB burst off
// a 32-byte boundary, or an access past either tensor.
#pragma once

#include <vector>

#include "data_copy.h"

namespace AscendC {

constexpr int32_t K_MAX_DIM = 8;

struct SliceInfo {
    SliceInfo() {}
    SliceInfo(const uint32_t startIndexIn, const uint32_t endIndexIn, const uint32_t strideIn,
              const uint32_t burstLenIn, const uint32_t shapeValueIn = 0)
        : startIndex(startIndexIn),
          endIndex(endIndexIn),
          stride(strideIn),
          burstLen(burstLenIn),
          shapeValue(shapeValueIn) {}
    uint32_t startIndex = 0;
    uint32_t endIndex = 31;  // one 32-byte block's worth of bytes, as CANN's default
    uint32_t stride = 0;
    uint32_t burstLen = 32;
    uint32_t shapeValue = 0;
};

}  // namespace AscendC

namespace opgen_sim {

constexpr uint32_t kMaxSliceRows = 6 * 256;  // CANN's MAX_SLICE_SIZE

// One side of a slice copy: its first element and the element offset of each selected row.
struct SliceSide {
    uint64_t start = 0;
    std::vector<uint64_t> rows;
};

inline std::string SliceWhere(const char* side, uint32_t dim) {
    return std::string(side) + "SliceInfo[" + Str(dim) + "]";
}

// `shape` holds each dimension's length; `side` names the side ("src"/"dst") in messages.
inline SliceSide PlanSliceSide(const AscendC::SliceInfo info[], const uint32_t shape[],
                               uint32_t dims, const char* side, const char* api) {
    SliceSide s;
    s.rows.push_back(0);
    uint64_t below = 1;  // elements in one index of dimension i
    for (uint32_t i = 0; i < dims; ++i) {
        const AscendC::SliceInfo& d = info[i];
        if (shape[i] == 0) {
            Fail(ErrorKind::Generic, api, SliceWhere(side, i) + ": the dimension's shape is 0");
        }
        if (d.startIndex > d.endIndex || d.endIndex >= shape[i]) {
            Fail(ErrorKind::Generic, api,
                 SliceWhere(side, i) + ": startIndex " + Str(d.startIndex) + ", endIndex " +
                     Str(d.endIndex) + " should satisfy startIndex <= endIndex < shape " +
                     Str(shape[i]));
        }
        if (i > 0 && d.burstLen != 1) {
            Fail(ErrorKind::Generic, api,
                 SliceWhere(side, i) + ": burstLen is " + Str(d.burstLen) +
                     ", should be 1 in a dimension above the first");
        }
        s.start += static_cast<uint64_t>(d.startIndex) * below;
        if (i > 0) {
            const uint64_t count =
                (static_cast<uint64_t>(d.endIndex) - d.startIndex + 1 + d.stride) /
                (static_cast<uint64_t>(d.stride) + 1);
            if (s.rows.size() * count > kMaxSliceRows) {
                Fail(ErrorKind::Generic, api,
                     std::string(side) + "SliceInfo selects more than " + Str(kMaxSliceRows) +
                         " rows (CANN's MAX_SLICE_SIZE)");
            }
            const size_t inner = s.rows.size();
            for (uint64_t k = 1; k < count; ++k) {
                for (size_t r = 0; r < inner; ++r) {
                    s.rows.push_back(s.rows[r] + k * (static_cast<uint64_t>(d.stride) + 1) * below);
                }
            }
        }
        below *= shape[i];
    }
    return s;
}

// The shapes of both sides: the SliceInfos' shapeValue when the source's dimension 0 gives one,
// else the tensors' ShapeInfo, which the simulator keeps for no GlobalTensor: an error.
inline void SliceShapes(const AscendC::SliceInfo gmInfo[], const AscendC::SliceInfo ubInfo[],
                        bool src_is_gm, uint32_t dims, uint32_t gmShape[], uint32_t ubShape[],
                        const char* api) {
    const AscendC::SliceInfo* src = src_is_gm ? gmInfo : ubInfo;
    if (src[0].shapeValue == 0) {
        Fail(ErrorKind::Generic, api,
             "srcSliceInfo[0].shapeValue is 0, which takes the shapes from the tensors' ShapeInfo: "
             "the simulator keeps none for a GlobalTensor; give each SliceInfo's shapeValue");
    }
    for (uint32_t i = 0; i < dims; ++i) {
        gmShape[i] = gmInfo[i].shapeValue;
        ubShape[i] = ubInfo[i].shapeValue;
    }
}

// Copies the slice between `gm` and `ub` (to UB when `to_ub`).
template <typename T>
inline void SliceCopy(const AscendC::LocalTensor<T>& ub, const AscendC::GlobalTensor<T>& gm,
                      const AscendC::SliceInfo ubInfo[], const AscendC::SliceInfo gmInfo[],
                      uint32_t dims, bool to_ub) {
    constexpr const char* api = "DataCopy with SliceInfo";
    static_assert(std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int16_t> ||
                      std::is_same_v<T, uint16_t> || std::is_same_v<T, int32_t> ||
                      std::is_same_v<T, uint32_t> || std::is_same_v<T, half> ||
                      std::is_same_v<T, bfloat16_t> || std::is_same_v<T, float>,
                  "DataCopy with SliceInfo takes int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, half, "
                  "bfloat16_t or float");
    constexpr uint64_t per_block = kBlockBytes / sizeof(T);
    if (dims < 1 || dims > static_cast<uint32_t>(AscendC::K_MAX_DIM)) {
        Fail(ErrorKind::Generic, api,
             "dimValue is " + Str(dims) + ", should be in [1, " + Str(AscendC::K_MAX_DIM) + "]");
    }
    CheckUbAligned(ub, api, to_ub ? "dst" : "src");
    uint32_t gmShape[AscendC::K_MAX_DIM] = {};
    uint32_t ubShape[AscendC::K_MAX_DIM] = {};
    SliceShapes(gmInfo, ubInfo, to_ub, dims, gmShape, ubShape, api);
    const char* gmName = to_ub ? "src" : "dst";
    const char* ubName = to_ub ? "dst" : "src";
    const SliceSide g = PlanSliceSide(gmInfo, gmShape, dims, gmName, api);
    const SliceSide u = PlanSliceSide(ubInfo, ubShape, dims, ubName, api);
    if (g.rows.size() != u.rows.size()) {
        Fail(ErrorKind::Generic, api,
             std::string("srcSliceInfo selects ") + Str(to_ub ? g.rows.size() : u.rows.size()) +
                 " rows, dstSliceInfo " + Str(to_ub ? u.rows.size() : g.rows.size()) +
                 ": they should select the same number");
    }
    const AscendC::SliceInfo& src0 = to_ub ? gmInfo[0] : ubInfo[0];
    if (src0.burstLen == 0 || src0.burstLen > 65535) {
        Fail(ErrorKind::Generic, api,
             "srcSliceInfo[0].burstLen is " + Str(src0.burstLen) + ", should be in [1, 65535] blocks");
    }
    const uint64_t burst = static_cast<uint64_t>(src0.burstLen) * per_block;  // elements
    const uint64_t bursts =
        (static_cast<uint64_t>(src0.endIndex) - src0.startIndex + 1 + src0.stride) / (burst + src0.stride);
    if (bursts == 0) return;
    // Element step from one burst to the next on each side.
    const uint64_t gmStep = burst + gmInfo[0].stride;
    const uint64_t ubGapBlocks = static_cast<uint64_t>(ubInfo[0].stride) * sizeof(T) / kBlockBytes;
    const uint64_t ubStep = burst + ubGapBlocks * per_block;
    uint64_t ubEnd = 0, gmEnd = 0;
    for (size_t r = 0; r < g.rows.size(); ++r) {
        const uint64_t uo = u.start + u.rows[r];
        if ((uo * sizeof(T)) % kBlockBytes != 0) {
            Fail(ErrorKind::Alignment, api,
                 std::string(ubName) + " row " + Str(r) + " starts at element " + Str(uo) +
                     " of the LocalTensor, not on a 32-byte boundary");
        }
        ubEnd = std::max(ubEnd, uo + (bursts - 1) * ubStep + burst);
        gmEnd = std::max(gmEnd, g.start + g.rows[r] + (bursts - 1) * gmStep + burst);
    }
    CheckUbExtent(ub, ubEnd * sizeof(T), api, ubName);
    gm.CheckRange(gmEnd, api);
    // A GM stride of whole blocks is one burst copy per row, as on the hardware; any other is
    // copied burst by burst (CANN's byte-stride form).
    const bool gmWhole = (static_cast<uint64_t>(gmInfo[0].stride) * sizeof(T)) % kBlockBytes == 0;
    const uint64_t gmGapBlocks = static_cast<uint64_t>(gmInfo[0].stride) * sizeof(T) / kBlockBytes;
    for (size_t r = 0; r < g.rows.size(); ++r) {
        const uint64_t uo = u.start + u.rows[r];
        const uint64_t go = g.start + g.rows[r];
        if (gmWhole && bursts <= 4095 && gmGapBlocks <= 65535 && ubGapBlocks <= 65535) {
            const uint16_t n = static_cast<uint16_t>(bursts);
            const uint16_t len = static_cast<uint16_t>(src0.burstLen);
            if (to_ub) {
                AscendC::DataCopy(ub[uo], gm[go],
                                  AscendC::DataCopyParams(n, len, static_cast<uint16_t>(gmGapBlocks),
                                                          static_cast<uint16_t>(ubGapBlocks)));
            } else {
                AscendC::DataCopy(gm[go], ub[uo],
                                  AscendC::DataCopyParams(n, len, static_cast<uint16_t>(ubGapBlocks),
                                                          static_cast<uint16_t>(gmGapBlocks)));
            }
            continue;
        }
        for (uint64_t b = 0; b < bursts; ++b) {
            const AscendC::DataCopyParams one(1, static_cast<uint16_t>(src0.burstLen), 0, 0);
            if (to_ub) {
                AscendC::DataCopy(ub[uo + b * ubStep], gm[go + b * gmStep], one);
            } else {
                AscendC::DataCopy(gm[go + b * gmStep], ub[uo + b * ubStep], one);
            }
        }
    }
}

}  // namespace opgen_sim

namespace AscendC {

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const SliceInfo dstSliceInfo[],
                     const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1) {
    opgen_sim::SliceCopy(dst, src, dstSliceInfo, srcSliceInfo, dimValue, true);
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const SliceInfo dstSliceInfo[],
                     const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1) {
    opgen_sim::SliceCopy(src, dst, srcSliceInfo, dstSliceInfo, dimValue, false);
}

}  // namespace AscendC
