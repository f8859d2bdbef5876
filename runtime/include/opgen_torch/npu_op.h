// The PrivateUse1 (Ascend NPU, torch_npu) kernel of a generated PyTorch op: the same argument
// checks, dtype column and output shapes as the CPU kernel (sim_op.h, from the op's OpDesc), the
// outputs allocated on the inputs' device, then the op's aclnn<Op>GetWorkspaceSize / aclnn<Op>
// through op-plugin's EXEC_NPU_CMD_EXT (the generated torch/cc/<op>_npu.h). Compiled only into
// a library built with OPGEN_TORCH_NPU (opgen_runtime.torch_library, when torch_npu imports);
// docs/npu.md, "PyTorch on the NPU".
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/util/SmallVector.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "opgen_torch/sim_op.h"

namespace opgen_torch {

// The outputs of one NPU call, allocated; `launch` is false when every output is empty (the
// CPU kernel's empty-tensor rule: nothing to compute, no aclnn call).
struct NpuOutputs {
    std::vector<at::Tensor> tensors;
    bool launch = true;
};

// An optional input as the checks see it: absent is nullptr.
inline const at::Tensor* NpuInput(const at::Tensor& t) { return &t; }
inline const at::Tensor* NpuInput(const std::optional<at::Tensor>& t) {
    return t.has_value() && t->defined() ? &*t : nullptr;
}
// A tensor list is checked and tiled by its first tensor, as the runtime does.
inline const at::Tensor* NpuInput(at::TensorList t) { return t.empty() ? nullptr : &t[0]; }

// Checks a call in the CPU kernel's order (attr values, dtype column, declared shapes, ranges and
// constraints, output shapes, empty tensors) with its messages, and allocates the outputs with
// the first present input's device.
inline NpuOutputs NpuPrepare(const OpDesc& d, std::initializer_list<const at::Tensor*> inputs,
                             std::initializer_list<c10::IValue> attr_values) {
    const size_t ni = d.inputs.size(), no = d.outputs.size(), na = d.attrs.size();
    TORCH_CHECK(inputs.size() == ni && attr_values.size() == na, d.qualname,
                ": the NPU kernel's arguments do not match its description");
    TORCH_CHECK(ni + no <= static_cast<size_t>(opgen_host::kSimMaxArgs), d.qualname,
                ": too many tensors");
    const at::Tensor* in[opgen_host::kSimMaxArgs] = {};
    const at::Tensor* first = nullptr;
    size_t i = 0;
    for (const at::Tensor* t : inputs) {
        in[i++] = t;
        if (first == nullptr && t != nullptr) first = t;
    }
    TORCH_CHECK(first != nullptr, d.qualname, ": no input tensor gives the device");
    c10::SmallVector<AttrValueStore, 4> attrs(na);
    std::vector<opgen_host::HostAttr> host_attrs;
    size_t k = 0;
    for (const c10::IValue& v : attr_values) {
        ReadAttr(v, d.attrs[k].kind, &attrs[k]);
        if (d.host.begin != nullptr) {
            host_attrs.push_back(opgen_host::ToHostAttr(
                d.attrs[k].kind, attrs[k], v.isString() ? v.toStringRef() : std::string()));
        }
        ++k;
    }
    const Variant& var = d.variants[ResolveVariant(d, in, attrs.data())];
    opgen_host::ShapeRef in_shapes[opgen_host::kSimMaxArgs];
    for (size_t j = 0; j < ni; ++j) {
        if (in[j] != nullptr) in_shapes[j] = {in[j]->sizes().data(), in[j]->sizes().size(), true};
    }
    {
        const std::string err = opgen_host::CheckArgs(d.checks, d.inputs, in_shapes, attrs);
        if (!err.empty()) ValueError(err);
    }
    // An op with its own op_host: its InferShape gives the output shapes, as on the CPU.
    std::vector<std::vector<int64_t>> host_dims;
    std::vector<bool> host_set;
    bool host_shapes = false;
    if (d.host.begin != nullptr) {
        static const opgen_host::SocProfile* const soc =
            opgen_host::FindSoc(opgen_host::kDefaultSoc);
        c10::SmallVector<opgen_host::HostArg, 8> host_args(ni + no);
        for (size_t j = 0; j < ni; ++j) {
            host_args[j] = {static_cast<int32_t>(GeCode(Scalar(var.dtypes[j]))),
                            in[j] ? in[j]->sizes().data() : nullptr,
                            in[j] ? static_cast<int32_t>(in[j]->dim()) : 0, in[j] != nullptr};
        }
        const std::string err = opgen_host::HostInferShapes(
            d.host, host_args.data(), static_cast<int>(ni), static_cast<int>(no), host_attrs,
            *soc, &host_dims, &host_shapes, &host_set);
        TORCH_CHECK(err.empty(), d.qualname, ": ", d.host.op_type, ": ", err);
    }
    NpuOutputs out;
    c10::SmallVector<Dims, 4> dims(no);
    for (size_t o = 0; o < no; ++o) {
        if (host_shapes && host_set[o]) {
            dims[o].assign(host_dims[o].begin(), host_dims[o].end());
        } else {
            OutputDims(d, d.outputs[o].rule, in, attrs.data(), &dims[o]);
        }
        out.tensors.push_back(at::empty(dims[o], first->options().dtype(Scalar(var.dtypes[ni + o]))));
    }
    bool skip = false;
    const std::string err = opgen_host::CheckEmpty(d.checks.op_name, d.inputs, in_shapes,
                                                   d.outputs, dims.data(), &skip);
    if (!err.empty()) ValueError(err);
    out.launch = !skip;
    return out;
}

}  // namespace opgen_torch
