"""C++ initialisers of an op's description for the framework glue that runs kernels from C++
(runtime/include/opgen_tf/sim_op.h and opgen_torch/sim_op.h, over opgen_host/op_desc.h):
attrs, shape rules, tiling struct fields and kernel variants. The TensorFlow and PyTorch
emitters add their own tensor descriptions and dtype spellings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from opgen import checks
from opgen.dtypes import AttrType, DType
from opgen.emit.escape import cxx_str
from opgen.emit.host_policy import CTYPE_ENUMS
from opgen.kernel_frontend import CheckedKernel
from opgen.kernel_frontend.model import TilingField
from opgen.model import AttrDesc, OpSpec, TensorDesc
from opgen.naming import lower_camel
from opgen.shape_rules import Broadcast, DimOf, Explicit, Reduce, SameAs, ShapeRule

_ATTR_KINDS = {
    AttrType.INT: "kInt", AttrType.FLOAT: "kFloat", AttrType.BOOL: "kBool",
    AttrType.STRING: "kString", AttrType.TYPE: "kType", AttrType.LIST_INT: "kListInt",
    AttrType.LIST_FLOAT: "kListFloat", AttrType.LIST_BOOL: "kListBool",
    AttrType.LIST_STRING: "kListString",
}


def ints(values: Sequence[int]) -> str:
    return "{" + ", ".join(str(v) for v in values) + "}"


def cstr(value: str | None) -> str:
    return "nullptr" if value is None else cxx_str(value)


def cbool(value: bool) -> str:
    return "true" if value else "false"


def tensor_head(t: TensorDesc) -> str:
    """The fields every glue's TensorDesc starts with: name, camelName, optional."""
    return f'"{t.name}", "{lower_camel(t.name)}", {cbool(t.is_optional)}'


def attr(a: AttrDesc) -> str:
    """An attr as an opgen_host::AttrDesc initialiser."""
    return f'{{"{a.name}", "{lower_camel(a.name)}", ::opgen_host::AttrKind::{_ATTR_KINDS[a.type]}}}'


def rule(spec: OpSpec, t: TensorDesc) -> str:
    """An output's shape rule as an opgen_host::ShapeRule initialiser. An op with its own op_host
    and no `infer:` for the output has none (kNone): its InferShape must give the shape, as the
    registry requires (registry.py, _rule_for_host_op), instead of a guess from the first input."""
    if t.infer is None and spec.kernel.op_host:
        return "{::opgen_host::RuleKind::kNone}"
    r: ShapeRule = t.infer if t.infer is not None else SameAs(spec.inputs[0].name)
    index = {x.name: i for i, x in enumerate(spec.inputs)}
    attr_index = {a.name: i for i, a in enumerate(spec.attrs)}
    k = "::opgen_host::RuleKind::"
    if isinstance(r, SameAs):
        return f"{{{k}kSameAs, {{{index[r.input]}}}}}"
    if isinstance(r, Broadcast):
        return f"{{{k}kBroadcast, {ints([index[n] for n in r.inputs])}}}"
    if isinstance(r, Reduce):
        if isinstance(r.axis, str):
            axes, axis_attr = "{}", attr_index[r.axis]
        else:
            axes = ints(r.axis if isinstance(r.axis, tuple) else (r.axis,))
            axis_attr = -1
        if isinstance(r.keepdim, str):
            keep, keep_attr = "false", attr_index[r.keepdim]
        else:
            keep, keep_attr = cbool(r.keepdim), -1
        return f"{{{k}kReduce, {{{index[r.input]}}}, {axes}, {axis_attr}, {keep}, {keep_attr}}}"
    assert isinstance(r, Explicit)
    dims = []
    d = "::opgen_host::DimSpec::"
    for dim in r.dims:
        if isinstance(dim, DimOf):
            dims.append(f"{{{d}kDimOf, {dim.index}, {index[dim.input]}}}")
        elif isinstance(dim, str):
            dims.append(f"{{{d}kAttr, {attr_index[dim]}, -1}}")
        else:
            dims.append(f"{{{d}kLiteral, {dim}, -1}}")
    return f"{{{k}kExplicit, {{}}, {{}}, -1, false, -1, {{{', '.join(dims)}}}}}"


def field(f: TilingField) -> str:
    """A tiling struct field as an opgen_host::FieldDesc initialiser."""
    assert f.ctype is not None, "the kernel frontend reports fields of unsupported types"
    array_len = f.array_len if f.array_len is not None else -1
    return (f'{{"{f.name}", ::opgen_host::CType::{CTYPE_ENUMS[f.ctype]}, "{f.ctype}", '
            f"{f.offset}, {array_len}}}")


@dataclass(frozen=True)
class VariantView:
    symbol: str
    dtypes: str  # C++: {::opgen_tf::Dtype::DT_FLOAT, ...} / {::opgen_torch::Dtype::Half, ...}


@dataclass(frozen=True)
class DescView:
    """What both glues' OpDesc hold besides their names for the op."""
    entry: str
    tiling_struct: str
    tiling_size: int
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: tuple[str, ...]
    fields: tuple[str, ...]
    variants: tuple[VariantView, ...]
    op_type: str  # a C++ string literal
    host_symbol: str  # the embedded op_host's bytes; "" when the op has none
    checks: str = "{}"  # an opgen_host::ArgChecks initialiser


def desc_view(spec: OpSpec, kernel: CheckedKernel, inputs: Sequence[str],
              outputs: Sequence[str], blob_symbol: Callable[[str, int], str],
              host_symbol: Callable[[str], str],
              dtype: Callable[[DType], str]) -> DescView:
    """`inputs` / `outputs`: the glue's TensorDesc initialisers; `blob_symbol` names a kernel
    variant's embedded bytes, `host_symbol` the op_host's; `dtype` spells a dtype in the
    framework's C++."""
    tiling = kernel.tiling
    return DescView(
        entry=spec.kernel.entry,
        tiling_struct=tiling.name if tiling is not None else "",
        tiling_size=tiling.size if tiling is not None else 0,
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        attrs=tuple(attr(a) for a in spec.attrs),
        fields=tuple(field(f) for f in (tiling.fields if tiling is not None else ())),
        variants=tuple(
            VariantView(blob_symbol(spec.op_name, c.index),
                        "{" + ", ".join(dtype(d) for _n, d in c.dtypes) + "}")
            for c in spec.combinations()),
        op_type=cstr(spec.op_type),
        host_symbol=host_symbol(spec.op_name) if spec.kernel.op_host else "",
        checks=arg_checks(spec),
    )


def _check_expr(spec: OpSpec, b: checks.Bound | None) -> str:
    if b is None:
        return "{}"
    inputs = [t.name for t in spec.inputs]
    attrs = [a.name for a in spec.attrs]
    k = "::opgen_host::CheckNode::"
    nodes = []
    for n in b.rpn:
        if n[0] == "lit":
            nodes.append(f"{{{k}kLit, {float(n[1])!r}, {cbool(isinstance(n[1], int))}}}")
        elif n[0] == "attr":
            nodes.append(f"{{{k}kAttr, 0, true, {attrs.index(n[1])}}}")
        elif n[0] == "rank":
            nodes.append(f"{{{k}kRank, 0, true, {inputs.index(n[1])}}}")
        elif n[0] == "dim":
            nodes.append(f"{{{k}kDim, 0, true, {inputs.index(n[1])}, {n[2]}}}")
        else:
            nodes.append(f"{{{k}k{n[0].capitalize()}}}")
    return f"{{{cstr(b.text)}, {{{', '.join(nodes)}}}}}"


def arg_checks(spec: OpSpec) -> str:
    """The spec's argument checks (opgen.checks) as an opgen_host::ArgChecks initialiser:
    op name, spec path, declared input shapes, attr ranges, constraints."""
    attrs = [a.name for a in spec.attrs]
    inputs = [t.name for t in spec.inputs]
    shapes = ", ".join(f"{{{len(t.shape) if t.shape is not None else -1}, {ints(t.shape or ())}}}"
                       for t in spec.inputs)
    ranges = ", ".join(
        f"{{{attrs.index(r.attr)}, {cstr(r.attr)}, {cstr(r.text)}, "
        f"{_check_expr(spec, r.lo)}, {_check_expr(spec, r.hi)}, {cbool(r.lo_closed)}, "
        f"{cbool(r.hi_closed)}}}" for r in spec.checks.ranges)
    constraints = ", ".join(
        f"{{{cstr(c.text)}, {cstr(c.op)}, {_check_expr(spec, c.lhs)}, "
        f"{_check_expr(spec, c.rhs)}, {ints([inputs.index(n) for n in c.inputs])}}}"
        for c in spec.checks.constraints)
    return (f"{{{cstr(spec.op_name)}, {cstr(spec.spec_path)}, {{{shapes}}}, "
            f"{{{ranges}}}, {{{constraints}}}}}")
