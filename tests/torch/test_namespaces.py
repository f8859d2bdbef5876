"""Namespaces: two generated packages with the same op names load side by side in one process
(the torch namespace defaults to the package name), and two packages registering the same
`namespace::op` is a Python exception naming both packages and the fix, not torch's abort
("Tried to register an operator (...) multiple times" from the library's static initializers).

Each project is generated from specs/leaky_relu.* with `opgen generate` in a temporary folder;
the ops run in fresh processes (the C++ kernel libraries are built on first use, then cached)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from opgen.cli import main
from opgen_runtime import namespaces
from opgen_runtime.namespaces import OpNameClashError

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]


def _project(where: Path, package: str, namespace: str | None = None) -> Path:
    """A project of one op (leaky_relu) under `package`; returns its generated/python."""
    (where / "specs").mkdir(parents=True)
    for suffix in (".yaml", ".cpp"):
        shutil.copy(ROOT / "specs" / f"leaky_relu{suffix}", where / "specs")
    table = f'[tool.opgen]\npackage = "{package}"\n'
    if namespace is not None:
        table += f'namespace = "{namespace}"\n'
    (where / "pyproject.toml").write_text(table, "utf-8")
    cwd = os.getcwd()
    os.chdir(where)
    try:
        assert main(["generate"]) == 0
    finally:
        os.chdir(cwd)
    return where / "generated" / "python"


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("namespaces")
    return {"nsa_ops": _project(base / "a", "nsa_ops"),
            "nsb_ops": _project(base / "b", "nsb_ops"),
            # the same namespace as nsa_ops: a clash
            "nsc_ops": _project(base / "c", "nsc_ops", namespace="nsa_ops")}


def _run(script: str, paths: list[Path]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [*(str(p) for p in paths), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                          capture_output=True, text=True, check=False, timeout=900)


def test_the_namespace_defaults_to_the_package(projects: dict[str, Path]) -> None:
    text = (projects["nsb_ops"] / "nsb_ops" / "torch" / "leaky_relu.py").read_text()
    assert 'NAMESPACE = "nsb_ops"' in text and "torch.ops.nsb_ops_cpu.leaky_relu" in text
    tf_text = (projects["nsb_ops"] / "nsb_ops" / "tf" / "cc" / "leaky_relu.h").read_text()
    assert 'Registration opgen_tf_leaky_relu_registration(\n    "NsbOps>LeakyRelu"' in tf_text


def test_two_packages_with_the_same_op_names_in_one_process(
        projects: dict[str, Path]) -> None:
    done = _run("""
        import torch
        import nsa_ops.torch.leaky_relu as a
        import nsb_ops.torch.leaky_relu as b
        from nsa_ops.torch import _library as la
        from nsb_ops.torch import _library as lb

        assert la.PATH is not None and lb.PATH is not None and la.PATH != lb.PATH
        x = torch.linspace(-4, 4, 64)
        want = torch.where(x > 0, x, x * 0.25)
        for ns in ("nsa_ops", "nsb_ops", "nsa_ops_cpu", "nsb_ops_cpu"):
            got = getattr(torch.ops, ns).leaky_relu(x, negative_slope=0.25)
            torch.testing.assert_close(got, want)
        for module in (a, b):
            torch.testing.assert_close(module.leaky_relu(x, negative_slope=0.25), want)
            xg = x.clone().requires_grad_()
            module.LeakyReluModule(negative_slope=0.25)(xg).sum().backward()
            torch.testing.assert_close(xg.grad, torch.where(x > 0, 1.0, 0.25))
        print("both usable")
        """, [projects["nsa_ops"], projects["nsb_ops"]])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "both usable" in done.stdout


def test_a_namespace_clash_is_a_python_exception(projects: dict[str, Path]) -> None:
    """nsc_ops has nsa_ops's namespace: importing it after nsa_ops raises before its library
    is built or loaded, and nsa_ops keeps working."""
    done = _run("""
        import torch
        import nsa_ops.torch.leaky_relu
        from opgen_runtime.namespaces import OpNameClashError
        try:
            import nsc_ops.torch.leaky_relu
        except OpNameClashError as exc:
            print("CLASH:", exc)
        else:
            raise SystemExit("no clash reported")
        x = torch.linspace(-4, 4, 16)
        torch.testing.assert_close(torch.ops.nsa_ops.leaky_relu(x, negative_slope=0.5),
                                   torch.where(x > 0, x, x * 0.5))
        print("still usable")
        """, [projects["nsa_ops"], projects["nsc_ops"]])
    assert done.returncode == 0, done.stdout + done.stderr
    message = done.stdout.split("CLASH: ", 1)[1]
    assert message.startswith("package 'nsc_ops' (at ")
    assert ("cannot register its PyTorch ops: nsa_ops::leaky_relu (and nsa_ops_cpu::leaky_relu) "
            "is already registered in this process by package 'nsa_ops'") in message
    assert '`namespace = "nsc_ops"` under [tool.opgen]' in message
    assert "run `opgen generate`" in message
    assert "still usable" in done.stdout
    assert "Tried to register" not in done.stderr


def test_a_name_torch_already_has_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name registered by something other than an opgen package (another extension): the
    claim fails before anything is registered, and names the fix."""
    monkeypatch.setattr(namespaces, "_CLAIMS", {})
    with pytest.raises(OpNameClashError, match=r"package 'p1' \(at /x\) cannot register its "
                       r"PyTorch ops: ns::op is already registered in this process by something "
                       r"else .*`namespace = \"p1\"`"):
        namespaces.claim("PyTorch", "p1", "/x", ["ns::op"], exists=lambda n: True,
                         key="namespace")
    assert namespaces.owner("PyTorch", "ns::op") is None  # all or nothing
    namespaces.claim("PyTorch", "p1", "/x", ["ns::op"], exists=lambda n: False, key="namespace")
    namespaces.claim("PyTorch", "p1", "/x", ["ns::op"], exists=lambda n: True, key="namespace")
    assert namespaces.owner("PyTorch", "ns::op") == "p1"  # a package may claim its names again
    with pytest.raises(OpNameClashError, match="by package 'p1' \\(loaded from /x\\)"):
        namespaces.claim("PyTorch", "p2", "/y", ["ns::other", "ns::op"],
                         exists=lambda n: False, key="namespace")
    assert namespaces.owner("PyTorch", "ns::other") is None
