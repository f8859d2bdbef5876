"""Kernel skeletons: a compilable, double-buffered, multi-core Ascend C kernel for a spec.

When the spec's reference is element-wise, Compute() is translated from the expression into
Ascend C vector calls (temporaries from a TBuf<VECCALC>), so the kernel is correct as
generated. Otherwise Compute() is a marked TODO that the op's generated test reports.

The kernel file is the user's. Its first line records a hash of the rest, so
`opgen skeleton OP --write` can tell an untouched skeleton (safe to regenerate after the
reference changed) from an edited one (never overwritten).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from opgen import expr as ex
from opgen.dtypes import AttrType
from opgen.emit.common import render
from opgen.model import OpSpec
from opgen.naming import lower_camel

TODO_MARKER = "OPGEN-TODO(compute)"
_HASH_LINE = re.compile(r"^// opgen skeleton sha256=([0-9a-f]{64})\n")
_TILING_CTYPES = {AttrType.INT: "int64_t", AttrType.FLOAT: "float", AttrType.BOOL: "bool",
                  AttrType.TYPE: "int64_t"}


class Unsupported(Exception):
    """The expression uses something the vector translation does not cover."""


@dataclass
class _Emitter:
    """Translates one expression tree into statements over LocalTensor<T> temporaries."""

    inputs: dict[str, str]  # input name -> local tensor variable
    scalars: dict[str, str]  # attr name -> member holding it as T
    outputs: dict[str, ex.Expr]  # other outputs' expressions, inlined when referenced
    lines: list[str] = field(default_factory=list)
    temps: int = 0
    masks: bool = False
    # tensor subexpressions already computed (by canonical text) -> their variable: a fused
    # op's composed reference repeats its steps' intermediates, each is computed once
    done: dict[str, str] = field(default_factory=dict)
    # tensor subexpression -> how many computed parents read it (count_uses): a temporary
    # read once is overwritten in place by its reader, so a chain of steps needs one buffer
    uses: dict[str, int] = field(default_factory=dict)

    def out(self, dst: str | None, *operands: tuple[ex.Expr, str]) -> str:
        """Where an element-wise instruction reading `operands` (expression, variable) writes:
        `dst`, else the temporary of an operand no later statement reads, else a new one."""
        if dst is not None:
            return dst
        for e, var in operands:
            if var.startswith("tmp") and not var.endswith("Local") and self.uses.get(str(e)) == 1:
                return var
        return self.temp()

    def temp(self) -> str:
        name = f"tmp{self.temps}"
        self.lines.append(f"LocalTensor<T> {name} = tmpBuf.Get<T>()[{self.temps} * tileLength];")
        self.temps += 1
        return name

    def scalar(self, e: ex.Expr) -> str | None:
        """A C++ scalar expression when `e` involves no tensor, else None."""
        if isinstance(e, ex.Const):
            return f"static_cast<T>({float(e.value)!r})"
        if isinstance(e, ex.Name) and e.id in self.scalars:
            return self.scalars[e.id]
        if isinstance(e, ex.Unary):
            inner = self.scalar(e.operand)
            return None if inner is None else f"static_cast<T>({e.op}{inner})"
        if isinstance(e, ex.Binary) and e.op in "+-*/":
            a, b = self.scalar(e.lhs), self.scalar(e.rhs)
            if a is not None and b is not None:
                return f"static_cast<T>({a} {e.op} {b})"
        return None

    def tensor(self, e: ex.Expr, dst: str | None = None) -> str:
        """Emit code computing `e` (a tensor) into `dst` (a new temporary when None)."""
        if isinstance(e, ex.Name):
            if e.id in self.inputs:
                if dst is None:
                    return self.inputs[e.id]
                self.lines.append(f"Muls({dst}, {self.inputs[e.id]}, static_cast<T>(1), n);")
                return dst
            if e.id in self.outputs:
                return self.tensor(self.outputs[e.id], dst)
            raise Unsupported(f"name '{e.id}'")
        s = self.scalar(e)
        if s is not None:
            out = dst or self.temp()
            self.lines.append(f"Duplicate({out}, {s}, n);")
            return out
        key = str(e)
        if key in self.done:
            if dst is None:
                return self.done[key]
            self.lines.append(f"Muls({dst}, {self.done[key]}, static_cast<T>(1), n);")
            return dst
        out = self.computed(e, dst)
        self.done[key] = out
        return out

    def computed(self, e: ex.Expr, dst: str | None) -> str:
        if isinstance(e, ex.Unary):
            a = self.tensor(e.operand)
            out = self.out(dst, (e.operand, a))
            factor = "-1" if e.op == "-" else "1"
            self.lines.append(f"Muls({out}, {a}, static_cast<T>({factor}), n);")
            return out
        if isinstance(e, ex.Binary):
            return self.binary(e, dst)
        if isinstance(e, ex.Call):
            return self.call(e, dst)
        raise Unsupported(type(e).__name__)

    def binary(self, e: ex.Binary, dst: str | None) -> str:
        ls, rs = self.scalar(e.lhs), self.scalar(e.rhs)
        if e.op == "**":
            if rs is None:
                raise Unsupported("a tensor exponent")
            base = self.tensor(e.lhs)
            out = self.out(dst, (e.lhs, base))
            if isinstance(e.rhs, ex.Const) and e.rhs.value == 2:
                self.lines.append(f"Mul({out}, {base}, {base}, n);")
            elif isinstance(e.rhs, ex.Const) and e.rhs.value == 0.5:
                self.lines.append(f"Sqrt({out}, {base}, n);")
            else:  # a ** s = exp(s * ln(a)), for a > 0 as numpy's float power
                self.lines += [f"Ln({out}, {base}, n);", f"Muls({out}, {out}, {rs}, n);",
                               f"Exp({out}, {out}, n);"]
            return out
        vec = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}[e.op]
        if ls is None and rs is None:
            a, b = self.tensor(e.lhs), self.tensor(e.rhs)
            out = self.out(dst, (e.lhs, a), (e.rhs, b))
            self.lines.append(f"{vec}({out}, {a}, {b}, n);")
            return out
        if rs is not None:  # tensor op scalar
            a = self.tensor(e.lhs)
            out = self.out(dst, (e.lhs, a))
            call = {"+": f"Adds({out}, {a}, {rs}, n);",
                    "-": f"Adds({out}, {a}, static_cast<T>(-{rs}), n);",
                    "*": f"Muls({out}, {a}, {rs}, n);",
                    "/": f"Muls({out}, {a}, static_cast<T>(1.0f / {rs}), n);"}[e.op]
            self.lines.append(call)
            return out
        assert ls is not None  # scalar op tensor
        b = self.tensor(e.rhs)
        out = self.out(dst, (e.rhs, b))
        if e.op == "+":
            self.lines.append(f"Adds({out}, {b}, {ls}, n);")
        elif e.op == "*":
            self.lines.append(f"Muls({out}, {b}, {ls}, n);")
        elif e.op == "-":
            self.lines += [f"Muls({out}, {b}, static_cast<T>(-1), n);",
                           f"Adds({out}, {out}, {ls}, n);"]
        else:
            filled = self.temp()
            self.lines += [f"Duplicate({filled}, {ls}, n);", f"Div({out}, {filled}, {b}, n);"]
        return out

    def call(self, e: ex.Call, dst: str | None) -> str:
        unary = {"exp": "Exp", "log": "Ln", "sqrt": "Sqrt", "rsqrt": "Rsqrt",
                 "reciprocal": "Reciprocal", "relu": "Relu", "abs": "Abs"}
        if e.func in unary:
            a = self.tensor(e.args[0])
            out = self.out(dst, (e.args[0], a))
            self.lines.append(f"{unary[e.func]}({out}, {a}, n);")
            return out
        if e.func in ("sigmoid", "tanh"):  # 1 / (1 + exp(-k a)), tanh = 2 sigmoid(2a) - 1
            a = self.tensor(e.args[0])
            out = self.out(dst, (e.args[0], a))
            k = "-1" if e.func == "sigmoid" else "-2"
            self.lines += [f"Muls({out}, {a}, static_cast<T>({k}), n);", f"Exp({out}, {out}, n);",
                           f"Adds({out}, {out}, static_cast<T>(1), n);",
                           f"Reciprocal({out}, {out}, n);"]
            if e.func == "tanh":
                self.lines += [f"Muls({out}, {out}, static_cast<T>(2), n);",
                               f"Adds({out}, {out}, static_cast<T>(-1), n);"]
            return out
        if e.func in ("maximum", "minimum"):
            vec, scal = ("Max", "Maxs") if e.func == "maximum" else ("Min", "Mins")
            a_s, b_s = self.scalar(e.args[0]), self.scalar(e.args[1])
            if a_s is None and b_s is None:
                a, b = self.tensor(e.args[0]), self.tensor(e.args[1])
                out = self.out(dst, (e.args[0], a), (e.args[1], b))
                self.lines.append(f"{vec}({out}, {a}, {b}, n);")
                return out
            t, s = (e.args[0], b_s) if b_s is not None else (e.args[1], a_s)
            a = self.tensor(t)
            out = self.out(dst, (t, a))
            self.lines.append(f"{scal}({out}, {a}, {s}, n);")
            return out
        if e.func == "where":
            return self.where(e, dst)
        raise Unsupported(f"{e.func}()")

    def where(self, e: ex.Call, dst: str | None) -> str:
        leaky = leaky_relu_of(e, self.scalars)
        if leaky is not None:  # where(x > 0, x, x * s): one LeakyRelu, no mask
            x_e, s_e = leaky
            x = self.tensor(x_e)
            out = self.out(dst, (x_e, x))
            self.lines.append(f"LeakyRelu({out}, {x}, {self.scalar(s_e)}, n);")
            return out
        cond, a_e, b_e = e.args
        if not isinstance(cond, ex.Compare):
            raise Unsupported("where() needs a comparison")
        modes = {">": "GT", "<": "LT", ">=": "GE", "<=": "LE", "==": "EQ", "!=": "NE"}
        self.masks = True
        lhs = self.tensor(cond.lhs)
        rhs_s = self.scalar(cond.rhs)
        if rhs_s is not None:
            self.lines.append(f"CompareScalar(mask, {lhs}, {rhs_s}, CMPMODE::{modes[cond.op]}, n);")
        else:
            rhs = self.tensor(cond.rhs)
            self.lines.append(f"Compare(mask, {lhs}, {rhs}, CMPMODE::{modes[cond.op]}, n);")
        a = self.tensor(a_e)
        b_s = self.scalar(b_e)
        if b_s is not None:
            out = self.out(dst, (a_e, a))
            self.lines.append(
                f"Select({out}, mask, {a}, {b_s}, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);")
        else:
            b = self.tensor(b_e)
            out = self.out(dst, (a_e, a), (b_e, b))
            self.lines.append(
                f"Select({out}, mask, {a}, {b}, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);")
        return out


def leaky_relu_of(e: ex.Expr, scalars: Collection[str]) -> tuple[ex.Expr, ex.Expr] | None:
    """(x, s) when `e` is where(x > 0, x, x * s) or where(x >= 0, x, s * x) with a scalar s
    (constants and the attrs `scalars`, no tensor): the LeakyRelu instruction
    (x >= 0 ? x : x * s) gives the same values (at x = +0 with s < 0 a +0 for -0, which
    compares equal)."""
    if not (isinstance(e, ex.Call) and e.func == "where" and len(e.args) == 3):
        return None
    cond, a, b = e.args
    if not (isinstance(cond, ex.Compare) and cond.op in (">", ">=")
            and isinstance(cond.rhs, ex.Const) and cond.rhs.value == 0):
        return None
    x = str(cond.lhs)
    if str(a) != x or not (isinstance(b, ex.Binary) and b.op == "*"):
        return None
    for t, s in ((b.lhs, b.rhs), (b.rhs, b.lhs)):
        if str(t) == x and not any(isinstance(n, ex.Name) and n.id not in scalars
                                   for n in ex.walk(s)):
            return cond.lhs, s
    return None


def _children(e: ex.Expr, scalars: Collection[str]) -> list[ex.Expr]:
    leaky = leaky_relu_of(e, scalars)
    if leaky is not None:
        return [leaky[0]]
    if isinstance(e, ex.Unary):
        return [e.operand]
    if isinstance(e, ex.Binary | ex.Compare):
        return [e.lhs, e.rhs]
    if isinstance(e, ex.Call):
        out: list[ex.Expr] = []
        for a in e.args:
            out.extend(_children(a, scalars) if isinstance(a, ex.Compare) else [a])
        return out
    return []


def count_uses(roots: list[ex.Expr], scalars: Collection[str]) -> dict[str, int]:
    """Per subexpression (canonical text), how many computed parents read it; each distinct
    subexpression is computed once (the emitter's `done`), so its children count once."""
    uses: dict[str, int] = {}
    seen: set[str] = set()

    def walk(e: ex.Expr) -> None:
        key = str(e)
        if key in seen:
            return
        seen.add(key)
        for c in _children(e, scalars):
            uses[str(c)] = uses.get(str(c), 0) + 1
            walk(c)

    for r in roots:
        uses[str(r)] = uses.get(str(r), 0) + 1
        walk(r)
    return uses


@dataclass(frozen=True)
class TensorView:
    name: str
    camel: str  # lowerCamel, for member names
    upper: str  # UpperCamel, for queue names


@dataclass(frozen=True)
class AttrField:
    name: str
    field: str  # lowerCamel tiling field
    ctype: str


@dataclass(frozen=True)
class SkeletonView:
    op_name: str
    op_type: str
    entry: str
    doc: str
    reference: str
    inputs: tuple[TensorView, ...]
    outputs: tuple[TensorView, ...]
    attrs: tuple[AttrField, ...]  # carried in the tiling data
    scalar_attrs: tuple[AttrField, ...]  # int/float attrs the Compute uses as T
    first_input: str
    generated: bool  # Compute() translated from the reference
    compute: tuple[str, ...]  # statements (generated) or empty
    temps: int
    masks: bool
    why_todo: str
    todo_marker: str


def _tensor(name: str) -> TensorView:
    camel = lower_camel(name)
    return TensorView(name, camel, camel[:1].upper() + camel[1:])


def translate(spec: OpSpec) -> tuple[list[str], int, bool]:
    """Compute() statements writing every output; raises Unsupported."""
    if not spec.reference:
        raise Unsupported("no reference")
    refs = {r.output: r.expr for r in spec.reference}
    for r in spec.reference:
        if not ex.is_elementwise(r.expr):
            raise Unsupported("the reference is not element-wise")
    if any(t.is_optional or t.is_dynamic for t in spec.inputs):
        raise Unsupported("optional or dynamic inputs")
    scalars = {a.name: f"{lower_camel(a.name)}_" for a in spec.attrs
               if a.type in (AttrType.INT, AttrType.FLOAT)}
    em = _Emitter({t.name: f"{lower_camel(t.name)}Local" for t in spec.inputs}, scalars, refs)
    if len(spec.outputs) == 1:  # other outputs are inlined by name: no reuse across them
        em.uses = count_uses([refs[o.name] for o in spec.outputs if o.name in refs], scalars)
    for out in spec.outputs:
        if out.name not in refs:
            raise Unsupported(f"no reference for output '{out.name}'")
        em.lines.append(f"// {out.name} = {refs[out.name]}")
        em.tensor(refs[out.name], f"{lower_camel(out.name)}Local")
    return em.lines, em.temps, em.masks


def view(spec: OpSpec) -> SkeletonView:
    attrs = tuple(AttrField(a.name, lower_camel(a.name), _TILING_CTYPES[a.type])
                  for a in spec.attrs if a.type in _TILING_CTYPES)
    try:
        lines, temps, masks = translate(spec)
        generated, why = True, ""
    except Unsupported as exc:
        lines, temps, masks, generated, why = [], 0, False, False, str(exc)
    return SkeletonView(
        op_name=spec.op_name, op_type=spec.op_type, entry=spec.kernel.entry, doc=spec.doc,
        reference="; ".join(f"{r.output} = {r.expr}" for r in spec.reference),
        inputs=tuple(_tensor(t.name) for t in spec.inputs),
        outputs=tuple(_tensor(t.name) for t in spec.outputs),
        attrs=attrs,
        scalar_attrs=tuple(a for a in attrs if a.ctype in ("int64_t", "float")
                           and spec.attr(a.name) is not None
                           and spec.attr(a.name).type in (AttrType.INT, AttrType.FLOAT)),  # type: ignore[union-attr]
        first_input=spec.inputs[0].name,
        generated=generated, compute=tuple(lines), temps=temps, masks=masks, why_todo=why,
        todo_marker=TODO_MARKER,
    )


def _stamp(body: str) -> str:
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    return f"// opgen skeleton sha256={digest}\n{body}"


def skeleton(spec: OpSpec) -> str:
    """The kernel source, with the hash line that marks it as an untouched skeleton."""
    return _stamp(render("skeleton/kernel.cpp.j2", v=view(spec)))


def is_untouched(text: str) -> bool:
    """True when `text` is a skeleton exactly as opgen wrote it (its hash still matches)."""
    m = _HASH_LINE.match(text)
    if m is None:
        return False
    body = text[m.end():]
    return hashlib.sha256(body.encode("utf-8")).hexdigest() == m.group(1)
