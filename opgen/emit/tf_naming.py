"""TensorFlow names, in one place: op names, the loaded library's function names, Keras layers.

Templates never build names; the TensorFlow emitter asks this module. Worked examples are in
tests/tf/test_tf_naming.py.
"""

from __future__ import annotations

from opgen.dtypes import AttrType, DType
from opgen.naming import upper_camel

# TF attr-type spellings (`T: {float, half}`) and C++ DataType enumerators of each dtype.
_TF_TYPES: dict[DType, tuple[str, str]] = {
    DType.FLOAT32: ("float", "DT_FLOAT"), DType.FLOAT16: ("half", "DT_HALF"),
    DType.BFLOAT16: ("bfloat16", "DT_BFLOAT16"), DType.FLOAT64: ("double", "DT_DOUBLE"),
    DType.INT8: ("int8", "DT_INT8"), DType.INT16: ("int16", "DT_INT16"),
    DType.INT32: ("int32", "DT_INT32"), DType.INT64: ("int64", "DT_INT64"),
    DType.UINT8: ("uint8", "DT_UINT8"), DType.UINT16: ("uint16", "DT_UINT16"),
    DType.UINT32: ("uint32", "DT_UINT32"), DType.UINT64: ("uint64", "DT_UINT64"),
    DType.BOOL: ("bool", "DT_BOOL"),
}

# REGISTER_OP attr types of spec attr types.
_TF_ATTR: dict[AttrType, str] = {
    AttrType.INT: "int", AttrType.FLOAT: "float", AttrType.BOOL: "bool",
    AttrType.STRING: "string", AttrType.LIST_INT: "list(int)",
    AttrType.LIST_FLOAT: "list(float)", AttrType.LIST_BOOL: "list(bool)",
    AttrType.LIST_STRING: "list(string)", AttrType.TYPE: "type",
}


def tf_type(dtype: DType) -> str:
    """float32 -> float, float16 -> half: the spelling of REGISTER_OP type lists."""
    return _TF_TYPES[dtype][0]


def tf_enum(dtype: DType) -> str:
    """float32 -> DT_FLOAT: the C++ DataType enumerator."""
    return _TF_TYPES[dtype][1]


def tf_attr_type(attr_type: AttrType) -> str:
    """list_int -> list(int)."""
    return _TF_ATTR[attr_type]


def tf_op_name(namespace: str, op_name: str) -> str:
    """('opgen', 'leaky_relu') -> 'Opgen>LeakyRelu'.

    TensorFlow op names are global in a process; the `>` namespace (as TF Addons used) keeps a
    generated `Softmax` from clashing with TensorFlow's own.
    """
    return f"{upper_camel(namespace)}>{upper_camel(op_name)}"


def tf_python_name(tf_name: str) -> str:
    """The function tf.load_op_library's module exposes for an op (TensorFlow's
    GenerateLowerCaseOpName): 'Opgen>LeakyRelu' -> 'opgen_leaky_relu', 'Opgen>Conv2D' ->
    'opgen_conv2d', 'Opgen>HTTPGet' -> 'opgen_http_get'."""
    out: list[str] = []
    last = len(tf_name) - 1
    for i, c in enumerate(tf_name):
        if c == ">":
            out.append("_")
            continue
        if c.isupper() and i > 0 and tf_name[i - 1] != ">" and (
                tf_name[i - 1].islower() or (i < last and tf_name[i + 1].islower())):
            out.append("_")
        out.append(c.lower())
    return "".join(out)


def layer_class(op_name: str) -> str:
    """leaky_relu -> LeakyRelu: the Keras layer of an op."""
    return upper_camel(op_name)


def input_dtype_attr(input_name: str, shared: bool) -> str:
    """The TF type attr of an input's dtype: 'T' when all inputs share one, else 'T_<name>'."""
    return "T" if shared else f"T_{input_name}"


def output_dtype_attr(output_name: str) -> str:
    """The TF type attr of an output whose dtype no input or attr determines."""
    return f"T_{output_name}"


def count_attr(input_name: str) -> str:
    """The list length attr of an optional input (a list of 0 or 1 tensors): 'N_gamma'."""
    return f"N_{input_name}"


def blob_symbol(op_name: str, column: int) -> str:
    """The symbol of a kernel variant embedded in the op library: 'opgen_tf_blob_cast_3'."""
    return f"opgen_tf_blob_{op_name}_{column}"

def host_blob_symbol(op_name: str) -> str:
    """The op's own op_host embedded in the library: 'opgen_tf_blob_cast_0_op_host' (the
    runtime's opgen_runtime.native_library.variants names it the same)."""
    return blob_symbol(op_name, 0) + "_op_host"


def cc_namespace(op_name: str) -> str:
    return f"opgen_tf_{op_name}"


def library_stem(package: str) -> str:
    """opgen_ops -> opgen_ops_tf: the op library is lib<stem>.so, its source <stem>.cc."""
    return f"{package}_tf"
