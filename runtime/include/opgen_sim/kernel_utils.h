// opgen NPU simulator: small kernel helpers of Ascend C that real operators use: AlignUp,
// DivCeil, IsSameType, Conditional, the typed DataCacheCleanAndInvalid, DataSyncBarrier, the GM
// scalar accesses past the data cache, and AscendC::Std (the C++ standard
// library subset the reference lists under Utils-API, here the host's std:: entities).
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "crosscore.h"
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
// the kernel wants it; the call applies the core's deferred work and fences its streamed stores
// (a cache flush is where a kernel expects its view of memory to be settled, and what it wrote
// visible to the other cores: deferred.h, PublishGm), and counts as a poll of GM (crosscore.h,
// NotePoll).
inline void CacheCleaned() {
    opgen_sim::PublishGm();
    opgen_sim::NotePoll();
}
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {
    CacheCleaned();
}
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const LocalTensor<T>&) {
    CacheCleaned();
}
template <typename T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {
    CacheCleaned();
}

// DataSyncBarrier<MemDsbT>: the data synchronisation barrier (dsb) of the scalar unit. The
// simulated core's memory accesses are done by the time the call runs; it applies the core's
// deferred work (as DataCacheCleanAndInvalid) and fences the host's memory order, so another
// block's thread sees what this one wrote.
enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ };
template <MemDsbT arg>
inline void DataSyncBarrier() {
    opgen_sim::PublishGm();
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

// WriteGmByPassDCache / ReadGmByPassDCache: one integer stored to or loaded from GM past the
// data cache (integers of 1, 2, 4 or 8 bytes, as the reference lists). The address must lie inside
// a GM buffer of the launch; the access is atomic and sequentially consistent on the host, so
// blocks polling a flag another block writes see it.
template <typename T>
inline void CheckGmScalar(const char* api, const T* addr) {
    static_assert(std::is_integral_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
                  "WriteGmByPassDCache/ReadGmByPassDCache take int8_t, uint8_t, int16_t, uint16_t, int32_t, "
                  "uint32_t, int64_t or uint64_t (documented)");
    opgen_sim::CheckGmRange(addr, addr, 1, 1, sizeof(T), opgen_sim::TypeName<T>(), api);
    opgen_sim::FlushGm(addr, sizeof(T));
}
template <typename T>
inline void WriteGmByPassDCache(__gm__ T* addr, T value) {
    CheckGmScalar("WriteGmByPassDCache", addr);
    __atomic_store_n(addr, value, __ATOMIC_SEQ_CST);
}
template <typename T>
inline T ReadGmByPassDCache(__gm__ T* addr) {
    CheckGmScalar("ReadGmByPassDCache", addr);
    opgen_sim::NotePoll();
    return __atomic_load_n(addr, __ATOMIC_SEQ_CST);
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
// the _t aliases and _v constants of the standard traits above, and the rest of asc-devkit's
// include/utils/std (type_traits.h, utility.h)
using std::add_const_t;
using std::add_cv_t;
using std::add_lvalue_reference_t;
using std::add_pointer_t;
using std::add_rvalue_reference_t;
using std::add_volatile_t;
using std::bool_constant;
using std::conditional_t;
using std::decay;
using std::decay_t;
using std::declval;
using std::enable_if_t;
using std::false_type;
using std::forward;
using std::is_class;
using std::is_function;
using std::is_union;
using std::move;
using std::remove_const_t;
using std::remove_cv_t;
using std::remove_extent;
using std::remove_extent_t;
using std::remove_pointer_t;
using std::remove_reference_t;
using std::remove_volatile_t;
using std::true_type;
template <typename T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;  // C++20's, for C++17 kernels
template <typename T>
struct remove_cvref {
    using type = remove_cvref_t<T>;
};
template <typename T>
inline constexpr bool is_array_v = std::is_array_v<T>;
template <typename B, typename D>
inline constexpr bool is_base_of_v = std::is_base_of_v<B, D>;
template <typename T>
inline constexpr bool is_class_v = std::is_class_v<T>;
template <typename T>
inline constexpr bool is_const_v = std::is_const_v<T>;
template <typename F, typename T>
inline constexpr bool is_convertible_v = std::is_convertible_v<F, T>;
template <typename T>
inline constexpr bool is_function_v = std::is_function_v<T>;
template <typename T>
inline constexpr bool is_pointer_v = std::is_pointer_v<T>;
template <typename T>
inline constexpr bool is_reference_v = std::is_reference_v<T>;
template <typename T, typename U>
inline constexpr bool is_same_v = std::is_same_v<T, U>;
template <typename T>
inline constexpr bool is_union_v = std::is_union_v<T>;
template <typename T>
inline constexpr bool is_void_v = std::is_void_v<T>;
// is_floating_point and is_integral as asc-devkit defines them: half is a floating-point type,
// the integral types are the standard integer types and bool and char (no wchar_t, charN_t), and
// an integral_constant counts as integral.
template <typename T>
struct is_floating_point
    : std::bool_constant<std::is_same_v<std::remove_cv_t<T>, float> ||
                         std::is_same_v<std::remove_cv_t<T>, double> ||
                         std::is_same_v<std::remove_cv_t<T>, long double> ||
                         std::is_same_v<std::remove_cv_t<T>, half>> {};
template <typename T>
inline constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <typename T, typename... Us>
inline constexpr bool kOneOfUnqualified = (std::is_same_v<std::remove_cv_t<T>, Us> || ...);
template <typename T>
struct is_integral
    : std::bool_constant<kOneOfUnqualified<T, bool, unsigned long long, long long, unsigned long,
                                           long, unsigned int, int, unsigned short, short,
                                           unsigned char, signed char, char>> {};
template <typename T, T v>
struct is_integral<std::integral_constant<T, v>> : std::true_type {};
template <typename T>
inline constexpr bool is_integral_v = is_integral<T>::value;
// is_one_of<T, Args...>: T is one of Args; is_one_of_value<T, V, Values...>: V is one of Values
template <typename T, typename... Args>
struct is_one_of : std::bool_constant<(std::is_same_v<T, Args> || ...)> {};
template <typename T, typename... Args>
inline constexpr bool is_one_of_v = is_one_of<T, Args...>::value;
template <typename T, T V, T... Values>
struct is_one_of_value : std::bool_constant<((V == Values) || ...)> {};
template <typename T, T... Values>
inline constexpr bool is_one_of_value_v = is_one_of_value<T, Values...>::value;
// is_constant<n, T>: T (through const and references) is integral_constant<U, v> with v == n
template <auto n, typename T>
struct is_constant : std::false_type {};
template <auto n, typename T>
struct is_constant<n, const T> : is_constant<n, T> {};
template <auto n, typename T>
struct is_constant<n, T&> : is_constant<n, T> {};
template <auto n, typename T>
struct is_constant<n, const T&> : is_constant<n, T> {};
template <auto n, typename T>
struct is_constant<n, T&&> : is_constant<n, T> {};
template <auto n, typename T, T v>
struct is_constant<n, std::integral_constant<T, v>> : std::bool_constant<v == n> {};

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

// The NPU compiler lets kernel code call min/max of two scalars unqualified (the asc-devkit
// samples do, e.g. softmaxflashv3's `min(baseM, rowNum)`): the same functions at global scope.
// A kernel's `using namespace std;` keeps std::min/std::max for two values of one type (the more
// specialised template).
using AscendC::Std::max;
using AscendC::Std::min;
