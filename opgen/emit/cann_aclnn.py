"""The aclnn single-operator API of a CANN custom op: aclnn<Type>GetWorkspaceSize and aclnn<Type>.

CANN's build generates the implementation from the OpDef; opgen emits the declaration the
build will produce (so callers can be written and reviewed before a CANN build exists) and a
caller that uses it in the documented two-phase way.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.emit.cann_naming import (
    aclnn_attr_name,
    aclnn_attr_type,
    aclnn_function,
    aclnn_header,
    aclnn_input_name,
    aclnn_output_name,
    aclnn_tensor_type,
    aclnn_workspace_function,
    header_guard,
)
from opgen.emit.common import banner_text, render
from opgen.kernel_frontend.check import CheckedKernel
from opgen.model import OpSpec

ACLNN_DIR = "cann/aclnn"


@dataclass(frozen=True)
class AclnnParam:
    name: str
    ctype: str  # "const aclTensor *", "double", ...
    role: str  # required | optional | dynamic (the header's parameter comment)

    @property
    def decl(self) -> str:
        sep = "" if self.ctype.endswith("*") else " "
        return f"{self.ctype}{sep}{self.name}"


@dataclass(frozen=True)
class AclnnView:
    banner: str
    op_type: str
    header: str
    guard: str
    workspace_fn: str
    run_fn: str
    params: tuple[AclnnParam, ...]  # inputs, attrs, outputs (CANN's order)
    inputs: tuple[AclnnParam, ...]
    attrs: tuple[AclnnParam, ...]
    outputs: tuple[AclnnParam, ...]


def aclnn_paths(spec: OpSpec) -> tuple[str, str]:
    header = aclnn_header(spec.op_type)
    return f"{ACLNN_DIR}/{header}", f"{ACLNN_DIR}/{header[:-2]}_call.cpp"


def view(spec: OpSpec) -> AclnnView:
    inputs = tuple(AclnnParam(aclnn_input_name(t), aclnn_tensor_type(t), t.param_type.value)
                   for t in spec.inputs)
    attrs = tuple(AclnnParam(aclnn_attr_name(a), aclnn_attr_type(a.type),
                             "required" if a.required else "optional") for a in spec.attrs)
    outputs = tuple(AclnnParam(aclnn_output_name(spec, t), aclnn_tensor_type(t),
                               t.param_type.value) for t in spec.outputs)
    header = aclnn_header(spec.op_type)
    return AclnnView(
        banner=banner_text(spec.spec_path),
        op_type=spec.op_type,
        header=header,
        guard=header_guard(header[:-2]),
        workspace_fn=aclnn_workspace_function(spec.op_type),
        run_fn=aclnn_function(spec.op_type),
        params=inputs + attrs + outputs,
        inputs=inputs,
        attrs=attrs,
        outputs=outputs,
    )


def emit(spec: OpSpec, output_dir: str, kernel: CheckedKernel) -> dict[str, str]:
    v = view(spec)
    header, caller = aclnn_paths(spec)
    return {header: render("cann/aclnn/aclnn.h.j2", v=v),
            caller: render("cann/aclnn/aclnn_call.cpp.j2", v=v)}
