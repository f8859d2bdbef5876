// opgen NPU simulator: Broadcast, the advanced API that repeats a 1-D or 2-D tile along one dim
// (CANN's tensor-transform APIs). Also spelled BroadCast, the name CANN's implementation and
// older samples call it by.
//
// The simulated vector core is the 910B family's: a dim of 1 or 2 and an axis of 0 or 1. The
// reference lists int8_t, uint8_t, half and float for the Atlas A2/A3, and the documentation
// decides: another 1-, 2- or 4-byte type compiles (CANN's implementation would move it bit for
// bit, and samples instantiate kernels they never run with it) but a call with it is an error;
// an 8-byte type does not compile. The result is dstShape's elements, dense (row stride
// dstShape[1]).
// A sharedTmpBuffer must hold GetBroadCastMaxMinTmpSize's minimum (the one rule, in
// opgen_host/broadcast_tmp_size.h); the form without one stands for the stack buffer the
// framework reserves, so it is not checked.
#pragma once

#include <algorithm>
#include <vector>

#include "../opgen_host/broadcast_tmp_size.h"
#include "vector_masked.h"
#include "vector_more.h"

namespace opgen_sim {

template <typename T>
constexpr bool kBroadcastType = sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4;
template <typename T>
constexpr bool kBroadcastDocumented = std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
                                      std::is_same_v<T, half> || std::is_same_v<T, float>;

template <typename T>
inline void CheckBroadcastHolds(const char* api, const char* what, const AscendC::LocalTensor<T>& t,
                                const uint64_t* dims, size_t n, uint64_t need) {
    if (need > t.size_) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             std::string(what) + ": " + opgen_broadcast::DimsText(dims, n) + " = " + Str(need) +
                 " elements do not fit the LocalTensor<" + TypeName<T>() + "> of " + Str(t.size_) + " elements");
    }
}

template <typename T, int32_t dim, int32_t axis>
inline void BroadcastRun(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                         const uint32_t* dstShape, const uint32_t* srcShape,
                         const AscendC::LocalTensor<uint8_t>* tmp) {
    static_assert(kBroadcastType<T>,
                  "Broadcast takes a 1-, 2- or 4-byte type on the Atlas A2/A3 (b64 is the Ascend 950's)");
    if constexpr (!kBroadcastDocumented<T>) {
        Fail(ErrorKind::Generic, api,
             "a " + std::to_string(sizeof(T)) + "-byte element type other than half and float: "
             "the reference lists int8_t, uint8_t, half and float for the Atlas A2/A3 (CANN's "
             "implementation would copy it bit for bit; the simulator follows the documentation)");
    }
    if (dim != 1 && dim != 2) {
        Fail(ErrorKind::Generic, api, "dim " + std::to_string(dim) + " is not supported: 1 or 2");
    }
    if (axis != 0 && axis != 1) {
        Fail(ErrorKind::Generic, api, "axis " + std::to_string(axis) + " is not supported: 0 or 1");
    }
    CheckUbAligned(dst, api, "dst");
    CheckUbAligned(src, api, "src");
    constexpr size_t n = dim == 2 ? 2 : 1;
    uint64_t s[2] = {1, 1}, d[2] = {1, 1};
    uint64_t srcSize = 1, dstSize = 1;
    for (size_t i = 0; i < n; ++i) {
        s[i] = srcShape[i];
        d[i] = dstShape[i];
        srcSize *= s[i];
        dstSize *= d[i];
    }
    const std::string shapes =
        "srcShape " + opgen_broadcast::DimsText(s, n) + ", dstShape " + opgen_broadcast::DimsText(d, n);
    for (size_t i = 0; i < n; ++i) {
        if (s[i] != d[i] && s[i] != 1) {
            Fail(ErrorKind::Generic, api, shapes + ": dim " + std::to_string(i) + " is neither dstShape's nor 1");
        }
    }
    if (n == 2 && srcSize != dstSize && srcSize != 1) {
        // one dim repeats: it must be the template's axis
        const int32_t repeated = s[0] == 1 ? 0 : 1;
        if (repeated != axis) {
            Fail(ErrorKind::Generic, api,
                 shapes + " repeats dim " + std::to_string(repeated) + " but axis is " + std::to_string(axis));
        }
        if (axis == 0 && s[1] * sizeof(T) % kBlockBytes != 0) {
            Fail(ErrorKind::Alignment, api,
                 "srcShape[1] " + Str(s[1]) + " x " + TypeName<T>() + " = " + Str(s[1] * sizeof(T)) +
                     " bytes is not 32-byte aligned (dim 2, axis 0)");
        }
    }
    // The reference forbids overlap, but CANN's 910B implementation reads only src's row (or
    // its one element) and rewrites it in place, so dst == src is a fixed point when the src
    // tile is dst's first elements: a dim-0 repeat ({1, N} -> {R, N}, TwoDimBroadCastFirstDim
    // copies row 0 to every row), a single element (GetValue(0), then Duplicate) or no repeat
    // (a copy onto itself). The hardware gives the broadcast, so only strict mode refuses it
    // (ops-nn's rms_norm, merge-n tiling, broadcasts its gamma so).
    const bool fixedPoint = !CurrentCore().strict_gm && dst.ptr_ == src.ptr_ &&
                            (srcSize == dstSize || srcSize == 1 || (n == 2 && s[0] == 1 && d[0] != 1));
    if (!fixedPoint && Overlaps(reinterpret_cast<const uint8_t*>(dst.ptr_), dstSize * sizeof(T),
                 reinterpret_cast<const uint8_t*>(src.ptr_), srcSize * sizeof(T))) {
        Fail(ErrorKind::Generic, api, "dst and src overlap; the reference does not allow that");
    }
    CheckBroadcastHolds(api, "src", src, s, n, srcSize);
    CheckBroadcastHolds(api, "dst", dst, d, n, dstSize);
    if (tmp != nullptr) {
        CheckTmp<T>(api, *tmp, 0, dst, nullptr, nullptr, dstSize);
        if (Overlaps(*tmp, src, srcSize)) {
            Fail(ErrorKind::Generic, api, "sharedTmpBuffer overlaps src; CANN does not allow that");
        }
        const opgen_broadcast::TmpSize need =
            opgen_broadcast::BroadcastTmpSize(opgen_broadcast::Arch::Dav2201, s, d, n, sizeof(T));
        if (!need.error.empty()) Fail(ErrorKind::Generic, api, need.error);
        if (tmp->size_ < need.minBytes) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "sharedTmpBuffer holds " + Str(tmp->size_) + " bytes, below GetBroadCastMaxMinTmpSize's minimum of " +
                     Str(need.minBytes) + " for " + shapes);
        }
    }
    // Row by row: each of dst's rows is src's row (or its one row) copied, or its one element
    // repeated. src is read from a copy only when dst overlaps it (the fixed points above).
    std::vector<T> snapshot;
    const T* in = src.ptr_;
    if (Overlaps(reinterpret_cast<const uint8_t*>(dst.ptr_), dstSize * sizeof(T),
                 reinterpret_cast<const uint8_t*>(src.ptr_), srcSize * sizeof(T))) {
        snapshot.assign(src.ptr_, src.ptr_ + srcSize);
        in = snapshot.data();
    }
    const uint64_t rows = n == 2 ? d[0] : 1;
    const uint64_t cols = d[n - 1];
    const uint64_t srcCols = s[n - 1];
    for (uint64_t r = 0; r < rows; ++r) {
        const T* from = in + (n == 2 && s[0] != 1 ? r * srcCols : 0);
        T* to = dst.ptr_ + r * cols;
        if (srcCols == 1) {
            std::fill(to, to + cols, from[0]);
        } else {
            std::copy(from, from + cols, to);
        }
    }
    // CANN's implementation runs in counter mode and leaves the mask normal and full
    AscendC::SetMaskNorm();
    AscendC::ResetMask();
    Core& core = CurrentCore();
    core.counters[kVectorInstructions] += 1;
    core.counters[kVectorRepeats] += d[0];
}

}  // namespace opgen_sim

namespace AscendC {

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer) {
    opgen_sim::BroadcastRun<T, dim, axis>("Broadcast", dstLocal, srcLocal, dstShape, srcShape, &sharedTmpBuffer);
}

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim]) {
    opgen_sim::BroadcastRun<T, dim, axis>("Broadcast", dstLocal, srcLocal, dstShape, srcShape, nullptr);
}

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer) {
    opgen_sim::BroadcastRun<T, dim, axis>("BroadCast", dstLocal, srcLocal, dstShape, srcShape, &sharedTmpBuffer);
}

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim]) {
    opgen_sim::BroadcastRun<T, dim, axis>("BroadCast", dstLocal, srcLocal, dstShape, srcShape, nullptr);
}

}  // namespace AscendC
