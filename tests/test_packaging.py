"""The wheel carries the schema and templates: install it in a fresh venv and use it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from conftest import ROOT


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    assert result.returncode == 0, f"{cmd}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_wheel_installs_and_runs(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
          "-w", str(dist), str(ROOT)], cwd=tmp_path)
    wheel = next(dist.glob("opgen-*.whl"))
    env_dir = tmp_path / "venv"
    # system site packages only supply third-party dependencies already on the machine;
    # opgen itself comes from the wheel (the repo is not on the path)
    venv.EnvBuilder(with_pip=True, system_site_packages=True).create(env_dir)
    py = env_dir / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "-q", str(wheel)], cwd=tmp_path)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "ops"\n')
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    opgen = str(env_dir / "bin" / "opgen")
    location = _run([str(py), "-c", "import opgen, opgen_runtime; print(opgen.__file__)"],
                    cwd=project, env=env)
    assert str(env_dir) in location
    _run([opgen, "new", "scaled_relu", "--attr", "alpha:float=0.5"], cwd=project, env=env)
    out = _run([opgen, "generate"], cwd=project, env=env)
    assert "1 op(s)" in out
    assert (project / "generated" / "metadef" / "scaled_relu.json").is_file()
    _run([opgen, "generate", "--check"], cwd=project, env=env)
    # the seed's `python -m metadef.validator FILE` is part of the distribution too
    seed_check = _run([str(py), "-m", "metadef.validator", "ops/scaled_relu.yaml"], cwd=project,
                      env=env)
    assert "ops/scaled_relu.yaml: ok: scaled_relu (ScaledRelu)" in seed_check


def test_wheel_resolves_beside_torch_npus_torch(tmp_path: Path) -> None:
    """opgen's own dependencies are ranges: pip resolves the wheel with its torch extra beside
    a torch_npu that requires another torch minor version than the one CI pins (2.13.0). Needs
    the package index (metadata only, --dry-run); without it the test says so and skips."""
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
          "-w", str(dist), str(ROOT)], cwd=tmp_path)
    wheel = next(dist.glob("opgen-*.whl"))
    report = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "-q",
         "--report", str(report), f"{wheel}[torch]", "torch-npu==2.12.0"],
        cwd=tmp_path, capture_output=True, text=True, check=False)
    if result.returncode != 0 and ("Could not find a version" in result.stderr
                                   or "connection" in result.stderr.lower()):
        pytest.skip(f"the package index cannot be reached or lacks torch-npu: "
                    f"{result.stderr.strip().splitlines()[-1]}")
    assert result.returncode == 0, result.stderr
    chosen = {i["metadata"]["name"].lower().replace("_", "-"): i["metadata"]["version"]
              for i in json.loads(report.read_text())["install"]}
    assert chosen["opgen"] == wheel.name.split("-")[1]
    assert chosen["torch-npu"] == "2.12.0"
    assert chosen["torch"].startswith("2.12")
