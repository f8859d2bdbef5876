// opgen NPU simulator: small kernel helpers of Ascend C that real operators use: AlignUp,
// DivCeil, IsSameType, Conditional, the typed DataCacheCleanAndInvalid, and AscendC::Std (the C++ standard
// library subset the reference lists under Utils-API, here the host's std:: entities).
#pragma once

#include <cmath>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "deferred.h"
#include "tensor.h"

namespace AscendC {

// As asc-devkit's utilities: uint32_t arithmetic (the reference does not document them).
constexpr inline uint32_t DivCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
constexpr inline uint32_t AlignUp(uint32_t a, uint32_t b) { return DivCeil(a, b) * b; }

template <bool b>
struct BoolInst {
    using Type = BoolInst<b>;
    static constexpr bool value = b;
};
using TrueType = BoolInst<true>;
using FalseType = BoolInst<false>;
template <typename T, typename U>
struct IsSameType : public FalseType {};
template <typename T>
struct IsSameType<T, T> : public TrueType {};
// Conditional<b, T1, T2>::type: T1 if b, else T2 (std::conditional under asc-devkit's name).
template <bool b, typename T1, typename T2>
struct Conditional {
    using type = T1;
};
template <typename T1, typename T2>
struct Conditional<false, T1, T2> {
    using type = T2;
};

enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

// DataCacheCleanAndInvalid: the simulated core has no data cache, so the data is already where
// the kernel wants it; the call applies the core's deferred work (a cache flush is where a kernel
// expects its view of memory to be settled).
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {
    opgen_sim::FlushAll();
}
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const LocalTensor<T>&) {
    opgen_sim::FlushAll();
}
template <typename T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {
    opgen_sim::FlushAll();
}

namespace Std {
using std::add_const;
using std::add_cv;
using std::add_lvalue_reference;
using std::add_pointer;
using std::add_rvalue_reference;
using std::add_volatile;
using std::conditional;
using std::enable_if;
using std::get;
using std::index_sequence;
using std::integer_sequence;
using std::integral_constant;
using std::is_array;
using std::is_base_of;
using std::is_const;
using std::is_convertible;
using std::is_floating_point;
using std::is_integral;
using std::is_pointer;
using std::is_reference;
using std::is_same;
using std::is_void;
using std::make_index_sequence;
using std::make_integer_sequence;
using std::make_tuple;
using std::remove_const;
using std::remove_cv;
using std::remove_pointer;
using std::remove_reference;
using std::remove_volatile;
using std::tuple;
using std::tuple_element;
using std::tuple_size;

// max/min of two values of possibly different types (the reference's `auto` result: the common
// type); abs and sqrt of one value, in its own type.
template <typename T, typename U>
constexpr auto max(const T& src0, const U& src1) {
    using R = std::common_type_t<T, U>;
    return static_cast<R>(src0) < static_cast<R>(src1) ? static_cast<R>(src1) : static_cast<R>(src0);
}
template <typename T, typename U>
constexpr auto min(const T& src0, const U& src1) {
    using R = std::common_type_t<T, U>;
    return static_cast<R>(src1) < static_cast<R>(src0) ? static_cast<R>(src1) : static_cast<R>(src0);
}
template <typename T>
inline T abs(const T src) {
    return src < T(0) ? static_cast<T>(-src) : src;
}
template <typename T>
inline T sqrt(const T src) {
    return static_cast<T>(std::sqrt(static_cast<double>(src)));
}

}  // namespace Std
}  // namespace AscendC
