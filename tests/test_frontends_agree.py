"""The three call paths of an op — the registry (numpy/ACL), the generated PyTorch op and the
generated TensorFlow op — give the same outcome for the same arguments: the same result, or
the same error message (docs/reliability.md, "Frontends agree").

A table of good, bad and edge arguments per example op (specs/*): wrong dtype and rank, bool or
None for a typed attr, out-of-range attrs, broken constraints (layer_norm's gamma), shapes that
do not broadcast, empty and 0-d tensors, non-contiguous inputs. The error classes follow the
documented mapping: the registry and PyTorch raise OpCallError (TypeError) / OpValueError
(ValueError and TypeError); TensorFlow raises OpCallError for attrs, UnsupportedDtypeError for
dtypes and tf.errors.InvalidArgumentError for values.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
torch = pytest.importorskip("torch")
tf = pytest.importorskip("tensorflow")

from opgen_runtime import registry  # noqa: E402
from opgen_runtime.metadef import load  # noqa: E402
from opgen_runtime.oplib import build_operator_library  # noqa: E402
from opgen_runtime.registry import OpCallError, OpValueError  # noqa: E402
from opgen_runtime.tf_support import UnsupportedDtypeError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
METADEF = ROOT / "generated" / "metadef"
GENERATED_PYTHON = ROOT / "generated" / "python"
OPS = ("element_add", "leaky_relu", "softmax", "layer_norm", "broadcast_add", "cast")


@dataclass(frozen=True)
class DT:
    """A `type` attr's value, spelled per frontend (numpy name, torch.dtype, tf.DType)."""

    name: str


@dataclass
class Case:
    op: str
    name: str
    inputs: tuple[Any, ...]
    attrs: dict[str, Any] = field(default_factory=dict)
    ok: bool | None = None  # the expected outcome, when the table states it


def f32(*shape: int) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    return np.asarray((np.arange(n, dtype=np.float32).reshape(shape) % 7 - 3) / 2, np.float32)


def strided(*shape: int) -> np.ndarray:
    """A non-contiguous view (every other column) of the given shape."""
    base = f32(*shape[:-1], shape[-1] * 2)
    return base[..., ::2]


def transposed(rows: int, cols: int) -> np.ndarray:
    return f32(cols, rows).T


CASES = [
    # element_add: x, y float32 of rank 1; constraint dim(y, 0) == dim(x, 0)
    Case("element_add", "ok", (f32(8), f32(8)), ok=True),
    Case("element_add", "odd length", (f32(13), f32(13)), ok=True),
    Case("element_add", "float64", (f32(8).astype(np.float64),) * 2, ok=False),
    Case("element_add", "int32", (np.arange(8, dtype=np.int32),) * 2, ok=False),
    Case("element_add", "rank 2", (f32(2, 8), f32(2, 8)), ok=False),
    Case("element_add", "0-d", (f32(), f32()), ok=False),
    Case("element_add", "lengths differ", (f32(8), f32(4)), ok=False),
    Case("element_add", "empty", (f32(0), f32(0)), ok=True),
    Case("element_add", "one empty", (f32(8), f32(0)), ok=False),
    Case("element_add", "non-contiguous", (strided(8), strided(8)), ok=True),
    # leaky_relu: negative_slope float = 0.01
    Case("leaky_relu", "ok", (f32(4, 8),), ok=True),
    Case("leaky_relu", "slope int", (f32(4, 8),), {"negative_slope": 2}, ok=True),
    Case("leaky_relu", "slope bool", (f32(4, 8),), {"negative_slope": True}, ok=False),
    Case("leaky_relu", "slope str", (f32(4, 8),), {"negative_slope": "0.1"}, ok=False),
    Case("leaky_relu", "slope None", (f32(4, 8),), {"negative_slope": None}, ok=False),
    Case("leaky_relu", "float16", (f32(4, 8).astype(np.float16),), ok=True),
    Case("leaky_relu", "float64", (f32(4, 8).astype(np.float64),), ok=False),
    Case("leaky_relu", "empty", (f32(0, 8),), ok=True),
    Case("leaky_relu", "0-d", (np.array(-2.0, np.float32),), ok=True),
    Case("leaky_relu", "non-contiguous", (transposed(4, 8),), ok=True),
    # softmax: axis int = -1, range [-rank(x), rank(x))
    Case("softmax", "ok", (f32(4, 8),), ok=True),
    Case("softmax", "axis 1 of 2", (f32(4, 8),), {"axis": 1}, ok=True),
    Case("softmax", "axis bool", (f32(4, 8),), {"axis": True}, ok=False),
    Case("softmax", "axis float", (f32(4, 8),), {"axis": 1.0}, ok=False),
    Case("softmax", "axis None", (f32(4, 8),), {"axis": None}, ok=False),
    Case("softmax", "axis 2 of 2", (f32(4, 8),), {"axis": 2}, ok=False),
    Case("softmax", "axis -3 of 2", (f32(4, 8),), {"axis": -3}, ok=False),
    Case("softmax", "0-d", (np.array(1.0, np.float32),), ok=False),
    Case("softmax", "empty rows", (f32(0, 8),), ok=True),
    Case("softmax", "empty row", (f32(4, 0),), ok=True),
    Case("softmax", "float64", (f32(4, 8).astype(np.float64),), ok=False),
    Case("softmax", "non-contiguous", (strided(4, 8),), ok=True),
    # layer_norm: gamma, beta optional of rank 1, constraints dim(gamma|beta, 0) == dim(x, -1);
    # epsilon float in (0, inf)
    Case("layer_norm", "ok", (f32(4, 8),), ok=True),
    Case("layer_norm", "gamma and beta", (f32(4, 8), f32(8) + 2, f32(8)), ok=True),
    Case("layer_norm", "gamma too short", (f32(4, 8), f32(7)), ok=False),
    Case("layer_norm", "beta too long", (f32(4, 8), f32(8), f32(9)), ok=False),
    Case("layer_norm", "gamma rank 2", (f32(4, 8), f32(1, 8)), ok=False),
    Case("layer_norm", "epsilon 0", (f32(4, 8),), {"epsilon": 0.0}, ok=False),
    Case("layer_norm", "epsilon negative", (f32(4, 8),), {"epsilon": -1.0}, ok=False),
    Case("layer_norm", "epsilon bool", (f32(4, 8),), {"epsilon": True}, ok=False),
    Case("layer_norm", "epsilon None", (f32(4, 8),), {"epsilon": None}, ok=False),
    Case("layer_norm", "gamma float16", (f32(4, 8), f32(8).astype(np.float16)), ok=False),
    Case("layer_norm", "empty rows", (f32(0, 8),), ok=True),
    Case("layer_norm", "empty row", (f32(4, 0),), ok=False),
    Case("layer_norm", "non-contiguous", (strided(4, 8), strided(8)), ok=True),
    # broadcast_add: numpy broadcasting of x and y
    Case("broadcast_add", "ok", (f32(4, 8), f32(8)), ok=True),
    Case("broadcast_add", "both sides", (f32(4, 1), f32(1, 8)), ok=True),
    Case("broadcast_add", "no broadcast", (f32(4, 8), f32(3)), ok=False),
    Case("broadcast_add", "dtypes differ", (f32(4, 8), f32(8).astype(np.float16)), ok=False),
    Case("broadcast_add", "float64", (f32(8).astype(np.float64),) * 2, ok=False),
    Case("broadcast_add", "empty", (f32(0, 8), f32(8)), ok=True),
    Case("broadcast_add", "0-d and 1-d", (np.array(1.5, np.float32), f32(8)), ok=True),
    Case("broadcast_add", "0-d", (np.array(1.5, np.float32), np.array(2.0, np.float32)),
         ok=True),
    Case("broadcast_add", "non-contiguous", (transposed(8, 4), f32(4)), ok=True),
    # cast: dst_type (type, required)
    Case("cast", "to float16", (f32(4, 8),), {"dst_type": DT("float16")}, ok=True),
    Case("cast", "to int32", (f32(4, 8),), {"dst_type": DT("int32")}, ok=True),
    Case("cast", "int32 to float16", (np.arange(16, dtype=np.int32),),
         {"dst_type": DT("float16")}, ok=True),
    Case("cast", "to itself", (f32(4, 8),), {"dst_type": DT("float32")}, ok=False),
    Case("cast", "dst_type None", (f32(4, 8),), {"dst_type": None}, ok=False),
    Case("cast", "dst_type bad name", (f32(4, 8),), {"dst_type": "float99"}, ok=False),
    Case("cast", "dst_type bool", (f32(4, 8),), {"dst_type": True}, ok=False),
    Case("cast", "float64", (f32(4, 8).astype(np.float64),), {"dst_type": DT("float16")},
         ok=False),
    Case("cast", "empty", (f32(0),), {"dst_type": DT("float16")}, ok=True),
    Case("cast", "0-d", (np.array(2.5, np.float32),), {"dst_type": DT("int32")}, ok=True),
    Case("cast", "non-contiguous", (strided(4, 8),), {"dst_type": DT("float16")}, ok=True),
]


@dataclass
class Outcome:
    ok: bool
    value: tuple[np.ndarray, ...] = ()
    message: str = ""
    error: type | None = None

    def __str__(self) -> str:
        if self.ok:
            return "ok " + ", ".join(f"{v.dtype}{v.shape}" for v in self.value)
        return f"{self.error.__name__ if self.error else '?'}: {self.message}"


def _attrs(attrs: dict[str, Any], spell: Any) -> dict[str, Any]:
    return {k: spell(v.name) if isinstance(v, DT) else v for k, v in attrs.items()}


def _outcome(fn: Any) -> Outcome:
    try:
        result = fn()
    except Exception as exc:  # the outcome is what the test compares
        message = str(exc.message) if isinstance(exc, tf.errors.OpError) else str(exc)
        return Outcome(False, message=message, error=type(exc))
    values = result if isinstance(result, tuple | list) else (result,)
    return Outcome(True, tuple(np.asarray(v.numpy() if hasattr(v, "numpy") else v)
                               for v in values))


@pytest.fixture(scope="module")
def frontends() -> Iterator[dict[str, Any]]:
    opp = tempfile.TemporaryDirectory(prefix="opgen-agree-opp-")
    old = os.environ.get("OPGEN_OPP_PATH")
    os.environ["OPGEN_OPP_PATH"] = opp.name
    if str(GENERATED_PYTHON) not in sys.path:
        sys.path.insert(0, str(GENERATED_PYTHON))
    import importlib

    reg = registry.Registry()
    for op in OPS:
        lib = build_operator_library(load(METADEF / f"{op}.json"))
        reg.load_operator_library(lib)
        reg.register_operator(op)
        reg.register_operator_model(op, METADEF / f"{op}.json", op)
    torch_ops = {op: getattr(importlib.import_module(f"opgen_ops.torch.{op}"), op) for op in OPS}
    tf_package = importlib.import_module("opgen_ops.tf")

    def numpy_call(case: Case) -> Outcome:
        return _outcome(lambda: reg.call(case.op, *case.inputs, **_attrs(case.attrs, str)))

    def torch_call(case: Case) -> Outcome:
        args = [None if a is None else torch.from_numpy(a) for a in case.inputs]
        attrs = _attrs(case.attrs, lambda n: getattr(torch, n))
        return _outcome(lambda: torch_ops[case.op](*args, **attrs))

    def tf_call(case: Case) -> Outcome:
        args = [None if a is None else tf.constant(a) for a in case.inputs]
        attrs = _attrs(case.attrs, tf.as_dtype)
        return _outcome(lambda: getattr(tf_package, case.op)(*args, **attrs))

    yield {"numpy": numpy_call, "torch": torch_call, "tensorflow": tf_call}
    if old is None:
        os.environ.pop("OPGEN_OPP_PATH", None)
    else:
        os.environ["OPGEN_OPP_PATH"] = old
    opp.cleanup()


# The documented error classes per frontend (docs/reliability.md, "Frontends agree").
_CLASSES = {
    "numpy": (OpCallError,),
    "torch": (OpCallError,),
    "tensorflow": (OpCallError, UnsupportedDtypeError, tf.errors.InvalidArgumentError),
}


def _same(a: Outcome, b: Outcome) -> bool:
    if a.ok != b.ok:
        return False
    if not a.ok:
        return a.message == b.message
    if len(a.value) != len(b.value):
        return False
    for x, y in zip(a.value, b.value, strict=True):
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if not np.allclose(x.astype(np.float64), y.astype(np.float64), rtol=1e-6, atol=1e-6,
                           equal_nan=True):
            return False
    return True


def test_every_op_has_a_table() -> None:
    for op in OPS:
        assert 8 <= sum(c.op == op for c in CASES) <= 15, op


def test_frontends_agree(frontends: dict[str, Any]) -> None:
    disagreements = []
    agreed = 0
    for case in CASES:
        outcomes = {name: call(case) for name, call in frontends.items()}
        reference = outcomes["numpy"]
        same = all(_same(reference, o) for o in outcomes.values())
        expected = case.ok is None or reference.ok == case.ok
        classes = all(o.ok or (o.error is not None and issubclass(o.error, _CLASSES[name]))
                      for name, o in outcomes.items())
        if same and expected and classes:
            agreed += 1
            continue
        disagreements.append(f"{case.op} / {case.name}:\n" + "\n".join(
            f"    {name}: {o}" for name, o in outcomes.items()))
    print(f"\nfrontends agree: {len(CASES)} cases x {len(frontends)} frontends, "
          f"{agreed} of {len(CASES)} cases the same in all")
    assert not disagreements, "\n".join(disagreements)


def test_value_errors_are_value_errors(frontends: dict[str, Any]) -> None:
    """An attr out of its range is a ValueError in the registry and in PyTorch (and a TypeError
    too, as every OpCallError); TensorFlow's is an InvalidArgumentError."""
    case = Case("softmax", "axis 2 of 2", (f32(4, 8),), {"axis": 2})
    for name in ("numpy", "torch"):
        outcome = frontends[name](case)
        assert outcome.error is not None and issubclass(outcome.error, OpValueError), outcome
    assert frontends["tensorflow"](case).error is tf.errors.InvalidArgumentError
    assert frontends["numpy"](case).message == (
        "softmax(): attr 'axis' is 2, outside its range [-rank(x), rank(x)), here [-2, 2) "
        "(specs/softmax.yaml)")
