// opgen host: calling an op's own op_host (its TilingFunc and InferShape, compiled by
// opgen_runtime.ophost and embedded in the framework library beside the kernel variants) from
// the C++ glue of the framework ops, through the op_host library's C ABI (host_abi_types.h).
// Framework-neutral: no TensorFlow, no torch.
#pragma once

#include <dlfcn.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "opgen_host/host_abi_types.h"
#include "opgen_host/op_desc.h"

namespace opgen_host {

using HostCallFn = int32_t (*)(const OpgenHostRequest*, OpgenHostReply*);

// An op_host image embedded in the library, and the op type its registrations use.
struct HostImage {
    const uint8_t* begin = nullptr;
    const uint8_t* end = nullptr;
    const char* op_type = "";
};

// One tensor as the op_host sees it: its ge::DataType code and shape; absent when !present.
struct HostArg {
    int32_t ge_dtype;
    const int64_t* dims;
    int32_t rank;
    bool present;
};

// One attr in the op's declaration order, as the op_host's RuntimeAttrs hold it.
struct HostAttr {
    int32_t kind;  // OpgenHostAttr kinds: 0 int, 1 float, 2 bool, 3 string, 4/5/6 lists
    std::vector<uint8_t> bytes;
    int64_t count;
};

// What the TilingFunc decided for one call.
struct HostDecision {
    std::vector<uint8_t> tiling;
    int64_t block_dim = 0;
    uint64_t tiling_key = 0;
    int64_t workspace = 0;
    // bit o: output o is zeroed before the launch (InitValue, with SetNeedAtomic(true))
    uint64_t zero_outputs = 0;
};

// An attr as the op_host's RuntimeAttrs hold it (`text`: a string attr's value).
inline HostAttr ToHostAttr(AttrKind kind, const AttrValue& a, const std::string& text) {
    HostAttr h{0, {}, 1};
    auto put = [&h](const void* p, size_t n) {
        const auto* b = static_cast<const uint8_t*>(p);
        h.bytes.insert(h.bytes.end(), b, b + n);
    };
    const Value& v = a.value;
    switch (kind) {
        case AttrKind::kInt: case AttrKind::kType: h.kind = 0; put(&v.i, sizeof v.i); break;
        case AttrKind::kFloat: {
            h.kind = 1;
            const float f = static_cast<float>(v.f);
            put(&f, sizeof f);
            break;
        }
        case AttrKind::kBool: {
            h.kind = 2;
            const uint8_t b = v.i != 0 ? 1 : 0;
            put(&b, 1);
            break;
        }
        case AttrKind::kString:
            h.kind = 3;
            put(text.data(), text.size());
            h.count = static_cast<int64_t>(text.size());
            break;
        case AttrKind::kListInt:
            h.kind = 4;
            put(v.ints, sizeof(int64_t) * static_cast<size_t>(v.len));
            h.count = v.len;
            break;
        case AttrKind::kListFloat:
            h.kind = 5;
            for (int32_t k = 0; k < v.len; ++k) {
                const float f = static_cast<float>(v.floats[k]);
                put(&f, sizeof f);
            }
            h.count = v.len;
            break;
        case AttrKind::kListBool:
            h.kind = 6;
            for (int32_t k = 0; k < v.len; ++k) {
                const uint8_t b = v.ints[k] != 0 ? 1 : 0;
                put(&b, 1);
            }
            h.count = v.len;
            break;
        case AttrKind::kListString: h.kind = 4; h.count = 0; break;  // not passed
    }
    if (h.bytes.empty()) h.bytes.push_back(0);
    return h;
}

inline std::string LoadHostImage(const HostImage& image, HostCallFn* out) {
    static std::mutex mu;
    static std::map<const uint8_t*, HostCallFn>* cache = new std::map<const uint8_t*, HostCallFn>();
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find(image.begin);
    if (it != cache->end()) {
        *out = it->second;
        return "";
    }
    if (image.end <= image.begin) return "the op_host image is empty";
    int fd = -1;
    std::string path;
    std::string err = detail::WriteImage(image.begin, static_cast<size_t>(image.end - image.begin),
                                         "opgen-op-host", &fd, &path);
    if (!err.empty()) return err;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char* dl_err = handle == nullptr ? dlerror() : nullptr;
    if (path.rfind("/proc/self/fd/", 0) != 0) {  // as for kernel images (sim_kernel.h)
        unlink(path.c_str());
        close(fd);
    } else if (handle == nullptr) {
        close(fd);
    }
    if (handle == nullptr) return std::string("cannot load the op_host: ") + (dl_err ? dl_err : "?");
    auto fn = reinterpret_cast<HostCallFn>(dlsym(handle, "opgen_host_call"));
    if (fn == nullptr) return "the op_host image has no opgen_host_call";
    (*cache)[image.begin] = fn;
    *out = fn;
    return "";
}

namespace detail {

// ir_counts: one per IR input (0: absent); tensors: the present inputs, then outputs.
// `ir_counts` null: `in` holds one HostArg per IR input (absent ones not present); else `in`
// holds the instances of every IR input in order, ir_counts[i] of input i (a dynamic input's
// list), all present.
inline int32_t HostCall(HostCallFn fn, int32_t what, const HostImage& image, const HostArg* in,
                        int ni, const HostArg* out, int no, const std::vector<HostAttr>& attrs,
                        const SocProfile& soc, uint8_t* tiling, int64_t capacity,
                        OpgenHostReply* rep, const int32_t* ir_counts = nullptr) {
    std::vector<int32_t> counts(static_cast<size_t>(ni));
    std::vector<OpgenHostTensor> tin, tout(static_cast<size_t>(no));
    auto fill = [](OpgenHostTensor& t, const HostArg& a) {
        std::memset(&t, 0, sizeof t);
        t.dtype = a.ge_dtype;
        t.format = 2;  // ge::FORMAT_ND
        t.ndim = a.rank < 25 ? a.rank : 25;
        for (int32_t d = 0; d < t.ndim; ++d) t.dims[d] = a.dims[d];
    };
    if (ir_counts != nullptr) {
        int k = 0;
        for (int i = 0; i < ni; ++i) {
            counts[static_cast<size_t>(i)] = ir_counts[i];
            for (int32_t j = 0; j < ir_counts[i]; ++j, ++k) {
                tin.emplace_back();
                fill(tin.back(), in[k]);
            }
        }
    } else {
        for (int i = 0; i < ni; ++i) {
            counts[static_cast<size_t>(i)] = in[i].present ? 1 : 0;
            if (!in[i].present) continue;
            tin.emplace_back();
            fill(tin.back(), in[i]);
        }
    }
    for (int o = 0; o < no; ++o) fill(tout[static_cast<size_t>(o)], out[o]);
    std::vector<OpgenHostAttr> cattrs(attrs.size());
    for (size_t k = 0; k < attrs.size(); ++k) {
        cattrs[k] = {attrs[k].kind, 0, attrs[k].count, attrs[k].bytes.data()};
    }
    OpgenHostRequest req{};
    req.op_type = image.op_type;
    req.what = what;
    req.num_ir_inputs = ni;
    req.ir_counts = counts.data();
    req.num_inputs = static_cast<int32_t>(tin.size());
    req.num_outputs = no;
    req.inputs = tin.data();
    req.outputs = tout.data();
    req.num_attrs = static_cast<int32_t>(cattrs.size());
    req.aiv_cores = static_cast<int32_t>(soc.vector_cores);
    req.attrs = cattrs.data();
    req.soc = soc.name;
    req.ub_bytes = soc.ub_bytes;
    req.aic_cores = static_cast<int32_t>(soc.cube_cores > 0 ? soc.cube_cores : soc.vector_cores);
    req.sys_workspace = soc.system_workspace;
    req.tiling = tiling;
    req.tiling_capacity = capacity;
    return fn(&req, rep);
}

inline std::string HostError(const char* function, int32_t status, const OpgenHostReply& rep) {
    const std::string message(rep.message);
    if (status == kMissing || status == kBadRequest) return message;
    return std::string("the op_host ") + function + " " +
           (message.empty() ? std::string("failed") : message);
}

}  // namespace detail

// Output shapes from the op_host's InferShape; *available is false when it registers none
// (the caller then uses the spec's shape rule). (*set)[o] is false for an output whose shape
// InferShape never asks for (an aclnn caller passes it): the caller uses the rule for it too.
inline std::string HostInferShapes(const HostImage& image, const HostArg* in, int ni,
                                   int no, const std::vector<HostAttr>& attrs,
                                   const SocProfile& soc, std::vector<std::vector<int64_t>>* out,
                                   bool* available, std::vector<bool>* set) {
    HostCallFn fn = nullptr;
    std::string err = LoadHostImage(image, &fn);
    if (!err.empty()) return err;
    std::vector<HostArg> outs(static_cast<size_t>(no), HostArg{0, nullptr, 0, true});
    OpgenHostReply rep;
    const int32_t status = detail::HostCall(fn, 2, image, in, ni, outs.data(), no, attrs, soc,
                                            nullptr, 0, &rep);
    *available = status != kMissing;
    if (!*available) return "";
    if (status != kOk) return detail::HostError("InferShape", status, rep);
    out->assign(static_cast<size_t>(no), {});
    set->assign(static_cast<size_t>(no), false);
    for (int o = 0; o < no; ++o) {
        if (rep.out_ndim[o] < 0) continue;
        (*set)[static_cast<size_t>(o)] = true;
        (*out)[static_cast<size_t>(o)].assign(rep.out_dims[o], rep.out_dims[o] + rep.out_ndim[o]);
    }
    return "";
}

// Runs the op_host's TilingFunc for the call's tensors (inputs, then outputs) and attrs.
// `ir_counts`: as HostCall's (null: one HostArg per IR input).
inline std::string HostTiling(const HostImage& image, const HostArg* in, int ni,
                              const HostArg* out, int no, const std::vector<HostAttr>& attrs,
                              const SocProfile& soc, HostDecision* d,
                              const int32_t* ir_counts = nullptr) {
    HostCallFn fn = nullptr;
    std::string err = LoadHostImage(image, &fn);
    if (!err.empty()) return err;
    constexpr int64_t kCapacity = 64 * 1024;
    d->tiling.assign(static_cast<size_t>(kCapacity), 0);
    OpgenHostReply rep;
    const int32_t status = detail::HostCall(fn, 1, image, in, ni, out, no, attrs, soc,
                                            d->tiling.data(), kCapacity, &rep, ir_counts);
    if (status != kOk) return detail::HostError("TilingFunc", status, rep);
    if (!rep.block_dim_set || rep.block_dim < 1) {
        return "the op_host TilingFunc did not set a block dim (context->SetBlockDim(n) with "
               "n >= 1)";
    }
    d->tiling.resize(static_cast<size_t>(rep.tiling_size));
    d->block_dim = rep.block_dim;
    d->tiling_key = rep.tiling_key;
    d->workspace = 0;
    for (int32_t k = 0; k < rep.num_workspaces; ++k) d->workspace += rep.workspaces[k];
    d->zero_outputs = rep.need_atomic != 0 ? rep.init_zero_outputs : 0;
    return "";
}

// Zeroes the outputs the decision names (args[ni + o], sizes[ni + o] bytes): CANN clears an
// InitValue output before the launch of a TilingFunc that sets SetNeedAtomic(true).
inline void ZeroDecidedOutputs(const HostDecision& d, int ni, int no, uint8_t** args,
                               const int64_t* sizes) {
    for (int o = 0; o < no && o < 64; ++o) {
        if (((d.zero_outputs >> o) & 1u) != 0 && args[ni + o] != nullptr && sizes[ni + o] > 0) {
            std::memset(args[ni + o], 0, static_cast<size_t>(sizes[ni + o]));
        }
    }
}

// Launches `kernel` with what the op_host decided: args[0..n) are the tensors and args[n] the
// workspace, all the caller's; args[n + 1] becomes the tiling. Returns "" or the launch error.
inline std::string LaunchDecidedIn(const SimKernel& kernel, const HostDecision& d, int n,
                                   const char* names, int64_t ub_bytes, uint8_t** args,
                                   int64_t* sizes, int32_t* block, const SimThreads& pool = {}) {
    alignas(64) uint8_t small[256];
    std::vector<uint8_t> large;
    uint8_t* tiling = small;
    if (d.tiling.size() > sizeof small) {
        large.resize(d.tiling.size() + 64);
        tiling = large.data() + (64 - reinterpret_cast<uintptr_t>(large.data()) % 64) % 64;
    }
    if (!d.tiling.empty()) std::memcpy(tiling, d.tiling.data(), d.tiling.size());
    args[n + 1] = tiling;
    sizes[n + 1] = static_cast<int64_t>(d.tiling.size());
    if (kernel.set_tiling_key != nullptr) kernel.set_tiling_key(d.tiling_key);
    return LaunchSimKernel(kernel, n + 2, args, sizes, names, d.block_dim, ub_bytes,
                           static_cast<int64_t>(d.tiling.size()), block, pool);
}

// A launch's zeroed workspace: fresh anonymous memory, whose pages the system gives zeroed when
// the kernel first touches them, unmapped after the launch (CANN's system workspace alone is
// 16 MiB, which a buffer cleared in full cost on every call while most kernels touch a few bytes
// of it); a zeroed vector where the mapping fails. 64 bytes more than asked: a device
// allocation's padding.
class ZeroedWorkspace {
public:
    explicit ZeroedWorkspace(size_t bytes) : bytes_(bytes + 64) {
        void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            data_ = static_cast<uint8_t*>(p);
        } else {
            fallback_.assign(bytes_ + 64, 0);
            const uintptr_t at = reinterpret_cast<uintptr_t>(fallback_.data());
            data_ = fallback_.data() + (64 - at % 64) % 64;
        }
    }
    ~ZeroedWorkspace() {
        if (fallback_.empty() && data_ != nullptr) munmap(data_, bytes_);
    }
    ZeroedWorkspace(const ZeroedWorkspace&) = delete;
    ZeroedWorkspace& operator=(const ZeroedWorkspace&) = delete;
    uint8_t* data() const { return data_; }

private:
    size_t bytes_;
    uint8_t* data_ = nullptr;
    std::vector<uint8_t> fallback_;
};

// LaunchDecidedIn with the workspace the TilingFunc asked for allocated here (zeroed): the
// framework ops own no device memory of their own.
inline std::string LaunchDecided(const SimKernel& kernel, const HostDecision& d, int n,
                                 const char* names, int64_t ub_bytes, uint8_t** args,
                                 int64_t* sizes, int32_t* block, const SimThreads& pool = {}) {
    std::unique_ptr<ZeroedWorkspace> workspace;
    if (d.workspace > 0) {
        workspace.reset(new ZeroedWorkspace(static_cast<size_t>(d.workspace)));
        args[n] = workspace->data();
        sizes[n] = d.workspace;
    }
    return LaunchDecidedIn(kernel, d, n, names, ub_bytes, args, sizes, block, pool);
}

// The framework ops' call with an op_host: the outputs' HostArgs (host_args[ni..ni+no)) from
// their shapes and ge::DataType codes, then the TilingFunc, then the launch. Returns "" or the
// error, prefixed with the op type when it is the op_host's (*tiling_failed).
template <typename Dims>
std::string HostTileAndLaunch(const SimKernel& kernel, const HostImage& host, HostArg* host_args,
                              int ni, int no, const int32_t* out_dtypes, const Dims* out_dims,
                              const std::vector<HostAttr>& attrs, const SocProfile& soc,
                              const char* names, uint8_t** args, int64_t* sizes,
                              bool* tiling_failed, int32_t* block, const SimThreads& pool = {}) {
    for (int o = 0; o < no; ++o) {
        host_args[ni + o] = {out_dtypes[o], out_dims[o].data(),
                             static_cast<int32_t>(out_dims[o].size()), true};
    }
    HostDecision decided;
    const std::string err =
        HostTiling(host, host_args, ni, host_args + ni, no, attrs, soc, &decided);
    *tiling_failed = !err.empty();
    if (*tiling_failed) return std::string(host.op_type) + ": " + err;
    ZeroDecidedOutputs(decided, ni, no, args, sizes);
    return LaunchDecided(kernel, decided, ni + no, names, soc.ub_bytes, args, sizes, block, pool);
}

}  // namespace opgen_host
