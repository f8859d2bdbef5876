"""Stage 4, kernel frontend: what a kernel source declares, as frozen dataclasses.

A `KernelInfo` holds facts about one kernel file only (its entries, its records), never a
spec's choices, so it can be cached by content and cross-checked against any spec.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from opgen.diagnostics import Diagnostic, Severity, SourceLoc

# Tiling field scalar types: canonical C spelling -> (size, alignment) on the device ABI.
SCALAR_TYPES: dict[str, tuple[int, int]] = {
    "int8_t": (1, 1), "uint8_t": (1, 1), "int16_t": (2, 2), "uint16_t": (2, 2),
    "int32_t": (4, 4), "uint32_t": (4, 4), "int64_t": (8, 8), "uint64_t": (8, 8),
    "float": (4, 4), "bool": (1, 1), "half": (2, 2),
}


class TilingStyle(enum.Enum):
    STRUCT = "struct"  # a plain C++ struct (CANN's standard-C++ tiling)
    MACRO = "macro"  # BEGIN_TILING_DATA_DEF / TILING_DATA_FIELD_DEF (CANN's older style)


@dataclass(frozen=True)
class KernelParam:
    name: str
    type: str  # as spelled in the source, e.g. "GM_ADDR" or "__gm__ uint8_t*"
    is_gm_addr: bool  # canonically a pointer to uint8_t
    loc: SourceLoc


@dataclass(frozen=True)
class TilingRef:
    """A tiling macro in an entry's body: which struct it names (None: the default one)."""

    macro: str  # GET_TILING_DATA, GET_TILING_DATA_WITH_STRUCT, REGISTER_TILING_DEFAULT, ...
    struct: str | None
    loc: SourceLoc


@dataclass(frozen=True)
class TemplateParam:
    """A template parameter of a templated entry (CANN's tiling-key templates)."""

    name: str
    kind: str  # "type" (typename: an ASCENDC_TPL_DATATYPE) or "value" (a non-type parameter)
    type: str  # a value parameter's canonical C++ type, e.g. "int"; "" for a type parameter

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind, "type": self.type}


@dataclass(frozen=True)
class KernelEntry:
    name: str
    params: tuple[KernelParam, ...]
    loc: SourceLoc
    c_linkage: bool  # extern "C"
    is_global: bool  # declared __global__
    tiling_refs: tuple[TilingRef, ...] = ()
    # `template<...> __global__ void op(...)`: the kernel build instantiates the combinations
    # its ASCENDC_TPL_SEL selects and dispatches on the tiling key (docs/op-host.md)
    template_params: tuple[TemplateParam, ...] = ()


@dataclass(frozen=True)
class TilingField:
    name: str
    ctype: str | None  # a SCALAR_TYPES key, or None when the type is not supported
    spelling: str  # the field's type as clang prints it, for messages
    offset: int  # bytes from the start of the struct
    array_len: int | None  # None: a scalar
    loc: SourceLoc
    problem: str = ""  # why the type is unsupported (empty when ctype is set)

    @property
    def size(self) -> int:
        base = SCALAR_TYPES[self.ctype][0] if self.ctype else 0
        return base * (self.array_len or 1)


@dataclass(frozen=True)
class TilingStruct:
    name: str
    qualified_name: str  # with namespaces, e.g. "optiling::AddCustomTilingData"
    fields: tuple[TilingField, ...]
    size: int
    align: int
    style: TilingStyle
    loc: SourceLoc

    def field(self, name: str) -> TilingField | None:
        return next((f for f in self.fields if f.name == name), None)

    def layout_json(self) -> dict[str, Any]:
        """The "tiling" key of the metadef JSON; the runtime's TilingLayout reads it."""
        return {
            "struct": self.name,
            "style": self.style.value,
            "size": self.size,
            "align": self.align,
            "fields": [{"name": f.name, "ctype": f.ctype, "offset": f.offset,
                        "array_len": f.array_len} for f in self.fields],
        }


@dataclass(frozen=True)
class KernelInfo:
    """Everything the frontend learned from one kernel file (and the headers it includes)."""

    path: str  # as the user sees it (project-relative)
    entries: tuple[KernelEntry, ...]  # every __global__ function of the main file, in order
    functions: tuple[tuple[str, SourceLoc], ...]  # other top-level functions, for hints
    structs: tuple[TilingStruct, ...]  # every record defined in the user's files
    registered: tuple[tuple[str, str], ...]  # (registration, struct): file-scope macros
    diagnostics: tuple[Diagnostic, ...] = ()  # clang errors; non-empty means no trustable AST

    @property
    def ok(self) -> bool:
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)

    def entry(self, name: str) -> KernelEntry | None:
        return next((e for e in self.entries if e.name == name), None)

    def struct(self, name: str) -> TilingStruct | None:
        short = name.rsplit("::", 1)[-1]
        return next((s for s in self.structs if s.name == short), None)
