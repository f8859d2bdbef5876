"""The op description in msopgen's JSON format (`msopgen gen -i <op>.json` creates the project).

msopgen's file is a list of ops, so the banner rides as the first key of the op's object.
"""

from __future__ import annotations

import json
from typing import Any

from opgen.emit.cann_naming import cann_stem, msopgen_attr_type, msopgen_dtype
from opgen.emit.common import banner_text
from opgen.emit.metadef import attr_value_json
from opgen.kernel_frontend.check import CheckedKernel
from opgen.model import AttrDesc, OpSpec, TensorDesc
from opgen.writer import BANNER_KEY


def op_desc_path(spec: OpSpec) -> str:
    return f"cann/{cann_stem(spec)}.json"


def _tensor(t: TensorDesc) -> dict[str, Any]:
    return {"name": t.ir, "param_type": t.param_type.value,
            "format": [f.value for f in t.formats], "type": [msopgen_dtype(d) for d in t.dtypes]}


def _attr(a: AttrDesc) -> dict[str, Any]:
    out: dict[str, Any] = {"name": a.ir, "param_type": "required" if a.required else "optional",
                           "type": msopgen_attr_type(a.type)}
    if a.default is not None:
        value = attr_value_json(a.default)
        # msopgen writes every default as a string
        out["default_value"] = value if isinstance(value, str) else json.dumps(value).lower() \
            if isinstance(value, bool) else json.dumps(value)
    return out


def op_desc(spec: OpSpec) -> list[dict[str, Any]]:
    op: dict[str, Any] = {BANNER_KEY: banner_text(spec.spec_path), "op": spec.op_type,
                          "language": "cpp",
                          "input_desc": [_tensor(t) for t in spec.inputs],
                          "output_desc": [_tensor(t) for t in spec.outputs]}
    if spec.attrs:
        op["attr"] = [_attr(a) for a in spec.attrs]
    return [op]


def emit(spec: OpSpec, output_dir: str, kernel: CheckedKernel) -> dict[str, str]:
    return {op_desc_path(spec): json.dumps(op_desc(spec), indent=2, ensure_ascii=False) + "\n"}
