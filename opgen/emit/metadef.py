"""The normalised metadef JSON per op: what the runtime's register_operator_model reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgen import checks
from opgen.dtypes import DType
from opgen.emit.common import (
    include_dir_paths,
    kernel_source_path,
    op_host_paths,
    relpath,
    render_json,
    tiling_header_path,
)
from opgen.expr_translate import NUMPY, to_source
from opgen.kernel_frontend.check import CheckedKernel
from opgen.model import AttrDesc, OpSpec, TensorDesc

METADEF_DIR = "metadef"
FORMAT_VERSION = 1


def metadef_path(spec: OpSpec) -> str:
    return metadef_path_for(spec.op_name)


def metadef_path_for(op_name: str) -> str:
    return f"{METADEF_DIR}/{op_name}.json"


def _tensor(t: TensorDesc) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": t.name,
        "param_type": t.param_type.value,
        "dtype": [d.value for d in t.dtypes],
        "format": [f.value for f in t.formats],
        "shape": list(t.shape) if t.shape is not None else [-2],
    }
    if t.infer is not None:
        out["infer"] = t.infer.to_json()
    if t.dtype_from is not None:
        out["dtype_from"] = t.dtype_from
    if t.ir_name is not None:
        out["ir_name"] = t.ir_name
    if t.inplace:
        out["inplace"] = True
    if t.ref is not None:
        out["ref"] = t.ref
    if t.doc:
        out["doc"] = t.doc
    return out


def attr_value_json(value: Any) -> Any:
    if isinstance(value, DType):
        return value.value
    if isinstance(value, tuple):
        return [attr_value_json(v) for v in value]
    return value


def _attr(a: AttrDesc) -> dict[str, Any]:
    out: dict[str, Any] = {"name": a.name, "type": a.type.value, "required": a.required}
    if a.default is not None:
        out["default"] = attr_value_json(a.default)
    if a.ir_name is not None:
        out["ir_name"] = a.ir_name
    if a.doc:
        out["doc"] = a.doc
    return out


def metadef(spec: OpSpec, output_dir: str, kernel: CheckedKernel | None = None) -> dict[str, Any]:
    """`output_dir` is project-relative; paths inside are relative to the metadef file.

    With a checked kernel, "tiling" holds the tiling struct's layout (the runtime's
    TilingLayout packs attrs and shapes with it); null when the kernel reads no tiling data.
    """
    here = f"{output_dir}/{METADEF_DIR}"
    data: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "op_name": spec.op_name,
        "op_type": spec.op_type,
        "doc": spec.doc,
        "spec": relpath(spec.spec_path, here),
        "input_desc": [_tensor(t) for t in spec.inputs],
        "output_desc": [_tensor(t) for t in spec.outputs],
        "attr_desc": [_attr(a) for a in spec.attrs],
        "kernel": {"source": relpath(kernel_source_path(spec), here), "entry": spec.kernel.entry},
        "soc": list(spec.socs),
        # attr ranges and constraints, compiled (opgen.checks; opgen_runtime.argcheck)
        "checks": checks.to_json(spec.checks, spec.spec_path),
    }
    if spec.kernel.tiling_hook:
        data["kernel"]["tiling_hook"] = spec.kernel.tiling_hook
    header = tiling_header_path(spec)
    if header is not None:
        data["kernel"]["tiling_header"] = relpath(header, here)
    if spec.kernel.op_host:
        data["kernel"]["op_host"] = [relpath(p, here) for p in op_host_paths(spec)]
    if spec.kernel.include_dirs:
        data["kernel"]["include_dirs"] = [relpath(p, here) for p in include_dir_paths(spec)]
    if kernel is not None and kernel.entry.template_params:
        # the kernel build's dispatch needs each template parameter's kind and the entry's arity
        data["kernel"]["template"] = {
            "params": [t.to_json() for t in kernel.entry.template_params],
            "arity": len(kernel.entry.params)}
    if kernel is not None:
        data["tiling"] = kernel.tiling.layout_json() if kernel.tiling is not None else None
    data["reference"] = {r.output: str(r.expr) for r in spec.reference}
    numpy: dict[str, Any] = {"reference": {r.output: to_source(r.expr, NUMPY)
                                           for r in spec.reference}}
    if spec.backward is not None and spec.backward.grad_op is None:
        numpy["backward"] = {g.input: to_source(g.expr, NUMPY)
                             for g in spec.backward.gradients}
    if spec.backward is None:
        data["backward"] = None
    elif spec.backward.grad_op is not None:
        data["backward"] = {"op": spec.backward.grad_op}
    else:
        data["backward"] = {g.input: str(g.expr) for g in spec.backward.gradients}
    # the expressions translated to numpy source: the runtime evaluates these (it does not
    # parse the expression language itself)
    data["numpy"] = numpy
    return data


def emit(spec: OpSpec, output_dir: str, kernel: CheckedKernel | None = None) -> dict[str, str]:
    return {metadef_path(spec): render_json(metadef(spec, output_dir, kernel), spec.spec_path)}


def emit_index(ops: Sequence[tuple[str, str, str]]) -> dict[str, str]:
    """index.json: every op as (op_name, op_type, spec path)."""
    entries = [
        {"op_name": name, "op_type": op_type, "spec": spec, "metadef": metadef_path_for(name)}
        for name, op_type, spec in sorted(ops)
    ]
    return {"index.json": render_json({"format_version": FORMAT_VERSION, "ops": entries})}
