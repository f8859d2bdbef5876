"""TensorFlow naming: worked examples (opgen/emit/tf_naming.py)."""

from __future__ import annotations

import pytest

from opgen.dtypes import AttrType, DType
from opgen.emit import tf_naming as names


@pytest.mark.parametrize(("namespace", "op", "tf_name", "python_name"), [
    ("opgen", "element_add", "Opgen>ElementAdd", "opgen_element_add"),
    ("opgen", "leaky_relu", "Opgen>LeakyRelu", "opgen_leaky_relu"),
    ("my_ops", "layer_norm_v2", "MyOps>LayerNormV2", "my_ops_layer_norm_v2"),
    ("opgen", "conv2d", "Opgen>Conv2d", "opgen_conv2d"),
])
def test_op_names(namespace: str, op: str, tf_name: str, python_name: str) -> None:
    assert names.tf_op_name(namespace, op) == tf_name
    assert names.tf_python_name(tf_name) == python_name


def test_python_name_follows_tensorflow_rule() -> None:
    # TensorFlow's GenerateLowerCaseOpName: a capital run ends before a lower-case letter
    assert names.tf_python_name("Opgen>HTTPGet") == "opgen_http_get"
    assert names.tf_python_name("Opgen>Conv2D") == "opgen_conv2d"


def test_types_and_attrs() -> None:
    assert names.tf_type(DType.FLOAT16) == "half"
    assert names.tf_enum(DType.FLOAT32) == "DT_FLOAT"
    assert names.tf_attr_type(AttrType.LIST_INT) == "list(int)"
    assert names.input_dtype_attr("x", shared=True) == "T"
    assert names.input_dtype_attr("x", shared=False) == "T_x"
    assert names.count_attr("gamma") == "N_gamma"
    assert names.layer_class("leaky_relu") == "LeakyRelu"
    assert names.blob_symbol("cast", 3) == "opgen_tf_blob_cast_3"
