"""A msopgen project as CANN users have it: op_host/<op>_tiling.h (macro-style TilingData)
and op_kernel/<op>.cpp using DTYPE_X and GET_TILING_DATA, described by msopgen's JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from opgen.cli import main

SAMPLE = ROOT / "tests" / "fidelity" / "samples" / "blend_pair"
OPS_JSON = [{
    "op": "BlendPair", "language": "cpp",
    "input_desc": [{"name": n, "param_type": "required", "format": ["ND", "ND"],
                    "type": ["fp16", "float"]} for n in ("x", "y")],
    "output_desc": [{"name": "z", "param_type": "required", "format": ["ND", "ND"],
                     "type": ["fp16", "float"]}],
}]


def test_msopgen_project_generates_and_builds(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(SAMPLE / "op_host", tmp_path / "op_host")
    shutil.copytree(SAMPLE / "op_kernel", tmp_path / "op_kernel")
    (tmp_path / "blend_pair.json").write_text(json.dumps(OPS_JSON))
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    (tmp_path / "specs").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["import-msopgen", "blend_pair.json", "-o", "specs"]) == 0
    spec = tmp_path / "specs" / "blend_pair.yaml"
    spec.write_text(spec.read_text() + "kernel:\n  source: ../op_kernel/blend_pair.cpp\n"
                    "reference: x + y\nbackward:\n  x: grad_z\n  y: grad_z\n")
    # the kernel declares members with DTYPE_X and reads TilingData from the op_host header,
    # which msopgen's layout implies: both are given to the parse, as CANN's build does
    assert main(["generate"]) == 0
    metadef = json.loads((tmp_path / "generated" / "metadef" / "blend_pair.json").read_text())
    assert metadef["kernel"]["tiling_header"] == "../../op_host/blend_pair_tiling.h"
    assert [f["name"] for f in metadef["tiling"]["fields"]] == ["totalLength", "tileNum"]
    assert main(["build", "--no-op-api"]) == 0
