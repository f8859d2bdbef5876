"""The aclnn API of a project on the CPU (docs/simulator.md, "aclnn drivers"): `opgen build`'s
op package (libcust_opapi.so and the generated aclnn headers) installed into a toolkit, and
drivers written the CANN way (aclrtMalloc, aclCreateTensor, aclnn<Op>GetWorkspaceSize,
aclnn<Op>) built against it with -std=c++11 as CANN's samples are, their output equal to numpy.

Two ops: the repository's leaky_relu (a float attr, tiled by the default policy) and the op_host
fixture ClampScale (its own TilingFunc: attrs, tiling key, workspace; modes that fail)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import tiled_project

from opgen.build_cmd import install_op_api
from opgen.diagnostics import DiagnosticSink
from opgen.project import Config, load_config
from opgen.toolkit import toolkit_dir

PROGRAMS = Path(__file__).resolve().parent / "programs"
ROOT = Path(__file__).resolve().parents[2]


def _build_driver(source: Path, op_api: Path, out: Path) -> Path:
    """g++ as the samples' CMakeLists build: the toolkit's runtime/include, the op package's
    include/ and lib/, and the stub libraries they link by name."""
    toolkit = toolkit_dir()
    exe = out / source.stem
    cmd = ["g++", "-std=c++11", "-O1", "-Wall", "-Werror", str(source), "-o", str(exe),
           f"-I{toolkit / 'runtime/include'}", f"-I{toolkit / 'atc/include'}",
           f"-I{op_api / 'include'}", f"-L{toolkit / 'lib64'}", f"-L{op_api / 'lib'}",
           f"-Wl,-rpath,{op_api / 'lib'}", "-lascendcl", "-lcust_opapi", "-lacl_op_compiler",
           "-lnnopbase"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return exe


def _run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, check=False,
                          timeout=300)


@pytest.fixture(scope="module")
def leaky_relu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's own ops, installed into a toolkit-shaped directory of this test."""
    config = load_config(ROOT)
    op_api = install_op_api(config, DiagnosticSink(), tmp_path_factory.mktemp("toolkit"))
    return _build_driver(PROGRAMS / "leaky_relu_driver.cpp", op_api,
                         tmp_path_factory.mktemp("bin"))


@pytest.fixture(scope="module")
def clamp(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    where = tmp_path_factory.mktemp("clamp")
    tiled_project.generate(where, "clamp_ops", "clamp_ops", tiled_project.OP_HOST_FIXTURE)
    config = Config(root=where, spec_dir=where / "specs", output_dir=where / "generated",
                    package="clamp_ops", namespace="clamp_ops")
    op_api = install_op_api(config, DiagnosticSink(), tmp_path_factory.mktemp("toolkit"))
    assert sorted(p.name for p in (op_api / "include").iterdir()) == ["aclnn_clamp_scale.h"]
    out = tmp_path_factory.mktemp("bin")
    return (_build_driver(PROGRAMS / "clamp_scale_driver.cpp", op_api, out),
            _build_driver(PROGRAMS / "clamp_scale_misuse.cpp", op_api, out))


@pytest.mark.parametrize(("dtype", "name"), [(np.float32, "fp32"), (np.float16, "fp16")])
def test_leaky_relu_equals_numpy(leaky_relu: Path, tmp_path: Path, dtype: type,
                                 name: str) -> None:
    x: np.ndarray = (np.random.default_rng(3).standard_normal(8192) * 4).astype(dtype)
    x.tofile(tmp_path / "x.bin")
    proc = _run(leaky_relu, tmp_path / "x.bin", tmp_path / "y.bin", x.size, "0.25", name)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "workspace 0" in proc.stdout
    y: np.ndarray = np.fromfile(tmp_path / "y.bin", dtype)
    want = np.where(x > 0, x, x * dtype(0.25))
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize(("n", "dtype", "name", "workspace"), [
    (64, np.float32, "fp32", 16 * 2**20 + 32),  # tiling key 1: one block
    (300 * 1024, np.float32, "fp32", 16 * 2**20 + 48 * 32),  # key 2: 48 blocks of pieces
    (16000, np.float16, "fp16", 16 * 2**20 + 3 * 32),  # key 2: 3 pieces of 6144, 3 blocks
])
def test_clamp_scale_runs_its_op_hosts_tiling(clamp: tuple[Path, Path], tmp_path: Path, n: int,
                                              dtype: type, name: str, workspace: int) -> None:
    x: np.ndarray = (np.random.default_rng(5).standard_normal(n) * 10).astype(dtype)
    x.tofile(tmp_path / "x.bin")
    proc = _run(clamp[0], tmp_path / "x.bin", tmp_path / "y.bin", n, "1.5", "4", "0", name)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"workspace {workspace}\n" in proc.stdout  # GetLibApiWorkSpaceSize + blocks * 32
    y: np.ndarray = np.fromfile(tmp_path / "y.bin", dtype)
    np.testing.assert_array_equal(y, np.clip(x * dtype(1.5), -4, 4))


def test_clamp_scale_failing_tiling_is_a_code_and_message(clamp: tuple[Path, Path],
                                                          tmp_path: Path) -> None:
    np.ones(64, np.float32).tofile(tmp_path / "x.bin")
    proc = _run(clamp[0], tmp_path / "x.bin", tmp_path / "y.bin", 64, "1", "6", "1", "fp32")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert ("FAILED aclnnClampScaleGetWorkspaceSize(x, gain, limit, mode, y, &workspaceSize, "
            "&executor): 561002: aclnnClampScaleGetWorkspaceSize: ClampScale: the op_host "
            "TilingFunc returned GRAPH_FAILED") in proc.stdout
    assert "[ERROR][opgen-sim][aclnn] aclnnClampScaleGetWorkspaceSize: " in proc.stderr


def test_clamp_scale_misuse(clamp: tuple[Path, Path]) -> None:
    proc = _run(clamp[1])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    status = {k: int(v.split(" ", 1)[0]) for k, v in lines.items()}
    message = {k: v.split(" ", 1)[1] if " " in v else "" for k, v in lines.items()}
    assert proc.stdout.rstrip().endswith("end")
    assert status["null_input"] == 161001
    assert "'x' (input 'x') must not be null" in message["null_input"]
    assert status["null_executor"] == 161001
    assert status["wrong_dtype"] == 161002
    assert "no supported dtype combination for (x=float32, y=int32)" in message["wrong_dtype"]
    assert status["tiling_fails"] == 561002
    assert status["tiling_crashes"] == 561002
    assert "crashed with SIGSEGV" in message["tiling_crashes"]
    # a TilingFunc that saves no tiling data fails where the kernel reads it, at the launch
    assert status["no_tiling_data_prepare"] == 0 and status["no_tiling_data"] == 361001
    assert "must SaveToBuffer into GetRawTilingData()" in message["no_tiling_data"]
    assert status["host_memory_prepare"] == 0
    assert status["host_memory"] == 161002
    assert "the data of 'x' is not device memory" in message["host_memory"]
    assert status["prepare"] == 0 and status["short_workspace"] == 161002
    assert status["prepare_again"] == 0 and status["run"] == 0
    assert status["run_twice"] == 161002
    assert "not a live aclOpExecutor" in message["run_twice"]
    assert status["repeatable_run_1"] == 0 and status["repeatable_run_2"] == 0
    assert status["repeatable_destroy"] == 0


CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(aclnn_probe CXX)
add_compile_options(-std=c++11)
set(INC_PATH $ENV{DDK_PATH})
set(CUST_PKG_PATH "${INC_PATH}/opp/vendors/customize/op_api")
include_directories(${INC_PATH}/runtime/include ${INC_PATH}/atc/include ${CUST_PKG_PATH}/include)
link_directories($ENV{NPU_HOST_LIB} ${CUST_PKG_PATH}/lib)
add_executable(leaky_relu_driver leaky_relu_driver.cpp)
target_link_libraries(leaky_relu_driver ascendcl cust_opapi acl_op_compiler nnopbase stdc++)
"""


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_opgen_build_installs_into_the_toolkit(tmp_path: Path) -> None:
    """`opgen build` installs the package where the samples' CMake files look (DDK_PATH, the
    toolkit) and bin/setenv.bash puts its lib/ on LD_LIBRARY_PATH, as their run.sh needs."""
    proc = subprocess.run([str(ROOT / ".venv/bin/opgen"), "build", "specs/leaky_relu.yaml"],
                          cwd=ROOT, capture_output=True, text=True, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr
    toolkit = toolkit_dir()
    op_api = toolkit / "opp/vendors/customize/op_api"
    assert f"op_api (libcust_opapi.so, aclnn headers): {op_api}" in proc.stdout
    assert (op_api / "lib/libcust_opapi.so").is_file()
    (tmp_path / "CMakeLists.txt").write_text(CMAKELISTS)
    shutil.copy(PROGRAMS / "leaky_relu_driver.cpp", tmp_path)
    x = np.linspace(-4, 4, 256, dtype=np.float32)
    x.tofile(tmp_path / "x.bin")
    script = (f'source "{toolkit}/bin/setenv.bash" && export DDK_PATH="{toolkit}" '
              f'NPU_HOST_LIB="{toolkit}/lib64" && cmake -S . -B build >/dev/null && '
              "cmake --build build >/dev/null && build/leaky_relu_driver x.bin y.bin 256 0.5")
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          check=False, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    np.testing.assert_array_equal(np.fromfile(tmp_path / "y.bin", np.float32),
                                  np.where(x > 0, x, x * np.float32(0.5)))
