// opgen kernel frontend stub: the Ascend C surface opgen's parser needs, nothing more.
//
// The kernel frontend parses kernels with libclang, skipping function bodies, so this header
// declares only what appears *outside* bodies: the kernel keywords, GM_ADDR, the fixed-width
// integers, the tiling macros and the AscendC class templates used as data members. Templates
// take loose parameter packs so any instantiation parses. It is not the simulator's header
// (runtime/include/kernel_operator.h), which implements the API.
#pragma once

// Markers the frontend reads back from the AST (as annotate attributes).
#define __global__ __attribute__((annotate("opgen.global")))
#define __aicore__ __attribute__((annotate("opgen.aicore")))
// single-source (.asc) kernel types: which cores run the kernel, nothing the parser needs
#define __vector__
#define __cube__
#define __mix__(cube, vec)
#define __host__
#define __gm__
#define __ubuf__
#define __inout_pipe__(p)
#define __sync_alias__
#define __check_sync_alias__
#define __in_pipe__(p)
#define __out_pipe__(p)

typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;

#define GM_ADDR __gm__ uint8_t*

using half = _Float16;
struct bfloat16_t { uint16_t bits; };
struct int4b_t { uint8_t bits; };

#define KERNEL_TASK_TYPE_DEFAULT(type)
#define KERNEL_TASK_TYPE(key, type)
#define ASCEND_IS_AIV (true)
#define ASCEND_IS_AIC (false)
#define ASSERT(x)
#define TRACE_START(x)
#define TRACE_STOP(x)
#define PRINTF(...)

// Tiling. Inside a kernel body (skipped by the parser) the frontend reads these macros from
// the tokens; at file scope they leave an alias the frontend finds in the AST.
#define REGISTER_TILING_DEFAULT(Struct) using opgen_tiling_default = Struct
#define REGISTER_TILING_FOR_TILINGKEY(cond, Struct)
#define GET_TILING_DATA(var, tiling) opgen_tiling_default var
#define GET_TILING_DATA_WITH_STRUCT(Struct, var, tiling) Struct var
#define GET_TILING_DATA_PTR_WITH_STRUCT(Struct, var, tiling) const Struct* var = nullptr
#define TILING_KEY_IS(k) (false)

// CANN's host-side macro style, expanded to a plain struct marked for the frontend.
#define BEGIN_TILING_DATA_DEF(name) struct __attribute__((annotate("opgen.tiling_macro"))) name {
#define TILING_DATA_FIELD_DEF(type, field) type field;
#define TILING_DATA_FIELD_DEF_ARR(type, n, field) type field[n];
#define TILING_DATA_FIELD_DEF_STRUCT(type, field) type field;
#define END_TILING_DATA_DEF \
    }                       \
    ;
#define REGISTER_TILING_DATA_CLASS(op, cls) using opgen_tiling_class_##op = cls;
// An op_host tiling header declares its class in namespace optiling; the kernel names it bare.
namespace optiling {}
using namespace optiling;

namespace AscendC {
enum class TPosition : int32_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC,
                                 LCM = VECCALC, SPM, SHM = SPM, TSCM, C2PIPE2GM, C2PIPE2LOCAL,
                                 MAX };
using QuePosition = TPosition;
enum class HardEvent : int32_t { MTE2_V, V_MTE2, MTE3_V, V_MTE3, MTE2_MTE3, MTE3_MTE2, S_V,
                                 V_S, MTE2_S, S_MTE2, MTE3_S, S_MTE3, M_V, V_M, MAX };
enum class RoundMode : int32_t { CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND,
                                 CAST_TRUNC, CAST_ODD };
enum class CMPMODE : int32_t { LT, GT, EQ, LE, GE, NE };
enum class SELMODE : int32_t { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE,
                               VSEL_TENSOR_TENSOR_MODE };
enum class ReduceOrder : int32_t { ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE,
                                   ORDER_ONLY_INDEX };
using TEventID = int8_t;
using event_t = int32_t;

template <typename T> class GlobalTensor { public: using PrimType = T; };
template <typename T> class LocalTensor { public: using PrimType = T; };
template <auto... Args> class TQue {};
template <auto... Args> class TQueBind {};
// a queue's config, which kernels pass as its mask (`TQue<pos, depth, &config>`)
struct TQueConfig {
    bool nd2nz = false;
    bool nz2nd = false;
    bool scmBlockGroup = false;
    uint32_t bufferLen = 0;
    uint32_t bufferNumber = 0;
    uint32_t consumerSize = 0;
    TPosition consumer[8] = {};
    bool enableStaticEvtId = false;
    bool enableLoopQueue = false;
};
constexpr TQueConfig GetTQueConfig(bool, bool, bool, uint32_t, uint32_t, uint32_t, const TPosition*,
                                   bool = false, bool = false) { return {}; }
template <auto... Args> class TBuf {};
class TPipe {};
class TBufPool {};

struct DataCopyParams { uint16_t blockCount, blockLen, srcStride, dstStride; };
struct DataCopyExtParams { uint16_t blockCount; uint32_t blockLen, srcStride, dstStride, rsv; };
template <typename T> struct DataCopyPadExtParams { bool isPad; uint8_t l, r; T v; };
struct DataCopyPadParams { bool isPad; uint8_t l, r; uint64_t v; };
struct UnaryRepeatParams { uint16_t a, b; uint8_t c, d; };
struct BinaryRepeatParams { uint8_t a, b, c, d, e, f; };
struct ShapeInfo { uint8_t shapeDim; uint32_t shape[8]; };
namespace Impl {}
}  // namespace AscendC

// The advanced Matmul API (lib/matmul_intf.h): the names a kernel class's members and a kernel's
// signature use (a Matmul object, its MatmulType operands and MatmulConfig, a TCubeTiling).
enum class CubeFormat : int32_t { ND, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, COLUMN_MAJOR = 8 };
namespace AscendC {
using ::CubeFormat;
enum class LayoutMode : int32_t { NONE, BSNGD, SBNGD, BNGS1S2, NORMAL };
struct MatmulConfig { int32_t opgen_unused; };
template <typename... Ts> constexpr MatmulConfig GetNormalConfig(Ts...) { return {}; }
template <typename... Ts> constexpr MatmulConfig GetMDLConfig(Ts...) { return {}; }
template <typename... Ts> constexpr MatmulConfig GetSpecialMDLConfig(Ts...) { return {}; }
template <typename... Ts> constexpr MatmulConfig GetBasicConfig(Ts...) { return {}; }
template <typename... Ts> constexpr MatmulConfig GetIBShareNormConfig(Ts...) { return {}; }
constexpr MatmulConfig CFG_NORM{}, CFG_MDL{}, MM_CFG_BB{}, CFG_IBSHARE_NORM{};
template <TPosition P, CubeFormat F, typename T, auto... Rest> struct MatmulType { using PrimType = T; };
template <auto... Fns> struct MatmulCallBackFunc {};
template <class A, class B, class C, class BIAS = C, const auto& CFG = CFG_NORM,
          class CB = MatmulCallBackFunc<>>
class MatmulImpl {};
template <class A, class B, class C, class BIAS = C, const auto& CFG = CFG_NORM,
          class CB = MatmulCallBackFunc<>>
using Matmul = MatmulImpl<A, B, C, BIAS, CFG, CB>;
namespace tiling {
struct TCubeTiling {
    int32_t usedCoreNum, M, N, Ka, Kb, singleCoreM, singleCoreN, singleCoreK, baseM, baseN, baseK,
        depthA1, depthB1, stepM, stepN, isBias, transLength, iterateOrder, shareMode, shareL1Size,
        shareL0CSize, shareUbSize, batchM, batchN, singleBatchM, singleBatchN, stepKa, stepKb,
        depthAL1CacheUB, depthBL1CacheUB, dbL0A, dbL0B, dbL0C, ALayoutInfoB, ALayoutInfoS,
        ALayoutInfoN, ALayoutInfoG, ALayoutInfoD, BLayoutInfoB, BLayoutInfoS, BLayoutInfoN,
        BLayoutInfoG, BLayoutInfoD, CLayoutInfoB, CLayoutInfoS1, CLayoutInfoN, CLayoutInfoG,
        CLayoutInfoS2, BatchNum, mxTypePara;
};
}  // namespace tiling
}  // namespace AscendC
namespace matmul = AscendC;
using AscendC::tiling::TCubeTiling;

// Functions are never checked (bodies are skipped); these cover the few calls that can
// appear at file scope, e.g. in a constexpr variable's initializer.
namespace AscendC {
template <typename... Ts> constexpr int32_t GetBlockNum(Ts...) { return 1; }
template <typename... Ts> constexpr int32_t GetBlockIdx(Ts...) { return 0; }
template <typename T> constexpr T Min(T a, T b) { return a < b ? a : b; }
template <typename T> constexpr T Max(T a, T b) { return a > b ? a : b; }
}  // namespace AscendC

// The type traits the real kernel_operator.h brings in with <type_traits>, for the constexpr
// and template code whose bodies clang does parse. They live in their own namespace and are
// made visible in std through a using-directive, so a kernel that also includes the real
// <type_traits> (or <cmath>, ...) gets the real ones without a redefinition.
namespace opgen_frontend_std {
template <typename T, T V> struct integral_constant {
    static constexpr T value = V;
    using value_type = T;
    using type = integral_constant;
    constexpr operator T() const { return V; }
};
template <bool B> using bool_constant = integral_constant<bool, B>;
using true_type = bool_constant<true>;
using false_type = bool_constant<false>;
template <typename A, typename B> struct is_same : false_type {};
template <typename A> struct is_same<A, A> : true_type {};
template <typename A, typename B> inline constexpr bool is_same_v = is_same<A, B>::value;
template <typename T> struct remove_cv { using type = T; };
template <typename T> struct remove_cv<const T> { using type = T; };
template <typename T> struct remove_cv<volatile T> { using type = T; };
template <typename T> struct remove_cv<const volatile T> { using type = T; };
template <typename T> using remove_cv_t = typename remove_cv<T>::type;
template <typename T> struct remove_reference { using type = T; };
template <typename T> struct remove_reference<T&> { using type = T; };
template <typename T> struct remove_reference<T&&> { using type = T; };
template <typename T> using remove_reference_t = typename remove_reference<T>::type;
template <typename T> using decay_t = remove_cv_t<remove_reference_t<T>>;
template <typename T> using remove_cvref_t = remove_cv_t<remove_reference_t<T>>;
template <typename T, typename... Us> inline constexpr bool opgen_one_of_v =
    (is_same_v<remove_cv_t<T>, Us> || ...);
template <typename T> struct is_integral
    : bool_constant<opgen_one_of_v<T, bool, char, signed char, unsigned char, short,
                                   unsigned short, int, unsigned, long, unsigned long,
                                   long long, unsigned long long>> {};
template <typename T> inline constexpr bool is_integral_v = is_integral<T>::value;
template <typename T> struct is_floating_point
    : bool_constant<opgen_one_of_v<T, float, double, long double, half, bfloat16_t>> {};
template <typename T> inline constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <typename T> struct is_arithmetic
    : bool_constant<is_integral_v<T> || is_floating_point_v<T>> {};
template <typename T> inline constexpr bool is_arithmetic_v = is_arithmetic<T>::value;
template <typename T> struct is_signed : bool_constant<is_arithmetic_v<T> && T(-1) < T(0)> {};
template <typename T> inline constexpr bool is_signed_v = is_signed<T>::value;
template <typename T> struct is_unsigned
    : bool_constant<is_integral_v<T> && !(T(-1) < T(0))> {};
template <typename T> inline constexpr bool is_unsigned_v = is_unsigned<T>::value;
template <typename T> inline constexpr bool is_void_v = is_same_v<remove_cv_t<T>, void>;
template <bool B, typename T, typename F> struct conditional { using type = T; };
template <typename T, typename F> struct conditional<false, T, F> { using type = F; };
template <bool B, typename T, typename F> using conditional_t =
    typename conditional<B, T, F>::type;
template <bool B, typename T = void> struct enable_if {};
template <typename T> struct enable_if<true, T> { using type = T; };
template <bool B, typename T = void> using enable_if_t = typename enable_if<B, T>::type;
template <typename T> constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }
template <typename T> constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }
}  // namespace opgen_frontend_std

namespace std {
using namespace opgen_frontend_std;  // NOLINT: see above
}  // namespace std

// The advanced APIs' kernel tiling structs, which kernels keep as data members and parameters
// (CANN's kernel_operator.h exports them unqualified). Their fields are only read in bodies.
namespace AscendC {
namespace tiling {
struct PadTiling { uint32_t srcHeight, srcWidth, srcOriWidth; };
struct UnPadTiling { uint32_t srcHeight, srcWidth; };
}  // namespace tiling
}  // namespace AscendC
using AscendC::tiling::PadTiling;
using AscendC::tiling::UnPadTiling;
