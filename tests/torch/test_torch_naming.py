"""Worked examples of the PyTorch names and schema spellings (opgen/emit/torch_naming.py)."""

from __future__ import annotations

from pathlib import Path

from opgen.api import load_spec
from opgen.dtypes import AttrType, DType
from opgen.emit import torch_naming as names

ROOT = Path(__file__).resolve().parents[2]


def test_schemas_of_the_example_ops() -> None:
    expected = {
        "element_add.json": "element_add(Tensor x, Tensor y) -> Tensor",
        "leaky_relu.yaml": "leaky_relu(Tensor x, *, float negative_slope=0.01) -> Tensor",
        "cast.yaml": "cast(Tensor x, *, ScalarType dst_type) -> Tensor",
        "softmax.yaml": "softmax(Tensor x, *, int axis=-1) -> Tensor",
        "layer_norm.yaml": "layer_norm(Tensor x, Tensor? gamma=None, Tensor? beta=None, *, "
                           "float epsilon=1e-05) -> (Tensor y, Tensor mean, Tensor rstd)",
    }
    for file, schema in expected.items():
        assert names.schema(load_spec(ROOT / "specs" / file)) == schema


def test_class_names() -> None:
    spec = load_spec(ROOT / "specs" / "element_add.json")
    assert names.function_class(spec) == "ElementAdd"
    assert names.module_class(spec) == "ElementAddModule"
    assert names.qualname("opgen", spec) == "opgen::element_add"


def test_defaults() -> None:
    assert names.schema_default(True, AttrType.BOOL) == "True"
    assert names.schema_default("a\"b", AttrType.STRING) == '"a\\"b"'
    assert names.schema_default((1, 2), AttrType.LIST_INT) == "[1, 2]"
    assert names.schema_default(DType.FLOAT32, AttrType.TYPE) == "6"
    assert names.py_default(DType.FLOAT16, AttrType.TYPE) == "torch.float16"
    assert names.py_default((3,), AttrType.LIST_INT) == "(3,)"


def test_kernel_library_names() -> None:
    assert names.scalar_type(DType.FLOAT16) == "::opgen_torch::Dtype::Half"
    assert names.scalar_type(DType.INT8) == "::opgen_torch::Dtype::Char"
    assert names.library_stem("opgen_ops") == "opgen_ops_torch"
    assert names.cc_namespace("leaky_relu") == "opgen_torch_leaky_relu"
    assert names.blob_symbol("cast", 3) == "opgen_torch_blob_cast_3"
