"""The compiler's Python API for tests and tools: load a spec, evaluate its reference."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from opgen import expr as ex
from opgen.diagnostics import DiagnosticSink
from opgen.dtypes import DType
from opgen.model import OpSpec
from opgen.project import documents
from opgen.validate import build_spec


def load_spec(path: Path | str) -> OpSpec:
    """Load and validate one spec file (the first op of an msopgen file); raises
    DiagnosticError with every located error."""
    p = Path(path)
    sink = DiagnosticSink()
    docs = documents(p, str(path), sink)
    spec = build_spec(docs[0], sink, spec_dir=str(p.parent)) if docs else None
    sink.raise_if_errors()
    assert spec is not None
    return spec


def attr_env(spec: OpSpec, attrs: Mapping[str, Any] | None) -> dict[str, Any]:
    """Attr values with defaults filled in; `type` attrs become numpy dtypes."""
    import numpy as np

    given = dict(attrs or {})
    env: dict[str, Any] = {}
    for a in spec.attrs:
        value = given.pop(a.name, a.default)
        if value is None:
            raise TypeError(f"{spec.op_name}: required attr '{a.name}' ({a.type.value}) "
                            "was not given")
        if isinstance(value, DType):
            value = np.dtype(value.value)
        elif isinstance(value, str) and a.type.value == "type":
            value = np.dtype(value)
        env[a.name] = value
    if given:
        raise TypeError(f"{spec.op_name}: unknown attr(s) {', '.join(sorted(given))}; "
                        f"the op has: {', '.join(a.name for a in spec.attrs) or 'none'}")
    return env


def reference_outputs(spec: OpSpec, inputs: Mapping[str, Any],
                      attrs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Evaluate the spec's `reference` with numpy; absent optional inputs may be omitted."""
    import numpy as np

    if not spec.reference:
        raise ValueError(f"{spec.op_name}: the spec has no `reference:` expression")
    env: dict[str, Any] = {t.name: inputs.get(t.name) for t in spec.inputs}
    env.update(attr_env(spec, attrs))
    out: dict[str, Any] = {}
    for ref in spec.reference:
        value = np.asarray(ex.evaluate(ref.expr, env))
        env[ref.output] = value
        out[ref.output] = value
    return {t.name: out[t.name] for t in spec.outputs if t.name in out}


def reference_gradients(spec: OpSpec, inputs: Mapping[str, Any],
                        grads: Mapping[str, Any],
                        attrs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Evaluate the spec's per-input `backward:` expressions with numpy."""
    import numpy as np

    if spec.backward is None or spec.backward.grad_op is not None:
        raise ValueError(f"{spec.op_name}: the spec has no per-input backward expressions")
    env: dict[str, Any] = {t.name: inputs.get(t.name) for t in spec.inputs}
    env.update(attr_env(spec, attrs))
    env.update(reference_outputs(spec, inputs, attrs))
    env.update({f"grad_{k}": v for k, v in grads.items()})
    return {g.input: np.asarray(ex.evaluate(g.expr, env)) for g in spec.backward.gradients}
