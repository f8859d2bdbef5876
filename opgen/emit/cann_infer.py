"""Shape rules as C++ for the CANN emitters: one translation, two host APIs.

The statements work on `std::vector<int64_t>` locals (`in_<input>` for input dims and
`attr_<name>` for attrs), so op_host (gert::InferShapeContext) and op_proto (ge::Operator)
share them and differ only in how they load inputs and attrs and store the result.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.dtypes import AttrType
from opgen.model import AttrDesc, OpSpec, TensorDesc
from opgen.shape_rules import Broadcast, DimOf, Explicit, Reduce, SameAs, referenced_attrs


@dataclass(frozen=True)
class AttrLocal:
    index: int  # position among the op's attrs (CANN's attr index)
    name: str
    local: str  # attr_<name>
    ctype: str  # int64_t, bool or std::vector<int64_t>
    kind: str  # int | bool | list_int


@dataclass(frozen=True)
class InputLocal:
    index: int  # IR index among the inputs
    name: str
    local: str  # in_<name>
    optional: bool
    dynamic: bool


@dataclass(frozen=True)
class OutputRule:
    index: int
    name: str
    rule: str  # the spec's text, for a comment
    statements: tuple[str, ...]  # C++ filling `dims` (std::vector<int64_t>) or returning failure


@dataclass(frozen=True)
class InferPlan:
    inputs: tuple[InputLocal, ...]
    attrs: tuple[AttrLocal, ...]
    outputs: tuple[OutputRule, ...]
    uses_broadcast: bool
    uses_reduce: bool
    uses_dim: bool


_ATTR_KINDS = {AttrType.INT: ("int64_t", "int"), AttrType.TYPE: ("int64_t", "int"),
               AttrType.BOOL: ("bool", "bool"), AttrType.LIST_INT: ("std::vector<int64_t>",
                                                                    "list_int")}


def _rule_statements(spec: OpSpec, out: TensorDesc) -> tuple[list[str], set[str], set[str]]:
    """C++ for one output; the inputs and helpers it uses."""
    rule = out.infer
    if rule is None:  # validation requires a rule; keep the first input's shape otherwise
        first = spec.inputs[0].name
        return [f"dims = in_{first};"], {first}, set()
    if isinstance(rule, SameAs):
        return [f"dims = in_{rule.input};"], {rule.input}, set()
    if isinstance(rule, Broadcast):
        args = ", ".join(f"&in_{n}" for n in rule.inputs)
        return ([f"if (!BroadcastDims({{{args}}}, dims)) {{",
                 "    return ge::GRAPH_FAILED;",
                 "}"], set(rule.inputs), {"broadcast"})
    if isinstance(rule, Reduce):
        if isinstance(rule.axis, str):
            axes = f"attr_{rule.axis}"
            attr = spec.attr(rule.axis)
            if attr is not None and not attr.type.is_list:
                axes = f"std::vector<int64_t>{{attr_{rule.axis}}}"
        elif isinstance(rule.axis, tuple):
            axes = "std::vector<int64_t>{" + ", ".join(str(a) for a in rule.axis) + "}"
        else:
            axes = f"std::vector<int64_t>{{{rule.axis}}}"
        keep = f"attr_{rule.keepdim}" if isinstance(rule.keepdim, str) else (
            "true" if rule.keepdim else "false")
        return [f"dims = ReduceDims(in_{rule.input}, {axes}, {keep});"], {rule.input}, {"reduce"}
    assert isinstance(rule, Explicit)
    parts: list[str] = []
    used: set[str] = set()
    helpers: set[str] = set()
    for d in rule.dims:
        if isinstance(d, DimOf):
            parts.append(f"DimAt(in_{d.input}, {d.index})")
            used.add(d.input)
            helpers.add("dim")
        elif isinstance(d, str):
            parts.append(f"attr_{d}")
        else:
            parts.append(str(d))
    return [f"dims = {{{', '.join(parts)}}};"], used, helpers


def plan(spec: OpSpec) -> InferPlan:
    outputs: list[OutputRule] = []
    used: set[str] = set()
    helpers: set[str] = set()
    attr_names: set[str] = set()
    for j, out in enumerate(spec.outputs):
        stmts, u, h = _rule_statements(spec, out)
        used |= u
        helpers |= h
        if out.infer is not None:
            attr_names |= set(referenced_attrs(out.infer))
        outputs.append(OutputRule(j, out.name, str(out.infer) if out.infer else "", tuple(stmts)))
    inputs = tuple(InputLocal(i, t.name, f"in_{t.name}", t.is_optional, t.is_dynamic)
                   for i, t in enumerate(spec.inputs) if t.name in used)
    attrs = tuple(_attr_local(i, a) for i, a in enumerate(spec.attrs) if a.name in attr_names)
    return InferPlan(inputs, attrs, tuple(outputs), "broadcast" in helpers, "reduce" in helpers,
                     "dim" in helpers)


def _attr_local(index: int, a: AttrDesc) -> AttrLocal:
    ctype, kind = _ATTR_KINDS.get(a.type, ("int64_t", "int"))
    return AttrLocal(index, a.name, f"attr_{a.name}", ctype, kind)


@dataclass(frozen=True)
class DtypeRow:
    when: tuple[tuple[str, str], ...]  # (input name, ge enum) that must all match
    dtype: str  # the output's ge enum


@dataclass(frozen=True)
class DtypeRule:
    """How one output's dtype follows from the inputs: copy, constant, attr or table."""

    index: int
    name: str
    kind: str  # same_as | const | attr | table
    input: str = ""  # same_as: the input; table: unused
    input_index: int = 0
    dtype: str = ""  # const: the ge enum (without ge::)
    attr: str = ""
    attr_index: int = 0
    rows: tuple[DtypeRow, ...] = ()
    table_inputs: tuple[tuple[int, str], ...] = ()  # (IR index, name) the table reads


def dtype_rules(spec: OpSpec) -> tuple[DtypeRule, ...]:
    from opgen.emit.cann_naming import ge_dtype

    rules: list[DtypeRule] = []
    plain = [(i, t) for i, t in enumerate(spec.inputs) if not t.is_optional and not t.is_dynamic]
    for j, out in enumerate(spec.outputs):
        if out.dtype_from is not None:
            k = next(i for i, a in enumerate(spec.attrs) if a.name == out.dtype_from)
            rules.append(DtypeRule(j, out.name, "attr", attr=out.dtype_from, attr_index=k))
            continue
        if len(set(out.dtypes)) == 1:
            rules.append(DtypeRule(j, out.name, "const", dtype=ge_dtype(out.dtypes[0])))
            continue
        same = next(((i, t) for i, t in plain if t.dtypes == out.dtypes), None)
        if same is not None:
            rules.append(DtypeRule(j, out.name, "same_as", input=same[1].name,
                                   input_index=same[0]))
            continue
        rows: list[DtypeRow] = []
        seen: set[tuple[tuple[str, str], ...]] = set()
        for c in range(spec.num_combinations):
            when = tuple((t.name, ge_dtype(t.dtypes[c])) for _, t in plain)
            if when not in seen:
                seen.add(when)
                rows.append(DtypeRow(when, ge_dtype(out.dtypes[c])))
        rules.append(DtypeRule(j, out.name, "table", rows=tuple(rows),
                               table_inputs=tuple((i, t.name) for i, t in plain)))
    return tuple(rules)
