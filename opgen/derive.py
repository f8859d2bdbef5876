"""Derived gradients: `backward:` expressions computed from the `reference` with sympy.

The reference (one expression per output, in opgen's expression language) is translated to
sympy; sympy differentiates and simplifies; a sympy printer (`LanguagePrinter`, a
`StrPrinter`) writes the result back in opgen's expression language, which the project's
printers (opgen.expr_translate) turn into numpy, PyTorch and TensorFlow source like any
hand-written `backward:`. Nothing here differentiates: the element-wise parts are sympy's
`diff`; reductions are opaque symbols whose vector-Jacobian products follow their
definitions (below). See docs/gradients.md.

Rules for the non-smooth pieces (derivatives almost everywhere; at a kink the branch named
here is taken, and they match torch where torch has one answer):
  where(c, a, b)    where(c, da, db): the condition is piecewise constant
  comparisons       derivative 0 (as values they are where(c, 1, 0))
  relu(a)           where(a > 0, da, 0): 0 at a == 0, like torch.relu
  maximum(a, b)     where(a > b, da, db): at a tie the second argument's derivative, so
  minimum(a, b)     where(a < b, da, db)  maximum(x, 0) has 0 at 0 like relu
  abs(a), sign(a)   sign(a) * da (0 at 0, like torch); sign's derivative is 0
  cast(a, t)        the identity (straight-through); the gradient is cast back to the
                    input's dtype
  max/min(a, axis)  the incoming gradient goes to every element equal to the extremum
  integer inputs    no gradient
`sum_to`, reductions with keepdims=False over a given axis (the language cannot re-expand
the axis) and a keepdims given by an attr are not derived: such ops need a hand-written
`backward:`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opgen import expr as ex

# Bigger expressions are only canonicalised (sympy's simplify is slow on them).
_SIMPLIFY_MAX_OPS = 80
_UNSUPPORTED = "cannot be derived"


class NotDerivable(Exception):
    """The reference uses a construct whose gradient is not derived; the message says which."""


@dataclass(frozen=True)
class Tensor:
    """What derivation needs of an input or output."""

    name: str
    floating: bool  # has a floating dtype (integer-only tensors get no gradient)
    optional: bool = False
    reduced: bool = False  # outputs only: the shape rule is reduce(...)
    same_shape: bool = True  # inputs only: every output's shape rule is same_as(this input)


@dataclass(frozen=True)
class Problem:
    """The op as derivation sees it: reference expressions in evaluation order."""

    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]
    attrs: tuple[str, ...]
    reference: tuple[tuple[str, ex.Expr], ...]

    def key(self) -> str:
        parts = [repr(self.inputs), repr(self.outputs), repr(self.attrs),
                 repr([(o, str(e)) for o, e in self.reference])]
        return "\n".join(parts)

    def derive_key(self) -> str:
        """key() without the attrs no reference expression names (derivation only looks attrs
        up by the names it meets): ops that differ only in unused attrs share one result."""
        texts = [str(e) for _, e in self.reference]
        used = tuple(a for a in self.attrs
                     if any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(a)}(?![A-Za-z0-9_])", t)
                            for t in texts))
        return Problem(self.inputs, self.outputs, used, self.reference).key()


def _sympy() -> Any:
    import sympy

    return sympy


@functools.cache
def _sigmoid_class() -> Any:
    base: Any = _sympy().Function

    class sigmoid(base):  # type: ignore[misc]
        nargs = 1

        def fdiff(self, argindex: int = 1) -> Any:
            s = sigmoid(self.args[0])
            return s * (1 - s)

    return sigmoid


@dataclass
class _Node:
    """An output or a reduction: a value whose adjoint is accumulated before its operand's."""

    symbol: Any
    expr: Any  # sympy: the element-wise expression (a reduction's operand)
    func: str = ""  # "" for outputs; sum/mean/max/min for reductions
    axis: str = "None"  # the axis argument, in the language
    keepdims: bool = False
    upstream: list[tuple[Any, bool]] = field(default_factory=list)  # (term, full-shaped)


@dataclass
class _Ctx:
    problem: Problem
    symbols: dict[str, Any] = field(default_factory=dict)  # language names -> symbols
    text: dict[Any, str] = field(default_factory=dict)  # symbol -> language text
    leaf_input: dict[Any, str] = field(default_factory=dict)  # input symbol -> input name
    # symbol -> axes it is reduced over: None full-shaped, "all", or an axis's text
    reduced: dict[Any, str | None] = field(default_factory=dict)
    nodes: list[_Node] = field(default_factory=list)
    node_of: dict[Any, _Node] = field(default_factory=dict)
    reductions: dict[tuple[str, str, str, bool], _Node] = field(default_factory=dict)
    adjoints: set[Any] = field(default_factory=set)  # symbols of the adjoints' reductions
    counts: dict[Any, _Node] = field(default_factory=dict)  # symbol -> the mean it counts
    named_outputs: set[Any] = field(default_factory=set)  # outputs gradients may name
    has_cast: bool = False
    counter: int = 0

    def fresh(self, prefix: str) -> Any:
        self.counter += 1
        return _sympy().Symbol(f"_{prefix}{self.counter}", real=True)


def _number(value: int | float) -> Any:
    sp = _sympy()
    if isinstance(value, bool):
        return sp.Integer(int(value))
    if isinstance(value, int):
        return sp.Integer(value)
    return sp.Rational(repr(value))  # exact decimal: 0.1 is 1/10, printed back as 0.1


class _ToSympy:
    def __init__(self, ctx: _Ctx, attrs: Sequence[str]) -> None:
        self.ctx = ctx
        self.attrs = set(attrs)
        self.inputs = {t.name: t for t in ctx.problem.inputs}
        self.outputs = {t.name for t in ctx.problem.outputs}

    def name(self, name: str, text: str, input_name: str | None = None,
             reduced: str | None = None) -> Any:
        ctx = self.ctx
        if text not in ctx.symbols:
            sym = _sympy().Symbol(name, real=True)
            ctx.symbols[text] = sym
            ctx.text[sym] = text
            ctx.reduced[sym] = reduced
            if input_name is not None:
                ctx.leaf_input[sym] = input_name
        return ctx.symbols[text]

    def cond(self, e: ex.Expr) -> Any:
        sp = _sympy()
        if isinstance(e, ex.Compare):
            rel = {">": sp.Gt, "<": sp.Lt, ">=": sp.Ge, "<=": sp.Le, "==": sp.Eq, "!=": sp.Ne}
            return rel[e.op](self.value(e.lhs), self.value(e.rhs))
        if isinstance(e, ex.Const) and isinstance(e.value, bool):
            return sp.true if e.value else sp.false
        if isinstance(e, ex.Name) and e.id in self.attrs:
            sym = sp.Symbol(e.id)  # a bool attr: a boolean symbol
            self.ctx.text[sym] = e.id
            return sym
        raise NotDerivable(f"the condition '{e}' is not a comparison")

    def value(self, e: ex.Expr) -> Any:
        sp = _sympy()
        if isinstance(e, ex.Name):
            if e.id in self.inputs:
                return self.name(e.id, e.id, e.id)
            if e.id in self.outputs:
                return self.ctx.symbols[e.id]
            return self.name(e.id, e.id, reduced="all")  # an attr
        if isinstance(e, ex.Const):
            return _number(e.value)
        if isinstance(e, ex.Unary):
            v = self.value(e.operand)
            return -v if e.op == "-" else v
        if isinstance(e, ex.Binary):
            a, b = self.value(e.lhs), self.value(e.rhs)
            if e.op == "+":
                return a + b
            if e.op == "-":
                return a - b
            if e.op == "*":
                return a * b
            if e.op == "/":
                return a / b
            return a ** b
        if isinstance(e, ex.Compare):
            return sp.Piecewise((1, self.cond(e)), (0, True))
        if isinstance(e, ex.Call):
            return self.call(e)
        raise NotDerivable(f"'{e}' {_UNSUPPORTED}")

    def call(self, e: ex.Call) -> Any:
        sp = _sympy()
        f = e.func
        if f == "opt":
            first = e.args[0]
            assert isinstance(first, ex.Name)
            return self.name(first.id, str(e), first.id)
        if f == "cast":
            self.ctx.has_cast = True
            return self.value(e.args[0])
        if f in ("sum", "mean", "max", "min"):
            return self.reduction(e)
        if f in ("sum_to", "dtype"):
            raise NotDerivable(f"{f}() in the reference {_UNSUPPORTED}")
        args = [self.value(a) for a in e.args[1:]] if f == "where" else [
            self.value(a) for a in e.args]
        if f == "where":
            return sp.Piecewise((args[0], self.cond(e.args[0])), (args[1], True))
        a = args[0]
        simple = {"exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt, "tanh": sp.tanh,
                  "abs": sp.Abs, "sign": sp.sign, "sigmoid": _sigmoid_class()}
        if f in simple:
            return simple[f](a)
        if f == "rsqrt":
            return 1 / sp.sqrt(a)
        if f == "reciprocal":
            return 1 / a
        if f == "relu":
            return sp.Piecewise((a, a > 0), (0, True))
        if f == "maximum":
            return sp.Piecewise((a, a > args[1]), (args[1], True))
        if f == "minimum":
            return sp.Piecewise((a, a < args[1]), (args[1], True))
        raise NotDerivable(f"{f}() {_UNSUPPORTED}")

    def reduction(self, e: ex.Call) -> Any:
        axis_e, keep_e = e.kwarg("axis"), e.kwarg("keepdims")
        axis = str(axis_e) if axis_e is not None else "None"
        if keep_e is not None and not isinstance(keep_e, ex.Const):
            raise NotDerivable(f"{e.func}() with keepdims={keep_e} (an attr) {_UNSUPPORTED}")
        keep = bool(keep_e.value) if isinstance(keep_e, ex.Const) else False
        if not keep and axis != "None":
            raise NotDerivable(f"{e.func}() over an axis with keepdims=False {_UNSUPPORTED} "
                               "(the language cannot re-insert the axis)")
        operand = self.value(e.args[0])
        key = (e.func, _sympy().srepr(operand), axis, keep)
        node = self.ctx.reductions.get(key)
        if node is None:
            sym = self.ctx.fresh("r")
            node = _Node(sym, operand, e.func, axis, keep)
            self.ctx.reductions[key] = node
            self.ctx.nodes.append(node)
            self.ctx.node_of[sym] = node
            self.ctx.reduced[sym] = axis if axis != "None" else "all"
            self.ctx.text[sym] = ""  # printed from its definition
        return node.symbol


class LanguagePrinter:
    """sympy -> opgen's expression language, built on sympy's StrPrinter (whose precedence
    rules and Add/Mul/Pow layout the language shares, being Python)."""

    def __init__(self, ctx: _Ctx) -> None:
        from sympy.printing.str import StrPrinter

        outer = self

        class _Printer(StrPrinter):  # type: ignore[misc]
            def _print_Symbol(self, s: Any) -> str:
                return outer.symbol(s)

            def _print_Integer(self, n: Any) -> str:
                return str(int(n))

            def _print_Rational(self, r: Any) -> str:
                return outer.rational(r)

            def _print_Float(self, f: Any) -> str:
                return repr(float(f))

            def _print_Half(self, r: Any) -> str:
                return "0.5"

            def _print_Exp1(self, e: Any) -> str:
                return "exp(1)"

            def _print_Abs(self, e: Any) -> str:
                return f"abs({self._print(e.args[0])})"

            def _print_Pow(self, e: Any, rational: bool = False) -> str:
                sp = _sympy()
                base, power = e.args
                if power == sp.Rational(-1, 2):
                    return f"rsqrt({self._print(base)})"
                if power == sp.Rational(1, 2):
                    return f"sqrt({self._print(base)})"
                return str(super()._print_Pow(e, rational))

            def _print_Piecewise(self, e: Any) -> str:
                return outer.piecewise(e)

            def _print_Relational(self, e: Any) -> str:
                op = {"==": "==", "!=": "!=", ">": ">", "<": "<", ">=": ">=",
                      "<=": "<="}[e.rel_op]
                return f"{self._print(e.lhs)} {op} {self._print(e.rhs)}"

            def emptyPrinter(self, e: Any) -> str:
                raise NotDerivable(f"sympy produced {type(e).__name__}, which the language "
                                   "does not have")

            def _print_Function(self, e: Any) -> str:
                name = type(e).__name__
                if name in ("exp", "log", "tanh", "sign", "sigmoid"):
                    return f"{name}({self._print(e.args[0])})"
                raise NotDerivable(f"sympy produced {name}(), which the language does not have")

        self.ctx = ctx
        self.printer = _Printer({"order": "none"})
        self.memo: dict[Any, str] = {}
        self.simplify = True

    def best(self, e: Any) -> str:
        """The shortest text among `e`'s simplified forms that the language can spell."""
        texts: list[str] = []
        errors: list[NotDerivable] = []
        for cand in (_candidates(self.ctx, e) if self.simplify else [e]):
            try:
                texts.append(self.doprint(cand))
            except NotDerivable as err:
                errors.append(err)
        if not texts:
            raise errors[0]
        return min(texts, key=len)

    def doprint(self, e: Any) -> str:
        return str(self.printer.doprint(e))

    def rational(self, r: Any) -> str:
        value = float(r)
        if _sympy().Rational(repr(value)) == r:
            return repr(value)
        return f"{int(r.p)}/{int(r.q)}"

    def symbol(self, s: Any) -> str:
        node = self.ctx.node_of.get(s)
        if node is not None and node.func:
            if s not in self.memo:
                operand = self.best(node.expr) if s in self.ctx.adjoints else self.doprint(
                    node.expr)
                self.memo[s] = f"{node.func}({operand}{_kwargs(node)})"
            return self.memo[s]
        count = self.ctx.counts.get(s)
        if count is not None:
            return f"sum(({self.doprint(count.expr)}) ** 0{_kwargs(count)})"
        defn = self.ctx.text.get(s)
        if defn is None:
            raise NotDerivable(f"unknown symbol {s}")
        return defn

    def piecewise(self, e: Any) -> str:
        sp = _sympy()
        pieces = list(e.args)
        rest = "0"
        if pieces and (pieces[-1].cond == sp.true or _exhaustive([p.cond for p in pieces])):
            rest = self.doprint(pieces.pop().expr)
        for piece in reversed(pieces):
            rest = self.branch(piece.cond, self.doprint(piece.expr), rest)
        return rest

    def branch(self, cond: Any, then: str, other: str) -> str:
        sp = _sympy()
        logic = sp.logic.boolalg
        if cond == sp.true:
            return then
        if cond == sp.false:
            return other
        if isinstance(cond, sp.core.relational.Relational):
            return f"where({self.doprint(cond)}, {then}, {other})"
        if isinstance(cond, logic.And):
            first, *rest = cond.args
            return self.branch(first, self.branch(sp.And(*rest), then, other), other)
        if isinstance(cond, logic.Or):
            first, *rest = cond.args
            return self.branch(first, then, self.branch(sp.Or(*rest), then, other))
        if isinstance(cond, logic.Not):
            return self.branch(cond.args[0], other, then)
        if isinstance(cond, logic.ITE):
            a, b, c = cond.args
            return self.branch(a, self.branch(b, then, other), self.branch(c, then, other))
        if isinstance(cond, sp.Symbol):
            return f"where({self.symbol(cond)}, {then}, {other})"
        raise NotDerivable(f"sympy produced the condition {cond}")


def _kwargs(node: _Node) -> str:
    axis = f", axis={node.axis}" if node.axis != "None" else ""
    return f"{axis}, keepdims={node.keepdims}"


def _exhaustive(conds: Sequence[Any]) -> bool:
    """Whether the conditions cover every case (simplify writes the last piece of a
    Piecewise with its own condition): the last is implied by the others being false, with
    comparisons as propositions (a <= b is not a > b)."""
    sp = _sympy()
    atoms: dict[Any, Any] = {}

    def prop(c: Any) -> Any:
        if isinstance(c, sp.core.relational.Relational):
            c = c.canonical
            flip = {sp.Le: sp.Gt, sp.Lt: sp.Ge, sp.Ne: sp.Eq}
            base = flip[type(c)](c.lhs, c.rhs) if type(c) in flip else c
            atom = atoms.setdefault(base, sp.Symbol(f"_p{len(atoms)}"))
            return sp.Not(atom) if type(c) in flip else atom
        if isinstance(c, sp.logic.boolalg.BooleanFunction):
            return type(c)(*(prop(a) for a in c.args))
        return c

    try:
        formula = sp.And(*(sp.Not(prop(c)) for c in conds))
        return not sp.satisfiable(formula)
    except Exception:
        return False


def _clean(d: Any) -> Any:
    """A derivative with the distributions of step functions dropped (0 almost everywhere)."""
    sp = _sympy()
    d = d.replace(lambda n: isinstance(n, sp.DiracDelta), lambda n: sp.S.Zero)
    if d.has(sp.Derivative) or d.has(sp.Subs):
        raise NotDerivable(f"sympy left the derivative unevaluated: {d}")
    return d


def _full_along(ctx: _Ctx, term: Any, axis: str) -> bool:
    """Whether `term` has the full size along `axis` (it contains a tensor not reduced over
    it), so a reduction's adjoint must sum it over the axis."""
    for s in term.free_symbols:
        red = ctx.reduced.get(s, "all")
        if red is None or (red != "all" and red != axis):
            return True
    return False


def _reduce(ctx: _Ctx, func: str, terms: Sequence[Any], axis: str) -> Any:
    """func(sum of terms, axis, keepdims=True) for sum and mean, with the factors that are
    constant along the axis taken out (sum(c * a) is c * sum(a)); one opaque symbol per
    distinct operand."""
    sp = _sympy()
    groups: dict[Any, list[Any]] = {}
    for t in terms:
        const = [f for f in sp.Mul.make_args(t) if not _full_along(ctx, f, axis)]
        rest = [f for f in sp.Mul.make_args(t) if _full_along(ctx, f, axis)]
        groups.setdefault(sp.Mul(*const), []).append(sp.Mul(*rest))
    total = sp.S.Zero
    for const, rests in groups.items():
        operand = sp.Add(*rests)
        key = (func, sp.srepr(operand), axis, True)
        node = ctx.reductions.get(key)
        if node is None:
            sym = ctx.fresh("a")
            node = _Node(sym, operand, func, axis, True)
            ctx.reductions[key] = node
            ctx.node_of[sym] = node
            ctx.adjoints.add(sym)
            ctx.reduced[sym] = axis if axis != "None" else "all"
        total += const * node.symbol
    return total


def _adjoint(ctx: _Ctx, node: _Node) -> Any:
    """The gradient of a reduction's operand elements (before the operand's derivative).

    Upstream terms come flagged: True when the term stands for a full-shaped array (it came
    through an expression of the operand's shape). A flagged term whose symbols are all
    reduced along the axis stands for as many equal elements as the axis has (`count`)."""
    sp = _sympy()
    full = [t for t, _ in node.upstream if _full_along(ctx, t, node.axis)]
    copies = [t for t, flag in node.upstream if flag and not _full_along(ctx, t, node.axis)]
    part = [t for t, flag in node.upstream if not flag and not _full_along(ctx, t, node.axis)]
    count = sp.S.One
    if (node.func == "mean" and part) or (node.func != "mean" and copies):
        count = ctx.fresh("n")  # sum(a ** 0): the elements along the axis (1 for nan too)
        ctx.counts[count] = node
        ctx.reduced[count] = ctx.reduced[node.symbol]
    if node.func == "mean":
        return _reduce(ctx, "mean", full, node.axis) + sp.Add(*copies) + sp.Add(*part) / count
    total = _reduce(ctx, "sum", full, node.axis) + sp.Add(*copies) * count + sp.Add(*part)
    if node.func in ("max", "min"):
        return sp.Piecewise((total, sp.Eq(node.expr, node.symbol)), (0, True))
    return total


def _name_outputs(ctx: _Ctx, e: Any) -> Any:
    """`e` with the outputs' element-wise definitions replaced by their names (tanh' is
    1 - y ** 2; exp(a) / s with y = exp(a) / s is y * s)."""
    sp = _sympy()
    if ctx.has_cast:
        return e
    for node in ctx.nodes:
        if node.func or node.symbol not in ctx.named_outputs:
            continue
        if node.expr.is_Atom:  # an output that is a reduction: its name
            if node.expr in ctx.node_of and ctx.node_of[node.expr].func:
                e = e.subs(node.expr, node.symbol)
            continue
        e = e.subs(node.expr, node.symbol)
        num, den = sp.fraction(node.expr)
        if den != 1 and not num.is_Atom:
            e = e.subs(num, node.symbol * den)
    return e


def _derive_raw(problem: Problem, used_grads: Sequence[str] | None) -> tuple[_Ctx, dict[str, Any]]:
    """Reverse mode over outputs and reductions, sympy's diff within each; returns the sympy
    gradient of every floating input (missing: no dependence)."""
    sp = _sympy()
    ctx = _Ctx(problem)
    conv = _ToSympy(ctx, problem.attrs)
    outputs = {t.name: t for t in problem.outputs}
    for t in problem.outputs:
        sym = sp.Symbol(t.name, real=True)
        ctx.symbols[t.name] = sym
        ctx.text[sym] = t.name
        ctx.reduced[sym] = "all" if t.reduced else None
        if t.floating:
            ctx.named_outputs.add(sym)
    for name, e in problem.reference:
        value = conv.value(e)
        node = _Node(ctx.symbols[name], value)
        ctx.nodes.append(node)
        ctx.node_of[node.symbol] = node
        grad = sp.Symbol(f"grad_{name}", real=True)
        ctx.text[grad] = f"grad_{name}"
        ctx.reduced[grad] = ctx.reduced[node.symbol]
        if outputs[name].floating and (used_grads is None or name in used_grads):
            node.upstream.append((grad, ctx.reduced[node.symbol] is None))
    grads: dict[str, list[Any]] = {}
    for node in reversed(ctx.nodes):
        if not node.upstream:
            continue
        if node.func:  # the operand's shape: full unless its symbols are all reduced
            adjs = [(_adjoint(ctx, node), _full_along(ctx, node.expr, node.axis))]
        else:  # an output: its own shape, or the consumer's when that is bigger
            adjs = [(t, flag or ctx.reduced[node.symbol] is None) for t, flag in node.upstream]
        for s in node.expr.free_symbols:
            child = ctx.node_of.get(s)
            if child is None and s not in ctx.leaf_input:
                continue
            d = _clean(sp.diff(node.expr, s))
            if d == 0:
                continue
            for adj, flag in adjs:
                contribution = _name_outputs(ctx, adj * d)
                if child is not None:
                    child.upstream.append((contribution, flag))
                else:
                    grads.setdefault(ctx.leaf_input[s], []).append(contribution)
    floating = {t.name for t in problem.inputs if t.floating}
    return ctx, {n: sp.Add(*g) for n, g in grads.items() if n in floating}


def _candidates(ctx: _Ctx, g: Any) -> list[Any]:
    sp = _sympy()
    out = [g]
    try:
        folded = sp.piecewise_fold(g)
        out.append(folded)
        if sp.count_ops(folded) <= _SIMPLIFY_MAX_OPS:
            out.append(sp.simplify(folded))
        else:
            out.append(sp.factor_terms(folded))
    except Exception:
        pass
    return out + [_name_outputs(ctx, c) for c in out]


def _wrap(problem: Problem, ctx: _Ctx, name: str, text: str) -> str:
    t = next(i for i in problem.inputs if i.name == name)
    if not t.same_shape:
        text = f"sum_to({text}, {name})"
    if ctx.has_cast:
        text = f"cast({text}, dtype({name}))"
    return text


def derive_texts(problem: Problem, *, simplify: bool = True,
                 used_grads: Sequence[str] | None = None) -> dict[str, str]:
    """The gradient of every floating input the reference depends on, as expression text
    (the shortest of the forms tried); raises NotDerivable."""
    ctx, grads = _derive_raw(problem, used_grads)
    printer = LanguagePrinter(ctx)
    printer.simplify = simplify
    return {name: _wrap(problem, ctx, name, printer.best(g)) for name, g in grads.items()}


def is_derivable_problem(problem: Problem) -> str:
    """'' when derivable, else the reason."""
    try:
        derive_texts(problem, simplify=False)
    except NotDerivable as e:
        return str(e)
    return ""


# ---------------------------------------------------------------------------------------------
# Caching: derivation costs sympy's import and a simplify; its result depends only on the
# problem and this module.


@functools.cache
def _module_hash() -> str:
    from pathlib import Path

    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


_MEMORY: dict[str, Any] = {}


def _cached(key: str, compute: Any) -> Any:
    """compute() (JSON data), remembered in memory and in opgen's cache directory."""
    from opgen_runtime.cachedir import cache_root

    digest = hashlib.sha256(f"{_module_hash()}\n{key}".encode()).hexdigest()[:32]
    if digest in _MEMORY:
        return _MEMORY[digest]
    path = cache_root() / "derive" / f"{digest}.json"
    try:
        result = json.loads(path.read_text("utf-8"))["value"]
    except (OSError, ValueError, KeyError, TypeError):
        result = compute()
        try:
            from opgen.writer import atomic_write

            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, json.dumps({"value": result}))
        except OSError:
            pass
    _MEMORY[digest] = result
    return result


def derive(problem: Problem) -> tuple[dict[str, str], str]:
    """(input -> gradient text, '') or ({}, reason it is not derivable). Cached."""

    def compute() -> list[Any]:
        try:
            return [derive_texts(problem), ""]
        except NotDerivable as e:
            return [{}, str(e)]

    grads, reason = _cached("derive\n" + problem.derive_key(), compute)
    return dict(grads), str(reason)


def check_backward_cached(problem: Problem, hand: Mapping[str, ex.Expr],
                          attr_values: Mapping[str, Any],
                          shapes: Mapping[str, tuple[int, ...] | None],
                          used_grads: Sequence[str]) -> dict[str, str]:
    """check_backward on a sample point (sample_env), cached; raises NotDerivable."""
    key = "\n".join(["check", problem.key(), repr(sorted((k, str(v)) for k, v in hand.items())),
                     repr(sorted((k, repr(v)) for k, v in attr_values.items())),
                     repr(sorted(shapes.items(), key=lambda kv: kv[0])), repr(list(used_grads))])

    def compute() -> list[Any]:
        try:
            env = sample_env(problem, attr_values, shapes)
            return [check_backward(problem, hand, env, used_grads), ""]
        except NotDerivable as e:
            return [{}, str(e)]

    found, reason = _cached(key, compute)
    if reason:
        raise NotDerivable(reason)
    return dict(found)


# ---------------------------------------------------------------------------------------------
# Checking a hand-written backward on sample points


_BASE_SHAPE = (2, 3, 4)


def sample_env(problem: Problem, attr_values: Mapping[str, Any],
               shapes: Mapping[str, tuple[int, ...] | None], seed: int = 0) -> dict[str, Any]:
    """Random float64 inputs (integer inputs: small ints), away from integers so that no
    sample sits on a kink of the usual references."""
    import numpy as np

    rng = np.random.default_rng(seed)
    env: dict[str, Any] = dict(attr_values)
    for t in problem.inputs:
        declared = shapes.get(t.name)
        if declared is None:
            shape: tuple[int, ...] = _BASE_SHAPE[1:]
        else:
            base = _BASE_SHAPE[3 - len(declared):] if len(declared) <= 3 else (2,) * len(declared)
            shape = tuple(b if d < 0 else d for b, d in zip(base, declared, strict=True))
        if t.floating:
            env[t.name] = rng.uniform(-4, 4, shape).round(3) + 1e-4 * rng.uniform(0.1, 0.9)
        else:
            env[t.name] = rng.integers(-4, 5, shape)
    return env


def _evaluate(e: ex.Expr, env: Mapping[str, Any]) -> Any:
    import numpy as np

    with np.errstate(all="ignore"):
        return np.asarray(ex.evaluate(e, env), dtype=np.float64)


def check_backward(problem: Problem, hand: Mapping[str, ex.Expr], env: Mapping[str, Any],
                   used_grads: Sequence[str], seed: int = 0) -> dict[str, str]:
    """Compare hand-written gradients with the derivative on the sample point `env` (inputs
    and attrs; the reference's outputs and random incoming gradients are added): input ->
    the disagreement's description. Raises NotDerivable."""
    import numpy as np

    derived = {n: ex.parse(t) for n, t in
               derive_texts(problem, simplify=False, used_grads=used_grads).items()}
    env = dict(env)
    rng = np.random.default_rng(seed + 1)
    with np.errstate(all="ignore"):
        for name, e in problem.reference:
            env[name] = np.asarray(ex.evaluate(e, env))
    for t in problem.outputs:
        value = env[t.name]
        env[f"grad_{t.name}"] = (rng.uniform(-1, 1, np.shape(value)).round(3) + 0.0001
                                 if t.name in used_grads else np.zeros(np.shape(value)))
    out: dict[str, str] = {}
    for name, e in hand.items():
        shape = np.shape(env[name])
        want = derived.get(name)
        got = _evaluate(e, env)
        exact = _evaluate(want, env) if want is not None else np.zeros(shape)
        try:
            got = np.broadcast_to(got, shape)
            exact = np.broadcast_to(exact, shape)
        except ValueError:
            out[name] = (f"has shape {list(np.shape(got))} where '{name}' has "
                         f"{list(shape)} (sum_to() undoes broadcasting)")
            continue
        scale = max(1.0, float(np.nanmax(np.abs(exact))) if exact.size else 1.0)
        bad = ~np.isclose(got, exact, rtol=1e-5, atol=1e-7 * scale, equal_nan=True)
        if not bad.any():
            continue
        diff = np.where(bad, np.abs(np.nan_to_num(got - exact, nan=np.inf)), -1.0)
        idx = np.unravel_index(int(np.argmax(diff)), shape)
        point = []
        for t in problem.inputs:
            try:
                v = np.broadcast_to(np.asarray(env[t.name]), shape)[idx]
            except (ValueError, IndexError, TypeError):
                continue
            point.append(f"{t.name}={float(v):.4g}")
        where = f" (element {list(map(int, idx))})" if shape else ""
        out[name] = (f"at {', '.join(point)}{where}: the backward gives "
                     f"{float(got[idx]):.6g}, the derivative {float(exact[idx]):.6g}")
    return out
