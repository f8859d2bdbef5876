// opgen NPU simulator: vector instructions (level-2 "count" interfaces of Ascend C).
#pragma once

#include <algorithm>

#include "data_copy.h"

namespace opgen_sim {

// Arithmetic type used to evaluate one lane: half/bfloat16 lanes compute in float and round
// once when stored, like the hardware's 16-bit lanes.
template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>, float, T>;

inline void CheckCount(int64_t count, const char* api) {
    if (count < 0) Fail(ErrorKind::VectorCount, api, "count " + std::to_string(count) + " is negative");
}

template <typename T>
inline void CheckOperand(const AscendC::LocalTensor<T>& t, int64_t count, const char* api,
                         const char* what, bool apply_pending = true) {
    CheckUbAligned(t, api, what, apply_pending);
    if (static_cast<uint64_t>(count) > t.size_) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             std::string(what) + ": count " + std::to_string(count) + " exceeds the LocalTensor<" +
                 TypeName<T>() + "> of " + Str(t.size_) + " elements");
    }
}

// The element-wise loops read their sources through LazySource (deferred.h: a source still to be
// copied in from GM is read there). dst is written whole, so copies into it are dropped; a dst
// that overlaps a source without being it reads everything from UB, as the loop did.
template <typename T>
inline T* LazyDst(const AscendC::LocalTensor<T>& dst, int32_t count, const T** srcs,
                  const AscendC::LocalTensor<T>* const* tensors, int n) {
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    for (int i = 0; i < n; ++i) {
        if (srcs[i] == tensors[i]->ptr_ || tensors[i]->ptr_ == dst.ptr_) continue;
        if (Overlaps(reinterpret_cast<const uint8_t*>(dst.ptr_), bytes,
                     reinterpret_cast<const uint8_t*>(tensors[i]->ptr_), bytes)) {
            for (int j = 0; j < n; ++j) {
                FlushUb(tensors[j]->ptr_, bytes);
                srcs[j] = tensors[j]->ptr_;
            }
            break;
        }
    }
    DiscardUb(dst.ptr_, bytes);
    return dst.ptr_;
}

// Element-wise instructions whose sources are all in GM are recorded rather than run (deferred.h,
// "Deferred work") when their lane function can be kept: a closure of at most 16 bytes that is
// trivially copyable (the API's lambdas, capturing at most a scalar).
template <typename F>
inline constexpr bool kDeferrable = sizeof(F) <= sizeof(Pending::fn) &&
                                    alignof(F) <= 8 && std::is_trivially_copyable_v<F>;

template <typename F>
inline const F& LaneFn(const Pending& p) {
    return *std::launder(reinterpret_cast<const F*>(p.fn));
}

template <typename T, typename F>
inline void EvalBinary(const Pending& p, uint8_t* out, uint64_t first, uint64_t n) {
    const F& f = LaneFn<F>(p);
    const T* x = reinterpret_cast<const T*>(p.src[0]) + first;
    const T* y = reinterpret_cast<const T*>(p.src[1]) + first;
    T* d = reinterpret_cast<T*>(out);
    for (uint64_t i = 0; i < n; ++i) d[i] = static_cast<T>(f(static_cast<Acc<T>>(x[i]), static_cast<Acc<T>>(y[i])));
}

template <typename T, typename F>
inline void EvalUnary(const Pending& p, uint8_t* out, uint64_t first, uint64_t n) {
    const F& f = LaneFn<F>(p);
    const T* x = reinterpret_cast<const T*>(p.src[0]) + first;
    T* d = reinterpret_cast<T*>(out);
    for (uint64_t i = 0; i < n; ++i) d[i] = static_cast<T>(f(static_cast<Acc<T>>(x[i])));
}

// Records the instruction writing `count` elements to d from GM sources x (and y).
template <typename T, typename F>
inline bool DeferOp(T* d, const T* x, const T* y, int32_t count, const F& f,
                    void (*eval)(const Pending&, uint8_t*, uint64_t, uint64_t)) {
    Pending e{};
    e.ub = reinterpret_cast<uint8_t*>(d);
    e.bytes = static_cast<uint64_t>(count) * sizeof(T);
    e.eval = eval;
    e.src[0] = reinterpret_cast<const uint8_t*>(x);
    e.src[1] = reinterpret_cast<const uint8_t*>(y);
    e.src_bytes = e.bytes;
    e.elem = sizeof(T);
    std::memcpy(e.fn, &f, sizeof(F));
    return Defer(e);
}

template <typename T, typename F>
inline void Binary(const char* api, const AscendC::LocalTensor<T>& dst,
                   const AscendC::LocalTensor<T>& a, const AscendC::LocalTensor<T>& b, int32_t count,
                   F f) {
    CheckCount(count, api);
    CheckOperand(dst, count, api, "dst", false);
    CheckOperand(a, count, api, "src0", false);
    CheckOperand(b, count, api, "src1", false);
    const T* srcs[2] = {LazySource(a.ptr_, count), LazySource(b.ptr_, count)};
    const AscendC::LocalTensor<T>* tensors[2] = {&a, &b};
    T* d = LazyDst(dst, count, srcs, tensors, 2);
    const T* x = srcs[0];
    const T* y = srcs[1];
    CountVector<T>(static_cast<uint64_t>(count));
    if constexpr (kDeferrable<F>) {
        if (count > 0 && x != a.ptr_ && y != b.ptr_ && DeferOp(d, x, y, count, f, &EvalBinary<T, F>)) return;
    }
    for (int32_t i = 0; i < count; ++i) d[i] = static_cast<T>(f(static_cast<Acc<T>>(x[i]), static_cast<Acc<T>>(y[i])));
}

template <typename T, typename F>
inline void Unary(const char* api, const AscendC::LocalTensor<T>& dst,
                  const AscendC::LocalTensor<T>& a, int32_t count, F f) {
    CheckCount(count, api);
    CheckOperand(dst, count, api, "dst", false);
    CheckOperand(a, count, api, "src", false);
    const T* srcs[1] = {LazySource(a.ptr_, count)};
    const AscendC::LocalTensor<T>* tensors[1] = {&a};
    T* d = LazyDst(dst, count, srcs, tensors, 1);
    const T* x = srcs[0];
    CountVector<T>(static_cast<uint64_t>(count));
    if constexpr (kDeferrable<F>) {
        if (count > 0 && x != a.ptr_ && DeferOp<T, F>(d, x, nullptr, count, f, &EvalUnary<T, F>)) {
            return;
        }
    }
    for (int32_t i = 0; i < count; ++i) d[i] = static_cast<T>(f(static_cast<Acc<T>>(x[i])));
}

// 16-bit sign-magnitude float stepping (half and bfloat16), for directed rounding in Cast.
inline uint16_t StepUp16(uint16_t b) {  // next representable value towards +inf
    if (b == 0x8000u) return 0x0001u;
    return (b & 0x8000u) ? static_cast<uint16_t>(b - 1) : static_cast<uint16_t>(b + 1);
}
inline uint16_t StepDown16(uint16_t b) {
    if (b == 0x0000u) return 0x8001u;
    return (b & 0x8000u) ? static_cast<uint16_t>(b + 1) : static_cast<uint16_t>(b - 1);
}

template <typename T>
inline uint16_t Bits16(T v) {
    uint16_t b;
    std::memcpy(&b, &v, 2);
    return b;
}
template <typename T>
inline T FromBits16(uint16_t b) {
    T v;
    std::memcpy(&v, &b, 2);
    return v;
}

}  // namespace opgen_sim

namespace AscendC {

enum class RoundMode : uint8_t {
    CAST_NONE = 0,
    CAST_RINT,
    CAST_FLOOR,
    CAST_CEIL,
    CAST_ROUND,
    CAST_TRUNC,
    CAST_ODD,
    CAST_HYBRID,
};

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };

enum class SELMODE : uint8_t {
    VSEL_CMPMASK_SPR = 0,
    VSEL_TENSOR_SCALAR_MODE,
    VSEL_TENSOR_TENSOR_MODE,
};

// ---- binary ------------------------------------------------------------------------------
#define OPGEN_SIM_BINARY(NAME, EXPR)                                                            \
    template <typename T>                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                     \
                     const LocalTensor<T>& src1, const int32_t& count) {                        \
        opgen_sim::Binary(#NAME, dst, src0, src1, count, [](auto a, auto b) { return EXPR; }); \
    }
OPGEN_SIM_BINARY(Add, a + b)
OPGEN_SIM_BINARY(Sub, a - b)
OPGEN_SIM_BINARY(Mul, a * b)
OPGEN_SIM_BINARY(Div, a / b)
OPGEN_SIM_BINARY(Max, a > b ? a : b)
OPGEN_SIM_BINARY(Min, a < b ? a : b)
#undef OPGEN_SIM_BINARY

}  // namespace AscendC

namespace opgen_sim {

// `dst = a + b`, `-`, `*`, `/`: the reference's whole-tensor form, whose count is dst's length
template <typename T, typename Op>
struct WholeTensorBinary {
    AscendC::LocalTensor<T> a, b;
    void Run(const AscendC::LocalTensor<T>& dst) const { Op::Run(dst, a, b, static_cast<int32_t>(dst.size_)); }
};

#define OPGEN_SIM_WHOLE_TENSOR_OP(NAME)                                                     \
    struct NAME##Op {                                                                        \
        template <typename T>                                                                \
        static void Run(const AscendC::LocalTensor<T>& d, const AscendC::LocalTensor<T>& a,  \
                        const AscendC::LocalTensor<T>& b, int32_t n) {                        \
            AscendC::NAME(d, a, b, n);                                                       \
        }                                                                                    \
    };
OPGEN_SIM_WHOLE_TENSOR_OP(Add)
OPGEN_SIM_WHOLE_TENSOR_OP(Sub)
OPGEN_SIM_WHOLE_TENSOR_OP(Mul)
OPGEN_SIM_WHOLE_TENSOR_OP(Div)
#undef OPGEN_SIM_WHOLE_TENSOR_OP

}  // namespace opgen_sim

namespace AscendC {

#define OPGEN_SIM_WHOLE_TENSOR_OPERATOR(NAME, SYMBOL)                                                  \
    template <typename T>                                                                             \
    inline opgen_sim::WholeTensorBinary<T, opgen_sim::NAME##Op> operator SYMBOL(const LocalTensor<T>& a, \
                                                                               const LocalTensor<T>& b) { \
        return {a, b};                                                                                \
    }
OPGEN_SIM_WHOLE_TENSOR_OPERATOR(Add, +)
OPGEN_SIM_WHOLE_TENSOR_OPERATOR(Sub, -)
OPGEN_SIM_WHOLE_TENSOR_OPERATOR(Mul, *)
OPGEN_SIM_WHOLE_TENSOR_OPERATOR(Div, /)
#undef OPGEN_SIM_WHOLE_TENSOR_OPERATOR

// ---- tensor-scalar -----------------------------------------------------------------------
#define OPGEN_SIM_SCALAR(NAME, EXPR)                                                           \
    template <typename T>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                     \
                     const typename opgen_sim::Id<T>::type& scalarValue, const int32_t& count) { \
        const opgen_sim::Acc<T> s = static_cast<opgen_sim::Acc<T>>(scalarValue);               \
        opgen_sim::Unary(#NAME, dst, src, count, [s](auto a) { return EXPR; });                \
    }
OPGEN_SIM_SCALAR(Adds, a + s)
OPGEN_SIM_SCALAR(Muls, a * s)
OPGEN_SIM_SCALAR(Maxs, a > s ? a : s)
OPGEN_SIM_SCALAR(Mins, a < s ? a : s)
OPGEN_SIM_SCALAR(LeakyRelu, a >= 0 ? a : a * s)
#undef OPGEN_SIM_SCALAR

// ---- unary -------------------------------------------------------------------------------
#define OPGEN_SIM_UNARY(NAME, EXPR)                                                     \
    template <typename T>                                                               \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,              \
                     const int32_t& count) {                                            \
        opgen_sim::Unary(#NAME, dst, src, count, [](auto a) {                           \
            using A = decltype(a);                                                      \
            return static_cast<A>(EXPR);                                                \
        });                                                                             \
    }
OPGEN_SIM_UNARY(Exp, std::exp(a))
OPGEN_SIM_UNARY(Ln, std::log(a))
// `+ 0` turns -0.0 into +0.0: the hardware clears the sign bit, as fabs and numpy do.
OPGEN_SIM_UNARY(Abs, a < 0 ? -a : a + 0)
OPGEN_SIM_UNARY(Sqrt, std::sqrt(a))
OPGEN_SIM_UNARY(Rsqrt, A(1) / std::sqrt(a))
OPGEN_SIM_UNARY(Reciprocal, A(1) / a)
OPGEN_SIM_UNARY(Relu, a > 0 ? a : A(0))
OPGEN_SIM_UNARY(Not, ~a)
#undef OPGEN_SIM_UNARY

// ---- Duplicate ---------------------------------------------------------------------------
template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const typename opgen_sim::Id<T>::type& scalarValue,
                      const int32_t& count) {
    constexpr const char* api = "Duplicate";
    opgen_sim::CheckCount(count, api);
    opgen_sim::CheckOperand(dst, count, api, "dst");
    T* d = dst.ptr_;
    const T v = scalarValue;
    for (int32_t i = 0; i < count; ++i) d[i] = v;
    opgen_sim::CountVector<T>(static_cast<uint64_t>(count));
}

// ---- Cast --------------------------------------------------------------------------------
namespace cast_detail {
template <typename D>
inline D ToInteger(double x, RoundMode mode) {
    if (std::isnan(x)) return D(0);
    double r;
    switch (mode) {
        case RoundMode::CAST_FLOOR: r = std::floor(x); break;
        case RoundMode::CAST_CEIL: r = std::ceil(x); break;
        case RoundMode::CAST_ROUND: r = std::round(x); break;
        case RoundMode::CAST_TRUNC: r = std::trunc(x); break;
        default: r = std::nearbyint(x); break;  // CAST_RINT (and CAST_NONE): to nearest even
    }
    constexpr double lo = static_cast<double>(std::numeric_limits<D>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<D>::max());
    if (r <= lo) return std::numeric_limits<D>::min();
    if (r >= hi) return std::numeric_limits<D>::max();
    return static_cast<D>(r);
}

template <typename D>
inline D To16(float x, RoundMode mode) {
    const D h = static_cast<D>(x);  // round to nearest even
    if (mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT || std::isnan(x)) return h;
    const float hf = static_cast<float>(h);
    if (hf == x) return h;
    const uint16_t b = opgen_sim::Bits16(h);
    const D lo = hf < x ? h : opgen_sim::FromBits16<D>(opgen_sim::StepDown16(b));
    const D hi = hf > x ? h : opgen_sim::FromBits16<D>(opgen_sim::StepUp16(b));
    switch (mode) {
        case RoundMode::CAST_FLOOR: return lo;
        case RoundMode::CAST_CEIL: return hi;
        case RoundMode::CAST_TRUNC: return x > 0 ? lo : hi;
        case RoundMode::CAST_ODD: return (opgen_sim::Bits16(lo) & 1u) ? lo : hi;
        case RoundMode::CAST_ROUND: {
            const float dl = x - static_cast<float>(lo);
            const float dh = static_cast<float>(hi) - x;
            if (dl < dh) return lo;
            if (dh < dl) return hi;
            return x > 0 ? hi : lo;  // ties away from zero
        }
        default: return h;
    }
}

template <typename D, typename S>
inline D Convert(S s, RoundMode mode) {
    if constexpr (std::is_integral_v<D>) {
        if constexpr (std::is_integral_v<S>) {
            return static_cast<D>(s);
        } else {
            return ToInteger<D>(static_cast<double>(static_cast<opgen_sim::Acc<S>>(s)), mode);
        }
    } else if constexpr (std::is_same_v<D, half> || std::is_same_v<D, bfloat16_t>) {
        if constexpr (std::is_same_v<S, half> && std::is_same_v<D, half>) {
            return s;
        } else {
            return To16<D>(static_cast<float>(s), mode);
        }
    } else {
        return static_cast<D>(static_cast<opgen_sim::Acc<S>>(s));
    }
}
}  // namespace cast_detail

template <typename T1, typename T2>
inline void Cast(const LocalTensor<T1>& dst, const LocalTensor<T2>& src, const RoundMode& round_mode,
                 const uint32_t count) {
    constexpr const char* api = "Cast";
    opgen_sim::CheckOperand(dst, count, api, "dst");
    opgen_sim::CheckOperand(src, count, api, "src");
    T1* d = dst.ptr_;
    const T2* s = src.ptr_;
    const RoundMode mode = round_mode;
    if (mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT) {
        for (uint32_t i = 0; i < count; ++i) d[i] = cast_detail::Convert<T1>(s[i], RoundMode::CAST_RINT);
    } else {
        for (uint32_t i = 0; i < count; ++i) d[i] = cast_detail::Convert<T1>(s[i], mode);
    }
    if constexpr (sizeof(T1) >= sizeof(T2)) {
        opgen_sim::CountVector<T1>(count);
    } else {
        opgen_sim::CountVector<T2>(count);
    }
}

// ---- Compare / Select --------------------------------------------------------------------
namespace cmp_detail {
template <typename T>
inline bool Apply(CMPMODE m, T a, T b) {
    switch (m) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}
template <typename T>
inline void CheckRepeatFill(uint32_t count, const char* api) {
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    if (bytes % opgen_sim::kRepeatBytes != 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::VectorCount, api,
                        "count " + std::to_string(count) + " x " + opgen_sim::TypeName<T>() +
                            " = " + std::to_string(bytes) +
                            " bytes does not fill whole 256-byte repeats; Compare needs count to "
                            "be a multiple of " +
                            std::to_string(opgen_sim::kRepeatBytes / sizeof(T)) + " for " +
                            opgen_sim::TypeName<T>());
    }
}
template <typename U>
inline void CheckMask(const LocalTensor<U>& m, uint32_t count, const char* api) {
    opgen_sim::CheckUbAligned(m, api, "mask");
    if ((count + 7) / 8 > static_cast<uint64_t>(m.size_) * sizeof(U)) {
        opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                        "the bit mask of " + std::to_string(count) + " elements needs " +
                            std::to_string((count + 7) / 8) + " bytes but the mask tensor has " +
                            std::to_string(static_cast<uint64_t>(m.size_) * sizeof(U)));
    }
}
template <typename T, typename U, typename F>
inline void WriteMask(const LocalTensor<U>& dst, uint32_t count, F pred) {
    uint8_t* bits = reinterpret_cast<uint8_t*>(dst.ptr_);
    for (uint32_t i = 0; i < count; i += 8) {
        uint8_t byte = 0;
        for (uint32_t k = 0; k < 8 && i + k < count; ++k) byte |= static_cast<uint8_t>(pred(i + k)) << k;
        bits[i / 8] = byte;
    }
}
}  // namespace cmp_detail

template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                    CMPMODE cmpMode, uint32_t count) {
    constexpr const char* api = "Compare";
    cmp_detail::CheckRepeatFill<T>(count, api);
    opgen_sim::CheckOperand(src0, count, api, "src0");
    opgen_sim::CheckOperand(src1, count, api, "src1");
    cmp_detail::CheckMask(dst, count, api);
    const T* a = src0.ptr_;
    const T* b = src1.ptr_;
    cmp_detail::WriteMask<T>(dst, count, [&](uint32_t i) {
        return cmp_detail::Apply(cmpMode, static_cast<opgen_sim::Acc<T>>(a[i]),
                                 static_cast<opgen_sim::Acc<T>>(b[i]));
    });
    opgen_sim::CountVector<T>(count);
}

template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                          const typename opgen_sim::Id<T>::type src1Scalar, CMPMODE cmpMode,
                          uint32_t count) {
    constexpr const char* api = "CompareScalar";
    cmp_detail::CheckRepeatFill<T>(count, api);
    opgen_sim::CheckOperand(src0, count, api, "src0");
    cmp_detail::CheckMask(dst, count, api);
    const T* a = src0.ptr_;
    const opgen_sim::Acc<T> s = static_cast<opgen_sim::Acc<T>>(src1Scalar);
    cmp_detail::WriteMask<T>(dst, count, [&](uint32_t i) {
        return cmp_detail::Apply(cmpMode, static_cast<opgen_sim::Acc<T>>(a[i]), s);
    });
    opgen_sim::CountVector<T>(count);
}

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count) {
    constexpr const char* api = "Select";
    (void)selMode;
    opgen_sim::CheckOperand(dst, count, api, "dst");
    opgen_sim::CheckOperand(src0, count, api, "src0");
    opgen_sim::CheckOperand(src1, count, api, "src1");
    cmp_detail::CheckMask(selMask, count, api);
    const uint8_t* bits = reinterpret_cast<const uint8_t*>(selMask.ptr_);
    T* d = dst.ptr_;
    const T* a = src0.ptr_;
    const T* b = src1.ptr_;
    for (uint32_t i = 0; i < count; ++i) d[i] = ((bits[i / 8] >> (i % 8)) & 1u) ? a[i] : b[i];
    opgen_sim::CountVector<T>(count);
}

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   typename opgen_sim::Id<T>::type src1, SELMODE selMode, uint32_t count) {
    constexpr const char* api = "Select";
    if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "a scalar src1 needs SELMODE::VSEL_TENSOR_SCALAR_MODE");
    }
    opgen_sim::CheckOperand(dst, count, api, "dst");
    opgen_sim::CheckOperand(src0, count, api, "src0");
    cmp_detail::CheckMask(selMask, count, api);
    const uint8_t* bits = reinterpret_cast<const uint8_t*>(selMask.ptr_);
    T* d = dst.ptr_;
    const T* a = src0.ptr_;
    const T b = src1;
    for (uint32_t i = 0; i < count; ++i) d[i] = ((bits[i / 8] >> (i % 8)) & 1u) ? a[i] : b;
    opgen_sim::CountVector<T>(count);
}

// ---- ReduceSum / ReduceMax / ReduceMin ---------------------------------------------------
namespace reduce_detail {
// Elements of T the work buffer (sharedTmpBuffer) must hold: one partial result per 256-byte
// repeat (value and index for max/min), rounded up to a 32-byte block.
template <typename T>
inline uint64_t WorkElements(int32_t count, bool with_index) {
    const uint64_t per_repeat = opgen_sim::kRepeatBytes / sizeof(T);
    const uint64_t per_block = opgen_sim::kBlockBytes / sizeof(T);
    const uint64_t repeats = (static_cast<uint64_t>(count) + per_repeat - 1) / per_repeat;
    return std::max<uint64_t>(per_block, opgen_sim::RoundUp(repeats * (with_index ? 2 : 1), per_block));
}
template <typename T>
inline void Check(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                  const LocalTensor<T>& work, int32_t count, bool with_index) {
    opgen_sim::CheckCount(count, api);
    if (count == 0) opgen_sim::Fail(opgen_sim::ErrorKind::VectorCount, api, "count must be > 0");
    opgen_sim::CheckOperand(src, count, api, "src");
    // The destination of a reduction needs only its result's alignment, not 32 bytes (Ascend C
    // reference, ReduceRepeat table 3: SUM half 2 bytes, float 4; MAX/MIN with the index twice
    // the element size).
    dst.Check(api);
    const uint64_t dst_align = sizeof(T) * (with_index ? 2 : 1);
    if (dst.UbOffset() % dst_align != 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                        "dst LocalTensor starts at UB offset " + opgen_sim::Str(dst.UbOffset()) +
                            ", which is not " + opgen_sim::Str(dst_align) + "-byte aligned");
    }
    if ((with_index ? 2u : 1u) > dst.size_) {
        opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                        std::string("dst: count ") + (with_index ? "2" : "1") +
                            " exceeds the LocalTensor<" + opgen_sim::TypeName<T>() + "> of " +
                            opgen_sim::Str(dst.size_) + " elements");
    }
    opgen_sim::CheckUbAligned(work, api, "sharedTmpBuffer");
    const uint64_t need = WorkElements<T>(count, with_index);
    if (work.size_ < need) {
        opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                        "sharedTmpBuffer holds " + opgen_sim::Str(work.size_) + " elements, " +
                            std::string(api) + " of " + std::to_string(count) + " x " +
                            opgen_sim::TypeName<T>() + " needs at least " + opgen_sim::Str(need));
    }
}
}  // namespace reduce_detail

template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count) {
    reduce_detail::Check("ReduceSum", dst, src, sharedTmpBuffer, count, false);
    using A = std::conditional_t<std::is_floating_point_v<opgen_sim::Acc<T>>, double, int64_t>;
    const T* s = src.ptr_;
    const int32_t per_repeat = static_cast<int32_t>(opgen_sim::kRepeatBytes / sizeof(T));
    A total = 0;
    for (int32_t r = 0; r * per_repeat < count; ++r) {  // per-repeat partial sums, as the hardware
        A part = 0;
        const int32_t end = std::min(count, (r + 1) * per_repeat);
        for (int32_t i = r * per_repeat; i < end; ++i) part += static_cast<A>(static_cast<opgen_sim::Acc<T>>(s[i]));
        sharedTmpBuffer.ptr_[r] = static_cast<T>(part);
        total += part;
    }
    dst.ptr_[0] = static_cast<T>(total);
    opgen_sim::CountVector<T>(static_cast<uint64_t>(count));
}

namespace reduce_detail {
template <typename T, typename Better>
inline void Extreme(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                    const LocalTensor<T>& work, int32_t count, bool calIndex, Better better) {
    Check(api, dst, src, work, count, calIndex);
    const T* s = src.ptr_;
    int32_t best = 0;
    for (int32_t i = 1; i < count; ++i) {
        if (better(static_cast<opgen_sim::Acc<T>>(s[i]), static_cast<opgen_sim::Acc<T>>(s[best]))) best = i;
    }
    dst.ptr_[0] = s[best];
    if (calIndex) {  // the index is stored in the bits of the second element, as on hardware
        if constexpr (sizeof(T) == 4) {
            const uint32_t idx = static_cast<uint32_t>(best);
            std::memcpy(&dst.ptr_[1], &idx, 4);
        } else if constexpr (sizeof(T) == 2) {
            const uint16_t idx = static_cast<uint16_t>(best);
            std::memcpy(&dst.ptr_[1], &idx, 2);
        }
    }
    work.ptr_[0] = s[best];
    opgen_sim::CountVector<T>(static_cast<uint64_t>(count));
}
}  // namespace reduce_detail

template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count, bool calIndex = 0) {
    reduce_detail::Extreme("ReduceMax", dst, src, sharedTmpBuffer, count, calIndex,
                           [](auto a, auto b) { return a > b; });
}

template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count, bool calIndex = 0) {
    reduce_detail::Extreme("ReduceMin", dst, src, sharedTmpBuffer, count, calIndex,
                           [](auto a, auto b) { return a < b; });
}

}  // namespace AscendC
