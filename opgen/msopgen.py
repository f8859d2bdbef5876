"""msopgen's JSON op description (a list of {"op", "input_desc", "output_desc", "attr"}) read
as opgen specs: each op becomes a Document in opgen's format, locations carried over."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Mapping
from typing import Any

from opgen.diagnostics import DiagnosticSink
from opgen.dtypes import AttrType, parse_attr_type
from opgen.load import Document, JsonPath
from opgen.naming import IR_NAME_RE, SNAKE_RE, reserved_in, snake_from_camel
from opgen.writer import BANNER_KEY

_FLOAT_MAX = int(sys.float_info.max)

MSOPGEN_TENSOR_KEYS = {"name": "name", "param_type": "param_type", "format": "format",
                       "type": "dtype"}
MSOPGEN_ATTR_KEYS = {"name": "name", "type": "type", "default_value": "default"}


def is_msopgen(data: Any) -> bool:
    return isinstance(data, list) and bool(data) and all(
        isinstance(op, Mapping) and "op" in op for op in data
    )


def _default(text: Any, attr_type: str) -> Any:
    """msopgen writes defaults as strings ("0.0", "[1, 2]", "true"); opgen wants typed values."""
    if not isinstance(text, str):
        return text
    atype = parse_attr_type(attr_type)
    if atype in (AttrType.STRING, AttrType.TYPE) or atype is None:
        return text
    if atype is AttrType.BOOL:
        return {"true": True, "false": False}.get(text.strip().lower(), text)
    try:
        value = json.loads(text.strip().lower() if atype.element is AttrType.BOOL else text)
    except (ValueError, RecursionError):  # not JSON, or a number/nesting json refuses
        return text
    if atype is AttrType.FLOAT and isinstance(value, int) and abs(value) <= _FLOAT_MAX:
        value = float(value)  # a larger one is reported by validation, as the integer it is
    return value


def _ir_name(item: dict[Any, Any], copy_loc: Callable[[], None]) -> None:
    """CANN writes IR names in camelCase (srcList, bufferMode); opgen's names are snake_case.
    Such a name becomes `name: src_list` with `ir_name: srcList`, so every CANN-side output
    keeps CANN's spelling. So does a name the generated code reserves (aclnn's `self`, a
    keyword): `name: self_` with `ir_name: self`. Other names are left for validation to judge."""
    name = item.get("name")
    if not isinstance(name, str) or not IR_NAME_RE.match(name):
        return
    snake = name if SNAKE_RE.match(name) else snake_from_camel(name)
    if not SNAKE_RE.match(snake):
        return
    if reserved_in(snake) is not None:
        snake += "_"
    if snake == name:
        return
    ordered = {}
    for k, v in item.items():
        ordered[k] = snake if k == "name" else v
        if k == "name":
            ordered["ir_name"] = name
    item.clear()
    item.update(ordered)
    copy_loc()


def _copy_locs(src: Document, dst: Document, src_path: JsonPath, dst_path: JsonPath) -> None:
    """Carry the locations under `src_path` in `src` over to `dst_path` in `dst`."""
    n = len(src_path)
    for path, loc in src.locs.items():
        if path[:n] == src_path:
            dst.locs[dst_path + path[n:]] = loc
    for path, loc in src.key_locs.items():
        if path[:n] == src_path:
            dst.key_locs[dst_path + path[n:]] = loc
    for path, style in src.styles.items():
        if path[:n] == src_path:
            dst.styles[dst_path + path[n:]] = style


def convert(doc: Document, sink: DiagnosticSink) -> list[Document]:
    """One opgen Document per op of an msopgen file. Unknown keys are reported."""
    out: list[Document] = []
    for i, op in enumerate(doc.data):
        target = Document(doc.path, {})

        def copy(src: JsonPath, dst: JsonPath, target: Document = target) -> None:
            _copy_locs(doc, target, src, dst)

        copy((i,), ())
        data: dict[str, Any] = {}
        for key, value in op.items():
            if key == "op":
                data["op_type"] = value
                data["op_name"] = snake_from_camel(str(value))
                copy((i, "op"), ("op_type",))
                copy((i, "op"), ("op_name",))
            elif key in ("input_desc", "output_desc") and isinstance(value, list):
                tensors = []
                for j, t in enumerate(value):
                    if not isinstance(t, Mapping):
                        tensors.append(t)
                        continue
                    conv = {}
                    for k, v in t.items():
                        new = MSOPGEN_TENSOR_KEYS.get(k, k)
                        conv[new] = [v] if new in ("dtype", "format") and isinstance(v, str) else v
                        copy((i, key, j, str(k)), (key, j, str(new)))
                    _ir_name(conv, functools.partial(copy, (i, key, j, "name"),
                                                     (key, j, "ir_name")))
                    tensors.append(conv)
                data[key] = tensors
            elif key == "attr" and isinstance(value, list):
                attrs = []
                for j, a in enumerate(value):
                    if not isinstance(a, Mapping):
                        attrs.append(a)
                        continue
                    conv = {}
                    for k, v in a.items():
                        if k == "param_type":  # required-ness is carried by the default
                            continue
                        new = MSOPGEN_ATTR_KEYS.get(k, k)
                        conv[new] = _default(v, str(a.get("type", ""))) if new == "default" else v
                        copy((i, "attr", j, str(k)), ("attr_desc", j, str(new)))
                    if a.get("param_type") == "required":
                        conv.pop("default", None)
                    _ir_name(conv, functools.partial(copy, (i, "attr", j, "name"),
                                                     ("attr_desc", j, "ir_name")))
                    attrs.append(conv)
                data["attr_desc"] = attrs
            elif key == "language":
                continue  # msopgen's "cpp": the only language opgen generates for
            elif key == BANNER_KEY:
                continue  # the banner of a file `opgen generate` wrote: not part of the op
            else:
                data[key] = value  # reported by the schema as an unknown key
        target.data = data
        out.append(target)
    return out


def to_yaml(doc: Document) -> str:
    """The converted spec as opgen YAML (for `opgen import-msopgen`)."""
    import yaml

    data = dict(doc.data)
    order = ["op_name", "op_type", "doc", "input_desc", "output_desc", "attr_desc"]
    ordered = {k: data[k] for k in order if k in data}
    ordered.update({k: v for k, v in data.items() if k not in ordered})

    class _Dumper(yaml.SafeDumper):
        pass

    def flow_lists(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.Node:
        flow = all(not isinstance(v, (dict, list)) for v in value)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)

    _Dumper.add_representer(list, flow_lists)
    text: str = yaml.dump(ordered, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
    return text
