"""Validation building the model: the example specs, the seed's metadef, msopgen input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT
from opgen.api import load_spec, reference_gradients, reference_outputs
from opgen.diagnostics import DiagnosticError
from opgen.dtypes import AttrType, DType, Format, ParamType
from opgen.shape_rules import Reduce, SameAs

SPECS = sorted(p for p in (ROOT / "specs").iterdir() if p.suffix in (".yaml", ".json"))


def test_the_seed_metadef_validates_as_printed() -> None:
    spec = load_spec(ROOT / "tests" / "fixtures" / "seed_element_add.json")
    assert spec.op_type == "ElementAdd"  # "Custom" means: derive it
    assert [t.name for t in spec.inputs] == ["x", "y"]
    assert spec.outputs[0].infer == SameAs("x")  # default rule
    assert spec.outputs[0].shape == (-1,)
    assert spec.kernel.source == "element_add.cpp" and spec.kernel.entry == "element_add"


@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_example_specs_validate_and_have_references(path: Path) -> None:
    spec = load_spec(path)
    assert spec.reference, "every example op has a numpy reference"
    assert spec.backward is not None


def test_model_is_frozen_and_uses_enums() -> None:
    spec = load_spec(ROOT / "specs" / "layer_norm.yaml")
    assert spec.inputs[1].param_type is ParamType.OPTIONAL
    assert spec.outputs[1].infer == Reduce("x", -1, True)
    assert spec.attrs[0].type is AttrType.FLOAT and spec.attrs[0].default == 1e-5
    assert spec.inputs[0].formats == (Format.ND, Format.ND)
    assert [c.dtypes[0][1] for c in spec.combinations()] == [DType.FLOAT32, DType.FLOAT16]
    with pytest.raises(AttributeError):
        spec.op_name = "other"  # type: ignore[misc]
    # reference expressions are ordered so dependencies come first
    assert [r.output for r in spec.reference] == ["mean", "rstd", "y"]


def test_dtype_aliases_normalise(tmp_path: Path) -> None:
    p = tmp_path / "op.yaml"
    p.write_text("op_name: op\ninput_desc:\n  - {name: x, dtype: [fp16, float, bf16, double]}\n"
                 "output_desc:\n  - {name: y, dtype: [half, fp32, bfloat16, float64]}\n"
                 "backward: {x: grad_y}\n")
    spec = load_spec(p)
    assert spec.inputs[0].dtypes == (DType.FLOAT16, DType.FLOAT32, DType.BFLOAT16, DType.FLOAT64)
    assert spec.outputs[0].dtypes == spec.inputs[0].dtypes
    assert spec.inputs[0].formats == (Format.ND,) * 4  # format defaults to ND per column


def test_all_errors_of_a_file_are_reported(tmp_path: Path) -> None:
    p = tmp_path / "op.yaml"
    p.write_text("op_name: Op\ninput_desc:\n  - {name: x, dtype: [flaot32]}\n"
                 "output_desc:\n  - {name: y, dtype: [float32], infer: same_as(w)}\n"
                 "bogus: 1\n")
    with pytest.raises(DiagnosticError) as exc:
        load_spec(p)
    lines = str(exc.value).splitlines()
    assert len(lines) == 4
    assert all(": error: " in line for line in lines)


def test_reference_and_gradients_evaluate() -> None:
    spec = load_spec(ROOT / "specs" / "layer_norm.yaml")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 8)).astype(np.float32)
    out = reference_outputs(spec, {"x": x})
    assert np.allclose(out["y"].mean(axis=-1), 0, atol=1e-5)
    assert out["mean"].shape == (3, 1)
    grads = reference_gradients(spec, {"x": x}, {"y": np.ones_like(x)})
    assert np.allclose(grads["x"], 0, atol=1e-4)  # d(sum(normalised))/dx == 0


def test_reference_gradients_match_finite_differences() -> None:
    """The example backward formulas are right: compare with central differences."""
    rng = np.random.default_rng(1)
    for name, attrs in (("leaky_relu", {}), ("softmax", {}), ("layer_norm", {}),
                        ("broadcast_add", {})):
        spec = load_spec(ROOT / "specs" / f"{name}.yaml")
        inputs = {t.name: rng.standard_normal((2, 5)) for t in spec.inputs
                  if not t.is_optional}
        if name == "broadcast_add":
            inputs["y"] = rng.standard_normal((1, 5))
        if name == "layer_norm":
            inputs["gamma"] = rng.standard_normal(5)
            inputs["beta"] = rng.standard_normal(5)
        first = spec.outputs[0].name
        w = rng.standard_normal(reference_outputs(spec, inputs, attrs)[first].shape)
        grads = reference_gradients(spec, inputs, {first: w}, attrs)
        for key, value in inputs.items():
            numeric = np.zeros_like(value)
            for idx in np.ndindex(value.shape):
                hi, lo = dict(inputs), dict(inputs)
                hi[key] = value.copy()
                lo[key] = value.copy()
                hi[key][idx] += 1e-6
                lo[key][idx] -= 1e-6
                f_hi = np.sum(reference_outputs(spec, hi, attrs)[first] * w)
                f_lo = np.sum(reference_outputs(spec, lo, attrs)[first] * w)
                numeric[idx] = (f_hi - f_lo) / 2e-6
            assert np.allclose(grads[key], numeric, atol=1e-5), (name, key)


def test_msopgen_json_is_read_directly(tmp_path: Path) -> None:
    p = tmp_path / "add_custom.json"
    p.write_text("""[
  {
    "op": "AddCustom",
    "language": "cpp",
    "input_desc": [
      {"name": "x", "param_type": "required", "format": ["ND", "ND"], "type": ["fp16", "float"]},
      {"name": "y", "param_type": "required", "format": ["ND", "ND"], "type": ["fp16", "float"]}
    ],
    "output_desc": [
      {"name": "z", "param_type": "required", "format": ["ND", "ND"], "type": ["fp16", "float"]}
    ],
    "attr": [
      {"name": "alpha", "param_type": "optional", "type": "float", "default_value": "1.0"},
      {"name": "axes", "param_type": "optional", "type": "listInt", "default_value": "[0, 1]"},
      {"name": "mode", "param_type": "required", "type": "str"}
    ]
  }
]
""")
    spec = load_spec(p)
    assert (spec.op_name, spec.op_type) == ("add_custom", "AddCustom")
    assert spec.inputs[0].dtypes == (DType.FLOAT16, DType.FLOAT32)
    assert [(a.name, a.type, a.default) for a in spec.attrs] == [
        ("alpha", AttrType.FLOAT, 1.0), ("axes", AttrType.LIST_INT, (0, 1)),
        ("mode", AttrType.STRING, None)]
