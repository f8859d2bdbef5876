"""Derived gradients (opgen.derive): `backward:` computed from the reference with sympy.

Every derived gradient is compared with central differences in float64 on random points away
from kinks; a hand-written backward that disagrees with the derivative is a located warning
(an error with --strict); `opgen new` writes no backward and the op is differentiable."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from conftest import ROOT
from opgen.api import load_spec, reference_gradients, reference_outputs
from opgen.cli import main
from opgen.model import OpSpec

EXAMPLES = sorted(p for p in (ROOT / "specs").iterdir() if p.suffix in (".yaml", ".json"))


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Derivations are cached on disk; these tests derive afresh."""
    from opgen import derive

    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setattr(derive, "_MEMORY", {})


def _without_backward(path: Path, tmp: Path) -> OpSpec:
    data = json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(
        path.read_text())
    data.pop("backward", None)
    kernel = data.get("kernel", {}).get("source", f"{data['op_name']}.cpp")
    shutil.copy(path.parent / kernel, tmp / kernel)
    out = tmp / f"{path.stem}.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_spec(out)


def _spec(tmp: Path, reference: str | dict[str, str], *, inputs: tuple[str, ...] = ("x",),
          outputs: dict[str, str] | None = None, attrs: str = "",
          backward: str = "") -> Path:
    outputs = outputs or {"y": f"same_as({inputs[0]})"}
    text = "op_name: op\ninput_desc:\n" + "".join(
        f"  - {{name: {n}, dtype: [float32], shape: [-2]}}\n" for n in inputs)
    text += "output_desc:\n" + "".join(
        f"  - {{name: {n}, dtype: [float32], shape: [-2], infer: '{rule}'}}\n"
        for n, rule in outputs.items())
    text += attrs
    text += f"reference: {json.dumps(reference)}\n"
    text += backward
    (tmp / "op.cpp").write_text("")
    (tmp / "op.yaml").write_text(text)
    return tmp / "op.yaml"


def _inputs(spec: OpSpec, rng: np.random.Generator, kinks: tuple[float, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for t in spec.inputs:
        shape = (3, 4) if t.shape is None else tuple(4 if d < 0 else d for d in t.shape)
        v = rng.uniform(-4, 4, shape)
        for k in kinks:  # away from kinks: every sample at least 0.05 from each
            near = np.abs(v - k) < 0.05
            v[near] = k + np.where(v[near] >= k, 0.05, -0.05)
        out[t.name] = v
    return out


def _numeric(spec: OpSpec, inputs: dict[str, Any], attrs: dict[str, Any],
             grads: dict[str, Any]) -> dict[str, Any]:
    """Central differences of sum over outputs of grad_o * o, in float64."""

    def loss(values: dict[str, Any]) -> float:
        outs = reference_outputs(spec, values, attrs)
        return float(sum(np.sum(grads[o] * outs[o]) for o in grads))

    result = {}
    for name, value in inputs.items():
        g = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            hi, lo = dict(inputs), dict(inputs)
            hi[name], lo[name] = value.copy(), value.copy()
            hi[name][idx] += 1e-6
            lo[name][idx] -= 1e-6
            g[idx] = (loss(hi) - loss(lo)) / 2e-6
        result[name] = g
    return result


def _check_against_numeric(spec: OpSpec, attrs: dict[str, Any] | None = None,
                           kinks: tuple[float, ...] = (), seeds: int = 3) -> None:
    assert spec.backward is not None and spec.backward.derived
    attrs = attrs or {}
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        inputs = _inputs(spec, rng, kinks)
        outs = reference_outputs(spec, inputs, attrs)
        grads = {o: rng.uniform(-1, 1, np.shape(v)) for o, v in outs.items()}
        derived = reference_gradients(spec, inputs, grads, attrs)
        numeric = _numeric(spec, inputs, attrs, grads)
        for name, want in numeric.items():
            got = np.broadcast_to(derived[name], want.shape)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{spec.op_name}: d/d{name} (seed {seed})")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_derived_gradients_match_finite_differences(path: Path, tmp_path: Path) -> None:
    """Every example op without its `backward:`: the derived gradient of every input (for
    multi-output ops, with an incoming gradient on every output)."""
    spec = _without_backward(path, tmp_path)
    attrs = {"dst_type": np.dtype("float64")} if spec.op_name == "cast" else {}
    _check_against_numeric(spec, attrs, kinks=(0.0,))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_backwards_agree_with_the_derivative(path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--strict", str(path)]) == 0, capsys.readouterr().err


EXTRA = [
    ("tanh(x)", ("x",), (), ""),
    ("1 / (1 + exp(-x))", ("x",), (), ""),
    ("sigmoid(x) * x", ("x",), (), ""),
    ("x * log(1 + exp(y))", ("x", "y"), (), ""),
    ("where(x > 0, x, 0.1 * x)", ("x",), (0.0,), ""),
    ("x * minimum(maximum(x + 3, 0), 6) / 6", ("x",), (-3.0, 3.0), ""),
    ("relu(x) + abs(y) * sign(x)", ("x", "y"), (0.0,), ""),
    ("maximum(x, y) - minimum(x * y, 1)", ("x", "y"), (), ""),
    ("sqrt(x * x + 1) * rsqrt(y * y + 2) + reciprocal(x * x + 3)", ("x", "y"), (), ""),
    ("alpha * x ** 3 - exp(y) / alpha", ("x", "y"), (),
     "attr_desc:\n  - {name: alpha, type: float, default: 1.5}\n"),
    ("where(x > y, x * y, y - x) * (x < 1)", ("x", "y"), (), ""),
    ("x - mean(x, axis=-1, keepdims=True)", ("x",), (), ""),
    ("x / sum(x * x, axis=-1, keepdims=True)", ("x",), (), ""),
    ("x * max(x, axis=0, keepdims=True) + min(tanh(x), axis=-1, keepdims=True)", ("x",), (), ""),
]


@pytest.mark.parametrize(("reference", "inputs", "kinks", "attrs"), EXTRA,
                         ids=[r for r, *_ in EXTRA])
def test_extra_references(reference: str, inputs: tuple[str, ...], kinks: tuple[float, ...],
                          attrs: str, tmp_path: Path) -> None:
    outputs = {"z": f"broadcast({', '.join(inputs)})" if len(inputs) > 1 else "same_as(x)"}
    spec = load_spec(_spec(tmp_path, {"z": reference}, inputs=inputs, outputs=outputs,
                           attrs=attrs))
    _check_against_numeric(spec, kinks=kinks)


def test_reductions_to_scalars_and_reduced_outputs(tmp_path: Path) -> None:
    """Outputs with reduced shapes (their incoming gradients are reduced too) and a full
    reduction without keepdims."""
    path = _spec(tmp_path, {"m": "mean(x * y, axis=-1, keepdims=True)",
                            "s": "sum(exp(x) * m)", "z": "x * m - y"},
                 inputs=("x", "y"),
                 outputs={"m": "reduce(x, axis=-1, keepdim=True)", "s": "[]", "z": "same_as(x)"})
    _check_against_numeric(load_spec(path))


def test_named_outputs_and_simplification(tmp_path: Path) -> None:
    """Derivatives read like hand-written ones: outputs by name, where() per piece."""
    cases = {
        "tanh(x)": "grad_y * (1 - y ** 2)",
        "sigmoid(x)": "grad_y * y * (1 - y)",
        "where(x > 0, x, x * negative_slope)": "grad_y * where(x > 0, 1, negative_slope)",
    }
    for reference, want in cases.items():
        spec = load_spec(_spec(tmp_path, reference,
                               attrs="attr_desc:\n  - {name: negative_slope, type: float, "
                               "default: 0.01}\n"))
        assert spec.backward is not None and spec.backward.derived
        assert [g.text for g in spec.backward.gradients] == [want]
    softmax = _without_backward(ROOT / "specs" / "softmax.yaml", tmp_path)
    assert softmax.backward is not None
    text = softmax.backward.gradients[0].text
    assert text.startswith("grad_y * y - sum(grad_y * y, axis=axis, keepdims=True) * y")


def test_kinks_follow_the_documented_rule(tmp_path: Path) -> None:
    """relu and maximum(x, 0) have gradient 0 at 0 (like torch.relu); where() takes the
    branch its condition picks; abs has 0 at 0."""
    for reference in ("relu(x)", "maximum(x, 0)", "where(x > 0, x, 0)", "abs(x) * 3"):
        spec = load_spec(_spec(tmp_path, reference))
        at = np.array([-1.0, 0.0, 2.0])
        got = reference_gradients(spec, {"x": at}, {"y": np.ones(3)})["x"]
        want = [0.0, 0.0, 1.0] if "abs" not in reference else [-3.0, 0.0, 3.0]
        np.testing.assert_array_equal(np.broadcast_to(got, (3,)), want, err_msg=reference)


def test_not_derivable_keeps_the_inference_only_warning(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    path = _spec(tmp_path, "sum(x, axis=0)", outputs={"y": "reduce(x, axis=0, keepdim=False)"})
    assert main(["validate", str(path)]) == 0
    err = capsys.readouterr().err
    assert ("op.yaml:1:1: warning: no `backward:` and its gradient cannot be derived from the "
            "reference (sum() over an axis with keepdims=False cannot be derived") in err
    assert load_spec(path).backward is None


def test_wrong_backward_is_a_located_warning_and_strict_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _spec(tmp_path, "where(x > 0, x, x * negative_slope)",
                 attrs="attr_desc:\n  - {name: negative_slope, type: float, default: 0.01}\n",
                 backward="backward:\n  x: where(x > 0, grad_y, grad_y * 0.1)\n")
    line = path.read_text().splitlines().index("  x: where(x > 0, grad_y, grad_y * 0.1)") + 1
    assert main(["validate", str(path)]) == 0
    err = capsys.readouterr().err
    prefix = f"{path}:{line}:6: warning: backward of x disagrees with d(reference)/dx at x="
    assert err.startswith(prefix), err
    assert "the backward gives" in err and "the derivative" in err
    assert main(["validate", "--strict", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:{line}:6: error: backward of x disagrees"), err
    # a correct backward is quiet, also with --strict
    path.write_text(path.read_text().replace("grad_y * 0.1", "grad_y * negative_slope"))
    assert main(["validate", "--strict", str(path)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_generate_strict_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "specs").mkdir()
    shutil.copy(ROOT / "specs" / "leaky_relu.cpp", tmp_path / "specs")
    text = (ROOT / "specs" / "leaky_relu.yaml").read_text()
    (tmp_path / "specs" / "leaky_relu.yaml").write_text(
        text.replace("grad_y * negative_slope)", "grad_y * 0.1)"))
    (tmp_path / "pyproject.toml").write_text(
        '[tool.opgen]\nspec_dir = "specs"\noutput_dir = "generated"\npackage = "t_ops"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["generate", "--strict"]) == 2
    assert "specs/leaky_relu.yaml:24:6: error: backward of x disagrees" in capsys.readouterr().err
    assert not (tmp_path / "generated").exists()
    assert main(["generate"]) == 0  # without --strict the warning does not stop generation


def test_scaffold_writes_no_backward_and_derives_one(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The README quickstart: `opgen new hard_swish`, then only `reference:` is edited."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.opgen]\nspec_dir = "specs"\noutput_dir = "generated"\npackage = "q_ops"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["new", "hard_swish", "--inputs", "x", "--outputs", "y",
                 "--dtypes", "float32,float16"]) == 0
    spec_path = tmp_path / "specs" / "hard_swish.yaml"
    text = spec_path.read_text()
    assert "backward" not in yaml.safe_load(text)
    spec_path.write_text(text.replace("reference: x\n",
                                      "reference: x * minimum(maximum(x + 3, 0), 6) / 6\n"))
    spec = load_spec(spec_path)
    assert spec.backward is not None and spec.backward.derived
    _check_against_numeric(spec, kinks=(-3.0, 3.0))
    assert main(["generate"]) == 0
    metadef = json.loads((tmp_path / "generated" / "metadef" / "hard_swish.json").read_text())
    assert metadef["backward"]["x"] == str(spec.backward.gradients[0].expr)
    torch_src = (tmp_path / "generated" / "python" / "q_ops" / "torch" / "hard_swish.py")
    assert "torch.where((x > -3)" in torch_src.read_text()
