"""generated/cann/ configures as a CANN custom-op project, with msopgen's cmake/ stubbed.

CANN is not installed here, so the project around the generated tree is a stand-in for what
msopgen writes (tests/cann/msopgen_stub/: its top-level CMakeLists.txt and a cmake/ whose
opbuild, add_ops_info_target, ... only record their arguments). `cmake --preset default` then
configures the generated op_host/ and op_kernel/ CMakeLists.txt with the generated
CMakePresets.json, and the test checks what they asked CANN's functions to build.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from opgen.emit.cann_naming import file_stem

GENERATED = ROOT / "generated" / "cann"
MSOPGEN_STUB = ROOT / "tests" / "cann" / "msopgen_stub"

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="no cmake")


def _op_types() -> list[str]:
    return sorted(json.loads(p.read_text())["op_type"]
                  for p in (ROOT / "generated" / "metadef").glob("*.json"))


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[list[str]]]:
    project = tmp_path_factory.mktemp("custom_op") / "CustomOp"
    shutil.copytree(MSOPGEN_STUB, project)
    for name in ("op_host", "op_kernel", "CMakePresets.json"):
        src = GENERATED / name
        if src.is_dir():
            shutil.copytree(src, project / name)
        else:
            shutil.copy(src, project / name)
    proc = subprocess.run(["cmake", "--preset", "default"], cwd=project, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calls = [line.split("|") for line in
             (project / "build_out" / "calls.txt").read_text().splitlines()]
    return project, calls


def test_presets_name_the_specs_socs() -> None:
    data = json.loads((GENERATED / "CMakePresets.json").read_text())
    units = data["configurePresets"][0]["cacheVariables"]["ASCEND_COMPUTE_UNIT"]["value"]
    assert units.split(";") == ["ascend910b"]


def test_op_host_builds_every_op_host_source(configured: tuple[Path, list[list[str]]]) -> None:
    _, calls = configured
    opbuild = [c for c in calls if c[0] == "opbuild"]
    assert len(opbuild) == 1
    sources = opbuild[0][1:]
    assert sorted(Path(s).name for s in sources) == sorted(
        f"{file_stem(t)}.cpp" for t in _op_types())
    assert all(Path(s).is_file() for s in sources)


def test_op_kernel_has_every_kernel_and_its_include_dir(
        configured: tuple[Path, list[list[str]]]) -> None:
    project, calls = configured
    for t in _op_types():
        assert (project / "op_kernel" / f"{file_stem(t)}.cpp").is_file()
    options = {c[1]: c[2:] for c in calls if c[0] == "add_ops_compile_options"}
    for t in _op_types():
        assert options[t] == ["OPTIONS", f"-I{project}/op_kernel/{file_stem(t)}"]
    assert [c[1] for c in calls if c[0] == "add_ops_info_target"] == ["ops_info_gen_ascend910b"]
    assert [c[1] for c in calls if c[0] == "add_bin_compile_target"] == ["ascendc_bin_ascend910b"]
