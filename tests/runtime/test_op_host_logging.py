"""An op_host that logs through CANN's log and error-manager API, and a spec's include_dirs.

tests/fixtures/logged_gain is an msopgen-layout op whose op_host registers its tiling with
IMPL_OP_OPTILING and a TilingParse<CompileInfo>, reads the platform (GetCoreNum,
GetLocalMemSize, GetCurNpuArch), and logs with CheckLogLevel/DlogRecord and
REPORT_INNER_ERR_MSG / REPORT_PREDEFINED_ERR_MSG through helper headers in shared/inc, a
directory the spec names in kernel.include_dirs (the kernel includes one of them too). What a
failing TilingFunc logged is in its TilingError."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT
from opgen.api import load_spec
from opgen.cli import main
from opgen.diagnostics import DiagnosticError
from opgen_runtime import registry
from opgen_runtime.errors import TilingError
from opgen_runtime.metadef import load
from opgen_runtime.ophost import HostTensor, build_op_host, load_op_host
from opgen_runtime.oplib import build_operator_library
from opgen_runtime.soc import get_soc

FIXTURE = ROOT / "tests" / "fixtures" / "logged_gain"


def _quiet_main(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("logged_gain_project")
    shutil.copytree(FIXTURE, root / "specs")
    (root / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert _quiet_main(["generate"])[0] == 0
    finally:
        os.chdir(cwd)
    return root


@pytest.fixture(scope="module")
def reg(project: Path) -> registry.Registry:
    metadef = project / "generated" / "metadef" / "logged_gain.json"
    r = registry.Registry()
    r.load_operator_library(str(build_operator_library(load(metadef))))
    r.register_operator("logged_gain")
    r.register_operator_model("logged_gain", str(metadef), "logged_gain")
    return r


def test_the_metadef_carries_the_include_dirs(project: Path) -> None:
    data = json.loads((project / "generated" / "metadef" / "logged_gain.json").read_text())
    assert data["kernel"]["include_dirs"] == ["../../specs/shared/inc"]
    op = load(project / "generated" / "metadef" / "logged_gain.json")
    assert op.host_include_dirs == (project / "specs" / "op_host",
                                    project / "specs" / "shared" / "inc")


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("n", [1000, 70001])
def test_the_op_runs_with_its_own_tiling(reg: registry.Registry, dtype: type[np.floating],
                                         n: int) -> None:
    x = np.random.default_rng(n).uniform(-3, 3, n).astype(dtype)
    y = reg.call("logged_gain", x, gain=1.5)
    np.testing.assert_array_equal(y, x * dtype(1.5))


def test_a_logged_error_is_in_the_tiling_error(reg: registry.Registry) -> None:
    x = np.ones(64, np.float32)
    with pytest.raises(TilingError) as info:
        reg.call("logged_gain", x, gain=0.0)
    text = str(info.value)
    assert text.startswith("LoggedGain: the op_host TilingFunc returned GRAPH_FAILED (lib")
    # the log record, once: the error-manager report of the same text is not repeated
    assert text.endswith("; the op_host logged:\n[ERROR] [LoggedGain] gain must be nonzero "
                         "(got 0): y would be all zeros")
    assert "INFO" not in text  # CANN's default level is ERROR


def test_the_log_level_is_canns_setting(reg: registry.Registry,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_GLOBAL_LOG_LEVEL", "1")
    with pytest.raises(TilingError) as info:
        reg.call("logged_gain", np.ones(64, np.float16), gain=0.0)
    lines = str(info.value).splitlines()
    # TilingParse read the platform: 48 vector cores of the 910B, architecture DAV_2201
    assert lines[1:] == [
        "[INFO] [LoggedGain] tiling 64 elements of DT_FLOAT16, gain 0, on DAV_2201, 48 cores",
        "[ERROR] [LoggedGain] gain must be nonzero (got 0): y would be all zeros"]
    # no log records: the error manager's report, which no log level silences, remains
    monkeypatch.setenv("ASCEND_GLOBAL_LOG_LEVEL", "4")
    with pytest.raises(TilingError) as info:
        reg.call("logged_gain", np.ones(64, np.float16), gain=0.0)
    assert str(info.value).splitlines()[1:] == [
        "EZ9999: gain must be nonzero (got 0): y would be all zeros"]


def test_a_predefined_error_report_and_another_soc(project: Path) -> None:
    op = load(project / "generated" / "metadef" / "logged_gain.json")
    host = load_op_host(build_op_host(op.op_host, name=op.op_name,
                                      include_dirs=op.host_include_dirs))
    empty = HostTensor((0,), "float32")
    with pytest.raises(TilingError, match=r"logged:\nEZ0004: op_name=LoggedGain, param_name=x$"):
        host.tiling("LoggedGain", [[empty]], [empty], [("float", 2.0)], get_soc("ascend910b"))
    x = HostTensor((4096,), "float32")
    t = host.tiling("LoggedGain", [[x]], [x], [("float", 2.0)], get_soc("ascend310p"))
    assert t.block_dim == 1 and t.tiling_key == 1 and t.workspace_sizes == (0,)


def _spec_with(tmp_path: Path, include_dirs: str) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "op")
    spec = tmp_path / "op" / "logged_gain.yaml"
    spec.write_text(spec.read_text().replace("include_dirs: [shared/inc]",
                                             f"include_dirs: [{include_dirs}]"))
    return spec


@pytest.mark.parametrize(("given", "message"), [
    ("shared/missing", "include directory 'shared/missing' not found (looked for "),
    ("/usr/include", "include directory '/usr/include' is an absolute path; give it relative "
                     "to the spec file"),
])
def test_include_dirs_are_checked(tmp_path: Path, given: str, message: str) -> None:
    with pytest.raises(DiagnosticError) as info:
        load_spec(_spec_with(tmp_path, given))
    assert "logged_gain.yaml:13:" in str(info.value) and message in str(info.value)


def test_import_msopgen_passes_include_dirs_on(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path / "proj")
    (tmp_path / "proj" / "logged_gain.yaml").unlink()
    out = tmp_path / "specs"
    code, err = _quiet_main(["import-msopgen", str(tmp_path / "proj"), "-o", str(out),
                             "--include", str(tmp_path / "proj" / "shared" / "inc")])
    assert code == 0, err
    spec = load_spec(out / "logged_gain.yaml")
    assert spec.kernel.include_dirs == ("../proj/shared/inc",)
    assert spec.kernel.op_host == ("../proj/op_host/logged_gain.cpp",)
    # without the directory the op_host does not compile: the error names the missing header
    code, err = _quiet_main(["import-msopgen", str(tmp_path / "proj"), "-o",
                             str(tmp_path / "other")])
    assert code != 0 and "gain_common/host_log.h" in err
    code, err = _quiet_main(["import-msopgen", str(tmp_path / "proj"), "-o", str(out),
                             "--include", str(tmp_path / "nowhere")])
    assert code != 0 and "nowhere: include directory not found" in err
