// opgen host: the framework-neutral part of an op's description and of running it from C++.
//
// The TensorFlow and PyTorch glue (opgen_tf/sim_op.h, opgen_torch/sim_op.h) each define an
// OpDesc holding their own dtype types; the pieces below are what they share: attr and shape
// rule descriptions, attr values as the rules and the tiling policy read them, the shape rules
// evaluated on concrete shapes, and the tiling + launch of one call. Errors are returned as
// text ("" when fine), which each framework raises in its own way.
// Framework-neutral: no TensorFlow, no torch, no simulator headers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "opgen_host/sim_kernel.h"
#include "opgen_host/tiling_policy.h"

namespace opgen_host {

inline constexpr int64_t kGmAlign = 32;  // the simulator's GM alignment

// The bytes a device allocation of `nbytes` holds: CANN's aclrtMalloc rounds up to 32 bytes and
// adds 32 (opgen_runtime.launcher.gm_allocation; docs/simulator.md, "Global Memory buffers").
inline int64_t GmAllocation(int64_t nbytes) {
    return (nbytes + kGmAlign - 1) / kGmAlign * kGmAlign + kGmAlign;
}

// -- the op description the generated code fills in -----------------------------------------
enum class AttrKind { kInt, kFloat, kBool, kString, kType, kListInt, kListFloat, kListBool,
                      kListString };

struct AttrDesc {
    const char* name;
    const char* camel;
    AttrKind kind;
};

enum class RuleKind { kNone, kSameAs, kBroadcast, kReduce, kExplicit };

struct DimSpec {
    enum Kind { kLiteral, kAttr, kDimOf } kind;
    int64_t value;  // the literal, the attr index, or the dim index of dim(input, i)
    int input;      // kDimOf: the input index
};

struct ShapeRule {
    RuleKind kind = RuleKind::kNone;
    std::vector<int> inputs;       // same_as / broadcast / reduce: input indices
    std::vector<int64_t> axes;     // reduce: literal axes...
    int axis_attr = -1;            // ...or the index of an int / list_int attr
    bool keepdim = false;          // reduce: literal keepdim...
    int keepdim_attr = -1;         // ...or the index of a bool attr
    std::vector<DimSpec> dims;     // explicit
};

// -- attrs --------------------------------------------------------------------------------------
// An attr's value as the shape rules and the tiling policy use it. `value` points into `ints` /
// `floats` for lists, so an AttrValue is filled in place and never copied.
struct AttrValue {
    Value value;
    std::vector<int64_t> ints;
    std::vector<double> floats;
    bool known = true;  // false: a string attr (no tiling value)

    void SetInts(std::vector<int64_t> v) {
        ints = std::move(v);
        value = Value::Ints(ints.data(), static_cast<int32_t>(ints.size()));
    }
    void SetBools(std::vector<int64_t> v) {
        ints = std::move(v);
        value = Value::Bools(ints.data(), static_cast<int32_t>(ints.size()));
    }
    void SetFloats(std::vector<double> v) {
        floats = std::move(v);
        value = Value::Floats(floats.data(), static_cast<int32_t>(floats.size()));
    }
};

// -- output shapes ------------------------------------------------------------------------------
// One input's concrete shape; `present` false: an absent optional input.
struct ShapeRef {
    const int64_t* dims = nullptr;
    size_t rank = 0;
    bool present = false;
};

inline std::string ShapeText(const ShapeRef& s) {  // Python's tuple repr: (), (8,), (2, 8)
    std::string out = "(";
    for (size_t k = 0; k < s.rank; ++k) out += (k ? ", " : "") + std::to_string(s.dims[k]);
    return out + (s.rank == 1 ? ",)" : ")");
}

// The axes a reduce rule reduces (normalised against `rank`) and its keepdim; `attrs[i].value`
// is attr i's AttrValue::value. Returns "" or an error naming the bad axis.
template <typename Attrs>
std::string ReduceAxes(const ShapeRule& r, const Attrs& attrs, int64_t rank,
                       std::vector<bool>* reduced, bool* keepdim) {
    std::vector<int64_t> axes = r.axes;
    if (r.axis_attr >= 0) {
        const Value& v = attrs[static_cast<size_t>(r.axis_attr)].value;
        axes.clear();
        for (int32_t k = 0; k < v.size(); ++k) axes.push_back(v.At(k).i);
    }
    *keepdim = r.keepdim_attr >= 0 ? attrs[static_cast<size_t>(r.keepdim_attr)].value.i != 0
                                   : r.keepdim;
    reduced->assign(static_cast<size_t>(rank), false);
    for (int64_t a : axes) {
        if (rank == 0) continue;
        if (a < -rank || a >= rank) {
            return "axis " + std::to_string(a) + " is out of range for a rank-" +
                   std::to_string(rank) + " tensor";
        }
        (*reduced)[static_cast<size_t>((a % rank + rank) % rank)] = true;
    }
    return "";
}

// An output's shape from its rule on the inputs' concrete shapes `in` (`inputs[i].name` names
// input i in messages; `out` is a vector-like of int64_t). `name_shapes`: a broadcast error lists
// the input shapes. Returns "" or the error.
template <typename Inputs, typename Attrs, typename Dims>
std::string OutputDims(const ShapeRule& r, const Inputs& inputs, const ShapeRef* in,
                       const Attrs& attrs, bool name_shapes, Dims* out) {
    for (int i : r.inputs) {
        if (!in[i].present) {
            return std::string("an output's shape follows the absent optional input '") +
                   inputs[static_cast<size_t>(i)].name + "'";
        }
    }
    switch (r.kind) {
        case RuleKind::kSameAs: {
            const ShapeRef& s = in[r.inputs[0]];
            out->assign(s.dims, s.dims + s.rank);
            break;
        }
        case RuleKind::kBroadcast: {
            size_t rank = 0;
            for (int i : r.inputs) rank = std::max(rank, in[i].rank);
            out->assign(rank, 1);
            for (size_t k = 0; k < rank; ++k) {
                for (int i : r.inputs) {
                    const ShapeRef& s = in[i];
                    const int64_t j = static_cast<int64_t>(k) - static_cast<int64_t>(rank) +
                                      static_cast<int64_t>(s.rank);
                    const int64_t v = j >= 0 ? s.dims[j] : 1;
                    if (v == 1) continue;
                    if ((*out)[k] != 1 && (*out)[k] != v) {
                        // opgen_runtime.argcheck.check_broadcast's words
                        (void)name_shapes;
                        std::string listed;
                        for (size_t x = 0; x < r.inputs.size(); ++x) {
                            const int idx = r.inputs[x];
                            listed += std::string(x == 0 ? ""
                                                  : x + 1 == r.inputs.size() ? " and " : ", ") +
                                      "'" + inputs[static_cast<size_t>(idx)].name + "' " +
                                      ShapeText(in[idx]);
                        }
                        return "inputs " + listed + " do not broadcast";
                    }
                    (*out)[k] = v;
                }
            }
            break;
        }
        case RuleKind::kReduce: {
            const ShapeRef& s = in[r.inputs[0]];
            std::vector<bool> reduced;
            bool keep = false;
            std::string err =
                ReduceAxes(r, attrs, static_cast<int64_t>(s.rank), &reduced, &keep);
            if (!err.empty()) return err;
            out->clear();
            for (size_t k = 0; k < s.rank; ++k) {
                if (!reduced[k]) out->push_back(s.dims[k]);
                else if (keep) out->push_back(1);
            }
            break;
        }
        case RuleKind::kExplicit: {
            out->clear();
            for (const DimSpec& ds : r.dims) {
                if (ds.kind == DimSpec::kLiteral) {
                    out->push_back(ds.value);
                } else if (ds.kind == DimSpec::kAttr) {
                    out->push_back(attrs[static_cast<size_t>(ds.value)].value.i);
                } else {
                    const ShapeRef& s = in[ds.input];
                    const int64_t rank = static_cast<int64_t>(s.rank);
                    const int64_t k = ds.value < 0 ? ds.value + rank : ds.value;
                    if (k < 0 || k >= rank) return "dim() index out of range";
                    out->push_back(s.dims[k]);
                }
            }
            break;
        }
        case RuleKind::kNone:
            return "the op_host gives no shape for the output (it registers no InferShape, or its "
                   "InferShape does not set it; an aclnn caller passes the output): give the "
                   "output an `infer:` rule in the op's spec (docs/spec-reference.md, \"Shape "
                   "rules\"), e.g. `infer: same_as(x)` or `infer: \"[dim(x, 0), 1]\"`";
    }
    return "";
}

// -- one call -----------------------------------------------------------------------------------
// The GM arguments' names, joined by '\0', for the simulator's bounds messages.
template <typename Tensors>
std::string GmNames(const Tensors& inputs, const Tensors& outputs) {
    std::string s;
    for (const auto& t : inputs) s += std::string(t.name) + '\0';
    for (const auto& t : outputs) s += std::string(t.name) + '\0';
    return s + "workspace" + '\0' + "tiling" + '\0';
}

// What the tiling policy needs of an op, from its OpDesc.
struct TilingDesc {
    const char* tiling_struct;
    const std::vector<FieldDesc>& fields;
    size_t tiling_size;
};

// Fills the tiling struct with the default policy for the call's tensors `targs` (inputs then
// outputs, `n` of them) and attrs, then launches `kernel` on args[0..n) (args[n], the workspace,
// stays as it is; args[n + 1] becomes the tiling). Returns "" or the error: of the tiling when
// *tiling_failed, else of the launch, in block *block.
inline std::string TileAndLaunch(const SimKernel& kernel, const TilingDesc& d,
                                 const TensorArg* targs, int n, const AttrArg* attrs,
                                 int num_attrs, const SocProfile& soc, const char* names,
                                 uint8_t** args, int64_t* sizes, bool* tiling_failed,
                                 int32_t* block, const SimThreads& pool = {}) {
    alignas(64) uint8_t small[256];
    std::vector<uint8_t> large;
    uint8_t* tiling = small;
    if (d.tiling_size > sizeof small) {
        large.resize(d.tiling_size + 64);
        tiling = large.data() + (64 - reinterpret_cast<uintptr_t>(large.data()) % 64) % 64;
    }
    int64_t block_dim = 1;
    std::string err = DefaultTiling(d.tiling_struct, d.fields.data(),
                                    static_cast<int>(d.fields.size()), d.tiling_size, targs, n,
                                    attrs, num_attrs, soc, kAutoBlockDim, tiling, &block_dim);
    *tiling_failed = !err.empty();
    if (*tiling_failed) return err;
    args[n + 1] = tiling;
    sizes[n + 1] = static_cast<int64_t>(d.tiling_size);
    return LaunchSimKernel(kernel, n + 2, args, sizes, names, block_dim, soc.ub_bytes,
                           static_cast<int64_t>(d.tiling_size), block, pool);
}

}  // namespace opgen_host
