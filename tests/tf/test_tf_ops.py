"""TensorFlow op checks that are not per op. The per-op checks (reference, static shapes,
gradients, SavedModel) are generated with each op and collected by test_tf_generated_ops.py."""

from __future__ import annotations

from typing import Any

import numpy as np


def test_cast_gradient_is_tf_cast_gradient(tf_ops: Any) -> None:
    """Including to an integer type, where there is no gradient (the generated check covers a
    floating column only)."""
    import tensorflow as tf

    x = tf.constant(np.linspace(-3, 3, 20, dtype=np.float32))
    for dst in (tf.float16, tf.int32):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            ours = tf.reduce_sum(tf.cast(tf_ops.cast(x, dst_type=dst), tf.float32) * 3.0)
            theirs = tf.reduce_sum(tf.cast(tf.cast(x, dst), tf.float32) * 3.0)
        g_ours, g_theirs = tape.gradient(ours, x), tape.gradient(theirs, x)
        if g_theirs is None:
            assert g_ours is None
        else:
            np.testing.assert_allclose(g_ours.numpy(), g_theirs.numpy())
