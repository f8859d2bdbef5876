"""An op tiled by its own op_host (tests/fixtures/msopgen_clamp) as a TensorFlow op: the op's
C++ kernel runs the op_host's InferShape and TilingFunc (embedded in the op library) at each
call."""

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
    python = tiled_project.generate(tmp_path_factory.mktemp("clamp"), "clamp_tf_ops",
                                    "opgen_clamp_tf", tiled_project.OP_HOST_FIXTURE)
    sys.path.insert(0, str(python))
    try:
        yield importlib.import_module("clamp_tf_ops.tf.clamp_scale")
    finally:
        sys.path.remove(str(python))


@pytest.mark.parametrize(("shape", "dtype"), [((64,), np.float32), ((100,), np.float32),
                                              ((3, 37), np.float16), ((16000,), np.float16),
                                              ((300, 1024), np.float32)])
def test_runs_with_the_op_hosts_tiling(op: ModuleType, shape: tuple[int, ...],
                                       dtype: type) -> None:
    import tensorflow as tf

    x = (np.random.default_rng(5).standard_normal(shape) * 10).astype(dtype)
    y = op.clamp_scale(tf.constant(x), gain=1.5, limit=4.0)
    np.testing.assert_array_equal(y.numpy(), np.clip(x * dtype(1.5), dtype(-4), dtype(4)))


def test_in_a_graph_with_its_gradient(op: ModuleType) -> None:
    import tensorflow as tf

    x = tf.constant(np.linspace(-20, 20, 4096, dtype=np.float32))

    @tf.function
    def step(v: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            tape.watch(v)
            total = tf.reduce_sum(op.clamp_scale(v, gain=2.0, limit=6.0))
        return tape.gradient(total, v)

    grad = step(x).numpy()
    np.testing.assert_array_equal(grad, np.where(np.abs(x.numpy() * 2) <= 6, 2.0, 0.0))


def test_failing_op_host_is_an_error(op: ModuleType) -> None:
    import tensorflow as tf

    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="ClampScale: the op_host TilingFunc returned GRAPH_FAILED"):
        op.clamp_scale(tf.ones([64]), mode=1)
