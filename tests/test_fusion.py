"""Fused specs (`fuse:`, opgen/fuse.py): a composition of element-wise ops of the project
validates, generates one kernel, builds and equals the unfused ops; its gradient matches
numeric gradients; the profile shows one GM read per input and one write per output; a
non-element-wise step is a located error."""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from opgen import expr as ex
from opgen import gen
from opgen.api import load_spec
from opgen.diagnostics import DiagnosticError, DiagnosticSink
from opgen.emit.skeleton import skeleton
from opgen.project import Config

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "fusion_test_ops"

SCALE_SHIFT = """op_name: scale_shift
input_desc:
  - {name: x, dtype: [float32, float16], shape: [-2]}
output_desc:
  - {name: y, dtype: [float32, float16], shape: [-2]}
attr_desc:
  - {name: scale, type: float, default: 0.5}
  - {name: shift, type: float, default: 1.0}
reference: x * scale + shift
"""
FUSED = """op_name: add_leaky_scale
fuse:
  - op: element_add
    inputs: {x: a, y: b}
  - op: leaky_relu
    attrs: {negative_slope: slope}
  - op: scale_shift
    attrs: {shift: 0.25}
    outputs: {y: out}
"""
CHAIN = """op_name: leaky_scale
fuse: [leaky_relu, scale_shift]
"""


def _project(where: Path) -> Path:
    specs = where / "specs"
    specs.mkdir(parents=True)
    for name in ("element_add.json", "element_add.cpp", "leaky_relu.yaml", "leaky_relu.cpp",
                 "softmax.yaml", "softmax.cpp"):
        shutil.copy(ROOT / "specs" / name, specs / name)
    (specs / "scale_shift.yaml").write_text(SCALE_SHIFT, "utf-8")
    (specs / "scale_shift.cpp").write_text(skeleton(load_spec(specs / "scale_shift.yaml")),
                                           "utf-8")
    (specs / "add_leaky_scale.yaml").write_text(FUSED, "utf-8")
    (specs / "leaky_scale.yaml").write_text(CHAIN, "utf-8")
    return specs


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _project(tmp_path_factory.mktemp("fusion"))


def test_fused_spec_composes_the_steps(project: Path) -> None:
    spec = load_spec(project / "add_leaky_scale.yaml")
    assert [t.name for t in spec.inputs] == ["a", "b"]
    assert [t.name for t in spec.outputs] == ["out"]
    assert [(a.name, a.default) for a in spec.attrs] == [("slope", 0.01), ("scale", 0.5)]
    assert spec.reference[0].text == "where(a + b > 0, a + b, (a + b) * slope) * scale + 0.25"
    assert spec.backward is not None and spec.backward.derived
    assert {Path(p).name for p in spec.fused_from} == {"element_add.json", "leaky_relu.yaml",
                                                        "scale_shift.yaml"}
    chain = load_spec(project / "leaky_scale.yaml")  # chain form: x -> leaky_relu -> scale_shift
    assert [t.name for t in chain.inputs] == ["x"] and [t.name for t in chain.outputs] == ["y"]
    assert [d.value for d in chain.inputs[0].dtypes] == ["float32", "float16"]
    assert chain.reference[0].text == ("where(x > 0, x, x * negative_slope) * scale + shift")


def test_derived_gradient_equals_numeric_gradient(project: Path) -> None:
    spec = load_spec(project / "add_leaky_scale.yaml")
    rng = np.random.default_rng(1)
    env = {"a": rng.standard_normal(64), "b": rng.standard_normal(64), "slope": 0.2,
           "scale": 1.5}
    grad_out = rng.standard_normal(64)
    ref = spec.reference[0].expr

    def loss(**over: np.ndarray) -> float:
        return float((ex.evaluate(ref, {**env, **over}) * grad_out).sum())

    assert spec.backward is not None
    for name in ("a", "b"):
        g = spec.backward.for_input(name)
        assert g is not None
        analytic = ex.evaluate(g.expr, {**env, "out": ex.evaluate(ref, env),
                                        "grad_out": grad_out})
        analytic = np.broadcast_to(analytic, env[name].shape)
        numeric = np.empty(64)
        for i in range(64):
            up, down = env[name].copy(), env[name].copy()
            up[i] += 1e-6
            down[i] -= 1e-6
            numeric[i] = (loss(**{name: up}) - loss(**{name: down})) / 2e-6
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


def test_non_elementwise_step_is_a_located_error(tmp_path: Path) -> None:
    specs = _project(tmp_path)
    bad = specs / "bad.yaml"
    bad.write_text("op_name: bad\nfuse:\n  - leaky_relu\n  - op: softmax\n", "utf-8")
    with pytest.raises(DiagnosticError) as err:
        load_spec(bad)
    message = str(err.value)
    assert "bad.yaml:4:9: error: fuse step 2: 'softmax' is not element-wise" in message
    assert "only element-wise ops with a reference can be fused" in message
    assert "output_desc" not in message  # nothing else is reported
    (specs / "bad2.yaml").write_text("op_name: bad2\nfuse: [leaky_relu, nope]\n", "utf-8")
    with pytest.raises(DiagnosticError, match=r"bad2.yaml:2:\d+: error: fuse step 2: no spec "
                       "for op 'nope'"):
        load_spec(specs / "bad2.yaml")


@pytest.fixture(scope="module")
def built(project: Path) -> object:
    where = project.parent
    for p in project.glob("bad*.yaml"):
        p.unlink()
    config = Config(root=where, spec_dir=project, output_dir=where / "generated",
                    package=PACKAGE, namespace=PACKAGE)
    sink = DiagnosticSink()
    assert gen.run(config, [], sink, incremental=False) is not None, [str(d) for d in sink]
    assert (project / "add_leaky_scale.cpp").read_text("utf-8").startswith("// opgen skeleton")
    sys.path.insert(0, str(where / "generated" / "python"))
    pkg = importlib.import_module(PACKAGE)
    pkg.register_all()
    import opgen_runtime as rt

    return rt


def test_fused_op_equals_the_unfused_ops(built: object) -> None:
    rt = built
    rng = np.random.default_rng(0)
    a = rng.standard_normal(5000).astype(np.float32)
    b = rng.standard_normal(5000).astype(np.float32)
    t = rt.call("element_add", a, b)  # type: ignore[attr-defined]
    t = rt.call("leaky_relu", t, negative_slope=0.2)  # type: ignore[attr-defined]
    t = rt.call("scale_shift", t, scale=1.5, shift=0.25)  # type: ignore[attr-defined]
    out, prof = rt.registry.call_with_profile("add_leaky_scale", a, b, slope=0.2,  # type: ignore[attr-defined]
                                     scale=1.5)
    np.testing.assert_array_equal(out, t)  # the same instructions, in UB
    # one read per input, one write per output (the intermediates stay in UB)
    assert prof.gm_to_ub_bytes == a.nbytes + b.nbytes
    assert prof.ub_to_gm_bytes == out.nbytes


def test_fused_kernel_keeps_one_temporary(project: Path) -> None:
    """The steps' intermediates are written in place (each is read once), leaky_relu's where()
    is one LeakyRelu: one temporary and no mask, so the tiles stay large."""
    text = skeleton(load_spec(project / "add_leaky_scale.yaml"))
    assert "LeakyRelu(tmp0, tmp0, slope_, n);" in text
    assert "Select(" not in text and "maskBuf" not in text
    assert "pipe.InitBuffer(tmpBuf, 1 * tileLength * sizeof(T));" in text
