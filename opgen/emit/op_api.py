"""The CPU op_api library of the project (libcust_opapi.so, what CANN's build installs as
vendors/<vendor>/op_api): per op its aclnn<Op>GetWorkspaceSize / aclnn<Op> running on the
simulator, and one translation unit including them all.

Layout under <output_dir>/op_api/:
    <op>.h          the op's description (runtime/include/opgen_aclnn/op_api.h) and its two
                    extern "C" functions, defined with the parameters of the generated
                    cann/aclnn/aclnn_<stem>.h (cann_aclnn.view: one source for both, and the
                    compiler rejects a definition that differs from that declaration)
    cust_opapi.cc   includes every <op>.h; opgen_runtime.opapi_library compiles it and links
                    the kernel variants and op_hosts in (docs/cann.md, "aclnn drivers")
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from opgen.dtypes import AttrType
from opgen.emit import host_desc
from opgen.emit.cann_aclnn import AclnnParam
from opgen.emit.cann_aclnn import view as aclnn_view
from opgen.emit.cann_naming import acl_dtype, aclnn_header
from opgen.emit.common import banner_text, render, user_tiling
from opgen.gencache import OpRecord
from opgen.kernel_frontend import CheckedKernel
from opgen.model import OpSpec, TensorDesc
from opgen.project import Config

OP_API_DIR = "op_api"
LIBRARY_SOURCE = f"{OP_API_DIR}/cust_opapi.cc"

# How each attr type reaches opgen_aclnn::AttrIn.
_ATTR_IN = {
    AttrType.INT: "Int", AttrType.TYPE: "Int", AttrType.FLOAT: "Float", AttrType.BOOL: "Bool",
    AttrType.STRING: "String", AttrType.LIST_INT: "Ints", AttrType.LIST_FLOAT: "Floats",
    AttrType.LIST_BOOL: "Bools", AttrType.LIST_STRING: "Strings",
}


def blob_symbol(op_name: str, column: int) -> str:
    """A kernel variant embedded in libcust_opapi.so: 'opgen_opapi_blob_cast_3' (the runtime's
    opgen_runtime.opapi_library names it the same)."""
    return f"opgen_opapi_blob_{op_name}_{column}"


def host_blob_symbol(op_name: str) -> str:
    """The op's own op_host embedded beside its kernels (opgen_runtime.native_library.variants
    names it so)."""
    return blob_symbol(op_name, 0) + "_op_host"


@dataclass(frozen=True)
class OpApiView:
    banner: str
    op_name: str
    aclnn_header: str
    namespace: str
    op_type_name: str  # a validated identifier
    op_type: str  # C++ string literal
    workspace_fn: str
    run_fn: str
    spec_path: str  # C++ string literal
    params: tuple[AclnnParam, ...]  # the generated aclnn header's, in order
    tensors: tuple[str, ...]  # the C++ expressions of the inputs then outputs
    lists: tuple[str, ...]  # per input: its aclTensorList parameter, or nullptr; () if none
    lists_arg: str  # `lists`, or nullptr for an op without a dynamic input
    attrs: tuple[str, ...]  # opgen_aclnn::AttrIn initialisers
    unsupported: str  # C++ string literal, or "nullptr"
    desc: host_desc.DescView


def _tensor(t: TensorDesc, param: str) -> str:
    rank = -1 if t.shape is None else len(t.shape)
    dynamic = ", true" if t.is_dynamic else ""
    return f'{{"{t.name}", "{param}", {host_desc.cbool(t.is_optional)}, {rank}{dynamic}}}'


def _unsupported(spec: OpSpec) -> str:
    """Why the op has no CPU aclnn implementation ("" when it has one)."""
    hook = user_tiling(spec)
    if hook:
        return f"{spec.op_type} tiles with {hook}, which the C++ op library cannot call"
    if spec.list_outputs:
        return (f"{spec.op_type} has a list (aclTensorList) output '{spec.list_outputs[0].name}', "
                "which opgen's aclnn does not pass out")
    if spec.ref_outputs:
        t = spec.ref_outputs[0]
        return (f"{spec.op_type}'s output '{t.name}' is the buffer of its input '{t.ref}' (ref), "
                "which opgen's aclnn does not pass as one buffer")
    dynamic = [t.name for t in spec.inputs if t.is_dynamic]
    if dynamic and not spec.kernel.op_host:
        return (f"{spec.op_type} has a dynamic (aclTensorList) input '{dynamic[0]}', which only "
                "the op's own op_host (kernel.op_host) can tile")
    return ""


def view(spec: OpSpec, kernel: CheckedKernel) -> OpApiView:
    a = aclnn_view(spec)
    unsupported = _unsupported(spec)
    tensors = [(t, p) for t, p in zip(spec.inputs, a.inputs, strict=True)]
    tensors += [(t, p) for t, p in zip(spec.outputs, a.outputs, strict=True)]
    lists: tuple[str, ...] = ()
    if any(t.is_dynamic for t in spec.inputs):
        lists = tuple(p.name if t.is_dynamic else "nullptr"
                      for t, p in zip(spec.inputs, a.inputs, strict=True))
    return OpApiView(
        banner=banner_text(spec.spec_path),
        op_name=spec.op_name,
        aclnn_header=aclnn_header(spec.op_type),
        namespace=f"opgen_opapi_{spec.op_name}",
        op_type_name=spec.op_type,
        op_type=host_desc.cstr(spec.op_type),
        workspace_fn=a.workspace_fn,
        run_fn=a.run_fn,
        spec_path=host_desc.cstr(spec.spec_path),
        params=a.params,
        tensors=tuple("nullptr" if t.is_dynamic else p.name for t, p in tensors),
        lists=lists,
        lists_arg="lists" if lists else "nullptr",
        attrs=tuple(f"::opgen_aclnn::AttrIn::{_ATTR_IN[attr.type]}({p.name})"
                    for attr, p in zip(spec.attrs, a.attrs, strict=True)),
        unsupported=host_desc.cstr(unsupported) if unsupported else "nullptr",
        desc=host_desc.desc_view(
            spec, kernel,
            inputs=[_tensor(t, p.name) for t, p in zip(spec.inputs, a.inputs, strict=True)],
            outputs=[_tensor(t, p.name) for t, p in zip(spec.outputs, a.outputs, strict=True)],
            blob_symbol=blob_symbol, host_symbol=host_blob_symbol, dtype=acl_dtype),
    )


def emit(spec: OpSpec, output_dir: str, kernel: CheckedKernel) -> dict[str, str]:
    return {f"{OP_API_DIR}/{spec.op_name}.h": render("op_api/op.h.j2", v=view(spec, kernel))}


def emit_package(ops: Sequence[OpRecord], config: Config) -> dict[str, str]:
    return {LIBRARY_SOURCE: render("op_api/library.cc.j2", banner=banner_text(),
                                   ops=sorted(o.op_name for o in ops))}
