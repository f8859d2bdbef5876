"""The CANN op_host tiling header: the kernel's tiling struct and its default host tiling.

The struct is re-declared from what the kernel frontend found (same fields, same order, the
kernel's style: BEGIN_TILING_DATA_DEF macros or a plain struct). `<OpType>DefaultTiling` fills
it by field name with the runtime's policy, `opgen_runtime.tiling.default_tiling` (docs/
simulator.md, "Default tiling"), line for line: the same plan_elementwise arithmetic over the
SoC's UB size and vector core count (here from PlatformAscendC), the same field names, the same
failures (a value that does not fit its field, a shape longer than its array, a field no rule
fills). tests/cann/test_tiling_equivalence.py runs both on many shapes and compares them.
A spec with kernel.tiling_hook gets the struct only: its tiling is the user's.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.dtypes import AttrType
from opgen.emit.cann_naming import cann_stem
from opgen.emit.common import banner_text, kernel_source_path, render
from opgen.kernel_frontend.check import CheckedKernel
from opgen.kernel_frontend.model import TilingField, TilingStruct, TilingStyle
from opgen.model import OpSpec, TensorDesc
from opgen.naming import lower_camel

OP_HOST_DIR = "cann/op_host"
# Attr types the policy can put in a field: the C++ type RuntimeAttrs holds and its getter.
_ATTR_READ: dict[AttrType, tuple[str, str]] = {
    AttrType.INT: ("int64_t", "GetInt"), AttrType.TYPE: ("int64_t", "GetInt"),
    AttrType.FLOAT: ("float", "GetFloat"), AttrType.BOOL: ("bool", "GetBool"),
}
# The policy's scalar values, as locals of the generated function (see tiling.h.j2).
_POLICY: dict[str, str] = {
    "totalLength": "plan.totalLength", "blockLength": "plan.blockLength",
    "tileNum": "plan.tileNum", "tileLength": "plan.tileLength",
    "tailLength": "plan.tailLength", "blockDim": "plan.blockDim", "rows": "rows",
    "cols": "cols", "outerSize": "rows", "axisSize": "cols", "rank": "rank",
}


@dataclass(frozen=True)
class FieldView:
    name: str
    ctype: str  # the host type: `half` is held as its uint16_t bits (the host has no half)
    array_len: int | None
    offset: int
    note: str


@dataclass(frozen=True)
class TensorRead:
    local: str  # the C++ local holding its shape and dtype size
    getter: str  # expression: (shape pointer, desc pointer) arguments of MakeTensor


@dataclass(frozen=True)
class AttrRead:
    index: int
    name: str
    local: str
    ctype: str
    getter: str


@dataclass(frozen=True)
class Assignment:
    field: str
    ctype: str
    array_len: int | None
    kind: str  # value | shape | unfilled
    # C++ expression (value; into an array: element 0, the rest 0, as the runtime packs a
    # scalar), the tensor local (shape: dims, then 1s), or why the policy fails (unfilled).
    value: str
    half: bool  # the field holds binary16 bits


@dataclass(frozen=True)
class TilingView:
    banner: str
    op_type: str
    namespace: str
    struct: str
    macro_style: bool
    guard: str
    source: str  # where the kernel declares the struct
    size: int
    align: int
    fields: tuple[FieldView, ...]
    has_policy: bool  # False with a tiling_hook: the user fills the struct
    inputs: tuple[TensorRead, ...]
    outputs: tuple[TensorRead, ...]
    attrs: tuple[AttrRead, ...]
    assignments: tuple[Assignment, ...]


def tiling_header_path(spec: OpSpec) -> str:
    """op_host/<stem>_tiling.h, beside op_host/<stem>.cpp (msopgen's names)."""
    return f"{OP_HOST_DIR}/{cann_stem(spec)}_tiling.h"


def _host_ctype(f: TilingField) -> str:
    return "uint16_t" if f.ctype == "half" else f.ctype or ""


def _tensor_read(t: TensorDesc, index: int, is_input: bool) -> TensorRead:
    local = f"{lower_camel(t.name)}T"
    if not is_input:
        return TensorRead(local, f"context->GetOutputShape({index}), "
                                 f"context->GetOutputDesc({index})")
    if t.is_dynamic:  # the runtime passes one tensor per dynamic input: its first instance
        return TensorRead(local, f"context->GetDynamicInputShape({index}, 0), "
                                 f"context->GetDynamicInputDesc({index}, 0)")
    kind = "Optional" if t.is_optional else "Required"
    return TensorRead(local, f"context->Get{kind}InputShape({index}), "
                             f"context->Get{kind}InputDesc({index})")


def _assignment(spec: OpSpec, f: TilingField) -> Assignment:
    """What default_tiling puts in field `f`, in its order: policy, tensors, then attrs."""
    ctype, half = _host_ctype(f), f.ctype == "half"
    if f.name in _POLICY:
        return Assignment(f.name, ctype, f.array_len, "value", _POLICY[f.name], half)
    for t in spec.tensors:  # runtime: camel(name) only, inputs and outputs alike
        base, local = lower_camel(t.name), f"{lower_camel(t.name)}T"
        if f.name == f"{base}Shape":
            if f.array_len is None:
                return Assignment(f.name, ctype, None, "unfilled",
                                  f"{f.name} holds a shape but is not an array", half)
            return Assignment(f.name, ctype, f.array_len, "shape", local, half)
        if f.name == f"{base}Rank":
            return Assignment(f.name, ctype, f.array_len, "value", f"{local}.Rank()", half)
        if f.name == f"{base}Present" and t in spec.inputs:
            return Assignment(f.name, ctype, f.array_len, "value",
                              f"({local}.shape != nullptr)", half)
    for a in reversed(spec.attrs):  # a later attr of the same name wins, as in the runtime
        if f.name in (a.name, lower_camel(a.name)):
            if a.type not in _ATTR_READ:
                break
            return Assignment(f.name, ctype, f.array_len, "value", f"attr_{a.name}", half)
    return Assignment(f.name, ctype, f.array_len, "unfilled",
                      f"the default tiling cannot fill field '{f.name}'", half)


def view(spec: OpSpec, tiling: TilingStruct, kernel_source: str) -> TilingView:
    has_policy = spec.kernel.tiling_hook is None
    assignments = tuple(_assignment(spec, f) for f in tiling.fields) if has_policy else ()
    used = {a.value for a in assignments if a.kind == "value"}
    attrs = tuple(AttrRead(i, a.name, f"attr_{a.name}", *_ATTR_READ[a.type])
                  for i, a in enumerate(spec.attrs)
                  if a.type in _ATTR_READ and f"attr_{a.name}" in used)
    return TilingView(
        banner=banner_text(spec.spec_path),
        op_type=spec.op_type,
        namespace=f"{cann_stem(spec)}_tiling",
        struct=tiling.name,
        macro_style=tiling.style is TilingStyle.MACRO,
        guard=f"OPGEN_{cann_stem(spec).upper()}_TILING_H",
        source=f"{kernel_source}:{tiling.loc.line}",
        size=tiling.size,
        align=tiling.align,
        fields=tuple(FieldView(f.name, _host_ctype(f), f.array_len, f.offset,
                               "half, as its binary16 bits" if f.ctype == "half" else "")
                     for f in tiling.fields),
        has_policy=has_policy,
        inputs=tuple(_tensor_read(t, i, True) for i, t in enumerate(spec.inputs)),
        outputs=tuple(_tensor_read(t, i, False) for i, t in enumerate(spec.outputs)),
        attrs=attrs,
        assignments=assignments,
    )


def emit(spec: OpSpec, output_dir: str, kernel: CheckedKernel) -> dict[str, str]:
    if kernel.tiling is None:
        return {}
    v = view(spec, kernel.tiling, kernel_source_path(spec))
    return {tiling_header_path(spec): render("cann/op_host/tiling.h.j2", v=v)}
