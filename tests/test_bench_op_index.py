"""benchmarks/op_index.py: the ops a spec index holds become benchmark cases whose native side
computes what the spec's reference says, on inputs of the shapes the spec allows."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT
from opgen import api
from opgen.diagnostics import DiagnosticError, OpgenError

torch = pytest.importorskip("torch")
sys.path.insert(0, str(ROOT / "benchmarks"))

from op_index import input_shape, load_index, op_cases, primary_shape  # noqa: E402

SHAPE = (8, 96)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_printed_reference_matches_numpy_reference(dtype: object) -> None:
    index = load_index(ROOT)
    assert [s.op_name for s in index.specs] == sorted(
        ["broadcast_add", "cast", "element_add", "layer_norm", "leaky_relu", "softmax"])
    specs = {s.op_name: s for s in index.specs}
    ran = []
    for case in op_cases(index, dtype, SHAPE):
        if case.skipped:
            assert (case.op, case.skipped) == ("element_add", "not in spec")
            assert dtype == torch.float16
            continue
        assert case.native is not None
        spec = specs[case.op]
        got = case.native()
        assert isinstance(got, tuple)
        arrays = {k: v.numpy() for k, v in case.inputs.items()}
        attrs = ({"dst_type": "float16" if dtype == torch.float32 else "float32"}
                 if case.op == "cast" else None)
        want = api.reference_outputs(spec, arrays, attrs)
        assert len(got) == len(want), case.op
        for g, (name, w) in zip(got, want.items(), strict=True):
            assert tuple(g.shape) == w.shape, (case.op, name)
            tol = 1e-2 if dtype == torch.float16 else 1e-5
            np.testing.assert_allclose(g.float().numpy(), w.astype(np.float32), rtol=tol,
                                       atol=tol, err_msg=f"{case.op}.{name}")
        ran.append(case.op)
    assert "layer_norm" in ran and "softmax" in ran


def test_input_shapes_follow_the_spec() -> None:
    specs = {s.op_name: s for s in load_index(ROOT).specs}
    add = specs["element_add"].inputs  # [-1] each: the leading dims folded into one
    assert primary_shape(add[0], (4096, 1024)) == (4096 * 1024,)
    ln = specs["layer_norm"].inputs  # x [-2]; gamma, beta [-1]: the trailing dim
    first = primary_shape(ln[0], (4096, 1024))
    assert first == (4096, 1024)
    assert [input_shape(d, first) for d in ln[1:]] == [(1024,), (1024,)]
    bc = specs["broadcast_add"].inputs
    assert input_shape(bc[1], first) == (4096, 1024)


def test_a_users_project(tmp_path: Path) -> None:
    """Ops a user adds are found from their project's spec index; an op whose attrs the
    benchmark cannot choose says so instead of failing."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.opgen]\nspec_dir = "ops"\npackage = "mine"\nnamespace = "mine_ns"\n')
    (tmp_path / "ops").mkdir()
    common = ("input_desc:\n  - name: x\n    dtype: [float16]\n    format: [ND]\n"
              "    shape: [-1, 3]\noutput_desc:\n  - name: y\n    dtype: [float16]\n"
              "    format: [ND]\n    shape: [-1, 3]\n    infer: same_as(x)\n")
    (tmp_path / "ops" / "scaled.yaml").write_text(
        "op_name: scaled\n" + common
        + "attr_desc:\n  - name: k\n    type: float\nreference: x * k\n")
    (tmp_path / "ops" / "hard_swish.yaml").write_text(
        "op_name: hard_swish\n" + common + "reference: x * minimum(maximum(x + 3, 0), 6) / 6\n")
    with pytest.raises(OpgenError, match="the generated package is missing; run `opgen generate`"):
        load_index(tmp_path)
    (tmp_path / "generated" / "python" / "mine").mkdir(parents=True)
    index = load_index(tmp_path)
    assert index.config.namespace == "mine_ns"
    assert index.python_dir == tmp_path / "generated" / "python"
    by_op = {c.op: c for c in op_cases(index, torch.float16, (64, 128))}
    assert by_op["scaled"].skipped == "required attr 'k' has no default"
    hs = by_op["hard_swish"]
    assert hs.skipped == "" and tuple(hs.inputs["x"].shape) == (64, 3)
    assert hs.native is not None
    (y,) = hs.native()  # type: ignore[misc]
    x = hs.inputs["x"].float()
    np.testing.assert_allclose(y.float().numpy(), (x * (x + 3).clamp(0, 6) / 6).numpy(),
                               rtol=1e-2, atol=1e-2)
    assert all(c.skipped == "not in spec" for c in op_cases(index, torch.float32, (4, 4)))


def test_a_project_that_cannot_be_benchmarked(tmp_path: Path) -> None:
    with pytest.raises(OpgenError, match="no such project directory"):
        load_index(tmp_path / "absent")
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    (tmp_path / "specs").mkdir()
    with pytest.raises(OpgenError, match="no op specs here"):
        load_index(tmp_path)
    (tmp_path / "specs" / "bad.yaml").write_text("op_name: Bad-Name\n")
    with pytest.raises(DiagnosticError, match=r"specs/bad.yaml:1:10: error: op_name 'Bad-Name'"):
        load_index(tmp_path)
