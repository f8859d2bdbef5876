"""Every example op as a TensorFlow op: results, static shapes, gradients, SavedModel.

Parametrised over the specs in specs/ (each dtype column of each op), so a new example op is
tested without a new test. Tolerances: float32 results 1e-5 (rtol and atol), float16 1e-2;
gradients from tf.test.compute_gradient (float32 central differences) within 2e-2 absolute.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from opgen.api import load_spec, reference_outputs
from opgen.model import OpSpec
from opgen_runtime.shapes import infer_shape

ROOT = Path(__file__).resolve().parents[2]
SPECS = {p.stem: p for p in sorted((ROOT / "specs").glob("*.*"))
         if p.suffix in (".yaml", ".json")}

# input shapes and attrs of each example op
CASES: dict[str, tuple[dict[str, tuple[int, ...]], dict[str, Any]]] = {
    "element_add": ({"x": (37,), "y": (37,)}, {}),
    "broadcast_add": ({"x": (3, 1, 5), "y": (4, 1)}, {}),
    "leaky_relu": ({"x": (4, 33)}, {"negative_slope": 0.2}),
    "softmax": ({"x": (5, 40)}, {}),
    "layer_norm": ({"x": (6, 24), "gamma": (24,), "beta": (24,)}, {"epsilon": 1e-5}),
    "cast": ({"x": (50,)}, {}),
}
# static shapes: input shapes with unknown dims (None) and unknown rank ("?")
STATIC: dict[str, list[dict[str, Any]]] = {
    "element_add": [{"x": [None], "y": [None]}],
    "broadcast_add": [{"x": [None, 1, 5], "y": [4, 1]}, {"x": "?", "y": [4, 1]}],
    "leaky_relu": [{"x": [None, 7]}, {"x": "?"}],
    "softmax": [{"x": [2, None]}],
    "layer_norm": [{"x": [None, 7, None], "gamma": [None], "beta": [None]}, {"x": "?"}],
    "cast": [{"x": [None, 3]}],
}
SENTINEL = 1_000_003  # an unknown dim, pushed through the runtime's shape rules


def _spec(op: str) -> OpSpec:
    return load_spec(SPECS[op])


def _columns() -> list[tuple[str, int]]:
    return [(op, c.index) for op in CASES for c in _spec(op).combinations()]


def _inputs(spec: OpSpec, column: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes, _ = CASES[spec.op_name]
    combo = next(c for c in spec.combinations() if c.index == column)
    dtypes = dict(combo.dtypes)
    out = {}
    for t in spec.inputs:
        a = rng.standard_normal(shapes[t.name]) * (10 if spec.op_name == "cast" else 1)
        out[t.name] = a.astype(dtypes[t.name].value)
    return out


def _attrs(spec: OpSpec, column: int) -> dict[str, Any]:
    attrs = dict(CASES[spec.op_name][1])
    combo = dict(next(c for c in spec.combinations() if c.index == column).dtypes)
    for t in spec.outputs:
        if t.dtype_from is not None:
            attrs[t.dtype_from] = combo[t.name].value
    return attrs


def _as_tuple(result: Any) -> tuple[Any, ...]:
    return tuple(result) if isinstance(result, tuple | list) else (result,)


def _check(spec: OpSpec, got: tuple[Any, ...], want: dict[str, Any]) -> None:
    for t, g in zip(spec.outputs, got, strict=True):
        w = np.asarray(want[t.name])
        g = np.asarray(g)
        assert g.shape == w.shape, t.name
        assert g.dtype == w.dtype or spec.op_name != "cast", (t.name, g.dtype, w.dtype)
        tol = 1e-2 if g.dtype == np.float16 or w.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol,
                                   atol=tol, err_msg=f"{spec.op_name}.{t.name}")


@pytest.mark.parametrize(("op", "column"), _columns())
def test_eager_and_function_equal_reference(tf_ops: Any, op: str, column: int) -> None:
    import tensorflow as tf

    spec = _spec(op)
    inputs = _inputs(spec, column)
    attrs = _attrs(spec, column)
    want = reference_outputs(spec, inputs, attrs)
    fn = getattr(tf_ops, op)
    args = [tf.constant(inputs[t.name]) for t in spec.inputs]
    _check(spec, _as_tuple(fn(*args, **attrs)), want)
    graph_fn = tf.function(lambda *a: fn(*a, **attrs))
    _check(spec, _as_tuple(graph_fn(*args)), want)


def _expected_static(spec: OpSpec, shapes: dict[str, Any], attrs: dict[str, Any]) -> list[Any]:
    if any(s == "?" for s in shapes.values()):
        return [None for _ in spec.outputs]
    concrete = {k: tuple(SENTINEL if d is None else d for d in v) for k, v in shapes.items()}
    out = []
    for t in spec.outputs:
        rule = t.infer.to_json() if t.infer is not None else {
            "rule": "same_as", "input": spec.inputs[0].name}
        dims = infer_shape(rule, concrete, attrs)
        out.append([None if d == SENTINEL else d for d in dims])
    return out


@pytest.mark.parametrize("op", sorted(STATIC))
def test_static_shapes_follow_the_spec_rule(tf_ops: Any, op: str) -> None:
    import tensorflow as tf

    spec = _spec(op)
    attrs = {**CASES[op][1], **_attrs(spec, 0)}
    combo = dict(next(spec.combinations()).dtypes)
    for shapes in STATIC[op]:
        specs = [tf.TensorSpec(None if shapes[t.name] == "?" else shapes[t.name],
                               combo[t.name].value) for t in spec.inputs if t.name in shapes]
        fn = tf.function(lambda *a: _as_tuple(getattr(tf_ops, op)(*a, **attrs)))
        outputs = fn.get_concrete_function(*specs).structured_outputs
        seen = [r.shape.as_list() if r.shape.rank is not None else None for r in outputs]
        assert seen == _expected_static(spec, shapes, attrs), shapes


GRADIENT_OPS = ["element_add", "broadcast_add", "leaky_relu", "softmax", "layer_norm"]


@pytest.mark.parametrize("op", GRADIENT_OPS)
def test_gradients_match_numeric(tf_ops: Any, op: str) -> None:
    import tensorflow as tf

    spec = _spec(op)
    inputs = _inputs(spec, 0, seed=1)
    attrs = CASES[op][1]
    fn = getattr(tf_ops, op)
    args = [tf.constant(inputs[t.name]) for t in spec.inputs]
    theoretical, numerical = tf.test.compute_gradient(
        lambda *a: _as_tuple(fn(*a, **attrs))[0], args)
    for t, th, nu in zip(spec.inputs, theoretical, numerical, strict=True):
        np.testing.assert_allclose(th, nu, atol=2e-2, err_msg=f"{op}: d/d{t.name}")


def test_cast_gradient_is_tf_cast_gradient(tf_ops: Any) -> None:
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


def _model(tf_ops: Any, op: str) -> tuple[Any, list[np.ndarray]]:
    """A Keras model around the op's layer; the first input has an unknown batch dim."""
    import keras

    spec = _spec(op)
    inputs = _inputs(spec, 0, seed=2)
    layer = getattr(tf_ops, "".join(p.capitalize() for p in op.split("_")))(**_attrs(spec, 0))
    kin = [keras.Input(batch_shape=((None, *inputs[t.name].shape[1:]) if i == 0
                                    else inputs[t.name].shape),
                       dtype=str(inputs[t.name].dtype), name=t.name)
           for i, t in enumerate(spec.inputs)]
    return keras.Model(kin, layer(*kin)), [inputs[t.name] for t in spec.inputs]


def test_saved_model_reloads_in_a_fresh_process(tf_ops: Any, tmp_path: Path) -> None:
    """A Keras model per op, exported as a SavedModel; a new process imports the package (which
    loads the op library) and runs every one."""
    import tensorflow as tf

    manifest = []
    for op in CASES:
        model, args = _model(tf_ops, op)
        tensors = [tf.constant(a) for a in args]
        want = [np.asarray(w) for w in _as_tuple(model(tensors))]
        path = tmp_path / op
        model.export(str(path), verbose=False)
        np.savez(tmp_path / f"{op}.npz", *args)
        np.savez(tmp_path / f"{op}-want.npz", *want)
        manifest.append(op)
    script = textwrap.dedent(f"""
        import json, os, sys
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
        sys.path.insert(0, {str(ROOT / "generated" / "python")!r})
        import numpy as np
        import tensorflow as tf
        import opgen_ops.tf  # loads the op library: registers the ops before loading
        root = {str(tmp_path)!r}
        for op in json.loads({json.dumps(json.dumps(manifest))}):
            loaded = tf.saved_model.load(os.path.join(root, op))
            args = list(np.load(os.path.join(root, op + ".npz")).values())
            want = list(np.load(os.path.join(root, op + "-want.npz")).values())
            tensors = [tf.constant(a) for a in args]
            got = loaded.serve(tensors)
            got = list(got) if isinstance(got, (list, tuple)) else [got]
            for g, w in zip(got, want, strict=True):
                np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6, atol=1e-6)
            print("ok", op)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=240, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == [w for op in manifest for w in ("ok", op)]
