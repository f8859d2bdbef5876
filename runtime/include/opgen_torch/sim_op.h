// opgen PyTorch support: the CPU kernel every generated torch op registers from C++.
//
// A generated op (templates/python/torch/op.h.j2) is data: an OpDesc naming its tensors, attrs,
// shape rules, tiling struct and kernel variants. CpuKernel<&Desc> is a boxed dispatcher kernel
// that, per call, picks the kernel variant for the call's dtypes (the error names the spec's
// combinations, in the words of opgen_runtime.torch_support.OpSignature), infers the output
// shapes, allocates the outputs, fills the tiling struct with opgen_host's default policy and
// launches the simulator kernel. The autograd formula stays registered from Python
// (torch.library.register_autograd). See docs/pytorch.md, "The C++ kernel library".
#pragma once

#include <ATen/EmptyTensor.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/util/SmallVector.h>
#include <torch/library.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "opgen_host/sim_kernel.h"
#include "opgen_host/tiling_policy.h"

namespace opgen_torch {

inline constexpr int64_t kGmAlign = 32;  // the simulator's GM alignment

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

struct TensorDesc {
    const char* name;
    const char* camel;
    bool optional;                 // inputs: `Tensor?`
    int dtype_attr;                // outputs: the `type` attr giving its dtype (index), or -1
    int rank;                      // inputs: the declared rank; -1: any
    ShapeRule rule;                // outputs
};

struct Variant {
    std::vector<c10::ScalarType> dtypes;  // inputs then outputs
    const uint8_t* begin;                 // the kernel shared object, embedded in the library
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
};

// -- dtypes -------------------------------------------------------------------------------------
// torch's spelling without "torch." (opgen_runtime.torch_support.dtype_name).
inline const char* DtypeName(c10::ScalarType t) {
    switch (t) {
        case c10::ScalarType::Float: return "float32";
        case c10::ScalarType::Half: return "float16";
        case c10::ScalarType::BFloat16: return "bfloat16";
        case c10::ScalarType::Double: return "float64";
        case c10::ScalarType::Char: return "int8";
        case c10::ScalarType::Short: return "int16";
        case c10::ScalarType::Int: return "int32";
        case c10::ScalarType::Long: return "int64";
        case c10::ScalarType::Byte: return "uint8";
        case c10::ScalarType::UInt16: return "uint16";
        case c10::ScalarType::UInt32: return "uint32";
        case c10::ScalarType::UInt64: return "uint64";
        case c10::ScalarType::Bool: return "bool";
        default: return c10::toString(t);
    }
}

// ge::DataType code of a dtype: what a `type` attr carries in the tiling data.
inline int64_t GeCode(c10::ScalarType t) {
    switch (t) {
        case c10::ScalarType::Float: return 0;
        case c10::ScalarType::Half: return 1;
        case c10::ScalarType::Char: return 2;
        case c10::ScalarType::Int: return 3;
        case c10::ScalarType::Byte: return 4;
        case c10::ScalarType::Short: return 6;
        case c10::ScalarType::UInt16: return 7;
        case c10::ScalarType::UInt32: return 8;
        case c10::ScalarType::Long: return 9;
        case c10::ScalarType::UInt64: return 10;
        case c10::ScalarType::Double: return 11;
        case c10::ScalarType::Bool: return 12;
        case c10::ScalarType::BFloat16: return 27;
        default: return -1;
    }
}

// A call's argument error: a TypeError in Python, which the generated wrapper turns into the
// runtime's OpCallError (a TypeError too).
[[noreturn]] inline void CallError(const OpDesc& d, const std::string& message) {
    TORCH_CHECK_TYPE(false, d.qualname, ": ", message);
    __builtin_unreachable();
}

// -- attrs --------------------------------------------------------------------------------------
// An attr's value as the shape rules and the tiling policy use it.
struct AttrValueStore {
    opgen_host::Value value;
    std::vector<int64_t> ints;
    std::vector<double> floats;
    c10::ScalarType dtype = c10::ScalarType::Undefined;  // kType
    bool known = true;  // false: a string attr (no tiling value)
};

inline void ReadAttr(const c10::IValue& v, AttrKind kind, AttrValueStore* out) {
    using opgen_host::Value;
    switch (kind) {
        case AttrKind::kInt: out->value = Value::Int(v.toInt()); break;
        case AttrKind::kFloat: out->value = Value::Float(v.toDouble()); break;
        case AttrKind::kBool: out->value = Value::Bool(v.toBool()); break;
        case AttrKind::kType:
            out->dtype = v.toScalarType();
            out->value = Value::Int(GeCode(out->dtype));
            break;
        case AttrKind::kListInt:
            out->ints = v.toIntVector();
            out->value = Value::Ints(out->ints.data(), static_cast<int32_t>(out->ints.size()));
            break;
        case AttrKind::kListBool: {
            for (bool b : v.toBoolList()) out->ints.push_back(b ? 1 : 0);
            out->value = Value::Bools(out->ints.data(), static_cast<int32_t>(out->ints.size()));
            break;
        }
        case AttrKind::kListFloat:
            out->floats = v.toDoubleVector();
            out->value =
                Value::Floats(out->floats.data(), static_cast<int32_t>(out->floats.size()));
            break;
        default: out->known = false; break;
    }
}

// -- checks -------------------------------------------------------------------------------------
inline std::string ShapeText(c10::IntArrayRef s) {  // Python's tuple repr: (), (8,), (2, 8)
    std::string out = "(";
    for (size_t k = 0; k < s.size(); ++k) out += (k ? ", " : "") + std::to_string(s[k]);
    return out + (s.size() == 1 ? ",)" : ")");
}

// The column of the spec's dtype table this call selects; the error names every column.
inline size_t ResolveVariant(const OpDesc& d, const at::Tensor* const* in,
                             const AttrValueStore* attrs) {
    const size_t ni = d.inputs.size(), no = d.outputs.size();
    for (size_t i = 0; i < ni; ++i) {
        const TensorDesc& t = d.inputs[i];
        if (in[i] != nullptr && t.rank >= 0 && in[i]->dim() != t.rank) {
            CallError(d, std::string("input '") + t.name + "' must have rank " +
                             std::to_string(t.rank) + " (" + d.spec_path + "), got shape " +
                             ShapeText(in[i]->sizes()));
        }
    }
    for (size_t v = 0; v < d.variants.size(); ++v) {
        const Variant& var = d.variants[v];
        bool ok = true;
        for (size_t i = 0; i < ni && ok; ++i) {
            ok = in[i] == nullptr || in[i]->scalar_type() == var.dtypes[i];
        }
        for (size_t o = 0; o < no && ok; ++o) {
            const int a = d.outputs[o].dtype_attr;
            ok = a < 0 || attrs[a].dtype == var.dtypes[ni + o];
        }
        if (ok) return v;
    }
    std::string have, supported;
    for (size_t i = 0; i < ni; ++i) {
        if (in[i] == nullptr) continue;
        have += std::string(have.empty() ? "" : ", ") + d.inputs[i].name + "=" +
                DtypeName(in[i]->scalar_type());
    }
    for (size_t o = 0; o < no; ++o) {
        const int a = d.outputs[o].dtype_attr;
        if (a >= 0) have += std::string(", ") + d.attrs[a].name + "=" + DtypeName(attrs[a].dtype);
    }
    for (const Variant& var : d.variants) {
        supported += supported.empty() ? "" : "; ";
        for (size_t i = 0; i < ni + no; ++i) {
            const TensorDesc& t = i < ni ? d.inputs[i] : d.outputs[i - ni];
            supported += std::string(i == 0 ? "" : i == ni ? " -> " : ", ") + t.name + "=" +
                         DtypeName(var.dtypes[i]);
        }
    }
    CallError(d, "no supported dtype combination for (" + have + "); " + d.spec_path +
                     " supports: " + supported);
}

// -- output shapes ------------------------------------------------------------------------------
using Dims = c10::SmallVector<int64_t, 6>;

inline void ReduceAxes(const OpDesc& d, const ShapeRule& r, const AttrValueStore* attrs,
                       int64_t rank, std::vector<bool>* reduced, bool* keepdim) {
    std::vector<int64_t> axes = r.axes;
    if (r.axis_attr >= 0) {
        const opgen_host::Value& v = attrs[r.axis_attr].value;
        axes.clear();
        for (int32_t k = 0; k < v.size(); ++k) axes.push_back(v.At(k).i);
    }
    *keepdim = r.keepdim_attr >= 0 ? attrs[r.keepdim_attr].value.i != 0 : r.keepdim;
    reduced->assign(static_cast<size_t>(rank), false);
    for (int64_t a : axes) {
        if (rank == 0) continue;
        if (a < -rank || a >= rank) {
            CallError(d, "axis " + std::to_string(a) + " is out of range for a rank-" +
                             std::to_string(rank) + " tensor");
        }
        (*reduced)[static_cast<size_t>((a % rank + rank) % rank)] = true;
    }
}

inline void OutputDims(const OpDesc& d, const ShapeRule& r, const at::Tensor* const* in,
                       const AttrValueStore* attrs, Dims* out) {
    for (int i : r.inputs) {
        if (in[i] == nullptr) {
            CallError(d, std::string("an output's shape follows the absent optional input '") +
                             d.inputs[static_cast<size_t>(i)].name + "'");
        }
    }
    switch (r.kind) {
        case RuleKind::kSameAs: {
            const auto s = in[r.inputs[0]]->sizes();
            out->assign(s.begin(), s.end());
            break;
        }
        case RuleKind::kBroadcast: {
            size_t rank = 0;
            for (int i : r.inputs) rank = std::max(rank, in[i]->sizes().size());
            out->assign(rank, 1);
            for (size_t k = 0; k < rank; ++k) {
                for (int i : r.inputs) {
                    const auto s = in[i]->sizes();
                    const int64_t j = static_cast<int64_t>(k) - static_cast<int64_t>(rank) +
                                      static_cast<int64_t>(s.size());
                    const int64_t v = j >= 0 ? s[static_cast<size_t>(j)] : 1;
                    if (v == 1) continue;
                    if ((*out)[k] != 1 && (*out)[k] != v) {
                        std::string shapes;
                        for (int x : r.inputs) {
                            shapes += (shapes.empty() ? "" : ", ") + ShapeText(in[x]->sizes());
                        }
                        CallError(d, "the input shapes " + shapes + " do not broadcast");
                    }
                    (*out)[k] = v;
                }
            }
            break;
        }
        case RuleKind::kReduce: {
            const auto s = in[r.inputs[0]]->sizes();
            std::vector<bool> reduced;
            bool keep = false;
            ReduceAxes(d, r, attrs, static_cast<int64_t>(s.size()), &reduced, &keep);
            out->clear();
            for (size_t k = 0; k < s.size(); ++k) {
                if (!reduced[k]) out->push_back(s[k]);
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
                    out->push_back(attrs[ds.value].value.i);
                } else {
                    const auto s = in[ds.input]->sizes();
                    const int64_t rank = static_cast<int64_t>(s.size());
                    const int64_t k = ds.value < 0 ? ds.value + rank : ds.value;
                    if (k < 0 || k >= rank) CallError(d, "dim() index out of range");
                    out->push_back(s[static_cast<size_t>(k)]);
                }
            }
            break;
        }
        case RuleKind::kNone: CallError(d, "an output has no shape rule");
    }
}

// -- the CPU kernel -----------------------------------------------------------------------------
// The kernel variant of column `v`, loaded from the library's bytes on first use.
inline const opgen_host::SimKernel& LoadVariant(const OpDesc& d, size_t v) {
    thread_local const OpDesc* last_desc = nullptr;
    thread_local size_t last_variant = 0;
    thread_local opgen_host::SimKernel last;
    if (last_desc == &d && last_variant == v) return last;
    const Variant& var = d.variants[v];
    const std::string label = std::string(d.qualname) + "-variant-" + std::to_string(v);
    opgen_host::SimKernel k;
    const std::string err =
        opgen_host::LoadEmbeddedKernel(var.begin, var.end, label.c_str(), d.entry, &k);
    TORCH_CHECK(err.empty(), d.qualname, ": ", err);
    last_desc = &d;
    last_variant = v;
    last = k;
    return last;
}

// A tensor as a GM buffer: contiguous and 32-byte aligned (torch's CPU allocator aligns to 64;
// a view with a storage offset may not be), else an aligned contiguous copy.
inline at::Tensor AsGm(const at::Tensor& t) {
    if (t.is_contiguous() && reinterpret_cast<uintptr_t>(t.data_ptr()) % kGmAlign == 0) {
        return t;
    }
    at::Tensor c = at::detail::empty_cpu(t.sizes(), t.scalar_type(), false, std::nullopt);
    c.copy_(t);
    return c;
}

// The GM arguments' names, joined by '\0', for the simulator's bounds messages.
inline std::string GmNames(const OpDesc& d) {
    std::string s;
    for (const TensorDesc& t : d.inputs) s += std::string(t.name) + '\0';
    for (const TensorDesc& t : d.outputs) s += std::string(t.name) + '\0';
    return s + "workspace" + '\0' + "tiling" + '\0';
}

inline void RunCpu(const OpDesc& d, const std::string& names, torch::jit::Stack* stack) {
    const size_t ni = d.inputs.size(), no = d.outputs.size(), na = d.attrs.size();
    const size_t n = ni + no;
    TORCH_CHECK(n + 2 <= static_cast<size_t>(opgen_host::kSimMaxArgs), d.qualname,
                ": too many tensors for the simulator launch");
    auto args_in = torch::jit::last(*stack, ni + na);
    const at::Tensor* in[opgen_host::kSimMaxArgs] = {};
    for (size_t i = 0; i < ni; ++i) {
        if (!args_in[i].isNone()) in[i] = &args_in[i].toTensor();
    }
    c10::SmallVector<AttrValueStore, 4> attrs(na);
    c10::SmallVector<opgen_host::AttrArg, 4> policy_attrs;
    for (size_t k = 0; k < na; ++k) {
        ReadAttr(args_in[ni + k], d.attrs[k].kind, &attrs[k]);
        if (attrs[k].known) policy_attrs.push_back({d.attrs[k].name, d.attrs[k].camel,
                                                    attrs[k].value});
    }
    const size_t variant = ResolveVariant(d, in, attrs.data());
    const Variant& var = d.variants[variant];

    c10::SmallVector<at::Tensor, 8> gm(n);  // GM views of inputs, then the outputs
    c10::SmallVector<Dims, 8> dims(n);
    bool any = false;
    for (size_t o = 0; o < no; ++o) {
        OutputDims(d, d.outputs[o].rule, in, attrs.data(), &dims[ni + o]);
        gm[ni + o] = at::detail::empty_cpu(dims[ni + o], var.dtypes[ni + o], false, std::nullopt);
        any = any || gm[ni + o].numel() > 0;
    }
    if (any) {
        uint8_t* args[opgen_host::kSimMaxArgs] = {};
        int64_t sizes[opgen_host::kSimMaxArgs] = {};
        opgen_host::TensorArg targs[opgen_host::kSimMaxArgs];
        for (size_t i = 0; i < n; ++i) {
            const bool is_in = i < ni;
            const TensorDesc& t = is_in ? d.inputs[i] : d.outputs[i - ni];
            if (is_in && in[i] != nullptr) {
                gm[i] = AsGm(*in[i]);
                const auto s = in[i]->sizes();
                dims[i].assign(s.begin(), s.end());
            }
            const bool present = gm[i].defined();
            targs[i] = {t.camel, is_in, present,
                        static_cast<int64_t>(c10::elementSize(var.dtypes[i])), dims[i].data(),
                        static_cast<int32_t>(dims[i].size())};
            if (!present) continue;
            args[i] = static_cast<uint8_t*>(gm[i].data_ptr());
            sizes[i] = static_cast<int64_t>(gm[i].nbytes());
        }
        alignas(64) uint8_t small[256];
        std::vector<uint8_t> large;
        uint8_t* tiling = small;
        if (d.tiling_size > sizeof small) {
            large.resize(d.tiling_size + 64);
            tiling = large.data() + (64 - reinterpret_cast<uintptr_t>(large.data()) % 64) % 64;
        }
        static const opgen_host::SocProfile* const soc =
            opgen_host::FindSoc(opgen_host::kDefaultSoc);
        int64_t block_dim = 1;
        std::string err = opgen_host::DefaultTiling(
            d.tiling_struct, d.fields.data(), static_cast<int>(d.fields.size()), d.tiling_size,
            targs, static_cast<int>(n), policy_attrs.data(),
            static_cast<int>(policy_attrs.size()), *soc, opgen_host::kAutoBlockDim, tiling,
            &block_dim);
        TORCH_CHECK(err.empty(), d.qualname, ": ", err);
        args[n + 1] = tiling;
        sizes[n + 1] = static_cast<int64_t>(d.tiling_size);
        int32_t block = -1;
        err = opgen_host::LaunchSimKernel(LoadVariant(d, variant), static_cast<int32_t>(n + 2),
                                          args, sizes, names.data(), block_dim, soc->ub_bytes,
                                          static_cast<int64_t>(d.tiling_size), &block);
        TORCH_CHECK(err.empty(), d.qualname, ": kernel '", d.entry, "', block ", block, ": ",
                    err);
    }
    torch::jit::drop(*stack, ni + na);
    for (size_t o = 0; o < no; ++o) stack->emplace_back(std::move(gm[ni + o]));
}

template <const OpDesc& (*Desc)()>
void CpuKernelFn(const c10::OperatorHandle&, torch::jit::Stack* stack) {
    static const std::string names = GmNames(Desc());
    RunCpu(Desc(), names, stack);
}

template <const OpDesc& (*Desc)()>
torch::CppFunction CpuKernel() {
    return torch::CppFunction::makeFromBoxedFunction<&CpuKernelFn<Desc>>();
}

}  // namespace opgen_torch
