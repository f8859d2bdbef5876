"""aclrtc on the simulator (acl/acl_rt_compile.h, acl/acl_rt_binary.h, opgen/rtc.py): a program
compiles kernels while it runs, loads the result and launches its kernels by name (extern "C")
or by the lowered name of a name expression, with an argument array or packed arguments; their
GM accesses are checked against the program's own aclrtMalloc buffers. Through `opgen run` and
through a CMake build against the toolkit (ASCEND_HOME_PATH/bin/opgen-rtc)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import PROGRAMS, opgen

RTC = str(PROGRAMS / "rtc_program.asc")


def _run(tmp_path: Path, mode: str) -> tuple[int, str, str]:
    run = opgen("run", RTC, "--", mode, cwd=tmp_path)
    return run.returncode, run.stdout, run.stderr


def test_kernels_compiled_at_run_time_launch_by_name_and_by_name_expression(
        tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, "ok")
    assert code == 0, out + err
    assert "scale: 0 wrong" in out  # extern "C", argument array, 4 blocks
    assert "shift (ns::shift<float>): 0 wrong" in out  # template via its name expression, packed
    assert "not added: 0" in out
    assert "'ns::shift<int>' was not added with aclrtcAddNameExpr before the compile" in err
    # a function of an unloaded binary is refused, not called
    assert "after unload: 107017" in out
    assert "is not a function of a loaded binary" in err


def test_a_compile_error_is_in_the_log_under_the_programs_name(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, "compile-error")
    assert code == 0, out + err
    assert "compile: 176003" in out  # ACL_ERROR_RTC_COMPILATION
    assert "bad_prog:3:11: error: expected primary-expression" in out
    assert "aclrtcCompileProg: program 'bad_prog' did not compile" in err


def test_an_unknown_kernel_name_lists_the_binarys_kernels(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, "bad-name")
    assert code == 0, out + err
    assert "get: 100000" in out
    assert "the binary has no kernel 'nope' (it has: scale, ns::shift<float>;" in err


def test_a_name_expression_that_is_not_a_name_is_refused(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, "bad-expr")
    assert code == 0, out + err
    assert "add: 176007" in out  # ACL_ERROR_RTC_NAME_EXPR_NOT_VALID
    assert "is not a kernel name" in err


def test_a_run_time_kernel_is_bounded_by_the_programs_buffers(tmp_path: Path) -> None:
    code, _out, err = _run(tmp_path, "oob")
    assert code == 1
    assert ("kernel 'scale', block 1: DataCopy(GM->UB): bytes [4096, 8192) run past the end of "
            "GM buffer 'aclrtMalloc#0' (4128 bytes) [GlobalMemoryOutOfBounds]" in err)


def test_without_a_compiler_the_log_says_where_to_get_one(tmp_path: Path) -> None:
    exe = tmp_path / "rtc"
    built = opgen("cxx", RTC, "-o", str(exe), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.run([str(exe), "ok"], cwd=tmp_path, capture_output=True, text=True,
                         check=False, env=env, timeout=120)
    assert "aclrtcCompileProg: no compiler: run the program with `opgen run`, or source the " \
           "set_env.sh of `opgen config --toolkit` first" in run.stderr
    assert "aclrtcCompileProg(prog, 1, options) failed: 576000" in run.stdout


RTC_CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(rtc_probe LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
add_executable(demo main.cpp)
target_include_directories(demo PRIVATE $ENV{ASCEND_HOME_PATH}/include)
target_link_directories(demo PRIVATE $ENV{ASCEND_HOME_PATH}/lib64)
target_link_libraries(demo PRIVATE ascendcl acl_rtc)
"""


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_a_plain_cxx_program_built_against_the_toolkit_compiles_at_run_time(
        tmp_path: Path) -> None:
    toolkit = Path(opgen("config", "--toolkit").stdout.strip())
    (tmp_path / "CMakeLists.txt").write_text(RTC_CMAKELISTS)
    shutil.copy(RTC, tmp_path / "main.cpp")
    build = tmp_path / "build"
    script = (f'source "{toolkit}/set_env.sh" && cmake -S "{tmp_path}" -B "{build}" >/dev/null '
              f'&& cmake --build "{build}" && cd "{tmp_path}" && "{build}/demo" ok')
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "scale: 0 wrong" in proc.stdout
    assert "shift (ns::shift<float>): 0 wrong" in proc.stdout
