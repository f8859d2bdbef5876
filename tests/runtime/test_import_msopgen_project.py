"""`opgen import-msopgen DIR` on an msopgen project: the ops come from the project's own OpDef,
the specs point at its op_kernel/ and op_host/ in place, and the imported op runs with its own
tiling."""

from __future__ import annotations

import shutil
from pathlib import Path

import built_ops
import numpy as np
import pytest
import yaml

from conftest import ROOT
from opgen.cli import main

FIXTURE = ROOT / "tests" / "fixtures" / "msopgen_clamp"


def test_import_project_in_place_then_build_and_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "ClampScale"
    shutil.copytree(FIXTURE / "op_host", project / "op_host")
    shutil.copytree(FIXTURE / "op_kernel", project / "op_kernel")
    work = tmp_path / "work"
    work.mkdir()
    (work / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    monkeypatch.chdir(work)
    assert main(["import-msopgen", str(project)]) == 0
    spec = yaml.safe_load((work / "specs" / "clamp_scale.yaml").read_text())
    assert spec["op_type"] == "ClampScale"
    assert [(t["name"], t["dtype"]) for t in spec["input_desc"]] == [("x", ["float", "float16"])]
    assert [(a["name"], a["type"], a["default"]) for a in spec["attr_desc"]] == [
        ("gain", "float", 1.0), ("limit", "float", 6.0), ("mode", "int", 0)]
    assert spec["kernel"] == {
        "source": "../../ClampScale/op_kernel/clamp_scale.cpp",
        "op_host": ["../../ClampScale/op_host/clamp_scale.cpp"],
        "tiling_header": "../../ClampScale/op_host/clamp_scale_tiling.h",
    }
    # a second import never overwrites
    capsys.readouterr()
    assert main(["import-msopgen", str(project)]) == 2
    assert "already exists" in capsys.readouterr().err

    reg = built_ops.registered(work, "clamp_scale")
    x = np.linspace(-20, 20, 4096, dtype=np.float32)
    np.testing.assert_array_equal(reg.call("clamp_scale", x, gain=2.0),
                                  np.clip(x * np.float32(2.0), -6, 6))


def test_import_of_a_directory_that_is_not_a_project(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["import-msopgen", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("opgen: error: ") and "not an msopgen project" in err
    assert "Traceback" not in err
