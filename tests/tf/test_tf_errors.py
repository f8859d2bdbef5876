"""Clear errors: an unsupported dtype (in Python and in the graph), a library built against
another TensorFlow version, and differentiating an op whose spec has no backward."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from opgen_runtime import tf_support

ROOT = Path(__file__).resolve().parents[2]


def test_unsupported_dtype_names_the_supported_columns(tf_ops: Any) -> None:
    import tensorflow as tf

    x = tf.ones([4], tf.int32)
    with pytest.raises(tf_support.UnsupportedDtypeError) as exc:
        tf_ops.element_add(x, x)
    assert str(exc.value) == ("element_add(): no supported dtype combination for (x=int32, "
                              "y=int32); specs/element_add.json supports: x=float32, y=float32 "
                              "-> z=float32")
    with pytest.raises(tf_support.UnsupportedDtypeError, match=r"x=float32, dst_type=float32"):
        tf_ops.cast(tf.ones([4]), dst_type=tf.float32)


def test_graph_refuses_an_unsupported_column(tf_ops: Any) -> None:
    """The raw op (what a SavedModel or another wrapper calls) checks the column itself:
    float32 and dst_type=float32 are each allowed, the pair is not."""
    import tensorflow as tf

    raw = tf_ops.LIBRARY.opgen_ops_cast
    with pytest.raises(tf.errors.InvalidArgumentError, match="no supported dtype combination"):
        raw(x=tf.ones([4]), dst_type=tf.float32)

    @tf.function
    def traced(a: Any) -> Any:
        return raw(x=a, dst_type=tf.float32)

    with pytest.raises(ValueError, match=r"cast\(\): no supported dtype combination"):
        traced.get_concrete_function(tf.TensorSpec([None], tf.float32))


def test_library_from_another_tensorflow_is_refused(tf_ops: Any, tmp_path: Path) -> None:
    lib = Path(tf_ops.library_path())
    data = lib.read_bytes()
    marker = f"opgen-tf-library:opgen_ops:tensorflow={tf_support.tensorflow_version()};"
    assert data.count(marker.encode()) == 1
    old = marker.replace(tf_support.tensorflow_version(), "2.20.0")
    other = tmp_path / "libopgen_ops_tf_old.so"
    other.write_bytes(data.replace(marker.encode(), old.encode()))
    with pytest.raises(tf_support.TfVersionMismatchError) as exc:
        tf_support.check_library(other, "opgen_ops")
    assert "was built against TensorFlow 2.20.0, but this process runs TensorFlow " \
           f"{tf_support.tensorflow_version()}" in str(exc.value)
    # the same through the package import with a prebuilt library, in a fresh process
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / "generated" / "python")!r})
        from opgen_runtime.tf_support import TfVersionMismatchError
        try:
            import opgen_ops.tf
        except TfVersionMismatchError as exc:
            print("refused:", exc)
    """)
    env = {**os.environ, "OPGEN_TF_LIBRARY": str(other), "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("refused:") and "TensorFlow 2.20.0" in proc.stdout


def test_missing_gradient_is_a_clear_error(tmp_path: Path) -> None:
    """A project whose op has no `backward:`: generated, built and differentiated in a fresh
    process (its own op library, package and namespace)."""
    (tmp_path / "specs").mkdir()
    shutil.copy(ROOT / "specs" / "element_add.cpp", tmp_path / "specs" / "element_add.cpp")
    (tmp_path / "specs" / "plain_add.json").write_text(
        '{"op_name": "plain_add", "op_type": "PlainAdd",'
        ' "input_desc": [{"name": "x", "dtype": ["float32"], "format": ["ND"], "shape": [-1]},'
        ' {"name": "y", "dtype": ["float32"], "format": ["ND"], "shape": [-1]}],'
        ' "output_desc": [{"name": "z", "dtype": ["float32"], "format": ["ND"], "shape": [-1]}],'
        ' "kernel": {"source": "element_add.cpp", "entry": "element_add"}}\n')
    # no backward and no reference (from which a backward would be derived)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.opgen]\nspec_dir = "specs"\noutput_dir = "generated"\npackage = "noback_ops"\n'
        'namespace = "noback"\n')
    opgen = Path(sys.executable).parent / "opgen"
    gen = subprocess.run([str(opgen), "generate"], cwd=tmp_path, capture_output=True, text=True,
                         check=False)
    assert gen.returncode == 0, gen.stderr
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path / "generated" / "python")!r})
        import tensorflow as tf
        from noback_ops.tf import plain_add
        x = tf.ones([8])
        print(plain_add(x, x).numpy().tolist())
        with tf.GradientTape() as tape:
            tape.watch(x)
            z = plain_add(x, x)
        try:
            tape.gradient(z, x)
        except LookupError as exc:
            print(type(exc).__name__, exc)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}, timeout=240,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == str([2.0] * 8)
    assert lines[1].startswith("MissingGradientError op 'plain_add' has no gradient, so it "
                               "cannot be trained through: its spec has no `backward:`")
