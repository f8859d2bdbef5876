"""An op that writes its input in place through the CPU aclnn API: its OpDef has no output,
aclnn<Op>GetWorkspaceSize takes only the inputs (and attrs), and the kernel writes the caller's
device buffer (op AddScaledInplace, tests/fixtures/msopgen_inplace)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from op_api.test_op_api import PROGRAMS, ROOT, _build_driver, _run
from opgen.build_cmd import install_op_api
from opgen.cli import main
from opgen.diagnostics import DiagnosticSink
from opgen.project import Config


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("inplace")
    for part in ("op_host", "op_kernel"):
        shutil.copytree(ROOT / "tests" / "fixtures" / "msopgen_inplace" / part,
                        where / "AddScaledInplace" / part)
    (where / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n'
                                          'package = "inplace_ops"\n')
    cwd = os.getcwd()
    os.chdir(where)
    try:
        assert main(["import-msopgen", "AddScaledInplace"]) == 0
        assert main(["generate", "-q"]) == 0
    finally:
        os.chdir(cwd)
    header = (where / "generated" / "cann" / "aclnn" / "aclnn_add_scaled_inplace.h").read_text()
    # the inputs, the attr, then workspaceSize: no output parameter
    assert "const aclTensor *x,\n    const aclTensor *y,\n    double alpha,\n    uint64_t " \
           "*workspaceSize" in header, header
    config = Config(root=where, spec_dir=where / "specs", output_dir=where / "generated",
                    package="inplace_ops", namespace="inplace_ops")
    op_api = install_op_api(config, DiagnosticSink(), tmp_path_factory.mktemp("toolkit"))
    return _build_driver(PROGRAMS / "add_scaled_inplace_driver.cpp", op_api,
                         tmp_path_factory.mktemp("bin"))


@pytest.mark.parametrize("n", [64, 8192])
def test_aclnn_writes_the_callers_buffer(driver: Path, tmp_path: Path, n: int) -> None:
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    np.concatenate([x, y]).tofile(tmp_path / "in.bin")
    proc = _run(driver, tmp_path / "in.bin", tmp_path / "out.bin", n, 0.5)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    np.testing.assert_array_equal(np.fromfile(tmp_path / "out.bin", np.float32),
                                  x + np.float32(0.5) * y)
