"""CANN's IR names (camelCase, e.g. srcList, bufferMode) beside opgen's snake_case names: a
spec's `ir_name` reaches every CANN-side output, and import-msopgen sets it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import built_ops
import pytest

from conftest import ROOT
from opgen.cli import main
from opgen.diagnostics import DiagnosticSink
from opgen.load import Document
from opgen.msopgen import convert

SPEC = """\
op_name: leaky_relu
op_type: LeakyRelu
input_desc:
  - name: x
    ir_name: xIn
    dtype: [float32, float16]
    shape: [-2]
output_desc:
  - name: y
    ir_name: yOut
    dtype: [float32, float16]
    shape: [-2]
    infer: same_as(x)
attr_desc:
  - name: negative_slope
    ir_name: negSlope
    type: float
    default: 0.01
kernel:
  source: leaky_relu.cpp
reference: where(x > 0, x, x * negative_slope)
backward:
  x: where(x > 0, grad_y, grad_y * negative_slope)
"""


def test_msopgen_camel_case_names_become_snake_case_with_ir_name() -> None:
    desc = [{"op": "AddnCustom",
             "input_desc": [{"name": "srcList", "param_type": "dynamic", "type": ["fp16"],
                             "format": ["ND"]}],
             "output_desc": [{"name": "dst", "param_type": "required", "type": ["fp16"],
                              "format": ["ND"]}],
             "attr": [{"name": "isReuseSource", "type": "bool", "param_type": "optional",
                       "default_value": "false"}]}]
    sink = DiagnosticSink()
    (doc,) = convert(Document("ops.json", desc), sink)
    assert doc.data["input_desc"][0]["name"] == "src_list"
    assert doc.data["input_desc"][0]["ir_name"] == "srcList"
    assert "ir_name" not in doc.data["output_desc"][0]  # already snake_case
    assert doc.data["attr_desc"][0]["name"] == "is_reuse_source"
    assert doc.data["attr_desc"][0]["ir_name"] == "isReuseSource"
    assert list(doc.data["attr_desc"][0]) == ["name", "ir_name", "type", "default"]


def test_msopgen_reserved_names_get_an_underscore_and_keep_their_ir_name() -> None:
    # aclnn's `self` (ops-math's cholesky: Input("self")), a Python keyword
    desc = [{"op": "Cholesky",
             "input_desc": [{"name": "self", "param_type": "required", "type": ["float"],
                             "format": ["ND"]}],
             "output_desc": [{"name": "out", "param_type": "required", "type": ["float"],
                              "format": ["ND"]}],
             "attr": [{"name": "lambda", "type": "bool", "param_type": "optional",
                       "default_value": "false"}]}]
    sink = DiagnosticSink()
    (doc,) = convert(Document("ops.json", desc), sink)
    assert not sink.has_errors
    assert (doc.data["input_desc"][0]["name"], doc.data["input_desc"][0]["ir_name"]) == (
        "self_", "self")
    assert "ir_name" not in doc.data["output_desc"][0]
    assert (doc.data["attr_desc"][0]["name"], doc.data["attr_desc"][0]["ir_name"]) == (
        "lambda_", "lambda")


def test_ir_names_reach_opdef_reg_op_aclnn_and_msopgen_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "leaky_relu.yaml").write_text(SPEC)
    shutil.copy(ROOT / "specs" / "leaky_relu.cpp", tmp_path / "specs")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.opgen]\nspec_dir = "specs"\noutput_dir = "generated"\npackage = "ir_ops"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["generate", "-q"]) == 0
    cann = tmp_path / "generated" / "cann"
    host = (cann / "op_host" / "leaky_relu.cpp").read_text()
    assert 'this->Input("xIn")' in host and 'this->Output("yOut")' in host
    assert 'this->Attr("negSlope")' in host
    assert '"x"' not in host and '"negative_slope"' not in host
    proto = (cann / "op_proto" / "leaky_relu_proto.h").read_text()
    assert "INPUT(xIn," in proto and "OUTPUT(yOut," in proto and "ATTR(negSlope," in proto
    aclnn = (cann / "aclnn" / "aclnn_leaky_relu.h").read_text()
    assert "const aclTensor *xIn," in aclnn and "double negSlope," in aclnn
    (op,) = json.loads((cann / "leaky_relu.json").read_text())
    assert [t["name"] for t in op["input_desc"] + op["output_desc"]] == ["xIn", "yOut"]
    assert op["attr"][0]["name"] == "negSlope"
    # the runtime keeps both names: the spec's for callers, the IR's for the op_host
    metadef = json.loads((tmp_path / "generated" / "metadef" / "leaky_relu.json").read_text())
    assert metadef["input_desc"][0]["name"] == "x"
    assert metadef["input_desc"][0]["ir_name"] == "xIn"
    assert metadef["attr_desc"][0]["ir_name"] == "negSlope"
    # generation is deterministic: a second run changes nothing
    assert main(["generate", "--check", "-q"]) == 0


def test_import_project_with_camel_case_ir_names_builds_and_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:

    import numpy as np
    import yaml


    fixture = ROOT / "tests" / "fixtures" / "msopgen_clamp"
    project = tmp_path / "ClampScale"
    shutil.copytree(fixture / "op_host", project / "op_host")
    shutil.copytree(fixture / "op_kernel", project / "op_kernel")
    host = project / "op_host" / "clamp_scale.cpp"
    host.write_text(host.read_text().replace('Input("x")', 'Input("srcTensor")')
                    .replace('Attr("gain")', 'Attr("gainValue")'))
    # CANN's build names the dtype macro after the IR name, so the kernel follows the rename
    kernel = project / "op_kernel" / "clamp_scale.cpp"
    assert "DTYPE_X" in kernel.read_text()
    kernel.write_text(kernel.read_text().replace("DTYPE_X", "DTYPE_SRCTENSOR"))
    work = tmp_path / "work"
    work.mkdir()
    (work / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    monkeypatch.chdir(work)
    assert main(["import-msopgen", str(project)]) == 0
    spec = yaml.safe_load((work / "specs" / "clamp_scale.yaml").read_text())
    assert spec["input_desc"][0]["name"] == "src_tensor"
    assert spec["input_desc"][0]["ir_name"] == "srcTensor"
    assert [(a["name"], a.get("ir_name")) for a in spec["attr_desc"]] == [
        ("gain_value", "gainValue"), ("limit", None), ("mode", None)]
    reg = built_ops.registered(work, "clamp_scale")
    text = (work / "generated" / "cann" / "op_host" / "clamp_scale.cpp").read_text()
    assert 'this->Input("srcTensor")' in text and 'this->Attr("gainValue")' in text
    x = np.linspace(-20, 20, 4096, dtype=np.float32)
    np.testing.assert_array_equal(reg.call("clamp_scale", x, gain_value=2.0),
                                  np.clip(x * np.float32(2.0), -6, 6))
