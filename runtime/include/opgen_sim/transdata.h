// opgen NPU simulator: the Layout helpers (Layout, MakeLayout, MakeShape, MakeStride, is_layout)
// and TransData, the advanced API that converts 16-bit data between NCDHW and NDC1HWC0 or
// FRACTAL_Z_3D on the Atlas A2/A3 (npu arch 2201).
//
// Ascend C reference, "Layout" (basic API, auxiliary data structures): Shape<...> and Stride<...>
// are Std::tuple aliases; Layout<Shape, Stride> keeps both (GetShape, GetStride, layout()) and
// maps a flat coordinate to an index (operator(): the coordinates times the strides).
//
// Reference, "TransData": TransData<config>(dst, src[, sharedTmpBuffer], TransDataParams{srcLayout,
// dstLayout}) with T int16_t, uint16_t, half or bfloat16_t and config one of
//   NCDHW -> NDC1HWC0      [N, C, D, H, W]  -> [N, D, C1, H, W, C0]
//   NDC1HWC0 -> NCDHW      [N, D, C1, H, W, C0] -> [N, C, D, H, W]
//   NCDHW -> FRACTAL_Z_3D  [N, C, D, H, W]  -> [D, C1, H, W, N1, N0, C0]
//   FRACTAL_Z_3D -> NCDHW  [D, C1, H, W, N1, N0, C0] -> [N, C, D, H, W]
// with C0 = N0 = 16, C1 = ceil(C / 16), N1 = ceil(N / 16). An NCDHW tensor in the UB keeps each
// (n, c, d) row of H * W elements padded to 32 bytes (HWp = H * W rounded up to 16): the caller
// pads an NCDHW source, the API pads an NCDHW destination; the layouts give the unpadded shape.
// Where the reference is silent the simulator follows CANN's A2 steps
// (impl/adv_api/detail/transpose/transdata/transdata_impl.h):
//   - the channels past C and the batches past N of an NDC1HWC0 / FRACTAL_Z_3D destination are 0;
//     an NCDHW source's row padding (H * W .. HWp) is never read;
//   - FRACTAL_Z_3D -> NCDHW writes 0 into the destination's row padding;
//   - NDC1HWC0 -> NCDHW stages the data in sharedTmpBuffer from byte 512 on, as [C1, D, HWp, C0],
//     and leaves the destination's row padding with what that staging area held there (it never
//     writes those places: they show the buffer's earlier content); when C is not a multiple of
//     16 the transposes' rows for the channels past C land in the buffer from byte 0 on, 32 bytes
//     a row and one row further each repeat, which can reach the first rows of the staging area.
//     The simulator makes exactly these writes to sharedTmpBuffer, so the padding matches CANN's.
//   - the other three moves use sharedTmpBuffer as scratch; the simulator leaves it unchanged.
// sharedTmpBuffer must hold GetTransDataMaxMinTmpSize's minimum (tiling/transdata_tiling.h); the
// form without one stands for the stack buffer (PopStackBuffer). src, dst and the buffer must not
// overlap (documented). CANN's Ascend 950 build of TransData runs the same steps: no 950-only
// path exists; the formats other than the four are a compile-time error.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kernel_utils.h"  // Std::tuple
#include "norm.h"           // PopStackBuffer
#include "vector_more.h"

namespace AscendC {

template <typename... Ts>
using Shape = Std::tuple<Ts...>;
template <typename... Ts>
using Stride = Std::tuple<Ts...>;

template <typename... Ts>
inline constexpr Shape<Ts...> MakeShape(const Ts&... t) {
    return Shape<Ts...>(t...);
}
template <typename... Ts>
inline constexpr Stride<Ts...> MakeStride(const Ts&... t) {
    return Stride<Ts...>(t...);
}

template <typename ShapeType, typename StrideType>
struct Layout {
    constexpr Layout(const ShapeType& shape = {}, const StrideType& stride = {}) : shape_(shape), stride_(stride) {}
    constexpr decltype(auto) layout() { return *this; }
    constexpr decltype(auto) layout() const { return *this; }
    constexpr decltype(auto) GetShape() { return (shape_); }
    constexpr decltype(auto) GetShape() const { return (shape_); }
    constexpr decltype(auto) GetStride() { return (stride_); }
    constexpr decltype(auto) GetStride() const { return (stride_); }
    // a flat coordinate (one integer a dimension) to its index: the sum of coordinate x stride
    template <typename CoordType>
    constexpr auto operator()(const CoordType& coord) const {
        static_assert(std::tuple_size_v<CoordType> == std::tuple_size_v<StrideType>,
                      "Layout::operator(): the simulator maps a flat coordinate with one value per stride");
        return Dot(coord, stride_, std::make_index_sequence<std::tuple_size_v<StrideType>>{});
    }

private:
    template <typename C, typename S, size_t... I>
    static constexpr auto Dot(const C& c, const S& s, std::index_sequence<I...>) {
        return (int64_t{0} + ... + (static_cast<int64_t>(std::get<I>(c)) * static_cast<int64_t>(std::get<I>(s))));
    }
    ShapeType shape_;
    StrideType stride_;
};

template <typename ShapeType, typename StrideType>
inline constexpr auto MakeLayout(const ShapeType& shape, const StrideType& stride) {
    return Layout<ShapeType, StrideType>(shape, stride);
}

template <typename T>
struct is_layout : std::false_type {};
template <typename S, typename D>
struct is_layout<Layout<S, D>> : std::true_type {};
template <typename T>
inline constexpr bool is_layout_v = is_layout<std::remove_cv_t<std::remove_reference_t<T>>>::value;

template <typename T, typename U>
struct TransDataParams {
    T srcLayout;
    U dstLayout;
};

}  // namespace AscendC

namespace opgen_sim {
namespace transdata_detail {

constexpr const char* kApi = "TransData";
constexpr int64_t kC0 = 16;  // C0 = N0 = 16 for 16-bit data; also H * W's padding unit (32 bytes)
constexpr uint64_t kStageOffset = 512;  // NDC1HWC0 -> NCDHW: the staging area's byte offset

template <typename T>
struct IsTuple : std::false_type {};
template <typename... Ts>
struct IsTuple<std::tuple<Ts...>> : std::true_type {};

constexpr bool Is(AscendC::DataFormat a, AscendC::DataFormat b, AscendC::DataFormat x, AscendC::DataFormat y) {
    return a == x && b == y;
}

template <typename Tuple, size_t... I>
inline std::vector<int64_t> Dims(const Tuple& t, std::index_sequence<I...>) {
    return {static_cast<int64_t>(std::get<I>(t))...};
}
template <typename L>
inline std::vector<int64_t> DimsOf(const L& layout) {
    using S = std::remove_cv_t<std::remove_reference_t<decltype(layout.GetShape())>>;
    return Dims(layout.GetShape(), std::make_index_sequence<std::tuple_size_v<S>>{});
}

inline std::string Text(const std::vector<int64_t>& v) {
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + ")";
}

inline int64_t Up(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Dims5 {
    int64_t n, c, d, h, w, c1, n1, hw, hwp;
};

// the temporary's minimum in bytes, as GetTransDataMaxMinTmpSize gives it
inline uint64_t TmpBytes(int kind, const Dims5& s) {
    const int64_t b = 2;
    switch (kind) {
        case 0: return static_cast<uint64_t>(s.d * s.hwp * b + s.d * s.c1 * kC0 * s.hwp * b);  // NCDHW -> 6HD
        case 1: return static_cast<uint64_t>(s.d * s.c1 * kC0 * s.hwp * b) + kStageOffset;      // 6HD -> NCDHW
        case 2: {                                                                              // -> FZ3D
            const int64_t dup = std::max(s.c * s.d * s.hwp * b, s.d * s.hw * s.n1 * kC0 * b);
            return static_cast<uint64_t>(dup + s.n1 * kC0 * s.d * s.c1 * kC0 * s.hwp * b);
        }
        default: {  // FZ3D -> NCDHW
            const int64_t one = s.n1 * kC0 * s.c1 * kC0 * s.d * s.hwp * b;
            return static_cast<uint64_t>(s.n == s.n1 * kC0 && s.c == s.c1 * kC0 ? one : 2 * one);
        }
    }
}

inline void Need(bool ok, const std::string& what) {
    if (!ok) Fail(ErrorKind::Generic, kApi, what);
}

template <typename T>
inline void Holds(const AscendC::LocalTensor<T>& t, const char* what, uint64_t need, const std::string& shape) {
    if (need > t.size_) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, kApi,
             std::string(what) + ": " + shape + " = " + Str(need) + " elements do not fit the LocalTensor<" +
                 TypeName<T>() + "> of " + Str(t.size_) + " elements");
    }
}

template <const AscendC::TransDataConfig& config, typename T, typename U, typename S>
inline void Run(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                const AscendC::LocalTensor<uint8_t>& tmp, const char* tmpName, bool stack,
                const AscendC::TransDataParams<U, S>& params) {
    using DF = AscendC::DataFormat;
    constexpr DF sf = config.srcFormat, df = config.dstFormat;
    constexpr bool to6hd = Is(sf, df, DF::NCDHW, DF::NDC1HWC0);
    constexpr bool from6hd = Is(sf, df, DF::NDC1HWC0, DF::NCDHW);
    constexpr bool toFz = Is(sf, df, DF::NCDHW, DF::FRACTAL_Z_3D);
    constexpr bool fromFz = Is(sf, df, DF::FRACTAL_Z_3D, DF::NCDHW);
    static_assert(to6hd || from6hd || toFz || fromFz,
                  "TransData: config (srcFormat, dstFormat) must be (NCDHW, NDC1HWC0), (NDC1HWC0, NCDHW), "
                  "(NCDHW, FRACTAL_Z_3D) or (FRACTAL_Z_3D, NCDHW)");
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t> || std::is_same_v<T, int16_t> ||
                      std::is_same_v<T, uint16_t>,
                  "TransData takes int16_t, uint16_t, half or bfloat16_t");
    static_assert(AscendC::is_layout_v<U>, "TransData: params.srcLayout must be a Layout (MakeLayout)");
    static_assert(AscendC::is_layout_v<S>, "TransData: params.dstLayout must be a Layout (MakeLayout)");
    using SrcShape = std::remove_cv_t<std::remove_reference_t<decltype(params.srcLayout.GetShape())>>;
    using DstShape = std::remove_cv_t<std::remove_reference_t<decltype(params.dstLayout.GetShape())>>;
    static_assert(IsTuple<SrcShape>::value && IsTuple<DstShape>::value,
                  "TransData: the layouts' shapes must be Shape tuples (MakeShape)");
    constexpr size_t srcRank = std::tuple_size_v<SrcShape>, dstRank = std::tuple_size_v<DstShape>;
    constexpr size_t other = sf == DF::NCDHW ? dstRank : srcRank;
    constexpr size_t ncdhw = sf == DF::NCDHW ? srcRank : dstRank;
    static_assert(ncdhw == 5, "TransData: the NCDHW layout's shape must have 5 dims (N, C, D, H, W)");
    static_assert(!(to6hd || from6hd) || other == 6,
                  "TransData: the NDC1HWC0 layout's shape must have 6 dims (N, D, C1, H, W, C0)");
    static_assert(!(toFz || fromFz) || other == 7,
                  "TransData: the FRACTAL_Z_3D layout's shape must have 7 dims (D, C1, H, W, N1, N0, C0)");

    const std::vector<int64_t> sd = DimsOf(params.srcLayout), dd = DimsOf(params.dstLayout);
    const std::vector<int64_t>& nc = sf == DF::NCDHW ? sd : dd;
    const std::vector<int64_t>& ot = sf == DF::NCDHW ? dd : sd;
    const char* ncName = sf == DF::NCDHW ? "params.srcLayout" : "params.dstLayout";
    const char* otName = sf == DF::NCDHW ? "params.dstLayout" : "params.srcLayout";
    const char* otFormat = (to6hd || from6hd) ? "NDC1HWC0" : "FRACTAL_Z_3D";
    for (int64_t v : nc) Need(v > 0, std::string(ncName) + " NCDHW shape " + Text(nc) + ": every dim must be positive");
    for (int64_t v : ot) {
        Need(v > 0, std::string(otName) + " " + otFormat + " shape " + Text(ot) + ": every dim must be positive");
    }
    Dims5 s{nc[0], nc[1], nc[2], nc[3], nc[4], 0, 0, 0, 0};
    s.c1 = Up(s.c, kC0);
    s.n1 = Up(s.n, kC0);
    s.hw = s.h * s.w;
    s.hwp = Up(s.hw, kC0) * kC0;
    const std::string pair = std::string(otName) + " " + otFormat + " shape " + Text(ot) + " against " + ncName +
                             " NCDHW shape " + Text(nc) + ": ";
    if constexpr (to6hd || from6hd) {
        Need(ot[0] == s.n && ot[1] == s.d && ot[3] == s.h && ot[4] == s.w, pair + "N, D, H and W must be equal");
        Need(ot[5] == kC0, pair + "C0 must be 16 (16-bit data)");
        Need(ot[2] == s.c1, pair + "C1 must be (C + C0 - 1) / C0 = " + std::to_string(s.c1));
    } else {
        Need(ot[0] == s.d && ot[2] == s.h && ot[3] == s.w, pair + "D, H and W must be equal");
        Need(ot[6] == kC0, pair + "C0 must be 16 (16-bit data)");
        Need(ot[5] == kC0, pair + "N0 must be 16 (16-bit data)");
        Need(ot[1] == s.c1, pair + "C1 must be (C + C0 - 1) / C0 = " + std::to_string(s.c1));
        Need(ot[4] == s.n1, pair + "N1 must be (N + N0 - 1) / N0 = " + std::to_string(s.n1));
    }
    CheckUbAligned(dst, kApi, "dstTensor");
    CheckUbAligned(src, kApi, "srcTensor");
    Need(IsVecPosition(dst.pos_), "dstTensor must be a VECIN/VECOUT/VECCALC LocalTensor");
    Need(IsVecPosition(src.pos_), "srcTensor must be a VECIN/VECOUT/VECCALC LocalTensor");
    const uint64_t ncdhwElems = static_cast<uint64_t>(s.n * s.c * s.d * s.hwp);
    uint64_t otherElems = 1;
    for (int64_t v : ot) otherElems *= static_cast<uint64_t>(v);
    const std::string ncShape = "NCDHW [" + std::to_string(s.n) + ", " + std::to_string(s.c) + ", " +
                                std::to_string(s.d) + ", H * W = " + std::to_string(s.hw) + " padded to " +
                                std::to_string(s.hwp) + "]";
    const std::string otShape = std::string(otFormat) + " " + Text(ot);
    const uint64_t srcElems = sf == DF::NCDHW ? ncdhwElems : otherElems;
    const uint64_t dstElems = sf == DF::NCDHW ? otherElems : ncdhwElems;
    Holds(src, "srcTensor", srcElems, sf == DF::NCDHW ? ncShape : otShape);
    Holds(dst, "dstTensor", dstElems, sf == DF::NCDHW ? otShape : ncShape);
    if (Overlaps(src, srcElems, dst, dstElems)) {
        Fail(ErrorKind::Generic, kApi, "srcTensor and dstTensor overlap; the reference does not allow that");
    }
    const int kind = to6hd ? 0 : from6hd ? 1 : toFz ? 2 : 3;
    const uint64_t tmpNeed = TmpBytes(kind, s);
    if (!stack) CheckTmpPlace(kApi, tmp);
    if (tmp.size_ < tmpNeed) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, kApi,
             std::string(tmpName) + " holds " + Str(tmp.size_) + " bytes, below GetTransDataMaxMinTmpSize's minimum of " +
                 Str(tmpNeed) + " bytes for these shapes");
    }
    if (Overlaps(tmp, tmpNeed, src, srcElems) || Overlaps(tmp, tmpNeed, dst, dstElems)) {
        Fail(ErrorKind::Generic, kApi,
             std::string(tmpName) + " overlaps srcTensor or dstTensor; the reference does not allow that");
    }

    const T* in = src.ptr_;
    T* out = dst.ptr_;
    const int64_t n = s.n, c = s.c, d = s.d, hw = s.hw, hwp = s.hwp, c1 = s.c1, n1 = s.n1;
    const T zero = T{};  // 0 of every 16-bit type: all bits clear
    // the NCDHW element (ni, ci, di, p), p in the padded H * W row
    const auto at = [&](int64_t ni, int64_t ci, int64_t di, int64_t p) { return ((ni * c + ci) * d + di) * hwp + p; };
    if constexpr (to6hd) {
        uint64_t o = 0;
        for (int64_t ni = 0; ni < n; ++ni)
            for (int64_t di = 0; di < d; ++di)
                for (int64_t j = 0; j < c1; ++j)
                    for (int64_t p = 0; p < hw; ++p)
                        for (int64_t k = 0; k < kC0; ++k, ++o) {
                            const int64_t ci = j * kC0 + k;
                            out[o] = ci < c ? in[at(ni, ci, di, p)] : zero;
                        }
    } else if constexpr (toFz) {
        uint64_t o = 0;
        for (int64_t di = 0; di < d; ++di)
            for (int64_t j = 0; j < c1; ++j)
                for (int64_t p = 0; p < hw; ++p)
                    for (int64_t m = 0; m < n1 * kC0; ++m)
                        for (int64_t k = 0; k < kC0; ++k, ++o) {
                            const int64_t ci = j * kC0 + k;
                            out[o] = ci < c && m < n ? in[at(m, ci, di, p)] : zero;
                        }
    } else if constexpr (fromFz) {
        for (int64_t m = 0; m < n; ++m)
            for (int64_t ci = 0; ci < c; ++ci)
                for (int64_t di = 0; di < d; ++di)
                    for (int64_t p = 0; p < hwp; ++p) {
                        const int64_t from = (((di * c1 + ci / kC0) * hw + p) * n1 * kC0 + m) * kC0 + ci % kC0;
                        out[at(m, ci, di, p)] = p < hw ? in[from] : zero;
                    }
    } else {
        // NDC1HWC0 -> NCDHW through the staging area [C1, D, HWp, C0] at byte 512 of the buffer
        T* scratch = reinterpret_cast<T*>(tmp.ptr_);
        T* stage = scratch + kStageOffset / sizeof(T);
        const int64_t rows = d * hwp;  // rows of C0 values in one C1 block of the stage
        const int64_t remain = c - (c1 - 1) * kC0;
        const int64_t repeats = rows / kC0;
        T block[kC0];
        for (int64_t ni = 0; ni < n; ++ni) {
            for (int64_t di = 0; di < d; ++di)
                for (int64_t j = 0; j < c1; ++j)
                    std::memcpy(stage + (j * rows + di * hwp) * kC0, in + (((ni * d + di) * c1 + j) * hw) * kC0,
                                static_cast<size_t>(hw * kC0) * sizeof(T));
            for (int64_t ci = 0; ci < c; ++ci) {
                const T* col = stage + (ci / kC0) * rows * kC0 + ci % kC0;
                T* row = out + (ni * c + ci) * rows;
                for (int64_t q = 0; q < rows; ++q) row[q] = col[q * kC0];
            }
            // the channels past C of the last block: repeat r writes its row i (remain <= i < 16)
            // at 32-byte row i + r of the buffer
            if (remain < kC0) {
                const T* last = stage + (c1 - 1) * rows * kC0;
                for (int64_t r = 0; r < repeats; ++r)
                    for (int64_t i = remain; i < kC0; ++i) {
                        for (int64_t m = 0; m < kC0; ++m) block[m] = last[(r * kC0 + m) * kC0 + i];
                        std::memcpy(scratch + (i + r) * kC0, block, sizeof(block));
                    }
            }
        }
    }
    Core& core = CurrentCore();
    const uint64_t moved = std::max(srcElems, dstElems);
    core.counters[kVectorInstructions] += static_cast<int64_t>(2 + (toFz || fromFz ? 2 * n1 + c1 : c1 * n));
    core.counters[kVectorRepeats] += static_cast<int64_t>(2 * moved / 256 + 1);
}

}  // namespace transdata_detail
}  // namespace opgen_sim

namespace AscendC {

template <const TransDataConfig& config, typename T, typename U, typename S>
inline void TransData(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                      const LocalTensor<uint8_t>& sharedTmpBuffer, const TransDataParams<U, S>& params) {
    opgen_sim::transdata_detail::Run<config, T, U, S>(dstTensor, srcTensor, sharedTmpBuffer, "sharedTmpBuffer", false,
                                                      params);
}

template <const TransDataConfig& config, typename T, typename U, typename S>
inline void TransData(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                      const TransDataParams<U, S>& params) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::transdata_detail::Run<config, T, U, S>(
        dstTensor, srcTensor, stack, "the stack buffer (PopStackBuffer: the UB the pipe did not hand out)", true,
        params);
}

}  // namespace AscendC
