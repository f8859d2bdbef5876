"""Vocabulary of the spec: dtypes (with msopgen's aliases), formats, param and attr types."""

from __future__ import annotations

import enum


class DType(enum.Enum):
    """Tensor element types; the value is opgen's canonical spelling."""

    FLOAT32 = "float32"
    FLOAT16 = "float16"
    BFLOAT16 = "bfloat16"
    FLOAT64 = "float64"
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    UINT8 = "uint8"
    UINT16 = "uint16"
    UINT32 = "uint32"
    UINT64 = "uint64"
    BOOL = "bool"

    @property
    def is_floating(self) -> bool:
        return self in (DType.FLOAT32, DType.FLOAT16, DType.BFLOAT16, DType.FLOAT64)

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self]


_ITEMSIZE = {
    DType.FLOAT32: 4, DType.FLOAT16: 2, DType.BFLOAT16: 2, DType.FLOAT64: 8,
    DType.INT8: 1, DType.INT16: 2, DType.INT32: 4, DType.INT64: 8,
    DType.UINT8: 1, DType.UINT16: 2, DType.UINT32: 4, DType.UINT64: 8, DType.BOOL: 1,
}

# msopgen's spellings (its op-description "type" column) and common framework names.
DTYPE_ALIASES: dict[str, DType] = {
    "float32": DType.FLOAT32, "float": DType.FLOAT32, "fp32": DType.FLOAT32,
    "float16": DType.FLOAT16, "half": DType.FLOAT16, "fp16": DType.FLOAT16,
    "bfloat16": DType.BFLOAT16, "bf16": DType.BFLOAT16,
    "float64": DType.FLOAT64, "double": DType.FLOAT64, "fp64": DType.FLOAT64,
    "int8": DType.INT8, "int16": DType.INT16, "int32": DType.INT32, "int64": DType.INT64,
    "uint8": DType.UINT8, "uint16": DType.UINT16, "uint32": DType.UINT32,
    "uint64": DType.UINT64, "bool": DType.BOOL,
}


def parse_dtype(text: str) -> DType | None:
    return DTYPE_ALIASES.get(text.strip().lower())


class Format(enum.Enum):
    """Tensor memory formats known to CANN (ge::Format names without the FORMAT_ prefix)."""

    ND = "ND"
    NCHW = "NCHW"
    NHWC = "NHWC"
    HWCN = "HWCN"
    CHWN = "CHWN"
    NC1HWC0 = "NC1HWC0"
    NC1HWC0_C04 = "NC1HWC0_C04"
    C1HWNCoC0 = "C1HWNCoC0"
    FRACTAL_Z = "FRACTAL_Z"
    FRACTAL_NZ = "FRACTAL_NZ"
    FRACTAL_ZN_LSTM = "FRACTAL_ZN_LSTM"
    NDHWC = "NDHWC"
    NCDHW = "NCDHW"
    DHWCN = "DHWCN"
    NDC1HWC0 = "NDC1HWC0"
    FRACTAL_Z_3D = "FRACTAL_Z_3D"
    NCL = "NCL"


def parse_format(text: str) -> Format | None:
    upper = text.strip().upper()
    for fmt in Format:
        if fmt.value.upper() == upper:
            return fmt
    return None


class ParamType(enum.Enum):
    REQUIRED = "required"
    OPTIONAL = "optional"
    DYNAMIC = "dynamic"


class AttrType(enum.Enum):
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    STRING = "string"
    LIST_INT = "list_int"
    LIST_FLOAT = "list_float"
    LIST_BOOL = "list_bool"
    LIST_STRING = "list_string"
    TYPE = "type"

    @property
    def is_list(self) -> bool:
        return self.value.startswith("list_")

    @property
    def element(self) -> AttrType:
        """The scalar type of a list type (itself for scalars)."""
        return AttrType(self.value[5:]) if self.is_list else self


# msopgen's attr type spellings
ATTR_TYPE_ALIASES: dict[str, AttrType] = {
    **{t.value: t for t in AttrType},
    "str": AttrType.STRING,
    "listint": AttrType.LIST_INT, "list_int32": AttrType.LIST_INT, "listfloat": AttrType.LIST_FLOAT,
    "listbool": AttrType.LIST_BOOL, "liststr": AttrType.LIST_STRING,
    "liststring": AttrType.LIST_STRING, "list_str": AttrType.LIST_STRING,
    "int64": AttrType.INT, "float32": AttrType.FLOAT,
}


def parse_attr_type(text: str) -> AttrType | None:
    return ATTR_TYPE_ALIASES.get(text.strip().lower())
