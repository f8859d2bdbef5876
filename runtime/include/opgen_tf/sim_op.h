// opgen TensorFlow support: the shape function, the CPU OpKernel and the registration every
// generated TF op uses.
//
// A generated op is data (opgen_tf/op_desc.h, which its library's unit includes without
// TensorFlow's headers): an OpDesc naming its tensors, attrs, shape rules, tiling struct and kernel
// variants. This header turns that data into
// - InferShapes: the spec's `infer:` rules on InferenceContext shapes, unknown dims tolerated;
// - SimOpBase: an OpKernel that picks the kernel variant for the node's dtypes once (at
//   construction), and per call infers the output shapes, allocates the outputs (32-byte
//   aligned for the simulator), fills the tiling struct with opgen_host's default policy and
//   launches the simulator kernel. No Python runs at graph run time;
// - Registration: the op's definition, shape function and CPU kernel registered with TensorFlow.
// See docs/tensorflow.md.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "opgen_host/arg_check.h"
#include "opgen_host/host_client.h"
#include "opgen_host/op_desc.h"
#include "opgen_tf/op_desc.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/platform/threadpool.h"

namespace opgen_tf {

using ::tensorflow::DataType;
using ::tensorflow::OpKernel;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::TensorShape;
using ::tensorflow::shape_inference::DimensionHandle;
using ::tensorflow::shape_inference::InferenceContext;
using ::tensorflow::shape_inference::ShapeHandle;

// -- dtypes -------------------------------------------------------------------------------------
inline DataType Tf(Dtype t) { return static_cast<DataType>(t); }
#define OPGEN_TF_SAME_DTYPE(name) \
    static_assert(static_cast<int>(Dtype::name) == static_cast<int>(::tensorflow::name), \
                  "opgen_tf::Dtype::" #name " is not tensorflow::" #name);
OPGEN_TF_SAME_DTYPE(DT_FLOAT) OPGEN_TF_SAME_DTYPE(DT_DOUBLE) OPGEN_TF_SAME_DTYPE(DT_INT32)
OPGEN_TF_SAME_DTYPE(DT_UINT8) OPGEN_TF_SAME_DTYPE(DT_INT16) OPGEN_TF_SAME_DTYPE(DT_INT8)
OPGEN_TF_SAME_DTYPE(DT_INT64) OPGEN_TF_SAME_DTYPE(DT_BOOL) OPGEN_TF_SAME_DTYPE(DT_BFLOAT16)
OPGEN_TF_SAME_DTYPE(DT_UINT16) OPGEN_TF_SAME_DTYPE(DT_HALF) OPGEN_TF_SAME_DTYPE(DT_UINT32)
OPGEN_TF_SAME_DTYPE(DT_UINT64)
#undef OPGEN_TF_SAME_DTYPE

inline const char* DtypeName(DataType t) {
    switch (t) {
        case ::tensorflow::DT_FLOAT: return "float32";
        case ::tensorflow::DT_HALF: return "float16";
        case ::tensorflow::DT_BFLOAT16: return "bfloat16";
        case ::tensorflow::DT_DOUBLE: return "float64";
        case ::tensorflow::DT_INT8: return "int8";
        case ::tensorflow::DT_INT16: return "int16";
        case ::tensorflow::DT_INT32: return "int32";
        case ::tensorflow::DT_INT64: return "int64";
        case ::tensorflow::DT_UINT8: return "uint8";
        case ::tensorflow::DT_UINT16: return "uint16";
        case ::tensorflow::DT_UINT32: return "uint32";
        case ::tensorflow::DT_UINT64: return "uint64";
        case ::tensorflow::DT_BOOL: return "bool";
        default: return "an unsupported dtype";
    }
}

// ge::DataType code of a dtype: what a `type` attr carries in the tiling data.
inline int64_t GeCode(DataType t) {
    switch (t) {
        case ::tensorflow::DT_FLOAT: return 0;
        case ::tensorflow::DT_HALF: return 1;
        case ::tensorflow::DT_INT8: return 2;
        case ::tensorflow::DT_INT32: return 3;
        case ::tensorflow::DT_UINT8: return 4;
        case ::tensorflow::DT_INT16: return 6;
        case ::tensorflow::DT_UINT16: return 7;
        case ::tensorflow::DT_UINT32: return 8;
        case ::tensorflow::DT_INT64: return 9;
        case ::tensorflow::DT_UINT64: return 10;
        case ::tensorflow::DT_DOUBLE: return 11;
        case ::tensorflow::DT_BOOL: return 12;
        case ::tensorflow::DT_BFLOAT16: return 27;
        default: return -1;
    }
}

// -- the support functions ---------------------------------------------------------------------
// Compiled once per TensorFlow version into the support object (opgen_runtime.tf_support, built
// and prebuilt like the simulator runtime) that every op library links: the argument checks,
// shape inference and the kernel's constructor and Compute. A library's unit, which holds only
// its ops' descriptions and registrations, declares them (OPGEN_TF_SUPPORT_UNIT is the support
// object's own unit).
#if defined(OPGEN_TF_SUPPORT_UNIT)
#define OPGEN_TF_SUPPORT_BODIES 1
#else
#define OPGEN_TF_SUPPORT_BODIES 0
#endif

#if OPGEN_TF_SUPPORT_BODIES
// An argument error in opgen_runtime.argcheck's words: "<op>(): ..." (the generated wrapper
// strips TensorFlow's decoration, tf_support.op_error).
inline absl::Status OpError(const OpDesc& d, const std::string& message) {
    return absl::InvalidArgumentError(std::string(d.op_name) + "(): " + message);
}

inline absl::Status CheckError(const std::string& full_message) {
    return absl::InvalidArgumentError(full_message);
}

// The column of the spec's dtype table the node's dtypes select (node attrs via `ctx`, an
// InferenceContext or OpKernelConstruction).
template <typename Ctx>
absl::Status ResolveVariant(Ctx* ctx, const OpDesc& d, int* variant) {
    const size_t n = d.inputs.size() + d.outputs.size();
    std::vector<DataType> got(n, ::tensorflow::DT_INVALID);
    for (size_t i = 0; i < n; ++i) {
        const TensorDesc& t = i < d.inputs.size() ? d.inputs[i] : d.outputs[i - d.inputs.size()];
        if (t.dtype_attr != nullptr) TF_RETURN_IF_ERROR(ctx->GetAttr(t.dtype_attr, &got[i]));
    }
    for (size_t v = 0; v < d.variants.size(); ++v) {
        bool ok = true;
        for (size_t i = 0; i < n && ok; ++i) {
            ok = got[i] == ::tensorflow::DT_INVALID || got[i] == Tf(d.variants[v].dtypes[i]);
        }
        if (ok) {
            *variant = static_cast<int>(v);
            return absl::OkStatus();
        }
    }
    // opgen_runtime.argcheck.dtype_message's words: the inputs, then the `type` attrs of outputs
    std::string have, supported;
    const size_t ni = d.inputs.size();
    for (size_t i = 0; i < n; ++i) {
        if (got[i] == ::tensorflow::DT_INVALID) continue;
        const TensorDesc& t = i < ni ? d.inputs[i] : d.outputs[i - ni];
        const char* label = t.name;
        if (i >= ni) {
            label = nullptr;
            for (const AttrDesc& a : d.attrs) {
                if (a.kind == AttrKind::kType && std::string(a.name) == t.dtype_attr) label = a.name;
            }
            if (label == nullptr) continue;
        }
        have += std::string(have.empty() ? "" : ", ") + label + "=" + DtypeName(got[i]);
    }
    for (const Variant& v : d.variants) {
        supported += supported.empty() ? "" : "; ";
        for (size_t i = 0; i < n; ++i) {
            const TensorDesc& t = i < ni ? d.inputs[i] : d.outputs[i - ni];
            supported += std::string(i == 0 ? "" : i == ni ? " -> " : ", ") + t.name + "=" +
                         DtypeName(Tf(v.dtypes[i]));
        }
    }
    return OpError(d, "no supported dtype combination for (" + have + "); " +
                          d.checks.spec_path + " supports: " + supported);
}

// -- attrs --------------------------------------------------------------------------------------
template <typename Ctx>
absl::Status ReadAttr(Ctx* ctx, const AttrDesc& a, opgen_host::AttrValue* out) {
    using opgen_host::Value;
    switch (a.kind) {
        case AttrKind::kInt: {
            int64_t v = 0;
            TF_RETURN_IF_ERROR(ctx->GetAttr(a.name, &v));
            out->value = Value::Int(v);
            break;
        }
        case AttrKind::kFloat: {
            float v = 0;
            TF_RETURN_IF_ERROR(ctx->GetAttr(a.name, &v));
            out->value = Value::Float(static_cast<double>(v));
            break;
        }
        case AttrKind::kBool: {
            bool v = false;
            TF_RETURN_IF_ERROR(ctx->GetAttr(a.name, &v));
            out->value = Value::Bool(v);
            break;
        }
        case AttrKind::kType: {
            DataType v = ::tensorflow::DT_INVALID;
            TF_RETURN_IF_ERROR(ctx->GetAttr(a.name, &v));
            out->value = Value::Int(GeCode(v));
            break;
        }
        case AttrKind::kListInt: {
            std::vector<int64_t> v;
            TF_RETURN_IF_ERROR(ctx->GetAttr(a.name, &v));
            out->SetInts(std::move(v));
            break;
        }
        case AttrKind::kListBool: {
            std::vector<bool> v;
            TF_RETURN_IF_ERROR(ctx->GetAttr(a.name, &v));
            out->SetBools(std::vector<int64_t>(v.begin(), v.end()));
            break;
        }
        case AttrKind::kListFloat: {
            std::vector<float> v;
            TF_RETURN_IF_ERROR(ctx->GetAttr(a.name, &v));
            out->SetFloats(std::vector<double>(v.begin(), v.end()));
            break;
        }
        default:
            out->known = false;
            break;
    }
    return absl::OkStatus();
}

// -- static shapes ------------------------------------------------------------------------------
// opgen_host::CheckArgs at graph construction, when every present input's shape is known.
inline absl::Status CheckKnownShapes(InferenceContext* c, const OpDesc& d,
                                     const std::vector<ShapeHandle>& in,
                                     const std::vector<bool>& present,
                                     const std::vector<opgen_host::AttrValue>& attrs) {
    std::vector<std::vector<int64_t>> dims(in.size());
    std::vector<opgen_host::ShapeRef> shapes(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
        if (!present[i]) continue;
        if (!c->FullyDefined(in[i])) return absl::OkStatus();
        for (int k = 0; k < c->Rank(in[i]); ++k) dims[i].push_back(c->Value(c->Dim(in[i], k)));
        shapes[i] = {dims[i].data(), dims[i].size(), true};
    }
    const std::string err = opgen_host::CheckArgs(d.checks, d.inputs, shapes.data(), attrs);
    return err.empty() ? absl::OkStatus() : CheckError(err);
}

absl::Status InferShapes(InferenceContext* c, const OpDesc& d) {
    int variant = 0;
    TF_RETURN_IF_ERROR(ResolveVariant(c, d, &variant));
    std::vector<opgen_host::AttrValue> attrs(d.attrs.size());
    for (size_t k = 0; k < d.attrs.size(); ++k) TF_RETURN_IF_ERROR(ReadAttr(c, d.attrs[k], &attrs[k]));
    std::vector<ShapeHandle> in(d.inputs.size());
    std::vector<bool> present(d.inputs.size(), true);
    for (size_t i = 0; i < d.inputs.size(); ++i) {
        const TensorDesc& t = d.inputs[i];
        std::vector<ShapeHandle> list;
        TF_RETURN_IF_ERROR(c->input(t.name, &list));
        if (list.size() > 1) {
            return OpError(d, std::string("optional input '") + t.name +
                                  "' takes at most one tensor, got " + std::to_string(list.size()));
        }
        present[i] = !list.empty();
        if (!present[i]) continue;
        ShapeHandle s = list[0];
        if (t.rank >= 0 && !c->FullyDefined(s)) {  // known shapes: CheckKnownShapes' words
            absl::Status st = c->WithRank(s, t.rank, &s);
            if (!st.ok()) {
                return OpError(d, std::string("input '") + t.name + "' must have rank " +
                                      std::to_string(t.rank) + ": " + std::string(st.message()));
            }
            for (int k = 0; k < t.rank; ++k) {
                if (t.dims[static_cast<size_t>(k)] < 0) continue;
                DimensionHandle dim;
                TF_RETURN_IF_ERROR(c->WithValue(c->Dim(s, k), t.dims[static_cast<size_t>(k)], &dim));
            }
        }
        in[i] = s;
    }
    for (size_t o = 0; o < d.outputs.size(); ++o) {
        if (o == 0) TF_RETURN_IF_ERROR(CheckKnownShapes(c, d, in, present, attrs));
        const ShapeRule& r = d.outputs[o].rule;
        for (int i : r.inputs) {
            if (!present[static_cast<size_t>(i)]) {
                return OpError(d, std::string("the shape of '") + d.outputs[o].name +
                                      "' follows the absent optional input '" +
                                      d.inputs[static_cast<size_t>(i)].name + "'");
            }
        }
        ShapeHandle out = c->UnknownShape();
        switch (r.kind) {
            case RuleKind::kSameAs: out = in[static_cast<size_t>(r.inputs[0])]; break;
            case RuleKind::kBroadcast: {
                out = in[static_cast<size_t>(r.inputs[0])];
                for (size_t k = 1; k < r.inputs.size(); ++k) {
                    TF_RETURN_IF_ERROR(::tensorflow::shape_inference::
                        BroadcastBinaryOpOutputShapeFnHelper(
                            c, out, in[static_cast<size_t>(r.inputs[k])], true, &out));
                }
                break;
            }
            case RuleKind::kReduce: {
                const ShapeHandle s = in[static_cast<size_t>(r.inputs[0])];
                if (!c->RankKnown(s)) break;
                const int64_t rank = c->Rank(s);
                std::vector<bool> reduced;
                bool keep = false;
                const std::string err = opgen_host::ReduceAxes(r, attrs, rank, &reduced, &keep);
                if (!err.empty()) return OpError(d, err);
                std::vector<DimensionHandle> dims;
                for (int64_t k = 0; k < rank; ++k) {
                    if (!reduced[static_cast<size_t>(k)]) dims.push_back(c->Dim(s, k));
                    else if (keep) dims.push_back(c->MakeDim(1));
                }
                out = c->MakeShape(dims);
                break;
            }
            case RuleKind::kExplicit: {
                std::vector<DimensionHandle> dims;
                for (const DimSpec& ds : r.dims) {
                    if (ds.kind == DimSpec::kLiteral) {
                        dims.push_back(c->MakeDim(ds.value));
                    } else if (ds.kind == DimSpec::kAttr) {
                        dims.push_back(c->MakeDim(attrs[static_cast<size_t>(ds.value)].value.i));
                    } else {
                        const ShapeHandle s = in[static_cast<size_t>(ds.input)];
                        if (!c->RankKnown(s)) {
                            dims.push_back(c->UnknownDim());
                            continue;
                        }
                        const int64_t rank = c->Rank(s);
                        const int64_t k = ds.value < 0 ? ds.value + rank : ds.value;
                        if (k < 0 || k >= rank) {
                            return OpError(d, "dim(" + std::string(d.inputs[static_cast<size_t>(
                                                           ds.input)].name) + ", " +
                                                  std::to_string(ds.value) + ") of a rank-" +
                                                  std::to_string(rank) + " tensor");
                        }
                        dims.push_back(c->Dim(s, k));
                    }
                }
                out = c->MakeShape(dims);
                break;
            }
            case RuleKind::kNone: break;
        }
        c->set_output(static_cast<int>(o), out);
    }
    return absl::OkStatus();
}
#else
absl::Status InferShapes(InferenceContext* c, const OpDesc& d);
#endif  // OPGEN_TF_SUPPORT_BODIES

// -- the kernel ---------------------------------------------------------------------------------
class SimOpBase : public OpKernel {
public:
    SimOpBase(OpKernelConstruction* ctx, const OpDesc& d);
    void Compute(OpKernelContext* ctx) override;

private:
    const OpDesc& d_;
    int variant_ = 0;
    std::vector<opgen_host::AttrValue> attrs_;
    std::vector<opgen_host::AttrArg> policy_attrs_;
    std::vector<opgen_host::HostAttr> host_attrs_;
    std::vector<int> flat_index_;
    opgen_host::SimKernel kernel_;
    std::string names_;
    const opgen_host::SocProfile* soc_ = nullptr;
};

#if OPGEN_TF_SUPPORT_BODIES
SimOpBase::SimOpBase(OpKernelConstruction* ctx, const OpDesc& d) : OpKernel(ctx), d_(d) {
    if (d.tiling_hook != nullptr) {
        ctx->CtxFailure(absl::UnimplementedError(
            std::string(d.op_name) + ": the spec tiles with " + d.tiling_hook +
            ", which a TensorFlow graph cannot call at run time; use the tf.numpy_function "
            "fallback (docs/tensorflow.md, \"Fallback\")"));
        return;
    }
    OP_REQUIRES_OK(ctx, ResolveVariant(ctx, d, &variant_));
    attrs_.resize(d.attrs.size());
    for (size_t k = 0; k < d.attrs.size(); ++k) {
        OP_REQUIRES_OK(ctx, ReadAttr(ctx, d.attrs[k], &attrs_[k]));
        if (attrs_[k].known) {
            policy_attrs_.push_back({d.attrs[k].name, d.attrs[k].camel, attrs_[k].value});
        }
    }
    // Flat input positions: an optional input is a list of 0 or 1 tensors.
    int flat = 0;
    for (const TensorDesc& t : d.inputs) {
        int n = 1;
        if (t.optional) {
            int64_t count = 0;
            OP_REQUIRES_OK(ctx, ctx->GetAttr(t.count_attr, &count));
            OP_REQUIRES(ctx, count <= 1,
                        OpError(d, std::string("optional input '") + t.name +
                                       "' takes at most one tensor, got " +
                                       std::to_string(count)));
            n = static_cast<int>(count);
        }
        flat_index_.push_back(n == 1 ? flat : -1);
        flat += n;
    }
    const Variant& v = d.variants[static_cast<size_t>(variant_)];
    std::string label = std::string(d.op_name) + "-variant-" + std::to_string(variant_);
    const std::string err =
        opgen_host::LoadEmbeddedKernel(v.begin, v.end, label.c_str(), d.entry, &kernel_);
    OP_REQUIRES(ctx, err.empty(), absl::InternalError(std::string(d.op_name) + ": " + err));
    names_ = opgen_host::GmNames(d.inputs, d.outputs);
    soc_ = opgen_host::FindSoc(opgen_host::kDefaultSoc);
    if (d.host.begin != nullptr) {
        for (size_t k = 0; k < d.attrs.size(); ++k) {
            std::string text;
            if (d.attrs[k].kind == AttrKind::kString) {
                OP_REQUIRES_OK(ctx, ctx->GetAttr(d.attrs[k].name, &text));
            }
            host_attrs_.push_back(opgen_host::ToHostAttr(d.attrs[k].kind, attrs_[k], text));
        }
    }
}

// The simulated cores run on the op's CPU device's intra-op threads (TensorFlow's own pool,
// sized by tf.config.threading.set_intra_op_parallelism_threads) rather than the kernel
// library's: two pools spinning for the same cores slow each other down, as for PyTorch
// (opgen_torch::TorchParallel). body(arg) runs once on each of n shards, the calling thread
// taking the first; the call returns when all have returned.
void TfParallel(void* pool, int32_t n, void (*body)(void*), void* arg) {
    using ::tensorflow::thread::ThreadPool;
    auto* workers = static_cast<ThreadPool*>(pool);
    workers->ParallelFor(
        n, ThreadPool::SchedulingParams(ThreadPool::SchedulingStrategy::kFixedBlockSize,
                                        std::nullopt, 1),
        [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) body(arg);
        });
}

// A pool of one: every block on the calling thread (RunBlocks takes them all).
void CallingThread(void*, int32_t, void (*body)(void*), void* arg) { body(arg); }

// The launch's threads: the device's worker pool, or the calling thread alone when that pool
// has one thread (intra-op parallelism 1); the kernel library's own threads for a device
// without a pool.
opgen_host::SimThreads DeviceThreads(OpKernelContext* ctx) {
    const auto* threads = ctx->device()->tensorflow_cpu_worker_threads();
    if (threads == nullptr || threads->workers == nullptr) return {};
    if (threads->num_threads < 2) return {&CallingThread, nullptr};
    return {&TfParallel, threads->workers};
}

void SimOpBase::Compute(OpKernelContext* ctx) {
    const OpDesc& d = d_;
    const size_t ni = d.inputs.size(), no = d.outputs.size(), n = ni + no;
    std::vector<const Tensor*> in(ni, nullptr);
    std::vector<std::vector<int64_t>> dims(n);
    for (size_t i = 0; i < ni; ++i) {
        if (flat_index_[i] < 0) continue;
        in[i] = &ctx->input(flat_index_[i]);
        const TensorShape& s = in[i]->shape();
        for (int k = 0; k < s.dims(); ++k) dims[i].push_back(s.dim_size(k));
    }
    std::vector<opgen_host::ShapeRef> shapes(ni);
    for (size_t i = 0; i < ni; ++i) {
        shapes[i] = {dims[i].data(), dims[i].size(), in[i] != nullptr};
    }
    {
        const std::string err = opgen_host::CheckArgs(d.checks, d.inputs, shapes.data(), attrs_);
        OP_REQUIRES(ctx, err.empty(), CheckError(err));
    }
    // An op with its own op_host: its InferShape (when it has one) gives the output shapes
    // and its TilingFunc the launch (docs/op-host.md).
    const Variant& var = d.variants[static_cast<size_t>(variant_)];
    std::vector<opgen_host::HostArg> host_args(n);
    bool host_shapes = false;
    std::vector<bool> host_set;
    if (d.host.begin != nullptr) {
        for (size_t i = 0; i < ni; ++i) {
            host_args[i] = {static_cast<int32_t>(GeCode(Tf(var.dtypes[i]))), dims[i].data(),
                            static_cast<int32_t>(dims[i].size()), in[i] != nullptr};
        }
        std::vector<std::vector<int64_t>> host_dims;
        const std::string err = opgen_host::HostInferShapes(
            d.host, host_args.data(), static_cast<int>(ni), static_cast<int>(no),
            host_attrs_, *soc_, &host_dims, &host_shapes, &host_set);
        OP_REQUIRES(ctx, err.empty(), OpError(d, std::string(d.host.op_type) + ": " + err));
        for (size_t o = 0; host_shapes && o < no; ++o) {
            if (host_set[o]) dims[ni + o] = host_dims[o];
        }
    }
    for (size_t o = 0; o < no; ++o) {
        if (host_shapes && host_set[o]) continue;
        const std::string err = opgen_host::OutputDims(d.outputs[o].rule, d.inputs,
                                                       shapes.data(), attrs_, false,
                                                       &dims[ni + o]);
        // an output without a rule is named (the other errors name the inputs)
        const std::string which = d.outputs[o].rule.kind == RuleKind::kNone
                                      ? std::string("output '") + d.outputs[o].name + "': "
                                      : std::string();
        OP_REQUIRES(ctx, err.empty(), OpError(d, which + err));
    }
    bool skip = false;
    {
        const std::string err = opgen_host::CheckEmpty(d.op_name, d.inputs, shapes.data(),
                                                       d.outputs, dims.data() + ni, &skip);
        OP_REQUIRES(ctx, err.empty(), CheckError(err));
    }
    std::vector<Tensor*> out(no, nullptr);
    for (size_t o = 0; o < no; ++o) {
        TensorShape shape;
        OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims[ni + o], &shape));
        OP_REQUIRES_OK(ctx, ctx->allocate_output(static_cast<int>(o), shape, &out[o]));
    }
    if (skip) return;  // the empty-tensor rule: nothing to compute, no launch

    // GM arguments: 32-byte aligned (TF's allocator aligns to 64; a sliced input may not be).
    uint8_t* args[opgen_host::kSimMaxArgs] = {};
    int64_t sizes[opgen_host::kSimMaxArgs] = {};
    std::vector<Tensor> copies;
    copies.reserve(n);
    std::vector<std::pair<Tensor*, Tensor*>> copy_back;
    std::vector<opgen_host::TensorArg> targs(n);
    for (size_t i = 0; i < n; ++i) {
        const bool is_in = i < ni;
        const TensorDesc& t = is_in ? d.inputs[i] : d.outputs[i - ni];
        const Tensor* x = is_in ? in[i] : out[i - ni];
        const DataType dt = Tf(d.variants[static_cast<size_t>(variant_)].dtypes[i]);
        targs[i] = {t.camel, is_in, x != nullptr,
                    static_cast<int64_t>(::tensorflow::DataTypeSize(dt)), dims[i].data(),
                    static_cast<int32_t>(dims[i].size())};
        if (x == nullptr) continue;
        uint8_t* p = static_cast<uint8_t*>(const_cast<void*>(
            static_cast<const void*>(x->tensor_data().data())));
        // A GM buffer is a device allocation (opgen_host::GmAllocation): a tensor that is
        // not 32-byte aligned, or does not end on 32 bytes (a kernel copies its tail in
        // whole blocks), runs from an aligned copy with the allocation's padding.
        const int64_t nbytes = static_cast<int64_t>(x->TotalBytes());
        int64_t size = nbytes;
        if (reinterpret_cast<uintptr_t>(p) % opgen_host::kGmAlign != 0 ||
            nbytes % opgen_host::kGmAlign != 0) {
            size = opgen_host::GmAllocation(nbytes);
            copies.emplace_back();
            Tensor& c = copies.back();
            const int64_t item = static_cast<int64_t>(::tensorflow::DataTypeSize(dt));
            OP_REQUIRES_OK(ctx, ctx->allocate_temp(dt, TensorShape({size / item}), &c));
            if (is_in) std::memcpy(c.data(), p, x->TotalBytes());
            else copy_back.emplace_back(out[i - ni], &c);
            p = static_cast<uint8_t*>(c.data());
        }
        args[i] = p;
        sizes[i] = size;
    }
    bool tiling_failed = false;
    int32_t block = -1;
    std::string err;
    if (d.host.begin != nullptr) {
        int32_t out_dtypes[opgen_host::kSimMaxArgs];
        for (size_t o = 0; o < no; ++o) {
            out_dtypes[o] = static_cast<int32_t>(GeCode(Tf(var.dtypes[ni + o])));
        }
        err = opgen_host::HostTileAndLaunch(
            kernel_, d.host, host_args.data(), static_cast<int>(ni), static_cast<int>(no),
            out_dtypes, dims.data() + ni, host_attrs_, *soc_, names_.data(), args, sizes,
            &tiling_failed, &block, DeviceThreads(ctx));
    } else {
        err = opgen_host::TileAndLaunch(
            kernel_, {d.tiling_struct, d.fields, d.tiling_size}, targs.data(),
            static_cast<int>(n), policy_attrs_.data(), static_cast<int>(policy_attrs_.size()),
            *soc_, names_.data(), args, sizes, &tiling_failed, &block,
            DeviceThreads(ctx));
    }
    OP_REQUIRES(ctx, !tiling_failed, OpError(d, err));
    OP_REQUIRES(ctx, err.empty(),
                absl::InternalError(std::string(d.op_name) + ": kernel '" + d.entry +
                                    "', block " + std::to_string(block) + ": " + err));
    for (auto& [dst, src] : copy_back) std::memcpy(dst->data(), src->data(), dst->TotalBytes());
}
#endif  // OPGEN_TF_SUPPORT_BODIES

// -- registration -------------------------------------------------------------------------------
#if OPGEN_TF_SUPPORT_BODIES
// The CPU kernel factory of one op: a SimOpBase over its description.
class DescKernelFactory final : public ::tensorflow::kernel_factory::OpKernelFactory {
public:
    explicit DescKernelFactory(const OpDesc& d) : d_(d) {}
    OpKernel* Create(OpKernelConstruction* ctx) override { return new SimOpBase(ctx, d_); }

private:
    const OpDesc& d_;
};

Registration::Registration(const char* op_type, std::initializer_list<OpLine> lines,
                           const OpDesc& (*desc)()) {
    const OpDesc& d = desc();
    ::tensorflow::register_op::OpDefBuilderWrapper op(op_type);
    for (const OpLine& line : lines) {
        switch (line.kind) {
            case OpLine::kInput: op.Input(line.text); break;
            case OpLine::kOutput: op.Output(line.text); break;
            case OpLine::kAttr: op.Attr(line.text); break;
        }
    }
    op.SetShapeFn([&d](InferenceContext* c) { return InferShapes(c, d); });
    op();  // what REGISTER_OP's static object does
    ::tensorflow::kernel_factory::OpKernelRegistrar kernel(
        ::tensorflow::register_kernel::Name(op_type).Device(::tensorflow::DEVICE_CPU).Build(),
        "opgen_tf::SimOpBase", std::make_unique<DescKernelFactory>(d));
    (void)kernel;
}
#endif  // OPGEN_TF_SUPPORT_BODIES

}  // namespace opgen_tf
