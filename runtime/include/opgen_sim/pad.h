// opgen NPU simulator: Pad and UnPad, the advanced APIs that widen the rows of a height x width
// tile to 32 bytes or drop the padding columns again (CANN's tensor-transform APIs).
//
// Pad: a width that is not 32-byte aligned (scene 1) becomes leftPad + width + rightPad columns,
// which must be the width rounded up to 32 bytes; the source rows are dense (row stride
// srcWidth). A 32-byte aligned width whose last columns are redundant (scene 2: srcOriWidth <
// srcWidth) keeps its shape and the rightPad columns from srcOriWidth on take padValue.
// UnPad: a 32-byte aligned width loses its last rightPad columns; the result rows are dense.
// The shape comes from the tiling (PadTilingFunc / UnPadTilingFunc on the host).
#pragma once

#include <vector>

#include "../kernel_tiling/kernel_tiling.h"
#include "vector_more.h"

namespace AscendC {

struct PadParams {
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
    int32_t padValue = 0;
};

struct UnPadParams {
    uint16_t leftPad = 0;  // documented as not in effect yet: ignored
    uint16_t rightPad = 0;
};

}  // namespace AscendC

namespace opgen_sim {

template <typename T>
constexpr bool kPadType = std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t> ||
                          std::is_same_v<T, half> || std::is_same_v<T, int32_t> ||
                          std::is_same_v<T, uint32_t> || std::is_same_v<T, float>;

// GetPadMaxMinTmpSize's minimum: 16 rows of one 32-byte block, twice.
constexpr uint64_t kPadTmpMinBytes = 16 * kBlockBytes * 2;

template <typename T>
inline void CheckHolds(const char* api, const char* what, const AscendC::LocalTensor<T>& t,
                       uint64_t need, uint32_t height, uint32_t width) {
    if (need > t.size_) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             std::string(what) + ": " + std::to_string(height) + " x " + std::to_string(width) + " = " +
                 Str(need) + " elements do not fit the LocalTensor<" + TypeName<T>() + "> of " +
                 Str(t.size_) + " elements");
    }
}

template <typename T>
inline void PadRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                   const AscendC::PadParams& p, const PadTiling& tiling,
                   const AscendC::LocalTensor<uint8_t>* tmp) {
    static_assert(kPadType<T>, "Pad takes int16_t, uint16_t, half, int32_t, uint32_t or float");
    constexpr const char* api = "Pad";
    constexpr uint32_t block = kBlockBytes / sizeof(T);
    CheckUbAligned(dst, api, "dst");
    CheckUbAligned(src, api, "src");
    const uint32_t h = tiling.srcHeight;
    const uint32_t w = tiling.srcWidth;
    const uint32_t wo = tiling.srcOriWidth;
    const uint64_t srcBytes = static_cast<uint64_t>(h) * w * sizeof(T);
    if (srcBytes % kBlockBytes != 0) {
        Fail(ErrorKind::Alignment, api,
             "src: srcHeight " + std::to_string(h) + " x srcWidth " + std::to_string(w) + " x " +
                 TypeName<T>() + " = " + Str(srcBytes) +
                 " bytes is not a multiple of 32 (the source data must be 32-byte aligned)");
    }
    const bool aligned = w % block == 0;
    uint32_t outW = w;
    if (aligned) {
        // scene 2: the redundant columns of an aligned width, on the right only
        if (wo >= w) {
            Fail(ErrorKind::Generic, api,
                 "srcWidth " + std::to_string(w) + " is 32-byte aligned and srcOriWidth is " +
                     std::to_string(wo) + ": an aligned width needs redundant columns (srcOriWidth < srcWidth) to pad");
        }
        if (p.leftPad != 0) {
            Fail(ErrorKind::Generic, api,
                 "leftPad " + std::to_string(p.leftPad) + ": a 32-byte aligned srcWidth (" + std::to_string(w) +
                     ") is padded on the right only");
        }
        const uint32_t limit = (wo + block - 1) / block * block;
        if (wo + p.rightPad > limit) {
            Fail(ErrorKind::Generic, api,
                 "srcOriWidth " + std::to_string(wo) + " + rightPad " + std::to_string(p.rightPad) + " = " +
                     std::to_string(wo + p.rightPad) + " exceeds srcOriWidth rounded up to 32 bytes (" +
                     std::to_string(limit) + ")");
        }
    } else {
        // scene 1: the padded row is the width rounded up to 32 bytes
        outW = w + p.leftPad + p.rightPad;
        const uint32_t limit = (w + block - 1) / block * block;
        if (outW != limit) {
            Fail(ErrorKind::Generic, api,
                 "srcWidth " + std::to_string(w) + " + leftPad " + std::to_string(p.leftPad) + " + rightPad " +
                     std::to_string(p.rightPad) + " = " + std::to_string(outW) +
                     " must be srcWidth rounded up to 32 bytes (" + std::to_string(limit) + ")");
        }
        if (tmp != nullptr) {
            if (tmp->size_ < kPadTmpMinBytes) {
                Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                     "sharedTmpBuffer holds " + Str(tmp->size_) + " bytes, below GetPadMaxMinTmpSize's minimum of " +
                         Str(kPadTmpMinBytes));
            }
        }
    }
    if (tmp != nullptr) CheckTmp<T>(api, *tmp, 0, dst, &src, nullptr, static_cast<uint64_t>(h) * w);
    const uint64_t n = static_cast<uint64_t>(h) * w;
    CheckHolds(api, "src", src, n, h, w);
    CheckHolds(api, "dst", dst, static_cast<uint64_t>(h) * outW, h, outW);
    // dst may be src (scene 2 in place): read everything first
    const std::vector<T> in(src.ptr_, src.ptr_ + n);
    const T pad = static_cast<T>(p.padValue);
    for (uint32_t r = 0; r < h; ++r) {
        T* row = dst.ptr_ + static_cast<uint64_t>(r) * outW;
        const T* from = in.data() + static_cast<uint64_t>(r) * w;
        if (aligned) {
            for (uint32_t c = 0; c < w; ++c) row[c] = (c >= wo && c < wo + p.rightPad) ? pad : from[c];
        } else {
            for (uint32_t c = 0; c < outW; ++c) {
                row[c] = (c < p.leftPad || c >= p.leftPad + w) ? pad : from[c - p.leftPad];
            }
        }
    }
    Core& c = CurrentCore();
    c.counters[kVectorInstructions] += 1;
    c.counters[kVectorRepeats] += h;
}

template <typename T>
inline void UnPadRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                     const AscendC::UnPadParams& p, const UnPadTiling& tiling,
                     const AscendC::LocalTensor<uint8_t>* tmp) {
    static_assert(kPadType<T>, "UnPad takes int16_t, uint16_t, half, int32_t, uint32_t or float");
    constexpr const char* api = "UnPad";
    CheckUbAligned(dst, api, "dst");
    CheckUbAligned(src, api, "src");
    const uint32_t h = tiling.srcHeight;
    const uint32_t w = tiling.srcWidth;
    if (static_cast<uint64_t>(w) * sizeof(T) % kBlockBytes != 0) {
        Fail(ErrorKind::Alignment, api,
             "srcWidth " + std::to_string(w) + " x " + TypeName<T>() + " = " +
                 Str(static_cast<uint64_t>(w) * sizeof(T)) + " bytes is not 32-byte aligned (UnPad takes an aligned width)");
    }
    if (p.rightPad == 0 || p.rightPad * sizeof(T) >= kBlockBytes) {
        Fail(ErrorKind::Generic, api,
             "rightPad " + std::to_string(p.rightPad) + " is outside [1, " +
                 std::to_string(kBlockBytes / sizeof(T) - 1) + "] (more than 0, less than 32 bytes)");
    }
    const uint32_t outW = w - p.rightPad;
    if (tmp != nullptr) CheckTmp<T>(api, *tmp, 0, dst, &src, nullptr, static_cast<uint64_t>(h) * outW);
    const uint64_t n = static_cast<uint64_t>(h) * w;
    CheckHolds(api, "src", src, n, h, w);
    CheckHolds(api, "dst", dst, static_cast<uint64_t>(h) * outW, h, outW);
    const std::vector<T> in(src.ptr_, src.ptr_ + n);
    for (uint32_t r = 0; r < h; ++r) {
        std::copy(in.begin() + static_cast<int64_t>(r) * w, in.begin() + static_cast<int64_t>(r) * w + outW,
                  dst.ptr_ + static_cast<uint64_t>(r) * outW);
    }
    Core& c = CurrentCore();
    c.counters[kVectorInstructions] += 1;
    c.counters[kVectorRepeats] += h;
}

}  // namespace opgen_sim

namespace AscendC {

template <typename T>
inline void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const PadParams& padParams,
                const LocalTensor<uint8_t>& sharedTmpBuffer, const PadTiling& tiling) {
    opgen_sim::PadRun(dstTensor, srcTensor, padParams, tiling, &sharedTmpBuffer);
}

template <typename T>
inline void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const PadParams& padParams,
                const PadTiling& tiling) {
    opgen_sim::PadRun<T>(dstTensor, srcTensor, padParams, tiling, nullptr);
}

template <typename T>
inline void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const UnPadParams& unPadParams,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, const UnPadTiling& tiling) {
    opgen_sim::UnPadRun(dstTensor, srcTensor, unPadParams, tiling, &sharedTmpBuffer);
}

template <typename T>
inline void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const UnPadParams& unPadParams,
                  const UnPadTiling& tiling) {
    opgen_sim::UnPadRun<T>(dstTensor, srcTensor, unPadParams, tiling, nullptr);
}

}  // namespace AscendC
