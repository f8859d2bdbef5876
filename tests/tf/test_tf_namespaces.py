"""TensorFlow op names are global in a process: the op prefix (the namespace, default the
package name) keeps the same ops of two generated packages apart, so both load and run in one
process; two packages with the same prefix are an OpNameClashError naming both, raised before
the second library is built or loaded."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from opgen.cli import main

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
    base = tmp_path_factory.mktemp("tf_namespaces")
    return {"tfa_ops": _project(base / "a", "tfa_ops"),
            "tfb_ops": _project(base / "b", "tfb_ops"),
            "tfc_ops": _project(base / "c", "tfc_ops", namespace="tfa_ops")}


def _run(script: str, paths: list[Path]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": os.pathsep.join(
        [*(str(p) for p in paths), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                          capture_output=True, text=True, check=False, timeout=900)


def test_two_packages_with_the_same_op_names_in_one_process(
        projects: dict[str, Path]) -> None:
    done = _run("""
        import numpy as np
        import tensorflow as tf
        import tfa_ops.tf as a
        import tfb_ops.tf as b

        assert a.library_path() != b.library_path()
        x = tf.linspace(-4.0, 4.0, 64)
        want = np.where(x.numpy() > 0, x.numpy(), x.numpy() * 0.25)
        for ops in (a, b):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = ops.leaky_relu(x, negative_slope=0.25)
            np.testing.assert_allclose(y.numpy(), want, rtol=1e-6)
            np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                                       np.where(x.numpy() > 0, 1.0, 0.25), rtol=1e-6)
            np.testing.assert_allclose(ops.LeakyRelu(negative_slope=0.25)(x).numpy(), want,
                                       rtol=1e-6)
        print("both usable")
        """, [projects["tfa_ops"], projects["tfb_ops"]])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "both usable" in done.stdout


def test_a_prefix_clash_is_a_python_exception(projects: dict[str, Path]) -> None:
    done = _run("""
        import tensorflow as tf
        import tfa_ops.tf as a
        from opgen_runtime.namespaces import OpNameClashError
        try:
            import tfc_ops.tf
        except OpNameClashError as exc:
            print("CLASH:", exc)
        else:
            raise SystemExit("no clash reported")
        print("still usable", float(a.leaky_relu(tf.constant([-2.0]), negative_slope=0.5)[0]))
        """, [projects["tfa_ops"], projects["tfc_ops"]])
    assert done.returncode == 0, done.stdout + done.stderr
    message = done.stdout.split("CLASH: ", 1)[1]
    assert message.startswith("package 'tfc_ops' (at ")
    assert ("cannot register its TensorFlow ops: TfaOps>LeakyRelu is already registered in "
            "this process by package 'tfa_ops'") in message
    assert '`namespace = "tfc_ops"` under [tool.opgen]' in message
    assert "still usable -1.0" in done.stdout
