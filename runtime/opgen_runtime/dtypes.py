"""Data types shared by host and kernel: ge::DataType codes, C++ names and DTYPE_<NAME> macros."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any


class DataType(enum.IntEnum):
    """ge::DataType numbering, the integer a `type` attr carries in the tiling data."""

    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_BF16 = 27


_BY_NAME: dict[str, DataType] = {
    "float32": DataType.DT_FLOAT,
    "float": DataType.DT_FLOAT,
    "float16": DataType.DT_FLOAT16,
    "half": DataType.DT_FLOAT16,
    "int8": DataType.DT_INT8,
    "int32": DataType.DT_INT32,
    "uint8": DataType.DT_UINT8,
    "int16": DataType.DT_INT16,
    "uint16": DataType.DT_UINT16,
    "uint32": DataType.DT_UINT32,
    "int64": DataType.DT_INT64,
    "uint64": DataType.DT_UINT64,
    "float64": DataType.DT_DOUBLE,
    "double": DataType.DT_DOUBLE,
    "bool": DataType.DT_BOOL,
    "bfloat16": DataType.DT_BF16,
    "bf16": DataType.DT_BF16,
}

# C++ spelling of each dtype inside a kernel (what DTYPE_<NAME> expands to).
_CPP_NAME: dict[DataType, str] = {
    DataType.DT_FLOAT: "float",
    DataType.DT_FLOAT16: "half",
    DataType.DT_INT8: "int8_t",
    DataType.DT_INT32: "int32_t",
    DataType.DT_UINT8: "uint8_t",
    DataType.DT_INT16: "int16_t",
    DataType.DT_UINT16: "uint16_t",
    DataType.DT_UINT32: "uint32_t",
    DataType.DT_INT64: "int64_t",
    DataType.DT_UINT64: "uint64_t",
    DataType.DT_DOUBLE: "double",
    DataType.DT_BOOL: "bool",
    DataType.DT_BF16: "bfloat16_t",
}


def data_type(value: Any) -> DataType:
    """Converts a dtype name ('float16', 'half'), numpy dtype or DataType to a DataType."""
    if isinstance(value, DataType):
        return value
    if isinstance(value, str):
        key = value.lower().removeprefix("dt_")
        if key in _BY_NAME:
            return _BY_NAME[key]
        raise ValueError(f"unknown dtype '{value}'")
    import numpy as np  # (a name or a DataType needs no numpy: opgen generate uses those)

    name = np.dtype(value).name
    if name in _BY_NAME:
        return _BY_NAME[name]
    raise ValueError(f"dtype {name} has no ge::DataType in the simulator")


def cpp_type(value: Any) -> str:
    """The kernel-side C++ type name of a dtype: float16 -> 'half'."""
    return _CPP_NAME[data_type(value)]


def dtype_defines(tensors: Mapping[str, Any]) -> dict[str, str]:
    """The per-tensor macros CANN's kernel build defines: DTYPE_<NAME>, the C++ type, and
    ORIG_DTYPE_<NAME>, the ge::DataType code a kernel compares with DT_* in `#if`
    (the simulator's kernel_operator.h defines those): {'x': 'float16'} ->
    {'DTYPE_X': 'half', 'ORIG_DTYPE_X': '1'}."""
    out = {f"DTYPE_{name.upper()}": cpp_type(dt) for name, dt in tensors.items()}
    out.update({f"ORIG_DTYPE_{name.upper()}": str(int(data_type(dt)))
                for name, dt in tensors.items()})
    return out
