// opgen PyTorch support: the CPU kernel every generated torch op registers from C++.
//
// A generated op is data (opgen_torch/op_desc.h, which its library's unit includes without
// torch's headers): an OpDesc naming its tensors, attrs, shape rules, tiling struct and kernel
// variants, and a CpuKernels object that registers DescKernel, a boxed dispatcher kernel that,
// per call, picks the kernel variant for the call's dtypes (the error names the spec's
// combinations, in the words of opgen_runtime.torch_support.OpSignature), infers the output
// shapes, allocates the outputs, fills the tiling struct with opgen_host's default policy and
// launches the simulator kernel. The autograd formula stays registered from Python
// (torch.library.register_autograd). See docs/pytorch.md, "The C++ kernel library".
#pragma once

#include <ATen/EmptyTensor.h>
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/impl/alloc_cpu.h>
#include <c10/util/SmallVector.h>
#include <torch/library.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "opgen_host/arg_check.h"
#include "opgen_host/host_client.h"
#include "opgen_host/op_desc.h"
#include "opgen_torch/op_desc.h"

namespace opgen_torch {

// -- dtypes -------------------------------------------------------------------------------------
inline c10::ScalarType Scalar(Dtype t) { return static_cast<c10::ScalarType>(t); }
#define OPGEN_TORCH_SAME_DTYPE(name) \
    static_assert(static_cast<int>(Dtype::name) == static_cast<int>(c10::ScalarType::name), \
                  "opgen_torch::Dtype::" #name " is not c10::ScalarType::" #name);
OPGEN_TORCH_SAME_DTYPE(Byte) OPGEN_TORCH_SAME_DTYPE(Char) OPGEN_TORCH_SAME_DTYPE(Short)
OPGEN_TORCH_SAME_DTYPE(Int) OPGEN_TORCH_SAME_DTYPE(Long) OPGEN_TORCH_SAME_DTYPE(Half)
OPGEN_TORCH_SAME_DTYPE(Float) OPGEN_TORCH_SAME_DTYPE(Double) OPGEN_TORCH_SAME_DTYPE(Bool)
OPGEN_TORCH_SAME_DTYPE(BFloat16) OPGEN_TORCH_SAME_DTYPE(UInt16) OPGEN_TORCH_SAME_DTYPE(UInt32)
OPGEN_TORCH_SAME_DTYPE(UInt64)
#undef OPGEN_TORCH_SAME_DTYPE

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

// -- the support functions ---------------------------------------------------------------------
// Compiled once per torch version into the support object (opgen_runtime.torch_library, built
// and prebuilt like the simulator runtime) that every op library links; a library's unit, which
// holds only its ops' descriptions and registrations, declares them (OPGEN_TORCH_SUPPORT_UNIT
// is the support object's own unit).
#if defined(OPGEN_TORCH_SUPPORT_UNIT)
#define OPGEN_TORCH_SUPPORT_BODIES 1
#else
#define OPGEN_TORCH_SUPPORT_BODIES 0
#endif
#define OPGEN_TORCH_SUPPORT_FN

// -- attrs --------------------------------------------------------------------------------------
// An attr's value as the shape rules and the tiling policy use it.
struct AttrValueStore : opgen_host::AttrValue {
    c10::ScalarType dtype = c10::ScalarType::Undefined;  // kType
};

using Dims = c10::SmallVector<int64_t, 6>;

#if OPGEN_TORCH_SUPPORT_BODIES
// A call's argument errors, in opgen_runtime.argcheck's words ("<op>(): ..."): a dtype is a
// TypeError in Python, a value (shape, range, constraint, empty input) a ValueError; the
// generated wrapper turns them into the runtime's OpCallError / OpValueError.
[[noreturn]] OPGEN_TORCH_SUPPORT_FN void CallError(const OpDesc& d, const std::string& message) {
    TORCH_CHECK_TYPE(false, d.checks.op_name, "(): ", message);
    __builtin_unreachable();
}

[[noreturn]] OPGEN_TORCH_SUPPORT_FN void ValueError(const std::string& full_message) {
    TORCH_CHECK_VALUE(false, full_message);
    __builtin_unreachable();
}

// -- attrs --------------------------------------------------------------------------------------

OPGEN_TORCH_SUPPORT_FN void ReadAttr(const c10::IValue& v, AttrKind kind, AttrValueStore* out) {
    using opgen_host::Value;
    switch (kind) {
        case AttrKind::kInt: out->value = Value::Int(v.toInt()); break;
        case AttrKind::kFloat: out->value = Value::Float(v.toDouble()); break;
        case AttrKind::kBool: out->value = Value::Bool(v.toBool()); break;
        case AttrKind::kType:
            out->dtype = v.toScalarType();
            out->value = Value::Int(GeCode(out->dtype));
            break;
        case AttrKind::kListInt: out->SetInts(v.toIntVector()); break;
        case AttrKind::kListBool: {
            std::vector<int64_t> bools;
            for (bool b : v.toBoolList()) bools.push_back(b ? 1 : 0);
            out->SetBools(std::move(bools));
            break;
        }
        case AttrKind::kListFloat: out->SetFloats(v.toDoubleVector()); break;
        default: out->known = false; break;
    }
}

// -- checks -------------------------------------------------------------------------------------
OPGEN_TORCH_SUPPORT_FN std::string ShapeText(c10::IntArrayRef s) {  // Python's tuple repr: (), (8,), (2, 8)
    return opgen_host::ShapeText({s.data(), s.size(), true});
}

// The column of the spec's dtype table this call selects; the error names every column.
OPGEN_TORCH_SUPPORT_FN size_t ResolveVariant(const OpDesc& d, const at::Tensor* const* in,
                             const AttrValueStore* attrs) {
    const size_t ni = d.inputs.size(), no = d.outputs.size();
    for (size_t v = 0; v < d.variants.size(); ++v) {
        const Variant& var = d.variants[v];
        bool ok = true;
        for (size_t i = 0; i < ni && ok; ++i) {
            ok = in[i] == nullptr || in[i]->scalar_type() == Scalar(var.dtypes[i]);
        }
        for (size_t o = 0; o < no && ok; ++o) {
            const int a = d.outputs[o].dtype_attr;
            ok = a < 0 || attrs[a].dtype == Scalar(var.dtypes[ni + o]);
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
                         DtypeName(Scalar(var.dtypes[i]));
        }
    }
    CallError(d, "no supported dtype combination for (" + have + "); " + d.spec_path +
                     " supports: " + supported);
}

// -- output shapes ------------------------------------------------------------------------------

OPGEN_TORCH_SUPPORT_FN void OutputDims(const OpDesc& d, const ShapeRule& r, const at::Tensor* const* in,
                       const AttrValueStore* attrs, Dims* out) {
    opgen_host::ShapeRef shapes[opgen_host::kSimMaxArgs];
    for (size_t i = 0; i < d.inputs.size(); ++i) {
        if (in[i] != nullptr) shapes[i] = {in[i]->sizes().data(), in[i]->sizes().size(), true};
    }
    const std::string err = opgen_host::OutputDims(r, d.inputs, shapes, attrs, true, out);
    if (err.empty()) return;
    std::string which;  // an output without a rule: named (the other errors name inputs)
    for (const auto& o : d.outputs) {
        if (&o.rule == &r && r.kind == ::opgen_host::RuleKind::kNone) {
            which = std::string("output '") + o.name + "': ";
        }
    }
    ValueError(std::string(d.checks.op_name) + "(): " + which + err);
}

// -- the CPU kernel -----------------------------------------------------------------------------
// The kernel variant of column `v`, loaded from the library's bytes on first use.
OPGEN_TORCH_SUPPORT_FN const opgen_host::SimKernel& LoadVariant(const OpDesc& d, size_t v) {
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

// Bytes of t's storage from its data to the storage's end.
OPGEN_TORCH_SUPPORT_FN int64_t Backed(const at::Tensor& t) {
    return static_cast<int64_t>(t.storage().nbytes()) -
           t.storage_offset() * static_cast<int64_t>(t.element_size());
}

// The outputs' memory, kept for reuse as a device's caching allocator keeps it (torch_npu's does
// on the NPU): a freed output of 1 MiB or more goes back into a pool, up to
// OPGEN_TORCH_GM_CACHE_MB (default 256; 0: none) in all, and the next output of the same size
// takes it, still mapped and often still in the CPU's cache, instead of new memory from malloc
// (glibc hands a freed block to whichever request fits it next, so an op whose padded outputs
// are a little larger than torch's could never reuse one). Each block carries its size in a
// 64-byte header. The pool itself is never destroyed, so an output freed during the process's
// exit still finds it.
class GmCacheAllocator final : public c10::Allocator {
public:
    static GmCacheAllocator& Get() {
        static GmCacheAllocator* a = new GmCacheAllocator();
        return *a;
    }
    c10::DataPtr allocate(size_t n) override {
        void* block = nullptr;
        if (n >= kMinCached && limit_ > 0) {
            std::lock_guard<std::mutex> lock(mu_);
            auto it = free_.find(n);
            if (it != free_.end()) {
                block = it->second;
                free_.erase(it);
                held_ -= n;
            }
        }
        if (block == nullptr) {
            block = c10::alloc_cpu(n + kHeader);
            std::memcpy(block, &n, sizeof n);
        }
        return {static_cast<uint8_t*>(block) + kHeader, block, &Release, c10::Device(c10::kCPU)};
    }
    c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
    void copy_data(void* dest, const void* src, std::size_t count) const override {
        std::memcpy(dest, src, count);
    }

private:
    static constexpr size_t kHeader = 64;  // the data stays 64-byte aligned, as c10's CPU memory
    static constexpr size_t kMinCached = size_t{1} << 20;
    GmCacheAllocator() {
        const char* env = std::getenv("OPGEN_TORCH_GM_CACHE_MB");
        const long mb = env != nullptr && *env != '\0' ? std::atol(env) : 256;
        limit_ = mb > 0 ? static_cast<size_t>(mb) << 20 : 0;
    }
    static void Release(void* block) {
        size_t n = 0;
        std::memcpy(&n, block, sizeof n);
        GmCacheAllocator& a = Get();
        if (n >= kMinCached) {
            std::lock_guard<std::mutex> lock(a.mu_);
            if (a.held_ + n <= a.limit_) {
                a.free_.emplace(n, block);
                a.held_ += n;
                return;
            }
        }
        c10::free_cpu(block);
    }
    std::mutex mu_;
    std::unordered_multimap<size_t, void*> free_;
    size_t held_ = 0;
    size_t limit_ = 0;
};

// A tensor with a device allocation's padding behind it (GmAllocation), for an output.
OPGEN_TORCH_SUPPORT_FN at::Tensor EmptyGm(c10::IntArrayRef dims, c10::ScalarType dtype) {
    int64_t numel = 1;
    for (int64_t d : dims) numel *= d;
    const int64_t item = static_cast<int64_t>(c10::elementSize(dtype));
    const int64_t padded = opgen_host::GmAllocation(numel * item) / item;
    at::Tensor t = at::detail::empty_generic({padded}, &GmCacheAllocator::Get(),
                                             c10::DispatchKeySet(c10::DispatchKey::CPU), dtype,
                                             std::nullopt);
    t.unsafeGetTensorImpl()->set_sizes_contiguous(dims);  // the storage keeps the padding
    return t;
}

// A tensor as a GM buffer: contiguous and 32-byte aligned (torch's CPU allocator aligns to 64;
// a view with a storage offset may not be), and, when it does not end on 32 bytes, with an
// allocation's padding behind it (a kernel copies its tail in whole blocks); else a copy that is.
OPGEN_TORCH_SUPPORT_FN at::Tensor AsGm(const at::Tensor& t) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(t.data_ptr());
    const int64_t nbytes = static_cast<int64_t>(t.nbytes());
    if (t.is_contiguous() && address % opgen_host::kGmAlign == 0 &&
        (nbytes % opgen_host::kGmAlign == 0 || Backed(t) >= opgen_host::GmAllocation(nbytes))) {
        return t;
    }
    at::Tensor c = EmptyGm(t.sizes(), t.scalar_type());
    c.copy_(t);
    return c;
}

// The GM buffer size of a tensor AsGm or EmptyGm gave: its allocation when backed.
OPGEN_TORCH_SUPPORT_FN int64_t GmBytes(const at::Tensor& t) {
    const int64_t nbytes = static_cast<int64_t>(t.nbytes());
    const int64_t full = opgen_host::GmAllocation(nbytes);
    return Backed(t) >= full ? full : nbytes;
}

// The simulated cores run on torch's intra-op threads (at::parallel_for, sized by
// torch.set_num_threads) rather than the kernel library's own: two pools spinning for the same
// cores slow each other down when torch ops and opgen ops alternate, as in a training step.
OPGEN_TORCH_SUPPORT_FN void TorchParallel(void*, int32_t n, void (*body)(void*), void* arg) {
    at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) body(arg);
    });
}

// -- call plans ---------------------------------------------------------------------------------
// What a call of an op without its own op_host computes from its inputs' dtypes and shapes and
// its attrs alone, before its launch: the kernel variant, the checks' verdict, the outputs'
// shapes, the default tiling and blockDim. A thread keeps the last few (an op called again with
// the same key, as in a training loop, skips straight to its outputs' allocation and launch); a
// call whose checks or tiling fail keeps nothing, so its error is raised again every time.
struct CallPlan {
    const OpDesc* desc = nullptr;
    c10::SmallVector<int64_t, 24> key;
    size_t variant = 0;
    opgen_host::SimKernel kernel;
    c10::SmallVector<Dims, 2> out_dims;
    int64_t block_dim = 1;
    c10::SmallVector<uint8_t, 128> tiling;
};

constexpr size_t kCallPlans = 8;
constexpr size_t kPlanTilingBytes = 256;  // a larger tiling struct is filled at every call

// The key of a call: per input its dtype, rank and dims (-1: absent), per attr its value's bits;
// false when an attr is of a kind the plans do not key (a list or a string).
inline bool PlanKey(const OpDesc& d, const at::Tensor* const* in, c10::ArrayRef<c10::IValue> attrs,
                    c10::SmallVector<int64_t, 24>* key) {
    key->clear();
    for (size_t i = 0; i < d.inputs.size(); ++i) {
        if (in[i] == nullptr) {
            key->push_back(-1);
            continue;
        }
        const auto s = in[i]->sizes();
        key->push_back(static_cast<int64_t>(in[i]->scalar_type()) << 8 |
                       static_cast<int64_t>(s.size()));
        key->append(s.begin(), s.end());
    }
    for (size_t k = 0; k < d.attrs.size(); ++k) {
        const c10::IValue& v = attrs[k];
        switch (d.attrs[k].kind) {
            case AttrKind::kInt: key->push_back(v.toInt()); break;
            case AttrKind::kBool: key->push_back(v.toBool() ? 1 : 0); break;
            case AttrKind::kType: key->push_back(static_cast<int64_t>(v.toScalarType())); break;
            case AttrKind::kFloat: {
                const double f = v.toDouble();
                int64_t bits = 0;
                std::memcpy(&bits, &f, sizeof bits);
                key->push_back(bits);
                break;
            }
            default: return false;
        }
    }
    return true;
}

inline CallPlan* FindPlan(CallPlan* plans, const OpDesc& d, const c10::SmallVector<int64_t, 24>& key) {
    for (size_t p = 0; p < kCallPlans; ++p) {
        if (plans[p].desc == &d && plans[p].key == key) return &plans[p];
    }
    return nullptr;
}

// Launches a planned call: its outputs allocated, its inputs as GM buffers.
inline void RunPlanned(const OpDesc& d, const std::string& names, const CallPlan& plan,
                       const at::Tensor* const* in, torch::jit::Stack* stack) {
    const size_t ni = d.inputs.size(), no = d.outputs.size(), na = d.attrs.size();
    const size_t n = ni + no;
    const Variant& var = d.variants[plan.variant];
    c10::SmallVector<at::Tensor, 8> gm(n);
    uint8_t* args[opgen_host::kSimMaxArgs] = {};
    int64_t sizes[opgen_host::kSimMaxArgs] = {};
    for (size_t o = 0; o < no; ++o) {
        gm[ni + o] = EmptyGm(plan.out_dims[o], Scalar(var.dtypes[ni + o]));
    }
    for (size_t i = 0; i < n; ++i) {
        if (i < ni && in[i] != nullptr) gm[i] = AsGm(*in[i]);
        if (!gm[i].defined()) continue;
        args[i] = static_cast<uint8_t*>(gm[i].data_ptr());
        sizes[i] = GmBytes(gm[i]);
    }
    alignas(64) uint8_t tiling[kPlanTilingBytes];
    std::memcpy(tiling, plan.tiling.data(), plan.tiling.size());  // the kernel may write it
    args[n + 1] = tiling;
    sizes[n + 1] = static_cast<int64_t>(plan.tiling.size());
    static const opgen_host::SocProfile* const soc = opgen_host::FindSoc(opgen_host::kDefaultSoc);
    int32_t block = -1;
    const std::string err = opgen_host::LaunchSimKernel(
        plan.kernel, static_cast<int32_t>(n + 2), args, sizes, names.data(), plan.block_dim,
        soc->ub_bytes, static_cast<int64_t>(plan.tiling.size()), &block, {&TorchParallel, nullptr});
    TORCH_CHECK(err.empty(), d.qualname, ": kernel '", d.entry, "', block ", block, ": ", err);
    torch::jit::drop(*stack, ni + na);
    for (size_t o = 0; o < no; ++o) stack->emplace_back(std::move(gm[ni + o]));
}

OPGEN_TORCH_SUPPORT_FN void RunCpu(const OpDesc& d, const std::string& names, torch::jit::Stack* stack) {
    const size_t ni = d.inputs.size(), no = d.outputs.size(), na = d.attrs.size();
    const size_t n = ni + no;
    TORCH_CHECK(n + 2 <= static_cast<size_t>(opgen_host::kSimMaxArgs), d.qualname,
                ": too many tensors for the simulator launch");
    auto args_in = torch::jit::last(*stack, ni + na);
    const at::Tensor* in[opgen_host::kSimMaxArgs] = {};
    for (size_t i = 0; i < ni; ++i) {
        if (!args_in[i].isNone()) in[i] = &args_in[i].toTensor();
    }
    // An op with its own op_host: its InferShape (when it has one) gives the output shapes and
    // its TilingFunc the launch (docs/op-host.md); every call asks them.
    const bool own_host = d.host.begin != nullptr;
    thread_local CallPlan plans[kCallPlans];
    thread_local size_t next_plan = 0;
    c10::SmallVector<int64_t, 24> key;
    const bool plannable = !own_host && d.tiling_size <= kPlanTilingBytes &&
                           PlanKey(d, in, args_in.slice(ni, na), &key);
    if (plannable) {
        if (const CallPlan* plan = FindPlan(plans, d, key)) {
            RunPlanned(d, names, *plan, in, stack);
            return;
        }
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
    opgen_host::ShapeRef in_shapes[opgen_host::kSimMaxArgs];
    for (size_t i = 0; i < ni; ++i) {
        if (in[i] != nullptr) in_shapes[i] = {in[i]->sizes().data(), in[i]->sizes().size(), true};
    }
    {
        const std::string err = opgen_host::CheckArgs(d.checks, d.inputs, in_shapes, attrs);
        if (!err.empty()) ValueError(err);
    }
    static const opgen_host::SocProfile* const soc =
        opgen_host::FindSoc(opgen_host::kDefaultSoc);

    std::vector<opgen_host::HostAttr> host_attrs;
    c10::SmallVector<opgen_host::HostArg, 8> host_args(n);
    std::vector<std::vector<int64_t>> host_dims;
    std::vector<bool> host_set;
    bool host_shapes = false;
    if (own_host) {
        for (size_t k = 0; k < na; ++k) {
            const std::string text = args_in[ni + k].isString()
                                         ? args_in[ni + k].toStringRef() : std::string();
            host_attrs.push_back(opgen_host::ToHostAttr(d.attrs[k].kind, attrs[k], text));
        }
        for (size_t i = 0; i < ni; ++i) {
            host_args[i] = {static_cast<int32_t>(GeCode(Scalar(var.dtypes[i]))),
                            in[i] ? in[i]->sizes().data() : nullptr,
                            in[i] ? static_cast<int32_t>(in[i]->dim()) : 0, in[i] != nullptr};
        }
        const std::string err = opgen_host::HostInferShapes(
            d.host, host_args.data(), static_cast<int>(ni), static_cast<int>(no), host_attrs,
            *soc, &host_dims, &host_shapes, &host_set);
        TORCH_CHECK(err.empty(), d.qualname, ": ", d.host.op_type, ": ", err);
    }

    c10::SmallVector<at::Tensor, 8> gm(n);  // GM views of inputs, then the outputs
    c10::SmallVector<Dims, 8> dims(n);
    bool any = false;
    for (size_t o = 0; o < no; ++o) {
        if (host_shapes && host_set[o]) {
            dims[ni + o].assign(host_dims[o].begin(), host_dims[o].end());
        } else {
            OutputDims(d, d.outputs[o].rule, in, attrs.data(), &dims[ni + o]);
        }
        gm[ni + o] = EmptyGm(dims[ni + o], Scalar(var.dtypes[ni + o]));
    }
    {
        bool skip = false;
        const std::string err = opgen_host::CheckEmpty(d.checks.op_name, d.inputs, in_shapes,
                                                       d.outputs, dims.data() + ni, &skip);
        if (!err.empty()) ValueError(err);
        any = !skip;
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
                        static_cast<int64_t>(c10::elementSize(Scalar(var.dtypes[i]))), dims[i].data(),
                        static_cast<int32_t>(dims[i].size())};
            if (!present) continue;
            args[i] = static_cast<uint8_t*>(gm[i].data_ptr());
            sizes[i] = GmBytes(gm[i]);
        }
        int32_t block = -1;
        std::string err;
        if (own_host) {
            int32_t out_dtypes[opgen_host::kSimMaxArgs];
            for (size_t o = 0; o < no; ++o) {
                out_dtypes[o] = static_cast<int32_t>(GeCode(Scalar(var.dtypes[ni + o])));
            }
            bool tiling_failed = false;
            err = opgen_host::HostTileAndLaunch(
                LoadVariant(d, variant), d.host, host_args.data(), static_cast<int>(ni),
                static_cast<int>(no), out_dtypes, dims.data() + ni, host_attrs, *soc,
                names.data(), args, sizes, &tiling_failed, &block, {&TorchParallel, nullptr});
            TORCH_CHECK(!tiling_failed, d.qualname, ": ", err);
        } else {
            // the default tiling policy (opgen_host::TileAndLaunch's two steps), kept as a plan
            alignas(64) uint8_t small[kPlanTilingBytes];
            std::vector<uint8_t> large;
            uint8_t* tiling = small;
            if (d.tiling_size > sizeof small) {
                large.resize(d.tiling_size + 64);
                tiling = large.data() + (64 - reinterpret_cast<uintptr_t>(large.data()) % 64) % 64;
            }
            int64_t block_dim = 1;
            err = opgen_host::DefaultTiling(
                d.tiling_struct, d.fields.data(), static_cast<int>(d.fields.size()),
                d.tiling_size, targs, static_cast<int>(n), policy_attrs.data(),
                static_cast<int>(policy_attrs.size()), *soc, opgen_host::kAutoBlockDim, tiling,
                &block_dim);
            TORCH_CHECK(err.empty(), d.qualname, ": ", err);
            const opgen_host::SimKernel& kernel = LoadVariant(d, variant);
            if (plannable) {
                CallPlan& plan = plans[next_plan];
                next_plan = (next_plan + 1) % kCallPlans;
                plan.desc = &d;
                plan.key = key;
                plan.variant = variant;
                plan.kernel = kernel;
                plan.out_dims.assign(dims.begin() + static_cast<std::ptrdiff_t>(ni), dims.end());
                plan.block_dim = block_dim;
                plan.tiling.assign(tiling, tiling + d.tiling_size);
            }
            args[n + 1] = tiling;
            sizes[n + 1] = static_cast<int64_t>(d.tiling_size);
            err = opgen_host::LaunchSimKernel(kernel, static_cast<int32_t>(n + 2), args, sizes,
                                              names.data(), block_dim, soc->ub_bytes,
                                              static_cast<int64_t>(d.tiling_size), &block,
                                              {&TorchParallel, nullptr});
        }
        TORCH_CHECK(err.empty(), d.qualname, ": kernel '", d.entry, "', block ", block, ": ",
                    err);
    }
    torch::jit::drop(*stack, ni + na);
    for (size_t o = 0; o < no; ++o) stack->emplace_back(std::move(gm[ni + o]));
}

// The GM argument names of an op's launches (opgen_host::GmNames), for its messages.
OPGEN_TORCH_SUPPORT_FN std::string GmNamesOf(const OpDesc& d) {
    return opgen_host::GmNames(d.inputs, d.outputs);
}

}  // namespace opgen_torch

// The ops' direct Python entries, in the support object a package library links (not in a
// program without Python that defines the support functions itself).
#if defined(OPGEN_TORCH_PY_ENTRY)
#include "opgen_torch/py_entry.h"
#endif

namespace opgen_torch {

// -- registration -------------------------------------------------------------------------------
// The boxed CPU kernel of one op: its description, read when the library loads.
class DescKernel final : public c10::OperatorKernel {
public:
    explicit DescKernel(const OpDesc& d) : desc_(d), names_(GmNamesOf(d)) {}
    void operator()(const c10::OperatorHandle&, c10::DispatchKeySet, torch::jit::Stack* stack) {
        RunCpu(desc_, names_, stack);
    }

private:
    const OpDesc& desc_;
    const std::string names_;
};

struct CpuKernels::Libraries {
    torch::Library impl, cpu_def, cpu_impl;
};

CpuKernels::CpuKernels(const char* ns, const char* cpu_ns, const char* op, const char* schema,
                       const OpDesc& (*desc)(), const char* file, uint32_t line)
    : libraries_(new Libraries{
          torch::Library(torch::Library::IMPL, ns, c10::DispatchKey::CPU, file, line),
          torch::Library(torch::Library::FRAGMENT, cpu_ns, std::nullopt, file, line),
          torch::Library(torch::Library::IMPL, cpu_ns, c10::DispatchKey::CPU, file, line)}) {
    const OpDesc& d = desc();
    libraries_->impl.impl(op, torch::CppFunction::makeFromBoxedFunctor(
                                  std::make_unique<DescKernel>(d)));
    libraries_->cpu_def.def(schema);
    libraries_->cpu_impl.impl(op, torch::CppFunction::makeFromBoxedFunctor(
                                      std::make_unique<DescKernel>(d)));
#if defined(OPGEN_TORCH_PY_ENTRY)
    AddFastEntry(std::string(ns) + "::" + op, std::string(cpu_ns) + "::" + op, d);
#endif
}

CpuKernels::~CpuKernels() { delete libraries_; }

#else
// declared: the support object defines them (what the generated code and npu_op.h call)
[[noreturn]] void ValueError(const std::string& full_message);
void ReadAttr(const c10::IValue& v, AttrKind kind, AttrValueStore* out);
size_t ResolveVariant(const OpDesc& d, const at::Tensor* const* in, const AttrValueStore* attrs);
void OutputDims(const OpDesc& d, const ShapeRule& r, const at::Tensor* const* in,
                const AttrValueStore* attrs, Dims* out);
std::string GmNamesOf(const OpDesc& d);
void RunCpu(const OpDesc& d, const std::string& names, torch::jit::Stack* stack);
#endif  // OPGEN_TORCH_SUPPORT_BODIES

}  // namespace opgen_torch
