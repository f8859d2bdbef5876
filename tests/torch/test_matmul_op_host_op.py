"""An imported msopgen-style op built on the advanced Matmul API (tests/fixtures/msopgen_matmul)
as a PyTorch op: its op_host nests a TCubeTiling in its tiling data and asks for one block, which
runs as a mix kernel's two vector cores; an output whose shape neither the op_host's InferShape
nor the spec gives is an error naming the fix."""

from __future__ import annotations

import importlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

torch = pytest.importorskip("torch")

import tiled_project  # noqa: E402
import torch_env  # noqa: E402, F401 - a private OPGEN_OPP_PATH

FIXTURE = tiled_project.FIXTURES / "msopgen_matmul"


def _project(where: Path, package: str, namespace: str, infer_shape: bool) -> Path:
    fixture = where / "fixture"
    shutil.copytree(FIXTURE, fixture)
    if not infer_shape:  # the op_host leaves the output's shape to the caller, as aclnn's do
        host = fixture / "op_host" / "mat_mul_bias.cpp"
        text = host.read_text()
        setter = "this->SetInferShape(ge::MatMulBiasInferShape).SetInferDataType("
        assert setter in text
        host.write_text(text.replace(setter, "(void)ge::MatMulBiasInferShape;\n"
                                             "        this->SetInferDataType("))
    python: Path = tiled_project.generate(where / "project", package, namespace, fixture)
    return python


@pytest.fixture(scope="module")
def op(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    python = _project(tmp_path_factory.mktemp("matmul"), "matmul_torch_ops", "opgen_matmul",
                      True)
    sys.path.insert(0, str(python))
    try:
        yield importlib.import_module("matmul_torch_ops.torch.mat_mul_bias")
    finally:
        sys.path.remove(str(python))


@pytest.mark.parametrize(("m", "n", "k"), [(96, 80, 64), (300, 200, 96)])
def test_matmul_op_runs_as_a_mix_kernel(op: ModuleType, m: int, n: int, k: int) -> None:
    gen = torch.Generator().manual_seed(m)
    a = torch.randint(-4, 5, (m, k), generator=gen).half()
    b = torch.randint(-4, 5, (k, n), generator=gen).half()
    bias = torch.randint(-8, 9, (n,), generator=gen).float()
    with torch.no_grad():
        y = torch.ops.opgen_matmul.mat_mul_bias(a, b, bias, scale=0.5)
    want = (a.float() @ b.float() + bias) * 0.5  # small integers: exact
    torch.testing.assert_close(y, want, rtol=0, atol=0)


def test_an_output_no_one_gives_a_shape_is_an_error(tmp_path: Path) -> None:
    python = _project(tmp_path, "matmul_open_ops", "opgen_matmul_open", False)
    sys.path.insert(0, str(python))
    try:
        importlib.import_module("matmul_open_ops.torch.mat_mul_bias")
        a, b, bias = torch.ones(32, 16).half(), torch.ones(16, 48).half(), torch.zeros(48)
        with torch.no_grad(), pytest.raises(ValueError, match=(
                r"mat_mul_bias\(\): output 'y': the op_host gives no shape for the output \(it "
                r"registers no InferShape.*give the output an `infer:` rule")):
            torch.ops.opgen_matmul_open.mat_mul_bias(a, b, bias)
    finally:
        sys.path.remove(str(python))
