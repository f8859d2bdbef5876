"""Every `{{ ... }}` in the templates goes through an escaping filter (opgen/emit/escape.py).

The templates are parsed with Jinja's own parser; an output expression passes when it is
- a filter chain ending in one of ESCAPING (py_str, cxx_comment, ident, num, code, ...),
  or `map('<escaping filter>') | join(...)`,
- a constant, or a conditional / concatenation whose every result passes,
- `| length`, loop counters, or one of the few expressions in KNOWN_SAFE.
Anything else is spec-derived text pasted raw, and fails with its template and line.
"""

from __future__ import annotations

from pathlib import Path

import jinja2
from jinja2 import nodes

from opgen.emit.common import environment
from opgen.emit.escape import FILTERS

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"

ESCAPING = frozenset(FILTERS)
# Expressions known to render an int or a bool, never text (the whole whitelist).
KNOWN_SAFE = frozenset({
    "loop.index0",
    "loop.index",
    "s.name in optional",
})
# Templates that render opgen's own data, not a spec's: the spec reference page is made from
# opgen's JSON schema (tests/test_docs.py checks it).
NOT_SPEC_DERIVED = frozenset({"docs/spec-reference.md.j2"})


def _source(node: nodes.Node) -> str:
    """A stable spelling of simple expressions, for the whitelist."""
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Getattr):
        return f"{_source(node.node)}.{node.attr}"
    if isinstance(node, nodes.Compare) and len(node.ops) == 1:
        return f"{_source(node.expr)} {node.ops[0].op} {_source(node.ops[0].expr)}"
    return f"<{type(node).__name__}>"


def _safe(node: nodes.Expr) -> bool:
    if isinstance(node, nodes.Const):
        return True
    if isinstance(node, nodes.CondExpr):
        return _safe(node.expr1) and (node.expr2 is None or _safe(node.expr2))
    if isinstance(node, nodes.Concat):
        return all(_safe(n) for n in node.nodes)
    if isinstance(node, nodes.Add) and isinstance(node.left, nodes.Const | nodes.Add):
        return _safe(node.left) and _safe(node.right)
    if isinstance(node, nodes.Filter):
        if node.name in ESCAPING or node.name == "length":
            return True
        inner = node.node
        return (node.name == "join" and isinstance(inner, nodes.Filter) and inner.name == "map"
                and bool(inner.args) and isinstance(inner.args[0], nodes.Const)
                and inner.args[0].value in ESCAPING)
    return _source(node) in KNOWN_SAFE


def unescaped(name: str, source: str) -> list[str]:
    """`template:line: {{ expr }}` for each output expression that is not escaped."""
    tree = environment().parse(source)
    found = []
    for output in tree.find_all(nodes.Output):
        for child in output.nodes:
            if isinstance(child, nodes.TemplateData) or _safe(child):
                continue
            line = source.splitlines()[child.lineno - 1].strip()
            found.append(f"templates/{name}:{child.lineno}: {line}")
    return found


def _templates() -> list[Path]:
    return sorted(TEMPLATES.rglob("*.j2"))


def test_every_template_interpolation_is_escaped() -> None:
    problems: list[str] = []
    for path in _templates():
        name = path.relative_to(TEMPLATES).as_posix()
        if name in NOT_SPEC_DERIVED:
            continue
        problems += unescaped(name, path.read_text("utf-8"))
    assert not problems, ("interpolations without an escaping filter (opgen/emit/escape.py; "
                          "see docs/reliability.md):\n" + "\n".join(problems))


def test_the_lint_catches_raw_values() -> None:
    assert unescaped("t.j2", 'x = "{{ doc }}"\n') == ['templates/t.j2:1: x = "{{ doc }}"']
    assert unescaped("t.j2", "{{ doc | upper }}{{ a.b | replace('x', 'y') }}\n") != []
    assert unescaped("t.j2", "{{ xs | join(', ') }}\n") != []
    assert unescaped("t.j2", "{{ x if c else doc }}\n") != []
    assert unescaped("t.j2", "{{ (doc or spec_path) | py_doc }} {{ xs | length }} "
                              "{{ xs | map('ident') | join(', ') }} {{ ' && ' if c }}\n") == []


def test_filters_are_registered_and_undefined_is_strict() -> None:
    env = environment()
    assert set(env.filters) >= ESCAPING
    assert env.undefined is jinja2.StrictUndefined
