"""The CANN op_host tiling header: the kernel's tiling struct and its default host tiling.

The struct is re-declared from what the kernel frontend found (same fields, same order, the
kernel's style: BEGIN_TILING_DATA_DEF macros or a plain struct). `<OpType>DefaultTiling` fills
it with the runtime's policy in C++, opgen_host::DefaultTiling (the CANN tree's copy,
host_policy.POLICY_HEADER): it gathers the op's tensors by IR index, its attrs and the SoC's UB
size and core count from the gert context, and lists the fields (name, type, offset) for the
policy to fill by name. tests/cann/test_tiling_equivalence.py runs it against
`opgen_runtime.tiling.default_tiling` on many shapes.
A spec with kernel.tiling_hook gets the struct only: its tiling is the user's.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from opgen.dtypes import AttrType
from opgen.emit import host_desc
from opgen.emit.cann_naming import cann_stem
from opgen.emit.common import banner_text, kernel_source_path, render
from opgen.emit.host_policy import POLICY_HEADER
from opgen.kernel_frontend.check import CheckedKernel
from opgen.kernel_frontend.model import TilingField, TilingStruct, TilingStyle
from opgen.model import OpSpec, TensorDesc
from opgen.naming import lower_camel

OP_HOST_DIR = "cann/op_host"
# Attr types the policy can put in a field, by the RuntimeAttrs getter that reads them.
_ATTR_GETTERS: dict[AttrType, str] = {
    AttrType.INT: "GetInt", AttrType.TYPE: "GetInt", AttrType.FLOAT: "GetFloat",
    AttrType.BOOL: "GetBool",
}


@dataclass(frozen=True)
class FieldView:
    name: str
    ctype: str  # the host type: `half` is held as its uint16_t bits (the host has no half)
    array_len: int | None
    offset: int
    note: str
    desc: str  # its opgen_host::FieldDesc initializer


@dataclass(frozen=True)
class TensorRead:
    camel: str  # the prefix of its <name>Shape / Rank / Present fields
    is_input: bool
    getter: str  # (StorageShape pointer, CompileTimeTensorDesc pointer), by IR index


@dataclass(frozen=True)
class AttrRead:
    index: int
    name: str
    camel: str
    getter: str


@dataclass(frozen=True)
class TilingView:
    banner: str
    op_type: str
    struct: str
    macro_style: bool
    guard: str
    source: str  # where the kernel declares the struct
    size: int
    align: int
    fields: tuple[FieldView, ...]
    fields_arg: str  # the field table as Fill takes it: kFields and its length
    buffer_size: int  # the bytes Fill writes a macro-style struct's values into
    has_policy: bool  # False with a tiling_hook: the user fills the struct
    policy_header: str  # relative to op_host/
    tensors: tuple[TensorRead, ...]  # inputs, then outputs
    attrs: tuple[AttrRead, ...]


def tiling_header_path(spec: OpSpec) -> str:
    """op_host/<stem>_tiling.h, beside op_host/<stem>.cpp (msopgen's names)."""
    return f"{OP_HOST_DIR}/{cann_stem(spec)}_tiling.h"


def _host_ctype(f: TilingField) -> str:
    return "uint16_t" if f.ctype == "half" else f.ctype or ""


def _tensor_read(t: TensorDesc, index: int, is_input: bool) -> TensorRead:
    camel = lower_camel(t.name)
    if not is_input:
        return TensorRead(camel, False, f"context->GetOutputShape({index}), "
                                        f"context->GetOutputDesc({index})")
    if t.is_dynamic:  # the runtime passes one tensor per dynamic input: its first instance
        return TensorRead(camel, True, f"context->GetDynamicInputShape({index}, 0), "
                                       f"context->GetDynamicInputDesc({index}, 0)")
    kind = "Optional" if t.is_optional else "Required"
    return TensorRead(camel, True, f"context->Get{kind}InputShape({index}), "
                                   f"context->Get{kind}InputDesc({index})")


def view(spec: OpSpec, tiling: TilingStruct, kernel_source: str) -> TilingView:
    return TilingView(
        banner=banner_text(spec.spec_path),
        op_type=spec.op_type,
        struct=tiling.name,
        macro_style=tiling.style is TilingStyle.MACRO,
        guard=f"OPGEN_{cann_stem(spec).upper()}_TILING_H",
        source=f"{kernel_source}:{tiling.loc.line}",
        size=tiling.size,
        align=tiling.align,
        fields=tuple(FieldView(f.name, _host_ctype(f), f.array_len, f.offset,
                               "half, as its binary16 bits" if f.ctype == "half" else "",
                               host_desc.field(f))
                     for f in tiling.fields),
        fields_arg=f"kFields, {len(tiling.fields)}" if tiling.fields else "nullptr, 0",
        buffer_size=max(tiling.size, 1),  # C++ has no empty arrays
        has_policy=not spec.kernel.own_tiling,
        policy_header=posixpath.relpath(POLICY_HEADER, OP_HOST_DIR),
        tensors=(*(_tensor_read(t, i, True) for i, t in enumerate(spec.inputs)),
                 *(_tensor_read(t, i, False) for i, t in enumerate(spec.outputs))),
        attrs=tuple(AttrRead(i, a.name, lower_camel(a.name), _ATTR_GETTERS[a.type])
                    for i, a in enumerate(spec.attrs) if a.type in _ATTR_GETTERS),
    )


def emit(spec: OpSpec, output_dir: str, kernel: CheckedKernel) -> dict[str, str]:
    if kernel.tiling is None:
        return {}
    v = view(spec, kernel.tiling, kernel_source_path(spec))
    return {tiling_header_path(spec): render("cann/op_host/tiling.h.j2", v=v)}
