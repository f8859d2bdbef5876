"""The fuzz campaign's failures, one case per cause: each runs `opgen` in-process and must end
in one located line per report (no traceback), within a few seconds, with the expected
message. docs/reliability.md counts them."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from test_fuzz import LOCATED, RAW_CONTROL, SLOW, run_cli

from conftest import ROOT

SPEC = (ROOT / "specs" / "leaky_relu.yaml").read_text()
KERNEL = (ROOT / "specs" / "leaky_relu.cpp").read_bytes()
DEFAULT = "type: float\n    default: 0.01"
REFERENCE = "reference: where(x > 0, x, x * negative_slope)"


def spec(old: str, new: str) -> str:
    assert old in SPEC
    return SPEC.replace(old, new, 1)


def kernel_with(line: str) -> bytes:
    return KERNEL.replace(b'#include "kernel_operator.h"\n',
                          b'#include "kernel_operator.h"\n' + line.encode() + b"\n", 1)


def msopgen(attr_type: str, default: str) -> str:
    tensor = {"param_type": "required", "format": ["ND"], "type": ["float"]}
    return json.dumps([{"op": "FuzzOp", "input_desc": [{"name": "x", **tensor}],
                        "output_desc": [{"name": "y", **tensor}],
                        "attr": [{"name": "a", "param_type": "optional", "type": attr_type,
                                  "default_value": default}]}], indent=1)


def alias_bomb() -> str:
    text = 'op_name: a\na: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        text += f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n"
    return text


@dataclass
class Case:
    name: str
    files: dict[str, str | bytes]  # project-relative path -> content
    argv: list[str]  # `opgen` arguments, run in the project
    expect: str  # a part of the report
    setup: Callable[[Path], None] | None = None
    kernel: bytes = KERNEL
    extra: dict[str, str] = field(default_factory=dict)


def _symlink_out(root: Path) -> None:
    os.symlink("/etc/hostname", root / "specs" / "outside.h")


def _fifo(root: Path) -> None:
    os.mkfifo(root / "specs" / "pipe.h")


def _validate(text: str | bytes, name: str = "specs/leaky_relu.yaml") -> tuple[
        dict[str, str | bytes], list[str]]:
    return {name: text}, ["validate", "-q", name]


CASES = [
    Case("yaml_deep_flow_nesting", *_validate("op_name: a\nx: " + "[" * 500 + "]" * 500 + "\n"),
         "nesting deeper than 64 levels"),
    Case("yaml_deep_block_nesting", *_validate(
        "op_name: a\n" + "".join(f"{'  ' * i}k{i}:\n" for i in range(500)) + "  " * 500 + "v\n"),
         "nesting deeper than 64 levels"),
    Case("json_deep_nesting", *_validate(
        '{"op_name": "a", "x": ' + "[" * 500 + "]" * 500 + "}\n", "specs/deep.json"),
         "nesting deeper than 64 levels"),
    Case("json_very_deep_nesting", *_validate("[" * 100000 + "]" * 100000, "specs/deep.json"),
         "nesting deeper than 64 levels"),
    Case("yaml_alias_bomb", *_validate(alias_bomb()), "expands the spec past 100000 values"),
    Case("long_reference", *_validate(spec(REFERENCE, "reference: " + " + ".join(["x"] * 3000))),
         "expression of 11997 characters; the limit is 4096"),
    Case("long_backward", *_validate(spec("  x: where(x > 0, grad_y, grad_y * negative_slope)",
                                          "  x: " + " * ".join(["grad_y"] * 3000))),
         "the limit is 4096"),
    Case("deep_expression", *_validate(spec(REFERENCE, "reference: " + "-" * 3000 + "x")),
         "expression nests deeper than 100 levels"),
    Case("long_shape_rule", *_validate(spec("infer: same_as(x)",
                                            "infer: '[" + ", ".join(["1"] * 3000) + "]'")),
         "shape rule of 9000 characters"),
    Case("int_default_5000_digits", *_validate(spec(DEFAULT, "type: int\n    default: "
                                                    + "9" * 5000)),
         "integer with 5000 characters"),
    Case("int_default_5000_digits_json", *_validate(
        (ROOT / "specs" / "element_add.json").read_text().replace(
            '"reference"', '"attr_desc": [{"name": "a", "type": "int", "default": '
            + "9" * 5000 + '}],\n  "reference"'), "specs/element_add.json"),
         "integer with 5000 characters"),
    Case("int_default_out_of_int64", *_validate(spec(DEFAULT, "type: int\n    default: "
                                                     + "9" * 30)),
         "does not fit in int64"),
    Case("float_default_out_of_range", *_validate(spec(DEFAULT, "type: float\n    default: "
                                                       "1e999")),
         "is out of range"),
    Case("shape_entry_out_of_range", *_validate(spec("shape: [-2]\noutput_desc",
                                                     f"shape: [{10 ** 30}]\noutput_desc")),
         "does not fit in 64 bits"),
    Case("expression_constants_out_of_range", *_validate(spec(REFERENCE,
                                                              "reference: x * 1e999")),
         "number out of range"),
    Case("msopgen_huge_float_default", {"ops.json": msopgen("float", "1" + "0" * 400)},
         ["import-msopgen", "ops.json", "-o", "imported"], "is beyond the float range"),
    Case("msopgen_5000_digit_default", {"ops.json": msopgen("int", "9" * 5000)},
         ["import-msopgen", "ops.json", "-o", "imported"], "is int but its default is"),
    Case("msopgen_deep_default", {"ops.json": msopgen("listInt", "[" * 5000 + "]" * 5000)},
         ["import-msopgen", "ops.json", "-o", "imported"], "its default must be a list"),
    Case("spec_not_utf8", *_validate(SPEC.replace("doc: Leaky", "doc: L\udcffeaky").encode(
        "utf-8", "surrogateescape")), "not UTF-8 text: byte 0xff"),
    Case("spec_control_character", *_validate(spec("doc: Leaky", "doc: Le\x01aky")),
         "control character \\x01 is not allowed"),
    Case("spec_too_large", *_validate(SPEC + "# " + "x" * (1 << 20) + "\n"),
         "larger than 1048576 bytes"),
    Case("name_with_newline_and_escape", *_validate(spec("  - name: x\n",
                                                         '  - name: "x\\ny\\e[31m"\n')),
         "x\\ny\\x1b[31m"),
    Case("duplicate_op_type", {"specs/leaky_relu.yaml": SPEC, "specs/second.yaml": spec(
        "op_name: leaky_relu", "op_name: leaky_relu_two")},
         ["validate", "-q", "specs/leaky_relu.yaml", "specs/second.yaml"],
         "specs/second.yaml:2:10: error: op_type 'LeakyRelu' of 'leaky_relu_two' is already"),
    Case("duplicate_op_type_generate", {"specs/second.yaml": spec(
        "op_name: leaky_relu\nop_type: LeakyRelu", "op_name: leaky_relu_two\nop_type: LeakyRELU")},
         ["generate", "-q"], "names the same CANN files (leaky_relu.*)"),
    Case("kernel_not_utf8", {}, ["generate", "-q"], "not UTF-8 text (kernel sources are UTF-8)",
         kernel=KERNEL.replace(b"// leaky_relu: y", b"// leaky_relu\xff: y")),
    Case("kernel_includes_dev_zero", {}, ["generate", "-q"], "names a device (/dev/zero)",
         kernel=kernel_with('#include "/dev/zero"')),
    Case("kernel_includes_outside", {}, ["generate", "-q"], "outside the project",
         kernel=kernel_with('#include "../../../../../../../../etc/hostname"')),
    Case("kernel_includes_symlink_out", {}, ["generate", "-q"], "through a symlink",
         setup=_symlink_out, kernel=kernel_with('#include "outside.h"')),
    Case("kernel_includes_pipe", {}, ["generate", "-q"], "names a pipe", setup=_fifo,
         kernel=kernel_with('#include "pipe.h"')),
    Case("kernel_computed_include", {}, ["generate", "-q"], "#include of a macro",
         kernel=kernel_with('#define HDR "/dev/zero"\n#include HDR')),
    Case("kernel_too_many_errors", {}, ["generate", "-q"], ": error: too many errors emitted",
         kernel=KERNEL + b"".join(b"int e%d = undefined_%d;\n" % (i, i) for i in range(40))),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n'
                                             'output_dir = "generated"\n')
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "leaky_relu.yaml").write_text(SPEC)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fuzz_corpus(case: Case, project: Path) -> None:
    (project / "specs" / "leaky_relu.cpp").write_bytes(case.kernel)
    shutil.copy(ROOT / "specs" / "element_add.cpp", project / "specs" / "element_add.cpp")
    for rel, content in case.files.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    if case.setup is not None:
        case.setup(project)
    code, err, seconds = run_cli(case.argv)
    assert code == 2, err
    assert seconds < SLOW, f"{case.name} took {seconds:.1f} s"
    assert "Traceback" not in err
    lines = err.splitlines()
    errors = [line for line in lines if ": error: " in line]
    assert errors, err
    for line in lines:
        assert LOCATED.match(line), f"not a located one-line report: {line!r}"
        assert not RAW_CONTROL.search(line)
    assert case.expect in err, err


def test_corpus_covers_every_cause() -> None:
    assert len(CASES) >= 30


@pytest.mark.parametrize("shape", ["[]", "[5]", "[2, 3, 4, 5]"])
def test_backward_check_on_declared_ranks(project: Path, shape: str) -> None:
    """The long fuzz run's find: a 0-d input (`shape: []`) made the check of a hand-written
    backward against the derivative raise instead of validating."""
    (project / "specs" / "leaky_relu.cpp").write_bytes(KERNEL)
    text = SPEC.replace("    shape: [-2]\n", f"    shape: {shape}\n", 1)
    assert text != SPEC
    (project / "specs" / "leaky_relu.yaml").write_text(text)
    code, err, _ = run_cli(["validate", "-q", "specs/leaky_relu.yaml"])
    assert code == 0, err
    assert "Traceback" not in err
