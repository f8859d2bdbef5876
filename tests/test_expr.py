"""The expression language: parsing, canonical printing, checks, numpy evaluation."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import expr as ex


@pytest.mark.parametrize("text", [
    "where(x > 0, x, x * negative_slope)",
    "exp(x - max(x, axis=axis, keepdims=True))",
    "-x ** 2",
    "(a - b) * -c",
    "2 ** (-x)",
    "a - (b - c)",
    "a / (b * c)",
    "sum(x, axis=(0, 1))",
    "cast(x, float16) + 1.5",
    "sum_to(grad_z, x)",
    "opt(gamma, 1.0) * x",
])
def test_round_trip(text: str) -> None:
    parsed = ex.parse(text)
    assert str(parsed) == text
    assert ex.parse(str(parsed)) == parsed


def test_folded_multiline_text_parses() -> None:
    assert str(ex.parse("exp(x)\n/ sum(exp(x))")) == "exp(x) / sum(exp(x))"


@pytest.mark.parametrize(("text", "message", "offset"), [
    ("foo(x)", "unknown function 'foo'", 0),
    ("x + expp(x)", "unknown function 'expp'; did you mean 'exp'?", 4),
    ("sum(x, dim=1)", "sum() got an unexpected keyword 'dim'; sum() takes axis and keepdims", 11),
    ("exp(x, y)", "exp() takes 1 positional argument, got 2", 0),
    ("a < b < c", "chained or unsupported comparison; compare two values", 0),
    ("x if y else z", "a conditional (a if c else b) is not part of the expression language; "
                      "use where(c, a, b)", 0),
    ("'s'", "unsupported constant 's'; use numbers or True/False", 0),
])
def test_errors_carry_offsets(text: str, message: str, offset: int) -> None:
    with pytest.raises(ex.ExprSyntaxError) as exc:
        ex.parse(text)
    assert exc.value.message == message
    assert exc.value.offset == offset


def test_numpy_evaluation() -> None:
    x = np.array([[-1.0, 2.0], [3.0, -4.0]], dtype=np.float32)
    env = {"x": x, "negative_slope": 0.1, "gamma": None}
    assert np.allclose(ex.evaluate(ex.parse("where(x > 0, x, x * negative_slope)"), env),
                       [[-0.1, 2.0], [3.0, -0.4]])
    assert ex.evaluate(ex.parse("sum(x, axis=1, keepdims=True)"), env).shape == (2, 1)
    assert ex.evaluate(ex.parse("opt(gamma, 2.0) * x"), env)[0, 1] == 4.0
    assert ex.evaluate(ex.parse("cast(x, float16)"), env).dtype == np.float16
    assert ex.evaluate(ex.parse("cast(x, dtype(x))"), env).dtype == np.float32
    assert np.allclose(ex.evaluate(ex.parse("rsqrt(x * x)"), env), 1 / np.abs(x))


def test_sum_to_undoes_broadcasting() -> None:
    g = np.ones((2, 3, 4))
    out = ex.evaluate(ex.parse("sum_to(g, b)"), {"g": g, "b": np.zeros((3, 1))})
    assert out.shape == (3, 1)
    assert np.all(out == 8)


def test_elementwise_classification() -> None:
    assert ex.is_elementwise(ex.parse("where(x > 0, x, x * a)"))
    assert ex.is_elementwise(ex.parse("cast(x, float16) * 2"))
    assert not ex.is_elementwise(ex.parse("x / sum(x, axis=-1, keepdims=True)"))
    assert ex.names(ex.parse("a * b + exp(c)")) == {"a", "b", "c"}
