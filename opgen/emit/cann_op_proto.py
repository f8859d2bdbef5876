"""CANN op_proto/<op>_proto.h and .cc: the graph-mode prototype (REG_OP) and its shape and dtype
inference, registered with CANN's IMPLEMT_COMMON_INFERFUNC / COMMON_INFER_FUNC_REG macros.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.dtypes import AttrType
from opgen.emit import cann_infer
from opgen.emit.cann_naming import cann_stem, ge_dtype, reg_op_attr_type
from opgen.emit.cann_op_host import cpp_value
from opgen.emit.common import banner_text, render
from opgen.kernel_frontend.check import CheckedKernel
from opgen.model import OpSpec, TensorDesc

OP_PROTO_DIR = "cann/op_proto"


@dataclass(frozen=True)
class ProtoTensor:
    macro: str  # INPUT | OPTIONAL_INPUT | DYNAMIC_INPUT | OUTPUT | DYNAMIC_OUTPUT
    name: str
    types: str  # "DT_FLOAT, DT_FLOAT16"


@dataclass(frozen=True)
class ProtoAttr:
    name: str
    type: str  # Int, Float, ...
    default: str  # empty: REQUIRED_ATTR


@dataclass(frozen=True)
class ProtoView:
    banner: str
    op_type: str
    guard: str
    header: str
    tensors: tuple[ProtoTensor, ...]
    attrs: tuple[ProtoAttr, ...]
    infer_func: str
    infer: cann_infer.InferPlan
    dtypes: tuple[cann_infer.DtypeRule, ...]


def proto_paths(spec: OpSpec) -> tuple[str, str]:
    stem = cann_stem(spec)
    return f"{OP_PROTO_DIR}/{stem}_proto.h", f"{OP_PROTO_DIR}/{stem}_proto.cc"


def _tensor(t: TensorDesc, output: bool) -> ProtoTensor:
    if output:
        macro = "DYNAMIC_OUTPUT" if t.is_dynamic else "OUTPUT"
    else:
        macro = ("DYNAMIC_INPUT" if t.is_dynamic else
                 "OPTIONAL_INPUT" if t.is_optional else "INPUT")
    unique = list(dict.fromkeys(ge_dtype(d) for d in t.dtypes))
    return ProtoTensor(macro, t.ir, ", ".join(unique))


def view(spec: OpSpec) -> ProtoView:
    stem = cann_stem(spec)
    attrs = tuple(
        ProtoAttr(a.ir, reg_op_attr_type(a.type) if a.type is not AttrType.LIST_STRING
                  else "ListString",
                  "" if a.default is None else cpp_value(a.default, a.type))
        for a in spec.attrs)
    return ProtoView(
        banner=banner_text(spec.spec_path),
        op_type=spec.op_type,
        guard=f"OPGEN_{stem.upper()}_PROTO_H_",
        header=f"{stem}_proto.h",
        tensors=tuple(_tensor(t, False) for t in spec.inputs)
        + tuple(_tensor(t, True) for t in spec.outputs),
        attrs=attrs,
        infer_func=f"{spec.op_type}InferShape",
        infer=cann_infer.plan(spec),
        dtypes=cann_infer.dtype_rules(spec),
    )


def emit(spec: OpSpec, output_dir: str, kernel: CheckedKernel) -> dict[str, str]:
    v = view(spec)
    header, source = proto_paths(spec)
    return {header: render("cann/op_proto/op_proto.h.j2", v=v),
            source: render("cann/op_proto/op_proto.cc.j2", v=v)}
