// opgen PyTorch support: what a generated op library's translation unit holds, without torch's
// headers. A generated op (templates/python/torch/op.h.j2) is data: an OpDesc naming its tensors,
// attrs, shape rules, tiling struct and kernel variants, and a CpuKernels object whose
// construction (when the library loads) registers the op's CPU kernel with torch's dispatcher.
// Everything that touches torch (the registration, the kernel that checks a call, allocates its
// outputs, tiles and launches) is in the support object (sim_op.h, OPGEN_TORCH_SUPPORT_UNIT),
// compiled once per torch version: the library's own unit compiles in a fraction of a second
// (docs/pytorch.md, "The C++ kernel library").
#pragma once

#include <cstdint>
#include <vector>

#include "opgen_host/arg_check.h"
#include "opgen_host/host_client.h"
#include "opgen_host/op_desc.h"

namespace opgen_torch {

using ::opgen_host::AttrDesc;
using ::opgen_host::AttrKind;
using ::opgen_host::ShapeRule;

// A tensor's dtype as torch numbers it (c10::ScalarType's enumerators; sim_op.h checks each
// value against torch's at compile time).
enum class Dtype : int8_t {
    Byte = 0, Char = 1, Short = 2, Int = 3, Long = 4, Half = 5, Float = 6, Double = 7,
    Bool = 11, BFloat16 = 15, UInt16 = 27, UInt32 = 28, UInt64 = 29,
};

// -- the op description the generated code fills in -----------------------------------------
// (attrs and shape rules: opgen_host/op_desc.h)
struct TensorDesc {
    const char* name;
    const char* camel;
    bool optional;                 // inputs: `Tensor?`
    int dtype_attr;                // outputs: the `type` attr giving its dtype (index), or -1
    int rank;                      // inputs: the declared rank; -1: any
    ShapeRule rule;                // outputs
};

struct Variant {
    std::vector<Dtype> dtypes;     // inputs then outputs
    const uint8_t* begin;          // the kernel shared object, embedded in the library
    const uint8_t* end;
};

struct OpDesc {
    const char* qualname;          // namespace::op, for messages
    const char* spec_path;
    const char* entry;             // the kernel's extern "C" entry
    const char* tiling_struct;
    std::vector<TensorDesc> inputs;
    std::vector<TensorDesc> outputs;
    std::vector<AttrDesc> attrs;
    std::vector<opgen_host::FieldDesc> fields;
    size_t tiling_size;
    std::vector<Variant> variants;
    opgen_host::ArgChecks checks;  // declared shapes, attr ranges, constraints (arg_check.h)
    opgen_host::HostImage host = {};  // the op's own op_host, when it tiles itself
};

// The op's CPU kernel, registered for `<ns>::<op>` (whose schema the Python module defines) and
// for `<cpu_ns>::<op>` (defined here with `schema`: the same kernel with no autograd formula,
// which the Python wrapper calls when no input needs a gradient). The registrations last as long
// as the object: a static object of the library, as TORCH_LIBRARY_IMPL's are.
class CpuKernels {
public:
    CpuKernels(const char* ns, const char* cpu_ns, const char* op, const char* schema,
               const OpDesc& (*desc)(), const char* file, uint32_t line);
    ~CpuKernels();
    CpuKernels(const CpuKernels&) = delete;
    CpuKernels& operator=(const CpuKernels&) = delete;

private:
    struct Libraries;
    Libraries* libraries_;
};

}  // namespace opgen_torch
