"""Worked examples of the static shapes the generated checks expect (opgen_runtime.tf_testing):
TensorFlow's semantics for unknown dims (None) and unknown rank (a None shape)."""

from __future__ import annotations

from typing import Any

import pytest

from opgen_runtime.shapes import ShapeRuleError
from opgen_runtime.tf_testing import static_shape

BROADCAST = {"rule": "broadcast", "inputs": ["x", "y"]}


@pytest.mark.parametrize(("rule", "shapes", "attrs", "expected"), [
    ({"rule": "same_as", "input": "x"}, {"x": [None, 3]}, {}, [None, 3]),
    (BROADCAST, {"x": [None, 5], "y": [4, 1]}, {}, [4, 5]),  # unknown against > 1: that one
    (BROADCAST, {"x": [None, 1, 5], "y": [4, 1]}, {}, [None, 4, 5]),
    (BROADCAST, {"x": [1, 5], "y": [None, None]}, {}, [None, 5]),  # unknown against 1: unknown
    (BROADCAST, {"x": None, "y": [4, 1]}, {}, None),
    ({"rule": "reduce", "input": "x", "axis": -1, "keepdim": True}, {"x": [None, 7]}, {},
     [None, 1]),
    ({"rule": "reduce", "input": "x", "axis": "axis", "keepdim": "keep"}, {"x": [2, None, 7]},
     {"axis": 1, "keep": False}, [2, 7]),
    ({"rule": "reduce", "input": "x", "axis": 0, "keepdim": True}, {"x": None}, {}, None),
    ({"rule": "explicit", "dims": [{"input": "x", "index": -1}, "n", 3]}, {"x": None},
     {"n": 2}, [None, 2, 3]),
])
def test_static_shape(rule: dict[str, Any], shapes: dict[str, Any], attrs: dict[str, Any],
                      expected: Any) -> None:
    assert static_shape(rule, shapes, attrs) == expected


def test_known_dims_that_do_not_broadcast_are_an_error() -> None:
    with pytest.raises(ShapeRuleError, match="do not broadcast"):
        static_shape(BROADCAST, {"x": [2, 3], "y": [4]}, {})
