// A stand-in for op-plugin's npu_cpp_extension.h (torch_npu wheel, third_party/op-plugin), for
// tests/torch/test_npu_kernel.py: EXEC_NPU_CMD_EXT(aclnn_api, args...) does what op-plugin's
// does, in order, on the CPU, and records it:
//   convert the arguments (at::Tensor -> aclTensor*, std::optional<at::Tensor> -> aclTensor* or
//   nullptr, IntArrayRef -> aclIntArray*, TensorList -> aclTensorList*, scalars as they are),
//   aclnn_apiGetWorkspaceSize(converted..., &workspaceSize, &executor),
//   allocate the workspace (a byte tensor of that size on the inputs' device),
//   aclnn_api(workspace, workspaceSize, executor, stream), release the converted arguments.
// Unlike op-plugin (which finds both functions with dlsym), it calls them by name: the compiler
// checks the call against the generated aclnn header, and a static_assert requires the converted
// argument types to be exactly the header's parameter types (what a dlsym'd call relies on).
// The handles are opgen's CPU stand-ins (runtime/include/aclnn/acl_meta.h).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "aclnn/acl_meta.h"
#include "opgen_torch/sim_op.h"

namespace opgen_fake_npu {

// The recorded events, one JSON object a line.
inline std::string& Log() {
    static std::string log;
    return log;
}

inline void Record(const std::string& line) { Log() += line + "\n"; }

inline std::string Ptr(const void* p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "\"%p\"", p);
    return buf;
}

inline void* Stream() {  // GetAclStream(): the current NPU stream
    static int stream;
    return &stream;
}

inline const aclTensor* ConvertType(const at::Tensor& t) {
    if (!t.defined()) return nullptr;
    std::vector<int64_t> dims(t.sizes().begin(), t.sizes().end());
    std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
    return aclCreateTensor(dims.data(), dims.size(),
                           static_cast<aclDataType>(::opgen_torch::GeCode(t.scalar_type())),
                           strides.data(), 0, ACL_FORMAT_ND, dims.data(), dims.size(),
                           t.data_ptr());
}
inline const aclTensor* ConvertType(const std::optional<at::Tensor>& t) {
    return t.has_value() ? ConvertType(*t) : nullptr;
}
inline const aclIntArray* ConvertType(const at::IntArrayRef& a) {
    return aclCreateIntArray(a.data(), a.size());
}
inline const aclTensorList* ConvertType(const at::TensorList& list) {
    std::vector<const aclTensor*> ts;
    for (const at::Tensor& t : list) ts.push_back(ConvertType(t));
    return aclCreateTensorList(ts.data(), ts.size());
}
template <typename T>
T ConvertType(T value) {
    return value;
}

inline void Release(const aclTensor* t) { if (t) aclDestroyTensor(t); }
inline void Release(const aclIntArray* a) { if (a) aclDestroyIntArray(a); }
inline void Release(const aclTensorList* l) {
    if (!l) return;
    for (uint64_t i = 0; i < l->size; ++i) aclDestroyTensor(l->tensors[i]);
    aclDestroyTensorList(l);
}
template <typename T>
void Release(T) {}

template <typename F>
struct Params;
template <typename R, typename... P>
struct Params<R (*)(P...)> {
    using type = std::tuple<P...>;
};

template <typename WsFn, typename RunFn, typename... Ts>
void Exec(const char* api, WsFn workspace_fn, RunFn run_fn, Ts&... args) {
    auto converted = std::make_tuple(ConvertType(args)...);
    static_assert(std::is_same_v<std::tuple<decltype(ConvertType(args))..., uint64_t*,
                                            aclOpExecutor**>,
                                 typename Params<WsFn>::type>,
                  "EXEC_NPU_CMD_EXT's converted arguments differ from the aclnn header's "
                  "parameters");
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = std::apply(
        [&](auto... c) { return workspace_fn(c..., &workspace_size, &executor); }, converted);
    TORCH_CHECK(status == ACLNN_SUCCESS, api, "GetWorkspaceSize failed: ", status);
    at::Tensor workspace;
    void* workspace_addr = nullptr;
    if (workspace_size > 0) {
        workspace = at::empty({static_cast<int64_t>(workspace_size)}, at::kByte);
        workspace_addr = workspace.data_ptr();
    }
    Record("{\"ev\": \"alloc\", \"size\": " + std::to_string(workspace_size) +
           ", \"ptr\": " + Ptr(workspace_addr) + "}");
    const aclnnStatus run = run_fn(workspace_addr, workspace_size, executor, Stream());
    TORCH_CHECK(run == ACLNN_SUCCESS, api, " failed: ", run);
    std::apply([](auto... c) { (Release(c), ...); }, converted);
}

}  // namespace opgen_fake_npu

#define EXEC_NPU_CMD_EXT(aclnn_api, ...) \
    ::opgen_fake_npu::Exec(#aclnn_api, &aclnn_api##GetWorkspaceSize, &aclnn_api, __VA_ARGS__)
