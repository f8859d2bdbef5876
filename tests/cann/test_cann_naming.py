"""CANN naming, by worked example (msopgen's rules, CANN's aclnn conventions)."""

from __future__ import annotations

import pytest

from opgen.dtypes import DType, Format
from opgen.emit import cann_naming as n


@pytest.mark.parametrize(("op_type", "stem"), [
    ("AddCustom", "add_custom"), ("LeakyRelu", "leaky_relu"), ("Conv2D", "conv2_d"),
    ("Abc", "abc"), ("AbcDef", "abc_def"), ("ABCDef", "abc_def"), ("Abc2DEf", "abc2_d_ef"),
    ("Abc2DEF", "abc2_def"), ("ABC2dEF", "abc2d_ef"), ("LayerNormV2", "layer_norm_v2"),
    ("CastCustom", "cast_custom"),
])
def test_file_stem_follows_msopgen(op_type: str, stem: str) -> None:
    assert n.file_stem(op_type) == stem


def test_aclnn_names() -> None:
    assert n.aclnn_function("AddCustom") == "aclnnAddCustom"
    assert n.aclnn_workspace_function("AddCustom") == "aclnnAddCustomGetWorkspaceSize"
    assert n.aclnn_header("Conv2D") == "aclnn_conv2_d.h"
    assert n.header_guard("aclnn_add_custom") == "ACLNN_ADD_CUSTOM_H_"


def test_ge_enums() -> None:
    assert n.ge_dtype(DType.FLOAT32) == "DT_FLOAT"
    assert n.ge_dtype(DType.BFLOAT16) == "DT_BF16"
    assert n.ge_format(Format.ND) == "FORMAT_ND"
    assert n.msopgen_dtype(DType.FLOAT16) == "fp16"
