"""Stage 1: YAML/JSON loading keeps a file:line:col for every node; YAML 1.2 scalars."""

from __future__ import annotations

import pytest

from opgen.diagnostics import DiagnosticError
from opgen.load import load_text


def test_locations_of_values_and_keys() -> None:
    doc = load_text("op_name: a\ninput_desc:\n  - name: x\n    dtype: [float32, fp16]\n", "s.yaml")
    assert str(doc.loc(("op_name",))) == "s.yaml:1:10"
    assert str(doc.key_loc(("input_desc",))) == "s.yaml:2:1"
    assert str(doc.loc(("input_desc", 0, "dtype", 1))) == "s.yaml:4:22"
    # a path below a scalar falls back to the nearest located ancestor
    assert str(doc.loc(("input_desc", 0, "dtype", 1, "deeper"))) == "s.yaml:4:22"


def test_json_locations_match_the_json_text() -> None:
    doc = load_text('{\n  "op_name": "a",\n  "output_desc": [{"name": "z"}]\n}\n', "s.json")
    assert str(doc.loc(("output_desc", 0, "name"))) == "s.json:3:28"


def test_expression_offsets_inside_single_line_scalars() -> None:
    doc = load_text("reference: 'x * foo'\nplain: x * foo\n", "s.yaml")
    assert str(doc.expr_loc(("reference",), 4)) == "s.yaml:1:17"  # quote counted
    assert str(doc.expr_loc(("plain",), 4)) == "s.yaml:2:12"


def test_yaml_1_2_scalars() -> None:
    doc = load_text("a: 1e-5\nb: on\nc: true\nd: 1.5\ne: -2E3\n", "s.yaml")
    assert doc.data == {"a": 1e-5, "b": "on", "c": True, "d": 1.5, "e": -2000.0}


def test_duplicate_keys_are_errors() -> None:
    with pytest.raises(DiagnosticError) as exc:
        load_text("a: 1\nb: 2\na: 3\n", "s.yaml")
    assert str(exc.value) == "s.yaml:3:1: error: duplicate key 'a' (first given at line 1)"


def test_non_string_keys_are_errors() -> None:
    with pytest.raises(DiagnosticError, match=r"s.yaml:1:1: error: mapping keys must be strings"):
        load_text("1: a\n", "s.yaml")
