// opgen NPU simulator: TopK, the advanced sort API that keeps the k largest (or smallest) values
// of each row of an [outter, inner] tile with their indexes, on the Atlas A2/A3 (MERGE_SORT).
//
// Ascend C reference, "TopK": inner is n (the real row length) rounded up to 32, k in [1, n];
// Normal mode (inner <= 4096) writes each row's k values at row * k_pad (k rounded up to 32 bytes
// of T) and its k indexes at row * kpad_index (k rounded up to 8 int32_t); Small mode (inner 32)
// writes them dense, row * k. The index is srcIndexLocal's (one row of inner for all rows in
// Normal mode, outter rows in Small mode) with isInitIndex, else the position 0 .. inner - 1.
// With isHasfinish (Normal mode only) a row whose finishLocal byte is true gets the index n k
// times. Where the reference is silent the simulator follows CANN's A2 steps
// (impl/adv_api/detail/sort/topk/topk_v220_impl.h): a row is Sort32-sorted in groups of 32 and
// merged (MrgSort), so the order is stable: equal values keep their input order, and a NaN counts
// as the smallest value (Sort32's and MrgSort's rule in sort.h). isLargest false sorts the values
// times -1 and multiplies the result by -1 again, over all outter * k_pad values of dstValueLocal
// in Normal mode (so the padding values between k and k_pad are negated as well: a 0 there turns
// into -0) and outter * k in Small mode. The elements between k and the padded length are not
// written otherwise.
// tmpLocal must hold the tiling's tmpLocalSize elements of T (GetTopKMaxMinTmpSize's minimum);
// the form without one stands for the stack buffer the framework reserves.
//
// Transpose with a ConfusionTransposeTiling (reference, "Transpose", the advanced API; the tiling
// from GetTransposeTilingInfo), int16_t, uint16_t, half, int32_t, uint32_t or float:
//   scene 1, TRANSPOSE_NZ2ND_0213: src NZ [B, N, H/N/16, S/16, 16, 16] -> dst ND [B, S, N, H/N];
//   scene 2, TRANSPOSE_NZ2NZ_0213: src as scene 1 -> dst [B, S, H/N/16, N, 16] (each 16-column
//            strip of a row's N x H/N matrix, N rows of 16: the offsets the reference gives);
//   scene 7, TRANSPOSE_ND2ND_ONLY: src [H, W] -> dst [W, H], H and W multiples of 16.
// S and H/N are the tiling's, rounded up to 16 (CANN's kernel moves whole 16 x 16 fractals).
// Scenes 3 to 6 (the tail-axis split and merge) are not simulated yet and are an error naming
// them; scenes 13 to 16 are the Ascend 950's and an error too. A sharedTmpBuffer for scenes 1
// and 2 must hold one 16 x 16 fractal (GetTransposeMaxMinTmpSize's minimum).
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "../kernel_tiling/kernel_tiling.h"
#include "sort.h"
#include "transpose.h"
#include "vector_more.h"

namespace AscendC {

struct TopKInfo {
    int32_t outter = 1;
    int32_t inner;  // n rounded up to 32
    int32_t n;      // the real row length
};

}  // namespace AscendC

namespace opgen_sim {

template <typename T>
inline void TopKHolds(const char* what, const AscendC::LocalTensor<T>& t, uint64_t need, const std::string& rule) {
    if (need > t.size_) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, "TopK",
             std::string(what) + ": " + rule + " = " + Str(need) + " elements do not fit the LocalTensor<" +
                 TypeName<T>() + "> of " + Str(t.size_) + " elements");
    }
}

// the value times -1, as the vector unit's Muls computes it
template <typename T>
inline T TopKNegate(T v) {
    if constexpr (std::is_same_v<T, float>) {
        return v * -1.0f;
    } else {
        return static_cast<T>(static_cast<float>(v) * -1.0f);
    }
}

template <typename T, bool isInitIndex, bool isHasfinish, AscendC::TopKMode mode>
inline void TopKRun(const AscendC::LocalTensor<T>& dstValue, const AscendC::LocalTensor<int32_t>& dstIndex,
                    const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<int32_t>& srcIndex,
                    const AscendC::LocalTensor<bool>& finish, const AscendC::LocalTensor<uint8_t>* tmp,
                    const int32_t k, const AscendC::tiling::TopkTiling& tiling, const AscendC::TopKInfo& info,
                    const bool isLargest) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "TopK takes half or float values (MERGE_SORT, the Atlas A2/A3 algorithm)");
    constexpr const char* api = "TopK";
    constexpr bool normal = mode == AscendC::TopKMode::TOPK_NORMAL;
    if (!normal && isHasfinish) {
        Fail(ErrorKind::Generic, api, "isHasfinish must be false in TOPK_NSMALL mode (documented)");
    }
    const int32_t outter = info.outter;
    const int32_t inner = info.inner;
    const int32_t n = info.n;
    if (outter < 1) Fail(ErrorKind::Generic, api, "topKInfo.outter is " + std::to_string(outter) + ", should be >= 1");
    if (inner < 32 || inner % 32 != 0) {
        Fail(ErrorKind::Generic, api,
             "topKInfo.inner is " + std::to_string(inner) + ", should be a positive multiple of 32");
    }
    if (normal && inner > 4096) {
        Fail(ErrorKind::Generic, api,
             "topKInfo.inner is " + std::to_string(inner) + ", more than 4096, the TOPK_NORMAL maximum");
    }
    if (!normal && inner != 32) {
        Fail(ErrorKind::Generic, api, "topKInfo.inner is " + std::to_string(inner) + ", should be 32 in TOPK_NSMALL mode");
    }
    if (n < 1 || n > inner) {
        Fail(ErrorKind::Generic, api,
             "topKInfo.n is " + std::to_string(n) + ", should be in [1, inner = " + std::to_string(inner) + "]");
    }
    if (k < 1 || k > n) {
        Fail(ErrorKind::Generic, api, "k is " + std::to_string(k) + ", should be in [1, n = " + std::to_string(n) + "]");
    }
    CheckUbAligned(dstValue, api, "dstValueLocal");
    CheckUbAligned(dstIndex, api, "dstIndexLocal");
    CheckUbAligned(src, api, "srcLocal");
    const uint64_t rows = static_cast<uint64_t>(outter);
    const uint64_t all = rows * static_cast<uint64_t>(inner);
    const uint64_t kValue = normal ? (static_cast<uint64_t>(k) * sizeof(T) + 31) / 32 * 32 / sizeof(T) : k;
    const uint64_t kIndex = normal ? (static_cast<uint64_t>(k) + 7) / 8 * 8 : k;
    const std::string rowsText = "outter " + std::to_string(outter) + " x ";
    TopKHolds("srcLocal", src, all, rowsText + "inner " + std::to_string(inner));
    TopKHolds("dstValueLocal", dstValue, rows * kValue,
              rowsText + (normal ? "k_pad " : "k ") + std::to_string(kValue));
    TopKHolds("dstIndexLocal", dstIndex, rows * kIndex,
              rowsText + (normal ? "kpad_index " : "k ") + std::to_string(kIndex));
    if constexpr (isInitIndex) {
        CheckUbAligned(srcIndex, api, "srcIndexLocal");
        TopKHolds("srcIndexLocal", srcIndex, normal ? static_cast<uint64_t>(inner) : all,
                  normal ? "inner " + std::to_string(inner) : rowsText + "inner " + std::to_string(inner));
    }
    if constexpr (isHasfinish) {
        CheckUbAligned(finish, api, "finishLocal");
        TopKHolds("finishLocal", finish, rows, "outter " + std::to_string(outter));
    }
    if (tmp != nullptr) {
        CheckTmpPlace(api, *tmp);
        if (tiling.tmpLocalSize <= 0) {
            Fail(ErrorKind::Tiling, api,
                 "tilling.tmpLocalSize is " + std::to_string(tiling.tmpLocalSize) +
                     ": the TopkTiling is not filled (TopKTilingFunc)");
        }
        const uint64_t need = static_cast<uint64_t>(tiling.tmpLocalSize) * sizeof(T);
        if (tmp->size_ < need) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "tmpLocal holds " + Str(tmp->size_) + " bytes, below the tiling's tmpLocalSize of " + Str(need) +
                     " bytes (GetTopKMaxMinTmpSize gives the minimum)");
        }
        if (Overlaps(*tmp, src, all) || Overlaps(*tmp, dstValue, rows * kValue) ||
            Overlaps(*tmp, dstIndex, rows * kIndex)) {
            Fail(ErrorKind::Generic, api, "tmpLocal overlaps an operand; CANN does not allow that");
        }
    }
    const std::vector<T> in(src.ptr_, src.ptr_ + all);
    std::vector<T> key(static_cast<size_t>(inner));
    std::vector<uint32_t> order(static_cast<size_t>(inner));
    for (int32_t r = 0; r < outter; ++r) {
        const T* row = in.data() + static_cast<uint64_t>(r) * inner;
        for (int32_t i = 0; i < inner; ++i) key[i] = isLargest ? row[i] : TopKNegate(row[i]);
        std::iota(order.begin(), order.end(), 0u);
        // descending, stable, a NaN the smallest (Sort32 and MrgSort)
        const auto rank = [&](uint32_t i) {
            const float v = static_cast<float>(key[i]);
            return v != v ? -std::numeric_limits<float>::infinity() : v;
        };
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return rank(a) > rank(b); });
        T* values = dstValue.ptr_ + static_cast<uint64_t>(r) * kValue;
        int32_t* indexes = dstIndex.ptr_ + static_cast<uint64_t>(r) * kIndex;
        const bool finished = isHasfinish && finish.ptr_[r];
        for (int32_t t = 0; t < k; ++t) {
            const uint32_t at = order[t];
            values[t] = key[at];
            if (finished) {
                indexes[t] = n;
            } else if constexpr (isInitIndex) {
                indexes[t] = srcIndex.ptr_[normal ? at : static_cast<uint64_t>(r) * inner + at];
            } else {
                indexes[t] = static_cast<int32_t>(at);
            }
        }
    }
    if (!isLargest) {
        for (uint64_t i = 0; i < rows * kValue; ++i) dstValue.ptr_[i] = TopKNegate(dstValue.ptr_[i]);
    }
    // CANN's implementation runs in counter mode and leaves the mask normal and full
    AscendC::SetMaskNorm();
    AscendC::ResetMask();
    Core& c = CurrentCore();
    c.counters[kVectorInstructions] += 3;
    c.counters[kVectorRepeats] += all / 32;
}

template <typename T>
inline void ConfusionTransposeRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                                  const AscendC::LocalTensor<uint8_t>* tmp, AscendC::TransposeType type,
                                  const AscendC::tiling::ConfusionTransposeTiling& t) {
    static_assert(std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, half> ||
                      std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, float>,
                  "Transpose (scenes 1 to 7) takes int16_t, uint16_t, half, int32_t, uint32_t or float");
    constexpr const char* api = "Transpose";
    using TT = AscendC::TransposeType;
    const int scene = static_cast<int>(type);
    if (type == TT::TRANSPOSE_NZ2NZ_012_WITH_N || type == TT::TRANSPOSE_NZ2ND_012_WITH_N ||
        type == TT::TRANSPOSE_NZ2ND_012_WITHOUT_N || type == TT::TRANSPOSE_NZ2NZ_012_WITHOUT_N) {
        Fail(ErrorKind::Generic, api,
             "transposeType " + std::to_string(scene) +
                 " (scenes 3 to 6, the tail-axis split and merge) is not simulated yet; scenes 1, 2 and 7 are");
    }
    if (type != TT::TRANSPOSE_NZ2ND_0213 && type != TT::TRANSPOSE_NZ2NZ_0213 && type != TT::TRANSPOSE_ND2ND_ONLY) {
        Fail(ErrorKind::Generic, api,
             "transposeType " + std::to_string(scene) +
                 " is not supported on the Atlas A2/A3 (scenes 1 to 7; TRANSPOSE_ND2ND_021, _102, _210 and "
                 "TRANSPOSE_ND2NZ_WITH_INTLV are the Ascend 950's, the others are documented as unsupported)");
    }
    CheckUbAligned(dst, api, "dst");
    CheckUbAligned(src, api, "src");
    const auto holds = [&](const char* what, const AscendC::LocalTensor<T>& x, uint64_t need,
                           const std::string& shape) {
        if (need > x.size_) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 std::string(what) + ": " + shape + " = " + Str(need) + " elements do not fit the LocalTensor<" +
                     TypeName<T>() + "> of " + Str(x.size_) + " elements");
        }
    };
    Core& core = CurrentCore();
    if (type == TT::TRANSPOSE_ND2ND_ONLY) {
        const uint64_t h = t.param1, w = t.param2;
        if (h == 0 || w == 0 || h % 16 != 0 || w % 16 != 0) {
            Fail(ErrorKind::Tiling, api,
                 "TRANSPOSE_ND2ND_ONLY: tiling height " + Str(h) + " and width " + Str(w) +
                     " must be positive multiples of 16 (documented)");
        }
        const std::string shape = "[" + Str(h) + ", " + Str(w) + "]";
        holds("src", src, h * w, shape);
        holds("dst", dst, h * w, shape);
        const std::vector<T> in(src.ptr_, src.ptr_ + h * w);
        for (uint64_t r = 0; r < h; ++r) {
            for (uint64_t c = 0; c < w; ++c) dst.ptr_[c * h + r] = in[r * w + c];
        }
        core.counters[kVectorInstructions] += 1;
        core.counters[kVectorRepeats] += h * w / 256;
        return;
    }
    // scenes 1 and 2: B = param1, N = param2, H/N rounded up to 16 = param3, S rounded up = param4
    const uint64_t b = t.param1, n = t.param2, hn = t.param3, sl = t.param4;
    if (b == 0 || n == 0 || hn == 0 || sl == 0 || hn % 16 != 0 || sl % 16 != 0) {
        Fail(ErrorKind::Tiling, api,
             "tiling B " + Str(b) + ", N " + Str(n) + ", H/N " + Str(hn) + ", S " + Str(sl) +
                 ": the tiling is not a TRANSPOSE_NZ2ND_0213 / TRANSPOSE_NZ2NZ_0213 one (GetTransposeTilingInfo)");
    }
    const uint64_t all = b * n * hn * sl;
    const std::string shape = "[" + Str(b) + ", " + Str(n) + ", " + Str(sl) + ", " + Str(hn) + "]";
    holds("src", src, all, shape);
    holds("dst", dst, all, shape);
    if (tmp != nullptr) {
        CheckTmpPlace(api, *tmp);
        const uint64_t need = 256 * sizeof(T);
        if (tmp->size_ < need) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "sharedTmpBuffer holds " + Str(tmp->size_) + " bytes, below GetTransposeMaxMinTmpSize's minimum of " +
                     Str(need) + " (one 16 x 16 fractal)");
        }
        if (Overlaps(*tmp, src, all) || Overlaps(*tmp, dst, all)) {
            Fail(ErrorKind::Generic, api, "sharedTmpBuffer overlaps src or dst; CANN does not allow that");
        }
    }
    const std::vector<T> in(src.ptr_, src.ptr_ + all);
    const bool nd = type == TT::TRANSPOSE_NZ2ND_0213;
    const uint64_t h1s = hn / 16, s1s = sl / 16;
    uint64_t at = 0;  // src is read in its NZ order
    for (uint64_t bi = 0; bi < b; ++bi) {
        for (uint64_t ni = 0; ni < n; ++ni) {
            for (uint64_t h1 = 0; h1 < h1s; ++h1) {
                for (uint64_t s1 = 0; s1 < s1s; ++s1) {
                    for (uint64_t s0 = 0; s0 < 16; ++s0) {
                        const uint64_t s = s1 * 16 + s0;
                        for (uint64_t h0 = 0; h0 < 16; ++h0, ++at) {
                            const uint64_t to = nd ? ((bi * sl + s) * n + ni) * hn + h1 * 16 + h0
                                                   : (((bi * sl + s) * h1s + h1) * n + ni) * 16 + h0;
                            dst.ptr_[to] = in[at];
                        }
                    }
                }
            }
        }
    }
    core.counters[kVectorInstructions] += 2;
    core.counters[kVectorRepeats] += all / 128;
}

}  // namespace opgen_sim

namespace AscendC {

template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
inline void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
                 const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
                 const LocalTensor<bool>& finishLocal, const LocalTensor<uint8_t>& tmpLocal, const int32_t k,
                 const TopkTiling& tilling, const TopKInfo& topKInfo, const bool isLargest = true) {
    opgen_sim::TopKRun<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                             finishLocal, &tmpLocal, k, tilling, topKInfo, isLargest);
}

template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
inline void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
                 const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
                 const LocalTensor<bool>& finishLocal, const int32_t k, const TopkTiling& tilling,
                 const TopKInfo& topKInfo, const bool isLargest = true) {
    opgen_sim::TopKRun<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                             finishLocal, nullptr, k, tilling, topKInfo, isLargest);
}

template <typename T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                      TransposeType transposeType, ConfusionTransposeTiling& tiling) {
    opgen_sim::ConfusionTransposeRun(dst, src, &sharedTmpBuffer, transposeType, tiling);
}

template <typename T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, TransposeType transposeType,
                      ConfusionTransposeTiling& tiling) {
    opgen_sim::ConfusionTransposeRun<T>(dst, src, nullptr, transposeType, tiling);
}

// the older name of the same API
template <typename T>
inline void ConfusionTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                               const LocalTensor<uint8_t>& sharedTmpBuffer, TransposeType transposeType,
                               ConfusionTransposeTiling& tiling) {
    opgen_sim::ConfusionTransposeRun(dst, src, &sharedTmpBuffer, transposeType, tiling);
}

template <typename T>
inline void ConfusionTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src, TransposeType transposeType,
                               ConfusionTransposeTiling& tiling) {
    opgen_sim::ConfusionTransposeRun<T>(dst, src, nullptr, transposeType, tiling);
}

}  // namespace AscendC
