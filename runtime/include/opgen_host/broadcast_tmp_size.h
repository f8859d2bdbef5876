// opgen: the temporary buffer the Broadcast advanced API needs, one rule for both sides: the
// host's AscendC::GetBroadCastMaxMinTmpSize (tiling/tiling_api.h) reports it, and the simulator's
// Broadcast (opgen_sim/broadcast.h) refuses a sharedTmpBuffer below its minimum. Standard headers
// only, so host code and kernels include it alike.
//
// The reference lists the function but not its figures; these are CANN's implementation's, by
// architecture: the 910B family (brcb each row's value into a 32-byte block, copy the blocks out;
// an unaligned row also goes through a staging copy that GatherMask packs) and the 310P.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace opgen_broadcast {

enum class Arch { Dav2201, Dav2002, Other };

struct TmpSize {
    std::string error;  // empty when the shapes and type size are valid
    uint32_t maxBytes = 0;
    uint32_t minBytes = 0;
};

inline std::string DimsText(const uint64_t* dims, size_t n) {
    std::string s = "{";
    for (size_t i = 0; i < n; ++i) s += (i == 0 ? "" : ", ") + std::to_string(dims[i]);
    return s + "}";
}

inline uint64_t RoundUp(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

// src and dst: `dims` extents each (1 or 2 is valid). typeSize in bytes (1, 2 or 4).
inline TmpSize BroadcastTmpSize(Arch arch, const uint64_t* src, const uint64_t* dst, size_t dims,
                                uint32_t typeSize) {
    constexpr uint64_t kBlock = 32;
    constexpr uint64_t kBrcbRows = 8;  // Brcb spreads 8 values a repeat
    TmpSize out;
    if (typeSize != 1 && typeSize != 2 && typeSize != 4) {
        out.error = "typeSize is " + std::to_string(typeSize) + ", should be 1, 2 or 4";
        return out;
    }
    if (dims != 1 && dims != 2) {
        out.error = "the shapes have " + std::to_string(dims) + " dims, should be 1 or 2";
        return out;
    }
    uint64_t srcSize = 1, dstSize = 1;
    for (size_t i = 0; i < dims; ++i) {
        if (src[i] != dst[i] && src[i] != 1) {
            out.error = "srcShape " + DimsText(src, dims) + " does not broadcast to dstShape " +
                        DimsText(dst, dims) + " (each dim must equal dstShape's or be 1)";
            return out;
        }
        srcSize *= src[i];
        dstSize *= dst[i];
    }
    if (srcSize == 0) {
        out.error = "srcShape " + DimsText(src, dims) + " holds no element";
        return out;
    }
    // b8 data is broadcast as half: both operands cast into the buffer's front, 16-element aligned
    uint64_t cast = 0;
    uint64_t size = typeSize;
    if (typeSize == 1) {
        size = 2;
        cast = (RoundUp(srcSize, 16) + RoundUp(dstSize, 16)) * size;
    }
    const uint64_t perBlock = kBlock / size;
    auto done = [&out](uint64_t maxBytes, uint64_t minBytes) {
        out.maxBytes = static_cast<uint32_t>(maxBytes);
        out.minBytes = static_cast<uint32_t>(minBytes);
        return out;
    };
    if (srcSize == dstSize || srcSize == 1) {  // a copy or a fill: only b8's casts need room
        return typeSize == 1 ? done(cast + kBlock, cast + kBlock) : done(0, 0);
    }
    const bool lastAxis = src[1] == 1;  // a 2-D shape here: which dim broadcasts
    const bool known = arch == Arch::Dav2201 || arch == Arch::Dav2002;
    if (!lastAxis && known) {
        // rows repeat whole: one zero block to OR the source row with
        if (dst[1] % perBlock != 0) {
            out.error = "dstShape " + DimsText(dst, dims) + ": dim[1] is not 32-byte aligned (axis 0)";
            return out;
        }
        return done(kBlock + cast, kBlock + cast);
    }
    if (arch == Arch::Dav2201) {
        const uint64_t rows = dst[0];
        const uint64_t brcbMin = perBlock * perBlock * size;
        const uint64_t brcbMax = RoundUp(rows, kBrcbRows) * perBlock * size;
        if (dst[1] % perBlock == 0) return done(brcbMax + cast, brcbMin + cast);
        const uint64_t rowAligned = RoundUp(dst[1], perBlock);
        return done(brcbMax + rows * rowAligned * size + cast, brcbMin + perBlock * rowAligned * size + cast);
    }
    if (arch == Arch::Dav2002) {
        if (dst[0] % perBlock != 0) {
            out.error = "dstShape " + DimsText(dst, dims) + ": dim[0] is not 32-byte aligned (axis 1)";
            return out;
        }
        const uint64_t minBytes = kBlock + cast + perBlock * ((dst[1] + kBrcbRows - 1) / kBrcbRows) * size;
        return done(kBlock + cast + dst[0] * dst[1] * size, minBytes);
    }
    return done(0, 0);  // other architectures broadcast without a stack buffer
}

}  // namespace opgen_broadcast
