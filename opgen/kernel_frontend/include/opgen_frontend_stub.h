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
#define END_TILING_DATA_DEF }
#define REGISTER_TILING_DATA_CLASS(op, cls) using opgen_tiling_class_##op = cls;

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
template <typename... Ts> struct MatmulType {};
namespace Impl {}
}  // namespace AscendC

namespace matmul {
template <typename... Ts> class Matmul {};
template <typename... Ts> class MatmulImpl {};
}  // namespace matmul

// Functions are never checked (bodies are skipped); these cover the few calls that can
// appear at file scope, e.g. in a constexpr variable's initializer.
namespace AscendC {
template <typename... Ts> constexpr int32_t GetBlockNum(Ts...) { return 1; }
template <typename... Ts> constexpr int32_t GetBlockIdx(Ts...) { return 0; }
template <typename T> constexpr T Min(T a, T b) { return a < b ? a : b; }
template <typename T> constexpr T Max(T a, T b) { return a > b ? a : b; }
}  // namespace AscendC
