"""The argument checks of an op call, in the words every frontend uses.

One description per op, compiled from its spec by `opgen generate` (opgen.checks): the attrs'
types, the inputs' declared shapes, attr ranges and constraints. The registry evaluates it here,
from the metadef's "checks"; the PyTorch and TensorFlow C++ kernels evaluate the same
description in opgen_host/arg_check.h, with the same messages in the same order:

    attrs (type, required)  ->  dtype column  ->  declared shapes  ->  attr ranges
        ->  constraints  ->  output shape rules  ->  the empty-tensor rule  ->  launch

Attr types are checked in Python by every frontend (the generated torch and TF wrappers call
`check_attrs` before the framework converts the values). Every message starts with
`<op_name>(): ` and names the argument and what it must be. See "Frontends agree" in
docs/reliability.md.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


class ArgCheckError(Exception):
    """A check failed: `kind` is "type" (TypeError in Python) or "value" (ValueError)."""

    def __init__(self, message: str, kind: str = "value") -> None:
        super().__init__(message)
        self.kind = kind


def _suggest(word: str, choices: Sequence[str]) -> str:
    match = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{match[0]}'?" if match else ""


def shape_text(shape: Sequence[int]) -> str:
    """Python's tuple repr: (), (8,), (2, 8) (opgen_host::ShapeText)."""
    return str(tuple(int(d) for d in shape))


def number_text(value: float) -> str:
    """An int as is, a float as printf's %g (opgen_host's NumberText)."""
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return str(int(value))
    return format(float(value), "g")


# -- attrs ---------------------------------------------------------------------------------------
_ATTR_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int, np.integer), "float": (float, int, np.floating, np.integer),
    "bool": (bool, np.bool_), "string": (str,),
}


def dtype_name(value: Any) -> str | None:
    """A `type` attr's value as a dtype name: numpy dtypes and names, torch and TF dtypes."""
    if value is None or isinstance(value, bool):
        return None
    module = type(value).__module__
    if module.startswith("torch"):
        return str(value).removeprefix("torch.")
    if module.startswith("tensorflow"):
        return str(getattr(value, "name", value))
    try:
        return str(np.dtype(value).name)
    except TypeError:
        return None


def check_attr(op: str, name: str, kind: str, value: Any) -> Any:
    """One attr's value, converted (int/float/tuple/dtype name), or ArgCheckError."""
    bad = False
    if kind in _ATTR_TYPES:
        bad = not isinstance(value, _ATTR_TYPES[kind]) or (
            kind in ("int", "float") and isinstance(value, bool | np.bool_))
        if not bad and kind == "float":
            value = float(value)
        elif not bad and kind == "int":
            value = int(value)
    elif kind.startswith("list_"):
        elem = _ATTR_TYPES[kind[5:]]
        bad = not isinstance(value, list | tuple) or any(
            not isinstance(v, elem) or (kind[5:] in ("int", "float") and isinstance(v, bool))
            for v in value)
        if not bad:
            value = tuple(value)
    elif kind == "type":
        name_ = dtype_name(value)
        bad = name_ is None
        if not bad:
            value = name_
    if bad:
        if value is None:
            raise ArgCheckError(f"{op}(): attr '{name}' must be {kind}, got None", "type")
        raise ArgCheckError(f"{op}(): attr '{name}' must be {kind}, got "
                            f"{type(value).__name__} {value!r}", "type")
    return value


def check_attrs(op: str, attrs: Sequence[tuple[str, str, bool, Any]],
                given: Mapping[str, Any]) -> dict[str, Any]:
    """Every attr of the call, type-checked: `attrs` is (name, type, required, default) per
    spec attr; unknown names and missing required attrs are errors."""
    known = [a[0] for a in attrs]
    for key in given:
        if key not in known:
            raise ArgCheckError(f"{op}() got an unknown attr '{key}'"
                                f"{_suggest(key, sorted(known))}; its attrs are: "
                                f"{', '.join(sorted(known)) or 'none'}", "type")
    out: dict[str, Any] = {}
    for name, kind, required, default in attrs:
        if name in given:
            value = given[name]
        elif required:
            raise ArgCheckError(f"{op}() is missing the required attr '{name}' ({kind})",
                                "type")
        else:
            value = default
        out[name] = check_attr(op, name, kind, value)
    return out


# -- dtypes --------------------------------------------------------------------------------------
def dtype_message(op: str, spec: str, got: Sequence[tuple[str, str]],
                  columns: Sequence[tuple[Sequence[tuple[str, str]], Sequence[tuple[str, str]]]]
                  ) -> str:
    """No column of the spec's dtype table fits: `got` the (name, dtype) of the given inputs
    and dtype attrs, `columns` (inputs, outputs) as (name, dtype) pairs."""
    have = ", ".join(f"{n}={d}" for n, d in got)
    supported = "; ".join(", ".join(f"{n}={d}" for n, d in ins) + " -> "
                          + ", ".join(f"{n}={d}" for n, d in outs) for ins, outs in columns)
    return f"{op}(): no supported dtype combination for ({have}); {spec} supports: {supported}"


# -- shapes, ranges, constraints -----------------------------------------------------------------
Shape = tuple[int, ...]


def _dim(op: str, spec: str, what: str, shapes: Mapping[str, Shape], t: str, axis: int) -> int:
    shape = shapes[t]
    k = axis + len(shape) if axis < 0 else axis
    if not 0 <= k < len(shape):
        raise ArgCheckError(f"{op}(): {what} of {spec} reads dim({t}, {axis}), but input "
                            f"'{t}' has shape {shape_text(shape)}")
    return int(shape[k])


def evaluate(op: str, spec: str, what: str, rpn: Sequence[Sequence[Any]],
             shapes: Mapping[str, Shape], attrs: Mapping[str, Any]) -> float:
    stack: list[Any] = []
    for node in rpn:
        kind = node[0]
        if kind == "lit":
            stack.append(node[1])
        elif kind == "attr":
            stack.append(attrs[node[1]])
        elif kind == "rank":
            stack.append(len(shapes[node[1]]))
        elif kind == "dim":
            stack.append(_dim(op, spec, what, shapes, node[1], int(node[2])))
        elif kind == "neg":
            stack.append(-stack.pop())
        else:
            b, a = stack.pop(), stack.pop()
            stack.append(a + b if kind == "add" else a - b if kind == "sub" else a * b)
    return stack[0]  # type: ignore[no-any-return]


_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def check_declared(op: str, name: str, declared: Sequence[int] | None, shape: Shape) -> None:
    """An input's shape against the spec's `shape:` (-1: any size; None: any rank)."""
    if declared is None:
        return
    if len(declared) != len(shape):
        raise ArgCheckError(f"{op}(): input '{name}' must have rank {len(declared)} (spec shape "
                            f"{list(declared)}), got shape {shape_text(shape)}")
    for i, (want, got) in enumerate(zip(declared, shape, strict=True)):
        if want >= 0 and want != got:
            raise ArgCheckError(f"{op}(): input '{name}' must have size {want} in dim {i} (spec "
                                f"shape {list(declared)}), got shape {shape_text(shape)}")


def check_ranges_and_constraints(op: str, checks: Mapping[str, Any],
                                 shapes: Mapping[str, Shape], attrs: Mapping[str, Any]) -> None:
    """The spec's attr ranges, then its constraints (`shapes`: the present inputs)."""
    spec = checks.get("spec") or "the spec"
    for r in checks.get("ranges", ()):
        name = r["attr"]
        what = f"the range of attr '{name}'"
        value = attrs[name]
        values = list(value) if isinstance(value, tuple | list) else [value]
        lo = None if r["lo"] is None else evaluate(op, spec, what, r["lo"]["rpn"], shapes, attrs)
        hi = None if r["hi"] is None else evaluate(op, spec, what, r["hi"]["rpn"], shapes, attrs)
        for k, v in enumerate(values):
            ok = (lo is None or v > lo or (r["lo_closed"] and v == lo)) and (
                hi is None or v < hi or (r["hi_closed"] and v == hi))
            if ok:
                continue
            here = (("[" if r["lo_closed"] else "(")
                    + ("-inf" if lo is None else number_text(lo)) + ", "
                    + ("inf" if hi is None else number_text(hi))
                    + ("]" if r["hi_closed"] else ")"))
            label = name if len(values) == 1 and not isinstance(value, tuple | list) \
                else f"{name}[{k}]"
            which = "" if here == r["text"] else f", here {here}"
            raise ArgCheckError(f"{op}(): attr '{label}' is {number_text(v)}, outside its range "
                                f"{r['text']}{which} ({spec})")
    for c in checks.get("constraints", ()):
        if any(t not in shapes for t in c["inputs"]):
            continue  # names an absent optional input
        what = f"the constraint `{c['text']}`"
        a = evaluate(op, spec, what, c["lhs"]["rpn"], shapes, attrs)
        b = evaluate(op, spec, what, c["rhs"]["rpn"], shapes, attrs)
        if not _COMPARE[c["op"]](a, b):
            raise ArgCheckError(f"{op}(): the inputs break the constraint `{c['text']}` of "
                                f"{spec}: {c['lhs']['text']} is {number_text(a)} and "
                                f"{c['rhs']['text']} is {number_text(b)}")


def check_broadcast(op: str, names: Sequence[str], shapes: Sequence[Shape]) -> None:
    """The inputs of a broadcast(...) rule broadcast (numpy's rule)."""
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for k in range(rank):
        for s in shapes:
            j = k - rank + len(s)
            v = s[j] if j >= 0 else 1
            if v == 1:
                continue
            if out[k] not in (1, v):
                listed = [f"'{n}' {shape_text(s)}" for n, s in zip(names, shapes, strict=True)]
                raise ArgCheckError(f"{op}(): inputs {', '.join(listed[:-1])} and {listed[-1]} "
                                    "do not broadcast")
            out[k] = v


def check_empty(op: str, inputs: Sequence[tuple[str, Shape]],
                outputs: Sequence[tuple[str, Shape]]) -> bool:
    """The empty-tensor rule: True when some input has no elements and so neither has any
    output (the call returns empty outputs without a launch); an output with elements computed
    from an empty input is an error."""
    empty = next(((n, s) for n, s in inputs if 0 in s), None)
    if empty is None:
        return all(0 in s for _n, s in outputs) and bool(outputs)
    full = next(((n, s) for n, s in outputs if 0 not in s), None)
    if full is not None:
        size = int(np.prod(full[1], dtype=np.int64))
        raise ArgCheckError(f"{op}(): input '{empty[0]}' is empty (shape "
                            f"{shape_text(empty[1])}) but output '{full[0]}' would have "
                            f"{size} element{'s' if size != 1 else ''} (shape "
                            f"{shape_text(full[1])}); an op runs on empty inputs only when "
                            "every output is empty too")
    return True
