"""Runs the generated per-op TensorFlow tests (generated/python/<package>/tf/tests/) from
`pytest` at the repository root: each generated module's test functions are collected here.
They check eager and tf.function results against the spec's reference (every dtype column),
static shapes with unknown dims and rank, gradients against tf.test.compute_gradient, and a
Keras model per op saved as a SavedModel and run in a fresh process (conftest.py puts
generated/python on sys.path)."""

from __future__ import annotations

import importlib

from opgen_ops.tf import OPS

for _op in OPS:
    _module = importlib.import_module(f"opgen_ops.tf.tests.test_{_op}")
    for _name, _fn in vars(_module).items():
        if _name.startswith("test_") and callable(_fn):
            globals()[_name] = _fn
