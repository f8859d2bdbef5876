// opgen TensorFlow support: what a generated op library's translation unit holds, without
// TensorFlow's headers. A generated op (templates/python/tf/op.h.j2) is data: an OpDesc naming its
// tensors, attrs, shape rules, tiling struct and kernel variants, the lines of its op definition
// (REGISTER_OP's Input/Output/Attr), and a Registration object whose construction (when the library
// loads, as REGISTER_OP's and REGISTER_KERNEL_BUILDER's static objects do) registers the op, its
// shape function and its CPU kernel. Everything that touches TensorFlow is in the support object
// (sim_op.h, OPGEN_TF_SUPPORT_UNIT), compiled once per TensorFlow version: the library's own unit
// compiles in a fraction of a second (docs/tensorflow.md).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "opgen_host/arg_check.h"
#include "opgen_host/host_client.h"
#include "opgen_host/op_desc.h"

namespace opgen_tf {

using ::opgen_host::AttrDesc;
using ::opgen_host::AttrKind;
using ::opgen_host::DimSpec;
using ::opgen_host::RuleKind;
using ::opgen_host::ShapeRule;

// A tensor's dtype as TensorFlow numbers it (tensorflow::DataType's enumerators; sim_op.h checks
// each value against TensorFlow's at compile time).
enum class Dtype : int8_t {
    DT_FLOAT = 1, DT_DOUBLE = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 5, DT_INT8 = 6,
    DT_INT64 = 9, DT_BOOL = 10, DT_BFLOAT16 = 14, DT_UINT16 = 17, DT_HALF = 19, DT_UINT32 = 22,
    DT_UINT64 = 23,
};

// -- the op description the generated code fills in -----------------------------------------
// (attrs and shape rules: opgen_host/op_desc.h)
struct TensorDesc {
    const char* name;
    const char* camel;
    bool optional;                 // inputs: a list input of 0 or 1 tensors
    const char* count_attr;        // optional inputs: the list length attr (N_<name>)
    const char* dtype_attr;        // the TF type attr giving its dtype; nullptr: fixed
    int rank;                      // declared rank; -1: any
    std::vector<int64_t> dims;     // declared dims (-1: any), when the rank is declared
    ShapeRule rule;                // outputs
};

struct Variant {
    std::vector<Dtype> dtypes;     // inputs then outputs
    const uint8_t* begin;          // the kernel shared object, embedded in the op library
    const uint8_t* end;
};

struct OpDesc {
    const char* op_name;           // snake_case spec name, for messages
    const char* entry;             // the kernel's extern "C" entry
    const char* tiling_struct;
    std::vector<TensorDesc> inputs;
    std::vector<TensorDesc> outputs;
    std::vector<AttrDesc> attrs;
    std::vector<opgen_host::FieldDesc> fields;
    size_t tiling_size;
    std::vector<Variant> variants;
    const char* tiling_hook;       // non-null: the spec tiles with a Python hook
    opgen_host::ArgChecks checks;  // declared shapes, attr ranges, constraints (arg_check.h)
    opgen_host::HostImage host = {};  // the op's own op_host, when it tiles itself
};

// One line of the op's definition: REGISTER_OP("<type>").Input("x: T").Attr("T: {float}")...
struct OpLine {
    enum Kind { kInput, kOutput, kAttr };
    Kind kind;
    const char* text;
};

// Registers the op type `op_type` (its definition, `InferShapes` as its shape function) and its
// CPU kernel (SimOpBase over `desc()`), once, when constructed: a static object of the library.
class Registration {
public:
    Registration(const char* op_type, std::initializer_list<OpLine> lines,
                 const OpDesc& (*desc)());
};

}  // namespace opgen_tf

// The TensorFlow version the library was compiled against, found by opgen_runtime.tf_support
// in the file's bytes before it is loaded (a mismatched library is refused with a clear error).
// The pip headers do not define the version macros; tf_support passes -DOPGEN_TF_VERSION.
#ifndef OPGEN_TF_VERSION
#error "compile with -DOPGEN_TF_VERSION=\"<tf.__version__>\" (opgen_runtime.tf_support does)"
#endif
#define OPGEN_TF_VERSION_MARKER(package)                                      \
    extern "C" __attribute__((visibility("default"), used)) const char        \
        opgen_tf_built_against[] =                                            \
            "opgen-tf-library:" package ":tensorflow=" OPGEN_TF_VERSION ";"
