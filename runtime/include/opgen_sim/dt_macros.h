// opgen NPU simulator: the ge::DataType codes as preprocessor macros (DT_FLOAT, DT_FLOAT16, ...),
// which CANN's kernel build provides outside its NPU host/device compilations, so that a kernel
// can select code with `#if ORIG_DTYPE_X == DT_FLOAT16` (opgen's kernel build passes
// ORIG_DTYPE_<NAME>, the code of each tensor's dtype, beside DTYPE_<NAME>: opgen_runtime.dtypes).
//
// Host code spells the same names as enumerators (ge::DT_FLOAT in opgen_host/ge_types.h) and
// TensorFlow's headers have their own DT_FLOAT, so the macros exist only in kernel builds: not
// with OPGEN_OP_HOST (op_host libraries) nor with OPGEN_NO_DT_MACROS. The enums are declared
// before the macros appear, and their later #includes are skipped (#pragma once); simulator
// headers name the codes as C_DT_* (graph/c_types.h) or numbers, never as ge::DT_*.
#pragma once

#if !defined(OPGEN_OP_HOST) && !defined(OPGEN_NO_DT_MACROS) && !defined(DT_FLOAT)
#include "../graph/c_types.h"

#define DT_FLOAT 0
#define DT_FLOAT16 1
#define DT_INT8 2
#define DT_INT32 3
#define DT_UINT8 4
#define DT_INT16 6
#define DT_UINT16 7
#define DT_UINT32 8
#define DT_INT64 9
#define DT_UINT64 10
#define DT_DOUBLE 11
#define DT_BOOL 12
#define DT_STRING 13
#define DT_DUAL_SUB_INT8 14
#define DT_DUAL_SUB_UINT8 15
#define DT_COMPLEX64 16
#define DT_COMPLEX128 17
#define DT_QINT8 18
#define DT_QINT16 19
#define DT_QINT32 20
#define DT_QUINT8 21
#define DT_QUINT16 22
#define DT_RESOURCE 23
#define DT_STRING_REF 24
#define DT_DUAL 25
#define DT_VARIANT 26
#define DT_BF16 27
#define DT_UNDEFINED 28
#define DT_INT4 29
#define DT_UINT1 30
#define DT_INT2 31
#define DT_UINT2 32
#define DT_COMPLEX32 33

// The macros and the host enumeration must agree.
static_assert(DT_FLOAT16 == C_DT_FLOAT16 && DT_BF16 == C_DT_BF16 && DT_COMPLEX32 == C_DT_COMPLEX32,
              "opgen_sim/dt_macros.h: DT_* codes differ from ge::DataType");
#endif
