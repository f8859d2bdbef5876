"""Kernel skeletons: generated Compute() for element-wise references, run in the simulator."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from opgen.api import load_spec, reference_outputs
from opgen.emit.skeleton import TODO_MARKER, is_untouched, skeleton

HARD_SWISH = """\
op_name: hard_swish
doc: Hard swish.
input_desc:
  - {name: x, dtype: [float32, float16], format: [ND, ND], shape: [-2]}
output_desc:
  - {name: y, dtype: [float32, float16], format: [ND, ND], shape: [-2], infer: same_as(x)}
attr_desc:
  - {name: alpha, type: float, default: 0.5}
reference: REF
backward:
  x: grad_y
"""

REFERENCES = {
    "hard_swish": "x * minimum(maximum(x + 3, 0), 6) / 6",
    "mixed": "where(x >= 0.5, sigmoid(x) * alpha, tanh(x) - 1 / (abs(x) + 1)) + exp(-abs(x))"
             " - x ** 2 + sqrt(abs(x)) + relu(x - alpha)",
    # LeakyRelu for the where(), then a chain written in place into one temporary
    "leaky_chain": "maximum(where(x + 1 > 0, x + 1, (x + 1) * alpha) * 3 - 1, -2)",
}


def _spec(tmp_path: Path, reference: str) -> Path:
    path = tmp_path / "hard_swish.yaml"
    path.write_text(HARD_SWISH.replace("REF", reference))
    (tmp_path / "hard_swish.cpp").write_text("")
    return path


def test_hash_marks_an_untouched_skeleton(tmp_path: Path) -> None:
    text = skeleton(load_spec(_spec(tmp_path, "x")))
    assert is_untouched(text)
    assert not is_untouched(text + "// edited\n")
    assert not is_untouched("// a kernel without the hash line\n")


def test_non_elementwise_reference_gets_a_marked_todo(tmp_path: Path) -> None:
    text = skeleton(load_spec(_spec(tmp_path, "sum(x, axis=-1, keepdims=True)")))
    assert TODO_MARKER in text


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_generated_compute_matches_reference(tmp_path: Path, name: str, dtype: type) -> None:
    rt = pytest.importorskip("opgen_runtime")
    if shutil.which("g++") is None:
        pytest.skip("no C++ compiler for the simulator")
    from opgen.kernel_frontend import ParseCache, check_kernel

    spec_path = _spec(tmp_path, REFERENCES[name])
    spec = load_spec(spec_path)
    kernel = tmp_path / "hard_swish.cpp"
    kernel.write_text(skeleton(spec))
    assert TODO_MARKER not in kernel.read_text()
    checked, diags = check_kernel(spec, ParseCache(tmp_path / "cache").parse(kernel, str))
    assert checked is not None and checked.tiling is not None, diags
    layout = rt.TilingLayout.from_fields(
        checked.tiling.name, [(f.name, f.ctype, f.array_len) for f in checked.tiling.fields])
    rng = np.random.default_rng(0)
    x = rng.uniform(-4, 4, (3, 1000)).astype(dtype)
    attrs = {"alpha": 0.5}
    want = reference_outputs(spec, {"x": x}, attrs)["y"]
    y = rt.gm_empty(x.shape, dtype)
    block_dim, values = rt.default_tiling(layout, {"x": x}, {"y": y}, attrs)
    lib = rt.build_kernel(kernel, entry="hard_swish",
                          defines={"DTYPE_X": rt.cpp_type(dtype), "DTYPE_Y": rt.cpp_type(dtype)})
    rt.launch(lib, "hard_swish", {"x": x, "y": y}, block_dim=block_dim, tiling=layout.pack(values))
    tol = 1e-5 if dtype == np.float32 else 2e-2
    np.testing.assert_allclose(y, want.astype(dtype), rtol=tol, atol=tol)
