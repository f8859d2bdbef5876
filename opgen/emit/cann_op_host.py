"""CANN op_host/<op>.cpp: the OpDef (inputs, outputs, attrs, SoCs), shape and dtype inference,
and the TilingFunc, which calls the default host tiling of the tiling header (emit/tiling.py).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from opgen.dtypes import AttrType, DType
from opgen.emit import cann_infer, tiling
from opgen.emit.cann_naming import cann_stem, ge_dtype, ge_format, opdef_attr_setter
from opgen.emit.common import banner_text, render
from opgen.emit.escape import cxx_str
from opgen.kernel_frontend.check import CheckedKernel
from opgen.model import AttrDesc, AttrValue, OpSpec, TensorDesc

OP_HOST_DIR = "cann/op_host"


@dataclass(frozen=True)
class ParamView:
    name: str
    param_type: str  # REQUIRED | OPTIONAL | DYNAMIC (ops::Option)
    dtypes: str  # "ge::DT_FLOAT, ge::DT_FLOAT16"
    formats: str


@dataclass(frozen=True)
class AttrView:
    name: str
    attr_type: str  # REQUIRED | OPTIONAL
    setter: str  # Int, Float, ...
    default: str  # C++ argument of the setter; empty for a required attr
    note: str  # why an attr is declared differently, or empty


@dataclass(frozen=True)
class OpHostView:
    banner: str
    op_type: str
    inputs: tuple[ParamView, ...]
    outputs: tuple[ParamView, ...]
    attrs: tuple[AttrView, ...]
    socs: tuple[str, ...]
    tiling_header: str | None
    tiling_mode: str  # default | hook | none
    default_tiling: str  # <OpType>DefaultTiling (from the tiling header)
    user_tiling: str  # <OpType>Tiling, declared for specs with a tiling_hook
    infer: cann_infer.InferPlan
    dtypes: tuple[cann_infer.DtypeRule, ...]


def op_host_path(spec: OpSpec) -> str:
    return f"{OP_HOST_DIR}/{cann_stem(spec)}.cpp"


def _param(t: TensorDesc) -> ParamView:
    return ParamView(t.ir, t.param_type.value.upper(),
                     ", ".join(f"ge::{ge_dtype(d)}" for d in t.dtypes),
                     ", ".join(f"ge::{ge_format(f)}" for f in t.formats))


def cpp_scalar(value: object, atype: AttrType, *, in_list: bool = False) -> str:
    """A C++ literal for an attr value of scalar type `atype`."""
    if isinstance(value, DType):
        return f"static_cast<int64_t>(ge::{ge_dtype(value)})"
    if atype is AttrType.BOOL:
        return "true" if value else "false"
    if atype is AttrType.FLOAT:
        text = repr(float(value))  # type: ignore[arg-type]
        return f"{text}f" if in_list else text
    if atype is AttrType.STRING:
        return cxx_str(str(value))
    return str(int(value))  # type: ignore[call-overload]


def cpp_value(value: AttrValue, atype: AttrType) -> str:
    if atype.is_list:
        assert isinstance(value, tuple)
        items = ", ".join(cpp_scalar(v, atype.element, in_list=True) for v in value)
        return f"{{{items}}}"
    return cpp_scalar(value, atype)


def _attr(a: AttrDesc) -> AttrView:
    if a.type is AttrType.LIST_STRING:
        # OpAttrDef has no list-of-strings setter; declare the name so the index order holds.
        return AttrView(a.ir, "OPTIONAL", "ListInt", "{}",
                        "list_string attrs have no OpDef type; passed as an empty ListInt")
    default = "" if a.default is None else cpp_value(a.default, a.type)
    note = "a `type` attr travels as its ge::DataType value" if a.type is AttrType.TYPE else ""
    return AttrView(a.ir, "REQUIRED" if a.required else "OPTIONAL", opdef_attr_setter(a.type),
                    default, note)


def view(spec: OpSpec, kernel: CheckedKernel) -> OpHostView:
    if kernel.tiling is None:
        mode, header = "none", None
    else:
        mode = "hook" if spec.kernel.tiling_hook is not None else "default"
        header = posixpath.basename(tiling.tiling_header_path(spec))
    return OpHostView(
        banner=banner_text(spec.spec_path),
        op_type=spec.op_type,
        inputs=tuple(_param(t) for t in spec.inputs),
        outputs=tuple(_param(t) for t in spec.outputs),
        attrs=tuple(_attr(a) for a in spec.attrs),
        socs=spec.socs,
        tiling_header=header,
        tiling_mode=mode,
        default_tiling=f"{spec.op_type}DefaultTiling",
        user_tiling=f"{spec.op_type}Tiling",
        infer=cann_infer.plan(spec),
        dtypes=cann_infer.dtype_rules(spec),
    )


def emit(spec: OpSpec, output_dir: str, kernel: CheckedKernel) -> dict[str, str]:
    return {op_host_path(spec): render("cann/op_host/op_host.cpp.j2", v=view(spec, kernel))}
