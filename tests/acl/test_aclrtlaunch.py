"""aclrtlaunch_<kernel>: the toolkit's ascendc_library makes each kernel's header and launch
function, and a driver calls the kernels with ACLRT_LAUNCH_KERNEL, as CANN's kernel-launch
samples do in `-r npu` mode; kernels the generator cannot handle are located errors."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from .conftest import opgen

# Two kernels in one file: one with C linkage, GM_ADDR pointers, a tiling struct by value (the
# launch function takes its address) and a scalar; one with C++ linkage and a __gm__ float*.
TILING = """\
#pragma once
#include <cstdint>
struct ProbeTiling {
    uint32_t n;
    float bias;
};
"""

KERNEL = """\
#include "kernel_operator.h"
#include "probe_tiling.h"

extern "C" __global__ __aicore__ void probe_affine(GM_ADDR x, GM_ADDR y, ProbeTiling tiling,
                                                   float scale)
{
    const uint32_t per = tiling.n / AscendC::GetBlockNum();
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x + per * AscendC::GetBlockIdx(), per);
    yg.SetGlobalBuffer((__gm__ float*)y + per * AscendC::GetBlockIdx(), per);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, per * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::DataCopy(t, xg, per);
    AscendC::Muls(t, t, scale, per);
    AscendC::Adds(t, t, tiling.bias, per);
    AscendC::DataCopy(yg, t, per);
}

__global__ __aicore__ void probe_fill(__gm__ float* y, uint32_t n, float value)
{
    const uint32_t per = n / AscendC::GetBlockNum();
    AscendC::GlobalTensor<float> yg;
    yg.SetGlobalBuffer(y + per * AscendC::GetBlockIdx(), per);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, per * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::Duplicate(t, value, per);
    AscendC::DataCopy(yg, t, per);
}
"""

MAIN = """\
#include <cstdio>
#include <vector>
#include "acl/acl.h"
#include "probe_tiling.h"
#include "aclrtlaunch_probe_affine.h"
#include "aclrtlaunch_probe_fill.h"

static void Save(const char* name, void* device, std::vector<float>& host)
{
    const size_t bytes = host.size() * sizeof(float);
    aclrtMemcpy(host.data(), bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    std::FILE* f = std::fopen(name, "wb");
    std::fwrite(host.data(), sizeof(float), host.size(), f);
    std::fclose(f);
}

int main()
{
    const uint32_t n = 2048;
    const size_t bytes = n * sizeof(float);
    std::vector<float> host(n);
    for (uint32_t i = 0; i < n; ++i) host[i] = static_cast<float>(i);
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    void *x = nullptr, *y = nullptr, *z = nullptr;
    aclrtMalloc(&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&z, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(x, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    ProbeTiling tiling{n, 0.5f};
    uint32_t rc = ACLRT_LAUNCH_KERNEL(probe_affine)(4, stream, x, y, &tiling, 2.0f);
    rc |= aclrtlaunch_probe_fill(8, stream, z, n, 3.0f);
    aclrtSynchronizeStream(stream);
    Save("y.bin", y, host);
    Save("z.bin", z, host);
    aclrtFree(x);
    aclrtFree(y);
    aclrtFree(z);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return static_cast<int>(rc);
}
"""

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(aclrtlaunch_probe LANGUAGES CXX)
include(${TOOLKIT}/compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake)
ascendc_library(probe_kernels SHARED kernel.cpp)
add_executable(probe main.cpp)
target_compile_options(probe PRIVATE -O2 -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0 -Wall -Werror)
target_link_libraries(probe PRIVATE host_intf_pub probe_kernels)
"""

AFFINE_DECL = ('extern "C" uint32_t aclrtlaunch_probe_affine(uint32_t blockDim, aclrtStream '
               "stream, void* x, void* y, ProbeTiling* tiling, float scale);")
FILL_DECL = ('extern "C" uint32_t aclrtlaunch_probe_fill(uint32_t blockDim, aclrtStream stream, '
             "void* y, uint32_t n, float value);")


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_ascendc_library_makes_aclrtlaunch_functions(tmp_path: Path) -> None:
    toolkit = opgen("config", "--toolkit")
    assert toolkit.returncode == 0, toolkit.stderr
    files = {"CMakeLists.txt": CMAKELISTS, "kernel.cpp": KERNEL, "probe_tiling.h": TILING,
             "main.cpp": MAIN}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    build = tmp_path / "build"
    for cmd in (["cmake", "-S", str(tmp_path), "-B", str(build),
                 f"-DTOOLKIT={toolkit.stdout.strip()}"],
                ["cmake", "--build", str(build), "-j", "2"]):
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    headers = build / "include" / "probe_kernels"
    assert sorted(p.name for p in headers.iterdir()) == ["aclrtlaunch_probe_affine.h",
                                                         "aclrtlaunch_probe_fill.h"]
    assert AFFINE_DECL in (headers / "aclrtlaunch_probe_affine.h").read_text().splitlines()
    assert FILL_DECL in (headers / "aclrtlaunch_probe_fill.h").read_text().splitlines()
    run = subprocess.run([str(build / "probe")], cwd=tmp_path, capture_output=True, text=True,
                         check=False, env={"LD_LIBRARY_PATH": str(build)})
    assert run.returncode == 0, run.stderr
    y = np.fromfile(tmp_path / "y.bin", np.float32)
    np.testing.assert_array_equal(y, np.arange(2048, dtype=np.float32) * 2 + 0.5)
    np.testing.assert_array_equal(np.fromfile(tmp_path / "z.bin", np.float32),
                                  np.full(2048, 3.0, np.float32))


def _generate(tmp_path: Path, kernel: str) -> tuple[int, str, Path]:
    src = tmp_path / "k.cpp"
    src.write_text(kernel)
    out = opgen("cxx", "--rewrite", str(src), "-o", str(tmp_path / "out.cpp"),
                "--aclrtlaunch", str(tmp_path / "include"))
    return out.returncode, out.stderr, src.resolve()


@pytest.mark.parametrize("kernel, where, message", [
    ('#include "kernel_operator.h"\ntemplate <typename T>\n'
     "__global__ __aicore__ void probe_tpl(GM_ADDR x) {}\n", "3:28",
     "kernel 'probe_tpl' is a template: opgen makes aclrtlaunch_probe_tpl only for kernels that "
     "are not templates (it cannot tell which instantiations the driver launches); launch it "
     "with <<<>>> from a host function in this file"),
    ('#include "kernel_operator.h"\n'
     'extern "C" __global__ __aicore__ void probe_ref(GM_ADDR x, const float& s) {}\n', "2:73",
     "parameter 2 of kernel 'probe_ref' ('const float& s') is a reference or an array: kernel "
     "parameters are GM pointers, scalars or structs passed by value"),
    ('#include "kernel_operator.h"\n'
     'extern "C" __global__ __aicore__ void probe_unnamed(GM_ADDR x, uint32_t) {}\n', "2:72",
     "parameter 2 of kernel 'probe_unnamed' has no name: name it, aclrtlaunch_probe_unnamed "
     "passes it on"),
])
def test_kernels_it_cannot_handle_are_located_errors(tmp_path: Path, kernel: str, where: str,
                                                    message: str) -> None:
    code, stderr, src = _generate(tmp_path, kernel)
    assert code == 2
    assert stderr == f"{src}:{where}: error: {message}\n"
    assert not (tmp_path / "out.cpp").exists()


def test_a_file_the_frontend_cannot_read_names_the_place(tmp_path: Path) -> None:
    code, stderr, src = _generate(
        tmp_path, '#include "kernel_operator.h"\n'
        'extern "C" __global__ __aicore__ void probe(GM_ADDR x, Missing m) {}\n')
    assert code == 2
    first = stderr.splitlines()[0]
    assert first.startswith(f"{src}:2:") and ": error: " in first and "Missing" in first
    assert "note: opgen reads this file's kernels" in stderr
