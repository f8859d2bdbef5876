"""An msopgen-style op (its tiling struct declared only in op_host/<op>_tiling.h) builds into
the TensorFlow op library and runs: the library's kernel variants get the spec's tiling header
force-included, as the operator library does."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from types import ModuleType

import numpy as np
import pytest
import tiled_project


@pytest.fixture(scope="module")
def op(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    python = tiled_project.generate(tmp_path_factory.mktemp("tiled"), "tiled_tf_ops",
                                    "opgen_tiled_tf")
    sys.path.insert(0, str(python))
    try:
        yield importlib.import_module("tiled_tf_ops.tf.tiled_scaled_add")
    finally:
        sys.path.remove(str(python))


def test_runs_with_the_op_host_tiling_struct(op: ModuleType) -> None:
    import tensorflow as tf

    rng = np.random.default_rng(3)
    x = rng.standard_normal(5000).astype(np.float32)
    y = rng.standard_normal(5000).astype(np.float32)
    z = op.tiled_scaled_add(tf.constant(x), tf.constant(y), alpha=0.75)
    np.testing.assert_array_equal(z.numpy(), x + np.float32(0.75) * y)


def test_its_gradient(op: ModuleType) -> None:
    import tensorflow as tf

    x = tf.Variable(np.ones(300, np.float32))
    y = tf.Variable(np.ones(300, np.float32))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(op.tiled_scaled_add(x, y, alpha=2.0))
    gx, gy = tape.gradient(loss, [x, y])
    np.testing.assert_array_equal(gx.numpy(), np.ones(300, np.float32))
    np.testing.assert_array_equal(gy.numpy(), np.full(300, 2.0, np.float32))
