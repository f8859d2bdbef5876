"""`opgen config --toolkit`: a kernel-launch project in CANN's CMake style (find_package(tikicpulib)
from <toolkit>/tools/tikicpulib/lib/cmake, tikicpulib::<SoC>, ascendcl; and ascendc_library from
ascendc_kernel_cmake for NPU builds) configures, builds and runs on the simulator; so does a
single-source project in asc-devkit's style (find_package(ASC), LANGUAGES ASC) that links CANN's
host libraries by name."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from .conftest import opgen

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")

# The project: the kernel file holds scale_add.asc's kernel behind a <<<>>> host wrapper, as
# CANN's kernel-launch samples do; main.cpp takes the ICPU_RUN_KF path in CPU mode.
CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(toolkit_probe LANGUAGES CXX)
set(RUN_MODE "cpu" CACHE STRING "cpu or npu")
if(RUN_MODE STREQUAL "cpu")
  set(CMAKE_PREFIX_PATH ${TOOLKIT}/tools/tikicpulib/lib/cmake)
  find_package(tikicpulib REQUIRED)
  add_library(kernels SHARED kernel.cpp)
  target_link_libraries(kernels PUBLIC tikicpulib::${SOC_VERSION})
  set(HOST_LIB ascendcl)
else()
  include(${TOOLKIT}/compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake)
  ascendc_library(kernels SHARED kernel.cpp)
  set(HOST_LIB host_intf_pub)
endif()
add_executable(probe main.cpp)
target_compile_options(probe PRIVATE -O2 -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0 -Wall -Werror)
target_link_libraries(probe PRIVATE ${HOST_LIB} kernels)
"""

KERNEL = """\
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void probe_copy(GM_ADDR x, GM_ADDR y, uint32_t n)
{
    AscendC::GlobalTensor<float> xg, yg;
    const uint32_t per = n / AscendC::GetBlockNum();
    xg.SetGlobalBuffer((__gm__ float*)x + per * AscendC::GetBlockIdx(), per);
    yg.SetGlobalBuffer((__gm__ float*)y + per * AscendC::GetBlockIdx(), per);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, per * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::DataCopy(t, xg, per);
    AscendC::Adds(t, t, 1.0f, per);
    AscendC::DataCopy(yg, t, per);
}
#ifndef ASCENDC_CPU_DEBUG
void probe_copy_do(uint32_t blocks, void* stream, uint8_t* x, uint8_t* y, uint32_t n)
{
    probe_copy<<<blocks, nullptr, stream>>>(x, y, n);
}
#endif
"""

MAIN = """\
#include <cstdio>
#include <vector>
#include "acl/acl.h"
#ifdef ASCENDC_CPU_DEBUG
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void probe_copy(GM_ADDR x, GM_ADDR y, uint32_t n);
#else
extern void probe_copy_do(uint32_t blocks, void* stream, uint8_t* x, uint8_t* y, uint32_t n);
#endif
int main()
{
    const uint32_t n = 2048;
    std::vector<float> host(n);
    for (uint32_t i = 0; i < n; ++i) host[i] = static_cast<float>(i);
#ifdef ASCENDC_CPU_DEBUG
    uint8_t* x = (uint8_t*)AscendC::GmAlloc(n * 4);
    uint8_t* y = (uint8_t*)AscendC::GmAlloc(n * 4);
    std::copy(host.begin(), host.end(), (float*)x);
    ICPU_RUN_KF(probe_copy, 4, x, y, n);
    std::copy((float*)y, (float*)y + n, host.begin());
#else
    void *x = nullptr, *y = nullptr;
    aclrtStream s = nullptr;
    aclrtCreateStream(&s);
    aclrtMalloc(&x, n * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&y, n * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(x, n * 4, host.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    probe_copy_do(4, s, (uint8_t*)x, (uint8_t*)y, n);
    aclrtSynchronizeStream(s);
    aclrtMemcpy(host.data(), n * 4, y, n * 4, ACL_MEMCPY_DEVICE_TO_HOST);
#endif
    std::FILE* f = std::fopen("y.bin", "wb");
    std::fwrite(host.data(), 4, n, f);
    std::fclose(f);
    return 0;
}
"""


@pytest.mark.parametrize("mode", ["cpu", "npu"])
def test_cann_style_project_builds_and_runs(tmp_path: Path, mode: str) -> None:
    toolkit = opgen("config", "--toolkit")
    assert toolkit.returncode == 0, toolkit.stderr
    root = Path(toolkit.stdout.strip())
    assert (root / "bin" / "setenv.bash").is_file()
    for name, text in (("CMakeLists.txt", CMAKELISTS), ("kernel.cpp", KERNEL), ("main.cpp", MAIN)):
        (tmp_path / name).write_text(text)
    build = tmp_path / "build"
    for cmd in (["cmake", "-S", str(tmp_path), "-B", str(build), f"-DTOOLKIT={root}",
                 "-DSOC_VERSION=Ascend910B1", f"-DRUN_MODE={mode}"],
                ["cmake", "--build", str(build), "-j", "2"]):
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    run = subprocess.run([str(build / "probe")], cwd=tmp_path, capture_output=True, text=True,
                         check=False, env={"LD_LIBRARY_PATH": str(build)})
    assert run.returncode == 0, run.stderr
    y = np.fromfile(tmp_path / "y.bin", np.float32)
    np.testing.assert_array_equal(y, np.arange(2048, dtype=np.float32) + 1)


def test_toolkit_is_one_directory_per_content() -> None:
    first, second = opgen("config", "--toolkit"), opgen("config", "--toolkit")
    assert first.stdout == second.stdout and first.stdout.strip()


def test_toolkit_alone() -> None:
    out = opgen("config", "--toolkit", "--cflags")
    assert out.returncode == 2
    assert out.stderr == "opgen config: error: --toolkit prints a directory; give it alone\n"



# A single-source project in the style of asc-devkit's examples: find_package(ASC) through
# set_env.sh's CMAKE_PREFIX_PATH, project(... LANGUAGES ASC CXX), NPU-only compile options, and
# CANN's host libraries linked by name, which the ASC link finds in the toolkit's lib64.
ASC_CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
set(CMAKE_ASC_RUN_MODE "npu" CACHE STRING "npu, cpu or sim")
set(CMAKE_ASC_ARCHITECTURES "dav-2201" CACHE STRING "the NPU architecture")
find_package(ASC REQUIRED)
project(asc_probe LANGUAGES ASC CXX)
add_executable(demo scale_add.asc)
target_link_libraries(demo PRIVATE tiling_api register platform graph_base unified_dlog m dl)
target_compile_options(demo PRIVATE
    $<$<COMPILE_LANGUAGE:ASC>:--npu-arch=${CMAKE_ASC_ARCHITECTURES}>)
"""


def test_asc_language_project_links_cann_host_libraries_and_runs(tmp_path: Path) -> None:
    toolkit = Path(opgen("config", "--toolkit").stdout.strip())
    (tmp_path / "CMakeLists.txt").write_text(ASC_CMAKELISTS)
    shutil.copy(Path(__file__).parent / "programs" / "scale_add.asc", tmp_path / "scale_add.asc")
    build = tmp_path / "build"
    script = (f'source "{toolkit}/set_env.sh" && '
              f'cmake -S "{tmp_path}" -B "{build}" -DCMAKE_ASC_RUN_MODE=cpu >/dev/null && '
              f'cmake --build "{build}"')
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rng = np.random.default_rng(5)
    x, y = (rng.standard_normal(4096).astype(np.float32) for _ in range(2))
    for sub, arrays in (("input", {"x": x, "y": y}), ("output", {})):
        (tmp_path / sub).mkdir()
        for name, a in arrays.items():
            a.tofile(tmp_path / sub / f"{name}.bin")
    run = subprocess.run([str(build / "demo"), "4096", "4"], cwd=tmp_path, capture_output=True,
                         text=True, check=False, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    z = np.fromfile(tmp_path / "output" / "z.bin", np.float32)
    np.testing.assert_array_equal(z, np.float32(2.5) * x + y)


# A kernel library of a single-source project (asc-devkit's 04_compile samples): the .asc built
# as a SHARED or STATIC library with LINKER_LANGUAGE ASC, linked into a C++ program; the shared
# library is found through the build tree's RPATH, as for CMake's own languages.
ASC_LIBRARY_CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
set(CMAKE_ASC_ARCHITECTURES "dav-2201" CACHE STRING "the NPU architecture")
find_package(ASC REQUIRED)
project(asc_library LANGUAGES ASC CXX)
add_library(twice_plus {kind} lib_kernel.asc)
set_target_properties(twice_plus PROPERTIES LINKER_LANGUAGE ASC)
target_compile_options(twice_plus PRIVATE
    $<$<COMPILE_LANGUAGE:ASC>:--npu-arch=${{CMAKE_ASC_ARCHITECTURES}} -fPIC>)
add_executable(demo lib_main.cpp)
set_target_properties(demo PROPERTIES LINKER_LANGUAGE ASC)
target_include_directories(demo PRIVATE $ENV{{ASCEND_HOME_PATH}}/include)
target_link_libraries(demo PRIVATE twice_plus)
"""


@pytest.mark.parametrize("kind", ["SHARED", "STATIC"])
def test_asc_kernel_library_links_into_a_program(tmp_path: Path, kind: str) -> None:
    toolkit = Path(opgen("config", "--toolkit").stdout.strip())
    (tmp_path / "CMakeLists.txt").write_text(ASC_LIBRARY_CMAKELISTS.format(kind=kind))
    for name in ("lib_kernel.asc", "lib_main.cpp"):
        shutil.copy(Path(__file__).parent / "programs" / name, tmp_path / name)
    build = tmp_path / "build"
    script = (f'source "{toolkit}/set_env.sh" && cmake -S "{tmp_path}" -B "{build}" >/dev/null '
              f'&& cmake --build "{build}"')
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    library = "libtwice_plus.so" if kind == "SHARED" else "libtwice_plus.a"
    assert (build / library).is_file()
    run = subprocess.run([str(build / "demo")], cwd=tmp_path, capture_output=True, text=True,
                         check=False, timeout=120, env={k: v for k, v in os.environ.items()
                                                        if k != "LD_LIBRARY_PATH"})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "twice_plus: 0 of 4096 wrong" in run.stdout


def test_asc_compiler_drops_the_npu_sanitizer_option(tmp_path: Path) -> None:
    """asc-devkit's ms_sanitizer sample compiles with `-g --sanitizer` (the NPU compiler's
    msSanitizer instrumentation): the toolkit's ASC compiler drops it, as --npu-arch."""
    toolkit = Path(opgen("config", "--toolkit").stdout.strip())
    obj = tmp_path / "scale_add.o"
    proc = subprocess.run(
        [str(toolkit / "bin" / "opgen-cxx"), "--npu-arch=dav-2201", "-g", "--sanitizer", "-c",
         str(Path(__file__).parent / "programs" / "scale_add.asc"), "-o", str(obj)],
        capture_output=True, text=True, check=False, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert obj.stat().st_size > 0
