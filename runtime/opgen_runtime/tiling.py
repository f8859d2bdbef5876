"""Host tiling: the byte layout of a kernel's tiling struct, and the default tiling policy."""

from __future__ import annotations

import ctypes
import math
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from .dtypes import DataType, data_type
from .errors import TilingError
from .soc import DEFAULT_SOC, SocProfile, get_soc

# C scalar types a tiling field may have, as ctypes. 'half' is packed as IEEE binary16 bits.
_CTYPES: dict[str, Any] = {
    "bool": ctypes.c_bool,
    "char": ctypes.c_char,
    "signed char": ctypes.c_byte,
    "unsigned char": ctypes.c_ubyte,
    "int8_t": ctypes.c_int8,
    "uint8_t": ctypes.c_uint8,
    "short": ctypes.c_short,
    "unsigned short": ctypes.c_ushort,
    "int16_t": ctypes.c_int16,
    "uint16_t": ctypes.c_uint16,
    "int": ctypes.c_int,
    "unsigned": ctypes.c_uint,
    "unsigned int": ctypes.c_uint,
    "int32_t": ctypes.c_int32,
    "uint32_t": ctypes.c_uint32,
    "long": ctypes.c_long,
    "unsigned long": ctypes.c_ulong,
    "long long": ctypes.c_longlong,
    "unsigned long long": ctypes.c_ulonglong,
    "int64_t": ctypes.c_int64,
    "uint64_t": ctypes.c_uint64,
    "size_t": ctypes.c_size_t,
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "half": ctypes.c_uint16,
}

_FLOAT_TYPES = frozenset({"float", "double", "half"})

# Default policy constants (the CANN TilingFunc implements the same numbers).
BUFFER_NUM = 2
MIN_BLOCK_BYTES = 8 * 1024
SHAPE_PAD = 1


def _normalise_ctype(ctype: str) -> str:
    t = " ".join(ctype.replace("const ", "").split())
    return t.removeprefix("std::")


@dataclass(frozen=True)
class TilingField:
    """One member of a tiling struct. ``array_len`` is None for a scalar, N for ``T name[N]``."""

    name: str
    ctype: str
    offset: int
    array_len: int | None = None

    @property
    def is_float(self) -> bool:
        return self.ctype in _FLOAT_TYPES

    @property
    def is_bool(self) -> bool:
        return self.ctype == "bool"


FieldDecl = tuple[str, str] | tuple[str, str, int | None]


@dataclass(frozen=True)
class TilingLayout:
    """The byte layout of a plain C++ tiling struct, with C alignment rules (via ctypes)."""

    struct_name: str
    fields: tuple[TilingField, ...]
    size: int
    _struct: Any = field(repr=False, compare=False, default=None)

    @classmethod
    def from_fields(
        cls, struct_name: str, decls: Iterable[FieldDecl | TilingField]
    ) -> TilingLayout:
        """Builds the layout from (name, C type[, array length]) in declaration order."""
        specs: list[tuple[str, str, int | None]] = []
        for d in decls:
            if isinstance(d, TilingField):
                specs.append((d.name, _normalise_ctype(d.ctype), d.array_len))
            elif len(d) == 2:
                specs.append((d[0], _normalise_ctype(d[1]), None))
            else:
                specs.append((d[0], _normalise_ctype(d[1]), d[2]))
        ctype_fields: list[tuple[str, Any]] = []
        for name, ctype, n in specs:
            if ctype not in _CTYPES:
                raise TilingError(
                    f"tiling struct {struct_name}: field '{name}' has type '{ctype}'; tiling "
                    f"fields must be scalars or fixed arrays of: {', '.join(sorted(_CTYPES))}"
                )
            base = _CTYPES[ctype]
            ctype_fields.append((name, base * n if n is not None else base))
        st = type(struct_name, (ctypes.Structure,), {"_fields_": ctype_fields})
        fields = tuple(
            TilingField(name, ctype, getattr(st, name).offset, n) for name, ctype, n in specs
        )
        return cls(struct_name, fields, ctypes.sizeof(st), st)

    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def pack(self, values: Mapping[str, Any]) -> bytes:
        """Serialises ``values`` (every field by name) into the struct's bytes."""
        unknown = sorted(set(values) - set(self.field_names()))
        if unknown:
            raise TilingError(f"tiling struct {self.struct_name} has no field(s) {unknown}")
        inst = self._struct()
        for f in self.fields:
            if f.name not in values:
                raise TilingError(
                    f"tiling struct {self.struct_name}: no value for field '{f.name}'"
                )
            v = values[f.name]
            if f.array_len is None:
                setattr(inst, f.name, _convert(self.struct_name, f, v))
            else:
                seq = list(v) if isinstance(v, Sequence | np.ndarray) else [v]
                if len(seq) > f.array_len:
                    raise TilingError(
                        f"tiling struct {self.struct_name}: field '{f.name}[{f.array_len}]' "
                        f"cannot hold {len(seq)} values"
                    )
                arr = getattr(inst, f.name)
                for i, item in enumerate(seq):
                    arr[i] = _convert(self.struct_name, f, item)
        return bytes(inst)


def _convert(struct_name: str, f: TilingField, v: Any) -> Any:
    where = f"tiling struct {struct_name}: field '{f.name}' ({f.ctype})"
    if isinstance(v, DataType):
        v = int(v)
    if f.ctype == "half":
        return struct.unpack("<H", struct.pack("<e", float(v)))[0]
    if f.is_float:
        return float(v)
    if f.is_bool:
        return bool(v)
    if f.ctype == "char":
        return bytes([int(v)]) if not isinstance(v, bytes) else v
    if isinstance(v, float | np.floating) and not float(v).is_integer():
        raise TilingError(f"{where}: {v!r} is not an integer")
    try:
        iv = int(v)
    except (TypeError, ValueError):
        raise TilingError(f"{where}: cannot convert {v!r}") from None
    bits = ctypes.sizeof(_CTYPES[f.ctype]) * 8
    signed = _CTYPES[f.ctype](-1).value == -1
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not lo <= iv <= hi:
        raise TilingError(f"{where}: {iv} is out of range [{lo}, {hi}]")
    return iv


class TensorLike(Protocol):
    """Anything with a shape and a numpy-compatible dtype (numpy arrays, TensorSpec)."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> Any: ...


@dataclass(frozen=True)
class TensorSpec:
    """A shape and dtype without data, for planning tiling before buffers exist."""

    shape: tuple[int, ...]
    dtype: Any


def camel(name: str) -> str:
    """snake_case -> lowerCamelCase: 'negative_slope' -> 'negativeSlope', 'x' -> 'x'."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _itemsize(t: TensorLike) -> int:
    return int(np.dtype(t.dtype).itemsize)


@dataclass(frozen=True)
class ElementwisePlan:
    """The element-wise split the policy computes: blocks of tiles of 32-byte-aligned length."""

    block_dim: int
    total_length: int
    block_length: int
    tile_length: int
    tile_num: int
    tail_length: int


def plan_elementwise(
    tensors: Sequence[TensorLike],
    total: int,
    soc: SocProfile,
    block_dim: int | None = None,
    buffer_num: int = BUFFER_NUM,
) -> ElementwisePlan:
    """Splits ``total`` elements over blocks and tiles so that ``buffer_num`` buffers of every
    tensor fit the SoC's Unified Buffer and every tile is a multiple of 32 bytes."""
    sizes = [_itemsize(t) for t in tensors] or [4]
    align = max(1, 32 // min(sizes))
    per_elem = sum(sizes) * buffer_num
    max_tile = max(align, soc.ub_bytes // per_elem // align * align)
    if total <= 0:
        return ElementwisePlan(1, 0, 0, align, 0, 0)
    if block_dim is None:
        min_block = max(align, MIN_BLOCK_BYTES // max(sizes))
        block_dim = min(soc.vector_cores, math.ceil(total / min_block))
    block_dim = max(1, block_dim)
    block_length = math.ceil(math.ceil(total / block_dim) / align) * align
    block_dim = max(1, math.ceil(total / block_length))
    tile_length = min(max_tile, block_length)
    tile_num = math.ceil(block_length / tile_length)
    tail_length = block_length - (tile_num - 1) * tile_length
    return ElementwisePlan(block_dim, total, block_length, tile_length, tile_num, tail_length)


def default_tiling(
    layout: TilingLayout,
    inputs: Mapping[str, TensorLike | None],
    outputs: Mapping[str, TensorLike],
    attrs: Mapping[str, Any],
    soc: str | SocProfile = DEFAULT_SOC,
    *,
    block_dim: int | None = None,
) -> tuple[int, dict[str, Any]]:
    """Fills every field of ``layout`` by name (see docs/simulator.md, "Default tiling").

    Returns (blockDim, values); ``block_dim`` forces the number of blocks (it is lowered only so
    that no block is empty). Raises TilingError naming any field the policy cannot fill.
    """
    profile = get_soc(soc)
    present = [t for t in inputs.values() if t is not None] + list(outputs.values())
    if not outputs:
        raise TilingError("default tiling needs at least one output")
    first_out = next(iter(outputs.values()))
    total = int(np.prod(first_out.shape, dtype=np.int64))
    plan = plan_elementwise(present, total, profile, block_dim)

    first_in = next((t for t in inputs.values() if t is not None), first_out)
    in_shape = tuple(int(d) for d in first_in.shape)
    cols = in_shape[-1] if in_shape else 1
    rows = int(np.prod(in_shape[:-1], dtype=np.int64)) if in_shape else 1

    policy: dict[str, Any] = {
        "totalLength": plan.total_length,
        "blockLength": plan.block_length,
        "tileNum": plan.tile_num,
        "tileLength": plan.tile_length,
        "tailLength": plan.tail_length,
        "blockDim": plan.block_dim,
        "rows": rows,
        "cols": cols,
        "outerSize": rows,
        "axisSize": cols,
        "rank": len(in_shape),
    }
    tensors: dict[str, TensorLike | None] = {**inputs, **outputs}
    for name, t in tensors.items():
        c = camel(name)
        shape = tuple(int(d) for d in t.shape) if t is not None else ()
        policy[f"{c}Shape"] = shape
        policy[f"{c}Rank"] = len(shape)
        if name in inputs:
            policy[f"{c}Present"] = t is not None
    attr_values: dict[str, Any] = {}
    for name, value in attrs.items():
        attr_values[name] = value
        attr_values[camel(name)] = value

    values: dict[str, Any] = {}
    for f in layout.fields:
        if f.name in policy:
            v = policy[f.name]
        elif f.name in attr_values:
            v = attr_values[f.name]
        else:
            raise TilingError(
                f"tiling struct {layout.struct_name}: the default tiling cannot fill field "
                f"'{f.name}' (it is no policy field, no <tensor>Shape/Rank/Present and no attr); "
                f"add a tiling hook (spec key `tiling_hook`) that computes it"
            )
        values[f.name] = _fit(layout, f, v)
    return plan.block_dim, values


def _fit(layout: TilingLayout, f: TilingField, v: Any) -> Any:
    """Adapts a policy value to the field: shapes into arrays, dtypes into ge::DataType codes."""
    if f.array_len is not None:
        seq = list(v) if isinstance(v, Sequence | np.ndarray) and not isinstance(v, str) else [v]
        if f.name.endswith("Shape"):
            if len(seq) > f.array_len:
                raise TilingError(
                    f"tiling struct {layout.struct_name}: '{f.name}[{f.array_len}]' cannot hold "
                    f"a rank-{len(seq)} shape"
                )
            seq = seq + [SHAPE_PAD] * (f.array_len - len(seq))
        return seq
    if isinstance(v, str | np.dtype | type) and not f.is_float:
        try:
            return int(data_type(v))
        except (ValueError, TypeError):
            raise TilingError(
                f"tiling struct {layout.struct_name}: field '{f.name}' ({f.ctype}) "
                f"cannot hold {v!r}"
            ) from None
    return v
