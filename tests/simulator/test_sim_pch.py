"""The precompiled simulator header: kernels whose prologue cannot change what kernel_operator.h
means compile with it (and it is valid, not silently ignored by g++); a kernel that defines
something the headers read before including them compiles without it and keeps its meaning."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt
from opgen_runtime import build

BODY = r"""
using namespace AscendC;
extern "C" __global__ __aicore__ void twice(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                            GM_ADDR tiling)
{
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    zGm.SetGlobalBuffer((__gm__ float*)z, 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    DataCopy(t, xGm, 64);
    Muls(t, t, 2.0f, 64);
    ASSERT(false && "only checked where ASSERT is");
    DataCopy(zGm, t, 64);
}
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(d))
    monkeypatch.setenv("OPGEN_PREBUILT_DIR", "0")  # this cache's own header, not the install's
    monkeypatch.delenv(build.PCH_ENV, raising=False)
    return d / "kernels"


@pytest.mark.parametrize(("prologue", "fits"), [
    ('#include "kernel_operator.h"\n', True),
    ('// a comment\n/* a block\n   comment */\n#pragma once\n#include <cstdint>\n'
     '#include "kernel_operator.h"\n', True),
    ('#include "kernel_tiling/kernel_tiling.h"\n#include "kernel_operator.h"\n', True),
    ('#define K_MAX_SHAPE_DIM 0\n#include "kernel_operator.h"\n', False),
    ('#include "my_tiling.h"\n#include "kernel_operator.h"\n', False),
    ('namespace x {}\n#include "kernel_operator.h"\n', False),
    ('#include "my_kernel_header.h"\n', False),  # kernel_operator.h comes through it, if at all
])
def test_which_kernels_fit_the_precompiled_header(tmp_path: Path, prologue: str,
                                                  fits: bool) -> None:
    src = tmp_path / "k.cpp"
    src.write_text(prologue + BODY)
    assert build._pch_fits(src, ()) is fits
    assert build._pch_fits(src, ("-include", "tiling.h")) is False


def test_the_precompiled_header_is_valid_for_a_kernel_unit(tmp_path: Path, cache: Path) -> None:
    src = tmp_path / "twice.cpp"
    src.write_text('#include "kernel_operator.h"\n' + BODY)
    cxx = build._compiler()
    stub = build.precompiled_header(cxx)
    assert stub is not None and Path(str(stub) + ".gch").is_file()
    # the command the build runs; -H lists the headers read ("! " marks a precompiled header
    # g++ used), and -Winvalid-pch says why one was refused
    cmd = build.unit_command(cxx, src, tmp_path / "twice.o", {"DTYPE_X": "float"}, [], (),
                             runtime=True)
    assert cmd[1:3] == ["-include", str(stub)], cmd
    cmd[1:1] = ["-H", "-Winvalid-pch"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                          env={**os.environ, "LC_ALL": "C"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == f"! {stub}.gch", proc.stderr[:2000]
    assert "invalid-pch" not in proc.stderr and "not used because" not in proc.stderr


def _run(lib: rt.KernelLibrary) -> np.ndarray:
    x = rt.gm_empty(64, np.float32)
    x[...] = np.arange(64, dtype=np.float32)
    z = rt.gm_empty(64, np.float32)
    rt.launch(lib, "twice", [x, z], block_dim=1, tiling=b"")
    return np.asarray(z)


def test_a_kernel_built_with_and_without_it_computes_the_same(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "twice.cpp"
    src.write_text('#include "kernel_operator.h"\n' + BODY)
    with_pch = rt.build_kernel(src, entry="twice")
    assert list((cache / "pch").glob("*/*.gch"))
    monkeypatch.setenv(build.PCH_ENV, "0")
    (cache / "pch").rename(cache / "pch-moved")  # the second build cannot reach it
    without = rt.build_kernel(src, entry="twice", defines={"OPGEN_TEST_VARIANT": "1"})
    assert not list((cache / "pch").glob("*/*.gch"))
    np.testing.assert_array_equal(_run(with_pch), np.arange(64, dtype=np.float32) * 2)
    np.testing.assert_array_equal(_run(without), _run(with_pch))


def test_a_define_before_the_include_keeps_its_meaning(tmp_path: Path, cache: Path) -> None:
    # the kernel asks for checked ASSERTs before including the headers: with the precompiled
    # header (which has ASSERT empty) included first, the request would be lost
    src = tmp_path / "twice.cpp"
    src.write_text('#define OPGEN_SIM_CHECKED_ASSERT 1\n#include "kernel_operator.h"\n' + BODY)
    lib = rt.build_kernel(src, entry="twice")
    with pytest.raises(rt.SimulatorError, match="only checked where ASSERT is"):
        _run(lib)


RAW_STORE = r"""
extern "C" __global__ __aicore__ void raw(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    *((__gm__ float*)z) = 1.0f;  // a raw store: the raw-pointer scan must see this file
}
"""


def _defers(lib: rt.KernelLibrary) -> bool:
    import ctypes
    return bool(ctypes.CDLL(str(lib.path)).opgen_sim_defers_copies())


def test_the_raw_pointer_scan_reads_the_kernel_not_the_header(tmp_path: Path,
                                                               cache: Path) -> None:
    # the scan starts from the unit's main file (__BASE_FILE__), which the precompiled header
    # would freeze to its own name: a kernel with a raw store must still defer nothing
    plain = tmp_path / "twice.cpp"
    plain.write_text('#include "kernel_operator.h"\n' + BODY)
    raw = tmp_path / "raw.cpp"
    raw.write_text('#include "kernel_operator.h"\n' + RAW_STORE)
    assert build._pch_fits(plain, ()) and build._pch_fits(raw, ())
    assert _defers(rt.build_kernel(plain, entry="twice"))
    assert not _defers(rt.build_kernel(raw, entry="raw"))
    assert list((cache / "pch").glob("*/*.gch"))
