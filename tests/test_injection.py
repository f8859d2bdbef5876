"""Spec text never becomes code: payloads in every string field of a spec either fail validation
with a located error or end up as data in every generated file (docs/reliability.md,
"Generated code and spec text").

Each payload tries to break out of one context (a Python string or docstring, a C++ string or
comment, a line, a trigraph, a template) and, if it did, would create a marker file. The free
text fields (docs, string defaults, the spec file name) are generated: every .py must compile,
C/C++ payload text must stay inside literals and comments, op_host/op_proto/op_api sources must
pass `g++ -fsyntax-only`, the torch modules are imported and their defaults and docs must read
back exactly, and the marker must not exist. Name-like fields must be rejected, located.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from opgen import gen
from opgen.diagnostics import DiagnosticSink
from opgen.project import load_config, load_spec_file

MARK = "opgen_injection_marker"

PAYLOADS: dict[str, str] = {
    "py_quote": '" + __import__("os").system("touch {mark}") + "',
    "py_single": "' + __import__('os').system('touch {mark}') + '",
    "py_docstring": '"""; __import__("os").system("touch {mark}"); """',
    "backslash": 'trailing backslash \\',
    "py_newline": 'x\nimport os; os.system("touch {mark}")\n#',
    "cxx_newline": 'x\n__attribute__((constructor)) static void opgen_pwn() '
                   '{{ system("touch {mark}"); }}\n//',
    "cxx_quote": '"); static int opgen_pwn = system("touch {mark}"); //',
    "line_splice": 'continues \\\n__attribute__((constructor)) static void opgen_pwn2() '
                   '{{ system("touch {mark}"); }}',
    "block_comment": '*/ static int opgen_pwn3 = system("touch {mark}"); /*',
    "trigraph": '??/\nstatic int opgen_pwn4 = system("touch {mark}");',
    "unicode": "sep\u2028par\u2029nel\x85vt\x0bff\x0c cr\r\n emoji \U0001F600 \u00e9 tab\t "
               "nul\x00 esc\x1b bidi\u202e",
    "template": "{{{{ 7*7 }}}} {{% raw %}} ${{HOME}} $(touch {mark}) `touch {mark}`",
    "ident_newline": "leaky_relu\n",
}

# Fields whose text is free (validation keeps it): generated, then checked.
FREE_FIELDS = ("doc", "input doc", "output doc", "attr doc", "string default",
               "list_string default", "spec file name")
# Fields that must hold a name, a path or an expression: the payload is rejected, located.
NAME_FIELDS = ("op_name", "op_type", "input name", "output name", "attr name", "ir_name",
               "kernel.entry", "kernel.tiling_struct", "kernel.tiling_hook", "kernel.source",
               "reference", "backward", "infer", "dtype_from", "dtype", "format", "soc")

KERNEL = ROOT / "specs" / "leaky_relu.cpp"


def _payload(key: str, mark: Path) -> str:
    return PAYLOADS[key].format(mark=mark)


def _spec(op_name: str, text: str | None = None, *, hook: bool = False) -> dict[str, object]:
    t = text if text is not None else "plain"
    spec: dict[str, object] = {
        "op_name": op_name,
        "doc": t,
        "input_desc": [{"name": "x", "dtype": ["float32"], "doc": t}],
        "output_desc": [{"name": "y", "dtype": ["float32"], "doc": t, "infer": "same_as(x)"}],
        "attr_desc": [
            {"name": "negative_slope", "type": "float", "default": 0.01, "doc": t},
            {"name": "mode", "type": "string", "default": t},
            {"name": "modes", "type": "list_string", "default": [t, "plain"]},
        ],
        "kernel": {"source": "k.cpp", "entry": "leaky_relu"},
        "reference": "where(x > 0, x, x * negative_slope)",
        "backward": {"x": "where(x > 0, grad_y, grad_y * negative_slope)"},
    }
    if hook:
        spec["kernel"] = {"source": "k.cpp", "entry": "leaky_relu",
                          "tiling_hook": "inj_hook:tile"}
    return spec


def _file_name(key: str, payload: str) -> str:
    return re.sub(r"[/\x00]", "_", payload)[:120] + f"_{key}.yaml"


def _write(path: Path, spec: dict[str, object]) -> None:
    path.write_text(yaml.safe_dump(spec, allow_unicode=False, sort_keys=False), "utf-8")


def _project(tmp: Path) -> Path:
    (tmp / "specs").mkdir(parents=True)
    (tmp / "pyproject.toml").write_text("[tool.opgen]\n", "utf-8")
    shutil.copy(KERNEL, tmp / "specs" / "k.cpp")
    (tmp / "specs" / "inj_hook.py").write_text(
        "from opgen_runtime import default_tiling\n\n\ndef tile(*args):\n"
        "    return default_tiling(*args)\n", "utf-8")
    return tmp


# -- C/C++: payload text only inside literals and comments ----------------------------------

_CXX_TOKEN = re.compile(r"""
    //[^\n]*                         # line comment (generated comments never splice)
  | /\*.*?\*/                        # block comment
  | "(?:\\.|[^"\\\n])*"              # string literal
  | '(?:\\.|[^'\\\n])*'              # character literal
""", re.S | re.X)


def _cxx_code(text: str) -> str:
    assert "\\\n" not in text, "a line splice in generated C/C++"
    return _CXX_TOKEN.sub(" ", text)


# -- the test --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = _project(tmp_path_factory.mktemp("injection"))
    mark = root / MARK
    ops: dict[str, str] = {}
    for i, key in enumerate(PAYLOADS):
        payload = _payload(key, mark)
        op_name = f"inj_{i}"
        ops[op_name] = payload
        _write(root / "specs" / _file_name(key, payload), _spec(op_name, payload, hook=i % 2 == 1))
    sink = DiagnosticSink()
    result = gen.run(load_config(root), [], sink, incremental=False)
    errors = [str(d) for d in sink if d.severity.value == "error"]
    assert not errors, "\n".join(errors)
    assert result is not None
    return root, ops


def test_generated_python_compiles(generated: tuple[Path, dict[str, str]]) -> None:
    root, _ = generated
    files = sorted((root / "generated").rglob("*.py"))
    assert len(files) > 4 * len(PAYLOADS)
    for path in files:
        compile(path.read_text("utf-8"), str(path), "exec")


def test_generated_json_parses(generated: tuple[Path, dict[str, str]]) -> None:
    root, ops = generated
    for path in sorted((root / "generated").rglob("*.json")):
        json.loads(path.read_text("utf-8"))
    for op_name, payload in ops.items():
        metadef = json.loads((root / "generated" / "metadef" / f"{op_name}.json")
                             .read_text("utf-8"))
        assert metadef["doc"] == payload


def test_payloads_stay_in_cxx_literals_and_comments(
        generated: tuple[Path, dict[str, str]]) -> None:
    root, _ = generated
    files = [p for p in (root / "generated").rglob("*")
             if p.suffix in (".h", ".cc", ".cpp") and p.is_file()]
    assert len(files) > 5 * len(PAYLOADS)
    for path in files:
        code = _cxx_code(path.read_text("utf-8"))
        for word in ("opgen_pwn", "system(", MARK, "__import__"):
            assert word not in code, f"{path}: payload text outside literals and comments"


def _gxx(args: list[str], cwd: Path, stub_gap: str | None = None) -> None:
    """g++ -fsyntax-only; `stub_gap`: the one error the test stubs are known to give."""
    proc = subprocess.run(["g++", "-fsyntax-only", "-std=c++17", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)
    errors = [line for line in proc.stderr.splitlines() if ": error: " in line
              and not (stub_gap and stub_gap in line)]
    assert not errors and (proc.returncode == 0 or stub_gap), proc.stderr[-4000:]


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_generated_cann_sources_compile(generated: tuple[Path, dict[str, str]]) -> None:
    root, _ = generated
    cann = root / "generated" / "cann"
    include = ["-I", str(ROOT / "runtime" / "include")]
    hosts = sorted(str(p) for p in (cann / "op_host").glob("*.cpp"))
    protos = sorted(str(p) for p in (cann / "op_proto").glob("*.cc"))
    _gxx([*include, "-I", str(cann / "op_host"), *hosts], cann)
    _gxx(["-I", str(ROOT / "tests" / "cann_stubs"), *include, "-I", str(cann / "op_proto"),
          *protos], cann, stub_gap="AttrListString")  # tests/cann_stubs has no ListString
    _gxx([*include, "-I", str(cann / "aclnn"), "-x", "c++",
          str(root / "generated" / "op_api" / "cust_opapi.cc")], cann)


def test_torch_modules_import_and_read_back_the_payloads(
        generated: tuple[Path, dict[str, str]]) -> None:
    pytest.importorskip("torch")
    root, ops = generated
    script = f"""
import importlib, inspect, json, sys
import torch
out = {{}}
for op in {sorted(ops)!r}:
    m = importlib.import_module("opgen_ops.torch." + op)
    sig = inspect.signature(getattr(m, op))
    schema = getattr(torch.ops.opgen_ops, op).default._schema
    out[op] = dict(mode=sig.parameters["mode"].default,
                   modes=list(sig.parameters["modes"].default),
                   schema_mode=[a.default_value for a in schema.arguments if a.name == "mode"][0],
                   doc=getattr(m, op).__doc__)
    importlib.import_module("opgen_ops.registration")
json.dump(out, sys.stdout)
"""
    env = dict(os.environ, OPGEN_TORCH_KERNELS="python",
               PYTHONPATH=os.pathsep.join([str(root / "generated" / "python"),
                                           os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", script], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    got = json.loads(proc.stdout)
    for op, payload in ops.items():
        assert got[op]["mode"] == payload
        assert got[op]["modes"] == [payload, "plain"]
        assert got[op]["schema_mode"] == payload
        assert got[op]["doc"] == payload
    assert not (root / MARK).exists()


def test_no_payload_ran(generated: tuple[Path, dict[str, str]]) -> None:
    root, _ = generated
    for path in sorted((root / "generated").rglob("*.py")):
        compile(path.read_text("utf-8"), str(path), "exec")
    assert not (root / MARK).exists()


@pytest.mark.parametrize("field", NAME_FIELDS)
def test_name_fields_reject_payloads_with_a_location(tmp_path: Path, field: str) -> None:
    root = _project(tmp_path)
    config = load_config(root)
    for key in PAYLOADS:
        payload = _payload(key, root / MARK)
        spec = _spec("inj")
        if field == "op_name":
            spec["op_name"] = payload
        elif field == "op_type":
            spec["op_type"] = payload
        elif field in ("input name", "output name", "attr name", "ir_name", "dtype_from",
                       "dtype", "format"):
            desc = {"input name": "input_desc", "attr name": "attr_desc",
                    "ir_name": "attr_desc"}.get(field, "output_desc")
            item = spec[desc][0]  # type: ignore[index]
            if field == "dtype":
                item["dtype"] = [payload]
            elif field == "format":
                item["format"] = [payload]
            else:
                item[{"ir_name": "ir_name", "dtype_from": "dtype_from"}.get(field, "name")] = \
                    payload
        elif field.startswith("kernel."):
            spec["kernel"][field.split(".")[1]] = payload  # type: ignore[index]
        elif field == "reference":
            spec["reference"] = payload
        elif field == "backward":
            spec["backward"] = {"x": payload}
        elif field == "infer":
            spec["output_desc"][0]["infer"] = payload  # type: ignore[index]
        elif field == "soc":
            spec["soc"] = [payload]
        path = root / "specs" / "inj.yaml"
        _write(path, spec)
        sink = DiagnosticSink()
        specs = load_spec_file(path, config, sink)
        errors = [str(d) for d in sink if d.severity.value == "error"]
        assert errors and not specs, f"{field} = {payload!r} was accepted"
        for e in errors:
            assert re.match(r"specs/inj\.yaml:\d+:\d+: error: ", e), e


@pytest.mark.parametrize("key", ["package", "namespace"])
def test_project_names_must_be_identifiers(tmp_path: Path, key: str) -> None:
    from opgen.diagnostics import DiagnosticError
    for payload in ("opgen_ops\n", 'x"; import os #', "class"):
        (tmp_path / "pyproject.toml").write_text(
            f"[tool.opgen]\n{key} = {json.dumps(payload)}\n", "utf-8")
        with pytest.raises(DiagnosticError, match=r"pyproject\.toml: error: .* must be an "):
            load_config(tmp_path)


def test_figures() -> None:
    """The figures docs/reliability.md quotes."""
    assert len(PAYLOADS) == 13
    assert len(FREE_FIELDS) == 7 and len(NAME_FIELDS) == 17


def test_out_of_range_numbers_are_located_errors(tmp_path: Path) -> None:
    root = _project(tmp_path)
    spec = _spec("inj")
    spec["reference"] = "where(x > 0, x, x * 1e999)"
    path = root / "specs" / "inj.yaml"
    _write(path, spec)
    sink = DiagnosticSink()
    assert not load_spec_file(path, load_config(root), sink)
    assert any(re.match(r"specs/inj\.yaml:\d+:\d+: error: .*range", str(d)) for d in sink)
