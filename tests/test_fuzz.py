"""Fuzzing the compiler's front half: the spec loader, the validator, the expression and
shape-rule parsers and `opgen generate` (specs, kernels, names, docs, defaults).

Every input gets either a result or located one-line reports, never a traceback or a hang:
each line of stderr is `path:line:col: error|warning: message` with control characters
escaped. The short runs are deterministic (derandomize) and take a few seconds each; the
long runs (`pytest -m fuzz_long tests/test_fuzz.py`) try many more inputs.
The regression corpus of known failures is tests/test_fuzz_corpus.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from opgen import expr, shape_rules
from opgen.cli import main
from opgen.diagnostics import DiagnosticError, DiagnosticSink
from opgen.load import load_text
from opgen.validate import build_spec

LOCATED = re.compile(r"^[^:\n]+:\d+:\d+: (error|warning): [^\n]*$")
# the kernel frontend adds a note line (at the spec) to some of its errors
LOCATED_OR_NOTE = re.compile(r"^[^:\n]+:\d+:\d+: (error|warning|note): [^\n]*$")
RAW_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
SLOW = 5.0  # seconds: any one input taking longer counts as a hang


def _settings(examples: int) -> Callable[[Any], Any]:
    return settings(max_examples=examples, derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), print_blob=False)


def short(examples: int) -> Callable[[Any], Any]:
    return _settings(examples)


def long(examples: int) -> Callable[[Any], Any]:
    def wrap(fn: Any) -> Any:
        return pytest.mark.fuzz_long(_settings(examples)(fn))

    return wrap


def assert_reports(text: str, *, notes: bool = False) -> None:
    """Every line is one located report; nothing raw reaches the terminal."""
    assert "Traceback" not in text
    pattern = LOCATED_OR_NOTE if notes else LOCATED
    for line in text.splitlines():
        assert pattern.match(line), f"not a located one-line report: {line!r}"
        assert not RAW_CONTROL.search(line), f"raw control character in {line!r}"


@contextlib.contextmanager
def in_dir(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_cli(argv: list[str]) -> tuple[int, str, float]:
    """opgen in-process: exit code, stderr, seconds. An exception escaping main fails."""
    err, out = io.StringIO(), io.StringIO()
    start = time.monotonic()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(argv)
    return code, err.getvalue(), time.monotonic() - start


def check_diagnostics(exc: DiagnosticError) -> None:
    assert exc.diagnostics
    assert_reports(str(exc))


# -- strategies -------------------------------------------------------------------------------

# text that looks like YAML/JSON: structure, anchors, aliases, numbers, controls, bad bytes
_YAML_PIECES = st.sampled_from([
    "op_name: a\n", "output_desc:\n", "  - name: y\n", "    dtype: [float32]\n", "[", "]", "{",
    "}", ", ", ": ", "- ", "\n", "  ", "&a ", "*a", "&b [*a, *a, *a]", "<<: *a", "!!python/name:x",
    "!!int", "'", '"', "\\", "#", "1e999", "9" * 120, "-1", ".inf", "0x1F", "~", "null",
    "\x00", "\x1b[31m", "\t", "\r", "\u2028", "\ufeff", "\ud800", "é", "---\n", "...\n", "? ",
    "|\n  ", ">-\n  ", "%YAML 1.2\n",
])
yaml_like = st.lists(st.one_of(_YAML_PIECES, st.text(max_size=8)), max_size=40).map("".join)
json_like = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
              st.text(max_size=10)),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=30,
).map(lambda v: json.dumps(v))


def nested(depth: int) -> str:
    return "op_name: a\nx: " + "[" * depth + "]" * depth + "\n"


# names: valid ones, near misses, and hostile text (newlines, escapes, huge, unicode)
names = st.one_of(
    st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True),
    st.text(max_size=20),
    st.sampled_from(["x\ny", "a\x1b[31mred", "\u202eevil", "class", "name", "", " ", "X",
                     "a" * 300, "grad_y", "x" * 5000, "é", "a\x00b"]),
)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**30, max_value=10**120),
    st.floats(), st.text(max_size=30), names,
    st.sampled_from(["1e999", "nan", "float32", "-2", "[1, 2]", "true", "0.01"]),
)
values = st.recursive(scalars, lambda c: st.one_of(st.lists(c, max_size=4),
                                                     st.dictionaries(names, c, max_size=3)),
                      max_leaves=12)

_EXPR_ATOMS = st.sampled_from(["x", "y", "negative_slope", "grad_y", "1", "0.5", "-2", "1e999",
                               "9" * 40, "True", "float16", "dtype(x)", "nope", "x.y", "x[0]"])


@st.composite
def expressions(draw: st.DrawFn, depth: int = 0) -> str:
    if depth > 6 or draw(st.booleans()):
        return draw(_EXPR_ATOMS)
    kind = draw(st.sampled_from(["bin", "un", "call", "cmp", "paren", "junk"]))
    a = draw(expressions(depth + 1))
    if kind == "bin":
        return f"{a} {draw(st.sampled_from(['+', '-', '*', '/', '**', '%', '//', '@']))} " \
               f"{draw(expressions(depth + 1))}"
    if kind == "un":
        return f"{draw(st.sampled_from(['-', '+', 'not ', '~']))}{a}"
    if kind == "call":
        fn = draw(st.sampled_from([*sorted(expr.FUNCTIONS), "foo", "__import__"]))
        args = [a] + [draw(expressions(depth + 1)) for _ in range(draw(st.integers(0, 2)))]
        if draw(st.booleans()):
            args.append(f"{draw(st.sampled_from(['axis', 'keepdims', 'bad']))}={a}")
        return f"{fn}({', '.join(args)})"
    if kind == "cmp":
        return f"{a} {draw(st.sampled_from(['>', '<', '==', '!=', '<=', '>=']))} " \
               f"{draw(expressions(depth + 1))}"
    if kind == "paren":
        return f"({a})"
    return a + draw(st.text(max_size=4))


def base_spec() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "specs" / "leaky_relu.yaml").read_text())
    return data


PATHS = [("op_name",), ("op_type",), ("doc",), ("input_desc", 0, "name"),
         ("input_desc", 0, "dtype"), ("input_desc", 0, "shape"), ("output_desc", 0, "name"),
         ("output_desc", 0, "infer"), ("output_desc", 0, "format"), ("attr_desc", 0, "name"),
         ("attr_desc", 0, "type"), ("attr_desc", 0, "default"), ("attr_desc", 0, "doc"),
         ("kernel", "source"), ("kernel", "entry"), ("kernel", "include_dirs"),
         ("reference",), ("backward", "x"), ("backward",), ("soc",), ("unknown_key",)]


_GONE = object()


def _child(node: Any, key: Any, leaf: bool = False) -> Any:
    """node[key], or _GONE where the path no longer exists; with `leaf`, whether node can take
    node[key] = value."""
    if node is _GONE:
        return _GONE
    if isinstance(node, dict) and (leaf or key in node):
        return node.get(key)
    if isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
        return node[key]
    return _GONE


@st.composite
def mutated_specs(draw: st.DrawFn) -> dict[str, Any]:
    data = base_spec()
    for _ in range(draw(st.integers(0, 4))):
        path = draw(st.sampled_from(PATHS))
        target: Any = data
        for part in path[:-1]:
            # an earlier mutation may have replaced a container on this path by a scalar
            target = _child(target, part)
        if _child(target, path[-1], leaf=True) is _GONE:
            continue
        if path[-1] in ("reference",) or path[:2] == ("backward", "x") or path[-1] == "infer":
            value = draw(st.one_of(expressions(), values))
        else:
            value = draw(values)
        target[path[-1]] = value
    return data


def dump(data: Any, as_json: bool) -> str:
    if as_json:
        return json.dumps(data, indent=1, ensure_ascii=False, default=str)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


_KERNEL_LINES = st.sampled_from([
    '#include "/dev/zero"', '#include "../../../../../../etc/hostname"', "#include HEADER",
    '#include "kernel_operator.h"', "#include <cstdint>", '#include "missing.h"',
    "#include_next <kernel_operator.h>", '#include "lnk.h"', '#include "local.h"',
    "#include <../../../../../../../../etc/hostname>", '#embed "/dev/zero"', "#if 0",
    "#endif", "int broken = ;", "/* #include \"/dev/zero\" */", "\x1b[31m", "\\",
])


@st.composite
def kernels(draw: st.DrawFn) -> bytes:
    lines = (ROOT / "specs" / "leaky_relu.cpp").read_bytes().split(b"\n")
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(lines)))
        piece = draw(st.one_of(_KERNEL_LINES, st.text(max_size=20))).encode("utf-8",
                                                                             "surrogatepass")
        if draw(st.integers(0, 9)) == 0:
            piece += bytes([draw(st.integers(0x80, 0xFF))])
        lines.insert(at, piece)
    return b"\n".join(lines)


def project(tmp: Path) -> Path:
    (tmp / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n'
                                        'output_dir = "generated"\n')
    (tmp / "specs").mkdir()
    shutil.copy(ROOT / "specs" / "leaky_relu.cpp", tmp / "specs" / "leaky_relu.cpp")
    (tmp / "specs" / "local.h").write_text("#pragma once\n")
    os.symlink("/etc/hostname", tmp / "specs" / "lnk.h")
    return tmp


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory,
                   ) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


# -- properties -------------------------------------------------------------------------------

def _loader(text: str, suffix: str) -> None:
    start = time.monotonic()
    try:
        load_text(text, f"spec{suffix}")
    except DiagnosticError as exc:
        check_diagnostics(exc)
    assert time.monotonic() - start < SLOW


def _loader_and_validator(text: str, suffix: str) -> None:
    start = time.monotonic()
    try:
        doc = load_text(text, f"spec{suffix}")
    except DiagnosticError as exc:
        check_diagnostics(exc)
        return
    sink = DiagnosticSink()
    build_spec(doc, sink, spec_dir=str(ROOT / "specs"))
    assert_reports("\n".join(str(d) for d in sink.items))
    assert time.monotonic() - start < SLOW


def _expression(text: str) -> None:
    try:
        tree = expr.parse(text)
    except expr.ExprSyntaxError as exc:
        assert 0 <= exc.offset <= max(len(text), expr.MAX_EXPR_CHARS)
        assert "\n" not in exc.message
        return
    assert expr.parse(str(tree)) is not None  # the canonical spelling parses again


def _shape_rule(text: str) -> None:
    try:
        shape_rules.parse_rule(text)
    except expr.ExprSyntaxError as exc:
        assert exc.offset >= 0


def _validate_spec(data: dict[str, Any], as_json: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp))
        name = "specs/op.json" if as_json else "specs/op.yaml"
        (root / name).write_text(dump(data, as_json), encoding="utf-8", errors="surrogatepass")
        with in_dir(root):
            code, err, seconds = run_cli(["validate", "-q", name])
    assert code in (0, 2)
    assert_reports(err)
    assert seconds < SLOW


def _generate(data: dict[str, Any], kernel: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp))
        (root / "specs" / "leaky_relu.yaml").write_text(dump(data, False), encoding="utf-8",
                                                         errors="surrogatepass")
        (root / "specs" / "leaky_relu.cpp").write_bytes(kernel)
        with in_dir(root):
            code, err, seconds = run_cli(["generate", "-q"])
        if code == 0:  # an accepted spec: every generated Python file compiles, every JSON parses
            for path in (root / "generated").rglob("*"):
                if path.suffix == ".py":
                    compile(path.read_text(encoding="utf-8"), str(path), "exec")
                elif path.suffix == ".json":
                    json.loads(path.read_text(encoding="utf-8"))
    assert code in (0, 2)
    assert_reports(err, notes=True)
    assert seconds < 3 * SLOW


def _pair(fn: Callable[..., None], n_short: int, n_long: int,
          *strategies: st.SearchStrategy[Any]) -> tuple[Any, Any]:
    """The short (CI) and the long (`-m fuzz_long`) test of one property."""
    return short(n_short)(given(*strategies)(fn)), long(n_long)(given(*strategies)(fn))


suffixes = st.sampled_from([".yaml", ".json"])
test_loader_text, test_loader_text_long = _pair(_loader, 200, 5000, st.text(), suffixes)
test_loader_yamlish, test_loader_yamlish_long = _pair(_loader, 200, 5000, yaml_like, suffixes)
test_validator_json, test_validator_json_long = _pair(
    _loader_and_validator, 100, 2000, json_like, st.just(".json"))
test_validator_yaml, test_validator_yaml_long = _pair(
    _loader_and_validator, 100, 2000, yaml_like, st.just(".yaml"))
test_expression_text, test_expression_text_long = _pair(
    _expression, 300, 5000, st.text(max_size=200))
test_expression_grammar, test_expression_grammar_long = _pair(
    _expression, 200, 5000, expressions())
test_shape_rule, test_shape_rule_long = _pair(
    _shape_rule, 200, 3000, st.one_of(st.text(max_size=80), expressions()))
test_spec_files, test_spec_files_long = _pair(
    _validate_spec, 40, 1000, mutated_specs(), st.booleans())
test_generate, test_generate_long = _pair(_generate, 8, 300, mutated_specs(), kernels())


@pytest.mark.parametrize("depth", [1, 63, 64, 65, 500, 5000])
def test_nesting_bound(depth: int) -> None:
    """Right at and past MAX_DEPTH: accepted up to it, one located error past it."""
    try:
        load_text(nested(depth), "s.yaml")
        assert depth + 1 <= 64  # the mapping itself is a level
    except DiagnosticError as exc:
        check_diagnostics(exc)
        assert depth + 1 > 64
        assert "nesting deeper than 64" in str(exc)
