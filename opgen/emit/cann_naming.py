"""CANN names, in one place: op types, msopgen file stems, aclnn functions and parameters.

Templates never build names; every CANN-side emitter asks this module. Worked examples are in
tests/cann/test_cann_naming.py.
"""

from __future__ import annotations

from opgen.dtypes import AttrType, DType, Format
from opgen.model import AttrDesc, OpSpec, TensorDesc
from opgen.naming import lower_camel

# ge::DataType enumerators (graph/types.h), used by OpDef's DataType({...}) with a ge:: prefix
# and by REG_OP's TensorType({...}) inside namespace ge.
_GE_DTYPES: dict[DType, str] = {
    DType.FLOAT32: "DT_FLOAT", DType.FLOAT16: "DT_FLOAT16", DType.BFLOAT16: "DT_BF16",
    DType.FLOAT64: "DT_DOUBLE", DType.INT8: "DT_INT8", DType.INT16: "DT_INT16",
    DType.INT32: "DT_INT32", DType.INT64: "DT_INT64", DType.UINT8: "DT_UINT8",
    DType.UINT16: "DT_UINT16", DType.UINT32: "DT_UINT32", DType.UINT64: "DT_UINT64",
    DType.BOOL: "DT_BOOL",
}

# msopgen's op-description type column (its own short spellings).
_MSOPGEN_DTYPES: dict[DType, str] = {
    DType.FLOAT32: "float", DType.FLOAT16: "fp16", DType.BFLOAT16: "bf16",
    DType.FLOAT64: "double", DType.INT8: "int8", DType.INT16: "int16", DType.INT32: "int32",
    DType.INT64: "int64", DType.UINT8: "uint8", DType.UINT16: "uint16",
    DType.UINT32: "uint32", DType.UINT64: "uint64", DType.BOOL: "bool",
}

# OpAttrDef's typed setters (register/op_def.h) and REG_OP's attr types (graph/operator_reg.h).
# A `type` attr travels as its ge::DataType value, an Int (as CANN's own Cast does).
_OPDEF_ATTR: dict[AttrType, str] = {
    AttrType.INT: "Int", AttrType.FLOAT: "Float", AttrType.BOOL: "Bool",
    AttrType.STRING: "String", AttrType.LIST_INT: "ListInt", AttrType.LIST_FLOAT: "ListFloat",
    AttrType.LIST_BOOL: "ListBool", AttrType.LIST_STRING: "ListString", AttrType.TYPE: "Int",
}

# aclnn parameter types per attr type, as the aclnn two-phase API declares them.
_ACLNN_ATTR: dict[AttrType, str] = {
    AttrType.INT: "int64_t", AttrType.FLOAT: "double", AttrType.BOOL: "bool",
    AttrType.STRING: "char *", AttrType.LIST_INT: "const aclIntArray *",
    AttrType.LIST_FLOAT: "const aclFloatArray *", AttrType.LIST_BOOL: "const aclBoolArray *",
    AttrType.LIST_STRING: "const aclStringArray *", AttrType.TYPE: "int64_t",
}

_MSOPGEN_ATTR: dict[AttrType, str] = {
    AttrType.INT: "int", AttrType.FLOAT: "float", AttrType.BOOL: "bool", AttrType.STRING: "str",
    AttrType.LIST_INT: "listInt", AttrType.LIST_FLOAT: "listFloat",
    AttrType.LIST_BOOL: "listBool", AttrType.LIST_STRING: "listStr", AttrType.TYPE: "int",
}


def file_stem(op_type: str) -> str:
    """msopgen's OpType -> file name rule (its fix_name_lower_with_under).

    An upper-case letter starts a new word (gets a '_') unless it follows another upper-case
    letter; in a run of capitals, the last one before a lower-case letter starts the word:
    AddCustom -> add_custom, ABCDef -> abc_def, Conv2D -> conv2_d, Abc2DEF -> abc2_def.
    """
    out = ""
    for i, ch in enumerate(op_type):
        if i == 0:
            out += ch.lower()
            continue
        if ch.isupper():
            prev = op_type[i - 1]
            nxt = op_type[i + 1] if i + 1 < len(op_type) else ""
            if prev != "_" and (not prev.isupper() or nxt.islower()):
                out += "_"
            out += ch.lower()
        else:
            out += ch
    return out


def cann_stem(spec: OpSpec) -> str:
    return file_stem(spec.op_type)


def ge_dtype(dtype: DType) -> str:
    return _GE_DTYPES[dtype]


def acl_dtype(dtype: DType) -> str:
    """float16 -> ACL_FLOAT16: aclDataType spells each type as ge::DataType does, with the same
    values (DT_BF16 -> ACL_BF16)."""
    return "ACL_" + _GE_DTYPES[dtype].removeprefix("DT_")


def ge_format(fmt: Format) -> str:
    return f"FORMAT_{fmt.value}"


def msopgen_dtype(dtype: DType) -> str:
    return _MSOPGEN_DTYPES[dtype]


def msopgen_attr_type(t: AttrType) -> str:
    return _MSOPGEN_ATTR[t]


def opdef_attr_setter(t: AttrType) -> str:
    return _OPDEF_ATTR[t]


def reg_op_attr_type(t: AttrType) -> str:
    """REG_OP attr value types: Int, Float, Bool, String, ListInt, ... (operator_reg.h)."""
    return _OPDEF_ATTR[t]


def aclnn_function(op_type: str) -> str:
    return f"aclnn{op_type}"


def aclnn_workspace_function(op_type: str) -> str:
    return f"aclnn{op_type}GetWorkspaceSize"


def aclnn_header(op_type: str) -> str:
    return f"aclnn_{file_stem(op_type)}.h"


def header_guard(path_stem: str) -> str:
    """aclnn_add_custom -> ACLNN_ADD_CUSTOM_H_ (the guard CANN's generated headers use)."""
    return f"{path_stem.upper()}_H_"


def aclnn_input_name(t: TensorDesc) -> str:
    """Inputs keep their IR name in lowerCamel (x_scale -> xScale, srcList -> srcList);
    optional ones get CANN's 'Optional' suffix."""
    return lower_camel(t.ir) + ("Optional" if t.is_optional else "")


def aclnn_output_name(spec: OpSpec, t: TensorDesc) -> str:
    """A single output is `out`; several are <IR name>Out (CANN's aclnn naming rule)."""
    return "out" if len(spec.outputs) == 1 else f"{lower_camel(t.ir)}Out"


def aclnn_attr_name(a: AttrDesc) -> str:
    """Optional string attrs are passed as a nullable pointer, hence the 'Optional' suffix."""
    optional_ptr = not a.required and a.type is AttrType.STRING
    return lower_camel(a.ir) + ("Optional" if optional_ptr else "")


def aclnn_tensor_type(t: TensorDesc) -> str:
    return "const aclTensorList *" if t.is_dynamic else "const aclTensor *"


def aclnn_attr_type(t: AttrType) -> str:
    return _ACLNN_ATTR[t]
