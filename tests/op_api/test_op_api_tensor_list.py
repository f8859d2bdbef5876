"""A dynamic (list) input through the CPU aclnn API: aclnn<Op>GetWorkspaceSize takes an
aclTensorList, the op's own TilingFunc sees every tensor of it, and the kernel receives them as
CANN's ListTensorDesc (op SumList, tests/fixtures/msopgen_sum_list)."""

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
def sum_list(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("sum_list")
    for part in ("op_host", "op_kernel"):
        shutil.copytree(ROOT / "tests" / "fixtures" / "msopgen_sum_list" / part,
                        where / "SumList" / part)
    (where / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n'
                                          'package = "list_ops"\n')
    cwd = os.getcwd()
    os.chdir(where)
    try:
        assert main(["import-msopgen", "SumList"]) == 0
        assert main(["generate", "-q"]) == 0
    finally:
        os.chdir(cwd)
    header = (where / "generated" / "cann" / "aclnn" / "aclnn_sum_list.h").read_text()
    assert "const aclTensorList *xList," in header
    config = Config(root=where, spec_dir=where / "specs", output_dir=where / "generated",
                    package="list_ops", namespace="list_ops")
    op_api = install_op_api(config, DiagnosticSink(), tmp_path_factory.mktemp("toolkit"))
    return _build_driver(PROGRAMS / "sum_list_driver.cpp", op_api, tmp_path_factory.mktemp("bin"))


@pytest.mark.parametrize(("k", "n"), [(1, 64), (3, 5000), (6, 1000)])
def test_tensor_list_sums(sum_list: Path, tmp_path: Path, k: int, n: int) -> None:
    xs: np.ndarray = np.random.default_rng(k).standard_normal((k, n)).astype(np.float32)
    xs.tofile(tmp_path / "x.bin")
    proc = _run(sum_list, tmp_path / "x.bin", tmp_path / "y.bin", k, n)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    want = np.zeros(n, np.float32)
    for x in xs:
        want += x
    np.testing.assert_array_equal(np.fromfile(tmp_path / "y.bin", np.float32), want)


def test_tensor_list_misuse(sum_list: Path, tmp_path: Path) -> None:
    proc = _run(sum_list, "-", "-", 0, 0)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    assert lines["null_list"].startswith("161001")
    assert lines["mixed_dtypes"].startswith("161002")
    assert "must share one dtype: 'xList[1]' is float16, the first float32" in lines["mixed_dtypes"]
