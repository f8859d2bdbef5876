"""PyTorch names and schema spellings, in one place: op schema, classes, dtypes, attr types.

Templates never build names; the torch emitter asks this module. Worked examples are in
tests/torch/test_torch_naming.py.
"""

from __future__ import annotations

from opgen.dtypes import AttrType, DType
from opgen.emit.escape import py_literal
from opgen.model import AttrDesc, AttrValue, OpSpec, TensorDesc
from opgen.naming import upper_camel

# Attr types as torch schema types. A `type` attr is a ScalarType (a torch.dtype in Python).
_SCHEMA_ATTR: dict[AttrType, str] = {
    AttrType.INT: "int", AttrType.FLOAT: "float", AttrType.BOOL: "bool",
    AttrType.STRING: "str", AttrType.LIST_INT: "int[]", AttrType.LIST_FLOAT: "float[]",
    AttrType.LIST_BOOL: "bool[]", AttrType.LIST_STRING: "str[]", AttrType.TYPE: "ScalarType",
}

# Python annotations of the generated wrappers, per attr type.
_PY_ATTR: dict[AttrType, str] = {
    AttrType.INT: "int", AttrType.FLOAT: "float", AttrType.BOOL: "bool",
    AttrType.STRING: "str", AttrType.LIST_INT: "Sequence[int]",
    AttrType.LIST_FLOAT: "Sequence[float]", AttrType.LIST_BOOL: "Sequence[bool]",
    AttrType.LIST_STRING: "Sequence[str]", AttrType.TYPE: "torch.dtype",
}

# c10::ScalarType enumerators: a ScalarType default is written as its integer in a schema.
_SCALAR_TYPE_CODE: dict[DType, int] = {
    DType.UINT8: 0, DType.INT8: 1, DType.INT16: 2, DType.INT32: 3, DType.INT64: 4,
    DType.FLOAT16: 5, DType.FLOAT32: 6, DType.FLOAT64: 7, DType.BOOL: 11, DType.BFLOAT16: 15,
    DType.UINT16: 27, DType.UINT32: 28, DType.UINT64: 29,
}


def qualname(namespace: str, spec: OpSpec) -> str:
    """opgen::leaky_relu"""
    return f"{namespace}::{spec.op_name}"


def cpu_namespace(namespace: str) -> str:
    """The namespace of the ops' bare CPU kernels (no autograd), which the generated wrappers
    call when no input needs a gradient: opgen -> opgen_cpu."""
    return f"{namespace}_cpu"


def function_class(spec: OpSpec) -> str:
    """The seed-style torch.autograd.Function: leaky_relu -> LeakyRelu."""
    return upper_camel(spec.op_name)


def module_class(spec: OpSpec) -> str:
    """The nn.Module: element_add -> ElementAddModule (the seed's name)."""
    return f"{upper_camel(spec.op_name)}Module"


def torch_dtype(dtype: DType) -> str:
    """float16 -> torch.float16"""
    return f"torch.{dtype.value}"


def tensor_type(t: TensorDesc) -> str:
    if t.is_dynamic:
        return "Tensor[]"
    return "Tensor?" if t.is_optional else "Tensor"


def attr_type(a: AttrDesc) -> str:
    return _SCHEMA_ATTR[a.type]


def py_attr_type(a: AttrDesc) -> str:
    return _PY_ATTR[a.type]


def schema_default(value: AttrValue, kind: AttrType) -> str:
    """An attr default as a torch schema literal: 0.01, True, "abc", [1, 2], 6 (ScalarType)."""
    if kind is AttrType.TYPE:
        assert isinstance(value, DType)
        return str(_SCALAR_TYPE_CODE[value])
    if isinstance(value, tuple):
        return "[" + ", ".join(schema_default(v, kind.element) for v in value) + "]"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return schema_str(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def schema_str(value: str) -> str:
    """A string literal of torch's schema language, whose lexer takes C-style escapes (\\, \",
    octal): every byte outside printable ASCII is an octal escape of its UTF-8 encoding."""
    out = []
    for byte in value.encode("utf-8", "surrogatepass"):
        ch = chr(byte)
        if ch in '\\"':
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def py_default(value: AttrValue, kind: AttrType) -> str:
    """An attr default as Python source: 0.01, True, 'abc', (1, 2), torch.float32."""
    if kind is AttrType.TYPE:
        assert isinstance(value, DType)
        return torch_dtype(value)
    if isinstance(value, tuple):
        inner = ", ".join(py_default(v, kind.element) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return py_literal(value)


def schema(spec: OpSpec) -> str:
    """The op's schema: tensors positional (optional ones default to None), attrs keyword-only
    with their defaults, e.g. leaky_relu(Tensor x, *, float negative_slope=0.01) -> Tensor."""
    args = [f"{tensor_type(t)} {t.name}" + ("=None" if t.is_optional else "")
            for t in spec.inputs]
    if spec.attrs:
        args.append("*")
        for a in spec.attrs:
            # torch's schema language has no str[] defaults: the attr is required there, and
            # the Python wrappers, which pass every attr, carry its default
            default = "" if a.default is None or a.type is AttrType.LIST_STRING \
                else "=" + schema_default(a.default, a.type)
            args.append(f"{attr_type(a)} {a.name}{default}")
    if len(spec.outputs) == 1:
        returns = "Tensor"
    else:
        returns = "(" + ", ".join(f"Tensor {t.name}" for t in spec.outputs) + ")"
    return f"{spec.op_name}({', '.join(args)}) -> {returns}"


# -- the C++ kernel library ----------------------------------------------------------------------
_SCALAR_TYPE_ENUM: dict[DType, str] = {
    DType.UINT8: "Byte", DType.INT8: "Char", DType.INT16: "Short", DType.INT32: "Int",
    DType.INT64: "Long", DType.FLOAT16: "Half", DType.FLOAT32: "Float", DType.FLOAT64: "Double",
    DType.BOOL: "Bool", DType.BFLOAT16: "BFloat16", DType.UINT16: "UInt16",
    DType.UINT32: "UInt32", DType.UINT64: "UInt64",
}


def scalar_type(dtype: DType) -> str:
    """float16 -> ::opgen_torch::Dtype::Half (c10::ScalarType's numbering, opgen_torch/op_desc.h)"""
    return f"::opgen_torch::Dtype::{_SCALAR_TYPE_ENUM[dtype]}"


def library_stem(package: str) -> str:
    """opgen_ops -> opgen_ops_torch: the kernel library is lib<stem>.so, its source <stem>.cc."""
    return f"{package}_torch"


def cc_namespace(op_name: str) -> str:
    """The C++ namespace of an op's description: opgen_torch_leaky_relu."""
    return f"opgen_torch_{op_name}"


def blob_symbol(op_name: str, column: int) -> str:
    """A kernel variant embedded in the library: 'opgen_torch_blob_cast_3' (the runtime's
    opgen_runtime.torch_library names it the same)."""
    return f"opgen_torch_blob_{op_name}_{column}"


def host_blob_symbol(op_name: str) -> str:
    """The op's own op_host embedded in the library: 'opgen_torch_blob_cast_0_op_host' (the
    runtime's opgen_runtime.native_library.variants names it the same)."""
    return blob_symbol(op_name, 0) + "_op_host"
