"""The expression language of `reference` and `backward`: a whitelisted subset of Python.

Parsed once with `ast` into a small frozen tree; `str(parse(text))` gives the canonical
spelling back. The same tree is evaluated with numpy here and translated by the emitters
for PyTorch, TensorFlow and Ascend C, so every construct below must have a meaning in all
of them. See "Expression language" in docs/spec-reference.md.
"""

from __future__ import annotations

import ast
import enum
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Union

from opgen.dtypes import DType, parse_dtype


class ExprSyntaxError(Exception):
    """A parse or check error at `offset` characters into the expression text."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass(frozen=True)
class Name:
    id: str
    offset: int = 0

    def __str__(self) -> str:
        return self.id


@dataclass(frozen=True)
class Const:
    value: int | float | bool
    offset: int = 0

    def __str__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True)
class DTypeLit:
    dtype: DType
    offset: int = 0

    def __str__(self) -> str:
        return self.dtype.value


@dataclass(frozen=True)
class AxisTuple:
    axes: tuple[int, ...]
    offset: int = 0

    def __str__(self) -> str:
        inner = ", ".join(str(a) for a in self.axes)
        return f"({inner},)" if len(self.axes) == 1 else f"({inner})"


@dataclass(frozen=True)
class Unary:
    op: str  # "-" or "+"
    operand: Expr
    offset: int = 0

    def __str__(self) -> str:
        return f"{self.op}{_paren(self.operand, 7)}"


@dataclass(frozen=True)
class Binary:
    op: str  # + - * / **
    lhs: Expr
    rhs: Expr
    offset: int = 0

    def __str__(self) -> str:
        prec = _PREC[self.op]
        if self.op == "**":  # right-associative
            return f"{_paren(self.lhs, prec + 1)} ** {_paren(self.rhs, prec)}"
        return f"{_paren(self.lhs, prec)} {self.op} {_paren(self.rhs, prec + 1)}"


@dataclass(frozen=True)
class Compare:
    op: str  # > < >= <= == !=
    lhs: Expr
    rhs: Expr
    offset: int = 0

    def __str__(self) -> str:
        # a comparison operand is parenthesised: `a > b > c` would read as a chain
        return f"{_paren(self.lhs, 4)} {self.op} {_paren(self.rhs, 4)}"


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...] = ()
    offset: int = 0

    def kwarg(self, name: str) -> Expr | None:
        for key, value in self.kwargs:
            if key == name:
                return value
        return None

    def __str__(self) -> str:
        parts = [str(a) for a in self.args] + [f"{k}={v}" for k, v in self.kwargs]
        return f"{self.func}({', '.join(parts)})"


Expr = Union[Name, Const, DTypeLit, AxisTuple, Unary, Binary, Compare, Call]  # noqa: UP007

_PREC = {"+": 4, "-": 4, "*": 5, "/": 5, "**": 8}


def _prec_of(e: Expr) -> int:
    if isinstance(e, Binary):
        return _PREC[e.op]
    if isinstance(e, Compare):
        return 3
    if isinstance(e, Unary):
        return 7
    if isinstance(e, Const) and isinstance(e.value, (int, float)) and e.value < 0:
        return 7
    return 10


def _paren(e: Expr, min_prec: int) -> str:
    return f"({e})" if _prec_of(e) < min_prec else str(e)


class FuncKind(enum.Enum):
    ELEMENTWISE = "elementwise"  # result has the broadcast shape of its tensor arguments
    REDUCTION = "reduction"  # sum/mean/max/min with axis= and keepdims=
    SPECIAL = "special"  # cast, dtype, sum_to, opt: arguments with their own rules


@dataclass(frozen=True)
class FuncSig:
    arity: int
    kind: FuncKind
    doc: str


FUNCTIONS: Mapping[str, FuncSig] = {
    "exp": FuncSig(1, FuncKind.ELEMENTWISE, "e ** a"),
    "log": FuncSig(1, FuncKind.ELEMENTWISE, "natural logarithm"),
    "sqrt": FuncSig(1, FuncKind.ELEMENTWISE, "square root"),
    "rsqrt": FuncSig(1, FuncKind.ELEMENTWISE, "1 / sqrt(a)"),
    "reciprocal": FuncSig(1, FuncKind.ELEMENTWISE, "1 / a"),
    "tanh": FuncSig(1, FuncKind.ELEMENTWISE, "hyperbolic tangent"),
    "sigmoid": FuncSig(1, FuncKind.ELEMENTWISE, "1 / (1 + exp(-a))"),
    "relu": FuncSig(1, FuncKind.ELEMENTWISE, "maximum(a, 0)"),
    "abs": FuncSig(1, FuncKind.ELEMENTWISE, "absolute value"),
    "sign": FuncSig(1, FuncKind.ELEMENTWISE, "-1, 0 or 1"),
    "maximum": FuncSig(2, FuncKind.ELEMENTWISE, "element-wise maximum"),
    "minimum": FuncSig(2, FuncKind.ELEMENTWISE, "element-wise minimum"),
    "where": FuncSig(3, FuncKind.ELEMENTWISE, "where(cond, a, b): a where cond holds, else b"),
    "sum": FuncSig(1, FuncKind.REDUCTION, "sum over axis (all axes by default)"),
    "mean": FuncSig(1, FuncKind.REDUCTION, "mean over axis"),
    "max": FuncSig(1, FuncKind.REDUCTION, "maximum over axis"),
    "min": FuncSig(1, FuncKind.REDUCTION, "minimum over axis"),
    "cast": FuncSig(2, FuncKind.SPECIAL,
                    "cast(a, dtype): dtype is a name (float16), a `type` attr or dtype(x)"),
    "dtype": FuncSig(1, FuncKind.SPECIAL, "dtype(x): the dtype of input or output x"),
    "sum_to": FuncSig(2, FuncKind.SPECIAL,
                      "sum_to(a, x): sum a down to the shape of x (undoes broadcasting)"),
    "opt": FuncSig(2, FuncKind.SPECIAL,
                   "opt(x, value): optional input x, or value when it is absent"),
}

REDUCTION_KWARGS = ("axis", "keepdims")

_BINOPS: Mapping[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
}
_CMPOPS: Mapping[type[ast.cmpop], str] = {
    ast.Gt: ">", ast.Lt: "<", ast.GtE: ">=", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!=",
}


# Bounds on an expression (docs/reliability.md): far beyond any real reference, and within
# what the parser and the recursive emitters handle on any stack.
MAX_EXPR_CHARS = 4096
MAX_EXPR_DEPTH = 100  # nested operators, calls and operands; a chain a + b + ... is one per +
INT64_MAX = (1 << 63) - 1


def parse_tree(text: str) -> ast.expr:
    """`ast.parse` of an expression (or shape rule) within the bounds: ExprSyntaxError
    with a character offset otherwise."""
    source = " ".join(text.split("\n"))  # folded YAML scalars keep their columns on one line
    if len(source) > MAX_EXPR_CHARS:
        raise ExprSyntaxError(f"expression of {len(source)} characters; the limit is "
                              f"{MAX_EXPR_CHARS} (split the computation into several ops)",
                              MAX_EXPR_CHARS)
    try:
        tree = ast.parse(source.strip() and source, mode="eval")
    except SyntaxError as exc:
        offset = (exc.offset or 1) - 1
        raise ExprSyntaxError(f"invalid expression: {exc.msg}", offset) from None
    except (RecursionError, MemoryError):
        raise ExprSyntaxError(_too_deep(), 0) from None
    stack: list[tuple[ast.AST, int]] = [(tree.body, 1)]
    while stack:  # iterative: the check must not be what overflows
        node, depth = stack.pop()
        if depth > MAX_EXPR_DEPTH:
            raise ExprSyntaxError(_too_deep(), getattr(node, "col_offset", 0))
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node)
                     if isinstance(child, ast.expr | ast.keyword))
    return tree.body


def _too_deep() -> str:
    return (f"expression nests deeper than {MAX_EXPR_DEPTH} levels (each operator of a chain "
            "like a + b + c is a level); split it into several ops")


def parse(text: str) -> Expr:
    """Parse expression text; raises ExprSyntaxError with a character offset."""
    return _convert(parse_tree(text))


def _convert(node: ast.expr) -> Expr:
    off = getattr(node, "col_offset", 0)
    if isinstance(node, ast.Name):
        dtype = parse_dtype(node.id) if node.id in _DTYPE_WORDS else None
        return DTypeLit(dtype, off) if dtype is not None else Name(node.id, off)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return Const(node.value, off)
        if isinstance(node.value, int) and node.value > INT64_MAX:
            raise ExprSyntaxError(f"integer {_clip(str(node.value))} does not fit in 64 bits",
                                  off)
        if isinstance(node.value, float) and math.isinf(node.value):
            raise ExprSyntaxError("number out of range (beyond float64, about 1.8e308)", off)
        if isinstance(node.value, (int, float)):
            return Const(node.value, off)
        raise ExprSyntaxError(
            f"unsupported constant {node.value!r}; use numbers or True/False", off)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _convert(node.operand)
        sign = "-" if isinstance(node.op, ast.USub) else "+"
        if isinstance(inner, Const) and not isinstance(inner.value, bool):
            return Const(-inner.value if sign == "-" else inner.value, off)
        return Unary(sign, inner, off)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return Binary(_BINOPS[type(node.op)], _convert(node.left), _convert(node.right), off)
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1 or type(node.ops[0]) not in _CMPOPS:
            raise ExprSyntaxError("chained or unsupported comparison; compare two values", off)
        op = _CMPOPS[type(node.ops[0])]
        return Compare(op, _convert(node.left), _convert(node.comparators[0]), off)
    if isinstance(node, ast.Tuple | ast.List):
        axes: list[int] = []
        for elt in node.elts:
            value = _convert(elt)
            if not isinstance(value, Const) or isinstance(value.value, bool) or not isinstance(
                value.value, int
            ):
                raise ExprSyntaxError("a tuple may only hold integer axes", elt.col_offset)
            axes.append(int(value.value))
        return AxisTuple(tuple(axes), off)
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name):
            raise ExprSyntaxError("only calls of the built-in functions are allowed", off)
        name = node.func.id
        if name not in FUNCTIONS:
            from opgen.diagnostics import did_you_mean

            raise ExprSyntaxError(
                f"unknown function '{name}'{did_you_mean(name, FUNCTIONS)}", off
            )
        sig = FUNCTIONS[name]
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            raise ExprSyntaxError(f"{name}(): * and ** arguments are not allowed", off)
        if len(node.args) != sig.arity:
            raise ExprSyntaxError(
                f"{name}() takes {sig.arity} positional argument"
                f"{'s' if sig.arity != 1 else ''}, got {len(node.args)}", off
            )
        allowed = REDUCTION_KWARGS if sig.kind is FuncKind.REDUCTION else ()
        kwargs: list[tuple[str, Expr]] = []
        for kw in node.keywords:
            assert kw.arg is not None
            if kw.arg not in allowed:
                hint = f"; {name}() takes {' and '.join(allowed)}" if allowed else ""
                raise ExprSyntaxError(
                    f"{name}() got an unexpected keyword '{kw.arg}'{hint}", kw.value.col_offset
                )
            kwargs.append((kw.arg, _convert(kw.value)))
        return Call(name, tuple(_convert(a) for a in node.args), tuple(kwargs), off)
    desc, hint = _FRIENDLY.get(type(node).__name__, (type(node).__name__, ""))
    raise ExprSyntaxError(f"{desc} is not part of the expression language{hint}", off)


def _clip(text: str, width: int = 24) -> str:
    return text if len(text) <= width else f"{text[:width - 3]}..."


_FRIENDLY = {
    "IfExp": ("a conditional (a if c else b)", "; use where(c, a, b)"),
    "Attribute": ("attribute access (x.name)", "; use the functions, e.g. sum(x, axis=0)"),
    "BoolOp": ("and/or", "; use where(), or multiply comparisons"),
    "Subscript": ("indexing (x[i])", ""),
    "Lambda": ("lambda", ""),
    "BinOp": ("this operator", "; use + - * / **"),
    "UnaryOp": ("this unary operator", "; use - or not at all"),
}


_DTYPE_WORDS = frozenset(
    ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64",
     "uint8", "uint16", "uint32", "uint64", "bool", "half", "double", "fp16", "fp32", "bf16"]
)


def walk(e: Expr) -> Iterator[Expr]:
    """Every node of the tree, parents before children."""
    yield e
    if isinstance(e, Unary):
        yield from walk(e.operand)
    elif isinstance(e, Binary | Compare):
        yield from walk(e.lhs)
        yield from walk(e.rhs)
    elif isinstance(e, Call):
        for a in e.args:
            yield from walk(a)
        for _, v in e.kwargs:
            yield from walk(v)


def names(e: Expr) -> set[str]:
    return {n.id for n in walk(e) if isinstance(n, Name)}


def is_elementwise(e: Expr) -> bool:
    """True when every output element depends only on the same element of the inputs."""
    for node in walk(e):
        if isinstance(node, Call) and FUNCTIONS[node.func].kind is not FuncKind.ELEMENTWISE:
            if node.func in ("cast", "dtype", "opt"):
                continue
            return False
    return True


# ---------------------------------------------------------------------------------------------
# numpy evaluation (the reference semantics every other translation is tested against)


def _numpy_functions() -> dict[str, Callable[..., Any]]:
    import numpy as np

    from opgen_runtime import exprlib  # the helpers generated numpy code calls, shared

    def reduction(fn: Callable[..., Any]) -> Callable[..., Any]:
        def apply(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
            return fn(a, axis=axis, keepdims=keepdims)

        return apply

    def rsqrt(a: Any) -> Any:
        return 1 / np.sqrt(a)

    def sigmoid(a: Any) -> Any:
        return 1 / (1 + np.exp(-a))

    return {
        "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": rsqrt,
        "reciprocal": np.reciprocal, "tanh": np.tanh, "sigmoid": sigmoid,
        "relu": exprlib.np_relu, "abs": np.abs,
        "sign": np.sign, "maximum": np.maximum, "minimum": np.minimum, "where": np.where,
        "sum": reduction(np.sum), "mean": reduction(np.mean), "max": reduction(np.max),
        "min": reduction(np.min), "sum_to": exprlib.np_sum_to,
    }


def evaluate(e: Expr, env: Mapping[str, Any]) -> Any:
    """Evaluate with numpy. `env` maps names to arrays, scalars, dtypes (for `type` attrs)
    or None (an absent optional input)."""
    import numpy as np

    fns = _numpy_functions()

    def ev(node: Expr) -> Any:
        if isinstance(node, Name):
            return env[node.id]
        if isinstance(node, Const):
            return node.value
        if isinstance(node, DTypeLit):
            return np.dtype(node.dtype.value)
        if isinstance(node, AxisTuple):
            return node.axes
        if isinstance(node, Unary):
            v = ev(node.operand)
            return -v if node.op == "-" else v
        if isinstance(node, Binary):
            lhs, rhs = ev(node.lhs), ev(node.rhs)
            ops: dict[str, Callable[[Any, Any], Any]] = {
                "+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide,
                "**": np.power,
            }
            return ops[node.op](lhs, rhs)
        if isinstance(node, Compare):
            cmp: dict[str, Callable[[Any, Any], Any]] = {
                ">": np.greater, "<": np.less, ">=": np.greater_equal, "<=": np.less_equal,
                "==": np.equal, "!=": np.not_equal,
            }
            return cmp[node.op](ev(node.lhs), ev(node.rhs))
        assert isinstance(node, Call)
        if node.func == "opt":
            value = ev(node.args[0])
            return ev(node.args[1]) if value is None else value
        if node.func == "dtype":
            return np.asarray(ev(node.args[0])).dtype
        if node.func == "cast":
            return np.asarray(ev(node.args[0])).astype(np.dtype(ev(node.args[1])))
        args = [ev(a) for a in node.args]
        kwargs = {k: ev(v) for k, v in node.kwargs}
        if isinstance(kwargs.get("axis"), list):
            kwargs["axis"] = tuple(kwargs["axis"])
        return fns[node.func](*args, **kwargs)

    return ev(e)
