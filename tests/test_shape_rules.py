"""Shape rules: parsing, canonical printing and evaluation."""

from __future__ import annotations

import pytest

from opgen import shape_rules as sr
from opgen.expr import ExprSyntaxError


@pytest.mark.parametrize(("text", "shapes", "attrs", "expected"), [
    ("same_as(x)", {"x": (2, 3)}, {}, (2, 3)),
    ("broadcast(x, y)", {"x": (4, 1, 3), "y": (5, 1)}, {}, (4, 5, 3)),
    ("reduce(x, axis=-1, keepdim=True)", {"x": (2, 3)}, {}, (2, 1)),
    ("reduce(x, axis=[0, 2], keepdim=False)", {"x": (2, 3, 4)}, {}, (3,)),
    ("reduce(x, axis=a, keepdim=k)", {"x": (2, 3)}, {"a": 0, "k": False}, (3,)),
    ("[dim(x, 0), n, 4]", {"x": (7, 3)}, {"n": 5}, (7, 5, 4)),
])
def test_infer(text: str, shapes: dict[str, tuple[int, ...]], attrs: dict[str, int],
               expected: tuple[int, ...]) -> None:
    rule = sr.parse_rule(text)
    assert sr.infer_shape(rule, shapes, attrs) == expected
    assert sr.parse_rule(str(rule)) == rule


def test_broadcast_mismatch() -> None:
    from opgen_runtime.shapes import ShapeRuleError

    with pytest.raises(ShapeRuleError, match=r"shapes \(2, 3\) and \(4, 3\) do not broadcast"):
        sr.infer_shape(sr.parse_rule("broadcast(x, y)"), {"x": (2, 3), "y": (4, 3)}, {})


@pytest.mark.parametrize(("text", "message"), [
    ("same_shape(x)", "unknown shape rule 'same_shape'; did you mean 'same_as'?"),
    ("reduce(x)", "reduce() needs axis="),
    ("same_as(x, y)", "same_as() takes 1 input name(s), got 2"),
    ("[dim(x), 2]", "dim() takes an input name and an integer index"),
    ("x + 1", "a shape rule is same_as(x), broadcast(x, y), reduce(x, axis=..., keepdim=...) "
              "or a list of dims"),
])
def test_rule_errors(text: str, message: str) -> None:
    with pytest.raises(ExprSyntaxError) as exc:
        sr.parse_rule(text)
    assert exc.value.message == message
