"""Build-error goldens: `opgen build` on a project whose kernels the parse accepts but g++ does
not. Each tests/build_errors/<case>/ holds the specs and kernels, and expected.txt the exact
stderr lines that are errors: one `file:line:col: error: ...` per compiler error, naming the
user's own file (project-relative) and line, never a copy's, never a traceback; exit code 2.
Refresh with OPGEN_UPDATE_GOLDENS=1 and review the diff.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import ROOT, check_golden
from opgen.cli import main

CASES = sorted(p for p in (Path(__file__).parent / "build_errors").iterdir() if p.is_dir())
HOST_WRAPPER_OP = ROOT / "tests" / "fixtures" / "tiled_scaled_add"


def _project(case: Path, where: Path) -> Path:
    project = where / "project"
    shutil.copytree(case, project / "specs", ignore=shutil.ignore_patterns("expected.txt"))
    (project / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n', "utf-8")
    return project


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_build_error_golden(case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(_project(case, tmp_path))
    code = main(["build", "--no-op-api"])
    captured = capsys.readouterr()
    errors = "".join(f"{line}\n" for line in captured.err.splitlines() if ": error: " in line)
    check_golden(case / "expected.txt", errors)
    assert code == 2
    assert "Traceback" not in captured.err and captured.out == ""
    # nothing else but progress lines: every error is one located line
    others = [line for line in captured.err.splitlines()
              if ": error: " not in line and not line.startswith("opgen: compiling ")]
    assert others == []


def test_a_kernel_with_an_npu_launch_wrapper_builds(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # `#ifndef ASCENDC_CPU_DEBUG ... kernel<<<blockDim, nullptr, stream>>>(...)` is NPU-only
    # code: the parse and the build both read the kernel as CANN's CPU-debug build does
    monkeypatch.chdir(_project(HOST_WRAPPER_OP, tmp_path))
    assert main(["build", "--no-op-api"]) == 0, capsys.readouterr().err
    op, _, library = capsys.readouterr().out.strip().partition(": ")
    assert op == "tiled_scaled_add" and Path(library).is_file()


def test_at_least_four_cases() -> None:
    assert len(CASES) >= 4
