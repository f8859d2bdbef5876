"""The CANN op_host tiling header: the kernel's tiling struct and its default host tiling.

The struct is re-declared from what the kernel frontend found (same fields, same order, the
kernel's style: BEGIN_TILING_DATA_DEF macros or a plain struct) and a default tiling
function fills it by field name, with the policy the runtime uses (docs/kernel-frontend.md,
"Default tiling policy"). A spec with kernel.tiling_hook gets the struct only: its tiling is
the user's.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.dtypes import AttrType
from opgen.emit.common import banner_text, kernel_source_path, render
from opgen.kernel_frontend.check import CheckedKernel
from opgen.kernel_frontend.model import TilingField, TilingStruct, TilingStyle
from opgen.model import OpSpec
from opgen.naming import lower_camel

OP_HOST_DIR = "cann/op_host"
_ATTR_CPP = {AttrType.INT: "int64_t", AttrType.FLOAT: "float", AttrType.BOOL: "bool"}


@dataclass(frozen=True)
class FieldView:
    name: str
    ctype: str
    array_len: int | None
    offset: int


@dataclass(frozen=True)
class Assignment:
    field: str
    ctype: str
    value: str  # a C++ expression over the locals the template's prologue declares
    array_len: int | None  # arrays are filled element-wise from `value[i]`


@dataclass(frozen=True)
class TilingView:
    banner: str
    op_name: str
    op_type: str
    struct: str
    macro_style: bool
    guard: str
    source: str  # where the kernel declares the struct
    size: int
    align: int
    fields: tuple[FieldView, ...]
    has_policy: bool  # False with a tiling_hook: the user fills the struct
    attrs: tuple[tuple[int, str, str, str], ...]  # (index, name, local, C++ type)
    axis_attr: str | None
    assignments: tuple[Assignment, ...]


def tiling_header_path(spec: OpSpec) -> str:
    return f"{OP_HOST_DIR}/{spec.op_name}_tiling.h"


def _assignment(spec: OpSpec, f: TilingField) -> Assignment | None:
    name = f.name
    ctype = f.ctype or ""
    simple = {"totalLength": "totalLength", "blockLength": "blockLength",
              "tileNum": "tileNum", "tileLength": "tileLength", "tailLength": "tailLength",
              "rows": "rows", "cols": "cols", "outerSize": "outerSize",
              "axisSize": "axisSize", "rank": "shape0.GetDimNum()"}
    if name in simple:
        return Assignment(name, ctype, simple[name], None)
    for i, t in enumerate(spec.tensors):
        for base in (t.name, lower_camel(t.name)):
            shape = (f"context->GetInputShape({i})->GetStorageShape()" if i < len(spec.inputs)
                     else f"context->GetOutputShape({i - len(spec.inputs)})->GetStorageShape()")
            if name == f"{base}Shape":
                return Assignment(name, ctype, f"Dims({shape})", f.array_len)
            if name == f"{base}Rank":
                return Assignment(name, ctype, f"{shape}.GetDimNum()", None)
            if name == f"{base}Present" and i < len(spec.inputs):
                return Assignment(name, ctype,
                                  f"(context->GetOptionalInputShape({i}) != nullptr)", None)
    for a in spec.attrs:
        if name in (a.name, lower_camel(a.name)) and a.type in _ATTR_CPP:
            return Assignment(name, ctype, f"attr_{a.name}", None)
    return None


def view(spec: OpSpec, tiling: TilingStruct, kernel_source: str) -> TilingView:
    has_policy = spec.kernel.tiling_hook is None
    assignments = tuple(a for f in tiling.fields if (a := _assignment(spec, f)) is not None)
    attr_names = {a.field for a in assignments}
    attrs = tuple((i, a.name, f"attr_{a.name}", _ATTR_CPP[a.type])
                  for i, a in enumerate(spec.attrs)
                  if a.type in _ATTR_CPP and ({a.name, lower_camel(a.name)} & attr_names))
    axis = next((a.name for a in spec.attrs if a.name in ("axis", "dim")
                 and a.type is AttrType.INT), None)
    return TilingView(
        banner=banner_text(spec.spec_path),
        op_name=spec.op_name,
        op_type=spec.op_type,
        struct=tiling.name,
        macro_style=tiling.style is TilingStyle.MACRO,
        guard=f"OPGEN_{spec.op_name.upper()}_TILING_H",
        source=f"{kernel_source}:{tiling.loc.line}",
        size=tiling.size,
        align=tiling.align,
        fields=tuple(FieldView(f.name, f.ctype or "", f.array_len, f.offset)
                     for f in tiling.fields),
        has_policy=has_policy,
        attrs=attrs,
        axis_attr=axis if axis is not None and f"attr_{axis}" in {a[2] for a in attrs} else None,
        assignments=assignments if has_policy else (),
    )


def emit(spec: OpSpec, output_dir: str, kernel: CheckedKernel) -> dict[str, str]:
    if kernel.tiling is None:
        return {}
    v = view(spec, kernel.tiling, kernel_source_path(spec))
    return {tiling_header_path(spec): render("cann/op_host/tiling.h.j2", v=v)}
