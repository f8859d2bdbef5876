// opgen aclnn: the CPU implementation behind every generated aclnn<Op>GetWorkspaceSize /
// aclnn<Op> pair of libcust_opapi.so (docs/cann.md, "aclnn drivers").
//
// A generated op (templates/op_api/op.h.j2) is data: an OpDesc naming its tensors, attrs, tiling
// struct, kernel variants and op_host, plus the two extern "C" functions with the signatures of
// the op's generated aclnn header, which forward here. The first phase checks the tensors, picks
// the kernel variant by the tensors' dtypes and runs the tiling (the op's own TilingFunc, else
// opgen_host's default policy) on their shapes and the attrs; it returns the workspace size the
// tiling asked for and an executor holding the decision. The second phase launches the kernel on
// the simulator over the tensors' device memory, the caller's workspace and that tiling.
// Errors are CANN's aclnn codes with a message (stderr and aclGetRecentErrMsg); nothing throws
// across the C API.
#pragma once

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "opgen_host/host_client.h"
#include "opgen_aclnn/tensor_list.h"
#include "opgen_host/op_desc.h"
#include "opgen_sim/gm_registry.h"

namespace opgen_aclnn {

using ::opgen_host::AttrDesc;
using ::opgen_host::AttrKind;

// -- the op description the generated code fills in -----------------------------------------
struct TensorDesc {
    const char* name;   // the spec's name, for messages
    const char* param;  // the aclnn parameter it arrives in
    bool optional;
    int rank;  // the declared rank; -1: any
    bool dynamic = false;  // an aclTensorList (CANN's DYNAMIC input)
};

struct Variant {
    std::vector<aclDataType> dtypes;  // inputs then outputs
    const uint8_t* begin;             // the kernel shared object, embedded in the library
    const uint8_t* end;
};

struct OpDesc {
    const char* op_type;
    const char* workspace_fn;  // aclnn<Op>GetWorkspaceSize, for messages
    const char* run_fn;        // aclnn<Op>
    const char* spec_path;
    const char* entry;  // the kernel's extern "C" entry
    const char* tiling_struct;
    std::vector<TensorDesc> inputs;
    std::vector<TensorDesc> outputs;
    std::vector<AttrDesc> attrs;
    std::vector<opgen_host::FieldDesc> fields;
    size_t tiling_size;
    std::vector<Variant> variants;
    opgen_host::HostImage host = {};  // the op's own op_host, when it tiles itself
    const char* unsupported = nullptr;  // why this op has no CPU aclnn implementation
};

// One attr argument as the caller passed it (the generated function fills one per attr).
struct AttrIn {
    int64_t i = 0;
    double f = 0.0;
    const char* s = nullptr;
    const aclIntArray* ints = nullptr;
    const aclFloatArray* floats = nullptr;
    const aclBoolArray* bools = nullptr;

    static AttrIn Int(int64_t v) { AttrIn a; a.i = v; return a; }
    static AttrIn Float(double v) { AttrIn a; a.f = v; return a; }
    static AttrIn Bool(bool v) { AttrIn a; a.i = v ? 1 : 0; return a; }
    static AttrIn String(const char* v) { AttrIn a; a.s = v; return a; }
    static AttrIn Ints(const aclIntArray* v) { AttrIn a; a.ints = v; return a; }
    static AttrIn Floats(const aclFloatArray* v) { AttrIn a; a.floats = v; return a; }
    static AttrIn Bools(const aclBoolArray* v) { AttrIn a; a.bools = v; return a; }
    static AttrIn Strings(const aclStringArray*) { return AttrIn(); }
};

// -- dtypes -------------------------------------------------------------------------------------
// The spec's spelling (opgen.dtypes), for messages.
inline const char* DtypeName(aclDataType t) {
    switch (t) {
        case ACL_FLOAT: return "float32";
        case ACL_FLOAT16: return "float16";
        case ACL_BF16: return "bfloat16";
        case ACL_DOUBLE: return "float64";
        case ACL_INT8: return "int8";
        case ACL_INT16: return "int16";
        case ACL_INT32: return "int32";
        case ACL_INT64: return "int64";
        case ACL_UINT8: return "uint8";
        case ACL_UINT16: return "uint16";
        case ACL_UINT32: return "uint32";
        case ACL_UINT64: return "uint64";
        case ACL_BOOL: return "bool";
        default: return "an unsupported dtype";
    }
}

// -- the executor ---------------------------------------------------------------------------------
// One prepared call: the variant, the GM arguments and the tiling decision.
struct Executor : aclOpExecutor {
    const OpDesc* desc = nullptr;
    size_t variant = 0;
    std::vector<uint8_t*> data;  // inputs then outputs (nullptr: an absent optional input)
    std::vector<int64_t> bytes;  // the bytes each tensor's storage covers
    std::vector<std::vector<const aclTensor*>> lists;  // per input: a dynamic one's tensors
    opgen_host::HostDecision decision;
};

namespace detail {

inline std::string ShapeText(const aclTensor* t) {
    return opgen_host::ShapeText({t->view_dims, static_cast<size_t>(t->view_rank), true});
}

// A live tensor whose view is its whole storage, dense: what a kernel reading GM by offsets
// expects. Returns "" or what is wrong.
inline std::string CheckTensor(const aclTensor* t, const char* param) {
    const std::string p = std::string("'") + param + "'";
    if (t->tag != kTensorTag) return p + " is not a live aclTensor (destroyed already?)";
    if (aclDataTypeSize(t->dtype) == 0) return p + " has an unknown data type";
    int64_t step = 1;
    for (uint64_t k = t->view_rank; k-- > 0;) {
        if (t->view_dims[k] != 1 && t->strides[k] != step) {
            return p + " is a non-contiguous view (strides); the simulated kernel reads its "
                       "storage densely: pass a contiguous tensor";
        }
        step *= t->view_dims[k];
    }
    return "";
}

inline int64_t Elements(const aclTensor* t) {
    int64_t n = 1;
    for (uint64_t k = 0; k < t->view_rank; ++k) n *= t->view_dims[k];
    return n;
}

// The column of the spec's dtype table this call selects; the error names every column.
inline bool ResolveVariant(const OpDesc& d, const aclTensor* const* tensors, size_t* out,
                           std::string* err) {
    const size_t ni = d.inputs.size(), n = ni + d.outputs.size();
    for (size_t v = 0; v < d.variants.size(); ++v) {
        bool ok = true;
        for (size_t i = 0; i < n && ok; ++i) {
            ok = tensors[i] == nullptr || tensors[i]->dtype == d.variants[v].dtypes[i];
        }
        if (ok) {
            *out = v;
            return true;
        }
    }
    std::string have, supported;
    for (size_t i = 0; i < n; ++i) {
        if (tensors[i] == nullptr) continue;
        const TensorDesc& t = i < ni ? d.inputs[i] : d.outputs[i - ni];
        have += std::string(have.empty() ? "" : ", ") + t.name + "=" + DtypeName(tensors[i]->dtype);
    }
    for (const Variant& var : d.variants) {
        supported += supported.empty() ? "" : "; ";
        for (size_t i = 0; i < n; ++i) {
            const TensorDesc& t = i < ni ? d.inputs[i] : d.outputs[i - ni];
            supported += std::string(i == 0 ? "" : i == ni ? " -> " : ", ") + t.name + "=" +
                         DtypeName(var.dtypes[i]);
        }
    }
    *err = "no supported dtype combination for (" + have + "); " + d.spec_path +
           " supports: " + supported;
    return false;
}

// An attr as the tiling policy and the op_host read it.
inline void ReadAttr(AttrKind kind, const AttrIn& in, opgen_host::AttrValue* out) {
    using opgen_host::Value;
    switch (kind) {
        case AttrKind::kInt: case AttrKind::kType: out->value = Value::Int(in.i); break;
        case AttrKind::kFloat: out->value = Value::Float(in.f); break;
        case AttrKind::kBool: out->value = Value::Bool(in.i != 0); break;
        case AttrKind::kListInt:
            out->SetInts(in.ints ? std::vector<int64_t>(in.ints->values,
                                                        in.ints->values + in.ints->size)
                                 : std::vector<int64_t>());
            break;
        case AttrKind::kListFloat: {
            std::vector<double> v;
            if (in.floats) v.assign(in.floats->values, in.floats->values + in.floats->size);
            out->SetFloats(std::move(v));
            break;
        }
        case AttrKind::kListBool: {
            std::vector<int64_t> v;
            if (in.bools) {
                for (uint64_t k = 0; k < in.bools->size; ++k) v.push_back(in.bools->values[k]);
            }
            out->SetBools(std::move(v));
            break;
        }
        default: out->known = false; break;  // strings: no tiling value
    }
}

inline const opgen_host::SocProfile& Soc() {
    static const opgen_host::SocProfile* const soc = opgen_host::FindSoc(opgen_host::kDefaultSoc);
    return *soc;
}

// The tiling of one call: the op's TilingFunc when it has an op_host, else the default policy.
inline aclnnStatus Tile(const OpDesc& d, const Executor& e, const aclTensor* const* tensors,
                        const AttrIn* attrs_in, opgen_host::HostDecision* out, std::string* err) {
    const size_t ni = d.inputs.size(), no = d.outputs.size(), n = ni + no;
    std::vector<opgen_host::AttrValue> attrs(d.attrs.size());
    for (size_t k = 0; k < d.attrs.size(); ++k) ReadAttr(d.attrs[k].kind, attrs_in[k], &attrs[k]);
    const Variant& var = d.variants[e.variant];
    if (d.host.begin != nullptr) {
        std::vector<opgen_host::HostAttr> host_attrs;
        for (size_t k = 0; k < d.attrs.size(); ++k) {
            const char* s = attrs_in[k].s;
            host_attrs.push_back(opgen_host::ToHostAttr(d.attrs[k].kind, attrs[k],
                                                        s != nullptr ? s : ""));
        }
        // every instance of every input (a list input's tensors in order), then the outputs
        std::vector<opgen_host::HostArg> args;
        std::vector<int32_t> counts(ni);
        for (size_t i = 0; i < ni; ++i) {
            const int32_t dt = static_cast<int32_t>(var.dtypes[i]);
            if (d.inputs[i].dynamic) {
                for (const aclTensor* t : e.lists[i]) {
                    args.push_back({dt, t->view_dims, static_cast<int32_t>(t->view_rank), true});
                }
                counts[i] = static_cast<int32_t>(e.lists[i].size());
            } else if (tensors[i] != nullptr) {
                const aclTensor* t = tensors[i];
                args.push_back({dt, t->view_dims, static_cast<int32_t>(t->view_rank), true});
                counts[i] = 1;
            }
        }
        const size_t nin = args.size();
        for (size_t i = ni; i < n; ++i) {
            const aclTensor* t = tensors[i];
            args.push_back({static_cast<int32_t>(var.dtypes[i]), t ? t->view_dims : nullptr,
                            t ? static_cast<int32_t>(t->view_rank) : 0, t != nullptr});
        }
        *err = opgen_host::HostTiling(d.host, args.data(), static_cast<int>(ni),
                                      args.data() + nin, static_cast<int>(no), host_attrs, Soc(),
                                      out, counts.data());
        if (!err->empty()) *err = std::string(d.op_type) + ": " + *err;
        return err->empty() ? ACLNN_SUCCESS : ACLNN_ERR_INNER_TILING_ERROR;
    }
    std::vector<opgen_host::TensorArg> targs(n);
    for (size_t i = 0; i < n; ++i) {
        const aclTensor* t = tensors[i];
        const TensorDesc& td = i < ni ? d.inputs[i] : d.outputs[i - ni];
        targs[i] = {td.param, i < ni, t != nullptr,
                    static_cast<int64_t>(aclDataTypeSize(var.dtypes[i])),
                    t ? t->view_dims : nullptr, t ? static_cast<int32_t>(t->view_rank) : 0};
    }
    std::vector<opgen_host::AttrArg> policy_attrs;
    for (size_t k = 0; k < d.attrs.size(); ++k) {
        if (attrs[k].known) policy_attrs.push_back({d.attrs[k].name, d.attrs[k].camel,
                                                    attrs[k].value});
    }
    out->tiling.assign(d.tiling_size, 0);
    int64_t block_dim = 1;
    *err = opgen_host::DefaultTiling(d.tiling_struct, d.fields.data(),
                                     static_cast<int>(d.fields.size()), d.tiling_size,
                                     targs.data(), static_cast<int>(n), policy_attrs.data(),
                                     static_cast<int>(policy_attrs.size()), Soc(),
                                     opgen_host::kAutoBlockDim, out->tiling.data(), &block_dim);
    if (!err->empty()) {
        *err = std::string(d.op_type) + ": " + *err;
        return ACLNN_ERR_INNER_TILING_ERROR;
    }
    out->block_dim = block_dim;
    out->tiling_key = 0;
    out->workspace = 0;
    return ACLNN_SUCCESS;
}

}  // namespace detail

// -- the two phases ---------------------------------------------------------------------------------
// `tensors`: the inputs then the outputs, as the caller passed them (nullptr in a dynamic
// input's place); `lists`: one per input, a dynamic input's aclTensorList (null for an op
// without one); `attrs`: one per attr.
inline aclnnStatus GetWorkspaceSize(const OpDesc& d, const aclTensor* const* tensors_in,
                                    const aclTensorList* const* lists, const AttrIn* attrs,
                                    uint64_t* workspace_size, aclOpExecutor** executor) {
    const std::string fn = d.workspace_fn;
    if (d.unsupported != nullptr) {
        return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, fn + ": " + d.unsupported);
    }
    if (workspace_size == nullptr || executor == nullptr) {
        return Fail(ACLNN_ERR_PARAM_NULLPTR, fn + ": workspaceSize and executor must not be null");
    }
    *executor = nullptr;
    const size_t ni = d.inputs.size(), n = ni + d.outputs.size();
    // a list input stands in the checks below as its first tensor, and each of its tensors is
    // checked as that one is
    std::vector<const aclTensor*> tensors(tensors_in, tensors_in + n);
    std::vector<std::vector<const aclTensor*>> instances(ni);
    for (size_t i = 0; i < ni; ++i) {
        const TensorDesc& t = d.inputs[i];
        if (!t.dynamic) continue;
        const aclTensorList* l = lists != nullptr ? lists[i] : nullptr;
        if (l == nullptr) {
            return Fail(ACLNN_ERR_PARAM_NULLPTR, fn + ": '" + t.param + "' (input '" + t.name +
                                                     "') must not be null");
        }
        if (l->tag != kArrayTag || l->size == 0) {
            return Fail(ACLNN_ERR_PARAM_INVALID,
                        fn + ": '" + t.param + "' is not a live, non-empty aclTensorList");
        }
        for (uint64_t k = 0; k < l->size; ++k) {
            const aclTensor* x = l->tensors[k];
            const std::string what = std::string(t.param) + "[" + std::to_string(k) + "]";
            std::string err = x == nullptr ? "'" + what + "' is null"
                                           : detail::CheckTensor(x, what.c_str());
            if (err.empty() && x->dtype != l->tensors[0]->dtype) {
                err = "the tensors of '" + std::string(t.param) + "' must share one dtype: '" +
                      what + "' is " + DtypeName(x->dtype) + ", the first " +
                      DtypeName(l->tensors[0]->dtype);
            }
            if (err.empty() && x->view_rank != l->tensors[0]->view_rank) {
                err = "the tensors of '" + std::string(t.param) + "' must share one rank "
                      "(CANN's ListTensorDesc describes them with the first one's): '" + what +
                      "' has shape " + detail::ShapeText(x);
            }
            if (!err.empty()) return Fail(ACLNN_ERR_PARAM_INVALID, fn + ": " + err);
            instances[i].push_back(x);
        }
        tensors[i] = instances[i][0];
    }
    for (size_t i = 0; i < n; ++i) {
        const TensorDesc& t = i < ni ? d.inputs[i] : d.outputs[i - ni];
        if (tensors[i] == nullptr) {
            if (t.optional) continue;
            return Fail(ACLNN_ERR_PARAM_NULLPTR, fn + ": '" + t.param + "' (" +
                                                     (i < ni ? "input '" : "output '") + t.name +
                                                     "') must not be null");
        }
        std::string err = detail::CheckTensor(tensors[i], t.param);
        if (err.empty() && t.rank >= 0 && static_cast<int>(tensors[i]->view_rank) != t.rank) {
            err = std::string("'") + t.param + "' must have rank " + std::to_string(t.rank) +
                  " (" + d.spec_path + "), got shape " + detail::ShapeText(tensors[i]);
        }
        if (!err.empty()) return Fail(ACLNN_ERR_PARAM_INVALID, fn + ": " + err);
    }
    Executor* e = new Executor;
    e->desc = &d;
    e->lists = std::move(instances);
    std::string err;
    if (!detail::ResolveVariant(d, tensors.data(), &e->variant, &err)) {
        delete e;
        return Fail(ACLNN_ERR_PARAM_INVALID, fn + ": " + err);
    }
    aclnnStatus status;
    try {
        status = detail::Tile(d, *e, tensors.data(), attrs, &e->decision, &err);
    } catch (const std::exception& ex) {
        status = ACLNN_ERR_INNER;
        err = ex.what();
    }
    if (status != ACLNN_SUCCESS) {
        delete e;
        return Fail(status, fn + ": " + err);
    }
    for (size_t i = 0; i < n; ++i) {
        const aclTensor* t = tensors[i];
        const int64_t itemsize = t ? static_cast<int64_t>(aclDataTypeSize(t->dtype)) : 0;
        e->data.push_back(t ? static_cast<uint8_t*>(t->data) + t->offset * itemsize : nullptr);
        e->bytes.push_back(t ? detail::Elements(t) * itemsize : 0);
    }
    *workspace_size = static_cast<uint64_t>(e->decision.workspace);
    *executor = e;
    return ACLNN_SUCCESS;
}

namespace detail {

// The bytes a kernel may touch from `p` on: to the end of its aclrtMalloc allocation (the
// hardware faults only outside allocations). Returns "" or why `p` is no device buffer of
// `need` bytes.
inline std::string DeviceBytes(const uint8_t* p, int64_t need, const char* what,
                               int64_t* usable) {
    opgen_sim::GmBlock b;
    if (!opgen_sim::GmFind(p, &b)) {
        return std::string(what) + " is not device memory: allocate it with aclrtMalloc";
    }
    *usable = static_cast<int64_t>(b.ptr + b.size - p);
    if (*usable < need) {
        return std::string(what) + " needs " + std::to_string(need) + " bytes, its buffer " +
               opgen_sim::GmBlockName(b) + " holds " + std::to_string(*usable) + " from there";
    }
    return "";
}

inline aclnnStatus Launch(const Executor& e, void* workspace, uint64_t workspace_size,
                          std::string* err) {
    const OpDesc& d = *e.desc;
    const size_t ni = d.inputs.size(), n = ni + d.outputs.size();
    if (n + 2 > static_cast<size_t>(opgen_host::kSimMaxArgs)) {
        *err = "too many tensors for the simulator launch";
        return ACLNN_ERR_INNER;
    }
    uint8_t* args[opgen_host::kSimMaxArgs] = {};
    int64_t sizes[opgen_host::kSimMaxArgs] = {};
    std::vector<std::vector<uint8_t>> packed(ni);  // the list inputs' GM buffers, for the launch
    for (size_t i = 0; i < ni; ++i) {
        if (!d.inputs[i].dynamic) continue;
        std::vector<ListInstance> list;
        for (size_t k = 0; k < e.lists[i].size(); ++k) {
            const aclTensor* t = e.lists[i][k];
            const int64_t itemsize = static_cast<int64_t>(aclDataTypeSize(t->dtype));
            const uint8_t* p = static_cast<const uint8_t*>(t->data) + t->offset * itemsize;
            const std::string what = std::string("the data of '") + d.inputs[i].param + "[" +
                                      std::to_string(k) + "]'";
            int64_t usable = 0;
            *err = DeviceBytes(p, Elements(t) * itemsize, what.c_str(), &usable);
            if (!err->empty()) return ACLNN_ERR_PARAM_INVALID;
            list.push_back({p, Elements(t) * itemsize, t->view_dims,
                            static_cast<int32_t>(t->view_rank)});
        }
        args[i] = PackTensorList(list, &packed[i], &sizes[i], err);
        if (args[i] == nullptr) return ACLNN_ERR_PARAM_INVALID;
    }
    for (size_t i = 0; i < n; ++i) {
        if (e.data[i] == nullptr || (i < ni && d.inputs[i].dynamic)) continue;
        const TensorDesc& t = i < ni ? d.inputs[i] : d.outputs[i - ni];
        const std::string what = std::string("the data of '") + t.param + "'";
        *err = DeviceBytes(e.data[i], e.bytes[i], what.c_str(), &sizes[i]);
        if (!err->empty()) return ACLNN_ERR_PARAM_INVALID;
        args[i] = e.data[i];
    }
    const int64_t need = e.decision.workspace;
    if (need > 0) {
        if (workspace == nullptr || workspace_size < static_cast<uint64_t>(need)) {
            *err = "the TilingFunc asked for a workspace of " + std::to_string(need) +
                   " bytes; got " + (workspace == nullptr ? std::string("none")
                                                           : std::to_string(workspace_size));
            return ACLNN_ERR_PARAM_INVALID;
        }
        *err = DeviceBytes(static_cast<uint8_t*>(workspace), need, "the workspace",
                           &sizes[n]);
        if (!err->empty()) return ACLNN_ERR_PARAM_INVALID;
        args[n] = static_cast<uint8_t*>(workspace);
        sizes[n] = need;
    }
    const Variant& var = d.variants[e.variant];
    const std::string label = std::string(d.op_type) + "-variant-" + std::to_string(e.variant);
    opgen_host::SimKernel kernel;
    *err = opgen_host::LoadEmbeddedKernel(var.begin, var.end, label.c_str(), d.entry, &kernel);
    if (!err->empty()) return ACLNN_ERR_INNER_FIND_KERNEL_ERROR;
    const std::string names = opgen_host::GmNames(d.inputs, d.outputs);
    for (size_t o = 0; ni + o < n && o < 64; ++o) {  // InitValue outputs (with SetNeedAtomic)
        if (((e.decision.zero_outputs >> o) & 1u) != 0 && e.data[ni + o] != nullptr) {
            std::memset(e.data[ni + o], 0, static_cast<size_t>(e.bytes[ni + o]));
        }
    }
    int32_t block = -1;
    *err = opgen_host::LaunchDecidedIn(kernel, e.decision, static_cast<int>(n), names.data(),
                                       Soc().ub_bytes, args, sizes, &block);
    if (!err->empty()) {
        *err = std::string("kernel '") + d.entry + "', block " + std::to_string(block) + ": " +
               *err;
        return ACLNN_ERR_RUNTIME_ERROR;
    }
    return ACLNN_SUCCESS;
}

}  // namespace detail

// Runs the executor's call on `stream` (work runs when issued: docs/simulator.md, "Streams run
// work when it is issued"), then destroys it unless aclSetAclOpExecutorRepeatable made it
// repeatable.
inline aclnnStatus Run(const OpDesc& d, void* workspace, uint64_t workspace_size,
                       aclOpExecutor* executor, aclrtStream stream) {
    const std::string fn = d.run_fn;
    if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, fn + ": executor is null");
    Executor* e = executor->tag == kExecutorTag ? dynamic_cast<Executor*>(executor) : nullptr;
    if (e == nullptr) {
        return Fail(ACLNN_ERR_PARAM_INVALID,
                    fn + ": executor is not a live aclOpExecutor (run once and destroyed "
                         "already? aclSetAclOpExecutorRepeatable keeps it)");
    }
    if (e->desc != &d) {
        return Fail(ACLNN_ERR_PARAM_INVALID, fn + ": the executor was made by " +
                                                 e->desc->workspace_fn + ", not " +
                                                 d.workspace_fn);
    }
    if (opgen_acl::CheckStream(d.run_fn, stream) != ACL_SUCCESS) {
        return Fail(ACLNN_ERR_PARAM_INVALID, fn + ": " + opgen_acl::RecentError());
    }
    std::string err;
    aclnnStatus status;
    try {
        status = detail::Launch(*e, workspace, workspace_size, &err);
    } catch (const std::exception& ex) {
        status = ACLNN_ERR_INNER;
        err = ex.what();
    }
    if (!e->repeatable) delete e;
    return status == ACLNN_SUCCESS ? status : Fail(status, fn + ": " + err);
}

// -- single-operator execution (aclopExecuteV2, acl/acl_op.h) ------------------------------------
// The driver's acl_op.h found a single-op model for op_type and calls the op package's
// opgen_opapi_execute with each tensor as its aclTensorDesc and aclDataBuffer side by side and
// the aclopAttr's attrs by name; the op runs through its aclnn two phases, the workspace
// allocated and freed here.

inline const OpDesc* FindOp(const OpDesc* const* ops, size_t n, const char* op_type) {
    for (size_t k = 0; k < n; ++k) {
        if (op_type != nullptr && std::strcmp(ops[k]->op_type, op_type) == 0) return ops[k];
    }
    return nullptr;
}

inline const char* AttrKindName(AttrKind k) {
    switch (k) {
        case AttrKind::kInt: return "Int";
        case AttrKind::kFloat: return "Float";
        case AttrKind::kBool: return "Bool";
        case AttrKind::kString: return "String";
        case AttrKind::kType: return "DataType";
        case AttrKind::kListInt: return "ListInt";
        case AttrKind::kListFloat: return "ListFloat";
        case AttrKind::kListBool: return "ListBool";
        case AttrKind::kListString: return "ListString";
    }
    return "?";
}

inline bool AttrKindMatches(AttrKind want, int got) {
    switch (want) {
        case AttrKind::kInt: return got == kOpgenAttrInt;
        case AttrKind::kFloat: return got == kOpgenAttrFloat;
        case AttrKind::kBool: return got == kOpgenAttrBool;
        case AttrKind::kString: return got == kOpgenAttrString;
        case AttrKind::kType: return got == kOpgenAttrDataType || got == kOpgenAttrInt;
        case AttrKind::kListInt: return got == kOpgenAttrListInt;
        case AttrKind::kListFloat: return got == kOpgenAttrListFloat;
        case AttrKind::kListBool: return got == kOpgenAttrListBool;
        case AttrKind::kListString: return false;
    }
    return false;
}

inline aclnnStatus ExecuteByType(const OpDesc* const* ops, size_t n_ops, const char* op_type,
                                 const void* const* inputs, int ni, const void* const* outputs,
                                 int no, const OpgenOpAttrView* attrs, int na, void* stream) {
    const OpDesc* d = FindOp(ops, n_ops, op_type);
    const std::string fn = std::string("aclopExecuteV2: ") + (op_type ? op_type : "(null)");
    if (d == nullptr) return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, fn + ": not in this op package");
    for (const TensorDesc& t : d->inputs) {
        if (t.dynamic) {
            return Fail(ACLNN_ERR_PARAM_INVALID, fn + ": input '" + t.name + "' is a dynamic (list) "
                        "input, which single-op execution does not take here; call " +
                        d->workspace_fn + " with an aclTensorList");
        }
    }
    if (static_cast<size_t>(ni) != d->inputs.size() || static_cast<size_t>(no) != d->outputs.size()) {
        return Fail(ACLNN_ERR_PARAM_INVALID, fn + ": " + std::to_string(ni) + " inputs and " +
                    std::to_string(no) + " outputs given; the op takes " +
                    std::to_string(d->inputs.size()) + " and " + std::to_string(d->outputs.size()));
    }
    std::vector<const aclTensor*> tensors;
    auto make = [&](const void* desc, const void* buffer) -> const aclTensor* {
        const aclTensorDesc* t = static_cast<const aclTensorDesc*>(desc);
        const aclDataBuffer* b = static_cast<const aclDataBuffer*>(buffer);
        if (t == nullptr || b == nullptr) return nullptr;
        const uint64_t rank = t->num_dims < 0 ? 0 : static_cast<uint64_t>(t->num_dims);
        return aclCreateTensor(t->dims, rank, t->dtype, nullptr, 0, t->format, t->dims, rank, b->data);
    };
    for (int k = 0; k < ni; ++k) tensors.push_back(make(inputs[2 * k], inputs[2 * k + 1]));
    for (int k = 0; k < no; ++k) tensors.push_back(make(outputs[2 * k], outputs[2 * k + 1]));
    std::vector<AttrIn> values(d->attrs.size());
    std::vector<const aclIntArray*> int_arrays;
    std::vector<const aclFloatArray*> float_arrays;
    std::vector<const aclBoolArray*> bool_arrays;
    std::vector<std::unique_ptr<bool[]>> bools;
    auto release = [&]() {
        for (const aclTensor* t : tensors) {
            if (t != nullptr) aclDestroyTensor(t);
        }
        for (const aclIntArray* a : int_arrays) aclDestroyIntArray(a);
        for (const aclFloatArray* a : float_arrays) aclDestroyFloatArray(a);
        for (const aclBoolArray* a : bool_arrays) aclDestroyBoolArray(a);
    };
    for (size_t k = 0; k < d->attrs.size(); ++k) {
        const AttrDesc& want = d->attrs[k];
        const OpgenOpAttrView* got = nullptr;
        for (int j = 0; j < na && got == nullptr; ++j) {
            if (std::strcmp(attrs[j].name, want.name) == 0) got = &attrs[j];
        }
        const std::string setter = std::string("aclopSetAttr") + AttrKindName(want.kind);
        if (got == nullptr) {
            release();
            return Fail(ACLNN_ERR_PARAM_INVALID, fn + ": attr '" + want.name + "' is not set; set "
                        "it with " + setter + "(attr, \"" + want.name + "\", value)");
        }
        if (!AttrKindMatches(want.kind, got->kind)) {
            release();
            return Fail(ACLNN_ERR_PARAM_INVALID, fn + ": attr '" + want.name + "' is a " +
                        AttrKindName(want.kind) + "; set it with " + setter);
        }
        switch (want.kind) {
            case AttrKind::kInt:
            case AttrKind::kType: values[k] = AttrIn::Int(got->i); break;
            case AttrKind::kBool: values[k] = AttrIn::Bool(got->i != 0); break;
            case AttrKind::kFloat: values[k] = AttrIn::Float(got->f); break;
            case AttrKind::kString: values[k] = AttrIn::String(got->s); break;
            case AttrKind::kListInt:
                int_arrays.push_back(aclCreateIntArray(got->ints, got->n));
                values[k] = AttrIn::Ints(int_arrays.back());
                break;
            case AttrKind::kListFloat:
                float_arrays.push_back(aclCreateFloatArray(got->floats, got->n));
                values[k] = AttrIn::Floats(float_arrays.back());
                break;
            case AttrKind::kListBool: {
                bools.emplace_back(new bool[got->n + 1]);
                for (size_t j = 0; j < got->n; ++j) bools.back()[j] = got->bools[j] != 0;
                bool_arrays.push_back(aclCreateBoolArray(bools.back().get(), got->n));
                values[k] = AttrIn::Bools(bool_arrays.back());
                break;
            }
            case AttrKind::kListString: break;
        }
    }
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = GetWorkspaceSize(*d, tensors.data(), nullptr,
                                          values.empty() ? nullptr : values.data(),
                                          &workspace_size, &executor);
    void* workspace = nullptr;
    if (status == ACLNN_SUCCESS && workspace_size > 0 &&
        aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        status = Fail(ACLNN_ERR_RUNTIME_ERROR, fn + ": cannot allocate the workspace of " +
                      std::to_string(workspace_size) + " bytes");
    }
    if (status == ACLNN_SUCCESS) status = Run(*d, workspace, workspace_size, executor, stream);
    if (workspace != nullptr) aclrtFree(workspace);
    release();
    return status;
}

}  // namespace opgen_aclnn
