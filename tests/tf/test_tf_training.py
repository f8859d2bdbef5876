"""A small Keras model built from generated layers trains: the loss falls."""

from __future__ import annotations

from typing import Any

import numpy as np


def test_keras_model_with_custom_ops_trains(tf_ops: Any) -> None:
    import keras
    import tensorflow as tf

    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 8)).astype(np.float32)
    labels = (x[:, 0] + x[:, 1] > 0).astype(np.int64) + (x[:, 2] > 1).astype(np.int64)
    y = np.eye(3, dtype=np.float32)[labels]

    inputs = keras.Input(shape=(8,))
    h = keras.layers.Dense(16)(inputs)
    h = tf_ops.LeakyRelu(negative_slope=0.1)(h)
    h = tf_ops.LayerNorm()(h)[0]
    h = tf_ops.BroadcastAdd()(h, h)
    logits = keras.layers.Dense(3)(h)
    probs = tf_ops.Softmax()(logits)
    model = keras.Model(inputs, probs)
    # jit_compile=False: XLA has no kernels for custom ops
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="categorical_crossentropy",
                  jit_compile=False)
    history = model.fit(x, y, batch_size=32, epochs=15, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.6 * losses[0], losses
    assert tf.reduce_all(tf.math.is_finite(model(x[:4]))).numpy()
