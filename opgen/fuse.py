"""Fused specs: an op defined as a composition of other element-wise ops of the project.

A spec with `fuse:` (a list of steps) instead of `reference:` gets its reference by composing
the steps' references: each step's inputs are wired to the fused op's inputs or to earlier
steps' outputs, its attrs to the fused op's attrs or to constants. The composed reference is
element-wise, so the skeleton generator writes ONE kernel for it (intermediate values stay in
UB), the backward is derived from it with sympy, and everything else is generated as for a
hand-written op. The expansion runs on the loaded document, before validation, so every later
stage sees an ordinary spec.

    fuse:
      - op: element_add                # an op of this project (a spec beside this one)
        inputs: {x: a, y: b}           # step input -> fused input or earlier value
        outputs: {z: s}                # step output -> value name (default: internal)
      - op: leaky_relu
        inputs: {x: s}                 # default: the previous step's first output
        attrs: {negative_slope: slope} # step attr -> fused attr name, or a constant
      - hard_swish                     # chain form: a bare op name

Unbound inputs of a step become fused inputs of the same name, unbound attrs fused attrs of
the same name (with the step's default). Without `input_desc` / `output_desc` / `attr_desc`
the fused op's tensors and attrs are derived from the steps (the dtypes every step supports
with all its tensors of one dtype; outputs: the last step's outputs, same shape as the first
input).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from opgen import expr as ex
from opgen.diagnostics import DiagnosticSink, SourceLoc
from opgen.load import Document, JsonPath, load_file
from opgen.model import OpSpec
from opgen.shape_rules import SameAs

_SUFFIXES = (".yaml", ".yml", ".json")
_active: list[str] = []  # spec files being expanded (a fused step that fuses itself)


def substitute(e: ex.Expr, env: Mapping[str, ex.Expr]) -> ex.Expr:
    """`e` with every Name in `env` replaced by its expression."""
    if isinstance(e, ex.Name):
        return env.get(e.id, e)
    if isinstance(e, ex.Unary):
        return replace(e, operand=substitute(e.operand, env))
    if isinstance(e, ex.Binary | ex.Compare):
        return replace(e, lhs=substitute(e.lhs, env), rhs=substitute(e.rhs, env))
    if isinstance(e, ex.Call):
        return replace(e, args=tuple(substitute(a, env) for a in e.args),
                       kwargs=tuple((k, substitute(v, env)) for k, v in e.kwargs))
    return e


def _find_spec(spec_dir: str, op: str, own: str) -> Path | None:
    for suffix in _SUFFIXES:
        p = Path(spec_dir) / f"{op}{suffix}"
        if p.is_file() and os.path.abspath(p) != own:
            return p
    return None


def not_elementwise(spec: OpSpec) -> str | None:
    """Why `spec` cannot be a fused step, or None when it can."""
    if not spec.reference:
        return "it has no reference"
    for r in spec.reference:
        if not ex.is_elementwise(r.expr):
            funcs = sorted({n.func for n in ex.walk(r.expr) if isinstance(n, ex.Call)
                            and ex.FUNCTIONS[n.func].kind is not ex.FuncKind.ELEMENTWISE
                            and n.func not in ("cast", "dtype", "opt")})
            return f"its reference of '{r.output}' uses {', '.join(f + '()' for f in funcs)}"
        if any(isinstance(n, ex.Call) and n.func in ("cast", "dtype", "opt")
               for n in ex.walk(r.expr)):
            return f"its reference of '{r.output}' casts or reads an optional input"
    for t in spec.inputs:
        if t.is_optional or t.is_dynamic:
            return f"its input '{t.name}' is {t.param_type.value}"
    for t in spec.outputs:
        if not isinstance(t.infer, SameAs):
            return f"its output '{t.name}' is not the shape of an input (broadcast or reduced)"
    return None


def _homogeneous(spec: OpSpec) -> list[str]:
    """Dtypes d such that one column of `spec` has every tensor of dtype d."""
    found = []
    for combo in spec.combinations():
        kinds = {d.value for _, d in combo.dtypes}
        if len(kinds) == 1 and next(iter(kinds)) not in found:
            found.append(next(iter(kinds)))
    return found


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _raw_of(doc: Document, section: str, name: str) -> dict[str, Any]:
    for raw in doc.data.get(section) or []:
        if isinstance(raw, Mapping) and raw.get("name") == name:
            return dict(copy.deepcopy(raw))
    return {"name": name}


def expand(doc: Document, spec_dir: str, sink: DiagnosticSink) -> tuple[str, ...]:
    """Replace `fuse:` of `doc` by the composed reference (and derived tensors and attrs);
    errors go to `sink`, located at the step. Returns the step spec files read."""
    from opgen.validate import build_spec

    data = doc.data
    steps = data.get("fuse")
    if not isinstance(steps, list) or not steps:
        return ()  # the schema reports it
    at_fuse = doc.loc(("fuse",))
    if "reference" in data:
        sink.error(doc.key_loc(("reference",)), "fuse: and reference: both give the forward; "
                   "keep one (the reference of a fused op is its steps' composition)")
        return ()
    own = os.path.abspath(os.path.join(spec_dir, os.path.basename(doc.path)))
    declared_in = {t.get("name") for t in data.get("input_desc") or [] if isinstance(t, Mapping)}
    declared_attrs = {a.get("name") for a in data.get("attr_desc") or []
                      if isinstance(a, Mapping)}
    derive_in, derive_attrs = "input_desc" not in data, "attr_desc" not in data
    values: dict[str, ex.Expr] = {}
    fused_in: dict[str, tuple[Document, str]] = {}  # name -> (step doc, step input name)
    fused_attrs: dict[str, tuple[Document, str]] = {}
    dtypes: list[str] | None = None
    read: list[str] = []
    last: tuple[OpSpec, Document, dict[str, str]] | None = None
    chain: list[tuple[OpSpec, dict[str, ex.Expr], dict[str, str], dict[str, str]]] = []
    ok = True
    step: Any
    for i, step in enumerate(steps):
        path: JsonPath = ("fuse", i)
        if isinstance(step, str):
            step = {"op": step}
        if not isinstance(step, Mapping) or not isinstance(step.get("op"), str):
            ok = False
            continue  # the schema reports it
        op = step["op"]
        where = doc.loc((*path, "op")) if "op" in (steps[i] if isinstance(steps[i], Mapping)
                                                    else {}) else doc.loc(path)
        found = _find_spec(spec_dir, op, own)
        if found is None:
            sink.error(where, f"fuse step {i + 1}: no spec for op '{op}' beside this spec "
                       f"(looked for {op}.yaml, {op}.yml, {op}.json in {spec_dir})")
            ok = False
            continue
        if str(found.resolve()) in _active or os.path.abspath(found) == own:
            sink.error(where, f"fuse step {i + 1}: op '{op}' fuses this op itself")
            ok = False
            continue
        sub = DiagnosticSink()
        _active.append(own)
        try:
            step_doc = load_file(found, str(found))
            spec = build_spec(step_doc, sub, spec_dir=str(found.parent))
        except Exception as exc:  # a bad step spec is reported at the step
            spec, sub = None, DiagnosticSink()
            sub.error(SourceLoc(str(found)), str(exc))
        finally:
            _active.pop()
        if spec is None:
            first = next((d for d in sub.items if d.severity.value == "error"), None)
            sink.error(where, f"fuse step {i + 1}: the spec of '{op}' is not valid"
                       + (f": {first.loc}: {first.message}" if first else ""))
            ok = False
            continue
        read.append(str(found))
        read.extend(spec.fused_from)
        why = not_elementwise(spec)
        if why is not None:
            sink.error(where, f"fuse step {i + 1}: '{op}' is not element-wise ({why}); only "
                       "element-wise ops with a reference can be fused")
            ok = False
            continue
        common = _homogeneous(spec)
        dtypes = common if dtypes is None else [d for d in dtypes if d in common]
        env: dict[str, ex.Expr] = {}
        step_inputs: dict[str, str] = {}  # step input -> the value it reads
        bind_in = _mapping(step.get("inputs"))
        for key in bind_in:
            if spec.input(key) is None:
                listed = ", ".join(t.name for t in spec.inputs)
                sink.error(doc.key_loc((*path, "inputs", key)), f"fuse step {i + 1}: '{op}' "
                           f"has no input '{key}' (inputs: {listed})")
                ok = False
        for j, t in enumerate(spec.inputs):
            name = bind_in.get(t.name)
            if name is None:
                name = last[2][last[0].outputs[0].name] if j == 0 and last else t.name
            if not isinstance(name, str):
                ok = False
                continue
            if name in values:
                env[t.name] = values[name]
                step_inputs[t.name] = name
                continue
            if not derive_in and name not in declared_in:
                sink.error(doc.loc((*path, "inputs", t.name)) if t.name in bind_in else where,
                           f"fuse step {i + 1}: input '{t.name}' of '{op}' reads '{name}', "
                           "which is neither an input of this op nor an earlier step's output")
                ok = False
                continue
            fused_in.setdefault(name, (step_doc, t.name))
            env[t.name] = ex.Name(name)
            step_inputs[t.name] = name
        bind_attrs = _mapping(step.get("attrs"))
        for key in bind_attrs:
            if spec.attr(key) is None:
                sink.error(doc.key_loc((*path, "attrs", key)), f"fuse step {i + 1}: '{op}' "
                           f"has no attr '{key}'")
                ok = False
        for a in spec.attrs:
            value = bind_attrs.get(a.name, a.name)
            if isinstance(value, bool | int | float):
                env[a.name] = ex.Const(value)
                continue
            if not isinstance(value, str):
                ok = False
                continue
            if not derive_attrs and value not in declared_attrs:
                sink.error(doc.loc((*path, "attrs", a.name)) if a.name in bind_attrs else where,
                           f"fuse step {i + 1}: attr '{a.name}' of '{op}' reads '{value}', "
                           "which is not an attr of this op")
                ok = False
                continue
            fused_attrs.setdefault(value, (step_doc, a.name))
            env[a.name] = ex.Name(value)
        bind_out = _mapping(step.get("outputs"))
        names: dict[str, str] = {}
        for r in spec.reference:  # dependencies first
            e = substitute(r.expr, {**env, **{o: values[names[o]] for o in names}})
            name = bind_out.get(r.output)
            if not isinstance(name, str):
                name = r.output if i == len(steps) - 1 else f"{op}_{i}_{r.output}"
                for alt in (name, "out", f"{name}_{i}"):
                    if alt not in values and alt not in fused_in:
                        name = alt
                        break
            if name in values or name in fused_in:
                sink.error(doc.loc((*path, "outputs", r.output)) if r.output in bind_out
                           else where, f"fuse step {i + 1}: output '{r.output}' of '{op}' is "
                           f"named '{name}', which already names a value")
                ok = False
            values[name] = e
            names[r.output] = name
        last = (spec, step_doc, names)
        chain.append((spec, env, names, dict(step_inputs)))
    if not ok or last is None:
        return ()
    if dtypes is not None and not dtypes and (derive_in or "output_desc" not in data):
        sink.error(at_fuse, "the fused steps share no dtype that all their tensors have; "
                   "declare input_desc and output_desc")
        return ()
    cols = dtypes or []
    first_in = next(iter(fused_in), None)

    def tensor(src: tuple[Document, str], section: str, name: str) -> dict[str, Any]:
        raw = _raw_of(src[0], section, src[1])
        out: dict[str, Any] = {"name": name, "dtype": list(cols), "format": ["ND"] * len(cols)}
        for key in ("shape", "doc"):
            if key in raw:
                out[key] = raw[key]
        return out

    if derive_in:
        data["input_desc"] = [tensor(src, "input_desc", n) for n, src in fused_in.items()]
    if "output_desc" not in data:
        spec, step_doc, names = last
        outs = []
        for t in spec.outputs:
            o = tensor((step_doc, t.name), "output_desc", names[t.name])
            if first_in is not None:
                o["infer"] = f"same_as({first_in})"
            outs.append(o)
        data["output_desc"] = outs
    if derive_attrs and fused_attrs:
        attrs = []
        for n, (src, step_attr) in fused_attrs.items():
            raw = _raw_of(src, "attr_desc", step_attr)
            raw["name"] = n
            raw.pop("ir_name", None)
            attrs.append(raw)
        data["attr_desc"] = attrs
    reference: dict[str, str] = {}
    for o in data["output_desc"]:
        name = o.get("name") if isinstance(o, Mapping) else None
        if isinstance(name, str):
            if name not in values:
                sink.error(at_fuse, f"output '{name}' is not the output of a fuse step; name "
                           "a step's output after it with `outputs: {<step output>: " + name + "}`")
                return ()
            reference[name] = str(values[name])
    data["reference"] = reference if len(reference) != 1 else next(iter(reference.values()))
    grads = chain_rule(chain, values, list(reference))
    if grads is not None:
        doc.fused_gradients = grads  # type: ignore[attr-defined]  # read by derived_backward
    for key in ("reference", "input_desc", "output_desc", "attr_desc"):
        doc.locs.setdefault((key,), at_fuse)
        doc.key_locs.setdefault((key,), at_fuse)
    for name in reference:
        doc.locs.setdefault(("reference", name), at_fuse)
    if "doc" not in data:
        data["doc"] = "Fused: " + " -> ".join(
            s if isinstance(s, str) else str(s.get("op")) for s in steps) + "."
    return tuple(dict.fromkeys(read))


def chain_rule(chain: list[tuple[OpSpec, dict[str, ex.Expr], dict[str, str], dict[str, str]]],
               values: Mapping[str, ex.Expr], outputs: list[str]) -> dict[str, str] | None:
    """The fused op's gradients composed from its steps' backward expressions (reverse
    mode): linear in the number of steps where sympy's derivative of the whole composition
    can grow much larger. None when a step has no per-input gradient expressions."""
    grads: dict[str, ex.Expr] = {o: ex.Name(f"grad_{o}") for o in outputs}
    for spec, env, names, step_inputs in reversed(chain):
        incoming = {f"grad_{o}": grads[v] for o, v in names.items() if v in grads}
        if not incoming:
            continue
        bw = spec.backward
        if bw is None or bw.grad_op is not None:
            return None
        sub = {**env, **{o: values[v] for o, v in names.items()},
               **{f"grad_{o}": incoming.get(f"grad_{o}", ex.Const(0)) for o in names}}
        for t in spec.inputs:
            g = bw.for_input(t.name)
            if g is None or t.name not in step_inputs:
                continue
            term = substitute(g.expr, sub)
            v = step_inputs[t.name]
            grads[v] = ex.Binary("+", grads[v], term) if v in grads else term
    return {n: str(e) for n, e in grads.items()
            if n not in outputs and n not in values}


def write_kernel(spec: OpSpec, spec_dir: Path) -> bool:
    """Write a fused op's kernel, the skeleton of its composed reference, when the file is
    missing or an untouched, outdated skeleton (an edited kernel is the user's). True when
    written."""
    from opgen.emit.skeleton import is_untouched, skeleton
    from opgen.writer import atomic_write

    kernel = spec_dir / spec.kernel.source
    text = skeleton(spec)
    old = kernel.read_text("utf-8") if kernel.exists() else ""
    if old == text or (old.strip() and not is_untouched(old)):
        return False
    atomic_write(kernel, text)
    return True
