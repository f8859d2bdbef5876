"""The PyTorch op's NPU kernel: per op `torch/cc/<op>_npu.h`, the `PrivateUse1` kernel torch_npu
dispatches to.

It checks the call and allocates the outputs as the CPU kernel does (opgen_torch::NpuPrepare,
runtime/include/opgen_torch/npu_op.h, from the op's OpDesc in `cc/<op>.h`), then runs the op's
aclnn two-phase API through op-plugin's `EXEC_NPU_CMD_EXT(aclnn<Op>, args...)`, which converts
the arguments (at::Tensor -> aclTensor*, ...), calls `aclnn<Op>GetWorkspaceSize(args...,
&workspaceSize, &executor)`, allocates the workspace on the device and queues
`aclnn<Op>(workspace, workspaceSize, executor, stream)` on the current NPU stream. The arguments
are in the order of the generated aclnn header (cann_aclnn.view: inputs, attrs, outputs).

`<package>_torch.cc` includes the headers only when compiled with OPGEN_TORCH_NPU
(opgen_runtime.torch_library does so when torch_npu imports); docs/npu.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.dtypes import AttrType
from opgen.emit import inplace
from opgen.emit import torch_naming as names
from opgen.emit.cann_aclnn import view as aclnn_view
from opgen.emit.common import banner_text, render, user_tiling
from opgen.emit.torch_ops import cc_dir
from opgen.kernel_frontend import CheckedKernel
from opgen.model import AttrDesc, OpSpec, TensorDesc
from opgen.project import Config

# The C++ parameter type of each attr type in the kernel's unboxed signature (torch's mapping of
# the schema type), and how the value reaches EXEC_NPU_CMD_EXT (the aclnn header's type:
# opgen.emit.cann_naming.aclnn_attr_type). Lists other than int[] have no conversion in
# op-plugin's ConvertType to the aclnn array type.
_ATTR_CXX: dict[AttrType, str] = {
    AttrType.INT: "int64_t", AttrType.FLOAT: "double", AttrType.BOOL: "bool",
    AttrType.STRING: "c10::string_view", AttrType.LIST_INT: "at::IntArrayRef",
    AttrType.TYPE: "at::ScalarType",
}


@dataclass(frozen=True)
class NpuArg:
    expr: str  # the C++ expression passed to EXEC_NPU_CMD_EXT
    param: str  # the aclnn header's parameter it binds to


@dataclass(frozen=True)
class NpuView:
    banner: str
    op_name: str
    op_type: str
    torch_namespace: str
    cpu_namespace: str  # the bare kernels' namespace (names.cpu_namespace), also on the NPU
    namespace: str  # the C++ namespace of the op's description (cc/<op>.h)
    unsupported: str  # why the op has no NPU kernel ("" when it has one)
    run_fn: str  # aclnn<Op>: EXEC_NPU_CMD_EXT appends GetWorkspaceSize
    workspace_fn: str
    aclnn_header: str
    return_type: str
    params: tuple[str, ...]
    first_tensor: str  # the device guard's tensor
    inputs: tuple[str, ...]  # NpuInput(...) per input
    attr_values: tuple[str, ...]  # c10::IValue per attr (the checks read them)
    locals: tuple[str, ...]  # statements converting attrs to the aclnn types
    args: tuple[NpuArg, ...]
    result: str


def kernel_path(spec: OpSpec, config: Config) -> str:
    return f"{cc_dir(config)}/{spec.op_name}_npu.h"


def unsupported(spec: OpSpec) -> str:
    """Why the op has no NPU kernel ("" when it has one)."""
    hook = user_tiling(spec)
    if hook:
        return f"the spec tiles with {hook}, which has no C++ (and no CANN op_host) form"
    for a in spec.attrs:
        if a.type not in _ATTR_CXX:
            return (f"attr '{a.name}' is a {a.type.value}, which op-plugin's EXEC_NPU_CMD does "
                    "not convert to its aclnn array type")
    return ""


def _param(t: TensorDesc) -> str:
    if t.is_dynamic:
        return f"at::TensorList {t.name}"
    if t.is_optional:
        return f"const std::optional<at::Tensor>& {t.name}"
    return f"const at::Tensor& {t.name}"


def _attr(a: AttrDesc, param: str) -> tuple[str, str, str, str]:
    """(C++ parameter, IValue for the checks, local statement or "", EXEC_NPU_CMD argument)."""
    cxx = _ATTR_CXX[a.type]
    n = a.name
    if a.type is AttrType.TYPE:
        local = f"int64_t opgen_{n} = ::opgen_torch::GeCode({n});  // its ge::DataType code"
        return f"{cxx} {n}", f"c10::IValue({n})", local, f"opgen_{n}"
    if a.type is AttrType.STRING:
        local = f"std::string opgen_{n}({n}.data(), {n}.size());"
        return (f"{cxx} {n}", f"c10::IValue(std::string({n}.data(), {n}.size()))", local,
                f"opgen_{n}_c")
    if a.type is AttrType.LIST_INT:
        return f"{cxx} {n}", f"c10::IValue({n}.vec())", "", n
    return f"{cxx} {n}", f"c10::IValue({n})", "", n


def view(spec: OpSpec, config: Config) -> NpuView:
    a = aclnn_view(spec)
    reason = unsupported(spec)
    params: list[str] = [_param(t) for t in spec.inputs]
    attr_values: list[str] = []
    local_lines: list[str] = []
    args = [NpuArg(t.name, p.name) for t, p in zip(spec.inputs, a.inputs, strict=True)]
    if not reason:
        for attr, p in zip(spec.attrs, a.attrs, strict=True):
            param, value, local, arg = _attr(attr, p.name)
            params.append(param)
            attr_values.append(value)
            if local:
                local_lines.append(local)
            if attr.type is AttrType.STRING:
                local_lines.append(f"char* opgen_{attr.name}_c = opgen_{attr.name}.data();")
            args.append(NpuArg(arg, p.name))
    args += [NpuArg(f"opgen_out.tensors[{i}]", p.name) for i, p in enumerate(a.outputs)]
    n_out = len(spec.outputs)
    if n_out == 1:
        return_type, result = "at::Tensor", "opgen_out.tensors[0]"
    else:
        return_type = "std::tuple<" + ", ".join(["at::Tensor"] * n_out) + ">"
        result = "std::make_tuple(" + ", ".join(
            f"opgen_out.tensors[{i}]" for i in range(n_out)) + ")"
    first = next((t for t in spec.inputs if not t.is_optional), spec.inputs[0])
    return NpuView(
        banner=banner_text(spec.spec_path),
        op_name=spec.op_name,
        op_type=spec.op_type,
        torch_namespace=config.namespace,
        cpu_namespace=names.cpu_namespace(config.namespace),
        namespace=names.cc_namespace(spec.op_name),
        unsupported=reason,
        run_fn=a.run_fn,
        workspace_fn=a.workspace_fn,
        aclnn_header=a.header,
        return_type=return_type,
        params=tuple(params),
        first_tensor=first.name,
        inputs=tuple(f"::opgen_torch::NpuInput({t.name})" for t in spec.inputs),
        attr_values=tuple(attr_values),
        locals=tuple(local_lines),
        args=tuple(args),
        result=result,
    )


def emit(spec: OpSpec, kernel: CheckedKernel, config: Config) -> dict[str, str]:
    if spec.framework_refused:  # no PyTorch op (opgen.emit.inplace)
        return {kernel_path(spec, config): inplace.header(
            inplace.view(spec, "PyTorch", f"{config.package}.torch.{spec.op_name}"))}
    return {kernel_path(spec, config): render("python/torch/npu_kernel.h.j2",
                                              v=view(spec, config))}
