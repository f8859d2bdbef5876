"""Checks that the generated per-op TensorFlow tests call
(<output_dir>/python/<package>/tf/tests/test_<op>.py; docs/tensorflow.md, "Tests and
tolerances").

Everything an op's checks need besides its sample shapes and attrs comes from its metadef:
the dtype columns, each output's shape rule, and the reference as the numpy source the
compiler translated (evaluated by the simulator's own evaluator).

Tolerances. Results against the reference: float32 1e-5, float16 1e-2, bfloat16 2e-2 (rtol and
atol), integers and bools exact; the reference runs in float64 on the same inputs, so it is the
exact math the kernel approximates. Gradients against `tf.test.compute_gradient` (central
differences in the sample column's dtype): float32 with a step of 2^-10 within 2e-2 absolute;
when a 16-bit dtype is involved, a step of 2^-6 within 2e-2 absolute and relative. Inputs lie
on a grid (multiples of 2^-8, 0.125 <= |x| <= 4) that float16 represents exactly and that
keeps them away from kinks such as leaky_relu's at 0, so x +- 2^-6 stays on it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .metadef import OpDef
from .metadef import load as load_metadef
from .registry import _evaluate_numpy
from .shapes import ShapeRuleError

FLOAT_TOLERANCES: dict[str, float] = {"delta": 2.0 ** -10, "atol": 2e-2, "rtol": 0.0}
HALF_TOLERANCES: dict[str, float] = {"delta": 2.0 ** -6, "atol": 2e-2, "rtol": 2e-2}

_CLOSE: dict[str, float] = {"float16": 1e-2, "bfloat16": 2e-2, "float32": 1e-5,
                            "float64": 1e-12}

Shape = Sequence[int | None] | None  # a static shape: None dims unknown, None itself any rank


def metadef(test_file: str, relative: str) -> OpDef:
    """The op's metadef, at `relative` from the generated test module."""
    return load_metadef(os.path.normpath(os.path.join(os.path.dirname(test_file), relative)))


def numpy_dtype(name: str) -> np.dtype[Any]:
    """The numpy dtype of a metadef dtype name (bfloat16 is ml_dtypes', which TF ships)."""
    if name == "bfloat16":
        import ml_dtypes

        bfloat16: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
        return bfloat16
    return np.dtype(name)


def _floating(dtype: np.dtype[Any]) -> bool:
    return dtype.kind == "f" or dtype.name == "bfloat16"


def sample(shape: Sequence[int], dtype: str, seed: int = 0) -> np.ndarray[Any, Any]:
    """Deterministic sample input: floats on a grid of 2^-8 with 0.125 <= |x| <= 4, integers in
    [-8, 8) (unsigned: [0, 16)), bools at random."""
    rng = np.random.default_rng(1234 + seed)
    dt = numpy_dtype(dtype)
    if _floating(dt):
        magnitude = rng.integers(32, 1025, tuple(shape)) / 256
        floats: np.ndarray[Any, Any] = magnitude * rng.choice([-1.0, 1.0], tuple(shape))
        return floats.astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, tuple(shape)).astype(bool)
    low = 0 if dt.kind == "u" else -8
    return rng.integers(low, low + 16, tuple(shape)).astype(dt)


# -- the op's columns and reference -----------------------------------------------------------
def column_dtypes(op: OpDef, column: int) -> dict[str, str]:
    """Tensor name -> dtype in dtype column `column` (inputs then outputs)."""
    names = [t.name for t in (*op.inputs, *op.outputs)]
    return dict(zip(names, op.combinations[column], strict=True))


def column_attrs(op: OpDef, attrs: Mapping[str, Any], column: int) -> dict[str, Any]:
    """`attrs` plus the type attrs (`dtype_from`) that select the column's output dtypes."""
    out = dict(attrs)
    dtypes = column_dtypes(op, column)
    for t in op.outputs:
        if t.dtype_from is not None:
            out[t.dtype_from] = dtypes[t.name]
    return out


def inputs(op: OpDef, shapes: Mapping[str, Sequence[int]], column: int,
           absent: Sequence[str] = ()) -> dict[str, Any]:
    """Sample inputs of the column (an absent optional input is None)."""
    dtypes = column_dtypes(op, column)
    return {t.name: None if t.name in absent else sample(shapes[t.name], dtypes[t.name], seed=i)
            for i, t in enumerate(op.inputs)}


def reference(op: OpDef, values: Mapping[str, Any], attrs: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's reference (the metadef's numpy translation), in float64 for float inputs."""
    sources = (op.raw.get("numpy") or {}).get("reference") or {}
    assert sources, f"{op.op_name}: the metadef has no numpy reference"
    env: dict[str, Any] = {}
    for a in op.attrs:
        value = attrs.get(a.name, a.default)
        env[a.name] = np.dtype(value) if a.type == "type" else value
    for name, v in values.items():
        env[name] = v.astype(np.float64) if v is not None and _floating(v.dtype) else v
    for name, source in sources.items():  # in evaluation order
        env[name] = np.asarray(_evaluate_numpy(source, env))
    return {t.name: env[t.name] for t in op.outputs}


def _tuple(result: Any) -> tuple[Any, ...]:
    return tuple(result) if isinstance(result, tuple | list) else (result,)


def assert_close(op: OpDef, got: Sequence[Any], want: Mapping[str, Any],
                 dtypes: Mapping[str, str], what: str) -> None:
    for t, g in zip(op.outputs, got, strict=True):
        g, w = np.asarray(g), np.asarray(want[t.name])
        where = f"{op.op_name} {what}, output '{t.name}'"
        assert g.shape == w.shape, f"{where}: shape {g.shape}, the reference's {w.shape}"
        assert g.dtype == numpy_dtype(dtypes[t.name]), (
            f"{where}: dtype {g.dtype}, the column's {dtypes[t.name]}")
        tol = _CLOSE.get(dtypes[t.name], 0.0)
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol,
                                   atol=tol, err_msg=where)


def _tensors(values: Mapping[str, Any]) -> dict[str, Any]:
    import tensorflow as tf

    return {k: tf.constant(v) for k, v in values.items() if v is not None}


# -- checks ------------------------------------------------------------------------------------
def check_reference(fn: Callable[..., Any], op: OpDef, shapes: Mapping[str, Sequence[int]],
                    attrs: Mapping[str, Any], column: int, absent: Sequence[str] = ()) -> None:
    """Eager and tf.function results equal the spec's reference, in the column's dtypes."""
    import tensorflow as tf

    values = inputs(op, shapes, column, absent)
    attrs = column_attrs(op, attrs, column)
    want = reference(op, values, attrs)
    dtypes = column_dtypes(op, column)
    args = _tensors(values)
    assert_close(op, _tuple(fn(**args, **attrs)), want, dtypes, f"column {column}, eager")
    graph = tf.function(lambda **kw: fn(**kw, **attrs), autograph=False)
    assert_close(op, _tuple(graph(**args)), want, dtypes, f"column {column}, tf.function")


def _broadcast(a: Shape, b: Shape) -> Shape:
    """TensorFlow's static broadcast (BroadcastBinaryOpOutputShapeFnHelper): an unknown dim
    against a known one > 1 is that one; against 1 or another unknown it stays unknown."""
    if a is None or b is None:
        return None
    rank = max(len(a), len(b))
    pa, pb = [1] * (rank - len(a)) + list(a), [1] * (rank - len(b)) + list(b)
    out: list[int | None] = []
    for x, y in zip(pa, pb, strict=True):
        if x is not None and y is not None and x > 1 and y > 1 and x != y:
            raise ShapeRuleError(f"shapes {a} and {b} do not broadcast")
        if x is not None and x > 1:
            out.append(x)
        elif y is not None and y > 1:
            out.append(y)
        else:
            out.append(y if x == 1 else x)
    return out


def static_shape(rule: Mapping[str, Any], shapes: Mapping[str, Shape],
                 attrs: Mapping[str, Any]) -> Shape:
    """What an output's static shape must be, by its rule, from inputs' static shapes."""
    kind = rule["rule"]
    if kind == "same_as":
        return shapes[rule["input"]]
    if kind == "broadcast":
        out: Shape = shapes[rule["inputs"][0]]
        for name in rule["inputs"][1:]:
            out = _broadcast(out, shapes[name])
        return out
    if kind == "reduce":
        shape = shapes[rule["input"]]
        if shape is None:
            return None
        axis, keep = rule["axis"], rule["keepdim"]
        axis = attrs[axis] if isinstance(axis, str) else axis
        keep = attrs[keep] if isinstance(keep, str) else keep
        rank = len(shape)
        axes = {int(a) % rank for a in (axis if isinstance(axis, list | tuple) else [axis])}
        return [1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes]
    assert kind == "explicit", kind
    dims: list[int | None] = []
    for d in rule["dims"]:
        if isinstance(d, Mapping):
            source = shapes[d["input"]]
            dims.append(None if source is None else source[d["index"]])
        else:
            dims.append(int(attrs[d]) if isinstance(d, str) else int(d))
    return dims


def _declared(shape: Shape, declared: tuple[int, ...] | None) -> Shape:
    """A static input shape refined by the spec's declared shape (fixed rank, fixed dims), as
    the op's shape function does before applying the rules."""
    if declared is None:
        return shape
    if shape is None:
        return [None if d < 0 else d for d in declared]
    return [d if d >= 0 else s for s, d in zip(shape, declared, strict=True)]


def check_static_shapes(fn: Callable[..., Any], op: OpDef, cases: Sequence[Mapping[str, Shape]],
                        attrs: Mapping[str, Any], column: int) -> None:
    """Inside tf.function, each output's static shape follows its spec rule, for input
    signatures with unknown dims (None) and unknown rank; an input a case omits is absent."""
    import tensorflow as tf

    attrs = column_attrs(op, attrs, column)
    dtypes = column_dtypes(op, column)
    full = {a.name: a.default for a in op.attrs} | attrs
    for case in cases:
        specs = {n: tf.TensorSpec(None if s is None else list(s), dtypes[n])
                 for n, s in case.items()}
        graph = tf.function(lambda **kw: _tuple(fn(**kw, **attrs)), autograph=False)
        outputs = graph.get_concrete_function(**specs).structured_outputs
        seen = [o.shape.as_list() if o.shape.rank is not None else None for o in outputs]
        refined = {t.name: _declared(case[t.name], t.shape) for t in op.inputs if t.name in case}
        want = []
        for t in op.outputs:
            rule = t.infer or {"rule": "same_as", "input": op.inputs[0].name}
            shape = static_shape(rule, refined, full)
            want.append(None if shape is None else list(shape))
        assert seen == want, f"{op.op_name}: inputs {dict(case)}: static shapes {seen}, " \
                             f"the rules give {want}"


def check_gradients(fn: Callable[..., Any], op: OpDef, shapes: Mapping[str, Sequence[int]],
                    attrs: Mapping[str, Any], column: int, differentiable: Sequence[str],
                    outputs: Sequence[str], tolerances: Mapping[str, float]) -> None:
    """The registered gradient of each output the backward uses, against central differences
    (tf.test.compute_gradient), with respect to every differentiable input."""
    import tensorflow as tf

    values = _tensors(inputs(op, shapes, column))
    attrs = column_attrs(op, attrs, column)
    fixed = {k: v for k, v in values.items() if k not in differentiable}
    names = [t.name for t in op.outputs]
    for out in outputs:
        index = names.index(out)

        def f(*xs: Any, index: int = index) -> Any:
            args = dict(zip(differentiable, xs, strict=True))
            return _tuple(fn(**args, **fixed, **attrs))[index]

        theoretical, numerical = tf.test.compute_gradient(
            f, [values[n] for n in differentiable], delta=tolerances["delta"])
        for name, th, nu in zip(differentiable, theoretical, numerical, strict=True):
            np.testing.assert_allclose(
                th, nu, atol=tolerances["atol"], rtol=tolerances["rtol"],
                err_msg=f"{op.op_name}: d{out}/d{name} against tf.test.compute_gradient")


def _import_root(module_name: str) -> str:
    """The sys.path entry from which `module_name` was imported."""
    import importlib

    path = Path(importlib.import_module(module_name).__file__ or "")
    if path.name == "__init__.py":
        path = path.parent
    for _ in module_name.split("."):
        path = path.parent
    return str(path)


def check_saved_model(layer: Any, package: str, op: OpDef,
                      shapes: Mapping[str, Sequence[int]], column: int,
                      tmp_path: Path) -> None:
    """A Keras model around the op's layer (the first input with an unknown batch dim),
    exported as a SavedModel, then loaded and run in a fresh process that imports `package`
    (which loads the op library) first."""
    import keras
    import tensorflow as tf

    values = list(inputs(op, shapes, column).values())
    kin = [keras.Input(batch_shape=(None, *v.shape[1:]) if i == 0 else v.shape,
                       dtype=str(v.dtype), name=name)
           for i, (name, v) in enumerate(zip((t.name for t in op.inputs), values, strict=True))]
    model = keras.Model(kin, layer(*kin))
    want = [np.asarray(w) for w in _tuple(model([tf.constant(v) for v in values]))]
    exported, data = tmp_path / "model", tmp_path / "data.npz"
    model.export(str(exported), verbose=False)
    np.savez(data, *values, *want)
    script = textwrap.dedent(f"""
        import numpy as np
        import tensorflow as tf
        import {package}  # loads the op library: registers the ops before loading
        data = list(np.load({str(data)!r}).values())
        args, want = data[:{len(values)}], data[{len(values)}:]
        got = tf.saved_model.load({str(exported)!r}).serve([tf.constant(a) for a in args])
        got = list(got) if isinstance(got, (list, tuple)) else [got]
        assert len(got) == len(want), (len(got), len(want))
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6, atol=1e-6)
        print("ok")
    """)
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    root = _import_root(package)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0 and "ok" in done.stdout, (
        f"{op.op_name}: running the SavedModel in a fresh process failed:\n"
        f"{done.stderr[-4000:]}")
