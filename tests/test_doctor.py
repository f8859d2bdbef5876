"""`opgen doctor`: environment checks and the per-op checklist, each with what to do."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from opgen import doctor
from opgen.project import load_config


def test_doctor_on_the_example_ops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_OPP_PATH", str(tmp_path / "opp"))
    findings, code = doctor.run(load_config(ROOT), [], environment=False)
    assert code == 0, "\n".join(map(str, findings))
    text = "\n".join(map(str, findings))
    assert "[  ok] leaky_relu: registers in order; gradient registered (backward:)" in text
    assert "leaky_relu: not installed in" in text  # private, empty op package dir
    assert "import opgen_ops.registration.leaky_relu" in text


def test_doctor_reports_a_broken_kernel_with_the_fix(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    shutil.copytree(ROOT / "specs", tmp_path / "specs")
    kernel = tmp_path / "specs" / "leaky_relu.cpp"
    kernel.write_text(kernel.read_text().replace('extern "C" __global__', "__global__"))
    monkeypatch.chdir(tmp_path)
    findings, code = doctor.run(load_config(tmp_path), [], environment=False)
    assert code == 1
    fails = [f for f in findings if f.status == "FAIL"]
    assert fails and all("leaky_relu" in str(f) for f in fails)
    assert "run `opgen generate`" in str(fails[0])


def test_environment_checks_name_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "no-such-compiler-xyz")
    findings = doctor.check_environment()
    cxx = next(f for f in findings if f.subject == "c++ compiler")
    assert cxx.status == "FAIL" and "install g++" in cxx.detail
