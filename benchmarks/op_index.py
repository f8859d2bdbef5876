"""The ops a project's spec index holds, as benchmark cases: inputs of the benchmark's shape
built from each spec's shapes, dtypes and attr defaults, and the op's native torch equivalent:
its `reference` printed as eager torch code by the printer the generated code uses
(bench_ops.py keeps hand-picked torch functions for the example ops instead).

    cases = op_cases(load_index(project), torch.float32, (4096, 1024))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opgen.diagnostics import DiagnosticSink, OpgenError
from opgen.dtypes import DType
from opgen.expr_translate import TORCH, to_source
from opgen.model import OpSpec, TensorDesc
from opgen.project import Config, discover, load_config, load_specs


@dataclass(frozen=True)
class Index:
    config: Config
    specs: tuple[OpSpec, ...]

    @property
    def python_dir(self) -> Path:
        """Where the generated Python package lives (its parent directory)."""
        return self.config.output_dir / "python"


def load_index(project: Path) -> Index:
    """Every op of the project at `project` (its pyproject.toml's [tool.opgen]), sorted by
    name. A spec with errors raises DiagnosticError naming them; a project without specs, or
    whose generated Python package is missing, an OpgenError saying what to run."""
    if not project.is_dir():
        raise OpgenError(f"{project}: no such project directory")
    config = load_config(project)
    sink = DiagnosticSink()
    specs = load_specs(discover(config.spec_dir), config, sink)
    sink.raise_if_errors()
    if not specs:
        raise OpgenError(f"{config.spec_dir}: no op specs here (the project's spec_dir)")
    index = Index(config, tuple(sorted(specs, key=lambda s: s.op_name)))
    if not (index.python_dir / config.package).is_dir():
        raise OpgenError(f"{index.python_dir / config.package}: the generated package is missing; "
                         f"run `opgen generate` in {config.root}")
    return index


def input_shape(desc: TensorDesc, primary: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of one input: `primary` where any rank is allowed; a fixed rank takes the
    trailing dims of `primary` (a rank-1 [-1] input beside a [rows, cols] one gets [cols], as a
    gamma or a broadcast row does); a fixed size stays."""
    if desc.shape is None:
        return primary
    rank = len(desc.shape)
    tail = primary[-rank:] if rank <= len(primary) else (1,) * (rank - len(primary)) + primary
    return tuple(t if d == -1 else d for d, t in zip(desc.shape, tail, strict=True))


def primary_shape(desc: TensorDesc, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The first input's shape: the benchmark's `shape`, its leading dims folded into one where
    the spec fixes a smaller rank (element_add's [-1] gets all 4096 x 1024 elements)."""
    if desc.shape is None or len(desc.shape) >= len(shape):
        return input_shape(desc, shape)
    rank = len(desc.shape)
    folded = (math.prod(shape[:len(shape) - rank + 1]), *shape[len(shape) - rank + 1:])
    return input_shape(desc, folded)


def combination(spec: OpSpec, dtype: DType) -> int | None:
    """The first dtype column whose first input is `dtype`."""
    return next((i for i, d in enumerate(spec.inputs[0].dtypes) if d == dtype), None)


def torch_reference(spec: OpSpec) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    """The spec's reference as eager torch: each output's expression printed in the torch
    dialect and evaluated in order (a later one may name an earlier output)."""
    import torch

    from opgen_runtime import exprlib

    steps = [(ref.output, compile(to_source(ref.expr, TORCH), f"<{spec.op_name}.{ref.output}>",
                                  "eval")) for ref in spec.reference]
    outputs = [t.name for t in spec.outputs]

    def run(env: Mapping[str, Any]) -> tuple[Any, ...]:
        scope: dict[str, Any] = {"torch": torch, "_x": exprlib, **env}
        for name, code in steps:
            # the validated expression language, printed by the compiler (no user code runs)
            scope[name] = eval(code, scope)
        return tuple(scope[name] for name in outputs if name in scope)

    return run


@dataclass(frozen=True)
class Case:
    """One op at one dtype: `ours` calls torch.ops.<namespace>.<op>, `native` its torch
    equivalent on the same tensors; or `skipped` says why there is none."""

    op: str
    ours: Callable[[], object] | None = None
    native: Callable[[], object] | None = None
    skipped: str = ""
    inputs: Mapping[str, Any] = field(default_factory=dict)  # the tensors, by input name


def _attr_values(spec: OpSpec, dtype: Any) -> tuple[dict[str, Any], dict[str, Any], str]:
    """The attrs to call the op with (defaults are left to it), the values to evaluate the
    reference with, and, for a required attr the benchmark cannot choose, why it skips."""
    import torch

    call: dict[str, Any] = {}
    env: dict[str, Any] = {}
    for a in spec.attrs:
        value: Any = a.default
        if a.type.value == "type":
            if value is None:  # a required dtype: convert to the other float type
                value = torch.float16 if dtype == torch.float32 else torch.float32
                call[a.name] = value
            else:
                value = getattr(torch, DType(value).value)
        elif value is None:
            return {}, {}, f"required attr '{a.name}' has no default"
        env[a.name] = value
    return call, env, ""


def op_cases(index: Index, dtype: Any, shape: Sequence[int],
             skip: Sequence[str] = ()) -> list[Case]:
    """A case per op of the index at torch dtype `dtype` (but the ops in `skip`), its inputs
    random normal values of `shape` (see primary_shape and input_shape)."""
    import torch

    namespace = index.config.namespace
    want = DType(str(dtype).removeprefix("torch."))
    g = torch.Generator().manual_seed(0)
    cases: list[Case] = []
    for spec in index.specs:
        if spec.op_name in skip:
            continue
        column = combination(spec, want)
        if column is None:
            cases.append(Case(spec.op_name, skipped="not in spec"))
            continue
        if not spec.reference:
            cases.append(Case(spec.op_name, skipped="the spec has no reference"))
            continue
        call_attrs, attr_env, reason = _attr_values(spec, dtype)
        if reason:
            cases.append(Case(spec.op_name, skipped=reason))
            continue
        first = primary_shape(spec.inputs[0], tuple(shape))
        tensors: list[Any] = []
        for k, desc in enumerate(spec.inputs):
            dims = first if k == 0 else input_shape(desc, first)
            t_dtype = getattr(torch, desc.dtypes[column].value)
            tensors.append(torch.randn(dims, generator=g).to(t_dtype))
        fixed = tuple(tensors)

        def ours(op: str = spec.op_name, args: tuple[Any, ...] = fixed,
                 kw: dict[str, Any] = call_attrs) -> object:
            return getattr(getattr(torch.ops, namespace), op)(*args, **kw)

        run = torch_reference(spec)
        named = {d.name: t for d, t in zip(spec.inputs, fixed, strict=True)}
        env = named | attr_env

        def theirs(run: Callable[[Mapping[str, Any]], object] = run,
                   env: dict[str, Any] = env) -> object:
            return run(env)

        cases.append(Case(spec.op_name, ours, theirs, inputs=named))
    return cases
