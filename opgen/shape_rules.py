"""Output shape rules (`infer:`): parsed from the spec into frozen objects, evaluated on shapes.

Grammar (a subset of Python call syntax, parsed with `ast`):
  same_as(x)                         the shape of input x
  broadcast(x, y, ...)               numpy broadcasting of the inputs' shapes
  reduce(x, axis=A, keepdim=K)       x's shape reduced over A (int, list of ints or an attr name);
                                     K is True/False or a bool attr name
  [d0, d1, ...]                      explicit dims: an int, an int attr name, or dim(x, i)
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from opgen.expr import MAX_EXPR_CHARS, ExprSyntaxError


@dataclass(frozen=True)
class SameAs:
    input: str

    def __str__(self) -> str:
        return f"same_as({self.input})"

    def to_json(self) -> dict[str, Any]:
        return {"rule": "same_as", "input": self.input}


@dataclass(frozen=True)
class Broadcast:
    inputs: tuple[str, ...]

    def __str__(self) -> str:
        return f"broadcast({', '.join(self.inputs)})"

    def to_json(self) -> dict[str, Any]:
        return {"rule": "broadcast", "inputs": list(self.inputs)}


AxisSpec = Union[int, tuple[int, ...], str]  # noqa: UP007 - a literal axis, axes, or an attr name


@dataclass(frozen=True)
class Reduce:
    input: str
    axis: AxisSpec
    keepdim: bool | str

    def __str__(self) -> str:
        axis = f"[{', '.join(map(str, self.axis))}]" if isinstance(self.axis, tuple) else self.axis
        return f"reduce({self.input}, axis={axis}, keepdim={self.keepdim})"

    def to_json(self) -> dict[str, Any]:
        axis = list(self.axis) if isinstance(self.axis, tuple) else self.axis
        return {"rule": "reduce", "input": self.input, "axis": axis, "keepdim": self.keepdim}


@dataclass(frozen=True)
class DimOf:
    input: str
    index: int

    def __str__(self) -> str:
        return f"dim({self.input}, {self.index})"


Dim = Union[int, str, DimOf]  # noqa: UP007 - literal, int attr name, or a dim of an input


@dataclass(frozen=True)
class Explicit:
    dims: tuple[Dim, ...]

    def __str__(self) -> str:
        return f"[{', '.join(str(d) for d in self.dims)}]"

    def to_json(self) -> dict[str, Any]:
        def dim(d: Dim) -> Any:
            return {"input": d.input, "index": d.index} if isinstance(d, DimOf) else d

        return {"rule": "explicit", "dims": [dim(d) for d in self.dims]}


ShapeRule = Union[SameAs, Broadcast, Reduce, Explicit]  # noqa: UP007

RULE_NAMES = ("same_as", "broadcast", "reduce", "dim")


def parse_rule(text: str) -> ShapeRule:
    """Parse an `infer:` string; raises ExprSyntaxError with a character offset."""
    if len(text) > MAX_EXPR_CHARS:
        raise ExprSyntaxError(f"shape rule of {len(text)} characters; the limit is "
                              f"{MAX_EXPR_CHARS}", MAX_EXPR_CHARS)
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ExprSyntaxError(f"invalid shape rule: {exc.msg}", (exc.offset or 1) - 1) from None
    except (RecursionError, MemoryError):
        raise ExprSyntaxError("shape rule nests too deeply", 0) from None
    if isinstance(node, ast.List):
        return Explicit(tuple(_dim(e) for e in node.elts))
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise ExprSyntaxError(
            "a shape rule is same_as(x), broadcast(x, y), reduce(x, axis=..., keepdim=...) "
            "or a list of dims", node.col_offset
        )
    fn = node.func.id
    args = [_name(a) for a in node.args]
    kwargs = {k.arg: k.value for k in node.keywords}
    if fn == "same_as":
        _expect(fn, node, 1, 1, ())
        return SameAs(args[0])
    if fn == "broadcast":
        _expect(fn, node, 1, 99, ())
        return Broadcast(tuple(args))
    if fn == "reduce":
        _expect(fn, node, 1, 1, ("axis", "keepdim"))
        if "axis" not in kwargs:
            raise ExprSyntaxError("reduce() needs axis=", node.col_offset)
        keep = kwargs.get("keepdim")
        keepdim: bool | str = False
        if keep is not None:
            if isinstance(keep, ast.Constant) and isinstance(keep.value, bool):
                keepdim = keep.value
            elif isinstance(keep, ast.Name):
                keepdim = keep.id
            else:
                raise ExprSyntaxError("keepdim must be True, False or a bool attr", keep.col_offset)
        return Reduce(args[0], _axis(kwargs["axis"]), keepdim)
    from opgen.diagnostics import did_you_mean

    raise ExprSyntaxError(
        f"unknown shape rule '{fn}'{did_you_mean(fn, ('same_as', 'broadcast', 'reduce'))}",
        node.col_offset,
    )


def _expect(fn: str, node: ast.Call, lo: int, hi: int, kws: Sequence[str]) -> None:
    if not lo <= len(node.args) <= hi:
        want = str(lo) if lo == hi else f"at least {lo}"
        raise ExprSyntaxError(f"{fn}() takes {want} input name(s), got {len(node.args)}",
                              node.col_offset)
    for k in node.keywords:
        if k.arg not in kws:
            raise ExprSyntaxError(f"{fn}() got an unexpected keyword '{k.arg}'", k.value.col_offset)


def _name(node: ast.expr) -> str:
    if not isinstance(node, ast.Name):
        raise ExprSyntaxError("expected an input name", node.col_offset)
    return node.id


def _int(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int):
        return -node.operand.value
    return None


def _axis(node: ast.expr) -> AxisSpec:
    literal = _int(node)
    if literal is not None:
        return literal
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.List | ast.Tuple):
        axes = [_int(e) for e in node.elts]
        if all(a is not None for a in axes):
            return tuple(a for a in axes if a is not None)
    raise ExprSyntaxError("axis must be an int, a list of ints or an attr name", node.col_offset)


def _dim(node: ast.expr) -> Dim:
    literal = _int(node)
    if literal is not None:
        if literal < 0:
            raise ExprSyntaxError("explicit dims must be >= 0", node.col_offset)
        return literal
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dim":
        if len(node.args) == 2 and isinstance(node.args[0], ast.Name):
            index = _int(node.args[1])
            if index is not None:
                return DimOf(node.args[0].id, index)
        raise ExprSyntaxError("dim() takes an input name and an integer index", node.col_offset)
    raise ExprSyntaxError("a dim is an int, an int attr name or dim(x, i)", node.col_offset)


def referenced_inputs(rule: ShapeRule) -> tuple[str, ...]:
    if isinstance(rule, SameAs):
        return (rule.input,)
    if isinstance(rule, Broadcast):
        return rule.inputs
    if isinstance(rule, Reduce):
        return (rule.input,)
    return tuple(d.input for d in rule.dims if isinstance(d, DimOf))


def referenced_attrs(rule: ShapeRule) -> tuple[str, ...]:
    if isinstance(rule, Reduce):
        out = [rule.axis] if isinstance(rule.axis, str) else []
        if isinstance(rule.keepdim, str):
            out.append(rule.keepdim)
        return tuple(out)
    if isinstance(rule, Explicit):
        return tuple(d for d in rule.dims if isinstance(d, str))
    return ()


def infer_shape(
    rule: ShapeRule, shapes: Mapping[str, tuple[int, ...]], attrs: Mapping[str, Any]
) -> tuple[int, ...]:
    """Apply a rule to concrete input shapes (the runtime's evaluator, on the rule's JSON)."""
    from opgen_runtime.shapes import infer_shape as runtime_infer

    return runtime_infer(rule.to_json(), shapes, attrs)
