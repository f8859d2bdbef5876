"""The registry: the seed's four calls and each of its pitfalls, as a defined behaviour."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from opgen.cli import main as opgen_main
from opgen_runtime import registry
from opgen_runtime.metadef import MetadefError
from opgen_runtime.oplib import LibraryError

from .conftest import METADEF, ROOT, register


def test_register_and_call(reg: registry.Registry, libs: dict[str, Path], opp: Path) -> None:
    register(reg, libs, "leaky_relu")
    x = np.linspace(-4, 4, 1000, dtype=np.float32).reshape(10, 100)
    y = reg.call("leaky_relu", x, negative_slope=0.25)
    np.testing.assert_array_equal(y, np.where(x > 0, x, x * np.float32(0.25)))
    assert (opp / "leaky_relu" / "package.json").is_file()  # installed for other processes


def test_relative_library_path_is_refused_with_the_absolute_path(
        reg: registry.Registry, libs: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(libs["leaky_relu"].parent)
    name = libs["leaky_relu"].name
    with pytest.raises(registry.LibraryPathError) as exc:
        reg.load_operator_library(name)
    assert f"kernel library path '{name}' is relative" in str(exc.value)
    assert f"Did you mean '{libs['leaky_relu']}'?" in str(exc.value)


def test_missing_library_names_the_path(reg: registry.Registry, tmp_path: Path) -> None:
    with pytest.raises(registry.LibraryPathError, match=r"kernel library not found: .*/nope\.so"):
        reg.load_operator_library(tmp_path / "nope.so")


def _elf_header(machine: int) -> bytes:
    head = bytearray(64)
    head[:4] = b"\x7fELF"
    head[4] = 2  # 64-bit
    head[5] = 1  # little endian
    head[16:18] = (3).to_bytes(2, "little")  # ET_DYN
    head[18:20] = machine.to_bytes(2, "little")
    return bytes(head)


@pytest.mark.parametrize(("content", "message"), [
    (b"this is not a library", "is not a kernel library: not an ELF shared object"),
    (_elf_header(183), "was built for another architecture (aarch64)"),
    (b"TRUNCATE", "is truncated"),
])
def test_files_that_are_not_kernel_libraries(reg: registry.Registry, libs: dict[str, Path],
                                             tmp_path: Path, content: bytes,
                                             message: str) -> None:
    bad = tmp_path / "libbad.so"
    if content == b"TRUNCATE":
        content = libs["leaky_relu"].read_bytes()[:4096]
    bad.write_bytes(content)
    with pytest.raises(LibraryError) as exc:
        reg.load_operator_library(bad)
    assert message in str(exc.value)


def test_a_plain_shared_object_is_not_an_operator_library(reg: registry.Registry) -> None:
    import ctypes.util

    libm = ctypes.util.find_library("m")
    path = next((p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6",
                             f"/lib/{libm}") if os.path.exists(p)), None)
    if path is None:
        pytest.skip("no libm found at a known path")
    with pytest.raises(LibraryError, match="not an opgen operator library"):
        reg.load_operator_library(path)


def test_wrong_order_names_the_order(reg: registry.Registry, libs: dict[str, Path]) -> None:
    order = ("load_operator_library -> register_operator -> register_operator_model -> "
             "register_operator_gradient")
    with pytest.raises(registry.RegistrationOrderError) as exc:
        reg.register_operator("leaky_relu")
    assert "before any load_operator_library()" in str(exc.value) and order in str(exc.value)
    reg.load_operator_library(libs["leaky_relu"])
    with pytest.raises(registry.RegistrationOrderError, match="before register_operator"):
        reg.register_operator_model("leaky_relu", METADEF / "leaky_relu.json", "leaky_relu")
    reg.register_operator("leaky_relu")
    with pytest.raises(registry.RegistrationOrderError,
                       match=r"before register_operator_model\('leaky_relu', \.\.\.\)"):
        reg.register_operator_gradient("leaky_relu", METADEF / "leaky_relu.json")


def test_kernel_name_the_library_lacks_lists_what_it_has(reg: registry.Registry,
                                                         libs: dict[str, Path]) -> None:
    reg.load_operator_library(libs["leaky_relu"])
    reg.register_operator("leaky_relu")
    with pytest.raises(registry.KernelNotFoundError) as exc:
        reg.register_operator_model("leaky_relu", METADEF / "leaky_relu.json", "leaky_rel")
    assert "no loaded library has a kernel 'leaky_rel'; did you mean 'leaky_relu'?" in str(
        exc.value)
    assert "(kernels: leaky_relu)" in str(exc.value)


def test_invalid_metadef_gives_the_validators_located_errors(
        reg: registry.Registry, libs: dict[str, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "leaky_relu.json"
    bad.write_text('{\n  "op_name": "leaky_relu",\n  "input_desc": [{"name": "x", "dtype": '
                   '["flaot32"]}],\n  "output_desc": [{"name": "y", "dtype": ["float32"]}]\n}\n')
    reg.load_operator_library(libs["leaky_relu"])
    reg.register_operator("leaky_relu")
    with pytest.raises(MetadefError) as exc:
        reg.register_operator_model("leaky_relu", bad, "leaky_relu")
    assert opgen_main(["validate", "-q", str(bad)]) == 2
    validator_lines = [line for line in capsys.readouterr().err.splitlines() if ": error: " in line]
    assert validator_lines
    for line in validator_lines:
        assert line in str(exc.value)


def test_registering_twice(reg: registry.Registry, libs: dict[str, Path],
                           tmp_path: Path) -> None:
    register(reg, libs, "leaky_relu")
    register(reg, libs, "leaky_relu")  # identical: a no-op
    other = tmp_path / "leaky_relu.json"
    text = (METADEF / "leaky_relu.json").read_text().replace('"default": 0.01', '"default": 0.2')
    other.write_text(text)
    with pytest.raises(registry.RegistrationConflictError) as exc:
        reg.register_operator_model("leaky_relu", other, "leaky_relu")
    assert "op 'leaky_relu' is already registered from" in str(exc.value)


def test_backward_without_gradient_names_the_spec_key(reg: registry.Registry,
                                                       libs: dict[str, Path]) -> None:
    register(reg, libs, "leaky_relu")
    x = np.ones(32, np.float32)
    with pytest.raises(registry.GradientNotRegisteredError) as exc:
        registry._backward(reg, "leaky_relu", [x], [x], {})
    assert "op 'leaky_relu' has no registered gradient" in str(exc.value)
    assert "Add `backward:` to its spec" in str(exc.value)
    reg.register_operator_gradient("leaky_relu", METADEF / "leaky_relu.json")
    (gx,) = registry._backward(reg, "leaky_relu", [-x], [x], {"negative_slope": 0.5})
    np.testing.assert_allclose(gx, np.full(32, 0.5, np.float32))


def test_an_op_never_registered_says_how(reg: registry.Registry) -> None:
    with pytest.raises(registry.OpNotRegisteredError) as exc:
        reg.call("no_such_op", np.ones(4, np.float32))
    assert "op 'no_such_op' is not registered in this process nor installed in" in str(exc.value)
    assert "load_operator_library -> register_operator -> register_operator_model" in str(
        exc.value)


def test_other_processes_find_installed_ops(reg: registry.Registry, libs: dict[str, Path],
                                            opp: Path) -> None:
    register(reg, libs, "element_add")
    fresh = registry.Registry()  # what another worker sees: nothing registered in-process
    x = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(fresh.call("element_add", x, x), 2 * x)


@pytest.mark.parametrize(("args", "attrs", "message"), [
    ([np.ones(8, np.int32)], {}, "leaky_relu(): no supported dtype combination for (x=int32); "
                                 "specs/leaky_relu.yaml supports: x=float32 -> y=float32; "
                                 "x=float16 -> y=float16"),
    ([], {}, "leaky_relu() takes 1 tensor input(s) (x), got 0"),
    ([np.ones(8, np.float32)], {"slope": 1.0}, "leaky_relu() got an unknown attr 'slope'"),
    ([np.ones(8, np.float32)], {"negative_slope": "a"},
     "leaky_relu(): attr 'negative_slope' must be float, got str 'a'"),
])
def test_call_checks_name_op_argument_and_fix(reg: registry.Registry, libs: dict[str, Path],
                                              args: list[np.ndarray], attrs: dict[str, object],
                                              message: str) -> None:
    register(reg, libs, "leaky_relu")
    with pytest.raises(registry.OpCallError) as exc:
        reg.call("leaky_relu", *args, **attrs)
    assert message in str(exc.value)


def test_call_checks_rank_and_required_attrs(reg: registry.Registry,
                                             libs: dict[str, Path]) -> None:
    register(reg, libs, "element_add")
    with pytest.raises(registry.OpCallError, match=r"input 'x' must have rank 1 \(spec shape "
                                                   r"\[-1\]\), got shape \(2, 2\)"):
        reg.call("element_add", np.ones((2, 2), np.float32), np.ones((2, 2), np.float32))
    register(reg, libs, "cast")
    with pytest.raises(registry.OpCallError, match="missing the required attr 'dst_type'"):
        reg.call("cast", np.ones(8, np.float32))
    out = reg.call("cast", np.array([1.7, -1.7] * 8, np.float32), dst_type="int32")
    assert out.dtype == np.int32 and list(out[:2]) == [1, -1]


def test_optional_inputs_and_several_outputs(reg: registry.Registry,
                                             libs: dict[str, Path]) -> None:
    register(reg, libs, "layer_norm")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 64)).astype(np.float32)
    gamma = rng.standard_normal(64).astype(np.float32)
    y, mean, rstd = reg.call("layer_norm", x, gamma, None, epsilon=1e-5)
    ref_mean = x.mean(-1, keepdims=True)
    ref_rstd = 1 / np.sqrt(((x - ref_mean) ** 2).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(mean, ref_mean, atol=1e-5)
    np.testing.assert_allclose(rstd, ref_rstd, rtol=1e-4)
    np.testing.assert_allclose(y, (x - ref_mean) * ref_rstd * gamma, atol=1e-4)


def test_generated_registration_module(opp: Path, monkeypatch: pytest.MonkeyPatch,
                                       tmp_path: Path) -> None:
    """The generated package registers in the seed's order, idempotently, from any cwd."""
    import importlib
    import sys

    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(ROOT / "generated" / "python"))
    registry.REGISTRY.reset()
    # Restored afterwards: other tests (tests/torch, tests/tf) hold the package's modules, and
    # importing opgen_ops.tf twice would register its gradients twice.
    for name in [m for m in sys.modules if m.startswith("opgen_ops")]:
        monkeypatch.delitem(sys.modules, name)
    package = importlib.import_module("opgen_ops")
    package.register("leaky_relu")
    module = importlib.import_module("opgen_ops.registration.leaky_relu")
    module.register()  # again: a no-op
    entry = registry.REGISTRY.lookup("leaky_relu")
    assert entry.gradient is not None and Path(module.METADEF).is_absolute()
    x = np.array([-2.0, 2.0] * 16, np.float32)
    assert registry.call("leaky_relu", x)[0] == np.float32(-0.02)
    registry.REGISTRY.reset()


def test_op_package_install_replaces_atomically(reg: registry.Registry, libs: dict[str, Path],
                                                opp: Path) -> None:
    register(reg, libs, "leaky_relu")
    leftovers = [p.name for p in opp.iterdir() if p.name.startswith(".") and p.is_dir()]
    assert leftovers == []
    shutil.rmtree(opp / "leaky_relu")
    fresh = registry.Registry()
    with pytest.raises(registry.OpNotRegisteredError):
        fresh.call("leaky_relu", np.ones(8, np.float32))
