"""The runtime's view of an operator: the metadef JSON that `opgen generate` writes.

A generated metadef (it carries "format_version") is read directly. Any other JSON — the
seed's hand-written metadef, an msopgen file — is validated by the opgen compiler (shipped
in the same distribution, imported only on this path) so the messages are exactly those of
`opgen validate`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .build import KernelTemplate
from .errors import SimulatorError

SUPPORTED_FORMAT = 1


class MetadefError(SimulatorError):
    """A metadef file is missing, unreadable, invalid, or of another format version."""


@dataclass(frozen=True)
class TensorDef:
    name: str
    param_type: str  # required | optional | dynamic
    dtypes: tuple[str, ...]
    formats: tuple[str, ...]
    shape: tuple[int, ...] | None  # None: any rank
    infer: Mapping[str, Any] | None = None
    dtype_from: str | None = None
    ir_name: str | None = None  # CANN's IR name (the op_host's OpDef) when it is not `name`
    inplace: bool = False  # an input the kernel writes in place (the op has no outputs)
    ref: str | None = None  # an output that is this input's buffer (CANN's ref output)

    @property
    def optional(self) -> bool:
        return self.param_type == "optional"

    @property
    def dynamic(self) -> bool:
        """A list of tensors (CANN's DYNAMIC param type)."""
        return self.param_type == "dynamic"

    @property
    def ir(self) -> str:
        return self.ir_name or self.name


@dataclass(frozen=True)
class AttrDef:
    name: str
    type: str
    required: bool
    default: Any = None


@dataclass(frozen=True)
class OpDef:
    op_name: str
    op_type: str
    inputs: tuple[TensorDef, ...]
    outputs: tuple[TensorDef, ...]
    attrs: tuple[AttrDef, ...]
    kernel_source: Path | None  # absolute, resolved against the metadef's directory
    kernel_entry: str
    tiling_header: Path | None  # the op_host tiling header the kernel is built with
    tiling: Mapping[str, Any] | None
    backward: Mapping[str, str] | None
    reference: Mapping[str, str]
    socs: tuple[str, ...]
    path: Path
    raw: Mapping[str, Any]
    op_host: tuple[Path, ...] = ()  # the op's own op_host sources (its TilingFunc, InferShape)
    kernel_template: KernelTemplate | None = None  # a templated entry (tiling-key templates)
    include_dirs: tuple[Path, ...] = ()  # extra include directories of op_host and kernel

    @property
    def host_include_dirs(self) -> tuple[Path, ...]:
        """The include path the op_host is compiled with, after its sources' own directories:
        the tiling header's directory, then the spec's include_dirs."""
        header = (self.tiling_header.parent,) if self.tiling_header is not None else ()
        return (*header, *self.include_dirs)

    @property
    def combinations(self) -> tuple[tuple[str, ...], ...]:
        """Column i of all dtype lists: inputs then outputs."""
        tensors = self.inputs + self.outputs
        return tuple(tuple(t.dtypes[i] for t in tensors) for i in range(len(tensors[0].dtypes)))

    def attr(self, name: str) -> AttrDef | None:
        return next((a for a in self.attrs if a.name == name), None)

    def same_as(self, other: OpDef) -> bool:
        """Identical definitions (registering the same op twice is then a no-op)."""
        strip = {"@generated", "spec", "kernel"}
        mine = {k: v for k, v in self.raw.items() if k not in strip}
        theirs = {k: v for k, v in other.raw.items() if k not in strip}
        return mine == theirs and self.kernel_entry == other.kernel_entry


def _tensor(raw: Mapping[str, Any]) -> TensorDef:
    shape = raw.get("shape", [-2])
    return TensorDef(
        name=raw["name"], param_type=raw.get("param_type", "required"),
        dtypes=tuple(raw["dtype"]), formats=tuple(raw.get("format", ["ND"] * len(raw["dtype"]))),
        shape=None if list(shape) == [-2] else tuple(shape),
        infer=raw.get("infer"), dtype_from=raw.get("dtype_from"), ir_name=raw.get("ir_name"),
        inplace=raw.get("inplace") is True, ref=raw.get("ref"),
    )


def from_json(data: Mapping[str, Any], path: Path) -> OpDef:
    version = data.get("format_version")
    if version != SUPPORTED_FORMAT:
        raise MetadefError(f"{path}: metadef format_version {version!r} is not supported by this "
                           f"opgen_runtime (expects {SUPPORTED_FORMAT}); regenerate it with "
                           "`opgen generate`")
    kernel = data.get("kernel") or {}
    source = kernel.get("source")
    return OpDef(
        op_name=data["op_name"], op_type=data["op_type"],
        inputs=tuple(_tensor(t) for t in data.get("input_desc", [])),
        outputs=tuple(_tensor(t) for t in data["output_desc"]),
        attrs=tuple(AttrDef(a["name"], a["type"], bool(a.get("required")), a.get("default"))
                    for a in data.get("attr_desc", [])),
        kernel_source=(path.parent / source).resolve() if source else None,
        kernel_entry=kernel.get("entry", data["op_name"]),
        tiling_header=((path.parent / kernel["tiling_header"]).resolve()
                       if kernel.get("tiling_header") else None),
        tiling=data.get("tiling"),
        backward=data.get("backward"),
        reference=data.get("reference") or {},
        socs=tuple(data.get("soc", ["ascend910b"])),
        path=path, raw=data,
        op_host=tuple((path.parent / p).resolve() for p in kernel.get("op_host") or ()),
        kernel_template=(KernelTemplate.from_json(kernel["template"])
                         if kernel.get("template") else None),
        include_dirs=tuple((path.parent / p).resolve() for p in kernel.get("include_dirs") or ()),
    )


def _normalise_with_compiler(path: Path) -> dict[str, Any]:
    """Validate a non-generated metadef with opgen's validator; same messages as the CLI."""
    from opgen.api import load_spec
    from opgen.diagnostics import DiagnosticError
    from opgen.emit.metadef import metadef

    try:
        spec = load_spec(path)
    except DiagnosticError as exc:
        raise MetadefError(f"invalid metadef {path}:\n{exc}") from None
    data = metadef(spec, os.path.dirname(spec.spec_path) or ".")
    # metadef() writes paths relative to <output_dir>/metadef; re-anchor at the file itself
    data["kernel"]["source"] = spec.kernel.source
    if spec.kernel.tiling_header:
        data["kernel"]["tiling_header"] = spec.kernel.tiling_header
    if spec.kernel.op_host:
        data["kernel"]["op_host"] = list(spec.kernel.op_host)
    if spec.kernel.include_dirs:
        data["kernel"]["include_dirs"] = list(spec.kernel.include_dirs)
    return data


def load(path: str | os.PathLike[str]) -> OpDef:
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except FileNotFoundError:
        raise MetadefError(f"metadef not found: {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MetadefError(f"cannot read metadef {p}: {exc}") from None
    if p.suffix in (".yaml", ".yml"):
        return from_json(_normalise_with_compiler(p), p)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"{p}:{exc.lineno}:{exc.colno}"
        raise MetadefError(f"{where}: error: invalid JSON: {exc.msg}") from None
    if not (isinstance(data, dict) and "format_version" in data):
        data = _normalise_with_compiler(p)
    return from_json(data, p)
