"""The simulator's API instance objects (opgen_sim/instances.h): a kernel unit compiled with the
precompiled header declares the listed APIs extern and calls them in the instance objects of the
dtypes it uses, which its library links; the results are the same as a kernel that instantiates
them itself, and a rule violation inside an instance still names the kernel's line."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt
from opgen_runtime import build
from opgen_runtime.errors import LocalMemoryOutOfBounds

from .exp_ref import expf

KERNEL = r"""#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void mix(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                          GM_ADDR tiling)
{
    GlobalTensor<float> xGm, zGm;
    GlobalTensor<half> yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 256);
    yGm.SetGlobalBuffer((__gm__ half*)y, 256);
    zGm.SetGlobalBuffer((__gm__ float*)z, 256);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4 * 256 * sizeof(float));
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<float> b = a[256];
    LocalTensor<float> c = a[512];
    LocalTensor<half> h = a[768].ReinterpretCast<half>();
    DataCopy(a, xGm, 256);
    DataCopy(h, yGm, 256);
    Cast(b, h, RoundMode::CAST_NONE, 256);
    Mul(c, a, b, 256);
    Adds(c, c, 1.0f, 256);
    Exp(b, a, 256);
    Add(c, c, b, 256);
    LeakyRelu(c, c, 0.5f, 256);
    DataCopy(zGm, c, 256);
}
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(build.PCH_ENV, raising=False)
    monkeypatch.delenv(build.STRICT_ENV, raising=False)
    return tmp_path / "cache" / "kernels"


def _expected(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    b = y.astype(np.float32)
    c = (x * b).astype(np.float32) + np.float32(1)
    c = c + expf(x)  # the simulator's Exp (numpy's float32 exp is not it)
    return np.where(c >= 0, c, c * np.float32(0.5)).astype(np.float32)


def _run(lib: rt.KernelLibrary, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    gx, gy, gz = rt.gm_empty(256, np.float32), rt.gm_empty(256, np.float16), \
        rt.gm_empty(256, np.float32)
    gx[...] = x
    gy[...] = y
    rt.launch(lib, "mix", [gx, gy, gz], block_dim=1, tiling=b"")
    return np.asarray(gz).copy()


def test_the_instance_dtypes_are_the_headers(root: Path) -> None:
    text = (root / "runtime" / "include" / "opgen_sim" / "instances.h").read_text()
    m = re.search(r"#define OPGEN_SIM_INSTANCE_DTYPES\(X\) (.*)", text)
    assert m is not None
    assert re.findall(r"X\((\w+)\)", m.group(1)) == list(build.INSTANCE_DTYPES)


@pytest.mark.parametrize(("symbols", "dtypes"), [
    (["_ZN7AscendC3AddIfEEvRKNS_11LocalTensorIT_EES5_S5_RKi"], ["float"]),
    (["_ZN7AscendC4CastIDF16_fEEvRKNS_11LocalTensorIT_EERKNS2_IT0_EERKNS_9RoundModeEj"],
     ["half"]),
    (["_ZN7AscendC11DataCopyPadIiLNS_11PaddingModeE0EEEvRKNS_12GlobalTensorIT_EERKNS_11Local"
      "TensorIS3_EERKNS_17DataCopyExtParamsE", "_ZN7AscendC4MulsIsEEvRKNS_11LocalTensorIT_EES5_"
      "RKN9opgen_sim2IdIS2_E4typeERKi"], ["int16_t", "int32_t"]),
    # a member of a class template, a non-template, another namespace, a dtype not instanced
    (["_ZN7AscendC4TBufILNS_9TPositionE11EE13GetWithOffsetIfEENS_11LocalTensorIT_EEjj",
      "_ZN7AscendC5TPipe7ReserveEmjj", "_ZN9opgen_sim4FailENS_9ErrorKindEPKcRKNSt7__cxx1112basic"
      "_stringIcSt11char_traitsIcESaIcEEE", "_ZN7AscendC3AddIhEEvRKNS_11LocalTensorIT_EES5_S5_RKi",
      "memcpy"], []),
])
def test_which_instance_objects_a_kernel_calls(symbols: list[str], dtypes: list[str]) -> None:
    assert build.instance_dtypes(symbols) == dtypes


def test_a_kernel_calls_the_instances_and_computes_as_one_that_instantiates_them(
        tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "mix.cpp"
    src.write_text(KERNEL)
    # the unit the build compiles: the listed APIs are undefined in it, the rest defined
    cxx = build._compiler()
    obj = tmp_path / "mix.o"
    cmd = build.unit_command(cxx, src, obj, {}, [], [], runtime=True)
    assert "opgen_sim/extern_instances.h" in cmd
    subprocess.run(cmd, check=True, capture_output=True)
    undefined = build._undefined_symbols(obj)
    demangled = subprocess.run(["c++filt"], input="\n".join(undefined), capture_output=True,
                               text=True, check=True).stdout
    for api in ("AscendC::Mul<float>", "AscendC::Adds<float>", "AscendC::Exp<float>",
                "AscendC::Cast<float, _Float16>", "AscendC::DataCopy<_Float16>"):
        assert api in demangled, api
    assert build.instance_dtypes(undefined) == ["half", "float"]

    rng = np.random.default_rng(5)
    x = rng.uniform(-3, 3, 256).astype(np.float32)
    y = rng.uniform(-3, 3, 256).astype(np.float16)
    with_instances = rt.build_kernel(src, entry="mix")
    out = _run(with_instances, x, y)
    np.testing.assert_array_equal(out, _expected(x, y))
    monkeypatch.setenv(build.PCH_ENV, "0")  # compiled whole: every API instantiated in the unit
    whole = rt.build_kernel(src, entry="mix", defines={"OPGEN_TEST_WHOLE": "1"})
    assert whole.path != with_instances.path
    np.testing.assert_array_equal(_run(whole, x, y), out)


def test_a_violation_inside_an_instance_names_the_kernel_line(
        tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    src = tmp_path / "mix.cpp"
    # Add over more elements than the LocalTensor holds: the check runs in the float instance
    src.write_text(KERNEL.replace("Add(c, c, b, 256);", "Add(c, c, b, 4096);"))
    lib = rt.build_kernel(src, entry="mix")
    with pytest.raises(LocalMemoryOutOfBounds) as exc:
        _run(lib, np.zeros(256, np.float32), np.zeros(256, np.float16))
    line = KERNEL.splitlines().index("    Add(c, c, b, 256);") + 1
    assert "Add" in str(exc.value) and f"mix.cpp:{line}" in str(exc.value), str(exc.value)


LEVEL0 = r"""#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void level0(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                             GM_ADDR tiling)
{
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 256);
    yGm.SetGlobalBuffer((__gm__ float*)y, 256);
    zGm.SetGlobalBuffer((__gm__ float*)z, 256);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * 256 * sizeof(float));
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<float> b = a[256];
    LocalTensor<float> c = a[512];
    DataCopy(a, xGm, 256);
    DataCopy(b, yGm, 256);
    uint64_t mask[2] = {0x00000000FFFFFFFFULL, 0};  // the first 32 of each repeat's 64 lanes
    Duplicate(c, 0.0f, 256);
    Add(c, a, b, mask, 4, {1, 1, 1, 8, 8, 8});
    Muls(c, c, 2.0f, static_cast<uint64_t>(64), 4, {1, 1, 8, 8});
    Abs(c, c, static_cast<uint64_t>(64), 4, {1, 1, 8, 8});
    DataCopy(zGm, c, 256);
}
"""


def test_the_mask_and_repeat_forms_are_instances_too(tmp_path: Path, cache: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "level0.cpp"
    src.write_text(LEVEL0)
    obj = tmp_path / "level0.o"
    subprocess.run(build.unit_command(build._compiler(), src, obj, {}, [], [], runtime=True),
                   check=True, capture_output=True)
    demangled = subprocess.run(["c++filt"], input="\n".join(build._undefined_symbols(obj)),
                               capture_output=True, text=True, check=True).stdout
    for api in ("AscendC::Add<float, true>(", "AscendC::Muls<float, true>(",
                "AscendC::Abs<float, true>("):
        assert api in demangled, api

    rng = np.random.default_rng(9)
    x = rng.uniform(-3, 3, 256).astype(np.float32)
    y = rng.uniform(-3, 3, 256).astype(np.float32)
    lanes = (np.arange(256) % 64) < 32
    expected = np.abs(np.where(lanes, x + y, np.float32(0)) * np.float32(2)).astype(np.float32)

    def run(lib: rt.KernelLibrary) -> np.ndarray:
        gx, gy, gz = (rt.gm_empty(256, np.float32) for _ in range(3))
        gx[...], gy[...] = x, y
        rt.launch(lib, "level0", [gx, gy, gz], block_dim=1, tiling=b"")
        return np.asarray(gz).copy()

    out = run(rt.build_kernel(src, entry="level0"))
    np.testing.assert_array_equal(out, expected)
    monkeypatch.setenv(build.PCH_ENV, "0")
    np.testing.assert_array_equal(run(rt.build_kernel(src, entry="level0",
                                                      defines={"OPGEN_TEST_WHOLE": "1"})), out)


def test_without_nm_every_instance_object_is_linked(tmp_path: Path, cache: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def no_nm(obj: Path) -> list[str]:
        raise FileNotFoundError(2, "No such file or directory", "nm")

    monkeypatch.setattr(build, "_undefined_symbols", no_nm)
    src = tmp_path / "mix.cpp"
    src.write_text(KERNEL)
    rng = np.random.default_rng(3)
    x = rng.uniform(-3, 3, 256).astype(np.float32)
    y = rng.uniform(-3, 3, 256).astype(np.float16)
    np.testing.assert_array_equal(_run(rt.build_kernel(src, entry="mix"), x, y), _expected(x, y))
