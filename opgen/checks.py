"""Argument checks a spec declares beyond dtypes and shapes: attr ranges (`range:` on an attr)
and inter-input constraints (top-level `constraints:`).

Both are integer (or, for float attrs, numeric) expressions in a small part of the expression
language: numbers, int attrs, `rank(t)`, `dim(t, i)`, `rank` (the first input's rank), unary
minus and + - *. They compile once, here, to a postfix program over names
(`("dim", "x", -1)`, `("lit", 0)`, `("sub",)`...), which every frontend evaluates the same way:
the runtime's registry (opgen_runtime.argcheck, from the metadef's "checks") and the PyTorch and
TensorFlow C++ kernels (opgen_host/arg_check.h, from the generated OpDesc). See "Argument
checks" in docs/spec-reference.md.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opgen import expr as ex
from opgen.dtypes import AttrType

Node = tuple[Any, ...]  # ("lit", v) ("attr", name) ("rank", input) ("dim", input, axis) ("neg",)...


@dataclass(frozen=True)
class Bound:
    text: str  # canonical spelling
    rpn: tuple[Node, ...]


@dataclass(frozen=True)
class AttrRange:
    attr: str
    lo: Bound | None  # None: unbounded
    hi: Bound | None
    lo_closed: bool
    hi_closed: bool

    @property
    def text(self) -> str:
        return (("[" if self.lo_closed else "(") + (self.lo.text if self.lo else "-inf") + ", "
                + (self.hi.text if self.hi else "inf") + ("]" if self.hi_closed else ")"))


@dataclass(frozen=True)
class Constraint:
    text: str
    op: str  # == != < <= > >=
    lhs: Bound
    rhs: Bound
    inputs: tuple[str, ...]  # the inputs it names: skipped when one is absent


@dataclass(frozen=True)
class ArgChecks:
    ranges: tuple[AttrRange, ...] = ()
    constraints: tuple[Constraint, ...] = field(default=())


_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_BIN = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}
_BIN_TEXT = {"add": "+", "sub": "-", "mul": "*"}


class CheckError(Exception):
    pass


def _compile(node: ast.expr, inputs: Sequence[str], attrs: Mapping[str, AttrType],
             allow_float: bool, out: list[Node], names: set[str]) -> str:
    """Appends node's postfix program to `out`; returns its canonical text."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, bool) and isinstance(
            node.value, int | float):
        if isinstance(node.value, float) and not allow_float:
            raise CheckError(f"{node.value!r} is not an integer")
        out.append(("lit", node.value))
        return repr(node.value)
    if isinstance(node, ast.Name):
        if node.id == "rank":
            if not inputs:
                raise CheckError("`rank` needs an input")
            out.append(("rank", inputs[0]))
            names.add(inputs[0])
            return "rank"
        if node.id in ("inf", "-inf"):
            raise CheckError("inf is only a range bound")
        kind = attrs.get(node.id)
        if kind is None:
            from opgen.diagnostics import did_you_mean

            raise CheckError(f"unknown name '{node.id}'{did_you_mean(node.id, list(attrs))}; "
                             "use numbers, int attrs, rank(t), dim(t, i)")
        if kind is not AttrType.INT and not (allow_float and kind is AttrType.FLOAT):
            raise CheckError(f"attr '{node.id}' is {kind.value}; only int attrs can be used here")
        out.append(("attr", node.id))
        return node.id
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        if isinstance(node.operand, ast.Constant) and isinstance(node.operand.value,
                                                                 int | float):
            return _compile(ast.Constant(-node.operand.value), inputs, attrs, allow_float,
                            out, names)
        inner = _compile(node.operand, inputs, attrs, allow_float, out, names)
        out.append(("neg",))
        return f"-{inner}" if isinstance(node.operand, ast.Name | ast.Call) else f"-({inner})"
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        lhs = _compile(node.left, inputs, attrs, allow_float, out, names)
        rhs = _compile(node.right, inputs, attrs, allow_float, out, names)
        op = _BIN[type(node.op)]
        out.append((op,))
        return f"{lhs} {_BIN_TEXT[op]} {rhs}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        fn = node.func.id
        args = node.args
        if fn in ("rank", "dim") and args and isinstance(args[0], ast.Name):
            t = args[0].id
            if t not in inputs:
                from opgen.diagnostics import did_you_mean

                raise CheckError(f"{fn}(): '{t}' is not an input{did_you_mean(t, inputs)}")
            names.add(t)
            if fn == "rank" and len(args) == 1:
                out.append(("rank", t))
                return f"rank({t})"
            if fn == "dim" and len(args) == 2:
                axis = args[1]
                sign = 1
                if isinstance(axis, ast.UnaryOp) and isinstance(axis.op, ast.USub):
                    axis, sign = axis.operand, -1
                if (isinstance(axis, ast.Constant) and isinstance(axis.value, int)
                        and not isinstance(axis.value, bool)):
                    out.append(("dim", t, sign * axis.value))
                    return f"dim({t}, {sign * axis.value})"
                raise CheckError("dim(t, i): i must be an integer literal")
        raise CheckError(f"unsupported call {ast.unparse(node)}; use rank(t) or dim(t, i)")
    raise CheckError(f"'{ast.unparse(node)}' is not allowed here; use numbers, int attrs, "
                     "rank(t), dim(t, i), unary minus and + - *")


def _expr(text: str) -> ast.expr:
    try:
        return ex.parse_tree(text)
    except ex.ExprSyntaxError as exc:
        raise CheckError(exc.message) from None


def _bound(text: str, inputs: Sequence[str], attrs: Mapping[str, AttrType],
           allow_float: bool) -> Bound:
    rpn: list[Node] = []
    canonical = _compile(_expr(text), inputs, attrs, allow_float, rpn, set())
    return Bound(canonical, tuple(rpn))


def _split_top(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_range(raw: Any, attr: str, kind: AttrType, inputs: Sequence[str],
                attrs: Mapping[str, AttrType]) -> AttrRange:
    """`range:` of an attr: "[lo, hi)" in interval notation (either end open or closed; `inf`
    or `-inf`, or nothing, for no bound) or a list [lo, hi] (closed)."""
    if kind not in (AttrType.INT, AttrType.FLOAT, AttrType.LIST_INT, AttrType.LIST_FLOAT):
        raise CheckError(f"attr '{attr}' is {kind.value}; only int, float, list_int and "
                         "list_float attrs take a range")
    allow_float = kind in (AttrType.FLOAT, AttrType.LIST_FLOAT)
    if isinstance(raw, list):
        if len(raw) != 2:
            raise CheckError("a range list is [lo, hi]")
        ends = [str(v) if v is not None else "" for v in raw]
        lo_closed = hi_closed = True
    elif isinstance(raw, str):
        text = raw.strip()
        if len(text) < 2 or text[0] not in "[(" or text[-1] not in "])":
            raise CheckError(f"range '{raw}' must look like \"[lo, hi)\": [ or ( then two "
                             "bounds separated by a comma, then ] or )")
        ends = _split_top(text[1:-1])
        if len(ends) != 2:
            raise CheckError(f"range '{raw}' must have two bounds separated by a comma")
        lo_closed, hi_closed = text[0] == "[", text[-1] == "]"
    else:
        raise CheckError("range must be a string like \"[-rank(x), rank(x))\" or a list [lo, hi]")
    bounds: list[Bound | None] = []
    for end, word in zip(ends, ("-inf", "inf"), strict=True):
        end = end.strip()
        if end in ("", word, "+inf" if word == "inf" else word):
            bounds.append(None)
        else:
            bounds.append(_bound(end, inputs, attrs, allow_float))
    lo, hi = bounds
    if lo is None and hi is None:
        raise CheckError("a range needs at least one bound")
    return AttrRange(attr, lo, hi, lo_closed and lo is not None, hi_closed and hi is not None)


def parse_constraint(text: Any, inputs: Sequence[str],
                     attrs: Mapping[str, AttrType]) -> Constraint:
    if not isinstance(text, str):
        raise CheckError("a constraint is a string, e.g. \"dim(gamma, 0) == dim(x, -1)\"")
    node = _expr(text)
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1
            and type(node.ops[0]) in _CMP):
        raise CheckError("a constraint compares two values: lhs == rhs (or != < <= > >=)")
    names: set[str] = set()
    lhs: list[Node] = []
    rhs: list[Node] = []
    lhs_text = _compile(node.left, inputs, attrs, False, lhs, names)
    rhs_text = _compile(node.comparators[0], inputs, attrs, False, rhs, names)
    op = _CMP[type(node.ops[0])]
    return Constraint(f"{lhs_text} {op} {rhs_text}", op, Bound(lhs_text, tuple(lhs)),
                      Bound(rhs_text, tuple(rhs)), tuple(n for n in inputs if n in names))


def static_value(b: Bound) -> float | None:
    """A bound's value when it is a literal."""
    return b.rpn[0][1] if len(b.rpn) == 1 and b.rpn[0][0] == "lit" else None


def in_static_range(r: AttrRange, value: float) -> bool:
    lo = static_value(r.lo) if r.lo else None
    hi = static_value(r.hi) if r.hi else None
    if lo is not None and (value < lo or (value == lo and not r.lo_closed)):
        return False
    return not (hi is not None and (value > hi or (value == hi and not r.hi_closed)))


def build(data: Mapping[str, Any], inputs: Sequence[str], attrs: Mapping[str, AttrType],
          defaults: Mapping[str, Any], err: Callable[[tuple[Any, ...], str], None]) -> ArgChecks:
    """The spec's ranges and constraints; errors go to `err(path, message)`."""
    ranges: list[AttrRange] = []
    for i, raw in enumerate(data.get("attr_desc") or ()):
        if not isinstance(raw, Mapping) or "range" not in raw or raw.get("name") not in attrs:
            continue
        name = raw["name"]
        try:
            r = parse_range(raw["range"], name, attrs[name], inputs, attrs)
        except CheckError as exc:
            err(("attr_desc", i, "range"), f"attr '{name}': {exc}")
            continue
        default = defaults.get(name)
        values = default if isinstance(default, tuple) else (default,)
        for v in values:
            if isinstance(v, int | float) and not isinstance(v, bool) and not in_static_range(
                    r, v):
                err(("attr_desc", i, "default"),
                    f"attr '{name}' default {v} is outside its range {r.text}")
        ranges.append(r)
    constraints: list[Constraint] = []
    raw_list = data.get("constraints")
    if raw_list is not None and not isinstance(raw_list, list):
        err(("constraints",), "constraints must be a list of strings")
        raw_list = []
    for k, text in enumerate(raw_list or ()):
        try:
            constraints.append(parse_constraint(text, inputs, attrs))
        except CheckError as exc:
            err(("constraints", k), f"constraint {text!r}: {exc}")
    return ArgChecks(tuple(ranges), tuple(constraints))


# -- what the emitters write ---------------------------------------------------------------------
def attr_specs_source(attrs: Sequence[Any]) -> str:
    """Python source of the (name, type, required, default) tuples that the generated torch and
    TF wrappers pass to opgen_runtime.argcheck.check_attrs (every attr is given there: the
    default is never read)."""
    items = "".join(f"({a.name!r}, {a.type.value!r}, {a.required!r}, None), " for a in attrs)
    return f"({items.rstrip()})"


def _rpn_json(b: Bound | None) -> Any:
    return None if b is None else {"text": b.text, "rpn": [list(n) for n in b.rpn]}


def to_json(checks: ArgChecks, spec_path: str) -> dict[str, Any]:
    """The metadef's "checks": what opgen_runtime.argcheck evaluates."""
    return {
        "spec": spec_path,
        "ranges": [{"attr": r.attr, "text": r.text, "lo": _rpn_json(r.lo), "hi": _rpn_json(r.hi),
                    "lo_closed": r.lo_closed, "hi_closed": r.hi_closed} for r in checks.ranges],
        "constraints": [{"text": c.text, "op": c.op, "lhs": _rpn_json(c.lhs),
                         "rhs": _rpn_json(c.rhs), "inputs": list(c.inputs)}
                        for c in checks.constraints],
    }
