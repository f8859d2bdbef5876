// opgen NPU simulator: more math-library APIs (adv_api/math): IsFinite, Rint, Fma, Clamp (tensor or
// scalar bounds), BitwiseAnd, LogicalAnd and Where.
//
// CANN's asc-devkit compiles these for npu arch 3510/5102 (the Ascend 950) only: for 2201 its
// headers leave the call empty. The simulator runs them on every target (as it does Sort with a
// SortConfig), with the semantics of the API reference and, where it is silent, the steps of
// CANN's implementation (impl/adv_api/detail/math/<op>/): each API is one pass over `count`
// elements, each lane independent, so only the lane function matters:
//   IsFinite  1 (1.0 or true) where x is neither NaN (x != x) nor +-inf (its bits), else 0;
//   Rint      round to the nearest integer, ties to even (a Truncate with CAST_RINT), in T;
//   Fma       src0 * src1 + src2 rounded once (a fused multiply-add, FusedMulDstAdd);
//   Clamp     Max(src, min), then Min(that, max), each bound a LocalTensor<T> or a T scalar;
//   BitwiseAnd the bits of src0 & src1 (integer types);
//   LogicalAnd (src0 != 0) && (src1 != 0) as a bool (a NaN is != 0, -0.0 is not);
//   Where     condition[i] != 0 ? src0[i] : src1[i], each source a LocalTensor<T> or a T scalar,
//             the element copied bit for bit.
// The element types are those CANN's implementation accepts (a static_assert names the API and
// the types otherwise); `count` must fit every tensor operand (a simulator error naming the API
// and the operand otherwise).
#pragma once

#include <cmath>
#include <cstring>
#include <type_traits>

#include "vector_more.h"

namespace AscendC {

struct RintConfig {
    bool isReuseSource;
};
constexpr RintConfig DEFAULT_RINT_CONFIG = {false};
struct FmaConfig {
    bool isReuseSource;
};
constexpr FmaConfig DEFAULT_FMA_CONFIG = {false};
struct ClampConfig {
    bool isReuseSource;
};
constexpr ClampConfig DEFAULT_CLAMP_CONFIG = {false};
struct BitwiseAndConfig {
    bool isReuseSource;
};
constexpr BitwiseAndConfig DEFAULT_BITWISE_AND_CONFIG = {false};
struct LogicalAndConfig {
    bool isReuseSource;
};
constexpr LogicalAndConfig DEFAULT_LOGICAL_AND_CONFIG = {false};

namespace math_more_detail {

template <typename T, typename... Ts>
inline constexpr bool kOneOf = (std::is_same_v<T, Ts> || ...);

template <typename X>
struct IsLocal : std::false_type {};
template <typename T>
struct IsLocal<LocalTensor<T>> : std::true_type {};

// The operand checks of a pass over `count` elements: each tensor live, 32-byte aligned and
// holding `count` elements (deferred work on it applied, so its elements are current).
template <typename T>
inline void Operand(const char* api, const LocalTensor<T>& t, uint32_t count, const char* what) {
    opgen_sim::CheckOperand(t, static_cast<int64_t>(count), api, what);
}

// A sharedTmpBuffer these APIs take and do not use (CANN's host gives 0 bytes for them): it must
// still lie in a vector buffer, 32-byte aligned.
inline void UnusedTmp(const char* api, const LocalTensor<uint8_t>& tmp) {
    if (tmp.ptr_ != nullptr) opgen_sim::CheckTmpPlace(api, tmp);
}

// Whether x's bits are a NaN or an infinity of T.
template <typename T>
inline bool NonFinite(T x) {
    if constexpr (std::is_same_v<T, float>) {
        uint32_t u;
        std::memcpy(&u, &x, 4);
        return (u & 0x7f800000u) == 0x7f800000u;
    } else {
        uint16_t u;
        std::memcpy(&u, &x, 2);
        if constexpr (std::is_same_v<T, half>) return (u & 0x7c00u) == 0x7c00u;
        else return (u & 0x7f80u) == 0x7f80u;
    }
}

// A scalar or the i-th element of a tensor operand.
template <typename T, typename X>
inline T At(const X& x, const T* p, uint32_t i) {
    if constexpr (IsLocal<X>::value) {
        (void)x;
        return p[i];
    } else {
        (void)p, (void)i;
        return static_cast<T>(x);
    }
}
template <typename T, typename X>
inline const T* Ptr(const char* api, const X& x, uint32_t count, const char* what) {
    if constexpr (IsLocal<X>::value) {
        static_assert(std::is_same_v<typename X::PrimType, T>,
                      "the tensor operand's element type must be dst's T (the Ascend C API reference)");
        Operand(api, x, count, what);
        return x.ptr_;
    } else {
        static_assert(std::is_same_v<X, T>, "a scalar operand must be of dst's type T (the Ascend C API reference)");
        (void)api, (void)x, (void)count, (void)what;
        return nullptr;
    }
}

}  // namespace math_more_detail

// ---- IsFinite(dst, src, calCount) -------------------------------------------------------------
template <typename T, typename U>
inline void IsFinite(const LocalTensor<U>& dst, const LocalTensor<T>& src, uint32_t calCount) {
    static_assert((std::is_same_v<T, half> && (std::is_same_v<U, half> || std::is_same_v<U, bool>)) ||
                      (std::is_same_v<T, float> && (std::is_same_v<U, float> || std::is_same_v<U, bool>)) ||
                      (std::is_same_v<T, bfloat16_t> &&
                       (std::is_same_v<U, bfloat16_t> || std::is_same_v<U, bool>)),
                  "IsFinite takes (dst U, src T) of (half, half), (bool, half), (float, float), (bool, float), "
                  "(bfloat16_t, bfloat16_t) or (bool, bfloat16_t) (the Ascend C API reference)");
    constexpr const char* api = "IsFinite";
    math_more_detail::Operand(api, src, calCount, "src");
    math_more_detail::Operand(api, dst, calCount, "dst");
    const T* s = src.ptr_;
    U* d = dst.ptr_;
    for (uint32_t i = 0; i < calCount; ++i) {
        const bool finite = !math_more_detail::NonFinite(s[i]);
        if constexpr (std::is_same_v<U, bool>) {
            d[i] = finite;
        } else {
            d[i] = static_cast<U>(finite ? 1.0f : 0.0f);
        }
    }
    opgen_sim::CountVector<T>(calCount, api);
}

// ---- Rint<config>(dst, src[, sharedTmpBuffer], count) -----------------------------------------
namespace math_more_detail {
template <typename T>
inline void RintRun(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp,
                    uint32_t count) {
    static_assert(kOneOf<T, half, float>, "Rint takes half or float (the Ascend C API reference)");
    if (tmp != nullptr) UnusedTmp("Rint", *tmp);
    opgen_sim::Unary("Rint", dst, src, static_cast<int32_t>(count), [](auto x) {
        return static_cast<decltype(x)>(std::nearbyint(x));  // (the default rounding: ties to even)
    });
}
}  // namespace math_more_detail
template <const RintConfig& config = DEFAULT_RINT_CONFIG, typename T>
inline void Rint(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                 const uint32_t count) {
    math_more_detail::RintRun(dst, src, &sharedTmpBuffer, count);
}
template <const RintConfig& config = DEFAULT_RINT_CONFIG, typename T>
inline void Rint(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
    math_more_detail::RintRun<T>(dst, src, nullptr, count);
}

// ---- Fma<config>(dst, src0, src1, src2[, sharedTmpBuffer], count) -----------------------------
namespace math_more_detail {
template <typename T>
inline void FmaRun(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                   const LocalTensor<T>& src2, const LocalTensor<uint8_t>* tmp, uint32_t count) {
    static_assert(kOneOf<T, half, float>, "Fma takes half or float (the Ascend C API reference)");
    constexpr const char* api = "Fma";
    if (tmp != nullptr) UnusedTmp(api, *tmp);
    Operand(api, src0, count, "src0");
    Operand(api, src1, count, "src1");
    Operand(api, src2, count, "src2");
    Operand(api, dst, count, "dst");
    const T* a = src0.ptr_;
    const T* b = src1.ptr_;
    const T* c = src2.ptr_;
    T* d = dst.ptr_;
    for (uint32_t i = 0; i < count; ++i) {
        // one rounding of the exact a * b + c to float (a half product is exact in float; a half
        // result is that float rounded once more, to half)
        d[i] = static_cast<T>(std::fmaf(static_cast<float>(a[i]), static_cast<float>(b[i]), static_cast<float>(c[i])));
    }
    opgen_sim::CountVector<T>(count, api);
}
}  // namespace math_more_detail
template <const FmaConfig& config = DEFAULT_FMA_CONFIG, typename T>
inline void Fma(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const LocalTensor<T>& src2, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t count) {
    math_more_detail::FmaRun(dst, src0, src1, src2, &sharedTmpBuffer, count);
}
template <const FmaConfig& config = DEFAULT_FMA_CONFIG, typename T>
inline void Fma(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const LocalTensor<T>& src2, const uint32_t count) {
    math_more_detail::FmaRun<T>(dst, src0, src1, src2, nullptr, count);
}

// ---- Clamp<config>(dst, src, min, max, count): min and max each a LocalTensor<T> or a T ---------
template <const ClampConfig& config = DEFAULT_CLAMP_CONFIG, typename T, typename U, typename S>
inline void Clamp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& min, const S& max,
                  const uint32_t count) {
    static_assert(math_more_detail::kOneOf<T, uint8_t, int8_t, half, bfloat16_t, uint16_t, int16_t, float, uint32_t,
                                           int32_t, uint64_t, int64_t>,
                  "Clamp takes uint8_t, int8_t, half, bfloat16_t, uint16_t, int16_t, float, uint32_t, int32_t, "
                  "uint64_t or int64_t (the Ascend C API reference)");
    constexpr const char* api = "Clamp";
    math_more_detail::Operand(api, src, count, "src");
    const T* lo = math_more_detail::Ptr<T>(api, min, count, "min");
    const T* hi = math_more_detail::Ptr<T>(api, max, count, "max");
    math_more_detail::Operand(api, dst, count, "dst");
    using A = opgen_sim::Acc<T>;
    const T* s = src.ptr_;
    T* d = dst.ptr_;
    for (uint32_t i = 0; i < count; ++i) {
        const A x = static_cast<A>(s[i]);
        const A l = static_cast<A>(math_more_detail::At<T>(min, lo, i));
        const A h = static_cast<A>(math_more_detail::At<T>(max, hi, i));
        const A m = x > l ? x : l;  // Max / Maxs, as the simulator's instructions compare
        d[i] = static_cast<T>(m < h ? m : h);  // then Min / Mins
    }
    opgen_sim::CountVector<T>(count, api);
    opgen_sim::CountVector<T>(count, api);
}

// ---- BitwiseAnd<config>(dst, src0, src1, count) -----------------------------------------------
template <const BitwiseAndConfig& config = DEFAULT_BITWISE_AND_CONFIG, typename T>
inline void BitwiseAnd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                       const uint32_t count) {
    static_assert(math_more_detail::kOneOf<T, uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, uint64_t, int64_t>,
                  "BitwiseAnd takes uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, uint64_t or int64_t "
                  "(the Ascend C API reference)");
    constexpr const char* api = "BitwiseAnd";
    math_more_detail::Operand(api, src0, count, "src0");
    math_more_detail::Operand(api, src1, count, "src1");
    math_more_detail::Operand(api, dst, count, "dst");
    const T* a = src0.ptr_;
    const T* b = src1.ptr_;
    T* d = dst.ptr_;
    for (uint32_t i = 0; i < count; ++i) d[i] = static_cast<T>(a[i] & b[i]);
    opgen_sim::CountVector<T>(count, api);
}

// ---- LogicalAnd<config>(dst bool, src0, src1, count) ------------------------------------------
template <const LogicalAndConfig& config = DEFAULT_LOGICAL_AND_CONFIG, typename T, typename U>
inline void LogicalAnd(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                       const uint32_t count) {
    static_assert(std::is_same_v<T, bool>, "LogicalAnd writes a bool dst (the Ascend C API reference)");
    static_assert(math_more_detail::kOneOf<U, bool, uint8_t, int8_t, half, bfloat16_t, uint16_t, int16_t, float,
                                           uint32_t, int32_t, uint64_t, int64_t>,
                  "LogicalAnd takes bool, uint8_t, int8_t, half, bfloat16_t, uint16_t, int16_t, float, uint32_t, "
                  "int32_t, uint64_t or int64_t sources (the Ascend C API reference)");
    constexpr const char* api = "LogicalAnd";
    math_more_detail::Operand(api, src0, count, "src0");
    math_more_detail::Operand(api, src1, count, "src1");
    math_more_detail::Operand(api, dst, count, "dst");
    // a bool source is read as its byte (CANN compares it as uint8_t)
    using R = std::conditional_t<std::is_same_v<U, bool>, uint8_t, U>;
    using A = opgen_sim::Acc<R>;
    const R* a = reinterpret_cast<const R*>(src0.ptr_);
    const R* b = reinterpret_cast<const R*>(src1.ptr_);
    bool* d = dst.ptr_;
    for (uint32_t i = 0; i < count; ++i) {
        d[i] = (static_cast<A>(a[i]) != A(0)) && (static_cast<A>(b[i]) != A(0));
    }
    opgen_sim::CountVector<std::conditional_t<std::is_same_v<U, bool>, uint8_t, U>>(count, api);
}

// ---- Where<T, U, S, V>(dst, src0, src1, condition, count) -------------------------------------
template <typename T, typename U, typename S, typename V>
inline void Where(const LocalTensor<T>& dst, const U& src0, const S& src1, const LocalTensor<V>& condition,
                  const uint32_t count) {
    static_assert(math_more_detail::kOneOf<T, bool, int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, int32_t,
                                           uint32_t, float, int64_t, uint64_t>,
                  "Where takes bool, int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, "
                  "float, int64_t or uint64_t (the Ascend C API reference)");
    static_assert(std::is_same_v<V, bool>, "Where's condition must be a LocalTensor<bool> (the Ascend C API reference)");
    constexpr const char* api = "Where";
    const T* a = math_more_detail::Ptr<T>(api, src0, count, "src0");
    const T* b = math_more_detail::Ptr<T>(api, src1, count, "src1");
    math_more_detail::Operand(api, condition, count, "condition");
    math_more_detail::Operand(api, dst, count, "dst");
    const uint8_t* c = reinterpret_cast<const uint8_t*>(condition.ptr_);
    T* d = dst.ptr_;
    for (uint32_t i = 0; i < count; ++i) {
        const T v = c[i] != 0 ? math_more_detail::At<T>(src0, a, i) : math_more_detail::At<T>(src1, b, i);
        std::memcpy(&d[i], &v, sizeof(T));
    }
    opgen_sim::CountVector<T>(count, api);
}

// (AscendCUtils::SetOverflow, which the Where sample calls, is defined in norm_more.h.)

}  // namespace AscendC
