"""CANN 9's op-package projects (asc-devkit's 99_acl_based/00_acl_compilation samples): a
CMakeLists that builds its ops with find_package(ASC) and npu_op_package, npu_op_code_gen,
npu_op_library, npu_op_kernel_sources, npu_op_kernel_library and npu_op_package_add. The aclnn
sources are generated at configure time; the package is built for the simulator, as a static or
shared library an application finds with find_package(<package>), or as a .run installer that
puts it under an op path, where an aclnn driver links it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import PROGRAMS, opgen

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")

SOURCES = PROGRAMS / "npu_op"

OP_CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(scale_add_package)
find_package(ASC REQUIRED)
set(ASCEND_COMPUTE_UNIT ascend910b)
npu_op_package({package} TYPE {type} {config})
file(GLOB host_srcs scale_add_host.cpp)
npu_op_code_gen(SRC ${{host_srcs}} PACKAGE {package} OUT_DIR ${{ASCEND_AUTOGEN_PATH}})
npu_op_library(cust_optiling TILING ${{host_srcs}})
file(GLOB aclnn_srcs ${{ASCEND_AUTOGEN_PATH}}/aclnn_*.cpp)
npu_op_library(cust_opapi ACLNN ${{aclnn_srcs}})
file(GLOB proto_src ${{ASCEND_AUTOGEN_PATH}}/op_proto.cc)
npu_op_library(cust_op_proto GRAPH ${{host_srcs}} ${{proto_src}})
npu_op_package_add({package} LIBRARY cust_optiling cust_opapi cust_op_proto)
{kernels}
"""

KERNELS = """\
npu_op_kernel_sources(kernels OP_TYPE ScaleAddCustom KERNEL_FILE scale_add_kernel.cpp)
npu_op_kernel_library(kernels SRC_BASE ${CMAKE_CURRENT_SOURCE_DIR} TILING_LIBRARY cust_optiling)
npu_op_package_add(${package} LIBRARY kernels)
"""

APP_CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(scale_add_app)
find_package(my_ops REQUIRED)
add_executable(app scale_add_main.cpp)
target_link_libraries(app PRIVATE nnopbase rt2_registry acl_rt my_ops::my_ops)
"""


def _project(root: Path, type_: str, *, config: str = "", kernels: str = KERNELS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for f in ("scale_add_host.cpp", "scale_add_tiling.h", "scale_add_kernel.cpp"):
        shutil.copy(SOURCES / f, root / f)
    (root / "CMakeLists.txt").write_text(OP_CMAKELISTS.format(
        package="my_ops", type=type_, config=config,
        kernels=kernels.replace("${package}", "my_ops")))
    return root


def _sh(script: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    toolkit = opgen("config", "--toolkit").stdout.strip()
    return subprocess.run(["bash", "-c", f'source "{toolkit}/set_env.sh" && {script}'], cwd=cwd,
                          capture_output=True, text=True, check=False, timeout=900)


@pytest.mark.parametrize(("kind", "library"), [("STATIC", "libmy_ops.a"),
                                               ("SHARED", "libcust_opapi.so")])
def test_package_links_into_an_application_found_by_find_package(tmp_path: Path, kind: str,
                                                                 library: str) -> None:
    op = _project(tmp_path / "op", kind)
    prefix = tmp_path / "install"
    proc = _sh(f'cmake -S "{op}" -B "{op}/build" -DCMAKE_INSTALL_PREFIX="{prefix}" && '
               f'cmake --build "{op}/build" && cmake --install "{op}/build"')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # configure time: the aclnn sources the project globs, as CANN's code generation writes them
    autogen = op / "build" / "autogen"
    assert {"aclnn_scale_add_custom.h", "aclnn_scale_add_custom.cpp", "op_proto.h",
            "op_proto.cc"} <= {p.name for p in autogen.iterdir()}
    assert (prefix / "lib" / library).is_file()
    assert (prefix / "include" / "aclnn_scale_add_custom.h").is_file()
    assert (prefix / "lib" / "cmake" / "my_ops" / "my_ops-config.cmake").is_file()
    app = tmp_path / "app"
    app.mkdir()
    shutil.copy(SOURCES / "scale_add_main.cpp", app)
    (app / "CMakeLists.txt").write_text(APP_CMAKELISTS)
    # (a shared package is found through the build tree's RPATH, not LD_LIBRARY_PATH)
    proc = _sh(f'cmake -S "{app}" -B "{app}/build" -DCMAKE_PREFIX_PATH="{prefix}" && '
               f'cmake --build "{app}/build" && env -u LD_LIBRARY_PATH "{app}/build/app"')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "scale_add: 0 of 4096 wrong" in proc.stdout
    # nothing changed: the package's objects stay as they are, and the library is not relinked
    again = _sh(f'cmake --build "{op}/build"')
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Linking" not in again.stdout and "compiling" not in again.stderr, again.stdout


def test_run_package_installs_with_its_run_file_and_serves_a_driver(tmp_path: Path) -> None:
    op = _project(tmp_path / "op", "RUN", config=f'CONFIG INSTALL_PATH "{tmp_path}/out" '
                                                 "VENDOR_NAME acme")
    proc = _sh(f'cmake -S "{op}" -B "{op}/build" && cmake --build "{op}/build" --target binary '
               f'&& cmake --build "{op}/build" --target package')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = list((tmp_path / "out").glob("custom_opp_*.run"))
    assert len(runs) == 1, list((tmp_path / "out").iterdir())
    opp = tmp_path / "opp"
    for _ in range(2):  # installing again replaces the vendor's package
        inst = subprocess.run([str(runs[0]), f"--install-path={opp}"], capture_output=True,
                              text=True, check=False, timeout=60)
        assert inst.returncode == 0 and "SUCCESS" in inst.stdout, inst.stdout + inst.stderr
    api = opp / "vendors" / "acme" / "op_api"
    assert (api / "lib" / "libcust_opapi.so").is_file()
    assert (opp / "vendors" / "config.ini").read_text() == "load_priority=acme\n"
    toolkit = opgen("config", "--toolkit").stdout.strip()
    exe = tmp_path / "driver"
    build = subprocess.run(["g++", "-std=c++17", str(SOURCES / "scale_add_main.cpp"),
                            f"-I{toolkit}/include", f"-I{api}/include", f"-L{api}/lib",
                            "-lcust_opapi", f"-Wl,-rpath,{api}/lib", "-o", str(exe)],
                           capture_output=True, text=True, check=False, timeout=300)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=120)
    assert run.returncode == 0 and "scale_add: 0 of 4096 wrong" in run.stdout, run.stdout
    _single_op_model_runs_through_the_package(tmp_path, opp, toolkit)


SINGLE_OP_JSON = """[{"op": "ScaleAddCustom",
  "input_desc": [{"format": "ND", "shape": [4, 1024], "type": "float"},
                 {"format": "ND", "shape": [4, 1024], "type": "float"}],
  "output_desc": [{"format": "ND", "shape": [4, 1024], "type": "float"}]}]
"""


def _single_op_model_runs_through_the_package(tmp_path: Path, opp: Path, toolkit: str) -> None:
    """atc --singleop writes the model; aclopExecuteV2 runs it through the installed package."""
    import os

    env = {**os.environ, "ASCEND_OPP_PATH": str(opp)}
    (tmp_path / "ops.json").write_text(SINGLE_OP_JSON)
    models = tmp_path / "models"
    atc = subprocess.run([f"{toolkit}/bin/atc", f"--singleop={tmp_path}/ops.json",
                          f"--output={models}", "--soc_version=Ascend910B1"],
                         capture_output=True, text=True, check=False, timeout=120, env=env)
    assert atc.returncode == 0 and "ATC run success" in atc.stdout, atc.stdout + atc.stderr
    assert [p.name for p in models.iterdir()] == [
        "0_ScaleAddCustom_0_2_4_1024_0_2_4_1024_0_2_4_1024.om"]
    exe = tmp_path / "aclop_driver"
    build = subprocess.run(["g++", "-std=c++11", "-Wall", "-Werror",
                            str(SOURCES / "scale_add_aclop.cpp"), f"-I{toolkit}/include",
                            "-o", str(exe), "-ldl", "-pthread"],
                           capture_output=True, text=True, check=False, timeout=300)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe), str(models)], capture_output=True, text=True, check=False,
                         timeout=120, env=env)
    assert run.returncode == 0 and "scale_add (aclop): 0 of 4096 wrong" in run.stdout, (
        run.stdout + run.stderr)
    shape = subprocess.run([str(exe), str(models), "shape"], capture_output=True, text=True,
                           check=False, timeout=120, env=env)
    assert "aclopExecuteV2 returned 100024" in shape.stdout, shape.stdout + shape.stderr
    assert ("no single-op model of ScaleAddCustom for inputs (dtype 0 format 2 [8,512]"
            in shape.stderr), shape.stderr
    attr = subprocess.run([str(exe), str(models), "attr"], capture_output=True, text=True,
                          check=False, timeout=120, env=env)
    assert attr.returncode == 1, attr.stdout + attr.stderr
    assert ("attr 'alpha' is not set; set it with aclopSetAttrFloat(attr, \"alpha\", value)"
            in attr.stderr), attr.stderr
    # an op no installed package holds is refused by atc, located in the JSON
    (tmp_path / "bad.json").write_text(SINGLE_OP_JSON.replace("ScaleAddCustom", "NoSuchOp"))
    bad = subprocess.run([f"{toolkit}/bin/atc", f"--singleop={tmp_path}/bad.json",
                          f"--output={models}"], capture_output=True, text=True, check=False,
                         timeout=120, env=env)
    assert bad.returncode == 2
    assert f"bad.json:1:9: error: op NoSuchOp: no op package under {opp}/vendors holds it" in (
        bad.stderr), bad.stderr


def test_run_file_without_an_op_path_says_how_to_set_one(tmp_path: Path) -> None:
    from opgen.npu_op_package import make_run

    tree = tmp_path / "stage" / "packages" / "vendors" / "v1" / "op_api"
    (tree / "lib").mkdir(parents=True)
    (tree / "lib" / "libcust_opapi.so").write_bytes(b"\x7fELF")
    run = make_run(tmp_path / "stage", tmp_path / "p.run", "v1")
    proc = subprocess.run([str(run)], capture_output=True, text=True, check=False, timeout=60,
                          env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 1
    assert "ASCEND_OPP_PATH is not set" in proc.stderr


@pytest.mark.parametrize(("kernels", "message"), [
    ("", "npu_op_package(my_ops): the package has no kernels"),
    ("npu_op_kernel_sources(kernels OP_TYPE ScaleAddCustom)",
     "npu_op_kernel_sources(kernels): OP_TYPE and KERNEL_FILE go together"),
])
def test_configure_errors_name_the_function_and_the_fix(tmp_path: Path, kernels: str,
                                                        message: str) -> None:
    op = _project(tmp_path / "op", "STATIC", kernels=kernels)
    proc = _sh(f'cmake -S "{op}" -B "{op}/build"')
    assert proc.returncode != 0
    assert message in " ".join(proc.stderr.split()), proc.stderr


def test_op_host_error_is_located_at_configure_time(tmp_path: Path) -> None:
    op = _project(tmp_path / "op", "STATIC")
    host = op / "scale_add_host.cpp"
    host.write_text(host.read_text().replace("t->alpha = *alpha;", "t->alpha = *alphaa;"))
    proc = _sh(f'cmake -S "{op}" -B "{op}/build"')
    assert proc.returncode != 0
    text = " ".join(proc.stderr.split())  # (CMake folds long lines)
    assert "npu_op_code_gen(my_ops) failed" in text
    assert "scale_add_host.cpp:11:17: error: 'alphaa' was not declared" in text, text


def test_op_without_a_kernel_fails_the_build_naming_the_op(tmp_path: Path) -> None:
    kernels = KERNELS.replace("OP_TYPE ScaleAddCustom KERNEL_FILE scale_add_kernel.cpp",
                              "KERNEL_DIR elsewhere")
    op = _project(tmp_path / "op", "STATIC", kernels=kernels)
    proc = _sh(f'cmake -S "{op}" -B "{op}/build" && cmake --build "{op}/build"')
    assert proc.returncode != 0
    text = proc.stdout + proc.stderr
    assert "package my_ops: op ScaleAddCustom has no kernel" in text, text
    assert "npu_op_kernel_sources(<target> OP_TYPE ScaleAddCustom KERNEL_FILE <file>)" in text
