"""build_kernel: content-addressed cache, parallel builds, concurrent builders, clear errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import opgen_runtime as rt

KERNEL = r"""
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {
    (void)x; (void)workspace; (void)tiling; %s
}
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(d))
    return d / "kernels"


def write(tmp_path: Path, name: str, body: str = "") -> Path:
    p = tmp_path / name
    p.write_text(KERNEL % body)
    return p


def test_unchanged_kernel_does_not_run_gxx(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = write(tmp_path, "a.cpp")
    lib = rt.build_kernel(src, entry="k")
    assert lib.path.parent == cache and lib.path.is_file()

    def no_compiler(*args: object, **kwargs: object) -> None:
        raise AssertionError("g++ ran for an unchanged kernel")

    monkeypatch.setattr(subprocess, "run", no_compiler)
    again = rt.build_kernel(src, entry="k")
    assert again.path == lib.path
    # A changed define is another kernel: it must compile (and here, hit the patched run).
    with pytest.raises(AssertionError, match="g\\+\\+ ran"):
        rt.build_kernel(src, entry="k", defines={"DTYPE_X": "float"})


def test_compile_error_names_the_users_file_and_line(tmp_path: Path, cache: Path) -> None:
    src = write(tmp_path, "broken.cpp", "int v = undeclared_name;")
    with pytest.raises(rt.BuildError) as info:
        rt.build_kernel(src, entry="k")
    assert f"{src}:4:" in str(info.value)  # the line of undeclared_name in the user file
    assert "undeclared_name" in str(info.value)
    assert not list(cache.glob("*.so")) and not list(cache.glob("*.tmp*"))


def test_missing_entry(tmp_path: Path, cache: Path) -> None:
    src = write(tmp_path, "a.cpp")
    with pytest.raises(rt.BuildError, match="no kernel entry 'other'"):
        rt.build_kernel(src, entry="other")


def test_build_kernels_in_parallel_keeps_order(tmp_path: Path, cache: Path) -> None:
    srcs = [write(tmp_path, f"k{i}.cpp", f"volatile int v = {i}; (void)v;") for i in range(4)]
    libs = rt.build_kernels([rt.BuildRequest(s, entry="k") for s in srcs])
    assert [lib.source for lib in libs] == srcs
    assert len({lib.path for lib in libs}) == 4


def test_header_change_invalidates_cache(tmp_path: Path, cache: Path) -> None:
    (tmp_path / "inc.h").write_text("#define VALUE 1\n")
    src = tmp_path / "h.cpp"
    src.write_text('#include "inc.h"\n' + KERNEL % "")
    first = rt.build_kernel(src, entry="k")
    (tmp_path / "inc.h").write_text("#define VALUE 2\n")
    assert rt.build_kernel(src, entry="k").path != first.path


BUILDER = """
import sys
import opgen_runtime as rt
print(rt.build_kernel(sys.argv[1], entry="k").path)
"""


def test_eight_processes_build_the_same_kernel(tmp_path: Path, cache: Path) -> None:
    src = write(tmp_path, "same.cpp", "volatile int v = 42; (void)v;")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", BUILDER, str(src)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    paths = {o[0].strip() for o in outs}
    assert len(paths) == 1
    assert [p.name for p in cache.iterdir() if p.suffix == ".so"] == [Path(paths.pop()).name]
    assert not list(cache.glob(".*tmp*"))


ARCH_KERNEL = r"""
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void arch(GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)
{
    AscendC::GlobalTensor<int32_t> o;
    o.SetGlobalBuffer((__gm__ int32_t*)out, 4);
#if __CCE_AICORE__ == 220
    o.SetValue(0, 220);  // the 910B's path of CANN's kernels (DataCopyPad, ...)
#else
    o.SetValue(0, -1);
#endif
    o.SetValue(1, __NPU_ARCH__);
#ifdef __DAV_C220_VEC__
    o.SetValue(2, 1);  // a vector core's compile: CANN's vector-only kernel bodies
#else
    o.SetValue(2, 0);
#endif
#if defined(__DAV_C220__) && defined(__DAV_VEC__) == defined(__DAV_C220_VEC__)
    o.SetValue(3, 1);
#else
    o.SetValue(3, 0);
#endif
}
"""


@pytest.mark.parametrize("cube", [False, True])
def test_a_kernel_is_compiled_as_the_910b_vector_cores_code(tmp_path: Path, cache: Path,
                                                             cube: bool) -> None:
    """__CCE_AICORE__ 220, __NPU_ARCH__ 2201 and __DAV_C220__, as CANN's compiler gives the
    910B's kernels, and __DAV_C220_VEC__ (a vector core's compile), but for a kernel that names
    the cube core's macros (compiled per core type by CANN): that one gets neither core's."""
    src = tmp_path / "arch.cpp"
    src.write_text(ARCH_KERNEL + ("// __DAV_C220_CUBE__ code lives elsewhere\n" if cube else ""))
    lib = rt.build_kernel(src, entry="arch")
    out = rt.gm_empty(4, "int32")
    rt.launch(lib, "arch", [out], block_dim=1, tiling=b"")
    assert list(out) == [220, 2201, 0 if cube else 1, 1]
