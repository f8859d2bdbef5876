"""C++ initialisers of an op's description for framework glue that runs kernels from C++
(runtime/include/opgen_torch/sim_op.h; opgen_tf/sim_op.h has the same shape): shape rules and
tiling struct fields. `ns` is the C++ namespace holding RuleKind and DimSpec."""

from __future__ import annotations

import json
from collections.abc import Sequence

from opgen.emit.host_policy import CTYPE_ENUMS
from opgen.kernel_frontend import CheckedKernel
from opgen.model import OpSpec, TensorDesc
from opgen.shape_rules import Broadcast, DimOf, Explicit, Reduce, SameAs, ShapeRule


def ints(values: Sequence[int]) -> str:
    return "{" + ", ".join(str(v) for v in values) + "}"


def cstr(value: str | None) -> str:
    return "nullptr" if value is None else json.dumps(value)


def rule(spec: OpSpec, t: TensorDesc, ns: str) -> str:
    """An output's shape rule as a `ns::ShapeRule` initialiser."""
    r: ShapeRule = t.infer if t.infer is not None else SameAs(spec.inputs[0].name)
    index = {x.name: i for i, x in enumerate(spec.inputs)}
    attr_index = {a.name: i for i, a in enumerate(spec.attrs)}
    k = f"::{ns}::RuleKind::"
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
            keep, keep_attr = ("true" if r.keepdim else "false"), -1
        return f"{{{k}kReduce, {{{index[r.input]}}}, {axes}, {axis_attr}, {keep}, {keep_attr}}}"
    assert isinstance(r, Explicit)
    dims = []
    d = f"::{ns}::DimSpec::"
    for dim in r.dims:
        if isinstance(dim, DimOf):
            dims.append(f"{{{d}kDimOf, {dim.index}, {index[dim.input]}}}")
        elif isinstance(dim, str):
            dims.append(f"{{{d}kAttr, {attr_index[dim]}, -1}}")
        else:
            dims.append(f"{{{d}kLiteral, {dim}, -1}}")
    return f"{{{k}kExplicit, {{}}, {{}}, -1, false, -1, {{{', '.join(dims)}}}}}"


def fields(kernel: CheckedKernel) -> tuple[str, ...]:
    """The tiling struct's fields as opgen_host::FieldDesc initialisers."""
    tiling = kernel.tiling
    return tuple(
        f'{{"{f.name}", ::opgen_host::CType::{CTYPE_ENUMS[f.ctype or "uint32_t"]}, "{f.ctype}", '
        f"{f.offset}, {f.array_len if f.array_len is not None else -1}}}"
        for f in (tiling.fields if tiling is not None else ()))
